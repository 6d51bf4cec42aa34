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

    /// `cd [-L|-P|-e|-@]… [DIR]`, `pushd [-n] [DIR|+N|-N]` (review s23
    /// R11): the walk follows only `cd`/`pushd` to one operand after the
    /// options it knows ([`Analysis::change_dir`]); any other option, a
    /// stack rotation (`pushd +1`, `pushd` alone), `pushd -n` (the stack
    /// only) or more operands leave the cwd unknown.
    pub(super) fn cd_builtin(&mut self, name: &str, args: &[Field], env: &mut Env) {
        let mut operands: Vec<&Field> = Vec::new();
        let mut options = true;
        for a in args {
            let t = a.text();
            if options && t == "--" {
                options = false;
            } else if options
                && t.len() > 1
                && t.starts_with('-')
                && !a.is_dynamic()
                && t[1..].chars().all(|c| matches!(c, 'L' | 'P' | 'e' | '@'))
            {
            } else {
                operands.push(a);
                options = false;
            }
        }
        let rotates = |f: &Field| {
            let t = f.text();
            t.len() > 1
                && t.starts_with(['+', '-'])
                && (f.is_dynamic() || t[1..].chars().all(|c| c.is_ascii_digit()))
        };
        let known = match (name, operands.as_slice()) {
            ("cd", [] | [_]) => true,
            ("pushd", [one]) => !rotates(one) && !one.text().starts_with('-'),
            _ => false,
        };
        if known {
            self.change_dir(operands.first().copied(), env);
        } else {
            self.change_dir_unknown(env);
        }
    }

    /// The cwd is somewhere the walk cannot place; `OLDPWD` is the old one.
    pub(crate) fn change_dir_unknown(&mut self, env: &mut Env) {
        set_oldpwd(env);
        env.cwd = Cwd::Unknown;
    }

    /// Change the cwd as bash does for `cd TARGET` (home when `None`):
    /// an absolute directory, or one relative to a known cwd when `CDPATH`
    /// does not search it; `-` goes to a known `OLDPWD`. Anything else
    /// leaves the cwd unknown. `OLDPWD` becomes the old cwd either way.
    pub(crate) fn change_dir(&mut self, target: Option<&Field>, env: &mut Env) {
        let target = match target.and_then(Field::static_text).as_deref() {
            Some("-") => match env.vars.get("OLDPWD").and_then(Field::static_text) {
                Some(old) if old.starts_with('/') => Some(Field::lit(old)),
                _ => Some(dyn_field("$OLDPWD")),
            },
            _ => target.cloned(),
        };
        set_oldpwd(env);
        // `shopt -s nullglob`: a glob naming nothing vanishes, and `cd`
        // with no operand goes home (review s25 S21).
        if env.may_set("nullglob") && target.as_ref().is_some_and(|t| t.first_glob().is_some()) {
            self.change_dir_to(target.as_ref(), env);
            if let Some(h) = &self.home {
                env.cwd = env.cwd.or(&Cwd::Known(h.clone()));
            } else {
                env.cwd = Cwd::Unknown;
            }
            return;
        }
        // A loop's variable over a glob: each word (review s25 S1, S22).
        if let Some(alts) = target.as_ref().and_then(|t| env.loop_alternatives(t)) {
            let mut cwd: Option<Cwd> = None;
            for a in alts {
                let mut e = env.clone();
                self.change_dir_to(Some(&a), &mut e);
                cwd = Some(match cwd {
                    Some(c) => c.or(&e.cwd),
                    None => e.cwd,
                });
            }
            env.cwd = cwd.unwrap_or(Cwd::Unknown);
            return;
        }
        self.change_dir_to(target.as_ref(), env);
    }

    fn change_dir_to(&mut self, target: Option<&Field>, env: &mut Env) {
        // A `cd` may fail (review s24 S4) unless its directory is sure to
        // exist: one above the cwd (`..`, `/`), the home, the workspace or
        // a directory above it, an operating-system directory (`/etc`).
        let above_cwd = target.is_some_and(|f| {
            f.static_text()
                .is_some_and(|t| t.split('/').all(|c| matches!(c, "" | "." | "..")))
        });
        let above = |dir: &str, p: &str| crate::paths::is_at_or_under(dir, p);
        let new = match target {
            // `HOME=…` in the command: bare `cd` goes there (review s25 S24).
            None => match env.vars.get("HOME").map(Field::static_text) {
                Some(Some(h)) if h.starts_with('/') => Cwd::Known(crate::paths::normalize_abs(&h)),
                Some(_) => Cwd::Unknown,
                None => match &self.home {
                    Some(h) => Cwd::Known(h.clone()),
                    None => Cwd::Unknown,
                },
            },
            Some(f) => match f.static_text() {
                Some(t) if t.starts_with('/') => Cwd::Known(crate::paths::normalize_abs(&t)),
                Some(t) if self.cd_is_searched(&t, env) => self.cd_search_places(&t, env),
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
        let sure = target.is_none()
            || above_cwd
            || match &new {
                Cwd::Known(p) => {
                    self.home.as_deref().is_some_and(|h| above(h, p))
                        || self.workspace.iter().any(|w| above(w, p))
                        || crate::paths::SYSTEM_TREES.contains(&p.as_str())
                        || crate::paths::SYSTEM_DIRS.contains(&p.as_str())
                }
                _ => false,
            };
        self.cd_may_fail |= !sure;
        env.cwd = new;
    }

    /// Where `cd T` may go when `CDPATH` or `cdable_vars` searches it
    /// (review s25 S22): each directory of a known `CDPATH` (the cwd for
    /// an empty entry or `.`), the cwd itself, and the value of the
    /// variable `T` names under `cdable_vars`; unknown when any of them is.
    fn cd_search_places(&self, t: &str, env: &Env) -> Cwd {
        let Cwd::Known(cwd) = &env.cwd else {
            return Cwd::Unknown;
        };
        let mut places = vec![crate::paths::resolve(cwd, t)];
        if let Some(v) = env.vars.get("CDPATH") {
            let Some(text) = v.static_text() else {
                return Cwd::Unknown;
            };
            for d in text.split(':') {
                let base = match d {
                    "" | "." | "./" => cwd.clone(),
                    d if d.starts_with('/') => crate::paths::normalize_abs(d),
                    d => crate::paths::resolve(cwd, d),
                };
                places.push(crate::paths::resolve(&base, t));
            }
        }
        if env.cdable_vars {
            let first = t.split('/').next().unwrap_or("");
            if !first.is_empty()
                && !first.starts_with(|c: char| c.is_ascii_digit())
                && first.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                match env.vars.get(first).map(|v| (v.static_text(), v)) {
                    // Unset: `cd c` does not go through it.
                    None if !matches!(first, "HOME" | "PWD" | "OLDPWD") => {}
                    Some((Some(value), _)) if value.starts_with('/') => {
                        let rest = &t[first.len()..];
                        places.push(crate::paths::resolve(
                            &crate::paths::normalize_abs(&value),
                            rest.trim_start_matches('/'),
                        ));
                    }
                    _ => return Cwd::Unknown,
                }
            }
        }
        Cwd::from_places(places)
    }

    /// Builtins that run text as code (review s25 S5, S7): `fc` re-runs
    /// (or edits and runs) history entries, held unless it only lists
    /// (`-l`); `history -s TEXT` stores the entry a later `fc -s` runs,
    /// judged as a command; `compgen`/`complete -C CMD` run CMD and
    /// `-W LIST` is expanded (its command substitutions run).
    pub(crate) fn history_and_completion(
        &mut self,
        name: &str,
        args: &[Field],
        env: &Env,
        depth: u32,
    ) {
        match name {
            "fc" => {
                let lists = args
                    .iter()
                    .map(Field::text)
                    .take_while(|t| t.starts_with('-') && t != "--")
                    .any(|t| t[1..].contains('l'));
                if !lists {
                    self.report(
                        false,
                        "shell.eval-dynamic",
                        "`fc` runs commands from the shell's history (`fc -s`, `fc -e`), text this check                          cannot follow. Run the commands directly; a person must approve it as it is.",
                    );
                }
            }
            "history" => {
                if args.first().is_some_and(|a| a.text() == "-s") {
                    let text = args[1..]
                        .iter()
                        .map(Field::text)
                        .collect::<Vec<_>>()
                        .join(" ");
                    let mut e = env.clone();
                    self.script(&text, &mut e, depth + 1, &Output::Unknown);
                } else if args.first().is_some_and(|a| a.text().starts_with("-r")) {
                    self.report(
                        false,
                        "shell.eval-dynamic",
                        "`history -r` loads commands a later `fc` may run, from a file this check does not                          read. A person must approve it as it is.",
                    );
                }
            }
            _ => {
                let mut i = 0;
                while let Some(a) = args.get(i) {
                    let t = a.text();
                    i += 1;
                    if t == "--" || !t.starts_with('-') {
                        break;
                    }
                    let (opt, value) = match t.as_str() {
                        "-C" | "-W" => (t.clone(), args.get(i).cloned()),
                        _ if t.starts_with("-C") || t.starts_with("-W") => {
                            (t[..2].to_string(), Some(Field::lit(&t[2..])))
                        }
                        _ => continue,
                    };
                    if value.is_some() && (t == "-C" || t == "-W") {
                        i += 1;
                    }
                    let Some(v) = value else { continue };
                    let mut e = env.clone();
                    match (opt.as_str(), v.static_text()) {
                        ("-C", Some(cmd)) => {
                            self.script(&cmd, &mut e, depth + 1, &Output::Unknown);
                        }
                        ("-W", Some(list)) => self.scan_substitutions(&list, &mut e, depth + 1),
                        _ => self.report(
                            false,
                            "shell.eval-dynamic",
                            format!(
                                "`{name} {opt}` runs or expands `{}`, whose text is only known at run time. \
                                 A person must approve it as it is.",
                                v.text()
                            ),
                        ),
                    }
                }
            }
        }
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
        // `IFS=: read a b`: the IFS in front of `read` splits the line, a
        // value the walk does not hold here; the names become unknown
        // rather than split on the shell's IFS (review s24 S9).
        if self.command_vars.iter().any(|v| v == "IFS") {
            return false;
        }
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
            env.assign(name.clone(), Field::lit(value));
        }
        true
    }

    /// One operand of a declaration builtin: `NAME=VALUE` gives NAME the
    /// value (unknown when `unknown`: arrays, namerefs); `NAME[SUB]=…`
    /// makes NAME unknown; a name only known at run time (`declare
    /// "$n=…"`) makes every variable unknown (review s23 V5). `NAME` alone
    /// keeps its value.
    pub(super) fn declare(&mut self, arg: &Field, env: &mut Env, unknown: bool) {
        let Some(Seg::Lit { text, .. }) = arg.segs.first() else {
            env.forget_vars();
            return;
        };
        let ident =
            |n: &str| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        let Some((name, first_value)) = text.split_once('=') else {
            if !ident(text) && !text.starts_with(['-', '+']) {
                env.forget_vars();
            }
            return;
        };
        if !ident(name) {
            match name.split_once('[') {
                Some((base, _)) if ident(base) => env.forget(base),
                _ => env.forget_vars(),
            }
            return;
        }
        if unknown {
            env.forget(name);
            return;
        }
        let mut value = Field::lit(first_value);
        value.segs.extend(arg.segs[1..].iter().cloned());
        env.assign(name.to_string(), value);
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
            // `printf -v NAME FORMAT ARGS…` of known text assigns its
            // output (review s23 W1).
            Some(t) if t.first().is_some_and(|f| f == "-v") => {
                if let Some(var) = t.get(1) {
                    let start = 2 + usize::from(t.get(2).is_some_and(|f| f == "--"));
                    let out = t
                        .get(start)
                        .and_then(|fmt| syntax::printf_output(fmt, &t[start + 1..]));
                    match out {
                        Some(text)
                            if !env.namerefs.contains(var)
                                && !env.ints.contains(var)
                                && var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
                        {
                            env.assign(var.clone(), Field::lit(text));
                        }
                        _ => self.forget_named(&Field::lit(var), env),
                    }
                }
                Output::Static(String::new())
            }
            None if args.first().is_some_and(|a| a.text() == "-v") => {
                if let Some(var) = args.get(1) {
                    self.forget_named(var, env);
                }
                Output::Unknown
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

    /// `export`, `declare`, `typeset`, `local`, `readonly`: the variables
    /// they set. Option words (`-x`, `-gx`, `+x`, clusters) come first,
    /// up to `--` or the first operand; `-n` (nameref), `-a`/`-A` (arrays)
    /// give values the walk does not follow; `-f`/`-F` name functions.
    pub(super) fn declare_builtin(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
    ) -> Output {
        let mut letters = String::new();
        let mut operands = 0;
        for a in args {
            let t = a.text();
            if t == "--" {
                operands += 1;
                break;
            }
            if t.len() > 1 && t.starts_with(['-', '+']) && !a.is_dynamic() {
                if let Some(l) = t.strip_prefix('-') {
                    letters.push_str(l);
                }
                operands += 1;
            } else {
                break;
            }
        }
        let assigns = assignments_of(&args[operands..]);
        self.code_variables(&assigns, env, depth, Some(name));
        if letters.contains(['f', 'F']) {
            return Output::Static(String::new());
        }
        let unknown = name != "export" && letters.contains(['n', 'a', 'A']);
        for a in &args[operands..] {
            if letters.contains('n')
                && let Some(n) = a.text().split('=').next()
            {
                env.namerefs.insert(n.to_string());
            }
            self.declare(a, env, unknown);
        }
        Output::Static(String::new())
    }

    /// `unset`, `read`, `mapfile`, `readarray`: the variables they name
    /// are unknown afterwards (values not followed); `unset` of a nameref
    /// unsets what it names. Option values (`read -p PROMPT`, `-d DELIM`,
    /// `mapfile -C CALLBACK`) are not names. A name only known at run
    /// time makes every variable unknown (review s23 V5).
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
        // Options taking a value, per builtin.
        let valued: &[char] = match name {
            "read" => &['a', 'd', 'i', 'n', 'N', 'p', 't', 'u'],
            "mapfile" | "readarray" => &['d', 'n', 'O', 's', 'u', 'C', 'c'],
            _ => &[],
        };
        let mut named: Vec<&Field> = Vec::new();
        let mut i = 0;
        let mut options = true;
        while let Some(a) = args.get(i) {
            i += 1;
            let t = a.text();
            if options && t == "--" {
                options = false;
                continue;
            }
            if options && t.len() > 1 && t.starts_with('-') && !a.is_dynamic() {
                if let Some((k, c)) = t[1..].char_indices().find(|(_, c)| valued.contains(c)) {
                    let value = if k + 2 < t.len() {
                        Some(Field::lit(&t[k + 2..]))
                    } else {
                        i += 1;
                        args.get(i - 1).cloned()
                    };
                    // `read -a NAME`: the value is the array's name.
                    if c == 'a'
                        && let Some(v) = value
                    {
                        self.forget_named(&v, env);
                    }
                }
                continue;
            }
            named.push(a);
        }
        if named.is_empty() && matches!(name, "read" | "mapfile" | "readarray") {
            let default = if name == "read" { "REPLY" } else { "MAPFILE" };
            env.forget(default);
        }
        for a in named {
            if name == "unset" && env.namerefs.contains(&a.text()) {
                env.forget_vars();
            }
            self.forget_named(a, env);
        }
        Output::Static(String::new())
    }

    /// The variable a builtin's operand names is unknown from here on; a
    /// name only known at run time makes every variable unknown.
    fn forget_named(&mut self, operand: &Field, env: &mut Env) {
        let t = operand.text();
        let base = t.split('[').next().unwrap_or("");
        if operand.is_dynamic()
            || base.is_empty()
            || !base.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            || env.namerefs.contains(base)
        {
            env.forget_vars();
        } else {
            env.forget(base);
        }
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
            // What the handler may assign or where it may `cd`, unknown
            // before every later command (review s23 V5).
            // The handler runs later, in the state of that moment: judged
            // again at every later command boundary (review s24 S1).
            if let Some(text) = positional[0].static_text() {
                let d = crate::walk::Deferred::Script(text);
                if !env.deferred.contains(&d) {
                    env.deferred.push(d);
                }
            }
            let effects = match positional[0].static_text() {
                Some(text) => {
                    let mut e = env.clone();
                    self.script(&text, &mut e, depth + 1, &Output::Unknown);
                    let mut effects = crate::walk::function_effects(&text, env, &e);
                    self.trap_assigns(&text, env, depth, &mut effects);
                    effects
                }
                None => crate::walk::FunctionEffects {
                    all_vars: true,
                    cwd: true,
                    ..crate::walk::FunctionEffects::default()
                },
            };
            if effects.all_vars || effects.cwd || !effects.vars.is_empty() {
                crate::walk::apply_unknown(&effects, env);
                env.traps.push(effects);
            }
        }
        Output::Static(String::new())
    }
}

impl Analysis<'_> {
    /// Narrows the variables a trap handler may assign to those it is
    /// proven to (review s24 S1): the handler is walked from a state
    /// where each variable it names holds a value of its own; one still
    /// holding it afterwards is never assigned on any path the walk
    /// models (every other assignment makes it unknown). Its findings
    /// there are not the command's; a walk cut short by a deny or the
    /// step limit proves nothing.
    fn trap_assigns(
        &mut self,
        text: &str,
        env: &Env,
        depth: u32,
        effects: &mut crate::walk::FunctionEffects,
    ) {
        if effects.all_vars || effects.vars.is_empty() || self.done() {
            return;
        }
        let probe_value = |v: &str| Field::lit(format!("toolvet-probe-{v}"));
        let mut probe = env.clone();
        for v in &effects.vars {
            probe.assign(v.clone(), probe_value(v));
        }
        let saved = self.best.take();
        let steps = self.steps;
        let in_deferred = std::mem::replace(&mut self.in_deferred, true);
        self.script(text, &mut probe, depth + 1, &Output::Unknown);
        let cut = self.done() || self.steps >= crate::walk::MAX_STEPS;
        self.best = saved;
        self.steps = steps;
        self.in_deferred = in_deferred;
        if cut || probe.forgotten > env.forgotten {
            return;
        }
        effects
            .vars
            .retain(|v| probe.vars.get(v) != Some(&probe_value(v)));
    }
}

/// `OLDPWD` holds the cwd being left (unknown when the cwd is).
fn set_oldpwd(env: &mut Env) {
    match &env.cwd {
        Cwd::Known(c) => {
            let c = c.clone();
            env.assign("OLDPWD".to_string(), Field::lit(c));
        }
        _ => env.forget("OLDPWD"),
    }
}
