//! toolvet's own state as guard rails, passed to every check on every call.
//!
//! The shipped checks (shell-guard, path-guard, through the catalog) deny a
//! write onto any path listed in the call-context attribute
//! [`STATE_PATHS_ATTRIBUTE`] and a read or write of any path listed in
//! [`SECRET_PATHS_ATTRIBUTE`]: each a JSON array of absolute paths, a path
//! covering everything under it (and an SQLite file its `-wal`, `-shm` and
//! `-journal` files). An agent that could rewrite the policy, flip a row of
//! the approval ledger or read the ticket key could approve its own calls.
//!
//! The host computes these paths once per loaded policy (a generation) from
//! the policy itself ([`StatePaths::state`] lists what it holds) plus what
//! the front end adds ([`crate::LoadOptions::extra_state_paths`],
//! [`crate::LoadOptions::extra_secret_paths`]), and adds them to every call
//! in the one place every front end goes through: the conversion of a
//! [`crate::CallRequest`] for the checks. The caller's own attributes of
//! the same names are unioned with them, so a caller can add guard rails but
//! never remove the host's; a caller's value that is not a JSON array of
//! absolute paths is refused before any check runs (rule
//! [`INVALID_STATE_PATHS_RULE`]), whatever the checks' `on_error`.

use crate::config::{KeySource, LedgerLocation, Policy};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

/// The call-context attribute holding toolvet's state paths: a JSON array
/// of absolute paths that no tool may write, move or delete.
pub const STATE_PATHS_ATTRIBUTE: &str = "toolvet.state_paths";

/// The call-context attribute holding toolvet's secret paths: a JSON array
/// of absolute paths that no tool may read either.
pub const SECRET_PATHS_ATTRIBUTE: &str = "toolvet.secret_paths";

/// Rule of a verdict denied because the caller sent one of the two
/// attributes in a form the checks cannot use (not a JSON array of
/// absolute paths).
pub const INVALID_STATE_PATHS_RULE: &str = "toolvet.invalid-state-paths";

/// The files a front-end table of a policy names ([`Policy::front_ends`]:
/// `[serve]`, `[mcp]`, `[hooks]`, …), as written (relative ones are
/// relative to the policy file's directory): every string under a key
/// `file` or ending in `_file`, at any depth (`reviewer_token_file`,
/// `agent_tokens = [{ file = … }]`). The front ends' keys that name files
/// follow this spelling, so every program that loads the policy (a hook
/// does not start a server) knows them as secrets without knowing the
/// other front ends' settings (review s11 K3).
pub fn front_end_files(table: &serde_json::Value) -> Vec<String> {
    strings_under(table, &|key| key == "file" || key.ends_with("_file"))
}

/// The directories a front-end table of a policy names, as written: every
/// string under a key `dir` or ending in `_dir`, at any depth (`[hooks]
/// state_dir`, where the hooks keep each session's history). Every program
/// that loads the policy lists them as toolvet's state, so a tool the
/// Python gate or `toolvet check` vets cannot delete the history the hooks
/// count limits by (review s23 F7).
pub fn front_end_dirs(table: &serde_json::Value) -> Vec<String> {
    strings_under(table, &|key| key == "dir" || key.ends_with("_dir"))
}

/// Every non-empty string of `table` under a key `names_path` accepts, at
/// any depth (in arrays and nested tables below that key too).
fn strings_under(table: &serde_json::Value, names_path: &dyn Fn(&str) -> bool) -> Vec<String> {
    fn walk(
        value: &serde_json::Value,
        under: bool,
        names_path: &dyn Fn(&str) -> bool,
        out: &mut Vec<String>,
    ) {
        match value {
            serde_json::Value::String(s) if under && !s.is_empty() => out.push(s.clone()),
            serde_json::Value::Array(items) => {
                for item in items {
                    walk(item, under, names_path, out);
                }
            }
            serde_json::Value::Object(map) => {
                for (key, item) in map {
                    walk(item, names_path(key), names_path, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(table, false, names_path, &mut out);
    out
}

/// The paths of toolvet's own state that the host hands to every check
/// (see the [module documentation](self)): absolute, lexically clean (no
/// `.`, `..`, `//` or trailing `/`), sorted, each once. A path reached
/// through a symbolic link is listed both as written and resolved.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatePaths {
    state: Vec<String>,
    secret: Vec<String>,
    /// `state` as JSON, made once: most calls carry no attribute of their
    /// own, and get this text as it is.
    state_json: String,
    /// `secret` as JSON.
    secret_json: String,
}

impl StatePaths {
    /// The state paths of `policy`, plus `extra_state` and `extra_secret`
    /// (relative ones resolve against the current directory):
    ///
    /// - state (no tool writes them): the policy file, the SQLite approval
    ///   ledger, the decision log with its anchor (`<log>.anchor`) and the
    ///   rotated files it has now (`<log>.NNNNNN`), the compiled-artifact
    ///   cache directory, every check's plugin file;
    /// - secret (no tool reads them either): the approvals `key_file`, the
    ///   decision log's anchor key (`<log>.key`), the artifact cache's key
    ///   (`<cache>/key`), and every file a front-end table names
    ///   ([`front_end_files`]: e.g. `[serve]`'s agent, reviewer, gateway and metrics token
    ///   files, whose lines are credentials: appending a line to the
    ///   reviewer token file makes its writer a reviewer);
    /// - state too: every directory a front-end table names
    ///   ([`front_end_dirs`]: `[hooks] state_dir`).
    ///
    /// # Errors
    /// A path that cannot be made absolute (the current directory is
    /// unreadable) or is not UTF-8, naming it: the checks could not be told
    /// about it, so the policy does not load.
    pub(crate) fn for_policy(
        policy: &Policy,
        extra_state: &[PathBuf],
        extra_secret: &[PathBuf],
    ) -> Result<StatePaths, String> {
        let mut state: Vec<PathBuf> = Vec::new();
        let mut secret: Vec<PathBuf> = Vec::new();
        // `Policy::source` names the file for a policy read from one; a
        // policy built in code has a name there that is no file.
        if policy.source.is_file() {
            state.push(policy.source.clone());
        }
        if let Some(approvals) = &policy.approvals {
            match &approvals.ledger {
                LedgerLocation::Sqlite(path) => state.push(path.clone()),
                LedgerLocation::Memory | LedgerLocation::Postgres(_) => {}
            }
            match &approvals.key {
                KeySource::File(path) => secret.push(path.clone()),
                KeySource::Env(_) => {}
            }
        }
        if let Some(log) = &policy.host.decision_log {
            // The rotated files there are now; the log itself is always
            // listed (the last entry).
            match crate::audit::log_files(log) {
                Ok(files) => state.extend(files),
                Err(_) => state.push(log.clone()),
            }
            state.push(crate::audit::anchor_path(log));
            secret.push(crate::audit::anchor_key_path(log));
        }
        if let Some(cache) = crate::cache::ArtifactCache::dir_for(&policy.host) {
            secret.push(cache.join("key"));
            state.push(cache);
        }
        let base = policy.source.parent().unwrap_or(Path::new(""));
        for table in policy.front_ends.values() {
            secret.extend(front_end_files(table).into_iter().map(|f| base.join(f)));
            state.extend(front_end_dirs(table).into_iter().map(|d| base.join(d)));
        }
        state.extend(policy.checks.iter().map(|c| c.plugin.clone()));
        state.extend(extra_state.iter().cloned());
        secret.extend(extra_secret.iter().cloned());
        let state = spelled(&state)?;
        let secret = spelled(&secret)?;
        Ok(StatePaths {
            state_json: serde_json::to_string(&state).expect("strings serialize"),
            secret_json: serde_json::to_string(&secret).expect("strings serialize"),
            state,
            secret,
        })
    }

    /// The paths no tool may write (the value of
    /// [`STATE_PATHS_ATTRIBUTE`] on a call that sends none).
    pub fn state(&self) -> &[String] {
        &self.state
    }

    /// The paths no tool may read or write (the value of
    /// [`SECRET_PATHS_ATTRIBUTE`] on a call that sends none).
    pub fn secret(&self) -> &[String] {
        &self.secret
    }

    /// Why the caller's attributes cannot carry the host's paths: one of
    /// the two attributes is there but is not a JSON array of absolute
    /// paths. `None` when they can.
    pub(crate) fn refusal(&self, attributes: &BTreeMap<String, String>) -> Option<String> {
        [STATE_PATHS_ATTRIBUTE, SECRET_PATHS_ATTRIBUTE]
            .into_iter()
            .find_map(|name| {
                let text = attributes.get(name)?;
                caller_paths(name, text).err()
            })
    }

    /// The attributes the checks get for a call whose context has
    /// `attributes`: those, with the host's paths unioned into the two
    /// attributes (added when the caller sent none). A caller's value that
    /// [`StatePaths::refusal`] refuses is replaced by the host's paths
    /// alone (the call is refused before this is used; never does such a
    /// value take the host's paths away).
    pub(crate) fn attributes(
        &self,
        attributes: &BTreeMap<String, String>,
    ) -> Vec<(String, String)> {
        let mut out = Vec::with_capacity(attributes.len() + 2);
        let mut seen = (false, false);
        for (key, value) in attributes {
            let merged = if key == STATE_PATHS_ATTRIBUTE {
                seen.0 = true;
                union(key, value, &self.state, &self.state_json)
            } else if key == SECRET_PATHS_ATTRIBUTE {
                seen.1 = true;
                union(key, value, &self.secret, &self.secret_json)
            } else {
                value.clone()
            };
            out.push((key.clone(), merged));
        }
        if !seen.0 && !self.state.is_empty() {
            out.push((STATE_PATHS_ATTRIBUTE.into(), self.state_json.clone()));
        }
        if !seen.1 && !self.secret.is_empty() {
            out.push((SECRET_PATHS_ATTRIBUTE.into(), self.secret_json.clone()));
        }
        out
    }
}

/// The caller's paths in attribute `name`, cleaned.
fn caller_paths(name: &str, text: &str) -> Result<Vec<String>, String> {
    let paths: Vec<String> = serde_json::from_str(text).map_err(|e| {
        format!("context.attributes[\"{name}\"]: expected a JSON array of absolute paths: {e}")
    })?;
    paths
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if p.starts_with('/') {
                Ok(clean(p))
            } else {
                Err(format!(
                    "context.attributes[\"{name}\"][{i}]: `{}` is not an absolute path",
                    crate::display::visible(p)
                ))
            }
        })
        .collect()
}

/// The caller's paths in `value` and the host's `own`, as one JSON array
/// (the host's JSON as it is when the caller adds nothing new).
fn union(name: &str, value: &str, own: &[String], own_json: &str) -> String {
    let Ok(theirs) = caller_paths(name, value) else {
        return own_json.to_string();
    };
    let mut all: BTreeSet<&str> = own.iter().map(String::as_str).collect();
    let before = all.len();
    all.extend(theirs.iter().map(String::as_str));
    if all.len() == before {
        return own_json.to_string();
    }
    serde_json::to_string(&all).expect("strings serialize")
}

/// `paths` absolute and lexically clean, with the form each resolves to
/// through symbolic links when that differs, sorted and each once.
fn spelled(paths: &[PathBuf]) -> Result<Vec<String>, String> {
    let mut out = BTreeSet::new();
    for path in paths {
        let absolute = std::path::absolute(path).map_err(|e| {
            format!(
                "toolvet's state path {} cannot be made absolute: {e}",
                path.display()
            )
        })?;
        let lexical = clean_path(&absolute);
        let resolved = resolve(&lexical);
        for form in std::iter::once(lexical).chain(resolved) {
            let text = form.to_str().ok_or_else(|| {
                format!(
                    "toolvet's state path {} is not UTF-8, so the checks cannot be told about it",
                    form.display()
                )
            })?;
            out.insert(text.to_string());
        }
    }
    Ok(out.into_iter().collect())
}

/// `path` with every symbolic link resolved: of the path itself, or of its
/// directory when the file does not exist yet. `None` when that is
/// `path` already, or cannot be known.
fn resolve(path: &Path) -> Option<PathBuf> {
    let resolved = std::fs::canonicalize(path).ok().or_else(|| {
        let (dir, name) = (path.parent()?, path.file_name()?);
        Some(std::fs::canonicalize(dir).ok()?.join(name))
    })?;
    (resolved != path).then_some(resolved)
}

/// An absolute `path` without `.` and `..` segments (`..` removes the
/// segment before it, as the checks clean the paths they compare).
fn clean_path(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for component in path.components() {
        match component {
            Component::Normal(segment) => out.push(segment),
            Component::ParentDir => {
                out.pop();
            }
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

/// [`clean_path`] for a path the caller sent as text.
fn clean(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    format!("/{}", parts.join("/"))
}

/// `path` with `suffix` appended to its file name.
#[cfg(test)]
mod tests {
    use super::*;

    fn host(state: &[&str], secret: &[&str]) -> StatePaths {
        let state: Vec<String> = state.iter().map(|s| s.to_string()).collect();
        let secret: Vec<String> = secret.iter().map(|s| s.to_string()).collect();
        StatePaths {
            state_json: serde_json::to_string(&state).unwrap(),
            secret_json: serde_json::to_string(&secret).unwrap(),
            state,
            secret,
        }
    }

    fn attrs(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn value<'a>(out: &'a [(String, String)], key: &str) -> &'a str {
        let found: Vec<_> = out.iter().filter(|(k, _)| k == key).collect();
        assert_eq!(found.len(), 1, "{key} once in {out:?}");
        &found[0].1
    }

    #[test]
    fn the_hosts_paths_are_added_and_never_removed() {
        let host = host(&["/p/toolvet.toml", "/s/ledger.sqlite"], &["/s/sign.bin"]);
        // None sent: the host's arrays.
        let out = host.attributes(&attrs(&[("cwd", "/w")]));
        assert_eq!(value(&out, "cwd"), "/w");
        assert_eq!(
            value(&out, STATE_PATHS_ATTRIBUTE),
            r#"["/p/toolvet.toml","/s/ledger.sqlite"]"#
        );
        assert_eq!(value(&out, SECRET_PATHS_ATTRIBUTE), r#"["/s/sign.bin"]"#);
        // An empty array removes nothing.
        let out = host.attributes(&attrs(&[
            (STATE_PATHS_ATTRIBUTE, "[]"),
            (SECRET_PATHS_ATTRIBUTE, "[]"),
        ]));
        assert_eq!(
            value(&out, STATE_PATHS_ATTRIBUTE),
            r#"["/p/toolvet.toml","/s/ledger.sqlite"]"#
        );
        assert_eq!(value(&out, SECRET_PATHS_ATTRIBUTE), r#"["/s/sign.bin"]"#);
        // The caller's paths are added, cleaned, each once.
        let out = host.attributes(&attrs(&[(
            STATE_PATHS_ATTRIBUTE,
            r#"["/h/state/", "/p/./toolvet.toml", "/x/../h/state"]"#,
        )]));
        assert_eq!(
            value(&out, STATE_PATHS_ATTRIBUTE),
            r#"["/h/state","/p/toolvet.toml","/s/ledger.sqlite"]"#
        );
    }

    #[test]
    fn a_caller_value_the_checks_cannot_use_is_refused_and_never_passed() {
        let host = host(&["/p/toolvet.toml"], &["/s/sign.bin"]);
        for (key, bad) in [
            (STATE_PATHS_ATTRIBUTE, "\"/p\""),
            (STATE_PATHS_ATTRIBUTE, "[1]"),
            (SECRET_PATHS_ATTRIBUTE, "[\"relative/key\"]"),
            (SECRET_PATHS_ATTRIBUTE, "not json"),
        ] {
            let sent = attrs(&[(key, bad)]);
            let why = host.refusal(&sent).expect(bad);
            assert!(
                why.starts_with(&format!("context.attributes[\"{key}\"]")),
                "{why}"
            );
            let out = host.attributes(&sent);
            let own = if key == STATE_PATHS_ATTRIBUTE {
                r#"["/p/toolvet.toml"]"#
            } else {
                r#"["/s/sign.bin"]"#
            };
            assert_eq!(value(&out, key), own);
        }
        assert_eq!(
            host.refusal(&attrs(&[(STATE_PATHS_ATTRIBUTE, "[\"/a\"]")])),
            None
        );
    }

    #[test]
    fn paths_are_absolute_clean_and_resolved() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir(&real).unwrap();
        std::os::unix::fs::symlink(&real, dir.path().join("link")).unwrap();
        let through_link = dir.path().join("link/./sub/../ledger.sqlite");
        let out = spelled(&[through_link]).unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let written = clean_path(&dir.path().join("link/ledger.sqlite"));
        let resolved = base.join("real/ledger.sqlite");
        let mut want = vec![
            written.to_str().unwrap().to_string(),
            resolved.to_str().unwrap().to_string(),
        ];
        want.sort();
        want.dedup();
        assert_eq!(out, want);
        // Relative paths resolve against the current directory.
        let cwd = std::env::current_dir().unwrap();
        let out = spelled(&[PathBuf::from("no-such-dir/x.db")]).unwrap();
        assert!(
            out.contains(
                &clean_path(&cwd.join("no-such-dir/x.db"))
                    .to_str()
                    .unwrap()
                    .to_string()
            ),
            "{out:?}"
        );
    }

    /// Review s11 K3: the token files of `[serve]` are secrets of every
    /// front end that loads the policy (a hook starts no server).
    #[test]
    fn the_serve_tables_token_files_are_secrets() {
        let policy = Policy::from_toml(
            "[serve]\nreviewer_token_file = \"state/reviewer.tokens\"\n\
             agent_tokens = [{ label = \"a\", file = \"/etc/t/a\", principals = [\"a@x\"] }]\n\
             listen = \"127.0.0.1:9\"\n",
            Path::new("/p/toolvet.toml"),
            Path::new("/p"),
        )
        .unwrap();
        let paths = StatePaths::for_policy(&policy, &[], &[]).unwrap();
        for file in ["/p/state/reviewer.tokens", "/etc/t/a"] {
            assert!(
                paths.secret().iter().any(|p| p == file),
                "{file}: {paths:?}"
            );
        }
        assert!(!paths.secret().iter().any(|p| p.contains("127.0.0.1")));
    }

    /// Review s23 F7: `[hooks] state_dir` is toolvet's state in every
    /// front end that loads the policy, not only in the hooks.
    #[test]
    fn the_hooks_state_dir_is_state_everywhere() {
        let policy = Policy::from_toml(
            "[hooks]\nstate_dir = \"state/hooks\"\n",
            Path::new("/p/toolvet.toml"),
            Path::new("/p"),
        )
        .unwrap();
        let paths = StatePaths::for_policy(&policy, &[], &[]).unwrap();
        assert!(
            paths.state().iter().any(|p| p == "/p/state/hooks"),
            "{paths:?}"
        );
        assert!(!paths.secret().iter().any(|p| p == "/p/state/hooks"));
        assert_eq!(
            front_end_dirs(
                &serde_json::json!({"state_dir": "s", "grant_allow": ["x"], "t": {"dir": "d"}})
            ),
            ["s", "d"]
        );
    }
}
