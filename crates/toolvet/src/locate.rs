//! What a front end beside the tools knows of a call that its text cannot
//! say: where its paths really are.
//!
//! The checks run in a sandbox without a file system, so they judge a
//! path's text. A front end that runs on the machine the tools run on
//! (`toolvet check`, `toolvet mcp`, the hooks, the Python and Node
//! packages) can look the call's paths up before the checks run: a
//! [`Locator`] given in [`crate::LoadOptions::locator`] adds what it finds
//! to the call's context attributes, on every verdict and preview, in the
//! one place every front end goes through. A front end elsewhere (`toolvet
//! serve`, whose file system is not the agent's) gives none.
//!
//! A locator that cannot place a call's paths fails the call: it is
//! denied with rule [`UNPLACED_RULE`], never judged with its paths as
//! written alone.

use crate::CallRequest;
use crate::state_paths::StatePaths;

/// Rule of a verdict denied because the front end's [`Locator`] could not
/// place the call's paths (a directory that cannot be read, a loop of
/// links, too many strings to look up).
pub const UNPLACED_RULE: &str = "toolvet.unplaced-path";

/// Why a [`Locator`] could not place a call's paths: a sentence for the
/// reason the model and the decision record read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UnplacedError(pub String);

/// Looks a call's paths up where the tools run, before the checks run.
pub trait Locator: Send + Sync {
    /// The context attributes to set on `request` for the checks (name and
    /// value; a value replaces the caller's attribute of that name), given
    /// toolvet's own paths `state` (so a file can be known as one of them
    /// by device and inode). Empty when there is nothing to add.
    ///
    /// # Errors
    /// [`UnplacedError`] when the call's paths cannot all be placed: the
    /// call is then denied ([`UNPLACED_RULE`]).
    fn locate(
        &self,
        request: &CallRequest,
        state: &StatePaths,
    ) -> Result<Vec<(String, String)>, UnplacedError>;
}
