//! `pii-guard`: personal data (email addresses, phone numbers, payment card
//! numbers, IBANs, US Social Security numbers, UK National Insurance
//! numbers) in the arguments of outbound tools (email, messaging, HTTP,
//! posting, uploads, publishing, webhooks).
//!
//! Every string value of the arguments is scanned ([`detect`]), except the
//! recipient fields (`ignore_args`, e.g. `to`). Each kind has its own action
//! (`actions`). Messages name the kind and the argument path and show the
//! value masked, never in full.

pub mod detect;

use detect::{Detectors, Kind, RESERVED_DOMAINS, mask};
use serde::Deserialize;
use serde_json::Value;
use toolvet_pdk::json::{Step, walk};
use toolvet_pdk::{
    Check, CheckResult, Context, Decision, Globs, Key, PluginInfo, ToolCall, ToolInfo,
};

pub use toolvet_pdk::json::child_path;

/// What to do about a kind of finding: `allow` (not reported), `escalate`
/// or `deny` (the kit's [`Action`]).
pub use toolvet_pdk::Action;

/// Per-kind actions.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Actions {
    /// Email addresses. Default `allow` (addresses are everywhere in
    /// outbound mail: signatures, quoted replies).
    pub email: Action,
    /// Phone numbers. Default `escalate`.
    pub phone: Action,
    /// Payment card numbers. Default `deny`.
    pub card: Action,
    /// IBANs. Default `deny`.
    pub iban: Action,
    /// US Social Security numbers. Default `deny`.
    pub ssn: Action,
    /// UK National Insurance numbers. Default `escalate`.
    pub nino: Action,
}

impl Default for Actions {
    fn default() -> Self {
        Self {
            email: Action::Allow,
            phone: Action::Escalate,
            card: Action::Deny,
            iban: Action::Deny,
            ssn: Action::Deny,
            nino: Action::Escalate,
        }
    }
}

impl Actions {
    /// The action for a kind.
    pub fn get(&self, kind: Kind) -> Action {
        match kind {
            Kind::Email => self.email,
            Kind::Phone => self.phone,
            Kind::Card => self.card,
            Kind::Iban => self.iban,
            Kind::Ssn => self.ssn,
            Kind::Nino => self.nino,
        }
    }
}

/// Default tool globs: email, messaging, HTTP, posting, uploads,
/// publishing and webhooks.
pub const DEFAULT_TOOLS: &[&str] = &[
    "*email*",
    "*mail",
    "*message*",
    "send*",
    "http*",
    "fetch",
    "web_fetch",
    "curl",
    "*post*",
    "upload*",
    "publish*",
    "*webhook*",
    "slack*",
    "discord*",
    "sms*",
    "tweet*",
    "notify*",
    "*comment*",
    "create_issue",
    "share*",
];

/// The check's settings (`[check.settings]`). Every key is optional.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    /// Action per kind: `allow`, `escalate` or `deny`.
    pub actions: Actions,
    /// Email domains that are not personal data here (e.g. the company's
    /// own): `acme.com` covers `acme.com` and its subdomains.
    pub allowed_domains: Vec<String>,
    /// Argument names (globs, case-insensitive, any depth) whose values are
    /// not scanned: the recipients of the message.
    pub ignore_args: Vec<String>,
    /// Skip the processors' published test card numbers (`4242 4242 4242
    /// 4242`, ...). Default `true`.
    pub ignore_test_cards: bool,
    /// Skip addresses at documentation domains (`example.com`, `.test`, ...;
    /// RFC 2606, RFC 6761). Default `true`.
    pub ignore_reserved_domains: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            actions: Actions::default(),
            allowed_domains: Vec::new(),
            ignore_args: [
                "to",
                "cc",
                "bcc",
                "from",
                "reply_to",
                "reply-to",
                "sender",
                "recipient",
                "recipients",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
            ignore_test_cards: true,
            ignore_reserved_domains: true,
        }
    }
}

/// One item of personal data found in the arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What it is.
    pub kind: Kind,
    /// Where, e.g. `arguments.body`.
    pub path: String,
    /// The value masked ([`mask`]).
    pub masked: String,
}

/// The configured check.
pub struct PiiGuard {
    detectors: Detectors,
    actions: Actions,
    allowed_domains: Vec<String>,
    ignore_args: Globs,
}

fn within(domain: &str, allowed: &str) -> bool {
    domain == allowed
        || domain
            .strip_suffix(allowed)
            .is_some_and(|p| p.ends_with('.'))
}

impl PiiGuard {
    /// Every item of personal data in the arguments outside `ignore_args`,
    /// in document order, one per (kind, path, value); emails at allowed
    /// or reserved domains are left out.
    pub fn find(&self, args: &Value) -> Vec<Finding> {
        let mut out = Vec::new();
        self.walk(args, "arguments", &mut out);
        out
    }

    fn walk(&self, v: &Value, root: &str, out: &mut Vec<Finding>) {
        walk(v, root, &mut |n| {
            // A recipient field (and everything in it) is where the data
            // goes, not data about someone.
            if n.depth > 0 && self.ignore_args.is_match(n.key) {
                return Step::Skip;
            }
            let Value::String(s) = n.value else {
                return Step::Descend;
            };
            for hit in self.detectors.scan(s) {
                if hit.kind == Kind::Email {
                    let domain = hit
                        .text
                        .rsplit('@')
                        .next()
                        .unwrap_or("")
                        .to_ascii_lowercase();
                    if self.allowed_domains.iter().any(|d| within(&domain, d)) {
                        continue;
                    }
                }
                let f = Finding {
                    kind: hit.kind,
                    path: n.path.to_string(),
                    masked: mask(hit.kind, &hit.text),
                };
                if !out.contains(&f) {
                    out.push(f);
                }
            }
            Step::Descend
        });
    }
}

impl Check for PiiGuard {
    type Settings = Settings;

    fn info() -> PluginInfo {
        PluginInfo::new(
            "pii-guard",
            env!("CARGO_PKG_VERSION"),
            "Personal data (emails, phones, card numbers, IBANs, SSNs) in outbound tool arguments",
        )
        .tools(DEFAULT_TOOLS)
    }

    fn new(s: Settings) -> Result<Self, String> {
        let mut allowed_domains = Vec::new();
        for (i, d) in s.allowed_domains.iter().enumerate() {
            let d = d
                .trim()
                .trim_start_matches("*.")
                .trim_start_matches('@')
                .trim_end_matches('.')
                .to_ascii_lowercase();
            if d.is_empty()
                || !d.contains('.') && d != "localhost"
                || d.contains(['@', '/', ' ', '*'])
            {
                return Err(format!(
                    "settings.allowed_domains[{i}]: `{}` is not a domain (write e.g. `acme.com`)",
                    s.allowed_domains[i]
                ));
            }
            allowed_domains.push(d);
        }
        if s.ignore_reserved_domains {
            allowed_domains.extend(RESERVED_DOMAINS.iter().map(|d| d.to_string()));
        }
        for kind in Kind::ALL {
            s.actions.get(kind).one_of(
                &[Action::Allow, Action::Escalate, Action::Deny],
                &Key::new("actions").field(kind.id()),
            )?;
        }
        Ok(Self {
            detectors: Detectors::new(s.ignore_test_cards),
            actions: s.actions,
            allowed_domains,
            ignore_args: Globs::compile(&s.ignore_args, &Key::new("ignore_args"))?,
        })
    }

    fn check(&self, call: &ToolCall, _tool: &ToolInfo, _ctx: &Context) -> CheckResult {
        Ok(self.vet(call))
    }
}

impl PiiGuard {
    /// The decision on one call.
    pub fn vet(&self, call: &ToolCall) -> Decision {
        let mut ranked: Vec<(Action, Finding)> = self
            .find(call.json())
            .into_iter()
            .map(|f| (self.actions.get(f.kind), f))
            .filter(|(a, _)| *a != Action::Allow)
            .collect();
        if ranked.is_empty() {
            return Decision::Abstain;
        }
        ranked.sort_by_key(|(a, f)| (std::cmp::Reverse(*a), f.kind));
        let (action, top) = &ranked[0];
        let mut message = format!("Found {} ({}) in `{}`", top.kind, top.masked, top.path);
        let others: Vec<String> = ranked[1..]
            .iter()
            .take(3)
            .map(|(_, f)| format!("{} in `{}`", f.kind, f.path))
            .collect();
        if !others.is_empty() {
            message.push_str(&format!(" (also {})", others.join("; ")));
        }
        message.push_str(&format!(", and `{}` sends it outside. ", call.name));
        let rule = format!("pii.{}", top.kind.id());
        match action {
            Action::Deny => {
                message.push_str("Personal data must not be sent with this tool: remove it, or replace it with a masked form or a reference (e.g. a customer id).");
                Decision::deny(&rule, message)
            }
            _ => {
                message.push_str("A person must confirm that sending it is intended.");
                Decision::escalate(&rule, message)
            }
        }
    }
}

toolvet_pdk::export_check!(PiiGuard);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(settings: &str, args: Value) -> Decision {
        let g = PiiGuard::from_settings_json(settings).unwrap();
        g.decide(
            &ToolCall::new("send_email", args.to_string()),
            &ToolInfo::default(),
            &Context::default(),
        )
    }

    fn outcome(d: &Decision) -> String {
        format!("{} {}", d.kind(), d.rule().unwrap_or("-"))
    }

    #[test]
    fn card_denied_and_masked() {
        let d = run(
            "{}",
            json!({"to": "bob@client.org", "body": "Card: 4539 5787 6362 1486"}),
        );
        assert_eq!(outcome(&d), "deny pii.card");
        let Decision::Deny(r) = d else { unreachable!() };
        assert!(r.message.contains("`arguments.body`"), "{}", r.message);
        assert!(r.message.contains("•••• 1486"), "{}", r.message);
        assert!(!r.message.contains("4539"), "{}", r.message);
    }

    #[test]
    fn recipients_and_defaults() {
        // Recipients are not findings; emails are allowed by default.
        assert_eq!(
            outcome(&run(
                "{}",
                json!({"to": "+44 20 7946 0958", "body": "hi, mail jane@gmail.com"})
            )),
            "abstain -"
        );
        let s = r#"{"actions":{"email":"escalate"},"allowed_domains":["acme.com"]}"#;
        assert_eq!(
            outcome(&run(s, json!({"body": "ask ops@eu.acme.com"}))),
            "abstain -"
        );
        assert_eq!(
            outcome(&run(s, json!({"body": "ask jane@gmail.com"}))),
            "escalate pii.email"
        );
        assert_eq!(
            outcome(&run(s, json!({"body": "see jane@example.com"}))),
            "abstain -"
        );
        assert_eq!(
            outcome(&run("{}", json!({"body": "call +44 20 7946 0958"}))),
            "escalate pii.phone"
        );
    }

    #[test]
    fn strongest_kind_wins() {
        let d = run(
            "{}",
            json!({"body": "call +44 20 7946 0958", "note": "SSN 536-90-4399"}),
        );
        assert_eq!(outcome(&d), "deny pii.ssn");
        let Decision::Deny(r) = d else { unreachable!() };
        assert!(
            r.message
                .contains("also a phone number in `arguments.body`"),
            "{}",
            r.message
        );
    }

    #[test]
    fn settings_errors_name_the_key() {
        let err = |s: &str| PiiGuard::from_settings_json(s).err().unwrap();
        assert!(err(r#"{"actions":{"card":"block"}}"#).starts_with("settings.actions.card"));
        assert!(err(r#"{"actions":{"passport":"deny"}}"#).starts_with("settings.actions"));
        assert!(
            err(r#"{"allowed_domains":["not a domain"]}"#)
                .starts_with("settings.allowed_domains[0]")
        );
        assert!(err(r#"{"ignore_args":["["]}"#).starts_with("settings.ignore_args[0]"));
    }
}
