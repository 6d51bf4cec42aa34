//! Where an interactive shell's input stops being one unfinished command.
//!
//! Keystrokes reach a persistent shell in pieces. bash reads a newline as
//! the end of the commands before it only when they are complete: a
//! newline after an escaping backslash continues the line (PS2, the pair is
//! dropped), and a quote, a here-document, a `$(`, `(`, `{`, `if`, `case`,
//! `for`/`while`/`until`/`select`, `[[` left open, or a trailing `|`, `&&`,
//! `||`, keeps reading. [`scan`] finds the last newline where the text read
//! so far is complete commands; what follows is what the shell still holds.
//!
//! The reading errs on one side only: a newline is taken as an end only
//! when every construct before it is closed as far as this reading can
//! tell; anything it does not follow (a closer that matches nothing, a
//! here-document word it cannot read) keeps the rest of the text open. Text
//! kept open too long is judged joined to what follows it, by the checks'
//! own parser, which is stricter, never looser.

/// What [`scan`] learns about a shell's input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Scan {
    /// The byte offset just after the last newline that ends complete
    /// commands (0: none does); the text from here on is still held.
    pub(crate) complete_until: usize,
    /// The byte offsets of the backslashes whose following newline
    /// continues the line (bash drops both).
    pub(crate) continuations: Vec<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    /// `(` a subshell, `<(`/`>(`, a function's `()`, `((`.
    Paren,
    /// `$(` and `$((`.
    CommandSub,
    /// `` ` `` command substitution.
    Backtick,
    /// `${`.
    Param,
    /// `"`.
    Double,
    /// `{ … }` group.
    Brace,
    /// `if … fi`.
    If,
    /// `case … esac`.
    Case,
    /// `for`/`while`/`until`/`select` … `done`.
    Loop,
    /// `[[ … ]]`.
    Test,
}

/// A here-document waiting for its body: its delimiter, whether tabs are
/// stripped (`<<-`), and whether the body is literal (a quoted word).
struct Heredoc {
    delimiter: String,
    strip_tabs: bool,
    literal: bool,
}

/// Reads `text` as an interactive bash reads its input (see the module).
pub(crate) fn scan(text: &str) -> Scan {
    let b = text.as_bytes();
    let mut frames: Vec<Frame> = Vec::new();
    let mut heredocs: Vec<Heredoc> = Vec::new();
    let mut continuations = Vec::new();
    let mut complete_until = 0;
    // Something this reading does not follow: no later newline ends.
    let mut lost = false;
    // The last token asks for more (`|`, `&&`, `||`, `|&`, a function's
    // `()`).
    let mut wants_more = false;
    // The next word is in command position (keywords count there).
    let mut command_position = true;
    // Inside `case … in`, a word before `)` is a pattern.
    let mut pattern_position = false;
    // After `case WORD`: its `in` starts the patterns.
    let mut awaiting_in = false;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let top = frames.last().copied();
        match top {
            Some(Frame::Double) => {
                match c {
                    b'\\' if b.get(i + 1) == Some(&b'\n') => {
                        continuations.push(i);
                        i += 2;
                    }
                    b'\\' => i += 2,
                    b'"' => {
                        frames.pop();
                        i += 1;
                    }
                    b'$' if b.get(i + 1) == Some(&b'(') => {
                        frames.push(Frame::CommandSub);
                        command_position = true;
                        i += 2;
                    }
                    b'$' if b.get(i + 1) == Some(&b'{') => {
                        frames.push(Frame::Param);
                        i += 2;
                    }
                    b'`' => {
                        frames.push(Frame::Backtick);
                        command_position = true;
                        i += 1;
                    }
                    _ => i += 1,
                }
                continue;
            }
            Some(Frame::Param) => {
                match c {
                    b'\\' if b.get(i + 1) == Some(&b'\n') => {
                        continuations.push(i);
                        i += 2;
                    }
                    b'\\' => i += 2,
                    b'}' => {
                        frames.pop();
                        i += 1;
                    }
                    b'\'' => match find_byte(b, i + 1, b'\'') {
                        Some(end) => i = end + 1,
                        None => return open(complete_until, continuations),
                    },
                    b'"' => {
                        frames.push(Frame::Double);
                        i += 1;
                    }
                    b'$' if b.get(i + 1) == Some(&b'(') => {
                        frames.push(Frame::CommandSub);
                        command_position = true;
                        i += 2;
                    }
                    b'$' if b.get(i + 1) == Some(&b'{') => {
                        frames.push(Frame::Param);
                        i += 2;
                    }
                    b'`' => {
                        frames.push(Frame::Backtick);
                        command_position = true;
                        i += 1;
                    }
                    _ => i += 1,
                }
                continue;
            }
            _ => {}
        }
        match c {
            b'\\' => {
                if b.get(i + 1) == Some(&b'\n') {
                    continuations.push(i);
                } else {
                    wants_more = false;
                    command_position = false;
                }
                i += 2;
            }
            b'\'' => {
                let ansi = i > 0 && b[i - 1] == b'$';
                match closing_quote(b, i + 1, ansi) {
                    Some(end) => i = end + 1,
                    None => return open(complete_until, continuations),
                }
                wants_more = false;
                command_position = false;
            }
            b'"' => {
                frames.push(Frame::Double);
                wants_more = false;
                command_position = false;
                i += 1;
            }
            b'`' => {
                if top == Some(Frame::Backtick) {
                    frames.pop();
                    command_position = false;
                } else {
                    frames.push(Frame::Backtick);
                    command_position = true;
                }
                wants_more = false;
                i += 1;
            }
            b'#' if word_start(b, i) => {
                // A comment runs to the newline; nothing in it counts.
                i = find_byte(b, i, b'\n').unwrap_or(b.len());
            }
            b'\n' => {
                i += 1;
                if !heredocs.is_empty() {
                    match read_bodies(b, i, &heredocs, &mut continuations) {
                        Some(end) => {
                            heredocs.clear();
                            i = end;
                        }
                        None => return open(complete_until, continuations),
                    }
                }
                if frames.is_empty() && !wants_more && !lost {
                    complete_until = i;
                }
                command_position = !pattern_position;
            }
            b';' | b'&' => {
                let two = b.get(i + 1).copied();
                if c == b'&' && two == Some(b'&') {
                    wants_more = true;
                    command_position = true;
                    i += 2;
                } else if c == b'&' && two == Some(b'>') {
                    // `&>` redirects.
                    wants_more = false;
                    command_position = false;
                    i += 2;
                } else if c == b';' && two == Some(b';') {
                    // `;;` / `;;&` end a case item: a pattern follows.
                    pattern_position = top == Some(Frame::Case);
                    wants_more = false;
                    command_position = !pattern_position;
                    i += if b.get(i + 2) == Some(&b'&') { 3 } else { 2 };
                } else if c == b';' && two == Some(b'&') {
                    pattern_position = top == Some(Frame::Case);
                    wants_more = false;
                    command_position = !pattern_position;
                    i += 2;
                } else {
                    wants_more = false;
                    command_position = true;
                    i += 1;
                }
            }
            b'|' => {
                if matches!(b.get(i + 1), Some(b'|' | b'&')) {
                    i += 2;
                } else {
                    i += 1;
                }
                wants_more = true;
                command_position = true;
            }
            b'$' if b.get(i + 1) == Some(&b'(') => {
                frames.push(Frame::CommandSub);
                wants_more = false;
                command_position = true;
                i += 2;
            }
            b'$' if b.get(i + 1) == Some(&b'{') => {
                frames.push(Frame::Param);
                wants_more = false;
                command_position = false;
                i += 2;
            }
            b'(' => {
                if top == Some(Frame::Case) && pattern_position {
                    // The optional `(` before a case pattern.
                    i += 1;
                    continue;
                }
                frames.push(Frame::Paren);
                wants_more = false;
                command_position = true;
                i += 1;
            }
            b')' => {
                if top == Some(Frame::Case) && pattern_position {
                    pattern_position = false;
                    command_position = true;
                    wants_more = false;
                    i += 1;
                    continue;
                }
                // A function's `()`: its body follows, on this line or
                // the next.
                let empty = matches!(top, Some(Frame::Paren))
                    && b[..i].iter().rev().find(|c| !is_blank(**c)) == Some(&b'(');
                match top {
                    Some(Frame::Paren | Frame::CommandSub) => {
                        frames.pop();
                    }
                    _ => lost = true,
                }
                wants_more = empty;
                command_position = empty;
                i += 1;
            }
            b'<' if b.get(i + 1) == Some(&b'(') => {
                frames.push(Frame::Paren);
                command_position = true;
                i += 2;
            }
            b'>' if b.get(i + 1) == Some(&b'(') => {
                frames.push(Frame::Paren);
                command_position = true;
                i += 2;
            }
            b'<' if b.get(i + 1) == Some(&b'<') && b.get(i + 2) == Some(&b'<') => {
                // A here-string.
                wants_more = false;
                command_position = false;
                i += 3;
            }
            b'<' if b.get(i + 1) == Some(&b'<') => {
                let strip_tabs = b.get(i + 2) == Some(&b'-');
                let mut j = i + if strip_tabs { 3 } else { 2 };
                while j < b.len() && is_blank(b[j]) {
                    j += 1;
                }
                match heredoc_word(b, j) {
                    Some((delimiter, literal, end)) => {
                        heredocs.push(Heredoc {
                            delimiter,
                            strip_tabs,
                            literal,
                        });
                        i = end;
                    }
                    None => {
                        // A word this reading cannot take apart (or none
                        // yet): nothing after it ends.
                        lost = true;
                        i = j.max(i + 2);
                    }
                }
                wants_more = false;
                command_position = false;
            }
            b'<' | b'>' => {
                wants_more = false;
                command_position = false;
                i += 1;
            }
            c if is_blank(c) => i += 1,
            _ => {
                // A word: up to the next blank or operator.
                let end = word_end(b, i);
                let word = &b[i..end];
                if awaiting_in && word == b"in" {
                    awaiting_in = false;
                    pattern_position = true;
                    command_position = false;
                } else if command_position && !pattern_position {
                    match keyword(word, &mut frames) {
                        Keyword::Opens | Keyword::Continues => {
                            wants_more = false;
                            command_position = word != b"in";
                            awaiting_in = word == b"case";
                        }
                        Keyword::Closes => {
                            wants_more = false;
                            command_position = false;
                        }
                        Keyword::Mismatch => {
                            lost = true;
                            command_position = false;
                        }
                        Keyword::Not => {
                            wants_more = false;
                            command_position = matches!(word, b"!" | b"time");
                        }
                    }
                } else if frames.last() == Some(&Frame::Case) && word == b"esac" {
                    frames.pop();
                    pattern_position = false;
                    command_position = false;
                } else if frames.last() == Some(&Frame::Test) && word == b"]]" {
                    frames.pop();
                    command_position = false;
                } else {
                    wants_more = false;
                    if !pattern_position {
                        command_position = false;
                    }
                }
                i = end;
            }
        }
    }
    open(complete_until, continuations)
}

fn open(complete_until: usize, continuations: Vec<usize>) -> Scan {
    Scan {
        complete_until,
        continuations,
    }
}

enum Keyword {
    Opens,
    Continues,
    Closes,
    Mismatch,
    Not,
}

/// A reserved word in command position and what it does to `frames`.
fn keyword(word: &[u8], frames: &mut Vec<Frame>) -> Keyword {
    let opens = match word {
        b"if" => Some(Frame::If),
        b"case" => Some(Frame::Case),
        b"for" | b"while" | b"until" | b"select" => Some(Frame::Loop),
        b"{" => Some(Frame::Brace),
        b"[[" => Some(Frame::Test),
        _ => None,
    };
    if let Some(frame) = opens {
        frames.push(frame);
        return Keyword::Opens;
    }
    let closes = match word {
        b"fi" => Frame::If,
        b"esac" => Frame::Case,
        b"done" => Frame::Loop,
        b"}" => Frame::Brace,
        b"]]" => Frame::Test,
        b"then" | b"else" | b"elif" | b"do" | b"in" => return Keyword::Continues,
        _ => return Keyword::Not,
    };
    if frames.last() == Some(&closes) {
        frames.pop();
        Keyword::Closes
    } else {
        Keyword::Mismatch
    }
}

fn is_blank(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

fn is_operator(c: u8) -> bool {
    matches!(
        c,
        b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'
    )
}

/// Whether byte `i` starts a word (a `#` there starts a comment).
fn word_start(b: &[u8], i: usize) -> bool {
    i == 0 || is_operator(b[i - 1])
}

/// The end of the plain word at `i`: the next blank, operator, quote,
/// backslash or expansion (those are read on their own).
fn word_end(b: &[u8], i: usize) -> usize {
    let mut j = i;
    while j < b.len() {
        let c = b[j];
        if is_operator(c) || matches!(c, b'\'' | b'"' | b'`' | b'\\') {
            break;
        }
        if c == b'$' && matches!(b.get(j + 1), Some(b'(' | b'{' | b'\'')) {
            break;
        }
        j += 1;
    }
    j.max(i + 1)
}

fn find_byte(b: &[u8], from: usize, c: u8) -> Option<usize> {
    b.get(from..)?
        .iter()
        .position(|x| *x == c)
        .map(|p| from + p)
}

/// The closing `'` of a quote opened before `from` (`$'…'` takes `\'`).
fn closing_quote(b: &[u8], from: usize, ansi: bool) -> Option<usize> {
    let mut j = from;
    while j < b.len() {
        match b[j] {
            b'\\' if ansi => j += 2,
            b'\'' => return Some(j),
            _ => j += 1,
        }
    }
    None
}

/// The delimiter word of a here-document at `at`: its text without
/// quotes, whether any part was quoted (a literal body), and where it
/// ends. `None` for a word with expansions or none at all.
fn heredoc_word(b: &[u8], at: usize) -> Option<(String, bool, usize)> {
    let mut word = Vec::new();
    let mut quoted = false;
    let mut j = at;
    while j < b.len() && !is_operator(b[j]) {
        match b[j] {
            b'\'' | b'"' => {
                let q = b[j];
                let end = find_byte(b, j + 1, q)?;
                word.extend_from_slice(&b[j + 1..end]);
                quoted = true;
                j = end + 1;
            }
            b'\\' => {
                let next = *b.get(j + 1)?;
                if next == b'\n' {
                    return None;
                }
                word.push(next);
                quoted = true;
                j += 2;
            }
            b'$' | b'`' => return None,
            c => {
                word.push(c);
                j += 1;
            }
        }
    }
    if word.is_empty() {
        return None;
    }
    Some((String::from_utf8(word).ok()?, quoted, j))
}

/// Reads the bodies of `heredocs` from `from` (just after the newline of
/// their command): where the last one's delimiter line ends, or `None`
/// when the text ends first.
fn read_bodies(
    b: &[u8],
    from: usize,
    heredocs: &[Heredoc],
    continuations: &mut Vec<usize>,
) -> Option<usize> {
    let mut i = from;
    for doc in heredocs {
        loop {
            let end = find_byte(b, i, b'\n')?;
            let line = &b[i..end];
            let shown = if doc.strip_tabs {
                let tabs = line.iter().take_while(|c| **c == b'\t').count();
                &line[tabs..]
            } else {
                line
            };
            if shown == doc.delimiter.as_bytes() {
                i = end + 1;
                break;
            }
            if !doc.literal {
                let backslashes = line.iter().rev().take_while(|c| **c == b'\\').count();
                if backslashes % 2 == 1 {
                    continuations.push(end - 1);
                }
            }
            i = end + 1;
        }
    }
    Some(i)
}

/// `text` as the shell reads it: each continuing backslash-newline
/// ([`Scan::continuations`]) dropped.
pub(crate) fn joined(text: &str, scan: &Scan) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for &at in &scan.continuations {
        if at < last {
            continue;
        }
        out.push_str(&text[last..at]);
        last = at + 2;
    }
    out.push_str(&text[last.min(text.len())..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text the shell still holds after `text`.
    fn held(text: &str) -> &str {
        &text[scan(text).complete_until..]
    }

    #[test]
    fn a_newline_ends_only_complete_commands() {
        for (text, rest) in [
            ("", ""),
            ("ls\n", ""),
            ("ls\ncd /", "cd /"),
            ("echo a\nr", "r"),
            // Continued lines.
            ("r\\\n", "r\\\n"),
            ("r\\\nm -rf ~\n", ""),
            ("echo a\\\\\nr", "r"),
            ("ls |\n", "ls |\n"),
            ("ls &&\ngrep x\n", ""),
            ("ls ||\n", "ls ||\n"),
            ("ls &\nr", "r"),
            // Quotes.
            ("echo 'hello\n", "echo 'hello\n"),
            ("echo 'hello\n' ; rm -rf ~ # '\n", ""),
            ("echo \"a\n", "echo \"a\n"),
            ("echo \"a\\\"\n", "echo \"a\\\"\n"),
            ("echo it\\'s\nr", "r"),
            ("echo $'a\\'b\n", "echo $'a\\'b\n"),
            ("echo $'a\\'b'\nr", "r"),
            ("echo \"$(echo ')')\"\nr", "r"),
            // Comments.
            ("ls # it's\nr", "r"),
            ("echo a#'\n", "echo a#'\n"),
            ("ls # \\\nr", "r"),
            // Substitutions and groups.
            ("echo $(ls\n", "echo $(ls\n"),
            ("echo $(ls\n)\nr", "r"),
            ("echo `ls\n", "echo `ls\n"),
            ("echo ${x\n", "echo ${x\n"),
            ("(cd /\n", "(cd /\n"),
            ("{ ls\n", "{ ls\n"),
            ("{ ls\n}\nr", "r"),
            ("f()\n", "f()\n"),
            ("f() { ls; }\nr", "r"),
            ("diff <(ls\n", "diff <(ls\n"),
            // Compound commands.
            ("if true\n", "if true\n"),
            ("if true; then ls; fi\nr", "r"),
            ("for x in a b\n", "for x in a b\n"),
            ("for x in a b; do echo; done\nr", "r"),
            ("while true; do\n", "while true; do\n"),
            ("case x in\n", "case x in\n"),
            ("case x in a) ls;; b) echo fi;; esac\nr", "r"),
            ("case x in a) fi;; esac\nr", "case x in a) fi;; esac\nr"),
            ("case x in (a) ls;; esac\nr", "r"),
            ("echo fi done esac\nr", "r"),
            ("[[ a &&\n", "[[ a &&\n"),
            // Here-documents.
            ("cat <<E\n", "cat <<E\n"),
            ("cat <<E\nrm -rf ~\n", "cat <<E\nrm -rf ~\n"),
            ("cat <<E\nx\nE\nr", "r"),
            ("cat <<-'E'\n\tx\n\tE\nr", "r"),
            ("cat <<< x\nr", "r"),
            ("cat <<$(x)\nE\nr", "cat <<$(x)\nE\nr"),
            // Closers that match nothing: nothing ends after them.
            ("echo )\nr", "echo )\nr"),
            ("fi\nls\n", "fi\nls\n"),
        ] {
            assert_eq!(held(text), rest, "{text:?}");
        }
    }

    #[test]
    fn continued_lines_are_joined_as_the_shell_joins_them() {
        for (text, line) in [
            ("r\\\nm -rf ~\n", "rm -rf ~\n"),
            ("echo a\\\\\nb", "echo a\\\\\nb"),
            ("echo 'a\\\nb'", "echo 'a\\\nb'"),
            ("echo \"a\\\nb\"", "echo \"ab\""),
            ("ls # a\\\nr\\\nm", "ls # a\\\nrm"),
            ("cat <<E\na\\\nb\nE\n", "cat <<E\nab\nE\n"),
            ("cat <<'E'\na\\\nb\nE\n", "cat <<'E'\na\\\nb\nE\n"),
        ] {
            assert_eq!(joined(text, &scan(text)), line, "{text:?}");
        }
    }
}
