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
    getopt: Option<&'static crate::getopt::Spec>,
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
const fn getopt_spec(name: &'static str, g: &'static crate::getopt::Spec) -> Spec {
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
    getopt_spec("xvfb-run", &crate::runopts::XVFB_RUN),
    spec("dbus-launch", &[], &["--config-file", "--autolaunch"]),
    getopt_spec("ssh-agent", &crate::runopts::SSH_AGENT),
    getopt_spec("systemd-inhibit", &crate::runopts::SYSTEMD_INHIBIT),
    getopt_spec("cgexec", &crate::runopts::CGEXEC),
    getopt_spec("nsenter", &crate::runopts::NSENTER),
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
    getopt_spec("daemonize", &crate::runopts::DAEMONIZE),
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
    getopt_spec("setpriv", &crate::runopts::SETPRIV),
    getopt_spec("prlimit", &crate::runopts::PRLIMIT),
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
        if let Some(spec) = spec_of(name, args) {
            return self.spec_runner(spec, args, env, depth, stdin);
        }
        match name {
            // `start-stop-daemon --start --exec PATH -- ARGS`.
            "start-stop-daemon" => {
                // `--stop` signals the processes it selects (review s19
                // S10), read with its table in `selfstate.rs`.
                self.toolvet_signals(name, args, false);
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
                let p = self.runner_options(name, &crate::runopts::UNSHARE, args, false);
                rest(p.end)
            }
            // `faketime '2020-01-01' CMD`: the first operand is the time.
            "faketime" => rest(skip_options(args, &["-m", "-f"]) + 1),
            // `cpulimit -l 10 [--] CMD…` runs CMD (review s16 P6); with
            // `-p`/`-e`/`-P` it limits a running process (see
            // `process_control`) and runs nothing.
            "cpulimit" => {
                let p = self.runner_options(name, &crate::runopts::CPULIMIT, args, false);
                rest(p.end)
            }
            "runuser" => {
                let p = self.runner_options(name, &crate::runopts::RUNUSER, args, false);
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
                let p = self.runner_options(name, &crate::runopts::AT, args, false);
                if let Some(file) = p.values("f").last() {
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
            && let Some(o) =
                crate::runopts::abbreviated_value_option(&args[i.min(args.len())..], spec.values)
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

    /// `tmux [OPTIONS] COMMAND …`: tmux's own options (`-c TEXT` runs
    /// TEXT), then a tmux command list, read by [`Analysis::tmux_commands`].
    fn tmux(&mut self, args: &[Field], env: &mut Env, depth: u32) -> Run {
        let p = self.runner_options("tmux", &crate::runopts::TMUX, args, false);
        if let Some(text) = p.values("c").last() {
            return Run::Done(self.run_script_field(text, env, depth, &Output::Unknown, "tmux -c"));
        }
        self.tmux_commands(&args[p.end.min(args.len())..], env, depth)
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
    /// shell-like words, `;` between commands. Braces (`{ … }`) and
    /// `%if` directives are not read here: held.
    fn tmux_string(&mut self, field: &Field, env: &mut Env, depth: u32) -> Run {
        let Some(text) = field.static_text() else {
            return self.hold_tmux("a command list whose text is not known here");
        };
        if depth > self.opts.max_depth {
            return self.hold_tmux("tmux commands nested too deep");
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
        self.tmux_commands(&words, env, depth + 1)
    }

    /// One tmux command: found by name, alias or unique prefix, its flags
    /// read by its template, its arguments judged by what they are
    /// ([`crate::tmuxopts::Operands`]).
    fn tmux_command(&mut self, cmd: &[Field], env: &mut Env, depth: u32) -> Run {
        use crate::tmuxopts::{Lookup, Operands, OptionValue, lookup, option_value};
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
        let p = crate::getopt::parse(&c.spec, args);
        if !p.problems.is_empty() {
            let what = format!(
                "`{}` with {} (its flags: `{}`)",
                c.name,
                p.problems.join("; "),
                c.template
            );
            return self.hold_tmux(&what);
        }
        // A format's `#(CMD)` runs CMD with the shell.
        if args.iter().any(|a| a.text().contains("#(")) {
            return self.hold_tmux("a format with `#(…)`, which runs a shell command");
        }
        let via = format!("tmux {}", c.name);
        for f in &p.found {
            if let Some(v) = f
                .value
                .as_ref()
                .filter(|_| c.shell_flags.contains(f.opt.short))
            {
                self.run_script_field(v, env, depth, &Output::Unknown, &via);
            }
        }
        let ops = &args[p.end.min(args.len())..];
        // One argument is a command list as a string; several are one
        // command's words (arguments.c `ARGS_PARSE_COMMANDS_OR_STRING`).
        let commands = |a: &mut Self, words: &[Field], env: &mut Env| match words {
            [one] => a.tmux_string(one, env, depth),
            _ => a.tmux_commands(words, env, depth + 1),
        };
        match c.operands {
            // `run-shell -C CMDS`: tmux commands, not shell text.
            Operands::Shell if c.name == "run-shell" && p.has("C") => {
                for o in ops {
                    self.tmux_string(o, env, depth);
                }
                Run::Done(Output::Unknown)
            }
            Operands::Shell => self.shell_words(ops, env, depth, &via),
            Operands::IfShell => {
                if let Some(cond) = ops.first().filter(|_| !p.has("F")) {
                    self.run_script_field(cond, env, depth, &Output::Unknown, &via);
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
            // `-X`: copy-mode commands; `-H`: keys as hex codes, which
            // the check does not decode.
            Operands::Keys if p.has("X") => Run::Done(Output::Unknown),
            Operands::Keys if p.has("H") => self.hold_tmux("`send-keys -H` (keys as hex codes)"),
            Operands::Keys => {
                // Typed into the pane's shell; key names end a line.
                let typed: Vec<Field> = ops
                    .iter()
                    .filter(|a| !matches!(a.text().as_str(), "Enter" | "C-m" | "KPEnter" | "C-j"))
                    .cloned()
                    .collect();
                self.shell_words(&typed, env, depth, "tmux send-keys")
            }
            Operands::Option => {
                let Some(opt) = ops.first() else {
                    return Run::Done(Output::Unknown);
                };
                let value = ops.get(1..).unwrap_or(&[]);
                match option_value(&opt.text()) {
                    _ if p.has("u") || value.is_empty() => Run::Done(Output::Unknown),
                    OptionValue::Shell => self.shell_words(value, env, depth, &via),
                    OptionValue::Commands => commands(self, value, env),
                    OptionValue::Data => Run::Done(Output::Unknown),
                    OptionValue::Hold => {
                        self.hold_tmux(&format!("option `{}`, which may run its value", opt.text()))
                    }
                }
            }
            Operands::Data => Run::Done(Output::Unknown),
            Operands::Hold => self.hold_tmux(&format!(
                "`{}`, which runs what the check cannot see",
                c.name
            )),
        }
    }

    /// `screen -dm CMD…` (a detached session running CMD), `screen -X
    /// CMD` (a command sent to a running session, read by
    /// [`Analysis::screen_command`]).
    fn screen(&mut self, args: &[Field], env: &mut Env, depth: u32) -> Run {
        if let Some(i) = args.iter().position(|a| a.text() == "-X") {
            return self.screen_command(args.get(i + 1..).unwrap_or(&[]), env, depth);
        }
        let i = skip_options(
            args,
            &["-S", "-c", "-t", "-p", "-e", "-h", "-T", "-s", "-Logfile"],
        );
        Run::Command(args.get(i..).unwrap_or(&[]).to_vec())
    }

    /// A screen command sent by `screen -X` (screen(1) "Customization"):
    /// `stuff TEXT` types TEXT into the window's shell, `exec`/`screen`
    /// run a program, `eval CMD…` runs each argument as a screen command,
    /// `at WINDOW CMD…` runs CMD in other windows. A few commands are
    /// data; any other (`source FILE`, `bind`, `register`, …) is held.
    fn screen_command(&mut self, cmd: &[Field], env: &mut Env, depth: u32) -> Run {
        let Some(name) = cmd.first().and_then(Field::static_text) else {
            return Run::Done(Output::Unknown);
        };
        let args = &cmd[1..];
        match name.as_str() {
            "stuff" => {
                let typed: Vec<Field> = args
                    .iter()
                    .map(|f| {
                        Field::lit(
                            f.text()
                                .replace("\\n", "\n")
                                .replace("\\015", "\n")
                                .replace("\\r", "\n")
                                .replace("^M", "\n"),
                        )
                    })
                    .collect();
                self.shell_words(&typed, env, depth, "screen -X stuff")
            }
            "exec" | "screen" => Run::Command(args.to_vec()),
            "eval" if depth <= self.opts.max_depth => {
                for a in args {
                    let words = match a.static_text() {
                        Some(t) => self.split_words(&t, env, depth),
                        None => vec![a.clone()],
                    };
                    self.screen_command(&words, env, depth + 1);
                }
                Run::Done(Output::Unknown)
            }
            "at" => self.screen_command(args.get(1..).unwrap_or(&[]), env, depth + 1),
            "quit" | "detach" | "kill" | "select" | "title" | "next" | "prev" | "other"
            | "windows" | "clear" | "redisplay" | "info" | "number" | "width" | "height"
            | "sessionname" => Run::Done(Output::Unknown),
            _ => {
                self.report(
                    false,
                    "shell.eval-dynamic",
                    format!(
                        "`screen -X {name}` is a screen command the check does not read, so what it runs cannot be \
                         checked. A person must approve it as it is."
                    ),
                );
                Run::Done(Output::Unknown)
            }
        }
    }
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
    if crate::commands::is_shell(word) || crate::commands::DOWNLOADERS.contains(&word) {
        return true;
    }
    if crate::commands::is_interpreter(word) {
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
            let word = crate::commands::base_name(&t);
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
                let is_state = |p: &str| {
                    self.state
                        .guard_rail(p)
                        .is_some_and(|r| r.kind == check_catalog::guardrails::Kind::ToolvetState)
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
