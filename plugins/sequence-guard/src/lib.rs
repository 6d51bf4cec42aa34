//! `sequence-guard`: a toolvet check with rules over the run's history
//! (`ctx.history`, oldest first):
//!
//! - `read_before_write`: a write of key K needs an earlier successful read
//!   of the same K (rule `sequence.read-before-write`);
//! - `only_after`: a tool may only run after (or immediately after) certain
//!   tools (rule `sequence.only-after`);
//! - `max_calls`: at most N successful calls of some tools per run (rule
//!   `sequence.max-calls`);
//! - `loop_detection`: the same call repeated too often (rule
//!   `sequence.loop`): with identical arguments (canonical JSON), or with
//!   arguments of the same shape (white space, paths, timestamps and
//!   counters aside: [`loop_shape`]).
//!
//! Only history entries whose outcome is `allowed` or `approved` count as
//! having run. See the crate README for every setting.

mod cross_repository;
mod history_rules;
mod keys;
mod shape;
mod targets;

pub use cross_repository::CrossRepositorySetting;
pub use history_rules::{BlindOverwriteSetting, RetryAfterRefusalSetting};

pub use keys::{Normalize, canonical_json, key_at, normalize_key, normalize_path};
pub use shape::{VOLATILE_KEYS, loop_shape, text_shape};

use serde::Deserialize;
use toolvet_pdk::serde_json::{self, Value};
use toolvet_pdk::{
    Check, CheckResult, Context, Decision, GlobList, Key, Outcome, PluginInfo, PriorCall, ToolCall,
    ToolInfo,
};

type GlobSet = toolvet_pdk::Globs;

/// What a rule does when it fires: `deny` or `escalate` (the kit's
/// [`Action`]; other values are a configuration error).
pub use toolvet_pdk::Action;
/// One tool-name glob or a list of them (the kit's [`GlobList`]). `*`
/// matches any characters (including `/` and `.` of MCP-style names);
/// matching ignores ASCII case, as the host's does.
pub use toolvet_pdk::GlobList as Globs;

/// `read_before_write` entry: `write` on key K needs an earlier successful
/// `read` on the same K.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadBeforeWriteSetting {
    /// Tools that write (globs).
    pub write: Globs,
    /// Tools whose earlier successful call on the same key allows the write.
    pub read: Globs,
    /// JSON pointer (RFC 6901) to the key in the write call's arguments,
    /// e.g. `/path`.
    pub key: String,
    /// JSON pointer to the key in the read call's arguments; default: `key`.
    #[serde(default)]
    pub read_key: Option<String>,
    /// How keys are compared: `path` (default), `exact` or `lowercase`.
    #[serde(default)]
    pub normalize: Normalize,
    /// Whether an earlier successful write of the same key also counts (a
    /// file the agent created itself is known to it). Default `true`.
    #[serde(default = "yes")]
    pub writes_count: bool,
    /// `deny` (default) or `escalate`.
    #[serde(default = "deny")]
    pub action: Action,
    /// Rule id reported instead of `sequence.read-before-write`.
    #[serde(default)]
    pub rule: Option<String>,
    /// Reason text instead of the default; `{tool}` and `{key}` are replaced.
    #[serde(default)]
    pub message: Option<String>,
}

/// `max_calls` entry: at most `max` successful calls of `tools` per run.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaxCallsSetting {
    /// Tools counted together (globs).
    pub tools: Globs,
    /// How many successful calls the run may make; the next one fires.
    pub max: usize,
    /// `deny` (default) or `escalate`.
    #[serde(default = "deny")]
    pub action: Action,
    /// Rule id reported instead of `sequence.max-calls`.
    #[serde(default)]
    pub rule: Option<String>,
    /// Reason text instead of the default; `{tool}` and `{max}` are replaced.
    #[serde(default)]
    pub message: Option<String>,
}

/// `only_after` entry: `tool` may only run after a successful call of one
/// of `after`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OnlyAfterSetting {
    /// The guarded tools (globs).
    pub tool: Globs,
    /// The tools that must have run first (globs).
    pub after: Globs,
    /// Require the immediately previous call of the run (whatever its tool)
    /// to be a successful call of `after`. Default `false`: any earlier
    /// successful call counts.
    #[serde(default)]
    pub immediately: bool,
    /// Tools whose successful call after the last `after` call makes it
    /// stale again, e.g. `["write_file", "edit_file"]` for "tests must have
    /// passed since the last edit". Default none.
    #[serde(default)]
    pub invalidated_by: Option<Globs>,
    /// `deny` (default) or `escalate`.
    #[serde(default = "deny")]
    pub action: Action,
    /// Rule id reported instead of `sequence.only-after`.
    #[serde(default)]
    pub rule: Option<String>,
    /// Reason text instead of the default; `{tool}` is replaced.
    #[serde(default)]
    pub message: Option<String>,
}

/// `loop_detection`: the same call repeated too often.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LoopDetectionSetting {
    /// Default `true`.
    pub enabled: bool,
    /// How many identical earlier calls the run may hold; the next
    /// identical call fires. Default 5.
    pub max_identical: usize,
    /// How many earlier calls of the same shape ([`loop_shape`]: the
    /// identical ones and those differing only in white space, paths'
    /// slashes, timestamps and counters) the run may hold; the next such
    /// call fires. Default: twice `max_identical`; at least
    /// `max_identical`.
    pub max_similar: Option<usize>,
    /// Default `escalate`.
    pub action: Action,
    /// Count only the identical calls that directly precede this one (a
    /// different call in between resets the count). Default `false`: count
    /// identical calls anywhere in the history.
    pub consecutive: bool,
    /// Tools the detection applies to. Default `"*"`.
    pub tools: Globs,
    /// Tools exempt from it, e.g. status polls. Default none.
    pub exclude: Globs,
}

impl Default for LoopDetectionSetting {
    fn default() -> Self {
        Self {
            enabled: true,
            max_identical: 5,
            max_similar: None,
            action: Action::Escalate,
            consecutive: false,
            tools: Globs::One("*".into()),
            exclude: Globs::Many(Vec::new()),
        }
    }
}

fn yes() -> bool {
    true
}

fn deny() -> Action {
    Action::Deny
}

/// The check's settings (`[check.settings]`). With none, only loop detection
/// is on.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    /// Read-before-write rules.
    pub read_before_write: Vec<ReadBeforeWriteSetting>,
    /// Per-run call limits.
    pub max_calls: Vec<MaxCallsSetting>,
    /// Loop detection (on by default).
    pub loop_detection: LoopDetectionSetting,
    /// Ordering rules.
    pub only_after: Vec<OnlyAfterSetting>,
    /// Whole-file writes of files the run never read (on by default).
    pub blind_overwrite: BlindOverwriteSetting,
    /// Another tool for the same target right after a refusal (on by
    /// default).
    pub retry_after_refusal: RetryAfterRefusalSetting,
    /// Text published into one repository after the run worked in another
    /// (on by default).
    pub cross_repository: CrossRepositorySetting,
}

/// A compiled read-before-write rule.
#[derive(Debug)]
struct ReadBeforeWrite {
    write: GlobSet,
    read: GlobSet,
    read_names: String,
    key: String,
    read_key: String,
    normalize: Normalize,
    writes_count: bool,
    action: Action,
    rule: String,
    message: Option<String>,
}

/// A compiled call limit.
#[derive(Debug)]
struct MaxCalls {
    tools: GlobSet,
    max: usize,
    action: Action,
    rule: String,
    message: Option<String>,
}

/// A compiled ordering rule.
#[derive(Debug)]
struct OnlyAfter {
    tool: GlobSet,
    after: GlobSet,
    after_names: String,
    immediately: bool,
    invalidated_by: Option<GlobSet>,
    action: Action,
    rule: String,
    message: Option<String>,
}

/// Compiled loop detection.
#[derive(Debug)]
struct LoopDetection {
    max_identical: usize,
    max_similar: usize,
    action: Action,
    consecutive: bool,
    tools: GlobSet,
    exclude: GlobSet,
}

/// The configured check.
#[derive(Debug)]
pub struct SequenceGuard {
    blind_overwrite: Option<history_rules::BlindOverwrite>,
    retry_after_refusal: Option<history_rules::RetryAfterRefusal>,
    cross_repository: Option<cross_repository::CrossRepository>,
    read_before_write: Vec<ReadBeforeWrite>,
    max_calls: Vec<MaxCalls>,
    only_after: Vec<OnlyAfter>,
    loop_detection: Option<LoopDetection>,
}

/// Compile the globs of setting `key` (e.g. `read_before_write[0].write`);
/// an empty list is an error unless `may_be_empty`.
fn compile_globs(globs: &GlobList, key: &str, may_be_empty: bool) -> Result<GlobSet, String> {
    globs.compile(&Key::new(key), may_be_empty)
}

/// `action` of setting `key`, which must be `deny` or `escalate`.
fn fire_action(action: Action, key: &str) -> Result<Action, String> {
    action.one_of(&[Action::Deny, Action::Escalate], &Key::new(key))
}

/// A JSON pointer is empty (the whole arguments) or starts with `/`.
fn check_pointer(pointer: &str, key: &str) -> Result<String, String> {
    if pointer.is_empty() || pointer.starts_with('/') {
        Ok(pointer.to_string())
    } else {
        Err(format!(
            "settings.{key}: {pointer:?} is not a JSON pointer; write it as \"/{pointer}\""
        ))
    }
}

/// A rule id is one or more `[A-Za-z0-9_-]` words joined by dots.
fn check_rule(rule: &Option<String>, default: &str, key: &str) -> Result<String, String> {
    let Some(id) = rule else {
        return Ok(default.to_string());
    };
    let ok = id.split('.').all(|part| {
        !part.is_empty()
            && part
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    });
    if ok {
        Ok(id.clone())
    } else {
        Err(format!(
            "settings.{key}: {id:?} is not a rule id (words of letters, digits, '-' or '_' \
             joined by dots, e.g. \"acme.read-first\")"
        ))
    }
}

/// A readable list of globs for a reason: `read_file` or `read_file or view_*`.
fn names(globs: &Globs) -> String {
    globs
        .list()
        .iter()
        .map(|g| format!("`{g}`"))
        .collect::<Vec<_>>()
        .join(" or ")
}

/// The prior call's arguments as JSON (`Null` if they do not parse).
fn prior_args(p: &PriorCall) -> Value {
    serde_json::from_str(&p.arguments).unwrap_or(Value::Null)
}

/// The WIT name of an outcome, for reasons.
fn outcome_name(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Allowed => "allowed",
        Outcome::Denied => "denied",
        Outcome::Escalated => "escalated and not yet approved",
        Outcome::Approved => "approved",
        Outcome::Rejected => "rejected",
    }
}

fn fire(action: Action, rule: &str, message: String) -> Decision {
    action.decide(rule, message)
}

/// How a rule judged a call.
enum Verdict {
    /// The rule does not concern this call.
    NotApplicable,
    /// The rule concerns the call and is satisfied.
    Satisfied,
    /// The rule fires.
    Fired(Decision),
}

impl SequenceGuard {
    fn read_before_write(&self, r: &ReadBeforeWrite, call: &ToolCall, ctx: &Context) -> Verdict {
        if !r.write.is_match(&call.name) {
            return Verdict::NotApplicable;
        }
        let Some(raw) = key_at(call.json(), &r.key) else {
            // The write names no key: nothing to compare.
            return Verdict::NotApplicable;
        };
        let cwd = ctx.attribute("cwd");
        let want = normalize_key(&raw, r.normalize, cwd);
        let satisfied = ctx.history.iter().any(|p| {
            if !p.outcome.ran() {
                return false;
            }
            let pointer = if r.read.is_match(&p.name) {
                &r.read_key
            } else if r.writes_count && r.write.is_match(&p.name) {
                &r.key
            } else {
                return false;
            };
            key_at(&prior_args(p), pointer)
                .is_some_and(|k| normalize_key(&k, r.normalize, cwd) == want)
        });
        if satisfied {
            return Verdict::Satisfied;
        }
        let message = match &r.message {
            Some(m) => m.replace("{tool}", &call.name).replace("{key}", &raw),
            None => format!(
                "`{}` on `{raw}` needs an earlier successful {} of the same {} in this run; \
                 call {} on it first, then retry",
                call.name,
                r.read_names,
                r.key.trim_start_matches('/'),
                r.read_names
            ),
        };
        Verdict::Fired(fire(r.action, &r.rule, message))
    }

    fn only_after(&self, r: &OnlyAfter, call: &ToolCall, ctx: &Context) -> Verdict {
        if !r.tool.is_match(&call.name) {
            return Verdict::NotApplicable;
        }
        let is_prerequisite = |p: &PriorCall| p.outcome.ran() && r.after.is_match(&p.name);
        let satisfied = if r.immediately {
            ctx.history.last().is_some_and(is_prerequisite)
        } else {
            match ctx.history.iter().rposition(is_prerequisite) {
                None => false,
                Some(at) => r.invalidated_by.as_ref().is_none_or(|inv| {
                    !ctx.history[at + 1..]
                        .iter()
                        .any(|p| p.outcome.ran() && inv.is_match(&p.name))
                }),
            }
        };
        if satisfied {
            return Verdict::Satisfied;
        }
        let message = match &r.message {
            Some(m) => m.replace("{tool}", &call.name),
            None if r.immediately => {
                let previous = match ctx.history.last() {
                    None => "this is the run's first call".to_string(),
                    Some(p) if r.after.is_match(&p.name) => format!(
                        "the previous call, `{}`, did not run (it was {})",
                        p.name,
                        outcome_name(p.outcome)
                    ),
                    Some(p) => format!("the previous call was `{}`", p.name),
                };
                format!(
                    "`{}` may only run immediately after a successful {}, and {previous}; \
                     call {} first, then retry right after it",
                    call.name, r.after_names, r.after_names
                )
            }
            None => {
                let stale = r.invalidated_by.is_some() && ctx.history.iter().any(is_prerequisite);
                if stale {
                    format!(
                        "`{}` may only run after a successful {} with no change since; \
                         there were changes after the last one, so call {} again first",
                        call.name, r.after_names, r.after_names
                    )
                } else {
                    format!(
                        "`{}` may only run after a successful {} in this run; call {} first",
                        call.name, r.after_names, r.after_names
                    )
                }
            }
        };
        Verdict::Fired(fire(r.action, &r.rule, message))
    }

    fn max_calls(&self, r: &MaxCalls, call: &ToolCall, ctx: &Context) -> Verdict {
        if !r.tools.is_match(&call.name) {
            return Verdict::NotApplicable;
        }
        let ran = ctx
            .history
            .iter()
            .filter(|p| p.outcome.ran() && r.tools.is_match(&p.name))
            .count();
        if ran < r.max {
            return Verdict::Satisfied;
        }
        let message = match &r.message {
            Some(m) => m
                .replace("{tool}", &call.name)
                .replace("{max}", &r.max.to_string()),
            None => format!(
                "`{}` has reached its limit for this run ({ran} successful {}, at most {} \
                 allowed); do not call it again, and tell the user if more are needed",
                call.name,
                if ran == 1 { "call" } else { "calls" },
                r.max
            ),
        };
        Verdict::Fired(fire(r.action, &r.rule, message))
    }

    fn loop_detection(&self, call: &ToolCall, ctx: &Context) -> Verdict {
        let Some(l) = &self.loop_detection else {
            return Verdict::NotApplicable;
        };
        if !l.tools.is_match(&call.name) || l.exclude.is_match(&call.name) {
            return Verdict::NotApplicable;
        }
        let args = call.json();
        let (this, this_shape) = (canonical_json(args), loop_shape(args));
        // Each earlier call of the tool: (identical, same shape).
        let same = |p: &PriorCall| {
            if p.name != call.name {
                return (false, false);
            }
            let prior = prior_args(p);
            (
                canonical_json(&prior) == this,
                loop_shape(&prior) == this_shape,
            )
        };
        let mut identical = 0;
        let mut similar = 0;
        let history: Box<dyn Iterator<Item = &PriorCall>> = if l.consecutive {
            Box::new(ctx.history.iter().rev())
        } else {
            Box::new(ctx.history.iter())
        };
        for p in history {
            let (exact, shaped) = same(p);
            if !shaped {
                if l.consecutive {
                    break;
                }
                continue;
            }
            similar += 1;
            identical += usize::from(exact);
        }
        // In a row, identical calls count only while nothing else came between.
        if l.consecutive {
            identical = ctx.history.iter().rev().take_while(|p| same(p).0).count();
        }
        let how = if l.consecutive {
            " in a row"
        } else {
            " in this run"
        };
        let message = if identical >= l.max_identical {
            format!(
                "the same `{}` call with the same arguments has already been made {identical} times\
                 {how}, which looks like a loop; try a different approach or different arguments \
                 instead of repeating it",
                call.name
            )
        } else if similar >= l.max_similar {
            format!(
                "the same `{}` call has already been made {similar} times{how} ({identical} with \
                 exactly these arguments, the others differing only in white space, slashes, \
                 timestamps or counters), which looks like a loop; try a different approach \
                 instead of repeating it",
                call.name
            )
        } else {
            // Passing loop detection is no reason to allow a call.
            return Verdict::NotApplicable;
        };
        Verdict::Fired(fire(l.action, "sequence.loop", message))
    }
}

impl Check for SequenceGuard {
    type Settings = Settings;

    fn info() -> PluginInfo {
        PluginInfo::new(
            "sequence-guard",
            env!("CARGO_PKG_VERSION"),
            "Rules over the run's history: read before write, call limits, loops, ordering",
        )
    }

    fn new(settings: Settings) -> Result<Self, String> {
        let mut read_before_write = Vec::new();
        for (i, r) in settings.read_before_write.iter().enumerate() {
            let at = format!("read_before_write[{i}]");
            let key = check_pointer(&r.key, &format!("{at}.key"))?;
            if key.is_empty() {
                return Err(format!(
                    "settings.{at}.key: must point into the arguments, e.g. \"/path\""
                ));
            }
            let read_key = match &r.read_key {
                Some(k) => check_pointer(k, &format!("{at}.read_key"))?,
                None => key.clone(),
            };
            read_before_write.push(ReadBeforeWrite {
                write: compile_globs(&r.write, &format!("{at}.write"), false)?,
                read: compile_globs(&r.read, &format!("{at}.read"), false)?,
                read_names: names(&r.read),
                key,
                read_key,
                normalize: r.normalize,
                writes_count: r.writes_count,
                action: fire_action(r.action, &format!("{at}.action"))?,
                rule: check_rule(&r.rule, "sequence.read-before-write", &format!("{at}.rule"))?,
                message: r.message.clone(),
            });
        }
        let mut max_calls = Vec::new();
        for (i, m) in settings.max_calls.iter().enumerate() {
            let at = format!("max_calls[{i}]");
            max_calls.push(MaxCalls {
                tools: compile_globs(&m.tools, &format!("{at}.tools"), false)?,
                max: m.max,
                action: fire_action(m.action, &format!("{at}.action"))?,
                rule: check_rule(&m.rule, "sequence.max-calls", &format!("{at}.rule"))?,
                message: m.message.clone(),
            });
        }
        let mut only_after = Vec::new();
        for (i, o) in settings.only_after.iter().enumerate() {
            let at = format!("only_after[{i}]");
            let invalidated_by = match &o.invalidated_by {
                Some(g) => Some(compile_globs(g, &format!("{at}.invalidated_by"), false)?),
                None => None,
            };
            if o.immediately && invalidated_by.is_some() {
                return Err(format!(
                    "settings.{at}.invalidated_by: has no effect with immediately = true; \
                     remove one of them"
                ));
            }
            only_after.push(OnlyAfter {
                tool: compile_globs(&o.tool, &format!("{at}.tool"), false)?,
                after: compile_globs(&o.after, &format!("{at}.after"), false)?,
                after_names: names(&o.after),
                immediately: o.immediately,
                invalidated_by,
                action: fire_action(o.action, &format!("{at}.action"))?,
                rule: check_rule(&o.rule, "sequence.only-after", &format!("{at}.rule"))?,
                message: o.message.clone(),
            });
        }
        let l = &settings.loop_detection;
        let loop_detection = if l.enabled {
            if l.max_identical == 0 {
                return Err(
                    "settings.loop_detection.max_identical: must be at least 1 (use enabled = \
                     false to turn loop detection off)"
                        .into(),
                );
            }
            let max_similar = l.max_similar.unwrap_or(l.max_identical.saturating_mul(2));
            if max_similar < l.max_identical {
                return Err(format!(
                    "settings.loop_detection.max_similar: {max_similar} is under max_identical \
                     ({}); calls of the same shape include the identical ones",
                    l.max_identical
                ));
            }
            Some(LoopDetection {
                max_identical: l.max_identical,
                max_similar,
                action: fire_action(l.action, "loop_detection.action")?,
                consecutive: l.consecutive,
                tools: compile_globs(&l.tools, "loop_detection.tools", false)?,
                exclude: compile_globs(&l.exclude, "loop_detection.exclude", true)?,
            })
        } else {
            None
        };
        Ok(Self {
            blind_overwrite: history_rules::BlindOverwrite::new(&settings.blind_overwrite)?,
            retry_after_refusal: history_rules::RetryAfterRefusal::new(
                &settings.retry_after_refusal,
            )?,
            cross_repository: cross_repository::CrossRepository::new(&settings.cross_repository)?,
            read_before_write,
            max_calls,
            only_after,
            loop_detection,
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
                ("read_file", json!({"path": "src/report.md"})),
                ("deploy", json!({"environment": "staging"})),
                ("send_email", json!({"to": "team@example.com"})),
            ],
        );
    }

    fn check(&self, call: &ToolCall, tool: &ToolInfo, ctx: &Context) -> CheckResult {
        let mut verdicts: Vec<Verdict> = Vec::new();
        verdicts.extend(
            self.read_before_write
                .iter()
                .map(|r| self.read_before_write(r, call, ctx)),
        );
        verdicts.extend(
            self.only_after
                .iter()
                .map(|r| self.only_after(r, call, ctx)),
        );
        verdicts.extend(self.max_calls.iter().map(|r| self.max_calls(r, call, ctx)));
        verdicts.push(self.loop_detection(call, ctx));
        for d in [
            self.blind_overwrite
                .as_ref()
                .and_then(|r| r.judge(call, ctx)),
            self.retry_after_refusal
                .as_ref()
                .and_then(|r| r.judge(call, ctx)),
            self.cross_repository
                .as_ref()
                .and_then(|r| r.judge(call, tool, ctx)),
        ]
        .into_iter()
        .flatten()
        {
            verdicts.push(Verdict::Fired(d));
        }
        let mut decision = Decision::Abstain;
        for v in verdicts {
            match v {
                Verdict::NotApplicable => {}
                Verdict::Satisfied => decision = decision.max(Decision::Allow),
                Verdict::Fired(d) => decision = decision.max(d),
            }
        }
        Ok(decision)
    }
}

toolvet_pdk::export_check!(SequenceGuard);

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(settings: &str) -> SequenceGuard {
        SequenceGuard::from_settings_json(settings).expect("valid settings")
    }

    fn prior(name: &str, args: &str, outcome: Outcome) -> PriorCall {
        PriorCall {
            name: name.into(),
            arguments: args.into(),
            outcome,
            returned: None,
        }
    }

    fn ctx(history: Vec<PriorCall>) -> Context {
        Context {
            history,
            attributes: vec![("cwd".into(), "/home/alice/project".into())],
            ..Context::default()
        }
    }

    fn run(g: &SequenceGuard, name: &str, args: &str, history: Vec<PriorCall>) -> Decision {
        g.decide(
            &ToolCall::new(name, args),
            &ToolInfo::default(),
            &ctx(history),
        )
    }

    #[test]
    fn tool_names_match_ignoring_case_as_the_host_does() {
        let g = guard(RBW);
        let d = run(&g, "Edit_File", r#"{"path":"src/main.rs"}"#, vec![]);
        assert_eq!(d.rule(), Some("sequence.read-before-write"));
        let read = prior("READ_FILE", r#"{"path":"src/main.rs"}"#, Outcome::Allowed);
        assert_eq!(
            run(&g, "edit_file", r#"{"path":"src/main.rs"}"#, vec![read]),
            Decision::Allow
        );
        let e = SequenceGuard::from_settings_json(
            r#"{"max_calls": [{"tools": "x", "max": 1, "action": "allow"}]}"#,
        )
        .err()
        .unwrap();
        assert_eq!(
            e,
            "settings.max_calls[0].action: must be \"deny\" or \"escalate\", not \"allow\""
        );
    }

    const RBW: &str = r#"{"read_before_write": [{"write": ["write_file", "edit_file"], "read": "read_file", "key": "/path"}]}"#;

    #[test]
    fn read_before_write_needs_a_successful_read_of_the_same_key() {
        let g = guard(RBW);
        let d = run(&g, "edit_file", r#"{"path":"src/main.rs"}"#, vec![]);
        assert_eq!(d.rule(), Some("sequence.read-before-write"));
        assert_eq!(d.kind(), "deny");
        // A read of the same file under another spelling counts.
        let h = vec![prior(
            "read_file",
            r#"{"path":"/home/alice/project/./src/main.rs"}"#,
            Outcome::Allowed,
        )];
        assert_eq!(
            run(&g, "edit_file", r#"{"path":"src/main.rs"}"#, h),
            Decision::Allow
        );
        // A denied read did not run.
        let h = vec![prior(
            "read_file",
            r#"{"path":"src/main.rs"}"#,
            Outcome::Denied,
        )];
        assert_eq!(
            run(&g, "edit_file", r#"{"path":"src/main.rs"}"#, h).kind(),
            "deny"
        );
        // An approved read ran.
        let h = vec![prior(
            "read_file",
            r#"{"path":"src/main.rs"}"#,
            Outcome::Approved,
        )];
        assert_eq!(
            run(&g, "edit_file", r#"{"path":"src/main.rs"}"#, h),
            Decision::Allow
        );
        // A read of another file does not count.
        let h = vec![prior(
            "read_file",
            r#"{"path":"src/lib.rs"}"#,
            Outcome::Allowed,
        )];
        assert_eq!(
            run(&g, "edit_file", r#"{"path":"src/main.rs"}"#, h).kind(),
            "deny"
        );
        // An earlier successful write of the same file counts.
        let h = vec![prior(
            "write_file",
            r#"{"path":"src/new.rs","content":""}"#,
            Outcome::Allowed,
        )];
        assert_eq!(
            run(&g, "edit_file", r#"{"path":"src/new.rs"}"#, h),
            Decision::Allow
        );
        // Other tools are not concerned.
        assert_eq!(
            run(&g, "list_dir", r#"{"path":"src"}"#, vec![]),
            Decision::Abstain
        );
    }

    #[test]
    fn read_key_and_writes_count_settings() {
        let g = guard(
            r#"{"read_before_write": [{"write": "edit", "read": "view", "key": "/file_path", "read_key": "/path", "writes_count": false, "action": "escalate", "rule": "acme.read-first", "message": "read {key} before {tool}"}]}"#,
        );
        let h = vec![prior("view", r#"{"path":"a.txt"}"#, Outcome::Allowed)];
        assert_eq!(
            run(&g, "edit", r#"{"file_path":"a.txt"}"#, h),
            Decision::Allow
        );
        let h = vec![prior("edit", r#"{"file_path":"a.txt"}"#, Outcome::Allowed)];
        let d = run(&g, "edit", r#"{"file_path":"a.txt"}"#, h);
        assert_eq!(
            d,
            Decision::escalate("acme.read-first", "read a.txt before edit")
        );
    }

    #[test]
    fn only_after_any_earlier_or_immediately() {
        let g = guard(r#"{"only_after": [{"tool": "deploy", "after": ["run_tests"]}]}"#);
        assert_eq!(
            run(&g, "deploy", "{}", vec![]).rule(),
            Some("sequence.only-after")
        );
        let h = vec![
            prior("run_tests", "{}", Outcome::Allowed),
            prior("read_file", r#"{"path":"a"}"#, Outcome::Allowed),
        ];
        assert_eq!(run(&g, "deploy", "{}", h.clone()), Decision::Allow);

        let g = guard(
            r#"{"only_after": [{"tool": "deploy", "after": "run_tests", "immediately": true}]}"#,
        );
        let d = run(&g, "deploy", "{}", h);
        assert_eq!(d.rule(), Some("sequence.only-after"));
        let Decision::Deny(r) = &d else {
            unreachable!()
        };
        assert!(
            r.message.contains("the previous call was `read_file`"),
            "{}",
            r.message
        );
        let h = vec![prior("run_tests", "{}", Outcome::Approved)];
        assert_eq!(run(&g, "deploy", "{}", h), Decision::Allow);
        let h = vec![prior("run_tests", "{}", Outcome::Escalated)];
        let d = run(&g, "deploy", "{}", h);
        let Decision::Deny(r) = &d else {
            panic!("{d:?}")
        };
        assert!(
            r.message
                .contains("`run_tests`, did not run (it was escalated"),
            "{}",
            r.message
        );
    }

    #[test]
    fn only_after_invalidated_by_later_changes() {
        let g = guard(
            r#"{"only_after": [{"tool": "deploy", "after": "run_tests", "invalidated_by": ["write_file", "edit_*"]}]}"#,
        );
        let h = vec![
            prior("run_tests", "{}", Outcome::Allowed),
            prior("edit_file", r#"{"path":"a"}"#, Outcome::Allowed),
        ];
        let d = run(&g, "deploy", "{}", h.clone());
        let Decision::Deny(r) = &d else {
            panic!("{d:?}")
        };
        assert!(
            r.message.contains("call `run_tests` again"),
            "{}",
            r.message
        );
        let mut h2 = h.clone();
        h2.push(prior("run_tests", "{}", Outcome::Allowed));
        assert_eq!(run(&g, "deploy", "{}", h2), Decision::Allow);
        // A denied edit changed nothing.
        let h3 = vec![
            prior("run_tests", "{}", Outcome::Allowed),
            prior("edit_file", r#"{"path":"a"}"#, Outcome::Denied),
        ];
        assert_eq!(run(&g, "deploy", "{}", h3), Decision::Allow);
    }

    #[test]
    fn max_calls_counts_successful_calls_only() {
        let g = guard(r#"{"max_calls": [{"tools": "send_*", "max": 2, "action": "escalate"}]}"#);
        let h = vec![
            prior("send_email", "{}", Outcome::Allowed),
            prior("send_sms", "{}", Outcome::Denied),
        ];
        assert_eq!(run(&g, "send_email", "{}", h.clone()), Decision::Allow);
        let mut h2 = h;
        h2.push(prior("send_sms", "{}", Outcome::Approved));
        let d = run(&g, "send_email", "{}", h2);
        assert_eq!(d.kind(), "escalate");
        assert_eq!(d.rule(), Some("sequence.max-calls"));
    }

    #[test]
    fn loop_detection_default_is_five_identical_calls() {
        let g = guard("{}");
        let same = |n: usize| {
            (0..n)
                .map(|i| {
                    // Key order varies; the call is still the same.
                    let args = if i % 2 == 0 {
                        r#"{"q":"x","page":1}"#
                    } else {
                        r#"{"page":1.0,"q":"x"}"#
                    };
                    prior("search", args, Outcome::Allowed)
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(
            run(&g, "search", r#"{"q":"x","page":1}"#, same(4)),
            Decision::Abstain
        );
        let d = run(&g, "search", r#"{"q":"x","page":1}"#, same(5));
        assert_eq!(d.kind(), "escalate");
        assert_eq!(d.rule(), Some("sequence.loop"));
        // Different arguments are a different call.
        assert_eq!(
            run(&g, "search", r#"{"q":"y","page":1}"#, same(5)),
            Decision::Abstain
        );
    }

    #[test]
    fn repeats_that_differ_only_trivially_are_the_same_call() {
        let g = guard("{}");
        // `rm -rf /x` tried again with other spacing and slashes, and a
        // cache-busting timestamp: never byte-equal, still one call.
        let tries = [
            r#"{"command":"rm -rf /x"}"#,
            r#"{"command":"rm  -rf /x/"}"#,
            r#"{"command":"rm -rf //x "}"#,
            r#"{"command":" rm\t-rf /x"}"#,
            r#"{"command":"rm -rf /x/ "}"#,
            r#"{"command":"rm -rf  /x"}"#,
            r#"{"command":"rm -rf /x//"}"#,
            r#"{"command":"rm -rf /x/"}"#,
            r#"{"command":"rm -rf /x  "}"#,
            r#"{"command":"rm   -rf /x"}"#,
        ];
        let history = |n: usize| {
            tries[..n]
                .iter()
                .map(|a| prior("bash", a, Outcome::Denied))
                .collect::<Vec<_>>()
        };
        // One of the history is byte-equal to this call: under 5.
        assert_eq!(
            run(&g, "bash", r#"{"command":"rm -rf /x/"}"#, history(9)),
            Decision::Abstain
        );
        let d = run(&g, "bash", r#"{"command":"rm -rf /x/"}"#, history(10));
        assert_eq!(d.kind(), "escalate");
        assert_eq!(d.rule(), Some("sequence.loop"));
        let reason = format!("{d:?}");
        assert!(
            reason.contains("made 10 times in this run (1 with exactly these arguments"),
            "{reason}"
        );
        // A counter and a timestamp that change on every try.
        let polls: Vec<_> = (0..10)
            .map(|i| {
                let args = format!(
                    r#"{{"url":"https://h/status?ts={}","attempt":{i},"sent":"2026-12-03T16:{i:02}:00Z"}}"#,
                    1_733_240_000 + i
                );
                prior("http_get", &args, Outcome::Allowed)
            })
            .collect();
        let d = run(
            &g,
            "http_get",
            r#"{"url":"https://h/status?ts=1733249999","attempt":11,"sent":"2026-12-03T17:00:00Z"}"#,
            polls,
        );
        assert_eq!(d.rule(), Some("sequence.loop"));
        // Reading different files, pages or lines in a loop is work.
        for (tool, args) in [
            ("read_file", r#"{"path":"src/f{i}.rs"}"#),
            ("search", r#"{"q":"x","page":{i}}"#),
            ("bash", r#"{"command":"sed -n {i},+20p a.txt"}"#),
            ("get_issue", r#"{"id":17332400{i}}"#),
        ] {
            let many: Vec<_> = (10..40)
                .map(|i| prior(tool, &args.replace("{i}", &i.to_string()), Outcome::Allowed))
                .collect();
            let this = args.replace("{i}", "99");
            assert_eq!(
                run(&g, tool, &this, many),
                Decision::Abstain,
                "{tool} {this}"
            );
        }
    }

    #[test]
    fn similar_calls_in_a_row_and_their_own_limit() {
        let g = guard(
            r#"{"loop_detection": {"max_identical": 3, "max_similar": 4, "consecutive": true}}"#,
        );
        let h = vec![
            prior("bash", r#"{"command":"ls /a/"}"#, Outcome::Allowed),
            prior("bash", r#"{"command":"ls  /a"}"#, Outcome::Allowed),
            prior("bash", r#"{"command":"ls /b"}"#, Outcome::Allowed),
            prior("bash", r#"{"command":"ls /a"}"#, Outcome::Allowed),
            prior("bash", r#"{"command":"ls /a//"}"#, Outcome::Allowed),
            prior("bash", r#"{"command":"ls /a "}"#, Outcome::Allowed),
        ];
        assert_eq!(
            run(&g, "bash", r#"{"command":"ls /a"}"#, h.clone()),
            Decision::Abstain
        );
        let mut h2 = h;
        h2.push(prior("bash", r#"{"command":" ls /a"}"#, Outcome::Allowed));
        assert_eq!(
            run(&g, "bash", r#"{"command":"ls /a"}"#, h2).rule(),
            Some("sequence.loop")
        );
        let e = SequenceGuard::from_settings_json(
            r#"{"loop_detection": {"max_identical": 5, "max_similar": 4}}"#,
        )
        .expect_err("an error");
        assert!(e.starts_with("settings.loop_detection.max_similar:"), "{e}");
    }

    #[test]
    fn loop_detection_consecutive_exclude_and_off() {
        let g = guard(
            r#"{"loop_detection": {"max_identical": 2, "consecutive": true, "action": "deny", "exclude": ["job_status"]}}"#,
        );
        let h = vec![
            prior("run_tests", "{}", Outcome::Allowed),
            prior("edit_file", r#"{"path":"a"}"#, Outcome::Allowed),
            prior("run_tests", "{}", Outcome::Allowed),
        ];
        assert_eq!(run(&g, "run_tests", "{}", h.clone()), Decision::Abstain);
        let mut h2 = h;
        h2.push(prior("run_tests", "{}", Outcome::Allowed));
        assert_eq!(run(&g, "run_tests", "{}", h2).kind(), "deny");
        let polls = vec![prior("job_status", r#"{"id":1}"#, Outcome::Allowed); 10];
        assert_eq!(
            run(&g, "job_status", r#"{"id":1}"#, polls.clone()),
            Decision::Abstain
        );

        let off = guard(r#"{"loop_detection": {"enabled": false}}"#);
        assert_eq!(
            run(&off, "job_status", r#"{"id":1}"#, polls),
            Decision::Abstain
        );
    }

    #[test]
    fn deny_outranks_escalate_and_allow() {
        let g = guard(
            r#"{"max_calls": [{"tools": "deploy", "max": 1, "action": "escalate"}],
                "only_after": [{"tool": "deploy", "after": "run_tests"}]}"#,
        );
        let h = vec![prior("deploy", "{}", Outcome::Allowed)];
        let d = run(&g, "deploy", "{}", h);
        assert_eq!(d.kind(), "deny");
        assert_eq!(d.rule(), Some("sequence.only-after"));
    }

    #[test]
    fn bad_settings_name_the_key() {
        let err = |s: &str| SequenceGuard::from_settings_json(s).expect_err("an error");
        let e = err(r#"{"read_before_write": [{"write": "w", "read": "r", "key": "path"}]}"#);
        assert!(e.starts_with("settings.read_before_write[0].key:"), "{e}");
        let e = err(r#"{"read_before_write": [{"write": "w", "read": [], "key": "/path"}]}"#);
        assert!(e.starts_with("settings.read_before_write[0].read:"), "{e}");
        let e = err(r#"{"max_calls": [{"tools": "a[", "max": 1}]}"#);
        assert!(e.starts_with("settings.max_calls[0].tools:"), "{e}");
        let e = err(r#"{"max_calls": [{"tools": "a", "max": 1, "action": "allow"}]}"#);
        assert!(e.starts_with("settings.max_calls[0].action:"), "{e}");
        let e = err(r#"{"loop_detection": {"max_identical": 0}}"#);
        assert!(
            e.starts_with("settings.loop_detection.max_identical:"),
            "{e}"
        );
        let e = err(r#"{"only_after": [{"tool": "d", "after": "t", "rule": "bad rule"}]}"#);
        assert!(e.starts_with("settings.only_after[0].rule:"), "{e}");
        let e = err(
            r#"{"only_after": [{"tool": "d", "after": "t", "immediately": true, "invalidated_by": "w"}]}"#,
        );
        assert!(
            e.starts_with("settings.only_after[0].invalidated_by:"),
            "{e}"
        );
        let e = err(r#"{"max_calls": [{"tools": 5, "max": 1}]}"#);
        assert!(
            e.starts_with("settings.max_calls[0].tools: a tool-name glob or a list of globs"),
            "{e}"
        );
        let e = err(r#"{"max_call": []}"#);
        assert!(e.contains("max_call"), "{e}");
        let e = err(r#"{"only_after": [{"tool": "d", "after": "t", "imediately": true}]}"#);
        assert!(e.contains("imediately"), "{e}");
    }
}
