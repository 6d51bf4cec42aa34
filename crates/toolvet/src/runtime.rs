//! Running toolvet's async work from anywhere: inside a Tokio runtime, on
//! another executor, or on a plain thread with no runtime at all (a
//! Python thread with the GIL released, a napi worker, a one-shot hook).
//!
//! Checks run on the caller's Tokio runtime when there is one (they yield
//! to it every epoch tick, so a slow check does not hold a worker). Without
//! one, the work runs on a small runtime of toolvet's own, started on first
//! use.

use std::future::Future;
use std::sync::OnceLock;

/// Worker threads of toolvet's own runtime. Checks called through
/// [`block_on`] from plain threads run on those threads, not on these; the
/// workers drive timers and tasks spawned for parallel checks.
const WORKERS: usize = 2;

fn own() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(WORKERS)
            .thread_name("toolvet-runtime")
            .enable_all()
            .build()
            .expect("starting toolvet's runtime")
    })
}

/// Run `future` to completion from synchronous code, on any thread.
///
/// On a plain thread the future runs on the calling thread, with
/// toolvet's own runtime providing timers (no thread hop). Called from a
/// thread that runs a Tokio runtime, where blocking would panic, the
/// future runs on toolvet's runtime while this thread waits; that blocks a
/// worker of the caller's runtime, so async code should `.await` instead.
///
/// ```
/// let answer = toolvet::block_on(async { 6 * 7 });
/// assert_eq!(answer, 42);
/// ```
pub fn block_on<F>(future: F) -> F::Output
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    if tokio::runtime::Handle::try_current().is_err() {
        return own().handle().block_on(future);
    }
    let (sender, receiver) = std::sync::mpsc::sync_channel(1);
    own().spawn(async move {
        let _ = sender.send(future.await);
    });
    receiver
        .recv()
        .expect("toolvet's runtime dropped a task it was given")
}

/// Await `future` on the caller's Tokio runtime when there is one, else on
/// toolvet's own (for callers on another executor). Never panics for want
/// of a runtime.
pub(crate) async fn on_runtime<F>(future: F) -> Result<F::Output, tokio::task::JoinError>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    if tokio::runtime::Handle::try_current().is_ok() {
        Ok(future.await)
    } else {
        own().spawn(future).await
    }
}

/// Whether the current thread can use Tokio's timers and spawn tasks.
pub(crate) fn in_tokio() -> bool {
    tokio::runtime::Handle::try_current().is_ok()
}
