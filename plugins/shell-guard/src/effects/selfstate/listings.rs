//! Process listings and the pids that flow from them: which column of a
//! listing holds pids, and which filters narrow a listing to one process.

use super::patterns::{AWK, GREP, SED, bre_to_ere, ere_hir};
use super::signals::{PGREP, signal_word, without_procps_signal};
use super::*;

/// Whether command `name` lists processes, with their ids, for a filter
/// after it to pick from: `ps`, `pgrep`, `pstree`, `top -b`, `lsof`,
/// or a reader of `/proc` entries (`cat /proc/*/cmdline`).
pub(super) fn lists_processes(name: &str, texts: &[String]) -> bool {
    matches!(
        name,
        "ps" | "pgrep" | "pidof" | "pstree" | "top" | "htop" | "atop" | "procs" | "lsof" | "fuser"
    ) || texts.iter().any(|t| process_file(t))
}

/// ps output columns that print one blank-free word (ps(1) "STANDARD
/// FORMAT SPECIFIERS"); a column before `pid` outside this list
/// (`args`, `comm`, `lstart`, a label) may hold blanks, so the pid's
/// field number is not known.
const PS_WORD_COLUMNS: &[&str] = &[
    "pid",
    "ppid",
    "pgid",
    "pgrp",
    "sid",
    "sess",
    "tpgid",
    "uid",
    "euid",
    "ruid",
    "user",
    "euser",
    "ruser",
    "uname",
    "tty",
    "tt",
    "tname",
    "stat",
    "s",
    "state",
    "time",
    "cputime",
    "etime",
    "etimes",
    "stime",
    "start",
    "start_time",
    "%cpu",
    "pcpu",
    "%mem",
    "pmem",
    "vsz",
    "vsize",
    "rss",
    "rssize",
    "ni",
    "nice",
    "pri",
    "c",
    "lwp",
    "nlwp",
    "psr",
    "f",
    "flags",
    "sz",
    "cls",
    "policy",
    "rtprio",
];

/// The column a listing prints each process's pid in ([`PidFlow`]), or
/// `None` when the check cannot tell (a format it does not model, a
/// count, a delimiter): `pgrep` (`-l`/`-a`: the first field), `pidof`,
/// `lsof -t` (without `-t`: the second field), `fuser`, `ps` with `-o`
/// columns (`pid=` alone: the line; otherwise the position of `pid`
/// after one-word columns), `ps -f`/`-ef`/`aux` (the second field) and
/// ps's default format (the first).
pub(super) fn listing_pid_column(name: &str, args: &[Field]) -> Option<usize> {
    let texts: Vec<String> = args.iter().map(Field::text).collect();
    match name {
        "pgrep" => {
            let p = getopt::parse(&PGREP, &without_procps_signal(args));
            if !p.problems.is_empty() || p.has("count") || p.has("delimiter") {
                None
            } else if p.has("list-name") || p.has("list-full") {
                Some(1)
            } else {
                Some(0)
            }
        }
        "pidof" => (!texts.iter().any(|t| t.starts_with("-d"))).then_some(0),
        "fuser" => Some(0),
        "lsof" => {
            let terse = texts.iter().any(|t| {
                t.strip_prefix('-')
                    .filter(|l| !l.starts_with('-'))
                    .is_some_and(|l| {
                        l.chars()
                            .take_while(|c| !"ipcsuagdDrFT".contains(*c))
                            .any(|c| c == 't')
                    })
            });
            Some(if terse { 0 } else { 2 })
        }
        "ps" => ps_pid_column(args, &texts),
        _ => None,
    }
}

/// [`listing_pid_column`] for `ps`.
fn ps_pid_column(args: &[Field], texts: &[String]) -> Option<usize> {
    let mut formats = Vec::new();
    let mut letters = String::new();
    let mut i = 0;
    while let Some(t) = texts.get(i) {
        if args[i].is_dynamic() {
            return None;
        }
        i += 1;
        match t.as_str() {
            "-o" | "o" | "--format" | "-O" | "O" | "--sort" | "k" | "-k" => {
                if matches!(t.as_str(), "-O" | "O") {
                    return None;
                }
                if !matches!(t.as_str(), "--sort" | "k" | "-k") {
                    formats.push(texts.get(i)?.clone());
                }
                if args.get(i).is_some_and(Field::is_dynamic) {
                    return None;
                }
                i += 1;
            }
            _ if t.starts_with("--format=") => formats.push(t["--format=".len()..].to_string()),
            _ if t.starts_with("--") => {}
            // A cluster ending in `o`/`O` and its value (`-eo pid,args`,
            // `-opid=`).
            _ if t.starts_with('-') => match t[1..].find(['o', 'O']) {
                Some(k) => {
                    let flags = &t[1..1 + k];
                    if t[1 + k..].starts_with('O') {
                        return None;
                    }
                    letters.push_str(flags);
                    let joined = &t[2 + k..];
                    if joined.is_empty() {
                        if args.get(i).is_none_or(Field::is_dynamic) {
                            return None;
                        }
                        formats.push(texts[i].clone());
                        i += 1;
                    } else {
                        formats.push(joined.to_string());
                    }
                }
                None => letters.push_str(&t[1..]),
            },
            // BSD options come first, without a dash (`ps aux`).
            _ if i == 1 && t.chars().all(|c| c.is_ascii_alphabetic()) => {
                letters.push_str(t);
                if t.contains('u') {
                    letters.push('U');
                }
            }
            _ => {}
        }
    }
    if !formats.is_empty() {
        let columns: Vec<String> = formats
            .iter()
            .flat_map(|f| {
                f.split([',', ' '])
                    .filter(|c| !c.is_empty())
                    .map(|c| c.split('=').next().unwrap_or("").to_ascii_lowercase())
                    .collect::<Vec<_>>()
            })
            .collect();
        // A column whose values the listing-line model does not know
        // (`wchan`, `lstart`, `label`, `cgroup`, `env`) may hold a
        // filter's match: the pid is not read (review s21 U2).
        const COMMAND: &[&str] = &["args", "cmd", "command", "comm", "ucmd", "ucomm", "exe"];
        if columns
            .iter()
            .any(|c| !PS_WORD_COLUMNS.contains(&c.as_str()) && !COMMAND.contains(&c.as_str()))
        {
            return None;
        }
        let at = columns.iter().position(|c| c == "pid")?;
        if columns.len() == 1 {
            return Some(0);
        }
        return columns[..at]
            .iter()
            .all(|c| PS_WORD_COLUMNS.contains(&c.as_str()))
            .then_some(at + 1);
    }
    // Formats that move the pid or put a label first.
    if letters.contains(['l', 'j', 'v', 's', 'X', 'Z', 'M', 'y', 'o', 'O']) {
        return None;
    }
    if letters.contains(['f', 'F', 'U']) {
        return Some(2);
    }
    Some(1)
}

/// What a stage reading a lookup's output (`flow`) writes: a filter that
/// keeps whole lines the check reads ([`filter_narrows`], also `grep -v`
/// of one pattern, which only drops lines), `awk` printing the pid field
/// alone (`{print $2}` of `ps aux`, after a condition [`filter_narrows`]
/// reads), `head`/`tail -n N`, `sort -n`/`-r`/`-u`, `uniq`, `tac` and
/// `cat` of their input. Anything else (`sed s/…/`, `awk '{print -1}'`,
/// `tr`, `cut`, `xargs echo`) prints what the check does not model: no
/// longer a lookup's pids (review s21 U9).
pub(super) fn keeps_pids(name: &str, args: &[Field], flow: PidFlow) -> Option<PidFlow> {
    let texts: Vec<String> = args.iter().map(Field::text).collect();
    if args.iter().any(Field::is_dynamic) {
        return None;
    }
    let narrowed = PidFlow {
        col: flow.col,
        narrow: true,
    };
    match name {
        "grep" | "egrep" | "fgrep" => {
            if filter_narrows(name, args) {
                return Some(narrowed);
            }
            let inverted: Vec<Field> = args.iter().filter(|a| a.text() != "-v").cloned().collect();
            (inverted.len() + 1 == args.len() && filter_narrows(name, &inverted)).then_some(flow)
        }
        "sed" => filter_narrows(name, args).then_some(narrowed),
        "awk" | "gawk" | "mawk" | "nawk" => {
            let [program] = texts.as_slice() else {
                return None;
            };
            let program = program.trim();
            let (condition, action) = match program.find('{') {
                Some(k) => (program[..k].trim(), program[k..].trim()),
                None => (program, ""),
            };
            let printed = action
                .strip_prefix('{')
                .and_then(|a| a.strip_suffix('}'))
                .map(|a| a.trim().trim_end_matches(';').trim())
                .and_then(|a| a.strip_prefix("print"))
                .map(str::trim);
            let col = match (action.is_empty(), printed) {
                (true, _) | (false, Some("" | "$0")) => flow.col,
                (false, Some(field)) => {
                    let k: usize = field.strip_prefix('$')?.parse().ok()?;
                    if k == flow.col.max(1) { 0 } else { return None }
                }
                (false, None) => return None,
            };
            if condition.is_empty() {
                Some(PidFlow { col, ..flow })
            } else {
                awk_program_narrows(condition).then_some(PidFlow { col, narrow: true })
            }
        }
        "head" | "tail" => {
            let count = |t: &str| {
                let t = t.strip_prefix('+').unwrap_or(t);
                !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit())
            };
            let mut i = 0;
            while let Some(t) = texts.get(i) {
                i += 1;
                let ok = match t.as_str() {
                    "-n" | "--lines" => {
                        texts.get(i).is_some_and(|v| count(v)) && {
                            i += 1;
                            true
                        }
                    }
                    "-q" | "--quiet" | "--silent" => true,
                    _ => t
                        .strip_prefix("--lines=")
                        .or_else(|| t.strip_prefix("-n"))
                        .or_else(|| t.strip_prefix('-'))
                        .is_some_and(count),
                };
                if !ok {
                    return None;
                }
            }
            Some(flow)
        }
        "sort" => texts
            .iter()
            .all(|t| {
                t.len() > 1
                    && t.strip_prefix('-')
                        .is_some_and(|l| l.chars().all(|c| "nrugh".contains(c)))
            })
            .then_some(flow),
        "uniq" | "tac" | "cat" => texts.iter().all(|t| t == "-").then_some(flow),
        _ => None,
    }
}

/// What pids from a process listing no filter narrowed may be.
pub(super) const UNNARROWED: &str = "pids from a process listing that no filter the check reads narrows (every process, or \
                          those a program the check does not read picks: toolvet's hooks among them)";

/// What pids `xargs kill` (`parallel kill`) reads may be when its input
/// is not a proven-narrow lookup's ([`PidFlow::proven`]).
pub(super) const INPUT_PIDS: &str = "the pids `xargs` reads, which are not the output of a narrow process lookup (`seq`, a \
                          file, a computed value: -1 or every pid)";

/// Whether a process listing selects some processes by a pattern, name,
/// pid or file the check reads (`pgrep node`, `pidof x`, `ps -C x`, `ps -p
/// PID`, `lsof FILE`), rather than every process or every process of a
/// user (`pgrep -u alice`, `ps -eo pid=`, `pgrep -v x`) (review s18 R4).
/// A selection only known at run time (`pgrep -x "$(ls ~/.cargo/bin |
/// head -1)"`, `pidof "$X"`, `ps -C "$X"`, `ps -p "$(seq -s, 1 20000)"`)
/// may be toolvet's name or every pid: the listing is wide, as `pkill`
/// with the same selection is held (review s21 U13).
pub(super) fn listing_selects(name: &str, args: &[Field], place: &Place<'_>) -> bool {
    let texts: Vec<String> = args.iter().map(Field::text).collect();
    // (`$$`, the shell's own pid: its children are its background jobs.)
    if matches!(name, "pgrep" | "pidof" | "ps" | "lsof" | "fuser")
        && args.iter().any(|a| a.is_dynamic() && a.text() != "$$")
    {
        return false;
    }
    match name {
        "pgrep" => {
            let p = getopt::parse(&PGREP, &without_procps_signal(args));
            !p.has("inverse")
                && (!p.operands.is_empty() || ["parent", "pidfile"].iter().any(|o| p.has(o)))
        }
        "pidof" => texts.iter().any(|t| !t.starts_with('-')),
        "fuser" => fuser_narrows(args, place),
        "lsof" => lsof_narrows(args, place),
        // ps's selections add up (`ps -e -C bash` lists every process) and
        // `-N` inverts them: narrowed only by a name or pid selection with
        // no other selection beside it (review s19 S3).
        "ps" => {
            let given = |opts: &[&str]| {
                texts.iter().any(|t| {
                    opts.iter().any(|o| {
                        t == o
                            || (o.len() == 2 && t.starts_with(o))
                            || t.starts_with(&format!("{o}="))
                    })
                })
            };
            // BSD options come first, without a dash (`ps ax`, `ps aux`).
            let bsd_wide = texts.first().is_some_and(|t| {
                !t.starts_with('-')
                    && t.chars().all(|c| c.is_ascii_alphabetic())
                    && t.contains(['a', 'x', 'g'])
            });
            given(&["-C", "-p", "-q", "--pid", "--quick-pid"])
                && !bsd_wide
                && !given(&[
                    "-e",
                    "-A",
                    "-a",
                    "-d",
                    "-N",
                    "--deselect",
                    "-u",
                    "-U",
                    "--user",
                    "-g",
                    "-G",
                    "--group",
                    "-s",
                    "--sid",
                    "-t",
                    "--tty",
                    "--ppid",
                    "-x",
                ])
        }
        // A filter of process entries (`grep x /proc/*/cmdline`).
        _ => filter_narrows(name, args),
    }
}

/// Where a file a lookup names is read from: the call's working
/// directory (when known) and toolvet's state paths.
pub(super) struct Place<'a> {
    pub(super) cwd: Option<&'a str>,
    pub(super) state: &'a [String],
}

/// Directories whose files every process, toolvet's hooks among them,
/// may have open or mapped: shared libraries, the dynamic loader,
/// programs, locales and fonts, devices, `/proc`, system configuration.
const MAPPED_DIRS: &[&str] = &[
    "/lib", "/lib32", "/lib64", "/libx32", "/usr", "/bin", "/sbin", "/etc", "/dev", "/proc",
    "/sys", "/run", "/opt", "/snap", "/nix", "/var/lib",
];

/// Whether a file operand of lsof or fuser names a file only some
/// processes use (review s19 S8, s21 U12): a regular file as far as its
/// text says (a last component with an extension, `app.log`,
/// `server.sock`; not `/`, a directory, `~`, `.`), under the call's
/// working directory or `/tmp` (no `..`), and not a file every process
/// may have mapped or open: a shared object (`*.so`, `*.so.N`), anything
/// under the system's library, program, device or configuration
/// directories ([`MAPPED_DIRS`], also when the working directory is one
/// of them), or toolvet's state and policy. `lsof -t
/// /usr/lib/x86_64-linux-gnu/libc.so.6` lists every dynamically linked
/// process, toolvet's hooks among them.
fn names_regular_file(f: &Field, place: &Place<'_>) -> bool {
    let Some(t) = f.static_text() else {
        return false;
    };
    let last = t.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    let regular = f.first_glob().is_none()
        && !t.ends_with('/')
        && last.len() > 1
        && !last.starts_with('.')
        && last.contains('.');
    let shared_object = last.ends_with(".so") || last.contains(".so.");
    let path = if t.starts_with('/') {
        paths::normalize_abs(&t)
    } else {
        match place.cwd {
            Some(c) if !t.starts_with('~') => paths::normalize_abs(&format!("{c}/{t}")),
            _ => return false,
        }
    };
    let under = |dir: &str| path.starts_with(&format!("{}/", dir.trim_end_matches('/')));
    regular
        && !shared_object
        && !t.split('/').any(|c| c == "..")
        && (under("/tmp") || place.cwd.is_some_and(under))
        && !MAPPED_DIRS.iter().any(|d| under(d))
        && !place.state.iter().any(|s| path == *s || under(s))
}

/// Whether `lsof` selects some processes only (review s19 S8): every
/// selection (lsof ORs them) is a port (`-i :8080`, `-ti:8080`, `-i
/// tcp:3000`), a pid list (`-p 123,456`, no `^` exclusion), a command
/// prefix (`-c node`, not empty or a `/regex/`) or a regular file; the
/// other letters are output flags (`-t`, `-n`, `-P`, `-l`, `-w`, `-b`).
/// Anything else (`-u`, `+D DIR`, `/`, a directory, `-c ''`) is wide.
fn lsof_narrows(args: &[Field], place: &Place<'_>) -> bool {
    let mut selected = false;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        let t = a.text();
        if a.is_dynamic() {
            return false;
        }
        let Some(letters) = t
            .strip_prefix('-')
            .filter(|l| !l.is_empty() && !l.starts_with('-'))
        else {
            if t.starts_with(['-', '+']) || !names_regular_file(a, place) {
                return false;
            }
            selected = true;
            continue;
        };
        for (k, c) in letters.char_indices() {
            match c {
                't' | 'n' | 'P' | 'l' | 'w' | 'b' | 'V' => {}
                'i' | 'p' | 'c' => {
                    let joined = &letters[k + 1..];
                    let value = if joined.is_empty() {
                        i += 1;
                        match args.get(i - 1) {
                            Some(v) if !v.is_dynamic() => v.text(),
                            _ => return false,
                        }
                    } else {
                        joined.to_string()
                    };
                    let ok = match c {
                        'i' => value.rsplit_once(':').is_some_and(|(_, port)| {
                            !port.is_empty() && port.bytes().all(|b| b.is_ascii_alphanumeric())
                        }),
                        'p' => {
                            !value.is_empty()
                                && value.bytes().all(|b| b.is_ascii_digit() || b == b',')
                        }
                        // A command prefix of toolvet's name (`-c too`)
                        // selects the hooks.
                        _ => {
                            !value.is_empty()
                                && !value.starts_with(['^', '/'])
                                && !"toolvet".starts_with(&value.to_ascii_lowercase())
                        }
                    };
                    if !ok {
                        return false;
                    }
                    selected = true;
                    break;
                }
                _ => return false,
            }
        }
    }
    selected
}

/// Whether `fuser` (listing, not `-k`) selects some processes only
/// (review s19 S8): ports (`8080/tcp`, `-n tcp 8080`) or regular files;
/// not `-m`/`-M` (a filesystem), `/` or a directory.
fn fuser_narrows(args: &[Field], place: &Place<'_>) -> bool {
    let texts: Vec<String> = args.iter().map(Field::text).collect();
    let mut ports = false;
    let mut names = Vec::new();
    let mut i = 0;
    while let Some(t) = texts.get(i) {
        i += 1;
        match t.as_str() {
            "--mount" | "--ismountpoint" => return false,
            "--namespace" => {
                ports |= texts.get(i).is_some_and(|v| v != "file");
                i += 1;
            }
            _ if t.starts_with("--") => {}
            _ if t.len() > 1 && t.starts_with('-') && !signal_word(t, true) => {
                for c in t[1..].chars() {
                    match c {
                        'm' | 'c' | 'M' => return false,
                        'n' => {
                            ports |= texts.get(i).is_some_and(|v| v != "file");
                            i += 1;
                        }
                        _ => {}
                    }
                }
            }
            _ if t.starts_with('-') => {}
            _ => names.push(i - 1),
        }
    }
    let port = |n: &str| {
        n.split_once('/').is_some_and(|(p, proto)| {
            matches!(proto, "tcp" | "udp")
                && p.split(',')
                    .next()
                    .is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        })
    };
    !names.is_empty()
        && names.iter().all(|&k| {
            !args[k].is_dynamic()
                && (ports || port(&texts[k]) || names_regular_file(&args[k], place))
        })
}

/// Whether a stage after a process listing keeps only the processes a
/// pattern the check reads selects. An allow-list of forms the reader
/// fully understands (review s19 S8), each with one pattern that cannot
/// match the empty string ([`narrowing_regex`]; whether it may match a
/// hook is judged apart, by [`may_select_hook`]):
/// - grep (`egrep`, `fgrep`) with one pattern (an operand or one `-e`)
///   and only options that keep whole matching lines (`-E`, `-F`, `-G`,
///   `-i`, `-w`, `-x`, `-m`, `-q`, `-s`, `--color`), not `-P`;
/// - awk (`-F` only) whose whole program is [`awk_program_narrows`]:
///   `/RE/`, `$N ~ /RE/`, `$N == "TEXT"` (`&&` others), alone or before
///   one `{ print … }` of fields;
/// - `sed -n` (`-E`/`-r` too) whose one script is `/RE/p`.
///
/// Anything else (`grep -v`, `-z`, `-C N`, `-c`, several patterns; awk
/// `||`, ranges, `RS=`; sed `!p`, `p;p`, ranges; perl, python, jq,
/// `head`) leaves the listing as wide as it was (review s18 R4).
pub(super) fn filter_narrows(name: &str, args: &[Field]) -> bool {
    match name {
        "grep" | "egrep" | "fgrep" => {
            let p = getopt::parse(&GREP, args);
            const KEEPS_LINES: &[&str] = &[
                "extended-regexp",
                "fixed-strings",
                "basic-regexp",
                "regexp",
                "ignore-case",
                "no-ignore-case",
                "y",
                "word-regexp",
                "line-regexp",
                "max-count",
                "quiet",
                "silent",
                "no-messages",
                "color",
                "colour",
                "line-buffered",
                "text",
            ];
            if !p.problems.is_empty() || p.found.iter().any(|f| !KEEPS_LINES.contains(&f.opt.name))
            {
                return false;
            }
            let regexps: Vec<&Field> = p.values("regexp").collect();
            let pattern = match (regexps.as_slice(), p.operands.first()) {
                ([one], _) => *one,
                ([], Some(&k)) => &args[k],
                _ => return false,
            };
            // A pattern only known at run time is not read.
            let Some(pattern) = pattern.static_text() else {
                return false;
            };
            // The last of -E/-F/-G counts; `egrep` is `-E`, `fgrep` `-F`.
            let dialect = p
                .found
                .iter()
                .rev()
                .map(|f| f.opt.name)
                .find(|n| matches!(*n, "extended-regexp" | "fixed-strings" | "basic-regexp"))
                .unwrap_or(match name {
                    "egrep" => "extended-regexp",
                    "fgrep" => "fixed-strings",
                    _ => "basic-regexp",
                });
            !pattern.contains('\n')
                && match dialect {
                    "fixed-strings" => !pattern.is_empty(),
                    "extended-regexp" => narrowing_regex(&pattern),
                    _ => narrowing_regex(&bre_to_ere(&pattern)),
                }
        }
        "awk" | "gawk" | "mawk" | "nawk" => {
            let p = getopt::parse(&AWK, args);
            if !p.problems.is_empty() || p.found.iter().any(|f| f.opt.name != "field-separator") {
                return false;
            }
            p.operands
                .first()
                .and_then(|&k| args[k].static_text())
                .is_some_and(|program| awk_program_narrows(&program))
        }
        "sed" => {
            let p = getopt::parse(&SED, args);
            const FLAGS: &[&str] = &["quiet", "silent", "regexp-extended", "r", "expression"];
            if !p.problems.is_empty()
                || p.found.iter().any(|f| !FLAGS.contains(&f.opt.name))
                || !(p.has("quiet") || p.has("silent"))
            {
                return false;
            }
            let expressions: Vec<&Field> = p.values("expression").collect();
            let script = match (expressions.as_slice(), p.operands.first()) {
                ([one], _) => *one,
                ([], Some(&k)) => &args[k],
                _ => return false,
            };
            let Some(script) = script.static_text() else {
                return false;
            };
            let extended = p.has("regexp-extended") || p.has("r");
            script
                .trim()
                .strip_prefix('/')
                .and_then(|r| r.strip_suffix("/p"))
                .is_some_and(|re| {
                    !re.contains('/')
                        && narrowing_regex(&if extended {
                            re.to_string()
                        } else {
                            bre_to_ere(re)
                        })
                })
        }
        _ => false,
    }
}

/// Whether extended regex `re` is read and cannot match the empty
/// string (a pattern that can selects every line: `(bash)?`, `x*`).
fn narrowing_regex(re: &str) -> bool {
    ere_hir(re).is_some_and(|h| h.properties().minimum_len().is_some_and(|n| n > 0))
}

/// Whether awk program `program` is only a selection of lines the reader
/// models: a condition `/RE/`, `$N ~ /RE/` or `$N == "TEXT"`, and others
/// joined by `&&` that select so or only drop lines (`!/RE/`, `$N !~
/// /RE/`, `$N != "TEXT"`), alone or before `{ print … }` of fields and
/// strings (review s19 S8).
fn awk_program_narrows(program: &str) -> bool {
    let program = program.trim();
    let (condition, action) = match program.find('{') {
        Some(k) => (program[..k].trim(), Some(program[k..].trim())),
        None => (program, None),
    };
    let action_ok = action.is_none_or(|a| {
        a.strip_prefix('{')
            .and_then(|a| a.strip_suffix('}'))
            .map(str::trim)
            .and_then(|a| a.strip_prefix("print"))
            .is_some_and(|rest| {
                rest.is_empty()
                    || (rest.starts_with(' ')
                        && rest
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || " $,\"_".contains(c)))
            })
    });
    let field = |t: &str| {
        t.trim()
            .strip_prefix('$')
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    let regex = |t: &str| {
        t.trim()
            .strip_prefix('/')
            .and_then(|r| r.strip_suffix('/'))
            .is_some_and(|re| !re.contains('/') && narrowing_regex(re))
    };
    let string = |t: &str| {
        let t = t.trim();
        t.len() > 2
            && t.starts_with('"')
            && t.ends_with('"')
            && !t[1..t.len() - 1].contains(['"', '\\'])
    };
    let selects = |term: &str| {
        regex(term)
            || term
                .split_once('~')
                .is_some_and(|(l, r)| field(l) && regex(r))
            || term
                .split_once("==")
                .is_some_and(|(l, r)| field(l) && string(r))
    };
    // A term that only drops lines (`!/awk/`, `$1 != "x"`): any regex.
    let drops = |term: &str| {
        let any_regex = |t: &str| {
            t.trim()
                .strip_prefix('/')
                .and_then(|r| r.strip_suffix('/'))
                .is_some_and(|re| !re.contains('/'))
        };
        term.trim().strip_prefix('!').is_some_and(any_regex)
            || term
                .split_once("!~")
                .is_some_and(|(l, r)| field(l) && any_regex(r))
            || term
                .split_once("!=")
                .is_some_and(|(l, r)| field(l) && string(r))
    };
    // One selecting term, and any others joined by `&&` select or drop.
    let terms: Vec<&str> = condition.split("&&").collect();
    let condition_ok =
        terms.iter().any(|t| selects(t)) && terms.iter().all(|t| selects(t) || drops(t));
    action_ok && condition_ok
}

/// Whether file operand `f` of a filter is a process's entry under
/// `/proc` (`/proc/*/cmdline`, `$p/cmdline`, `/proc/$p/status`): the
/// filter then picks processes, as one of a `ps` listing does.
pub(super) fn process_file(f: &str) -> bool {
    f.starts_with("/proc")
        || ["cmdline", "/comm", "/status", "/stat", "/environ"]
            .iter()
            .any(|w| f.contains(w) && f.contains('$'))
}
