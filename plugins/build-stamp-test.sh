#!/usr/bin/env bash
# The Python and JavaScript builders decide "up to date" by content: a
# rebuild with the same inputs is skipped, another check writing the same
# output name (here the Python and the JS template, both `template.wasm`)
# is rebuilt, and a touched but unchanged source is not.
#
# Usage: plugins/build-stamp-test.sh PYTHON (the venv with componentize-py)
set -euo pipefail
cd "$(dirname "$0")/.."
python=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

step() {
    local what=$1 expect=$2
    shift 2
    local said
    said=$("$@")
    echo "$what: $said"
    [[ $said == *": $expect"* ]] || { echo "FAIL: $what: expected \"$expect\"" >&2; exit 1; }
}
# The Python template is built from a copy, so touching it leaves the
# checkout alone (the CLI embeds the template: touching the original made
# the next step recompile it).
mkdir -p "$out/src"
cp -R plugins/python/template "$out/src/"
mkdir -p "$out/wasm"
py() { "$python" plugins/python/build.py --out-dir "$out/wasm" "$out/src/template"; }
js() { node plugins/js/build.mjs --out-dir "$out/wasm" plugins/js/template; }

step "python, first build" built py
py_sha=$(sha256sum "$out/wasm/template.wasm" | cut -d' ' -f1)
step "python, same inputs" "up to date" py
touch "$out/src/template/template.py"
step "python, touched but unchanged" "up to date" py
step "javascript, same output name" built js
js_sha=$(sha256sum "$out/wasm/template.wasm" | cut -d' ' -f1)
[[ $py_sha != "$js_sha" ]] || { echo "FAIL: the JS build kept the Python component" >&2; exit 1; }
step "python again, over the JS component" built py
echo "build stamps: ok"
