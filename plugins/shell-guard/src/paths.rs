//! Path normalisation and classification of the places a command touches.
//!
//! Paths are handled as text (the plugin has no filesystem): `.` and `..`
//! are folded lexically, so symlinks are not followed.

/// Directories whose whole tree belongs to the operating system.
pub const SYSTEM_TREES: &[&str] = &[
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/opt",
    "/proc",
    "/run",
    "/sbin",
    "/snap",
    "/srv",
    "/sys",
    "/usr",
    "/var",
    "/nix",
    "/System",
    "/Library",
    "/Applications",
    "/private",
];

/// Directories that must not be deleted themselves, though what is below
/// them may belong to a user (homes, mounts, temporary files).
pub const SYSTEM_DIRS: &[&str] = &[
    "/home",
    "/Users",
    "/root",
    "/tmp",
    "/mnt",
    "/media",
    "/Volumes",
    "/lost+found",
];

/// Fold `.`, `..` and repeated slashes of an absolute path. `..` at the root
/// stays at the root. The result has no trailing slash (except `/`).
pub fn normalize_abs(path: &str) -> String {
    let out = normalize_plain(path);
    // `/proc/self/root/x` is `/x` (the process's own root).
    match proc_self(&out, "root") {
        Some(rest) => normalize_abs(&format!("/{rest}")),
        None => out,
    }
}

/// [`normalize_abs`] without the `/proc` aliases.
fn normalize_plain(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for comp in path.split('/') {
        match comp {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    if parts.is_empty() {
        "/".to_string()
    } else {
        let mut s = String::with_capacity(path.len());
        for p in parts {
            s.push('/');
            s.push_str(p);
        }
        s
    }
}

/// Resolve `path` against the absolute directory `base` and normalise.
/// The process's own working directory under `/proc` (`/proc/self/cwd/x`,
/// `/proc/thread-self/cwd`, `/proc/PID/cwd`) is `base` (review s10 H25).
pub fn resolve(base: &str, path: &str) -> String {
    let abs = if path.starts_with('/') {
        normalize_abs(path)
    } else {
        normalize_abs(&format!("{base}/{path}"))
    };
    match proc_self(&abs, "cwd") {
        Some(rest) => normalize_abs(&format!("{base}/{rest}")),
        None => abs,
    }
}

/// The rest of `abs` after `/proc/{self,thread-self,PID}/ENTRY`, if it is
/// under one.
fn proc_self<'a>(abs: &'a str, entry: &str) -> Option<&'a str> {
    let rest = abs.strip_prefix("/proc/")?;
    let (pid, rest) = rest.split_once('/')?;
    let is_self = matches!(pid, "self" | "thread-self")
        || (!pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()));
    if !is_self {
        return None;
    }
    let rest = rest.strip_prefix(entry)?;
    (rest.is_empty() || rest.starts_with('/')).then(|| rest.trim_start_matches('/'))
}

/// The local path a URI operand names (review s15 N6): `file:///p`,
/// `file://localhost/p`, `file:/p` (percent-decoded: `%68ooks` is
/// `hooks`), and rclone's local backend `:local:/p`, `local:/p`. Other
/// text is not a URI of a local file.
pub fn uri_path(text: &str) -> Option<String> {
    let lower = text.get(..7).map(str::to_ascii_lowercase);
    let rest = if lower.as_deref().is_some_and(|l| l.starts_with("file:")) {
        let r = &text[5..];
        match r.strip_prefix("//") {
            // `file://HOST/p`: only the local host names a file here.
            Some(h) => {
                let slash = h.find('/')?;
                let host = &h[..slash];
                if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
                    return None;
                }
                &h[slash..]
            }
            None if r.starts_with('/') => r,
            None => return None,
        }
    } else if let Some(r) = text.strip_prefix("local:") {
        if !r.starts_with('/') {
            return None;
        }
        return Some(r.to_string());
    } else if text.starts_with(':') {
        return rclone_connection_path(text);
    } else {
        return None;
    };
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(v) = rest
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
    Some(String::from_utf8_lossy(&out).into_owned())
}

/// The local path an rclone connection string names (review s16 P3):
/// `:local:/p`, `:local,nounc=true:/p`, `:local:../p` (relative to the
/// working directory, returned relative), `:alias,remote=DIR:p` (DIR/p,
/// DIR itself read the same way); other backends (`:s3:bucket`) are not
/// local.
fn rclone_connection_path(text: &str) -> Option<String> {
    let rest = text.strip_prefix(':')?;
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
    let mut parts = spec.split(',');
    let backend = parts.next()?.trim().to_ascii_lowercase();
    let join = |dir: &str, path: &str| {
        if path.is_empty() {
            dir.to_string()
        } else if path.starts_with('/') && dir.is_empty() {
            path.to_string()
        } else {
            format!("{}/{}", dir.trim_end_matches('/'), path)
        }
    };
    match backend.as_str() {
        "local" => Some(if path.is_empty() {
            ".".into()
        } else {
            path.to_string()
        }),
        "alias" => {
            let remote = parts.find_map(|p| {
                let (k, v) = p.split_once('=')?;
                (k.trim().eq_ignore_ascii_case("remote"))
                    .then(|| v.trim().trim_matches(['\'', '"']))
            })?;
            let dir = if remote.starts_with(':') || remote.starts_with("local:") {
                uri_path(remote)?
            } else if remote.contains(':') {
                return None;
            } else {
                remote.to_string()
            };
            Some(join(&dir, path))
        }
        _ => None,
    }
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
    if home == Some(path) || path == "/root" {
        return true;
    }
    for base in ["/home/", "/Users/"] {
        if let Some(user) = path.strip_prefix(base)
            && !user.is_empty()
            && !user.contains('/')
        {
            return true;
        }
    }
    false
}

/// Whether `path` is an operating-system directory or inside one.
pub fn is_system(path: &str) -> bool {
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
