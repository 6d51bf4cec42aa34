//! Programs that run another command, besides the wrappers in
//! [`crate::commands`] (`sudo`, `env`, `timeout`, `xargs`…): what they run is
//! judged as if it were run directly.
//!
//! - Wrappers whose remaining words are the command: `chronic`,
//!   `dbus-run-session`, `valgrind`, `firejail`, `unshare`, `faketime TIME`,
//!   `runuser -u USER --`, `sg GROUP` (the rest joined, as `sg` hands it to
//!   a shell).
//! - Shell text: `runuser -c`, `sg GROUP -c`, `at`/`batch` (the commands on
//!   standard input), terminal multiplexers starting or typing a command
//!   (`tmux new-session -d CMD`, `tmux send-keys 'rm -rf ~' Enter`,
//!   `tmux run-shell`, `screen -dm CMD`, `screen -X stuff TEXT`).

use crate::commands::{join_fields as join, skip_options};
use crate::syntax::{Field, Output};
use crate::walk::{Analysis, Env};

/// What a runner runs.
pub(crate) enum Run {
    /// This command (its words), judged next as if run directly.
    Command(Vec<Field>),
    /// Shell text, already judged; the runner's output.
    Done(Output),
}

/// Whether `name` is a runner of this module.
pub(crate) fn is_runner(name: &str) -> bool {
    matches!(
        name,
        "chronic"
            | "dbus-run-session"
            | "valgrind"
            | "firejail"
            | "unshare"
            | "faketime"
            | "runuser"
            | "sg"
            | "at"
            | "batch"
            | "tmux"
            | "screen"
    )
}

/// The value of option `opt` (or any of `opts`): the next word.
fn value_of<'a>(args: &'a [Field], opts: &[&str]) -> Option<&'a Field> {
    let i = args
        .iter()
        .position(|a| opts.contains(&a.text().as_str()))?;
    args.get(i + 1)
}

impl Analysis<'_> {
    /// What runner `name` runs with `args` (see the module documentation).
    pub(crate) fn runner(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) -> Run {
        let rest = |i: usize| Run::Command(args.get(i..).unwrap_or(&[]).to_vec());
        match name {
            "chronic" | "valgrind" | "firejail" => rest(skip_options(args, &[])),
            "dbus-run-session" => rest(skip_options(args, &["--config-file", "--dbus-daemon"])),
            "unshare" => rest(skip_options(
                args,
                &[
                    "-S", "-G", "-R", "-w", "--setuid", "--setgid", "--root", "--wd",
                ],
            )),
            // `faketime '2020-01-01' CMD`: the first operand is the time.
            "faketime" => rest(skip_options(args, &["-m", "-f"]) + 1),
            "runuser" => match value_of(args, &["-c", "--command"]) {
                Some(script) => {
                    Run::Done(self.run_script_field(script, env, depth, stdin, "runuser -c"))
                }
                None => {
                    let i = skip_options(
                        args,
                        &["-u", "-g", "-G", "--user", "--group", "--supp-group"],
                    );
                    // `runuser USER CMD…` without `-u`: the first operand is the user.
                    let user_first = !args[..i]
                        .iter()
                        .any(|a| matches!(a.text().as_str(), "-u" | "--user"));
                    rest(i + usize::from(user_first))
                }
            },
            "sg" => match value_of(args, &["-c"]) {
                Some(script) => {
                    Run::Done(self.run_script_field(script, env, depth, stdin, "sg -c"))
                }
                None => {
                    let i = skip_options(args, &[]) + 1;
                    self.shell_words(args.get(i..).unwrap_or(&[]), env, depth, name)
                }
            },
            "at" | "batch" => {
                if let Some(file) = value_of(args, &["-f"]) {
                    self.program_file(name, file, env, depth);
                } else {
                    self.stdin_program(name, stdin, env, depth, true);
                }
                Run::Done(Output::Unknown)
            }
            "tmux" => self.tmux(args, env, depth),
            "screen" => self.screen(args, env, depth),
            _ => Run::Done(Output::Unknown),
        }
    }

    /// Words a program joins and hands to a shell (`sg GROUP CMD…`, tmux's
    /// shell commands), judged as that shell text.
    fn shell_words(&mut self, words: &[Field], env: &mut Env, depth: u32, via: &str) -> Run {
        if words.is_empty() {
            return Run::Done(Output::Unknown);
        }
        let joined = join(words);
        Run::Done(self.run_script_field(&joined, env, depth, &Output::Unknown, via))
    }

    /// `tmux COMMAND …`: the commands that start a shell command
    /// (`new-session`, `new-window`, `split-window`, `respawn-pane`,
    /// `run-shell`, `display-popup`) and `send-keys`, which types into a
    /// shell. Several tmux commands may be joined with `;`.
    fn tmux(&mut self, args: &[Field], env: &mut Env, depth: u32) -> Run {
        // tmux's own options before the command.
        let start = skip_options(args, &["-L", "-S", "-f", "-c", "-T"]);
        let mut out = Run::Done(Output::Unknown);
        for cmd in args[start.min(args.len())..].split(|a| matches!(a.text().as_str(), ";" | "\\;"))
        {
            let Some(sub) = cmd.first().map(Field::text) else {
                continue;
            };
            let opts = &cmd[1..];
            let with_value = [
                "-t", "-s", "-n", "-c", "-e", "-F", "-x", "-y", "-l", "-p", "-w", "-T", "-N",
            ];
            match sub.as_str() {
                "new-session" | "new" | "new-window" | "neww" | "split-window" | "splitw"
                | "respawn-pane" | "respawnp" | "respawn-window" | "respawnw" | "run-shell"
                | "run" | "display-popup" | "popup" => {
                    // Flags (`-d`, `-P`, clusters such as `-dP`) and
                    // options with a value (`-s NAME`, `-dt PANE`): the
                    // rest is the shell command.
                    let i = skip_options(opts, &with_value);
                    out = self.shell_words(opts.get(i..).unwrap_or(&[]), env, depth, "tmux");
                }
                "send-keys" | "send" => {
                    // `send-keys -t PANE 'rm -rf ~' Enter`: typed into the
                    // pane's shell; key names end a line.
                    let i = skip_options(opts, &["-t", "-N"]);
                    let typed: Vec<Field> = opts[i.min(opts.len())..]
                        .iter()
                        .filter(|a| {
                            !matches!(a.text().as_str(), "Enter" | "C-m" | "KPEnter" | "C-j")
                        })
                        .cloned()
                        .collect();
                    out = self.shell_words(&typed, env, depth, "tmux send-keys");
                }
                _ => {}
            }
        }
        out
    }

    /// `screen -dm CMD…` (a detached session running CMD), `screen -X
    /// stuff TEXT` (TEXT typed into a session's shell).
    fn screen(&mut self, args: &[Field], env: &mut Env, depth: u32) -> Run {
        if let Some(i) = args.iter().position(|a| a.text() == "-X") {
            let cmd = args.get(i + 1..).unwrap_or(&[]);
            if cmd.first().is_some_and(|c| c.text() == "stuff") {
                let typed: Vec<Field> = cmd[1..]
                    .iter()
                    .map(|f| Field::lit(f.text().replace("\\n", "\n").replace("^M", "\n")))
                    .collect();
                return self.shell_words(&typed, env, depth, "screen -X stuff");
            }
            if cmd
                .first()
                .is_some_and(|c| c.text() == "exec" || c.text() == "screen")
            {
                return Run::Command(cmd[1..].to_vec());
            }
            return Run::Done(Output::Unknown);
        }
        let i = skip_options(
            args,
            &["-S", "-c", "-t", "-p", "-e", "-h", "-T", "-s", "-Logfile"],
        );
        Run::Command(args.get(i..).unwrap_or(&[]).to_vec())
    }
}
