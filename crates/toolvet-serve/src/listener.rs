//! Accepting connections on TCP or a Unix socket, serving each with
//! HTTP/1.1 (idle and header timeouts), and draining on shutdown: stop
//! accepting, let requests in flight finish (at most `shutdown_grace`).

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::net::{TcpListener, TcpSocket, UnixListener, UnixSocket};

/// Where to listen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listen {
    /// A TCP address (port 0: any free port).
    Tcp(SocketAddr),
    /// A Unix socket file (replaced if a stale socket is there).
    Unix(PathBuf),
}

/// A bound listener.
#[derive(Debug)]
pub(crate) enum Bound {
    /// TCP.
    Tcp(TcpListener),
    /// A Unix socket, with its path (removed at shutdown).
    Unix(UnixListener, PathBuf),
}

impl Bound {
    /// Bind `listen` with room for `backlog` connections not yet accepted
    /// (the kernel caps it at `net.core.somaxconn`); a Unix socket gets
    /// file mode `mode`.
    ///
    /// # Errors
    /// The address is taken, the path exists and is not a socket, or the
    /// mode cannot be set.
    pub(crate) fn bind(listen: &Listen, mode: u32, backlog: u32) -> std::io::Result<Bound> {
        match listen {
            Listen::Tcp(addr) => {
                let socket = if addr.is_ipv4() {
                    TcpSocket::new_v4()?
                } else {
                    TcpSocket::new_v6()?
                };
                // As `TcpListener::bind` does: a restart can take the port
                // while the last run's connections are in TIME_WAIT.
                socket.set_reuseaddr(true)?;
                socket.bind(*addr)?;
                Ok(Bound::Tcp(socket.listen(backlog)?))
            }
            Listen::Unix(path) => bind_unix(path, mode, backlog),
        }
    }

    /// What it is bound to, for logs (`127.0.0.1:8700`, `unix:/run/t.sock`).
    pub(crate) fn describe(&self) -> String {
        match self {
            Bound::Tcp(l) => l
                .local_addr()
                .map_or_else(|_| "tcp".into(), |a| a.to_string()),
            Bound::Unix(_, path) => format!("unix:{}", path.display()),
        }
    }

    /// The TCP address, if it is TCP.
    pub(crate) fn tcp_addr(&self) -> Option<SocketAddr> {
        match self {
            Bound::Tcp(l) => l.local_addr().ok(),
            Bound::Unix(..) => None,
        }
    }
}

fn bind_unix(path: &Path, mode: u32, backlog: u32) -> std::io::Result<Bound> {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if !meta.file_type().is_socket() {
            return Err(std::io::Error::other(format!(
                "{} exists and is not a socket; not replacing it",
                path.display()
            )));
        }
        std::fs::remove_file(path)?;
    }
    let listener = UnixSocket::new_stream()?;
    listener.bind(path)?;
    let listener = listener.listen(backlog)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
    Ok(Bound::Unix(listener, path.to_path_buf()))
}

/// Timeouts of each connection.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ConnectionLimits {
    /// Longest wait for a request's headers, also between requests on a
    /// kept-alive connection.
    pub idle: Duration,
    /// Longest wait for requests in flight at shutdown.
    pub grace: Duration,
}

/// Serve `router` on `bound` until `shutdown` resolves, then drain.
pub(crate) async fn serve(
    bound: Bound,
    router: Router,
    limits: ConnectionLimits,
    shutdown: impl std::future::Future<Output = ()>,
) {
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.idle)
        .keep_alive(true);
    tokio::pin!(shutdown);
    loop {
        let io: Box<dyn Io> = tokio::select! {
            accepted = accept(&bound) => match accepted {
                Ok(io) => io,
                Err(e) => {
                    // Out of file descriptors and the like: pause, go on.
                    tracing::warn!(target: "toolvet::serve", "accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let service = TowerToHyperService::new(router.clone());
        let connection = http.serve_connection(TokioIo::new(io), service);
        let watched = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(e) = watched.await {
                tracing::debug!(target: "toolvet::serve", "connection: {e}");
            }
        });
    }
    let path = match &bound {
        Bound::Unix(_, path) => Some(path.clone()),
        Bound::Tcp(_) => None,
    };
    drop(bound);
    tracing::info!(target: "toolvet::serve", "shutting down: draining requests in flight");
    tokio::select! {
        () = graceful.shutdown() => tracing::info!(target: "toolvet::serve", "drained"),
        () = tokio::time::sleep(limits.grace) => tracing::warn!(target: "toolvet::serve",
            "requests still in flight after {} s; closing", limits.grace.as_secs()),
    }
    if let Some(path) = path {
        let _ = std::fs::remove_file(path);
    }
}

trait Io: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + Unpin + 'static {}
impl<T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + Unpin + 'static> Io for T {}

async fn accept(bound: &Bound) -> std::io::Result<Box<dyn Io>> {
    match bound {
        Bound::Tcp(l) => {
            let (stream, _) = l.accept().await?;
            let _ = stream.set_nodelay(true);
            Ok(Box::new(stream))
        }
        Bound::Unix(l, _) => Ok(Box::new(l.accept().await?.0)),
    }
}
