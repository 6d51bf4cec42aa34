//! Errors thrown to JavaScript: the message is the `toolvet` CLI's (the
//! core error's `Display`), the `code` says which kind it is, so the
//! TypeScript layer can throw the matching `Error` subclass.

use napi_derive::napi;
use toolvet::{CallError, Error, approval::ApprovalError};

/// The `code` of an error thrown by the addon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    /// The policy file cannot be read or is not a valid policy.
    Config,
    /// A check (or the engine, the decision log, the approvals ledger or
    /// key) failed to load.
    Load,
    /// No approval request has this id.
    ApprovalNotFound,
    /// The request was decided before; the first decision stands.
    ApprovalAlreadyDecided,
    /// The request expired before anyone decided.
    ApprovalExpired,
    /// A malformed decision (never taken for an approval).
    ApprovalInvalidReview,
    /// A malformed list query.
    ApprovalInvalidQuery,
    /// The request is no longer what the reviewer was shown (its
    /// `reviewSha256` changed): nothing was recorded.
    ApprovalChanged,
    /// The ledger or the signing key failed.
    ApprovalUnavailable,
    /// The policy has no `[approvals]` table, or names a ledger this
    /// build cannot open.
    ApprovalUnsupported,
}

impl AsRef<str> for Code {
    fn as_ref(&self) -> &str {
        match self {
            Code::Config => "TOOLVET_CONFIG",
            Code::Load => "TOOLVET_LOAD",
            Code::ApprovalNotFound => "TOOLVET_APPROVAL_NOT_FOUND",
            Code::ApprovalAlreadyDecided => "TOOLVET_APPROVAL_ALREADY_DECIDED",
            Code::ApprovalExpired => "TOOLVET_APPROVAL_EXPIRED",
            Code::ApprovalInvalidReview => "TOOLVET_APPROVAL_INVALID_REVIEW",
            Code::ApprovalInvalidQuery => "TOOLVET_APPROVAL_INVALID_QUERY",
            Code::ApprovalChanged => "TOOLVET_APPROVAL_CHANGED",
            Code::ApprovalUnavailable => "TOOLVET_APPROVAL_UNAVAILABLE",
            Code::ApprovalUnsupported => "TOOLVET_APPROVAL_UNSUPPORTED",
        }
    }
}

/// An expected failure, returned to JavaScript in place of a result: the
/// TypeScript layer throws it as the `Error` subclass its code names.
/// (napi-rs rejects a promise only with its own status codes, so the code
/// travels as a value.)
#[napi(object)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NativeError {
    /// `TOOLVET_CONFIG`, `TOOLVET_LOAD`, `TOOLVET_APPROVAL_…` ([`Code`]).
    pub error_code: String,
    /// The message, as the `toolvet` CLI prints it.
    pub message: String,
}

impl NativeError {
    fn new(code: Code, message: String) -> NativeError {
        NativeError {
            error_code: code.as_ref().to_string(),
            message,
        }
    }
}

/// A host that cannot start: the policy, a check, or what the host needs
/// around them.
pub fn load_error(e: &Error) -> NativeError {
    let code = match e {
        Error::Config(_) => Code::Config,
        _ => Code::Load,
    };
    NativeError::new(code, e.to_string())
}

/// An approvals operation that was refused or failed.
pub fn approval_error(e: &ApprovalError) -> NativeError {
    let code = match e {
        ApprovalError::NotFound(_) => Code::ApprovalNotFound,
        ApprovalError::AlreadyDecided { .. } => Code::ApprovalAlreadyDecided,
        ApprovalError::Expired(_) => Code::ApprovalExpired,
        ApprovalError::InvalidReview(_) => Code::ApprovalInvalidReview,
        ApprovalError::InvalidQuery(_) => Code::ApprovalInvalidQuery,
        ApprovalError::Unsupported(_) => Code::ApprovalUnsupported,
        ApprovalError::Changed(_) => Code::ApprovalChanged,
        // Ledger, key, and whatever later versions add.
        _ => Code::ApprovalUnavailable,
    };
    NativeError::new(code, e.to_string())
}

/// The policy has no `[approvals]` table.
pub fn no_approvals(policy: &std::path::Path) -> NativeError {
    NativeError::new(
        Code::ApprovalUnsupported,
        format!(
            "{}: the policy has no [approvals] table, so there are no approval requests",
            policy.display()
        ),
    )
}

/// The rule of the deny verdict for a call that cannot be vetted.
pub const INVALID_CALL_RULE: &str = "toolvet.invalid-call";

/// The verdict about a call that cannot be vetted (malformed, or a shape
/// the host refuses): a deny whose reason is the CLI's message, so no
/// caller can mistake the failure for an allow.
pub fn invalid_call(e: &CallError) -> toolvet::Verdict {
    toolvet::Verdict {
        decision: toolvet::Decision::Deny,
        decided_by: None,
        rule: Some(INVALID_CALL_RULE.into()),
        reason: Some(e.to_string()),
        approval: None,
        checks: Vec::new(),
        duration_us: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_the_core_errors_and_codes_their_kind() {
        let e = approval_error(&ApprovalError::NotFound("apr_1".into()));
        assert_eq!(e.error_code, "TOOLVET_APPROVAL_NOT_FOUND");
        assert_eq!(e.message, "no approval request `apr_1`");
        let missing = toolvet::Policy::from_file("/nonexistent/toolvet.toml".as_ref())
            .map(|_| ())
            .unwrap_err();
        let e = load_error(&Error::Config(missing));
        assert_eq!(e.error_code, "TOOLVET_CONFIG");
        assert!(
            e.message
                .starts_with("/nonexistent/toolvet.toml: cannot read"),
            "{}",
            e.message
        );
    }

    #[test]
    fn a_call_that_cannot_be_vetted_is_a_deny_with_the_cli_message() {
        let e = toolvet::CallRequest::from_json("{").unwrap_err();
        let v = invalid_call(&e);
        assert_eq!(v.decision, toolvet::Decision::Deny);
        assert_eq!(v.rule.as_deref(), Some(INVALID_CALL_RULE));
        assert_eq!(v.reason, Some(e.to_string()));
        assert!(e.to_string().starts_with("invalid tool call: "));
    }
}
