//! What a plugin instance may touch: the per-store state.
//!
//! Plugins get no ambient authority: WASI with no preopened directories, no
//! environment, no arguments, no network (TCP, UDP and name lookup off) and
//! an empty stdin. Clocks and random stay (language runtimes need them).
//! stdout, stderr and the `host.log` import go to one bounded buffer per
//! store; whatever exceeds `max_log_bytes` is dropped and counted. Linear
//! memory is capped per store (all memories of the component together).
//!
//! Host calls cannot be interrupted by the epoch deadline (it is checked in
//! guest code only), so every host call a plugin can make does a bounded
//! amount of work, whatever its arguments (see [`bound_store`] and the
//! "Host calls" table in SECURITY.md): random bytes are capped per call
//! ([`MAX_RANDOM_BYTES`]), the data a plugin passes to the host in one call
//! (log messages, stream writes, poll lists) and the results the host
//! lifts are capped by wasmtime's hostcall fuel, handles by the resource
//! table and component-handle caps, and output is captured without
//! blocking. Blocking polls (`sleep`) are abandoned at the deadline by the
//! caller ([`crate::instance`]).

use crate::bindings::{v01, v02};
use bytes::Bytes;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use wasmtime::ResourceLimiter;
use wasmtime::component::ResourceTable;
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::p2::{OutputStream, Pollable, StreamResult};
use wasmtime_wasi::{WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};

/// Most WASI resources (streams, pollables, ...) a store may hold at once.
const MAX_RESOURCES: usize = 4096;

/// Most table elements one store may have (a pointer each).
const MAX_TABLE_ELEMENTS: usize = 1 << 20;

/// Most bytes one `wasi:random` call may ask for. wasmtime-wasi's default
/// (64 MiB) lets one call spend hundreds of milliseconds filling a buffer
/// where no deadline reaches; 64 KiB takes well under a millisecond and is
/// far more than language runtimes ask for (hash seeds, UUIDs).
pub(crate) const MAX_RANDOM_BYTES: u64 = 64 << 10;

/// Least hostcall fuel (bytes a plugin may hand the host in one call, and
/// bytes of one result the host lifts); raised to cover `max_result_bytes`.
const MIN_HOST_CALL_BYTES: usize = 1 << 20;

/// Room over `max_result_bytes` for the rest of a result (the rule id, the
/// discriminants and lengths).
const HOST_CALL_SLACK: usize = 64 << 10;

/// Most component-model handles (resources a plugin holds, borrows in a
/// call) live in one store at once; wasmtime's default is 100,000.
const MAX_COMPONENT_HANDLES: usize = 16_384;

/// The hostcall fuel for a store whose results may be `max_result_bytes`
/// long: what one guest-to-host call may carry and what one returned
/// result may be, in bytes.
pub(crate) fn host_call_bytes(max_result_bytes: usize) -> usize {
    max_result_bytes
        .max(MIN_HOST_CALL_BYTES)
        .saturating_add(HOST_CALL_SLACK)
}

/// Apply the per-store bounds that live on the store itself rather than in
/// its state: hostcall fuel ([`host_call_bytes`]) and the component-handle
/// cap. Data over the fuel is refused before the host copies it: a
/// guest-to-host call fails (`host-call`), a result is `oversized-result`.
pub(crate) fn bound_store(store: &mut wasmtime::Store<StoreState>, max_result_bytes: usize) {
    store.set_hostcall_fuel(host_call_bytes(max_result_bytes));
    store.set_max_component_handles(MAX_COMPONENT_HANDLES);
}

/// Per-store state of one check instance.
pub(crate) struct StoreState {
    wasi: WasiCtx,
    table: ResourceTable,
    pub(crate) limiter: MemoryCap,
    pub(crate) output: CapturedOutput,
    /// When the current call into the instance must stop (checked by the
    /// epoch callback at every tick).
    pub(crate) deadline: std::time::Instant,
}

impl StoreState {
    /// Fresh state: `memory_bytes` across all linear memories, `log_bytes`
    /// of captured output.
    pub(crate) fn new(memory_bytes: usize, log_bytes: usize) -> Self {
        let output = CapturedOutput::new(log_bytes);
        let mut wasi = WasiCtxBuilder::new();
        wasi.allow_tcp(false)
            .allow_udp(false)
            .allow_ip_name_lookup(false)
            .max_random_size(MAX_RANDOM_BYTES)
            .stdout(output.stream("stdout"))
            .stderr(output.stream("stderr"));
        Self {
            wasi: wasi.build(),
            table: {
                // Streams, pollables and other handles a plugin may hold at
                // once; far above what a check needs, far below the default
                // of a million.
                let mut table = ResourceTable::new();
                table.set_max_capacity(MAX_RESOURCES);
                table
            },
            limiter: MemoryCap::new(memory_bytes),
            output,
            deadline: std::time::Instant::now(),
        }
    }
}

impl StoreState {
    /// Whether no WASI resource (stream, pollable, ...) is alive.
    pub(crate) fn holds_no_resources(&self) -> bool {
        self.table.is_empty()
    }
}

impl WasiView for StoreState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

impl v01::toolvet::check::types::Host for StoreState {}
impl v02::toolvet::check::types::Host for StoreState {}

/// `toolvet:check/host`'s `log`, the same in both contracts (each has its
/// own `level` type): one line under the level's name.
macro_rules! host_log {
    ($contract:ident) => {
        impl $contract::toolvet::check::host::Host for StoreState {
            fn log(&mut self, level: $contract::toolvet::check::host::Level, message: String) {
                use $contract::toolvet::check::host::Level;
                let level = match level {
                    Level::Debug => "debug",
                    Level::Info => "info",
                    Level::Warn => "warn",
                    Level::Error => "error",
                };
                self.output.push(level, message.as_bytes());
            }
        }
    };
}
host_log!(v01);
host_log!(v02);

/// Caps the total linear memory of a store and remembers whether the cap
/// was hit, so a resulting trap is reported as out-of-memory.
pub(crate) struct MemoryCap {
    cap: usize,
    used: usize,
    last_growth: usize,
    /// Set when a growth was refused because of the cap.
    pub exceeded: Arc<AtomicBool>,
}

impl MemoryCap {
    fn new(cap: usize) -> Self {
        Self {
            cap,
            used: 0,
            last_growth: 0,
            exceeded: Arc::new(AtomicBool::new(false)),
        }
    }
}

impl ResourceLimiter for MemoryCap {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let growth = desired.saturating_sub(current);
        if self.used.saturating_add(growth) > self.cap {
            self.exceeded.store(true, Ordering::Relaxed);
            return Ok(false);
        }
        self.used += growth;
        self.last_growth = growth;
        Ok(true)
    }

    fn memory_grow_failed(&mut self, _error: wasmtime::Error) -> wasmtime::Result<()> {
        self.used -= self.last_growth;
        self.last_growth = 0;
        Ok(())
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= MAX_TABLE_ELEMENTS)
    }
}

/// Bounded capture of everything a plugin prints or logs during one call.
#[derive(Clone)]
pub(crate) struct CapturedOutput(Arc<Mutex<OutputBuffer>>);

struct OutputBuffer {
    lines: Vec<(&'static str, String)>,
    kept: usize,
    cap: usize,
    dropped: usize,
}

impl CapturedOutput {
    fn new(cap: usize) -> Self {
        Self(Arc::new(Mutex::new(OutputBuffer {
            lines: Vec::new(),
            kept: 0,
            cap,
            dropped: 0,
        })))
    }

    fn stream(&self, name: &'static str) -> CapturedStream {
        CapturedStream {
            name,
            output: self.clone(),
        }
    }

    /// Record `bytes` from `source` (`stdout`, `stderr` or a log level),
    /// keeping at most the configured number of bytes in total.
    fn push(&self, source: &'static str, bytes: &[u8]) {
        let mut buf = self.0.lock().expect("output lock");
        let room = buf.cap - buf.kept;
        let keep = bytes.len().min(room);
        buf.dropped += bytes.len() - keep;
        if keep > 0 {
            buf.kept += keep;
            let text = String::from_utf8_lossy(&bytes[..keep]).into_owned();
            buf.lines.push((source, text));
        }
    }

    /// Take what was captured so far: `(source, text)` pieces and the number
    /// of bytes dropped over the cap. Resets the buffer.
    pub(crate) fn drain(&self) -> (Vec<(&'static str, String)>, usize) {
        let mut buf = self.0.lock().expect("output lock");
        buf.kept = 0;
        let dropped = std::mem::take(&mut buf.dropped);
        (std::mem::take(&mut buf.lines), dropped)
    }
}

/// stdout or stderr of a plugin, feeding a [`CapturedOutput`]. Never blocks
/// and never fails: past the cap, output is dropped.
struct CapturedStream {
    name: &'static str,
    output: CapturedOutput,
}

impl IsTerminal for CapturedStream {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for CapturedStream {
    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(CapturedStream {
            name: self.name,
            output: self.output.clone(),
        })
    }

    fn async_stream(&self) -> Box<dyn tokio::io::AsyncWrite + Send + Sync> {
        Box::new(CapturedStream {
            name: self.name,
            output: self.output.clone(),
        })
    }
}

#[wasmtime_wasi::async_trait]
impl Pollable for CapturedStream {
    async fn ready(&mut self) {}
}

impl OutputStream for CapturedStream {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        self.output.push(self.name, &bytes);
        Ok(())
    }

    fn flush(&mut self) -> StreamResult<()> {
        Ok(())
    }

    fn check_write(&mut self) -> StreamResult<usize> {
        Ok(64 << 10)
    }
}

impl tokio::io::AsyncWrite for CapturedStream {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        self.output.push(self.name, buf);
        std::task::Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }
}
