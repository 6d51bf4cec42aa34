//! Signals and process control aimed at toolvet's own processes: `kill`,
//! `pkill`, `killall`, `skill`, `fuser -k`, service stops and bus calls,
//! and which processes each may reach.

use super::listings::{
    INPUT_PIDS, Place, UNNARROWED, filter_narrows, keeps_pids, listing_pid_column, listing_selects,
    lists_processes,
};
use super::patterns::{Reach, listing_users, looks_up_toolvet, names_toolvet, pattern_reach};
use super::pids::process_pids;
use super::*;

/// Options choosing processes by their parent, session, process group or
/// terminal (pgrep/pkill `-P`, `-s`, `-g`, `-t`; ps `--ppid`, `--sid`,
/// `-g`, `-t`).
const RELATION_OPTIONS: &[&str] = &[
    "-P",
    "--parent",
    "--ppid",
    "-ppid",
    "-s",
    "--session",
    "--sid",
    "-g",
    "--pgroup",
    "--group",
    "-t",
    "--terminal",
    "--tty",
];

/// Whether `t` names a pid the command line looks up or cannot know:
/// `$PPID`, `$$`, `$(pgrep …)`, `` `ps …` ``, a variable, `{}`.
fn unknown_pid(t: &str) -> bool {
    let t = t.trim_matches(|c| c == '"' || c == '\'');
    !t.is_empty()
        && !t
            .split(',')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// A parent pid the command looks up or cannot know; the shell's own pid
/// (`$$`: its background jobs) is not one.
fn parent_unknown_pid(t: &str) -> bool {
    !matches!(t, "$$" | "$BASHPID" | "${BASHPID}") && unknown_pid(t)
}

/// Whether a process operand is looked up or only known at run time
/// (`$PPID`, `$(pgrep …)`, `$pid`, xargs' `{}`, toolvet named): then it
/// may be the agent or a hook. A number or a plain process name
/// (`lldb -n myapp`) is literal: the check cannot tell whose it is.
fn looked_up_pid(t: &str) -> bool {
    t.is_empty() || t.contains(['$', '`', '{', '%']) || names_toolvet(t)
}

/// Whether a pgrep/pkill/ps command chooses processes by parent,
/// session, process group or terminal given by a looked-up or unknown id
/// (`pgrep -P $PPID`, `ps -o pid= --ppid $PPID`): the agent's hooks are
/// children of the agent, so its pid selects them (review s15 N1b).
pub(super) fn selects_by_relation(args: &[Field]) -> bool {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let t = a.text();
        i += 1;
        let value = if RELATION_OPTIONS.contains(&t.as_str()) {
            i += 1;
            args.get(i - 1).map(Field::text)
        } else if let Some((o, v)) = t.split_once('=')
            && RELATION_OPTIONS.contains(&o)
        {
            Some(v.to_string())
        } else if (t.starts_with("-P") || t.starts_with("-s") || t.starts_with("-g"))
            && t.len() > 2
            && !t.starts_with("--")
            && t[2..].contains(['$', '`'])
        {
            Some(t[2..].to_string())
        } else {
            None
        };
        if value.is_some_and(|v| relation_unknown(&v)) {
            return true;
        }
    }
    false
}

/// Whether a parent, session, group or terminal id is looked up or only
/// known at run time; `$$` (the shell's own children, its background
/// jobs) is not.
pub(super) fn relation_unknown(v: &str) -> bool {
    !matches!(v, "$$" | "$BASHPID" | "${BASHPID}")
        && (v.contains(['$', '`']) || v.to_ascii_lowercase().contains("ppid"))
}

/// Whether the text of a pid operand (`$(ps -o pid= --ppid $PPID)`,
/// `$PPID`) picks the agent's process or its children.
fn picks_by_parent(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')')
        .filter(|w| !w.is_empty())
        .collect();
    lower.contains("ppid")
        || words.windows(2).any(|w| {
            matches!(
                w[0],
                "-P" | "--parent" | "-s" | "--session" | "-g" | "--pgroup"
            ) && parent_unknown_pid(w[1].trim_matches(['"', '\'']))
        })
}

/// Programs that attach to, trace, dump, limit or reschedule a running
/// process given by pid, and how far they reach: `true` when the program
/// can end, stop or change what the process runs (ptrace, resource limits,
/// checkpointing), `false` when it only changes its scheduling.
const PROCESS_CONTROL: &[(&str, bool)] = &[
    ("strace", true),
    ("ltrace", true),
    ("gdb", true),
    ("cgdb", true),
    ("gdbserver", true),
    ("lldb", true),
    ("lldb-server", true),
    ("prlimit", true),
    ("gcore", true),
    ("criu", true),
    ("reptyr", true),
    ("cpulimit", true),
    ("renice", false),
    ("ionice", false),
    ("taskset", false),
    ("chrt", false),
];

/// Signal names as `kill -l` lists them (without `SIG`), for the signal
/// word procps' pkill and psmisc's killall take before their options.
const SIGNAL_NAMES: &[&str] = &[
    "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "IOT", "BUS", "FPE", "KILL", "USR1", "SEGV",
    "USR2", "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CLD", "CONT", "STOP", "TSTP", "TTIN",
    "TTOU", "URG", "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "IO", "POLL", "PWR", "SYS", "UNUSED",
    "EMT", "LOST", "INFO", "RTMIN", "RTMAX",
];

/// Whether `word` is a signal given as an option word: `-9`, `-STOP`,
/// `-SIGSTOP`, `-RTMIN+3` (case-insensitive, as procps'
/// `signal_name_to_number` compares). With `upper_first` (psmisc
/// killall) only a word whose first letter is a capital or digit: its
/// getopt fails on it and it reads the word as a signal then.
pub(super) fn signal_word(word: &str, upper_first: bool) -> bool {
    let Some(body) = word.strip_prefix('-').filter(|b| !b.starts_with('-')) else {
        return false;
    };
    if upper_first && !body.starts_with(|c: char| c.is_ascii_uppercase() || c.is_ascii_digit()) {
        return false;
    }
    if !body.is_empty() && body.bytes().all(|b| b.is_ascii_digit()) {
        return true;
    }
    let upper = body.to_ascii_uppercase();
    let name = upper.strip_prefix("SIG").unwrap_or(&upper);
    let name = name.split(['+', '-']).next().unwrap_or(name);
    SIGNAL_NAMES.contains(&name)
}

/// `args` without the signal word procps' pkill removes before getopt
/// (pgrep.c `signal_option`: the first word anywhere that is `-SIGNAL`).
pub(super) fn without_procps_signal(args: &[Field]) -> Vec<Field> {
    let mut args = args.to_vec();
    if let Some(k) = args.iter().position(|a| {
        a.static_text()
            .is_some_and(|t| t != "--" && signal_word(&t, false))
    }) {
        args.remove(k);
    }
    args
}

/// procps-ng `pgrep`/`pkill`/`pidwait` options (pgrep(1), pkill(1);
/// pgrep.c `getopt_long`, GNU permutation): long options by unique
/// prefix (`--fu` is `--full`, `--pa` is `--parent`).
pub(super) const PGREP: Spec = Spec {
    opts: &[
        long("signal", '\0', Takes::Value),
        long("echo", 'e', Takes::No),
        long("queue", 'q', Takes::Value),
        long("inverse", 'v', Takes::No),
        long("lightweight", 'w', Takes::No),
        long("count", 'c', Takes::No),
        long("delimiter", 'd', Takes::Value),
        long("list-name", 'l', Takes::No),
        long("list-full", 'a', Takes::No),
        long("full", 'f', Takes::No),
        long("pgroup", 'g', Takes::Value),
        long("group", 'G', Takes::Value),
        long("require-handler", 'H', Takes::No),
        long("ignore-case", 'i', Takes::No),
        long("newest", 'n', Takes::No),
        long("oldest", 'o', Takes::No),
        long("older", 'O', Takes::Value),
        long("parent", 'P', Takes::Value),
        long("session", 's', Takes::Value),
        long("terminal", 't', Takes::Value),
        long("euid", 'u', Takes::Value),
        long("uid", 'U', Takes::Value),
        long("exact", 'x', Takes::No),
        long("ignore-ancestors", 'A', Takes::No),
        long("pidfile", 'F', Takes::Value),
        long("logpidfile", 'L', Takes::No),
        long("runstates", 'r', Takes::Value),
        long("cgroup", '\0', Takes::Value),
        long("ns", '\0', Takes::Value),
        long("nslist", '\0', Takes::Value),
        long("env", '\0', Takes::Value),
        long("help", 'h', Takes::No),
        long("version", 'V', Takes::No),
    ],
    permute: true,
    long_only: false,
};

/// psmisc `killall` options (killall(1); killall.c reads them with
/// `getopt_long_only`, permuting: `-us USER` and `-user USER` are
/// `--user USER`, review s18 R2). A
/// word its getopt cannot place that starts with a capital or digit is
/// the signal (`-9`, `-STOP`).
const KILLALL: Spec = Spec {
    opts: &[
        long("exact", 'e', Takes::No),
        long("ignore-case", 'I', Takes::No),
        long("process-group", 'g', Takes::No),
        long("younger-than", 'y', Takes::Value),
        long("older-than", 'o', Takes::Value),
        long("interactive", 'i', Takes::No),
        long("list", 'l', Takes::No),
        long("quiet", 'q', Takes::No),
        long("regexp", 'r', Takes::No),
        long("signal", 's', Takes::Value),
        long("user", 'u', Takes::Value),
        long("verbose", 'v', Takes::No),
        long("wait", 'w', Takes::No),
        long("ns", 'n', Takes::Value),
        long("context", 'Z', Takes::Value),
        long("help", 'h', Takes::No),
        long("version", 'V', Takes::No),
    ],
    permute: true,
    long_only: true,
};

/// procps-ng skill/snice options (skill(1); skill.c `getopt_long`
/// `c:p:t:u:fiLlnvwhV`, permutation); the signal (`-STOP`) or priority
/// (`+5`) word comes first.
const SKILL: Spec = Spec {
    opts: &[
        long("command", 'c', Takes::Value),
        long("pid", 'p', Takes::Value),
        long("tty", 't', Takes::Value),
        long("user", 'u', Takes::Value),
        long("fast", 'f', Takes::No),
        long("interactive", 'i', Takes::No),
        long("list", 'l', Takes::No),
        long("table", 'L', Takes::No),
        long("no-action", 'n', Takes::No),
        long("verbose", 'v', Takes::No),
        long("warnings", 'w', Takes::No),
        long("debug", '\0', Takes::No),
        long("ns", '\0', Takes::Value),
        long("nslist", '\0', Takes::Value),
        long("help", 'h', Takes::No),
        long("version", 'V', Takes::No),
    ],
    permute: true,
    long_only: false,
};

/// The values a getopt-read command gives to any of `names`, as text.
pub(super) fn option_values(p: &Parsed, names: &[&str]) -> Vec<String> {
    p.found
        .iter()
        .filter(|f| names.contains(&f.opt.name))
        .map(|f| f.value.as_ref().map_or_else(|| "{}".into(), Field::text))
        .collect()
}

/// The number a word of shell arithmetic stands for when it is a literal
/// one: an optional sign, then `$((N))` or `$[N]` whose `N` is a signed
/// base-10 number (blanks and parentheses around it): `$((-1))`, `-$[1]`,
/// `-$(( (1) ))`. Anything else (variables, operators): `None`.
fn arithmetic_number(text: &str) -> Option<i64> {
    let t = text.trim();
    let (negate, rest) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let inner = rest
        .strip_prefix("$((")
        .and_then(|r| r.strip_suffix("))"))
        .or_else(|| rest.strip_prefix("$[").and_then(|r| r.strip_suffix(']')))?;
    let bare: String = inner
        .chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, '(' | ')'))
        .collect();
    let (sign, digits) = match bare.strip_prefix('-') {
        Some(d) => (-1, d),
        None => (1, bare.strip_prefix('+').unwrap_or(&bare)),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n = sign * digits.parse::<i64>().ok()?;
    Some(if negate { -n } else { n })
}

/// Which processes a signal reaches, as far as toolvet's hooks go.
pub(super) enum Target {
    None,
    /// They may include toolvet's hooks (the words say what).
    Toolvet(String),
    /// Chosen by a pattern the analysis cannot read.
    Unknown(String),
    /// Processes that may be toolvet's hooks, given a new priority
    /// (`snice`): held.
    Scheduling(String),
}

/// A process pattern or name given as field `f`: matched, or unreadable.
fn pattern_target(f: &Field, full: bool, regex: bool, lines: &[String]) -> Target {
    let Some(text) = f.static_text() else {
        let raw = f.text();
        return if names_toolvet(&raw) {
            Target::Toolvet(format!("`{raw}`"))
        } else {
            Target::Unknown(format!("the pattern `{raw}`"))
        };
    };
    let hit = if regex {
        // Parsed as the extended regex it is (review s19 S13); against
        // the whole command line the hook lines count (review s17 Q8).
        match pattern_reach(&text, false, full, lines) {
            Reach::Unread => {
                return Target::Unknown(format!(
                    "the pattern `{text}`, whose regex syntax the analysis does not read"
                ));
            }
            reach => names_toolvet(&text) || reach == Reach::Hook,
        }
    } else {
        base_name(&text).eq_ignore_ascii_case("toolvet")
    };
    if hit {
        Target::Toolvet(format!("the processes matching `{text}`"))
    } else {
        Target::None
    }
}

/// `fuser -k [-m] NAME…` (psmisc fuser(1), which reads its options with
/// its own parser: every letter of a `-abc` word is an option, `-n SPACE`
/// takes the next word, `-SIGNAL` is the signal, long options exactly):
/// with `-k`, the processes using each NAME are signalled. With `-m`
/// (`-c`, `--mount`) every process using NAME's filesystem: toolvet's
/// hooks among them. A file of toolvet's names it; a port (`8080/tcp`)
/// (`-n tcp 8080`) is a server's; any other file or directory may be the hooks' working
/// directory (the agent's), held.
fn fuser_targets(texts: &[String]) -> Target {
    let (mut kill, mut mount, mut ports) = (false, false, false);
    let mut names = Vec::new();
    let mut i = 0;
    while let Some(t) = texts.get(i) {
        i += 1;
        match t.as_str() {
            "--kill" => kill = true,
            "--mount" => mount = true,
            // `-n tcp|udp`: the names are ports.
            "--namespace" => {
                ports |= texts.get(i).is_some_and(|v| v != "file");
                i += 1;
            }
            _ if t.starts_with("--") => {}
            _ if t.len() > 1 && t.starts_with('-') && !signal_word(t, true) => {
                for c in t[1..].chars() {
                    match c {
                        'k' => kill = true,
                        'm' | 'c' => mount = true,
                        'n' => {
                            ports |= texts.get(i).is_some_and(|v| v != "file");
                            i += 1;
                        }
                        _ => {}
                    }
                }
            }
            _ if t.starts_with('-') => {}
            _ => names.push(t),
        }
    }
    if !kill {
        return Target::None;
    }
    if mount {
        return Target::Toolvet("every process using the filesystem named".into());
    }
    if names.iter().any(|n| names_toolvet(n)) {
        return Target::Toolvet("the processes using toolvet's files".into());
    }
    let port = |n: &str| {
        n.split_once('/').is_some_and(|(p, proto)| {
            matches!(proto, "tcp" | "udp")
                && p.split(',')
                    .next()
                    .is_some_and(|p| p.bytes().all(|b| b.is_ascii_digit()))
        })
    };
    match names.iter().find(|n| !ports && !port(n)) {
        Some(n) => Target::Unknown(format!(
            "the processes using `{n}` (a directory may be the working directory of the agent and its hooks)"
        )),
        None => Target::None,
    }
}

/// dpkg's start-stop-daemon(8) options (utils/start-stop-daemon.c
/// `longopts`, getopt_long).
const START_STOP_DAEMON: Spec = Spec {
    opts: &[
        long("help", 'H', Takes::No),
        long("version", 'V', Takes::No),
        long("test", 't', Takes::No),
        long("oknodo", 'o', Takes::No),
        long("quiet", 'q', Takes::No),
        long("verbose", 'v', Takes::No),
        long("exec", 'x', Takes::Value),
        long("pid", '\0', Takes::Value),
        long("ppid", '\0', Takes::Value),
        long("pidfile", 'p', Takes::Value),
        long("name", 'n', Takes::Value),
        long("user", 'u', Takes::Value),
        long("group", 'g', Takes::Value),
        long("signal", 's', Takes::Value),
        long("retry", 'R', Takes::Value),
        long("startas", 'a', Takes::Value),
        long("chuid", 'c', Takes::Value),
        long("chroot", 'r', Takes::Value),
        long("chdir", 'd', Takes::Value),
        long("background", 'b', Takes::No),
        long("notify-await", '\0', Takes::No),
        long("notify-timeout", '\0', Takes::Value),
        long("no-close", 'C', Takes::No),
        long("output", 'O', Takes::Value),
        long("make-pidfile", 'm', Takes::No),
        long("remove-pidfile", '\0', Takes::No),
        long("nicelevel", 'N', Takes::Value),
        long("procsched", 'P', Takes::Value),
        long("iosched", 'I', Takes::Value),
        long("umask", 'k', Takes::Value),
        long("start", 'S', Takes::No),
        long("stop", 'K', Takes::No),
        long("status", 'T', Takes::No),
    ],
    permute: true,
    long_only: false,
};

/// `start-stop-daemon --stop` (`-K`) signals every process matching
/// its selection: a name (`-n`), program (`-x`), pid file (`-p`), pid,
/// parent, or, alone, a user (`-u`: every process of the user) (review
/// s19 S10). One naming toolvet, or a user alone: toolvet's hooks; any
/// other selection is held (the check does not match process names and
/// files against the hooks); a word the table cannot place beside a
/// possible `-K` too.
fn stop_daemon_targets(args: &[Field]) -> Target {
    let p = getopt::parse(&START_STOP_DAEMON, args);
    let unplaced_stop = !p.problems.is_empty()
        && args.iter().map(Field::text).any(|t| {
            t.starts_with("--st") || (t.starts_with('-') && !t.starts_with("--") && t.contains('K'))
        });
    if !p.has("stop") && !unplaced_stop {
        return Target::None;
    }
    let selections = option_values(&p, &["name", "exec", "pidfile", "pid", "ppid", "startas"]);
    if selections.iter().any(|v| names_toolvet(v)) {
        return Target::Toolvet("the processes named by toolvet's name or program".into());
    }
    if selections.is_empty() && p.has("user") {
        return Target::Toolvet("every process of the user (`--user` alone)".into());
    }
    Target::Unknown(
        "the name, program, pid file or user `start-stop-daemon --stop` selects by".into(),
    )
}

/// loginctl(1)'s options (systemd, getopt_long).
const LOGINCTL: Spec = Spec {
    opts: &[
        long("help", 'h', Takes::No),
        long("version", '\0', Takes::No),
        long("value", '\0', Takes::No),
        long("property", 'p', Takes::Value),
        long("all", 'a', Takes::No),
        long("full", 'l', Takes::No),
        long("kill-whom", '\0', Takes::Value),
        long("signal", 's', Takes::Value),
        long("host", 'H', Takes::Value),
        long("machine", 'M', Takes::Value),
        long("lines", 'n', Takes::Value),
        long("output", 'o', Takes::Value),
        long("json", '\0', Takes::Value),
        long("no-pager", '\0', Takes::No),
        long("no-legend", '\0', Takes::No),
        long("no-ask-password", '\0', Takes::No),
    ],
    permute: true,
    long_only: false,
};

/// `loginctl kill-user|terminate-user|kill-session|terminate-session|
/// terminate-seat`: every process of a user, session or seat (review
/// s19 S10). With no operand (the caller's session) or one only known at
/// run time (`$USER`, `$XDG_SESSION_ID`): the agent's, toolvet's hooks
/// among them; a literal one is held (it may be the agent's).
fn loginctl_targets(args: &[Field]) -> Target {
    const KILLS: &[&str] = &[
        "kill-user",
        "terminate-user",
        "kill-session",
        "terminate-session",
        "terminate-seat",
    ];
    let p = getopt::parse(&LOGINCTL, args);
    if !p.problems.is_empty() {
        return if args.iter().any(|a| KILLS.contains(&a.text().as_str())) {
            Target::Unknown("the user, session or seat `loginctl` ends".into())
        } else {
            Target::None
        };
    }
    let Some((&verb, rest)) = p.operands.split_first() else {
        return Target::None;
    };
    let verb = args[verb].text();
    if !KILLS.contains(&verb.as_str()) {
        return Target::None;
    }
    if rest.is_empty() || rest.iter().any(|&k| args[k].is_dynamic()) {
        return Target::Toolvet(format!(
            "every process of the agent's user or session (`loginctl {verb}`)"
        ));
    }
    Target::Unknown(format!("the user, session or seat `loginctl {verb}` ends"))
}

/// `systemctl` operations that end, stop, freeze or replace every process
/// of a unit (or of every unit: `isolate`, `exit`, power states).
const SYSTEMCTL_STOPS: &[&str] = &[
    "kill",
    "stop",
    "freeze",
    "restart",
    "try-restart",
    "reload-or-restart",
    "try-reload-or-restart",
    "condrestart",
    "force-reload",
    "isolate",
    "exit",
    "halt",
    "poweroff",
    "reboot",
    "soft-reboot",
    "kexec",
    "suspend",
    "hibernate",
    "hybrid-sleep",
    "suspend-then-hibernate",
    "emergency",
    "rescue",
    "default",
    "switch-root",
    "clean",
];

/// `systemctl` (review s19 S10, s21 U4): `kill`, `stop`, `freeze`,
/// `restart`, `isolate`, `exit`, a power state ([`SYSTEMCTL_STOPS`]), or
/// `disable|mask --now`, `start`/`restart` of a target (which stops
/// what conflicts with it: `rescue.target`) end every process of the
/// units named or of every unit — the agent's session, slice
/// (`app.slice`) or user manager, toolvet's hooks among them, may be
/// one, and the check cannot tell a unit from the agent's own: held.
fn systemctl_targets(texts: &[String]) -> Target {
    let words: Vec<&str> = texts
        .iter()
        .map(String::as_str)
        .filter(|t| !t.starts_with('-'))
        .collect();
    let now = texts.iter().any(|t| t == "--now");
    let verb = words.iter().find(|w| {
        SYSTEMCTL_STOPS.contains(w) || (now && matches!(**w, "disable" | "mask" | "enable"))
    });
    if let Some(v) = verb {
        return Target::Unknown(format!(
            "the units `systemctl {v}` ends or stops (the agent's session, slice or user manager may be one)"
        ));
    }
    if words.contains(&"start")
        && words
            .iter()
            .any(|w| w.ends_with(".target") || w.contains('$'))
    {
        return Target::Unknown(
            "the units a target `systemctl start` starts stops (those that conflict with it)"
                .into(),
        );
    }
    Target::None
}

/// D-Bus method names that only read (`Get`, `GetAll`, `GetUnit`,
/// `ListUnits`, `CanPowerOff`, `Introspect`, `Ping`).
fn bus_read_method(method: &str) -> bool {
    let m = method.rsplit('.').next().unwrap_or(method);
    ["Get", "List", "Can", "Introspect", "Ping"]
        .iter()
        .any(|p| m.starts_with(p))
}

/// A D-Bus call from `busctl`, `gdbus`, `dbus-send` or `qdbus` (review
/// s21 U4): logind's and systemd's methods kill, terminate, stop or
/// freeze sessions, users and units (`Session.Kill`, `User.Kill`,
/// `Manager.KillUser|KillSession|TerminateUser`, `KillUnit`, `StopUnit`,
/// `FreezeUnit`), the same operations `loginctl kill-session` and
/// `systemctl kill` are. The property a call must prove to pass: its
/// words are all literal, and either none names `login1` or `systemd1`
/// (or a unique bus name, `:1.5`, which may be either), or it only reads
/// (`busctl list|status|tree|introspect|get-property|monitor`, `gdbus
/// introspect|monitor`, a method `Get…`, `List…`, `Can…`, `Introspect`,
/// `Ping`). Anything else is held.
fn bus_targets(name: &str, args: &[Field]) -> Target {
    let what = |why: &str| {
        Target::Unknown(format!(
            "the sessions, users or units a `{name}` D-Bus call {why} (logind and systemd kill, stop and freeze \
             them: the agent's own, with toolvet's hooks, may be one)"
        ))
    };
    if args.iter().any(Field::is_dynamic) {
        return what("given words only known at run time reaches");
    }
    let texts: Vec<String> = args.iter().map(Field::text).collect();
    let lower: Vec<String> = texts.iter().map(|t| t.to_ascii_lowercase()).collect();
    let reaches = lower.iter().any(|t| {
        t.contains("login1")
            || t.contains("systemd1")
            || t.trim_start_matches("--dest=").starts_with(':')
    });
    if !reaches {
        return Target::None;
    }
    let operands: Vec<&str> = texts
        .iter()
        .map(String::as_str)
        .filter(|t| !t.starts_with('-'))
        .collect();
    // An option that takes the next word as its value would shift the
    // operands: not read.
    let valued = |opts: &[&str]| texts.iter().any(|t| opts.contains(&t.as_str()));
    let reads = match name {
        "busctl"
            if !valued(&[
                "-H",
                "--host",
                "-M",
                "--machine",
                "--address",
                "--timeout",
                "--size",
            ]) =>
        {
            match operands.as_slice() {
                [sub, ..]
                    if matches!(
                        *sub,
                        "list"
                            | "status"
                            | "tree"
                            | "introspect"
                            | "get-property"
                            | "monitor"
                            | "capture"
                    ) =>
                {
                    true
                }
                ["call", _service, _path, _interface, method, ..] => bus_read_method(method),
                _ => false,
            }
        }
        "gdbus" => {
            let method = texts.iter().enumerate().find_map(|(k, t)| {
                if t == "--method" || t == "-m" {
                    texts.get(k + 1).map(String::as_str)
                } else {
                    t.strip_prefix("--method=")
                }
            });
            match texts.first().map(String::as_str) {
                Some("introspect" | "monitor" | "wait") => true,
                Some("call") => method.is_some_and(bus_read_method),
                _ => false,
            }
        }
        "dbus-send" => {
            let flags_only = texts.iter().all(|t| {
                !t.starts_with('-')
                    || t.contains('=')
                    || matches!(t.as_str(), "--system" | "--session" | "--print-reply")
            });
            flags_only && operands.get(1).is_some_and(|m| bus_read_method(m))
        }
        _ => {
            texts.iter().all(|t| !t.starts_with('-'))
                && operands.get(2).is_none_or(|m| bus_read_method(m))
        }
    };
    if reads {
        Target::None
    } else {
        what("to logind or systemd reaches")
    }
}

/// `killall [-r] NAME…`: exact names (or paths), with `-r` patterns, read
/// by psmisc's table ([`KILLALL`]: `--reg` is `--regexp`). A word the
/// table cannot place makes the names be read as patterns (review s17
/// Q3).
fn killall_targets(args: &[Field], lines: &[String]) -> Target {
    let args: Vec<Field> = args
        .iter()
        .filter(|a| !a.static_text().is_some_and(|t| signal_word(&t, true)))
        .cloned()
        .collect();
    let p = getopt::parse(&KILLALL, &args);
    let regex = p.has("regexp") || !p.problems.is_empty();
    if p.operands.is_empty() && p.has("user") {
        return Target::Toolvet("every process of the user".into());
    }
    for &k in &p.operands {
        match pattern_target(&args[k], false, regex, lines) {
            Target::None => {}
            t => return t,
        }
    }
    Target::None
}

impl Analysis<'_> {
    /// A program that acts on another running process by pid (review s15
    /// N1): a tracer or debugger attached to it (`strace -p`, `gdb -p`,
    /// `lldb --attach-pid`) can make it exit, fail every `execve` or hang;
    /// `prlimit --pid … --cpu=0` has the kernel kill it; `criu dump` ends
    /// it. Given a pid the command looks up or cannot know (`$PPID`,
    /// `$(pgrep -n -f hook)`, a variable, `xargs`' input) it may be the
    /// agent or toolvet's hook: `shell.toolvet-state`, denied. A literal
    /// pid is held for a person (the check cannot tell whose it is).
    /// Scheduling changes (`renice`, `ionice`, `taskset`, `chrt -p`) cannot
    /// end or fail a hook: a looked-up pid is held, a literal one allowed.
    /// Starting a new program under one (`strace ls`, `gdb ./a.out`) is not
    /// judged here.
    pub(crate) fn process_control(&mut self, name: &str, args: &[Field]) {
        let name = process_family(name);
        let Some(&(_, ends)) = PROCESS_CONTROL.iter().find(|(n, _)| *n == name) else {
            return;
        };
        let criu_dumps = name != "criu"
            || args
                .iter()
                .any(|a| matches!(a.text().as_str(), "dump" | "pre-dump"));
        if !criu_dumps {
            return;
        }
        let pids = process_pids(name, args);
        let Some(pid) = pids
            .iter()
            .find(|p| looked_up_pid(p))
            .or_else(|| pids.first())
        else {
            return;
        };
        let looked_up = looked_up_pid(pid);
        match (ends, looked_up) {
            (true, true) => self.report(
                true,
                "shell.toolvet-state",
                format!(
                    "`{name}` attaches to, traces, limits or checkpoints the running process `{pid}`, a pid looked \
                     up or only known at run time: it may be the agent or toolvet's own hook, which then decides \
                     nothing (killed, stopped, or made to fail every later start), and some agents (Gemini CLI, \
                     Codex) then run the call unchecked. Run the program under `{name}` from the start instead \
                     (`strace CMD`, `gdb ./prog`)."
                ),
            ),
            (true, false) => self.report(
                false,
                "shell.toolvet-state",
                format!(
                    "`{name}` attaches to, traces, limits or checkpoints the running process {pid}; the check \
                     cannot tell whether it is the agent or toolvet's own hook, which would then decide nothing. \
                     A person must approve; run the program under `{name}` from the start instead."
                ),
            ),
            (false, true) => self.report(
                false,
                "shell.toolvet-state",
                format!(
                    "`{name}` changes the scheduling of the running process `{pid}`, a pid looked up or only known \
                     at run time, which may be the agent or toolvet's own hook. A person must approve; give the \
                     pid of the program you started."
                ),
            ),
            (false, false) => {}
        }
    }

    /// A signal sent to toolvet's own hook processes (review s14 N6): a
    /// hook killed or stopped from a background job is read as "no
    /// decision" by Gemini CLI and Codex, which then run the call. By
    /// name or pattern (`pkill [-f] PATTERN`, `killall [-r] NAME`,
    /// `skill`), to every process of the user (`kill -9 -1`, `killall5`,
    /// `pkill -u USER`), or to pids looked up for toolvet (`kill $(pgrep
    /// -f toolvet)`, `pgrep toolvet | xargs kill`): `shell.toolvet-state`.
    /// A pattern the check cannot read is held for a person.
    ///
    /// The property a signal sender must prove to pass (review s21 U9):
    /// every target is narrow — a literal pid other than 1 (or a literal
    /// process group), a job (`kill %1`), `$!` (or a variable assigned
    /// only from it), or the pids a proven-narrow process lookup prints
    /// alone ([`PidFlow::proven`]: `kill $(pgrep -f uvicorn)`, `lsof
    /// -ti:8080 | xargs kill`). Anything else is held.
    pub(crate) fn toolvet_signals(
        &mut self,
        name: &str,
        args: &[Field],
        via_xargs: bool,
        env: &Env,
    ) {
        let texts: Vec<String> = args.iter().map(Field::text).collect();
        // Fields split at a separator the command set (`IFS=1`) cut a
        // lookup's pids into other numbers (`10`: `` and `0`).
        self.ifs_set = env.vars.contains_key("IFS");
        let place = Place {
            cwd: match &env.cwd {
                crate::walk::Cwd::Known(c) => Some(c.as_str()),
                _ => None,
            },
            state: &self.state.state,
        };
        let lines = hook_lines(&self.state.state);
        let users = listing_users(self.home.as_deref(), &self.state.state);
        if looks_up_toolvet(name, args, &texts, &lines, &users, self.process_listing) {
            self.toolvet_pids = true;
        }
        if lists_processes(name, &texts) {
            self.process_listing = true;
            self.unnarrowed_listing = !listing_selects(name, args, &place);
        } else if self.process_listing && filter_narrows(name, args) {
            self.unnarrowed_listing = false;
        }
        // What this stage writes, for a signal sender reading it
        // (review s21 U9).
        self.pid_out_stage = self.stage;
        self.pid_out = if lists_processes(name, &texts) {
            listing_pid_column(name, args).map(|col| PidFlow {
                col,
                narrow: listing_selects(name, args, &place),
            })
        } else {
            self.pid_in.and_then(|flow| keeps_pids(name, args, flow))
        };
        // A process listing turned into text a shell reads on its
        // standard input (`ps … | sed 's/^/kill -STOP /' | sh`): its
        // signals are generated, not read (review s19 S8).
        if self.process_listing
            && matches!(
                name,
                "sh" | "bash" | "dash" | "zsh" | "ksh" | "mksh" | "ash" | "busybox"
            )
            && !args.iter().any(|a| {
                let t = a.text();
                t == "-c"
                    || (t.starts_with('-') && !t.starts_with("--") && t.contains('c'))
                    || !t.starts_with('-')
            })
        {
            self.report(
                false,
                "shell.toolvet-state",
                format!(
                    "`{name}` runs commands made from a process listing (`ps … | sed … | {name}`): they may signal \
                     every listed process, toolvet's own hooks among them, and the check does not read generated \
                     commands. A person must approve; signal the program you started by its own pid."
                ),
            );
        }
        // A listing no filter narrowed, read by a script the check does
        // not read (`ps -eo pid= | python3 stop.py`); code given inline
        // is read by `code_signals`.
        if self.process_listing
            && self.unnarrowed_listing
            && ["python", "perl", "ruby", "node", "php", "pypy"]
                .iter()
                .any(|i| name.starts_with(i))
            && !args.iter().any(|a| {
                let t = a.text();
                matches!(
                    t.as_str(),
                    "-c" | "-e" | "-E" | "-r" | "-n" | "-p" | "--eval" | "--print"
                ) || (t.starts_with('-') && !t.starts_with("--") && t.contains(['c', 'e', 'E']))
            })
            && args.iter().any(|a| !a.text().starts_with('-'))
        {
            self.report(
                false,
                "shell.toolvet-state",
                format!(
                    "`{name}` runs a script the check does not read on {UNNARROWED}: it may signal them. A person \
                     must approve; signal the program you started by its own pid."
                ),
            );
        }
        let verdict = match name {
            "pkill" => self.pkill_targets(args, &lines),
            "killall" => killall_targets(args, &lines),
            "skill" => self.skill_targets(args, via_xargs, false),
            "snice" => match self.skill_targets(args, via_xargs, true) {
                Target::None => Target::None,
                // A priority change cannot end a hook: held, as `renice`
                // of a looked-up pid is (review s16 P6).
                Target::Toolvet(what) | Target::Unknown(what) | Target::Scheduling(what) => {
                    Target::Scheduling(what)
                }
            },
            "killall5" => Target::Toolvet("every process".into()),
            "start-stop-daemon" => stop_daemon_targets(args),
            "loginctl" => loginctl_targets(args),
            "systemctl" => systemctl_targets(&texts),
            "busctl" | "gdbus" | "dbus-send" | "qdbus" | "qdbus6" => bus_targets(name, args),
            "fuser" => fuser_targets(&texts),
            "kill" => self.kill_targets(args, via_xargs),
            _ => Target::None,
        };
        match verdict {
            Target::None => {}
            Target::Toolvet(what) => self.report(
                true,
                "shell.toolvet-state",
                format!(
                    "`{name}` sends a signal to {what}, which takes in toolvet's own hook processes: a hook killed \
                     or stopped decides nothing, and some agents (Gemini CLI, Codex) then run the call unchecked. \
                     An agent must not signal toolvet's processes; stop the program you started by its own pid or \
                     job (`kill %1`, `kill PID`)."
                ),
            ),
            Target::Unknown(what) => self.report(
                false,
                "shell.toolvet-state",
                format!(
                    "`{name}` sends a signal to processes chosen by {what}, which the analysis cannot read: it may \
                     take in toolvet's own hook processes, which decide nothing once killed or stopped. A person \
                     must approve; stop the program you started by its own pid or job (`kill %1`, `kill PID`)."
                ),
            ),
            Target::Scheduling(what) => self.report(
                false,
                "shell.toolvet-state",
                format!(
                    "`{name}` changes the scheduling of {what}, which may be the agent or toolvet's own hook \
                     processes. A person must approve; give the pid of the program you started."
                ),
            ),
        }
    }

    fn kill_targets(&self, args: &[Field], via_xargs: bool) -> Target {
        let mut signal = false;
        let mut ended = false;
        let mut i = 0;
        let mut operands = Vec::new();
        let mut specs: Vec<String> = Vec::new();
        while let Some(a) = args.get(i) {
            let t = a.text();
            i += 1;
            if ended || !t.starts_with('-') || t == "-" {
                operands.push(a);
                continue;
            }
            match t.as_str() {
                "--" => ended = true,
                "-l" | "-L" | "--list" | "--table" => return Target::None,
                "-s" | "-n" | "--signal" => {
                    signal = true;
                    specs.push(args.get(i).and_then(Field::static_text).unwrap_or_default());
                    i += 1;
                }
                _ if signal => operands.push(a),
                _ => {
                    signal = true;
                    specs.push(t[1..].to_string());
                }
            }
        }
        // Signal 0 sends nothing: a check that the process exists (`kill
        // -0 $PID`), when it is the only signal given (a word after it
        // that names another is an operand, held).
        if let [only] = specs.as_slice()
            && matches!(only.to_ascii_uppercase().as_str(), "0" | "SIG0")
            && operands
                .iter()
                .all(|a| !a.text().starts_with('-') || a.text() == "-1")
        {
            return Target::None;
        }
        // A pid reaching the hooks outranks one only held.
        let mut held = None;
        for a in &operands {
            match self.signalled_pid(a) {
                Target::None => {}
                Target::Unknown(w) => {
                    held.get_or_insert(Target::Unknown(w));
                }
                t => return t,
            }
        }
        if via_xargs && self.toolvet_pids {
            return Target::Toolvet("pids looked up for toolvet, read by `xargs`".into());
        }
        if via_xargs && self.unnarrowed_listing {
            return Target::Toolvet(UNNARROWED.into());
        }
        if let Some(t) = held {
            return t;
        }
        if via_xargs && !self.pid_in.is_some_and(PidFlow::proven) {
            return Target::Unknown(INPUT_PIDS.into());
        }
        Target::None
    }

    /// `pkill [SIGNAL] [OPTIONS] [PATTERN]`, read by procps' table
    /// ([`PGREP`]; review s17 Q3: `--fu` is `--full`, `--pa` is
    /// `--parent`): the pattern against the process name, with `-f` the
    /// whole command line; a word the table cannot place makes it be read
    /// against the whole command line. `-F FILE` (`--pidfile`) signals
    /// the pids in FILE, read as `kill $(cat FILE)` (review s17 Q11): pids
    /// looked up for toolvet reach toolvet; a file the check cannot see is
    /// an unknown pid, held. Without a pattern, every process the other
    /// options select (`pkill -u alice`); `-P PID` the children of PID.
    fn pkill_targets(&self, args: &[Field], lines: &[String]) -> Target {
        let args = without_procps_signal(args);
        let p = getopt::parse(&PGREP, &args);
        if p.has("inverse") {
            // `pkill --inverse PAT`: every process the pattern does not
            // match, toolvet's hooks among them (review s18 R3).
            return Target::Toolvet(
                "every process but those the pattern matches (`--inverse`)".into(),
            );
        }
        let full = p.has("full") || !p.problems.is_empty();
        let pattern = p
            .operands
            .first()
            .map(|&k| pattern_target(&args[k], full, true, lines));
        if let Some(Target::None) = pattern {
            // The pattern filters whatever else selects (a pid file too).
            return Target::None;
        }
        if let Some(file) = p.values("pidfile").next() {
            let cat = Field {
                segs: vec![Seg::Dyn {
                    raw: format!("$(cat {})", file.text()),
                    out: Output::Unknown,
                    quoted: false,
                }],
            };
            return match self.pid_operand(&cat) {
                Target::None => Target::Unknown(format!("the pid file `{}`", file.text())),
                t => t,
            };
        }
        if let Some(t) = pattern {
            return t;
        }
        let parents = option_values(&p, &["parent"]);
        if parents.iter().any(|v| parent_unknown_pid(v)) {
            // `pkill -P $PPID`: the agent's children, toolvet's hooks
            // among them (review s15 N1b).
            return Target::Toolvet(
                "the children of a parent looked up or only known at run time (the agent's, toolvet's \
                 hooks among them)"
                    .into(),
            );
        }
        if parents.iter().any(|v| !unknown_pid(v)) {
            // A literal parent pid may be the agent's.
            return Target::Unknown("a parent pid".into());
        }
        if !parents.is_empty() {
            return Target::None;
        }
        Target::Toolvet("every process the options select".into())
    }

    /// A pid a signal is sent to (`kill PID`, `skill -p PID`), read as
    /// the sender reads it, a base-10 number with blanks, sign and
    /// leading zeros (review s19 S20): `-1` is every process, `0` the
    /// sender's process group (the agent's, toolvet's hooks among them),
    /// like `-$$`; another number (a pid, or a process group `-PGID`) is
    /// not judged. Shell arithmetic (`$((-1))`, `-$[1]`, `"-$((1))"`)
    /// counts as the number when it is a literal one, else held; a
    /// negated expansion (`-$X`) is a process group only known at run
    /// time, held. Other words: [`Self::pid_operand`].
    fn signalled_pid(&self, a: &Field) -> Target {
        let t = a.text();
        // A glob names files: in `/proc` (`cd /proc; kill [0-9]*`) every
        // process (review s19 S8).
        if a.first_glob().is_some() {
            return Target::Unknown(format!(
                "the pids the glob `{t}` names (in /proc, every process)"
            ));
        }
        let arithmetic = t.contains("$((") || t.contains("$[");
        let number = if arithmetic {
            match arithmetic_number(&t) {
                Some(n) => Some(n),
                None => {
                    return Target::Unknown(format!("the pid `{t}`, computed by shell arithmetic"));
                }
            }
        } else if a.is_dynamic() {
            None
        } else {
            t.trim().parse::<i64>().ok()
        };
        match number {
            Some(-1) => {
                return Target::Toolvet(format!("every process of the user (`{t}`, the pid -1)"));
            }
            Some(0) => {
                return Target::Toolvet(format!(
                    "the sender's whole process group (`{t}`, the pid 0), the agent's and toolvet's hooks"
                ));
            }
            Some(1) => {
                return Target::Unknown(format!("the pid `{t}` (init, or the session's manager)"));
            }
            // A literal pid, or a process group given by number (`kill
            // -TERM -4321`), is not judged.
            Some(_) => return Target::None,
            None => {}
        }
        if t.trim_start().starts_with("-$$") {
            return Target::Toolvet(format!(
                "the shell's whole process group (`{t}`), the agent's and toolvet's hooks"
            ));
        }
        match self.pid_operand(a) {
            Target::None if a.is_dynamic() && t.trim_start().starts_with('-') => {
                Target::Unknown(format!("the process group `{t}`, only known at run time"))
            }
            Target::None if !self.proven_pid(a) => Target::Unknown(format!(
                "the pid `{t}`, which is not a literal pid, `$!` or a narrow process lookup's output (a value \
                 computed at run time may be -1: every process)"
            )),
            target => target,
        }
    }

    /// Whether pid operand `a` is proven to name some processes only
    /// (review s21 U9, U15): a literal job (`%1`, `%+`), or made only of
    /// `$!` (a variable assigned from it expands to it) and substitutions
    /// whose whole output is the pids a proven-narrow lookup prints
    /// ([`Analysis::narrow_lookups`]). A number the check read is judged
    /// before. Any other word — text a program computes (`$(seq …)`,
    /// `$(expr 0 - 1)`, `$(printf %d -1)`), a variable the command did not
    /// assign from `$!` (`$pid`, `declare -i`, `${X:--1}`, `printf -v`,
    /// `read`, `mapfile`), a name (util-linux `kill NAME` signals every
    /// process of that name) — is not proven.
    fn proven_pid(&self, a: &Field) -> bool {
        if let Some(t) = a.static_text() {
            // `{}`: the input `xargs` gives, judged by its source.
            return (t.starts_with('%') && t.len() > 1) || t == "{}";
        }
        a.is_dynamic()
            && !self.ifs_set
            && !self.vars_opaque
            && a.segs.iter().all(|s| match s {
                Seg::Dyn { raw, .. } => {
                    let r = raw.trim_matches('"');
                    // `$(jobs -p)`: the pids of the shell's own jobs.
                    let jobs = r
                        .strip_prefix("$(jobs -")
                        .and_then(|j| j.strip_suffix(')'))
                        .or_else(|| r.strip_prefix("`jobs -").and_then(|j| j.strip_suffix('`')))
                        .is_some_and(|f| f.contains('p') && f.chars().all(|c| "prs".contains(c)));
                    jobs || matches!(r, "$!" | "${!}") || self.narrow_lookups.contains(r)
                }
                Seg::Lit { text, .. } => text.is_empty(),
                Seg::Home(_) => false,
            })
    }

    /// One pid operand of a signal sender (`kill PID`, `skill -p PID`,
    /// `snice -p PID`): a pid looked up for toolvet, or the agent's own
    /// process or children, reaches toolvet's hooks; a pid lookup the
    /// analysis cannot read is unknown; a literal pid is not judged.
    fn pid_operand(&self, a: &Field) -> Target {
        let t = a.text();
        if !a.is_dynamic() {
            return Target::None;
        }
        let lower = t.to_ascii_lowercase();
        if names_toolvet(&t) || self.toolvet_pids {
            return Target::Toolvet(format!("the pids `{t}`, looked up for toolvet"));
        }
        // (`$!` is the shell's last background job, not a listing's pid.)
        if self.unnarrowed_listing && t != "$!" {
            return Target::Toolvet(format!("the pids `{t}`: {UNNARROWED}"));
        }
        if picks_by_parent(&t) {
            return Target::Toolvet(format!(
                "the pids `{t}`, the agent's process or its children (toolvet's hooks among them)"
            ));
        }
        if (lower.contains("pgrep") || lower.contains("pidof")) && lower.matches('$').count() > 1 {
            return Target::Unknown(format!("`{t}`"));
        }
        Target::None
    }

    /// `skill`/`snice [SIGNAL|PRIORITY] [OPTIONS] [WHAT…]`, read by
    /// procps' table ([`SKILL`], review s17 Q3): the commands (`-c`), pids
    /// (`-p`, read as `kill`'s operands, review s16 P1), terminals (`-t`)
    /// or users (`-u`: every process of the user) given, and each other
    /// word guessed as skill guesses it (a pid, a terminal, a user or a
    /// command). `--ns PID` alone selects every process in PID's
    /// namespaces.
    fn skill_targets(&self, args: &[Field], via_xargs: bool, snice: bool) -> Target {
        let args = if snice {
            // snice's priority word (`+5`, `-5`) comes before its options.
            let mut args = args.to_vec();
            if let Some(k) = args.iter().position(|a| {
                a.static_text().is_some_and(|t| {
                    t.len() > 1
                        && t.starts_with(['+', '-'])
                        && t[1..].bytes().all(|b| b.is_ascii_digit())
                })
            }) {
                args.remove(k);
            }
            args
        } else {
            without_procps_signal(args)
        };
        let p = getopt::parse(&SKILL, &args);
        // A value joined to a word only known at run time (`-p$PID`).
        let values = |name: &str| -> Vec<Field> {
            p.found
                .iter()
                .filter(|f| f.opt.name == name)
                .map(|f| match &f.value {
                    Some(v) if args[f.at].is_dynamic() && !v.is_dynamic() => Field {
                        segs: vec![Seg::Dyn {
                            raw: v.text(),
                            out: Output::Unknown,
                            quoted: false,
                        }],
                    },
                    Some(v) => v.clone(),
                    None => Field::lit("{}"),
                })
                .collect()
        };
        let mut names = values("command");
        let mut pids = values("pid");
        let ttys = values("tty");
        for &k in &p.operands {
            // A guessed word: a pid when only known at run time; also
            // read as a command name.
            if args[k].is_dynamic() {
                pids.push(args[k].clone());
            }
            names.push(args[k].clone());
        }
        let mut held = None;
        for p in &pids {
            match self.signalled_pid(p) {
                Target::None => {}
                Target::Unknown(w) => {
                    held.get_or_insert(Target::Unknown(w));
                }
                target => return target,
            }
        }
        if (via_xargs || p.has("pid")) && self.toolvet_pids {
            return Target::Toolvet("pids looked up for toolvet".into());
        }
        if (via_xargs || p.has("pid")) && self.unnarrowed_listing {
            return Target::Toolvet(UNNARROWED.into());
        }
        for n in &names {
            if let Target::Toolvet(w) = pattern_target(n, false, !p.problems.is_empty(), &[]) {
                return Target::Toolvet(w);
            }
        }
        if let Some(t) = held {
            return t;
        }
        if via_xargs && !self.pid_in.is_some_and(PidFlow::proven) {
            return Target::Unknown(INPUT_PIDS.into());
        }
        for n in &names {
            match pattern_target(n, false, !p.problems.is_empty(), &[]) {
                Target::None => {}
                t => return t,
            }
        }
        // Every process on a terminal, literal or not: the agent's, with
        // its hooks, when it is the agent's own, as `pkill -t` (review s19
        // S17). A command or pid given too narrows (skill's selections
        // must all match).
        if let Some(tty) = ttys.first()
            && names.is_empty()
            && pids.is_empty()
        {
            return Target::Toolvet(format!("every process on the terminal `{}`", tty.text()));
        }
        if let Some(tty) = ttys.iter().find(|t| t.is_dynamic()) {
            return Target::Unknown(format!("the terminal `{}`", tty.text()));
        }
        if names.is_empty() && pids.is_empty() && ttys.is_empty() {
            if p.has("user") {
                return Target::Toolvet("every process of the user".into());
            }
            if p.has("ns") {
                return Target::Toolvet("every process in a process's namespaces".into());
            }
        }
        Target::None
    }
}
