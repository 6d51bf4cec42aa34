//! `git`: global options, aliases and external commands, history
//! rewriting and `push`.

use super::*;

/// The shell text of a git `ext::` remote's command: words are separated
/// by spaces, `% ` is a space inside a word, `%%` a `%` (`%S`, `%s`, `%G`
/// are git's placeholders, kept).
fn ext_command(spec: &str) -> String {
    let mut words: Vec<String> = vec![String::new()];
    let mut chars = spec.chars();
    while let Some(c) = chars.next() {
        match c {
            '%' => match chars.next() {
                Some(' ') => words.last_mut().map_or((), |w| w.push(' ')),
                Some('%') => words.last_mut().map_or((), |w| w.push('%')),
                Some(o) => words.last_mut().map_or((), |w| {
                    w.push('%');
                    w.push(o)
                }),
                None => {}
            },
            ' ' => words.push(String::new()),
            c => words.last_mut().map_or((), |w| w.push(c)),
        }
    }
    words
        .iter()
        .filter(|w| !w.is_empty())
        .map(|w| crate::shell_quote(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// git commands that only read the work tree: with the work tree put
/// elsewhere they write nothing there.
const GIT_READS_WORK_TREE: &[&str] = &[
    "status",
    "diff",
    "log",
    "show",
    "ls-files",
    "grep",
    "blame",
    "rev-parse",
    "describe",
    "shortlog",
    "whatchanged",
    "cat-file",
    "ls-tree",
    "rev-list",
    "check-ignore",
    "check-attr",
    "diff-files",
    "diff-index",
    "diff-tree",
    "annotate",
    "version",
    "help",
];

impl Analysis<'_> {
    /// git run with its work tree in `dir` (review s23 V17): pathspecs are
    /// read relative to it (as after `-C`), and a command that may write
    /// the work tree (anything but [`GIT_READS_WORK_TREE`]) fills `dir`
    /// with files of the commit's names: judged as `tar -x -C DIR` is
    /// ([`Analysis::fills_dir`]: a home, or a directory holding a guard
    /// rail or toolvet's state, is held).
    fn git_other_work_tree(&mut self, sub: &str, dir: &Field, env: &mut Env) {
        if !GIT_READS_WORK_TREE.contains(&sub) {
            if dir.is_dynamic() {
                self.report(
                    false,
                    "shell.eval-dynamic",
                    format!(
                        "`git {sub}` writes its work tree `{}`, a directory only known at run time. A person must \
                         approve it.",
                        dir.text()
                    ),
                );
            } else {
                self.fills_dir(&format!("git --work-tree {sub}"), dir, env, false);
            }
        }
        self.change_dir(Some(dir), env);
    }

    pub(super) fn git(&mut self, args: &[Field], env: &mut Env, depth: u32, stdin: &Output) {
        let mut i = 0;
        let mut env = env.clone();
        // `-c alias.NAME=VALUE` given here, for `git NAME ARGS…` below.
        let mut aliases: Vec<(String, String)> = Vec::new();
        // Where the work tree is when not the working directory
        // (`--work-tree`, `GIT_WORK_TREE`, `-c core.worktree`; review s23
        // V17).
        let mut work_tree: Option<Field> = env.vars.get("GIT_WORK_TREE").cloned();
        while let Some(a) = args.get(i) {
            let t = a.text();
            // `-c K=V` and `--config-env=K=VAR`: configuration for this run.
            let config = if t == "-c" || t == "--config-env" {
                i += 1;
                args.get(i).map(|v| (t.clone(), v.clone()))
            } else {
                t.strip_prefix("--config-env=")
                    .map(|v| ("--config-env".to_string(), Field::lit(v)))
            };
            if let Some((how, kv)) = config {
                self.git_option_config(&how, &kv, &mut env, depth);
                if how == "-c"
                    && let Some((key, value)) =
                        kv.static_text().as_deref().and_then(|t| t.split_once('='))
                    && key.eq_ignore_ascii_case("core.worktree")
                {
                    work_tree = Some(Field::lit(value));
                } else if how == "-c"
                    && kv.static_text().is_none()
                    && kv.text().to_ascii_lowercase().starts_with("core.worktree")
                {
                    work_tree = Some(crate::walk::dyn_field(&kv.text()));
                }
                if how == "-c"
                    && let Some((key, value)) =
                        kv.static_text().as_deref().and_then(|t| t.split_once('='))
                    && let Some(name) = key.to_ascii_lowercase().strip_prefix("alias.")
                {
                    aliases.push((name.to_string(), value.to_string()));
                }
                i += 1;
                continue;
            }
            if t == "-C" {
                let dir = args.get(i + 1).cloned();
                self.change_dir(dir.as_ref(), &mut env);
                i += 2;
            } else if let Some(dir) = t.strip_prefix("--exec-path=") {
                self.report(
                    false,
                    "shell.eval-dynamic",
                    format!(
                        "`git --exec-path={dir}` runs git's commands from a directory the analysis cannot read. A person \
                         must approve it."
                    ),
                );
                i += 1;
            } else if t == "--work-tree" || t.starts_with("--work-tree=") {
                work_tree = match t.strip_prefix("--work-tree=") {
                    Some(_) => Some(
                        crate::effects::removers::strip_literal_prefix(a, "--work-tree=")
                            .unwrap_or_else(|| crate::walk::dyn_field(&t)),
                    ),
                    None => args.get(i + 1).cloned(),
                };
                i += if t == "--work-tree" { 2 } else { 1 };
            } else if matches!(
                t.as_str(),
                "--git-dir" | "--namespace" | "--super-prefix" | "--attr-source" | "--shallow-file"
            ) {
                // git.c's `handle_options`: these take the next word (exact
                // spellings only); any other dash word is a flag or refused.
                i += 2;
            } else if t.starts_with('-') {
                i += 1;
            } else {
                break;
            }
        }
        // `ext::` remotes run their command (`git clone 'ext::sh -c …'`,
        // with protocol.ext.allow): `% ` is a space in it.
        for a in &args[i.min(args.len())..] {
            if let Some(cmd) = a.text().strip_prefix("ext::") {
                let mut e = env.clone();
                self.script(&ext_command(cmd), &mut e, depth + 1, &Output::Unknown);
            }
        }
        let Some(sub) = args.get(i).map(Field::text) else {
            return;
        };
        let rest = &args[i + 1..];
        if let Some(dir) = &work_tree {
            self.git_other_work_tree(&sub, dir, &mut env);
        }
        // `git -c alias.x=rebase x -ix CMD`: the alias with its words is
        // the git command that runs (a `!shell` alias is judged where it
        // is defined).
        if !crate::opts::gitopts::is_builtin(&sub)
            && let Some((_, value)) = aliases
                .iter()
                .rev()
                .find(|(n, _)| n.eq_ignore_ascii_case(&sub))
            && !value.trim_start().starts_with('!')
        {
            let words: Vec<String> = rest
                .iter()
                .map(|a| match a.static_text() {
                    Some(t) => format!("'{}'", t.replace('\'', r"'\''")),
                    None => a.text(),
                })
                .collect();
            let text = format!("git {value} {}", words.join(" "));
            let mut e = env.clone();
            self.script(&text, &mut e, depth + 1, stdin);
            return;
        }
        self.git_subcommand_programs(&sub, rest, &mut env, depth);
        // `git NAME …` where NAME is none of git's commands is an alias from
        // configuration the check cannot see (`git config alias.p push` in
        // an earlier call), or an external `git-NAME`: it may stand for
        // `push`, `reset` or `clean`, so its words are read by their rules
        // too (`git p -f origin main` is held as `git push -f origin main`).
        let builtin = crate::opts::gitopts::is_builtin(&sub);
        let history_rules: &[&str] = if builtin {
            &[sub.as_str()]
        } else {
            &["push", "reset", "clean"]
        };
        if !builtin {
            self.git_push(rest, Some(&sub));
        }
        self.git_writes(&sub, rest, &mut env);
        if builtin {
            self.git_whole_tree(&sub, rest, &env);
        }
        match sub.as_str() {
            "push" => self.git_push(rest, None),
            "config" => self.git_config(rest, &mut env, depth),
            "apply" | "am" => self.git_apply(&sub, rest, &mut env, depth, stdin),
            "checkout" | "restore" | "rm" | "mv" | "checkout-index" => {
                self.git_path_writes(&sub, rest, &mut env, depth)
            }
            "stash" => self.git_stash(rest, &mut env, depth),
            _ => {}
        }
        for &as_sub in history_rules {
            self.git_history_rules(as_sub, rest);
        }
        if builtin {
            self.git_skipped_hooks(&sub, rest, &env);
        }
        // The files it reads and writes (review s24 R1, R3, R6, R7, R8).
        self.git_files(&sub, rest, &mut env, depth);
    }

    /// The rules of the git commands that throw work away, for `git SUB
    /// ARGS` (`rest`): `config` of the programs git runs, `reset --hard`,
    /// `clean -f`, read by git's tables.
    fn git_history_rules(&mut self, sub: &str, rest: &[Field]) {
        match sub {
            "config"
                if rest.iter().any(|a| {
                    a.text().eq_ignore_ascii_case("core.hooksPath")
                        || a.text().eq_ignore_ascii_case("core.fsmonitor")
                        || a.text().eq_ignore_ascii_case("core.sshCommand")
                }) =>
            {
                self.report(
                    false,
                    "shell.guardrail-write",
                    "`git config` changes which programs git runs by itself (hooks, fsmonitor, ssh command). A person \
                     must approve; leave the repository's git configuration as it is.",
                );
            }
            // Read by git's tables (`--ha`, `--forc`, `-xdf`; review s17 Q7).
            "reset"
                if crate::opts::gitopts::read(&crate::opts::gitopts::GIT_RESET, rest)
                    .parsed
                    .has("hard") =>
            {
                self.report(
                    false,
                    "shell.git-reset-hard",
                    "`git reset --hard` throws away uncommitted changes for good. A person must approve; \
                     use `git stash` to keep the changes, or `git reset --soft`/`--mixed`.",
                );
            }
            "clean" => {
                let read = crate::opts::gitopts::read(&crate::opts::gitopts::GIT_CLEAN, rest);
                let force = read.parsed.has("force");
                let dry = read.parsed.has("dry-run");
                if force && !dry {
                    self.report(
                        false,
                        "shell.git-clean",
                        "`git clean -f` permanently deletes untracked files (with `-x`, ignored ones too, with `-d`, whole \
                         directories). A person must approve; run `git clean -n` first to see what would go.",
                    );
                }
            }
            _ => {}
        }
    }

    /// `git commit|push|merge|am|rebase --no-verify` (and `-n` of commit and am,
    /// in a cluster too: `-anm MSG`): the repository's hooks (pre-commit,
    /// commit-msg, pre-push, …), the checks its owners set up, are skipped
    /// (#31). A later `--verify` turns them back on; option values
    /// (`-m "--no-verify"`) are not read as options.
    fn git_skipped_hooks(&mut self, sub: &str, rest: &[Field], env: &Env) {
        // Options of each subcommand that take the next word as a value
        // (when not joined with `=` or, for one letter, to the flag).
        let (short_valued, long_valued): (&str, &[&str]) = match sub {
            "commit" => (
                "mFCctSu",
                &[
                    "--message",
                    "--file",
                    "--author",
                    "--date",
                    "--reuse-message",
                    "--reedit-message",
                    "--fixup",
                    "--squash",
                    "--template",
                    "--trailer",
                    "--cleanup",
                    "--pathspec-from-file",
                ],
            ),
            "merge" => (
                "mFsX",
                &["--message", "--file", "--strategy", "--strategy-option"],
            ),
            "push" => (
                "o",
                &["--repo", "--receive-pack", "--exec", "--push-option"],
            ),
            "am" | "rebase" => (
                "sXx",
                &["--strategy", "--strategy-option", "--exec", "--onto"],
            ),
            _ => return,
        };
        // The hook managers' own switches in the environment: husky
        // (`HUSKY=0`, v4's `HUSKY_SKIP_HOOKS`), lefthook (`LEFTHOOK=0`),
        // pre-commit (`SKIP=ids`).
        let var = |name: &str| env.vars.get(name).map(Field::text);
        let by_env = [
            (
                "HUSKY",
                var("HUSKY").is_some_and(|v| v == "0" || v == "false"),
            ),
            (
                "HUSKY_SKIP_HOOKS",
                var("HUSKY_SKIP_HOOKS").is_some_and(|v| !v.is_empty() && v != "0"),
            ),
            (
                "LEFTHOOK",
                var("LEFTHOOK").is_some_and(|v| v == "0" || v == "false"),
            ),
            ("SKIP", var("SKIP").is_some_and(|v| !v.trim().is_empty())),
        ]
        .into_iter()
        .find_map(|(name, set)| set.then_some(name));
        if let Some(name) = by_env
            && matches!(sub, "commit" | "push" | "merge" | "am" | "rebase")
        {
            self.report(
                false,
                "shell.hooks-skipped",
                format!(
                    "`{name}=…` tells the repository's hook manager to skip its hooks, the checks its owners set \
                     up, for `git {sub}`. A person must approve; run it without `{name}` and fix what the hooks \
                     report."
                ),
            );
            return;
        }
        let mut skipped = false;
        let mut words = rest.iter().map(Field::text);
        while let Some(w) = words.next() {
            if w == "--" {
                break;
            }
            if let Some(long) = w.strip_prefix("--") {
                let name = long.split('=').next().unwrap_or("");
                // A unique prefix is the option (`--no-veri`); `--no-ver`
                // may also be `--no-verbose`.
                if name.len() >= "no-veri".len() && "no-verify".starts_with(name) {
                    skipped = true;
                } else if name == "verify" {
                    skipped = false;
                } else if !long.contains('=') && long_valued.contains(&w.as_str()) {
                    words.next();
                }
            } else if let Some(cluster) = w.strip_prefix('-').filter(|c| !c.is_empty()) {
                for (k, c) in cluster.char_indices() {
                    if c == 'n' && matches!(sub, "commit" | "am") {
                        skipped = true;
                    }
                    if short_valued.contains(c) {
                        // The value is the rest of the word, or the next one.
                        if k + c.len_utf8() == cluster.len() && !matches!(c, 'S' | 'u') {
                            words.next();
                        }
                        break;
                    }
                }
            }
        }
        if skipped {
            self.report(
                false,
                "shell.hooks-skipped",
                format!(
                    "`git {sub} --no-verify` skips the repository's hooks (pre-commit, commit-msg, pre-push), the \
                     checks its owners set up. A person must approve; run it without `--no-verify` and fix what the \
                     hooks report."
                ),
            );
        }
    }

    /// `git push`: force, delete and mirror read from git's push table
    /// ([`crate::opts::gitopts`]: `-uf`, `--forc`, `--de`, `--mi`; any prefix of
    /// them, one letter included, is read as them; reviews s16 P10, s17
    /// Q7), checked against the refspecs (the operands after the remote).
    /// With `alias`, the words are those of `git ALIAS`, which may stand
    /// for `git push`: the reason says so, and a delete without a refspec
    /// (which `git push` refuses: `git br -d feature`) is nothing.
    fn git_push(&mut self, args: &[Field], alias: Option<&str>) {
        let table = crate::opts::gitopts::command("push").expect("git push table");
        let read = crate::opts::gitopts::read(&table.spec, args);
        let parsed = &read.parsed;
        let has = |n: &str| parsed.has(n);
        // An option word only known at run time (`-$F`) may be `-f` or `-d`.
        let unknown = !read.run_time.is_empty();
        let force = unknown || has("force") || has("force-with-lease") || has("mirror");
        let delete = unknown || has("delete");
        let all = has("mirror") || has("all") || has("branches");
        let positional: Vec<&Field> = parsed.operands.iter().map(|&k| &args[k]).collect();
        let protected = self.opts.protected_branches.join(", ");
        let refspecs = positional.get(1..).unwrap_or(&[]);
        let report = |this: &mut Self, msg: String| {
            let msg = match alias {
                Some(name) => format!(
                    "`git {name}` is not a git command but an alias or another program, which may be `git push`: {msg}"
                ),
                None => msg,
            };
            this.report(false, "shell.git-force-push", msg);
        };
        if refspecs.is_empty() {
            if force || (delete && alias.is_none()) {
                let msg = if all {
                    format!(
                        "The command force-pushes every branch, including the protected ones ({protected}), rewriting their \
                         shared history. A person must approve; force-push only your own branch by name."
                    )
                } else {
                    format!(
                        "The command force-pushes without naming a branch (it pushes the current branch), so the analysis \
                         cannot tell whether a protected branch ({protected}) is rewritten. Name the branch \
                         (`git push --force origin my-branch`), or a person must approve."
                    )
                };
                report(self, msg);
            }
            return;
        }
        for spec in refspecs {
            let text = spec.text();
            let plus = text.starts_with('+');
            let body = text.trim_start_matches('+');
            let (src, dst) = match body.split_once(':') {
                Some((s, d)) => (s, d),
                None => (body, body),
            };
            let ref_delete = delete || (src.is_empty() && body.contains(':'));
            let ref_force = force || plus;
            if !(ref_force || ref_delete) {
                continue;
            }
            let dst = dst.strip_prefix("refs/heads/").unwrap_or(dst);
            let action = if ref_delete {
                "deletes"
            } else {
                "force-pushes"
            };
            if spec.is_dynamic() || dst.is_empty() || dst == "HEAD" || dst == "@" {
                report(
                    self,
                    format!(
                        "The command {action} `{text}`, whose branch is not known here, so it may rewrite a protected branch \
                         ({protected}). Name the destination branch explicitly, or a person must approve."
                    ),
                );
            } else if self.opts.is_protected(dst) {
                report(
                    self,
                    format!(
                        "The command {action} the protected branch `{dst}`, rewriting shared history. A person must approve; \
                         push to a feature branch instead, or push without --force."
                    ),
                );
            }
        }
    }
}
