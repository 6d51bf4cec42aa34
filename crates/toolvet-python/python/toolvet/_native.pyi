"""Type stubs of toolvet's native module (re-exported by ``toolvet``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Optional, Union

CONTRACT_VERSION: str
__version__: str
HOME_ATTRIBUTE: str

def user_home() -> Optional[str]:
    """The home directory of the user this process runs as: ``$HOME`` when it is
    an absolute path, else the user's ``/etc/passwd`` entry; ``None`` when
    neither names one. The core's rule, the one the hooks and ``toolvet mcp``
    use for the ``home`` attribute (:data:`HOME_ATTRIBUTE`)."""

Decision = Literal["allow", "deny", "escalate"]
Status = Literal["pending", "approved", "rejected", "consumed", "expired"]
JSON = Any
CallLike = Union["Call", Mapping[str, JSON]]
ToolLike = Union["Tool", Mapping[str, JSON], None]
ContextLike = Union["Context", Mapping[str, JSON], None]
ResultLike = Union["ToolResult", str, Mapping[str, JSON]]
ResultAction = Literal["pass", "redact", "withhold"]

class Call:
    """One proposed tool call."""

    name: str
    arguments: Mapping[str, JSON]
    id: str
    def __init__(self, name: str, arguments: Optional[Mapping[str, JSON]] = None, id: str = "") -> None: ...

class Tool:
    """What the agent's owner declared about a tool."""

    description: Optional[str]
    risk: Optional[str]
    requires_approval: bool
    tags: list[str]
    parameters_schema: Optional[Mapping[str, JSON]]
    def __init__(
        self,
        *,
        description: Optional[str] = None,
        risk: Optional[str] = None,
        requires_approval: bool = False,
        tags: Sequence[str] = (),
        parameters_schema: Optional[Mapping[str, JSON]] = None,
    ) -> None: ...

class PriorCall:
    """An earlier call of the run and what happened to it."""

    name: str
    arguments: Mapping[str, JSON]
    outcome: Literal["allowed", "denied", "escalated", "approved", "rejected"]
    def __init__(self, name: str, arguments: Mapping[str, JSON], outcome: str) -> None: ...

class Context:
    """The run a call belongs to."""

    agent: Optional[str]
    run_id: Optional[str]
    principal: Optional[str]
    attributes: Mapping[str, str]
    history: Sequence[Union[PriorCall, Mapping[str, JSON]]]
    def __init__(
        self,
        *,
        agent: Optional[str] = None,
        run_id: Optional[str] = None,
        principal: Optional[str] = None,
        attributes: Optional[Mapping[str, str]] = None,
        history: Optional[Sequence[Union[PriorCall, Mapping[str, JSON]]]] = None,
    ) -> None: ...

class ToolResult:
    """What a tool returned: ``content`` is text (a ``str``) or a JSON value."""

    content: JSON
    is_error: bool
    def __init__(self, content: JSON, *, is_error: bool = False) -> None: ...

class RunLabel:
    """A label a result check raised for the rest of its run."""

    @property
    def name(self) -> str: ...
    @property
    def values(self) -> list[str]: ...
    @property
    def check(self) -> str: ...
    @property
    def tool(self) -> str: ...
    @property
    def call_id(self) -> str: ...
    def to_dict(self) -> dict[str, Any]: ...

class ResultCheckOutcome:
    """What one result check did with a result."""

    @property
    def check(self) -> str: ...
    @property
    def action(self) -> Optional[ResultAction]:
        """``None`` when the check abstained."""
    @property
    def mode(self) -> Literal["enforce", "monitor"]: ...
    @property
    def rule(self) -> Optional[str]: ...
    @property
    def reason(self) -> Optional[str]: ...
    @property
    def masks(self) -> int: ...
    @property
    def labels(self) -> list[RunLabel]: ...
    @property
    def duration_us(self) -> int: ...
    @property
    def error(self) -> Optional[str]: ...
    @property
    def error_message(self) -> Optional[str]: ...

class ResultVerdict:
    """The combined answer about what one call returned. Has no truth value: test ``action``."""

    @property
    def action(self) -> ResultAction: ...
    @property
    def content(self) -> JSON:
        """What the model reads (text or a JSON value; masked on redact); ``None`` on withhold."""
    @property
    def content_kind(self) -> Optional[Literal["text", "json"]]: ...
    @property
    def reason(self) -> Optional[str]:
        """On withhold: what the model reads instead of the result."""
    @property
    def rule(self) -> Optional[str]: ...
    @property
    def decided_by(self) -> Optional[str]: ...
    @property
    def labels(self) -> list[RunLabel]: ...
    @property
    def checks(self) -> list[ResultCheckOutcome]: ...
    @property
    def tool(self) -> str: ...
    @property
    def call_id(self) -> str: ...
    @property
    def duration_us(self) -> int: ...
    @property
    def passed(self) -> bool: ...
    @property
    def redacted(self) -> bool: ...
    @property
    def withheld(self) -> bool: ...
    def to_json(self) -> str: ...
    def to_dict(self) -> dict[str, Any]: ...

class CheckOutcome:
    """What one check did with the call."""

    @property
    def check(self) -> str: ...
    @property
    def decision(self) -> Literal["allow", "abstain", "deny", "escalate"]: ...
    @property
    def mode(self) -> Literal["enforce", "monitor"]: ...
    @property
    def rule(self) -> Optional[str]: ...
    @property
    def reason(self) -> Optional[str]: ...
    @property
    def duration_us(self) -> int: ...
    @property
    def error(self) -> Optional[str]: ...
    @property
    def error_message(self) -> Optional[str]: ...

class Approval:
    """The approval part of a verdict: the request and its ticket."""

    @property
    def id(self) -> str: ...
    @property
    def status(self) -> Status: ...
    @property
    def ticket(self) -> Optional[str]: ...
    @property
    def created_at(self) -> str: ...
    @property
    def expires_at(self) -> str: ...
    @property
    def reviewer(self) -> Optional[str]: ...
    @property
    def message(self) -> Optional[str]: ...
    @property
    def scope(self) -> Optional[Literal["once", "run"]]: ...
    @property
    def opened(self) -> bool:
        """True when this verdict opened the request (none existed for the call before)."""
    @property
    def escalations(self) -> list[dict[str, Any]]: ...
    def to_dict(self) -> dict[str, Any]: ...

class Verdict:
    """The combined answer about one call. Has no truth value: test ``allowed``."""

    @property
    def decision(self) -> Decision: ...
    @property
    def reason(self) -> Optional[str]: ...
    @property
    def rule(self) -> Optional[str]: ...
    @property
    def decided_by(self) -> Optional[str]: ...
    @property
    def tool(self) -> str: ...
    @property
    def call_id(self) -> str: ...
    @property
    def duration_us(self) -> int: ...
    @property
    def approval(self) -> Optional[Approval]: ...
    @property
    def checks(self) -> list[CheckOutcome]: ...
    @property
    def allowed(self) -> bool: ...
    @property
    def denied(self) -> bool: ...
    @property
    def escalated(self) -> bool: ...
    def to_json(self) -> str: ...
    def to_dict(self) -> dict[str, Any]: ...

class ApprovalRequest:
    """One approval request as the ledger holds it."""

    @property
    def id(self) -> str: ...
    @property
    def status(self) -> Status: ...
    @property
    def tool(self) -> str: ...
    @property
    def call_id(self) -> str: ...
    @property
    def run_id(self) -> Optional[str]: ...
    @property
    def attributes(self) -> dict[str, str]: ...
    @property
    def arguments(self) -> dict[str, Any]: ...
    @property
    def agent(self) -> Optional[str]: ...
    @property
    def principal(self) -> Optional[str]: ...
    @property
    def escalations(self) -> list[dict[str, Any]]: ...
    @property
    def reason(self) -> Optional[str]: ...
    @property
    def created_at(self) -> str: ...
    @property
    def expires_at(self) -> str: ...
    @property
    def reviewer(self) -> Optional[str]: ...
    @property
    def message(self) -> Optional[str]: ...
    @property
    def review_sha256(self) -> str: ...
    def to_dict(self) -> dict[str, Any]: ...

class Approvals:
    """The approvals of a policy: its ledger of requests."""

    def pending(self, limit: int = 100) -> list[ApprovalRequest]: ...
    def list(
        self,
        status: Literal["pending", "approved", "rejected", "consumed", "expired", "all"] = "pending",
        limit: int = 100,
        after: Optional[str] = None,
    ) -> list[ApprovalRequest]: ...
    def get(self, id: str) -> ApprovalRequest: ...
    def approve(
        self,
        id: str,
        reviewer: str,
        message: Optional[str] = None,
        scope: Literal["once", "run"] = "once",
        *,
        shown: Optional[str] = None,
    ) -> ApprovalRequest: ...
    def reject(
        self, id: str, reviewer: str, message: Optional[str] = None, *, shown: Optional[str] = None
    ) -> ApprovalRequest: ...

class Host:
    """Loaded checks ready to vet calls; safe to share between threads."""

    @staticmethod
    def from_file(path: str | Any) -> Host: ...
    @staticmethod
    def from_toml(text: str, base_dir: str | Any | None = None, source: str | Any | None = None) -> Host: ...
    def check(
        self,
        call: CallLike,
        tool: ToolLike = None,
        context: ContextLike = None,
        *,
        ticket: Optional[str] = None,
    ) -> Verdict: ...
    async def acheck(
        self,
        call: CallLike,
        tool: ToolLike = None,
        context: ContextLike = None,
        *,
        ticket: Optional[str] = None,
    ) -> Verdict: ...
    def check_result(
        self,
        call: CallLike,
        result: ResultLike,
        tool: ToolLike = None,
        context: ContextLike = None,
    ) -> ResultVerdict:
        """Vet what the call's tool returned; the labels it raises are kept for the
        run (``context.run_id``) and reach its later calls. ``context`` never holds
        ``labels`` (``CallError``). A host failure is a withhold."""
    async def acheck_result(
        self,
        call: CallLike,
        result: ResultLike,
        tool: ToolLike = None,
        context: ContextLike = None,
    ) -> ResultVerdict: ...
    def vets_results(self) -> bool:
        """Whether any check may vet results; when false every result passes."""
    def run_labels(
        self, run_id: Optional[str] = None, *, agent: Optional[str] = None, principal: Optional[str] = None
    ) -> list[RunLabel]:
        """The labels the run's results raised so far (copies; read only)."""
    @property
    def approvals(self) -> Optional[Approvals]: ...
    @property
    def policy_sha256(self) -> str: ...
    @property
    def policy(self) -> str: ...
    @property
    def generation(self) -> int: ...
    def checks(self) -> list[dict[str, Any]]: ...
    def flush_decision_log(self, timeout_s: float = 10.0) -> None: ...
