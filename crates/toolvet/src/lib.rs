//! toolvet vets AI-agent tool calls before they run.
//!
//! A [`Host`] loads the checks of a [`Policy`] (`toolvet.toml`): sandboxed
//! WebAssembly components implementing the `toolvet:check/plugin` WIT world
//! (`wit/check.wit`). [`Host::check`] hands a [`CallRequest`] to every check
//! whose tool globs match, each in a fresh instance under a deadline and a
//! memory cap, and combines their decisions into a [`Verdict`]: allow, deny
//! (with a reason for the model) or escalate (a person approves first).
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let host = toolvet::Host::from_file("toolvet.toml".as_ref()).await?;
//! let call = toolvet::CallRequest::from_json(
//!     r#"{"call": {"name": "bash", "arguments": {"command": "rm -rf ~"}}}"#,
//! )?;
//! let verdict = host.check(&call).await;
//! println!("{} {:?}", verdict.decision, verdict.reason);
//! # Ok(()) }
//! ```
//!
//! Data flows one way: [`config`] → [`plugin`] loading → [`host`]
//! evaluation (in [`instance`]s inside the [`sandbox`]) → [`verdict`] →
//! [`audit`].

pub mod audit;
mod bindings;
pub mod cache;
pub mod call;
pub mod cases;
pub mod config;
pub mod engine;
pub mod error;
pub mod host;
pub mod inspect;
mod instance;
pub mod plugin;
mod sandbox;
pub mod verdict;

pub use call::{CallContext, CallRequest, Outcome, PriorCall, ToolCall, ToolInfo};
pub use config::{CheckConfig, HostSettings, Isolation, Mode, OnError, Policy};
pub use error::{CallError, ConfigError, Error, LoadError, LoadErrorKind};
pub use host::{CheckSummary, Host};
pub use verdict::{CheckError, CheckOutcome, Decision, ErrorKind, Verdict};

/// The `toolvet:check` contract version this host implements.
pub const CONTRACT_VERSION: &str = bindings::CONTRACT_VERSION;
