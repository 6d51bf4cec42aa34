//! A session's earlier calls, as the checks see them, fitted by the
//! core's one rule ([`toolvet::history_fit`]) so that no call, however
//! large, makes the session's later calls too large to vet, and none
//! pushes earlier calls out.
//!
//! The host refuses a call whose whole text (arguments, tool info, context
//! and history) is over `max_call_bytes`, and keeps `max_history` entries.
//! A history kept by dropping its oldest entries let five ~950 kB calls
//! (denied ones too) flush every earlier call, and with it spend-guard's
//! run totals and the session's symbolic links. Now every entry keeps its
//! name, outcome and small arguments: large arguments are elided oldest
//! first (marked `toolvet.elided`), both in what is kept and in what the
//! checks are handed, within half of `max_call_bytes` and `max_history`
//! entries. A session whose history cannot fit even so is over: every
//! later call is refused naming the limit
//! ([`toolvet::history_fit::OVERFLOW_RULE`]), and nothing more is kept.

use serde_json::value::RawValue;
use std::collections::VecDeque;
use toolvet::history_fit::{HistoryBudget, HistoryOverflow};
use toolvet::{HostSettings, Outcome, PriorCall};

/// The most earlier calls a session keeps: the largest `[host]
/// max_history` a policy may set. A session whose calls are more than its
/// policy's `max_history` is refused from then on.
pub const MAX_HISTORY: usize = 100_000;

/// A session's calls, oldest first, each with its sequence number (a
/// forwarded call is in it from the moment it is forwarded, and its
/// outcome is set once its answer comes).
#[derive(Default)]
pub(crate) struct History {
    entries: VecDeque<(u64, PriorCall)>,
    next_seq: u64,
    /// Set once the history could not be fitted: the session is over.
    overflow: Option<HistoryOverflow>,
}

/// The budget of the history under `settings`
/// ([`HistoryBudget::for_checks`]).
pub(crate) fn budget(settings: &HostSettings) -> HistoryBudget {
    let mut budget = HistoryBudget::for_checks(settings);
    budget.max_entries = budget.max_entries.min(MAX_HISTORY);
    budget
}

impl History {
    /// Add a call; returns its sequence number. Arguments over the host's
    /// `max_arguments_bytes` (refused by the host anyway) are kept elided;
    /// then the history is fitted into [`budget`] (larger arguments elided,
    /// oldest first). When it cannot be, the session's history is over
    /// ([`History::for_checks`] refuses from then on) and nothing more is
    /// kept.
    pub(crate) fn record(
        &mut self,
        name: String,
        arguments: Box<RawValue>,
        outcome: Outcome,
        settings: &HostSettings,
    ) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        if self.overflow.is_some() {
            return seq;
        }
        let budget = budget(settings);
        let arguments =
            if arguments.get().len() > settings.max_arguments_bytes.min(budget.max_bytes) {
                toolvet::history_fit::elide(&arguments, budget.keep_whole_bytes)
            } else {
                arguments
            };
        self.entries.push_back((
            seq,
            PriorCall {
                name,
                arguments,
                outcome,
            },
        ));
        if let Err(overflow) = budget.fit_mut(self.entries.iter_mut().map(|(_, call)| call)) {
            tracing::warn!("the session's history is over: {overflow}");
            self.entries.clear();
            self.overflow = Some(overflow);
        }
        seq
    }

    /// Record that the call `seq`, recorded as passed, never reached the
    /// server, so did not run: its outcome becomes [`Outcome::Denied`].
    /// The only change of an outcome once recorded. A call that reached
    /// the server keeps the gate's verdict whatever the server answers
    /// (an error, `isError: true`) or if it never answers: the tool may
    /// have acted before it failed, and a run total or `max_calls` limit
    /// that forgot it would let the next call past (review s7 F7).
    pub(crate) fn not_sent(&mut self, seq: u64) {
        if let Some((_, call)) = self.entries.iter_mut().find(|(s, _)| *s == seq) {
            call.outcome = Outcome::Denied;
        }
    }

    /// The calls the checks see, oldest first: every one kept, fitted into
    /// [`budget`] (the settings may have changed since they were
    /// recorded).
    ///
    /// # Errors
    /// [`HistoryOverflow`] (its text names the limit) when the history
    /// could not be fitted, now or at an earlier call: the caller refuses
    /// the call rather than vet it with earlier calls left out.
    pub(crate) fn for_checks(
        &self,
        settings: &HostSettings,
    ) -> Result<Vec<PriorCall>, HistoryOverflow> {
        if let Some(overflow) = &self.overflow {
            return Err(overflow.clone());
        }
        let entries: Vec<PriorCall> = self.entries.iter().map(|(_, c)| c.clone()).collect();
        budget(settings).fit(&entries)
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
    use toolvet::history_fit::{ELIDED_KEY, is_elided};

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
        // 9 MB of arguments: kept elided, name, outcome and small values
        // kept.
        let huge = format!(r#"{{"path":"b","text":"{}"}}"#, "x".repeat(9 << 20));
        h.record("write".into(), raw(huge), Outcome::Denied, &s);
        let seen = h.for_checks(&s).unwrap();
        assert_eq!(seen.len(), 2);
        assert_eq!(seen[1].name, "write");
        let args: serde_json::Value = serde_json::from_str(seen[1].arguments.get()).unwrap();
        assert_eq!(args["path"], "b");
        assert!(args[ELIDED_KEY].is_object(), "{args}");
        assert_eq!(seen[1].outcome, Outcome::Denied);
        let bytes: usize = seen.iter().map(HistoryBudget::entry_bytes).sum();
        assert!(bytes <= budget(&s).max_bytes, "{bytes}");
    }

    /// Fifth review F3 through `toolvet mcp`: 21 payments, then five
    /// ~950 kB calls (denied), flushed every payment out of what the
    /// checks saw, and spend-guard's run total restarted from zero.
    #[test]
    fn large_calls_never_push_earlier_calls_out() {
        let s = settings();
        let mut h = History::default();
        for i in 0..21 {
            h.record(
                "pay_invoice".into(),
                raw(format!(r#"{{"amount":{},"currency":"USD"}}"#, 90 + i % 10)),
                Outcome::Allowed,
                &s,
            );
        }
        let big = format!(
            r#"{{"path":"big.txt","content":"{}"}}"#,
            "A".repeat(950_000)
        );
        for _ in 0..5 {
            h.record("write_file".into(), raw(big.clone()), Outcome::Denied, &s);
        }
        let seen = h.for_checks(&s).unwrap();
        assert_eq!(seen.len(), 26, "no call dropped");
        let payments: Vec<&str> = seen
            .iter()
            .filter(|c| c.name == "pay_invoice" && c.outcome == Outcome::Allowed)
            .map(|c| c.arguments.get())
            .collect();
        assert_eq!(payments.len(), 21);
        assert_eq!(payments[0], r#"{"amount":90,"currency":"USD"}"#);
        let bytes: usize = seen.iter().map(HistoryBudget::entry_bytes).sum();
        assert!(bytes <= budget(&s).max_bytes, "{bytes}");
        // The oldest big ones were elided, the newest kept whole.
        assert!(is_elided(&seen[21].arguments));
        assert_eq!(seen[25].arguments.get(), big);
        // A small call after them is recorded and seen, the payments too.
        h.record("ls".into(), raw("{}".into()), Outcome::Allowed, &s);
        let seen = h.for_checks(&s).unwrap();
        assert_eq!(seen.len(), 27);
        assert_eq!(seen[0].name, "pay_invoice");
    }

    /// Review s7 F7: only a call that never reached the server becomes
    /// denied; the others keep the gate's outcome.
    #[test]
    fn only_a_call_never_sent_becomes_denied() {
        let s = settings();
        let mut h = History::default();
        let pay = |h: &mut History, outcome| {
            h.record(
                "pay_invoice".into(),
                raw(r#"{"amount":99,"currency":"USD"}"#.into()),
                outcome,
                &s,
            )
        };
        let sent = pay(&mut h, Outcome::Allowed);
        let unsent = pay(&mut h, Outcome::Approved);
        let third = pay(&mut h, Outcome::Approved);
        h.not_sent(unsent);
        let outcomes: Vec<Outcome> = h
            .for_checks(&s)
            .unwrap()
            .iter()
            .map(|c| c.outcome)
            .collect();
        assert_eq!(
            outcomes,
            [Outcome::Allowed, Outcome::Denied, Outcome::Approved]
        );
        assert!(sent < unsent && unsent < third);
    }

    #[test]
    fn past_max_history_the_session_is_refused_never_reset() {
        let mut s = settings();
        s.max_history = 3;
        let mut h = History::default();
        for i in 0..3 {
            h.record(format!("c{i}"), raw("{}".into()), Outcome::Allowed, &s);
        }
        assert_eq!(h.for_checks(&s).unwrap().len(), 3);
        h.record("c3".into(), raw("{}".into()), Outcome::Allowed, &s);
        let e = h.for_checks(&s).unwrap_err().to_string();
        assert!(
            e.contains("max_history") && e.contains("4 earlier calls"),
            "{e}"
        );
        // And stays so: nothing more is kept.
        h.record("c4".into(), raw("{}".into()), Outcome::Allowed, &s);
        assert!(h.for_checks(&s).is_err());
        assert_eq!(h.len(), 0);
        // A policy with a smaller max_history than what was kept.
        let mut h = History::default();
        for i in 0..3 {
            h.record(format!("c{i}"), raw("{}".into()), Outcome::Allowed, &s);
        }
        s.max_history = 2;
        assert!(h.for_checks(&s).is_err());
    }
}
