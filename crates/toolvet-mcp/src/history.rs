//! A session's earlier calls, as the checks see them: bounded by count
//! and by bytes, so that no call (however large) makes the session's later
//! calls too large to vet.
//!
//! The host refuses a call whose whole text (arguments, tool info, context
//! and history) is over `max_call_bytes`. A history kept by count alone
//! grows past that: one 9 MB call, or enough 1 MB ones, and every later
//! call of the session is refused as oversized. So the history is kept
//! under half of `max_call_bytes` (the other half is the call's own), the
//! oldest entries dropped first, and a call whose arguments are over
//! `max_arguments_bytes` (refused by the host anyway) is recorded with
//! empty arguments: its name and outcome still count for the sequence
//! checks.

use serde_json::value::RawValue;
use std::collections::VecDeque;
use toolvet::{HostSettings, Outcome, PriorCall};

/// Most earlier calls kept as the session's history (oldest dropped).
pub const MAX_HISTORY: usize = 1024;

/// A session's calls, oldest first, each with its sequence number (a
/// forwarded call is in it from the moment it is forwarded, and its
/// outcome is set once its answer comes).
#[derive(Default)]
pub(crate) struct History {
    entries: VecDeque<(u64, PriorCall)>,
    /// The bytes of every entry ([`entry_bytes`]).
    bytes: usize,
    next_seq: u64,
}

/// What an entry weighs in the host's `max_call_bytes` (as
/// `CallRequest::size_bytes` counts it).
fn entry_bytes(call: &PriorCall) -> usize {
    call.name.len() + call.arguments.get().len()
}

/// The bytes the history may take: half of the host's `max_call_bytes`.
pub(crate) fn budget(settings: &HostSettings) -> usize {
    settings.max_call_bytes / 2
}

impl History {
    /// Add a call; returns its sequence number. Arguments over the host's
    /// `max_arguments_bytes` (or over the whole budget) are recorded as
    /// `{}`; then the oldest entries are dropped until the history is
    /// within [`MAX_HISTORY`] entries and [`budget`] bytes (a call whose
    /// name alone is over the budget is not kept at all).
    pub(crate) fn record(
        &mut self,
        name: String,
        arguments: Box<RawValue>,
        outcome: Outcome,
        settings: &HostSettings,
    ) -> u64 {
        let budget = budget(settings);
        let arguments = if arguments.get().len() > settings.max_arguments_bytes.min(budget) {
            RawValue::from_string("{}".into()).unwrap_or(arguments)
        } else {
            arguments
        };
        let seq = self.next_seq;
        self.next_seq += 1;
        let call = PriorCall {
            name,
            arguments,
            outcome,
        };
        self.bytes += entry_bytes(&call);
        self.entries.push_back((seq, call));
        while self.entries.len() > MAX_HISTORY || self.bytes > budget {
            let Some((_, dropped)) = self.entries.pop_front() else {
                break;
            };
            self.bytes -= entry_bytes(&dropped);
        }
        seq
    }

    /// Set the outcome of the call `seq`, if it is still kept.
    pub(crate) fn set_outcome(&mut self, seq: u64, outcome: Outcome) {
        if let Some((_, call)) = self.entries.iter_mut().find(|(s, _)| *s == seq) {
            call.outcome = outcome;
        }
    }

    /// The calls the checks see, oldest first: the newest ones, at most the
    /// host's `max_history` of them and within [`budget`] bytes (the
    /// settings may have changed since they were recorded).
    pub(crate) fn for_checks(&self, settings: &HostSettings) -> Vec<PriorCall> {
        let budget = budget(settings);
        let mut bytes = 0;
        let mut newest: Vec<PriorCall> = Vec::new();
        for (_, call) in self.entries.iter().rev().take(settings.max_history) {
            bytes += entry_bytes(call);
            if bytes > budget {
                break;
            }
            newest.push(call.clone());
        }
        newest.reverse();
        newest
    }

    /// How many calls are kept.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: String) -> Box<RawValue> {
        RawValue::from_string(text).unwrap()
    }

    fn settings() -> HostSettings {
        HostSettings::default()
    }

    #[test]
    fn one_huge_call_never_makes_later_calls_too_large() {
        let s = settings();
        assert_eq!(
            s.max_call_bytes,
            8 << 20,
            "the default the finding was seen with"
        );
        let mut h = History::default();
        h.record(
            "read".into(),
            raw(r#"{"path":"a"}"#.into()),
            Outcome::Allowed,
            &s,
        );
        // 9 MB of arguments: recorded as `{}`, name and outcome kept.
        let huge = format!(r#"{{"text":"{}"}}"#, "x".repeat(9 << 20));
        let seq = h.record("write".into(), raw(huge), Outcome::Denied, &s);
        let seen = h.for_checks(&s);
        assert_eq!(seen.len(), 2);
        assert_eq!(
            (seen[1].name.as_str(), seen[1].arguments.get()),
            ("write", "{}")
        );
        assert_eq!(seen[1].outcome, Outcome::Denied);
        h.set_outcome(seq, Outcome::Allowed);
        assert_eq!(h.for_checks(&s)[1].outcome, Outcome::Allowed);
        let bytes: usize = seen.iter().map(entry_bytes).sum();
        assert!(bytes <= budget(&s), "{bytes}");
    }

    #[test]
    fn many_large_calls_keep_the_newest_within_the_byte_budget() {
        let s = settings();
        let mut h = History::default();
        // 1 MiB - a little each: under max_arguments_bytes, so kept whole.
        let big = format!(r#"{{"text":"{}"}}"#, "y".repeat((1 << 20) - 100));
        for i in 0..20 {
            h.record(format!("w{i}"), raw(big.clone()), Outcome::Allowed, &s);
        }
        let seen = h.for_checks(&s);
        let bytes: usize = seen.iter().map(entry_bytes).sum();
        assert!(bytes <= budget(&s), "{bytes}");
        assert_eq!(seen.len(), 4, "4 of ~1 MiB fit in 4 MiB");
        assert_eq!(seen.last().unwrap().name, "w19", "the newest is kept");
        assert_eq!(h.len(), 4, "the dropped ones are not kept either");
        // A small call after them is recorded and seen.
        h.record("ls".into(), raw("{}".into()), Outcome::Allowed, &s);
        assert_eq!(h.for_checks(&s).last().unwrap().name, "ls");
    }

    #[test]
    fn the_count_limits_hold() {
        let mut s = settings();
        s.max_history = 3;
        let mut h = History::default();
        for i in 0..(MAX_HISTORY + 10) {
            h.record(format!("c{i}"), raw("{}".into()), Outcome::Allowed, &s);
        }
        assert_eq!(h.len(), MAX_HISTORY);
        let seen: Vec<String> = h.for_checks(&s).into_iter().map(|c| c.name).collect();
        let last = MAX_HISTORY + 9;
        assert_eq!(
            seen,
            [
                format!("c{}", last - 2),
                format!("c{}", last - 1),
                format!("c{last}")
            ]
        );
    }
}
