"""Unit tests of the Python kit's result checks (contract 0.2), run natively:
`python3 -m unittest discover -s plugins/python/tests`. What the host does
with them: test_host_results.py."""

from __future__ import annotations

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from toolvet_check import (  # noqa: E402
    Check,
    Context,
    Label,
    ResultDecision,
    ResultError,
    RunLabel,
    ToolCall,
    ToolInfo,
    ToolResult,
    abstain_result,
    allow,
    allow_result,
    host_masks,
    pointer,
    redact,
    span,
    vet_result,
    withhold,
)


class Answers(Check):
    """Answers whatever the test put in `self.answer`."""

    name = "answers"

    def check(self, call, tool, ctx):
        return allow()

    def check_result(self, call, tool, ctx, result):
        return self.answer


def vetted(answer, result: ToolResult, call: ToolCall = ToolCall("fetch")) -> ResultDecision:
    check = Answers.from_settings_json("{}")
    check.answer = answer
    return vet_result(check, call, ToolInfo(), Context(), result)


class ResultDecisionTest(unittest.TestCase):
    def test_constructors(self) -> None:
        self.assertEqual(allow_result().kind, "allow")
        self.assertEqual(abstain_result([Label("seen")]).labels, (Label("seen"),))
        w = withhold("x.y", "withheld because")
        self.assertEqual((w.kind, w.rule, w.message), ("withhold", "x.y", "withheld because"))
        self.assertEqual(redact(span(0, 1, "k")).masks, (span(0, 1, "k"),))
        with self.assertRaisesRegex(ValueError, "a withhold needs a message"):
            withhold("x.y", "")
        with self.assertRaisesRegex(ValueError, "at least one mask"):
            redact([])
        with self.assertRaisesRegex(ValueError, "17 labels, over 16"):
            allow_result([Label(f"l{i}") for i in range(17)])

    def test_labels_follow_the_hosts_rules(self) -> None:
        self.assertEqual(Label("secret-seen", ["a", "b"]).values, ("a", "b"))
        for bad, message in [
            (lambda: Label("Secret"), "lowercase ASCII"),
            (lambda: Label(""), "lowercase ASCII"),
            (lambda: Label("a" * 65), "lowercase ASCII"),
            (lambda: Label("a", ["v"] * 33), "33 values, over 32"),
            (lambda: Label("a", ["\u00e9" * 257]), r"values\[0\] is over 512 bytes"),
        ]:
            with self.assertRaisesRegex(ValueError, message):
                bad()

    def test_a_check_without_check_result_does_not_vet_results(self) -> None:
        class Calls(Check):
            name = "calls"

            def check(self, call, tool, ctx):
                return allow()

        self.assertFalse(Calls.vets_results())
        self.assertTrue(Answers.vets_results())


class MaskTest(unittest.TestCase):
    def test_spans_are_utf8_byte_offsets_of_string_indices(self) -> None:
        text = "h\u00e9llo \U0001f600 SECRET-42 \u00e9"
        i = text.index("SECRET")
        d = vetted(redact([span(i, i + 9, "secret"), span(0, 1, "x")]), ToolResult.text(text))
        # h(1) é(2) llo (4) 😀(4) space(1): the secret starts at byte 12.
        self.assertEqual(d.host_masks, (("span", (12, 21), "secret"), ("span", (0, 1), "x")))
        self.assertEqual(text.encode()[12:21], b"SECRET-42")

    def test_pointers_resolve_in_the_json(self) -> None:
        result = ToolResult.json('{"rows": [{"a/b": "x", "t~": "y"}], "n": 1}')
        self.assertEqual(list(result.strings()), [("/rows/0/a~1b", "x"), ("/rows/0/t~0", "y")])
        d = vetted(redact([pointer(at, "k") for at, _ in result.strings()] + [pointer("/n", "k")]), result)
        self.assertEqual(
            d.host_masks, (("pointer", "/rows/0/a~1b", "k"), ("pointer", "/rows/0/t~0", "k"), ("pointer", "/n", "k"))
        )

    def test_masks_the_host_would_refuse_are_errors(self) -> None:
        text, rows = ToolResult.text("abc"), ToolResult.json('{"rows": [1]}')
        for masks, result, message in [
            ([span(1, 1, "k")], text, r"span 1\.\.1 is empty or outside the text's 3 characters"),
            ([span(2, 4, "k")], text, "outside"),
            ([span(-1, 2, "k")], text, "outside"),
            ([span(0, 1, "two words")], text, "a mask's kind is 1-64 ASCII"),
            ([span(0, 1, "\u00e9")], text, "a mask's kind"),
            ([pointer("/rows", "k")], text, "a pointer mask on a text result"),
            ([span(0, 1, "k")], rows, "a span mask on a JSON result"),
            ([pointer("", "k")], rows, "not a JSON Pointer inside the value"),
            ([pointer("/rows/1", "k")], rows, "does not resolve"),
            ([pointer("/rows/01", "k")], rows, "does not resolve"),
            ([pointer("/rows/0/x", "k")], rows, "does not resolve"),
            ([span(0, 1, "k")] * 4097, text, "4097 masks, over 4096"),
        ]:
            with self.subTest(message):
                with self.assertRaisesRegex(ResultError, message):
                    host_masks(result, masks)

    def test_a_wrong_return_type_is_an_error(self) -> None:
        with self.assertRaisesRegex(TypeError, "check_result\\(\\) returned Decision"):
            vetted(allow(), ToolResult.text("x"))


class ControlCharacterTest(unittest.TestCase):
    def test_a_result_may_hold_any_character(self) -> None:
        d = vetted(allow_result(), ToolResult.text("a\x1b[31mred\x00 x\r y"))
        self.assertEqual(d.kind, "allow")

    def test_a_call_with_a_refused_control_character_withholds_its_result(self) -> None:
        d = vetted(allow_result(), ToolResult.text("x"), ToolCall("fetch", '{"u": "a\\u0000b"}'))
        self.assertEqual((d.kind, d.rule), ("withhold", "input.control-character"))
        self.assertIn("`arguments.u` holds the control character \\x00 (NUL) at byte 1", d.message)


class ContextLabelsTest(unittest.TestCase):
    def test_labels_of_the_run(self) -> None:
        ctx = Context(
            labels=[
                RunLabel("untrusted-content", ("a@x.test",), "c1", "fetch", "results"),
                RunLabel("untrusted-content", ("b@x.test", "a@x.test"), "c2", "fetch", "results"),
            ]
        )
        self.assertTrue(ctx.has_label("untrusted-content"))
        self.assertFalse(ctx.has_label("secret-seen"))
        self.assertEqual(ctx.label_values("untrusted-content"), ["a@x.test", "b@x.test"])
        self.assertIsNone(ToolInfo().facts)
        self.assertEqual(Context().labels, [])


if __name__ == "__main__":
    unittest.main()
