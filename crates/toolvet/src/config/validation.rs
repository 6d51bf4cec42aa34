//! Validating a policy's tables (private to [`super`]): the `[host]`
//! limits, the `[approvals]` table resolved into [`ApprovalSettings`], and
//! the range rule they and the checks share. Each returns the message a
//! [`crate::ConfigError`] carries.

use super::{
    ApprovalSettings, DEFAULT_APPROVAL_TTL_S, DEFAULT_LABEL_TTL_S, HostSettings, KeySource,
    LedgerLocation, MAX_APPROVAL_TTL_S, MAX_LABEL_TTL_S, MAX_MEMORY_MB, MAX_TIMEOUT_MS,
    RawApprovals, redact_url,
};
use std::path::Path;

/// The `[approvals]` table `raw`, with paths resolved against
/// `base_dir`.
pub(super) fn approval_settings(
    raw: RawApprovals,
    base_dir: &Path,
) -> Result<ApprovalSettings, String> {
    let ledger = match raw.ledger.trim() {
        "" => {
            return Err(
                "[approvals] `ledger`: must name a file, `memory` or a postgres:// URL".into(),
            );
        }
        "memory" => LedgerLocation::Memory,
        url if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
            LedgerLocation::Postgres(url.to_string())
        }
        url if url.contains("://") => {
            return Err(format!(
                "[approvals] `ledger`: unsupported URL scheme in {}; use a file path, `memory` or postgres://",
                redact_url(url)
            ));
        }
        path => LedgerLocation::Sqlite(base_dir.join(path)),
    };
    let key = match (raw.key_file, raw.key_env) {
        (Some(file), None) => KeySource::File(base_dir.join(file)),
        (None, Some(var)) if !var.is_empty() => KeySource::Env(var),
        (None, Some(_)) => return Err("[approvals] `key_env`: must name a variable".into()),
        (None, None) => {
            return Err("[approvals]: set `key_file` (created when missing) or `key_env`".into());
        }
        (Some(_), Some(_)) => {
            return Err("[approvals]: set one of `key_file` and `key_env`, not both".into());
        }
    };
    let ttl_s = raw.ttl_s.unwrap_or(DEFAULT_APPROVAL_TTL_S);
    check_range(ttl_s, 1, MAX_APPROVAL_TTL_S).map_err(|m| format!("[approvals] `ttl_s`: {m}"))?;
    let label_ttl_s = raw.label_ttl_s.unwrap_or(DEFAULT_LABEL_TTL_S);
    check_range(label_ttl_s, 1, MAX_LABEL_TTL_S)
        .map_err(|m| format!("[approvals] `label_ttl_s`: {m}"))?;
    if let Some(realm) = &raw.realm
        && (realm.is_empty() || realm.len() > 256 || realm.chars().any(char::is_control))
    {
        return Err(
            "[approvals] `realm`: must be 1-256 characters without control characters".into(),
        );
    }
    let mut reviewer_keys = Vec::new();
    for (i, entry) in raw.reviewer_keys.unwrap_or_default().iter().enumerate() {
        let key = crate::approval::ReviewerKey::parse(entry)
            .map_err(|m| format!("[approvals] `reviewer_keys` entry {}: {m}", i + 1))?;
        reviewer_keys.push(key);
    }
    let limit = |key: &str, v: Option<u64>, default: usize| -> Result<usize, String> {
        let v = v.unwrap_or(default as u64);
        check_range(v, 1, crate::approval::pending::MAX_PENDING_LIMIT as u64)
            .map_err(|m| format!("[approvals] `{key}`: {m}"))?;
        Ok(v as usize)
    };
    Ok(ApprovalSettings {
        ledger,
        key,
        ttl_s,
        realm: raw.realm,
        reviewer_keys,
        max_pending_per_run: limit(
            "max_pending_per_run",
            raw.max_pending_per_run,
            crate::approval::pending::DEFAULT_MAX_PENDING_PER_RUN,
        )?,
        max_pending_per_principal: limit(
            "max_pending_per_principal",
            raw.max_pending_per_principal,
            crate::approval::pending::DEFAULT_MAX_PENDING_PER_PRINCIPAL,
        )?,
        max_pending: limit(
            "max_pending",
            raw.max_pending,
            crate::approval::pending::DEFAULT_MAX_PENDING,
        )?,
        label_ttl_s,
    })
}

/// The `[host]` limits in range.
pub(super) fn validate_host(h: &HostSettings) -> Result<(), String> {
    check_range(h.default_timeout_ms, 1, MAX_TIMEOUT_MS)
        .map_err(|m| format!("[host] `default_timeout_ms`: {m}"))?;
    check_range(h.default_memory_mb, 1, MAX_MEMORY_MB)
        .map_err(|m| format!("[host] `default_memory_mb`: {m}"))?;
    check_range(h.load_timeout_ms, 1, MAX_TIMEOUT_MS)
        .map_err(|m| format!("[host] `load_timeout_ms`: {m}"))?;
    for (key, value) in [
        ("max_arguments_bytes", h.max_arguments_bytes),
        ("max_call_bytes", h.max_call_bytes),
        ("max_reason_bytes", h.max_reason_bytes),
        ("max_result_bytes", h.max_result_bytes),
        ("max_concurrent_checks", h.max_concurrent_checks),
        ("max_queued_checks", h.max_queued_checks),
        ("reuse_pool_size", h.reuse_pool_size),
        ("max_history", h.max_history),
        ("decision_log_queue", h.decision_log_queue),
    ] {
        if value == 0 {
            return Err(format!("[host] `{key}`: must be at least 1"));
        }
    }
    // The pooling allocator has `MAX_INSTANCES` (1000) instance slots
    // (engine.rs): running checks plus warm reuse instances must fit.
    for (key, value, max) in [
        ("max_concurrent_checks", h.max_concurrent_checks, 512),
        ("reuse_pool_size", h.reuse_pool_size, 64),
        ("max_queued_checks", h.max_queued_checks, 1 << 20),
        ("max_history", h.max_history, 100_000),
        ("decision_log_queue", h.decision_log_queue, 1 << 20),
    ] {
        if value > max {
            return Err(format!(
                "[host] `{key}`: {value} is over the maximum of {max}"
            ));
        }
    }
    if let Some(max) = h.decision_log_max_bytes
        && max < 4096
    {
        return Err(format!(
            "[host] `decision_log_max_bytes`: {max} is below the minimum of 4096"
        ));
    }
    if h.decision_log_redact.iter().any(|k| k.is_empty()) {
        return Err("[host] `decision_log_redact`: keys must not be empty".into());
    }
    if h.max_reason_bytes > h.max_result_bytes {
        return Err("[host] `max_reason_bytes`: must not exceed `max_result_bytes`".into());
    }
    Ok(())
}

/// `value` within `min..=max`.
pub(super) fn check_range(value: u64, min: u64, max: u64) -> Result<(), String> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(format!("{value} is out of range ({min}..={max})"))
    }
}
