"""Unit tests of the Python kit, run natively:
`python3 -m unittest discover -s plugins/python/tests`."""

from __future__ import annotations

import sys
import unittest
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Literal, Optional, Union

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from toolvet_check import (  # noqa: E402
    ArgumentsError,
    Check,
    Context,
    DecodeError,
    FieldError,
    Outcome,
    PriorCall,
    SettingsError,
    ToolCall,
    WARM_UP_TEXT,
    ToolInfo,
    abstain,
    allow,
    decode,
    deny,
    escalate,
    export,
    loads,
    strongest,
    warm_up_with,
)


@dataclass
class Inner:
    hard: Decimal
    soft: Optional[Decimal] = None

    def __post_init__(self) -> None:
        if self.soft is not None and self.soft > self.hard:
            raise FieldError("soft", "must not be above hard")


@dataclass
class Outer:
    name: str = "x"
    count: int = 1
    ratio: float = 0.5
    enabled: bool = True
    mode: Literal["deny", "escalate"] = "deny"
    tags: list[str] = field(default_factory=list)
    limits: dict[str, Inner] = field(default_factory=dict)
    either: Union[int, list[int]] = 0


class LoadsTest(unittest.TestCase):
    def test_fractions_are_decimals_and_integers_ints(self) -> None:
        value = loads('{"a": 0.1, "b": 3, "c": 1e3, "d": -2.50}')
        self.assertEqual(value, {"a": Decimal("0.1"), "b": 3, "c": Decimal("1E+3"), "d": Decimal("-2.50")})
        self.assertIs(type(value["a"]), Decimal)
        self.assertIs(type(value["b"]), int)

    def test_rejects_nan_and_infinity(self) -> None:
        for text in ('{"a": NaN}', '{"a": Infinity}', '{"a": -Infinity}'):
            with self.assertRaises(ValueError, msg=text):
                loads(text)

    def test_huge_integers_stay_exact(self) -> None:
        digits = "9" * 5000
        self.assertEqual(loads(digits), Decimal(digits))


class DecodeTest(unittest.TestCase):
    def test_decodes_nested_dataclasses(self) -> None:
        value = loads(
            '{"name": "n", "count": 4, "ratio": 2, "enabled": false, "mode": "escalate", "tags": ["a"],'
            ' "limits": {"USD": {"hard": 10, "soft": "2.5"}}, "either": [1, 2]}'
        )
        got = decode(value, Outer, "settings")
        self.assertEqual(
            got,
            Outer("n", 4, 2.0, False, "escalate", ["a"], {"USD": Inner(Decimal(10), Decimal("2.5"))}, [1, 2]),
        )

    def test_defaults_fill_missing_keys(self) -> None:
        self.assertEqual(decode({}, Outer, "settings"), Outer())

    def assertError(self, value: object, tp: object, message: str) -> None:
        with self.assertRaises(DecodeError) as cm:
            decode(value, tp, "settings")
        self.assertEqual(str(cm.exception), message)

    def test_errors_name_the_path(self) -> None:
        self.assertError({"nmae": "x"}, Outer, "settings.nmae: unknown key (known keys: count, either, enabled, limits, mode, name, ratio, tags)")
        self.assertError({"count": "ten"}, Outer, 'settings.count: expected an integer, got string "ten"')
        self.assertError({"count": True}, Outer, "settings.count: expected an integer, got boolean true")
        self.assertError({"tags": ["a", 3]}, Outer, "settings.tags[1]: expected a string, got number 3")
        self.assertError({"mode": "warn"}, Outer, 'settings.mode: expected one of "deny", "escalate", got string "warn"')
        self.assertError({"limits": {"EUR": {}}}, Outer, "settings.limits.EUR.hard: missing required key")
        self.assertError({"limits": {"EUR": {"hard": "lots"}}}, Outer, 'settings.limits.EUR.hard: expected a decimal number, got string "lots"')
        self.assertError({"limits": {"EUR": {"hard": "NaN"}}}, Outer, 'settings.limits.EUR.hard: expected a finite number, got string "NaN"')
        self.assertError({"limits": {"EUR": {"hard": 1, "soft": 2}}}, Outer, "settings.limits.EUR.soft: must not be above hard")
        self.assertError({"either": "x"}, Outer, 'settings.either: expected an integer or an array, got string "x"')
        self.assertError({"either": [1, "x"]}, Outer, 'settings.either[1]: expected an integer, got string "x"')
        self.assertError([], Outer, "settings: expected an object, got an array")

    def test_integral_decimal_is_an_int(self) -> None:
        self.assertEqual(decode(Decimal("3.0"), int, "x"), 3)
        with self.assertRaises(DecodeError):
            decode(Decimal("3.5"), int, "x")


@dataclass
class Recipient:
    address: str


@dataclass
class SendArgs:
    to: list[Recipient]
    amount: Optional[Decimal] = None


@dataclass
class Read:
    path: str


@dataclass
class Write:
    path: str
    content: str


@dataclass
class FileArgs:
    op: Union[Read, Write]


class ModelTest(unittest.TestCase):
    def test_call_arguments(self) -> None:
        call = ToolCall("pay", '{"amount": 12.30, "to": "acct", "n": 2}')
        self.assertEqual(call.json["amount"], Decimal("12.30"))
        self.assertEqual(call.str_arg("to"), "acct")
        self.assertIsNone(call.str_arg("n"))
        self.assertEqual(call.get("missing", 7), 7)

        @dataclass
        class Args:
            amount: Decimal
            to: str
            n: int = 0

        self.assertEqual(call.args(Args), Args(Decimal("12.30"), "acct", 2))
        with self.assertRaises(DecodeError) as cm:
            ToolCall("pay", '{"amount": true, "to": "x"}').args(Args)
        self.assertEqual(str(cm.exception), "arguments.amount: expected a number, got boolean true")
        self.assertIsInstance(cm.exception, ArgumentsError)
        with self.assertRaises(ArgumentsError) as cm:
            ToolCall("pay", "{not json").args(Args)
        self.assertTrue(str(cm.exception).startswith("arguments: not valid JSON: "), str(cm.exception))

    def test_unknown_argument_keys_are_skipped_unless_strict(self) -> None:
        call = ToolCall("send", '{"to": [{"address": "a@x.com", "name": "A"}], "subject": "hi"}')
        self.assertEqual(call.args(SendArgs), SendArgs([Recipient("a@x.com")]))
        with self.assertRaises(ArgumentsError) as cm:
            call.args(SendArgs, strict=True)
        self.assertEqual(str(cm.exception), "arguments.subject: unknown key (known keys: amount, to)")
        nested = ToolCall("send", '{"to": [{"address": "a@x.com", "name": "A"}]}')
        with self.assertRaises(ArgumentsError) as cm:
            nested.args(SendArgs, strict=True)
        self.assertEqual(str(cm.exception), "arguments.to[0].name: unknown key (known keys: address)")
        # A union takes the member the value fits exactly before a looser
        # one that would skip keys.
        self.assertEqual(
            ToolCall("fs", '{"op": {"path": "/etc/passwd", "content": "x"}}').args(FileArgs),
            FileArgs(Write("/etc/passwd", "x")),
        )
        self.assertEqual(ToolCall("fs", '{"op": {"path": "/a", "mode": 1}}').args(FileArgs), FileArgs(Read("/a")))
        # Skipping unknown keys never relaxes the types of known ones.
        with self.assertRaises(ArgumentsError) as cm:
            ToolCall("send", '{"to": "a@x.com", "extra": 1}').args(SendArgs)
        self.assertEqual(str(cm.exception), 'arguments.to: expected an array, got string "a@x.com"')

    def test_invalid_json_arguments_read_as_empty(self) -> None:
        self.assertEqual(ToolCall("x", "not json").json, {})
        self.assertEqual(ToolCall("x", "[1]").json, {})

    def test_context_and_outcomes(self) -> None:
        ctx = Context(attributes=[("cwd", "/a"), ("cwd", "/b")], history=[PriorCall("pay", "{}", Outcome.APPROVED)])
        self.assertEqual(ctx.attribute("cwd"), "/a")
        self.assertIsNone(ctx.attribute("user"))
        self.assertTrue(ctx.history[0].ran)
        self.assertEqual([o.ran for o in Outcome], [True, False, False, True, False])


class DecisionTest(unittest.TestCase):
    def test_constructors(self) -> None:
        d = deny("x.y", "no")
        self.assertEqual((d.kind, d.rule, d.message), ("deny", "x.y", "no"))
        self.assertEqual(escalate("x.z", "ask").kind, "escalate")
        self.assertEqual(allow().kind, "allow")
        self.assertEqual(abstain().kind, "abstain")

    def test_deny_needs_a_message(self) -> None:
        with self.assertRaises(ValueError):
            deny("x.y", "")

    def test_strongest(self) -> None:
        e1, e2, d = escalate("a.1", "m"), escalate("a.2", "m"), deny("a.3", "m")
        self.assertEqual(strongest(allow(), e1, e2), e1)
        self.assertEqual(strongest(e1, d, allow()), d)
        self.assertEqual(strongest(), abstain())
        self.assertEqual(strongest(abstain(), allow()), allow())


@dataclass
class WordSettings:
    blocked_words: list[str] = field(default_factory=lambda: ["secret"])

    def __post_init__(self) -> None:
        for i, w in enumerate(self.blocked_words):
            if not w:
                raise FieldError(f"blocked_words[{i}]", "must not be empty")


class NoBadWords(Check):
    name = "no-bad-words"
    description = "test"
    Settings = WordSettings

    def check(self, call: ToolCall, tool: ToolInfo, ctx: Context):
        for w in self.settings.blocked_words:
            if w in call.arguments:
                return deny("words.blocked", f"contains `{w}`")
        return allow()


class CheckTest(unittest.TestCase):
    def test_from_settings_json(self) -> None:
        c = NoBadWords.from_settings_json('{"blocked_words": ["x"]}')
        self.assertEqual(c.settings.blocked_words, ["x"])
        self.assertEqual(NoBadWords.from_settings_json("").settings.blocked_words, ["secret"])
        self.assertEqual(c.check(ToolCall("t", '{"a": "x"}'), ToolInfo(), Context()).rule, "words.blocked")

    def test_settings_errors(self) -> None:
        cases = {
            '{"blocked_word": []}': "settings.blocked_word: unknown key (known keys: blocked_words)",
            '{"blocked_words": [""]}': "settings.blocked_words[0]: must not be empty",
            '{"blocked_words": "x"}': 'settings.blocked_words: expected an array, got string "x"',
            "[1]": "settings: expected a JSON object",
        }
        for text, message in cases.items():
            with self.assertRaises(SettingsError) as cm:
                NoBadWords.from_settings_json(text)
            self.assertEqual(str(cm.exception), message)
        with self.assertRaises(SettingsError) as cm:
            NoBadWords.from_settings_json("{oops")
        self.assertTrue(str(cm.exception).startswith("settings: not valid JSON"))

    def test_info(self) -> None:
        info = NoBadWords.info()
        self.assertEqual((info.name, info.version, info.tools), ("no-bad-words", "0.1.0", ["*"]))

    def test_export_validates(self) -> None:
        self.assertIs(export(NoBadWords), NoBadWords)  # natively nothing to export

        class Nameless(NoBadWords):
            name = ""

        class NoCheck(Check):
            name = "no-check"

        class BadDefaults(NoBadWords):
            name = "bad-defaults"

            def __init__(self, settings):
                raise SettingsError("settings.x: broken")

        with self.assertRaises(TypeError):
            export(Nameless)
        with self.assertRaises(TypeError):
            export(NoCheck)
        with self.assertRaises(SettingsError):
            export(BadDefaults)


if __name__ == "__main__":
    unittest.main()


class WarmUpTests(unittest.TestCase):
    """`warm_up_with`, the usual body of `Check.warm_up`."""

    class Recorder(Check):
        name = "recorder"

        def __init__(self, settings) -> None:
            super().__init__(settings)
            self.seen: list[tuple[str, dict, Optional[str]]] = []

        def check(self, call, tool, ctx):
            if call.name == "boom":
                raise RuntimeError("crashed on a sample call")
            self.seen.append((call.name, call.json, ctx.attribute("cwd")))
            return allow()

    def test_each_call_runs_without_context_and_as_a_coding_agent(self):
        check = self.Recorder.from_settings_json("{}")
        self.assertIsNone(check.warm_up())  # the default does nothing
        self.assertEqual(check.seen, [])
        warm_up_with(check, [("bash", {"command": "ls"}), ("write", {"text": WARM_UP_TEXT})])
        self.assertEqual(
            check.seen,
            [
                ("bash", {"command": "ls"}, None),
                ("write", {"text": WARM_UP_TEXT}, None),
                ("bash", {"command": "ls"}, "/home/alice/project"),
                ("write", {"text": WARM_UP_TEXT}, "/home/alice/project"),
            ],
        )

    def test_an_exception_from_a_sample_call_propagates(self):
        check = self.Recorder.from_settings_json("{}")
        with self.assertRaisesRegex(RuntimeError, "crashed on a sample call"):
            warm_up_with(check, [("boom", {})])


class ControlCharacterTests(unittest.TestCase):
    """Issue 29, finding 4: the kit refuses control characters other than tab
    and newline (a CR only in a CRLF) before any check runs, with the Rust
    kit's rule id and message."""

    class Never(Check):
        name = "never"

        def check(self, call, tool, ctx):
            def texts(v):
                if isinstance(v, str):
                    yield v
                elif isinstance(v, dict):
                    for k, x in v.items():
                        yield k
                        yield from texts(x)
                elif isinstance(v, list):
                    for x in v:
                        yield from texts(x)

            if any("\x00" in t for t in texts(call.json)):
                raise AssertionError("the kit refuses before the check runs")
            return allow()

    def run_vet(self, args: str, name: str = "bash", ctx: Optional[Context] = None):
        from toolvet_check import vet

        return vet(self.Never(None), ToolCall(name, args), ToolInfo(), ctx or Context())

    def test_the_four_nul_variants(self):
        for args, path, offset in [
            ('{"command": "r\\u0000m -rf ~"}', "arguments.command", 1),
            ('{"command": "su\\u0000do id"}', "arguments.command", 2),
            ('{"command": "terraform dest\\u0000roy"}', "arguments.command", 14),
            ('{"path": "/w/.claude/settings.js\\u0000on"}', "arguments.path", 22),
        ]:
            d = self.run_vet(args)
            self.assertEqual((d.kind, d.rule), ("deny", "input.control-character"), args)
            self.assertTrue(
                d.message.startswith(
                    f"The value of `{path}` holds the control character \\x00 (NUL) at byte {offset}."
                ),
                d.message,
            )
            self.assertNotIn("\x00", d.message)

    def test_other_controls_keys_names_and_context(self):
        d = self.run_vet('{"a": "\\u00e9\\u001b[2K"}')
        self.assertIn("`arguments.a` holds the control character \\x1b (ESC) at byte 2.", d.message)
        d = self.run_vet('{"comm\\u0000and": "rm -rf ~"}')
        self.assertTrue(d.message.startswith('The key `arguments["comm\\u0000and"]` holds'), d.message)
        d = self.run_vet('{"edits": [{"path": "a"}, {"new": "x\\by"}]}')
        self.assertIn("`arguments.edits[1].new`", d.message)
        self.assertEqual(self.run_vet("{}", name="ba\x00sh").rule, "input.control-character")
        ctx = Context(attributes=[("cwd", "/home/a\rb")])
        self.assertIn("`context.attributes.cwd`", self.run_vet("{}", ctx=ctx).message)
        self.assertEqual(self.run_vet('{"a": "echo ok\\rrm -rf ~"}').rule, "input.control-character")
        # The history is not the call's.
        ctx = Context(history=[PriorCall("bash", '{"command": "r\\u0000m"}', Outcome.DENIED)])
        self.assertEqual(self.run_vet('{"command": "ls"}', ctx=ctx).kind, "allow")
        # Not JSON at all: refused as a whole.
        self.assertIn("`arguments`", self.run_vet('{"a": "\x00"').message)

    def test_ordinary_text_passes(self):
        for args in [
            '{"command": "printf \'a\\tb\\n\' | sort"}',
            '{"content": "one\\r\\ntwo\\r\\n"}',
            '{"content": "C:\\\\root\\\\bin \\\\u0000"}',
            '{"content": "del \\u007f, c1 \\u0085, \\u00e9"}',
            '{"n": 12345678901234567890123, "x": 1e400, "list": [true, null]}',
        ]:
            self.assertEqual(self.run_vet(args).kind, "allow", args)
