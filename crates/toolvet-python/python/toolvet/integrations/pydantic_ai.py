"""PydanticAI: ``guard(toolset, host)`` and decision tools (``as_tool``, ``as_toolset``).

``guard(toolset, gate)`` wraps a toolset so toolvet vets every call:

- deny: ``ToolFailed("Blocked by policy: <reason>")``, which the model reads;
- escalate: ``ApprovalRequired(metadata={"reason", "rule", "approval_id"})``, so the run
  ends with ``DeferredToolRequests`` (put it in the agent's ``output_type``) whose
  ``metadata[tool_call_id]`` holds the reason;
- resume: ``agent.run(message_history=result.all_messages(), deferred_tool_results=...)``.
  Build the results with ``results(requests, gate, {call_id: True | "why not"})``: a
  rejection is recorded in toolvet's ledger and comes back as ``ToolDenied`` with the
  reviewer's message; an approval re-enters the toolset with ``ctx.tool_call_approved``,
  where it is recorded (unless the ledger already holds a decision, which stands) and
  the call is vetted again with its ticket, which uses the approval: the tool runs
  once, and sending the same results again is refused (``approval.replayed``).
  ``requests.build_results(approvals={id: True})`` works too. A rejection never runs
  the tool and never spends an approval given in toolvet meanwhile.

Results: with a policy whose checks vet results (``host.vets_results()``), what the
tool returned is vetted before the model reads it: pass returns it unchanged, redact
returns the masked text or JSON value, withhold raises ``ToolFailed("The tool's result
was withheld by toolvet: <reason>")``, which the model reads instead. A label the
result raises is kept by the host for the call's run (see below), and the run's later
calls are vetted with it.

PydanticAI gives each ``agent.run`` a new ``run_id``, and a resume is a new
``agent.run``, so the framework names no run that survives a pause: by default calls
carry no run id, approvals are bound to the call id alone (the ledger refuses a run-less
call id used again for another call) and calls share the gate's run-less history; pass
``run_id=lambda ctx: ctx.deps.conversation_id`` to bind them to a conversation that
outlives the runs.

What a guard does not vet: only the calls of the toolset it wraps. Functions registered
on the agent itself (``@agent.tool``, ``@agent.tool_plain``, ``Agent(tools=[...])``) live
in the agent's own function toolset, which no guard wraps: put them in a
``FunctionToolset`` and pass ``toolsets=[guard(toolset, host)]`` instead. An MCP server
is a toolset (``pydantic_ai.mcp.MCPToolset``): guard it, or its tools run unvetted; so
is any toolset a capability adds. Tools the provider runs (native tools such as web
search or code execution) are never vetted.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Callable, Optional, Union

from pydantic_ai import ApprovalRequired, DeferredToolRequests, DeferredToolResults, ModelRetry, ToolDenied
from pydantic_ai.exceptions import ToolFailed
from pydantic_ai.tools import Tool
from pydantic_ai.toolsets import AbstractToolset, FunctionToolset, WrapperToolset

from ._base import DECISION_TOOL_DESCRIPTION, DECISION_TOOL_NAME, DecisionInputError, Gate, as_gate, decision_answer

RunId = Callable[[Any], Optional[str]]


@dataclasses.dataclass
class PolicyToolset(WrapperToolset):
    """A toolset whose calls toolvet vets (see the module docs)."""

    gate: Optional[Gate] = None
    run_id: Optional[RunId] = None

    def _run(self, ctx: Any) -> Optional[str]:
        try:
            return self.run_id(ctx) if self.run_id else None
        except Exception:  # noqa: BLE001 - an unknown run is no run id
            return None

    async def call_tool(self, name: str, tool_args: dict[str, Any], ctx: Any, tool: Any) -> Any:
        gate = self.gate
        if gate is None:
            raise ToolFailed("Blocked by policy: the toolset has no policy gate")
        call_id = ctx.tool_call_id or ""
        if ctx.tool_call_approved:
            meta = ctx.tool_call_metadata if isinstance(ctx.tool_call_metadata, dict) else {}
            ruling = gate.resume(
                name, tool_args, approved=True, call_id=call_id, run_id=self._run(ctx), reviewer=meta.get("reviewer")
            )
        else:
            ruling = gate.check(name, tool_args, call_id=call_id, run_id=self._run(ctx))
        if ruling.allowed:
            output = await super().call_tool(name, tool_args, ctx, tool)
            if not gate.vets_results():
                return output
            vetted = gate.check_result(name, tool_args, output, call_id=call_id, run_id=self._run(ctx))
            if vetted.withheld:
                raise ToolFailed(vetted.message)
            return vetted.content
        if ruling.escalated:
            raise ApprovalRequired(metadata=ruling.payload())
        raise ToolFailed(ruling.message)


def guard(toolset: AbstractToolset, host: Any, *, run_id: Optional[RunId] = None, **gate_options: Any) -> PolicyToolset:
    """``toolset`` vetted by ``host`` (a Host or a shared Gate)."""
    return PolicyToolset(wrapped=toolset, gate=as_gate(host, **gate_options), run_id=run_id)


Answer = Union[bool, str]


def results(
    requests: DeferredToolRequests,
    gate: Gate,
    decisions: Mapping[str, Answer],
    *,
    reviewer: Optional[str] = None,
    run_id: Optional[str] = None,
) -> DeferredToolResults:
    """``DeferredToolResults`` for a person's ``decisions``: ``{tool_call_id: True}``
    approves; ``False`` or a message rejects (recorded in toolvet's ledger; the model
    reads the reviewer's message)."""
    calls = {c.tool_call_id: c for c in requests.approvals}
    approvals: dict[str, Any] = {}
    metadata: dict[str, dict[str, Any]] = {}
    for call_id, answer in decisions.items():
        if call_id not in calls:
            raise ValueError(f"no approval request for tool call {call_id!r}")
        if answer is True:
            approvals[call_id] = True
            if reviewer:
                metadata[call_id] = {"reviewer": reviewer}
            continue
        call = calls[call_id]
        ruling = gate.resume(
            call.tool_name,
            call.args_as_dict(),
            approved=False,
            call_id=call_id,
            run_id=run_id,
            reviewer=reviewer,
            message=answer if isinstance(answer, str) else None,
        )
        approvals[call_id] = ToolDenied(ruling.message)
    return DeferredToolResults(approvals=approvals, metadata=metadata)


def as_tool(host: Any, *, name: str = DECISION_TOOL_NAME, **gate_options: Any) -> Tool:
    """A decision tool: the model asks whether a proposed call would be allowed and
    gets ``{"status", "answer"}``; invalid arguments are a retry message to the model."""
    gate = as_gate(host, **gate_options)

    def toolvet_check(tool: str, arguments: dict[str, Any]) -> dict[str, str]:
        try:
            return decision_answer(gate, tool, arguments)
        except DecisionInputError as e:
            raise ModelRetry(str(e)) from None

    return Tool(toolvet_check, name=name, description=DECISION_TOOL_DESCRIPTION, takes_ctx=False)


def as_toolset(host: Any, **options: Any) -> FunctionToolset:
    """The decision tool as a toolset."""
    return FunctionToolset([as_tool(host, **options)])


__all__ = ["PolicyToolset", "as_tool", "as_toolset", "guard", "results"]
