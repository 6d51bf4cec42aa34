//! Property tests of `verdict::combine` (deny-overrides) against a small
//! reference model written here, over random sets of check outcomes:
//! answers, failures with each `on_error`, enforce and monitor modes, and
//! every default decision.

use proptest::prelude::*;
use toolvet::{
    Decision, Verdict, config::Combine, config::DefaultDecision, config::Mode, config::OnError,
    verdict::CheckDecision, verdict::CheckError, verdict::CheckOutcome, verdict::ErrorKind,
};

fn combine(outcomes: Vec<CheckOutcome>, default: DefaultDecision, duration_us: u64) -> Verdict {
    toolvet::verdict::combine(Combine::DenyOverrides, outcomes, default, duration_us)
}

/// What one check did, before the host turns it into an outcome.
#[derive(Debug, Clone)]
enum Run {
    /// The check answered.
    Answered(CheckDecision),
    /// The check failed; its `on_error` stands in (`allow` is recorded as
    /// an abstention, as the host does).
    Failed { kind: ErrorKind, on_error: OnError },
}

#[derive(Debug, Clone)]
struct Spec {
    mode: Mode,
    run: Run,
}

impl Spec {
    /// The decision the outcome carries.
    fn decision(&self) -> CheckDecision {
        match &self.run {
            Run::Answered(d) => *d,
            Run::Failed {
                on_error: OnError::Allow,
                ..
            } => CheckDecision::Abstain,
            Run::Failed { on_error, .. } => CheckDecision::from(*on_error),
        }
    }

    fn failed_with(&self) -> Option<OnError> {
        match &self.run {
            Run::Failed { on_error, .. } => Some(*on_error),
            Run::Answered(_) => None,
        }
    }

    /// The outcome as the host builds it: failures carry the error and the
    /// `toolvet.<kind>` rule.
    fn outcome(&self, index: usize) -> CheckOutcome {
        let decision = self.decision();
        let (rule, reason, error) = match &self.run {
            Run::Answered(d @ (CheckDecision::Deny | CheckDecision::Escalate)) => (
                Some(format!("c{index}.rule")),
                Some(format!("c{index} says {d}")),
                None,
            ),
            Run::Answered(_) => (None, None, None),
            Run::Failed { kind, .. } => (
                Some(format!("toolvet.{}", kind.as_str())),
                Some(format!("check `c{index}` failed: {}", kind.as_str())),
                Some(CheckError {
                    kind: *kind,
                    message: format!("c{index} {}", kind.as_str()),
                }),
            ),
        };
        CheckOutcome {
            check: format!("c{index}"),
            mode: self.mode,
            decision,
            rule,
            reason,
            duration_us: index as u64,
            error,
        }
    }
}

/// The reference: deny-overrides over the enforced outcomes.
fn reference(specs: &[Spec], default: DefaultDecision) -> Decision {
    let enforced: Vec<CheckDecision> = specs
        .iter()
        .filter(|s| s.mode == Mode::Enforce)
        .map(Spec::decision)
        .collect();
    if enforced.contains(&CheckDecision::Deny) {
        Decision::Deny
    } else if enforced.contains(&CheckDecision::Escalate) {
        Decision::Escalate
    } else if enforced.contains(&CheckDecision::Allow) {
        Decision::Allow
    } else {
        Decision::from(default)
    }
}

fn run_combine(specs: &[Spec], default: DefaultDecision) -> Verdict {
    let outcomes = specs
        .iter()
        .enumerate()
        .map(|(i, s)| s.outcome(i))
        .collect();
    combine(outcomes, default, 0)
}

fn decision() -> impl Strategy<Value = CheckDecision> {
    prop_oneof![
        Just(CheckDecision::Allow),
        Just(CheckDecision::Abstain),
        Just(CheckDecision::Deny),
        Just(CheckDecision::Escalate)
    ]
}

fn on_error() -> impl Strategy<Value = OnError> {
    prop_oneof![
        Just(OnError::Deny),
        Just(OnError::Escalate),
        Just(OnError::Allow)
    ]
}

fn kind() -> impl Strategy<Value = ErrorKind> {
    prop_oneof![
        Just(ErrorKind::Timeout),
        Just(ErrorKind::OutOfMemory),
        Just(ErrorKind::Trap),
        Just(ErrorKind::OversizedResult),
        Just(ErrorKind::MalformedResult),
        Just(ErrorKind::LoadFailed),
        Just(ErrorKind::Overloaded),
    ]
}

fn run() -> impl Strategy<Value = Run> {
    prop_oneof![
        3 => decision().prop_map(Run::Answered),
        1 => (kind(), on_error()).prop_map(|(kind, on_error)| Run::Failed { kind, on_error }),
    ]
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        prop_oneof![3 => Just(Mode::Enforce), 1 => Just(Mode::Monitor)],
        run(),
    )
        .prop_map(|(mode, run)| Spec { mode, run })
}

fn default_decision() -> impl Strategy<Value = DefaultDecision> {
    prop_oneof![
        Just(DefaultDecision::Allow),
        Just(DefaultDecision::Deny),
        Just(DefaultDecision::Escalate)
    ]
}

fn specs() -> impl Strategy<Value = Vec<Spec>> {
    prop::collection::vec(spec(), 0..10)
}

proptest! {
    // No regression files: a failure prints its minimal input.
    #![proptest_config(ProptestConfig {
        cases: 2000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn combine_matches_the_reference(specs in specs(), default in default_decision()) {
        let v = run_combine(&specs, default);
        prop_assert_eq!(v.decision, reference(&specs, default));
        prop_assert_eq!(v.checks.len(), specs.len(), "every outcome is kept");
        for (i, o) in v.checks.iter().enumerate() {
            prop_assert_eq!(&o.check, &format!("c{i}"), "in the given order");
        }
    }

    #[test]
    fn any_enforced_deny_denies(mut specs in specs(), default in default_decision(), at in any::<prop::sample::Index>(), failed in any::<bool>()) {
        let deny = if failed {
            Run::Failed { kind: ErrorKind::Trap, on_error: OnError::Deny }
        } else {
            Run::Answered(CheckDecision::Deny)
        };
        let i = at.index(specs.len() + 1);
        specs.insert(i, Spec { mode: Mode::Enforce, run: deny });
        let v = run_combine(&specs, default);
        prop_assert_eq!(v.decision, Decision::Deny);
        let by = v.decided_by.clone().unwrap();
        let decider = v.checks.iter().find(|o| o.check == by).unwrap();
        prop_assert_eq!(decider.decision, CheckDecision::Deny);
        prop_assert_eq!(decider.mode, Mode::Enforce);
    }

    #[test]
    fn adding_an_allowing_check_never_turns_deny_or_escalate_into_allow(
        specs in specs(), default in default_decision(), mode_enforce in any::<bool>()
    ) {
        let v = run_combine(&specs, default);
        let before = v.decision;
        let mut more = specs.clone();
        more.push(Spec {
            mode: if mode_enforce { Mode::Enforce } else { Mode::Monitor },
            run: Run::Answered(CheckDecision::Allow),
        });
        let after = run_combine(&more, default).decision;
        // A deny or escalate that a check decided stays. (`default_decision`
        // is the answer when no check had an opinion: an allowing check is
        // an opinion, so it replaces a default deny; that is the
        // allow-list reading of `default_decision = "deny"`.)
        if matches!(before, Decision::Deny | Decision::Escalate) && v.decided_by.is_some() {
            prop_assert_eq!(after, before);
        }
        if v.decided_by.is_none() && mode_enforce {
            prop_assert_eq!(after, Decision::Allow);
        }
        // And an abstaining check changes nothing at all.
        let mut abstain = specs.clone();
        abstain.push(Spec { mode: Mode::Enforce, run: Run::Answered(CheckDecision::Abstain) });
        prop_assert_eq!(run_combine(&abstain, default).decision, before);
    }

    #[test]
    fn a_failure_allows_only_when_its_on_error_is_allow(specs in specs(), default in default_decision()) {
        let v = run_combine(&specs, default);
        let enforced_failures: Vec<OnError> = specs
            .iter()
            .filter(|s| s.mode == Mode::Enforce)
            .filter_map(Spec::failed_with)
            .collect();
        if v.decision == Decision::Allow {
            prop_assert!(
                enforced_failures.iter().all(|e| *e == OnError::Allow),
                "allowed although a failed check has on_error {:?}", enforced_failures
            );
        }
        // If every enforced check failed and none has on_error allow, the
        // verdict is never allow.
        let enforced = specs.iter().filter(|s| s.mode == Mode::Enforce).count();
        if enforced > 0
            && enforced_failures.len() == enforced
            && !enforced_failures.contains(&OnError::Allow)
        {
            prop_assert_ne!(v.decision, Decision::Allow);
        }
        // A failure never decides an allow: with `on_error = allow` it
        // abstains, so the other checks or `default_decision` decide.
        if let Some(by) = &v.decided_by {
            let decider = v.checks.iter().find(|o| &o.check == by).unwrap();
            if v.decision == Decision::Allow {
                prop_assert!(decider.error.is_none(), "{:?}", decider);
            }
        }
        // A deciding failure is recorded as such: its rule is `toolvet.<kind>`.
        if let Some(by) = &v.decided_by {
            let decider = v.checks.iter().find(|o| &o.check == by).unwrap();
            if let Some(e) = &decider.error {
                let expected = format!("toolvet.{}", e.kind.as_str());
                prop_assert_eq!(v.rule.as_deref(), Some(expected.as_str()));
            }
        }
    }

    #[test]
    fn monitors_never_change_the_verdict(
        specs in specs(), default in default_decision(), replacements in prop::collection::vec(run(), 10)
    ) {
        let v = run_combine(&specs, default);
        // Without the monitors: same decision, decider and rule.
        let enforced_only: Vec<CheckOutcome> = specs
            .iter()
            .enumerate()
            .filter(|(_, s)| s.mode == Mode::Enforce)
            .map(|(i, s)| s.outcome(i))
            .collect();
        let w = combine(enforced_only, default, 0);
        prop_assert_eq!(v.decision, w.decision);
        prop_assert_eq!(v.rule.as_deref(), w.rule.as_deref());
        prop_assert_eq!(&v.decided_by, &w.decided_by);
        prop_assert_eq!(&v.reason, &w.reason);
        // With every monitor doing something else: same again.
        let mut changed = specs.clone();
        for (s, r) in changed.iter_mut().zip(replacements) {
            if s.mode == Mode::Monitor {
                s.run = r;
            }
        }
        let x = run_combine(&changed, default);
        prop_assert_eq!(v.decision, x.decision);
        prop_assert_eq!(v.decided_by, x.decided_by);
        prop_assert_eq!(v.rule, x.rule);
        prop_assert_eq!(v.reason, x.reason);
    }

    #[test]
    fn order_of_checks_does_not_change_the_decision(
        (specs, shuffled) in specs().prop_flat_map(|s| {
            let indexed: Vec<(usize, Spec)> = s.iter().cloned().enumerate().collect();
            (Just(s), Just(indexed).prop_shuffle())
        }),
        default in default_decision()
    ) {
        let v = run_combine(&specs, default);
        // Keep each check's name (its index in `specs`) across the shuffle.
        let outcomes: Vec<CheckOutcome> = shuffled.iter().map(|(i, s)| s.outcome(*i)).collect();
        let w = combine(outcomes, default, 0);
        prop_assert_eq!(v.decision, w.decision);
        // The deciding set is the same; only which member is named first may differ.
        let deciders = |v: &Verdict| {
            let mut names: Vec<String> = v
                .checks
                .iter()
                .filter(|o| o.mode == Mode::Enforce && o.decision == CheckDecision::from(v.decision))
                .map(|o| o.check.clone())
                .collect();
            names.sort();
            names
        };
        if v.decided_by.is_some() {
            prop_assert_eq!(deciders(&v), deciders(&w));
            prop_assert!(deciders(&w).contains(w.decided_by.as_ref().unwrap()));
        } else {
            prop_assert_eq!(w.decided_by, None);
        }
        let mut reasons_v: Vec<String> =
            v.reason.iter().flat_map(|r| r.split("; ").map(str::to_string)).collect();
        let mut reasons_w: Vec<String> =
            w.reason.iter().flat_map(|r| r.split("; ").map(str::to_string)).collect();
        reasons_v.sort();
        reasons_w.sort();
        prop_assert_eq!(reasons_v, reasons_w);
    }

    #[test]
    fn decided_by_names_an_enforced_check_with_the_verdicts_decision(specs in specs(), default in default_decision()) {
        let v = run_combine(&specs, default);
        match &v.decided_by {
            Some(by) => {
                let decider = v.checks.iter().find(|o| &o.check == by).unwrap();
                prop_assert_eq!(decider.mode, Mode::Enforce);
                prop_assert_eq!(decider.decision, CheckDecision::from(v.decision));
                prop_assert_eq!(&decider.rule, &v.rule);
                // Deny and escalate always come with a reason for the model
                // or the approver.
                if v.decision != Decision::Allow {
                    prop_assert!(v.reason.is_some());
                }
            }
            None => {
                prop_assert_eq!(v.decision, Decision::from(default));
                prop_assert!(specs
                    .iter()
                    .filter(|s| s.mode == Mode::Enforce)
                    .all(|s| s.decision() == CheckDecision::Abstain));
                prop_assert_eq!(v.rule, None);
            }
        }
    }
}
