"""toolvet: vet AI-agent tool calls in-process with sandboxed WebAssembly checks.

>>> host = toolvet.Host.from_file("toolvet.toml")          # doctest: +SKIP
>>> v = host.check({"name": "bash", "arguments": {"command": "rm -rf ~"}},
...                context={"attributes": {"cwd": "/home/alice/project"}})  # doctest: +SKIP
>>> v.decision, v.reason                                     # doctest: +SKIP
('deny', '`rm` on `/home/alice` would delete a home directory. ...')

A verdict is ``allow``, ``deny`` (``reason`` is for the model) or ``escalate``
(a person approves first: ``verdict.approval`` holds the request and its
ticket; ``host.approvals`` decides it; ``host.check(..., ticket=...)`` resumes).
A failure of the host is a deny verdict, never an exception; bad input raises
``CallError``. Adapters for agent frameworks are in ``toolvet.integrations``;
their gate puts the user's home (:func:`user_home`, the attribute
:data:`HOME_ATTRIBUTE`) into every call's context, which ``host.check`` itself
takes as given.

After a tool ran, ``host.check_result(call, result, context=...)`` vets what it
returned: ``pass``, ``redact`` (the model reads ``verdict.content``, masked) or
``withhold`` (it reads ``verdict.reason``). Labels a result raises are kept by the
host for the run (``context.run_id``) and its later calls are vetted with them;
a caller never sends ``context.labels``.
"""

from __future__ import annotations

from . import errors
from ._native import (
    CONTRACT_VERSION,
    HOME_ATTRIBUTE,
    Approval,
    ApprovalRequest,
    Approvals,
    Call,
    CheckOutcome,
    Context,
    Host,
    PriorCall,
    ResultCheckOutcome,
    ResultVerdict,
    RunLabel,
    Tool,
    ToolResult,
    Verdict,
    __version__,
    user_home,
)
from .errors import ApprovalError, CallError, Error, PolicyError

__all__ = [
    "CONTRACT_VERSION",
    "HOME_ATTRIBUTE",
    "Approval",
    "ApprovalError",
    "ApprovalRequest",
    "Approvals",
    "Call",
    "CallError",
    "CheckOutcome",
    "Context",
    "Error",
    "Host",
    "PolicyError",
    "PriorCall",
    "ResultCheckOutcome",
    "ResultVerdict",
    "RunLabel",
    "Tool",
    "ToolResult",
    "Verdict",
    "__version__",
    "errors",
    "user_home",
]
