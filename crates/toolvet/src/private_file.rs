//! Files only their owner may read: the ticket key, reviewer passphrases
//! and the token files of `toolvet serve`. One rule for all of them, so a
//! secret file is refused for the same reasons wherever toolvet reads one.

use std::path::Path;

/// The text of the secret file at `path`, when the file (a symbolic link
/// is followed) is a regular file that neither group nor others may read
/// or write (mode `& 0o077 == 0`) and, on Unix, is owned by the effective
/// user of this process.
///
/// # Errors
/// Why the file is refused or cannot be read, without the path (the
/// caller names it): e.g. "group or others may read or write it (mode
/// 644); run `chmod 600` on it". The file's content never appears in an
/// error.
pub fn read_private(path: &Path) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if meta.mode() & 0o077 != 0 {
            return Err(format!(
                "group or others may read or write it (mode {:o}); run `chmod 600` on it",
                meta.mode() & 0o777
            ));
        }
        let uid = rustix::process::geteuid().as_raw();
        if meta.uid() != uid {
            return Err(format!(
                "owned by uid {}, not by this user (uid {uid})",
                meta.uid()
            ));
        }
    }
    std::fs::read_to_string(path).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_file_its_owner_alone_may_read_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("secret");
        std::fs::write(&file, "s3cret\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
            let e = read_private(&file).unwrap_err();
            assert_eq!(
                e,
                "group or others may read or write it (mode 640); run `chmod 600` on it"
            );
            assert!(!e.contains("s3cret"));
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        assert_eq!(read_private(&file).unwrap(), "s3cret\n");
        assert_eq!(read_private(dir.path()).unwrap_err(), "not a regular file");
        assert!(read_private(&dir.path().join("none")).is_err());
    }
}
