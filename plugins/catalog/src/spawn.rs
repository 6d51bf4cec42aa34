//! Shell commands that Perl and Ruby code runs through its process calls,
//! written as those languages are usually written: with or without
//! parentheses (`system "rm -rf ~"`, `system("rm -rf ~")`), as one shell
//! command or as a list that is the program's argv (`system "rm", "-rf",
//! "/home/alice"`, `exec qw(rm -rf /home/alice)`, `system(*%w[rm -rf x])`),
//! and through a piped `open` (`open(my $fh, "-|", "ls")`, `open(FH,
//! "rm -rf ~ |")`, Ruby's `open("|rm -rf ~")`) (review s8 F4).
//!
//! [`perl_ruby_commands`] returns each as shell text, for a check that
//! judges shell commands to judge: a single string as the shell would run
//! it, a list as its words quoted and joined. Only literal strings are
//! read (`'…'`, `"…"`, Perl's `q`/`qq`/`qw`, Ruby's `%q`/`%Q`/`%w`/`%W`,
//! arrays of them); a list stops at the first value that is not one. The
//! home directory written as `$ENV{HOME}` (Perl) or `#{ENV['HOME']}`,
//! `#{Dir.home}` (Ruby) inside a double-quoted string is the shell's
//! `$HOME`. Backquotes and `qx` are read elsewhere (shell-guard).

/// Calls whose arguments are a command: one string run by the shell, or a
/// list that is the program and its arguments.
const RUNNERS: &[&str] = &[
    "system",
    "exec",
    "spawn",
    "readpipe",
    "popen",
    "popen2",
    "popen2e",
    "popen3",
    "capture2",
    "capture2e",
    "capture3",
];

/// The most distinct commands returned for one piece of code is one more
/// than this, so that a caller judging this many knows some were left out.
const MAX_FOUND: usize = 32;

/// The longest run of code read as one argument that is not a literal.
const MAX_ARGUMENT: usize = 4096;

/// Stands for the home directory inside a read string until it is quoted.
const HOME: &str = "\u{0}HOME\u{0}";

/// One argument of a call.
#[derive(Debug, Clone, PartialEq)]
enum Arg {
    /// A string literal: its text (the home marked by [`HOME`]).
    Str(String),
    /// A literal list of strings (`qw(…)`, `%w[…]`, `["rm", "-rf"]`).
    List(Vec<String>),
    /// Anything else (a variable, a call, a keyword argument).
    Other,
}

/// The shell commands that the Perl or Ruby `code` runs through `system`,
/// `exec`, `spawn`, `readpipe`, `IO.popen`, `Open3.*` and piped `open`
/// calls whose command is literal, as shell text (see the module's
/// documentation).
pub fn perl_ruby_commands(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    let names = RUNNERS.iter().chain(std::iter::once(&"open"));
    for name in names {
        for (at, _) in code.match_indices(name) {
            if found.len() > MAX_FOUND {
                return found;
            }
            let before = code[..at].chars().next_back();
            let after = code[at + name.len()..].chars().next();
            let word_char = |c: char| c.is_alphanumeric() || c == '_';
            // A word of its own, not a variable (`$system`, `@exec`).
            if before.is_some_and(|c| word_char(c) || "$@%&".contains(c))
                || after.is_some_and(word_char)
            {
                continue;
            }
            let args = call_arguments(&code[at + name.len()..]);
            let command = if *name == "open" {
                piped_open(&args)
            } else {
                command_of(&args)
            };
            // The same command twice is judged once, so repeats cannot
            // fill the count.
            if let Some(c) = command.filter(|c| !c.trim().is_empty() && !found.contains(c)) {
                found.push(c);
            }
        }
    }
    found
}

/// The command a list of arguments runs: one string is shell text; the
/// leading literals of several (or a literal list) are an argv.
fn command_of(args: &[Arg]) -> Option<String> {
    match args.first()? {
        Arg::Str(s) if !matches!(args.get(1), Some(Arg::Str(_) | Arg::List(_))) => {
            Some(s.replace(HOME, "${HOME}"))
        }
        Arg::Other => None,
        _ => {
            let mut words = Vec::new();
            for arg in args {
                match arg {
                    Arg::Str(s) => words.push(s.clone()),
                    Arg::List(l) => words.extend(l.iter().cloned()),
                    Arg::Other => break,
                }
            }
            Some(words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" "))
        }
    }
}

/// The command a piped `open` runs: the arguments after a `-|` or `|-`
/// mode (Perl's three-argument form), or a string that begins or ends
/// with `|` (Perl's two-argument form, Ruby's `open("|cmd")`).
fn piped_open(args: &[Arg]) -> Option<String> {
    if let Some(mode) = args
        .iter()
        .position(|a| matches!(a, Arg::Str(s) if s.trim() == "-|" || s.trim() == "|-"))
    {
        return command_of(&args[mode + 1..]);
    }
    args.iter().find_map(|a| match a {
        Arg::Str(s) => {
            let t = s.trim();
            let cmd = t.strip_prefix('|').or_else(|| t.strip_suffix('|'))?.trim();
            Some(cmd.replace(HOME, "${HOME}"))
        }
        _ => None,
    })
}

/// A word for the shell, quoted so that it is that one word (a `~` too);
/// the home marker becomes `"${HOME}"`.
fn quote(word: &str) -> String {
    word.split(HOME)
        .map(|piece| {
            let plain = !piece.is_empty()
                && !piece.starts_with('~')
                && piece
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_./:,+@%~-".contains(c));
            if plain || piece.is_empty() {
                piece.to_string()
            } else {
                format!("'{}'", piece.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join("\"${HOME}\"")
}

/// The arguments after a call's name: in parentheses or not, separated by
/// commas (or `=>`), up to the first that is not followed by one. A
/// leading block or hash (Perl's `system { "sh" } LIST`, Ruby's
/// environment hash `system({"A" => "1"}, "cmd")`) is passed over.
fn call_arguments(rest: &str) -> Vec<Arg> {
    let mut s = rest.trim_start();
    if let Some(inner) = s.strip_prefix('(') {
        s = inner.trim_start();
    }
    if s.starts_with('{') {
        let Some(end) = balanced_end(s) else {
            return Vec::new();
        };
        s = s[end..].trim_start();
        s = s.strip_prefix(',').unwrap_or(s).trim_start();
    }
    let mut args = Vec::new();
    loop {
        let (arg, after) = argument(s);
        args.push(arg);
        s = after.trim_start();
        if let Some(a) = s.strip_prefix(',').or_else(|| s.strip_prefix("=>")) {
            s = a.trim_start();
        } else {
            break;
        }
        if args.len() >= 64 || s.is_empty() {
            break;
        }
    }
    args
}

/// The end (just past the closing bracket) of the bracketed text `s`
/// opens, quotes passed over; `None` when it does not close soon.
fn balanced_end(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in s.char_indices().take(MAX_ARGUMENT) {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// One argument at the start of `s` and the text after it.
fn argument(s: &str) -> (Arg, &str) {
    // Ruby's splat of a literal list: `*%w[rm -rf x]`.
    let t = s.strip_prefix('*').unwrap_or(s);
    if let Some((arg, after)) = literal(t) {
        return (arg, after);
    }
    if let Some(inner) = t.strip_prefix('[') {
        let mut words = Vec::new();
        let mut r = inner.trim_start();
        while let Some((arg, after)) = literal(r) {
            match arg {
                Arg::Str(w) => words.push(w),
                Arg::List(l) => words.extend(l),
                Arg::Other => break,
            }
            r = after.trim_start();
            match r.strip_prefix(',') {
                Some(a) => r = a.trim_start(),
                None => break,
            }
        }
        if let Some(after) = r.strip_prefix(']')
            && !words.is_empty()
        {
            return (Arg::List(words), after);
        }
    }
    // Not a literal: up to the next comma, or the end of the call or
    // statement, at depth 0.
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in s.char_indices().take(MAX_ARGUMENT) {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth == 0 => return (Arg::Other, &s[i..]),
            ')' | ']' | '}' => depth -= 1,
            ',' | ';' | '\n' if depth == 0 => return (Arg::Other, &s[i..]),
            _ => {}
        }
    }
    (Arg::Other, "")
}

/// A string literal at the start of `s`: `'…'`, `"…"`, Perl's `q`, `qq`,
/// `qw` and Ruby's `%q`, `%Q`, `%`, `%w`, `%W` with any delimiter.
fn literal(s: &str) -> Option<(Arg, &str)> {
    if let Some(rest) = s.strip_prefix('\'') {
        return delimited(rest, '\'', '\'', false).map(|(t, a)| (Arg::Str(t), a));
    }
    if let Some(rest) = s.strip_prefix('"') {
        return delimited(rest, '"', '"', true).map(|(t, a)| (Arg::Str(t), a));
    }
    // Quote-like operators: the longest prefix first.
    for (prefix, words, interpolates) in [
        ("qq", false, true),
        ("qw", true, false),
        ("q", false, false),
        ("%Q", false, true),
        ("%q", false, false),
        ("%W", true, true),
        ("%w", true, false),
        ("%", false, true),
    ] {
        let Some(rest) = s.strip_prefix(prefix) else {
            continue;
        };
        // Perl allows white space before the delimiter; Ruby does not.
        let rest = if prefix.starts_with('q') {
            rest.trim_start()
        } else {
            rest
        };
        let open = rest.chars().next()?;
        if open.is_alphanumeric() || open == '_' || open.is_whitespace() || open == ',' {
            continue;
        }
        let close = match open {
            '(' => ')',
            '[' => ']',
            '{' => '}',
            '<' => '>',
            c => c,
        };
        let (text, after) = delimited(&rest[open.len_utf8()..], open, close, interpolates)?;
        let arg = if words {
            Arg::List(text.split_whitespace().map(str::to_string).collect())
        } else {
            Arg::Str(text)
        };
        return Some((arg, after));
    }
    None
}

/// The text up to the `close` that ends it (nested `open`/`close` pairs
/// counted when they differ), with backslash escapes undone (in a
/// non-interpolating string only `\\` and an escaped delimiter), and the
/// rest after it. In an interpolating one, the home directory's spellings
/// become [`HOME`].
fn delimited(s: &str, open: char, close: char, interpolates: bool) -> Option<(String, &str)> {
    let mut out = String::new();
    let mut depth = 0usize;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if escaped {
            escaped = false;
            if interpolates {
                out.push(match c {
                    'n' => '\n',
                    't' => '\t',
                    c => c,
                });
            } else {
                if c != '\\' && c != open && c != close {
                    out.push('\\');
                }
                out.push(c);
            }
        } else if c == '\\' {
            escaped = true;
        } else if c == close && depth == 0 {
            let text = if interpolates { home(&out) } else { out };
            return Some((text, &s[i + c.len_utf8()..]));
        } else {
            if open != close {
                if c == open {
                    depth += 1;
                } else if c == close {
                    depth -= 1;
                }
            }
            out.push(c);
        }
    }
    None
}

/// The home directory's spellings in an interpolating Perl or Ruby string,
/// replaced by [`HOME`].
fn home(text: &str) -> String {
    let mut t = text.to_string();
    for spelling in [
        "$ENV{HOME}",
        "$ENV{'HOME'}",
        "$ENV{\"HOME\"}",
        "${ENV{HOME}}",
        "#{ENV['HOME']}",
        "#{ENV[\"HOME\"]}",
        "#{ENV.fetch('HOME')}",
        "#{ENV.fetch(\"HOME\")}",
        "#{Dir.home}",
        "#{Dir.home()}",
        "#{File.expand_path('~')}",
        "#{File.expand_path(\"~\")}",
    ] {
        if t.contains(spelling) {
            t = t.replace(spelling, HOME);
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(code: &str) -> Vec<String> {
        perl_ruby_commands(code)
    }

    #[test]
    fn calls_without_parentheses_are_read() {
        // Review s8 F4: the usual Perl and Ruby form.
        assert_eq!(found(r#"system "rm -rf ~""#), ["rm -rf ~"]);
        assert_eq!(found(r#"system "rm -rf ~";"#), ["rm -rf ~"]);
        assert_eq!(found("system 'rm -rf ~' or die"), ["rm -rf ~"]);
        assert_eq!(
            found(r#"exec "rm -rf /home/alice""#),
            ["rm -rf /home/alice"]
        );
        assert_eq!(found(r#"spawn "rm -rf ~""#), ["rm -rf ~"]);
        assert_eq!(found(r#"Process.spawn "rm -rf ~""#), ["rm -rf ~"]);
        assert_eq!(found(r#"Kernel.system "rm -rf ~""#), ["rm -rf ~"]);
        assert_eq!(found(r#"CORE::system "rm -rf ~""#), ["rm -rf ~"]);
        assert_eq!(found(r#"readpipe "rm -rf ~""#), ["rm -rf ~"]);
        assert_eq!(found(r#"IO.popen "rm -rf ~""#), ["rm -rf ~"]);
        assert_eq!(found(r#"x = 1; system("rm -rf ~")"#), ["rm -rf ~"]);
        assert_eq!(found("system\n  \"rm -rf ~\""), ["rm -rf ~"]);
        assert_eq!(found("system q(rm -rf ~)"), ["rm -rf ~"]);
        assert_eq!(found("system qq{rm -rf ~}"), ["rm -rf ~"]);
        assert_eq!(found("system %q(rm -rf ~)"), ["rm -rf ~"]);
        assert_eq!(found("system %(rm -rf ~)"), ["rm -rf ~"]);
        // Ruby's keyword options after the command.
        assert_eq!(found(r#"system "rm -rf ~", exception: true"#), ["rm -rf ~"]);
        // Ruby's environment hash, Perl's indirect object.
        assert_eq!(found(r#"system({"A" => "1"}, "rm -rf ~")"#), ["rm -rf ~"]);
        assert_eq!(
            found(r#"exec { "sh" } "sh", "-c", "rm -rf ~""#),
            ["sh -c 'rm -rf ~'"]
        );
    }

    #[test]
    fn lists_are_an_argv() {
        assert_eq!(
            found(r#"system "rm", "-rf", "/home/alice""#),
            ["rm -rf /home/alice"]
        );
        assert_eq!(
            found(r#"system("rm", "-rf", "/home/alice")"#),
            ["rm -rf /home/alice"]
        );
        assert_eq!(found("exec qw(rm -rf /home/alice)"), ["rm -rf /home/alice"]);
        assert_eq!(
            found("system(*%w[rm -rf /home/alice])"),
            ["rm -rf /home/alice"]
        );
        assert_eq!(
            found(r#"IO.popen(["rm", "-rf", "/home/alice"])"#),
            ["rm -rf /home/alice"]
        );
        // No shell reads the words: a `~` or a space is the word itself.
        assert_eq!(found(r#"system "rm", "-rf", "~""#), ["rm -rf '~'"]);
        assert_eq!(found(r#"system "rm", "a b; c""#), ["rm 'a b; c'"]);
        // The list stops at a value that is not a literal.
        assert_eq!(found(r#"system "rm", "-rf", $dir"#), ["rm -rf"]);
        assert!(found("system $cmd").is_empty());
        assert!(found("system @argv").is_empty());
    }

    #[test]
    fn the_home_in_a_string_is_the_shells() {
        assert_eq!(found(r#"system "rm -rf $ENV{HOME}""#), ["rm -rf ${HOME}"]);
        assert_eq!(
            found(r##"system "rm -rf #{Dir.home}""##),
            ["rm -rf ${HOME}"]
        );
        assert_eq!(
            found(r#"system "rm", "-rf", "$ENV{HOME}/.ssh""#),
            [r#"rm -rf "${HOME}"/.ssh"#]
        );
        // Not in a single-quoted string (the shell expands `$HOME` there).
        assert_eq!(found(r"system 'rm -rf $ENV{HOME}'"), ["rm -rf $ENV{HOME}"]);
    }

    #[test]
    fn piped_opens_are_read() {
        assert_eq!(found(r#"open(my $fh, "-|", "rm -rf ~")"#), ["rm -rf ~"]);
        assert_eq!(
            found(r#"open my $fh, "|-", "rm", "-rf", "/home/alice""#),
            ["rm -rf /home/alice"]
        );
        assert_eq!(found(r#"open(FH, "rm -rf ~ |")"#), ["rm -rf ~"]);
        assert_eq!(found(r#"open FH, "| rm -rf ~""#), ["rm -rf ~"]);
        assert_eq!(found(r#"open("|rm -rf ~")"#), ["rm -rf ~"]);
        assert!(found(r#"open(my $fh, "<", "data.txt")"#).is_empty());
        assert!(found(r#"File.open("x.txt", "w") { |f| f.write("a|") }"#).is_empty());
    }

    #[test]
    fn other_words_are_not_calls() {
        assert!(found("my $system = 1; print $system").is_empty());
        assert!(found(r#"$sth->execute("x")"#).is_empty());
        assert!(found(r#"print "the system is up""#).is_empty());
        assert!(found("filesystem 'x'").is_empty());
        assert!(found("system").is_empty());
        assert!(found("system(").is_empty());
        assert!(found("system \"unterminated").is_empty());
        assert!(found("{system => 1}").is_empty());
    }

    #[test]
    fn long_code_is_bounded() {
        let code: String = (0..1000).map(|i| format!("system \"ls {i}\";")).collect();
        assert_eq!(found(&code).len(), MAX_FOUND + 1);
        let code = format!("system {}", "(".repeat(10_000));
        assert!(found(&code).is_empty());
    }
}
