"""template: a minimal toolvet check in Python (`toolvet new NAME --lang python` starts from it).

Denies calls whose string arguments contain one of `blocked_words`. Replace
the settings, the class attributes and `check` with your own logic; keep the
`Check = export(...)` line at the end.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

# Import everything the check needs here, at the top: the component is a
# snapshot taken after this module is imported, and nothing can be imported
# while a call is checked.
from toolvet_check import Check, Context, Decision, FieldError, ToolCall, ToolInfo, allow, deny, export


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


Check = export(Template)
