//! The decision log: one JSON Lines record per verdict.
//!
//! Each record holds the time, the call id and tool, the sha256 of the
//! arguments text (never the arguments themselves), the agent, run and
//! principal, the verdict, every check's outcome with its plugin's sha256,
//! the host version and the policy file's sha256. Records are hash-chained:
//! `prev` is the sha256 of the previous line, so an edited or removed line
//! is evident (`toolvet` can verify a log with [`verify_chain`]).

use crate::call::CallRequest;
use crate::verdict::Verdict;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

/// An append-only decision log file.
pub struct DecisionLog {
    state: Mutex<LogState>,
}

struct LogState {
    file: File,
    /// Hash of the last line as this process last saw it.
    prev: String,
    /// File length after our last append: if it changed, another process
    /// appended and `prev` is re-read from the file.
    len: u64,
}

#[derive(Serialize)]
struct Record<'a> {
    time_ms: u128,
    call_id: &'a str,
    tool: &'a str,
    arguments_sha256: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    agent: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    run_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    principal: Option<&'a str>,
    verdict: &'a Verdict,
    plugin_sha256: &'a [Option<&'a str>],
    host_version: &'static str,
    policy_sha256: &'a str,
    prev: &'a str,
}

impl DecisionLog {
    /// Open `path` for appending (creating it), continuing the hash chain
    /// from its last line.
    ///
    /// # Errors
    /// I/O errors opening or reading the file.
    pub fn open(path: &Path) -> std::io::Result<Self> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(path)?;
        let (prev, len) = last_line_hash(&mut file)?;
        Ok(Self {
            state: Mutex::new(LogState { file, prev, len }),
        })
    }

    /// Append the record of one verdict. `plugin_sha256[i]` is the digest of
    /// the plugin behind `verdict.checks[i]`.
    ///
    /// # Errors
    /// I/O errors writing the line.
    pub fn append(
        &self,
        request: &CallRequest,
        verdict: &Verdict,
        plugin_sha256: &[Option<&str>],
        policy_sha256: &str,
    ) -> std::io::Result<()> {
        let mut guard = self.state.lock().expect("decision log lock");
        let state = &mut *guard;
        // Other processes may append to the same log (one-shot CLI hooks):
        // lock the file, and continue the chain from its real last line.
        state.file.lock()?;
        let len = state.file.metadata()?.len();
        if len != state.len {
            match last_line_hash(&mut state.file) {
                Ok((prev, _)) => state.prev = prev,
                Err(e) => {
                    state.file.unlock()?;
                    return Err(e);
                }
            }
        }
        let record = Record {
            time_ms: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_millis())
                .unwrap_or(0),
            call_id: &request.call.id,
            tool: &request.call.name,
            arguments_sha256: hex::encode(Sha256::digest(request.call.arguments.get().as_bytes())),
            agent: request.context.agent.as_deref(),
            run_id: request.context.run_id.as_deref(),
            principal: request.context.principal.as_deref(),
            verdict,
            plugin_sha256,
            host_version: env!("CARGO_PKG_VERSION"),
            policy_sha256,
            prev: &state.prev,
        };
        let mut line = serde_json::to_string(&record).map_err(std::io::Error::other)?;
        line.push('\n');
        // One write of the whole line, under an exclusive file lock.
        state.file.write_all(line.as_bytes())?;
        state.file.flush()?;
        state.prev = hex::encode(Sha256::digest(line.trim_end().as_bytes()));
        state.len = state.file.metadata()?.len();
        state.file.unlock()?;
        Ok(())
    }
}

/// The sha256 (hex) of the last complete line of `file` (empty for an
/// empty file) and the file's length. Reads only the file's tail.
fn last_line_hash(file: &mut File) -> std::io::Result<(String, u64)> {
    use std::io::{Read, Seek, SeekFrom};
    let len = file.metadata()?.len();
    let mut window = 64 * 1024u64;
    loop {
        let start = len.saturating_sub(window);
        file.seek(SeekFrom::Start(start))?;
        let mut tail = Vec::with_capacity((len - start) as usize);
        file.read_to_end(&mut tail)?;
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

/// Check the hash chain of a decision log: returns the number of records,
/// or the 1-based line number of the first record whose `prev` does not
/// match the line before it.
///
/// # Errors
/// `Err(line)` for a broken link or an unparseable line.
pub fn verify_chain(text: &str) -> Result<usize, usize> {
    let mut prev = String::new();
    let mut count = 0;
    for (i, line) in text.lines().enumerate() {
        let value: serde_json::Value = serde_json::from_str(line).map_err(|_| i + 1)?;
        if value.get("prev").and_then(|p| p.as_str()) != Some(prev.as_str()) {
            return Err(i + 1);
        }
        prev = hex::encode(Sha256::digest(line.as_bytes()));
        count += 1;
    }
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::DefaultDecision;

    #[test]
    fn chain_detects_edits_and_survives_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        let request = CallRequest::new("bash", &serde_json::json!({"command": "ls"})).unwrap();
        let verdict = crate::verdict::combine(vec![], DefaultDecision::Allow, 3);
        for _ in 0..2 {
            let log = DecisionLog::open(&path).unwrap();
            log.append(&request, &verdict, &[], "p").unwrap();
            log.append(&request, &verdict, &[], "p").unwrap();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(verify_chain(&text), Ok(4));
        assert!(
            !text.contains("\"command\""),
            "raw arguments must not be logged"
        );
        // Two writers on one file (two processes): the chain stays whole.
        let a = DecisionLog::open(&path).unwrap();
        let b = DecisionLog::open(&path).unwrap();
        for _ in 0..3 {
            a.append(&request, &verdict, &[], "p").unwrap();
            b.append(&request, &verdict, &[], "p").unwrap();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(verify_chain(&text), Ok(10));
        let tampered = text.replacen("\"allow\"", "\"deny\"", 2);
        assert_eq!(verify_chain(&tampered), Err(2));
    }
}
