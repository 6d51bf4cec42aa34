//! Shell function definitions and their calls: a function that starts
//! copies of itself in the background or in a pipeline (a fork bomb) is
//! denied; otherwise the body is judged once where it is defined, with
//! the redirections every call applies, and the names it rebinds hold
//! for the caller. A call of a defined function then applies its
//! [`FunctionEffects`] to the caller's shell ([`function_effects`],
//! [`apply_unknown`]), with the prefix assignments that outlive a call.

use super::*;

impl Analysis<'_> {
    pub(super) fn function_definition(
        &mut self,
        fd: &ast::FunctionDefinition,
        env: &mut Env,
        depth: u32,
    ) {
        self.functions_defined = true;
        let name = fd.fname.value.clone();
        let mut calls = SelfCalls::default();
        calls.compound(&fd.body.0, &name, false);
        if calls.risky > 0 {
            self.report(
                true,
                "shell.fork-bomb",
                format!(
                    "The function `{name}` starts copies of itself in the background or in a pipeline: \
                     a fork bomb that exhausts the machine's processes. Do not run it; write a bounded loop instead."
                ),
            );
            return;
        }
        // The body is analysed where it is defined, once, with the
        // redirections every call applies (`f() { cat; } < KEY`).
        let mut body = env.clone();
        let stdin = match &fd.body.1 {
            Some(r) => self.redirects(&r.0, &mut body, depth, &Output::Unknown, Some(&name)),
            None => Output::Unknown,
        };
        let out = self.compound(&fd.body.0, &mut body, depth, &stdin);
        // `f() { echo …; } > F`: every call writes F (review s10 H22).
        if let Some(r) = &fd.body.1
            && !self.done()
        {
            self.redirect_writes(&r.0, &mut body, depth, &out);
        }
        // A name the body rebinds (`f() { hash -p /bin/rm x; }; f; x …`)
        // is rebound in the caller's shell once it is called.
        for (k, b) in &body.names {
            if env.names.get(k) != Some(b) {
                env.names.insert(k.clone(), b.clone());
            }
        }
        for (k, f) in &body.functions {
            if env.functions.get(k) != Some(f) {
                env.functions.insert(k.clone(), f.clone());
            }
        }
        let effects = function_effects(&fd.body.0.to_string(), env, &body);
        env.functions.insert(name, effects);
    }

    /// The shell state a simple command named `name` leaves behind beyond
    /// what its handler modelled (review s23 V5): `NAME=V export|readonly
    /// NAME` keeps V; before another special builtin or a function call
    /// the prefix assignments persist in POSIX mode, so they become
    /// unknown; a call of a function defined in the command applies its
    /// [`FunctionEffects`]: its body walked again from the caller's state
    /// gives the variables (and cwd) it leaves, unless it may declare
    /// its own variables or assign unknown ones (then they are unknown).
    pub(super) fn after_command(
        &mut self,
        name: Option<&str>,
        prefix: Vec<(String, Field)>,
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) {
        let Some(name) = name else {
            return;
        };
        let function = env.functions.get(name).cloned();
        for (n, v) in prefix {
            if matches!(name, "export" | "readonly") {
                env.assign(n, v);
            } else if function.is_some() || SPECIAL_BUILTINS.contains(&name) {
                env.forget(&n);
            }
        }
        let Some(f) = function else {
            return;
        };
        if depth >= self.opts.max_depth {
            apply_unknown(&f, env);
            return;
        }
        let mut call = env.clone();
        // A recursive call inside is not followed again.
        call.functions.remove(name);
        // The body runs here, in the caller's cwd and variables: judged
        // again in this state at every call (review s24 S2), whatever it
        // declares.
        // Its standard input is the call's (review s25 S25: `f() { bash;
        // }; f <<< TEXT`).
        self.script(&f.body, &mut call, depth + 1, stdin);
        if f.all_vars || f.scoped {
            // Its variables may be its own (`local`, `declare`), restored
            // on return, or not known: what it may assign is unknown.
            // The directory is not scoped: the call leaves it where the
            // walk of the body from here did.
            let cwd = if f.cwd && call.cwd == env.cwd {
                Cwd::Unknown
            } else {
                call.cwd.clone()
            };
            apply_unknown(&f, env);
            env.cwd = cwd;
            if call.forgotten > env.forgotten {
                env.forget_vars();
            }
            env.absorb_files(&call);
            return;
        }
        let mut changed: Vec<String> = call
            .vars
            .iter()
            .filter(|(k, v)| env.vars.get(*k) != Some(*v))
            .map(|(k, _)| k.clone())
            .chain(f.vars.iter().cloned())
            .collect();
        changed.sort();
        changed.dedup();
        for v in changed {
            match call.vars.get(&v) {
                Some(value) => env.assign(v, value.clone()),
                None => env.forget(&v),
            }
        }
        if call.forgotten > env.forgotten {
            env.forget_vars();
        }
        env.cwd = if f.cwd && call.cwd == env.cwd {
            Cwd::Unknown
        } else {
            call.cwd.clone()
        };
        env.absorb_files(&call);
    }
}

/// What a call of a function whose body, `text`, was walked from `env`
/// into `body` does to the caller's shell (review s23 V5): the variables
/// the walk saw it change, and every variable the text names (a body may
/// give one the value it already had when defined, and another when
/// called); all of them when it made every variable unknown; the cwd
/// when it changed it.
pub(crate) fn function_effects(text: &str, env: &Env, body: &Env) -> FunctionEffects {
    let mut vars: Vec<String> = body
        .vars
        .iter()
        .filter(|(k, v)| env.vars.get(*k) != Some(*v))
        .map(|(k, _)| k.clone())
        .collect();
    vars.extend(
        env.vars
            .keys()
            .filter(|k| names_identifier(text, k))
            .cloned(),
    );
    vars.sort();
    vars.dedup();
    FunctionEffects {
        vars,
        all_vars: body.forgotten > env.forgotten || !body.namerefs.is_subset(&env.namerefs),
        cwd: body.cwd != env.cwd,
        body: text.to_string(),
        scoped: ["local", "declare", "typeset"]
            .iter()
            .any(|w| names_identifier(text, w)),
    }
}

/// The state a function or trap handler may change, made unknown.
pub(crate) fn apply_unknown(f: &FunctionEffects, env: &mut Env) {
    for v in &f.vars {
        env.forget(v);
    }
    if f.all_vars {
        env.forget_vars();
    }
    if f.cwd {
        env.cwd = Cwd::Unknown;
    }
}

/// Whether `text` holds `name` as a whole identifier.
fn names_identifier(text: &str, name: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(name).any(|(i, _)| {
        !text[..i].chars().next_back().is_some_and(ident)
            && !text[i + name.len()..].chars().next().is_some_and(ident)
    })
}

/// Counts calls of a function from inside its own body.
#[derive(Default)]
struct SelfCalls {
    /// Self-calls in the background or in a multi-stage pipeline.
    risky: usize,
}

impl SelfCalls {
    fn compound(&mut self, cc: &ast::CompoundCommand, name: &str, risky: bool) {
        use ast::CompoundCommand as C;
        match cc {
            C::BraceGroup(g) => self.list(&g.list, name, risky),
            C::Subshell(s) => self.list(&s.list, name, risky),
            C::ForClause(f) => self.list(&f.body.list, name, risky),
            C::ArithmeticForClause(f) => self.list(&f.body.list, name, risky),
            C::WhileClause(w) | C::UntilClause(w) => {
                self.list(&w.0, name, risky);
                self.list(&w.1.list, name, risky);
            }
            C::IfClause(i) => {
                self.list(&i.condition, name, risky);
                self.list(&i.then, name, risky);
                for e in i.elses.iter().flatten() {
                    if let Some(c) = &e.condition {
                        self.list(c, name, risky);
                    }
                    self.list(&e.body, name, risky);
                }
            }
            C::CaseClause(c) => {
                for item in &c.cases {
                    if let Some(l) = &item.cmd {
                        self.list(l, name, risky);
                    }
                }
            }
            C::Coprocess(c) => self.command(&c.body, name, true),
            C::Arithmetic(_) => {}
        }
    }

    fn list(&mut self, list: &ast::CompoundList, name: &str, risky: bool) {
        for ast::CompoundListItem(aol, sep) in &list.0 {
            let bg = risky || matches!(sep, ast::SeparatorOperator::Async);
            for p in std::iter::once(&aol.first).chain(aol.additional.iter().map(|a| match a {
                ast::AndOr::And(p) | ast::AndOr::Or(p) => p,
            })) {
                let piped = bg || p.seq.len() > 1;
                for c in &p.seq {
                    self.command(c, name, piped);
                }
            }
        }
    }

    fn command(&mut self, c: &ast::Command, name: &str, risky: bool) {
        match c {
            ast::Command::Simple(sc) => {
                if risky && sc.word_or_name.as_ref().is_some_and(|w| w.value == name) {
                    self.risky += 1;
                }
            }
            ast::Command::Compound(cc, _) => self.compound(cc, name, risky),
            ast::Command::Function(_) | ast::Command::ExtendedTest(..) => {}
        }
    }
}
