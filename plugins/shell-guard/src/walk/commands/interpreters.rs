//! Shells and interpreters: `bash -c`, scripts given by file or on
//! standard input, inline code (`python -c`, PowerShell) and the commands
//! found embedded in that code.

use super::*;

/// The code joined to a code option in a short-option cluster of an
/// interpreter (`-c"CODE"`, `-Ic"CODE"`, `-we'CODE'`), read as the
/// interpreter's getopt reads it: flags, then the code letter with the
/// rest of the word; a letter taking a value first (`-W`, `-X`, `-m` for
/// Python, `-I`, `-M`, `-i` for Perl) ends the cluster without code.
fn joined_code(name: &str, word: &str, code_letters: &[char]) -> Option<String> {
    let (values, _) = option_values(name);
    if values.is_empty() {
        return None;
    }
    let cluster = word.strip_prefix('-').filter(|c| !c.starts_with('-'))?;
    for (k, c) in cluster.char_indices() {
        let rest = &cluster[k + c.len_utf8()..];
        if code_letters.contains(&c) {
            return (!rest.is_empty()).then(|| rest.to_string());
        }
        if values.contains(c) {
            return None;
        }
    }
    None
}

/// Whether the option word `word` ends in a code letter that takes the
/// next word as code, as the interpreter's getopt reads the cluster: a
/// letter taking a value earlier in it takes the rest as that value
/// (`perl -MLWP::Simple -e CODE`: `-M`'s value ends in `e`, and the code
/// is the word after `-e`; review s23 V21). Interpreters without an
/// option table are read by the last letter alone.
fn ends_in_code_letter(name: &str, word: &str, code_letters: &[char]) -> bool {
    if !word.ends_with(code_letters) {
        return false;
    }
    let (values, _) = option_values(name);
    let Some(cluster) = word.strip_prefix('-').filter(|c| !c.starts_with('-')) else {
        return true;
    };
    if values.is_empty() {
        return true;
    }
    for (k, c) in cluster.char_indices() {
        let last = k + c.len_utf8() == cluster.len();
        if last {
            return code_letters.contains(&c);
        }
        if values.contains(c) {
            return false;
        }
    }
    false
}

/// Whether `name` is PowerShell (`pwsh`, Windows PowerShell).
fn is_powershell(name: &str) -> bool {
    matches!(
        name.to_ascii_lowercase().as_str(),
        "pwsh" | "powershell" | "pwsh.exe" | "powershell.exe"
    )
}

/// The options of interpreter `name` that take a value, as its own option
/// parser reads them: the short option letters (a value joined to the
/// letter, or else the next word) and the long options that take the next
/// word as their value. Empty for interpreters not listed.
fn option_values(name: &str) -> (&'static str, &'static [&'static str]) {
    if is_python(name) {
        ("WXmQ", &["--check-hash-based-pycs"])
    } else if name.starts_with("perl") {
        ("IMmixdD", &[])
    } else if name.starts_with("ruby") {
        // `-W` takes only a joined level (`-W0`, `-W:no-deprecated`).
        (
            "IrCFKTx0",
            &[
                "--encoding",
                "--external-encoding",
                "--internal-encoding",
                "--enable",
                "--disable",
                "--dump",
            ],
        )
    } else if name.starts_with("php") {
        (
            "cdfztSF",
            &["--php-ini", "--define", "--zend-extension", "--docroot"],
        )
    } else if matches!(name, "node" | "nodejs" | "bun") {
        (
            "rC",
            &[
                "--require",
                "--import",
                "--input-type",
                "--title",
                "--loader",
                "--experimental-loader",
                "--conditions",
                "--env-file",
                "--inspect-port",
                "--redirect-warnings",
                "--preserve-symlinks-main",
                "--stack-trace-limit",
                "--experimental-default-type",
                "--diagnostic-dir",
                "--report-dir",
                "--icu-data-dir",
                "--openssl-config",
                "--watch-path",
                "--test-reporter",
                "--test-reporter-destination",
            ],
        )
    } else {
        ("", &[])
    }
}

/// The value-taking letter that ends short-option cluster `word` of
/// interpreter `name` with its value in the next word (`-X` in `-X utf8`,
/// `-BX` in `-BX utf8`, `-r` in `node -r M`), read left to right as getopt
/// does: a value-taking letter before the end takes the rest of the word.
fn value_taking_last(name: &str, word: &str) -> Option<char> {
    let (values, _) = option_values(name);
    let cluster = word
        .strip_prefix('-')
        .filter(|c| !c.is_empty() && !c.starts_with('-'))?;
    for (k, c) in cluster.char_indices() {
        if values.contains(c) {
            return (k + c.len_utf8() == cluster.len()).then_some(c);
        }
    }
    None
}

impl Analysis<'_> {
    /// A script given as one argument (`bash -c S`, `su -c S`, `eval S`).
    pub(crate) fn run_script_field(
        &mut self,
        field: &Field,
        env: &mut Env,
        depth: u32,
        stdin: &Output,
        via: &str,
    ) -> Output {
        if let Some(text) = field.static_text() {
            let mut e = env.clone();
            let out = self.script(&text, &mut e, depth + 1, stdin);
            // Files the child wrote outlive it (review-s9 G11).
            env.absorb_files(&e);
            return out;
        }
        let out = field.output();
        if out.is_tainted() {
            self.report_taint(&out, &format!("as the script of `{via}`"));
            return Output::Unknown;
        }
        if has_unknown_variable(field) {
            self.report(
                false,
                "shell.eval-dynamic",
                format!(
                    "`{via}` runs a script held in a variable whose value is not known here, so it cannot be checked. \
                     Pass the command text directly; a person must approve it as it is."
                ),
            );
            return Output::Unknown;
        }
        let mut e = env.clone();
        self.script(&field.text(), &mut e, depth + 1, stdin)
    }

    /// A shell or interpreter reading its program from standard input.
    pub(crate) fn stdin_program(
        &mut self,
        name: &str,
        stdin: &Output,
        env: &Env,
        depth: u32,
        analyse_static: bool,
    ) {
        match stdin {
            Output::Static(text) if analyse_static => {
                let mut e = env.clone();
                self.script(text, &mut e, depth + 1, &Output::Unknown);
            }
            out => self.piped_program(name, out),
        }
    }

    /// A program read from a process substitution (`bash <(…)`, `source
    /// <(…)`, `python3 <(…)`) whose output is not known text: a pipe
    /// from an unproven producer, held as [`Analysis::piped_program`]
    /// holds one on standard input (review s23 V23).
    fn procsub_program(&mut self, name: &str, seg: &Seg) {
        if let Seg::Dyn { raw, out, .. } = seg
            && raw == "<(…)"
            && !matches!(out, Output::Static(_))
        {
            let outer = std::mem::replace(&mut self.unproven_pipe, true);
            self.piped_program(name, out);
            self.unproven_pipe = outer;
        }
    }

    /// A program read from standard input that is not known text: the
    /// taint is reported, and a pipe from a producer whose output is not
    /// proven is held (review s23 V23). Only a producer the walk models
    /// (`echo`, `printf`, `cat` of known text, the filters) proves what
    /// it prints; `python3 -c 'print(…)'`, `yes`, `date +FMT` and any
    /// other program may print commands from their own arguments.
    pub(crate) fn piped_program(&mut self, name: &str, out: &Output) {
        self.report_taint(out, &format!("piped into `{name}`"));
        if self.unproven_pipe && !matches!(out, Output::Static(_)) {
            self.report(
                false,
                "shell.eval-dynamic",
                format!(
                    "`{name}` runs commands read from a pipe whose producer's output is not known here (only \
                     literal text such as `echo`/`printf` of a known string is read), so what runs cannot be \
                     checked. Run the commands directly; a person must approve it as it is."
                ),
            );
        }
    }

    pub(super) fn shell(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) -> Output {
        let mut i = 0;
        let mut command_mode = false;
        let mut stdin_mode = false;
        while let Some(a) = args.get(i) {
            let t = a.text();
            if t == "--" || t == "-" {
                i += 1;
                break;
            }
            if t.starts_with("--") {
                if matches!(t.as_str(), "--rcfile" | "--init-file") {
                    // Read as the shell's program (review-s9 G11).
                    if let Some(file) = args.get(i + 1) {
                        self.program_file(name, file, env, depth);
                    }
                    i += 1;
                }
                i += 1;
                continue;
            }
            if (t.starts_with('-') || t.starts_with('+')) && t.len() > 1 && !a.is_dynamic() {
                for c in t[1..].chars() {
                    match c {
                        'c' => command_mode = true,
                        's' => stdin_mode = true,
                        'o' | 'O' => i += 1,
                        _ => {}
                    }
                }
                i += 1;
                continue;
            }
            break;
        }
        let rest = args.get(i..).unwrap_or(&[]);
        if command_mode {
            if let Some(script) = rest.first() {
                let via = format!("{name} -c");
                // The words after the script are its `$0`, `$1`, …
                // (review s25 S13); `{}` of `find -exec` is any found
                // file, a value made unknown.
                let mut child = env.clone();
                child
                    .vars
                    .retain(|k, _| !k.chars().all(|c| c.is_ascii_digit()));
                for (n, a) in rest[1..].iter().enumerate() {
                    if a.text().contains("{}") {
                        child.forget(&n.to_string());
                    } else {
                        child.vars.insert(n.to_string(), a.clone());
                    }
                }
                let out = self.run_script_field(script, &mut child, depth, &Output::Unknown, &via);
                env.absorb_files(&child);
                return out;
            }
            return Output::Unknown;
        }
        match rest.first() {
            Some(file) if !stdin_mode => {
                let t = file.text();
                if t == "/dev/stdin" {
                    self.stdin_program(name, stdin, env, depth, true);
                } else {
                    self.program_file(name, file, env, depth);
                }
            }
            _ => self.stdin_program(name, stdin, env, depth, true),
        }
        Output::Unknown
    }

    /// A program file argument: a process substitution is followed, a file
    /// written earlier from a download or decoder is refused.
    pub(crate) fn program_file(&mut self, name: &str, file: &Field, env: &Env, depth: u32) {
        if let Some(path) = file.static_text()
            && let Some(out) = env.file_taint(&path).cloned()
        {
            self.report_taint(
                &out,
                &format!("`{name} {path}`, written from it earlier in the command"),
            );
            return;
        }
        if self.run_written_script(name, file, env, depth) {
            return;
        }
        for seg in &file.segs {
            if let Seg::Dyn { out, .. } = seg {
                match out {
                    Output::Static(text) if is_shell(name) || name == "source" || name == "." => {
                        let mut e = env.clone();
                        self.script(text, &mut e, depth + 1, &Output::Unknown);
                    }
                    o => {
                        self.report_taint(o, &format!("given to `{name}` as its program"));
                        self.procsub_program(name, seg);
                    }
                }
            }
        }
    }

    pub(super) fn interpreter(
        &mut self,
        name: &str,
        args: &[Field],
        env: &Env,
        stdin: &Output,
        depth: u32,
    ) {
        if is_powershell(name) {
            self.powershell(name, args, env, stdin, depth);
            return;
        }
        let code_letters: &[char] =
            if name.starts_with("python") || name.starts_with("pypy") || name == "expect" {
                &['c']
            } else if name.starts_with("php") {
                // php(1): `-r` code, `-B`/`-R`/`-E` begin, per-line and
                // end code (review s22 V3).
                &['r', 'B', 'R', 'E']
            } else if matches!(name, "pwsh" | "powershell") {
                &['c', 'C', 'e', 'E']
            } else {
                &['e', 'E']
            };
        let code_letters: &[char] = if matches!(name, "node" | "nodejs" | "bun" | "deno") {
            &['e', 'p']
        } else {
            code_letters
        };
        let mut code = false;
        let mut program: Option<&Field> = None;
        let mut i = 0;
        if name == "deno" && args.first().is_some_and(|a| a.text() == "eval") {
            // `deno eval CODE`.
            if let Some(c) = args.iter().skip(1).find(|a| !a.text().starts_with('-')) {
                self.inline_code(name, "eval", c, env, depth);
            }
            return;
        }
        while let Some(a) = args.get(i) {
            let t = a.text();
            if t.starts_with("--") {
                // `node --eval CODE`, `--print CODE`, `--eval=CODE`.
                let long = t.split('=').next().unwrap_or(&t);
                // A long option taking its value as the next word (`node
                // --input-type module -e CODE`): the value is no program
                // (review s17 Q1).
                if !t.contains('=') && option_values(name).1.contains(&long) {
                    i += 2;
                    continue;
                }
                if matches!(long, "--eval" | "--print" | "--command") {
                    code = true;
                    match t.split_once('=') {
                        Some((_, v)) => {
                            let c = Field::lit(v);
                            self.inline_code(name, long, &c, env, depth);
                            i += 1;
                        }
                        None => {
                            if let Some(c) = args.get(i + 1) {
                                self.inline_code(name, long, c, env, depth);
                            }
                            i += 2;
                        }
                    }
                    continue;
                }
                i += 1;
                continue;
            }
            if t.starts_with('-') && t.len() > 1 {
                if ends_in_code_letter(name, &t, code_letters) || t.eq_ignore_ascii_case("-command")
                {
                    code = true;
                    if let Some(c) = args.get(i + 1) {
                        self.inline_code(name, &t, c, env, depth);
                    }
                    i += 2;
                    continue;
                }
                // Code joined to its option, as getopt reads a cluster
                // (`python3 -c"CODE"`, `-Ic"CODE"`, `perl -e'CODE'`,
                // `php -r'CODE'`): the rest of the word after the code
                // letter, unless an option taking a value comes first
                // (review s16 P4, the same class as `-maider`).
                if let Some(code_text) = joined_code(name, &t, code_letters) {
                    code = true;
                    let c = Field::lit(code_text);
                    self.inline_code(name, &t, &c, env, depth);
                    i += 1;
                    continue;
                }
                if t == "-m" {
                    program = args.get(i + 1);
                    break;
                }
                // A cluster ending in a letter that takes a value takes the
                // next word (`python3 -X utf8 -c CODE`, `perl -I lib -e`,
                // `ruby -r json -e`, `php -d K=V -r`, `node -r M -e`): that
                // word is the option's value, not the program, so the code
                // option after it is read (review s17 Q1). Python's `-m`
                // at the end of a cluster (`-Im MODULE`) names the program.
                if let Some(letter) = value_taking_last(name, &t) {
                    if letter == 'm' && is_python(name) {
                        program = args.get(i + 1);
                        break;
                    }
                    i += 2;
                    continue;
                }
                i += 1;
                continue;
            }
            program = Some(a);
            break;
        }
        match program {
            Some(p) if p.text() == "/dev/stdin" && !code => match stdin {
                Output::Static(text) => self.embedded_commands(name, text, env, depth),
                other => self.piped_program(name, other),
            },
            Some(p) if p.text() != "-" => {
                // `python3 <(echo 'code')`: code the analysis has seen.
                for seg in &p.segs {
                    if let Seg::Dyn {
                        out: Output::Static(code),
                        ..
                    } = seg
                    {
                        self.embedded_commands(name, code, env, depth);
                    }
                }
                for seg in &p.segs {
                    self.procsub_program(name, seg);
                }
                let out = match p.static_text().and_then(|t| env.file_taint(&t).cloned()) {
                    Some(o) => o,
                    None => p.output(),
                };
                self.report_taint(&out, &format!("given to `{name}` as its program"));
                // A program file written earlier in the call (review-s9 G11).
                self.run_written_script(name, p, env, depth);
            }
            _ if !code => match stdin {
                Output::Static(text) => self.embedded_commands(name, text, env, depth),
                other => self.piped_program(name, other),
            },
            _ => {}
        }
    }

    /// PowerShell (`pwsh`, `powershell`): the check does not read
    /// PowerShell, so a call passes only when it provably runs no text:
    /// `-Version` or `-Help` alone. Anything else (`-c`/`-Command`,
    /// `-EncodedCommand`, `-File`, a script operand, text on standard
    /// input, any prefix of those, which PowerShell accepts) is held
    /// (review s22 V7); the words are still read as shell text first, so
    /// a denied command in them (`pwsh -c 'bash -c "rm -rf ~"'`) is
    /// denied.
    fn powershell(&mut self, name: &str, args: &[Field], env: &Env, stdin: &Output, depth: u32) {
        let info = |t: &str| {
            matches!(
                t.to_ascii_lowercase().as_str(),
                "-v" | "-version" | "--version" | "-h" | "-help" | "--help" | "-?" | "/?"
            )
        };
        if !args.is_empty() && args.iter().all(|a| info(&a.text())) {
            return;
        }
        for a in args {
            let out = a.output();
            if out.is_tainted() {
                self.report_taint(&out, &format!("as `{name}` code"));
                return;
            }
            if let Some(t) = a.static_text().filter(|t| !t.starts_with('-')) {
                let mut e = env.clone();
                self.script(&t, &mut e, depth + 1, &Output::Unknown);
            }
        }
        match stdin {
            Output::Static(t) => {
                let mut e = env.clone();
                self.script(t, &mut e, depth + 1, &Output::Unknown);
            }
            o if o.is_tainted() => {
                self.report_taint(o, &format!("piped into `{name}`"));
                return;
            }
            _ => {}
        }
        self.report(
            false,
            "shell.eval-dynamic",
            format!(
                "`{name}` runs PowerShell text, which the check does not read (only `{name} -Version` and `-Help` \
                 pass). A person must approve it as it is; run the commands through the shell instead."
            ),
        );
    }

    /// Code given on an interpreter's command line (`python3 -c CODE`,
    /// `perl -e`, `node -e`, `php -r`): downloaded or decoded code is
    /// refused; code that is only an unknown variable (`python3 -c
    /// "$CODE"`) is judged as `eval` of it; the shell commands and the
    /// guarded paths the text names are judged (the parts only known at
    /// run time stay unread).
    fn inline_code(&mut self, name: &str, flag: &str, code: &Field, env: &Env, depth: u32) {
        let out = code.output();
        if out.is_tainted() {
            self.report_taint(&out, &format!("as `{name} {flag}` code"));
            return;
        }
        let only_dynamic = code.segs.iter().all(|s| match s {
            Seg::Lit { text, .. } => text.trim().is_empty(),
            _ => true,
        });
        if only_dynamic && has_unknown_variable(code) {
            self.report(
                false,
                "shell.eval-dynamic",
                format!(
                    "`{name} {flag}` runs code held in a variable whose value is not known here, so it cannot be \
                     checked. Pass the code directly; a person must approve it as it is."
                ),
            );
            return;
        }
        let text = code.static_text().unwrap_or_else(|| code.text());
        self.embedded_commands(name, &text, env, depth);
    }

    /// Text that every path naming a guard rail, toolvet's state or key,
    /// or a git configuration file holds (lower case): the names of the
    /// built-in guard rails and the last three segments of the host's
    /// state and secret paths. A word without any cannot name one.
    fn guarded_needles(&self) -> Vec<String> {
        const BUILT_IN: &[&str] = &[
            ".claude",
            ".mcp",
            ".cursor",
            ".vscode",
            ".codex",
            ".gemini",
            ".github",
            "code-workspace",
            ".git",
            "git/config",
            "bash",
            "profile",
            ".zsh",
            ".zlogin",
            "fish",
            "/etc",
            "toolvet",
            "approvals.",
            "gitconfig",
            ".copilot",
            "agents.",
            "claude.",
            "gemini.md",
            "rules",
            "instructions",
            "~",
        ];
        let mut needles: Vec<String> = BUILT_IN.iter().map(|s| s.to_string()).collect();
        // Every built-in rail's name, from the catalog's own list.
        needles.extend(check_catalog::guardrails::name_needles().iter().cloned());
        for p in self.state.state.iter().chain(&self.state.secret) {
            for seg in p.rsplit('/').take(3).filter(|s| !s.is_empty()) {
                needles.push(seg.to_ascii_lowercase());
            }
        }
        needles
    }

    /// The guard rail held by the directory `abs` when it is the rail's own
    /// directory or close above it (`.claude`, `state/` of the ledger; at
    /// most two levels), not `/`, the home or a workspace root, which hold
    /// everything: naming those in code or a git pathspec says nothing
    /// about guard rails.
    pub(crate) fn rail_just_within(&self, abs: &str) -> Option<String> {
        if abs == "/"
            || self.home.as_deref() == Some(abs)
            || self.workspace.iter().any(|w| w == abs)
            || crate::paths::SYSTEM_DIRS.contains(&abs)
        {
            return None;
        }
        let (_, guarded) = self.state.rail_within(abs)?;
        let below = guarded.strip_prefix(abs).unwrap_or(&guarded);
        (guarded != abs && below.matches('/').count() <= 2).then_some(guarded)
    }

    /// Analyse the shell commands found in another language's code.
    pub(crate) fn embedded_commands(&mut self, name: &str, code: &str, env: &Env, depth: u32) {
        // Code calling toolvet serve's decision endpoint or reading its
        // tokens (review s12 L2).
        self.decision_request(name, &[code.to_string()]);
        if let Some(v) = crate::effects::selfstate::toolvet_secret_named(code) {
            self.toolvet_secret_read(&format!("`{name}` code"), &v);
        }
        if code.len() > crate::code::embedded::MAX_CODE {
            self.report(
                false,
                "shell.too-long",
                format!(
                    "The `{name}` code on the command line is {} bytes long, more than the {} bytes this check reads. \
                     A person must review it; write it to a file in the workspace and run the file instead.",
                    code.len(),
                    crate::code::embedded::MAX_CODE
                ),
            );
            return;
        }
        let backticks =
            name.starts_with("perl") || name.starts_with("ruby") || name.starts_with("php");
        self.code_reach(name, code, backticks, env);
        let mut commands = crate::code::embedded::shell_commands(code, backticks);
        if matches!(name, "awk" | "gawk" | "mawk" | "nawk" | "busybox") {
            commands.extend(crate::code::embedded::awk_pipe_commands(code));
        }
        if matches!(name, "tclsh" | "wish" | "jimsh" | "expect") || name.starts_with("tclsh") {
            commands.extend(crate::code::embedded::tcl_commands(code, name == "expect"));
        }
        if name.starts_with("lua") {
            commands.extend(crate::code::embedded::lua_commands(code));
        }
        let stop = self.found_commands(&format!("The `{name}` code"), &commands, env, depth);
        // Signals sent by the code itself (`os.kill`, Perl `kill`),
        // after its commands, whose pid lookups count (review s16 P1).
        self.code_signals(name, code);
        self.code_agents(name, code);
        if stop {
            return;
        }
        self.inline_code_paths(
            &format!(
                "`{name}` code (which this check cannot read: a file it names counts as written; `cat` reads a file)"
            ),
            code,
            env,
            depth,
        );
    }

    /// Code of a general-purpose interpreter that reaches the network and
    /// also evaluates text or starts processes is held (review s23 V21,
    /// [`crate::code::reach`]): what it runs is not in the text. Code that
    /// reaches the network and reads credentials (the whole environment, a
    /// page's cookies or stored session, a file of the shared
    /// sensitive-file catalog it names: `open('.env')`) is refused: it may
    /// send them out.
    fn code_reach(&mut self, name: &str, code: &str, backticks: bool, env: &Env) {
        if !crate::code::reach::reads_reach(name) {
            return;
        }
        let r = crate::code::reach::reach(name, code, backticks);
        let credentials = if !r.network {
            None
        } else if r.environment {
            Some("the whole environment, which holds this run's credentials,".to_string())
        } else if r.page_credentials {
            Some("the page's cookies or stored session, which sign the user in,".to_string())
        } else {
            self.credential_file_named(code, env)
                .map(|(path, label)| format!("`{path}` ({label}), which holds credentials,"))
        };
        if let Some(what) = credentials {
            self.report(
                true,
                "shell.exfiltration",
                format!(
                    "The `{name}` code reads {what} and reaches the network: it may send them out. Send only \
                     the values the request needs."
                ),
            );
        } else if r.network && r.evaluates {
            self.report(
                false,
                "shell.remote-exec",
                format!(
                    "The `{name}` code reaches the network and evaluates text as code: it may run code downloaded \
                     at run time, which this check cannot read. Download the code, inspect it, then run it as a \
                     separate step; a person must approve it as it is."
                ),
            );
        } else if r.network && r.spawns {
            self.report(
                false,
                "shell.reverse-shell",
                format!(
                    "The `{name}` code reaches the network and starts processes or hands over its standard \
                     streams: it may give a shell to another machine. A person must approve it as it is."
                ),
            );
        }
    }

    /// The first word of `code` that names a file of the shared
    /// sensitive-file catalog (an environment file, a cloud or SSH key, a
    /// token store), resolved as the shell resolves a path from here, with
    /// the catalog's label. Only a word that starts a string literal counts
    /// (`open('.env')`, `homedir() + '/.aws/credentials'`): a member's name
    /// (`obj.key`) or a URL's path (`'https://host/ca.pem'`) names no file
    /// here.
    fn credential_file_named(&self, code: &str, env: &Env) -> Option<(String, &'static str)> {
        let files = crate::effects::sinks::sensitive_files();
        let starts_string = |t: &str| {
            ['\'', '"', '`']
                .iter()
                .any(|q| code.contains(&format!("{q}{t}")))
        };
        crate::code::embedded::path_tokens(code)
            .into_iter()
            .filter(|t| t.contains(['.', '/']) && !t.starts_with("//") && starts_string(t))
            .find_map(|token| {
                let field = code_path_field(&token);
                let abs = self.abs_path(&field, env)?;
                files.matches(&abs).map(|label| (token, label))
            })
    }

    /// Judges the shell commands found in another language's code, an
    /// editor's or a client's commands (`what`, e.g. "The `perl` code"),
    /// each as a command line run from here, at most
    /// [`crate::code::embedded::MAX_COMMANDS`] of them: when more were found the
    /// rest go unjudged, so the call escalates (`shell.too-long`) rather
    /// than pass on what was not read. Returns whether the verdict is
    /// settled.
    pub(crate) fn found_commands(
        &mut self,
        what: &str,
        commands: &[String],
        env: &Env,
        depth: u32,
    ) -> bool {
        for cmd in commands.iter().take(crate::code::embedded::MAX_COMMANDS) {
            let mut e = env.clone();
            self.script(cmd, &mut e, depth + 1, &Output::Unknown);
            if self.done() {
                return true;
            }
        }
        if commands.len() > crate::code::embedded::MAX_COMMANDS {
            self.too_many_found(what);
        }
        self.done()
    }

    /// Reports that `what` runs more commands or writes more files than
    /// this check judges ([`crate::code::embedded::MAX_COMMANDS`]).
    pub(crate) fn too_many_found(&mut self, what: &str) {
        self.report(
            false,
            "shell.too-long",
            format!(
                "{what} runs more than {} commands or writes more than that many files, more than this check \
                 judges in one piece of code. A person must review it; or run it from a file in the workspace.",
                crate::code::embedded::MAX_COMMANDS
            ),
        );
    }

    /// Code the analysis cannot read (an interpreter's `-c`/`-e`, an
    /// editor's or awk's commands) that names one of toolvet's state or
    /// secret paths or a guard rail (`open("examples/toolvet.toml", "w")`,
    /// `unlink "state/approvals.db"`, `w .claude/settings.json`) is judged
    /// as a write onto it, as the same write from the shell is: the code
    /// may do anything with a file it names. Other files stay unjudged, so
    /// ordinary code (`print(1)`, reading a data file) is not refused.
    pub(crate) fn inline_code_paths(&mut self, via: &str, code: &str, env: &Env, depth: u32) {
        let mut e = env.clone();
        let needles = self.guarded_needles();
        // Inside a guarded directory, or with links the run made, any
        // relative word may name a guarded file: every word is resolved.
        let cwd_guarded = match &env.cwd {
            Cwd::Known(c) => {
                let c = c.to_ascii_lowercase();
                needles.iter().any(|n| c.contains(n.as_str()))
            }
            _ => false,
        };
        let check_all = cwd_guarded || !self.facts.symlinks.is_empty();
        for token in crate::code::embedded::path_tokens(code) {
            if self.done() {
                return;
            }
            // Only words that can name a guarded path are resolved: each
            // holds a name of one (cheap, so no word is skipped for time).
            let lower = token.to_ascii_lowercase();
            if !check_all && !needles.iter().any(|n| lower.contains(n.as_str())) {
                continue;
            }
            let field = code_path_field(&token);
            let Some(abs) = self.abs_path(&field, &e) else {
                continue;
            };
            if self.state.guard_rail(&abs).is_some()
                || self.state.is_secret(&abs)
                || crate::effects::sinks::is_git_config_file(&abs)
            {
                self.check_write(&field, &mut e, &Output::Unknown, via, true, depth);
            } else if let Some(guarded) = self.rail_just_within(&abs) {
                // A directory holding guard rails (`.claude`, toolvet's
                // state directory): the code may write what is in it.
                self.check_write(
                    &Field::lit(guarded),
                    &mut e,
                    &Output::Unknown,
                    &format!("{via} (naming `{token}`, which holds it)"),
                    true,
                    depth,
                );
            }
        }
    }

    /// `awk`: the commands its program (the first operand) runs.
    pub(super) fn awk(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) -> Output {
        // The program is the first operand, unless `-f FILE` gives it
        // (`-F SEP`, `-v X=1` take values).
        let mut i = 0;
        let mut program: Option<&Field> = None;
        while let Some(a) = args.get(i) {
            let t = a.text();
            if matches!(t.as_str(), "-f" | "--file" | "-E" | "--exec") || t.starts_with("-f") {
                program = None;
                break;
            }
            if matches!(t.as_str(), "-F" | "-v" | "--assign" | "--field-separator") {
                i += 2;
                continue;
            }
            if t == "--" {
                program = args.get(i + 1);
                break;
            }
            if !t.starts_with('-') || t == "-" {
                program = Some(a);
                break;
            }
            i += 1;
        }
        if let Some(program) = program.and_then(Field::static_text) {
            self.embedded_commands(name, &program, env, depth);
        }
        pass_through(stdin)
    }

    /// `eval`: its words run as a script in this shell.
    pub(super) fn eval_builtin(
        &mut self,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) -> Output {
        let joined = join_fields(args);
        // `eval` runs in this shell: a `cd`, variable or function
        // it sets holds for the commands after it
        // (`eval cd ~; rm -rf *`).
        if let Some(text) = joined.static_text() {
            return self.script(&text, env, depth + 1, stdin);
        }
        // Text only known at run time may set any variable.
        self.vars_opaque = true;
        let out = self.run_script_field(&joined, env, depth, stdin, "eval");
        state_unknown(env);
        out
    }

    /// `source`, `.`: the file (or standard input) runs in this shell.
    pub(super) fn source_builtin(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) -> Output {
        // A file run in this shell may set any variable (its text
        // is judged, its assignments are not followed).
        self.vars_opaque = true;
        if let Some(file) = args.first() {
            let t = file.text();
            if t == "/dev/stdin" || t == "-" {
                self.stdin_program(name, stdin, env, depth, true);
            } else {
                self.program_file(name, file, env, depth);
            }
        }
        state_unknown(env);
        Output::Unknown
    }
}

/// A path word found in code as a shell word: `~` and `~/…` the home
/// directory, anything else literal.
fn code_path_field(token: &str) -> Field {
    match token.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => Field {
            segs: vec![
                Seg::Home(None),
                Seg::Lit {
                    text: rest.to_string(),
                    quoted: true,
                },
            ],
        },
        _ => Field::lit(token),
    }
}

/// Code the walk judged but did not run in this shell (`eval` of text
/// only known at run time, `source`/`.` of any file) may assign any
/// variable and change the directory (review s23 V5, R11): both are
/// unknown after it.
fn state_unknown(env: &mut Env) {
    env.forget_vars();
    env.cwd = Cwd::Unknown;
}
