"""Google ADK: ``tool_call_callback(host)`` (``before_tool_callback``),
``result_callback(gate)`` (``after_tool_callback``), ``PolicyPlugin`` (app-wide, both)
and a decision tool (``as_adk_tool``).

- deny: the callback returns ``{"error": "Blocked by policy: <reason>"}`` instead of
  running the tool, and the model reads it;
- escalate: ``tool_context.request_confirmation(hint=<reason>, payload={...})``; the turn
  ends at once (``skip_summarization``, as ADK's own confirmation gate does) with an
  ``adk_request_confirmation`` function call for the client;
- resume: the client answers with ``FunctionResponse(name="adk_request_confirmation",
  id=<its id>, response={"confirmed": True|False, "payload": {"reviewer": ..., "message":
  ...}})``. ADK re-runs the callback with ``tool_context.tool_confirmation`` set; the
  answer is recorded in toolvet's ledger (unless it already holds a decision, which
  stands) and the call is vetted again with its ticket, which uses the approval: the
  tool runs once. A rejection (``confirmed`` false) never runs the tool and never
  spends an approval given in toolvet meanwhile; the model reads the reviewer's
  message.

Results: with a policy whose checks vet results (``host.vets_results()``),
``result_callback`` and ``PolicyPlugin.after_tool_callback`` vet each tool's response
before the model reads it: pass leaves it unchanged; redact answers with the masked
response; withhold answers ``{"error": "The tool's result was withheld by toolvet:
<reason>"}``. A response ADK made of a tool's text answer (``{"result": "<text>"}``) is
vetted as that text (masked, it stays in that shape). A label the result raises is kept by the host for the session (the run)
and agent, and the session's later calls are vetted with it. ADK runs the after-tool
callbacks also for a response a before-tool callback gave (a deny): it is vetted
like any other. Plugin callbacks answer first: a plugin's after-tool answer skips the
agent's own ``after_tool_callback``.

What it does not vet: ``tool_call_callback`` is one agent's ``before_tool_callback``, so
the tools of its sub-agents and of ``AgentTool`` agents are vetted only with callbacks of
their own; ``PolicyPlugin`` on the ``Runner`` covers every agent it runs. Tools the
model's provider runs (``google_search``, built-in code execution) and code run by a
code executor are not tool calls ADK hands the callback, and are never vetted.

Approvals are bound to the session id (the run) and ADK's function call id. ADK's
confirmation flow is experimental and, per its docs, not supported with
``DatabaseSessionService`` or ``VertexAiSessionService``.
"""

from __future__ import annotations

from typing import Any, Optional

from google.adk.plugins.base_plugin import BasePlugin
from google.adk.tools import FunctionTool

from ._base import DECISION_TOOL_NAME, DecisionInputError, Gate, Ruling, as_gate, decision_answer


def _run_id(tool_context: Any) -> Optional[str]:
    try:
        return str(tool_context.session.id)
    except Exception:  # noqa: BLE001 - no session: no run id
        return None


def _decide(gate: Gate, tool: Any, args: dict[str, Any], tool_context: Any) -> Optional[dict[str, Any]]:
    """None to run the tool, else the response the model gets instead."""
    name = getattr(tool, "name", str(tool))
    call_id = tool_context.function_call_id or ""
    run_id = _run_id(tool_context)
    agent = getattr(tool_context, "agent_name", None)
    confirmation = tool_context.tool_confirmation
    if confirmation is not None:
        payload = confirmation.payload if isinstance(confirmation.payload, dict) else {}
        ruling: Ruling = gate.resume(
            name,
            args,
            approved=confirmation.confirmed is True,
            call_id=call_id,
            run_id=run_id,
            agent=agent,
            reviewer=_text(payload.get("reviewer")),
            message=_text(payload.get("message")),
        )
    else:
        ruling = gate.check(name, args, call_id=call_id, run_id=run_id, agent=agent)
    if ruling.allowed:
        return None
    if ruling.escalated:
        # The hint is what the person reads: `visible`, like the payload.
        tool_context.request_confirmation(hint=ruling.shown_reason, payload=ruling.payload())
        tool_context.actions.skip_summarization = True
        return {"error": f"Awaiting a person's approval: {ruling.reason}"}
    return {"error": ruling.message}


def _text(value: Any) -> Optional[str]:
    return value if isinstance(value, str) and value.strip() else None


def _vet_result(gate: Gate, tool: Any, args: dict[str, Any], tool_context: Any, response: Any) -> Optional[dict]:
    """None to hand the model the tool's ``response`` unchanged, else the response
    it gets instead: the masked one, or ``{"error": <withheld message>}``."""
    if not gate.vets_results():
        return None
    # ADK hands the model a tool's plain return value as `{"result": value}`:
    # a text answer is vetted as the text it is.
    wrapped = isinstance(response, dict) and list(response) == ["result"] and type(response["result"]) is str
    ruling = gate.check_result(
        getattr(tool, "name", str(tool)),
        args,
        response["result"] if wrapped else response,
        call_id=tool_context.function_call_id or "",
        run_id=_run_id(tool_context),
        agent=getattr(tool_context, "agent_name", None),
    )
    if ruling.passed:
        return None
    if ruling.redacted:
        masked = ruling.content
        return masked if isinstance(masked, dict) else {"result": masked}
    return {"error": ruling.message}


def result_callback(host: Any, **gate_options: Any) -> Any:
    """An ``after_tool_callback`` for ``LlmAgent`` that vets what every tool returned
    (see the module docs). Pass the gate of the agent's ``tool_call_callback``
    (``result_callback(before.gate)``) so both see the same run history."""
    gate = as_gate(host, **gate_options)

    def after_tool_callback(tool: Any, args: dict[str, Any], tool_context: Any, tool_response: Any) -> Optional[dict]:
        return _vet_result(gate, tool, args, tool_context, tool_response)

    after_tool_callback.gate = gate  # type: ignore[attr-defined]
    return after_tool_callback


def tool_call_callback(host: Any, **gate_options: Any) -> Any:
    """A ``before_tool_callback`` for ``LlmAgent`` that vets every tool call."""
    gate = as_gate(host, **gate_options)

    def before_tool_callback(tool: Any, args: dict[str, Any], tool_context: Any) -> Optional[dict[str, Any]]:
        return _decide(gate, tool, args, tool_context)

    before_tool_callback.gate = gate  # type: ignore[attr-defined]
    return before_tool_callback


class PolicyPlugin(BasePlugin):
    """The same check for every agent of an ``App`` (plugins run before agent callbacks)."""

    def __init__(self, host: Any, *, name: str = "toolvet", **gate_options: Any) -> None:
        super().__init__(name=name)
        self.gate = as_gate(host, **gate_options)

    async def before_tool_callback(self, *, tool: Any, tool_args: dict[str, Any], tool_context: Any) -> Optional[dict]:
        return _decide(self.gate, tool, tool_args, tool_context)

    async def after_tool_callback(
        self, *, tool: Any, tool_args: dict[str, Any], tool_context: Any, result: Any
    ) -> Optional[dict]:
        return _vet_result(self.gate, tool, tool_args, tool_context, result)


def as_adk_tool(host: Any, *, name: str = DECISION_TOOL_NAME, **gate_options: Any) -> FunctionTool:
    """A decision tool: the model asks whether a proposed call would be allowed and gets
    ``{"status", "answer"}`` (invalid arguments come back as ``{"error": ...}``)."""
    gate = as_gate(host, **gate_options)

    def toolvet_check(tool: str, arguments: dict) -> dict:
        """Ask the tool-call policy whether a proposed tool call would be allowed before making it.

        Args:
            tool: The name of the tool you want to call.
            arguments: The arguments you would call it with.

        Returns:
            status (allow, deny or escalate: a person must approve first) and answer (why).
        """
        try:
            return decision_answer(gate, tool, arguments)
        except DecisionInputError as e:
            return {"error": str(e)}

    toolvet_check.__name__ = name
    return FunctionTool(toolvet_check)


__all__ = ["PolicyPlugin", "as_adk_tool", "result_callback", "tool_call_callback"]
