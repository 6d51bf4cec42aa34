"""smolagents: ``guard(tool, host)`` and a decision tool (``as_smolagents_tool``).

smolagents has no pre-call hook (``step_callbacks`` run after a step) and ``CodeAgent``
calls tools from generated Python, so the only reliable gate is the tool object itself:
``guard(tool, host)`` wraps a ``Tool`` so that every call, from ``ToolCallingAgent`` or
from ``CodeAgent``'s code, is vetted first.

- deny: the wrapped tool raises, and smolagents feeds the error, ``Blocked by policy:
  <reason>``, back to the model (in ``CodeAgent`` this also stops the rest of that
  snippet; in ``ToolCallingAgent`` allowed sibling calls of the same step still run,
  but the step reports the error rather than their results);
- escalate: smolagents cannot pause, so the call is denied with the approval request's
  id; once a person approves it (``toolvet approvals approve``, ``host.approvals``) the
  same call made again runs, once; a rejection gives the model the reviewer's message.

Any failure of the host is a deny.
"""

from __future__ import annotations

from typing import Any, Optional

from smolagents import Tool

from ._base import DECISION_TOOL_DESCRIPTION, DECISION_TOOL_NAME, DecisionInputError, Gate, Ruling, as_gate, decision_answer


class PolicyDenied(Exception):
    """A call the policy did not allow; its message is what the model reads."""


class GuardedTool(Tool):
    """A tool that toolvet vets before the wrapped tool runs."""

    skip_forward_signature_validation = True

    def __init__(self, tool: Tool, gate: Gate, run_id: Optional[str] = None) -> None:
        self.name = tool.name
        self.description = tool.description
        self.inputs = tool.inputs
        self.output_type = tool.output_type
        if getattr(tool, "output_schema", None) is not None:
            self.output_schema = tool.output_schema
        self.wrapped = tool
        self.gate = gate
        self.run_id = run_id
        super().__init__()

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        if args:
            kwargs = {**dict(zip(self.inputs, args)), **kwargs}
        ruling = self.gate.check_held(self.name, kwargs, run_id=self.run_id)
        if ruling.allowed:
            return self.wrapped(**kwargs, sanitize_inputs_outputs=False)
        raise PolicyDenied(_message(ruling))


def _message(ruling: Ruling) -> str:
    if ruling.escalated:
        return (
            f"{ruling.message.rstrip('.')}. A person must approve this call first (approval request "
            f"{ruling.approval_id}); it can run once it is approved"
        )
    return ruling.message


def guard(tool: Tool, host: Any, *, run_id: Optional[str] = None, **gate_options: Any) -> GuardedTool:
    """``tool`` vetted by ``host`` (a Host or a shared Gate); ``run_id`` binds approvals to a run."""
    return GuardedTool(tool, as_gate(host, **gate_options), run_id)


class DecisionTool(Tool):
    """The decision tool: ``{"status": "allow"|"deny"|"escalate", "answer": reason}``."""

    name = DECISION_TOOL_NAME
    description = DECISION_TOOL_DESCRIPTION
    inputs = {
        "tool": {"type": "string", "description": "The name of the tool you want to call."},
        "arguments": {"type": "object", "description": "The arguments you would call it with.", "nullable": True},
    }
    output_type = "object"
    output_schema = {
        "type": "object",
        "properties": {
            "status": {"type": "string", "enum": ["allow", "deny", "escalate"]},
            "answer": {"type": "string"},
        },
        "required": ["status", "answer"],
    }

    def __init__(self, gate: Gate, name: str = DECISION_TOOL_NAME) -> None:
        self.name = name
        self.gate = gate
        super().__init__()

    def forward(self, tool: str, arguments: Optional[dict] = None) -> dict:
        try:
            return decision_answer(self.gate, tool, arguments or {})
        except DecisionInputError as e:
            raise ValueError(str(e)) from None  # smolagents hands the error to the model


def as_smolagents_tool(host: Any, *, name: str = DECISION_TOOL_NAME, **gate_options: Any) -> DecisionTool:
    """A decision tool for smolagents agents."""
    return DecisionTool(as_gate(host, **gate_options), name)


__all__ = ["DecisionTool", "GuardedTool", "PolicyDenied", "as_smolagents_tool", "guard"]
