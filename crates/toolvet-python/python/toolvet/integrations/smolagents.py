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

Runs: a run id belongs to the agent run, never to a tool. smolagents names no run a
tool could read, so each call is bound to the run ``guard(..., run_id=...)`` names (a
string, or a function with no arguments called for every call, e.g. one reading your
conversation id), else to the run of the ``guard`` call that built it: guard an
agent's tools *together*, ``guard([bash, github_push, ...], host)``, which returns
the guarded tools sharing one run id (``smolagents-guard:<random>``, made by that
``guard`` call), never one run shared by the whole process. The run binds approvals
and keys the run's history, which every rule relating two calls reads (loop
detection, run limits, ``sequence.retry-after-refusal``: the same effect tried with
another tool after a refusal). Tools guarded by *separate* ``guard`` calls are
separate runs, so those rules do not see each other's calls (review s23 F3): build
the guarded tools of one agent with one ``guard`` call (or give them one ``run_id``),
and one set per conversation when one process serves several.

Results: with a policy whose checks vet results (``host.vets_results()``), what the
tool returned is vetted before the agent sees it: pass returns it unchanged, redact
returns the masked text or JSON value, withhold raises the error ``The tool's result
was withheld by toolvet: <reason>``, which smolagents feeds back to the model. A label
the result raises is kept by the host for the guard's run, and the run's later calls
are vetted with it.

What it does not vet: only guarded tools (a managed agent's tools need guards of their
own; an MCP ``ToolCollection``'s tools each through ``guard``), and never the Python a
``CodeAgent`` runs outside tool calls.

Any failure of the host is a deny. The wrapped tool runs with the plain JSON copy of
the arguments that toolvet vetted, never with the caller's objects: arguments that are
not plain JSON values of the built-in types (a ``list`` or ``str`` subclass the model's
code defined, say) are a deny (``toolvet.invalid-call``).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, Callable, Optional, Union, overload

from smolagents import Tool

from ._base import (
    DECISION_TOOL_DESCRIPTION,
    DECISION_TOOL_NAME,
    DecisionInputError,
    Gate,
    Ruling,
    as_gate,
    decision_answer,
    fresh_run_id,
    named_run,
    vet_call,
)

#: A run id, or a function (no arguments) that names the current call's run.
RunId = Union[str, Callable[[], Optional[str]]]


class PolicyDenied(Exception):
    """A call the policy did not allow; its message is what the model reads."""


class GuardedTool(Tool):
    """A tool that toolvet vets before the wrapped tool runs.

    ``CodeAgent`` hands this object to the model's own Python code, and
    smolagents' executor lets that code read (and set) any attribute whose name
    is not a dunder. So the object holds nothing that leads to the wrapped tool,
    the gate, the host or its ledger: they live only in the closure of its
    ``forward`` (a plain function, whose closure is reachable only through dunder
    attributes), which also fixed the tool's name, argument names and run when it
    was built, so setting ``name``, ``inputs`` or ``forward`` on the object
    changes what the model sees, never what toolvet vets or what runs.
    """

    skip_forward_signature_validation = True

    def __init__(self, tool: Tool, gate: Gate, run_id: Optional[RunId], own_run: str) -> None:
        self.name = tool.name
        self.description = tool.description
        self.inputs = copy.deepcopy(tool.inputs)
        self.output_type = tool.output_type
        if getattr(tool, "output_schema", None) is not None:
            self.output_schema = copy.deepcopy(tool.output_schema)
        super().__init__()
        self.forward = _vetted_forward(tool, gate, self.name, tuple(self.inputs), run_id, own_run)


def _vetted_forward(
    tool: Tool, gate: Gate, name: str, parameters: tuple[str, ...], run_id: Optional[RunId], own_run: str
) -> Any:
    """The guarded tool's ``forward``: vets, then calls ``tool``. A closure, not a
    bound method or ``functools.partial`` (whose ``func``/``args`` are ordinary
    attributes): nothing in it is reachable without a dunder attribute. Its run
    is ``run_id``'s, else ``own_run`` (the one its ``guard`` call made)."""

    def forward(*args: Any, **kwargs: Any) -> Any:
        if args:
            if len(args) > len(parameters):
                raise PolicyDenied(f"Blocked by policy: `{name}` takes at most {len(parameters)} positional arguments")
            kwargs = {**dict(zip(parameters, args)), **kwargs}
        # The tool gets the plain copy toolvet vetted, never the caller's objects:
        # the model's code can pass a list or str subclass that reads differently
        # the second time (vet_call refuses those).
        run = named_run(run_id) or own_run
        ruling, plain = vet_call(gate, name, kwargs, run_id=run)
        if not ruling.allowed:
            raise PolicyDenied(_message(ruling))
        vetted = gate.check_result(name, plain, tool(**plain, sanitize_inputs_outputs=False), run_id=run)
        if vetted.withheld:
            raise PolicyDenied(vetted.message)
        return vetted.content

    return forward


def _message(ruling: Ruling) -> str:
    if ruling.escalated:
        return (
            f"{ruling.message.rstrip('.')}. A person must approve this call first (approval request "
            f"{ruling.approval_id}); it can run once it is approved"
        )
    return ruling.message


@overload
def guard(tool: Tool, host: Any, *, run_id: Optional[RunId] = None, **gate_options: Any) -> GuardedTool: ...
@overload
def guard(tool: Sequence[Tool], host: Any, *, run_id: Optional[RunId] = None, **gate_options: Any) -> list[GuardedTool]: ...
def guard(tool: Any, host: Any, *, run_id: Optional[RunId] = None, **gate_options: Any) -> Any:
    """``tool`` vetted by ``host`` (a Host or a shared Gate); a list of tools gives
    the list of guarded tools, all in one run. ``run_id`` names the run approvals
    are bound to (see the module docs; default: one made by this call, shared by
    every tool it guards)."""
    gate = as_gate(host, **gate_options)
    # One run per guard call, never per tool (review s23 F3).
    own_run = fresh_run_id("smolagents-guard")
    if isinstance(tool, Tool):
        return GuardedTool(tool, gate, run_id, own_run)
    return [GuardedTool(t, gate, run_id, own_run) for t in tool]


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
        super().__init__()
        self.forward = _decision_forward(gate)


def _decision_forward(gate: Gate) -> Any:
    """The decision tool's ``forward``, closing over ``gate`` (see :class:`GuardedTool`)."""

    def forward(tool: str, arguments: Optional[dict] = None) -> dict:
        try:
            return decision_answer(gate, tool, arguments or {})
        except DecisionInputError as e:
            raise ValueError(str(e)) from None  # smolagents hands the error to the model

    return forward


def as_smolagents_tool(host: Any, *, name: str = DECISION_TOOL_NAME, **gate_options: Any) -> DecisionTool:
    """A decision tool for smolagents agents."""
    return DecisionTool(as_gate(host, **gate_options), name)


__all__ = ["DecisionTool", "GuardedTool", "PolicyDenied", "as_smolagents_tool", "guard"]
