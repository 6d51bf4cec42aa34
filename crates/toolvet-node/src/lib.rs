//! The native addon of the `@toolvet/node` package: [`toolvet::Host`] for
//! Node.js, through napi-rs.
//!
//! JavaScript sees one class, `NativeHost` ([`host::NativeHost`]), and the
//! plain objects of [`types`] (calls in, verdicts and approval requests
//! out), with TypeScript declarations generated from this crate by
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
pub mod types;
