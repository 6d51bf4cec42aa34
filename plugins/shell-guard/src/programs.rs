//! Options that make a program run another program or write a file, the
//! argument-injection surface of "safe" commands (Trail of Bits, *Prompt
//! injection to RCE in AI agents*; GTFOBins): `go test -exec CMD`, `rg
//! --pre CMD`, `ssh -o ProxyCommand=CMD`, `tar --to-command=CMD`, `git -c
//! core.sshCommand=CMD`, `fd -x CMD`, `chroot DIR CMD`; `--output=FILE`
//! writes; `crontab` installs; containers given the host's root or Docker
//! socket; agent CLIs started with their own guard rails off.

use crate::syntax::{Field, Output};
use crate::walk::{Analysis, Env};

/// `(program, option)` whose value is a shell command. An option ending in
/// `=` also matches its attached form (`--pre=CMD`).
const COMMAND_OPTIONS: &[(&str, &str)] = &[
    ("go", "-exec"),
    ("rg", "--pre"),
    ("ripgrep", "--pre"),
    ("ssh", "ProxyCommand="),
    ("ssh", "LocalCommand="),
    ("scp", "ProxyCommand="),
    ("sftp", "ProxyCommand="),
    ("tar", "--to-command"),
    ("tar", "--use-compress-program"),
    ("tar", "-I"),
    ("tar", "--checkpoint-action=exec="),
    ("tar", "--rsh-command"),
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
    ("script", "-c"),
    ("less", "+!"),
];

/// `(program, option)` whose remaining words are a command (`fd -x rm`).
const COMMAND_TAIL_OPTIONS: &[(&str, &str)] = &[
    ("fd", "-x"),
    ("fd", "--exec"),
    ("fd", "-X"),
    ("fd", "--exec-batch"),
    ("fdfind", "-x"),
    ("parallel", ":::"),
];

/// Agent CLIs and the options that turn their permission checks off.
const UNSAFE_AGENT_FLAGS: &[(&str, &str)] = &[
    ("claude", "--dangerously-skip-permissions"),
    ("claude", "bypassPermissions"),
    ("gemini", "--yolo"),
    ("gemini", "-y"),
    ("gemini", "yolo"),
    ("codex", "--dangerously-bypass-approvals-and-sandbox"),
    ("codex", "--yolo"),
    ("codex", "danger-full-access"),
    ("q", "--trust-all-tools"),
    ("aider", "--yes-always"),
    ("cursor-agent", "--force"),
    ("opencode", "--dangerously-skip-permissions"),
];

impl Analysis<'_> {
    /// Run the scripts hidden in options, check `--output` targets, and the
    /// other rules of this module, for command `name`.
    pub(crate) fn program_options(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
    ) {
        let texts: Vec<String> = args.iter().map(Field::text).collect();
        for (i, t) in texts.iter().enumerate() {
            for (program, opt) in COMMAND_OPTIONS {
                if *program != name {
                    continue;
                }
                let value = if t == opt.trim_end_matches('=') || t == opt {
                    args.get(i + 1).cloned()
                } else if let Some(v) = t.strip_prefix(opt).filter(|_| opt.ends_with('=')) {
                    Some(Field::lit(v))
                } else if let Some(v) = t.strip_prefix(&format!("{opt}=")) {
                    Some(Field::lit(v))
                } else {
                    t.strip_prefix(&format!("-o{opt}")).map(Field::lit)
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
            if let Some((_, _)) = COMMAND_TAIL_OPTIONS
                .iter()
                .find(|(p, o)| *p == name && o == t)
            {
                let rest = args[i + 1..].to_vec();
                let mut e = env.clone();
                self.exec(rest, &mut e, depth + 1, &Output::Unknown, false);
            }
            // `--output=FILE` writes FILE, whatever the program.
            let target = match t.strip_prefix("--output=") {
                Some(f) => Some(Field::lit(f)),
                None if t == "--output" => args.get(i + 1).cloned(),
                None if t == "-o"
                    && matches!(
                        name,
                        "curl" | "wget" | "gcc" | "cc" | "clang" | "sort" | "go"
                    ) =>
                {
                    args.get(i + 1).cloned()
                }
                None => None,
            };
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
        if let Some((_, flag)) = UNSAFE_AGENT_FLAGS
            .iter()
            .find(|(p, f)| *p == name && texts.iter().any(|t| t == f))
        {
            self.report(
                false,
                "shell.agent-unsafe-mode",
                format!(
                    "The command starts the agent CLI `{name}` with `{flag}`, which turns its own permission checks off, \
                     so whatever it is asked runs unchecked. A person must approve; run it without that option."
                ),
            );
        }
        if matches!(name, "docker" | "podman" | "nerdctl")
            && texts.first().is_some_and(|s| s == "run" || s == "create")
        {
            self.container_mounts(name, &texts);
        }
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
    /// or full privileges: it can change anything on the host.
    fn container_mounts(&mut self, name: &str, texts: &[String]) {
        for (i, t) in texts.iter().enumerate() {
            let spec = match t.as_str() {
                "-v" | "--volume" | "--mount" => texts.get(i + 1).map(String::as_str),
                _ => t
                    .strip_prefix("--volume=")
                    .or_else(|| t.strip_prefix("--mount=")),
            };
            let Some(spec) = spec else { continue };
            let source = spec
                .split(',')
                .find_map(|kv| {
                    kv.strip_prefix("source=")
                        .or_else(|| kv.strip_prefix("src="))
                })
                .unwrap_or_else(|| spec.split(':').next().unwrap_or(""));
            let what = match source.trim_end_matches('/') {
                "" => Some("the host's root file system"),
                "/var/run/docker.sock" | "/run/docker.sock" => {
                    Some("the Docker socket (control of every container)")
                }
                "/etc" | "/root" | "/home" | "/boot" | "/usr" => {
                    Some("a system directory of the host")
                }
                _ => None,
            };
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
