//! Word expansion: parameters, arithmetic words, braces, tildes and
//! splitting, done the way bash would as far as the values are known.

use super::*;

fn dyn_seg(raw: &str, quoted: bool) -> Seg {
    Seg::Dyn {
        raw: raw.to_string(),
        out: Output::Unknown,
        quoted,
    }
}

fn nested_strings(e: &ParameterExpr) -> Vec<&str> {
    use ParameterExpr as P;
    let mut v: Vec<&str> = Vec::new();
    match e {
        P::UseDefaultValues {
            default_value: s, ..
        }
        | P::AssignDefaultValues {
            default_value: s, ..
        }
        | P::IndicateErrorIfNullOrUnset {
            error_message: s, ..
        }
        | P::UseAlternativeValue {
            alternative_value: s,
            ..
        }
        | P::RemoveSmallestSuffixPattern { pattern: s, .. }
        | P::RemoveLargestSuffixPattern { pattern: s, .. }
        | P::RemoveSmallestPrefixPattern { pattern: s, .. }
        | P::RemoveLargestPrefixPattern { pattern: s, .. }
        | P::UppercaseFirstChar { pattern: s, .. }
        | P::UppercasePattern { pattern: s, .. }
        | P::LowercaseFirstChar { pattern: s, .. }
        | P::LowercasePattern { pattern: s, .. } => v.extend(s.as_deref()),
        P::ReplaceSubstring {
            pattern,
            replacement,
            ..
        } => {
            v.push(pattern);
            v.extend(replacement.as_deref());
        }
        // A substring's offset and length: [`Analysis::parameter_evaluations`].
        _ => {}
    }
    v
}

/// The variable a parameter expansion names: `$NAME`, `${NAME}`,
/// `${NAME:-x}`, `${#NAME}`.
/// `raw` with each `${NAME~~}` (every letter's case toggled) and
/// `${NAME~}` (the first letter's) of a variable the command assigned
/// replaced by `${NAME}` of a variable holding the result (review s25
/// S17: the parser reads the toggles as text): the value bash computes
/// when the walk knows it, else the variable's unknown value (held like
/// it). `None` when there is none.
fn case_toggles(raw: &str, env: &mut Env) -> Option<String> {
    if !raw.contains("~}") {
        return None;
    }
    let mut out = String::new();
    let mut rest = raw;
    let mut changed = false;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let name_end = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        let name = &after[..name_end];
        let tail = &after[name_end..];
        let all = tail.starts_with("~~}");
        if name.is_empty() || !(all || tail.starts_with("~}")) || !env.vars.contains_key(name) {
            out.push_str("${");
            rest = after;
            continue;
        }
        let value = env.vars[name].clone();
        let toggled = match value.static_text() {
            Some(v) => {
                let toggle = |c: char| {
                    if c.is_ascii_uppercase() {
                        c.to_ascii_lowercase()
                    } else {
                        c.to_ascii_uppercase()
                    }
                };
                let mut chars = v.chars();
                Field::lit(if all {
                    v.chars().map(toggle).collect::<String>()
                } else {
                    chars
                        .next()
                        .map(|f| format!("{}{}", toggle(f), chars.as_str()))
                        .unwrap_or_default()
                })
            }
            None => value,
        };
        let temp = format!("TOOLVET_CASE_{name}_{}", usize::from(all));
        env.vars.insert(temp.clone(), toggled);
        out.push_str(&format!("${{{temp}}}"));
        rest = &tail[if all { 3 } else { 2 }..];
        changed = true;
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// `raw` with each unquoted extglob group (`!(…)`, `@(…)`, `?(…)`,
/// `+(…)`, `*(…)`) replaced by `*` (review s25 S14): the group may match
/// any text, so the word names every path the star does (a guard rail
/// or credential among them), which is at least what bash's `extglob`
/// can match. Text in quotes and in `$(…)`/`$((…))` is left alone.
/// `None` when there is none.
fn extglob_as_star(raw: &str) -> Option<String> {
    if !raw.contains('(') {
        return None;
    }
    let chars: Vec<char> = raw.chars().collect();
    let mut out = String::new();
    let mut changed = false;
    let mut quote: Option<char> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match (quote, c) {
            (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (Some('\''), _) => {}
            (_, '\\') => {
                out.push(c);
                i += 1;
                if let Some(n) = chars.get(i) {
                    out.push(*n);
                }
                i += 1;
                continue;
            }
            (None, '\'' | '"') => quote = Some(c),
            // `$(…)`, `$((…))`: copied whole.
            (_, '$') if chars.get(i + 1) == Some(&'(') => {
                let stop = closing_paren(&chars, i + 1).map_or(chars.len(), |end| end + 1);
                out.extend(&chars[i..stop]);
                i = stop;
                continue;
            }
            (None, '!' | '@' | '?' | '+' | '*') if chars.get(i + 1) == Some(&'(') => {
                if let Some(end) = closing_paren(&chars, i + 1) {
                    out.push('*');
                    changed = true;
                    i = end + 1;
                    continue;
                }
            }
            _ => {}
        }
        out.push(c);
        i += 1;
    }
    changed.then_some(out)
}

/// The index of the `)` that closes the `(` at `open` in `chars`, `None`
/// when it is never closed.
fn closing_paren(chars: &[char], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (j, c) in chars.iter().enumerate().skip(open) {
        match c {
            '(' => depth += 1,
            ')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(j);
                }
            }
            _ => {}
        }
    }
    None
}

pub(super) fn expanded_name(raw: &str) -> Option<&str> {
    let rest = raw.trim_start_matches('"').strip_prefix('$')?;
    let rest = rest.strip_prefix('{').unwrap_or(rest);
    let rest = rest.strip_prefix('#').unwrap_or(rest);
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

/// The file of a command substitution that is one input redirection and
/// nothing else (`$(< FILE)`, `$(0<FILE)`, `` `<FILE` ``): bash reads
/// FILE's contents without running a command, as `$(cat FILE)` (bash(1),
/// Command Substitution). `None` for anything else: a command with
/// words (`$(< F cmd)`), a here-document or another redirection.
fn bare_input_redirect(script: &str) -> Option<&str> {
    let t = script.trim();
    let t = t.strip_prefix('0').unwrap_or(t).strip_prefix('<')?;
    if t.starts_with(['<', '(', '&', '>']) {
        return None;
    }
    let word = t.trim_start();
    // One shell word: no unquoted blank or operator.
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in word.chars() {
        match (quote, c) {
            _ if escaped => escaped = false,
            (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (Some('\''), _) => {}
            (_, '\\') => escaped = true,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, c) if c.is_whitespace() || ";|&<>()`".contains(c) => return None,
            (None, _) => {}
        }
    }
    (!word.is_empty() && quote.is_none() && !escaped).then_some(word)
}

impl Analysis<'_> {
    /// Expand arithmetic text as one field, without splitting.
    pub(crate) fn expand_arith_word(&mut self, raw: &str, env: &mut Env, depth: u32) -> Field {
        self.expand_word_unsplit(raw, env, depth)
    }

    /// What bash evaluates while it expands `${…}` (review s22 V1): the
    /// subscript of an indexed array and a substring's offset and length
    /// (arithmetic), the value of `x` in `${!x}` (a variable name), the
    /// value `${x@P}` expands as a prompt.
    fn parameter_evaluations(&mut self, expr: &ParameterExpr, env: &mut Env, depth: u32) {
        use ParameterExpr as P;
        let (parameter, indirect) = match expr {
            P::Parameter {
                parameter,
                indirect,
            }
            | P::UseDefaultValues {
                parameter,
                indirect,
                ..
            }
            | P::AssignDefaultValues {
                parameter,
                indirect,
                ..
            }
            | P::IndicateErrorIfNullOrUnset {
                parameter,
                indirect,
                ..
            }
            | P::UseAlternativeValue {
                parameter,
                indirect,
                ..
            }
            | P::ParameterLength {
                parameter,
                indirect,
            }
            | P::RemoveSmallestSuffixPattern {
                parameter,
                indirect,
                ..
            }
            | P::RemoveLargestSuffixPattern {
                parameter,
                indirect,
                ..
            }
            | P::RemoveSmallestPrefixPattern {
                parameter,
                indirect,
                ..
            }
            | P::RemoveLargestPrefixPattern {
                parameter,
                indirect,
                ..
            }
            | P::Substring {
                parameter,
                indirect,
                ..
            }
            | P::Transform {
                parameter,
                indirect,
                ..
            }
            | P::UppercaseFirstChar {
                parameter,
                indirect,
                ..
            }
            | P::UppercasePattern {
                parameter,
                indirect,
                ..
            }
            | P::LowercaseFirstChar {
                parameter,
                indirect,
                ..
            }
            | P::LowercasePattern {
                parameter,
                indirect,
                ..
            }
            | P::ReplaceSubstring {
                parameter,
                indirect,
                ..
            } => (parameter, *indirect),
            P::VariableNames { .. } | P::MemberKeys { .. } => return,
        };
        if let Parameter::NamedWithIndex { name, index } = parameter {
            if env.assoc.contains(name) || matches!(name.as_str(), "BASH_CMDS" | "BASH_ALIASES") {
                self.scan_substitutions(index, env, depth);
            } else {
                self.arithmetic_text(index, env, depth, &format!("the subscript of `{name}[…]`"));
            }
        }
        if indirect {
            let value = match parameter {
                Parameter::Named(n) => env.vars.get(n).cloned(),
                _ => None,
            }
            .unwrap_or_else(|| dyn_field(&format!("{parameter}")));
            let e = env.clone();
            self.prove_name(&value, &e, "the variable `${!…}` names");
        }
        if let P::Substring { offset, length, .. } = expr {
            self.arithmetic_text(&offset.value, env, depth, "the offset of `${…:…}`");
            if let Some(l) = length {
                self.arithmetic_text(&l.value, env, depth, "the length of `${…:…}`");
            }
        }
        if let P::Transform {
            op: brush_parser::word::ParameterTransformOp::PromptExpand,
            ..
        } = expr
        {
            let plain = match parameter {
                Parameter::Named(n) => self
                    .known_value(n, env)
                    .is_some_and(|v| !v.contains(['$', '`', '\\'])),
                _ => false,
            };
            if !plain {
                self.report(
                    false,
                    "shell.eval-dynamic",
                    format!(
                        "`${{…@P}}` expands the value of `{parameter}` as a prompt string, which runs the command \
                         substitutions in it, and that value is not proven plain text. A person must approve it as it is."
                    ),
                );
            }
        }
    }

    // ----------------------------------------------------------------
    // Word expansion
    // ----------------------------------------------------------------

    /// Expand one word into the fields the command receives: brace
    /// expansion, quote removal, known variables, command substitutions
    /// (analysed), field splitting.
    pub fn expand_word(&mut self, raw: &str, env: &mut Env, depth: u32) -> Vec<Field> {
        if !self.step() {
            return vec![dyn_field(raw)];
        }
        let words = if raw.contains('{') {
            match self.brace_words(raw) {
                Some(w) => w,
                None => return vec![dyn_field(raw)],
            }
        } else {
            vec![raw.to_string()]
        };
        let mut out = Vec::new();
        for w in &words {
            out.extend(self.expand_one(w, env, depth, false));
        }
        out
    }

    /// Expand a word without field splitting (assignment values).
    pub(super) fn expand_word_unsplit(&mut self, raw: &str, env: &mut Env, depth: u32) -> Field {
        let fields = self.expand_one(raw, env, depth, true);
        let mut f = Field::default();
        for (i, field) in fields.into_iter().enumerate() {
            if i > 0 {
                f.segs.push(Seg::Lit {
                    text: " ".into(),
                    quoted: true,
                });
            }
            f.segs.extend(field.segs);
        }
        f
    }

    fn brace_words(&mut self, raw: &str) -> Option<Vec<String>> {
        let unquoted = approx_unquoted_braces(raw);
        if unquoted == 0 {
            return Some(vec![raw.to_string()]);
        }
        if unquoted > syntax::MAX_BRACES
            || raw.matches('{').count() > 4 * syntax::MAX_BRACES
            || syntax::unmatched_open_braces(raw) > syntax::MAX_UNMATCHED_BRACES
        {
            self.report(
                false,
                "shell.too-deep",
                "A word has too many `{` braces to expand safely; a person must review the command.",
            );
            return None;
        }
        match syntax::expand_braces(raw) {
            Some(w) => Some(w),
            None => {
                self.report(
                    false,
                    "shell.too-deep",
                    format!(
                        "A brace expansion produces more than {} words; a person must review the command.",
                        syntax::MAX_BRACE_WORDS
                    ),
                );
                None
            }
        }
    }

    fn expand_one(&mut self, raw: &str, env: &mut Env, depth: u32, no_split: bool) -> Vec<Field> {
        if !raw.is_empty() && !raw.contains(['$', '`', '\'', '"', '\\', '~']) {
            // Plain text: nothing to expand (the common case).
            return vec![Field {
                segs: vec![Seg::Lit {
                    text: raw.to_string(),
                    quoted: false,
                }],
            }];
        }
        let toggled = case_toggles(raw, env);
        let raw = toggled.as_deref().unwrap_or(raw);
        let widened = extglob_as_star(raw);
        let raw = widened.as_deref().unwrap_or(raw);
        let opts = syntax::parser_options();
        match brush_parser::word::parse(raw, &opts) {
            Ok(pieces) => {
                let mut b = FieldBuilder::default();
                if no_split {
                    b.lit("", true);
                }
                self.expand_pieces_split(
                    &pieces,
                    raw,
                    &mut b,
                    env,
                    depth,
                    Splitting {
                        quoted: false,
                        no_split,
                    },
                );
                b.finish()
            }
            Err(_) => vec![dyn_field(raw)],
        }
    }

    pub(crate) fn expand_pieces(
        &mut self,
        pieces: &[WordPieceWithSource],
        src: &str,
        quoted: bool,
        b: &mut FieldBuilder,
        env: &mut Env,
        depth: u32,
    ) {
        self.expand_pieces_split(
            pieces,
            src,
            b,
            env,
            depth,
            Splitting {
                quoted,
                no_split: false,
            },
        );
    }

    fn expand_pieces_split(
        &mut self,
        pieces: &[WordPieceWithSource],
        src: &str,
        b: &mut FieldBuilder,
        env: &mut Env,
        depth: u32,
        splitting: Splitting,
    ) {
        let Splitting { quoted, no_split } = splitting;
        let ifs = if no_split { String::new() } else { env.ifs() };
        for p in pieces {
            if self.done() {
                return;
            }
            let raw = src.get(p.start_index..p.end_index).unwrap_or("$?");
            match &p.piece {
                WordPiece::Text(t) => b.lit(t, quoted),
                WordPiece::SingleQuotedText(t) => b.lit(t, true),
                WordPiece::AnsiCQuotedText(t) => b.lit(&syntax::decode_escapes(t, true).0, true),
                WordPiece::DoubleQuotedSequence(inner)
                | WordPiece::GettextDoubleQuotedSequence(inner) => {
                    b.lit("", true);
                    self.expand_pieces_split(
                        inner,
                        src,
                        b,
                        env,
                        depth,
                        Splitting {
                            quoted: true,
                            no_split,
                        },
                    );
                }
                WordPiece::EscapeSequence(s) => {
                    let c = s.strip_prefix('\\').unwrap_or(s);
                    if c != "\n" {
                        b.lit(c, true);
                    }
                }
                WordPiece::TildeExpansion(t) => match t {
                    // `HOME=…` in the command moves `~` (review s25 S24).
                    TildeExpr::Home => match env.vars.get("HOME").map(Field::static_text) {
                        Some(Some(h)) => b.lit(&h, true),
                        Some(None) => b.seg(dyn_seg("$HOME", quoted)),
                        None => match &self.home {
                            Some(h) => b.lit(&h.clone(), true),
                            None => b.seg(Seg::Home(None)),
                        },
                    },
                    TildeExpr::UserHome(u) => b.seg(Seg::Home(Some(u.clone()))),
                    TildeExpr::WorkingDir => match &env.cwd {
                        Cwd::Known(c) => b.lit(&c.clone(), true),
                        _ => b.seg(dyn_seg("~+", quoted)),
                    },
                    // `~-` is `$OLDPWD` (review s23 R11).
                    TildeExpr::OldWorkingDir => {
                        match env.vars.get("OLDPWD").and_then(Field::static_text) {
                            Some(o) if o.starts_with('/') => b.lit(&o, true),
                            _ => b.seg(dyn_seg("~-", quoted)),
                        }
                    }
                    _ => b.seg(dyn_seg(raw, quoted)),
                },
                WordPiece::ParameterExpansion(expr) => {
                    self.parameter(expr, raw, b, env, depth, Fielding { quoted, ifs: &ifs });
                }
                WordPiece::CommandSubstitution(s) | WordPiece::BackquotedCommandSubstitution(s) => {
                    let mut sub = env.clone();
                    // `$(< FILE)`: bash expands it to FILE's contents, as
                    // `$(cat FILE)` (review s17 Q12).
                    let cat = bare_input_redirect(s).map(|f| format!("cat -- {f}"));
                    let s = cat.as_deref().unwrap_or(s);
                    let flows = (self.pid_in, self.pid_out, self.pid_out_stage);
                    self.pipeline_pids = None;
                    let out = self.script(s, &mut sub, depth + 1, &Output::Unknown);
                    // The whole output is a narrow lookup's pids only when
                    // the substitution is one pipeline (review s21 U9).
                    // The same text walked again (after `cd`) is judged
                    // again: the last walk counts.
                    if self.pipeline_pids.is_some_and(|f| f.proven())
                        && crate::syntax::one_pipeline(s)
                    {
                        self.narrow_lookups.insert(raw.to_string());
                    } else {
                        self.narrow_lookups.remove(raw);
                    }
                    (self.pid_in, self.pid_out, self.pid_out_stage) = flows;
                    match out {
                        Output::Static(text) => b.value(text.trim_end_matches('\n'), quoted, &ifs),
                        out => b.seg(Seg::Dyn {
                            raw: raw.to_string(),
                            out,
                            quoted,
                        }),
                    }
                }
                WordPiece::ArithmeticExpression(e) => {
                    self.arithmetic_text(&e.value, env, depth, "the arithmetic expansion");
                    self.arith_assign(&e.value, env);
                    self.note_integer(raw);
                    b.seg(dyn_seg(raw, quoted));
                }
            }
        }
    }

    fn parameter(
        &mut self,
        expr: &ParameterExpr,
        raw: &str,
        b: &mut FieldBuilder,
        env: &mut Env,
        depth: u32,
        fielding: Fielding<'_>,
    ) {
        let Fielding { quoted, ifs } = fielding;
        use ParameterExpr as P;
        self.parameter_evaluations(expr, env, depth);
        // toolvet's own tokens and keys, expanded anywhere (review s12
        // L2); a value the command set itself is not a read.
        if let Some(name) = expanded_name(raw)
            && crate::effects::selfstate::is_toolvet_secret_variable(name)
            && !env.vars.contains_key(name)
        {
            self.toolvet_secret_read(&format!("`{raw}`"), name);
        }
        match expr {
            P::Parameter {
                parameter: Parameter::Named(n),
                indirect: false,
            } => self.variable(n, raw, quoted, b, env, ifs),
            // `$1` of a `bash -c` script given its words (review s25 S13).
            P::Parameter {
                parameter: Parameter::Positional(n),
                indirect: false,
            } => {
                let n = n.to_string();
                self.variable(&n, raw, quoted, b, env, ifs)
            }
            P::Parameter {
                parameter: Parameter::Special(brush_parser::word::SpecialParameter::ShellName),
                indirect: false,
            } if env.vars.contains_key("0") => self.variable("0", raw, quoted, b, env, ifs),
            P::Substring {
                parameter: Parameter::Named(n),
                indirect: false,
                offset,
                length,
            } => {
                let value = self.known_value(n, env);
                let off = offset.value.trim().parse::<i64>().ok();
                let len = match length {
                    Some(l) => l.value.trim().parse::<i64>().ok().map(Some),
                    None => Some(None),
                };
                match (value, off, len) {
                    (Some(v), Some(off), Some(len)) => {
                        let chars: Vec<char> = v.chars().collect();
                        let n = chars.len() as i64;
                        let start = if off < 0 {
                            (n + off).max(0)
                        } else {
                            off.min(n)
                        };
                        let end = match len {
                            Some(l) if l < 0 => (n + l).max(start),
                            Some(l) => (start + l).min(n),
                            None => n,
                        };
                        let s: String = chars[start as usize..end as usize].iter().collect();
                        b.value(&s, quoted, ifs);
                    }
                    _ => b.seg(dyn_seg(raw, quoted)),
                }
            }
            P::UseDefaultValues {
                parameter: Parameter::Named(n),
                indirect: false,
                default_value,
                ..
            } => {
                if let Some(d) = default_value {
                    self.scan_substitutions(d, env, depth);
                }
                match env
                    .vars
                    .get(n)
                    .and_then(Field::static_text)
                    .filter(|v| !v.is_empty())
                {
                    Some(v) => b.value(&v, quoted, ifs),
                    None => b.seg(dyn_seg(raw, quoted)),
                }
            }
            P::AssignDefaultValues {
                parameter,
                indirect,
                test_type,
                default_value,
            } => self.assign_default(
                (parameter, *indirect, test_type),
                (default_value.as_deref(), raw),
                b,
                env,
                depth,
                Fielding { quoted, ifs },
            ),
            other => {
                for s in nested_strings(other) {
                    self.scan_substitutions(s, env, depth);
                }
                match self.exact_transform(other, env) {
                    Some(v) => b.value(&v, quoted, ifs),
                    None => b.seg(dyn_seg(raw, quoted)),
                }
            }
        }
    }

    /// `${v:=WORD}` / `${v=WORD}` assigns v (review s23 V4): when v's value
    /// is known, the test is decided and v keeps it or becomes WORD's
    /// expansion (sent through the arithmetic proof when v is `-i`);
    /// otherwise v is unknown from here on. An element (`${a[i]:=…}`) makes
    /// the array unknown; an indirect name (`${!n:=…}`) every variable.
    /// `(default, raw)`: the WORD as written and the whole expansion's
    /// text.
    fn assign_default(
        &mut self,
        (parameter, indirect, test): (&Parameter, bool, &brush_parser::word::ParameterTestType),
        (default, raw): (Option<&str>, &str),
        b: &mut FieldBuilder,
        env: &mut Env,
        depth: u32,
        Fielding { quoted, ifs }: Fielding<'_>,
    ) {
        let name = match parameter {
            Parameter::Named(n) | Parameter::NamedWithIndex { name: n, .. } => n.clone(),
            _ => String::new(),
        };
        let known = match parameter {
            Parameter::Named(n) if !indirect => env.vars.get(n).and_then(Field::static_text),
            _ => None,
        };
        let applies = known.as_ref().map(|v| {
            v.is_empty() && matches!(test, brush_parser::word::ParameterTestType::UnsetOrNull)
        });
        match applies {
            Some(false) => {
                b.value(&known.unwrap_or_default(), quoted, ifs);
            }
            Some(true) => {
                let value = self.expand_word_unsplit(default.unwrap_or(""), env, depth);
                if env.ints.contains(&name) {
                    let e = env.clone();
                    let what = format!("the value `${{{name}:=…}}` gives `{name}` (declared `-i`)");
                    self.prove_arithmetic(&value, &e, &what);
                }
                match value.static_text() {
                    Some(t) => b.value(&t, quoted, ifs),
                    None => b.seg(dyn_seg(raw, quoted)),
                }
                env.assign(name, value);
            }
            None => {
                if env.ints.contains(&name) {
                    let value = self.expand_word_unsplit(default.unwrap_or(""), env, depth);
                    let e = env.clone();
                    let what = format!("the value `${{{name}:=…}}` gives `{name}` (declared `-i`)");
                    self.prove_arithmetic(&value, &e, &what);
                } else if let Some(d) = default {
                    self.scan_substitutions(d, env, depth);
                }
                if indirect {
                    env.forget_vars();
                } else if !name.is_empty() {
                    env.forget(&name);
                }
                b.seg(dyn_seg(raw, quoted));
            }
        }
    }

    /// The value of an expansion that transforms a known value in a way
    /// computed exactly here (review s24 S9): case changes of ASCII text
    /// (`${t,,}`), removal or replacement of a literal pattern (`${t%Z}`,
    /// `${t/X/a}`, no glob or quoting characters in it), an indirect
    /// reference through a known name (`${!u}`). `None` for anything else,
    /// which stays unknown.
    fn exact_transform(&self, expr: &ParameterExpr, env: &Env) -> Option<String> {
        use ParameterExpr as P;
        // Pattern or replacement text that means itself: no glob, quote,
        // escape, expansion, `&` (the matched text in a replacement) or
        // `~`.
        let plain = |p: &str| {
            p.chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-/,:=+@%^#".contains(c))
                && !p.contains("+(")
                && !p.contains("@(")
        };
        let value = |n: &str| self.known_value(n, env).filter(|v| v.is_ascii());
        // A case change's pattern that matches every character.
        let every = |p: &Option<String>| p.as_deref().is_none_or(|p| p.is_empty() || p == "?");
        // A removal's known value, when its pattern `p` means itself.
        let removal = |n: &str, p: &str| value(n).filter(|_| plain(p));
        match expr {
            P::Parameter {
                parameter: Parameter::Named(u),
                indirect: true,
            } => {
                let target = self.known_value(u, env)?;
                let ident = !target.is_empty()
                    && !target.starts_with(|c: char| c.is_ascii_digit())
                    && target
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_');
                if !ident || env.namerefs.contains(&target) {
                    return None;
                }
                // A variable the walk holds (or HOME, PWD, IFS).
                self.known_value(&target, env)
            }
            P::RemoveSmallestSuffixPattern {
                parameter: Parameter::Named(n),
                indirect: false,
                pattern,
            }
            | P::RemoveLargestSuffixPattern {
                parameter: Parameter::Named(n),
                indirect: false,
                pattern,
            } => {
                let p = pattern.as_deref().unwrap_or("");
                let v = removal(n, p)?;
                Some(v.strip_suffix(p).unwrap_or(&v).to_string())
            }
            P::RemoveSmallestPrefixPattern {
                parameter: Parameter::Named(n),
                indirect: false,
                pattern,
            }
            | P::RemoveLargestPrefixPattern {
                parameter: Parameter::Named(n),
                indirect: false,
                pattern,
            } => {
                let p = pattern.as_deref().unwrap_or("");
                let v = removal(n, p)?;
                Some(v.strip_prefix(p).unwrap_or(&v).to_string())
            }
            P::UppercaseFirstChar {
                parameter: Parameter::Named(n),
                indirect: false,
                pattern,
            } if every(pattern) => {
                let v = value(n)?;
                let mut c = v.chars();
                Some(match c.next() {
                    Some(f) => format!("{}{}", f.to_ascii_uppercase(), c.as_str()),
                    None => v,
                })
            }
            P::LowercaseFirstChar {
                parameter: Parameter::Named(n),
                indirect: false,
                pattern,
            } if every(pattern) => {
                let v = value(n)?;
                let mut c = v.chars();
                Some(match c.next() {
                    Some(f) => format!("{}{}", f.to_ascii_lowercase(), c.as_str()),
                    None => v,
                })
            }
            P::UppercasePattern {
                parameter: Parameter::Named(n),
                indirect: false,
                pattern,
            } if every(pattern) => Some(value(n)?.to_ascii_uppercase()),
            P::LowercasePattern {
                parameter: Parameter::Named(n),
                indirect: false,
                pattern,
            } if every(pattern) => Some(value(n)?.to_ascii_lowercase()),
            P::Transform {
                parameter: Parameter::Named(n),
                indirect: false,
                op,
            } => {
                use brush_parser::word::ParameterTransformOp as O;
                let v = value(n)?;
                match op {
                    O::ToLowerCase => Some(v.to_ascii_lowercase()),
                    O::ToUpperCase => Some(v.to_ascii_uppercase()),
                    O::CapitalizeInitial => {
                        let mut c = v.chars();
                        Some(match c.next() {
                            Some(f) => format!("{}{}", f.to_ascii_uppercase(), c.as_str()),
                            None => v,
                        })
                    }
                    _ => None,
                }
            }
            P::ReplaceSubstring {
                parameter: Parameter::Named(n),
                indirect: false,
                pattern,
                replacement,
                match_kind,
            } => {
                use brush_parser::word::SubstringMatchKind as K;
                let v = value(n)?;
                let r = replacement.as_deref().unwrap_or("");
                if pattern.is_empty() || !plain(pattern) || !plain(r) {
                    return None;
                }
                Some(match match_kind {
                    K::Prefix => match v.strip_prefix(pattern.as_str()) {
                        Some(rest) => format!("{r}{rest}"),
                        None => v,
                    },
                    K::Suffix => match v.strip_suffix(pattern.as_str()) {
                        Some(rest) => format!("{rest}{r}"),
                        None => v,
                    },
                    K::FirstOccurrence => v.replacen(pattern.as_str(), r, 1),
                    K::Anywhere => v.replace(pattern.as_str(), r),
                })
            }
            _ => None,
        }
    }

    fn known_value(&self, name: &str, env: &Env) -> Option<String> {
        match env.vars.get(name) {
            Some(f) => f.static_text(),
            None => match name {
                "IFS" => Some(DEFAULT_IFS.to_string()),
                "HOME" => self.home.clone(),
                "PWD" => match &env.cwd {
                    Cwd::Known(c) => Some(c.clone()),
                    _ => None,
                },
                _ => None,
            },
        }
    }

    fn variable(
        &mut self,
        name: &str,
        raw: &str,
        quoted: bool,
        b: &mut FieldBuilder,
        env: &Env,
        ifs: &str,
    ) {
        if let Some(f) = env.vars.get(name) {
            for seg in f.segs.clone() {
                match seg {
                    Seg::Lit { text, .. } => b.value(&text, quoted, ifs),
                    // The value's unknown part is split here unless this
                    // expansion is quoted (review s21 U6).
                    Seg::Dyn { raw, out, .. } => b.seg(Seg::Dyn { raw, out, quoted }),
                    other => b.seg(other),
                }
            }
            return;
        }
        match name {
            "HOME" => match &self.home {
                Some(h) => b.lit(&h.clone(), true),
                None => b.seg(Seg::Home(None)),
            },
            _ => match self.known_value(name, env) {
                Some(v) => b.value(&v, quoted, ifs),
                None => b.seg(dyn_seg(raw, quoted)),
            },
        }
    }

    // ----------------------------------------------------------------
    // Targets of destructive commands
    // ----------------------------------------------------------------
}
