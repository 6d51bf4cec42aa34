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
        // `python3 -m pytest`, `-m pip`, `-m tox`: the module is the program.
        let (program, args) = match crate::code::modules::python_module(args) {
            Some((m, rest)) if name.starts_with("python") => (m, rest),
            _ => (name.to_string(), args),
        };
        let mut files: Vec<(String, CodeReader)> = Vec::new();
        for entry in CODE_FILES.iter().filter(|c| {
            c.programs.contains(&program.as_str())
                && c.operand.is_none_or(|w| args.iter().any(|a| a.text() == w))
        }) {
            let named = match entry.reader {
                CodeReader::Make => makefile_options(args).0,
                _ => Vec::new(),
            };
            let names = if named.is_empty() {
                entry.files.iter().map(|f| f.to_string()).collect()
            } else {
                named
            };
            files.extend(names.into_iter().map(|f| (f, entry.reader)));
        }
        let dir = makefile_options(args).1;
        let dir = if program == "make" || program == "gmake" {
            dir
        } else {
            String::new()
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
        files: &["Rakefile", "rakefile", "Rakefile.rb"],
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
        files: &["pom.xml", ".mvn/maven.config", ".mvn/jvm.config"],
        reader: CodeReader::Unread,
    },
];

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
