//! Dispatch: the rules every command is read by (effect readers, user
//! tables), then the one family handler its name selects.

use super::builtins::unalias_builtin;
use super::streams::{base_coding, hex_dump, openssl_output};
use super::*;

/// How a command was reached, for [`Analysis::dispatch`].
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Reached {
    /// Its operands came from `xargs` (or another reader of standard
    /// input), so they are not all in the text.
    pub(super) via_xargs: bool,
    /// The command, or a wrapper around it, is in the settings'
    /// `allow_commands`: its own rules are skipped, the rules that read
    /// what it runs still apply.
    pub(super) allowed: bool,
}

impl Analysis<'_> {
    /// Judges `name args` as if run here: the command an interpreter's
    /// file tool stands for (see `crate::code::modules`).
    pub(crate) fn run_as(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) {
        self.dispatch(name, args, env, depth + 1, stdin, Reached::default());
    }

    /// Judge one command by its name: first the readers every command
    /// passes (unless allowed, [`Reached::allowed`]), then the handler of
    /// the family its name selects. Returns what it writes to standard output.
    pub(super) fn dispatch(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
        reached: Reached,
    ) -> Output {
        let Reached { via_xargs, allowed } = reached;
        let own_rules = !allowed;
        // Operands bash evaluates as arithmetic or variable names (review s22 V1).
        self.shell_evaluated_words(name, args, env, depth);
        if own_rules
            && let Some(out) = self.effect_readers(name, args, env, depth, stdin, via_xargs)
        {
            return out;
        }
        // A symbolic link made here counts for the later commands of the
        // call (review-s9 G5); the command making it was judged above.
        self.learn_same_call_links(name, args, env);
        if matches!(name, "make" | "gmake") {
            self.run_written_makefile(name, args, env, depth, stdin);
        }
        if self.secret_source(name, args) {
            return Output::Secret;
        }
        match name {
            "rm" | "srm" if own_rules => self.rm(name, args, env, via_xargs),
            "shred" if own_rules && via_xargs => self.xargs_shred(),
            "unlink" | "shred" if own_rules => self.unlink_or_shred(name, args, env),
            "find" => {
                let out = self.find(args, env, depth, own_rules);
                if self.finds_credentials(args) {
                    Output::Secret
                } else {
                    out
                }
            }
            "mktemp" => mktemp_output(args),
            "crontab" if own_rules => {
                self.crontab(args, env, depth, stdin);
                Output::Static(String::new())
            }
            "chroot" => {
                // `chroot DIR CMD…` runs CMD; judged as if on the host (the
                // new root is usually the host's, mounted).
                let rest = args
                    .iter()
                    .skip_while(|a| a.text().starts_with('-'))
                    .skip(1)
                    .cloned()
                    .collect();
                self.exec(rest, env, depth, stdin, via_xargs)
            }
            "awk" | "gawk" | "mawk" | "nawk" => self.awk(name, args, env, depth, stdin),
            "dd" if own_rules => self.dd(args),
            n if own_rules
                && (n.starts_with("mkfs")
                    || matches!(
                        n,
                        "mke2fs" | "mkswap" | "wipefs" | "mkdosfs" | "mkntfs" | "mkexfatfs"
                    ))
                && !self.image_file_in_workspace(args, env) =>
            {
                self.mkfs(n)
            }
            "chmod" | "chown" | "chgrp" if own_rules => {
                self.chmod(name, args, env);
                Output::Static(String::new())
            }
            "chattr" | "setfacl" | "setfattr" if own_rules => {
                self.metadata_command(name, args, env)
            }
            "shutdown" | "reboot" | "halt" | "poweroff" if own_rules => {
                self.shutdown(name);
                Output::Unknown
            }
            "init" | "telinit" if own_rules => self.init_runlevel(name, args),
            "systemctl" if own_rules => self.systemctl_power(args),
            "git" if own_rules => {
                self.git(args, env, depth, stdin);
                Output::Unknown
            }
            n if is_shell(n) => self.shell(n, args, env, depth, stdin),
            "eval" => self.eval_builtin(args, env, depth, stdin),
            "source" | "." => self.source_builtin(name, args, env, depth, stdin),
            n if is_interpreter(n) => {
                self.interpreter(n, args, env, stdin, depth);
                Output::Unknown
            }
            _ => self.output_command(name, args, env, depth, stdin, own_rules),
        }
    }

    /// The rules that read every command under its own rules (effect readers,
    /// option and program tables, the decision requests of downloaders).
    /// Returns the output when a reader knows it (a secret printed).
    fn effect_readers(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
        via_xargs: bool,
    ) -> Option<Output> {
        self.url_credentials(name, args);
        self.destroyer(name, args);
        self.removals(name, args, env);
        self.in_place_edits(name, args, env);
        self.table_writes(name, args, env);
        self.toolvet_command(name, args);
        self.toolvet_signals(name, args, via_xargs, env);
        self.database_file(name, args, env);
        self.module_cli(name, args, env, depth, stdin);
        self.process_environments(name, args);
        self.toolvet_tables(name, args, stdin);
        self.toolvet_secret_command(name, args, stdin);
        if super::fetches_urls(name) {
            let texts: Vec<String> = args.iter().map(Field::text).collect();
            self.decision_request(name, &texts);
        }
        self.program_options(name, args, env, depth);
        self.program_table(name, args, env, depth, stdin);
        match name {
            "sed" | "gsed" => self.sed_script(name, args, env, depth),
            "sqlite3" | "sqlite" | "sqlcipher" => self.sqlite_input(name, args, env, depth, stdin),
            "litecli" | "psql" | "mysql" | "mariadb" => {
                self.client_commands(name, args, env, depth, stdin)
            }
            _ => {}
        }
        self.credential_dump(name, args);
        self.reader(name, args, env)
    }

    /// The commands after the file, system and interpreter families: what
    /// prints or copies data (streams, copies, downloads), the shell's
    /// builtins, editors, `ssh`, and programs not known at all.
    fn output_command(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
        own_rules: bool,
    ) -> Output {
        match name {
            // `$(pwd)` is the working directory, as `$PWD` is (`cp x
            // $(pwd)/.claude/` writes the workspace's `.claude`). `pwd -P`
            // resolves links the analysis does not know of: unknown.
            "pwd" => match &env.cwd {
                Cwd::Known(c) if args.iter().all(|a| a.text() == "-L") => {
                    Output::Static(format!("{c}\n"))
                }
                _ => Output::Unknown,
            },
            "echo" => {
                let texts: Option<Vec<String>> = args.iter().map(Field::static_text).collect();
                match texts {
                    Some(t) => Output::Static(syntax::echo_output(&t)),
                    None => fields_output(args, true),
                }
            }
            "printf" => self.printf_builtin(args, env),
            "cat" => self.cat(args, env, stdin),
            "tee" => self.tee(args, env, stdin, depth, own_rules),
            "cp" | "mv" | "install" | "ln" if own_rules => {
                self.copy_into_place(name, args, env, depth)
            }
            "cp" | "mv" | "install" | "rsync" | "ln" | "scp" | "sftp" => {
                self.copy_or_sync(name, args, env, depth, own_rules)
            }
            "head" | "tail" | "less" | "more" | "sort" | "uniq" => pass_through(stdin),
            n if DOWNLOADERS.contains(&n) => self.downloader(n, args, env, stdin, own_rules),
            "openssl" => openssl_output(args, stdin),
            "base64" | "base32" | "basenc" | "b64decode" => base_coding(name, args, stdin),
            "xxd" | "od" | "hexdump" => hex_dump(name, args, stdin),
            "uudecode" => decoded(stdin),
            "rev" => match stdin {
                Output::Static(t) => Output::Static(
                    t.lines()
                        .map(|l| l.chars().rev().collect::<String>() + "\n")
                        .collect(),
                ),
                o => decoded_if_static(o),
            },
            "tr" | "gunzip" | "zcat" | "bunzip2" | "unxz" | "xzcat" | "bzcat" | "gzip"
            | "bzip2" | "xz" | "zstd" | "unzstd" => decoded_if_static(stdin),
            "cd" | "pushd" => {
                let target = args
                    .iter()
                    .find(|a| !matches!(a.text().as_str(), "-L" | "-P" | "-e" | "-@" | "--"));
                self.change_dir(target, env);
                Output::Static(String::new())
            }
            "popd" => {
                env.cwd = Cwd::Unknown;
                Output::Static(String::new())
            }
            "export" | "declare" | "typeset" | "local" | "readonly" => {
                self.declare_builtin(name, args, env, depth)
            }
            "let" => {
                for a in args {
                    self.arith_assign(&a.text(), env);
                }
                Output::Static(String::new())
            }
            "read" if self.read_known_line(args, env, stdin) => Output::Static(String::new()),
            "unset" | "read" | "mapfile" | "readarray" => self.unset_or_read(name, args, env),
            "alias" => self.alias_builtin(args, env, depth),
            "unalias" => unalias_builtin(args, env),
            "hash" => {
                self.hash_builtin(args, env);
                Output::Static(String::new())
            }
            "trap" => self.trap_builtin(args, env, depth),
            "apply_patch" | "applypatch" if own_rules => {
                self.apply_patch(name, args, env, depth, stdin);
                Output::Unknown
            }
            n if own_rules && crate::code::programs::is_editor(n) => {
                self.editor(n, args, env, depth, stdin);
                Output::Unknown
            }
            "ssh" => self.ssh(args, depth, stdin),
            // A program not known at all may run the command in its words
            // (review-s8 F1): read, only adding findings.
            n => self.unknown_command(n, args, env, depth, stdin, own_rules),
        }
    }

    /// A program not known at all may run the command in its words (review-s8 F1): read, only adding findings.
    pub(super) fn unknown_command(
        &mut self,
        n: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
        own_rules: bool,
    ) -> Output {
        if own_rules
            && !crate::code::programs::is_known_program(n)
            && !matches!(
                n,
                "sed"
                    | "gsed"
                    | "sqlite3"
                    | "sqlite"
                    | "sqlcipher"
                    | "litecli"
                    | "psql"
                    | "mysql"
                    | "mariadb"
                    | "gdb"
                    | "cgdb"
            )
            && let Some(out) = self.unknown_program(n, args, env, depth)
        {
            return out;
        }
        pass_through(stdin)
    }
}
