//! `toolvet mcp`: a gating MCP proxy. The client speaks MCP to toolvet
//! over stdio, and toolvet runs the server and speaks to it the same way
//! ([`run`]); or, with the `http` feature, over Streamable HTTP in front of
//! a remote server (`http::serve_http`).
//! Every `tools/call` is vetted by the policy's checks before the server
//! sees it:
//!
//! - **allow**: the request goes on, rebuilt from what was vetted (its
//!   name, its arguments, and of its params only MCP's own `_meta`,
//!   `task` and the server's own round trip), and its result comes back;
//! - **deny**: the client gets a tool result with `isError: true` and the
//!   reason as text, so the model reads it and the session goes on (never a
//!   JSON-RPC error, which clients show as a protocol failure);
//! - **escalate**: when the client declared `elicitation`, the person is
//!   asked there (`elicitation/create`, a form with `approve` and an
//!   optional `message`; for an MCP 2026-07-28 client, inside an
//!   `input_required` result whose `requestState` is the request's ticket,
//!   answered by the same call made again); the answer is recorded in the approvals ledger as
//!   that person's review, and an approved call runs once. Otherwise the
//!   call is refused with the approval request's id (the model is never
//!   told how to approve it: a person does, outside the agent, with
//!   `toolvet approvals approve` or on the reviewer page); the same call
//!   made again then runs.
//!
//! The session is the checks' run: its calls are the history sequence
//! checks read. `tools/list` can leave out the tools the policy would deny
//! (`[mcp] hide_denied_tools`), and a call that changes that set sends
//! `notifications/tools/list_changed`. A server cannot relax a tool's
//! annotations after listing it: the strictest seen are kept, and a tool
//! whose definition changed carries `mcp.tool_definition_changed`; the
//! client is shown the annotations toolvet vets with, without the hints it
//! cannot vouch for ([`gate::believed`]). Every client message is read
//! strictly ([`jsonrpc::Message::parse_client`]: no duplicate or look-alike
//! keys, no look-alike methods, no inexact numbers) and passed on rebuilt
//! from what was read; so is every server message
//! ([`jsonrpc::Message::parse_server`]), a refused answer becoming a
//! JSON-RPC error for the request it may have answered. A server that exits
//! or stalls gets the client a JSON-RPC error on each request it left
//! unanswered. The history is bounded by count and by bytes, so no call
//! makes the session's later calls too large to vet.
//!
//! With the `ext-mcp` feature, `ext_mcp` is the same gate as
//! agentgateway's ExtMcp policy server (gRPC), for teams whose MCP
//! traffic already goes through agentgateway.
//!
//! The proxy reads JSON-RPC as raw JSON and only interprets the messages
//! it gates, with rmcp's MCP model types (tools, annotations, call
//! results, elicitation): a message it does not gate is never re-encoded
//! through a typed model that could drop fields it does not know.

mod config;
#[cfg(feature = "ext-mcp")]
pub mod ext_mcp;
pub mod gate;
#[cfg(feature = "http")]
pub mod http;
pub mod jsonrpc;
mod proxy;
mod results;
mod server_text;
#[cfg(feature = "http")]
pub mod sse;

pub use config::{ConfigError, McpConfig};
pub use proxy::{MAX_HISTORY, MAX_MESSAGE_BYTES, ProxyError, Upstream, run};
