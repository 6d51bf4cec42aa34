//! A file that runs whenever the user's shell or agent starts or uses a
//! tool is a guard rail, read from the files that run it (review s23 R8,
//! R9).
//!
//! The checks know guard rails by name only (a sandboxed check reads no
//! file: `check_catalog::guardrails`), so a script that `.bashrc` sources
//! from an unusual place, or that a project's `.claude/settings.json` runs
//! as a hook, is just a file to them. The hook runs as the user and can
//! read those files: at each run it derives
//!
//! - the files the shell start-up files in the home source (`source PATH`
//!   / `. PATH`, also after `[ -f PATH ] &&` or `then`), where PATH is
//!   literal or under `~`, `$HOME`, `${HOME}`; followed to [`MAX_DEPTH`]
//!   levels;
//! - the programs and scripts the agents' settings run (every `command`
//!   and Copilot `bash` string, every MCP server's `args`): the first word
//!   when it is a path (absolute, `~/…`, `$…PROJECT_DIR/…`, or holding a
//!   `/`, relative to the project), and any later word naming an existing
//!   script (`.sh`, `.py`, `.js`, `.ts`, `.rb`, `.pl`) or executable file;
//! - the Claude Code plugins directory (its hooks run in every session that
//!   enables a plugin).
//!
//! Reading never fails the hook: a file that cannot be read (or is larger
//! than [`MAX_BYTES`]) adds nothing, and the checks' name lists still hold.
//! A `source` whose operand cannot be placed (a variable, a glob, a
//! relative path) adds nothing either.

use serde_json::Value;
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The shell start-up files in the home that are read.
pub(crate) const STARTUP_FILES: &[&str] = &[
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".bash_aliases",
    ".bash_logout",
    ".bash_completion",
    ".zlogout",
    ".config/fish/config.fish",
];

/// How many `source` levels below a start-up file are followed.
pub(crate) const MAX_DEPTH: usize = 3;

/// The largest file read; a larger one adds nothing.
pub(crate) const MAX_BYTES: u64 = 256 * 1024;

/// Script endings that make a later word of a command a guard rail.
const SCRIPT_ENDINGS: &[&str] = &[".sh", ".py", ".js", ".ts", ".rb", ".pl"];

/// Every file that runs automatically for this user, derived from the
/// start-up files under `home` and the agents' settings of `home` and each
/// of `projects` (the session's working directory and the agent's project
/// directory). Sorted, without repeats; paths need not exist.
pub(crate) fn guard_rails(
    home: Option<&Path>,
    projects: &[PathBuf],
    env: &dyn Fn(&str) -> Option<OsString>,
) -> Vec<PathBuf> {
    let mut out = BTreeSet::new();
    // The agents' settings where the agent's own environment puts them
    // (review s24 R4): the hook inherits the agent's variables.
    let moved = moved_agent_settings(home, env);
    out.extend(moved.iter().cloned());
    if let Some(home) = home {
        let mut seen = BTreeSet::new();
        for name in STARTUP_FILES {
            sourced(&home.join(name), home, 0, &mut seen, &mut out, env);
        }
        out.insert(home.join(".claude/plugins"));
    }
    for project in projects {
        let mut files: Vec<PathBuf> = [
            ".claude/settings.json",
            ".claude/settings.local.json",
            ".gemini/settings.json",
            ".cursor/hooks.json",
            ".codex/hooks.json",
        ]
        .iter()
        .map(|f| project.join(f))
        .collect();
        // Copilot CLI reads every JSON file in the repository's hooks dir.
        if let Ok(dir) = std::fs::read_dir(project.join(".github/hooks")) {
            files.extend(
                dir.flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "json")),
            );
        }
        if let Some(home) = home {
            files.extend(
                [
                    ".claude/settings.json",
                    ".gemini/settings.json",
                    ".cursor/hooks.json",
                    ".codex/hooks.json",
                ]
                .iter()
                .map(|f| home.join(f)),
            );
        }
        files.extend(
            moved
                .iter()
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .cloned(),
        );
        for file in files {
            settings_programs(&file, project, home, &mut out);
        }
    }
    out.into_iter().collect()
}

/// The agents' settings files and hook directories that their own
/// variables move away from the home (review s24 R4): `CLAUDE_CONFIG_DIR`
/// (Claude Code's `~/.claude`), `CODEX_HOME` (`~/.codex`),
/// `GEMINI_CLI_HOME` (the directory holding `.gemini`), Gemini CLI's
/// `GEMINI_CLI_SYSTEM_SETTINGS_PATH` and `GEMINI_CLI_TRUSTED_FOLDERS_PATH`,
/// `COPILOT_HOME` (`~/.copilot`). Only values that are absolute or under
/// `~/`; nothing when a variable is unset.
pub(crate) fn moved_agent_settings(
    home: Option<&Path>,
    env: &dyn Fn(&str) -> Option<OsString>,
) -> Vec<PathBuf> {
    let place = |name: &str| -> Option<PathBuf> {
        let value = PathBuf::from(env(name)?);
        if value.is_absolute() {
            return Some(value.components().collect());
        }
        let rest = value.to_str()?.strip_prefix("~/")?;
        Some(home?.join(rest).components().collect())
    };
    let mut out = Vec::new();
    let mut under = |dir: Option<PathBuf>, names: &[&str]| {
        if let Some(dir) = dir {
            out.extend(names.iter().map(|n| dir.join(n)));
        }
    };
    under(
        place("CLAUDE_CONFIG_DIR"),
        &[
            "settings.json",
            "settings.local.json",
            ".claude.json",
            "hooks",
            "plugins",
        ],
    );
    under(
        place("CODEX_HOME"),
        &["hooks.json", "config.toml", "hooks", "rules", "policy"],
    );
    under(
        place("GEMINI_CLI_HOME").map(|d| d.join(".gemini")),
        &["settings.json", "hooks", "policies", "trustedFolders.json"],
    );
    under(
        place("COPILOT_HOME"),
        &["config.json", "settings.json", "mcp-config.json", "hooks"],
    );
    for name in [
        "GEMINI_CLI_SYSTEM_SETTINGS_PATH",
        "GEMINI_CLI_TRUSTED_FOLDERS_PATH",
    ] {
        out.extend(place(name));
    }
    out
}

/// How many processes above the hook [`running_programs`] looks at.
const MAX_ANCESTORS: usize = 8;

/// Interpreters whose script (the first operand naming an existing file)
/// is the program they run.
const INTERPRETERS: &[&str] = &[
    "node", "nodejs", "bun", "deno", "python", "python3", "ruby", "perl", "bash", "sh", "dash",
    "zsh",
];

/// The first file named `name` in a directory of `path` (a `PATH` value)
/// that is the executable `exe` once links are resolved.
fn on_path(name: &str, exe: &Path, path: &std::ffi::OsStr) -> Option<PathBuf> {
    let exe = std::fs::canonicalize(exe).ok()?;
    std::env::split_paths(path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .find(|candidate| std::fs::canonicalize(candidate).is_ok_and(|real| real == exe))
}

/// Options by which an agent's command line names the files its settings
/// come from (review s25 R4): Claude Code `--settings FILE` ("load
/// additional settings", hooks among them) and `--mcp-config FILE…` (the
/// MCP servers it starts), Copilot CLI `--additional-mcp-config @FILE`.
/// Each value that is not inline JSON is a file; `--mcp-config` takes
/// every word up to the next option.
const SETTINGS_OPTIONS: &[(&str, bool)] = &[
    ("--settings", false),
    ("--mcp-config", true),
    ("--additional-mcp-config", false),
];

/// The settings files an agent's command line `args` names
/// ([`SETTINGS_OPTIONS`]), as written (relative to its working directory
/// when not absolute).
fn settings_named_in(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut keep = |value: &str| {
        let value = value.strip_prefix('@').unwrap_or(value);
        let inline = value.trim_start().starts_with(['{', '[']);
        if !value.is_empty() && !inline {
            out.push(value.to_string());
        }
    };
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        if a == "--" {
            break;
        }
        let (opt, attached) = match a.split_once('=') {
            Some((o, v)) if o.starts_with("--") => (o, Some(v)),
            _ => (a.as_str(), None),
        };
        let Some((_, many)) = SETTINGS_OPTIONS.iter().find(|(o, _)| *o == opt) else {
            continue;
        };
        if let Some(v) = attached {
            keep(v);
            continue;
        }
        while let Some(v) = args.get(i) {
            if v.starts_with('-') {
                break;
            }
            keep(v);
            i += 1;
            if !many {
                break;
            }
        }
    }
    out
}

/// The programs that run this hook (review s24 R5): each ancestor process
/// up to [`MAX_ANCESTORS`] (the agent CLI, the shell that started it),
/// by its executable (`/proc/PID/exe`, links resolved), the path it was
/// started by when `argv[0]` is one, and for an interpreter (`node
/// ~/.npm/…/cli.js`) its script as named and resolved. Replaced, any of
/// them decides whether the hook runs at all. Linux `/proc`; nothing
/// elsewhere or for a process that cannot be read.
pub(crate) fn running_programs() -> Vec<PathBuf> {
    let mut out = BTreeSet::new();
    let mut pid = std::process::id();
    for _ in 0..MAX_ANCESTORS {
        let Some(parent) = parent_pid(pid) else {
            break;
        };
        if parent <= 1 {
            break;
        }
        pid = parent;
        let proc_dir = PathBuf::from(format!("/proc/{pid}"));
        let exe = std::fs::read_link(proc_dir.join("exe")).ok();
        let cwd = std::fs::read_link(proc_dir.join("cwd")).ok();
        let args: Vec<String> = std::fs::read(proc_dir.join("cmdline"))
            .map(|b| {
                b.split(|c| *c == 0)
                    .filter(|a| !a.is_empty())
                    .map(|a| String::from_utf8_lossy(a).into_owned())
                    .collect()
            })
            .unwrap_or_default();
        let place = |word: &str| -> Option<PathBuf> {
            let p = Path::new(word);
            if p.is_absolute() {
                Some(p.to_path_buf())
            } else {
                cwd.as_ref().map(|c| c.join(p))
            }
        };
        let mut add = |path: PathBuf| {
            if let Ok(real) = std::fs::canonicalize(&path) {
                out.insert(real);
            }
            out.insert(path);
        };
        if let Some(exe) = &exe {
            add(exe.clone());
        }
        if let Some(first) = args.first().filter(|a| a.contains('/'))
            && let Some(path) = place(first)
            && path.is_file()
        {
            add(path);
        }
        // Started by a bare name (`claude`): the entry of the `PATH` the
        // hook inherited from the agent that names this very executable (a
        // link such as `~/.local/bin/claude`), as the shell found it.
        if let (Some(first), Some(exe), Some(path)) = (
            args.first().filter(|a| !a.contains('/')),
            &exe,
            std::env::var_os("PATH"),
        ) && let Some(found) = on_path(first, exe, &path)
        {
            add(found);
        }
        let name = exe
            .as_ref()
            .and_then(|e| e.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let interpreter = INTERPRETERS.iter().any(|i| {
            name == *i
                || name
                    .strip_prefix(i)
                    .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
        });
        // The settings the agent was started with (`claude --settings
        // FILE`): they hold its hooks (review s25 R4).
        for named in settings_named_in(&args) {
            if let Some(path) = place(&named) {
                add(path);
            }
        }
        if interpreter
            && let Some(script) = args
                .iter()
                .skip(1)
                .filter(|a| !a.starts_with('-'))
                .take(3)
                .filter_map(|a| place(a))
                .find(|p| p.is_file())
        {
            add(script);
        }
    }
    out.into_iter().collect()
}

/// The parent of process `pid` (`/proc/PID/stat`'s fourth field).
fn parent_pid(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (second field) is in parentheses and may hold
    // spaces or parentheses: the fields after the last `)`.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// The text of `path` when it is a readable file of at most [`MAX_BYTES`].
fn read_small(path: &Path) -> Option<String> {
    let file = std::fs::File::open(path).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut text = String::new();
    file.take(MAX_BYTES + 1).read_to_string(&mut text).ok()?;
    (text.len() as u64 <= MAX_BYTES).then_some(text)
}

/// Add what `file` (a shell start-up file, `depth` levels down) sources,
/// and follow each.
fn sourced(
    file: &Path,
    home: &Path,
    depth: usize,
    seen: &mut BTreeSet<PathBuf>,
    out: &mut BTreeSet<PathBuf>,
    env: &dyn Fn(&str) -> Option<OsString>,
) {
    if depth > MAX_DEPTH || !seen.insert(file.to_path_buf()) {
        return;
    }
    let Some(text) = read_small(file) else {
        return;
    };
    for line in text.lines() {
        for target in source_operands(line, home) {
            out.insert(target.clone());
            sourced(&target, home, depth + 1, seen, out, env);
        }
        for program in evaluated_programs(line) {
            out.extend(program_places(&program, home, env));
        }
    }
}

/// The placeable operands of `source X` / `. X` commands in one line.
fn source_operands(line: &str, home: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut words = words(line).into_iter().peekable();
    let mut at_start = true;
    while let Some(word) = words.next() {
        let Word::Text(text) = &word else {
            at_start = true;
            continue;
        };
        if text.starts_with('#') && at_start {
            break;
        }
        let starts = at_start;
        at_start = matches!(text.as_str(), "then" | "else" | "do" | "{" | "!");
        if starts
            && (text == "source" || text == ".")
            && let Some(Word::Text(operand)) = words.peek()
            && let Some(path) = expand(operand, home, None)
        {
            found.push(path);
        }
    }
    found
}

/// The programs whose output a start-up line runs as shell code (review
/// s24 R2): the first word of `$(P …)`, `` `P …` `` or `<(P …)` given to
/// `eval`, `source` or `.`, and of fish's `P … | source`. Replaced, such a
/// program writes the next shell's code.
fn evaluated_programs(line: &str) -> Vec<String> {
    let text = line.trim_start();
    if text.starts_with('#') {
        return Vec::new();
    }
    let runs = |before: &str| {
        let b = before.trim_end_matches(['"', '\'', ' ', '\t']);
        ["eval", "source", "."]
            .iter()
            .any(|w| b == *w || b.ends_with(&format!(" {w}")) || b.ends_with(&format!(";{w}")))
    };
    let mut found = Vec::new();
    let bytes: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let open = match (bytes[i], bytes.get(i + 1)) {
            ('$' | '<', Some('(')) if bytes.get(i + 2) != Some(&'(') => Some((i + 2, ')')),
            ('`', _) => Some((i + 1, '`')),
            _ => None,
        };
        if let Some((start, close)) = open {
            let before: String = bytes[..i].iter().collect();
            let mut depth = 0usize;
            let mut end = start;
            while end < bytes.len() {
                let c = bytes[end];
                if close == ')' && c == '(' {
                    depth += 1;
                } else if c == close {
                    if depth == 0 {
                        break;
                    }
                    depth -= 1;
                }
                end += 1;
            }
            let inner: String = bytes[start..end.min(bytes.len())].iter().collect();
            if runs(&before)
                && let Some(first) = first_program_word(&inner)
            {
                found.push(first);
            }
            i = end + 1;
            continue;
        }
        i += 1;
    }
    // fish: `mise activate fish | source`.
    let segments: Vec<&str> = text.split('|').collect();
    for pair in segments.windows(2) {
        let next = pair[1].trim();
        if (next == "source"
            || next == "."
            || next.starts_with("source ")
            || next.starts_with(". "))
            && let Some(first) = pair[0]
                .rsplit([';', '&'])
                .next()
                .and_then(first_program_word)
        {
            found.push(first);
        }
    }
    found
}

/// The program a command runs: its first word after assignments and
/// `command`/`exec`/`env`/`and`/`or`.
fn first_program_word(command: &str) -> Option<String> {
    words(command)
        .into_iter()
        .map_while(|w| match w {
            Word::Text(t) => Some(t),
            Word::Separator => None,
        })
        .find(|t| {
            !(matches!(
                t.as_str(),
                "command" | "exec" | "env" | "and" | "or" | "builtin"
            ) || t.split_once('=').is_some_and(|(n, _)| {
                !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            }))
        })
}

/// Where a program named by a start-up line is: its path when it is one,
/// else every place the shell's `PATH` looks up to the first existing
/// file (an earlier place, once written, would run instead), and that
/// file's resolved path.
fn program_places(
    program: &str,
    home: &Path,
    env: &dyn Fn(&str) -> Option<OsString>,
) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if program.contains('/') || program.starts_with(['~', '$']) {
        if let Some(path) = expand(program, home, None) {
            out.extend(std::fs::canonicalize(&path).ok().filter(|c| *c != path));
            out.push(path);
        }
        return out;
    }
    if program.is_empty() || program.contains(['$', '*', '?', '[', '`', '(']) {
        return out;
    }
    let Some(path) = env("PATH") else {
        return out;
    };
    for dir in std::env::split_paths(&path)
        .filter(|d| d.is_absolute())
        .take(32)
    {
        let candidate = dir.join(program);
        let found = candidate.is_file();
        if found {
            out.extend(
                std::fs::canonicalize(&candidate)
                    .ok()
                    .filter(|c| *c != candidate),
            );
        }
        out.push(candidate);
        if found {
            break;
        }
    }
    out
}

/// A shell word, or a command separator (`;`, `&&`, `||`, `|`, `&`).
#[derive(Debug, PartialEq)]
enum Word {
    Text(String),
    Separator,
}

/// Split `line` into words with quotes removed (`"…"`, `'…'`, `\x`); `$`
/// stays as written, so an expansion is seen as such.
fn words(line: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut has = false;
    let mut chars = line.chars().peekable();
    let push = |out: &mut Vec<Word>, cur: &mut String, has: &mut bool| {
        if *has {
            out.push(Word::Text(std::mem::take(cur)));
            *has = false;
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                has = true;
                for d in chars.by_ref() {
                    if d == '\'' {
                        break;
                    }
                    cur.push(d);
                }
            }
            '"' => {
                has = true;
                while let Some(d) = chars.next() {
                    match d {
                        '"' => break,
                        '\\' => cur.extend(chars.next()),
                        _ => cur.push(d),
                    }
                }
            }
            '\\' => {
                has = true;
                cur.extend(chars.next());
            }
            ';' | '&' | '|' => {
                push(&mut out, &mut cur, &mut has);
                while chars.next_if(|d| matches!(d, ';' | '&' | '|')).is_some() {}
                out.push(Word::Separator);
            }
            c if c.is_whitespace() => push(&mut out, &mut cur, &mut has),
            c => {
                has = true;
                cur.push(c);
            }
        }
    }
    push(&mut out, &mut cur, &mut has);
    out
}

/// `word` as a path: absolute, or under `~/`, `$HOME/`, `${HOME}/`, or
/// (with `project`) under `$…PROJECT_DIR/` or relative to the project.
/// `None` for anything else (other variables, globs, `~user`).
fn expand(word: &str, home: &Path, project: Option<&Path>) -> Option<PathBuf> {
    let under = |base: &Path, rest: &str| Some(base.join(rest.trim_start_matches('/')));
    let path = if word.starts_with('/') {
        Some(PathBuf::from(word))
    } else if let Some(rest) = word.strip_prefix("~/") {
        under(home, rest)
    } else if let Some(rest) = word
        .strip_prefix("$HOME/")
        .or_else(|| word.strip_prefix("${HOME}/"))
    {
        under(home, rest)
    } else if let (Some(project), Some(rest)) = (project, project_var(word)) {
        under(project, rest)
    } else if let Some(project) = project.filter(|_| !word.starts_with(['$', '~'])) {
        under(project, word)
    } else {
        None
    }?;
    // `a/./b` is `a/b` (the checks compare text).
    let path: PathBuf = path.components().collect();
    let text = path.to_str()?;
    (!text.contains(['$', '*', '?', '[', '`'])).then_some(path)
}

/// The rest of `word` after an agent's project-directory variable
/// (`$CLAUDE_PROJECT_DIR/`, `${GEMINI_PROJECT_DIR}/`, ...).
fn project_var(word: &str) -> Option<&str> {
    let rest = word.strip_prefix('$')?;
    let (name, rest) = match rest.strip_prefix('{') {
        Some(braced) => braced.split_once('}')?,
        None => rest.split_at(rest.find('/')?),
    };
    (name.ends_with("PROJECT_DIR")).then(|| rest.strip_prefix('/').unwrap_or(rest))
}

/// Add the programs and scripts the settings file `file` runs.
fn settings_programs(
    file: &Path,
    project: &Path,
    home: Option<&Path>,
    out: &mut BTreeSet<PathBuf>,
) {
    let Some(text) = read_small(file) else {
        return;
    };
    let Ok(value) = serde_json::from_str::<Value>(&text) else {
        return;
    };
    let home = home.unwrap_or(Path::new("/nonexistent-home"));
    let mut commands = Vec::new();
    collect_commands(&value, 0, &mut commands);
    for (first, rest) in commands {
        if let Some(program) = first.and_then(|f| program_path(&f, home, project)) {
            out.insert(program);
        }
        for word in rest {
            if let Some(path) = expand(&word, home, Some(project))
                && is_script(&path)
            {
                out.insert(path);
            }
        }
    }
}

/// A command as (first word, later words): every string under a `command`
/// or `bash` key (split into words), and every MCP server's `args`.
type Command = (Option<String>, Vec<String>);

/// Walk `value` for commands, to a bounded depth.
fn collect_commands(value: &Value, depth: usize, out: &mut Vec<Command>) {
    if depth > 16 {
        return;
    }
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                match (key.as_str(), v) {
                    ("command" | "bash", Value::String(line)) => {
                        // The first word runs; later words (of every
                        // command of a compound line) count as scripts.
                        let mut texts = words(line).into_iter().filter_map(|w| match w {
                            Word::Text(t) => Some(t),
                            Word::Separator => None,
                        });
                        let first = texts.next();
                        out.push((first, texts.collect()));
                    }
                    ("args", Value::Array(args)) => out.push((
                        None,
                        args.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_string)
                            .collect(),
                    )),
                    _ => collect_commands(v, depth + 1, out),
                }
            }
        }
        Value::Array(items) => {
            for v in items {
                collect_commands(v, depth + 1, out);
            }
        }
        _ => {}
    }
}

/// A command's first word as the program's path, when it is one (a bare
/// name is looked up in `PATH`: not the project's).
fn program_path(word: &str, home: &Path, project: &Path) -> Option<PathBuf> {
    let is_path = word.starts_with(['/', '~', '$']) || word.contains('/');
    if !is_path {
        return None;
    }
    expand(word, home, Some(project))
}

/// An existing file that is a script by its ending or executable.
fn is_script(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    let name = path.to_string_lossy();
    if SCRIPT_ENDINGS.iter().any(|e| name.ends_with(e)) {
        return true;
    }
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn no_env(_: &str) -> Option<OsString> {
        None
    }

    #[test]
    fn agents_settings_moved_by_their_variables_are_rails() {
        // Review s24 R4.
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let cc = home.join(".config/claude");
        write(
            &cc.join("settings.json"),
            r#"{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"/opt/tv/bin/toolvet hook claude-code"}]}]}}"#,
        );
        let env = |name: &str| -> Option<OsString> {
            match name {
                "CLAUDE_CONFIG_DIR" => Some(cc.clone().into()),
                "CODEX_HOME" => Some("~/.config/codex".into()),
                "GEMINI_CLI_HOME" => Some("/srv/g".into()),
                "COPILOT_HOME" => Some("relative/not".into()),
                _ => None,
            }
        };
        let project = dir.path().join("project");
        let rails = guard_rails(Some(&home), std::slice::from_ref(&project), &env);
        for want in [
            cc.join("settings.json"),
            cc.join("settings.local.json"),
            cc.join("hooks"),
            home.join(".config/codex/hooks.json"),
            home.join(".config/codex/config.toml"),
            PathBuf::from("/srv/g/.gemini/settings.json"),
            PathBuf::from("/opt/tv/bin/toolvet"),
        ] {
            assert!(rails.contains(&want), "{want:?}: {rails:?}");
        }
        assert!(
            !rails
                .iter()
                .any(|p| p.to_string_lossy().contains("relative"))
        );
        assert_eq!(
            moved_agent_settings(Some(&home), &no_env),
            Vec::<PathBuf>::new()
        );
    }

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    #[test]
    fn startup_files_give_what_they_source_recursively() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project = home.join("project");
        write(
            &home.join(".bashrc"),
            "# comment: source ~/not-this\n\
             [ -f ~/.bash_local ] && . ~/.bash_local\n\
             [ -f ~/.fzf.bash ] && source ~/.fzf.bash\n\
             . \"$HOME/miniconda3/etc/profile.d/conda.sh\"\n\
             if [ -f ${HOME}/.asdf/asdf.sh ]; then . ${HOME}/.asdf/asdf.sh; fi\n\
             source ~/project/.venv/bin/activate\n\
             source $SOMEWHERE/x.sh\n\
             . ./relative.sh\n\
             echo source ~/not-a-command\n",
        );
        write(&home.join(".bash_local"), "source ~/.config/nested.sh\n");
        write(&home.join(".config/nested.sh"), ". /opt/deeper/one.sh\n");
        let rails = guard_rails(Some(&home), std::slice::from_ref(&project), &no_env);
        for want in [
            ".bash_local",
            ".fzf.bash",
            "miniconda3/etc/profile.d/conda.sh",
            ".asdf/asdf.sh",
            "project/.venv/bin/activate",
            ".config/nested.sh",
        ] {
            assert!(rails.contains(&home.join(want)), "{want}: {rails:?}");
        }
        assert!(rails.contains(&PathBuf::from("/opt/deeper/one.sh")));
        for not in ["not-this", "not-a-command", "relative.sh"] {
            assert!(!rails.contains(&home.join(not)), "{not}: {rails:?}");
        }
        assert!(!rails.iter().any(|p| p.to_string_lossy().contains('$')));
    }

    #[test]
    fn programs_whose_output_startup_files_evaluate_are_rails() {
        // Review s24 R2: `eval "$(PROGRAM activate bash)"`.
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let bin = dir.path().join("bin");
        let early = dir.path().join("early");
        write(&bin.join("zoxide"), "#!/bin/sh\n");
        write(
            &home.join(".bashrc"),
            "eval \"$(~/.local/bin/mise activate bash)\"\n\
             eval \"$(zoxide init bash)\"\n\
             source <(/opt/kubectl completion bash)\n\
             echo \"$(not-evaluated)\"\n\
             # eval \"$(commented)\"\n",
        );
        write(
            &home.join(".config/fish/config.fish"),
            "starship init fish | source\n",
        );
        let path = std::env::join_paths([&early, &bin]).unwrap();
        let env = move |name: &str| (name == "PATH").then(|| path.clone());
        let rails = guard_rails(Some(&home), &[], &env);
        for want in [
            home.join(".local/bin/mise"),
            early.join("zoxide"),
            bin.join("zoxide"),
            PathBuf::from("/opt/kubectl"),
            early.join("starship"),
        ] {
            assert!(rails.contains(&want), "{want:?}: {rails:?}");
        }
        for not in ["not-evaluated", "commented"] {
            assert!(!rails.iter().any(|p| p.ends_with(not)), "{not}: {rails:?}");
        }
    }

    #[test]
    fn the_programs_running_the_hook_are_found() {
        // Review s24 R5: the test binary's parent (cargo or a shell) is
        // found by its executable.
        let parent = parent_pid(std::process::id()).unwrap();
        let programs = running_programs();
        if parent > 1
            && let Ok(exe) = std::fs::read_link(format!("/proc/{parent}/exe"))
        {
            assert!(programs.contains(&exe), "{exe:?}: {programs:?}");
        }
        assert!(programs.len() <= 4 * MAX_ANCESTORS);
    }

    #[test]
    fn settings_files_named_on_the_agents_command_line() {
        // Review s25 R4: `claude --settings FILE`, `--mcp-config A B`,
        // Copilot's `--additional-mcp-config @FILE`; inline JSON is no file.
        let args = |words: &[&str]| words.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        assert_eq!(
            settings_named_in(&args(&[
                "node",
                "cli.js",
                "--settings",
                "/home/a/team/claude-settings.json",
                "--mcp-config",
                "a.json",
                "b.json",
                "--verbose",
                "--settings={\"hooks\":{}}",
            ])),
            ["/home/a/team/claude-settings.json", "a.json", "b.json"]
        );
        assert_eq!(
            settings_named_in(&args(&["claude", "--settings=s.json", "-p", "hi"])),
            ["s.json"]
        );
        assert_eq!(
            settings_named_in(&args(&["copilot", "--additional-mcp-config", "@m.json"])),
            ["m.json"]
        );
        assert!(settings_named_in(&args(&["claude", "--", "--settings", "x"])).is_empty());
        assert!(
            settings_named_in(&args(&["claude", "--mcp-config", "{\"mcpServers\":{}}"])).is_empty()
        );
    }

    #[test]
    fn a_program_started_by_a_bare_name_is_found_on_path() {
        // Review s24 R5: `claude` run from `~/.local/bin/claude`, a link to
        // the versioned binary.
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("versions/1.0/claude");
        write(&exe, "binary");
        let (first, bin) = (dir.path().join("first"), dir.path().join("bin"));
        std::fs::create_dir_all(&first).unwrap();
        std::fs::create_dir_all(&bin).unwrap();
        write(&first.join("claude"), "another program of that name");
        std::os::unix::fs::symlink(&exe, bin.join("claude")).unwrap();
        let path = std::env::join_paths([Path::new("relative"), &first, &bin]).unwrap();
        assert_eq!(on_path("claude", &exe, &path), Some(bin.join("claude")));
        assert_eq!(on_path("other", &exe, &path), None);
    }

    #[test]
    fn sourcing_stops_at_the_depth_limit_and_at_loops() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().to_path_buf();
        write(&home.join(".bashrc"), ". ~/a\n. ~/.bashrc\n");
        write(&home.join("a"), ". ~/b\n");
        write(&home.join("b"), ". ~/c\n");
        write(&home.join("c"), ". ~/d\n");
        write(&home.join("d"), ". ~/e\n");
        let rails = guard_rails(Some(&home), &[], &no_env);
        for want in ["a", "b", "c", "d"] {
            assert!(rails.contains(&home.join(want)), "{want}: {rails:?}");
        }
        assert!(!rails.contains(&home.join("e")), "{rails:?}");
    }

    #[test]
    fn agent_settings_give_the_programs_they_run() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project = dir.path().join("project");
        write(
            &project.join(".claude/settings.json"),
            r#"{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[
                {"type":"command","command":"\"$CLAUDE_PROJECT_DIR\"/tools/guard.sh"}]}]},
               "statusLine":{"type":"command","command":"bash scripts/status.sh"}}"#,
        );
        write(&project.join("scripts/status.sh"), "echo hi\n");
        write(&project.join("tools/gem.js"), "1\n");
        write(
            &project.join(".gemini/settings.json"),
            r#"{"hooks":{"BeforeTool":[{"hooks":[{"type":"command","command":"node tools/gem.js"}]}]},
               "mcpServers":{"s":{"command":"python3","args":["scripts/status.sh","--x"]}}}"#,
        );
        write(
            &project.join(".cursor/hooks.json"),
            r#"{"version":1,"hooks":{"afterFileEdit":[{"command":"./tools/fmt.sh"}]}}"#,
        );
        write(
            &home.join(".claude/settings.json"),
            r#"{"statusLine":{"type":"command","command":"~/.claude/statusline.sh"},
               "hooks":{"Stop":[{"hooks":[{"type":"command","command":"npx prettier --write ."}]}]}}"#,
        );
        let rails = guard_rails(Some(&home), std::slice::from_ref(&project), &no_env);
        for want in [
            project.join("tools/guard.sh"),
            project.join("scripts/status.sh"),
            project.join("tools/gem.js"),
            project.join("tools/fmt.sh"),
            home.join(".claude/statusline.sh"),
            home.join(".claude/plugins"),
        ] {
            assert!(rails.contains(&want), "{want:?}: {rails:?}");
        }
        // Bare program names and non-script words are not the project's.
        for not in ["npx", "prettier", "--write", ".", "node", "bash"] {
            assert!(!rails.contains(&project.join(not)), "{not}: {rails:?}");
        }
    }

    #[test]
    fn unreadable_or_oversized_files_add_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().to_path_buf();
        fs::create_dir_all(home.join(".bashrc")).unwrap(); // a directory
        let big = format!(". ~/big-target\n{}", "#".repeat(MAX_BYTES as usize));
        write(&home.join(".profile"), &big);
        write(&home.join(".claude/settings.json"), "{not json");
        let rails = guard_rails(Some(&home), std::slice::from_ref(&home), &no_env);
        assert_eq!(rails, vec![home.join(".claude/plugins")]);
        assert!(guard_rails(None, &[], &no_env).is_empty());
    }
}
