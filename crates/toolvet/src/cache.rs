//! The compiled-artifact cache: compiling a component takes milliseconds
//! (Rust checks) to seconds (Python, JavaScript); loading our own compiled
//! artifact takes about a millisecond.
//!
//! Layout: `<dir>/<component sha256>-<engine fingerprint>.cwasm`, plus
//! `<dir>/key`, a random 32-byte secret (mode 0600). Each artifact starts
//! with an HMAC-SHA256 tag over the rest computed with that key, so the host
//! deserializes (runs native code from) only artifacts that it produced
//! itself; a tampered or foreign file is ignored and recompiled. Writes go
//! to a temporary file and are renamed into place, so concurrent starts
//! never read a half-written artifact.

use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::io::Write;
use std::path::{Path, PathBuf};
use wasmtime::Engine;
use wasmtime::component::Component;

type Tag = Hmac<Sha256>;
const TAG_LEN: usize = 32;

/// Where compiled artifacts are kept.
#[derive(Clone)]
pub struct ArtifactCache {
    dir: PathBuf,
    key: Vec<u8>,
    fingerprint: String,
}

/// How a component was obtained, for logs and benchmarks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheOutcome {
    /// Loaded from a cached artifact.
    Hit,
    /// Compiled, and the artifact stored.
    Compiled,
    /// Compiled; the cache was unusable (logged), nothing stored.
    Uncached,
}

impl std::fmt::Debug for ArtifactCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the key.
        f.debug_struct("ArtifactCache")
            .field("dir", &self.dir)
            .field("fingerprint", &self.fingerprint)
            .finish_non_exhaustive()
    }
}

impl ArtifactCache {
    /// The default directory: `$TOOLVET_CACHE_DIR`, else the user's cache
    /// directory (`$XDG_CACHE_HOME` or `~/.cache`) + `/toolvet`.
    pub fn default_dir() -> Option<PathBuf> {
        std::env::var_os("TOOLVET_CACHE_DIR")
            .map(PathBuf::from)
            .or_else(|| dirs::cache_dir().map(|d| d.join("toolvet")))
    }

    /// Open (creating if needed, mode 0700) the cache in `dir` for
    /// `engine`.
    ///
    /// # Errors
    /// An I/O error creating the directory or the key file; a key file that
    /// is not 32 bytes; a directory or key that another user owns or that
    /// group or others may write (anyone who can plant a key and an
    /// artifact there could make the host run their native code).
    pub fn open(dir: &Path, engine: &Engine) -> std::io::Result<Self> {
        create_private_dir(dir)?;
        check_private(dir)?;
        let key_path = dir.join("key");
        let key = match std::fs::read(&key_path) {
            Ok(k) if k.len() == 32 => {
                check_private(&key_path)?;
                k
            }
            Ok(_) => {
                return Err(std::io::Error::other(format!(
                    "{}: not a 32-byte cache key; delete it to start a new cache",
                    key_path.display()
                )));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let mut key = vec![0u8; 32];
                getrandom(&mut key)?;
                write_atomically(&key_path, &key, true)?;
                // Another process may have won the race: use what is there.
                std::fs::read(&key_path)?
            }
            Err(e) => return Err(e),
        };
        Ok(Self {
            dir: dir.to_path_buf(),
            key,
            fingerprint: crate::engine::engine_fingerprint(engine),
        })
    }

    fn artifact_path(&self, component_sha256: &str) -> PathBuf {
        self.dir.join(format!(
            "{component_sha256}-{}.cwasm",
            &self.fingerprint[..16]
        ))
    }

    fn tag(&self, body: &[u8]) -> Tag {
        let mut mac = Tag::new_from_slice(&self.key).expect("HMAC takes any key length");
        mac.update(self.fingerprint.as_bytes());
        mac.update(body);
        mac
    }

    /// The component for `bytes` (whose sha256 is `component_sha256`): from
    /// the cache when a verified artifact exists, else compiled and stored.
    ///
    /// # Errors
    /// The compile error (cache problems are logged, never fatal).
    pub fn load_or_compile(
        &self,
        engine: &Engine,
        bytes: &[u8],
        component_sha256: &str,
    ) -> wasmtime::Result<(Component, CacheOutcome)> {
        let path = self.artifact_path(component_sha256);
        if let Ok(file) = std::fs::read(&path) {
            match self.verified_body(&file) {
                // SAFETY: the artifact carries our HMAC tag, so this host
                // produced it with `Engine::precompile_component`, and
                // wasmtime checks that it matches this engine's settings.
                Some(body) => match unsafe { Component::deserialize(engine, body) } {
                    Ok(c) => return Ok((c, CacheOutcome::Hit)),
                    Err(e) => {
                        tracing::warn!(path = %path.display(), "cached artifact unusable, recompiling: {e:#}")
                    }
                },
                None => {
                    tracing::warn!(path = %path.display(), "cached artifact fails verification, ignoring it")
                }
            }
        }
        let artifact = engine.precompile_component(bytes)?;
        // SAFETY: produced just above by this engine.
        let component = unsafe { Component::deserialize(engine, &artifact)? };
        let mut file = Vec::with_capacity(TAG_LEN + artifact.len());
        file.extend_from_slice(&self.tag(&artifact).finalize().into_bytes());
        file.extend_from_slice(&artifact);
        match write_atomically(&path, &file, false) {
            Ok(()) => Ok((component, CacheOutcome::Compiled)),
            Err(e) => {
                tracing::warn!(path = %path.display(), "cannot store compiled artifact: {e}");
                Ok((component, CacheOutcome::Uncached))
            }
        }
    }

    fn verified_body<'a>(&self, file: &'a [u8]) -> Option<&'a [u8]> {
        if file.len() < TAG_LEN {
            return None;
        }
        let (tag, body) = file.split_at(TAG_LEN);
        self.tag(body).verify_slice(tag).ok().map(|()| body)
    }
}

fn getrandom(buf: &mut [u8]) -> std::io::Result<()> {
    use std::io::Read;
    std::fs::File::open("/dev/urandom")?.read_exact(buf)
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Refuse a path owned by another user or writable by group or others.
fn check_private(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(path)?;
        // SAFETY: geteuid has no preconditions and cannot fail.
        let uid = unsafe { libc_geteuid() };
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

#[cfg(unix)]
unsafe extern "C" {
    #[link_name = "geteuid"]
    fn libc_geteuid() -> u32;
}

fn write_atomically(path: &Path, bytes: &[u8], private: bool) -> std::io::Result<()> {
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
    {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        if private {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let mut f = options.open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    if private {
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
    use super::*;

    #[test]
    fn tampered_artifacts_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let engine = crate::engine::shared_engine().unwrap();
        let cache = ArtifactCache::open(&dir.path().join("c"), engine).unwrap();
        let body = b"pretend artifact".to_vec();
        let mut file = cache.tag(&body).finalize().into_bytes().to_vec();
        file.extend_from_slice(&body);
        assert_eq!(cache.verified_body(&file), Some(&body[..]));
        let last = file.len() - 1;
        file[last] ^= 1;
        assert_eq!(cache.verified_body(&file), None);
        // Another cache (another key) does not accept this one's artifacts.
        let other_dir = tempfile::tempdir().unwrap();
        let other = ArtifactCache::open(&other_dir.path().join("c"), engine).unwrap();
        file[last] ^= 1;
        assert_eq!(other.verified_body(&file), None);
    }

    #[cfg(unix)]
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
