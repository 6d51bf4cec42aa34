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
    pub(super) fn learn_made_files(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        stdin: &Output,
    ) {
        // Options that change how later commands run (review s25 S6, S8,
        // S20): `shopt -s NAME`, `set -o NAME`, `set -k`.
        if name == "shopt" && args.iter().any(|a| a.text() == "-s") {
            for a in args {
                if a.is_dynamic() {
                    env.options_on.insert("*".to_string());
                } else if !a.text().starts_with('-') {
                    env.options_on.insert(a.text());
                }
            }
        }
        if name == "set" {
            let mut it = args.iter();
            while let Some(a) = it.next() {
                let t = a.text();
                if a.is_dynamic() {
                    env.options_on.insert("*".to_string());
                } else if t == "-o" {
                    match it.next() {
                        Some(o) if !o.is_dynamic() => {
                            env.options_on.insert(o.text());
                        }
                        Some(_) => {
                            env.options_on.insert("*".to_string());
                        }
                        None => {}
                    }
                } else if t.starts_with('-') && !t.starts_with("--") && t[1..].contains('k') {
                    env.options_on.insert("keyword".to_string());
                } else if t == "--" || !t.starts_with(['-', '+']) {
                    break;
                }
            }
        }
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
        // A repository fetched into a directory (review s24 S7): every
        // file there is downloaded, as a file `curl -o` wrote is.
        for dir in fetched_dirs(name, args) {
            env.taint_dir(&dir, &Output::Downloaded);
        }
        // An archive downloaded in the call and extracted (`curl -so
        // r.tar URL && tar -xf r.tar`, `curl URL | tar xz`): every file it
        // fills the directory with is downloaded (review s23 V6).
        if let Some(out) = args
            .iter()
            .filter_map(Field::static_text)
            .find_map(|t| env.file_taint(&t).cloned())
            .or_else(|| stdin.is_tainted().then(|| stdin.clone()))
        {
            for dir in crate::effects::removers::written_dirs(name, args) {
                if let Some(d) = dir.static_text() {
                    env.taint_dir(&d, &out);
                }
            }
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
        // A download copied or moved keeps its taint (review s23 V6:
        // `curl -so m URL; mv m Makefile; make`).
        let taint = place
            .sources
            .iter()
            .filter_map(|f| f.static_text())
            .find_map(|t| env.file_taint(&t).cloned());
        for (dest, what) in made {
            if let Some(t) = dest.static_text() {
                if t.is_empty() || !env.is_a_file(&t) {
                    continue;
                }
                if let Some(out) = &taint {
                    env.taint_file(&t, out);
                }
                let key = env.file_key(&t);
                env.written.insert(key, what);
            }
        }
    }

    /// A program that runs code from files it finds by name or by an
    /// option ([`CODE_FILES`]), one of which this call wrote or downloaded
    /// (review-s9 G11, review s23 V6): the program runs only what the
    /// reader has read. A downloaded one is remote code run
    /// (`shell.remote-exec`); a written one is judged when its text is
    /// read ([`CodeReader`]: make's recipes and `include`s, package.json
    /// `scripts`) and held otherwise (content not known, code in a
    /// language the check does not read). A makefile read from standard
    /// input (`make -f - <<< …`, review s9 G3) counts as written with
    /// that text.
    pub(crate) fn run_code_files(
        &mut self,
        name: &str,
        args: &[Field],
        env: &Env,
        depth: u32,
        stdin: &Output,
    ) {
        let mut files: Vec<(String, CodeReader)> = Vec::new();
        // Python and node load modules from the working directory (`-c`,
        // `-m`, `-e`, `--test`, a REPL) or the script's directory before
        // any other place (review s24 S5): every module written or
        // downloaded there may be what an `import`/`require` loads, even
        // in place of a standard one (`json.py`).
        if let Some((lang, dir, script)) = import_dir(name, args) {
            let patterns = if lang == "node" {
                JS_MODULES
            } else {
                PY_MODULES
            };
            let script = script.map(|s| env.file_key(&s));
            for pattern in patterns {
                match tree_files(env, &dir, pattern) {
                    Err((out, at)) => {
                        self.report_taint(&out, &format!("`{name}` may load modules from `{at}`"));
                        return;
                    }
                    Ok(found) => {
                        for f in found {
                            if Some(&f) != script.as_ref() && !files.iter().any(|(g, _)| *g == f) {
                                files.push((f, CodeReader::Code(lang)));
                            }
                        }
                    }
                }
            }
        }
        // `python3 -m pytest`, `-m pip`, `-m tox`: the module is the program.
        let (program, args) = match crate::code::modules::python_module(args) {
            Some((m, rest)) if name.starts_with("python") => (m, rest),
            _ => (name.to_string(), args),
        };
        let base = match program.as_str() {
            "make" | "gmake" | "ninja" | "samu" => makefile_options(args).1,
            "cmake" | "cmake3" | "ccmake" => cmake_source(args),
            "pip" | "pip3" | "uv" | "poetry" | "pdm" => pip_source(args),
            _ => String::new(),
        };
        for entry in CODE_FILES.iter().filter(|c| {
            c.programs.contains(&program.as_str())
                && c.operand.is_none_or(|w| args.iter().any(|a| a.text() == w))
        }) {
            let named = match entry.reader {
                CodeReader::Make => makefile_options(args).0,
                _ => Vec::new(),
            };
            let names: Vec<String> = if named.is_empty() {
                entry.files.iter().map(|f| f.to_string()).collect()
            } else {
                named
            };
            for f in names {
                if !f.contains("**") {
                    files.push((f, entry.reader));
                    continue;
                }
                // Files found by discovery anywhere in the tree it runs
                // in (review s24 S5, S7): each one the call wrote, and any
                // downloaded tree there.
                match tree_files(env, &base, &f) {
                    Err((out, at)) => {
                        self.report_taint(
                            &out,
                            &format!("`{program}` runs code it finds under `{at}`"),
                        );
                        return;
                    }
                    Ok(found) => {
                        for g in found {
                            if !files.iter().any(|(h, _)| *h == g) {
                                files.push((g, entry.reader));
                            }
                        }
                    }
                }
            }
        }
        // The directory the named files are looked up in.
        let dir = if base.is_empty() {
            String::new()
        } else {
            format!("{}/", base.trim_end_matches('/'))
        };
        let mut seen = 0;
        while let Some((f, reader)) = files.get(seen).cloned() {
            seen += 1;
            if self.done() {
                return;
            }
            if seen > 64 {
                // More files than the reader follows (`include` loops).
                self.report_unknown_written(&format!("{program} ({f})"));
                return;
            }
            let from_stdin = matches!(
                f.as_str(),
                "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0"
            );
            let path = match (f.strip_prefix("~/"), self.home.as_deref()) {
                (Some(rest), Some(h)) => format!("{}/{rest}", h.trim_end_matches('/')),
                (Some(_), None) => continue,
                (None, _) if f.starts_with('/') => f,
                (None, _) => format!("{dir}{f}"),
            };
            let shown = format!("{program} ({path})");
            let written = if from_stdin {
                match stdin {
                    Output::Static(text) => Some(Written::Text(text.clone())),
                    o if o.is_tainted() => {
                        self.report_taint(o, &format!("`{shown}` reads it on standard input"));
                        return;
                    }
                    _ => Some(Written::Unknown),
                }
            } else if let Some(out) = env.file_taint(&path).cloned() {
                self.report_taint(&out, &format!("`{shown}` runs code from it"));
                return;
            } else {
                env.written.get(&env.file_key(&path)).cloned()
            };
            let text = match written {
                None => continue,
                Some(Written::Text(text)) => text,
                Some(_) => {
                    self.report_unknown_written(&shown);
                    return;
                }
            };
            match reader {
                CodeReader::Make => {
                    for line in text.lines() {
                        if let Some(recipe) = line.strip_prefix('\t') {
                            let line = recipe.trim_start_matches(['@', '-', '+', ' ', '\t']);
                            let mut e = env.clone();
                            self.script(line, &mut e, depth + 1, &Output::Unknown);
                            if self.done() {
                                return;
                            }
                        } else if let Some(rest) = ["include ", "-include ", "sinclude "]
                            .iter()
                            .find_map(|k| line.trim_start().strip_prefix(k))
                        {
                            // The makefiles it includes are read too.
                            files.extend(
                                rest.split_whitespace()
                                    .map(|f| (f.to_string(), CodeReader::Make)),
                            );
                        }
                    }
                }
                CodeReader::PackageScripts => {
                    // Text that is not a JSON object is not read (held).
                    let json = serde_json::from_str::<serde_json::Value>(&text).ok();
                    let scripts = match json.as_ref().and_then(|v| v.as_object()) {
                        None => None,
                        Some(o) => match o.get("scripts") {
                            None => Some(Vec::new()),
                            Some(serde_json::Value::Object(m)) => m
                                .values()
                                .map(|v| v.as_str().map(str::to_string))
                                .collect::<Option<Vec<_>>>(),
                            Some(_) => None,
                        },
                    };
                    let Some(scripts) = scripts else {
                        self.report_unknown_written(&shown);
                        return;
                    };
                    for script in scripts {
                        let mut e = env.clone();
                        self.script(&script, &mut e, depth + 1, &Output::Unknown);
                        if self.done() {
                            return;
                        }
                    }
                }
                CodeReader::Code(lang) => {
                    self.embedded_commands(lang, &text, env, depth);
                    if self.done() {
                        return;
                    }
                }
                CodeReader::Unread => {
                    self.report(
                        false,
                        "shell.eval-dynamic",
                        format!(
                            "`{shown}` runs code from a file written earlier in the same command, in a form this \
                             check does not read. Write the file and run the program as separate steps; a person \
                             must approve it as it is."
                        ),
                    );
                    return;
                }
            }
        }
    }
}

/// How the text of a file in [`CODE_FILES`] is read when the call wrote it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CodeReader {
    /// A makefile: each recipe line (tab-led) is a shell command; the
    /// files it `include`s are read the same way.
    Make,
    /// package.json: every `scripts` value is a shell command (any of
    /// them may run: `npm test`, `install` hooks, `npx`).
    PackageScripts,
    /// Code in this interpreter's language: read as that program's code
    /// (the shell commands it runs are judged).
    Code(&'static str),
    /// Code or configuration the check does not read: held.
    Unread,
}

/// One program and the files in its working directory it runs code or
/// commands from.
struct CodeFiles {
    /// The program's names.
    programs: &'static [&'static str],
    /// A word that must be among its arguments (`docker compose`).
    operand: Option<&'static str>,
    /// The files, relative to where it runs.
    files: &'static [&'static str],
    /// How a file's text written in the call is read.
    reader: CodeReader,
}

/// Every program that runs code from a file it finds by name (review s23
/// V6), the one table [`Analysis::run_code_files`] reads: a file here
/// written or downloaded earlier in the call is judged or held before the
/// program runs it. `make -f FILE` names its own makefiles.
const CODE_FILES: &[CodeFiles] = &[
    CodeFiles {
        programs: &["make", "gmake"],
        operand: None,
        files: &["GNUmakefile", "makefile", "Makefile"],
        reader: CodeReader::Make,
    },
    CodeFiles {
        programs: &["npm", "pnpm", "yarn", "npx", "bun", "corepack"],
        operand: None,
        files: &["package.json"],
        reader: CodeReader::PackageScripts,
    },
    CodeFiles {
        programs: &["npm", "pnpm", "yarn", "npx", "bun", "corepack"],
        operand: None,
        files: &[
            ".npmrc",
            "~/.npmrc",
            ".yarnrc",
            ".yarnrc.yml",
            ".pnpmfile.cjs",
            "bunfig.toml",
            ".eslintrc.js",
            ".eslintrc.cjs",
            "eslint.config.js",
            "eslint.config.mjs",
            "vite.config.js",
            "vite.config.ts",
            "webpack.config.js",
            "jest.config.js",
            "babel.config.js",
            ".babelrc.js",
        ],
        reader: CodeReader::Unread,
    },
    // Scripts and tests run by package scripts (`npm test`: jest, mocha,
    // `node --test` discover them).
    CodeFiles {
        programs: &["npm", "pnpm", "yarn", "npx", "bun", "corepack", "deno"],
        operand: None,
        files: JS_MODULES,
        reader: CodeReader::Code("node"),
    },
    CodeFiles {
        programs: &["just"],
        operand: None,
        files: &["justfile", "Justfile", ".justfile"],
        reader: CodeReader::Unread,
    },
    CodeFiles {
        programs: &["task", "go-task"],
        operand: None,
        files: &[
            "Taskfile.yml",
            "Taskfile.yaml",
            "taskfile.yml",
            "taskfile.yaml",
        ],
        reader: CodeReader::Unread,
    },
    CodeFiles {
        programs: &["cargo"],
        operand: None,
        files: &[
            "build.rs",
            ".cargo/config.toml",
            ".cargo/config",
            "~/.cargo/config.toml",
            "Cargo.toml",
            "**/*.rs",
        ],
        reader: CodeReader::Unread,
    },
    CodeFiles {
        programs: &["pytest", "py.test"],
        operand: None,
        files: &[
            "conftest.py",
            "pytest.ini",
            "pyproject.toml",
            "setup.cfg",
            "tox.ini",
        ],
        reader: CodeReader::Unread,
    },
    // Test modules pytest, tox and nox discover and import.
    CodeFiles {
        programs: &["pytest", "py.test", "tox", "nox"],
        operand: None,
        files: PY_MODULES,
        reader: CodeReader::Code("python3"),
    },
    CodeFiles {
        programs: &["tox", "nox"],
        operand: None,
        files: &["tox.ini", "noxfile.py", "pyproject.toml", "setup.cfg"],
        reader: CodeReader::Unread,
    },
    CodeFiles {
        programs: &["pip", "pip3", "uv", "poetry", "pdm", "hatch"],
        operand: None,
        files: &["setup.py", "pyproject.toml", "setup.cfg"],
        reader: CodeReader::Unread,
    },
    CodeFiles {
        programs: &["bundle", "bundler"],
        operand: None,
        files: &["Gemfile", ".bundle/config"],
        reader: CodeReader::Unread,
    },
    CodeFiles {
        programs: &["rake"],
        operand: None,
        files: &[
            "Rakefile",
            "rakefile",
            "Rakefile.rb",
            "rakelib/**",
            "**/*.rake",
            "**/*.rb",
        ],
        reader: CodeReader::Unread,
    },
    CodeFiles {
        programs: &["docker-compose", "podman-compose"],
        operand: None,
        files: COMPOSE_FILES,
        reader: CodeReader::Unread,
    },
    CodeFiles {
        programs: &["docker", "podman"],
        operand: Some("compose"),
        files: COMPOSE_FILES,
        reader: CodeReader::Unread,
    },
    CodeFiles {
        programs: &["deno"],
        operand: None,
        files: &["deno.json", "deno.jsonc"],
        reader: CodeReader::Unread,
    },
    CodeFiles {
        programs: &["gradle", "gradlew"],
        operand: None,
        files: &[
            "build.gradle",
            "build.gradle.kts",
            "settings.gradle",
            "settings.gradle.kts",
            "gradle.properties",
            "buildSrc/**",
            "gradle/**",
            "**/*.gradle",
            "**/*.gradle.kts",
            "**/*.java",
            "**/*.kt",
            "**/*.groovy",
        ],
        reader: CodeReader::Unread,
    },
    // Configuration naming programs the program runs (`~/.wgetrc`
    // `use_askpass`, `~/.curlrc` `output`, `~/.ssh/config` `ProxyCommand`;
    // wget(1) FILES, curl(1) `-K`, ssh_config(5) FILES).
    CodeFiles {
        programs: &["wget"],
        operand: None,
        files: &["~/.wgetrc"],
        reader: CodeReader::Unread,
    },
    CodeFiles {
        programs: &["curl"],
        operand: None,
        files: &["~/.curlrc"],
        reader: CodeReader::Unread,
    },
    CodeFiles {
        programs: &["ssh", "scp", "sftp"],
        operand: None,
        files: &["~/.ssh/config"],
        reader: CodeReader::Unread,
    },
    CodeFiles {
        programs: &["mvn", "mvnw"],
        operand: None,
        files: &[
            "pom.xml",
            ".mvn/**",
            "**/pom.xml",
            "**/*.java",
            "**/*.kt",
            "**/*.groovy",
        ],
        reader: CodeReader::Unread,
    },
    // Build systems whose build files name the commands they run, and
    // Go's test, run and generate (`//go:generate` lines) (review s24 S5).
    CodeFiles {
        programs: &["ninja", "samu"],
        operand: None,
        files: &["**/*.ninja"],
        reader: CodeReader::Unread,
    },
    CodeFiles {
        programs: &["cmake", "cmake3", "ccmake", "ctest"],
        operand: None,
        files: &[
            "**/CMakeLists.txt",
            "**/*.cmake",
            "CMakePresets.json",
            "CMakeUserPresets.json",
        ],
        reader: CodeReader::Unread,
    },
    CodeFiles {
        programs: &["meson", "muon"],
        operand: None,
        files: &["**/meson.build", "**/meson_options.txt", "**/meson.options"],
        reader: CodeReader::Unread,
    },
    CodeFiles {
        programs: &["scons"],
        operand: None,
        files: &[
            "SConstruct",
            "Sconstruct",
            "sconstruct",
            "SConstruct.py",
            "**/SConscript",
            "**/*.py",
        ],
        reader: CodeReader::Unread,
    },
    CodeFiles {
        programs: &["invoke", "inv"],
        operand: None,
        files: &["invoke.yaml", "invoke.yml", "invoke.json", "**/*.py"],
        reader: CodeReader::Unread,
    },
    CodeFiles {
        programs: &["bazel", "bazelisk"],
        operand: None,
        files: &[
            "WORKSPACE",
            "WORKSPACE.bazel",
            "MODULE.bazel",
            ".bazelrc",
            "**/BUILD",
            "**/BUILD.bazel",
            "**/*.bzl",
        ],
        reader: CodeReader::Unread,
    },
    CodeFiles {
        programs: &["go"],
        operand: Some("test"),
        files: GO_FILES,
        reader: CodeReader::Unread,
    },
    CodeFiles {
        programs: &["go"],
        operand: Some("run"),
        files: GO_FILES,
        reader: CodeReader::Unread,
    },
    CodeFiles {
        programs: &["go"],
        operand: Some("generate"),
        files: GO_FILES,
        reader: CodeReader::Unread,
    },
];

/// The Go files `go test`, `go run` and `go generate` compile and run.
const GO_FILES: &[&str] = &["go.mod", "go.work", "**/*.go", "**/*.s", "**/*.c"];

/// The modules Python may import from a directory on its path.
const PY_MODULES: &[&str] = &["**/*.py", "**/*.pth", "**/*.so"];

/// The modules node may `require`/`import` from a directory.
const JS_MODULES: &[&str] = &[
    "**/*.js",
    "**/*.mjs",
    "**/*.cjs",
    "**/*.ts",
    "**/*.mts",
    "**/*.cts",
    "**/*.jsx",
    "**/*.tsx",
    "**/*.node",
];

/// Where a Python or node run loads modules from first (review s24 S5):
/// the working directory for code given inline or on standard input, a
/// module run (`-m`), a test run (`node --test`), else the script's
/// directory. Returns the language (`python3`, `node`), the directory
/// (`""`: the working directory) and the script. `None` for any other
/// program, and for `python -I`/`-P` (no such directory on the path).
fn import_dir(name: &str, args: &[Field]) -> Option<(&'static str, String, Option<String>)> {
    let python = name.starts_with("python") || name.starts_with("pypy");
    let node = matches!(name, "node" | "nodejs");
    if !python && !node {
        return None;
    }
    let texts: Vec<String> = args.iter().map(Field::text).collect();
    let mut i = 0;
    while let Some(t) = texts.get(i) {
        if t == "--" {
            i += 1;
            break;
        }
        if !t.starts_with('-') || t == "-" {
            break;
        }
        if python {
            if t == "--check-hash-based-pycs" {
                i += 2;
                continue;
            }
            if !t.starts_with("--") {
                for (k, c) in t[1..].char_indices() {
                    match c {
                        'I' | 'P' => return None,
                        'c' | 'm' => return Some(("python3", String::new(), None)),
                        'W' | 'X' => {
                            if t[1 + k + 1..].is_empty() {
                                i += 1;
                            }
                            break;
                        }
                        _ => {}
                    }
                }
            }
        } else {
            let flag = t.split('=').next().unwrap_or("");
            if matches!(flag, "-e" | "--eval" | "-p" | "--print" | "--test" | "-pe") {
                return Some(("node", String::new(), None));
            }
            if !t.contains('=')
                && matches!(
                    flag,
                    "-r" | "--require"
                        | "--import"
                        | "--loader"
                        | "--experimental-loader"
                        | "-C"
                        | "--conditions"
                        | "--env-file"
                        | "--input-type"
                        | "--title"
                )
            {
                i += 1;
            }
        }
        i += 1;
    }
    let lang = if python { "python3" } else { "node" };
    match texts.get(i) {
        Some(script) if script != "-" => {
            let dir = match script.rfind('/') {
                Some(0) => "/".to_string(),
                Some(k) => script[..k].to_string(),
                None => String::new(),
            };
            Some((lang, dir, Some(script.clone())))
        }
        _ => Some((lang, String::new(), None)),
    }
}

/// The project directory `pip install` builds (`pip install ./d`, `-e
/// d`, `uv pip install d/`): its first operand written as a path, else
/// the working directory (`""`).
fn pip_source(args: &[Field]) -> String {
    let texts: Vec<String> = args.iter().map(Field::text).collect();
    let mut i = 0;
    while let Some(t) = texts.get(i) {
        if matches!(
            t.as_str(),
            "-r" | "--requirement"
                | "-c"
                | "--constraint"
                | "-i"
                | "--index-url"
                | "--extra-index-url"
                | "-t"
                | "--target"
                | "--prefix"
                | "--root"
                | "-f"
                | "--find-links"
        ) {
            i += 2;
            continue;
        }
        let path = t.strip_prefix("--editable=").unwrap_or(t);
        if !path.starts_with('-')
            && !path.contains("://")
            && (path == "."
                || path.starts_with('/')
                || path.starts_with("./")
                || path.ends_with('/'))
        {
            return path.to_string();
        }
        i += 1;
    }
    String::new()
}

/// cmake's source directory: `-S DIR`, else its one operand (`cmake ..`),
/// else the working directory (`""`).
fn cmake_source(args: &[Field]) -> String {
    let texts: Vec<String> = args.iter().map(Field::text).collect();
    let mut operand = String::new();
    let mut i = 0;
    while let Some(t) = texts.get(i) {
        if t == "-S" {
            return texts.get(i + 1).cloned().unwrap_or_default();
        }
        if let Some(d) = t.strip_prefix("-S").filter(|d| !d.is_empty()) {
            return d.to_string();
        }
        if t == "--build" || t == "--install" || t == "-P" {
            return String::new();
        }
        if matches!(
            t.as_str(),
            "-B" | "-G" | "-T" | "-A" | "-C" | "-D" | "-U" | "-E"
        ) {
            i += 2;
            continue;
        }
        if !t.starts_with('-') && operand.is_empty() {
            operand = t.clone();
        }
        i += 1;
    }
    operand
}

/// The files under `dir` (`""`: the working directory) that match
/// `pattern` and that the call wrote, by key. A pattern is `**/GLOB` (a
/// base name anywhere under `dir`; GLOB has at most one `*`), `SUB/**`
/// (anything under `SUB`) or a path. `Err` with the taint and the place
/// when `dir` lies in a downloaded tree, or downloaded content (a file
/// matching, a filled directory) lies under it (review s24 S7).
fn tree_files(env: &Env, dir: &str, pattern: &str) -> Result<Vec<String>, (Output, String)> {
    let base = env.file_key(if dir.is_empty() { "." } else { dir });
    let base = base.trim_end_matches('/').to_string();
    let here = base.is_empty() || base == ".";
    let under = |k: &str| -> Option<String> {
        if here {
            (!k.starts_with('/')).then(|| k.trim_start_matches("./").to_string())
        } else if base.is_empty() || k == base {
            Some(String::new())
        } else {
            k.strip_prefix(&format!("{base}/")).map(str::to_string)
        }
    };
    if !here && let Some(out) = env.file_taint(&format!("{base}/.")) {
        return Err((out.clone(), base));
    }
    for (k, out) in &env.tainted_files {
        if let Some(rel) = under(k)
            && (rel.is_empty() || rel.ends_with('/') || tree_match(pattern, &rel))
        {
            return Err((out.clone(), k.clone()));
        }
    }
    let mut found: Vec<String> = env
        .written
        .keys()
        .filter(|k| under(k).is_some_and(|rel| tree_match(pattern, &rel)))
        .cloned()
        .collect();
    found.sort();
    Ok(found)
}

/// Whether the relative path `rel` matches a [`tree_files`] pattern.
fn tree_match(pattern: &str, rel: &str) -> bool {
    if let Some(glob) = pattern.strip_prefix("**/") {
        let name = rel.rsplit('/').next().unwrap_or(rel);
        match glob.split_once('*') {
            Some((p, s)) => {
                name.len() >= p.len() + s.len() && name.starts_with(p) && name.ends_with(s)
            }
            None => name == glob,
        }
    } else if let Some(sub) = pattern.strip_suffix("/**") {
        rel.starts_with(&format!("{sub}/"))
    } else {
        rel == pattern
    }
}

/// The files `docker compose` reads its services from.
const COMPOSE_FILES: &[&str] = &[
    "compose.yml",
    "compose.yaml",
    "docker-compose.yml",
    "docker-compose.yaml",
    "docker-compose.override.yml",
    "compose.override.yml",
];

/// make's `-f FILE` makefiles (`--file`, `--makefile`, `-fFILE`) and its
/// `-C DIR` directory (with a trailing `/`, empty when not given).
fn makefile_options(args: &[Field]) -> (Vec<String>, String) {
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
    (files, dir)
}

/// The directories a program fills with files fetched from elsewhere
/// (review s24 S7): `git clone SRC [DIR]` (DIR: SRC's last part without
/// `.git`), `gh repo clone REPO [DIR]`, `hg clone SRC [DIR]`, `svn
/// checkout|co|export URL [DIR]`, and the working tree of `git pull SRC`
/// / `git fetch SRC` naming a repository by URL or path (a configured
/// remote's name is the project's own). Only written-out names count.
fn fetched_dirs(name: &str, args: &[Field]) -> Vec<String> {
    let texts: Vec<String> = args.iter().map(Field::text).collect();
    // Global options before the subcommand: `git -C DIR`.
    let mut at = String::new();
    let mut i = 0;
    while let Some(t) = texts.get(i) {
        if !t.starts_with('-') {
            break;
        }
        if matches!(t.as_str(), "-C" | "-R" | "--repository" | "--cwd") {
            if let Some(d) = texts.get(i + 1) {
                at = format!("{}/", d.trim_end_matches('/'));
            }
            i += 1;
        } else if matches!(t.as_str(), "-c" | "--config" | "--git-dir" | "--work-tree") {
            i += 1;
        }
        i += 1;
    }
    let sub = texts.get(i).map(String::as_str).unwrap_or("");
    let sub2 = texts.get(i + 1).map(String::as_str).unwrap_or("");
    let rest = |from: usize| -> Vec<&str> {
        let mut out = Vec::new();
        let mut k = from;
        while let Some(t) = texts.get(k) {
            if t == "--" {
                out.extend(texts[k + 1..].iter().map(String::as_str));
                break;
            }
            if t.starts_with('-') {
                // Options with a separate value (clone, pull, fetch,
                // checkout): `-b B`, `--depth N`, `-o NAME`, `-r REV`.
                let valued = crate::opts::gitopts::CLONE_VALUE_OPTIONS.contains(&t.as_str())
                    || matches!(
                        t.as_str(),
                        "-r" | "--rev"
                            | "--revision"
                            | "-U"
                            | "--updaterev"
                            | "--username"
                            | "--password"
                            | "-s"
                            | "--strategy"
                            | "-X"
                            | "--strategy-option"
                    );
                k += if valued { 2 } else { 1 };
                continue;
            }
            out.push(t.as_str());
            k += 1;
        }
        out
    };
    let clone_dest = |ops: &[&str]| -> Option<String> {
        let dest = match ops.get(1) {
            Some(d) => d.to_string(),
            None => {
                let src = ops.first()?.trim_end_matches('/');
                let last = src.rsplit(['/', ':']).next().unwrap_or(src);
                let last = last.strip_suffix(".git").unwrap_or(last);
                if last.is_empty() {
                    return None;
                }
                last.to_string()
            }
        };
        Some(if dest.starts_with('/') || dest.starts_with('~') {
            dest
        } else {
            format!("{at}{dest}")
        })
    };
    let from_elsewhere = |src: &str| src.contains("://") || src.contains(':') || src.contains('/');
    let mut dirs = Vec::new();
    match (name, sub) {
        ("git" | "hg", "clone") => dirs.extend(clone_dest(&rest(i + 1))),
        ("gh", "repo") if sub2 == "clone" => dirs.extend(clone_dest(&rest(i + 2))),
        ("svn", "checkout" | "co" | "export") => {
            let ops = rest(i + 1);
            match ops.get(1) {
                Some(d) => dirs.extend(clone_dest(&[ops[0], d])),
                None => dirs.extend(clone_dest(&ops)),
            }
        }
        ("git" | "hg", "pull" | "fetch")
            if rest(i + 1).first().is_some_and(|s| from_elsewhere(s)) =>
        {
            dirs.push(if at.is_empty() { ".".to_string() } else { at });
        }
        _ => {}
    }
    dirs.retain(|d| !d.is_empty() && !d.contains(['$', '`']));
    dirs
}
