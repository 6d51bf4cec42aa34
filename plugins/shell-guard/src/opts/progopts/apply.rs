//! The tables applied to a command: each word placed by its program's
//! table, values that are shell text or programs judged as commands, code
//! in another language, configuration files and option-reading variables
//! held, and the options keyed by words rather than letters (python's code
//! modules, `cargo --config KEY=value`, npm's `--KEY`).

use super::*;

impl Analysis<'_> {
    /// Hold a call of `name`, given `what`.
    fn hold_table(&mut self, name: &str, what: &str) {
        self.report(
            false,
            "shell.eval-dynamic",
            format!(
                "`{name}` is given {what}. The check only passes `{name}` when each of its options is one its \
                 table places and none runs or loads what the check cannot read. A person must approve it as it is."
            ),
        );
    }

    /// Hold a call made with variable `name` set, for `what`.
    fn hold_variable(&mut self, name: &str, what: &str) {
        self.report(
            false,
            "shell.eval-dynamic",
            format!(
                "The command sets `{name}`, {what}. A variable a program reads as its options, code, programs or \
                 configuration passes only when its value is proven plain data. A person must approve it as it is."
            ),
        );
    }

    /// Judge a value that names a program run (`sort --compress-program=P`)
    /// as `P` run here: a script written earlier in the call is read.
    fn run_program_value(&mut self, value: &Field, env: &mut Env, depth: u32, via: &str) {
        let field = match value.static_text() {
            Some(t) => Field::lit(quoted(&t)),
            None => value.clone(),
        };
        self.run_script_field(&field, env, depth, &Output::Unknown, via);
    }

    /// A configuration file or directory (list) read by `name`: held when
    /// only known at run time or written earlier in the call.
    /// `var`: `name` is a variable, not a program.
    fn config_value(
        &mut self,
        name: &str,
        what: &str,
        value: &Field,
        env: &Env,
        list: bool,
        var: bool,
    ) {
        let hold = |a: &mut Self, w: &str| {
            if var {
                a.hold_variable(name, w);
            } else {
                a.hold_table(name, w);
            }
        };
        let Some(t) = value.static_text() else {
            hold(self, &format!("{what} only known at run time"));
            return;
        };
        let parts: Vec<&str> = if list {
            t.split(':').collect()
        } else {
            vec![&t]
        };
        if parts
            .iter()
            .any(|p| !p.is_empty() && p != &"-" && written_under(env, p))
        {
            hold(
                self,
                &format!(
                    "{what} `{t}`, written earlier in the same command, which is read as configuration or code"
                ),
            );
        }
    }

    /// Judge program `name`'s words by its table ([`table_of`]), with
    /// `stdin`: see the module's property.
    pub(crate) fn program_table(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) {
        self.keyed_options(name, args, env, depth);
        let Some(t) = table_of(name) else { return };
        let words = if t.names.contains(&"tar") {
            tar_old_style(&t.spec, args)
        } else {
            args.to_vec()
        };
        let mut p = getopt::parse(&t.spec, &words);
        let mut found = p.found.clone();
        if name == "ssh"
            && let Some(&host) = p.operands.first()
        {
            // ssh reads options after the destination too, up to the
            // remote command.
            let q = getopt::parse(&t.spec, &words[host + 1..]);
            found.extend(q.found);
            p.problems.extend(q.problems);
        }
        // A word read where the program reads options, only known at run
        // time, may be any option (`tar -xf x.tar $O` with `O` set to
        // `--to-command=…` by an earlier call): it cannot be placed.
        let dashes = words
            .iter()
            .position(|w| w.static_text().as_deref() == Some("--"))
            .unwrap_or(words.len());
        let option_words = if t.spec.permute {
            dashes
        } else {
            (p.end + 1).min(dashes)
        };
        if name != "strace"
            && let Some(w) = p
                .operands
                .iter()
                .filter(|i| **i < option_words)
                .map(|i| &words[*i])
                .find(|w| may_be_option(w))
        {
            self.hold_table(
                name,
                &format!(
                    "`{}`, only known at run time, where it reads options (put the value after `--`, or give it literally)",
                    w.text()
                ),
            );
        }
        if !p.problems.is_empty() && name != "strace" {
            self.hold_table(
                name,
                &format!(
                    "an option its table does not place ({})",
                    p.problems.join("; ")
                ),
            );
        }
        for f in &found {
            let Some((_, role)) = t.roles.iter().find(|(n, _)| *n == f.opt.name) else {
                continue;
            };
            let Some(value) = &f.value else { continue };
            let via = format!("`{name} --{}`", f.opt.name);
            let text = value.static_text();
            match role {
                Role::Shell => {
                    if f.opt.name == "checkpoint-action" {
                        match text.as_deref().map(|t| t.strip_prefix("exec=")) {
                            Some(Some(cmd)) => {
                                let c = Field::lit(cmd);
                                self.run_script_field(&c, env, depth, &Output::Unknown, &via);
                            }
                            Some(None) => {}
                            None => self.hold_table(name, "a checkpoint action only known at run time"),
                        }
                        continue;
                    }
                    self.run_script_field(value, env, depth, &Output::Unknown, &via);
                }
                Role::Program => self.run_program_value(value, env, depth, &via),
                Role::Hold => self.hold_table(
                    name,
                    &format!("{via}, code or a library the check does not read"),
                ),
                Role::Config if name == "sftp" && text.as_deref() == Some("-") => {
                    self.sftp_batch(stdin, env, depth)
                }
                Role::Config => {
                    if !matches!(name, "make" | "gmake") || text.is_none() {
                        self.config_value(name, &via, value, env, false, false);
                    }
                }
                Role::SshOption => match text.as_deref().map(ssh_option) {
                    Some(SshOption::Shell(cmd)) => {
                        let c = Field::lit(cmd);
                        self.run_script_field(&c, env, depth, &Output::Unknown, &format!("`{name} -o`"));
                    }
                    Some(SshOption::Data) => {}
                    Some(SshOption::Hold) | None => self.hold_table(
                        name,
                        &format!("`-o {}`, which loads a library or reads configuration the check cannot see", value.text()),
                    ),
                },
                Role::PipeOrFile => match text {
                    Some(t) => {
                        if let Some(cmd) = t.strip_prefix('|').or_else(|| t.strip_prefix('!')) {
                            let c = Field::lit(cmd);
                            self.run_script_field(&c, env, depth, &Output::Unknown, &via);
                        }
                    }
                    None => self.hold_table(name, "an output only known at run time, which may be `|COMMAND`"),
                },
                Role::Wgetrc => {
                    if !text.as_deref().is_some_and(wgetrc_command) {
                        self.hold_table(
                            name,
                            &format!("`-e {}`, a wgetrc command that may write files or run a program", value.text()),
                        );
                    }
                }
                Role::Awk => match text {
                    Some(code) => self.embedded_commands(name, &code, env, depth),
                    None => self.hold_table(name, "program text only known at run time"),
                },
                Role::Dc => {
                    if text.is_none_or(|t| t.contains('!')) {
                        self.hold_table(name, &format!("{via} text with `!`, which runs a shell command"));
                    }
                }
            }
        }
        match t.operands {
            Operands::Data => {}
            Operands::MakeAssignments => {
                for &i in &p.operands {
                    let w = words[i].text();
                    if let Some((var, val)) = w.split_once('=')
                        && !var.is_empty()
                        && !var.contains(['/', ' '])
                    {
                        // `NAME:=V`, `NAME+=V`, `NAME::=V`, `NAME?=V`.
                        let var = var.trim_end_matches([':', '+', '?', '!']);
                        match words[i].static_text() {
                            Some(_) => self.make_variable(var, &Field::lit(val), env, depth),
                            None => self.hold_table(name, &format!("the assignment `{w}`, which make expands (`$(shell …)` runs commands)")),
                        }
                    }
                }
            }
            Operands::DcFiles => {
                if !p.operands.is_empty() {
                    self.hold_table(
                        name,
                        "a file of dc text the check cannot read (`!` in it runs a shell command)",
                    );
                } else if found.is_empty() {
                    match stdin {
                        Output::Static(s) if !s.contains('!') => {}
                        _ => self.hold_table(name, "dc text on standard input with `!` or from a source the check does not trust"),
                    }
                }
            }
        }
    }

    /// Judge `name=value`, set for a command or exported, when
    /// [`variable_role`] knows it. Whether it did.
    pub(crate) fn program_variable(
        &mut self,
        name: &str,
        value: &Field,
        env: &mut Env,
        depth: u32,
        runs_shell: bool,
    ) -> bool {
        let Some(role) = variable_role(name) else {
            return false;
        };
        let text = value.static_text();
        if text.as_deref() == Some("") {
            return true;
        }
        let via = format!("`{name}`");
        match role {
            VarRole::Options(t) => {
                let Some(text) = text else {
                    self.hold_variable(name, "options only known at run time");
                    return true;
                };
                let mut words: Vec<Field> = text.split_whitespace().map(Field::lit).collect();
                // MAKEFLAGS: the first word may be letters without a dash.
                if let Some(first) = words.first().map(Field::text)
                    && !first.starts_with('-')
                    && !first.contains('=')
                {
                    words[0] = Field::lit(format!("-{first}"));
                }
                let p = getopt::parse(&t.spec, &words);
                let placed = p.problems.is_empty()
                    && !text.contains(['\\', '\'', '"', '$', '`'])
                    && p.operands.iter().all(|i| !words[*i].text().contains('='))
                    && p.found
                        .iter()
                        .all(|f| !t.roles.iter().any(|(n, _)| *n == f.opt.name));
                if !placed {
                    self.hold_variable(
                        name,
                        &format!(
                            "options (`{text}`) that the program's table does not prove plain data"
                        ),
                    );
                }
            }
            VarRole::Flags(letters) => {
                let inert = text.as_deref().is_some_and(|t| {
                    t.split_whitespace().all(|w| {
                        w.strip_prefix('-')
                            .is_some_and(|l| l.chars().all(|c| letters.contains(c)))
                    })
                });
                if !inert {
                    self.hold_variable(
                        name,
                        &format!("options (`{}`) that are not plain flags", value.text()),
                    );
                }
            }
            VarRole::Shell => {
                let script = match &text {
                    // `LESSOPEN='|cmd %s'`.
                    Some(t) => Field::lit(t.trim_start_matches('|')),
                    None => value.clone(),
                };
                self.run_script_field(
                    &script,
                    env,
                    depth,
                    &Output::Unknown,
                    &format!("the command in {via}"),
                );
            }
            VarRole::StartupFile => {
                let t = value.text();
                let harmless = t == "/dev/null";
                // `ENV=production npm start` is common and harmless: `ENV`
                // counts when it names a file (or one written in the
                // call), or is given to a shell.
                let file_like = t.contains('/')
                    || t.starts_with(['~', '.']) && text.is_some()
                    || env.written.contains_key(&env.file_key(&t));
                if !(harmless || (name == "ENV" && !(file_like || runs_shell))) {
                    self.code_file_variable(name, value, env, depth);
                }
            }
            VarRole::LoadOptions(opts) => {
                let t = value.text();
                let loads = t.split_whitespace().any(|w| {
                    opts.iter().any(|o| {
                        w == *o
                            || (w.starts_with(o) && (o.len() == 2 || w[o.len()..].starts_with('=')))
                    })
                });
                if loads || value.is_dynamic() && name != "NODE_OPTIONS" {
                    self.report(
                        false,
                        "shell.eval-dynamic",
                        format!(
                            "`{name}` makes the interpreter load code (`{t}`) that the analysis cannot read. A person \
                             must approve it; run the code as a file of its own instead."
                        ),
                    );
                }
            }
            VarRole::Program => {
                self.run_program_value(value, env, depth, &format!("the program in {via}"))
            }
            VarRole::Hold => self.hold_variable(
                name,
                &format!(
                    "to `{}`: options or code the program reads that the check does not",
                    value.text()
                ),
            ),
            VarRole::Config => {
                let list = name.ends_with("PATH") || name.ends_with("LIB");
                self.config_value(name, &format!("{via} naming"), value, env, list, true);
            }
            VarRole::CompilerFlags => {
                if !text.as_deref().is_some_and(plain_flags) {
                    self.hold_variable(
                        name,
                        &format!(
                            "compiler or linker flags (`{}`) that are not plain flags: they may name a linker, \
                             plugin or wrapper the build runs",
                            value.text()
                        ),
                    );
                }
            }
            VarRole::OutputFile => match text.as_deref() {
                Some(t) if t.starts_with('/') => {
                    let f = Field::lit(t);
                    self.check_write(&f, env, &Output::Unknown, &via, false, depth);
                }
                Some(t)
                    if t.chars().all(|c| c.is_ascii_digit())
                        || matches!(
                            t.to_ascii_lowercase().as_str(),
                            "true" | "false" | "yes" | "no" | "on" | "off"
                        ) => {}
                _ => self.hold_variable(
                    name,
                    &format!("naming `{}`, a file the program writes", value.text()),
                ),
            },
        }
        true
    }

    /// `sftp -b -`: the batch is standard input (sftp(1)); a `!CMD` line
    /// (after sftp's `-`/`@` prefixes) runs CMD in a local shell, judged
    /// as that command; input the check cannot read is held (review s23
    /// V9).
    fn sftp_batch(&mut self, stdin: &Output, env: &mut Env, depth: u32) {
        let Output::Static(text) = stdin else {
            self.hold_table("sftp", "`-b -`, a batch read from standard input the check cannot read (`!CMD` runs a shell command)");
            return;
        };
        for line in text.lines() {
            let l = line
                .trim_start()
                .trim_start_matches(['-', '@'])
                .trim_start();
            if let Some(cmd) = l.strip_prefix('!') {
                let c = Field::lit(cmd);
                self.run_script_field(&c, env, depth, &Output::Unknown, "`sftp -b -` `!`");
            }
        }
    }

    /// A variable set for make, on its command line (`make NAME=VALUE`)
    /// or in its environment (`NAME=VALUE make`, which make imports):
    /// judged by [`PROGRAM_VARIABLES`] when it is one there (`CC` as shell
    /// text, `SHELL` as a program, `CFLAGS` as flags, `.SHELLFLAGS` as
    /// flags), otherwise held unless its value is a plain word
    /// ([`plain_word`]): make expands it and recipes may run it (review
    /// s23 V2, V9).
    pub(crate) fn make_variable(&mut self, name: &str, value: &Field, env: &mut Env, depth: u32) {
        if self.program_variable(name, value, env, depth, false) {
            return;
        }
        if !value.static_text().as_deref().is_some_and(plain_word) {
            self.hold_table(
                "make",
                &format!(
                    "the variable `{name}={}`, which make expands and its recipes may run (`$(shell …)`, shell text)",
                    value.text()
                ),
            );
        }
    }
}

/// Python standard-library modules whose command line runs code given as
/// its words (python(1) and each module's documentation): `timeit`
/// statements and `-s` setup, `pdb -c` debugger commands (`!stmt`),
/// `idlelib -c`, `code`/`asyncio` (a console reading standard input).
/// The check does not read Python text there: held.
const CODE_MODULES: &[&str] = &["timeit", "pdb", "idlelib", "code", "asyncio"];

/// Cargo configuration keys (Cargo reference, "Configuration") given with
/// `--config KEY=VALUE` that only tune a build; any other key (a
/// `runner`, `rustc-wrapper`, `linker`, `credential-provider`, an alias)
/// may name a program cargo runs, and a `--config FILE` is a file of
/// them: held.
const CARGO_INERT_KEYS: &[&str] = &[
    "build.jobs",
    "build.incremental",
    "term.",
    "net.",
    "http.timeout",
    "http.low-speed-limit",
    "http.multiplexing",
    "profile.",
];

/// npm configuration keys (npm-config(7)) whose value is a program npm
/// runs (`--script-shell` runs every script): read as a program. npm's
/// option parser (nopt) takes a unique prefix: a prefix of three letters
/// or more counts as the key here (stricter).
const NPM_PROGRAM_KEYS: &[&str] = &["script-shell", "shell", "editor", "browser", "git"];

/// npm keys naming a configuration file or Node's options: held when set.
const NPM_HOLD_KEYS: &[&str] = &["userconfig", "globalconfig", "node-options"];

impl Analysis<'_> {
    /// The option rules of programs whose tables are keyed by words, not
    /// options: python's code modules, `cargo --config`, npm's program
    /// keys, `curl --config`, `enable -f`.
    fn keyed_options(&mut self, name: &str, args: &[Field], env: &mut Env, depth: u32) {
        if crate::walk::commands::is_python(name)
            && let Some((module, _)) = crate::code::modules::python_module(args)
            && CODE_MODULES.contains(&module.as_str())
        {
            self.hold_table(
                name,
                &format!("`-m {module}`, which runs Python code or debugger commands from its words or input"),
            );
        }
        let texts: Vec<String> = args.iter().map(Field::text).collect();
        if name == "cargo" {
            for (i, t) in texts.iter().enumerate() {
                let value = match t.strip_prefix("--config") {
                    Some("") => args.get(i + 1),
                    Some(v) if v.starts_with('=') => None,
                    _ => continue,
                };
                let value = value
                    .cloned()
                    .unwrap_or_else(|| Field::lit(&t["--config=".len()..]));
                match value.static_text() {
                    Some(v) if v.contains('=') => {
                        let key = v
                            .split('=')
                            .next()
                            .unwrap_or("")
                            .trim()
                            .replace(['"', '\''], "");
                        if !CARGO_INERT_KEYS.iter().any(|k| {
                            if k.ends_with('.') {
                                key.starts_with(k)
                            } else {
                                key == *k
                            }
                        }) {
                            self.hold_table(
                                name,
                                &format!(
                                    "`--config {v}`, a setting that may name a program cargo runs"
                                ),
                            );
                        }
                    }
                    _ => self.hold_table(
                        name,
                        &format!("`--config {}`, a configuration file", value.text()),
                    ),
                }
            }
        }
        if matches!(name, "npm" | "npx") {
            for (i, t) in texts.iter().enumerate() {
                let Some(body) = t.strip_prefix("--") else {
                    continue;
                };
                let (key, joined) = match body.split_once('=') {
                    Some((k, v)) => (k, Some(v)),
                    None => (body, None),
                };
                let value = || joined.map(Field::lit).or_else(|| args.get(i + 1).cloned());
                if key.len() >= 3 && NPM_PROGRAM_KEYS.iter().any(|k| k.starts_with(key)) {
                    if let Some(v) = value() {
                        self.run_program_value(&v, env, depth, &format!("`{name} --{key}`"));
                    }
                } else if NPM_HOLD_KEYS.contains(&key) {
                    self.hold_table(
                        name,
                        &format!(
                            "`--{key}`, configuration or Node options the check does not read"
                        ),
                    );
                }
            }
        }
        // curl(1) `-K, --config FILE`: a file of curl options (`output`,
        // `upload-file`, …); one written in the same call is held.
        if name == "curl" {
            for (i, t) in texts.iter().enumerate() {
                let value = match t.as_str() {
                    "-K" | "--config" => args.get(i + 1).cloned(),
                    _ => t
                        .strip_prefix("--config=")
                        .or_else(|| t.strip_prefix("-K").filter(|v| !v.is_empty()))
                        .map(Field::lit),
                };
                if let Some(v) = value {
                    self.config_value(name, "`curl --config`", &v, env, false, false);
                }
            }
        }
        // bash's `enable -f FILE NAME` loads a builtin from a shared object.
        if name == "enable"
            && texts
                .iter()
                .take_while(|t| t.starts_with('-') && *t != "--")
                .any(|t| t.contains('f'))
        {
            self.hold_table(name, "`-f`, which loads a shared object into the shell");
        }
    }
}
