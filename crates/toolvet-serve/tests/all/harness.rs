//! The test harness: policies in temporary directories over the real
//! built plugins, servers on loopback, an HTTP client, and raw sockets
//! for the timeout and overload tests.

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;
use toolvet_serve::{Listen, ServeOptions, Server, ServerHandle};

/// The agent token every test policy accepts.
pub const AGENT: &str = "agent-token-for-tests-0001";
/// The reviewer token every test policy accepts.
pub const REVIEWER: &str = "reviewer-token-for-tests-0001";
/// The metrics token every test policy accepts (`/readyz`, `/metrics`).
pub const METRICS: &str = "metrics-token-for-tests-0001";

/// The workspace's `target/`.
pub fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target")
}

/// A built plugin (`make plugins` builds them).
pub fn plugin(name: &str) -> PathBuf {
    let path = target_dir().join("plugins").join(format!("{name}.wasm"));
    assert!(
        path.exists(),
        "{} is missing: run `make plugins` first",
        path.display()
    );
    path.canonicalize().unwrap()
}

/// A fixture of the hostile corpus (`tests/hostile/build.sh` builds them
/// into `target/hostile/`).
pub fn hostile(name: &str) -> PathBuf {
    let path = target_dir().join("hostile").join(format!("{name}.wasm"));
    assert!(
        path.exists(),
        "{} is missing: run `bash tests/hostile/build.sh` first",
        path.display()
    );
    path.canonicalize().unwrap()
}

/// The hex sha256 of `token`, as `[serve] *_tokens_sha256` holds it.
pub fn sha(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// A policy in a temporary directory.
pub struct Fixture {
    /// The directory (removed when dropped).
    pub dir: tempfile::TempDir,
    /// The policy file.
    pub policy: PathBuf,
}

/// What a test policy holds besides the defaults.
pub struct PolicyText {
    /// Extra `[host]` lines.
    pub host: String,
    /// `[approvals] ledger`.
    pub ledger: String,
    /// Extra `[approvals]` lines.
    pub approvals: String,
    /// Extra `[serve]` lines.
    pub serve: String,
    /// The tool-policy settings.
    pub tools: String,
    /// Further `[[check]]` tables, as TOML text.
    pub checks: String,
}

impl Default for PolicyText {
    fn default() -> Self {
        PolicyText {
            host: String::new(),
            ledger: "approvals.db".into(),
            approvals: String::new(),
            serve: "watch = false".into(),
            tools: r#"approve = ["deploy*"], deny = ["drop_database"]"#.into(),
            checks: String::new(),
        }
    }
}

impl PolicyText {
    /// The policy text.
    pub fn render(&self) -> String {
        format!(
            r#"
[host]
decision_log = "decisions.jsonl"
{host}

[approvals]
ledger = "{ledger}"
key_file = "approvals.key"
ttl_s = 600
{approvals}

[serve]
agent_tokens_sha256 = ["{agent}"]
reviewer_tokens_sha256 = ["{reviewer}"]
metrics_tokens_sha256 = ["{metrics}"]
{serve}

[[check]]
name = "tools"
plugin = "{plugin}"
settings = {{ {tools} }}

{checks}
"#,
            host = self.host,
            ledger = self.ledger,
            approvals = self.approvals,
            agent = sha(AGENT),
            reviewer = sha(REVIEWER),
            metrics = sha(METRICS),
            serve = self.serve,
            plugin = plugin("tool_policy").display(),
            tools = self.tools,
            checks = self.checks,
        )
    }
}

impl Fixture {
    /// A fixture with the default policy.
    pub fn new() -> Fixture {
        Fixture::with(PolicyText::default())
    }

    /// A fixture with `text`.
    pub fn with(text: PolicyText) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let policy = dir.path().join("toolvet.toml");
        std::fs::write(&policy, text.render()).unwrap();
        Fixture { dir, policy }
    }

    /// Start a server on a free loopback port.
    pub async fn start(&self) -> Running {
        Running::start(&self.policy, Listen::Tcp("127.0.0.1:0".parse().unwrap())).await
    }
}

/// A server running in this process.
pub struct Running {
    /// Its address.
    pub addr: Option<SocketAddr>,
    /// Stops and reloads it.
    pub handle: ServerHandle,
    task: Option<tokio::task::JoinHandle<anyhow::Result<()>>>,
    /// The HTTP client.
    pub http: reqwest::Client,
}

impl Running {
    /// Bind and run a server for `policy` on `listen`.
    pub async fn start(policy: &Path, listen: Listen) -> Running {
        let server = Server::bind(ServeOptions {
            config: policy.to_path_buf(),
            listen: Some(listen),
        })
        .await
        .expect("the server starts");
        let addr = server.local_addr();
        let handle = server.handle();
        let task = tokio::spawn(server.run());
        Running {
            addr,
            handle,
            task: Some(task),
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(30))
                .build()
                .unwrap(),
        }
    }

    /// `http://addr/path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr.expect("a TCP server"))
    }

    /// POST `body` (JSON) to `path` with `token`; status and JSON body.
    pub async fn post(&self, path: &str, token: Option<&str>, body: &Value) -> (u16, Value) {
        let mut request = self.http.post(self.url(path)).json(body);
        if let Some(t) = token {
            request = request.bearer_auth(t);
        }
        answer(request.send().await.unwrap()).await
    }

    /// POST raw `body` text.
    pub async fn post_text(&self, path: &str, token: Option<&str>, body: &str) -> (u16, Value) {
        let mut request = self
            .http
            .post(self.url(path))
            .header("content-type", "application/json")
            .body(body.to_string());
        if let Some(t) = token {
            request = request.bearer_auth(t);
        }
        answer(request.send().await.unwrap()).await
    }

    /// GET `path` with `token`.
    pub async fn get(&self, path: &str, token: Option<&str>) -> (u16, Value) {
        let mut request = self.http.get(self.url(path));
        if let Some(t) = token {
            request = request.bearer_auth(t);
        }
        answer(request.send().await.unwrap()).await
    }

    /// GET `path` as text.
    pub async fn get_text(&self, path: &str, token: Option<&str>) -> (u16, String) {
        let mut request = self.http.get(self.url(path));
        if let Some(t) = token {
            request = request.bearer_auth(t);
        }
        let r = request.send().await.unwrap();
        (r.status().as_u16(), r.text().await.unwrap())
    }

    /// Vet `call` as the agent.
    pub async fn check(&self, call: &Value) -> Value {
        let (status, body) = self.post("/v1/check", Some(AGENT), call).await;
        assert_eq!(status, 200, "{body}");
        body
    }

    /// Decide request `id` as the reviewer, naming the request as read
    /// now (`shown`).
    pub async fn decide(&self, id: &str, decision: &str, message: Option<&str>) -> (u16, Value) {
        let (_, read) = self
            .get(&format!("/v1/approvals/{id}"), Some(REVIEWER))
            .await;
        let mut body =
            json!({"decision": decision, "reviewer": "alice", "shown": read["review_sha256"]});
        if let Some(m) = message {
            body["message"] = json!(m);
        }
        self.post(
            &format!("/v1/approvals/{id}/decision"),
            Some(REVIEWER),
            &body,
        )
        .await
    }

    /// Shut down and wait for the drain.
    pub async fn stop(mut self) {
        self.handle.shutdown();
        if let Some(task) = self.task.take() {
            tokio::time::timeout(Duration::from_secs(30), task)
                .await
                .expect("the server stops")
                .unwrap()
                .unwrap();
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.handle.shutdown();
    }
}

async fn answer(r: reqwest::Response) -> (u16, Value) {
    let status = r.status().as_u16();
    let text = r.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, body)
}

/// A call of `tool` with `arguments`, call id `id` in run `run`.
pub fn call(tool: &str, arguments: Value, id: &str, run: &str) -> Value {
    json!({"call": {"id": id, "name": tool, "arguments": arguments}, "context": {"run_id": run, "agent": "ci-bot", "principal": "bob@acme.com"}})
}

/// `call` with the ticket of an escalate verdict.
pub fn resumed(call: &Value, verdict: &Value) -> Value {
    let mut resumed = call.clone();
    resumed["approval"] =
        json!({"ticket": verdict["approval"]["ticket"].as_str().expect("a ticket")});
    resumed
}

/// Poll `f` until it is true, at most `within`.
pub async fn eventually<F, Fut>(within: Duration, mut f: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = tokio::time::Instant::now() + within;
    loop {
        if f().await {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
