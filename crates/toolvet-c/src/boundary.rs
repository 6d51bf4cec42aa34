//! Crossing the C boundary: strings in and out, out-parameters, and
//! panics caught before they reach the caller.

use crate::status::{Failure, ToolvetStatus};
use std::ffi::{CStr, CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// The text of the NUL-terminated UTF-8 string `ptr`, `None` for NULL.
///
/// # Errors
/// A string that is not UTF-8, naming `what` (the argument).
///
/// # Safety
/// `ptr` is NULL or points to a NUL-terminated string that stays valid
/// and unchanged for `'a`.
pub(crate) unsafe fn optional_str<'a>(
    ptr: *const c_char,
    what: &str,
) -> Result<Option<&'a str>, Failure> {
    if ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: the caller's contract (a valid NUL-terminated string).
    let bytes = unsafe { CStr::from_ptr(ptr) };
    bytes.to_str().map(Some).map_err(|e| {
        Failure::new(
            ToolvetStatus::ToolvetInvalidArgument,
            format!("`{what}` is not UTF-8 (at byte {})", e.valid_up_to()),
        )
    })
}

/// [`optional_str`] for an argument that must be given.
///
/// # Errors
/// NULL, or a string that is not UTF-8, naming `what`.
///
/// # Safety
/// As [`optional_str`].
pub(crate) unsafe fn required_str<'a>(ptr: *const c_char, what: &str) -> Result<&'a str, Failure> {
    // SAFETY: the caller's contract, passed on.
    unsafe { optional_str(ptr, what) }?.ok_or_else(|| {
        Failure::new(
            ToolvetStatus::ToolvetInvalidArgument,
            format!("`{what}` is NULL"),
        )
    })
}

/// `text` as a string the caller owns (freed with `toolvet_string_free`).
/// A NUL inside (never in JSON, which escapes it) is written `\0`, so
/// nothing after it is lost.
pub(crate) fn give(text: String) -> *mut c_char {
    let text = if text.contains('\0') {
        text.replace('\0', "\\0")
    } else {
        text
    };
    CString::new(text)
        .unwrap_or_else(|_| CString::from(c"toolvet: a string with NUL"))
        .into_raw()
}

/// Store `value` in the out-parameter `out` unless it is NULL.
///
/// # Safety
/// `out` is NULL or valid for a write of `T`.
pub(crate) unsafe fn store<T>(out: *mut T, value: T) {
    if !out.is_null() {
        // SAFETY: non-NULL, and the caller's contract says writable.
        unsafe { out.write(value) };
    }
}

/// Run `f`, turning a panic into its message.
pub(crate) fn unwinding<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|panic| {
        panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".into())
    })
}

/// The body of a function that can fail: run `f` with panics caught, store
/// its value in `out` (when `f` succeeds) or its message in `error_out`
/// (when it fails), and return the status. `out` and `error_out` are
/// cleared to NULL first, so a caller never frees a stale pointer; a NULL
/// `out` is refused before `f` runs, so nothing is made that nobody could
/// free.
///
/// # Safety
/// `out` is NULL or valid for a write of `*mut T`; `error_out` is NULL or
/// valid for a write of `*mut c_char`.
pub(crate) unsafe fn fallible<T>(
    out: *mut *mut T,
    what: &str,
    error_out: *mut *mut c_char,
    f: impl FnOnce() -> Result<*mut T, Failure>,
) -> ToolvetStatus {
    // SAFETY: the caller's contract.
    unsafe {
        store(out, std::ptr::null_mut());
        store(error_out, std::ptr::null_mut());
    }
    let failure = if out.is_null() {
        Failure::new(
            ToolvetStatus::ToolvetInvalidArgument,
            format!("`{what}` is NULL"),
        )
    } else {
        match unwinding(f) {
            Ok(Ok(value)) => {
                // SAFETY: `out` is not NULL; the caller's contract.
                unsafe { store(out, value) };
                return ToolvetStatus::ToolvetOk;
            }
            Ok(Err(failure)) => failure,
            Err(panic) => Failure::new(
                ToolvetStatus::ToolvetInternal,
                format!("toolvet failed ({panic}); nothing was done"),
            ),
        }
    };
    if !error_out.is_null() {
        // SAFETY: the caller's contract.
        unsafe { store(error_out, give(failure.message)) };
    }
    failure.status
}
