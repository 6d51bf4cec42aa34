//! The proxy: the client's messages to the server and back, with every
//! `tools/call` vetted on the way and `tools/list` trimmed on the way back.
//!
//! Data flow: client line → [`Session::from_client`] → (a `tools/call`:
//! [`Session::gate`] → the checks → forwarded, refused, or held for the
//! person) → upstream; upstream line → [`Session::from_server`] → client.
//! Two writer tasks own the two output streams; nothing else writes them.

use crate::config::McpConfig;
use crate::gate::{self, Answer};
use crate::jsonrpc::{self, Message};
use futures_util::StreamExt;
use rmcp::model::Tool;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ffi::OsString;
use std::process::Stdio;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};
use tokio_util::codec::{AnyDelimiterCodec, AnyDelimiterCodecError, FramedRead};
use toolvet::run_history::RunHistory;
use toolvet::{
    ApprovalClaim, CallContext, CallRequest, Decision, Host, Verdict, approval::ApprovalTrust,
    approval::Approvals, approval::Scope, approval::UnixMillis, approval::rules as approval_rules,
    call::Outcome,
};

pub use toolvet::run_history::MAX_HISTORY;

/// The transport name of sessions over Streamable HTTP (`toolvet mcp
/// --listen`): their answers to toolvet's questions are not a person's.
pub(crate) const HTTP_TRANSPORT: &str = "streamable-http";

/// Longest message accepted on either side, in bytes (one line of JSON).
pub const MAX_MESSAGE_BYTES: usize = 32 * 1024 * 1024;
/// The `_meta` key that marks a 2026-07-28 ("modern") request.
const MODERN_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
const MODERN_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";

/// The MCP server the proxy runs and speaks to over its stdio.
#[derive(Debug, Clone)]
pub struct Upstream {
    /// The program.
    pub program: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
}

/// Where the server's `~` and relative paths point, as far as toolvet
/// knows: the `home` and `cwd` attributes every call of the session
/// carries ([`toolvet::home`]). Known only for a server the proxy started
/// itself: it inherits the proxy's working directory and environment, so
/// it runs where the proxy runs, as the proxy's user. A remote server
/// (`--upstream URL`) runs somewhere toolvet cannot see: neither is set,
/// rather than a guess the checks would take for a fact.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ServerPlace {
    /// The home directory of the server's user ([`toolvet::home::user_home`]).
    pub(crate) home: Option<String>,
    /// The server's working directory (an absolute path).
    pub(crate) cwd: Option<String>,
}

impl ServerPlace {
    /// The place of a server this process starts with its own working
    /// directory and environment: this process's user's home and working
    /// directory. A working directory that cannot be read (removed) or is
    /// not UTF-8 is left unknown.
    pub(crate) fn of_this_process() -> ServerPlace {
        let cwd = match std::env::current_dir() {
            Ok(dir) => dir.into_os_string().into_string().ok(),
            Err(e) => {
                tracing::warn!(
                    "cannot read the working directory the MCP server runs in ({e}): \
                     its relative paths are vetted with no cwd"
                );
                None
            }
        };
        ServerPlace {
            home: toolvet::home::user_home(),
            cwd: cwd.filter(|c| c.starts_with('/')),
        }
    }

    /// The attributes of this place, for a call's context.
    fn attributes(&self) -> impl Iterator<Item = (String, String)> + '_ {
        let home = self.home.iter().map(|h| (toolvet::home::HOME_ATTRIBUTE, h));
        let cwd = self.cwd.iter().map(|c| (toolvet::home::CWD_ATTRIBUTE, c));
        home.chain(cwd).map(|(k, v)| (k.to_string(), v.clone()))
    }
}

/// Why the proxy stopped before the client closed its side.
#[derive(Debug, thiserror::Error)]
pub enum ProxyError {
    /// The server could not be started.
    #[error("cannot start the MCP server `{program}`: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// The OS error.
        source: std::io::Error,
    },
}

/// A call forwarded to the server, recorded in the history once it ran.
struct Forwarded {
    /// Its history entry's sequence number.
    seq: u64,
    /// The call as vetted, whose result the policy's result checks vet.
    request: Box<CallRequest>,
}

/// A request to the server still waiting for its answer.
struct Pending {
    id: Value,
    method: String,
    call: Option<Forwarded>,
    /// The proxy's own request: the answer goes here, not to the client.
    internal: Option<oneshot::Sender<Value>>,
}

#[derive(Default)]
struct State {
    /// The client declared `elicitation` in `initialize`.
    client_elicits: bool,
    client_name: Option<String>,
    pending: HashMap<String, Pending>,
    elicitations: HashMap<String, oneshot::Sender<Value>>,
    /// Every tool the server listed, by name, each with the strictest
    /// annotations any list gave it ([`gate::merge_tool`]).
    tools: BTreeMap<String, Tool>,
    /// The tools whose definition a later list changed: their calls carry
    /// `mcp.tool_definition_changed = "true"` for the checks.
    changed: BTreeSet<String>,
    /// The tools last shown to the client (`None`: it never listed).
    shown: Option<BTreeSet<String>>,
    /// The session's calls, bounded by count and bytes.
    history: RunHistory,
    /// Ids of the server's requests to the client still unanswered: only
    /// answers to these go back to the server.
    server_requests: BTreeSet<String>,
    /// Why the server is gone, once it is.
    gone: Option<String>,
    /// The `_meta` of the client's latest 2026-07-28 ("modern") request:
    /// the proxy's own requests to the server carry it, since a modern
    /// server takes no request without (there is no `initialize`).
    modern_meta: Option<Value>,
    /// The client closed its side: the server is expected to exit.
    closing: bool,
}

impl State {
    /// Remember a tool the server listed, at the strictest annotations it
    /// ever gave it; a definition that changed is logged and flagged.
    fn learn(&mut self, tool: Tool, server: &str) {
        let name = tool.name.to_string();
        let (tool, changed) = gate::merge_tool(self.tools.get(&name), tool);
        if changed {
            tracing::warn!(
                tool = %toolvet::display::visible(&name),
                "the MCP server {} changed the definition of a tool it listed before; \
                 its calls are vetted with the strictest annotations seen, and carry \
                 mcp.tool_definition_changed",
                toolvet::display::visible(server)
            );
            self.changed.insert(name.clone());
        }
        self.tools.insert(name, tool);
    }
}

/// One client's session with one server.
pub(crate) struct Session {
    host: Host,
    config: McpConfig,
    server: String,
    /// How the client reaches the proxy (`stdio`, [`HTTP_TRANSPORT`]), for
    /// the checks (`mcp.transport`).
    transport: &'static str,
    /// Where the server runs, for the checks (`home`, `cwd`).
    place: ServerPlace,
    run_id: String,
    to_client: mpsc::UnboundedSender<Value>,
    to_server: Mutex<Option<mpsc::UnboundedSender<Value>>>,
    state: Mutex<State>,
    /// Held while a call is vetted and forwarded or refused, so that every
    /// call is vetted against the history of every call before it.
    gating: tokio::sync::Mutex<()>,
}

/// Run the proxy for one client: `client_in`/`client_out` carry the
/// client's newline-delimited JSON-RPC (stdio transport), and `upstream`
/// is started and spoken to the same way. Returns when the client closes
/// its input; the server's stdin is then closed and the server is given
/// 5 s to exit before it is killed. The server's stderr is inherited.
///
/// # Errors
/// [`ProxyError::Spawn`] when the server cannot be started. A server that
/// exits later is reported to the client as an error on each request it
/// left unanswered, and on each later one.
pub async fn run<R, W>(
    host: Host,
    config: McpConfig,
    upstream: Upstream,
    client_in: R,
    client_out: W,
) -> Result<(), ProxyError>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    // The proxy runs as the agent's user: a ledger row the agent wrote
    // must not count (review s12 L7).
    host.guard_same_user();
    let server = upstream.program.to_string_lossy().into_owned();
    // The server inherits this process's working directory and
    // environment (no `current_dir`, no `env_clear` below): it runs where
    // and as whom the proxy runs.
    let place = ServerPlace::of_this_process();
    let mut child = tokio::process::Command::new(&upstream.program)
        .args(&upstream.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|source| ProxyError::Spawn {
            program: server.clone(),
            source,
        })?;
    let (Some(child_in), Some(child_out)) = (child.stdin.take(), child.stdout.take()) else {
        unreachable!("both streams are piped");
    };
    let (to_client, client_rx) = mpsc::unbounded_channel();
    let (to_server, server_rx) = mpsc::unbounded_channel();
    let client_writer = tokio::spawn(write_lines(client_out, client_rx));
    tokio::spawn(write_lines(child_in, server_rx));

    let session = Session::new(host, config, server, "stdio", place, to_client, to_server);

    // The server's side: its messages, then its exit.
    let (exited_tx, exited_rx) = oneshot::channel();
    let (kill_tx, kill_rx) = oneshot::channel::<()>();
    tokio::spawn(async move {
        let status = tokio::select! {
            status = child.wait() => status,
            _ = kill_rx => {
                if tokio::time::timeout(Duration::from_secs(5), child.wait()).await.is_err() {
                    let _ = child.kill().await;
                }
                child.wait().await
            }
        };
        let _ = exited_tx.send(status);
    });
    let from_server = {
        let session = session.clone();
        tokio::spawn(async move {
            let mut lines = FramedRead::new(child_out, line_codec());
            while let Some(line) = lines.next().await {
                match line {
                    Ok(line) => match std::str::from_utf8(&line) {
                        Ok(line) => session.from_server(line).await,
                        Err(_) => {
                            tracing::warn!("the MCP server sent a line that is not UTF-8; dropped")
                        }
                    },
                    Err(AnyDelimiterCodecError::MaxChunkLengthExceeded) => {
                        tracing::warn!(
                            "the MCP server sent a message over {MAX_MESSAGE_BYTES} bytes; dropped"
                        );
                    }
                    Err(AnyDelimiterCodecError::Io(e)) => {
                        tracing::warn!("reading the MCP server's output: {e}");
                        break;
                    }
                }
            }
            let why = match tokio::time::timeout(Duration::from_secs(2), exited_rx).await {
                Ok(Ok(Ok(status))) => format!("exited ({status})"),
                _ => "closed its output".to_string(),
            };
            session.server_gone(why);
        })
    };

    // The client's side, until it closes.
    let mut lines = FramedRead::new(client_in, line_codec());
    while let Some(line) = lines.next().await {
        match line {
            Ok(line) => match std::str::from_utf8(&line) {
                Ok(line) => session.clone().from_client(line),
                Err(e) => session.reply(jsonrpc::error(
                    &Value::Null,
                    jsonrpc::PARSE_ERROR,
                    &format!("a message is not UTF-8: {e}"),
                )),
            },
            Err(AnyDelimiterCodecError::MaxChunkLengthExceeded) => session.reply(jsonrpc::error(
                &Value::Null,
                jsonrpc::INVALID_REQUEST,
                &format!("message over {MAX_MESSAGE_BYTES} bytes"),
            )),
            Err(AnyDelimiterCodecError::Io(e)) => {
                tracing::warn!("reading the client's input: {e}");
                break;
            }
        }
    }
    // Close the server's stdin; give it time to exit, then stop it.
    session.client_closed();
    let _ = kill_tx.send(());
    let _ = tokio::time::timeout(Duration::from_secs(7), from_server).await;
    drop(session);
    // Calls still held for a person keep a sender; the client has gone,
    // so flush what is queued and stop.
    let _ = tokio::time::timeout(Duration::from_secs(2), client_writer).await;
    Ok(())
}

/// 128 random bits, in hex.
pub(crate) fn random_hex() -> String {
    let mut random = [0u8; 16];
    getrandom::fill(&mut random).expect("the OS random source works");
    hex::encode(random)
}

/// Newline-delimited messages of at most [`MAX_MESSAGE_BYTES`], as bytes
/// (decoded here, so a line that is not UTF-8 is answered, not fatal).
fn line_codec() -> AnyDelimiterCodec {
    AnyDelimiterCodec::new_with_max_length(b"\n".to_vec(), b"\n".to_vec(), MAX_MESSAGE_BYTES)
}

/// Write each message as one line of JSON, until every sender is gone.
async fn write_lines<W: AsyncWrite + Unpin>(
    mut out: W,
    mut messages: mpsc::UnboundedReceiver<Value>,
) {
    while let Some(message) = messages.recv().await {
        let mut line = message.to_string();
        line.push('\n');
        if out.write_all(line.as_bytes()).await.is_err() || out.flush().await.is_err() {
            break;
        }
    }
    let _ = out.shutdown().await;
}

impl Session {
    /// A new session of the client that `to_client` reaches with the
    /// server that `to_server` reaches (`server` names it in messages;
    /// `place` is where it runs, as far as toolvet knows).
    pub(crate) fn new(
        host: Host,
        config: McpConfig,
        server: String,
        transport: &'static str,
        place: ServerPlace,
        to_client: mpsc::UnboundedSender<Value>,
        to_server: mpsc::UnboundedSender<Value>,
    ) -> Arc<Session> {
        Arc::new(Session {
            host,
            config,
            server,
            transport,
            place,
            run_id: format!("mcp-{}", random_hex()),
            to_client,
            to_server: Mutex::new(Some(to_server)),
            state: Mutex::new(State::default()),
            gating: tokio::sync::Mutex::new(()),
        })
    }

    /// The client has closed its side: nothing more goes to the server,
    /// and its exit is expected.
    pub(crate) fn client_closed(&self) {
        self.state().closing = true;
        self.to_server
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn reply(&self, message: Value) {
        let _ = self.to_client.send(message);
    }

    fn send_server(&self, message: Value) -> bool {
        match &*self.to_server.lock().unwrap_or_else(|p| p.into_inner()) {
            Some(tx) => tx.send(message).is_ok(),
            None => false,
        }
    }

    /// One message from the client (JSON text), read strictly
    /// ([`Message::parse_client`]): a refused one is answered with why,
    /// and nothing of it reaches the server.
    pub(crate) fn from_client(self: Arc<Self>, line: &str) {
        match Message::parse_client(line) {
            Ok(message) => self.handle_client(message),
            Err(refusal) => {
                tracing::warn!("refused a message from the client: {}", refusal.message);
                self.reply(refusal.response());
            }
        }
    }

    /// One message from the client, read by [`Message::parse_client`]
    /// (and so rebuilt from what was read).
    pub(crate) fn handle_client(self: Arc<Self>, message: Message) {
        match message {
            Message::Request { id, method, .. }
                if self.state().pending.contains_key(&jsonrpc::id_key(&id)) =>
            {
                self.reply(jsonrpc::error(
                    &id,
                    jsonrpc::INVALID_REQUEST,
                    &format!(
                        "`{method}`: request id {id} is already in use by an unanswered request"
                    ),
                ));
            }
            Message::Request { id, method, raw } => match method.as_str() {
                "tools/call" => {
                    tokio::spawn(async move { self.gate(id, raw).await });
                }
                m if jsonrpc::VETTED_METHODS.contains(&m) => {
                    tokio::spawn(async move { self.gate_method(id, method, raw).await });
                }
                // A task's result would reach the client past the result
                // checks; the proxy offers no tasks and sends none
                // (`gate::forwarded_call`), so none is toolvet's to pass.
                "tasks/result" => self.reply(jsonrpc::error(
                    &id,
                    jsonrpc::INVALID_REQUEST,
                    "`tasks/result`: toolvet passes no task results (a tool's result reaches the \
                     client only as the answer to its call, after the result checks); call the \
                     tool without `task`",
                )),
                "initialize" => {
                    let params = raw.get("params");
                    let mut state = self.state();
                    state.client_elicits = params
                        .and_then(|p| p.pointer("/capabilities/elicitation"))
                        .is_some_and(Value::is_object);
                    state.client_name = params
                        .and_then(|p| p.pointer("/clientInfo/name"))
                        .and_then(Value::as_str)
                        .map(|n| n.chars().filter(|c| !c.is_control()).take(128).collect());
                    drop(state);
                    self.forward(id, method, raw, None);
                }
                _ => self.forward(id, method, raw, None),
            },
            // Only notifications go on without an answer: a request without
            // an id (a `tools/call` among them) is never passed unvetted.
            Message::Notification { method, raw } => {
                if method.starts_with("notifications/") {
                    self.send_server(raw);
                } else {
                    tracing::warn!("dropped `{method}` from the client: a request without an id");
                }
            }
            Message::Response { id, raw } => {
                let key = jsonrpc::id_key(&id);
                let mut state = self.state();
                if let Some(answer) = state.elicitations.remove(&key) {
                    drop(state);
                    let _ = answer.send(raw);
                } else if state.server_requests.remove(&key) {
                    drop(state);
                    self.send_server(raw);
                } else {
                    tracing::debug!("dropped an answer from the client to no open request ({id})");
                }
            }
        }
    }

    /// Send a request to the server and wait (in the background) for its
    /// answer, which [`Session::from_server`] passes back.
    fn forward(self: &Arc<Self>, id: Value, method: String, raw: Value, call: Option<Forwarded>) {
        let key = jsonrpc::id_key(&id);
        {
            let mut state = self.state();
            if let Some(why) = &state.gone {
                let message = format!("the MCP server {why}; `{method}` cannot be answered");
                drop(state);
                if let Some(call) = &call {
                    self.not_sent(call);
                }
                return self.reply(jsonrpc::error(&id, jsonrpc::UPSTREAM_ERROR, &message));
            }
            state.pending.insert(
                key.clone(),
                Pending {
                    id: id.clone(),
                    method: method.clone(),
                    call,
                    internal: None,
                },
            );
        }
        if !self.send_server(raw) {
            let removed = self.state().pending.remove(&key);
            if let Some(Pending {
                call: Some(call), ..
            }) = removed
            {
                self.not_sent(&call);
            }
            return self.reply(jsonrpc::error(
                &id,
                jsonrpc::UPSTREAM_ERROR,
                &format!("the MCP server is not reachable; `{method}` cannot be answered"),
            ));
        }
        // Weak: a timer must not keep the session (and the client's
        // output) alive after the client has gone.
        let session = Arc::downgrade(self);
        let timeout = self.config.upstream_timeout;
        tokio::spawn(async move {
            tokio::time::sleep(timeout).await;
            let Some(session) = session.upgrade() else {
                return;
            };
            let Some(pending) = session.state().pending.remove(&key) else {
                return;
            };
            // A call the server got and did not answer may have run: its
            // outcome stays the gate's (see `Session::not_sent`).
            session.reply(jsonrpc::error(
                &pending.id,
                jsonrpc::UPSTREAM_TIMEOUT,
                &format!(
                    "the MCP server did not answer `{}` within {} s",
                    pending.method,
                    timeout.as_secs()
                ),
            ));
            session.send_server(jsonrpc::notification(
                "notifications/cancelled",
                Some(json!({"requestId": pending.id, "reason": "toolvet: the request timed out"})),
            ));
        });
    }

    /// One message from the server (JSON text), read strictly
    /// ([`Message::parse_server`]): a refused one reaches no one.
    pub(crate) async fn from_server(self: &Arc<Self>, line: &str) {
        match Message::parse_server(line) {
            Ok(message) => self.handle_server(message).await,
            Err(refusal) => self.server_refused(refusal).await,
        }
    }

    /// A message from the server that [`Message::parse_server`] refused:
    /// each of the client's requests it may have answered gets a JSON-RPC
    /// error instead (a `tools/call` among them still counts as made: the
    /// server got it), and each request of the server's it may have held
    /// an error back.
    pub(crate) async fn server_refused(self: &Arc<Self>, refusal: jsonrpc::ServerRefusal) {
        let why = &refusal.message;
        tracing::warn!("refused a message from the MCP server: {why}");
        for id in &refusal.requests {
            self.send_server(jsonrpc::error(
                id,
                jsonrpc::INVALID_REQUEST,
                &format!("toolvet refused this message: {why}"),
            ));
        }
        let mut answered_call = false;
        for id in &refusal.answered {
            let Some(mut pending) = self.state().pending.remove(&jsonrpc::id_key(id)) else {
                continue;
            };
            let error = jsonrpc::error(
                &pending.id,
                jsonrpc::UPSTREAM_ERROR,
                &format!(
                    "toolvet refused the MCP server's answer to `{}`, so it is not passed on: {why}",
                    pending.method
                ),
            );
            if let Some(internal) = pending.internal.take() {
                let _ = internal.send(error);
                continue;
            }
            answered_call |= pending.call.is_some();
            self.reply(error);
        }
        if answered_call {
            self.exposure_changed().await;
        }
    }

    /// One message from the server, read by [`Message::parse_server`]
    /// (and so rebuilt from what was read).
    pub(crate) async fn handle_server(self: &Arc<Self>, message: Message) {
        let (id, mut raw) = match message {
            Message::Request { id, method, raw } => {
                let key = jsonrpc::id_key(&id);
                let reserved = {
                    let state = self.state();
                    key.starts_with("\"toolvet-") || state.elicitations.contains_key(&key)
                };
                if reserved {
                    tracing::warn!(
                        "refused `{method}` from the MCP server: its id {id} is reserved for toolvet"
                    );
                    self.send_server(jsonrpc::error(
                        &id,
                        jsonrpc::INVALID_REQUEST,
                        "ids starting with `toolvet-` are reserved",
                    ));
                    return;
                }
                // What the server asks the client (sampling's messages go
                // to a model) is the server's text (review s30).
                if let Some(why) = self.vet_server_message(&method, &raw).await {
                    self.send_server(jsonrpc::error(
                        &id,
                        jsonrpc::REFUSED_BY_POLICY,
                        &format!("toolvet refused `{method}`: {why}"),
                    ));
                    return;
                }
                self.state().server_requests.insert(key);
                return self.reply(raw);
            }
            Message::Notification { method, raw } => {
                if self.vet_server_message(&method, &raw).await.is_none() {
                    self.reply(raw);
                }
                return;
            }
            Message::Response { id, raw } => (id, raw),
        };
        let Some(mut pending) = self.state().pending.remove(&jsonrpc::id_key(&id)) else {
            // Timed out and answered already, or never asked.
            return tracing::debug!(
                "dropped an answer from the MCP server to no pending request ({id})"
            );
        };
        if let Some(internal) = pending.internal.take() {
            let _ = internal.send(raw);
            return;
        }
        match pending.method.as_str() {
            "initialize" | "server/discover" => {
                // No tasks through the proxy (`gate::forwarded_call`): the
                // client is not told the server offers them.
                if let Some(capabilities) = raw
                    .pointer_mut("/result/capabilities")
                    .and_then(Value::as_object_mut)
                {
                    capabilities.remove("tasks");
                }
                if !self.config.hide_denied_tools.is_empty()
                    && let Some(tools) = raw
                        .pointer_mut("/result/capabilities/tools")
                        .and_then(Value::as_object_mut)
                {
                    tools.insert("listChanged".into(), Value::Bool(true));
                }
            }
            "tools/list" => self.trim_list(&mut raw).await,
            _ => {}
        }
        // What the server tells the model besides results: its
        // instructions, what it lists (review s29 F4), and the answers
        // (or errors) to every other method not vetted as a call (s30).
        if pending.call.is_none() {
            let context = self.context();
            let text =
                crate::server_text::vet(&self.host, &pending.method, &mut raw, &context).await;
            if !text.labels.is_empty() {
                self.state().history.record_labels(&text.labels);
            }
        }
        // What a vetted call returned (`tools/call`, and the methods vetted
        // as calls: `resources/read`, `prompts/get`, ...) goes to the
        // result checks before the client reads it.
        // The answer to a vetted call, whatever it says (a result, an
        // `isError: true` result, a JSON-RPC error), leaves its outcome as
        // the gate decided it: the server got the call and may have acted
        // on it before reporting an error, so it still counts against run
        // totals and limits. A server's word on its own output is never
        // toolvet's verdict (`Session::not_sent`).
        if let Some(call) = pending.call {
            let vetted =
                crate::results::vet_answer(&self.host, &pending.method, &call.request, raw).await;
            self.state().history.record_labels(&vetted.labels);
            self.reply(vetted.answer);
            if pending.method == "tools/call" {
                self.exposure_changed().await;
            }
            return;
        }
        self.reply(raw);
    }

    /// Vet `raw`, a request or notification the server sends of its own
    /// accord ([`crate::server_text::vet_message`]), and keep the labels
    /// its text raised for the run. Returns why it is not passed on, when
    /// it is not (logged).
    async fn vet_server_message(&self, method: &str, raw: &Value) -> Option<String> {
        // No result checks: nothing to vet, and no context to build.
        if !self.host.vets_results() {
            return None;
        }
        let context = self.context();
        let text = crate::server_text::vet_message(&self.host, method, raw, &context).await;
        if !text.labels.is_empty() {
            self.state().history.record_labels(&text.labels);
        }
        let why = text.reason?;
        tracing::warn!(
            "did not pass on the MCP server's `{method}`: {}",
            toolvet::display::visible(&why)
        );
        Some(why)
    }

    /// Drop the tools the policy hides from a `tools/list` answer, and
    /// remember every tool for vetting calls to it.
    async fn trim_list(&self, raw: &mut Value) {
        let Some(Value::Array(listed)) = raw.pointer_mut("/result/tools") else {
            return;
        };
        let mut parsed = Vec::new();
        for item in listed.iter() {
            if let Ok(tool) = serde_json::from_value::<Tool>(item.clone()) {
                parsed.push(tool);
            }
        }
        // Learned first, so that what is hidden is decided with the
        // strictest annotations seen, as calls are vetted.
        let parsed: Vec<Tool> = {
            let mut state = self.state();
            parsed
                .into_iter()
                .map(|tool| {
                    let name = tool.name.to_string();
                    state.learn(tool.clone(), &self.server);
                    state.tools.get(&name).cloned().unwrap_or(tool)
                })
                .collect()
        };
        let mut shown = BTreeSet::new();
        let mut hidden = BTreeSet::new();
        for tool in &parsed {
            if self.hides(tool).await {
                hidden.insert(tool.name.to_string());
            } else {
                shown.insert(tool.name.to_string());
            }
        }
        // A tool whose entry rmcp cannot read is not listed: it could not
        // be vetted with its declared annotations.
        if parsed.len() < listed.len() {
            tracing::warn!(
                "the MCP server listed {} tools that are not valid MCP tool entries; they are not shown",
                listed.len() - parsed.len()
            );
        }
        // Each tool once: the client is shown one definition of a name,
        // the one listed first.
        let mut once = BTreeSet::new();
        listed.retain(|item| {
            item.get("name")
                .and_then(Value::as_str)
                .is_some_and(|n| shown.contains(n) && once.insert(n.to_string()))
        });
        let mut state = self.state();
        // The client is shown what the proxy vets with: the strictest
        // annotations the server ever gave each tool, without the hints
        // toolvet cannot vouch for (`gate::believed`).
        for item in listed.iter_mut() {
            let annotations = item
                .get("name")
                .and_then(Value::as_str)
                .and_then(|n| state.tools.get(n))
                .and_then(gate::shown_annotations);
            if let Some(item) = item.as_object_mut() {
                match annotations {
                    Some(a) => item.insert("annotations".into(), a),
                    None => item.remove("annotations"),
                };
            }
        }
        let mut all = state.shown.take().unwrap_or_default();
        all.retain(|n| !hidden.contains(n));
        all.extend(shown);
        state.shown = Some(all);
    }

    /// List the server's tools itself (every page, at most 100), to learn
    /// what it declares about a tool the client calls before listing it.
    /// On any failure the tools stay unknown, and the call is refused.
    async fn list_tools(&self) {
        let mut cursor: Option<Value> = None;
        for _ in 0..100 {
            let id = Value::String(format!("toolvet-{}", random_hex()));
            let key = jsonrpc::id_key(&id);
            let (tx, rx) = oneshot::channel();
            {
                let mut state = self.state();
                if state.gone.is_some() {
                    return;
                }
                let pending = Pending {
                    id: id.clone(),
                    method: "tools/list".into(),
                    call: None,
                    internal: Some(tx),
                };
                state.pending.insert(key.clone(), pending);
            }
            let mut params = match &cursor {
                Some(cursor) => json!({ "cursor": cursor }),
                None => json!({}),
            };
            if let Some(meta) = self.state().modern_meta.clone() {
                params["_meta"] = meta;
            }
            if !self.send_server(jsonrpc::request(&id, "tools/list", params)) {
                self.state().pending.remove(&key);
                return;
            }
            let answer = match tokio::time::timeout(self.config.upstream_timeout, rx).await {
                Ok(Ok(answer)) => answer,
                _ => {
                    self.state().pending.remove(&key);
                    return;
                }
            };
            let Some(result) = answer.get("result") else {
                return;
            };
            let mut state = self.state();
            for item in result
                .get("tools")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Ok(tool) = serde_json::from_value::<Tool>(item.clone()) {
                    state.learn(tool, &self.server);
                }
            }
            cursor = result.get("nextCursor").filter(|c| !c.is_null()).cloned();
            if cursor.is_none() {
                return;
            }
        }
    }

    /// Whether the policy hides `tool` in this session now
    /// ([`gate::hides`]; without `hide_denied_tools`, only a tool whose
    /// name no call can carry).
    async fn hides(&self, tool: &Tool) -> bool {
        if self.config.hide_denied_tools.is_empty() {
            return !gate::callable(&tool.name);
        }
        gate::hides(&self.host, &self.config, tool, self.context()).await
    }

    /// After a call changed the history: tell the client when the tools it
    /// may see changed.
    async fn exposure_changed(&self) {
        let (tools, shown) = {
            let state = self.state();
            if self.config.hide_denied_tools.is_empty() || state.shown.is_none() {
                return;
            }
            (
                state.tools.values().cloned().collect::<Vec<_>>(),
                state.shown.clone(),
            )
        };
        let mut now = BTreeSet::new();
        for tool in &tools {
            if !self.hides(tool).await {
                now.insert(tool.name.to_string());
            }
        }
        if shown.as_ref() != Some(&now) {
            self.state().shown = Some(now);
            self.reply(jsonrpc::notification(
                "notifications/tools/list_changed",
                None,
            ));
        }
    }

    /// The server is gone: answer what it left unanswered.
    pub(crate) fn server_gone(&self, why: String) {
        let pending: Vec<Pending> = {
            let mut state = self.state();
            if state.closing {
                tracing::debug!("the MCP server {why} after the client closed");
            } else {
                tracing::warn!("the MCP server {why}");
            }
            state.gone = Some(why.clone());
            state.pending.drain().map(|(_, p)| p).collect()
        };
        self.to_server
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        for p in pending {
            if p.internal.is_some() {
                continue;
            }
            // Sent before the server went: it may have run (its outcome
            // stays the gate's).
            let message = format!("the MCP server {why} before answering `{}`", p.method);
            self.reply(jsonrpc::error(&p.id, jsonrpc::UPSTREAM_ERROR, &message));
        }
    }

    fn context(&self) -> CallContext {
        let settings = self.host.settings();
        let state = self.state();
        let mut attributes = BTreeMap::new();
        attributes.insert("mcp.transport".to_string(), self.transport.to_string());
        attributes.insert(
            toolvet::approval::MCP_SERVER_ATTRIBUTE.to_string(),
            self.server.clone(),
        );
        attributes.extend(self.place.attributes());
        CallContext {
            agent: self
                .config
                .agent
                .clone()
                .or_else(|| state.client_name.clone()),
            run_id: Some(self.run_id.clone()),
            principal: self.config.principal.clone(),
            attributes,
            // A history that cannot be handed over whole: gate() refuses
            // the call before any check (this only lists tools).
            history: state.history.for_checks(&settings).unwrap_or_default(),
            labels: state.history.labels().to_vec(),
        }
    }

    /// Add a call to the history (a held call coming again is that call,
    /// [`toolvet::run_history::RunHistory::record_outcome`]: resumed it is
    /// counted once, held again or refused it adds nothing); returns its
    /// sequence number.
    fn record(
        &self,
        name: String,
        arguments: Box<serde_json::value::RawValue>,
        outcome: Outcome,
    ) -> u64 {
        let settings = self.host.settings();
        self.state()
            .history
            .record_outcome(name, arguments, outcome, "", &settings)
    }

    /// A vetted call that never reached the server (the server was gone,
    /// or the call could not be rebuilt or sent): recorded as denied, since
    /// it did not run. The only change of a call's outcome after it was
    /// recorded: once sent, a call keeps the gate's outcome whatever the
    /// server answers, or if it never answers (review s7 F7).
    fn not_sent(&self, call: &Forwarded) {
        self.state().history.not_sent(call.seq);
    }

    /// Answer a `tools/call` without running it, and record why.
    async fn refuse(&self, id: &Value, request: &CallRequest, text: String, outcome: Outcome) {
        self.reply(jsonrpc::result(id, gate::refusal(text)));
        let _ = self.record(
            request.call.name.clone(),
            request.call.arguments.clone(),
            outcome,
        );
        self.exposure_changed().await;
    }

    /// Vet one `tools/call`: forward it, refuse it, or ask the person.
    async fn gate(self: Arc<Self>, id: Value, raw: Value) {
        let params = raw.get("params");
        let Some(name) = params.and_then(|p| p.get("name")).and_then(Value::as_str) else {
            return self.reply(jsonrpc::error(
                &id,
                jsonrpc::INVALID_PARAMS,
                "tools/call needs a string `name`",
            ));
        };
        let gating = self.gating.lock().await;
        if let Some(meta) = params
            .and_then(|p| p.get("_meta"))
            .filter(|m| m.get(MODERN_VERSION_KEY).is_some())
        {
            self.state().modern_meta = Some(meta.clone());
        }
        if !self.state().tools.contains_key(name) {
            // Vet a tool only with what its server declares: list them
            // first when the client has not (or the tool is new).
            self.list_tools().await;
        }
        let tool = self.state().tools.get(name).cloned();
        if tool.is_none() {
            let text = format!(
                "toolvet denied this call: the MCP server lists no tool named `{}`, so it cannot be vetted with what the server declares about it",
                toolvet::display::visible(name)
            );
            let request = gate::call_request(name, None, None, self.context());
            drop(gating);
            return match request {
                Ok(request) => self.refuse(&id, &request, text, Outcome::Denied).await,
                Err(_) => self.reply(jsonrpc::result(&id, gate::refusal(text))),
            };
        }
        let arguments = params
            .and_then(|p| p.get("arguments"))
            .filter(|a| !a.is_null());
        let mut context = self.context();
        if self.state().changed.contains(name) {
            context
                .attributes
                .insert(gate::DEFINITION_CHANGED.into(), "true".into());
        }
        let mut request = match gate::call_request(name, arguments, tool.as_ref(), context) {
            Ok(request) => request,
            Err(e) => {
                let text = format!("toolvet cannot vet this call, so it is denied: {e}");
                return self.reply(jsonrpc::result(&id, gate::refusal(text)));
            }
        };
        // Never vetted with earlier calls left out (toolvet::history_fit),
        // nor with its own held entry (it is that call coming again).
        let fitted = self.state().history.for_call(
            &request.call.name,
            &request.call.arguments,
            &self.host.settings(),
        );
        match fitted {
            Ok(prior) => request.context.history = prior,
            Err(overflow) => {
                let rule = toolvet::history_fit::OVERFLOW_RULE;
                let text = format!("toolvet denied this call [{rule}]: {overflow}");
                return self.refuse(&id, &request, text, Outcome::Denied).await;
            }
        }
        let mut verdict = self.host.check(&request).await;
        let mut outcome = Outcome::Allowed;
        // The proxy runs as the agent's user: an approval (or a run grant)
        // it finds in the ledger counts only when a reviewer signed it
        // (`[approvals] reviewer_keys`; the resumed check verifies the
        // signature). Without reviewer keys it may be the agent's own row,
        // and only an answer the proxy got in the client runs a held call.
        let trust = ApprovalTrust::of_host(&self.host);
        if let Some(why) = trust.uncounted(&verdict) {
            let text = format!(
                "toolvet denied this call [{}]: {why}",
                approval_rules::UNSIGNED
            );
            return self.refuse(&id, &request, text, Outcome::Denied).await;
        }
        if let Some(ticket) = trust.ledger_ticket(&verdict) {
            // Approved elsewhere (the CLI, the reviewer page) since it was
            // held, with a reviewer's signature.
            verdict = self.resume(&request, ticket.to_string()).await;
            outcome = Outcome::Approved;
        }
        match verdict.decision {
            Decision::Allow => self.forward_call(id, raw, &request, outcome),
            Decision::Deny => {
                self.refuse(&id, &request, gate::denied_text(&verdict), Outcome::Denied)
                    .await
            }
            Decision::Escalate => {
                // Not held while a person thinks: other calls go on.
                drop(gating);
                self.escalate(id, raw, request, verdict).await
            }
        }
    }

    /// Vet a `resources/read`, `resources/subscribe`, `prompts/get` or
    /// `completion/complete` ([`jsonrpc::VETTED_METHODS`]) as a call of a tool named after the
    /// method, its params as the arguments ([`jsonrpc::vetted_params`]),
    /// then forward it rebuilt from what was vetted, or answer a JSON-RPC
    /// error the client shows. A call held for a person runs only with an
    /// approval a reviewer signed outside the session; it is not asked
    /// about in the client (the answer to these methods has no room for
    /// the round trip), so until then it is refused, fail closed, with the
    /// approval request's id.
    async fn gate_method(self: Arc<Self>, id: Value, method: String, raw: Value) {
        let (arguments, params) = match jsonrpc::vetted_params(&method, raw.get("params")) {
            Ok(split) => split,
            Err(why) => {
                return self.reply(jsonrpc::error(
                    &id,
                    jsonrpc::INVALID_PARAMS,
                    &why.to_string(),
                ));
            }
        };
        let refused = |text: String| jsonrpc::error(&id, jsonrpc::REFUSED_BY_POLICY, &text);
        let gating = self.gating.lock().await;
        if let Some(meta) = params
            .get("_meta")
            .filter(|m| m.get(MODERN_VERSION_KEY).is_some())
        {
            self.state().modern_meta = Some(meta.clone());
        }
        let mut context = self.context();
        context
            .attributes
            .insert("mcp.method".into(), method.clone());
        let request = match gate::call_request(&method, Some(&arguments), None, context) {
            Ok(request) => request,
            Err(e) => {
                let text = format!("toolvet cannot vet this `{method}`, so it is refused: {e}");
                return self.reply(refused(text));
            }
        };
        // Never vetted with earlier calls left out (toolvet::history_fit):
        // `context()` hands over none when the history cannot fit.
        let fitted = self.state().history.for_checks(&self.host.settings());
        if let Err(overflow) = fitted {
            let rule = toolvet::history_fit::OVERFLOW_RULE;
            let text = format!("toolvet denied this `{method}` [{rule}]: {overflow}");
            return self.reply(refused(text));
        }
        let mut verdict = self.host.check(&request).await;
        let mut outcome = Outcome::Allowed;
        let trust = ApprovalTrust::of_host(&self.host);
        let record = |outcome| {
            self.record(
                request.call.name.clone(),
                request.call.arguments.clone(),
                outcome,
            )
        };
        if let Some(why) = trust.uncounted(&verdict) {
            record(Outcome::Denied);
            drop(gating);
            self.exposure_changed().await;
            let text = format!(
                "toolvet denied this `{method}` [{}]: {why}",
                approval_rules::UNSIGNED
            );
            return self.reply(refused(text));
        }
        if let Some(ticket) = trust.ledger_ticket(&verdict) {
            verdict = self.resume(&request, ticket.to_string()).await;
            outcome = Outcome::Approved;
        }
        let text = match verdict.decision {
            Decision::Allow => {
                let seq = record(outcome);
                drop(gating);
                let forwarded = jsonrpc::request(&id, &method, params);
                let call = Forwarded {
                    seq,
                    request: Box::new(request),
                };
                return self.forward(id, method, forwarded, Some(call));
            }
            Decision::Deny => {
                record(Outcome::Denied);
                gate::denied_text(&verdict)
            }
            Decision::Escalate => {
                record(Outcome::Escalated);
                gate::held_text(
                    &verdict,
                    &format!("A held {method} request is not asked about in the client."),
                )
            }
        };
        drop(gating);
        self.exposure_changed().await;
        self.reply(refused(text));
    }

    fn forward_call(
        self: &Arc<Self>,
        id: Value,
        raw: Value,
        request: &CallRequest,
        outcome: Outcome,
    ) {
        let seq = self.record(
            request.call.name.clone(),
            request.call.arguments.clone(),
            outcome,
        );
        // The server gets the call rebuilt from what was vetted, never the
        // client's message as sent.
        let Some(call) = gate::forwarded_call(&id, &request.call, raw.get("params")) else {
            self.state().history.not_sent(seq);
            let text = "toolvet cannot pass this call on as it was vetted, so it is denied".into();
            return self.reply(jsonrpc::result(&id, gate::refusal(text)));
        };
        let forwarded = Forwarded {
            seq,
            request: Box::new(request.clone()),
        };
        self.forward(id, "tools/call".into(), call, Some(forwarded));
    }

    async fn resume(&self, request: &CallRequest, ticket: String) -> Verdict {
        let mut resumed = request.clone();
        resumed.approval = Some(ApprovalClaim { ticket });
        self.host.check(&resumed).await
    }

    /// An escalate: ask the person in the client when it can, else refuse
    /// with the approval request's id (it stays open for a reviewer).
    async fn escalate(
        self: Arc<Self>,
        id: Value,
        raw: Value,
        request: CallRequest,
        verdict: Verdict,
    ) {
        let (Some(approval), Some(approvals)) = (verdict.approval.clone(), self.host.approvals())
        else {
            let text = gate::held_text(&verdict, "");
            return self.refuse(&id, &request, text, Outcome::Denied).await;
        };
        let meta = raw.pointer("/params/_meta");
        let modern = meta.and_then(|m| m.get(MODERN_VERSION_KEY)).is_some();
        let elicits = if modern {
            meta.and_then(|m| m.get(MODERN_CAPABILITIES_KEY))
                .and_then(|c| c.get("elicitation"))
                .is_some()
        } else {
            self.state().client_elicits
        };
        // The question shows every key of the arguments, or is not asked:
        // never ask a person about arguments they cannot see.
        let question = gate::elicitation(&request.call, &verdict);
        let unable = if !self.config.elicit {
            Some("The policy does not ask in the client ([mcp] elicit = false).")
        } else if ApprovalTrust::of_host(&self.host) == ApprovalTrust::Signed {
            // An answer in the client is no reviewer's signature: it could
            // not count, so the person is not asked for it.
            Some(
                "Approvals under this policy need a reviewer's signature, given outside this session.",
            )
        } else if !elicits {
            Some("The client cannot ask the user (it declared no elicitation).")
        } else if self.transport == HTTP_TRANSPORT {
            // Over `--listen` any local program can open a session, the
            // agent's own code too, and answer its own question (review
            // s10 H23): an answer given there is nobody's approval.
            Some(
                "This client is connected over HTTP, where any program on this machine can open a session, so \
                 an answer given in it cannot count as the person's.",
            )
        } else if question.is_none() {
            Some(gate::ARGUMENTS_NOT_SHOWN)
        } else {
            None
        };
        let (Some(ticket), Some(question), None) = (approval.ticket.clone(), question, unable)
        else {
            let text = gate::held_text(&verdict, unable.unwrap_or(""));
            return self.refuse(&id, &request, text, Outcome::Escalated).await;
        };
        let answer = if modern {
            // 2026-07-28: no request to the client while the call is open;
            // the answer comes with the call made again (MRTR).
            match gate::round_trip(&raw, &ticket) {
                gate::RoundTrip::Ask => {
                    let asking = gate::input_required(question, &ticket);
                    return self.reply(jsonrpc::result(&id, asking));
                }
                gate::RoundTrip::Answered(answer) => answer,
            }
        } else {
            self.elicit(question, approval.expires_at).await
        };
        let held = HeldCall {
            id,
            raw,
            request,
            verdict,
            approval_id: approval.id,
            ticket,
        };
        self.settle(held, &approvals, answer).await;
    }

    /// Ask the person `question_params` ([`gate::elicitation`]) through
    /// the client's `elicitation/create` while the call waits (MCP up to 2025-11-25), until `expires_at` or the
    /// policy's `approval_timeout`.
    async fn elicit(&self, question_params: Value, expires_at: UnixMillis) -> Answer {
        let question = Value::String(format!("toolvet-{}", random_hex()));
        let key = jsonrpc::id_key(&question);
        let (tx, rx) = oneshot::channel();
        self.state().elicitations.insert(key.clone(), tx);
        self.reply(jsonrpc::request(
            &question,
            "elicitation/create",
            question_params,
        ));
        let left = Duration::from_millis(expires_at.0.saturating_sub(UnixMillis::now().0));
        let wait = self.config.approval_timeout.min(left);
        match tokio::time::timeout(wait, rx).await {
            Ok(Ok(response)) => gate::answer(&response),
            Ok(Err(_)) => Answer::None("The client went away.".into()),
            Err(_) => {
                self.state().elicitations.remove(&key);
                self.reply(jsonrpc::notification(
                    "notifications/cancelled",
                    Some(json!({"requestId": question, "reason": "toolvet: no answer in time"})),
                ));
                Answer::None(format!("No answer came within {} s.", wait.as_secs()))
            }
        }
    }

    /// Record what the person answered about a held call, then run it (an
    /// approval, if the ledger still allows it) or refuse it.
    async fn settle(self: Arc<Self>, held: HeldCall, approvals: &Approvals, answer: Answer) {
        let HeldCall {
            id,
            raw,
            request,
            verdict,
            approval_id,
            ticket,
        } = held;
        let reviewer = self.reviewer();
        match answer {
            Answer::Approve(message) => {
                if let Err(e) = approvals
                    .approve(&approval_id, &reviewer, message.as_deref(), Scope::Once)
                    .await
                {
                    tracing::warn!("recording the approval of {approval_id}: {e}");
                }
                // The ledger decides: a request rejected or expired meanwhile stays refused.
                let _gating = self.gating.lock().await;
                let resumed = self.resume(&request, ticket).await;
                match resumed.decision {
                    Decision::Allow => self.forward_call(id, raw, &request, Outcome::Approved),
                    _ => {
                        self.refuse(&id, &request, gate::denied_text(&resumed), Outcome::Denied)
                            .await
                    }
                }
            }
            Answer::Reject(message) => {
                if let Err(e) = approvals
                    .reject(&approval_id, &reviewer, message.as_deref())
                    .await
                {
                    tracing::warn!("recording the rejection of {approval_id}: {e}");
                }
                let text = gate::rejected_text(&verdict, &reviewer, message.as_deref());
                self.refuse(&id, &request, text, Outcome::Rejected).await;
            }
            Answer::None(why) => {
                let text = gate::held_text(&verdict, &why);
                self.refuse(&id, &request, text, Outcome::Escalated).await;
            }
        }
    }

    /// Who answers in this session: `[mcp] reviewer`, else the client's
    /// name.
    fn reviewer(&self) -> String {
        self.config.reviewer.clone().unwrap_or_else(|| {
            let client = self
                .state()
                .client_name
                .clone()
                .unwrap_or_else(|| "unnamed".into());
            format!("mcp-client:{client}")
        })
    }
}

/// A call held for a person's answer in the client: what [`Session::settle`]
/// records the answer about, then runs or refuses.
struct HeldCall {
    /// The JSON-RPC id of the client's `tools/call`.
    id: Value,
    /// The client's message, forwarded as is if the call runs.
    raw: Value,
    /// The call as vetted.
    request: CallRequest,
    /// Its verdict: an escalate.
    verdict: Verdict,
    /// The approval request the answer decides.
    approval_id: String,
    /// The request's ticket, which the resumed call carries.
    ticket: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A session with a host that has no checks, for what the checks
    /// would be handed.
    fn session(place: ServerPlace) -> Arc<Session> {
        let policy = toolvet::Policy::from_toml(
            "[host]\nallow_without_checks = true\n",
            "toolvet.toml".as_ref(),
            "/nonexistent".as_ref(),
        )
        .unwrap();
        let host = toolvet::block_on(Host::load(policy)).unwrap();
        let (to_client, _) = mpsc::unbounded_channel();
        let (to_server, _) = mpsc::unbounded_channel();
        let server = "shell-server".to_string();
        Session::new(
            host,
            McpConfig::default(),
            server,
            "stdio",
            place,
            to_client,
            to_server,
        )
    }

    /// Review s7 F2: the calls of a server the proxy started carry the
    /// user's home and the working directory it runs in, the way the
    /// hooks' calls do, so `~/.ssh/id_rsa` is judged as the home's.
    #[test]
    fn a_started_servers_calls_carry_home_and_cwd() {
        let place = ServerPlace::of_this_process();
        assert_eq!(place.home, toolvet::home::user_home());
        let here = std::env::current_dir().unwrap();
        assert_eq!(place.cwd.as_deref(), here.to_str());
        assert!(place.cwd.as_deref().is_some_and(|c| c.starts_with('/')));

        let place = ServerPlace {
            home: Some("/home/alice".into()),
            cwd: Some("/home/alice/project".into()),
        };
        let attributes = session(place).context().attributes;
        let get = |k: &str| attributes.get(k).map(String::as_str);
        assert_eq!(get("home"), Some("/home/alice"));
        assert_eq!(get("cwd"), Some("/home/alice/project"));
        assert_eq!(get("mcp.transport"), Some("stdio"));
        assert_eq!(get("mcp.server"), Some("shell-server"));
        assert_eq!(attributes.len(), 4, "{attributes:?}");
    }

    /// A remote server's place is unknown: no attribute claims one.
    #[test]
    fn an_unknown_place_sets_neither() {
        let attributes = session(ServerPlace::default()).context().attributes;
        assert_eq!(attributes.get("home"), None);
        assert_eq!(attributes.get("cwd"), None);
        assert_eq!(attributes.len(), 2, "{attributes:?}");
    }
}
