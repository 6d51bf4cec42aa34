//! `toolvet serve`: the HTTP sidecar (the `toolvet-serve` crate; guide in
//! docs/serve.md).

use clap::Args;
use std::net::SocketAddr;
use std::path::PathBuf;
use toolvet_serve::{Listen, ServeOptions, Server};

/// Arguments of `toolvet serve`.
#[derive(Args)]
pub struct ServeArgs {
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
}

/// Serve until SIGTERM or SIGINT, then drain.
///
/// # Errors
/// The policy, its `[serve]` table, its tokens or its ledger cannot be
/// used, or the address cannot be bound.
pub async fn run(args: ServeArgs) -> anyhow::Result<u8> {
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
    server.run_until_signalled().await?;
    eprintln!("toolvet serve: stopped");
    Ok(0)
}
