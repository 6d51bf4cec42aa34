#!/usr/bin/env bash
# A check written outside this checkout, in Rust, Python and JavaScript, from the
# first command to a policy (make scaffold-test):
#   toolvet new → toolvet build → native unit tests → toolvet test →
#   toolvet build again (up to date, same sha256) → the check in a policy
#   beside a shipped one → toolvet check and, the checks being made with
#   `--results`, toolvet check-result.
# The Python and JavaScript checks without `--results` are made and their
# native unit tests run, without a build (a component build, compile and
# snapshot costs ~40 s of CPU each; the template they come from is built
# and tested whole by `make case-tests`).
#
#   tests/scaffold.sh /path/to/toolvet
#
# The first Python build installs the pinned componentize-py into a venv
# under a fresh cache here (from PyPI), as a new user's would; the
# JavaScript build uses plugins/js's ComponentizeJS (`npm ci` there on
# first use), and the check's `npm install` links the kit package by path
# (no download).
set -euo pipefail
TOOLVET=$1
REPO=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=python3
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
unset TOOLVET_PYTHON
export TOOLVET_CACHE_DIR="$WORK/cache"
cd "$WORK"

# Wait until FILE has a line with TEXT (at most two minutes).
wait_for() {
  for _ in $(seq 1200); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "scaffold.sh: no \"$2\" in $1:" >&2; cat "$1" >&2; exit 1
}

# `toolvet test --watch`: an edit to the source rebuilds and re-runs the
# cases (here, a renamed rule makes one fail), and the fix passes again.
watch_rebuilds() {
  "$TOOLVET" test --watch cases.yaml > watch.log 2>&1 &
  local watcher=$!
  wait_for watch.log "4 passed, 0 failed"
  cp src/lib.rs lib.rs.orig
  sed -i "s/\"$1.approval\"/\"$1.approval-renamed\"/" src/lib.rs
  wait_for watch.log "3 passed, 1 failed"
  cp lib.rs.orig src/lib.rs
  rm lib.rs.orig
  # The fix: a third run, all passing again.
  for _ in $(seq 1200); do
    [ "$(grep -c '4 passed, 0 failed' watch.log)" -ge 2 ] && break
    sleep 0.1
  done
  [ "$(grep -c '4 passed, 0 failed' watch.log)" -ge 2 ] || { echo "scaffold.sh: --watch did not re-run after the fix:" >&2; cat watch.log >&2; exit 1; }
  kill "$watcher"; wait "$watcher" 2>/dev/null || true
  rm watch.log
}

# The kit installed as a package in $WORK/kit-venv (from a copy of
# plugins/python, so setuptools' in-tree build/ stays out of the checkout).
python_kit_venv() {
  if [ ! -x "$WORK/kit-venv/bin/python" ]; then
    mkdir "$WORK/python-kit"
    cp -r "$REPO/plugins/python/toolvet_check" "$REPO/plugins/python/pyproject.toml" "$WORK/python-kit/"
    rm -rf "$WORK/python-kit/toolvet_check/__pycache__"
    "$PYTHON" -m venv "$WORK/kit-venv"
    "$WORK/kit-venv/bin/pip" install --quiet --disable-pip-version-check "$WORK/python-kit"
  fi
}

# Native unit tests of the check in the current directory: against the kit
# installed as a package alone (Python: the kit path the tests would fall
# back to does not exist), or the kit package linked by `npm install`.
native_tests() {
  case $1 in
    rust) cargo test --quiet ;;
    python) python_kit_venv; TOOLVET_PYTHON_KIT="$WORK/no-kit-here" "$WORK/kit-venv/bin/python" -m unittest -q ;;
    js) npm install --no-audit --no-fund --offline --silent && npm test --silent ;;
  esac
}

for lang in python js; do
  name="plain-$lang"
  echo "== $lang, without --results: $WORK/$name"
  "$TOOLVET" new "$name" --lang "$lang"
  (cd "$name" && native_tests "$lang")
  ! grep -rq "check_result\|checkResult\|ResultCheck\|resultCheck" "$name" --exclude-dir=node_modules \
    || { echo "scaffold.sh: $lang: a scaffold without --results has a result check" >&2; exit 1; }
done

for lang in rust python js; do
  name="no-secrets-$lang"
  echo "== $lang --results: $WORK/$name"
  "$TOOLVET" new "$name" --lang "$lang" --results
  cd "$name"
  for file in README.md .gitignore cases.yaml; do
    test -s "$file" || { echo "scaffold.sh: $lang: no $file" >&2; exit 1; }
  done
  component=$("$TOOLVET" build)
  if [ "$lang" = python ]; then
    ls "$TOOLVET_CACHE_DIR"/toolchains/python-*/bin/componentize-py > /dev/null \
      || { echo "scaffold.sh: the first Python build made no toolchain venv" >&2; exit 1; }
  fi
  test -f "$component" || { echo "scaffold.sh: $lang: build printed $component, which does not exist" >&2; exit 1; }
  native_tests "$lang"
  "$TOOLVET" test cases.yaml
  if [ "$lang" = rust ]; then watch_rebuilds "$name"; fi
  before=$(sha256sum < "$component")
  again=$("$TOOLVET" build)
  [ "$again" = "$component" ] || { echo "scaffold.sh: $lang: a rebuild printed $again, not $component" >&2; exit 1; }
  [ "$(sha256sum < "$component")" = "$before" ] || { echo "scaffold.sh: $lang: an unchanged rebuild changed the component" >&2; exit 1; }
  cat > policy.toml <<POLICY
[[check]]
name = "mine"
plugin = "$component"
settings = { blocked_words = ["DROP TABLE"] }

[[check]]
name = "tools"
plugin = "$REPO/target/plugins/tool_policy.wasm"
settings = { deny = ["nuke"] }
POLICY
  set +e
  verdict=$(echo '{"call": {"name": "run_sql", "arguments": {"query": "drop table users"}}}' | "$TOOLVET" check --config policy.toml)
  code=$?
  allowed=$(echo '{"call": {"name": "run_sql", "arguments": {"query": "select 1"}}}' | "$TOOLVET" check --config policy.toml)
  allowed_code=$?
  set -e
  [ "$code" = 3 ] && grep -q "\"rule\": *\"$name.blocked-word\"" <<< "$verdict" \
    || { echo "scaffold.sh: $lang: expected a deny by $name.blocked-word (exit 3), got exit $code: $verdict" >&2; exit 1; }
  [ "$allowed_code" = 0 ] || { echo "scaffold.sh: $lang: expected allow, got exit $allowed_code: $allowed" >&2; exit 1; }
  # A result holding a blocked word: masked by the host (exit 5), and the
  # run labelled.
  set +e
  masked=$(echo '{"call": {"id": "r1", "name": "read_log", "arguments": {}}, "result": {"content": {"text": "caf\u00e9: drop table users"}}}' \
    | "$TOOLVET" check-result --config policy.toml)
  masked_code=$?
  set -e
  [ "$masked_code" = 5 ] \
    && grep -q '"content": *{"text": *"café: \[redacted: blocked-word\] users"}' <<< "$masked" \
    && grep -q '"labels": *\[{"name": *"blocked-word-seen", *"check": *"mine"' <<< "$masked" \
    || { echo "scaffold.sh: $lang: expected the result masked (exit 5) and labelled, got exit $masked_code: $masked" >&2; exit 1; }
  cd "$WORK"
done
echo "scaffold.sh: Rust, Python and JavaScript checks built, tested and used outside the checkout, with result checks"
