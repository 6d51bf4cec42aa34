//! Case files for `toolvet test`: calls with the decision each must get,
//! run through the real host against one plugin or a whole policy. The
//! format is described in `docs/formats.md`.

use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toolvet::{
    CallRequest, Error, Host, LoadErrorKind, Policy, config::CheckConfig, config::HostSettings,
    config::Isolation, config::Mode, config::OnError, verdict::CheckDecision, verdict::ErrorKind,
};

/// A parsed case file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CaseFile {
    /// Plugin under test, relative to the case file.
    pub plugin: Option<PathBuf>,
    /// Policy under test, relative to the case file.
    pub config: Option<PathBuf>,
    /// Settings for `plugin`.
    pub settings: Option<Value>,
    /// Tool globs for `plugin`.
    pub tools: Option<Vec<String>>,
    /// Default context for cases without one.
    pub context: Option<Value>,
    /// The cases.
    pub cases: Vec<Case>,
}

/// One case: a call and the decision it must get, or (plugin mode)
/// settings the check must refuse.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Case {
    /// What the case is about.
    pub name: String,
    /// The `call` part of the call shape; required unless
    /// `settings_error` is given.
    pub call: Option<Value>,
    /// The `tool` part.
    pub tool: Option<Value>,
    /// The `context` part (replaces the file's default).
    pub context: Option<Value>,
    /// Settings for this case only (plugin mode).
    pub settings: Option<Value>,
    /// Expected decision: of the check (plugin mode, `abstain` possible)
    /// or of the verdict (policy mode). Required unless `settings_error`
    /// is given.
    pub expect: Option<CheckDecision>,
    /// Expected rule id of the deciding check.
    pub rule: Option<String>,
    /// Expected error kind (e.g. `timeout`): a case whose check failed
    /// passes only when it says so, since a failed check's `on_error`
    /// answer would otherwise pass for the check's own.
    pub error: Option<ErrorKind>,
    /// Plugin mode: the check must refuse this case's `settings` in
    /// `configure`, with a message containing this text. Such a case runs
    /// no call.
    pub settings_error: Option<String>,
    /// Policy mode: what named checks must answer, whether or not they
    /// decide the verdict (a check the call does not select counts as
    /// `abstain`).
    #[serde(default)]
    pub checks: BTreeMap<String, CheckExpectation>,
}

/// What one check of a policy must answer (a case's `checks` entry).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CheckExpectation {
    /// The check's decision (`on_error`'s when it failed).
    pub expect: CheckDecision,
    /// Its rule id.
    pub rule: Option<String>,
    /// How it must fail (e.g. `timeout`); when absent, it must not fail.
    pub error: Option<ErrorKind>,
}

impl CheckExpectation {
    /// `deny [rule] (error kind)`, as `toolvet test` prints it.
    fn describe(&self) -> String {
        describe(Some(self.expect), self.rule.as_deref(), self.error)
    }
}

/// `deny [rule] (error kind)`: a decision with its rule and error kind.
fn describe(
    decision: Option<CheckDecision>,
    rule: Option<&str>,
    error: Option<ErrorKind>,
) -> String {
    let mut text = decision.map_or_else(|| "no decision".to_string(), |d| d.to_string());
    if let Some(rule) = rule {
        text.push_str(&format!(" [{rule}]"));
    }
    if let Some(kind) = error {
        text.push_str(&format!(" (error {})", kind.as_str()));
    }
    text
}

/// What to test the cases against.
#[derive(Debug, Clone)]
pub(crate) enum Target {
    /// One plugin: the check's own decision is compared (`abstain` when
    /// its tool globs do not match the call).
    Plugin(PathBuf),
    /// A policy: the verdict is compared.
    Policy(PathBuf),
}

/// The result of one case.
#[derive(Debug, Clone)]
pub(crate) struct CaseResult {
    /// Case name.
    pub name: String,
    /// What the case got: `deny [rule] (error kind)`, or for a
    /// `settings_error` case the load error (or that the check loaded).
    pub actual: String,
    /// Actual reason, if any.
    pub reason: Option<String>,
    /// How a check failed (e.g. `timeout`), and its message.
    pub error: Option<(ErrorKind, String)>,
    /// Each expectation the case missed, one line each
    /// (`expected deny [shell.rm-home], got allow`); empty when it passed.
    pub mismatches: Vec<String>,
}

impl CaseResult {
    /// Whether every expectation of the case held.
    pub(crate) fn passed(&self) -> bool {
        self.mismatches.is_empty()
    }
}

/// Errors reading or running a case file.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CaseError {
    /// The file cannot be read or parsed.
    #[error("{}: {message}", path.display())]
    File {
        /// The case file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A case's call is malformed.
    #[error("{}: case `{case}`: {message}", path.display())]
    Case {
        /// The case file.
        path: PathBuf,
        /// Case name.
        case: String,
        /// What is wrong.
        message: String,
    },
    /// The plugin or policy failed to load.
    // The load error already names the file (the case file or the policy).
    #[error("{error}")]
    Load {
        /// The case file.
        path: PathBuf,
        /// Why.
        error: Error,
    },
}

impl CaseFile {
    /// Read a case file (YAML, or JSON which is YAML too).
    ///
    /// # Errors
    /// [`CaseError::File`] with the parser's line and column.
    pub(crate) fn from_file(path: &Path) -> Result<Self, CaseError> {
        let err = |message: String| CaseError::File {
            path: path.to_path_buf(),
            message,
        };
        let text = std::fs::read_to_string(path).map_err(|e| err(e.to_string()))?;
        serde_yaml_ng::from_str(&text).map_err(|e| err(e.to_string()))
    }

    /// What the file says to test, resolved against its directory, unless
    /// `override_target` is given.
    ///
    /// # Errors
    /// Neither or both of `plugin` and `config` given.
    pub(crate) fn target(
        &self,
        path: &Path,
        override_target: Option<&Target>,
    ) -> Result<Target, CaseError> {
        if let Some(t) = override_target {
            return Ok(t.clone());
        }
        let base = path.parent().unwrap_or(Path::new("."));
        match (&self.plugin, &self.config) {
            (Some(p), None) => Ok(Target::Plugin(base.join(p))),
            (None, Some(c)) => Ok(Target::Policy(base.join(c))),
            _ => Err(CaseError::File {
                path: path.to_path_buf(),
                message: "give exactly one of `plugin` and `config` (or --plugin / --config)"
                    .into(),
            }),
        }
    }
}

/// Run every case of the file at `path` against `target` (or the file's
/// own `plugin` / `config`).
///
/// # Errors
/// See [`CaseError`]; a failing case is not an error but a result with
/// `passed: false`.
pub(crate) async fn run_file(
    path: &Path,
    target: Option<&Target>,
) -> Result<Vec<CaseResult>, CaseError> {
    let file = CaseFile::from_file(path)?;
    if file.cases.is_empty() {
        return Err(CaseError::File {
            path: path.to_path_buf(),
            message: "`cases` is empty: a case file must test at least one call".into(),
        });
    }
    let load_err = |error| CaseError::Load {
        path: path.to_path_buf(),
        error,
    };
    // Policy mode reads the policy first: a case's `checks` must name its
    // checks.
    let subject = match file.target(path, target)? {
        Target::Policy(config) => Subject::Policy(Box::new(
            toolvet_preset::policy_from_file(&config)
                .map_err(|e| load_err(toolvet::Error::Config(e)))?,
        )),
        Target::Plugin(plugin) => Subject::Plugin(plugin),
    };
    let steps = file
        .cases
        .iter()
        .map(|case| plan(path, &file, case, &subject))
        .collect::<Result<Vec<_>, _>>()?;
    let mut results = Vec::with_capacity(file.cases.len());
    match subject {
        Subject::Policy(policy) => {
            let host = Host::load_with(*policy, crate::progress::elsewhere_options())
                .await
                .map_err(load_err)?;
            for (case, step) in file.cases.iter().zip(steps) {
                let Step::Call { request, expect } = step else {
                    unreachable!("plan() refuses `settings_error` in policy mode");
                };
                let v = host.check(&request).await;
                let error = v.checks.iter().find_map(|o| {
                    o.error
                        .as_ref()
                        .map(|e| (e.kind, format!("check `{}`: {}", o.check, e.message)))
                });
                let actual = Actual {
                    decision: v.decision.into(),
                    rule: v.rule,
                    reason: v.reason,
                    error,
                };
                results.push(decision_result(case, expect, actual, &v.checks));
            }
        }
        Subject::Plugin(plugin) => {
            // One host per distinct settings value; most files have one.
            let mut hosts: BTreeMap<String, Host> = BTreeMap::new();
            for (case, step) in file.cases.iter().zip(steps) {
                let settings = case
                    .settings
                    .clone()
                    .or_else(|| file.settings.clone())
                    .unwrap_or_else(|| Value::Object(Default::default()));
                let key = settings.to_string();
                let (request, expect) = match step {
                    Step::RefuseSettings(expected) => {
                        let loaded = async {
                            let policy =
                                single_check_policy(path, &plugin, settings, file.tools.clone())?;
                            Host::load_with(policy, crate::progress::elsewhere_options()).await
                        }
                        .await;
                        results.push(settings_result(case, expected, loaded.err()));
                        continue;
                    }
                    Step::Call { request, expect } => (request, expect),
                };
                if !hosts.contains_key(&key) {
                    let policy = single_check_policy(path, &plugin, settings, file.tools.clone())
                        .map_err(|e| load_err(toolvet::Error::Config(e)))?;
                    let host = Host::load_with(policy, crate::progress::elsewhere_options())
                        .await
                        .map_err(load_err)?;
                    hosts.insert(key.clone(), host);
                }
                let v = hosts[&key].check(&request).await;
                let actual = match v.checks.into_iter().next() {
                    // Refused before any check ran (an oversized call).
                    None if v.rule.is_some() => Actual {
                        decision: v.decision.into(),
                        rule: v.rule,
                        reason: v.reason,
                        error: None,
                    },
                    None => Actual {
                        decision: CheckDecision::Abstain,
                        rule: None,
                        reason: None,
                        error: None,
                    },
                    Some(o) => Actual {
                        decision: o.decision,
                        rule: o.rule,
                        reason: o.reason,
                        error: o.error.map(|e| (e.kind, e.message)),
                    },
                };
                results.push(decision_result(case, expect, actual, &[]));
            }
        }
    }
    Ok(results)
}

/// What a case file's cases run against, read.
enum Subject {
    /// One plugin, loaded per distinct settings value.
    Plugin(PathBuf),
    /// A policy, read (its checks load once for every case).
    Policy(Box<Policy>),
}

/// What one case does.
enum Step<'a> {
    /// Vet a call; the answer must be `expect`.
    Call {
        request: Box<CallRequest>,
        expect: CheckDecision,
    },
    /// Load the plugin with the case's settings; `configure` must refuse
    /// them with a message containing this text.
    RefuseSettings(&'a str),
}

/// What `case` does, checking that its keys make sense together and for
/// `subject`: a call and `expect`, or `settings_error` alone (plugin
/// mode); `checks` only in policy mode, naming checks of the policy.
///
/// # Errors
/// [`CaseError::Case`] naming the key that is missing, extra or wrong.
fn plan<'a>(
    path: &Path,
    file: &CaseFile,
    case: &'a Case,
    subject: &Subject,
) -> Result<Step<'a>, CaseError> {
    let bad = |message: String| CaseError::Case {
        path: path.to_path_buf(),
        case: case.name.clone(),
        message,
    };
    if let Some(expected) = &case.settings_error {
        if expected.trim().is_empty() {
            return Err(bad(
                "`settings_error` is empty: give the text the refusal must contain \
                 (e.g. the key it names)"
                    .into(),
            ));
        }
        if matches!(subject, Subject::Policy(_)) {
            return Err(bad(
                "`settings_error` tests one plugin's `configure`: it needs `plugin`, not `config`"
                    .into(),
            ));
        }
        let runs_a_call = [
            ("call", case.call.is_some()),
            ("tool", case.tool.is_some()),
            ("context", case.context.is_some()),
            ("expect", case.expect.is_some()),
            ("rule", case.rule.is_some()),
            ("error", case.error.is_some()),
            ("checks", !case.checks.is_empty()),
        ];
        let extra: Vec<String> = runs_a_call
            .iter()
            .filter(|(_, given)| *given)
            .map(|(key, _)| format!("`{key}`"))
            .collect();
        if !extra.is_empty() {
            return Err(bad(format!(
                "a `settings_error` case runs no call: remove {}",
                extra.join(", ")
            )));
        }
        return Ok(Step::RefuseSettings(expected));
    }
    let Some(call) = &case.call else {
        return Err(bad(
            "`call` is missing (a case needs one unless it gives `settings_error`)".into(),
        ));
    };
    let Some(expect) = case.expect else {
        return Err(bad(
            "`expect` is missing: allow, deny, escalate or abstain (or give `settings_error`)"
                .into(),
        ));
    };
    match subject {
        Subject::Plugin(_) if !case.checks.is_empty() => {
            return Err(bad(
                "`checks` expects answers from a policy's checks: it needs `config`, not `plugin`"
                    .into(),
            ));
        }
        Subject::Plugin(_) => {}
        Subject::Policy(policy) => {
            let names: Vec<&str> = policy.checks().iter().map(|c| c.name.as_str()).collect();
            if let Some(name) = case.checks.keys().find(|n| !names.contains(&n.as_str())) {
                return Err(bad(format!(
                    "`checks.{name}`: the policy has no check `{name}` (its checks: {})",
                    names.join(", ")
                )));
            }
        }
    }
    let mut shape = serde_json::Map::new();
    shape.insert("call".into(), call.clone());
    if let Some(tool) = &case.tool {
        shape.insert("tool".into(), tool.clone());
    }
    if let Some(context) = case.context.as_ref().or(file.context.as_ref()) {
        shape.insert("context".into(), context.clone());
    }
    let request = CallRequest::from_value(Value::Object(shape)).map_err(|e| bad(e.to_string()))?;
    Ok(Step::Call {
        request: Box::new(request),
        expect,
    })
}

/// What a case got: the check's decision (plugin mode) or the verdict's.
struct Actual {
    decision: CheckDecision,
    rule: Option<String>,
    reason: Option<String>,
    error: Option<(ErrorKind, String)>,
}

/// Compare a call's answer (and, in policy mode, each check's `outcomes`)
/// with what the case expects.
fn decision_result(
    case: &Case,
    expect: CheckDecision,
    actual: Actual,
    outcomes: &[toolvet::verdict::CheckOutcome],
) -> CaseResult {
    let error_kind = actual.error.as_ref().map(|(kind, _)| *kind);
    let got = describe(Some(actual.decision), actual.rule.as_deref(), error_kind);
    let mut mismatches = Vec::new();
    let rule_ok = case.rule.is_none() || case.rule == actual.rule;
    if actual.decision != expect || !rule_ok || case.error != error_kind {
        let wanted = describe(Some(expect), case.rule.as_deref(), case.error);
        mismatches.push(format!("expected {wanted}, got {got}"));
    }
    // The host answered before any check ran (an oversized call, a refused
    // ticket): no check said anything, so no `checks` expectation holds.
    if outcomes.is_empty() && actual.rule.is_some() && !case.checks.is_empty() {
        let names: Vec<String> = case.checks.keys().map(|n| format!("`{n}`")).collect();
        mismatches.push(format!(
            "checks {}: none ran, the host decided {got} itself",
            names.join(", ")
        ));
    }
    for (name, want) in &case.checks {
        if outcomes.is_empty() && actual.rule.is_some() {
            break;
        }
        let outcome = outcomes.iter().find(|o| o.check == *name);
        let (decision, rule, error) = outcome.map_or((CheckDecision::Abstain, None, None), |o| {
            (
                o.decision,
                o.rule.as_deref(),
                o.error.as_ref().map(|e| e.kind),
            )
        });
        let rule_ok = want.rule.is_none() || want.rule.as_deref() == rule;
        if decision != want.expect || !rule_ok || want.error != error {
            let not_run = if outcome.is_none() {
                " (the call does not select it)"
            } else {
                ""
            };
            mismatches.push(format!(
                "check `{name}`: expected {}, got {}{not_run}",
                want.describe(),
                describe(Some(decision), rule, error)
            ));
        }
    }
    CaseResult {
        name: case.name.clone(),
        actual: got,
        reason: actual.reason,
        error: actual.error,
        mismatches,
    }
}

/// A `settings_error` case: loading the check with the case's settings
/// must fail in `configure` with a message containing `expected`.
/// `load_error` is how loading failed (`None`: it did not).
fn settings_result(case: &Case, expected: &str, load_error: Option<Error>) -> CaseResult {
    let refused = match &load_error {
        Some(Error::Load(errors)) => match errors.as_slice() {
            [e] => match &e.kind {
                LoadErrorKind::InvalidSettings(message) => Some(message.as_str()),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    };
    let actual = match (&load_error, refused) {
        (_, Some(message)) => format!("invalid settings: {message}"),
        (Some(e), None) => e.to_string(),
        (None, None) => "the check loaded: its `configure` accepted the settings".to_string(),
    };
    let mut mismatches = Vec::new();
    if !refused.is_some_and(|message| message.contains(expected)) {
        mismatches.push(format!(
            "expected the settings to be refused with a message containing {expected:?}, got: {actual}"
        ));
    }
    CaseResult {
        name: case.name.clone(),
        actual,
        reason: None,
        error: None,
        mismatches,
    }
}

fn single_check_policy(
    case_file: &Path,
    plugin: &Path,
    settings: Value,
    tools: Option<Vec<String>>,
) -> Result<Policy, toolvet::ConfigError> {
    let host = HostSettings {
        // Case files test logic, not speed: allow for slow debug builds.
        default_timeout_ms: 2_000,
        default_memory_mb: 256,
        // One host per distinct settings value and a handful of calls
        // each: a snapshot would cost more than the `configure` calls it
        // saves (the example policy and the field corpus run with them).
        preinitialize: false,
        ..HostSettings::default()
    };
    Policy::new(
        case_file,
        host.clone(),
        None,
        vec![CheckConfig {
            name: plugin
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("plugin")
                .to_string(),
            plugin: plugin.to_path_buf(),
            sha256: None,
            tools,
            mode: Mode::Enforce,
            on_error: OnError::Deny,
            timeout_ms: host.default_timeout_ms,
            memory_mb: host.default_memory_mb,
            isolation: Isolation::PerCall,
            settings,
            line: 0,
        }],
    )
}
