//! `toolvet log verify FILE`: check a decision log's hash chain, record
//! shapes and anchor, across its rotated files.
//!
//! Exit codes: 0 every record verifies and the log ends where its anchor
//! says; 1 a record breaks the chain or its shape, or the log does not end
//! where its anchor says (cut short, added to, re-chained: the file and
//! record are reported as `FILE:LINE: why`); 2 a file cannot be read.

use clap::Subcommand;
use std::path::PathBuf;

/// The subcommands of `toolvet log`.
#[derive(Subcommand)]
pub(crate) enum LogCommand {
    /// Check the hash chain, the record shape and the anchor of a decision
    /// log: the file, and before it its rotated files (`FILE.000001`, …).
    ///
    /// The anchor (`FILE.anchor`, keyed with `FILE.key`) records how many
    /// records the file holds and the hash of the last: a log cut short or
    /// rewritten and re-chained end to end does not match it.
    ///
    /// Exit code: 0 intact, 1 broken (the first broken line is named), 2
    /// unreadable.
    Verify {
        /// The decision log (`[host] decision_log`).
        file: PathBuf,
        /// The anchor's key (default: `FILE.key`, which the writer created).
        #[arg(long, value_name = "KEY_FILE")]
        key: Option<PathBuf>,
        /// Check the chain and records only, not the anchor: the end of the
        /// log is not checked (for logs written before anchors, or copied
        /// without their key). Says so in its output.
        #[arg(long)]
        chain_only: bool,
    },
}

/// Run one `toolvet log` subcommand; returns the exit code.
///
/// # Errors
/// A file that cannot be read.
pub(crate) fn run(command: LogCommand) -> anyhow::Result<u8> {
    let LogCommand::Verify {
        file,
        key,
        chain_only,
    } = command;
    let files = toolvet::audit::log_files(&file)
        .map_err(|e| anyhow::anyhow!("{}: cannot list its rotated files: {e}", file.display()))?;
    let mut prev: Option<String> = None;
    let mut records = 0usize;
    let mut last_records = 0usize;
    let broken = |at: String, why: &str| {
        println!("{at}: {why}");
        eprintln!("toolvet: the decision log does not verify");
        Ok(crate::EXIT_MISMATCH)
    };
    for (i, path) in files.iter().enumerate() {
        let text = std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", path.display()))?;
        // The first file present may continue files removed by retention:
        // its first link is reported, not checked.
        match toolvet::audit::verify_log(&text, prev.as_deref()) {
            Ok(segment) => {
                if i == 0 && !segment.first_prev.is_empty() {
                    println!(
                        "note: {} continues an earlier file that is not here (its first record links to {})",
                        path.display(),
                        segment.first_prev
                    );
                }
                if let Some(line) = segment.unanchored.first().filter(|_| !chain_only) {
                    return broken(
                        format!("{}:{line}", path.display()),
                        "a writer found here that the log did not end where its anchor said \
                         (see the record's `why`): records before this line were cut, added or \
                         re-chained without the key, or a writer stopped between writing and \
                         anchoring",
                    );
                }
                records += segment.records;
                last_records = segment.records;
                prev = Some(segment.last_hash);
            }
            Err(b) => return broken(format!("{}:{}", path.display(), b.line), &b.reason),
        }
    }
    let last_hash = prev.unwrap_or_default();
    if chain_only {
        println!(
            "{}: {records} records in {} file(s), chain intact; the anchor was not checked \
             (--chain-only), so a cut-off end would not show",
            file.display(),
            files.len()
        );
        return Ok(0);
    }
    match toolvet::audit::verify_anchor(&file, key.as_deref(), last_records, &last_hash) {
        Ok(_) => {
            println!(
                "{}: {records} records in {} file(s), chain intact, ends where its anchor says",
                file.display(),
                files.len()
            );
            Ok(0)
        }
        Err(why) => {
            println!("{why}");
            eprintln!("toolvet: the decision log does not verify");
            Ok(crate::EXIT_MISMATCH)
        }
    }
}
