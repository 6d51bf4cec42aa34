//! Command-line tools run through an interpreter (review s12 L8, L9):
//! Python's standard-library modules run with `-m MODULE` (`python3 -m
//! sqlite3 FILE SQL`, `-m zipfile -e ARCHIVE DIR`, `-m tarfile -c OUT …`,
//! `-m gzip FILE`, `-m json.tool IN OUT`) and Ruby's `un.rb` (`ruby -run
//! -e cp -- SRC DEST`) are the file tools they stand in for. Each is read
//! through one table ([`MODULES`]) into the effects of that tool: the
//! equivalent command, judged by the same rules (`sqlite3` on the ledger,
//! `unzip -d`/`tar -x -C` writing files of unknown names into a directory
//! holding toolvet's state), and the files it writes that the equivalent
//! command would not name.

use crate::syntax::{Field, Output, Seg};
use crate::walk::commands::is_interpreter;
use crate::walk::{Analysis, Env};

/// What a module run from the command line does, in terms of commands
/// the analysis knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// The same as running this command with these words.
    As(String, Vec<Field>),
    /// Writes this file (named by the module from its operands).
    Writes(Field),
    /// Writes files of names it does not give into this directory (a
    /// virtual environment, packages installed with `--target`).
    Fills(Field),
}

/// How one module's words turn into [`Effect`]s.
type Reader = fn(&[Field]) -> Vec<Effect>;

/// Python standard-library modules with a command line that writes files.
/// A module not listed here is judged as before (its name is the
/// program; nothing is written the analysis can name).
const MODULES: &[(&str, Reader)] = &[
    ("sqlite3", sqlite3_cli),
    ("zipfile", zipfile_cli),
    ("tarfile", tarfile_cli),
    ("gzip", gzip_cli),
    ("json.tool", json_tool_cli),
    // Python 3.14: `python -m json` is `json.tool`.
    ("json", json_tool_cli),
    ("venv", venv_cli),
    ("virtualenv", venv_cli),
    ("pip", pip_cli),
    ("ensurepip", ensurepip_cli),
];

/// `un.rb` commands (`ruby -run -e NAME -- ARGS`) that are the shell
/// command of the same name.
const RUBY_UN: &[&str] = &[
    "cp", "ln", "mv", "rm", "rmdir", "mkdir", "install", "chmod", "touch",
];

/// The options of a module's command line (argparse: a long option may be
/// abbreviated to any unambiguous prefix) split from its operands. `long`:
/// the module's long options and their short letter (or `' '`), each with
/// whether it takes a value.
fn parse<'a>(args: &'a [Field], long: &[(&str, char, bool)]) -> (Vec<char>, Vec<&'a Field>) {
    let mut opts = Vec::new();
    let mut operands = Vec::new();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let t = a.text();
        i += 1;
        if t == "--" {
            operands.extend(args[i..].iter());
            break;
        }
        if let Some(name) = t.strip_prefix("--") {
            let name = name.split('=').next().unwrap_or(name);
            let hits: Vec<_> = long
                .iter()
                .filter(|(l, _, _)| !name.is_empty() && l.starts_with(name))
                .collect();
            // An exact name wins over longer names it begins.
            let hit = hits
                .iter()
                .find(|(l, _, _)| *l == name)
                .or_else(|| (hits.len() == 1).then(|| &hits[0]));
            if let Some((_, letter, value)) = hit {
                opts.push(*letter);
                if *value && !t.contains('=') {
                    i += 1;
                }
            }
            continue;
        }
        if t.len() > 1 && t.starts_with('-') {
            // A cluster of short flags (`-ve`); one taking a value ends it.
            for c in t[1..].chars() {
                opts.push(c);
                if long.iter().any(|(_, l, v)| *l == c && *v) {
                    if t.ends_with(c) {
                        i += 1;
                    }
                    break;
                }
            }
            continue;
        }
        operands.push(a);
    }
    (opts, operands)
}

fn owned(fields: &[&Field]) -> Vec<Field> {
    fields.iter().map(|f| (*f).clone()).collect()
}

/// `python -m sqlite3 [-h] [-v] [FILE] [SQL]`: the `sqlite3` shell
/// without a read-only flag (SQL on standard input too).
fn sqlite3_cli(args: &[Field]) -> Vec<Effect> {
    let (_, operands) = parse(args, &[("help", 'h', false), ("version", 'v', false)]);
    vec![Effect::As("sqlite3".into(), owned(&operands))]
}

/// `python -m zipfile -e ZIP DIR` (`unzip ZIP -d DIR`), `-c OUT SRC…`
/// (writes OUT, reads each SRC whole, `zip -r OUT SRC…`).
fn zipfile_cli(args: &[Field]) -> Vec<Effect> {
    let (opts, ops) = parse(
        args,
        &[
            ("list", 'l', false),
            ("extract", 'e', false),
            ("create", 'c', false),
            ("test", 't', false),
            ("metadata-encoding", ' ', true),
        ],
    );
    let mut out = Vec::new();
    if opts.contains(&'e')
        && let [archive, dir, ..] = ops.as_slice()
    {
        out.push(Effect::As(
            "unzip".into(),
            vec![(*archive).clone(), Field::lit("-d"), (*dir).clone()],
        ));
    }
    if opts.contains(&'c')
        && let Some((target, sources)) = ops.split_first()
    {
        out.push(Effect::Writes((*target).clone()));
        let mut words = vec![Field::lit("-r"), (*target).clone()];
        words.extend(owned(sources));
        out.push(Effect::As("zip".into(), words));
    }
    out
}

/// `python -m tarfile -e TAR [DIR]` (`tar -x -f TAR -C DIR`, DIR `.` when
/// not given), `-c OUT SRC…` (writes OUT, `tar -c -f OUT SRC…`).
fn tarfile_cli(args: &[Field]) -> Vec<Effect> {
    let (opts, ops) = parse(
        args,
        &[
            ("verbose", 'v', false),
            ("filter", ' ', true),
            ("list", 'l', false),
            ("extract", 'e', false),
            ("create", 'c', false),
            ("test", 't', false),
        ],
    );
    let mut out = Vec::new();
    if opts.contains(&'e')
        && let Some(archive) = ops.first()
    {
        let dir = ops.get(1).map_or_else(|| Field::lit("."), |d| (*d).clone());
        out.push(Effect::As(
            "tar".into(),
            vec![
                Field::lit("-x"),
                Field::lit("-f"),
                (*archive).clone(),
                Field::lit("-C"),
                dir,
            ],
        ));
    }
    if opts.contains(&'c')
        && let Some((target, sources)) = ops.split_first()
    {
        out.push(Effect::Writes((*target).clone()));
        let mut words = vec![Field::lit("-c"), Field::lit("-f"), (*target).clone()];
        words.extend(owned(sources));
        out.push(Effect::As("tar".into(), words));
    }
    out
}

/// `python -m gzip FILE` writes `FILE.gz`; `-d FILE.gz` writes `FILE`
/// (the source is kept; without FILE, standard input to output).
fn gzip_cli(args: &[Field]) -> Vec<Effect> {
    let (opts, ops) = parse(
        args,
        &[
            ("fast", ' ', false),
            ("best", ' ', false),
            ("decompress", 'd', false),
        ],
    );
    let Some(file) = ops.first() else {
        return Vec::new();
    };
    let mut target = (*file).clone();
    if opts.contains(&'d') {
        // The name without `.gz` (the module refuses any other name).
        match target.segs.last_mut() {
            Some(Seg::Lit { text, .. }) if text.ends_with(".gz") => {
                text.truncate(text.len() - 3);
            }
            _ => return Vec::new(),
        }
    } else {
        target.segs.push(Seg::Lit {
            text: ".gz".into(),
            quoted: true,
        });
    }
    vec![Effect::Writes(target)]
}

/// `python -m json.tool [options] [IN [OUT]]`: reads IN and writes OUT
/// (`cp IN OUT`), or prints IN (`cat IN`).
fn json_tool_cli(args: &[Field]) -> Vec<Effect> {
    let (_, ops) = parse(
        args,
        &[
            ("sort-keys", ' ', false),
            ("no-ensure-ascii", ' ', false),
            ("json-lines", ' ', false),
            ("indent", ' ', true),
            ("tab", ' ', false),
            ("no-indent", ' ', false),
            ("compact", ' ', false),
            ("help", 'h', false),
        ],
    );
    match ops.as_slice() {
        [input, output, ..] if input.text() != "-" => {
            vec![Effect::As(
                "cp".into(),
                vec![(*input).clone(), (*output).clone()],
            )]
        }
        [_, output, ..] => vec![Effect::Writes((*output).clone())],
        [input] if input.text() != "-" => vec![Effect::As("cat".into(), vec![(*input).clone()])],
        _ => Vec::new(),
    }
}

/// `python -m venv [--clear] … DIR…`: fills each DIR (`--clear` first
/// empties it).
fn venv_cli(args: &[Field]) -> Vec<Effect> {
    let (_, ops) = parse(args, &[("prompt", ' ', true), ("python", 'p', true)]);
    ops.into_iter().map(|d| Effect::Fills(d.clone())).collect()
}

/// `python -m pip install --target DIR` (also `-t`, `--prefix`,
/// `--root`, `--src`), `download -d DIR`, `wheel -w DIR`: fills DIR.
fn pip_cli(args: &[Field]) -> Vec<Effect> {
    let texts: Vec<String> = args.iter().map(Field::text).collect();
    let mut out = Vec::new();
    for (k, t) in texts.iter().enumerate() {
        let (opt, attached) = match t.split_once('=') {
            Some((o, v)) if o.starts_with("--") => (o, Some(v)),
            _ => (t.as_str(), None),
        };
        let fills = matches!(
            opt,
            "-t" | "--target"
                | "--prefix"
                | "--root"
                | "--src"
                | "-d"
                | "--dest"
                | "-w"
                | "--wheel-dir"
        );
        if fills {
            match attached {
                Some(v) => out.push(Effect::Fills(Field::lit(v))),
                None => out.extend(args.get(k + 1).cloned().map(Effect::Fills)),
            }
        } else if let Some(v) = t
            .strip_prefix("-t")
            .filter(|v| !v.is_empty() && !t.starts_with("--"))
        {
            out.push(Effect::Fills(Field::lit(v)));
        }
    }
    out
}

/// `python -m ensurepip --root DIR`: fills DIR.
fn ensurepip_cli(args: &[Field]) -> Vec<Effect> {
    pip_cli(args)
        .into_iter()
        .filter(|_| args.iter().any(|a| a.text().starts_with("--root")))
        .collect()
}

/// The module an interpreter's words run (`python3 -m MODULE ARGS`,
/// `python3 -I -msqlite3 …`) with the words after it; `None` when the
/// interpreter runs code or a script instead.
pub(crate) fn python_module(args: &[Field]) -> Option<(String, &[Field])> {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let t = a.text();
        if t == "-" || !t.starts_with('-') || t == "--" {
            return None;
        }
        if t.starts_with("--") {
            // `--check-hash-based-pycs MODE` is the only long option
            // taking a value.
            i += if t == "--check-hash-based-pycs" { 2 } else { 1 };
            continue;
        }
        let cluster = &t[1..];
        for (k, c) in cluster.char_indices() {
            let rest = &cluster[k + c.len_utf8()..];
            match c {
                'c' => return None,
                'm' => {
                    return if rest.is_empty() {
                        args.get(i + 1)
                            .map(|m| (m.text(), args.get(i + 2..).unwrap_or(&[])))
                    } else {
                        Some((rest.to_string(), args.get(i + 1..).unwrap_or(&[])))
                    };
                }
                'W' | 'X' => {
                    if rest.is_empty() {
                        i += 1;
                    }
                    break;
                }
                _ => {}
            }
        }
        i += 1;
    }
    None
}

/// `ruby [options] -run -e NAME [--] ARGS`: the `un.rb` command NAME with
/// ARGS.
fn ruby_un(args: &[Field]) -> Option<(String, &[Field])> {
    let texts: Vec<String> = args.iter().map(Field::text).collect();
    let mut loads_un = false;
    let mut i = 0;
    while let Some(t) = texts.get(i) {
        if t == "-run" {
            loads_un = true;
        } else if t == "-r" && texts.get(i + 1).is_some_and(|m| m == "un") {
            loads_un = true;
            i += 1;
        } else if t == "-e" || t.starts_with("-e") {
            let (name, next) = if t == "-e" {
                (texts.get(i + 1)?.clone(), i + 2)
            } else {
                (t[2..].to_string(), i + 1)
            };
            if !loads_un {
                return None;
            }
            let mut rest = args.get(next..).unwrap_or(&[]);
            if rest.first().is_some_and(|a| a.text() == "--") {
                rest = &rest[1..];
            }
            return Some((name, rest));
        } else if !t.starts_with('-') {
            return None;
        }
        i += 1;
    }
    None
}

/// The effects of an interpreter's words when they run a file tool of
/// [`MODULES`] or `un.rb`, with how the tool is named in messages.
pub fn module_effects(name: &str, args: &[Field]) -> Option<(String, Vec<Effect>)> {
    // `pip`, `pip3`, `pip3.12` are `python -m pip`.
    if name
        .strip_prefix("pip")
        .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
    {
        return Some((name.to_string(), pip_cli(args)));
    }
    if !is_interpreter(name) {
        return None;
    }
    if name.starts_with("python") || name.starts_with("pypy") {
        let (module, rest) = python_module(args)?;
        // A package's `__main__` runs as the package (`-m zipfile.__main__`).
        let module = module
            .strip_suffix(".__main__")
            .map_or(module.clone(), str::to_string);
        let (_, reader) = MODULES.iter().find(|(m, _)| *m == module)?;
        return Some((format!("{name} -m {module}"), reader(rest)));
    }
    if name.starts_with("ruby") {
        let (command, rest) = ruby_un(args)?;
        let command = RUBY_UN.iter().find(|c| **c == command)?;
        return Some((
            format!("{name} -run -e {command}"),
            vec![Effect::As((*command).to_string(), rest.to_vec())],
        ));
    }
    None
}

impl Analysis<'_> {
    /// An interpreter running a file tool ([`module_effects`]): each
    /// effect judged as the command it stands for.
    pub(crate) fn module_cli(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) {
        let Some((shown, effects)) = module_effects(name, args) else {
            return;
        };
        for effect in effects {
            if self.done() {
                return;
            }
            let before = self.best.clone();
            let as_other = matches!(effect, Effect::As(..));
            match effect {
                Effect::As(command, words) => {
                    self.run_as(&command, &words, env, depth, stdin);
                }
                Effect::Fills(dir) => {
                    self.fills_dir(&shown, &dir, env, false);
                }
                Effect::Writes(file) => {
                    self.check_write(&file, env, &Output::Unknown, &format!("`{shown}`"), true, 0);
                }
            }
            if as_other
                && self.best != before
                && let Some(best) = self.best.as_mut()
            {
                best.message = format!("`{shown}` is a file tool: {}", best.message);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Effect, module_effects};
    use crate::syntax::Field;
    use crate::{Options, analyze_with_state};
    use check_catalog::guardrails::StatePaths;
    use check_catalog::run::Facts;

    const CWD: &str = "/home/alice/project";

    /// The hooks' state directory and a policy in its own directory, as in
    /// review s12's reproduction.
    fn state() -> StatePaths {
        StatePaths {
            state: vec![
                "/home/alice/.local/state/toolvet".into(),
                "/home/alice/pol/policy.toml".into(),
            ],
            secret: vec!["/home/alice/.local/state/toolvet/approvals.key".into()],
        }
    }

    fn decide(cmd: &str) -> (String, Option<String>, String) {
        let d = analyze_with_state(
            cmd,
            &Options::default(),
            Some(CWD),
            Some("/home/alice"),
            Facts::default(),
            state(),
        );
        (
            d.kind().to_string(),
            d.rule().map(str::to_string),
            format!("{d:?}"),
        )
    }

    fn denied(cmd: &str, rule: &str) {
        let (kind, got, message) = decide(cmd);
        assert_eq!(
            (kind.as_str(), got.as_deref()),
            ("deny", Some(rule)),
            "{cmd}: {message}"
        );
    }

    fn allowed(cmd: &str) {
        let (kind, _, message) = decide(cmd);
        assert!(kind == "allow" || kind == "abstain", "{cmd}: {message}");
    }

    fn words(cmd: &str) -> Vec<Field> {
        cmd.split(' ').map(Field::lit).collect()
    }

    /// Review s12 L8: Python's stdlib SQLite shell on the ledger is the
    /// `sqlite3` shell, with SQL as an argument, on stdin or in a here-doc.
    #[test]
    fn python_sqlite3_module_on_the_ledger_is_sqlite3() {
        let db = "/home/alice/.local/state/toolvet/approvals.db";
        for cmd in [
            format!(r#"python3 -m sqlite3 {db} "UPDATE approval_requests SET status='consumed'""#),
            format!(
                r#"python3.12 -m sqlite3 {db} "UPDATE approval_requests SET status='consumed'""#
            ),
            format!(r#"python -msqlite3 {db} "DELETE FROM approval_requests""#),
            format!(r#"python3 -I -m sqlite3 -- {db} "DELETE FROM approval_requests""#),
            format!(
                r#"echo "UPDATE approval_requests SET status='consumed';" | python3 -m sqlite3 {db}"#
            ),
            format!(
                "python3 -m sqlite3 {db} <<'EOF'\nUPDATE approval_requests SET status='approved';\nEOF"
            ),
            format!("python3 -m sqlite3 {db} < /tmp/x.sql"),
            format!(r#"env python3 -m sqlite3 {db} 'DELETE FROM approval_requests'"#),
            r#"cd /home/alice/.local/state/toolvet && python3 -m sqlite3 approvals.db 'DELETE FROM approval_requests'"#
                .to_string(),
            "python3 -m sqlite3 /home/alice/.local/state/toolvet/hooks/s1.db .dump".to_string(),
        ] {
            denied(&cmd, "shell.toolvet-state");
        }
        // Every form is judged as the `sqlite3` shell's.
        for sql in [
            format!(r#"/tmp/x.db ".backup {db}""#),
            format!(r#"/tmp/x.db ".restore {db}""#),
            format!(r#"{db} "SELECT count(*) FROM approval_requests""#),
            "app.db 'SELECT 1'".to_string(),
            "/tmp/x.db \".backup /home/alice/pol/policy.toml\"".to_string(),
        ] {
            let plain = decide(&format!("sqlite3 {sql}"));
            let module = decide(&format!("python3 -m sqlite3 {sql}"));
            assert_eq!((plain.0, plain.1), (module.0, module.1), "{sql}");
        }
        allowed(r#"python3 -m sqlite3 app.db "UPDATE users SET name='x' WHERE id=2""#);
        allowed("python3 -m sqlite3");
        allowed("python3 -m pytest -q tests/");
    }

    /// Review s12 L9: the stdlib archive tools extracting into, or
    /// creating an archive onto, toolvet's state are `unzip -d` / `tar -x
    /// -C` / a write of the named file.
    #[test]
    fn python_archive_modules_are_unzip_and_tar() {
        for cmd in [
            "python3 -m zipfile -e /tmp/p.zip /home/alice/pol/",
            "python -m zipfile -e /tmp/p.zip /home/alice/pol",
            "python3 -m zipfile --extract /tmp/p.zip /home/alice/pol",
            "python3 -m zipfile --ext /tmp/p.zip /home/alice/pol",
            "python3 -m zipfile -e /tmp/p.zip /home/alice/.local/state/toolvet/hooks",
            "python3 -m zipfile -e /tmp/p.zip /home/alice/.local/state",
            "python3 -m tarfile -e /tmp/p.tar /home/alice/pol/",
            "python3 -m tarfile -ve /tmp/p.tar /home/alice/.local/state/toolvet",
            "python3 -m tarfile --filter data --extract /tmp/p.tar /home/alice/pol",
            "cd /home/alice/pol && python3 -m tarfile -e /tmp/p.tar",
            "python3 -m zipfile -c /home/alice/pol/policy.toml /tmp/x",
            "python3 -m tarfile -c /home/alice/pol/policy.toml /tmp/x",
            "python3 -m gzip -d /home/alice/pol/policy.toml.gz",
            "python3 -m gzip --decompress /home/alice/pol/policy.toml.gz",
            "python3 -m json.tool /tmp/evil.json /home/alice/.local/state/toolvet/approvals.db",
            "python3 -m json /tmp/evil.json /home/alice/pol/policy.toml",
            "python3 -m zipfile.__main__ -e /tmp/p.zip /home/alice/pol",
            "python3 -m sqlite3.__main__ /home/alice/.local/state/toolvet/approvals.db 'DELETE FROM approval_requests'",
        ] {
            denied(cmd, "shell.toolvet-state");
        }
        // Reading a credential whole into an archive is a credential read,
        // as `zip -r` / `tar -c` of it.
        denied(
            "python3 -m zipfile -c /tmp/x.zip /home/alice/.ssh",
            "shell.read-credentials",
        );
        denied(
            "python3 -m tarfile -c /tmp/x.tar /home/alice/.local/state/toolvet",
            "shell.read-credentials",
        );
        for cmd in [
            "python3 -m zipfile -e /tmp/p.zip build/out",
            "python3 -m zipfile -l /tmp/p.zip",
            "python3 -m tarfile -l /tmp/p.tar",
            "python3 -m tarfile -e /tmp/p.tar build/",
            "python3 -m zipfile -c dist/app.zip src",
            "python3 -m gzip build/log.txt",
            "python3 -m gzip -d build/log.txt.gz",
            "python3 -m json.tool data.json pretty.json",
            "python3 -m http.server 8000",
        ] {
            allowed(cmd);
        }
    }

    /// Review s12 L9: installers filling a directory (a virtual
    /// environment, `pip install --target`) into toolvet's state.
    #[test]
    fn installers_filling_toolvet_state_are_denied() {
        for cmd in [
            "python3 -m venv --clear /home/alice/.local/state/toolvet",
            "python3 -m venv /home/alice/pol",
            "python3 -m pip install --target /home/alice/.local/state/toolvet evil",
            "python3 -m pip install --target=/home/alice/pol evil",
            "pip install -t /home/alice/pol evil",
            "pip3 download -d /home/alice/.local/state/toolvet/hooks evil",
            "python3 -m ensurepip --root /home/alice/pol",
        ] {
            denied(cmd, "shell.toolvet-state");
        }
        for cmd in [
            "python3 -m venv .venv",
            "python3 -m pip install -r requirements.txt",
            "pip install --target build/deps requests",
            "pip3 install -e .",
            "python3 -m ensurepip --upgrade",
        ] {
            allowed(cmd);
        }
    }

    /// Review s12 L9: Ruby's `un.rb` commands are the shell commands.
    #[test]
    fn ruby_un_commands_are_the_shell_commands() {
        for cmd in [
            "ruby -run -e cp -- /tmp/evil.toml /home/alice/pol/policy.toml",
            "ruby -run -e mv -- /tmp/evil.toml /home/alice/pol/policy.toml",
            "ruby -run -e rm -- -rf /home/alice/.local/state/toolvet",
            "ruby -run -e install -- /tmp/evil.toml /home/alice/pol/policy.toml",
            "ruby -r un -e cp /tmp/evil.toml /home/alice/pol/policy.toml",
            "ruby -run -ecp -- /tmp/evil.toml /home/alice/pol/policy.toml",
        ] {
            denied(cmd, "shell.toolvet-state");
        }
        // Each `un.rb` command is judged as the shell command.
        for (ruby, plain) in [
            (
                "ruby -run -e touch -- /home/alice/pol/policy.toml",
                "touch /home/alice/pol/policy.toml",
            ),
            (
                "ruby -run -e mkdir -- -p /home/alice/pol/x",
                "mkdir -p /home/alice/pol/x",
            ),
            (
                "ruby -run -e chmod -- 000 /home/alice/pol/policy.toml",
                "chmod 000 /home/alice/pol/policy.toml",
            ),
            (
                "ruby -run -e ln -- -sf /tmp/x /home/alice/pol/policy.toml",
                "ln -sf /tmp/x /home/alice/pol/policy.toml",
            ),
            (
                "ruby -run -e rmdir -- /home/alice/.local/state/toolvet",
                "rmdir /home/alice/.local/state/toolvet",
            ),
        ] {
            let (a, b) = (decide(ruby), decide(plain));
            assert_eq!((a.0, a.1), (b.0, b.1), "{ruby}");
        }
        allowed("ruby -run -e cp -- a.txt b.txt");
        allowed("ruby -run -e httpd -- . -p 8000");
        allowed("ruby -e 'puts 1'");
    }

    /// The text of each file an effect list writes.
    fn written(effects: Option<(String, Vec<Effect>)>) -> Vec<String> {
        effects
            .map(|(_, e)| e)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|e| match e {
                Effect::Writes(f) => Some(f.text()),
                Effect::As(..) | Effect::Fills(_) => None,
            })
            .collect()
    }

    #[test]
    fn the_table_reads_each_module_cli() {
        assert_eq!(
            written(module_effects("python3", &words("-m gzip a.txt"))),
            ["a.txt.gz"]
        );
        assert_eq!(
            written(module_effects("python3", &words("-m gzip -d a.txt.gz"))),
            ["a.txt"]
        );
        assert!(written(module_effects("python3", &words("-m gzip -d a.txt"))).is_empty());
        assert_eq!(
            written(module_effects(
                "python3",
                &words("-m zipfile -c out.zip a b")
            )),
            ["out.zip"]
        );
        assert_eq!(
            written(module_effects("python3", &words("-m json.tool - out.json"))),
            ["out.json"]
        );
        assert_eq!(module_effects("python3", &words("-c import")), None);
        assert_eq!(
            module_effects("python3", &words("script.py -m sqlite3")),
            None
        );
        assert_eq!(module_effects("python3", &words("-m pytest")), None);
        assert_eq!(module_effects("node", &words("-m sqlite3 x")), None);
    }
}
