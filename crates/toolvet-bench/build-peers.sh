#!/usr/bin/env bash
# Build the peer-benchmark rule as a toolvet component (wasm32-wasip2) and
# as an Extism plugin (wasm32-unknown-unknown), into target/plugins/bench/.
# Run from anywhere; needs `rustup target add wasm32-wasip2 wasm32-unknown-unknown`.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
manifest="$root/bench-peers/Cargo.toml"
cargo build --release --locked --manifest-path "$manifest" --target wasm32-wasip2 -p rule-toolvet
cargo build --release --locked --manifest-path "$manifest" --target wasm32-unknown-unknown -p rule-extism
mkdir -p "$root/target/plugins/bench"
cp "$root/bench-peers/target/wasm32-wasip2/release/bench_rule_toolvet.wasm" \
   "$root/bench-peers/target/wasm32-unknown-unknown/release/bench_rule_extism.wasm" \
   "$root/target/plugins/bench/"
