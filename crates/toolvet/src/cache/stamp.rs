//! File stamps (see the artifact cache's module docs): a file's identity
//! and change times, taken from an open file's metadata, and whether its
//! last change has settled.

use std::fs::Metadata;
use std::time::{Duration, SystemTime};

/// A file's identity and change stamp (see the module docs), taken from
/// the metadata of an open file, and when it was taken.
#[derive(Debug, Clone)]
pub(crate) struct FileStamp {
    pub(super) dev: u64,
    pub(super) ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
    /// Wall-clock time the metadata was read (since the Unix epoch).
    taken_at: Duration,
}

impl FileStamp {
    /// The stamp of `meta`, which the caller has just read; `None` where
    /// the platform has no inode numbers and change times (stamps are then
    /// never used).
    pub(crate) fn of(meta: &Metadata) -> Option<FileStamp> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Some(FileStamp {
                dev: meta.dev(),
                ino: meta.ino(),
                size: meta.size(),
                mtime: (meta.mtime(), meta.mtime_nsec()),
                ctime: (meta.ctime(), meta.ctime_nsec()),
                taken_at: SystemTime::now()
                    .duration_since(SystemTime::UNIX_EPOCH)
                    .unwrap_or_default(),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            None
        }
    }

    /// Whether the last change was at least `settle_time` before the
    /// stamp was taken (the file was then read and hashed), so that any
    /// change after the hashing must move the ctime. Measured from when
    /// the stamp was taken, not from when it is recorded: a plugin that
    /// takes seconds to compile does not settle meanwhile.
    pub(super) fn is_settled(&self, settle_time: Duration) -> bool {
        let now = self.taken_at;
        let latest = self.ctime.max(self.mtime);
        let Ok(secs) = u64::try_from(latest.0) else {
            return false;
        };
        let changed = Duration::new(secs, latest.1.clamp(0, 999_999_999) as u32);
        now.checked_sub(changed)
            .is_some_and(|age| age >= settle_time)
    }

    /// The stamp as recorded beside a digest or a tag.
    pub(super) fn encode(&self) -> String {
        format!(
            "{}:{}:{}:{}.{}:{}.{}",
            self.dev, self.ino, self.size, self.mtime.0, self.mtime.1, self.ctime.0, self.ctime.1
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::stamp_of;
    use super::super::*;

    #[test]
    fn fresh_changes_are_not_settled() {
        let dir = tempfile::tempdir().unwrap();
        let plugin = dir.path().join("p.wasm");
        std::fs::write(&plugin, b"x").unwrap();
        let stamp = stamp_of(&plugin);
        assert!(!stamp.is_settled(SETTLE_TIME));
        assert!(stamp.is_settled(Duration::ZERO));
        // Settling is judged at the time the stamp was taken (before the
        // file was read), however long compiling took afterwards.
        let later = FileStamp {
            taken_at: stamp.taken_at + Duration::from_secs(3),
            ..stamp.clone()
        };
        assert!(later.is_settled(SETTLE_TIME));
        std::thread::sleep(Duration::from_millis(10));
        assert!(!stamp.is_settled(SETTLE_TIME));
    }
}
