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
pub fn read_private(path: &Path) -> Result<String, PrivateFileError> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(PrivateFileError::NotAFile);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if meta.mode() & 0o077 != 0 {
            return Err(PrivateFileError::Shared {
                mode: meta.mode() & 0o777,
            });
        }
        let uid = rustix::process::geteuid().as_raw();
        if meta.uid() != uid {
            return Err(PrivateFileError::NotOwned {
                owner: meta.uid(),
                uid,
            });
        }
    }
    Ok(std::fs::read_to_string(path)?)
}

/// Why [`read_private`] refused or could not read a file. The message
/// never names the path (the caller does) nor shows the content.
#[derive(Debug, thiserror::Error)]
pub enum PrivateFileError {
    /// The file cannot be read (missing, no permission, not UTF-8):
    /// the operating system's message.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The path is a directory or another non-regular file.
    #[error("not a regular file")]
    NotAFile,
    /// Group or others may read or write it; `mode` is its permission
    /// bits (`& 0o777`).
    #[error("group or others may read or write it (mode {mode:o}); run `chmod 600` on it")]
    Shared {
        /// The file's permission bits.
        mode: u32,
    },
    /// Another user owns it.
    #[error("owned by uid {owner}, not by this user (uid {uid})")]
    NotOwned {
        /// The file owner's uid.
        owner: u32,
        /// The effective uid of this process.
        uid: u32,
    },
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
            let e = read_private(&file).unwrap_err().to_string();
            assert_eq!(
                e,
                "group or others may read or write it (mode 640); run `chmod 600` on it"
            );
            assert!(!e.contains("s3cret"));
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        assert_eq!(read_private(&file).unwrap(), "s3cret\n");
        assert_eq!(
            read_private(dir.path()).unwrap_err().to_string(),
            "not a regular file"
        );
        assert!(read_private(&dir.path().join("none")).is_err());
    }
}
