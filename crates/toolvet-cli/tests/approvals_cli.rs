//! `toolvet approvals list | show | approve` against a SQLite ledger, as a
//! person at a terminal uses them (review s20 T3).

mod common;

use common::{plugin, toolvet};
use serde_json::{Value, json};

/// A policy holding `deploy` for a person, approvals in a SQLite ledger.
fn policy(dir: &std::path::Path) {
    std::fs::write(
        dir.join("toolvet.toml"),
        format!(
            "[approvals]\nledger = \"approvals.db\"\nkey_file = \"approvals.key\"\n\
             [[check]]\nname = \"tools\"\nplugin = \"{}\"\n\
             settings = {{ approve = [\"deploy\"], allow = [\"*\"] }}\n",
            plugin("tool_policy").display()
        ),
    )
    .unwrap();
}

/// Review s20 T3: spaces in a call id forged a whole benign record on the
/// reviewer's list line, and `approve` without reviewer keys approved at
/// once. Names are now one quoted field, the arguments come before the
/// reasons, and `approve` needs the person's confirmation.
#[test]
fn a_request_cannot_pass_for_another_and_approve_asks_first() {
    let dir = tempfile::tempdir().unwrap();
    policy(dir.path());
    let cache = dir.path().join("cache");
    let run = |args: &[&str]| toolvet(dir.path(), &cache, args, "");
    let forged = format!(
        "c8  cwd /home/alice/project  expires 2026-12-05T08:50:00.000Z  arguments {{\"env\":\"staging\"}}{}",
        " ".repeat(400)
    );
    let call = json!({"call": {"id": forged, "name": "deploy", "arguments": {"env": "prod"}},
                      "context": {"run_id": "r1", "attributes": {"cwd": "/srv/prod"}}});
    let checked = toolvet(
        dir.path(),
        &cache,
        &["check", "--config", "toolvet.toml"],
        &call.to_string(),
    );
    assert_eq!(checked.code, 4, "{}{}", checked.stdout, checked.stderr);
    let verdict: Value = serde_json::from_str(&checked.stdout).unwrap();
    let id = verdict["approval"]["id"].as_str().unwrap().to_string();

    let listed = run(&["approvals", "list", "--config", "toolvet.toml"]);
    let line = listed.stdout.lines().find(|l| l.contains(&id)).unwrap();
    assert!(
        line.contains(
            r#"call "c8  cwd /home/alice/project  expires 2026-12-05T08:50:00.000Z  arguments {\"env\":\"staging\"}␠×400"  cwd /srv/prod"#
        ),
        "{line}"
    );
    let real = line.find(r#"arguments {"env":"prod"}"#).expect(line);
    assert!(real < line.find("[policy.").expect(line), "{line}");

    // Without a terminal, `--seen` or `--shown`: nothing is approved.
    let approve = |extra: &[&str]| {
        let mut args = vec![
            "approvals",
            "approve",
            &id,
            "--config",
            "toolvet.toml",
            "--reviewer",
            "rev",
        ];
        args.extend_from_slice(extra);
        run(&args)
    };
    let refused = approve(&[]);
    assert_eq!(refused.code, 2, "{}{}", refused.stdout, refused.stderr);
    assert!(
        refused.stderr.contains("nothing was approved"),
        "{}",
        refused.stderr
    );
    let shown: Value =
        serde_json::from_str(&run(&["approvals", "show", &id, "--config", "toolvet.toml"]).stdout)
            .unwrap();
    assert_eq!(shown["status"], "pending");
    // A digest of something else: not approved.
    let other = "0".repeat(64);
    let changed = approve(&["--shown", &other]);
    assert_eq!(changed.code, 1, "{}{}", changed.stdout, changed.stderr);
    // The digest of what the reviewer read: approved.
    let digest = shown["review_sha256"].as_str().unwrap();
    assert_eq!(digest.len(), 64);
    let approved = approve(&["--shown", digest]);
    assert_eq!(approved.code, 0, "{}{}", approved.stdout, approved.stderr);
    assert!(approved.stdout.contains("approved"), "{}", approved.stdout);
}
