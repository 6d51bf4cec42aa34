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
pub mod ids;

use detect::{Detectors, Kind, RESERVED_DOMAINS, mask};
use serde::Deserialize;
use serde_json::Value;
use toolvet_pdk::json::{Step, walk};
use toolvet_pdk::{
    Check, CheckResult, Context, Decision, Effects, Globs, Key, PluginInfo, ToolCall, ToolInfo,
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
    /// National identity numbers (DNI/NIE, CPF, codice fiscale, Chinese
    /// resident id, Aadhaar). Default `deny`.
    pub national_id: Action,
    /// Passport numbers and machine-readable zones. Default `deny`.
    pub passport: Action,
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
            national_id: Action::Deny,
            passport: Action::Deny,
        }
    }
}

impl Actions {
    /// The action for a kind.
    pub fn get(&self, kind: Kind) -> Action {
        match kind {
            Kind::Email => self.email,
            Kind::NationalId => self.national_id,
            Kind::Passport => self.passport,
            Kind::Phone => self.phone,
            Kind::Card => self.card,
            Kind::Iban => self.iban,
            Kind::Ssn => self.ssn,
            Kind::Nino => self.nino,
        }
    }
}

/// Default `outbound_tools`: email, messaging, HTTP, posting, uploads,
/// publishing, webhooks, issues and tickets (matched anywhere in the name,
/// so MCP-prefixed names are covered).
pub const DEFAULT_TOOLS: &[&str] = &[
    "*email*",
    "*mail",
    "*message*",
    "*send*",
    "http*",
    "*fetch*",
    "curl",
    "*post*",
    "*upload*",
    "*publish*",
    "*webhook*",
    "*slack*",
    "*discord*",
    "*teams*",
    "*sms*",
    "*tweet*",
    "*notify*",
    "*comment*",
    "*issue*",
    "*ticket*",
    "*share*",
    "*chat*",
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
    /// Tool-name globs of outbound tools. The check applies to every tool
    /// (`describe` says `*`): a call is outbound when its tool matches
    /// these, when an argument addresses it to someone (`to`, `channel`),
    /// publishes a text in a place (`body` with `repo`), or is an http(s)
    /// URL. Other calls get abstain.
    pub outbound_tools: Vec<String>,
    /// This many items of personal data (any kind, emails included) in one
    /// call is a bulk export (`pii.bulk`, `bulk_action`), unless every
    /// recipient and URL host is at `allowed_domains`. Default 10.
    pub bulk_threshold: usize,
    /// What a bulk export gets: `deny` (default), `escalate` or `allow`.
    pub bulk_action: Action,
    /// Treat the call's principal's e-mail domain (`alice@acme.com` →
    /// `acme.com`) as an allowed domain. Default `true`.
    pub principal_domain: bool,
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
            outbound_tools: DEFAULT_TOOLS.iter().map(|s| s.to_string()).collect(),
            bulk_threshold: 10,
            bulk_action: Action::Deny,
            principal_domain: true,
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
#[derive(Debug)]
pub struct PiiGuard {
    detectors: Detectors,
    actions: Actions,
    allowed_domains: Vec<String>,
    ignore_args: Globs,
    outbound_tools: Globs,
    bulk_threshold: usize,
    bulk_action: Action,
    principal_domain: bool,
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
        self.find_for(args, None, &mut 0)
    }

    /// [`PiiGuard::find`] with `extra` counted as an allowed domain (the
    /// principal's); `items` is set to the number of distinct values found.
    fn find_for(&self, args: &Value, extra: Option<&str>, items: &mut usize) -> Vec<Finding> {
        let mut out = Vec::new();
        let mut seen: Vec<String> = Vec::new();
        self.walk(args, "arguments", extra, &mut out, &mut seen);
        *items = seen.len();
        out
    }

    /// Whether every recipient and URL host of the call is at an allowed
    /// domain (or the principal's): personal data going there stays in the
    /// organisation.
    fn approved_destination(&self, args: &Value, extra: Option<&str>) -> bool {
        let allowed = |d: &str| {
            self.allowed_domains
                .iter()
                .map(String::as_str)
                .chain(extra)
                .any(|a| within(d, a))
        };
        let mut destinations = check_catalog::args::url_hosts(args);
        walk(args, "arguments", &mut |n| {
            if n.depth > 0
                && self.ignore_args.is_match(n.key)
                && let Value::String(s) = n.value
            {
                for part in s.split([',', ';']) {
                    if let Some((_, d)) = part.trim().trim_end_matches('>').rsplit_once('@') {
                        destinations.push(d.to_ascii_lowercase());
                    }
                }
            }
            Step::Descend
        });
        !destinations.is_empty() && destinations.iter().all(|d| allowed(d))
    }

    fn walk(
        &self,
        v: &Value,
        root: &str,
        extra: Option<&str>,
        out: &mut Vec<Finding>,
        seen: &mut Vec<String>,
    ) {
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
                    if self
                        .allowed_domains
                        .iter()
                        .map(String::as_str)
                        .chain(extra)
                        .any(|d| within(&domain, d))
                    {
                        continue;
                    }
                }
                if !seen.contains(&hit.text) {
                    seen.push(hit.text.clone());
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
                &Key::new("actions").field(&kind.id().replace('-', "_")),
            )?;
        }
        Ok(Self {
            detectors: Detectors::new(s.ignore_test_cards),
            actions: s.actions,
            allowed_domains,
            ignore_args: Globs::compile(&s.ignore_args, &Key::new("ignore_args"))?,
            outbound_tools: Globs::compile(&s.outbound_tools, &Key::new("outbound_tools"))?,
            bulk_threshold: if s.bulk_threshold >= 2 {
                s.bulk_threshold
            } else {
                return Err(Key::new("bulk_threshold").error("must be at least 2"));
            },
            bulk_action: s.bulk_action.one_of(
                &[Action::Deny, Action::Escalate, Action::Allow],
                &Key::new("bulk_action"),
            )?,
            principal_domain: s.principal_domain,
        })
    }

    /// Vets a few typical calls in `configure`, so what the first call
    /// would build lazily is in the snapshot (see [`Check::warm_up`]).
    fn warm_up(&self) {
        use toolvet_pdk::serde_json::json;
        toolvet_pdk::warm_up_with(
            self,
            &[
                (
                    "send_email",
                    json!({"to": "team@example.com", "subject": "Weekly report", "body": toolvet_pdk::WARM_UP_TEXT}),
                ),
                (
                    "send_email",
                    json!({"to": "someone@example.org", "body": "Card 4111 1111 1111 1111, SSN 123-45-6789, IBAN DE89370400440532013000, call +1 415 555 0100"}),
                ),
                (
                    "bash",
                    json!({"command": "echo 'jane.doe@example.com' >> contacts.csv"}),
                ),
            ],
        );
    }

    /// A call is outbound when its name matches `outbound_tools`, an
    /// argument addresses it or is an http(s) URL, or the host's facts
    /// find it sending a message, publishing, or sending text typed into
    /// a page or a form ([`toolvet_pdk::ToolFacts::sends_out`]), so a tool
    /// no glob names is judged by what it does. A payment alone is not:
    /// the payee's account (an IBAN) is where the money goes, not personal
    /// data sent out (review s26).
    fn check(&self, call: &ToolCall, tool: &ToolInfo, ctx: &Context) -> CheckResult {
        let facts_send = tool.facts.as_ref().is_some_and(|f| {
            f.effects
                .intersects(Effects::OUTBOUND_MESSAGE | Effects::PUBLISH)
                || f.sends_out()
                    .is_some_and(|_| !f.effects.intersects(Effects::PAYMENT))
        });
        if !self.outbound_tools.is_match(&call.name)
            && check_catalog::args::addressed(call.json()).is_none()
            && check_catalog::args::url_hosts(call.json()).is_empty()
            && !facts_send
        {
            return Ok(Decision::Abstain);
        }
        let principal = ctx
            .principal
            .as_deref()
            .filter(|_| self.principal_domain)
            .and_then(|p| p.rsplit_once('@'))
            .map(|(_, d)| d.trim_end_matches('.').to_ascii_lowercase());
        Ok(self.vet_for(call, principal.as_deref()))
    }
}

impl PiiGuard {
    /// The decision on one outbound call.
    pub fn vet(&self, call: &ToolCall) -> Decision {
        self.vet_for(call, None)
    }

    /// [`PiiGuard::vet`] with the principal's e-mail domain allowed too.
    pub fn vet_for(&self, call: &ToolCall, principal_domain: Option<&str>) -> Decision {
        let mut items = 0;
        let found = self.find_for(call.json(), principal_domain, &mut items);
        let bulk = if items >= self.bulk_threshold
            && !self.approved_destination(call.json(), principal_domain)
        {
            self.bulk_action.decide(
                "pii.bulk",
                format!(
                    "The call carries {items} items of personal data (addresses, phone numbers, ids), a bulk export, \
                     and `{}` sends them outside the organisation's domains. Send aggregates or references (counts, \
                     customer ids) instead, or ask a person to approve an export to this destination.",
                    call.name
                ),
            )
        } else {
            Decision::Abstain
        };
        let mut ranked: Vec<(Action, Finding)> = found
            .into_iter()
            .map(|f| (self.actions.get(f.kind), f))
            .filter(|(a, _)| *a != Action::Allow)
            .collect();
        if ranked.is_empty() {
            return bulk;
        }
        if bulk.severity() >= 2 && ranked.iter().all(|(a, _)| *a <= self.bulk_action) {
            return bulk;
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

    /// A tool no glob names is judged by what the host's facts find it
    /// does: text typed into a page's field (`outbound-content`) or a
    /// message sent goes out; facts that find neither keep it inside.
    #[test]
    fn facts_that_a_call_sends_make_it_outbound() {
        use toolvet_pdk::{Effects, FactSource, Role, RoleValue, ToolFacts};
        let g = PiiGuard::from_settings_json("{}").unwrap();
        let facts = |effects, roles: Vec<RoleValue>| ToolInfo {
            facts: Some(ToolFacts {
                effects,
                irreversible: false,
                protected_target: false,
                roles,
                source: FactSource::Catalog("playwright-mcp/browser_type".into()),
            }),
            ..ToolInfo::default()
        };
        let typed = RoleValue {
            role: Role::OutboundContent,
            pointer: "/text".into(),
            value: "4539 5787 6362 1486".into(),
            dialect: None,
        };
        let call = ToolCall::new(
            "browser_type",
            json!({"element": "Card number", "target": "e12", "text": "4539 5787 6362 1486"})
                .to_string(),
        );
        let ctx = Context::default();
        let decide = |tool: &ToolInfo| outcome(&g.decide(&call, tool, &ctx));
        // By its name alone the call sends nothing anywhere.
        assert_eq!(decide(&ToolInfo::default()), "abstain -");
        assert_eq!(
            decide(&facts(Effects::WRITE, vec![typed.clone()])),
            "deny pii.card"
        );
        assert_eq!(
            decide(&facts(Effects::OUTBOUND_MESSAGE, Vec::new())),
            "deny pii.card"
        );
        // Facts that find the call only writes, with no text sent, add
        // nothing.
        assert_eq!(decide(&facts(Effects::WRITE, Vec::new())), "abstain -");
        // A payment's account is where the money goes (review s26).
        let pay = ToolCall::new(
            "bank_transfer",
            json!({"iban": "DE89370400440532013000", "amount": 100}).to_string(),
        );
        assert_eq!(
            outcome(&g.decide(&pay, &facts(Effects::PAYMENT, Vec::new()), &ctx)),
            "abstain -"
        );
    }

    #[test]
    fn settings_errors_name_the_key() {
        let err = |s: &str| PiiGuard::from_settings_json(s).err().unwrap();
        assert!(err(r#"{"actions":{"card":"block"}}"#).starts_with("settings.actions.card"));
        assert!(err(r#"{"actions":{"date_of_birth":"deny"}}"#).starts_with("settings.actions"));
        assert!(err(r#"{"bulk_threshold":1}"#).starts_with("settings.bulk_threshold"));
        assert!(
            err(r#"{"allowed_domains":["not a domain"]}"#)
                .starts_with("settings.allowed_domains[0]")
        );
        assert!(err(r#"{"ignore_args":["["]}"#).starts_with("settings.ignore_args[0]"));
    }
}
