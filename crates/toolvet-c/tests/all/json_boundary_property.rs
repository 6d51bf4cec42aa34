//! The property of libtoolvet's JSON boundary, on any bytes: what a C
//! caller may pass to `toolvet_check` and `toolvet_check_result` (the
//! bytes up to the first NUL, UTF-8 or not), and what it gets back.
//!
//! Shared by the seed replay (`json_boundary.rs`, in `cargo test`) and the
//! libFuzzer driver (`crates/toolvet-c/fuzz`, coverage-guided runs).
//!
//! - The answer is never NULL, is UTF-8 and one JSON object, freed with
//!   `toolvet_string_free`.
//! - `toolvet_check`: bytes the core's parse refuses (`CallRequest::from_json`:
//!   not UTF-8, not JSON, duplicate or case-folded keys, inexact numbers, a
//!   bad shape) are a deny `toolvet.invalid-call` naming no tool. A call
//!   that parses is vetted by a real host whose policy has no checks and
//!   allows by default within 256-byte arguments and 2 KiB calls, so it is
//!   allowed exactly when it is within those limits and brings neither an
//!   approval ticket (the policy has no `[approvals]`) nor labels of its
//!   own; the answer names its tool and call id. Nothing escalates.
//! - `toolvet_check_result`: bytes the core's parse refuses
//!   (`ResultRequest::from_json`) are withheld, `toolvet.invalid-call`; a
//!   result that parses passes or is withheld by one of the host's own
//!   rules (labels sent, a full run store, an oversized result), and names
//!   its call.
//! - Neither answer is ever `toolvet.host-error`: that is a panic caught at
//!   the boundary, or a host failure, on input alone.

use serde_json::Value;
use std::ffi::{CStr, CString, c_char};
use std::sync::OnceLock;
use toolvet::CallRequest;
use toolvet::tool_result::ResultRequest;
use toolvet_c::{
    ToolvetHost, ToolvetStatus, toolvet_check, toolvet_check_result, toolvet_load_toml,
    toolvet_string_free,
};

/// `max_arguments_bytes` of the policy.
const MAX_ARGUMENTS: usize = 256;
/// `max_call_bytes` of the policy.
const MAX_CALL: usize = 2048;
/// The host's failure rule, never expected on input alone.
const HOST_ERROR: &str = "toolvet.host-error";
/// The rule of input that cannot be vetted.
const INVALID_CALL: &str = "toolvet.invalid-call";

/// A loaded host, shared: libtoolvet's functions are safe from any thread.
struct Shared(*mut ToolvetHost);
// SAFETY: a `ToolvetHost` may be used from any thread (toolvet.h).
unsafe impl Send for Shared {}
// SAFETY: as above.
unsafe impl Sync for Shared {}

/// The host of the property's policy, loaded once per process through
/// the ABI.
fn host() -> *const ToolvetHost {
    static HOST: OnceLock<Shared> = OnceLock::new();
    HOST.get_or_init(|| {
        let text = CString::new(format!(
            "[host]\ndefault_decision = \"allow\"\nallow_without_checks = true\n\
             max_arguments_bytes = {MAX_ARGUMENTS}\nmax_call_bytes = {MAX_CALL}\n"
        ))
        .expect("no NUL in the policy");
        let mut host = std::ptr::null_mut();
        let mut error = std::ptr::null_mut();
        // SAFETY: NUL-terminated strings and valid out-pointers.
        let status = unsafe {
            toolvet_load_toml(
                text.as_ptr(),
                c"/".as_ptr(),
                c"json_boundary.toml".as_ptr(),
                &mut host,
                &mut error,
            )
        };
        assert_eq!(status, ToolvetStatus::ToolvetOk, "the policy loads");
        Shared(host)
    })
    .0
}

/// The JSON object of an answer, which is freed.
fn answer(text: *mut c_char) -> serde_json::Map<String, Value> {
    assert!(!text.is_null(), "an answer is never NULL");
    // SAFETY: a NUL-terminated string the library made.
    let owned = unsafe { CStr::from_ptr(text) }.to_str().map(str::to_owned);
    // SAFETY: freed once, with the library's own function.
    unsafe { toolvet_string_free(text) };
    let owned = owned.expect("an answer is UTF-8");
    match serde_json::from_str(&owned) {
        Ok(Value::Object(map)) => map,
        other => panic!("an answer is one JSON object: {owned:?} ({other:?})"),
    }
}

fn text<'a>(map: &'a serde_json::Map<String, Value>, key: &str) -> &'a str {
    map.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// What a C caller's string holds of `data`: the bytes before the first NUL.
fn as_c_string(data: &[u8]) -> CString {
    let until_nul = data.split(|b| *b == 0).next().unwrap_or_default();
    CString::new(until_nul).expect("no NUL before the end")
}

/// `toolvet_check`'s answer to `data` (as a C caller's string): its
/// `decision`, `rule` and `reason`.
#[cfg_attr(fuzzing, allow(dead_code))]
pub(crate) fn checked(data: &[u8]) -> [String; 3] {
    let c_text = as_c_string(data);
    // SAFETY: a live host and a NUL-terminated string.
    let verdict = answer(unsafe { toolvet_check(host(), c_text.as_ptr()) });
    ["decision", "rule", "reason"].map(|key| text(&verdict, key).to_owned())
}

/// Checks the property on `data`; panics when it does not hold.
pub(crate) fn run(data: &[u8]) {
    let c_text = as_c_string(data);
    let as_text = std::str::from_utf8(c_text.as_bytes()).ok();

    // SAFETY: a live host and a NUL-terminated string.
    let verdict = answer(unsafe { toolvet_check(host(), c_text.as_ptr()) });
    let decision = text(&verdict, "decision");
    assert_ne!(text(&verdict, "rule"), HOST_ERROR, "{verdict:?}");
    assert!(
        decision == "allow" || decision == "deny",
        "a decision, and no check escalates: {verdict:?}"
    );
    match as_text.map(CallRequest::from_json) {
        None | Some(Err(_)) => {
            assert_eq!(
                (decision, text(&verdict, "rule")),
                ("deny", INVALID_CALL),
                "{verdict:?}"
            );
            assert_eq!(verdict.get("tool"), Some(&Value::Null), "{verdict:?}");
        }
        Some(Ok(request)) => {
            let allowed = request.call.arguments.get().len() <= MAX_ARGUMENTS
                && request.size_bytes() <= MAX_CALL
                && request.approval.is_none()
                && request.context.labels.is_empty();
            assert_eq!(decision == "allow", allowed, "{verdict:?}");
            assert_eq!(text(&verdict, "tool"), request.call.name, "{verdict:?}");
            assert_eq!(text(&verdict, "call_id"), request.call.id, "{verdict:?}");
        }
    }

    // SAFETY: as above.
    let vetted = answer(unsafe { toolvet_check_result(host(), c_text.as_ptr()) });
    let action = text(&vetted, "action");
    let rule = text(&vetted, "rule");
    assert_ne!(rule, HOST_ERROR, "{vetted:?}");
    match as_text.map(ResultRequest::from_json) {
        None | Some(Err(_)) => {
            assert_eq!((action, rule), ("withhold", INVALID_CALL), "{vetted:?}");
        }
        Some(Ok(item)) => {
            let labels_sent = !item.request.context.labels.is_empty();
            assert!(
                action == "pass"
                    || (action == "withhold"
                        && rule.starts_with("toolvet.")
                        // What parses is refused as unreadable only for the
                        // labels it brings (the same rule id).
                        && (rule != INVALID_CALL || labels_sent)),
                "{vetted:?}"
            );
            if labels_sent {
                assert_eq!(
                    (action, rule),
                    ("withhold", INVALID_CALL),
                    "labels sent: {vetted:?}"
                );
            }
            assert_eq!(text(&vetted, "tool"), item.request.call.name, "{vetted:?}");
        }
    }
}
