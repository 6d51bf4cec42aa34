"""What every framework adapter shares: asking the host, failing closed,
remembering plain verdicts per (run, call id), and settling approvals on resume.

An adapter turns a framework's tool call into :meth:`Gate.check`, and maps the
:class:`Ruling` it gets onto the framework's own allow / deny / pause. When the
framework resumes a paused call with a person's answer, the adapter calls
:meth:`Gate.resume` (an approval) or :meth:`Gate.reject` (a rejection).

The rule every adapter follows, in Python and in Node: a call toolvet holds for
a person runs only when both say yes, the framework's own approval flow and
toolvet's ledger, and it runs once.

- An approval is honoured only by resuming the call with its ticket through the
  host, which consumes the ledger's single-use approval. Nothing in this process
  turns an approval into an allow: the gate never remembers an allow that used an
  approval, so a run resumed twice (a ``RunState`` resumed again, a LangGraph
  checkpoint replayed, the same ``DeferredToolResults`` sent twice) is asked
  about afresh, and the ledger refuses the second run (``approval.replayed``),
  as it does in a fresh process.
- A framework's rejection never runs the call and never spends toolvet's
  approval: it is recorded in the ledger when the request still waits (the first
  decision stands), the ticket is not used, and the model reads the rejection
  (``<reviewer> rejected this call: <message>``).

Frameworks re-run their hooks on resume (LangGraph replays the node, PydanticAI,
ADK and Agent Framework re-enter the hook, OpenAI re-runs guardrails). Asking
the host again about a held call is safe: it answers with the same request and
ticket. The gate remembers only denies and allows that involved no approval, so
a replayed hook gets the same answer without asking the checks again.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import logging
import os
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, Optional

import toolvet

#: What the model reads before a deny's reason.
DENY_PREFIX = "Blocked by policy: "

#: Who withdraws the approval request a decision-tool question opened
#: (:meth:`Gate.preview`, with a host that cannot preview).
PREVIEW_REVIEWER = "toolvet-preview"

#: The decision tool's name and description (``as_*_tool`` in each adapter).
DECISION_TOOL_NAME = "toolvet_check"
DECISION_TOOL_DESCRIPTION = (
    "Ask the tool-call policy whether a proposed tool call would be allowed before making it. "
    "Give the tool's name and its arguments. The answer's status is allow, deny (answer says why) "
    "or escalate (a person must approve the call first)."
)


# Characters `visible` writes out, besides the C0/C1 controls: the line and
# paragraph separators, bidirectional controls, and invisible characters
# (the same set as toolvet::display::needs_escape in the Rust core).
_HIDDEN_RANGES = (
    (0x2028, 0x2029),
    (0x061C, 0x061C),
    (0x200E, 0x200F),
    (0x202A, 0x202E),
    (0x2066, 0x2069),
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200D),
    (0x2060, 0x2064),
    (0x206A, 0x206F),
    (0x3164, 0x3164),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF9, 0xFFFB),
    (0xFE00, 0xFE0F),
    (0xE0000, 0xE007F),
    (0xE0100, 0xE01EF),
)


def _needs_escape(c: str) -> bool:
    o = ord(c)
    if o < 0x20 or 0x7F <= o <= 0x9F:
        return True
    return any(lo <= o <= hi for lo, hi in _HIDDEN_RANGES)


def visible(text: Any) -> str:
    """``text`` as a person may be shown it: toolvet's one escaping rule for
    reviewer-facing text (``toolvet::display::visible`` in the core, SECURITY.md).
    Control characters, the line and paragraph separators, bidirectional controls
    and invisible characters (zero-width, variation selectors, tag characters, ...)
    are written out (``\\n``, ``\\x1b``, ``\\u{202e}``), so a reason or
    argument that quotes the model's text cannot start a line, reorder or hide
    what the reviewer reads. Everything else is unchanged. Every text an adapter
    puts in front of a person goes through it."""
    text = "" if text is None else str(text)
    if not any(_needs_escape(c) for c in text):
        return text
    out = []
    for c in text:
        if c == "\n":
            out.append("\\n")
        elif c == "\r":
            out.append("\\r")
        elif c == "\t":
            out.append("\\t")
        elif _needs_escape(c):
            o = ord(c)
            out.append(f"\\x{o:02x}" if o < 0x100 else f"\\u{{{o:x}}}")
        else:
            out.append(c)
    return "".join(out)


@dataclasses.dataclass(frozen=True)
class Ruling:
    """What an adapter does with one call: ``allow``, ``deny`` or ``escalate``.

    ``reason`` is what the model (deny) or the reviewer (escalate) reads.
    ``verdict`` is the host's verdict (None when the host failed: that is a
    deny). An escalate always carries an ``approval_id`` and a ``ticket``.
    """

    decision: str
    reason: str
    rule: Optional[str] = None
    verdict: Optional[toolvet.Verdict] = None
    approval_id: Optional[str] = None
    ticket: Optional[str] = None

    @property
    def allowed(self) -> bool:
        return self.decision == "allow"

    @property
    def denied(self) -> bool:
        return self.decision == "deny"

    @property
    def escalated(self) -> bool:
        return self.decision == "escalate"

    @property
    def message(self) -> str:
        """What the model reads for a deny: ``Blocked by policy: <reason>``."""
        return DENY_PREFIX + self.reason

    @property
    def shown_reason(self) -> str:
        """``reason`` as a person is shown it (:func:`visible`): for approval prompts."""
        return visible(self.reason)

    def payload(self) -> dict[str, Any]:
        """The reviewer's view of an escalate (for a framework's approval request);
        every text in it is :func:`visible`."""
        return {
            "reason": self.shown_reason,
            "rule": None if self.rule is None else visible(self.rule),
            "approval_id": None if self.approval_id is None else visible(self.approval_id),
        }


#: What the model reads in place of a withheld result, before the reason.
WITHHELD_PREFIX = "The tool's result was withheld by toolvet: "


@dataclasses.dataclass(frozen=True)
class ResultRuling:
    """What an adapter does with what a tool returned: ``pass`` (the model reads
    it unchanged), ``redact`` (it reads ``content``: the result with parts masked)
    or ``withhold`` (it reads :attr:`message`, never the result).

    ``content`` is the result on pass (the very object the tool returned), the
    masked text or JSON value on redact, None on withhold. ``verdict`` is the
    host's :class:`toolvet.ResultVerdict` (None when the host was not asked, or
    failed: that is a withhold)."""

    action: str
    content: Any = None
    reason: str = ""
    rule: Optional[str] = None
    verdict: Optional[Any] = None

    @property
    def passed(self) -> bool:
        return self.action == "pass"

    @property
    def redacted(self) -> bool:
        return self.action == "redact"

    @property
    def withheld(self) -> bool:
        return self.action == "withhold"

    @property
    def output(self) -> Any:
        """What the model reads in place of the result: the result itself (pass),
        the masked content (redact) or :attr:`message` (withhold)."""
        return self.message if self.withheld else self.content

    @property
    def message(self) -> str:
        """What the model reads for a withheld result:
        ``The tool's result was withheld by toolvet: <reason>``."""
        return WITHHELD_PREFIX + (self.reason or "withheld by policy")


def result_failure(error: BaseException) -> ResultRuling:
    """The ruling when vetting a result failed: a withhold, never a pass. The
    model reads it, so only the error's type is named; the error goes to the log
    (it may quote the result)."""
    logging.getLogger("toolvet").warning("a tool's result could not be vetted: %s", error)
    return ResultRuling(
        "withhold",
        reason=f"toolvet could not vet this result ({type(error).__name__}), so it is withheld",
        rule="toolvet.host-error",
    )


def result_content(value: Any) -> Any:
    """What a tool returned as toolvet vets it: a ``str`` is text; plain JSON
    values (dicts, lists, numbers, pydantic models, ...: the rule of
    :func:`plain_arguments`) are JSON; an object of a class with its own
    ``__str__`` is vetted as that text, the form a framework shows it to the
    model in. Anything else (a container holding such objects, an object whose
    text is only ``<… object at 0x…>``) raises :class:`toolvet.CallError`: its
    text would hide what the model may read, so the result is withheld rather
    than passed unread."""
    if type(value) is str:
        return value
    try:
        return _plain(value, "the result", 0, [MAX_ARGUMENT_VALUES])
    except toolvet.CallError:
        kind = type(value)
        if kind.__str__ is not object.__str__ and not isinstance(value, (list, tuple, dict, set, frozenset)):
            return str(value)
        raise toolvet.CallError(
            f"toolvet cannot read a result of type {visible(kind.__name__)} (not text, JSON or an object "
            "with its own text)"
        ) from None


def host_failure(error: BaseException) -> Ruling:
    """The ruling when asking the host failed: a deny, never an allow."""
    if isinstance(error, toolvet.CallError):
        return Ruling("deny", f"the call cannot be vetted: {error}", rule=INVALID_CALL_RULE)
    return Ruling(
        "deny",
        f"the tool-call policy could not vet this call ({type(error).__name__}: {error}), so it may not run",
        rule="toolvet.host-error",
    )


#: How deep a call's arguments may nest (objects and arrays within one another),
#: and how many values they may hold, before :func:`plain_arguments` refuses them.
MAX_ARGUMENT_DEPTH = 128
MAX_ARGUMENT_VALUES = 1_000_000

_PLAIN_BASES = (bool, str, int, float, list, tuple, dict, bytes, bytearray)


def plain_arguments(arguments: Any) -> dict[str, Any]:
    """A framework's tool arguments as a new JSON object of plain values: a dict,
    JSON text, or a pydantic model. Raises :class:`toolvet.CallError` for anything
    else. The one rule for what toolvet vets, and what an adapter that calls the
    tool itself hands the tool (:func:`vet_call`). JSON text with a key twice
    in one object is refused (as the hooks and the core's strict reader refuse
    it), never read last-wins.

    The copy is made in one walk and holds only values of the exact built-in
    JSON types (``dict`` with ``str`` keys, ``list``, ``str``, ``int``,
    ``float``, ``bool``, ``None``; a tuple becomes a list), which no later read
    can make answer differently. A subclass of one of them is refused, not
    converted: a ``list`` whose ``__iter__``, or a ``str`` whose ``__str__`` or
    ``__format__``, answers one way when vetted and another when the tool reads
    it (code an agent runs, such as smolagents' ``CodeAgent``, can define one)
    would make what runs differ from what was vetted. An enum member is its
    value, a pydantic model its ``model_dump(mode="json")``, a dataclass its
    fields: each read once, the result walked by the same rule."""
    if arguments is None:
        return {}
    kind = type(arguments)
    if kind is str or kind is bytes or kind is bytearray:
        try:
            arguments = json.loads(arguments or "{}", object_pairs_hook=_unique_keys)
        except _DuplicateKey as e:
            raise toolvet.CallError(
                f"invalid tool call: the arguments' JSON text has the key {visible(json.dumps(e.key))} twice in one "
                "object; toolvet refuses it, since the tool's reader may take the copy the checks did not see"
            ) from None
        except ValueError as e:
            raise toolvet.CallError(f"invalid tool call: the arguments are not JSON: {e}") from None
    budget = [MAX_ARGUMENT_VALUES]
    plain = _plain(arguments, "the arguments object", 0, budget)
    if type(plain) is not dict:
        raise toolvet.CallError(
            f"invalid tool call: `call.arguments` must be a JSON object, got {type(plain).__name__}"
        )
    return plain


class _DuplicateKey(ValueError):
    """A key twice in one object of JSON text (see :func:`_unique_keys`)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``'s ``object_pairs_hook``: the object, or :class:`_DuplicateKey`
    for a key that appears twice (the core's strict reader refuses it too,
    ``toolvet::strict_json::parse_json_strict``; ``json.loads`` alone keeps the last copy)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _plain(value: Any, where: str, depth: int, budget: list[int]) -> Any:
    """``value`` as plain JSON (see :func:`plain_arguments`): exact types only,
    each container read once."""
    budget[0] -= 1
    if budget[0] < 0:
        raise toolvet.CallError(f"invalid tool call: the arguments hold more than {MAX_ARGUMENT_VALUES} values")
    kind = type(value)
    if value is None or kind is str or kind is bool or kind is int or kind is float:
        return value
    if depth >= MAX_ARGUMENT_DEPTH:
        raise toolvet.CallError(f"invalid tool call: {where} nests deeper than {MAX_ARGUMENT_DEPTH} levels")
    if kind is dict:
        out = {}
        for key, item in dict.items(value):
            if type(key) is not str:
                raise toolvet.CallError(
                    f"invalid tool call: {where} has a key of type {visible(type(key).__name__)}; "
                    "the keys of a JSON object are plain strings"
                )
            out[key] = _plain(item, _member(where, key, depth), depth + 1, budget)
        return out
    if kind is list or kind is tuple:
        return [_plain(item, f"{where}[{i}]", depth + 1, budget) for i, item in enumerate(value)]
    if issubclass(kind, enum.Enum):
        return _plain(value._value_, where, depth + 1, budget)
    base = next((b for b in _PLAIN_BASES if kind is not b and issubclass(kind, b)), None)
    if base is not None:
        raise toolvet.CallError(
            f"invalid tool call: {where} is a {visible(kind.__name__)}, a subclass of {base.__name__}: toolvet "
            f"vets, and the tool gets, only plain JSON values of the built-in types, since a subclass can read "
            f"one way when vetted and another when the tool uses it; pass a plain {base.__name__}"
        )
    if hasattr(value, "model_dump"):
        return _plain(value.model_dump(mode="json"), where, depth + 1, budget)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _plain(dataclasses.asdict(value), where, depth + 1, budget)
    raise toolvet.CallError(f"invalid tool call: the arguments are not JSON: {where} is a {visible(kind.__name__)}")


def _member(where: str, key: str, depth: int) -> str:
    if depth == 0:
        return f"`{visible(key)}`"
    return f"{where}[{visible(json.dumps(key))}]"


def _fingerprint(name: str, arguments: Mapping[str, Any]) -> str:
    return name + "\0" + json.dumps(arguments, sort_keys=True, separators=(",", ":"), default=str)


#: The rule of the deny a gate gives when a run's history is full (the hooks'
#: and ``toolvet mcp``'s rule for the same refusal).
HISTORY_OVERFLOW_RULE = "toolvet.history-overflow"
#: Rule of a new run refused because the gate keeps ``max_runs`` runs and none has
#: been idle for :data:`RUN_IDLE_SECONDS` (the core's ``toolvet.too-many-runs``,
#: the rule ``toolvet serve`` follows: a busy run is never forgotten).
TOO_MANY_RUNS_RULE = "toolvet.too-many-runs"
#: How long a run must go unused before a new run may take its place when the
#: gate is full (the core's ``run_history::RUN_IDLE``, 10 minutes).
RUN_IDLE_SECONDS = 600.0

#: The rule of the deny for a call that cannot be vetted as given (not a JSON
#: object, keys that fold alike, ``NaN``, a key twice in its text, ...).
INVALID_CALL_RULE = "toolvet.invalid-call"

#: Rulings a gate never adds to a run's history (the Node package's ``Gate``
#: skips the same two): a full history, and a call refused as invalid, which
#: ran nothing and, kept, would make every later call of the run invalid.
UNRECORDED_RULES = frozenset({HISTORY_OVERFLOW_RULE, INVALID_CALL_RULE, TOO_MANY_RUNS_RULE})

#: Arguments at most this many bytes of JSON are kept whole in a run's history;
#: larger ones are elided (``toolvet.elided``), keeping their small values.
HISTORY_KEEP_WHOLE_BYTES = 4096

_ELIDED_KEY = "toolvet.elided"
_SMALL_VALUE_BYTES = 256


def _marker(text: str) -> str:
    digest = hashlib.sha256(text.encode()).hexdigest()
    return f"toolvet.elided: {len(text.encode())} bytes, sha256 {digest[:32]}"


def _history_arguments(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """``arguments`` as a run's history keeps them: whole when their JSON is at most
    :data:`HISTORY_KEEP_WHOLE_BYTES`; else every value over 256 bytes becomes the
    text ``toolvet.elided: N bytes, sha256 …`` (largest first, only as far as
    needed) and the object gets ``toolvet.elided: {"bytes", "sha256"}``, the core's
    markers (``history_fit``), so a payment's amount beside a large memo, or a
    write's path beside its content, stays readable; an object still too large
    keeps only the note."""
    text = json.dumps(arguments, separators=(",", ":"), ensure_ascii=False, default=str)
    size = len(text.encode())
    if size <= HISTORY_KEEP_WHOLE_BYTES:
        return json.loads(text)
    note = {"bytes": size, "sha256": hashlib.sha256(text.encode()).hexdigest()}
    kept = {k: v for k, v in json.loads(text).items() if k != _ELIDED_KEY}
    sizes = {k: len(json.dumps(v, separators=(",", ":"), ensure_ascii=False).encode()) for k, v in kept.items()}
    for key in sorted(sizes, key=lambda k: -sizes[k]):
        if len(json.dumps({**kept, _ELIDED_KEY: note}, ensure_ascii=False).encode()) <= HISTORY_KEEP_WHOLE_BYTES:
            break
        if sizes[key] > _SMALL_VALUE_BYTES:
            kept[key] = _marker(json.dumps(kept[key], separators=(",", ":"), ensure_ascii=False))
    shrunk = {**kept, _ELIDED_KEY: note}
    if len(json.dumps(shrunk, ensure_ascii=False).encode()) > HISTORY_KEEP_WHOLE_BYTES:
        return {_ELIDED_KEY: note}
    return shrunk


def _outcome(ruling: Ruling) -> str:
    """What happened to a call, for the run's history, from the ruling this gate
    gave (never from the tool's output): ``allowed``, ``approved`` (allowed on a
    person's approval), ``escalated``, ``rejected`` or ``denied``."""
    rule = ruling.rule or ""
    if ruling.allowed:
        used_approval = ruling.verdict is not None and ruling.verdict.approval is not None
        return "approved" if used_approval or rule.startswith("approval.") else "allowed"
    if ruling.escalated:
        return "escalated"
    return "rejected" if rule == "approval.rejected" else "denied"


#: The context attribute naming the directory a call's relative paths are
#: relative to (the shell and path checks read it, as from the hooks and
#: ``toolvet mcp``); the gate sets it to this process's working directory.
CWD_ATTRIBUTE = "cwd"


def _process_cwd() -> Optional[str]:
    """This process's working directory, or None when it has none (deleted,
    unreadable): then the checks judge relative paths as having no workspace
    (path-guard holds them)."""
    try:
        return os.getcwd()
    except OSError:
        return None


class Gate:
    """Asks a :class:`toolvet.Host` about framework tool calls and fails closed.

    ``agent``, ``principal`` and ``attributes`` go into every call's context;
    so does ``home``, the home directory of the user this process runs as
    (:func:`toolvet.user_home`: the core's rule, the one the hooks and ``toolvet
    mcp`` use), as the attribute :data:`toolvet.HOME_ATTRIBUTE` (``home``), so
    the shell and path checks know what ``~`` and ``$HOME`` stand for in a
    tool's arguments (the tools run in this process, as its user). Likewise
    ``cwd`` (:data:`CWD_ATTRIBUTE`), this process's working directory read at
    each call (the tools run here, so a relative path in a tool's arguments is
    relative to it; without it the shell check cannot place ``> .mcp.json`` or
    ``cd .. && … >> .bashrc`` onto the guard rails they reach). A ``home`` or
    ``cwd`` in ``attributes`` is kept as given; nothing in a call's arguments ever
    becomes an attribute. ``tools`` maps tool names to :class:`toolvet.Tool`
    declarations (or dicts); ``reviewer`` names who decided when a framework's
    approval answer does not say (it is recorded in the ledger and shown to the
    model on a rejection).

    The gate keeps each run's history (per ``run_id``; calls without one share the
    history of ``None``): every call it ruled on, with the outcome *it* decided
    (``allowed``, ``approved``, ``escalated``, ``rejected``, ``denied``; never read
    from a tool's output), handed to the checks as ``context.history`` so run
    limits, loop detection and ordering rules hold. A held call that is later
    approved or rejected takes that outcome in place, so it counts once. Large
    arguments are elided as the core does (``toolvet.elided``); nothing is dropped:
    a run with ``max_history`` calls (default 5000, the host's default ``[host]
    max_history``) gets a deny (``toolvet.history-overflow``) for every further
    call, as the hooks do. At most ``max_runs`` runs are kept: when the gate is
    full, a new run takes the place of the least recently used run only if that
    one has been idle for :data:`RUN_IDLE_SECONDS`; otherwise the new run's call
    is denied (``toolvet.too-many-runs``), as ``toolvet serve`` does, because a
    forgotten busy run would restart its run totals (review s23 F8). At most
    ``cache_size`` held calls of :meth:`check_held` are kept.
    """

    def __init__(
        self,
        host: Any,
        *,
        agent: Optional[str] = None,
        principal: Optional[str] = None,
        attributes: Optional[Mapping[str, str]] = None,
        tools: Optional[Mapping[str, Any]] = None,
        reviewer: str = "reviewer",
        cache_size: int = 4096,
        max_history: int = 5000,
        max_runs: int = 1024,
    ) -> None:
        self.host = host
        self.agent = agent
        self.principal = principal
        self.attributes = dict(attributes or {})
        #: The ``home`` attribute of every call this gate asks about, when
        #: ``attributes`` names none: this process's user's home, read once
        #: here (``None`` when it has none the core's rule accepts).
        self.home: Optional[str] = toolvet.user_home()
        self.tools = dict(tools or {})
        self.reviewer = reviewer
        self._cache: OrderedDict[tuple[Optional[str], str], tuple[str, Ruling]] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()
        # Each run's calls as this gate ruled on them: run id -> [(key, entry)].
        self._runs: OrderedDict[Optional[str], list[tuple[str, dict[str, Any]]]] = OrderedDict()
        # When each kept run was last asked about (time.monotonic()).
        self._used: dict[Optional[str], float] = {}
        self._max_history = max(0, int(max_history))
        self._max_runs = max(1, int(max_runs))

    # -- asking ---------------------------------------------------------

    def _attributes(self) -> dict[str, str]:
        """Every call's context attributes: ``attributes`` and, unless they name
        them, ``home`` (the user's home directory) and ``cwd`` (this process's
        working directory now), see the class docs."""
        attributes = dict(self.attributes)
        if self.home is not None:
            attributes.setdefault(toolvet.HOME_ATTRIBUTE, self.home)
        if CWD_ATTRIBUTE not in attributes:
            cwd = _process_cwd()
            if cwd is not None:
                attributes[CWD_ATTRIBUTE] = cwd
        return attributes

    def _context(self, run_id: Optional[str], agent: Optional[str], history: Any) -> dict[str, Any]:
        context: dict[str, Any] = {"attributes": self._attributes()}
        if agent or self.agent:
            context["agent"] = agent or self.agent
        if run_id:
            context["run_id"] = run_id
        if self.principal:
            context["principal"] = self.principal
        if history:
            context["history"] = history
        return context

    def _ask(
        self,
        name: str,
        arguments: Any,
        call_id: str,
        run_id: Optional[str],
        agent: Optional[str],
        tool: Any,
        history: Any,
        ticket: Optional[str],
    ) -> Ruling:
        try:
            args = plain_arguments(arguments)
            if history is None:
                history = self.history(run_id)
                if len(history) >= self._max_history:
                    return self._overflow(len(history))
                refused = self._admit(run_id)
                if refused is not None:
                    return refused
            verdict = self.host.check(
                toolvet.Call(name, args, call_id or ""),
                tool if tool is not None else self.tools.get(name),
                self._context(run_id, agent, history),
                ticket=ticket,
            )
            return self._ruling(verdict)
        except Exception as e:  # noqa: BLE001 - any failure is a deny
            return host_failure(e)

    def _admit(self, run_id: Optional[str]) -> Optional[Ruling]:
        """Make room for run ``run_id`` (see the class docs): ``None`` when it is
        kept or there is room (forgetting the least recently used run when that
        one has been idle for :data:`RUN_IDLE_SECONDS`), else the deny."""
        now = time.monotonic()
        with self._lock:
            if run_id in self._runs:
                self._used[run_id] = now
                return None
            while len(self._runs) >= self._max_runs:
                oldest = min(self._runs, key=lambda run: self._used.get(run, float("-inf")))
                if now - self._used.get(oldest, float("-inf")) < RUN_IDLE_SECONDS:
                    return Ruling(
                        "deny",
                        f"this gate keeps the history of at most {self._max_runs} runs "
                        f"(`max_runs`), and none has been idle for {int(RUN_IDLE_SECONDS // 60)} "
                        "minutes; a new run is refused rather than forget a run's earlier calls "
                        "(its run totals would restart from zero)",
                        TOO_MANY_RUNS_RULE,
                    )
                del self._runs[oldest]
                self._used.pop(oldest, None)
            return None

    def _overflow(self, count: int) -> Ruling:
        return Ruling(
            "deny",
            f"this run's history holds {count} earlier calls, the gate's limit (`max_history` = "
            f"{self._max_history}); toolvet does not vet a call with earlier calls left out (run totals "
            "and what the run did would restart from zero), so the call is refused: start a new run "
            "or raise `max_history`",
            HISTORY_OVERFLOW_RULE,
        )

    # -- the run's history ---------------------------------------------

    def history(self, run_id: Optional[str]) -> list[dict[str, Any]]:
        """The calls of run ``run_id`` this gate ruled on, oldest first, as the
        checks see them (``name``, ``arguments``, ``outcome``): copies."""
        with self._lock:
            entries = self._runs.get(run_id)
            return [] if entries is None else [dict(entry) for _, entry in entries]

    def _note(self, run_id: Optional[str], key: str, name: str, arguments: Any, ruling: Ruling) -> None:
        """Add the call ruled on to its run's history, with the outcome this gate
        decided. A call whose newest entry under ``key`` (its call id with the call,
        or its tool and arguments) is ``escalated`` is the held call asked about
        again: it takes the new outcome in place (a held call later approved counts
        once) and adds nothing while still held. Any other ruling is one more
        attempt, added: a provider may reuse a call id for an identical call (review
        s15 N2), so an identical call under the same id is never taken for a
        replay. A full history's deny and an invalid call's
        (:data:`UNRECORDED_RULES`) add nothing."""
        if ruling.rule in UNRECORDED_RULES:
            return
        try:
            args = _history_arguments(plain_arguments(arguments))
        except Exception:  # noqa: BLE001 - not JSON: the host refused it, nothing ran
            return
        outcome = _outcome(ruling)
        with self._lock:
            entries = self._runs.get(run_id)
            if entries is None:
                # Room was made when the call was asked about (`_admit`).
                entries = self._runs[run_id] = []
            self._runs.move_to_end(run_id)
            self._used[run_id] = time.monotonic()
            for k, entry in reversed(entries):
                if k != key:
                    continue
                if entry["outcome"] == "escalated":
                    entry["outcome"] = outcome
                    return
                break
            entries.append((key, {"name": name, "arguments": args, "outcome": outcome}))

    @staticmethod
    def _ruling(verdict: Any) -> Ruling:
        decision = verdict.decision
        reason = verdict.reason or ""
        if decision == "allow":
            return Ruling("allow", reason, verdict.rule, verdict)
        if decision == "escalate":
            approval = verdict.approval
            if approval is None or not approval.ticket:
                return Ruling(
                    "deny",
                    "this call needs a person's approval, but the policy has no [approvals] table to ask "
                    f"one ({reason or 'no reason given'})",
                    verdict.rule,
                    verdict,
                )
            return Ruling(
                "escalate", reason or "a person must approve this call", verdict.rule, verdict, approval.id, approval.ticket
            )
        if decision == "deny":
            if verdict.rule == "approval.rejected":
                # The reviewer's words, which the model reads: escaped (a newline or
                # a bidi control in them must not read as another speaker's text).
                reason = visible(reason)
            return Ruling("deny", reason or "denied by policy", verdict.rule, verdict)
        return Ruling("deny", f"the policy answered an unknown decision {decision!r}", "toolvet.host-error", verdict)

    def check(
        self,
        name: str,
        arguments: Any,
        *,
        call_id: str = "",
        run_id: Optional[str] = None,
        agent: Optional[str] = None,
        tool: Any = None,
        history: Any = None,
    ) -> Ruling:
        """The ruling about one call at the point where its tool would run. Never
        raises: a failure is a deny.

        Each check is one attempt at the call, vetted with the run's history and
        added to it (see :meth:`history`); nothing is answered from memory, since
        a provider may reuse a call id for an identical call (review s15 N2). A
        held call asked about again gets the same request and ticket from the
        host, and a call whose approval was used a deny (``approval.replayed``).
        A framework that asks whether a call needs a person *before* that point
        uses :meth:`probe`.
        """
        return self._vet(name, arguments, call_id, run_id, agent, tool, history, every_ruling=True)

    def probe(
        self,
        name: str,
        arguments: Any,
        *,
        call_id: str = "",
        run_id: Optional[str] = None,
        agent: Optional[str] = None,
        tool: Any = None,
    ) -> Ruling:
        """The ruling about a call a framework asks about before the point where
        its tool would run, to learn whether it needs a person (OpenAI Agents'
        ``needs_approval``): the host is asked as :meth:`check` asks it (a held
        call's request is opened), but only a held call is added to the run's
        history (the run pauses on it); an allow or a deny is added by the
        :meth:`check` at the point where the tool runs, so a call counts once.
        Never raises: a failure is a deny."""
        return self._vet(name, arguments, call_id, run_id, agent, tool, None, every_ruling=False)

    def _vet(
        self,
        name: str,
        arguments: Any,
        call_id: str,
        run_id: Optional[str],
        agent: Optional[str],
        tool: Any,
        history: Any,
        *,
        every_ruling: bool,
    ) -> Ruling:
        """Ask the host about a call (without a ticket) and add the ruling to the
        run's history: every ruling, or (``every_ruling`` false) a held call only."""
        try:
            arguments = plain_arguments(arguments)  # once: every read below sees this copy
            fingerprint = self._asker(agent) + _fingerprint(name, arguments)
        except Exception as e:  # noqa: BLE001
            return host_failure(e)
        ruling = self._ask(name, arguments, call_id, run_id, agent, tool, history, None)
        if every_ruling or ruling.escalated:
            self._note(run_id, self._history_key(call_id, agent, fingerprint), name, arguments, ruling)
        return ruling

    # -- results --------------------------------------------------------

    def vets_results(self) -> bool:
        """Whether the host may vet results (``host.vets_results()``); when false
        an adapter hands every result on untouched, at no cost. A host without
        the method vets none; one whose answer fails is taken to vet them (the
        result is then withheld by :meth:`check_result`)."""
        vets = getattr(self.host, "vets_results", None)
        if vets is None:
            return False
        try:
            return bool(vets())
        except Exception:  # noqa: BLE001 - unknown: vet, and fail closed there
            return True

    def check_result(
        self,
        name: str,
        arguments: Any,
        result: Any,
        *,
        call_id: str = "",
        run_id: Optional[str] = None,
        agent: Optional[str] = None,
        tool: Any = None,
        is_error: bool = False,
    ) -> ResultRuling:
        """The ruling about what the call of ``name`` with ``arguments`` returned
        (``result``: text, a JSON value, or an object vetted as its text, see
        :func:`result_content`), after its tool ran. The call's context is the one
        :meth:`check` gave it (the same ``run_id`` and ``agent``, the run's history),
        so the labels the result raises are kept by the host for that run and its
        later calls are vetted with them. Never raises: a failure is a withhold.
        With a host that vets no results (:meth:`vets_results`) the result passes
        without asking."""
        if not self.vets_results():
            return ResultRuling("pass", result)
        try:
            args = plain_arguments(arguments)
            verdict = self.host.check_result(
                toolvet.Call(name, args, call_id or ""),
                toolvet.ToolResult(result_content(result), is_error=bool(is_error)),
                tool if tool is not None else self.tools.get(name),
                self._context(run_id, agent, self.history(run_id)),
            )
        except Exception as e:  # noqa: BLE001 - any failure is a withhold
            return result_failure(e)
        action = verdict.action
        if action == "pass":
            return ResultRuling("pass", result, rule=verdict.rule, verdict=verdict)
        if action == "redact":
            return ResultRuling("redact", verdict.content, rule=verdict.rule, verdict=verdict)
        if action == "withhold":
            return ResultRuling("withhold", None, verdict.reason or "withheld by policy", verdict.rule, verdict)
        return ResultRuling(
            "withhold", None, f"the policy answered an unknown action {action!r}", "toolvet.host-error", verdict
        )

    # -- resuming -------------------------------------------------------

    def resume(
        self,
        name: str,
        arguments: Any,
        *,
        approved: bool,
        call_id: str = "",
        run_id: Optional[str] = None,
        agent: Optional[str] = None,
        tool: Any = None,
        reviewer: Optional[str] = None,
        message: Optional[str] = None,
    ) -> Ruling:
        """The final ruling about an escalated call a person answered through the
        framework: ``approved`` or not, by ``reviewer``, with ``message`` (what the
        model reads on a rejection).

        An approval is recorded in the ledger unless it already holds a decision
        (the first decision stands), then the call is vetted again with its
        ticket: allowed once the ledger holds an approval, which this consumes.
        A second resume of the same call asks the host again and is refused
        (``approval.replayed``): an approval runs a call once, whatever the
        framework replays. A rejection is :meth:`reject`: the call never runs and
        toolvet's approval, if any, is not spent.
        """
        try:
            arguments = plain_arguments(arguments)  # once: every read below sees this copy
        except Exception as e:  # noqa: BLE001
            return host_failure(e)
        if not approved:
            return self.reject(
                name,
                arguments,
                call_id=call_id,
                run_id=run_id,
                agent=agent,
                tool=tool,
                reviewer=reviewer,
                message=message,
            )
        first = self.record(
            name,
            arguments,
            approved=True,
            call_id=call_id,
            run_id=run_id,
            agent=agent,
            tool=tool,
            reviewer=reviewer,
            message=message,
        )
        # Denied before a person was asked, allowed without one (the call is not
        # held now), already settled, or not recordable: the final ruling of this
        # attempt, which counts in the run like any other (review s16 P11).
        return self._settled(first, name, arguments, call_id, run_id, agent, tool)

    def settle(
        self,
        name: str,
        arguments: Any,
        *,
        call_id: str = "",
        run_id: Optional[str] = None,
        agent: Optional[str] = None,
        tool: Any = None,
    ) -> Ruling:
        """The ruling about an escalated call after a person may have decided it
        in toolvet's ledger (``toolvet approvals approve``, the reviewer page),
        for a framework that asks toolvet itself whether the hold is lifted
        (AGENT-HOOKS' approval seam). Records nothing in the ledger: the host is
        asked about the call again, and while it is held, again with its ticket.
        ``allow`` once the ledger holds an approval (this consumes it: a second
        settle is ``approval.replayed``), a deny when a reviewer rejected it (with
        their message) or it expired, the same ``escalate`` while it waits. The
        ruling counts in the run's history in place of the hold. Never raises."""
        try:
            arguments = plain_arguments(arguments)  # once: every read below sees this copy
        except Exception as e:  # noqa: BLE001
            return host_failure(e)
        first = self._ask(name, arguments, call_id, run_id, agent, tool, None, None)
        return self._settled(first, name, arguments, call_id, run_id, agent, tool)

    def _settled(
        self,
        first: Ruling,
        name: str,
        arguments: Any,
        call_id: str,
        run_id: Optional[str],
        agent: Optional[str],
        tool: Any,
    ) -> Ruling:
        """The final ruling of an attempt whose first answer was ``first``: a held
        call asked again with its ticket, anything else as it is; added to the
        run's history (:meth:`resume`, :meth:`settle`)."""
        final = first
        if first.escalated:
            final = self._ask(name, arguments, call_id, run_id, agent, tool, None, first.ticket)
        fingerprint = self._asker(agent) + _fingerprint(name, plain_arguments(arguments))
        self._note(run_id, self._history_key(call_id, agent, fingerprint), name, arguments, final)
        return final

    def reject(
        self,
        name: str,
        arguments: Any,
        *,
        call_id: str = "",
        run_id: Optional[str] = None,
        agent: Optional[str] = None,
        tool: Any = None,
        reviewer: Optional[str] = None,
        message: Optional[str] = None,
    ) -> Ruling:
        """The final ruling about a call a person rejected through the framework:
        always a deny, and the call's ticket is never used.

        While toolvet's request still waits, the rejection is recorded in the
        ledger (``reviewer``, ``message``). A request already approved in toolvet
        stays approved and unspent (the framework's no wins for this run of the
        call; the approval is not used). The model reads the framework's
        rejection, ``<reviewer> rejected this call[: <message>]`` (rule
        ``approval.rejected``), never toolvet's approval. Never raises.
        """
        who = reviewer or self.reviewer
        try:
            arguments = plain_arguments(arguments)  # once: every read below sees this copy
        except Exception:  # noqa: BLE001 - not JSON: check() denies it, nothing is recorded
            pass
        first = self.check(name, arguments, call_id=call_id, run_id=run_id, agent=agent, tool=tool)
        if first.escalated and first.verdict is not None and first.verdict.approval is not None:
            if first.verdict.approval.status == "pending":
                approvals = getattr(self.host, "approvals", None)
                try:
                    if approvals is None:
                        raise toolvet.ApprovalError("the policy has no [approvals] table")
                    approvals.reject(first.approval_id, who, message)
                except toolvet.ApprovalError as e:
                    if e.kind != "already-decided":
                        return self._unrecorded(e)
                except Exception as e:  # noqa: BLE001 - still a deny
                    return self._unrecorded(e)
        # The model reads it: the reviewer's words, escaped (a newline or a bidi
        # control in them must not read as text of another speaker).
        reason = f"{visible(who)} rejected this call" + (f": {visible(message)}" if message else "")
        rejected = Ruling("deny", reason, "approval.rejected", first.verdict, first.approval_id)
        try:
            fingerprint = self._asker(agent) + _fingerprint(name, plain_arguments(arguments))
            self._note(run_id, self._history_key(call_id, agent, fingerprint), name, arguments, rejected)
        except Exception:  # noqa: BLE001 - not JSON: check() denied it already
            pass
        return rejected

    @staticmethod
    def _unrecorded(error: BaseException) -> Ruling:
        """The deny for a framework answer the ledger did not take. The model reads
        it, so it never carries the error's text (which is written for the person
        and may name a command or a path; review s12 L3): that goes to the log."""
        logging.getLogger("toolvet").warning("a framework's answer was not recorded: %s", error)
        if isinstance(error, toolvet.ApprovalError) and getattr(error, "kind", None) == "invalid-review":
            return Ruling(
                "deny",
                "this policy does not take the answer given here as a person's decision (it counts "
                "only an approval a reviewer gives outside this session), so the call may not run",
                "approval.unsigned-decision",
            )
        return Ruling(
            "deny",
            "the answer could not be recorded in the approval ledger, so the call may not run",
            "approval.ledger-unavailable",
        )

    def record(
        self,
        name: str,
        arguments: Any,
        *,
        approved: bool,
        call_id: str = "",
        run_id: Optional[str] = None,
        agent: Optional[str] = None,
        tool: Any = None,
        reviewer: Optional[str] = None,
        message: Optional[str] = None,
    ) -> Ruling:
        """Record a person's answer about an escalated call in the ledger, without
        resuming it. Returns the call's escalate ruling (with its ticket), the ruling
        it already has when it is not waiting for a person (a deny, a plain allow, or
        ``approval.replayed`` for a call whose approval was used), or a deny when the
        answer cannot be recorded. A decision already in the ledger stands, and an
        approval is taken only for a call the ledger was holding: asking the host
        finds the call's request, and an ask that opened one shows the framework
        answered about a call toolvet never held (a forged or foreign approval), a
        deny. Nothing remembered in this process stands in for the ledger."""
        try:
            arguments = plain_arguments(arguments)  # once: every read below sees this copy
        except Exception as e:  # noqa: BLE001
            return host_failure(e)
        first = self._ask(name, arguments, call_id, run_id, agent, tool, None, None)
        if not first.escalated:
            return first
        if approved and first.verdict is not None and first.verdict.approval.opened:
            return Ruling(
                "deny",
                "the framework reports a person's approval of a call toolvet was not holding, so it is "
                f"not recorded and the call does not run; a reviewer can decide request {first.approval_id}",
                rule="toolvet.approval-not-recorded",
            )
        approvals = getattr(self.host, "approvals", None)
        try:
            if approvals is None:
                raise toolvet.ApprovalError("the policy has no [approvals] table")
            who = reviewer or self.reviewer
            try:
                if approved:
                    approvals.approve(first.approval_id, who, message)
                else:
                    approvals.reject(first.approval_id, who, message)
            except toolvet.ApprovalError as e:
                if e.kind != "already-decided":
                    raise
        except Exception as e:  # noqa: BLE001 - cannot record the answer: deny
            return self._unrecorded(e)
        return first

    def check_held(
        self,
        name: str,
        arguments: Any,
        *,
        run_id: Optional[str] = None,
        agent: Optional[str] = None,
        tool: Any = None,
        history: Any = None,
    ) -> Ruling:
        """:meth:`check` for frameworks that cannot pause (CrewAI without an approver,
        aisuite): an escalate is held in the ledger, and when the model makes the same
        call again (same run, tool and arguments) it is settled by what a person decided
        meanwhile: approved runs once, rejected is a deny with the reviewer's message,
        still pending is the same escalate."""
        try:
            arguments = plain_arguments(arguments)  # once: every read below sees this copy
            key = (run_id, "\0held\0" + self._asker(agent) + _fingerprint(name, arguments))
        except Exception as e:  # noqa: BLE001
            return host_failure(e)
        held = self._recall(key, key[1])
        if held is not None:
            settled = self._ask(name, arguments, "", run_id, agent, tool, history, held.ticket)
            self._note(run_id, self._history_key("", agent, key[1][len("\0held\0") :]), name, arguments, settled)
            if settled.allowed or settled.escalated or settled.rule == "approval.rejected":
                if not settled.escalated:
                    self.forget(*key)
                return settled
            self.forget(*key)  # expired, used or refused: ask anew
        ruling = self.check(name, arguments, run_id=run_id, agent=agent, tool=tool, history=history)
        if ruling.escalated:
            self._remember(key, key[1], ruling)
        return ruling

    # -- previewing -----------------------------------------------------

    def preview(
        self,
        name: str,
        arguments: Any,
        *,
        agent: Optional[str] = None,
        tool: Any = None,
    ) -> Ruling:
        """What the checks would decide about a call the model only asks about (a
        decision tool): ``allow``, ``deny`` or ``escalate``, never an approval
        request a person could be asked to approve, nor one that counts against the
        ledger's pending limits. Never raises: a failure is a deny.

        With a host that can preview (``host.preview``, as the Node binding has),
        nothing is opened or logged. Otherwise the call is vetted in a run of its own
        (``toolvet-preview:<random>``, which no real call ever has, so an approval of
        it could never run anything) and a request that ask opened is withdrawn at
        once: rejected in the ledger (``toolvet-preview``), so it never waits in the
        reviewer's queue."""
        try:
            args = plain_arguments(arguments)
        except Exception as e:  # noqa: BLE001
            return host_failure(e)
        declared = tool if tool is not None else self.tools.get(name)
        preview = getattr(self.host, "preview", None)
        try:
            if callable(preview):
                verdict = preview(toolvet.Call(name, args, ""), declared, self._context(None, agent, None))
            else:
                run = f"toolvet-preview:{secrets.token_hex(16)}"
                verdict = self.host.check(toolvet.Call(name, args, ""), declared, self._context(run, agent, None))
                approval = getattr(verdict, "approval", None)
                if approval is not None and approval.opened and approval.status == "pending":
                    try:
                        self.host.approvals.reject(approval.id, PREVIEW_REVIEWER, "a decision-tool question, not a call")
                    except Exception:  # noqa: BLE001
                        # A ledger that refuses the withdrawal (e.g. one taking only
                        # signed decisions) leaves the request waiting, in a run no
                        # real call has: approving it could never run anything.
                        pass
        except Exception as e:  # noqa: BLE001 - any failure is a deny
            return host_failure(e)
        decision = verdict.decision
        reason = verdict.reason or ""
        if decision == "escalate":
            return Ruling("escalate", reason or "a person must approve this call", verdict.rule, verdict)
        if decision in ("allow", "deny"):
            return Ruling(decision, reason or ("" if decision == "allow" else "denied by policy"), verdict.rule, verdict)
        return Ruling("deny", f"the policy answered an unknown decision {decision!r}", "toolvet.host-error", verdict)

    # -- history keys and held calls ----------------------------------

    @staticmethod
    def _history_key(call_id: str, agent: Optional[str], fingerprint: str) -> str:
        """Which history entry a ruling is about: the call id's with the call itself
        (a reused id with other arguments is another call: some providers number
        calls per turn, review s14 N1), or (no id) the tool and arguments'. A key
        names the held call a later ruling settles (see :meth:`_note`); it never
        merges two rulings that both let the call run."""
        if call_id:
            return "id\0" + json.dumps(agent) + "\0" + call_id + "\0" + fingerprint
        return "\0" + fingerprint

    def _asker(self, agent: Optional[str]) -> str:
        """Who asks, as part of a call's fingerprint: a held ruling given to one
        agent is never another agent's (the policy may tell them apart)."""
        return json.dumps(agent or self.agent) + "\0"

    def _recall(self, key: tuple[Optional[str], str], fingerprint: str) -> Optional[Ruling]:
        """The held ruling :meth:`check_held` remembered under ``key``, if it was
        given about the call ``fingerprint`` names."""
        with self._lock:
            hit = self._cache.get(key)
            if hit is None:
                return None
            self._cache.move_to_end(key)
        if hit[0] != fingerprint:
            return None
        return hit[1]

    def _remember(self, key: tuple[Optional[str], str], fingerprint: str, ruling: Ruling) -> None:
        with self._lock:
            self._cache[key] = (fingerprint, ruling)
            self._cache.move_to_end(key)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)

    def forget(self, run_id: Optional[str], call_id: str) -> None:
        """Drop the held ruling :meth:`check_held` remembered under (``run_id``, ``call_id``)."""
        with self._lock:
            self._cache.pop((run_id, call_id), None)


# -- runs ------------------------------------------------------------------------


def fresh_run_id(prefix: str) -> str:
    """A run id no other guard has: ``<prefix>:<32 random hex digits>``. An
    adapter whose framework names no run, and whose caller names none, gives
    each guard (hook, wrapped tool) one of these when it is built, so calls
    are never bound to one run shared by the whole process (review s22 F1)."""
    return f"{prefix}:{secrets.token_hex(16)}"


def named_run(run_id: Any, *args: Any) -> Optional[str]:
    """The run a caller's ``run_id`` names for one call: the string itself, or
    what the function ``run_id(*args)`` returns (None, empty or a failure: no
    name, the adapter's default applies)."""
    try:
        named = run_id(*args) if callable(run_id) else run_id
    except Exception:  # noqa: BLE001 - an unknown run is no run name
        return None
    return str(named) if named else None


# -- adapters that call the tool themselves ------------------------------------


def vet_call(gate: Gate, name: str, arguments: Any, *, run_id: Optional[str] = None) -> tuple[Ruling, dict[str, Any]]:
    """For an adapter that calls the tool itself with what its caller passed
    (smolagents' and LlamaIndex's ``guard``, whose callers include code the model
    wrote): the ruling about the call (:meth:`Gate.check_held`) and the arguments
    to call the tool with. Those are the plain copy that was vetted, made once by
    :func:`plain_arguments`; the tool gets that copy, never the caller's objects,
    so what runs is what was vetted. Arguments that are not plain JSON (a
    subclass of ``list``, ``str``, ``dict``, ...) are a deny
    (``toolvet.invalid-call``) with an empty copy. Never raises."""
    try:
        args = plain_arguments(arguments)
    except Exception as e:  # noqa: BLE001 - not plain JSON: a deny
        return host_failure(e), {}
    return gate.check_held(name, args, run_id=run_id), args


# -- decision tools ---------------------------------------------------------


class DecisionInputError(ValueError):
    """The model called the decision tool with invalid arguments."""


def decision_answer(gate: Gate, tool: Any, arguments: Any = None) -> dict[str, str]:
    """The decision tool's answer about a proposed call of ``tool`` with
    ``arguments``: ``{"status": "allow"|"deny"|"escalate", "answer": reason}``.
    Raises :class:`DecisionInputError` for invalid input (each adapter hands
    that back to the model in its framework's way)."""
    if not isinstance(tool, str) or not tool.strip():
        raise DecisionInputError("`tool` must be the name of the tool you want to call")
    try:
        args = plain_arguments(arguments)
    except toolvet.CallError as e:
        raise DecisionInputError(f"`arguments` must be a JSON object of the tool's arguments ({e})") from None
    ruling = gate.preview(tool.strip(), args)
    status = ruling.decision
    answer = ruling.reason or ("allowed" if status == "allow" else "")
    if status == "escalate":
        answer = f"{answer} (a person must approve this call first; asking opened no approval request)"
    return {"status": status, "answer": answer}


DECISION_TOOL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "tool": {"type": "string", "description": "The name of the tool you want to call."},
        "arguments": {"type": "object", "description": "The arguments you would call it with."},
    },
    "required": ["tool", "arguments"],
    "additionalProperties": False,
}


def as_gate(host_or_gate: Any, **options: Any) -> Gate:
    """A :class:`Gate` for ``host_or_gate`` (a Host, or a Gate used as is)."""
    if isinstance(host_or_gate, Gate):
        if options:
            raise TypeError("pass options to the Gate itself, not with an existing Gate")
        return host_or_gate
    return Gate(host_or_gate, **options)


