"""The `Check` base class and `export`, which makes it a component."""

from __future__ import annotations

import dataclasses
import json
import sys
from typing import TYPE_CHECKING, Any, ClassVar, Sequence

from ._decision import Decision
from ._decode import DecodeError, decode, loads
from ._input import control_character
from ._model import Context, PluginInfo, ToolCall, ToolInfo

if TYPE_CHECKING:
    from ._result import ResultDecision, ToolResult

__all__ = ["Check", "NoSettings", "SettingsError", "WARM_UP_TEXT", "export", "vet", "warm_up_with"]


class SettingsError(ValueError):
    """Invalid settings. The message names the offending key, e.g.
    `settings.limits.USD.hard: must be at least soft (100)`; the host shows it
    when it refuses to load the check."""


@dataclasses.dataclass
class NoSettings:
    """The settings of a check that takes none: any key is an error."""


class Check:
    """Base class of a check written in Python.

    A subclass sets the class attributes `name`, `version`, `description`,
    `tools` (default tool-name globs) and `Settings` (a dataclass describing
    the `[check.settings]` table; default `NoSettings`), and implements
    `check(call, tool, ctx)`, returning `allow()`, `abstain()`,
    `deny(rule, message)` or `escalate(rule, message)`.

    The host builds one instance per component instance from its settings:
    the JSON object is decoded into `Settings` (unknown keys and wrong types
    are errors naming the key) and passed to `__init__`, which stores it as
    `self.settings`. Override `__init__` to validate or precompute (compile
    regexes, normalise lists) and raise `SettingsError` naming the key when a
    value is unacceptable.

        @dataclass
        class Settings:
            blocked_words: list[str] = field(default_factory=list)

        class NoBadWords(Check):
            name = "no-bad-words"
            description = "Denies calls whose arguments contain blocked words"
            Settings = Settings

            def check(self, call, tool, ctx):
                for word in self.settings.blocked_words:
                    if word in call.arguments:
                        return deny("words.blocked", f"the arguments contain `{word}`")
                return allow()

        Check = export(NoBadWords)   # at the end of the app module
    """

    name: ClassVar[str] = ""
    version: ClassVar[str] = "0.1.0"
    description: ClassVar[str] = ""
    tools: ClassVar[Sequence[str]] = ("*",)
    roles: ClassVar[Sequence[str]] = ()
    """Argument roles (`ROLES`) that route a call to the check whatever its
    tool is called (contract 0.2), besides `tools`."""
    effects: ClassVar[Sequence[str]] = ()
    """Effect classes (`EFFECTS`) that route a call to the check whatever
    its tool is called (contract 0.2), besides `tools`."""
    Settings: ClassVar[type] = NoSettings

    def __init__(self, settings: Any) -> None:
        self.settings = settings

    def check(self, call: ToolCall, tool: ToolInfo, ctx: Context) -> Decision:
        """Vet one tool call. Exceptions are logged through the host and make
        the call trap, so the host applies the check's `on_error`."""
        raise NotImplementedError(f"{type(self).__name__}.check")

    def check_result(self, call: ToolCall, tool: ToolInfo, ctx: Context, result: "ToolResult") -> "ResultDecision":
        """Vet what a tool returned for `call` (contract 0.2): return
        `allow_result()`, `abstain_result()`, `withhold(rule, message)` or
        `redact(masks)`, each with optional `labels=[Label(...)]` for the
        rest of the run. Optional: a check that defines it binds it at the end
        of the app module with `Check = ResultCheck = export(MyCheck)`, and
        the component then exports `result-check`. The host calls it only for
        calls this check applies to, after they ran. An exception (or an
        answer the host would refuse, `ResultError`) is logged through the
        host and makes the call trap, so the host applies the check's
        `on_error`: the result is withheld unless it is `allow`."""
        raise NotImplementedError(f"{type(self).__name__}.check_result")

    @classmethod
    def vets_results(cls) -> bool:
        """Whether the check defines `check_result`."""
        return cls.check_result is not Check.check_result

    def warm_up(self) -> None:
        """Called once at the end of `configure`, before the host snapshots
        the configured instance: vet a few typical calls here (usually with
        `warm_up_with`) so that what the first call of every fresh instance
        would build (`fnmatch`'s and `re`'s pattern caches, `decimal`
        contexts, lazily filled tables) is built once and kept in the
        snapshot. Derive it from the settings and constants only; a warm-up
        never sees a real call. An exception fails `configure`, and so the
        load, naming the check. Default: nothing."""

    @classmethod
    def info(cls) -> PluginInfo:
        """Name, version, description, default tool globs, and the roles and
        effects that also route calls to the check. Raises `ValueError` for
        a role or effect the contract does not know."""
        return PluginInfo(
            cls.name, cls.version, cls.description, list(cls.tools), list(cls.roles), list(cls.effects)
        )

    @classmethod
    def from_settings_json(cls, text: str) -> "Check":
        """Build the check from settings JSON text, as the host's `configure`
        does (empty text counts as `{}`).

        Raises `SettingsError` naming the offending key, e.g.
        `settings.max_recipients: expected an integer, got string "ten"`.
        """
        text = text.strip() or "{}"
        try:
            parsed = loads(text)
        except ValueError as e:
            raise SettingsError(f"settings: not valid JSON: {e}") from None
        if not isinstance(parsed, dict):
            raise SettingsError("settings: expected a JSON object")
        try:
            settings = decode(parsed, cls.Settings, "settings")
        except DecodeError as e:
            raise SettingsError(str(e)) from None
        return cls(settings)


# About 1 KB of the ordinary text an agent's arguments carry (prose, numbers,
# paths, URLs, an e-mail address, log lines and JSON), for warm-up calls of
# checks that scan text.
WARM_UP_TEXT = (
    "Weekly report for the platform team, 2024-06-14.\n"
    "Shipped: the billing export (PR #1842) and the migration of 12 services to "
    "the v2 API. The p99 latency of /api/orders fell from 840 ms to 310 ms.\n"
    "Open: src/jobs/reconcile.py fails weekly with `TimeoutError: read timed out "
    "(30.0s)`; see https://github.com/example/app/issues/311 and "
    "https://grafana.example.com/d/abc123/orders?orgId=1.\n"
    "Questions to ops@example.com. Thanks to Dana, Lee and Sam (caf\u00e9 on us)!\n"
    "2024-06-14T09:12:07Z WARN slow query: 1.84s SELECT * FROM orders WHERE status = 'open'\n"
    '{"id": 9182, "name": "Quarterly plan", "tags": ["q3", "planning"], "done": false}\n'
)


def warm_up_with(check: Check, calls: Sequence[tuple[str, Any]]) -> None:
    """The usual body of `Check.warm_up`: vet each `(tool, arguments)` call
    (arguments: a JSON-serialisable object) twice, with no context and as a
    coding agent's call (attribute `cwd` = `/home/alice/project`), and drop
    the decisions. An exception from `check` propagates: a check that
    crashes on a sample call would crash on a real one."""
    agent = Context(agent="coder", run_id="warm-up", attributes=[("cwd", "/home/alice/project")])
    for ctx in (Context(), agent):
        for tool, arguments in calls:
            check.check(ToolCall(tool, json.dumps(arguments)), ToolInfo(), ctx)


def vet(check: Check, call: ToolCall, tool: ToolInfo, ctx: Context) -> Decision:
    """What the component answers about `call`: the kit's deny (rule
    `input.control-character`) when the call holds a control character other
    than tab and newline (a carriage return only in a CRLF line end), else
    `check.check(call, tool, ctx)`. The component calls this, so no check
    can skip the rule; unit tests call it to see what the host sees."""
    refused = control_character(call, ctx)
    if refused is not None:
        return refused
    return check.check(call, tool, ctx)


def export(cls: type[Check]) -> type:
    """Make `cls` the component's implementation of the `toolvet:check/check`
    interface. Use once, at the end of the app module, binding the result to
    the module-level name `Check` (the name componentize-py looks for):

        Check = export(SpendGuard)

    A check with `check_result` also binds the same class to
    `ResultCheck`, the name componentize-py looks for the `result-check`
    interface under (and `toolvet build` builds the `result-plugin` world of
    contract 0.2 for a module that binds it):

        Check = ResultCheck = export(ResultGuard)

    Validates the class and builds it once from `{}` so that a check whose
    default settings are invalid fails the build, not the host. Natively
    (unit tests) there is nothing to export and `cls` is returned as is.
    """
    if not (isinstance(cls, type) and issubclass(cls, Check)):
        raise TypeError("export() takes a subclass of toolvet_check.Check")
    if not cls.name:
        raise TypeError(f"{cls.__name__}.name must be set (e.g. 'spend-guard')")
    if cls.check is Check.check:
        raise TypeError(f"{cls.__name__} must implement check(self, call, tool, ctx)")
    if not (dataclasses.is_dataclass(cls.Settings) and isinstance(cls.Settings, type)):
        raise TypeError(f"{cls.__name__}.Settings must be a dataclass")
    cls.from_settings_json("{}")
    if sys.platform != "wasi":
        return cls
    from ._component import make_export  # pragma: no cover - only inside a component

    return make_export(cls)  # pragma: no cover
