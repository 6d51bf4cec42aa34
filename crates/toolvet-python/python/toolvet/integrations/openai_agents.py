"""OpenAI Agents SDK: ``guard(tool, host)`` and a decision tool.

``guard(tool, gate)`` returns a copy of a ``FunctionTool`` that toolvet vets:

- deny: a tool input guardrail rejects the call with ``Blocked by policy: <reason>``,
  which the model reads; ``needs_approval`` says no, so no person is asked about a
  call the policy forbids;
- escalate: ``needs_approval`` says yes and the run pauses with an interruption
  (``result.interruptions``, ``result.to_state()``);
- resume: ``approve(state, item, gate)`` / ``reject(state, item, gate, message=...)``
  record the person's answer in toolvet's ledger and in the ``RunState``; then
  ``Runner.run(agent, state)``. A plain ``state.approve(item)`` works too: the
  guardrail that runs again before the tool executes sees the SDK's approval,
  records it (unless the ledger already holds a decision, which stands) and vets
  the call with its ticket, which uses the approval: the tool runs once, and a
  state resumed a second time is refused (``approval.replayed``).
- reject: ``reject(...)`` gives the model the reviewer's message; a plain
  ``state.reject(item)`` gives it the SDK's rejection text. Either way the tool
  does not run and an approval given in toolvet meanwhile is not spent: the call
  runs only when both the SDK's approval and toolvet's say yes.

A call toolvet holds runs only after the SDK paused it in ``needs_approval``: a held call
the SDK is about to run without having paused it (the policy answered otherwise a moment
before) is denied (``toolvet.approval-not-asked``), never run.

The SDK turns an exception in ``needs_approval`` into "needs approval"; the gate never
raises (a host failure is a deny the guardrail reports). Use
``RunConfig(tool_execution=ToolExecutionConfig(pre_approval_tool_input_guardrails=True))``
(``run_config()``) so the deny check also runs before the SDK asks for approval.

The copy has a plain ``on_invoke_tool`` that delegates to the original: for tools made
with ``@function_tool`` the SDK otherwise forces manual approval whenever the prepared
arguments differ from the raw ones. It is also where results are vetted: with a policy
whose checks vet results (``host.vets_results()``), what the original returned is
vetted before the SDK hands it to the model (and before the tool's own output
guardrails): pass returns it unchanged, redact returns the masked text or JSON value,
withhold returns the text ``The tool's result was withheld by toolvet: <reason>``
instead. A label the result raises is kept by the host for the call's run (the
``run_id`` the guard names; calls without one share the run-less run), and the run's
later calls are vetted with it.

What a guard does not vet: it is attached to one ``FunctionTool``, so nothing else an
agent can run passes through it: tools of ``Agent(mcp_servers=[...])`` (the SDK lists
them at run time; put the server behind ``toolvet mcp``, or list its tools yourself and
``guard`` each), ``ShellTool``, ``LocalShellTool``, ``ApplyPatchTool`` and
``ComputerTool`` (run locally by the SDK through their own executors), hosted tools
(``WebSearchTool``, ``FileSearchTool``, ``CodeInterpreterTool``, ``HostedMCPTool``, ...,
run by the provider), a handoff (the handoff itself is not a vetted call, and the agent
it hands off to needs guarded tools of its own) and the tools inside an ``Agent.as_tool``
sub-agent (guarding the ``as_tool`` function tool vets only the text the model hands the
sub-agent; the sub-agent needs guarded tools of its own). :func:`unvetted` lists what an
agent can run unvetted, recursively through every agent it can reach: the agents it
hands off to *and* the agents it runs as tools (``as_tool``, guarded or not; review s23
F4); call it at setup, or :func:`require_vetted` to refuse such an agent.

Runs: the SDK names no run that survives a pause (a ``RunState`` resumed, perhaps in
another process), so by default calls carry no run id: approvals are bound to the call
id (the ledger refuses a run-less call id used again for another call) and calls share
the gate's run-less history (loop detection and run limits count every run-less call
of the gate). Pass ``run_id=lambda ctx: ...`` naming your conversation to bind them to it.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any, Callable, Optional

from agents import (
    Agent,
    FunctionTool,
    RunConfig,
    ToolExecutionConfig,
    ToolGuardrailFunctionOutput,
    tool_input_guardrail,
)

from ._base import (
    DECISION_TOOL_DESCRIPTION,
    DECISION_TOOL_NAME,
    DECISION_TOOL_SCHEMA,
    DecisionInputError,
    Gate,
    Ruling,
    as_gate,
    decision_answer,
)

RunId = Callable[[Any], Optional[str]]

#: How many paused calls a guarded tool remembers (see ``guard``).
_PAUSED_SIZE = 4096


def run_config(**options: Any) -> RunConfig:
    """A ``RunConfig`` that runs the deny check before any approval prompt."""
    return RunConfig(tool_execution=ToolExecutionConfig(pre_approval_tool_input_guardrails=True), **options)


def guard(tool: FunctionTool, host: Any, *, run_id: Optional[RunId] = None, **gate_options: Any) -> FunctionTool:
    """A copy of ``tool`` vetted by ``host`` (a Host or a shared Gate).

    ``run_id(run_context)`` may name the run the call belongs to (the approval is
    bound to it); without it calls are bound by their call id alone.
    """
    gate = as_gate(host, **gate_options)
    name = tool.name

    def run_of(ctx: Any) -> Optional[str]:
        try:
            return run_id(ctx) if run_id else None
        except Exception:  # noqa: BLE001 - an unknown run is no run id
            return None

    # The calls whose `needs_approval` said "pause" (bounded, oldest dropped:
    # a call dropped meanwhile is denied, never allowed).
    paused: OrderedDict[tuple[Optional[str], str], None] = OrderedDict()
    paused_lock = threading.Lock()

    async def needs_approval(ctx: Any, params: dict[str, Any], call_id: str) -> bool:
        run = run_of(ctx)
        held = gate.probe(name, params, call_id=call_id, run_id=run).escalated
        if held:
            with paused_lock:
                paused[(run, call_id)] = None
                while len(paused) > _PAUSED_SIZE:
                    paused.popitem(last=False)
        return held

    @tool_input_guardrail(name="toolvet")
    def policy(data: Any) -> ToolGuardrailFunctionOutput:
        ctx = data.context
        call_id = ctx.tool_call_id
        args = ctx.tool_arguments or "{}"
        run = run_of(ctx)
        if _approved(ctx, name, call_id):
            ruling = gate.resume(name, args, approved=True, call_id=call_id, run_id=run)
        else:
            ruling = gate.check(name, args, call_id=call_id, run_id=run)
            with paused_lock:
                asked = (run, call_id) in paused
            if ruling.escalated and not asked:
                # Held, but `needs_approval` did not pause it (the policy changed
                # between the two asks): the SDK is about to run it unapproved.
                ruling = Ruling(
                    "deny",
                    f"{ruling.reason.rstrip('.')}. A person must approve this call first (approval request "
                    f"{ruling.approval_id}), and the run did not pause for one",
                    "toolvet.approval-not-asked",
                    ruling.verdict,
                    ruling.approval_id,
                )
        if ruling.denied:
            return ToolGuardrailFunctionOutput.reject_content(ruling.message, output_info=ruling.payload())
        # allow, or escalate before the approval prompt (the SDK pauses next).
        return ToolGuardrailFunctionOutput.allow()

    async def invoke(ctx: Any, args: str) -> Any:
        output = await tool.on_invoke_tool(ctx, args)
        call_id = getattr(ctx, "tool_call_id", "") or ""
        return gate.check_result(name, args or "{}", output, call_id=call_id, run_id=run_of(ctx)).output

    guarded = FunctionTool(
        name=name,
        description=tool.description,
        params_json_schema=tool.params_json_schema,
        on_invoke_tool=invoke,
        strict_json_schema=tool.strict_json_schema,
        is_enabled=tool.is_enabled,
        needs_approval=needs_approval,
        tool_input_guardrails=[policy, *(tool.tool_input_guardrails or [])],
        tool_output_guardrails=tool.tool_output_guardrails,
        timeout_seconds=tool.timeout_seconds,
    )
    sub_agent = _sub_agent(tool)
    if sub_agent is not None:
        # The copy keeps the sub-agent reachable for `unvetted` (the SDK's own
        # marker stays on the original only, so the SDK runs the copy as before).
        guarded._toolvet_sub_agent = sub_agent  # type: ignore[attr-defined]
    return guarded


def _sub_agent(tool: Any) -> Optional[Agent]:
    """The agent ``tool`` runs when it is an agent exposed as a tool
    (``Agent.as_tool``, or a :func:`guard` copy of one), else None."""
    agent = getattr(tool, "_toolvet_sub_agent", None)
    if agent is None and getattr(tool, "_is_agent_tool", False):
        agent = getattr(tool, "_agent_instance", None)
    return agent if isinstance(agent, Agent) else None


def _approved(ctx: Any, name: str, call_id: str) -> bool:
    try:
        return ctx.is_tool_approved(name, call_id) is True
    except Exception:  # noqa: BLE001 - unknown: not approved
        return False


def approve(
    state: Any,
    item: Any,
    gate: Gate,
    *,
    reviewer: Optional[str] = None,
    message: Optional[str] = None,
    run_id: Optional[str] = None,
) -> Ruling:
    """Approve the interruption ``item`` in toolvet's ledger and in ``state``.

    The approval is recorded, not used: the tool runs, once, when the run resumes
    (``Runner.run(agent, state)``) and the guardrail resumes the call with its
    ticket. Returns the call's ruling: an escalate whose request now holds the
    approval, or a deny (the ledger held a rejection, the call is no longer held,
    the answer could not be recorded), in which case the call is rejected in
    ``state`` with that reason. ``run_id`` is the run the guard's ``run_id``
    names for this call, if it names one.
    """
    ruling = gate.record(
        item.name,
        item.arguments or "{}",
        approved=True,
        call_id=item.call_id,
        run_id=run_id,
        reviewer=reviewer,
        message=message,
    )
    if ruling.escalated:
        state.approve(item)
    else:
        state.reject(item, rejection_message=ruling.message)
    return ruling


def reject(
    state: Any,
    item: Any,
    gate: Gate,
    *,
    reviewer: Optional[str] = None,
    message: Optional[str] = None,
    run_id: Optional[str] = None,
) -> Ruling:
    """Reject the interruption ``item``: the tool does not run, and the model reads
    ``Blocked by policy: <reviewer> rejected this call: <message>``. The rejection is
    recorded in toolvet's ledger while the request waits; an approval a reviewer gave
    in toolvet meanwhile is not spent."""
    ruling = gate.reject(
        item.name, item.arguments or "{}", call_id=item.call_id, run_id=run_id, reviewer=reviewer, message=message
    )
    state.reject(item, rejection_message=ruling.message)
    return ruling


def as_function_tool(host: Any, *, name: str = DECISION_TOOL_NAME, **gate_options: Any) -> FunctionTool:
    """A decision tool: the model asks whether a proposed call would be allowed and
    gets ``{"status", "answer"}`` (invalid arguments come back as ``{"error": ...}``)."""
    gate = as_gate(host, **gate_options)

    async def invoke(ctx: Any, args: str) -> str:
        try:
            proposal = json.loads(args or "{}")
            if not isinstance(proposal, dict):
                raise DecisionInputError("the arguments must be an object with `tool` and `arguments`")
            return json.dumps(decision_answer(gate, proposal.get("tool"), proposal.get("arguments")))
        except (ValueError, DecisionInputError) as e:
            return json.dumps({"error": str(e)})

    return FunctionTool(
        name=name,
        description=DECISION_TOOL_DESCRIPTION,
        params_json_schema=DECISION_TOOL_SCHEMA,
        on_invoke_tool=invoke,
        strict_json_schema=False,
    )


def _is_guarded(tool: Any) -> bool:
    """Whether ``tool`` is a copy :func:`guard` made (it carries the ``toolvet`` guardrail)."""
    return any(getattr(g, "name", None) == "toolvet" for g in (getattr(tool, "tool_input_guardrails", None) or []))


def unvetted(agent: Any) -> list[str]:
    """What ``agent`` can run that no guard vets, one line each (empty: every tool
    of every agent it can reach is a guarded function tool): MCP servers,
    function tools not made by :func:`guard`, tools of other kinds (shell, patch,
    computer and hosted tools), and handoffs given as ``Handoff`` objects (whose
    agent toolvet cannot see). The walk is recursive through every agent ``agent``
    can reach: the agents it hands off to and the agents it runs as tools
    (``Agent.as_tool``, guarded or not: a guard vets only the text handed to the
    sub-agent, never the tools it then calls). See the module docs."""
    found: list[str] = []
    seen: set[int] = set()

    def walk(current: Any, where: str) -> None:
        if id(current) in seen:
            return
        seen.add(id(current))
        for server in getattr(current, "mcp_servers", None) or []:
            found.append(
                f"{where}: MCP server {getattr(server, 'name', type(server).__name__)!r} in mcp_servers "
                "(its tools are listed at run time and pass no guard)"
            )
        for tool in getattr(current, "tools", None) or []:
            if isinstance(tool, FunctionTool):
                if not _is_guarded(tool):
                    found.append(f"{where}: function tool {tool.name!r} is not guarded")
                sub = _sub_agent(tool)
                if sub is not None:
                    walk(sub, f"{where} -> {tool.name} (agent {sub.name!r} as a tool)")
            else:
                found.append(
                    f"{where}: {type(tool).__name__} {getattr(tool, 'name', '')!r} "
                    "(run by the SDK or the provider, not through a guarded function tool)"
                )
        for target in getattr(current, "handoffs", None) or []:
            if isinstance(target, Agent):
                walk(target, f"{where} -> {target.name}")
            else:
                found.append(
                    f"{where}: handoff {getattr(target, 'tool_name', type(target).__name__)!r} "
                    "(a Handoff object: toolvet cannot see its agent's tools)"
                )

    walk(agent, str(getattr(agent, "name", "agent")))
    return found


def require_vetted(agent: Any) -> Any:
    """``agent`` itself, or ``TypeError`` listing what it can run unvetted (:func:`unvetted`)."""
    found = unvetted(agent)
    if found:
        raise TypeError("this agent can run tools toolvet does not vet:\n- " + "\n- ".join(found))
    return agent


__all__ = ["approve", "as_function_tool", "guard", "reject", "require_vetted", "run_config", "unvetted"]
