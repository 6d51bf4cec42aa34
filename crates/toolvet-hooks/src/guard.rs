//! The guards around a hook process: exactly one answer is written, and it
//! is a block unless the call was vetted in time and without a panic.
//!
//! - A watchdog thread answers with the agent's block and exits the
//!   process when the deadline passes (a check that hangs, a ledger that
//!   does not answer, a slow disk).
//! - A panic while vetting is caught and answered with the block.
//! - Whichever answer comes first is the only one written.
//!
//! `TOOLVET_HOOK_FAULT=panic|hang` makes the hook panic or hang on purpose,
//! so that the tests can show both guards work in the real binary; it can
//! only turn an answer into a block.

use crate::agents::{Agent, Rendered};
use std::io::Write;
use std::panic::AssertUnwindSafe;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Whether the payload is a post-tool event: a failure is then answered
/// as one about the tool's output ([`Agent::render_result_failure`]).
static POST_TOOL: AtomicBool = AtomicBool::new(false);

/// Mark this process's payload as a post-tool event.
pub fn post_tool_event() {
    POST_TOOL.store(true, Ordering::SeqCst);
}

/// The agent's answer when toolvet failed (`why`), for the kind of event
/// the payload is.
pub fn failure(agent: Agent, why: &str) -> Rendered {
    if POST_TOOL.load(Ordering::SeqCst) {
        agent.render_result_failure(why)
    } else {
        agent.render_failure(why)
    }
}

/// The one answer of this process.
static ANSWERED: Mutex<bool> = Mutex::new(false);

/// Write `rendered` unless an answer was already written; returns whether
/// this call wrote it.
pub fn answer(rendered: &Rendered) -> bool {
    let mut answered = ANSWERED.lock().unwrap_or_else(|p| p.into_inner());
    if *answered {
        return false;
    }
    *answered = true;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(rendered.stdout.as_bytes());
    let _ = out.flush();
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(rendered.stderr.as_bytes());
    let _ = err.flush();
    true
}

/// Start the watchdog: after `deadline`, answer with `agent`'s block and
/// exit the process with its exit code.
pub fn watchdog(agent: Agent, deadline: Duration) {
    std::thread::spawn(move || {
        std::thread::sleep(deadline);
        let rendered = failure(
            agent,
            &format!(
                "vetting took longer than the hook's deadline of {} ms",
                deadline.as_millis()
            ),
        );
        if answer(&rendered) {
            std::process::exit(i32::from(rendered.exit_code));
        }
    });
}

/// Run `vet` (which renders the answer), catching a panic as a block, and
/// write the answer. Returns the exit code to end the process with.
pub async fn guarded<F>(agent: Agent, vet: F) -> u8
where
    F: std::future::Future<Output = Rendered>,
{
    let rendered = match std::env::var("TOOLVET_HOOK_FAULT").as_deref() {
        Ok("hang") => std::future::pending().await,
        _ => {
            let run = async {
                if std::env::var("TOOLVET_HOOK_FAULT").as_deref() == Ok("panic") {
                    panic!("TOOLVET_HOOK_FAULT=panic");
                }
                vet.await
            };
            match catch_panic(run).await {
                Ok(rendered) => rendered,
                Err(panic) => failure(agent, &format!("toolvet panicked: {panic}")),
            }
        }
    };
    answer(&rendered);
    rendered.exit_code
}

/// Poll `future` to completion, catching a panic with its message.
async fn catch_panic<F: std::future::Future>(future: F) -> Result<F::Output, String> {
    let mut future = std::pin::pin!(future);
    std::future::poll_fn(move |cx| {
        match std::panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(std::task::Poll::Ready(v)) => std::task::Poll::Ready(Ok(v)),
            Ok(std::task::Poll::Pending) => std::task::Poll::Pending,
            Err(panic) => std::task::Poll::Ready(Err(panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".into()))),
        }
    })
    .await
}
