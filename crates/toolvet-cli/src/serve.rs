//! `toolvet serve`: the HTTP sidecar (the `toolvet-serve` crate; guide in
//! docs/serve.md).

use anyhow::Context as _;
use clap::Args;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use toolvet_mcp::McpConfig;
use toolvet_mcp::ext_mcp::{ExtMcpService, TransportError, serve_ext_mcp};
use toolvet_serve::{Listen, ServeOptions, Server};

/// Arguments of `toolvet serve`.
#[derive(Args)]
pub(crate) struct ServeArgs {
    /// The policy file (its `[serve]` table holds the server's settings).
    #[arg(long, short, default_value = "toolvet.toml")]
    config: PathBuf,
    /// Listen on this TCP address (default: `[serve] listen`, else
    /// 127.0.0.1:8700).
    #[arg(long, conflicts_with = "unix")]
    listen: Option<SocketAddr>,
    /// Listen on this Unix socket instead (mode from `[serve]
    /// unix_socket_mode`, default 0660).
    #[arg(long)]
    unix: Option<PathBuf>,
    /// Also serve agentgateway's ExtMcp policy callout (gRPC, cleartext
    /// HTTP/2) on this TCP address, on the same host and ledger; callers
    /// present a gateway token (`authorization: Bearer …`; `[serve]
    /// gateway_tokens_sha256`, `gateway_token_file` or
    /// `$TOOLVET_GATEWAY_TOKEN`). See docs/mcp.md.
    #[arg(long, value_name = "ADDR")]
    ext_mcp: Option<SocketAddr>,
}

/// Serve until SIGTERM or SIGINT, then drain.
///
/// # Errors
/// The policy, its `[serve]` table, its tokens or its ledger cannot be
/// used, or the address cannot be bound.
pub(crate) async fn run(args: ServeArgs) -> anyhow::Result<u8> {
    let listen = match (args.listen, args.unix) {
        (Some(addr), _) => Some(Listen::Tcp(addr)),
        (None, Some(path)) => Some(Listen::Unix(path)),
        (None, None) => None,
    };
    let server = Server::bind_observed(
        ServeOptions {
            config: args.config.clone(),
            listen,
        },
        crate::progress::observer(),
    )
    .await?;
    match server.local_addr() {
        Some(addr) => eprintln!(
            "toolvet serve: listening on http://{addr} (policy {})",
            args.config.display()
        ),
        None => eprintln!(
            "toolvet serve: listening on a Unix socket (policy {})",
            args.config.display()
        ),
    }
    let ext_mcp = match args.ext_mcp {
        Some(addr) => Some(ext_mcp(&server, &args.config, addr).await?),
        None => None,
    };
    server.run_until_signalled().await?;
    if let Some(ext_mcp) = ext_mcp {
        ext_mcp.await??;
    }
    eprintln!("toolvet serve: stopped");
    Ok(0)
}

/// Bind `addr` and serve ExtMcp beside `server` until it stops.
async fn ext_mcp(
    server: &Server,
    config: &Path,
    addr: SocketAddr,
) -> anyhow::Result<tokio::task::JoinHandle<Result<(), TransportError>>> {
    let policy = toolvet_preset::policy_from_file(config)?;
    let mcp = McpConfig::from_policy(&policy)?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("--ext-mcp: cannot listen on {addr}"))?;
    eprintln!(
        "toolvet serve: ExtMcp (agentgateway) on grpc://{}",
        listener.local_addr()?
    );
    let handle = server.handle();
    if !handle.has_gateway_tokens() {
        anyhow::bail!(
            "--ext-mcp needs a gateway token: set [serve] gateway_tokens_sha256 or gateway_token_file, or ${}",
            toolvet_serve::auth::GATEWAY_TOKEN_ENV
        );
    }
    if !addr.ip().is_loopback() {
        tracing::warn!(target: "toolvet::serve",
            "--ext-mcp {addr}: gRPC without TLS, so the gateway token crosses the network in clear; keep it on loopback or a private network");
    }
    let admits = handle.clone();
    let lists = handle.clone();
    let service = ExtMcpService::new(
        handle.host().clone(),
        mcp,
        config.display().to_string(),
        Arc::new(move |authorization| admits.admits_gateway(authorization)),
    )
    // Withheld results are listed on the reviewer page.
    .on_withheld(Arc::new(move |request, verdict| {
        lists.record_withheld("ext-mcp", request, verdict);
    }));
    Ok(tokio::spawn(async move {
        let served = serve_ext_mcp(service, listener, async move { handle.stopping().await }).await;
        if let Err(e) = &served {
            // Said now, not only at shutdown: the gateway's calls fail from here on.
            tracing::error!(target: "toolvet::serve", "ExtMcp stopped serving: {e}");
        }
        served
    }))
}
