//! Text bash evaluates as arithmetic, or reads as a variable name (review
//! s22 V1).
//!
//! bash's arithmetic evaluator is a second interpreter inside bash: an
//! array subscript in it is expanded again (command substitution
//! included), and a variable read in it has its *value* evaluated as
//! arithmetic, recursively (bash(1) ARITHMETIC EVALUATION: "the value of a
//! variable is evaluated as an arithmetic expression when it is
//! referenced"; Arrays: "the subscript is treated as an arithmetic
//! expression"). So `x='a[$(rm -rf ~)]'; (( x ))` runs `rm`, and so do a
//! name operand `read 'a[$(…)]'` and an indirection `${!x}`.
//!
//! Where bash evaluates text as arithmetic (bash 5.2, bash(1)):
//! `$(( ))`, `$[ ]`, `(( ))`, `for (( ; ; ))`, `let`, the operands of
//! `[[ … -eq|-ne|-lt|-le|-gt|-ge … ]]`, a subscript of an indexed array
//! (`a[SUB]=v`, `a=([SUB]=v)`, `${a[SUB]}` and every `${a[SUB]…}` form),
//! the offset and length of `${s:OFF:LEN}`, values assigned to a
//! `declare -i` variable. Where it reads text as a variable name that may
//! carry a subscript: `read`, `printf -v`, `mapfile`/`readarray`,
//! `unset`, `getopts`, `wait -p`, `test -v`/`[ -v`/`[[ -v`, `-R`, the
//! declaration builtins (`declare`, `typeset`, `local`, `export`,
//! `readonly`), `${!x}` and `declare -n` namerefs. `${x@P}` expands its
//! value as a prompt (command substitutions run) and `mapfile -C CB`
//! evaluates CB.
//!
//! The property proven ([`Proof`]): every such text is made only of
//! integer literals, arithmetic operators, parentheses and plain variable
//! names whose values are themselves proven (set in this command to such
//! text, or to the result of an arithmetic expansion), subscripts proven
//! the same way; `$#`, `$?`, `$$` and `$!` are numbers. A name operand is
//! a plain name, or one with such a subscript (`@`/`*`; any text without
//! expansions for an associative array declared here). Anything else (a
//! `$`, a backquote or a quote left after expansion, a variable from the
//! environment or from input, a nameref) is held as `shell.eval-dynamic`.

use std::collections::HashSet;

use crate::opts::getopt::{self, Spec, Takes, short};
use crate::syntax::{Field, Seg};
use crate::walk::{Analysis, Env};

/// Variables bash itself keeps numeric (bash(1) Shell Variables: dynamic or
/// read-only, set by bash at start-up whatever the environment holds).
const BASH_NUMBERS: &[&str] = &[
    "RANDOM",
    "SRANDOM",
    "SECONDS",
    "LINENO",
    "BASHPID",
    "PPID",
    "UID",
    "EUID",
    "EPOCHSECONDS",
];

/// How deep variables' values are followed (`x=y; y=z; z=1`).
const MAX_VALUE_DEPTH: u32 = 8;

/// Stands for a value proven to be an integer (an arithmetic expansion's
/// result, `$#`) in the text being proven.
const INTEGER: char = '\u{1}';

/// A proof that text bash evaluates as arithmetic runs no code.
struct Proof<'e> {
    env: &'e Env,
    /// Raw texts of expansions whose value is an integer.
    integers: &'e HashSet<String>,
    /// Variables assigned earlier in the same text, unconditionally.
    assigned: HashSet<String>,
    /// Text only known at run time ran in this shell: no value is known.
    opaque: bool,
    /// Variables whose values are proven (each followed once).
    proven: HashSet<String>,
}

impl Proof<'_> {
    /// Whether `text` (already expanded) is proven; `Err` says why not.
    fn arithmetic(&mut self, text: &str, depth: u32) -> Result<(), String> {
        if depth > MAX_VALUE_DEPTH {
            return Err("its variables' values are nested too deep".into());
        }
        let chars: Vec<char> = text.chars().collect();
        let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
        let mut pending: Vec<String> = Vec::new();
        let mut conditional = false;
        let mut parens = 0i32;
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if c.is_ascii_whitespace() {
                i += 1;
            } else if c == INTEGER {
                let before = i > 0 && (ident(chars[i - 1]) || chars[i - 1] == '#');
                let after = chars.get(i + 1).is_some_and(|&n| ident(n) || n == '#');
                if before || after {
                    return Err("a computed number is joined to a name or number".into());
                }
                i += 1;
            } else if c.is_ascii_digit() {
                // Decimal, octal, `0x…`, `BASE#DIGITS` (digits may be
                // letters, `@`, `_`): a literal, no variable read.
                while i < chars.len() && (ident(chars[i]) || matches!(chars[i], '#' | '@')) {
                    i += 1;
                }
                if chars.get(i) == Some(&INTEGER) {
                    return Err("a computed number is joined to a number".into());
                }
            } else if c.is_ascii_alphabetic() || c == '_' {
                let start = i;
                while i < chars.len() && ident(chars[i]) {
                    i += 1;
                }
                let name: String = chars[start..i].iter().collect();
                if chars.get(i) == Some(&INTEGER) {
                    return Err(format!("`{name}` is joined to a computed number"));
                }
                let mut element = false;
                if chars.get(i) == Some(&'[') {
                    let close = matching_bracket(&chars, i).ok_or("a subscript is not closed")?;
                    let sub: String = chars[i + 1..close].iter().collect();
                    self.arithmetic(&sub, depth)?;
                    i = close + 1;
                    element = true;
                }
                let mut j = i;
                while j < chars.len() && chars[j].is_ascii_whitespace() {
                    j += 1;
                }
                let plain_assign = chars.get(j) == Some(&'=') && chars.get(j + 1) != Some(&'=');
                if plain_assign {
                    if !element && !conditional {
                        pending.push(name);
                    }
                    continue;
                }
                if element {
                    return Err(format!(
                        "it reads an element of `{name}`, whose value is evaluated again"
                    ));
                }
                self.variable(&name, depth)?;
            } else if "+-*/%<>=!~&|^,():?".contains(c) {
                match c {
                    '(' => parens += 1,
                    ')' => {
                        parens -= 1;
                        if parens < 0 {
                            return Err("its parentheses do not match".into());
                        }
                    }
                    '?' => conditional = true,
                    '&' | '|' if chars.get(i + 1) == Some(&c) => conditional = true,
                    ',' if parens == 0 && !conditional => {
                        self.assigned.extend(pending.drain(..));
                    }
                    _ => {}
                }
                i += 1;
            } else {
                return Err(format!("it contains `{c}`"));
            }
        }
        if parens != 0 {
            return Err("its parentheses do not match".into());
        }
        if !conditional {
            self.assigned.extend(pending);
        }
        Ok(())
    }

    /// A variable read in arithmetic: its value is evaluated too.
    fn variable(&mut self, name: &str, depth: u32) -> Result<(), String> {
        if self.assigned.contains(name) {
            return Ok(());
        }
        if self.opaque {
            return Err(format!(
                "it reads `{name}`, which text run earlier (`eval`, `source`) may have set to anything"
            ));
        }
        // bash's own numeric variables, unless the command set (or
        // unset) them: their value is always a number.
        if BASH_NUMBERS.contains(&name) && !self.env.vars.contains_key(name) {
            return Ok(());
        }
        let Some(value) = self.env.vars.get(name) else {
            return Err(format!(
                "it reads `{name}`, whose value (from the environment or unset) is not known and is evaluated \
                 as arithmetic too"
            ));
        };
        let text = field_text(value, self.integers).ok_or_else(|| {
            format!("it reads `{name}`, whose value is only known at run time and is evaluated as arithmetic too")
        })?;
        if self.proven.contains(name) {
            return Ok(());
        }
        // The value is its own expression: assignments in it prove nothing
        // here, and none of this text's count there.
        let outer = std::mem::take(&mut self.assigned);
        let result = self.arithmetic(&text, depth + 1);
        self.assigned = outer;
        result.map_err(|why| {
            format!("`{name}`'s value `{text}` is evaluated as arithmetic and {why}")
        })?;
        self.proven.insert(name.to_string());
        Ok(())
    }

    /// A variable name operand, possibly with a subscript.
    fn name(&mut self, text: &str, assoc: &HashSet<String>) -> Result<(), String> {
        let base = text.split('[').next().unwrap_or("");
        if base.is_empty()
            || base.starts_with(|c: char| c.is_ascii_digit())
            || !base.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return Err(format!("`{text}` is not a plain variable name"));
        }
        let Some(rest) = text.strip_prefix(base).filter(|r| !r.is_empty()) else {
            return Ok(());
        };
        let sub = rest
            .strip_prefix('[')
            .and_then(|r| r.strip_suffix(']'))
            .ok_or_else(|| format!("`{text}` is not a plain variable name"))?;
        if sub == "@" || sub == "*" {
            return Ok(());
        }
        if assoc.contains(base) {
            if sub.contains(['$', '`', '\\', '\'', '"', INTEGER]) {
                return Err(format!("the key of `{text}` is expanded again"));
            }
            return Ok(());
        }
        self.arithmetic(sub, 0)
    }
}

/// `NAME=VALUE` (or `NAME+=VALUE`) split into the name and the value.
fn split_assignment(a: &Field) -> Option<(String, Field)> {
    let Some(Seg::Lit { text, quoted }) = a.segs.first() else {
        return None;
    };
    let (n, v) = text.split_once('=')?;
    let mut value = Field {
        segs: vec![Seg::Lit {
            text: v.to_string(),
            quoted: *quoted,
        }],
    };
    value.segs.extend(a.segs[1..].iter().cloned());
    Some((n.trim_end_matches('+').to_string(), value))
}

/// The closing `]` of the `[` at `open`.
fn matching_bracket(chars: &[char], open: usize) -> Option<usize> {
    let mut depth = 0;
    for (k, &c) in chars.iter().enumerate().skip(open) {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// The text of `field` as arithmetic sees it: its literal text, with
/// [`INTEGER`] for an expansion proven to be an integer; `None` when a
/// part is only known at run time.
fn field_text(field: &Field, integers: &HashSet<String>) -> Option<String> {
    let mut text = String::new();
    for seg in &field.segs {
        match seg {
            Seg::Lit { text: t, .. } => text.push_str(t),
            Seg::Dyn { raw, .. } if is_integer_raw(raw, integers) => text.push(INTEGER),
            _ => return None,
        }
    }
    Some(text)
}

/// Whether an expansion written `raw` always yields an integer: `$#`,
/// `$?`, `$$`, `$!`, `${#NAME}`, or an arithmetic expansion seen in this
/// command.
fn is_integer_raw(raw: &str, integers: &HashSet<String>) -> bool {
    if matches!(
        raw,
        "$#" | "$?" | "$$" | "$!" | "${#}" | "${?}" | "${$}" | "${!}"
    ) {
        return true;
    }
    if let Some(inner) = raw.strip_prefix("${#").and_then(|r| r.strip_suffix('}'))
        && let name = match inner.split_once('[') {
            // `${#a[@]}`, `${#a[i]}`: a count or a length (the subscript
            // is proven where it is expanded).
            Some((n, sub)) if sub.ends_with(']') => n,
            Some(_) => "",
            None => inner,
        }
        && !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return true;
    }
    integers.contains(raw)
}

/// The bash builtins that take variable-name operands, with their options
/// (bash 5.2 `help NAME`; builtins read options with `internal_getopt`:
/// short options only, up to the first operand or `--`).
fn name_builtin(name: &str) -> Option<Spec> {
    use Takes::{No as N, Value as V};
    /// `read [-ers] [-a array] [-d delim] [-i text] [-n nchars] [-N nchars]
    /// [-p prompt] [-t timeout] [-u fd] [name ...]`
    const READ: &[getopt::Opt] = &[
        short("e", N),
        short("r", N),
        short("s", N),
        short("a", V),
        short("d", V),
        short("i", V),
        short("n", V),
        short("N", V),
        short("p", V),
        short("t", V),
        short("u", V),
    ];
    /// `mapfile [-d delim] [-n count] [-O origin] [-s count] [-t] [-u fd]
    /// [-C callback] [-c quantum] [array]`
    const MAPFILE: &[getopt::Opt] = &[
        short("d", V),
        short("n", V),
        short("O", V),
        short("s", V),
        short("t", N),
        short("u", V),
        short("C", V),
        short("c", V),
    ];
    /// `printf [-v var] format [arguments]`
    const PRINTF: &[getopt::Opt] = &[short("v", V)];
    /// `unset [-f] [-v] [-n] [name ...]`
    const UNSET: &[getopt::Opt] = &[short("f", N), short("v", N), short("n", N)];
    /// `wait [-fn] [-p var] [id ...]`
    const WAIT: &[getopt::Opt] = &[short("f", N), short("n", N), short("p", V)];
    let opts = match name {
        "read" => READ,
        "mapfile" | "readarray" => MAPFILE,
        "printf" => PRINTF,
        "unset" => UNSET,
        "wait" => WAIT,
        _ => return None,
    };
    Some(Spec {
        opts,
        permute: false,
        long_only: false,
    })
}

impl Analysis<'_> {
    /// Hold the command: text bash evaluates is not proven (see the
    /// module documentation).
    fn report_unproven(&mut self, what: &str, why: &str) {
        self.report(
            false,
            "shell.eval-dynamic",
            format!(
                "bash evaluates {what} as arithmetic or as a variable name, and {why}: a subscript or a value \
                 evaluated there may run commands (`a[$(…)]`). Use literal numbers and variables set to numbers \
                 in the same command; a person must approve it as it is."
            ),
        );
    }

    /// Prove the expanded `field`, which bash evaluates as arithmetic.
    pub(crate) fn prove_arithmetic(&mut self, field: &Field, env: &Env, what: &str) {
        self.prove(
            field,
            env,
            what,
            "part of it is only known at run time",
            |proof, text| proof.arithmetic(text, 0),
        );
    }

    /// Run `step` on the text of the expanded `field` (or `unknown` when
    /// part of it is only known at run time) and report it unproven, as
    /// `what`, when it fails.
    fn prove(
        &mut self,
        field: &Field,
        env: &Env,
        what: &str,
        unknown: &str,
        step: impl FnOnce(&mut Proof<'_>, &str) -> Result<(), String>,
    ) {
        let integers = self.arith_integers.clone();
        let result = match field_text(field, &integers) {
            None => Err(unknown.to_string()),
            Some(text) => step(
                &mut Proof {
                    env,
                    integers: &integers,
                    assigned: HashSet::new(),
                    opaque: self.vars_opaque,
                    proven: HashSet::new(),
                },
                &text,
            ),
        };
        if let Err(why) = result {
            self.report_unproven(&format!("{what} `{}`", field.text()), &why);
        }
    }

    /// `declare -A name`: `name`'s subscripts are keys from now on, when
    /// it is proven not to be an indexed array already (bash keeps an
    /// indexed array indexed): not assigned before in the command, no
    /// function defined that may have made it one, no unread text run.
    pub(crate) fn declare_assoc(&mut self, name: &str, env: &mut Env) {
        if !self.functions_defined && !self.vars_opaque && !env.vars.contains_key(name) {
            env.assoc.insert(name.to_string());
        }
    }

    /// Variables a builtin gives values only known at run time: held when
    /// one is declared `-i` (the value is evaluated as arithmetic).
    fn integer_targets(&mut self, names: &[&Field], env: &Env, builtin: &str) {
        for n in names {
            let t = n.text();
            let base = t.split('[').next().unwrap_or("");
            if env.ints.contains(base) {
                self.report_unproven(
                    &format!("the value `{builtin}` gives `{base}` (declared `-i`)"),
                    "it is only known at run time",
                );
            }
        }
    }

    /// Prove the expanded `field`, which bash reads as a variable name.
    pub(crate) fn prove_name(&mut self, field: &Field, env: &Env, what: &str) {
        self.prove(
            field,
            env,
            what,
            "it is only known at run time",
            |proof, text| proof.name(text, &env.assoc),
        );
    }

    /// Expand arithmetic text written in the command (`$(( TEXT ))`,
    /// `(( TEXT ))`, a subscript, an offset) as bash does before it
    /// evaluates it (parameters, command substitutions, quotes; no tilde,
    /// no splitting) and prove the result.
    pub(crate) fn arithmetic_text(&mut self, text: &str, env: &mut Env, depth: u32, what: &str) {
        let field = if text.contains(['$', '`', '\'', '"', '\\']) {
            // A leading blank keeps `~` (bitwise not) from tilde expansion.
            self.expand_arith_word(&format!(" {text}"), env, depth)
        } else {
            Field::lit(text)
        };
        self.prove_arithmetic(&field, env, what);
    }

    /// A value `raw` (written as text in the command) is an integer
    /// whenever it is expanded: an arithmetic expansion's result.
    pub(crate) fn note_integer(&mut self, raw: &str) {
        self.arith_integers.insert(raw.to_string());
    }

    /// The operands of bash builtins that read variable names, and
    /// `mapfile -C`'s callback (evaluated with the index and line
    /// appended), `let`'s expressions, `declare -i`/`-n`.
    pub(crate) fn shell_evaluated_words(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
    ) {
        match name {
            "let" => {
                // Each expression in turn: `let i=1 j=i+2`.
                for a in args {
                    self.prove_arithmetic(a, env, "`let`'s expression");
                    self.arith_assign(&a.text(), env);
                }
            }
            "test" | "[" => {
                for (k, a) in args.iter().enumerate() {
                    if matches!(a.text().as_str(), "-v" | "-R")
                        && let Some(n) = args.get(k + 1)
                    {
                        self.prove_name(n, env, "the `test -v` operand");
                    }
                }
            }
            "getopts" => {
                if let Some(n) = args.get(1) {
                    self.prove_name(n, env, "`getopts`'s variable");
                    self.integer_targets(&[n], env, name);
                }
            }
            "declare" | "typeset" | "local" | "export" | "readonly" => {
                let mut options = true;
                let mut functions = false;
                let mut integer = false;
                for a in args {
                    let t = a.text();
                    if options && t == "--" {
                        options = false;
                        continue;
                    }
                    if options && t.starts_with(['-', '+']) && t.len() > 1 {
                        functions |= t[1..].contains(['f', 'F']);
                        if name != "export" && t.starts_with('-') && t[1..].contains('n') {
                            self.report_unproven(
                                &format!("a name reference declared `{name} {t}`"),
                                "the check does not follow what it names",
                            );
                        }
                        integer |= name != "export" && t.starts_with('-') && t[1..].contains('i');
                        let names = args
                            .iter()
                            .filter_map(Field::static_text)
                            .filter(|n| !n.starts_with(['-', '+']))
                            .map(|n| n.split(['=', '[']).next().unwrap_or("").to_string());
                        let names: Vec<String> = names.collect();
                        // `declare -l c; c=RM`: the value's case changes
                        // (review s25 S18): held as unknown.
                        if name != "export"
                            && t.starts_with('-')
                            && t[1..].contains(['l', 'u', 'c'])
                        {
                            for n in &names {
                                env.cased.insert(n.clone());
                                env.forget(n);
                            }
                        }
                        if t.starts_with('-') && t[1..].contains('A') {
                            for n in names {
                                self.declare_assoc(&n, env);
                            }
                        } else if t.starts_with('-') && t[1..].contains('a') {
                            // An indexed array: never converted to an
                            // associative one afterwards.
                            for n in names {
                                env.assoc.remove(&n);
                                env.vars
                                    .entry(n.clone())
                                    .or_insert_with(|| crate::walk::dyn_field(&format!("${n}")));
                            }
                        }
                        continue;
                    }
                    options = false;
                    if functions {
                        continue;
                    }
                    // `NAME`, `NAME=VALUE` (an assignment word's subscript
                    // was proven where it was expanded).
                    let name_part = match a.segs.first() {
                        Some(Seg::Lit { text, .. }) if text.contains('=') => {
                            Field::lit(text.split_once('=').map_or("", |(n, _)| n))
                        }
                        _ => a.clone(),
                    };
                    let name_part = match name_part.static_text() {
                        Some(t) if t.ends_with('+') => Field::lit(t.trim_end_matches('+')),
                        _ => name_part,
                    };
                    self.prove_name(&name_part, env, &format!("`{name}`'s operand"));
                    // `declare -i x=VALUE`: VALUE is evaluated, and so is
                    // every later value given to x.
                    if integer {
                        if let Some((n, value)) = split_assignment(a) {
                            self.prove_arithmetic(
                                &value,
                                env,
                                &format!("the value given to `{n}` (declared `-i`)"),
                            );
                        }
                        if let Some(n) = name_part.static_text() {
                            env.ints
                                .insert(n.split('[').next().unwrap_or("").to_string());
                        }
                    }
                }
            }
            _ => {
                let Some(spec) = name_builtin(name) else {
                    return;
                };
                let parsed = getopt::parse(&spec, args);
                for f in &parsed.found {
                    let Some(v) = &f.value else { continue };
                    match (name, f.opt.name) {
                        ("read", "a") | ("printf", "v") | ("wait", "p") => {
                            self.prove_name(v, env, &format!("`{name} -{}`'s variable", f.opt.name))
                        }
                        (_, "C") => match v.static_text() {
                            // bash evals `CALLBACK INDEX 'LINE'`.
                            // The line is what the input holds: judged as
                            // a value only known at run time (review s25 S4:
                            // `mapfile -C eval`).
                            Some(cb) => {
                                let mut e = env.clone();
                                e.forget("TOOLVET_MAPFILE_LINE");
                                self.script(
                                    &format!("{cb} 0 \"$TOOLVET_MAPFILE_LINE\""),
                                    &mut e,
                                    depth + 1,
                                    &crate::syntax::Output::Unknown,
                                );
                            }
                            None => self.report_unproven(
                                &format!("`{name} -C`'s callback `{}`", v.text()),
                                "it is only known at run time",
                            ),
                        },
                        _ => {}
                    }
                }
                if name == "unset" {
                    // `unset m; m[x]=1` makes an indexed array.
                    for &k in &parsed.operands {
                        env.assoc
                            .remove(args[k].text().split('[').next().unwrap_or(""));
                    }
                }
                let operands: Vec<&Field> = match name {
                    "printf" | "wait" => Vec::new(),
                    "unset" if parsed.has("f") => Vec::new(),
                    _ => parsed.operands.iter().map(|&k| &args[k]).collect(),
                };
                for n in operands {
                    self.prove_name(n, env, &format!("`{name}`'s variable"));
                }
                // A value read into a `-i` variable is evaluated.
                let assigned: Vec<&Field> = match name {
                    "unset" => Vec::new(),
                    "printf" | "wait" => parsed
                        .found
                        .iter()
                        .filter_map(|f| f.value.as_ref())
                        .collect(),
                    _ => parsed
                        .operands
                        .iter()
                        .map(|&k| &args[k])
                        .chain(
                            parsed
                                .found
                                .iter()
                                .filter(|f| f.opt.name == "a")
                                .filter_map(|f| f.value.as_ref()),
                        )
                        .collect(),
                };
                self.integer_targets(&assigned, env, name);
            }
        }
    }
}
