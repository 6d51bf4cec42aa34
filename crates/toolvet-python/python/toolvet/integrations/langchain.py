"""LangChain v1 / LangGraph: a ``wrap_tool_call`` middleware and a decision tool.

``ToolCallCheckMiddleware(host)`` vets every tool call of ``create_agent``:

- allow: the tool runs;
- deny: the tool does not run; the model gets an error ``ToolMessage`` with the reason;
- escalate: the run pauses with ``langgraph.types.interrupt`` and the request of
  LangChain's ``HumanInTheLoopMiddleware`` (``{"action_requests": [...],
  "review_configs": [...]}``), so its reviewers and UIs work unchanged. Resume with
  ``Command(resume={"decisions": [{"type": "approve"}]})`` or
  ``{"type": "reject", "message": "..."}`` (an optional ``"reviewer"`` key names who
  decided). An approval is recorded in toolvet's ledger and the call is vetted again
  with its ticket, which uses the approval: the tool runs once, and resuming again
  from the paused checkpoint is refused (``approval.replayed``). A rejection never
  runs the tool and never spends an approval given in toolvet meanwhile; the model
  reads the reviewer's message.
- several escalations in one model turn: each held call is its own interrupt
  (LangGraph runs each tool call as its own task), so answer each by its id:
  ``Command(resume={i.id: {"decisions": [{"type": "approve"}]} for i in out.interrupts})``.
  A bare ``Command(resume={"decisions": [...]})`` answers a single pending interrupt
  only (LangGraph refuses it when several are pending).

Results: with a policy whose checks vet results (``host.vets_results()``), what the
tool returned is vetted after the handler, before the model reads it (the
``ToolMessage``'s content, text or content blocks; each tool message of a
``Command``): pass leaves it as it is; redact gives the model the masked content
(and drops the message's ``artifact``); withhold replaces the message with an error
``ToolMessage`` that says the result was withheld by toolvet, and why. A label the
result raises is kept by the host for the thread (the run), and the thread's later
calls are vetted with it. With no result checks nothing is asked.

The check must be the innermost tool wrapper: put ``ToolCallCheckMiddleware`` *last*
among the middleware that wrap tool calls (``ToolRetryMiddleware``, a cache, an
emulator, your own ``wrap_tool_call``), e.g.
``middleware=[ToolRetryMiddleware(...), ToolCallCheckMiddleware(host)]``. LangChain
nests them in list order (the first is outermost), and a wrapper inside the check could
run the tool again (a retry: one approval, several executions) or change the call after
it was vetted. In that order every attempt a retry makes passes the check again, so an
approval runs the call once and a retry of an approved call is refused
(``approval.replayed``). A check with another wrapper inside it refuses every tool call
with a ``TypeError`` before vetting anything (the run fails; nothing runs): LangChain
gives a middleware no view of the list, so the check reads it from the handler it is
handed, which is the tool node's own only when nothing is nested inside.

What it does not vet: provider-side tools passed to the model as dicts (a provider's
web search or code interpreter) run at the provider, not in the tool node, and are
never vetted; every tool the tool node runs (MCP adapters' tools included) is.

Pausing needs a checkpointer (``create_agent(..., checkpointer=InMemorySaver())``) and
a ``thread_id``, which is the run id the approval is bound to. LangGraph re-executes the
tool node on resume; the gate asks the host again, which answers a held call with the
same request and ticket. ``edit`` decisions are not offered (an edited call is a
different call: reject it and let the model call again).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Optional

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import ToolMessage
from langchain_core.tools import StructuredTool, ToolException
from langgraph.types import Command, interrupt
from pydantic import BaseModel, Field

from ._base import (
    DECISION_TOOL_DESCRIPTION,
    DECISION_TOOL_NAME,
    DecisionInputError,
    Gate,
    ResultRuling,
    Ruling,
    as_gate,
    decision_answer,
    visible,
)

ALLOWED_DECISIONS = ["approve", "reject"]


def _thread_id(request: Any) -> Optional[str]:
    runtime = getattr(request, "runtime", None)
    config = getattr(runtime, "config", None) or {}
    thread = (config.get("configurable") or {}).get("thread_id")
    return str(thread) if thread is not None else None


def _require_innermost(handler: Any) -> None:
    """Raise ``TypeError`` unless ``handler`` runs the tool itself: one of the
    functions LangGraph's ``ToolNode`` defines to execute a call (its qualified
    name starts ``ToolNode.``), not another middleware's ``wrap_tool_call``
    composed inside this one, which could run the vetted call several times
    (``ToolRetryMiddleware``: one approval, several executions, review s22 F2)
    or change it after it was vetted. See the module docs for the order."""
    if getattr(handler, "__qualname__", "").startswith("ToolNode."):
        return
    raise TypeError(
        "ToolCallCheckMiddleware must be the last middleware that wraps tool calls (list it after "
        "ToolRetryMiddleware and any other wrap_tool_call middleware): a wrapper inside the check could "
        "run a vetted or approved call again, or change it, unvetted; no tool call runs in this order"
    )


class ToolCallCheckMiddleware(AgentMiddleware):
    """Vets every tool call with a toolvet host (see the module docs)."""

    def __init__(
        self,
        host: Any,
        *,
        description_prefix: str = "Tool execution requires approval",
        **gate_options: Any,
    ) -> None:
        super().__init__()
        self.gate: Gate = as_gate(host, **gate_options)
        self.description_prefix = description_prefix

    # The hook, sync and async: the checks are the same, only the handler differs.

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        _require_innermost(handler)
        outcome = self._decide(request)
        if outcome is not None:
            return outcome
        return self._vet_output(request, handler(request))

    async def awrap_tool_call(self, request: Any, handler: Any) -> Any:
        _require_innermost(handler)
        outcome = self._decide(request)
        if outcome is not None:
            return outcome
        return self._vet_output(request, await handler(request))

    def _vet_output(self, request: Any, output: Any) -> Any:
        """What the model gets of the tool's ``output`` (see the module docs on
        results): a ``ToolMessage`` as returned, masked, or replaced by the
        withhold message; a ``Command``'s tool messages likewise."""
        if not self.gate.vets_results():
            return output
        if isinstance(output, ToolMessage):
            return self._vet_message(request, output)
        if isinstance(output, Command) and isinstance(output.update, dict):
            messages = output.update.get("messages")
            if isinstance(messages, list):
                vetted = [self._vet_message(request, m) if isinstance(m, ToolMessage) else m for m in messages]
                return dataclasses.replace(output, update={**output.update, "messages": vetted})
            return output
        # Not a message the tool node makes: vetted as its text.
        call = request.tool_call
        ruling = self._vet(request, output, False)
        if ruling.passed:
            return output
        return ToolMessage(
            content=ruling.message if ruling.withheld else _message_content(ruling.content),
            tool_call_id=call.get("id") or "",
            name=call["name"],
            status="error" if ruling.withheld else "success",
        )

    def _vet(self, request: Any, content: Any, is_error: bool) -> ResultRuling:
        call = request.tool_call
        return self.gate.check_result(
            call["name"],
            call.get("args") or {},
            content,
            call_id=call.get("id") or "",
            run_id=_thread_id(request),
            is_error=is_error,
        )

    def _vet_message(self, request: Any, message: ToolMessage) -> ToolMessage:
        ruling = self._vet(request, message.content, message.status == "error")
        if ruling.passed:
            return message
        if ruling.redacted:
            # The artifact (which the model never reads) goes too: it may hold
            # what was masked.
            return message.model_copy(update={"content": _message_content(ruling.content), "artifact": None})
        return ToolMessage(
            content=ruling.message,
            tool_call_id=message.tool_call_id,
            name=message.name,
            status="error",
        )

    def _decide(self, request: Any) -> Optional[ToolMessage]:
        """None to run the tool, else the message the model gets instead."""
        call = request.tool_call
        name, args, call_id = call["name"], call.get("args") or {}, call.get("id") or ""
        run_id = _thread_id(request)
        ruling = self.gate.check(name, args, call_id=call_id, run_id=run_id)
        if ruling.escalated:
            answer = interrupt(self._request(name, args, ruling))
            ruling = self._resume(name, args, call_id, run_id, answer)
        if ruling.allowed:
            return None
        return ToolMessage(content=ruling.message, tool_call_id=call_id, name=name, status="error")

    def _request(self, name: str, args: Any, ruling: Ruling) -> dict[str, Any]:
        # Every text the person reads is `visible`: a reason quoting the model's
        # arguments cannot add lines (a forged `Tool:` / `Policy:`) or reorder them.
        description = (
            f"{self.description_prefix}\n\nTool: {visible(name)}\nArgs: {visible(json.dumps(args, default=str))}\n\n"
            f"Policy: {ruling.shown_reason} (approval request {visible(ruling.approval_id)})"
        )
        return {
            "action_requests": [{"name": name, "args": args, "description": description}],
            "review_configs": [{"action_name": name, "allowed_decisions": list(ALLOWED_DECISIONS)}],
        }

    def _resume(self, name: str, args: Any, call_id: str, run_id: Optional[str], answer: Any) -> Ruling:
        decision = _decision(answer)
        kind = decision.get("type") if decision else None
        if kind not in ALLOWED_DECISIONS:
            return Ruling(
                "deny",
                f"the answer to the approval request is not one of {ALLOWED_DECISIONS}: {answer!r}",
                "toolvet.invalid-answer",
            )
        return self.gate.resume(
            name,
            args,
            approved=kind == "approve",
            call_id=call_id,
            run_id=run_id,
            reviewer=decision.get("reviewer"),
            message=decision.get("message"),
        )


def _message_content(content: Any) -> Any:
    """A masked result as a ``ToolMessage``'s content: text or content blocks
    as they were, any other JSON value as its JSON text."""
    if isinstance(content, (str, list)):
        return content
    return json.dumps(content, ensure_ascii=False)


def _decision(answer: Any) -> Optional[dict[str, Any]]:
    """The one decision of an answer: ``{"decisions": [d]}`` or ``d`` itself."""
    if isinstance(answer, dict) and isinstance(answer.get("decisions"), list):
        decisions = answer["decisions"]
        return decisions[0] if len(decisions) == 1 and isinstance(decisions[0], dict) else None
    return answer if isinstance(answer, dict) else None


class _Proposal(BaseModel):
    tool: str = Field(description="The name of the tool you want to call.")
    arguments: dict[str, Any] = Field(description="The arguments you would call it with.")


def as_structured_tool(host: Any, *, name: str = DECISION_TOOL_NAME, **gate_options: Any) -> StructuredTool:
    """A decision tool: the model asks whether a proposed call would be allowed.

    The message content is the JSON ``{"status", "answer"}``; the same dict is the
    message's ``artifact``. Invalid arguments go back to the model as an error message.
    """
    gate = as_gate(host, **gate_options)

    def toolvet_check(tool: str, arguments: dict[str, Any]) -> tuple[str, dict[str, str]]:
        try:
            answer = decision_answer(gate, tool, arguments)
        except DecisionInputError as e:
            raise ToolException(str(e)) from None
        return json.dumps(answer), answer

    return StructuredTool.from_function(
        func=toolvet_check,
        name=name,
        description=DECISION_TOOL_DESCRIPTION,
        args_schema=_Proposal,
        response_format="content_and_artifact",
        handle_tool_error=True,
        handle_validation_error=_invalid_proposal,
    )


def _invalid_proposal(error: Exception) -> str:
    errors = getattr(error, "errors", None)
    if callable(errors):
        details = "; ".join(f"`{'.'.join(map(str, e.get('loc', ())))}`: {e.get('msg')}" for e in errors())
        return f"invalid arguments for the decision tool: {details}"
    return f"invalid arguments for the decision tool: {error}"


__all__ = ["ToolCallCheckMiddleware", "as_structured_tool"]
