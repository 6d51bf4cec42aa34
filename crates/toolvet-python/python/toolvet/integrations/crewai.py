"""CrewAI: ``tool_call_hook(host, approve=None)`` for ``register_before_tool_call_hook``,
and a decision tool (``as_crewai_tool``).

- deny: the hook blocks the call. CrewAI then tells the model a fixed
  "Tool execution blocked by hook" text, so the hook's ``after`` companion (register it
  with ``register_after_tool_call_hook``, or use ``install()``, which registers both)
  replaces that text with ``Blocked by policy: <reason>``;
- escalate: CrewAI cannot pause a tool call. With ``approve``, the hook asks it and
  blocks the worker thread until it answers: ``approve(ruling, tool_name, arguments)``
  returns ``True`` (approve), ``False`` or a message (reject), or a dict ``{"approved":
  bool, "reviewer": ..., "message": ...}``. The answer is recorded in toolvet's ledger
  (unless it already holds a decision, which stands) and the call is vetted again with
  its ticket; a rejection blocks the call and never spends an approval given in toolvet
  meanwhile. Without ``approve`` the call is blocked with the approval request's id;
  once a person approves that request (``toolvet approvals approve``, ``host.approvals``)
  the model's next identical call runs, once.

Results: with a policy whose checks vet results (``host.vets_results()``), the
``after`` hook vets what each call that ran returned (CrewAI's result text) before the
model reads it: pass leaves it, redact replaces it with the masked text, withhold with
``The tool's result was withheld by toolvet: <reason>``. Register ``after`` (or use
``install()``): the before hook alone vets no result. A label the result raises is kept
by the host for the call's run, and the run's later calls are vetted with it.

Runs: the hook is registered for the whole process, so it binds each call to the run
CrewAI's hook context names: the crew (``crewai-crew:<crew.id>``; every kickoff of one
``Crew`` object is one run), else the agent (``crewai-agent:<agent.id>``, an
``Agent.kickoff()`` without a crew), else a run id of the hook's own made when it was
built (``crewai-hook:<random>``), never one shared by every hook. The run id binds
approvals (a person's approval of one crew's held call never runs another crew's
identical call) and keys the run's history (loop detection, run limits). ``run_id=``
(a string, or a function of the hook context) names the run instead, e.g. a
conversation that spans several crews.

What it does not vet: the hook sees the tool calls CrewAI's agent executors make; code
an agent runs with ``allow_code_execution`` outside a tool, and tools a provider runs,
are not hooked calls.

CrewAI swallows exceptions from hooks and lets the call run, so neither hook ever
raises: any failure (the host's, ``approve``'s) blocks the call.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections import OrderedDict
from typing import Any, Callable, Optional, Union

from crewai.hooks import (
    register_after_tool_call_hook,
    register_before_tool_call_hook,
    unregister_after_tool_call_hook,
    unregister_before_tool_call_hook,
)
from crewai.tools import BaseTool
from pydantic import BaseModel, Field

from ._base import (
    DECISION_TOOL_DESCRIPTION,
    DECISION_TOOL_NAME,
    DecisionInputError,
    Gate,
    Ruling,
    as_gate,
    decision_answer,
    result_failure,
)

BLOCKED = "Tool execution blocked by hook."

Approver = Callable[[Ruling, str, dict], Any]

#: A run id, or a function of the hook context that names one (None: CrewAI's).
RunId = Union[str, Callable[[Any], Optional[str]]]

#: How many blocked calls' reasons the hook keeps for its ``after`` companion.
_REASONS_SIZE = 4096


def crew_run_id(ctx: Any) -> Optional[str]:
    """The run CrewAI's hook context names: ``crewai-crew:<crew.id>``, else
    ``crewai-agent:<agent.id>``, else None."""
    for kind, owner in (("crew", getattr(ctx, "crew", None)), ("agent", getattr(ctx, "agent", None))):
        ident = getattr(owner, "id", None)
        if ident is not None and str(ident):
            return f"crewai-{kind}:{ident}"
    return None


class ToolCallHook:
    """The before-hook (call it with a ``ToolCallHookContext``); ``after`` is its companion.

    ``run_id`` names each call's run (see the module docs): by default the
    crew's, else the agent's, else this hook's own (:attr:`own_run_id`)."""

    def __init__(self, gate: Gate, approve: Optional[Approver], run_id: Optional[RunId] = None) -> None:
        self.gate = gate
        self.approve = approve
        self.run_id = run_id
        #: The run of calls whose context names no crew or agent: this hook's own.
        self.own_run_id = f"crewai-hook:{secrets.token_hex(16)}"
        # id(tool_input) -> (tool_input, reason): the object is kept, so its id is
        # not reused by another call's input while the reason waits; bounded.
        self._reasons: OrderedDict[int, tuple[Any, str]] = OrderedDict()
        self._lock = threading.Lock()

    def run_of(self, ctx: Any) -> str:
        """The run of the call ``ctx`` describes (see the module docs)."""
        named = self.run_id(ctx) if callable(self.run_id) else self.run_id
        return str(named or crew_run_id(ctx) or self.own_run_id)

    def __call__(self, ctx: Any) -> Optional[bool]:
        try:
            ruling = self._decide(ctx)
        except Exception as e:  # noqa: BLE001 - CrewAI would run the call on an exception
            ruling = Ruling("deny", f"the tool-call policy failed ({type(e).__name__}: {e}), so the call may not run")
        if ruling.allowed:
            return None
        with self._lock:
            self._reasons[id(ctx.tool_input)] = (ctx.tool_input, ruling.message)
            self._reasons.move_to_end(id(ctx.tool_input))
            while len(self._reasons) > _REASONS_SIZE:
                self._reasons.popitem(last=False)
        return False

    def _decide(self, ctx: Any) -> Ruling:
        name = ctx.tool_name
        args = ctx.tool_input
        agent = getattr(getattr(ctx, "agent", None), "role", None)
        run_id = self.run_of(ctx)
        if self.approve is None:
            return self._held(name, args, agent, run_id)
        ruling = self.gate.check(name, args, agent=agent, run_id=run_id)
        if not ruling.escalated:
            return ruling
        answer = self.approve(ruling, name, dict(args))
        approved, reviewer, message = _answer(answer)
        return self.gate.resume(
            name, args, approved=approved, agent=agent, run_id=run_id, reviewer=reviewer, message=message
        )

    def _held(self, name: str, args: Any, agent: Optional[str], run_id: str) -> Ruling:
        ruling = self.gate.check_held(name, args, agent=agent, run_id=run_id)
        if not ruling.escalated:
            return ruling
        return Ruling(
            "deny",
            f"{ruling.reason.rstrip('.')}. A person must approve this call first (approval request {ruling.approval_id}); "
            "try again once it is approved",
            ruling.rule,
            ruling.verdict,
            ruling.approval_id,
        )

    def after(self, ctx: Any) -> Optional[str]:
        """The after-hook: puts the policy's reason in place of CrewAI's blocked text,
        and vets what a call that ran returned (see the module docs)."""
        try:
            with self._lock:
                kept = self._reasons.pop(id(ctx.tool_input), None)
            reason = kept[1] if kept is not None and kept[0] is ctx.tool_input else None
            if reason and str(ctx.tool_result or "").startswith(BLOCKED):
                return reason
        except Exception:  # noqa: BLE001 - never raise into CrewAI
            pass
        return self._vet_result(ctx)

    def _vet_result(self, ctx: Any) -> Optional[str]:
        """None to leave the result the model reads as it is, else its text."""
        if not self.gate.vets_results():
            return None
        try:
            agent = getattr(getattr(ctx, "agent", None), "role", None)
            ruling = self.gate.check_result(
                ctx.tool_name, ctx.tool_input, ctx.tool_result, agent=agent, run_id=self.run_of(ctx)
            )
        except Exception as e:  # noqa: BLE001 - CrewAI would keep the result on an exception
            ruling = result_failure(e)
        if ruling.passed:
            return None
        output = ruling.output
        return output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)


def _answer(answer: Any) -> tuple[bool, Optional[str], Optional[str]]:
    """(approved, reviewer, message) from what ``approve`` returned; anything else rejects."""
    if answer is True:
        return True, None, None
    if isinstance(answer, str):
        return False, None, answer
    if isinstance(answer, dict):
        return answer.get("approved") is True, answer.get("reviewer"), answer.get("message")
    return False, None, None


def tool_call_hook(
    host: Any, approve: Optional[Approver] = None, *, run_id: Optional[RunId] = None, **gate_options: Any
) -> ToolCallHook:
    """A before-tool-call hook vetting every call (register ``hook.after`` too);
    ``run_id`` as in :class:`ToolCallHook`."""
    return ToolCallHook(as_gate(host, **gate_options), approve, run_id)


def install(
    host: Any, approve: Optional[Approver] = None, *, run_id: Optional[RunId] = None, **gate_options: Any
) -> Callable[[], None]:
    """Register the hook and its after-hook globally; returns a function that removes them."""
    hook = tool_call_hook(host, approve, run_id=run_id, **gate_options)
    register_before_tool_call_hook(hook)
    register_after_tool_call_hook(hook.after)

    def uninstall() -> None:
        unregister_before_tool_call_hook(hook)
        unregister_after_tool_call_hook(hook.after)

    return uninstall


class _Proposal(BaseModel):
    tool: str = Field(description="The name of the tool you want to call.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="The arguments you would call it with.")


class DecisionTool(BaseTool):
    """The decision tool for CrewAI agents."""

    name: str = DECISION_TOOL_NAME
    description: str = DECISION_TOOL_DESCRIPTION
    args_schema: type[BaseModel] = _Proposal
    gate: Any = None

    def _run(self, tool: str, arguments: Optional[dict[str, Any]] = None) -> dict[str, str]:
        try:
            return decision_answer(self.gate, tool, arguments or {})
        except DecisionInputError as e:
            return {"error": str(e)}


def as_crewai_tool(host: Any, *, name: str = DECISION_TOOL_NAME, **gate_options: Any) -> DecisionTool:
    """A decision tool: ``{"status", "answer"}`` about a proposed call. Its answers are
    never cached (a policy's answer can change)."""
    return DecisionTool(name=name, gate=as_gate(host, **gate_options), cache_function=_never_cache)


def _never_cache(args: Any, result: Any) -> bool:
    return False


__all__ = ["DecisionTool", "ToolCallHook", "as_crewai_tool", "crew_run_id", "install", "tool_call_hook"]
