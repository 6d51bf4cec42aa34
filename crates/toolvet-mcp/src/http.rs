//! The proxy over MCP's Streamable HTTP transport (MCP 2025-06-18 and
//! later, "Transports" §2): `toolvet mcp --upstream URL --listen ADDR`
//! serves an MCP endpoint at `/mcp` and gates every session's calls on
//! their way to the remote server at `URL`, exactly as the stdio mode does
//! (the same [`Session`]; only the transport differs).
//!
//! **Toward the client** (an axum server):
//! - `POST /mcp` takes one JSON-RPC message (a batch is refused, as on
//!   stdio). A notification or a response: `202 Accepted`. A request: a
//!   `text/event-stream` response carrying its answer, and
//!   whatever the session sends meanwhile when no `GET` stream is open
//!   (e.g. the `elicitation/create` that asks the person about a call),
//!   closed once the request is answered.
//! - The `initialize` request (without a session id) opens a session; its
//!   response carries `Mcp-Session-Id`, which every later request must
//!   send (`400` without it, `404` for an unknown or ended one).
//! - `GET /mcp` opens the session's stream of server-initiated messages
//!   (requests and notifications such as `tools/list_changed`); a new one
//!   replaces the old. Messages sent while no stream is open wait for one
//!   (at most [`MAX_WAITING`]).
//! - `DELETE /mcp` ends the session (and the upstream one).
//! - Every request must name this endpoint in `Host` by IP address or
//!   `localhost` with its port, and an `Origin`, when sent, must be that
//!   too (`403` otherwise: a web page reaching the endpoint through DNS
//!   rebinding sends its own name); a `POST` must be
//!   `Content-Type: application/json` (`415`).
//!
//! **Toward the server** (a reqwest client, one upstream session per
//! client session): `initialize` is `POST`ed alone, every later message
//! concurrently (a long call never holds up the answer the server waits
//! for); JSON and event-stream answers are both read, bounded by
//! [`MAX_MESSAGE_BYTES`] per message. The session id and protocol version
//! the server gives are sent back on every request. After the client's
//! `notifications/initialized`, a `GET` stream is opened for the server's
//! own requests (a `405` means the server has none). A request the server
//! cannot be reached for, answers with an HTTP error, or whose stream ends
//! before its answer, gets a JSON-RPC error naming why; a `404` for the
//! session means the server ended it, and the session's later requests
//! are refused. A broken stream is not resumed (`Last-Event-ID`).

use crate::config::McpConfig;
use crate::jsonrpc::{self, Message};
use crate::proxy::{MAX_MESSAGE_BYTES, ServerPlace, Session, random_hex};
use crate::sse;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::Stream;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::mpsc;
use toolvet::Host;

/// The header carrying the session id (MCP "Transports" §2.5).
pub const SESSION_HEADER: &str = "mcp-session-id";
/// The header carrying the negotiated protocol version.
const PROTOCOL_HEADER: &str = "mcp-protocol-version";
/// The path the proxy serves.
pub const ENDPOINT: &str = "/mcp";
/// Most sessions open at once; `initialize` beyond it gets `503`.
pub const MAX_SESSIONS: usize = 1024;
/// Most server-initiated messages kept for a session with no stream open
/// to the client (the oldest are dropped past it).
pub const MAX_WAITING: usize = 1024;

/// A URL (the upstream server's endpoint).
pub use reqwest::Url;

/// Where the Streamable HTTP mode sends its sessions.
#[derive(Debug, Clone)]
pub struct HttpUpstream {
    /// The remote server's MCP endpoint (`http://host:port/mcp`).
    pub url: Url,
}

/// Serve the MCP endpoint on `listener` until `shutdown` completes,
/// gating every session's calls to `upstream` with `host`'s policy.
///
/// # Errors
/// The listener fails.
pub async fn serve_http(
    host: Host,
    config: McpConfig,
    upstream: HttpUpstream,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    // The proxy runs as the agent's user: a ledger row the agent wrote
    // must not count (review s12 L7).
    host.guard_same_user();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(std::io::Error::other)?;
    let port = listener.local_addr()?.port();
    let proxy = Arc::new(Proxy {
        port,
        host,
        config,
        upstream,
        client,
        sessions: Mutex::new(HashMap::new()),
    });
    let app = Router::new()
        .route(ENDPOINT, axum::routing::post(post).get(get).delete(delete))
        .layer(DefaultBodyLimit::max(MAX_MESSAGE_BYTES))
        .with_state(proxy.clone());
    let served = axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await;
    // End every session: the upstream ones too.
    let sessions: Vec<_> = proxy.sessions().drain().map(|(_, s)| s).collect();
    for s in sessions {
        s.session.client_closed();
    }
    served
}

struct Proxy {
    /// The port the endpoint listens on (what `Host` and `Origin` name).
    port: u16,
    host: Host,
    config: McpConfig,
    upstream: HttpUpstream,
    client: reqwest::Client,
    sessions: Mutex<HashMap<String, Arc<HttpSession>>>,
}

impl Proxy {
    fn sessions(&self) -> MutexGuard<'_, HashMap<String, Arc<HttpSession>>> {
        self.sessions.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A new session: its gate, the task that routes its messages to the
    /// client's streams, and its upstream connection.
    fn open(&self) -> Option<Arc<HttpSession>> {
        let mut sessions = self.sessions();
        if sessions.len() >= MAX_SESSIONS {
            return None;
        }
        let (to_client, client_rx) = mpsc::unbounded_channel();
        let (to_server, server_rx) = mpsc::unbounded_channel();
        let session = Session::new(
            self.host.clone(),
            self.config.clone(),
            self.upstream.url.to_string(),
            crate::proxy::HTTP_TRANSPORT,
            // A remote server: its home and working directory are not
            // this process's, and toolvet cannot know them.
            ServerPlace::default(),
            to_client,
            to_server,
        );
        let routes = Arc::new(Mutex::new(Routes::default()));
        tokio::spawn(route_to_client(routes.clone(), client_rx));
        tokio::spawn(upstream(
            self.client.clone(),
            self.upstream.url.clone(),
            session.clone(),
            server_rx,
        ));
        let id = random_hex();
        let opened = Arc::new(HttpSession {
            id: id.clone(),
            session,
            routes,
        });
        sessions.insert(id, opened.clone());
        Some(opened)
    }
}

/// One client session.
struct HttpSession {
    id: String,
    session: Arc<Session>,
    routes: Arc<Mutex<Routes>>,
}

/// Where a session's messages to the client go.
#[derive(Default)]
struct Routes {
    /// The open `POST` streams, by the id key of each request whose answer
    /// they wait for.
    posts: HashMap<String, mpsc::UnboundedSender<Value>>,
    /// The `GET` stream, if open.
    get: Option<mpsc::UnboundedSender<Value>>,
    /// Server-initiated messages waiting for a stream.
    waiting: VecDeque<Value>,
}

fn lock(routes: &Mutex<Routes>) -> MutexGuard<'_, Routes> {
    routes.lock().unwrap_or_else(|p| p.into_inner())
}

/// Route each message the session sends to the client: an answer to the
/// `POST` stream of its request; anything else to the `GET` stream, else
/// to an open `POST` stream, else into the waiting list.
async fn route_to_client(routes: Arc<Mutex<Routes>>, mut messages: mpsc::UnboundedReceiver<Value>) {
    while let Some(message) = messages.recv().await {
        let mut r = lock(&routes);
        let answer = message.get("method").is_none();
        if answer
            && let Some(id) = message.get("id")
            && let Some(stream) = r.posts.remove(&jsonrpc::id_key(id))
        {
            let _ = stream.send(message);
            continue;
        }
        if let Some(get) = &r.get {
            if get.send(message.clone()).is_ok() {
                continue;
            }
            r.get = None;
        }
        if let Some(post) = r.posts.values().find(|s| !s.is_closed()) {
            let _ = post.send(message);
            continue;
        }
        if r.waiting.len() >= MAX_WAITING {
            r.waiting.pop_front();
            tracing::warn!(
                "a message to an MCP client with no stream open was dropped (over {MAX_WAITING} waiting)"
            );
        }
        r.waiting.push_back(message);
    }
}

/// The body of an event-stream response: each message as one event.
fn event_stream(
    messages: mpsc::UnboundedReceiver<Value>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let events = futures_util::stream::unfold(messages, |mut rx| async move {
        let message = rx.recv().await?;
        Some((Ok(Event::default().data(message.to_string())), rx))
    });
    Sse::new(events).keep_alive(KeepAlive::default())
}

/// An HTTP error whose body is a JSON-RPC error (id `null`), as MCP
/// clients read them.
fn refuse(status: StatusCode, code: i64, why: &str) -> Response {
    (status, axum::Json(jsonrpc::error(&Value::Null, code, why))).into_response()
}

/// Why a request names no usable session.
#[derive(Debug, Clone, Copy)]
enum NoSession {
    /// No `Mcp-Session-Id` header.
    Missing,
    /// An id that is not (or no longer) a session's.
    Unknown,
}

impl IntoResponse for NoSession {
    fn into_response(self) -> Response {
        match self {
            NoSession::Missing => refuse(
                StatusCode::BAD_REQUEST,
                jsonrpc::INVALID_REQUEST,
                "no Mcp-Session-Id header: start a session with `initialize`",
            ),
            NoSession::Unknown => refuse(
                StatusCode::NOT_FOUND,
                jsonrpc::INVALID_REQUEST,
                "unknown or ended MCP session: start a new one with `initialize`",
            ),
        }
    }
}

/// Whether `authority` (`host:port`, as `Host` carries it and an origin
/// ends) names this endpoint in a way no DNS rebinding can: an IP
/// literal, or `localhost`, with the endpoint's port. A page that got its
/// name (`evil.example`) to resolve to this machine still sends its own
/// name, which is refused.
fn own_authority(authority: &str, port: u16) -> bool {
    let Some((name, given)) = authority.rsplit_once(':') else {
        return false;
    };
    if given.parse::<u16>().ok() != Some(port) {
        return false;
    }
    let literal = name
        .strip_prefix('[')
        .and_then(|n| n.strip_suffix(']'))
        .map_or_else(
            || name.parse::<std::net::Ipv4Addr>().is_ok(),
            |n| n.parse::<std::net::Ipv6Addr>().is_ok(),
        );
    literal || name.eq_ignore_ascii_case("localhost")
}

/// The refusal of a request a web page may have sent (`None`: served) (MCP "Transports", security
/// warning: DNS rebinding): `403` for a `Host` that is not this endpoint
/// by IP literal or `localhost` with its port ([`own_authority`]), or an
/// `Origin` that is not `http://` and that same `Host` (a browser names
/// the page's origin; clients that are not browsers send none); with
/// `json`, `415` for a body not declared `application/json`, a type a
/// page cannot send without a preflight this endpoint never answers.
fn refusal(proxy: &Proxy, headers: &HeaderMap, json: bool) -> Option<Response> {
    let forbidden = |why: &str| {
        tracing::warn!("refused an HTTP request: {why}");
        Some(refuse(StatusCode::FORBIDDEN, jsonrpc::INVALID_REQUEST, why))
    };
    let host = match headers.get(header::HOST).map(|h| h.to_str()) {
        Some(Ok(host)) if own_authority(host, proxy.port) => host,
        _ => {
            return forbidden(
                "the Host header does not name this endpoint (an IP address or `localhost` with \
                 its port); the request is refused as a possible DNS rebinding",
            );
        }
    };
    if let Some(origin) = headers.get(header::ORIGIN) {
        // Same origin: the page's authority is the one this request was
        // sent to (already this endpoint's), not merely some IP literal
        // with the port (a page on another host's address is another
        // origin).
        let own = origin
            .to_str()
            .ok()
            .and_then(|o| o.strip_prefix("http://"))
            .is_some_and(|a| a.eq_ignore_ascii_case(host) && own_authority(a, proxy.port));
        if !own {
            return forbidden(
                "the request comes from a web page of another origin; only this endpoint's own \
                 origin (or a client that is not a browser) may use it",
            );
        }
    }
    if json {
        let declared = headers
            .get(header::CONTENT_TYPE)
            .and_then(|t| t.to_str().ok())
            .and_then(|t| t.split(';').next())
            .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"));
        if !declared {
            return Some(refuse(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                jsonrpc::INVALID_REQUEST,
                "a POST to this endpoint must be `Content-Type: application/json`",
            ));
        }
    }
    None
}

fn session_of(proxy: &Proxy, headers: &HeaderMap) -> Result<Arc<HttpSession>, NoSession> {
    let id = headers.get(SESSION_HEADER).ok_or(NoSession::Missing)?;
    id.to_str()
        .ok()
        .and_then(|id| proxy.sessions().get(id).cloned())
        .ok_or(NoSession::Unknown)
}

async fn post(State(proxy): State<Arc<Proxy>>, headers: HeaderMap, body: Bytes) -> Response {
    if let Some(refused) = refusal(&proxy, &headers, true) {
        return refused;
    }
    let text = match std::str::from_utf8(&body) {
        Ok(text) => text,
        Err(e) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                jsonrpc::PARSE_ERROR,
                &format!("the body is not UTF-8: {e}"),
            );
        }
    };
    // As on stdio: MCP has had no batches since 2025-06-18.
    if text.trim_start().starts_with('[') {
        return refuse(
            StatusCode::BAD_REQUEST,
            jsonrpc::INVALID_REQUEST,
            "batches are not accepted: send one JSON-RPC message per POST",
        );
    }
    // Read strictly, as on stdio: a refused message reaches no session.
    let message = match Message::parse_client(text) {
        Ok(message) => message,
        Err(refusal) => {
            tracing::warn!("refused a message from the client: {}", refusal.message);
            return (StatusCode::BAD_REQUEST, axum::Json(refusal.response())).into_response();
        }
    };
    let (request, initialize) = match &message {
        Message::Request { id, method, .. } => (Some(jsonrpc::id_key(id)), method == "initialize"),
        _ => (None, false),
    };
    let (session, opened) = if headers.contains_key(SESSION_HEADER) {
        match session_of(&proxy, &headers) {
            Ok(s) => (s, false),
            Err(refused) => return refused.into_response(),
        }
    } else if initialize {
        match proxy.open() {
            Some(s) => (s, true),
            None => {
                return refuse(
                    StatusCode::SERVICE_UNAVAILABLE,
                    jsonrpc::UPSTREAM_ERROR,
                    &format!("the proxy has {MAX_SESSIONS} sessions open; try again later"),
                );
            }
        }
    } else {
        return NoSession::Missing.into_response();
    };
    let Some(key) = request else {
        session.session.clone().handle_client(message);
        return StatusCode::ACCEPTED.into_response();
    };
    let (stream, answer) = mpsc::unbounded_channel();
    // Only the routes hold the stream: it ends once the request is
    // answered.
    lock(&session.routes).posts.insert(key, stream);
    session.session.clone().handle_client(message);
    let mut response = event_stream(answer).into_response();
    if opened && let Ok(id) = HeaderValue::from_str(&session.id) {
        response.headers_mut().insert(SESSION_HEADER, id);
    }
    response
}

async fn get(State(proxy): State<Arc<Proxy>>, headers: HeaderMap) -> Response {
    if let Some(refused) = refusal(&proxy, &headers, false) {
        return refused;
    }
    let session = match session_of(&proxy, &headers) {
        Ok(s) => s,
        Err(refused) => return refused.into_response(),
    };
    let (stream, messages) = mpsc::unbounded_channel();
    {
        let mut r = lock(&session.routes);
        for waiting in r.waiting.drain(..) {
            let _ = stream.send(waiting);
        }
        r.get = Some(stream);
    }
    event_stream(messages).into_response()
}

async fn delete(State(proxy): State<Arc<Proxy>>, headers: HeaderMap) -> Response {
    if let Some(refused) = refusal(&proxy, &headers, false) {
        return refused;
    }
    let session = match session_of(&proxy, &headers) {
        Ok(s) => s,
        Err(refused) => return refused.into_response(),
    };
    proxy.sessions().remove(&session.id);
    session.session.client_closed();
    StatusCode::OK.into_response()
}

/// What the upstream server told this session: its session id and
/// protocol version, sent back on every request.
#[derive(Default)]
struct UpstreamSession {
    id: Option<HeaderValue>,
    protocol: Option<HeaderValue>,
}

/// One client session's upstream side: `POST` each message the session
/// sends to the server and pass back what the server answers. `initialize`
/// is sent alone (its answer gives the session id every later request
/// carries); later messages are sent concurrently, so a call that takes
/// long, or that waits on the person's answer to the server's own question,
/// never holds up the messages after it. Ends when the client's session
/// ends (the upstream session is then deleted) or the server ends it.
async fn upstream(
    client: reqwest::Client,
    url: reqwest::Url,
    session: Arc<Session>,
    mut messages: mpsc::UnboundedReceiver<Value>,
) {
    let link = Arc::new(Link {
        client,
        url,
        known: Mutex::new(UpstreamSession::default()),
        ended: std::sync::atomic::AtomicBool::new(false),
    });
    while let Some(message) = messages.recv().await {
        if link.ended.load(std::sync::atomic::Ordering::Acquire) {
            break;
        }
        let first = message.get("method").and_then(Value::as_str) == Some("initialize");
        let sent = link.clone().send(session.clone(), message);
        if first {
            sent.await;
        } else {
            tokio::spawn(sent);
        }
    }
    // The client's session has ended: end the upstream one.
    let id = link.known().id.clone();
    if let Some(id) = id {
        let _ = link
            .client
            .delete(link.url.clone())
            .header(SESSION_HEADER, id)
            .send()
            .await;
    }
}

/// The way to the upstream server for one session.
struct Link {
    client: reqwest::Client,
    url: reqwest::Url,
    known: Mutex<UpstreamSession>,
    /// The server ended the session (`404`).
    ended: std::sync::atomic::AtomicBool,
}

impl Link {
    fn known(&self) -> MutexGuard<'_, UpstreamSession> {
        self.known.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A request to the server with the session's id and protocol version.
    fn request(&self, method: reqwest::Method) -> reqwest::RequestBuilder {
        let mut request = self.client.request(method, self.url.clone());
        let known = self.known();
        if let Some(id) = &known.id {
            request = request.header(SESSION_HEADER, id.clone());
        }
        if let Some(version) = &known.protocol {
            request = request.header(PROTOCOL_HEADER, version.clone());
        }
        request
    }

    /// `POST` one message and pass back what the server answers. A
    /// request that gets no answer is answered with why.
    async fn send(self: Arc<Self>, session: Arc<Session>, message: Value) {
        let method = message
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_string);
        let request_id = match (&method, message.get("id")) {
            (Some(_), Some(id)) => Some(id.clone()),
            _ => None,
        };
        let had_session = self.known().id.is_some();
        let sent = self
            .request(reqwest::Method::POST)
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json, text/event-stream")
            .body(message.to_string())
            .send()
            .await;
        let url = &self.url;
        let why = match sent {
            Err(e) => Some(format!("at {url} cannot be reached ({e})")),
            Ok(response) => {
                if let Some(given) = response.headers().get(SESSION_HEADER) {
                    self.known().id = Some(given.clone());
                }
                let status = response.status();
                if status == reqwest::StatusCode::NOT_FOUND && had_session {
                    self.ended.store(true, std::sync::atomic::Ordering::Release);
                    session.server_gone(format!("at {url} ended the session (HTTP 404)"));
                    return;
                }
                if !status.is_success() {
                    Some(format!("at {url} answered HTTP {status}"))
                } else {
                    if method.as_deref() == Some("notifications/initialized") {
                        tokio::spawn(self.clone().listen(session.clone()));
                    }
                    read_answers(response, &session, &self)
                        .await
                        .or_else(|| Some("ended its answer without one".into()))
                }
            }
        };
        match (request_id, why) {
            // A no-op when the request was answered.
            (Some(id), Some(why)) => fail(&session, &id, &format!("the MCP server {why}")).await,
            (None, Some(why)) if !why.ends_with("without one") => {
                tracing::warn!("the MCP server {why}, to a notification or an answer")
            }
            _ => {}
        }
    }

    /// The upstream session's `GET` stream: the server's own requests and
    /// notifications, passed to the session until the stream ends.
    async fn listen(self: Arc<Self>, session: Arc<Session>) {
        let opened = self
            .request(reqwest::Method::GET)
            .header(header::ACCEPT, "text/event-stream")
            .send()
            .await;
        match opened {
            Ok(response) if response.status().is_success() => {
                if let Some(why) = read_answers(response, &session, &self).await {
                    tracing::warn!("the MCP server's event stream ended: it {why}");
                }
            }
            Ok(response) if response.status() == reqwest::StatusCode::METHOD_NOT_ALLOWED => {}
            Ok(response) => tracing::warn!(
                "the MCP server refused its event stream (HTTP {})",
                response.status()
            ),
            Err(e) => tracing::warn!("the MCP server's event stream cannot be opened: {e}"),
        }
    }
}

/// Answer the session's request `id` with an upstream error, as if the
/// server had (nothing happens when it was answered already).
async fn fail(session: &Arc<Session>, id: &Value, why: &str) {
    let error = jsonrpc::error(id, jsonrpc::UPSTREAM_ERROR, why);
    session.from_server(&error.to_string()).await;
}

/// Pass every message of one upstream response to the session: a JSON
/// body (one message or a batch) or an event stream. Returns why it ended
/// early, if it did.
async fn read_answers(
    mut response: reqwest::Response,
    session: &Arc<Session>,
    link: &Link,
) -> Option<String> {
    let streamed = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|t| t.to_str().ok())
        .is_some_and(|t| t.starts_with("text/event-stream"));
    if !streamed {
        if response.status() == reqwest::StatusCode::ACCEPTED {
            return None;
        }
        let mut body = Vec::new();
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    if body.len() + chunk.len() > MAX_MESSAGE_BYTES {
                        return Some(format!("sent an answer over {MAX_MESSAGE_BYTES} bytes"));
                    }
                    body.extend_from_slice(&chunk);
                }
                Ok(None) => break,
                Err(e) => return Some(format!("broke off its answer ({e})")),
            }
        }
        if body.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        // One message, read strictly by the session: a batch is refused
        // (MCP has had none since 2025-06-18), as on stdio.
        return match std::str::from_utf8(&body) {
            Ok(text) => {
                deliver(session, link, text).await;
                None
            }
            Err(e) => Some(format!("sent an answer that is not UTF-8 ({e})")),
        };
    }
    let mut decoder = sse::Decoder::new(MAX_MESSAGE_BYTES);
    loop {
        let chunk = match response.chunk().await {
            Ok(Some(chunk)) => chunk,
            Ok(None) => return None,
            Err(e) => return Some(format!("broke off its event stream ({e})")),
        };
        let events = match decoder.feed(&chunk) {
            Ok(events) => events,
            Err(e) => return Some(format!("sent {e}")),
        };
        for data in events {
            deliver(session, link, &data).await;
        }
    }
}

/// One message from the server (JSON text) to the session, read strictly
/// ([`Message::parse_server`]; a refused one reaches no one, and the
/// requests it may have answered get errors); an `initialize` answer's
/// protocol version is remembered for the requests after it.
async fn deliver(session: &Arc<Session>, link: &Link, text: &str) {
    let message = match Message::parse_server(text) {
        Ok(message) => message,
        Err(refusal) => return session.server_refused(refusal).await,
    };
    if let Message::Response { raw, .. } = &message
        && let Some(version) = raw
            .pointer("/result/protocolVersion")
            .and_then(Value::as_str)
            .filter(|_| raw.pointer("/result/serverInfo").is_some())
            .and_then(|v| HeaderValue::from_str(v).ok())
    {
        link.known().protocol = Some(version);
    }
    session.handle_server(message).await;
}

#[cfg(test)]
mod tests {
    use super::own_authority;

    #[test]
    fn only_ip_literals_and_localhost_with_the_port_are_this_endpoint() {
        for own in [
            "127.0.0.1:8080",
            "localhost:8080",
            "LOCALHOST:8080",
            "[::1]:8080",
            "10.0.0.5:8080",
        ] {
            assert!(own_authority(own, 8080), "{own}");
        }
        for other in [
            "rebind.evil.example:8080",
            "rebind.evil.example",
            "127.0.0.1",
            "127.0.0.1:8081",
            "localhost:80",
            "localhost.evil.example:8080",
            "::1:8080",
            "[evil]:8080",
            "127.0.0.1:8080:8080",
            "",
        ] {
            assert!(!own_authority(other, 8080), "{other}");
        }
    }
}
