//! `toolvet mcp --config P -- CMD ARGS…`: the gating MCP proxy on stdio;
//! the work is in the `toolvet-mcp` crate.

use clap::Args;
use std::path::PathBuf;
use toolvet::{Host, Policy};

/// `toolvet mcp …`.
#[derive(Args)]
pub struct McpArgs {
    /// The policy file (its `[mcp]` table tunes the proxy).
    #[arg(long, short, default_value = "toolvet.toml")]
    config: PathBuf,
    /// The MCP server to run, after `--`.
    #[arg(last = true, required = true)]
    command: Vec<String>,
}

/// Serve the client on stdin/stdout until it disconnects.
pub async fn run(args: McpArgs) -> anyhow::Result<u8> {
    let policy = Policy::from_file(&args.config)?;
    let config = toolvet_mcp::McpConfig::from_policy(&policy)?;
    let host = Host::load(policy).await?;
    toolvet_mcp::serve_stdio(host, config, args.command).await?;
    Ok(0)
}
