//! Variable bindings: assignments, rebound names (`declare`, `local`,
//! subscripts), arithmetic assignments and the substitutions they run.
//!
//! A variable's value is known only through forms modelled exactly here,
//! in `expand.rs` (`${v:=w}`) and in `commands/builtins.rs`; every other
//! way bash assigns makes it unknown ([`Env::vars`], review s23 V4, V5).

use super::*;

/// The variables shell arithmetic `expr` (`((x = -1))`, `let x=-1`,
/// `((x--))`) assigns: their value is the arithmetic's, only known at
/// run time, and reads as `$((expr))` (a pid from it is held: review s19
/// S20).
pub(crate) fn arithmetic_assigns(expr: &str, env: &mut Env) {
    let chars: Vec<char> = expr.chars().collect();
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut i = 0;
    while i < chars.len() {
        if !(chars[i].is_ascii_alphabetic() || chars[i] == '_') || (i > 0 && ident(chars[i - 1])) {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && ident(chars[i]) {
            i += 1;
        }
        let name: String = chars[start..i].iter().collect();
        let before: String = chars[..start].iter().collect();
        let mut j = i;
        while j < chars.len() && chars[j] == ' ' {
            j += 1;
        }
        let after: String = chars[j..].iter().take(4).collect();
        let assigned = before.trim_end().ends_with("++")
            || before.trim_end().ends_with("--")
            || after.starts_with("++")
            || after.starts_with("--")
            || (after.starts_with('=') && !after.starts_with("=="))
            || ["+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="]
                .iter()
                .any(|op| after.starts_with(op));
        if assigned {
            env.vars.insert(name, dyn_field(&format!("$(({expr}))")));
        }
    }
}

impl Analysis<'_> {
    /// The shell text a simple command runs when its command word is a
    /// rebound name ([`Env::names`]): the alias's value, or the hashed
    /// program, in place of the word (the rest as written). `None` when
    /// it is not one; a name bound to an unknown value is reported.
    pub(super) fn rebound(
        &mut self,
        sc: &ast::SimpleCommand,
        env: &mut Env,
        depth: u32,
    ) -> Option<Rebound> {
        use ast::CommandPrefixOrSuffixItem as I;
        if env.names.is_empty()
            || sc
                .prefix
                .iter()
                .flat_map(|p| p.0.iter())
                .any(|i| matches!(i, I::Word(_) | I::ProcessSubstitution(..)))
        {
            return None;
        }
        let word = sc.word_or_name.as_ref()?;
        let raw = word.value.as_str();
        // Quoting the word stops alias expansion, not the hash table.
        let plain = raw.replace(['\'', '"', '\\'], "");
        if plain.contains(['$', '`', '/']) {
            return None;
        }
        let unquoted = plain == raw;
        let mut head = match env.names.get(&plain) {
            Some(Binding::Alias(v)) if unquoted => v.clone(),
            Some(Binding::Program(path)) => {
                return Some(Rebound::Words(vec![Field::lit(path.clone())], 1));
            }
            Some(Binding::Unknown) => {
                self.report_unknown_binding(&plain);
                return None;
            }
            _ => return None,
        };
        let items: Vec<&I> = sc.suffix.iter().flat_map(|s| s.0.iter()).collect();
        let mut suffix: Vec<String> = items.iter().map(|i| i.to_string()).collect();
        // `alias s='sudo '`: the next word is expanded as an alias too.
        let mut seen = vec![plain.clone()];
        while head.ends_with([' ', '\t']) && !suffix.is_empty() && seen.len() < 16 {
            let next = suffix[0].clone();
            match env.names.get(&next) {
                Some(Binding::Alias(v)) if !seen.contains(&next) => {
                    head.push_str(v);
                    suffix.remove(0);
                    seen.push(next);
                }
                Some(Binding::Unknown) => {
                    self.report_unknown_binding(&next);
                    break;
                }
                _ => break,
            }
        }
        // Plain words (`rm -rf`, `sudo `, `ls -la ~`): they replace the
        // command word (and the words expanded with it) in place, each
        // expanded as written; the rest of the command stays as parsed
        // (here-documents, redirections).
        let consumed = seen.len() - 1;
        // `alias a='y=rm'`: an assignment is walked as shell text.
        let plain = !head.contains([
            '\'', '"', '\\', ';', '&', '|', '<', '>', '(', ')', '`', '\n', '{', '}', '#', '=',
        ]);
        let words_only = items[..consumed.min(items.len())]
            .iter()
            .all(|i| matches!(i, I::Word(_)));
        if plain && words_only {
            let words = head
                .split_whitespace()
                .flat_map(|w| self.expand_word(w, env, depth))
                .collect();
            return Some(Rebound::Words(words, 1 + consumed));
        }
        let mut text = String::new();
        if let Some(prefix) = &sc.prefix {
            text.push_str(&prefix.to_string());
            text.push(' ');
        }
        text.push_str(&head);
        for s in suffix {
            text.push(' ');
            text.push_str(&s);
        }
        seen.retain(|n| matches!(env.names.get(n), Some(Binding::Alias(_))));
        Some(Rebound::Script(text, seen))
    }

    /// A command word names a binding whose value is not known.
    fn report_unknown_binding(&mut self, name: &str) {
        self.report(
            false,
            "shell.eval-dynamic",
            format!(
                "`{name}` was rebound earlier in the command (`alias`, `hash -p`, `BASH_CMDS`, `BASH_ALIASES`) \
                 to something only known at run time, or only on some paths, so what it runs cannot be checked. \
                 Write the command out; a person must approve it as it is."
            ),
        );
    }

    /// Remember that `name` now runs `value` (`hash -p`, `BASH_CMDS[…]=`:
    /// a program; `alias`, `BASH_ALIASES[…]=`: shell text). A name or a
    /// value only known at run time is reported instead.
    pub(crate) fn bind_name(
        &mut self,
        env: &mut Env,
        name: &Field,
        value: &Field,
        alias: bool,
        how: &str,
    ) {
        let (Some(n), Some(v)) = (name.static_text(), value.static_text()) else {
            self.report(
                false,
                "shell.eval-dynamic",
                format!(
                    "`{how}` rebinds a command name to a value only known at run time (`{}` = `{}`), so what a \
                     later command runs cannot be checked. Write the command out; a person must approve it as it is.",
                    name.text(),
                    value.text()
                ),
            );
            return;
        };
        let n = n.trim_matches(['\'', '"']).to_string();
        if n.is_empty() {
            return;
        }
        let binding = if alias {
            Binding::Alias(v)
        } else {
            Binding::Program(v)
        };
        env.names.insert(n, binding);
    }

    pub(super) fn assignment(
        &mut self,
        a: &ast::Assignment,
        env: &mut Env,
        depth: u32,
    ) -> Option<(String, Field)> {
        // `BASH_CMDS[x]=/bin/rm` is `hash -p /bin/rm x`; `BASH_ALIASES[x]=rm`
        // is `alias x=rm` (review-s8 F2).
        let table = match &a.name {
            ast::AssignmentName::VariableName(n) | ast::AssignmentName::ArrayElementName(n, _)
                if matches!(n.as_str(), "BASH_CMDS" | "BASH_ALIASES") =>
            {
                Some((n.as_str(), n == "BASH_ALIASES"))
            }
            _ => None,
        };
        let value = match &a.value {
            ast::AssignmentValue::Scalar(w) => {
                let value = self.expand_word_unsplit(&w.value, env, depth);
                // The integer attribute belongs to the variable: an
                // element assignment `y[0]=V` evaluates V too (review s23 V18).
                if let ast::AssignmentName::VariableName(n)
                | ast::AssignmentName::ArrayElementName(n, _) = &a.name
                    && env.ints.contains(n)
                {
                    let e = env.clone();
                    let what = format!("the value given to `{n}` (declared `-i`)");
                    self.prove_arithmetic(&value, &e, &what);
                    // `x+=V` evaluates `x + (V)`: x's value too.
                    if a.append {
                        self.prove_arithmetic(&Field::lit(n.as_str()), &e, &what);
                    }
                }
                if let (Some((table, alias)), ast::AssignmentName::ArrayElementName(_, idx)) =
                    (table, &a.name)
                {
                    let key = self.expand_word_unsplit(idx, env, depth);
                    let value = if a.append {
                        dyn_field(&w.value)
                    } else {
                        value.clone()
                    };
                    self.bind_name(env, &key, &value, alias, &format!("{table}[…]="));
                } else if let ast::AssignmentName::ArrayElementName(n, idx) = &a.name {
                    self.subscript(n, idx, env, depth);
                }
                value
            }
            ast::AssignmentValue::Array(items) => {
                for (k, v) in items {
                    if let (None, Some(k), ast::AssignmentName::VariableName(n)) =
                        (table, k, &a.name)
                        && !env.assoc.contains(n)
                    {
                        self.arithmetic_text(
                            &k.value,
                            env,
                            depth,
                            &format!("the subscript of `{n}=([…]=…)`"),
                        );
                    }
                    let key = k
                        .as_ref()
                        .map(|k| self.expand_word_unsplit(&k.value, env, depth));
                    let value = self.expand_word_unsplit(&v.value, env, depth);
                    // `declare -i y; y=(V…)`: each V is arithmetic (review s23 V18).
                    if let ast::AssignmentName::VariableName(n)
                    | ast::AssignmentName::ArrayElementName(n, _) = &a.name
                        && env.ints.contains(n)
                    {
                        let e = env.clone();
                        let what = format!("a value of `{n}=(…)` (declared `-i`)");
                        self.prove_arithmetic(&value, &e, &what);
                    }
                    if let (Some((table, alias)), Some(key)) = (table, key) {
                        self.bind_name(env, &key, &value, alias, &format!("{table}=(…)"));
                    }
                }
                // Not followed: `$x` and `${x[@]}` are unknown values
                // (a command word made of them is judged as unknown).
                match &a.name {
                    ast::AssignmentName::VariableName(n)
                    | ast::AssignmentName::ArrayElementName(n, _) => dyn_field(&format!("${n}")),
                }
            }
        };
        match &a.name {
            ast::AssignmentName::VariableName(n) if !a.append => Some((n.clone(), value)),
            // `t=~/.bashr; t+=c` (review s24 S9): a string append to a
            // known scalar is the two texts joined, exactly as bash does;
            // an integer (`declare -i`, arithmetic), an associative array
            // or a value the walk does not hold stays unknown.
            ast::AssignmentName::VariableName(n)
                if matches!(a.value, ast::AssignmentValue::Scalar(_))
                    && !env.ints.contains(n)
                    && !env.assoc.contains(n)
                    && env.vars.contains_key(n) =>
            {
                let mut joined = env.vars[n].clone();
                for seg in value.segs {
                    match (joined.segs.last_mut(), seg) {
                        (
                            Some(Seg::Lit { text, quoted }),
                            Seg::Lit {
                                text: more,
                                quoted: q,
                            },
                        ) if *quoted == q => text.push_str(&more),
                        (_, seg) => joined.segs.push(seg),
                    }
                }
                Some((n.clone(), joined))
            }
            ast::AssignmentName::VariableName(n) => Some((n.clone(), dyn_field(&format!("${n}")))),
            ast::AssignmentName::ArrayElementName(n, _) => {
                Some((n.clone(), dyn_field(&format!("${n}"))))
            }
        }
    }

    /// The subscript of an assignment word `NAME[SUB]=…`: a key of an
    /// associative array (expanded), else arithmetic (review s22 V1).
    fn subscript(&mut self, name: &str, idx: &str, env: &mut Env, depth: u32) {
        if env.assoc.contains(name) {
            self.scan_substitutions(idx, env, depth);
        } else {
            self.arithmetic_text(idx, env, depth, &format!("the subscript of `{name}[…]=`"));
        }
    }

    /// What a process substitution's list prints. `>(bash)` reads what
    /// the command writes into it: a pipe from a producer the walk does
    /// not connect, held when a shell or interpreter runs it (review s25
    /// S3: `echo … > >(bash)`, `tee >(sh)`, `exec > >(bash)`).
    pub(crate) fn procsub_output(
        &mut self,
        kind: &ast::ProcessSubstitutionKind,
        sub: &ast::SubshellCommand,
        env: &mut Env,
        depth: u32,
    ) -> Output {
        let outer = self.unproven_pipe;
        self.unproven_pipe |= matches!(kind, ast::ProcessSubstitutionKind::Write);
        let out = self.subshell_output(&sub.list, env, depth + 1);
        self.unproven_pipe = outer;
        out
    }

    pub(super) fn process_substitution(
        &mut self,
        kind: &ast::ProcessSubstitutionKind,
        sub: &ast::SubshellCommand,
        env: &mut Env,
        depth: u32,
    ) -> Field {
        let mut e = env.clone();
        let out = self.procsub_output(kind, sub, &mut e, depth);
        let raw = match kind {
            ast::ProcessSubstitutionKind::Read => "<(…)",
            ast::ProcessSubstitutionKind::Write => ">(…)",
        };
        Field {
            segs: vec![Seg::Dyn {
                raw: raw.to_string(),
                out,
                quoted: false,
            }],
        }
    }

    /// Analyse the command substitutions in `text` (arithmetic, parameter
    /// defaults), ignoring its value.
    pub(crate) fn scan_substitutions(&mut self, text: &str, env: &mut Env, depth: u32) {
        if !(text.contains("$(") || text.contains('`') || text.contains("${")) {
            return;
        }
        let opts = syntax::parser_options();
        if let Ok(pieces) = brush_parser::word::parse(text, &opts) {
            let mut b = FieldBuilder::default();
            self.expand_pieces(&pieces, text, true, &mut b, env, depth);
        }
    }

    /// Shell arithmetic `expr` ran: the variables it assigns hold its
    /// result, an integer ([`arithmetic_assigns`]).
    pub(crate) fn arith_assign(&mut self, expr: &str, env: &mut Env) {
        arithmetic_assigns(expr, env);
        self.note_integer(&format!("$(({expr}))"));
    }
}
