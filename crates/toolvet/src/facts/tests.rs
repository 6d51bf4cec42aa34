use super::catalog::Catalog;
use super::*;
use crate::CallRequest;

/// A two-source catalog written for these tests.
fn catalog() -> Catalog {
    let github = r#"{
        "source": "github-test", "title": "t", "repository": "o/github", "commit": "0123456789012345678901234567890123456789",
        "servers": ["github"],
        "tools": [
            {"name": "merge_pull_request", "defined_in": "a.go", "effects": ["write", "publish"],
             "arguments": {"owner": "repository", "repo": "repository", "commit_message": "outbound-content"}},
            {"name": "delete_file", "defined_in": "a.go", "effects": ["delete"], "irreversible": false,
             "arguments": {"path": "file-path", "/files/*/path": "file-path"}}
        ]}"#;
    let fs = r#"{
        "source": "fs-test", "title": "t", "repository": "o/fs", "commit": "abcdefabcdefabcdefabcdefabcdefabcdefabcd",
        "servers": ["filesystem"],
        "tools": [
            {"name": "delete_file", "defined_in": "b.ts", "effects": ["delete"], "irreversible": true,
             "arguments": {"path": "file-path"}},
            {"name": "call_cli", "defined_in": "c.py", "effects_by_value": true,
             "effects": ["execute", "read", "write", "delete", "permission-change"],
             "arguments": {"cli_command": "shell-command"}},
            {"name": "run_sql", "defined_in": "c.py", "effects_by_value": true,
             "effects": ["read", "write", "delete"], "arguments": {"sql": "query"}},
            {"name": "use_mcp_tool", "defined_in": "d.ts", "effects": ["execute"],
             "wraps": {"server": "server_name", "tool": "tool_name", "arguments": "arguments"}}
        ]}"#;
    Catalog::from_files(&[("github-test.json", github), ("fs-test.json", fs)]).unwrap()
}

/// The facts of the call request `json` over the test [`catalog`].
fn facts_of(json: &str) -> ToolFacts {
    let request = CallRequest::from_json(json).unwrap();
    FactFinder::new(std::sync::Arc::new(catalog())).facts(&request)
}

fn roles(f: &ToolFacts) -> Vec<(Role, &str, &str)> {
    f.roles
        .iter()
        .map(|r| (r.role, r.pointer.as_str(), r.value.as_str()))
        .collect()
}

#[test]
fn the_shipped_catalog_loads_and_every_entry_has_its_source() {
    let c = Catalog::shipped();
    for e in c.entries() {
        let source = &c.sources()[e.source];
        assert!(e.id.starts_with(&format!("{}/", source.id)), "{}", e.id);
        assert!(e.id.ends_with(&format!("@{}", catalog::VERSION)));
        assert!(!e.defined_in.is_empty(), "{}", e.id);
        assert_eq!(source.commit.len(), 40);
    }
}

#[test]
fn catalog_files_that_break_the_format_are_refused_naming_file_tool_and_key() {
    let bad_effect = r#"{"source": "x", "title": "t", "repository": "o/x", "commit": "0123456789012345678901234567890123456789",
        "tools": [{"name": "go", "defined_in": "a", "effects": ["explode"]}]}"#;
    let e = Catalog::from_files(&[("x.json", bad_effect)])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`x.json`") && e.contains("tool `go`, `effects`") && e.contains("explode"),
        "{e}"
    );
    let bad_role = bad_effect.replace(
        r#""effects": ["explode"]"#,
        r#""effects": [], "arguments": {"p": "paths"}"#,
    );
    let e = Catalog::from_files(&[("x.json", &bad_role)])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`arguments.p`") && e.contains("unknown role `paths`"),
        "{e}"
    );
    let e = Catalog::from_files(&[("y.json", bad_effect)])
        .unwrap_err()
        .to_string();
    assert!(e.contains("not the file's name"), "{e}");
    let short = bad_effect.replace("0123456789012345678901234567890123456789", "abc");
    let e = Catalog::from_files(&[("x.json", &short)])
        .unwrap_err()
        .to_string();
    assert!(e.contains("`commit`"), "{e}");
    let twice = r#"{"source": "x", "title": "t", "repository": "o/x", "commit": "0123456789012345678901234567890123456789",
        "tools": [{"name": "a", "defined_in": "a", "effects": []}, {"name": "a", "defined_in": "a", "effects": []}]}"#;
    let e = Catalog::from_files(&[("x.json", twice)])
        .unwrap_err()
        .to_string();
    assert!(e.contains("repeated"), "{e}");
    let unknown_key = bad_effect.replace(
        r#""effects": ["explode"]"#,
        r#""effects": [], "risk": "high""#,
    );
    let e = Catalog::from_files(&[("x.json", &unknown_key)])
        .unwrap_err()
        .to_string();
    assert!(e.contains("risk"), "{e}");
}

#[test]
fn prefixed_mcp_names_find_their_server_entry() {
    let c = catalog();
    for name in [
        "merge_pull_request",
        "mcp__github__merge_pull_request",
        "github.merge_pull_request",
        "github/merge_pull_request",
        "mcp_github_merge_pull_request",
        "GitHub__Merge_Pull_Request",
    ] {
        let found = c.lookup(name);
        assert_eq!(found.len(), 1, "{name}");
        assert_eq!(
            found[0].id, "github-test/merge_pull_request@2026-12",
            "{name}"
        );
    }
    // A bare ambiguous name is every entry; a server prefix picks one.
    assert_eq!(c.lookup("delete_file").len(), 2);
    let fs = c.lookup("mcp__filesystem__delete_file");
    assert_eq!(fs.len(), 1);
    assert_eq!(fs[0].id, "fs-test/delete_file@2026-12");
    // A prefix that is no known server makes an unknown name (inferred
    // from its words), never the catalogued tool at its end: a payment tool
    // may not borrow the facts of a read.
    for name in [
        "mcp__other__delete_file",
        "pay_invoice.merge_pull_request",
        "transfer_funds:merge_pull_request",
        "mcp__evil__send_payment__merge_pull_request",
        "github_x__merge_pull_request",
    ] {
        assert!(c.lookup(name).is_empty(), "{name}");
    }
    let f = facts_of(r#"{"call": {"name": "pay_invoice.merge_pull_request", "arguments": {}}}"#);
    assert!(f.effects.contains(Effect::Payment), "{:?}", f.reasons);
    assert!(c.lookup("merge_pull").is_empty());
}

#[test]
fn a_catalogued_call_gets_the_entry_effects_and_roles() {
    let f = facts_of(
        r#"{"call": {"name": "mcp__github__merge_pull_request", "arguments":
            {"owner": "acme", "repo": "site", "pullNumber": 7, "commit_message": "ship"}}}"#,
    );
    assert_eq!(
        f.effects,
        Effects::from_iter([Effect::Write, Effect::Publish])
    );
    assert_eq!(
        f.source,
        FactSource::Catalog(vec!["github-test/merge_pull_request@2026-12".into()])
    );
    assert_eq!(
        roles(&f),
        vec![
            (Role::OutboundContent, "/commit_message", "ship"),
            (Role::Repository, "/owner", "acme"),
            (Role::Repository, "/repo", "site"),
        ]
    );
    // Ambiguous: effects joined, irreversible if either is.
    let f = facts_of(r#"{"call": {"name": "delete_file", "arguments": {"path": "/a"}}}"#);
    assert!(f.irreversible);
    assert!(matches!(&f.source, FactSource::Catalog(ids) if ids.len() == 2));
    // Nested patterns reach array elements.
    let f = facts_of(
        r#"{"call": {"name": "delete_file", "arguments": {"files": [{"path": "/a"}, {"path": "/b"}]}}}"#,
    );
    assert_eq!(
        roles(&f),
        vec![
            (Role::FilePath, "/files/0/path", "/a"),
            (Role::FilePath, "/files/1/path", "/b")
        ]
    );
}

#[test]
fn a_command_runner_does_what_its_command_says() {
    let cases: &[(&str, &[Effect], bool)] = &[
        (
            r#""call_cli", "arguments": {"cli_command": "aws s3 ls s3://logs"}"#,
            &[Effect::Read, Effect::Execute],
            false,
        ),
        (
            r#""call_cli", "arguments": {"cli_command": "aws iam attach-user-policy --policy-arn arn:aws:iam::aws:policy/AdministratorAccess"}"#,
            &[Effect::Execute, Effect::PermissionChange],
            false,
        ),
        (
            r#""call_cli", "arguments": {"cli_command": "aws s3 rb s3://logs --force"}"#,
            &[Effect::Delete, Effect::Execute],
            true,
        ),
        (
            r#""run_sql", "arguments": {"sql": "SELECT name FROM roles"}"#,
            &[Effect::Read],
            false,
        ),
        (
            r#""run_sql", "arguments": {"sql": "DROP TABLE users"}"#,
            &[Effect::Delete],
            true,
        ),
        (
            r#""run_sql", "arguments": {"sql": "UPDATE users SET admin = true"}"#,
            &[Effect::Write],
            false,
        ),
    ];
    for (call, effects, irreversible) in cases {
        let f = facts_of(&format!(r#"{{"call": {{"name": {call}}}}}"#));
        assert_eq!(
            f.effects,
            effects.iter().copied().collect::<Effects>(),
            "{call}: {:?}",
            f.reasons
        );
        assert_eq!(f.irreversible, *irreversible, "{call}");
        assert!(!f.protected_target, "{call}");
    }
    // Mixed case is read as a decoder reads it; an IAM policy put is a
    // permission change; padding leaves the call all the tool can do.
    let f = facts_of(r#"{"call": {"name": "run_sql", "arguments": {"sql": "dElEtE FROM users"}}}"#);
    assert!(f.effects.contains(Effect::Delete), "{:?}", f.reasons);
    let f = facts_of(
        r#"{"call": {"name": "call_cli", "arguments": {"cli_command": "aws iam put-user-policy --user-name x"}}}"#,
    );
    assert!(
        f.effects.contains(Effect::PermissionChange),
        "{:?}",
        f.reasons
    );
    let padding: Vec<u32> = (0..3000).collect();
    let padded = serde_json::json!({"call": {"name": "call_cli", "arguments": {"a": padding, "cli_command": "aws s3 ls"}}});
    let f = facts_of(&padded.to_string());
    assert!(
        f.effects.contains(Effect::Delete) && f.protected_target && f.irreversible,
        "{:?}",
        f.reasons
    );
    let padded = serde_json::json!({"call": {"name": "update_thing", "arguments": {"a": padding}}});
    assert!(facts_of(&padded.to_string()).protected_target);
    let f = facts_of(
        r#"{"call": {"name": "call_cli", "arguments": {"cli_command": "gcloud projects delete acme-prod"}}}"#,
    );
    assert!(f.protected_target && f.irreversible, "{:?}", f.reasons);
    // A resource named with `-` is named as with `_`.
    let f = facts_of(
        r#"{"call": {"name": "call_cli", "arguments": {"parameters": {"stack-name": "prod-core"}}}}"#,
    );
    assert!(f.protected_target, "{:?}", f.reasons);
}

#[test]
fn the_main_branch_is_a_protected_target() {
    let f = facts_of(
        r#"{"call": {"name": "delete_file", "arguments": {"owner": "acme", "repo": "site", "path": "a", "branch": "main"}}}"#,
    );
    assert!(f.protected_target, "{:?}", f.reasons);
    // A local checkout's main is not a shared repository's.
    let f = facts_of(
        r#"{"call": {"name": "git_checkout", "arguments": {"repo_path": "/w", "branch": "main"}}}"#,
    );
    assert!(!f.protected_target, "{:?}", f.reasons);
    let f = facts_of(
        r#"{"call": {"name": "delete_file", "arguments": {"path": "a", "branch": "fix/main-menu"}}}"#,
    );
    assert!(!f.protected_target);
    // A branch made from main, or a pull request into it, leaves main as it is.
    let f = facts_of(
        r#"{"call": {"name": "create_branch", "arguments": {"branch": "fix/a", "from_branch": "main"}}}"#,
    );
    assert!(!f.protected_target);
}

#[test]
fn a_merge_acts_on_the_protected_target_it_does_not_name() {
    // The base branch of a pull request is not in the call; the shipped
    // catalog says every merge lands on one, under any prefix an agent uses.
    let finder = FactFinder::new(Catalog::shipped());
    let facts_of = |json: &str| finder.facts(&CallRequest::from_json(json).unwrap());
    for name in [
        "merge_pull_request",
        "mcp__github__merge_pull_request",
        "merge_merge_request",
        "merge_branch",
    ] {
        let f = facts_of(&format!(
            r#"{{"call": {{"name": "{name}", "arguments": {{"owner": "acme", "repo": "api", "pullNumber": 4}}}}}}"#
        ));
        assert!(f.protected_target, "{name}: {:?}", f.reasons);
        assert!(
            f.reasons
                .iter()
                .any(|r| r.contains("every call changes a protected target")),
            "{name}: {:?}",
            f.reasons
        );
    }
    // Uncatalogued spellings of the same act (review s23), not the calls
    // that only open, list or describe one.
    for (name, protected) in [
        ("mergePullRequest", true),
        ("merge-pull-request", true),
        ("mcp__github__merge_pr", true),
        ("mcp__gitlab__accept_merge_request", true),
        ("enable_pr_auto_merge", true),
        ("create_merge_request", false),
        ("list_merge_requests", false),
        ("merge_sort", false),
    ] {
        let f = facts_of(&format!(
            r#"{{"call": {{"name": "{name}", "arguments": {{"owner": "acme", "repo": "api"}}}}}}"#
        ));
        assert_eq!(f.protected_target, protected, "{name}: {:?}", f.reasons);
    }
    // Bringing the base into a pull request's own branch leaves the base as it is.
    let f = facts_of(
        r#"{"call": {"name": "update_pull_request_branch", "arguments": {"owner": "acme", "repo": "api", "pullNumber": 4}}}"#,
    );
    assert!(!f.protected_target, "{:?}", f.reasons);
}

#[test]
fn uncatalogued_tools_get_effects_from_their_words() {
    let cases: &[(&str, &[Effect], bool)] = &[
        (
            "wallet_send_token",
            &[Effect::OutboundMessage, Effect::Payment],
            true,
        ),
        ("createRefund", &[Effect::Write, Effect::Payment], true),
        ("list_payments", &[Effect::Read], false),
        ("get_message", &[Effect::Read], false),
        (
            "trash_messages",
            &[Effect::Delete, Effect::OutboundMessage],
            true,
        ),
        (
            "update_repository_visibility",
            &[Effect::Write, Effect::Publish, Effect::PermissionChange],
            false,
        ),
        ("attach_user_policy", &[Effect::PermissionChange], false),
        (
            "gcloud-projects-delete",
            &[Effect::Delete, Effect::Execute],
            true,
        ),
        ("drop_table", &[Effect::Delete], true),
        ("stripe_payouts", &[Effect::Payment], true),
        ("archive_thread", &[Effect::Write], false),
        ("weather", &[], false),
        // Paste sites and DNS records are readable by anyone (review s22 F8).
        ("create_pastebin", &[Effect::Write, Effect::Publish], false),
        ("new_paste", &[Effect::Publish], false),
        ("dns_set_record", &[Effect::Write, Effect::Publish], false),
        ("get_paste", &[Effect::Read], false),
        ("list_dns_records", &[Effect::Read], false),
    ];
    for (name, effects, irreversible) in cases {
        let f = facts_of(&format!(
            r#"{{"call": {{"name": "{name}", "arguments": {{}}}}}}"#
        ));
        assert_eq!(
            f.effects,
            effects.iter().copied().collect::<Effects>(),
            "{name}: {:?}",
            f.reasons
        );
        assert_eq!(f.irreversible, *irreversible, "{name}: {:?}", f.reasons);
        assert!(matches!(f.source, FactSource::Inferred(_)), "{name}");
    }
    let f = facts_of(r#"{"call": {"name": "wallet_send_token", "arguments": {}}}"#);
    assert!(
        f.reasons
            .contains(&"name verb \"send\": outbound-message".to_string()),
        "{:?}",
        f.reasons
    );
}

/// A tool that runs the language its name says holds that language's code
/// in its text argument when no argument is named for code.
#[test]
fn the_text_of_a_tool_that_runs_a_language_is_its_code() {
    let code = |name: &str, args: &str| {
        let f = facts_of(&format!(
            r#"{{"call": {{"name": "{name}", "arguments": {args}}}}}"#
        ));
        f.roles
            .iter()
            .filter(|r| matches!(r.role, Role::SourceCode | Role::ShellCommand))
            .map(|r| (r.role, r.pointer.clone(), r.dialect.clone()))
            .collect::<Vec<_>>()
    };
    let js = Some("javascript".to_string());
    assert_eq!(
        code(
            "javascript_tool",
            r#"{"action": "javascript_exec", "text": "fetch(u)", "tabId": 1}"#
        ),
        vec![(Role::SourceCode, "/text".to_string(), js.clone())]
    );
    assert_eq!(
        code("run_python", r#"{"input": "print(1)"}"#),
        vec![(
            Role::SourceCode,
            "/input".to_string(),
            Some("python".to_string())
        )]
    );
    assert_eq!(
        code("bash_exec", r#"{"input": "ls"}"#),
        vec![(
            Role::ShellCommand,
            "/input".to_string(),
            Some("bash".to_string())
        )]
    );
    // An argument named for code is the code; the text beside it is not.
    assert_eq!(
        code("run_python", r#"{"code": "print(1)", "text": "a note"}"#),
        vec![(
            Role::SourceCode,
            "/code".to_string(),
            Some("python".to_string())
        )]
    );
    // A role the text had already stays beside the code's (review s26).
    let f = facts_of(
        r#"{"call": {"name": "run_python", "arguments": {"source": "https://e.example/x.py"}}}"#,
    );
    assert!(
        f.roles
            .iter()
            .any(|r| r.role == Role::FilePath && r.pointer == "/source"),
        "{:?}",
        f.roles
    );
    assert!(
        f.roles
            .iter()
            .any(|r| r.role == Role::SourceCode && r.pointer == "/source")
    );
    // A tool whose name says no language, or one catalogued (its entry
    // says where its code is), gets no code from its text.
    assert_eq!(code("run_task", r#"{"text": "print(1)"}"#), vec![]);
    assert_eq!(
        code(
            "merge_pull_request",
            r#"{"owner": "o", "repo": "r", "body": "x"}"#
        ),
        vec![]
    );
}

/// Identifiers, ARNs and a resource kind's name or id are cloud
/// resources by their argument's name, so a production one is a protected
/// target whatever else the tool calls it.
#[test]
fn resource_identifiers_are_cloud_resources_by_their_names() {
    for key in [
        "db-instance-identifier",
        "DBClusterIdentifier",
        "role_arn",
        "FunctionName",
        "volumeId",
        "db_cluster_id",
    ] {
        let f = facts_of(&format!(
            r#"{{"call": {{"name": "delete_thing", "arguments": {{"{key}": "prod-main"}}}}}}"#
        ));
        assert_eq!(
            roles(&f),
            vec![(Role::CloudResource, format!("/{key}").as_str(), "prod-main")],
            "{key}"
        );
        assert!(f.protected_target, "{key}: {:?}", f.reasons);
    }
    for key in ["username", "warn", "learn", "identity", "service_account"] {
        let f = facts_of(&format!(
            r#"{{"call": {{"name": "delete_thing", "arguments": {{"{key}": "prod-main"}}}}}}"#
        ));
        assert!(
            !f.roles.iter().any(|r| r.role == Role::CloudResource),
            "{key}: {:?}",
            f.roles
        );
    }
}

#[test]
fn values_that_make_something_public_are_publish_and_permission_change() {
    for args in [
        r#"{"visibility": "public"}"#,
        r#"{"private": false}"#,
        r#"{"Is_Public": true}"#,
    ] {
        let f = facts_of(&format!(
            r#"{{"call": {{"name": "update_repository", "arguments": {args}}}}}"#
        ));
        assert!(
            f.effects.contains(Effect::Publish) && f.effects.contains(Effect::PermissionChange),
            "{args}: {:?}",
            f.reasons
        );
    }
    // Something new made public chooses its audience too: everyone.
    for call in [
        r#"{"name": "create_gist", "arguments": {"public": true}}"#,
        r#"{"name": "create_repository", "arguments": {"name": "tools", "private": false}}"#,
    ] {
        let f = facts_of(&format!(r#"{{"call": {call}}}"#));
        assert!(
            f.effects.contains(Effect::Publish) && f.effects.contains(Effect::PermissionChange),
            "{call}: {:?}",
            f.reasons
        );
    }
    // As a lenient decoder reads the flag.
    for args in [
        r#"{"public": "True"}"#,
        r#"{"public": "yes"}"#,
        r#"{"public": "false"}"#,
        r#"{"public": 1.0}"#,
        r#"{"private": 0}"#,
        r#"{"private": "off"}"#,
        r#"{"private": ""}"#,
    ] {
        let f = facts_of(&format!(
            r#"{{"call": {{"name": "create_gist", "arguments": {args}}}}}"#
        ));
        assert!(f.effects.contains(Effect::PermissionChange), "{args}");
    }
    // A public reply posted where it belongs publishes, and chooses no
    // audience (review s27: a support ticket's public comment).
    let f = facts_of(
        r#"{"call": {"name": "add_ticket_comment", "arguments": {"body": "hi", "public": true}}}"#,
    );
    assert!(f.effects.contains(Effect::Publish) && !f.effects.contains(Effect::PermissionChange));
    // Made private, or not said: no change of access.
    for call in [
        r#"{"name": "create_gist", "arguments": {"public": false}}"#,
        r#"{"name": "create_repository", "arguments": {"name": "tools", "private": true}}"#,
    ] {
        let f = facts_of(&format!(r#"{{"call": {call}}}"#));
        assert!(
            !f.effects.contains(Effect::PermissionChange),
            "{call}: {:?}",
            f.reasons
        );
    }
    for args in [
        r#"{"visibility": "private"}"#,
        r#"{"private": true}"#,
        r#"{"description": "public"}"#,
    ] {
        let f = facts_of(&format!(
            r#"{{"call": {{"name": "update_repository", "arguments": {args}}}}}"#
        ));
        assert!(!f.effects.contains(Effect::Publish), "{args}");
    }
}

/// A change to hundreds of objects at once (a list of ids) is made to a
/// protected target; a few ids, lists of contents and reads are not.
#[test]
fn a_list_of_hundreds_of_ids_is_a_protected_target() {
    let ids = |n: usize| {
        serde_json::Value::from((0..n).map(|i| format!("18c{i:012x}")).collect::<Vec<_>>())
    };
    let call = |name: &str, args: serde_json::Value| {
        facts_of(&serde_json::json!({"call": {"name": name, "arguments": args}}).to_string())
    };
    let f = call(
        "batch_modify_emails",
        serde_json::json!({"messageIds": ids(1500), "removeLabelIds": ["INBOX"]}),
    );
    assert!(f.protected_target, "{:?}", f.reasons);
    assert!(
        f.reasons
            .iter()
            .any(|r| r.contains("/messageIds lists 1500")),
        "{:?}",
        f.reasons
    );
    // Nested, and numbers.
    let numbers: Vec<u32> = (0..600).collect();
    let f = call(
        "close_issues",
        serde_json::json!({"filter": {"issue_numbers": numbers}}),
    );
    assert!(f.protected_target, "{:?}", f.reasons);
    for (name, args) in [
        (
            "batch_modify_emails",
            serde_json::json!({"messageIds": ids(2), "addLabelIds": ["Label_12"]}),
        ),
        (
            "batch_modify_emails",
            serde_json::json!({"messageIds": ids(499)}),
        ),
        (
            "insert_rows",
            serde_json::json!({"rows": (0..600).map(|i| serde_json::json!({"id": i})).collect::<Vec<_>>()}),
        ),
        (
            "upsert_vectors",
            serde_json::json!({"id": "doc-1", "values": (0..1536).map(|i| f64::from(i) / 1536.0).collect::<Vec<_>>()}),
        ),
        (
            "write_lines",
            serde_json::json!({"path": "a.txt", "lines": (0..600).map(|i| format!("line {i}")).collect::<Vec<_>>()}),
        ),
    ] {
        let f = call(name, args);
        assert!(!f.protected_target, "{name}: {:?}", f.reasons);
    }
}

#[test]
fn a_declared_description_names_the_effect_when_the_name_does_not() {
    let f = facts_of(
        r#"{"call": {"name": "zap", "arguments": {}},
            "tool": {"description": "Permanently deletes a project. Use with care."}}"#,
    );
    assert_eq!(f.effects, Effects::from_iter([Effect::Delete]));
    assert!(
        f.reasons
            .iter()
            .any(|r| r.contains("description verb \"delete\"")),
        "{:?}",
        f.reasons
    );
    // Declared tags add effects, never remove.
    let f = facts_of(
        r#"{"call": {"name": "zap", "arguments": {}}, "tool": {"tags": ["Payment", "network"]}}"#,
    );
    assert_eq!(f.effects, Effects::from_iter([Effect::Payment]));
    assert_eq!(f.source, FactSource::Declared);
}

#[test]
fn roles_come_from_argument_names_schema_formats_and_values() {
    let f = facts_of(
        r#"{"call": {"name": "run_terminal_cmd", "arguments":
            {"CommandLine": "cmd /c rmdir /s /q C:\\", "site": "https://example.com/x", "target": "a@b.example"}},
            "tool": {"parameters_schema": {"type": "object", "properties": {"target": {"type": "string", "format": "email"}}}}}"#,
    );
    assert_eq!(
        roles(&f),
        vec![
            (
                Role::ShellCommand,
                "/CommandLine",
                "cmd /c rmdir /s /q C:\\"
            ),
            (Role::Url, "/site", "https://example.com/x"),
            (Role::Recipient, "/target", "a@b.example"),
        ]
    );
    assert_eq!(f.roles[0].dialect.as_deref(), Some("cmd"));
    assert!(f.effects.contains(Effect::Execute));
    // A folded key is the same name (`ſcript` is `script`).
    let f = facts_of(r#"{"call": {"name": "cron_add", "arguments": {"ſcript": "nc -e sh x 1"}}}"#);
    assert_eq!(
        roles(&f),
        vec![(Role::ShellCommand, "/ſcript", "nc -e sh x 1")]
    );
}

#[test]
fn texts_of_a_call_that_sends_are_outbound_content_and_production_is_protected() {
    let f = facts_of(
        r#"{"call": {"name": "send_email", "arguments":
            {"to": ["a@x.example", "b@y.example"], "subject": "hi", "body": {"html": "<p>x</p>"}}}}"#,
    );
    assert_eq!(
        roles(&f),
        vec![
            (Role::OutboundContent, "/body/html", "<p>x</p>"),
            (Role::OutboundContent, "/subject", "hi"),
            (Role::Recipient, "/to/0", "a@x.example"),
            (Role::Recipient, "/to/1", "b@y.example"),
        ]
    );
    assert!(f.irreversible);
    // A file tool's `content` is not sent anywhere.
    let f = facts_of(r#"{"call": {"name": "create_note", "arguments": {"content": "x"}}}"#);
    assert!(!f.has_role(Role::OutboundContent));

    let f = facts_of(
        r#"{"call": {"name": "terraform_apply", "arguments": {"workspace": "prod-eu", "auto_approve": true}}}"#,
    );
    assert!(f.protected_target);
    assert!(f.effects.contains(Effect::Deploy));
    assert!(
        f.reasons.iter().any(|r| r.contains("/workspace")),
        "{:?}",
        f.reasons
    );
    let f =
        facts_of(r#"{"call": {"name": "terraform_apply", "arguments": {"workspace": "staging"}}}"#);
    assert!(!f.protected_target);
}

#[test]
fn effects_and_roles_cross_the_contract_unchanged() {
    let all: Effects = Effect::ALL.into_iter().collect();
    assert_eq!(Effects::from_wit(all.to_wit()), all);
    for e in Effect::ALL {
        let one = Effects::from_iter([e]);
        assert_eq!(Effects::from_wit(one.to_wit()), one);
        assert_eq!(Effect::from_name(e.name()), Some(e));
    }
    for r in Role::ALL {
        assert_eq!(Role::from_wit(r.to_wit()), r);
        assert_eq!(Role::from_name(r.name()), Some(r));
        assert_eq!(
            serde_json::to_value(r).unwrap(),
            serde_json::json!(r.name())
        );
    }
    assert_eq!(
        serde_json::to_value(Effects::from_iter([Effect::Payment, Effect::Read])).unwrap(),
        serde_json::json!(["read", "payment"])
    );
}

/// The calls `json`'s call makes through a wrapping tool, as
/// `(name, arguments)`, or the reason they cannot be read.
fn wrapped(json: &str) -> Result<Vec<(String, String)>, String> {
    let request = CallRequest::from_json(json).unwrap();
    let calls = FactFinder::new(std::sync::Arc::new(catalog())).wrapped_calls(&request)?;
    for c in &calls {
        assert_eq!(c.context.run_id, request.context.run_id);
        assert!(c.approval.is_none());
    }
    Ok(calls
        .into_iter()
        .map(|c| (c.call.name, c.call.arguments.get().to_string()))
        .collect())
}

#[test]
fn a_wrapping_tool_makes_the_call_it_names() {
    // An object of arguments, or (as Cline sends them) JSON text.
    let made = vec![(
        "merge_pull_request".to_string(),
        r#"{"owner":"acme","commit_message":"ship"}"#.to_string(),
    )];
    assert_eq!(
        wrapped(
            r#"{"call": {"name": "use_mcp_tool", "arguments": {"server_name": "github",
                "tool_name": "merge_pull_request",
                "arguments": {"owner": "acme", "commit_message": "ship"}}},
                "context": {"run_id": "r1"}}"#
        ),
        Ok(made.clone())
    );
    assert_eq!(
        wrapped(
            r#"{"call": {"name": "use_mcp_tool", "arguments": {"server_name": "github",
                "tool_name": "merge_pull_request",
                "arguments": "{\"owner\": \"acme\", \"commit_message\": \"ship\"}"}}}"#
        ),
        Ok(made)
    );
    // No arguments: an empty object.
    assert_eq!(
        wrapped(r#"{"call": {"name": "use_mcp_tool", "arguments": {"tool_name": "delete_file"}}}"#),
        Ok(vec![("delete_file".to_string(), "{}".to_string())])
    );
    // Any other tool makes no call.
    assert_eq!(
        wrapped(r#"{"call": {"name": "delete_file", "arguments": {"tool_name": "x"}}}"#),
        Ok(vec![])
    );
}

#[test]
fn a_tool_named_like_a_wrapper_makes_the_call_it_names() {
    // Review s22 F6: another server's `use_mcp_tool`, a proxy's
    // `call_tool` in MCP's own `tools/call` shape, `executeTool`.
    for (tool, arguments) in [
        (
            "mcp__proxy__use_mcp_tool",
            r#"{"server_name": "db", "tool_name": "drop_database", "arguments": {"name": "prod"}}"#,
        ),
        (
            "call_tool",
            r#"{"name": "drop_database", "arguments": {"name": "prod"}}"#,
        ),
        (
            "mcp__gateway__executeTool",
            r#"{"server": "db", "tool": "drop_database", "params": "{\"name\": \"prod\"}"}"#,
        ),
    ] {
        assert_eq!(
            wrapped(&format!(
                r#"{{"call": {{"name": "{tool}", "arguments": {arguments}}}}}"#
            )),
            Ok(vec![(
                "drop_database".to_string(),
                r#"{"name":"prod"}"#.to_string()
            )]),
            "{tool}"
        );
        assert!(
            FactFinder::new(std::sync::Arc::new(catalog())).wraps(tool),
            "{tool}"
        );
    }
    // A name of that shape with no argument naming a tool, and other
    // names, make no call.
    for (tool, arguments) in [
        ("call_tool", r#"{"id": 4}"#),
        ("run_tool_tests", r#"{"tool": "pytest"}"#),
        ("toolbox", r#"{"tool_name": "x"}"#),
        (
            "workflows_set_run_config_tool",
            r#"{"name": "Start application", "command": "python app.py"}"#,
        ),
    ] {
        assert_eq!(
            wrapped(&format!(
                r#"{{"call": {{"name": "{tool}", "arguments": {arguments}}}}}"#
            )),
            Ok(vec![]),
            "{tool}"
        );
    }
}

#[test]
fn a_wrapped_call_that_cannot_be_read_is_an_error() {
    for (arguments, says) in [
        (r#"{"arguments": {}}"#, "`tool_name` does not name it"),
        (
            r#"{"tool_name": "  "}"#,
            "white space, control or invisible",
        ),
        (r#"{"tool_name": 7}"#, "`tool_name` does not name it"),
        (
            r#"{"tool_name": "x", "arguments": "not json"}"#,
            "is not JSON text of the arguments",
        ),
        (
            r#"{"tool_name": "x", "arguments": "[1]"}"#,
            "something other than an object",
        ),
        (
            r#"{"tool_name": "x", "arguments": 5}"#,
            "neither an object of arguments",
        ),
        // JSON text read as strictly as a call: look-alike keys, twice.
        (
            r#"{"tool_name": "x", "arguments": "{\"path\": \"a\", \"PATH\": \"b\"}"}"#,
            "differ only in case",
        ),
        (
            r#"{"tool_name": "x", "arguments": "{\"path\": \"a\", \"path\": \"b\"}"}"#,
            "is not JSON text of the arguments",
        ),
    ] {
        let e = wrapped(&format!(
            r#"{{"call": {{"name": "use_mcp_tool", "arguments": {arguments}}}}}"#
        ))
        .unwrap_err();
        assert!(e.contains(says), "{arguments}: {e}");
    }
}

/// Earlier calls made through a wrapping tool count as the calls they
/// made; a tool name with white space, control or invisible characters is
/// not read as one (name lists would not match it).
#[test]
fn a_runs_history_and_inner_names_are_read_as_the_calls_made() {
    let request = CallRequest::from_json(
        r#"{"call": {"name": "read_x", "arguments": {}}, "context": {"history": [
            {"name": "use_mcp_tool", "arguments": {"tool_name": "send_money", "arguments": "{\"amount\": 99}"}, "outcome": "allowed"},
            {"name": "read_x", "arguments": {}, "outcome": "allowed"},
            {"name": "use_mcp_tool", "arguments": {"tool_name": "x", "arguments": "{broken"}, "outcome": "denied"}
        ]}}"#,
    )
    .unwrap();
    let finder = FactFinder::new(std::sync::Arc::new(catalog()));
    let history = finder.unwrapped_history(&request.context.history);
    let seen: Vec<(&str, &str)> = history
        .iter()
        .map(|p| (p.name.as_str(), p.arguments.get()))
        .collect();
    assert_eq!(
        seen,
        vec![
            ("send_money", r#"{"amount":99}"#),
            ("read_x", "{}"),
            // Unreadable: kept as it was.
            (
                "use_mcp_tool",
                r#"{"tool_name": "x", "arguments": "{broken"}"#
            ),
        ]
    );
    assert_eq!(history[0].outcome, crate::call::Outcome::Allowed);
    // Nothing wrapped: the same slice, not a copy.
    let plain = &request.context.history[1..2];
    assert!(matches!(
        finder.unwrapped_history(plain),
        std::borrow::Cow::Borrowed(_)
    ));
    for name in [
        "drop_database ",
        " drop_database",
        "drop_database\n",
        "drop\u{200b}_database",
        "drop_d\u{430}tabase",
    ] {
        let json =
            serde_json::json!({"call": {"name": "use_mcp_tool", "arguments": {"tool_name": name}}});
        let e = wrapped(&json.to_string()).unwrap_err();
        assert!(
            e.contains("white space, control or invisible"),
            "{name:?}: {e}"
        );
    }
    // Shown with every character outside ASCII escaped.
    let json = serde_json::json!({"call": {"name": "use_mcp_tool",
        "arguments": {"tool_name": "drop_d\u{430}tabase"}}});
    let e = wrapped(&json.to_string()).unwrap_err();
    assert!(
        e.contains(r#"calls the tool "drop_d\u{430}tabase", a name"#),
        "{e}"
    );
}

#[test]
fn keystrokes_are_outbound_content_and_a_command_line_in_their_own_dialect() {
    let finder = FactFinder::new(Catalog::shipped());
    let request = CallRequest::from_json(
        r#"{"call": {"name": "computer", "arguments": {"action": "type", "text": "rm -rf ~\n"}}}"#,
    )
    .unwrap();
    let f = finder.facts(&request);
    let typed: Vec<_> = f
        .roles
        .iter()
        .map(|r| (r.role, r.pointer.as_str(), r.dialect.as_deref()))
        .collect();
    assert!(
        typed.contains(&(Role::ShellCommand, "/text", Some(catalog::KEYSTROKES))),
        "{typed:?}"
    );
    assert!(
        typed.contains(&(Role::OutboundContent, "/text", None)),
        "{typed:?}"
    );
    // Only the argument the entry names: `action` is no command line.
    assert_eq!(
        f.roles
            .iter()
            .filter(|r| r.role == Role::ShellCommand)
            .count(),
        1
    );
    // A pattern with an empty segment is refused, naming tool and key.
    let bad = r#"{"source": "x", "title": "t", "repository": "o/x", "commit": "0123456789012345678901234567890123456789",
        "tools": [{"name": "typer", "defined_in": "a", "effects": ["write"], "keystrokes": ["/a//b"]}]}"#;
    let e = Catalog::from_files(&[("x.json", bad)])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("x.json") && e.contains("typer") && e.contains("keystrokes./a//b"),
        "{e}"
    );
}

/// A catalogued argument whose enumerated value chooses what the call
/// does (`modes`): terraform-mcp-server's `create_run` only plans with
/// `run_type = "plan_only"` and deploys by default; a value not listed, a
/// look-alike key beside the real one, or a mode left out is all the
/// tool's default does (two keys that fold alike never reach the facts:
/// the call is refused).
#[test]
fn a_mode_argument_chooses_the_effects_only_when_read_as_the_tool_reads_it() {
    let finder = FactFinder::new(Catalog::shipped());
    let facts = |args: &str| {
        let json = format!(
            r#"{{"call": {{"name": "create_run", "arguments": {{"terraform_org_name": "acme",
                "workspace_name": "prod-network"{args}}}}}}}"#
        );
        finder.facts(&CallRequest::from_json(&json).unwrap())
    };
    let plan = facts(r#", "run_type": "plan_only""#);
    assert_eq!(
        plan.effects.iter().collect::<Vec<_>>(),
        [Effect::Read],
        "{:?}",
        plan.reasons
    );
    assert!(
        plan.reasons
            .iter()
            .any(|r| r.contains("run_type = \"plan_only\": read")),
        "{:?}",
        plan.reasons
    );
    let destroy = facts(r#", "run_type": "is_destroy""#);
    assert!(destroy.effects.contains(Effect::Delete), "{destroy:?}");
    for args in [
        "",
        r#", "run_type": "Plan_Only""#,
        r#", "run_type": "plan_only ""#,
        r#", "run_type": ["plan_only"]"#,
        r#", "Run_Type": "plan_only""#,
    ] {
        let f = facts(args);
        assert!(
            f.effects.contains(Effect::Deploy) && f.protected_target,
            "{args}: {f:?}"
        );
    }
    let twice = r#"{"source": "x", "title": "t", "repository": "o/x", "commit": "0123456789012345678901234567890123456789",
        "tools": [{"name": "go", "defined_in": "a", "effects": ["deploy"], "modes": {"kind": {"dry": ["explode"]}}}]}"#;
    let e = Catalog::from_files(&[("x.json", twice)])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`modes.kind.dry`") && e.contains("explode"),
        "{e}"
    );
}

/// A runner told its operation by name (`kubectl_generic`) reads when
/// every verb of the operation reads (`get`, `rollout history`): no
/// `execute`, so a production namespace is no change; a verb that changes
/// something (`rollout restart`, `rollout undo` names none: the rollout
/// itself), or shell syntax in any value, keeps all it does.
#[test]
fn a_named_operation_whose_verbs_read_is_a_read() {
    let finder = FactFinder::new(Catalog::shipped());
    let effects = |args: &str| {
        let json = format!(
            r#"{{"call": {{"name": "kubectl_generic", "arguments": {{"namespace": "production"{args}}}}}}}"#
        );
        let f = finder.facts(&CallRequest::from_json(&json).unwrap());
        assert!(f.protected_target, "{f:?}");
        f.effects.iter().collect::<Vec<_>>()
    };
    assert_eq!(
        effects(r#", "command": "get", "resourceType": "pods""#),
        [Effect::Read]
    );
    assert_eq!(
        effects(r#", "command": "rollout", "subCommand": "history", "name": "api""#),
        [Effect::Read]
    );
    for changes in [
        r#", "command": "rollout", "subCommand": "restart""#,
        r#", "command": "rollout", "subCommand": "undo""#,
        r#", "command": "get", "subCommand": "delete""#,
        r#", "command": "get", "resourceType": "pods; kubectl delete ns production""#,
        r#", "command": "cordon", "name": "node-1""#,
        // Review s28 R1: a read word among other values, an option before
        // the verb, a subcommand that changes something.
        r#", "command": "rollout", "subCommand": "undo", "name": "status-page""#,
        r#", "command": "--cache-dir=/tmp/get", "resourceType": "delete", "args": ["namespace", "production"]"#,
        r#", "command": "certificate", "subCommand": "approve", "name": "--cache-dir=/tmp/get""#,
        r#", "command": "label", "resourceType": "ns", "name": "status", "args": ["x=privileged", "--overwrite"]"#,
        r#", "command": "get", "resourceType": "pods", "flags": ["--raw"]"#,
        r#", "command": "delete", "subCommand": "get""#,
    ] {
        let found = effects(changes);
        assert!(
            found.iter().any(|e| *e != Effect::Read),
            "{changes}: {found:?}"
        );
    }
}

/// Review s28 R2: a deploy word in an uncatalogued name is not outweighed
/// by a read word beside an undo (`undo_rollout_from_history`).
#[test]
fn an_undo_beside_a_read_word_is_still_a_change() {
    for name in [
        "undo_rollout_from_history",
        "revert_rollout_to_history",
        "abort_rollout_status",
        "rollout_undo_status",
        "rollout_history_undo",
    ] {
        let f = facts_of(&format!(
            r#"{{"call": {{"name": "{name}", "arguments": {{"environment": "production"}}}}}}"#
        ));
        assert!(f.effects.iter().any(|e| e != Effect::Read), "{name}: {f:?}");
    }
}
