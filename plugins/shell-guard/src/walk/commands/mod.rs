//! The rules for individual commands, and the wrappers (`sudo`, `env`,
//! `timeout`, `xargs`, …) that are looked through to find the command that
//! really runs.

use crate::getopt;
use crate::paths::Place;
use crate::runopts;
use crate::syntax::{self, Field, Output, Seg};
use crate::walk::{self, Analysis, Binding, Cwd, Env, Target, dyn_field, fields_output};

mod builtins;
mod dispatch;
mod files;
mod git;
mod interpreters;
mod network;
mod streams;
mod systemd;
mod xargs;

use dispatch::Reached;
use xargs::Parallel;

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
