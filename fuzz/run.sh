#!/usr/bin/env bash
# Build and run every toolvet fuzz target for a bounded time, then print one
# line per target with the executions run. Exits non-zero when a target
# finds a crash (the input is saved under fuzz/artifacts/<target>/).
#
#   bash fuzz/run.sh                    # every target, 20 s each
#   FUZZ_SECONDS=300 bash fuzz/run.sh   # longer
#   FUZZ_TARGETS="call_json" bash fuzz/run.sh
#   FUZZ_DEV=1 bash fuzz/run.sh         # unoptimised build (quicker to build)
#   FUZZ_BUILD_ONLY=1 bash fuzz/run.sh  # build the targets, run none
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`). cargo-fuzz passes nightly
# flags to rustc; RUSTC_BOOTSTRAP=1 lets the stable toolchain accept them.
set -euo pipefail
cd "$(dirname "$0")"

seconds=${FUZZ_SECONDS:-20}
targets=${FUZZ_TARGETS:-"policy_toml call_json ticket_parse shell_analyze path_normalize egress_url hook_payload mcp_message serve_body"}
# No sanitizer: the code under test is safe Rust, where libFuzzer finds
# panics, overflows (debug assertions on) and hangs; ASan would only slow
# it down. Set FUZZ_SANITIZER=address to use it anyway.
sanitizer=${FUZZ_SANITIZER:-none}
export RUSTC_BOOTSTRAP=1
# FUZZ_DEV=1 builds without optimisations (`cargo fuzz --dev`): a fraction
# of the build time of wasmtime and Cranelift with coverage instrumentation
# and one codegen unit, for short smoke runs where executions per second
# matter less than the build (make fuzz-smoke in CI).
profile=()
if [[ -n "${FUZZ_DEV:-}" ]]; then
    profile=(--dev)
fi

cargo fuzz build "${profile[@]}" --sanitizer "$sanitizer" --debug-assertions
# FUZZ_BUILD_ONLY=1: build, run nothing (`make fuzz-build`).
[[ -z "${FUZZ_BUILD_ONLY:-}" ]] || exit 0

mkdir -p target/fuzz-logs
summary=()
status=0
for t in $targets; do
    log=target/fuzz-logs/$t.log
    # Work on a copy of the seeds so runs do not grow the committed corpus.
    work=target/fuzz-corpus/$t
    mkdir -p "$work"
    cp -n corpus/"$t"/seed-* "$work"/ 2>/dev/null || true
    echo "== $t: ${seconds}s"
    if cargo fuzz run "${profile[@]}" --sanitizer "$sanitizer" --debug-assertions "$t" "$work" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len=65536 -print_final_stats=1 >"$log" 2>&1; then
        result=ok
    else
        result="FAILED (see fuzz/$log and fuzz/artifacts/$t/)"
        status=1
        tail -n 40 "$log"
    fi
    execs=$(grep -aoE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1 || true)
    cov=$(grep -aoE 'DONE +cov: [0-9]+' "$log" | grep -oE 'cov: [0-9]+' | tail -1 || true)
    summary+=("$t: ${execs:-?} execs in ${seconds}s, ${cov:-cov: ?}, $result")
done

echo
echo "fuzz summary"
printf '  %s\n' "${summary[@]}"
exit $status
