//! tmux (and byobu, read as tmux): the commands tmux reads from its
//! arguments, strings and `send-keys`, judged in the server's environment.

use super::*;

/// Whether tmux, expanding `text` as a format (format.c `format_expand1`),
/// can only produce text the check sees: every `#` starts a colour digit
/// (`#ff0000`), a one-letter alias (`#S`), a style `#[…]` without `#`,
/// braces or parentheses, or a plain variable `#{pane_id}` (no modifier,
/// no `@` user option, no `#`). Anything else (`#{E:@c}`, `#{l:#}`,
/// `#{s/x/#/:@k}`, `##`, `#(`) may assemble and run a `#(…)` job (review
/// s21 U7).
fn tmux_format_plain(text: &str) -> bool {
    let b: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < b.len() {
        if b[i] != '#' {
            i += 1;
            continue;
        }
        let Some(&n) = b.get(i + 1) else {
            return false;
        };
        let close = |end: char| {
            b[i + 2..]
                .iter()
                .position(|&c| c == end)
                .map(|k| (i + 2, i + 2 + k))
        };
        match n {
            c if c.is_ascii_alphanumeric() => i += 2,
            '{' => match close('}') {
                Some((a, z))
                    if z > a
                        && b[a..z]
                            .iter()
                            .all(|c| c.is_ascii_alphanumeric() || *c == '_') =>
                {
                    i = z + 1;
                }
                _ => return false,
            },
            '[' => match close(']') {
                Some((a, z)) if !b[a..z].iter().any(|c| "#{}()".contains(*c)) => i = z + 1,
                _ => return false,
            },
            _ => return false,
        }
    }
    true
}

/// Where tmux's configuration parser (cmd-parse.y `yylex_token`) reads a
/// command string differently from the shell's tokenizer: a backslash
/// outside single quotes (tmux decodes `\ooo`, `\uXXXX`, `\e`, `\s`…),
/// a backquote, `$(`, `$'`, `$"`, `$[` (tmux has no command substitution
/// nor ANSI-C quoting). `None`: the shell's reading is tmux's.
fn tmux_parse_differs(text: &str) -> Option<&'static str> {
    let mut quote: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some('\''), '\'') => quote = None,
            (Some('\''), _) => {}
            (_, '\\') => {
                return Some("a backslash, which tmux reads as its own escape (`\\ooo`, `\\u…`)");
            }
            (_, '`') => return Some("a backquote"),
            (_, '$') if matches!(chars.peek(), Some('(' | '\'' | '"' | '[')) => {
                return Some("`$(`, `$'`, `$\"` or `$[`, which tmux reads differently");
            }
            (None, '\'' | '"') => quote = Some(c),
            (Some('"'), '"') => quote = None,
            _ => {}
        }
    }
    None
}

/// tmux's named keys (key-string.c `key_string_table`), lowercase; tmux
/// compares them ignoring case.
const TMUX_KEYS: &[&str] = &[
    "ic", "insert", "dc", "delete", "home", "end", "npage", "pagedown", "pgdn", "ppage", "pageup",
    "pgup", "btab", "space", "bspace", "enter", "escape", "tab", "up", "down", "left", "right",
    "any",
];

/// Families of tmux key names (keypad, mouse, function keys, user keys,
/// hex codes), lowercase prefixes.
const TMUX_KEY_PREFIXES: &[&str] = &[
    "kp", "mouse", "wheel", "double", "triple", "second", "focus", "paste", "user", "0x", "u+",
];

/// The text `send-keys KEYS…` types: the arguments back to back, with no
/// separator (cmd-send-keys.c). A word tmux reads as a key name
/// (key-string.c `key_string_lookup_string`: modifiers `C-`/`M-`/`S-`/`^`,
/// a name of [`TMUX_KEYS`] or [`TMUX_KEY_PREFIXES`] in any case, a hex
/// code) types that key: `Space` a blank, `Enter`/`KPEnter`/`C-m`/`C-j` a
/// newline, `C-c` ends the line too (what was typed before it is judged as
/// run); any other key, a control character, or a word only known at run
/// time is an error (held). `literal` (`-l`): every word as it is.
/// (review s19 S9)
fn typed_keys(keys: &[Field], literal: bool) -> Result<String, String> {
    let mut typed = String::new();
    for k in keys {
        let Some(t) = k.static_text() else {
            return Err(format!("the key `{}`, only known at run time", k.text()));
        };
        let lower = t.to_ascii_lowercase();
        let one = t.chars().count() == 1;
        // A key name has no blank: a word with one is typed as it is.
        if literal || one || t.contains(char::is_whitespace) {
            typed.push_str(&t);
        } else if matches!(lower.as_str(), "enter" | "kpenter" | "c-m" | "c-j" | "c-c") {
            typed.push('\n');
        } else if lower == "space" {
            typed.push(' ');
        } else if lower.starts_with('^')
            || (lower.len() > 2
                && lower.as_bytes()[1] == b'-'
                && matches!(lower.as_bytes()[0], b'c' | b'm' | b's'))
            || TMUX_KEYS.contains(&lower.as_str())
            || TMUX_KEY_PREFIXES.iter().any(|p| lower.starts_with(p))
            || (lower.len() > 1
                && lower.starts_with('f')
                && lower[1..].chars().all(|c| c.is_ascii_digit()))
        {
            return Err(format!(
                "the key `{t}`, which the check does not map to text"
            ));
        } else {
            typed.push_str(&t);
        }
    }
    if typed.chars().any(|c| c.is_control() && c != '\n') {
        return Err("a control character (a tab completes, an escape edits)".into());
    }
    Ok(typed)
}

impl Analysis<'_> {
    /// tmux's shell text (`run-shell CMD`, `new-session CMD`, an if-shell
    /// condition, `default-command`): run by the server with `sh -c` in
    /// its own environment. run-shell, if-shell and pipe-pane first expand
    /// it as a format (`#{l:k}` is `k`, `#{s/a/b/:…}`, `##`): text with a
    /// `#` is held, whatever the command (review s19 S1).
    fn tmux_shell(
        &mut self,
        words: &[Field],
        env: &mut Env,
        depth: u32,
        via: &str,
        at: &At,
    ) -> Run {
        if words.iter().any(|w| w.text().contains('#')) {
            return self.hold_tmux(
                "shell text with `#`, which tmux may expand as a format before running it",
            );
        }
        self.server_words(words, env, depth, via, at)
    }

    /// `tmux [OPTIONS] COMMAND …`: tmux's own options (`-c TEXT` runs
    /// TEXT), then a tmux command list, read by [`Analysis::tmux_commands`]
    /// in the server's environment. `-f FILE` (a configuration file: tmux
    /// commands) and `-C`/`-CC` (control mode: tmux commands on standard
    /// input) run commands the check does not see: held (review s19 S9).
    pub(super) fn tmux(&mut self, args: &[Field], env: &mut Env, depth: u32) -> Run {
        let p = self.runner_options("tmux", &crate::opts::runopts::TMUX, args, false);
        if let Some(text) = p.values("c").last() {
            return Run::Done(self.run_script_field(text, env, depth, &Output::Unknown, "tmux -c"));
        }
        // `-f /dev/null` reads no commands (review s21 W2).
        if p.values("f")
            .any(|f| f.static_text().as_deref() != Some("/dev/null"))
        {
            return self.hold_tmux("`-f FILE`, a file of tmux commands");
        }
        if p.has("C") {
            return self.hold_tmux("`-C` (control mode: tmux commands on standard input)");
        }
        // `-S PATH`: the client removes PATH and the server binds its
        // socket there (client.c `client_connect`).
        for s in p.values("S").cloned().collect::<Vec<_>>() {
            self.runner_write("tmux -S", &s, env, depth);
        }
        if let Some(v) = self.config_vars_set(env, &["TMUX_TMPDIR"]) {
            self.hold_tmux(&format!(
                "`{v}` set by this call: the directory its socket is made in"
            ));
        }
        // Held, and its commands still read (they may be denied).
        if let Some(v) = self.config_vars_set(env, &["HOME", "XDG_CONFIG_HOME"]) {
            self.hold_tmux(&format!(
                "`{v}` set by this call: a server it starts reads its configuration file (tmux commands) from there"
            ));
        }
        let mut server = server_env(env);
        let out = self.tmux_commands(&args[p.end.min(args.len())..], &mut server, depth);
        env.absorb_files(&server);
        out
    }

    /// Where a tmux command that starts shell text runs it, and whether
    /// its environment is known (review s21 U3, U8): `-c DIR` (`-d DIR`
    /// for display-popup) a literal absolute directory, else held; without
    /// one, the client's directory, but a respawned pane's own (unknown)
    /// for `respawn-*` and `pipe-pane`, and the session's (unknown) for a
    /// command in a hook, binding or command list. Any `-e NAME=VAL` but an inert
    /// variable ([`INERT_VARS`]): held. `None`: held.
    fn tmux_spawn(
        &mut self,
        c: &crate::opts::tmuxopts::Command,
        p: &crate::opts::getopt::Parsed,
    ) -> Option<At> {
        let spawns = matches!(
            c.name,
            "new-session" | "new-window" | "split-window" | "respawn-pane" | "respawn-window"
        );
        if spawns || c.name == "display-popup" {
            for e in p.values("e") {
                let name = e
                    .static_text()
                    .map(|t| t.split('=').next().unwrap_or("").to_string());
                if !name.as_deref().is_some_and(inert_var) {
                    self.hold_tmux(&format!(
                        "`-e {}`, a variable for the new pane that may make its shell or programs run code",
                        e.text()
                    ));
                    return None;
                }
            }
        }
        let flag = match c.name {
            "display-popup" => "d",
            "run-shell" => "c",
            _ if spawns => "c",
            _ => "",
        };
        if let Some(d) = p.values(flag).last().filter(|_| !flag.is_empty()) {
            return match self.literal_dir(d) {
                Some(d) => Some(At::Dir(d)),
                None => {
                    self.hold_tmux(&format!(
                        "`-{flag} {}`, a start directory that is not a literal absolute path",
                        d.text()
                    ));
                    None
                }
            };
        }
        Some(match c.name {
            "respawn-pane" | "respawn-window" | "pipe-pane" => At::Pane,
            _ if self.tmux_nested > 0 => At::Pane,
            _ => At::Caller,
        })
    }

    /// Hold a tmux command the check cannot place (`what`).
    fn hold_tmux(&mut self, what: &str) -> Run {
        self.report(
            false,
            "shell.eval-dynamic",
            format!(
                "tmux is given {what}, so what it runs cannot be checked. A person must approve it as it is; \
                 write tmux commands by their full names with the flags tmux documents."
            ),
        );
        Run::Done(Output::Unknown)
    }

    /// A tmux command list given as words (`CMD ARGS… \; CMD …`): tmux
    /// ends a command at a word `;`, or at a word ending in a `;` that is
    /// not escaped (cmd-parse.c `cmd_parse_from_arguments`).
    fn tmux_commands(&mut self, words: &[Field], env: &mut Env, depth: u32) -> Run {
        let mut out = Run::Done(Output::Unknown);
        let mut cmd: Vec<Field> = Vec::new();
        for w in words {
            let t = w.text();
            match t.strip_suffix(';') {
                Some(rest) if !rest.ends_with('\\') => {
                    if !rest.is_empty() {
                        cmd.push(Field::lit(rest));
                    }
                    out = self.tmux_command(&std::mem::take(&mut cmd), env, depth);
                }
                _ => cmd.push(w.clone()),
            }
        }
        if !cmd.is_empty() {
            out = self.tmux_command(&cmd, env, depth);
        }
        out
    }

    /// A tmux command list given as one argument (`if-shell C 'CMDS'`,
    /// `set-hook H 'CMDS'`), parsed by tmux as a line of its configuration:
    /// shell-like words, `;` between commands. Where tmux's parser and the
    /// shell's read the text differently ([`tmux_parse_differs`]), and
    /// braces (`{ … }`) and `%if` directives: held. `$VAR` is the
    /// server's (`env` is [`server_env`]).
    fn tmux_string(&mut self, field: &Field, env: &mut Env, depth: u32) -> Run {
        let Some(text) = field.static_text() else {
            return self.hold_tmux("a command list whose text is not known here");
        };
        if depth > self.opts.max_depth {
            return self.hold_tmux("tmux commands nested too deep");
        }
        if let Some(what) = tmux_parse_differs(&text) {
            return self.hold_tmux(&format!("a command list with {what}"));
        }
        let Ok(tokens) = crate::syntax::tokenize(&text) else {
            return self.hold_tmux("a command list the check cannot split");
        };
        let mut words = Vec::new();
        for t in &tokens {
            match t {
                brush_parser::Token::Word(w, _) => words.extend(self.expand_word(w, env, depth)),
                brush_parser::Token::Operator(o, _) if o == ";" || o == "\n" => {
                    words.push(Field::lit(";"));
                }
                brush_parser::Token::Operator(o, _) => {
                    return self.hold_tmux(&format!("`{o}` in a command list"));
                }
            }
        }
        if words.iter().any(|w| {
            let t = w.text();
            t == "{" || t == "}" || t.starts_with('%')
        }) {
            return self.hold_tmux("a command list with braces or `%` directives");
        }
        self.tmux_nested += 1;
        let out = self.tmux_commands(&words, env, depth + 1);
        self.tmux_nested -= 1;
        out
    }

    /// One tmux command: found by name, alias or unique prefix, its flags
    /// read by its template, its arguments judged by what they are
    /// ([`crate::opts::tmuxopts::Operands`]). `env` is the server's.
    fn tmux_command(&mut self, cmd: &[Field], env: &mut Env, depth: u32) -> Run {
        use crate::opts::tmuxopts::{
            Lookup, Operands, OptionValue, data_operands, lookup, option_value,
        };
        let Some(first) = cmd.first() else {
            return Run::Done(Output::Unknown);
        };
        let name = first.text();
        let c = match lookup(&name) {
            Lookup::One(c) if first.static_text().is_some() => c,
            Lookup::Ambiguous => {
                return self.hold_tmux(&format!("`{name}`, a prefix of several tmux commands"));
            }
            _ => {
                return self
                    .hold_tmux(&format!("`{name}`, a tmux command the check does not know"));
            }
        };
        let args = &cmd[1..];
        let p = crate::opts::getopt::parse(&c.spec, args);
        if !p.problems.is_empty() {
            let what = format!(
                "`{}` with {} (its flags: `{}`)",
                c.name,
                p.problems.join("; "),
                c.template
            );
            return self.hold_tmux(&what);
        }
        // A word that may expand to nothing moves every later word up
        // one place: a flag's value becomes the command (review s19 S6).
        if self.hold_vanishing(&format!("tmux {}", c.name), args, args.len()) {
            return Run::Done(Output::Unknown);
        }
        // A format's `#(CMD)` runs CMD with the shell; tmux can assemble
        // one from pieces (`#{l:#}(…)`, `#{E:@c}`): any `#` but a plain
        // one ([`tmux_format_plain`]) is held (review s21 U7).
        if args.iter().any(|a| a.text().contains("#(")) {
            return self.hold_tmux("a format with `#(…)`, which runs a shell command");
        }
        if let Some(a) = args.iter().find(|a| !tmux_format_plain(&a.text())) {
            return self.hold_tmux(&format!(
                "`{}`, a format tmux may expand into a `#(…)` shell command",
                a.text()
            ));
        }
        // `-F` makes set-option, set-window-option and set-environment
        // expand the value as a format before storing it (review s21 U7).
        if matches!(
            c.name,
            "set-option" | "set-window-option" | "set-environment"
        ) && p.has("F")
        {
            return self.hold_tmux(&format!(
                "`{} -F`, a value expanded as a format before it is stored",
                c.name
            ));
        }
        // The server's environment, copied into every later pane: only
        // inert variables, or unsetting one (review s21 U8).
        if c.name == "set-environment" && !p.has("u") && !p.has("r") {
            let ops = &args[p.end.min(args.len())..];
            if !ops
                .first()
                .and_then(Field::static_text)
                .is_some_and(|n| inert_var(&n))
            {
                return self.hold_tmux(&format!(
                    "`set-environment {}`: a variable for the server and every later pane, which may make their \
                     shells or programs run code",
                    ops.first().map(Field::text).unwrap_or_default()
                ));
            }
        }
        let via = format!("tmux {}", c.name);
        for f in &p.found {
            if let Some(v) = f
                .value
                .as_ref()
                .filter(|_| c.shell_flags.contains(f.opt.short))
            {
                self.tmux_shell(std::slice::from_ref(v), env, depth, &via, &At::Caller);
            }
        }
        let ops = &args[p.end.min(args.len())..];
        // One argument is a command list as a string; several are one
        // command's words (arguments.c `ARGS_PARSE_COMMANDS_OR_STRING`).
        let commands = |a: &mut Self, words: &[Field], env: &mut Env| match words {
            [one] => a.tmux_string(one, env, depth),
            _ => {
                a.tmux_nested += 1;
                let out = a.tmux_commands(words, env, depth + 1);
                a.tmux_nested -= 1;
                out
            }
        };
        match c.operands {
            // `run-shell -C CMDS`: tmux commands, not shell text (expanded
            // as a format first: a `#` is held).
            Operands::Shell if c.name == "run-shell" && p.has("C") => {
                if ops.iter().any(|o| o.text().contains('#')) {
                    return self.hold_tmux("`run-shell -C` commands with `#`, expanded as a format first");
                }
                for o in ops {
                    self.tmux_string(o, env, depth);
                }
                Run::Done(Output::Unknown)
            }
            // `pipe-pane -I CMD`: CMD's output is typed into the pane.
            Operands::Shell if c.name == "pipe-pane" && p.has("I") => {
                self.hold_tmux("`pipe-pane -I` (a command's output typed into the pane)")
            }
            Operands::Shell => match self.tmux_spawn(c, &p) {
                Some(at) => self.tmux_shell(ops, env, depth, &via, &at),
                None => Run::Done(Output::Unknown),
            },
            Operands::IfShell => {
                if let Some(cond) = ops.first().filter(|_| !p.has("F")) {
                    self.tmux_shell(std::slice::from_ref(cond), env, depth, &via, &At::Caller);
                }
                for o in ops.get(1..).unwrap_or(&[]) {
                    self.tmux_string(o, env, depth);
                }
                Run::Done(Output::Unknown)
            }
            Operands::Commands => {
                for o in ops {
                    self.tmux_string(o, env, depth);
                }
                Run::Done(Output::Unknown)
            }
            Operands::CommandsAfterName => commands(self, ops.get(1..).unwrap_or(&[]), env),
            Operands::Menu => {
                // NAME KEY COMMAND triples; an empty NAME is a separator.
                let mut i = 0;
                while i < ops.len() {
                    if ops[i].text().is_empty() {
                        i += 1;
                        continue;
                    }
                    if let Some(o) = ops.get(i + 2) {
                        self.tmux_string(o, env, depth);
                    }
                    i += 3;
                }
                Run::Done(Output::Unknown)
            }
            // `-X`: a copy-mode command; the `copy-pipe*` and `pipe*`
            // ones run shell text.
            Operands::Keys if p.has("X") => {
                if ops.first().is_some_and(|o| o.text().contains("pipe")) {
                    return self.hold_tmux("`send-keys -X` with a copy-mode command that pipes to a shell command");
                }
                Run::Done(Output::Unknown)
            }
            Operands::Keys => {
                if let Some(f) = ["H", "N", "M", "K", "F"].iter().find(|f| p.has(f)) {
                    return self.hold_tmux(&format!(
                        "`send-keys -{f}` (keys the check does not decode)"
                    ));
                }
                match typed_keys(ops, p.has("l")) {
                    Ok(typed) if typed.is_empty() => Run::Done(Output::Unknown),
                    Ok(typed) if typed.ends_with('\n') => {
                        self.server_words(&[Field::lit(typed)], env, depth, "tmux send-keys", &At::Pane)
                    }
                    Ok(_) => self.hold_tmux(
                        "keys that leave text at the prompt for a later line (no Enter at the end)",
                    ),
                    Err(what) => self.hold_tmux(&what),
                }
            }
            Operands::Option => {
                let Some(opt) = ops.first() else {
                    return Run::Done(Output::Unknown);
                };
                let value = ops.get(1..).unwrap_or(&[]);
                match option_value(&opt.text()) {
                    OptionValue::Hold => {
                        self.hold_tmux(&format!("option `{}`, which may run its value", opt.text()))
                    }
                    _ if p.has("u") || value.is_empty() => Run::Done(Output::Unknown),
                    // Run later by new panes, wherever they start.
                    OptionValue::Shell => self.tmux_shell(value, env, depth, &via, &At::Pane),
                    OptionValue::Commands if p.has("F") => {
                        self.hold_tmux("`-F`: tmux commands expanded as a format first")
                    }
                    OptionValue::Commands => commands(self, value, env),
                    OptionValue::Data => Run::Done(Output::Unknown),
                }
            }
            // More operands than the command takes: the name is an
            // alias (`command-alias`) for another command (review s19 S2).
            Operands::Data if ops.len() > data_operands(c.name) => self.hold_tmux(&format!(
                "`{}` with more operands than it takes (a `command-alias` may make it run another command)",
                c.name
            )),
            Operands::Data => Run::Done(Output::Unknown),
            Operands::Hold => self.hold_tmux(&format!(
                "`{}`, which runs what the check cannot see",
                c.name
            )),
        }
    }
}
