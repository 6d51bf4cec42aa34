//! Fixtures shared by toolvet's benchmarks (`benches/host.rs`,
//! `benches/peers.rs`, `benches/serve_soak.rs`); see BENCHMARKS.md for
//! what is measured and how to run it.
//!
//! Everything here builds real inputs for the real host: policies are
//! parsed from TOML by [`toolvet::Policy::from_toml`], calls go through
//! [`toolvet::CallRequest::from_value`], and the plugins are the built
//! components under `target/plugins/` (`make rust-plugins`, `make plugins`)
//! plus the peer-benchmark rule under `target/plugins/bench/`
//! (`crates/toolvet-bench/build-peers.sh`). A missing component is a panic
//! naming the command that builds it, so a benchmark never silently skips.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use toolvet::{CallRequest, Host, Policy};

pub mod clock;
#[cfg(feature = "peers")]
pub mod peers;

/// Argument sizes (bytes of `call.arguments` JSON text) the size benchmarks
/// use: 100 B, 1 KB, 10 KB and 1 MB.
pub const SIZES: &[(usize, &str)] = &[
    (100, "100B"),
    (1_000, "1KB"),
    (10_000, "10KB"),
    (1_000_000, "1MB"),
];

/// History lengths (prior calls in `context.history`) the history
/// benchmarks use.
pub const HISTORIES: &[usize] = &[0, 50, 500];

/// The size of "a 1 KB call", the reference size of the per-check targets.
pub const ONE_KB: usize = 1_000;

/// The working directory every benchmark call runs in.
pub const CWD: &str = "/home/alice/project";

/// The repository root (two levels above this crate).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root exists")
}

/// Directory of the built components: `$TOOLVET_PLUGIN_DIR`, else
/// `<repo>/target/plugins`.
pub fn plugin_dir() -> PathBuf {
    std::env::var_os("TOOLVET_PLUGIN_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target/plugins"))
}

/// Path of a built component by file stem (e.g. `shell_guard`), panicking
/// with the command that builds it when it is missing.
pub fn plugin(stem: &str) -> PathBuf {
    let path = plugin_dir().join(format!("{stem}.wasm"));
    if !path.is_file() {
        let how = match stem {
            "spend_guard" => "make python-plugins",
            "message_guard" => "make js-plugins",
            s if s.starts_with("bench/") => "crates/toolvet-bench/build-peers.sh",
            _ => "make rust-plugins",
        };
        panic!("{} is missing: run `{how}` first", path.display());
    }
    path
}

/// Where the benchmarks keep their compiled-artifact cache (not the user's
/// cache): `$TOOLVET_CACHE_DIR` when set (the Makefile's shared cache),
/// else `<repo>/target/toolvet-bench/cache`.
pub fn cache_dir() -> PathBuf {
    std::env::var_os("TOOLVET_CACHE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target/toolvet-bench/cache"))
}

/// A multi-threaded tokio runtime with one worker per core of this machine
/// (2 here), as an embedding service would run.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2),
        )
        .enable_all()
        .build()
        .expect("tokio runtime")
}

/// One shipped Rust check with settings and a call that makes it do its
/// real work (the call's tool matches its default tool globs and the
/// arguments hold what it inspects).
#[derive(Debug, Clone)]
pub struct Fixture {
    /// Component file stem under `target/plugins/`.
    pub stem: &'static str,
    /// `[check.settings]` as TOML (may be empty), from the check's case file.
    pub settings: &'static str,
    /// Tool name of the call.
    pub tool: &'static str,
    /// Arguments of the call before padding.
    pub arguments: fn() -> Value,
    /// The argument padded with prose to reach a given size.
    pub pad_field: &'static str,
    /// The `tool` object of the call (e.g. a JSON Schema).
    pub tool_info: fn() -> Value,
    /// Prior calls the check needs (sequence-guard).
    pub history: fn() -> Vec<Value>,
}

fn no_tool_info() -> Value {
    json!({})
}

fn no_history() -> Vec<Value> {
    Vec::new()
}

/// The shipped Rust checks (the members of `plugins/Cargo.toml`), each with
/// a typical allowed call. Settings are those of the check's `cases.yaml`.
pub fn rust_checks() -> Vec<Fixture> {
    vec![
        Fixture {
            stem: "shell_guard",
            settings: "",
            tool: "bash",
            arguments: || json!({"command": "cargo test --workspace 2>&1 | tail -n 50"}),
            pad_field: "description",
            tool_info: no_tool_info,
            history: no_history,
        },
        Fixture {
            stem: "path_guard",
            settings: "",
            tool: "write_file",
            arguments: || json!({"path": "src/report.md"}),
            pad_field: "content",
            tool_info: no_tool_info,
            history: no_history,
        },
        Fixture {
            stem: "tool_policy",
            settings: r#"
deny = ["delete_repository", "shell_exec*"]
approve = ["deploy_*"]
allow = ["read_*", "list_*", "search_*", "get_*", "write_file", "github/*"]
rules = [
  { tools = ["send_test_*"], decision = "allow" },
  { tools = ["send_*", "post_*"], decision = "escalate", rule = "policy.outbound", message = "Messages leave the organisation; a person must check the recipients and the text." },
  { tools = ["get_secret*"], decision = "deny", rule = "policy.secrets", message = "Secrets are not available to the agent." },
  { tools = ["github/delete_*"], decision = "deny" },
]"#,
            tool: "write_file",
            arguments: || json!({"path": "src/report.md"}),
            pad_field: "content",
            tool_info: no_tool_info,
            history: no_history,
        },
        Fixture {
            stem: "egress_guard",
            settings: "",
            tool: "http_request",
            arguments: || json!({"url": "https://api.github.com/repos/toolvet/toolvet/issues?state=open", "method": "POST"}),
            pad_field: "body",
            tool_info: no_tool_info,
            history: no_history,
        },
        Fixture {
            stem: "secrets_guard",
            settings: "",
            tool: "send_email",
            arguments: || json!({"to": "team@example.com", "subject": "Weekly report"}),
            pad_field: "body",
            tool_info: no_tool_info,
            history: no_history,
        },
        Fixture {
            stem: "pii_guard",
            settings: "",
            tool: "send_email",
            arguments: || json!({"to": "team@example.com", "subject": "Weekly report"}),
            pad_field: "body",
            tool_info: no_tool_info,
            history: no_history,
        },
        Fixture {
            stem: "sql_guard",
            settings: r#"dialect = "postgres""#,
            tool: "run_query",
            arguments: || json!({"query": "SELECT id, name, email FROM users WHERE team_id = 42 ORDER BY name LIMIT 50"}),
            pad_field: "comment",
            tool_info: no_tool_info,
            history: no_history,
        },
        Fixture {
            stem: "schema_guard",
            settings: "",
            tool: "write_file",
            arguments: || json!({"path": "src/report.md", "overwrite": false}),
            pad_field: "content",
            tool_info: || {
                json!({"parameters_schema": {
                    "type": "object",
                    "properties": {
                        "path": {"type": "string", "minLength": 1},
                        "content": {"type": "string"},
                        "overwrite": {"type": "boolean"}
                    },
                    "required": ["path", "content"]
                }})
            },
            history: no_history,
        },
        Fixture {
            stem: "sequence_guard",
            settings: r#"
read_before_write = [
  { write = ["write_file", "edit_file"], read = ["read_file", "view_file"], key = "/path" },
  { write = "update_record", read = "get_record", key = "/id", normalize = "exact" },
]
only_after = [
  { tool = "deploy", after = "run_tests", invalidated_by = ["write_file", "edit_file"] },
  { tool = "merge_pull_request", after = "get_pull_request_status", immediately = true },
]
max_calls = [
  { tools = "send_email", max = 3 },
  { tools = "payments_*", max = 1, action = "escalate" },
]
loop_detection = { max_identical = 3, action = "escalate" }"#,
            tool: "write_file",
            arguments: || json!({"path": "src/report.md"}),
            pad_field: "content",
            tool_info: no_tool_info,
            history: || {
                vec![
                    json!({"name": "read_file", "arguments": {"path": "src/report.md"}, "outcome": "allowed"}),
                ]
            },
        },
    ]
}

/// The fixture of one Rust check by file stem.
pub fn fixture(stem: &str) -> Fixture {
    rust_checks()
        .into_iter()
        .find(|f| f.stem == stem)
        .unwrap_or_else(|| panic!("no fixture for {stem}"))
}

/// English prose used to pad arguments: what agents put in descriptions,
/// file contents and message bodies. Plain ASCII with nothing to escape in
/// JSON, so padding by N bytes adds exactly N bytes of JSON text.
const PROSE: &str = "The parser now keeps line numbers for every token, the cache is keyed by the content hash \
and the tests cover empty input, unicode names and very long lines. Next week we look at the \
release notes, the migration guide and the benchmarks of the new allocator. ";

/// `n` bytes of [`PROSE`], repeated as needed.
pub fn prose(n: usize) -> String {
    PROSE.bytes().cycle().take(n).map(char::from).collect()
}

/// `arguments` with `pad_field` set to prose so that the compact JSON text
/// of the arguments is exactly `size` bytes.
///
/// # Panics
/// If the arguments are already longer than `size` with an empty pad.
pub fn padded(arguments: Value, pad_field: &str, size: usize) -> Value {
    let mut args = arguments;
    let map = args.as_object_mut().expect("arguments are an object");
    map.insert(pad_field.to_string(), Value::String(String::new()));
    let base = args.to_string().len();
    assert!(
        base <= size,
        "arguments are {base} bytes before padding, over the {size}-byte target"
    );
    args[pad_field] = Value::String(prose(size - base));
    args
}

/// `n` distinct prior calls (reads of different files, all allowed), the
/// history of a long coding run.
pub fn history(n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| {
            json!({"name": "read_file", "arguments": {"path": format!("src/module_{i}.rs")}, "outcome": "allowed"})
        })
        .collect()
}

/// A call request: `tool` with `arguments`, the `tool` object, the given
/// history, agent/run ids and the `cwd` attribute.
pub fn request(tool: &str, arguments: Value, tool_info: Value, history: Vec<Value>) -> CallRequest {
    let value = json!({
        "call": {"id": "call_0001", "name": tool, "arguments": arguments},
        "tool": tool_info,
        "context": {
            "agent": "coder",
            "run_id": "run-42",
            "principal": "alice@example.com",
            "attributes": {"cwd": CWD},
            "history": history,
        }
    });
    CallRequest::from_value(value).expect("benchmark calls are valid")
}

impl Fixture {
    /// This fixture's call with arguments padded to `size` bytes.
    pub fn call(&self, size: usize) -> CallRequest {
        request(
            self.tool,
            padded((self.arguments)(), self.pad_field, size),
            (self.tool_info)(),
            (self.history)(),
        )
    }

    /// A policy with this check alone, with the given isolation
    /// (`per-call` or `reuse`).
    pub fn policy(&self, isolation: &str) -> Policy {
        single_check_policy(&plugin(self.stem), self.settings, isolation)
    }
}

/// The deadline of every benchmark check that does not set its own, in ms.
/// A benchmark measures what a call costs, and a deadline only matters once
/// it passes: with the 100 ms default, a slow first call on a busy machine
/// (CI's smoke run) failed as a timeout although nothing was wrong. The
/// benchmarks about deadlines set theirs explicitly.
pub const DEADLINE_MS: u64 = 10_000;

/// The `[host]` table of every benchmark policy: the benchmark cache
/// directory and [`DEADLINE_MS`], otherwise the defaults.
fn host_table() -> String {
    format!(
        "[host]\ncache_dir = {}\ndefault_timeout_ms = {DEADLINE_MS}\n",
        toml_str(&cache_dir())
    )
}

fn toml_str(path: &Path) -> String {
    Value::String(path.display().to_string()).to_string()
}

/// A policy with one check `bench` for `plugin`, `settings` (TOML body of
/// `[check.settings]`) and `isolation`.
pub fn single_check_policy(plugin: &Path, settings: &str, isolation: &str) -> Policy {
    let text = format!(
        "{}\n[[check]]\nname = \"bench\"\nplugin = {}\nisolation = \"{isolation}\"\n[check.settings]\n{settings}\n",
        host_table(),
        toml_str(plugin),
    );
    Policy::from_toml(&text, Path::new("<bench>"), &repo_root()).expect("benchmark policy is valid")
}

/// Where the default policy of the whole-policy benchmarks came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PolicySource {
    /// `examples/toolvet.toml`, with the benchmark cache directory.
    Examples(PathBuf),
    /// The stand-in: every shipped Rust check with its case-file settings.
    StandIn,
}

/// The default policy: `examples/toolvet.toml` when it exists (its cache
/// directory replaced by the benchmark's, its decision log, if any, moved
/// into `log_dir` so the benchmark pays for writing it without touching
/// the repository), else every shipped Rust check with the settings of its
/// case file, in per-call isolation. `parallel` sets `parallel_checks`.
pub fn default_policy(parallel: bool, log_dir: &Path) -> (Policy, PolicySource) {
    let examples = repo_root().join("examples/toolvet.toml");
    let (policy, source) = if examples.is_file() {
        let policy = Policy::from_file(&examples).expect("examples/toolvet.toml is valid");
        (policy, PolicySource::Examples(examples))
    } else {
        let mut text = host_table();
        for f in rust_checks() {
            text.push_str(&format!(
                "\n[[check]]\nname = \"{}\"\nplugin = {}\n[check.settings]\n{}\n",
                f.stem,
                toml_str(&plugin(f.stem)),
                f.settings
            ));
        }
        let policy = Policy::from_toml(&text, Path::new("<bench default policy>"), &repo_root())
            .expect("stand-in policy is valid");
        (policy, PolicySource::StandIn)
    };
    let policy = policy
        .edit(|host, approvals, checks| {
            host.cache_dir = Some(cache_dir());
            host.parallel_checks = parallel;
            for check in checks {
                check.timeout_ms = check.timeout_ms.max(DEADLINE_MS);
            }
            if host.decision_log.is_some() {
                host.decision_log = Some(log_dir.join("decisions.jsonl"));
            }
            // The approvals ledger and key, too, live in `log_dir`.
            if let Some(approvals) = approvals {
                approvals.ledger =
                    toolvet::config::LedgerLocation::Sqlite(log_dir.join("approvals.db"));
                approvals.key = toolvet::config::KeySource::File(log_dir.join("approvals.key"));
            }
        })
        .expect("the benchmark's changes keep the policy valid");
    (policy, source)
}

/// The call the serve benchmarks send over and over: [`typical_call`]
/// without a run id, so each is vetted alone. The server keeps the history
/// of a call's run (`[serve] run_history`), and one call repeated in one
/// run is a loop the example policy asks a person about after three.
pub fn serve_call(size: usize) -> CallRequest {
    let mut call = typical_call(size, 0);
    call.context.run_id = None;
    call
}

/// A policy file for `toolvet serve`, written to `dir/toolvet.toml`:
/// `examples/toolvet.toml` with its plugins, decision log, approvals ledger
/// and key given absolute paths (the log, ledger and key in `dir`), the
/// benchmark cache directory ([`cache_dir`]) and [`DEADLINE_MS`], and a
/// `[serve]` table that accepts `agent_token` and `reviewer_token` (by
/// their sha256), does not watch the file, and holds the `serve_extra`
/// lines (e.g. `max_concurrent_requests = 4096`).
pub fn serve_policy_file(
    dir: &Path,
    agent_token: &str,
    reviewer_token: &str,
    serve_extra: &str,
) -> PathBuf {
    use sha2::Digest;
    let root = repo_root();
    let text =
        std::fs::read_to_string(root.join("examples/toolvet.toml")).expect("examples/toolvet.toml");
    let plugins = root.join("target/plugins");
    let text = text
        .replace("\"../target/plugins/", &format!("\"{}/", plugins.display()))
        .replace(
            "decision_log = \"../target/toolvet-decisions.jsonl\"",
            &format!(
                "decision_log = {}\ncache_dir = {}",
                toml_str(&dir.join("decisions.jsonl")),
                toml_str(&cache_dir())
            ),
        )
        .replace("\"state/", &format!("\"{}/", dir.display()))
        .replace(
            "default_timeout_ms = 100\n",
            &format!("default_timeout_ms = {DEADLINE_MS}\n"),
        );
    let sha = |t: &str| hex::encode(sha2::Sha256::digest(t.as_bytes()));
    let text = format!(
        "{text}\n[serve]\nwatch = false\nagent_tokens_sha256 = [\"{}\"]\n\
         reviewer_tokens_sha256 = [\"{}\"]\n{serve_extra}\n",
        sha(agent_token),
        sha(reviewer_token)
    );
    let path = dir.join("toolvet.toml");
    std::fs::write(&path, text).expect("writing the serve policy");
    path
}

/// The resident set size (`VmRSS`) and its peak (`VmHWM`) of process
/// `pid`, in KiB, from `/proc/<pid>/status`; `None` once the process is
/// gone (or off Linux).
pub fn memory_kib(pid: u32) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| -> Option<u64> {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))?
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

/// The `p` quantile (0..=1, nearest rank) of `sorted`, which must be
/// sorted; `None` when it is empty.
pub fn percentile<T: Copy>(sorted: &[T], p: f64) -> Option<T> {
    let last = sorted.len().checked_sub(1)?;
    Some(sorted[((last as f64) * p.clamp(0.0, 1.0)).round() as usize])
}

/// A policy in which tool-policy escalates `deploy` and allows `read_file`,
/// with approvals in `ledger` (`"memory"` or a file name in `dir`) and a
/// key file in `dir`.
pub fn approvals_policy(dir: &Path, ledger: &str) -> Policy {
    let text = format!(
        "{}\n[approvals]\nledger = {}\nkey_file = \"approvals.key\"\n\
         [[check]]\nname = \"tools\"\nplugin = {}\nisolation = \"reuse\"\n\
         [check.settings]\napprove = [\"deploy\"]\nallow = [\"read_file\"]\n",
        host_table(),
        toml_str(Path::new(ledger)),
        toml_str(&plugin("tool_policy")),
    );
    Policy::from_toml(&text, Path::new("<bench approvals>"), dir)
        .expect("approvals policy is valid")
}

/// The typical call of the whole-policy benchmarks: a coding agent's
/// `bash` call (the most frequent tool call) with arguments padded to
/// `size` bytes and `history` prior calls.
pub fn typical_call(size: usize, history_len: usize) -> CallRequest {
    request(
        "bash",
        padded(
            json!({"command": "cargo test --workspace 2>&1 | tail -n 50"}),
            "description",
            size,
        ),
        json!({"description": "Run a shell command in the workspace"}),
        history(history_len),
    )
}

/// Load `policy` on `rt`.
///
/// # Panics
/// If a check fails to load: a benchmark of a broken policy measures
/// nothing useful.
pub fn load(rt: &tokio::runtime::Runtime, policy: Policy) -> Host {
    rt.block_on(Host::load(policy))
        .unwrap_or_else(|e| panic!("loading the benchmark policy: {e}"))
}

/// The peer-benchmark rule as a toolvet component
/// (`target/plugins/bench/bench_rule_toolvet.wasm`).
pub fn rule_plugin() -> PathBuf {
    plugin("bench/bench_rule_toolvet")
}

/// The peer-benchmark rule as an Extism plugin
/// (`target/plugins/bench/bench_rule_extism.wasm`).
pub fn rule_extism_plugin() -> PathBuf {
    plugin("bench/bench_rule_extism")
}

/// The calls of the peer benchmarks: `bash` with an allowed command (the
/// common case) and with a denied one, arguments padded to `size` bytes.
pub fn rule_calls(size: usize) -> [(&'static str, CallRequest); 2] {
    let call = |command: &str| {
        request(
            "bash",
            padded(json!({"command": command}), "description", size),
            json!({}),
            Vec::new(),
        )
    };
    [
        ("allow", call("ls -la /home/alice/project")),
        ("deny", call("rm -rf /home/alice/project/build")),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_hits_the_exact_size() {
        for &(size, _) in SIZES {
            let call = typical_call(size, 0);
            assert_eq!(call.call.arguments.get().len(), size);
        }
        for f in rust_checks() {
            assert_eq!(
                f.call(ONE_KB).call.arguments.get().len(),
                ONE_KB,
                "{}",
                f.stem
            );
        }
        for (_, call) in rule_calls(100) {
            assert_eq!(call.call.arguments.get().len(), 100);
        }
    }

    #[test]
    fn padding_refuses_targets_below_the_base_size() {
        let r = std::panic::catch_unwind(|| padded(json!({"command": "x".repeat(200)}), "d", 100));
        assert!(r.is_err());
    }

    #[test]
    fn history_entries_are_distinct_and_valid() {
        let call = typical_call(ONE_KB, 500);
        assert_eq!(call.context.history.len(), 500);
        assert_ne!(
            call.context.history[0].arguments.get(),
            call.context.history[1].arguments.get()
        );
    }

    #[test]
    fn prose_needs_no_json_escaping() {
        let p = prose(5_000);
        assert_eq!(Value::String(p.clone()).to_string().len(), p.len() + 2);
    }

    #[test]
    fn the_serve_policy_is_the_example_policy_with_tokens() {
        let dir = tempfile::tempdir().unwrap();
        let path = serve_policy_file(dir.path(), "agent-t", "reviewer-t", "retry_after_s = 2");
        let policy = Policy::from_file(&path).expect("the serve policy parses");
        let example = Policy::from_file(&repo_root().join("examples/toolvet.toml")).unwrap();
        assert_eq!(policy.checks().len(), example.checks().len());
        for check in policy.checks() {
            assert!(check.plugin.starts_with(repo_root().join("target/plugins")));
        }
        assert_eq!(policy.host().default_timeout_ms, DEADLINE_MS);
        assert_eq!(policy.host().cache_dir, Some(cache_dir()));
        assert_eq!(
            policy.host().decision_log,
            Some(dir.path().join("decisions.jsonl"))
        );
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains(&hex::encode(<sha2::Sha256 as sha2::Digest>::digest(
                b"agent-t"
            )))
        );
        assert!(
            text.contains(&hex::encode(<sha2::Sha256 as sha2::Digest>::digest(
                b"reviewer-t"
            )))
        );
        assert!(text.contains("\nretry_after_s = 2\n"));
        assert!(!text.contains("\"state/") && !text.contains("\"../target/"));
    }

    #[test]
    fn percentiles_by_nearest_rank() {
        let sorted: Vec<u32> = (1..=100).collect();
        assert_eq!(percentile(&sorted, 0.5), Some(51));
        assert_eq!(percentile(&sorted, 0.99), Some(99));
        assert_eq!(percentile(&sorted, 1.0), Some(100));
        assert_eq!(percentile(&sorted, 0.0), Some(1));
        assert_eq!(percentile::<u32>(&[], 0.5), None);
    }

    #[test]
    fn memory_of_this_process() {
        let (rss, peak) = memory_kib(std::process::id()).expect("/proc/self/status");
        assert!(rss > 0 && peak >= rss, "{rss} {peak}");
        assert_eq!(memory_kib(u32::MAX), None);
    }

    #[test]
    fn policies_parse_with_settings() {
        let fixtures = rust_checks();
        assert_eq!(fixtures.len(), 9);
        for f in fixtures {
            let text = format!(
                "[[check]]\nname = \"x\"\nplugin = \"x.wasm\"\n[check.settings]\n{}\n",
                f.settings
            );
            let policy = Policy::from_toml(&text, Path::new("t"), Path::new("/")).unwrap();
            assert!(policy.checks()[0].settings.is_object(), "{}", f.stem);
        }
    }
}
