"""aisuite: ``ToolPolicy(host)``, for ``tool_policy=`` of ``client.chat.completions.create``
and ``aisuite.agents.Runner.run``.

``evaluate(ToolPolicyContext) -> ToolPolicyDecision`` vets each call with what aisuite
knows: the tool's metadata (``requires_approval``, ``risk_level``, ``capabilities`` as
tags, ``description``), the agent and run (``agent_name``; ``run_name`` or ``trace_id`` as
the run id; ``group_id``, ``tags`` and string ``metadata`` as attributes) and the run's
earlier tool calls from ``messages`` (as the call's history, each with what happened to
it). aisuite reports the decision in ``response.tool_policy_events`` and its
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

import json
from typing import Any, Optional

from aisuite.agents import ToolPolicyDecision

from ._base import Gate, Ruling, as_gate

_DENIED_BY_POLICY = "Tool call denied by policy"


class ToolPolicy:
    """An aisuite tool policy backed by a toolvet host (see the module docs)."""

    def __init__(self, host: Any, **gate_options: Any) -> None:
        self.gate: Gate = as_gate(host, **gate_options)

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
        run_id = context.run_name or context.trace_id
        agent = context.agent_name or None
        tool = _tool_info(getattr(context, "tool_metadata", None))
        history = _history(getattr(context, "messages", None) or [])
        ruling = self.gate.check_held(name, args, run_id=run_id, agent=agent, tool=tool, history=history)
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


def _field(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)


def _history(messages: list[Any]) -> list[dict[str, Any]]:
    """The run's earlier tool calls, oldest first, with what happened to each."""
    results = {}
    for m in messages:
        if _field(m, "role") == "tool":
            results[_field(m, "tool_call_id")] = _field(m, "content")
    history = []
    for m in messages:
        for call in _field(m, "tool_calls") or []:
            function = _field(call, "function")
            name = _field(function, "name")
            try:
                arguments = json.loads(_field(function, "arguments") or "{}")
            except (TypeError, ValueError):
                continue
            if not name or not isinstance(arguments, dict):
                continue
            result = results.get(_field(call, "id"))
            if result is None:
                continue  # not answered yet: the call being vetted, or a sibling
            denied = isinstance(result, str) and _DENIED_BY_POLICY in result
            history.append({"name": name, "arguments": arguments, "outcome": "denied" if denied else "allowed"})
    return history


__all__ = ["ToolPolicy"]
