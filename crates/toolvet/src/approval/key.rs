//! Loading the ticket-signing key from a file or an environment variable.
//! Error messages name where the key was looked for, never its bytes.

use super::types::ApprovalError;
use crate::config::KeySource;
use base64::Engine as _;
use std::io::Write;
use std::path::Path;

/// Fewest key bytes accepted (HMAC-SHA256's block of security).
pub(crate) const MIN_KEY_BYTES: usize = 32;

/// The key of `source`: read (and, for a missing file, created with 32
/// random bytes, mode 0600).
pub(crate) fn load(source: &KeySource) -> Result<Vec<u8>, ApprovalError> {
    match source {
        KeySource::File(path) => from_file(path),
        KeySource::Env(var) => {
            let text = std::env::var(var)
                .map_err(|e| ApprovalError::Key(format!("environment variable `{var}`: {e}")))?;
            decode(&text).map_err(|why| ApprovalError::Key(format!("`{var}`: {why}")))
        }
    }
}

fn from_file(path: &Path) -> Result<Vec<u8>, ApprovalError> {
    let fail = |why: String| ApprovalError::Key(format!("{}: {why}", path.display()));
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => create(path).map_err(fail)?,
        Err(e) => return Err(fail(e.to_string())),
        Ok(meta) if !meta.is_file() => return Err(fail("not a regular file".into())),
        Ok(_) => {}
    }
    let text = crate::private_file::read_private(path).map_err(|e| fail(e.to_string()))?;
    decode(&text).map_err(fail)
}

/// Write a new key: 32 random bytes as hex, in a file only its owner can
/// read, never replacing an existing file.
fn create(path: &Path) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder
            .create(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let mut key = [0u8; MIN_KEY_BYTES];
    getrandom::fill(&mut key).map_err(|e| format!("no randomness for a new key: {e}"))?;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(mut file) => {
            let mut text = hex::encode(key);
            text.push('\n');
            file.write_all(text.as_bytes())
                .and_then(|()| file.sync_all())
                .map_err(|e| format!("cannot write a new key: {e}"))?;
            tracing::info!(path = %path.display(), "created a new approval signing key");
            Ok(())
        }
        // Another process created it first: use theirs.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(format!("cannot create a new key: {e}")),
    }
}

/// A key written as hex or base64 (standard or URL-safe, padded or not),
/// at least [`MIN_KEY_BYTES`] once decoded.
pub(crate) fn decode(text: &str) -> Result<Vec<u8>, String> {
    let text = text.trim();
    let bytes = if text.len().is_multiple_of(2) && text.bytes().all(|b| b.is_ascii_hexdigit()) {
        hex::decode(text).ok()
    } else {
        None
    };
    let bytes = bytes
        .or_else(|| base64::engine::general_purpose::STANDARD.decode(text).ok())
        .or_else(|| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(text)
                .ok()
        })
        .or_else(|| {
            base64::engine::general_purpose::STANDARD_NO_PAD
                .decode(text)
                .ok()
        })
        .ok_or("the key must be hex or base64")?;
    if bytes.len() < MIN_KEY_BYTES {
        return Err(format!(
            "the key is {} bytes; at least {MIN_KEY_BYTES} are needed",
            bytes.len()
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_key_file_is_created_private_and_then_reused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/approvals.key");
        let first = load(&KeySource::File(path.clone())).unwrap();
        assert_eq!(first.len(), MIN_KEY_BYTES);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert_eq!(load(&KeySource::File(path)).unwrap(), first);
    }

    #[cfg(unix)]
    #[test]
    fn a_key_file_others_can_read_is_refused_without_showing_the_key() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k");
        let secret = "ab".repeat(32);
        std::fs::write(&path, &secret).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let e = load(&KeySource::File(path)).unwrap_err().to_string();
        assert!(e.contains("mode 644") && e.contains("chmod 600"), "{e}");
        assert!(!e.contains(&secret), "{e}");
    }

    #[test]
    fn keys_decode_from_hex_and_base64_and_must_be_long_enough() {
        assert_eq!(decode(&"00".repeat(32)).unwrap(), vec![0u8; 32]);
        let b64 = base64::engine::general_purpose::STANDARD.encode([7u8; 40]);
        assert_eq!(decode(&b64).unwrap(), vec![7u8; 40]);
        assert!(decode("abcd").unwrap_err().contains("at least 32"));
        assert!(decode("not a key!").unwrap_err().contains("hex or base64"));
    }

    #[test]
    fn a_missing_variable_is_named_and_a_short_one_refused() {
        let e = load(&KeySource::Env("TOOLVET_TEST_NO_SUCH_VAR".into()))
            .unwrap_err()
            .to_string();
        assert!(e.contains("TOOLVET_TEST_NO_SUCH_VAR"), "{e}");
    }
}
