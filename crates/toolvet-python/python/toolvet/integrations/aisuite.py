"""aisuite: ``ToolPolicy(host)``, for ``tool_policy=`` of ``client.chat.completions.create``
and ``aisuite.agents.Runner.run``.

``evaluate(ToolPolicyContext) -> ToolPolicyDecision`` vets each call with what aisuite
knows: the tool's metadata (``requires_approval``, ``risk_level``, ``capabilities`` as
tags, ``description``), the agent and run (``agent_name``; ``run_name`` or ``trace_id`` as
the run id, else, when aisuite names neither, the policy's own run id
``aisuite-policy:<random>``, made with it, never one run for the whole process;
``group_id``, ``tags`` and string ``metadata`` as attributes) and the run's
earlier tool calls as the gate ruled on them (:meth:`Gate.history`: what toolvet decided
about each, never what a tool's result text says, which the model and outside text
control). aisuite reports the decision in ``response.tool_policy_events`` and its
``tool.allowed`` / ``tool.denied`` trace events, with toolvet's rule, decision and
approval id in the metadata.

- deny: ``ToolPolicyDecision(allowed=False, reason="Blocked by policy: <reason>")``; the
  model gets ``{"error": "Tool call denied by policy", "reason": ...}``;
- escalate: aisuite cannot pause, so this is a deny whose reason names the approval
  request; once a person approves it (``toolvet approvals approve``,
  ``host.approvals``), the same call made again runs, once. A rejection gives the
  model the reviewer's message.

Any failure is a deny: ``evaluate`` never raises.
"""

from __future__ import annotations

from typing import Any, Optional

from aisuite.agents import ToolPolicyDecision

from ._base import Gate, Ruling, as_gate, fresh_run_id

class ToolPolicy:
    """An aisuite tool policy backed by a toolvet host (see the module docs)."""

    def __init__(self, host: Any, **gate_options: Any) -> None:
        self.gate: Gate = as_gate(host, **gate_options)
        #: The run of calls whose context names none (no ``run_name``, no ``trace_id``).
        self.own_run_id = fresh_run_id("aisuite-policy")

    def evaluate(self, context: Any) -> ToolPolicyDecision:
        try:
            ruling = self._rule(context)
        except Exception as e:  # noqa: BLE001 - a failure is a deny
            ruling = Ruling("deny", f"the tool-call policy failed ({type(e).__name__}: {e}), so the call may not run")
        # The policy's own decision: an escalate stays one here, though aisuite denies it.
        decision = ruling.verdict.decision if ruling.verdict is not None else ruling.decision
        metadata = {"toolvet": {"decision": decision, "rule": ruling.rule}}
        if ruling.approval_id:
            metadata["toolvet"]["approval_id"] = ruling.approval_id
        if ruling.allowed:
            return ToolPolicyDecision(allowed=True, reason=ruling.reason or None, metadata=metadata)
        return ToolPolicyDecision(allowed=False, reason=ruling.message, metadata=metadata)

    __call__ = evaluate

    def _rule(self, context: Any) -> Ruling:
        name = context.tool_name
        args = context.arguments
        run_id = context.run_name or context.trace_id or self.own_run_id
        agent = context.agent_name or None
        tool = _tool_info(getattr(context, "tool_metadata", None))
        # The run's history is the gate's own record of what it ruled on each
        # call (Gate.history), never what the conversation's tool results say.
        ruling = self.gate.check_held(name, args, run_id=run_id, agent=agent, tool=tool)
        if not ruling.escalated:
            return ruling
        return Ruling(
            "deny",
            f"{ruling.reason.rstrip('.')}. A person must approve this call first (approval request {ruling.approval_id}); "
            "it can run once it is approved",
            ruling.rule,
            ruling.verdict,
            ruling.approval_id,
        )


def _tool_info(meta: Any) -> Optional[dict[str, Any]]:
    if meta is None:
        return None
    info: dict[str, Any] = {
        "requires_approval": bool(getattr(meta, "requires_approval", False)),
        "tags": [str(c) for c in getattr(meta, "capabilities", None) or []],
    }
    if getattr(meta, "risk_level", None):
        info["risk"] = str(meta.risk_level)
    if getattr(meta, "description", None):
        info["description"] = str(meta.description)
    return info


__all__ = ["ToolPolicy"]
