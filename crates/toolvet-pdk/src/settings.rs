//! Helpers for a check's settings: the path of a setting in error messages
//! ([`Key`]) and a decision named in the settings ([`Action`]).

use crate::Decision;
use serde::Deserialize;
use std::fmt;

/// The path of a setting, for error messages: `Key::new("rules").index(0)
/// .field("tools")` displays as `rules[0].tools`, and
/// [`Key::error`] writes `settings.rules[0].tools: <message>`, the form
/// every check's configuration errors take (the same form the kit gives
/// serde's type errors, see [`crate::Check::from_settings_json`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key(String);

impl Key {
    /// A top-level setting, e.g. `Key::new("deny")`.
    pub fn new(name: &str) -> Self {
        Key(name.to_string())
    }

    /// The `i`-th entry of this list setting: `deny[2]`.
    pub fn index(&self, i: usize) -> Self {
        Key(format!("{}[{i}]", self.0))
    }

    /// A field of this table setting: `loop_detection.tools`.
    pub fn field(&self, name: &str) -> Self {
        Key(format!("{}.{name}", self.0))
    }

    /// The error message for this setting: `settings.<key>: <message>`.
    pub fn error(&self, message: impl fmt::Display) -> String {
        format!("settings.{}: {message}", self.0)
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A decision named in the settings, e.g. `action = "escalate"` or
/// `actions = { drop = "deny", alter = "allow" }`.
///
/// Written in lower case. The order is the severity order of
/// [`Decision::severity`]: `abstain < allow < escalate < deny`, so `max`
/// keeps the stronger of two actions. A setting that accepts only some of
/// them checks with [`Action::one_of`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// No opinion (not reported).
    Abstain,
    /// Let the call run (a finding with this action is not reported).
    Allow,
    /// A person must approve the call first.
    Escalate,
    /// Refuse the call; the model reads the reason.
    Deny,
}

impl Action {
    /// The name as written in settings.
    pub fn name(self) -> &'static str {
        match self {
            Action::Abstain => "abstain",
            Action::Allow => "allow",
            Action::Escalate => "escalate",
            Action::Deny => "deny",
        }
    }

    /// The decision this action gives for a finding with `rule` and
    /// `message`: deny or escalate with them; allow and abstain as they are
    /// (the message is dropped).
    pub fn decide(self, rule: &str, message: impl Into<String>) -> Decision {
        match self {
            Action::Abstain => Decision::Abstain,
            Action::Allow => Decision::Allow,
            Action::Escalate => Decision::escalate(rule, message),
            Action::Deny => Decision::deny(rule, message),
        }
    }

    /// Whether this action stops the call (deny or escalate).
    pub fn stops(self) -> bool {
        matches!(self, Action::Escalate | Action::Deny)
    }

    /// This action if it is one of `allowed`, for setting `key`.
    ///
    /// # Errors
    /// `settings.<key>: must be "deny" or "escalate", not "allow"`.
    pub fn one_of(self, allowed: &[Action], key: &Key) -> Result<Action, String> {
        if allowed.contains(&self) {
            return Ok(self);
        }
        let names: Vec<String> = allowed
            .iter()
            .map(|a| format!("\"{}\"", a.name()))
            .collect();
        let list = match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => names.join(""),
        };
        Err(key.error(format!("must be {list}, not \"{}\"", self.name())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys() {
        let k = Key::new("rules").index(0).field("tools");
        assert_eq!(k.to_string(), "rules[0].tools");
        assert_eq!(k.error("empty"), "settings.rules[0].tools: empty");
    }

    #[test]
    fn actions() {
        let a: Action = serde_json::from_str("\"escalate\"").unwrap();
        assert_eq!(a, Action::Escalate);
        assert!(serde_json::from_str::<Action>("\"block\"").is_err());
        assert!(Action::Deny > Action::Escalate && Action::Escalate > Action::Allow);
        assert!(Action::Allow > Action::Abstain);
        assert_eq!(Action::Deny.decide("x.y", "m").rule(), Some("x.y"));
        assert_eq!(Action::Allow.decide("x.y", "m"), Decision::Allow);
        assert_eq!(Action::Abstain.decide("x.y", "m"), Decision::Abstain);
        let e = Action::Allow
            .one_of(&[Action::Deny, Action::Escalate], &Key::new("action"))
            .unwrap_err();
        assert_eq!(
            e,
            "settings.action: must be \"deny\" or \"escalate\", not \"allow\""
        );
        let e = Action::Abstain
            .one_of(
                &[Action::Allow, Action::Escalate, Action::Deny],
                &Key::new("a"),
            )
            .unwrap_err();
        assert_eq!(
            e,
            "settings.a: must be \"allow\", \"escalate\" or \"deny\", not \"abstain\""
        );
        assert!(Action::Escalate.stops() && !Action::Allow.stops());
    }
}
