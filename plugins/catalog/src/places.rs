//! The places no tool may take for a workspace or remove: `/`, the
//! operating system's directories and the homes. One list for the shell
//! check and the file check (review s25 F2: path-guard took a working
//! directory of `/` for the workspace, where shell-guard refuses it).

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

/// Whether the absolute, normalised `path` is `/` or one of the system
/// directories themselves ([`SYSTEM_TREES`], [`SYSTEM_DIRS`]; not what is
/// below them).
#[must_use]
pub fn is_system_dir(path: &str) -> bool {
    path == "/" || SYSTEM_DIRS.contains(&path) || SYSTEM_TREES.contains(&path)
}

/// Whether the absolute, normalised working directory `cwd` makes a
/// workspace: not `/` and not a system directory ([`is_system_dir`]). A
/// check that takes the working directory for the workspace when no roots
/// are configured takes none for these (shell-guard's `workspace_of`,
/// path-guard's roots).
#[must_use]
pub fn makes_workspace(cwd: &str) -> bool {
    cwd.starts_with('/') && !is_system_dir(cwd)
}

/// Whether the absolute, normalised `path` is a home directory itself:
/// `home`, `/root`, or `/home/<user>` or `/Users/<user>`.
#[must_use]
pub fn is_home_dir(path: &str, home: Option<&str>) -> bool {
    if home == Some(path) || path == "/root" {
        return true;
    }
    ["/home/", "/Users/"].iter().any(|base| {
        path.strip_prefix(base)
            .is_some_and(|user| !user.is_empty() && !user.contains('/'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_and_system_directories_make_no_workspace() {
        for cwd in [
            "/", "/etc", "/srv", "/home", "/Users", "/tmp", "/root", "/usr",
        ] {
            assert!(!makes_workspace(cwd), "{cwd}");
        }
        for cwd in [
            "/home/alice",
            "/home/alice/project",
            "/srv/app",
            "/tmp/x",
            "/data",
        ] {
            assert!(makes_workspace(cwd), "{cwd}");
        }
        assert!(!makes_workspace("relative"));
    }

    #[test]
    fn homes() {
        assert!(is_home_dir("/home/alice", None));
        assert!(is_home_dir("/Users/bob", None));
        assert!(is_home_dir("/root", None));
        assert!(is_home_dir("/data/u/alice", Some("/data/u/alice")));
        assert!(!is_home_dir("/home", None));
        assert!(!is_home_dir("/home/alice/project", None));
    }
}
