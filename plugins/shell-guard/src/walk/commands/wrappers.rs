//! Wrappers looked through to find the command that really runs: `sudo`,
//! `doas`, `run0`, `su`, `env`, `command`, `nice`, `timeout`, `xargs`,
//! `parallel`, `watch`, `flock`, the runners of [`crate::code::runners`], …

use std::ops::ControlFlow;

use super::*;

impl Analysis<'_> {
    /// The command `name args` runs, if it is a wrapper: `Continue(Some(cmd))`
    /// (look again at `cmd`), `Continue(None)` (not a wrapper) or `Break(out)`
    /// (judged here). Sets [`Reached::via_xargs`] when the operands come from
    /// standard input.
    pub(super) fn wrapped(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
        reached: &mut Reached,
    ) -> ControlFlow<Output, Option<Vec<Field>>> {
        let allowed = reached.allowed;
        ControlFlow::Continue(match name {
            "sudo" | "doas" | "pkexec" | "run0" | "sudoedit" => {
                self.privileged(name, args, env, depth, stdin, allowed)?
            }
            "su" => return ControlFlow::Break(self.su(args, env, depth, stdin, allowed)),
            "env" => self.env_command(args, env, depth, stdin, *reached)?,
            "command" => {
                let f = flags(
                    &args[..args
                        .iter()
                        .position(|a| !a.text().starts_with('-'))
                        .unwrap_or(args.len())],
                );
                if f.short.contains('v') || f.short.contains('V') {
                    return ControlFlow::Break(Output::Static(String::new()));
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
                (!["pid", "pgid", "uid"].iter().any(|o| p.has(o))).then(|| args[p.end..].to_vec())
            }
            "setsid" | "stdbuf" | "strace" | "ltrace" | "systemd-run" => {
                let spec = match name {
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
                let p = self.runner_options(name, spec, args, allowed);
                // `strace -E NAME=V`, `systemd-run -E|--setenv NAME=V`: the
                // command's environment, read as `env NAME=V` is
                // (review s23 V9).
                let set: Vec<Field> = p
                    .found
                    .iter()
                    .filter(|f| matches!(f.opt.name, "env" | "setenv"))
                    .filter_map(|f| f.value.clone())
                    .collect();
                let assigns = assignments_of(&set);
                if !assigns.is_empty() {
                    let program = args.get(p.end).map(|a| base_name(&a.text()));
                    self.code_variables(&assigns, env, depth, program.as_deref());
                }
                Some(args[p.end..].to_vec())
            }
            // `cmake -E env NAME=V… CMD`, `cross-env NAME=V… CMD`: env.
            "cmake" if args.len() > 2 && args[0].text() == "-E" && args[1].text() == "env" => {
                self.env_command(&args[2..], env, depth, stdin, *reached)?
            }
            "cross-env" => self.env_command(args, env, depth, stdin, *reached)?,
            // `cross-env-shell 'A=b cmd'`: the words are one shell text.
            "cross-env-shell" => {
                let script = args.iter().map(Field::text).collect::<Vec<_>>().join(" ");
                let mut e = env.clone();
                return ControlFlow::Break(self.script(&script, &mut e, depth + 1, stdin));
            }
            // `npx [-y] cross-env …`: the package runs with the words after.
            "npx"
                if args
                    .iter()
                    .find(|a| {
                        !matches!(
                            a.text().as_str(),
                            "-y" | "--yes" | "-q" | "--quiet" | "--no-install"
                        )
                    })
                    .is_some_and(|a| {
                        matches!(a.text().as_str(), "cross-env" | "cross-env-shell")
                    }) =>
            {
                let at = args
                    .iter()
                    .position(|a| a.text().starts_with("cross-env"))
                    .unwrap_or(0);
                Some(args[at..].to_vec())
            }
            "proxychains" | "proxychains4" => Some(args[skip_options(args, &["-f"])..].to_vec()),
            "caffeinate" => Some(args[skip_options(args, &["-t", "-w"])..].to_vec()),
            // `timeout DURATION CMD`, `chrt PRIORITY CMD`, `taskset MASK
            // CMD`: one operand before the command. `chrt -p`/`-m` and
            // `taskset -p` act on a running process or print: no command.
            "timeout" | "chrt" | "taskset" => {
                let spec = match name {
                    "timeout" => &runopts::TIMEOUT,
                    "chrt" => &runopts::CHRT,
                    _ => &runopts::TASKSET,
                };
                let p = self.runner_options(name, spec, args, allowed);
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
            n if crate::code::runners::is_runner(n, args) => {
                // A package runner (`bunx`, `pnpm dlx`, `uvx`) fetches the
                // package it runs: where from, and whether its name is a
                // near-miss (`effects::packages`).
                if !allowed {
                    self.package_install(n, args, env);
                }
                match self.runner(n, args, env, depth, stdin) {
                    crate::code::runners::Run::Command(cmd) => Some(cmd),
                    crate::code::runners::Run::Done(out) => return ControlFlow::Break(out),
                }
            }
            "parallel" => self.parallel_wrapper(args, env, depth, stdin, reached)?,
            "xargs" => Some(self.xargs_wrapper(args, env, depth, stdin, reached)),
            "watch" => {
                let p = self.runner_options("watch", &runopts::WATCH, args, allowed);
                let rest = args[p.end..].to_vec();
                if p.has("exec") {
                    Some(rest)
                } else {
                    let script = rest.iter().map(Field::text).collect::<Vec<_>>().join(" ");
                    let mut e = env.clone();
                    return ControlFlow::Break(self.script(
                        &script,
                        &mut e,
                        depth + 1,
                        &Output::Unknown,
                    ));
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
                        return ControlFlow::Break(Output::Unknown);
                    }
                    _ => Some(after_file.to_vec()),
                }
            }
            _ => None,
        })
    }

    /// `sudo`, `doas`, `pkexec`, `run0`: escalated unless read-only, and the
    /// command after their options (run by a shell with `-s`). The edit
    /// mode (`sudo -e`, `--edit`, the `sudoedit` name) writes files as
    /// root: always escalated (review s23 V11); the editor it runs
    /// (`SUDO_EDITOR`, `VISUAL`, `EDITOR`) is read as a program variable.
    fn privileged(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
        allowed: bool,
    ) -> ControlFlow<Output, Option<Vec<Field>>> {
        // What the options say: (end of options, `-e`/`--edit`,
        // the agent's environment kept, the command run by a
        // shell).
        // `chooses`: an option that chooses what program runs as root
        // (review s25 S31): a shell (`-s` runs the caller's `$SHELL`,
        // `-i` the target's login shell and its start-up files), or the
        // command found under another root or directory (`-R`,
        // `--chroot`, `-D`, `--chdir`). No such command is read-only.
        let (i, edit, keeps_env, via_shell, chooses) = match name {
            "sudo" | "doas" => {
                let spec = if name == "sudo" {
                    &runopts::SUDO
                } else {
                    &runopts::DOAS
                };
                let p = self.runner_options(name, spec, args, allowed);
                let via_shell = ["shell", "login", "s"].iter().any(|o| p.has(o));
                (
                    p.end,
                    p.has("edit"),
                    p.has("E") || p.has("preserve-env"),
                    via_shell,
                    via_shell || p.has("chroot") || p.has("chdir"),
                )
            }
            "run0" => {
                let p = self.runner_options(name, &runopts::RUN0, args, allowed);
                let via_shell = p.has("via-shell");
                (
                    p.end,
                    false,
                    p.has("setenv"),
                    via_shell,
                    via_shell || p.has("chdir"),
                )
            }
            "sudoedit" => (args.len(), true, false, false, false),
            // pkexec reads exact spellings, not getopt.
            _ => (
                skip_options(args, &["--user", "-u"]),
                false,
                false,
                false,
                false,
            ),
        };
        if edit {
            if !allowed {
                self.privilege_switch(name, "edits files as root");
            }
            return ControlFlow::Break(Output::Unknown);
        }
        let rest = args[i.min(args.len())..].to_vec();
        // `sudo -E`, `--preserve-env`, `run0 --setenv`: the
        // agent's environment (`KUBECONFIG`, `DOCKER_HOST`)
        // reaches the program, so no command is read-only.
        if !allowed && chooses {
            self.privilege_switch(
                name,
                "runs a shell (`$SHELL`, the login shell) or a program from another root or directory as root",
            );
        } else if !allowed && (keeps_env || !crate::effects::readonly::is_read_only(&rest)) {
            self.privilege_switch(name, "runs with elevated privileges");
        }
        if via_shell && !rest.is_empty() {
            // `sudo -s CMD` runs CMD through the shell.
            let script = rest.iter().map(Field::text).collect::<Vec<_>>().join(" ");
            let mut e = env.clone();
            return ControlFlow::Break(self.script(&script, &mut e, depth + 1, stdin));
        }
        ControlFlow::Continue(Some(rest))
    }

    /// A command that runs as another user (`sudo`, `sudo -e`, `su`,
    /// `machinectl shell`, `systemd-run --uid`, `setpriv --reuid`, …):
    /// escalated as `shell.sudo` (one rule for every privilege switch,
    /// review s23 V11).
    pub(crate) fn privilege_switch(&mut self, name: &str, what: &str) {
        if !self.opts.escalate_sudo {
            return;
        }
        self.report(
            false,
            "shell.sudo",
            format!(
                "The command {what} through `{name}`. A person must approve commands run as another user; run it \
                 without `{name}` if it does not need that."
            ),
        );
    }

    /// `su`: escalated, and each `-c` script judged.
    fn su(
        &mut self,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
        allowed: bool,
    ) -> Output {
        if !allowed {
            self.privilege_switch("su", "switches user");
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
        Output::Unknown
    }

    /// `env`: `-S` split strings, `-C DIR`, assignments that reach the
    /// command, and the command after them.
    fn env_command(
        &mut self,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
        reached: Reached,
    ) -> ControlFlow<Output, Option<Vec<Field>>> {
        let Reached { via_xargs, allowed } = reached;
        let p = self.runner_options("env", &runopts::ENV, args, allowed);
        // `env -S TEXT`: env splits TEXT into words that take
        // its place and reads them as its own arguments (options,
        // assignments, the command).
        if let Some(f) = p.found.iter().find(|f| f.opt.name == "split-string") {
            let text = f.value.as_ref().map(Field::text).unwrap_or_default();
            let after = f.at + 1 + usize::from(runopts::value_is_next(&runopts::ENV, &args[f.at]));
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
            ControlFlow::Continue(Some(next))
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
            let program = args.get(i).map(|a| base_name(&a.text()));
            self.code_variables(&assigns, env, depth, program.as_deref());
            let rest = args[i..].to_vec();
            if rest.is_empty() {
                // `env` alone prints the environment.
                return ControlFlow::Break(Output::Secret);
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
                return ControlFlow::Break(out);
            }
            ControlFlow::Continue(Some(rest))
        }
    }
}
