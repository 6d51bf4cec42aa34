#!/usr/bin/env bash
# Build the peer-benchmark rule (bench-peers/) into target/plugins/bench/:
# as a toolvet component (wasm32-wasip2; needed by every run of the
# benchmarks) and as an Extism plugin (wasm32-unknown-unknown; needed only
# with `--features peers`). Run from anywhere.
#
#   crates/toolvet-bench/build-peers.sh             # both
#   crates/toolvet-bench/build-peers.sh --no-extism # the toolvet rule only (CI smoke)
#
# Needs `rustup target add wasm32-wasip2` (and `wasm32-unknown-unknown`
# unless --no-extism).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
manifest="$root/bench-peers/Cargo.toml"
out="$root/target/plugins/bench"
mkdir -p "$out"
cargo build --release --locked --manifest-path "$manifest" --target wasm32-wasip2 -p rule-toolvet
cp "$root/bench-peers/target/wasm32-wasip2/release/bench_rule_toolvet.wasm" "$out/"
if [[ "${1:-}" != "--no-extism" ]]; then
  cargo build --release --locked --manifest-path "$manifest" --target wasm32-unknown-unknown -p rule-extism
  cp "$root/bench-peers/target/wasm32-unknown-unknown/release/bench_rule_extism.wasm" "$out/"
fi
