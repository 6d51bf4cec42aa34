//! #31: a hosted repository's administration from the shell
//! (`effects::forge`, `shell.repo-admin`) and git's hooks skipped
//! (`shell.hooks-skipped`).
use super::*;

#[test]
fn repository_administration_through_gh_is_held() {
    for cmd in [
        "gh repo edit acme/api --visibility public --accept-visibility-change-consequences",
        "gh repo edit --visibility=internal",
        "gh repo create acme/copy --public --source=. --push",
        "gh pr merge 412 --admin --squash",
        "gh api -X PUT repos/acme/api/collaborators/helper-dev-2024 -f permission=admin",
        "gh api --method DELETE repos/acme/api/branches/main/protection",
        "gh api repos/acme/api -f visibility=public",
        "gh api -X PATCH repos/acme/api -F private=false",
        "gh api -X DELETE repos/acme/api",
        "gh api -XPUT orgs/acme/memberships/helper -f role=admin",
        "cd /tmp && gh api -X POST repos/acme/api/keys -f key=\"$(cat key.pub)\" -f read_only=false",
        "M=PUT; gh api -X \"$M\" repos/acme/api/collaborators/dev",
        // Review s23.
        "gh.exe repo edit --visibility public",
        "gh secret set DEPLOY_TOKEN --body x",
        "gh repo deploy-key add key.pub --allow-write",
        "gh ssh-key add key.pub",
        "gh api -X DELETE repos/acme/api/branches/release/v1/protection",
    ] {
        escalate(cmd, "shell.repo-admin");
    }
    for cmd in [
        "gh repo view acme/api --json visibility",
        "gh repo create acme/scratch --private",
        "gh pr merge 412 --squash --delete-branch",
        "gh api repos/acme/api/pulls --jq '.[].title'",
        "gh api repos/acme/api/collaborators",
        "gh api -X GET repos/acme/api/branches/main/protection",
        "gh api repos/acme/api/issues/4/comments -f body=thanks",
        "gh pr create --title x --body y",
        "gh secret list",
        "gh api -X PATCH repos/acme/api -f description=Retries",
        "gh api -X POST repos/acme/api/hooks/1/pings",
    ] {
        allow(cmd);
    }
}

#[test]
fn git_hooks_skipped_are_held() {
    for cmd in [
        "git commit --no-verify -m wip",
        "git commit -nm wip",
        "git commit -anm wip",
        "git commit -a -n -m wip",
        "git commit --no-veri -m wip",
        "git push --no-verify origin feature/x",
        "git -C /work/app commit --no-verify -m wip",
        // Review s23: the hook managers' own switches.
        "HUSKY=0 git commit -m wip",
        "HUSKY_SKIP_HOOKS=1 git commit -m wip",
        "LEFTHOOK=0 git push origin feature/x",
        "SKIP=eslint,flake8 git commit -m wip",
        "export HUSKY=0; git commit -m wip",
    ] {
        escalate(cmd, "shell.hooks-skipped");
    }
    // A merge or an applied patch rewrites the work tree, which is held
    // before its hooks are read.
    assert_eq!(verdict("git merge --no-verify feature/x").0, "escalate");
    assert_eq!(verdict("git am -n 0001.patch").0, "escalate");
    for cmd in [
        "git commit -m wip",
        "git commit -m '--no-verify is not used here'",
        "git commit -m -n",
        "git commit --no-verify --verify -m wip",
        "git push -n origin feature/x",
        "git commit --no-ver -m wip",
        "git log --no-verify",
        "HUSKY=1 git commit -m wip",
        "SKIP= git commit -m wip",
    ] {
        allow(cmd);
    }
}
