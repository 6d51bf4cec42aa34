//! toolvet vets AI-agent tool calls before they run.
//!
//! A [`Host`] loads the checks of a [`Policy`] (`toolvet.toml`): sandboxed
//! WebAssembly components implementing the `toolvet:check/plugin` WIT world
//! (`wit/check.wit`). [`Host::check`] hands a [`CallRequest`] to every check
//! whose tool globs match, each in a fresh instance under a deadline and a
//! memory cap, and combines their decisions into a [`Verdict`]: allow, deny
//! (with a reason for the model) or escalate (a person approves first).
//!
//! With an `[approvals]` table, an escalate carries an approval request; a
//! person decides it through [`approval::Approvals`], and the resumed call
//! brings the request's ticket back:
//!
//! ```
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! # let dir = tempfile::tempdir()?;
//! # let plugin = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
//! #     .join("../../target/plugins/tool_policy.wasm");
//! # if !plugin.exists() { return Ok(()); }
//! let policy = toolvet::Policy::from_toml(
//!     &format!(r#"
//!         [approvals]
//!         ledger = "approvals.db"
//!         key_file = "approvals.key"
//!
//!         [[check]]
//!         name = "tools"
//!         plugin = "{}"
//!         settings = {{ approve = ["deploy"] }}
//!     "#, plugin.display()),
//!     "toolvet.toml".as_ref(),
//!     dir.path(),
//! )?;
//! let host = toolvet::Host::load(policy).await?;
//! let call = toolvet::CallRequest::from_json(
//!     r#"{"call": {"id": "c1", "name": "deploy", "arguments": {"env": "prod"}}}"#,
//! )?;
//!
//! // First ask: a person must approve.
//! let verdict = host.check(&call).await;
//! assert_eq!(verdict.decision, toolvet::Decision::Escalate);
//! let request = verdict.approval.expect("an approval request");
//!
//! // A person approves it.
//! let approvals = host.approvals().expect("approvals are on");
//! approvals.approve(&request.id, "alice", Some("ship it"), toolvet::approval::Scope::Once).await?;
//!
//! // The resumed call carries the ticket and is allowed, once.
//! let mut resumed = call.clone();
//! resumed.approval = Some(toolvet::ApprovalClaim { ticket: request.ticket.unwrap() });
//! assert_eq!(host.check(&resumed).await.decision, toolvet::Decision::Allow);
//! let again = host.check(&resumed).await;
//! assert_eq!(again.decision, toolvet::Decision::Deny);
//! assert_eq!(again.rule.as_deref(), Some("approval.replayed"));
//! # Ok(()) }
//! # toolvet::block_on(async { demo().await.unwrap() });
//! ```
//!
//! Data flows one way: [`Policy`] → loading (the checks of one policy, a
//! generation) → evaluation (each check in a sandboxed instance) →
//! [`Verdict`] → approvals → decision log.
//!
//! # The stages and the files that serve them
//!
//! - **Policy**: `config.rs` (`toolvet.toml` into a [`Policy`];
//!   `config/approvals.rs` the `[approvals]` table's shapes,
//!   `config/validation.rs` checks its tables), `load_options.rs`
//!   ([`LoadOptions`]), `state_paths.rs` (toolvet's own paths as guard
//!   rails), `locate.rs` (what a front end beside the tools finds of a
//!   call's paths on the file system).
//! - **Loading** (a policy into a generation): `loader.rs` (the `Loader`:
//!   engine, linker, artifact cache and observer; finding and compiling
//!   every component), `loading.rs` (`Generation::load`: describe,
//!   configure or snapshot each check, open the log and approvals),
//!   `plugin.rs` (one plugin file into a linked component), `snapshot.rs`
//!   (pre-initialised checks), `contract.rs` (the contract version a
//!   component speaks), [`cache`] (compiled artifacts: `cache/mod.rs`
//!   entries and tags, `cache/stamp.rs` file stamps, `cache/prune.rs`,
//!   `cache/files.rs` private files), `engine.rs` (the engine), `progress.rs`
//!   ([`progress::LoadObserver`]).
//! - **The generation**: `generation.rs` (one loaded policy's shapes),
//!   `host.rs` ([`Host`]: the current generation, reloads).
//! - **Evaluation** (one call into a verdict): `call.rs` (the call shape,
//!   [`CallRequest`]), `strict_json.rs` (the strict JSON every call is read
//!   with), [`history_fit`] and [`run_history`] (a run's earlier calls),
//!   [`run_labels`] (a run's labels, for the bindings' hosts),
//!   `evaluation.rs` (`Generation::evaluate`: refuse, select, admit, run,
//!   combine, settle, record), `instance.rs` (one instance under a deadline
//!   and a memory cap), `sandbox.rs` (what an instance may touch),
//!   `bindings.rs` (the WIT world), `plugin_log.rs` and `cause.rs` (what a
//!   plugin printed), `verdict.rs` ([`Verdict`] and [`verdict::combine`]).
//! - **Approvals**: `approval/` (`types.rs` values, `rules.rs` rule ids,
//!   `bound.rs` what a request binds, `service.rs`
//!   [`approval::Approvals`], ledgers, tickets and reviewers).
//! - **Decision log**: `audit/` (records, writer, anchor, verification).
//! - **Shared**: `error.rs` (typed errors), `text.rs`, [`display`],
//!   [`fold`], [`home`], `runtime.rs` ([`block_on`]).

pub mod approval;
pub mod audit;
mod bindings;
pub mod cache;
pub mod call;
mod cause;
pub mod config;
mod contract;
pub mod display;
pub mod engine;
mod error;
mod evaluation;
pub mod facts;
pub mod fold;
mod generation;
pub mod history_fit;
pub mod home;
pub mod host;
#[cfg(feature = "inspect")]
pub mod inspect;
mod instance;
mod load_options;
mod loader;
mod loading;
pub mod locate;
mod plugin;
mod plugin_log;
pub mod private_file;
pub mod progress;
mod result_evaluation;
pub mod result_parts;
pub mod run_history;
pub mod run_labels;
mod runtime;
mod sandbox;
mod snapshot;
pub mod state_paths;
pub mod strict_json;
pub(crate) mod text;
pub mod tool_result;
pub mod verdict;

// The main path at the root: load a policy into a host, check a call,
// read the verdict. Every other concept lives in its module.
pub use call::{ApprovalClaim, CallContext, CallError, CallRequest, ToolCall};
pub use config::Policy;
pub use error::{ConfigError, Error, LoadError, LoadErrorKind};
pub use host::Host;
pub use load_options::LoadOptions;
pub use runtime::block_on;
pub use verdict::{Decision, Verdict};

/// Entry points for the fuzz targets (`fuzz/`), into code that is not
/// public; compiled only under cargo-fuzz (`--cfg fuzzing`).
#[cfg(fuzzing)]
#[doc(hidden)]
pub mod fuzzing {
    pub use crate::approval::ticket::fuzz_verify as ticket;
}

/// The newest `toolvet:check` contract version this host implements
/// (`wit/check-0.2/check.wit`); it also loads every `0.1.x` component
/// ([`CONTRACT_VERSIONS`]).
pub const CONTRACT_VERSION: &str = bindings::CONTRACT_VERSION;

/// Every `toolvet:check` contract version this host implements, oldest
/// first: a component of any release of one of these lines loads.
pub const CONTRACT_VERSIONS: [&str; 2] = bindings::CONTRACT_VERSIONS;

/// The largest plugin file accepted, in bytes.
pub const MAX_PLUGIN_BYTES: u64 = plugin::MAX_PLUGIN_BYTES;
