//! Options that make a program run another program or write a file, the
//! argument-injection surface of "safe" commands (Trail of Bits, *Prompt
//! injection to RCE in AI agents*; GTFOBins): `go test -exec CMD`, `rg
//! --pre CMD`, `ssh -o ProxyCommand=CMD`, `tar --to-command=CMD`, `git -c
//! core.sshCommand=CMD`, `fd -x CMD`, `chroot DIR CMD`; `--output=FILE`
//! writes; `crontab` installs; containers given the host's root or Docker
//! socket; agent CLIs started with their own guard rails off.

use crate::syntax::{Field, Output, Seg};
use crate::walk::{Analysis, Env};

mod agents;
mod editors;
mod git;
mod gitfiles;

use agents::{agent_named, runner_agent, runtime_agent};

/// `(program, option)` whose value is a shell command. An option ending in
/// `=` also matches its attached form (`--pre=CMD`). Programs with a full
/// option table (tar, ssh, scp, sftp, make, sort, split, wget, gawk, dc,
/// strace)
/// are read by [`crate::opts::progopts`] instead.
const COMMAND_OPTIONS: &[(&str, &str)] = &[
    ("go", "-exec"),
    ("rg", "--pre"),
    ("ripgrep", "--pre"),
    ("rsync", "-e"),
    ("rsync", "--rsh"),
    ("rsync", "--rsync-path"),
    ("zip", "-TT"),
    ("zip", "--unzip-command"),
    ("git", "core.sshCommand="),
    ("git", "core.pager="),
    ("git", "core.fsmonitor="),
    ("git", "--upload-pack"),
    ("git", "--receive-pack"),
    ("npx", "-c"),
    ("npx", "--call"),
    ("npm", "--call"),
    ("script", "-c"),
    ("script", "--command"),
    ("less", "+!"),
    ("less", "+:!"),
    ("more", "+!"),
    ("man", "-P"),
    ("man", "--pager"),
    // man-db man(1) `-H[BROWSER]`, `--html[=BROWSER]`: the browser run.
    ("man", "-H"),
    ("man", "--html"),
    // fzf(1): `--preview=CMD`, `--with-shell=SHELL`; `--bind` actions
    // are read by [`fzf_bind_commands`].
    ("fzf", "--preview"),
    ("fzf", "--with-shell"),
];

/// `(program, option)` whose value is a program run once per file the
/// program reads, with the file as its argument (`rg --pre CMD`: review
/// s23 V24): judged as `CMD OPERANDS…` (the files or directories
/// searched), so `rg --pre rm x DIR` is `rm` of DIR's files.
const PER_FILE_OPTIONS: &[(&str, &str)] = &[("rg", "--pre"), ("ripgrep", "--pre")];

/// fzf(1) "KEY/EVENT BINDINGS": the actions of `--bind` that run their
/// argument as shell text (`execute(…)`, `execute-silent(…)`,
/// `become(…)`, `reload(…)`, `reload-sync(…)`, `transform*(…)`,
/// `preview(…)`, `change-preview(…)`, `bg-transform*(…)`).
const FZF_RUNNING_ACTIONS: &[&str] = &[
    "execute",
    "become",
    "reload",
    "transform",
    "preview",
    "change-preview",
    "bg-transform",
];

/// The shell commands of fzf `--bind` text: `Some(commands)` when every
/// running action's argument is read (`execute(CMD)`, `execute:CMD` to
/// the end, any of fzf's bracket pairs), `None` when one cannot be.
pub(crate) fn fzf_bind_commands(text: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = FZF_RUNNING_ACTIONS
        .iter()
        .filter_map(|a| rest.find(a))
        .min()
    {
        let after = &rest[at..];
        let name_end = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .unwrap_or(after.len());
        let tail = &after[name_end..];
        let Some(open) = tail.chars().next() else {
            // An action name at the very end with no argument.
            break;
        };
        let close = match open {
            '(' => ')',
            '[' => ']',
            '{' => '}',
            '<' => '>',
            '~' | '!' | '@' | '#' | '$' | '%' | '^' | '&' | '*' | ';' | '/' | '|' => open,
            ':' => {
                out.push(tail[1..].to_string());
                return Some(out);
            }
            _ => {
                rest = &after[name_end..];
                continue;
            }
        };
        let body = &tail[open.len_utf8()..];
        let end = body.find(close)?;
        out.push(body[..end].to_string());
        rest = &body[end + close.len_utf8()..];
    }
    Some(out)
}

/// `(program, option)` whose remaining words are a command (`fd -x rm`).
const COMMAND_TAIL_OPTIONS: &[(&str, &str)] = &[
    ("fd", "-x"),
    ("fd", "--exec"),
    ("fd", "-X"),
    ("fd", "--exec-batch"),
    ("fdfind", "-x"),
];

/// Whether shell-guard has a table entry for `name` here: a command-
/// running option, an agent CLI or an editor. Its words are read by that
/// entry, not as an unknown runner's.
pub(crate) fn is_known_program(name: &str) -> bool {
    COMMAND_OPTIONS.iter().any(|(p, _)| *p == name)
        || COMMAND_TAIL_OPTIONS.iter().any(|(p, _)| *p == name)
        || GETOPT_PROGRAMS.contains(&name)
        || agent_named(name).is_some()
        || is_editor(name)
        || crate::opts::progopts::table_of(name).is_some()
}

/// Programs that parse their options as getopt does: short options
/// cluster (`script -qc CMD`, `tar -cI CMD`, `rsync -ae CMD`, `fd -0x CMD`;
/// the value option's value is the rest of the cluster or the next word)
/// and a long option may be abbreviated (`tar --use-compress-prog=CMD`,
/// `script --comm CMD`, npm's nopt: `npx --cal CMD`).
const GETOPT_PROGRAMS: &[&str] = &[
    "rsync", "script", "npx", "npm", "man", "fd", "fdfind", "git",
];

/// The short options of [`GETOPT_PROGRAMS`] that take a value: in a
/// cluster, the rest is that value (`tar -cfI` names the archive `I`).
fn short_values(name: &str) -> &'static str {
    match name {
        "rsync" => "eBfTM",
        "script" => "EIOTBc",
        "npx" | "npm" => "pc",
        "man" => "MPSmCLReH",
        "fd" | "fdfind" => "tedESjcxX",
        _ => "",
    }
}

/// Where the value of option `opt` of program `name` is in argument `t`
/// (see [`option_in`]).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum OptionValue {
    /// The next word (`-c CMD`, `-qc CMD`, `--comm CMD`).
    Next,
    /// In the argument itself (`-cCMD`, `-qcCMD`, `--command=CMD`,
    /// `--use-compress-prog=CMD`).
    Attached(String),
}

/// The one option walker of the command-running options: whether argument
/// `t` of program `name` gives option `opt`, and where its value is. The
/// exact spelling always; for [`GETOPT_PROGRAMS`] also `opt` inside a
/// short cluster and an abbreviation of a long `opt` that names no other
/// command-running option of the program (whether it is ambiguous with the
/// program's other options is not known here: read as this one, stricter).
pub(crate) fn option_in(name: &str, opt: &str, t: &str) -> Option<OptionValue> {
    let opt = opt.trim_end_matches('=');
    if t == opt {
        return Some(OptionValue::Next);
    }
    if let Some(v) = t.strip_prefix(opt).and_then(|r| r.strip_prefix('=')) {
        return Some(OptionValue::Attached(v.to_string()));
    }
    if !GETOPT_PROGRAMS.contains(&name) {
        return None;
    }
    if let Some(long) = opt.strip_prefix("--") {
        let given = t.strip_prefix("--")?;
        let (key, value) = match given.split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => (given, None),
        };
        // `--checkpoint-action=exec=CMD`: the option's value starts so.
        let (long, value) = match long.split_once('=') {
            Some((name, lead)) => match value.and_then(|v| v.strip_prefix(lead)) {
                Some(v) => (name, Some(v.strip_prefix('=').unwrap_or(v))),
                None => return None,
            },
            None => (long, value),
        };
        let others = COMMAND_OPTIONS
            .iter()
            .chain(COMMAND_TAIL_OPTIONS)
            .filter(|(p, _)| *p == name)
            .filter_map(|(_, o)| o.strip_prefix("--")?.split('=').next())
            .filter(|o| *o != long && o.starts_with(key))
            .count();
        if key.len() >= 2 && long.starts_with(key) && others == 0 {
            return Some(match value {
                Some(v) => OptionValue::Attached(v.to_string()),
                None => OptionValue::Next,
            });
        }
        return None;
    }
    // A short option (`-c`) inside a cluster (`-qc`, `-qcCMD`).
    let letter = opt.strip_prefix('-').filter(|l| l.chars().count() == 1)?;
    let cluster = t
        .strip_prefix('-')
        .filter(|c| !c.starts_with('-') && c.len() > 1)?;
    let mut at = None;
    for (k, c) in cluster.char_indices() {
        if c.to_string() == letter {
            at = Some(k);
            break;
        }
        // Another option's value: the rest of the cluster is it.
        if short_values(name).contains(c) {
            return None;
        }
    }
    let at = at?;
    let rest = &cluster[at + letter.len()..];
    Some(if rest.is_empty() {
        OptionValue::Next
    } else {
        OptionValue::Attached(rest.to_string())
    })
}

impl Analysis<'_> {
    /// A program run once per file found under `paths` (`.` when none),
    /// with the file as its last argument (`rg --pre CMD`, `fd -x CMD`):
    /// judged as `find PATHS -type f -exec CMD {} +`, the same effect
    /// (review s23 V24).
    fn run_per_file(&mut self, command: Vec<Field>, paths: Vec<Field>, env: &mut Env, depth: u32) {
        let mut argv = vec![Field::lit("find")];
        if paths.is_empty() {
            argv.push(Field::lit("."));
        }
        argv.extend(paths);
        argv.extend(["-type", "f", "-exec"].map(Field::lit));
        argv.extend(command);
        argv.extend(["{}", "+"].map(Field::lit));
        let mut e = env.clone();
        self.exec(argv, &mut e, depth + 1, &Output::Unknown, false);
    }

    /// Run the scripts hidden in options, check `--output` targets, and the
    /// other rules of this module, for command `name`.
    pub(crate) fn program_options(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
    ) {
        if name == "script" {
            self.script_writes(args, env, depth);
        }
        let texts: Vec<String> = args.iter().map(Field::text).collect();
        for (i, t) in texts.iter().enumerate() {
            for (program, opt) in COMMAND_OPTIONS {
                if *program != name {
                    continue;
                }
                let value = if t == opt {
                    args.get(i + 1).cloned()
                } else if let Some(v) = t
                    .strip_prefix(opt)
                    .filter(|_| opt.ends_with('=') || !opt.starts_with('-'))
                {
                    Some(Field::lit(v))
                } else if let Some(v) = t.strip_prefix(&format!("-o{opt}")) {
                    Some(Field::lit(v))
                } else {
                    match option_in(name, opt, t) {
                        Some(OptionValue::Next) => args.get(i + 1).cloned(),
                        Some(OptionValue::Attached(v)) => Some(Field::lit(v)),
                        None => None,
                    }
                };
                if let Some(v) = value {
                    self.run_script_field(
                        &v,
                        env,
                        depth,
                        &Output::Unknown,
                        &format!("`{name} {opt}`"),
                    );
                }
            }
            if let Some((_, opt)) = PER_FILE_OPTIONS.iter().find(|(p, _)| *p == name) {
                let (value, skip) = match option_in(name, opt, t) {
                    Some(OptionValue::Next) => (args.get(i + 1).cloned(), i + 1),
                    Some(OptionValue::Attached(v)) => (Some(Field::lit(v)), i),
                    None => (None, i),
                };
                if let Some(v) = value {
                    // The paths searched: the operands after the pattern
                    // (the first, unless `-e`/`-f` gave it), else `.`.
                    let pattern_given = texts.iter().any(|t| {
                        matches!(t.as_str(), "-e" | "-f" | "--regexp" | "--file")
                            || t.starts_with("--regexp=")
                            || t.starts_with("--file=")
                    });
                    let operands: Vec<Field> = args
                        .iter()
                        .enumerate()
                        .filter(|(k, a)| *k != skip && !a.text().starts_with('-'))
                        .map(|(_, a)| a.clone())
                        .skip(usize::from(!pattern_given))
                        .collect();
                    self.run_per_file(vec![v], operands, env, depth);
                }
            }
            if name == "fzf"
                && let Some(v) = match t.strip_prefix("--bind=") {
                    Some(v) => Some(Field::lit(v)),
                    None if t == "--bind" => args.get(i + 1).cloned(),
                    None => None,
                }
            {
                match v.static_text().as_deref().and_then(fzf_bind_commands) {
                    Some(cmds) => {
                        for c in cmds {
                            let f = Field::lit(c);
                            self.run_script_field(&f, env, depth, &Output::Unknown, "`fzf --bind`");
                        }
                    }
                    None => self.report(
                        false,
                        "shell.eval-dynamic",
                        format!(
                            "`fzf --bind {}`: a binding whose commands the check cannot read. A person must approve.",
                            v.text()
                        ),
                    ),
                }
            }
            // git-filter-repo's `--*-callback BODY` is Python the check does
            // not read (review s23 V24).
            if (name == "git-filter-repo"
                || (name == "git" && texts.iter().any(|t| t == "filter-repo")))
                && t.starts_with("--")
                && t.contains("-callback")
            {
                self.report(
                    false,
                    "shell.eval-dynamic",
                    format!(
                        "`{name}` is given `{}`, Python code the check does not read. A person must approve it.",
                        t.split('=').next().unwrap_or(t)
                    ),
                );
            }
            if let Some(at) = COMMAND_TAIL_OPTIONS
                .iter()
                .filter(|(p, _)| *p == name)
                .find_map(|(_, o)| option_in(name, o, t))
            {
                // `fd -x rm …`, `fd -0x rm …`; `fd -xrm …`: `rm` first.
                // The command gets each file found: the search paths
                // (the operands after the pattern, before `-x`) are
                // appended (review s23 V24: `fd . DIR -x rm`).
                let mut rest = Vec::new();
                if let OptionValue::Attached(v) = at {
                    rest.push(Field::lit(v));
                }
                rest.extend(args[i + 1..].iter().cloned());
                let paths: Vec<Field> = args[..i]
                    .iter()
                    .filter(|a| !a.text().starts_with('-'))
                    .skip(1)
                    .cloned()
                    .collect();
                self.run_per_file(rest, paths, env, depth);
            }
            // `--output=FILE` writes FILE, whatever the program.
            let target = match t.strip_prefix("--output=") {
                Some(f) => Some(Field::lit(f)),
                None if t == "--output" => args.get(i + 1).cloned(),
                None if t == "-o" && matches!(name, "gcc" | "cc" | "clang" | "go") => {
                    args.get(i + 1).cloned()
                }
                None => None,
            };
            // `wget -P DIR`: files of the server's names into DIR (review
            // s14 N5).
            if name == "wget" || name == "wget2" {
                let dir = match t.strip_prefix("--directory-prefix=") {
                    Some(d) => Some(Field::lit(d)),
                    None if t == "-P" || t == "--directory-prefix" => args.get(i + 1).cloned(),
                    None => t
                        .strip_prefix("-P")
                        .filter(|d| !d.is_empty())
                        .map(Field::lit),
                };
                if let Some(d) = dir {
                    self.fills_dir(name, &d, env, false);
                }
            }
            if let Some(f) = target {
                self.check_write(
                    &f,
                    env,
                    &Output::Unknown,
                    &format!("`{name} {}`", t.split('=').next().unwrap_or(t)),
                    true,
                    depth,
                );
            }
        }
        // An agent CLI, or one a package runner starts (`npx
        // @anthropic-ai/claude-code`, `pnpm dlx @google/gemini-cli`).
        // Any spelling of its package, pinned (`@latest`), as `-p`'s
        // value, a tarball, or its script run by a JS runtime (review s14
        // N2).
        // Amazon Q's CLI is `q chat` (`q` alone is also other programs).
        let q_chat = (name == "q" && texts.first().is_some_and(|t| t == "chat"))
            .then(|| ("amazon-q", texts.clone()));
        match runner_agent(name, &texts)
            .or_else(|| runtime_agent(name, args))
            .or(q_chat)
        {
            Some((cli, rest)) => self.agent_cli(cli, &rest, env),
            None => match agent_named(name) {
                Some(cli) => self.agent_cli(cli, &texts, env),
                None => self.agent_cli(name, &texts, env),
            },
        }
        if matches!(name, "docker" | "podman" | "nerdctl")
            && texts.first().is_some_and(|s| s == "run" || s == "create")
        {
            self.container_mounts(name, &texts, env);
            // Mounts of guard rails and toolvet's state (review s25 R16).
            self.container_state_mounts(name, &texts, env);
        }
        // `docker|kubectl cp` onto the host (review s25 R16).
        self.container_copy(name, &texts, env);
    }

    /// `crontab -` / `crontab FILE`: installs programs that run on a
    /// schedule. Known lines (`echo '… cmd' | crontab -`) are analysed as
    /// the commands they schedule.
    pub(crate) fn crontab(&mut self, args: &[Field], env: &mut Env, depth: u32, stdin: &Output) {
        let texts: Vec<String> = args.iter().map(Field::text).collect();
        if texts
            .iter()
            .any(|t| matches!(t.as_str(), "-l" | "-e" | "-r" | "-i"))
            || texts.is_empty() && !matches!(stdin, Output::Static(_)) && !stdin.is_secret()
        {
            // `crontab -e` installs whatever the editor (`$EDITOR`,
            // `$VISUAL`: any program) leaves in the file; no person edits
            // it from the agent's shell (review s25 R14).
            if texts.iter().any(|t| t == "-e") {
                self.report(
                    false,
                    "shell.guardrail-write",
                    "`crontab -e` installs whatever its editor leaves in the user's crontab: jobs that run on a \
                     schedule, outside this session. A person must approve.",
                );
            }
            if texts.iter().any(|t| t == "-r") {
                self.report(
                    false,
                    "shell.guardrail-write",
                    "`crontab -r` removes every scheduled job of the user. A person must approve.",
                );
            }
            return;
        }
        if let Output::Static(text) = stdin {
            for line in text.lines().filter(|l| !l.trim_start().starts_with('#')) {
                let cmd: Vec<&str> = line.split_whitespace().skip(5).collect();
                if !cmd.is_empty() {
                    let mut e = env.clone();
                    self.script(&cmd.join(" "), &mut e, depth + 1, &Output::Unknown);
                }
            }
        }
        self.report(
            false,
            "shell.guardrail-write",
            "`crontab` installs jobs that run on a schedule, outside this session. A person must approve; run the \
             command directly instead.",
        );
    }

    /// A container given the host's root file system, the Docker socket,
    /// or full privileges: it can change anything on the host. One given
    /// a credential file or directory, or the home directory that holds
    /// them, reads them (escalates: the program in it may use them in
    /// place, or send them anywhere).
    fn container_mounts(&mut self, name: &str, texts: &[String], env: &Env) {
        for (i, t) in texts.iter().enumerate() {
            let spec = match t.as_str() {
                "-v" | "--volume" | "--mount" => texts.get(i + 1).map(String::as_str),
                _ => t
                    .strip_prefix("--volume=")
                    .or_else(|| t.strip_prefix("--mount=")),
            };
            let Some(spec) = spec else { continue };
            // `--mount` takes `key=value` pairs; `-v` a `SRC:DST[:MODE]`
            // spec, whose source ends at the first `:` (a `,src=` later in
            // it is part of the container path, review s26).
            let is_mount = t == "--mount" || t.starts_with("--mount=");
            let raw = if is_mount {
                spec.split(',')
                    .find_map(|kv| {
                        kv.strip_prefix("source=")
                            .or_else(|| kv.strip_prefix("src="))
                    })
                    .unwrap_or("")
            } else {
                spec.split(':').next().unwrap_or("")
            };
            // `/.`, `//var/run/…`, `/run/../var/run/…` are the paths they
            // name.
            let cleaned = if raw.starts_with('/') {
                check_catalog::pathnorm::clean_lexically(raw)
            } else {
                raw.to_string()
            };
            let source = cleaned.as_str();
            let what = match source.trim_end_matches('/') {
                "" => Some("the host's root file system"),
                "/var/run/docker.sock" | "/run/docker.sock" => {
                    Some("the Docker socket (control of every container)")
                }
                "/var/run" | "/run" => Some(
                    "the host's run-time directory, which holds the Docker socket (control of every container)",
                ),
                "/etc" | "/root" | "/home" | "/boot" | "/usr" => {
                    Some("a system directory of the host")
                }
                _ => None,
            };
            // `-v ~/.ssh:/k`: bash expands a leading `~` of the word.
            let home_rest = source
                .strip_prefix('~')
                .or_else(|| source.strip_prefix("${HOME}"))
                .or_else(|| source.strip_prefix("$HOME"));
            let host = match (home_rest, self.home.as_deref()) {
                (Some(rest), Some(h)) if rest.is_empty() || rest.starts_with('/') => {
                    format!("{h}{rest}")
                }
                _ => source.to_string(),
            };
            let field = Field::lit(&host);
            // A directory mounted gives every file in it (`~/.aws`).
            let within = Field::lit(format!("{}/*", host.trim_end_matches('/')));
            let label = self
                .sensitive_label(&field, env)
                .or_else(|| self.sensitive_label(&within, env))
                .or_else(|| {
                    let abs = self.abs_path(&field, env)?;
                    (self.home.as_deref() == Some(abs.trim_end_matches('/')))
                        .then_some("the home directory, which holds the user's credentials")
                });
            if let Some(label) = label {
                self.report(
                    false,
                    "shell.read-credentials",
                    format!(
                        "`{name} run` mounts `{source}`, {label}, into the container: whatever runs there can read \
                         and send them. A person must approve; mount only the workspace (e.g. `-v \"$PWD:/src\"`)."
                    ),
                );
                continue;
            }
            if let Some(what) = what {
                self.report(
                    true,
                    "shell.container-escape",
                    format!(
                        "`{name} run` mounts {what} into the container, which lets the container change the host. Mount only \
                         the workspace (e.g. `-v \"$PWD:/src\"`)."
                    ),
                );
                return;
            }
        }
        if texts
            .iter()
            .any(|t| t == "--privileged" || t == "--pid=host")
        {
            self.report(
                false,
                "shell.container-escape",
                format!("`{name} run --privileged` gives the container full access to the host. A person must approve."),
            );
        }
    }
}

impl Analysis<'_> {
    /// Judge variables set for a command or the shell (`VAR=x cmd`,
    /// `export VAR=x`, `env VAR=x cmd`): a variable whose value is a
    /// command is judged as running it, one naming a file of start-up code
    /// as running code the analysis cannot read, git configuration given
    /// through `GIT_CONFIG_*` as that configuration. `runs_shell`: the
    /// command they are set for is a shell (`ENV` only matters there).
    /// `program`: the program they are set for, when known; make imports
    /// every variable ([`Analysis::make_variable`]).
    pub(crate) fn code_variables(
        &mut self,
        assigns: &[(String, Field)],
        env: &mut Env,
        depth: u32,
        program: Option<&str>,
    ) {
        let runs_shell = program.is_some_and(crate::walk::commands::is_shell);
        for (name, value) in assigns {
            if self.done() {
                return;
            }
            // `PATH` is the search path make's shell uses, judged as such
            // below (`PATH=bin:$PATH make`), not make text.
            if matches!(program, Some("make" | "gmake")) && name != "PATH" {
                self.make_variable(name, value, env, depth);
                continue;
            }
            // Variables a program reads as its options, code, programs or
            // configuration: one table (review s22 V4).
            if self.program_variable(name, value, env, depth, runs_shell) {
                continue;
            }
            // `export X='$(shell …)'`: every make run later imports X and
            // expands it (review s23 V2); a literal `$(` or `${` kept for
            // later expansion is held.
            if program == Some("export")
                && value
                    .static_text()
                    .is_some_and(|t| t.contains("$(") || t.contains("${"))
            {
                self.make_variable(name, value, env, depth);
                continue;
            }
            let text = value.text();
            if let Some(n) = name
                .strip_prefix("PS")
                .filter(|n| n.len() == 1 && n.chars().all(|c| c.is_ascii_digit()))
            {
                // Prompts expand `$(…)` each time they are shown (`PS4`
                // under `set -x`).
                let _ = n;
                if let Some(t) = value.static_text() {
                    self.scan_substitutions(&t, env, depth + 1);
                    // Expanded again at each later trace line or prompt,
                    // in the state of that moment (review s24 S1).
                    if t.contains('$') || t.contains('`') {
                        let d = crate::walk::Deferred::Prompt(t);
                        if !env.deferred.contains(&d) {
                            env.deferred.push(d);
                        }
                    }
                }
            } else if let Some(f) = name
                .strip_prefix("BASH_FUNC_")
                .and_then(|n| n.strip_suffix("%%"))
            {
                // `env 'BASH_FUNC_ls%%=() { …; }' bash -c ls`: an exported
                // function, run under the name of a command.
                let body = text.trim_start().strip_prefix("()").unwrap_or(&text);
                let mut e = env.clone();
                self.script(
                    &format!("{f} () {body}"),
                    &mut e,
                    depth + 1,
                    &Output::Unknown,
                );
                self.report(
                    false,
                    "shell.eval-dynamic",
                    format!(
                        "The command exports a shell function `{f}` through the environment, which replaces the \
                         command of that name in every bash it starts. A person must approve it."
                    ),
                );
            } else if name == "GIT_CONFIG_PARAMETERS" {
                self.git_config_parameters(value, env, depth);
            } else if let Some(n) = name.strip_prefix("GIT_CONFIG_KEY_") {
                let value_name = format!("GIT_CONFIG_VALUE_{n}");
                let v = assigns
                    .iter()
                    .rev()
                    .find(|(k, _)| *k == value_name)
                    .map(|(_, v)| v.clone())
                    .or_else(|| env.vars.get(&value_name).cloned())
                    .unwrap_or_else(|| crate::walk::dyn_field(&format!("${value_name}")));
                match value.static_text() {
                    Some(key) => self.git_config_set(&key, Some(&v), env, depth, "`GIT_CONFIG_KEY`"),
                    None => self.report(
                        false,
                        "shell.eval-dynamic",
                        "`GIT_CONFIG_KEY_*` sets a git configuration key only known at run time, which may make git \
                         run a program. Write the configuration out; a person must approve it as it is.",
                    ),
                }
            }
        }
    }

    /// A variable naming a file of code run on start (`BASH_ENV=/tmp/x`):
    /// code written from a download or a decoder is refused, code the
    /// analysis can see (`<(echo …)`) is analysed, any other escalates.
    pub(crate) fn code_file_variable(
        &mut self,
        name: &str,
        value: &Field,
        env: &mut Env,
        depth: u32,
    ) {
        let text = value.text();
        // A file written earlier in the call: its text is the code. One
        // the run's file tools wrote is judged too, and still escalates
        // below (the file may hold other text by now).
        if let Some(path) = value.static_text()
            && let Some(code) = env.written_text(&path).map(str::to_string)
        {
            let mut e = env.clone();
            self.script(&code, &mut e, depth + 1, &Output::Unknown);
            if !env.claimed.contains(&env.file_key(&path)) {
                return;
            }
        }
        if let Some(out) = value
            .static_text()
            .and_then(|t| env.file_taint(&t).cloned())
        {
            self.report_taint(&out, &format!("through `{name}={text}`"));
            return;
        }
        let mut seen = false;
        for seg in &value.segs {
            if let Seg::Dyn { out, .. } = seg {
                match out {
                    Output::Static(code) => {
                        seen = true;
                        let mut e = env.clone();
                        self.script(code, &mut e, depth + 1, &Output::Unknown);
                    }
                    o if o.is_tainted() => {
                        self.report_taint(o, &format!("through `{name}`"));
                        return;
                    }
                    _ => {}
                }
            }
        }
        if !seen {
            self.report(
                false,
                "shell.eval-dynamic",
                format!(
                    "`{name}={text}` makes a program run the code in a file the analysis cannot read (at start-up, \
                     before the command itself). A person must approve it; run the file's commands directly instead."
                ),
            );
        }
    }
}

/// Whether `name` is an editor whose file operands are written and whose
/// command-line commands are judged ([`Analysis::editor`]).
pub fn is_editor(name: &str) -> bool {
    matches!(
        name,
        "vi" | "vim"
            | "nvim"
            | "gvim"
            | "rvim"
            | "view"
            | "vimdiff"
            | "ex"
            | "ed"
            | "red"
            | "emacs"
            | "emacsclient"
            | "nano"
            | "pico"
            | "micro"
            | "joe"
            | "mg"
            | "kak"
            | "hx"
    )
}

/// Options of database and debugger clients whose value is commands
/// (`sqlite3 -cmd`, `psql -c`, `mysql -e`, `gdb -ex`).
fn client_command_options(client: &str) -> &'static [&'static str] {
    match client {
        "sqlite3" | "sqlite" | "sqlcipher" | "litecli" => &["-cmd"],
        "psql" => &["-c", "--command"],
        "mysql" | "mariadb" => &["-e", "--execute"],
        _ => &[],
    }
}

impl Analysis<'_> {
    /// A sed script's `e` commands and `s///e` replacements are shell
    /// commands, its `w FILE` writes FILE; running the pattern space (`e`
    /// alone, a computed `s///e`) is `eval` of text the analysis cannot see.
    pub(crate) fn sed_script(&mut self, name: &str, args: &[Field], env: &mut Env, depth: u32) {
        let mut scripts: Vec<String> = Vec::new();
        let mut from_file = false;
        let mut i = 0;
        let mut first_operand: Option<String> = None;
        while let Some(a) = args.get(i) {
            let t = a.text();
            i += 1;
            if t == "-e" || t == "--expression" {
                scripts.extend(args.get(i).map(Field::text));
                i += 1;
            } else if let Some(s) = t.strip_prefix("--expression=") {
                scripts.push(s.to_string());
            } else if t == "-f" || t == "--file" || t.starts_with("--file=") {
                from_file = true;
                i += usize::from(t == "-f" || t == "--file");
            } else if t == "-l" || t == "--line-length" {
                i += 1;
            } else if t.starts_with('-')
                && t.len() > 1
                && !t.starts_with("--")
                && t[1..].contains('e')
                && !t.starts_with("-i")
            {
                // `-ne SCRIPT`.
                scripts.extend(args.get(i).map(Field::text));
                i += 1;
            } else if !t.starts_with('-') && first_operand.is_none() {
                first_operand = Some(t);
            }
        }
        if scripts.is_empty() && !from_file {
            scripts.extend(first_operand);
        }
        for script in scripts {
            let fx = crate::code::embedded::sed_effects(&script);
            for cmd in &fx.commands {
                let mut e = env.clone();
                self.script(cmd, &mut e, depth + 1, &Output::Unknown);
            }
            if fx.commands.len() + fx.writes.len() > crate::code::embedded::MAX_COMMANDS {
                self.too_many_found(&format!("The `{name}` script"));
            }
            for file in &fx.writes {
                if !matches!(file.as_str(), "/dev/stdout" | "/dev/stderr") {
                    self.check_write(
                        &Field::lit(file.as_str()),
                        env,
                        &Output::Unknown,
                        &format!("`{name}` (`w`)"),
                        true,
                        depth,
                    );
                }
            }
            if fx.runs_unknown {
                self.report(
                    false,
                    "shell.eval-dynamic",
                    format!(
                        "`{name}` runs text of its input as a shell command (`e`, or `s///e` with a computed \
                         replacement), which cannot be checked. A person must approve it."
                    ),
                );
            }
            if self.done() {
                return;
            }
        }
    }

    /// Shell escapes in the commands given to a database or debugger
    /// client (`sqlite3 db '.shell CMD'`, `psql -c '\! CMD'`, `mysql -e
    /// 'system CMD'`), on its command line or
    /// standard input: analysed as shell.
    pub(crate) fn client_commands(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) {
        let mut texts: Vec<String> = Vec::new();
        let mut i = 0;
        while let Some(a) = args.get(i) {
            let t = a.text();
            i += 1;
            let options = client_command_options(name);
            if options.contains(&t.as_str()) {
                texts.extend(args.get(i).map(Field::text));
                i += 1;
            } else if let Some((_, v)) = t.split_once('=').filter(|(f, _)| options.contains(f)) {
                texts.push(v.to_string());
            } else if matches!(name, "sqlite3" | "sqlite" | "sqlcipher" | "litecli")
                && !t.starts_with('-')
            {
                // `sqlite3 DB SQL…`: every operand after the database.
                texts.push(t);
            }
        }
        if let Output::Static(text) = stdin {
            texts.push(text.clone());
        }
        let client = if name == "mariadb" { "mysql" } else { name };
        for text in texts {
            if text.len() > crate::code::embedded::MAX_CODE {
                self.report(
                    false,
                    "shell.too-long",
                    format!(
                        "The commands given to `{name}` are longer than the {} bytes this check reads for shell \
                         escapes. A person must review them; or run them from a file.",
                        crate::code::embedded::MAX_CODE
                    ),
                );
                continue;
            }
            let commands = crate::code::embedded::client_shell_commands(client, &text);
            if self.found_commands(&format!("The `{name}` input"), &commands, env, depth) {
                return;
            }
        }
    }
}
