//! Settings (the JSON handed to `configure`) and their validated, compiled
//! form [`Options`].

use globset::{Glob, GlobBuilder, GlobMatcher};
use serde::Deserialize;

/// Default names of the argument that holds the command text.
pub const DEFAULT_COMMAND_ARGS: &[&str] = check_catalog::roles::COMMAND_ARGS;
/// Default scratch roots: recursive deletes strictly inside them are allowed.
pub const DEFAULT_SCRATCH_ROOTS: &[&str] = &["/tmp", "/var/tmp"];
/// Default protected branches for `git push --force`.
pub const DEFAULT_PROTECTED_BRANCHES: &[&str] = &["main", "master"];
/// Default bound on nested scripts (`bash -c`, `eval`, `$(…)`, …).
pub const DEFAULT_MAX_DEPTH: u32 = 8;
/// Default bound on the command text, in bytes.
pub const DEFAULT_MAX_COMMAND_BYTES: usize = 100_000;

/// The check's settings as written in `[check.settings]`. Every key is
/// optional; unknown keys are an error naming the key.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    /// Argument names that may hold the command (first present wins).
    pub command_args: Vec<String>,
    /// Argument names that may hold the working directory of the call,
    /// besides every name of the catalog's working-directory family
    /// (`check_catalog::workdir`: `cwd`, `workdir`, `working_dir`,
    /// `workingDirectory`, `directory`, `dir`, `dir_path`, `options.cwd`,
    /// …), which is always read. Each value found is judged, with the
    /// `cwd` context attribute.
    pub cwd_args: Vec<String>,
    /// Absolute directories the agent may delete inside. Empty: the call's
    /// working directory is the workspace.
    pub workspace_roots: Vec<String>,
    /// Absolute directories (like `/tmp`) inside which recursive deletes are
    /// allowed too.
    pub scratch_roots: Vec<String>,
    /// Branch names (globs, e.g. `release/*`) that must not be force-pushed.
    pub protected_branches: Vec<String>,
    /// Escalate `sudo`, `doas`, `su`, `pkexec` and `run0`.
    pub escalate_sudo: bool,
    /// Extra rules that deny a matching simple command.
    pub deny_patterns: Vec<PatternRule>,
    /// Extra rules that escalate a matching simple command.
    pub escalate_patterns: Vec<PatternRule>,
    /// Globs of simple commands exempt from the built-in rules and from
    /// `escalate_patterns` (never from `deny_patterns`).
    pub allow_commands: Vec<String>,
    /// Nesting bound for scripts inside scripts.
    pub max_depth: u32,
    /// Longest command text analysed, in bytes; longer ones escalate.
    pub max_command_bytes: usize,
    /// What infrastructure and data destroyers (`terraform destroy`,
    /// `kubectl delete namespace`, `dropdb`, …) get: `escalate` (default),
    /// `deny` or `allow`.
    pub destructive_action: toolvet_pdk::Action,
    /// Hosts (and their subdomains) whose package indexes and files are
    /// trusted like the public registries (an in-house mirror):
    /// `shell.package-source` does not hold installs from them.
    pub trusted_package_hosts: Vec<String>,
    /// Package names `shell.package-typo` never takes for a near-miss of a
    /// popular one, and Go module paths (each with the paths below it)
    /// whose `go install PATH@VERSION` `shell.package-source` does not hold.
    pub trusted_packages: Vec<String>,
}

impl Default for Settings {
    fn default() -> Self {
        let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect();
        Self {
            command_args: strings(DEFAULT_COMMAND_ARGS),
            cwd_args: Vec::new(),
            workspace_roots: Vec::new(),
            scratch_roots: strings(DEFAULT_SCRATCH_ROOTS),
            protected_branches: strings(DEFAULT_PROTECTED_BRANCHES),
            escalate_sudo: true,
            deny_patterns: Vec::new(),
            escalate_patterns: Vec::new(),
            allow_commands: Vec::new(),
            max_depth: DEFAULT_MAX_DEPTH,
            max_command_bytes: DEFAULT_MAX_COMMAND_BYTES,
            destructive_action: toolvet_pdk::Action::Escalate,
            trusted_package_hosts: Vec::new(),
            trusted_packages: Vec::new(),
        }
    }
}

/// One user rule of `deny_patterns` / `escalate_patterns`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PatternRule {
    /// Glob over a normalised simple command, e.g. `npm publish*`. `*`
    /// matches any text including `/` and spaces.
    pub pattern: String,
    /// The rule id reported, e.g. `team.npm-publish`.
    pub rule: String,
    /// The message shown to the model (deny) or the approver (escalate).
    /// Default: says which pattern matched.
    #[serde(default)]
    pub message: Option<String>,
}

/// A compiled user rule.
#[derive(Debug, Clone)]
pub struct CompiledRule {
    /// The glob as written.
    pub pattern: String,
    /// Its matcher.
    pub matcher: GlobMatcher,
    /// Rule id.
    pub rule: String,
    /// Message.
    pub message: String,
}

/// Validated settings, ready for [`crate::analyze`].
#[derive(Debug, Clone)]
pub struct Options {
    /// See [`Settings::command_args`].
    pub command_args: Vec<String>,
    /// See [`Settings::cwd_args`].
    pub cwd_args: Vec<String>,
    /// Normalised absolute workspace roots (may be empty).
    pub workspace_roots: Vec<String>,
    /// Normalised absolute scratch roots.
    pub scratch_roots: Vec<String>,
    /// Protected-branch globs as written.
    pub protected_branches: Vec<String>,
    protected_matchers: Vec<GlobMatcher>,
    /// See [`Settings::escalate_sudo`].
    pub escalate_sudo: bool,
    /// Compiled `deny_patterns`.
    pub deny_patterns: Vec<CompiledRule>,
    /// Compiled `escalate_patterns`.
    pub escalate_patterns: Vec<CompiledRule>,
    allow_commands: Vec<GlobMatcher>,
    /// See [`Settings::max_depth`].
    pub max_depth: u32,
    /// See [`Settings::max_command_bytes`].
    pub max_command_bytes: usize,
    /// See [`Settings::destructive_action`].
    pub destructive_action: toolvet_pdk::Action,
    /// See [`Settings::trusted_package_hosts`] (lower case, no trailing dot).
    pub trusted_package_hosts: Vec<String>,
    /// See [`Settings::trusted_packages`].
    pub trusted_packages: Vec<String>,
}

/// `values`, each checked non-empty (the error names `key[i]`).
fn non_empty(key: &str, values: Vec<String>) -> Result<Vec<String>, String> {
    match values.iter().position(|v| v.trim().is_empty()) {
        Some(i) => Err(format!("settings.{key}[{i}]: must not be empty")),
        None => Ok(values),
    }
}

impl Default for Options {
    fn default() -> Self {
        Options::from_settings(Settings::default()).expect("the default settings are valid")
    }
}

fn command_glob(pattern: &str) -> Result<GlobMatcher, String> {
    GlobBuilder::new(pattern)
        .literal_separator(false)
        .backslash_escape(true)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| e.to_string())
}

fn absolute_dir(key: &str, i: usize, dir: &str) -> Result<String, String> {
    if !dir.starts_with('/') {
        return Err(format!(
            "settings.{key}[{i}]: `{dir}` must be an absolute path"
        ));
    }
    let norm = crate::paths::normalize_abs(dir);
    if norm == "/" {
        return Err(format!(
            "settings.{key}[{i}]: `/` cannot be a root: it would cover the whole filesystem"
        ));
    }
    Ok(norm)
}

fn compile_rules(key: &str, rules: Vec<PatternRule>) -> Result<Vec<CompiledRule>, String> {
    rules
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            if r.pattern.trim().is_empty() {
                return Err(format!("settings.{key}[{i}].pattern: must not be empty"));
            }
            if r.rule.trim().is_empty() {
                return Err(format!("settings.{key}[{i}].rule: must not be empty"));
            }
            let matcher = command_glob(&r.pattern)
                .map_err(|e| format!("settings.{key}[{i}].pattern: {e}"))?;
            let message = r.message.unwrap_or_else(|| {
                format!(
                    "The command matches the configured pattern `{}`.",
                    r.pattern
                )
            });
            Ok(CompiledRule {
                pattern: r.pattern,
                matcher,
                rule: r.rule,
                message,
            })
        })
        .collect()
}

impl Options {
    /// Validate and compile settings.
    ///
    /// # Errors
    /// A message naming the offending key, e.g.
    /// `settings.workspace_roots[0]: `src` must be an absolute path`.
    pub fn from_settings(s: Settings) -> Result<Self, String> {
        if s.command_args.is_empty() {
            return Err("settings.command_args: must name at least one argument".into());
        }
        if let Some(i) = s.command_args.iter().position(|a| a.is_empty()) {
            return Err(format!("settings.command_args[{i}]: must not be empty"));
        }
        if let Some(i) = s.cwd_args.iter().position(|a| a.is_empty()) {
            return Err(format!("settings.cwd_args[{i}]: must not be empty"));
        }
        let workspace_roots = s
            .workspace_roots
            .iter()
            .enumerate()
            .map(|(i, d)| absolute_dir("workspace_roots", i, d))
            .collect::<Result<Vec<_>, _>>()?;
        let scratch_roots = s
            .scratch_roots
            .iter()
            .enumerate()
            .map(|(i, d)| absolute_dir("scratch_roots", i, d))
            .collect::<Result<Vec<_>, _>>()?;
        let protected_matchers = s
            .protected_branches
            .iter()
            .enumerate()
            .map(|(i, b)| {
                if b.is_empty() {
                    return Err(format!(
                        "settings.protected_branches[{i}]: must not be empty"
                    ));
                }
                Glob::new(b)
                    .map(|g| g.compile_matcher())
                    .map_err(|e| format!("settings.protected_branches[{i}]: {e}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let allow_commands = s
            .allow_commands
            .iter()
            .enumerate()
            .map(|(i, p)| {
                if p.trim().is_empty() {
                    return Err(format!("settings.allow_commands[{i}]: must not be empty"));
                }
                command_glob(p).map_err(|e| format!("settings.allow_commands[{i}]: {e}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        if !(1..=32).contains(&s.max_depth) {
            return Err(format!(
                "settings.max_depth: {} is out of range (1 to 32)",
                s.max_depth
            ));
        }
        if !(16..=10_000_000).contains(&s.max_command_bytes) {
            return Err(format!(
                "settings.max_command_bytes: {} is out of range (16 to 10000000)",
                s.max_command_bytes
            ));
        }
        Ok(Options {
            command_args: s.command_args,
            cwd_args: s.cwd_args,
            workspace_roots,
            scratch_roots,
            protected_branches: s.protected_branches,
            protected_matchers,
            escalate_sudo: s.escalate_sudo,
            deny_patterns: compile_rules("deny_patterns", s.deny_patterns)?,
            escalate_patterns: compile_rules("escalate_patterns", s.escalate_patterns)?,
            allow_commands,
            max_depth: s.max_depth,
            max_command_bytes: s.max_command_bytes,
            destructive_action: s.destructive_action.one_of(
                &[
                    toolvet_pdk::Action::Escalate,
                    toolvet_pdk::Action::Deny,
                    toolvet_pdk::Action::Allow,
                ],
                &toolvet_pdk::Key::new("destructive_action"),
            )?,
            trusted_package_hosts: non_empty("trusted_package_hosts", s.trusted_package_hosts)?
                .into_iter()
                .map(|h| h.trim_end_matches('.').to_ascii_lowercase())
                .collect(),
            trusted_packages: non_empty("trusted_packages", s.trusted_packages)?,
        })
    }

    /// Whether `branch` (short name, `refs/heads/` stripped) is protected.
    pub fn is_protected(&self, branch: &str) -> bool {
        self.protected_matchers.iter().any(|m| m.is_match(branch))
    }

    /// Whether any `allow_commands` are configured.
    pub fn has_allow_commands(&self) -> bool {
        !self.allow_commands.is_empty()
    }

    /// Whether a normalised simple command is listed in `allow_commands`.
    pub fn is_allowed_command(&self, normalised: &str) -> bool {
        self.allow_commands.iter().any(|m| m.is_match(normalised))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from_json(j: &str) -> Result<Options, String> {
        let s: Settings = serde_json::from_str(j).map_err(|e| e.to_string())?;
        Options::from_settings(s)
    }

    #[test]
    fn defaults() {
        let o = Options::default();
        assert_eq!(o.command_args, ["command", "cmd", "script"]);
        assert!(o.is_protected("main"));
        assert!(o.is_protected("master"));
        assert!(!o.is_protected("feature-x"));
        assert_eq!(o.scratch_roots, ["/tmp", "/var/tmp"]);
        assert!(o.escalate_sudo);
    }

    #[test]
    fn bad_settings_name_the_key() {
        let e = from_json(r#"{"workspace_roots":["src"]}"#).unwrap_err();
        assert!(e.starts_with("settings.workspace_roots[0]"), "{e}");
        let e = from_json(r#"{"workspace_roots":["/"]}"#).unwrap_err();
        assert!(e.starts_with("settings.workspace_roots[0]"), "{e}");
        let e = from_json(r#"{"deny_patterns":[{"pattern":"a[","rule":"x.y"}]}"#).unwrap_err();
        assert!(e.starts_with("settings.deny_patterns[0].pattern"), "{e}");
        let e = from_json(r#"{"escalate_patterns":[{"pattern":"a","rule":""}]}"#).unwrap_err();
        assert!(e.starts_with("settings.escalate_patterns[0].rule"), "{e}");
        let e = from_json(r#"{"max_depth":0}"#).unwrap_err();
        assert!(e.starts_with("settings.max_depth"), "{e}");
        let e = from_json(r#"{"command_args":[]}"#).unwrap_err();
        assert!(e.starts_with("settings.command_args"), "{e}");
        let e = from_json(r#"{"protected_branches":["release/[x"]}"#).unwrap_err();
        assert!(e.starts_with("settings.protected_branches[0]"), "{e}");
    }

    #[test]
    fn protected_branch_globs_and_allow_commands() {
        let o = from_json(
            r#"{"protected_branches":["release/*","main"],"allow_commands":["rm -rf /opt/cache/*"]}"#,
        )
        .unwrap();
        assert!(o.is_protected("release/1.2"));
        assert!(!o.is_protected("master"));
        assert!(o.is_allowed_command("rm -rf /opt/cache/x/y"));
        assert!(!o.is_allowed_command("rm -rf /opt"));
    }

    #[test]
    fn roots_are_normalised() {
        let o = from_json(r#"{"workspace_roots":["/srv/app/../app/"]}"#).unwrap();
        assert_eq!(o.workspace_roots, ["/srv/app"]);
    }
}
