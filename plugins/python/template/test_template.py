"""Native unit tests: `python3 -m unittest discover -s plugins/python/template`."""

import os
import sys
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The kit: the directory holding toolvet_check/ (plugins/python of the
# toolvet repository); $TOOLVET_PYTHON_KIT overrides it.
KIT = os.environ.get("TOOLVET_PYTHON_KIT") or str(HERE.parent)
sys.path[:0] = [str(HERE), KIT]

from template import Template  # noqa: E402
from toolvet_check import Context, SettingsError, ToolCall, ToolInfo  # noqa: E402
# results: begin

from toolvet_check import ToolResult, vet_result  # noqa: E402
# results: end


class TemplateTest(unittest.TestCase):
    def test_blocks_words_in_nested_strings(self) -> None:
        check = Template.from_settings_json('{"blocked_words": ["rm -rf"]}')
        call = ToolCall("run", '{"steps": [{"cmd": "RM -RF /tmp/x"}]}')
        self.assertEqual(check.check(call, ToolInfo(), Context()).rule, "template.blocked-word")
        self.assertEqual(check.check(ToolCall("run", '{"cmd": "ls"}'), ToolInfo(), Context()).kind, "allow")

    def test_case_sensitive(self) -> None:
        check = Template.from_settings_json('{"blocked_words": ["DROP"], "case_sensitive": true}')
        self.assertEqual(check.check(ToolCall("sql", '{"q": "drop"}'), ToolInfo(), Context()).kind, "allow")

    def test_empty_word_is_a_settings_error(self) -> None:
        with self.assertRaises(SettingsError) as cm:
            Template.from_settings_json('{"blocked_words": [" "]}')
        self.assertEqual(str(cm.exception), "settings.blocked_words[0]: must not be empty")
    # results: begin

    def test_masks_blocked_words_in_results(self) -> None:
        check = Template.from_settings_json('{"blocked_words": ["drop table"]}')
        call, tool, ctx = ToolCall("read_log"), ToolInfo(), Context()
        # vet_result is what the host sees: masks as UTF-8 byte spans.
        text = ToolResult.text("caf\u00e9: DROP TABLE users")
        decision = vet_result(check, call, tool, ctx, text)
        self.assertEqual(decision.kind, "redact")
        self.assertEqual(decision.host_masks, (("span", (7, 17), "blocked-word"),))
        self.assertEqual([label.name for label in decision.labels], ["blocked-word-seen"])
        rows = ToolResult.json('{"rows": [{"sql": "drop table users"}, {"sql": "select 1"}]}')
        decision = vet_result(check, call, tool, ctx, rows)
        self.assertEqual(decision.host_masks, (("pointer", "/rows/0/sql", "blocked-word"),))
        self.assertEqual(vet_result(check, call, tool, ctx, ToolResult.text("all fine")).kind, "allow")
    # results: end


if __name__ == "__main__":
    unittest.main()
