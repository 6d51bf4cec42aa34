//! The gating proxy: one [`Gate`] per client session, between the client
//! (downstream, toolvet is its server) and the MCP server (upstream,
//! toolvet is its client). `tools/call` is vetted, `tools/list` filtered;
//! every other request and notification, and the server's own requests to
//! the client (sampling, elicitation, roots), pass through unchanged.

use crate::config::McpConfig;
use crate::vet;
use rmcp::model::{
    CallToolRequestParams, CancelledNotification, CancelledNotificationMethod,
    CancelledNotificationParam, ClientCapabilities, ClientInfo, ClientNotification, ClientRequest,
    ClientResult, ErrorData as McpError, ListToolsResult, ProgressToken, ServerInfo,
    ServerNotification, ServerRequest, ServerResult, Tool,
};
use rmcp::service::{
    NotificationContext, Peer, PeerRequestOptions, RequestContext, RoleClient, RoleServer,
    RunningService, Service, ServiceError,
};
use std::collections::{BTreeSet, HashMap};
use std::future::Future;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use toolvet::{ApprovalClaim, CallRequest, Decision, Host, Outcome, PriorCall, Verdict};

/// How to reach the upstream server.
#[derive(Debug, Clone)]
pub enum Upstream {
    /// Run this command and speak stdio to it.
    Command(Vec<String>),
}

impl Upstream {
    fn describe(&self) -> String {
        match self {
            Upstream::Command(argv) => format!("`{}`", argv.join(" ")),
        }
    }
}

/// One client session's gate.
pub struct Gate {
    host: Host,
    config: McpConfig,
    upstream: Upstream,
    /// The session's run id (random).
    pub run_id: String,
    history: Mutex<Vec<PriorCall>>,
    tools: Mutex<HashMap<String, Tool>>,
    hidden: Mutex<BTreeSet<String>>,
    /// Upstream progress token → the client's.
    progress: Mutex<HashMap<ProgressToken, ProgressToken>>,
    client: OnceLock<Peer<RoleServer>>,
    server: tokio::sync::OnceCell<RunningService<RoleClient, UpstreamSide>>,
    pub(crate) codec: rmcp::model::RequestStateCodec,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).expect("the OS has randomness");
    hex::encode(buf)
}

impl Gate {
    /// A gate for one session in front of `upstream`.
    pub fn new(host: Host, config: McpConfig, upstream: Upstream) -> Arc<Gate> {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).expect("the OS has randomness");
        Arc::new(Gate {
            host,
            config,
            upstream,
            run_id: format!("mcp-{}", random_hex(12)),
            history: Mutex::default(),
            tools: Mutex::default(),
            hidden: Mutex::default(),
            progress: Mutex::default(),
            client: OnceLock::new(),
            server: tokio::sync::OnceCell::new(),
            codec: rmcp::model::RequestStateCodec::new(key.to_vec()),
        })
    }

    /// The host vetting this session's calls.
    pub fn host(&self) -> &Host {
        &self.host
    }

    pub(crate) fn config(&self) -> &McpConfig {
        &self.config
    }

    /// The upstream session, connected on first use with the client's own
    /// info and capabilities (so the server may ask it for sampling,
    /// elicitation and roots, through toolvet).
    async fn server(
        self: &Arc<Self>,
        info: impl FnOnce() -> ClientInfo,
    ) -> Result<&Peer<RoleClient>, McpError> {
        let running = self
            .server
            .get_or_try_init(|| async {
                let side = UpstreamSide {
                    gate: GateRef(OnceLock::new()),
                    info: info(),
                };
                side.gate.0.set(Arc::downgrade(self)).ok();
                connect(&self.upstream, side).await
            })
            .await?;
        Ok(running.peer())
    }

    async fn connected(self: &Arc<Self>) -> Result<&Peer<RoleClient>, McpError> {
        self.server(|| ClientInfo::new(ClientCapabilities::default(), implementation()))
            .await
    }

    fn upstream_error(&self, method: &str, e: ServiceError) -> McpError {
        match e {
            ServiceError::McpError(e) => e,
            ServiceError::Timeout { timeout } => McpError::internal_error(
                format!(
                    "toolvet mcp: the MCP server {} did not answer `{method}` within {} ms",
                    self.upstream.describe(),
                    timeout.as_millis()
                ),
                None,
            ),
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                McpError::internal_error(
                    format!(
                        "toolvet mcp: the MCP server {} closed the connection (it exited or crashed) before answering `{method}`",
                        self.upstream.describe()
                    ),
                    None,
                )
            }
            other => McpError::internal_error(
                format!(
                    "toolvet mcp: `{method}` to the MCP server {} failed: {other}",
                    self.upstream.describe()
                ),
                None,
            ),
        }
    }

    /// Send `request` upstream, mapping the client's progress token and
    /// cancelling upstream when the client cancels.
    async fn forward(
        self: &Arc<Self>,
        request: ClientRequest,
        context: &RequestContext<RoleServer>,
    ) -> Result<ServerResult, McpError> {
        let method = request.method().to_string();
        let server = self.connected().await?;
        let handle = server
            .send_cancellable_request(
                request,
                PeerRequestOptions::with_timeout(self.config.call_timeout()),
            )
            .await
            .map_err(|e| self.upstream_error(&method, e))?;
        let upstream_token = handle.progress_token.clone();
        if let Some(token) = context.meta.get_progress_token() {
            lock(&self.progress).insert(upstream_token.clone(), token);
        }
        let id = handle.id.clone();
        let outcome = tokio::select! {
            result = handle.await_response() => Some(result),
            () = context.ct.cancelled() => None,
        };
        lock(&self.progress).remove(&upstream_token);
        match outcome {
            Some(result) => result.map_err(|e| self.upstream_error(&method, e)),
            None => {
                let cancel = CancelledNotification {
                    params: CancelledNotificationParam {
                        request_id: Some(id),
                        reason: Some("the client cancelled the request".into()),
                        meta: None,
                    },
                    method: CancelledNotificationMethod,
                    extensions: Default::default(),
                };
                let _ = server.send_notification(cancel.into()).await;
                Err(McpError::internal_error("cancelled by the client", None))
            }
        }
    }

    /// The server's tools, fetched once when a call arrives before any
    /// `tools/list`.
    async fn tool(
        self: &Arc<Self>,
        name: &str,
        context: &RequestContext<RoleServer>,
    ) -> Option<Tool> {
        if lock(&self.tools).is_empty() {
            let list = ClientRequest::ListToolsRequest(Default::default());
            if let Ok(ServerResult::ListToolsResult(r)) = self.forward(list, context).await {
                self.remember(&r);
            }
        }
        lock(&self.tools).get(name).cloned()
    }

    fn remember(&self, list: &ListToolsResult) {
        let mut tools = lock(&self.tools);
        for t in &list.tools {
            tools.insert(t.name.to_string(), t.clone());
        }
    }

    fn history(&self) -> Vec<PriorCall> {
        lock(&self.history).clone()
    }

    fn record(&self, request: &CallRequest, decision: Decision) {
        let outcome = match decision {
            Decision::Allow => Outcome::Allowed,
            Decision::Deny => Outcome::Denied,
            Decision::Escalate => Outcome::Escalated,
        };
        let max = self.host.settings().max_history;
        let mut history = lock(&self.history);
        history.push(PriorCall {
            name: request.call.name.clone(),
            arguments: request.call.arguments.clone(),
            outcome,
        });
        if history.len() > max {
            let excess = history.len() - max;
            history.drain(..excess);
        }
    }

    /// Whether `tool` stays out of `tools/list` now.
    async fn hides(&self, tool: &Tool) -> bool {
        if !self.config.hide_denied {
            return false;
        }
        match vet::probe_for(tool, &self.run_id, &self.history()) {
            Ok(probe) => self.host.preview(&probe).await.decision == Decision::Deny,
            // A name the core refuses is never offered.
            Err(_) => true,
        }
    }

    async fn list_tools(
        self: &Arc<Self>,
        request: ClientRequest,
        context: &RequestContext<RoleServer>,
    ) -> Result<ServerResult, McpError> {
        let result = self.forward(request, context).await?;
        let ServerResult::ListToolsResult(mut list) = result else {
            return Ok(result);
        };
        self.remember(&list);
        let mut shown = Vec::with_capacity(list.tools.len());
        for tool in std::mem::take(&mut list.tools) {
            if self.hides(&tool).await {
                lock(&self.hidden).insert(tool.name.to_string());
            } else {
                lock(&self.hidden).remove(tool.name.as_ref());
                shown.push(tool);
            }
        }
        list.tools = shown;
        Ok(ServerResult::ListToolsResult(list))
    }

    /// After a call changed the history: tell the client when a hidden
    /// tool is now allowed.
    async fn refresh_exposure(&self) {
        let hidden: Vec<String> = lock(&self.hidden).iter().cloned().collect();
        let mut unlocked = false;
        for name in hidden {
            let Some(tool) = lock(&self.tools).get(&name).cloned() else {
                continue;
            };
            if !self.hides(&tool).await {
                lock(&self.hidden).remove(&name);
                unlocked = true;
            }
        }
        if unlocked && let Some(client) = self.client.get() {
            let _ = client.notify_tool_list_changed().await;
        }
    }

    async fn call_tool(
        self: &Arc<Self>,
        params: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ServerResult, McpError> {
        let tool = self.tool(&params.name, &context).await;
        let request = match vet::request_for(
            &params.name,
            params.arguments.as_ref(),
            tool.as_ref(),
            &self.run_id,
            &self.history(),
        ) {
            Ok(r) => r,
            Err(e) => {
                let text = format!("toolvet refused this call: {e}");
                return Ok(ServerResult::CallToolResult(vet::refusal(text, None)));
            }
        };
        let verdict = match crate::escalate::decide(self, &request, &params, &context).await {
            crate::escalate::Decided::Verdict(v) => v,
            crate::escalate::Decided::AskAgain(result) => {
                return Ok(ServerResult::InputRequiredResult(result));
            }
        };
        self.record(&request, verdict.decision);
        let result = match verdict.decision {
            Decision::Allow => {
                let mut forwarded = params.clone();
                forwarded.input_responses = None;
                forwarded.request_state = None;
                let call =
                    ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(forwarded));
                self.forward(call, &context).await
            }
            Decision::Deny => Ok(ServerResult::CallToolResult(vet::refusal(
                vet::deny_text(&verdict),
                Some(&verdict),
            ))),
            Decision::Escalate => Ok(ServerResult::CallToolResult(vet::refusal(
                vet::held_text(&verdict),
                Some(&verdict),
            ))),
        };
        self.refresh_exposure().await;
        result
    }

    /// Check `request`, and resume it at once when its approval request
    /// is already approved.
    pub(crate) async fn check(&self, request: &CallRequest) -> Verdict {
        let verdict = self.host.check(request).await;
        match verdict.approved_ticket() {
            Some(ticket) => self.check_with_ticket(request, ticket).await,
            None => verdict,
        }
    }

    pub(crate) async fn check_with_ticket(&self, request: &CallRequest, ticket: &str) -> Verdict {
        let mut resumed = request.clone();
        resumed.approval = Some(ApprovalClaim {
            ticket: ticket.to_string(),
        });
        self.host.check(&resumed).await
    }
}

fn implementation() -> rmcp::model::Implementation {
    rmcp::model::Implementation::new("toolvet", env!("CARGO_PKG_VERSION"))
}

async fn connect(
    upstream: &Upstream,
    side: UpstreamSide,
) -> Result<RunningService<RoleClient, UpstreamSide>, McpError> {
    use rmcp::ServiceExt as _;
    let failed = |e: &dyn std::fmt::Display| {
        McpError::internal_error(
            format!(
                "toolvet mcp: cannot connect to the MCP server {}: {e}",
                upstream.describe()
            ),
            None,
        )
    };
    match upstream {
        Upstream::Command(argv) => {
            let mut command = tokio::process::Command::new(&argv[0]);
            command.args(&argv[1..]);
            let transport =
                rmcp::transport::TokioChildProcess::new(command).map_err(|e| failed(&e))?;
            side.serve(transport).await.map_err(|e| failed(&e))
        }
    }
}

struct GateRef(OnceLock<Weak<Gate>>);

impl GateRef {
    fn get(&self) -> Option<Arc<Gate>> {
        self.0.get().and_then(Weak::upgrade)
    }
}

/// toolvet as the upstream server's client: the server's requests and
/// notifications go to the client.
pub struct UpstreamSide {
    gate: GateRef,
    info: ClientInfo,
}

impl Service<RoleClient> for UpstreamSide {
    fn handle_request(
        &self,
        request: ServerRequest,
        _context: RequestContext<RoleClient>,
    ) -> impl Future<Output = Result<ClientResult, McpError>> + Send + '_ {
        async move {
            let gate = self
                .gate
                .get()
                .ok_or_else(|| McpError::internal_error("the client session has ended", None))?;
            let client = gate
                .client
                .get()
                .ok_or_else(|| McpError::internal_error("no client connected yet", None))?;
            client.send_request(request).await.map_err(|e| match e {
                ServiceError::McpError(e) => e,
                other => McpError::internal_error(
                    format!("toolvet mcp: the client did not answer: {other}"),
                    None,
                ),
            })
        }
    }

    fn handle_notification(
        &self,
        mut notification: ServerNotification,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = Result<(), McpError>> + Send + '_ {
        async move {
            let Some(gate) = self.gate.get() else {
                return Ok(());
            };
            if let ServerNotification::ProgressNotification(p) = &mut notification {
                match lock(&gate.progress).get(&p.params.progress_token) {
                    Some(token) => p.params.progress_token = token.clone(),
                    // Progress for a request the client did not ask
                    // progress for: not the client's business.
                    None => return Ok(()),
                }
            }
            if let ServerNotification::ToolListChangedNotification(_) = &notification {
                lock(&gate.tools).clear();
            }
            if let Some(client) = gate.client.get() {
                let _ = client.send_notification(notification).await;
            }
            Ok(())
        }
    }

    fn get_info(&self) -> ClientInfo {
        self.info.clone()
    }
}

/// toolvet as the client's server.
#[derive(Clone)]
pub struct ClientSide {
    gate: Arc<Gate>,
}

impl ClientSide {
    /// The client side of `gate`.
    pub fn new(gate: Arc<Gate>) -> ClientSide {
        ClientSide { gate }
    }
}

impl Service<RoleServer> for ClientSide {
    fn handle_request(
        &self,
        request: ClientRequest,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ServerResult, McpError>> + Send + '_ {
        async move {
            let gate = &self.gate;
            let _ = gate.client.set(context.peer.clone());
            match request {
                ClientRequest::InitializeRequest(init) => {
                    let params = init.params.clone();
                    let server = gate.server(|| params).await?;
                    let mut info: ServerInfo =
                        server.peer_info().map(|i| (*i).clone()).ok_or_else(|| {
                            McpError::internal_error("the MCP server sent no info", None)
                        })?;
                    // toolvet may change the tool list (sequence rules).
                    if let Some(tools) = &mut info.capabilities.tools {
                        tools.list_changed = Some(true);
                    }
                    Ok(ServerResult::InitializeResult(info))
                }
                ClientRequest::CallToolRequest(call) => gate.call_tool(call.params, context).await,
                list @ ClientRequest::ListToolsRequest(_) => gate.list_tools(list, &context).await,
                other => gate.forward(other, &context).await,
            }
        }
    }

    fn handle_notification(
        &self,
        notification: ClientNotification,
        _context: NotificationContext<RoleServer>,
    ) -> impl Future<Output = Result<(), McpError>> + Send + '_ {
        async move {
            match notification {
                // rmcp ends the handshake with the server itself; a
                // cancellation is handled with its request (the ids differ).
                ClientNotification::InitializedNotification(_)
                | ClientNotification::CancelledNotification(_) => Ok(()),
                other => {
                    if let Ok(server) = self.gate.connected().await {
                        let _ = server.send_notification(other).await;
                    }
                    Ok(())
                }
            }
        }
    }

    fn get_info(&self) -> ServerInfo {
        match self.gate.server.get().and_then(|s| s.peer().peer_info()) {
            Some(info) => (*info).clone(),
            None => ServerInfo::default(),
        }
    }
}
