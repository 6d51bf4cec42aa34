//! Shell text parsed with brush-parser behind hard bounds, shared by the
//! checks: shell-guard judges the call's command with [`parse_script`], and
//! the run's facts (`crate::run`) are read from earlier calls' commands with
//! [`commands`], the same parse, so that a redirection (`2>/dev/null`), a
//! comment or a compound command (`if … fi`, `for … done`, `{ …; }`, `!`)
//! reads there as it does to the shell.
//!
//! brush-parser is a recursive-descent parser: nesting depth costs stack.
//! [`parse_script`] therefore counts, before parsing, every token that can
//! open a nesting level and every `$(`, `${`, `$[` in the text, and refuses
//! texts with more than [`MAX_OPENERS`] / [`MAX_EXPANSIONS`]. These are
//! *totals*, not depths, so no quoting trick can make the count lower than
//! the depth the parser will reach.

use brush_parser::{ParserOptions, Token, ast};

/// Most tokens that may open a nesting level (`(`, `{`, `if`, `case`,
/// `while`, `!`, …) accepted in one script.
pub const MAX_OPENERS: usize = 128;
/// Most `$(`, `${` and `$[` accepted in one script text.
pub const MAX_EXPANSIONS: usize = 128;
/// Most `(` operators left unclosed in a script before it is refused as
/// unparseable without parsing: a valid script closes every one, and
/// brush-parser backtracks exponentially on a run of unclosed `(` (24 took
/// 0.2 s and 32 took 57 s natively, found by fuzz/shell_analyze).
pub const MAX_UNCLOSED_PARENS: usize = 8;

/// Why a script could not be analysed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SyntaxError {
    /// Nested or repeated beyond the bounds above.
    TooDeep(String),
    /// Not valid shell syntax (e.g. an unbalanced quote).
    Unparseable(String),
}

/// The parser options used everywhere (bash dialect, extglob on).
pub fn parser_options() -> ParserOptions {
    ParserOptions::default()
}

const OPENER_WORDS: &[&str] = &[
    "{", "if", "while", "until", "for", "case", "select", "function", "[[", "!", "coproc",
];

/// Count `$(`, `${` and `$[` in `text`.
pub fn count_expansions(text: &str) -> usize {
    let b = text.as_bytes();
    b.windows(2)
        .filter(|w| w[0] == b'$' && matches!(w[1], b'(' | b'{' | b'['))
        .count()
}

/// Whether `text` has an unquoted here-document (`<<` or `<<-`, not the
/// here-string `<<<`) whose delimiter is empty after quote removal
/// (`<<""`, `<< ''`, or no word at all before `;`). brush-parser 0.4's
/// tokenizer allocates without end on some of these (found by
/// fuzz/shell_analyze), so texts with one are not tokenized. Any Unicode
/// white space other than a newline counts as a blank here, which is wider
/// than bash's space and tab, so no spelling of an empty delimiter slips
/// through.
pub fn has_empty_heredoc_delimiter(text: &str) -> bool {
    let b = text.as_bytes();
    let (mut i, mut quote, mut escaped) = (0usize, None::<u8>, false);
    while i < b.len() {
        let c = b[i];
        if escaped {
            escaped = false;
        } else {
            match (quote, c) {
                (Some(b'\''), b'\'') => quote = None,
                (Some(b'\''), _) => {}
                (_, b'\\') => escaped = true,
                (Some(b'"'), b'"') => quote = None,
                (Some(_), _) => {}
                (None, b'\'' | b'"') => quote = Some(c),
                (None, b'<') if b[i..].starts_with(b"<<<") => {
                    // A here-string: its word is not a delimiter.
                    i += 3;
                    continue;
                }
                (None, b'<') if b.get(i + 1) == Some(&b'<') => {
                    let rest = &text[i + 2..];
                    let rest = rest.strip_prefix('-').unwrap_or(rest);
                    let rest = rest.trim_start_matches(|w: char| w.is_whitespace() && w != '\n');
                    let word_len = rest
                        .find(|w: char| w.is_whitespace() || ";&|<>()".contains(w))
                        .unwrap_or(rest.len());
                    if rest[..word_len].chars().all(|w| w == '"' || w == '\'') {
                        return true;
                    }
                    i = text.len() - rest.len() + word_len;
                    continue;
                }
                _ => {}
            }
        }
        i += 1;
    }
    false
}

/// Tokenize `text` with brush-parser, refusing first what its tokenizer
/// cannot take ([`has_empty_heredoc_delimiter`]).
///
/// # Errors
/// [`SyntaxError::Unparseable`] for such a text or a tokenizer error.
pub fn tokenize(text: &str) -> Result<Vec<Token>, SyntaxError> {
    if has_empty_heredoc_delimiter(text) {
        return Err(SyntaxError::Unparseable(
            "a here-document with an empty delimiter".into(),
        ));
    }
    brush_parser::uncached_tokenize_str(text, &parser_options().tokenizer_options())
        .map_err(|e| SyntaxError::Unparseable(e.to_string()))
}

/// Tokenize and parse a script, within the bounds of this module, with at
/// most `max_openers` nesting tokens (at most [`MAX_OPENERS`]).
///
/// # Errors
/// [`SyntaxError::TooDeep`] when a bound is exceeded,
/// [`SyntaxError::Unparseable`] when the text is not valid shell.
pub fn parse_script(text: &str, max_openers: usize) -> Result<ast::Program, SyntaxError> {
    let max_openers = max_openers.min(MAX_OPENERS);
    let expansions = count_expansions(text);
    if expansions > MAX_EXPANSIONS {
        return Err(SyntaxError::TooDeep(format!(
            "{expansions} substitutions/expansions (limit {MAX_EXPANSIONS})"
        )));
    }
    let opts = parser_options();
    let tokens = tokenize(text)?;
    let openers = tokens
        .iter()
        .filter(|t| match t {
            Token::Operator(s, _) => s.starts_with('('),
            Token::Word(s, _) => OPENER_WORDS.contains(&s.as_str()),
        })
        .count();
    if openers > max_openers {
        return Err(SyntaxError::TooDeep(format!(
            "{openers} groups/compound commands (limit {max_openers} at this nesting level)"
        )));
    }
    let (opened, closed) = tokens.iter().fold((0usize, 0usize), |(o, c), t| match t {
        Token::Operator(s, _) => (o + s.matches('(').count(), c + s.matches(')').count()),
        Token::Word(..) => (o, c),
    });
    // brush-parser 0.4 unwraps the parse of a redirection's file
    // descriptor (`2>`): a number past i32 panics it (found by
    // fuzz/shell_analyze). Bash rejects such descriptors too.
    if let Some(fd) = tokens.windows(2).find_map(|pair| match pair {
        [Token::Word(w, at), Token::Operator(op, next)]
            if op.starts_with(['<', '>'])
                && at.end.index == next.start.index
                && !w.is_empty()
                && w.bytes().all(|b| b.is_ascii_digit())
                && w.parse::<i32>().is_err() =>
        {
            Some(w)
        }
        _ => None,
    }) {
        return Err(SyntaxError::Unparseable(format!(
            "file descriptor {fd} is out of range"
        )));
    }
    let unclosed = opened.saturating_sub(closed);
    if unclosed > MAX_UNCLOSED_PARENS {
        return Err(SyntaxError::Unparseable(format!(
            "{unclosed} `(` are never closed"
        )));
    }
    brush_parser::parse_tokens(&tokens, &opts).map_err(|e| SyntaxError::Unparseable(e.to_string()))
}

/// The words of each simple command of `text` ([`commands`]), or, when the
/// text cannot be parsed, the lenient reading of
/// [`crate::words::lenient_commands`]: for readers of the call being
/// checked that look for a program and its operands (a URL given to
/// `curl` inside `if … fi` or after `2>/dev/null`).
pub fn command_words(text: &str) -> Vec<Vec<String>> {
    match commands(text) {
        Ok(c) => c.into_iter().map(|s| s.words).collect(),
        Err(_) => crate::words::lenient_commands(text),
    }
}

/// How deep [`commands`] follows command substitutions (`$(…)`, `` `…` ``)
/// inside words.
const MAX_SUBSTITUTION_DEPTH: u32 = 3;

/// Words that are shell syntax where a command name stands: a simple
/// command named so was misread.
const RESERVED: &[&str] = &[
    "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until", "for",
    "in", "{", "}", "!", "[[", "]]", "function", "select", "coproc",
];

/// One simple command of a parsed script, as [`commands`] gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Simple {
    /// Its words after quote removal ([`unquote`]), the command name
    /// first; leading `NAME=value` assignments are kept only when the
    /// command is nothing else (`X=1`), and a `sudo`/`nohup`/`exec`/`time`/
    /// `command` word in front is removed (as [`crate::words::commands`]
    /// does). Expansions (`$X`, `~`) are left as written.
    pub words: Vec<String>,
    /// Whether it runs whenever the text runs: not in the condition or
    /// body of a loop, the body of an `if`/`case`, a function body or a
    /// command substitution, and not after `&&`/`||`. Whether it
    /// *succeeded* the text never says.
    pub certain: bool,
    /// Whether the parse left something the reader cannot take as plain
    /// words: a command named like a keyword (`then`), or a word that still
    /// starts like a redirection. Facts read from it are in doubt.
    pub doubtful: bool,
}

/// The simple commands of the shell text `text` in the order written, read
/// with the same parse shell-guard judges commands with: redirections and
/// comments are not words, and compound commands (`if`, `for`, `while`,
/// `until`, `case`, `{ …; }`, `( … )`, `!`, functions) and command
/// substitutions are walked into.
///
/// # Errors
/// The [`SyntaxError`] of [`parse_script`] when the text cannot be read.
pub fn commands(text: &str) -> Result<Vec<Simple>, SyntaxError> {
    let mut out = Vec::new();
    read_text(text, true, 0, &mut out)?;
    Ok(out)
}

fn read_text(
    text: &str,
    certain: bool,
    depth: u32,
    out: &mut Vec<Simple>,
) -> Result<(), SyntaxError> {
    let program = parse_script(text, MAX_OPENERS)?;
    let mut walk = Walk { out, depth };
    for list in &program.complete_commands {
        walk.list(list, certain);
    }
    Ok(())
}

/// The walk of one parsed text into [`Simple`] commands.
struct Walk<'o> {
    out: &'o mut Vec<Simple>,
    /// Nesting of command substitutions.
    depth: u32,
}

impl Walk<'_> {
    fn list(&mut self, list: &ast::CompoundList, certain: bool) {
        for ast::CompoundListItem(and_or, _) in &list.0 {
            self.pipeline(&and_or.first, certain);
            for next in &and_or.additional {
                let (ast::AndOr::And(p) | ast::AndOr::Or(p)) = next;
                self.pipeline(p, false);
            }
        }
    }

    fn pipeline(&mut self, p: &ast::Pipeline, certain: bool) {
        for c in &p.seq {
            self.command(c, certain);
        }
    }

    fn command(&mut self, c: &ast::Command, certain: bool) {
        match c {
            ast::Command::Simple(s) => self.simple(s, certain),
            ast::Command::Compound(cc, _) => self.compound(cc, certain),
            ast::Command::Function(f) => self.compound(&f.body.0, false),
            ast::Command::ExtendedTest(..) => {}
        }
    }

    fn compound(&mut self, cc: &ast::CompoundCommand, certain: bool) {
        use ast::CompoundCommand as C;
        match cc {
            C::BraceGroup(b) => self.list(&b.list, certain),
            C::Subshell(s) => self.list(&s.list, certain),
            C::ForClause(f) => {
                for w in f.values.iter().flatten() {
                    self.substitutions(&w.value);
                }
                self.list(&f.body.list, false);
            }
            C::ArithmeticForClause(f) => self.list(&f.body.list, false),
            C::CaseClause(c) => {
                self.substitutions(&c.value.value);
                for item in &c.cases {
                    if let Some(l) = &item.cmd {
                        self.list(l, false);
                    }
                }
            }
            C::IfClause(i) => {
                self.list(&i.condition, certain);
                self.list(&i.then, false);
                for e in i.elses.iter().flatten() {
                    if let Some(cond) = &e.condition {
                        self.list(cond, false);
                    }
                    self.list(&e.body, false);
                }
            }
            C::WhileClause(w) | C::UntilClause(w) => {
                self.list(&w.0, false);
                self.list(&w.1.list, false);
            }
            C::Coprocess(c) => self.command(&c.body, false),
            C::Arithmetic(_) => {}
        }
    }

    fn simple(&mut self, s: &ast::SimpleCommand, certain: bool) {
        let mut assignments: Vec<&str> = Vec::new();
        let mut raw: Vec<&str> = Vec::new();
        let suffix = s.suffix.iter().flat_map(|x| x.0.iter());
        for item in s.prefix.iter().flat_map(|x| x.0.iter()) {
            match item {
                ast::CommandPrefixOrSuffixItem::AssignmentWord(_, w) => assignments.push(&w.value),
                other => self.item(other, &mut raw),
            }
        }
        if let Some(name) = &s.word_or_name {
            raw.push(&name.value);
        }
        for item in suffix {
            self.item(item, &mut raw);
        }
        for w in assignments.iter().chain(&raw) {
            self.substitutions(w);
        }
        let mut doubtful = raw.first().is_some_and(|n| RESERVED.contains(n))
            || raw.iter().any(|w| looks_like_redirection(w));
        let mut words: Vec<String> = if raw.is_empty() {
            assignments.iter().map(|w| unquote(w)).collect()
        } else {
            raw.iter().map(|w| unquote(w)).collect()
        };
        while words.len() > 1
            && matches!(
                words[0].as_str(),
                "sudo" | "nohup" | "exec" | "time" | "command"
            )
        {
            words.remove(0);
        }
        if words.is_empty() {
            return;
        }
        doubtful |= RESERVED.contains(&words[0].as_str()) && !raw.is_empty();
        self.out.push(Simple {
            words,
            certain,
            doubtful,
        });
    }

    /// A prefix or suffix item that is not a leading assignment: its word
    /// into `raw`, a process substitution walked (`<(ln -s …)`),
    /// redirections dropped (their targets read only for substitutions).
    fn item<'a>(&mut self, item: &'a ast::CommandPrefixOrSuffixItem, raw: &mut Vec<&'a str>) {
        use ast::CommandPrefixOrSuffixItem as I;
        match item {
            I::Word(w) | I::AssignmentWord(_, w) => raw.push(&w.value),
            I::ProcessSubstitution(_, sub) => self.list(&sub.list, false),
            I::IoRedirect(r) => match r {
                ast::IoRedirect::File(_, _, ast::IoFileRedirectTarget::Filename(w))
                | ast::IoRedirect::HereString(_, w)
                | ast::IoRedirect::OutputAndError(w, _) => self.substitutions(&w.value),
                ast::IoRedirect::File(
                    _,
                    _,
                    ast::IoFileRedirectTarget::ProcessSubstitution(_, sub),
                ) => {
                    self.list(&sub.list, false);
                }
                _ => {}
            },
        }
    }

    /// Read the command substitutions (`$(…)`, `` `…` ``) of the word
    /// `raw` as commands that may run (`certain` false). One that cannot
    /// be parsed is recorded as a doubtful empty command.
    fn substitutions(&mut self, raw: &str) {
        if !(raw.contains("$(") || raw.contains('`')) {
            return;
        }
        if self.depth >= MAX_SUBSTITUTION_DEPTH {
            self.out.push(Simple {
                words: vec![raw.to_string()],
                certain: false,
                doubtful: true,
            });
            return;
        }
        for text in substitution_texts(raw) {
            let mut inner = Vec::new();
            let mut walk = Walk {
                out: &mut inner,
                depth: self.depth + 1,
            };
            match parse_script(&text, MAX_OPENERS) {
                Ok(program) => {
                    for list in &program.complete_commands {
                        walk.list(list, false);
                    }
                }
                Err(_) => inner.push(Simple {
                    words: vec![text.clone()],
                    certain: false,
                    doubtful: true,
                }),
            }
            self.out.extend(inner);
        }
    }
}

/// Whether the word `raw` (as written) starts, unquoted, like a
/// redirection (`>x`, `2>x`, `&>x`, `<x`): after a real parse none does,
/// so one that does was misread.
fn looks_like_redirection(raw: &str) -> bool {
    let rest = raw.trim_start_matches(|c: char| c.is_ascii_digit());
    let rest = rest.strip_prefix('&').unwrap_or(rest);
    rest.starts_with(['<', '>']) && !rest.starts_with("<(") && !rest.starts_with(">(")
}

/// The texts of the command substitutions in the word `raw`: `$(…)` with
/// its parentheses balanced (quotes skipped), and `` `…` ``.
fn substitution_texts(raw: &str) -> Vec<String> {
    let b = raw.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut single = false;
    while i < b.len() {
        match b[i] {
            b'\\' if !single => i += 1,
            b'\'' => single = !single,
            b'$' if !single && b.get(i + 1) == Some(&b'(') && b.get(i + 2) != Some(&b'(') => {
                let start = i + 2;
                let (mut depth, mut j, mut quote) = (1usize, start, None::<u8>);
                while j < b.len() && depth > 0 {
                    match (quote, b[j]) {
                        (_, b'\\') => j += 1,
                        (Some(q), c) if c == q => quote = None,
                        (Some(_), _) => {}
                        (None, b'\'' | b'"') => quote = Some(b[j]),
                        (None, b'(') => depth += 1,
                        (None, b')') => depth -= 1,
                        _ => {}
                    }
                    j += 1;
                }
                let end = if depth == 0 { j - 1 } else { b.len() };
                out.push(raw[start..end.max(start)].to_string());
                i = j;
                continue;
            }
            b'`' if !single => {
                let start = i + 1;
                let end = raw[start..].find('`').map_or(raw.len(), |e| start + e);
                out.push(raw[start..end].to_string());
                i = end + 1;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The word `raw` (as written in the script) after quote removal: `'…'`
/// and `"…"` (with `\$`, `` \` ``, `\"`, `\\` and a line continuation
/// inside), `$'…'` (with its `\n`, `\t`, `\\`, `\'`, `\"` escapes) and
/// backslash escapes outside quotes. Expansions (`$X`, `${X}`, `$(…)`, `~`)
/// are kept as written.
pub fn unquote(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut it = raw.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '\\' => match it.next() {
                Some('\n') | None => {}
                Some(n) => out.push(n),
            },
            '\'' => {
                for n in it.by_ref() {
                    if n == '\'' {
                        break;
                    }
                    out.push(n);
                }
            }
            '$' if it.peek() == Some(&'\'') => {
                it.next();
                while let Some(n) = it.next() {
                    match n {
                        '\'' => break,
                        '\\' => match it.next() {
                            Some('n') => out.push('\n'),
                            Some('t') => out.push('\t'),
                            Some(e) => out.push(e),
                            None => {}
                        },
                        n => out.push(n),
                    }
                }
            }
            '$' if it.peek() == Some(&'"') => {}
            '"' => {
                while let Some(n) = it.next() {
                    match n {
                        '"' => break,
                        '\\' => match it.peek() {
                            Some('$' | '`' | '"' | '\\') => out.extend(it.next()),
                            Some('\n') => {
                                it.next();
                            }
                            _ => out.push('\\'),
                        },
                        n => out.push(n),
                    }
                }
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<Vec<String>> {
        commands(text)
            .unwrap()
            .into_iter()
            .map(|s| s.words)
            .collect()
    }

    /// review-s7 F1: redirections, comments and compound commands read as
    /// the shell reads them.
    #[test]
    fn redirections_comments_and_compound_commands() {
        let ln = vec!["ln", "-s", "T", "k"];
        for text in [
            "ln -s T k 2>/dev/null",
            "ln -s T k >/dev/null",
            "ln -s T k 2>&1",
            "ln -s T k </dev/null",
            "ln -s T k 2>/tmp/e",
            "ln 2>/dev/null -s T k",
            "ln -s T k # c",
            "ln -s T k &>/dev/null",
        ] {
            assert_eq!(words(text), std::slice::from_ref(&ln), "{text}");
        }
        for text in [
            "if true; then ln -s T k; fi",
            "for x in 1; do ln -s T k; done",
            "{ ln -s T k; }",
            "! ln -s T k",
            "while false; do ln -s T k; done",
            "case a in a) ln -s T k;; esac",
            "f() { ln -s T k; }",
            "echo $(ln -s T k)",
            "cat <(ln -s T k)",
        ] {
            let got = commands(text).unwrap();
            assert!(got.iter().any(|s| s.words == ln), "{text}: {got:?}");
        }
        let got = commands("if [ ! -e k ]; then ln -s 'T' \"k\"; fi").unwrap();
        let ln_cmd = got.iter().find(|s| s.words[0] == "ln").unwrap();
        assert_eq!(ln_cmd.words, ln);
        assert!(!ln_cmd.certain, "an `if` body may not run");
        assert!(!ln_cmd.doubtful);
    }

    /// review-s7 F9/F10: what runs for certain, and what may not.
    #[test]
    fn certainty() {
        let c = commands("mkdir a || true; false && mkdir b; X=1 sudo mkdir c | cat; (mkdir d)")
            .unwrap();
        let certain: Vec<(&str, bool)> = c
            .iter()
            .map(|s| (s.words.last().unwrap().as_str(), s.certain))
            .collect();
        assert_eq!(
            certain,
            [
                ("a", true),
                ("true", false),
                ("false", true),
                ("b", false),
                ("c", true),
                ("cat", true),
                ("d", true)
            ]
        );
        assert_eq!(c[4].words, ["mkdir", "c"]);
        assert_eq!(words("X=1 Y=2"), [["X=1", "Y=2"]]);
    }

    #[test]
    fn quote_removal() {
        assert_eq!(unquote(r#"'a b'"c\"d"e\ f$'\t'"#), "a bc\"de f\t");
        assert_eq!(unquote("\"$HOME\"/x"), "$HOME/x");
        assert!(commands("ln -s 'T k").is_err());
    }
}
