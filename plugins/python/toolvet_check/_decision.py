"""Decisions: one check's answer about one call (the WIT `decision`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

__all__ = ["Decision", "allow", "abstain", "deny", "escalate", "strongest"]

_SEVERITY = {"abstain": 0, "allow": 1, "escalate": 2, "deny": 3}


@dataclass(frozen=True)
class Decision:
    """One check's answer about one call.

    - `kind`: `"allow"`, `"abstain"`, `"deny"` or `"escalate"`.
    - `rule`: for deny/escalate, a stable rule id such as `spend.run-limit`.
    - `message`: for deny/escalate, the reason shown to the model (deny) or
      to the approving person (escalate): say what is wrong and what would
      be acceptable, and never echo a secret.

    Build decisions with `allow()`, `abstain()`, `deny(rule, message)` and
    `escalate(rule, message)`.
    """

    kind: str
    rule: Optional[str] = None
    message: Optional[str] = None

    def __post_init__(self) -> None:
        if self.kind not in _SEVERITY:
            raise ValueError(f"unknown decision kind {self.kind!r}")
        if self.kind in ("deny", "escalate"):
            if not self.message:
                raise ValueError(f"a {self.kind} decision needs a message")
        elif self.rule is not None or self.message is not None:
            raise ValueError(f"an {self.kind} decision carries no rule or message")

    @property
    def severity(self) -> int:
        """Order used to keep the strongest finding:
        abstain (0) < allow (1) < escalate (2) < deny (3)."""
        return _SEVERITY[self.kind]

    def max(self, other: "Decision") -> "Decision":
        """The more severe of `self` and `other` (`self` on a tie)."""
        return other if other.severity > self.severity else self

    def __str__(self) -> str:
        if self.rule or self.message:
            return f"{self.kind} [{self.rule}] {self.message}"
        return self.kind


_ALLOW = Decision("allow")
_ABSTAIN = Decision("abstain")


def allow() -> Decision:
    """The call may run as far as this check is concerned."""
    return _ALLOW


def abstain() -> Decision:
    """This check has no opinion on the call (e.g. it does not apply)."""
    return _ABSTAIN


def deny(rule: str, message: str) -> Decision:
    """The call must not run. `rule` is a stable id (`<short>.<rule>`),
    `message` tells the model what is wrong and what would be acceptable."""
    return Decision("deny", rule, message)


def escalate(rule: str, message: str) -> Decision:
    """A person must approve the call first. `message` tells the approver
    what to look at."""
    return Decision("escalate", rule, message)


def strongest(*decisions: Decision) -> Decision:
    """The most severe of `decisions` (the first on a tie); `abstain()` when
    none are given."""
    result = _ABSTAIN
    for d in decisions:
        result = result.max(d)
    return result
