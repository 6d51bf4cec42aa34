//! GNU screen: `screen CMD`, `-dm`, and the commands given to a running
//! session with `-X` (`stuff`, `exec`, `screen`).

use super::*;

/// screen's escapes in a command's argument (process.c `Parse`), decoded
/// where the check knows them exactly: `\\`, `\n`, `\r`, `\015`, `\012`,
/// `^M`, `^J` (a newline or Enter). Any other backslash or `^`, and `$`
/// (screen substitutes environment variables): an error (held).
fn screen_unescape(text: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let (typed, len) = if let Some(r) = rest.strip_prefix('\\') {
            if r.starts_with('\\') {
                ("\\", 2)
            } else if r.starts_with(['n', 'r']) {
                ("\n", 2)
            } else if r.starts_with("015") || r.starts_with("012") {
                ("\n", 4)
            } else {
                return Err(format!(
                    "the escape `\\{}`",
                    r.chars().next().unwrap_or(' ')
                ));
            }
        } else if let Some(r) = rest.strip_prefix('^') {
            if r.starts_with(['M', 'm', 'J', 'j']) {
                ("\n", 2)
            } else {
                return Err("a `^` control key the check does not decode".into());
            }
        } else if c == '$' {
            return Err("`$`, which screen substitutes from its environment".into());
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        };
        out.push_str(typed);
        rest = &rest[len..];
    }
    Ok(out)
}

/// A screen command's arguments with screen's escapes decoded
/// ([`screen_unescape`]); a word only known at run time kept as it is.
fn screen_args(args: &[Field]) -> Result<Vec<Field>, String> {
    args.iter()
        .map(|a| match a.static_text() {
            Some(t) => screen_unescape(&t).map(Field::lit),
            None => Ok(a.clone()),
        })
        .collect()
}

/// Whether `text` has a backslash outside quotes (the shell drops it,
/// screen decodes it).
fn backslash_unquoted(text: &str) -> bool {
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match (quote, c) {
            (None, '\\') => return true,
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            _ => {}
        }
    }
    false
}

/// The program and arguments of screen's `screen [-OPTS] [N] [CMD
/// [ARGS]]` command (screen(1) "screen"; process.c `DoScreen`): each
/// option its own word, `-t NAME`, `-T TERM`, `-h LINES` with their value
/// attached or next; `-a`, `-f`, `-fn`, `-fa`, `-l`, `-ln`, `-L`, `-M`,
/// `-O`, `-U` flags; `--` ends them; then an optional window number. Any
/// other option, or `//group`: an error (held).
fn screen_window_command(args: &[Field]) -> Result<&[Field], String> {
    let mut i = 0;
    while let Some(t) = args.get(i).map(Field::text) {
        if t == "--" {
            i += 1;
            break;
        }
        if !t.starts_with('-') {
            break;
        }
        i += 1;
        match t.as_str() {
            "-t" | "-T" | "-h" => i += 1,
            "-a" | "-f" | "-fn" | "-fa" | "-l" | "-ln" | "-L" | "-M" | "-O" | "-U" => {}
            _ if t.len() > 2 && matches!(&t[..2], "-t" | "-T" | "-h") => {}
            _ => return Err(format!("the option `{t}`, which the check does not know")),
        }
    }
    if args
        .get(i)
        .is_some_and(|a| !a.text().is_empty() && a.text().chars().all(|c| c.is_ascii_digit()))
    {
        i += 1;
    }
    if args.get(i).is_some_and(|a| a.text().starts_with("//")) {
        return Err("a window group".into());
    }
    Ok(args.get(i..).unwrap_or(&[]))
}

impl Analysis<'_> {
    /// `screen [OPTIONS] [CMD…]` (a session running CMD, `screen -dm
    /// CMD` detached), `screen [OPTIONS] -X CMD…` (a command sent to a
    /// running session, read by [`Analysis::screen_command`] in the
    /// server's environment). Options by [`crate::opts::runopts::SCREEN`]; an
    /// option it lacks, or a word that may expand to nothing among them:
    /// held.
    pub(super) fn screen(&mut self, args: &[Field], env: &mut Env, depth: u32) -> Run {
        let Some((end, send)) = self.screen_options(args, env) else {
            return Run::Done(Output::Unknown);
        };
        let rest = args.get(end..).unwrap_or(&[]);
        if let Some(v) = self.config_vars_set(env, &["HOME", "SCREENRC", "SYSSCREENRC"]) {
            self.hold_runner(
                "screen",
                &format!("`{v}` set by this call, which chooses the file of screen commands it runs at start"),
            );
        }
        if send {
            let mut server = server_env(env);
            let out = self.screen_command(rest, &mut server, depth);
            env.absorb_files(&server);
            return out;
        }
        Run::Command(rest.to_vec())
    }

    /// screen's own options (screen.c `main`: letters bundle, a letter
    /// that takes a value takes the rest of the word or the next word;
    /// `-ls`, `-list`, `-wipe`, `-Logfile`, `-fn`, `-fa`, `-ln` are whole
    /// words): where the command starts, and whether `-X` was given.
    /// `None`: held.
    fn screen_options(&mut self, args: &[Field], env: &mut Env) -> Option<(usize, bool)> {
        use crate::opts::getopt::Takes;
        let mut i = 0;
        let mut send = false;
        let mut logs = Vec::new();
        while let Some(a) = args.get(i) {
            let t = a.text();
            if t == "--" {
                i += 1;
                break;
            }
            if !t.starts_with('-') || t == "-" {
                break;
            }
            i += 1;
            if let Some((_, takes)) = crate::opts::runopts::SCREEN_WORDS
                .iter()
                .find(|(w, _)| *w == t)
            {
                if *takes == Takes::Value {
                    // `-Logfile FILE`: the window's output is appended to
                    // FILE (review s21 U10).
                    if let Some(f) = args.get(i).filter(|_| t == "-Logfile") {
                        logs.push(f.clone());
                    }
                    i += 1;
                }
                continue;
            }
            for (k, c) in t.char_indices().skip(1) {
                let Some(o) = crate::opts::runopts::SCREEN
                    .opts
                    .iter()
                    .find(|o| o.short == c)
                else {
                    self.hold_options("screen", &format!("`-{c}` in `{t}`"));
                    return None;
                };
                send |= c == 'X';
                // `-c FILE`: a file of screen commands run at start (as
                // `tmux -f`).
                if c == 'c' {
                    self.hold_runner("screen", "`-c FILE`, a file of screen commands");
                    return None;
                }
                if o.takes == Takes::Value {
                    if k + c.len_utf8() == t.len() {
                        i += 1;
                    }
                    break;
                }
            }
        }
        // The options, and the first word after them.
        let reach = (i + 1).min(args.len());
        if self.hold_vanishing("screen", args, reach) {
            return None;
        }
        for f in &logs {
            self.runner_write("screen", f, env, 0);
        }
        Some((i.min(args.len()), send))
    }

    /// A screen command sent by `screen -X` (screen(1) "Customization"),
    /// in the server's environment `env`: `stuff TEXT` types TEXT into
    /// the window's shell, `exec`/`screen` run a program, `eval CMD…` runs
    /// each argument as a screen command, `at WINDOW CMD…` runs CMD in
    /// other windows. A few commands are data; any other (`source FILE`,
    /// `bind`, `register`, …) is held (review s19 S7).
    fn screen_command(&mut self, cmd: &[Field], env: &mut Env, depth: u32) -> Run {
        let Some(name) = cmd.first().and_then(Field::static_text) else {
            return if cmd.is_empty() {
                Run::Done(Output::Unknown)
            } else {
                self.hold_runner("screen -X", "a command only known at run time")
            };
        };
        let args = &cmd[1..];
        if self.hold_vanishing(&format!("screen -X {name}"), args, args.len()) {
            return Run::Done(Output::Unknown);
        }
        match name.as_str() {
            // `stuff ^C`: an interrupt, which types no text and clears the
            // prompt's line (review s21 W2).
            "stuff"
                if !args.is_empty()
                    && args.iter().all(|a| {
                        a.static_text().is_some_and(|t| {
                            !t.is_empty()
                                && (t.chars().all(|c| c == '\u{3}') || t.eq_ignore_ascii_case("^c"))
                        })
                    }) =>
            {
                Run::Done(Output::Unknown)
            }
            // `hardcopy [-h] [FILE]`: the window's text written to FILE
            // (default `hardcopy.N` in screen's directory); only a literal
            // absolute FILE is placed (review s21 W2).
            "hardcopy" => {
                let files: Vec<&Field> = args.iter().filter(|a| a.text() != "-h").collect();
                match files.as_slice() {
                    [f] if self.abs_path(f, &Env::fresh(Cwd::None)).is_some() => {
                        let f = (*f).clone();
                        self.runner_write("screen -X hardcopy", &f, env, depth);
                        Run::Done(Output::Unknown)
                    }
                    _ => self.hold_runner(
                        "screen -X hardcopy",
                        "a file that is not a literal absolute path",
                    ),
                }
            }
            "stuff" => {
                let mut typed = String::new();
                for a in args {
                    match a.static_text().as_deref().map(screen_unescape) {
                        Some(Ok(t)) => typed.push_str(&t),
                        Some(Err(what)) => return self.hold_runner("screen -X stuff", &what),
                        None => {
                            return self
                                .hold_runner("screen -X stuff", "text only known at run time");
                        }
                    }
                }
                if typed.is_empty() {
                    return Run::Done(Output::Unknown);
                }
                if !typed.ends_with('\n') {
                    return self.hold_runner(
                        "screen -X stuff",
                        "text left at the prompt for a later line (no newline at the end)",
                    );
                }
                self.server_words(
                    &[Field::lit(typed)],
                    env,
                    depth,
                    "screen -X stuff",
                    &At::Pane,
                )
            }
            // `exec [[FDPAT] CMD ARGS…]`: FDPAT (`.`, `!`, `|`, `:`)
            // first, joined to the program or a word of its own.
            "exec" => {
                let mut argv = match screen_args(args) {
                    Ok(a) => a,
                    Err(what) => return self.hold_runner("screen -X exec", &what),
                };
                if let Some(first) = argv.first().and_then(Field::static_text)
                    && first.starts_with(['.', '!', '|', ':'])
                {
                    let program = first.trim_start_matches(['.', '!', '|', ':']);
                    // `!` or `:`: the command's output goes to the
                    // window's program, typed into its shell (`exec .!.
                    // echo CMD`); `|`: a filter of it. Held, the command
                    // still judged.
                    let pattern = &first[..first.len() - program.len()];
                    if pattern.contains(['!', ':', '|']) {
                        self.hold_runner(
                            "screen -X exec",
                            &format!(
                                "`{pattern}`, which types the command's output into the window"
                            ),
                        );
                    }
                    if program.is_empty() {
                        argv.remove(0);
                    } else {
                        argv[0] = Field::lit(program);
                    }
                }
                self.server_argv(&argv, env, depth, "screen -X exec", &At::Pane)
            }
            "screen" => match screen_args(args)
                .and_then(|a| screen_window_command(&a).map(<[Field]>::to_vec))
            {
                Ok(argv) => self.server_argv(&argv, env, depth, "screen -X screen", &At::Pane),
                Err(what) => self.hold_runner("screen -X screen", &what),
            },
            "eval" if depth <= self.opts.max_depth => {
                for a in args {
                    let Some(t) = a.static_text() else {
                        return self
                            .hold_runner("screen -X eval", "a command only known at run time");
                    };
                    // Each argument is parsed again by screen: quoted
                    // words, its escapes decoded ([`screen_unescape`]).
                    // A backslash outside quotes, `\\`, a backquote or a
                    // `#`: held.
                    if t.contains(['`', '#']) || t.contains("\\\\") || backslash_unquoted(&t) {
                        return self.hold_runner(
                            "screen -X eval",
                            "a command with escapes screen reads differently from the shell",
                        );
                    }
                    let t = match screen_unescape(&t) {
                        Ok(t) => t,
                        Err(what) => return self.hold_runner("screen -X eval", &what),
                    };
                    let words = self.split_words(&t, env, depth);
                    self.screen_command(&words, env, depth + 1);
                }
                Run::Done(Output::Unknown)
            }
            "at" => self.screen_command(args.get(1..).unwrap_or(&[]), env, depth + 1),
            "quit" | "detach" | "kill" | "select" | "title" | "next" | "prev" | "other"
            | "windows" | "clear" | "redisplay" | "info" | "number" | "width" | "height"
            | "sessionname" => Run::Done(Output::Unknown),
            _ => self.hold_runner(
                &format!("screen -X {name}"),
                "a screen command the check does not read",
            ),
        }
    }
}
