#!/usr/bin/env bash
# Vet every example call with the example policy (one `toolvet check` run)
# and compare each verdict with the expectation in its file name
# (`<expected>--<what>.json`). Exits non-zero if any verdict differs.
set -euo pipefail
cd "$(dirname "$0")/.."
toolvet=${TOOLVET:-target/release/toolvet}
status=0
# The example policy, with its approvals ledger under target/state/ rather
# than examples/state/: what you approve or reject in examples/state/ (the
# README's session) stands for those calls, so the demo keeps its own.
mkdir -p target
cp examples/toolvet.toml target/demo-toolvet.toml
"$toolvet" check --config target/demo-toolvet.toml examples/calls/*.json > target/demo-verdicts.jsonl || status=$?
# 0 allow, 3 deny, 4 escalate are verdicts; anything else is an error.
case "$status" in 0|3|4) ;; *) echo "toolvet check failed (exit $status)" >&2; exit "$status" ;; esac
python3 - target/demo-verdicts.jsonl <<'PY'
import json, os, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
passed = failed = 0
print(f"{'EXPECTED':<9} {'VERDICT':<9} {'CALL':<30} {'µs':>7}  RULE / REASON")
for v in rows:
    name = os.path.basename(v["source"])[:-len(".json")]
    expected, what = name.split("--", 1)
    ok = v["decision"] == expected
    passed += ok
    failed += not ok
    why = (f"[{v['rule']}] " if v.get("rule") else "") + (v.get("reason") or "")
    if len(why) > 110:
        why = why[:107] + "..."
    mark = "" if ok else "   <-- MISMATCH"
    print(f"{expected:<9} {v['decision']:<9} {what:<30} {v['duration_us']:>7}  {why}{mark}")
print(f"\n{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
