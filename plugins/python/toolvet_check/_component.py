"""The bridge between the generated component bindings (`wit_world`) and the
kit's types. Imported only inside a component (`sys.platform == "wasi"`),
while componentize-py pre-initialises the app.

The bindings are those of the world build.py built for: contract 0.1
(`wit/check.wit`, world `plugin`) or 0.2 (`wit/check-0.2/check.wit`, world
`plugin`, or `result-plugin` when the app module binds `ResultCheck`). What
0.2 adds (facts, labels, results) is read only when the bindings have it.
"""

from __future__ import annotations

import traceback

from componentize_py_types import Err
from wit_world import exports
from wit_world.exports import check as wit_check
from wit_world.imports import types as wit

from . import log
from ._check import vet
from ._decision import Decision
from ._model import Context, Label, Outcome, PriorCall, ResultSummary, RoleValue, RunLabel, ToolCall, ToolFacts, ToolInfo
from ._result import ResultDecision, ToolResult, vet_result

# Built for contract 0.2 (its types have results), and for `result-plugin`.
CONTRACT_02 = hasattr(wit, "ToolResult")
EXPORTS_RESULTS = hasattr(exports, "ResultCheck")

_OUTCOMES = {
    wit.Outcome.ALLOWED: Outcome.ALLOWED,
    wit.Outcome.DENIED: Outcome.DENIED,
    wit.Outcome.ESCALATED: Outcome.ESCALATED,
    wit.Outcome.APPROVED: Outcome.APPROVED,
    wit.Outcome.REJECTED: Outcome.REJECTED,
}


def _call(c: wit.ToolCall) -> ToolCall:
    return ToolCall(c.name, c.arguments, c.id)


def _wit_name(member) -> str:
    """A WIT enum or flag case's name, e.g. `OUTBOUND_MESSAGE` -> `outbound-message`."""
    return member.name.lower().replace("_", "-")


def _wit_member(name: str) -> str:
    """The WIT member of a role or effect name, e.g. `outbound-message` -> `OUTBOUND_MESSAGE`."""
    return name.upper().replace("-", "_")


def _facts(f) -> ToolFacts:
    source = f.source
    if isinstance(source, wit.FactSource_Catalog):
        origin = ("catalog", source.value)
    elif isinstance(source, wit.FactSource_Inferred):
        origin = ("inferred", list(source.value))
    else:
        origin = ("declared", None)
    return ToolFacts(
        effects=frozenset(_wit_name(e) for e in wit.Effects if e in f.effects),
        irreversible=f.irreversible,
        protected_target=f.protected_target,
        roles=tuple(RoleValue(_wit_name(r.role), r.pointer, r.value, r.dialect) for r in f.roles),
        source=origin,
    )


def _tool(t: wit.ToolInfo) -> ToolInfo:
    facts = getattr(t, "facts", None)
    return ToolInfo(
        t.description,
        t.risk,
        t.requires_approval,
        list(t.tags),
        t.parameters_schema,
        _facts(facts) if facts is not None else None,
    )


def _labels(labels) -> tuple:
    return tuple(Label(label.name, tuple(label.values)) for label in labels)


def _prior(p) -> PriorCall:
    returned = getattr(p, "returned", None)
    summary = ResultSummary(_wit_name(returned.outcome), _labels(returned.labels)) if returned is not None else None
    return PriorCall(p.name, p.arguments, _OUTCOMES[p.outcome], summary)


def _context(c: wit.CallContext) -> Context:
    labels = [
        RunLabel(r.label.name, tuple(r.label.values), r.call_id, r.tool, r.check) for r in getattr(c, "labels", ())
    ]
    return Context(c.agent, c.run_id, c.principal, [_prior(p) for p in c.history], list(c.attributes), labels)


def _result(r) -> ToolResult:
    kind = "json" if isinstance(r.content, wit.ResultContent_Json) else "text"
    return ToolResult(r.content.value, kind, r.is_error)


def _result_decision(d: ResultDecision):
    labels = [wit.Label(name=label.name, values=list(label.values)) for label in d.labels]
    if d.kind == "allow":
        action = wit.ResultAction_Allow()
    elif d.kind == "abstain":
        action = wit.ResultAction_Abstain()
    elif d.kind == "withhold":
        action = wit.ResultAction_Withhold(wit.Reason(message=d.message or "", rule=d.rule))
    else:
        masks = [
            wit.Mask(
                target=wit.Redaction_Span(where) if target == "span" else wit.Redaction_Pointer(where),
                kind=kind,
            )
            for target, where, kind in d.host_masks or ()
        ]
        action = wit.ResultAction_Redact(masks)
    return wit.ResultDecision(action=action, labels=labels)


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
    """The class componentize-py exports for the `check` (and `result-check`) interface, wrapping
    the check class `cls`. The configured check lives for the instance;
    if `check` runs before `configure` (a host bug) it is built from `{}`.

    A check with `check_result` must be built for `result-plugin` (the app
    module binds `ResultCheck`), and only such a check may be: a mismatch
    fails the build, naming the fix."""
    if cls.vets_results() and not EXPORTS_RESULTS:
        raise TypeError(
            f"{cls.__name__} defines check_result, but the component does not export result-check: "
            f"end the app module with `Check = ResultCheck = export({cls.__name__})` (and build for contract 0.2)"
        )
    if EXPORTS_RESULTS and not cls.vets_results():
        raise TypeError(
            f"the app module binds ResultCheck, but {cls.__name__} defines no "
            "check_result(self, call, tool, ctx, result)"
        )
    state: dict = {}

    def configured():
        if "check" not in state:
            state["check"] = cls.from_settings_json("{}")
        return state["check"]

    bases = (exports.Check, exports.ResultCheck) if EXPORTS_RESULTS else (exports.Check,)

    class Check(*bases):
        def describe(self) -> wit_check.PluginInfo:
            info = cls.info()
            if CONTRACT_02:
                effects = wit.Effects(0)
                for e in info.effects:
                    effects |= wit.Effects[_wit_member(e)]
                return wit_check.PluginInfo(
                    name=info.name,
                    version=info.version,
                    description=info.description,
                    tools=list(info.tools),
                    roles=[wit.Role[_wit_member(r)] for r in info.roles],
                    effects=effects,
                )
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

        def check_result(self, call, tool, ctx, returned):
            try:
                decision = vet_result(configured(), _call(call), _tool(tool), _context(ctx), _result(returned))
            except Exception:
                # As for `check`: log, then trap; the host records the error
                # and applies on_error (withhold unless it is `allow`).
                log.error(f"check_result raised:\n{traceback.format_exc()}")
                raise
            return _result_decision(decision)

    if not EXPORTS_RESULTS:
        del Check.check_result
    return Check
