//! The writer thread: takes records from the queue, writes them in
//! batches, keeps what failed for the next attempt.

use super::file::LogFile;
use super::{BATCH, Counters, Job, RETRY_INTERVAL, Recording};
use std::collections::VecDeque;
use std::io::Write;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, RecvTimeoutError};

/// The writer thread: take records from the queue, write them in batches,
/// and keep what failed for the next attempt.
pub(super) fn write_loop(
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
            Job::Result(job) => waiting.push_back(job.to_line(recording)),
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
                let _ = ack.send(
                    result
                        .as_ref()
                        .map(|_| ())
                        .map_err(|e| super::FlushError::Write(e.to_string())),
                );
            }
        }
    }
}

pub(super) fn write_waiting(
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
