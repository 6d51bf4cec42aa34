//! Fitting a run's history into what the checks may be handed, without
//! forgetting any earlier call: the one rule every front end that keeps a
//! session history (the coding-agent hooks, the MCP proxy, ExtMcp, serve) uses,
//! both for what it stores and for what it hands the checks.
//!
//! The host refuses a call whose whole text is over `max_call_bytes`, and
//! keeps only `max_history` entries. A front end that met these limits by
//! dropping its oldest entries let the agent flush the history: five
//! ~950 kB calls (even denied ones) pushed every earlier call out, and
//! every rule that sums or remembers over the run (spend-guard's
//! `run_hard`, sequence-guard's `only_after` and loops, the symbolic links
//! shell-guard and path-guard learn from `ln -s`) started from zero.
//!
//! The rule ([`HistoryBudget::fit`]):
//! - No entry is ever dropped, and every entry keeps its tool name and
//!   outcome.
//! - While the entries are over the byte budget, the arguments of the
//!   oldest entry whose arguments are over
//!   [`HistoryBudget::keep_whole_bytes`] are elided ([`elide`]): first
//!   among the calls that did not run (denied, rejected), then among the
//!   others, oldest first, each only as far as needed. Arguments at most
//!   `keep_whole_bytes` long (a payment's amount and currency, a shell
//!   command that makes a link) are never touched, and elision keeps every
//!   small value of the larger ones (the amount of a payment with a large
//!   memo).
//! - Elided arguments say so where the checks see it: the object gets the
//!   key [`ELIDED_KEY`] (`{"bytes": N, "sha256": "…"}`, the original
//!   text's length and digest), and each value left out becomes the text
//!   [`ELIDED_VALUE_PREFIX`]` N bytes, sha256 …` (so calls that differed
//!   still differ).
//! - When the entries are more than [`HistoryBudget::max_entries`], or
//!   still over the byte budget with every large argument elided, there is
//!   no history to hand over without forgetting calls: [`HistoryOverflow`],
//!   and the front end refuses the call ([`OVERFLOW_RULE`]), never a
//!   silent reset.

use crate::{call::Outcome, call::PriorCall, config::HostSettings};
use serde_json::Value;
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};

/// The key added to arguments that were elided: its value is
/// `{"bytes": <length of the original arguments text>, "sha256": "<hex
/// digest of that text>"}`. A check that needs a value the front end could
/// not keep whole reads this key to know the entry is incomplete.
pub const ELIDED_KEY: &str = "toolvet.elided";

/// How an elided value starts: the value is replaced by the text
/// `toolvet.elided: <N> bytes, sha256 <32 hex digits>` (`N` the length of
/// the value's JSON text, the digest that of the same text).
pub const ELIDED_VALUE_PREFIX: &str = "toolvet.elided:";

/// The rule a front end names when it refuses a call because the run's
/// history cannot be handed over whole ([`HistoryOverflow`]).
pub const OVERFLOW_RULE: &str = "toolvet.history-overflow";

/// Arguments at most this long (bytes of JSON text) are never elided.
pub const KEEP_WHOLE_BYTES: usize = 4096;

/// The limits a history is fitted into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryBudget {
    /// The most bytes the entries may take: each entry's name plus its
    /// arguments text, as `CallRequest::size_bytes` counts them.
    pub max_bytes: usize,
    /// The most entries.
    pub max_entries: usize,
    /// Arguments at most this many bytes long are kept whole; longer ones
    /// are elided down to at most this many bytes when the budget needs it.
    pub keep_whole_bytes: usize,
}

/// Why a history cannot be fitted without forgetting calls. Its text names
/// the limit and what to do; front ends refuse the call with it
/// ([`OVERFLOW_RULE`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HistoryOverflow {
    /// More entries than [`HistoryBudget::max_entries`].
    #[error(
        "this run's history holds {count} earlier calls, over the limit of {limit} \
         (`[host] max_history`); toolvet does not hand the checks a history with earlier calls \
         left out (run totals and what the session did would restart from zero), so the call \
         is refused: a person can raise `[host] max_history` or start a new session"
    )]
    Entries {
        /// Entries in the history.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// Over [`HistoryBudget::max_bytes`] with every argument over
    /// [`HistoryBudget::keep_whole_bytes`] elided.
    #[error(
        "this run's history takes {bytes} bytes with every large argument elided, over the \
         limit of {limit} bytes (half of `[host] max_call_bytes`); toolvet does not hand the \
         checks a history with earlier calls left out, so the call is refused: a person can \
         raise `[host] max_call_bytes` or start a new session"
    )]
    Bytes {
        /// Bytes of the history with every large argument elided.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// More distinct run labels than [`crate::run_history::MAX_RUN_LABELS`].
    #[error(
        "this run's results raised {count} distinct labels, over the limit of {limit}; \
         toolvet does not hand the checks a run with labels left out (a label is what the run \
         read), so the call is refused: start a new session"
    )]
    Labels {
        /// Distinct labels raised.
        count: usize,
        /// The limit.
        limit: usize,
    },
}

impl HistoryOverflow {
    /// The verdict a front end answers a call with when the run's history
    /// cannot be handed over: deny, [`OVERFLOW_RULE`], this text as the
    /// reason.
    pub fn verdict(&self) -> crate::Verdict {
        crate::Verdict::by_host(
            crate::Decision::Deny,
            OVERFLOW_RULE,
            self.to_string(),
            Vec::new(),
        )
    }
}

impl HistoryBudget {
    /// The budget of the history handed to the checks under `settings`:
    /// half of `max_call_bytes` (the other half is the call's own),
    /// `max_history` entries, and [`KEEP_WHOLE_BYTES`] (or less, when the
    /// budget per entry is smaller).
    pub fn for_checks(settings: &HostSettings) -> HistoryBudget {
        HistoryBudget {
            max_bytes: settings.max_call_bytes / 2,
            max_entries: settings.max_history,
            keep_whole_bytes: KEEP_WHOLE_BYTES.min(settings.max_call_bytes / 2),
        }
    }

    /// What `entry` weighs against [`HistoryBudget::max_bytes`].
    pub fn entry_bytes(entry: &PriorCall) -> usize {
        entry.name.len() + entry.arguments.get().len()
    }

    /// `entries` (oldest first) fitted into this budget: the same entries,
    /// in order, with the arguments of some elided (see the module
    /// documentation for which).
    ///
    /// # Errors
    /// [`HistoryOverflow`] when they are more than `max_entries`, or over
    /// `max_bytes` with every argument over `keep_whole_bytes` elided.
    pub fn fit(&self, entries: &[PriorCall]) -> Result<Vec<PriorCall>, HistoryOverflow> {
        if entries.len() > self.max_entries {
            return Err(HistoryOverflow::Entries {
                count: entries.len(),
                limit: self.max_entries,
            });
        }
        let mut fitted = entries.to_vec();
        self.fit_mut(fitted.iter_mut())?;
        Ok(fitted)
    }

    /// [`HistoryBudget::fit`] in place, for a front end's own storage:
    /// elides arguments of `entries` (oldest first) until they are within
    /// the budget. On an error some arguments may have been elided.
    ///
    /// # Errors
    /// As [`HistoryBudget::fit`].
    pub fn fit_mut<'a>(
        &self,
        entries: impl IntoIterator<Item = &'a mut PriorCall>,
    ) -> Result<(), HistoryOverflow> {
        let mut entries: Vec<&'a mut PriorCall> = entries.into_iter().collect();
        if entries.len() > self.max_entries {
            return Err(HistoryOverflow::Entries {
                count: entries.len(),
                limit: self.max_entries,
            });
        }
        let mut bytes: usize = entries.iter().map(|e| Self::entry_bytes(e)).sum();
        // Calls that did not run first: what they would have done never
        // happened. Then the rest; oldest first in each.
        for ran in [false, true] {
            for entry in entries.iter_mut() {
                if bytes <= self.max_bytes {
                    return Ok(());
                }
                let did_run = !matches!(entry.outcome, Outcome::Denied | Outcome::Rejected);
                let size = entry.arguments.get().len();
                if did_run != ran || size <= self.keep_whole_bytes {
                    continue;
                }
                entry.arguments = elide(&entry.arguments, self.keep_whole_bytes);
                bytes = bytes - size + entry.arguments.get().len();
            }
        }
        if bytes <= self.max_bytes {
            Ok(())
        } else {
            Err(HistoryOverflow::Bytes {
                bytes,
                limit: self.max_bytes,
            })
        }
    }
}

/// Whether `arguments` were elided by [`elide`] (they hold [`ELIDED_KEY`]).
pub fn is_elided(arguments: &RawValue) -> bool {
    match serde_json::from_str::<Value>(arguments.get()) {
        Ok(Value::Object(map)) => map.contains_key(ELIDED_KEY),
        _ => false,
    }
}

/// `arguments` (a JSON object's text) made at most `limit` bytes long,
/// keeping every value it can: the longest texts are elided first, then
/// nested objects and arrays, deepest first, each replaced by
/// the text [`ELIDED_VALUE_PREFIX`]` N bytes, sha256 …`, and the object
/// gets [`ELIDED_KEY`]. When even that
/// is over `limit` (many small values), or the text is not an object, the
/// result is the object `{"toolvet.elided": {...}}` alone. Arguments
/// already within `limit` are returned as they are.
pub fn elide(arguments: &RawValue, limit: usize) -> Box<RawValue> {
    let text = arguments.get();
    if text.len() <= limit {
        return arguments.to_owned();
    }
    let note =
        serde_json::json!({ "bytes": text.len(), "sha256": hex::encode(Sha256::digest(text)) });
    let whole = || {
        let mut only = serde_json::Map::new();
        only.insert(ELIDED_KEY.to_string(), note.clone());
        raw(&Value::Object(only))
    };
    let Ok(Value::Object(mut map)) = crate::strict_json::parse_json_strict(text) else {
        return whole();
    };
    // A key of the caller's that folds like ours would make the entry's
    // object ambiguous: it is elided with the rest.
    let ours = crate::fold::fold(ELIDED_KEY);
    map.retain(|k, _| crate::fold::fold(k) != ours);
    let note_bytes = ELIDED_KEY.len() + 4 + note.to_string().len();
    let mut value = Value::Object(map);
    let size = shrink(&mut value, limit.saturating_sub(note_bytes));
    let Value::Object(mut map) = value else {
        return whole();
    };
    if size.saturating_add(note_bytes) > limit {
        return whole();
    }
    map.insert(ELIDED_KEY.to_string(), note.clone());
    let shrunk = raw(&Value::Object(map));
    if shrunk.get().len() > limit {
        return whole();
    }
    shrunk
}

fn raw(value: &Value) -> Box<RawValue> {
    RawValue::from_string(value.to_string()).expect("a serialized value is JSON")
}

/// The text an elided value becomes.
fn marker(text: &str) -> Value {
    let digest = hex::encode(Sha256::digest(text));
    Value::String(format!(
        "{ELIDED_VALUE_PREFIX} {} bytes, sha256 {}",
        text.len(),
        &digest[..32]
    ))
}

/// Make `value` (the arguments object, without [`ELIDED_KEY`]) at most
/// `target` bytes of JSON text if it can; returns its size after. First
/// the largest scalars (long texts) become [`marker`]s, largest first; then,
/// while still over, nested objects and arrays, deepest first (so a
/// payment's small `amount` beside a large list survives), each becoming a
/// marker of its text as kept so far. The object itself is left to
/// [`elide`].
fn shrink(value: &mut Value, target: usize) -> usize {
    let mut total = value.to_string().len();
    if total <= target {
        return total;
    }
    let mut scalars = Vec::new();
    let mut containers = Vec::new();
    collect(value, String::new(), 0, &mut scalars, &mut containers);
    // Largest first; among equals, the earlier.
    scalars.sort_by_key(|s| std::cmp::Reverse(s.1));
    for (pointer, size) in scalars {
        if total <= target {
            return total;
        }
        total -= replace(value, &pointer, size);
    }
    // Deepest first, then largest.
    containers.sort_by(|a, b| b.1.cmp(&a.1).then(b.2.cmp(&a.2)));
    for (pointer, _, _) in containers {
        if total <= target {
            return total;
        }
        let Some(current) = value.pointer(&pointer).map(|v| v.to_string().len()) else {
            continue;
        };
        total -= replace(value, &pointer, current);
    }
    total
}

/// Every value under `value` (not `value` itself) by JSON pointer: scalars
/// with their size, containers with their depth and size.
fn collect(
    value: &Value,
    at: String,
    depth: usize,
    scalars: &mut Vec<(String, usize)>,
    containers: &mut Vec<(String, usize, usize)>,
) {
    let children: Vec<(String, &Value)> = match value {
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| (k.replace('~', "~0").replace('/', "~1"), v))
            .collect(),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| (i.to_string(), v))
            .collect(),
        _ => return,
    };
    for (key, child) in children {
        let pointer = format!("{at}/{key}");
        let size = child.to_string().len();
        match child {
            Value::Object(_) | Value::Array(_) => {
                containers.push((pointer.clone(), depth + 1, size));
                collect(child, pointer, depth + 1, scalars, containers);
            }
            _ => scalars.push((pointer, size)),
        }
    }
}

/// Replace the value at `pointer` (`size` bytes) by its [`marker`] when
/// that is smaller; returns the bytes saved.
fn replace(value: &mut Value, pointer: &str, size: usize) -> usize {
    let Some(slot) = value.pointer_mut(pointer) else {
        return 0;
    };
    let marked = marker(&slot.to_string());
    let marker_size = marked.to_string().len();
    if marker_size >= size {
        return 0;
    }
    *slot = marked;
    size - marker_size
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw_text(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_string()).unwrap()
    }

    fn entry(name: &str, arguments: &str, outcome: Outcome) -> PriorCall {
        PriorCall {
            name: name.into(),
            arguments: raw_text(arguments),
            outcome,
        }
    }

    fn budget(max_bytes: usize, max_entries: usize) -> HistoryBudget {
        HistoryBudget {
            max_bytes,
            max_entries,
            keep_whole_bytes: 256,
        }
    }

    fn args(e: &PriorCall) -> Value {
        serde_json::from_str(e.arguments.get()).unwrap()
    }

    #[test]
    fn big_calls_never_push_older_entries_out() {
        // 21 small payments, then 5 big writes (denied): the old rule kept
        // only the newest within the budget.
        let mut entries: Vec<PriorCall> = (0..21)
            .map(|i| {
                entry(
                    "pay_invoice",
                    &format!(r#"{{"amount":{},"currency":"USD"}}"#, 90 + i % 10),
                    Outcome::Allowed,
                )
            })
            .collect();
        let big = format!(r#"{{"path":"big.txt","content":"{}"}}"#, "A".repeat(10_000));
        for _ in 0..5 {
            entries.push(entry("write_file", &big, Outcome::Denied));
        }
        let b = budget(8_000, 100);
        let fitted = b.fit(&entries).unwrap();
        assert_eq!(fitted.len(), 26, "no entry dropped");
        let bytes: usize = fitted.iter().map(HistoryBudget::entry_bytes).sum();
        assert!(bytes <= b.max_bytes, "{bytes}");
        for (f, e) in fitted.iter().zip(&entries).take(21) {
            assert_eq!(f.arguments.get(), e.arguments.get(), "small arguments kept");
            assert_eq!(f.outcome, Outcome::Allowed);
        }
        for f in &fitted[21..] {
            assert_eq!(f.name, "write_file");
            assert_eq!(f.outcome, Outcome::Denied);
            let a = args(f);
            assert_eq!(a["path"], "big.txt", "small values of an elided call kept");
            assert!(
                a["content"]
                    .as_str()
                    .unwrap()
                    .starts_with(ELIDED_VALUE_PREFIX),
                "{a}"
            );
            assert_eq!(a[ELIDED_KEY]["bytes"], big.len());
            assert!(is_elided(&f.arguments));
        }
        assert!(!is_elided(&fitted[0].arguments));
    }

    #[test]
    fn the_oldest_are_elided_first_and_calls_that_did_not_run_before_them() {
        let big = |c: char| format!(r#"{{"text":"{}"}}"#, c.to_string().repeat(1000));
        let entries = vec![
            entry("a", &big('a'), Outcome::Allowed),
            entry("b", &big('b'), Outcome::Allowed),
            entry("c", &big('c'), Outcome::Denied),
            entry("d", &big('d'), Outcome::Allowed),
        ];
        // Room for three whole ones: one is elided, the call that did not
        // run, though it is not the oldest.
        let fitted = budget(3 * 1020 + 400, 10).fit(&entries).unwrap();
        let elided: Vec<&str> = fitted
            .iter()
            .filter(|e| is_elided(&e.arguments))
            .map(|e| e.name.as_str())
            .collect();
        assert_eq!(elided, ["c"]);
        // Room for two: then the oldest of those that ran.
        let fitted = budget(2 * 1020 + 800, 10).fit(&entries).unwrap();
        let elided: Vec<&str> = fitted
            .iter()
            .filter(|e| is_elided(&e.arguments))
            .map(|e| e.name.as_str())
            .collect();
        assert_eq!(elided, ["a", "c"]);
        // Distinct values stay distinct (loop detection compares them).
        let all = budget(1000, 10).fit(&entries).unwrap();
        assert_ne!(all[0].arguments.get(), all[1].arguments.get());
    }

    #[test]
    fn too_many_entries_or_bytes_is_an_overflow_never_a_reset() {
        let entries: Vec<PriorCall> = (0..5)
            .map(|i| entry(&format!("t{i}"), r#"{"n":1}"#, Outcome::Allowed))
            .collect();
        let e = budget(10_000, 4).fit(&entries).unwrap_err();
        assert_eq!(e, HistoryOverflow::Entries { count: 5, limit: 4 });
        assert!(e.to_string().contains("max_history"), "{e}");
        assert_eq!(budget(10_000, 5).fit(&entries).unwrap().len(), 5);
        // Small arguments are never elided: over the bytes with nothing
        // left to elide is an overflow too.
        let e = budget(20, 10).fit(&entries).unwrap_err();
        assert!(matches!(e, HistoryOverflow::Bytes { limit: 20, .. }), "{e}");
        assert!(e.to_string().contains("max_call_bytes"), "{e}");
    }

    #[test]
    fn elision_keeps_small_values_nested_too_and_says_so() {
        let memo = "m".repeat(5000);
        let text = format!(
            r#"{{"payment":{{"amount":"99.50","currency":"USD","memo":"{memo}"}},"note":"{memo}"}}"#
        );
        let out = elide(&raw_text(&text), 400);
        assert!(out.get().len() <= 400, "{}", out.get());
        let v: Value = serde_json::from_str(out.get()).unwrap();
        assert_eq!(v["payment"]["amount"], "99.50");
        assert_eq!(v["payment"]["currency"], "USD");
        assert!(
            v["payment"]["memo"]
                .as_str()
                .unwrap()
                .starts_with(ELIDED_VALUE_PREFIX)
        );
        assert!(v["note"].as_str().unwrap().starts_with(ELIDED_VALUE_PREFIX));
        let digest = hex::encode(Sha256::digest(&text));
        assert_eq!(v[ELIDED_KEY]["sha256"], digest);
        // A long list of small values beside the amount: the list goes.
        let pad = vec!["1"; 3000].join(",");
        let text = format!(r#"{{"amount":99,"currency":"USD","pad":[{pad}]}}"#);
        let v: Value = serde_json::from_str(elide(&raw_text(&text), 400).get()).unwrap();
        assert_eq!(
            (v["amount"].as_u64(), v["currency"].as_str()),
            (Some(99), Some("USD"))
        );
        assert!(
            v["pad"].as_str().unwrap().starts_with(ELIDED_VALUE_PREFIX),
            "{v}"
        );
        // Many small values: the whole object is elided.
        let many: String = (0..2000)
            .map(|i| format!(r#""k{i}":{i}"#))
            .collect::<Vec<_>>()
            .join(",");
        let out = elide(&raw_text(&format!("{{{many}}}")), 300);
        let v: Value = serde_json::from_str(out.get()).unwrap();
        assert_eq!(v.as_object().unwrap().len(), 1, "{v}");
        assert!(v[ELIDED_KEY]["bytes"].as_u64().unwrap() > 300);
        // A caller's own look-alike key does not survive beside ours.
        let text = format!(r#"{{"Toolvet.Elided":"fake","body":"{memo}"}}"#);
        let v: Value = serde_json::from_str(elide(&raw_text(&text), 400).get()).unwrap();
        assert!(v.get("Toolvet.Elided").is_none(), "{v}");
        assert!(v[ELIDED_KEY].is_object());
        // Within the limit: unchanged.
        assert_eq!(elide(&raw_text(r#"{"a":1}"#), 400).get(), r#"{"a":1}"#);
    }
}
