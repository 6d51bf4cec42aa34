//! The process-wide WebAssembly engine and its epoch ticker.
//!
//! One [`wasmtime::Engine`] serves every check: component model, Cranelift,
//! the pooling instance allocator (instantiation in microseconds), epoch
//! interruption for deadlines, and no component-model concurrency support
//! (checks are plain synchronous exports; async is only used so that a host
//! call blocked in a WASI poll can be abandoned at the deadline).

use sha2::{Digest, Sha256};
use std::hash::{Hash, Hasher};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;
use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

/// How often the epoch ticker thread advances the engine's epoch. Deadlines
/// are expressed in ticks, so they are accurate to about one tick.
pub(crate) const EPOCH_TICK: Duration = Duration::from_millis(1);

/// Largest linear memory any check may use, in bytes: the ceiling of
/// `memory_mb` ([`crate::config::MAX_MEMORY_MB`]). Each check's own cap is
/// enforced per store by its resource limiter.
const POOL_MAX_MEMORY_BYTES: usize = 4 << 30;

/// Dirty linear-memory bytes per pool slot reset in place (and kept
/// resident) when an instance is freed, instead of being handed back to the
/// kernel and faulted in again by the next instance.
const KEEP_RESIDENT_BYTES: usize = 4 << 20;

/// Stack available to guest code, in bytes. Deep recursion past it traps
/// with a stack overflow.
const MAX_WASM_STACK: usize = 1 << 20;

/// Component instances the shared engine's pool holds at once (running
/// checks, instances configured at load, warm reused ones), unless
/// [`size_instance_pool`] chose fewer. `[host]`'s limits are validated
/// against it (`max_concurrent_checks` at most 512, `reuse_pool_size` at
/// most 64).
pub const MAX_INSTANCES: u32 = 1000;

/// The pool size the shared engine is (or will be) created with.
static POOL_INSTANCES: AtomicU32 = AtomicU32::new(MAX_INSTANCES);

static ENGINE: OnceLock<Result<Engine, String>> = OnceLock::new();

/// Size the process's instance pool to `instances` component instances at
/// once, from [`MAX_INSTANCES`]. Each instance slot has its own fiber stack,
/// whose guard page costs a system call when the engine starts (about
/// 3.5 ms of a one-shot `toolvet check`'s CPU for the default pool), so a
/// process that vets a few calls and exits starts faster with a pool sized
/// to its policy ([`instances_for_one_call`]). An instance that does not
/// fit fails its check (the check's `on_error`), never silently.
///
/// # Errors
/// When `instances` is 0 or over [`MAX_INSTANCES`], or the engine exists
/// already (the first policy loaded in the process created it): size the
/// pool before loading.
pub fn size_instance_pool(instances: u32) -> Result<(), PoolSizeError> {
    if !(1..=MAX_INSTANCES).contains(&instances) {
        return Err(PoolSizeError::OutOfRange { instances });
    }
    if ENGINE.get().is_some() {
        return Err(PoolSizeError::EngineRunning);
    }
    POOL_INSTANCES.store(instances, Ordering::Relaxed);
    Ok(())
}

/// Why [`size_instance_pool`] refused a size.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PoolSizeError {
    /// `instances` is 0 or over [`MAX_INSTANCES`].
    #[error(
        "an instance pool of {instances} is out of range (1..={})",
        MAX_INSTANCES
    )]
    OutOfRange {
        /// The size asked for.
        instances: u32,
    },
    /// The engine was created already, with its pool.
    #[error("the engine is running already: size its pool before the first load")]
    EngineRunning,
}

/// The pool a process needs to load `policy` and vet calls one at a time:
/// per check, the instance a call runs in, the one configured at load and
/// a warm reused one, twice over, and room for the load's own work; at
/// least 32, at most [`MAX_INSTANCES`].
pub fn instances_for_one_call(policy: &crate::Policy) -> u32 {
    let checks = u32::try_from(policy.checks.len()).unwrap_or(u32::MAX);
    checks
        .saturating_mul(6)
        .saturating_add(16)
        .clamp(32, MAX_INSTANCES)
}

/// The shared engine, created on first use with the ticker thread started.
///
/// # Errors
/// The message of wasmtime's configuration error (e.g. the pooling
/// allocator could not reserve its address space).
pub(crate) fn shared_engine() -> Result<&'static Engine, String> {
    ENGINE
        .get_or_init(|| {
            let engine = Engine::new(&engine_config()).map_err(|e| format!("{e:#}"))?;
            start_epoch_ticker(&engine);
            Ok(engine)
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// The configuration of the engine that pre-initialises components
/// ([`crate::snapshot`]): the shared engine's, without optimisation (the
/// instrumented component runs once) and with instances allocated on
/// demand.
pub(crate) fn init_config() -> Config {
    common_config(wasmtime::OptLevel::None)
}

/// What both engines share: the component model without its async
/// support, epoch deadlines, the stack cap, parallel compilation.
fn common_config(opt_level: wasmtime::OptLevel) -> Config {
    let mut config = Config::new();
    config
        .wasm_component_model(true)
        .concurrency_support(false)
        .epoch_interruption(true)
        .max_wasm_stack(MAX_WASM_STACK)
        .cranelift_opt_level(opt_level)
        .parallel_compilation(true);
    config
}

fn engine_config() -> Config {
    let mut pool = PoolingAllocationConfig::new();
    // Every live store keeps the fiber stack of its last call, so stacks
    // and component instances go together.
    let instances = POOL_INSTANCES.load(Ordering::Relaxed);
    pool.total_component_instances(instances)
        .total_stacks(instances)
        .max_memory_size(POOL_MAX_MEMORY_BYTES)
        // Language runtimes (CPython, SpiderMonkey) have big function tables
        // and several core instances per component.
        .table_elements(100_000)
        .max_tables_per_module(4)
        .max_memories_per_module(2)
        .max_component_instance_size(4 << 20)
        .max_core_instance_size(4 << 20)
        // Reset only the pages an instance dirtied (PAGEMAP_SCAN, Linux
        // 6.7+; ignored elsewhere), by copying them back from the image,
        // and keep them resident for the next instance in the slot.
        .pagemap_scan(wasmtime::Enabled::Auto)
        .linear_memory_keep_resident(KEEP_RESIDENT_BYTES)
        .table_keep_resident(64 << 10);
    let mut config = common_config(wasmtime::OptLevel::Speed);
    config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    config
}

/// Advance `engine`'s epoch once per [`EPOCH_TICK`] from a dedicated OS
/// thread (a tokio task would stall with its runtime). Deadlines are
/// instants checked by each store's epoch callback at every tick, so a
/// ticker that wakes late delays a deadline by as much, and never ends one
/// early. The thread ends when the engine is dropped.
pub(crate) fn start_epoch_ticker(engine: &Engine) {
    let weak = engine.weak();
    std::thread::Builder::new()
        .name("toolvet-epoch".into())
        .spawn(move || {
            while let Some(engine) = weak.upgrade() {
                engine.increment_epoch();
                drop(engine);
                std::thread::sleep(EPOCH_TICK);
            }
        })
        .expect("spawning the epoch ticker thread");
}

/// Hex sha256 of everything that decides whether a compiled artifact fits
/// this engine (wasmtime version, target, compiler settings): part of the
/// compiled-artifact cache key.
pub(crate) fn engine_fingerprint(engine: &Engine) -> String {
    struct Sha(Sha256);
    impl Hasher for Sha {
        fn finish(&self) -> u64 {
            0
        }
        fn write(&mut self, bytes: &[u8]) {
            self.0.update(bytes);
        }
    }
    let mut hasher = Sha(Sha256::new());
    engine.precompile_compatibility_hash().hash(&mut hasher);
    hex::encode(hasher.0.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pool_is_sized_before_the_engine_starts_and_within_range() {
        for bad in [0, MAX_INSTANCES + 1] {
            let e = size_instance_pool(bad).unwrap_err().to_string();
            assert!(e.contains("out of range (1..=1000)"), "{e}");
        }
        shared_engine().expect("the engine starts");
        let e = size_instance_pool(64).unwrap_err().to_string();
        assert!(e.contains("running already"), "{e}");
        assert_eq!(POOL_INSTANCES.load(Ordering::Relaxed), MAX_INSTANCES);
    }

    #[test]
    fn a_one_call_pool_grows_with_the_policy_within_bounds() {
        let policy = |checks: usize| {
            let body: String = (0..checks)
                .map(|i| format!("[[check]]\nname = \"c{i}\"\nplugin = \"c.wasm\"\n"))
                .collect();
            crate::Policy::from_toml(
                &body,
                std::path::Path::new("<t>"),
                std::path::Path::new("."),
            )
            .expect("a valid policy")
        };
        assert_eq!(instances_for_one_call(&policy(1)), 32);
        assert_eq!(instances_for_one_call(&policy(11)), 82);
        assert_eq!(instances_for_one_call(&policy(400)), MAX_INSTANCES);
    }
}
