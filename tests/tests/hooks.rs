//! `toolvet hook AGENT` end to end: the real binary, each agent's recorded
//! payloads (tests/hooks/payloads/, from each agent's documented schema)
//! and the example policy (examples/toolvet.toml, unchanged but for its
//! state paths). Every failure path of every agent must block in that
//! agent's terms, including the fail-open traps of docs/hooks.md.

use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use toolvet_tests::{cli_binary, repo_root};

/// A failure path: what it is, the policy, the payload, the environment and
/// extra arguments of the hook.
type FailureCase<'a> = (
    &'a str,
    &'a Path,
    String,
    Vec<(&'a str, &'a str)>,
    Vec<&'a str>,
);

const AGENTS: [&str; 5] = ["claude-code", "codex", "gemini-cli", "cursor", "copilot"];

/// The example policy with its plugin paths absolute and its state in `dir`.
fn example_policy(dir: &Path, extra: &str) -> PathBuf {
    let text = std::fs::read_to_string(repo_root().join("examples/toolvet.toml")).unwrap();
    let plugins = repo_root().join("target/plugins");
    let text = text
        .replace("../target/plugins", &plugins.display().to_string())
        .replace("../target/toolvet-decisions.jsonl", "decisions.jsonl")
        .replace("state/approvals", &format!("{}/approvals", dir.display()));
    let cache = toolvet_tests::cache_dir();
    let text = text.replacen(
        "[host]\n",
        &format!("[host]\ncache_dir = \"{}\"\n", cache.display()),
        1,
    );
    let path = dir.join("toolvet.toml");
    std::fs::write(
        &path,
        format!("{text}\n[hooks]\nstate_dir = \"hooks-state\"\n{extra}\n"),
    )
    .unwrap();
    warm_cache(&path);
    path
}

/// Warm the shared cache for the example policy once, as users do before
/// the first call: `toolvet hook install` (printing the settings, writing
/// nothing) loads every check as the hook will, with no deadline, so each
/// is compiled, its snapshot taken and its tool globs recorded. The hooks
/// then answer within their deadline (a cold cache takes over a minute on
/// a busy machine, and a hook killed by its watchdog stores nothing).
fn warm_cache(policy: &Path) {
    static WARM: std::sync::Once = std::sync::Once::new();
    WARM.call_once(|| {
        let out = Command::new(cli_binary())
            .args(["hook", "install", "claude-code", "--config"])
            .arg(policy)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "warming the cache: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    });
}

fn payload(agent: &str, file: &str, subst: &[(&str, &str)]) -> String {
    let mut text = std::fs::read_to_string(
        repo_root()
            .join("tests/hooks/payloads")
            .join(agent)
            .join(file),
    )
    .unwrap();
    for (from, to) in subst {
        text = text.replace(from, to);
    }
    text
}

struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

fn hook(agent: &str, policy: &Path, input: &str, env: &[(&str, &str)], extra: &[&str]) -> Ran {
    // One hook process at a time, as an agent runs a call's hook: the
    // example policy gives each check 100 ms, which a cold process meets
    // alone but not with the other tests' hooks starting on the same cores.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let mut child = Command::new(cli_binary())
        .args(["hook", agent, "--config"])
        .arg(policy)
        .args(extra)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The hook may answer (and exit) before reading everything.
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    let out = child.wait_with_output().unwrap();
    Ran {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into(),
        stderr: String::from_utf8_lossy(&out.stderr).into(),
    }
}

/// What the agent would do with this answer, by its documented rules.
#[derive(Debug, PartialEq)]
enum Seen {
    Allow,
    Deny,
    Ask,
    /// No decision: the agent's own permission rules apply.
    Silent,
}

fn seen(agent: &str, ran: &Ran) -> Seen {
    let exit_2_blocks = matches!(agent, "claude-code" | "codex" | "gemini-cli");
    if exit_2_blocks && ran.code == 2 {
        // Codex: exit 2 blocks only with a reason on stderr.
        assert!(
            !ran.stderr.trim().is_empty(),
            "{agent}: exit 2 without a reason"
        );
        return Seen::Deny;
    }
    assert_eq!(
        ran.code, 0,
        "{agent}: any other exit code fails open: {}",
        ran.stderr
    );
    if ran.stdout.trim().is_empty() {
        return Seen::Silent;
    }
    assert!(
        ran.stdout.len() < 10_000,
        "Claude Code caps hook output at 10,000 chars"
    );
    let v: Value = serde_json::from_str(&ran.stdout)
        .unwrap_or_else(|e| panic!("{agent}: invalid JSON fails open: {e}: {}", ran.stdout));
    let decision = match agent {
        "claude-code" | "codex" => {
            let out = &v["hookSpecificOutput"];
            assert_eq!(
                out["hookEventName"], "PreToolUse",
                "without it the output is ignored"
            );
            out["permissionDecision"].clone()
        }
        "gemini-cli" => v["decision"].clone(),
        "cursor" => v["permission"].clone(),
        "copilot" => v["permissionDecision"].clone(),
        _ => unreachable!(),
    };
    match decision.as_str() {
        Some("allow") => {
            assert_ne!(
                agent, "codex",
                "Codex: a bare allow is an unsupported decision"
            );
            Seen::Allow
        }
        Some("deny") => Seen::Deny,
        Some("ask") => {
            assert!(
                matches!(agent, "claude-code" | "cursor" | "copilot"),
                "{agent}: ask is unsupported (Codex fails open on it)"
            );
            Seen::Ask
        }
        other => panic!("{agent}: unknown decision {other:?}"),
    }
}

/// The shell payload of each agent with `command` in it.
fn shell(agent: &str, command: &str) -> String {
    let file = match agent {
        "claude-code" | "codex" => "bash.json",
        "gemini-cli" => "run_shell_command.json",
        "cursor" => "beforeShellExecution.json",
        "copilot" => "preToolUse-bash.json",
        _ => unreachable!(),
    };
    let escaped = serde_json::to_string(command).unwrap();
    let escaped = &escaped[1..escaped.len() - 1];
    // Copilot's toolArgs is JSON text inside a JSON string.
    let escaped = if agent == "copilot" {
        let twice = serde_json::to_string(escaped).unwrap();
        twice[1..twice.len() - 1].to_string()
    } else {
        escaped.to_string()
    };
    payload(agent, file, &[("COMMAND", &escaped)])
}

#[test]
fn each_agent_allows_denies_and_escalates_its_real_payloads() {
    let dir = tempfile::tempdir().unwrap();
    let policy = example_policy(dir.path(), "");
    for agent in AGENTS {
        let allow = hook(
            agent,
            &policy,
            &shell(agent, "cargo test --workspace"),
            &[],
            &[],
        );
        let expected_allow = if agent == "cursor" {
            Seen::Allow
        } else {
            Seen::Silent
        };
        assert_eq!(
            seen(agent, &allow),
            expected_allow,
            "{agent}: {}",
            allow.stdout
        );

        let deny = hook(agent, &policy, &shell(agent, "rm -rf ~"), &[], &[]);
        assert_eq!(seen(agent, &deny), Seen::Deny, "{agent}: {}", deny.stdout);
        assert!(
            deny.stdout.contains("toolvet denied this call [shell."),
            "{}",
            deny.stdout
        );

        let held = hook(
            agent,
            &policy,
            &shell(agent, "terraform destroy -auto-approve"),
            &[],
            &[],
        );
        let expected = match agent {
            "claude-code" | "cursor" | "copilot" => Seen::Ask,
            _ => Seen::Deny,
        };
        assert_eq!(seen(agent, &held), expected, "{agent}: {}", held.stdout);
        assert!(
            held.stdout.contains("apr_"),
            "{agent}: names the request: {}",
            held.stdout
        );
    }
}

#[test]
fn the_default_maps_apply_the_example_policy_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let policy = example_policy(dir.path(), "");
    let cron = [("PATH", "/etc/cron.d/backdoor")];
    for (agent, file) in [
        ("claude-code", "write.json"),
        ("gemini-cli", "write_file.json"),
    ] {
        let ran = hook(agent, &policy, &payload(agent, file, &cron), &[], &[]);
        assert_eq!(seen(agent, &ran), Seen::Deny, "{agent}: {}", ran.stdout);
        assert!(ran.stdout.contains("path."), "{}", ran.stdout);
    }
    let metadata = payload(
        "claude-code",
        "webfetch.json",
        &[("URL", "http://169.254.169.254/latest/meta-data/")],
    );
    let ran = hook("claude-code", &policy, &metadata, &[], &[]);
    assert_eq!(seen("claude-code", &ran), Seen::Deny, "{}", ran.stdout);
    assert!(ran.stdout.contains("egress."), "{}", ran.stdout);
    let ssh = payload(
        "cursor",
        "beforeReadFile.json",
        &[("PATH", "/home/alice/.ssh/id_rsa")],
    );
    let ran = hook("cursor", &policy, &ssh, &[], &[]);
    assert_eq!(seen("cursor", &ran), Seen::Deny, "{}", ran.stdout);
    let mcp = payload("cursor", "beforeMCPExecution.json", &[]);
    let ran = hook("cursor", &policy, &mcp, &[], &[]);
    assert_eq!(
        seen("cursor", &ran),
        Seen::Deny,
        "drop_database is on the kill list: {}",
        ran.stdout
    );
}

#[test]
fn history_carries_across_invocations_so_sequence_rules_work() {
    let dir = tempfile::tempdir().unwrap();
    let policy = example_policy(dir.path(), "");
    let edit = payload("claude-code", "edit.json", &[]);
    let read = payload("claude-code", "read.json", &[]);
    let first = hook("claude-code", &policy, &edit, &[], &[]);
    assert_ne!(
        seen("claude-code", &first),
        Seen::Silent,
        "an edit of an unread file: {}",
        first.stdout
    );
    assert!(first.stdout.contains("sequence."), "{}", first.stdout);
    let ran = hook("claude-code", &policy, &read, &[], &[]);
    assert_eq!(seen("claude-code", &ran), Seen::Silent, "{}", ran.stdout);
    let ran = hook("claude-code", &policy, &edit, &[], &[]);
    assert_eq!(
        seen("claude-code", &ran),
        Seen::Silent,
        "read first, then edit: {}",
        ran.stdout
    );
    // Another session starts with an empty history.
    let other = edit.replace("9b2f6e0c-4d1a-4c55-9a7e-1f0c2d3e4a5b", "another-session");
    let ran = hook("claude-code", &policy, &other, &[], &[]);
    assert_ne!(seen("claude-code", &ran), Seen::Silent, "{}", ran.stdout);
}

#[test]
fn a_codex_deny_naming_the_request_runs_once_approved() {
    let dir = tempfile::tempdir().unwrap();
    let policy = example_policy(dir.path(), "");
    let call = shell("codex", "terraform destroy -auto-approve");
    let held = hook("codex", &policy, &call, &[], &[]);
    assert_eq!(seen("codex", &held), Seen::Deny);
    let id = held.stdout.split("approval request ").nth(1).unwrap();
    let id: String = id
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    let approved = Command::new(cli_binary())
        .args([
            "approvals",
            "approve",
            &id,
            "--reviewer",
            "alice",
            "--config",
        ])
        .arg(&policy)
        .output()
        .unwrap();
    assert!(
        approved.status.success(),
        "{}",
        String::from_utf8_lossy(&approved.stderr)
    );
    let ran = hook("codex", &policy, &call, &[], &[]);
    assert_eq!(
        seen("codex", &ran),
        Seen::Silent,
        "approved: runs: {}",
        ran.stdout
    );
    let again = hook("codex", &policy, &call, &[], &[]);
    assert_eq!(seen("codex", &again), Seen::Deny, "once: {}", again.stdout);
}

/// Every agent, every failure path: a block in that agent's terms.
#[test]
fn every_failure_path_blocks_for_every_agent() {
    let dir = tempfile::tempdir().unwrap();
    let policy = example_policy(dir.path(), "");
    let broken = dir.path().join("broken.toml");
    std::fs::write(&broken, "[host\n").unwrap();
    let bad_hooks = dir.path().join("bad-hooks.toml");
    std::fs::write(&bad_hooks, "[hooks]\nstate_dirr = \"x\"\n").unwrap();
    let missing_plugin = dir.path().join("missing.toml");
    std::fs::write(
        &missing_plugin,
        "[[check]]\nname = \"x\"\nplugin = \"nope.wasm\"\n",
    )
    .unwrap();
    // The history directory is a file: the host cannot keep the session.
    let no_history = dir.path().join("no-history");
    std::fs::create_dir(&no_history).unwrap();
    std::fs::write(no_history.join("state"), "").unwrap();
    let no_history = example_policy(&no_history, "")
        .to_str()
        .unwrap()
        .to_string();
    let text = std::fs::read_to_string(&no_history)
        .unwrap()
        .replace("state_dir = \"hooks-state\"", "state_dir = \"state/sub\"");
    std::fs::write(&no_history, text).unwrap();
    // A check that never returns, under a hook deadline of 300 ms.
    let hanging = dir.path().join("hanging.toml");
    std::fs::write(
        &hanging,
        format!(
            "[host]\ncache_dir = \"{}\"\n[[check]]\nname = \"slow\"\nplugin = \"{}\"\ntimeout_ms = 60000\n[check.settings]\nbehave = \"loop\"\n",
            toolvet_tests::cache_dir().display(),
            toolvet_tests::fixture("hostile.wasm")
        ),
    )
    .unwrap();

    for agent in AGENTS {
        let call = shell(agent, "ls");
        let cases: Vec<FailureCase> = vec![
            (
                "missing policy",
                Path::new("/nonexistent/toolvet.toml"),
                call.clone(),
                vec![],
                vec![],
            ),
            ("invalid policy", &broken, call.clone(), vec![], vec![]),
            (
                "bad [hooks] table",
                &bad_hooks,
                call.clone(),
                vec![],
                vec![],
            ),
            (
                "plugin fails to load",
                &missing_plugin,
                call.clone(),
                vec![],
                vec![],
            ),
            (
                "history unusable",
                Path::new(&no_history),
                call.clone(),
                vec![],
                vec![],
            ),
            ("not JSON", &policy, "{not json".into(), vec![], vec![]),
            ("empty input", &policy, String::new(), vec![], vec![]),
            ("not an object", &policy, "[1,2]".into(), vec![], vec![]),
            (
                "wrong event",
                &policy,
                call.replace("PreToolUse", "PostToolUse")
                    .replace("BeforeTool", "AfterTool")
                    .replace("beforeShellExecution", "afterShellExecution")
                    .replace(
                        "\"timestamp\"",
                        "\"hookEventName\":\"postToolUse\",\"timestamp\"",
                    ),
                vec![],
                vec![],
            ),
            (
                "mistyped field",
                &policy,
                call.replace("\"cwd\":\"/home/alice/project\"", "\"cwd\":7"),
                vec![],
                vec![],
            ),
            (
                "check hangs",
                &hanging,
                call.clone(),
                vec![],
                vec!["--timeout-ms", "300"],
            ),
            (
                "panic",
                &policy,
                call.clone(),
                vec![("TOOLVET_HOOK_FAULT", "panic")],
                vec![],
            ),
            (
                "hang",
                &policy,
                call.clone(),
                vec![("TOOLVET_HOOK_FAULT", "hang")],
                vec!["--timeout-ms", "200"],
            ),
            // A mistyped settings entry: clap's usage error alone (exit 2)
            // would let Cursor and Copilot run the tool.
            (
                "unknown flag",
                &policy,
                call.clone(),
                vec![],
                vec!["--timeout", "200"],
            ),
            (
                "bad flag value",
                &policy,
                call.clone(),
                vec![],
                vec!["--timeout-ms", "soon"],
            ),
        ];
        for (what, policy, input, env, extra) in cases {
            let ran = hook(agent, policy, &input, &env, &extra);
            assert_eq!(
                seen(agent, &ran),
                Seen::Deny,
                "{agent}: {what}: {} {}",
                ran.stdout,
                ran.stderr
            );
            let said = format!("{}{}", ran.stdout, ran.stderr);
            assert!(
                said.contains("toolvet could not vet this call"),
                "{agent}: {what}: {said}"
            );
            if matches!(agent, "claude-code" | "codex" | "gemini-cli") {
                // Gemini CLI: exit 1 is a warning and the tool runs.
                assert_eq!(ran.code, 2, "{agent}: {what}");
            }
        }
    }
}

#[test]
fn install_prints_and_writes_each_agents_settings() {
    let dir = tempfile::tempdir().unwrap();
    let policy = example_policy(dir.path(), "");
    for agent in AGENTS {
        let out = Command::new(cli_binary())
            .args(["hook", "install", agent, "--config"])
            .arg(&policy)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{agent}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let snippet: Value = serde_json::from_slice(&out.stdout).unwrap();
        let text = snippet.to_string();
        assert!(text.contains(&format!("hook {agent} --config")), "{text}");
        assert!(text.contains(&policy.display().to_string()), "{text}");
    }
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(project.path().join(".claude")).unwrap();
    std::fs::write(
        project.path().join(".claude/settings.json"),
        json!({"permissions": {"deny": ["Bash(curl *)"]}}).to_string(),
    )
    .unwrap();
    let out = Command::new(cli_binary())
        .current_dir(project.path())
        .args(["hook", "install", "claude-code", "--project", "--config"])
        .arg(&policy)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written: Value = serde_json::from_str(
        &std::fs::read_to_string(project.path().join(".claude/settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(written["permissions"]["deny"][0], "Bash(curl *)");
    assert_eq!(
        written["hooks"]["PreToolUse"][0]["hooks"][0]["onFailure"],
        "block"
    );
    let out = Command::new(cli_binary())
        .args([
            "hook",
            "install",
            "claude-code",
            "--config",
            "/nonexistent.toml",
        ])
        .output()
        .unwrap();
    assert!(
        !out.status.success(),
        "a hook naming a missing policy would block everything"
    );
}
