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
                // S10), read with its table in `selfstate.rs`.
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

    /// tmux's shell text (`run-shell CMD`, `new-session CMD`, an if-shell
    /// condition, `default-command`): run by the server with `sh -c` in
    /// its own environment. run-shell, if-shell and pipe-pane first expand
    /// it as a format (`#{l:k}` is `k`, `#{s/a/b/:…}`, `##`): text with a
    /// `#` is held, whatever the command (review s19 S1).
    fn tmux_shell(
        &mut self,
        words: &[Field],
        env: &mut Env,
        depth: u32,
        via: &str,
        at: &At,
    ) -> Run {
        if words.iter().any(|w| w.text().contains('#')) {
            return self.hold_tmux(
                "shell text with `#`, which tmux may expand as a format before running it",
            );
        }
        self.server_words(words, env, depth, via, at)
    }

    /// `tmux [OPTIONS] COMMAND …`: tmux's own options (`-c TEXT` runs
    /// TEXT), then a tmux command list, read by [`Analysis::tmux_commands`]
    /// in the server's environment. `-f FILE` (a configuration file: tmux
    /// commands) and `-C`/`-CC` (control mode: tmux commands on standard
    /// input) run commands the check does not see: held (review s19 S9).
    fn tmux(&mut self, args: &[Field], env: &mut Env, depth: u32) -> Run {
        let p = self.runner_options("tmux", &crate::opts::runopts::TMUX, args, false);
        if let Some(text) = p.values("c").last() {
            return Run::Done(self.run_script_field(text, env, depth, &Output::Unknown, "tmux -c"));
        }
        // `-f /dev/null` reads no commands (review s21 W2).
        if p.values("f")
            .any(|f| f.static_text().as_deref() != Some("/dev/null"))
        {
            return self.hold_tmux("`-f FILE`, a file of tmux commands");
        }
        if p.has("C") {
            return self.hold_tmux("`-C` (control mode: tmux commands on standard input)");
        }
        // `-S PATH`: the client removes PATH and the server binds its
        // socket there (client.c `client_connect`).
        for s in p.values("S").cloned().collect::<Vec<_>>() {
            self.runner_write("tmux -S", &s, env, depth);
        }
        if let Some(v) = self.config_vars_set(env, &["TMUX_TMPDIR"]) {
            self.hold_tmux(&format!(
                "`{v}` set by this call: the directory its socket is made in"
            ));
        }
        // Held, and its commands still read (they may be denied).
        if let Some(v) = self.config_vars_set(env, &["HOME", "XDG_CONFIG_HOME"]) {
            self.hold_tmux(&format!(
                "`{v}` set by this call: a server it starts reads its configuration file (tmux commands) from there"
            ));
        }
        let mut server = server_env(env);
        let out = self.tmux_commands(&args[p.end.min(args.len())..], &mut server, depth);
        env.absorb_files(&server);
        out
    }

    /// A directory given literally: absolute after `~` expansion, with no
    /// expansion left and no `#` (tmux expands `-c` as a format).
    fn literal_dir(&self, dir: &Field) -> Option<String> {
        if dir.text().contains('#') {
            return None;
        }
        self.abs_path(dir, &Env::fresh(Cwd::None))
    }

    /// Where a tmux command that starts shell text runs it, and whether
    /// its environment is known (review s21 U3, U8): `-c DIR` (`-d DIR`
    /// for display-popup) a literal absolute directory, else held; without
    /// one, the client's directory, but a respawned pane's own (unknown)
    /// for `respawn-*` and `pipe-pane`, and the session's (unknown) for a
    /// command in a hook, binding or command list. Any `-e NAME=VAL` but an inert
    /// variable ([`INERT_VARS`]): held. `None`: held.
    fn tmux_spawn(
        &mut self,
        c: &crate::opts::tmuxopts::Command,
        p: &crate::opts::getopt::Parsed,
    ) -> Option<At> {
        let spawns = matches!(
            c.name,
            "new-session" | "new-window" | "split-window" | "respawn-pane" | "respawn-window"
        );
        if spawns || c.name == "display-popup" {
            for e in p.values("e") {
                let name = e
                    .static_text()
                    .map(|t| t.split('=').next().unwrap_or("").to_string());
                if !name.as_deref().is_some_and(inert_var) {
                    self.hold_tmux(&format!(
                        "`-e {}`, a variable for the new pane that may make its shell or programs run code",
                        e.text()
                    ));
                    return None;
                }
            }
        }
        let flag = match c.name {
            "display-popup" => "d",
            "run-shell" => "c",
            _ if spawns => "c",
            _ => "",
        };
        if let Some(d) = p.values(flag).last().filter(|_| !flag.is_empty()) {
            return match self.literal_dir(d) {
                Some(d) => Some(At::Dir(d)),
                None => {
                    self.hold_tmux(&format!(
                        "`-{flag} {}`, a start directory that is not a literal absolute path",
                        d.text()
                    ));
                    None
                }
            };
        }
        Some(match c.name {
            "respawn-pane" | "respawn-window" | "pipe-pane" => At::Pane,
            _ if self.tmux_nested > 0 => At::Pane,
            _ => At::Caller,
        })
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

    /// Hold a tmux command the check cannot place (`what`).
    fn hold_tmux(&mut self, what: &str) -> Run {
        self.report(
            false,
            "shell.eval-dynamic",
            format!(
                "tmux is given {what}, so what it runs cannot be checked. A person must approve it as it is; \
                 write tmux commands by their full names with the flags tmux documents."
            ),
        );
        Run::Done(Output::Unknown)
    }

    /// A tmux command list given as words (`CMD ARGS… \; CMD …`): tmux
    /// ends a command at a word `;`, or at a word ending in a `;` that is
    /// not escaped (cmd-parse.c `cmd_parse_from_arguments`).
    fn tmux_commands(&mut self, words: &[Field], env: &mut Env, depth: u32) -> Run {
        let mut out = Run::Done(Output::Unknown);
        let mut cmd: Vec<Field> = Vec::new();
        for w in words {
            let t = w.text();
            match t.strip_suffix(';') {
                Some(rest) if !rest.ends_with('\\') => {
                    if !rest.is_empty() {
                        cmd.push(Field::lit(rest));
                    }
                    out = self.tmux_command(&std::mem::take(&mut cmd), env, depth);
                }
                _ => cmd.push(w.clone()),
            }
        }
        if !cmd.is_empty() {
            out = self.tmux_command(&cmd, env, depth);
        }
        out
    }

    /// A tmux command list given as one argument (`if-shell C 'CMDS'`,
    /// `set-hook H 'CMDS'`), parsed by tmux as a line of its configuration:
    /// shell-like words, `;` between commands. Where tmux's parser and the
    /// shell's read the text differently ([`tmux_parse_differs`]), and
    /// braces (`{ … }`) and `%if` directives: held. `$VAR` is the
    /// server's (`env` is [`server_env`]).
    fn tmux_string(&mut self, field: &Field, env: &mut Env, depth: u32) -> Run {
        let Some(text) = field.static_text() else {
            return self.hold_tmux("a command list whose text is not known here");
        };
        if depth > self.opts.max_depth {
            return self.hold_tmux("tmux commands nested too deep");
        }
        if let Some(what) = tmux_parse_differs(&text) {
            return self.hold_tmux(&format!("a command list with {what}"));
        }
        let Ok(tokens) = crate::syntax::tokenize(&text) else {
            return self.hold_tmux("a command list the check cannot split");
        };
        let mut words = Vec::new();
        for t in &tokens {
            match t {
                brush_parser::Token::Word(w, _) => words.extend(self.expand_word(w, env, depth)),
                brush_parser::Token::Operator(o, _) if o == ";" || o == "\n" => {
                    words.push(Field::lit(";"));
                }
                brush_parser::Token::Operator(o, _) => {
                    return self.hold_tmux(&format!("`{o}` in a command list"));
                }
            }
        }
        if words.iter().any(|w| {
            let t = w.text();
            t == "{" || t == "}" || t.starts_with('%')
        }) {
            return self.hold_tmux("a command list with braces or `%` directives");
        }
        self.tmux_nested += 1;
        let out = self.tmux_commands(&words, env, depth + 1);
        self.tmux_nested -= 1;
        out
    }

    /// One tmux command: found by name, alias or unique prefix, its flags
    /// read by its template, its arguments judged by what they are
    /// ([`crate::opts::tmuxopts::Operands`]). `env` is the server's.
    fn tmux_command(&mut self, cmd: &[Field], env: &mut Env, depth: u32) -> Run {
        use crate::opts::tmuxopts::{
            Lookup, Operands, OptionValue, data_operands, lookup, option_value,
        };
        let Some(first) = cmd.first() else {
            return Run::Done(Output::Unknown);
        };
        let name = first.text();
        let c = match lookup(&name) {
            Lookup::One(c) if first.static_text().is_some() => c,
            Lookup::Ambiguous => {
                return self.hold_tmux(&format!("`{name}`, a prefix of several tmux commands"));
            }
            _ => {
                return self
                    .hold_tmux(&format!("`{name}`, a tmux command the check does not know"));
            }
        };
        let args = &cmd[1..];
        let p = crate::opts::getopt::parse(&c.spec, args);
        if !p.problems.is_empty() {
            let what = format!(
                "`{}` with {} (its flags: `{}`)",
                c.name,
                p.problems.join("; "),
                c.template
            );
            return self.hold_tmux(&what);
        }
        // A word that may expand to nothing moves every later word up
        // one place: a flag's value becomes the command (review s19 S6).
        if self.hold_vanishing(&format!("tmux {}", c.name), args, args.len()) {
            return Run::Done(Output::Unknown);
        }
        // A format's `#(CMD)` runs CMD with the shell; tmux can assemble
        // one from pieces (`#{l:#}(…)`, `#{E:@c}`): any `#` but a plain
        // one ([`tmux_format_plain`]) is held (review s21 U7).
        if args.iter().any(|a| a.text().contains("#(")) {
            return self.hold_tmux("a format with `#(…)`, which runs a shell command");
        }
        if let Some(a) = args.iter().find(|a| !tmux_format_plain(&a.text())) {
            return self.hold_tmux(&format!(
                "`{}`, a format tmux may expand into a `#(…)` shell command",
                a.text()
            ));
        }
        // `-F` makes set-option, set-window-option and set-environment
        // expand the value as a format before storing it (review s21 U7).
        if matches!(
            c.name,
            "set-option" | "set-window-option" | "set-environment"
        ) && p.has("F")
        {
            return self.hold_tmux(&format!(
                "`{} -F`, a value expanded as a format before it is stored",
                c.name
            ));
        }
        // The server's environment, copied into every later pane: only
        // inert variables, or unsetting one (review s21 U8).
        if c.name == "set-environment" && !p.has("u") && !p.has("r") {
            let ops = &args[p.end.min(args.len())..];
            if !ops
                .first()
                .and_then(Field::static_text)
                .is_some_and(|n| inert_var(&n))
            {
                return self.hold_tmux(&format!(
                    "`set-environment {}`: a variable for the server and every later pane, which may make their \
                     shells or programs run code",
                    ops.first().map(Field::text).unwrap_or_default()
                ));
            }
        }
        let via = format!("tmux {}", c.name);
        for f in &p.found {
            if let Some(v) = f
                .value
                .as_ref()
                .filter(|_| c.shell_flags.contains(f.opt.short))
            {
                self.tmux_shell(std::slice::from_ref(v), env, depth, &via, &At::Caller);
            }
        }
        let ops = &args[p.end.min(args.len())..];
        // One argument is a command list as a string; several are one
        // command's words (arguments.c `ARGS_PARSE_COMMANDS_OR_STRING`).
        let commands = |a: &mut Self, words: &[Field], env: &mut Env| match words {
            [one] => a.tmux_string(one, env, depth),
            _ => {
                a.tmux_nested += 1;
                let out = a.tmux_commands(words, env, depth + 1);
                a.tmux_nested -= 1;
                out
            }
        };
        match c.operands {
            // `run-shell -C CMDS`: tmux commands, not shell text (expanded
            // as a format first: a `#` is held).
            Operands::Shell if c.name == "run-shell" && p.has("C") => {
                if ops.iter().any(|o| o.text().contains('#')) {
                    return self.hold_tmux("`run-shell -C` commands with `#`, expanded as a format first");
                }
                for o in ops {
                    self.tmux_string(o, env, depth);
                }
                Run::Done(Output::Unknown)
            }
            // `pipe-pane -I CMD`: CMD's output is typed into the pane.
            Operands::Shell if c.name == "pipe-pane" && p.has("I") => {
                self.hold_tmux("`pipe-pane -I` (a command's output typed into the pane)")
            }
            Operands::Shell => match self.tmux_spawn(c, &p) {
                Some(at) => self.tmux_shell(ops, env, depth, &via, &at),
                None => Run::Done(Output::Unknown),
            },
            Operands::IfShell => {
                if let Some(cond) = ops.first().filter(|_| !p.has("F")) {
                    self.tmux_shell(std::slice::from_ref(cond), env, depth, &via, &At::Caller);
                }
                for o in ops.get(1..).unwrap_or(&[]) {
                    self.tmux_string(o, env, depth);
                }
                Run::Done(Output::Unknown)
            }
            Operands::Commands => {
                for o in ops {
                    self.tmux_string(o, env, depth);
                }
                Run::Done(Output::Unknown)
            }
            Operands::CommandsAfterName => commands(self, ops.get(1..).unwrap_or(&[]), env),
            Operands::Menu => {
                // NAME KEY COMMAND triples; an empty NAME is a separator.
                let mut i = 0;
                while i < ops.len() {
                    if ops[i].text().is_empty() {
                        i += 1;
                        continue;
                    }
                    if let Some(o) = ops.get(i + 2) {
                        self.tmux_string(o, env, depth);
                    }
                    i += 3;
                }
                Run::Done(Output::Unknown)
            }
            // `-X`: a copy-mode command; the `copy-pipe*` and `pipe*`
            // ones run shell text.
            Operands::Keys if p.has("X") => {
                if ops.first().is_some_and(|o| o.text().contains("pipe")) {
                    return self.hold_tmux("`send-keys -X` with a copy-mode command that pipes to a shell command");
                }
                Run::Done(Output::Unknown)
            }
            Operands::Keys => {
                if let Some(f) = ["H", "N", "M", "K", "F"].iter().find(|f| p.has(f)) {
                    return self.hold_tmux(&format!(
                        "`send-keys -{f}` (keys the check does not decode)"
                    ));
                }
                match typed_keys(ops, p.has("l")) {
                    Ok(typed) if typed.is_empty() => Run::Done(Output::Unknown),
                    Ok(typed) if typed.ends_with('\n') => {
                        self.server_words(&[Field::lit(typed)], env, depth, "tmux send-keys", &At::Pane)
                    }
                    Ok(_) => self.hold_tmux(
                        "keys that leave text at the prompt for a later line (no Enter at the end)",
                    ),
                    Err(what) => self.hold_tmux(&what),
                }
            }
            Operands::Option => {
                let Some(opt) = ops.first() else {
                    return Run::Done(Output::Unknown);
                };
                let value = ops.get(1..).unwrap_or(&[]);
                match option_value(&opt.text()) {
                    OptionValue::Hold => {
                        self.hold_tmux(&format!("option `{}`, which may run its value", opt.text()))
                    }
                    _ if p.has("u") || value.is_empty() => Run::Done(Output::Unknown),
                    // Run later by new panes, wherever they start.
                    OptionValue::Shell => self.tmux_shell(value, env, depth, &via, &At::Pane),
                    OptionValue::Commands if p.has("F") => {
                        self.hold_tmux("`-F`: tmux commands expanded as a format first")
                    }
                    OptionValue::Commands => commands(self, value, env),
                    OptionValue::Data => Run::Done(Output::Unknown),
                }
            }
            // More operands than the command takes: the name is an
            // alias (`command-alias`) for another command (review s19 S2).
            Operands::Data if ops.len() > data_operands(c.name) => self.hold_tmux(&format!(
                "`{}` with more operands than it takes (a `command-alias` may make it run another command)",
                c.name
            )),
            Operands::Data => Run::Done(Output::Unknown),
            Operands::Hold => self.hold_tmux(&format!(
                "`{}`, which runs what the check cannot see",
                c.name
            )),
        }
    }

    /// `screen [OPTIONS] [CMD…]` (a session running CMD, `screen -dm
    /// CMD` detached), `screen [OPTIONS] -X CMD…` (a command sent to a
    /// running session, read by [`Analysis::screen_command`] in the
    /// server's environment). Options by [`crate::opts::runopts::SCREEN`]; an
    /// option it lacks, or a word that may expand to nothing among them:
    /// held.
    fn screen(&mut self, args: &[Field], env: &mut Env, depth: u32) -> Run {
        let Some((end, send)) = self.screen_options(args, env) else {
            return Run::Done(Output::Unknown);
        };
        let rest = args.get(end..).unwrap_or(&[]);
        if let Some(v) = self.config_vars_set(env, &["HOME", "SCREENRC", "SYSSCREENRC"]) {
            self.hold_runner(
                "screen",
                &format!("`{v}` set by this call, which chooses the file of screen commands it runs at start"),
            );
        }
        if send {
            let mut server = server_env(env);
            let out = self.screen_command(rest, &mut server, depth);
            env.absorb_files(&server);
            return out;
        }
        Run::Command(rest.to_vec())
    }

    /// screen's own options (screen.c `main`: letters bundle, a letter
    /// that takes a value takes the rest of the word or the next word;
    /// `-ls`, `-list`, `-wipe`, `-Logfile`, `-fn`, `-fa`, `-ln` are whole
    /// words): where the command starts, and whether `-X` was given.
    /// `None`: held.
    fn screen_options(&mut self, args: &[Field], env: &mut Env) -> Option<(usize, bool)> {
        use crate::opts::getopt::Takes;
        let mut i = 0;
        let mut send = false;
        let mut logs = Vec::new();
        while let Some(a) = args.get(i) {
            let t = a.text();
            if t == "--" {
                i += 1;
                break;
            }
            if !t.starts_with('-') || t == "-" {
                break;
            }
            i += 1;
            if let Some((_, takes)) = crate::opts::runopts::SCREEN_WORDS
                .iter()
                .find(|(w, _)| *w == t)
            {
                if *takes == Takes::Value {
                    // `-Logfile FILE`: the window's output is appended to
                    // FILE (review s21 U10).
                    if let Some(f) = args.get(i).filter(|_| t == "-Logfile") {
                        logs.push(f.clone());
                    }
                    i += 1;
                }
                continue;
            }
            for (k, c) in t.char_indices().skip(1) {
                let Some(o) = crate::opts::runopts::SCREEN
                    .opts
                    .iter()
                    .find(|o| o.short == c)
                else {
                    self.hold_options("screen", &format!("`-{c}` in `{t}`"));
                    return None;
                };
                send |= c == 'X';
                // `-c FILE`: a file of screen commands run at start (as
                // `tmux -f`).
                if c == 'c' {
                    self.hold_runner("screen", "`-c FILE`, a file of screen commands");
                    return None;
                }
                if o.takes == Takes::Value {
                    if k + c.len_utf8() == t.len() {
                        i += 1;
                    }
                    break;
                }
            }
        }
        // The options, and the first word after them.
        let reach = (i + 1).min(args.len());
        if self.hold_vanishing("screen", args, reach) {
            return None;
        }
        for f in &logs {
            self.runner_write("screen", f, env, 0);
        }
        Some((i.min(args.len()), send))
    }

    /// A screen command sent by `screen -X` (screen(1) "Customization"),
    /// in the server's environment `env`: `stuff TEXT` types TEXT into
    /// the window's shell, `exec`/`screen` run a program, `eval CMD…` runs
    /// each argument as a screen command, `at WINDOW CMD…` runs CMD in
    /// other windows. A few commands are data; any other (`source FILE`,
    /// `bind`, `register`, …) is held (review s19 S7).
    fn screen_command(&mut self, cmd: &[Field], env: &mut Env, depth: u32) -> Run {
        let Some(name) = cmd.first().and_then(Field::static_text) else {
            return if cmd.is_empty() {
                Run::Done(Output::Unknown)
            } else {
                self.hold_runner("screen -X", "a command only known at run time")
            };
        };
        let args = &cmd[1..];
        if self.hold_vanishing(&format!("screen -X {name}"), args, args.len()) {
            return Run::Done(Output::Unknown);
        }
        match name.as_str() {
            // `stuff ^C`: an interrupt, which types no text and clears the
            // prompt's line (review s21 W2).
            "stuff"
                if !args.is_empty()
                    && args.iter().all(|a| {
                        a.static_text().is_some_and(|t| {
                            !t.is_empty()
                                && (t.chars().all(|c| c == '\u{3}') || t.eq_ignore_ascii_case("^c"))
                        })
                    }) =>
            {
                Run::Done(Output::Unknown)
            }
            // `hardcopy [-h] [FILE]`: the window's text written to FILE
            // (default `hardcopy.N` in screen's directory); only a literal
            // absolute FILE is placed (review s21 W2).
            "hardcopy" => {
                let files: Vec<&Field> = args.iter().filter(|a| a.text() != "-h").collect();
                match files.as_slice() {
                    [f] if self.abs_path(f, &Env::fresh(Cwd::None)).is_some() => {
                        let f = (*f).clone();
                        self.runner_write("screen -X hardcopy", &f, env, depth);
                        Run::Done(Output::Unknown)
                    }
                    _ => self.hold_runner(
                        "screen -X hardcopy",
                        "a file that is not a literal absolute path",
                    ),
                }
            }
            "stuff" => {
                let mut typed = String::new();
                for a in args {
                    match a.static_text().as_deref().map(screen_unescape) {
                        Some(Ok(t)) => typed.push_str(&t),
                        Some(Err(what)) => return self.hold_runner("screen -X stuff", &what),
                        None => {
                            return self
                                .hold_runner("screen -X stuff", "text only known at run time");
                        }
                    }
                }
                if typed.is_empty() {
                    return Run::Done(Output::Unknown);
                }
                if !typed.ends_with('\n') {
                    return self.hold_runner(
                        "screen -X stuff",
                        "text left at the prompt for a later line (no newline at the end)",
                    );
                }
                self.server_words(
                    &[Field::lit(typed)],
                    env,
                    depth,
                    "screen -X stuff",
                    &At::Pane,
                )
            }
            // `exec [[FDPAT] CMD ARGS…]`: FDPAT (`.`, `!`, `|`, `:`)
            // first, joined to the program or a word of its own.
            "exec" => {
                let mut argv = match screen_args(args) {
                    Ok(a) => a,
                    Err(what) => return self.hold_runner("screen -X exec", &what),
                };
                if let Some(first) = argv.first().and_then(Field::static_text)
                    && first.starts_with(['.', '!', '|', ':'])
                {
                    let program = first.trim_start_matches(['.', '!', '|', ':']);
                    // `!` or `:`: the command's output goes to the
                    // window's program, typed into its shell (`exec .!.
                    // echo CMD`); `|`: a filter of it. Held, the command
                    // still judged.
                    let pattern = &first[..first.len() - program.len()];
                    if pattern.contains(['!', ':', '|']) {
                        self.hold_runner(
                            "screen -X exec",
                            &format!(
                                "`{pattern}`, which types the command's output into the window"
                            ),
                        );
                    }
                    if program.is_empty() {
                        argv.remove(0);
                    } else {
                        argv[0] = Field::lit(program);
                    }
                }
                self.server_argv(&argv, env, depth, "screen -X exec", &At::Pane)
            }
            "screen" => match screen_args(args)
                .and_then(|a| screen_window_command(&a).map(<[Field]>::to_vec))
            {
                Ok(argv) => self.server_argv(&argv, env, depth, "screen -X screen", &At::Pane),
                Err(what) => self.hold_runner("screen -X screen", &what),
            },
            "eval" if depth <= self.opts.max_depth => {
                for a in args {
                    let Some(t) = a.static_text() else {
                        return self
                            .hold_runner("screen -X eval", "a command only known at run time");
                    };
                    // Each argument is parsed again by screen: quoted
                    // words, its escapes decoded ([`screen_unescape`]).
                    // A backslash outside quotes, `\\`, a backquote or a
                    // `#`: held.
                    if t.contains(['`', '#']) || t.contains("\\\\") || backslash_unquoted(&t) {
                        return self.hold_runner(
                            "screen -X eval",
                            "a command with escapes screen reads differently from the shell",
                        );
                    }
                    let t = match screen_unescape(&t) {
                        Ok(t) => t,
                        Err(what) => return self.hold_runner("screen -X eval", &what),
                    };
                    let words = self.split_words(&t, env, depth);
                    self.screen_command(&words, env, depth + 1);
                }
                Run::Done(Output::Unknown)
            }
            "at" => self.screen_command(args.get(1..).unwrap_or(&[]), env, depth + 1),
            "quit" | "detach" | "kill" | "select" | "title" | "next" | "prev" | "other"
            | "windows" | "clear" | "redisplay" | "info" | "number" | "width" | "height"
            | "sessionname" => Run::Done(Output::Unknown),
            _ => self.hold_runner(
                &format!("screen -X {name}"),
                "a screen command the check does not read",
            ),
        }
    }

    /// `sg [-] [GROUP [[-c] COMMAND]]` (shadow's newgrp.c in sg mode):
    /// no options but a lone `-` (a login environment), the group, an
    /// optional `-c`, then the command, run with `/bin/sh -c` (later
    /// words joined to it). A word that may expand to nothing before the
    /// command, or another option: held (review s19 S6).
    fn sg(&mut self, args: &[Field], env: &mut Env, depth: u32, stdin: &Output) -> Run {
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
    fn session_runner(&mut self, name: &str, args: &[Field], env: &mut Env, depth: u32) -> Run {
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
    fn zellij(&mut self, args: &[Field], env: &mut Env, depth: u32) -> Run {
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

/// zellij's built-in layouts (zellij-utils `assets/layouts`): no file read.
const ZELLIJ_LAYOUTS: &[&str] = &[
    "default",
    "compact",
    "classic",
    "strider",
    "disable-status-bar",
    "welcome",
];

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

/// Whether tmux, expanding `text` as a format (format.c `format_expand1`),
/// can only produce text the check sees: every `#` starts a colour digit
/// (`#ff0000`), a one-letter alias (`#S`), a style `#[…]` without `#`,
/// braces or parentheses, or a plain variable `#{pane_id}` (no modifier,
/// no `@` user option, no `#`). Anything else (`#{E:@c}`, `#{l:#}`,
/// `#{s/x/#/:@k}`, `##`, `#(`) may assemble and run a `#(…)` job (review
/// s21 U7).
fn tmux_format_plain(text: &str) -> bool {
    let b: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < b.len() {
        if b[i] != '#' {
            i += 1;
            continue;
        }
        let Some(&n) = b.get(i + 1) else {
            return false;
        };
        let close = |end: char| {
            b[i + 2..]
                .iter()
                .position(|&c| c == end)
                .map(|k| (i + 2, i + 2 + k))
        };
        match n {
            c if c.is_ascii_alphanumeric() => i += 2,
            '{' => match close('}') {
                Some((a, z))
                    if z > a
                        && b[a..z]
                            .iter()
                            .all(|c| c.is_ascii_alphanumeric() || *c == '_') =>
                {
                    i = z + 1;
                }
                _ => return false,
            },
            '[' => match close(']') {
                Some((a, z)) if !b[a..z].iter().any(|c| "#{}()".contains(*c)) => i = z + 1,
                _ => return false,
            },
            _ => return false,
        }
    }
    true
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

/// Where tmux's configuration parser (cmd-parse.y `yylex_token`) reads a
/// command string differently from the shell's tokenizer: a backslash
/// outside single quotes (tmux decodes `\ooo`, `\uXXXX`, `\e`, `\s`…),
/// a backquote, `$(`, `$'`, `$"`, `$[` (tmux has no command substitution
/// nor ANSI-C quoting). `None`: the shell's reading is tmux's.
fn tmux_parse_differs(text: &str) -> Option<&'static str> {
    let mut quote: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some('\''), '\'') => quote = None,
            (Some('\''), _) => {}
            (_, '\\') => {
                return Some("a backslash, which tmux reads as its own escape (`\\ooo`, `\\u…`)");
            }
            (_, '`') => return Some("a backquote"),
            (_, '$') if matches!(chars.peek(), Some('(' | '\'' | '"' | '[')) => {
                return Some("`$(`, `$'`, `$\"` or `$[`, which tmux reads differently");
            }
            (None, '\'' | '"') => quote = Some(c),
            (Some('"'), '"') => quote = None,
            _ => {}
        }
    }
    None
}

/// tmux's named keys (key-string.c `key_string_table`), lowercase; tmux
/// compares them ignoring case.
const TMUX_KEYS: &[&str] = &[
    "ic", "insert", "dc", "delete", "home", "end", "npage", "pagedown", "pgdn", "ppage", "pageup",
    "pgup", "btab", "space", "bspace", "enter", "escape", "tab", "up", "down", "left", "right",
    "any",
];

/// Families of tmux key names (keypad, mouse, function keys, user keys,
/// hex codes), lowercase prefixes.
const TMUX_KEY_PREFIXES: &[&str] = &[
    "kp", "mouse", "wheel", "double", "triple", "second", "focus", "paste", "user", "0x", "u+",
];

/// The text `send-keys KEYS…` types: the arguments back to back, with no
/// separator (cmd-send-keys.c). A word tmux reads as a key name
/// (key-string.c `key_string_lookup_string`: modifiers `C-`/`M-`/`S-`/`^`,
/// a name of [`TMUX_KEYS`] or [`TMUX_KEY_PREFIXES`] in any case, a hex
/// code) types that key: `Space` a blank, `Enter`/`KPEnter`/`C-m`/`C-j` a
/// newline, `C-c` ends the line too (what was typed before it is judged as
/// run); any other key, a control character, or a word only known at run
/// time is an error (held). `literal` (`-l`): every word as it is.
/// (review s19 S9)
fn typed_keys(keys: &[Field], literal: bool) -> Result<String, String> {
    let mut typed = String::new();
    for k in keys {
        let Some(t) = k.static_text() else {
            return Err(format!("the key `{}`, only known at run time", k.text()));
        };
        let lower = t.to_ascii_lowercase();
        let one = t.chars().count() == 1;
        // A key name has no blank: a word with one is typed as it is.
        if literal || one || t.contains(char::is_whitespace) {
            typed.push_str(&t);
        } else if matches!(lower.as_str(), "enter" | "kpenter" | "c-m" | "c-j" | "c-c") {
            typed.push('\n');
        } else if lower == "space" {
            typed.push(' ');
        } else if lower.starts_with('^')
            || (lower.len() > 2
                && lower.as_bytes()[1] == b'-'
                && matches!(lower.as_bytes()[0], b'c' | b'm' | b's'))
            || TMUX_KEYS.contains(&lower.as_str())
            || TMUX_KEY_PREFIXES.iter().any(|p| lower.starts_with(p))
            || (lower.len() > 1
                && lower.starts_with('f')
                && lower[1..].chars().all(|c| c.is_ascii_digit()))
        {
            return Err(format!(
                "the key `{t}`, which the check does not map to text"
            ));
        } else {
            typed.push_str(&t);
        }
    }
    if typed.chars().any(|c| c.is_control() && c != '\n') {
        return Err("a control character (a tab completes, an escape edits)".into());
    }
    Ok(typed)
}

/// screen's escapes in a command's argument (process.c `Parse`), decoded
/// where the check knows them exactly: `\\`, `\n`, `\r`, `\015`, `\012`,
/// `^M`, `^J` (a newline or Enter). Any other backslash or `^`, and `$`
/// (screen substitutes environment variables): an error (held).
fn screen_unescape(text: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let (typed, len) = if let Some(r) = rest.strip_prefix('\\') {
            if r.starts_with('\\') {
                ("\\", 2)
            } else if r.starts_with(['n', 'r']) {
                ("\n", 2)
            } else if r.starts_with("015") || r.starts_with("012") {
                ("\n", 4)
            } else {
                return Err(format!(
                    "the escape `\\{}`",
                    r.chars().next().unwrap_or(' ')
                ));
            }
        } else if let Some(r) = rest.strip_prefix('^') {
            if r.starts_with(['M', 'm', 'J', 'j']) {
                ("\n", 2)
            } else {
                return Err("a `^` control key the check does not decode".into());
            }
        } else if c == '$' {
            return Err("`$`, which screen substitutes from its environment".into());
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        };
        out.push_str(typed);
        rest = &rest[len..];
    }
    Ok(out)
}

/// A screen command's arguments with screen's escapes decoded
/// ([`screen_unescape`]); a word only known at run time kept as it is.
fn screen_args(args: &[Field]) -> Result<Vec<Field>, String> {
    args.iter()
        .map(|a| match a.static_text() {
            Some(t) => screen_unescape(&t).map(Field::lit),
            None => Ok(a.clone()),
        })
        .collect()
}

/// Whether `text` has a backslash outside quotes (the shell drops it,
/// screen decodes it).
fn backslash_unquoted(text: &str) -> bool {
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match (quote, c) {
            (None, '\\') => return true,
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            _ => {}
        }
    }
    false
}

/// The program and arguments of screen's `screen [-OPTS] [N] [CMD
/// [ARGS]]` command (screen(1) "screen"; process.c `DoScreen`): each
/// option its own word, `-t NAME`, `-T TERM`, `-h LINES` with their value
/// attached or next; `-a`, `-f`, `-fn`, `-fa`, `-l`, `-ln`, `-L`, `-M`,
/// `-O`, `-U` flags; `--` ends them; then an optional window number. Any
/// other option, or `//group`: an error (held).
fn screen_window_command(args: &[Field]) -> Result<&[Field], String> {
    let mut i = 0;
    while let Some(t) = args.get(i).map(Field::text) {
        if t == "--" {
            i += 1;
            break;
        }
        if !t.starts_with('-') {
            break;
        }
        i += 1;
        match t.as_str() {
            "-t" | "-T" | "-h" => i += 1,
            "-a" | "-f" | "-fn" | "-fa" | "-l" | "-ln" | "-L" | "-M" | "-O" | "-U" => {}
            _ if t.len() > 2 && matches!(&t[..2], "-t" | "-T" | "-h") => {}
            _ => return Err(format!("the option `{t}`, which the check does not know")),
        }
    }
    if args
        .get(i)
        .is_some_and(|a| !a.text().is_empty() && a.text().chars().all(|c| c.is_ascii_digit()))
    {
        i += 1;
    }
    if args.get(i).is_some_and(|a| a.text().starts_with("//")) {
        return Err("a window group".into());
    }
    Ok(args.get(i..).unwrap_or(&[]))
}

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
    fn unknown_onto_toolvet_state(&mut self, name: &str, args: &[Field], env: &Env) {
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
