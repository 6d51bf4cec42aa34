//! The keyed anchor beside a log (`<log>.anchor`, key `<log>.key`): the
//! record count and last hash under a MAC, so a cut or rewritten tail is
//! evident to whoever holds the key.

use super::now_ms;
use serde::Serialize;
use sha2::Sha256;
use std::path::{Path, PathBuf};

/// The `event` of the record a writer puts into the chain when the
/// log's end, as a writer found it, did not match its anchor.
pub const UNANCHORED_EVENT: &str = "log.unanchored";

/// Domain of the anchor's MAC, so it is never valid for anything else.
pub(super) const ANCHOR_DOMAIN: &str = "toolvet decision log anchor v1";

/// Where the anchor of the log at `log` is kept: `<log>.anchor`, one JSON
/// object `{"v": 1, "records": N, "last_hash": "…", "mac": "…"}`, rewritten
/// (write and rename) after every write. `records` is the number of
/// records in the file at `log` (0 right after a rotation), `last_hash`
/// the sha256 of the chain's last line (in the newest rotated file when
/// `log` is empty), `mac` their HMAC-SHA256 under the key at
/// [`anchor_key_path`]. A log cut short, or rewritten and re-chained
/// end to end, no longer ends where its anchor says, and only the key's
/// holder can write another anchor ([`verify_anchor`]).
pub fn anchor_path(log: &Path) -> PathBuf {
    let mut name = log.as_os_str().to_owned();
    name.push(".anchor");
    PathBuf::from(name)
}

/// The key of the anchor of the log at `log`: `<log>.key`, 32 random
/// bytes as hex, created mode 0600 by the first writer (like the approvals
/// key: a file group or others may read is refused). It is never logged
/// or shown.
pub fn anchor_key_path(log: &Path) -> PathBuf {
    let mut name = log.as_os_str().to_owned();
    name.push(".key");
    PathBuf::from(name)
}

/// The anchor key of the log at `log`; created when missing and `create`.
pub(super) fn anchor_key(log: &Path, create: bool) -> std::io::Result<Vec<u8>> {
    let path = anchor_key_path(log);
    if !create && !path.exists() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("{}: no anchor key", path.display()),
        ));
    }
    crate::approval::key::load(&crate::config::KeySource::File(path))
        .map_err(|e| std::io::Error::other(e.to_string()))
}

pub(super) fn anchor_mac(key: &[u8], records: u64, last_hash: &str) -> String {
    use hmac::Mac as _;
    let mut mac = hmac::Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes keys of any length");
    mac.update(format!("{ANCHOR_DOMAIN}\n{records}\n{last_hash}\n").as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// An anchor as written.
#[derive(Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AnchorFile {
    pub(super) v: u32,
    pub(super) records: u64,
    pub(super) last_hash: String,
    pub(super) mac: String,
}

pub(super) fn write_anchor(
    log: &Path,
    key: &[u8],
    records: u64,
    last_hash: &str,
) -> std::io::Result<()> {
    let anchor = AnchorFile {
        v: 1,
        records,
        last_hash: last_hash.to_string(),
        mac: anchor_mac(key, records, last_hash),
    };
    let path = anchor_path(log);
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let mut text = serde_json::to_string(&anchor).map_err(std::io::Error::other)?;
    text.push('\n');
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, &path)
}

/// A decision log's anchor, read and its MAC checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Anchor {
    /// Records in the log's current file when it was written.
    pub records: u64,
    /// The sha256 of the chain's last line then.
    pub last_hash: String,
}

/// The anchor of the log at `log`, checked with `key`: `Ok(None)` when
/// there is none.
///
/// # Errors
/// The anchor cannot be read, is not an anchor, or its MAC does not match
/// (it was edited, or written with another key).
pub(super) fn read_anchor(log: &Path, key: &[u8]) -> Result<Option<Anchor>, String> {
    let path = anchor_path(log);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: cannot read: {e}", path.display())),
    };
    let anchor: AnchorFile = serde_json::from_str(text.trim_end())
        .map_err(|e| format!("{}: not an anchor: {e}", path.display()))?;
    if anchor.v != 1 {
        return Err(format!(
            "{}: unknown anchor version {}",
            path.display(),
            anchor.v
        ));
    }
    let want = anchor_mac(key, anchor.records, &anchor.last_hash);
    let matches: bool = subtle_eq(want.as_bytes(), anchor.mac.as_bytes());
    if !matches {
        return Err(format!(
            "{}: the anchor's MAC does not match: it was edited, or written with another key \
             than {}",
            path.display(),
            anchor_key_path(log).display()
        ));
    }
    Ok(Some(Anchor {
        records: anchor.records,
        last_hash: anchor.last_hash,
    }))
}

/// Compare in time independent of where the bytes differ.
pub(super) fn subtle_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Check that the log at `log` ends where its anchor says: `records`
/// records in the current file (what [`verify_log`](super::verify_log) counted in it) and
/// `last_hash` the hash of the chain's last line. The key is read from
/// `key_file` ([`anchor_key_path`] by default), never created.
///
/// # Errors
/// A sentence naming the file: no key or no anchor (the end of the log
/// cannot be checked), an anchor that is not valid under the key, or a log
/// that ends elsewhere (cut short, lines added after the anchor, or the
/// chain rewritten).
pub fn verify_anchor(
    log: &Path,
    key_file: Option<&Path>,
    records: usize,
    last_hash: &str,
) -> Result<Anchor, AnchorError> {
    let key_path = key_file.map_or_else(|| anchor_key_path(log), Path::to_path_buf);
    if !key_path.exists() {
        return Err(AnchorError::NoKey { key: key_path });
    }
    let key = crate::approval::key::load(&crate::config::KeySource::File(key_path.clone()))
        .map_err(|e| AnchorError::Key(e.to_string()))?;
    let anchor = read_anchor(log, &key)
        .map_err(AnchorError::Unreadable)?
        .ok_or_else(|| AnchorError::NoAnchor {
            anchor: anchor_path(log),
        })?;
    if anchor.last_hash != last_hash || anchor.records != records as u64 {
        let how = if (records as u64) < anchor.records {
            "the log was cut short (records at its end were removed)"
        } else if (records as u64) > anchor.records {
            "records were added after the last anchored one, or the chain was rewritten"
        } else {
            "its last record is not the anchored one: the chain was rewritten"
        };
        return Err(AnchorError::Mismatch {
            log: log.to_path_buf(),
            record: records.min(anchor.records as usize).max(1),
            anchored_records: anchor.records,
            anchored_hash: short(&anchor.last_hash).to_string(),
            records,
            last_hash: short(last_hash).to_string(),
            how,
        });
    }
    Ok(anchor)
}

/// Why [`verify_anchor`] could not confirm where a log ends. Each message
/// is a sentence naming the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AnchorError {
    /// The anchor key file does not exist.
    #[error(
        "{}: no anchor key, so the end of the log cannot be checked (give it with --key)",
        .key.display()
    )]
    NoKey {
        /// The key file looked for.
        key: PathBuf,
    },
    /// The key file cannot be read or is not a key: the sentence naming it.
    #[error("{0}")]
    Key(String),
    /// The anchor file cannot be read, is malformed, or its MAC does not
    /// match the key: the sentence naming it.
    #[error("{0}")]
    Unreadable(String),
    /// There is no anchor file.
    #[error(
        "{}: no anchor, so the end of the log cannot be checked: it was removed, or no \
         toolvet wrote this log",
        .anchor.display()
    )]
    NoAnchor {
        /// The anchor file looked for.
        anchor: PathBuf,
    },
    /// The log does not end where the anchor says.
    #[error(
        "{}: record {record}: the anchor says the file holds {anchored_records} records ending \
         in {anchored_hash}, it holds {records} ending in {last_hash}: {how}",
        .log.display()
    )]
    Mismatch {
        /// The log file.
        log: PathBuf,
        /// The first record (1-based) where they part.
        record: usize,
        /// Records the anchor counts.
        anchored_records: u64,
        /// The first 12 hex digits of the anchored last hash.
        anchored_hash: String,
        /// Records the file holds.
        records: usize,
        /// The first 12 hex digits of the file's last hash (`(nothing)`
        /// for none).
        last_hash: String,
        /// How the log differs, in words.
        how: &'static str,
    },
}

pub(super) fn short(hash: &str) -> &str {
    if hash.is_empty() {
        "(nothing)"
    } else {
        hash.get(..12).unwrap_or(hash)
    }
}

/// What a writer knows of its log's anchor.
pub(super) struct AnchorState {
    pub(super) key: Vec<u8>,
    /// Records in the current file, anchored.
    pub(super) records: u64,
    /// The file's length when the anchor was last written by this writer;
    /// another length means it must be checked again.
    pub(super) synced_len: Option<u64>,
}

impl AnchorState {
    /// Take the count from the anchor when it describes the chain as it
    /// ends now (`prev`); else count the log's records with `count_records`
    /// (which reads the log file), and return the record that says so in
    /// the chain (none for a new, empty log).
    pub(super) fn reconcile(
        &mut self,
        log: &Path,
        prev: &str,
        count_records: impl FnOnce() -> std::io::Result<u64>,
    ) -> std::io::Result<Option<String>> {
        let found = read_anchor(log, &self.key);
        if let Ok(Some(anchor)) = &found
            && anchor.last_hash == prev
        {
            self.records = anchor.records;
            return Ok(None);
        }
        self.records = count_records()?;
        let why = match &found {
            Ok(None) if prev.is_empty() => return Ok(None),
            Ok(None) => "the log has no anchor".to_string(),
            Ok(Some(a)) => format!(
                "the anchor says {} records ending in {}, the log ends in {}",
                a.records,
                short(&a.last_hash),
                short(prev)
            ),
            Err(e) => e.clone(),
        };
        tracing::error!(target: "toolvet::audit", path = %log.display(),
            "the decision log does not end where its anchor says ({why}); recorded in the log");
        let record = serde_json::json!({
            "event": UNANCHORED_EVENT,
            "time_ms": now_ms(),
            "records_found": self.records,
            "why": why,
            "host_version": env!("CARGO_PKG_VERSION"),
        });
        Ok(Some(record.to_string()))
    }
}
