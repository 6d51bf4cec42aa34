//! What the benchmarks time: wall-clock time (default) or the process's
//! CPU time (`TOOLVET_BENCH_CLOCK=cpu`).
//!
//! On a shared machine, wall-clock medians move by 2× within minutes as
//! other jobs take the cores; CPU time counts only the cycles this process
//! spends (all its threads), so it stays comparable across runs and is what
//! the work costs on an idle core. Sequential benchmarks run on one thread,
//! so there the two agree on an idle machine; for concurrent benchmarks CPU
//! time is the CPU spent per operation, not the latency.

use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use std::time::{Duration, Instant};

/// Which clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockKind {
    /// Elapsed real time.
    Wall,
    /// CPU time of the whole process (`CLOCK_PROCESS_CPUTIME_ID`).
    Cpu,
}

/// A criterion measurement over [`ClockKind`], reporting durations.
pub struct Clock {
    kind: ClockKind,
    origin: Instant,
    wall: WallTime,
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `WallTime` (criterion's formatter) has no `Debug`.
        f.debug_struct("Clock")
            .field("kind", &self.kind)
            .field("origin", &self.origin)
            .finish_non_exhaustive()
    }
}

impl Clock {
    /// The clock named by `TOOLVET_BENCH_CLOCK` (`wall` or `cpu`; default
    /// `wall`).
    ///
    /// # Panics
    /// On any other value, so a typo cannot silently change what is timed.
    pub fn from_env() -> Self {
        let kind = match std::env::var("TOOLVET_BENCH_CLOCK").as_deref() {
            Err(_) | Ok("") | Ok("wall") => ClockKind::Wall,
            Ok("cpu") => ClockKind::Cpu,
            Ok(other) => panic!("TOOLVET_BENCH_CLOCK={other}: expected `wall` or `cpu`"),
        };
        Self::new(kind)
    }

    /// A clock of the given kind.
    pub fn new(kind: ClockKind) -> Self {
        Self {
            kind,
            origin: Instant::now(),
            wall: WallTime,
        }
    }

    /// Which clock this is.
    pub fn kind(&self) -> ClockKind {
        self.kind
    }

    /// The clock's reading, from an arbitrary origin.
    pub fn read(&self) -> Duration {
        match self.kind {
            ClockKind::Wall => self.origin.elapsed(),
            ClockKind::Cpu => process_cpu_time(),
        }
    }
}

/// CPU time consumed by every thread of this process so far.
#[expect(
    unsafe_code,
    reason = "libc's `clock_gettime` is the only way to read the process CPU clock"
)]
fn process_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant
    // every Linux supports.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID) failed");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

impl Measurement for Clock {
    type Intermediate = Duration;
    type Value = Duration;

    fn start(&self) -> Duration {
        self.read()
    }

    fn end(&self, start: Duration) -> Duration {
        self.read().saturating_sub(start)
    }

    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }

    fn zero(&self) -> Duration {
        Duration::ZERO
    }

    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }

    fn formatter(&self) -> &dyn ValueFormatter {
        self.wall.formatter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Set in the child process that runs the CPU-clock measurement alone.
    const PROBE_ENV: &str = "TOOLVET_BENCH_CLOCK_PROBE";

    #[test]
    fn cpu_clock_counts_work_not_sleep() {
        // Process CPU time counts every thread of the process, including
        // other tests running in parallel: measure in a child process of
        // this test binary that runs this test alone.
        if std::env::var_os(PROBE_ENV).is_some() {
            return cpu_clock_probe();
        }
        let out = std::process::Command::new(std::env::current_exe().expect("test binary"))
            .args([
                "--exact",
                "clock::tests::cpu_clock_counts_work_not_sleep",
                "--test-threads=1",
                "--nocapture",
            ])
            .env(PROBE_ENV, "1")
            .output()
            .expect("run the probe");
        assert!(
            out.status.success(),
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("1 passed"),
            "the probe ran"
        );
    }

    fn cpu_clock_probe() {
        let clock = Clock::new(ClockKind::Cpu);
        let start = clock.start();
        std::thread::sleep(Duration::from_millis(30));
        let slept = clock.end(start);
        assert!(
            slept < Duration::from_millis(10),
            "sleeping used {slept:?} of CPU"
        );
        let start = clock.start();
        let t = Instant::now();
        let mut x = 0u64;
        while t.elapsed() < Duration::from_millis(20) {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        let busy = clock.end(start);
        // On a loaded machine the spinning thread gets a share of a core,
        // so only ask for some CPU time (a clock stuck at zero fails).
        assert!(
            busy >= Duration::from_millis(2),
            "spinning 20 ms used {busy:?} of CPU"
        );
    }

    #[test]
    fn wall_clock_counts_sleep() {
        let clock = Clock::new(ClockKind::Wall);
        let start = clock.start();
        std::thread::sleep(Duration::from_millis(20));
        assert!(clock.end(start) >= Duration::from_millis(20));
    }
}
