"""Log through the host (`toolvet:check/host.log`).

Inside a component the line goes to the host, which files it under the
check's name and caps the bytes logged per call. Natively (unit tests) it
goes to stderr as `[level] message`.

    from toolvet_check import log
    log.info("3 recipients, 1 external")
"""

from __future__ import annotations

import sys

__all__ = ["debug", "info", "warn", "error"]

if sys.platform == "wasi":  # pragma: no cover - only inside a component
    # Imported at module load: componentize-py snapshots the interpreter
    # after importing the app, and modules cannot be imported later.
    from wit_world.imports import host as _host

    _LEVELS = {
        "debug": _host.Level.DEBUG,
        "info": _host.Level.INFO,
        "warn": _host.Level.WARN,
        "error": _host.Level.ERROR,
    }

    def _write(level: str, message: str) -> None:
        _host.log(_LEVELS[level], message)

else:

    def _write(level: str, message: str) -> None:
        print(f"[{level}] {message}", file=sys.stderr)


def debug(message: str) -> None:
    """Log `message` at debug level."""
    _write("debug", message)


def info(message: str) -> None:
    """Log `message` at info level."""
    _write("info", message)


def warn(message: str) -> None:
    """Log `message` at warn level."""
    _write("warn", message)


def error(message: str) -> None:
    """Log `message` at error level."""
    _write("error", message)
