//! Case files for `toolvet test`: calls with the decision each must get,
//! run through the real host against one plugin or a whole policy. The
//! format is described in `docs/formats.md`.

use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toolvet::{
    CallRequest, CheckConfig, CheckDecision, Error, ErrorKind, Host, HostSettings, Isolation, Mode,
    OnError, Policy,
};

/// A parsed case file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseFile {
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

/// One case: a call and the decision it must get.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// What the case is about.
    pub name: String,
    /// The `call` part of the call shape.
    pub call: Value,
    /// The `tool` part.
    pub tool: Option<Value>,
    /// The `context` part (replaces the file's default).
    pub context: Option<Value>,
    /// Settings for this case only (plugin mode).
    pub settings: Option<Value>,
    /// Expected decision: of the check (plugin mode, `abstain` possible)
    /// or of the verdict (policy mode).
    pub expect: CheckDecision,
    /// Expected rule id of the deciding check.
    pub rule: Option<String>,
    /// Expected error kind (e.g. `timeout`): a case whose check failed
    /// passes only when it says so, since a failed check's `on_error`
    /// answer would otherwise pass for the check's own.
    pub error: Option<ErrorKind>,
}

/// What to test the cases against.
#[derive(Debug, Clone)]
pub enum Target {
    /// One plugin: the check's own decision is compared (`abstain` when
    /// its tool globs do not match the call).
    Plugin(PathBuf),
    /// A policy: the verdict is compared.
    Policy(PathBuf),
}

/// The result of one case.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CaseResult {
    /// Case name.
    pub name: String,
    /// Whether decision (and rule, if given) matched.
    pub passed: bool,
    /// Expected decision.
    pub expected: CheckDecision,
    /// Expected rule.
    pub expected_rule: Option<String>,
    /// Expected error kind.
    pub expected_error: Option<ErrorKind>,
    /// Actual decision.
    pub actual: CheckDecision,
    /// Actual rule.
    pub actual_rule: Option<String>,
    /// Actual reason, if any.
    pub reason: Option<String>,
    /// How a check failed (e.g. `timeout`), and its message.
    pub error: Option<(ErrorKind, String)>,
}

/// Errors reading or running a case file.
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
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
    pub fn from_file(path: &Path) -> Result<Self, CaseError> {
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
    pub fn target(
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
pub async fn run_file(path: &Path, target: Option<&Target>) -> Result<Vec<CaseResult>, CaseError> {
    let file = CaseFile::from_file(path)?;
    if file.cases.is_empty() {
        return Err(CaseError::File {
            path: path.to_path_buf(),
            message: "`cases` is empty: a case file must test at least one call".into(),
        });
    }
    let target = file.target(path, target)?;
    let mut requests = Vec::with_capacity(file.cases.len());
    for case in &file.cases {
        let mut shape = serde_json::Map::new();
        shape.insert("call".into(), case.call.clone());
        if let Some(tool) = &case.tool {
            shape.insert("tool".into(), tool.clone());
        }
        if let Some(context) = case.context.as_ref().or(file.context.as_ref()) {
            shape.insert("context".into(), context.clone());
        }
        let request =
            CallRequest::from_value(Value::Object(shape)).map_err(|e| CaseError::Case {
                path: path.to_path_buf(),
                case: case.name.clone(),
                message: e.to_string(),
            })?;
        requests.push(request);
    }
    let load_err = |error| CaseError::Load {
        path: path.to_path_buf(),
        error,
    };
    let mut results = Vec::with_capacity(file.cases.len());
    match target {
        Target::Policy(config) => {
            let policy = toolvet::Policy::from_file(&config)
                .map_err(|e| load_err(toolvet::Error::Config(e)))?;
            let host = Host::load_with(policy, crate::progress::load_options())
                .await
                .map_err(load_err)?;
            for (case, request) in file.cases.iter().zip(&requests) {
                let v = host.check(request).await;
                let error = v.checks.iter().find_map(|o| {
                    o.error
                        .as_ref()
                        .map(|e| (e.kind, format!("check `{}`: {}", o.check, e.message)))
                });
                results.push(result(case, v.decision.into(), v.rule, v.reason, error));
            }
        }
        Target::Plugin(plugin) => {
            // One host per distinct settings value; most files have one.
            let mut hosts: BTreeMap<String, Host> = BTreeMap::new();
            for (case, request) in file.cases.iter().zip(&requests) {
                let settings = case
                    .settings
                    .clone()
                    .or_else(|| file.settings.clone())
                    .unwrap_or_else(|| Value::Object(Default::default()));
                let key = settings.to_string();
                if !hosts.contains_key(&key) {
                    let policy = single_check_policy(path, &plugin, settings, file.tools.clone());
                    let host = Host::load_with(policy, crate::progress::load_options())
                        .await
                        .map_err(load_err)?;
                    hosts.insert(key.clone(), host);
                }
                let v = hosts[&key].check(request).await;
                let (decision, rule, reason, error) = match v.checks.into_iter().next() {
                    // Refused before any check ran (an oversized call).
                    None if v.rule.is_some() => (v.decision.into(), v.rule, v.reason, None),
                    None => (CheckDecision::Abstain, None, None, None),
                    Some(o) => (
                        o.decision,
                        o.rule,
                        o.reason,
                        o.error.map(|e| (e.kind, e.message)),
                    ),
                };
                results.push(result(case, decision, rule, reason, error));
            }
        }
    }
    Ok(results)
}

fn single_check_policy(
    case_file: &Path,
    plugin: &Path,
    settings: Value,
    tools: Option<Vec<String>>,
) -> Policy {
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

fn result(
    case: &Case,
    actual: CheckDecision,
    actual_rule: Option<String>,
    reason: Option<String>,
    error: Option<(ErrorKind, String)>,
) -> CaseResult {
    let rule_ok = case.rule.is_none() || case.rule == actual_rule;
    let error_ok = case.error == error.as_ref().map(|(kind, _)| *kind);
    CaseResult {
        name: case.name.clone(),
        passed: actual == case.expect && rule_ok && error_ok,
        expected: case.expect,
        expected_rule: case.rule.clone(),
        expected_error: case.error,
        actual,
        actual_rule,
        reason,
        error,
    }
}
