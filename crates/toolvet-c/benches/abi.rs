//! What the C ABI adds to a verdict: `toolvet_check` (the request's JSON
//! text in, the verdict's JSON text out) against the Rust API
//! (`Host::check_blocking` on a request parsed off the clock, and with the
//! same JSON work as the ABI around it), side by side in one run, on the example policy (decision log off, as `toolvet bench`
//! has it) and a compound `bash` call of the kind agents send.
//!
//! Each iteration is timed alone, and what is reported is the time
//! *outside* the verdict's own `duration_us` (the core's time inside the
//! checks), so the checks' cost, which is the same on both paths and much
//! larger, does not drown the difference. BENCHMARKS.md has the figures.
//!
//! `cargo bench -p toolvet-c --bench abi` (after `make plugins`).

#![allow(
    unsafe_code,
    reason = "it calls the C ABI as a C program would; each unsafe block says why it is sound"
)]

use criterion::{Criterion, criterion_group, criterion_main};
use std::ffi::{CStr, CString};
use std::path::PathBuf;
use std::time::{Duration, Instant};

const CALL: &str = r#"{"call":{"id":"c-bench","name":"bash","arguments":{"command":"cd /work/app && git status && git log --oneline -5 && grep -rn \"TODO\" src | head"}},"context":{"run_id":"run-bench","attributes":{"cwd":"/work/app"}}}"#;

/// The example policy without its decision log, in a scratch directory
/// with the plugins where it expects them.
fn policy(dir: &std::path::Path) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join("examples/toolvet.toml")).unwrap();
    let text: String = text
        .lines()
        .filter(|l| !l.starts_with("decision_log"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::create_dir_all(dir.join("examples")).unwrap();
    std::fs::create_dir_all(dir.join("target")).unwrap();
    std::os::unix::fs::symlink(root.join("target/plugins"), dir.join("target/plugins")).unwrap();
    let path = dir.join("examples/toolvet.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn abi(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let path = policy(dir.path());
    // The C ABI's host.
    let cpath = CString::new(path.to_str().unwrap()).unwrap();
    let mut host = std::ptr::null_mut();
    // SAFETY: valid strings and out-pointers.
    let status = unsafe {
        toolvet_c::toolvet_load_file(cpath.as_ptr(), &raw mut host, std::ptr::null_mut())
    };
    assert_eq!(status, toolvet_c::ToolvetStatus::ToolvetOk);
    // The Rust API's, loaded the same way (the preset every front end uses).
    let policy = toolvet_preset::policy_from_file(&path).unwrap();
    let rust =
        toolvet::block_on(toolvet::Host::load_with(policy, toolvet_preset::options())).unwrap();
    let request = toolvet::CallRequest::from_json(CALL).unwrap();
    assert_eq!(
        rust.check_blocking(&request).decision,
        toolvet::Decision::Allow
    );
    let call = CString::new(CALL).unwrap();

    let mut group = c.benchmark_group("abi");
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(8));
    // A request parsed afresh for every call, as a front end's is (the
    // core keeps work done for a request with it), parsed off the clock.
    group.bench_function("rust/check_blocking", |b| {
        b.iter_custom(|n| {
            let mut outside = Duration::ZERO;
            for _ in 0..n {
                let request = toolvet::CallRequest::from_json(CALL).unwrap();
                let start = Instant::now();
                let verdict = rust.check_blocking(&request);
                outside += start
                    .elapsed()
                    .saturating_sub(Duration::from_micros(verdict.duration_us));
            }
            outside
        });
    });
    // The Rust API with the C ABI's JSON work around it: what the ABI
    // adds besides the JSON.
    group.bench_function("rust/json+check_blocking+json", |b| {
        b.iter_custom(|n| {
            let mut outside = Duration::ZERO;
            for _ in 0..n {
                let start = Instant::now();
                let request = toolvet::CallRequest::from_json(CALL).unwrap();
                let verdict = rust.check_blocking(&request);
                let text = serde_json::to_value(&verdict).unwrap().to_string();
                std::hint::black_box(text);
                outside += start
                    .elapsed()
                    .saturating_sub(Duration::from_micros(verdict.duration_us));
            }
            outside
        });
    });
    group.bench_function("c/toolvet_check", |b| {
        b.iter_custom(|n| {
            let mut outside = Duration::ZERO;
            for _ in 0..n {
                let start = Instant::now();
                // SAFETY: a live host and a valid string; the answer is freed below.
                let out = unsafe { toolvet_c::toolvet_check(host, call.as_ptr()) };
                let elapsed = start.elapsed();
                // SAFETY: a string libtoolvet returned, freed once.
                let text = unsafe { CStr::from_ptr(out) }.to_str().unwrap().to_string();
                // SAFETY: as above.
                unsafe { toolvet_c::toolvet_string_free(out) };
                let verdict: serde_json::Value = serde_json::from_str(&text).unwrap();
                assert_eq!(verdict["decision"], "allow");
                let inside = verdict["duration_us"].as_u64().unwrap();
                outside += elapsed.saturating_sub(Duration::from_micros(inside));
            }
            outside
        });
    });
    group.finish();
    // SAFETY: loaded above, freed once.
    unsafe { toolvet_c::toolvet_host_free(host) };
}

criterion_group!(benches, abi);
criterion_main!(benches);
