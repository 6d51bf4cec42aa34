//! Helpers for toolvet's end-to-end tests (`tests/tests/*.rs` and
//! `tests/tests/all/`): where the built fixtures and binaries are, policies written as JSON and loaded
//! through the real TOML parser, calls, and process measurements.
//!
//! Everything here resolves paths from this crate's directory
//! (`CARGO_MANIFEST_DIR`), so the tests run from any working directory, and
//! fails with a message saying what to build when an input is missing.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use toolvet::{CallRequest, Host, Policy, Verdict};

/// The repository root (the parent of this crate's directory).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// Directory of the hostile-plugin corpus: `../target/hostile`.
pub fn hostile_dir() -> PathBuf {
    repo_root().join("target").join("hostile")
}

/// Absolute path of a fixture of the hostile corpus, e.g. `hostile.wasm`.
///
/// # Panics
/// When the file does not exist, with the command that builds it.
pub fn fixture(file: &str) -> String {
    let path = hostile_dir().join(file);
    assert!(
        path.is_file(),
        "hostile fixture {} is missing: run `bash tests/hostile/build.sh` from the repository root first",
        path.display()
    );
    path.to_str().expect("UTF-8 path").to_string()
}

/// A shipped check's component, `target/plugins/<name>.wasm` (built by
/// `make plugins`).
///
/// # Panics
/// When it has not been built, with the command that builds it.
pub fn shipped_plugin(name: &str) -> PathBuf {
    let path = repo_root()
        .join("target/plugins")
        .join(format!("{name}.wasm"));
    assert!(
        path.exists(),
        "{} is missing: run `make plugins` first",
        path.display()
    );
    path
}

/// The `toolvet` CLI built in release mode: `../target/release/toolvet`.
///
/// # Panics
/// When it has not been built, with the command that builds it.
pub fn cli_binary() -> PathBuf {
    let path = repo_root().join("target").join("release").join("toolvet");
    assert!(
        path.is_file(),
        "{} is missing: run `cargo build --release -p toolvet-cli` first",
        path.display()
    );
    path
}

/// Compiled-artifact cache shared by the tests: `$TOOLVET_CACHE_DIR` when
/// set (the Makefile shares one under `target/` between its jobs, so each
/// check is compiled and snapshotted once per run), else one under
/// `target/`; never the user's cache directory.
pub fn cache_dir() -> PathBuf {
    std::env::var_os("TOOLVET_CACHE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            repo_root()
                .join("target")
                .join("tmp")
                .join("toolvet-tests-cache")
        })
}

/// What a run of the CLI printed, and its exit code.
#[derive(Debug)]
pub struct CliRun {
    /// Exit code.
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// Run the release CLI ([`cli_binary`]) with `args` in `dir`, `stdin` on its
/// standard input, and the tests' [`cache_dir`].
///
/// # Panics
/// When it cannot start or is killed by a signal.
pub fn run_cli(args: &[&str], dir: &Path, stdin: &str) -> CliRun {
    use std::io::Write;
    let mut child = std::process::Command::new(cli_binary())
        .args(args)
        .current_dir(dir)
        .env("TOOLVET_CACHE_DIR", cache_dir())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run toolvet");
    let mut input = child.stdin.take().expect("piped stdin");
    // A run that fails before reading its input closes the pipe early.
    if let Err(e) = input.write_all(stdin.as_bytes()) {
        assert_eq!(
            e.kind(),
            std::io::ErrorKind::BrokenPipe,
            "writing stdin: {e}"
        );
    }
    drop(input);
    let out = child.wait_with_output().expect("wait for toolvet");
    CliRun {
        code: out.status.code().expect("exited, not killed by a signal"),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Like [`run_cli`], but the run must end within `limit`: a run still
/// going then is killed and the test fails (a hang is a failure, not a
/// stuck test run). No standard input.
///
/// # Panics
/// When it cannot start, is killed by a signal, or runs past `limit`.
pub fn run_cli_within(limit: Duration, args: &[&str], dir: &Path) -> (CliRun, Duration) {
    let started = Instant::now();
    let mut child = std::process::Command::new(cli_binary())
        .args(args)
        .current_dir(dir)
        .env("TOOLVET_CACHE_DIR", cache_dir())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run toolvet");
    while child.try_wait().expect("poll toolvet").is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("toolvet {args:?} still running after {limit:?}: killed");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("wait for toolvet");
    let run = CliRun {
        code: out.status.code().expect("exited, not killed by a signal"),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    (run, started.elapsed())
}

/// A `[[check]]` table as JSON: `name`, the fixture `file` of the hostile
/// corpus, its `settings`, and any further keys (`timeout_ms`, `on_error`,
/// `tools`, `mode`, `isolation`, ...) from `extra`, which must be an object.
pub fn check(name: &str, file: &str, settings: Value, extra: Value) -> Value {
    let mut table = json!({
        "name": name,
        "plugin": fixture(file),
        "settings": settings,
    });
    let Value::Object(extra) = extra else {
        panic!("`extra` must be a JSON object, got {extra}");
    };
    table.as_object_mut().unwrap().extend(extra);
    table
}

/// A policy from JSON of the shape `{"host": {...}, "check": [...]}`,
/// written out as TOML and parsed with [`Policy::from_toml`] (so every
/// policy the tests use went through the real parser and validation). The
/// test cache directory is filled in unless `host.cache_dir` is given.
///
/// # Panics
/// When the policy does not parse; use [`policy_text`] and
/// [`Policy::from_toml`] to test invalid policies.
pub fn policy(spec: Value) -> Policy {
    let text = policy_text(spec);
    Policy::from_toml(&text, Path::new("<test policy>"), &hostile_dir())
        .unwrap_or_else(|e| panic!("test policy does not parse: {e}\n{text}"))
}

/// The TOML text of a policy given as JSON (see [`policy`]).
pub fn policy_text(mut spec: Value) -> String {
    let root = spec.as_object_mut().expect("policy spec is a JSON object");
    let host = root.entry("host").or_insert_with(|| json!({}));
    host.as_object_mut()
        .expect("`host` is an object")
        .entry("cache_dir")
        .or_insert_with(|| json!(cache_dir().to_str().expect("UTF-8 path")));
    toml::to_string(&spec).expect("a JSON policy spec is expressible as TOML")
}

/// Load a host from a policy given as JSON (see [`policy`]).
///
/// # Errors
/// Whatever [`Host::load`] returns.
pub async fn load(spec: Value) -> Result<Host, toolvet::Error> {
    Host::load(policy(spec)).await
}

/// Load a host that must load.
///
/// # Panics
/// With the load error.
pub async fn load_ok(spec: Value) -> Host {
    match load(spec).await {
        Ok(host) => host,
        Err(e) => panic!("the policy should load, but: {e}"),
    }
}

/// Load a host that must fail to load with exactly one [`toolvet::LoadError`],
/// and return it together with the wall time the load took.
///
/// # Panics
/// When the host loads, or fails for another reason.
pub async fn load_err(spec: Value) -> (toolvet::LoadError, Duration) {
    let started = Instant::now();
    let result = load(spec).await;
    let elapsed = started.elapsed();
    match result {
        Ok(_) => panic!("the policy should not load"),
        Err(toolvet::Error::Load(mut errors)) => {
            assert_eq!(errors.len(), 1, "expected one load error: {errors:?}");
            (errors.remove(0), elapsed)
        }
        Err(e) => panic!("expected a plugin load error, got: {e}"),
    }
}

/// Each check of `host` as `(name, contract line, vets results)`, e.g.
/// `("secrets", Some("0.2.0"), Some(true))`; `None`s for a check that did
/// not load.
pub fn contracts(host: &Host) -> Vec<(String, Option<&'static str>, Option<bool>)> {
    host.checks()
        .into_iter()
        .map(|c| (c.name, c.contract, c.vets_results))
        .collect()
}

/// A call of `tool` with `arguments` (a JSON object).
pub fn call(tool: &str, arguments: Value) -> CallRequest {
    CallRequest::new(tool, &arguments).expect("a valid test call")
}

/// Vet `request` and return the verdict with the wall time `host.check`
/// took.
pub async fn timed_check(host: &Host, request: &CallRequest) -> (Verdict, Duration) {
    let started = Instant::now();
    let verdict = host.check(request).await;
    (verdict, started.elapsed())
}

/// Resident set size of this process, in KiB (`VmRSS` of
/// `/proc/self/status`), or `None` where that file does not exist.
pub fn rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Everything `tracing` emits on this thread while the guard lives, as
/// text: what the host forwards from plugins (their logs, stdout, stderr,
/// the count of dropped bytes). Works with `#[tokio::test]`'s default
/// current-thread runtime, where checks run on the test's thread.
pub fn capture_tracing() -> (tracing::subscriber::DefaultGuard, CapturedText) {
    let text = CapturedText::default();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .with_writer(text.clone())
        .finish();
    (tracing::subscriber::set_default(subscriber), text)
}

/// Text written by a [`capture_tracing`] subscriber.
#[derive(Clone, Default, Debug)]
pub struct CapturedText(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl CapturedText {
    /// What was written so far.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

impl std::io::Write for CapturedText {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for CapturedText {
    type Writer = CapturedText;

    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}
