"""aisuite: ``ToolPolicy(host)``, for ``tool_policy=`` of ``client.chat.completions.create``
and ``aisuite.agents.Runner.run``.

``evaluate(ToolPolicyContext) -> ToolPolicyDecision`` vets each call with what aisuite
knows: the tool's metadata (``requires_approval``, ``risk_level``, ``capabilities`` as
tags, ``description``), the agent (``agent_name``), the run (see below; ``group_id``, ``tags`` and
string ``metadata`` as attributes) and the run's
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

Runs: a run id comes only from an identifier unique to one conversation, never from
a label. The run of a call is its ``trace_id`` (``aisuite-trace:<id>``: ``Runner.run``
makes a fresh one for every run), else, when there is none (tracing disabled,
``client.chat.completions.create`` without one), the policy's own run id
(``aisuite-policy:<random>``, made with it: build one ``ToolPolicy`` per
conversation), never one run for the whole process. ``run_name`` is a tracing label
(the same for every conversation of a bot, ``"run-1"`` in examples) and never names
the run: a person's approval of conversation A's call is not spent by conversation
B's identical call (review s23 F5). The run binds approvals and keys the history
(loop detection, run limits).

Results are not vetted: aisuite's tool policy is asked before a call only, and
aisuite offers no place after a tool runs and before the model reads its result (a
gap: with a policy whose checks vet results, vet them in your tools or serve the tools
through ``toolvet mcp``).

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
        #: The run of calls whose context names no ``trace_id`` (see the module docs).
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

    def run_of(self, context: Any) -> str:
        """The run of a call: its ``trace_id`` (unique per run, made by aisuite's
        ``Runner``), else this policy's own run; never ``run_name``, a label."""
        trace = getattr(context, "trace_id", None)
        if isinstance(trace, str) and trace:
            return f"aisuite-trace:{trace}"
        return self.own_run_id

    def _rule(self, context: Any) -> Ruling:
        name = context.tool_name
        args = context.arguments
        run_id = self.run_of(context)
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
