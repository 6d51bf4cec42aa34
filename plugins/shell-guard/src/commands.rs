//! The rules for individual commands, and the wrappers (`sudo`, `env`,
//! `timeout`, `xargs`, …) that are looked through to find the command that
//! really runs.

use crate::getopt;
use crate::paths::Place;
use crate::runopts;
use crate::syntax::{self, Field, Output, Seg};
use crate::walk::{self, Analysis, Binding, Cwd, Env, Target, dyn_field, fields_output};

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

/// Whether `find`'s name test `test PATTERN` may match the start path
/// itself: `-name` against its last component, `-path` against the whole
/// path. A start or pattern that is not known, or a pattern that does not
/// compile, may match.
fn start_matches(start: &Field, test: &str, pattern: &str) -> bool {
    let Some(text) = start.static_text() else {
        return true;
    };
    let subject = if matches!(test, "-name" | "-iname") {
        text.trim_end_matches('/').rsplit('/').next().unwrap_or("")
    } else {
        text.as_str()
    };
    let subject = if subject.is_empty() {
        text.as_str()
    } else {
        subject
    };
    match globset::GlobBuilder::new(pattern)
        .case_insensitive(test.starts_with("-i"))
        .literal_separator(false)
        .build()
    {
        Ok(g) => g.compile_matcher().is_match(subject),
        Err(_) => true,
    }
}

/// At most this many (start path, `-exec` command) pairs of one `find`
/// are analysed; more escalates as `shell.too-deep`.
const MAX_FIND_EXEC_RUNS: usize = 32;

/// `field` with each `{}` of its literal text replaced by `path`, the
/// pieces of a path `find` visits (`find … -exec CMD {} \;`).
fn substitute_found(field: &Field, path: &[Seg]) -> Field {
    let mut segs = Vec::new();
    for s in &field.segs {
        match s {
            Seg::Lit { text, quoted } if text.contains("{}") => {
                for (k, piece) in text.split("{}").enumerate() {
                    if k > 0 {
                        segs.extend(path.iter().cloned());
                    }
                    if !piece.is_empty() {
                        segs.push(Seg::Lit {
                            text: piece.to_string(),
                            quoted: *quoted,
                        });
                    }
                }
            }
            other => segs.push(other.clone()),
        }
    }
    Field { segs }
}

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

/// How `xargs` splits its input, as findutils' xargs.c `read_line` does.
struct XargsSplit {
    /// `-0` / `-d DELIM`: the last of them (review s19 S19).
    delimiter: Option<char>,
    /// `-I R` / `-i`: each line is one item, blanks inside it kept.
    lines: bool,
    /// `-E EOF` / `-e EOF`: the item that ends the input.
    eof: Option<String>,
}

/// The items `xargs` reads from `text`. With a delimiter, the text
/// between delimiters, as is. Otherwise findutils' default reading:
/// blanks and newlines end an item (with `-I`, only newlines; leading
/// blanks are dropped), blank lines are skipped, `'…'` and `"…"` quote
/// (not across a newline), a backslash takes the next character as is,
/// and an item equal to the `-E` string ends the input.
///
/// # Errors
/// What xargs refuses or what the check cannot place: an unmatched
/// quote (xargs stops there, after running what it read), an empty
/// quoted item. The items read before it come with the error.
fn xargs_items(text: &str, how: &XargsSplit) -> Result<Vec<String>, (Vec<String>, String)> {
    if let Some(d) = how.delimiter {
        let mut items: Vec<String> = text.split(d).map(str::to_string).collect();
        // A last delimiter ends the last item; it does not start another.
        if items.last().is_some_and(String::is_empty) {
            items.pop();
        }
        return Ok(items);
    }
    let mut items = Vec::new();
    let mut item = String::new();
    let mut started = false;
    let mut quoted_empty = false;
    let mut chars = text.chars();
    let blank = |c: char| c == ' ' || c == '\t';
    let finish = |item: &mut String, started: &mut bool, items: &mut Vec<String>| -> bool {
        let done = std::mem::take(item);
        *started = false;
        if how.eof.as_deref() == Some(done.as_str()) {
            return true;
        }
        items.push(done);
        false
    };
    while let Some(c) = chars.next() {
        match c {
            '\n' => {
                if started && finish(&mut item, &mut started, &mut items) {
                    return Ok(items);
                }
            }
            c if blank(c) && !how.lines => {
                if started && finish(&mut item, &mut started, &mut items) {
                    return Ok(items);
                }
            }
            c if blank(c) && !started => {}
            '\\' => {
                match chars.next() {
                    Some(n) => item.push(n),
                    None => item.push('\\'),
                }
                started = true;
            }
            '\'' | '"' => {
                let mut closed = false;
                let before = item.len();
                for q in chars.by_ref() {
                    if q == c {
                        closed = true;
                        break;
                    }
                    if q == '\n' {
                        break;
                    }
                    item.push(q);
                }
                if !closed {
                    return Err((items, format!("an unmatched {c} quote")));
                }
                quoted_empty |= item.len() == before && !started;
                started = true;
            }
            c => {
                item.push(c);
                started = true;
            }
        }
    }
    if started && finish(&mut item, &mut started, &mut items) {
        return Ok(items);
    }
    if quoted_empty && items.iter().any(String::is_empty) {
        return Err((Vec::new(), "an empty quoted item".into()));
    }
    Ok(items)
}

/// Whether the command `xargs` runs takes its code from the input: a
/// shell or interpreter whose last word is its code option (`sh -c`,
/// `python3 -c`, `perl -e`), so the first item is the script.
fn xargs_code_from_input(cmd: &[Field]) -> bool {
    let texts: Vec<String> = cmd.iter().map(Field::text).collect();
    let Some(last) = texts.last() else {
        return false;
    };
    let code_flag = matches!(
        last.as_str(),
        "-c" | "-e" | "-E" | "-r" | "--eval" | "--command"
    ) || (last.starts_with('-') && !last.starts_with("--") && last.ends_with('c'));
    code_flag
        && texts[..texts.len() - 1].iter().any(|t| {
            let n = base_name(t);
            is_shell(&n) || is_interpreter(&n)
        })
}

/// The character `xargs -d DELIM` splits its input at: DELIM's first
/// character, or the escape it starts (`\n`, `\t`, `\0`, `\\`, `\xHH`,
/// `\NNN` octal), as findutils reads it.
fn xargs_delimiter(delim: &str) -> char {
    let Some(rest) = delim.strip_prefix('\\') else {
        return delim.chars().next().unwrap_or('\n');
    };
    match rest.chars().next() {
        Some('n') => '\n',
        Some('t') => '\t',
        Some('r') => '\r',
        Some('a') => '\x07',
        Some('b') => '\x08',
        Some('f') => '\x0c',
        Some('v') => '\x0b',
        Some('x') => u32::from_str_radix(&rest[1..], 16)
            .ok()
            .and_then(char::from_u32)
            .unwrap_or('\n'),
        Some(c) if c.is_digit(8) => u32::from_str_radix(rest, 8)
            .ok()
            .and_then(char::from_u32)
            .unwrap_or('\0'),
        Some(c) => c,
        None => '\\',
    }
}

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

/// How a command was reached, for [`Analysis::dispatch`].
#[derive(Debug, Clone, Copy, Default)]
struct Reached {
    /// Its operands came from `xargs` (or another reader of standard
    /// input), so they are not all in the text.
    via_xargs: bool,
    /// The command, or a wrapper around it, is in the settings'
    /// `allow_commands`: its own rules are skipped, the rules that read
    /// what it runs still apply.
    allowed: bool,
}
impl Analysis<'_> {
    /// Run one simple command: user patterns, wrappers, then the rules of
    /// the command found. Returns what it writes to standard output.
    pub(crate) fn exec(
        &mut self,
        argv: Vec<Field>,
        env: &mut Env,
        depth: u32,
        stdin: &Output,
        via_xargs: bool,
    ) -> Output {
        let mut argv = argv;
        let mut via_xargs = via_xargs;
        let mut allowed = false;
        for _ in 0..32 {
            if argv.is_empty() || self.done() {
                return Output::Unknown;
            }
            allowed |= self.user_rules(&argv);
            // `sudo BASH_ENV=x bash …`, `env -S 'A=b cmd'`: a wrapper passes
            // leading NAME=value words on as the command's environment.
            let leading = assignments_of(&argv[..1]);
            if !leading.is_empty() && argv.len() > 1 {
                let runs_shell = is_shell(&base_name(&argv[1].text()));
                self.code_variables(&leading, env, depth, runs_shell);
                argv.remove(0);
                continue;
            }
            let first = &argv[0];
            if first.is_dynamic() {
                let out = first.output();
                if out.is_tainted() {
                    self.report_taint(&out, "the command name itself");
                    return Output::Unknown;
                }
                // `${X:-rm} -rf /`: the default is what runs when X is unset.
                if let Some(guess) = default_value_of(&first.text()) {
                    argv[0] = Field::lit(guess);
                    continue;
                }
                // `$SHELL -c '…'`: an unknown program given a script.
                if argv.get(1).is_some_and(|a| a.text() == "-c")
                    && let Some(script) = argv.get(2).cloned()
                {
                    return self.run_script_field(&script, env, depth, stdin, "-c");
                }
                // `"$VENV/bin/python" -m x`, `$(npm bin)/jest`: the
                // program's name is known, only its directory is not.
                if let Some(Seg::Lit { text, .. }) = first.segs.last()
                    && let Some((_, name)) = text.rsplit_once('/')
                    && !name.is_empty()
                {
                    argv[0] = Field::lit(name);
                    continue;
                }
                // `x=(rm -rf ~); "${x[@]}"`, `read c; $c`, `$CMD -rf /`,
                // `${!ref}`: a program the analysis cannot know runs. It is
                // judged as `eval` of an unknown script is (command output,
                // `$(…)`, was analysed and stays allowed, as for `eval`).
                if !has_unknown_variable(first) {
                    return Output::Unknown;
                }
                self.report(
                    false,
                    "shell.eval-dynamic",
                    format!(
                        "The command runs a program whose name is only known at run time (`{}`: a variable, an array, \
                         `read` input or command output), so it cannot be checked. Write the command out; a person must \
                         approve it as it is.",
                        first.text()
                    ),
                );
                return Output::Unknown;
            }
            if first.first_glob().is_some()
                && let Some(known) = glob_command(&base_name(&first.text()))
            {
                // `/???/r? -rf /`: a glob that can match a dangerous command.
                argv[0] = Field::lit(known);
                continue;
            }
            if let Some(path) = first.static_text()
                && path.contains('/')
                && let Some(out) = env.file_taint(&path).cloned()
            {
                self.report_taint(
                    &out,
                    &format!("`{path}` was written from it earlier in the command"),
                );
                return Output::Unknown;
            }
            // A file written or copied earlier in the call (review-s9 G11, G2).
            match self.run_written_file(&mut argv, env, depth, stdin) {
                walk::WrittenRun::Ran(out) => return out,
                walk::WrittenRun::Renamed => continue,
                walk::WrittenRun::No => {}
            }
            if let Some(out) = self.program_lookup(&argv) {
                return out;
            }
            let first = &argv[0];
            let name = base_name(&first.text());
            let args = &argv[1..];
            if !allowed {
                self.process_control(&name, args);
                match name.as_str() {
                    "systemd-run" => self.unit_commands(&runopts::SYSTEMD_RUN, args, env, depth),
                    "run0" => self.unit_commands(&runopts::RUN0, args, env, depth),
                    "systemctl" => self.systemctl_units(args, env, depth, stdin),
                    "busctl" | "gdbus" | "dbus-send" | "qdbus" | "qdbus6" => {
                        self.systemd_bus_call(&name, args)
                    }
                    _ => {}
                }
                self.debugger_commands(&name, args, env, depth, stdin);
            }
            let rest: Option<Vec<Field>> = match name.as_str() {
                "sudo" | "doas" | "pkexec" | "run0" => {
                    // What the options say: (end of options, `-e`/`--edit`,
                    // the agent's environment kept, the command run by a
                    // shell).
                    let (i, edit, keeps_env, via_shell) = match name.as_str() {
                        "sudo" | "doas" => {
                            let spec = if name == "sudo" {
                                &runopts::SUDO
                            } else {
                                &runopts::DOAS
                            };
                            let p = self.runner_options(&name, spec, args, allowed);
                            (
                                p.end,
                                p.has("edit"),
                                p.has("E") || p.has("preserve-env"),
                                ["shell", "login", "s"].iter().any(|o| p.has(o)),
                            )
                        }
                        "run0" => {
                            let p = self.runner_options(&name, &runopts::RUN0, args, allowed);
                            (p.end, false, p.has("setenv"), p.has("via-shell"))
                        }
                        // pkexec reads exact spellings, not getopt.
                        _ => (skip_options(args, &["--user", "-u"]), false, false, false),
                    };
                    if edit {
                        return Output::Unknown;
                    }
                    let rest = args[i.min(args.len())..].to_vec();
                    // `sudo -E`, `--preserve-env`, `run0 --setenv`: the
                    // agent's environment (`KUBECONFIG`, `DOCKER_HOST`)
                    // reaches the program, so no command is read-only.
                    if self.opts.escalate_sudo
                        && !allowed
                        && (keeps_env || !crate::readonly::is_read_only(&rest))
                    {
                        self.report(
                            false,
                            "shell.sudo",
                            format!(
                                "The command runs with elevated privileges through `{name}`. \
                                 A person must approve privileged commands; run it without `{name}` if it does not need root."
                            ),
                        );
                    }
                    if via_shell && !rest.is_empty() {
                        // `sudo -s CMD` runs CMD through the shell.
                        let script = rest.iter().map(Field::text).collect::<Vec<_>>().join(" ");
                        let mut e = env.clone();
                        return self.script(&script, &mut e, depth + 1, stdin);
                    }
                    Some(rest)
                }
                "su" => {
                    if self.opts.escalate_sudo && !allowed {
                        self.report(
                            false,
                            "shell.sudo",
                            "The command switches user with `su`. A person must approve privileged commands.",
                        );
                    }
                    let mut i = 0;
                    while i < args.len() {
                        let t = args[i].text();
                        let script = if t == "-c" || t == "--command" || t == "--session-command" {
                            i += 1;
                            args.get(i).cloned()
                        } else {
                            t.strip_prefix("--command=")
                                .or_else(|| t.strip_prefix("--session-command="))
                                .map(Field::lit)
                        };
                        if let Some(s) = script {
                            self.run_script_field(&s, env, depth, stdin, "su -c");
                        }
                        i += 1;
                    }
                    return Output::Unknown;
                }
                "env" => {
                    let p = self.runner_options("env", &runopts::ENV, args, allowed);
                    // `env -S TEXT`: env splits TEXT into words that take
                    // its place and reads them as its own arguments (options,
                    // assignments, the command).
                    if let Some(f) = p.found.iter().find(|f| f.opt.name == "split-string") {
                        let text = f.value.as_ref().map(Field::text).unwrap_or_default();
                        let after = f.at
                            + 1
                            + usize::from(runopts::value_is_next(&runopts::ENV, &args[f.at]));
                        let mut next = vec![Field::lit("env")];
                        next.extend(args[..f.at].iter().cloned());
                        // Split by env's own `-S` syntax (`\_` separates,
                        // `\c` ends: review s18 R8); text only known at run
                        // time, or one env refuses or the reader does not
                        // model, is held.
                        let split = match f.value.as_ref().and_then(Field::static_text) {
                            Some(t) => runopts::env_split_string(&t),
                            None => Err("text only known at run time".to_string()),
                        };
                        match split {
                            // env does not expand `~`: `~` or `~/…` is
                            // still read as the home, as a reader of the
                            // command would take it (so `rm -rf ~` stays
                            // denied).
                            Ok(words) => next.extend(words.into_iter().map(|w| {
                                match w
                                    .strip_prefix('~')
                                    .filter(|r| r.is_empty() || r.starts_with('/'))
                                {
                                    Some(rest) => Field {
                                        segs: vec![
                                            syntax::Seg::Home(None),
                                            syntax::Seg::Lit {
                                                text: rest.to_string(),
                                                quoted: true,
                                            },
                                        ],
                                    },
                                    None => Field::lit(w),
                                }
                            })),
                            Err(why) => {
                                if !allowed {
                                    self.hold_options("env", &format!("`-S {text}`: {why}"));
                                }
                                next.extend(self.split_words(&text, env, depth));
                            }
                        }
                        next.extend(args.get(after..).unwrap_or(&[]).iter().cloned());
                        Some(next)
                    } else {
                        let mut i = p.end;
                        // `env - CMD`: a lone `-` is `-i`.
                        if args.get(i).is_some_and(|a| a.text() == "-") {
                            i += 1;
                        }
                        let first_assign = i;
                        // Then every word holding `=` is an assignment.
                        while args.get(i).is_some_and(|a| a.text().contains('=')) {
                            i += 1;
                        }
                        let assigns = assignments_of(&args[first_assign..i]);
                        let runs_shell =
                            args.get(i).is_some_and(|a| is_shell(&base_name(&a.text())));
                        self.code_variables(&assigns, env, depth, runs_shell);
                        let rest = args[i..].to_vec();
                        if rest.is_empty() {
                            // `env` alone prints the environment.
                            return Output::Secret;
                        }
                        // `env -C DIR`, `env RCLONE_CONFIG_X_TYPE=… rclone`: the
                        // command runs there, with those variables, as with
                        // a prefix assignment (review s17 Q2).
                        let chdir = p.values("chdir").last();
                        let scoped: Vec<_> = assigns
                            .iter()
                            .filter(|(n, _)| walk::command_scoped(n))
                            .collect();
                        // `env HOME=… tmux`: the names it sets, as a prefix
                        // assignment's (a server started reads its
                        // configuration by them, review s19 S9).
                        // (and byobu's `BYOBU_*`, where sockets are made:
                        // `TMUX_TMPDIR`, `ABDUCO_SOCKET_DIR`, `TMPDIR`;
                        // review s21 U10, U14).
                        let config = assigns.iter().any(|(n, _)| {
                            matches!(
                                n.as_str(),
                                "HOME"
                                    | "XDG_CONFIG_HOME"
                                    | "SCREENRC"
                                    | "SYSSCREENRC"
                                    | "PARALLEL"
                                    | "TMUX_TMPDIR"
                                    | "ABDUCO_SOCKET_DIR"
                                    | "TMPDIR"
                            ) || n.starts_with("BYOBU")
                        });
                        if chdir.is_some() || !scoped.is_empty() || config {
                            let mut e = env.clone();
                            if chdir.is_some() {
                                self.change_dir(chdir, &mut e);
                            }
                            for (n, v) in scoped {
                                e.vars.insert(n.clone(), v.clone());
                            }
                            let mut names = self.command_vars.clone();
                            names.extend(assigns.iter().map(|(n, _)| n.clone()));
                            let outer = std::mem::replace(&mut self.command_vars, names);
                            let out = self.exec(rest, &mut e, depth, stdin, via_xargs);
                            self.command_vars = outer;
                            return out;
                        }
                        Some(rest)
                    }
                }
                "command" => {
                    let f = flags(
                        &args[..args
                            .iter()
                            .position(|a| !a.text().starts_with('-'))
                            .unwrap_or(args.len())],
                    );
                    if f.short.contains('v') || f.short.contains('V') {
                        return Output::Static(String::new());
                    }
                    Some(hashed(args[skip_options(args, &[])..].to_vec(), env))
                }
                "builtin" | "nohup" | "nocache" | "unbuffer" | "fakeroot" | "catchsegv"
                | "torsocks" | "then" | "do" => Some(args[skip_options(args, &[])..].to_vec()),
                "exec" => {
                    let p = self.runner_options("exec", &runopts::EXEC, args, allowed);
                    Some(hashed(args[p.end..].to_vec(), env))
                }
                "time" => Some(
                    args[self
                        .runner_options("time", &runopts::TIME, args, allowed)
                        .end..]
                        .to_vec(),
                ),
                "nice" => {
                    let words = runopts::nice_words(args);
                    let p = self.runner_options("nice", &runopts::NICE, &words, allowed);
                    Some(words[p.end..].to_vec())
                }
                // With `-p`, `-P` or `-u` ionice's operands are ids.
                "ionice" => {
                    let p = self.runner_options("ionice", &runopts::IONICE, args, allowed);
                    (!["pid", "pgid", "uid"].iter().any(|o| p.has(o)))
                        .then(|| args[p.end..].to_vec())
                }
                "setsid" | "stdbuf" | "strace" | "ltrace" | "systemd-run" => {
                    let spec = match name.as_str() {
                        "setsid" => &runopts::SETSID,
                        "stdbuf" => &runopts::STDBUF,
                        "strace" => &runopts::STRACE,
                        "ltrace" => &runopts::LTRACE,
                        _ => &runopts::SYSTEMD_RUN,
                    };
                    if name == "strace" && !allowed {
                        // `strace -o '|CMD'` (review s22 V3).
                        self.program_table("strace", args, env, depth, stdin);
                    }
                    Some(args[self.runner_options(&name, spec, args, allowed).end..].to_vec())
                }
                "proxychains" | "proxychains4" => {
                    Some(args[skip_options(args, &["-f"])..].to_vec())
                }
                "caffeinate" => Some(args[skip_options(args, &["-t", "-w"])..].to_vec()),
                // `timeout DURATION CMD`, `chrt PRIORITY CMD`, `taskset MASK
                // CMD`: one operand before the command. `chrt -p`/`-m` and
                // `taskset -p` act on a running process or print: no command.
                "timeout" | "chrt" | "taskset" => {
                    let spec = match name.as_str() {
                        "timeout" => &runopts::TIMEOUT,
                        "chrt" => &runopts::CHRT,
                        _ => &runopts::TASKSET,
                    };
                    let p = self.runner_options(&name, spec, args, allowed);
                    (!p.has("pid") && !p.has("max")).then(|| {
                        args.get(p.end + 1..)
                            .map(<[Field]>::to_vec)
                            .unwrap_or_default()
                    })
                }
                "busybox" | "toybox" => {
                    let i = skip_options(args, &[]);
                    Some(args[i..].to_vec())
                }
                n if crate::runners::is_runner(n, args) => {
                    match self.runner(n, args, env, depth, stdin) {
                        crate::runners::Run::Command(cmd) => Some(cmd),
                        crate::runners::Run::Done(out) => return out,
                    }
                }
                "parallel" => match self.parallel(args, env, depth, stdin) {
                    Parallel::FromInput(cmd) => {
                        via_xargs = true;
                        // Inputs from files or `:::` words are not the
                        // pipe's lookup (review s21 U9).
                        if args.iter().any(|a| {
                            let t = a.text();
                            t.starts_with(":::")
                                || t.starts_with("-a")
                                || t.starts_with("--a")
                                || t.starts_with("-d")
                                || t.starts_with("--d")
                                || t.starts_with("--col")
                                || t.starts_with("-C")
                        }) {
                            self.pid_in = None;
                        }
                        Some(cmd)
                    }
                    Parallel::Done => return Output::Unknown,
                },
                "xargs" => {
                    via_xargs = true;
                    let p = self.runner_options("xargs", &runopts::XARGS, args, allowed);
                    // `xargs -a FILE` reads FILE, not the pipe's lookup
                    // (review s21 U9).
                    // A delimiter other than a newline cuts pids into
                    // other numbers (`-d 2`: `1234` is `1` and `34`).
                    if p.has("arg-file")
                        || p.values("delimiter")
                            .any(|d| !matches!(d.text().as_str(), "\\n" | "\n"))
                    {
                        self.pid_in = None;
                    }
                    self.xargs_input_as_code(&p, &args[p.end..]);
                    // `xargs -a KEY CMD` reads KEY into CMD's arguments.
                    self.reader("xargs", args, env);
                    Some(self.xargs_command(&p, &args[p.end..], env, depth, stdin))
                }
                "watch" => {
                    let p = self.runner_options("watch", &runopts::WATCH, args, allowed);
                    let rest = args[p.end..].to_vec();
                    if p.has("exec") {
                        Some(rest)
                    } else {
                        let script = rest.iter().map(Field::text).collect::<Vec<_>>().join(" ");
                        let mut e = env.clone();
                        return self.script(&script, &mut e, depth + 1, &Output::Unknown);
                    }
                }
                "flock" => {
                    let p = self.runner_options("flock", &runopts::FLOCK, args, allowed);
                    let after_file = args.get(p.end + 1..).unwrap_or(&[]);
                    match after_file.first().map(Field::text).as_deref() {
                        Some("-c") | Some("--command") => {
                            if let Some(s) = after_file.get(1) {
                                self.run_script_field(s, env, depth, stdin, "flock -c");
                            }
                            return Output::Unknown;
                        }
                        _ => Some(after_file.to_vec()),
                    }
                }
                _ => None,
            };
            match rest {
                Some(r) => {
                    // Whatever the wrapper's reader: a word it consumed
                    // before the command that may be no word or several
                    // (`faketime "$@" 5 CMD`, `chronic $NOPE CMD`) moves
                    // the command (review s19 S6).
                    let consumed = args.len().saturating_sub(r.len());
                    if !allowed
                        && args[consumed..] == r[..]
                        && let Some(w) = args[..consumed].iter().find(|a| runopts::may_vanish(a))
                    {
                        self.report(
                            false,
                            "shell.eval-dynamic",
                            format!(
                                "`{name}` is given `{}`, which may expand to no word or to several, so which of its \
                                 words is the command cannot be placed. A person must approve; give the value itself.",
                                w.text()
                            ),
                        );
                    }
                    argv = r;
                }
                None => break,
            }
        }
        if argv.is_empty() {
            return Output::Unknown;
        }
        if let Some(t) = &mut self.trace {
            t.push(normalised(&argv));
        }
        let name = base_name(&argv[0].text());
        let args = argv[1..].to_vec();
        self.dispatch(
            &name,
            &args,
            env,
            depth,
            stdin,
            Reached { via_xargs, allowed },
        )
    }

    /// Apply `deny_patterns`, `escalate_patterns` and `allow_commands` to a
    /// simple command. Returns whether it is in `allow_commands`.
    fn user_rules(&mut self, argv: &[Field]) -> bool {
        let o = self.opts;
        if o.deny_patterns.is_empty() && o.escalate_patterns.is_empty() && !o.has_allow_commands() {
            return false;
        }
        let norm = normalised(argv);
        for r in &o.deny_patterns {
            if r.matcher.is_match(&norm) {
                self.report(true, &r.rule, r.message.clone());
            }
        }
        let allowed = o.is_allowed_command(&norm);
        if !allowed {
            for r in &o.escalate_patterns {
                if r.matcher.is_match(&norm) {
                    self.report(false, &r.rule, r.message.clone());
                }
            }
        }
        allowed
    }

    /// The command `xargs OPTIONS CMD…` runs, given its input (standard
    /// input, or `-a FILE`: a file written in this command is known text):
    /// the items read as xargs reads them ([`xargs_items`]) are CMD's last
    /// operands, or with `-I R`/`-i` each replaces R in a command of its
    /// own; with `-n`/`-L`/`-s` each item is also judged alone (a batch
    /// may start with it). Held (review s19 S5): input too long to read
    /// whole, input xargs refuses, and input the check cannot see when CMD
    /// takes its code from it (`sh -c` last) or, from a file, when CMD is
    /// a shell, an interpreter or a signal sender.
    fn xargs_command(
        &mut self,
        options: &getopt::Parsed,
        cmd: &[Field],
        env: &Env,
        depth: u32,
        stdin: &Output,
    ) -> Vec<Field> {
        let mut argv = cmd.to_vec();
        let file = options.values("arg-file").last().cloned();
        let input = match &file {
            None => stdin.clone(),
            Some(f) => match f.static_text() {
                Some(p) if p == "/dev/stdin" || p == "/proc/self/fd/0" => stdin.clone(),
                Some(p) => {
                    if env.claimed.contains(&env.file_key(&p)) {
                        self.hold_xargs(&format!("`-a {p}`, whose text the call does not show"));
                    }
                    env.written_text(&p)
                        .map_or(Output::Unknown, |t| Output::Static(t.to_string()))
                }
                None => Output::Unknown,
            },
        };
        let Output::Static(text) = input else {
            // A shell or interpreter runs code from the items unless its
            // code is given before them in a form read exactly: a script
            // operand right after it (`python3 fmt.py`, `sh x.sh`), or
            // Python's `-m MODULE` for a module that reads its operands as
            // files to check or format, [`XARGS_PYTHON_FILE_MODULES`] (not
            // `timeit`, `runpy`, `pdb`, `pytest`, which run them) (review
            // s21 W3); option words in between
            // may take the next word as their value, so they hold.
            let code_given = |k: usize| {
                let next = cmd.get(k + 1).and_then(Field::static_text);
                let python = base_name(&cmd[k].text()).starts_with("python");
                match next.as_deref() {
                    Some("-m") if python => cmd
                        .get(k + 2)
                        .and_then(Field::static_text)
                        .is_some_and(|m| XARGS_PYTHON_FILE_MODULES.contains(&m.as_str())),
                    Some(w) => !w.is_empty() && !w.starts_with('-'),
                    None => false,
                }
            };
            let runs_code = cmd.iter().enumerate().any(|(k, a)| {
                let n = base_name(&a.text());
                (is_shell(&n) || is_interpreter(&n)) && !code_given(k)
                    || matches!(n.as_str(), "kill" | "pkill" | "killall" | "skill" | "snice")
            });
            if xargs_code_from_input(cmd) {
                self.hold_xargs(
                    "input the check cannot see, whose first item is the script the command runs",
                );
            } else if let Some(f) = file.filter(|_| runs_code) {
                self.hold_xargs(&format!(
                    "`-a {}`, a file the check cannot read, into a shell, an interpreter or a signal sender",
                    f.text()
                ));
            }
            return argv;
        };
        if argv.is_empty() {
            // xargs runs `echo`.
            return argv;
        }
        let replace = runopts::xargs_replace(options).filter(|r| !r.is_empty());
        let how = XargsSplit {
            delimiter: options
                .found
                .iter()
                .rev()
                .find(|f| matches!(f.opt.name, "null" | "delimiter"))
                .map(|f| match &f.value {
                    Some(d) if f.opt.name == "delimiter" => xargs_delimiter(&d.text()),
                    _ => '\0',
                }),
            lines: options.has("replace") || options.has("I"),
            eof: options
                .found
                .iter()
                .rev()
                .find(|f| matches!(f.opt.name, "E" | "eof"))
                .and_then(|f| f.value.as_ref().map(Field::text))
                .filter(|e| !e.is_empty()),
        };
        let items = match xargs_items(&text, &how) {
            Ok(items) => items,
            Err((read, why)) => {
                self.hold_xargs(&format!(
                    "input xargs refuses or the check cannot place ({why})"
                ));
                read
            }
        };
        if items.len() > MAX_XARGS_ITEMS {
            self.hold_xargs(&format!(
                "more than {MAX_XARGS_ITEMS} input items, more than the check reads"
            ));
            return argv;
        }
        match replace {
            Some(r) => {
                let with = |item: &str| -> Vec<Field> {
                    argv.iter()
                        .map(|f| match f.static_text() {
                            Some(t) if t.contains(&r) => Field::lit(t.replace(&r, item)),
                            _ => f.clone(),
                        })
                        .collect()
                };
                for item in items.iter().skip(1) {
                    let mut e = env.clone();
                    self.exec(with(item), &mut e, depth + 1, &Output::Unknown, true);
                }
                if let Some(first) = items.first() {
                    argv = with(first);
                }
            }
            None => {
                let batches = ["max-args", "max-lines", "L", "max-chars"]
                    .iter()
                    .any(|o| options.has(o));
                if batches && items.len() > 1 {
                    for item in &items {
                        let mut one = argv.clone();
                        one.push(Field::lit(item.clone()));
                        let mut e = env.clone();
                        self.exec(one, &mut e, depth + 1, &Output::Unknown, true);
                    }
                }
                argv.extend(items.into_iter().map(Field::lit));
            }
        }
        argv
    }

    fn hold_xargs(&mut self, what: &str) {
        self.report(
            false,
            "shell.eval-dynamic",
            format!(
                "`xargs` is given {what}, so what it runs cannot be checked. Write the commands out; a person must \
                 approve it as it is."
            ),
        );
    }

    /// `… | xargs -I{} sh -c '{}'`, `xargs -I% %`: the input lines become
    /// the program or the script, which the analysis cannot see; judged as
    /// `eval` of an unknown script.
    fn xargs_input_as_code(&mut self, options: &getopt::Parsed, cmd: &[Field]) {
        let Some(r) = runopts::xargs_replace(options).filter(|r| !r.is_empty()) else {
            return;
        };
        let cmd: Vec<String> = cmd.iter().map(Field::text).collect();
        let Some(first) = cmd.first() else { return };
        let program = base_name(first);
        let code_after = |flags: &[&str]| {
            cmd.iter()
                .skip_while(|t| !flags.contains(&t.as_str()))
                .skip(1)
                .any(|t| t.contains(&r))
        };
        let runs_input = first.contains(&r)
            || (is_shell(&program)
                && cmd
                    .iter()
                    .skip(1)
                    .any(|t| t.starts_with('-') && t.contains('c'))
                && code_after(&["-c", "-lc", "-ic", "-ec", "-xc"]))
            || (is_interpreter(&program) && code_after(&["-c", "-e", "-E", "-r", "--eval"]))
            || program == "eval";
        if runs_input {
            self.report(
                false,
                "shell.eval-dynamic",
                format!(
                    "`xargs` puts its input lines (`{r}`) into the program or script it runs, so what runs cannot be \
                     checked. Write the commands out; a person must approve it as it is."
                ),
            );
        }
    }

    /// Split text into words the way the shell would (for `env -S`).
    pub(crate) fn split_words(&mut self, text: &str, env: &mut Env, depth: u32) -> Vec<Field> {
        match syntax::tokenize(text) {
            Ok(tokens) => tokens
                .iter()
                .filter_map(|t| match t {
                    brush_parser::Token::Word(w, _) => Some(w.clone()),
                    brush_parser::Token::Operator(..) => None,
                })
                .flat_map(|w| self.expand_word(&w, env, depth))
                .collect(),
            Err(_) => vec![dyn_field(text)],
        }
    }

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

    /// A script given as one argument (`bash -c S`, `su -c S`, `eval S`).
    pub(crate) fn run_script_field(
        &mut self,
        field: &Field,
        env: &mut Env,
        depth: u32,
        stdin: &Output,
        via: &str,
    ) -> Output {
        if let Some(text) = field.static_text() {
            let mut e = env.clone();
            let out = self.script(&text, &mut e, depth + 1, stdin);
            // Files the child wrote outlive it (review-s9 G11).
            env.absorb_files(&e);
            return out;
        }
        let out = field.output();
        if out.is_tainted() {
            self.report_taint(&out, &format!("as the script of `{via}`"));
            return Output::Unknown;
        }
        if has_unknown_variable(field) {
            self.report(
                false,
                "shell.eval-dynamic",
                format!(
                    "`{via}` runs a script held in a variable whose value is not known here, so it cannot be checked. \
                     Pass the command text directly; a person must approve it as it is."
                ),
            );
            return Output::Unknown;
        }
        let mut e = env.clone();
        self.script(&field.text(), &mut e, depth + 1, stdin)
    }

    /// `systemd-run -p ExecStart=CMD …`, `--property=ExecStopPost=CMD`,
    /// `-qpExecStartPre=CMD`, `--prop=…`, `--socket-property=…`: a unit
    /// property that runs a command, judged as that command (review s15
    /// N1b, s17 Q4). The options are read by systemd-run's own table, so
    /// clusters and unique prefixes of `--property` are seen.
    fn unit_commands(&mut self, spec: &getopt::Spec, args: &[Field], env: &Env, depth: u32) {
        let p = getopt::parse(spec, args);
        for f in &p.found {
            if runopts::SYSTEMD_RUN_PROPERTIES.contains(&f.opt.name)
                && let Some(v) = &f.value
            {
                self.unit_setting(&v.text(), env, depth, "systemd-run");
            }
        }
    }

    /// `systemctl link|enable FILE`, `systemctl edit --stdin UNIT`, or
    /// `systemctl start UNIT` after a unit file was written in the same
    /// command (review s17 Q9: `printf
    /// '[Service]\nExecStart=…' > /tmp/x.service && systemctl --user link
    /// /tmp/x.service && systemctl --user start x`): the Exec lines of each
    /// unit file written in the command, or by the run's file tools, are
    /// judged as the commands systemd runs. A unit file path given to a
    /// verb that adds it to the search path (`link`, `enable`, …) whose
    /// text is not known is held: what it runs cannot be read.
    fn systemctl_units(&mut self, args: &[Field], env: &Env, depth: u32, stdin: &Output) {
        /// Verbs that take unit file paths and make systemd load them.
        const LINKS: &[&str] = &[
            "link",
            "enable",
            "reenable",
            "preset",
            "add-wants",
            "add-requires",
        ];
        /// Verbs after which systemd runs or loads units.
        const RUNS: &[&str] = &[
            "start",
            "restart",
            "try-restart",
            "reload-or-restart",
            "try-reload-or-restart",
            "reload",
            "daemon-reload",
            "daemon-reexec",
            "isolate",
        ];
        let texts: Vec<String> = args.iter().map(Field::text).collect();
        // `systemctl edit --stdin UNIT`: the unit text (or drop-in) is
        // standard input; without `--stdin` an editor writes it, which
        // `$SYSTEMD_EDITOR`/`$EDITOR` may make any command.
        if texts.iter().any(|t| t == "edit") {
            match stdin {
                Output::Static(text) if texts.iter().any(|t| t == "--stdin") => {
                    for line in unit_exec_lines(text) {
                        self.unit_setting(&line, env, depth, "systemctl edit");
                    }
                }
                _ => self.report(
                    false,
                    "shell.eval-dynamic",
                    "`systemctl edit` writes a unit file (or drop-in) from an editor or from input the check \
                     cannot read; the commands the unit runs cannot be checked. A person must approve it.",
                ),
            }
        }
        let links = texts.iter().any(|t| LINKS.contains(&t.as_str()));
        if !links && !texts.iter().any(|t| RUNS.contains(&t.as_str())) {
            return;
        }
        let units: Vec<String> = env
            .written
            .values()
            .filter_map(|w| match w {
                walk::Written::Text(t) if unit_exec_lines(t).next().is_some() => Some(t.clone()),
                _ => None,
            })
            .collect();
        for text in &units {
            for line in unit_exec_lines(text) {
                self.unit_setting(&line, env, depth, "systemctl");
            }
        }
        if !links {
            return;
        }
        for path in texts
            .iter()
            .filter(|t| !t.starts_with('-') && t.contains('/'))
        {
            let known = matches!(
                env.written.get(&env.file_key(path)),
                Some(walk::Written::Text(_))
            );
            if !known {
                self.report(
                    false,
                    "shell.eval-dynamic",
                    format!(
                        "`systemctl` links the unit file `{path}` into systemd's search path; the commands it runs \
                         (its `Exec…=` lines) are not known here, so they cannot be checked. A person must approve it."
                    ),
                );
            }
        }
    }

    /// A D-Bus call to systemd's manager that starts a transient unit or
    /// links unit files (`busctl call org.freedesktop.systemd1 …
    /// StartTransientUnit … ExecStart …`, `gdbus call … Manager.LinkUnitFiles`,
    /// `dbus-send --dest=org.freedesktop.systemd1 …`): the command the unit
    /// runs is given in D-Bus's typed argument syntax, which the check
    /// does not read, so the call is held (review s17 Q9).
    fn systemd_bus_call(&mut self, name: &str, args: &[Field]) {
        const METHODS: &[&str] = &[
            "StartTransientUnit",
            "LinkUnitFiles",
            "EnableUnitFiles",
            "EnableUnitFilesWithFlags",
            "ReenableUnitFiles",
            "PresetUnitFiles",
            "PresetUnitFilesWithMode",
            "PresetAllUnitFiles",
            "AddDependencyUnitFiles",
            "SetUnitProperties",
            "Reload",
        ];
        let texts: Vec<String> = args.iter().map(Field::text).collect();
        let systemd = texts.iter().any(|t| t.contains("systemd1"));
        let method = texts.iter().find_map(|t| {
            let last = t.rsplit('.').next().unwrap_or(t);
            METHODS.iter().find(|m| **m == last)
        });
        if let (true, Some(m)) = (systemd, method) {
            self.report(
                false,
                "shell.eval-dynamic",
                format!(
                    "`{name}` calls systemd's `{m}` over D-Bus: it makes systemd run or load unit commands given in \
                     D-Bus argument syntax, which the check does not read. A person must approve it; use \
                     `systemd-run` with the command written out."
                ),
            );
        }
    }

    /// One unit setting `KEY=VALUE` (a `systemd-run` property, a line of a
    /// unit file): an `Exec…=` line is judged as the command systemd runs.
    pub(crate) fn unit_setting(&mut self, setting: &str, env: &Env, depth: u32, via: &str) {
        let Some((key, line)) = setting.split_once('=') else {
            return;
        };
        if !key.trim().starts_with("Exec") {
            return;
        }
        let Some(raw) = exec_line_command(line) else {
            self.report(
                false,
                "shell.eval-dynamic",
                format!(
                    "`{via}` runs `{}` with an Exec prefix the check does not model, so the command systemd runs \
                     cannot be read. A person must approve it as it is.",
                    line.trim()
                ),
            );
            return;
        };
        // systemd decodes C escapes (`\x6c`, `\154`, `\u006c`, `\s`) and
        // `%` specifiers in Exec lines (review s16 P5): judge the decoded
        // command, and hold any line that needs decoding, whose words the
        // shell reading cannot place.
        let (cmd, escaped, specifier) = systemd_unescape(&raw);
        let mut e = env.clone();
        self.script(&cmd, &mut e, depth + 1, &Output::Unknown);
        if escaped || specifier {
            self.report(
                false,
                "shell.eval-dynamic",
                format!(
                    "`{via}` runs `{raw}`, written with {}: systemd decodes them before it runs the \
                     command, so the check cannot read it word for word. A person must approve; write the \
                     command without escapes.",
                    if escaped { "backslash escapes" } else { "`%` specifiers" }
                ),
            );
        }
    }

    /// A shell or interpreter reading its program from standard input.
    pub(crate) fn stdin_program(
        &mut self,
        name: &str,
        stdin: &Output,
        env: &Env,
        depth: u32,
        analyse_static: bool,
    ) {
        match stdin {
            Output::Static(text) if analyse_static => {
                let mut e = env.clone();
                self.script(text, &mut e, depth + 1, &Output::Unknown);
            }
            out => self.report_taint(out, &format!("piped into `{name}`")),
        }
    }

    /// Judges `name args` as if run here: the command an interpreter's
    /// file tool stands for (see `crate::modules`).
    pub(crate) fn run_as(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) {
        self.dispatch(name, args, env, depth + 1, stdin, Reached::default());
    }

    fn dispatch(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
        reached: Reached,
    ) -> Output {
        let Reached { via_xargs, allowed } = reached;
        let own_rules = !allowed;
        // Operands bash evaluates as arithmetic or variable names (review s22 V1).
        self.shell_evaluated_words(name, args, env, depth);
        if own_rules {
            self.url_credentials(name, args);
            self.destroyer(name, args);
            self.removals(name, args, env);
            self.in_place_edits(name, args, env);
            self.table_writes(name, args, env);
            self.toolvet_command(name, args);
            self.toolvet_signals(name, args, via_xargs, env);
            self.database_file(name, args, env);
            self.module_cli(name, args, env, depth, stdin);
            self.process_environments(name, args);
            self.toolvet_tables(name, args, stdin);
            self.toolvet_secret_command(name, args, stdin);
            if DOWNLOADERS.contains(&name)
                || matches!(name, "http" | "https" | "xh" | "httpie" | "curlie" | "hurl")
            {
                let texts: Vec<String> = args.iter().map(Field::text).collect();
                self.decision_request(name, &texts);
            }
            self.program_options(name, args, env, depth);
            self.program_table(name, args, env, depth, stdin);
            match name {
                "sed" | "gsed" => self.sed_script(name, args, env, depth),
                "sqlite3" | "sqlite" | "sqlcipher" => {
                    self.sqlite_input(name, args, env, depth, stdin)
                }
                "litecli" | "psql" | "mysql" | "mariadb" => {
                    self.client_commands(name, args, env, depth, stdin)
                }
                _ => {}
            }
            self.credential_dump(name, args);
            if let Some(out) = self.reader(name, args, env) {
                return out;
            }
        }
        // A symbolic link made here counts for the later commands of the
        // call (review-s9 G5); the command making it was judged above.
        self.learn_same_call_links(name, args, env);
        if matches!(name, "make" | "gmake") {
            self.run_written_makefile(name, args, env, depth, stdin);
        }
        if self.secret_source(name, args) {
            return Output::Secret;
        }
        match name {
            "rm" | "srm" if own_rules => self.rm(name, args, env, via_xargs),
            "shred" if own_rules && via_xargs => {
                self.report(
                    true,
                    "shell.xargs-rm",
                    "`xargs shred` destroys whatever files arrive on standard input, which cannot be checked. \
                     Name the files explicitly, inside the workspace."
                        .to_string(),
                );
                Output::Static(String::new())
            }
            "unlink" | "shred" if own_rules => {
                for a in flags_positional(args) {
                    let t = a.text();
                    if name == "shred" {
                        self.check_device_write(&t, "`shred`");
                    }
                    match self.resolve_target(a, env, false) {
                        Target::Known(Place::System | Place::Root, shown) => {
                            self.report_delete(name, "shell.rm-system", Place::System, &shown);
                        }
                        // `shred` destroys the content of whatever file the
                        // path turns out to be (`shred -u "$(cat p)"/.ssh/id_rsa`);
                        // `unlink` removes one file, as `rm` without `-r`
                        // (whose unknown target is allowed).
                        Target::Dynamic if name == "shred" => self.report(
                            false,
                            "shell.rm-dynamic",
                            format!(
                                "`shred {}` destroys a file whose path depends on values only known at run time \
                                 (variables, command output), so the analysis cannot tell what it destroys. Use a \
                                 literal path inside the workspace, or a person must approve.",
                                a.text()
                            ),
                        ),
                        // Outside the workspace: not judged for one file.
                        Target::Dynamic | Target::Claimed(_) | Target::Known(..) => {}
                    }
                }
                Output::Static(String::new())
            }
            "find" => {
                let out = self.find(args, env, depth, own_rules);
                if self.finds_credentials(args) {
                    Output::Secret
                } else {
                    out
                }
            }
            "mktemp" => mktemp_output(args),
            "crontab" if own_rules => {
                self.crontab(args, env, depth, stdin);
                Output::Static(String::new())
            }
            "chroot" => {
                // `chroot DIR CMD…` runs CMD; judged as if on the host (the
                // new root is usually the host's, mounted).
                let rest = args
                    .iter()
                    .skip_while(|a| a.text().starts_with('-'))
                    .skip(1)
                    .cloned()
                    .collect();
                self.exec(rest, env, depth, stdin, via_xargs)
            }
            "awk" | "gawk" | "mawk" | "nawk" => {
                // The program is the first operand, unless `-f FILE` gives it
                // (`-F SEP`, `-v X=1` take values).
                let mut i = 0;
                let mut program: Option<&Field> = None;
                while let Some(a) = args.get(i) {
                    let t = a.text();
                    if matches!(t.as_str(), "-f" | "--file" | "-E" | "--exec")
                        || t.starts_with("-f")
                    {
                        program = None;
                        break;
                    }
                    if matches!(t.as_str(), "-F" | "-v" | "--assign" | "--field-separator") {
                        i += 2;
                        continue;
                    }
                    if t == "--" {
                        program = args.get(i + 1);
                        break;
                    }
                    if !t.starts_with('-') || t == "-" {
                        program = Some(a);
                        break;
                    }
                    i += 1;
                }
                if let Some(program) = program.and_then(Field::static_text) {
                    self.embedded_commands(name, &program, env, depth);
                }
                pass_through(stdin)
            }
            "dd" if own_rules => {
                for a in args {
                    // `dd of=/proc/PID/mem` (review s16 P2).
                    if let Some(path) = a.text().strip_prefix("of=") {
                        crate::selfstate::process_file_write(self, path, "`dd`");
                    }
                    if let Some(path) = a.text().strip_prefix("of=")
                        && walk::is_raw_device(path)
                    {
                        self.report(
                            true,
                            "shell.dd-device",
                            format!(
                                "`dd` writes to the device `{path}`, which overwrites the disk or memory behind it. \
                                 Write to an image file inside the workspace (e.g. `of=./disk.img`) instead."
                            ),
                        );
                    }
                }
                Output::Unknown
            }
            n if own_rules
                && (n.starts_with("mkfs")
                    || matches!(
                        n,
                        "mke2fs" | "mkswap" | "wipefs" | "mkdosfs" | "mkntfs" | "mkexfatfs"
                    ))
                && !self.image_file_in_workspace(args, env) =>
            {
                self.report(
                    true,
                    "shell.mkfs",
                    format!(
                        "`{n}` creates or wipes a filesystem, destroying everything on the device. \
                         Do not format disks from an agent; ask a person."
                    ),
                );
                Output::Unknown
            }
            "chmod" | "chown" | "chgrp" if own_rules => {
                self.chmod(name, args, env);
                Output::Static(String::new())
            }
            "chattr" | "setfacl" | "setfattr" if own_rules => {
                // Every operand that is not an option or its value may be
                // a file (`chattr +i F`, `setfacl -m u:x:r F`): judge each.
                let files: Vec<&Field> = metadata_operands(name, args);
                self.metadata_change(name, &files, env);
                Output::Static(String::new())
            }
            "shutdown" | "reboot" | "halt" | "poweroff" if own_rules => {
                self.shutdown(name);
                Output::Unknown
            }
            "init" | "telinit" if own_rules => {
                if args.iter().any(|a| matches!(a.text().as_str(), "0" | "6")) {
                    self.shutdown(name);
                }
                Output::Unknown
            }
            "systemctl" if own_rules => {
                if let Some(sub) = args.iter().map(Field::text).find(|t| !t.starts_with('-'))
                    && matches!(
                        sub.as_str(),
                        "poweroff" | "reboot" | "halt" | "kexec" | "soft-reboot"
                    )
                {
                    self.shutdown(&format!("systemctl {sub}"));
                }
                Output::Unknown
            }
            "git" if own_rules => {
                self.git(args, env, depth, stdin);
                Output::Unknown
            }
            n if is_shell(n) => self.shell(n, args, env, depth, stdin),
            "eval" => {
                let joined = join_fields(args);
                // `eval` runs in this shell: a `cd`, variable or function
                // it sets holds for the commands after it
                // (`eval cd ~; rm -rf *`).
                if let Some(text) = joined.static_text() {
                    return self.script(&text, env, depth + 1, stdin);
                }
                // Text only known at run time may set any variable.
                self.vars_opaque = true;
                self.run_script_field(&joined, env, depth, stdin, "eval")
            }
            "source" | "." => {
                // A file run in this shell may set any variable (its text
                // is judged, its assignments are not followed).
                self.vars_opaque = true;
                if let Some(file) = args.first() {
                    let t = file.text();
                    if t == "/dev/stdin" || t == "-" {
                        self.stdin_program(name, stdin, env, depth, true);
                    } else {
                        self.program_file(name, file, env, depth);
                    }
                }
                Output::Unknown
            }
            n if is_interpreter(n) => {
                self.interpreter(n, args, env, stdin, depth);
                Output::Unknown
            }
            // `$(pwd)` is the working directory, as `$PWD` is (`cp x
            // $(pwd)/.claude/` writes the workspace's `.claude`). `pwd -P`
            // resolves links the analysis does not know of: unknown.
            "pwd" => match &env.cwd {
                Cwd::Known(c) if args.iter().all(|a| a.text() == "-L") => {
                    Output::Static(format!("{c}\n"))
                }
                _ => Output::Unknown,
            },
            "echo" => {
                let texts: Option<Vec<String>> = args.iter().map(Field::static_text).collect();
                match texts {
                    Some(t) => Output::Static(syntax::echo_output(&t)),
                    None => fields_output(args, true),
                }
            }
            "printf" => {
                // `printf -v 'BASH_CMDS[x]' /bin/rm`: the hash table given
                // a value not followed (review-s8 F2).
                if args.first().is_some_and(|a| a.text() == "-v")
                    && let Some(t) = args.get(1).filter(|t| {
                        t.text().starts_with("BASH_CMDS[") || t.text().starts_with("BASH_ALIASES[")
                    })
                {
                    self.bind_name(env, &dyn_field(&t.text()), t, false, "printf -v");
                }
                let texts: Option<Vec<String>> = args.iter().map(Field::static_text).collect();
                match texts {
                    Some(t) if t.first().is_some_and(|f| f == "-v") => {
                        if let Some(var) = t.get(1) {
                            env.vars.insert(var.clone(), dyn_field(&format!("${var}")));
                        }
                        Output::Static(String::new())
                    }
                    Some(t) if !t.is_empty() => {
                        let start = usize::from(t[0] == "--");
                        match t.get(start) {
                            Some(fmt) => syntax::printf_output(fmt, &t[start + 1..])
                                .map_or(Output::Unknown, Output::Static),
                            None => Output::Static(String::new()),
                        }
                    }
                    Some(_) => Output::Static(String::new()),
                    None => fields_output(args, false),
                }
            }
            "cat" => {
                let files = flags_positional(args);
                if files.is_empty() {
                    return stdin.clone();
                }
                let mut out = Output::Static(String::new());
                for f in files {
                    let t = f.text();
                    out = out.merge(if t == "-" || t == "/dev/stdin" {
                        stdin.clone()
                    } else if let Some(text) = env.written_text(&t) {
                        // Written earlier in the call (review-s9 G11).
                        Output::Static(text.to_string())
                    } else if walk::is_network_device(&t) {
                        Output::Downloaded
                    } else if f.is_dynamic() {
                        f.output()
                    } else {
                        Output::Unknown
                    });
                }
                out
            }
            "tee" => {
                let appends = args
                    .iter()
                    .any(|a| matches!(a.text().as_str(), "-a" | "--append"));
                for f in flags_positional(args) {
                    if own_rules {
                        self.check_device_write(&f.text(), "`tee`");
                        self.check_write(f, env, stdin, "`tee`", !appends, depth);
                    }
                    env.taint_file(&f.text(), stdin);
                    env.note_written(&f.text(), stdin, appends);
                }
                stdin.clone()
            }
            "cp" | "mv" | "install" | "ln" if own_rules => {
                // The destination, however it is named (`-t DIR`,
                // `--target-directory=DIR`, the last operand), is written,
                // and each source lands in it under its own name when it is
                // a directory (`cp -t .claude x/settings.json` and `cp
                // x/settings.json .claude/` write `.claude/settings.json`).
                // `ln`'s links are judged in `in_place_edits`.
                if let Some(place) = crate::removers::placement(name, args) {
                    self.check_device_write(&place.dest.text(), &format!("`{name}`"));
                    if name != "ln" {
                        self.check_write(
                            &place.dest,
                            env,
                            &Output::Unknown,
                            &format!("`{name}`"),
                            true,
                            depth,
                        );
                        for source in &place.sources {
                            if self.done() {
                                break;
                            }
                            let Some(inside) = crate::removers::inside(&place.dest, source) else {
                                continue;
                            };
                            self.check_write(
                                &inside,
                                env,
                                &Output::Unknown,
                                &format!("`{name}` (into `{}`)", place.dest.text()),
                                true,
                                depth,
                            );
                        }
                    }
                }
                Output::Unknown
            }
            "cp" | "mv" | "install" | "rsync" | "ln" | "scp" | "sftp" => {
                let positional = flags_positional(args);
                if own_rules && let Some(last) = positional.last() {
                    self.check_device_write(&last.text(), &format!("`{name}`"));
                    if name != "ln" {
                        self.check_write(
                            last,
                            env,
                            &Output::Unknown,
                            &format!("`{name}`"),
                            true,
                            depth,
                        );
                        // The destination may be a directory: each source
                        // lands in it under its own name (`rsync x/settings.json
                        // .claude/` writes `.claude/settings.json`).
                        for source in &positional[..positional.len() - 1] {
                            let Some(inside) = crate::removers::inside(last, source) else {
                                continue;
                            };
                            self.check_write(
                                &inside,
                                env,
                                &Output::Unknown,
                                &format!("`{name}` (into `{}`)", last.text()),
                                true,
                                depth,
                            );
                        }
                    }
                }
                if own_rules && matches!(name, "scp" | "rsync" | "sftp") {
                    self.remote_copy(name, args, env);
                }
                if own_rules && name == "rsync" {
                    self.rsync_delete(args, env);
                }
                Output::Unknown
            }
            "head" | "tail" | "less" | "more" | "sort" | "uniq" => pass_through(stdin),
            n if DOWNLOADERS.contains(&n) => {
                self.network_tool(n, args);
                if own_rules {
                    self.network_upload(n, args, env, stdin);
                }
                for file in download_targets(n, args) {
                    env.taint_file(&file, &Output::Downloaded);
                }
                Output::Downloaded
            }
            "openssl" => {
                let texts: Vec<String> = args.iter().map(Field::text).collect();
                if texts.first().is_some_and(|s| s == "s_client") {
                    Output::Downloaded
                } else if texts.iter().any(|t| t == "-d")
                    && texts
                        .iter()
                        .any(|t| matches!(t.as_str(), "base64" | "enc" | "-a" | "-base64"))
                {
                    decoded(stdin)
                } else {
                    Output::Unknown
                }
            }
            "base64" | "base32" | "basenc" | "b64decode" => {
                let f = flags(args);
                if f.short.contains('d')
                    || f.short.contains('D')
                    || f.long.iter().any(|l| l == "decode")
                    || name == "b64decode"
                {
                    decoded(stdin)
                } else {
                    encoded(stdin)
                }
            }
            "xxd" | "od" | "hexdump" => {
                if name == "xxd" && flags(args).short.contains('r') {
                    decoded(stdin)
                } else {
                    encoded(stdin)
                }
            }
            "uudecode" => decoded(stdin),
            "rev" => match stdin {
                Output::Static(t) => Output::Static(
                    t.lines()
                        .map(|l| l.chars().rev().collect::<String>() + "\n")
                        .collect(),
                ),
                o => decoded_if_static(o),
            },
            "tr" | "gunzip" | "zcat" | "bunzip2" | "unxz" | "xzcat" | "bzcat" | "gzip"
            | "bzip2" | "xz" | "zstd" | "unzstd" => decoded_if_static(stdin),
            "cd" | "pushd" => {
                let target = args
                    .iter()
                    .find(|a| !matches!(a.text().as_str(), "-L" | "-P" | "-e" | "-@" | "--"));
                self.change_dir(target, env);
                Output::Static(String::new())
            }
            "popd" => {
                env.cwd = Cwd::Unknown;
                Output::Static(String::new())
            }
            "export" | "declare" | "typeset" | "local" | "readonly" => {
                // `declare -n r=x`: r names another variable (a nameref);
                // `-a`/`-A`: arrays. Their values are not followed.
                let unknown = name != "export"
                    && args.iter().any(|a| {
                        let t = a.text();
                        t.starts_with(['-', '+']) && t[1..].contains(['n', 'a', 'A'])
                    });
                let assigns = assignments_of(args);
                self.code_variables(&assigns, env, depth, false);
                for a in args {
                    self.declare(a, env, unknown);
                }
                Output::Static(String::new())
            }
            "let" => {
                for a in args {
                    self.arith_assign(&a.text(), env);
                }
                Output::Static(String::new())
            }
            "read" if self.read_known_line(args, env, stdin) => Output::Static(String::new()),
            "unset" | "read" | "mapfile" | "readarray" => {
                // `read 'BASH_CMDS[x]'`, `printf -v 'BASH_CMDS[x]' /bin/rm`:
                // the hash table or the aliases given a value not followed.
                let table = args.iter().find(|a| {
                    a.text().starts_with("BASH_CMDS[") || a.text().starts_with("BASH_ALIASES[")
                });
                if name != "unset"
                    && let Some(t) = table
                {
                    self.bind_name(env, &dyn_field(&t.text()), t, false, name);
                }
                for a in args {
                    let t = a.text();
                    if !t.starts_with('-') {
                        env.vars.insert(t.clone(), dyn_field(&format!("${t}")));
                    }
                }
                Output::Static(String::new())
            }
            "alias" => {
                for a in args {
                    if let Some(text) = a.static_text()
                        && let Some((name, value)) = text.split_once('=')
                    {
                        let mut e = env.clone();
                        self.script(value, &mut e, depth + 1, &Output::Unknown);
                        // Remembered: a later `NAME …` runs VALUE (review-s8 F2).
                        self.bind_name(env, &Field::lit(name), &Field::lit(value), true, "alias");
                    } else if let Some((name, _)) = a.text().split_once('=') {
                        self.bind_name(env, &Field::lit(name), a, true, "alias");
                    }
                }
                Output::Static(String::new())
            }
            "unalias" => {
                for a in args {
                    match a.text().as_str() {
                        "-a" => env.names.retain(|_, b| !matches!(b, Binding::Alias(_))),
                        t => {
                            env.names.remove(t);
                        }
                    }
                }
                Output::Static(String::new())
            }
            "hash" => {
                self.hash_builtin(args, env);
                Output::Static(String::new())
            }
            "trap" => {
                let positional: Vec<&Field> =
                    args.iter().filter(|a| !a.text().starts_with('-')).collect();
                if positional.len() >= 2 {
                    self.run_script_field(positional[0], env, depth, &Output::Unknown, "trap");
                }
                Output::Static(String::new())
            }
            "apply_patch" | "applypatch" if own_rules => {
                self.apply_patch(name, args, env, depth, stdin);
                Output::Unknown
            }
            n if own_rules && crate::programs::is_editor(n) => {
                self.editor(n, args, env, depth, stdin);
                Output::Unknown
            }
            "ssh" => {
                let i = skip_options(
                    args,
                    &[
                        "-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m",
                        "-O", "-o", "-p", "-Q", "-R", "-S", "-W", "-w", "-B",
                    ],
                );
                let remote = args.get(i + 1..).unwrap_or(&[]);
                if !remote.is_empty() {
                    let script = remote.iter().map(Field::text).collect::<Vec<_>>().join(" ");
                    let mut fresh = Env::fresh(Cwd::None);
                    // The remote side has no workspace: judge absolute paths only.
                    let saved = std::mem::take(&mut self.workspace);
                    self.script(&script, &mut fresh, depth + 1, stdin);
                    self.workspace = saved;
                }
                Output::Unknown
            }
            // A program not known at all may run the command in its words
            // (review-s8 F1): read, only adding findings.
            n => {
                if own_rules
                    && !crate::programs::is_known_program(n)
                    && !matches!(
                        n,
                        "sed"
                            | "gsed"
                            | "sqlite3"
                            | "sqlite"
                            | "sqlcipher"
                            | "litecli"
                            | "psql"
                            | "mysql"
                            | "mariadb"
                            | "gdb"
                            | "cgdb"
                    )
                    && let Some(out) = self.unknown_program(n, args, env, depth)
                {
                    return out;
                }
                pass_through(stdin)
            }
        }
    }

    fn rm(&mut self, name: &str, args: &[Field], env: &mut Env, via_xargs: bool) -> Output {
        let mut recursive = false;
        let mut maybe_recursive = false;
        let mut splat = false;
        let mut no_preserve_root = false;
        let mut targets: Vec<&Field> = Vec::new();
        let mut ended = false;
        for a in args {
            let t = a.text();
            if ended {
                targets.push(a);
                continue;
            }
            if t == "--" {
                ended = true;
            } else if let Some(long) = t.strip_prefix("--") {
                match long {
                    "recursive" => recursive = true,
                    "no-preserve-root" => no_preserve_root = true,
                    _ => {}
                }
            } else if t.starts_with('-') && t.len() > 1 && !a.is_dynamic() {
                if t[1..].contains(['r', 'R']) {
                    recursive = true;
                }
            } else {
                if matches!(a.segs.first(), Some(Seg::Dyn { .. })) {
                    // `rm $FLAGS /x`: the variable may hold `-rf`.
                    maybe_recursive = true;
                }
                // `rm "$@"`, `rm "${args[@]}"`: several words, options
                // among them (`set -- -rf ~; rm "$@"`), none known.
                splat |= a
                    .segs
                    .iter()
                    .any(|s| matches!(s, Seg::Dyn { raw, .. } if is_splat(raw)));
                targets.push(a);
            }
        }
        if no_preserve_root {
            self.report(
                true,
                "shell.no-preserve-root",
                format!(
                    "`{name} --no-preserve-root` turns off the protection against deleting `/`. \
                     Never use it; delete specific paths inside the workspace instead."
                ),
            );
            return Output::Static(String::new());
        }
        if via_xargs && recursive {
            self.report(
                true,
                "shell.xargs-rm",
                format!(
                    "`xargs {name} -r` deletes recursively whatever paths arrive on standard input, which cannot be checked. \
                     Use `find <dir inside the workspace> … -delete`, or list the paths explicitly."
                ),
            );
            return Output::Static(String::new());
        }
        for t in targets {
            if self.done() {
                break;
            }
            let dynamic_ok = !recursive && !splat;
            match self.resolve_target(t, env, false) {
                Target::Dynamic if dynamic_ok => {}
                Target::Dynamic => self.report(
                    false,
                    "shell.rm-dynamic",
                    format!(
                        "`{name} -r {}` deletes a path that depends on values only known at run time (variables, command \
                         output, `cd` to a variable), so the analysis cannot tell what it deletes. Use a literal path inside \
                         the workspace, or a person must approve.",
                        t.text()
                    ),
                ),
                Target::Claimed(shown) => {
                    if recursive || maybe_recursive {
                        let how = format!("{name} -r");
                        self.report(
                            false,
                            "shell.rm-dynamic",
                            crate::walk::claimed_reason(&how, &shown),
                        );
                    }
                }
                Target::Known(place, shown) => {
                    if recursive || maybe_recursive {
                        let rule = match place {
                            Place::Root => "shell.rm-root",
                            Place::Home => "shell.rm-home",
                            Place::System => "shell.rm-system",
                            Place::Outside => "shell.rm-outside-workspace",
                            Place::WorkspaceRoot => "shell.rm-workspace-root",
                            Place::Inside => continue,
                        };
                        self.report_delete(name, rule, place, &shown);
                    } else if place == Place::System {
                        self.report_delete(name, "shell.rm-system", place, &shown);
                    }
                }
            }
        }
        Output::Static(String::new())
    }

    pub(crate) fn report_delete(&mut self, what: &str, rule: &str, place: Place, shown: &str) {
        let hint = self.workspace_hint();
        let (deny, msg) = match place {
            Place::Root => (
                true,
                format!(
                    "`{what}` on `{shown}` would delete the entire filesystem. Delete specific paths inside the workspace instead ({hint})."
                ),
            ),
            Place::Home => (
                true,
                format!(
                    "`{what}` on `{shown}` would delete a home directory. Delete specific paths inside the workspace instead ({hint})."
                ),
            ),
            Place::System => (
                true,
                format!(
                    "`{what}` on `{shown}` would delete operating-system files. Only paths inside the workspace may be deleted ({hint})."
                ),
            ),
            Place::Outside => (
                true,
                format!(
                    "`{what}` on `{shown}` deletes outside the workspace ({hint}). Only delete paths inside the workspace, or ask a person to do it."
                ),
            ),
            Place::WorkspaceRoot => (
                false,
                format!(
                    "`{what}` on `{shown}` deletes the whole workspace. A person must approve; to clean up, delete specific subdirectories such as `build/` instead."
                ),
            ),
            Place::Inside => return,
        };
        self.report(deny, rule, msg);
    }

    fn find(&mut self, args: &[Field], env: &mut Env, depth: u32, own_rules: bool) -> Output {
        let mut i = 0;
        while let Some(a) = args.get(i) {
            let t = a.text();
            if matches!(t.as_str(), "-H" | "-L" | "-P") || t.starts_with("-O") {
                i += 1;
            } else if t == "-D" {
                i += 2;
            } else {
                break;
            }
        }
        let mut starts: Vec<Field> = Vec::new();
        while let Some(a) = args.get(i) {
            let t = a.text();
            if t.starts_with('-') || matches!(t.as_str(), "(" | "!" | "," | ")") {
                break;
            }
            starts.push(a.clone());
            i += 1;
        }
        if starts.is_empty() {
            starts.push(Field::lit("."));
        }
        let mut deletes = false;
        // Each `-exec`/`-execdir`/`-ok`/`-okdir` command, and whether it runs
        // in the directory of the visited path (`-execdir`, `-okdir`).
        let mut execs: Vec<(Vec<Field>, bool)> = Vec::new();
        let mut max_depth: Option<String> = None;
        let mut min_depth: Option<String> = None;
        // Name tests (`-name GLOB`, `-path GLOB`), and whether the
        // expression has alternatives (`-o`), which may bypass them.
        let mut name_tests: Vec<(String, String)> = Vec::new();
        let mut alternatives = false;
        while let Some(a) = args.get(i) {
            let t = a.text();
            match t.as_str() {
                "-delete" => deletes = true,
                "-exec" | "-execdir" | "-ok" | "-okdir" => {
                    // `;` ends the command; `+` only right after `{}`
                    // (elsewhere find passes it on as an argument).
                    let end = (i + 1..args.len())
                        .find(|&k| match args[k].text().as_str() {
                            ";" => true,
                            "+" => k > i + 1 && args[k - 1].text() == "{}",
                            _ => false,
                        })
                        .unwrap_or(args.len());
                    execs.push((args[i + 1..end].to_vec(), t.ends_with("dir")));
                    i = end;
                }
                "-maxdepth" => max_depth = args.get(i + 1).map(Field::text),
                "-mindepth" => min_depth = args.get(i + 1).map(Field::text),
                "-name" | "-iname" | "-path" | "-ipath" | "-wholename" | "-iwholename" => {
                    if let Some(p) = args.get(i + 1) {
                        name_tests.push((t.clone(), p.text()));
                    }
                }
                "-o" | "-or" | "," => alternatives = true,
                "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                    // The file is created or truncated and written
                    // (find(1)), with text `-fprintf` chooses: a write
                    // like a redirection's (review s22 V5).
                    if own_rules && let Some(f) = args.get(i + 1) {
                        let via = format!("`find {t}`");
                        self.check_device_write(&f.text(), &via);
                        self.check_write(f, env, &Output::Unknown, &via, true, depth);
                    }
                }
                _ => {}
            }
            i += 1;
        }
        for (cmd, _) in &execs {
            let Some(first) = cmd.first() else { continue };
            let n = base_name(&first.text());
            // Removers, and the programs that destroy a file's content in
            // place (`truncate -s0 {}`, `dd of={}`, `wipe`).
            if matches!(
                n.as_str(),
                "rm" | "unlink"
                    | "shred"
                    | "srm"
                    | "truncate"
                    | "dd"
                    | "wipe"
                    | "rimraf"
                    | "trash"
                    | "trash-put"
            ) {
                deletes = true;
            }
        }
        if deletes && own_rules {
            for start in &starts {
                match self.resolve_target(start, env, true) {
                    Target::Dynamic => self.report(
                        false,
                        "shell.rm-dynamic",
                        format!(
                            "`find {} … -delete` deletes under a path only known at run time. Use a literal path inside the \
                             workspace, or a person must approve.",
                            start.text()
                        ),
                    ),
                    Target::Claimed(shown) => {
                        let how = format!("find {} … -delete", start.text());
                        self.report(
                            false,
                            "shell.rm-dynamic",
                            crate::walk::claimed_reason(&how, &shown),
                        );
                    }
                    Target::Known(Place::Inside | Place::WorkspaceRoot, _) => {}
                    Target::Known(place, shown) => {
                        let what = match place {
                            Place::Root => "the entire filesystem",
                            Place::Home => "a home directory",
                            Place::System => "operating-system files",
                            _ => "files outside the workspace",
                        };
                        let hint = self.workspace_hint();
                        self.report(
                            true,
                            "shell.find-delete",
                            format!(
                                "`find {} … -delete` (or `-exec` of a remover: `rm`, `shred`, `truncate`, `dd`) deletes or \
                                 empties {what} under `{shown}`. \
                                 Run `find` on a directory inside the workspace instead ({hint}).",
                                start.text()
                            ),
                        );
                    }
                }
            }
        }
        // The paths `{}` stands for: the start itself (depth 0) unless
        // `-mindepth` excludes it or a name test is likely to, and a path
        // below the start (`START/{}`) unless `-maxdepth 0`.
        let depth_is = |v: &Option<String>, n: &str| v.as_deref() == Some(n);
        let min_ok = min_depth.is_none() || depth_is(&min_depth, "0");
        let visits_start = |start: &Field| {
            depth_is(&max_depth, "0")
                || (min_ok
                    && (alternatives || name_tests.iter().all(|(t, p)| start_matches(start, t, p))))
        };
        let visits_below = !depth_is(&max_depth, "0");
        if starts.len().saturating_mul(execs.len()) > MAX_FIND_EXEC_RUNS {
            self.report(
                false,
                "shell.too-deep",
                format!(
                    "`find` with {} start paths and {} `-exec` commands is too much to analyse. \
                     Split it into smaller commands.",
                    starts.len(),
                    execs.len()
                ),
            );
            return Output::Unknown;
        }
        for (cmd, in_dir) in &execs {
            // The command is analysed as a command of its own (wrappers,
            // its operands, every rule), once for each path `{}` stands for.
            for start in &starts {
                // (the path, whether it is the start itself)
                let mut visited: Vec<(Vec<Seg>, bool)> = Vec::new();
                if visits_start(start) {
                    visited.push((start.segs.clone(), true));
                }
                if visits_below {
                    let mut below = start.segs.clone();
                    below.push(Seg::Lit {
                        text: "/{}".to_string(),
                        quoted: true,
                    });
                    visited.push((below, false));
                    // A guard rail or a piece of toolvet's state below the
                    // start is among the paths `{}` stands for, unless a
                    // name test rules its name out (`find /opt/tv -name
                    // toolvet -exec chmod -x {} +` changes the hook program).
                    // Every piece of toolvet's state below the start counts
                    // (the first one may be ruled out by a name the next
                    // one has), and the built-in rail the start holds.
                    if let Some(abs) = self.abs_path(start, env) {
                        let mut below: Vec<String> = self
                            .state
                            .state
                            .iter()
                            .chain(&self.state.secret)
                            .filter(|p| crate::paths::is_under(p, &abs))
                            .cloned()
                            .collect();
                        if let Some((_, guarded)) = self.state.rail_within(&abs)
                            && guarded != abs
                            && !below.contains(&guarded)
                        {
                            below.push(guarded);
                        }
                        for guarded in below {
                            let found = Field::lit(guarded);
                            let named = alternatives
                                || name_tests.iter().all(|(t, p)| {
                                    !matches!(t.as_str(), "-name" | "-iname")
                                        || start_matches(&found, t, p)
                                });
                            if named {
                                visited.push((found.segs, false));
                            }
                        }
                    }
                }
                for (path, is_start) in &visited {
                    if self.done() {
                        return Output::Unknown;
                    }
                    let argv: Vec<Field> = cmd.iter().map(|f| substitute_found(f, path)).collect();
                    let mut e = env.clone();
                    if *in_dir {
                        // `-execdir` runs in the directory holding the
                        // visited path: the start's own directory for the
                        // start (`.` stays `.`), the start for paths below.
                        self.change_dir(Some(start), &mut e);
                        let text = start.text();
                        if *is_start && text != "." && !text.ends_with("/.") {
                            self.change_dir(Some(&Field::lit("..")), &mut e);
                        }
                    }
                    self.exec(argv, &mut e, depth, &Output::Unknown, false);
                }
            }
        }
        Output::Unknown
    }

    fn chmod(&mut self, name: &str, args: &[Field], env: &mut Env) {
        let mut recursive = false;
        let mut reference = false;
        let mut positional: Vec<&Field> = Vec::new();
        let mut ended = false;
        for a in args {
            let t = a.text();
            if ended {
                positional.push(a);
            } else if t == "--" {
                ended = true;
            } else if t == "--recursive" {
                recursive = true;
            } else if t.starts_with("--reference") {
                reference = true;
            } else if t.starts_with("--") {
            } else if t.len() > 1 && t.starts_with('-') {
                let cluster = &t[1..];
                let is_mode = name == "chmod"
                    && positional.is_empty()
                    && cluster
                        .chars()
                        .all(|c| "rwxXstugoa=+-,0123456789".contains(c))
                    && !cluster.contains('R');
                if is_mode {
                    positional.push(a);
                } else if cluster.contains('R') {
                    recursive = true;
                }
            } else {
                positional.push(a);
            }
        }
        let targets = if reference {
            &positional[..]
        } else {
            positional.get(1..).unwrap_or(&[])
        };
        let what = if name == "chmod" {
            "permissions"
        } else {
            "ownership"
        };
        for t in targets {
            let (place, shown) = match self.resolve_target(t, env, false) {
                Target::Known(place, shown) => (place, shown),
                // `chmod -R 777 "$(cat p)"`: a tree only known at run time,
                // as `rm -r` of one (one file's mode is not judged by place).
                Target::Dynamic if recursive => {
                    self.report(
                        false,
                        "shell.chmod-system",
                        format!(
                            "`{name} -R` on `{}` changes the {what} of a whole tree whose path depends on values only \
                             known at run time (variables, command output), so the analysis cannot tell whether it is \
                             a home or system directory. Use a literal path inside the workspace ({}), or a person \
                             must approve.",
                            t.text(),
                            self.workspace_hint()
                        ),
                    );
                    continue;
                }
                // A claimed directory is outside the workspace, which
                // this rule does not judge (only the root, homes, system).
                Target::Dynamic | Target::Claimed(_) => continue,
            };
            let system_dir = crate::paths::SYSTEM_TREES.contains(&shown.as_str())
                || crate::paths::SYSTEM_DIRS.contains(&shown.as_str());
            let bad = match place {
                Place::Root => true,
                Place::Home | Place::System => recursive || system_dir,
                _ => false,
            };
            if bad {
                let r = if recursive { " -R" } else { "" };
                self.report(
                    true,
                    "shell.chmod-system",
                    format!(
                        "`{name}{r}` on `{shown}` changes the {what} of operating-system or home files, which can make the \
                         machine unusable or insecure. Change {what} only of paths inside the workspace ({}).",
                        self.workspace_hint()
                    ),
                );
            }
        }
        self.metadata_change(name, targets, env);
    }

    /// `hash -p PATH NAME…` makes each NAME run PATH (`-p` may be in a
    /// cluster, `-rp PATH`, or hold its value, `-pPATH`); `-r` forgets the
    /// table, `-d NAME` one entry (review-s8 F2).
    fn hash_builtin(&mut self, args: &[Field], env: &mut Env) {
        let mut path: Option<Field> = None;
        let mut delete = false;
        let mut i = 0;
        while let Some(a) = args.get(i) {
            let t = a.text();
            i += 1;
            if t == "--" {
                break;
            }
            if !t.starts_with('-') || t.len() < 2 || a.is_dynamic() {
                i -= 1;
                break;
            }
            for (k, c) in t[1..].char_indices() {
                match c {
                    'r' => env.names.retain(|_, b| !matches!(b, Binding::Program(_))),
                    'd' => delete = true,
                    'p' => {
                        let rest = &t[2 + k..];
                        path = if rest.is_empty() {
                            i += 1;
                            args.get(i - 1).cloned()
                        } else {
                            Some(Field::lit(rest))
                        };
                        break;
                    }
                    _ => {}
                }
            }
        }
        for name in &args[i.min(args.len())..] {
            match &path {
                Some(p) => self.bind_name(env, name, p, false, "hash -p"),
                None if delete => {
                    env.names.remove(&name.text());
                }
                None => {}
            }
        }
    }

    fn shutdown(&mut self, what: &str) {
        self.report(
            true,
            "shell.shutdown",
            format!("`{what}` would shut down or restart the machine. Do not run it; ask a person if a restart is needed."),
        );
    }

    fn git(&mut self, args: &[Field], env: &mut Env, depth: u32, stdin: &Output) {
        let mut i = 0;
        let mut env = env.clone();
        // `-c alias.NAME=VALUE` given here, for `git NAME ARGS…` below.
        let mut aliases: Vec<(String, String)> = Vec::new();
        while let Some(a) = args.get(i) {
            let t = a.text();
            // `-c K=V` and `--config-env=K=VAR`: configuration for this run.
            let config = if t == "-c" || t == "--config-env" {
                i += 1;
                args.get(i).map(|v| (t.clone(), v.clone()))
            } else {
                t.strip_prefix("--config-env=")
                    .map(|v| ("--config-env".to_string(), Field::lit(v)))
            };
            if let Some((how, kv)) = config {
                self.git_option_config(&how, &kv, &mut env, depth);
                if how == "-c"
                    && let Some((key, value)) =
                        kv.static_text().as_deref().and_then(|t| t.split_once('='))
                    && let Some(name) = key.to_ascii_lowercase().strip_prefix("alias.")
                {
                    aliases.push((name.to_string(), value.to_string()));
                }
                i += 1;
                continue;
            }
            if t == "-C" {
                let dir = args.get(i + 1).cloned();
                self.change_dir(dir.as_ref(), &mut env);
                i += 2;
            } else if let Some(dir) = t.strip_prefix("--exec-path=") {
                self.report(
                    false,
                    "shell.eval-dynamic",
                    format!(
                        "`git --exec-path={dir}` runs git's commands from a directory the analysis cannot read. A person \
                         must approve it."
                    ),
                );
                i += 1;
            } else if matches!(
                t.as_str(),
                "--git-dir"
                    | "--work-tree"
                    | "--namespace"
                    | "--super-prefix"
                    | "--attr-source"
                    | "--shallow-file"
            ) {
                // git.c's `handle_options`: these take the next word (exact
                // spellings only); any other dash word is a flag or refused.
                i += 2;
            } else if t.starts_with('-') {
                i += 1;
            } else {
                break;
            }
        }
        // `ext::` remotes run their command (`git clone 'ext::sh -c …'`,
        // with protocol.ext.allow): `% ` is a space in it.
        for a in &args[i.min(args.len())..] {
            if let Some(cmd) = a.text().strip_prefix("ext::") {
                let mut e = env.clone();
                self.script(&ext_command(cmd), &mut e, depth + 1, &Output::Unknown);
            }
        }
        let Some(sub) = args.get(i).map(Field::text) else {
            return;
        };
        let rest = &args[i + 1..];
        // `git -c alias.x=rebase x -ix CMD`: the alias with its words is
        // the git command that runs (a `!shell` alias is judged where it
        // is defined).
        if !crate::gitopts::is_builtin(&sub)
            && let Some((_, value)) = aliases
                .iter()
                .rev()
                .find(|(n, _)| n.eq_ignore_ascii_case(&sub))
            && !value.trim_start().starts_with('!')
        {
            let words: Vec<String> = rest
                .iter()
                .map(|a| match a.static_text() {
                    Some(t) => format!("'{}'", t.replace('\'', r"'\''")),
                    None => a.text(),
                })
                .collect();
            let text = format!("git {value} {}", words.join(" "));
            let mut e = env.clone();
            self.script(&text, &mut e, depth + 1, stdin);
            return;
        }
        self.git_subcommand_programs(&sub, rest, &mut env, depth);
        // `git NAME …` where NAME is none of git's commands is an alias from
        // configuration the check cannot see (`git config alias.p push` in
        // an earlier call), or an external `git-NAME`: it may stand for
        // `push`, `reset` or `clean`, so its words are read by their rules
        // too (`git p -f origin main` is held as `git push -f origin main`).
        let builtin = crate::gitopts::is_builtin(&sub);
        let history_rules: &[&str] = if builtin {
            &[sub.as_str()]
        } else {
            &["push", "reset", "clean"]
        };
        if !builtin {
            self.git_push(rest, Some(&sub));
        }
        self.git_writes(&sub, rest, &mut env);
        if builtin {
            self.git_whole_tree(&sub, rest, &env);
        }
        match sub.as_str() {
            "push" => self.git_push(rest, None),
            "config" => self.git_config(rest, &mut env, depth),
            "apply" | "am" => self.git_apply(&sub, rest, &mut env, depth, stdin),
            "checkout" | "restore" | "rm" | "mv" | "checkout-index" => {
                self.git_path_writes(&sub, rest, &mut env, depth)
            }
            "stash" => self.git_stash(rest, &mut env, depth),
            _ => {}
        }
        for &as_sub in history_rules {
            self.git_history_rules(as_sub, rest);
        }
    }

    /// The rules of the git commands that throw work away, for `git SUB
    /// ARGS` (`rest`): `config` of the programs git runs, `reset --hard`,
    /// `clean -f`, read by git's tables.
    fn git_history_rules(&mut self, sub: &str, rest: &[Field]) {
        match sub {
            "config"
                if rest.iter().any(|a| {
                    a.text().eq_ignore_ascii_case("core.hooksPath")
                        || a.text().eq_ignore_ascii_case("core.fsmonitor")
                        || a.text().eq_ignore_ascii_case("core.sshCommand")
                }) =>
            {
                self.report(
                    false,
                    "shell.guardrail-write",
                    "`git config` changes which programs git runs by itself (hooks, fsmonitor, ssh command). A person \
                     must approve; leave the repository's git configuration as it is.",
                );
            }
            // Read by git's tables (`--ha`, `--forc`, `-xdf`; review s17 Q7).
            "reset"
                if crate::gitopts::read(&crate::gitopts::GIT_RESET, rest)
                    .parsed
                    .has("hard") =>
            {
                self.report(
                    false,
                    "shell.git-reset-hard",
                    "`git reset --hard` throws away uncommitted changes for good. A person must approve; \
                     use `git stash` to keep the changes, or `git reset --soft`/`--mixed`.",
                );
            }
            "clean" => {
                let read = crate::gitopts::read(&crate::gitopts::GIT_CLEAN, rest);
                let force = read.parsed.has("force");
                let dry = read.parsed.has("dry-run");
                if force && !dry {
                    self.report(
                        false,
                        "shell.git-clean",
                        "`git clean -f` permanently deletes untracked files (with `-x`, ignored ones too, with `-d`, whole \
                         directories). A person must approve; run `git clean -n` first to see what would go.",
                    );
                }
            }
            _ => {}
        }
    }

    /// `git push`: force, delete and mirror read from git's push table
    /// ([`crate::gitopts`]: `-uf`, `--forc`, `--de`, `--mi`; any prefix of
    /// them, one letter included, is read as them; reviews s16 P10, s17
    /// Q7), checked against the refspecs (the operands after the remote).
    /// With `alias`, the words are those of `git ALIAS`, which may stand
    /// for `git push`: the reason says so, and a delete without a refspec
    /// (which `git push` refuses: `git br -d feature`) is nothing.
    fn git_push(&mut self, args: &[Field], alias: Option<&str>) {
        let table = crate::gitopts::command("push").expect("git push table");
        let read = crate::gitopts::read(&table.spec, args);
        let parsed = &read.parsed;
        let has = |n: &str| parsed.has(n);
        // An option word only known at run time (`-$F`) may be `-f` or `-d`.
        let unknown = !read.run_time.is_empty();
        let force = unknown || has("force") || has("force-with-lease") || has("mirror");
        let delete = unknown || has("delete");
        let all = has("mirror") || has("all") || has("branches");
        let positional: Vec<&Field> = parsed.operands.iter().map(|&k| &args[k]).collect();
        let protected = self.opts.protected_branches.join(", ");
        let refspecs = positional.get(1..).unwrap_or(&[]);
        let report = |this: &mut Self, msg: String| {
            let msg = match alias {
                Some(name) => format!(
                    "`git {name}` is not a git command but an alias or another program, which may be `git push`: {msg}"
                ),
                None => msg,
            };
            this.report(false, "shell.git-force-push", msg);
        };
        if refspecs.is_empty() {
            if force || (delete && alias.is_none()) {
                let msg = if all {
                    format!(
                        "The command force-pushes every branch, including the protected ones ({protected}), rewriting their \
                         shared history. A person must approve; force-push only your own branch by name."
                    )
                } else {
                    format!(
                        "The command force-pushes without naming a branch (it pushes the current branch), so the analysis \
                         cannot tell whether a protected branch ({protected}) is rewritten. Name the branch \
                         (`git push --force origin my-branch`), or a person must approve."
                    )
                };
                report(self, msg);
            }
            return;
        }
        for spec in refspecs {
            let text = spec.text();
            let plus = text.starts_with('+');
            let body = text.trim_start_matches('+');
            let (src, dst) = match body.split_once(':') {
                Some((s, d)) => (s, d),
                None => (body, body),
            };
            let ref_delete = delete || (src.is_empty() && body.contains(':'));
            let ref_force = force || plus;
            if !(ref_force || ref_delete) {
                continue;
            }
            let dst = dst.strip_prefix("refs/heads/").unwrap_or(dst);
            let action = if ref_delete {
                "deletes"
            } else {
                "force-pushes"
            };
            if spec.is_dynamic() || dst.is_empty() || dst == "HEAD" || dst == "@" {
                report(
                    self,
                    format!(
                        "The command {action} `{text}`, whose branch is not known here, so it may rewrite a protected branch \
                         ({protected}). Name the destination branch explicitly, or a person must approve."
                    ),
                );
            } else if self.opts.is_protected(dst) {
                report(
                    self,
                    format!(
                        "The command {action} the protected branch `{dst}`, rewriting shared history. A person must approve; \
                         push to a feature branch instead, or push without --force."
                    ),
                );
            }
        }
    }

    fn shell(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) -> Output {
        let mut i = 0;
        let mut command_mode = false;
        let mut stdin_mode = false;
        while let Some(a) = args.get(i) {
            let t = a.text();
            if t == "--" || t == "-" {
                i += 1;
                break;
            }
            if t.starts_with("--") {
                if matches!(t.as_str(), "--rcfile" | "--init-file") {
                    // Read as the shell's program (review-s9 G11).
                    if let Some(file) = args.get(i + 1) {
                        self.program_file(name, file, env, depth);
                    }
                    i += 1;
                }
                i += 1;
                continue;
            }
            if (t.starts_with('-') || t.starts_with('+')) && t.len() > 1 && !a.is_dynamic() {
                for c in t[1..].chars() {
                    match c {
                        'c' => command_mode = true,
                        's' => stdin_mode = true,
                        'o' | 'O' => i += 1,
                        _ => {}
                    }
                }
                i += 1;
                continue;
            }
            break;
        }
        let rest = args.get(i..).unwrap_or(&[]);
        if command_mode {
            if let Some(script) = rest.first() {
                let via = format!("{name} -c");
                return self.run_script_field(script, env, depth, &Output::Unknown, &via);
            }
            return Output::Unknown;
        }
        match rest.first() {
            Some(file) if !stdin_mode => {
                let t = file.text();
                if t == "/dev/stdin" {
                    self.stdin_program(name, stdin, env, depth, true);
                } else {
                    self.program_file(name, file, env, depth);
                }
            }
            _ => self.stdin_program(name, stdin, env, depth, true),
        }
        Output::Unknown
    }

    /// A program file argument: a process substitution is followed, a file
    /// written earlier from a download or decoder is refused.
    pub(crate) fn program_file(&mut self, name: &str, file: &Field, env: &Env, depth: u32) {
        if let Some(path) = file.static_text()
            && let Some(out) = env.file_taint(&path).cloned()
        {
            self.report_taint(
                &out,
                &format!("`{name} {path}`, written from it earlier in the command"),
            );
            return;
        }
        if self.run_written_script(name, file, env, depth) {
            return;
        }
        for seg in &file.segs {
            if let Seg::Dyn { out, .. } = seg {
                match out {
                    Output::Static(text) if is_shell(name) || name == "source" || name == "." => {
                        let mut e = env.clone();
                        self.script(text, &mut e, depth + 1, &Output::Unknown);
                    }
                    o => self.report_taint(o, &format!("given to `{name}` as its program")),
                }
            }
        }
    }

    fn interpreter(&mut self, name: &str, args: &[Field], env: &Env, stdin: &Output, depth: u32) {
        if is_powershell(name) {
            self.powershell(name, args, env, stdin, depth);
            return;
        }
        let code_letters: &[char] =
            if name.starts_with("python") || name.starts_with("pypy") || name == "expect" {
                &['c']
            } else if name.starts_with("php") {
                // php(1): `-r` code, `-B`/`-R`/`-E` begin, per-line and
                // end code (review s22 V3).
                &['r', 'B', 'R', 'E']
            } else if matches!(name, "pwsh" | "powershell") {
                &['c', 'C', 'e', 'E']
            } else {
                &['e', 'E']
            };
        let code_letters: &[char] = if matches!(name, "node" | "nodejs" | "bun" | "deno") {
            &['e', 'p']
        } else {
            code_letters
        };
        let mut code = false;
        let mut program: Option<&Field> = None;
        let mut i = 0;
        if name == "deno" && args.first().is_some_and(|a| a.text() == "eval") {
            // `deno eval CODE`.
            if let Some(c) = args.iter().skip(1).find(|a| !a.text().starts_with('-')) {
                self.inline_code(name, "eval", c, env, depth);
            }
            return;
        }
        while let Some(a) = args.get(i) {
            let t = a.text();
            if t.starts_with("--") {
                // `node --eval CODE`, `--print CODE`, `--eval=CODE`.
                let long = t.split('=').next().unwrap_or(&t);
                // A long option taking its value as the next word (`node
                // --input-type module -e CODE`): the value is no program
                // (review s17 Q1).
                if !t.contains('=') && option_values(name).1.contains(&long) {
                    i += 2;
                    continue;
                }
                if matches!(long, "--eval" | "--print" | "--command") {
                    code = true;
                    match t.split_once('=') {
                        Some((_, v)) => {
                            let c = Field::lit(v);
                            self.inline_code(name, long, &c, env, depth);
                            i += 1;
                        }
                        None => {
                            if let Some(c) = args.get(i + 1) {
                                self.inline_code(name, long, c, env, depth);
                            }
                            i += 2;
                        }
                    }
                    continue;
                }
                i += 1;
                continue;
            }
            if t.starts_with('-') && t.len() > 1 {
                if t.ends_with(code_letters) || t.eq_ignore_ascii_case("-command") {
                    code = true;
                    if let Some(c) = args.get(i + 1) {
                        self.inline_code(name, &t, c, env, depth);
                    }
                    i += 2;
                    continue;
                }
                // Code joined to its option, as getopt reads a cluster
                // (`python3 -c"CODE"`, `-Ic"CODE"`, `perl -e'CODE'`,
                // `php -r'CODE'`): the rest of the word after the code
                // letter, unless an option taking a value comes first
                // (review s16 P4, the same class as `-maider`).
                if let Some(code_text) = joined_code(name, &t, code_letters) {
                    code = true;
                    let c = Field::lit(code_text);
                    self.inline_code(name, &t, &c, env, depth);
                    i += 1;
                    continue;
                }
                if t == "-m" {
                    program = args.get(i + 1);
                    break;
                }
                // A cluster ending in a letter that takes a value takes the
                // next word (`python3 -X utf8 -c CODE`, `perl -I lib -e`,
                // `ruby -r json -e`, `php -d K=V -r`, `node -r M -e`): that
                // word is the option's value, not the program, so the code
                // option after it is read (review s17 Q1). Python's `-m`
                // at the end of a cluster (`-Im MODULE`) names the program.
                if let Some(letter) = value_taking_last(name, &t) {
                    if letter == 'm' && is_python(name) {
                        program = args.get(i + 1);
                        break;
                    }
                    i += 2;
                    continue;
                }
                i += 1;
                continue;
            }
            program = Some(a);
            break;
        }
        match program {
            Some(p) if p.text() == "/dev/stdin" && !code => match stdin {
                Output::Static(text) => self.embedded_commands(name, text, env, depth),
                other => self.report_taint(other, &format!("piped into `{name}`")),
            },
            Some(p) if p.text() != "-" => {
                // `python3 <(echo 'code')`: code the analysis has seen.
                for seg in &p.segs {
                    if let Seg::Dyn {
                        out: Output::Static(code),
                        ..
                    } = seg
                    {
                        self.embedded_commands(name, code, env, depth);
                    }
                }
                let out = match p.static_text().and_then(|t| env.file_taint(&t).cloned()) {
                    Some(o) => o,
                    None => p.output(),
                };
                self.report_taint(&out, &format!("given to `{name}` as its program"));
                // A program file written earlier in the call (review-s9 G11).
                self.run_written_script(name, p, env, depth);
            }
            _ if !code => match stdin {
                Output::Static(text) => self.embedded_commands(name, text, env, depth),
                other => self.report_taint(other, &format!("piped into `{name}`")),
            },
            _ => {}
        }
    }

    /// PowerShell (`pwsh`, `powershell`): the check does not read
    /// PowerShell, so a call passes only when it provably runs no text:
    /// `-Version` or `-Help` alone. Anything else (`-c`/`-Command`,
    /// `-EncodedCommand`, `-File`, a script operand, text on standard
    /// input, any prefix of those, which PowerShell accepts) is held
    /// (review s22 V7); the words are still read as shell text first, so
    /// a denied command in them (`pwsh -c 'bash -c "rm -rf ~"'`) is
    /// denied.
    fn powershell(&mut self, name: &str, args: &[Field], env: &Env, stdin: &Output, depth: u32) {
        let info = |t: &str| {
            matches!(
                t.to_ascii_lowercase().as_str(),
                "-v" | "-version" | "--version" | "-h" | "-help" | "--help" | "-?" | "/?"
            )
        };
        if !args.is_empty() && args.iter().all(|a| info(&a.text())) {
            return;
        }
        for a in args {
            let out = a.output();
            if out.is_tainted() {
                self.report_taint(&out, &format!("as `{name}` code"));
                return;
            }
            if let Some(t) = a.static_text().filter(|t| !t.starts_with('-')) {
                let mut e = env.clone();
                self.script(&t, &mut e, depth + 1, &Output::Unknown);
            }
        }
        match stdin {
            Output::Static(t) => {
                let mut e = env.clone();
                self.script(t, &mut e, depth + 1, &Output::Unknown);
            }
            o if o.is_tainted() => {
                self.report_taint(o, &format!("piped into `{name}`"));
                return;
            }
            _ => {}
        }
        self.report(
            false,
            "shell.eval-dynamic",
            format!(
                "`{name}` runs PowerShell text, which the check does not read (only `{name} -Version` and `-Help` \
                 pass). A person must approve it as it is; run the commands through the shell instead."
            ),
        );
    }

    /// Code given on an interpreter's command line (`python3 -c CODE`,
    /// `perl -e`, `node -e`, `php -r`): downloaded or decoded code is
    /// refused; code that is only an unknown variable (`python3 -c
    /// "$CODE"`) is judged as `eval` of it; the shell commands and the
    /// guarded paths the text names are judged (the parts only known at
    /// run time stay unread).
    fn inline_code(&mut self, name: &str, flag: &str, code: &Field, env: &Env, depth: u32) {
        let out = code.output();
        if out.is_tainted() {
            self.report_taint(&out, &format!("as `{name} {flag}` code"));
            return;
        }
        let only_dynamic = code.segs.iter().all(|s| match s {
            Seg::Lit { text, .. } => text.trim().is_empty(),
            _ => true,
        });
        if only_dynamic && has_unknown_variable(code) {
            self.report(
                false,
                "shell.eval-dynamic",
                format!(
                    "`{name} {flag}` runs code held in a variable whose value is not known here, so it cannot be \
                     checked. Pass the code directly; a person must approve it as it is."
                ),
            );
            return;
        }
        let text = code.static_text().unwrap_or_else(|| code.text());
        self.embedded_commands(name, &text, env, depth);
    }

    /// Text that every path naming a guard rail, toolvet's state or key,
    /// or a git configuration file holds (lower case): the names of the
    /// built-in guard rails and the last three segments of the host's
    /// state and secret paths. A word without any cannot name one.
    fn guarded_needles(&self) -> Vec<String> {
        const BUILT_IN: &[&str] = &[
            ".claude",
            ".mcp",
            ".cursor",
            ".vscode",
            ".codex",
            ".gemini",
            ".github",
            "code-workspace",
            ".git",
            "git/config",
            "bash",
            "profile",
            ".zsh",
            ".zlogin",
            "fish",
            "/etc",
            "toolvet",
            "approvals.",
            "gitconfig",
            ".copilot",
            "agents.",
            "claude.",
            "gemini.md",
            "rules",
            "instructions",
            "~",
        ];
        let mut needles: Vec<String> = BUILT_IN.iter().map(|s| s.to_string()).collect();
        // Every built-in rail's name, from the catalog's own list.
        needles.extend(check_catalog::guardrails::name_needles().iter().cloned());
        for p in self.state.state.iter().chain(&self.state.secret) {
            for seg in p.rsplit('/').take(3).filter(|s| !s.is_empty()) {
                needles.push(seg.to_ascii_lowercase());
            }
        }
        needles
    }

    /// The guard rail held by the directory `abs` when it is the rail's own
    /// directory or close above it (`.claude`, `state/` of the ledger; at
    /// most two levels), not `/`, the home or a workspace root, which hold
    /// everything: naming those in code or a git pathspec says nothing
    /// about guard rails.
    pub(crate) fn rail_just_within(&self, abs: &str) -> Option<String> {
        if abs == "/"
            || self.home.as_deref() == Some(abs)
            || self.workspace.iter().any(|w| w == abs)
            || crate::paths::SYSTEM_DIRS.contains(&abs)
        {
            return None;
        }
        let (_, guarded) = self.state.rail_within(abs)?;
        let below = guarded.strip_prefix(abs).unwrap_or(&guarded);
        (guarded != abs && below.matches('/').count() <= 2).then_some(guarded)
    }

    /// Analyse the shell commands found in another language's code.
    pub(crate) fn embedded_commands(&mut self, name: &str, code: &str, env: &Env, depth: u32) {
        // Code calling toolvet serve's decision endpoint or reading its
        // tokens (review s12 L2).
        self.decision_request(name, &[code.to_string()]);
        if let Some(v) = crate::selfstate::toolvet_secret_named(code) {
            self.toolvet_secret_read(&format!("`{name}` code"), &v);
        }
        if code.len() > crate::embedded::MAX_CODE {
            self.report(
                false,
                "shell.too-long",
                format!(
                    "The `{name}` code on the command line is {} bytes long, more than the {} bytes this check reads. \
                     A person must review it; write it to a file in the workspace and run the file instead.",
                    code.len(),
                    crate::embedded::MAX_CODE
                ),
            );
            return;
        }
        let backticks =
            name.starts_with("perl") || name.starts_with("ruby") || name.starts_with("php");
        let mut commands = crate::embedded::shell_commands(code, backticks);
        if matches!(name, "awk" | "gawk" | "mawk" | "nawk" | "busybox") {
            commands.extend(crate::embedded::awk_pipe_commands(code));
        }
        if matches!(name, "tclsh" | "wish" | "jimsh" | "expect") || name.starts_with("tclsh") {
            commands.extend(crate::embedded::tcl_commands(code, name == "expect"));
        }
        if name.starts_with("lua") {
            commands.extend(crate::embedded::lua_commands(code));
        }
        let stop = self.found_commands(&format!("The `{name}` code"), &commands, env, depth);
        // Signals sent by the code itself (`os.kill`, Perl `kill`),
        // after its commands, whose pid lookups count (review s16 P1).
        self.code_signals(name, code);
        self.code_agents(name, code);
        if stop {
            return;
        }
        self.inline_code_paths(
            &format!(
                "`{name}` code (which this check cannot read: a file it names counts as written; `cat` reads a file)"
            ),
            code,
            env,
            depth,
        );
    }

    /// Judges the shell commands found in another language's code, an
    /// editor's or a client's commands (`what`, e.g. "The `perl` code"),
    /// each as a command line run from here, at most
    /// [`crate::embedded::MAX_COMMANDS`] of them: when more were found the
    /// rest go unjudged, so the call escalates (`shell.too-long`) rather
    /// than pass on what was not read. Returns whether the verdict is
    /// settled.
    pub(crate) fn found_commands(
        &mut self,
        what: &str,
        commands: &[String],
        env: &Env,
        depth: u32,
    ) -> bool {
        for cmd in commands.iter().take(crate::embedded::MAX_COMMANDS) {
            let mut e = env.clone();
            self.script(cmd, &mut e, depth + 1, &Output::Unknown);
            if self.done() {
                return true;
            }
        }
        if commands.len() > crate::embedded::MAX_COMMANDS {
            self.too_many_found(what);
        }
        self.done()
    }

    /// Reports that `what` runs more commands or writes more files than
    /// this check judges ([`crate::embedded::MAX_COMMANDS`]).
    pub(crate) fn too_many_found(&mut self, what: &str) {
        self.report(
            false,
            "shell.too-long",
            format!(
                "{what} runs more than {} commands or writes more than that many files, more than this check \
                 judges in one piece of code. A person must review it; or run it from a file in the workspace.",
                crate::embedded::MAX_COMMANDS
            ),
        );
    }

    /// Code the analysis cannot read (an interpreter's `-c`/`-e`, an
    /// editor's or awk's commands) that names one of toolvet's state or
    /// secret paths or a guard rail (`open("examples/toolvet.toml", "w")`,
    /// `unlink "state/approvals.db"`, `w .claude/settings.json`) is judged
    /// as a write onto it, as the same write from the shell is: the code
    /// may do anything with a file it names. Other files stay unjudged, so
    /// ordinary code (`print(1)`, reading a data file) is not refused.
    pub(crate) fn inline_code_paths(&mut self, via: &str, code: &str, env: &Env, depth: u32) {
        let mut e = env.clone();
        let needles = self.guarded_needles();
        // Inside a guarded directory, or with links the run made, any
        // relative word may name a guarded file: every word is resolved.
        let cwd_guarded = match &env.cwd {
            Cwd::Known(c) => {
                let c = c.to_ascii_lowercase();
                needles.iter().any(|n| c.contains(n.as_str()))
            }
            _ => false,
        };
        let check_all = cwd_guarded || !self.facts.symlinks.is_empty();
        for token in crate::embedded::path_tokens(code) {
            if self.done() {
                return;
            }
            // Only words that can name a guarded path are resolved: each
            // holds a name of one (cheap, so no word is skipped for time).
            let lower = token.to_ascii_lowercase();
            if !check_all && !needles.iter().any(|n| lower.contains(n.as_str())) {
                continue;
            }
            let field = match token.strip_prefix('~') {
                Some(rest) if rest.is_empty() || rest.starts_with('/') => Field {
                    segs: vec![
                        Seg::Home(None),
                        Seg::Lit {
                            text: rest.to_string(),
                            quoted: true,
                        },
                    ],
                },
                _ => Field::lit(token.as_str()),
            };
            let Some(abs) = self.abs_path(&field, &e) else {
                continue;
            };
            if self.state.guard_rail(&abs).is_some()
                || self.state.is_secret(&abs)
                || crate::sinks::is_git_config_file(&abs)
            {
                self.check_write(&field, &mut e, &Output::Unknown, via, true, depth);
            } else if let Some(guarded) = self.rail_just_within(&abs) {
                // A directory holding guard rails (`.claude`, toolvet's
                // state directory): the code may write what is in it.
                self.check_write(
                    &Field::lit(guarded),
                    &mut e,
                    &Output::Unknown,
                    &format!("{via} (naming `{token}`, which holds it)"),
                    true,
                    depth,
                );
            }
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

    pub(crate) fn change_dir(&mut self, target: Option<&Field>, env: &mut Env) {
        let new = match target {
            None => match &self.home {
                Some(h) => Cwd::Known(h.clone()),
                None => Cwd::Unknown,
            },
            Some(f) => match f.static_text() {
                Some(t) if t == "-" => Cwd::Unknown,
                Some(t) if t.starts_with('/') => Cwd::Known(crate::paths::normalize_abs(&t)),
                Some(t) if self.cd_is_searched(&t, env) => Cwd::Unknown,
                Some(t) => match &env.cwd {
                    Cwd::Known(c) => Cwd::Known(crate::paths::resolve(c, &t)),
                    Cwd::None if crate::paths::normalize_rel(&t).is_some() => Cwd::None,
                    _ => Cwd::Unknown,
                },
                None => match (f.segs.first(), &self.home) {
                    (Some(Seg::Home(None)), Some(h)) => {
                        let rest: String = f.segs[1..]
                            .iter()
                            .map(|s| match s {
                                Seg::Lit { text, .. } => text.clone(),
                                _ => "\u{0}".to_string(),
                            })
                            .collect();
                        if rest.contains('\u{0}') {
                            Cwd::Unknown
                        } else {
                            Cwd::Known(crate::paths::resolve(h, rest.trim_start_matches('/')))
                        }
                    }
                    _ => Cwd::Unknown,
                },
            },
        };
        env.cwd = new;
    }

    /// `read [-r] NAME… <<< TEXT`: the names take the words of the first
    /// line of a standard input the analysis knows (the last name the
    /// rest of the line). Returns false when it does not apply (unknown
    /// input, arrays, options it does not follow); the names then become
    /// unknown.
    fn read_known_line(&mut self, args: &[Field], env: &mut Env, stdin: &Output) -> bool {
        let Output::Static(text) = stdin else {
            return false;
        };
        let mut raw = false;
        let mut names: Vec<String> = Vec::new();
        for a in args {
            let Some(t) = a.static_text() else {
                return false;
            };
            if t == "-r" {
                raw = true;
            } else if t.starts_with('-') || t.is_empty() {
                // `-a` (an array), `-d`, `-n`, `-p`, `-u`: not followed.
                return false;
            } else {
                names.push(t);
            }
        }
        if names.is_empty()
            || !names
                .iter()
                .all(|n| n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        {
            return false;
        }
        let line = text.lines().next().unwrap_or("");
        let line = if raw {
            line.to_string()
        } else {
            line.replace('\\', "")
        };
        let ifs = env.ifs();
        let mut rest = line.trim_matches(|c: char| ifs.contains(c));
        for (i, name) in names.iter().enumerate() {
            let value = if i + 1 == names.len() {
                rest.to_string()
            } else {
                let end = rest.find(|c: char| ifs.contains(c)).unwrap_or(rest.len());
                let (w, r) = rest.split_at(end);
                rest = r.trim_start_matches(|c: char| ifs.contains(c));
                w.to_string()
            };
            env.vars.insert(name.clone(), Field::lit(value));
        }
        true
    }

    fn declare(&mut self, arg: &Field, env: &mut Env, unknown: bool) {
        let Some(Seg::Lit { text, .. }) = arg.segs.first() else {
            return;
        };
        let Some((name, first_value)) = text.split_once('=') else {
            return;
        };
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return;
        }
        if unknown {
            env.vars
                .insert(name.to_string(), dyn_field(&format!("${name}")));
            return;
        }
        let mut value = Field::lit(first_value);
        value.segs.extend(arg.segs[1..].iter().cloned());
        env.vars.insert(name.to_string(), value);
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

/// The shell text of a git `ext::` remote's command: words are separated
/// by spaces, `% ` is a space inside a word, `%%` a `%` (`%S`, `%s`, `%G`
/// are git's placeholders, kept).
fn ext_command(spec: &str) -> String {
    let mut words: Vec<String> = vec![String::new()];
    let mut chars = spec.chars();
    while let Some(c) = chars.next() {
        match c {
            '%' => match chars.next() {
                Some(' ') => words.last_mut().map_or((), |w| w.push(' ')),
                Some('%') => words.last_mut().map_or((), |w| w.push('%')),
                Some(o) => words.last_mut().map_or((), |w| {
                    w.push('%');
                    w.push(o)
                }),
                None => {}
            },
            ' ' => words.push(String::new()),
            c => words.last_mut().map_or((), |w| w.push(c)),
        }
    }
    words
        .iter()
        .filter(|w| !w.is_empty())
        .map(|w| crate::shell_quote(w))
        .collect::<Vec<_>>()
        .join(" ")
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

/// What `parallel …` runs, as [`Analysis::parallel`] reads it.
pub(crate) enum Parallel {
    /// A command whose inputs the check cannot see (`cat list | parallel
    /// gzip`), or which reads the input itself (`--pipe`): judged as the
    /// command, as for `xargs`.
    FromInput(Vec<Field>),
    /// Every job was judged here.
    Done,
}

/// One input item of GNU parallel: a `:::` word, or a line of a file or
/// of standard input.
#[derive(Clone)]
enum ParallelItem {
    Word(Field),
    Line(String),
}

impl ParallelItem {
    /// Its text when known; `None` for a word only known at run time.
    fn known(&self) -> Option<String> {
        match self {
            ParallelItem::Word(f) => f.static_text(),
            ParallelItem::Line(l) => Some(l.clone()),
        }
    }

    /// What it puts in a job's line.
    fn value(&self) -> PValue {
        match self {
            ParallelItem::Word(f) if f.first_glob().is_some() => {
                f.static_text().map_or(PValue::Unknown, PValue::Glob)
            }
            _ => self.known().map_or(PValue::Unknown, PValue::Known),
        }
    }

    /// Whether it is an unquoted glob: the shell makes it one word per
    /// match before parallel sees it, so it stands for several items.
    fn is_glob(&self) -> bool {
        matches!(self, ParallelItem::Word(f) if f.first_glob().is_some())
    }
}

/// One input of a job, as [`parallel_replace`] fills it in.
#[derive(Clone, PartialEq, Eq)]
enum PValue {
    /// Known text.
    Known(String),
    /// An unquoted glob (`*.log`): every name it matches is an input, so
    /// the pattern itself is put in the line unquoted, for the line's
    /// analysis to read as a glob.
    Glob(String),
    /// Only known at run time.
    Unknown,
}

/// A shell variable no command sets, standing for an input the check
/// cannot see in a job line it builds: the line's analysis reads it as a
/// value only known at run time.
const PARALLEL_UNSEEN: &str = "__toolvet_parallel_input__";

/// How [`parallel_replace`] writes one input into a command word.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fill {
    /// Shell-quoted, as parallel puts an input in a line.
    Quoted,
    /// As written (for `parallel {}`-style commands, judged both ways, and
    /// for `-q`, whose whole word is quoted after).
    Raw,
}

/// The replacement strings GNU parallel fills in `word` from one job
/// (parallel(1) "{}", "{.}", "{/}", "{//}", "{/.}", "{#}", and with
/// several input sources "{N}", "{N.}", "{N/}", "{N//}", "{N/.}"):
/// `values` has one input per source (`None`: only known at run time),
/// `seq` is the job's number. `{}` is every input, each filled, joined by
/// spaces; an unnumbered modifier (`{.}`) with several sources, a source
/// number past the last, `{%}` (the job slot, chosen at run time), `{= perl
/// =}` and any other `{…}` are `Err`. `Ok((text, whether a string was
/// filled))`.
fn parallel_replace(
    word: &str,
    values: &[PValue],
    seq: usize,
    fill: Fill,
) -> Result<(String, bool), String> {
    let put = |v: &PValue, modify: &dyn Fn(&str) -> String| match (v, fill) {
        (PValue::Known(v), Fill::Quoted) => crate::shell_quote(&modify(v)),
        (PValue::Known(v) | PValue::Glob(v), Fill::Raw) => modify(v),
        (PValue::Glob(v), Fill::Quoted) => modify(v),
        (PValue::Unknown, Fill::Quoted) => format!("\"${{{PARALLEL_UNSEEN}}}\""),
        (PValue::Unknown, Fill::Raw) => format!("${{{PARALLEL_UNSEEN}}}"),
    };
    let mut out = String::new();
    let mut rest = word;
    let mut replaced = false;
    while let Some(at) = rest.find('{') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let Some(end) = tail.find('}') else {
            out.push_str(tail);
            return Ok((out, replaced));
        };
        let name = &tail[..=end];
        let inner = &tail[1..end];
        if inner.is_empty() {
            let all: Vec<String> = values.iter().map(|v| put(v, &|s| s.to_string())).collect();
            out.push_str(&all.join(" "));
        } else if inner == "#" {
            out.push_str(&seq.to_string());
        } else {
            let digits = inner.len() - inner.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            let (number, modifier) = inner.split_at(digits);
            let source = match number.parse::<usize>() {
                Ok(n) if (1..=values.len()).contains(&n) => n - 1,
                Err(_) if values.len() == 1 => 0,
                _ => return Err(name.to_string()),
            };
            let no_ext = |s: &str| match s.rfind('.') {
                Some(k) if k > 0 && !s[k..].contains('/') => s[..k].to_string(),
                _ => s.to_string(),
            };
            let base = |s: &str| s.rsplit('/').next().unwrap_or(s).to_string();
            let value = &values[source];
            let text = match modifier {
                "" if !number.is_empty() => put(value, &|s| s.to_string()),
                "." => put(value, &no_ext),
                "/" => put(value, &base),
                "//" => put(value, &|s| match s.rfind('/') {
                    Some(k) => s[..k].to_string(),
                    None => ".".to_string(),
                }),
                "/." => put(value, &|s| no_ext(&base(s))),
                _ => return Err(name.to_string()),
            };
            out.push_str(&text);
        }
        replaced = true;
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    Ok((out, replaced))
}

/// Whether a parallel command (the words before the first `:::`) uses the
/// job number `{#}`.
fn cmd_has_seq(rest: &[Field]) -> bool {
    rest.iter()
        .take_while(|a| !a.text().starts_with(":::"))
        .any(|a| a.text().contains("{#}"))
}

/// The jobs GNU parallel makes of its input sources (parallel(1) "INPUT
/// SOURCE"): sources linked by `:::+`/`::::+` (or all, with `--link`)
/// pair their items in order, and the groups so formed combine as a
/// cross product, the last varying fastest. Linked sources of different
/// lengths (parallel wraps the shorter ones) are `Err`, and so is more
/// than `cap` jobs.
fn parallel_jobs(
    sources: &[(Vec<ParallelItem>, bool)],
    cap: usize,
) -> Result<Vec<Vec<ParallelItem>>, String> {
    // Each group: the indexes of its sources.
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, (_, linked)) in sources.iter().enumerate() {
        match groups.last_mut() {
            Some(g) if *linked => g.push(i),
            _ => groups.push(vec![i]),
        }
    }
    let mut jobs: Vec<Vec<ParallelItem>> = vec![Vec::new()];
    for g in &groups {
        let len = sources[g[0]].0.len();
        if g.iter().any(|&i| sources[i].0.len() != len) {
            return Err("linked input sources of different lengths".into());
        }
        if g.len() > 1
            && g.iter()
                .any(|&i| sources[i].0.iter().any(ParallelItem::is_glob))
        {
            return Err(
                "a glob in linked input sources, whose length is only known at run time".into(),
            );
        }
        if jobs.len().saturating_mul(len) > cap {
            return Err(format!("more than {cap} jobs, more than the check reads"));
        }
        let mut next = Vec::with_capacity(jobs.len() * len);
        for job in &jobs {
            for k in 0..len {
                let mut j = job.clone();
                j.extend(g.iter().map(|&i| sources[i].0[k].clone()));
                next.push(j);
            }
        }
        jobs = next;
    }
    Ok(jobs)
}

impl Analysis<'_> {
    /// `parallel [OPTIONS] [COMMAND] [::: ARGS | :::: FILES]…`.
    ///
    /// The property a call must prove to be judged (reviews s19 S16, s21
    /// U11, U5): **the reader builds every command line parallel will run,
    /// exactly**, and judges each. Options are read by one table
    /// ([`runopts::PARALLEL`]); an option it does not model, one that
    /// renames or adds replacement strings or puts several inputs in one
    /// line ([`runopts::PARALLEL_HOLD`]), or a long option not spelled out
    /// holds. The input sources are the `:::` words, the lines of a
    /// `::::`/`-a` file written in this command, or the lines of standard
    /// input when there is no other (`-0`/`-d` split); each job takes one
    /// item from each source (the cross product, or paired with `:::+` /
    /// `--link`). Its line is COMMAND's words joined by spaces (each
    /// quoted with `-q`), the inputs shell-quoted in place of `{}`, `{.}`,
    /// `{/}`, `{//}`, `{/.}`, `{#}`, `{N}`, `{N.}`, … or appended; with no
    /// COMMAND the inputs joined are the line. Held: input the check
    /// cannot see when there is no COMMAND, COMMAND takes its code from it
    /// (`sh -c`) or there are several sources; a replacement string it
    /// does not fill; more than [`MAX_XARGS_ITEMS`] jobs.
    pub(crate) fn parallel(
        &mut self,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) -> Parallel {
        // parallel puts `$PARALLEL`'s words before its own options
        // (parallel(1) "ENVIRONMENT VARIABLES"), and reads
        // `~/.parallel/config` (denied as a home dotfile write when written).
        if env.vars.contains_key("PARALLEL") || self.command_vars.iter().any(|c| c == "PARALLEL") {
            self.hold_parallel("options in `$PARALLEL`, which it reads before its own");
            return Parallel::Done;
        }
        let p = getopt::parse(&runopts::PARALLEL, args);
        if !p.problems.is_empty() {
            self.hold_options("parallel", &p.problems.join("; "));
            return Parallel::Done;
        }
        for f in &p.found {
            let word = args[f.at].text();
            if let Some(long) = word.strip_prefix("--") {
                let spelled = long.split_once('=').map_or(long, |(n, _)| n);
                if spelled != f.opt.name {
                    self.hold_options("parallel", &format!("`{word}`, an abbreviation"));
                    return Parallel::Done;
                }
            }
            if runopts::PARALLEL_HOLD.contains(&f.opt.name) {
                self.hold_parallel(&format!(
                    "`{word}`, which renames its replacement strings or puts several inputs in one command line"
                ));
                return Parallel::Done;
            }
        }
        let quote_words = p.has("quote");
        // `--shuf` runs the jobs in a random order, so the job number
        // `{#}` each gets is not known.
        if p.has("shuf") && cmd_has_seq(&args[p.end..]) {
            self.hold_parallel("`--shuf` with `{#}`, whose job numbers are only known at run time");
            return Parallel::Done;
        }
        let linked_all = p.has("link") || p.has("xapply");
        let mut delimiter = '\n';
        for f in &p.found {
            match f.opt.name {
                "delimiter" => {
                    delimiter = f
                        .value
                        .as_ref()
                        .map_or('\n', |d| xargs_delimiter(&d.text()))
                }
                "null" => delimiter = '\0',
                _ => {}
            }
        }
        let i = p.end;
        if p.has("pipe") || p.has("spreadstdin") || p.has("pipepart") {
            // The input is the command's standard input.
            return Parallel::FromInput(args[i..].to_vec());
        }
        let rest = &args[i..];
        let is_sep = |a: &Field| matches!(a.text().as_str(), ":::" | ":::+" | "::::" | "::::+");
        let k = rest.iter().position(is_sep).unwrap_or(rest.len());
        let cmd = &rest[..k];
        let file_text = |f: &Field, env: &Env| -> Output {
            match f.static_text() {
                Some(p) if p == "-" || p == "/dev/stdin" => stdin.clone(),
                Some(p) if !env.claimed.contains(&env.file_key(&p)) => env
                    .written_text(&p)
                    .map_or(Output::Unknown, |t| Output::Static(t.to_string())),
                _ => Output::Unknown,
            }
        };
        let lines = |out: Output| -> Option<Vec<ParallelItem>> {
            let Output::Static(t) = out else {
                return None;
            };
            let mut lines: Vec<&str> = t.split(delimiter).collect();
            if lines.last().is_some_and(|l| l.is_empty()) {
                lines.pop();
            }
            Some(
                lines
                    .into_iter()
                    .map(|l| ParallelItem::Line(l.to_string()))
                    .collect(),
            )
        };
        // The input sources in order, each with whether it is linked to
        // the one before; `unseen` names one the check cannot read.
        let mut sources: Vec<(Vec<ParallelItem>, bool)> = Vec::new();
        let mut unseen: Option<String> = None;
        let files: Vec<&Field> = p.values("arg-file").collect();
        for f in &files {
            match lines(file_text(f, env)) {
                Some(items) => sources.push((items, linked_all && !sources.is_empty())),
                None => unseen = Some(format!("`-a {}`", f.text())),
            }
        }
        let mut from_file = false;
        let mut words_after_file = 0;
        for a in &rest[k..] {
            let t = a.text();
            match t.as_str() {
                ":::" | ":::+" | "::::" | "::::+" => {
                    from_file = t.starts_with("::::");
                    words_after_file = 0;
                    let linked = (t.ends_with('+') || linked_all) && !sources.is_empty();
                    sources.push((Vec::new(), linked));
                }
                _ if from_file => {
                    // One file per `::::`: several are several sources,
                    // whose order the reader does not model.
                    words_after_file += 1;
                    if words_after_file > 1 {
                        unseen = Some(format!("several files after `::::` (`{t}`)"));
                        continue;
                    }
                    match lines(file_text(a, env)) {
                        Some(items) => {
                            if let Some(s) = sources.last_mut() {
                                s.0.extend(items);
                            }
                        }
                        None => unseen = Some(format!("`:::: {t}`")),
                    }
                }
                _ => {
                    if let Some(s) = sources.last_mut() {
                        s.0.push(ParallelItem::Word(a.clone()));
                    }
                }
            }
        }
        if !files.is_empty() && k < rest.len() {
            self.hold_parallel(
                "both `-a` files and `:::`/`::::` sources, whose order the check does not model",
            );
            return Parallel::Done;
        }
        if k == rest.len() && files.is_empty() {
            match lines(stdin.clone()) {
                Some(items) => sources.push((items, false)),
                None => unseen = Some("standard input".into()),
            }
        }
        if let Some(what) = unseen {
            return self.parallel_unseen(cmd, &what, sources.len(), quote_words, env, depth);
        }
        if sources.iter().any(|(items, _)| items.is_empty()) {
            self.hold_parallel("an empty input source");
            return Parallel::Done;
        }
        let jobs = match parallel_jobs(&sources, MAX_XARGS_ITEMS) {
            Ok(jobs) => jobs,
            Err(why) => {
                self.hold_parallel(&why);
                return Parallel::Done;
            }
        };
        for (n, job) in jobs.iter().enumerate() {
            if self.done() {
                break;
            }
            let mut e = env.clone();
            e.vars.remove(PARALLEL_UNSEEN);
            if cmd.is_empty() {
                // The inputs are the command line.
                match job.as_slice() {
                    [ParallelItem::Word(f)] => {
                        self.run_script_field(f, &mut e, depth, &Output::Unknown, "parallel");
                    }
                    _ => match job
                        .iter()
                        .map(ParallelItem::known)
                        .collect::<Option<Vec<_>>>()
                    {
                        Some(parts) => {
                            self.script(&parts.join(" "), &mut e, depth + 1, &Output::Unknown);
                        }
                        None => {
                            self.hold_parallel(
                                "several inputs only known at run time as the command line",
                            );
                            return Parallel::Done;
                        }
                    },
                }
                continue;
            }
            let values: Vec<PValue> = job.iter().map(ParallelItem::value).collect();
            if let Some(PValue::Glob(g)) = values.iter().find(|v| {
                matches!(v, PValue::Glob(g) if !g.chars().all(|c| c.is_ascii_alphanumeric() || "_./*?[]~+,:@%=-".contains(c)))
            }) {
                self.hold_parallel(&format!("the glob `{g}`, which the check cannot place in a command line"));
                return Parallel::Done;
            }
            let Some(lines) = self.parallel_lines(cmd, &values, n + 1, quote_words) else {
                return Parallel::Done;
            };
            for line in lines {
                let mut e = env.clone();
                e.vars.remove(PARALLEL_UNSEEN);
                self.script(&line, &mut e, depth + 1, &Output::Unknown);
            }
        }
        Parallel::Done
    }

    /// The line parallel makes of `cmd` for one job (`values`, number
    /// `seq`), and when the command word itself holds a replacement string
    /// (`parallel {}`) also the line with the inputs as written; `None`
    /// (held) when a replacement string is one the reader does not fill,
    /// or `-q` quotes a word with an input only known at run time.
    fn parallel_lines(
        &mut self,
        cmd: &[Field],
        values: &[PValue],
        seq: usize,
        quote_words: bool,
    ) -> Option<Vec<String>> {
        let mut line: Vec<String> = Vec::new();
        let mut raw: Vec<String> = Vec::new();
        let mut placed = false;
        for a in cmd {
            let w = a.text();
            let quote_word = quote_words && a.static_text().is_some();
            let fill = if quote_word { Fill::Raw } else { Fill::Quoted };
            let (Ok((r, did)), Ok((plain, _))) = (
                parallel_replace(&w, values, seq, fill),
                parallel_replace(&w, values, seq, Fill::Raw),
            ) else {
                self.hold_parallel(&format!(
                    "a replacement string in `{w}` the check does not fill"
                ));
                return None;
            };
            if quote_word && did && values.contains(&PValue::Unknown) {
                self.hold_parallel("`-q` with an input only known at run time");
                return None;
            }
            placed |= did;
            line.push(if quote_word {
                crate::shell_quote(&r)
            } else {
                r
            });
            raw.push(plain);
        }
        if !placed {
            line.extend(values.iter().map(|v| match v {
                PValue::Known(v) => crate::shell_quote(v),
                PValue::Glob(v) => v.clone(),
                PValue::Unknown => format!("\"${{{PARALLEL_UNSEEN}}}\""),
            }));
        }
        let mut lines = vec![line.join(" ")];
        if cmd[0].text().contains('{') && raw != line {
            lines.push(raw.join(" "));
        }
        Some(lines)
    }

    /// `parallel` with an input source the check cannot read (`what`).
    /// A single source into a COMMAND of plain words with no replacement
    /// string is judged as the command with unknown inputs appended, as for
    /// `xargs`; a COMMAND with replacement strings or shell syntax in its
    /// words is judged as the line with an unknown value in each input's
    /// place. Held: no COMMAND, a COMMAND that takes its code from the
    /// input (`sh -c`), several sources, `-q`.
    fn parallel_unseen(
        &mut self,
        cmd: &[Field],
        what: &str,
        sources: usize,
        quote_words: bool,
        env: &Env,
        depth: u32,
    ) -> Parallel {
        if cmd.is_empty() || xargs_code_from_input(cmd) {
            self.hold_parallel(&format!(
                "input the check cannot see ({what}) that it runs as commands or scripts"
            ));
            return Parallel::Done;
        }
        if sources > 1 {
            self.hold_parallel(&format!(
                "several input sources, one of which the check cannot see ({what})"
            ));
            return Parallel::Done;
        }
        let plain = |f: &Field| {
            f.static_text().is_some_and(|t| {
                !t.is_empty()
                    && t.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+%@^".contains(c))
            })
        };
        if cmd.iter().all(plain) {
            return Parallel::FromInput(cmd.to_vec());
        }
        if quote_words {
            self.hold_parallel(&format!("`-q` with input the check cannot see ({what})"));
            return Parallel::Done;
        }
        let Some(lines) = self.parallel_lines(cmd, &[PValue::Unknown], 1, false) else {
            return Parallel::Done;
        };
        for line in lines {
            let mut e = env.clone();
            e.vars.remove(PARALLEL_UNSEEN);
            self.script(&line, &mut e, depth + 1, &Output::Unknown);
        }
        Parallel::Done
    }

    fn hold_parallel(&mut self, what: &str) {
        self.report(
            false,
            "shell.eval-dynamic",
            format!(
                "GNU `parallel` is given {what}, so what it runs cannot be checked. Write the commands out; a person \
                 must approve it as it is."
            ),
        );
    }
}

/// Whether an expansion's source text gives several words at once: the
/// positional parameters (`$@`, `$*`) or a whole array (`${a[@]}`,
/// `${a[*]}`, `${!a[@]}`).
fn is_splat(raw: &str) -> bool {
    ["$@", "${@", "$*", "${*", "[@]", "[*]"]
        .iter()
        .any(|s| raw.contains(s))
}

/// The operands of `chattr`, `setfacl` or `setfattr` that name files:
/// not options, not an option's value (`-m SPEC`, `-n NAME`, `-v VALUE`),
/// not chattr's `+i`/`-a`/`=e` mode.
fn metadata_operands<'a>(name: &str, args: &'a [Field]) -> Vec<&'a Field> {
    let takes_value: &[&str] = match name {
        "setfacl" => &[
            "-m",
            "-M",
            "-x",
            "-X",
            "--set",
            "--set-file",
            "--modify",
            "--remove",
        ],
        "setfattr" => &[
            "-n",
            "-v",
            "-x",
            "--name",
            "--value",
            "--remove",
            "--restore",
        ],
        _ => &["-v", "-p"],
    };
    let mut out = Vec::new();
    let mut ended = false;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let t = a.text();
        i += 1;
        if ended {
            out.push(a);
        } else if t == "--" {
            ended = true;
        } else if takes_value.contains(&t.as_str()) {
            i += 1;
        } else if name == "chattr" && t.len() > 1 && t.starts_with(['+', '-', '=']) {
            // A mode (`+i`, `-R` is recursion, `=ai`): not a file.
        } else if !t.starts_with('-') || t == "-" {
            out.push(a);
        }
    }
    out
}

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

/// The `Exec…=` settings of unit file text (systemd.syntax(7)): lines
/// continued with a trailing backslash joined, comments skipped.
fn unit_exec_lines(text: &str) -> impl Iterator<Item = String> + '_ {
    let mut lines = Vec::new();
    let mut cur = String::new();
    for l in text.lines() {
        let l = l.trim();
        if cur.is_empty() && (l.starts_with('#') || l.starts_with(';')) {
            continue;
        }
        match l.strip_suffix('\\') {
            Some(part) => {
                cur.push_str(part);
                cur.push(' ');
            }
            None => {
                cur.push_str(l);
                lines.push(std::mem::take(&mut cur));
            }
        }
    }
    lines.push(cur);
    lines.into_iter().filter(|l| {
        l.split_once('=')
            .is_some_and(|(k, _)| k.trim().starts_with("Exec"))
    })
}

/// The command of an Exec line without its prefix (systemd.service(5),
/// "Command lines"): `-`, `:`, `+`, `!` and `!!` change how the command
/// runs, not what runs; with `@` the word after the executable is argv[0]
/// and the executable runs with the words after it (review s17 Q13:
/// `@/usr/bin/pkill q -STOP -f toolvet` runs pkill with `-STOP -f
/// toolvet`), so that word is dropped. `None` for a prefix this reading
/// does not model (another character, `@` without argv[0]).
fn exec_line_command(line: &str) -> Option<String> {
    let line = line.trim_start();
    let body = line.trim_start_matches(['-', '@', '+', '!', ':']);
    let prefix = &line[..line.len() - body.len()];
    if body.starts_with(|c: char| {
        !(c.is_alphanumeric() || matches!(c, '/' | '.' | '_' | '$' | '%' | '"' | '\''))
    }) {
        return None;
    }
    if !prefix.contains('@') {
        return Some(body.to_string());
    }
    let (exe, after) = shell_word_split(body)?;
    let (_argv0, args) = shell_word_split(after)?;
    Some(format!("{exe} {args}"))
}

/// The first word of `text` (quotes kept) and the text after it.
fn shell_word_split(text: &str) -> Option<(&str, &str)> {
    let text = text.trim_start();
    if text.is_empty() {
        return None;
    }
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (k, c) in text.char_indices() {
        match (quote, c) {
            _ if escaped => escaped = false,
            (Some('\''), '\'') => quote = None,
            (Some('\''), _) => {}
            (_, '\\') => escaped = true,
            (Some('"'), '"') => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, c) if c.is_whitespace() => return Some((&text[..k], &text[k..])),
            (None, _) => {}
        }
    }
    Some((text, ""))
}

/// An Exec*= line as systemd decodes it (systemd.syntax(7)): C escapes
/// (`\xNN`, `\NNN`, `\uNNNN`, `\UNNNNNNNN`, `\s`, `\n`, …) and `%%`;
/// whether it had escapes, and whether it has other `%` specifiers
/// (`%h`, `%t`: text the check does not know).
fn systemd_unescape(raw: &str) -> (String, bool, bool) {
    let chars: Vec<char> = raw.chars().collect();
    let mut out = String::new();
    let (mut escaped, mut specifier) = (false, false);
    let mut i = 0;
    let hex = |from: usize, n: usize| -> Option<char> {
        let digits: String = chars.get(from..from + n)?.iter().collect();
        u32::from_str_radix(&digits, 16)
            .ok()
            .and_then(char::from_u32)
    };
    while let Some(&c) = chars.get(i) {
        i += 1;
        if c == '%' {
            if chars.get(i) == Some(&'%') {
                i += 1;
            } else {
                specifier = true;
            }
            out.push('%');
            continue;
        }
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(&n) = chars.get(i) else {
            out.push(c);
            break;
        };
        i += 1;
        let decoded = match n {
            'x' => hex(i, 2).inspect(|_| i += 2),
            'u' => hex(i, 4).inspect(|_| i += 4),
            'U' => hex(i, 8).inspect(|_| i += 8),
            '0'..='7' => {
                let digits: String = chars[i - 1..(i + 2).min(chars.len())].iter().collect();
                u32::from_str_radix(&digits, 8)
                    .ok()
                    .and_then(char::from_u32)
                    .inspect(|_| i += 2)
            }
            's' => Some(' '),
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'f' => Some('\u{c}'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\u{b}'),
            _ => None,
        };
        match decoded {
            Some(d) => {
                escaped = true;
                out.push(d);
            }
            // `\\`, `\"`, `\'`, `\;`: read as the shell reads them.
            None => {
                out.push('\\');
                out.push(n);
            }
        }
    }
    (out, escaped, specifier)
}

/// The code joined to a code option in a short-option cluster of an
/// interpreter (`-c"CODE"`, `-Ic"CODE"`, `-we'CODE'`), read as the
/// interpreter's getopt reads it: flags, then the code letter with the
/// rest of the word; a letter taking a value first (`-W`, `-X`, `-m` for
/// Python, `-I`, `-M`, `-i` for Perl) ends the cluster without code.
fn joined_code(name: &str, word: &str, code_letters: &[char]) -> Option<String> {
    let (values, _) = option_values(name);
    if values.is_empty() {
        return None;
    }
    let cluster = word.strip_prefix('-').filter(|c| !c.starts_with('-'))?;
    for (k, c) in cluster.char_indices() {
        let rest = &cluster[k + c.len_utf8()..];
        if code_letters.contains(&c) {
            return (!rest.is_empty()).then(|| rest.to_string());
        }
        if values.contains(c) {
            return None;
        }
    }
    None
}

/// Whether `name` is PowerShell (`pwsh`, Windows PowerShell).
fn is_powershell(name: &str) -> bool {
    matches!(
        name.to_ascii_lowercase().as_str(),
        "pwsh" | "powershell" | "pwsh.exe" | "powershell.exe"
    )
}

/// Whether `name` is a Python interpreter (`python3`, `python3.12`, `pypy3`).
pub(crate) fn is_python(name: &str) -> bool {
    name.starts_with("python") || name.starts_with("pypy")
}

/// The options of interpreter `name` that take a value, as its own option
/// parser reads them: the short option letters (a value joined to the
/// letter, or else the next word) and the long options that take the next
/// word as their value. Empty for interpreters not listed.
fn option_values(name: &str) -> (&'static str, &'static [&'static str]) {
    if is_python(name) {
        ("WXmQ", &["--check-hash-based-pycs"])
    } else if name.starts_with("perl") {
        ("IMmixdD", &[])
    } else if name.starts_with("ruby") {
        // `-W` takes only a joined level (`-W0`, `-W:no-deprecated`).
        (
            "IrCFKTx0",
            &[
                "--encoding",
                "--external-encoding",
                "--internal-encoding",
                "--enable",
                "--disable",
                "--dump",
            ],
        )
    } else if name.starts_with("php") {
        (
            "cdfztSF",
            &["--php-ini", "--define", "--zend-extension", "--docroot"],
        )
    } else if matches!(name, "node" | "nodejs" | "bun") {
        (
            "rC",
            &[
                "--require",
                "--import",
                "--input-type",
                "--title",
                "--loader",
                "--experimental-loader",
                "--conditions",
                "--env-file",
                "--inspect-port",
                "--redirect-warnings",
                "--preserve-symlinks-main",
                "--stack-trace-limit",
                "--experimental-default-type",
                "--diagnostic-dir",
                "--report-dir",
                "--icu-data-dir",
                "--openssl-config",
                "--watch-path",
                "--test-reporter",
                "--test-reporter-destination",
            ],
        )
    } else {
        ("", &[])
    }
}

/// The value-taking letter that ends short-option cluster `word` of
/// interpreter `name` with its value in the next word (`-X` in `-X utf8`,
/// `-BX` in `-BX utf8`, `-r` in `node -r M`), read left to right as getopt
/// does: a value-taking letter before the end takes the rest of the word.
fn value_taking_last(name: &str, word: &str) -> Option<char> {
    let (values, _) = option_values(name);
    let cluster = word
        .strip_prefix('-')
        .filter(|c| !c.is_empty() && !c.starts_with('-'))?;
    for (k, c) in cluster.char_indices() {
        if values.contains(c) {
            return (k + c.len_utf8() == cluster.len()).then_some(c);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(v: &[&str]) -> Vec<Field> {
        v.iter().map(|s| Field::lit(*s)).collect()
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
