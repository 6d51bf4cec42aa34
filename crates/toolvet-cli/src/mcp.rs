//! `toolvet mcp`: the gating MCP proxy; the work is in the `toolvet-mcp`
//! crate.

use anyhow::Context as _;
use clap::Args;
use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::PathBuf;
use toolvet::Host;
use toolvet_mcp::http::{ENDPOINT, HttpUpstream, Url};
use toolvet_mcp::{McpConfig, Upstream};

/// `toolvet mcp --config P -- SERVER ARGS…` (stdio) or `toolvet mcp
/// --config P --upstream URL --listen ADDR` (Streamable HTTP).
#[derive(Args)]
pub(crate) struct McpArgs {
    /// The policy file (its `[mcp]` table is optional).
    #[arg(long, short, default_value = "toolvet.toml")]
    config: PathBuf,
    /// Streamable HTTP mode: the remote MCP server's endpoint URL
    /// (`http://host:port/mcp`) to gate. Needs `--listen`.
    #[arg(long, requires = "listen", conflicts_with = "server")]
    upstream: Option<Url>,
    /// Streamable HTTP mode: where to serve the gated endpoint (`/mcp`),
    /// e.g. `127.0.0.1:8710` (port 0 picks one; the address is printed on
    /// stderr).
    #[arg(long, requires = "upstream")]
    listen: Option<SocketAddr>,
    /// Stdio mode: the MCP server to run and gate, with its arguments,
    /// after `--`.
    #[arg(
        last = true,
        required_unless_present = "upstream",
        value_name = "SERVER"
    )]
    server: Vec<OsString>,
}

/// Load the policy, then proxy: stdin/stdout to the server until the
/// client closes, or the HTTP endpoint until SIGTERM/SIGINT. A policy that
/// does not load stops here, before the server starts or the endpoint
/// opens: nothing runs ungated.
pub(crate) async fn run(args: McpArgs) -> anyhow::Result<u8> {
    let policy = toolvet_preset::policy_from_file(&args.config)?;
    let config = McpConfig::from_policy(&policy)?;
    let options = toolvet::LoadOptions {
        observer: crate::progress::observer(),
        ..toolvet_preset::options()
    };
    let host = Host::load_with(policy, options).await?;
    if let (Some(url), Some(listen)) = (args.upstream, args.listen) {
        return serve_http(host, config, url, listen).await;
    }
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

async fn serve_http(
    host: Host,
    config: McpConfig,
    url: Url,
    listen: SocketAddr,
) -> anyhow::Result<u8> {
    use tokio::signal::unix::{SignalKind, signal};
    if !matches!(url.scheme(), "http" | "https") {
        anyhow::bail!("--upstream {url}: an MCP endpoint is an http:// or https:// URL");
    }
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .with_context(|| format!("cannot listen on {listen}"))?;
    let bound = listener.local_addr()?;
    let mut term = signal(SignalKind::terminate()).context("listening for SIGTERM")?;
    let mut int = signal(SignalKind::interrupt()).context("listening for SIGINT")?;
    eprintln!("toolvet mcp: gating {url} at http://{bound}{ENDPOINT}");
    let stop = async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
    };
    toolvet_mcp::http::serve_http(host, config, HttpUpstream { url }, listener, stop).await?;
    Ok(0)
}
