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
#[derive(Debug, Clone)]
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

impl ArtifactCache {
    /// The default directory: `$TOOLVET_CACHE_DIR`, else the user's cache
    /// directory (`$XDG_CACHE_HOME` or `~/.cache`) + `/toolvet`.
    pub fn default_dir() -> Option<PathBuf> {
        std::env::var_os("TOOLVET_CACHE_DIR")
            .map(PathBuf::from)
            .or_else(|| dirs::cache_dir().map(|d| d.join("toolvet")))
    }

    /// Open (creating if needed) the cache in `dir` for `engine`.
    ///
    /// # Errors
    /// An I/O error creating the directory or the key file, or a key file
    /// that is not 32 bytes.
    pub fn open(dir: &Path, engine: &Engine) -> std::io::Result<Self> {
        std::fs::create_dir_all(dir)?;
        let key_path = dir.join("key");
        let key = match std::fs::read(&key_path) {
            Ok(k) if k.len() == 32 => k,
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
                    Err(e) => tracing::warn!(path = %path.display(), "cached artifact unusable, recompiling: {e:#}"),
                },
                None => tracing::warn!(path = %path.display(), "cached artifact fails verification, ignoring it"),
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

fn write_atomically(path: &Path, bytes: &[u8], private: bool) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("artifact"),
        std::process::id()
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
    if private && path.exists() {
        // Never replace an existing key: another process created it first.
        std::fs::remove_file(&tmp)?;
        return Ok(());
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
        let cache = ArtifactCache::open(dir.path(), engine).unwrap();
        let body = b"pretend artifact".to_vec();
        let mut file = cache.tag(&body).finalize().into_bytes().to_vec();
        file.extend_from_slice(&body);
        assert_eq!(cache.verified_body(&file), Some(&body[..]));
        let last = file.len() - 1;
        file[last] ^= 1;
        assert_eq!(cache.verified_body(&file), None);
        // Another cache (another key) does not accept this one's artifacts.
        let other_dir = tempfile::tempdir().unwrap();
        let other = ArtifactCache::open(other_dir.path(), engine).unwrap();
        file[last] ^= 1;
        assert_eq!(other.verified_body(&file), None);
    }
}
