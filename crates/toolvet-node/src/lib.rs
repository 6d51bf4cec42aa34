//! The native addon of the `@toolvet/node` package: [`toolvet::Host`] for
//! Node.js, through napi-rs.
//!
//! JavaScript sees one class, `NativeHost` ([`host::NativeHost`]), the
//! plain objects of [`types`] (calls in, verdicts and approval requests
//! out; results in and result verdicts out, [`results`]) and the core's rule for the user's home ([`user_home`]), with TypeScript declarations generated from this crate by
//! napi-rs (`scripts/build-addon.mjs`). The TypeScript layer of the package
//! (`ts/`) wraps the class: it throws the failures the addon returns
//! ([`error::NativeError`], by [`error::Code`]) as `Error` subclasses, and
//! turns anything thrown while vetting a call into a deny verdict.
//!
//! Checks never fail: a call that cannot be vetted is a deny verdict
//! (rule `toolvet.invalid-call`) made here, like the core's own denies.
//!
//! Asynchronous methods run on napi-rs's Tokio runtime, never on the
//! JavaScript thread; `checkSync` runs the checks on the calling thread
//! and blocks it.

pub mod error;
pub mod host;
pub mod results;
pub mod types;

use napi_derive::napi;

/// The call-context attribute naming the user's home directory, `home`
/// ([`toolvet::home::HOME_ATTRIBUTE`]): what `~` and `$HOME` stand for in
/// the shell and path checks.
#[napi]
pub const HOME_ATTRIBUTE: &str = toolvet::home::HOME_ATTRIBUTE;

/// The home directory of the user this process runs as: `$HOME` when it
/// is an absolute path, else the user's `/etc/passwd` entry; `null` when
/// neither names one. The core's one rule ([`toolvet::home::user_home`]),
/// the one the hooks and `toolvet mcp` use for the `home` attribute; the
/// package's `Gate` puts it into every call's context.
#[napi]
pub fn user_home() -> Option<String> {
    toolvet::home::user_home()
}
