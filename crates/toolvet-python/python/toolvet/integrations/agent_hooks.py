"""AGENT-HOOKS-0.1 (Microsoft's framework-neutral interception contract, package
``agent-hooks-sdk``): toolvet as an interceptor that any conforming host registers
(:class:`ToolvetInterceptor`), and the approval resolver that lifts toolvet's holds
(:class:`ToolvetApprovalResolver`). Tested with ``agent-hooks-sdk`` 0.1.0b3: its
``InterceptionEmitter`` and its conformance kit's reference host.

How toolvet maps onto the contract:

- ``pre_tool_call`` is :meth:`Gate.check` on ``tool_call`` (name, args, id), with the
  context's ``session.id`` as the run and ``agent.id`` as the agent:
  - allow: ``allow``;
  - deny: a plain (final) ``deny``; ``reason`` is the rule that decided, ``message`` what
    the model may read (``Blocked by policy: <reason>``);
  - escalate: a *liftable* deny, a ``deny`` with an ``approval`` block
    ``{"toolvet": {"approval_id", "rule", "reason"}}`` (every text :func:`visible`).
    Only :class:`ToolvetApprovalResolver` lifts it the way toolvet means: through
    toolvet's ledger, once.
- ``post_tool_call`` is :meth:`Gate.check_result` on ``tool_result.value``: pass is
  ``allow``; redact is ``transform`` of ``$target`` (the result) to the masked value;
  withhold is a plain ``deny`` (the host must not hand the result to the model).
- A check in ``mode = "monitor"`` is recorded only: what it would have decided
  becomes a ``warnings`` entry (``toolvet-monitor:<rule>``), which never changes
  control flow. A host in ``evaluate_only`` mode records toolvet's verdicts and
  enforces none. That is not toolvet's monitor mode (toolvet does not know the
  host's mode): a held call opens a request in toolvet's ledger, the run's history
  counts a denied call as denied though it ran, and the result of a call toolvet
  did not let run is ``toolvet.unvetted-call`` rather than vetted (so the labels it
  would raise are not).
- Every other interception point is ``allow``: toolvet vets tool calls and results.

Failures never allow: the gate turns any host failure into a deny (a withhold for a
result), and an exception inside :meth:`ToolvetInterceptor.intercept` is a deny too.

Composition: what makes toolvet's verdict stand. The contract lets a host compose
interceptors, and lift holds, so that a call toolvet denies or holds still runs (a
resolver that lifts another interceptor's hold under ``on_approval: stop`` ends the
fold before toolvet is asked; under ``sequential/run_all`` or a parallel profile the
lifting of another hold, or of a synthesized one, lifts toolvet's deny too; a
transform after toolvet's look runs arguments it never vetted). The host is trusted
there (the contract is cooperative, not a security boundary), so build the emitter
with :func:`guarded_emitter`: ``sequential/first_deny`` with ``on_approval:
resume``, toolvet registered last, toolvet's holds lifted only by
:class:`ToolvetApprovalResolver`. Whatever the host does, the interceptor vets the
result only of a call it let run with those arguments; any other call's result is
denied (``toolvet.unvetted-call``), so what such a call returned never reaches the
model (the call itself has run: the set-up is what prevents that).

The approval seam. :class:`ToolvetApprovalResolver` keeps the rule every toolvet
adapter follows: a held call runs only when both the host's approval flow (``ask``,
when given) and toolvet's ledger say yes, and it runs once. It lifts only holds its
interceptor made, for the call being decided with the arguments held (looked up by
approval id, never taken from the request's context).

What is vetted is what the action consumes: the context's ``target`` (§4.3). A
context whose ``tool_call.args`` (or ``tool_result.value``) differs from its
``target`` is denied (``toolvet.ambiguous-context``): the two readings disagree.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, Optional, Union

from agent_hooks import (
    ApprovalOutcome,
    ApprovalRequest,
    ApprovalResolution,
    CompositionConfig,
    Decision,
    InterceptionEmitter,
    InterceptionPoint,
    OnApproval,
    Transform,
    Verdict,
    Warning,
)

from ._base import Gate, ResultRuling, Ruling, as_gate, visible

#: The key of toolvet's part of an ``approval`` block.
APPROVAL_KEY = "toolvet"

#: What ``ask`` may answer (or a coroutine answering it): ``True`` (approve),
#: ``False`` or a message (reject), ``None`` (no answer: the hold stays; so does
#: any other value, and nothing is recorded).
Answer = Union[bool, str, None]


def _reason(rule: Optional[str]) -> str:
    """A verdict's machine ``reason``: the rule that decided (``policy.denied-tool``,
    ``shell.destructive``), ``toolvet.policy`` when none did. (A rule spelled like
    the host's reserved ``host_error:…`` makes the SDK's ``Verdict`` refuse it: the
    interceptor then denies, ``toolvet.host-error``.)"""
    return rule or "toolvet.policy"


class HeldCall:
    """A call a :class:`ToolvetInterceptor` held for a person (kept by approval id):
    the tool's ``name``, the ``arguments`` vetted, the ``call_id``, the run
    (``run_id``, the context's ``session.id``) and the ``agent``; what
    :class:`ToolvetApprovalResolver` settles."""

    __slots__ = ("agent", "arguments", "call_id", "name", "run_id")

    def __init__(self, name: str, arguments: Any, call_id: str, run_id: Optional[str], agent: Optional[str]):
        self.name = name
        self.arguments = arguments
        self.call_id = call_id
        self.run_id = run_id
        self.agent = agent


class ToolvetInterceptor:
    """An AGENT-HOOKS interceptor that vets tool calls and results with a toolvet
    host (see the module docs). ``host`` is a :class:`toolvet.Host` or a
    :class:`Gate`; ``gate_options`` are :class:`Gate`'s. At most ``max_held``
    holds are remembered for :class:`ToolvetApprovalResolver` (the oldest is
    forgotten first; its call is then held again when asked about).

    ``results_of_vetted_calls_only`` (default true): a result is vetted only when
    this interceptor let its call run, with the same run, call id, tool and
    arguments (allowed, or approved through :class:`ToolvetApprovalResolver`);
    the result of any other call is denied (``toolvet.unvetted-call``), so a host
    set up to let calls past toolvet (another resolver lifting its hold, a
    transform after its look, a parallel profile: see :func:`guarded_emitter`)
    never hands the model what such a call returned. At most ``max_held`` calls
    are remembered this way; a call's memory is spent by its result. Pass false
    only for an interceptor bound to ``post_tool_call`` alone (results only)."""

    def __init__(
        self,
        host: Any,
        *,
        max_held: int = 4096,
        results_of_vetted_calls_only: bool = True,
        **gate_options: Any,
    ) -> None:
        self.gate: Gate = as_gate(host, **gate_options)
        self._held: OrderedDict[str, HeldCall] = OrderedDict()
        self._let_through: OrderedDict[tuple[Optional[str], str, str, str], None] = OrderedDict()
        self._max_held = max(1, int(max_held))
        self._vetted_calls_only = bool(results_of_vetted_calls_only)
        self._lock = threading.Lock()

    def intercept(self, context: dict[str, Any]) -> Verdict:
        """The verdict about one interception (AGENT-HOOKS §5). Never raises."""
        try:
            point = context.get("interception_point")
            if point == InterceptionPoint.PRE_TOOL_CALL.value:
                return self._pre_tool_call(context)
            if point == InterceptionPoint.POST_TOOL_CALL.value:
                return self._post_tool_call(context)
            return Verdict.allow()
        except Exception as e:  # noqa: BLE001 - never an allow
            return Verdict.deny(
                reason="toolvet.host-error",
                message=f"the tool-call policy could not vet this ({type(e).__name__}), so it may not proceed",
            )

    def held(self, approval_id: str) -> Optional[HeldCall]:
        """The call held under ``approval_id`` by this interceptor, if remembered."""
        with self._lock:
            return self._held.get(approval_id)

    def let_through(self, run_id: Optional[str], call_id: str, name: str, arguments: Any) -> None:
        """Remember that this call may run (an allow, or an approval its resolver
        settled): its result will be vetted. See the class docs."""
        key = (run_id, call_id, name, _canonical(arguments))
        with self._lock:
            self._let_through[key] = None
            self._let_through.move_to_end(key)
            while len(self._let_through) > self._max_held:
                self._let_through.popitem(last=False)

    def _was_let_through(self, run_id: Optional[str], call_id: str, name: str, arguments: Any) -> bool:
        try:
            key = (run_id, call_id, name, _canonical(arguments))
        except (TypeError, ValueError):
            return False
        with self._lock:
            return self._let_through.pop(key, False) is None

    def _pre_tool_call(self, context: dict[str, Any]) -> Verdict:
        call = context.get("tool_call")
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            return Verdict.deny(reason="toolvet.invalid-call", message="the tool call has no name")
        name, arguments = call["name"], _acted_on(context, call, "args")
        if arguments is _AMBIGUOUS:
            return _ambiguous("call's arguments")
        if not isinstance(arguments, dict):
            # The tool gets what is here; toolvet vets arguments as one JSON object.
            return Verdict.deny(reason="toolvet.invalid-call", message="the tool call's arguments are not an object")
        call_id, run_id, agent = _identity(context, call)
        ruling = self.gate.check(name, arguments, call_id=call_id, run_id=run_id, agent=agent)
        warnings = _monitor_warnings(ruling)
        if ruling.allowed:
            self.let_through(run_id, call_id, name, arguments)
            return Verdict(decision=Decision.ALLOW, warnings=warnings)
        if ruling.escalated and ruling.approval_id:
            with self._lock:
                # A copy: the host's context may change after this look (a later transform).
                held = HeldCall(name, json.loads(_canonical(arguments)), call_id, run_id, agent)
                self._held[ruling.approval_id] = held
                self._held.move_to_end(ruling.approval_id)
                while len(self._held) > self._max_held:
                    self._held.popitem(last=False)
            approval = {APPROVAL_KEY: ruling.payload()}
            return _deny(ruling, warnings, approval=approval, message=f"a person must approve this call: {ruling.shown_reason}")
        return _deny(ruling, warnings, message=ruling.message)

    def _post_tool_call(self, context: dict[str, Any]) -> Verdict:
        call = context.get("tool_call")
        result = context.get("tool_result")
        if not isinstance(call, dict) or not isinstance(call.get("name"), str) or not isinstance(result, dict):
            return Verdict.deny(reason="toolvet.invalid-result", message="the tool result has no call or value")
        value = _acted_on(context, result, "value")
        if value is _AMBIGUOUS:
            return _ambiguous("tool's result")
        call_id, run_id, agent = _identity(context, call)
        if self._vetted_calls_only and not self._was_let_through(run_id, call_id, call["name"], call.get("args")):
            logging.getLogger("toolvet").warning(
                "the result of a call toolvet did not let run (%s, call id %r) is withheld: "
                "see toolvet.integrations.agent_hooks.guarded_emitter",
                visible(call["name"]),
                visible(call_id),
            )
            return Verdict.deny(
                reason="toolvet.unvetted-call",
                message="The tool's result was withheld by toolvet: toolvet did not let this call run with these "
                "arguments, so what it returned is not shown",
            )
        vetted: ResultRuling = self.gate.check_result(
            call["name"],
            call.get("args", {}),
            value,
            call_id=call_id,
            run_id=run_id,
            agent=agent,
            is_error=result.get("is_error") is True,
        )
        if vetted.passed:
            return Verdict.allow()
        if vetted.redacted:
            return Verdict(
                decision=Decision.TRANSFORM,
                reason=_reason(vetted.rule),
                transform=Transform(path="$target", value=vetted.content),
            )
        return Verdict.deny(reason=_reason(vetted.rule), message=vetted.message)


_AMBIGUOUS = object()


def _canonical(value: Any) -> str:
    """``value`` as JSON text that tells ``1``, ``1.0`` and ``true`` apart."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, allow_nan=False)


def _acted_on(context: dict[str, Any], part: dict[str, Any], key: str) -> Any:
    """What the guarded action consumes: the context's ``target`` (§4.3: a host runs
    the tool with, or hands the model, the effective target), which a conforming host
    keeps equal to ``part[key]`` (the call's ``args``, the result's ``value``). When
    both are present and differ, the two readings disagree: :data:`_AMBIGUOUS`."""
    if "target" not in context:
        return part.get(key, {} if key == "args" else None)
    target = context["target"]
    if key in part:
        try:
            if _canonical(part[key]) != _canonical(target):
                return _AMBIGUOUS
        except (TypeError, ValueError):
            return _AMBIGUOUS
    return target


def _ambiguous(what: str) -> Verdict:
    return Verdict.deny(
        reason="toolvet.ambiguous-context",
        message=f"the {what} in this context differ from its target, so it is not clear what would run",
    )


def _identity(context: dict[str, Any], call: dict[str, Any]) -> tuple[str, Optional[str], Optional[str]]:
    """(call id, run id, agent) of an interception: the call's ``id``, the context's
    ``session.id`` and ``agent.id``."""
    session = context.get("session")
    agent = context.get("agent")
    run_id = session.get("id") if isinstance(session, dict) else None
    agent_id = agent.get("id") if isinstance(agent, dict) else None
    call_id = call.get("id")
    return (
        call_id if isinstance(call_id, str) else "",
        run_id if isinstance(run_id, str) and run_id else None,
        agent_id if isinstance(agent_id, str) and agent_id else None,
    )


def _monitor_warnings(ruling: Ruling) -> tuple[Warning, ...]:
    """What the policy's monitor-mode checks would have decided, as warnings."""
    verdict = ruling.verdict
    if verdict is None:
        return ()
    out = []
    for outcome in verdict.checks:
        if outcome.mode == "monitor" and outcome.decision in ("deny", "escalate"):
            out.append(
                Warning(
                    reason=f"toolvet-monitor:{outcome.rule or outcome.check}",
                    message=visible(f"{outcome.check} would {outcome.decision}: {outcome.reason or ''}"),
                )
            )
    return tuple(out)


def _deny(
    ruling: Ruling, warnings: tuple[Warning, ...], *, message: str, approval: Optional[dict[str, Any]] = None
) -> Verdict:
    return Verdict(
        decision=Decision.DENY,
        reason=_reason(ruling.rule),
        message=message,
        warnings=warnings,
        approval=approval,
    )


class ToolvetApprovalResolver:
    """The AGENT-HOOKS approval resolver (§9) for :class:`ToolvetInterceptor`'s holds.

    ``ask(request, payload)``, when given, is the host's own approval flow (a person
    asked in the host's UI), a function or a coroutine function (awaited, so the
    host's event loop goes on; a plain function blocks it while the person
    answers): ``True`` approves, ``False`` or a message rejects, ``None`` (or any
    other value) leaves the hold and records nothing. An approval is recorded in toolvet's ledger as
    ``reviewer`` (a policy that takes only signed decisions refuses it: a deny) and
    the call is vetted again with its ticket, which spends the approval; a rejection
    is recorded and never spends one.

    Without ``ask``, the decision is the ledger's: a reviewer decides with ``toolvet
    approvals`` or on the reviewer page, and the resolver waits up to ``wait``
    seconds for it (polling every ``poll`` seconds; with ``wait`` above 0,
    :meth:`resolve` answers a coroutine, so the host's event loop goes on and the
    emitter's ``timeout``, which must exceed ``wait``, bounds it), then settles the
    call (:meth:`Gate.settle`): approved is ``approve`` (once), rejected or expired
    is ``reject``, still pending is ``unresolved`` (the host then denies it).

    Lifted only: a hold this interceptor made (a ``toolvet`` block naming an
    approval id it remembers), for the same call (the request's call id and tool)
    with the same arguments (the request's ``target`` and ``tool_call.args`` must
    be the held call's, so an approval is never spent on other arguments than the
    ones the person approved; a host redactor must leave them intact). Any other
    toolvet block is ``unresolved``. A hold that is not toolvet's goes to
    ``others`` (the host's resolver for its own holds), ``unresolved`` without
    one. Never raises.
    """

    def __init__(
        self,
        interceptor: ToolvetInterceptor,
        *,
        ask: Optional[Callable[[ApprovalRequest, dict[str, Any]], Any]] = None,
        reviewer: Optional[str] = None,
        wait: float = 0.0,
        poll: float = 0.25,
        others: Any = None,
    ) -> None:
        self.interceptor = interceptor
        self.ask = ask
        self.reviewer = reviewer
        self.wait = max(0.0, float(wait))
        self.poll = max(0.01, float(poll))
        self.others = others

    def resolve(self, request: ApprovalRequest) -> Any:
        """An :class:`ApprovalResolution` (a coroutine answering one while it
        waits for the ledger, see the class docs)."""
        identity = request.context_identity
        try:
            block = (request.verdict.approval or {}).get(APPROVAL_KEY)
            if block is None and self.others is not None:
                return self.others.resolve(request)
            held = self._held_for(request, block)
            if held is None:
                return ApprovalResolution(ApprovalOutcome.UNRESOLVED, identity)
            if self.ask is None:
                if self.wait > 0:
                    return self._settle_after_waiting(request, held, block["approval_id"])
                return self._settled(request, held, self.interceptor.gate.settle(held.name, held.arguments, **_where(held)))
            answer = self.ask(request, dict(block))
            if inspect.isawaitable(answer):
                return self._answered_later(request, held, answer)
            return self._answered(request, held, answer)
        except Exception:  # noqa: BLE001 - never a lift
            return ApprovalResolution(ApprovalOutcome.UNRESOLVED, identity)

    def _held_for(self, request: ApprovalRequest, block: Any) -> Optional[HeldCall]:
        """The held call ``request`` is about, when it is one this resolver lifts."""
        approval_id = block.get("approval_id") if isinstance(block, dict) else None
        held = self.interceptor.held(approval_id) if isinstance(approval_id, str) else None
        context = request.context if isinstance(request.context, dict) else {}
        call = context.get("tool_call")
        if held is None or request.interception_point is not InterceptionPoint.PRE_TOOL_CALL:
            return None
        if not isinstance(call, dict) or (call.get("id") or "", call.get("name")) != (held.call_id, held.name):
            return None  # another call than the one held
        try:
            approved = _canonical(held.arguments)
            if _canonical(call.get("args")) != approved or _canonical(context.get("target")) != approved:
                return None  # other arguments than the ones held (a transform, a redactor)
        except (TypeError, ValueError):
            return None
        return held

    async def _settle_after_waiting(self, request: ApprovalRequest, held: HeldCall, approval_id: str) -> ApprovalResolution:
        approvals = getattr(self.interceptor.gate.host, "approvals", None)
        deadline = time.monotonic() + self.wait
        try:
            while approvals is not None and time.monotonic() < deadline:
                if approvals.get(approval_id).status != "pending":
                    break
                await asyncio.sleep(min(self.poll, max(0.0, deadline - time.monotonic())))
            return self._settled(request, held, self.interceptor.gate.settle(held.name, held.arguments, **_where(held)))
        except Exception:  # noqa: BLE001 - never a lift
            return ApprovalResolution(ApprovalOutcome.UNRESOLVED, request.context_identity)

    async def _answered_later(self, request: ApprovalRequest, held: HeldCall, answer: Any) -> ApprovalResolution:
        """:meth:`_answered` for an ``ask`` that answers asynchronously."""
        try:
            return self._answered(request, held, await answer)
        except Exception:  # noqa: BLE001 - never a lift
            return ApprovalResolution(ApprovalOutcome.UNRESOLVED, request.context_identity)

    def _answered(self, request: ApprovalRequest, held: HeldCall, answer: Any) -> ApprovalResolution:
        """Record the person's ``answer`` (``ask``'s) and answer the resolution: ``True``
        approves, ``False`` or a message rejects; anything else (``None``, or a value
        ``ask`` should not give) records nothing and leaves the hold."""
        gate = self.interceptor.gate
        if answer is True:
            ruling = gate.resume(held.name, held.arguments, approved=True, reviewer=self.reviewer, **_where(held))
        elif answer is False or isinstance(answer, str):
            message = answer if isinstance(answer, str) else None
            ruling = gate.reject(held.name, held.arguments, reviewer=self.reviewer, message=message, **_where(held))
        else:
            return ApprovalResolution(ApprovalOutcome.UNRESOLVED, request.context_identity)
        return self._settled(request, held, ruling)

    def _settled(self, request: ApprovalRequest, held: HeldCall, ruling: Ruling) -> ApprovalResolution:
        """The resolution a final ruling about the held call makes."""
        identity = request.context_identity
        if ruling.escalated:
            return ApprovalResolution(ApprovalOutcome.UNRESOLVED, identity)
        if ruling.allowed:
            self.interceptor.let_through(held.run_id, held.call_id, held.name, held.arguments)
            return ApprovalResolution(ApprovalOutcome.APPROVE, identity, Verdict.allow())
        return ApprovalResolution(ApprovalOutcome.REJECT, identity, _deny(ruling, (), message=ruling.message))


def _where(held: HeldCall) -> dict[str, Any]:
    """The keyword arguments naming ``held``'s call for the gate."""
    return {"call_id": held.call_id, "run_id": held.run_id, "agent": held.agent}


def guarded_emitter(
    interceptor: ToolvetInterceptor,
    *,
    before: Sequence[Any] = (),
    others: Any = None,
    ask: Optional[Callable[[ApprovalRequest, dict[str, Any]], Any]] = None,
    reviewer: Optional[str] = None,
    wait: float = 0.0,
    poll: float = 0.25,
    **emitter_options: Any,
) -> InterceptionEmitter:
    """An ``InterceptionEmitter`` set up so that no call runs past toolvet.

    The contract lets a host compose interceptors so that a call toolvet denies or
    holds still runs: a resolver that lifts another interceptor's hold ends a
    ``sequential/first_deny`` fold with ``on_approval: stop`` before toolvet is
    asked; under ``sequential/run_all`` or a parallel profile, another hold's
    lifting, or a synthesized one, lifts toolvet's deny too; a transform folded in
    after toolvet's look runs arguments it never saw. This emitter is
    ``sequential/first_deny`` with ``on_approval: resume`` (a lifted hold resumes
    the fold, so toolvet is still asked), registers the host's interceptors
    ``before`` first and ``interceptor`` last (named ``toolvet``; nothing folds in
    after it), and resolves holds with :class:`ToolvetApprovalResolver` (``ask``,
    ``reviewer``, ``wait``, ``poll``), which hands holds that are not toolvet's to
    ``others``. ``emitter_options`` go to ``InterceptionEmitter`` (``mode``,
    ``timeout``, ``identity_provider``); ``composition`` and ``resolver`` are this
    function's and may not be given. With ``wait``, the emitter's ``timeout``
    (which also bounds the resolver) is ``wait`` plus 5 s unless given, and a
    ``timeout`` given must exceed ``wait`` (``ValueError``): otherwise every wait
    would end in the SDK's ``approval_resolver_failed``. Register nothing on it
    afterwards."""
    for fixed in ("composition", "resolver"):
        if fixed in emitter_options:
            raise TypeError(f"guarded_emitter sets {fixed} itself")
    if wait > 0:
        timeout = emitter_options.setdefault("timeout", wait + 5.0)
        if timeout is not None and timeout <= wait:
            raise ValueError(f"guarded_emitter: timeout {timeout} s must exceed wait {wait} s")
    resolver = ToolvetApprovalResolver(interceptor, ask=ask, reviewer=reviewer, wait=wait, poll=poll, others=others)
    emitter = InterceptionEmitter(
        resolver=resolver, composition=CompositionConfig.first_deny(OnApproval.RESUME), **emitter_options
    )
    for other in before:
        emitter.register(other)
    return emitter.register(interceptor, name="toolvet")
