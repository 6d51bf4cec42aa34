//! Pruning the artifact cache ([`ArtifactCache::prune`]): which files in
//! its directory are cache entries, by name, and which of them a scope
//! selects for removal.

use super::{ACCEPTED_RECORD, ARTIFACT_FORMAT, ArtifactCache, DIGEST_RECORD, LOCK};
use std::collections::BTreeSet;
use std::time::Duration;

/// How old a temporary file must be before [`ArtifactCache::prune`] takes
/// it for a crashed writer's leftover (a write takes at most seconds).
const STALE_TEMP_AGE: Duration = Duration::from_secs(3600);

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
    /// another engine fingerprint (neither the shared engine's nor the
    /// snapshot engine's) or an older layout. Records stay.
    Unloadable,
    /// Every entry whose file name is not in the set (see
    /// [`ArtifactCache::entries_in_use`]): artifacts, tags and records.
    AllExcept(&'a BTreeSet<String>),
}

impl ArtifactCache {
    /// Remove the cache entries `scope` selects, plus temporary files left
    /// by writers that died more than an hour ago. Files not named like a
    /// cache entry, and the key, are never touched. With `dry_run`, only
    /// report what would be removed.
    ///
    /// # Errors
    /// An I/O error listing the directory; a file that cannot be removed
    /// is reported in [`PruneReport::failed`] and the others still go.
    pub fn prune(&self, scope: PruneScope<'_>, dry_run: bool) -> std::io::Result<PruneReport> {
        // This build's engines: the shared one (this cache's) and, when it
        // starts, the one that instruments components for snapshots.
        let snapshot_engine = crate::snapshot::engine_fingerprint();
        let fingerprints: Vec<&str> = std::iter::once(self.fingerprint.as_str())
            .chain(snapshot_engine.as_deref())
            .collect();
        let mut entries = Vec::new();
        for entry in std::fs::read_dir(&self.dir)? {
            let entry = entry?;
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            let Some(kind) = EntryKind::of(&name, &fingerprints) else {
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
}

/// What a file in the cache directory is, by its name (see the module
/// docs); `None` for anything else, which prune never touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EntryKind {
    /// `<sha256>-<fingerprint[..16]>[-<layout>].{cwasm,tag}`; `loadable`:
    /// of one of this build's engines' fingerprints and the current layout.
    Artifact { loadable: bool },
    /// `<dev>-<ino>.digest` or `<hex>.accepted`.
    Record,
    /// `.<name>.<pid>.<n>.tmp` where `<name>` is `key` or one of the
    /// above: a write in progress (or abandoned).
    Temporary,
}

impl EntryKind {
    /// The kind of the file `name` in a cache of engines `fingerprints`.
    fn of(name: &str, fingerprints: &[&str]) -> Option<Self> {
        let hex = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit());
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if let Some(inner) = name.strip_prefix('.').and_then(|n| n.strip_suffix(".tmp")) {
            let mut parts = inner.rsplitn(3, '.');
            let (n, pid, entry) = (parts.next()?, parts.next()?, parts.next()?);
            let written = entry == "key"
                || matches!(
                    EntryKind::of(entry, fingerprints),
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
                    loadable: fingerprints
                        .iter()
                        .any(|f| f.starts_with(fingerprint_prefix))
                        && layout == Some(ARTIFACT_FORMAT),
                })
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{EMPTY_COMPONENT, cache_in};
    use super::super::*;
    use super::{EntryKind, STALE_TEMP_AGE};
    use std::time::SystemTime;

    #[test]
    fn entries_are_recognised_by_name_only() {
        let fp = &["0123456789abcdef0123456789abcdef"][..];
        let ours = Some(EntryKind::Artifact { loadable: true });
        let foreign = Some(EntryKind::Artifact { loadable: false });
        assert_eq!(EntryKind::of("ab12-0123456789abcdef-a2.cwasm", fp), ours);
        assert_eq!(EntryKind::of("ab12-0123456789abcdef-a2.tag", fp), ours);
        assert_eq!(EntryKind::of("ab12-0123456789abcdef.cwasm", fp), foreign);
        assert_eq!(EntryKind::of("ab12-fedcba9876543210-a2.cwasm", fp), foreign);
        assert_eq!(EntryKind::of("ab12-0123456789abcdef-a3.tag", fp), foreign);
        // An artifact of either of the build's engines is loadable.
        let both = &[fp[0], "fedcba9876543210fedcba9876543210"][..];
        assert_eq!(EntryKind::of("ab12-fedcba9876543210-a2.cwasm", both), ours);
        assert_eq!(EntryKind::of("ab12-0123456789abcdef-a2.tag", both), ours);
        assert_eq!(EntryKind::of("ab12-aaaaaaaaaaaaaaaa-a2.tag", both), foreign);
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
        // An instrumented component compiled by the snapshot engine, kept
        // under its own fingerprint: loadable by this build.
        let snapshot_engine = crate::snapshot::engine().unwrap();
        let instrumenting = writer.for_engine(snapshot_engine);
        let compiled = instrumenting.load_or_compile(snapshot_engine, "1a", EMPTY_COMPONENT);
        assert_eq!(compiled.unwrap().1, CacheOutcome::Compiled);
        let again = instrumenting.load_or_compile(snapshot_engine, "1a", EMPTY_COMPONENT);
        assert_eq!(again.unwrap().1, CacheOutcome::Hit);
        let instrumented = {
            let path = instrumenting.artifact_path("1a");
            let name = path.file_name().unwrap().to_str().unwrap().to_string();
            [name.clone(), name.replace(".cwasm", ".tag")]
        };
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
        let mut unused = vec!["a2.accepted".to_string(), def, def_tag];
        unused.extend(instrumented);
        unused.sort();
        assert_eq!(removed(&report), unused, "in use: {in_use:?}");
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
}
