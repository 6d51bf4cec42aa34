//! `toolvet mcp`: the gating MCP proxy; the work is in the `toolvet-mcp`
//! crate.

use anyhow::Context as _;
use clap::Args;
use std::ffi::OsString;
use std::path::PathBuf;
use toolvet::{Host, Policy};
use toolvet_mcp::{McpConfig, Upstream};

/// `toolvet mcp --config P -- SERVER ARGS…`.
#[derive(Args)]
pub struct McpArgs {
    /// The policy file (its `[mcp]` table is optional).
    #[arg(long, short, default_value = "toolvet.toml")]
    config: PathBuf,
    /// The MCP server to run and gate, with its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "SERVER")]
    server: Vec<OsString>,
}

/// Load the policy, then proxy stdin/stdout to the server until the client
/// closes. A policy that does not load stops here, before the server
/// starts: nothing runs ungated.
pub async fn run(args: McpArgs) -> anyhow::Result<u8> {
    let policy = Policy::from_file(&args.config)?;
    let config = McpConfig::from_policy(&policy)?;
    let options = toolvet::LoadOptions {
        observer: crate::progress::observer(),
        ..toolvet_serve::load_options(toolvet_serve::ledger_provider())
    };
    let host = Host::load_with(policy, options).await?;
    let mut server = args.server.into_iter();
    let upstream = Upstream {
        program: server.next().context("no MCP server command after `--`")?,
        args: server.collect(),
    };
    toolvet_mcp::run(
        host,
        config,
        upstream,
        tokio::io::stdin(),
        tokio::io::stdout(),
    )
    .await?;
    Ok(0)
}
