"""The kit's view of what the host hands a check (the WIT `types` interface).

These are plain Python classes, independent of the generated component
bindings, so a check's logic runs and is unit tested with ordinary CPython.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Optional, TypeVar

from ._decode import DecodeError, decode, loads

__all__ = ["ArgumentsError", "ToolCall", "ToolInfo", "Outcome", "PriorCall", "Context", "PluginInfo"]

T = TypeVar("T")


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


@dataclass
class ToolInfo:
    """What the agent's owner declared about the tool (all optional).

    - `description`: free text.
    - `risk`: `low`, `medium` or `high` by convention.
    - `requires_approval`: the owner asked for a person to approve every call.
    - `tags`: free-form labels such as `network`.
    - `parameters_schema`: the parameters' JSON Schema, as text.
    """

    description: Optional[str] = None
    risk: Optional[str] = None
    requires_approval: bool = False
    tags: list[str] = field(default_factory=list)
    parameters_schema: Optional[str] = None


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


class PriorCall(_Arguments):
    """An earlier call of the same run: `name`, `arguments` (JSON text, read
    with `.json` / `.get` / `.args` like a `ToolCall`) and `outcome`."""

    def __init__(self, name: str, arguments: str = "{}", outcome: Outcome = Outcome.ALLOWED) -> None:
        self.name = name
        self.arguments = arguments
        self.outcome = outcome
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
    """

    agent: Optional[str] = None
    run_id: Optional[str] = None
    principal: Optional[str] = None
    history: list[PriorCall] = field(default_factory=list)
    attributes: list[tuple[str, str]] = field(default_factory=list)

    def attribute(self, key: str) -> Optional[str]:
        """The value of attribute `key` (first match), e.g. `ctx.attribute("cwd")`."""
        for k, v in self.attributes:
            if k == key:
                return v
        return None


@dataclass
class PluginInfo:
    """What a plugin says about itself (the WIT `plugin-info`)."""

    name: str
    version: str
    description: str
    tools: list[str] = field(default_factory=lambda: ["*"])
