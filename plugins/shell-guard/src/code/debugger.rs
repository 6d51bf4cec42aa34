//! gdb and lldb commands, read by one allow-list reader (review s16 P2,
//! s18 R5, s19 S4 and S11).
//!
//! A debugger runs commands from many places: `-ex`/`-iex`/`-eiex` (gdb),
//! `-o`/`-O`/`-k` (lldb) values, command files (`-x F`, `-s F`, …) and its
//! standard input (a pipe, a here-string, a here-document). Every one of
//! them is read here, line by line, by [`read`]. A command passes only
//! when it is one the reader knows to inspect or run the debugged program
//! (`run`, `bt`, `info …`, `print EXPR` without a function call, `set var`,
//! a few settings, …), written exactly as the table spells it. A command
//! that runs another command is read again when its form is known (`shell`/
//! `!` and the right side of `pipe`/`|` as shell text, `with … -- CMD`,
//! `thread apply … CMD`, `taas`/`tfaas`/`faas`, `frame apply … CMD`); Python
//! is read for findings and held. Everything else — an abbreviation the
//! table does not list, `interpreter-exec`, `guile`, `source`, `define`,
//! `alias`, `eval`, `set exec-wrapper`, `set startup-with-shell`, `target`,
//! `attach`, `make`, `compile`, `call`, an expression calling a function
//! (`print system("…")`, `$_shell("…")`) — is held.
//!
//! The property an allowed command must prove (review s21 U1): every
//! expression it evaluates — `print`, `info symbol ADDR`, `list *ADDR`,
//! `break … if COND`, a numeric setting, lldb `expr`, `-a`/`-c` values —
//! has no call ([`expression_risk`]: each `(` a grouping or cast), and
//! every lldb option it is given is one a table lists as read-only.
//!
//! gdb: commands and their abbreviations from the GDB manual ("Command
//! Syntax", "Command Index") and gdb/cli/cli-cmds.c; gdb lowercases a
//! command word it does not find. lldb: the LLDB command map and its
//! default aliases (`r`, `bt`, `c`, `n`, `s`, `p`, `po`, `v`, `x`, `b`).

use crate::effects::selfstate as sso;
use crate::opts::getopt;
use crate::syntax::{Field, Output};
use crate::walk::{Analysis, Env};

/// What one debugger command does, as far as the check is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// Shell text the debugger runs (`shell CMD`, `!CMD`, `pipe … | CMD`,
    /// lldb `platform shell CMD`).
    Shell(String),
    /// Python code (`python CODE`, lldb `script CODE`): read for findings,
    /// and held.
    Python(String),
    /// The debugged program is started: with this argument text (run
    /// through a shell, as gdb's `startup-with-shell` and lldb's `run`
    /// do), or with the arguments given on the command line (`None`).
    Launch(Option<String>),
    /// The program to debug is now this path (lldb `target create PATH`):
    /// judged as the program when a command starts it.
    Program(String),
    /// A command the reader does not know to be harmless: held.
    Hold(String),
}

/// Which debugger's command language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// gdb (and cgdb, gdb-multiarch, rust-gdb…).
    Gdb,
    /// lldb.
    Lldb,
}

/// How deep `with`, `pipe`, `thread apply` may nest before the reader
/// holds the command.
const MAX_NESTING: u32 = 8;

/// The steps of debugger command text: one command a line (a line ending
/// in a backslash continues), `#` comments and blank lines skipped.
pub(crate) fn read(dialect: Dialect, text: &str) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut line = String::new();
    for raw in text.split('\n') {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        if let Some(cont) = raw.strip_suffix('\\') {
            line.push_str(cont);
            continue;
        }
        line.push_str(raw);
        let command = std::mem::take(&mut line);
        match dialect {
            Dialect::Gdb => gdb_command(&command, 0, &mut steps),
            Dialect::Lldb => lldb_command(&command, &mut steps),
        }
    }
    if !line.is_empty() {
        match dialect {
            Dialect::Gdb => gdb_command(&line, 0, &mut steps),
            Dialect::Lldb => lldb_command(&line, &mut steps),
        }
    }
    steps
}

/// What an allowed gdb command is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Starts the program: `run ARGS`.
    Launch,
    /// Takes expressions (or locations, conditions): held when they call
    /// a function.
    Expr,
    /// Takes text only (`echo`, `info`, `show`, `help`, `list`).
    Text,
    /// `set`: read by [`gdb_set`].
    Set,
    /// `thread`, `frame`: `apply` runs a command.
    Apply,
}

/// gdb's commands that only inspect or run the debugged program, with
/// the spellings accepted (the name and gdb's own aliases; other
/// abbreviations are held).
const GDB_ALLOWED: &[(&[&str], Kind)] = &[
    (&["run", "r", "start", "starti"], Kind::Launch),
    (
        &[
            "backtrace",
            "bt",
            "where",
            "print",
            "p",
            "inspect",
            "output",
            "up",
            "down",
            "up-silently",
            "down-silently",
            "break",
            "b",
            "br",
            "brea",
            "tbreak",
            "tb",
            "continue",
            "c",
            "cont",
            "fg",
            "next",
            "n",
            "step",
            "s",
            "stepi",
            "si",
            "nexti",
            "ni",
            "finish",
            "fin",
            "until",
            "u",
            "advance",
            "x",
            "display",
            "undisplay",
            "delete",
            "d",
            "disable",
            "enable",
            "condition",
            "ignore",
            "watch",
            "rwatch",
            "awatch",
            "quit",
            "q",
            "kill",
            "k",
            "detach",
            "disassemble",
            "disas",
            "del",
            "dis",
            "disa",
            "disp",
            "cond",
            "bre",
            "wat",
            "ptype",
            "whatis",
            "core-file",
            "core",
            "directory",
            "dir",
            "handle",
            // `catch throw|catch|exec|fork|syscall|signal … [if COND]`.
            "catch",
            "tcatch",
        ],
        Kind::Expr,
    ),
    (
        &[
            "info", "i", "inf", "show", "help", "h", "list", "l", "echo", "end", "commands",
            "silent", "rbreak",
        ],
        Kind::Text,
    ),
    (&["set"], Kind::Set),
    (&["thread", "frame", "f"], Kind::Apply),
];

/// gdb settings `set NAME …` may change: display and pagination only.
/// Settings that choose what runs (`exec-wrapper`, `startup-with-shell`,
/// `auto-load`, `debug-file-directory`, `environment`, `history
/// filename`, `logging file`, `python`, …) are not here: held.
const GDB_SETTINGS: &[&str] = &[
    "pagination",
    "confirm",
    "width",
    "height",
    "listsize",
    "print",
    "style",
    "verbose",
    "language",
    "disassembly-flavor",
    "breakpoint",
    "non-stop",
    "scheduler-locking",
    "step-mode",
    "backtrace",
    "max-value-size",
    "charset",
    "trace-commands",
    "can-use-hw-watchpoints",
    "disable-randomization",
    "follow-fork-mode",
    "detach-on-fork",
    "output-radix",
    "input-radix",
    "radix",
    "complaints",
    "logging",
];

fn hold(steps: &mut Vec<Step>, command: &str, why: &str) {
    steps.push(Step::Hold(format!("`{}` ({why})", command.trim())));
}

/// One gdb command line.
fn gdb_command(line: &str, depth: u32, steps: &mut Vec<Step>) {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return;
    }
    if depth > MAX_NESTING {
        return hold(steps, line, "nested too deeply to read");
    }
    if let Some(rest) = line.strip_prefix('!') {
        steps.push(Step::Shell(rest.trim().to_string()));
        return;
    }
    if let Some(rest) = line.strip_prefix('|') {
        return gdb_pipe(rest, depth, steps);
    }
    let end = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .unwrap_or(line.len());
    let word = line[..end].to_ascii_lowercase();
    let rest = line[end..].trim();
    if word.is_empty() {
        return hold(steps, line, "not a command the check reads");
    }
    let prefix_of = |of: &str, min: usize| word.len() >= min && of.starts_with(word.as_str());
    if let Some((_, kind)) = GDB_ALLOWED
        .iter()
        .find(|(names, _)| names.contains(&word.as_str()))
    {
        match kind {
            Kind::Launch => steps.push(Step::Launch((!rest.is_empty()).then(|| rest.to_string()))),
            Kind::Expr => check_expression(line, rest, steps),
            // `info symbol ADDR`, `info line *ADDR`, `list *ADDR` evaluate
            // ADDR; `echo`, `help`, `show` text is only printed.
            Kind::Text => {
                if !matches!(
                    word.as_str(),
                    "echo" | "help" | "h" | "show" | "end" | "commands" | "silent" | "rbreak"
                ) {
                    check_expression(line, rest, steps);
                }
            }
            Kind::Set => gdb_set(line, rest, steps),
            Kind::Apply => gdb_apply(&word, line, rest, depth, steps),
        }
        return;
    }
    // Commands that run other commands, read conservatively by any
    // prefix (gdb takes unique prefixes; a shorter one is ambiguous).
    if prefix_of("shell", 2) {
        steps.push(Step::Shell(rest.to_string()));
    } else if prefix_of("pipe", 3) {
        gdb_pipe(rest, depth, steps);
    } else if word == "w" || prefix_of("with", 3) {
        gdb_with(line, rest, depth, steps);
    } else if matches!(word.as_str(), "taas" | "tfaas" | "faas") {
        gdb_command(skip_apply_flags(rest), depth + 1, steps);
    } else if prefix_of("python", 2) || prefix_of("python-interactive", 7) || word == "pi" {
        steps.push(Step::Python(rest.to_string()));
        hold(steps, line, "Python code");
    } else {
        hold(
            steps,
            line,
            "not one of the commands the check reads as only inspecting or running the program",
        );
    }
}

/// `pipe [COMMAND] | SHELL`, `pipe -d DELIM COMMAND DELIM SHELL` (also
/// spelt `|`): COMMAND is a gdb command, SHELL shell text.
fn gdb_pipe(rest: &str, depth: u32, steps: &mut Vec<Step>) {
    let rest = rest.trim_start();
    let (delim, rest) = match rest.strip_prefix("-d") {
        Some(r) if r.starts_with(char::is_whitespace) => {
            let r = r.trim_start();
            let end = r.find(char::is_whitespace).unwrap_or(r.len());
            (&r[..end], &r[end..])
        }
        _ => ("|", rest),
    };
    if delim.is_empty() {
        return hold(steps, rest, "a `pipe` without its delimiter");
    }
    match rest.split_once(delim) {
        Some((command, shell)) => {
            gdb_command(command, depth + 1, steps);
            steps.push(Step::Shell(shell.trim().to_string()));
        }
        // `| SHELL`: the last command again, into SHELL.
        None => steps.push(Step::Shell(rest.trim().to_string())),
    }
}

/// `with SETTING [VALUE] [-- COMMAND]`: the setting as `set` would
/// change it, then COMMAND.
fn gdb_with(line: &str, rest: &str, depth: u32, steps: &mut Vec<Step>) {
    let words: Vec<&str> = rest.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "--");
    let setting = words[..at.unwrap_or(words.len())].join(" ");
    if setting.is_empty() {
        return hold(steps, line, "`with` without a setting");
    }
    gdb_command(&format!("set {setting}"), depth + 1, steps);
    if let Some(at) = at {
        gdb_command(&words[at + 1..].join(" "), depth + 1, steps);
    }
}

/// `set …`: a variable of the program (`set var X = 1`, `set $x = 1`,
/// `set *p = 0`), the program's arguments (`set args …`, judged as they
/// will run), or one of [`GDB_SETTINGS`].
fn gdb_set(line: &str, rest: &str, steps: &mut Vec<Step>) {
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .unwrap_or(rest.len());
    let name = rest[..end].to_ascii_lowercase();
    let value = rest[end..].trim();
    let expression = |text: &str, steps: &mut Vec<Step>| check_expression(line, text, steps);
    match name.as_str() {
        "" if rest.starts_with(['$', '*', '(']) => expression(rest, steps),
        "var" | "variable" => expression(value, steps),
        "args" => steps.push(Step::Launch(Some(value.to_string()))),
        // Where gdb looks for debug information and sources: it reads
        // files, it runs nothing (`debuginfod urls` would download: held).
        "debuginfod" => {
            let words: Vec<&str> = value.split_whitespace().collect();
            if !matches!(words.as_slice(), ["enabled", "on" | "off" | "ask"]) {
                hold(steps, line, "a debuginfod setting other than `enabled`");
            }
        }
        "substitute-path" | "sysroot" | "solib-search-path" => {}
        "logging" => {
            let sub = value.split_whitespace().next().unwrap_or("");
            if !matches!(
                sub,
                "" | "on" | "off" | "enabled" | "overwrite" | "redirect" | "debugredirect"
            ) {
                hold(steps, line, "a logging setting that names a file");
            }
        }
        // Only languages whose calls are written with `(…)`.
        "language"
            if !matches!(
                value,
                "" | "auto" | "local" | "c" | "c++" | "asm" | "minimal" | "rust"
            ) =>
        {
            hold(
                steps,
                line,
                "a language the check does not read expressions of",
            )
        }
        // Numeric settings are read as expressions (`set width $_shell(…)`).
        n if GDB_SETTINGS.contains(&n) => expression(value, steps),
        _ => hold(
            steps,
            line,
            "a setting the check does not know to be harmless",
        ),
    }
}

/// `thread [N|name|find]`, `frame [N|…]`, and their `apply … COMMAND`.
fn gdb_apply(word: &str, line: &str, rest: &str, depth: u32, steps: &mut Vec<Step>) {
    let sub = rest.split_whitespace().next().unwrap_or("");
    if sub.is_empty() || sub.starts_with(|c: char| c.is_ascii_digit()) {
        return;
    }
    let sub_lower = sub.to_ascii_lowercase();
    if "apply".starts_with(&sub_lower) {
        // `thread apply all|LIST [FLAGS] CMD`, `frame apply all|COUNT|-COUNT|level L… [FLAGS] CMD`.
        let mut r = rest[sub.len()..].trim_start();
        loop {
            let w = r.split_whitespace().next().unwrap_or("");
            let selection = w == "all"
                || w == "level"
                || (!w.is_empty()
                    && !w.starts_with("--")
                    && w.chars()
                        .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '*' | '$')));
            if !selection {
                break;
            }
            r = r[w.len()..].trim_start();
        }
        return gdb_command(skip_apply_flags(r), depth + 1, steps);
    }
    let known: &[&str] = if word == "thread" {
        &["name", "find"]
    } else {
        &["function", "level", "address", "info"]
    };
    if !known.contains(&sub_lower.as_str()) {
        hold(steps, line, "a subcommand the check does not know");
    } else {
        // `frame address ADDR`, `frame function NAME`: expressions.
        check_expression(line, &rest[sub.len()..], steps);
    }
}

/// The command after `apply`'s flags (`-q`, `-c`, `-s`, `-ascending`,
/// `--` ends them).
fn skip_apply_flags(text: &str) -> &str {
    let mut r = text.trim_start();
    while let Some(w) = r.split_whitespace().next() {
        if w == "--" {
            return r[2..].trim_start();
        }
        if !matches!(w, "-q" | "-c" | "-s" | "-ascending" | "--ascending") {
            break;
        }
        r = r[w.len()..].trim_start();
    }
    r
}

/// gdb's convenience variables an expression may read (GDB manual,
/// "Convenience Variables"); any other `$_name` may be a convenience
/// *function* (`$_shell`, `$_as_string`, …), which gdb runs: held.
const CONVENIENCE_VARIABLES: &[&str] = &[
    "$_exitcode",
    "$_exitsignal",
    "$_siginfo",
    "$_thread",
    "$_gthread",
    "$_inferior",
];

/// Why expression text is not proven free of calls, or `None` when it is
/// (review s21 U1). The property: **every `(` opens a grouping or a cast,
/// never a call**. So, held:
/// - a `(` after anything but an operator, an opening bracket, a number
///   or the start (`system(`, `$f(`, `fns[0](`, `'system'(`, `x)(`),
///   except after `sizeof`, `alignof`, `typeof`, `decltype` and `if`;
/// - a `)` followed by `(` (`(system)("…")`, `((f))(…)`, `(int)(x)`);
/// - a `$_name` that is not one of [`CONVENIENCE_VARIABLES`] (`$_shell`);
/// - in gdb, a quoted name longer than a character literal (`'system'`,
///   gdb's quoting of symbol names; lldb's clang reads it as a number);
/// - an Objective-C message (`[obj msg]`: a `[` that does not index).
///
/// A leading `/FMT` (`p/x`, `x/4i`) is skipped. Text in string literals is
/// read like the rest: more is held, nothing is missed.
fn expression_risk(text: &str, dialect: Dialect) -> Option<String> {
    const NOT_CALLS: &[&str] = &[
        "sizeof",
        "alignof",
        "_Alignof",
        "typeof",
        "__typeof__",
        "__typeof",
        "decltype",
        "if",
    ];
    let text = text.trim_start();
    let text = match text.strip_prefix('/') {
        Some(r) => r.trim_start_matches(|c: char| c.is_ascii_alphanumeric()),
        None => text,
    };
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    let mut k = 0;
    while let Some(at) = text[k..].find("$_") {
        let start = k + at;
        let end = text[start + 1..]
            .find(|c: char| !ident(c))
            .map_or(text.len(), |e| start + 1 + e);
        let name = &text[start..end];
        if name.len() > 2 && name != "$__" && !CONVENIENCE_VARIABLES.contains(&name) {
            return Some(format!(
                "`{name}`, a convenience function or variable the check does not know"
            ));
        }
        k = end.max(start + 2);
    }
    let mut quote: Option<usize> = None;
    for (i, c) in text.char_indices() {
        if c != '\'' || dialect != Dialect::Gdb {
            continue;
        }
        match quote {
            None => quote = Some(i),
            Some(open) => {
                let inner = &text[open + 1..i];
                if inner.chars().count() > 1 && !inner.starts_with('\\') {
                    return Some(format!("the quoted name `'{inner}'`"));
                }
                quote = None;
            }
        }
    }
    for (i, c) in text.char_indices() {
        let before = text[..i].trim_end();
        let prev = before.chars().last();
        match c {
            // An Objective-C message (`po [app terminate:nil]`): a
            // bracket that does not index.
            '[' if !prev.is_some_and(|p| ident(p) || p == ']' || p == ')') => {
                return Some("an Objective-C message `[…]`".to_string());
            }
            '(' => {
                let Some(p) = prev else { continue };
                if ident(p) {
                    let start = before
                        .rfind(|c: char| !(ident(c) || c == ':'))
                        .map_or(0, |k| k + 1);
                    let name = &before[start..];
                    // A number (`condition 1 (x > 2)`) is not a callee.
                    if NOT_CALLS.contains(&name) || name.starts_with(|c: char| c.is_ascii_digit()) {
                        continue;
                    }
                    return Some(format!("a call of `{name}`"));
                }
                if matches!(p, ')' | ']' | '\'' | '"') {
                    return Some(format!(
                        "a call of the value before `{}`",
                        &text[i..].chars().take(12).collect::<String>()
                    ));
                }
            }
            ')' if text[i + 1..].trim_start().starts_with('(') => {
                return Some("a call of a parenthesized value".to_string());
            }
            _ => {}
        }
    }
    None
}

/// Hold `line` when `text`, an expression it evaluates, is not proven
/// free of calls ([`expression_risk`]).
fn check_expression(line: &str, text: &str, steps: &mut Vec<Step>) {
    check_expression_in(Dialect::Gdb, line, text, steps);
}

/// [`check_expression`] for `dialect`'s expressions.
fn check_expression_in(dialect: Dialect, line: &str, text: &str, steps: &mut Vec<Step>) {
    if let Some(why) = expression_risk(text, dialect) {
        hold(
            steps,
            line,
            &format!("an expression with {why}, which may run anything"),
        );
    }
}

/// lldb's commands that only inspect or run the debugged program: a
/// command word alone, or with the subcommands listed (exact spellings,
/// lldb's default aliases included).
const LLDB_ALLOWED: &[(&str, &[&str])] = &[
    ("bt", &[]),
    ("c", &[]),
    ("continue", &[]),
    ("n", &[]),
    ("next", &[]),
    ("s", &[]),
    ("step", &[]),
    ("si", &[]),
    ("stepi", &[]),
    ("ni", &[]),
    ("nexti", &[]),
    ("finish", &[]),
    ("up", &[]),
    ("down", &[]),
    ("q", &[]),
    ("quit", &[]),
    ("exit", &[]),
    ("kill", &[]),
    ("detach", &[]),
    ("help", &[]),
    ("version", &[]),
    ("list", &[]),
    ("l", &[]),
    ("f", &[]),
    ("v", &[]),
    ("var", &[]),
    ("vo", &[]),
    ("x", &[]),
    ("p", &[]),
    ("po", &[]),
    ("print", &[]),
    ("expression", &[]),
    ("expr", &[]),
    ("di", &[]),
    ("dis", &[]),
    ("disassemble", &[]),
    ("b", &[]),
    ("tbreak", &[]),
    (
        "breakpoint",
        &["set", "list", "delete", "enable", "disable"],
    ),
    (
        "br",
        &[
            "s", "set", "l", "list", "del", "delete", "enable", "disable",
        ],
    ),
    ("watchpoint", &["set", "list", "delete"]),
    (
        "thread",
        &[
            "backtrace",
            "bt",
            "list",
            "select",
            "info",
            "step-in",
            "step-over",
            "step-out",
            "continue",
            "until",
        ],
    ),
    ("frame", &["variable", "select", "info"]),
    ("fr", &["v", "variable", "select", "info"]),
    ("register", &["read"]),
    ("memory", &["read"]),
    ("image", &["list", "lookup"]),
    ("target", &["list"]),
    (
        "process",
        &["continue", "status", "kill", "interrupt", "detach"],
    ),
    ("settings", &["show", "list"]),
];

/// `breakpoint set` options (lldb `help breakpoint set`) that only place
/// the breakpoint: not `-C`/`--command` (an lldb command run at each hit),
/// `-P`/`--python-class`, `-k`/`-v` (its data), `-G`/`--auto-continue`, or
/// any spelling not listed (`--command=…`, `-Cfoo`): held. Expressions
/// (`-a`, `-c`) are read like every other expression.
const LLDB_BREAKPOINT_OPTIONS: &[&str] = &[
    "-n",
    "--name",
    "-f",
    "--file",
    "-l",
    "--line",
    "-u",
    "--column",
    "-a",
    "--address",
    "-c",
    "--condition",
    "-r",
    "--func-regex",
    "-s",
    "--shlib",
    "-o",
    "--one-shot",
    "-i",
    "--ignore-count",
    "-t",
    "--thread-id",
    "-T",
    "--thread-name",
    "-x",
    "--thread-index",
    "-q",
    "--queue-name",
    "-d",
    "--disable",
    "-p",
    "--source-pattern-regexp",
    "-F",
    "--fullname",
    "-S",
    "--selector",
    "-M",
    "--method",
    "-b",
    "--basename",
    "-E",
    "--language-exception",
    "-w",
    "--on-throw",
    "-h",
    "--on-catch",
    "-L",
    "--language",
    "-m",
    "--move-to-nearest-code",
    "-K",
    "--skip-prologue",
    "-R",
    "--address-slide",
    "-N",
    "--breakpoint-name",
    "-H",
    "--hardware",
    "-A",
    "--all-files",
    "-X",
    "--source-regexp-function",
];

/// `memory read` options (lldb `help memory read`) that only choose what
/// is shown: not `-o`/`--outfile`, `--append-outfile`, `-b`/`--binary`
/// (they write a file), or any spelling not listed: held.
const LLDB_MEMORY_OPTIONS: &[&str] = &[
    "-f",
    "--format",
    "-s",
    "--size",
    "-c",
    "--count",
    "-l",
    "--num-per-line",
    "-t",
    "--type",
    "-r",
    "--force",
    "-G",
    "--gdb-format",
    "-E",
    "--offset",
];

/// `expression` options (lldb `help expression`) that only choose how the
/// result is shown or how long it may run: not `-p`/`--top-level`,
/// `-r`/`--repl`, `-j`/`--allow-jit`, `-g`/`--debug`, or any spelling
/// not listed: held.
const LLDB_EXPRESSION_OPTIONS: &[&str] = &[
    "-O",
    "--object-description",
    "-l",
    "--language",
    "-f",
    "--format",
    "-T",
    "--show-types",
    "-i",
    "--ignore-breakpoints",
    "-u",
    "--unwind-on-error",
    "-t",
    "--timeout",
    "-d",
    "--dynamic-type",
    "-A",
    "--show-all-children",
    "-D",
    "--depth",
    "-P",
    "--ptr-depth",
    "-S",
    "--synthetic-type",
    "-V",
    "--validate",
    "-Z",
    "--element-count",
    "-G",
    "--gdb-format",
];

/// Whether word `w` of an lldb command is an option `table` does not
/// list. lldb removes quotes and backslashes from a word before it reads
/// options (`'-C'`, `\-C` are `-C`), so they are removed here too.
fn lldb_unlisted_option(w: &str, table: &[&str]) -> bool {
    let bare: String = w
        .chars()
        .filter(|c| !matches!(c, '"' | '\'' | '`' | '\\'))
        .collect();
    bare.starts_with('-') && !table.contains(&bare.as_str())
}

/// lldb settings `settings set NAME …` may change.
const LLDB_SETTINGS: &[&str] = &[
    "auto-confirm",
    "stop-line-count-before",
    "stop-line-count-after",
    "term-width",
    "use-color",
    "stop-disassembly-display",
    "target.x86-disassembly-flavor",
    "target.source-map",
];

/// One lldb command line.
fn lldb_command(line: &str, steps: &mut Vec<Step>) {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return;
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let first = words[0];
    let second = words.get(1).copied().unwrap_or("");
    let after = |n: usize| -> String {
        let mut r = line;
        for w in &words[..n.min(words.len())] {
            r = r[r.find(w).unwrap_or(0) + w.len()..].trim_start();
        }
        r.to_string()
    };
    let prefix = |w: &str, of: &str, min: usize| w.len() >= min && of.starts_with(w);
    // `run ARGS`, `r ARGS`: `process launch -X true -- ARGS` (the
    // arguments expanded by a shell).
    if matches!(first, "run" | "r") {
        let args = after(1);
        steps.push(Step::Launch((!args.is_empty()).then_some(args)));
        return;
    }
    if prefix(first, "process", 3) && prefix(second, "launch", 2) {
        // Only `process launch [-- ARGS]`: its options choose a shell
        // (`-c`), files (`-i`, `-o`, `-e`), the environment (`-v`).
        let rest = after(2);
        let args = match rest.strip_prefix("--") {
            Some(a) if a.is_empty() || a.starts_with(char::is_whitespace) => a.trim().to_string(),
            _ if rest.is_empty() => String::new(),
            _ => {
                return hold(
                    steps,
                    line,
                    "`process launch` options the check does not read",
                );
            }
        };
        steps.push(Step::Launch((!args.is_empty()).then_some(args)));
        return;
    }
    if prefix(first, "platform", 2) && prefix(second, "shell", 1) || prefix(first, "shell", 2) {
        let n = if first.starts_with("pl") { 2 } else { 1 };
        let mut rest = after(n);
        // `platform shell -h -- CMD`, `-t SECONDS`: the command after `--`.
        if rest.starts_with('-') {
            match rest.find(" -- ") {
                Some(at) => rest = rest[at + 4..].to_string(),
                None => {
                    return hold(
                        steps,
                        line,
                        "`platform shell` options the check does not read",
                    );
                }
            }
        }
        steps.push(Step::Shell(rest));
        return;
    }
    if prefix(first, "script", 2) {
        steps.push(Step::Python(after(1)));
        return hold(steps, line, "Python code");
    }
    // `target create PATH`: only the program, no options (`-c CORE`,
    // `-s SYMFILE`, `-r`, … held).
    if first == "target" && second == "create" {
        match words.as_slice() {
            [_, _, path]
                if !path.starts_with('-') && !path.contains(['"', '\'', '\\', '`', '$']) =>
            {
                steps.push(Step::Program(path.to_string()));
            }
            _ => hold(
                steps,
                line,
                "`target create` options the check does not read",
            ),
        }
        return;
    }
    if first == "settings" && second == "set" {
        let name = words.get(2).copied().unwrap_or("");
        if !LLDB_SETTINGS.contains(&name) {
            hold(
                steps,
                line,
                "a setting the check does not know to be harmless",
            );
        }
        return;
    }
    match LLDB_ALLOWED.iter().find(|(w, _)| *w == first) {
        Some((_, subs)) if subs.is_empty() || subs.contains(&second) => {
            let breakpoint = matches!(first, "b" | "tbreak")
                || matches!(first, "breakpoint" | "br") && matches!(second, "set" | "s");
            let memory = first == "x" || first == "memory" && second == "read";
            let options_at = match (breakpoint || memory, first) {
                (true, "b" | "tbreak" | "x") => Some(1),
                (true, _) => Some(2),
                _ => None,
            };
            if let Some(n) = options_at {
                let table = if breakpoint {
                    LLDB_BREAKPOINT_OPTIONS
                } else {
                    LLDB_MEMORY_OPTIONS
                };
                if let Some(o) = words[n.min(words.len())..]
                    .iter()
                    .find(|w| lldb_unlisted_option(w, table))
                {
                    return hold(
                        steps,
                        line,
                        &format!("the option `{o}`, which the check does not know to be read-only"),
                    );
                }
            }
            if matches!(first, "p" | "po" | "print" | "expression" | "expr") {
                let text = after(1);
                if text.is_empty() {
                    return hold(
                        steps,
                        line,
                        "an expression read from the input that follows",
                    );
                }
                if matches!(first, "expression" | "expr") && text.starts_with('-') {
                    // Options, then `--` and the code (lldb's raw command).
                    let ws: Vec<&str> = text.split_whitespace().collect();
                    let Some(end) = ws.iter().position(|w| *w == "--") else {
                        return hold(steps, line, "expression options without `--`");
                    };
                    if let Some(o) = ws[..end]
                        .iter()
                        .find(|w| lldb_unlisted_option(w, LLDB_EXPRESSION_OPTIONS))
                    {
                        return hold(
                            steps,
                            line,
                            &format!(
                                "the option `{o}`, which the check does not know to be read-only"
                            ),
                        );
                    }
                }
            }
            check_expression_in(Dialect::Lldb, line, &after(1), steps);
        }
        _ => hold(
            steps,
            line,
            "not one of the commands the check reads as only inspecting or running the program",
        ),
    }
}

impl Analysis<'_> {
    /// Every command gdb or lldb `name` is given — option values, command
    /// files, standard input — read by [`read`]: shell text judged as
    /// shell, the program judged as the command it runs when a command
    /// starts it (or when gdb/lldb may read commands nobody wrote here:
    /// not `-batch`, standard input not known), and whatever the reader
    /// cannot place held (`shell.eval-dynamic`).
    pub(crate) fn debugger_commands(
        &mut self,
        name: &str,
        args: &[Field],
        env: &Env,
        depth: u32,
        stdin: &Output,
    ) {
        let dialect = match crate::effects::selfstate::process_family(name) {
            "gdb" | "cgdb" => Dialect::Gdb,
            "lldb" => Dialect::Lldb,
            _ => return,
        };
        let (spec, file_opts, command_opts) = match dialect {
            Dialect::Gdb => (&sso::GDB, sso::GDB_FILES, sso::GDB_COMMANDS),
            Dialect::Lldb => (&sso::LLDB, sso::LLDB_FILES, sso::LLDB_COMMANDS),
        };
        // gdb stops reading options at `--args`: the program and its
        // arguments follow.
        let mut p = getopt::parse(spec, args);
        let mut program: Vec<Field> = Vec::new();
        if dialect == Dialect::Gdb
            && let Some(k) = p.found.iter().find(|f| f.opt.name == "args").map(|f| f.at)
        {
            program = args[k + 1..].to_vec();
            p = getopt::parse(spec, &args[..k]);
        } else {
            program.extend(p.operands.iter().map(|&k| args[k].clone()));
            if dialect == Dialect::Gdb {
                // `gdb PROG [CORE|PID]`: only PROG runs.
                program.truncate(1);
            } else if let Some(f) = p.values("file").next() {
                program.insert(0, f.clone());
            }
        }
        let mut steps: Vec<Step> = Vec::new();
        let mut held: Vec<String> = Vec::new();
        held.extend(
            p.problems
                .iter()
                .map(|w| format!("an option word the check cannot place ({w})")),
        );
        for f in &p.found {
            let Some(value) = f.value.as_ref() else {
                continue;
            };
            let opt = f.opt.name;
            let is_command = command_opts.contains(&opt);
            if !is_command && !file_opts.contains(&opt) {
                continue;
            }
            let text = match value.static_text() {
                Some(t) if !crate::opts::runopts::may_vanish(value) => t,
                _ => {
                    held.push(format!(
                        "`-{opt} {}`, only known at run time (it may also be no word, and move the next word into its place)",
                        value.text()
                    ));
                    continue;
                }
            };
            if is_command {
                steps.extend(read(dialect, &text));
                continue;
            }
            // A command file: read when this command wrote it, else held.
            let key = env.file_key(&text);
            let script = text.ends_with(".py") || text.ends_with(".scm");
            match env.written_text(&text) {
                Some(body) if !script => {
                    steps.extend(read(dialect, body));
                    if env.claimed.contains(&key) {
                        held.push(format!(
                            "the command file `{text}`, whose text the call does not show"
                        ));
                    }
                }
                Some(body) => {
                    steps.push(Step::Python(body.to_string()));
                    held.push(format!("the script file `{text}`"));
                }
                None => held.push(format!(
                    "the command file `{text}`, whose commands the check cannot read"
                )),
            }
        }
        // cgdb runs the debugger `-d PROGRAM` names (cgdb(1)).
        if crate::effects::selfstate::process_family(name) == "cgdb"
            && args.iter().any(|a| {
                let t = a.text();
                t == "-d"
                    || t.starts_with("--debugger")
                    || (t.starts_with("-d") && !t.starts_with("--"))
            })
        {
            held.push("`-d DEBUGGER`, a program of its choice".into());
        }
        let batch = p.has("batch") || p.has("batch-silent");
        match stdin {
            Output::Static(text) => steps.extend(read(dialect, text)),
            out => self.report_taint(out, &format!("commands piped into `{name}`")),
        }
        // Not in batch mode, with standard input nobody wrote here, the
        // debugger may be told to run the program.
        let mut launch = !batch && !matches!(stdin, Output::Static(_));
        for step in steps {
            match step {
                Step::Shell(cmd) => {
                    let mut e = env.clone();
                    self.script(&cmd, &mut e, depth + 1, &Output::Unknown);
                }
                Step::Python(code) => self.embedded_commands("python3", &code, env, depth + 1),
                Step::Launch(None) => launch = true,
                Step::Launch(Some(text)) => {
                    // gdb's `startup-with-shell`, lldb's `run`: a shell
                    // runs `PROG ARGS`.
                    let prog = program.first().map_or_else(
                        || ":".to_string(),
                        |f| {
                            f.static_text()
                                .map_or_else(|| f.text(), |t| crate::shell_quote(&t))
                        },
                    );
                    let mut e = env.clone();
                    self.script(
                        &format!("{prog} {text}"),
                        &mut e,
                        depth + 1,
                        &Output::Unknown,
                    );
                }
                Step::Program(path) => {
                    // A launch already due runs the program named before.
                    if launch && !program.is_empty() {
                        let mut e = env.clone();
                        self.exec(program.clone(), &mut e, depth + 1, &Output::Unknown, false);
                    }
                    program = vec![Field::lit(path)];
                }
                Step::Hold(what) => held.push(what),
            }
            if self.done() {
                return;
            }
        }
        if launch && !program.is_empty() {
            let mut e = env.clone();
            self.exec(program, &mut e, depth + 1, &Output::Unknown, false);
        }
        if let Some(first) = held.first() {
            self.report(
                false,
                "shell.eval-dynamic",
                format!(
                    "`{name}` is given {first}{}: the check reads only the debugger commands that inspect or run \
                     the program (`run`, `bt`, `info …`, `print` without a function call, `set var`, …). A person \
                     must approve it as it is.",
                    if held.len() > 1 { format!(" (and {} more)", held.len() - 1) } else { String::new() }
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holds(d: Dialect, text: &str) -> bool {
        read(d, text).iter().any(|s| matches!(s, Step::Hold(_)))
    }

    #[test]
    fn gdb_allow_list() {
        for ok in [
            "run",
            "bt",
            "info functions",
            "print x",
            "p (int)x + sizeof(y)",
            "set pagination off",
            "set var x = 3",
            "thread apply all bt full",
            "x/16xw $sp",
            "break main if x > 3",
            "with print pretty -- print s",
        ] {
            assert!(!holds(Dialect::Gdb, ok), "{ok}");
        }
        for held in [
            "interpreter-exec console \"shell id\"",
            "inter console \"shell id\"",
            "gu (system \"id\")",
            "guile (system \"id\")",
            "gr (system \"id\")",
            "source x",
            "define x",
            "alias s = shell",
            "set exec-wrapper /tmp/x",
            "set startup-with-shell on",
            "call exit(0)",
            "print $_shell(\"id\")",
            "p (void)system(\"id\")",
            "with exec-wrapper /tmp/x -- run",
            "eval \"shell %s\", \"ls\"",
            "make",
            "python print(1)",
            "attach 1",
            "target remote :1",
        ] {
            assert!(holds(Dialect::Gdb, held), "{held}");
        }
        assert_eq!(
            read(Dialect::Gdb, "|echo x | pkill -f t"),
            vec![Step::Shell("pkill -f t".into())]
        );
        assert_eq!(
            read(Dialect::Gdb, "pipe -d XX echo x XX pkill -f t"),
            vec![Step::Shell("pkill -f t".into())]
        );
        assert_eq!(
            read(Dialect::Gdb, "w confirm off -- she id"),
            vec![Step::Shell("id".into())]
        );
    }

    #[test]
    fn lldb_allow_list() {
        for ok in [
            "run",
            "bt",
            "thread backtrace all",
            "frame variable",
            "br s -n main",
            "c",
        ] {
            assert!(!holds(Dialect::Lldb, ok), "{ok}");
        }
        for held in [
            "command alias s platform shell",
            "command source x",
            "settings set target.env-vars X=1",
            "process launch -c /bin/sh -- x",
            "expr (void)system(\"id\")",
            "target create -s x.sym /bin/sh",
        ] {
            assert!(holds(Dialect::Lldb, held), "{held}");
        }
        assert_eq!(
            read(Dialect::Lldb, "process launch -- -c \"id\""),
            vec![Step::Launch(Some("-c \"id\"".into()))]
        );
    }
}
