//! A session's history across one-shot hook processes: one JSON Lines file
//! per agent and session, each line an earlier call ([`PriorCall`]).
//!
//! - The file name is a digest of the session id, never the id itself, so
//!   a hostile id cannot reach outside the directory.
//! - The file is locked (an exclusive OS lock) from before it is read until
//!   the new call's line is written, so hooks that run at the same time
//!   (agents run parallel tool calls' hooks in parallel) take turns and see
//!   each other's calls.
//! - A line that is not a valid entry is an error (the call is blocked):
//!   a history that cannot be read cannot vouch for a sequence rule.
//! - The file keeps at most [`MAX_FILE_BYTES`]; past that, its newest
//!   entries are kept.

use crate::HookError;
use serde_json::value::RawValue;
use sha2::Digest;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use toolvet::{Outcome, PriorCall};

/// Largest history file kept, in bytes.
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// One session's history file, locked while this value lives.
#[derive(Debug)]
pub struct SessionHistory {
    file: File,
    path: PathBuf,
    entries: Vec<PriorCall>,
}

/// The history file of `session` for `agent_name` under `dir`.
pub fn path_for(dir: &Path, agent_name: &str, session: &str) -> PathBuf {
    let digest = hex::encode(sha2::Sha256::digest(session.as_bytes()));
    dir.join(agent_name)
        .join(format!("{}.jsonl", &digest[..32]))
}

impl SessionHistory {
    /// Open (creating it and its directory, mode 0700/0600) and lock the
    /// history at `path`, and read its entries.
    ///
    /// # Errors
    /// [`HookError::History`] naming the file and what is wrong.
    pub fn open(path: &Path) -> Result<SessionHistory, HookError> {
        let fail = |what: &str, e: &dyn std::fmt::Display| {
            HookError::History(format!("{}: {what}: {e}", path.display()))
        };
        if let Some(dir) = path.parent() {
            create_private_dir(dir).map_err(|e| fail("cannot create its directory", &e))?;
        }
        let mut options = OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(path).map_err(|e| fail("cannot open", &e))?;
        file.lock().map_err(|e| fail("cannot lock", &e))?;
        let mut text = String::new();
        (&mut file)
            .take(MAX_FILE_BYTES + 1)
            .read_to_string(&mut text)
            .map_err(|e| fail("cannot read (not UTF-8 text?)", &e))?;
        let mut entries = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let entry: PriorCall = serde_json::from_str(line)
                .map_err(|e| fail(&format!("line {} is not a history entry", i + 1), &e))?;
            if !entry.arguments.get().trim_start().starts_with('{') {
                return Err(fail(
                    &format!("line {}", i + 1),
                    &"`arguments` is not a JSON object",
                ));
            }
            entries.push(entry);
        }
        let mut history = SessionHistory {
            file,
            path: path.to_path_buf(),
            entries,
        };
        if text.len() as u64 > MAX_FILE_BYTES {
            history.compact()?;
        }
        Ok(history)
    }

    /// The entries, oldest first.
    pub fn entries(&self) -> &[PriorCall] {
        &self.entries
    }

    /// Append the call that was just vetted (then the lock is released
    /// when `self` drops).
    ///
    /// # Errors
    /// [`HookError::History`] if the line cannot be written.
    pub fn append(
        &mut self,
        name: &str,
        arguments: &RawValue,
        outcome: Outcome,
    ) -> Result<(), HookError> {
        let entry = PriorCall {
            name: name.to_string(),
            arguments: arguments.to_owned(),
            outcome,
        };
        let mut line = serde_json::to_string(&entry)
            .map_err(|e| HookError::History(format!("cannot encode an entry: {e}")))?;
        line.push('\n');
        self.file
            .seek(SeekFrom::End(0))
            .and_then(|_| self.file.write_all(line.as_bytes()))
            .and_then(|()| self.file.sync_data())
            .map_err(|e| {
                HookError::History(format!("{}: cannot write: {e}", self.path.display()))
            })?;
        self.entries.push(entry);
        Ok(())
    }

    /// Rewrite the file with its newest entries, under half the limit.
    fn compact(&mut self) -> Result<(), HookError> {
        let mut kept = Vec::new();
        let mut size = 0u64;
        for entry in self.entries.iter().rev() {
            let line = serde_json::to_string(entry).unwrap_or_default();
            size += line.len() as u64 + 1;
            if size > MAX_FILE_BYTES / 2 {
                break;
            }
            kept.push(line);
        }
        kept.reverse();
        let text: String = kept.iter().map(|l| format!("{l}\n")).collect();
        let keep = kept.len();
        let drop = self.entries.len() - keep;
        self.entries.drain(..drop);
        self.file
            .set_len(0)
            .and_then(|()| self.file.seek(SeekFrom::Start(0)).map(|_| ()))
            .and_then(|()| self.file.write_all(text.as_bytes()))
            .map_err(|e| {
                HookError::History(format!("{}: cannot compact: {e}", self.path.display()))
            })
    }
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.into()).unwrap()
    }

    #[test]
    fn entries_survive_reopening_and_session_ids_cannot_escape() {
        let dir = tempfile::tempdir().unwrap();
        let path = path_for(dir.path(), "codex", "../../etc/passwd");
        assert!(
            path.starts_with(dir.path().join("codex")),
            "{}",
            path.display()
        );
        {
            let mut h = SessionHistory::open(&path).unwrap();
            assert!(h.entries().is_empty());
            h.append("read_file", &raw(r#"{"path":"a"}"#), Outcome::Allowed)
                .unwrap();
        }
        let h = SessionHistory::open(&path).unwrap();
        assert_eq!(h.entries().len(), 1);
        assert_eq!(h.entries()[0].name, "read_file");
    }

    #[test]
    fn a_corrupt_line_is_an_error_naming_the_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.jsonl");
        std::fs::write(
            &path,
            "{\"name\":\"a\",\"arguments\":{},\"outcome\":\"allowed\"}\nnot json\n",
        )
        .unwrap();
        let e = SessionHistory::open(&path).unwrap_err().to_string();
        assert!(e.contains("h.jsonl") && e.contains("line 2"), "{e}");
        std::fs::write(
            &path,
            "{\"name\":\"a\",\"arguments\":[],\"outcome\":\"allowed\"}\n",
        )
        .unwrap();
        assert!(SessionHistory::open(&path).is_err());
    }

    #[test]
    fn concurrent_appends_are_all_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let threads: Vec<_> = (0..8)
            .map(|i| {
                let path = path.clone();
                std::thread::spawn(move || {
                    for j in 0..20 {
                        let mut h = SessionHistory::open(&path).unwrap();
                        let before = h.entries().len();
                        h.append(&format!("t{i}-{j}"), &raw("{}"), Outcome::Allowed)
                            .unwrap();
                        assert_eq!(h.entries().len(), before + 1);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(SessionHistory::open(&path).unwrap().entries().len(), 160);
    }
}
