"""The kit's one input rule, applied before any check's own code: a call whose
text holds a control character other than tab and newline is denied with rule
`input.control-character`, naming the argument, the byte offset and the
character (escaped). A carriage return is accepted only as part of a CRLF line
end (a Windows text file's content); anywhere else it is refused.

Why: the program that reads the text does not read it as the check did. bash
drops NUL bytes from a script read on stdin (`r\\0m -rf ~` runs `rm -rf ~`), C
file APIs end a path at a NUL, escape sequences and lone carriage returns
rewrite what a person reads on a terminal. DEL and the C1 controls are not
refused (bash and the kernel treat them as ordinary bytes).

Where: the tool name, every key and string of the arguments, the context's
agent, run id, principal and attributes. Not the history (earlier calls were
vetted when made) nor the tool info (the owner declares it).

The same rule, rule id and message as the Rust kit (`toolvet_pdk::input`) and
the JavaScript kit.
"""

from __future__ import annotations

import json
import re
from typing import Any, Optional

from ._decision import Decision, deny
from ._model import Context, ToolCall

__all__ = ["CONTROL_CHARACTER_RULE", "control_character", "find_in"]

CONTROL_CHARACTER_RULE = "input.control-character"

# A raw control byte, or an escape that may decode to a refused character
# (`\b`, `\f`, `\r`, `\u0000`-`\u001f`): only then are the arguments parsed
# and walked. False hits (`\\r`, a CRLF) are settled by the walk.
_SUSPECT = re.compile(r"[\x00-\x08\x0b-\x1f]|\\[bfr]|\\u00[01][0-9a-fA-F]")
_NAMES = {
    "\x00": "NUL",
    "\x07": "BEL",
    "\x08": "backspace",
    "\x0b": "vertical tab",
    "\x0c": "form feed",
    "\r": "carriage return",
    "\x1b": "ESC",
}
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def find_in(text: str) -> Optional[tuple[int, str]]:
    """The first refused control character of `text`: (UTF-8 byte offset,
    character), or None."""
    for i, c in enumerate(text):
        n = ord(c)
        if n >= 0x20 or c in "\t\n":
            continue
        if c == "\r" and text[i + 1 : i + 2] == "\n":
            continue
        return len(text[:i].encode("utf-8", "surrogatepass")), c
    return None


def escape(c: str) -> str:
    """`c` as a message shows it: `\\x00` for the C0 controls and DEL."""
    n = ord(c)
    return f"\\x{n:02x}" if n < 0x20 or n == 0x7F else c


def _child(parent: str, key: str) -> str:
    if _PLAIN_KEY.fullmatch(key) and key.isascii():
        return f"{parent}.{key}"
    return f"{parent}[{json.dumps(key, ensure_ascii=False)}]"


def _refusal(path: str, in_key: bool, offset: int, c: str) -> Decision:
    what = "The key" if in_key else "The value of"
    name = f" ({_NAMES[c]})" if c in _NAMES else ""
    return deny(
        CONTROL_CHARACTER_RULE,
        f"{what} `{path}` holds the control character {escape(c)}{name} at byte {offset}. Control characters "
        "other than tab and newline (and a carriage return other than in a CRLF line end) are refused in every "
        "argument: the program that reads the text does not read it as this check does (bash drops NUL bytes, "
        "file APIs cut a path at one, terminal escapes rewrite what a person reads). Send the text without it.",
    )


def _walk(value: Any, path: str) -> Optional[Decision]:
    if isinstance(value, str):
        hit = find_in(value)
        return _refusal(path, False, *hit) if hit else None
    if isinstance(value, dict):
        for k, v in value.items():
            child = _child(path, k)
            hit = find_in(k)
            if hit:
                return _refusal(child, True, *hit)
            found = _walk(v, child)
            if found:
                return found
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found = _walk(v, f"{path}[{i}]")
            if found:
                return found
    return None


def _arguments(text: str) -> Optional[Decision]:
    suspect = _SUSPECT.search(text)
    if not suspect:
        return None
    try:
        parsed = json.loads(text, parse_int=str, parse_float=str, parse_constant=str)
    except ValueError:
        # Not JSON (the host never sends that): refuse the text as a whole.
        hit = find_in(text)
        if hit:
            return _refusal("arguments", False, *hit)
        token = suspect.group()
        c = {"\\b": "\x08", "\\f": "\x0c", "\\r": "\r"}.get(token) or chr(int(token[2:], 16))
        return _refusal("arguments", False, suspect.start(), c)
    return _walk(parsed, "arguments")


def control_character(call: ToolCall, ctx: Context) -> Optional[Decision]:
    """The kit's deny when `call` or `ctx` holds a refused control character,
    else None (the check may look at the call)."""
    hit = find_in(call.name)
    if hit:
        return _refusal("name", False, *hit)
    found = _arguments(call.arguments)
    if found:
        return found
    for path, value in (("context.agent", ctx.agent), ("context.run_id", ctx.run_id), ("context.principal", ctx.principal)):
        hit = find_in(value) if value else None
        if hit:
            return _refusal(path, False, *hit)
    for k, v in ctx.attributes:
        path = _child("context.attributes", k)
        hit = find_in(k)
        if hit:
            return _refusal(path, True, *hit)
        hit = find_in(v)
        if hit:
            return _refusal(path, False, *hit)
    return None
