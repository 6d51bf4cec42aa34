"""The kit's view of what the host hands a check (the WIT `types` interface).

These are plain Python classes, independent of the generated component
bindings, so a check's logic runs and is unit tested with ordinary CPython.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from typing import Any, Optional, TypeVar

from ._decode import DecodeError, decode, loads

__all__ = [
    "ArgumentsError",
    "Context",
    "Label",
    "Outcome",
    "PluginInfo",
    "PriorCall",
    "ResultSummary",
    "RoleValue",
    "RunLabel",
    "ToolCall",
    "ToolFacts",
    "ToolInfo",
]

T = TypeVar("T")

# The host's limits on labels (crates/toolvet/src/tool_result.rs).
MAX_LABEL_NAME = 64
"""Longest label name, in bytes."""
MAX_LABEL_VALUES = 32
"""Most values of one label."""
MAX_LABEL_VALUE = 512
"""Longest label value, in bytes of UTF-8."""
_LABEL_NAME = re.compile(r"[a-z0-9-]{1,%d}" % MAX_LABEL_NAME)


class ArgumentsError(DecodeError):
    """A call's arguments do not fit the type a check asked for. `str(error)`
    names the offending path, e.g.
    `arguments.amount: expected a number, got boolean true`. A `DecodeError`,
    so `except DecodeError` catches it too.
    """


class _Arguments:
    """Shared by `ToolCall` and `PriorCall`: the arguments JSON, parsed once."""

    arguments: str
    _parsed: Any

    @property
    def json(self) -> dict:
        """The arguments as a dict, parsed once and cached.

        Numbers with a fraction or exponent are `decimal.Decimal` (exact,
        never `float`); integers are `int`. `{}` if the text is not a JSON
        object (the host never sends that).
        """
        if self._parsed is None:
            try:
                parsed = loads(self.arguments)
            except ValueError:
                parsed = None
            self._parsed = parsed if isinstance(parsed, dict) else {}
        return self._parsed

    def args(self, tp: type[T], *, strict: bool = False) -> T:
        """The arguments decoded into `tp`, usually a dataclass describing the
        tool's parameters.

        Keys `tp` does not name are skipped, so a tool that gains a parameter
        does not break the check; with `strict=True` any unknown key, at any
        depth, is an error instead. This is the rule of all three kits (Rust:
        serde's default, `#[serde(deny_unknown_fields)]` for strict).

        Raises `ArgumentsError` naming the offending path, e.g.
        `arguments.amount: expected a number, got boolean true`.
        """
        try:
            parsed = loads(self.arguments)
        except ValueError as e:
            raise ArgumentsError("arguments", f"not valid JSON: {e}") from None
        try:
            return decode(parsed, tp, "arguments", strict=strict)
        except DecodeError as e:
            raise ArgumentsError(e.path, e.problem) from None

    def get(self, key: str, default: Any = None) -> Any:
        """The top-level argument `key` (any JSON type), or `default`."""
        return self.json.get(key, default)

    def str_arg(self, key: str) -> Optional[str]:
        """The top-level argument `key` if present and a string, else None."""
        value = self.json.get(key)
        return value if isinstance(value, str) else None


class ToolCall(_Arguments):
    """One proposed tool call.

    - `id`: the agent framework's call id (may be empty).
    - `name`: the tool's name, e.g. `bash`.
    - `arguments`: the arguments as JSON object text; use `.json`,
      `.get(key)`, `.str_arg(key)` or `.args(Dataclass)` to read them.
    """

    def __init__(self, name: str, arguments: str = "{}", id: str = "") -> None:
        self.id = id
        self.name = name
        self.arguments = arguments
        self._parsed = None

    def __repr__(self) -> str:
        return f"ToolCall(name={self.name!r}, arguments={self.arguments!r}, id={self.id!r})"


ROLES = (
    "shell-command", "source-code", "file-path", "url", "host", "outbound-content", "recipient",
    "amount", "currency", "repository", "branch", "cloud-resource", "environment", "query",
)
"""The contract's argument roles (WIT `role`), in its order."""

EFFECTS = (
    "read", "write", "delete", "execute", "outbound-message", "payment", "publish",
    "permission-change", "deploy",
)
"""The contract's effect classes (WIT `effects`), in its order."""


@dataclass(frozen=True)
class RoleValue:
    """One argument value with the role the host found for it (contract 0.2).

    - `role`: what the value is for, as the WIT names it: `shell-command`,
      `source-code`, `file-path`, `url`, `host`, `outbound-content`,
      `recipient`, `amount`, `currency`, `repository`, `branch`,
      `cloud-resource`, `environment` or `query`.
    - `pointer`: JSON Pointer into the arguments, e.g. `/command`.
    - `value`: the value as text (a string's content, other values' JSON).
    - `dialect`: the language of `source-code`, the shell of `shell-command`.
    """

    role: str
    pointer: str
    value: str
    dialect: Optional[str] = None


@dataclass(frozen=True)
class ToolFacts:
    """What the host found a call does (contract 0.2; `ToolInfo.facts` is
    None under a 0.1 host).

    - `effects`: a set of the WIT's effect names: `read`, `write`, `delete`,
      `execute`, `outbound-message`, `payment`, `publish`,
      `permission-change`, `deploy`.
    - `irreversible`, `protected_target`: as the WIT says.
    - `roles`: every argument value whose role the host found.
    - `source`: where the facts came from: `("catalog", "id@version")`,
      `("inferred", ["name verb: delete", ...])` or `("declared", None)`.
    """

    effects: frozenset[str] = frozenset()
    irreversible: bool = False
    protected_target: bool = False
    roles: tuple[RoleValue, ...] = ()
    source: tuple[str, Any] = ("declared", None)

    def values_of(self, role: str) -> list[str]:
        """The values of every argument with `role`, in order."""
        return [r.value for r in self.roles if r.role == role]


@dataclass
class ToolInfo:
    """What the agent's owner declared about the tool (all optional).

    - `description`: free text.
    - `risk`: `low`, `medium` or `high` by convention.
    - `requires_approval`: the owner asked for a person to approve every call.
    - `tags`: free-form labels such as `network`.
    - `parameters_schema`: the parameters' JSON Schema, as text.
    - `facts`: what the host found the call does (`ToolFacts`), or None: always
      None in a check built for contract 0.1, and None when the host found
      nothing.
    """

    description: Optional[str] = None
    risk: Optional[str] = None
    requires_approval: bool = False
    tags: list[str] = field(default_factory=list)
    parameters_schema: Optional[str] = None
    facts: Optional[ToolFacts] = None


class Outcome(enum.Enum):
    """What happened to an earlier call of the run."""

    ALLOWED = "allowed"
    """The verdict was allow and the tool ran."""
    DENIED = "denied"
    """The verdict was deny; the tool did not run."""
    ESCALATED = "escalated"
    """Escalated; no person has answered yet."""
    APPROVED = "approved"
    """A person approved the escalated call; the tool ran."""
    REJECTED = "rejected"
    """A person rejected the escalated call; the tool did not run."""

    @property
    def ran(self) -> bool:
        """Whether the call went on to run (`ALLOWED` or `APPROVED`)."""
        return self in (Outcome.ALLOWED, Outcome.APPROVED)


@dataclass(frozen=True)
class Label:
    """A label for the rest of the run, raised by a result check (contract
    0.2): `name` (1-64 lowercase ASCII letters, digits and `-`, e.g.
    `untrusted-content`, `secret-seen`) and `values` the result introduced
    that later calls may be steered to (addresses, URLs, hosts; at most 32,
    each at most 512 bytes of UTF-8). The host's limits, checked when the
    label is made: `ValueError` names what is wrong.
    """

    name: str
    values: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", tuple(self.values))
        if not _LABEL_NAME.fullmatch(self.name):
            raise ValueError(
                f"label {self.name[:MAX_LABEL_NAME]!r}: a label's name is 1-{MAX_LABEL_NAME} lowercase ASCII "
                "letters, digits and `-`"
            )
        if len(self.values) > MAX_LABEL_VALUES:
            raise ValueError(f"label `{self.name}`: {len(self.values)} values, over {MAX_LABEL_VALUES}")
        for i, value in enumerate(self.values):
            if not isinstance(value, str):
                raise ValueError(f"label `{self.name}`: values[{i}] is {type(value).__name__}, not a string")
            if len(value.encode("utf-8", "surrogatepass")) > MAX_LABEL_VALUE:
                raise ValueError(f"label `{self.name}`: values[{i}] is over {MAX_LABEL_VALUE} bytes of UTF-8")


@dataclass(frozen=True)
class RunLabel:
    """A label raised earlier in the run (`Context.labels`): `name`,
    `values`, and where: `call_id` (may be empty), `tool` and `check` (the
    policy's name of the check that raised it)."""

    name: str
    values: tuple[str, ...] = ()
    call_id: str = ""
    tool: str = ""
    check: str = ""


@dataclass(frozen=True)
class ResultSummary:
    """What became of an earlier call's result (`PriorCall.returned`):
    `outcome` (`passed`, `redacted` or `withheld`) and the `labels` its result
    checks raised. The host does not fill it in yet, so it is None for now."""

    outcome: str
    labels: tuple[Label, ...] = ()


class PriorCall(_Arguments):
    """An earlier call of the same run: `name`, `arguments` (JSON text, read
    with `.json` / `.get` / `.args` like a `ToolCall`), `outcome`, and
    `returned` (a `ResultSummary` when its result was vetted, else None;
    always None in a check built for contract 0.1)."""

    def __init__(
        self,
        name: str,
        arguments: str = "{}",
        outcome: Outcome = Outcome.ALLOWED,
        returned: Optional[ResultSummary] = None,
    ) -> None:
        self.name = name
        self.arguments = arguments
        self.outcome = outcome
        self.returned = returned
        self._parsed = None

    @property
    def ran(self) -> bool:
        """Whether this call went on to run (allowed, or approved by a person)."""
        return self.outcome.ran

    def __repr__(self) -> str:
        return f"PriorCall(name={self.name!r}, arguments={self.arguments!r}, outcome={self.outcome})"


@dataclass
class Context:
    """The run a call belongs to.

    - `agent`, `run_id`, `principal`: as given by the caller, or None.
    - `history`: earlier calls of the run, oldest first (capped by the host).
    - `attributes`: key/value pairs such as `("cwd", "/home/alice")`.
    - `labels`: every label raised in the run so far (`RunLabel`), oldest
      first; always empty in a check built for contract 0.1. The host keeps
      them: a caller can neither add nor remove one.
    """

    agent: Optional[str] = None
    run_id: Optional[str] = None
    principal: Optional[str] = None
    history: list[PriorCall] = field(default_factory=list)
    attributes: list[tuple[str, str]] = field(default_factory=list)
    labels: list[RunLabel] = field(default_factory=list)

    def has_label(self, name: str) -> bool:
        """Whether a label `name` was raised in the run, e.g.
        `ctx.has_label("untrusted-content")`."""
        return any(label.name == name for label in self.labels)

    def label_values(self, name: str) -> list[str]:
        """The values of every label `name` raised in the run, oldest first,
        without repeats."""
        out: list[str] = []
        for label in self.labels:
            if label.name == name:
                out.extend(v for v in label.values if v not in out)
        return out

    def attribute(self, key: str) -> Optional[str]:
        """The value of attribute `key` (first match), e.g. `ctx.attribute("cwd")`."""
        for k, v in self.attributes:
            if k == key:
                return v
        return None


@dataclass
class PluginInfo:
    """What a plugin says about itself (the WIT `plugin-info`).

    Besides its tool-name globs, a check of contract 0.2 applies to any call
    with a value of one of its `roles` or one of its `effects` (names as
    `ROLES` and `EFFECTS` list them), whatever the tool is called.
    """

    name: str
    version: str
    description: str
    tools: list[str] = field(default_factory=lambda: ["*"])
    roles: list[str] = field(default_factory=list)
    effects: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        for kind, names, known in (("roles", self.roles, ROLES), ("effects", self.effects, EFFECTS)):
            for n in names:
                if n not in known:
                    raise ValueError(
                        f"check `{self.name}`: `{kind}` names `{n}`, which is not one of: {', '.join(known)}"
                    )
