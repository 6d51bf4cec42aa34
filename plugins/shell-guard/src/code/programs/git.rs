//! git's configuration as a source of programs it runs: `-c` and
//! `GIT_CONFIG_*` settings, `git config`, `git apply`/patch writes, paths
//! subcommands write, `git stash`, and the subcommands' program tables.

use super::*;

/// git configuration keys (lower case; `*` is one subsection) whose value
/// is a shell command or program git runs later, besides those
/// [`GIT_PROGRAM_KEY_SUFFIXES`] name; `alias.*` is read apart (a git
/// command or `!shell`). Sources: git-config(1), git-send-email(1),
/// gitattributes(5), git-imap-send(1), git-submodule(1).
const GIT_PROGRAM_KEYS: &[&str] = &[
    "core.gitproxy",
    "core.fsmonitor",
    "diff.external",
    "filter.*.clean",
    "filter.*.smudge",
    "filter.*.process",
    "pager.*",
    "web.browser",
    "sendemail.smtpserver",
    "sendemail.*.smtpserver",
    "interactive.difffilter",
    "remote.*.uploadpack",
    "remote.*.receivepack",
    "remote.*.vcs",
    "difftool.*.path",
    "mergetool.*.path",
    "man.*.path",
    "browser.*.path",
    "imap.tunnel",
    "submodule.*.update",
    "instaweb.httpd",
    "instaweb.browser",
];

/// Endings of git configuration key names (the part after the last dot,
/// lower case: git reads section and key names in any case) whose value
/// is a command or program git runs: `gpg.ssh.defaultKeyCommand`,
/// `core.alternateRefsCommand`, `sendemail.toCmd` / `ccCmd` /
/// `headerCmd` / `sendmailCmd`, `difftool.*.cmd`, `trailer.*.command`,
/// `gpg.program`, `core.editor`, `sequence.editor`, `core.pager`,
/// `credential.helper`, `core.askpass`, `merge.*.driver`,
/// `diff.*.textconv`, `uploadpack.packObjectsHook`, `core.sshCommand`.
/// Read by ending so that a key this list does not name yet is still
/// judged (review s17 Q10).
const GIT_PROGRAM_KEY_SUFFIXES: &[&str] = &[
    "cmd", "command", "program", "editor", "pager", "helper", "askpass", "driver", "textconv",
    "hook",
];

/// Whether git configuration key `key` (lower case) names a command or
/// program git runs.
fn git_program_key(key: &str) -> bool {
    let name = key.rsplit('.').next().unwrap_or(key);
    key.contains('.')
        && (GIT_PROGRAM_KEY_SUFFIXES.iter().any(|s| name.ends_with(s))
            || key_matches(GIT_PROGRAM_KEYS, key))
}

/// git configuration keys that make git read more configuration, or run
/// hooks or transports, from a place the analysis cannot see.
const GIT_INDIRECT_KEYS: &[&str] = &[
    "core.hookspath",
    "include.path",
    "includeif.*.path",
    "init.templatedir",
];

/// Whether `key` (lower case) matches one of `patterns` (`*`: one
/// subsection, which may hold dots).
fn key_matches(patterns: &[&str], key: &str) -> bool {
    patterns.iter().any(|p| match p.split_once('*') {
        None => *p == key,
        Some((head, tail)) => {
            key.len() > head.len() + tail.len() && key.starts_with(head) && key.ends_with(tail)
        }
    })
}

impl Analysis<'_> {
    /// `GIT_CONFIG_PARAMETERS="'core.pager'='cmd'"`: git configuration in
    /// the environment, in git's own quoting.
    pub(super) fn git_config_parameters(&mut self, value: &Field, env: &mut Env, depth: u32) {
        let Some(text) = value.static_text() else {
            self.report(
                false,
                "shell.eval-dynamic",
                "`GIT_CONFIG_PARAMETERS` holds git configuration only known at run time, which may make git run a \
                 program. A person must approve it.",
            );
            return;
        };
        // Shell-quoted words, each `'key'='value'`, `'key=value'` or `'key'`.
        let words = match crate::syntax::tokenize(&text) {
            Ok(tokens) => tokens
                .into_iter()
                .filter_map(|t| match t {
                    brush_parser::Token::Word(w, _) => Some(w),
                    brush_parser::Token::Operator(..) => None,
                })
                .collect::<Vec<_>>(),
            Err(_) => vec![text.clone()],
        };
        for w in words {
            let plain = w.replace('\'', "");
            if let Some((k, v)) = plain.split_once('=') {
                self.git_config_set(
                    k,
                    Some(&Field::lit(v)),
                    env,
                    depth,
                    "`GIT_CONFIG_PARAMETERS`",
                );
            }
        }
    }

    /// A git configuration key set to `value` (`git -c K=V`, `git config
    /// K V`, `GIT_CONFIG_KEY_n`): a key whose value is a program git runs
    /// later is judged as running it now; an alias as running its git
    /// command or `!shell`; keys that make git read configuration, hooks
    /// or transports from elsewhere escalate.
    pub(crate) fn git_config_set(
        &mut self,
        key: &str,
        value: Option<&Field>,
        env: &mut Env,
        depth: u32,
        via: &str,
    ) {
        let lower = key.to_ascii_lowercase();
        let Some(value) = value else {
            return;
        };
        let text = value.text();
        if let Some(alias) = lower.strip_prefix("alias.") {
            let Some(t) = value.static_text() else {
                self.report(
                    false,
                    "shell.eval-dynamic",
                    format!(
                        "{via} defines the git alias `{alias}` from a value only known at run time, so what it runs \
                         cannot be checked. Write it out; a person must approve it as it is."
                    ),
                );
                return;
            };
            let mut e = env.clone();
            match t.trim_start().strip_prefix('!') {
                // `!sh -c …`: a shell command, run by the alias.
                Some(sh) => {
                    self.script(sh, &mut e, depth + 1, &Output::Unknown);
                }
                // Another git command (`push -f origin main`).
                None => {
                    self.script(&format!("git {t}"), &mut e, depth + 1, &Output::Unknown);
                }
            }
            return;
        }
        // `protocol.ext.allow=always` (or every protocol) lets `ext::`
        // remotes run commands; `protocol.file.allow` is ordinary.
        let ext_allowed = matches!(lower.as_str(), "protocol.ext.allow" | "protocol.allow")
            && !text.eq_ignore_ascii_case("never");
        if ext_allowed || key_matches(GIT_INDIRECT_KEYS, &lower) {
            self.report(
                false,
                "shell.guardrail-write",
                format!(
                    "{via} sets `{key}`, which makes git read configuration, run hooks or use transports from a place \
                     this check does not see. A person must approve; leave the repository's git configuration as it is."
                ),
            );
            return;
        }
        if git_program_key(&lower) {
            if matches!(
                text.to_ascii_lowercase().as_str(),
                "" | "true" | "false" | "yes" | "no" | "on" | "off" | "0" | "1"
            ) && !lower.starts_with("alias.")
            {
                return;
            }
            let script = match value.static_text() {
                // `credential.helper = !f() { …; }; f`.
                Some(t) => Field::lit(t.trim_start().trim_start_matches('!')),
                None => value.clone(),
            };
            self.run_script_field(
                &script,
                env,
                depth,
                &Output::Unknown,
                &format!("the program git runs for `{key}` ({via})"),
            );
        }
    }

    /// `git -c K=V` / `git --config-env=K=VAR`.
    pub(crate) fn git_option_config(&mut self, how: &str, kv: &Field, env: &mut Env, depth: u32) {
        // The key is the text before the first `=`; the value the pieces
        // after it (a `$VAR` in the value stays unknown).
        let mut key = String::new();
        let mut value = Field::default();
        let mut in_value = false;
        for seg in &kv.segs {
            if in_value {
                value.segs.push(seg.clone());
                continue;
            }
            match seg {
                Seg::Lit { text, quoted } => match text.split_once('=') {
                    Some((k, v)) => {
                        key.push_str(k);
                        in_value = true;
                        if !v.is_empty() {
                            value.segs.push(Seg::Lit {
                                text: v.to_string(),
                                quoted: *quoted,
                            });
                        }
                    }
                    None => key.push_str(text),
                },
                _ => {
                    self.report(
                        false,
                        "shell.eval-dynamic",
                        format!(
                            "`git {how}` sets a configuration key only known at run time (`{}`), which may make git \
                             run a program. Write it out; a person must approve it as it is.",
                            kv.text()
                        ),
                    );
                    return;
                }
            }
        }
        if !in_value {
            return; // `-c K`: a boolean true.
        }
        let value = if how == "--config-env" {
            let name = value.text();
            env.vars
                .get(&name)
                .cloned()
                .unwrap_or_else(|| crate::walk::dyn_field(&format!("${name}")))
        } else {
            value
        };
        self.git_config_set(&key, Some(&value), env, depth, &format!("`git {how}`"));
    }

    /// `git config [--file F] [--add|--replace-all] KEY VALUE`, `git config
    /// set KEY VALUE`: the value set, judged by its key; `--file F` is a
    /// write onto F. Options read by git's table ([`crate::opts::gitopts::GIT_CONFIG`]:
    /// prefixes, `-f`, `-t TYPE`, `--comment TEXT`), so a value option
    /// does not shift the key (review s17 Q10).
    pub(crate) fn git_config(&mut self, args: &[Field], env: &mut Env, depth: u32) {
        use crate::opts::gitopts::{GIT_CONFIG, GIT_CONFIG_READS, read};
        let first = read(&GIT_CONFIG, args);
        let mut found = first.parsed.found.clone();
        let mut run_time = !first.run_time.is_empty();
        let mut words: Vec<&Field> = first.parsed.operands.iter().map(|&k| &args[k]).collect();
        match words.first().map(|w| w.text()).as_deref() {
            // `git config set [OPTIONS] KEY VALUE`: its own options.
            Some("set") => {
                let from = first.parsed.operands[0] + 1;
                let rest = read(&GIT_CONFIG, &args[from..]);
                found.extend(rest.parsed.found.iter().cloned());
                run_time |= !rest.run_time.is_empty();
                words = rest
                    .parsed
                    .operands
                    .iter()
                    .map(|&k| &args[from + k])
                    .collect();
            }
            Some("get" | "list" | "unset" | "edit" | "rename-section" | "remove-section") => return,
            _ => {}
        }
        if run_time {
            self.report(
                false,
                "shell.eval-dynamic",
                "`git config` is given an option only known at run time, which may change the file it writes or \
                 what it sets. Write the options out; a person must approve it as it is.",
            );
        }
        for file in found
            .iter()
            .filter(|f| f.opt.name == "file")
            .filter_map(|f| f.value.as_ref())
        {
            // A git configuration file gets the one key set, judged
            // below; any other file is written as a configuration.
            if file.text() != "-"
                && !self
                    .abs_path(file, env)
                    .is_some_and(|a| crate::effects::sinks::is_git_config_file(&a))
            {
                self.check_write(
                    file,
                    env,
                    &Output::Unknown,
                    "`git config --file`",
                    false,
                    depth,
                );
            }
        }
        if found.iter().any(|f| GIT_CONFIG_READS.contains(&f.opt.name)) {
            return;
        }
        if let [key, value, ..] = words.as_slice() {
            match key.static_text() {
                Some(k) => self.git_config_set(&k, Some(value), env, depth, "`git config`"),
                None => self.report(
                    false,
                    "shell.eval-dynamic",
                    format!(
                        "`git config` sets a key only known at run time (`{}`), which may make git run a program. \
                         Write it out; a person must approve it as it is.",
                        key.text()
                    ),
                ),
            }
        }
    }

    /// `git apply` / `git am` of a patch the analysis can read (a
    /// here-document, a here-string, text piped in): the files it writes
    /// are judged as writes. A patch from a file is not read.
    pub(crate) fn git_apply(
        &mut self,
        sub: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) {
        let mut strip: Option<usize> = None;
        let mut dir: Option<Field> = None;
        let mut from_stdin = true;
        let mut i = 0;
        while let Some(a) = args.get(i) {
            let t = a.text();
            i += 1;
            if let Some(n) = t.strip_prefix("-p") {
                strip = n.parse().ok().or(Some(1));
            } else if let Some(d) = t.strip_prefix("--directory=") {
                dir = Some(Field::lit(d));
            } else if t == "--directory" {
                dir = args.get(i).cloned();
                i += 1;
            } else if t == "-" {
                from_stdin = true;
            } else if !t.starts_with('-') {
                from_stdin = false;
            }
        }
        if !from_stdin {
            return;
        }
        let Output::Static(text) = stdin else {
            // A patch piped from a command whose output is not known
            // names files the check cannot see (review s25 R8).
            let reports_only = args.iter().any(|a| {
                matches!(
                    a.text().as_str(),
                    "--check" | "--stat" | "--numstat" | "--summary"
                )
            }) && !args.iter().any(|a| a.text() == "--apply");
            if self.unproven_pipe && !reports_only {
                self.report(
                    false,
                    "shell.guardrail-write",
                    format!(
                        "`git {sub}` applies a patch piped from a command whose output is not known here, so the                          files it writes cannot be checked. Give the patch in a here-document; a person must                          approve this one."
                    ),
                );
            }
            return;
        };
        let mut e = env.clone();
        if let Some(d) = dir {
            self.change_dir(Some(&d), &mut e);
        }
        self.patch_writes(&format!("`git {sub}`"), text, strip, &mut e, depth);
    }

    /// Judge the files a patch writes (Codex's `apply_patch` format or a
    /// unified diff) as writes onto them, with the lines it adds as their
    /// content (a guard rail loosened, a git hook's script).
    pub(crate) fn patch_writes(
        &mut self,
        via: &str,
        text: &str,
        strip: Option<usize>,
        env: &mut Env,
        depth: u32,
    ) {
        for file in crate::code::embedded::patch_files(text, strip) {
            if self.done() {
                return;
            }
            let target = Field::lit(&file.path);
            let content = match file.op {
                crate::code::embedded::PatchOp::Delete => Output::Unknown,
                _ => Output::Static(file.added.clone()),
            };
            self.check_write(&target, env, &content, via, true, depth);
        }
    }

    /// `git checkout [REV] [--] PATH…`, `git restore`, `git rm`, `git mv`,
    /// `git checkout-index`: their path operands are written (or removed)
    /// with content from the repository, judged as writes onto them.
    pub(crate) fn git_path_writes(&mut self, sub: &str, args: &[Field], env: &mut Env, depth: u32) {
        // Options whose value is not a path.
        const VALUE_OPTIONS: &[&str] = &[
            "-b",
            "-B",
            "--orphan",
            "-s",
            "--source",
            "--conflict",
            "--prefix",
            "--pathspec-from-file",
            "--track",
            "-t",
        ];
        let mut i = 0;
        while let Some(a) = args.get(i) {
            let t = a.text();
            i += 1;
            if t == "--" || !t.starts_with('-') || t == "-" {
                if t != "--" {
                    let via = format!("`git {sub}`");
                    self.check_write(a, env, &Output::Unknown, &via, true, depth);
                    if let Some(abs) = self.abs_path(a, env)
                        && let Some(guarded) = self.rail_just_within(&abs)
                    {
                        self.check_write(
                            &Field::lit(guarded),
                            env,
                            &Output::Unknown,
                            &format!("{via} (writing `{t}`, which holds it)"),
                            true,
                            depth,
                        );
                    }
                }
                continue;
            }
            if VALUE_OPTIONS.contains(&t.as_str()) {
                i += 1;
            }
            if self.done() {
                return;
            }
        }
    }

    /// `git stash [push|save] … [--] PATH…`: the paths it names are taken
    /// out of the working tree (with `-u`/`--all`, untracked files are
    /// deleted), a targeted write onto them as `git checkout -- PATH` is
    /// (review s14 N8). Without paths it is the whole-tree stash, and
    /// `pop`/`apply`/`list`/`show`/`drop` name no path.
    pub(crate) fn git_stash(&mut self, args: &[Field], env: &mut Env, depth: u32) {
        // Options whose value is not a path.
        const VALUE_OPTIONS: &[&str] = &["-m", "--message"];
        let first = args.first().map(Field::text);
        let rest = match first.as_deref() {
            Some("push" | "save") => &args[1..],
            Some(t) if t.starts_with('-') => args,
            _ => return,
        };
        let save = first.as_deref() == Some("save");
        let mut paths = Vec::new();
        let mut ended = false;
        let mut from_file = None;
        let mut i = 0;
        while let Some(a) = rest.get(i) {
            let t = a.text();
            i += 1;
            if ended {
                paths.push(a.clone());
            } else if t == "--" {
                ended = true;
            } else if VALUE_OPTIONS.contains(&t.as_str()) {
                i += 1;
            } else if let Some((option, value)) = t
                .strip_prefix("--")
                .map(|o| o.split_once('=').map_or((o, None), |(n, v)| (n, Some(v))))
                && option.len() >= "pathspec-".len()
                && "pathspec-from-file".starts_with(option)
            {
                // git takes any unique prefix of a long option
                // (`--pathspec-fr=FILE`, `--pathspec-f FILE`; review s16
                // P10).
                from_file = Some(match value {
                    Some(v) => v.to_string(),
                    None => {
                        i += 1;
                        rest.get(i - 1).map_or_else(String::new, Field::text)
                    }
                });
            } else if t.starts_with('-') && t != "-" {
                // `--message=M`, `-mM`, flags.
            } else if !save {
                // `git stash push PATH…`; `save`'s operands are its message.
                paths.push(a.clone());
            }
        }
        if let Some(f) = from_file {
            self.report(
                false,
                "shell.guardrail-write",
                format!(
                    "`git stash` takes its paths from `{f}`, which the check cannot read: they may name the agent's \
                     hook settings (`.claude/settings.json`, `.github/hooks/…`), which the stash takes out of the \
                     working tree. A person must approve; name the paths on the command line."
                ),
            );
        }
        if paths.is_empty() {
            return;
        }
        // Wildcards (git's `*` crosses `/`: `'*.json'` is every agent's
        // JSON hook file), exclude magic (`':!src'` is everything but
        // src) and attribute magic cover guard rails without naming them
        // (review s15 N4). A wildcard after a literal directory
        // (`'src/*.rs'`) is judged as that directory.
        for p in &mut paths {
            let t = p.text();
            let (magic, body) = match t.strip_prefix(":(") {
                Some(r) => r.split_once(')').unwrap_or((r, "")),
                None => match t.strip_prefix(':') {
                    Some(r) if r.starts_with(['!', '^']) => ("exclude", &r[1..]),
                    Some(r) if r.starts_with('/') => ("top", &r[1..]),
                    _ => ("", t.as_str()),
                },
            };
            let magic = magic.to_ascii_lowercase();
            let literal = magic.split(',').any(|m| m.trim() == "literal");
            let wide = magic
                .split(',')
                .any(|m| m.trim() == "exclude" || m.trim().starts_with("attr"));
            let wild = !literal && body.contains(['*', '?', '[']);
            let narrow_dir = body
                .find(['*', '?', '['])
                .and_then(|w| body[..w].rfind('/'))
                .map(|d| &body[..d])
                .filter(|d| !d.is_empty());
            if wide || (wild && narrow_dir.is_none()) {
                self.report(
                    false,
                    "shell.guardrail-write",
                    format!(
                        "`git stash` with the pathspec `{t}` takes out of the working tree every path it matches \
                         (a wildcard crosses directories, an exclude means everything else), which may include the \
                         agent's hook settings (`.claude/settings.json`, `.github/hooks/…`). A person must approve; \
                         name the paths themselves."
                    ),
                );
            } else if wild
                && let Some(d) = narrow_dir
                && p.static_text().is_some()
            {
                let dir = if magic.is_empty() {
                    d.to_string()
                } else {
                    format!(":({magic}){d}")
                };
                *p = Field::lit(&dir);
            }
        }
        // Pathspec magic (`:(top)PATH`, `:/PATH`, `:(glob)…`) names PATH.
        let paths = paths.into_iter().map(|p| {
            let t = p.text();
            let bare = match t.strip_prefix(":(") {
                Some(rest) => rest.split_once(')').map(|(_, path)| path),
                None => t.strip_prefix(":/"),
            };
            match bare {
                Some(b) if p.static_text().is_some() => Field::lit(b),
                _ => p,
            }
        });
        let mut words = vec![Field::lit("--")];
        words.extend(paths);
        self.git_path_writes("stash", &words, env, depth);
    }

    /// Options of git subcommands that run a shell command (`rebase
    /// --exec`, `filter-branch --tree-filter`, `difftool -x`, `grep -O`,
    /// `clone -u`, `send-email --to-cmd`), read as git reads them
    /// ([`crate::opts::gitopts`]: clusters, prefixes; reviews s16 P10, s17 Q5,
    /// Q7), and the subcommands whose remaining words are one (`submodule
    /// foreach CMD…`, `bisect run CMD…`): analysed as shell. `git clone
    /// -c K=V` is configuration, judged as `git -c K=V`.
    pub(crate) fn git_subcommand_programs(
        &mut self,
        sub: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
    ) {
        if let Some(cmd) = crate::opts::gitopts::command(sub) {
            self.git_table_programs(sub, cmd, args, env, depth);
        } else if !crate::opts::gitopts::is_builtin(sub) {
            // An alias or an external command: it may stand for any of
            // them (`alias.x = rebase`, then `git x -ix CMD`), so its words
            // are read by every table.
            for cmd in crate::opts::gitopts::GIT_COMMANDS {
                self.git_table_programs(sub, cmd, args, env, depth);
            }
        }
        // `git submodule [-q|--quiet|--cached] foreach [--recursive] CMD…`
        // (git-submodule.sh takes its own options before the command word,
        // and refuses any other; `submodule--helper foreach` is what it
        // runs), `git bisect run CMD…`.
        // An alias or external command may stand for either.
        let first = args.iter().position(|a| !a.text().starts_with('-'));
        let alias = !crate::opts::gitopts::is_builtin(sub);
        let submodule = alias || sub == "submodule" || sub == "submodule--helper";
        let (sub, start) = match first {
            Some(k) if submodule && args[k].text() == "foreach" => ("submodule", k + 1),
            Some(0) if (alias || sub == "bisect") && args[0].text() == "run" => ("bisect", 1),
            _ => return,
        };
        let mut words = &args[start..];
        if sub == "submodule" {
            // foreach's own options (`--recursive`, `-q`).
            let skip = words
                .iter()
                .take_while(|a| a.text().starts_with('-'))
                .count();
            words = &words[skip..];
        }
        if words.is_empty() {
            return;
        }
        let mut e = env.clone();
        if sub == "submodule" {
            // `foreach` runs its words through the shell.
            let script = words.iter().map(Field::text).collect::<Vec<_>>().join(" ");
            self.script(&script, &mut e, depth + 1, &Output::Unknown);
        } else {
            self.exec(words.to_vec(), &mut e, depth + 1, &Output::Unknown, false);
        }
    }

    /// `git SUB ARGS` read by table `cmd` (SUB's own, or, for an alias,
    /// each one): the values of its command-running options analysed as
    /// shell, an option word only known at run time held, `clone -c K=V`
    /// judged as `git -c K=V`.
    fn git_table_programs(
        &mut self,
        sub: &str,
        cmd: &crate::opts::gitopts::GitCommand,
        args: &[Field],
        env: &mut Env,
        depth: u32,
    ) {
        let read = crate::opts::gitopts::read(&cmd.spec, args);
        let what = if sub == cmd.name {
            format!("`git {sub}`")
        } else {
            format!(
                "`git {sub}` (an alias or external command, read as `git {}`)",
                cmd.name
            )
        };
        if let Some(&k) = read.run_time.first() {
            self.report(
                false,
                "shell.eval-dynamic",
                format!(
                    "{what} is given the option `{}`, whose letters or name are only known at run time: git may \
                     read it as an option that runs a command. Write the options out; a person must approve it as it is.",
                    args[k].text()
                ),
            );
        }
        for f in &read.parsed.found {
            let Some(v) = &f.value else { continue };
            if cmd.scripts.contains(&f.opt.name) {
                self.run_script_field(
                    v,
                    env,
                    depth,
                    &Output::Unknown,
                    &format!("the command of {what}'s `--{}`", f.opt.name),
                );
            } else if cmd.name == "clone" && f.opt.name == "config" {
                self.git_option_config("clone --config", v, env, depth);
            }
        }
    }
}
