"""toolvet's exceptions. Their messages are the ones the ``toolvet`` CLI prints."""

from __future__ import annotations


class Error(Exception):
    """Base class of toolvet's errors."""

    #: A short machine-readable kind (``config``, ``not-found``, ...), or None.
    kind: str | None = None


class PolicyError(Error):
    """The policy cannot be loaded: the file, a check, the engine, the ledger.

    ``kind`` is ``config``, ``load``, ``engine``, ``approvals`` or ``decision-log``.
    """


class CallError(Error, ValueError):
    """A tool call that cannot be vetted: not JSON, or a shape the host refuses.

    The message names the key (``call.arguments``, ``context.history[2]``).
    """


class ApprovalError(Error):
    """An approvals operation failed.

    ``kind`` is ``not-found``, ``already-decided``, ``expired``,
    ``invalid-review``, ``invalid-query``, ``ledger``, ``key`` or ``disabled``.
    """


__all__ = ["Error", "PolicyError", "CallError", "ApprovalError"]
