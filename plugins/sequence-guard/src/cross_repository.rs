//! `sequence.cross-repository` (on by default, escalates): a call that
//! publishes text into one repository after the run touched another.
//!
//! An agent that reads a private repository and then comments, opens a
//! pull request or writes a file in another repository can carry what it
//! read into a place others read, public or not: the cross-repository leak
//! shown against GitHub's MCP server, where an issue in a public repository
//! had the agent copy a private one's content into a pull request. The
//! check cannot know which repository is public, so it holds the flow
//! itself for a person: text published into a repository other than one
//! the run's earlier calls named.
//!
//! - **The call**: the host's facts say it writes, publishes or sends, and
//!   find both a [`Role::Repository`] and a [`Role::OutboundContent`]
//!   argument (a comment's body, a pull request's title, a file's
//!   content). Without facts, the rule does not judge (facts only add).
//! - **Its repository and the run's**: named by the arguments the
//!   repository tools of GitHub, GitLab and Gitea take: `owner` with `repo`
//!   (or `repository`), or one value `OWNER/NAME` under a repository or
//!   project key ([`repository_of`]). Earlier calls count when they ran.
//! - **Forks**: two repositories of the same name under different owners
//!   are taken as a fork and its upstream (a pull request from a fork is
//!   the ordinary way to contribute), not as two repositories.

use toolvet_pdk::serde_json::{self, Value};
use toolvet_pdk::{Action, Context, Decision, Effects, Key, Role, ToolCall, ToolInfo};

use serde::Deserialize;

/// Keys naming a repository's owner, beside [`NAME_KEYS`].
const OWNER_KEYS: &[&str] = &["owner"];

/// Keys naming a repository within its owner, beside [`OWNER_KEYS`].
const NAME_KEYS: &[&str] = &["repo", "repository", "repo_name", "repository_name"];

/// Keys naming a repository whole, as `OWNER/NAME` (GitLab: `GROUP/…/NAME`).
const FULL_KEYS: &[&str] = &[
    "repo",
    "repository",
    "full_name",
    "repo_full_name",
    "repository_full_name",
    "project_path",
    "project_id",
    "project",
];

/// `cross_repository` settings.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CrossRepositorySetting {
    /// Default `true`.
    pub enabled: bool,
    /// `escalate` (default) or `deny`.
    pub action: Action,
}

impl Default for CrossRepositorySetting {
    fn default() -> Self {
        Self {
            enabled: true,
            action: Action::Escalate,
        }
    }
}

/// The compiled `cross_repository` rule.
#[derive(Debug)]
pub(crate) struct CrossRepository {
    action: Action,
}

/// A string argument's value under any of `keys` (matched as the catalog
/// matches argument names: `Repo`, `REPO`, `repo-name`).
fn value<'a>(args: &'a Value, keys: &[&str]) -> Option<&'a str> {
    check_catalog::roles::values(args, keys)
        .into_iter()
        .find_map(|(_, v)| v.as_str())
        .map(str::trim)
        .filter(|v| !v.is_empty())
}

/// The repository a call's arguments name, as `owner/name` in lower case:
/// `owner` with `repo` (`{"owner": "acme", "repo": "api"}`), or a whole
/// name under a repository or project key (`{"repository": "acme/api"}`,
/// `{"project_id": "group/sub/api"}`). None when they name none, or when
/// the value is a URL, has white space, or an empty part.
pub(crate) fn repository_of(args: &Value) -> Option<String> {
    let clean = |s: &str| {
        let s = s.trim_matches('/').trim_end_matches(".git");
        let fine = !s.is_empty()
            && !s.contains("://")
            && !s.contains(char::is_whitespace)
            && s.split('/').all(|part| !part.is_empty());
        fine.then(|| s.to_lowercase())
    };
    if let (Some(owner), Some(name)) = (value(args, OWNER_KEYS), value(args, NAME_KEYS))
        && !owner.contains('/')
        && !name.contains('/')
    {
        return clean(&format!("{owner}/{name}"));
    }
    check_catalog::roles::values(args, FULL_KEYS)
        .into_iter()
        .filter_map(|(_, v)| v.as_str())
        .filter(|v| v.contains('/'))
        .find_map(clean)
}

/// The last part of a repository's name (`acme/api` → `api`): what a fork
/// keeps.
fn name_part(repository: &str) -> &str {
    repository.rsplit('/').next().unwrap_or(repository)
}

impl CrossRepository {
    /// Compile the setting; `None` when disabled.
    pub(crate) fn new(s: &CrossRepositorySetting) -> Result<Option<Self>, String> {
        if !s.enabled {
            return Ok(None);
        }
        let action = s.action.one_of(
            &[Action::Escalate, Action::Deny],
            &Key::new("cross_repository").field("action"),
        )?;
        Ok(Some(Self { action }))
    }

    /// The rule's decision on `call`, if it fires.
    pub(crate) fn judge(
        &self,
        call: &ToolCall,
        tool: &ToolInfo,
        ctx: &Context,
    ) -> Option<Decision> {
        let facts = tool.facts.as_ref()?;
        let publishes = facts
            .effects
            .intersects(Effects::WRITE | Effects::PUBLISH | Effects::OUTBOUND_MESSAGE)
            && [Role::Repository, Role::OutboundContent]
                .iter()
                .all(|role| facts.roles.iter().any(|r| r.role == *role));
        if !publishes {
            return None;
        }
        let ours = repository_of(call.json())?;
        let theirs = ctx
            .history
            .iter()
            .filter(|p| p.outcome.ran())
            .filter_map(|p| {
                let args: Value = serde_json::from_str(&p.arguments).ok()?;
                repository_of(&args).map(|r| (p.name.as_str(), r))
            })
            .find(|(_, r)| name_part(r) != name_part(&ours))?;
        let (earlier, other) = theirs;
        Some(self.action.decide(
            "sequence.cross-repository",
            format!(
                "`{}` publishes text into `{ours}`, and this run's `{earlier}` call worked in `{other}`: what one \
                 repository holds may be carried into another, where other people read it (one of them may be \
                 public). A person must approve this call.",
                call.name
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolvet_pdk::serde_json::json;
    use toolvet_pdk::{FactSource, Outcome, PriorCall, RoleValue, ToolFacts};

    /// The facts the catalog gives GitHub's `add_issue_comment`: it writes
    /// and publishes `body` into `owner`/`repo`.
    fn publishes() -> ToolInfo {
        let role = |role, pointer: &str, value: &str| RoleValue {
            role,
            pointer: pointer.into(),
            value: value.into(),
            dialect: None,
        };
        ToolInfo {
            facts: Some(ToolFacts {
                effects: Effects::WRITE | Effects::PUBLISH,
                irreversible: false,
                protected_target: false,
                roles: vec![
                    role(Role::Repository, "/owner", "alice-oss"),
                    role(Role::Repository, "/repo", "public-site"),
                    role(Role::OutboundContent, "/body", "text"),
                ],
                source: FactSource::Catalog("github".into()),
            }),
            ..ToolInfo::default()
        }
    }

    fn judged(call: Value, tool: &ToolInfo, history: &[(&str, Value, Outcome)]) -> Option<String> {
        let rule = CrossRepository::new(&CrossRepositorySetting::default())
            .unwrap()
            .unwrap();
        let ctx = Context {
            history: history
                .iter()
                .map(|(name, args, outcome)| PriorCall {
                    name: (*name).into(),
                    arguments: args.to_string(),
                    outcome: *outcome,
                    returned: None,
                })
                .collect(),
            ..Context::default()
        };
        let call = ToolCall::new("add_issue_comment", call.to_string());
        rule.judge(&call, tool, &ctx)
            .map(|d| format!("{} {}", d.kind(), d.rule().unwrap_or("-")))
    }

    #[test]
    fn text_published_into_another_repository_than_the_run_read_is_held() {
        let comment = json!({"owner": "alice-oss", "repo": "public-site", "body": "salary bands"});
        let read = |owner: &str, repo: &str| {
            (
                "get_file_contents",
                json!({"owner": owner, "repo": repo, "path": "README.md"}),
                Outcome::Allowed,
            )
        };
        assert_eq!(
            judged(
                comment.clone(),
                &publishes(),
                &[read("acme", "payroll-private")]
            )
            .as_deref(),
            Some("escalate sequence.cross-repository")
        );
        // A whole name under another key, in another spelling.
        assert_eq!(
            judged(
                comment.clone(),
                &publishes(),
                &[(
                    "read_repo_file",
                    json!({"Repository": "Acme/Payroll-Private.git"}),
                    Outcome::Approved
                )]
            )
            .as_deref(),
            Some("escalate sequence.cross-repository")
        );
        // The same repository, a fork of it (same name, another owner), a
        // call that did not run, and no repository at all: not held.
        assert_eq!(
            judged(
                comment.clone(),
                &publishes(),
                &[read("Alice-OSS", "public-site")]
            ),
            None
        );
        assert_eq!(
            judged(
                comment.clone(),
                &publishes(),
                &[read("upstream", "public-site")]
            ),
            None
        );
        assert_eq!(
            judged(
                comment.clone(),
                &publishes(),
                &[(
                    "get_file_contents",
                    json!({"owner": "acme", "repo": "payroll-private"}),
                    Outcome::Denied
                )]
            ),
            None
        );
        assert_eq!(
            judged(
                comment.clone(),
                &publishes(),
                &[("read_file", json!({"path": "notes.md"}), Outcome::Allowed)]
            ),
            None
        );
        // Without facts, or facts that publish no text, the rule does not
        // judge.
        assert_eq!(
            judged(
                comment.clone(),
                &ToolInfo::default(),
                &[read("acme", "payroll-private")]
            ),
            None
        );
        let mut no_text = publishes();
        if let Some(f) = no_text.facts.as_mut() {
            f.roles.retain(|r| r.role != Role::OutboundContent);
        }
        assert_eq!(
            judged(comment, &no_text, &[read("acme", "payroll-private")]),
            None
        );
    }

    #[test]
    fn repositories_are_named_by_owner_and_name_or_whole() {
        let of = |v: Value| repository_of(&v);
        assert_eq!(
            of(json!({"owner": "Acme", "repo": "API"})).as_deref(),
            Some("acme/api")
        );
        assert_eq!(
            of(json!({"repository": "acme/api"})).as_deref(),
            Some("acme/api")
        );
        assert_eq!(
            of(json!({"project_id": "group/sub/api"})).as_deref(),
            Some("group/sub/api")
        );
        assert_eq!(of(json!({"project_id": "xyzcompanyprod"})), None);
        assert_eq!(of(json!({"repo": "https://github.com/acme/api"})), None);
        assert_eq!(of(json!({"repo": "acme//api"})), None);
        assert_eq!(of(json!({"owner": "acme"})), None);
    }

    #[test]
    fn the_action_is_escalate_or_deny() {
        let bad = CrossRepositorySetting {
            enabled: true,
            action: Action::Allow,
        };
        let e = CrossRepository::new(&bad).unwrap_err();
        assert!(e.contains("cross_repository.action"), "{e}");
        let off = CrossRepositorySetting {
            enabled: false,
            action: Action::Escalate,
        };
        assert!(CrossRepository::new(&off).unwrap().is_none());
    }
}
