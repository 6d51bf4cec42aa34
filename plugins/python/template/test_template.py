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


if __name__ == "__main__":
    unittest.main()
