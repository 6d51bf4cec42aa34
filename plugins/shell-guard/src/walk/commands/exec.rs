//! Running one simple command: the user's patterns, the command word
//! resolved (names known only at run time, globs, files written earlier in
//! the call), the wrappers looked through ([`super::wrappers`]), then
//! [`Analysis::dispatch`].

use std::ops::ControlFlow;

use super::*;

/// What [`Analysis::command_word`] made of a command's first word.
enum Word {
    /// The command was judged (or cannot be): what it writes.
    Done(Output),
    /// The words changed: look at the new first word.
    Again,
    /// The first word names the program.
    Named,
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
        let mut reached = Reached {
            via_xargs,
            allowed: false,
        };
        for _ in 0..32 {
            if argv.is_empty() || self.done() {
                return Output::Unknown;
            }
            reached.allowed |= self.user_rules(&argv);
            match self.command_word(&mut argv, env, depth, stdin) {
                Word::Done(out) => return out,
                Word::Again => continue,
                Word::Named => {}
            }
            let first = &argv[0];
            let name = base_name(&first.text());
            let args = &argv[1..];
            if !reached.allowed {
                self.wrapper_rules(&name, args, env, depth, stdin);
            }
            let rest = match self.wrapped(&name, args, env, depth, stdin, &mut reached) {
                ControlFlow::Break(out) => return out,
                ControlFlow::Continue(rest) => rest,
            };
            let allowed = reached.allowed;
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
        self.dispatch(&name, &args, env, depth, stdin, reached)
    }

    /// Resolve the command word: leading `NAME=value` words a wrapper passed
    /// on, names only known at run time, globs, tainted or written files, and
    /// programs found by name. May rewrite `argv`.
    fn command_word(
        &mut self,
        argv: &mut Vec<Field>,
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) -> Word {
        // `sudo BASH_ENV=x bash …`, `env -S 'A=b cmd'`: a wrapper passes
        // leading NAME=value words on as the command's environment.
        let leading = assignments_of(&argv[..1]);
        if !leading.is_empty() && argv.len() > 1 {
            let program = base_name(&argv[1].text());
            self.code_variables(&leading, env, depth, Some(&program));
            argv.remove(0);
            return Word::Again;
        }
        let first = &argv[0];
        if first.is_dynamic() {
            let out = first.output();
            if out.is_tainted() {
                self.report_taint(&out, "the command name itself");
                return Word::Done(Output::Unknown);
            }
            // `${X:-rm} -rf /`: the default is what runs when X is unset.
            if let Some(guess) = default_value_of(&first.text()) {
                argv[0] = Field::lit(guess);
                return Word::Again;
            }
            // `$SHELL -c '…'`: an unknown program given a script.
            if argv.get(1).is_some_and(|a| a.text() == "-c")
                && let Some(script) = argv.get(2).cloned()
            {
                return Word::Done(self.run_script_field(&script, env, depth, stdin, "-c"));
            }
            // `"$VENV/bin/python" -m x`, `$(npm bin)/jest`: the
            // program's name is known, only its directory is not.
            if let Some(Seg::Lit { text, .. }) = first.segs.last()
                && let Some((_, name)) = text.rsplit_once('/')
                && !name.is_empty()
            {
                argv[0] = Field::lit(name);
                return Word::Again;
            }
            // `x=(rm -rf ~); "${x[@]}"`, `read c; $c`, `$CMD -rf /`,
            // `${!ref}`: a program the analysis cannot know runs. It is
            // judged as `eval` of an unknown script is (command output,
            // `$(…)`, was analysed and stays allowed, as for `eval`).
            if !has_unknown_variable(first) {
                return Word::Done(Output::Unknown);
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
            return Word::Done(Output::Unknown);
        }
        if first.first_glob().is_some()
            && let Some(known) = glob_command(&base_name(&first.text()))
        {
            // `/???/r? -rf /`: a glob that can match a dangerous command.
            argv[0] = Field::lit(known);
            return Word::Again;
        }
        if let Some(path) = first.static_text()
            && path.contains('/')
            && let Some(out) = env.file_taint(&path).cloned()
        {
            self.report_taint(
                &out,
                &format!("`{path}` was written from it earlier in the command"),
            );
            return Word::Done(Output::Unknown);
        }
        // A file written or copied earlier in the call (review-s9 G11, G2).
        match self.run_written_file(argv, env, depth, stdin) {
            walk::WrittenRun::Ran(out) => return Word::Done(out),
            walk::WrittenRun::Renamed => return Word::Again,
            walk::WrittenRun::No => {}
        }
        if let Some(out) = self.program_lookup(argv) {
            return Word::Done(out);
        }
        Word::Named
    }

    /// The rules that read a command before its wrapper is looked through:
    /// process control, systemd units and bus calls, debuggers.
    fn wrapper_rules(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) {
        self.process_control(name, args);
        match name {
            "systemd-run" => {
                self.unit_commands(&runopts::SYSTEMD_RUN, args, env, depth);
                self.systemd_run_user(args);
            }
            "machinectl" | "setpriv" | "capsh" => self.other_user(name, args),
            // Runners that write a file of their own (`strace -o F`,
            // `time -o F`): their command is looked through after.
            "strace" | "ltrace" | "time" => self.table_writes(name, args, env),
            "run0" => self.unit_commands(&runopts::RUN0, args, env, depth),
            "systemctl" => self.systemctl_units(args, env, depth, stdin),
            "busctl" | "gdbus" | "dbus-send" | "qdbus" | "qdbus6" => {
                self.systemd_bus_call(name, args)
            }
            _ => {}
        }
        self.debugger_commands(name, args, env, depth, stdin);
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
}
