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
        let out = self.dispatch_rules(name, args, env, depth, stdin, reached);
        // `set -- A B` (or `set A B`) gives the positional parameters new
        // values the walk does not hold: `$1`, `${2}` are values this
        // command made unknown (review s24 S9, [`Env::made_unknown`]).
        if name == "set"
            && (args.iter().any(|a| matches!(a.text().as_str(), "--" | "-"))
                || args
                    .first()
                    .is_some_and(|a| !a.text().starts_with(['-', '+'])))
        {
            for n in 1..=64 {
                env.forget(&n.to_string());
            }
        }
        // Code, names and configuration read from standard input (review
        // s23 V14, V22), after the command's own, more specific findings.
        if !self.done() {
            self.stdin_files(name, args, env, depth, stdin);
        }
        out
    }

    /// [`Analysis::dispatch`] but for the files read from standard input.
    fn dispatch_rules(
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
        self.learn_same_call_links(name, args, env, stdin);
        // Programs running code from files found by name (review s23 V6).
        self.run_code_files(name, args, env, depth, stdin);
        // Package installers writing programs into a directory (review s25 R15).
        if own_rules {
            self.installer_writes(name, args, env);
            // Other tools' trust approvals (review s25 R14).
            self.trust_gate(name, args);
        }
        if self.secret_source(name, args) {
            // `declare -x NAME=V` prints nothing but still exports NAME
            // (review s23 V19): its assignments are read as any other.
            if matches!(
                name,
                "export" | "declare" | "typeset" | "local" | "readonly"
            ) {
                self.declare_builtin(name, args, env, depth);
            }
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
            "fc" | "history" | "compgen" | "complete" => {
                self.history_and_completion(name, args, env, depth);
                Output::Unknown
            }
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
        self.forge_admin(name, args);
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
        // After the program table, so an agent CLI fetched by `npx` is
        // named as the nested agent it is.
        self.package_install(name, args, env);
        match name {
            "sed" | "gsed" => self.sed_script(name, args, env, depth),
            "patch" | "gpatch" => self.patch_input(name, args, env, depth, stdin),
            "sqlite3" | "sqlite" | "sqlcipher" => self.sqlite_input(name, args, env, depth, stdin),
            "litecli" | "psql" | "mysql" | "mariadb" => {
                self.client_commands(name, args, env, depth, stdin)
            }
            _ => {}
        }
        self.credential_dump(name, args);
        self.config_commands(name, args, env, depth);
        self.socat_exposure(name, args, env, depth);
        self.file_server(name, args, env);
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
                    // `shopt -s xpg_echo`: escapes are decoded as with
                    // `-e` (review s25 S8).
                    Some(mut t) => {
                        if env.may_set("xpg_echo") {
                            t.insert(0, "-e".to_string());
                        }
                        Output::Static(syntax::echo_output(&t))
                    }
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
            "uudecode" => {
                if own_rules {
                    self.uudecode_header(args, env, stdin);
                }
                decoded(stdin)
            }
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
                self.cd_builtin(name, args, env);
                Output::Static(String::new())
            }
            "popd" => {
                self.change_dir_unknown(env);
                Output::Static(String::new())
            }
            "dirname" | "basename" | "realpath" => path_names(name, args, env),
            "export" | "declare" | "typeset" | "local" | "readonly" => {
                self.declare_builtin(name, args, env, depth)
            }
            // `getopts OPTS NAME`: NAME, OPTARG and OPTIND; `wait -p
            // NAME`: a pid (review s23 V4's audit).
            "getopts" => {
                for v in ["OPTARG", "OPTIND"] {
                    env.forget(v);
                }
                self.unset_or_read(name, args.get(1..2).unwrap_or_default(), env)
            }
            "wait" => {
                let named: Vec<Field> = args
                    .windows(2)
                    .filter(|w| w[0].text() == "-p")
                    .map(|w| w[1].clone())
                    .collect();
                self.unset_or_read(name, &named, env);
                Output::Unknown
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
        // A program the check knows by name but has no full option or
        // write table for (`fzf`, `man`, `npm`, `go`, an agent CLI): an
        // option of it the check does not place may write the file a
        // word names (`fzf --history=F`), so a word naming toolvet's
        // state, a start-up file or the agent's settings holds it, as for
        // an unknown program (review s23 class 1, V7). Only absolute or
        // home paths and option values count: a relative word of such a
        // program is usually its subcommand (`npm test`, `go build`).
        if own_rules
            && crate::code::programs::is_known_program(n)
            && crate::opts::progopts::table_of(n).is_none()
            && crate::effects::writers::writes(n, args).is_none()
        {
            let paths: Vec<Field> = args
                .iter()
                .filter(|a| {
                    let t = a.text();
                    t.starts_with(['/', '~'])
                        || matches!(a.segs.first(), Some(syntax::Seg::Home(_)))
                        || (t.starts_with('-') && t.contains(['=', '/', '~']))
                })
                .cloned()
                .collect();
            self.unknown_onto_toolvet_state(n, &paths, env);
        }
        pass_through(stdin)
    }
}

/// `dirname`, `basename`, `realpath` of operands the walk knows (review
/// s23 W1): their output, computed lexically (`realpath` against a known
/// cwd; links on disk are not known to the walk, as for every path it
/// places). Any option, or an operand not known, gives unknown output.
fn path_names(name: &str, args: &[Field], env: &Env) -> Output {
    let Some(words) = args
        .iter()
        .map(Field::static_text)
        .collect::<Option<Vec<_>>>()
    else {
        return Output::Unknown;
    };
    // `realpath -m NAME` (review s24 S9): the options that only decide
    // whether a missing file is an error, or that resolve no links, name
    // the same path as plain `realpath` does.
    let words: Vec<String> = match name {
        "realpath" => words
            .into_iter()
            .filter(|w| {
                !matches!(
                    w.as_str(),
                    "-m" | "-e"
                        | "-s"
                        | "-q"
                        | "-ms"
                        | "-sm"
                        | "--canonicalize-missing"
                        | "--canonicalize-existing"
                        | "--no-symlinks"
                        | "--strip"
                        | "--quiet"
                )
            })
            .collect(),
        _ => words,
    };
    if words.is_empty() || words.iter().any(|w| w.starts_with('-') || w.is_empty()) {
        return Output::Unknown;
    }
    let one = |w: &str| -> Option<String> {
        let trimmed = w.trim_end_matches('/');
        match name {
            "dirname" if trimmed.is_empty() => Some("/".into()),
            "dirname" => Some(match trimmed.rsplit_once('/') {
                None => ".".into(),
                Some((d, _)) => {
                    let d = d.trim_end_matches('/');
                    if d.is_empty() { "/".into() } else { d.into() }
                }
            }),
            "basename" if trimmed.is_empty() => Some("/".into()),
            "basename" => trimmed.rsplit('/').next().map(String::from),
            "realpath" => match &env.cwd {
                Cwd::Known(c) => Some(crate::paths::resolve(c, w)),
                _ if w.starts_with('/') => Some(crate::paths::normalize_abs(w)),
                _ => None,
            },
            _ => None,
        }
    };
    // `basename NAME SUFFIX`: one name, the suffix removed.
    if name == "basename" {
        let mut b = one(&words[0]).unwrap_or_default();
        if let Some(sfx) = words.get(1) {
            if words.len() > 2 {
                return Output::Unknown;
            }
            if b != *sfx && b.ends_with(sfx.as_str()) {
                b.truncate(b.len() - sfx.len());
            }
        }
        return Output::Static(format!("{b}\n"));
    }
    let mut out = String::new();
    for w in &words {
        match one(w) {
            Some(v) => {
                out.push_str(&v);
                out.push('\n');
            }
            None => return Output::Unknown,
        }
    }
    Output::Static(out)
}
