//! `toolvet log verify FILE`: check a decision log's hash chain and record
//! shapes, across its rotated files.
//!
//! Exit codes: 0 every record verifies; 1 a record breaks the chain or
//! its shape (the first such line is reported as `FILE:LINE: why`); 2 a
//! file cannot be read.

use clap::Subcommand;
use std::path::PathBuf;

/// The subcommands of `toolvet log`.
#[derive(Subcommand)]
pub enum LogCommand {
    /// Check the hash chain and the record shape of a decision log: the
    /// file, and before it its rotated files (`FILE.000001`, …).
    ///
    /// Exit code: 0 intact, 1 broken (the first broken line is named), 2
    /// unreadable.
    Verify {
        /// The decision log (`[host] decision_log`).
        file: PathBuf,
    },
}

/// Run one `toolvet log` subcommand; returns the exit code.
///
/// # Errors
/// A file that cannot be read.
pub fn run(command: LogCommand) -> anyhow::Result<u8> {
    let LogCommand::Verify { file } = command;
    let files = toolvet::log_files(&file)
        .map_err(|e| anyhow::anyhow!("{}: cannot list its rotated files: {e}", file.display()))?;
    let mut prev: Option<String> = None;
    let mut records = 0usize;
    for (i, path) in files.iter().enumerate() {
        let text = std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", path.display()))?;
        // The first file present may continue files removed by retention:
        // its first link is reported, not checked.
        match toolvet::verify_log(&text, prev.as_deref()) {
            Ok(segment) => {
                if i == 0 && !segment.first_prev.is_empty() {
                    println!(
                        "note: {} continues an earlier file that is not here (its first record links to {})",
                        path.display(),
                        segment.first_prev
                    );
                }
                records += segment.records;
                prev = Some(segment.last_hash);
            }
            Err(broken) => {
                println!("{}:{}: {}", path.display(), broken.line, broken.reason);
                eprintln!("toolvet: the decision log does not verify");
                return Ok(crate::EXIT_MISMATCH);
            }
        }
    }
    println!(
        "{}: {records} records in {} file(s), chain intact",
        file.display(),
        files.len()
    );
    Ok(0)
}
