//! The artifact cache's file handling: a private directory (mode 0700,
//! owned by this user), atomic writes of keys, artifacts and records, and
//! reading an open file whole.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// A path that opens the same file as `file` even if another file has been
/// renamed over its name: `/proc/self/fd/N` on Linux; `None` where there is
/// no such path.
pub(super) fn same_file_path(file: &File) -> Option<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let proc_path = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
        if proc_path.exists() {
            return Some(proc_path);
        }
    }
    let _ = file;
    None
}

/// Log, once per process at `warn` and then at `debug`, that a record or
/// tag could not be written: loads still work, but every start pays for
/// hashing again (e.g. a read-only cache directory).
pub(super) fn warn_unwritable(path: &Path, e: &std::io::Error) {
    use std::sync::atomic::{AtomicBool, Ordering};
    static WARNED: AtomicBool = AtomicBool::new(false);
    if WARNED.swap(true, Ordering::Relaxed) {
        tracing::debug!(path = %path.display(), "cannot write to the artifact cache: {e}");
    } else {
        tracing::warn!(path = %path.display(), "cannot write to the artifact cache, so every start hashes plugins and artifacts again: {e}");
    }
}

/// Read all of `file` (whose size is `len` bytes).
pub(crate) fn read_open_file(mut file: &File, len: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Create `dir` and its missing parents, mode 0700.
pub(super) fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Refuse a path owned by another user or writable by group or others.
pub(super) fn check_private(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(path)?;
        let uid = rustix::process::geteuid().as_raw();
        if meta.uid() != uid {
            return Err(std::io::Error::other(format!(
                "{}: owned by uid {}, not by this user (uid {uid}); refusing to trust it",
                path.display(),
                meta.uid()
            )));
        }
        if meta.mode() & 0o022 != 0 {
            return Err(std::io::Error::other(format!(
                "{}: writable by group or others (mode {:o}); refusing to trust it",
                path.display(),
                meta.mode() & 0o777
            )));
        }
    }
    Ok(())
}

/// How a file is written into the cache.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Durability {
    /// The cache key: mode 0600, synced, never replaces an existing key.
    Key,
    /// A compiled artifact: synced before it is renamed into place.
    Artifact,
    /// A tag or digest record: cheap to lose (a torn record fails its tag
    /// and is rebuilt), so not synced.
    Memo,
}

/// Write `bytes` to `path` through a temporary file renamed (or, for the
/// key, linked) into place, as `durability` says.
pub(super) fn write_atomically(
    path: &Path,
    bytes: &[u8],
    durability: Durability,
) -> std::io::Result<()> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = dir.join(format!(
        ".{}.{}.{}.tmp",
        path.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("artifact"),
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let written = (|| {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let mut f = options.open(&tmp)?;
        f.write_all(bytes)?;
        if durability != Durability::Memo {
            f.sync_all()?;
        }
        Ok(())
    })();
    if let Err(e) = written {
        // Leave no partial temporary file behind (a full disk).
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    if durability == Durability::Key {
        // Never replace an existing key: link fails if another process
        // created it first, and then its key is used.
        let linked = std::fs::hard_link(&tmp, path);
        std::fs::remove_file(&tmp)?;
        return match linked {
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
            other => other,
        };
    }
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::super::*;

    #[test]
    fn shared_writable_directories_are_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let engine = crate::engine::shared_engine().unwrap();
        let path = dir.path().join("c");
        ArtifactCache::open(&path, engine).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700, "created private");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o777)).unwrap();
        let err = ArtifactCache::open(&path, engine).unwrap_err().to_string();
        assert!(err.contains("writable by group or others"), "{err}");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o700)).unwrap();
        std::fs::set_permissions(path.join("key"), std::fs::Permissions::from_mode(0o666)).unwrap();
        let err = ArtifactCache::open(&path, engine).unwrap_err().to_string();
        assert!(err.contains("key") && err.contains("writable"), "{err}");
    }
}
