//! Lexical path normalisation: turn the path string a model passed to a file
//! tool into the absolute, clean path the tool would most plausibly touch.
//!
//! Everything here is purely textual. The sandbox has no file system, so
//! symbolic links are not resolved: `/work/link/../x` is cleaned to
//! `/work/x` as POSIX `realpath -s` would, not as the kernel would if `link`
//! pointed elsewhere.
//!
//! Rules (POSIX paths only; `\` is an ordinary character):
//! - a NUL byte anywhere is an error ([`PathError::Nul`]);
//! - the empty string means the working directory (`.`);
//! - `file:/x`, `file:///x` and `file://localhost/x` mean `/x`
//!   ([`file_url_path`], the one reader of `file:` URLs); a `file://` URL
//!   naming any other host is an error ([`PathError::RemoteUrl`]). A URL's
//!   percent-escapes are decoded and its `?query`/`#fragment` dropped, as a
//!   URL parser does (`file:///w/%2e%2e/x` is `/x`); elsewhere they are
//!   not: a plain `%2e%2e` is a directory named `%2e%2e`, exactly what a
//!   file API given that string would open;
//! - `~` and `~/…` start at the home directory (error [`PathError::NoHome`] when
//!   none is known); `~root/…` starts at `/root`; `~name/…` starts at
//!   `name` next to the home directory (`/Users/name` when home is
//!   `/Users/alice`), or at `/home/name` when no home is known;
//! - a relative path is joined to the working directory (error
//!   [`PathError::NoWorkspace`] when there is none);
//! - empty segments (`//`), `.` segments and trailing slashes are dropped;
//!   `..` removes the previous segment, and `..` at the root stays at the root
//!   (`/../..` is `/`), as the kernel does.

use std::fmt;

/// Why a path string could not be resolved to an absolute path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathError {
    /// The path contains a NUL byte. No file system accepts one, and C-based
    /// tools would silently cut the path at it.
    Nul,
    /// The path contains another control character than tab and newline:
    /// a carriage return (which the plugin kit lets through only as part of
    /// a CRLF line end, for file contents) or one the kit refuses anyway.
    /// No path needs one, and a terminal shows the path otherwise than the
    /// file system reads it.
    Control(char),
    /// The path is relative (or `~` was not involved and it does not start
    /// with `/`) but no absolute working directory is known to resolve it.
    NoWorkspace,
    /// The path starts with `~` or `~/` but no absolute home directory is
    /// known.
    NoHome,
    /// A `file://` URL that names a host other than `localhost`.
    RemoteUrl,
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PathError::Nul => "the path contains a NUL byte",
            PathError::Control(_) => "the path contains a control character",
            PathError::NoWorkspace => "the path is relative and no working directory is known",
            PathError::NoHome => "the path starts with `~` and no home directory is known",
            PathError::RemoteUrl => "the path is a file:// URL naming a remote host",
        })
    }
}

impl std::error::Error for PathError {}

/// The first C0 control character in `text` other than tab and newline.
fn control_character(text: &str) -> Option<char> {
    text.chars()
        .find(|c| (*c as u32) < 0x20 && !matches!(c, '\t' | '\n'))
}

/// Normalise `path` into a clean absolute path.
///
/// `cwd` resolves relative paths and `home` resolves `~`; each is used only
/// when it is absolute (starts with `/`), and is itself cleaned. The result
/// starts with `/`, has no empty, `.` or `..` segments and no trailing slash
/// (except the root, `/`).
///
/// ```
/// use check_catalog::pathnorm::normalize;
/// assert_eq!(normalize("src/../../etc//passwd/", Some("/w/p"), None).unwrap(), "/w/etc/passwd");
/// assert_eq!(normalize("~/.ssh", None, Some("/home/alice")).unwrap(), "/home/alice/.ssh");
/// ```
///
/// # Errors
/// See [`PathError`]: a NUL byte, a relative path without an absolute `cwd`,
/// a `~` path without an absolute `home`, a remote `file://` URL.
pub fn normalize(path: &str, cwd: Option<&str>, home: Option<&str>) -> Result<String, PathError> {
    place(path, cwd, home, true)
}

/// [`normalize`] without the cleaning: the absolute path the kernel is
/// handed (`/w/link/../x`, whose `..` applies to where `link` leads, not
/// to `/w/link`). The front ends that can see the file system (the hooks)
/// resolve this form on it, and key what they find by [`normalize`]'s.
///
/// # Errors
/// As [`normalize`].
pub fn absolute(path: &str, cwd: Option<&str>, home: Option<&str>) -> Result<String, PathError> {
    place(path, cwd, home, false)
}

/// [`normalize`] (`clean`) or [`absolute`].
fn place(
    path: &str,
    cwd: Option<&str>,
    home: Option<&str>,
    clean: bool,
) -> Result<String, PathError> {
    if path.contains('\0') {
        return Err(PathError::Nul);
    }
    if let Some(c) = control_character(path) {
        return Err(PathError::Control(c));
    }
    let path = strip_file_url(path)?;
    let path = path.as_ref();
    // A workspace or home with a NUL byte or another control character a
    // path may not hold is no directory: as if absent (so what this
    // returns is again a path `normalize` takes).
    let usable = |d: &&str| d.starts_with('/') && control_character(d).is_none();
    let cwd = cwd.filter(usable);
    let home = home.filter(usable);
    let join = |parts: &[&str]| {
        if clean {
            join_clean(parts)
        } else {
            parts.join("/")
        }
    };

    if let Some(after) = path.strip_prefix('~') {
        let (user, rest) = match after.find('/') {
            Some(i) => (&after[..i], &after[i..]),
            None => (after, ""),
        };
        if user.is_empty() {
            let home = home.ok_or(PathError::NoHome)?;
            return Ok(join(&[home, rest]));
        }
        let user_home = if user == "root" {
            "/root".to_string()
        } else {
            let parent = home
                .map(|h| join_clean(&[h, ".."]))
                .filter(|p| p != "/")
                .unwrap_or_else(|| "/home".to_string());
            join_clean(&[&parent, user])
        };
        return Ok(join(&[&user_home, rest]));
    }
    if path.starts_with('/') {
        return Ok(join(&[path]));
    }
    let cwd = cwd.ok_or(PathError::NoWorkspace)?;
    Ok(join(&[cwd, path]))
}

/// The character devices and stream aliases that are no file a command
/// can plant text in or run: `/dev/null`, `/dev/zero`, `/dev/full`,
/// `/dev/random`, `/dev/urandom`, terminals (`/dev/tty*`, `/dev/pts/*`,
/// `/dev/ptmx`, `/dev/console`), the standard streams (`/dev/stdin`,
/// `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/PROCESS/fd/N`) and
/// bash's network paths (`/dev/tcp/…`, `/dev/udp/…`, judged as network).
/// An allow-list (review s23 V12): every other path under `/dev` —
/// `/dev/shm/x`, `/dev/mqueue/x` — is an ordinary file location.
/// `abs` is clean and absolute.
pub fn is_not_a_file(abs: &str) -> bool {
    if let Some(rest) = abs.strip_prefix("/dev/") {
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        return matches!(
            rest,
            "null"
                | "zero"
                | "full"
                | "random"
                | "urandom"
                | "ptmx"
                | "console"
                | "tty"
                | "stdin"
                | "stdout"
                | "stderr"
        ) || rest.strip_prefix("tty").is_some_and(|t| !t.contains('/'))
            || rest.strip_prefix("pts/").is_some_and(digits)
            || rest.strip_prefix("fd/").is_some_and(digits)
            || rest.starts_with("tcp/")
            || rest.starts_with("udp/");
    }
    let parts: Vec<&str> = abs.split('/').skip(1).collect();
    matches!(magic(&parts), Magic::Opaque) && parts.len() >= 2 && parts[parts.len() - 2] == "fd"
}

/// Whether `word` names a process in `/proc/WORD`: `self`,
/// `thread-self`, a number, or the shell's own pid written as a variable
/// (`$$`, `$BASHPID`; text the shell check leaves unexpanded).
fn is_process(word: &str) -> bool {
    matches!(word, "self" | "thread-self")
        || (!word.is_empty() && word.bytes().all(|b| b.is_ascii_digit()))
        || this_shell(word)
}

/// `/proc/WORD` that is the running command's own process: its working
/// directory is the command's.
fn this_shell(word: &str) -> bool {
    matches!(
        word,
        "self" | "thread-self" | "$$" | "${$}" | "$BASHPID" | "${BASHPID}"
    )
}

/// What the kernel does with a path that ends at `parts` (its segments
/// after `/`).
enum Magic {
    /// An ordinary directory entry.
    Plain,
    /// A link whose target is this fixed path (`/dev/fd` → `/proc/self/fd`).
    Alias(&'static str),
    /// `/proc/PROCESS/cwd` of the command itself: its working directory.
    Cwd,
    /// `/proc/PROCESS/cwd` of another process: a directory unknown here.
    OtherCwd,
    /// `/proc/PROCESS/root`: `/`.
    Root,
    /// A link to whatever a process holds open (`fd/N`, `exe`,
    /// `map_files/X`, `ns/X`): not a place readable as text.
    Opaque,
}

fn magic(parts: &[&str]) -> Magic {
    match parts {
        ["dev", "fd"] => return Magic::Alias("/proc/self/fd"),
        ["dev", "stdin"] => return Magic::Alias("/proc/self/fd/0"),
        ["dev", "stdout"] => return Magic::Alias("/proc/self/fd/1"),
        ["dev", "stderr"] => return Magic::Alias("/proc/self/fd/2"),
        _ => {}
    }
    let ["proc", pid, rest @ ..] = parts else {
        return Magic::Plain;
    };
    if !is_process(pid) {
        return Magic::Plain;
    }
    let rest = match rest {
        ["task", tid, more @ ..] if is_process(tid) => more,
        r => r,
    };
    match rest {
        ["cwd"] if this_shell(pid) => Magic::Cwd,
        ["cwd"] => Magic::OtherCwd,
        ["root"] => Magic::Root,
        ["exe"] | ["fd", _] | ["map_files", _] | ["ns", _] => Magic::Opaque,
        _ => Magic::Plain,
    }
}

/// The absolute path `path` leads to when the kernel resolves it, for the
/// links known without a file system (review s23 V13, R1): `/proc/self/cwd`
/// (also `thread-self`, `$$`, `$BASHPID`, `task/T/`) is `cwd`,
/// `/proc/PROCESS/root` is `/`, `/dev/fd` is `/proc/self/fd`, `/dev/std*`
/// are `/proc/self/fd/0..2`, and a `..` applies to where the segment
/// before it leads, not to its text: after a segment that `link` knows as
/// a symbolic link (given the clean path so far, it returns the link's
/// clean absolute target), `..` climbs from the target.
///
/// `None`: the kernel leads somewhere the check cannot know — a path
/// through a process's open file, executable or mapped file
/// (`/proc/self/fd/3/x`, `/dev/stdin/..`), another process's working
/// directory, or `/proc/self/cwd` with `cwd` unknown. `path` must be
/// absolute; the result is clean.
pub fn kernel_path(
    path: &str,
    cwd: Option<&str>,
    link: &dyn Fn(&str) -> Option<String>,
) -> Option<String> {
    let segs: Vec<&str> = path
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    let mut out: Vec<String> = Vec::new();
    let joined = |out: &[String]| format!("/{}", out.join("/"));
    let split = |p: &str| -> Vec<String> {
        join_clean(&[p])
            .split('/')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    };
    for (i, seg) in segs.iter().enumerate() {
        let last = i + 1 == segs.len();
        // `/dev/fd/N`, `/dev/stdout` as the whole path stay as written:
        // a stream, the name every rule knows it by.
        let stream_end = last || (i + 2 == segs.len() && segs[i + 1] != "..");
        if *seg == ".." {
            if let Some(target) = link(&joined(&out)) {
                out = split(&target);
            }
            out.pop();
            continue;
        }
        out.push((*seg).to_string());
        // A link leads on (an alias may lead to another magic link).
        for _ in 0..4 {
            let parts: Vec<&str> = out.iter().map(String::as_str).collect();
            match magic(&parts) {
                Magic::Plain => break,
                Magic::Alias(_) if stream_end => break,
                Magic::Alias(to) => out = split(to),
                Magic::Cwd => match cwd.filter(|c| c.starts_with('/')) {
                    Some(c) => {
                        out = split(c);
                        break;
                    }
                    None => return None,
                },
                Magic::OtherCwd => return None,
                Magic::Root => {
                    out.clear();
                    break;
                }
                Magic::Opaque if last => break,
                Magic::Opaque => return None,
            }
        }
    }
    Some(joined(&out))
}

/// Clean a path without resolving it against anything: drop empty and `.`
/// segments and trailing slashes, apply `..` to the previous segment, keep
/// leading `..` of a relative path (`a/../../b` is `../b`) and keep `~` as an
/// ordinary first segment. Used to recognise sensitive file names in paths
/// that [`normalize`] cannot resolve. The empty result is `.`.
pub fn clean_lexically(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut out: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => match out.last() {
                Some(&"..") | None if !absolute => out.push(".."),
                Some(&"..") | None => {}
                Some(_) => {
                    out.pop();
                }
            },
            s => out.push(s),
        }
    }
    let joined = out.join("/");
    match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_string(),
        (false, false) => joined,
    }
}

/// Whether the clean absolute `path` is `root` itself or below it. Both must
/// be outputs of [`normalize`]; the test is by whole segments, so
/// `/w/project-old` is not inside `/w/project`.
pub fn is_within(path: &str, root: &str) -> bool {
    if root == "/" {
        return path.starts_with('/');
    }
    path == root || (path.starts_with(root) && path.as_bytes().get(root.len()) == Some(&b'/'))
}

/// The local path a `file:` URL names: the one reader of `file:` URLs
/// for path-guard, the hooks and shell-guard (review s23 R10). RFC 8089,
/// the scheme in any case: `file:/p` (one slash), `file:///p`,
/// `file://localhost/p` (`file://` and `file://localhost` alone are
/// `/`), and any number of slashes after the authority (`file:////p` is
/// `//p`, cleaned to `/p`); percent-decoded and without a `?query` or
/// `#fragment`, as a conforming parser yields it (curl, Node's
/// `fileURLToPath`, Python's `url2pathname`; review s22 R5:
/// `file:///w/toolvet%2Etoml` is `/w/toolvet.toml`). `None`: `text` is no
/// `file:` URL of an absolute path (`file:x` is the relative path it
/// spells). The decoded path may hold any byte; [`normalize`] refuses a
/// NUL or control character in it.
///
/// # Errors
/// [`PathError::RemoteUrl`] for a URL naming a host other than
/// `localhost`.
pub fn file_url_path(text: &str) -> Option<Result<String, PathError>> {
    let rest = strip_prefix_ignore_case(text, "file:")?;
    if !rest.starts_with('/') {
        return None;
    }
    let local = match rest.strip_prefix("//") {
        // `file://HOST/p`: only the local host names a file here.
        Some(auth) => {
            let end = auth.find(['/', '?', '#']).unwrap_or(auth.len());
            let host = &auth[..end];
            if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
                return Some(Err(PathError::RemoteUrl));
            }
            &auth[end..]
        }
        None => rest,
    };
    let local = local.split(['?', '#']).next().unwrap_or(local);
    let local = if local.is_empty() { "/" } else { local };
    Some(Ok(percent_decode(local)))
}

/// `text` as a path: the path a `file:` URL names ([`file_url_path`]),
/// checked for NUL and control characters again after decoding; other
/// strings pass through unchanged.
fn strip_file_url(path: &str) -> Result<std::borrow::Cow<'_, str>, PathError> {
    let Some(local) = file_url_path(path) else {
        return Ok(path.into());
    };
    let decoded = local?;
    if decoded.contains('\0') {
        return Err(PathError::Nul);
    }
    if let Some(c) = control_character(&decoded) {
        return Err(PathError::Control(c));
    }
    Ok(decoded.into())
}

/// `text` with each `%XX` escape decoded (bytes that are not UTF-8 become
/// U+FFFD); a `%` not followed by two hex digits stays. The one decoder of
/// `file:` URIs for path-guard, the hooks and shell-guard.
pub fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(v) = text
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(v);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// Join absolute `parts` (the first must start with `/`) and clean the
/// result; `..` never climbs above `/`.
fn join_clean(parts: &[&str]) -> String {
    let mut out: Vec<&str> = Vec::new();
    for seg in parts.iter().flat_map(|p| p.split('/')) {
        match seg {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            s => out.push(s),
        }
    }
    format!("/{}", out.join("/"))
}

/// The call-context attribute in which a front end that sees the file
/// system (the hooks) tells the checks where a call's paths really are:
/// a JSON object whose keys are paths as [`normalize`] spells them, each
/// with either an array of absolute paths the kernel reaches for it (its
/// real location with every symbolic link followed, and any of toolvet's
/// state files that is the same file, by device and inode: a hard link),
/// or a string saying why its real location cannot be found (a directory
/// that cannot be read, a loop of links). The checks judge a path as
/// written and as each of its real locations, the strictest decision
/// winning, and hold a write whose location cannot be found: a link the
/// run's history does not show (made by code, by git, with a computed
/// target, in an earlier session) then leads nowhere the checks cannot
/// see (review s22 R1).
pub const REAL_PATHS_ATTRIBUTE: &str = "toolvet.real_paths";

/// Where one path really is ([`REAL_PATHS_ATTRIBUTE`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Real {
    /// The absolute paths the kernel reaches for it.
    At(Vec<String>),
    /// Why its real location cannot be found.
    Unknown(String),
}

/// The value of [`REAL_PATHS_ATTRIBUTE`], read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RealPaths(std::collections::BTreeMap<String, Real>);

impl RealPaths {
    /// The attribute's `text` read; no attribute is no knowledge.
    ///
    /// # Errors
    /// Text that is not such an object.
    pub fn parse(text: Option<&str>) -> Result<RealPaths, String> {
        let Some(text) = text else {
            return Ok(RealPaths::default());
        };
        let bad = || format!("`{REAL_PATHS_ATTRIBUTE}` is not an object of paths to real paths");
        let value: serde_json::Value = serde_json::from_str(text).map_err(|_| bad())?;
        let serde_json::Value::Object(map) = value else {
            return Err(bad());
        };
        let mut out = std::collections::BTreeMap::new();
        for (key, value) in map {
            let real = match value {
                serde_json::Value::String(why) => Real::Unknown(why),
                serde_json::Value::Array(items) => Real::At(
                    items
                        .into_iter()
                        .map(|i| match i {
                            serde_json::Value::String(p) if p.starts_with('/') => Ok(p),
                            _ => Err(bad()),
                        })
                        .collect::<Result<_, _>>()?,
                ),
                _ => return Err(bad()),
            };
            out.insert(key, real);
        }
        Ok(RealPaths(out))
    }

    /// What is known of `path` (spelled as [`normalize`] spells it).
    pub fn get(&self, path: &str) -> Option<&Real> {
        self.0.get(path)
    }

    /// Record `real` for `path`.
    pub fn insert(&mut self, path: String, real: Real) {
        self.0.insert(path, real);
    }

    /// Add `real` to what is known of `path`: every location found for
    /// it kept (two spellings of one lexical path may lead to different
    /// places, review s23 R7), and a location that cannot be found
    /// outranking the rest. Adding never removes a location.
    pub fn merge(&mut self, path: String, real: Real) {
        match (self.0.get_mut(&path), real) {
            (None, real) => {
                self.0.insert(path, real);
            }
            (Some(Real::Unknown(_)), _) => {}
            (Some(old), Real::Unknown(why)) => *old = Real::Unknown(why),
            (Some(Real::At(old)), Real::At(new)) => {
                for p in new {
                    if !old.contains(&p) {
                        old.push(p);
                    }
                }
            }
        }
    }

    /// What is known, as symbolic-link facts for a check that follows
    /// links by text (shell-guard's run links, `crate::run::Facts`):
    /// one list of `(path, real location)` per alternative (the k-th
    /// location found for each path, the last one for a path with
    /// fewer), shorter paths first so that a search from the end meets
    /// the most specific first. A location under the real location of
    /// one of `roots` (a workspace or home reached through a link) is
    /// taken under that root as written, since the check places its
    /// roots as written; pairs that then name themselves are left out.
    /// A path whose location cannot be found is not a link: the hooks
    /// hold such a call before any check runs.
    pub fn links(&self, roots: &[&str]) -> Vec<Vec<(String, String)>> {
        let root_reals: Vec<(&str, &str)> = roots
            .iter()
            .filter_map(|r| match self.get(r) {
                Some(Real::At(at)) => Some(at.iter().map(move |a| (*r, a.as_str()))),
                _ => None,
            })
            .flatten()
            .collect();
        let as_written = |loc: &str| -> String {
            for (root, real) in &root_reals {
                if is_within(loc, real) {
                    let rest = loc[real.len()..].trim_start_matches('/');
                    return if rest.is_empty() {
                        root.to_string()
                    } else {
                        format!("{}/{rest}", root.trim_end_matches('/'))
                    };
                }
            }
            loc.to_string()
        };
        let widest = self
            .0
            .values()
            .map(|r| match r {
                Real::At(at) => at.len(),
                Real::Unknown(_) => 0,
            })
            .max()
            .unwrap_or(0);
        let mut keys: Vec<(&String, &Vec<String>)> = self
            .0
            .iter()
            .filter_map(|(k, r)| match r {
                Real::At(at) if !at.is_empty() => Some((k, at)),
                _ => None,
            })
            .collect();
        keys.sort_by_key(|(k, _)| k.len());
        (0..widest)
            .map(|i| {
                keys.iter()
                    .filter_map(|(k, at)| {
                        let loc = as_written(&at[i.min(at.len() - 1)]);
                        (loc != **k).then(|| ((*k).clone(), loc))
                    })
                    .collect::<Vec<_>>()
            })
            .filter(|l| !l.is_empty())
            .collect()
    }

    /// Whether nothing is known.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The attribute's text.
    pub fn to_json(&self) -> String {
        let map: serde_json::Map<String, serde_json::Value> = self
            .0
            .iter()
            .map(|(k, v)| {
                let v = match v {
                    Real::At(paths) => serde_json::Value::from(paths.clone()),
                    Real::Unknown(why) => serde_json::Value::from(why.clone()),
                };
                (k.clone(), v)
            })
            .collect();
        serde_json::Value::Object(map).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CWD: Option<&str> = Some("/home/alice/project");
    const HOME: Option<&str> = Some("/home/alice");

    fn n(path: &str) -> Result<String, PathError> {
        normalize(path, CWD, HOME)
    }

    #[test]
    fn climbing_above_the_root_stays_at_the_root() {
        assert_eq!(n("/../..").unwrap(), "/");
        assert_eq!(n("/..").unwrap(), "/");
        assert_eq!(n("/../etc/passwd").unwrap(), "/etc/passwd");
        assert_eq!(n("../../../../../../etc/passwd").unwrap(), "/etc/passwd");
    }

    #[test]
    fn dot_dot_in_relative_paths_climbs_out_of_the_workspace() {
        assert_eq!(n("a/../../b").unwrap(), "/home/alice/b");
        assert_eq!(
            n("src/../Cargo.toml").unwrap(),
            "/home/alice/project/Cargo.toml"
        );
        assert_eq!(n("..").unwrap(), "/home/alice");
        assert_eq!(n("...").unwrap(), "/home/alice/project/...");
    }

    #[test]
    fn duplicate_and_trailing_slashes_and_dots_are_dropped() {
        assert_eq!(n("//etc//passwd").unwrap(), "/etc/passwd");
        assert_eq!(n("/etc/ssh/").unwrap(), "/etc/ssh");
        assert_eq!(
            n("./src/./main.rs").unwrap(),
            "/home/alice/project/src/main.rs"
        );
        assert_eq!(n(".").unwrap(), "/home/alice/project");
        assert_eq!(n("./").unwrap(), "/home/alice/project");
        assert_eq!(n("").unwrap(), "/home/alice/project");
        assert_eq!(n("/").unwrap(), "/");
        assert_eq!(n("///").unwrap(), "/");
    }

    #[test]
    fn tilde_forms() {
        assert_eq!(n("~").unwrap(), "/home/alice");
        assert_eq!(n("~/").unwrap(), "/home/alice");
        assert_eq!(n("~/.ssh/id_rsa").unwrap(), "/home/alice/.ssh/id_rsa");
        assert_eq!(n("~/../bob").unwrap(), "/home/bob");
        assert_eq!(n("~root").unwrap(), "/root");
        assert_eq!(n("~root/.bashrc").unwrap(), "/root/.bashrc");
        assert_eq!(n("~bob/notes").unwrap(), "/home/bob/notes");
        assert_eq!(
            normalize("~bob/x", None, Some("/Users/alice")).unwrap(),
            "/Users/bob/x"
        );
        // No home known: another user's home falls back to /home/<name>.
        assert_eq!(normalize("~bob", None, None).unwrap(), "/home/bob");
        // A home directly under / has no useful parent either.
        assert_eq!(normalize("~bob", None, Some("/root")).unwrap(), "/home/bob");
        // `~` only matters at the start.
        assert_eq!(n("a/~/b").unwrap(), "/home/alice/project/a/~/b");
    }

    #[test]
    fn errors() {
        assert_eq!(n("a\0b"), Err(PathError::Nul));
        assert_eq!(n("/etc/passwd\0.txt"), Err(PathError::Nul));
        assert_eq!(
            n("/w/.claude/settings.json\r"),
            Err(PathError::Control('\r'))
        );
        assert_eq!(n("/w/a\r\nb"), Err(PathError::Control('\r')));
        assert_eq!(n("/w/a\x1b[8mb"), Err(PathError::Control('\x1b')));
        assert_eq!(
            normalize("notes.txt", Some("/w\0/etc"), None),
            Err(PathError::NoWorkspace)
        );
        // Found by the path_normalize fuzz target: a workspace holding a
        // control character made a path `normalize` itself then refused.
        assert_eq!(
            normalize("notes.txt", Some("/\x01 w/p"), None),
            Err(PathError::NoWorkspace)
        );
        assert_eq!(
            normalize("~/.ssh", None, Some("/home/a\x1b")),
            Err(PathError::NoHome)
        );
        assert_eq!(
            normalize("~/.ssh", None, Some("/home/a\0/")),
            Err(PathError::NoHome)
        );
        assert_eq!(
            normalize("src/main.rs", None, HOME),
            Err(PathError::NoWorkspace)
        );
        // A relative cwd is no workspace.
        assert_eq!(
            normalize("x", Some("project"), HOME),
            Err(PathError::NoWorkspace)
        );
        assert_eq!(normalize("~/.ssh", CWD, None), Err(PathError::NoHome));
        assert_eq!(normalize("~", CWD, Some("alice")), Err(PathError::NoHome));
        assert_eq!(
            n("file://evil.example/etc/passwd"),
            Err(PathError::RemoteUrl)
        );
        // Absolute paths need neither cwd nor home.
        assert_eq!(normalize("/etc/hosts", None, None).unwrap(), "/etc/hosts");
    }

    #[test]
    fn file_urls_are_paths_but_percent_escapes_stay_literal() {
        assert_eq!(n("file:///etc/passwd").unwrap(), "/etc/passwd");
        assert_eq!(n("FILE://localhost/etc/passwd").unwrap(), "/etc/passwd");
        assert_eq!(n("file://localhost").unwrap(), "/");
        assert_eq!(
            n("%2e%2e/%2e%2e/etc").unwrap(),
            "/home/alice/project/%2e%2e/%2e%2e/etc"
        );
        assert_eq!(n("..%2fsecret").unwrap(), "/home/alice/project/..%2fsecret");
        // Backslashes are ordinary characters on POSIX.
        assert_eq!(n("..\\..\\etc").unwrap(), "/home/alice/project/..\\..\\etc");
    }

    /// Review s22 R5: a `file:` URL is the path a URL parser yields.
    #[test]
    fn s22_file_urls_are_percent_decoded() {
        assert_eq!(
            n("file:///home/alice/project/toolvet%2Etoml").unwrap(),
            "/home/alice/project/toolvet.toml"
        );
        assert_eq!(
            n("file:///home/alice/%70ol/policy.toml").unwrap(),
            "/home/alice/pol/policy.toml"
        );
        assert_eq!(
            n("file:///w/state%2Fapprovals.db").unwrap(),
            "/w/state/approvals.db"
        );
        assert_eq!(n("file:///w/%2e%2e/x").unwrap(), "/x");
        assert_eq!(n("file:///w/a.txt?x=1#y").unwrap(), "/w/a.txt");
        assert_eq!(n("file:///w/a%00b"), Err(PathError::Nul));
        assert_eq!(n("file:///w/a%20b.txt").unwrap(), "/w/a b.txt");
        assert_eq!(n("file:///w/100%").unwrap(), "/w/100%");
    }

    /// Review s23 R10: every form of a local `file:` URL is its path.
    #[test]
    fn s23_every_file_url_form_is_its_path() {
        for url in [
            "file:/home/alice/pol/policy.toml",
            "file:///home/alice/pol/policy.toml",
            "file://localhost/home/alice/pol/policy.toml",
            "FILE://LocalHost/home/alice/pol/policy.toml",
            "File:/home/alice/%70ol/policy.toml",
            "file:////home/alice/pol/policy.toml",
            "file:/home/alice/pol/policy.toml?x#y",
        ] {
            assert_eq!(n(url).unwrap(), "/home/alice/pol/policy.toml", "{url}");
            assert_eq!(
                file_url_path(url).map(|r| normalize(&r.unwrap(), None, None).unwrap()),
                Some("/home/alice/pol/policy.toml".to_string()),
                "{url}"
            );
        }
        assert_eq!(n("file:"), Ok("/home/alice/project/file:".into()));
        assert_eq!(n("file:x"), Ok("/home/alice/project/file:x".into()));
        assert_eq!(n("file://"), Ok("/".into()));
        assert_eq!(n("file://evil/x"), Err(PathError::RemoteUrl));
        assert_eq!(n("file:/x%0ay"), Ok("/x\ny".into()));
        assert_eq!(n("file:/x%0dy"), Err(PathError::Control('\r')));
        assert_eq!(n("file:/x%00"), Err(PathError::Nul));
        assert_eq!(file_url_path("/x"), None);
        assert_eq!(file_url_path("https://x/y"), None);
    }

    #[test]
    fn cwd_and_home_are_cleaned_too() {
        assert_eq!(
            normalize("x", Some("/home/alice/project/"), None).unwrap(),
            "/home/alice/project/x"
        );
        assert_eq!(
            normalize("x", Some("/a/./b/../c//"), None).unwrap(),
            "/a/c/x"
        );
        assert_eq!(
            normalize("~/x", None, Some("/home/alice/")).unwrap(),
            "/home/alice/x"
        );
    }

    #[test]
    fn lexical_cleaning_keeps_what_it_cannot_resolve() {
        assert_eq!(clean_lexically("a/../../b"), "../b");
        assert_eq!(clean_lexically("~/.ssh//id_rsa"), "~/.ssh/id_rsa");
        assert_eq!(clean_lexically("./"), ".");
        assert_eq!(clean_lexically(""), ".");
        assert_eq!(clean_lexically("/../x/"), "/x");
        assert_eq!(clean_lexically("../../.env"), "../../.env");
    }

    /// Review s23 V13, R1: the kernel's magic links, followed before `..`.
    #[test]
    fn s23_kernel_paths() {
        let none = |_: &str| None;
        let k = |p: &str| kernel_path(p, CWD, &none);
        assert_eq!(
            k("/proc/self/cwd/../.bashrc").as_deref(),
            Some("/home/alice/.bashrc")
        );
        assert_eq!(k("/proc/$$/cwd/../pol").as_deref(), Some("/home/alice/pol"));
        assert_eq!(
            k("/proc/thread-self/cwd/x").as_deref(),
            Some("/home/alice/project/x")
        );
        assert_eq!(
            k("/dev/fd/../root/home/alice/.bashrc").as_deref(),
            Some("/home/alice/.bashrc")
        );
        assert_eq!(k("/proc/4242/root/tmp/x").as_deref(), Some("/tmp/x"));
        assert_eq!(k("/proc/self/task/7/root/etc").as_deref(), Some("/etc"));
        assert_eq!(k("/proc/self/cwd").as_deref(), Some("/home/alice/project"));
        // Unknown: through an open file, another process's cwd.
        assert_eq!(k("/dev/stdin/../x"), None);
        assert_eq!(k("/proc/self/fd/3/../x"), None);
        assert_eq!(k("/dev/fd/3/x"), None);
        assert_eq!(k("/proc/4242/cwd/x"), None);
        assert_eq!(kernel_path("/proc/self/cwd/x", None, &none), None);
        // Streams themselves stay as written.
        assert_eq!(k("/dev/stdout").as_deref(), Some("/dev/stdout"));
        assert_eq!(k("/dev/fd/2").as_deref(), Some("/dev/fd/2"));
        assert_eq!(k("/proc/self/fd/1").as_deref(), Some("/proc/self/fd/1"));
        assert_eq!(k("/proc/self/status").as_deref(), Some("/proc/self/status"));
        assert_eq!(k("/a/b/../c").as_deref(), Some("/a/c"));
        // `..` after a known link climbs from its target.
        let l =
            |p: &str| (p == "/home/alice/project/s4").then(|| "/home/alice/project".to_string());
        assert_eq!(
            kernel_path("/home/alice/project/s4/../pol", CWD, &l).as_deref(),
            Some("/home/alice/pol")
        );
        assert!(is_not_a_file("/dev/null"));
        assert!(is_not_a_file("/dev/fd/3"));
        assert!(is_not_a_file("/proc/self/fd/1"));
        assert!(is_not_a_file("/dev/tty1"));
        assert!(!is_not_a_file("/dev/shm/x"));
        assert!(!is_not_a_file("/dev/mqueue/q"));
        assert!(!is_not_a_file("/dev/sda"));
    }

    #[test]
    fn within_is_by_whole_segments() {
        assert!(is_within("/w/p", "/w/p"));
        assert!(is_within("/w/p/src/main.rs", "/w/p"));
        assert!(!is_within("/w/project-old/x", "/w/project"));
        assert!(!is_within("/w", "/w/p"));
        assert!(is_within("/anything", "/"));
        assert!(is_within("/", "/"));
    }

    /// A small deterministic generator (xorshift) so the property tests need
    /// no extra crate and fail the same way every run.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
            items[(self.next() % items.len() as u64) as usize]
        }
    }

    fn random_path(rng: &mut Rng) -> String {
        const PIECES: &[&str] = &[
            "", ".", "..", "...", "a", "b", "src", "~", ".ssh", "%2e", "x y", "é", "/", "//",
        ];
        let len = rng.next() % 8;
        let mut s = String::new();
        if rng.next().is_multiple_of(3) {
            s.push('/');
        }
        for i in 0..len {
            if i > 0 {
                s.push('/');
            }
            s.push_str(rng.pick(PIECES));
        }
        s
    }

    #[test]
    fn property_results_are_clean_absolute_and_idempotent() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..5000 {
            let p = random_path(&mut rng);
            let out = n(&p).unwrap_or_else(|e| panic!("{p:?}: {e}"));
            assert!(out.starts_with('/'), "{p:?} -> {out:?}");
            assert!(!out.contains("//"), "{p:?} -> {out:?}");
            assert!(out == "/" || !out.ends_with('/'), "{p:?} -> {out:?}");
            for seg in out.split('/').skip(1) {
                assert!(seg != "." && seg != "..", "{p:?} -> {out:?}");
                assert!(out == "/" || !seg.is_empty(), "{p:?} -> {out:?}");
            }
            assert_eq!(
                normalize(&out, None, None).unwrap(),
                out,
                "not idempotent for {p:?}"
            );
        }
    }

    #[test]
    fn property_relative_paths_without_dot_dot_stay_inside_cwd() {
        let mut rng = Rng(0x0123_4567_89ab_cdef);
        for _ in 0..5000 {
            let p = random_path(&mut rng);
            let rel = p.trim_start_matches('/');
            if rel.split('/').any(|s| s == "..") || rel.starts_with('~') {
                continue;
            }
            let out = n(rel).unwrap();
            assert!(is_within(&out, CWD.unwrap()), "{rel:?} -> {out:?}");
        }
    }

    #[test]
    fn property_lexical_cleaning_agrees_with_normalize_on_absolute_paths() {
        let mut rng = Rng(0xdead_beef_cafe_f00d);
        for _ in 0..5000 {
            let p = format!("/{}", random_path(&mut rng));
            assert_eq!(clean_lexically(&p), n(&p).unwrap(), "{p:?}");
        }
    }
}
