"""The bridge between the generated component bindings (`wit_world`) and the
kit's types. Imported only inside a component (`sys.platform == "wasi"`),
while componentize-py pre-initialises the app."""

from __future__ import annotations

import traceback

from componentize_py_types import Err
from wit_world import exports
from wit_world.exports import check as wit_check
from wit_world.imports import types as wit

from . import log
from ._check import vet
from ._decision import Decision
from ._model import Context, Outcome, PriorCall, ToolCall, ToolInfo

_OUTCOMES = {
    wit.Outcome.ALLOWED: Outcome.ALLOWED,
    wit.Outcome.DENIED: Outcome.DENIED,
    wit.Outcome.ESCALATED: Outcome.ESCALATED,
    wit.Outcome.APPROVED: Outcome.APPROVED,
    wit.Outcome.REJECTED: Outcome.REJECTED,
}


def _call(c: wit.ToolCall) -> ToolCall:
    return ToolCall(c.name, c.arguments, c.id)


def _tool(t: wit.ToolInfo) -> ToolInfo:
    return ToolInfo(t.description, t.risk, t.requires_approval, list(t.tags), t.parameters_schema)


def _context(c: wit.CallContext) -> Context:
    history = [PriorCall(p.name, p.arguments, _OUTCOMES[p.outcome]) for p in c.history]
    return Context(c.agent, c.run_id, c.principal, history, [(k, v) for k, v in c.attributes])


def _decision(d: Decision) -> wit.Decision:
    if d.kind == "allow":
        return wit.Decision_Allow()
    if d.kind == "abstain":
        return wit.Decision_Abstain()
    reason = wit.Reason(message=d.message or "", rule=d.rule)
    if d.kind == "deny":
        return wit.Decision_Deny(reason)
    return wit.Decision_Escalate(reason)


def make_export(cls: type) -> type:
    """The class componentize-py exports for the `check` interface, wrapping
    the check class `cls`. The configured check lives for the instance;
    if `check` runs before `configure` (a host bug) it is built from `{}`."""
    state: dict = {}

    def configured():
        if "check" not in state:
            state["check"] = cls.from_settings_json("{}")
        return state["check"]

    class Check(exports.Check):
        def describe(self) -> wit_check.PluginInfo:
            info = cls.info()
            return wit_check.PluginInfo(
                name=info.name, version=info.version, description=info.description, tools=list(info.tools)
            )

        def configure(self, settings: str) -> None:
            try:
                built = cls.from_settings_json(settings)
            except ValueError as e:
                raise Err(str(e)) from None
            except Exception as e:
                log.error(f"configure raised:\n{traceback.format_exc()}")
                raise Err(f"settings: the check failed to start: {type(e).__name__}: {e}") from None
            try:
                built.warm_up()
            except Exception as e:
                log.error(f"warm_up raised:\n{traceback.format_exc()}")
                raise Err(f"the check failed to warm up: {type(e).__name__}: {e}") from None
            state["check"] = built

        def check(self, call: wit.ToolCall, tool: wit.ToolInfo, ctx: wit.CallContext) -> wit.Decision:
            try:
                decision = vet(configured(), _call(call), _tool(tool), _context(ctx))
                if not isinstance(decision, Decision):
                    raise TypeError(
                        f"check() returned {type(decision).__name__}, expected a Decision "
                        "(use allow(), abstain(), deny(rule, message) or escalate(rule, message))"
                    )
            except Exception:
                # Log the traceback, then let the call trap: the host records
                # the error and applies the check's on_error.
                log.error(f"check raised:\n{traceback.format_exc()}")
                raise
            return _decision(decision)

    return Check
