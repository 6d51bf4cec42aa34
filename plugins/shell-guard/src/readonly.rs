//! Read-only status commands: what `sudo` may run without a person's
//! approval, since they only look (service status, logs, containers, open
//! ports, packages). Reading files is not among them: `sudo cat` reads
//! what root can read (`/etc/shadow`).

use crate::syntax::Field;

/// `(program, first operand)`; `*` for any operand, `""` for none.
const READ_ONLY: &[(&str, &[&str])] = &[
    (
        "systemctl",
        &[
            "status",
            "is-active",
            "is-enabled",
            "is-failed",
            "list-units",
            "list-unit-files",
            "list-timers",
            "show",
            "cat",
        ],
    ),
    ("journalctl", &["*", ""]),
    (
        "docker",
        &[
            "ps", "images", "logs", "inspect", "stats", "version", "info", "top", "port",
        ],
    ),
    (
        "podman",
        &[
            "ps", "images", "logs", "inspect", "stats", "version", "info",
        ],
    ),
    ("crictl", &["ps", "pods", "images", "logs", "inspect"]),
    ("lsof", &["*", ""]),
    ("ss", &["*", ""]),
    ("netstat", &["*", ""]),
    ("ps", &["*", ""]),
    ("df", &["*", ""]),
    ("du", &["*", ""]),
    ("free", &["*", ""]),
    ("uptime", &[""]),
    ("dmesg", &["*", ""]),
    ("lsblk", &["*", ""]),
    ("blkid", &["*", ""]),
    ("fdisk", &["-l"]),
    (
        "ip",
        &[
            "addr", "a", "address", "route", "r", "link", "l", "neigh", "n",
        ],
    ),
    ("iptables", &["-L", "-S", "-nL", "-nvL", "-vnL", "--list"]),
    ("nft", &["list"]),
    ("ufw", &["status"]),
    ("service", &["*"]),
    ("nginx", &["-t", "-T", "-v", "-V"]),
    ("apachectl", &["-t", "configtest", "-S"]),
    ("apt", &["list", "show", "policy", "search"]),
    ("apt-cache", &["*"]),
    ("dpkg", &["-l", "-L", "-s", "--list", "--status"]),
    ("rpm", &["-q", "-qa", "-qi", "-ql"]),
    ("ls", &["*", ""]),
    ("id", &["*", ""]),
    ("whoami", &[""]),
    ("top", &["-b", "-bn1"]),
    ("htop", &[""]),
    ("iotop", &["-b", "-o"]),
    ("tcpdump", &["-D"]),
    ("kubectl", &["get", "describe", "logs", "top"]),
    ("lshw", &["*", ""]),
];

/// Whether `argv` (after `sudo`'s options) is a read-only status command.
/// `service NAME status` and `journalctl` options that delete logs
/// (`--vacuum-*`, `--rotate`, `--flush`) are told apart.
pub fn is_read_only(argv: &[Field]) -> bool {
    let Some(first) = argv.first().and_then(Field::static_text) else {
        return false;
    };
    let program = crate::commands::base_name(&first);
    let words: Option<Vec<String>> = argv[1..].iter().map(Field::static_text).collect();
    let Some(words) = words else { return false };
    let Some((_, allowed)) = READ_ONLY.iter().find(|(p, _)| *p == program) else {
        return false;
    };
    if words.iter().any(|w| {
        w.starts_with("--vacuum")
            || matches!(
                w.as_str(),
                "--rotate" | "--flush" | "-c" | "-C" | "--clear" | "-w" | "--write"
            )
    }) {
        return false;
    }
    if program == "service" {
        return words.last().is_some_and(|w| w == "status");
    }
    let op = words
        .iter()
        .find(|w| !w.starts_with('-') || allowed.contains(&w.as_str()));
    match op {
        None => allowed.contains(&"") || allowed.contains(&"*"),
        Some(w) => allowed.contains(&"*") || allowed.contains(&w.as_str()),
    }
}
