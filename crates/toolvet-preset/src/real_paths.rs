//! Where a call's paths really are, found on the file system the tools run
//! on (review s22 R1): [`RealPathsLocator`], the [`Locator`] of every front
//! end beside the tools.
//!
//! The checks run in a sandbox without a file system: they judge a path's
//! text, and know only the symbolic links they can read from the run's
//! history. A link made by code, by git, with a computed target, or in an
//! earlier session leads them astray (`h/pol/policy.toml` where `h` is a
//! link to the home). A front end beside the tools (`toolvet check`,
//! `toolvet mcp`, the hooks, the Python and Node packages) resolves, before
//! the checks run, every string of the call's arguments that names an
//! existing place (values and object keys, relative ones against each
//! directory the call may work in) the way the kernel will: following
//! every symbolic link, the longest existing part resolved and the rest
//! taken as written. The property, proven for every path argument: *the
//! checks judge a path as written and at its real location, the strictest
//! decision winning; a file that is one of toolvet's state files by device
//! and inode (a hard link, whoever made it) is that state file; and a path
//! whose real location cannot be found (a directory that cannot be read, a
//! loop of links) denies the call* ([`toolvet::locate::UNPLACED_RULE`]). The findings go to the checks in the attribute
//! [`check_catalog::pathnorm::REAL_PATHS_ATTRIBUTE`], keyed by the path as
//! path-guard spells it ([`check_catalog::pathnorm::normalize`], one
//! function for both).

use check_catalog::pathnorm::{self, Real, RealPaths};
use check_catalog::workdir::{self, Base};
use serde_json::{Map, Value};
use std::collections::VecDeque;
use std::io::ErrorKind;
use std::os::unix::fs::MetadataExt;
use toolvet::CallRequest;
use toolvet::home::{CWD_ATTRIBUTE, HOME_ATTRIBUTE};
use toolvet::locate::{Locator, UnplacedError};
use toolvet::state_paths::StatePaths;

/// Most distinct strings of one call looked up: a call with more is held
/// (review s23 R4), never judged with some of them unresolved.
const MAX_STRINGS: usize = 8192;
/// Most directories one call's strings are looked up in (its working
/// directories and those its commands `cd` to).
const MAX_BASES: usize = 32;
/// Most symbolic links followed for one path (Linux's limit).
const MAX_HOPS: usize = 40;

/// The [`toolvet::locate::Locator`] of the front ends that run beside the
/// tools ([`options`]): every string of a call's arguments that names an
/// existing place, looked up on this machine's file system ([`of`]), in
/// the directory of the call's `cwd` attribute, with `~` its `home`
/// attribute; the findings in the attribute
/// [`check_catalog::pathnorm::REAL_PATHS_ATTRIBUTE`].
#[derive(Debug, Default, Clone, Copy)]
pub struct RealPathsLocator;

impl Locator for RealPathsLocator {
    fn locate(
        &self,
        request: &CallRequest,
        state: &StatePaths,
    ) -> Result<Vec<(String, String)>, UnplacedError> {
        let arguments: Map<String, Value> = serde_json::from_str(request.call.arguments.get())
            .map_err(|e| {
                UnplacedError(format!("the call's arguments are not a JSON object: {e}"))
            })?;
        let attributes = &request.context.attributes;
        let files = StateFiles::of(
            state
                .state()
                .iter()
                .chain(state.secret())
                .map(String::as_str),
        );
        let real = of(
            &arguments,
            attributes.get(CWD_ATTRIBUTE).map(String::as_str),
            attributes.get(HOME_ATTRIBUTE).map(String::as_str),
            &files,
        )
        .map_err(UnplacedError)?;
        Ok(if real.is_empty() {
            Vec::new()
        } else {
            vec![(pathnorm::REAL_PATHS_ATTRIBUTE.to_string(), real.to_json())]
        })
    }
}

/// toolvet's state and secret files by device and inode.
#[derive(Debug, Default)]
pub(crate) struct StateFiles(Vec<(u64, u64, String)>);

impl StateFiles {
    /// The state paths `paths` that exist, by device and inode.
    pub(crate) fn of<'a>(paths: impl IntoIterator<Item = &'a str>) -> StateFiles {
        StateFiles(
            paths
                .into_iter()
                .filter_map(|p| {
                    let m = std::fs::metadata(p).ok()?;
                    Some((m.dev(), m.ino(), p.to_string()))
                })
                .collect(),
        )
    }

    /// The state paths that are the file `(dev, ino)`.
    fn same_file(&self, dev: u64, ino: u64) -> impl Iterator<Item = &str> {
        self.0
            .iter()
            .filter(move |(d, i, _)| *d == dev && *i == ino)
            .map(|(_, _, p)| p.as_str())
    }
}

/// What the file system says of the paths in `arguments` (a call whose
/// working directory is `cwd`, the user's home `home`): every string (and
/// object key) whose real location differs from its text, or is a state
/// file by device and inode; and the working directory itself (the
/// checks' root) when it is reached through a link.
///
/// Every string [`pathnorm::normalize`] takes for a path is looked up,
/// whatever it holds (a newline, any length: review s23 R3), and what
/// two strings with the same lexical path find is merged, never the
/// first one's alone (review s23 R7): *adding a string to a call never
/// removes a real location from what the checks see*. A string
/// `normalize` refuses (a NUL or another control character) is no path
/// to the checks either: path-guard refuses it as a path argument.
///
/// # Errors
/// Why the call cannot be vetted, which holds it (review s23 R3/R4):
/// more than [`MAX_STRINGS`] distinct strings, or a string whose real
/// location cannot be found for any reason but "does not exist yet" (a
/// directory that cannot be read, a loop of links).
pub(crate) fn of(
    arguments: &Map<String, Value>,
    cwd: Option<&str>,
    home: Option<&str>,
    state: &StateFiles,
) -> Result<RealPaths, String> {
    let mut out = RealPaths::default();
    let args = Value::Object(arguments.clone());
    let mut bases: Vec<Option<String>> = vec![cwd.map(str::to_string)];
    for base in workdir::bases(&args, &[] as &[&str], cwd, home) {
        if let Base::Dir(d) = base
            && !bases.contains(&Some(d.clone()))
        {
            bases.push(Some(d));
        }
    }
    let mut strings: Vec<std::borrow::Cow<'_, str>> = Vec::new();
    collect(&args, false, &mut strings);
    // A command's words are relative to where its `cd`s go too (`cd d &&
    // echo x >> q/f`): each literal `cd`/`pushd` operand is one more base,
    // placed from the call's directories and from the previous operand's
    // places (at most [`MAX_BASES`] in all; the words stay judged as
    // written by shell-guard beyond them).
    let first = bases.clone();
    let mut previous: Vec<Option<String>> = Vec::new();
    for dir in cd_operands(&strings) {
        let mut here = Vec::new();
        for base in first.iter().chain(&previous) {
            if let Ok(d) = pathnorm::normalize(&dir, base.as_deref(), home)
                && !here.contains(&Some(d.clone()))
            {
                here.push(Some(d));
            }
        }
        for d in &here {
            if bases.len() < MAX_BASES && !bases.contains(d) {
                bases.push(d.clone());
            }
        }
        previous = here;
    }
    strings.extend(cwd.map(Into::into));
    let mut seen = std::collections::BTreeSet::new();
    strings.retain(|s| seen.insert(s.clone()));
    if strings.len() > MAX_STRINGS {
        return Err(format!(
            "the call holds {} distinct strings, more than the {MAX_STRINGS} whose real locations \
             toolvet looks up",
            strings.len()
        ));
    }
    for text in &strings {
        let text = text.as_ref();
        for base in &bases {
            let (Ok(key), Ok(kernel)) = (
                pathnorm::normalize(text, base.as_deref(), home),
                pathnorm::absolute(text, base.as_deref(), home),
            ) else {
                continue;
            };
            let real = real_location(&own_cwd(&kernel, base.as_deref())).map_err(|why| {
                format!(
                    "the real location of `{}` cannot be found: {why}",
                    shown(text)
                )
            })?;
            let mut at = Vec::new();
            if real != key {
                at.push(real.clone());
            }
            if let Ok(m) = std::fs::metadata(&real) {
                for p in state.same_file(m.dev(), m.ino()) {
                    if p != key && !at.iter().any(|a| a == p) {
                        at.push(p.to_string());
                    }
                }
            }
            if !at.is_empty() {
                out.merge(key, Real::At(at));
            }
        }
    }
    Ok(out)
}

/// `text` for a message: visible, and cut after 120 characters.
fn shown(text: &str) -> String {
    let cut: String = text.chars().take(120).collect();
    let more = if cut.len() < text.len() { "…" } else { "" };
    format!("{}{more}", toolvet::display::visible(&cut))
}

/// Every string value and object key under `value`, and the words of
/// each string a command or code argument holds
/// ([`check_catalog::roles::COMMAND_ARGS`], `ALWAYS_COMMAND_ARGS`,
/// [`check_catalog::code::CODE_ARGS`], at any depth; `command` is
/// `true` below one): shell-guard judges the path words of a command by
/// their real locations too (review s23 R2).
fn collect<'a>(value: &'a Value, command: bool, out: &mut Vec<std::borrow::Cow<'a, str>>) {
    match value {
        Value::String(s) => {
            out.push(s.into());
            if command {
                out.extend(path_words(s).into_iter().map(Into::into));
            }
        }
        Value::Array(items) => items.iter().for_each(|i| collect(i, command, out)),
        Value::Object(map) => {
            for (k, v) in map {
                out.push(k.into());
                let names = check_catalog::roles::COMMAND_ARGS
                    .iter()
                    .chain(check_catalog::roles::ALWAYS_COMMAND_ARGS)
                    .chain(check_catalog::code::CODE_ARGS);
                let command = names
                    .into_iter()
                    .any(|n| check_catalog::roles::same_key(k, n));
                collect(v, command, out);
            }
        }
        _ => {}
    }
}

/// The words of the shell command `text` that can name a place, as a
/// conservative tokenizer reads them: split at blanks and the operators
/// `; | & ( ) < >` (so a redirection's target is a word of its own),
/// quotes (`'…'`, `"…"`, `$'…'`) and backslashes removed, and for a word
/// holding `=` (`--config=q/x`, `if=q/x`, `X=q/x`) also the text after
/// the first `=`. A word holding an expansion (`$`, a backquote, a brace)
/// cannot be placed and is left out: that is shell-guard's to judge
/// (it holds what it cannot read), not an error.
pub(crate) fn path_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut dynamic = false;
    let mut chars = text.chars().peekable();
    let mut end = |word: &mut String, in_word: &mut bool, dynamic: &mut bool| {
        if *in_word && !*dynamic {
            if let Some((_, value)) = word.split_once('=')
                && !value.is_empty()
            {
                out.push(value.to_string());
            }
            out.push(std::mem::take(word));
        }
        word.clear();
        *in_word = false;
        *dynamic = false;
    };
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                match chars.next() {
                    Some('\n') | None => {}
                    Some(n) => word.push(n),
                }
                in_word = true;
            }
            '\'' => {
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    word.push(q);
                }
                in_word = true;
            }
            '"' => {
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => match chars.next() {
                            Some(n @ ('"' | '\\' | '$' | '`')) => word.push(n),
                            Some('\n') | None => {}
                            Some(n) => {
                                word.push('\\');
                                word.push(n);
                            }
                        },
                        '$' | '`' => {
                            dynamic = true;
                            word.push(q);
                        }
                        q => word.push(q),
                    }
                }
                in_word = true;
            }
            '$' if chars.peek() == Some(&'\'') => {
                chars.next();
                while let Some(q) = chars.next() {
                    match q {
                        '\'' => break,
                        '\\' => match chars.next() {
                            Some('n') => word.push('\n'),
                            Some('t') => word.push('\t'),
                            Some('r') => word.push('\r'),
                            Some('e' | 'E') => word.push('\x1b'),
                            Some(n @ ('\\' | '\'' | '"' | '?')) => word.push(n),
                            // Other escapes (octal, hex, Unicode) are not
                            // read here: the word is not placed.
                            Some(n) => {
                                dynamic = true;
                                word.push(n);
                            }
                            None => {}
                        },
                        q => word.push(q),
                    }
                }
                in_word = true;
            }
            '$' | '`' | '{' | '}' => {
                dynamic = true;
                in_word = true;
                word.push(c);
            }
            ';' | '|' | '&' | '(' | ')' | '<' | '>' => end(&mut word, &mut in_word, &mut dynamic),
            c if c.is_whitespace() => end(&mut word, &mut in_word, &mut dynamic),
            c => {
                word.push(c);
                in_word = true;
            }
        }
    }
    end(&mut word, &mut in_word, &mut dynamic);
    out
}

/// The operands of `cd` and `pushd` among `words` (the next word not an
/// option), in order.
fn cd_operands(words: &[std::borrow::Cow<'_, str>]) -> Vec<String> {
    let mut out = Vec::new();
    let mut after_cd = false;
    for w in words {
        match w.as_ref() {
            "cd" | "pushd" => after_cd = true,
            w if after_cd && w.starts_with('-') => {}
            w if after_cd => {
                out.push(w.to_string());
                after_cd = false;
            }
            _ => {}
        }
    }
    out
}

/// `kernel` with the working directory of the process that makes the
/// call (`/proc/self/cwd`, `/proc/thread-self/cwd`) taken as the call's
/// `cwd`: toolvet resolves in its own process, whose directory may be
/// another (review s23 R1's side note).
fn own_cwd(kernel: &str, cwd: Option<&str>) -> String {
    for own in ["/proc/self/cwd", "/proc/thread-self/cwd"] {
        if let (Some(rest), Some(cwd)) = (kernel.strip_prefix(own), cwd)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            return format!("{cwd}{rest}");
        }
    }
    kernel.to_string()
}

/// Where the kernel takes the absolute path `kernel` (its `..` applied
/// after the links before it, as the kernel does): every symbolic link
/// followed; from the first part that does not exist on, the rest as
/// written (a write creates it there). An error when a part cannot be
/// examined (a directory that cannot be read) or the links loop.
pub(crate) fn real_location(kernel: &str) -> Result<String, String> {
    let mut done: Vec<String> = Vec::new();
    let mut todo: VecDeque<String> = parts(kernel).collect();
    let mut missing = false;
    let mut hops = 0;
    while let Some(part) = todo.pop_front() {
        match part.as_str() {
            "." => continue,
            ".." => {
                done.pop();
                continue;
            }
            _ => {}
        }
        if missing {
            done.push(part);
            continue;
        }
        let here = format!(
            "/{}",
            done.iter()
                .chain([&part])
                .cloned()
                .collect::<Vec<_>>()
                .join("/")
        );
        match std::fs::symlink_metadata(&here) {
            Ok(m) if m.file_type().is_symlink() => {
                hops += 1;
                if hops > MAX_HOPS {
                    return Err(format!(
                        "more than {MAX_HOPS} symbolic links from `{kernel}`"
                    ));
                }
                let target = std::fs::read_link(&here)
                    .map_err(|e| format!("the link `{here}` cannot be read: {e}"))?;
                let target = target.to_str().ok_or_else(|| {
                    format!("the link `{here}` leads to a path that is not UTF-8")
                })?;
                if target.starts_with('/') {
                    done.clear();
                }
                for p in parts(target).collect::<Vec<_>>().into_iter().rev() {
                    todo.push_front(p);
                }
            }
            Ok(_) => done.push(part),
            // Not there (yet), or a name no file system holds (a part
            // longer than NAME_MAX): the rest is taken as written.
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::NotFound | ErrorKind::NotADirectory | ErrorKind::InvalidFilename
                ) =>
            {
                missing = true;
                done.push(part);
            }
            Err(e) => return Err(format!("`{here}` cannot be examined: {e}")),
        }
    }
    Ok(format!("/{}", done.join("/")))
}

/// The non-empty parts of a path.
fn parts(path: &str) -> impl Iterator<Item = String> + '_ {
    path.split('/')
        .filter(|p| !p.is_empty())
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn links_are_followed_as_the_kernel_does() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let root = root.to_str().unwrap();
        std::fs::create_dir_all(format!("{root}/home/pol")).unwrap();
        std::fs::create_dir_all(format!("{root}/home/project")).unwrap();
        std::fs::write(format!("{root}/home/pol/policy.toml"), "x").unwrap();
        std::os::unix::fs::symlink("..", format!("{root}/home/project/up")).unwrap();
        std::os::unix::fs::symlink(format!("{root}/home"), format!("{root}/home/project/h"))
            .unwrap();
        std::os::unix::fs::symlink("nowhere/x", format!("{root}/home/project/dangling")).unwrap();
        std::os::unix::fs::symlink("loop", format!("{root}/home/project/loop")).unwrap();
        let real = |p: &str| real_location(&format!("{root}/home/project/{p}"));
        assert_eq!(
            real("up/pol/policy.toml").unwrap(),
            format!("{root}/home/pol/policy.toml")
        );
        assert_eq!(
            real("h/pol/new.toml").unwrap(),
            format!("{root}/home/pol/new.toml")
        );
        // `..` after a link applies to where the link leads.
        assert_eq!(
            real("h/project/../pol").unwrap(),
            format!("{root}/home/pol")
        );
        assert_eq!(real("up/..").unwrap(), root.to_string());
        assert_eq!(
            real("dangling").unwrap(),
            format!("{root}/home/project/nowhere/x")
        );
        assert_eq!(
            real("src/a.rs").unwrap(),
            format!("{root}/home/project/src/a.rs")
        );
        assert!(real("loop/x").is_err());
        // The hard link of a state file is that state file.
        std::fs::hard_link(
            format!("{root}/home/pol/policy.toml"),
            format!("{root}/home/project/p.toml"),
        )
        .unwrap();
        let state = StateFiles::of([format!("{root}/home/pol/policy.toml").as_str()]);
        let cwd = format!("{root}/home/project");
        let args = serde_json::json!({"file_path": "p.toml", "content": "hello world",
            "edits": {"h/pol/policy.toml": "x"}});
        let found = of(args.as_object().unwrap(), Some(&cwd), None, &state).unwrap();
        assert_eq!(
            found.get(&format!("{cwd}/p.toml")),
            Some(&Real::At(vec![format!("{root}/home/pol/policy.toml")]))
        );
        assert_eq!(
            found.get(&format!("{cwd}/h/pol/policy.toml")),
            Some(&Real::At(vec![format!("{root}/home/pol/policy.toml")]))
        );
        assert_eq!(found.get(&format!("{cwd}/hello world")), None);
    }

    /// Review s23 R3, R4, R7, R10, R2: every string and every path word of
    /// a command is looked up, whatever it holds and however many there
    /// are; what two spellings find is merged; a call that cannot be
    /// looked up in full is refused.
    #[test]
    fn s23_nothing_is_skipped_and_nothing_shadows() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let root = root.to_str().unwrap().to_string();
        let cwd = format!("{root}/home/project");
        let policy = format!("{root}/home/pol/policy.toml");
        std::fs::create_dir_all(format!("{root}/home/pol")).unwrap();
        std::fs::create_dir_all(format!("{cwd}/d/e")).unwrap();
        std::fs::create_dir_all(format!("{cwd}/x\n")).unwrap();
        std::fs::write(&policy, "x").unwrap();
        std::os::unix::fs::symlink("../pol", format!("{cwd}/q")).unwrap();
        std::os::unix::fs::symlink("d/e", format!("{cwd}/s")).unwrap();
        std::os::unix::fs::symlink(".", format!("{cwd}/s4")).unwrap();
        std::os::unix::fs::symlink("s4/../pol", format!("{cwd}/q11")).unwrap();
        std::os::unix::fs::symlink("loop", format!("{cwd}/loop")).unwrap();
        let state = StateFiles::default();
        let found = |args: Value| of(args.as_object().unwrap(), Some(&cwd), None, &state);
        let at_policy = |args: Value, key: &str| {
            let f = found(args.clone()).unwrap();
            match f.get(key) {
                Some(Real::At(at)) => assert!(at.contains(&policy), "{args}: {at:?}"),
                other => panic!("{args}: {key}: {other:?}"),
            }
        };
        // R3: a newline in the path.
        at_policy(
            json!({"file_path": format!("{cwd}/x\n/../q11/policy.toml"), "content": "x"}),
            &format!("{cwd}/q11/policy.toml"),
        );
        at_policy(
            json!({"path": format!("{cwd}/x\n/../q/policy.toml")}),
            &format!("{cwd}/q/policy.toml"),
        );
        // R4: 520 strings before the path (and 130 edits).
        let tags: Vec<String> = (0..520).map(|i| format!("tag{i}")).collect();
        at_policy(
            json!({"tags": tags, "path": "q11/policy.toml"}),
            &format!("{cwd}/q11/policy.toml"),
        );
        let edits: Vec<Value> = (0..130)
            .map(|i| json!({"old_string": format!("zz{i}"), "new_string": format!("yy{i}")}))
            .collect();
        at_policy(
            json!({"edits": edits, "file_path": format!("{cwd}/q11/policy.toml")}),
            &format!("{cwd}/q11/policy.toml"),
        );
        // Over the limit: held, never judged with strings unresolved.
        let many: Vec<String> = (0..MAX_STRINGS + 1).map(|i| format!("t{i}")).collect();
        let err = found(json!({"tags": many, "path": "q/policy.toml"})).unwrap_err();
        assert!(err.contains("distinct strings"), "{err}");
        // Repeated strings count once.
        let same: Vec<&str> = vec!["x"; MAX_STRINGS + 10];
        assert!(found(json!({"tags": same})).is_ok());
        // A place whose real location cannot be found: held.
        let err = found(json!({"note": "loop/x"})).unwrap_err();
        assert!(err.contains("loop/x"), "{err}");
        // R7: a decoy with the same lexical path does not shadow the path.
        let key = format!("{cwd}/pol/policy.toml");
        at_policy(
            json!({"note": "s/../pol/policy.toml", "path": "s4/../pol/policy.toml"}),
            &key,
        );
        at_policy(
            json!({"path": "s4/../pol/policy.toml", "note": "s/../pol/policy.toml"}),
            &key,
        );
        at_policy(
            json!({"content": "s/../pol/policy.toml", "file_path": format!("{cwd}/s4/../pol/policy.toml")}),
            &key,
        );
        // R10: a `file:` URL with one slash is its path.
        at_policy(
            json!({"path": format!("file:{cwd}/q/policy.toml")}),
            &format!("{cwd}/q/policy.toml"),
        );
        at_policy(
            json!({"path": format!("file://localhost{cwd}/q/policy.toml")}),
            &format!("{cwd}/q/policy.toml"),
        );
        // R2: the path words of a shell command, redirection targets,
        // quoted words and option values included.
        for (command, word) in [
            ("echo x >> q/policy.toml", "q/policy.toml"),
            ("echo x>>q/policy.toml", "q/policy.toml"),
            ("sed -i s/a/b/ 'q11/policy.toml'", "q11/policy.toml"),
            ("cp /dev/null \"q/policy.toml\"", "q/policy.toml"),
            ("tv --config=q/policy.toml", "q/policy.toml"),
            ("cat $'x\\n'/../q/policy.toml", "q/policy.toml"),
            ("cd d && :; cat q/policy.toml", "q/policy.toml"),
            ("cd d && cat ../q/policy.toml", "q/policy.toml"),
        ] {
            at_policy(json!({"command": command}), &format!("{cwd}/{word}"));
        }
        // After a `cd` in the same command.
        std::os::unix::fs::symlink("../../pol", format!("{cwd}/d/q")).unwrap();
        at_policy(
            json!({"command": "cd d && echo x >> q/policy.toml"}),
            &format!("{cwd}/d/q/policy.toml"),
        );
        // Codex: an argv whose script is a command.
        at_policy(
            json!({"command": ["bash", "-lc", "echo x >> q/policy.toml"]}),
            &format!("{cwd}/q/policy.toml"),
        );
        // The tool's own working directory under /proc is the call's cwd.
        at_policy(
            json!({"command": "echo x > /proc/self/cwd/../pol/policy.toml"}),
            "/proc/self/pol/policy.toml",
        );
        // Words of other strings are not a command's: a file's content.
        let f = found(json!({"file_path": "a.txt", "content": "see q/policy.toml"})).unwrap();
        assert_eq!(f.get(&format!("{cwd}/q/policy.toml")), None);
        // Near misses: plain places have no entry; an expansion is not placed.
        let f = found(json!({"command": "cargo test && ls d/e src $HOME/q"})).unwrap();
        assert_eq!(f.get(&format!("{cwd}/d/e")), None);
        assert_eq!(f.get(&format!("{cwd}/src")), None);
        assert!(f.is_empty(), "{f:?}");
    }

    #[test]
    fn s23_path_words() {
        assert_eq!(
            path_words("echo 'a b' \"c\\\"d\" e\\ f>g 2>>h <i x=y --o=p $V ${W} `x` {a,b}"),
            [
                "echo", "a b", "c\"d", "e f", "g", "2", "h", "i", "y", "x=y", "p", "--o=p"
            ]
        );
        assert_eq!(path_words("a;b|c&&d(e)"), ["a", "b", "c", "d", "e"]);
        assert_eq!(path_words("\"$X/y\" z"), ["z"]);
        assert_eq!(path_words("$'a\\nb' $'\\x41'"), ["a\nb"]);
    }
}
