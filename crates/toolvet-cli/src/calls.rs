//! Reading calls for `toolvet check`, results for `toolvet check-result`,
//! and both for `toolvet bench`: JSON objects (one, or a stream such as JSON
//! Lines) from files or standard input.

use anyhow::Context as _;
use std::io::Read;
use std::path::PathBuf;
use toolvet::CallRequest;
use toolvet::tool_result::ResultRequest;

/// The text of each input: `(source name, text)` for every file in
/// `files`, or for standard input (`<stdin>`) when `files` is empty or `-`.
///
/// # Errors
/// A file or standard input that cannot be read (or is not UTF-8), naming
/// it.
pub(crate) fn read_inputs(files: &[PathBuf]) -> anyhow::Result<Vec<(String, String)>> {
    if files.is_empty() || files == [PathBuf::from("-")] {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("reading calls from stdin")?;
        return Ok(vec![("<stdin>".to_string(), text)]);
    }
    files
        .iter()
        .map(|f| {
            std::fs::read_to_string(f)
                .with_context(|| format!("{}: cannot read", f.display()))
                .map(|t| (f.display().to_string(), t))
        })
        .collect()
}

/// The calls in `text`, in order, parsed lazily so that a caller can act
/// on the calls before a malformed one. Errors name the source and the
/// call's position (`calls.jsonl: call #2: malformed JSON`). Each call is
/// read from its own text by [`CallRequest::from_json`], so a duplicate key
/// or a number a 64-bit reader would round is refused (a JSON value would
/// have kept one of the two values, or rounded the number, silently).
pub(crate) fn parse_calls<'a>(
    source: &'a str,
    text: &'a str,
) -> impl Iterator<Item = anyhow::Result<CallRequest>> + 'a {
    parse_each(source, text, "call", CallRequest::from_json)
}

/// The result requests in `text` (a call with its `result`, see
/// [`ResultRequest`]), read as [`parse_calls`] reads calls.
pub(crate) fn parse_results<'a>(
    source: &'a str,
    text: &'a str,
) -> impl Iterator<Item = anyhow::Result<ResultRequest>> + 'a {
    parse_each(source, text, "result", ResultRequest::from_json)
}

/// A call or a result request, as `toolvet bench` reads them: a JSON
/// object with a top-level `result` key is a result ([`ResultRequest`]),
/// any other a call.
#[derive(Debug)]
pub(crate) enum Request {
    /// A call to vet.
    Call(CallRequest),
    /// A call's result to vet.
    Result(ResultRequest),
}

/// The calls and result requests in `text` (see [`Request`]), read as
/// [`parse_calls`] reads calls.
pub(crate) fn parse_requests<'a>(
    source: &'a str,
    text: &'a str,
) -> impl Iterator<Item = anyhow::Result<Request>> + 'a {
    parse_each(source, text, "call or result", |item| {
        let is_result = serde_json::from_str::<serde_json::Value>(item)
            .is_ok_and(|v| v.get("result").is_some());
        if is_result {
            ResultRequest::from_json(item).map(Request::Result)
        } else {
            CallRequest::from_json(item).map(Request::Call)
        }
    })
}

/// Each JSON value of `text` parsed from its own text by `parse`; errors
/// name the source and the value's position (`<what> #2`).
fn parse_each<'a, T: 'a>(
    source: &'a str,
    text: &'a str,
    what: &'static str,
    parse: fn(&str) -> Result<T, toolvet::CallError>,
) -> impl Iterator<Item = anyhow::Result<T>> + 'a {
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<serde_json::Value>();
    std::iter::from_fn(move || {
        let start = stream.byte_offset();
        let value = stream.next()?;
        Some((value, &text[start..stream.byte_offset()]))
    })
    .enumerate()
    .map(move |(i, (value, item_text))| {
        value.with_context(|| format!("{source}: {what} #{}: malformed JSON", i + 1))?;
        parse(item_text).with_context(|| format!("{source}: {what} #{}", i + 1))
    })
}
