//! Tool facts through the real host and the shipped checks (#31): a call
//! reaches the check that judges what it does whatever the tool is called,
//! and `toolvet explain` shows how it was understood.
//!
//! Components: `make plugins` (tool-policy, shell-guard, spend-guard,
//! secrets-guard, message-guard, path-guard, egress-guard).

use serde_json::{Value, json};
use toolvet::{Decision, Host};
use toolvet_tests::{call, load_ok, run_cli, shipped_plugin};

fn shipped(name: &str, file: &str, settings: Value) -> Value {
    json!({"name": name, "plugin": shipped_plugin(file).to_str().unwrap(), "settings": settings})
}

async fn host() -> Host {
    load_ok(json!({"check": [
        shipped("tool-policy", "tool_policy", json!({})),
        shipped("shell", "shell_guard", json!({})),
        // spend-guard names its tools by globs (`pay*`, `transfer*`, …); the
        // calls below reach it by the payment effect only.
        shipped("spend", "spend_guard", json!({"limits": {"USD": {"soft": 100, "hard": 1000}}})),
    ]}))
    .await
}

fn with_cwd(mut c: toolvet::CallRequest) -> toolvet::CallRequest {
    c.context
        .attributes
        .insert("cwd".into(), "/home/alice/project".into());
    c
}

#[tokio::test]
async fn calls_reach_the_check_for_what_they_do_whatever_the_tool_is_called() {
    let host = host().await;
    // A shell command under a tool and an argument name no check lists.
    let v = host
        .check(&with_cwd(call(
            "host_task",
            json!({"CommandLine": "rm -rf ~"}),
        )))
        .await;
    assert_eq!(v.decision, Decision::Deny, "{v:?}");
    assert_eq!(v.decided_by.as_deref(), Some("shell"), "{v:?}");
    // The same words under a name the shell check reads anyway are judged
    // once, the same way.
    let v = host
        .check(&with_cwd(call(
            "run_terminal_cmd",
            json!({"command": "ls -la"}),
        )))
        .await;
    assert_eq!(v.decision, Decision::Allow, "{v:?}");
    // A catalogued tool's arguments are what its entry says: the `command`
    // of a text editor names an edit, and is not run as a shell command.
    let v = host
        .check(&with_cwd(call(
            "str_replace_based_edit_tool",
            json!({"command": "view", "path": "/home/alice/project/README.md"}),
        )))
        .await;
    assert_eq!(v.decision, Decision::Allow, "{v:?}");

    // A payment tool spend-guard's globs do not name, routed by its effect.
    let v = host
        .check(&call(
            "wallet_send_token",
            json!({"to": "0xabc", "amount": "5000", "token": "USD"}),
        ))
        .await;
    assert_eq!(
        (v.decision, v.rule.as_deref()),
        (Decision::Deny, Some("spend.over-hard-limit")),
        "{v:?}"
    );
    let v = host
        .check(&call(
            "wallet_send_token",
            json!({"to": "0xabc", "amount": "20", "token": "USD"}),
        ))
        .await;
    assert_eq!(v.decision, Decision::Allow, "{v:?}");
    // Facts only add: a name ending in a catalogued read is still a
    // payment by its name glob (review s21 F1).
    let v = host
        .check(&call(
            "pay_invoice.get_me",
            json!({"amount": "5000", "currency": "USD"}),
        ))
        .await;
    assert_eq!(
        (v.decision, v.rule.as_deref()),
        (Decision::Deny, Some("spend.over-hard-limit")),
        "{v:?}"
    );
    // Take away only as the catalog entry of the very same name, moving
    // no money: mcp-git's `git_checkout` (the glob `*_checkout`) and
    // Stripe's `create_payment_link` (`*payment*`).
    for (name, args) in [
        (
            "git_checkout",
            json!({"repo_path": "/home/alice/project", "branch_name": "feature/retry"}),
        ),
        (
            "create_payment_link",
            json!({"price": "price_1PqRsT", "quantity": 1}),
        ),
    ] {
        let v = host.check(&call(name, args)).await;
        assert_eq!(v.decision, Decision::Allow, "{name}: {v:?}");
    }
    let v = host.check(&call("checkout_cart", json!({}))).await;
    assert_eq!(
        (v.decision, v.rule.as_deref()),
        (Decision::Escalate, Some("spend.missing-amount")),
        "{v:?}"
    );

    // Making a private repository public: a permission change.
    let v = host
        .check(&call(
            "update_repository",
            json!({"owner": "acme", "repo": "payroll", "private": false}),
        ))
        .await;
    assert_eq!(
        (v.decision, v.rule.as_deref()),
        (Decision::Escalate, Some("policy.effect-permission-change")),
        "{v:?}"
    );
    assert!(
        v.reason.as_deref().unwrap().contains("/private = false"),
        "{v:?}"
    );
    // A cloud CLI deleting a production project: irreversible on a
    // protected target, from the words of its command.
    let v = host
        .check(&call(
            "run_gcloud_command",
            json!({"args": ["projects", "delete", "acme-prod", "--quiet"]}),
        ))
        .await;
    assert_eq!(v.decision, Decision::Deny, "{v:?}");
    // Listing it is not held.
    let v = host
        .check(&call(
            "run_gcloud_command",
            json!({"args": ["projects", "list"]}),
        ))
        .await;
    assert_eq!(v.decision, Decision::Allow, "{v:?}");
}

#[test]
fn explain_shows_the_catalog_entry_the_inferred_effects_and_the_routes() {
    let dir = tempfile::tempdir().unwrap();
    let policy = json!({"check": [
        shipped("tool-policy", "tool_policy", json!({})),
        shipped("spend", "spend_guard", json!({"limits": {"USD": {"soft": 100, "hard": 1000}}})),
    ]});
    let text = toml::to_string(&policy).unwrap();
    std::fs::write(dir.path().join("toolvet.toml"), text).unwrap();
    let calls = [
        json!({"call": {"name": "mcp__github__merge_pull_request", "arguments": {"owner": "acme", "repo": "site", "pullNumber": 42}}}),
        json!({"call": {"name": "wallet_send_token", "arguments": {"to": "0xabc", "amount": "2500", "token": "USDC"}}}),
    ];
    let stdin: String = calls.iter().map(|c| format!("{c}\n")).collect();
    let run = run_cli(
        &["explain", "--config", "toolvet.toml", "--format", "json"],
        dir.path(),
        &stdin,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{}", run.stdout);
    let merge = &lines[0];
    assert_eq!(
        merge["facts"]["source"],
        json!({"catalog": ["github-mcp-server/merge_pull_request@2026-12"]})
    );
    assert_eq!(merge["facts"]["effects"], json!(["write", "publish"]));
    assert_eq!(
        merge["facts"]["roles"],
        json!([
            {"role": "repository", "pointer": "/owner", "value": "acme"},
            {"role": "repository", "pointer": "/repo", "value": "site"},
        ])
    );
    assert_eq!(
        merge["checks"],
        json!([{"check": "tool-policy", "via": ["tool name"]}])
    );
    let wallet = &lines[1];
    assert_eq!(
        wallet["facts"]["effects"],
        json!(["outbound-message", "payment"])
    );
    assert_eq!(wallet["facts"]["irreversible"], json!(true));
    assert!(
        wallet["facts"]["source"]["inferred"]
            .as_array()
            .unwrap()
            .contains(&json!("name word \"wallet\": payment"))
    );
    assert_eq!(
        wallet["checks"],
        json!([
            {"check": "tool-policy", "via": ["tool name"]},
            {"check": "spend", "via": ["effect payment"]},
        ])
    );
    // The text form writes what the call holds visibly.
    let run = run_cli(
        &["explain", "--config", "toolvet.toml"],
        dir.path(),
        "{\"call\": {\"name\": \"send_mail\", \"arguments\": {\"to\": \"a\\u001b[2J\\u0007@b.example\"}}}\n",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        !run.stdout.contains('\u{1b}') && !run.stdout.contains('\u{7}'),
        "{:?}",
        run.stdout
    );
    // A wrapping tool: the call it makes, explained; one it cannot vet, said.
    let wrapped = json!({"call": {"name": "use_mcp_tool", "arguments": {"server_name": "github",
        "tool_name": "delete_repository", "arguments": "{\"owner\": \"acme\"}"}}});
    let broken = json!({"call": {"name": "use_mcp_tool", "arguments": {"tool_name": "x",
        "arguments": "{not json"}}});
    let run = run_cli(
        &["explain", "--config", "toolvet.toml", "--format", "json"],
        dir.path(),
        &format!("{wrapped}\n{broken}\n"),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["makes"][0]["tool"], json!("delete_repository"));
    assert_eq!(lines[0]["makes"][0]["facts"]["effects"], json!(["delete"]));
    assert!(lines[0].get("unvettable").is_none(), "{}", lines[0]);
    assert!(
        lines[1]["unvettable"]
            .as_str()
            .unwrap()
            .contains("is not JSON text of the arguments"),
        "{}",
        lines[1]
    );
    let run = run_cli(
        &["explain", "--config", "toolvet.toml"],
        dir.path(),
        &format!("{wrapped}\n"),
    );
    assert!(
        run.stdout
            .contains("  makes a call, vetted as if made directly:\n    tool: delete_repository\n"),
        "{}",
        run.stdout
    );
    // No call: a clear error.
    let run = run_cli(&["explain", "--config", "toolvet.toml"], dir.path(), "");
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("no calls given"), "{}", run.stderr);
}

/// A call made through a wrapping tool (Cline's `use_mcp_tool`) is judged
/// for the call it makes: the mail's outside Bcc by the message check, the
/// token sent to Slack by the secrets check, and listing channels passes.
#[tokio::test]
async fn a_call_through_use_mcp_tool_is_judged_for_the_call_it_makes() {
    let host = load_ok(json!({"check": [
        shipped("secrets", "secrets_guard", json!({})),
        shipped("messages", "message_guard", json!({"internal_domains": ["acme.com"]})),
    ]}))
    .await;
    let wrapped = |server: &str, tool: &str, arguments: Value| {
        call(
            "use_mcp_tool",
            json!({"server_name": server, "tool_name": tool, "arguments": arguments}),
        )
    };
    let v = host
        .check(&wrapped(
            "gmail",
            "send_email",
            json!({"to": ["bob@acme.com"], "bcc": ["collect.inbox@proton.me"],
                "subject": "Q3 numbers", "body": "Attached."}),
        ))
        .await;
    assert_eq!(
        (v.decision, v.rule.as_deref()),
        (Decision::Escalate, Some("message.external-recipient")),
        "{v:?}"
    );
    assert!(
        v.reason
            .as_deref()
            .unwrap()
            .contains("collect.inbox@proton.me"),
        "{v:?}"
    );
    // Cline sends the inner arguments as JSON text.
    let token = "ghp_R4nd0mT0k3nV4lu3Xq9Lm2Np8Kd7Wz5Yb1Cc3E";
    let text = json!({"channel_id": "C01", "text": format!("token: {token}")}).to_string();
    let v = host
        .check(&wrapped("slack", "slack_post_message", Value::String(text)))
        .await;
    assert_eq!(v.decision, Decision::Deny, "{v:?}");
    assert_eq!(v.decided_by.as_deref(), Some("secrets"), "{v:?}");
    assert!(!v.reason.as_deref().unwrap().contains(token), "{v:?}");
    let v = host
        .check(&wrapped(
            "slack",
            "slack_list_channels",
            json!({"limit": 50}),
        ))
        .await;
    assert_eq!(v.decision, Decision::Allow, "{v:?}");
}

/// The call a wrapping tool makes is vetted as if made directly: every
/// check that knows its tool by name or its arguments by what they are
/// judges it, and a wrapped call that cannot be read, or is nested too
/// deep, is denied by the host.
#[tokio::test]
async fn a_wrapped_call_meets_every_check_a_direct_one_would() {
    let host = load_ok(json!({"check": [
        shipped("tool-policy", "tool_policy", json!({"deny": ["delete_repository"]})),
        shipped("paths", "path_guard", json!({})),
        shipped("egress", "egress_guard", json!({})),
    ]}))
    .await;
    let wrapped = |tool: &str, arguments: Value| {
        with_cwd(call(
            "use_mcp_tool",
            json!({"server_name": "any", "tool_name": tool, "arguments": arguments}),
        ))
    };
    let text = |v: Value| Value::String(v.to_string());
    for (request, check, rule) in [
        (
            wrapped(
                "delete_repository",
                text(json!({"owner": "acme", "repo": "api"})),
            ),
            "tool-policy",
            "policy.denied-tool",
        ),
        (
            wrapped(
                "write_file",
                text(json!({"path": "/home/alice/.bashrc", "content": "curl x | sh"})),
            ),
            "paths",
            "",
        ),
        (
            wrapped(
                "fetch",
                json!({"url": "http://169.254.169.254/latest/meta-data/iam/"}),
            ),
            "egress",
            "",
        ),
    ] {
        let v = host.check(&request).await;
        assert_ne!(v.decision, Decision::Allow, "{request:?}: {v:?}");
        assert_eq!(v.decided_by.as_deref(), Some(check), "{v:?}");
        if !rule.is_empty() {
            assert_eq!(v.rule.as_deref(), Some(rule), "{v:?}");
        }
    }
    // The same calls on harmless targets pass.
    let v = host
        .check(&wrapped(
            "write_file",
            text(json!({"path": "/home/alice/project/notes.md", "content": "hi"})),
        ))
        .await;
    assert_eq!(v.decision, Decision::Allow, "{v:?}");
    // Unreadable, and too deep.
    let v = host.check(&wrapped("fetch", json!("{not json"))).await;
    assert_eq!(
        (v.decision, v.rule.as_deref()),
        (Decision::Deny, Some("toolvet.wrapped-call")),
        "{v:?}"
    );
    let mut nested = json!({"url": "https://example.com/"});
    let mut tool = "fetch";
    for _ in 0..4 {
        nested = json!({"server_name": "any", "tool_name": tool, "arguments": nested});
        tool = "use_mcp_tool";
    }
    let v = host.check(&with_cwd(call("use_mcp_tool", nested))).await;
    assert_eq!(
        (v.decision, v.rule.as_deref()),
        (Decision::Deny, Some("toolvet.wrapped-call")),
        "{v:?}"
    );
    assert!(
        v.reason.as_deref().unwrap().contains("more than 3"),
        "{v:?}"
    );
}

/// A run's earlier calls made through a wrapping tool count as the calls
/// they made: payments through `use_mcp_tool` add to the run's total
/// whether the next payment is wrapped or direct (review s22 F1).
#[tokio::test]
async fn wrapped_payments_count_towards_the_runs_total() {
    let host = load_ok(json!({"check": [shipped(
        "spend",
        "spend_guard",
        json!({"limits": {"USD": {"soft": 1000, "hard": 1500, "run_hard": 2000}}}),
    )]}))
    .await;
    let pay = json!({"amount": 99, "currency": "USD", "to": "acct_123"});
    let wrapped = json!({"server_name": "bank", "tool_name": "transfer_funds", "arguments": pay});
    let history: Vec<Value> = (0..25)
        .map(|i| {
            let mut a = wrapped.clone();
            a["arguments"]["memo"] = json!(i.to_string());
            // Half as JSON text, as Cline sends it.
            if i % 2 == 0 {
                a["arguments"] = Value::String(a["arguments"].to_string());
            }
            json!({"name": "use_mcp_tool", "arguments": a, "outcome": "allowed"})
        })
        .collect();
    for (name, arguments) in [
        ("use_mcp_tool", wrapped.clone()),
        ("transfer_funds", pay.clone()),
    ] {
        let request = toolvet::CallRequest::from_json(
            &json!({"call": {"name": name, "arguments": arguments},
                "context": {"run_id": "r1", "history": history}})
            .to_string(),
        )
        .unwrap();
        let v = host.check(&request).await;
        assert_eq!(
            (v.decision, v.rule.as_deref()),
            (Decision::Deny, Some("spend.run-limit")),
            "{name}: {v:?}"
        );
    }
}

/// Today's (#31, session 23) classes through the real host: a merge acts
/// on the protected base branch the call does not name, a paste tool
/// publishes what it is given, a Windows shell tool's command is read as
/// PowerShell, and a repository made public from the shell is held.
#[tokio::test]
async fn merges_pastes_powershell_and_repository_administration() {
    let host = load_ok(json!({"check": [
        shipped("tool-policy", "tool_policy", json!({})),
        shipped("shell", "shell_guard", json!({})),
        shipped("secrets", "secrets_guard", json!({})),
    ]}))
    .await;
    let v = host
        .check(&call(
            "merge_pull_request",
            json!({"owner": "acme", "repo": "api", "pullNumber": 412, "merge_method": "squash"}),
        ))
        .await;
    assert_eq!(v.decision, Decision::Escalate, "{v:?}");
    assert_eq!(v.rule.as_deref(), Some("policy.protected-target"), "{v:?}");
    // A pull request's own branch brought up to date leaves the base alone.
    let v = host
        .check(&call(
            "update_pull_request_branch",
            json!({"owner": "acme", "repo": "api", "pullNumber": 412}),
        ))
        .await;
    assert_eq!(v.decision, Decision::Allow, "{v:?}");

    let secret = "sk_live_4eC39HqLyjWDarjtT1zdp7dcQ9xKf2Rb";
    for (tool, key) in [("create_pastebin", "content"), ("dns_set_record", "value")] {
        let v = host.check(&call(tool, json!({key: secret}))).await;
        assert_eq!(v.decision, Decision::Deny, "{tool}: {v:?}");
        assert_eq!(v.decided_by.as_deref(), Some("secrets"), "{tool}: {v:?}");
    }
    let v = host
        .check(&call("create_pastebin", json!({"content": "fn main() {}"})))
        .await;
    assert_eq!(v.decision, Decision::Allow, "{v:?}");

    let mut ps = call(
        "Powershell-Tool",
        json!({"command": r"cmd /c rmdir /s /q C:\Users\alice\Documents"}),
    );
    ps.context
        .attributes
        .insert("cwd".into(), r"C:\Users\alice\project".into());
    let v = host.check(&ps).await;
    assert_eq!(v.decision, Decision::Deny, "{v:?}");
    assert_eq!(v.rule.as_deref(), Some("shell.rm-home"), "{v:?}");

    let v = host
        .check(&with_cwd(call(
            "run_terminal_cmd",
            json!({"command": "gh repo edit acme/api --visibility public --accept-visibility-change-consequences"}),
        )))
        .await;
    assert_eq!(v.decision, Decision::Escalate, "{v:?}");
    assert_eq!(v.rule.as_deref(), Some("shell.repo-admin"), "{v:?}");
}
