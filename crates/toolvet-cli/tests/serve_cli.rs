//! The `toolvet` binary's server and decision-log commands, as a process:
//! `toolvet serve` draining on a real SIGTERM and reloading on SIGHUP,
//! `toolvet approvals` on a Postgres ledger, `toolvet log verify` and
//! `toolvet replay`.

#[path = "../../toolvet-serve/tests/all/pg.rs"]
#[allow(dead_code, reason = "shared with the serve tests, which use all of it")]
mod pg;

use serde_json::{Value, json};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const TOOLVET: &str = env!("CARGO_BIN_EXE_toolvet");
const AGENT: &str = "cli-agent-token-00000000001";
const REVIEWER: &str = "cli-reviewer-token-000000001";

fn plugin(name: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../target/plugins")
        .join(format!("{name}.wasm"));
    assert!(
        path.exists(),
        "{} is missing: run `make plugins`",
        path.display()
    );
    path.canonicalize().unwrap()
}

/// A policy with tool-policy (`tools` settings), approvals in `ledger`, a
/// decision log and `host` extra lines.
fn policy(dir: &Path, tools: &str, ledger: &str, host: &str) -> PathBuf {
    let path = dir.join("toolvet.toml");
    std::fs::write(
        &path,
        format!(
            "[host]\ndecision_log = \"decisions.jsonl\"\n{host}\n\
             [approvals]\nledger = \"{ledger}\"\nkey_file = \"approvals.key\"\n\
             [serve]\nwatch = false\n\
             [[check]]\nname = \"tools\"\nplugin = \"{}\"\nsettings = {{ {tools} }}\n",
            plugin("tool_policy").display()
        ),
    )
    .unwrap();
    path
}

fn toolvet(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(TOOLVET)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

struct Serving {
    child: Child,
    port: u16,
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(policy: &Path) -> Serving {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(TOOLVET)
        .args(["serve", "--config"])
        .arg(policy)
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .env("TOOLVET_AGENT_TOKEN", AGENT)
        .env("TOOLVET_REVIEWER_TOKEN", REVIEWER)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let serving = Serving { child, port };
    let deadline = Instant::now() + Duration::from_secs(60);
    while http(port, "GET", "/healthz", None, "").is_none() {
        assert!(Instant::now() < deadline, "toolvet serve did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
    serving
}

/// One HTTP/1.1 request; the status and body, or `None` when nothing
/// listens.
fn http(
    port: u16,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &str,
) -> Option<(u16, Value)> {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    let auth = token
        .map(|t| format!("authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n{auth}content-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    let status = answer.get(9..12)?.parse().ok()?;
    let body = answer.split_once("\r\n\r\n")?.1;
    Some((status, serde_json::from_str(body).unwrap_or(Value::Null)))
}

fn signal(child: &Child, signal: rustix::process::Signal) {
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, signal).unwrap();
}

#[test]
fn serve_refuses_one_token_in_two_roles() {
    let dir = tempfile::tempdir().unwrap();
    let config = policy(dir.path(), r#"approve = ["deploy"]"#, "approvals.db", "");
    let out = Command::new(TOOLVET)
        .args(["serve", "--config"])
        .arg(&config)
        .args(["--listen", "127.0.0.1:0"])
        .env("TOOLVET_AGENT_TOKEN", AGENT)
        .env("TOOLVET_REVIEWER_TOKEN", AGENT)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0), "{}", text(&out));
    let said = text(&out);
    assert!(
        said.contains("both an agent token ($TOOLVET_AGENT_TOKEN) and a reviewer token ($TOOLVET_REVIEWER_TOKEN)"),
        "{said}"
    );
    assert!(!said.contains(AGENT), "the token is never shown: {said}");
}

#[test]
fn serve_drains_on_sigterm_and_reloads_on_sighup() {
    let dir = tempfile::tempdir().unwrap();
    let config = policy(dir.path(), r#"approve = ["deploy"]"#, "approvals.db", "");
    let mut serving = serve(&config);
    let port = serving.port;
    let backup = json!({"call": {"id": "c1", "name": "backup", "arguments": {}}}).to_string();
    let (status, verdict) = http(port, "POST", "/v1/check", Some(AGENT), &backup).unwrap();
    assert_eq!((status, verdict["decision"].as_str()), (200, Some("allow")));

    // SIGHUP: the changed policy is swapped in.
    policy(
        dir.path(),
        r#"approve = ["deploy", "backup"]"#,
        "approvals.db",
        "",
    );
    signal(&serving.child, rustix::process::Signal::HUP);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (_, ready) = http(port, "GET", "/readyz", Some(REVIEWER), "").unwrap();
        if ready["policy"]["generation"] == 2 {
            break;
        }
        assert!(Instant::now() < deadline, "SIGHUP did not reload: {ready}");
        std::thread::sleep(Duration::from_millis(100));
    }
    let (_, verdict) = http(port, "POST", "/v1/check", Some(AGENT), &backup).unwrap();
    assert_eq!(verdict["decision"], "escalate");

    // SIGTERM with a request in flight: it finishes, then the process exits 0.
    let mut in_flight = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        in_flight,
        "POST /v1/check HTTP/1.1\r\nhost: x\r\nconnection: close\r\nauthorization: Bearer {AGENT}\r\ncontent-length: {}\r\n\r\n{}",
        backup.len(),
        &backup[..5]
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    signal(&serving.child, rustix::process::Signal::TERM);
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        serving.child.try_wait().unwrap().is_none(),
        "it waits for the request in flight"
    );
    in_flight.write_all(&backup.as_bytes()[5..]).unwrap();
    let mut answer = String::new();
    in_flight.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = serving.child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "toolvet serve did not exit");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status:?}");
    let mut log = String::new();
    serving
        .child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut log)
        .unwrap();
    assert!(log.contains("listening on http://127.0.0.1:"), "{log}");
    assert!(
        !log.contains(AGENT) && !log.contains(REVIEWER),
        "a token was logged: {log}"
    );
}

#[test]
fn serve_refuses_to_start_without_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let config = policy(dir.path(), "", "approvals.db", "");
    let out = Command::new(TOOLVET)
        .args(["serve", "--config"])
        .arg(&config)
        .args(["--listen", "127.0.0.1:0"])
        .env_remove("TOOLVET_AGENT_TOKEN")
        .env_remove("TOOLVET_REVIEWER_TOKEN")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("no agent token"), "{}", text(&out));
}

#[test]
fn approvals_commands_work_on_a_postgres_ledger() {
    let pg = pg::Postgres::start();
    let dir = tempfile::tempdir().unwrap();
    let config = policy(dir.path(), r#"approve = ["deploy"]"#, &pg.url(), "");
    let config_arg = config.to_str().unwrap();
    let call = json!({"call": {"id": "c1", "name": "deploy", "arguments": {"env": "prod"}}, "context": {"run_id": "r1"}});
    let out = toolvet(&["check", "--config", config_arg], &call.to_string());
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    let verdict: Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = verdict["approval"]["id"].as_str().unwrap();
    let out = toolvet(&["approvals", "list", "--config", config_arg], "");
    assert!(text(&out).contains(id), "{}", text(&out));
    let out = toolvet(
        &[
            "approvals",
            "approve",
            id,
            "--config",
            config_arg,
            "--reviewer",
            "carol",
            "--seen",
        ],
        "",
    );
    assert!(out.status.success(), "{}", text(&out));
    let mut resumed = call.clone();
    resumed["approval"] = json!({"ticket": verdict["approval"]["ticket"]});
    let out = toolvet(&["check", "--config", config_arg], &resumed.to_string());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = toolvet(&["approvals", "show", id, "--config", config_arg], "");
    assert!(text(&out).contains("\"consumed\""), "{}", text(&out));
}

/// `toolvet ARGS --passphrase-fd 3`, the passphrase on descriptor 3 (as
/// a person's script would give it: never argv, env or stdin).
fn with_passphrase(dir: &Path, args: &[&str]) -> Output {
    let file = dir.join("passphrase");
    std::fs::write(&file, "a reviewer passphrase, long enough\n").unwrap();
    Command::new("sh")
        .arg("-c")
        .arg(r#"exec "$0" "$@" --passphrase-fd 3 3<"$PASSPHRASE_FILE""#)
        .arg(TOOLVET)
        .args(args)
        .env("PASSPHRASE_FILE", &file)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn a_signed_approval_on_a_postgres_ledger_resumes_the_call_once() {
    let pg = pg::Postgres::start();
    let dir = tempfile::tempdir().unwrap();
    let config = policy(dir.path(), r#"approve = ["deploy"]"#, &pg.url(), "");
    let config_arg = config.to_str().unwrap();
    let made = with_passphrase(dir.path(), &["approvals", "reviewer-key", "init"]);
    assert!(made.status.success(), "{}", text(&made));
    let entry = String::from_utf8(made.stdout).unwrap();
    let text_of = std::fs::read_to_string(&config).unwrap().replacen(
        "[approvals]\n",
        &format!("[approvals]\nreviewer_keys = [\"{}\"]\n", entry.trim()),
        1,
    );
    std::fs::write(&config, text_of).unwrap();

    let call = json!({"call": {"id": "c1", "name": "deploy", "arguments": {"env": "prod"}}, "context": {"run_id": "r1"}});
    let out = toolvet(&["check", "--config", config_arg], &call.to_string());
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    let verdict: Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = verdict["approval"]["id"].as_str().unwrap();
    let out = with_passphrase(
        dir.path(),
        &[
            "approvals",
            "approve",
            id,
            "--config",
            config_arg,
            "--reviewer",
            "carol",
        ],
    );
    assert!(
        out.status.success(),
        "the Postgres ledger keeps the signature: {}",
        text(&out)
    );
    let mut resumed = call.clone();
    resumed["approval"] = json!({"ticket": verdict["approval"]["ticket"]});
    let out = toolvet(&["check", "--config", config_arg], &resumed.to_string());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = toolvet(&["check", "--config", config_arg], &resumed.to_string());
    assert!(text(&out).contains("approval.replayed"), "{}", text(&out));
}

#[test]
fn log_verify_follows_the_chain_across_rotated_files() {
    let dir = tempfile::tempdir().unwrap();
    let config = policy(
        dir.path(),
        r#"approve = ["deploy"]"#,
        "approvals.db",
        "decision_log_max_bytes = 4096\ndecision_log_arguments = true",
    );
    let config_arg = config.to_str().unwrap();
    let calls: String = (0..30)
        .map(|i| {
            json!({"call": {"id": format!("c{i}"), "name": "read_file", "arguments": {"path": format!("f{i}"), "token": "ghp_R4nd0mT0k3nV4lu3Xq9Lm2Np8Kd7Wz5Yb1Cc3E"}}})
                .to_string()
                + "\n"
        })
        .collect();
    let out = toolvet(&["check", "--config", config_arg], &calls);
    assert!(out.status.success(), "{}", text(&out));
    let log = dir.path().join("decisions.jsonl");
    assert!(
        dir.path().join("decisions.jsonl.000001").exists(),
        "rotated"
    );
    let all: String = toolvet::audit::log_files(&log)
        .unwrap()
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect();
    assert!(all.contains("\"arguments\""), "arguments are kept");
    assert!(!all.contains("R4nd0mT0k3n"), "the token is redacted");
    let out = toolvet(&["log", "verify", log.to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("30 records in"), "{}", text(&out));

    // Tamper with the oldest file: exit 1, naming the file and line.
    let first = dir.path().join("decisions.jsonl.000001");
    let original = std::fs::read_to_string(&first).unwrap();
    std::fs::write(&first, original.replacen("\"f1\"", "\"f9\"", 1)).unwrap();
    let out = toolvet(&["log", "verify", log.to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("decisions.jsonl.000001:3:"),
        "{}",
        text(&out)
    );
    // Removing a whole middle file breaks the link into the next one.
    std::fs::write(&first, &original).unwrap();
    if dir.path().join("decisions.jsonl.000003").exists() {
        std::fs::remove_file(dir.path().join("decisions.jsonl.000002")).unwrap();
        let out = toolvet(&["log", "verify", log.to_str().unwrap()], "");
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    }
    let out = toolvet(&["log", "verify", "/nonexistent/decisions.jsonl"], "");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

/// `lines` chained again from the start, as someone without the anchor's
/// key would rewrite a log: every `prev` recomputed.
fn rechain(lines: &[&str]) -> String {
    use sha2::{Digest, Sha256};
    let mut prev = String::new();
    let mut out = String::new();
    for line in lines {
        let mut value: Value = serde_json::from_str(line).unwrap();
        value["prev"] = json!(prev);
        let line = value.to_string();
        prev = hex::encode(Sha256::digest(line.as_bytes()));
        out.push_str(&line);
        out.push('\n');
    }
    out
}

#[test]
fn log_verify_checks_the_end_against_the_keyed_anchor() {
    let dir = tempfile::tempdir().unwrap();
    let config = policy(dir.path(), r#"approve = ["deploy"]"#, "approvals.db", "");
    let calls: String = (0..5)
        .map(|i| {
            json!({"call": {"id": format!("c{i}"), "name": "read_file", "arguments": {"path": format!("f{i}")}}})
                .to_string()
                + "\n"
        })
        .collect();
    let out = toolvet(&["check", "--config", config.to_str().unwrap()], &calls);
    assert!(out.status.success(), "{}", text(&out));
    let log = dir.path().join("decisions.jsonl");
    let log_arg = log.to_str().unwrap();
    let key = dir.path().join("decisions.jsonl.key");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "the key is created private");
    }
    let key_text = std::fs::read_to_string(&key).unwrap();
    let anchor = std::fs::read_to_string(dir.path().join("decisions.jsonl.anchor")).unwrap();
    assert!(anchor.contains("\"records\":5"), "{anchor}");
    assert!(
        !anchor.contains(key_text.trim()),
        "the key is not in the anchor"
    );

    // A valid log.
    let out = toolvet(&["log", "verify", log_arg], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains("5 records in 1 file(s), chain intact, ends where its anchor says"),
        "{}",
        text(&out)
    );
    assert!(
        !text(&out).contains(key_text.trim()),
        "the key is never shown"
    );

    let original = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = original.lines().collect();

    // The tail cut off: the chain alone still holds, the anchor does not.
    std::fs::write(&log, lines[..3].join("\n") + "\n").unwrap();
    let out = toolvet(&["log", "verify", log_arg], "");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("decisions.jsonl: record 3: the anchor says the file holds 5 records"),
        "{}",
        text(&out)
    );
    assert!(text(&out).contains("cut short"), "{}", text(&out));
    let out = toolvet(&["log", "verify", "--chain-only", log_arg], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("not checked"), "{}", text(&out));

    // Fully re-chained with one record removed (and as many records as
    // before, by duplicating one): every link holds, the anchor does not.
    let mut edited: Vec<&str> = lines.clone();
    edited.remove(1);
    let rechained = rechain(&edited);
    std::fs::write(&log, &rechained).unwrap();
    let out = toolvet(&["log", "verify", log_arg], "");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("holds 4 ending in"), "{}", text(&out));
    edited.push(lines[4]);
    std::fs::write(&log, rechain(&edited)).unwrap();
    let out = toolvet(&["log", "verify", log_arg], "");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("the chain was rewritten"),
        "{}",
        text(&out)
    );

    // A forged anchor for the rewritten log, without the key: refused.
    let forged = anchor.replace("\"records\":5", "\"records\":4");
    std::fs::write(dir.path().join("decisions.jsonl.anchor"), &forged).unwrap();
    std::fs::write(&log, &rechained).unwrap();
    let out = toolvet(&["log", "verify", log_arg], "");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("the anchor's MAC does not match"),
        "{}",
        text(&out)
    );

    // The next writer finds the mismatch and says so in the chain itself,
    // so appending does not make the cut log verify again.
    std::fs::write(dir.path().join("decisions.jsonl.anchor"), &anchor).unwrap();
    std::fs::write(&log, lines[..3].join("\n") + "\n").unwrap();
    let out = toolvet(&["check", "--config", config.to_str().unwrap()], &calls);
    assert!(out.status.success(), "{}", text(&out));
    let out = toolvet(&["log", "verify", log_arg], "");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("decisions.jsonl:4: a writer found here"),
        "{}",
        text(&out)
    );

    // No anchor at all: the end cannot be checked, and verify says so.
    std::fs::remove_file(dir.path().join("decisions.jsonl.anchor")).unwrap();
    std::fs::write(&log, &original).unwrap();
    let out = toolvet(&["log", "verify", log_arg], "");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("decisions.jsonl.anchor: no anchor"),
        "{}",
        text(&out)
    );
}

#[test]
fn replay_shows_the_calls_a_new_policy_would_change() {
    let dir = tempfile::tempdir().unwrap();
    let config = policy(
        dir.path(),
        r#"approve = ["deploy"]"#,
        "approvals.db",
        "decision_log_arguments = true",
    );
    let calls = [
        json!({"call": {"id": "c1", "name": "deploy", "arguments": {"env": "prod"}}}),
        json!({"call": {"id": "c2", "name": "read_file", "arguments": {"path": "a"}}}),
        json!({"call": {"id": "c3", "name": "backup", "arguments": {}}}),
    ];
    let input: String = calls.iter().map(|c| c.to_string() + "\n").collect();
    toolvet(&["check", "--config", config.to_str().unwrap()], &input);
    let log = dir.path().join("decisions.jsonl");

    let same = toolvet(
        &[
            "replay",
            log.to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(same.status.code(), Some(0), "{}", text(&same));
    assert!(
        text(&same).contains("3 calls replayed, 0 would change"),
        "{}",
        text(&same)
    );

    let new_dir = tempfile::tempdir().unwrap();
    let stricter = policy(
        new_dir.path(),
        r#"approve = ["deploy"], deny = ["backup"]"#,
        "approvals.db",
        "",
    );
    let out = toolvet(
        &[
            "replay",
            log.to_str().unwrap(),
            "--config",
            stricter.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let shown = text(&out);
    assert!(
        shown.contains("CHANGED  call c3 `backup`: allow → deny [policy.denied-tool]"),
        "{shown}"
    );
    assert!(!shown.contains("call c1"), "{shown}");
    assert!(
        shown.contains("3 calls replayed, 1 would change (1 allow → deny)"),
        "{shown}"
    );
    assert!(
        !new_dir.path().join("decisions.jsonl").exists(),
        "replay writes no log"
    );
}
