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
//! this build can load (other engine fingerprints or layouts). It only ever
//! removes files named like the entries above (and stale temporary files),
//! never `key`; a host still running with a removed artifact keeps its
//! mapping, and one starting later recompiles.

use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::collections::BTreeSet;
use std::fs::{File, Metadata};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};
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

/// How old a temporary file must be before [`ArtifactCache::prune`] takes
/// it for a crashed writer's leftover (a write takes at most seconds).
const STALE_TEMP_AGE: Duration = Duration::from_secs(3600);

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

/// What [`ArtifactCache::prune`] removed (or, in a dry run, would remove).
#[derive(Debug, Default)]
pub struct PruneReport {
    /// Removed files: name and size in bytes, in name order.
    pub removed: Vec<(String, u64)>,
    /// Files that could not be removed: name and the I/O error.
    pub failed: Vec<(String, String)>,
    /// Cache entries left in place (recent temporary files included):
    /// count and total size in bytes.
    pub kept: (usize, u64),
}

/// What prune may remove.
#[derive(Debug, Clone, Copy)]
pub enum PruneScope<'a> {
    /// Artifacts (and their tags) that no host of this build can load:
    /// another engine fingerprint or an older layout. Records stay.
    Unloadable,
    /// Every entry whose file name is not in the set (see
    /// [`ArtifactCache::entries_in_use`]): artifacts, tags and records.
    AllExcept(&'a BTreeSet<String>),
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

/// A file's identity and change stamp (see the module docs), taken from
/// the metadata of an open file, and when it was taken.
#[derive(Debug, Clone)]
pub(crate) struct FileStamp {
    dev: u64,
    ino: u64,
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
    fn is_settled(&self, settle_time: Duration) -> bool {
        let now = self.taken_at;
        let latest = self.ctime.max(self.mtime);
        let Ok(secs) = u64::try_from(latest.0) else {
            return false;
        };
        let changed = Duration::new(secs, latest.1.clamp(0, 999_999_999) as u32);
        now.checked_sub(changed)
            .is_some_and(|age| age >= settle_time)
    }

    fn encode(&self) -> String {
        format!(
            "{}:{}:{}:{}.{}:{}.{}",
            self.dev, self.ino, self.size, self.mtime.0, self.mtime.1, self.ctime.0, self.ctime.1
        )
    }
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

    /// Remove the cache entries `scope` selects, plus temporary files left
    /// by writers that died more than an hour ago. Files not named like a
    /// cache entry, and the key, are never touched. With `dry_run`, only
    /// report what would be removed.
    ///
    /// # Errors
    /// An I/O error listing the directory; a file that cannot be removed
    /// is reported in [`PruneReport::failed`] and the others still go.
    pub fn prune(&self, scope: PruneScope<'_>, dry_run: bool) -> std::io::Result<PruneReport> {
        let mut entries = Vec::new();
        for entry in std::fs::read_dir(&self.dir)? {
            let entry = entry?;
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            let Some(kind) = EntryKind::of(&name, &self.fingerprint) else {
                continue;
            };
            // Not following links: an entry is a regular file we wrote.
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_file() {
                entries.push((name, kind, meta));
            }
        }
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let mut report = PruneReport::default();
        for (name, kind, meta) in entries {
            let remove = match (kind, scope) {
                (EntryKind::Temporary, _) => meta
                    .modified()
                    .ok()
                    .and_then(|m| m.elapsed().ok())
                    .is_some_and(|age| age >= STALE_TEMP_AGE),
                (_, PruneScope::AllExcept(keep)) => !keep.contains(&name),
                (EntryKind::Artifact { loadable }, PruneScope::Unloadable) => !loadable,
                (EntryKind::Record, PruneScope::Unloadable) => false,
            };
            if !remove {
                report.kept.0 += 1;
                report.kept.1 += meta.len();
                continue;
            }
            if !dry_run && let Err(e) = std::fs::remove_file(self.dir.join(&name)) {
                report.failed.push((name, e.to_string()));
                continue;
            }
            report.removed.push((name, meta.len()));
        }
        Ok(report)
    }

    /// The engine fingerprint (hex sha256) artifacts and records are tied
    /// to.
    pub(crate) fn fingerprint(&self) -> &str {
        &self.fingerprint
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

/// What a file in the cache directory is, by its name (see the module
/// docs); `None` for anything else, which prune never touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EntryKind {
    /// `<sha256>-<fingerprint[..16]>[-<layout>].{cwasm,tag}`; `loadable`:
    /// of this engine's fingerprint and the current layout.
    Artifact { loadable: bool },
    /// `<dev>-<ino>.digest` or `<hex>.accepted`.
    Record,
    /// `.<name>.<pid>.<n>.tmp` where `<name>` is `key` or one of the
    /// above: a write in progress (or abandoned).
    Temporary,
}

impl EntryKind {
    /// The kind of the file `name` in a cache of engine `fingerprint`.
    fn of(name: &str, fingerprint: &str) -> Option<Self> {
        let hex = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit());
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if let Some(inner) = name.strip_prefix('.').and_then(|n| n.strip_suffix(".tmp")) {
            let mut parts = inner.rsplitn(3, '.');
            let (n, pid, entry) = (parts.next()?, parts.next()?, parts.next()?);
            let written = entry == "key"
                || matches!(
                    EntryKind::of(entry, fingerprint),
                    Some(EntryKind::Artifact { .. } | EntryKind::Record)
                );
            return (digits(n) && digits(pid) && written).then_some(EntryKind::Temporary);
        }
        let (stem, extension) = name.rsplit_once('.')?;
        let is_record_key = match extension {
            DIGEST_RECORD => stem
                .split_once('-')
                .is_some_and(|(dev, ino)| digits(dev) && digits(ino)),
            ACCEPTED_RECORD | LOCK => hex(stem),
            _ => false,
        };
        if is_record_key {
            return Some(EntryKind::Record);
        }
        match extension {
            "cwasm" | "tag" => {
                let mut parts = stem.split('-');
                let (sha, fingerprint_prefix) = (parts.next()?, parts.next()?);
                let layout = parts.next();
                let well_formed = hex(sha)
                    && fingerprint_prefix.len() == 16
                    && hex(fingerprint_prefix)
                    && layout.is_none_or(|l| {
                        !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric())
                    })
                    && parts.next().is_none();
                well_formed.then(|| EntryKind::Artifact {
                    loadable: fingerprint.starts_with(fingerprint_prefix)
                        && layout == Some(ARTIFACT_FORMAT),
                })
            }
            _ => None,
        }
    }
}

/// A path that opens the same file as `file` even if another file has been
/// renamed over its name: `/proc/self/fd/N` on Linux; `None` where there is
/// no such path.
fn same_file_path(file: &File) -> Option<PathBuf> {
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
fn warn_unwritable(path: &Path, e: &std::io::Error) {
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
enum Durability {
    /// The cache key: mode 0600, synced, never replaces an existing key.
    Key,
    /// A compiled artifact: synced before it is renamed into place.
    Artifact,
    /// A tag or digest record: cheap to lose (a torn record fails its tag
    /// and is rebuilt), so not synced.
    Memo,
}

fn write_atomically(path: &Path, bytes: &[u8], durability: Durability) -> std::io::Result<()> {
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
    use super::*;

    /// The smallest component: magic, version 0x0d, layer 1, no sections.
    const EMPTY_COMPONENT: &[u8] = b"\0asm\x0d\0\x01\0";

    fn cache_in(dir: &Path) -> ArtifactCache {
        let engine = crate::engine::shared_engine().unwrap();
        ArtifactCache::open(&dir.join("c"), engine).unwrap()
    }

    fn stamp_of(path: &Path) -> FileStamp {
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

    #[test]
    fn entries_are_recognised_by_name_only() {
        let fp = "0123456789abcdef0123456789abcdef";
        let ours = Some(EntryKind::Artifact { loadable: true });
        let foreign = Some(EntryKind::Artifact { loadable: false });
        assert_eq!(EntryKind::of("ab12-0123456789abcdef-a2.cwasm", fp), ours);
        assert_eq!(EntryKind::of("ab12-0123456789abcdef-a2.tag", fp), ours);
        assert_eq!(EntryKind::of("ab12-0123456789abcdef.cwasm", fp), foreign);
        assert_eq!(EntryKind::of("ab12-fedcba9876543210-a2.cwasm", fp), foreign);
        assert_eq!(EntryKind::of("ab12-0123456789abcdef-a3.tag", fp), foreign);
        assert_eq!(
            EntryKind::of("64769-1234.digest", fp),
            Some(EntryKind::Record)
        );
        assert_eq!(EntryKind::of("ab12.accepted", fp), Some(EntryKind::Record));
        for temporary in [
            ".ab12.accepted.77.0.tmp",
            ".key.77.0.tmp",
            ".ab12-0123456789abcdef-a2.cwasm.77.12.tmp",
        ] {
            assert_eq!(
                EntryKind::of(temporary, fp),
                Some(EntryKind::Temporary),
                "{temporary}"
            );
        }
        for other in [
            ".tmp",
            ".my-notes.tmp",
            ".bashrc.1.2.tmp",
            ".ab12.accepted.x.0.tmp",
            ".ab12.accepted.77.tmp",
            "key",
            "notes.txt",
            "ab12.cwasm",
            "xyz-0123456789abcdef-a2.cwasm",
            "ab12-0123-a2.cwasm",
            "ab12-0123456789abcdef-a2-x.cwasm",
            "ab12-0123456789abcdef-.cwasm",
            "12-x.digest",
            "1234.digest",
            "g.accepted",
            ".accepted",
        ] {
            assert_eq!(EntryKind::of(other, fp), None, "{other}");
        }
    }

    #[test]
    fn prune_removes_only_what_its_scope_selects() {
        let dir = tempfile::tempdir().unwrap();
        let engine = crate::engine::shared_engine().unwrap();
        let writer = cache_in(dir.path());
        writer
            .compile_and_store(engine, EMPTY_COMPONENT, "abc")
            .unwrap();
        writer
            .compile_and_store(engine, EMPTY_COMPONENT, "def")
            .unwrap();
        writer.store_record("accepted", "a1", b"{}");
        writer.store_record("accepted", "a2", b"{}");
        let cache_dir = writer.dir().to_path_buf();
        let plant = |name: &str| std::fs::write(cache_dir.join(name), b"x").unwrap();
        let foreign = "abc-0000000000000000-a2.cwasm";
        let old_layout = format!("abc-{}.cwasm", &writer.fingerprint()[..16]);
        let fresh_temp = format!(".{old_layout}.1.0.tmp");
        for name in [foreign, &old_layout, "notes.txt", &fresh_temp, ".notes.tmp"] {
            plant(name);
        }
        let stale_temp = ".a1.accepted.2.0.tmp";
        plant(stale_temp);
        let hours_ago = SystemTime::now() - 2 * STALE_TEMP_AGE;
        for old in [stale_temp, ".notes.tmp"] {
            File::options()
                .write(true)
                .open(cache_dir.join(old))
                .unwrap()
                .set_modified(hours_ago)
                .unwrap();
        }
        let names = || -> BTreeSet<String> {
            std::fs::read_dir(&cache_dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect()
        };
        let removed = |report: &PruneReport| -> Vec<String> {
            report.removed.iter().map(|(n, _)| n.clone()).collect()
        };

        let before = names();
        let dry = writer.prune(PruneScope::Unloadable, true).unwrap();
        assert_eq!(names(), before, "a dry run removes nothing");
        let report = writer.prune(PruneScope::Unloadable, false).unwrap();
        assert_eq!(removed(&report), removed(&dry));
        assert_eq!(
            removed(&report),
            [stale_temp, foreign, old_layout.as_str()],
            "unloadable artifacts and stale temporary files only"
        );
        assert!(report.failed.is_empty());

        // A later process that loads `abc` and reads record `a1` keeps
        // exactly those; `key` and unknown files are never touched.
        let reader = cache_in(dir.path());
        assert!(reader.load(engine, "abc").is_some());
        assert!(reader.record("accepted", "a1").is_some());
        let in_use = reader.entries_in_use();
        let report = reader.prune(PruneScope::AllExcept(&in_use), false).unwrap();
        let artifact_of = |sha: &str| {
            let path = writer.artifact_path(sha);
            let name = path.file_name().unwrap().to_str().unwrap().to_string();
            (name.clone(), name.replace(".cwasm", ".tag"))
        };
        let (abc, abc_tag) = artifact_of("abc");
        let (def, def_tag) = artifact_of("def");
        assert_eq!(
            removed(&report),
            ["a2.accepted".to_string(), def, def_tag],
            "in use: {in_use:?}"
        );
        let left = names();
        let expected: BTreeSet<String> = [
            "key",
            "notes.txt",
            ".notes.tmp",
            &fresh_temp,
            "a1.accepted",
            &abc,
            &abc_tag,
        ]
        .into_iter()
        .map(str::to_string)
        .collect();
        assert_eq!(left, expected);
        assert_eq!(
            report.kept.0, 4,
            "the artifact, its tag, the record and the recent temporary file"
        );
        assert!(cache_in(dir.path()).load(engine, "abc").is_some());
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
