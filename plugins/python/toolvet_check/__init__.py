"""The kit for toolvet checks written in Python.

A check is one subclass of `Check` with a `check(call, tool, ctx)` method;
`export(MyCheck)` turns it into the component's implementation of the
`toolvet:check/plugin` world (`wit/check-0.2/check.wit`; `wit/check.wit`
for a check built with `build.py --contract 0.1`), built with
componentize-py.
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

A check of contract 0.2 (what `build.py` builds by default) also reads the
run's labels (`ctx.labels`) and the host's tool facts (`tool.facts`, None
when there are none), and may vet what tools return: it defines
`check_result(self, call, tool, ctx, result)`, returning `allow_result()`,
`abstain_result()`, `withhold(rule, message)` or `redact(masks)` with
optional `labels`, and ends its app module with
`Check = ResultCheck = export(MyCheck)`.

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
from ._model import (
    EFFECTS,
    ROLES,
    ArgumentsError,
    Context,
    Label,
    Outcome,
    PluginInfo,
    PriorCall,
    ResultSummary,
    RoleValue,
    RunLabel,
    ToolCall,
    ToolFacts,
    ToolInfo,
)
from ._result import (
    Mask,
    ResultDecision,
    ResultError,
    ToolResult,
    abstain_result,
    allow_result,
    host_masks,
    pointer,
    redact,
    span,
    vet_result,
    withhold,
)

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
    "EFFECTS",
    "ROLES",
    "PluginInfo",
    "PriorCall",
    "SettingsError",
    "ToolCall",
    "ToolInfo",
    "Label",
    "Mask",
    "ResultDecision",
    "ResultError",
    "ResultSummary",
    "RoleValue",
    "RunLabel",
    "ToolFacts",
    "ToolResult",
    "WARM_UP_TEXT",
    "abstain",
    "abstain_result",
    "allow",
    "allow_result",
    "control_character",
    "decode",
    "deny",
    "describe_value",
    "escalate",
    "export",
    "host_masks",
    "loads",
    "log",
    "pointer",
    "redact",
    "span",
    "strongest",
    "vet",
    "vet_result",
    "withhold",
    "warm_up_with",
]
