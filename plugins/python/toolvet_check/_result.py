"""Result checks (contract `toolvet:check@0.2.0`): what a tool returned, and
one check's answer about it (the WIT `tool-result` and `result-decision`).

A check vets results by defining `check_result(self, call, tool, ctx, result)`
and returning `allow_result()`, `abstain_result()`, `withhold(rule, message)`
or `redact(masks)`, each with optional `labels` for the rest of the run.

Masks name what to hide; the host masks. A `span(start, end, kind)` takes
Python string indices into the result's text (`match.start()`,
`match.end()`), which the kit turns into the UTF-8 byte offsets the host
expects, so a span is always on character boundaries; a
`pointer("/items/0/email", kind)` names a value of a JSON result. The kit
checks every mask and label against the host's rules before the host sees
them (`vet_result`), so a native unit test fails where the host would.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, Iterator, Optional, Sequence, Union

from ._decode import loads
from ._input import control_character
from ._model import Context, Label, ToolCall, ToolInfo

__all__ = [
    "MAX_LABELS",
    "MAX_MASKS",
    "MAX_MASK_KIND",
    "Mask",
    "ResultDecision",
    "ResultError",
    "ToolResult",
    "abstain_result",
    "allow_result",
    "host_masks",
    "pointer",
    "redact",
    "span",
    "vet_result",
    "withhold",
]

# The host's limits (crates/toolvet/src/tool_result.rs).
MAX_LABELS = 16
"""Most labels one check raises about one result."""
MAX_MASKS = 4096
"""Most masks one check asks for on one result."""
MAX_MASK_KIND = 64
"""Longest mask kind, in bytes (the model reads `[redacted: KIND]`)."""
_MASK_KIND = re.compile(r"[A-Za-z0-9_-]{1,%d}" % MAX_MASK_KIND)
_INDEX = re.compile(r"0|[1-9][0-9]*")


class ResultError(ValueError):
    """A result check's answer the host would refuse: a mask out of range,
    on the wrong kind of result or with a bad kind, a pointer that does not
    resolve, too many masks or labels. Inside a component it makes the
    call trap, so the host applies the check's `on_error` (default: the
    result is withheld)."""


class ToolResult:
    """What a tool returned, after it ran.

    - `kind`: `"text"` (text as the model will read it) or `"json"` (a JSON
      value's text: MCP `structuredContent`, a framework's JSON output).
    - `content`: the text, or the JSON text.
    - `is_error`: the tool reported an error.
    - `value`: for `json`, the parsed value (numbers with a fraction are
      `decimal.Decimal`), parsed once; for `text`, the text.
    """

    def __init__(self, content: str, kind: str = "text", is_error: bool = False) -> None:
        if kind not in ("text", "json"):
            raise ValueError(f"a result's kind is 'text' or 'json', not {kind!r}")
        self.content = content
        self.kind = kind
        self.is_error = is_error
        self._value: Any = None
        self._parsed = False

    @classmethod
    def text(cls, text: str, is_error: bool = False) -> "ToolResult":
        """A text result."""
        return cls(text, "text", is_error)

    @classmethod
    def json(cls, text: str, is_error: bool = False) -> "ToolResult":
        """A JSON result, from its text."""
        return cls(text, "json", is_error)

    @property
    def value(self) -> Any:
        if not self._parsed:
            self._value = loads(self.content) if self.kind == "json" else self.content
            self._parsed = True
        return self._value

    def strings(self) -> Iterator[tuple[str, str]]:
        """Every string the model reads, with where it is: for text, `("",
        text)`; for JSON, `(pointer, string)` for each string value (not
        keys), depth first, e.g. `("/items/0/email", "a@example.com")`, so a
        check can `pointer(...)` the one it wants hidden."""
        if self.kind == "text":
            yield "", self.content
            return

        def walk(value: Any, path: str) -> Iterator[tuple[str, str]]:
            if isinstance(value, str):
                yield path, value
            elif isinstance(value, dict):
                for k, v in value.items():
                    yield from walk(v, f"{path}/{k.replace('~', '~0').replace('/', '~1')}")
            elif isinstance(value, list):
                for i, v in enumerate(value):
                    yield from walk(v, f"{path}/{i}")

        yield from walk(self.value, "")

    def __repr__(self) -> str:
        return f"ToolResult(kind={self.kind!r}, content={self.content!r}, is_error={self.is_error!r})"


@dataclass(frozen=True)
class Mask:
    """One part of a result to hide. Build with `span(start, end, kind)` (a
    text result) or `pointer(pointer, kind)` (a JSON result)."""

    kind: str
    start: Optional[int] = None
    end: Optional[int] = None
    pointer: Optional[str] = None


def span(start: int, end: int, kind: str) -> Mask:
    """Hide `text[start:end]` of a text result (Python string indices, e.g. a
    regex match's `start()` and `end()`); the model reads `[redacted: KIND]`
    there. `kind`: 1-64 ASCII letters, digits, `-` or `_`."""
    return Mask(kind, start=start, end=end)


def pointer(at: str, kind: str) -> Mask:
    """Hide the value at JSON Pointer `at` (RFC 6901, e.g. `/items/0/email`)
    of a JSON result; it becomes the string `[redacted: KIND]`."""
    return Mask(kind, pointer=at)


_KINDS = ("allow", "abstain", "withhold", "redact")


@dataclass(frozen=True)
class ResultDecision:
    """One check's answer about one result.

    - `kind`: `"allow"`, `"abstain"`, `"withhold"` or `"redact"`.
    - `rule`, `message`: for withhold, a stable rule id and the reason the
      model reads instead of the result (never echo what was withheld).
    - `masks`: for redact, what to hide (`span`, `pointer`).
    - `labels`: `Label`s for the rest of the run, with any kind.
    - `host_masks`: set by `vet_result`: the masks as the host receives them
      (`("span", (start_byte, end_byte), kind)` or `("pointer", pointer,
      kind)`).

    Build with `allow_result()`, `abstain_result()`, `withhold(rule,
    message)` and `redact(masks)`.
    """

    kind: str
    rule: Optional[str] = None
    message: Optional[str] = None
    masks: tuple[Mask, ...] = ()
    labels: tuple[Label, ...] = ()
    host_masks: Optional[tuple[tuple[str, Any, str], ...]] = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ValueError(f"unknown result decision kind {self.kind!r}")
        object.__setattr__(self, "masks", tuple(self.masks))
        object.__setattr__(self, "labels", tuple(self.labels))
        if self.kind == "withhold" and not self.message:
            raise ValueError("a withhold needs a message")
        if self.kind != "withhold" and (self.rule is not None or self.message is not None):
            raise ValueError(f"an {self.kind} result decision carries no rule or message")
        if self.kind == "redact" and not self.masks:
            raise ValueError("a redact needs at least one mask (allow_result() hides nothing)")
        if self.kind != "redact" and self.masks:
            raise ValueError(f"an {self.kind} result decision carries no masks")
        if any(not isinstance(m, Mask) for m in self.masks):
            raise ValueError("a redact's masks are span(...) or pointer(...)")
        if any(not isinstance(label, Label) for label in self.labels):
            raise ValueError("labels are toolvet_check.Label(name, values)")
        if len(self.labels) > MAX_LABELS:
            raise ValueError(f"{len(self.labels)} labels, over {MAX_LABELS}")

    def __str__(self) -> str:
        shown = self.kind
        if self.kind == "withhold":
            shown = f"withhold [{self.rule}] {self.message}"
        elif self.kind == "redact":
            shown = f"redact {len(self.masks)} mask(s)"
        if self.labels:
            shown += " labels " + ", ".join(label.name for label in self.labels)
        return shown


def allow_result(labels: Sequence[Label] = ()) -> ResultDecision:
    """The model may read the result as far as this check is concerned."""
    return ResultDecision("allow", labels=tuple(labels))


def abstain_result(labels: Sequence[Label] = ()) -> ResultDecision:
    """This check has no opinion on the result."""
    return ResultDecision("abstain", labels=tuple(labels))


def withhold(rule: str, message: str, labels: Sequence[Label] = ()) -> ResultDecision:
    """The model reads `message` instead of the result. `rule` is a stable id
    (`<short>.<rule>`); say what was wrong without repeating it."""
    return ResultDecision("withhold", rule, message, labels=tuple(labels))


def redact(masks: Union[Mask, Sequence[Mask]], labels: Sequence[Label] = ()) -> ResultDecision:
    """The host hides `masks` (one or a list of `span`/`pointer`) and the
    model reads the rest."""
    masks = (masks,) if isinstance(masks, Mask) else tuple(masks)
    return ResultDecision("redact", masks=masks, labels=tuple(labels))


def _resolves(value: Any, at: str) -> bool:
    """Whether JSON Pointer `at` names a value inside `value` (RFC 6901)."""
    for token in at.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(value, dict):
            if token not in value:
                return False
            value = value[token]
        elif isinstance(value, list):
            if not _INDEX.fullmatch(token) or int(token) >= len(value):
                return False
            value = value[int(token)]
        else:
            return False
    return True


def host_masks(result: ToolResult, masks: Sequence[Mask]) -> tuple[tuple[str, Any, str], ...]:
    """`masks` as the host receives them: spans in UTF-8 byte offsets of the
    text, pointers as given. Raises `ResultError` for any mask the host
    would refuse (the same rules: a non-empty span inside the text, on a text
    result; a non-empty pointer that resolves, on a JSON result; a kind of
    1-64 ASCII letters, digits, `-` or `_`; at most 4096 masks)."""
    if len(masks) > MAX_MASKS:
        raise ResultError(f"redact: {len(masks)} masks, over {MAX_MASKS}")
    out: list[tuple[str, Any, str]] = []
    spans: list[tuple[int, int, str]] = []
    for i, m in enumerate(masks):
        where = f"redact: masks[{i}]"
        if not (isinstance(m.kind, str) and _MASK_KIND.fullmatch(m.kind) and m.kind.isascii()):
            raise ResultError(
                f"{where}: a mask's kind is 1-{MAX_MASK_KIND} ASCII letters, digits, `-` or `_`, "
                f"not {str(m.kind)[:MAX_MASK_KIND]!r}"
            )
        if m.pointer is not None:
            if result.kind != "json":
                raise ResultError(f"{where}: a pointer mask on a text result: use span(start, end, kind)")
            if not m.pointer.startswith("/"):
                raise ResultError(
                    f"{where}: the pointer {m.pointer!r} is not a JSON Pointer inside the value "
                    "(it starts with `/`; to hide the whole result, withhold it)"
                )
            if not _resolves(result.value, m.pointer):
                raise ResultError(f"{where}: the pointer {m.pointer!r} does not resolve in the result")
            out.append(("pointer", m.pointer, m.kind))
            continue
        if result.kind != "text":
            raise ResultError(f"{where}: a span mask on a JSON result: use pointer(at, kind)")
        start, end = m.start, m.end
        if not (isinstance(start, int) and isinstance(end, int)) or isinstance(start, bool) or isinstance(end, bool):
            raise ResultError(f"{where}: a span's start and end are string indices (int)")
        if not 0 <= start < end <= len(result.content):
            raise ResultError(
                f"{where}: the span {start}..{end} is empty or outside the text's {len(result.content)} characters"
            )
        spans.append((start, end, m.kind))
        out.append(("span", len(spans) - 1, m.kind))
    if spans:
        # One pass over the text for every index: UTF-8 byte offset of each.
        wanted = sorted({i for s, e, _ in spans for i in (s, e)})
        offsets: dict[int, int] = {}
        at, byte = 0, 0
        text = result.content
        for i in wanted:
            byte += len(text[at:i].encode("utf-8", "surrogatepass"))
            at = i
            offsets[i] = byte
        out = [
            ("span", (offsets[spans[t][0]], offsets[spans[t][1]]), k) if kind == "span" else (kind, t, k)
            for kind, t, k in out
        ]
    return tuple(out)


def vet_result(check: Any, call: ToolCall, tool: ToolInfo, ctx: Context, result: ToolResult) -> ResultDecision:
    """What the component answers about `result`: the kit's withhold (rule
    `input.control-character`, the call rule's message) when the call or
    context holds a refused control character, else
    `check.check_result(call, tool, ctx, result)`, checked against the host's
    rules and with `host_masks` filled in. The result itself may hold any
    character: results are not refused for control characters.

    Raises `TypeError` when `check_result` returns something else than a
    `ResultDecision`, `ResultError` for a mask the host would refuse. The
    component calls this, so no check can skip the rule; unit tests call it
    to see what the host sees."""
    refused = control_character(call, ctx)
    if refused is not None:
        return ResultDecision("withhold", refused.rule, refused.message, host_masks=())
    decision = check.check_result(call, tool, ctx, result)
    if not isinstance(decision, ResultDecision):
        raise TypeError(
            f"check_result() returned {type(decision).__name__}, expected a ResultDecision (use "
            "allow_result(), abstain_result(), withhold(rule, message) or redact(masks))"
        )
    return replace(decision, host_masks=host_masks(result, decision.masks))
