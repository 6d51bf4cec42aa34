//! What a libtoolvet function that can fail returns: a [`ToolvetStatus`]
//! code, with the message (the `toolvet` CLI's) in the caller's
//! `error_out`.

use toolvet::approval::ApprovalError;

/// The outcome of a libtoolvet function that can fail. `TOOLVET_OK` is 0;
/// every other code comes with a message in the function's `error_out`
/// (free it with `toolvet_string_free`). The codes match the Node
/// package's `TOOLVET_…` error codes; new codes may be added, so treat an
/// unknown one as a failure.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolvetStatus {
    /// Success: the out-parameters are set.
    ToolvetOk = 0,
    /// A required pointer was NULL, or a string was not UTF-8 or not the
    /// JSON the function reads. The message names the argument.
    ToolvetInvalidArgument = 1,
    /// The policy cannot be read or is not a valid policy (the message
    /// names the file, line and key).
    ToolvetConfig = 2,
    /// A check, the engine, the decision log, the approvals ledger or its
    /// key failed to load.
    ToolvetLoad = 3,
    /// No approval request has this id.
    ToolvetApprovalNotFound = 4,
    /// The request was decided before; the first decision stands.
    ToolvetApprovalAlreadyDecided = 5,
    /// The request expired before anyone decided it.
    ToolvetApprovalExpired = 6,
    /// A malformed decision (a missing reviewer, an unknown decision or
    /// scope): never taken for an approval.
    ToolvetApprovalInvalidReview = 7,
    /// A malformed list query (an unknown status, a limit outside 1..=500).
    ToolvetApprovalInvalidQuery = 8,
    /// The request is no longer what the reviewer was shown (its
    /// `review_sha256` changed): nothing was recorded.
    ToolvetApprovalChanged = 9,
    /// The ledger or the signing key failed.
    ToolvetApprovalUnavailable = 10,
    /// The policy has no `[approvals]` table, or names a ledger this build
    /// cannot open.
    ToolvetApprovalUnsupported = 11,
    /// toolvet itself failed (a panic, caught at the boundary): nothing was
    /// done. Report it as a bug.
    ToolvetInternal = 12,
}

/// A failure: its code and message.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) status: ToolvetStatus,
    pub(crate) message: String,
}

impl Failure {
    pub(crate) fn new(status: ToolvetStatus, message: impl Into<String>) -> Failure {
        Failure {
            status,
            message: message.into(),
        }
    }

    /// A host that cannot start: the policy, or a check or what the host
    /// needs around them.
    pub(crate) fn load(e: &toolvet::Error) -> Failure {
        let status = match e {
            toolvet::Error::Config(_) => ToolvetStatus::ToolvetConfig,
            _ => ToolvetStatus::ToolvetLoad,
        };
        Failure::new(status, e.to_string())
    }

    /// An approvals operation that was refused or failed.
    pub(crate) fn approval(e: &ApprovalError) -> Failure {
        use ToolvetStatus as S;
        let status = match e {
            ApprovalError::NotFound(_) => S::ToolvetApprovalNotFound,
            ApprovalError::AlreadyDecided { .. } => S::ToolvetApprovalAlreadyDecided,
            ApprovalError::Expired(_) => S::ToolvetApprovalExpired,
            ApprovalError::InvalidReview(_) => S::ToolvetApprovalInvalidReview,
            ApprovalError::InvalidQuery(_) => S::ToolvetApprovalInvalidQuery,
            ApprovalError::Unsupported(_) => S::ToolvetApprovalUnsupported,
            ApprovalError::Changed(_) => S::ToolvetApprovalChanged,
            // The ledger, the key, and whatever later versions add.
            _ => S::ToolvetApprovalUnavailable,
        };
        Failure::new(status, e.to_string())
    }
}
