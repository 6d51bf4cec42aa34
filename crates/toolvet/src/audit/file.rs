//! The log file: opening it for appending under a lock, continuing the
//! chain from its real last line, rotation, and the files of a log.

use super::anchor::{AnchorState, anchor_key, anchor_path, write_anchor};
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The open log file and where its chain stands.
pub(super) struct LogFile {
    pub(super) path: PathBuf,
    pub(super) file: File,
    /// Hash of the last line as this writer last saw it.
    pub(super) prev: String,
    /// File length after our last append: if it changed, another writer
    /// appended and `prev` is re-read from the file.
    pub(super) len: u64,
    /// Rotate once the file reaches this size.
    pub(super) max_bytes: Option<u64>,
    /// The keyed anchor kept beside the log ([`anchor_path`]); `None`
    /// only in tests of the chain alone.
    pub(super) anchor: Option<AnchorState>,
}

/// An exclusive lock on the log file, released when dropped: also on
/// every early return, so one failed write never leaves the other writers
/// of the file waiting forever.
/// It holds its own handle of the file (a clone of the writer's, sharing
/// the lock), so the writer may switch files while holding it.
pub(super) struct Locked(File);

impl Locked {
    pub(super) fn take(file: File) -> std::io::Result<Locked> {
        file.lock()?;
        Ok(Locked(file))
    }
}

impl Drop for Locked {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

pub(super) fn open_append(path: &Path) -> std::io::Result<File> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    Ok(file)
}

impl LogFile {
    pub(super) fn open(path: &Path) -> std::io::Result<LogFile> {
        let mut file = open_append(path)?;
        let (prev, len) = chain_tail(path, &mut file)?;
        let key = anchor_key(path, true)?;
        Ok(LogFile {
            path: path.to_path_buf(),
            file,
            prev,
            len,
            max_bytes: None,
            anchor: Some(AnchorState {
                key,
                records: 0,
                synced_len: None,
            }),
        })
    }

    /// Whether the path no longer names our file (another writer rotated
    /// it away).
    pub(super) fn moved(&self) -> std::io::Result<bool> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let ours = self.file.metadata()?;
            match std::fs::metadata(&self.path) {
                Ok(now) => Ok(now.ino() != ours.ino() || now.dev() != ours.dev()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(true),
                Err(e) => Err(e),
            }
        }
        #[cfg(not(unix))]
        Ok(false)
    }

    /// Append `records` (each a JSON object without `prev`) as one write
    /// under the file lock, chaining each to the line before; then rotate
    /// when the file is full. `write` does the writing (tests make it
    /// fail).
    pub(super) fn append(
        &mut self,
        records: &[&str],
        write: impl FnOnce(&mut &File, &[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        // Lock the file the path names now: another writer may have
        // rotated ours away.
        let locked = loop {
            let locked = Locked::take(self.file.try_clone()?)?;
            if !self.moved()? {
                break locked;
            }
            drop(locked);
            let mut file = open_append(&self.path)?;
            let (prev, len) = chain_tail(&self.path, &mut file)?;
            (self.file, self.prev, self.len) = (file, prev, len);
        };
        let file = &locked.0;
        let len = file.metadata()?.len();
        let mut prev = if len == self.len {
            self.prev.clone()
        } else {
            chain_tail(&self.path, &mut &*file)?.0
        };
        // The anchor must describe the chain as it is now; when it does
        // not (first write, another writer's rotation, a stale or missing
        // anchor), the count is taken again and a mismatch is written
        // into the chain itself, where `toolvet log verify` reports it.
        let mut unanchored = None;
        if let Some(anchor) = self.anchor.as_mut()
            && anchor.synced_len != Some(len)
        {
            unanchored = anchor.reconcile(&self.path, &prev, || count_lines(&mut &*file))?;
        }
        let mut text = String::new();
        let written = records.len() + usize::from(unanchored.is_some());
        for record in unanchored
            .iter()
            .map(String::as_str)
            .chain(records.iter().copied())
        {
            let record = escape_line_separators(record);
            let body = record.strip_suffix('}').unwrap_or(&record);
            let line = format!("{body},\"prev\":\"{prev}\"}}");
            prev = hex::encode(Sha256::digest(line.as_bytes()));
            text.push_str(&line);
            text.push('\n');
        }
        let mut writer = file;
        write(&mut writer, text.as_bytes())?;
        writer.flush()?;
        self.len = file.metadata()?.len();
        self.prev = prev;
        if let Some(anchor) = self.anchor.as_mut() {
            anchor.records += written as u64;
        }
        if let Some(max) = self.max_bytes
            && self.len >= max
        {
            self.rotate()?;
            if let Some(anchor) = self.anchor.as_mut() {
                anchor.records = 0;
            }
        }
        if let Some(anchor) = self.anchor.as_mut() {
            // The records are written: a failed anchor must not make the
            // writer write them again. The next write finds the anchor
            // stale and says so in the chain.
            match write_anchor(&self.path, &anchor.key, anchor.records, &self.prev) {
                Ok(()) => anchor.synced_len = Some(self.len),
                Err(e) => {
                    anchor.synced_len = None;
                    tracing::error!(target: "toolvet::audit", path = %anchor_path(&self.path).display(),
                        "cannot write the decision log's anchor: {e}");
                }
            }
        }
        Ok(())
    }

    /// Rename the full file to the next `<name>.NNNNNN` and start a new
    /// one at the path (called holding the lock). The chain goes on: the
    /// next record links to the old file's last line.
    pub(super) fn rotate(&mut self) -> std::io::Result<()> {
        let next = rotated_files(&self.path)?
            .last()
            .and_then(|(n, _)| n.checked_add(1))
            .unwrap_or(1);
        let mut name = self.path.as_os_str().to_owned();
        name.push(format!(".{next:06}"));
        std::fs::rename(&self.path, PathBuf::from(name))?;
        self.file = open_append(&self.path)?;
        self.len = self.file.metadata()?.len();
        Ok(())
    }
}

/// Where the chain of the log at `path` stands: the hash of the last line
/// of `file` (the open current file), or for an empty file the last line
/// of its newest rotated predecessor; and `file`'s length.
pub(super) fn chain_tail(path: &Path, file: &mut impl LogRead) -> std::io::Result<(String, u64)> {
    let (hash, len) = last_line_hash(file)?;
    if len > 0 {
        return Ok((hash, len));
    }
    match rotated_files(path)?.pop() {
        Some((_, older)) => Ok((last_line_hash(&mut File::open(older)?)?.0, 0)),
        None => Ok((String::new(), 0)),
    }
}

/// The rotated files of the log at `path` (`<name>.NNNNNN`), oldest
/// first, with their numbers.
pub(super) fn rotated_files(path: &Path) -> std::io::Result<Vec<(u32, PathBuf)>> {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return Ok(Vec::new());
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let prefix = format!("{name}.");
    let mut found = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(found),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let entry = entry?;
        let file_name = entry.file_name();
        let Some(rest) = file_name.to_str().and_then(|n| n.strip_prefix(&prefix)) else {
            continue;
        };
        if rest.len() == 6
            && rest.bytes().all(|b| b.is_ascii_digit())
            && let Ok(n) = rest.parse()
        {
            found.push((n, entry.path()));
        }
    }
    found.sort();
    Ok(found)
}

/// Every file of the decision log at `path`, in chain order: the rotated
/// files (`<name>.000001`, …) oldest first, then `path` itself.
///
/// # Errors
/// The directory cannot be read.
pub fn log_files(path: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = rotated_files(path)?.into_iter().map(|(_, p)| p).collect();
    files.push(path.to_path_buf());
    Ok(files)
}

/// The complete lines of `file`.
fn count_lines(file: &mut impl LogRead) -> std::io::Result<u64> {
    use std::io::SeekFrom;
    file.seek(SeekFrom::Start(0))?;
    let mut buf = vec![0u8; 64 * 1024];
    let mut n = 0u64;
    loop {
        let read = file.read(&mut buf)?;
        if read == 0 {
            return Ok(n);
        }
        n += buf[..read].iter().filter(|&&b| b == b'\n').count() as u64;
    }
}

/// The sha256 (hex) of the last complete line of `file` (empty for an
/// empty file) and the file's length. Reads only the file's tail.
pub(super) fn last_line_hash(file: &mut impl LogRead) -> std::io::Result<(String, u64)> {
    use std::io::{Read, SeekFrom};
    let len = file.len()?;
    let mut window = 64 * 1024u64;
    loop {
        let start = len.saturating_sub(window);
        file.seek(SeekFrom::Start(start))?;
        let mut tail = Vec::with_capacity((len - start) as usize);
        file.by_ref().take(len - start).read_to_end(&mut tail)?;
        let body = tail.strip_suffix(b"\n").unwrap_or(&tail);
        match body.iter().rposition(|&b| b == b'\n') {
            Some(i) => return Ok((hex::encode(Sha256::digest(&body[i + 1..])), len)),
            None if start == 0 => {
                let hash = if body.is_empty() {
                    String::new()
                } else {
                    hex::encode(Sha256::digest(body))
                };
                return Ok((hash, len));
            }
            None => window *= 4,
        }
    }
}

/// A file the chain's tail can be read from.
pub(super) trait LogRead: std::io::Read + std::io::Seek {
    fn len(&self) -> std::io::Result<u64>;
}

impl LogRead for File {
    fn len(&self) -> std::io::Result<u64> {
        Ok(self.metadata()?.len())
    }
}

impl LogRead for &File {
    fn len(&self) -> std::io::Result<u64> {
        Ok(self.metadata()?.len())
    }
}

/// `record` (one serialized JSON object) with U+2028, U+2029 and the other
/// characters [`crate::display::visible`] escapes written as JSON escapes
/// ([`crate::display::json_visible`]). serde_json leaves them raw, and many
/// readers of a log (JavaScript before ES2019, editors, `less`, line-based
/// tools) take U+2028 and U+2029 for line breaks, so a record could seem
/// to end in the middle of an argument and a forged record seem to follow.
/// JSON allows them only inside strings, where the escape means the same
/// character, so the record's content is unchanged.
fn escape_line_separators(record: &str) -> std::borrow::Cow<'_, str> {
    crate::display::json_visible(record)
}
