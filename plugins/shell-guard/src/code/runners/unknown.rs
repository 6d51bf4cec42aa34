//! Programs not known at all: the words that may be a command they run,
//! read only to add findings (review-s8 F1), and their writes onto
//! toolvet's state.

use super::*;

/// Programs whose words are data, never a command they run: their
/// arguments are patterns, targets, package or page names, or a command
/// run in a container or on another machine, whose paths are not this
/// machine's (`grep -r rm .`, `make rm`, `apt-get install sudo curl`,
/// `man rm`, `docker run IMG rm -rf /`, `pkill -f 'sudo sh'`). The
/// unknown-program reading ([`Analysis::unknown_program`]) is off for them.
const DATA_WORDS: &[&str] = &[
    // Search and text: the words are patterns and files.
    "grep",
    "egrep",
    "fgrep",
    "zgrep",
    "ag",
    "ack",
    "ugrep",
    "git-grep",
    "fzf",
    "pgrep",
    "pkill",
    "killall",
    "kill",
    "test",
    "[",
    "[[",
    "expr",
    "true",
    "false",
    ":",
    "set",
    "shift",
    "getopts",
    "complete",
    "compgen",
    "history",
    "fc",
    "printenv",
    "logger",
    "notify-send",
    "wall",
    "say",
    "banner",
    "figlet",
    "cowsay",
    "toilet",
    "yes",
    // Names of programs looked up, not run.
    "man",
    "info",
    "help",
    "tldr",
    "apropos",
    "whatis",
    "which",
    "whereis",
    "type",
    "hash",
    "dpkg",
    "dpkg-query",
    "rpm",
    "apt-file",
    "command-not-found",
    "update-alternatives",
    // Build tools: the words are targets and variables.
    "make",
    "gmake",
    "bmake",
    "mk",
    "ninja",
    "cmake",
    "meson",
    "bazel",
    "bazelisk",
    "buck",
    "scons",
    "rake",
    "invoke",
    "task",
    "just",
    // Package managers: the words are package names.
    "apt",
    "apt-get",
    "apt-cache",
    "aptitude",
    "dnf",
    "yum",
    "zypper",
    "pacman",
    "yay",
    "paru",
    "apk",
    "brew",
    "port",
    "pkg",
    "pip",
    "pip3",
    "pipx",
    "gem",
    "cargo",
    "go",
    "snap",
    "flatpak",
    "nix-env",
    "choco",
    "winget",
    "scoop",
    "opam",
    "cabal",
    "stack",
    "composer",
    "cpan",
    "cpanm",
    "luarocks",
    "R",
    "julia",
    "dotnet",
    "mvn",
    "gradle",
    "sbt",
    "lein",
    // Containers, virtual machines and remote hosts: the command runs on
    // another filesystem (bind mounts are a separate, known gap).
    "docker",
    "podman",
    "nerdctl",
    "kubectl",
    "oc",
    "lxc",
    "incus",
    "ctr",
    "crictl",
    "vagrant",
    "multipass",
    "limactl",
    "colima",
    "toolbox",
    "distrobox",
    "docker-compose",
    "helm",
    "kind",
    "minikube",
    "gcloud",
    "az",
];

/// Whether a program not otherwise known to shell-guard, given `word`
/// (its base name) among its arguments followed by `more` words, may be
/// running it: the programs with a rule that denies or escalates (removers,
/// privilege, shells, downloaders, credential readers, `git`, disk,
/// permission and power commands) and the wrappers and runners that lead
/// to them. A name with nothing after it is read only when it acts alone
/// (`reboot`).
fn judged_name(word: &str, more: usize, rest: &[Field]) -> bool {
    let alone = matches!(word, "shutdown" | "reboot" | "halt" | "poweroff");
    if alone {
        return true;
    }
    if more == 0 {
        return false;
    }
    if crate::walk::commands::is_shell(word) || crate::walk::commands::DOWNLOADERS.contains(&word) {
        return true;
    }
    if crate::walk::commands::is_interpreter(word) {
        // Inline code only (`python -c …`, `node -e …`); a bare
        // interpreter name among data words (`nvm install node 20`) is not.
        return rest.first().is_some_and(|a| {
            matches!(
                a.text().as_str(),
                "-c" | "-e" | "-E" | "-r" | "--eval" | "-x"
            )
        });
    }
    word.starts_with("mkfs")
        || is_runner(word, rest)
        || matches!(
            word,
            "rm" | "srm"
                | "unlink"
                | "shred"
                | "rimraf"
                | "find"
                | "dd"
                | "mke2fs"
                | "mkswap"
                | "wipefs"
                | "chmod"
                | "chown"
                | "chgrp"
                | "chattr"
                | "setfacl"
                | "sudo"
                | "doas"
                | "pkexec"
                | "run0"
                | "su"
                | "git"
                | "cat"
                | "tac"
                | "head"
                | "tail"
                | "less"
                | "more"
                | "bat"
                | "base64"
                | "xxd"
                | "od"
                | "strings"
                | "cp"
                | "mv"
                | "ln"
                | "install"
                | "tee"
                | "scp"
                | "rsync"
                | "systemctl"
                | "crontab"
                | "eval"
                | "source"
                | "exec"
                | "env"
                | "timeout"
                | "nohup"
                | "nice"
                | "setsid"
                | "stdbuf"
                | "time"
                | "command"
                | "xargs"
                | "parallel"
                | "watch"
                | "flock"
                | "chroot"
                | "ssh"
        )
}

/// Programs shell-guard has no table for that only read the files they
/// name (checksums, listings, viewers, comparisons): naming toolvet's
/// state there moves nothing.
const READ_ONLY_UNKNOWN: &[&str] = &[
    "toolvet",
    "wc",
    "stat",
    "md5sum",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "sum",
    "tree",
    "realpath",
    "readlink",
    "basename",
    "dirname",
    "cmp",
    "diff",
    "diff3",
    "colordiff",
    "delta",
    "difft",
    "jq",
    "gojq",
    "jaq",
    "bat",
    "batcat",
    "glow",
    "exa",
    "eza",
    "lsd",
    "namei",
    "getfacl",
    "lsattr",
    "file",
    "nl",
    "column",
    "uniq",
    "cut",
    "echo",
    "printf",
    "tokei",
    "cloc",
    "shellcheck",
    "hadolint",
    "yamllint",
];

/// Options of an unknown program whose value, a whole command line, is
/// read as `sh -c` of it (`mytool --exec 'rm -rf ~'`).
const UNKNOWN_SCRIPT_OPTIONS: &[&str] = &["-c", "--run", "--command", "--exec", "--cmd"];

/// At most this many readings of one unknown program's words.
const UNKNOWN_READINGS: usize = 8;

/// Parameter `key` of rclone remote `remote` defined in the command's
/// environment (`RCLONE_CONFIG_X_TYPE=alias RCLONE_CONFIG_X_REMOTE=DIR`;
/// rclone upper-cases the name and reads `-`, `.` and spaces as `_`).
fn rclone_var(env: &Env, remote: &str, key: &str) -> Option<String> {
    let name = remote.to_ascii_uppercase().replace(['-', '.', ' '], "_");
    env.vars
        .get(&format!(
            "RCLONE_CONFIG_{name}_{}",
            key.to_ascii_uppercase()
        ))
        .and_then(Field::static_text)
}

/// rclone's commands that only read or list (rclone.org/commands); any
/// other command, or none recognised, may write or delete.
const RCLONE_READS: &[&str] = &[
    "ls",
    "lsl",
    "lsd",
    "lsf",
    "lsjson",
    "cat",
    "size",
    "check",
    "checksum",
    "cryptcheck",
    "md5sum",
    "sha1sum",
    "hashsum",
    "tree",
    "about",
    "version",
    "listremotes",
    "obscure",
    "help",
    "authorize",
    "genautocomplete",
    "completion",
];

/// Whether an rclone command line may write or delete files.
fn rclone_writes(args: &[Field]) -> bool {
    let verb = args.iter().map(Field::text).find(|t| !t.starts_with('-'));
    !verb.is_some_and(|v| RCLONE_READS.contains(&v.as_str()))
}

impl Analysis<'_> {
    /// A program shell-guard does not know (it reached no rule, runner or
    /// reader) may itself be a runner: from each of its words that names a
    /// program whose judgment matters ([`judged_name`]), the rest is judged
    /// as a command it runs, and the value of a `-c`/`--run`/`--command`/
    /// `--exec`/`--cmd` option holding a command line as `sh -c` of it
    /// (`foo-run rm -rf ~`, `mytool exec -- sudo sh -c id`). These readings
    /// only add findings; the strictest wins. Off for [`DATA_WORDS`]
    /// programs, whose words are data (review-s8 F1).
    ///
    /// Returns the tainted output of a reading (downloaded code, secrets:
    /// `foo-run curl URL | sh`), if any.
    pub(crate) fn unknown_program(
        &mut self,
        name: &str,
        args: &[Field],
        env: &Env,
        depth: u32,
    ) -> Option<Output> {
        let mut tainted: Option<Output> = None;
        if DATA_WORDS.contains(&name) || depth >= self.opts.max_depth {
            return tainted;
        }
        self.unknown_onto_toolvet_state(name, args, env);
        let mut readings = 0;
        let mut i = 0;
        while i < args.len() && readings < UNKNOWN_READINGS && !self.done() {
            let t = args[i].text();
            let script = if UNKNOWN_SCRIPT_OPTIONS.contains(&t.as_str()) {
                args.get(i + 1).and_then(Field::static_text)
            } else {
                UNKNOWN_SCRIPT_OPTIONS.iter().find_map(|o| {
                    t.strip_prefix(o)
                        .and_then(|r| r.strip_prefix('='))
                        .filter(|_| o.starts_with("--"))
                        .map(str::to_string)
                })
            };
            // A guess: text that is not shell (`jq -c '.[] | select(…)'`)
            // or would be too deep is not read at all, never reported.
            if let Some(text) = script.filter(|s| {
                s.trim().contains(char::is_whitespace)
                    && depth < self.opts.max_depth
                    && crate::syntax::parse_script(s, crate::syntax::MAX_OPENERS).is_ok()
            }) {
                readings += 1;
                let mut e = env.clone();
                self.script(&text, &mut e, depth + 1, &Output::Unknown);
                i += 1;
                continue;
            }
            if args[i].is_dynamic() {
                i += 1;
                continue;
            }
            let word = crate::walk::commands::base_name(&t);
            let rest = &args[i + 1..];
            if judged_name(&word, rest.len(), rest) {
                readings += 1;
                let mut e = env.clone();
                let out = self.exec(
                    args[i..].to_vec(),
                    &mut e,
                    depth + 1,
                    &Output::Unknown,
                    false,
                );
                if out.is_tainted() {
                    tainted = Some(match tainted {
                        Some(t) => t.merge(out),
                        None => out,
                    });
                }
            }
            i += 1;
        }
        tainted
    }

    /// A program shell-guard does not know, given toolvet's state or a
    /// directory close above it as an operand or option value (`rename
    /// 's/state$/old/' ~/.local/state`, `mmv`, `gio move`, `rclone copyto
    /// X …/toolvet.toml`, `wget -P DIR`, `cpio -p DIR`, `unsquashfs -d
    /// DIR`): it may move, replace or fill it, as `mv` would, so a person
    /// must approve (review s14 N5). Programs that only read what they
    /// name ([`READ_ONLY_UNKNOWN`]) are left alone.
    pub(crate) fn unknown_onto_toolvet_state(&mut self, name: &str, args: &[Field], env: &Env) {
        if READ_ONLY_UNKNOWN.contains(&name) {
            return;
        }
        for a in args {
            let t = a.text();
            let rclone = (name == "rclone" && !t.starts_with('-'))
                .then(|| {
                    crate::paths::rclone_place(&t, &|remote, key| rclone_var(env, remote, key))
                })
                .flatten();
            let fields: Vec<Field> = if let Some(at) = rclone {
                // `REMOTE:PATH`, `:BACKEND,…:PATH`: where rclone puts the
                // files, through wrappers (`:chunker,remote=DIR:`,
                // `:union,upstreams=DIR:`) and remotes defined in the
                // environment (review s16 P3, s17 Q2). A backend the check
                // cannot place is held when the command writes or deletes.
                match at {
                    crate::paths::RcloneAt::Local(ps) => ps.into_iter().map(Field::lit).collect(),
                    crate::paths::RcloneAt::Remote => continue,
                    crate::paths::RcloneAt::Unknown => {
                        if rclone_writes(args) {
                            self.report(
                                false,
                                "shell.toolvet-state",
                                format!(
                                    "`rclone` writes or deletes through `{t}`, a backend whose files the check cannot \
                                     place (an unknown type, a wrapper without a known remote, or a network backend \
                                     pointed at this machine): it may replace toolvet's policy or state. A person must \
                                     approve it."
                                ),
                            );
                            return;
                        }
                        continue;
                    }
                }
            } else if !t.starts_with('-') {
                vec![a.clone()]
            } else if let Some((_, v)) = t.split_once('=') {
                vec![Field::lit(v)]
            } else if t.len() > 2
                && !t.starts_with("--")
                && (t[2..].starts_with('/') || t[2..].starts_with('~'))
            {
                // `-P/tmp/x`, `-d~/x`: an attached value.
                let v = &t[2..];
                match v.strip_prefix('~') {
                    Some(rest) if rest.is_empty() || rest.starts_with('/') => match &self.home {
                        Some(h) => vec![Field::lit(format!("{h}{rest}"))],
                        None => continue,
                    },
                    _ => vec![Field::lit(v)],
                }
            } else {
                continue;
            };
            for field in fields {
                let Some(abs) = self.abs_path(&field, env) else {
                    continue;
                };
                // toolvet's state, and (review s22 V5) the shell start-up
                // files and agent settings a writer could replace.
                let is_state = |p: &str| {
                    self.state.guard_rail(p).is_some_and(|r| {
                        use check_catalog::guardrails::Kind;
                        matches!(
                            r.kind,
                            Kind::ToolvetState | Kind::ShellStartup | Kind::AgentControl
                        )
                    })
                };
                let held = if is_state(&abs) {
                    Some(abs.clone())
                } else {
                    self.rail_just_within(&abs).filter(|g| is_state(g))
                };
                if let Some(guarded) = held {
                    let what = if guarded == abs {
                        format!("`{t}`, toolvet's own state")
                    } else {
                        format!("`{t}`, which holds toolvet's state `{guarded}`")
                    };
                    let state = self
                        .state
                        .guard_rail(&guarded)
                        .is_some_and(|r| r.kind == check_catalog::guardrails::Kind::ToolvetState);
                    if !state {
                        self.report(
                            false,
                            "shell.guardrail-write",
                            format!(
                                "`{name}` is a program this check does not know, given `{t}`, the agent's settings or \
                                 a shell start-up file (or the directory holding `{guarded}`): it may replace it. A \
                                 person must approve."
                            ),
                        );
                        return;
                    }
                    self.report(
                        false,
                        "shell.toolvet-state",
                        format!(
                            "`{name}` is a program this check does not know, given {what}: it may move, replace or fill \
                             it, which resets or changes what toolvet decides (a moved hooks state directory starts \
                             every run limit again). A person must approve; leave toolvet's policy and state as they are."
                        ),
                    );
                    return;
                }
            }
        }
    }
}
