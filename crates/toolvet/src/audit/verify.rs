//! Verifying a log: the hash chain and the shape of every record.

use super::anchor::UNANCHORED_EVENT;
use sha2::{Digest, Sha256};

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

pub(super) fn check_shape(record: &serde_json::Value) -> Result<(), String> {
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
    // What verdict and result records hold of the call and of the code
    // that decided.
    let decided_call = || -> Result<(), String> {
        string("call_id")?;
        if string("tool")?.is_empty() {
            return Err("`tool` is empty".into());
        }
        digest("arguments_sha256")?;
        string("policy_sha256")?;
        array("plugin_sha256")
    };
    field("time_ms")?
        .as_u64()
        .ok_or("`time_ms` is not a time in ms")?;
    string("host_version")?;
    match string("event")? {
        "verdict" => {
            decided_call()?;
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
        "result" => {
            decided_call()?;
            digest("content_sha256")?;
            match string("content_kind")? {
                "text" | "json" => {}
                other => return Err(format!("`content_kind` {other:?} is not text or json")),
            }
            field("content_bytes")?
                .as_u64()
                .ok_or("`content_bytes` is not a size in bytes")?;
            field("is_error")?
                .as_bool()
                .ok_or("`is_error` is not true or false")?;
            let verdict = field("verdict")?;
            match verdict.get("action").and_then(Value::as_str) {
                Some("pass" | "redact" | "withhold") => {}
                _ => return Err("`verdict.action` is not pass, redact or withhold".into()),
            }
            if !verdict.get("checks").is_some_and(Value::is_array) {
                return Err("`verdict.checks` is not a list".into());
            }
            if verdict.get("content").is_some() {
                return Err(
                    "the record holds the content the model read, which is never logged".into(),
                );
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
