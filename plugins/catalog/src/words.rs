//! A light word splitter for the shell commands of *earlier* calls, which
//! history rules read for simple facts (a directory made, a symbolic link,
//! a server started, a file read). It splits at `;`, `&&`, `||`, `|`, `&`
//! and newlines, removes quotes and backslash escapes, and knows nothing
//! else of the shell: the call being checked is parsed properly by
//! shell-guard, and a history rule that misreads an odd command only
//! misses a fact. Facts that decide (the run's links, directories and
//! servers, `crate::run`) are read with the shell parse instead
//! (`crate::parse::commands`); [`lenient_commands`] is their fallback for
//! a text the parser refuses.

/// The simple commands of `command`, each as its words.
pub fn commands(command: &str) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = command.chars().peekable();
    let mut quote: Option<char> = None;
    let flush = |word: &mut String, in_word: &mut bool, words: &mut Vec<String>| {
        if *in_word {
            words.push(std::mem::take(word));
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => {
                if let Some(n) = chars.next() {
                    word.push(n);
                }
            }
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, '\\') => {
                if let Some(n) = chars.next()
                    && n != '\n'
                {
                    word.push(n);
                    in_word = true;
                }
            }
            (None, ';' | '|' | '&' | '\n' | '(' | ')') => {
                flush(&mut word, &mut in_word, &mut words);
                if !words.is_empty() {
                    out.push(std::mem::take(&mut words));
                }
            }
            (None, c) if c.is_whitespace() => flush(&mut word, &mut in_word, &mut words),
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    flush(&mut word, &mut in_word, &mut words);
    if !words.is_empty() {
        out.push(words);
    }
    for w in &mut out {
        // Leading `VAR=value` assignments and a `sudo`/`nohup`/`exec`
        // wrapper are not the command.
        while w.len() > 1
            && (is_assignment(&w[0])
                || matches!(
                    w[0].as_str(),
                    "sudo" | "nohup" | "exec" | "time" | "command"
                ))
        {
            w.remove(0);
        }
    }
    out
}

/// The simple commands of a text the shell parser refused
/// (`crate::parse::commands`), read with [`commands`] and cleaned the way
/// the shell would likely take them: a word starting with `#` ends the
/// command, redirections (`2>/dev/null`, `> f`, `2>&1`) are dropped, and
/// keywords in front (`then ln …`, `{`, `!`) are not the command. A guess:
/// callers treat what it gives as doubtful.
pub fn lenient_commands(cmd: &str) -> Vec<Vec<String>> {
    const KEYWORDS: &[&str] = &[
        "if", "then", "else", "elif", "do", "while", "until", "{", "!", "time",
    ];
    let mut out = Vec::new();
    for w in commands(&without_comments_and_fd_ampersands(cmd)) {
        let mut kept: Vec<String> = Vec::new();
        let mut skip_next = false;
        for word in w {
            if skip_next {
                skip_next = false;
                continue;
            }
            if word.starts_with('#') {
                break;
            }
            let rest = word.trim_start_matches(|c: char| c.is_ascii_digit());
            let rest = rest.strip_prefix('&').unwrap_or(rest);
            if rest.starts_with(['<', '>']) {
                // An operator alone takes the next word as its file.
                skip_next = rest.trim_end_matches(['<', '>', '|', '&']).is_empty();
                continue;
            }
            if kept.is_empty() && KEYWORDS.contains(&word.as_str()) {
                continue;
            }
            kept.push(word);
        }
        while kept.len() > 1
            && matches!(
                kept[0].as_str(),
                "sudo" | "nohup" | "exec" | "time" | "command"
            )
        {
            kept.remove(0);
        }
        if !kept.is_empty() {
            out.push(kept);
        }
    }
    out
}

/// `cmd` with unquoted comments (`#` starting a word, to the end of the
/// line) removed and the `&` of `>&`/`&>` redirections made a blank, so
/// that [`commands`] does not take them for separators (`2>&1` → `2> 1`).
fn without_comments_and_fd_ampersands(cmd: &str) -> String {
    let mut out = String::with_capacity(cmd.len());
    let mut quote: Option<char> = None;
    let mut it = cmd.chars().peekable();
    let mut word_start = true;
    while let Some(c) = it.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => {
                out.push(c);
                if let Some(n) = it.next() {
                    out.push(n);
                }
                continue;
            }
            (Some(_), _) => {}
            (None, '\\') => {
                out.push(c);
                if let Some(n) = it.next() {
                    out.push(n);
                }
                word_start = false;
                continue;
            }
            (None, '\'' | '"') => quote = Some(c),
            (None, '#') if word_start => {
                for n in it.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                        break;
                    }
                }
                word_start = true;
                continue;
            }
            (None, '>') if it.peek() == Some(&'&') => {
                it.next();
                out.push_str("> ");
                word_start = true;
                continue;
            }
            (None, '&') if it.peek() == Some(&'>') => {
                out.push(' ');
                word_start = true;
                continue;
            }
            _ => {}
        }
        out.push(c);
        word_start = quote.is_none() && (c.is_whitespace() || ";&|()".contains(c));
    }
    out
}

/// Whether `word` is a `NAME=value` assignment.
pub fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| is_name(name))
}

/// Whether `name` can name a shell variable (letters, digits and `_`, not
/// starting with a digit).
pub fn is_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The command name of a word (`/usr/bin/ln` → `ln`).
pub fn base_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// The words of a command that are not options (`-s`, `--force`), after
/// its name.
pub fn operands(words: &[String]) -> Vec<&str> {
    let mut out = Vec::new();
    let mut ended = false;
    for w in words.iter().skip(1) {
        if ended || !w.starts_with('-') || w == "-" {
            out.push(w.as_str());
        } else if w == "--" {
            ended = true;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_commands_and_words() {
        let c = commands("mkdir -p build/out && ln -s 'build/out' latest; echo \"a b\" | cat");
        assert_eq!(c.len(), 4);
        assert_eq!(c[0], ["mkdir", "-p", "build/out"]);
        assert_eq!(c[1], ["ln", "-s", "build/out", "latest"]);
        assert_eq!(c[2], ["echo", "a b"]);
        assert_eq!(operands(&c[1]), ["build/out", "latest"]);
        let c = commands("PORT=3000 nohup npm run dev > /tmp/x 2>&1 &");
        assert_eq!(c[0][0], "npm");
        assert_eq!(base_name("/usr/bin/ln"), "ln");
        assert!(commands("").is_empty());
    }

    #[test]
    fn lenient_reading_drops_redirections_comments_and_keywords() {
        assert_eq!(
            lenient_commands(
                "then ln -s ~ h 2> /dev/null # ( c; x\nln 2>&1 -s a b &>/dev/null; fi"
            ),
            [
                vec!["ln", "-s", "~", "h"],
                vec!["ln", "-s", "a", "b"],
                vec!["fi"]
            ]
        );
        assert_eq!(
            lenient_commands("{ sudo ln -s T k >/dev/null"),
            [["ln", "-s", "T", "k"]]
        );
    }
}
