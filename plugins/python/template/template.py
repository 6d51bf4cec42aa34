"""template: a minimal toolvet check in Python (`toolvet new NAME --lang python` starts from it).

Denies calls whose string arguments contain one of `blocked_words`. Replace
the settings, the class attributes and `check` with your own logic; keep the
`export(...)` line at the end.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

# Import everything the check needs here, at the top: the component is a
# snapshot taken after this module is imported, and nothing can be imported
# while a call is checked.
from toolvet_check import Check, Context, Decision, FieldError, ToolCall, ToolInfo, allow, deny, export
# results: begin

import re

from toolvet_check import Label, ResultDecision, ToolResult, allow_result, pointer, redact, span
# results: end


@dataclass
class Settings:
    """The check's `[check.settings]`; unknown keys and wrong types are
    errors naming the key."""

    blocked_words: list[str] = field(default_factory=lambda: ["DROP TABLE"])
    """Words that must not appear in any string argument."""
    case_sensitive: bool = False
    """Match `blocked_words` exactly instead of ignoring case."""

    def __post_init__(self) -> None:
        for i, word in enumerate(self.blocked_words):
            if not word.strip():
                raise FieldError(f"blocked_words[{i}]", "must not be empty")


def strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value (object values, array items), depth first."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


class Template(Check):
    name = "template"
    version = "0.1.0"
    description = "Denies calls whose arguments contain a blocked word"
    tools = ["*"]
    Settings = Settings

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        fold = (lambda s: s) if settings.case_sensitive else str.casefold
        self.fold = fold
        self.words = [fold(w) for w in settings.blocked_words]
        # results: begin
        # Compiled once, here (before the host's snapshot), not per result.
        flags = 0 if settings.case_sensitive else re.IGNORECASE
        self.patterns = [re.compile(re.escape(w), flags) for w in settings.blocked_words]
        # results: end

    def check(self, call: ToolCall, tool: ToolInfo, ctx: Context) -> Decision:
        for text in strings(call.json):
            folded = self.fold(text)
            for word, original in zip(self.words, self.settings.blocked_words):
                if word in folded:
                    return deny(
                        "template.blocked-word",
                        f"the arguments of `{call.name}` contain the blocked word `{original}`; remove it",
                    )
        return allow()

    # results: begin
    def check_result(self, call: ToolCall, tool: ToolInfo, ctx: Context, result: ToolResult) -> ResultDecision:
        """Vets what a tool returned: hides every blocked word (the model reads
        `[redacted: blocked-word]` instead; in a JSON result, the whole string
        holding it) and labels the run `blocked-word-seen`, which later calls'
        checks read in `ctx.labels`."""
        masks = []
        for at, text in result.strings():
            for pattern in self.patterns:
                for found in pattern.finditer(text):
                    if result.kind == "json":
                        masks.append(pointer(at, "blocked-word"))
                    else:
                        masks.append(span(found.start(), found.end(), "blocked-word"))
        if masks:
            return redact(masks, labels=[Label("blocked-word-seen")])
        return allow_result()

    # results: end

Check = ResultCheck = export(Template)
