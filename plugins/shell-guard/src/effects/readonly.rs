//! Read-only status commands: what `sudo` may run without a person's
//! approval, since they only look (service status, logs, containers, open
//! ports, packages). Reading files is not among them: `sudo cat` reads
//! what root can read (`/etc/shadow`).
//!
//! A command is read-only only when every word is understood: the program
//! is a system one (a bare name or `/usr/bin/…`, not `./ip`), each option
//! is on the program's allow list (none of them names a file, a config, a
//! kubeconfig, a module or an expression: `--kubeconfig`, `nginx -g`,
//! `apachectl -f`, `rpm --eval`, `du --files0-from`, `ip -batch`, …) and
//! the operands form a known read-only subcommand (`ip link` and `ip link
//! show`, not `ip link set`; `service NAME status` with NAME a plain name).
//! Anything else is left to the normal `sudo` rule.

use crate::syntax::Field;

/// The options a program accepts in a read-only call.
struct Spec {
    /// Options without a value.
    flags: &'static [&'static str],
    /// Options with a required value (`-u UNIT`, `-uUNIT`, `--unit=UNIT`).
    valued: &'static [&'static str],
    /// Options with an optional value: attached, or the next word when it
    /// is not an option (`lsof -i :8080`, `journalctl -b -1`).
    optional: &'static [&'static str],
    /// Options are whole words after one dash (`ip -br`, `lshw -short`).
    whole: bool,
}

const NO_OPTIONS: Spec = Spec {
    flags: &[],
    valued: &[],
    optional: &[],
    whole: false,
};

/// How the operands (and option values) of a program are judged.
type Check = fn(&Parsed) -> bool;

/// A command line split into options (name and value) and operands.
struct Parsed {
    options: Vec<(String, Option<String>)>,
    operands: Vec<String>,
}

impl Parsed {
    fn has(&self, names: &[&str]) -> bool {
        self.options
            .iter()
            .any(|(n, _)| names.contains(&n.as_str()))
    }
}

/// Programs whose options need no allow list: none of their options reads
/// a file, loads code or changes anything (`ps`, `ls`, `df`, `id`, `free`).
const ANY: Option<Spec> = None;

const SYSTEMCTL: Spec = Spec {
    flags: &[
        "--no-pager",
        "--full",
        "-l",
        "-a",
        "--all",
        "--failed",
        "-q",
        "--quiet",
        "--no-legend",
        "--plain",
        "-r",
        "--recursive",
        "--system",
        "--value",
        "--show-types",
    ],
    valued: &[
        "-n",
        "--lines",
        "-o",
        "--output",
        "-p",
        "--property",
        "-P",
        "-t",
        "--type",
        "--state",
    ],
    optional: &[],
    whole: false,
};

const JOURNALCTL: Spec = Spec {
    flags: &[
        "--no-pager",
        "-f",
        "--follow",
        "-e",
        "--pager-end",
        "-r",
        "--reverse",
        "-a",
        "--all",
        "-q",
        "--quiet",
        "-x",
        "--catalog",
        "-k",
        "--dmesg",
        "-m",
        "--merge",
        "--utc",
        "--no-hostname",
        "--no-full",
        "--full",
        "-l",
        "--system",
        "--list-boots",
        "--disk-usage",
        "-N",
        "--fields",
        "--no-tail",
    ],
    valued: &[
        "-u",
        "--unit",
        "-n",
        "--lines",
        "-S",
        "--since",
        "-U",
        "--until",
        "-p",
        "--priority",
        "-o",
        "--output",
        "--output-fields",
        "-g",
        "--grep",
        "-t",
        "--identifier",
        "--facility",
        "-F",
        "--field",
    ],
    optional: &["-b", "--boot", "--case-sensitive"],
    whole: false,
};

const CONTAINERS: Spec = Spec {
    flags: &[
        "-a",
        "--all",
        "-q",
        "--quiet",
        "-l",
        "--latest",
        "-s",
        "--size",
        "--no-trunc",
        "--digests",
        "--no-stream",
        "-t",
        "--timestamps",
        "--details",
        "-f",
        "--follow",
    ],
    valued: &[
        "--filter", "--format", "-n", "--last", "--tail", "--since", "--until", "--type",
    ],
    optional: &[],
    whole: false,
};

const CRICTL: Spec = Spec {
    flags: &[
        "-a",
        "--all",
        "-q",
        "--quiet",
        "-v",
        "--verbose",
        "--no-trunc",
        "-f",
        "--follow",
        "-l",
        "--latest",
    ],
    valued: &[
        "-o", "--output", "--name", "--state", "--label", "--tail", "--since", "--pod",
    ],
    optional: &[],
    whole: false,
};

const LSOF: Spec = Spec {
    flags: &[
        "-n", "-P", "-l", "-t", "-V", "-w", "-b", "-N", "-U", "-R", "-a", "-h", "-X", "-Q", "-E",
    ],
    valued: &["-p", "-u", "-c", "-g", "-s", "-d", "-F", "+D", "+d"],
    optional: &["-i"],
    whole: false,
};

const SS: Spec = Spec {
    flags: &[
        "-t",
        "-u",
        "-l",
        "-n",
        "-p",
        "-a",
        "-x",
        "-w",
        "-r",
        "-e",
        "-m",
        "-o",
        "-i",
        "-s",
        "-4",
        "-6",
        "-0",
        "-H",
        "-O",
        "-Z",
        "-z",
        "-b",
        "-E",
        "-M",
        "-S",
        "-d",
        "--tcp",
        "--udp",
        "--listening",
        "--numeric",
        "--processes",
        "--all",
        "--unix",
        "--raw",
        "--extended",
        "--memory",
        "--options",
        "--info",
        "--summary",
        "--no-header",
        "--oneline",
        "--resolve",
        "--ipv4",
        "--ipv6",
        "--packet",
        "--dccp",
        "--sctp",
        "--vsock",
        "--tipc",
        "--xdp",
        "--mptcp",
        "--cgroup",
    ],
    valued: &["-A", "--query", "--socket", "-f", "--family"],
    optional: &[],
    whole: false,
};

const NETSTAT: Spec = Spec {
    flags: &[
        "-t",
        "-u",
        "-l",
        "-n",
        "-p",
        "-a",
        "-x",
        "-w",
        "-r",
        "-e",
        "-s",
        "-i",
        "-c",
        "-W",
        "-4",
        "-6",
        "-g",
        "-o",
        "-v",
        "--tcp",
        "--udp",
        "--listening",
        "--numeric",
        "--program",
        "--all",
        "--unix",
        "--raw",
        "--route",
        "--extended",
        "--statistics",
        "--interfaces",
        "--continuous",
        "--wide",
        "--groups",
        "--timers",
        "--verbose",
    ],
    valued: &[],
    optional: &[],
    whole: false,
};

const DU: Spec = Spec {
    flags: &[
        "-a",
        "-b",
        "-c",
        "-h",
        "-H",
        "-k",
        "-L",
        "-l",
        "-m",
        "-P",
        "-s",
        "-S",
        "-x",
        "-0",
        "-D",
        "--all",
        "--apparent-size",
        "--bytes",
        "--total",
        "--human-readable",
        "--si",
        "--summarize",
        "--separate-dirs",
        "--one-file-system",
        "--count-links",
        "--dereference",
        "--dereference-args",
        "--no-dereference",
        "--null",
        "--inodes",
    ],
    valued: &[
        "-d",
        "--max-depth",
        "-B",
        "--block-size",
        "-t",
        "--threshold",
        "--exclude",
        "--time-style",
    ],
    optional: &["--time"],
    whole: false,
};

const DMESG: Spec = Spec {
    flags: &[
        "-H",
        "--human",
        "-T",
        "--ctime",
        "-t",
        "--notime",
        "-k",
        "--kernel",
        "-u",
        "--userspace",
        "-x",
        "--decode",
        "-w",
        "--follow",
        "-W",
        "--follow-new",
        "-r",
        "--raw",
        "-d",
        "--show-delta",
        "-e",
        "--reltime",
        "-P",
        "--nopager",
        "-J",
        "--json",
        "-S",
        "--syslog",
        "-L",
    ],
    valued: &[
        "-l",
        "--level",
        "-f",
        "--facility",
        "--since",
        "--until",
        "--time-format",
    ],
    optional: &["--color"],
    whole: false,
};

const LSBLK: Spec = Spec {
    flags: &[
        "-a",
        "-b",
        "-d",
        "-D",
        "-f",
        "-i",
        "-J",
        "-l",
        "-m",
        "-n",
        "-O",
        "-p",
        "-P",
        "-r",
        "-s",
        "-S",
        "-t",
        "-z",
        "-A",
        "-M",
        "-N",
        "-v",
        "--all",
        "--bytes",
        "--nodeps",
        "--discard",
        "--fs",
        "--ascii",
        "--json",
        "--list",
        "--perms",
        "--noheadings",
        "--output-all",
        "--paths",
        "--pairs",
        "--raw",
        "--inverse",
        "--topology",
        "--scsi",
        "--nvme",
        "--virtio",
        "--zoned",
        "--merge",
        "--tree",
    ],
    valued: &[
        "-o",
        "--output",
        "-e",
        "--exclude",
        "-I",
        "--include",
        "-x",
        "--sort",
        "-w",
        "--width",
    ],
    optional: &[],
    whole: false,
};

const BLKID: Spec = Spec {
    flags: &[
        "-p",
        "--probe",
        "-i",
        "--info",
        "-l",
        "--list-one",
        "-d",
        "--no-encoding",
        "-k",
        "--list-filesystems",
    ],
    valued: &["-o", "--output", "-s", "--match-tag", "-t", "--match-token"],
    optional: &[],
    whole: false,
};

const FDISK: Spec = Spec {
    flags: &["-l", "--list", "-x", "--list-details"],
    valued: &["-o", "--output", "-b", "--sector-size"],
    optional: &[],
    whole: false,
};

/// `ip`'s global options (not `-b`/`-batch FILE`, `-n`/`-netns`, `-force`).
const IP: Spec = Spec {
    flags: &[
        "-4",
        "-6",
        "-br",
        "-brief",
        "-s",
        "-stats",
        "-statistics",
        "-d",
        "-details",
        "-c",
        "-color",
        "-j",
        "-json",
        "-p",
        "-pretty",
        "-o",
        "-oneline",
        "-h",
        "-human",
        "-r",
        "-resolve",
    ],
    valued: &["-f", "-family"],
    optional: &[],
    whole: true,
};

const IPTABLES: Spec = Spec {
    flags: &[
        "-L",
        "--list",
        "-S",
        "--list-rules",
        "-n",
        "--numeric",
        "-v",
        "--verbose",
        "-x",
        "--exact",
        "--line-numbers",
    ],
    valued: &["-t", "--table", "-W", "--wait-interval"],
    optional: &["-w", "--wait"],
    whole: false,
};

const NFT: Spec = Spec {
    flags: &[
        "-a",
        "--handle",
        "-n",
        "--numeric",
        "-s",
        "--stateless",
        "-j",
        "--json",
        "-t",
        "--terse",
        "-y",
        "--numeric-priority",
        "-p",
        "--numeric-protocol",
        "-T",
        "--numeric-time",
        "-S",
        "--service",
        "-N",
        "--reversedns",
        "-u",
        "--guid",
    ],
    valued: &[],
    optional: &[],
    whole: false,
};

const SERVICE: Spec = Spec {
    flags: &["--status-all"],
    valued: &[],
    optional: &[],
    whole: false,
};

const NGINX: Spec = Spec {
    flags: &["-t", "-T", "-v", "-V", "-q"],
    valued: &[],
    optional: &[],
    whole: false,
};

const APACHECTL: Spec = Spec {
    flags: &["-t", "-S", "-M", "-v", "-V"],
    valued: &[],
    optional: &[],
    whole: false,
};

const APT: Spec = Spec {
    flags: &[
        "--installed",
        "--upgradable",
        "--upgradeable",
        "--manual-installed",
        "-a",
        "--all-versions",
        "--no-all-versions",
        "-q",
        "--quiet",
        "-n",
        "--names-only",
        "--full",
        "-i",
        "--important",
        "--recurse",
        "--no-recommends",
        "--no-suggests",
        "--no-conflicts",
        "--no-breaks",
        "--no-replaces",
        "--no-enhances",
        "--no-pre-depends",
        "--installed-only",
    ],
    valued: &[],
    optional: &[],
    whole: false,
};

const DPKG: Spec = Spec {
    flags: &[
        "-l",
        "--list",
        "-L",
        "--listfiles",
        "-s",
        "--status",
        "-S",
        "--search",
        "-p",
        "--print-avail",
        "--no-pager",
    ],
    valued: &[],
    optional: &[],
    whole: false,
};

/// `rpm` in query mode (not `--eval`, `--define`, `--macros`, `--rcfile`,
/// `--pipe`, `--dbpath`, `--root`, `-p` package files, `--queryformat`).
const RPM: Spec = Spec {
    flags: &[
        "-q",
        "--query",
        "-a",
        "--all",
        "-i",
        "--info",
        "-l",
        "--list",
        "-f",
        "--file",
        "-c",
        "--configfiles",
        "-d",
        "--docfiles",
        "-R",
        "--requires",
        "--provides",
        "--changelog",
        "--last",
        "--whatprovides",
        "--whatrequires",
        "--scripts",
        "-s",
        "--state",
        "--conflicts",
        "--obsoletes",
        "-v",
        "--verbose",
        "--quiet",
    ],
    valued: &[],
    optional: &[],
    whole: false,
};

const TOP: Spec = Spec {
    flags: &["-b", "-c", "-H", "-i", "-S"],
    valued: &["-n", "-d", "-o", "-p", "-u", "-U", "-E", "-e"],
    optional: &["-w"],
    whole: false,
};

const IOTOP: Spec = Spec {
    flags: &[
        "-o",
        "--only",
        "-b",
        "--batch",
        "-P",
        "--processes",
        "-a",
        "--accumulated",
        "-k",
        "--kilobytes",
        "-t",
        "--time",
        "-q",
        "--quiet",
    ],
    valued: &[
        "-n", "--iter", "-d", "--delay", "-p", "--pid", "-u", "--user",
    ],
    optional: &[],
    whole: false,
};

const TCPDUMP: Spec = Spec {
    flags: &["-D", "--list-interfaces"],
    valued: &[],
    optional: &[],
    whole: false,
};

/// `kubectl` without `--kubeconfig`, `--token`, `--server`, `--as`,
/// `--user`, `--cluster`, client certificates or `-f FILE`/`-k DIR`.
const KUBECTL: Spec = Spec {
    flags: &[
        "-A",
        "--all-namespaces",
        "-w",
        "--watch",
        "--watch-only",
        "--show-labels",
        "--no-headers",
        "--show-kind",
        "--ignore-not-found",
        "-p",
        "--previous",
        "--timestamps",
        "-f",
        "--follow",
        "--all-containers",
        "--prefix",
        "--containers",
        "--sum",
    ],
    valued: &[
        "-n",
        "--namespace",
        "-l",
        "--selector",
        "-o",
        "--output",
        "--field-selector",
        "--sort-by",
        "-c",
        "--container",
        "--tail",
        "--since",
        "--since-time",
        "--context",
        "--request-timeout",
        "--limit-bytes",
        "--chunk-size",
        "-L",
        "--label-columns",
        "--max-log-requests",
        "-v",
        "--v",
    ],
    optional: &[],
    whole: false,
};

/// `lshw` without `-dump FILE`.
const LSHW: Spec = Spec {
    flags: &[
        "-short",
        "-businfo",
        "-json",
        "-xml",
        "-html",
        "-sanitize",
        "-numeric",
        "-quiet",
        "-notime",
    ],
    valued: &["-class", "-C", "-c", "-disable", "-enable"],
    optional: &[],
    whole: true,
};

const UPTIME: Spec = Spec {
    flags: &["-p", "--pretty", "-s", "--since"],
    valued: &[],
    optional: &[],
    whole: false,
};

/// `(program, its options, its operands)`.
const READ_ONLY: &[(&str, Option<Spec>, Check)] = &[
    ("systemctl", Some(SYSTEMCTL), systemctl),
    ("journalctl", Some(JOURNALCTL), journalctl),
    ("docker", Some(CONTAINERS), docker),
    ("podman", Some(CONTAINERS), docker),
    ("crictl", Some(CRICTL), crictl),
    ("lsof", Some(LSOF), any),
    ("ss", Some(SS), any),
    ("netstat", Some(NETSTAT), none),
    ("ps", ANY, any),
    ("df", ANY, any),
    ("du", Some(DU), any),
    ("free", ANY, none),
    ("uptime", Some(UPTIME), none),
    ("dmesg", Some(DMESG), none),
    ("lsblk", Some(LSBLK), any),
    ("blkid", Some(BLKID), any),
    ("fdisk", Some(FDISK), fdisk),
    ("ip", Some(IP), ip),
    ("iptables", Some(IPTABLES), iptables),
    ("nft", Some(NFT), nft),
    ("ufw", Some(NO_OPTIONS), ufw),
    ("service", Some(SERVICE), service),
    ("nginx", Some(NGINX), nginx),
    ("apachectl", Some(APACHECTL), apachectl),
    ("apt", Some(APT), apt),
    ("apt-cache", Some(APT), apt_cache),
    ("dpkg", Some(DPKG), dpkg),
    ("rpm", Some(RPM), rpm),
    ("ls", ANY, any),
    ("id", ANY, any),
    ("whoami", Some(NO_OPTIONS), none),
    ("top", Some(TOP), top),
    ("htop", Some(NO_OPTIONS), none),
    ("iotop", Some(IOTOP), iotop),
    ("tcpdump", Some(TCPDUMP), tcpdump),
    ("kubectl", Some(KUBECTL), kubectl),
    ("lshw", Some(LSHW), none),
];

/// Directories a system program is run from by its full path.
const SYSTEM_DIRS: &[&str] = &[
    "/usr/bin/",
    "/bin/",
    "/usr/sbin/",
    "/sbin/",
    "/usr/local/bin/",
    "/usr/local/sbin/",
];

/// Whether `argv` (after `sudo`'s options) is a read-only status command.
pub fn is_read_only(argv: &[Field]) -> bool {
    let Some(first) = argv.first().and_then(Field::static_text) else {
        return false;
    };
    // `sudo ./ip …` runs a workspace file as root, whatever its name.
    let program = match first.rsplit_once('/') {
        None => first.as_str(),
        Some((dir, name)) if SYSTEM_DIRS.contains(&format!("{dir}/").as_str()) => name,
        Some(_) => return false,
    };
    let words: Option<Vec<String>> = argv[1..].iter().map(Field::static_text).collect();
    let Some(words) = words else { return false };
    let Some((_, spec, check)) = READ_ONLY.iter().find(|(p, _, _)| *p == program) else {
        return false;
    };
    let parsed = match spec {
        Some(spec) => match parse(&words, spec) {
            Some(p) => p,
            None => return false,
        },
        None => Parsed {
            options: Vec::new(),
            operands: words
                .iter()
                .filter(|w| !w.starts_with('-'))
                .cloned()
                .collect(),
        },
    };
    check(&parsed)
}

/// Splits `words` by `spec`; `None` when an option is not on its lists.
fn parse(words: &[String], spec: &Spec) -> Option<Parsed> {
    let listed =
        |n: &str| spec.flags.contains(&n) || spec.valued.contains(&n) || spec.optional.contains(&n);
    // An optional value is the next word when that is not an option (a
    // negative number counts as a value: `journalctl -b -1`).
    let optional_next = |next: Option<&String>| {
        next.is_some_and(|n| !n.starts_with('-') || n[1..].parse::<u64>().is_ok())
    };
    let mut p = Parsed {
        options: Vec::new(),
        operands: Vec::new(),
    };
    let mut i = 0;
    let mut only_operands = false;
    while i < words.len() {
        let w = &words[i];
        i += 1;
        let option = !only_operands
            && w.len() > 1
            && (w.starts_with('-') || (w.starts_with('+') && listed(w.split('=').next()?)));
        if !option {
            p.operands.push(w.clone());
            continue;
        }
        if w == "--" {
            only_operands = true;
            continue;
        }
        if w.starts_with("--") || w.starts_with('+') || spec.whole {
            let (name, value) = match w.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (w.as_str(), None),
            };
            if value.is_some() {
                if !spec.valued.contains(&name) && !spec.optional.contains(&name) {
                    return None;
                }
                p.options.push((name.to_string(), value));
            } else if spec.flags.contains(&name) {
                p.options.push((name.to_string(), None));
            } else if spec.valued.contains(&name) {
                let v = words.get(i)?.clone();
                i += 1;
                p.options.push((name.to_string(), Some(v)));
            } else if spec.optional.contains(&name) {
                let v = if optional_next(words.get(i)) {
                    i += 1;
                    Some(words[i - 1].clone())
                } else {
                    None
                };
                p.options.push((name.to_string(), v));
            } else {
                return None;
            }
            continue;
        }
        // A cluster of short options: `-nvL`, `-bn1`, `-uUNIT`.
        let chars: Vec<char> = w[1..].chars().collect();
        for (k, c) in chars.iter().enumerate() {
            let name = format!("-{c}");
            let rest: String = chars[k + 1..].iter().collect();
            if spec.flags.contains(&name.as_str()) {
                p.options.push((name, None));
                continue;
            }
            let value = if spec.valued.contains(&name.as_str()) {
                if rest.is_empty() {
                    i += 1;
                    Some(words.get(i - 1)?.clone())
                } else {
                    Some(rest)
                }
            } else if spec.optional.contains(&name.as_str()) {
                if !rest.is_empty() {
                    Some(rest)
                } else if optional_next(words.get(i)) {
                    i += 1;
                    Some(words[i - 1].clone())
                } else {
                    None
                }
            } else {
                return None;
            };
            p.options.push((name, value));
            break;
        }
    }
    Some(p)
}

/// A unit, service or chain name: no path, no `..`, no option.
fn plain_name(w: &str) -> bool {
    !w.is_empty()
        && !w.starts_with('-')
        && !w.contains("..")
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "@._:+-*?[]\\".contains(c))
}

/// A package name or pattern, not a package file (`./x.deb`, `/tmp/x.rpm`).
fn package_name(w: &str) -> bool {
    !w.is_empty()
        && !w.starts_with(['-', '/', '.', '~'])
        && !w.contains("..")
        && ![".deb", ".dsc", ".changes", ".rpm"]
            .iter()
            .any(|s| w.ends_with(s))
}

fn any(_: &Parsed) -> bool {
    true
}

fn none(p: &Parsed) -> bool {
    p.operands.is_empty()
}

fn systemctl(p: &Parsed) -> bool {
    const SUBS: &[&str] = &[
        "status",
        "is-active",
        "is-enabled",
        "is-failed",
        "list-units",
        "list-unit-files",
        "list-timers",
        "list-sockets",
        "show",
        "cat",
    ];
    match p.operands.split_first() {
        Some((sub, units)) => SUBS.contains(&sub.as_str()) && units.iter().all(|u| plain_name(u)),
        None => false,
    }
}

/// Operands are matches (`_SYSTEMD_UNIT=x.service`, `+`).
fn journalctl(p: &Parsed) -> bool {
    p.operands.iter().all(|w| {
        w == "+"
            || w.split_once('=').is_some_and(|(f, _)| {
                !f.is_empty()
                    && f.chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            })
    })
}

fn docker(p: &Parsed) -> bool {
    const SUBS: &[&str] = &[
        "ps", "images", "logs", "inspect", "stats", "version", "info", "top", "port",
    ];
    p.operands
        .first()
        .is_some_and(|s| SUBS.contains(&s.as_str()))
}

fn crictl(p: &Parsed) -> bool {
    const SUBS: &[&str] = &["ps", "pods", "images", "logs", "inspect"];
    p.operands
        .first()
        .is_some_and(|s| SUBS.contains(&s.as_str()))
}

fn fdisk(p: &Parsed) -> bool {
    p.has(&["-l", "--list", "-x", "--list-details"])
}

/// `ip OBJECT [show|list …]` for addresses, routes, links and neighbours
/// (`ip route get ADDR` too); `set`, `add`, `del`, `flush`, `replace`, …
/// change the network.
fn ip(p: &Parsed) -> bool {
    // `ip` takes the first object of its table that the word begins.
    const OBJECTS: &[&str] = &[
        "address",
        "addrlabel",
        "maddress",
        "route",
        "rule",
        "neighbor",
        "neighbour",
        "ntable",
        "ntbl",
        "link",
    ];
    let Some((object, rest)) = p.operands.split_first() else {
        return false;
    };
    let Some(object) = OBJECTS
        .iter()
        .find(|o| !object.is_empty() && o.starts_with(object.as_str()))
    else {
        return false;
    };
    if !matches!(
        *object,
        "address" | "route" | "neighbor" | "neighbour" | "link"
    ) {
        return false;
    }
    match rest.first().map(String::as_str) {
        None | Some("show" | "list" | "lst" | "sh") => true,
        Some("get") => *object == "route",
        Some(_) => false,
    }
}

fn iptables(p: &Parsed) -> bool {
    p.has(&["-L", "--list", "-S", "--list-rules"])
        && p.operands.len() <= 1
        && p.operands.iter().all(|w| plain_name(w))
}

/// `nft list …` with plain words: its operands are joined and parsed as
/// one command line (`list ruleset; flush ruleset`).
fn nft(p: &Parsed) -> bool {
    p.operands.first().is_some_and(|w| w == "list")
        && p.operands.iter().all(|w| {
            !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c))
        })
}

fn ufw(p: &Parsed) -> bool {
    matches!(
        p.operands
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .as_slice(),
        ["status"] | ["status", "verbose" | "numbered"]
    )
}

/// `service NAME status` (NAME is run from `/etc/init.d/` without systemd,
/// so `../../x` is refused) or `service --status-all`.
fn service(p: &Parsed) -> bool {
    match (p.options.is_empty(), p.operands.as_slice()) {
        (true, [name, status]) => status == "status" && plain_name(name),
        (false, []) => true,
        _ => false,
    }
}

fn nginx(p: &Parsed) -> bool {
    p.operands.is_empty() && p.has(&["-t", "-T", "-v", "-V"])
}

fn apachectl(p: &Parsed) -> bool {
    match p.operands.as_slice() {
        [] => !p.options.is_empty(),
        [w] => w == "configtest" && p.options.is_empty(),
        _ => false,
    }
}

fn apt(p: &Parsed) -> bool {
    apt_like(p, &["list", "show", "policy", "search"])
}

fn apt_cache(p: &Parsed) -> bool {
    const SUBS: &[&str] = &[
        "policy", "show", "search", "depends", "rdepends", "showpkg", "pkgnames", "madison",
        "showsrc", "stats",
    ];
    apt_like(p, SUBS)
}

fn apt_like(p: &Parsed, subs: &[&str]) -> bool {
    match p.operands.split_first() {
        Some((sub, names)) => subs.contains(&sub.as_str()) && names.iter().all(|w| package_name(w)),
        None => false,
    }
}

fn dpkg(p: &Parsed) -> bool {
    p.options.iter().filter(|(n, _)| n != "--no-pager").count() == 1
}

/// `rpm -q …`; no operand holds a macro (`%(…)` runs a shell).
fn rpm(p: &Parsed) -> bool {
    p.has(&["-q", "--query"]) && p.operands.iter().all(|w| !w.contains('%'))
}

fn top(p: &Parsed) -> bool {
    p.operands.is_empty() && p.has(&["-b"])
}

fn iotop(p: &Parsed) -> bool {
    p.operands.is_empty() && p.has(&["-b", "--batch", "-o", "--only"])
}

fn tcpdump(p: &Parsed) -> bool {
    p.operands.is_empty() && !p.options.is_empty()
}

/// `kubectl get|describe|logs|top`; `-f` is `--follow` only for `logs`
/// (`get -f FILE` reads a file), and no output template is read from a
/// file (`-o go-template-file=…`).
fn kubectl(p: &Parsed) -> bool {
    const SUBS: &[&str] = &["get", "describe", "logs", "top"];
    let Some(sub) = p.operands.first() else {
        return false;
    };
    SUBS.contains(&sub.as_str())
        && (sub == "logs" || !p.has(&["-f"]))
        && p.options.iter().all(|(n, v)| {
            !matches!(n.as_str(), "-o" | "--output")
                || v.as_deref().is_some_and(|v| !v.contains("file"))
        })
}

#[cfg(test)]
mod tests {
    use crate::{Options, analyze};

    fn verdict(cmd: &str) -> (String, Option<String>) {
        let d = analyze(cmd, &Options::default(), Some("/home/alice/project"));
        (d.kind().to_string(), d.rule().map(str::to_string))
    }

    /// Review s10 H5: `sudo` of a listed program with a state-changing
    /// subcommand, or an option that loads code, a config, a file list or
    /// an expression, is not read-only.
    #[test]
    fn sudo_read_only_needs_every_word_understood() {
        for cmd in [
            "sudo ip link set eth0 down",
            "sudo ip route del default",
            "sudo ip addr flush dev eth0",
            "sudo ip route replace default via 10.9.9.9",
            "sudo ip route add default via 10.9.9.9",
            "sudo ip route flush table main",
            "sudo ip neigh add 10.0.0.1 lladdr 00:11:22:33:44:55 dev eth0",
            "sudo ip link eth0 set",
            "sudo ip -b ./cmds.txt",
            "sudo ip -batch ./cmds.txt",
            "sudo ip -n other link set eth0 down",
            "sudo ip rule add from all lookup 5",
            "sudo kubectl get pods --kubeconfig=./k.yaml",
            "sudo kubectl get pods --kubeconfig ./k.yaml",
            "sudo kubectl --kubeconfig=./k.yaml get pods",
            "sudo kubectl get pods --token=x --server=https://evil.example",
            "sudo kubectl get pods --as=system:admin",
            "sudo kubectl get -f ./pod.yaml",
            "sudo kubectl get pods -o go-template-file=/etc/shadow",
            "sudo kubectl delete pod x",
            "sudo nginx -t -g 'load_module /home/alice/project/x.so;'",
            "sudo nginx -T -p /home/alice/project/",
            "sudo nginx -t -c ./nginx.conf",
            "sudo nginx",
            "sudo nginx -s stop",
            "sudo apachectl -t -f /home/alice/project/evil.conf",
            "sudo apachectl -f ./evil.conf -t",
            "sudo apachectl -t -C 'LoadModule x /tmp/x.so'",
            "sudo apachectl restart",
            "sudo rpm -q --eval '%(rm -rf /)'",
            "sudo rpm -q --define 'x 1' bash",
            "sudo rpm -q --pipe 'sh -c id' bash",
            "sudo rpm -qp ./x.rpm",
            "sudo rpm -q '%(id)'",
            "sudo rpm -i ./x.rpm",
            "sudo service ../../home/alice/project/x status",
            "sudo service ./x status",
            "sudo service nginx restart",
            "sudo service nginx status extra",
            "sudo iptables -L --modprobe=/home/alice/project/x.sh",
            "sudo iptables -F",
            "sudo iptables -L -Z",
            "sudo du --files0-from=/etc/shadow",
            "sudo du --files0-from /etc/shadow",
            "sudo du -X /etc/shadow .",
            "sudo journalctl --setup-keys",
            "sudo journalctl --vacuum-time=1s",
            "sudo journalctl --rotate",
            "sudo journalctl -D /home/alice/project/j",
            "sudo journalctl --file=/var/log/x.journal",
            "sudo systemctl status x --root=/tmp",
            "sudo systemctl stop nginx",
            "sudo systemctl status -H root@evil.example nginx",
            "sudo systemctl cat ../x",
            "sudo docker --config ./d ps",
            "sudo docker -H ssh://evil.example ps",
            "sudo docker run --rm alpine id",
            "sudo nft -f ./rules.nft",
            "sudo nft 'list ruleset; flush ruleset'",
            "sudo nft flush ruleset",
            "sudo ss -K dst 10.0.0.1",
            "sudo ss -D ./dump",
            "sudo ss -F ./filter",
            "sudo lsof -k /tmp/x",
            "sudo dmesg -c",
            "sudo dmesg -F /etc/shadow",
            "sudo dmesg -n 1",
            "sudo blkid -c /home/alice/project/cache",
            "sudo lshw -dump ./x.db",
            "sudo fdisk /dev/sda",
            "sudo apt show ./x.deb",
            "sudo apt -o APT::Update::Pre-Invoke::=id list",
            "sudo apt-cache -c ./apt.conf show bash",
            "sudo dpkg -i ./x.deb",
            "sudo dpkg --admindir=./d -l",
            "sudo tcpdump -D -z ./x.sh",
            "sudo tcpdump -i eth0 -w ./cap.pcap",
            "sudo top",
            "sudo top -b -n1 -x",
            "sudo ufw disable",
            "sudo ./ip addr show",
            "sudo ./systemctl status nginx",
            "sudo ../bin/ps aux",
            "sudo /home/alice/project/ls /root",
        ] {
            assert_eq!(
                verdict(cmd),
                ("escalate".into(), Some("shell.sudo".into())),
                "command: {cmd}"
            );
        }
    }

    /// The read-only status commands stay allowed.
    #[test]
    fn sudo_read_only_status_commands_stay_allowed() {
        for cmd in [
            "sudo ip addr show",
            "sudo ip addr",
            "sudo ip a",
            "sudo ip -4 addr show dev eth0",
            "sudo ip -br link",
            "sudo ip -s link show eth0",
            "sudo ip route",
            "sudo ip r",
            "sudo ip route show table all",
            "sudo ip route get 1.1.1.1",
            "sudo ip -6 neigh show",
            "sudo ip -j -p addr list",
            "sudo /usr/sbin/ip addr",
            "sudo /sbin/ip link show",
            "sudo systemctl status nginx",
            "sudo systemctl status nginx --no-pager",
            "sudo systemctl status nginx.service -l --no-pager -n 50",
            "sudo systemctl is-active nginx",
            "sudo systemctl list-units --type=service --state=running",
            "sudo systemctl show -p MainPID nginx",
            "sudo systemctl cat nginx",
            "sudo journalctl -u x",
            "sudo journalctl -u nginx --since today --no-pager",
            "sudo journalctl -xe",
            "sudo journalctl -b -1 -n 100",
            "sudo journalctl -fu nginx",
            "sudo journalctl -k --since '1 hour ago'",
            "sudo journalctl _SYSTEMD_UNIT=nginx.service",
            "sudo journalctl",
            "sudo docker ps -a",
            "sudo docker ps --format '{{.Names}}'",
            "sudo docker logs -f --tail 100 web",
            "sudo docker inspect nginx/nginx:latest",
            "sudo podman images",
            "sudo crictl ps -a",
            "sudo lsof -i :8080",
            "sudo lsof -i",
            "sudo lsof -nP -i tcp:443",
            "sudo lsof -p 1234",
            "sudo ss -tlnp",
            "sudo ss -tulpn",
            "sudo netstat -tulpn",
            "sudo ps aux",
            "sudo ps -eo pid,cmd --sort=-%mem",
            "sudo df -h",
            "sudo du -sh /var/log",
            "sudo du -h --max-depth=1 /var",
            "sudo free -m",
            "sudo uptime",
            "sudo dmesg -T",
            "sudo dmesg | tail -20",
            "sudo lsblk -f",
            "sudo blkid",
            "sudo fdisk -l",
            "sudo fdisk -l /dev/sda",
            "sudo iptables -L",
            "sudo iptables -nvL",
            "sudo iptables -t nat -L -n -v",
            "sudo iptables -S INPUT",
            "sudo nft list ruleset",
            "sudo nft list table inet filter",
            "sudo ufw status",
            "sudo ufw status verbose",
            "sudo service nginx status",
            "sudo service --status-all",
            "sudo nginx -t",
            "sudo nginx -T",
            "sudo nginx -V",
            "sudo apachectl -t",
            "sudo apachectl configtest",
            "sudo apachectl -S",
            "sudo apt list --installed",
            "sudo apt show nginx",
            "sudo apt policy nginx",
            "sudo apt-cache policy nginx",
            "sudo dpkg -l",
            "sudo dpkg -l 'nginx*'",
            "sudo dpkg -L nginx",
            "sudo dpkg -S /usr/bin/ls",
            "sudo rpm -qa",
            "sudo rpm -qi bash",
            "sudo rpm -ql bash",
            "sudo rpm -qf /usr/bin/ls",
            "sudo rpm -q bash",
            "sudo ls /root",
            "sudo ls -la /root",
            "sudo id",
            "sudo whoami",
            "sudo top -bn1",
            "sudo top -b -n 1",
            "sudo htop",
            "sudo iotop -b -o -n 3",
            "sudo tcpdump -D",
            "sudo kubectl get pods",
            "sudo kubectl get pods -A -o wide",
            "sudo kubectl get pods -n kube-system -o jsonpath='{.items[*].metadata.name}'",
            "sudo kubectl describe node n1",
            "sudo kubectl logs -f deploy/web -c app --tail=50",
            "sudo kubectl top nodes",
            "sudo lshw -short",
            "sudo lshw -class network",
        ] {
            assert_eq!(verdict(cmd), ("allow".into(), None), "command: {cmd}");
        }
    }
}
