"""The kit for toolvet checks written in Python.

A check is one subclass of `Check` with a `check(call, tool, ctx)` method;
`export(MyCheck)` turns it into the component's implementation of the
`toolvet:check/plugin` world (`wit/check.wit`), built with componentize-py.
The same class runs natively, so its logic is unit tested with plain CPython.

    from dataclasses import dataclass, field
    from toolvet_check import Check, allow, deny, export

    @dataclass
    class Settings:
        blocked_words: list[str] = field(default_factory=list)

    class NoBadWords(Check):
        name = "no-bad-words"
        description = "Denies calls whose arguments contain blocked words"
        Settings = Settings

        def check(self, call, tool, ctx):
            for word in self.settings.blocked_words:
                if word in call.arguments:
                    return deny("words.blocked", f"the arguments contain `{word}`")
            return allow()

    Check = export(NoBadWords)

Import every module a check needs at the top of its module: the component
is a snapshot taken after the app module is imported, and nothing can be
imported at run time. See docs/write-a-check-python.md.

Before `check` sees a call, the kit refuses control characters other than tab
and newline (a carriage return only in a CRLF line end) in the tool name, the
arguments and the context (`vet`, rule `input.control-character`), as the
Rust and JavaScript kits do.
"""

from . import log
from ._check import WARM_UP_TEXT, Check, NoSettings, SettingsError, export, vet, warm_up_with
from ._decision import Decision, abstain, allow, deny, escalate, strongest
from ._decode import DecodeError, FieldError, decode, describe_value, loads
from ._input import CONTROL_CHARACTER_RULE, control_character
from ._model import ArgumentsError, Context, Outcome, PluginInfo, PriorCall, ToolCall, ToolInfo

__all__ = [
    "CONTROL_CHARACTER_RULE",
    "ArgumentsError",
    "Check",
    "Context",
    "Decision",
    "DecodeError",
    "FieldError",
    "NoSettings",
    "Outcome",
    "PluginInfo",
    "PriorCall",
    "SettingsError",
    "ToolCall",
    "ToolInfo",
    "WARM_UP_TEXT",
    "abstain",
    "allow",
    "control_character",
    "decode",
    "deny",
    "describe_value",
    "escalate",
    "export",
    "loads",
    "log",
    "strongest",
    "vet",
    "warm_up_with",
]
