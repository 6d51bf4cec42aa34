"""Microsoft Agent Framework: ``ToolCallCheckMiddleware`` (function middleware) and a
decision tool (``as_function_tool``).

- deny: the function does not run; ``context.result`` is ``Blocked by policy: <reason>``,
  which the model reads, and the loop goes on;
- escalate: the middleware sets ``context.result`` to a
  ``Content.from_function_approval_request(...)`` (its ``additional_properties`` hold
  the reason and approval id) and raises ``MiddlewareTermination``, so the run returns
  with ``response.user_input_requests``;
- resume: ``agent.run(reply(requests, gate, {call_id: True | "why not"}), session=s)``
  with the same session. Each answer is recorded in toolvet's ledger (unless it already
  holds a decision, which stands). On an approval the framework re-invokes the function
  through the middleware, which vets it again with its ticket (a rejection in the ledger
  still denies it, with that reviewer's message). Plain
  ``request.to_function_approval_response(True)`` answers work too.

Results: with a policy whose checks vet results (``host.vets_results()``), the
function's result (``context.result`` after it ran) is vetted before the model reads
it: pass leaves it unchanged, redact sets the masked text or JSON value, withhold sets
``The tool's result was withheld by toolvet: <reason>``. A label the result raises is
kept by the host for the session (the run), and the session's later calls are vetted
with it.

Where it cannot do what one would like: Agent Framework has no custom rejection text and
does not re-enter the middleware for a rejected call; it answers "Error: Tool call
invocation was rejected by user." itself. ``reply()`` records the rejection and adds the
reviewer's message to the same user message, so the model reads it; a plain
``to_function_approval_response(False)`` records nothing (the request expires).

Exceptions in function middleware become tool errors in this framework, so the
middleware never raises on a host failure: that is a deny.

What it does not vet: function middleware sees the functions the agent invokes in this
process; hosted tools (``HostedCodeInterpreterTool``, ``HostedWebSearchTool``,
``HostedMCPTool``, ...) run at the provider and are never vetted, and an agent without
the middleware (another agent of a workflow) is not vetted. Runs: the session id is the
run; a run without a session carries no run id (approvals bound to the call id, calls
sharing the gate's run-less history), so pass a session.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Optional, Union

from agent_framework import (
    Content,
    FunctionInvocationContext,
    FunctionMiddleware,
    FunctionTool,
    Message,
    MiddlewareTermination,
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

def _arguments(arguments: Any) -> Any:
    if hasattr(arguments, "model_dump"):
        return arguments.model_dump(mode="json")
    return dict(arguments) if isinstance(arguments, Mapping) else arguments


def _readable(result: Any) -> Any:
    """A function's result (``context.result``) as the model reads it, for vetting:
    the framework wraps a function's return value in ``Content`` items; text items
    are their text (joined), others their dicts."""
    items = [result] if isinstance(result, Content) else result
    if isinstance(items, list) and items and all(isinstance(c, Content) for c in items):
        if all(c.type == "text" for c in items):
            return "\n".join(c.text or "" for c in items)
        return [c.to_dict() for c in items]
    return result


def _session_id(context: Any) -> Optional[str]:
    session = getattr(context, "session", None)
    session_id = getattr(session, "session_id", None)
    return str(session_id) if session_id else None


class ToolCallCheckMiddleware(FunctionMiddleware):
    """Vets every function call of an agent (see the module docs)."""

    def __init__(self, host: Any, **gate_options: Any) -> None:
        self.gate: Gate = as_gate(host, **gate_options)

    async def process(self, context: FunctionInvocationContext, call_next: Any) -> None:
        name = context.function.name
        args = _arguments(context.arguments)
        call_id = str(context.metadata.get("call_id") or "")
        run_id = _session_id(context)
        response = context.metadata.get("approval_response")
        if response is not None:
            # The framework re-enters only for an approval (a rejection never runs).
            approved = getattr(response, "approved", False) is True
            ruling = self.gate.resume(name, args, approved=approved, call_id=call_id, run_id=run_id)
        else:
            ruling = self.gate.check(name, args, call_id=call_id, run_id=run_id)
        if ruling.allowed:
            await call_next()
            if self.gate.vets_results():
                vetted = self.gate.check_result(name, args, _readable(context.result), call_id=call_id, run_id=run_id)
                if not vetted.passed:
                    context.result = vetted.output
            return
        if ruling.escalated:
            context.result = _approval_request(context, name, args, call_id, ruling)
            raise MiddlewareTermination("a person must approve this call first")
        context.result = ruling.message


def _approval_request(context: Any, name: str, args: Any, call_id: str, ruling: Ruling) -> Content:
    occurrence = context.metadata.get("function_call_occurrence_id") or call_id
    call = Content.from_function_call(call_id=call_id, name=name, arguments=args, id=occurrence)
    return Content.from_function_approval_request(id=occurrence, function_call=call, additional_properties=ruling.payload())


def reply(
    requests: Sequence[Content],
    gate: Gate,
    decisions: Mapping[str, Union[bool, str]],
    *,
    reviewer: Optional[str] = None,
    session: Any = None,
) -> Message:
    """The user message that answers approval ``requests`` (``response.user_input_requests``).

    ``decisions`` maps a request's call id to ``True`` (approve), ``False`` or a message
    (reject). Each answer is recorded in toolvet's ledger. An approval resumes the call,
    which the middleware vets again with its ticket (the approval is used then, once).
    A rejection is the framework's own (the function never runs, and an approval a
    reviewer gave in toolvet meanwhile is not spent); since the framework's rejection
    text is fixed, the message also carries the reviewer's words for the model. An
    answer that cannot be recorded is a rejection.
    """
    run_id = getattr(session, "session_id", None)
    contents: list[Content] = []
    notes: list[str] = []
    for request in requests:
        call = request.function_call
        if call is None or call.call_id not in decisions:
            continue
        answer = decisions[call.call_id]
        if answer is True:
            ruling = gate.record(
                call.name, _call_arguments(call), approved=True, call_id=call.call_id, run_id=run_id, reviewer=reviewer
            )
        else:
            ruling = gate.reject(
                call.name,
                _call_arguments(call),
                call_id=call.call_id,
                run_id=run_id,
                reviewer=reviewer,
                message=answer if isinstance(answer, str) else None,
            )
        ok = answer is True and ruling.escalated
        contents.append(request.to_function_approval_response(approved=ok))
        if not ok:
            notes.append(f"The call of `{call.name}` ({call.call_id}) was not run. {ruling.message}")
    if notes:
        contents.append(Content.from_text("\n".join(notes)))
    return Message(role="user", contents=contents)


def _call_arguments(call: Content) -> Any:
    args = call.parse_arguments() if hasattr(call, "parse_arguments") else call.arguments
    if isinstance(args, str):
        args = json.loads(args or "{}")
    return args or {}


def as_function_tool(host: Any, *, name: str = DECISION_TOOL_NAME, **gate_options: Any) -> FunctionTool:
    """A decision tool: the model asks whether a proposed call would be allowed and gets
    ``{"status", "answer"}`` (invalid arguments come back as ``{"error": ...}``)."""
    gate = as_gate(host, **gate_options)

    def toolvet_check(tool: str, arguments: dict) -> str:
        try:
            return json.dumps(decision_answer(gate, tool, arguments))
        except DecisionInputError as e:
            return json.dumps({"error": str(e)})

    return FunctionTool(
        name=name, description=DECISION_TOOL_DESCRIPTION, func=toolvet_check, input_model=DECISION_TOOL_SCHEMA
    )


__all__ = ["ToolCallCheckMiddleware", "as_function_tool", "reply"]
