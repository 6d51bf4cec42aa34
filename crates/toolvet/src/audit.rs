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
//!
//! With `[host] decision_log_arguments = true`, verdict records also hold
//! the call's `arguments`, context `attributes` and `tool_info`, redacted
//! ([`Redactor`], `decision_log_redact`), so `toolvet replay` can vet the
//! recorded calls again. With `decision_log_max_bytes`, a full file is
//! renamed `<name>.000001` (`.000002`, …) and the chain continues in a new
//! file: the first record of the new file links to the last of the old
//! ([`log_files`] lists a log's files in chain order, [`verify_log`]
//! checks one file's chain and record shapes).

use crate::approval::{ApprovalEvent, ApprovalRequest};
use crate::call::{CallRequest, ToolInfo};
use crate::config::{HostSettings, LogFailure, Policy};
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

/// What replaces a redacted value in a decision record.
pub const REDACTED: &str = "[redacted]";

/// Removes secrets from what a decision record keeps of a call (its
/// arguments, its context attributes), in place, before the record is
/// written. Runs on the log's writer thread, off the verdict's path.
pub trait Redactor: Send + Sync + std::fmt::Debug {
    /// Replace every secret in `value` (a JSON object) by [`REDACTED`] or
    /// a description of what was there.
    fn redact(&self, value: &mut serde_json::Value);
}

/// What verdict records keep of a call's contents.
#[derive(Debug, Clone, Default)]
struct Recording {
    /// Keep arguments, attributes and tool info (redacted).
    arguments: bool,
    /// Keys whose values are redacted (ASCII case ignored).
    keys: Vec<String>,
    redactor: Option<Arc<dyn Redactor>>,
}

impl Recording {
    fn redacted(&self, mut value: serde_json::Value) -> serde_json::Value {
        redact_keys(&mut value, &self.keys);
        if let Some(r) = &self.redactor {
            r.redact(&mut value);
        }
        value
    }
}

fn redact_keys(value: &mut serde_json::Value, keys: &[String]) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if keys.iter().any(|k| k.eq_ignore_ascii_case(key)) {
                    *v = serde_json::Value::String(REDACTED.into());
                } else {
                    redact_keys(v, keys);
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(|v| redact_keys(v, keys)),
        _ => {}
    }
}

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
    recording: Arc<Recording>,
    max_bytes: Option<u64>,
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
    fn to_line(&self, recording: &Recording) -> String {
        let digests: Vec<Option<&str>> = self.plugin_sha256.iter().map(Option::as_deref).collect();
        let request = &self.request;
        let kept = recording.arguments.then(|| {
            let arguments = serde_json::from_str(request.call.arguments.get())
                .unwrap_or(serde_json::Value::Null);
            let attributes = serde_json::to_value(&request.context.attributes)
                .unwrap_or(serde_json::Value::Null);
            (
                recording.redacted(arguments),
                recording.redacted(attributes),
            )
        });
        let (arguments, attributes) = match kept {
            Some((a, b)) => (Some(a), Some(b)),
            None => (None, None),
        };
        let record = VerdictRecord {
            arguments,
            attributes,
            tool_info: recording.arguments.then_some(&request.tool),
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
    #[serde(skip_serializing_if = "Option::is_none")]
    arguments: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    attributes: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_info: Option<&'a ToolInfo>,
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
    /// The decision log `policy` names (`[host] decision_log`), if any;
    /// `redactor` redacts the arguments records keep
    /// (`decision_log_arguments`).
    pub(crate) fn open_for(
        policy: &Policy,
        redactor: Option<Arc<dyn Redactor>>,
    ) -> Result<Option<DecisionLog>, Error> {
        let Some(path) = &policy.host.decision_log else {
            return Ok(None);
        };
        let failed = |source| Error::DecisionLog {
            policy: policy.source.clone(),
            path: path.clone(),
            source,
        };
        let host = &policy.host;
        if host.decision_log_arguments && host.decision_log_redact.is_empty() && redactor.is_none()
        {
            return Err(failed(std::io::Error::other(
                "`decision_log_arguments = true` needs secrets redacted: list the argument keys                  to redact in `decision_log_redact`, or run a program that redacts (toolvet                  check, toolvet serve)",
            )));
        }
        let recording = Recording {
            arguments: host.decision_log_arguments,
            keys: host.decision_log_redact.clone(),
            redactor,
        };
        DecisionLog::open_with(
            path,
            host.decision_log_on_failure,
            host.decision_log_queue,
            recording,
            host.decision_log_max_bytes,
        )
        .map(Some)
        .map_err(failed)
    }

    /// Whether this log is the one `host` asks for (so a reload keeps it).
    pub(crate) fn serves(&self, host: &HostSettings, redactor: Option<&Arc<dyn Redactor>>) -> bool {
        let r = &self.inner.recording;
        Some(self.path()) == host.decision_log.as_deref()
            && self.on_failure() == host.decision_log_on_failure
            && r.arguments == host.decision_log_arguments
            && r.keys == host.decision_log_redact
            && r.redactor.as_ref().map(Arc::as_ptr) == redactor.map(Arc::as_ptr)
            && self.inner.max_bytes == host.decision_log_max_bytes
    }

    /// Open `path` for appending (creating it and its directory), and start
    /// its writer thread with a queue of `queue` records.
    ///
    /// # Errors
    /// The file cannot be created, opened or read, or is not a regular
    /// file.
    #[cfg(test)]
    pub(crate) fn open(path: &Path, on_failure: LogFailure, queue: usize) -> std::io::Result<Self> {
        Self::open_with(path, on_failure, queue, Recording::default(), None)
    }

    fn open_with(
        path: &Path,
        on_failure: LogFailure,
        queue: usize,
        recording: Recording,
        max_bytes: Option<u64>,
    ) -> std::io::Result<Self> {
        let mut file = LogFile::open(path)?;
        file.max_bytes = max_bytes;
        let recording = Arc::new(recording);
        let (sender, receiver) = std::sync::mpsc::sync_channel(queue);
        let counters = Arc::new(Counters {
            healthy: AtomicBool::new(true),
            ..Counters::default()
        });
        let writer = std::thread::Builder::new()
            .name("toolvet-decision-log".into())
            .spawn({
                let counters = counters.clone();
                let recording = recording.clone();
                move || write_loop(file, receiver, &counters, queue, &recording)
            })?;
        Ok(DecisionLog {
            inner: Arc::new(LogInner {
                path: path.to_path_buf(),
                on_failure,
                recording,
                max_bytes,
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
fn write_loop(
    mut file: LogFile,
    jobs: Receiver<Job>,
    counters: &Counters,
    cap: usize,
    recording: &Recording,
) {
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
            Job::Verdict(job) => waiting.push_back(job.to_line(recording)),
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
    /// Rotate once the file reaches this size.
    max_bytes: Option<u64>,
    /// The keyed anchor kept beside the log ([`anchor_path`]); `None`
    /// only in tests of the chain alone.
    anchor: Option<AnchorState>,
}

/// An exclusive lock on the log file, released when dropped: also on
/// every early return, so one failed write never leaves the other writers
/// of the file waiting forever.
/// It holds its own handle of the file (a clone of the writer's, sharing
/// the lock), so the writer may switch files while holding it.
struct Locked(File);

impl Locked {
    fn take(file: File) -> std::io::Result<Locked> {
        file.lock()?;
        Ok(Locked(file))
    }
}

impl Drop for Locked {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

fn open_append(path: &Path) -> std::io::Result<File> {
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
    fn open(path: &Path) -> std::io::Result<LogFile> {
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
    fn moved(&self) -> std::io::Result<bool> {
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
    fn append(
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
            unanchored = anchor.reconcile(&self.path, &mut &*file, &prev)?;
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
    fn rotate(&mut self) -> std::io::Result<()> {
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
fn chain_tail(path: &Path, file: &mut impl LogRead) -> std::io::Result<(String, u64)> {
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
fn rotated_files(path: &Path) -> std::io::Result<Vec<(u32, PathBuf)>> {
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

/// `record` (one serialized JSON object) with U+2028, U+2029 and the other
/// characters [`crate::display::visible`] escapes written as JSON escapes
/// ([`crate::display::json_visible`]). serde_json leaves them raw, and many
/// readers of a log (JavaScript before ES2019, editors, `less`, line-based
/// tools) take U+2028 and U+2029 for line breaks, so a record could seem
/// to end in the middle of an argument and a forged record seem to follow.
/// JSON allows them only inside strings, where the escape means the same
/// character, so the record's content is unchanged.
pub(crate) fn escape_line_separators(record: &str) -> std::borrow::Cow<'_, str> {
    crate::display::json_visible(record)
}

/// The `event` of the record a writer puts into the chain when the
/// log's end, as a writer found it, did not match its anchor.
pub const UNANCHORED_EVENT: &str = "log.unanchored";

/// Domain of the anchor's MAC, so it is never valid for anything else.
const ANCHOR_DOMAIN: &str = "toolvet decision log anchor v1";

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
fn anchor_key(log: &Path, create: bool) -> std::io::Result<Vec<u8>> {
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

fn anchor_mac(key: &[u8], records: u64, last_hash: &str) -> String {
    use hmac::Mac as _;
    let mut mac = hmac::Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes keys of any length");
    mac.update(format!("{ANCHOR_DOMAIN}\n{records}\n{last_hash}\n").as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// An anchor as written.
#[derive(Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct AnchorFile {
    v: u32,
    records: u64,
    last_hash: String,
    mac: String,
}

fn write_anchor(log: &Path, key: &[u8], records: u64, last_hash: &str) -> std::io::Result<()> {
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
fn read_anchor(log: &Path, key: &[u8]) -> Result<Option<Anchor>, String> {
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
fn subtle_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Check that the log at `log` ends where its anchor says: `records`
/// records in the current file (what [`verify_log`] counted in it) and
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
) -> Result<Anchor, String> {
    let key_path = key_file.map_or_else(|| anchor_key_path(log), Path::to_path_buf);
    if !key_path.exists() {
        return Err(format!(
            "{}: no anchor key, so the end of the log cannot be checked (give it with --key)",
            key_path.display()
        ));
    }
    let key = crate::approval::key::load(&crate::config::KeySource::File(key_path.clone()))
        .map_err(|e| e.to_string())?;
    let anchor = read_anchor(log, &key)?.ok_or_else(|| {
        format!(
            "{}: no anchor, so the end of the log cannot be checked: it was removed, or no \
             toolvet wrote this log",
            anchor_path(log).display()
        )
    })?;
    if anchor.last_hash != last_hash || anchor.records != records as u64 {
        let how = if (records as u64) < anchor.records {
            "the log was cut short (records at its end were removed)"
        } else if (records as u64) > anchor.records {
            "records were added after the last anchored one, or the chain was rewritten"
        } else {
            "its last record is not the anchored one: the chain was rewritten"
        };
        return Err(format!(
            "{}: record {}: the anchor says the file holds {} records ending in {}, it holds {} \
             ending in {}: {how}",
            log.display(),
            records.min(anchor.records as usize).max(1),
            anchor.records,
            short(&anchor.last_hash),
            records,
            short(last_hash),
        ));
    }
    Ok(anchor)
}

fn short(hash: &str) -> &str {
    if hash.is_empty() {
        "(nothing)"
    } else {
        hash.get(..12).unwrap_or(hash)
    }
}

/// What a writer knows of its log's anchor.
struct AnchorState {
    key: Vec<u8>,
    /// Records in the current file, anchored.
    records: u64,
    /// The file's length when the anchor was last written by this writer;
    /// another length means it must be checked again.
    synced_len: Option<u64>,
}

impl AnchorState {
    /// Take the count from the anchor when it describes the chain as it
    /// ends now (`prev`); else count the file's records, and return the
    /// record that says so in the chain (none for a new, empty log).
    fn reconcile(
        &mut self,
        log: &Path,
        file: &mut impl LogRead,
        prev: &str,
    ) -> std::io::Result<Option<String>> {
        let found = read_anchor(log, &self.key);
        if let Ok(Some(anchor)) = &found
            && anchor.last_hash == prev
        {
            self.records = anchor.records;
            return Ok(None);
        }
        self.records = count_lines(file)?;
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

/// One verified file of a decision log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogSegment {
    /// Records in the file.
    pub records: usize,
    /// The `prev` of its first record: empty for the first file of a log,
    /// else the hash of the last line of the file before it.
    pub first_prev: String,
    /// The sha256 of its last line (what the next file's first record
    /// links to); `first_prev` for an empty file.
    pub last_hash: String,
    /// Lines (1-based) where a writer found that the log did not end where
    /// its anchor said ([`UNANCHORED_EVENT`]): what came before was cut,
    /// added to or re-chained without the key, or a writer stopped between
    /// writing and anchoring.
    pub unanchored: Vec<usize>,
}

/// Where and why a decision log does not verify.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogBreak {
    /// The 1-based line.
    pub line: usize,
    /// What is wrong with it.
    pub reason: String,
}

/// Check one file of a decision log: every line a record of a known event
/// with the fields of its kind, each linked to the line before by `prev`.
/// `prev` is what the first record must link to (`Some("")` for the first
/// file of a log, the previous file's [`LogSegment::last_hash`] for a
/// rotated continuation); `None` accepts any first link (a file whose
/// predecessors are gone).
///
/// # Errors
/// [`LogBreak`] for the first line that breaks the chain or the record
/// shape.
pub fn verify_log(text: &str, prev: Option<&str>) -> Result<LogSegment, LogBreak> {
    let mut expected = prev.map(str::to_string);
    let mut segment = LogSegment {
        records: 0,
        first_prev: String::new(),
        last_hash: prev.unwrap_or("").to_string(),
        unanchored: Vec::new(),
    };
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let at = |reason: String| LogBreak {
            line: i + 1,
            reason,
        };
        let Some(line) = line.strip_suffix('\n') else {
            return Err(at(
                "the last line is incomplete (no newline): a write was cut off".into(),
            ));
        };
        let value: serde_json::Value =
            serde_json::from_str(line).map_err(|e| at(format!("not a JSON record: {e}")))?;
        let link = value.get("prev").and_then(|p| p.as_str()).ok_or_else(|| {
            at("the record has no `prev` (the hash of the line before it)".into())
        })?;
        match &expected {
            Some(want) if want != link => {
                return Err(at(if i == 0 {
                    format!(
                        "the first record links to {link:?}, not to the end of the file before it ({want:?})"
                    )
                } else {
                    "the record does not link to the line before it: a line was edited, inserted or removed".into()
                }));
            }
            _ => {}
        }
        if i == 0 {
            segment.first_prev = link.to_string();
        }
        check_shape(&value).map_err(at)?;
        if value.get("event").and_then(|e| e.as_str()) == Some(UNANCHORED_EVENT) {
            segment.unanchored.push(i + 1);
        }
        let hash = hex::encode(Sha256::digest(line.as_bytes()));
        expected = Some(hash.clone());
        segment.last_hash = hash;
        segment.records += 1;
    }
    Ok(segment)
}

fn check_shape(record: &serde_json::Value) -> Result<(), String> {
    use serde_json::Value;
    let field = |key: &str| {
        record
            .get(key)
            .ok_or_else(|| format!("the record has no `{key}`"))
    };
    let string = |key: &str| -> Result<&str, String> {
        field(key)?
            .as_str()
            .ok_or_else(|| format!("`{key}` is not a string"))
    };
    let digest = |key: &str| -> Result<(), String> {
        let d = string(key)?;
        (d.len() == 64 && d.bytes().all(|b| b.is_ascii_hexdigit()))
            .then_some(())
            .ok_or_else(|| format!("`{key}` is not a sha256 (64 hex digits)"))
    };
    let array = |key: &str| -> Result<(), String> {
        field(key)?
            .is_array()
            .then_some(())
            .ok_or_else(|| format!("`{key}` is not a list"))
    };
    field("time_ms")?
        .as_u64()
        .ok_or("`time_ms` is not a time in ms")?;
    string("host_version")?;
    match string("event")? {
        "verdict" => {
            string("call_id")?;
            if string("tool")?.is_empty() {
                return Err("`tool` is empty".into());
            }
            digest("arguments_sha256")?;
            string("policy_sha256")?;
            array("plugin_sha256")?;
            let verdict = field("verdict")?;
            match verdict.get("decision").and_then(Value::as_str) {
                Some("allow" | "deny" | "escalate") => {}
                _ => return Err("`verdict.decision` is not allow, deny or escalate".into()),
            }
            if !verdict.get("checks").is_some_and(Value::is_array) {
                return Err("`verdict.checks` is not a list".into());
            }
            if let Some(Value::Object(approval)) = verdict.get("approval")
                && approval.contains_key("ticket")
            {
                return Err("the record holds an approval ticket, which is never logged".into());
            }
        }
        "approval.requested" | "approval.decided" | "approval.consumed" => {
            if !string("approval_id")?.starts_with("apr_") {
                return Err("`approval_id` is not a request id (apr_…)".into());
            }
            match string("status")? {
                "pending" | "approved" | "rejected" | "consumed" | "expired" => {}
                other => return Err(format!("`status` {other:?} is not an approval status")),
            }
            string("tool")?;
            digest("arguments_sha256")?;
            array("escalations")?;
        }
        UNANCHORED_EVENT => {
            field("records_found")?
                .as_u64()
                .ok_or("`records_found` is not a count")?;
            string("why")?;
        }
        other => return Err(format!("unknown event {other:?}")),
    }
    Ok(())
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
    async fn line_and_paragraph_separators_are_escaped_in_records() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        let log = log(&path);
        let mut call = request();
        call.call.id = "c1\u{2028}{\"event\":\"verdict\"}\u{2029}".into();
        call.context.run_id = Some("run\u{2028}2".into());
        log.append_verdict(&call, &verdict(), &[], "p").unwrap();
        log.flush(Duration::from_secs(10)).await.unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            !text.contains(['\u{2028}', '\u{2029}']),
            "a raw separator in the log: {text:?}"
        );
        assert!(
            text.contains(r#""call_id":"c1\u2028{\"event\":\"verdict\"}\u2029""#),
            "{text}"
        );
        assert_eq!(text.lines().count(), 1);
        assert_eq!(verify_chain(&text), Ok(1));
        assert!(verify_log(&text, Some("")).is_ok());
        // Read back, the record holds the exact text.
        let record: serde_json::Value = serde_json::from_str(text.trim_end()).unwrap();
        assert_eq!(record["call_id"], call.call.id.as_str());
        assert_eq!(record["run_id"], "run\u{2028}2");
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
            max_bytes: None,
            anchor: None,
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

    #[tokio::test]
    async fn rotation_keeps_the_chain_across_files_and_writers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        let open = || {
            DecisionLog::open_with(
                &path,
                LogFailure::Deny,
                64,
                Recording::default(),
                Some(4096),
            )
            .unwrap()
        };
        let (a, b) = (open(), open());
        for _ in 0..20 {
            a.append_verdict(&request(), &verdict(), &[], "p").unwrap();
            a.flush(Duration::from_secs(10)).await.unwrap();
            b.append_verdict(&request(), &verdict(), &[], "p").unwrap();
            b.flush(Duration::from_secs(10)).await.unwrap();
        }
        let files = log_files(&path).unwrap();
        assert!(files.len() >= 3, "rotated: {files:?}");
        let mut prev = Some(String::new());
        let mut records = 0;
        for f in &files {
            let text = std::fs::read_to_string(f).unwrap();
            let segment = verify_log(&text, prev.as_deref())
                .unwrap_or_else(|e| panic!("{}: {e:?}", f.display()));
            records += segment.records;
            prev = Some(segment.last_hash);
        }
        assert_eq!(records, 40, "no record lost or duplicated");
        for f in &files[..files.len() - 1] {
            assert!(std::fs::metadata(f).unwrap().len() >= 4096);
        }
        // A later file on its own verifies when its first link is not
        // checked, and not against the start of a log.
        let last = std::fs::read_to_string(files.last().unwrap()).unwrap();
        assert!(verify_log(&last, None).is_ok());
        if !last.is_empty() {
            assert_eq!(verify_log(&last, Some("")).unwrap_err().line, 1);
        }
    }

    #[test]
    fn verify_names_the_first_bad_line_and_why() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        let log = log(&path);
        for _ in 0..3 {
            log.append_verdict(&request(), &verdict(), &[], "p")
                .unwrap();
        }
        drop(log);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(verify_log(&text, Some("")).unwrap().records, 3);
        // Editing line 2 breaks the link of line 3.
        let lines: Vec<&str> = text.lines().collect();
        let edited_line = lines[1].replacen("\"allow\"", "\"deny\"", 1);
        assert_ne!(edited_line, lines[1], "line 2 holds a decision to edit");
        let edited = format!("{}\n{edited_line}\n{}\n", lines[0], lines[2]);
        let broken = verify_log(&edited, Some("")).unwrap_err();
        assert_eq!(broken.line, 3, "{broken:?}");
        let dropped = format!("{}\n{}\n", lines[0], lines[2]);
        assert_eq!(verify_log(&dropped, Some("")).unwrap_err().line, 2);
        let cut = &text[..text.len() - 5];
        assert!(
            verify_log(cut, Some(""))
                .unwrap_err()
                .reason
                .contains("incomplete")
        );
        // A record of the wrong shape, even with a good link, is refused.
        let bad = "{\"event\":\"verdict\",\"prev\":\"\"}\n".to_string();
        assert!(
            verify_log(&bad, Some(""))
                .unwrap_err()
                .reason
                .contains("time_ms")
        );
    }

    #[derive(Debug)]
    struct Stars;
    impl Redactor for Stars {
        fn redact(&self, value: &mut serde_json::Value) {
            if let Some(c) = value.get_mut("command") {
                *c = serde_json::json!("***");
            }
        }
    }

    #[tokio::test]
    async fn arguments_are_kept_only_when_asked_and_redacted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.jsonl");
        let recording = Recording {
            arguments: true,
            keys: vec!["Password".into()],
            redactor: Some(Arc::new(Stars)),
        };
        let log = DecisionLog::open_with(&path, LogFailure::Deny, 64, recording, None).unwrap();
        let mut call = CallRequest::new(
            "bash",
            &serde_json::json!({"command": "echo hunter2", "env": {"password": "hunter2"}, "n": 1}),
        )
        .unwrap();
        call.context.attributes.insert("cwd".into(), "/w".into());
        log.append_verdict(&call, &verdict(), &[], "p").unwrap();
        log.flush(Duration::from_secs(10)).await.unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("hunter2"), "{text}");
        let record: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        assert_eq!(
            record["arguments"],
            serde_json::json!({"command": "***", "env": {"password": REDACTED}, "n": 1})
        );
        assert_eq!(record["attributes"], serde_json::json!({"cwd": "/w"}));
        assert!(verify_log(&text, Some("")).is_ok());
    }

    #[test]
    fn a_log_path_that_is_not_a_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        assert!(LogFile::open(dir.path()).is_err());
    }
}
