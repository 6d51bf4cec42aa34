//! libtoolvet: toolvet's C ABI, so an agent in any language with a C FFI
//! (Go through cgo, Java through JNI or Panama, .NET, Ruby, Swift) vets
//! its tool calls in process, as the Python and Node packages do.
//!
//! The shapes are the CLI's: a call goes in as the JSON `toolvet check`
//! reads (`{"call": {...}, "tool": {...}, "context": {...}, "approval":
//! {"ticket": "..."}}`), a result as the JSON `toolvet check-result`
//! reads (the call with its `result`), and the verdict comes back as the
//! JSON line `toolvet check --format json` prints, with `tool` and
//! `call_id` (not `source`). Approval requests are the JSON of `toolvet
//! approvals list --format json`.
//!
//! The contract, for every function:
//! - **Handles are opaque**: a `ToolvetHost` is made by
//!   [`toolvet_load_file`] or [`toolvet_load_toml`] and freed by
//!   [`toolvet_host_free`]; every string libtoolvet returns is the
//!   caller's, freed by [`toolvet_string_free`].
//! - **Strings in** are NUL-terminated UTF-8, borrowed for the call only.
//! - **Errors are a code and a message**, never a crash: a function that
//!   can fail returns a [`ToolvetStatus`] and writes the message to its
//!   `error_out`. A panic inside is caught at the boundary: a check
//!   answers it with a deny, anything else with `TOOLVET_INTERNAL`.
//! - **Vetting never fails**: [`toolvet_check`] always returns a verdict,
//!   a deny for anything it cannot vet (a NULL host, malformed JSON, a
//!   failure of the host); [`toolvet_check_result`] withholds.
//! - **Threads**: every function may be called from any thread, at once,
//!   on one host. Each **blocks** the calling thread until done (checks
//!   run on it, the ledger is read and written on toolvet's own runtime);
//!   call them from a thread that may block (in Go, any goroutine: cgo
//!   calls get their own thread).
//!
//! The host runs in the agent's process as its user, so the approvals
//! ledger is a file the agent can write: without `[approvals]
//! reviewer_keys`, only decisions recorded through this library
//! ([`toolvet_approval_decide`]) resume a held call, never a row flipped
//! in the ledger by someone else (see SECURITY.md).

#![allow(
    unsafe_code,
    reason = "a C ABI: every exported function takes raw pointers from C; each unsafe \
              block says what it relies on"
)]

mod boundary;
mod status;

use boundary::{fallible, give, optional_str, required_str, store, unwinding};
use serde_json::Value;
use status::Failure;
pub use status::ToolvetStatus;
use std::ffi::c_char;
use std::path::Path;
use toolvet::approval::{ListQuery, Review, StatusFilter};
use toolvet::run_labels::RunLabels;
use toolvet::tool_result::{ResultRequest, ResultVerdict};

/// The rule of a deny (or withhold) libtoolvet gives when the host itself
/// failed, or no host was given (the Python package's rule).
const HOST_ERROR_RULE: &str = "toolvet.host-error";

/// The rule of a deny for a call that cannot be vetted (the CLI's).
const INVALID_CALL_RULE: &str = "toolvet.invalid-call";

/// A loaded policy: its checks, its approvals, and the labels each run's
/// results raised (kept by the host, keyed by `context.run_id` with the
/// principal and agent, and put into the run's later calls; a caller never
/// sends `context.labels`). Opaque to C; safe to share between threads.
#[derive(Debug)]
pub struct ToolvetHost {
    host: toolvet::Host,
    labels: RunLabels,
}

impl ToolvetHost {
    /// `host`, its approvals guarded as those of a front end in the
    /// agent's process, running as its user (review-s6 F4): without
    /// reviewer keys, only decisions recorded through this process count.
    fn guarded(host: toolvet::Host) -> ToolvetHost {
        host.guard_same_user();
        ToolvetHost {
            host,
            labels: RunLabels::default(),
        }
    }

    fn approvals(&self) -> Result<toolvet::approval::Approvals, Failure> {
        self.host.approvals().ok_or_else(|| {
            Failure::new(
                ToolvetStatus::ToolvetApprovalUnsupported,
                format!(
                    "{}: the policy has no [approvals] table, so there are no approval requests",
                    self.host.policy_source().display()
                ),
            )
        })
    }
}

/// Load `policy` with every front end's preset, as the CLI does.
fn load(
    policy: Result<toolvet::Policy, toolvet::ConfigError>,
) -> Result<*mut ToolvetHost, Failure> {
    let policy = policy.map_err(|e| Failure::load(&toolvet::Error::Config(e)))?;
    let host = toolvet::block_on(toolvet::Host::load_with(policy, toolvet_preset::options()))
        .map_err(|e| Failure::load(&e))?;
    Ok(Box::into_raw(Box::new(ToolvetHost::guarded(host))))
}

/// Load every check of the policy file at `path` (relative paths in it
/// resolve against its directory) and store the host in `*host_out`.
/// **Blocks** while the checks compile (or load from toolvet's cache).
///
/// Returns `TOOLVET_OK`, or `TOOLVET_CONFIG` (the file cannot be read or
/// is not a valid policy), `TOOLVET_LOAD` (a check, the ledger, the key or
/// the decision log failed to load), `TOOLVET_INVALID_ARGUMENT` (a NULL
/// or non-UTF-8 argument), with the message in `*error_out`.
///
/// # Safety
/// `path` is a NUL-terminated string; `host_out` is valid for a write;
/// `error_out` is NULL or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn toolvet_load_file(
    path: *const c_char,
    host_out: *mut *mut ToolvetHost,
    error_out: *mut *mut c_char,
) -> ToolvetStatus {
    // SAFETY: the caller's contract.
    unsafe {
        fallible(host_out, "host_out", error_out, || {
            let path = required_str(path, "path")?;
            load(toolvet_preset::policy_from_file(Path::new(path)))
        })
    }
}

/// Load the policy `text`: relative paths in it (plugins, ledger, decision
/// log) resolve against `base_dir`, and `source` (NULL: `<inline>`) names
/// it in error messages. Otherwise as [`toolvet_load_file`].
///
/// # Safety
/// `text` and `base_dir` are NUL-terminated strings, `source` is NULL or
/// one; `host_out` is valid for a write; `error_out` is NULL or valid for
/// a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn toolvet_load_toml(
    text: *const c_char,
    base_dir: *const c_char,
    source: *const c_char,
    host_out: *mut *mut ToolvetHost,
    error_out: *mut *mut c_char,
) -> ToolvetStatus {
    // SAFETY: the caller's contract.
    unsafe {
        fallible(host_out, "host_out", error_out, || {
            let text = required_str(text, "text")?;
            let base_dir = required_str(base_dir, "base_dir")?;
            let source = optional_str(source, "source")?.unwrap_or("<inline>");
            load(toolvet_preset::policy_from_toml(
                text,
                Path::new(source),
                Path::new(base_dir),
            ))
        })
    }
}

/// Load the policy file at `path` (NULL: the file in force) and put it in
/// force on `host`: calls already being vetted finish under the old
/// policy, later ones see the new. On failure the old policy stays in
/// force. **Blocks** while the new checks load. Stores the host's new
/// generation (1 at load, one more per reload) in `*generation_out`
/// unless it is NULL.
///
/// Returns the statuses of [`toolvet_load_file`]; an inline policy
/// (`toolvet_load_toml`) has no file to read again, so it needs `path`.
///
/// # Safety
/// `host` is a live host or NULL; `path` is NULL or a NUL-terminated
/// string; `generation_out` and `error_out` are NULL or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn toolvet_reload(
    host: *const ToolvetHost,
    path: *const c_char,
    generation_out: *mut u64,
    error_out: *mut *mut c_char,
) -> ToolvetStatus {
    let mut generation = 0u64;
    let mut done: *mut () = std::ptr::null_mut();
    // SAFETY: the caller's contract; `done` is a local, writable.
    let status = unsafe {
        fallible(&raw mut done, "done", error_out, || {
            let host = live(host)?;
            let path = match optional_str(path, "path")? {
                Some(path) => Path::new(path).to_path_buf(),
                None => host.host.policy_source(),
            };
            let policy = toolvet_preset::policy_from_file(&path)
                .map_err(|e| Failure::load(&toolvet::Error::Config(e)))?;
            generation =
                toolvet::block_on(host.host.reload(policy)).map_err(|e| Failure::load(&e))?;
            Ok(std::ptr::NonNull::dangling().as_ptr())
        })
    };
    if status == ToolvetStatus::ToolvetOk {
        // SAFETY: the caller's contract.
        unsafe { store(generation_out, generation) };
    }
    status
}

/// Size the process's pool of component instances to `instances`
/// (1..=1000; the default is 1000) before the first policy is loaded. Each
/// slot reserves address space for a check's largest memory (about 4 GiB
/// of it, never touched), so a process that vets calls one at a time, or
/// runs where address space is scarce (under valgrind, with a `ulimit -v`),
/// asks for fewer: six per check is enough for one call at a time. An
/// instance that does not fit fails its check (its `on_error`), never
/// silently.
///
/// Returns `TOOLVET_OK`, or `TOOLVET_INVALID_ARGUMENT` for a size out of
/// range or a call after the first load (the engine exists already).
///
/// # Safety
/// `error_out` is NULL or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn toolvet_size_instance_pool(
    instances: u32,
    error_out: *mut *mut c_char,
) -> ToolvetStatus {
    let mut done: *mut () = std::ptr::null_mut();
    // SAFETY: the caller's contract; `done` is a local, writable.
    unsafe {
        fallible(&raw mut done, "done", error_out, || {
            toolvet::engine::size_instance_pool(instances)
                .map(|()| std::ptr::NonNull::dangling().as_ptr())
                .map_err(|e| Failure::new(ToolvetStatus::ToolvetInvalidArgument, e.to_string()))
        })
    }
}

/// The host behind `host`.
///
/// # Errors
/// `TOOLVET_INVALID_ARGUMENT` for NULL.
///
/// # Safety
/// `host` is NULL or a live host (not freed) for `'a`.
unsafe fn live<'a>(host: *const ToolvetHost) -> Result<&'a ToolvetHost, Failure> {
    // SAFETY: the caller's contract.
    unsafe { host.as_ref() }.ok_or_else(|| {
        Failure::new(
            ToolvetStatus::ToolvetInvalidArgument,
            "`host` is NULL: load a policy first",
        )
    })
}

/// Vet one proposed call and return its verdict as a JSON object (free it
/// with [`toolvet_string_free`]; never NULL):
/// `{"decision": "allow"|"deny"|"escalate", "rule", "reason", "decided_by",
/// "approval": {"id", "ticket", "status", ...}, "checks": [...],
/// "duration_us", "tool", "call_id"}`.
///
/// `request_json` is one call as `toolvet check` reads it; a resumed call
/// carries `"approval": {"ticket": "..."}`, the ticket of the escalation
/// it resumes. Never fails: a call that cannot be vetted (NULL, not UTF-8,
/// malformed or ambiguous JSON, a context carrying `labels`) is a deny
/// with rule `toolvet.invalid-call`, and a NULL host or a failure of the
/// host is a deny with rule `toolvet.host-error`. **Blocks** while the
/// checks run on the calling thread.
///
/// # Safety
/// `host` is NULL or a live host; `request_json` is NULL or a
/// NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn toolvet_check(
    host: *const ToolvetHost,
    request_json: *const c_char,
) -> *mut c_char {
    let answered = unwinding(|| {
        // SAFETY: the caller's contract.
        let host = match unsafe { live(host) } {
            Ok(host) => host,
            Err(e) => return verdict_json(&host_error(&e.message), None),
        };
        // SAFETY: the caller's contract.
        let mut request = match unsafe { required_str(request_json, "request_json") }
            .map_err(|e| e.message)
            .and_then(|text| toolvet::CallRequest::from_json(text).map_err(|e| e.to_string()))
        {
            Ok(request) => request,
            Err(why) => return verdict_json(&invalid_call(why), None),
        };
        let verdict = match host.labels.label_call_blocking(&host.host, &mut request) {
            Some(refused) => refused,
            None => host.host.check_blocking(&request),
        };
        verdict_json(&verdict, Some(&request))
    });
    give(answered.unwrap_or_else(|panic| {
        verdict_json(
            &host_error(&format!(
                "the policy host failed while vetting this call ({panic})"
            )),
            None,
        )
    }))
}

/// Vet what a call's tool returned and return the verdict as a JSON object
/// (free it with [`toolvet_string_free`]; never NULL): `{"action":
/// "pass"|"redact"|"withhold", "rule", "reason", "content" (the masked
/// content to hand the model, when redacted), "labels": [...], "checks": [...],
/// "duration_us", "tool", "call_id"}`.
///
/// `request_json` is one result as `toolvet check-result` reads it: the
/// call with its `result`. The labels the result raises are kept for its
/// run's later calls (`context.run_id`). Never fails: a result that cannot
/// be vetted, a NULL host or a failure of the host is withheld. **Blocks**
/// while the checks run.
///
/// # Safety
/// As [`toolvet_check`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn toolvet_check_result(
    host: *const ToolvetHost,
    request_json: *const c_char,
) -> *mut c_char {
    let answered = unwinding(|| {
        // SAFETY: the caller's contract.
        let host = match unsafe { live(host) } {
            Ok(host) => host,
            Err(e) => return result_json(&withheld(HOST_ERROR_RULE, e.message), None),
        };
        // SAFETY: the caller's contract.
        let item = match unsafe { required_str(request_json, "request_json") }
            .map_err(|e| e.message)
            .and_then(|text| ResultRequest::from_json(text).map_err(|e| e.to_string()))
        {
            Ok(item) => item,
            Err(why) => return result_json(&withheld(INVALID_CALL_RULE, why), None),
        };
        let verdict = host
            .labels
            .check_result_blocking(&host.host, &item.request, &item.result);
        result_json(&verdict, Some(&item.request))
    });
    give(answered.unwrap_or_else(|panic| {
        result_json(
            &withheld(
                HOST_ERROR_RULE,
                format!(
                    "the policy host failed while vetting this result ({panic}), so it is withheld"
                ),
            ),
            None,
        )
    }))
}

/// One page of approval requests, oldest first, as a JSON array in
/// `*json_out`: `status` is `pending` (NULL: pending), `approved`,
/// `rejected`, `consumed`, `expired` or `all`; `limit` 1..=500 (0: 100);
/// `after` (NULL: from the start) the previous page's last id. **Blocks**
/// on the ledger.
///
/// Returns `TOOLVET_OK`, or `TOOLVET_APPROVAL_INVALID_QUERY`,
/// `TOOLVET_APPROVAL_UNAVAILABLE`, `TOOLVET_APPROVAL_UNSUPPORTED` (no
/// `[approvals]` table), `TOOLVET_INVALID_ARGUMENT`.
///
/// # Safety
/// `host` is NULL or a live host; `status` and `after` are NULL or
/// NUL-terminated strings; `json_out` is valid for a write; `error_out`
/// is NULL or valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn toolvet_approvals_list(
    host: *const ToolvetHost,
    status: *const c_char,
    limit: u32,
    after: *const c_char,
    json_out: *mut *mut c_char,
    error_out: *mut *mut c_char,
) -> ToolvetStatus {
    // SAFETY: the caller's contract.
    unsafe {
        fallible(json_out, "json_out", error_out, || {
            let approvals = live(host)?.approvals()?;
            let status = match optional_str(status, "status")? {
                None => StatusFilter::Pending,
                Some(s) => s.parse().map_err(|e| Failure::approval(&e))?,
            };
            let query = ListQuery {
                status,
                limit: if limit == 0 { 100 } else { limit as usize },
                after: optional_str(after, "after")?.map(str::to_string),
            };
            let page = toolvet::block_on(async move { approvals.list(&query).await })
                .map_err(|e| Failure::approval(&e))?;
            Ok(give(to_json(&page)))
        })
    }
}

/// The approval request `id` with its status as of now, as a JSON object
/// in `*json_out`. **Blocks** on the ledger.
///
/// Returns `TOOLVET_OK`, or `TOOLVET_APPROVAL_NOT_FOUND`,
/// `TOOLVET_APPROVAL_UNAVAILABLE`, `TOOLVET_APPROVAL_UNSUPPORTED`,
/// `TOOLVET_INVALID_ARGUMENT`.
///
/// # Safety
/// `host` is NULL or a live host; `id` is a NUL-terminated string;
/// `json_out` is valid for a write; `error_out` is NULL or valid for a
/// write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn toolvet_approval_get(
    host: *const ToolvetHost,
    id: *const c_char,
    json_out: *mut *mut c_char,
    error_out: *mut *mut c_char,
) -> ToolvetStatus {
    // SAFETY: the caller's contract.
    unsafe {
        fallible(json_out, "json_out", error_out, || {
            let approvals = live(host)?.approvals()?;
            let id = required_str(id, "id")?.to_string();
            let request = toolvet::block_on(async move { approvals.get(&id).await })
                .map_err(|e| Failure::approval(&e))?;
            Ok(give(to_json(&request)))
        })
    }
}

/// Record a person's decision about approval request `id` and store the
/// request as decided (JSON) in `*json_out`: `decision` is `approve` or
/// `reject`, `reviewer` says who, `message` (NULL: none) is recorded and
/// is what the model reads on a rejection, `scope` (NULL: `once`) is
/// `once` or `run` (approvals only). The first decision stands. `shown`,
/// when not NULL, is the request's `review_sha256` as the reviewer read
/// it: the decision is then recorded only while the request still has
/// that digest. **Blocks** on the ledger.
///
/// This is for the person's answer, collected by the agent's owner (a
/// review screen, a chat message to a reviewer): never expose it to the
/// model as a tool.
///
/// Returns `TOOLVET_OK`, or `TOOLVET_APPROVAL_INVALID_REVIEW` (never
/// taken for an approval), `…_NOT_FOUND`, `…_ALREADY_DECIDED`,
/// `…_EXPIRED`, `…_CHANGED`, `…_UNAVAILABLE`, `…_UNSUPPORTED`,
/// `TOOLVET_INVALID_ARGUMENT`.
///
/// # Safety
/// `host` is NULL or a live host; `id`, `decision` and `reviewer` are
/// NUL-terminated strings, `message`, `scope` and `shown` NULL or such
/// strings; `json_out` is valid for a write; `error_out` is NULL or valid
/// for a write.
#[unsafe(no_mangle)]
#[allow(
    clippy::too_many_arguments,
    reason = "a C function: each field of the decision is its own argument, as in the other \
              bindings' `decide`"
)]
pub unsafe extern "C" fn toolvet_approval_decide(
    host: *const ToolvetHost,
    id: *const c_char,
    decision: *const c_char,
    reviewer: *const c_char,
    message: *const c_char,
    scope: *const c_char,
    shown: *const c_char,
    json_out: *mut *mut c_char,
    error_out: *mut *mut c_char,
) -> ToolvetStatus {
    // SAFETY: the caller's contract.
    unsafe {
        fallible(json_out, "json_out", error_out, || {
            let approvals = live(host)?.approvals()?;
            let id = required_str(id, "id")?.to_string();
            let review = Review::parse(
                required_str(decision, "decision")?,
                required_str(reviewer, "reviewer")?,
                optional_str(message, "message")?,
                optional_str(scope, "scope")?,
            )
            .map_err(|e| Failure::approval(&e))?;
            let decided = match optional_str(shown, "shown")? {
                Some(shown) => {
                    let shown = shown.to_string();
                    toolvet::block_on(
                        async move { approvals.decide_shown(&id, review, &shown).await },
                    )
                }
                None => toolvet::block_on(async move { approvals.decide(&id, review).await }),
            }
            .map_err(|e| Failure::approval(&e))?;
            Ok(give(to_json(&decided)))
        })
    }
}

/// Facts about the policy in force, as a JSON object (free it with
/// [`toolvet_string_free`]; never NULL): `{"policy_source",
/// "policy_sha256", "generation", "has_approvals", "vets_results",
/// "checks": [{"name", ...}]}`; `{"error": "..."}` for a NULL host.
///
/// # Safety
/// `host` is NULL or a live host.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn toolvet_host_info(host: *const ToolvetHost) -> *mut c_char {
    let described = unwinding(|| {
        // SAFETY: the caller's contract.
        match unsafe { live(host) } {
            Ok(host) => serde_json::json!({
                "policy_source": host.host.policy_source().display().to_string(),
                "policy_sha256": host.host.policy_sha256(),
                "generation": host.host.generation(),
                "has_approvals": host.host.approvals().is_some(),
                "vets_results": host.host.vets_results(),
                "checks": host.host.checks(),
            })
            .to_string(),
            Err(e) => serde_json::json!({ "error": e.message }).to_string(),
        }
    });
    give(described.unwrap_or_else(|panic| serde_json::json!({ "error": panic }).to_string()))
}

/// Free a host made by [`toolvet_load_file`] or [`toolvet_load_toml`].
/// NULL is ignored. Calls still running on other threads must have
/// returned first.
///
/// # Safety
/// `host` is NULL or a host from libtoolvet, not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn toolvet_host_free(host: *mut ToolvetHost) {
    if !host.is_null() {
        // SAFETY: made by `Box::into_raw` in `load`, freed once (the
        // caller's contract).
        let _ = unwinding(|| drop(unsafe { Box::from_raw(host) }));
    }
}

/// Free a string libtoolvet returned. NULL is ignored.
///
/// # Safety
/// `text` is NULL or a string from libtoolvet, not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn toolvet_string_free(text: *mut c_char) {
    if !text.is_null() {
        // SAFETY: made by `CString::into_raw` in `give`, freed once (the
        // caller's contract).
        drop(unsafe { std::ffi::CString::from_raw(text) });
    }
}

/// libtoolvet's version (`0.1.0`), a static string: never free it.
#[unsafe(no_mangle)]
pub extern "C" fn toolvet_version() -> *const c_char {
    static VERSION: &std::ffi::CStr = {
        match std::ffi::CStr::from_bytes_with_nul(
            concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes(),
        ) {
            Ok(v) => v,
            Err(_) => c"unknown",
        }
    };
    VERSION.as_ptr()
}

/// `value` as JSON text (serialising the core's types cannot fail; if it
/// did, the text says so rather than pass for an empty answer).
fn to_json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value)
        .unwrap_or_else(|e| serde_json::json!({ "error": e.to_string() }).to_string())
}

/// A verdict as the CLI prints it: with the call's `tool` and `call_id`.
fn verdict_json(verdict: &toolvet::Verdict, request: Option<&toolvet::CallRequest>) -> String {
    with_call(serde_json::to_value(verdict), request)
}

/// A result verdict as the CLI prints it.
fn result_json(verdict: &ResultVerdict, request: Option<&toolvet::CallRequest>) -> String {
    with_call(serde_json::to_value(verdict), request)
}

fn with_call(
    value: Result<Value, serde_json::Error>,
    request: Option<&toolvet::CallRequest>,
) -> String {
    let mut value = value
        .unwrap_or_else(|e| serde_json::json!({ "decision": "deny", "action": "withhold", "rule": HOST_ERROR_RULE, "reason": e.to_string() }));
    if let Some(map) = value.as_object_mut() {
        map.insert(
            "tool".into(),
            request.map_or(Value::Null, |r| r.call.name.clone().into()),
        );
        map.insert(
            "call_id".into(),
            request.map_or(Value::Null, |r| r.call.id.clone().into()),
        );
    }
    value.to_string()
}

/// The deny for a call that cannot be vetted.
fn invalid_call(why: String) -> toolvet::Verdict {
    deny(INVALID_CALL_RULE, why)
}

/// The deny when the host failed (or none was given).
fn host_error(why: &str) -> toolvet::Verdict {
    deny(HOST_ERROR_RULE, format!("{why}, so the call may not run"))
}

fn deny(rule: &str, reason: String) -> toolvet::Verdict {
    toolvet::Verdict {
        decision: toolvet::Decision::Deny,
        decided_by: None,
        rule: Some(rule.into()),
        reason: Some(reason),
        approval: None,
        checks: Vec::new(),
        duration_us: 0,
    }
}

fn withheld(rule: &str, reason: String) -> ResultVerdict {
    ResultVerdict::withheld_by_host(rule, reason)
}
