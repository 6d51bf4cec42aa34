//! The processes a command attaches to or acts on by pid: debuggers
//! (`gdb`, `lldb`, `gdbserver`), `criu`, and the other programs given pids.

use super::signals::option_values;
use super::*;

/// Whether debugger command text (`att PID`, `process attach -p PID`,
/// `pro att -n NAME`) attaches to a running process, with the words
/// after the attach word. Commands are abbreviated by any unique prefix
/// (gdb `att`, lldb `pro at`): read conservatively, every prefix of
/// `attach` of two letters or more, and `process` (any prefix of two
/// letters or more) followed by a prefix of `attach` (review s16 P2).
fn debugger_attach(text: &str) -> Option<Vec<String>> {
    for command in text.split(['\n', ';']) {
        let words: Vec<String> = command
            .split_whitespace()
            .map(str::to_ascii_lowercase)
            .collect();
        let Some(first) = words.first() else {
            continue;
        };
        let first = first.trim_start_matches(['"', '\'']);
        let is_prefix = |w: &str, of: &str, min: usize| w.len() >= min && of.starts_with(w);
        if is_prefix(first, "attach", 2) || first.ends_with("-attach") {
            return Some(words[1..].to_vec());
        }
        if is_prefix(first, "process", 2) && words.get(1).is_some_and(|w| is_prefix(w, "attach", 1))
        {
            return Some(words[2..].to_vec());
        }
    }
    None
}

/// gdb's options (gdb/main.c `long_options`, read with
/// `getopt_long_only(argc, argv, "", …)`: every option is long, after
/// one dash or two, by unique prefix: `-comm=F`, `--comm F`, `-pi PID`,
/// `-ev CMD`). gdb stops reading options at `--args`: what follows is the
/// program and its arguments. cgdb passes its options on to gdb.
pub(crate) const GDB: Spec = Spec {
    opts: &[
        long("tui", '\0', Takes::No),
        long("dbx", '\0', Takes::No),
        long("readnow", '\0', Takes::No),
        long("readnever", '\0', Takes::No),
        long("r", '\0', Takes::No),
        long("q", '\0', Takes::No),
        long("quiet", '\0', Takes::No),
        long("silent", '\0', Takes::No),
        long("nh", '\0', Takes::No),
        long("nx", '\0', Takes::No),
        long("n", '\0', Takes::No),
        long("batch-silent", '\0', Takes::No),
        long("batch", '\0', Takes::No),
        long("fullname", '\0', Takes::No),
        long("f", '\0', Takes::No),
        long("annotate", '\0', Takes::Value),
        long("help", '\0', Takes::No),
        long("se", '\0', Takes::Value),
        long("symbols", '\0', Takes::Value),
        long("s", '\0', Takes::Value),
        long("exec", '\0', Takes::Value),
        long("e", '\0', Takes::Value),
        long("core", '\0', Takes::Value),
        long("c", '\0', Takes::Value),
        long("pid", '\0', Takes::Value),
        long("p", '\0', Takes::Value),
        long("command", '\0', Takes::Value),
        long("eval-command", '\0', Takes::Value),
        long("version", '\0', Takes::No),
        long("configuration", '\0', Takes::No),
        long("x", '\0', Takes::Value),
        long("ex", '\0', Takes::Value),
        long("init-command", '\0', Takes::Value),
        long("init-eval-command", '\0', Takes::Value),
        long("ix", '\0', Takes::Value),
        long("iex", '\0', Takes::Value),
        long("early-init-command", '\0', Takes::Value),
        long("early-init-eval-command", '\0', Takes::Value),
        long("eix", '\0', Takes::Value),
        long("eiex", '\0', Takes::Value),
        long("ui", '\0', Takes::Value),
        long("interpreter", '\0', Takes::Value),
        long("i", '\0', Takes::Value),
        long("directory", '\0', Takes::Value),
        long("d", '\0', Takes::Value),
        long("data-directory", '\0', Takes::Value),
        long("D", '\0', Takes::Value),
        long("cd", '\0', Takes::Value),
        long("tty", '\0', Takes::Value),
        long("baud", '\0', Takes::Value),
        long("b", '\0', Takes::Value),
        long("nw", '\0', Takes::No),
        long("nowindows", '\0', Takes::No),
        long("w", '\0', Takes::No),
        long("windows", '\0', Takes::No),
        long("statistics", '\0', Takes::No),
        long("write", '\0', Takes::No),
        long("args", '\0', Takes::No),
        long("l", '\0', Takes::Value),
        long("return-child-result", '\0', Takes::No),
    ],
    permute: true,
    long_only: true,
};

/// gdb options whose value is a file of commands, and whose value is one
/// command.
pub(crate) const GDB_FILES: &[&str] = &[
    "command",
    "x",
    "init-command",
    "ix",
    "early-init-command",
    "eix",
];

pub(crate) const GDB_COMMANDS: &[&str] = &[
    "eval-command",
    "ex",
    "init-eval-command",
    "iex",
    "early-init-eval-command",
    "eiex",
];

/// lldb's driver options (lldb/tools/driver/Options.td, LLVM's option
/// table: `--NAME` or `-NAME`, the value the next word; short aliases).
/// Read by the getopt reader, which also takes prefixes and `=VALUE`: a
/// superset. Also read for `lldb-server`, whose `--attach` is then
/// ambiguous (held).
pub(crate) const LLDB: Spec = Spec {
    opts: &[
        long("attach-name", 'n', Takes::Value),
        long("attach-pid", 'p', Takes::Value),
        long("wait-for", 'w', Takes::No),
        long("batch", 'b', Takes::No),
        long("core", 'c', Takes::Value),
        long("editor", 'e', Takes::No),
        long("no-lldbinit", 'x', Takes::No),
        long("local-lldbinit", '\0', Takes::No),
        long("no-use-colors", 'X', Takes::No),
        long("file", 'f', Takes::Value),
        long("arch", 'a', Takes::Value),
        long("one-line", 'o', Takes::Value),
        long("one-line-before-file", 'O', Takes::Value),
        long("one-line-on-crash", 'k', Takes::Value),
        long("source", 's', Takes::Value),
        long("source-before-file", 'S', Takes::Value),
        long("source-on-crash", 'K', Takes::Value),
        long("source-quietly", 'Q', Takes::No),
        long("script-language", 'l', Takes::Value),
        long("python-path", 'P', Takes::No),
        long("print-script-interpreter-info", '\0', Takes::No),
        long("debug", 'd', Takes::No),
        long("help", 'h', Takes::No),
        long("version", 'v', Takes::No),
        long("repl", 'r', Takes::Optional),
        long("repl-language", 'R', Takes::Value),
        long("capture", '\0', Takes::No),
        long("capture-path", '\0', Takes::Value),
    ],
    permute: true,
    long_only: true,
};

/// lldb options whose value is a file of commands, and whose value is
/// one command.
pub(crate) const LLDB_FILES: &[&str] = &["source", "source-before-file", "source-on-crash"];

pub(crate) const LLDB_COMMANDS: &[&str] =
    &["one-line", "one-line-before-file", "one-line-on-crash"];

/// Whether debugger command text runs a file of commands (gdb `source
/// F`, `so F`; lldb `command source F`, `comm so F`, `command script
/// import F.py`), with the file. Commands are abbreviated by unique
/// prefixes: read conservatively, any prefix of two letters or more
/// (review s17 Q15).
fn debugger_source(text: &str) -> Option<String> {
    let is_prefix = |w: &str, of: &str| w.len() >= 2 && of.starts_with(w);
    for command in text.split(['\n', ';']) {
        let words: Vec<String> = command
            .split_whitespace()
            .map(|w| w.trim_matches(['"', '\'']).to_ascii_lowercase())
            .collect();
        let rest = match words.as_slice() {
            [first, rest @ ..] if is_prefix(first, "source") => rest,
            [first, second, rest @ ..]
                if is_prefix(first, "command") && is_prefix(second, "source") =>
            {
                rest
            }
            [first, second, third, rest @ ..]
                if is_prefix(first, "command")
                    && is_prefix(second, "script")
                    && is_prefix(third, "import") =>
            {
                rest
            }
            _ => continue,
        };
        let file = rest.iter().find(|w| !w.starts_with('-'));
        return Some(file.map_or_else(|| "{}".into(), String::clone));
    }
    None
}

/// The processes gdb/lldb attach to: `-p PID` (`--pid`, `-pi`,
/// `--attach-pid`, `-n NAME`), an `attach` command given with `-ex`/`-o`
/// (any spelling of the option, by the program's table), gdb's second
/// operand when it is a pid. With no program to start, a command file
/// (`-x F`, `--comm=F`, `-ex 'source F'`, lldb `-S F`, `-o 'command
/// source F'`) may attach, and words the table cannot place may be
/// any of these: held as a process the check cannot name (review s16
/// P2, s17 Q15).
fn debugger_pids(name: &str, args: &[Field]) -> Vec<String> {
    let lldb = name.starts_with("lldb");
    let (spec, file_opts, command_opts, pid_opts): (&Spec, &[&str], &[&str], &[&str]) = if lldb {
        (
            &LLDB,
            LLDB_FILES,
            LLDB_COMMANDS,
            &["attach-pid", "attach-name"],
        )
    } else {
        (&GDB, GDB_FILES, GDB_COMMANDS, &["pid", "p"])
    };
    let mut p = getopt::parse(spec, args);
    let mut program_args = false;
    if let Some(k) = p.found.iter().find(|f| f.opt.name == "args").map(|f| f.at) {
        // gdb stops at `--args`: the program and its arguments follow.
        program_args = k + 1 < args.len();
        p = getopt::parse(spec, &args[..k]);
    }
    let mut pids = option_values(&p, pid_opts);
    let mut files = option_values(&p, file_opts);
    for command in option_values(&p, command_opts) {
        if let Some(rest) = debugger_attach(&command) {
            let pid = rest.iter().find(|w| !w.starts_with('-'));
            pids.push(pid.map_or_else(|| "{}".into(), String::clone));
        } else if command.to_ascii_lowercase().contains("attach") {
            // `-ex 'python gdb.execute("attach PID")'`: not read.
            pids.push("{}".into());
        }
        files.extend(debugger_source(&command));
    }
    let operands: Vec<String> = p.operands.iter().map(|&k| args[k].text()).collect();
    let program = !operands.is_empty() || program_args || p.has("file");
    if !program && pids.is_empty() {
        // The file's commands are all it runs, and may attach (`attach
        // PID`); the check cannot read them.
        if let Some(file) = files.first() {
            pids.push(format!("(whatever the commands in {file} attach to)"));
        } else if let Some(problem) = p.problems.first() {
            pids.push(format!("(whatever `{name}` attaches to: {problem})"));
        }
    }
    // `gdb PROGRAM PID`: the second operand is a pid (or core file).
    if !lldb
        && let Some(second) = operands.get(1)
        && (second.bytes().all(|b| b.is_ascii_digit()) || {
            // `gdb ./prog "$core"` is a core file; a pid lookup
            // (`$PPID`, `$(pgrep …)`, `$pid`) is a process.
            let l = second.to_ascii_lowercase();
            second.contains(['$', '`'])
                && ["pid", "pgrep", "$$", "ps "].iter().any(|w| l.contains(w))
        })
    {
        pids.push(second.clone());
    }
    pids
}

/// The pids a tracer or limiter given by `spec` acts on: the values of
/// its `pid_opts`; with none, a word its table cannot place may be one of
/// them (or hide one in a cluster), so the process is one the check
/// cannot name (held).
fn table_pids(name: &str, spec: &Spec, args: &[Field], pid_opts: &[&str]) -> Vec<String> {
    let p = getopt::parse(spec, args);
    let mut pids = option_values(&p, pid_opts);
    if pids.is_empty()
        && let Some(problem) = p.problems.first()
    {
        pids.push(format!("(whatever `{name}` attaches to: {problem})"));
    }
    pids
}

/// gdbserver (gdbserver(1): `gdbserver [OPTIONS] COMM PROG [ARGS]` or
/// `--attach COMM PID`; options before COMM).
const GDBSERVER: Spec = Spec {
    opts: &[
        long("attach", '\0', Takes::No),
        long("multi", '\0', Takes::No),
        long("once", '\0', Takes::No),
        long("wrapper", '\0', Takes::Value),
        long("debug", '\0', Takes::Optional),
        long("debug-file", '\0', Takes::Value),
        long("debug-format", '\0', Takes::Value),
        long("remote-debug", '\0', Takes::No),
        long("event-loop-debug", '\0', Takes::No),
        long("disable-packet", '\0', Takes::Optional),
        long("disable-randomization", '\0', Takes::No),
        long("no-disable-randomization", '\0', Takes::No),
        long("startup-with-shell", '\0', Takes::No),
        long("no-startup-with-shell", '\0', Takes::No),
        long("selftest", '\0', Takes::Optional),
        long("version", '\0', Takes::No),
        long("help", '\0', Takes::No),
    ],
    permute: false,
    long_only: false,
};

/// criu's options that matter to `dump`/`pre-dump` (criu(8)): `-t`/`--tree
/// PID`, and the short options that take a value (`-D DIR`, `-W DIR`,
/// `-o FILE`, `-L DIR`) or not (`-v[N]`, `-R`, `-s`, `-j`, `-d`).
const CRIU: Spec = Spec {
    opts: &[
        long("tree", 't', Takes::Value),
        long("images-dir", 'D', Takes::Value),
        long("work-dir", 'W', Takes::Value),
        long("log-file", 'o', Takes::Value),
        long("libdir", 'L', Takes::Value),
        // `-v[N]` (criu's optional level) read as a flag: `-vt PID` then
        // names the tree, a superset of what criu reads.
        long("verbosity", 'v', Takes::No),
        long("leave-running", 'R', Takes::No),
        long("leave-stopped", 's', Takes::No),
        long("shell-job", 'j', Takes::No),
        long("restore-detached", 'd', Takes::No),
        long("tcp-established", '\0', Takes::No),
        long("file-locks", '\0', Takes::No),
        long("ext-unix-sk", '\0', Takes::Optional),
        long("manage-cgroups", '\0', Takes::Optional),
        long("pidfile", '\0', Takes::Value),
        long("prev-images-dir", '\0', Takes::Value),
        long("track-mem", '\0', Takes::No),
        long("unprivileged", '\0', Takes::No),
        long("display-stats", '\0', Takes::No),
        long("help", 'h', Takes::No),
        long("version", 'V', Takes::No),
    ],
    permute: true,
    long_only: false,
};

/// The pid operands `name args` acts on (attach, trace, limit,
/// reschedule), or none when it starts a new program instead.
pub(super) fn process_pids(name: &str, args: &[Field]) -> Vec<String> {
    let texts: Vec<String> = args.iter().map(Field::text).collect();
    let mut pids = Vec::new();
    match name {
        // Read by each program's table (review s16 P2, s17 Q3): `strace
        // -fp PID`, `-fqp$PID`, `--att=PID`, `prlimit --pi PID`, `cpulimit
        // -p PID`, `-e EXE`, `-P PATH` (review s16 P6).
        "strace" => pids = table_pids(name, &STRACE, args, &["p", "attach"]),
        "ltrace" => pids = table_pids(name, &LTRACE, args, &["p", "pid", "attach"]),
        "prlimit" => pids = table_pids(name, &PRLIMIT, args, &["pid"]),
        "cpulimit" => pids = table_pids(name, &CPULIMIT, args, &["pid", "exe", "path"]),
        // `gdbserver --attach COMM PID`: the last operand.
        "gdbserver" => {
            let p = getopt::parse(&GDBSERVER, args);
            if p.has("attach") || !p.problems.is_empty() {
                pids.push(texts.last().cloned().unwrap_or_else(|| "{}".into()));
            }
        }
        "gdb" | "cgdb" | "lldb" | "lldb-server" => pids = debugger_pids(name, args),
        "gcore" => {
            let mut i = 0;
            while let Some(t) = texts.get(i) {
                if t == "-o" {
                    i += 1;
                } else if !t.starts_with('-') {
                    pids.push(t.clone());
                }
                i += 1;
            }
        }
        // `criu dump -t PID`, `-t$PID`, `-vt PID`, `--tr=PID`.
        "criu" => pids = table_pids(name, &CRIU, args, &["tree"]),
        "reptyr" => {
            if let Some(t) = texts.iter().rfind(|t| !t.starts_with('-')) {
                pids.push(t.clone());
            }
        }
        "renice" => {
            let mut by_pid = true;
            let mut i = 0;
            while let Some(t) = texts.get(i) {
                match t.as_str() {
                    "-n" | "--priority" | "--relative" => i += 1,
                    "-p" | "--pid" => by_pid = true,
                    "-g" | "--pgrp" | "-u" | "--user" => by_pid = false,
                    _ if !t.starts_with('-') || t[1..].bytes().all(|b| b.is_ascii_digit()) => {
                        if by_pid && i > 0 {
                            pids.push(t.clone());
                        } else if by_pid && !t.starts_with('-') {
                            // `renice 5 PID`: the first operand is the priority.
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        // `ionice -p PID [PID…]`, `-P PGID…`: with either, every operand
        // is a pid too (review s17 Q3: `ionice -c3 --pi PID`).
        "ionice" => {
            let p = getopt::parse(&IONICE, args);
            if p.has("pid") || p.has("pgid") {
                pids = option_values(&p, &["pid", "pgid"]);
                pids.extend(p.operands.iter().map(|&k| args[k].text()));
            }
        }
        // `chrt -p [PRIO] PID`, `taskset -p [MASK] PID`: the last word is
        // the pid, read by each program's table (review s17 Q3: `chrt --id
        // --pi 0 PID`); a word the table cannot place may be `--pid`.
        "taskset" | "chrt" => {
            let p = getopt::parse(if name == "chrt" { &CHRT } else { &TASKSET }, args);
            if p.has("pid") || !p.problems.is_empty() {
                pids.push(texts.last().cloned().unwrap_or_else(|| "{}".into()));
            }
        }
        _ => {}
    }
    pids
}
