//! `hostile`: a check plugin that misbehaves on purpose, as its settings say.
//!
//! It implements the real `toolvet:check/plugin` world (`wit/check.wit`), so
//! it loads like any check; what it does when called is chosen by the check's
//! settings (the JSON handed to `configure`):
//!
//! ```json
//! {"behave": "loop"}                        // misbehave in `check`
//! {"configure": "panic"}                    // misbehave in `configure`
//! {"behave": "huge-reason", "mib": 32}      // sizes in MiB
//! {"behave": "spin", "secs": 10}            // durations in seconds
//! ```
//!
//! With `{}` it is a well-behaved check that allows every call (the control
//! case). Misbehaviour in `describe` cannot be driven by settings (it runs
//! before `configure`); that lives in the `variants` crate. The list of
//! behaviours and the outcome the host must produce for each is in
//! `tests/hostile/fixtures.md`.
//!
//! The crate only makes sense as a component: it is built for
//! `wasm32-wasip2` only.

use serde::Deserialize;
use std::hint::black_box;
use std::io::{Read, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

wit_bindgen::generate!({ path: "../../../wit", world: "plugin" });

use exports::toolvet::check::check::{Guest, PluginInfo};
use toolvet::check::host::{Level, log};
use toolvet::check::types::{CallContext, Decision, Reason, ToolCall, ToolInfo};

/// What `check` does (settings key `behave`).
#[derive(Deserialize, Default, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Behave {
    /// Allow every call: the well-behaved control.
    #[default]
    Allow,
    /// Spin forever without calling the host.
    Loop,
    /// Recurse without bound with small frames: exhausts the engine's wasm
    /// call stack.
    Recurse,
    /// Recurse without bound with 64 KiB frames on the shadow stack in
    /// linear memory: runs off the bottom of the stack region.
    RecurseShadow,
    /// Allocate 1 MiB blocks (and touch them) until the allocator fails,
    /// which aborts the guest.
    Grow,
    /// Call `memory.grow` directly until it is refused, then deny with the
    /// size reached (the host's cap, if it does not trap on the refusal).
    GrowRaw,
    /// Read from an address outside linear memory.
    Oob,
    /// `panic!`.
    Panic,
    /// Execute the `unreachable` instruction.
    Unreachable,
    /// Call `exit(0)` (wasi:cli/exit): success status, but no decision.
    Exit,
    /// Deny with a reason message of `mib` MiB (default 32).
    HugeReason,
    /// Deny with a rule id of `mib` MiB (default 32).
    HugeRule,
    /// Log `mib` MiB (default 32) through the host's `log`, 1 MiB per line.
    LogFlood,
    /// Log `count` short lines (default 200,000) through the host's `log`.
    LogSpam,
    /// Write `mib` MiB (default 32) to stdout, ignoring write errors.
    StdoutFlood,
    /// Write `mib` MiB (default 32) to stderr, ignoring write errors.
    StderrFlood,
    /// Try to reach the filesystem, environment, arguments and stdin; deny
    /// with a report of every attempt.
    Probe,
    /// Busy-wait on the monotonic clock for `secs` seconds (default 10),
    /// then allow.
    Spin,
    /// `std::thread::sleep` for `secs` seconds (default 60), then allow:
    /// blocks in a WASI poll on a monotonic-clock pollable.
    Sleep,
    /// Remember this call's arguments in a static and report the previous
    /// call's (deny, rule `hostile.state-fresh` or `hostile.state-kept`).
    State,
    /// Ask `wasi:random` for `mib` MiB (default 64) of random bytes in one
    /// call, `count` times (default 20), then allow.
    RandomHuge,
    /// Ask `wasi:random` for 64 KiB at a time, forever.
    RandomLoop,
    /// `wasi:io/poll.poll` on a list of `count` (default 1,000,000) copies
    /// of one ready pollable, then allow.
    PollDupes,
    /// Subscribe to the monotonic clock without ever dropping the
    /// pollables, `count` times (default 1,000,000), then allow.
    PollableHoard,
    /// One `output-stream.write` of `mib` MiB (default 48) to stdout,
    /// ignoring `check-write`, then allow.
    WriteHuge,
    /// One `host.log` call with a `mib` MiB (default 48) message, then
    /// allow.
    LogHuge,
    /// One `host.log` call of `count` (default 32,768) short lines, then
    /// allow.
    LogLines,
    /// Log lines and deny with a reason, both full of terminal control
    /// sequences (a forged verdict line, a title change, a screen clear,
    /// NUL bytes).
    Forge,
}

/// What `configure` does (settings key `configure`).
#[derive(Deserialize, Default, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum AtConfigure {
    /// Accept the settings.
    #[default]
    Ok,
    /// Spin forever.
    Loop,
    /// Allocate until the allocator fails.
    Grow,
    /// `panic!`.
    Panic,
    /// Execute `unreachable`.
    Unreachable,
    /// Call `exit(0)`.
    Exit,
    /// Refuse the settings with a short error naming the key.
    Error,
    /// Refuse the settings with an error message of `mib` MiB (default 32).
    HugeError,
    /// Refuse the settings with an error full of newlines and terminal
    /// escape sequences (a forged "check loaded OK" line, NUL bytes).
    ForgeError,
}

/// The settings (the JSON object handed to `configure`).
#[derive(Deserialize, Default, Clone, Debug)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    /// What `check` does.
    pub behave: Behave,
    /// What `configure` does.
    pub configure: AtConfigure,
    /// Size in MiB for the floods and huge results (default 32).
    pub mib: Option<usize>,
    /// Number of log lines for `log-spam` (default 200,000).
    pub count: Option<u64>,
    /// Seconds for `spin` (default 10) and `sleep` (default 60).
    pub secs: Option<u64>,
}

impl Settings {
    fn bytes(&self) -> usize {
        self.mib.unwrap_or(32) << 20
    }
}

/// The settings `configure` accepted, for `check`.
static SETTINGS: Mutex<Option<Settings>> = Mutex::new(None);

/// The previous call's arguments, for `behave: state`.
static PREVIOUS_ARGUMENTS: Mutex<Option<String>> = Mutex::new(None);

struct Hostile;

impl Guest for Hostile {
    fn describe() -> PluginInfo {
        PluginInfo {
            name: "hostile".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            description: "Misbehaves on purpose, as its settings say (test fixture)".into(),
            tools: vec!["*".into()],
        }
    }

    fn configure(settings: String) -> Result<(), String> {
        let settings: Settings =
            serde_json::from_str(&settings).map_err(|e| format!("hostile settings: {e}"))?;
        match settings.configure {
            AtConfigure::Ok => {}
            AtConfigure::Loop => spin_forever(),
            AtConfigure::Grow => hoard_memory(),
            AtConfigure::Panic => panic!("hostile: deliberate panic in configure"),
            AtConfigure::Unreachable => core::arch::wasm32::unreachable(),
            AtConfigure::Exit => std::process::exit(0),
            AtConfigure::Error => {
                return Err("configure: `error` asks this fixture to refuse its settings".into());
            }
            AtConfigure::HugeError => return Err("E".repeat(settings.bytes())),
            AtConfigure::ForgeError => {
                return Err(
                    "bad key\ntoolvet: check `forger` loaded OK\x1b[2K\x1b]0;pwned\x07\x00".into(),
                );
            }
        }
        *SETTINGS.lock().unwrap() = Some(settings);
        Ok(())
    }

    fn check(call: ToolCall, _tool: ToolInfo, _ctx: CallContext) -> Decision {
        let settings = SETTINGS.lock().unwrap().clone().unwrap_or_default();
        match settings.behave {
            Behave::Allow => Decision::Allow,
            Behave::Loop => spin_forever(),
            Behave::Recurse => {
                let depth = recurse_small(0);
                deny(
                    "hostile.recursed",
                    format!("recursion returned after {depth} levels"),
                )
            }
            Behave::RecurseShadow => {
                let depth = recurse_large(0);
                deny(
                    "hostile.recursed",
                    format!("recursion returned after {depth} levels"),
                )
            }
            Behave::Grow => hoard_memory(),
            Behave::GrowRaw => grow_raw(),
            Behave::Oob => {
                // SAFETY: deliberately not: the address is outside any wasm32
                // linear memory below 4 GiB, so the load traps.
                let value =
                    unsafe { core::ptr::read_volatile(black_box(0xFFFF_FFF0usize) as *const u64) };
                deny(
                    "hostile.oob",
                    format!("read {value} from outside linear memory"),
                )
            }
            Behave::Panic => panic!("hostile: deliberate panic in check"),
            Behave::Unreachable => core::arch::wasm32::unreachable(),
            Behave::Exit => std::process::exit(0),
            Behave::HugeReason => deny("hostile.huge-reason", "R".repeat(settings.bytes())),
            Behave::HugeRule => Decision::Deny(Reason {
                message: "the rule id of this decision is huge".into(),
                rule: Some("r".repeat(settings.bytes())),
            }),
            Behave::LogFlood => {
                let line = "L".repeat(1 << 20);
                for _ in 0..settings.bytes() >> 20 {
                    log(Level::Info, &line);
                }
                Decision::Allow
            }
            Behave::LogSpam => {
                for i in 0..settings.count.unwrap_or(200_000) {
                    log(Level::Debug, &format!("hostile log line {i}"));
                }
                Decision::Allow
            }
            Behave::StdoutFlood => {
                flood(&mut std::io::stdout(), settings.bytes());
                Decision::Allow
            }
            Behave::StderrFlood => {
                flood(&mut std::io::stderr(), settings.bytes());
                Decision::Allow
            }
            Behave::Probe => probe(),
            Behave::Spin => {
                let until = Duration::from_secs(settings.secs.unwrap_or(10));
                let start = Instant::now();
                while start.elapsed() < until {
                    black_box(());
                }
                Decision::Allow
            }
            Behave::Sleep => {
                std::thread::sleep(Duration::from_secs(settings.secs.unwrap_or(60)));
                Decision::Allow
            }
            Behave::RandomHuge => {
                let len = (settings.mib.unwrap_or(64) as u64) << 20;
                for _ in 0..settings.count.unwrap_or(20) {
                    black_box(wasip2::random::random::get_random_bytes(len));
                }
                Decision::Allow
            }
            Behave::RandomLoop => loop {
                black_box(wasip2::random::random::get_random_bytes(64 << 10));
            },
            Behave::PollDupes => {
                let ready = wasip2::clocks::monotonic_clock::subscribe_duration(0);
                let list = vec![&ready; settings.count.unwrap_or(1_000_000) as usize];
                black_box(wasip2::io::poll::poll(&list));
                Decision::Allow
            }
            Behave::PollableHoard => {
                for _ in 0..settings.count.unwrap_or(1_000_000) {
                    std::mem::forget(wasip2::clocks::monotonic_clock::subscribe_duration(1));
                }
                Decision::Allow
            }
            Behave::WriteHuge => {
                let stdout = wasip2::cli::stdout::get_stdout();
                let _ = stdout.write(&vec![b'w'; settings.mib.unwrap_or(48) << 20]);
                Decision::Allow
            }
            Behave::LogHuge => {
                log(Level::Info, &"H".repeat(settings.mib.unwrap_or(48) << 20));
                Decision::Allow
            }
            Behave::LogLines => {
                log(
                    Level::Info,
                    &"x\n".repeat(settings.count.unwrap_or(32_768) as usize),
                );
                Decision::Allow
            }
            Behave::Forge => {
                let forged = format!(
                    "ok\nallow    {}  -  (1 µs)\x1b]0;pwned\x07\x1b[2J\x00",
                    call.name
                );
                log(Level::Warn, &forged);
                eprintln!("{forged}");
                deny("hostile.forge\x1b[8m", forged)
            }
            Behave::State => {
                let previous = PREVIOUS_ARGUMENTS.lock().unwrap().replace(call.arguments);
                match previous {
                    None => deny("hostile.state-fresh", "no previous call".into()),
                    Some(arguments) => deny(
                        "hostile.state-kept",
                        format!(
                            "state survived between calls: previous call's arguments: {arguments}"
                        ),
                    ),
                }
            }
        }
    }
}

export!(Hostile);

fn deny(rule: &str, message: String) -> Decision {
    Decision::Deny(Reason {
        message,
        rule: Some(rule.into()),
    })
}

/// Spins forever; `black_box` keeps the loop from being optimised out.
fn spin_forever() -> ! {
    let mut n: u64 = 0;
    loop {
        n = black_box(n.wrapping_add(1));
    }
}

/// Unbounded recursion with small frames; never returns in practice. The
/// `black_box` around the recursive call's result stops the compiler turning
/// it into a loop.
#[inline(never)]
fn recurse_small(depth: u64) -> u64 {
    if black_box(depth) == u64::MAX {
        return depth;
    }
    black_box(recurse_small(depth + 1)).wrapping_add(1)
}

/// Unbounded recursion with a 64 KiB array per frame, which lives on the
/// shadow stack in linear memory.
#[inline(never)]
fn recurse_large(depth: u64) -> u64 {
    let mut frame = [0u8; 64 * 1024];
    frame[black_box(depth as usize) % frame.len()] = 1;
    black_box(&mut frame);
    if black_box(depth) == u64::MAX {
        return depth;
    }
    black_box(recurse_large(depth + 1)).wrapping_add(frame[0] as u64)
}

/// Allocates and touches 1 MiB blocks until the allocator fails; the Rust
/// runtime then aborts (an `unreachable` trap after a message on stderr).
fn hoard_memory() -> ! {
    let mut hoard: Vec<Vec<u8>> = Vec::new();
    loop {
        let mut block = vec![0u8; 1 << 20];
        for i in (0..block.len()).step_by(4096) {
            block[i] = 1;
        }
        hoard.push(black_box(block));
    }
}

/// Grows linear memory 1 MiB at a time until `memory.grow` is refused, and
/// reports the size reached.
fn grow_raw() -> Decision {
    use core::arch::wasm32::{memory_grow, memory_size};
    let start = memory_size(0) << 16;
    while memory_grow(0, 16) != usize::MAX {}
    let end = memory_size(0) << 16;
    deny(
        "hostile.grow-refused",
        format!(
            "memory.grow refused at {end} bytes ({} MiB; started at {} MiB)",
            end >> 20,
            start >> 20
        ),
    )
}

/// Writes `bytes` bytes to `out` in 64 KiB chunks, ignoring errors (a full
/// or closed stream must not stop the flood).
fn flood(out: &mut dyn Write, bytes: usize) {
    let chunk = vec![b'o'; 64 * 1024];
    let mut written = 0;
    while written < bytes {
        let _ = out.write_all(&chunk);
        written += chunk.len();
    }
    let _ = out.flush();
}

/// One attempt to reach something outside the sandbox: `Ok` with a summary
/// of what was obtained (a leak), or `Err` with why it failed.
type Attempt = (&'static str, Result<String, String>);

/// Tries to reach the filesystem, the environment, the arguments and stdin,
/// and denies with one line per attempt. Rule `hostile.probe-clean` when
/// every attempt failed, `hostile.probe-leak` when any got through. Never
/// echoes what it read, only sizes and names.
fn probe() -> Decision {
    let attempts: Vec<Attempt> = vec![
        (
            "fs.read /etc/passwd",
            std::fs::read("/etc/passwd")
                .map(|b| format!("read {} bytes", b.len()))
                .map_err(debug),
        ),
        (
            "fs.read ./Cargo.toml",
            std::fs::read("Cargo.toml")
                .map(|b| format!("read {} bytes", b.len()))
                .map_err(debug),
        ),
        ("fs.read_dir /", list_dir("/")),
        ("fs.read_dir .", list_dir(".")),
        (
            "fs.metadata /",
            std::fs::metadata("/")
                .map(|m| format!("is_dir={}", m.is_dir()))
                .map_err(debug),
        ),
        (
            "fs.create /tmp/toolvet-hostile-probe",
            std::fs::File::create("/tmp/toolvet-hostile-probe")
                .map(|_| {
                    let _ = std::fs::remove_file("/tmp/toolvet-hostile-probe");
                    "created the file".to_string()
                })
                .map_err(debug),
        ),
        ("env.vars", {
            let names: Vec<String> = std::env::vars_os()
                .map(|(k, _)| k.to_string_lossy().into_owned())
                .collect();
            // Names only, and only the first five: never echo values.
            match names.len() {
                0 => Err("no variables".into()),
                n => Ok(format!("{n} variables, e.g. {:?}", &names[..n.min(5)])),
            }
        }),
        ("env.args", {
            let count = std::env::args_os().count();
            if count == 0 {
                Err("no arguments".into())
            } else {
                Ok(format!("{count} arguments"))
            }
        }),
        // Last: if the host wired a real stdin, this may block.
        ("stdin.read", {
            let mut buf = [0u8; 4096];
            match std::io::stdin().read(&mut buf) {
                Ok(0) => Err("Ok(0): end of input".into()),
                Ok(n) => Ok(format!("read {n} bytes")),
                Err(e) => Err(debug(e)),
            }
        }),
    ];
    report("sandbox probe", &attempts)
}

fn list_dir(path: &str) -> Result<String, String> {
    let entries = std::fs::read_dir(path).map_err(debug)?;
    Ok(format!("{} entries", entries.count()))
}

fn debug(e: impl std::fmt::Debug) -> String {
    format!("Err({e:?})")
}

/// Deny with one line per attempt: `blocked` or `GOT THROUGH`.
fn report(title: &str, attempts: &[Attempt]) -> Decision {
    let leaks = attempts.iter().filter(|(_, r)| r.is_ok()).count();
    let mut message = format!(
        "{title}: {leaks} of {} attempts got through",
        attempts.len()
    );
    for (what, result) in attempts {
        match result {
            Ok(got) => message.push_str(&format!("\n{what}: GOT THROUGH: {got}")),
            Err(why) => message.push_str(&format!("\n{what}: blocked: {why}")),
        }
    }
    let rule = if leaks == 0 {
        "hostile.probe-clean"
    } else {
        "hostile.probe-leak"
    };
    deny(rule, message)
}
