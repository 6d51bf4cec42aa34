#!/usr/bin/env python3
"""Run the field corpus (tests/field/*.cases.yaml) through `toolvet check`
and report two rates:

- dangerous stopped: calls expected `deny` or `escalate` whose verdict is
  deny or escalate (either counts: a person approving is a stop);
- benign blocked: calls expected `allow` whose verdict is deny or escalate.

Fails (exit 1) when dangerous stopped < --min-stopped (default 95 %) or
benign blocked > --max-blocked (default 5 %), or when a case file breaks
the corpus rules below.

The corpus files are case files (docs/formats.md) in a strict subset of
YAML that this script reads without a YAML library:

    config: ../../examples/toolvet.toml
    context: {"attributes": {"cwd": "/home/alice/project"}}
    cases:
    # source: https://...
    - {"name": "...", "call": {...}, "expect": "deny"}

Top-level `key: <JSON>` lines, a `cases:` line, `# source: <URL>` comment
lines (each applies to the case below it) and `- <JSON object>` case lines;
other comments and blank lines are ignored. Every case needs a source.

Usage: tests/field/run.py [--toolvet BIN] [--config POLICY] [--verbose] [FILE...]
"""

import argparse
import contextlib
import glob
import json
import os
import re
import subprocess
import tempfile
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STOPS = ("deny", "escalate")


def fail(msg):
    print(f"field corpus: {msg}", file=sys.stderr)
    sys.exit(2)


def read_corpus(path):
    """(top-level settings, cases) of one corpus file."""
    top, cases, source, in_cases = {}, [], None, False
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            where = f"{path}:{n}"
            if not line.strip():
                continue
            if line.startswith("# source:"):
                source = line[len("# source:"):].strip()
                if not source.startswith(("https://", "http://")):
                    fail(f"{where}: a source is a URL")
                continue
            if line.startswith("#"):
                continue
            if line == "cases:":
                in_cases = True
                continue
            if in_cases and line.startswith("- "):
                try:
                    case = json.loads(line[2:])
                except json.JSONDecodeError as e:
                    fail(f"{where}: case is not one JSON object: {e}")
                if source is None:
                    fail(f"{where}: case {case.get('name')!r} has no `# source:` line above it")
                if case.get("expect") not in ("allow", "deny", "escalate"):
                    fail(f"{where}: expect must be allow, deny or escalate")
                case["_source"], case["_where"] = source, where
                cases.append(case)
                source = None
                continue
            if not in_cases and ":" in line:
                key, value = line.split(":", 1)
                try:
                    top[key.strip()] = json.loads(value) if value.strip().startswith(("{", "[", '"')) else value.strip()
                except json.JSONDecodeError as e:
                    fail(f"{where}: `{key}` is not JSON: {e}")
                continue
            fail(f"{where}: not part of the corpus format: {line[:60]!r}")
    if "config" not in top:
        fail(f"{path}: no `config:` line")
    return top, cases


@contextlib.contextmanager
def measuring_policy(config):
    """`config` as a measurement runs it: with an `[approvals]` table, a
    copy beside it (so its relative paths hold) whose ledger is a fresh
    temporary file and whose pending-request limits are out of reach, so
    what earlier runs left waiting, and the corpus's own count of
    escalations, never turn a verdict into `approval.too-many-pending`
    (a flood limit, not a judgement of the call)."""
    with open(config, encoding="utf-8") as f:
        text = f.read()
    if not re.search(r"^\[approvals\]\s*$", text, re.M):
        yield config
        return
    with tempfile.TemporaryDirectory() as tmp:
        ledger = os.path.join(tmp, "approvals.db")
        text = re.sub(r"^ledger\s*=.*$", lambda _: f"ledger = {json.dumps(ledger)}", text, flags=re.M)
        text = re.sub(r"^\[approvals\]\s*$", "[approvals]\nmax_pending_per_run = 100000\n"
                      "max_pending_per_principal = 100000\nmax_pending = 100000", text, count=1, flags=re.M)
        fd, path = tempfile.mkstemp(prefix=".field-run-", suffix=".toml", dir=os.path.dirname(config))
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            yield path
        finally:
            os.unlink(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--toolvet", default=os.environ.get("TOOLVET", os.path.join(ROOT, "target/release/toolvet")))
    ap.add_argument("--config", help="vet with this policy instead of each file's `config`")
    ap.add_argument("--min-stopped", type=float, default=95.0)
    ap.add_argument("--max-blocked", type=float, default=5.0)
    ap.add_argument("--verbose", "-v", action="store_true", help="list every miss")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    files = args.files or sorted(glob.glob(os.path.join(HERE, "*.cases.yaml")))
    if not files:
        fail("no corpus files")
    by_config = {}
    for path in files:
        top, cases = read_corpus(path)
        config = args.config or os.path.normpath(os.path.join(os.path.dirname(path), top["config"]))
        for n, c in enumerate(cases):
            shape = {"call": c["call"]}
            if "tool" in c:
                shape["tool"] = c["tool"]
            # Each case is a run of its own (its history is in its context),
            # so one case's pending approvals never count against another's
            # (the policy holds at most 100 per run).
            ctx = dict(c.get("context", top.get("context")) or {})
            ctx.setdefault("run_id", f"field:{os.path.basename(path)}:{n}")
            shape["context"] = ctx
            c["_file"] = os.path.basename(path)
            by_config.setdefault(config, []).append((c, shape))
    results = []
    for config, items in by_config.items():
        stdin = "".join(json.dumps(s) + "\n" for _, s in items)
        with measuring_policy(config) as measured:
            p = subprocess.run([args.toolvet, "check", "--config", measured, "-"], input=stdin,
                               capture_output=True, text=True)
        if p.returncode not in (0, 3, 4):
            fail(f"toolvet check failed (exit {p.returncode}): {p.stderr.strip()[:2000]}")
        verdicts = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
        if len(verdicts) != len(items):
            fail(f"{len(items)} calls but {len(verdicts)} verdicts")
        results.extend((c, v) for (c, _), v in zip(items, verdicts))
    dangerous = [(c, v) for c, v in results if c["expect"] in STOPS]
    benign = [(c, v) for c, v in results if c["expect"] == "allow"]
    stopped = [r for r in dangerous if r[1]["decision"] in STOPS]
    blocked = [r for r in benign if r[1]["decision"] in STOPS]
    exact = sum(1 for c, v in results if c["expect"] == v["decision"])
    pct = lambda a, b: 100.0 * len(a) / len(b) if b else 0.0
    sources = {c["_source"] for c, _ in results}
    print(f"field corpus: {len(results)} calls from {len(sources)} sources in {len(files)} files "
          f"({len(dangerous)} dangerous, {len(benign)} benign look-alikes)")
    for c, v in [r for r in dangerous if r not in stopped] + blocked:
        if args.verbose:
            why = f"[{v.get('rule')}] {v.get('reason') or ''}"[:150]
            print(f"  MISS {c['_file']}: expected {c['expect']}, got {v['decision']}: {c['name']}  {why}")
    print(f"dangerous stopped: {len(stopped)}/{len(dangerous)} = {pct(stopped, dangerous):.1f}% (need >= {args.min_stopped:g}%)")
    print(f"benign blocked:    {len(blocked)}/{len(benign)} = {pct(blocked, benign):.1f}% (need <= {args.max_blocked:g}%)")
    print(f"exact decision:    {exact}/{len(results)}")
    checks = [pct(stopped, dangerous) >= args.min_stopped, pct(blocked, benign) <= args.max_blocked]
    misses = len(dangerous) - len(stopped) + len(blocked)
    print(f"misses:            {misses} (list them with -v)")
    # The two rate checks are the test; single misses are tolerated.
    print(f"{sum(checks)} passed, {len(checks) - sum(checks)} failed")
    sys.exit(0 if all(checks) else 1)


if __name__ == "__main__":
    main()
