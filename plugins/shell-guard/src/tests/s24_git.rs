//! Review s24 R1, R3, R6, R7, R8: the files git subcommands read and write.
use super::*;

const HISTORY_KEY: &str = "/home/alice/.local/state/toolvet/hooks/history.key";
const APPROVALS_KEY: &str = "/home/alice/policy/state/approvals.key";

/// The verdict with the host's state and secret paths given (a policy
/// directory `/home/alice/policy` with its state, the hooks' state).
fn hosted(cmd: &str) -> (String, Option<String>) {
    decided_with(
        cmd,
        &[
            (
                "toolvet.secret_paths",
                format!(r#"["{HISTORY_KEY}","{APPROVALS_KEY}"]"#),
            ),
            (
                "toolvet.state_paths",
                r#"["/home/alice/policy/toolvet.toml","/home/alice/.local/state/toolvet/hooks"]"#
                    .into(),
            ),
        ],
    )
}

#[track_caller]
fn hosted_is(cmd: &str, kind: &str, rule: Option<&str>) {
    assert_eq!(
        hosted(cmd),
        (kind.to_string(), rule.map(str::to_string)),
        "command: {cmd}"
    );
}

/// R7: `checkout-index --prefix=DIR/ -a|--stdin|FILE` writes under the
/// prefix: onto the policy, the agent's settings, toolvet's state.
#[test]
fn r7_checkout_index_prefix_writes_its_place() {
    for cmd in [
        "git -C /tmp/evil checkout-index --prefix=/home/alice/policy/ -f -a",
        "cd /tmp/evil && git checkout-index --prefix=/home/alice/policy/ -f -a",
        "git -C /tmp/evil checkout-index --prefix=$HOME/.local/state/toolvet/hooks/ -f -a",
        "git -C /tmp/evil checkout-index --prefix=/home/alice/policy/ -f toolvet.toml",
    ] {
        hosted_is(cmd, "deny", Some("shell.toolvet-state"));
    }
    for cmd in [
        "git -C /tmp/evil checkout-index --prefix=$HOME/.claude/ -f -a",
        "echo settings.json | git checkout-index --prefix=$HOME/.claude/ -f --stdin",
        "git checkout-index --prefix=$HOME/.claude/settings. -f json",
        "git checkout-index --prefix $HOME/.claude/ -f settings.json",
        "git checkout-index -f --prefix=/home/alice/ .bashrc",
    ] {
        deny(cmd, "shell.guardrail-write");
    }
    // Every indexed file into the project: it may hold hook settings.
    escalate("git checkout-index --prefix=./ -a", "shell.guardrail-write");
    // Elsewhere, judged by what the directory is known to hold (s23 V17).
    allow("git checkout-index --prefix=/tmp/export/ -a");
    allow("git -C /tmp/other checkout .");
    allow("git checkout-index --prefix=/tmp/export/ -f src/main.rs");
    allow("git checkout-index -f src/main.rs");
}

/// R8: `merge-file CURRENT BASE OTHER` rewrites CURRENT; `-p` prints all.
#[test]
fn r8_merge_file_writes_its_first_operand() {
    hosted_is(
        "git merge-file --theirs /home/alice/policy/toolvet.toml /dev/null /tmp/o.toml",
        "deny",
        Some("shell.toolvet-state"),
    );
    deny(
        "git merge-file --theirs ~/.claude/settings.json /dev/null /tmp/o.json",
        "shell.guardrail-write",
    );
    deny(
        "git merge-file --theirs ~/.bashrc /dev/null /tmp/x",
        "shell.guardrail-write",
    );
    hosted_is(
        "git merge-file -q --theirs -L a -L b -L c ~/.local/state/toolvet/hooks/history.key /dev/null /tmp/o.json",
        "deny",
        Some("shell.read-credentials"),
    );
    allow("git merge-file src/a.rs base.rs other.rs");
    allow("git merge-file -p src/a.rs base.rs other.rs");
}

/// R6: named files git builtins read, and whole-tree readers.
#[test]
fn r6_git_builtins_read_keys() {
    for cmd in [
        "git merge-file -p /home/alice/policy/state/approvals.key /dev/null /dev/null",
        "git merge-file -p ~/.local/state/toolvet/hooks/history.key /dev/null /dev/null | xxd | head -2",
        "git interpret-trailers /home/alice/policy/state/approvals.key",
        "git commit -q --allow-empty -F /home/alice/policy/state/approvals.key",
        "git notes add -F /home/alice/policy/state/approvals.key",
        "git hash-object -w /home/alice/policy/state/approvals.key",
        "git blame --contents /home/alice/policy/state/approvals.key -- f",
        "git tag -F /home/alice/policy/state/approvals.key t1",
        "cd ~/.local && git grep --no-index -a -h -e '' -- 'state/toolvet/hooks/*.key' | xxd",
        "cd ~/.local/state/toolvet/hooks && git grep --no-index -a -e '' | od -c | head",
        "git -C ~/.local/state grep --no-index -a -e ''",
        "cd ~ && git grep --no-index -a -e ''",
        "cd /home/alice/policy && git grep --no-index --no-exclude-standard -a -e ''",
        "git diff --no-index --binary /tmp/empty ~/.local/state",
        "cd ~/.local/state && git diff --no-index -a /tmp/empty .",
        "diff -ruaN /tmp/empty ~/.local/state",
        "diff -r /tmp/empty /home/alice/policy",
    ] {
        hosted_is(cmd, "deny", Some("shell.read-credentials"));
    }
    deny(
        "git interpret-trailers ~/.ssh/id_rsa",
        "shell.read-credentials",
    );
    deny(
        "cd ~ && git grep --no-index -a -e ''",
        "shell.read-credentials",
    );
    allow("git grep -n TODO");
    allow("git grep --no-index -e TODO src");
    allow("git interpret-trailers --trailer 'Signed-off-by: A <a@b>' msg.txt");
    allow("git commit -F msg.txt");
    allow("diff -ru old/ new/");
    allow("git diff --no-index a.txt b.txt");
}

/// R3: `git add -A` reads the work tree into the object store.
#[test]
fn r3_add_reads_the_tree() {
    for cmd in [
        "cd /home/alice/policy && git add -f -A && git diff --cached --binary",
        "cd /home/alice/policy && git add --all --force && git diff --cached",
        "git -C /home/alice/policy add -Af && git -C /home/alice/policy diff --cached --binary",
        "cd /home/alice/policy && git add -f .",
        "cd /home/alice/policy && git ls-files -o --ignored --exclude-standard | git update-index --add --stdin",
        "git add -f /home/alice/policy/state",
    ] {
        hosted_is(cmd, "deny", Some("shell.read-credentials"));
    }
    hosted_is("git add -A", "allow", None);
    hosted_is("git add .", "allow", None);
}

/// R1: whole-tree rewrites from the index (which `update-index
/// --cacheinfo` fills with any content) are held in any work tree, denied
/// where the tree holds toolvet's state.
#[test]
fn r1_whole_tree_rewrites_are_held() {
    for cmd in [
        "b=$(echo '{\"disableAllHooks\":true}' | git hash-object -w --stdin) && git update-index --add --cacheinfo 100644,$b,.claude/settings.local.json && git checkout-index -f -a",
        "git checkout-index -a -f",
        "git checkout .",
        "git checkout -- .",
        "git restore .",
        "git restore --worktree .",
        "git stash",
        "git stash push",
        "git stash -m wip",
        "git stash save wip",
        "git stash push --keep-index",
        "cd src && git stash",
        "cd src && git checkout-index -f -a",
        "git stash push --message=wip",
    ] {
        escalate(cmd, "shell.guardrail-write");
    }
    hosted_is(
        "cd /home/alice/policy && git update-index --cacheinfo 100644,abc,toolvet.toml && git checkout-index -f -a",
        "deny",
        Some("shell.toolvet-state"),
    );
    hosted_is(
        "git -C /home/alice/policy checkout-index -f -a",
        "deny",
        Some("shell.toolvet-state"),
    );
    hosted_is(
        "cd /home/alice/policy && git restore .",
        "deny",
        Some("shell.toolvet-state"),
    );
    // A builtin the table does not know, given operands, is held.
    escalate(
        "git merge-index git-merge-one-file -a",
        "shell.guardrail-write",
    );
}

/// Ordinary developer git keeps passing.
#[test]
fn ordinary_git_passes() {
    for cmd in [
        "git status",
        "git diff",
        "git diff --cached",
        "git diff HEAD~1 -- src/main.rs",
        "git log -p",
        "git log --oneline -5",
        "git show HEAD",
        "git add -A",
        "git add src/main.rs",
        "git commit -m 'fix'",
        "git commit -am 'fix'",
        "git checkout -b x",
        "git checkout -- src/main.rs",
        "git stash list",
        "git stash show -p",
        "git stash push -- src/main.rs",
        "git restore --staged f",
        "git restore src/main.rs",
        "git branch -a",
        "git fetch origin",
        "git rev-parse HEAD",
        "git blame src/main.rs",
        "git update-index --refresh",
        "git hash-object src/main.rs",
    ] {
        allow(cmd);
    }
}
