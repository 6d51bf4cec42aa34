//! Programs that run another command, besides the wrappers in
//! [`crate::walk::commands`] (`sudo`, `env`, `timeout`, `xargs`…): what they run is
//! judged as if it were run directly.
//!
//! - Wrappers whose remaining words are the command: `chronic`,
//!   `dbus-run-session`, `valgrind`, `firejail`, `unshare`, `faketime TIME`,
//!   `runuser -u USER --`, `sg GROUP` (the rest joined, as `sg` hands it to
//!   a shell).
//! - Shell text: `runuser -c`, `sg GROUP -c`, `at`/`batch` (the commands on
//!   standard input), terminal multiplexers starting or typing a command
//!   (`tmux new-session -d CMD`, `tmux send-keys 'rm -rf ~' Enter`,
//!   `tmux run-shell`, `screen -dm CMD`, `screen -X stuff TEXT`), judged
//!   in the server's environment, and the session runners `dtach`,
//!   `abduco`, `zellij run --`, `byobu` (read as tmux), `rlwrap`.

use crate::syntax::{Field, Output};
use crate::walk::commands::{join_fields as join, skip_options};
use crate::walk::{Analysis, Cwd, Env};

mod screen;
mod sessions;
mod tmux;
mod unknown;

/// What a runner runs.
pub(crate) enum Run {
    /// This command (its words), judged next as if run directly.
    Command(Vec<Field>),
    /// Shell text, already judged; the runner's output.
    Done(Output),
}

/// A runner whose command follows its options, found by one walk
/// ([`Analysis::spec_runner`]): development and secret-injecting runners
/// (`uv run`, `poetry run`, `pnpm exec`, `dotenv --`, `op run --`), display
/// and session wrappers (`xvfb-run`, `dbus-launch`, `ssh-agent`), resource
/// and namespace wrappers (`cgexec`, `nsenter`, `bwrap`, `proot`) (review-s8
/// F1).
struct Spec {
    name: &'static str,
    /// The subcommands that run a command (`uv run`); empty: the program
    /// itself does. Another subcommand is not a runner (`uv pip …`).
    subs: &'static [&'static str],
    /// Options taking a value (the next word, or attached: `--opt=V`, `-oV`).
    values: &'static [&'static str],
    /// Options taking two values (`bwrap --bind SRC DEST`).
    pairs: &'static [&'static str],
    /// Options whose value is shell text (`nix-shell --run TEXT`).
    scripts: &'static [&'static str],
    /// Flags after which the command's words are joined and run by a shell
    /// (`pnpm exec -c`).
    shell_flags: &'static [&'static str],
    /// Operands before the command (`direnv exec DIR`, `aws-vault exec P`).
    operands: usize,
    /// Its operands before a `--` are not the command (`mise exec node@20
    /// -- CMD`); otherwise `--` ends its options only where they are.
    after_dashdash: bool,
    /// Its operands are a command (`nix-shell` without `--run` opens a
    /// shell on its files: no command).
    runs_operands: bool,
    /// How its operands are run: as argv, joined into one shell text
    /// (`watchexec CMD…`, `bun exec TEXT`), or each one a shell text of
    /// its own (`hyperfine 'A' 'B'`, `concurrently 'A' 'B'`).
    shell: Shell,
    /// The program's getopt table, for a runner that reads its options
    /// with getopt (clusters, unique long prefixes): its options are read
    /// by it instead of `values`, and an option it lacks holds the call
    /// (review s17 Q14).
    getopt: Option<&'static crate::opts::getopt::Spec>,
}

/// How a [`Spec`] runner runs its operands.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shell {
    Argv,
    Joined,
    Each,
}

const fn spec(
    name: &'static str,
    subs: &'static [&'static str],
    values: &'static [&'static str],
) -> Spec {
    Spec {
        name,
        subs,
        values,
        pairs: &[],
        scripts: &[],
        shell_flags: &[],
        operands: 0,
        after_dashdash: false,
        runs_operands: true,
        shell: Shell::Argv,
        getopt: None,
    }
}

/// A runner that reads its options with getopt, by table `g`.
const fn getopt_spec(name: &'static str, g: &'static crate::opts::getopt::Spec) -> Spec {
    Spec {
        getopt: Some(g),
        ..spec(name, &[], &[])
    }
}

const PY_VALUES: &[&str] = &[
    "-p",
    "--python",
    "--with",
    "--with-editable",
    "--with-requirements",
    "--directory",
    "--project",
    "--env-file",
    "--extra",
    "--group",
    "--only-group",
    "--no-group",
    "--package",
    "--index",
    "--default-index",
    "-i",
    "--index-url",
    "--extra-index-url",
    "-f",
    "--find-links",
    "--config-file",
    "--cache-dir",
    "--from",
    "-C",
    "-P",
    "-e",
    "--env",
    "-n",
    "--name",
    "--prefix",
    "--cwd",
    "-w",
    "--workspace",
];

const SPECS: &[Spec] = &[
    spec("uv", &["run"], PY_VALUES),
    spec("uvx", &[], PY_VALUES),
    spec("poetry", &["run"], PY_VALUES),
    spec("pipenv", &["run"], PY_VALUES),
    spec("pdm", &["run"], PY_VALUES),
    spec("hatch", &["run"], PY_VALUES),
    spec("rye", &["run"], PY_VALUES),
    spec("pixi", &["run", "exec"], PY_VALUES),
    spec("conda", &["run"], PY_VALUES),
    spec("mamba", &["run"], PY_VALUES),
    spec("micromamba", &["run"], PY_VALUES),
    spec("bundle", &["exec"], &["--gemfile"]),
    Spec {
        shell_flags: &["-c", "--shell-mode"],
        ..spec(
            "pnpm",
            &["exec", "dlx"],
            &[
                "-C",
                "--dir",
                "-F",
                "--filter",
                "--workspace-dir",
                "--package",
            ],
        )
    },
    spec("pnpx", &[], &["--package"]),
    spec("yarn", &["exec", "dlx"], &["--cwd", "-p", "--package"]),
    Spec {
        scripts: &["-c", "--call"],
        ..spec(
            "npm",
            &["exec", "x"],
            &["-w", "--workspace", "-p", "--package", "--prefix", "-C"],
        )
    },
    spec("bunx", &[], &["-p", "--package"]),
    spec("bun", &["x"], &["-p", "--package", "--cwd"]),
    Spec {
        scripts: &["-c", "--command"],
        after_dashdash: true,
        ..spec(
            "mise",
            &["exec", "x"],
            &["-C", "--cd", "-j", "--jobs", "-E", "--env"],
        )
    },
    Spec {
        after_dashdash: true,
        ..spec("rtx", &["exec", "x"], &["-C", "--cd", "-j", "--jobs"])
    },
    spec("asdf", &["exec"], &[]),
    Spec {
        operands: 1,
        ..spec("direnv", &["exec"], &[])
    },
    Spec {
        scripts: &["--run", "--command"],
        pairs: &["--arg", "--argstr", "--option"],
        runs_operands: false,
        ..spec(
            "nix-shell",
            &[],
            &["-I", "-A", "--attr", "-E", "--expr", "-j", "--max-jobs"],
        )
    },
    spec(
        "devbox",
        &["run"],
        &["-c", "--config", "-e", "--env", "--env-file"],
    ),
    spec("dotenv", &[], &["-e", "-v", "-p"]),
    spec(
        "dotenvx",
        &["run"],
        &["-f", "--env-file", "-e", "--env", "--convention"],
    ),
    spec(
        "op",
        &["run"],
        &["--env-file", "--account", "--session", "--config"],
    ),
    Spec {
        scripts: &["--command"],
        ..spec(
            "doppler",
            &["run"],
            &[
                "-p",
                "--project",
                "-c",
                "--config",
                "--token",
                "--scope",
                "--mount",
                "--mount-format",
                "--mount-template",
                "--fallback",
                "--name-transformer",
                "--configuration",
            ],
        )
    },
    spec(
        "infisical",
        &["run"],
        &["--env", "--path", "--projectId", "--token", "--domain"],
    ),
    Spec {
        operands: 1,
        ..spec(
            "aws-vault",
            &["exec"],
            &[
                "-d",
                "--duration",
                "-t",
                "--mfa-token",
                "-r",
                "--region",
                "--prompt",
                "--backend",
            ],
        )
    },
    getopt_spec("xvfb-run", &crate::opts::runopts::XVFB_RUN),
    spec("dbus-launch", &[], &["--config-file", "--autolaunch"]),
    getopt_spec("ssh-agent", &crate::opts::runopts::SSH_AGENT),
    getopt_spec("systemd-inhibit", &crate::opts::runopts::SYSTEMD_INHIBIT),
    getopt_spec("cgexec", &crate::opts::runopts::CGEXEC),
    getopt_spec("nsenter", &crate::opts::runopts::NSENTER),
    Spec {
        pairs: &[
            "--bind",
            "--bind-try",
            "--ro-bind",
            "--ro-bind-try",
            "--dev-bind",
            "--dev-bind-try",
            "--symlink",
            "--setenv",
            "--file",
            "--bind-data",
            "--ro-bind-data",
            "--chmod",
            "--ro-overlay",
        ],
        ..spec(
            "bwrap",
            &[],
            &[
                "--chdir",
                "--proc",
                "--dev",
                "--tmpfs",
                "--dir",
                "--uid",
                "--gid",
                "--hostname",
                "--unsetenv",
                "--remount-ro",
                "--perms",
                "--size",
                "--seccomp",
                "--args",
                "--lock-file",
                "--sync-fd",
                "--info-fd",
                "--json-status-fd",
                "--block-fd",
                "--userns-block-fd",
                "--cap-add",
                "--cap-drop",
                "--exec-label",
                "--file-label",
                "--mqueue",
                "--overlay-src",
                "--tmp-overlay",
                "--argv0",
                "--userns",
                "--userns2",
                "--pidns",
            ],
        )
    },
    spec(
        "proot",
        &[],
        &[
            "-r",
            "--rootfs",
            "-b",
            "--bind",
            "-m",
            "--mount",
            "-w",
            "--pwd",
            "--cwd",
            "-q",
            "--qemu",
            "-k",
            "--kernel-release",
            "-v",
            "--verbose",
        ],
    ),
    spec(
        "sem",
        &[],
        &[
            "-j",
            "--jobs",
            "--id",
            "--semaphorename",
            "--timeout",
            "--st",
            "--semaphoretimeout",
        ],
    ),
    spec("with-contenv", &[], &[]),
    getopt_spec("daemonize", &crate::opts::runopts::DAEMONIZE),
    Spec {
        after_dashdash: true,
        runs_operands: false,
        ..spec("flox", &["activate"], &["-d", "--dir", "-r", "--remote"])
    },
    Spec {
        operands: 1,
        ..spec("setuidgid", &[], &[])
    },
    Spec {
        operands: 1,
        ..spec("envdir", &[], &[])
    },
    getopt_spec("setpriv", &crate::opts::runopts::SETPRIV),
    getopt_spec("prlimit", &crate::opts::runopts::PRLIMIT),
    // `entr -s TEXT`: the shell text is run by `$SHELL -c`.
    Spec {
        shell_flags: &["-s"],
        ..spec("entr", &[], &[])
    },
    // `nodemon --exec TEXT [SCRIPT]`: the text is run by a shell; without
    // `--exec` it runs node on a script (no command).
    Spec {
        scripts: &["--exec", "-x"],
        runs_operands: false,
        ..spec(
            "nodemon",
            &[],
            &[
                "-w", "--watch", "-e", "--ext", "-i", "--ignore", "-d", "--delay", "--signal",
                "--config", "-C", "--cwd", "--spawn",
            ],
        )
    },
    // `watchexec [OPTIONS] [--] CMD…`: the command is joined and run by a
    // shell (`--shell`/`-s` names which, `-n`/`--shell=none` does not
    // change what runs).
    Spec {
        shell: Shell::Joined,
        ..spec(
            "watchexec",
            &[],
            &[
                "-w",
                "--watch",
                "-W",
                "--watch-non-recursive",
                "-e",
                "--exts",
                "-f",
                "--filter",
                "-i",
                "--ignore",
                "-s",
                "--shell",
                "--signal",
                "--stop-signal",
                "--stop-timeout",
                "-d",
                "--debounce",
                "--delay-run",
                "--on-busy-update",
                "-E",
                "--env",
                "--workdir",
                "--project-origin",
                "--ignore-file",
                "--filter-file",
                "--filter-prog",
                "--emit-events-to",
                "--color",
                "--log-file",
                "--socket",
                "--fs-events",
                "--wrap-process",
            ],
        )
    },
    // `hyperfine [OPTIONS] 'A' 'B'`: each operand, and each of
    // `--prepare`/`--setup`/`--cleanup`/`--conclude`/`--reference`, is a
    // shell text.
    Spec {
        scripts: &[
            "-p",
            "--prepare",
            "-s",
            "--setup",
            "-c",
            "--cleanup",
            "--conclude",
            "--reference",
        ],
        pairs: &["-L", "--parameter-list"],
        shell: Shell::Each,
        ..spec(
            "hyperfine",
            &[],
            &[
                "-w",
                "--warmup",
                "-m",
                "--min-runs",
                "-M",
                "--max-runs",
                "-r",
                "--runs",
                "-D",
                "--parameter-step-size",
                "-S",
                "--shell",
                "-u",
                "--time-unit",
                "--export-asciidoc",
                "--export-csv",
                "--export-json",
                "--export-markdown",
                "--export-orgmode",
                "--output",
                "--input",
                "-n",
                "--command-name",
                "--style",
                "--sort",
                "--min-benchmarking-time",
            ],
        )
    },
    // `concurrently [OPTIONS] 'A' 'B'`: each operand is a shell text.
    Spec {
        shell: Shell::Each,
        ..spec(
            "concurrently",
            &[],
            &[
                "-n",
                "--names",
                "--name-separator",
                "-s",
                "--success",
                "-p",
                "--prefix",
                "-c",
                "--prefix-colors",
                "-l",
                "--prefix-length",
                "-t",
                "--timestamp-format",
                "--default-input-target",
                "--restart-tries",
                "--restart-after",
                "-m",
                "--max-processes",
                "--hide",
                "--kill-signal",
                "--pad-prefix",
            ],
        )
    },
    // `bun exec 'TEXT'`: Bun's shell runs the text.
    Spec {
        shell: Shell::Joined,
        ..spec("bun", &["exec"], &["--cwd"])
    },
];

/// The spec of runner `name` used with `args` (its subcommand given).
fn spec_of(name: &str, args: &[Field]) -> Option<&'static Spec> {
    SPECS.iter().filter(|s| s.name == name).find(|spec| {
        if spec.subs.is_empty() {
            return true;
        }
        // Global options may come before the subcommand (`poetry -C dir run`).
        let i = skip_options(args, spec.values);
        args.get(i)
            .is_some_and(|sub| spec.subs.contains(&sub.text().as_str()))
    })
}

/// Whether `name` is a runner of this module when given `args`.
pub(crate) fn is_runner(name: &str, args: &[Field]) -> bool {
    spec_of(name, args).is_some()
        || name == "start-stop-daemon"
        || name == "rimraf"
        || matches!(
            name,
            "chronic"
                | "dbus-run-session"
                | "valgrind"
                | "firejail"
                | "unshare"
                | "faketime"
                | "cpulimit"
                | "runuser"
                | "sg"
                | "at"
                | "batch"
                | "tmux"
                | "screen"
                | "byobu"
                | "byobu-tmux"
                | "byobu-screen"
                | "dtach"
                | "abduco"
                | "zellij"
                | "rlwrap"
                | "py"
        )
}

/// The shell text of a script option of `spec` at `args[i]`
/// (`--run TEXT`, `--run=TEXT`, `-cTEXT`).
fn spec_script(spec: &Spec, args: &[Field], i: usize) -> Option<Field> {
    let t = args.get(i)?.text();
    spec.scripts.iter().find_map(|o| {
        if t == *o {
            args.get(i + 1).cloned()
        } else if let Some(v) = t.strip_prefix(o).and_then(|r| r.strip_prefix('=')) {
            Some(Field::lit(v))
        } else if o.len() == 2 && !o.starts_with("--") {
            t.strip_prefix(o)
                .filter(|v| !v.is_empty() && !t.starts_with("--"))
                .map(Field::lit)
        } else {
            None
        }
    })
}

/// Whether short-option cluster `word` (`-qp`) ends in an option of
/// `values` that then takes the next word as its value, as getopt and
/// clap read a cluster: the first value-taking letter takes the rest of
/// the word, or the next word when it is last (`uv run -qp 3.12 CMD`).
fn cluster_ends_in_value(word: &str, values: &[&str]) -> bool {
    let Some(body) = word
        .strip_prefix('-')
        .filter(|b| b.len() > 1 && !b.starts_with('-'))
    else {
        return false;
    };
    for (k, c) in body.char_indices() {
        if values.contains(&format!("-{c}").as_str()) {
            return k + c.len_utf8() == body.len();
        }
    }
    false
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
        if let Some(spec) = spec_of(name, args) {
            return self.spec_runner(spec, args, env, depth, stdin);
        }
        match name {
            // `start-stop-daemon --start --exec PATH -- ARGS`.
            "start-stop-daemon" => {
                // `--stop` signals the processes it selects (review s19
                // S10), read with its table in `effects/selfstate/signals.rs`.
                self.toolvet_signals(name, args, false, env);
                let program = args.iter().enumerate().find_map(|(i, a)| {
                    let t = a.text();
                    if matches!(t.as_str(), "--exec" | "-x" | "--startas" | "-a") {
                        args.get(i + 1).cloned()
                    } else {
                        t.strip_prefix("--exec=")
                            .or_else(|| t.strip_prefix("--startas="))
                            .map(Field::lit)
                    }
                });
                match program {
                    Some(p) => {
                        let mut cmd = vec![p];
                        if let Some(d) = args.iter().position(|a| a.text() == "--") {
                            cmd.extend(args[d + 1..].iter().cloned());
                        }
                        Run::Command(cmd)
                    }
                    None => Run::Done(Output::Unknown),
                }
            }
            // npm's `rm -rf` (`bunx rimraf ~`): its operands removed whole.
            "rimraf" => {
                let mut cmd = vec![Field::lit("rm"), Field::lit("-rf"), Field::lit("--")];
                cmd.extend(args.iter().filter(|a| !a.text().starts_with('-')).cloned());
                Run::Command(cmd)
            }
            "chronic" | "valgrind" | "firejail" => rest(skip_options(args, &[])),
            // The Windows Python launcher: `py -3.12 -m MODULE`, `py
            // -V:3.12 SCRIPT` run Python with the rest, as `python` does.
            "py" => {
                let version = args.first().map(Field::text).is_some_and(|t| {
                    t.starts_with("-V:")
                        || t.strip_prefix('-').is_some_and(|v| {
                            v.starts_with(|c: char| c.is_ascii_digit())
                                && v.chars()
                                    .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-'))
                        })
                });
                let mut cmd = vec![Field::lit("python")];
                cmd.extend(args.iter().skip(usize::from(version)).cloned());
                Run::Command(cmd)
            }
            "dbus-run-session" => rest(skip_options(args, &["--config-file", "--dbus-daemon"])),
            "unshare" => {
                let p = self.runner_options(name, &crate::opts::runopts::UNSHARE, args, false);
                rest(p.end)
            }
            // `faketime '2020-01-01' CMD`: the first operand is the time.
            "faketime" => rest(skip_options(args, &["-m", "-f"]) + 1),
            // `cpulimit -l 10 [--] CMD…` runs CMD (review s16 P6); with
            // `-p`/`-e`/`-P` it limits a running process (see
            // `process_control`) and runs nothing.
            "cpulimit" => {
                let p = self.runner_options(name, &crate::opts::runopts::CPULIMIT, args, false);
                rest(p.end)
            }
            "runuser" => {
                let p = self.runner_options(name, &crate::opts::runopts::RUNUSER, args, false);
                let script = p.found.iter().rev().find_map(|f| {
                    matches!(f.opt.name, "command" | "session-command")
                        .then(|| f.value.clone())
                        .flatten()
                });
                match script {
                    Some(script) => {
                        Run::Done(self.run_script_field(&script, env, depth, stdin, "runuser -c"))
                    }
                    // `runuser [-] USER CMD…` without `-u`: the first
                    // operand is the user (a lone `-` is `--login`).
                    None => {
                        let mut operands = p.operands.iter().map(|&k| &args[k]).peekable();
                        if operands.peek().is_some_and(|a| a.text() == "-") {
                            operands.next();
                        }
                        let skip = usize::from(!p.has("user"));
                        Run::Command(operands.skip(skip).cloned().collect())
                    }
                }
            }
            "sg" => self.sg(args, env, depth, stdin),
            // `rlwrap [OPTIONS] CMD…` (review s19 S18): a filter (`-z`) or
            // pre-given input (`-P`) runs or types what is not read.
            "rlwrap" => {
                let p = self.runner_options(name, &crate::opts::runopts::RLWRAP, args, false);
                if p.has("filter") || p.has("pre-given") {
                    return self.hold_runner("rlwrap", "a filter or pre-given input");
                }
                let files: Vec<Field> = p
                    .values("logfile")
                    .chain(p.values("history-filename"))
                    .cloned()
                    .collect();
                for f in &files {
                    self.runner_write("rlwrap", f, env, depth);
                }
                self.unknown_onto_toolvet_state(name, &args[..p.end.min(args.len())], env);
                rest(p.end)
            }
            "dtach" | "abduco" => self.session_runner(name, args, env, depth),
            "zellij" => self.zellij(args, env, depth),
            "at" | "batch" => {
                let p = self.runner_options(name, &crate::opts::runopts::AT, args, false);
                if let Some(file) = p.values("f").last() {
                    self.program_file(name, file, env, depth);
                } else {
                    self.stdin_program(name, stdin, env, depth, true);
                }
                Run::Done(Output::Unknown)
            }
            // byobu hands its arguments to tmux (or screen): read as
            // tmux, whose strict tables hold screen's forms (review s19 S18).
            "tmux" | "byobu" | "byobu-tmux" | "screen" | "byobu-screen" => {
                if name.starts_with("byobu") {
                    self.byobu_vars(env);
                }
                self.unknown_onto_toolvet_state(name, args, env);
                if name.contains("screen") {
                    self.screen(args, env, depth)
                } else {
                    self.tmux(args, env, depth)
                }
            }
            _ => Run::Done(Output::Unknown),
        }
    }

    /// The command a [`Spec`] runner runs: past its subcommand and its
    /// options (values skipped; a script option's text judged as shell
    /// text), its operands, or after `--`.
    fn spec_runner(
        &mut self,
        spec: &Spec,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) -> Run {
        let mut i = 0;
        if !spec.subs.is_empty() {
            i = skip_options(args, spec.values) + 1;
        }
        if spec.shell == Shell::Each {
            return self.spec_each(spec, args.get(i..).unwrap_or(&[]), env, depth, stdin);
        }
        // A script option anywhere (`nix-shell -p hello --run TEXT`).
        if let Some(run) = self.spec_scripts(spec, args.get(i..).unwrap_or(&[]), env, depth, stdin)
        {
            return run;
        }
        if spec.after_dashdash
            && let Some(d) = args[i.min(args.len())..]
                .iter()
                .position(|a| a.text() == "--")
        {
            let before = &args[i..i + d];
            let cmd = args[i + d + 1..].to_vec();
            return self.spec_command(spec, before, cmd, env, depth);
        }
        let mut operands = spec.operands;
        // GNU `sem` reads its options with Perl's Getopt::Long, which
        // takes unique abbreviations (`--jo 2`).
        if spec.name == "sem"
            && let Some(o) = crate::opts::runopts::abbreviated_value_option(
                &args[i.min(args.len())..],
                spec.values,
            )
        {
            self.hold_options(spec.name, &format!("`{o}`, an abbreviation"));
        }
        if let Some(g) = spec.getopt {
            let p = self.runner_options(spec.name, g, &args[i.min(args.len())..], false);
            i += p.end;
            i += operands;
            operands = 0;
        }
        while let Some(a) = args.get(i).filter(|_| spec.getopt.is_none()) {
            let t = a.text();
            if t == "--" {
                i += 1;
                break;
            }
            if t.starts_with('-') && t.len() > 1 {
                let key = t.split('=').next().unwrap_or(&t);
                i += if t.contains('=') {
                    1
                } else if spec.pairs.contains(&key) {
                    3
                } else if spec.values.contains(&key) || cluster_ends_in_value(&t, spec.values) {
                    2
                } else {
                    1
                };
                continue;
            }
            if operands > 0 {
                operands -= 1;
                i += 1;
                continue;
            }
            break;
        }
        if !spec.runs_operands {
            return Run::Done(Output::Unknown);
        }
        let before = &args[..i.min(args.len())];
        let cmd = args.get(i..).unwrap_or(&[]).to_vec();
        self.spec_command(spec, before, cmd, env, depth)
    }

    /// A runner whose operands and script options are each a shell text
    /// (`hyperfine --prepare 'P' 'A' 'B'`, `concurrently 'A' 'B'`): every
    /// one judged as `sh -c` of it.
    fn spec_each(
        &mut self,
        spec: &Spec,
        words: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) -> Run {
        let mut i = 0;
        let mut dashdash = false;
        while i < words.len() && !self.done() {
            let t = words[i].text();
            if !dashdash && t == "--" {
                dashdash = true;
                i += 1;
                continue;
            }
            if !dashdash && t.starts_with('-') && t.len() > 1 {
                if let Some(script) = spec_script(spec, words, i) {
                    self.run_script_field(&script, env, depth, stdin, spec.name);
                    i += if t.contains('=') || (t.len() > 2 && !t.starts_with("--")) {
                        1
                    } else {
                        2
                    };
                    continue;
                }
                let key = t.split('=').next().unwrap_or(&t);
                i += if t.contains('=') {
                    1
                } else if matches!(key, "-P" | "--parameter-scan") {
                    // hyperfine's `-P VAR MIN MAX`.
                    4
                } else if spec.pairs.contains(&key) {
                    3
                } else if spec.values.contains(&key) || cluster_ends_in_value(&t, spec.values) {
                    2
                } else {
                    1
                };
                continue;
            }
            let text = words[i].clone();
            self.run_script_field(&text, env, depth, stdin, spec.name);
            i += 1;
        }
        Run::Done(Output::Unknown)
    }

    /// The first script option of `spec` among `words`, judged.
    fn spec_scripts(
        &mut self,
        spec: &Spec,
        words: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) -> Option<Run> {
        let script = (0..words.len()).find_map(|i| spec_script(spec, words, i))?;
        Some(Run::Done(
            self.run_script_field(&script, env, depth, stdin, spec.name),
        ))
    }

    /// The command words `cmd` of a [`Spec`] runner: run, or joined for a
    /// shell when one of its shell flags is among `options`.
    fn spec_command(
        &mut self,
        spec: &Spec,
        options: &[Field],
        cmd: Vec<Field>,
        env: &mut Env,
        depth: u32,
    ) -> Run {
        if cmd.is_empty() {
            return Run::Done(Output::Unknown);
        }
        if spec.shell == Shell::Joined
            || options.iter().any(|o| {
                let t = o.text();
                spec.shell_flags.iter().any(|f| {
                    t == *f
                        // A short flag in a cluster (`entr -rs TEXT`).
                        || (f.len() == 2
                            && !f.starts_with("--")
                            && !t.starts_with("--")
                            && t.starts_with('-')
                            && t[1..].chars().all(|c| c.is_ascii_alphabetic())
                            && t[1..].contains(&f[1..]))
                })
            })
        {
            return self.shell_words(&cmd, env, depth, spec.name);
        }
        Run::Command(cmd)
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

    /// Judge `words` as the shell text a tmux or screen *server* runs:
    /// joined, in [`server_env`] (review s19 S14), in the directory `at`
    /// (review s21 U3). In a directory the check does not know ([`At::Pane`]),
    /// a remover or writer naming a path relative to it is held.
    fn server_words(
        &mut self,
        words: &[Field],
        env: &mut Env,
        depth: u32,
        via: &str,
        at: &At,
    ) -> Run {
        if words.is_empty() {
            return Run::Done(Output::Unknown);
        }
        let mut server = server_env(env);
        match at {
            At::Caller => {}
            At::Dir(d) => server.cwd = Cwd::Known(d.clone()),
            At::Pane => server.cwd = Cwd::Unknown,
        }
        if matches!(at, At::Pane) {
            self.anywhere(&join(words), &server, depth, via);
        }
        let saved = matches!(at, At::Pane).then(|| self.unplaced.replace(Some(None)));
        let out = self.run_script_field(&join(words), &mut server, depth, &Output::Unknown, via);
        if let Some(saved) = saved
            && let Some(Some(path)) = self.unplaced.replace(saved)
        {
            self.hold_runner(
                via,
                &format!(
                    "text that writes or removes `{path}`, a path relative to a pane's working directory, \
                     which the check does not know"
                ),
            );
        }
        env.absorb_files(&server);
        Run::Done(out)
    }

    /// Text run in a pane whose directory is unknown must be harmless
    /// wherever the pane is: it is judged again as if the pane were in
    /// each directory where a relative path reaches what the check
    /// guards (the home, toolvet's state paths and the directories that
    /// hold them); a finding in any of them holds the text (review s21 U3).
    fn anywhere(&mut self, text: &Field, server: &Env, depth: u32, via: &str) {
        let mut dirs: Vec<String> = self.home.iter().cloned().collect();
        for p in &self.state.state {
            dirs.push(p.clone());
            if let Some((parent, _)) = p.rsplit_once('/').filter(|(d, _)| !d.is_empty()) {
                dirs.push(parent.to_string());
            }
        }
        dirs.dedup();
        for dir in dirs {
            let saved = self.best.take();
            let mut e = server.clone();
            e.cwd = Cwd::Known(dir.clone());
            self.run_script_field(text, &mut e, depth, &Output::Unknown, via);
            let found = std::mem::replace(&mut self.best, saved);
            if let Some(f) = found {
                self.hold_runner(
                    via,
                    &format!(
                        "text run in a pane whose working directory the check does not know; if it were `{dir}`, \
                         it would be stopped ({}: {})",
                        f.rule, f.message
                    ),
                );
                return;
            }
        }
    }

    /// Judge `argv`, a program and its arguments a server executes
    /// directly (`screen -X exec CMD ARGS`, `dtach -n S CMD ARGS`), as
    /// that command run in [`server_env`]: each word quoted for the
    /// shell, so nothing in them expands again. A word only known at run
    /// time: held.
    fn server_argv(
        &mut self,
        argv: &[Field],
        env: &mut Env,
        depth: u32,
        via: &str,
        at: &At,
    ) -> Run {
        if argv.is_empty() {
            return Run::Done(Output::Unknown);
        }
        let mut quoted = Vec::new();
        for a in argv {
            let Some(t) = a.static_text() else {
                return self.hold_runner(via, &format!("`{}`, only known at run time", a.text()));
            };
            quoted.push(format!("'{}'", t.replace('\'', r"'\''")));
        }
        self.server_words(&[Field::lit(quoted.join(" "))], env, depth, via, at)
    }

    /// The first of `names` the call itself assigned, exported or put
    /// before the command (the state starts with no variables): a tmux or
    /// screen server started now reads its configuration file (commands it
    /// runs) by them (tmux: `~/.tmux.conf`, `$XDG_CONFIG_HOME/tmux/tmux.conf`;
    /// screen: `$SCREENRC`, `~/.screenrc`).
    fn config_vars_set<'a>(&self, env: &Env, names: &[&'a str]) -> Option<&'a str> {
        names
            .iter()
            .copied()
            .find(|n| env.vars.contains_key(*n) || self.command_vars.iter().any(|c| c == n))
    }

    /// byobu is a shell script that sources files its variables choose
    /// (`. $BYOBU_PREFIX/lib/byobu/include/common`, tmux `source-file
    /// $BYOBU_CONFIG_DIR/profile.tmux`, `$HOME/.byoburc`): any `BYOBU_*`,
    /// `HOME` or `XDG_CONFIG_HOME` set by the call is held (review s21 U14).
    fn byobu_vars(&mut self, env: &Env) {
        let chooses = |n: &str| n.starts_with("BYOBU") || n == "HOME" || n == "XDG_CONFIG_HOME";
        let set = env
            .vars
            .keys()
            .chain(self.command_vars.iter())
            .find(|n| chooses(n))
            .cloned();
        if let Some(v) = set {
            self.hold_runner(
                "byobu",
                &format!(
                    "`{v}` set by this call, which chooses the shell and tmux files byobu runs"
                ),
            );
        }
    }

    /// Hold runner `via`, given `what` it cannot place.
    fn hold_runner(&mut self, via: &str, what: &str) -> Run {
        self.report(
            false,
            "shell.eval-dynamic",
            format!(
                "`{via}` is given {what}, so what it runs cannot be checked. A person must approve it as it is."
            ),
        );
        Run::Done(Output::Unknown)
    }

    /// A directory given literally: absolute after `~` expansion, with no
    /// expansion left and no `#` (tmux expands `-c` as a format).
    fn literal_dir(&self, dir: &Field) -> Option<String> {
        if dir.text().contains('#') {
            return None;
        }
        self.abs_path(dir, &Env::fresh(Cwd::None))
    }

    /// A file a runner writes through its own options or operands (`tmux
    /// -S SOCKET`: removed, then a socket made there; `screen -Logfile`,
    /// `rlwrap -l`: appended to; `script FILE`, `dtach -n SOCKET`): judged
    /// as any other write (toolvet's state, a guard rail, a dotfile); a path
    /// the check cannot place is held (review s21 U10).
    pub(crate) fn runner_write(&mut self, via: &str, path: &Field, env: &mut Env, depth: u32) {
        if self.abs_path(path, env).is_none() {
            self.hold_runner(
                via,
                &format!(
                    "`{}`, a file it writes that the check cannot place",
                    path.text()
                ),
            );
            return;
        }
        self.check_write(
            path,
            env,
            &Output::Unknown,
            &format!("`{via}`"),
            true,
            depth,
        );
    }

    /// The files `script` writes: its typescript operand and its log
    /// options ([`crate::opts::runopts::SCRIPT`]).
    pub(crate) fn script_writes(&mut self, args: &[Field], env: &mut Env, depth: u32) {
        let p = crate::opts::getopt::parse(&crate::opts::runopts::SCRIPT, args);
        let files: Vec<Field> = ["log-io", "log-in", "log-out", "log-timing", "timing"]
            .iter()
            .flat_map(|o| p.values(o).cloned().collect::<Vec<_>>())
            .chain(p.operands.iter().map(|&k| args[k].clone()))
            .collect();
        for f in &files {
            self.runner_write("script", f, env, depth);
        }
        self.unknown_onto_toolvet_state("script", args, env);
    }
}

/// The working directory text a multiplexer's server runs starts in
/// (review s21 U3). The property: such text is judged only when its
/// directory, its environment and its text are all known; otherwise it is
/// held.
pub(crate) enum At {
    /// The calling shell's: a session or command started by this client
    /// (`tmux new CMD`, `screen -dm CMD`, `dtach -n S CMD`, `zellij run`).
    Caller,
    /// A literal absolute directory the call gives (`tmux new -c DIR`,
    /// `display-popup -d DIR`, `zellij run --cwd DIR`).
    Dir(String),
    /// A pane's or window's own directory, which the check does not know
    /// (`send-keys`, `screen -X stuff`, `respawn-pane` without `-c`,
    /// `default-command`): a remover or writer of a relative path is held.
    Pane,
}

/// Variables that change no code a shell, the loader or a program runs:
/// the only ones a multiplexer's server or a new pane may be given
/// (`tmux setenv`, `new -e NAME=VAL`) without a person's approval (review
/// s21 U8). Any other (`PROMPT_COMMAND`, `BASH_ENV`, `LD_PRELOAD`, `PATH`,
/// `PS1`, `NODE_OPTIONS`, `GIT_*`, …) is held.
const INERT_VARS: &[&str] = &[
    "TERM",
    "COLORTERM",
    "LANG",
    "LANGUAGE",
    "TZ",
    "COLUMNS",
    "LINES",
    "NO_COLOR",
    "CLICOLOR",
];

/// Whether variable `name` is one of [`INERT_VARS`] or a locale `LC_*`.
fn inert_var(name: &str) -> bool {
    INERT_VARS.contains(&name)
        || name
            .strip_prefix("LC_")
            .is_some_and(|r| !r.is_empty() && r.chars().all(|c| c.is_ascii_uppercase()))
}

/// The environment a tmux or screen server runs text in: the server's own,
/// set when it started, not the calling shell's. Variables, aliases and
/// functions the call sets are dropped, so `$HOME` is the real home and a
/// variable the call made is unknown (review s19 S14); files it wrote are
/// kept.
fn server_env(env: &Env) -> Env {
    let mut e = env.clone();
    e.vars.clear();
    e.names.clear();
    e.loop_globs.clear();
    e.cdable_vars = false;
    e
}
