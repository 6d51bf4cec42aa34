//! `tool-policy`: allow, deny or escalate tool calls by tool name, by a rule
//! table, and by what the tool's owner declared (`requires_approval`,
//! `risk`).
//!
//! The decision is made in two steps (see README.md):
//!
//! 1. A **base decision** from the settings, first match wins:
//!    1. `deny` list → deny `policy.denied-tool`;
//!    2. `rules` table, first rule whose `tools` match → its decision;
//!    3. `approve` list → escalate `policy.requires-approval`;
//!    4. `allow` list → allow;
//!    5. the default: `default`, or what the `preset` implies.
//! 2. **What the call does** (the host's tool facts, `toolvet:check@0.2.0`)
//!    only makes an allow or abstain stricter, unless the `allow` list named
//!    the tool: each effect class has a decision (`effects`; by default a
//!    permission change, such as making a private thing public, escalates), a
//!    change to a protected target (production named) escalates
//!    (`protected_target`) and an irreversible one there is denied
//!    (`irreversible_protected`). The strictest applies; the reason names
//!    the catalog entry or the words and values that led there.
//! 3. The **owner's flags** only make it stricter: if the base decision is
//!    allow or abstain, a tool declared `requires_approval` escalates with
//!    `policy.requires-approval`, and a tool whose `risk` is high escalates
//!    with `policy.high-risk`. Nothing in the settings can silently lower a
//!    flag set by the tool's owner; turn the flag handling off with
//!    `honor_requires_approval = false` / `escalate_high_risk = false`.
//!
//! The `preset` setting sets the default and checks the lists:
//! `allow-all` (default allow), `deny-all` (every call denied, a kill
//! switch), `allow-listed` (only `allow` tools allowed, everything else
//! denied `policy.not-allowed`), `approve-listed` (`approve` tools escalate,
//! everything else allowed).

use serde::Deserialize;
use std::collections::BTreeMap;
use toolvet_pdk::{
    Action as Verdict, Check, CheckResult, Context, Decision, Effects, FactSource, Globs, Key,
    PluginInfo, Role, ToolCall, ToolFacts, ToolInfo,
};

/// The effect decisions a policy starts from.
const DEFAULT_EFFECTS: &[(&str, Verdict)] = &[("permission-change", Verdict::Escalate)];

/// A ready-made policy shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Preset {
    /// Every tool not otherwise matched is allowed.
    AllowAll,
    /// Every call is denied (`policy.denied-tool`). No other list, rule or
    /// default may be given with it.
    DenyAll,
    /// Only tools in `allow` (or allowed by a rule) are allowed; the rest is
    /// denied with `policy.not-allowed`. `allow` must not be empty.
    AllowListed,
    /// Tools in `approve` escalate; everything else is allowed. `approve`
    /// must not be empty.
    ApproveListed,
}

impl Preset {
    fn name(self) -> &'static str {
        match self {
            Preset::AllowAll => "allow-all",
            Preset::DenyAll => "deny-all",
            Preset::AllowListed => "allow-listed",
            Preset::ApproveListed => "approve-listed",
        }
    }
}

/// One entry of the `rules` table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleSetting {
    /// Tool-name globs the rule applies to (at least one).
    pub tools: Vec<String>,
    /// What to decide for those tools.
    pub decision: Verdict,
    /// The reason shown to the model (deny) or approver (escalate). Default:
    /// a sentence naming the tool and the rule.
    #[serde(default)]
    pub message: Option<String>,
    /// The rule id reported for deny and escalate. Default
    /// `policy.rule-<index>` (0-based, as in `settings.rules[<index>]`).
    #[serde(default)]
    pub rule: Option<String>,
}

/// The check's settings (`[check.settings]`). See README.md.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    /// A ready-made policy shape; none by default.
    pub preset: Option<Preset>,
    /// Tool-name globs that are always denied (`policy.denied-tool`).
    pub deny: Vec<String>,
    /// Tool-name globs that are allowed.
    pub allow: Vec<String>,
    /// Tool-name globs that need a person's approval
    /// (`policy.requires-approval`).
    pub approve: Vec<String>,
    /// Per-tool rules, first match wins.
    pub rules: Vec<RuleSetting>,
    /// Decision for tools nothing else matched. Default `abstain`; may not
    /// be combined with `preset`.
    pub default: Option<Verdict>,
    /// Escalate tools whose declared `risk` is in `high_risk_levels`.
    pub escalate_high_risk: bool,
    /// Risk values that count as high (compared ignoring ASCII case and
    /// surrounding spaces).
    pub high_risk_levels: Vec<String>,
    /// Escalate tools declared `requires_approval`.
    pub honor_requires_approval: bool,
    /// Decisions by effect class (`publish`, `permission-change`, …; see
    /// [`Effects::NAMED`]), merged over the default `permission-change =
    /// "escalate"` (a visibility change is one; set it to `abstain` to turn
    /// it off). Payments and messages are left to the checks that read
    /// their amounts and recipients.
    pub effects: BTreeMap<String, Verdict>,
    /// Decision for a call that changes anything (any effect but `read`)
    /// on a protected target. Default `escalate`.
    pub protected_target: Verdict,
    /// Decision for an irreversible call on a protected target. Default
    /// `deny`.
    pub irreversible_protected: Verdict,
    /// Match tool names ignoring ASCII case. Always `true`: the host
    /// selects checks ignoring case, and a case-sensitive list would let
    /// `Bash` past a rule for `bash`; `false` is a configuration error.
    pub ignore_case: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            preset: None,
            deny: Vec::new(),
            allow: Vec::new(),
            approve: Vec::new(),
            rules: Vec::new(),
            default: None,
            escalate_high_risk: true,
            high_risk_levels: vec!["high".into(), "critical".into()],
            honor_requires_approval: true,
            effects: BTreeMap::new(),
            protected_target: Verdict::Escalate,
            irreversible_protected: Verdict::Deny,
            ignore_case: true,
        }
    }
}

/// A compiled rule of the table.
#[derive(Debug, Clone)]
struct Rule {
    tools: Globs,
    decision: Verdict,
    message: Option<String>,
    rule: String,
}

/// What decides when nothing in the lists or rules matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fallback {
    /// Use this verdict (rule id `policy.default` for deny/escalate).
    Verdict(Verdict),
    /// `allow-listed`: deny with `policy.not-allowed`.
    NotAllowed,
    /// `deny-all`: deny with `policy.denied-tool`.
    DenyAll,
}

/// The configured check.
#[derive(Debug, Clone)]
pub struct ToolPolicy {
    deny: Globs,
    allow: Globs,
    approve: Globs,
    rules: Vec<Rule>,
    fallback: Fallback,
    escalate_high_risk: bool,
    high_risk_levels: Vec<String>,
    honor_requires_approval: bool,
    /// Effect classes with a decision other than abstain.
    effects: Vec<(&'static str, Effects, Verdict)>,
    protected_target: Verdict,
    irreversible_protected: Verdict,
}

/// What an effect class means, for a reason.
fn effect_words(name: &str) -> &'static str {
    match name {
        "read" => "reads data",
        "write" => "changes data",
        "delete" => "deletes data",
        "execute" => "runs code or commands",
        "outbound-message" => "sends a message outside the run",
        "payment" => "moves money",
        "publish" => "makes something public, released or merged",
        "permission-change" => "changes who may do what",
        _ => "changes what runs in an environment",
    }
}

/// How the host knows what the call does, for a reason: the catalog
/// entry, or at most three of the words and values it inferred from.
fn clues(facts: &ToolFacts) -> String {
    match &facts.source {
        FactSource::Catalog(id) => format!("catalog entry {id}"),
        FactSource::Inferred(why) => {
            let mut s: Vec<&str> = why.iter().take(3).map(String::as_str).collect();
            if s.is_empty() {
                s.push("its arguments");
            }
            s.join("; ")
        }
        FactSource::Declared => "declared by its owner".to_string(),
    }
}

/// The severity of a decision, for "the strictest wins".
fn severity(v: Verdict) -> u8 {
    match v {
        Verdict::Abstain => 0,
        Verdict::Allow => 1,
        Verdict::Escalate => 2,
        Verdict::Deny => 3,
    }
}

impl ToolPolicy {
    /// Step 2: raise an allow or abstain by what the call does (the host's
    /// facts; nothing without them).
    fn apply_effects(&self, name: &str, tool: &ToolInfo, base: Decision) -> Decision {
        let Some(facts) = tool.facts.as_ref() else {
            return base;
        };
        if !matches!(base, Decision::Allow | Decision::Abstain) {
            return base;
        }
        let mut best: Option<(Verdict, String, String)> = None;
        let mut consider = |verdict: Verdict, rule: String, what: String| {
            if verdict.stops()
                && best
                    .as_ref()
                    .is_none_or(|(b, _, _)| severity(verdict) > severity(*b))
            {
                best = Some((verdict, rule, what));
            }
        };
        for (effect, flags, verdict) in &self.effects {
            if facts.effects.intersects(*flags) {
                consider(
                    *verdict,
                    format!("policy.effect-{effect}"),
                    effect_words(effect).to_string(),
                );
            }
        }
        let changes = !(facts.effects.is_empty() || facts.effects == Effects::READ);
        if facts.protected_target && changes {
            let targets: Vec<String> = facts
                .roles
                .iter()
                .filter(|r| {
                    matches!(
                        r.role,
                        Role::Environment | Role::CloudResource | Role::Branch
                    )
                })
                .take(3)
                .map(|r| {
                    format!(
                        "{} = {:?}",
                        r.pointer,
                        r.value.chars().take(60).collect::<String>()
                    )
                })
                .collect();
            // A target the call does not name (a pull request's merge
            // lands on its base branch) has no value to show.
            let target = if targets.is_empty() {
                "acts on a protected target".to_string()
            } else {
                format!("acts on a protected target ({})", targets.join(", "))
            };
            if facts.irreversible {
                consider(
                    self.irreversible_protected,
                    "policy.irreversible-protected".into(),
                    format!("cannot be undone and {target}"),
                );
            }
            consider(
                self.protected_target,
                "policy.protected-target".into(),
                target,
            );
        }
        let Some((verdict, rule, what)) = best else {
            return base;
        };
        let clues = clues(facts);
        let message = match verdict {
            Verdict::Deny => format!(
                "The call of `{name}` {what} ({clues}), which the policy does not permit. Do not \
                 retry it through another tool; tell the user that this action is not permitted."
            ),
            _ => format!("The call of `{name}` {what} ({clues}); a person must approve it."),
        };
        verdict.decide(&rule, message)
    }

    /// The decision from the settings alone (step 1), before the owner's
    /// flags.
    pub fn base_decision(&self, name: &str) -> Decision {
        if self.deny.is_match(name) {
            return Decision::deny(
                "policy.denied-tool",
                format!(
                    "The tool `{name}` is disabled by policy. Do not call it again; use another \
                     tool or tell the user that this action is not permitted."
                ),
            );
        }
        if let Some(rule) = self.rules.iter().find(|r| r.tools.is_match(name)) {
            let message = || match &rule.message {
                Some(m) => m.clone(),
                None => match rule.decision {
                    Verdict::Deny => format!(
                        "The tool `{name}` is not permitted by policy rule {}. Use another tool \
                         or tell the user that this action is not permitted.",
                        rule.rule
                    ),
                    _ => format!(
                        "The tool `{name}` needs a person's approval under policy rule {}.",
                        rule.rule
                    ),
                },
            };
            return rule.decision.decide(&rule.rule, message());
        }
        if self.approve.is_match(name) {
            return Decision::escalate(
                "policy.requires-approval",
                format!("The policy requires a person to approve every call of `{name}`."),
            );
        }
        if self.allow.is_match(name) {
            return Decision::Allow;
        }
        match self.fallback {
            Fallback::Verdict(Verdict::Allow) => Decision::Allow,
            Fallback::Verdict(Verdict::Abstain) => Decision::Abstain,
            Fallback::Verdict(Verdict::Deny) => Decision::deny(
                "policy.default",
                format!(
                    "The tool `{name}` is not permitted: the policy denies tools it does not \
                     list. Use another tool or tell the user that this action is not permitted."
                ),
            ),
            Fallback::Verdict(Verdict::Escalate) => Decision::escalate(
                "policy.default",
                format!(
                    "The tool `{name}` is not listed by the policy, which asks a person to \
                     approve unlisted tools."
                ),
            ),
            Fallback::NotAllowed => Decision::deny(
                "policy.not-allowed",
                format!(
                    "The tool `{name}` is not on this agent's allow list (allowed: {}). Use an \
                     allowed tool instead.",
                    summary(self.allow.patterns())
                ),
            ),
            Fallback::DenyAll => Decision::deny(
                "policy.denied-tool",
                format!(
                    "All tools are disabled by policy, so `{name}` may not run. Tell the user \
                     that no action can be taken right now."
                ),
            ),
        }
    }

    /// Step 3: raise an allow or abstain to escalate when the owner flagged
    /// the tool.
    fn apply_flags(&self, name: &str, tool: &ToolInfo, base: Decision) -> Decision {
        if !matches!(base, Decision::Allow | Decision::Abstain) {
            return base;
        }
        if self.honor_requires_approval && tool.requires_approval {
            return Decision::escalate(
                "policy.requires-approval",
                format!(
                    "The owner of `{name}` requires a person to approve every call of this tool."
                ),
            );
        }
        if self.escalate_high_risk
            && let Some(risk) = tool.risk.as_deref()
        {
            let risk = risk.trim();
            if self
                .high_risk_levels
                .iter()
                .any(|l| l.eq_ignore_ascii_case(risk))
            {
                return Decision::escalate(
                    "policy.high-risk",
                    format!(
                        "`{name}` is declared {}-risk by its owner; a person must approve this \
                         call.",
                        risk.to_ascii_lowercase()
                    ),
                );
            }
        }
        base
    }
}

impl Check for ToolPolicy {
    type Settings = Settings;

    fn info() -> PluginInfo {
        PluginInfo::new(
            "tool-policy",
            env!("CARGO_PKG_VERSION"),
            "Allows, denies or escalates tools by name, rule table and declared risk",
        )
    }

    fn new(s: Settings) -> Result<Self, String> {
        if !s.ignore_case {
            return Err(Key::new("ignore_case").error(
                "tool names are always matched ignoring ASCII case, as the host selects checks \
                 (a case-sensitive rule for `bash` would let `Bash` through); remove the setting",
            ));
        }
        let fallback = match (s.preset, s.default) {
            (Some(p), Some(_)) => {
                return Err(format!(
                    "settings.default: cannot be combined with preset `{}`, which sets the \
                     default decision itself; remove one of them",
                    p.name()
                ));
            }
            (None, d) => Fallback::Verdict(d.unwrap_or(Verdict::Abstain)),
            (Some(Preset::AllowAll), None) => Fallback::Verdict(Verdict::Allow),
            (Some(Preset::ApproveListed), None) => Fallback::Verdict(Verdict::Allow),
            (Some(Preset::AllowListed), None) => Fallback::NotAllowed,
            (Some(Preset::DenyAll), None) => Fallback::DenyAll,
        };
        match s.preset {
            Some(Preset::AllowListed) if s.allow.is_empty() => {
                return Err(
                    "settings.allow: preset `allow-listed` needs at least one tool glob \
                            in `allow` (otherwise every tool is denied; use `deny-all` for that)"
                        .into(),
                );
            }
            Some(Preset::ApproveListed) if s.approve.is_empty() => {
                return Err(
                    "settings.approve: preset `approve-listed` needs at least one tool \
                            glob in `approve`"
                        .into(),
                );
            }
            Some(Preset::DenyAll) => {
                for (key, empty) in [
                    ("allow", s.allow.is_empty()),
                    ("approve", s.approve.is_empty()),
                    ("rules", s.rules.is_empty()),
                ] {
                    if !empty {
                        return Err(format!(
                            "settings.{key}: has no effect with preset `deny-all`, which denies \
                             every call; use preset `allow-listed` to allow some tools"
                        ));
                    }
                }
            }
            _ => {}
        }
        let mut rules = Vec::with_capacity(s.rules.len());
        for (i, r) in s.rules.iter().enumerate() {
            if r.tools.is_empty() {
                return Err(format!(
                    "settings.rules[{i}].tools: give at least one tool glob"
                ));
            }
            let rule = match &r.rule {
                Some(id) => {
                    validate_rule_id(id).map_err(|e| format!("settings.rules[{i}].rule: {e}"))?;
                    id.clone()
                }
                None => format!("policy.rule-{i}"),
            };
            if let Some(m) = &r.message
                && m.trim().is_empty()
            {
                return Err(format!("settings.rules[{i}].message: empty message"));
            }
            rules.push(Rule {
                tools: Globs::compile(&r.tools, &Key::new("rules").index(i).field("tools"))?,
                decision: r.decision,
                message: r.message.clone(),
                rule,
            });
        }
        if let Some(i) = s.high_risk_levels.iter().position(|l| l.trim().is_empty()) {
            return Err(format!("settings.high_risk_levels[{i}]: empty risk level"));
        }
        let mut chosen: BTreeMap<String, Verdict> = DEFAULT_EFFECTS
            .iter()
            .map(|(n, v)| ((*n).to_string(), *v))
            .collect();
        chosen.extend(s.effects.clone());
        let mut effects = Vec::new();
        for (name, verdict) in chosen {
            let Some((known, flags)) = Effects::NAMED.iter().find(|(n, _)| *n == name) else {
                return Err(Key::new("effects").error(format!(
                    "unknown effect `{name}` (one of: {})",
                    Effects::NAMED.map(|(n, _)| n).join(", ")
                )));
            };
            if verdict != Verdict::Abstain {
                effects.push((*known, *flags, verdict));
            }
        }
        Ok(Self {
            deny: Globs::compile(&s.deny, &Key::new("deny"))?,
            allow: Globs::compile(&s.allow, &Key::new("allow"))?,
            approve: Globs::compile(&s.approve, &Key::new("approve"))?,
            rules,
            fallback,
            escalate_high_risk: s.escalate_high_risk,
            high_risk_levels: s
                .high_risk_levels
                .iter()
                .map(|l| l.trim().to_string())
                .collect(),
            honor_requires_approval: s.honor_requires_approval,
            effects,
            protected_target: s.protected_target,
            irreversible_protected: s.irreversible_protected,
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
                    "write_file",
                    json!({"path": "src/report.md", "content": toolvet_pdk::WARM_UP_TEXT}),
                ),
                ("bash", json!({"command": "ls"})),
                ("deploy_service", json!({"environment": "production"})),
                ("drop_database", json!({"name": "users"})),
            ],
        );
    }

    fn check(&self, call: &ToolCall, tool: &ToolInfo, _ctx: &Context) -> CheckResult {
        let mut base = self.base_decision(&call.name);
        if !self.allow.is_match(&call.name) {
            base = self.apply_effects(&call.name, tool, base);
        }
        Ok(self.apply_flags(&call.name, tool, base))
    }
}

toolvet_pdk::export_check!(ToolPolicy);

/// A rule id is one or more `[A-Za-z0-9_-]` words joined by dots, e.g.
/// `policy.outbound` or `acme.no-email`.
fn validate_rule_id(id: &str) -> Result<(), String> {
    let ok = !id.is_empty()
        && id.split('.').all(|part| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        });
    if ok {
        Ok(())
    } else {
        Err(format!(
            "`{id}` is not a rule id; use dot-separated words of letters, digits, `-` and `_`, \
             e.g. `policy.outbound`"
        ))
    }
}

/// The allow globs for a message: at most ten, backquoted.
fn summary(globs: &[String]) -> String {
    let mut s: Vec<String> = globs.iter().take(10).map(|g| format!("`{g}`")).collect();
    if globs.len() > 10 {
        s.push(format!("and {} more", globs.len() - 10));
    }
    s.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolvet_pdk::serde_json::json;

    fn policy(settings: toolvet_pdk::serde_json::Value) -> ToolPolicy {
        ToolPolicy::from_settings_json(&settings.to_string()).unwrap()
    }

    fn err(settings: toolvet_pdk::serde_json::Value) -> String {
        ToolPolicy::from_settings_json(&settings.to_string()).unwrap_err()
    }

    fn decide(p: &ToolPolicy, name: &str, tool: ToolInfo) -> (String, Option<String>) {
        let d = p.decide(&ToolCall::new(name, "{}"), &tool, &Context::default());
        (d.kind().to_string(), d.rule().map(str::to_string))
    }

    fn plain() -> ToolInfo {
        ToolInfo::default()
    }

    fn flagged() -> ToolInfo {
        ToolInfo {
            requires_approval: true,
            ..ToolInfo::default()
        }
    }

    fn risky(level: &str) -> ToolInfo {
        ToolInfo {
            risk: Some(level.into()),
            ..ToolInfo::default()
        }
    }

    fn is(kind: &str, rule: Option<&str>) -> (String, Option<String>) {
        (kind.to_string(), rule.map(str::to_string))
    }

    #[test]
    fn defaults_abstain_and_honor_flags() {
        let p = policy(json!({}));
        assert_eq!(decide(&p, "read_file", plain()), is("abstain", None));
        assert_eq!(
            decide(&p, "deploy", flagged()),
            is("escalate", Some("policy.requires-approval"))
        );
        assert_eq!(
            decide(&p, "drop_db", risky(" HIGH ")),
            is("escalate", Some("policy.high-risk"))
        );
        assert_eq!(
            decide(&p, "nuke", risky("critical")),
            is("escalate", Some("policy.high-risk"))
        );
        assert_eq!(decide(&p, "search", risky("medium")), is("abstain", None));
        // requires_approval is reported before risk.
        let both = ToolInfo {
            requires_approval: true,
            risk: Some("high".into()),
            ..ToolInfo::default()
        };
        assert_eq!(
            decide(&p, "x", both),
            is("escalate", Some("policy.requires-approval"))
        );
    }

    #[test]
    fn flags_can_be_turned_off() {
        let p = policy(json!({"escalate_high_risk": false, "honor_requires_approval": false}));
        assert_eq!(decide(&p, "deploy", flagged()), is("abstain", None));
        assert_eq!(decide(&p, "drop_db", risky("high")), is("abstain", None));
        let p = policy(json!({"high_risk_levels": ["medium", "high"]}));
        assert_eq!(
            decide(&p, "x", risky("Medium")),
            is("escalate", Some("policy.high-risk"))
        );
    }

    #[test]
    fn precedence_deny_list_then_rules_then_approve_then_allow_then_default() {
        let p = policy(json!({
            "deny": ["rm_*"],
            "allow": ["*"],
            "approve": ["git_push"],
            "rules": [
                {"tools": ["rm_*", "send_*"], "decision": "escalate", "rule": "policy.outbound"},
                {"tools": ["git_*"], "decision": "allow"},
            ],
        }));
        // deny list beats a rule that matches too
        assert_eq!(
            decide(&p, "rm_rf", plain()),
            is("deny", Some("policy.denied-tool"))
        );
        assert_eq!(
            decide(&p, "send_email", plain()),
            is("escalate", Some("policy.outbound"))
        );
        // the rule table beats the approve list
        assert_eq!(decide(&p, "git_push", plain()), is("allow", None));
        assert_eq!(decide(&p, "read_file", plain()), is("allow", None));
    }

    #[test]
    fn owner_flags_beat_allows_but_never_soften_a_deny() {
        let p = policy(json!({"allow": ["deploy"], "deny": ["drop_db"],
            "rules": [{"tools": ["ship"], "decision": "allow"}]}));
        assert_eq!(
            decide(&p, "deploy", flagged()),
            is("escalate", Some("policy.requires-approval"))
        );
        assert_eq!(
            decide(&p, "ship", risky("high")),
            is("escalate", Some("policy.high-risk"))
        );
        assert_eq!(
            decide(&p, "drop_db", flagged()),
            is("deny", Some("policy.denied-tool"))
        );
    }

    #[test]
    fn first_matching_rule_wins_with_default_ids_and_messages() {
        let p = policy(json!({"rules": [
            {"tools": ["send_*"], "decision": "deny"},
            {"tools": ["send_slack*"], "decision": "allow"},
            {"tools": ["http_*"], "decision": "escalate", "message": "Outbound HTTP needs sign-off."},
            {"tools": ["search"], "decision": "abstain"},
        ]}));
        assert_eq!(
            decide(&p, "send_slack_message", plain()),
            is("deny", Some("policy.rule-0"))
        );
        let d = p.decide(
            &ToolCall::new("http_get", "{}"),
            &plain(),
            &Context::default(),
        );
        assert_eq!(
            d,
            Decision::escalate("policy.rule-2", "Outbound HTTP needs sign-off.")
        );
        assert_eq!(decide(&p, "search", plain()), is("abstain", None));
        assert_eq!(
            decide(&p, "search", risky("high")),
            is("escalate", Some("policy.high-risk"))
        );
    }

    #[test]
    fn presets() {
        let p = policy(json!({"preset": "allow-all", "deny": ["shell"]}));
        assert_eq!(decide(&p, "anything", plain()), is("allow", None));
        assert_eq!(
            decide(&p, "shell", plain()),
            is("deny", Some("policy.denied-tool"))
        );

        let p = policy(json!({"preset": "deny-all"}));
        assert_eq!(
            decide(&p, "read_file", plain()),
            is("deny", Some("policy.denied-tool"))
        );

        let p = policy(json!({"preset": "allow-listed", "allow": ["read_*", "search"]}));
        assert_eq!(decide(&p, "read_file", plain()), is("allow", None));
        assert_eq!(
            decide(&p, "write_file", plain()),
            is("deny", Some("policy.not-allowed"))
        );
        let d = p.decide(
            &ToolCall::new("write_file", "{}"),
            &plain(),
            &Context::default(),
        );
        let Decision::Deny(r) = d else {
            panic!("expected deny")
        };
        assert!(
            r.message.contains("(allowed: `read_*`, `search`)"),
            "{}",
            r.message
        );

        let p = policy(json!({"preset": "approve-listed", "approve": ["send_*"]}));
        assert_eq!(
            decide(&p, "send_email", plain()),
            is("escalate", Some("policy.requires-approval"))
        );
        assert_eq!(decide(&p, "read_file", plain()), is("allow", None));
    }

    #[test]
    fn explicit_defaults() {
        let p = policy(json!({"default": "deny", "allow": ["ok"]}));
        assert_eq!(
            decide(&p, "other", plain()),
            is("deny", Some("policy.default"))
        );
        assert_eq!(decide(&p, "ok", plain()), is("allow", None));
        let p = policy(json!({"default": "escalate"}));
        assert_eq!(
            decide(&p, "other", plain()),
            is("escalate", Some("policy.default"))
        );
    }

    #[test]
    fn name_matching_ignores_case_by_default_and_crosses_slashes() {
        let p = policy(json!({"deny": ["bash"], "allow": ["github/*"]}));
        assert_eq!(
            decide(&p, "Bash", plain()),
            is("deny", Some("policy.denied-tool"))
        );
        assert_eq!(decide(&p, "github/repos/list", plain()), is("allow", None));
        assert!(
            err(json!({"deny": ["bash"], "ignore_case": false}))
                .starts_with("settings.ignore_case:")
        );
    }

    #[test]
    fn bad_settings_name_the_key() {
        assert!(err(json!({"colour": 1})).contains("unknown field `colour`"));
        assert!(
            err(json!({"preset": "allow-some"})).starts_with("settings.preset: unknown variant")
        );
        assert_eq!(
            err(json!({"deny": ["ok", "a[b"]})),
            "settings.deny[1]: invalid glob \"a[b\": unclosed character class; missing ']'"
        );
        assert_eq!(err(json!({"allow": [""]})), "settings.allow[0]: empty glob");
        assert!(
            err(json!({"preset": "allow-all", "default": "deny"})).starts_with("settings.default:")
        );
        assert!(err(json!({"preset": "allow-listed"})).starts_with("settings.allow:"));
        assert!(err(json!({"preset": "approve-listed"})).starts_with("settings.approve:"));
        assert!(
            err(json!({"preset": "deny-all", "rules": [{"tools": ["x"], "decision": "allow"}]}))
                .starts_with("settings.rules:")
        );
        assert!(
            err(json!({"rules": [{"tools": [], "decision": "deny"}]}))
                .starts_with("settings.rules[0].tools:")
        );
        assert!(
            err(json!({"rules": [{"tools": ["x"], "decision": "deny", "rule": "has space"}]}))
                .starts_with("settings.rules[0].rule:")
        );
        assert!(
            err(json!({"rules": [{"tools": ["x"], "decision": "block"}]}))
                .starts_with("settings.rules[0].decision: unknown variant `block`")
        );
        assert!(
            err(json!({"rules": [{"tools": ["x"], "decision": "deny", "why": "x"}]}))
                .contains("unknown field `why`")
        );
        assert!(
            err(json!({"high_risk_levels": [" "]})).starts_with("settings.high_risk_levels[0]:")
        );
    }

    #[test]
    fn rule_ids() {
        assert!(validate_rule_id("policy.outbound").is_ok());
        assert!(validate_rule_id("acme.no-email_2").is_ok());
        assert!(validate_rule_id("").is_err());
        assert!(validate_rule_id("a..b").is_err());
        assert!(validate_rule_id(".a").is_err());
        assert!(validate_rule_id("a b").is_err());
    }

    /// Host facts with `effects`, optionally on a protected target named by
    /// an `environment` value.
    fn facts(effects: Effects, irreversible: bool, env: Option<&str>) -> ToolInfo {
        ToolInfo {
            facts: Some(ToolFacts {
                effects,
                irreversible,
                protected_target: env.is_some(),
                roles: env
                    .map(|e| toolvet_pdk::RoleValue {
                        role: Role::Environment,
                        pointer: "/environment".into(),
                        value: e.into(),
                        dialect: None,
                    })
                    .into_iter()
                    .collect(),
                source: FactSource::Inferred(vec!["name verb \"update\": write".into()]),
            }),
            ..ToolInfo::default()
        }
    }

    fn decide_facts(p: &ToolPolicy, name: &str, tool: &ToolInfo) -> Decision {
        p.check(&ToolCall::new(name, "{}"), tool, &Context::default())
            .unwrap()
    }

    #[test]
    fn what_a_call_does_raises_an_open_decision() {
        let p = policy(json!({}));
        let visibility = Effects::WRITE | Effects::PUBLISH | Effects::PERMISSION_CHANGE;
        let d = decide_facts(&p, "set_repo_visibility", &facts(visibility, false, None));
        assert_eq!(
            (d.kind(), d.rule()),
            ("escalate", Some("policy.effect-permission-change"))
        );
        assert!(
            d.message().unwrap().contains("name verb \"update\""),
            "{d:?}"
        );
        let d = decide_facts(
            &p,
            "add_collaborator",
            &facts(Effects::PERMISSION_CHANGE, false, None),
        );
        assert_eq!(d.rule(), Some("policy.effect-permission-change"));
        // Writes, reads and the classes other checks own stay open.
        for e in [
            Effects::WRITE,
            Effects::READ,
            Effects::PUBLISH,
            Effects::PAYMENT,
            Effects::OUTBOUND_MESSAGE,
        ] {
            assert_eq!(
                decide_facts(&p, "t", &facts(e, true, None)),
                Decision::Abstain,
                "{e:?}"
            );
        }
        // A protected target: a change escalates, an irreversible one is
        // denied, a read is not held.
        let d = decide_facts(
            &p,
            "terraform_apply",
            &facts(Effects::DEPLOY, false, Some("prod")),
        );
        assert_eq!(
            (d.kind(), d.rule()),
            ("escalate", Some("policy.protected-target"))
        );
        assert!(
            d.message().unwrap().contains("/environment = \"prod\""),
            "{d:?}"
        );
        let d = decide_facts(
            &p,
            "drop_db",
            &facts(Effects::DELETE, true, Some("production")),
        );
        assert_eq!(
            (d.kind(), d.rule()),
            ("deny", Some("policy.irreversible-protected"))
        );
        assert_eq!(
            decide_facts(&p, "get_db", &facts(Effects::READ, false, Some("prod"))),
            Decision::Abstain
        );
        // A target the call does not name (a merge lands on its base
        // branch): the reason names no empty list of targets.
        let mut merge = facts(Effects::WRITE, false, None);
        if let Some(f) = merge.facts.as_mut() {
            f.protected_target = true;
        }
        let d = decide_facts(&p, "merge_pull_request", &merge);
        assert_eq!(
            (d.kind(), d.rule()),
            ("escalate", Some("policy.protected-target"))
        );
        let message = d.message().unwrap();
        assert!(
            message.contains("acts on a protected target (name verb") && !message.contains("()"),
            "{message}"
        );
        // Without facts (a 0.1 host) nothing changes.
        assert_eq!(
            decide_facts(&p, "set_repo_visibility", &ToolInfo::default()),
            Decision::Abstain
        );
    }

    #[test]
    fn effect_decisions_are_tuned_by_the_policy_and_the_allow_list_wins() {
        let p = policy(
            json!({"effects": {"permission-change": "abstain", "payment": "deny"},
                              "protected_target": "abstain", "allow": ["pay_*"]}),
        );
        assert_eq!(
            decide_facts(&p, "x", &facts(Effects::PERMISSION_CHANGE, false, None)),
            Decision::Abstain
        );
        assert_eq!(
            decide_facts(&p, "x", &facts(Effects::DEPLOY, false, Some("prod"))),
            Decision::Abstain
        );
        let d = decide_facts(&p, "wallet_send", &facts(Effects::PAYMENT, true, None));
        assert_eq!(
            (d.kind(), d.rule()),
            ("deny", Some("policy.effect-payment"))
        );
        assert_eq!(
            decide_facts(&p, "pay_invoice", &facts(Effects::PAYMENT, true, None)),
            Decision::Allow
        );
        // The strictest wins.
        let p = policy(json!({"effects": {"deploy": "escalate", "payment": "deny"}}));
        let d = decide_facts(
            &p,
            "x",
            &facts(Effects::PAYMENT | Effects::DEPLOY, false, None),
        );
        assert_eq!(
            (d.kind(), d.rule()),
            ("deny", Some("policy.effect-payment"))
        );
        let e = err(json!({"effects": {"teleport": "deny"}}));
        assert!(
            e.contains("settings.effects") && e.contains("unknown effect `teleport`"),
            "{e}"
        );
    }
}
