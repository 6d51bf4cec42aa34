//! The small pieces of shell semantics the analysis needs: expanded words
//! ([`Field`]), brace expansion, ANSI-C / `echo -e` / `printf` escapes and
//! field splitting. Parsing with brush-parser behind hard bounds lives in
//! `check_catalog::parse` (the run's facts are read with the same parse)
//! and is re-exported here.

pub use check_catalog::parse::{
    MAX_EXPANSIONS, MAX_OPENERS, MAX_UNCLOSED_PARENS, SyntaxError, count_expansions,
    has_empty_heredoc_delimiter, parse_script, parser_options, tokenize,
};

/// Most unquoted `{` in a word for brace expansion to be attempted.
pub const MAX_BRACES: usize = 64;
/// Most words one brace expansion may produce.
pub const MAX_BRACE_WORDS: usize = 64;

/// Most unquoted `{` left unclosed in one word. brush-parser's brace
/// parser backtracks exponentially on them (16 took 0.6 s, 18 took 3 s,
/// found by fuzz/shell_analyze), so more escalate as `shell.too-deep`.
pub const MAX_UNMATCHED_BRACES: usize = 6;

/// Unquoted `{` in `raw` that no later `}` closes (quotes and backslash
/// escapes skipped).
pub fn unmatched_open_braces(raw: &str) -> usize {
    let (mut open, mut quote, mut escaped) = (0usize, None::<char>, false);
    for c in raw.chars() {
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (Some('\''), '\'') => quote = None,
            (Some('\''), _) => {}
            (_, '\\') => escaped = true,
            (Some('"'), '"') => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '{') => open += 1,
            (None, '}') => open = open.saturating_sub(1),
            _ => {}
        }
    }
    open
}

/// Rewrite a here-document body as the double-quoted word with the same
/// expansions: `"` is escaped (it is literal in a here-document), `\"`
/// becomes an escaped backslash and an escaped quote.
pub fn heredoc_as_double_quoted(body: &str) -> String {
    let mut out = String::with_capacity(body.len() + 2);
    out.push('"');
    let mut it = body.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' if it.peek() == Some(&'"') => {
                it.next();
                out.push_str("\\\\\\\"");
            }
            '\\' => {
                out.push('\\');
                if let Some(n) = it.next() {
                    out.push(n);
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// What a command or substitution writes to its standard output, as far as
/// the analysis can tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// Text known exactly (e.g. from `echo 'ls -la'`).
    Static(String),
    /// Something the analysis cannot know (e.g. `cat file`).
    Unknown,
    /// Credentials or the environment (`env`, `printenv`, `gh auth token`,
    /// a credential file), possibly filtered or encoded: must not reach a
    /// network client.
    Secret,
    /// Output of a decoder (`base64 -d`, `xxd -r`, `rev`, …): obfuscated.
    Decoded,
    /// Content fetched from the network (`curl`, `wget`, `nc`, …).
    Downloaded,
}

impl Output {
    fn rank(&self) -> u8 {
        match self {
            Output::Static(_) => 0,
            Output::Unknown => 1,
            Output::Secret => 2,
            Output::Decoded => 3,
            Output::Downloaded => 4,
        }
    }

    /// Combine the outputs of two commands writing to the same stream.
    pub fn merge(self, other: Output) -> Output {
        match (self, other) {
            (Output::Static(a), Output::Static(b)) => Output::Static(a + &b),
            (a, b) => {
                if b.rank() > a.rank() {
                    b
                } else if a.rank() == 0 {
                    Output::Unknown
                } else {
                    a
                }
            }
        }
    }

    /// The stronger of two taints when one stream flows into a filter.
    pub fn strongest(self, other: Output) -> Output {
        if other.rank() > self.rank() {
            other
        } else {
            self
        }
    }

    /// Whether it holds credentials or the environment.
    pub fn is_secret(&self) -> bool {
        matches!(self, Output::Secret)
    }

    /// Whether it came from the network or a decoder.
    pub fn is_tainted(&self) -> bool {
        matches!(self, Output::Decoded | Output::Downloaded)
    }
}

/// One piece of an expanded word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    /// Known text; `quoted` text is not subject to globbing.
    Lit {
        /// The text.
        text: String,
        /// Whether it came from quotes or an escape.
        quoted: bool,
    },
    /// `~` (None) or `~user`, or `$HOME` when the home is not known.
    Home(Option<String>),
    /// Text only known at run time: `raw` is its source (`$X`, `$(…)`).
    Dyn {
        /// Source text, for messages and patterns.
        raw: String,
        /// Where its value comes from.
        out: Output,
        /// Whether the expansion was inside double quotes, so bash does not
        /// split its value into several words (bash(1), "Word Splitting").
        /// Set by the walker's field builder; `false` (may split) wherever
        /// that is not known (review s21 U6).
        quoted: bool,
    },
}

/// One word after expansion: an argument as the command will receive it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Field {
    /// The pieces, in order.
    pub segs: Vec<Seg>,
}

impl Field {
    /// A field of known, quoted text.
    pub fn lit(text: impl Into<String>) -> Field {
        Field {
            segs: vec![Seg::Lit {
                text: text.into(),
                quoted: true,
            }],
        }
    }

    /// The field as text: dynamic parts appear as their source.
    pub fn text(&self) -> String {
        let mut s = String::new();
        for seg in &self.segs {
            match seg {
                Seg::Lit { text, .. } => s.push_str(text),
                Seg::Home(None) => s.push('~'),
                Seg::Home(Some(u)) => {
                    s.push('~');
                    s.push_str(u);
                }
                Seg::Dyn { raw, .. } => s.push_str(raw),
            }
        }
        s
    }

    /// The text when every part is known.
    pub fn static_text(&self) -> Option<String> {
        let mut s = String::new();
        for seg in &self.segs {
            match seg {
                Seg::Lit { text, .. } => s.push_str(text),
                _ => return None,
            }
        }
        Some(s)
    }

    /// Whether some part is only known at run time.
    pub fn is_dynamic(&self) -> bool {
        self.segs.iter().any(|s| matches!(s, Seg::Dyn { .. }))
    }

    /// The strongest taint of its dynamic parts.
    pub fn output(&self) -> Output {
        let mut o = Output::Static(String::new());
        for seg in &self.segs {
            if let Seg::Dyn { out, .. } = seg {
                o = o.strongest(out.clone());
            }
        }
        o
    }

    /// Byte offset (in [`Field::text`]) of the first unquoted glob
    /// character (`*`, `?`, `[`), if any.
    pub fn first_glob(&self) -> Option<usize> {
        let mut off = 0;
        for seg in &self.segs {
            match seg {
                Seg::Lit {
                    text,
                    quoted: false,
                } => {
                    if let Some(i) = text.find(['*', '?', '[']) {
                        return Some(off + i);
                    }
                    off += text.len();
                }
                Seg::Lit { text, .. } => off += text.len(),
                Seg::Home(None) => off += 1,
                Seg::Home(Some(u)) => off += 1 + u.len(),
                Seg::Dyn { raw, .. } => off += raw.len(),
            }
        }
        None
    }

    fn push_lit(&mut self, text: &str, quoted: bool) {
        if let Some(Seg::Lit { text: t, quoted: q }) = self.segs.last_mut()
            && *q == quoted
        {
            t.push_str(text);
            return;
        }
        self.segs.push(Seg::Lit {
            text: text.to_string(),
            quoted,
        });
    }
}

/// Builds the fields of one word while pieces are appended; known values
/// from unquoted expansions are split on IFS characters.
#[derive(Debug, Default)]
pub struct FieldBuilder {
    fields: Vec<Field>,
    cur: Field,
    /// The current field has content (even an empty quoted string).
    started: bool,
}

impl FieldBuilder {
    /// Append literal text (quoted or not: literal text is never split).
    pub fn lit(&mut self, text: &str, quoted: bool) {
        self.cur.push_lit(text, quoted);
        self.started = true;
    }

    /// Append a known value of an expansion. Unquoted values are split on
    /// the characters of `ifs`.
    pub fn value(&mut self, text: &str, quoted: bool, ifs: &str) {
        if quoted {
            self.lit(text, true);
            return;
        }
        for c in text.chars() {
            if ifs.contains(c) {
                if self.started {
                    self.fields.push(std::mem::take(&mut self.cur));
                    self.started = false;
                }
            } else {
                let mut buf = [0u8; 4];
                self.cur.push_lit(c.encode_utf8(&mut buf), false);
                self.started = true;
            }
        }
    }

    /// Append any other segment.
    pub fn seg(&mut self, seg: Seg) {
        self.cur.segs.push(seg);
        self.started = true;
    }

    /// The fields of the word.
    pub fn finish(mut self) -> Vec<Field> {
        if self.started {
            self.fields.push(self.cur);
        }
        self.fields
    }
}

/// Brace-expand a raw word (`{rm,-rf,/}` gives three words). Returns `None`
/// when the expansion would be too large or too nested to follow.
pub fn expand_braces(raw: &str) -> Option<Vec<String>> {
    let opts = parser_options();
    match brush_parser::word::parse_brace_expansions(raw, &opts) {
        Ok(Some(pieces)) => expand_brace_pieces(&pieces),
        _ => Some(vec![raw.to_string()]),
    }
}

fn expand_brace_pieces(
    pieces: &[brush_parser::word::BraceExpressionOrText],
) -> Option<Vec<String>> {
    use brush_parser::word::{BraceExpressionMember as M, BraceExpressionOrText as P};
    let mut acc = vec![String::new()];
    for piece in pieces {
        let alternatives: Vec<String> = match piece {
            P::Text(t) => vec![t.clone()],
            P::Expr(members) => {
                let mut alts = Vec::new();
                for m in members {
                    match m {
                        M::Child(children) => alts.extend(expand_brace_pieces(children)?),
                        M::NumberSequence {
                            start,
                            end,
                            increment,
                        } => {
                            let step = increment.unsigned_abs().max(1);
                            let span = start.abs_diff(*end) / step + 1;
                            if span > MAX_BRACE_WORDS as u64 {
                                return None;
                            }
                            let mut v = *start;
                            for _ in 0..span {
                                alts.push(v.to_string());
                                v = if start <= end {
                                    v.saturating_add(step as i64)
                                } else {
                                    v.saturating_sub(step as i64)
                                };
                            }
                        }
                        M::CharSequence {
                            start,
                            end,
                            increment,
                        } => {
                            let (a, b) = (*start as u32, *end as u32);
                            let step = increment.unsigned_abs().max(1);
                            let span = u64::from(a.abs_diff(b)) / step + 1;
                            if span > MAX_BRACE_WORDS as u64 {
                                return None;
                            }
                            let mut v = a;
                            for _ in 0..span {
                                alts.extend(char::from_u32(v).map(String::from));
                                v = if a <= b {
                                    v.saturating_add(step as u32)
                                } else {
                                    v.saturating_sub(step as u32)
                                };
                            }
                        }
                    }
                    if alts.len() > MAX_BRACE_WORDS {
                        return None;
                    }
                }
                alts
            }
        };
        if acc.len() * alternatives.len() > MAX_BRACE_WORDS {
            return None;
        }
        acc = acc
            .iter()
            .flat_map(|a| alternatives.iter().map(move |b| format!("{a}{b}")))
            .collect();
    }
    Some(acc)
}

fn hex_digit(c: char) -> Option<u32> {
    c.to_digit(16)
}

/// Decode backslash escapes. `ansi_c`: the `$'…'` set (`\xHH`, `\NNN`,
/// `\uHHHH`, `\cX`, `\'`, `\"`); otherwise the `echo -e` set (`\0NNN`
/// octal, `\c` stops output). Returns the text and whether `\c` stopped it.
pub fn decode_escapes(s: &str, ansi_c: bool) -> (String, bool) {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = it.next() else {
            out.push('\\');
            break;
        };
        match e {
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'e' | 'E' => out.push('\x1b'),
            'f' => out.push('\x0c'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\x0b'),
            '\\' => out.push('\\'),
            '\'' if ansi_c => out.push('\''),
            '"' if ansi_c => out.push('"'),
            '?' if ansi_c => out.push('?'),
            'c' if !ansi_c => return (out, true),
            'c' => {
                if let Some(x) = it.next() {
                    out.push(char::from_u32(x as u32 & 0x1f).unwrap_or(x));
                }
            }
            'x' => {
                let mut v = 0;
                let mut n = 0;
                while n < 2 {
                    match it.peek().copied().and_then(hex_digit) {
                        Some(d) => {
                            v = v * 16 + d;
                            it.next();
                            n += 1;
                        }
                        None => break,
                    }
                }
                if n == 0 {
                    out.push_str("\\x");
                } else {
                    out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
                }
            }
            'u' | 'U' if ansi_c => {
                let max = if e == 'u' { 4 } else { 8 };
                let mut v: u32 = 0;
                let mut n = 0;
                while n < max {
                    match it.peek().copied().and_then(hex_digit) {
                        Some(d) => {
                            v = v.saturating_mul(16).saturating_add(d);
                            it.next();
                            n += 1;
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
            }
            '0'..='7' => {
                // ANSI-C: \NNN; echo -e: \0NNN.
                let (mut v, max) = if ansi_c {
                    (e.to_digit(8).unwrap_or(0), 2)
                } else if e == '0' {
                    (0, 3)
                } else {
                    out.push('\\');
                    out.push(e);
                    continue;
                };
                let mut n = 0;
                while n < max {
                    match it.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            it.next();
                            n += 1;
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(v & 0xff).unwrap_or('\u{fffd}'));
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    (out, false)
}

/// The output of `printf FORMAT ARGS…` when it can be computed: escapes and
/// `%s`, `%b`, `%c`, `%%` (the format is reused while arguments remain).
/// `None` for other conversions.
pub fn printf_output(format: &str, args: &[String]) -> Option<String> {
    let mut out = String::new();
    let mut next = 0;
    loop {
        let mut chars = format.chars().peekable();
        let mut lit = String::new();
        while let Some(c) = chars.next() {
            if c != '%' {
                lit.push(c);
                continue;
            }
            out.push_str(&decode_escapes(&std::mem::take(&mut lit), true).0);
            let conv = chars.next()?;
            let arg = || args.get(next).cloned().unwrap_or_default();
            match conv {
                '%' => out.push('%'),
                's' => {
                    out.push_str(&arg());
                    next += 1;
                }
                'b' => {
                    out.push_str(&decode_escapes(&arg(), false).0);
                    next += 1;
                }
                'c' => {
                    out.extend(arg().chars().next());
                    next += 1;
                }
                _ => return None,
            }
        }
        out.push_str(&decode_escapes(&lit, true).0);
        if next == 0 || next >= args.len() {
            return Some(out);
        }
        if out.len() > 1 << 20 {
            return None;
        }
    }
}

/// The output of `echo ARGS…` (bash builtin): `-n`, `-e`, `-E` flags.
pub fn echo_output(args: &[String]) -> String {
    let mut newline = true;
    let mut escapes = false;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if a.len() > 1 && a.starts_with('-') && a[1..].chars().all(|c| "neE".contains(c)) {
            for c in a[1..].chars() {
                match c {
                    'n' => newline = false,
                    'e' => escapes = true,
                    _ => escapes = false,
                }
            }
            i += 1;
        } else {
            break;
        }
    }
    let joined = args[i..].join(" ");
    let (mut text, stopped) = if escapes {
        decode_escapes(&joined, false)
    } else {
        (joined, false)
    };
    if newline && !stopped {
        text.push('\n');
    }
    text
}

/// Whether shell text `text` is exactly one pipeline of simple commands
/// (`pgrep -f x`, `ps -C x -o pid= | head -1`), run in the foreground: its
/// output is then its last stage's alone (review s21 U9). A list
/// (`echo -1; pgrep x`, `a || b`), a background job or a compound
/// command is not.
pub fn one_pipeline(text: &str) -> bool {
    use brush_parser::ast;
    let Ok(program) = parse_script(text, MAX_OPENERS) else {
        return false;
    };
    let [cc] = program.complete_commands.as_slice() else {
        return false;
    };
    let [ast::CompoundListItem(aol, sep)] = cc.0.as_slice() else {
        return false;
    };
    !matches!(sep, ast::SeparatorOperator::Async)
        && aol.additional.is_empty()
        && !aol.first.bang
        && aol
            .first
            .seq
            .iter()
            .all(|c| matches!(c, ast::Command::Simple(_)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_script_default(text: &str) -> Result<brush_parser::ast::Program, SyntaxError> {
        parse_script(text, MAX_OPENERS)
    }

    #[test]
    fn parse_bounds() {
        assert!(parse_script_default("ls -la && echo hi").is_ok());
        assert!(matches!(
            parse_script_default("echo 'unterminated"),
            Err(SyntaxError::Unparseable(_))
        ));
        let deep = format!("{}true{}", "( ".repeat(200), " )".repeat(200));
        assert!(matches!(
            parse_script_default(&deep),
            Err(SyntaxError::TooDeep(_))
        ));
        let subs = format!("echo {}x{}", "$(".repeat(200), ")".repeat(200));
        assert!(matches!(
            parse_script_default(&subs),
            Err(SyntaxError::TooDeep(_))
        ));
        // Quoting does not hide openers from the count.
        let quoted = format!("echo ')))' ; {}true{}", "{ ".repeat(130), "; }".repeat(130));
        assert!(matches!(
            parse_script_default(&quoted),
            Err(SyntaxError::TooDeep(_))
        ));
        // A run of unclosed `(` is refused before the parser, which would
        // take exponential time on it.
        for open in ["(", "((", "( ", "x | ("] {
            let text = open.repeat(40);
            assert!(
                matches!(parse_script_default(&text), Err(SyntaxError::Unparseable(ref m)) if m.contains("never closed")),
                "{text}"
            );
        }
        let nested = format!("{}echo hi{}", "(".repeat(40), ")".repeat(40));
        assert!(!matches!(
            parse_script_default(&nested),
            Err(SyntaxError::Unparseable(_))
        ));
        // File descriptors past i32 are refused (brush-parser would panic);
        // the same number as an argument is fine.
        assert!(matches!(
            parse_script_default("cat 77777777777<in"),
            Err(SyntaxError::Unparseable(ref m)) if m.contains("out of range")
        ));
        assert!(parse_script_default("echo 77777777777 >out").is_ok());
        assert!(parse_script_default("cat 2>err").is_ok());
        // An empty here-document delimiter is refused before the tokenizer,
        // which would allocate without end on it; quoted, it is text.
        for text in [
            "<<\"\" x",
            "cat << '' x",
            "cat <<-\"\"\"\" y",
            "<<\x0c;$(",
            "cat << ;",
        ] {
            assert!(has_empty_heredoc_delimiter(text), "{text}");
            assert!(matches!(
                parse_script_default(text),
                Err(SyntaxError::Unparseable(ref m)) if m.contains("empty delimiter")
            ));
        }
        for text in [
            "cat <<'EOF'\nx\nEOF",
            "echo \"<<''\" x",
            "cat <<<\"\" x",
            "cat <<\"\"x",
        ] {
            assert!(!has_empty_heredoc_delimiter(text), "{text}");
        }
        // Many parentheses in a heredoc body are one word: fine.
        let heredoc = format!("cat > x.py <<'EOF'\n{}\nEOF", "print((1))\n".repeat(300));
        assert!(parse_script_default(&heredoc).is_ok());
    }

    #[test]
    fn heredoc_rewrite() {
        assert_eq!(
            heredoc_as_double_quoted("a \"b\" $(id)"),
            "\"a \\\"b\\\" $(id)\""
        );
        assert_eq!(heredoc_as_double_quoted(r#"x\"y"#), r#""x\\\"y""#);
        assert_eq!(heredoc_as_double_quoted(r"\$HOME"), r#""\$HOME""#);
    }

    #[test]
    fn braces() {
        assert_eq!(expand_braces("{rm,-rf,/}").unwrap(), ["rm", "-rf", "/"]);
        assert_eq!(expand_braces("/{etc,usr}/x").unwrap(), ["/etc/x", "/usr/x"]);
        assert_eq!(expand_braces("a{1..3}").unwrap(), ["a1", "a2", "a3"]);
        assert_eq!(expand_braces("'{a,b}'").unwrap(), ["'{a,b}'"]);
        assert_eq!(expand_braces("plain").unwrap(), ["plain"]);
        assert!(expand_braces("{1..100000}").is_none());
        assert_eq!(unmatched_open_braces("fi{{{{{{{{{{{{{{{{"), 16);
        assert_eq!(unmatched_open_braces("{a,b}{c,d}"), 0);
        assert_eq!(unmatched_open_braces("'{{{{{{{{' {"), 1);
        assert!(expand_braces("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}").is_none());
    }

    #[test]
    fn escapes() {
        assert_eq!(decode_escapes(r"\x72\x6d", true).0, "rm");
        assert_eq!(decode_escapes(r"\162\155", true).0, "rm");
        assert_eq!(decode_escapes(r"\u0072m\'", true).0, "rm'");
        assert_eq!(
            decode_escapes(r"a\nb\c ignored", false),
            ("a\nb".into(), true)
        );
        assert_eq!(decode_escapes(r"\0162m", false).0, "rm");
        assert_eq!(decode_escapes(r"\q", false).0, r"\q");
    }

    #[test]
    fn printf_and_echo() {
        assert_eq!(printf_output(r"\x72\x6d -rf /", &[]).unwrap(), "rm -rf /");
        assert_eq!(
            printf_output("%s %s\n", &["a".into(), "b".into(), "c".into()]).unwrap(),
            "a b\nc \n"
        );
        assert_eq!(printf_output("%b", &[r"\x2f".into()]).unwrap(), "/");
        assert_eq!(printf_output("%d", &["1".into()]), None);
        assert_eq!(echo_output(&["-n".into(), "hi".into()]), "hi");
        assert_eq!(echo_output(&["-e".into(), r"r\x6d".into()]), "rm\n");
        assert_eq!(echo_output(&["rm".into(), "-rf".into()]), "rm -rf\n");
    }

    #[test]
    fn field_splitting() {
        let mut b = FieldBuilder::default();
        b.lit("rm", false);
        b.value(" \t\n", false, " \t\n");
        b.lit("-rf", false);
        b.value(" ", false, " \t\n");
        b.lit("/", false);
        let f: Vec<String> = b.finish().iter().map(Field::text).collect();
        assert_eq!(f, ["rm", "-rf", "/"]);
        let mut b = FieldBuilder::default();
        b.value("a b", true, " ");
        assert_eq!(b.finish().len(), 1);
        let mut b = FieldBuilder::default();
        b.lit("", true);
        assert_eq!(b.finish().len(), 1, "an empty quoted word is still a field");
    }

    #[test]
    fn output_merge() {
        assert_eq!(
            Output::Static("a".into()).merge(Output::Static("b".into())),
            Output::Static("ab".into())
        );
        assert_eq!(
            Output::Static("a".into()).merge(Output::Unknown),
            Output::Unknown
        );
        assert_eq!(
            Output::Unknown.merge(Output::Downloaded),
            Output::Downloaded
        );
        assert_eq!(Output::Decoded.strongest(Output::Unknown), Output::Decoded);
    }

    #[test]
    fn globs() {
        let f = Field {
            segs: vec![
                Seg::Lit {
                    text: "/*".into(),
                    quoted: true,
                },
                Seg::Lit {
                    text: "x/*".into(),
                    quoted: false,
                },
            ],
        };
        assert_eq!(f.first_glob(), Some(4));
    }
}
