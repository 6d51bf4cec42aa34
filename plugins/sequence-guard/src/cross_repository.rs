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
//!   project key ([`repositories_of`]; every reading, so a decoy pair
//!   cannot hide another), and a GitLab project by its number (`id:N`,
//!   never the same as a name). Earlier calls count when they ran. A call
//!   with a repository key it cannot read (a URL, `acme%2Fapi`) after the
//!   run named a repository is held too: it may be any other; a call with
//!   only an `owner` (a project board) names none.
//! - **Forks**: a pull request from a fork to its upstream (the same name
//!   under another owner, that owner named by the `head` of the change as
//!   `OWNER:BRANCH`, `"head": "alice:fix"`) is the ordinary way to
//!   contribute, not a flow between two repositories.

use toolvet_pdk::serde_json::{self, Value};
use toolvet_pdk::{Action, Context, Decision, Effects, Key, Role, ToolCall, ToolInfo};

use serde::Deserialize;

/// Keys naming a repository's owner, beside [`NAME_KEYS`].
const OWNER_KEYS: &[&str] = &["owner"];

/// Keys naming a repository within its owner, beside [`OWNER_KEYS`].
const NAME_KEYS: &[&str] = &[
    "repo",
    "repository",
    "repo_name",
    "repoName",
    "repository_name",
    "repositoryName",
];

/// Keys naming a repository whole, as `OWNER/NAME` (GitLab: `GROUP/…/NAME`).
const FULL_KEYS: &[&str] = &[
    "repo",
    "repository",
    "full_name",
    "fullName",
    "repo_full_name",
    "repoFullName",
    "repository_full_name",
    "project_path",
    "projectPath",
    "project_id",
    "projectId",
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

/// The string values of `args` under any of `keys` (matched as the
/// catalog matches argument names: `Repo`, `REPO`, `ｒｅｐｏ`), trimmed.
fn strings<'a>(args: &'a Value, keys: &[&str]) -> Vec<&'a str> {
    check_catalog::roles::values(args, keys)
        .into_iter()
        .filter_map(|(_, v)| v.as_str())
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .take(MAX_READINGS)
        .collect()
}

/// Most values read per kind of key: a call holding more spellings of
/// `owner` or `repo` than this (keys differing only in case or invisible
/// characters) is read by its first ones, and its readings stay few.
const MAX_READINGS: usize = 8;

/// Keys of GitLab's numeric project ids, read as `id:N`.
const ID_KEYS: &[&str] = &["project_id", "projectId", "project"];

/// `text` as a repository's name, `owner/name` in lower case, when it is
/// one: no URL, no white space, no empty part (`acme//api`), a trailing
/// `.git` dropped.
fn clean(text: &str) -> Option<String> {
    let s = text.trim_matches('/');
    let s = s.strip_suffix(".git").unwrap_or(s);
    let fine = s.contains('/')
        && !s.contains("://")
        && !s.contains(char::is_whitespace)
        && s.split('/').all(|part| !part.is_empty());
    fine.then(|| s.to_lowercase())
}

/// Every repository a call's arguments name, as `owner/name` in lower
/// case: each `owner` with each `repo` (`{"owner": "acme", "repo":
/// "api"}`), and each whole name under a repository or project key
/// (`{"repository": "acme/api"}`, `{"project_id": "group/sub/api"}`).
/// Every reading is kept, so a decoy `owner`/`repo` pair cannot hide the
/// repository a tool reads from another key. Values that are URLs, have
/// white space or an empty part name none.
pub(crate) fn repositories_of(args: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |r: Option<String>| {
        if let Some(r) = r
            && !out.contains(&r)
        {
            out.push(r);
        }
    };
    for owner in strings(args, OWNER_KEYS) {
        for name in strings(args, NAME_KEYS) {
            if !owner.contains('/') && !name.contains('/') {
                add(clean(&format!("{owner}/{name}")));
            }
        }
    }
    for whole in strings(args, FULL_KEYS) {
        add(clean(whole));
    }
    // A project named by its number (GitLab): the same number is the same
    // project; it is never the same as a name.
    for (_, v) in check_catalog::roles::values(args, ID_KEYS)
        .into_iter()
        .take(MAX_READINGS)
    {
        let id = match v {
            Value::Number(n) => n.as_u64().map(|n| n.to_string()),
            Value::String(t) => {
                let t = t.trim();
                (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit())).then(|| t.to_string())
            }
            _ => None,
        };
        add(id.map(|n| format!("id:{n}")));
    }
    out
}

/// Whether the call has a key that names a repository (a name, a whole
/// name or a project id), read or not: a call with only an `owner` (a
/// project board, a task) names none.
fn names_repository(args: &Value) -> bool {
    [NAME_KEYS, FULL_KEYS, ID_KEYS]
        .iter()
        .any(|keys| !check_catalog::roles::values(args, keys).is_empty())
}

/// The owner and the last part of a repository's name (`acme/api` →
/// `acme`, `api`).
fn parts(repository: &str) -> (&str, &str) {
    let (owner, _) = repository.split_once('/').unwrap_or((repository, ""));
    (owner, repository.rsplit('/').next().unwrap_or(repository))
}

/// Keys naming the head of a pull or merge request (`"head": "alice:fix"`).
const HEAD_KEYS: &[&str] = &[
    "head",
    "head_ref",
    "headRef",
    "source_branch",
    "sourceBranch",
];

/// Whether `theirs` is the fork a pull request into `ours` comes from: the
/// same name under another owner, that owner named by the call's head of
/// change as `OWNER:BRANCH` (`"head": "alice:fix"`; an owner is letters,
/// digits and `-`, a branch one word). Any other text, a body beginning
/// `acme:` included, names no fork.
fn fork_of(ours: &str, theirs: &str, args: &Value) -> bool {
    let ((_, our_name), (their_owner, their_name)) = (parts(ours), parts(theirs));
    our_name == their_name
        && strings(args, HEAD_KEYS).iter().any(|head| {
            head.split_once(':').is_some_and(|(owner, branch)| {
                owner.eq_ignore_ascii_case(their_owner)
                    && owner.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                    && !branch.is_empty()
                    && !branch.contains(char::is_whitespace)
            })
        })
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
        let args = call.json();
        let ours = repositories_of(args);
        // Each repository an earlier call that ran named, and the call.
        let earlier = ctx
            .history
            .iter()
            .filter(|p| p.outcome.ran())
            .filter_map(|p| {
                Some((
                    p.name.as_str(),
                    serde_json::from_str::<Value>(&p.arguments).ok()?,
                ))
            })
            .flat_map(|(name, a)| repositories_of(&a).into_iter().map(move |r| (name, r)));
        let mut flow: Option<(String, &str, String)> = None;
        for (name, theirs) in earlier {
            // A repository the call does not name plainly (a numeric
            // project id, a URL) may be any other one.
            if ours.is_empty() {
                if !names_repository(args) {
                    return None;
                }
                flow = Some(("a repository it does not name plainly".into(), name, theirs));
                break;
            }
            if let Some(our) = ours
                .iter()
                .find(|our| **our != theirs && !fork_of(our, &theirs, args))
            {
                flow = Some((format!("`{our}`"), name, theirs));
                break;
            }
        }
        let (into, earlier, other) = flow?;
        Some(self.action.decide(
            "sequence.cross-repository",
            format!(
                "`{}` publishes text into {into}, and this run's `{earlier}` call worked in `{other}`: what one \
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

    /// An earlier call: its tool, arguments and outcome.
    type Prior<'a> = (&'a str, Value, Outcome);

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

    fn judged(call: Value, tool: &ToolInfo, history: &[Prior<'_>]) -> Option<String> {
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
        let held = Some("escalate sequence.cross-repository");
        let comment = json!({"owner": "alice-oss", "repo": "public-site", "body": "salary bands"});
        let read = |owner: &str, repo: &str| {
            (
                "get_file_contents",
                json!({"owner": owner, "repo": repo, "path": "README.md"}),
                Outcome::Allowed,
            )
        };
        let private = read("acme", "payroll-private");
        let cases: Vec<(&str, Value, Vec<Prior<'_>>, Option<&str>)> = vec![
            (
                "another repository read",
                comment.clone(),
                vec![private.clone()],
                held,
            ),
            (
                "a whole name under another key, in another spelling",
                comment.clone(),
                vec![(
                    "read_repo_file",
                    json!({"Repository": "Acme/Payroll-Private.git"}),
                    Outcome::Approved,
                )],
                held,
            ),
            // Review s27: the same name under another owner is another
            // repository (`attacker/payroll-private`) ...
            (
                "the same name under another owner",
                comment.clone(),
                vec![read("upstream", "public-site")],
                held,
            ),
            // ... unless the call names that owner as the head of its
            // change (a pull request from a fork).
            (
                "a pull request from the fork",
                json!({"owner": "alice-oss", "repo": "public-site", "head": "Upstream:fix",
                    "body": "fixes"}),
                vec![read("upstream", "public-site")],
                None,
            ),
            (
                "a decoy pair beside the repository the tool reads",
                json!({"owner": "acme", "repo": "payroll-private",
                    "repository": "attacker/drop", "body": "x"}),
                vec![private.clone()],
                held,
            ),
            (
                "a repository named by a number only",
                json!({"project_id": "4567", "body": "x"}),
                vec![private.clone()],
                held,
            ),
            // Review s27, second pass.
            (
                "a body that begins like a fork's head",
                json!({"owner": "attacker", "repo": "payroll-private", "body": "acme: the secrets"}),
                vec![private.clone()],
                held,
            ),
            (
                "an earlier read by project number, a write elsewhere",
                json!({"project_id": "attacker/drop", "body": "x"}),
                vec![("get_file", json!({"project_id": 4567}), Outcome::Allowed)],
                held,
            ),
            (
                "the same project by number",
                json!({"project_id": "4567", "body": "x"}),
                vec![("get_file", json!({"project_id": 4567}), Outcome::Allowed)],
                None,
            ),
            (
                "a call with only an owner (a project board)",
                json!({"owner": "acme", "title": "Q3", "body": "x"}),
                vec![private.clone()],
                None,
            ),
            (
                "the same repository",
                comment.clone(),
                vec![read("Alice-OSS", "public-site")],
                None,
            ),
            (
                "a call that did not run",
                comment.clone(),
                vec![(
                    "get_file_contents",
                    json!({"owner": "acme", "repo": "payroll-private"}),
                    Outcome::Denied,
                )],
                None,
            ),
            (
                "no repository earlier",
                comment.clone(),
                vec![("read_file", json!({"path": "notes.md"}), Outcome::Allowed)],
                None,
            ),
        ];
        for (what, call, history, expected) in cases {
            assert_eq!(
                judged(call, &publishes(), &history).as_deref(),
                expected,
                "{what}"
            );
        }
        // Without facts, or facts that publish no text, the rule does not
        // judge.
        assert_eq!(
            judged(
                comment.clone(),
                &ToolInfo::default(),
                std::slice::from_ref(&private)
            ),
            None
        );
        let mut no_text = publishes();
        if let Some(f) = no_text.facts.as_mut() {
            f.roles.retain(|r| r.role != Role::OutboundContent);
        }
        assert_eq!(judged(comment, &no_text, &[private]), None);
    }

    #[test]
    fn repositories_are_named_by_owner_and_name_or_whole() {
        let of = |v: Value| repositories_of(&v);
        assert_eq!(of(json!({"owner": "Acme", "repo": "API"})), ["acme/api"]);
        assert_eq!(of(json!({"repository": "acme/api.git"})), ["acme/api"]);
        assert_eq!(of(json!({"projectId": "group/sub/api"})), ["group/sub/api"]);
        assert_eq!(
            of(json!({"owner": "acme", "repo": "api", "full_name": "other/x"})),
            ["acme/api", "other/x"]
        );
        assert!(of(json!({"project_id": "xyzcompanyprod"})).is_empty());
        assert!(of(json!({"repo": "https://github.com/acme/api"})).is_empty());
        assert!(of(json!({"repo": "acme//api"})).is_empty());
        assert!(of(json!({"owner": "acme"})).is_empty());
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
