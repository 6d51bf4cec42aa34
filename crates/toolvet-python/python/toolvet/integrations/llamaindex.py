"""LlamaIndex: a decision tool (``as_llamaindex_tool``) and ``guard(tool, host)``.

LlamaIndex has no pre-call hook: ``FunctionTool``'s ``callback`` runs on the *result*,
after the tool. The gate is therefore the tool itself: ``guard(tool, host)`` rebuilds a
tool (same name, description and schema) whose calls toolvet vets first.

- deny: the guarded tool raises; ``FunctionAgent`` / ``ReActAgent`` / ``AgentWorkflow``
  turn that into ``ToolOutput(is_error=True)`` with ``Blocked by policy: <reason>``, which
  the model reads;
- escalate: the call is denied with the approval request's id; once a person approves
  it (``toolvet approvals approve``, ``host.approvals``) the same call made again runs,
  once; a rejection gives the model the reviewer's message. (LlamaIndex can pause only
  from code inside a tool, with ``ctx.wait_for_event``, and it replays the whole step on
  resume; this adapter does not pause.)

Results: with a policy whose checks vet results (``host.vets_results()``), the
tool's ``raw_output`` is vetted before the agent sees it: pass returns it unchanged,
redact returns the masked text or JSON value, withhold raises the error ``The tool's
result was withheld by toolvet: <reason>`` (an error ``ToolOutput`` the model reads). A
label the result raises is kept by the host for the call's run, and the run's later
calls are vetted with it.

The guarded tool runs with the plain JSON copy of the arguments toolvet vetted, never
with the caller's objects; arguments that are not plain JSON values of the built-in
types are a deny (``toolvet.invalid-call``).

Runs: each call is bound to a run, which binds its approval and keys its history
(loop detection, run limits, ``sequence.retry-after-refusal``: the same effect tried
with another tool after a refusal). A run id belongs to the agent run, never to a
tool. By default that is the LlamaIndex workflow run the tool is called in
(``llamaindex-run:<run id>``: one ``agent.run(...)``), else, called outside a
workflow, the run of the ``guard`` call that built it: guard an agent's tools
together, ``guard([tool_a, tool_b], host)``, which returns the guarded tools sharing
one run id (``llamaindex-guard:<random>``), never one run for the whole process.
Tools guarded by separate ``guard`` calls and called outside a workflow are separate
runs, whose rules do not see each other's calls (review s23 F3). A person's approval
of a held call runs that call only in the agent run that asked for it; to let the
model's call in a later ``agent.run`` of the same conversation use it, name the
conversation: ``guard(tools, host, run_id="conv-42")`` or
``run_id=lambda: current_conversation()`` (a function called for every call).

What it does not vet: only guarded tools; every tool an agent can call, MCP tools
(``McpToolSpec(...).to_tool_list()``) included, must be passed through ``guard``.

The decision tool returns ``{"status", "answer"}`` as the ``ToolOutput``'s ``raw_output``.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Union

from llama_index.core.tools import FunctionTool
from pydantic import BaseModel, Field

from ._base import (
    DECISION_TOOL_DESCRIPTION,
    DECISION_TOOL_NAME,
    DecisionInputError,
    as_gate,
    decision_answer,
    fresh_run_id,
    named_run,
    vet_call,
)

#: A run id, or a function (no arguments) that names the current call's run.
RunId = Union[str, Callable[[], Optional[str]]]


def workflow_run_id() -> Optional[str]:
    """The LlamaIndex workflow run the current code runs in (``llamaindex-run:<id>``),
    or None outside one."""
    try:
        from workflows.plugins.basic import get_current_run_id
    except ImportError:  # an older llama-index-workflows: no run known
        return None
    run = get_current_run_id()
    return f"llamaindex-run:{run}" if run else None


class PolicyDenied(Exception):
    """A call the policy did not allow; its message is what the model reads."""


def guard(tool: Any, host: Any, *, run_id: Optional[RunId] = None, **gate_options: Any) -> Any:
    """``tool`` (any LlamaIndex tool) vetted by ``host`` (a Host or a shared Gate); a
    list of tools gives the list of guarded tools, all in one run outside a workflow.
    ``run_id`` names the run of their calls (see the module docs)."""
    gate = as_gate(host, **gate_options)
    # One run per guard call, never per tool (review s23 F3).
    own_run = fresh_run_id("llamaindex-guard")
    if isinstance(tool, (list, tuple)):
        return [_guarded(t, gate, run_id, own_run) for t in tool]
    return _guarded(tool, gate, run_id, own_run)


def _guarded(tool: Any, gate: Any, run_id: Optional[RunId], own_run: str) -> FunctionTool:
    """``tool`` vetted by ``gate``; its calls' run: ``run_id``'s, else the workflow
    run's, else ``own_run`` (its ``guard`` call's)."""
    meta = tool.metadata
    name = meta.get_name()

    async def gated(**kwargs: Any) -> Any:
        run = named_run(run_id) or workflow_run_id() or own_run
        # The tool gets the plain copy toolvet vetted, never the caller's objects
        # (code the model wrote, e.g. CodeActAgent's, can pass a subclass that
        # reads differently the second time; vet_call refuses those).
        ruling, plain = vet_call(gate, name, kwargs, run_id=run)
        if ruling.allowed:
            output = (await tool.acall(**plain)).raw_output
            vetted = gate.check_result(name, plain, output, run_id=run)
            if vetted.withheld:
                raise PolicyDenied(vetted.message)
            return vetted.content
        if ruling.escalated:
            raise PolicyDenied(
                f"{ruling.message.rstrip('.')}. A person must approve this call first (approval request "
                f"{ruling.approval_id}); it can run once it is approved"
            )
        raise PolicyDenied(ruling.message)

    return FunctionTool.from_defaults(
        async_fn=gated, name=name, description=meta.description, fn_schema=meta.fn_schema, return_direct=meta.return_direct
    )


class _Proposal(BaseModel):
    tool: str = Field(description="The name of the tool you want to call.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="The arguments you would call it with.")


def as_llamaindex_tool(host: Any, *, name: str = DECISION_TOOL_NAME, **gate_options: Any) -> FunctionTool:
    """A decision tool; invalid arguments come back to the model as an error output."""
    gate = as_gate(host, **gate_options)

    def toolvet_check(tool: str, arguments: Optional[dict[str, Any]] = None) -> dict[str, str]:
        try:
            return decision_answer(gate, tool, arguments or {})
        except DecisionInputError as e:
            raise ValueError(str(e)) from None

    return FunctionTool.from_defaults(fn=toolvet_check, name=name, description=DECISION_TOOL_DESCRIPTION, fn_schema=_Proposal)


__all__ = ["PolicyDenied", "as_llamaindex_tool", "guard", "workflow_run_id"]
