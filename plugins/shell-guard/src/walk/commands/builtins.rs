//! Shell builtins that change the shell's own state: `cd`, `read`,
//! `declare`/`export`, `hash`, and splitting words as the shell does.

use super::*;

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
}
