//! Shell builtins that change the shell's own state: `cd`, `read`,
//! `declare`/`export`, `hash`, and splitting words as the shell does.

use super::*;

/// `unalias`: the aliases forgotten.
pub(super) fn unalias_builtin(args: &[Field], env: &mut Env) -> Output {
    for a in args {
        match a.text().as_str() {
            "-a" => env.names.retain(|_, b| !matches!(b, Binding::Alias(_))),
            t => {
                env.names.remove(t);
            }
        }
    }
    Output::Static(String::new())
}

impl Analysis<'_> {
    /// Split text into words the way the shell would (for `env -S`).
    pub(crate) fn split_words(&mut self, text: &str, env: &mut Env, depth: u32) -> Vec<Field> {
        match syntax::tokenize(text) {
            Ok(tokens) => tokens
                .iter()
                .filter_map(|t| match t {
                    brush_parser::Token::Word(w, _) => Some(w.clone()),
                    brush_parser::Token::Operator(..) => None,
                })
                .flat_map(|w| self.expand_word(&w, env, depth))
                .collect(),
            Err(_) => vec![dyn_field(text)],
        }
    }

    /// `hash -p PATH NAME…` makes each NAME run PATH (`-p` may be in a
    /// cluster, `-rp PATH`, or hold its value, `-pPATH`); `-r` forgets the
    /// table, `-d NAME` one entry (review-s8 F2).
    pub(super) fn hash_builtin(&mut self, args: &[Field], env: &mut Env) {
        let mut path: Option<Field> = None;
        let mut delete = false;
        let mut i = 0;
        while let Some(a) = args.get(i) {
            let t = a.text();
            i += 1;
            if t == "--" {
                break;
            }
            if !t.starts_with('-') || t.len() < 2 || a.is_dynamic() {
                i -= 1;
                break;
            }
            for (k, c) in t[1..].char_indices() {
                match c {
                    'r' => env.names.retain(|_, b| !matches!(b, Binding::Program(_))),
                    'd' => delete = true,
                    'p' => {
                        let rest = &t[2 + k..];
                        path = if rest.is_empty() {
                            i += 1;
                            args.get(i - 1).cloned()
                        } else {
                            Some(Field::lit(rest))
                        };
                        break;
                    }
                    _ => {}
                }
            }
        }
        for name in &args[i.min(args.len())..] {
            match &path {
                Some(p) => self.bind_name(env, name, p, false, "hash -p"),
                None if delete => {
                    env.names.remove(&name.text());
                }
                None => {}
            }
        }
    }

    pub(crate) fn change_dir(&mut self, target: Option<&Field>, env: &mut Env) {
        let new = match target {
            None => match &self.home {
                Some(h) => Cwd::Known(h.clone()),
                None => Cwd::Unknown,
            },
            Some(f) => match f.static_text() {
                Some(t) if t == "-" => Cwd::Unknown,
                Some(t) if t.starts_with('/') => Cwd::Known(crate::paths::normalize_abs(&t)),
                Some(t) if self.cd_is_searched(&t, env) => Cwd::Unknown,
                Some(t) => match &env.cwd {
                    Cwd::Known(c) => Cwd::Known(crate::paths::resolve(c, &t)),
                    Cwd::None if crate::paths::normalize_rel(&t).is_some() => Cwd::None,
                    _ => Cwd::Unknown,
                },
                None => match (f.segs.first(), &self.home) {
                    (Some(Seg::Home(None)), Some(h)) => {
                        let rest: String = f.segs[1..]
                            .iter()
                            .map(|s| match s {
                                Seg::Lit { text, .. } => text.clone(),
                                _ => "\u{0}".to_string(),
                            })
                            .collect();
                        if rest.contains('\u{0}') {
                            Cwd::Unknown
                        } else {
                            Cwd::Known(crate::paths::resolve(h, rest.trim_start_matches('/')))
                        }
                    }
                    _ => Cwd::Unknown,
                },
            },
        };
        env.cwd = new;
    }

    /// `read [-r] NAME… <<< TEXT`: the names take the words of the first
    /// line of a standard input the analysis knows (the last name the
    /// rest of the line). Returns false when it does not apply (unknown
    /// input, arrays, options it does not follow); the names then become
    /// unknown.
    pub(super) fn read_known_line(
        &mut self,
        args: &[Field],
        env: &mut Env,
        stdin: &Output,
    ) -> bool {
        let Output::Static(text) = stdin else {
            return false;
        };
        let mut raw = false;
        let mut names: Vec<String> = Vec::new();
        for a in args {
            let Some(t) = a.static_text() else {
                return false;
            };
            if t == "-r" {
                raw = true;
            } else if t.starts_with('-') || t.is_empty() {
                // `-a` (an array), `-d`, `-n`, `-p`, `-u`: not followed.
                return false;
            } else {
                names.push(t);
            }
        }
        if names.is_empty()
            || !names
                .iter()
                .all(|n| n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        {
            return false;
        }
        let line = text.lines().next().unwrap_or("");
        let line = if raw {
            line.to_string()
        } else {
            line.replace('\\', "")
        };
        let ifs = env.ifs();
        let mut rest = line.trim_matches(|c: char| ifs.contains(c));
        for (i, name) in names.iter().enumerate() {
            let value = if i + 1 == names.len() {
                rest.to_string()
            } else {
                let end = rest.find(|c: char| ifs.contains(c)).unwrap_or(rest.len());
                let (w, r) = rest.split_at(end);
                rest = r.trim_start_matches(|c: char| ifs.contains(c));
                w.to_string()
            };
            env.vars.insert(name.clone(), Field::lit(value));
        }
        true
    }

    pub(super) fn declare(&mut self, arg: &Field, env: &mut Env, unknown: bool) {
        let Some(Seg::Lit { text, .. }) = arg.segs.first() else {
            return;
        };
        let Some((name, first_value)) = text.split_once('=') else {
            return;
        };
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return;
        }
        if unknown {
            env.vars
                .insert(name.to_string(), dyn_field(&format!("${name}")));
            return;
        }
        let mut value = Field::lit(first_value);
        value.segs.extend(arg.segs[1..].iter().cloned());
        env.vars.insert(name.to_string(), value);
    }

    /// `printf`: its output when known, and `-v` assignments.
    pub(super) fn printf_builtin(&mut self, args: &[Field], env: &mut Env) -> Output {
        // `printf -v 'BASH_CMDS[x]' /bin/rm`: the hash table given
        // a value not followed (review-s8 F2).
        if args.first().is_some_and(|a| a.text() == "-v")
            && let Some(t) = args.get(1).filter(|t| {
                t.text().starts_with("BASH_CMDS[") || t.text().starts_with("BASH_ALIASES[")
            })
        {
            self.bind_name(env, &dyn_field(&t.text()), t, false, "printf -v");
        }
        let texts: Option<Vec<String>> = args.iter().map(Field::static_text).collect();
        match texts {
            Some(t) if t.first().is_some_and(|f| f == "-v") => {
                if let Some(var) = t.get(1) {
                    env.vars.insert(var.clone(), dyn_field(&format!("${var}")));
                }
                Output::Static(String::new())
            }
            Some(t) if !t.is_empty() => {
                let start = usize::from(t[0] == "--");
                match t.get(start) {
                    Some(fmt) => syntax::printf_output(fmt, &t[start + 1..])
                        .map_or(Output::Unknown, Output::Static),
                    None => Output::Static(String::new()),
                }
            }
            Some(_) => Output::Static(String::new()),
            None => fields_output(args, false),
        }
    }

    /// `export`, `declare`, `typeset`, `local`, `readonly`: the variables they set.
    pub(super) fn declare_builtin(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
    ) -> Output {
        // `declare -n r=x`: r names another variable (a nameref);
        // `-a`/`-A`: arrays. Their values are not followed.
        let unknown = name != "export"
            && args.iter().any(|a| {
                let t = a.text();
                t.starts_with(['-', '+']) && t[1..].contains(['n', 'a', 'A'])
            });
        let assigns = assignments_of(args);
        self.code_variables(&assigns, env, depth, Some(name));
        for a in args {
            self.declare(a, env, unknown);
        }
        Output::Static(String::new())
    }

    /// `unset`, `read`, `mapfile`, `readarray`: variables given values not followed.
    pub(super) fn unset_or_read(&mut self, name: &str, args: &[Field], env: &mut Env) -> Output {
        // `read 'BASH_CMDS[x]'`, `printf -v 'BASH_CMDS[x]' /bin/rm`:
        // the hash table or the aliases given a value not followed.
        let table = args
            .iter()
            .find(|a| a.text().starts_with("BASH_CMDS[") || a.text().starts_with("BASH_ALIASES["));
        if name != "unset"
            && let Some(t) = table
        {
            self.bind_name(env, &dyn_field(&t.text()), t, false, name);
        }
        for a in args {
            let t = a.text();
            if !t.starts_with('-') {
                env.vars.insert(t.clone(), dyn_field(&format!("${t}")));
            }
        }
        Output::Static(String::new())
    }

    /// `alias`: each value is judged as a script and remembered for later commands.
    pub(super) fn alias_builtin(&mut self, args: &[Field], env: &mut Env, depth: u32) -> Output {
        for a in args {
            if let Some(text) = a.static_text()
                && let Some((name, value)) = text.split_once('=')
            {
                let mut e = env.clone();
                self.script(value, &mut e, depth + 1, &Output::Unknown);
                // Remembered: a later `NAME …` runs VALUE (review-s8 F2).
                self.bind_name(env, &Field::lit(name), &Field::lit(value), true, "alias");
            } else if let Some((name, _)) = a.text().split_once('=') {
                self.bind_name(env, &Field::lit(name), a, true, "alias");
            }
        }
        Output::Static(String::new())
    }

    /// `trap`: the handler runs as a script.
    pub(super) fn trap_builtin(&mut self, args: &[Field], env: &mut Env, depth: u32) -> Output {
        let positional: Vec<&Field> = args.iter().filter(|a| !a.text().starts_with('-')).collect();
        if positional.len() >= 2 {
            self.run_script_field(positional[0], env, depth, &Output::Unknown, "trap");
        }
        Output::Static(String::new())
    }
}
