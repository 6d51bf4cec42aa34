//! The rules for individual commands, and the wrappers (`sudo`, `env`,
//! `timeout`, `xargs`, …) that are looked through to find the command that
//! really runs.
//!
//! `exec.rs` resolves one simple command's first word, `wrappers.rs` looks
//! through its wrappers, and `dispatch.rs` sends the command found to the
//! file of its family (`builtins`, `files`, `git`, `interpreters`,
//! `network`, `streams`, `systemd`, `xargs`); `fds.rs` judges operands
//! that name file descriptors. This file holds what the families share:
//! program names (`base_name`, `is_shell`, …), option skipping, and the
//! outputs of decoders, encoders and `mktemp`.

use crate::opts::getopt;
use crate::opts::runopts;
use crate::paths::Place;
use crate::syntax::{self, Field, Output, Seg};
use crate::walk::{self, Analysis, Binding, Cwd, Env, Target, dyn_field, fields_output};

mod builtins;
mod dispatch;
mod exec;
mod fds;
mod files;
mod git;
mod interpreters;
mod network;
mod streams;
mod systemd;
mod wrappers;
mod xargs;

use dispatch::Reached;
pub(crate) use fds::descriptor;
pub(crate) use files::find_starts;

/// Shells whose `-c` script and standard input are analysed.
pub const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "rbash", "fish", "pdksh", "posh",
];

/// Commands that fetch content from the network.
pub const DOWNLOADERS: &[&str] = &[
    "curl",
    "wget",
    "fetch",
    "http",
    "https",
    "xh",
    "aria2c",
    "lwp-request",
    "GET",
    "nc",
    "ncat",
    "netcat",
    "socat",
    "telnet",
    "wget2",
    "curlie",
];

/// Whether `name` is a client that fetches the URLs it is given: a
/// [`DOWNLOADERS`] entry or an HTTP client (`httpie`, `hurl`, …). Given a
/// local `file:` URL it reads that file (review s23 R10).
pub fn fetches_urls(name: &str) -> bool {
    DOWNLOADERS.contains(&name)
        || matches!(name, "http" | "https" | "xh" | "httpie" | "curlie" | "hurl")
}

/// Command name of a path: `/usr/bin/rm` gives `rm`.
pub fn base_name(text: &str) -> String {
    text.rsplit('/').next().unwrap_or(text).to_string()
}

/// Whether `name` is a shell.
pub fn is_shell(name: &str) -> bool {
    SHELLS.contains(&name)
}

/// Whether `name` is a scripting-language interpreter (not a shell).
pub fn is_interpreter(name: &str) -> bool {
    name.starts_with("python")
        || name.starts_with("pypy")
        || name.starts_with("perl")
        || name.starts_with("ruby")
        || name.starts_with("php")
        || name.starts_with("lua")
        || name.starts_with("tclsh")
        || matches!(
            name,
            "node"
                | "nodejs"
                | "deno"
                | "bun"
                | "tclsh"
                | "wish"
                | "jimsh"
                | "expect"
                | "pwsh"
                | "powershell"
                | "pwsh.exe"
                | "powershell.exe"
                | "Rscript"
                | "R"
                | "julia"
                | "osascript"
        )
}

/// The normalised form of a simple command that patterns are matched
/// against: the command's base name and its arguments after quote removal,
/// joined by single spaces.
pub fn normalised(argv: &[Field]) -> String {
    let mut s = String::new();
    for (i, f) in argv.iter().enumerate() {
        if i > 0 {
            s.push(' ');
            s.push_str(&f.text());
        } else {
            s.push_str(&base_name(&f.text()));
        }
    }
    s
}

/// Whether a field holds a variable whose value is not known (as opposed to
/// a command substitution, which the analysis has seen).
///
/// Output of a command substitution that reads a variable (`$(echo $c)`,
/// `` `printf %s "$c"` ``) counts as that variable: what it prints is the
/// unknown value passed through.
pub(crate) fn has_unknown_variable(f: &Field) -> bool {
    f.segs.iter().any(|s| match s {
        Seg::Dyn { raw, out, .. } => {
            matches!(out, Output::Unknown)
                && ((raw.starts_with('$') && !raw.starts_with("$("))
                    || (raw.starts_with("$(") || raw.starts_with('`')) && reads_variable(raw))
        }
        _ => false,
    })
}

/// Whether shell text expands a variable (`$x`, `${x}`, `$1`, `$@`).
fn reads_variable(text: &str) -> bool {
    let b = text.as_bytes();
    b.windows(2).any(|w| {
        w[0] == b'$' && (w[1].is_ascii_alphanumeric() || matches!(w[1], b'_' | b'{' | b'@' | b'*'))
    })
}

/// At most this many (start path, `-exec` command) pairs of one `find`
/// are analysed; more escalates as `shell.too-deep`.
const MAX_FIND_EXEC_RUNS: usize = 32;

/// Index of the first argument after the options of a wrapper (skipping a
/// `--` that ends them). `with_value`: options that take a separate value
/// (`-u`, `--user`, and single-dash long options such as screen's
/// `-Logfile`, matched whole). Short options in `with_value` also accept an
/// attached value (`-uroot`); in a cluster the first one taking a value
/// ends it (`-dmS NAME`).
pub(crate) fn skip_options(args: &[Field], with_value: &[&str]) -> usize {
    let mut i = 0;
    while i < args.len() {
        let t = args[i].text();
        if t == "--" {
            return i + 1;
        }
        if !t.starts_with('-') || t == "-" {
            return i;
        }
        if t.starts_with("--") || (t.len() > 2 && with_value.contains(&t.as_str())) {
            if !t.contains('=') && with_value.contains(&t.as_str()) {
                i += 1;
            }
        } else {
            // A cluster: the first option taking a value ends it.
            for (k, c) in t[1..].char_indices() {
                let opt = format!("-{c}");
                if with_value.contains(&opt.as_str()) {
                    if k + c.len_utf8() == t.len() - 1 {
                        i += 1;
                    }
                    break;
                }
            }
        }
        i += 1;
    }
    i.min(args.len())
}

/// Short-option letters and long options of one argument list, up to `--`.
struct Flags {
    short: String,
    long: Vec<String>,
    positional: Vec<usize>,
}

fn flags(args: &[Field]) -> Flags {
    let mut f = Flags {
        short: String::new(),
        long: Vec::new(),
        positional: Vec::new(),
    };
    let mut ended = false;
    for (i, a) in args.iter().enumerate() {
        let t = a.text();
        if ended || t == "-" || !t.starts_with('-') {
            f.positional.push(i);
        } else if t == "--" {
            ended = true;
        } else if let Some(l) = t.strip_prefix("--") {
            f.long.push(l.to_string());
        } else {
            f.short.push_str(&t[1..]);
        }
    }
    f
}

/// At most this many items of a known `xargs` input are read; a longer
/// input is held, not judged by a prefix (review s19 S5).
const MAX_XARGS_ITEMS: usize = 256;

/// `command x`, `exec x`: the shell looks `x` up in its hash table, so a
/// name bound by `hash -p PATH x` runs PATH (aliases are not expanded
/// there) (review-s8 F2).
fn hashed(mut argv: Vec<Field>, env: &Env) -> Vec<Field> {
    if let Some(first) = argv.first()
        && let Some(name) = first.static_text()
        && let Some(walk::Binding::Program(path)) = env.names.get(&name)
    {
        argv[0] = Field::lit(path.clone());
    }
    argv
}

impl Analysis<'_> {
    /// Report a command that runs downloaded or decoded content.
    pub(crate) fn report_taint(&mut self, out: &Output, sink: &str) {
        match out {
            Output::Downloaded => self.report(
                true,
                "shell.remote-exec",
                format!(
                    "The command runs content downloaded from the network ({sink}) without review: \
                     remote code execution. Download the file, inspect it, then run it as a separate step."
                ),
            ),
            Output::Decoded => self.report(
                true,
                "shell.decoded-exec",
                format!(
                    "The command decodes obfuscated content (base64, hex, reversed or transformed text) and runs it \
                     ({sink}). Run the plain command instead, so it can be checked."
                ),
            ),
            _ => {}
        }
    }

    fn network_tool(&mut self, name: &str, args: &[Field]) {
        let texts: Vec<String> = args.iter().map(Field::text).collect();
        let reverse = match name {
            "nc" | "ncat" | "netcat" => texts.iter().any(|t| {
                matches!(t.as_str(), "--exec" | "--sh-exec" | "--lua-exec")
                    || (t.starts_with('-')
                        && !t.starts_with("--")
                        && (t.contains('e') || (name == "ncat" && t.contains('c'))))
            }),
            "socat" => texts.iter().any(|t| {
                let l = t.to_ascii_lowercase();
                l.starts_with("exec:") || l.starts_with("system:")
            }),
            _ => false,
        };
        if reverse {
            self.report(
                true,
                "shell.reverse-shell",
                format!(
                    "`{name}` is given a program to run for a network connection: this hands a shell to a remote host \
                     (a reverse or bind shell). Do not run it."
                ),
            );
        }
    }
}

/// Commands that a glob in the command position is checked against.
const GLOB_CANDIDATES: &[&str] = &[
    "rm", "dd", "mkfs", "shred", "chmod", "chown", "find", "xargs", "shutdown", "reboot", "halt",
    "poweroff", "sh", "bash", "zsh", "dash", "python", "python3", "perl", "curl", "wget", "nc",
    "sudo", "su", "eval", "git", "wipefs", "mkswap",
];

/// The dangerous command a command-position glob (`/???/r?`) can match.
fn glob_command(pattern: &str) -> Option<&'static str> {
    let m = globset::Glob::new(pattern).ok()?.compile_matcher();
    GLOB_CANDIDATES.iter().copied().find(|c| m.is_match(c))
}

/// The default of `${NAME:-default}` (also `-`, `:=`, `=`) when it is plain
/// text.
fn default_value_of(raw: &str) -> Option<String> {
    let inner = raw.strip_prefix("${")?.strip_suffix('}')?;
    let name_len = inner
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|&n| n > 0)?;
    let rest = &inner[name_len..];
    let default = rest
        .strip_prefix(":-")
        .or_else(|| rest.strip_prefix(":="))
        .or_else(|| rest.strip_prefix('-'))
        .or_else(|| rest.strip_prefix('='))?;
    let plain = default
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c));
    (plain && !default.is_empty()).then(|| default.to_string())
}

/// Files a downloader writes: `curl -o F`, `curl -O URL` (the URL's last
/// segment), `wget -O F`, `wget URL` (likewise).
fn download_targets(name: &str, args: &[Field]) -> Vec<String> {
    let texts: Vec<String> = args.iter().map(Field::text).collect();
    let mut files = Vec::new();
    let mut remote_name = name.starts_with("wget");
    let mut i = 0;
    while let Some(t) = texts.get(i) {
        // `-o F`, `-oF`, `-qo F`, `-qoF`, `--output F`, `--output=F`.
        let value = |flag: char, long: &str| -> Option<Option<String>> {
            if t == long {
                Some(texts.get(i + 1).cloned())
            } else if let Some(v) = t.strip_prefix(&format!("{long}=")) {
                Some(Some(v.to_string()))
            } else if t.starts_with('-') && !t.starts_with("--") {
                let at = t.find(flag)?;
                let rest = &t[at + flag.len_utf8()..];
                if rest.is_empty() {
                    Some(texts.get(i + 1).cloned())
                } else {
                    Some(Some(rest.to_string()))
                }
            } else {
                None
            }
        };
        let explicit = if name.starts_with("wget") {
            value('O', "--output-document")
        } else if name == "curl" {
            if t == "--remote-name"
                || (t.starts_with('-') && !t.starts_with("--") && t.contains('O'))
            {
                remote_name = true;
            }
            value('o', "--output")
        } else {
            None
        };
        if let Some(f) = explicit {
            files.extend(f);
            remote_name = false;
            i += 2;
            continue;
        }
        i += 1;
    }
    if remote_name {
        for t in &texts {
            if let Some(rest) = t.split_once("://").map(|(_, r)| r) {
                let path = rest.split(['?', '#']).next().unwrap_or("");
                if let Some(last) = path
                    .rsplit('/')
                    .next()
                    .filter(|l| !l.is_empty() && path.contains('/'))
                {
                    files.push(last.to_string());
                }
            }
        }
    }
    files
}

/// The `NAME=value` words among `args` (`export A=1`, `env A=1 cmd`),
/// with the pieces of the value kept.
fn assignments_of(args: &[Field]) -> Vec<(String, Field)> {
    let mut found = Vec::new();
    for a in args {
        let Some(Seg::Lit { text, quoted }) = a.segs.first() else {
            continue;
        };
        let Some((name, first)) = text.split_once('=') else {
            continue;
        };
        let plain = name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        let exported_function = name.starts_with("BASH_FUNC_") && name.ends_with("%%");
        if name.is_empty() || !(plain || exported_function) {
            continue;
        }
        let mut value = Field::default();
        if !first.is_empty() {
            value.segs.push(Seg::Lit {
                text: first.to_string(),
                quoted: *quoted,
            });
        }
        value.segs.extend(a.segs[1..].iter().cloned());
        found.push((name.to_string(), value));
    }
    found
}

/// Positional arguments (not options) of a command, honouring `--`.
fn flags_positional(args: &[Field]) -> Vec<&Field> {
    flags(args)
        .positional
        .into_iter()
        .map(|i| &args[i])
        .collect()
}

/// Python modules (`python3 -m M FILE…`) that read their operands as
/// source files to check or format, never running them: items from a file
/// the check cannot read may be appended to them (review s21 W3).
const XARGS_PYTHON_FILE_MODULES: &[&str] = &[
    "black",
    "isort",
    "flake8",
    "pylint",
    "mypy",
    "pyflakes",
    "pycodestyle",
    "autopep8",
    "yapf",
    "ruff",
    "py_compile",
    "compileall",
    "tabnanny",
];

/// A shell variable no command sets, standing for an input the check
/// cannot see in a job line it builds: the line's analysis reads it as a
/// value only known at run time.
const PARALLEL_UNSEEN: &str = "__toolvet_parallel_input__";

/// `args` as one field, separated by spaces (`eval a b`, `sg GROUP a b`).
pub(crate) fn join_fields(args: &[Field]) -> Field {
    let mut f = Field::default();
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            f.segs.push(Seg::Lit {
                text: " ".into(),
                quoted: true,
            });
        }
        f.segs.extend(a.segs.iter().cloned());
    }
    f
}

/// Output of a decoder: downloaded stays downloaded, anything else is
/// decoded (obfuscated).
fn decoded(stdin: &Output) -> Output {
    match stdin {
        Output::Downloaded => Output::Downloaded,
        _ => Output::Decoded,
    }
}

/// Output of a transforming filter: a known text that is transformed
/// before running is treated as obfuscated; taints pass through.
fn decoded_if_static(stdin: &Output) -> Output {
    match stdin {
        Output::Static(s) if !s.is_empty() => Output::Decoded,
        Output::Downloaded | Output::Decoded | Output::Secret => stdin.clone(),
        _ => Output::Unknown,
    }
}

/// Output of an ordinary filter or command.
fn pass_through(stdin: &Output) -> Output {
    decoded_if_static(stdin)
}

/// Output of an encoder (`base64`, `xxd`, `gzip`): secrets stay secrets.
fn encoded(stdin: &Output) -> Output {
    if stdin.is_secret() {
        Output::Secret
    } else {
        Output::Unknown
    }
}

/// What `mktemp` prints: a new name in the temporary directory (`-d` makes
/// it a directory), `/tmp/tmp.XXXXXXXXXX` unless `-p DIR`/`--tmpdir=DIR` or
/// a template with a directory says otherwise. Known, so that `d=$(mktemp
/// -d); …; rm -rf "$d"` deletes a scratch path, not an unknown one.
fn mktemp_output(args: &[Field]) -> Output {
    let mut dir = "/tmp".to_string();
    let mut template: Option<String> = None;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let Some(t) = a.static_text() else {
            return Output::Unknown;
        };
        if t == "-p" || t == "--tmpdir" {
            match args.get(i + 1).and_then(Field::static_text) {
                Some(d) if d.starts_with('/') => dir = d,
                _ => return Output::Unknown,
            }
            i += 2;
            continue;
        }
        if let Some(d) = t.strip_prefix("--tmpdir=") {
            if !d.starts_with('/') {
                return Output::Unknown;
            }
            dir = d.to_string();
        } else if !t.starts_with('-') {
            template = Some(t);
        }
        i += 1;
    }
    let name = match template {
        Some(t) if t.starts_with('/') => return Output::Static(format!("{t}\n")),
        Some(t) if t.contains('/') => return Output::Unknown,
        Some(t) => t,
        None => "tmp.XXXXXXXXXX".to_string(),
    };
    Output::Static(format!("{}/{name}\n", dir.trim_end_matches('/')))
}

/// Whether `name` is a Python interpreter (`python3`, `python3.12`, `pypy3`).
pub(crate) fn is_python(name: &str) -> bool {
    name.starts_with("python") || name.starts_with("pypy")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(v: &[&str]) -> Vec<Field> {
        v.iter().map(|s| Field::lit(*s)).collect()
    }

    /// Global options first, then the starts up to the expression; `.`
    /// when none are given.
    #[test]
    fn find_starts_are_read_once_as_find_reads_them() {
        let starts = |v: &[&str]| {
            let (starts, i) = find_starts(&fields(v));
            (starts.iter().map(Field::text).collect::<Vec<_>>(), i)
        };
        assert_eq!(
            starts(&["-L", "-O2", "-D", "tree", "a", "b", "-name", "x"]),
            (vec!["a".to_string(), "b".to_string()], 6)
        );
        assert_eq!(starts(&[]), (vec![".".to_string()], 0));
        assert_eq!(
            starts(&["(", "-name", "x", ")"]),
            (vec![".".to_string()], 0)
        );
        assert_eq!(
            starts(&["d", "!", "-name", "x"]),
            (vec!["d".to_string()], 1)
        );
        assert_eq!(starts(&["-D"]), (vec![".".to_string()], 2));
    }

    #[test]
    fn option_skipping() {
        assert_eq!(skip_options(&fields(&["-u", "root", "rm"]), &["-u"]), 2);
        assert_eq!(skip_options(&fields(&["-uroot", "rm"]), &["-u"]), 1);
        assert_eq!(skip_options(&fields(&["-E", "--", "-rm"]), &["-u"]), 2);
        assert_eq!(
            skip_options(&fields(&["--user", "x", "ls"]), &["--user"]),
            2
        );
        assert_eq!(skip_options(&fields(&["--user=x", "ls"]), &["--user"]), 1);
        assert_eq!(skip_options(&fields(&["-nu", "x", "ls"]), &["-u"]), 2);
        // A single-dash long option named whole takes its value.
        assert_eq!(
            skip_options(
                &fields(&["-Logfile", "f", "-dmS", "n", "ls"]),
                &["-Logfile", "-S"]
            ),
            4
        );
    }

    #[test]
    fn downloads() {
        let f = |v: &[&str]| download_targets(v[0], &fields(&v[1..]));
        assert_eq!(f(&["curl", "-fsSL", "-o", "i.sh", "https://x/y"]), ["i.sh"]);
        assert_eq!(f(&["curl", "-oi.sh", "https://x/y"]), ["i.sh"]);
        assert_eq!(
            f(&["curl", "-O", "https://x/dl/install.sh?v=1"]),
            ["install.sh"]
        );
        assert_eq!(f(&["wget", "https://x/dl/install.sh"]), ["install.sh"]);
        assert_eq!(f(&["wget", "-qO", "-", "https://x/a"]), ["-"]);
        assert_eq!(
            f(&["wget", "--output-document=a.sh", "https://x/a"]),
            ["a.sh"]
        );
        assert!(f(&["curl", "https://x/a"]).is_empty());
    }

    #[test]
    fn guesses() {
        assert_eq!(default_value_of("${X:-rm}"), Some("rm".into()));
        assert_eq!(default_value_of("${X-/bin/rm}"), Some("/bin/rm".into()));
        assert_eq!(default_value_of("${X:-$(id)}"), None);
        assert_eq!(default_value_of("$X"), None);
        assert_eq!(glob_command("r?"), Some("rm"));
        assert_eq!(glob_command("mkf*"), Some("mkfs"));
        assert_eq!(glob_command("l?"), None);
    }

    #[test]
    fn names() {
        assert_eq!(base_name("/usr/bin/rm"), "rm");
        assert_eq!(base_name("rm"), "rm");
        assert!(is_interpreter("python3.12"));
        assert!(is_shell("bash"));
        assert!(!is_shell("bashful"));
        assert_eq!(
            normalised(&fields(&["/bin/rm", "-rf", "x y"])),
            "rm -rf x y"
        );
    }
}
