//! The compiled-artifact cache: compiling a component takes milliseconds
//! (Rust checks) to seconds (Python, JavaScript); loading our own compiled
//! artifact takes about a millisecond.
//!
//! Layout of the cache directory (mode 0700, owner and mode checked):
//!
//! * `key`: a random 32-byte secret (mode 0600).
//! * `<component sha256>-<engine fingerprint>-a2.cwasm`: a compiled artifact,
//!   exactly as [`Engine::precompile_component`] wrote it, so wasmtime can
//!   map it straight from the file ([`Component::deserialize_file`]) instead
//!   of copying it.
//! * `<same>.tag`: an HMAC-SHA256 tag computed with `key` over the engine
//!   fingerprint, the component's sha256 and the artifact,
//!   then optionally a *stamp*: the artifact file's identity and change
//!   times, with its own tag. The host deserializes (runs native code from)
//!   only artifacts whose tag it can verify, i.e. that it produced itself; a
//!   tampered or foreign file is ignored and recompiled.
//! * `<device>-<inode>.digest`: the sha256 of a plugin file, with the
//!   plugin file's stamp and a tag, so the next start need not read and hash
//!   a 20 MB plugin again.
//! * `<hex>.accepted`: a component accepted these settings and described
//!   itself so (the plugin loader), with a tag.
//! * `<hex>.lock`: an empty file locked while the snapshot `<hex>` is taken,
//!   so concurrent hosts take it once.
//!
//! Artifacts of both of this build's engines live here: the checks' shared
//! engine's, and the snapshot engine's (instrumented components, named for
//! the plugin they came from; see `snapshot.rs`). Each carries its own
//! engine's fingerprint in its name and tag.
//!
//! # Stamps
//!
//! Hashing every plugin and artifact on every start cost a one-shot
//! `toolvet check` most of its time (45 MB of plugins and 110 MB of
//! artifacts for the example policy). A stamp is what git's index keeps for
//! the same purpose: device, inode, size, mtime and ctime (ns). Any write to
//! a file changes its ctime, which no user can set back, so a file whose
//! stamp matches has not changed since it was hashed. Kernels update
//! timestamps from a coarse clock (a few ms), so a write in the same tick
//! as the hashing could leave the stamp unchanged ("racy git"); stamps are
//! therefore recorded only for files whose last change was at least
//! [`SETTLE_TIME`] before the stamp was taken, and until then the file is
//! hashed every time. This needs a file system that keeps ctime and a
//! clock that agrees with the file's times (SECURITY.md).
//!
//! Writes go to a temporary file and are renamed into place, so concurrent
//! starts never read a half-written file; a reader that sees an artifact
//! and a tag from two different writers fails verification and recompiles.
//!
//! # Pruning
//!
//! Nothing is removed while checks load: every plugin rebuild leaves its
//! old artifact behind (a Python or JavaScript one is ~35 MB).
//! [`ArtifactCache::prune`] (`toolvet cache prune`) removes what a set of
//! policies does not use, or, without policies, the artifacts no host of
//! this build can load (fingerprints of neither of this build's two
//! engines, or other layouts). It only ever
//! removes files named like the entries above (and stale temporary files),
//! never `key`; a host still running with a removed artifact keeps its
//! mapping, and one starting later recompiles.

mod files;
mod prune;
mod stamp;

pub(crate) use files::read_open_file;
use files::{
    Durability, check_private, create_private_dir, same_file_path, warn_unwritable,
    write_atomically,
};
pub use prune::{PruneReport, PruneScope};
pub(crate) use stamp::FileStamp;

use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::collections::BTreeSet;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use wasmtime::Engine;
use wasmtime::component::Component;

type Tag = Hmac<Sha256>;
const TAG_LEN: usize = 32;

/// The layout of stored artifacts, part of their file names: `a2` is the
/// raw wasmtime artifact with its tag beside it (the first layout, with no
/// suffix, put the tag in front), so hosts of different layouts sharing a
/// cache directory do not overwrite each other's artifacts.
const ARTIFACT_FORMAT: &str = "a2";

/// How old a file's last change (ctime) must be before its stamp is
/// recorded: well above the kernel's timestamp granularity (one jiffy, at
/// most 10 ms).
pub const SETTLE_TIME: Duration = Duration::from_secs(2);

/// Record kind of a plugin file's remembered digest.
const DIGEST_RECORD: &str = "digest";

/// Record kind of a component's accepted settings ([`crate::plugin`]).
pub(crate) const ACCEPTED_RECORD: &str = "accepted";
/// Extension of an empty file locked while its entry is being made
/// ([`ArtifactCache::lock_entry`]).
const LOCK: &str = "lock";

/// Where compiled artifacts are kept.
#[derive(Clone)]
pub struct ArtifactCache {
    dir: PathBuf,
    key: Vec<u8>,
    fingerprint: String,
    settle_time: Duration,
    /// File names of the entries read or written so far through this
    /// cache and its clones (for [`ArtifactCache::prune`]).
    in_use: Arc<Mutex<BTreeSet<String>>>,
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

    /// The directory a policy's cache lives in: its `[host] cache_dir`,
    /// else [`ArtifactCache::default_dir`]; `None` when neither names one.
    pub fn dir_for(settings: &crate::config::HostSettings) -> Option<PathBuf> {
        settings.cache_dir.clone().or_else(Self::default_dir)
    }

    /// Open (creating if needed, mode 0700) the cache in `dir` for
    /// `engine`.
    ///
    /// # Errors
    /// An I/O error creating the directory or the key file; a key file that
    /// is not 32 bytes; a directory or key that another user owns or that
    /// group or others may write (anyone who can plant a key and an
    /// artifact there could make the host run their native code).
    pub(crate) fn open(dir: &Path, engine: &Engine) -> std::io::Result<Self> {
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
                getrandom::fill(&mut key).map_err(std::io::Error::other)?;
                write_atomically(&key_path, &key, Durability::Key)?;
                // Another process may have won the race: use what is there.
                std::fs::read(&key_path)?
            }
            Err(e) => return Err(e),
        };
        Ok(Self {
            dir: dir.to_path_buf(),
            key,
            fingerprint: crate::engine::engine_fingerprint(engine),
            settle_time: SETTLE_TIME,
            in_use: Arc::default(),
        })
    }

    /// Open the existing cache in `dir` for this build's engine, creating
    /// nothing: for commands that only inspect or prune a cache.
    ///
    /// # Errors
    /// An I/O error reading the directory or its key; a directory or key
    /// that another user owns or that group or others may write; a
    /// directory without a `key` file ("not a toolvet cache"), so a
    /// mistyped path is never taken for one; the engine cannot start.
    pub fn open_existing(dir: &Path) -> std::io::Result<Self> {
        let engine = crate::engine::shared_engine().map_err(std::io::Error::other)?;
        if !dir.join("key").is_file() {
            return Err(std::io::Error::other(format!(
                "{}: not a toolvet cache directory (it has no `key` file)",
                dir.display()
            )));
        }
        Self::open(dir, engine)
    }

    /// The cache directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// File names (in the cache directory) of the artifacts, tags and
    /// records this cache and its clones have loaded or stored so far: what
    /// a loaded policy needs to start from the cache again.
    pub fn entries_in_use(&self) -> BTreeSet<String> {
        self.in_use.lock().expect("never poisoned").clone()
    }

    fn note_in_use(&self, path: &Path) {
        if let Some(name) = path.file_name().and_then(|n| n.to_str()) {
            self.in_use
                .lock()
                .expect("never poisoned")
                .insert(name.to_string());
        }
    }

    /// The engine fingerprint (hex sha256) artifacts and records are tied
    /// to.
    pub(crate) fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// This cache for another of this build's engines (the snapshot
    /// engine): the same directory, key and record of entries in use, with
    /// artifacts named and tagged by `engine`'s fingerprint.
    pub(crate) fn for_engine(&self, engine: &Engine) -> Self {
        Self {
            fingerprint: crate::engine::engine_fingerprint(engine),
            ..self.clone()
        }
    }

    /// The component cached as `name` (hex), else `bytes` compiled now and
    /// stored as `name`: for components that exist only in memory, such as
    /// instrumented ones, whose name the caller derives from what
    /// determines them.
    ///
    /// # Errors
    /// The compile error (cache problems are logged, never fatal).
    pub(crate) fn load_or_compile(
        &self,
        engine: &Engine,
        name: &str,
        bytes: &[u8],
    ) -> wasmtime::Result<(Component, CacheOutcome)> {
        match self.load(engine, name) {
            Some(component) => Ok((component, CacheOutcome::Hit)),
            None => self.compile_and_store(engine, bytes, name),
        }
    }

    fn artifact_path(&self, component_sha256: &str) -> PathBuf {
        self.dir.join(format!(
            "{component_sha256}-{}-{ARTIFACT_FORMAT}.cwasm",
            &self.fingerprint[..16]
        ))
    }

    fn mac(&self, domain: &[u8]) -> Tag {
        let mut mac = Tag::new_from_slice(&self.key).expect("HMAC takes any key length");
        mac.update(domain);
        mac.update(&[0]);
        mac
    }

    /// The tag of the artifact of the component `component_sha256`, over
    /// the engine fingerprint, that digest (so an artifact cannot stand in
    /// for another component's) and the artifact's bytes from `reader`.
    fn artifact_tag(&self, component_sha256: &str, mut reader: impl Read) -> Option<Tag> {
        let mut mac = self.mac(b"artifact");
        mac.update(self.fingerprint.as_bytes());
        mac.update(&[0]);
        mac.update(component_sha256.as_bytes());
        mac.update(&[0]);
        let mut chunk = vec![0u8; 1 << 20];
        loop {
            match reader.read(&mut chunk) {
                Ok(0) => return Some(mac),
                Ok(n) => mac.update(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return None,
            }
        }
    }

    fn stamp_tag(&self, artifact_tag: &[u8], stamp: &FileStamp) -> Tag {
        let mut mac = self.mac(b"stamp");
        mac.update(artifact_tag);
        mac.update(stamp.encode().as_bytes());
        mac
    }

    fn record_path(&self, kind: &str, key: &str) -> PathBuf {
        debug_assert!(
            key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'),
            "record keys are file-name safe"
        );
        self.dir.join(format!("{key}.{kind}"))
    }

    fn record_tag(&self, kind: &str, key: &str, payload: &[u8]) -> Tag {
        let mut mac = self.mac(b"record");
        mac.update(kind.as_bytes());
        mac.update(&[0]);
        mac.update(key.as_bytes());
        mac.update(&[0]);
        mac.update(payload);
        mac
    }

    /// The payload of the small record `<key>.<kind>`, if it exists and
    /// carries our tag (over kind, key and payload, so a record cannot be
    /// renamed into another).
    pub(crate) fn record(&self, kind: &str, key: &str) -> Option<Vec<u8>> {
        let path = self.record_path(kind, key);
        let bytes = std::fs::read(&path).ok()?;
        let verified = bytes.split_at_checked(TAG_LEN).filter(|(tag, payload)| {
            self.record_tag(kind, key, payload)
                .verify_slice(tag)
                .is_ok()
        });
        match verified {
            Some((_, payload)) => {
                self.note_in_use(&path);
                Some(payload.to_vec())
            }
            None => {
                tracing::warn!(path = %path.display(), "cache record fails verification, ignoring it");
                None
            }
        }
    }

    /// Store the record `<key>.<kind>` (`key`: ASCII letters, digits and
    /// `-`). Failures are harmless (the record is rebuilt next time) and
    /// only logged.
    pub(crate) fn store_record(&self, kind: &str, key: &str, payload: &[u8]) {
        let mut bytes = self
            .record_tag(kind, key, payload)
            .finalize()
            .into_bytes()
            .to_vec();
        bytes.extend_from_slice(payload);
        let path = self.record_path(kind, key);
        match write_atomically(&path, &bytes, Durability::Memo) {
            Ok(()) => self.note_in_use(&path),
            Err(e) => warn_unwritable(&path, &e),
        }
    }

    /// Hold an exclusive lock on `<name>.lock` (`name`: hex) until the
    /// returned file is dropped, so that hosts in other processes sharing
    /// this cache do not do the same work at the same time (taking one
    /// snapshot). Blocks until the lock is free. `None` when the lock file
    /// cannot be opened or locked: the work then runs unserialised, which
    /// is only slower.
    pub(crate) fn lock_entry(&self, name: &str) -> Option<File> {
        debug_assert!(name.bytes().all(|b| b.is_ascii_hexdigit()));
        let path = self.dir.join(format!("{name}.{LOCK}"));
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .inspect_err(|e| warn_unwritable(&path, e))
            .ok()?;
        file.lock()
            .inspect_err(|e| tracing::warn!(path = %path.display(), "cannot lock: {e}"))
            .ok()?;
        Some(file)
    }

    fn digest_key(stamp: &FileStamp) -> String {
        format!("{}-{}", stamp.dev, stamp.ino)
    }

    /// The sha256 recorded for the plugin file with `stamp`, if the record
    /// exists, matches the stamp exactly and carries our tag.
    pub(crate) fn remembered_digest(&self, stamp: &FileStamp) -> Option<String> {
        let payload = self.record(DIGEST_RECORD, &Self::digest_key(stamp))?;
        let payload = String::from_utf8(payload).ok()?;
        let (sha256, recorded) = payload.split_once(' ')?;
        (recorded == stamp.encode()).then(|| sha256.to_string())
    }

    /// Record that the plugin file with `stamp` has digest `sha256`, if its
    /// last change has settled.
    pub(crate) fn remember_digest(&self, stamp: &FileStamp, sha256: &str) {
        if stamp.is_settled(self.settle_time) {
            let payload = format!("{sha256} {}", stamp.encode());
            self.store_record(DIGEST_RECORD, &Self::digest_key(stamp), payload.as_bytes());
        }
    }

    /// The cached component for `component_sha256`, if a verified artifact
    /// exists. An artifact whose stamp was recorded and still matches is
    /// mapped without reading it; otherwise it is read and its tag checked
    /// (and its stamp recorded once settled). Problems are logged.
    pub(crate) fn load(&self, engine: &Engine, component_sha256: &str) -> Option<Component> {
        let path = self.artifact_path(component_sha256);
        let component = self.load_artifact(engine, component_sha256, &path)?;
        self.note_in_use(&path);
        self.note_in_use(&path.with_extension("tag"));
        Some(component)
    }

    #[expect(
        unsafe_code,
        reason = "wasmtime's `Component::deserialize*` are unsafe: an artifact is deserialized only once its tag proves this host wrote it"
    )]
    fn load_artifact(
        &self,
        engine: &Engine,
        component_sha256: &str,
        path: &Path,
    ) -> Option<Component> {
        let tag_path = path.with_extension("tag");
        let (file, tag_record) = match (File::open(path), std::fs::read(&tag_path)) {
            (Ok(f), Ok(t)) => (f, t),
            _ => return None,
        };
        let refused = || {
            tracing::warn!(path = %path.display(), "cached artifact fails verification, ignoring it");
            None
        };
        let unusable = |e: wasmtime::Error| {
            tracing::warn!(path = %path.display(), "cached artifact unusable, recompiling: {e:#}");
            None
        };
        let Some(same_file) = same_file_path(&file) else {
            // The verified file cannot be named again: verify the bytes read
            // and deserialize those (a copy, no stamp shortcut).
            let bytes = read_open_file(&file, 0).ok()?;
            let tag = tag_record.get(..TAG_LEN)?;
            let verified = self
                .artifact_tag(component_sha256, &bytes[..])
                .is_some_and(|mac| mac.verify_slice(tag).is_ok());
            if !verified {
                return refused();
            }
            // SAFETY: the bytes carry our tag, so this host produced them
            // with `Engine::precompile_component`; wasmtime checks that they
            // match this engine's settings.
            return unsafe { Component::deserialize(engine, &bytes) }.map_or_else(unusable, Some);
        };
        let stamp = file.metadata().ok().as_ref().and_then(FileStamp::of);
        if !self.verify_artifact(
            &file,
            component_sha256,
            &tag_record,
            stamp.as_ref(),
            &tag_path,
        ) {
            return refused();
        }
        // SAFETY: the artifact carries our tag, so this host produced it with
        // `Engine::precompile_component`, and wasmtime checks that it matches
        // this engine's settings. wasmtime maps the file, opened again
        // through our verified descriptor (`/proc/self/fd/N`), so a file
        // renamed over `path` meanwhile is not picked up; its contents must
        // not change while the component is loaded, which holds because only
        // this user can write in the cache directory and toolvet only ever
        // replaces artifacts by renaming.
        unsafe { Component::deserialize_file(engine, same_file) }.map_or_else(unusable, Some)
    }

    /// Whether `file` is the artifact `tag_record` vouches for.
    fn verify_artifact(
        &self,
        file: &File,
        component_sha256: &str,
        tag_record: &[u8],
        stamp: Option<&FileStamp>,
        tag_path: &Path,
    ) -> bool {
        let Some((artifact_tag, stamp_record)) = tag_record.split_at_checked(TAG_LEN) else {
            return false;
        };
        if let (Some(stamp), Some((stamp_tag, recorded))) =
            (stamp, stamp_record.split_at_checked(TAG_LEN))
            && recorded == stamp.encode().as_bytes()
            && self
                .stamp_tag(artifact_tag, stamp)
                .verify_slice(stamp_tag)
                .is_ok()
        {
            return true;
        }
        // Hash the file in chunks (artifacts of language runtimes are 35 MB).
        let Some(mac) = self.artifact_tag(component_sha256, file) else {
            return false;
        };
        if mac.verify_slice(artifact_tag).is_err() {
            return false;
        }
        if let Some(stamp) = stamp.filter(|s| s.is_settled(self.settle_time)) {
            self.write_tag(tag_path, artifact_tag, Some(stamp));
        }
        true
    }

    fn write_tag(&self, tag_path: &Path, artifact_tag: &[u8], stamp: Option<&FileStamp>) {
        let mut record = artifact_tag.to_vec();
        if let Some(stamp) = stamp {
            record.extend_from_slice(&self.stamp_tag(artifact_tag, stamp).finalize().into_bytes());
            record.extend_from_slice(stamp.encode().as_bytes());
        }
        if let Err(e) = write_atomically(tag_path, &record, Durability::Memo) {
            warn_unwritable(tag_path, &e);
        }
    }

    /// Compile `bytes` (whose sha256 is `component_sha256`) and store the
    /// artifact and its tag.
    ///
    /// # Errors
    /// The compile error (cache problems are logged, never fatal).
    #[expect(
        unsafe_code,
        reason = "wasmtime's `Component::deserialize` is unsafe: the artifact was produced just above by this engine"
    )]
    pub(crate) fn compile_and_store(
        &self,
        engine: &Engine,
        bytes: &[u8],
        component_sha256: &str,
    ) -> wasmtime::Result<(Component, CacheOutcome)> {
        let artifact = engine.precompile_component(bytes)?;
        // SAFETY: produced just above by this engine.
        let component = unsafe { Component::deserialize(engine, &artifact)? };
        let path = self.artifact_path(component_sha256);
        let artifact_tag = self
            .artifact_tag(component_sha256, &artifact[..])
            .expect("reading a slice cannot fail")
            .finalize()
            .into_bytes();
        // The artifact first: a reader that finds the new tag next to the
        // old artifact (or none) only recompiles.
        match write_atomically(&path, &artifact, Durability::Artifact) {
            Ok(()) => {
                let tag_path = path.with_extension("tag");
                self.write_tag(&tag_path, &artifact_tag, None);
                self.note_in_use(&path);
                self.note_in_use(&tag_path);
                Ok((component, CacheOutcome::Compiled))
            }
            Err(e) => {
                tracing::warn!(path = %path.display(), "cannot store compiled artifact: {e}");
                Ok((component, CacheOutcome::Uncached))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The smallest component: magic, version 0x0d, layer 1, no sections.
    pub(super) const EMPTY_COMPONENT: &[u8] = b"\0asm\x0d\0\x01\0";

    pub(super) fn cache_in(dir: &Path) -> ArtifactCache {
        let engine = crate::engine::shared_engine().unwrap();
        ArtifactCache::open(&dir.join("c"), engine).unwrap()
    }

    pub(super) fn stamp_of(path: &Path) -> FileStamp {
        FileStamp::of(&std::fs::metadata(path).unwrap()).unwrap()
    }

    #[test]
    fn artifacts_load_only_with_our_tag() {
        let dir = tempfile::tempdir().unwrap();
        let engine = crate::engine::shared_engine().unwrap();
        let mut cache = cache_in(dir.path());
        let (_, outcome) = cache
            .compile_and_store(engine, EMPTY_COMPONENT, "abc")
            .unwrap();
        assert_eq!(outcome, CacheOutcome::Compiled);
        assert!(cache.load(engine, "abc").is_some(), "our artifact loads");
        let path = cache.artifact_path("abc");
        let tag_path = path.with_extension("tag");
        // Copied under another component's name, it is refused: the tag
        // covers the component digest.
        let other_path = cache.artifact_path("abd");
        std::fs::copy(&path, &other_path).unwrap();
        std::fs::copy(&tag_path, other_path.with_extension("tag")).unwrap();
        assert!(cache.load(engine, "abd").is_none());
        assert_eq!(
            std::fs::read(&tag_path).unwrap().len(),
            TAG_LEN,
            "no stamp while fresh"
        );

        // Settled (as if old): the stamp is recorded and used from then on.
        cache.settle_time = Duration::ZERO;
        assert!(cache.load(engine, "abc").is_some());
        let stamped = std::fs::read(&tag_path).unwrap();
        assert!(stamped.len() > 2 * TAG_LEN, "stamp recorded");
        assert!(cache.load(engine, "abc").is_some(), "stamp path");

        // Any change (here: one more byte) breaks the stamp, and the
        // content tag then fails too.
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.push(0);
        std::fs::write(&path, &bytes).unwrap();
        assert!(
            cache.load(engine, "abc").is_none(),
            "tampered artifact refused"
        );
        // A forged stamp (tag from another key) is refused as well.
        bytes.pop();
        std::fs::write(&path, &bytes).unwrap();
        let other = cache_in(&dir.path().join("other"));
        let forged = {
            let mut r = stamped[..TAG_LEN].to_vec();
            let stamp = stamp_of(&path);
            r.extend_from_slice(
                &other
                    .stamp_tag(&stamped[..TAG_LEN], &stamp)
                    .finalize()
                    .into_bytes(),
            );
            r.extend_from_slice(stamp.encode().as_bytes());
            r
        };
        std::fs::write(&tag_path, &forged).unwrap();
        // The content is ours, so it still verifies by hashing, and the
        // stamp is rewritten with our tag.
        assert!(cache.load(engine, "abc").is_some());
        assert_ne!(std::fs::read(&tag_path).unwrap(), forged);
        // Another cache's artifact tag is refused outright.
        let mut foreign = std::fs::read(&tag_path).unwrap();
        foreign[0] ^= 1;
        std::fs::write(&tag_path, &foreign[..TAG_LEN]).unwrap();
        assert!(cache.load(engine, "abc").is_none());
    }

    #[test]
    fn digests_are_remembered_by_stamp() {
        let dir = tempfile::tempdir().unwrap();
        let mut cache = cache_in(dir.path());
        let plugin = dir.path().join("p.wasm");
        std::fs::write(&plugin, b"one").unwrap();
        let stamp = stamp_of(&plugin);
        cache.remember_digest(&stamp, "d1");
        assert_eq!(
            cache.remembered_digest(&stamp),
            None,
            "not settled: not recorded"
        );
        cache.settle_time = Duration::ZERO;
        cache.remember_digest(&stamp, "d1");
        assert_eq!(cache.remembered_digest(&stamp).as_deref(), Some("d1"));
        std::fs::write(&plugin, b"two!").unwrap();
        assert_eq!(
            cache.remembered_digest(&stamp_of(&plugin)),
            None,
            "changed file"
        );
        // Another key's record is not trusted.
        let other = cache_in(&dir.path().join("other"));
        assert_eq!(other.remembered_digest(&stamp), None);
        let key = ArtifactCache::digest_key(&stamp);
        std::fs::copy(
            cache.record_path("digest", &key),
            other.record_path("digest", &key),
        )
        .unwrap();
        assert_eq!(other.remembered_digest(&stamp), None);
    }

    #[test]
    fn records_verify_kind_key_and_payload() {
        let dir = tempfile::tempdir().unwrap();
        let cache = cache_in(dir.path());
        cache.store_record("accepted", "k1", b"payload");
        assert_eq!(
            cache.record("accepted", "k1").as_deref(),
            Some(&b"payload"[..])
        );
        // Copied under another key or kind: refused.
        let path = cache.record_path("accepted", "k1");
        std::fs::copy(&path, cache.record_path("accepted", "k2")).unwrap();
        assert_eq!(cache.record("accepted", "k2"), None);
        std::fs::copy(&path, cache.record_path("digest", "k1")).unwrap();
        assert_eq!(cache.record("digest", "k1"), None);
        // An edited payload: refused.
        let mut bytes = std::fs::read(&path).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(cache.record("accepted", "k1"), None);
    }

    #[test]
    fn open_existing_refuses_a_directory_that_is_no_cache_and_creates_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let Err(err) = ArtifactCache::open_existing(dir.path()) else {
            panic!("a directory without a key must be refused");
        };
        let err = err.to_string();
        assert!(err.contains("not a toolvet cache"), "{err}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        let cache = cache_in(dir.path());
        assert!(ArtifactCache::open_existing(cache.dir()).is_ok());
    }
}
