//! The other session runners: `sg`, `dtach`, `abduco`, `rlwrap` and
//! `zellij` (`zellij run --`, layouts).

use super::*;

/// zellij's built-in layouts (zellij-utils `assets/layouts`): no file read.
const ZELLIJ_LAYOUTS: &[&str] = &[
    "default",
    "compact",
    "classic",
    "strider",
    "disable-status-bar",
    "welcome",
];

impl Analysis<'_> {
    /// `sg [-] [GROUP [[-c] COMMAND]]` (shadow's newgrp.c in sg mode):
    /// no options but a lone `-` (a login environment), the group, an
    /// optional `-c`, then the command, run with `/bin/sh -c` (later
    /// words joined to it). A word that may expand to nothing before the
    /// command, or another option: held (review s19 S6).
    pub(super) fn sg(&mut self, args: &[Field], env: &mut Env, depth: u32, stdin: &Output) -> Run {
        let mut i = usize::from(args.first().is_some_and(|a| a.text() == "-"));
        // `-`, GROUP, `-c`, the command's first word.
        let reach = (i + 3).min(args.len());
        if self.hold_vanishing("sg", args, reach) {
            return Run::Done(Output::Unknown);
        }
        if let Some(g) = args.get(i).filter(|g| g.text().starts_with('-')) {
            self.hold_options("sg", &format!("`{}`", g.text()));
            return Run::Done(Output::Unknown);
        }
        i += 1;
        if args.get(i).is_some_and(|a| a.text() == "-c") {
            i += 1;
        }
        let cmd = args.get(i..).unwrap_or(&[]);
        match cmd {
            [] => Run::Done(Output::Unknown),
            [one] => Run::Done(self.run_script_field(one, env, depth, stdin, "sg")),
            _ => self.shell_words(cmd, env, depth, "sg"),
        }
    }

    /// `dtach -A|-c|-n|-N SOCKET [OPTIONS] CMD…` (dtach(1)): CMD run by a
    /// new dtach master; `-a`/`-p SOCKET` attach or push, running nothing.
    /// `abduco [OPTIONS] -c|-n|-A NAME CMD…` (abduco(1)): likewise.
    pub(super) fn session_runner(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
    ) -> Run {
        let (spec, mode_first) = match name {
            "dtach" => (&crate::opts::runopts::DTACH, true),
            _ => (&crate::opts::runopts::ABDUCO, false),
        };
        let mut words = args;
        if mode_first {
            // The mode and the socket come first.
            let mode = args.first().map(Field::text).unwrap_or_default();
            if self.hold_vanishing(name, args, 3) {
                return Run::Done(Output::Unknown);
            }
            match mode.as_str() {
                // The socket is made at the path (review s21 U10).
                "-A" | "-c" | "-n" | "-N" => {
                    if let Some(socket) = args.get(1) {
                        self.runner_write(name, socket, env, depth);
                    }
                    words = args.get(2..).unwrap_or(&[]);
                }
                "-a" | "-p" => return Run::Done(Output::Unknown),
                _ => {
                    self.hold_options(name, &format!("`{mode}` as its mode"));
                    return Run::Done(Output::Unknown);
                }
            }
        }
        let p = self.runner_options(name, spec, words, false);
        let mut rest = words.get(p.end..).unwrap_or(&[]);
        if !mode_first {
            if !["c", "n", "A"].iter().any(|m| p.has(m)) {
                return Run::Done(Output::Unknown);
            }
            // The session's name, then the command. A name with a `/` is
            // the socket's path; else the socket is made in a directory
            // `ABDUCO_SOCKET_DIR`, `HOME` or `TMPDIR` chooses (abduco.c
            // `create_socket_dir`; review s21 U10).
            if let Some(session) = rest.first() {
                if session.text().contains('/') || session.is_dynamic() {
                    self.runner_write(name, session, env, depth);
                }
                if let Some(v) = self.config_vars_set(env, &["ABDUCO_SOCKET_DIR", "HOME", "TMPDIR"])
                {
                    return self.hold_runner(
                        name,
                        &format!("`{v}` set by this call, which chooses where its socket is made"),
                    );
                }
            }
            rest = rest.get(1..).unwrap_or(&[]);
        }
        self.server_argv(rest, env, depth, name, &At::Caller)
    }

    /// `zellij [-s NAME] SUBCOMMAND …`: only the subcommands the check
    /// reads. `run [OPTIONS] -- CMD…` runs CMD in a new pane (by the
    /// server); listing, attaching and killing sessions run nothing; any
    /// other (`action write-chars TEXT`, `action new-pane`, `edit`, a
    /// layout, options before the subcommand it does not know): held
    /// (review s19 S18).
    pub(super) fn zellij(&mut self, args: &[Field], env: &mut Env, depth: u32) -> Run {
        // The configuration (and the layouts it names) a session loads:
        // chosen by the call, held.
        if let Some(v) = self.config_vars_set(
            env,
            &[
                "ZELLIJ_CONFIG_FILE",
                "ZELLIJ_CONFIG_DIR",
                "HOME",
                "XDG_CONFIG_HOME",
            ],
        ) {
            return self.hold_runner(
                "zellij",
                &format!("`{v}` set by this call, which chooses the configuration it runs"),
            );
        }
        let mut i = 0;
        while let Some(t) = args.get(i).map(Field::text) {
            match t.as_str() {
                "-s" | "--session" => i += 2,
                // A layout built into zellij (a file layout runs commands).
                "-l" | "--layout"
                    if args
                        .get(i + 1)
                        .and_then(Field::static_text)
                        .is_some_and(|l| ZELLIJ_LAYOUTS.contains(&l.as_str())) =>
                {
                    i += 2;
                }
                _ => break,
            }
        }
        if self.hold_vanishing("zellij", args, i + 1) {
            return Run::Done(Output::Unknown);
        }
        let sub = args.get(i).and_then(Field::static_text).unwrap_or_default();
        let rest = args.get(i + 1..).unwrap_or(&[]);
        match sub.as_str() {
            // `zellij [-s NAME] [-l LAYOUT]`: a new session running the
            // default shell, as `tmux` or `screen` alone (review s21 W2).
            "" if i >= args.len() => Run::Done(Output::Unknown),
            // `attach [-c] NAME`: a session (its default shell); `options`
            // after it may set the shell or layout it runs: held.
            "attach" | "a"
                if !rest.iter().any(|a| {
                    let t = a.text();
                    t == "options" || t.starts_with("--force") || t.starts_with("--layout")
                }) =>
            {
                Run::Done(Output::Unknown)
            }
            "list-sessions"
            | "ls"
            | "kill-session"
            | "k"
            | "kill-all-sessions"
            | "ka"
            | "delete-session"
            | "d"
            | "delete-all-sessions"
            | "da"
            | "--version"
            | "-V"
            | "--help"
            | "-h"
            | "help" => Run::Done(Output::Unknown),
            "run" | "r" => {
                let Some(dd) = rest.iter().position(|a| a.text() == "--") else {
                    return self.hold_runner("zellij run", "a command not after `--`");
                };
                let p = crate::opts::getopt::parse(&crate::opts::runopts::ZELLIJ_RUN, &rest[..dd]);
                if !p.problems.is_empty() || !p.operands.is_empty() {
                    return self.hold_runner("zellij run", "options the check does not know");
                }
                if self.hold_vanishing("zellij run", rest, dd) {
                    return Run::Done(Output::Unknown);
                }
                let at = match p.values("cwd").last() {
                    None => At::Caller,
                    Some(d) => match self.literal_dir(d) {
                        Some(d) => At::Dir(d),
                        None => {
                            return self.hold_runner(
                                "zellij run",
                                &format!("`--cwd {}`, not a literal absolute directory", d.text()),
                            );
                        }
                    },
                };
                self.server_argv(&rest[dd + 1..], env, depth, "zellij run", &at)
            }
            _ => self.hold_runner(
                &format!("zellij {sub}"),
                "a subcommand the check does not read",
            ),
        }
    }
}
