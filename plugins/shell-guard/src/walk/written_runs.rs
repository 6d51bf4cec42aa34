//! Files written earlier in the same call and then run: scripts,
//! shebang lines, programs found by name, and makefiles.

use super::*;

impl Analysis<'_> {
    /// A command word that is a path to a file written or made earlier in
    /// the call (review-s9 G11, G2): `echo 'rm -rf ~' > r.sh; ./r.sh` runs
    /// the text written (a `#!` line naming another interpreter is read as
    /// that interpreter's code), `cp /bin/rm y; ./y -rf ~` runs what was
    /// copied, and a file whose content is not known escalates.
    pub(crate) fn run_written_file(
        &mut self,
        argv: &mut [Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) -> WrittenRun {
        let Some(path) = argv.first().and_then(Field::static_text) else {
            return WrittenRun::No;
        };
        let path = if path.contains('/') {
            path
        } else {
            // `PATH=/tmp/s9:$PATH; y -rf ~`: a directory the call put on
            // the search path, as far as it is written out.
            let dirs = env.vars.get("PATH").map(Field::text).unwrap_or_default();
            let found = dirs
                .split(':')
                .filter(|d| !d.is_empty() && !d.contains(['$', '`']))
                .map(|d| format!("{}/{path}", d.trim_end_matches('/')))
                .find(|p| env.written.contains_key(&env.file_key(p)));
            match found {
                Some(p) => p,
                None => return WrittenRun::No,
            }
        };
        match env.written.get(&env.file_key(&path)).cloned() {
            None => WrittenRun::No,
            Some(Written::Copy(program)) => {
                argv[0] = Field::lit(program);
                WrittenRun::Renamed
            }
            Some(Written::Text(text)) => {
                let interpreter = match text.strip_prefix("#!") {
                    Some(rest) => {
                        let line = rest.lines().next().unwrap_or("");
                        match self.shebang(line, argv, env, depth) {
                            Some(i) => Some(i),
                            None => return WrittenRun::Ran(Output::Unknown),
                        }
                    }
                    None => None,
                };
                match interpreter {
                    Some(i) if !i.is_empty() && !crate::walk::commands::is_shell(&i) => {
                        self.embedded_commands(&i, &text, env, depth);
                        WrittenRun::Ran(Output::Unknown)
                    }
                    _ => {
                        let mut e = env.clone();
                        WrittenRun::Ran(self.script(&text, &mut e, depth + 1, stdin))
                    }
                }
            }
            Some(Written::Unknown) => {
                self.report_unknown_written(&path);
                WrittenRun::Ran(Output::Unknown)
            }
        }
    }

    /// The `#!` line `line` (after `#!`) of a file written in this call
    /// and run as `argv`, read as the kernel reads it (binfmt_script: the
    /// interpreter path, then the rest of the line, trimmed, as one
    /// argument): the command `INTERPRETER [ARG] FILE ARGS…` is judged
    /// through the ordinary dispatch, so `#!/usr/bin/env -S rm -rf ~` is
    /// `env -S 'rm -rf ~' FILE` (review s19 S15). Returns the program
    /// that reads the file's text (a shell, an interpreter: its body is
    /// judged as that program's code), or `None` when the call is held
    /// instead: an interpreter the check does not know, an `env` option
    /// it cannot place, a written file as the interpreter.
    fn shebang(&mut self, line: &str, argv: &[Field], env: &Env, depth: u32) -> Option<String> {
        let line = line.trim_matches([' ', '\t']);
        let (path, arg) = match line.find([' ', '\t']) {
            Some(k) => (&line[..k], line[k..].trim_matches([' ', '\t'])),
            None => (line, ""),
        };
        let hold = |this: &mut Self, why: &str| {
            this.report(
                false,
                "shell.eval-dynamic",
                format!(
                    "`{}` runs a file written earlier in the same command whose `#!{line}` line {why}. A person must \
                     approve it as it is.",
                    argv[0].text()
                ),
            );
            None
        };
        if depth > self.opts.max_depth || env.written.contains_key(&env.file_key(path)) {
            return hold(self, "names another written file as its interpreter");
        }
        let name = crate::walk::commands::base_name(path);
        // The program that reads the file: `env`'s command, else the
        // interpreter itself.
        let program = if name == "env" {
            let words = if let Some(split) = arg
                .strip_prefix("-S")
                .or_else(|| arg.strip_prefix("--split-string="))
                .or_else(|| arg.strip_prefix("--split-string"))
            {
                match crate::opts::runopts::env_split_string(split) {
                    Ok(w) => w,
                    Err(why) => return hold(self, &format!("gives `env -S` {why}")),
                }
            } else if arg.starts_with('-') {
                return hold(self, "gives `env` an option the check does not read");
            } else {
                vec![arg.to_string()]
            };
            words
                .into_iter()
                .find(|w| !w.contains('=') && !w.starts_with('-'))
                .map(|w| crate::walk::commands::base_name(&w))
                .unwrap_or_default()
        } else {
            name.clone()
        };
        let known = crate::walk::commands::is_shell(&program)
            || crate::walk::commands::is_interpreter(&program);
        let mut words = vec![Field::lit(path)];
        if !arg.is_empty() {
            words.push(Field::lit(arg));
        }
        words.extend(argv.iter().cloned());
        let mut e = env.clone();
        self.exec(words, &mut e, depth + 1, &Output::Unknown, false);
        if !known {
            return hold(self, "names an interpreter the check does not know");
        }
        Some(program)
    }

    /// What a program lookup prints (`which NAME`, `command -v NAME`,
    /// `type -P NAME`): the path of each program named, taken as
    /// `/usr/bin/NAME` (review-s9 G2: `cp "$(which rm)" y; ./y -rf ~`,
    /// `$(command -v rm) -rf ~`). `None` for any other command.
    pub(crate) fn program_lookup(&self, argv: &[Field]) -> Option<Output> {
        let name = crate::walk::commands::base_name(&argv.first()?.static_text()?);
        let args = &argv[1..];
        let opts: String = args
            .iter()
            .map(Field::text)
            .take_while(|a| a.starts_with('-') && a != "--")
            .collect();
        let applies = match name.as_str() {
            "which" => true,
            "command" => opts.contains(['v', 'V']),
            "type" => opts.contains(['p', 'P']),
            _ => false,
        };
        if !applies {
            return None;
        }
        let mut out = String::new();
        for a in args.iter().skip_while(|a| a.text().starts_with('-')) {
            let t = a.static_text()?;
            if t == "--" {
                continue;
            }
            if t.contains('/') {
                out.push_str(&t);
            } else {
                out.push_str("/usr/bin/");
                out.push_str(&t);
            }
            out.push('\n');
        }
        Some(Output::Static(out))
    }

    /// A shell or interpreter reading a program file (`bash FILE`, `sh
    /// FILE`, `source FILE`, `. FILE`, `bash --rcfile FILE`, `python3
    /// FILE`) written or made earlier in the call: its text is judged as
    /// the script, or as the interpreter's code (review-s9 G11); unknown
    /// content escalates. Returns whether the file was one.
    pub(crate) fn run_written_script(
        &mut self,
        name: &str,
        file: &Field,
        env: &Env,
        depth: u32,
    ) -> bool {
        let Some(path) = file.static_text() else {
            return false;
        };
        let mut key = env.file_key(&path);
        for _ in 0..8 {
            match env.written.get(&key).cloned() {
                None => return false,
                Some(Written::Copy(p)) => key = env.file_key(&p),
                Some(Written::Text(text)) => {
                    if crate::walk::commands::is_shell(name) || matches!(name, "source" | ".") {
                        let mut e = env.clone();
                        self.script(&text, &mut e, depth + 1, &Output::Unknown);
                    } else {
                        self.embedded_commands(name, &text, env, depth);
                    }
                    return true;
                }
                Some(Written::Unknown) => {
                    self.report_unknown_written(&format!("{name} {path}"));
                    return true;
                }
            }
        }
        false
    }

    fn report_unknown_written(&mut self, what: &str) {
        self.report(
            false,
            "shell.eval-dynamic",
            format!(
                "`{what}` runs a file written earlier in the same command with content only known at run time, \
                 so what it runs cannot be checked. Run the commands directly; a person must approve it as it is."
            ),
        );
    }

    /// Files made from others (`cp SRC DST`, `install`, `ln [-s]`, `mv`)
    /// hold what their source held (review-s9 G2, G11): a source written
    /// earlier in the call passes its entry on; any other source is a
    /// program or file copied, run as itself by the new path. Also
    /// `shopt -s cdable_vars` (review-s9 G4).
    pub(super) fn learn_made_files(&mut self, name: &str, args: &[Field], env: &mut Env) {
        if name == "shopt"
            && args.iter().any(|a| a.text() == "-s")
            && args
                .iter()
                .any(|a| a.text() == "cdable_vars" || a.is_dynamic())
        {
            env.cdable_vars = true;
            return;
        }
        if name == "dd" {
            // `dd if=/bin/rm of=y`: a copy, as `cp` makes.
            let value = |k: &str| {
                args.iter()
                    .rev()
                    .find_map(|a| a.static_text()?.strip_prefix(k).map(str::to_string))
            };
            if let Some(dest) = value("of=") {
                let what = match value("if=") {
                    Some(src) => match env.written.get(&env.file_key(&src)) {
                        Some(w) => w.clone(),
                        None => Written::Copy(env.file_key(&src)),
                    },
                    None => Written::Unknown,
                };
                if env.is_a_file(&dest) {
                    let key = env.file_key(&dest);
                    env.written.insert(key, what);
                }
            }
            return;
        }
        if !matches!(name, "cp" | "install" | "ln" | "mv") {
            return;
        }
        let Some(place) = crate::effects::removers::placement(name, args) else {
            return;
        };
        let mut made = Vec::new();
        for source in &place.sources {
            let what = match source.static_text() {
                Some(t) => match env.written.get(&env.file_key(&t)) {
                    Some(w) => w.clone(),
                    None => match self.plain_abs(source, env) {
                        Some(abs) => Written::Copy(abs),
                        None if !t.contains('/') => Written::Copy(t.clone()),
                        None => Written::Unknown,
                    },
                },
                None => match self.plain_abs(source, env) {
                    Some(abs) => Written::Copy(abs),
                    None => Written::Unknown,
                },
            };
            if !place.named_dir {
                made.push((place.dest.clone(), what.clone()));
            }
            if let Some(inside) = crate::effects::removers::inside(&place.dest, source) {
                made.push((inside, what));
            }
        }
        for (dest, what) in made {
            if let Some(t) = dest.static_text() {
                if t.is_empty() || !env.is_a_file(&t) {
                    continue;
                }
                let key = env.file_key(&t);
                env.written.insert(key, what);
            }
        }
    }

    /// `make` (or `make -f FILE`, `-C DIR`) reading a makefile written
    /// earlier in the call (review-s9 G11: `printf 'x:\n\trm -rf ~\n' >
    /// Makefile; make`) or from its standard input (`make -f - <<< …`,
    /// `-f /dev/stdin`, review s9 G3): each recipe line (tab-led) is judged
    /// as a shell command; a makefile whose content is not known escalates.
    pub(crate) fn run_written_makefile(
        &mut self,
        name: &str,
        args: &[Field],
        env: &Env,
        depth: u32,
        stdin: &Output,
    ) {
        let mut files: Vec<String> = Vec::new();
        let mut dir = String::new();
        let mut i = 0;
        while let Some(a) = args.get(i) {
            let t = a.text();
            let next = args.get(i + 1).map(Field::text);
            if let Some(v) = t.strip_prefix("--file=").or(t.strip_prefix("--makefile=")) {
                files.push(v.to_string());
            } else if let Some(v) = t.strip_prefix("--directory=") {
                dir = format!("{v}/");
            } else if matches!(t.as_str(), "-f" | "--file" | "--makefile") {
                files.extend(next);
                i += 1;
            } else if matches!(t.as_str(), "-C" | "--directory") {
                dir = next.map(|d| format!("{d}/")).unwrap_or_default();
                i += 1;
            } else if let Some(v) = t
                .strip_prefix("-f")
                .filter(|v| !v.is_empty() && !t.starts_with("--"))
            {
                files.push(v.to_string());
            } else if let Some(v) = t
                .strip_prefix("-C")
                .filter(|v| !v.is_empty() && !t.starts_with("--"))
            {
                dir = format!("{v}/");
            }
            i += 1;
        }
        if files.is_empty() {
            files = ["GNUmakefile", "makefile", "Makefile"]
                .iter()
                .map(|f| f.to_string())
                .collect();
        }
        for f in files {
            let from_stdin = matches!(
                f.as_str(),
                "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0"
            );
            let path = if f.starts_with('/') {
                f
            } else {
                format!("{dir}{f}")
            };
            let written = if from_stdin {
                match stdin {
                    Output::Static(text) => Some(Written::Text(text.clone())),
                    _ => Some(Written::Unknown),
                }
            } else {
                env.written.get(&env.file_key(&path)).cloned()
            };
            match written {
                Some(Written::Text(text)) => {
                    for line in text.lines().filter_map(|l| l.strip_prefix('\t')) {
                        let line = line.trim_start_matches(['@', '-', '+', ' ', '\t']);
                        let mut e = env.clone();
                        self.script(line, &mut e, depth + 1, &Output::Unknown);
                        if self.done() {
                            return;
                        }
                    }
                }
                Some(_) => self.report_unknown_written(&format!("{name} ({path})")),
                None => {}
            }
        }
    }
}
