//! Shell commands that code in another language runs through its process
//! and file calls, as shell text for a check that judges shell commands
//! (review s8 F4, review s9 G3).
//!
//! [`code_commands`] reads, in Perl, Ruby, Python, JavaScript, PHP, awk
//! and Emacs Lisp code:
//! - calls that run a command (`system`, `exec`, `spawn`,
//!   `popen`, `subprocess.run`, `execSync`, `execFile`, `shell_exec`, …),
//!   with or without parentheses, the command one string run by the shell
//!   (`system "rm -rf ~"`) or a list that is the program's argv (`system
//!   "rm", "-rf", "/home/alice"`, `exec qw(rm -rf x)`, `subprocess.run(["rm",
//!   "-rf", "x"])`, `spawn("rm", ["-rf", "x"])`);
//! - Python's `os.exec*`, `os.spawn*` and `os.posix_spawn*`: a path, then
//!   the argv as a list or as more strings;
//! - removers of whole trees (`shutil.rmtree`, `FileUtils.rm_rf`,
//!   `File::Path`'s `rmtree`/`remove_tree`, `fs.rmSync(…, {recursive:
//!   true})`), as `rm -r PATH…`;
//! - piped `open`s (`open(my $fh, "-|", "ls")`, `open(FH, "rm -rf ~ |")`,
//!   Ruby's `open("|rm -rf ~")`).
//!
//! Literal strings are read (`'…'`, `"…"`, Perl's `q`/`qq`/`qw`, Ruby's
//! `%q`/`%Q`/`%w`/`%W`, Python's prefixed strings, JavaScript's template
//! strings, arrays of them). A value the code computes is never dropped:
//! the home directory's spellings (`$ENV{HOME}`, `Dir.home`,
//! `os.environ["HOME"]`, `os.homedir()`, `#{Dir.home}` in a string, …,
//! [`HOME_EXPRESSIONS`]) are the shell's `"${HOME}"`; any other variable,
//! call, interpolation or concatenation is the unknown `"${CODE_VALUE}"`,
//! and a command that is wholly computed (`system $c`, `os.system(cmd)`)
//! is `eval "${CODE_VALUE}"`, so that the check judging the text escalates
//! what it cannot see. Names the code gives these calls and their modules
//! are followed (`from os import system as go`, `x = os.system`, `import
//! subprocess as sp`, `const cp = require("child_process")`), and a call
//! looked up by a computed name on such a module (`getattr(os, n)`,
//! `vars(os)[n]`, `cp[n]`, Ruby's `send(:system, …)`) is a computed
//! command. Backquotes and `qx` are read elsewhere (shell-guard).

/// What a call does with its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Runs one string through the shell, or a list (or several strings)
    /// as the program's argv.
    Command,
    /// Python's `os.exec*`, `os.spawn*`, `os.posix_spawn*`: leading mode
    /// values, the program's path, then its argv (whose first word names
    /// the program) as a list or as more strings.
    PathArgv,
    /// Removes each path it is given and everything under it.
    Remover,
    /// Removes its paths and everything under them when called with a
    /// `recursive` option (Node's `fs.rmSync`, `fs.rm`, `fs.rmdirSync`).
    RemoverIfRecursive,
    /// Perl's and Ruby's `open`: runs a command when its mode or its
    /// string says it is piped.
    Open,
}

/// How sure a name is a call of the kind it is listed with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Name {
    /// The name alone says it (`system`, `popen`, `rmtree`).
    Plain,
    /// A common method name too (`run`, `call`): read only with
    /// parentheses, and a computed command only after one of the
    /// qualifiers (`subprocess.run`).
    Common(&'static [&'static str]),
    /// A function (Perl's and Python's `exec`) and a common method (a
    /// `RegExp`'s): a computed command only when not a method or after
    /// one of the qualifiers (`child_process.exec`).
    Function(&'static [&'static str]),
    /// A method name only: read after a `.` (`fs.rm`), with parentheses.
    Method,
    /// A name the code gave a call ([`Aliases`]): read with parentheses.
    Alias,
}

/// Qualifiers after which a [`Name::Common`] call runs a command.
const SUBPROCESS: &[&str] = &["subprocess."];

/// Qualifiers after which `exec` is Node's `child_process.exec`, not a
/// `RegExp`'s.
const CHILD_PROCESS: &[&str] = &[
    "child_process.",
    "child_process').",
    "child_process\").",
    "subprocess.",
];

/// The calls read, with what each does.
const CALLS: &[(&str, Kind, Name)] = &[
    ("system", Kind::Command, Name::Plain),
    ("exec", Kind::Command, Name::Function(CHILD_PROCESS)),
    ("spawn", Kind::Command, Name::Plain),
    ("readpipe", Kind::Command, Name::Plain),
    ("popen", Kind::Command, Name::Plain),
    ("popen2", Kind::Command, Name::Plain),
    ("popen2e", Kind::Command, Name::Plain),
    ("popen3", Kind::Command, Name::Plain),
    ("capture2", Kind::Command, Name::Plain),
    ("capture2e", Kind::Command, Name::Plain),
    ("capture3", Kind::Command, Name::Plain),
    ("Popen", Kind::Command, Name::Plain),
    ("run", Kind::Command, Name::Common(SUBPROCESS)),
    ("call", Kind::Command, Name::Common(SUBPROCESS)),
    ("check_call", Kind::Command, Name::Plain),
    ("check_output", Kind::Command, Name::Plain),
    ("getoutput", Kind::Command, Name::Plain),
    ("getstatusoutput", Kind::Command, Name::Plain),
    ("execSync", Kind::Command, Name::Plain),
    ("execFile", Kind::Command, Name::Plain),
    ("execFileSync", Kind::Command, Name::Plain),
    ("spawnSync", Kind::Command, Name::Plain),
    ("shell_exec", Kind::Command, Name::Plain),
    ("passthru", Kind::Command, Name::Plain),
    ("proc_open", Kind::Command, Name::Plain),
    // Emacs Lisp: `(shell-command "cmd")`.
    ("shell-command", Kind::Command, Name::Plain),
    ("shell-command-to-string", Kind::Command, Name::Plain),
    ("call-process-shell-command", Kind::Command, Name::Plain),
    ("execv", Kind::PathArgv, Name::Plain),
    ("execve", Kind::PathArgv, Name::Plain),
    ("execvp", Kind::PathArgv, Name::Plain),
    ("execvpe", Kind::PathArgv, Name::Plain),
    ("execl", Kind::PathArgv, Name::Plain),
    ("execle", Kind::PathArgv, Name::Plain),
    ("execlp", Kind::PathArgv, Name::Plain),
    ("execlpe", Kind::PathArgv, Name::Plain),
    ("spawnv", Kind::PathArgv, Name::Plain),
    ("spawnve", Kind::PathArgv, Name::Plain),
    ("spawnvp", Kind::PathArgv, Name::Plain),
    ("spawnvpe", Kind::PathArgv, Name::Plain),
    ("spawnl", Kind::PathArgv, Name::Plain),
    ("spawnle", Kind::PathArgv, Name::Plain),
    ("spawnlp", Kind::PathArgv, Name::Plain),
    ("spawnlpe", Kind::PathArgv, Name::Plain),
    ("posix_spawn", Kind::PathArgv, Name::Plain),
    ("posix_spawnp", Kind::PathArgv, Name::Plain),
    ("rmtree", Kind::Remover, Name::Plain),
    ("rm_rf", Kind::Remover, Name::Plain),
    ("rm_r", Kind::Remover, Name::Plain),
    ("remove_tree", Kind::Remover, Name::Plain),
    ("remove_entry", Kind::Remover, Name::Plain),
    ("remove_entry_secure", Kind::Remover, Name::Plain),
    ("remove_dir", Kind::Remover, Name::Plain),
    ("rmSync", Kind::RemoverIfRecursive, Name::Plain),
    ("rmdirSync", Kind::RemoverIfRecursive, Name::Plain),
    // Node's `fs.rm`, Julia's `rm(p, recursive=true)`.
    ("rm", Kind::RemoverIfRecursive, Name::Plain),
    ("rmdir", Kind::RemoverIfRecursive, Name::Method),
    // Deno's `Deno.remove(p, {recursive: true})`, `removeSync`.
    ("remove", Kind::RemoverIfRecursive, Name::Method),
    ("removeSync", Kind::RemoverIfRecursive, Name::Plain),
    // R's `unlink(p, recursive = TRUE)`.
    ("unlink", Kind::RemoverIfRecursive, Name::Plain),
    // Emacs Lisp's `(delete-directory DIR t)`.
    ("delete-directory", Kind::Remover, Name::Plain),
    ("open", Kind::Open, Name::Plain),
];

/// Expressions for the home directory in Perl, Ruby, Python, Node and
/// PHP code; each is the shell's `"${HOME}"` where [`code_commands`]
/// reads it (shell-guard's readers of inline code use them too).
pub const HOME_EXPRESSIONS: &[&str] = &[
    "os.homedir()",
    "require('os').homedir()",
    "require(\"os\").homedir()",
    "pathlib.Path.home()",
    "Path.home()",
    "os.environ['HOME']",
    "os.environ[\"HOME\"]",
    "os.environ.get('HOME')",
    "os.environ.get(\"HOME\")",
    "os.getenv('HOME')",
    "os.getenv(\"HOME\")",
    "process.env.HOME",
    "process.env['HOME']",
    "process.env[\"HOME\"]",
    "ENV.fetch('HOME')",
    "ENV.fetch(\"HOME\")",
    "ENV['HOME']",
    "ENV[\"HOME\"]",
    "Dir.home()",
    "Dir.home",
    "$ENV{HOME}",
    "$ENV{'HOME'}",
    "$ENV{\"HOME\"}",
    "${ENV{HOME}}",
    "getenv('HOME')",
    "getenv(\"HOME\")",
    // R, Julia, Deno.
    "Sys.getenv(\"HOME\")",
    "Sys.getenv('HOME')",
    "path.expand(\"~\")",
    "path.expand('~')",
    "homedir()",
    "Deno.env.get(\"HOME\")",
    "Deno.env.get('HOME')",
];

/// The most distinct commands returned for one piece of code is one more
/// than this, so that a caller judging this many knows some were left out.
const MAX_FOUND: usize = 32;

/// The longest run of code read as one argument that is not a literal.
const MAX_ARGUMENT: usize = 4096;

/// How deep lists nest before an inner one is read as a computed value.
const MAX_DEPTH: u32 = 8;

/// Stands for the home directory inside a read string until it is quoted.
const HOME: &str = "\u{0}HOME\u{0}";

/// Stands for a value the code computes inside a read string until it is
/// quoted.
const VALUE: &str = "\u{0}VALUE\u{0}";

/// The shell text of a command that is wholly computed.
const EVAL_VALUE: &str = "eval \"${CODE_VALUE}\"";

/// One argument of a call.
#[derive(Debug, Clone, PartialEq)]
enum Arg {
    /// A string (its text, the home marked by [`HOME`] and computed parts
    /// by [`VALUE`]).
    Str(String),
    /// A list of strings (`qw(…)`, `%w[…]`, `["rm", "-rf", dir]`).
    List(Vec<String>),
    /// Anything else (a variable, a call, a keyword argument): its text.
    Other(String),
}

/// The shell commands that `code` runs through the calls it makes, as
/// shell text (see the module's documentation): each distinct command
/// once, at most 33 (more than 32 means some were left out).
pub fn code_commands(code: &str) -> Vec<String> {
    let names = Aliases::of(code);
    let mut found = Vec::new();
    if names.computed_lookup(code) {
        found.push(EVAL_VALUE.to_string());
    }
    let calls = CALLS
        .iter()
        .map(|&(name, kind, sure)| (name, kind, sure))
        .chain(
            names
                .calls
                .iter()
                .map(|(name, kind)| (name.as_str(), *kind, Name::Alias)),
        );
    for (name, kind, sure) in calls {
        for (at, _) in code.match_indices(name) {
            if found.len() > MAX_FOUND {
                return found;
            }
            let command = read_call(code, at, name, kind, sure, &names.modules);
            // The same command twice is judged once, so repeats cannot
            // fill the count.
            if let Some(c) = command.filter(|c| !c.trim().is_empty() && !found.contains(c)) {
                found.push(c);
            }
        }
    }
    found
}

/// The command of the call of `name` at byte `at` of `code`, if it is a
/// call of that name (see [`code_commands`]). `modules`: the code's names
/// for [`MODULES`] (`sp` after `import subprocess as sp`), whose calls
/// count as qualified.
fn read_call(
    code: &str,
    at: usize,
    name: &str,
    kind: Kind,
    sure: Name,
    modules: &[String],
) -> Option<String> {
    let before = code[..at].chars().next_back();
    let rest = &code[at + name.len()..];
    let after = rest.chars().next();
    // A word of its own, not a variable (`$system`, `@exec`) nor part of
    // a longer name (`myrun`, `execute`, `shell-command-x`).
    if before.is_some_and(|c| word_char(c) || "$@%&".contains(c))
        || after.is_some_and(|c| word_char(c) || c == '-')
    {
        return None;
    }
    let parens = rest.trim_start().starts_with('(');
    // Called: `name(…)` or `name ARG` (Perl, Ruby, Lisp).
    if !parens && !after.is_some_and(|c| c.is_whitespace() || c == '"' || c == '\'') {
        return None;
    }
    let qualified = |qualifiers: &[&str]| {
        qualifiers.iter().any(|q| code[..at].ends_with(q))
            || modules.iter().any(|m| {
                code[..at]
                    .strip_suffix('.')
                    .is_some_and(|b| b.ends_with(m.as_str()))
            })
    };
    let computed_ok = match sure {
        Name::Plain => true,
        Name::Common(qualifiers) => {
            if !parens {
                return None;
            }
            qualified(qualifiers)
        }
        Name::Function(qualifiers) => before != Some('.') || qualified(qualifiers),
        Name::Method => {
            if !parens || before != Some('.') {
                return None;
            }
            true
        }
        Name::Alias => {
            if !parens {
                return None;
            }
            true
        }
    };
    let args = call_arguments(rest);
    // Without parentheses the words after the name must read as
    // arguments, not as prose in a string (`"the system is up"`).
    if !parens && !args.first().is_some_and(argument_like) {
        return None;
    }
    // A name ending its line (`x = os.system`) is not called with what
    // the next line computes.
    let next_line = rest
        .find(|c: char| !c.is_whitespace())
        .is_some_and(|i| rest[..i].contains('\n'));
    if !parens && next_line && matches!(args.first(), Some(Arg::Other(_))) {
        return None;
    }
    match kind {
        Kind::Command => command_of(&args, computed_ok),
        Kind::PathArgv => path_argv(&args),
        Kind::Remover => removed(&args),
        Kind::RemoverIfRecursive => args
            .iter()
            .any(|a| matches!(a, Arg::Other(t) if t.contains("recursive")))
            .then(|| removed(&args))
            .flatten(),
        Kind::Open => piped_open(&args),
    }
}

/// A character of a name.
fn word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Modules whose functions run commands or remove trees.
const MODULES: &[&str] = &[
    "subprocess",
    "os",
    "posix",
    "pty",
    "shutil",
    "child_process",
    "Open3",
    "FileUtils",
    "Kernel",
    "Process",
];

/// The names code gives the calls and modules it uses: `import subprocess
/// as sp`, `from os import system as run_it`, `x = os.system`, `const cp
/// = require("child_process")`, `const { execSync: run } = require(…)`.
#[derive(Debug, Default)]
struct Aliases {
    /// A name that stands for a call of [`CALLS`], with its kind.
    calls: Vec<(String, Kind)>,
    /// The modules' own names and the names given to them.
    modules: Vec<String>,
}

/// Most aliases read from one piece of code.
const MAX_ALIASES: usize = 64;

impl Aliases {
    fn of(code: &str) -> Aliases {
        let mut out = Aliases {
            calls: Vec::new(),
            modules: MODULES.iter().map(|m| m.to_string()).collect(),
        };
        for &(name, kind, _) in CALLS {
            for (at, _) in code.match_indices(name) {
                if out.calls.len() >= MAX_ALIASES {
                    break;
                }
                let rest = &code[at + name.len()..];
                if code[..at].chars().next_back().is_some_and(word_char)
                    || rest.chars().next().is_some_and(word_char)
                {
                    continue;
                }
                if let Some(alias) = alias_at(code, at, rest)
                    && alias != name
                    && !out.calls.iter().any(|(a, _)| *a == alias)
                {
                    out.calls.push((alias, kind));
                }
            }
        }
        for module in MODULES {
            for (at, _) in code.match_indices(module) {
                if out.modules.len() >= MAX_ALIASES {
                    break;
                }
                let mut rest = &code[at + module.len()..];
                let mut start = at;
                if code[..at].chars().next_back().is_some_and(word_char)
                    || rest.chars().next().is_some_and(word_char)
                {
                    continue;
                }
                // `require("child_process")`, `__import__('os')`: the
                // assignment is of the whole call.
                if let Some(q) = code[..at]
                    .chars()
                    .next_back()
                    .filter(|c| "'\"".contains(*c))
                    && let Some(close) = rest.strip_prefix(q).and_then(|r| r.strip_prefix(')'))
                {
                    rest = close;
                    start = code[..at - 1].rfind('(').map_or(at, |open| {
                        code[..open]
                            .rfind(|c: char| !(word_char(c) || c == '.'))
                            .map_or(0, |i| i + 1)
                    });
                }
                if let Some(alias) = alias_at(code, start, rest)
                    && !out.modules.contains(&alias)
                {
                    out.modules.push(alias);
                }
            }
        }
        out
    }

    /// Whether the code looks a call up by a computed name on a module
    /// that runs commands (`getattr(os, n)`, `vars(os)[n]`,
    /// `os.__dict__[n]`, `cp[n]`, Ruby's `send(:system, …)`): a command
    /// only known at run time.
    fn computed_lookup(&self, code: &str) -> bool {
        let module_at = |s: &str| {
            let s = s.trim_start();
            self.modules.iter().any(|m| {
                s.strip_prefix(m.as_str())
                    .is_some_and(|r| !r.starts_with(word_char))
            }) || s.starts_with("__import__(")
                || s.starts_with("importlib.import_module(")
                || s.starts_with("require(")
        };
        for (at, _) in code.match_indices("getattr(") {
            if module_at(&code[at + "getattr(".len()..]) {
                return true;
            }
        }
        for (at, _) in code.match_indices("vars(") {
            if module_at(&code[at + "vars(".len()..]) {
                return true;
            }
        }
        for m in &self.modules {
            for (at, _) in code.match_indices(m.as_str()) {
                if code[..at].chars().next_back().is_some_and(word_char) {
                    continue;
                }
                let r = &code[at + m.len()..];
                if r.starts_with(".__dict__[") || r.starts_with("[") && !r.starts_with("[]") {
                    return true;
                }
            }
        }
        for send in ["send(", "public_send(", "__send__(", "method("] {
            for (at, _) in code.match_indices(send) {
                let r = code[at + send.len()..].trim_start();
                let r = r.strip_prefix(':').unwrap_or(r);
                let r = r.trim_start_matches(['"', '\'']);
                if CALLS
                    .iter()
                    .filter(|(_, _, sure)| !matches!(sure, Name::Common(_)))
                    .any(|(name, ..)| {
                        r.strip_prefix(name)
                            .is_some_and(|t| !t.starts_with(word_char))
                    })
                {
                    return true;
                }
            }
        }
        false
    }
}

/// The name `code` gives what stands at `start` when `rest` follows it:
/// `… as NAME` (Python's imports), `…: NAME` inside `{ }` (JavaScript's
/// destructuring), or `NAME = …` ending there (an assignment of the
/// function or module itself, not of a call's result).
fn alias_at(code: &str, start: usize, rest: &str) -> Option<String> {
    let ident = |s: &str| -> Option<String> {
        let s = s.trim_start();
        let s = s.strip_prefix('$').unwrap_or(s);
        let end = s.find(|c: char| !word_char(c)).unwrap_or(s.len());
        (end > 0 && !s.starts_with(|c: char| c.is_ascii_digit())).then(|| s[..end].to_string())
    };
    let r = rest.trim_start_matches([' ', '\t']);
    if let Some(a) = r.strip_prefix("as ") {
        return ident(a);
    }
    if let Some(a) = r.strip_prefix(':')
        && !a.starts_with(':')
        && code[..start].rfind('{') > code[..start].rfind('}')
    {
        return ident(a);
    }
    let ends = r.is_empty() || r.starts_with(['\n', ';', '\r']) || r.starts_with('#');
    if !ends {
        return None;
    }
    let line_start = code[..start].rfind(['\n', ';']).map_or(0, |i| i + 1);
    let line = &code[line_start..start];
    let eq = line.find('=')?;
    if line[eq + 1..].starts_with('=') || line[..eq].ends_with(['!', '<', '>', '=']) {
        return None;
    }
    let value = line[eq + 1..].trim();
    // The value is the name itself, perhaps qualified (`os.system`).
    if !value
        .chars()
        .all(|c| word_char(c) || c == '.' || c == ':' || c == '$')
    {
        return None;
    }
    let lhs = line[..eq].trim();
    let lhs = ["const ", "let ", "var ", "local ", "my "]
        .iter()
        .find_map(|k| lhs.strip_prefix(k))
        .unwrap_or(lhs)
        .trim();
    let name = ident(lhs)?;
    (lhs.trim_start_matches('$') == name).then_some(name)
}

/// Whether the first argument of a call without parentheses reads as
/// one: a literal, a variable (`$c`, `@a`), or an expression (`c`,
/// `Dir.home`, `glob "~"`, `c if x`), but not prose (`is up`) nor an
/// operator (`=> 1`).
fn argument_like(arg: &Arg) -> bool {
    let text = match arg {
        Arg::Str(_) | Arg::List(_) => return true,
        Arg::Other(t) => t.trim(),
    };
    let Some(first) = text.chars().next() else {
        return false;
    };
    if "$@".contains(first) {
        return true;
    }
    if !(first.is_alphabetic() || first == '_') {
        return false;
    }
    let word_end = text
        .find(|c: char| !(c.is_alphanumeric() || "_.:".contains(c)))
        .unwrap_or(text.len());
    let after = &text[word_end..];
    // A word ending a string (`"use system calls"`) is prose.
    if after.starts_with(['"', '\'', '`']) {
        return false;
    }
    let next = after.trim_start();
    if !after.starts_with(char::is_whitespace) || next.is_empty() {
        return true;
    }
    // After a space: a function's argument (`glob "~"`, `f $x`) or a
    // keyword that ends the call (`c if x`, `c or die`); other words are
    // prose (`is up`) or another language's command (Tcl's `exec rm -rf`).
    if next.starts_with(['"', '\'', '$', '@', '(']) {
        return true;
    }
    let second: String = next.chars().take_while(|c| c.is_alphanumeric()).collect();
    matches!(
        second.as_str(),
        "if" | "unless" | "or" | "and" | "rescue" | "while" | "until"
    )
}

/// The command a list of arguments runs: one string is shell text; a
/// string followed by more strings or lists, or a leading list, is an
/// argv (its words quoted and joined); a computed command is
/// [`EVAL_VALUE`] when `computed_ok`.
fn command_of(args: &[Arg], computed_ok: bool) -> Option<String> {
    let args: Vec<&Arg> = args.iter().filter(|a| !is_option(a)).collect();
    match args.first()? {
        Arg::Str(s) if !matches!(args.get(1), Some(Arg::Str(_) | Arg::List(_))) => {
            Some(shell_text(s))
        }
        Arg::Other(t) => (computed_ok && !t.trim().is_empty()).then(|| EVAL_VALUE.to_string()),
        Arg::List(list) => Some(argv(list.iter().cloned())),
        Arg::Str(_) => {
            let mut words = Vec::new();
            for arg in &args {
                match arg {
                    Arg::Str(s) => words.push(s.clone()),
                    // Node's `spawn("rm", ["-rf", dir], options)`: the
                    // list ends the argv.
                    Arg::List(l) => {
                        words.extend(l.iter().cloned());
                        break;
                    }
                    Arg::Other(t) => words.push(value_of(t)),
                }
            }
            Some(argv(words.into_iter()))
        }
    }
}

/// The command of Python's `os.exec*`, `os.spawn*` and `os.posix_spawn*`:
/// the program's path (the first string), then the argv after its first
/// word, from a list or from the strings that follow.
fn path_argv(args: &[Arg]) -> Option<String> {
    let first = args
        .iter()
        .position(|a| matches!(a, Arg::Str(_) | Arg::List(_)));
    let Some(first) = first else {
        return args
            .iter()
            .any(|a| matches!(a, Arg::Other(t) if !t.trim().is_empty()))
            .then(|| EVAL_VALUE.to_string());
    };
    let words: Vec<String> = match &args[first] {
        Arg::List(list) => list.clone(),
        Arg::Str(path) => {
            let mut words = vec![path.clone()];
            match args.get(first + 1) {
                Some(Arg::List(list)) => words.extend(list.iter().skip(1).cloned()),
                _ => words.extend(args[first + 1..].iter().skip(1).map(|a| match a {
                    Arg::Str(s) => s.clone(),
                    Arg::List(l) => l.join(" "),
                    Arg::Other(t) => value_of(t),
                })),
            }
            words
        }
        Arg::Other(_) => unreachable!("the position found a string or a list"),
    };
    Some(argv(words.into_iter()))
}

/// `rm -r PATH…` for the paths a remover is given (strings, lists,
/// computed values; options passed over); `None` without a path.
fn removed(args: &[Arg]) -> Option<String> {
    let mut paths = Vec::new();
    for arg in args.iter().filter(|a| !is_option(a)) {
        match arg {
            Arg::Str(s) => paths.push(s.clone()),
            Arg::List(l) => paths.extend(l.iter().cloned()),
            Arg::Other(t) if t.trim().is_empty() => {}
            Arg::Other(t) => paths.push(value_of(t)),
        }
    }
    if paths.is_empty() {
        return None;
    }
    // A leading `~` in a path the code gives counts as the home: the
    // language does not expand it, but the judgement errs to the safe side.
    let paths: Vec<String> = paths
        .into_iter()
        .map(|p| match p.strip_prefix('~') {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => format!("{HOME}{rest}"),
            _ => p,
        })
        .collect();
    Some(format!("rm -r -- {}", argv(paths.into_iter())))
}

/// Whether an argument is an option rather than a value: a keyword
/// argument (`check=True`, `exception: true`, `:chdir => "x"`) or a hash
/// or object of options (`{recursive: true}`, `{verbose => 1}`).
fn is_option(arg: &Arg) -> bool {
    let Arg::Other(t) = arg else {
        return false;
    };
    let t = t.trim();
    if t.starts_with('{') || t.starts_with(':') {
        return true;
    }
    let name_end = t
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(t.len());
    if name_end == 0 {
        return false;
    }
    let rest = t[name_end..].trim_start();
    (rest.starts_with('=') && !rest.starts_with("=="))
        || (rest.starts_with(':') && !rest.starts_with("::"))
        || rest.starts_with("=>")
}

/// The command a piped `open` runs: the arguments after a `-|` or `|-`
/// mode (Perl's three-argument form), or a string that begins or ends
/// with `|` (Perl's two-argument form, Ruby's `open("|cmd")`).
fn piped_open(args: &[Arg]) -> Option<String> {
    if let Some(mode) = args
        .iter()
        .position(|a| matches!(a, Arg::Str(s) if s.trim() == "-|" || s.trim() == "|-"))
    {
        return command_of(&args[mode + 1..], true);
    }
    args.iter().find_map(|a| match a {
        Arg::Str(s) => {
            let t = s.trim();
            let cmd = t.strip_prefix('|').or_else(|| t.strip_suffix('|'))?.trim();
            Some(shell_text(cmd))
        }
        _ => None,
    })
}

/// A computed value as a word: the home for one of
/// [`HOME_EXPRESSIONS`] or `expanduser("~/x")`, else [`VALUE`].
fn value_of(text: &str) -> String {
    let t = text.trim();
    if HOME_EXPRESSIONS.contains(&t)
        || matches!(t, "glob(\"~\")" | "glob('~')" | "glob \"~\"" | "glob '~'")
    {
        return HOME.to_string();
    }
    for call in [
        "os.path.expanduser(",
        "path.expanduser(",
        "expanduser(",
        "File.expand_path(",
    ] {
        if let Some(inner) = t.strip_prefix(call)
            && let Some((Arg::Str(p), after)) = literal(inner.trim_start())
            && after.trim() == ")"
        {
            return match p.strip_prefix('~') {
                Some(rest) if rest.is_empty() || rest.starts_with('/') => format!("{HOME}{rest}"),
                _ => p,
            };
        }
    }
    VALUE.to_string()
}

/// A string run by the shell: the home marker is `${HOME}`, a computed
/// part `${CODE_VALUE}`.
fn shell_text(s: &str) -> String {
    s.replace(HOME, "${HOME}").replace(VALUE, "${CODE_VALUE}")
}

/// Words as an argv for the shell: each quoted so that it is that one
/// word (a `~` too).
fn argv(words: impl Iterator<Item = String>) -> String {
    words.map(|w| quote(&w)).collect::<Vec<_>>().join(" ")
}

/// A word for the shell, quoted so that it is that one word (a `~` too);
/// the home marker becomes `"${HOME}"`, a computed part `"${CODE_VALUE}"`.
fn quote(word: &str) -> String {
    // The markers are `\0NAME\0`: between the NULs (odd pieces) a name.
    word.split('\u{0}')
        .enumerate()
        .map(|(i, piece)| {
            if i % 2 == 1 {
                return if piece == "HOME" {
                    "\"${HOME}\"".to_string()
                } else {
                    "\"${CODE_VALUE}\"".to_string()
                };
            }
            let plain = !piece.starts_with('~')
                && piece
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_./:,+@%~-".contains(c));
            if plain {
                piece.to_string()
            } else {
                format!("'{}'", piece.replace('\'', r"'\''"))
            }
        })
        .collect::<String>()
}

/// The arguments after a call's name: in parentheses or not, separated by
/// commas (or `=>`), up to the first that is not followed by one. A
/// leading block or hash (Perl's `system { "sh" } LIST`, Ruby's
/// environment hash `system({"A" => "1"}, "cmd")`) is passed over.
fn call_arguments(rest: &str) -> Vec<Arg> {
    let mut s = rest.trim_start();
    if let Some(inner) = s.strip_prefix('(') {
        s = inner.trim_start();
    }
    if s.starts_with('{') {
        let Some(end) = balanced_end(s) else {
            return Vec::new();
        };
        s = s[end..].trim_start();
        s = s.strip_prefix(',').unwrap_or(s).trim_start();
    }
    let mut args = Vec::new();
    loop {
        let (arg, after) = argument(s, 0);
        args.push(arg);
        s = after.trim_start();
        if let Some(a) = s.strip_prefix(',').or_else(|| s.strip_prefix("=>")) {
            s = a.trim_start();
        } else {
            break;
        }
        if args.len() >= 64 || s.is_empty() {
            break;
        }
    }
    args
}

/// The end (just past the closing bracket) of the bracketed text `s`
/// opens, quotes passed over; `None` when it does not close soon.
fn balanced_end(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in s.char_indices().take(MAX_ARGUMENT) {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// One argument at the start of `s` and the text after it. `depth`: how
/// deep in lists it is.
fn argument(s: &str, depth: u32) -> (Arg, &str) {
    // Python's keyword arguments that hold the command:
    // `subprocess.run(args=["rm", "-rf", "x"])`.
    for keyword in ["args", "cmd", "command", "argv"] {
        if depth >= MAX_DEPTH {
            break;
        }
        if let Some(value) = s
            .strip_prefix(keyword)
            .map(str::trim_start)
            .and_then(|v| v.strip_prefix('='))
            .filter(|v| !v.starts_with('='))
        {
            return argument(value.trim_start(), depth + 1);
        }
    }
    // A splat of a literal list: Ruby's `*%w[rm -rf x]`, Python's `*["rm"]`.
    let t = s.strip_prefix('*').unwrap_or(s);
    if let Some((arg, after)) = literal(t) {
        return joined(arg, after);
    }
    if let Some(inner) = t.strip_prefix('[')
        && depth < MAX_DEPTH
    {
        let mut words = Vec::new();
        let mut r = inner.trim_start();
        loop {
            if r.starts_with(']') {
                break;
            }
            let (arg, after) = argument(r, depth + 1);
            match arg {
                Arg::Str(w) => words.push(w),
                Arg::List(l) => words.extend(l),
                Arg::Other(t) if t.trim().is_empty() => break,
                Arg::Other(t) => words.push(value_of(&t)),
            }
            r = after.trim_start();
            match r.strip_prefix(',') {
                Some(a) => r = a.trim_start(),
                None => break,
            }
        }
        if let Some(after) = r.strip_prefix(']')
            && !words.is_empty()
        {
            return (Arg::List(words), after);
        }
    }
    let (text, after) = expression(s);
    (Arg::Other(text.to_string()), after)
}

/// A literal followed by more of an expression (`"rm -rf " + d`, `"rm
/// -rf " . $d`, `"rm %s" % d`, awk's `"rm " $1`) is a string whose end is
/// computed; a literal alone is itself.
fn joined(arg: Arg, after: &str) -> (Arg, &str) {
    let next = after.trim_start_matches([' ', '\t']);
    let ends = next.is_empty()
        || next.starts_with([
            ',', ')', ']', '}', ';', '\n', '\r', '#', '|', '&', '?', '<', '>', '=', ':',
        ]) && !next.starts_with("<<")
        || [
            "or ", "and ", "if ", "unless ", "rescue ", "while ", "until ", "do ",
        ]
        .iter()
        .any(|k| next.starts_with(k));
    if ends {
        return (arg, after);
    }
    let (_, rest) = expression(after);
    match arg {
        Arg::Str(s) => (Arg::Str(format!("{s}{VALUE}")), rest),
        Arg::List(mut l) => {
            l.push(VALUE.to_string());
            (Arg::List(l), rest)
        }
        other => (other, rest),
    }
}

/// Code up to the next comma, or the end of the call or statement, at
/// depth 0: the text and what follows it.
fn expression(s: &str) -> (&str, &str) {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in s.char_indices().take(MAX_ARGUMENT) {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' | '`' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth == 0 => return (&s[..i], &s[i..]),
            ')' | ']' | '}' => depth -= 1,
            ',' | ';' | '\n' if depth == 0 => return (&s[..i], &s[i..]),
            _ => {}
        }
    }
    let end = s
        .char_indices()
        .nth(MAX_ARGUMENT)
        .map_or(s.len(), |(i, _)| i);
    (&s[..end], "")
}

/// A string literal at the start of `s`: `'…'`, `"…"`, Python's prefixed
/// strings (`r'…'`, `b"…"`, `f"…{x}…"`), JavaScript's template strings
/// (`` `…${x}…` ``), Perl's `q`, `qq`, `qw` and Ruby's `%q`, `%Q`, `%`,
/// `%w`, `%W` with any delimiter.
fn literal(s: &str) -> Option<(Arg, &str)> {
    if let Some(rest) = s.strip_prefix('\'') {
        return delimited(rest, '\'', '\'', false).map(|(t, a)| (Arg::Str(t), a));
    }
    if let Some(rest) = s.strip_prefix('"') {
        return delimited(rest, '"', '"', true).map(|(t, a)| (Arg::Str(t), a));
    }
    if let Some(rest) = s.strip_prefix('`') {
        return delimited(rest, '`', '`', false)
            .map(|(t, a)| (Arg::Str(interpolated(&t, "${", '}')), a));
    }
    // Python's string prefixes: `f` (and `rf`, `fr`) interpolates `{…}`.
    let prefix_end = s
        .find(|c: char| !"rRbBuUfF".contains(c))
        .filter(|&n| (1..=2).contains(&n));
    if let Some(n) = prefix_end
        && let Some(q) = s[n..].chars().next().filter(|c| *c == '\'' || *c == '"')
    {
        let raw = s[..n].contains(['r', 'R']);
        let (text, after) = delimited(&s[n + 1..], q, q, !raw)?;
        let text = if s[..n].contains(['f', 'F']) {
            interpolated(
                &text.replace("{{", "\u{1}").replace("}}", "\u{2}"),
                "{",
                '}',
            )
            .replace('\u{1}', "{")
            .replace('\u{2}', "}")
        } else {
            text
        };
        return Some((Arg::Str(text), after));
    }
    // Quote-like operators: the longest prefix first.
    for (prefix, words, interpolates) in [
        ("qq", false, true),
        ("qw", true, false),
        ("q", false, false),
        ("%Q", false, true),
        ("%q", false, false),
        ("%W", true, true),
        ("%w", true, false),
        ("%", false, true),
    ] {
        let Some(rest) = s.strip_prefix(prefix) else {
            continue;
        };
        // Perl allows white space before the delimiter; Ruby does not.
        let rest = if prefix.starts_with('q') {
            rest.trim_start()
        } else {
            rest
        };
        let open = rest.chars().next()?;
        if open.is_alphanumeric() || open == '_' || open.is_whitespace() || open == ',' {
            continue;
        }
        let close = match open {
            '(' => ')',
            '[' => ']',
            '{' => '}',
            '<' => '>',
            c => c,
        };
        let (text, after) = delimited(&rest[open.len_utf8()..], open, close, interpolates)?;
        let arg = if words {
            Arg::List(text.split_whitespace().map(str::to_string).collect())
        } else {
            Arg::Str(text)
        };
        return Some((arg, after));
    }
    None
}

/// The text up to the `close` that ends it (nested `open`/`close` pairs
/// counted when they differ), with backslash escapes undone (in a
/// non-interpolating string only `\\` and an escaped delimiter), and the
/// rest after it. In an interpolating one, the home directory's spellings
/// become [`HOME`] and Ruby's other `#{…}` become [`VALUE`].
fn delimited(s: &str, open: char, close: char, interpolates: bool) -> Option<(String, &str)> {
    let mut out = String::new();
    let mut depth = 0usize;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if escaped {
            escaped = false;
            if interpolates {
                out.push(match c {
                    'n' => '\n',
                    't' => '\t',
                    c => c,
                });
            } else {
                if c != '\\' && c != open && c != close {
                    out.push('\\');
                }
                out.push(c);
            }
        } else if c == '\\' {
            escaped = true;
        } else if c == close && depth == 0 {
            let text = if interpolates {
                interpolated(&home(&out), "#{", '}')
            } else {
                out
            };
            return Some((text, &s[i + c.len_utf8()..]));
        } else {
            if open != close {
                if c == open {
                    depth += 1;
                } else if c == close {
                    depth -= 1;
                }
            }
            out.push(c);
        }
    }
    None
}

/// `text` with each `OPEN…CLOSE` interpolation (`#{x}`, `${x}`, `{x}`)
/// replaced by [`HOME`] when it is a home expression, else by [`VALUE`].
fn interpolated(text: &str, open: &str, close: char) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(open) {
        out.push_str(&rest[..at]);
        let inner = &rest[at + open.len()..];
        let Some(end) = inner.find(close) else {
            out.push_str(&rest[at..]);
            return out;
        };
        out.push_str(&value_of(&inner[..end]));
        rest = &inner[end + close.len_utf8()..];
    }
    out.push_str(rest);
    out
}

/// The home directory's spellings in an interpolating Perl or Ruby string,
/// replaced by [`HOME`].
fn home(text: &str) -> String {
    let mut t = text.to_string();
    for spelling in [
        "$ENV{HOME}",
        "$ENV{'HOME'}",
        "$ENV{\"HOME\"}",
        "${ENV{HOME}}",
        "#{ENV['HOME']}",
        "#{ENV[\"HOME\"]}",
        "#{ENV.fetch('HOME')}",
        "#{ENV.fetch(\"HOME\")}",
        "#{Dir.home}",
        "#{Dir.home()}",
        "#{File.expand_path('~')}",
        "#{File.expand_path(\"~\")}",
    ] {
        if t.contains(spelling) {
            t = t.replace(spelling, HOME);
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(code: &str) -> Vec<String> {
        code_commands(code)
    }

    #[test]
    fn calls_without_parentheses_are_read() {
        // Review s8 F4: the usual Perl and Ruby form.
        assert_eq!(found(r#"system "rm -rf ~""#), ["rm -rf ~"]);
        assert_eq!(found(r#"system "rm -rf ~";"#), ["rm -rf ~"]);
        assert_eq!(found("system 'rm -rf ~' or die"), ["rm -rf ~"]);
        assert_eq!(
            found(r#"exec "rm -rf /home/alice""#),
            ["rm -rf /home/alice"]
        );
        assert_eq!(found(r#"spawn "rm -rf ~""#), ["rm -rf ~"]);
        assert_eq!(found(r#"Process.spawn "rm -rf ~""#), ["rm -rf ~"]);
        assert_eq!(found(r#"Kernel.system "rm -rf ~""#), ["rm -rf ~"]);
        assert_eq!(found(r#"CORE::system "rm -rf ~""#), ["rm -rf ~"]);
        assert_eq!(found(r#"readpipe "rm -rf ~""#), ["rm -rf ~"]);
        assert_eq!(found(r#"IO.popen "rm -rf ~""#), ["rm -rf ~"]);
        assert_eq!(found(r#"x = 1; system("rm -rf ~")"#), ["rm -rf ~"]);
        assert_eq!(found("system\n  \"rm -rf ~\""), ["rm -rf ~"]);
        assert_eq!(found("system q(rm -rf ~)"), ["rm -rf ~"]);
        assert_eq!(found("system qq{rm -rf ~}"), ["rm -rf ~"]);
        assert_eq!(found("system %q(rm -rf ~)"), ["rm -rf ~"]);
        assert_eq!(found("system %(rm -rf ~)"), ["rm -rf ~"]);
        // Ruby's keyword options after the command.
        assert_eq!(found(r#"system "rm -rf ~", exception: true"#), ["rm -rf ~"]);
        // Ruby's environment hash, Perl's indirect object.
        assert_eq!(found(r#"system({"A" => "1"}, "rm -rf ~")"#), ["rm -rf ~"]);
        assert_eq!(
            found(r#"exec { "sh" } "sh", "-c", "rm -rf ~""#),
            ["sh -c 'rm -rf ~'"]
        );
    }

    #[test]
    fn lists_are_an_argv() {
        assert_eq!(
            found(r#"system "rm", "-rf", "/home/alice""#),
            ["rm -rf /home/alice"]
        );
        assert_eq!(
            found(r#"system("rm", "-rf", "/home/alice")"#),
            ["rm -rf /home/alice"]
        );
        assert_eq!(found("exec qw(rm -rf /home/alice)"), ["rm -rf /home/alice"]);
        assert_eq!(
            found("system(*%w[rm -rf /home/alice])"),
            ["rm -rf /home/alice"]
        );
        assert_eq!(
            found(r#"IO.popen(["rm", "-rf", "/home/alice"])"#),
            ["rm -rf /home/alice"]
        );
        // No shell reads the words: a `~` or a space is the word itself.
        assert_eq!(found(r#"system "rm", "-rf", "~""#), ["rm -rf '~'"]);
        assert_eq!(found(r#"system "rm", "a b; c""#), ["rm 'a b; c'"]);
        // A computed value is an unknown word; a computed command is `eval`
        // of one (review s9 G3).
        assert_eq!(
            found(r#"system "rm", "-rf", $dir"#),
            [r#"rm -rf "${CODE_VALUE}""#]
        );
        assert_eq!(found("system $cmd"), [EVAL_VALUE]);
        assert_eq!(found("system @argv"), [EVAL_VALUE]);
        assert_eq!(found(r#"$c="rm -rf ~"; system $c"#), [EVAL_VALUE]);
        assert_eq!(
            found(r#"my @a=("rm","-rf","/home/alice"); system @a"#),
            [EVAL_VALUE]
        );
        assert_eq!(found(r#"c="rm -rf ~"; system c"#), [EVAL_VALUE]);
        assert_eq!(found("system c if ok"), [EVAL_VALUE]);
        assert_eq!(found("exec $cmd or die"), [EVAL_VALUE]);
    }

    #[test]
    fn the_home_as_a_value_is_the_home() {
        // Review s9 G3: Perl's `%ENV`, Ruby's `Dir.home`, Python's
        // `os.environ` as an argv word.
        assert_eq!(
            found(r#"system "rm","-rf",$ENV{HOME}"#),
            [r#"rm -rf "${HOME}""#]
        );
        assert_eq!(
            found(r#"system("rm","-rf",$ENV{HOME})"#),
            [r#"rm -rf "${HOME}""#]
        );
        assert_eq!(
            found(r#"Process.spawn("rm", "-rf", Dir.home)"#),
            [r#"rm -rf "${HOME}""#]
        );
        assert_eq!(
            found(r#"subprocess.run(["rm", "-rf", os.path.expanduser("~/code")])"#),
            [r#"rm -rf "${HOME}"/code"#]
        );
    }

    #[test]
    fn python_and_node_spawners_are_read() {
        let home = [r#"rm -rf /home/alice"#];
        // Review s9 G3: `os.exec*`, `os.spawn*`, `os.posix_spawn*`,
        // `pty.spawn`.
        assert_eq!(
            found(r#"import os; os.spawnvp(os.P_WAIT,"rm", ["rm","-rf","/home/alice"])"#),
            home
        );
        assert_eq!(
            found(r#"os.posix_spawnp("rm", ["rm","-rf","/home/alice"], {})"#),
            home
        );
        assert_eq!(
            found(r#"os.execvp("rm", ["rm", "-rf", os.environ["HOME"]])"#),
            [r#"rm -rf "${HOME}""#]
        );
        assert_eq!(
            found(r#"os.execl("/bin/rm", "rm", "-rf", "/home/alice")"#),
            ["/bin/rm -rf /home/alice"]
        );
        assert_eq!(found(r#"os.execvp(prog, args)"#), [EVAL_VALUE]);
        assert_eq!(
            found(r#"import pty; pty.spawn(["rm","-rf","/home/alice"])"#),
            home
        );
        // Node's program and argument list, and template strings.
        assert_eq!(
            found(r#"cp.spawnSync("rm", ["-rf", "/home/alice"], {stdio: "inherit"})"#),
            home
        );
        assert_eq!(found(r#"execFileSync('rm', ['-rf', '/home/alice'])"#), home);
        assert_eq!(
            found("execSync(`rm -rf ${os.homedir()}`)"),
            ["rm -rf ${HOME}"]
        );
        assert_eq!(found("execSync(`rm -rf ${dir}`)"), ["rm -rf ${CODE_VALUE}"]);
        // Computed commands, concatenations and keyword arguments.
        assert_eq!(found("os.system(cmd)"), [EVAL_VALUE]);
        assert_eq!(found("subprocess.run(cmd, shell=True)"), [EVAL_VALUE]);
        assert_eq!(
            found(r#"os.system("rm -rf " + d)"#),
            ["rm -rf ${CODE_VALUE}"]
        );
        assert_eq!(
            found(r#"os.system(f"rm -rf {d}/x {{y}}")"#),
            ["rm -rf ${CODE_VALUE}/x {y}"]
        );
        assert_eq!(found(r#"system("rm -rf " $1)"#), ["rm -rf ${CODE_VALUE}"]);
        assert_eq!(found(r#"system "rm -rf #{dir}""#), ["rm -rf ${CODE_VALUE}"]);
        assert_eq!(
            found(r#"subprocess.run(args=["rm", "-rf", "/home/alice"], check=True)"#),
            home
        );
        assert_eq!(
            found(r#"subprocess.run(["ls", "-l"], check=True, capture_output=True)"#),
            ["ls -l"]
        );
        assert_eq!(found(r#"subprocess.run("ls -l", shell=True)"#), ["ls -l"]);
        // Method names read only where they are the process calls.
        assert!(found("asyncio.run(main())").is_empty());
        assert!(found("m = re.exec(line)").is_empty());
        assert_eq!(found("child_process.exec(cmd)"), [EVAL_VALUE]);
        assert_eq!(found("exec(code)"), [EVAL_VALUE]);
        assert!(found("app.call(handler)").is_empty());
        assert_eq!(found("subprocess.call(argv)"), [EVAL_VALUE]);
    }

    #[test]
    fn names_given_to_calls_and_modules_are_followed() {
        let home = ["rm -rf ~"];
        assert_eq!(found("from os import system as go\ngo('rm -rf ~')"), home);
        assert_eq!(found("import os\nx = os.system\nx('rm -rf ~')"), home);
        assert_eq!(
            found(r#"const { execSync: run } = require("child_process"); run("rm -rf ~")"#),
            home
        );
        assert_eq!(
            found("import subprocess as sp\nsp.run(cmd, shell=True)"),
            [EVAL_VALUE]
        );
        assert_eq!(
            found(r#"const cp = require("child_process"); cp.exec(cmd)"#),
            [EVAL_VALUE]
        );
        assert_eq!(
            found("import shutil as s\nf = s.rmtree\nf(p)"),
            [r#"rm -r -- "${CODE_VALUE}""#]
        );
        // Calls looked up by a computed name.
        for code in [
            r#"import os; getattr(os, "sys" + "tem")("rm -rf ~")"#,
            r#"getattr(__import__("os"), n)(c)"#,
            "import os as o; vars(o)[n](c)",
            "os.__dict__['system'](c)",
            r#"const cp = require("child_process"); cp[m](c)"#,
            r#"Kernel.send(:system, "rm -rf ~")"#,
            r#"method(:system).call(c)"#,
        ] {
            assert!(found(code).contains(&EVAL_VALUE.to_string()), "{code}");
        }
        // Not aliases: a call's result, a comparison, other modules.
        assert!(found("out = os.popen\n").is_empty());
        assert_eq!(found("r = subprocess.run(['ls'])\nprint(r)"), ["ls"]);
        assert!(found("ok = x == os.system\n").is_empty());
        assert!(found("getattr(self, name)()").is_empty());
        assert!(found("sock.send(data)").is_empty());
        assert!(found(r#"method(:run).call"#).is_empty());
    }

    #[test]
    fn removers_are_read_in_every_form() {
        // Review s9 G3: Ruby without parentheses, Perl's File::Path.
        assert_eq!(
            found(r#"FileUtils.rm_rf "/home/alice""#),
            ["rm -r -- /home/alice"]
        );
        assert_eq!(
            found(r#"FileUtils.rm_rf ENV["HOME"]"#),
            [r#"rm -r -- "${HOME}""#]
        );
        assert_eq!(found("FileUtils.rm_rf Dir.home"), [r#"rm -r -- "${HOME}""#]);
        assert_eq!(
            found("FileUtils.remove_entry Dir.home"),
            [r#"rm -r -- "${HOME}""#]
        );
        assert_eq!(
            found("use File::Path; rmtree($ENV{HOME})"),
            [r#"rm -r -- "${HOME}""#]
        );
        assert_eq!(
            found(r#"use File::Path qw(remove_tree); remove_tree glob "~""#),
            [r#"rm -r -- "${HOME}""#]
        );
        assert_eq!(
            found("shutil.rmtree(os.path.expanduser('~/code'))"),
            [r#"rm -r -- "${HOME}"/code"#]
        );
        assert_eq!(
            found("shutil.rmtree('build', ignore_errors=True)"),
            ["rm -r -- build"]
        );
        assert_eq!(found("shutil.rmtree(tmp)"), [r#"rm -r -- "${CODE_VALUE}""#]);
        assert_eq!(
            found("remove_tree($dir, {verbose => 1})"),
            [r#"rm -r -- "${CODE_VALUE}""#]
        );
        assert_eq!(
            found(r#"fs.rmSync("/", {recursive: true})"#),
            ["rm -r -- /"]
        );
        assert_eq!(
            found(r#"await fs.promises.rm(os.homedir(), { recursive: true, force: true })"#),
            [r#"rm -r -- "${HOME}""#]
        );
        assert!(found(r#"fs.rmSync("x.txt")"#).is_empty());
        assert!(found("items.rm(x)").is_empty());
        // Julia, R, Deno, Emacs Lisp.
        let home = [r#"rm -r -- "${HOME}""#];
        assert_eq!(found("rm(homedir(), recursive=true)"), home);
        assert_eq!(
            found(r#"unlink(Sys.getenv("HOME"), recursive = TRUE)"#),
            home
        );
        assert_eq!(
            found(r#"Deno.removeSync(Deno.env.get("HOME"), {recursive: true})"#),
            home
        );
        assert_eq!(
            found(r#"await Deno.remove(Deno.env.get("HOME"), { recursive: true })"#),
            home
        );
        assert!(found(r#"unlink("a.txt")"#).is_empty());
        assert!(found("xs.remove(x)").is_empty());
        assert!(!found(r#"(delete-directory "~" t)"#).is_empty());
    }

    #[test]
    fn the_home_in_a_string_is_the_shells() {
        assert_eq!(found(r#"system "rm -rf $ENV{HOME}""#), ["rm -rf ${HOME}"]);
        assert_eq!(
            found(r##"system "rm -rf #{Dir.home}""##),
            ["rm -rf ${HOME}"]
        );
        assert_eq!(
            found(r#"system "rm", "-rf", "$ENV{HOME}/.ssh""#),
            [r#"rm -rf "${HOME}"/.ssh"#]
        );
        // Not in a single-quoted string (the shell expands `$HOME` there).
        assert_eq!(found(r"system 'rm -rf $ENV{HOME}'"), ["rm -rf $ENV{HOME}"]);
    }

    #[test]
    fn piped_opens_are_read() {
        assert_eq!(found(r#"open(my $fh, "-|", "rm -rf ~")"#), ["rm -rf ~"]);
        assert_eq!(
            found(r#"open my $fh, "|-", "rm", "-rf", "/home/alice""#),
            ["rm -rf /home/alice"]
        );
        assert_eq!(found(r#"open(FH, "rm -rf ~ |")"#), ["rm -rf ~"]);
        assert_eq!(found(r#"open FH, "| rm -rf ~""#), ["rm -rf ~"]);
        assert_eq!(found(r#"open("|rm -rf ~")"#), ["rm -rf ~"]);
        assert!(found(r#"open(my $fh, "<", "data.txt")"#).is_empty());
        assert!(found(r#"File.open("x.txt", "w") { |f| f.write("a|") }"#).is_empty());
    }

    #[test]
    fn other_words_are_not_calls() {
        assert!(found("my $system = 1; print $system").is_empty());
        assert!(found(r#"$sth->execute("x")"#).is_empty());
        assert!(found(r#"print "the system is up""#).is_empty());
        assert!(found("filesystem 'x'").is_empty());
        assert!(found("system").is_empty());
        assert!(found("system(").is_empty());
        assert!(found("system \"unterminated").is_empty());
        assert!(found("{system => 1}").is_empty());
        // Names inside prose in a string.
        assert!(found(r#"print("run the system check")"#).is_empty());
        assert!(found(r#"print("use system calls")"#).is_empty());
        assert!(found(r#"print("shutil.rmtree is used to clean up")"#).is_empty());
        assert!(found(r#"ctx = mp.get_context("spawn")"#).is_empty());
        assert!(found(r#"(shell-command-to-string "ls")"#) == ["ls"]);
    }

    #[test]
    fn long_code_is_bounded() {
        let code: String = (0..1000).map(|i| format!("system \"ls {i}\";")).collect();
        assert_eq!(found(&code).len(), MAX_FOUND + 1);
        // Code that does not parse is a computed command.
        let code = format!("system {}", "(".repeat(10_000));
        assert_eq!(found(&code), [EVAL_VALUE]);
    }
}
