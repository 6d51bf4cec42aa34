//! Code in other languages that signals or looks up toolvet's processes
//! (`os.kill`, `process.kill`, …) or starts other agents.

use super::patterns::{may_select_hook, names_toolvet};
use super::signals::Target;
use super::*;

/// Calls that send a signal to a process, lowercased, in the languages
/// whose code the check reads: every `…kill…` (`os.kill`, `killpg`, Ruby
/// `Process.kill`, PHP `posix_kill`, node `process.kill`, Perl `kill`,
/// `pthread_kill`), psutil/`Popen`/Go methods (`.terminate()`
/// SIGTERM, `.suspend()` SIGSTOP, `.send_signal()`, `.signal(`),
/// `sigqueue`, `pidfd_send_signal` (review s17 Q6).
const CODE_SIGNALS: &[&str] = &[
    "kill",
    "send_signal",
    "suspend",
    "terminate",
    ".signal(",
    "sigqueue",
];

/// Ways code looks processes up, lowercased: commands (`pgrep`,
/// `pidof`, `ps`), psutil (`process_iter`, `pids()`, `Process(PID)`: any
/// code naming psutil), `/proc`. (multiprocessing's `Process(…)` is a
/// child the code starts, not a lookup.)
const CODE_LOOKUPS: &[&str] = &[
    "pgrep",
    "pidof",
    "process_iter",
    "psutil",
    "/proc",
    "ps ",
    "ps'",
    "ps\"",
    "pids(",
];

/// What code's own signal calls reach (review s19 S10): each call of
/// `kill`, `killpg` or `posix_kill` (Python `os.kill(PID, SIG)`,
/// `os.killpg(PGID, SIG)`, node `process.kill(PID, SIG)`, PHP
/// `posix_kill(PID, SIG)`, Ruby `Process.kill(SIG, PID…)`, Perl `kill
/// SIG, PID…` / `kill SIG => PID…`), its pid arguments read as numbers
/// as `kill`'s are: `-1` (every process) or `0` (the caller's process
/// group): every process; a pid that is not a literal number (a
/// variable, a computation, a listing's line): not read, held, and so is
/// a signal function the reader cannot follow to a call (`k = os.kill`,
/// `getattr(os, 'kill')`, `from os import kill`). Signal `0` (a check
/// that the process exists) sends nothing. A method of an object
/// the code holds (`p.kill()`, `child.kill('SIGINT')` of a child it started) is not
/// a pid call (psutil's are read as lookups).
fn code_pid_calls(name: &str, code: &str) -> Target {
    let signal_first = name.starts_with("perl") || name.starts_with("ruby");
    let perl = name.starts_with("perl");
    let chars: Vec<char> = code.chars().collect();
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut unread = None;
    let mut i = 0;
    while i < chars.len() {
        if !ident(chars[i]) || (i > 0 && ident(chars[i - 1])) {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && ident(chars[i]) {
            i += 1;
        }
        let word: String = chars[start..i].iter().collect();
        if !matches!(word.as_str(), "kill" | "killpg" | "posix_kill") {
            continue;
        }
        // The object before a dot: a module (`os.kill`, `process.kill`,
        // `Process.kill`) or a child the code holds (`p.kill()`).
        let object: String = if start > 0 && chars[start - 1] == '.' {
            let mut k = start - 1;
            while k > 0 && ident(chars[k - 1]) {
                k -= 1;
            }
            chars[k..start - 1].iter().collect()
        } else {
            String::new()
        };
        let module =
            object.is_empty() || matches!(object.as_str(), "os" | "process" | "Process" | "posix");
        let mut j = i;
        while j < chars.len() && chars[j] == ' ' {
            j += 1;
        }
        let quoted = |k: usize| chars.get(k).is_some_and(|c| matches!(c, '\'' | '"'));
        let args: String = if chars.get(j) == Some(&'(') {
            let mut depth = 0;
            let mut k = j;
            while k < chars.len() {
                match chars[k] {
                    '(' | '[' | '{' => depth += 1,
                    ')' | ']' | '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                k += 1;
            }
            chars[(j + 1).min(k)..k.min(chars.len())].iter().collect()
        } else if perl && object.is_empty() && !quoted(i) && !(start > 0 && quoted(start - 1)) {
            chars[j..]
                .iter()
                .take_while(|c| !matches!(c, ';' | '}' | '\n' | ')'))
                .collect()
        } else {
            // Not called here: the function itself taken (`k = os.kill`,
            // `getattr(os, 'kill')`, `from os import kill`).
            if module
                && (!object.is_empty()
                    || (quoted(i) && start > 0 && quoted(start - 1))
                    || chars[..start]
                        .iter()
                        .collect::<String>()
                        .ends_with("import "))
            {
                unread.get_or_insert(format!(
                    "`{word}` taken as a value, called where the check cannot follow"
                ));
            }
            continue;
        };
        if !module {
            continue;
        }
        let parts = split_code_args(&args);
        let (signal, pids): (Option<&String>, Vec<&String>) = if signal_first && word == "kill" {
            (parts.first(), parts.iter().skip(1).collect())
        } else {
            (parts.get(1), parts.iter().take(1).collect())
        };
        // Signal 0 sends nothing: only whether the process exists.
        if signal.is_some_and(|s| s.trim() == "0") {
            continue;
        }
        // A list the reader cannot split (`kill @list`, `kill qw(STOP
        // -1)`, `Process.kill(*a)`): its pids are not read.
        if pids.is_empty() && !args.trim().is_empty() {
            unread.get_or_insert(format!("the list `{}` given to `{word}`", args.trim()));
        }
        for pid in pids {
            let t = pid.trim();
            match t.parse::<i64>() {
                Ok(-1) => {
                    return Target::Toolvet(format!(
                        "every process of the user (`{word}` of pid {t})"
                    ));
                }
                Ok(0) => {
                    return Target::Toolvet(format!(
                        "the caller's whole process group (`{word}` of pid 0), the agent's and toolvet's hooks"
                    ));
                }
                Ok(_) => {}
                Err(_) => {
                    unread.get_or_insert(format!("the pid `{t}` of `{word}`"));
                }
            }
        }
    }
    unread.map_or(Target::None, Target::Unknown)
}

/// The arguments of a call, split at commas (and Perl's `=>`) outside
/// brackets and quotes.
fn split_code_args(args: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut depth = 0;
    let mut quote = None;
    let mut chars = args.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"' | '`') => quote = Some(c),
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => depth -= 1,
            (None, ',') if depth == 0 => {
                out.push(String::new());
                continue;
            }
            (None, '=') if depth == 0 && chars.peek() == Some(&'>') => {
                chars.next();
                out.push(String::new());
                continue;
            }
            _ => {}
        }
        if let Some(last) = out.last_mut() {
            last.push(c);
        }
    }
    out
}

/// The quoted strings in code (`'…'`, `"…"`), without their quotes.
pub(super) fn code_strings(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = code.chars();
    while let Some(c) = chars.by_ref().find(|c| matches!(c, '\'' | '"')) {
        let mut s = String::new();
        let mut escaped = false;
        for d in chars.by_ref() {
            match d {
                _ if escaped => {
                    s.push(d);
                    escaped = false;
                }
                '\\' => escaped = true,
                d if d == c => break,
                d => s.push(d),
            }
        }
        out.push(s);
    }
    out
}

impl Analysis<'_> {
    /// Another language's code that sends a signal to processes it looks
    /// up (review s16 P1, s17 Q6): a signal-sending call ([`CODE_SIGNALS`]:
    /// `os.kill`, `os.killpg`, Perl `kill`, Ruby `Process.kill`, PHP
    /// `posix_kill`, node `process.kill`, psutil's `.terminate()`,
    /// `.kill()`, `.suspend()`, `.send_signal()`, Go `.Signal(`) and a
    /// process lookup ([`CODE_LOOKUPS`]: `pgrep`, `process_iter`,
    /// `psutil`, `/proc`). Pids looked up for toolvet (its
    /// own commands `pgrep -f toolvet`, code naming toolvet or a string
    /// that may select a hook's command line, [`may_select_hook`]) or
    /// chosen by parent (`getppid`): `shell.toolvet-state`, as `kill`
    /// would be; looked up some other way: held.
    pub(crate) fn code_signals(&mut self, name: &str, code: &str) {
        let lower = code.to_ascii_lowercase();
        // Code talking to logind or systemd over D-Bus (`dbus`,
        // `pydbus`, `dbus-next`, `sd-bus` bindings: `m.KillUser(…)`,
        // `StopUnit`) may kill, stop or freeze the agent's session, user
        // or unit; the check does not read the bindings' calls (review
        // s21 U4).
        if lower.contains("login1") || lower.contains("systemd1") {
            self.report(
                false,
                "shell.toolvet-state",
                format!(
                    "The `{name}` code talks to logind or systemd (`login1`, `systemd1`) over D-Bus, whose methods \
                     kill, stop or freeze sessions, users and units (the agent's own, with toolvet's hooks, may be \
                     one); the check does not read such calls. A person must approve it."
                ),
            );
        }
        if !CODE_SIGNALS.iter().any(|w| lower.contains(w)) {
            return;
        }
        let lines = hook_lines(&self.state.state);
        let looks_up = CODE_LOOKUPS.iter().any(|w| lower.contains(w));
        let toolvet = self.toolvet_pids
            || names_toolvet(code)
            || lower.contains("ppid")
            || (looks_up
                && code_strings(code).iter().any(|s| {
                    s.chars().filter(|c| c.is_alphanumeric()).count() >= 3
                        && may_select_hook(s, &lines)
                }));
        match code_pid_calls(name, code) {
            Target::Toolvet(what) => self.report(
                true,
                "shell.toolvet-state",
                format!(
                    "The `{name}` code sends a signal to {what}, which takes in toolvet's own hook processes: a \
                     hook killed or stopped decides nothing, and some agents (Gemini CLI, Codex) then run the call \
                     unchecked. Stop the program you started by its own pid."
                ),
            ),
            Target::Unknown(what) if !toolvet => self.report(
                false,
                "shell.toolvet-state",
                format!(
                    "The `{name}` code sends a signal to processes chosen by {what}, which the analysis cannot \
                     read: they may be toolvet's own hook processes, which decide nothing once killed or stopped. \
                     A person must approve; give the pid of the program you started as a number."
                ),
            ),
            _ => {}
        }
        if toolvet || looks_up {
            self.report(
                toolvet,
                "shell.toolvet-state",
                format!(
                    "The `{name}` code sends a signal to processes it looks up{}: they may be toolvet's own hook \
                     processes, which decide nothing once killed or stopped, and some agents (Gemini CLI, Codex) \
                     then run the call unchecked. Stop the program you started by its own pid.",
                    if toolvet { " for toolvet or by parent" } else { "" }
                ),
            );
        }
    }

    /// Python code that starts an agent CLI's module (`runpy.run_module(
    /// "aider")`, `from aider.main import main; main()`, `import
    /// interpreter`): a nested agent session, held as `python3 -m aider`
    /// is (review s16 P4).
    pub(crate) fn code_agents(&mut self, name: &str, code: &str) {
        if !(name.starts_with("python") || name.starts_with("pypy")) {
            return;
        }
        const MODULES: &[&str] = &["aider", "interpreter", "open_interpreter"];
        let squeezed: String = code.split_whitespace().collect::<Vec<_>>().join(" ");
        let hit = MODULES.iter().find(|m| {
            [
                format!("import {m}"),
                format!("from {m} "),
                format!("from {m}."),
                format!("run_module(\"{m}"),
                format!("run_module('{m}"),
                format!("import_module(\"{m}"),
                format!("import_module('{m}"),
                format!("__import__(\"{m}"),
                format!("__import__('{m}"),
            ]
            .iter()
            .any(|needle| {
                squeezed.match_indices(needle.as_str()).any(|(k, _)| {
                    let end = k + needle.len();
                    // `import aider` but not `import aiderx`.
                    needle.ends_with(['.', ' '])
                        || !squeezed[end..]
                            .chars()
                            .next()
                            .is_some_and(|c| c.is_alphanumeric() || c == '_')
                })
            })
        });
        if let Some(m) = hit {
            self.report(
                false,
                "shell.nested-agent",
                format!(
                    "The `{name}` code loads the agent CLI module `{m}`, which starts an agent session of its own: \
                     its tool calls are vetted with a history that starts empty, or not at all. A person must \
                     approve; do the work in this session instead."
                ),
            );
        }
    }
}
