//! toolvet in front of MCP servers: `toolvet mcp --config P -- CMD ARGS…`
//! runs the server and speaks stdio to both sides; every `tools/call` is
//! vetted with the tool's declared annotations, description and schema and
//! the session's history; `tools/list` leaves out what the policy denies
//! for the session; escalations ask the person through the client
//! (elicitation, or `input_required` on 2026-07-28) or become denies
//! naming the approval request. Everything else passes through.
//!
//! Built on rmcp (the official Rust MCP SDK) and the core's public API
//! only.

pub mod config;
pub mod escalate;
pub mod proxy;
pub mod vet;

pub use config::McpConfig;
pub use proxy::{ClientSide, Gate, Upstream};

use rmcp::ServiceExt as _;
use toolvet::Host;

/// Serve one client on this process's stdin/stdout in front of the server
/// `command` (run as a child process), until the client disconnects.
///
/// # Errors
/// The client's handshake failed, or the session ended with an error.
pub async fn serve_stdio(
    host: Host,
    config: McpConfig,
    command: Vec<String>,
) -> anyhow::Result<()> {
    anyhow::ensure!(!command.is_empty(), "name the MCP server to run after `--`");
    let gate = Gate::new(host, config, Upstream::Command(command));
    let running = ClientSide::new(gate)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| anyhow::anyhow!("the MCP client's handshake failed: {e}"))?;
    running.waiting().await?;
    Ok(())
}
