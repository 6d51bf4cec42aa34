//! Path normalisation and classification of the places a command touches.
//!
//! Paths are handled as text (the plugin has no filesystem): `.` and `..`
//! are folded lexically, so symlinks are not followed.

/// The system directories, the catalog's one list (shared with
/// path-guard).
pub use check_catalog::places::{SYSTEM_DIRS, SYSTEM_TREES};

/// Where a path leads that the kernel resolves through a link the check
/// cannot follow (a process's open file, `/proc/self/fd/3/..`, another
/// process's working directory): [`unknown_place`] puts it below this
/// directory, keeping its names so name rules (`**/.ssh/**`, `.bashrc`)
/// still match. Not a real directory; writes there are held.
pub const UNKNOWN_PLACE: &str = "/(unknown)";

/// The stand-in for a path [`check_catalog::pathnorm::kernel_path`] cannot
/// place: [`UNKNOWN_PLACE`] followed by its names (no `.`/`..`).
fn unknown_place(path: &str) -> String {
    let mut s = UNKNOWN_PLACE.to_string();
    for seg in path.split('/').filter(|s| !matches!(*s, "" | "." | "..")) {
        s.push('/');
        s.push_str(seg);
    }
    s
}

/// Whether `abs` is (below) [`UNKNOWN_PLACE`].
pub fn is_unknown_place(abs: &str) -> bool {
    is_at_or_under(abs, UNKNOWN_PLACE)
}

/// Fold `.`, `..` and repeated slashes of an absolute path as the kernel
/// resolves it (review s23 V13): `/proc/PROCESS/root` is `/`, `/dev/fd` is
/// `/proc/self/fd`, and a `..` applies to where a magic link leads; a
/// path the kernel leads somewhere unknown (`/dev/fd/3/..`,
/// `/proc/self/cwd/…` with no working directory known) is below
/// [`UNKNOWN_PLACE`]. `..` at the root stays at the root. The result has
/// no trailing slash (except `/`).
pub fn normalize_abs(path: &str) -> String {
    resolve_with(None, path, &|_| None)
}

/// Resolve `path` against the absolute directory `base` and normalise as
/// [`normalize_abs`]. The process's own working directory under `/proc`
/// (`/proc/self/cwd/x`, `/proc/thread-self/cwd`, `/proc/$$/cwd`) is
/// `base` (review s10 H25), and `..` after it climbs from `base` (review
/// s23 R1).
pub fn resolve(base: &str, path: &str) -> String {
    resolve_with(Some(base), path, &|_| None)
}

/// [`resolve`] (or [`normalize_abs`] without `base`) where `link` knows
/// the symbolic links of the run: given a clean absolute path, the clean
/// absolute target when it is a link. A `..` after a link climbs from the
/// link's target, as the kernel's (review s23 R1: `ln -s . s4; s4/../x`
/// is the workspace's parent).
pub fn resolve_with(
    base: Option<&str>,
    path: &str,
    link: &dyn Fn(&str) -> Option<String>,
) -> String {
    let abs = match base {
        Some(b) if !path.starts_with('/') => format!("{b}/{path}"),
        _ => path.to_string(),
    };
    check_catalog::pathnorm::kernel_path(&abs, base, link).unwrap_or_else(|| unknown_place(&abs))
}

/// The local path a URI operand names (review s15 N6): a local `file:`
/// URL as the catalog's one reader takes it
/// ([`check_catalog::pathnorm::file_url_path`]: `file:/p`, `file:///p`,
/// `file://localhost/p`, percent-decoded; review s23 R10), and rclone's
/// local backend `:local:/p`, `local:/p`. Other text is not a URI of a
/// local file.
pub fn uri_path(text: &str) -> Option<String> {
    if let Some(local) = check_catalog::pathnorm::file_url_path(text) {
        return local.ok();
    }
    if let Some(r) = text.strip_prefix("local:") {
        if !r.starts_with('/') {
            return None;
        }
        return Some(r.to_string());
    }
    if text.starts_with(':') {
        return match rclone_place(text, &|_, _| None)? {
            RcloneAt::Local(p) => p.into_iter().next(),
            _ => None,
        };
    }
    None
}

/// Where an rclone path's files are (review s16 P3, s17 Q2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RcloneAt {
    /// These local paths (relative to the working directory when
    /// relative): one, or one per `union` upstream on this machine.
    Local(Vec<String>),
    /// A backend known to keep its files elsewhere (`:s3:bucket`, a
    /// remote defined in rclone.conf, which the check cannot read).
    Remote,
    /// A backend the check cannot place: an unknown type, or a network
    /// backend pointed at this machine.
    Unknown,
}

/// rclone's backend types that keep their files away from this machine
/// (rclone.org/overview: every storage system but `local`, the wrappers
/// and the network file protocols that may name this machine).
const RCLONE_REMOTE_TYPES: &[&str] = &[
    "acd",
    "azureblob",
    "azurefiles",
    "b2",
    "box",
    "cloudinary",
    "drive",
    "dropbox",
    "fichier",
    "filefabric",
    "filescom",
    "gcs",
    "gofile",
    "google cloud storage",
    "google photos",
    "gphotos",
    "hidrive",
    "http",
    "iclouddrive",
    "imagekit",
    "internetarchive",
    "jottacloud",
    "koofr",
    "linkbox",
    "mailru",
    "mega",
    "memory",
    "netstorage",
    "onedrive",
    "opendrive",
    "oracleobjectstorage",
    "pcloud",
    "pikpak",
    "pixeldrain",
    "premiumizeme",
    "protondrive",
    "putio",
    "qingstor",
    "quatrix",
    "s3",
    "sharefile",
    "storj",
    "tardigrade",
    "sugarsync",
    "swift",
    "ulozto",
    "uptobox",
    "yandex",
    "zoho",
];

/// Network file protocols: remote unless their host is this machine.
const RCLONE_NETWORK_TYPES: &[&str] = &["sftp", "ftp", "smb", "webdav", "hdfs", "seafile", "sia"];

/// Wrapper backends and the parameter naming the remote(s) they store
/// their files in (rclone docs of each: `remote=` is another rclone
/// path, a local directory included; `upstreams=` a space-separated list).
const RCLONE_WRAPPERS: &[(&str, &str)] = &[
    ("alias", "remote"),
    ("chunker", "remote"),
    ("hasher", "remote"),
    ("crypt", "remote"),
    ("compress", "remote"),
    ("cache", "remote"),
    ("union", "upstreams"),
    ("combine", "upstreams"),
];

/// A parameter of a remote defined outside the text (`RCLONE_CONFIG_X_TYPE`
/// in the environment): `(remote name, parameter)` to its value.
pub type RcloneVars<'a> = &'a dyn Fn(&str, &str) -> Option<String>;

/// Where rclone path `text` is: `:BACKEND[,K=V…]:PATH` (on the fly),
/// `NAME[,K=V…]:PATH` (a named remote: its type and parameters from
/// `vars`, else rclone.conf). `None` when `text` is a plain local path.
/// Wrappers are followed through their `remote=`/`upstreams=` to the
/// directory they store in, recursively; parameter values may be quoted
/// with `"` or `'` (a doubled quote inside stands for one), as rclone's
/// connection strings are.
pub fn rclone_place(text: &str, vars: RcloneVars<'_>) -> Option<RcloneAt> {
    rclone_place_depth(text, vars, 0)
}

fn rclone_place_depth(text: &str, vars: RcloneVars<'_>, depth: u32) -> Option<RcloneAt> {
    if depth > 8 {
        return Some(RcloneAt::Unknown);
    }
    let (on_the_fly, rest) = match text.strip_prefix(':') {
        Some(r) => (true, r),
        None => (false, text),
    };
    // The backend and its parameters end at the first `:` outside quotes.
    let mut quote = None;
    let mut end = None;
    for (k, c) in rest.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, ':') => {
                end = Some(k);
                break;
            }
            _ => {}
        }
    }
    let end = end?;
    let (spec, path) = (&rest[..end], &rest[end + 1..]);
    let mut parts = rclone_params(spec).into_iter();
    let (first, _) = parts.next()?;
    let params: Vec<(String, String)> = parts.collect();
    let name = first.trim().to_string();
    if !on_the_fly
        && (name.is_empty()
            || name.starts_with('-')
            || !name
                .chars()
                .all(|c| c.is_alphanumeric() || "_.- @+".contains(c)))
    {
        return None;
    }
    let param = |key: &str| -> Option<String> {
        params
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
            .or_else(|| (!on_the_fly).then(|| vars(&name, key)).flatten())
    };
    let backend = if on_the_fly {
        Some(name.to_ascii_lowercase())
    } else {
        vars(&name, "type").map(|t| t.trim().to_ascii_lowercase())
    };
    let join = |dir: &str, path: &str| {
        if path.is_empty() {
            dir.to_string()
        } else if dir.is_empty() {
            path.to_string()
        } else {
            format!(
                "{}/{}",
                dir.trim_end_matches('/'),
                path.trim_start_matches('/')
            )
        }
    };
    let wrapper = |key: &str| -> RcloneAt {
        let Some(value) = param(key) else {
            return RcloneAt::Unknown;
        };
        let upstreams: Vec<String> = if key == "upstreams" {
            rclone_words(&value)
        } else {
            vec![value]
        };
        let mut found = RcloneAt::Remote;
        let mut local = Vec::new();
        for up in upstreams {
            // `combine`: `DIRNAME=REMOTE`, the path's first part choosing it.
            let (sub, up) = match up.split_once('=') {
                Some((d, r)) if !d.contains([':', '/']) => (Some(d.to_string()), r.to_string()),
                _ => (None, up),
            };
            let inner_path = match &sub {
                Some(d) => match path.trim_start_matches('/').split_once('/') {
                    Some((first, after)) if first == d => after.to_string(),
                    None if path.trim_start_matches('/') == d => String::new(),
                    // Another upstream's directory, or the root holding them.
                    _ if path.trim_matches('/').is_empty() => String::new(),
                    _ => continue,
                },
                None => path.to_string(),
            };
            // `union`: an upstream may end in `:ro`, `:nc` or `:writeback`.
            let up = ["ro", "nc", "writeback"]
                .iter()
                .find_map(|m| up.strip_suffix(&format!(":{m}")))
                .map_or(up.clone(), str::to_string);
            let at = rclone_place_depth(&up, vars, depth + 1)
                .unwrap_or_else(|| RcloneAt::Local(vec![up.clone()]));
            match at {
                RcloneAt::Local(dirs) => local.extend(dirs.iter().map(|d| join(d, &inner_path))),
                RcloneAt::Unknown => found = RcloneAt::Unknown,
                RcloneAt::Remote => {}
            }
        }
        if local.is_empty() {
            found
        } else {
            RcloneAt::Local(local)
        }
    };
    Some(match backend.as_deref() {
        Some("local") => RcloneAt::Local(vec![if path.is_empty() {
            ".".into()
        } else {
            path.to_string()
        }]),
        Some(b) if RCLONE_REMOTE_TYPES.contains(&b) => {
            // A remote-storing backend given a wrapper's parameter keeps
            // its files remote; only the wrappers read `remote=`.
            RcloneAt::Remote
        }
        Some(b) if RCLONE_NETWORK_TYPES.contains(&b) => {
            let host = param("host").or_else(|| param("url")).unwrap_or_default();
            let host = host.to_ascii_lowercase();
            let local = host.is_empty()
                || ["localhost", "127.", "[::1]", "::1", "0.0.0.0", "[::]"]
                    .iter()
                    .any(|h| host.contains(h));
            if local {
                RcloneAt::Unknown
            } else {
                RcloneAt::Remote
            }
        }
        Some(b) => match RCLONE_WRAPPERS.iter().find(|(w, _)| *w == b) {
            Some((_, key)) => wrapper(key),
            None => RcloneAt::Unknown,
        },
        // A remote of rclone.conf: its type is not known here. A wrapper's
        // parameter given on the command line points it at that place; an
        // absolute path may be on this machine (a local or alias remote).
        None => {
            if param("remote").is_some() {
                wrapper("remote")
            } else if param("upstreams").is_some() {
                wrapper("upstreams")
            } else if path.starts_with('/') {
                RcloneAt::Local(vec![path.to_string()])
            } else {
                RcloneAt::Remote
            }
        }
    })
}

/// The `NAME=VALUE` parameters of a connection string's spec
/// (`chunker,remote="a,b",hash_type=md5`), split at commas outside
/// quotes, values unquoted (a doubled quote inside stands for one); the
/// first entry is the backend or remote name (value empty). Keys are
/// lower case, `-` read as `_`, as rclone reads them.
fn rclone_params(spec: &str) -> Vec<(String, String)> {
    let mut items = vec![String::new()];
    let mut quote: Option<char> = None;
    let mut chars = spec.chars().peekable();
    while let Some(c) = chars.next() {
        let cur = items.last_mut().expect("never empty");
        match (quote, c) {
            (Some(q), c) if c == q && chars.peek() == Some(&q) => {
                chars.next();
                cur.push(q);
            }
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '"' | '\'') => quote = Some(c),
            (None, ',') => items.push(String::new()),
            (None, c) => cur.push(c),
        }
    }
    let mut out = vec![(items.remove(0), String::new())];
    for item in items.iter().filter(|i| !i.trim().is_empty()) {
        let (k, v) = item.split_once('=').unwrap_or((item, "true"));
        out.push((
            k.trim().to_ascii_lowercase().replace('-', "_"),
            v.to_string(),
        ));
    }
    out
}

/// The words of a space-separated parameter value (`upstreams="/a /b:ro"`),
/// quotes kept apart as rclone's config reader does.
fn rclone_words(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    for c in value.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '"' | '\'') => quote = Some(c),
            (None, c) if c.is_whitespace() => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            (None, c) => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Fold a relative path lexically without knowing where it starts. Returns
/// `None` when it climbs above its starting directory (`../x`, `a/../..`).
pub fn normalize_rel(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for comp in path.split('/') {
        match comp {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            c => parts.push(c),
        }
    }
    Some(parts.join("/"))
}

/// Whether `path` is `root` or below it (both normalised, absolute).
pub fn is_at_or_under(path: &str, root: &str) -> bool {
    root == "/"
        || path == root
        || (path.len() > root.len()
            && path.starts_with(root)
            && path.as_bytes()[root.len()] == b'/')
}

/// Whether `path` is strictly below `root`.
pub fn is_under(path: &str, root: &str) -> bool {
    path != root && is_at_or_under(path, root)
}

/// Whether `path` is a home directory: the known `home`, `/root`,
/// `/home/<user>` or `/Users/<user>`.
pub fn is_home_dir(path: &str, home: Option<&str>) -> bool {
    check_catalog::places::is_home_dir(path, home)
}

/// Directories inside a system tree that are ordinary places anyone
/// writes files to (review s23 V12: `/dev/shm/x` is a file).
pub const SHARED_TREES: &[&str] = &["/dev/shm", "/dev/mqueue"];

/// Whether `path` is below one of the [`SHARED_TREES`].
pub fn is_shared(path: &str) -> bool {
    SHARED_TREES.iter().any(|t| is_under(path, t))
}

/// Whether `path` is an operating-system directory or inside one.
pub fn is_system(path: &str) -> bool {
    if is_shared(path) {
        return false;
    }
    SYSTEM_DIRS.contains(&path) || SYSTEM_TREES.iter().any(|t| is_at_or_under(path, t))
}

/// The directory that `path` is the home of, when a home is recognised at
/// its start: `/home/alice/x` gives `/home/alice`.
pub fn home_of(path: &str) -> Option<String> {
    if is_at_or_under(path, "/root") {
        return Some("/root".into());
    }
    for base in ["/home/", "/Users/"] {
        if let Some(rest) = path.strip_prefix(base) {
            let user = rest.split('/').next().unwrap_or("");
            if !user.is_empty() {
                return Some(format!("{base}{user}"));
            }
        }
    }
    None
}

/// Where an absolute, normalised path lies, from the point of view of a
/// destructive command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// `/` itself.
    Root,
    /// A home directory itself (`~`, `/home/bob`, `/root`).
    Home,
    /// A workspace root itself.
    WorkspaceRoot,
    /// Strictly inside a workspace root or a scratch root.
    Inside,
    /// An operating-system directory or a path inside one.
    System,
    /// Anywhere else: outside every workspace.
    Outside,
}

/// The roots a path is judged against.
#[derive(Debug, Clone, Copy)]
pub struct Places<'a> {
    /// Workspace roots (absolute, normalised). Empty: none known.
    pub workspace: &'a [String],
    /// Scratch roots such as `/tmp`.
    pub scratch: &'a [String],
    /// The user's home directory, when known.
    pub home: Option<&'a str>,
}

impl Places<'_> {
    /// Classify an absolute, normalised path.
    pub fn classify(&self, path: &str) -> Place {
        if path == "/" {
            return Place::Root;
        }
        if is_home_dir(path, self.home) {
            return Place::Home;
        }
        if self.workspace.iter().any(|w| w == path) {
            return Place::WorkspaceRoot;
        }
        if self
            .workspace
            .iter()
            .chain(self.scratch.iter())
            .any(|w| is_under(path, w))
        {
            return Place::Inside;
        }
        if is_system(path) {
            return Place::System;
        }
        Place::Outside
    }

    /// Classify the entries below a directory (what `rm -r dir/*` or
    /// `find dir -delete` removes). `deep` is set when the glob is not in the
    /// last component (`/*/cache`).
    pub fn classify_contents(&self, dir: &str, deep: bool) -> Place {
        match self.classify(dir) {
            Place::Root if deep => Place::System,
            Place::WorkspaceRoot => Place::Inside,
            Place::System if !SYSTEM_TREES.iter().any(|t| is_at_or_under(dir, t)) => {
                // Below /home, /tmp, /mnt ...: entries belong to users.
                if self.scratch.iter().any(|s| s == dir) {
                    Place::Inside
                } else if dir == "/home" || dir == "/Users" {
                    Place::Home
                } else {
                    Place::Outside
                }
            }
            p => p,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalise() {
        assert_eq!(normalize_abs("/"), "/");
        assert_eq!(normalize_abs("//usr//lib/"), "/usr/lib");
        assert_eq!(normalize_abs("/a/b/../../.."), "/");
        assert_eq!(normalize_abs("/a/./b/../c"), "/a/c");
        assert_eq!(
            resolve("/home/alice/project", "build/../../x"),
            "/home/alice/x"
        );
        assert_eq!(resolve("/home/alice/project", "/etc/"), "/etc");
        assert_eq!(resolve("/home/alice/project", "."), "/home/alice/project");
        assert_eq!(normalize_rel("a/./b/.."), Some("a".into()));
        assert_eq!(normalize_rel("a/../.."), None);
        assert_eq!(normalize_rel("."), Some(String::new()));
    }

    #[test]
    fn under() {
        assert!(is_under("/home/alice/project/x", "/home/alice/project"));
        assert!(!is_under("/home/alice/project", "/home/alice/project"));
        assert!(!is_under("/home/alice/projectx", "/home/alice/project"));
        assert!(is_at_or_under("/etc", "/etc"));
        assert_eq!(home_of("/home/alice/project"), Some("/home/alice".into()));
        assert_eq!(home_of("/Users/bob"), Some("/Users/bob".into()));
        assert_eq!(home_of("/srv/x"), None);
    }

    #[test]
    fn classify() {
        let ws = vec!["/home/alice/project".to_string()];
        let scratch = vec!["/tmp".to_string()];
        let p = Places {
            workspace: &ws,
            scratch: &scratch,
            home: Some("/home/alice"),
        };
        assert_eq!(p.classify("/"), Place::Root);
        assert_eq!(p.classify("/home/alice"), Place::Home);
        assert_eq!(p.classify("/home/bob"), Place::Home);
        assert_eq!(p.classify("/root"), Place::Home);
        assert_eq!(p.classify("/home/alice/project"), Place::WorkspaceRoot);
        assert_eq!(p.classify("/home/alice/project/build"), Place::Inside);
        assert_eq!(p.classify("/tmp/x"), Place::Inside);
        assert_eq!(p.classify("/tmp"), Place::System);
        assert_eq!(p.classify("/etc/nginx"), Place::System);
        assert_eq!(p.classify("/usr"), Place::System);
        assert_eq!(p.classify("/home"), Place::System);
        assert_eq!(p.classify("/home/alice/other"), Place::Outside);
        assert_eq!(p.classify("/data/x"), Place::Outside);
        assert_eq!(p.classify_contents("/", false), Place::Root);
        assert_eq!(p.classify_contents("/", true), Place::System);
        assert_eq!(
            p.classify_contents("/home/alice/project", false),
            Place::Inside
        );
        assert_eq!(p.classify_contents("/tmp", false), Place::Inside);
        assert_eq!(p.classify_contents("/home", false), Place::Home);
        assert_eq!(p.classify_contents("/etc", false), Place::System);
        assert_eq!(p.classify_contents("/home/alice", false), Place::Home);
    }
}
