//! Running a plugin's exports under a deadline and a memory cap, and
//! turning every way that can fail into a classified [`Failure`].

use crate::bindings::{Linked, Plugin, PluginInfo, WitCall, wit};
use crate::plugin_log::PluginLog;
use crate::sandbox::StoreState;
use crate::verdict::ErrorKind;
use std::future::Future;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use wasmtime::{Engine, Store, Trap};

/// Extra wall time granted past a deadline before the host abandons a call
/// that is blocked in a host function (e.g. a WASI sleep); code running in
/// the guest is stopped by the epoch deadline itself.
const ABANDON_GRACE: Duration = Duration::from_millis(5);

/// Limits of one instance.
#[derive(Debug, Clone, Copy)]
pub(crate) struct InstanceLimits {
    /// The time budget, reported in timeout messages.
    pub timeout: Duration,
    /// When the budget ends. `None`: each call into the instance gets the
    /// whole `timeout` (load time). `Some`: instantiate, configure and
    /// check share one budget (a vetted call).
    pub deadline: Option<Instant>,
    /// Cap on all linear memory, in bytes.
    pub memory_bytes: usize,
    /// Cap on captured output per call, in bytes.
    pub log_bytes: usize,
    /// `max_result_bytes`: sizes the hostcall fuel
    /// ([`crate::sandbox::host_call_bytes`]).
    pub result_bytes: usize,
}

/// A failed call into a plugin.
#[derive(Debug, Clone)]
pub(crate) struct Failure {
    pub kind: ErrorKind,
    pub message: String,
}

/// A live instance of a plugin with its own store.
pub(crate) struct LiveInstance {
    store: Store<StoreState>,
    instance: wasmtime::component::Instance,
    plugin: Plugin,
    log: PluginLog,
    /// The limits it was created with (for the snapshot's getters).
    limits: InstanceLimits,
}

impl LiveInstance {
    /// Instantiate `pre` in a fresh store (its exports found by the
    /// indices resolved at link time).
    pub(crate) async fn new(
        engine: &Engine,
        pre: &Linked<StoreState>,
        limits: InstanceLimits,
        log: PluginLog,
    ) -> Result<Self, Failure> {
        let mut store = Store::new(
            engine,
            StoreState::new(limits.memory_bytes, limits.log_bytes),
        );
        store.limiter(|s| &mut s.limiter);
        crate::sandbox::bound_store(&mut store, limits.result_bytes);
        // At every epoch tick the guest is still running: past the
        // deadline it stops; before it, it yields to the executor, so a
        // slow check never holds a runtime worker for its whole deadline.
        store.epoch_deadline_callback(|store| {
            if Instant::now() >= store.data().deadline {
                Ok(wasmtime::UpdateDeadline::Interrupt)
            } else {
                Ok(wasmtime::UpdateDeadline::YieldCustom(
                    1,
                    Box::pin(tokio::task::yield_now()),
                ))
            }
        });
        let check_name = log.check();
        let result = bounded(&mut store, limits, check_name, |store| {
            Box::pin(pre.instantiate_async(store))
        })
        .await;
        match result {
            Ok((instance, plugin)) => Ok(Self {
                store,
                instance,
                plugin,
                log,
                limits,
            }),
            Err(f) => {
                let mut f = finish(&store, &log, Err::<(), _>(f)).unwrap_err();
                if f.kind == ErrorKind::MalformedResult {
                    // Not a result: the instance could not be created.
                    f.kind = ErrorKind::Trap;
                    f.message = format!(
                        "check `{check_name}` could not be instantiated: {}",
                        f.message
                    );
                }
                Err(f)
            }
        }
    }

    /// Whether the instance holds no host resources (streams, pollables):
    /// what a snapshot of it needs.
    pub(crate) fn holds_no_resources(&self) -> bool {
        self.store.data().holds_no_resources()
    }

    /// Call the export `name` that takes nothing and returns `R` (the
    /// getters of an instrumented component, for a snapshot), under the
    /// instance's own time budget.
    pub(crate) async fn call_getter<R>(&mut self, name: &str) -> wasmtime::Result<R>
    where
        R: wasmtime::component::ComponentNamedList
            + wasmtime::component::Lift
            + Send
            + Sync
            + 'static,
    {
        let func = self
            .instance
            .get_typed_func::<(), R>(&mut self.store, name)?;
        let limits = InstanceLimits {
            deadline: None,
            ..self.limits
        };
        // A getter returns a whole linear memory (up to the memory cap),
        // which the host lifts: the hostcall fuel sized for a check's
        // results would refuse it. The instrumented instance runs only the
        // host's own snapshot code, and is dropped after.
        self.store
            .set_hostcall_fuel(crate::sandbox::host_call_bytes(self.limits.memory_bytes));
        let got = bounded(&mut self.store, limits, self.log.check(), |store| {
            Box::pin(async move { func.call_async(&mut *store, ()).await })
        })
        .await
        .map_err(|f| wasmtime::Error::msg(f.message));
        self.store
            .set_hostcall_fuel(crate::sandbox::host_call_bytes(self.limits.result_bytes));
        got
    }

    /// Call `describe`.
    pub(crate) async fn describe(&mut self, limits: InstanceLimits) -> Result<PluginInfo, Failure> {
        let plugin = &self.plugin;
        let r = bounded(&mut self.store, limits, self.log.check(), |store| {
            Box::pin(async move { plugin.describe(store).await })
        })
        .await;
        finish(&self.store, &self.log, r)
    }

    /// Call `configure(settings)`; `Ok(Err(message))` when the plugin
    /// rejects the settings.
    pub(crate) async fn configure(
        &mut self,
        settings: &str,
        limits: InstanceLimits,
    ) -> Result<Result<(), String>, Failure> {
        let plugin = &self.plugin;
        let r = bounded(&mut self.store, limits, self.log.check(), |store| {
            Box::pin(async move { plugin.configure(store, settings).await })
        })
        .await;
        finish(&self.store, &self.log, r)
    }

    /// Call `check`.
    pub(crate) async fn check(
        &mut self,
        call: &WitCall,
        limits: InstanceLimits,
    ) -> Result<wit::Decision, Failure> {
        let plugin = &self.plugin;
        let r = bounded(&mut self.store, limits, self.log.check(), |store| {
            Box::pin(async move { plugin.check(store, call).await })
        })
        .await;
        finish(&self.store, &self.log, r)
    }

    /// Call `check-result`; `None` when the plugin does not vet results.
    pub(crate) async fn check_result(
        &mut self,
        call: &WitCall,
        result: &wit::ToolResult,
        limits: InstanceLimits,
    ) -> Option<Result<wit::ResultDecision, Failure>> {
        let plugin = &self.plugin;
        if !matches!(
            plugin,
            Plugin::V02 {
                result: Some(_),
                ..
            }
        ) {
            return None;
        }
        let r = bounded(&mut self.store, limits, self.log.check(), |store| {
            Box::pin(async move {
                plugin
                    .check_result(store, call, result)
                    .await
                    .unwrap_or_else(|| Err(wasmtime::Error::msg("no `result-check` export")))
            })
        })
        .await;
        Some(finish(&self.store, &self.log, r))
    }
}

type BoxFuture<'a, T> = std::pin::Pin<Box<dyn Future<Output = wasmtime::Result<T>> + Send + 'a>>;

/// Run `f` against `store` with the epoch deadline set to `limits.timeout`,
/// abandoning it shortly after the deadline if it is blocked in the host.
async fn bounded<'s, T>(
    store: &'s mut Store<StoreState>,
    limits: InstanceLimits,
    check_name: &str,
    f: impl FnOnce(&'s mut Store<StoreState>) -> BoxFuture<'s, T>,
) -> Result<T, Failure> {
    let now = Instant::now();
    let remaining = match limits.deadline {
        Some(deadline) => deadline.saturating_duration_since(now),
        None => limits.timeout,
    };
    if remaining.is_zero() {
        return Err(timed_out(check_name, limits));
    }
    // The epoch callback compares the clock with the deadline at every
    // tick (and yields to the executor in between).
    store.data_mut().deadline = now + remaining;
    store.set_epoch_deadline(1);
    let memory_exceeded = store.data().limiter.exceeded.clone();
    memory_exceeded.store(false, Ordering::Relaxed);
    let abandon_at = now + remaining + ABANDON_GRACE;
    let outcome = tokio::time::timeout_at(abandon_at.into(), f(store)).await;
    let exceeded = memory_exceeded.load(Ordering::Relaxed);
    match outcome {
        Ok(Ok(value)) => Ok(value),
        Err(_elapsed) => Err(timed_out(check_name, limits)),
        Ok(Err(e)) => Err(classify(&e, exceeded, check_name, limits)),
    }
}

fn timed_out(check_name: &str, limits: InstanceLimits) -> Failure {
    Failure {
        kind: ErrorKind::Timeout,
        message: format!(
            "check `{check_name}` timed out after {} ms",
            limits.timeout.as_millis()
        ),
    }
}

fn classify(
    e: &wasmtime::Error,
    memory_exceeded: bool,
    check_name: &str,
    limits: InstanceLimits,
) -> Failure {
    if e.downcast_ref::<Trap>() == Some(&Trap::Interrupt) {
        return timed_out(check_name, limits);
    }
    if memory_exceeded {
        return Failure {
            kind: ErrorKind::OutOfMemory,
            message: format!(
                "check `{check_name}` exceeded its memory cap of {} MiB",
                limits.memory_bytes >> 20
            ),
        };
    }
    if let Some(trap) = e.downcast_ref::<Trap>() {
        return Failure {
            kind: ErrorKind::Trap,
            message: format!("check `{check_name}` trapped: {trap}"),
        };
    }
    if let Some(exit) = e.downcast_ref::<wasmtime_wasi::I32Exit>() {
        return Failure {
            kind: ErrorKind::MalformedResult,
            message: format!(
                "check `{check_name}` exited with status {} instead of returning",
                exit.0
            ),
        };
    }
    // The error's own cause, without wasmtime's backtrace (whose function
    // names the plugin chose).
    let cause = e.root_cause().to_string();
    let over_fuel = cause.contains(HOSTCALL_FUEL_EXHAUSTED);
    // An error raised while guest code was on the stack came from a host
    // call the plugin made (wasmtime attaches the guest's backtrace to
    // it); one raised after the guest returned is about its result.
    let in_host_call = e.downcast_ref::<wasmtime::WasmBacktrace>().is_some();
    let fuel = crate::sandbox::host_call_bytes(limits.result_bytes);
    match (in_host_call, over_fuel) {
        (true, true) => Failure {
            kind: ErrorKind::HostCall,
            message: format!(
                "check `{check_name}` passed the host more than {fuel} bytes in one call"
            ),
        },
        (true, false) => Failure {
            kind: ErrorKind::HostCall,
            message: format!("check `{check_name}` made a host call the host refused: {cause}"),
        },
        (false, true) => Failure {
            kind: ErrorKind::OversizedResult,
            message: format!(
                "check `{check_name}` returned an oversized result: over the host's \
                 {fuel}-byte limit, so it was not read"
            ),
        },
        (false, false) => Failure {
            kind: ErrorKind::MalformedResult,
            message: format!("check `{check_name}` returned a malformed result: {e:#}"),
        },
    }
}

/// What wasmtime's error says when hostcall fuel runs out (its type is
/// private): "too much data is being copied between the host and the
/// guest: fuel allocated for hostcalls has been exhausted". Pinned by the
/// tests of the `log-huge`, `write-huge` and `huge-reason` fixtures.
const HOSTCALL_FUEL_EXHAUSTED: &str = "fuel allocated for hostcalls has been exhausted";

/// Forward what the call printed or logged, and give a crash the cause the
/// plugin reported for it ([`crate::cause`]): a trap, an out-of-memory
/// abort or an `exit` says only what the instruction was, the plugin's
/// panic message or exception says why.
fn finish<T>(
    store: &Store<StoreState>,
    log: &PluginLog,
    result: Result<T, Failure>,
) -> Result<T, Failure> {
    let (pieces, dropped) = store.data().output.drain();
    let result = result.map_err(|mut f| {
        let crashed = matches!(
            f.kind,
            ErrorKind::Trap | ErrorKind::OutOfMemory | ErrorKind::MalformedResult
        );
        if crashed && let Some(cause) = crate::cause::find(&pieces) {
            f.message = format!("{}; the plugin reported: {cause}", f.message);
        }
        f
    });
    log.forward(pieces, dropped);
    result
}
