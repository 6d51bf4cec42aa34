//! A hosted repository's administration from the agent's shell (#31): the
//! GitHub CLI changing who may see or change a repository, or the rules
//! that guard it. Held for a person (`shell.repo-admin`, by
//! `destructive_action`):
//!
//! - `gh repo edit --visibility …` (a private repository made public, or
//!   any other change of who can see it);
//! - `gh repo create --public` (the repository, and with `--source` /
//!   `--push` the local code, world-readable);
//! - `gh pr merge --admin` (a merge past the branch's protection rules);
//! - `gh api` writing to an endpoint of access or protection: a method
//!   other than `GET`/`HEAD` (`-X`/`--method`, or fields given with
//!   `-f`/`-F`/`--input`, which gh sends as `POST`) on a repository's own
//!   settings (`repos/O/R`, where `visibility` and `private` live), its
//!   collaborators, teams, invitations, deploy keys, webhooks, rulesets,
//!   branch protection, environments, Actions and Dependabot secrets and
//!   permissions, or a transfer; or on an organisation's members,
//!   memberships, outside collaborators, teams, webhooks, rulesets and
//!   secrets; a `DELETE` of the repository itself. A method only known at
//!   run time counts as a write.
//!
//! Reads (`gh api repos/o/r/collaborators`, `gh pr merge` without
//! `--admin`, `gh repo view`) are left alone. GraphQL mutations
//! (`gh api graphql`) are not read.

use crate::syntax::Field;
use crate::walk::Analysis;

/// Path segments after `repos/OWNER/NAME/` whose writes change access or
/// protection. `branches` counts only with `protection` after it.
const REPO_ADMIN: &[&str] = &[
    "collaborators",
    "teams",
    "invitations",
    "keys",
    "hooks",
    "rulesets",
    "environments",
    "transfer",
];

/// Path segments after `orgs/ORG/` whose writes change access.
const ORG_ADMIN: &[&str] = &[
    "members",
    "memberships",
    "outside_collaborators",
    "teams",
    "invitations",
    "hooks",
    "rulesets",
    "actions",
    "dependabot",
    "security-managers",
    "organization-roles",
];

/// `gh api` options that take a value (as gh's own flag set reads them).
const GH_API_VALUED: &[&str] = &[
    "-X",
    "--method",
    "-f",
    "--raw-field",
    "-F",
    "--field",
    "-H",
    "--header",
    "--input",
    "-q",
    "--jq",
    "-t",
    "--template",
    "--hostname",
    "-p",
    "--preview",
    "--cache",
];

impl Analysis<'_> {
    /// `gh` administering a hosted repository (module doc).
    pub(crate) fn forge_admin(&mut self, name: &str, args: &[Field]) {
        let name = name.to_ascii_lowercase();
        if name != "gh" && name != "gh.exe" {
            return;
        }
        let words: Vec<String> = args.iter().map(Field::text).collect();
        let has_flag = |flag: &str| {
            words
                .iter()
                .any(|w| w == flag || w.starts_with(&format!("{flag}=")))
        };
        let what = match (
            words.first().map(String::as_str),
            words.get(1).map(String::as_str),
        ) {
            (Some("repo"), Some("edit")) if has_flag("--visibility") => {
                Some("changes who can see the repository (`--visibility`)".to_string())
            }
            (Some("repo"), Some("create")) if has_flag("--public") => {
                Some("creates a public repository (with `--source`/`--push`, the local code is published)".into())
            }
            (Some("pr"), Some("merge")) if has_flag("--admin") => {
                Some("merges past the branch's protection rules (`--admin`)".into())
            }
            (Some("secret"), Some("set" | "delete" | "remove")) => {
                Some("changes the secrets the repository's workflows read (`gh secret`)".into())
            }
            (Some("repo"), Some("deploy-key")) | (Some("ssh-key" | "gpg-key"), _)
                if matches!(words.get(2).map(String::as_str), Some("add" | "delete"))
                    || matches!(words.get(1).map(String::as_str), Some("add" | "delete")) =>
            {
                Some("adds or removes a key that can push (`gh … key add`)".into())
            }
            (Some("api"), _) => gh_api_admin(&words[1..]),
            _ => None,
        };
        let Some(what) = what else {
            return;
        };
        let action = self.opts.destructive_action;
        if !action.stops() {
            return;
        }
        self.report(
            action == toolvet_pdk::Action::Deny,
            "shell.repo-admin",
            format!(
                "The command {what}: it changes who may see or change a hosted repository, or the rules that guard \
                 it, or whether it exists. A person must approve; say what the change is for and let them make it."
            ),
        );
    }
}

/// What a `gh api ARGS` call changes, when it writes to an endpoint of
/// access or protection.
fn gh_api_admin(words: &[String]) -> Option<String> {
    let mut method: Option<String> = None;
    let mut fields = false;
    let mut endpoint: Option<&str> = None;
    let mut i = 0;
    while let Some(w) = words.get(i) {
        let (flag, attached) = match w.split_once('=') {
            Some((f, v)) if w.starts_with("--") => (f, Some(v.to_string())),
            _ if w.len() > 2 && !w.starts_with("--") && w.starts_with('-') => {
                // `-XPUT`, `-fname=v`: a one-letter flag with its value joined.
                (&w[..2], Some(w[2..].to_string()))
            }
            _ => (w.as_str(), None),
        };
        if GH_API_VALUED.contains(&flag) {
            let value = match attached {
                Some(v) => v,
                None => {
                    i += 1;
                    words.get(i).cloned().unwrap_or_default()
                }
            };
            match flag {
                "-X" | "--method" => method = Some(value.to_ascii_uppercase()),
                "-f" | "--raw-field" | "-F" | "--field" | "--input" => fields = true,
                _ => {}
            }
        } else if w == "--" {
            endpoint = endpoint.or(words.get(i + 1).map(String::as_str));
            break;
        } else if !w.starts_with('-') && endpoint.is_none() {
            endpoint = Some(w);
        }
        i += 1;
    }
    let method = method.unwrap_or_else(|| if fields { "POST" } else { "GET" }.into());
    // The fields the call sets (`-f name=value`), by name.
    let field_names: Vec<String> = words
        .windows(2)
        .filter(|p| matches!(p[0].as_str(), "-f" | "-F" | "--field" | "--raw-field"))
        .map(|p| {
            p[1].split(['=', '['])
                .next()
                .unwrap_or("")
                .to_ascii_lowercase()
        })
        .chain(words.iter().filter_map(|w| {
            ["-f", "-F"]
                .iter()
                .find_map(|f| {
                    w.strip_prefix(f)
                        .filter(|v| !v.is_empty() && !v.starts_with('-'))
                })
                .or_else(|| {
                    w.strip_prefix("--field=")
                        .or_else(|| w.strip_prefix("--raw-field="))
                })
                .map(|v| {
                    v.split(['=', '['])
                        .next()
                        .unwrap_or("")
                        .to_ascii_lowercase()
                })
        }))
        .collect();
    let input = words
        .iter()
        .any(|w| w == "--input" || w.starts_with("--input="));
    let known_read = matches!(method.as_str(), "GET" | "HEAD");
    if known_read {
        return None;
    }
    let endpoint = endpoint?;
    let path = endpoint
        .split(['?', '#'])
        .next()
        .unwrap_or("")
        .trim_start_matches("https://api.github.com")
        .trim_start_matches('/');
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    // A repository's own settings: who can see it and what guards it (not
    // its description or topics).
    let settings = input
        || field_names.iter().any(|f| {
            matches!(
                f.as_str(),
                "visibility" | "private" | "archived" | "default_branch" | "security_and_analysis"
            )
        });
    let admin = match segments.as_slice() {
        ["repos", _, _] => method == "DELETE" || settings,
        ["repos", _, _, "branches", rest @ ..] => rest.contains(&"protection"),
        // A webhook's ping or test delivery changes nothing.
        ["repos" | "orgs", .., "hooks", _, "pings" | "tests"] => false,
        // A branch moved or deleted through the API (`git push -f`, `git
        // push origin :main` are held as such).
        ["repos", _, _, "git", "refs", ..] => matches!(method.as_str(), "PATCH" | "DELETE"),
        ["orgs", _, "teams", _, "discussions", ..] => false,
        ["teams", ..] => true,
        ["user", "keys" | "gpg_keys" | "ssh_signing_keys", ..] => true,
        [
            "repos",
            _,
            _,
            "actions" | "dependabot" | "codespaces",
            "secrets" | "permissions",
            ..,
        ] => true,
        ["repos", _, _, first, ..] => REPO_ADMIN.contains(first),
        ["orgs", _] => true,
        ["orgs", _, first, ..] => ORG_ADMIN.contains(first),
        _ => false,
    };
    admin.then(|| format!("sends `{method} {endpoint}` to GitHub's API"))
}

#[cfg(test)]
mod tests {
    use super::gh_api_admin;

    fn admin(line: &str) -> bool {
        let words: Vec<String> = line.split_whitespace().map(String::from).collect();
        gh_api_admin(&words).is_some()
    }

    #[test]
    fn gh_api_writes_to_access_and_protection_endpoints() {
        for line in [
            "-X PUT repos/acme/api/collaborators/dev -f permission=admin",
            "--method=DELETE repos/acme/api/branches/main/protection",
            "-XDELETE /repos/acme/api/branches/main/protection/required_pull_request_reviews",
            "repos/acme/api -f visibility=public",
            "-X PATCH repos/acme/api -F private=false",
            "-X POST repos/acme/api/keys -f key=ssh-ed25519",
            "repos/acme/api/hooks -f config[url]=https://x.example",
            "-X PUT repos/acme/api/actions/secrets/TOKEN -f encrypted_value=x",
            "-X PUT orgs/acme/memberships/dev -f role=admin",
            "-X PUT https://api.github.com/repos/acme/api/collaborators/dev",
            "-X $M repos/acme/api/collaborators/dev",
            "-X DELETE repos/acme/api",
            "-X DELETE repos/acme/api/branches/release/v1/protection",
            "-X PATCH repos/acme/api/git/refs/heads/main -F force=true",
            "-X DELETE repos/acme/api/git/refs/heads/main",
            "-X POST user/keys -f key=ssh-ed25519",
            "-X PUT teams/123/repos/acme/api -f permission=admin",
            "-X PATCH repos/acme/api --input settings.json",
        ] {
            assert!(admin(line), "{line}");
        }
        for line in [
            "repos/acme/api/collaborators",
            "repos/acme/api/pulls --jq .[].title",
            "-X GET repos/acme/api/branches/main/protection",
            "repos/acme/api/issues/4/comments -f body=thanks",
            "-X POST repos/acme/api/pulls -f title=x",
            "graphql -f query=mutation",
            "-X POST repos/acme/api/hooks/1/pings",
            "-X PATCH repos/acme/api -f description=Retries",
            "-X POST orgs/acme/teams/devs/discussions -f title=x",
            "-X POST repos/acme/api/git/refs -f ref=refs/heads/feature -f sha=abc",
        ] {
            assert!(!admin(line), "{line}");
        }
    }
}
