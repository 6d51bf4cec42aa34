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
//!
//! The attributes under `toolvet.` are the host's own facts: only the
//! host sets them (the locator's [`REAL_PATHS_ATTRIBUTE`], the state and
//! secret paths of [`crate::state_paths`]). A caller that sends one other
//! than the two a caller may add to ([`caller_may_send`]) is denied with
//! rule [`RESERVED_ATTRIBUTE_RULE`] before any check runs (review s25 F1:
//! a serve token claimed that path-guard's configured root `/srv/app`
//! "really is" `/`, and every path was inside the roots).

use crate::CallRequest;
use crate::state_paths::StatePaths;

/// Rule of a verdict denied because the front end's [`Locator`] could not
/// place the call's paths (a directory that cannot be read, a loop of
/// links, too many strings to look up).
pub const UNPLACED_RULE: &str = "toolvet.unplaced-path";

/// The attribute in which the [`Locator`] tells the checks where a call's
/// paths really are (`check_catalog::pathnorm::REAL_PATHS_ATTRIBUTE`,
/// the same name). Only a locator sets it.
pub const REAL_PATHS_ATTRIBUTE: &str = "toolvet.real_paths";

/// The start of every attribute name the host owns, compared without
/// regard to ASCII case (no check should have to guess which spelling a
/// caller meant).
pub const HOST_ATTRIBUTE_PREFIX: &str = "toolvet.";

/// Rule of a verdict denied because the caller sent an attribute only the
/// host sets (a name under [`HOST_ATTRIBUTE_PREFIX`] that
/// [`caller_may_send`] refuses).
pub const RESERVED_ATTRIBUTE_RULE: &str = "toolvet.reserved-attribute";

/// Whether a caller may send the context attribute `name`: any name not
/// under [`HOST_ATTRIBUTE_PREFIX`], and the host's state and secret paths
/// exactly as spelled ([`crate::state_paths::STATE_PATHS_ATTRIBUTE`],
/// [`crate::state_paths::SECRET_PATHS_ATTRIBUTE`]), which the host unions
/// with its own, so a caller can only add guard rails to them.
///
/// Every other host attribute (today [`REAL_PATHS_ATTRIBUTE`], and any the
/// host adds later) is the host's word about the machine, and a check may
/// loosen on it: path-guard takes a root's real location as inside the
/// workspace. The call is denied rather than the value dropped, so that it
/// fails closed whether or not this front end has a locator, whether or
/// not the locator finds anything for the call, and whatever a check
/// would make of the attribute's absence; and so that the attempt shows
/// in the decision log under its own rule.
#[must_use]
pub fn caller_may_send(name: &str) -> bool {
    let reserved = name
        .get(..HOST_ATTRIBUTE_PREFIX.len())
        .is_some_and(|start| start.eq_ignore_ascii_case(HOST_ATTRIBUTE_PREFIX));
    !reserved
        || name == crate::state_paths::STATE_PATHS_ATTRIBUTE
        || name == crate::state_paths::SECRET_PATHS_ATTRIBUTE
}

/// The first of `attributes` a caller may not send ([`caller_may_send`]).
pub fn reserved_attribute<'a>(attributes: impl IntoIterator<Item = &'a String>) -> Option<&'a str> {
    attributes
        .into_iter()
        .map(String::as_str)
        .find(|name| !caller_may_send(name))
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_host_sets_its_attributes() {
        for name in [
            REAL_PATHS_ATTRIBUTE,
            "TOOLVET.real_paths",
            "Toolvet.Real_Paths",
            "toolvet.",
            "toolvet.anything_new",
            "toolvet.State_Paths",
        ] {
            assert!(!caller_may_send(name), "{name}");
        }
        for name in [
            crate::state_paths::STATE_PATHS_ATTRIBUTE,
            crate::state_paths::SECRET_PATHS_ATTRIBUTE,
            "cwd",
            "home",
            "mcp.server",
            "toolvet",
            "toolvetx.real_paths",
            "my.toolvet.real_paths",
        ] {
            assert!(caller_may_send(name), "{name}");
        }
    }
}
