//! The decision log: one JSON Lines record per verdict and per approval
//! event, hash-chained.
//!
//! A verdict record (`"event": "verdict"`) holds the time, the call id and
//! tool, the sha256 of the arguments text as received (never the arguments
//! themselves), the agent, run and principal, the verdict with every
//! check's outcome, each check's plugin sha256, the host version and the
//! policy's sha256. Approval records (`approval.requested`,
//! `approval.decided`, `approval.consumed`) hold the request id, the call
//! it is bound to, its status and, once decided, the reviewer, message and
//! scope. Every record's `prev` is the sha256 of the line before it, so an
//! edited, inserted or removed line is evident ([`verify_chain`]).
//!
//! Records are written by one writer thread per log, off the verdict's
//! path, through a bounded queue (`[host] decision_log_queue`). Several
//! processes may append to one file: each batch is written under an
//! exclusive file lock and continues the chain from the file's real last
//! line. What happens when a record cannot be written is
//! `[host] decision_log_on_failure` ([`LogFailure`]): by default the host
//! denies every call while the log cannot be written. A record that could
//! not be written is kept and retried; one that cannot even be queued is
//! counted ([`DecisionLogStats::dropped`]) and logged at error level, never
//! dropped silently.

use crate::approval::{ApprovalEvent, ApprovalRequest};
use crate::call::CallRequest;
use crate::config::{LogFailure, Policy};
use crate::error::Error;
use crate::verdict::Verdict;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::VecDeque;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How often the writer retries after a failed write.
const RETRY_INTERVAL: Duration = Duration::from_millis(200);

/// Most records written under one file lock.
const BATCH: usize = 256;

/// Counters of a decision log, for metrics and tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct DecisionLogStats {
    /// Records written to the file.
    pub written: u64,
    /// Records that could not be queued (queue full) and were not written.
    pub dropped: u64,
    /// Write attempts that failed (each failed record is retried).
    pub failed_writes: u64,
    /// Whether the last write succeeded.
    pub healthy: bool,
}

/// An append-only decision log. Cheap to clone: clones share the writer.
#[derive(Clone)]
pub(crate) struct DecisionLog {
    inner: Arc<LogInner>,
}

struct LogInner {
    path: PathBuf,
    on_failure: LogFailure,
    sender: Mutex<Option<SyncSender<Job>>>,
    writer: Mutex<Option<std::thread::JoinHandle<()>>>,
    counters: Arc<Counters>,
}

#[derive(Default)]
struct Counters {
    healthy: AtomicBool,
    written: AtomicU64,
    dropped: AtomicU64,
    failed_writes: AtomicU64,
}

enum Job {
    /// One record, serialized without its `prev`.
    Record(String),
    /// A verdict's record, serialized by the writer (off the verdict's
    /// path).
    Verdict(Box<VerdictJob>),
    /// Answer once everything queued before is written (or failed).
    Flush(tokio::sync::oneshot::Sender<Result<(), String>>),
}

/// Why a verdict's record was not queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unrecorded {
    /// The queue is full.
    QueueFull,
    /// The writer is gone.
    Closed,
}

/// What a verdict record is made of, owned, for the writer thread.
struct VerdictJob {
    time_ms: u64,
    request: CallRequest,
    verdict: Verdict,
    plugin_sha256: Vec<Option<String>>,
    policy_sha256: String,
}

impl VerdictJob {
    fn to_line(&self) -> String {
        let digests: Vec<Option<&str>> = self.plugin_sha256.iter().map(Option::as_deref).collect();
        let request = &self.request;
        let record = VerdictRecord {
            event: "verdict",
            time_ms: self.time_ms,
            call_id: &request.call.id,
            tool: &request.call.name,
            arguments_sha256: hex::encode(Sha256::digest(request.call.arguments.get())),
            agent: request.context.agent.as_deref(),
            run_id: request.context.run_id.as_deref(),
            principal: request.context.principal.as_deref(),
            verdict: &self.verdict,
            plugin_sha256: &digests,
            host_version: env!("CARGO_PKG_VERSION"),
            policy_sha256: &self.policy_sha256,
        };
        serde_json::to_string(&record).expect("a record serializes")
    }
}

#[derive(Serialize)]
struct VerdictRecord<'a> {
    event: &'static str,
    time_ms: u64,
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
}

#[derive(Serialize)]
struct ApprovalRecord<'a> {
    event: &'static str,
    time_ms: u64,
    approval_id: &'a str,
    status: crate::approval::ApprovalStatus,
    call_id: &'a str,
    tool: &'a str,
    arguments_sha256: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    run_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    agent: Option<&'a str>,
    escalations: &'a [crate::approval::Escalation],
    #[serde(skip_serializing_if = "Option::is_none")]
    review: Option<&'a crate::approval::ReviewRecord>,
    host_version: &'static str,
}

impl DecisionLog {
    /// The decision log `policy` names (`[host] decision_log`), if any.
    pub(crate) fn open_for(policy: &Policy) -> Result<Option<DecisionLog>, Error> {
        let Some(path) = &policy.host.decision_log else {
            return Ok(None);
        };
        DecisionLog::open(
            path,
            policy.host.decision_log_on_failure,
            policy.host.decision_log_queue,
        )
        .map(Some)
        .map_err(|source| Error::DecisionLog {
            policy: policy.source.clone(),
            path: path.clone(),
            source,
        })
    }

    /// Open `path` for appending (creating it and its directory), and start
    /// its writer thread with a queue of `queue` records.
    ///
    /// # Errors
    /// The file cannot be created, opened or read, or is not a regular
    /// file.
    pub(crate) fn open(path: &Path, on_failure: LogFailure, queue: usize) -> std::io::Result<Self> {
        let file = LogFile::open(path)?;
        let (sender, receiver) = std::sync::mpsc::sync_channel(queue);
        let counters = Arc::new(Counters {
            healthy: AtomicBool::new(true),
            ..Counters::default()
        });
        let writer = std::thread::Builder::new()
            .name("toolvet-decision-log".into())
            .spawn({
                let counters = counters.clone();
                move || write_loop(file, receiver, &counters, queue)
            })?;
        Ok(DecisionLog {
            inner: Arc::new(LogInner {
                path: path.to_path_buf(),
                on_failure,
                sender: Mutex::new(Some(sender)),
                writer: Mutex::new(Some(writer)),
                counters,
            }),
        })
    }

    /// The file.
    pub(crate) fn path(&self) -> &Path {
        &self.inner.path
    }

    /// What a failed record does to verdicts.
    pub(crate) fn on_failure(&self) -> LogFailure {
        self.inner.on_failure
    }

    /// Whether the last write succeeded.
    pub(crate) fn is_healthy(&self) -> bool {
        self.inner.counters.healthy.load(Ordering::Acquire)
    }

    /// The log's counters.
    pub(crate) fn stats(&self) -> DecisionLogStats {
        let c = &self.inner.counters;
        DecisionLogStats {
            written: c.written.load(Ordering::Relaxed),
            dropped: c.dropped.load(Ordering::Relaxed),
            failed_writes: c.failed_writes.load(Ordering::Relaxed),
            healthy: c.healthy.load(Ordering::Acquire),
        }
    }

    fn send(&self, job: Job) -> Result<(), Unrecorded> {
        let sender = self.inner.sender.lock().map_err(|_| Unrecorded::Closed)?;
        let Some(sender) = sender.as_ref() else {
            return Err(Unrecorded::Closed);
        };
        match sender.try_send(job) {
            Ok(()) => Ok(()),
            Err(e) => {
                self.inner.counters.dropped.fetch_add(1, Ordering::Relaxed);
                Err(match e {
                    TrySendError::Full(_) => Unrecorded::QueueFull,
                    TrySendError::Disconnected(_) => Unrecorded::Closed,
                })
            }
        }
    }

    /// Queue the record of one verdict. `plugin_sha256[i]` is the digest of
    /// the plugin behind `verdict.checks[i]`.
    pub(crate) fn append_verdict(
        &self,
        request: &CallRequest,
        verdict: &Verdict,
        plugin_sha256: &[Option<&str>],
        policy_sha256: &str,
    ) -> Result<(), Unrecorded> {
        let decision = verdict.decision;
        let mut verdict = verdict.clone();
        // A ticket resumes a call: a bearer credential, never written down.
        if let Some(approval) = verdict.approval.as_mut() {
            approval.ticket = None;
        }
        let job = VerdictJob {
            time_ms: now_ms(),
            request: request.clone(),
            plugin_sha256: plugin_sha256
                .iter()
                .map(|d| d.map(str::to_string))
                .collect(),
            policy_sha256: policy_sha256.to_string(),
            verdict,
        };
        let result = self.send(Job::Verdict(Box::new(job)));
        if let Err(why) = result {
            tracing::error!(target: "toolvet::audit", path = %self.inner.path.display(), ?why,
                call_id = %request.call.id, tool = %request.call.name, %decision,
                "a verdict's decision record could not be queued and is not in the log");
        }
        result
    }

    /// Queue the record of an approval event.
    pub(crate) fn append_event(&self, event: &ApprovalEvent) {
        let (name, request): (&str, &ApprovalRequest) = match event {
            ApprovalEvent::Requested(r) => ("approval.requested", r),
            ApprovalEvent::Decided(r) => ("approval.decided", r),
            ApprovalEvent::Consumed(r) => ("approval.consumed", r),
        };
        let record = ApprovalRecord {
            event: name,
            time_ms: now_ms(),
            approval_id: &request.id,
            status: request.status,
            call_id: &request.call.call_id,
            tool: &request.call.tool,
            arguments_sha256: &request.call.arguments_sha256,
            run_id: request.call.run_id.as_deref(),
            agent: request.agent.as_deref(),
            escalations: &request.escalations,
            review: request.review.as_ref(),
            host_version: env!("CARGO_PKG_VERSION"),
        };
        let line = serde_json::to_string(&record).expect("a record serializes");
        if let Err(why) = self.send(Job::Record(line)) {
            tracing::error!(target: "toolvet::audit", path = %self.inner.path.display(), ?why,
                approval_id = %request.id, event = name,
                "an approval record could not be queued and is not in the log");
        }
    }

    /// Wait (at most `timeout`) until every record queued before this call
    /// is written.
    ///
    /// # Errors
    /// The last write failed, the queue is full, the writer is gone, or the
    /// timeout passed.
    pub(crate) async fn flush(&self, timeout: Duration) -> Result<(), String> {
        let (ack, done) = tokio::sync::oneshot::channel();
        {
            let sender = self
                .inner
                .sender
                .lock()
                .map_err(|_| "the decision log is closed".to_string())?;
            let sender = sender.as_ref().ok_or("the decision log is closed")?;
            sender.try_send(Job::Flush(ack)).map_err(|e| match e {
                TrySendError::Full(_) => "the decision log's queue is full".to_string(),
                TrySendError::Disconnected(_) => "the decision log's writer is gone".to_string(),
            })?;
        }
        match tokio::time::timeout(timeout, done).await {
            Ok(Ok(result)) => result,
            Ok(Err(_)) => Err("the decision log's writer is gone".into()),
            Err(_) => Err(format!(
                "the decision log was not written within {} ms",
                timeout.as_millis()
            )),
        }
    }
}

impl Drop for LogInner {
    /// Close the queue and wait for the writer to write what is queued.
    fn drop(&mut self) {
        if let Ok(mut sender) = self.sender.lock() {
            sender.take();
        }
        if let Ok(mut writer) = self.writer.lock()
            && let Some(writer) = writer.take()
        {
            let _ = writer.join();
        }
    }
}

fn now_ms() -> u64 {
    crate::approval::UnixMillis::now().0
}

/// The writer thread: take records from the queue, write them in batches,
/// and keep what failed for the next attempt.
fn write_loop(mut file: LogFile, jobs: Receiver<Job>, counters: &Counters, cap: usize) {
    let mut waiting: VecDeque<String> = VecDeque::new();
    let mut acks = Vec::new();
    let mut open = true;
    while open || !waiting.is_empty() {
        let first = if waiting.is_empty() {
            jobs.recv().map_err(|_| RecvTimeoutError::Disconnected)
        } else {
            jobs.recv_timeout(RETRY_INTERVAL)
        };
        let take = |job, waiting: &mut VecDeque<String>, acks: &mut Vec<_>| match job {
            Job::Record(line) => waiting.push_back(line),
            Job::Verdict(job) => waiting.push_back(job.to_line()),
            Job::Flush(ack) => acks.push(ack),
        };
        match first {
            Ok(job) => take(job, &mut waiting, &mut acks),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => open = false,
        }
        while let Ok(job) = jobs.try_recv() {
            take(job, &mut waiting, &mut acks);
            if waiting.len() >= BATCH {
                break;
            }
        }
        let result = write_waiting(&mut file, &mut waiting, counters);
        if let Err(e) = &result {
            // Bound what is kept for retrying to the queue's size.
            let over = waiting.len().saturating_sub(cap);
            if over > 0 {
                waiting.drain(..over);
                counters.dropped.fetch_add(over as u64, Ordering::Relaxed);
                tracing::error!(target: "toolvet::audit", dropped = over, "decision records dropped: the log has been failing for a while");
            }
            tracing::error!(target: "toolvet::audit", path = %file.path.display(), "cannot write the decision log: {e}");
            if !open {
                // Closing: one last attempt made, nobody will retry.
                counters
                    .dropped
                    .fetch_add(waiting.len() as u64, Ordering::Relaxed);
                tracing::error!(target: "toolvet::audit", lost = waiting.len(), "decision records not written before the log closed");
                waiting.clear();
            }
        }
        if waiting.is_empty() || result.is_err() {
            for ack in acks.drain(..) {
                let _ = ack.send(result.as_ref().map(|_| ()).map_err(|e| e.to_string()));
            }
        }
    }
}

fn write_waiting(
    file: &mut LogFile,
    waiting: &mut VecDeque<String>,
    counters: &Counters,
) -> std::io::Result<()> {
    while !waiting.is_empty() {
        let n = waiting.len().min(BATCH);
        let batch: Vec<&str> = waiting.iter().take(n).map(String::as_str).collect();
        match file.append(&batch, |f, bytes| f.write_all(bytes)) {
            Ok(()) => {
                waiting.drain(..n);
                counters.written.fetch_add(n as u64, Ordering::Relaxed);
                counters.healthy.store(true, Ordering::Release);
            }
            Err(e) => {
                counters.failed_writes.fetch_add(1, Ordering::Relaxed);
                counters.healthy.store(false, Ordering::Release);
                return Err(e);
            }
        }
    }
    Ok(())
}

/// The open log file and where its chain stands.
struct LogFile {
    path: PathBuf,
    file: File,
    /// Hash of the last line as this writer last saw it.
    prev: String,
    /// File length after our last append: if it changed, another writer
    /// appended and `prev` is re-read from the file.
    len: u64,
}

/// An exclusive lock on the log file, released when dropped: also on
/// every early return, so one failed write never leaves the other writers
/// of the file waiting forever.
struct Locked<'a>(&'a File);

impl<'a> Locked<'a> {
    fn take(file: &'a File) -> std::io::Result<Locked<'a>> {
        file.lock()?;
        Ok(Locked(file))
    }
}

impl Drop for Locked<'_> {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

impl LogFile {
    fn open(path: &Path) -> std::io::Result<LogFile> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(path)?;
        if !file.metadata()?.is_file() {
            return Err(std::io::Error::other("not a regular file"));
        }
        let (prev, len) = last_line_hash(&mut file)?;
        Ok(LogFile {
            path: path.to_path_buf(),
            file,
            prev,
            len,
        })
    }

    /// Append `records` (each a JSON object without `prev`) as one write
    /// under the file lock, chaining each to the line before. `write` does
    /// the writing (tests make it fail).
    fn append(
        &mut self,
        records: &[&str],
        write: impl FnOnce(&mut &File, &[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let file = &self.file;
        let _lock = Locked::take(file)?;
        let len = file.metadata()?.len();
        let mut prev = if len == self.len {
            self.prev.clone()
        } else {
            last_line_hash(&mut &*file)?.0
        };
        let mut text = String::new();
        for record in records {
            let body = record.strip_suffix('}').unwrap_or(record);
            let line = format!("{body},\"prev\":\"{prev}\"}}");
            prev = hex::encode(Sha256::digest(line.as_bytes()));
            text.push_str(&line);
            text.push('\n');
        }
        let mut handle = file;
        write(&mut handle, text.as_bytes())?;
        handle.flush()?;
        self.len = file.metadata()?.len();
        self.prev = prev;
        Ok(())
    }
}

/// The sha256 (hex) of the last complete line of `file` (empty for an
/// empty file) and the file's length. Reads only the file's tail.
fn last_line_hash(file: &mut impl LogRead) -> std::io::Result<(String, u64)> {
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
trait LogRead: std::io::Read + std::io::Seek {
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
    use crate::config::{Combine, DefaultDecision};

    fn verdict() -> Verdict {
        crate::verdict::combine(Combine::DenyOverrides, vec![], DefaultDecision::Allow, 3)
    }

    fn request() -> CallRequest {
        CallRequest::new("bash", &serde_json::json!({"command": "ls"})).unwrap()
    }

    fn log(path: &Path) -> DecisionLog {
        DecisionLog::open(path, LogFailure::Deny, 64).unwrap()
    }

    #[tokio::test]
    async fn chain_detects_edits_and_survives_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        for _ in 0..2 {
            let log = log(&path);
            log.append_verdict(&request(), &verdict(), &[], "p")
                .unwrap();
            log.append_verdict(&request(), &verdict(), &[], "p")
                .unwrap();
            log.flush(Duration::from_secs(10)).await.unwrap();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(verify_chain(&text), Ok(4));
        assert!(
            !text.contains("\"command\""),
            "raw arguments must not be logged"
        );
        // Two writers on one file (two processes): the chain stays whole.
        let a = log(&path);
        let b = log(&path);
        for _ in 0..3 {
            a.append_verdict(&request(), &verdict(), &[], "p").unwrap();
            b.append_verdict(&request(), &verdict(), &[], "p").unwrap();
        }
        a.flush(Duration::from_secs(10)).await.unwrap();
        b.flush(Duration::from_secs(10)).await.unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(verify_chain(&text), Ok(10));
        let tampered = text.replacen("\"allow\"", "\"deny\"", 2);
        assert_eq!(verify_chain(&tampered), Err(2));
        assert_eq!(a.stats().written + b.stats().written, 6);
    }

    #[test]
    fn dropping_the_log_writes_what_was_queued() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        let log = log(&path);
        for _ in 0..50 {
            log.append_verdict(&request(), &verdict(), &[], "p")
                .unwrap();
        }
        drop(log);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(verify_chain(&text), Ok(50));
    }

    /// A failed write (a full disk) releases the file lock: another writer
    /// of the same file is not blocked. Before the lock guard, every `?`
    /// after `lock()` returned with the lock held.
    #[test]
    fn a_failed_write_releases_the_file_lock() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        let mut first = LogFile::open(&path).unwrap();
        let failed = first.append(&["{\"a\":1}"], |_, _| {
            Err(std::io::Error::other("No space left on device"))
        });
        assert!(failed.is_err());
        let (done, finished) = std::sync::mpsc::channel();
        let other = path.clone();
        std::thread::spawn(move || {
            let mut second = LogFile::open(&other).unwrap();
            done.send(second.append(&["{\"b\":2}"], |f, b| f.write_all(b)).is_ok())
                .unwrap();
        });
        assert_eq!(
            finished.recv_timeout(Duration::from_secs(10)),
            Ok(true),
            "the second writer stayed blocked on the lock the failed write left behind"
        );
        // The first writer recovers too, and the chain is whole.
        first.append(&["{\"c\":3}"], |f, b| f.write_all(b)).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(verify_chain(&text), Ok(2));
    }

    #[test]
    fn a_failed_write_marks_the_log_unhealthy_and_keeps_the_record() {
        let dir = tempfile::tempdir().unwrap();
        // A handle opened read-only: every write through it fails.
        let ro = dir.path().join("ro.jsonl");
        std::fs::write(&ro, "").unwrap();
        let file = std::fs::File::open(&ro).unwrap();
        let mut broken = LogFile {
            path: ro.clone(),
            file,
            prev: String::new(),
            len: 0,
        };
        let counters = Counters {
            healthy: AtomicBool::new(true),
            ..Counters::default()
        };
        let mut waiting: VecDeque<String> = VecDeque::from(vec!["{\"a\":1}".to_string()]);
        assert!(write_waiting(&mut broken, &mut waiting, &counters).is_err());
        assert!(!counters.healthy.load(Ordering::Acquire));
        assert_eq!(waiting.len(), 1, "a failed record is kept for retrying");
        assert_eq!(counters.failed_writes.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn a_log_path_that_is_not_a_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        assert!(LogFile::open(dir.path()).is_err());
    }
}
