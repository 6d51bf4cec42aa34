#!/usr/bin/env python3
"""Run the write-a-check guides as a new user would (make guide-tests).

    tests/guides.py docs/write-a-check-rust.md [more guides...]

Each guide runs in its own temporary directory outside this checkout, with
`toolvet` (target/release) first on PATH and $TOOLVET_REPO naming this
checkout, the two things a guide's prerequisites ask the reader to set up.
The guide's fenced blocks, in order:

- ```` ```sh ````: commands, run with `bash -euo pipefail` in the directory
  the previous block ended in (a `cd` carries over; an `export` does not).
  `exit=N` in the info string (```` ```sh exit=3 ````) expects that exit
  code instead of 0; `norun` marks a block for the reader only (cloning
  and building toolvet, which this script has done).
- ```` ```text ````, right after a run block (only blank lines between): what
  that block prints, stdout and stderr together. Each of its lines must
  appear in the output, in order (other lines may come between); `…`
  stands for any text, and trailing spaces do not count.
- any block with `file=PATH` in its info string (```` ```python
  file=ticket_guard.py ````): written to PATH, relative to the current
  directory, before the next command runs.

Other blocks are illustrations and are not run. A guide with no run block,
a command that exits with another code, or an output line that does not
appear fails the run, naming the guide and the line of the block.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^(`{3,})(.*)$")
BLOCK_TIMEOUT_S = 900


@dataclass
class Block:
    line: int
    lang: str
    attrs: dict[str, str]
    body: str
    expected: "Block | None" = None
    flags: set[str] = field(default_factory=set)


def blocks(text: str) -> list[Block]:
    """The fenced blocks of a Markdown text, each with the 1-based line of
    its opening fence; a `text` block right after a `sh` block becomes its
    expected output."""
    found: list[Block] = []
    lines = text.splitlines()
    i = 0
    blank_run = True  # only blank lines since the last block closed
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            if lines[i].strip():
                blank_run = False
            i += 1
            continue
        ticks, info = m.group(1), m.group(2).split()
        start = i
        i += 1
        body = []
        while i < len(lines) and lines[i].rstrip() != ticks:
            body.append(lines[i])
            i += 1
        if i == len(lines):
            raise SystemExit(f"unclosed ``` fence opened at line {start + 1}")
        i += 1
        lang = info[0] if info else ""
        attrs = dict(a.split("=", 1) for a in info[1:] if "=" in a)
        flags = {a for a in info[1:] if "=" not in a}
        block = Block(start + 1, lang, attrs, "\n".join(body) + "\n", flags=flags)
        previous = found[-1] if found else None
        if lang == "text" and blank_run and previous is not None and previous.lang == "sh" and previous.expected is None:
            previous.expected = block
        else:
            found.append(block)
        blank_run = True
    return found


def matches(expected: str, output: str) -> str | None:
    """None when every non-blank line of `expected` appears in `output` in
    order (`…` matching any text), else the first line that does not."""
    actual = [line.rstrip() for line in output.splitlines()]
    at = 0
    for want in (line.rstrip() for line in expected.splitlines()):
        if not want:
            continue
        pattern = re.compile(".*".join(re.escape(part) for part in want.split("…")))
        while at < len(actual) and not pattern.fullmatch(actual[at]):
            at += 1
        if at == len(actual):
            return want
        at += 1
    return None


def run_guide(guide: Path, work: Path, env: dict[str, str]) -> str:
    cwd = work
    state = work / ".guide-cwd"
    ran = written = checked = 0
    for block in blocks(guide.read_text()):
        where = f"{guide}:{block.line}"
        if "file" in block.attrs:
            target = cwd / block.attrs["file"]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.body)
            written += 1
            continue
        if block.lang != "sh" or "norun" in block.flags:
            continue
        script = f'trap \'pwd > "{state}"\' EXIT\n{block.body}'
        try:
            done = subprocess.run(
                ["bash", "-euo", "pipefail", "-c", script],
                cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                text=True, timeout=BLOCK_TIMEOUT_S,
            )
        except subprocess.TimeoutExpired:
            raise SystemExit(f"{where}: the block ran past {BLOCK_TIMEOUT_S} s") from None
        want = int(block.attrs.get("exit", "0"))
        if done.returncode != want:
            raise SystemExit(f"{where}: exited with {done.returncode}, the guide expects {want}; output:\n{done.stdout}")
        if block.expected is not None:
            missing = matches(block.expected.body, done.stdout)
            if missing is not None:
                raise SystemExit(
                    f"{where}: the output has no line matching `{missing}` "
                    f"(expected at {guide}:{block.expected.line}); output:\n{done.stdout}"
                )
            checked += 1
        cwd = Path(state.read_text().strip())
        ran += 1
    if ran == 0:
        raise SystemExit(f"{guide}: no ```sh block ran")
    return f"{guide}: {ran} command blocks ran, {written} files written, {checked} outputs matched"


def main() -> None:
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    toolvet = REPO / "target" / "release" / "toolvet"
    if not toolvet.is_file():
        raise SystemExit(f"{toolvet} is missing: run `make cli` first")
    env = dict(os.environ)
    env["TOOLVET_REPO"] = str(REPO)
    env["PATH"] = f"{toolvet.parent}{os.pathsep}{env['PATH']}"
    for name in ("TOOLVET_PYTHON", "TOOLVET_PYTHON_KIT", "VIRTUAL_ENV"):
        env.pop(name, None)
    for arg in sys.argv[1:]:
        guide = Path(arg)
        work = Path(tempfile.mkdtemp(prefix="toolvet-guide-"))
        try:
            print(run_guide(guide, work, env), flush=True)
        finally:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
