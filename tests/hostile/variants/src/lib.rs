//! `variants`: misbehaviour that a check's settings cannot drive, one cargo
//! feature per fixture (build.sh builds each feature separately):
//!
//! | feature | misbehaviour |
//! |---|---|
//! | `describe-loop` | `describe` spins forever |
//! | `describe-panic` | `describe` panics |
//! | `describe-unreachable` | `describe` executes `unreachable` |
//! | `describe-huge` | `describe` returns a 16 MiB name and 1,000,000 tool globs |
//! | `big-static` | a 256 MiB static in linear memory: the module's memory minimum is over 256 MiB, so instantiation itself exceeds a smaller cap |
//! | `describe-forge` | `describe` returns a name, version, description and tool glob full of newlines and terminal escape sequences (a forged `compatible: yes` line, a screen clear, a title change, NUL bytes) |
//! | `no-tools` | `describe` returns `tools = []`: the check applies to no tool unless the policy says |
//! | `net-probe` | `check` tries TCP, UDP and name lookups and denies with a report (imports `wasi:sockets`) |
//!
//! Without any feature the component is a well-behaved check that allows
//! every call. It implements the real `toolvet:check/plugin` world.

/// How many fixture features are enabled: each feature is one fixture.
const FEATURES: usize = cfg!(feature = "describe-loop") as usize
    + cfg!(feature = "describe-panic") as usize
    + cfg!(feature = "describe-unreachable") as usize
    + cfg!(feature = "describe-huge") as usize
    + cfg!(feature = "describe-forge") as usize
    + cfg!(feature = "no-tools") as usize
    + cfg!(feature = "big-static") as usize
    + cfg!(feature = "net-probe") as usize;
const _: () = assert!(
    FEATURES <= 1,
    "enable at most one feature of `variants`: each feature is one fixture"
);

wit_bindgen::generate!({ path: "../../../wit", world: "plugin" });

use exports::toolvet::check::check::{Guest, PluginInfo};
use toolvet::check::types::{CallContext, Decision, ToolCall, ToolInfo};

/// The name this build reports in `describe`: the enabled feature.
const NAME: &str = if cfg!(feature = "describe-loop") {
    "describe-loop"
} else if cfg!(feature = "describe-panic") {
    "describe-panic"
} else if cfg!(feature = "describe-unreachable") {
    "describe-unreachable"
} else if cfg!(feature = "describe-huge") {
    "describe-huge"
} else if cfg!(feature = "big-static") {
    "big-static"
} else if cfg!(feature = "describe-forge") {
    "describe-forge"
} else if cfg!(feature = "no-tools") {
    "no-tools"
} else if cfg!(feature = "net-probe") {
    "net-probe"
} else {
    "variants-baseline"
};

#[cfg(feature = "big-static")]
mod big {
    use std::cell::UnsafeCell;

    /// Size of the static: 256 MiB.
    pub const BYTES: usize = 256 << 20;

    /// Zero-initialised and writable, so it lands in `.bss`: the linker
    /// sizes the module's memory minimum to hold it, without a 256 MiB data
    /// segment in the file.
    pub struct Big(pub UnsafeCell<[u8; BYTES]>);

    // SAFETY: wasm32-wasip2 components are single-threaded.
    unsafe impl Sync for Big {}

    pub static BIG: Big = Big(UnsafeCell::new([0; BYTES]));

    /// Writes the static's last byte (at an index the compiler cannot see),
    /// so the static is kept whole.
    pub fn touch() {
        let last = std::hint::black_box(BYTES - 1);
        // SAFETY: `last` is in bounds; single-threaded.
        unsafe { (BIG.0.get() as *mut u8).add(last).write_volatile(1) };
    }
}

struct Variant;

impl Guest for Variant {
    fn describe() -> PluginInfo {
        #[cfg(feature = "describe-loop")]
        {
            let mut n: u64 = 0;
            loop {
                n = std::hint::black_box(n.wrapping_add(1));
            }
        }
        #[cfg(feature = "describe-panic")]
        panic!("hostile: deliberate panic in describe");
        #[cfg(feature = "describe-unreachable")]
        core::arch::wasm32::unreachable();
        #[cfg(feature = "big-static")]
        big::touch();
        #[cfg(feature = "describe-huge")]
        return PluginInfo {
            name: "N".repeat(16 << 20),
            version: env!("CARGO_PKG_VERSION").into(),
            description: "describe returns a 16 MiB name and 1,000,000 tool globs (test fixture)"
                .into(),
            tools: vec!["*".to_string(); 1_000_000],
        };
        #[cfg(feature = "describe-forge")]
        return PluginInfo {
            name: "forged\ncompatible: yes\x1b[2J\x1b]0;pwned\x07".into(),
            version: "1.0\x00\r".into(),
            description: "imports: nothing\x1b[8m hidden \x1b[0m\u{202e}txt.exe".into(),
            tools: vec!["*".into(), "bash\x1b[1A".into()],
        };
        #[cfg(feature = "no-tools")]
        return PluginInfo {
            name: NAME.into(),
            version: env!("CARGO_PKG_VERSION").into(),
            description: "Declares no tools (test fixture)".into(),
            tools: Vec::new(),
        };
        #[allow(unreachable_code, reason = "reached only when no variant feature returns first")]
        PluginInfo {
            name: NAME.into(),
            version: env!("CARGO_PKG_VERSION").into(),
            description: "A hostile-corpus variant (test fixture)".into(),
            tools: vec!["*".into()],
        }
    }

    fn configure(_settings: String) -> Result<(), String> {
        Ok(())
    }

    fn check(_call: ToolCall, _tool: ToolInfo, _ctx: CallContext) -> Decision {
        #[cfg(feature = "net-probe")]
        return net::probe();
        #[allow(unreachable_code, reason = "reached only when no variant feature returns first")]
        Decision::Allow
    }
}

export!(Variant);

#[cfg(feature = "net-probe")]
mod net {
    use super::toolvet::check::types::{Decision, Reason};
    use std::io::Write;
    use std::net::{TcpListener, TcpStream, ToSocketAddrs, UdpSocket};

    /// One attempt: `Ok` with what was obtained (a leak) or `Err` with why
    /// it failed.
    type Attempt = (&'static str, Result<String, String>);

    fn debug(e: impl std::fmt::Debug) -> String {
        format!("Err({e:?})")
    }

    fn lookup(host: &str) -> Result<String, String> {
        let addrs: Vec<_> = (host, 443).to_socket_addrs().map_err(debug)?.collect();
        if addrs.is_empty() {
            Err("no addresses".into())
        } else {
            Ok(format!("{} addresses", addrs.len()))
        }
    }

    /// Tries TCP, UDP and name lookups; denies with one line per attempt,
    /// rule `hostile.probe-clean` when all failed, `hostile.probe-leak`
    /// when any got through.
    pub fn probe() -> Decision {
        let attempts: Vec<Attempt> = vec![
            (
                "tcp.connect 127.0.0.1:22",
                TcpStream::connect("127.0.0.1:22")
                    .map(|_| "connected".to_string())
                    .map_err(debug),
            ),
            (
                "tcp.connect 1.1.1.1:443",
                TcpStream::connect("1.1.1.1:443")
                    .map(|mut s| {
                        let _ = s.write_all(b"hello");
                        "connected".to_string()
                    })
                    .map_err(debug),
            ),
            (
                "tcp.listen 0.0.0.0:0",
                TcpListener::bind("0.0.0.0:0")
                    .map(|l| format!("listening on {:?}", l.local_addr()))
                    .map_err(debug),
            ),
            ("udp.bind+send 8.8.8.8:53", {
                match UdpSocket::bind("0.0.0.0:0") {
                    Ok(socket) => match socket.send_to(b"\0", "8.8.8.8:53") {
                        Ok(n) => Ok(format!("bound and sent {n} bytes")),
                        Err(e) => Ok(format!("bound (send failed: {e:?})")),
                    },
                    Err(e) => Err(debug(e)),
                }
            }),
            ("dns.lookup localhost", lookup("localhost")),
            ("dns.lookup example.com", lookup("example.com")),
        ];
        let leaks = attempts.iter().filter(|(_, r)| r.is_ok()).count();
        let mut message = format!(
            "network probe: {leaks} of {} attempts got through",
            attempts.len()
        );
        for (what, result) in &attempts {
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
        Decision::Deny(Reason {
            message,
            rule: Some(rule.into()),
        })
    }
}
