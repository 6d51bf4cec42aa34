//! Approvals end to end, over the real shipped plugins (tool-policy
//! escalates `deploy*`, sequence-guard reads the run's history) and real
//! SQLite ledgers in temporary directories: the round trip, every refusal
//! of a resumed call, scopes, concurrent resumes on real threads, a
//! restart of the ledger, history, the decision log, and ledger failures.

use serde_json::json;
use std::path::Path;
use std::sync::Arc;
use toolvet::{
    ApprovalClaim, CallRequest, Decision, Host, Policy, approval::ApprovalError,
    approval::ApprovalRequest, approval::ApprovalStatus, approval::ListQuery, approval::Scope,
    approval::StatusFilter, approval::rules, config::LedgerLocation,
};

fn plugin(name: &str) -> String {
    let path = toolvet_tests::repo_root()
        .join("target/plugins")
        .join(format!("{name}.wasm"));
    assert!(
        path.exists(),
        "{} is missing: run `make plugins` first",
        path.display()
    );
    path.display().to_string()
}

/// A policy in `dir`: tool-policy escalating `deploy*` (and denying
/// whatever `deny` lists), sequence-guard requiring `run_tests` before
/// `release`, and the `[approvals]` lines given.
fn policy_text(dir: &Path, approvals: &str, deny: &[&str], approve: &[&str]) -> String {
    format!(
        r#"
[host]
cache_dir = "{cache}"
decision_log = "decisions.jsonl"

{approvals}

[[check]]
name = "tools"
plugin = "{tool_policy}"
isolation = "reuse"
[check.settings]
approve = {approve:?}
deny = {deny:?}

[[check]]
name = "sequence"
plugin = "{sequence}"
isolation = "reuse"
tools = ["release"]
[check.settings]
only_after = [{{ tool = "release", after = ["run_tests"] }}]
"#,
        cache = toolvet_tests::cache_dir().display(),
        tool_policy = plugin("tool_policy"),
        sequence = plugin("sequence_guard"),
    )
    .replace("{dir}", &dir.display().to_string())
}

const SQLITE: &str = r#"[approvals]
ledger = "approvals.db"
key_file = "approvals.key""#;

fn write_policy(dir: &Path, text: &str) -> Policy {
    let file = dir.join("toolvet.toml");
    std::fs::write(&file, text).unwrap();
    Policy::from_file(&file).unwrap()
}

async fn host_in(dir: &Path) -> Host {
    Host::load(write_policy(
        dir,
        &policy_text(dir, SQLITE, &[], &["deploy*", "run_tests"]),
    ))
    .await
    .expect("the policy loads")
}

fn deploy(call_id: &str, run: &str, env: &str) -> CallRequest {
    let mut call = CallRequest::new("deploy", &json!({"env": env, "version": "1.4.2"})).unwrap();
    call.call.id = call_id.into();
    call.context.run_id = Some(run.into());
    call
}

fn with_ticket(call: &CallRequest, ticket: &str) -> CallRequest {
    let mut resumed = call.clone();
    resumed.approval = Some(ApprovalClaim {
        ticket: ticket.into(),
    });
    resumed
}

/// Escalate `call` and return the request id and ticket.
async fn escalate(host: &Host, call: &CallRequest) -> (String, String) {
    let v = host.check(call).await;
    assert_eq!(v.decision, Decision::Escalate, "{v:?}");
    let approval = v
        .approval
        .expect("an escalate carries its approval request");
    assert_eq!(approval.status, ApprovalStatus::Pending);
    (
        approval.id,
        approval.ticket.expect("a pending request has a ticket"),
    )
}

fn refused(v: &toolvet::Verdict, rule: &str) {
    assert_eq!(v.decision, Decision::Deny, "{v:?}");
    assert_eq!(v.rule.as_deref(), Some(rule), "{v:?}");
    assert!(v.reason.as_deref().is_some_and(|r| !r.is_empty()), "{v:?}");
}

#[tokio::test]
async fn escalate_approve_resume_once_then_replay_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let host = host_in(dir.path()).await;
    let call = deploy("c1", "run-1", "prod");
    let (id, ticket) = escalate(&host, &call).await;
    assert!(id.starts_with("apr_") && id.len() == 36, "{id}");

    // Asking again about the same pending call: the same request.
    let again = host.check(&call).await;
    let again = again.approval.unwrap();
    assert_eq!(
        (again.id.as_str(), again.ticket.as_deref()),
        (id.as_str(), Some(ticket.as_str()))
    );
    let approvals = host.approvals().unwrap();
    let pending = approvals.list(&ListQuery::default()).await.unwrap();
    assert_eq!(pending.len(), 1, "never duplicated: {pending:?}");
    assert_eq!(
        pending[0].escalations[0].rule.as_deref(),
        Some("policy.requires-approval")
    );

    // Still pending: escalate with the same id.
    let v = host.check(&with_ticket(&call, &ticket)).await;
    assert_eq!(v.decision, Decision::Escalate);
    assert_eq!(v.approval.unwrap().id, id);

    let decided = approvals
        .approve(&id, "alice", Some("release window"), Scope::Once)
        .await
        .unwrap();
    assert_eq!(decided.status, ApprovalStatus::Approved);
    let review = decided.review.unwrap();
    assert_eq!(
        (review.reviewer.as_str(), review.message.as_deref()),
        ("alice", Some("release window"))
    );

    let v = host.check(&with_ticket(&call, &ticket)).await;
    assert_eq!(v.decision, Decision::Allow, "{v:?}");
    assert_eq!(v.rule.as_deref(), Some(rules::APPROVED));
    assert_eq!(
        v.reason.as_deref(),
        Some("approved by alice: release window")
    );
    assert_eq!(
        v.approval.as_ref().unwrap().status,
        ApprovalStatus::Consumed
    );
    // The checks ran again: the escalating check's outcome is kept.
    assert!(v.checks.iter().any(|o| o.check == "tools"));

    refused(
        &host.check(&with_ticket(&call, &ticket)).await,
        rules::REPLAYED,
    );
}

#[tokio::test]
async fn the_first_decision_stands_and_malformed_decisions_are_never_approvals() {
    let dir = tempfile::tempdir().unwrap();
    let host = host_in(dir.path()).await;
    let approvals = host.approvals().unwrap();
    let (id, ticket) = escalate(&host, &deploy("c1", "run-1", "prod")).await;
    for (decision, reviewer, scope) in [
        ("", "alice", None),
        ("yes", "alice", None),
        ("APPROVE", "alice", None),
        ("approve", "", None),
        ("approve", "   ", None),
        ("approve", "al\u{1b}ice", None),
        ("approve", "alice", Some("forever")),
        ("reject", "alice", Some("run")),
    ] {
        let e = toolvet::approval::Review::parse(decision, reviewer, None, scope).unwrap_err();
        assert!(
            matches!(e, ApprovalError::InvalidReview(_)),
            "{decision:?} {reviewer:?}: {e}"
        );
    }
    assert_eq!(
        approvals.get(&id).await.unwrap().status,
        ApprovalStatus::Pending
    );

    approvals
        .reject(&id, "bob", Some("not on a Friday"))
        .await
        .unwrap();
    let e = approvals
        .approve(&id, "mallory", None, Scope::Once)
        .await
        .unwrap_err();
    assert!(
        matches!(&e, ApprovalError::AlreadyDecided { status: ApprovalStatus::Rejected, reviewer, .. } if reviewer == "bob"),
        "{e}"
    );
    let e = approvals.reject(&id, "carol", None).await.unwrap_err();
    assert!(matches!(e, ApprovalError::AlreadyDecided { .. }), "{e}");

    // The model reads the reviewer's message.
    let v = host
        .check(&with_ticket(&deploy("c1", "run-1", "prod"), &ticket))
        .await;
    refused(&v, rules::REJECTED);
    assert_eq!(
        v.reason.as_deref(),
        Some("bob rejected this call: not on a Friday")
    );

    let e = approvals
        .approve("apr_nope", "alice", None, Scope::Once)
        .await
        .unwrap_err();
    assert!(matches!(e, ApprovalError::NotFound(_)), "{e}");
}

#[tokio::test]
async fn a_resumed_call_must_be_the_call_that_was_approved() {
    let dir = tempfile::tempdir().unwrap();
    let host = host_in(dir.path()).await;
    let approvals = host.approvals().unwrap();
    let call = deploy("c1", "run-1", "prod");
    let (id, ticket) = escalate(&host, &call).await;
    approvals
        .approve(&id, "alice", None, Scope::Once)
        .await
        .unwrap();

    let mut renamed = with_ticket(&call, &ticket);
    renamed.call.name = "deploy_everything".into();
    refused(&host.check(&renamed).await, rules::TOOL_CHANGED);

    let changed = with_ticket(&deploy("c1", "run-1", "staging"), &ticket);
    refused(&host.check(&changed).await, rules::ARGUMENTS_CHANGED);

    let other_run = with_ticket(&deploy("c1", "run-2", "prod"), &ticket);
    refused(&host.check(&other_run).await, rules::RUN_MISMATCH);

    let other_call = with_ticket(&deploy("c2", "run-1", "prod"), &ticket);
    refused(&host.check(&other_call).await, rules::CALL_MISMATCH);

    // Key order and spacing are not a change: the canonical digest binds.
    let reordered = CallRequest::from_json(&format!(
        r#"{{"call": {{"id": "c1", "name": "deploy", "arguments": {{ "version": "1.4.2", "env": "prod" }} }},
            "context": {{"run_id": "run-1"}}, "approval": {{"ticket": "{ticket}"}} }}"#
    ))
    .unwrap();
    let v = host.check(&reordered).await;
    assert_eq!(v.decision, Decision::Allow, "{v:?}");
}

/// `deploy` asked in working directory `cwd` (what a hook sets from the
/// agent's directory), or in none.
fn deploy_in(call_id: &str, cwd: Option<&str>) -> CallRequest {
    let mut call = deploy(call_id, "run-1", "prod");
    if let Some(cwd) = cwd {
        call.context.attributes.insert("cwd".into(), cwd.into());
    }
    call
}

/// The same command in another directory is another call (review s10
/// H16), and so is the same bare tool name under another agent tool or on
/// another MCP server (review s11 K1): a ticket, a run-scope grant and a
/// reused call id are bound to the context a person was shown.
#[tokio::test]
async fn an_approval_counts_only_in_the_context_it_was_asked_in() {
    let dir = tempfile::tempdir().unwrap();
    let host = host_in(dir.path()).await;
    let approvals = host.approvals().unwrap();
    let asked = deploy_in("c1", Some("/srv/app"));
    let (id, ticket) = escalate(&host, &asked).await;
    assert_eq!(
        approvals.get(&id).await.unwrap().call.attributes["cwd"],
        "/srv/app"
    );
    approvals
        .approve(&id, "alice", None, Scope::Once)
        .await
        .unwrap();
    for elsewhere in [Some("/srv/other"), Some("/srv/app/"), None] {
        let moved = with_ticket(&deploy_in("c1", elsewhere), &ticket);
        refused(&host.check(&moved).await, rules::CONTEXT_CHANGED);
    }
    let v = host.check(&with_ticket(&asked, &ticket)).await;
    assert_eq!(v.decision, Decision::Allow, "{v:?}");
    assert_eq!(v.rule.as_deref(), Some(rules::APPROVED));

    // A call asked without a directory is not resumed in one.
    let (bare_id, bare_ticket) = escalate(&host, &deploy_in("c2", None)).await;
    approvals
        .approve(&bare_id, "alice", None, Scope::Once)
        .await
        .unwrap();
    let moved = with_ticket(&deploy_in("c2", Some("/srv/app")), &bare_ticket);
    refused(&host.check(&moved).await, rules::CONTEXT_CHANGED);

    // The same call id asked again in another directory is another call.
    escalate(&host, &deploy_in("c3", Some("/srv/app"))).await;
    refused(
        &host.check(&deploy_in("c3", Some("/srv/other"))).await,
        rules::CALL_ID_REUSED,
    );

    // A run-scope grant reaches later calls in its directory only.
    let (run_id, run_ticket) = escalate(&host, &deploy_in("c4", Some("/srv/grant"))).await;
    approvals
        .approve(&run_id, "alice", None, Scope::Run)
        .await
        .unwrap();
    let v = host
        .check(&with_ticket(
            &deploy_in("c4", Some("/srv/grant")),
            &run_ticket,
        ))
        .await;
    assert_eq!(v.decision, Decision::Allow, "{v:?}");
    let v = host.check(&deploy_in("c5", Some("/srv/grant"))).await;
    assert_eq!(v.rule.as_deref(), Some(rules::RUN_SCOPE), "{v:?}");
    let (asked_anew, _) = escalate(&host, &deploy_in("c6", Some("/srv/else"))).await;
    assert_ne!(asked_anew, run_id);

    // The same for the MCP server and the agent's own tool name (review
    // s11 K1: `mcp__good__deploy` and `mcp__evil__deploy` are both vetted
    // as `deploy`; ExtMcp backends `good` and `evil` list one name).
    for key in [
        toolvet::approval::MCP_SERVER_ATTRIBUTE,
        toolvet::approval::AGENT_TOOL_ATTRIBUTE,
    ] {
        let on = |id: &str, value: &str| {
            let mut call = deploy_in(id, Some("/srv/app"));
            call.context.attributes.insert(key.into(), value.into());
            call
        };
        let (id, ticket) = escalate(&host, &on(&format!("{key}-1"), "good")).await;
        approvals
            .approve(&id, "alice", None, Scope::Once)
            .await
            .unwrap();
        let moved = with_ticket(&on(&format!("{key}-1"), "evil"), &ticket);
        let v = host.check(&moved).await;
        refused(&v, rules::CONTEXT_CHANGED);
        assert!(v.reason.as_deref().unwrap().contains(key), "{v:?}");
        let v = host
            .check(&with_ticket(&on(&format!("{key}-1"), "good"), &ticket))
            .await;
        assert_eq!(v.rule.as_deref(), Some(rules::APPROVED), "{v:?}");
    }
}

/// A ledger made before requests were bound to their directory (schema
/// version 1, no `cwd` column) gains the column when opened, keeps its
/// rows, and is marked version 3 (with the run labels table) so an older
/// toolvet refuses it.
#[tokio::test]
async fn a_version_1_sqlite_ledger_gains_the_working_directory_column() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("approvals.db");
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(
            "CREATE TABLE approval_requests (id TEXT PRIMARY KEY, status TEXT NOT NULL \
             CHECK (status IN ('pending', 'approved', 'rejected', 'consumed')), tool TEXT NOT \
             NULL, arguments_sha256 TEXT NOT NULL, arguments TEXT NOT NULL, call_id TEXT NOT \
             NULL, run_id TEXT, agent TEXT, principal TEXT, escalations TEXT NOT NULL, \
             created_at_ms INTEGER NOT NULL, expires_at_ms INTEGER NOT NULL, decision TEXT, \
             reviewer TEXT, message TEXT, scope TEXT, decided_at_ms INTEGER, consumed_at_ms \
             INTEGER);
             INSERT INTO approval_requests (id, status, tool, arguments_sha256, arguments, \
             call_id, run_id, escalations, created_at_ms, expires_at_ms) VALUES \
             ('apr_00112233445566778899aabbccddeeff', 'pending', 'deploy', 'ab', '{}', 'old', \
             'run-1', '[]', 1, 9999999999999);
             PRAGMA user_version = 1;",
        )
        .unwrap();
    }
    let host = host_in(dir.path()).await;
    let approvals = host.approvals().unwrap();
    let old = approvals
        .get("apr_00112233445566778899aabbccddeeff")
        .await
        .unwrap();
    assert_eq!(old.call.call_id, "old");
    assert!(old.call.attributes.is_empty());
    let (id, _) = escalate(&host, &deploy_in("c1", Some("/srv/app"))).await;
    assert_eq!(
        approvals.get(&id).await.unwrap().call.attributes["cwd"],
        "/srv/app"
    );
    drop((approvals, host));
    let conn = rusqlite::Connection::open(&db).unwrap();
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, 3);
}

#[tokio::test]
async fn forged_foreign_malformed_and_unknown_tickets_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let host = host_in(dir.path()).await;
    let call = deploy("c1", "run-1", "prod");
    let (id, ticket) = escalate(&host, &call).await;
    host.approvals()
        .unwrap()
        .approve(&id, "alice", None, Scope::Once)
        .await
        .unwrap();

    // Tampered: one character of the claims or of the signature changed.
    let (head, tag) = ticket.rsplit_once('.').unwrap();
    let flip = |s: &str, at: usize| {
        let mut b = s.as_bytes().to_vec();
        b[at] = if b[at] == b'A' { b'B' } else { b'A' };
        String::from_utf8(b).unwrap()
    };
    refused(
        &host
            .check(&with_ticket(&call, &format!("{head}.{}", flip(tag, 3))))
            .await,
        rules::FORGED,
    );
    let v = host
        .check(&with_ticket(&call, &format!("{}.{tag}", flip(head, 20))))
        .await;
    assert_eq!(v.decision, Decision::Deny, "{v:?}");
    assert!(
        [rules::FORGED, rules::MALFORMED, rules::FOREIGN].contains(&v.rule.as_deref().unwrap()),
        "{v:?}"
    );
    for bad in [
        "",
        "tv1.",
        "tv1.e30",
        "tv2.e30.AAAA",
        "not a ticket",
        &"A".repeat(10_000),
    ] {
        refused(
            &host.check(&with_ticket(&call, bad)).await,
            rules::MALFORMED,
        );
    }

    // Another key: a second policy with its own key file.
    let other = tempfile::tempdir().unwrap();
    let foreign = host_in(other.path()).await;
    refused(
        &foreign.check(&with_ticket(&call, &ticket)).await,
        rules::FOREIGN,
    );

    // The same key but another policy's ledger (realm): foreign too. The
    // key is the first policy's own key file (not an environment
    // variable: setting one is unsound while other tests' threads, and
    // SQLite's C code, read the environment).
    let third = tempfile::tempdir().unwrap();
    let shared = format!(
        "[approvals]\nledger = \"approvals.db\"\nkey_file = {}",
        toml::Value::String(dir.path().join("approvals.key").display().to_string())
    );
    let same_key = Host::load(write_policy(
        third.path(),
        &policy_text(third.path(), &shared, &[], &["deploy*"]),
    ))
    .await
    .unwrap();
    refused(
        &same_key.check(&with_ticket(&call, &ticket)).await,
        rules::FOREIGN,
    );

    // The same key and realm but a ledger that never saw the request.
    let realm = host.approvals().unwrap().realm().to_string();
    let fourth = tempfile::tempdir().unwrap();
    let same_realm = format!("{shared}\nrealm = {realm:?}");
    let stranger = Host::load(write_policy(
        fourth.path(),
        &policy_text(fourth.path(), &same_realm, &[], &["deploy*"]),
    ))
    .await
    .unwrap();
    refused(
        &stranger.check(&with_ticket(&call, &ticket)).await,
        rules::UNKNOWN,
    );

    // And a policy without approvals refuses every ticket.
    let fifth = tempfile::tempdir().unwrap();
    let none = Host::load(write_policy(
        fifth.path(),
        &policy_text(fifth.path(), "", &[], &["deploy*"]),
    ))
    .await
    .unwrap();
    refused(
        &none.check(&with_ticket(&call, &ticket)).await,
        rules::DISABLED,
    );

    // None of that used the approval: the genuine ticket still works once.
    assert_eq!(
        host.check(&with_ticket(&call, &ticket)).await.decision,
        Decision::Allow
    );
}

#[tokio::test]
async fn expired_requests_and_tickets_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = policy_text(
        dir.path(),
        &format!("{SQLITE}\nttl_s = 1"),
        &[],
        &["deploy*"],
    );
    let host = Host::load(write_policy(dir.path(), &text)).await.unwrap();
    let approvals = host.approvals().unwrap();
    let call = deploy("c1", "run-1", "prod");
    let (id, ticket) = escalate(&host, &call).await;
    let (late, late_ticket) = escalate(&host, &deploy("c2", "run-1", "prod")).await;
    approvals
        .approve(&id, "alice", None, Scope::Once)
        .await
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1100));
    refused(
        &host.check(&with_ticket(&call, &ticket)).await,
        rules::EXPIRED,
    );
    let e = approvals
        .approve(&late, "alice", None, Scope::Once)
        .await
        .unwrap_err();
    assert!(matches!(e, ApprovalError::Expired(_)), "{e}");
    refused(
        &host
            .check(&with_ticket(&deploy("c2", "run-1", "prod"), &late_ticket))
            .await,
        rules::EXPIRED,
    );
    let expired = approvals
        .list(&ListQuery {
            status: StatusFilter::Expired,
            ..ListQuery::default()
        })
        .await
        .unwrap();
    assert_eq!(expired.len(), 2, "{expired:?}");
    // Asked again, an expired call asks anew.
    let again = host.check(&call).await;
    assert_eq!(again.decision, Decision::Escalate, "{again:?}");
    assert!(again.approval.as_ref().unwrap().opened);
    approvals
        .reject(&again.approval.unwrap().id, "alice", None)
        .await
        .unwrap();
    assert!(
        approvals
            .list(&ListQuery::default())
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn a_call_a_person_answered_is_not_asked_anew() {
    // A front end that asks again about a call whose answer it missed (a
    // framework replaying its hook, a second process) must not get a new
    // request it could answer itself: the ledger's answer stands.
    let dir = tempfile::tempdir().unwrap();
    let host = host_in(dir.path()).await;
    let approvals = host.approvals().unwrap();

    let rejected = deploy("c1", "run-1", "prod");
    let first = host.check(&rejected).await.approval.unwrap();
    assert!(first.opened, "the first ask opens the request");
    approvals
        .reject(&first.id, "bob", Some("not on a Friday"))
        .await
        .unwrap();
    let again = host.check(&rejected).await;
    refused(&again, rules::REJECTED);
    assert_eq!(
        again.reason.as_deref(),
        Some("bob rejected this call: not on a Friday")
    );
    assert_eq!(again.approval.as_ref().unwrap().id, first.id);

    let used = deploy("c2", "run-1", "prod");
    let (id, _) = escalate(&host, &used).await;
    let pending = host.check(&used).await.approval.unwrap();
    assert_eq!(pending.id, id);
    assert!(
        !pending.opened,
        "asking again finds the request, opens none"
    );
    approvals
        .approve(&id, "alice", None, Scope::Once)
        .await
        .unwrap();
    let approved = host.check(&used).await;
    let ticket = approved.approved_ticket().unwrap();
    assert_eq!(
        host.check(&with_ticket(&used, ticket)).await.decision,
        Decision::Allow
    );
    let replay = host.check(&used).await;
    refused(&replay, rules::REPLAYED);
    assert!(replay.reason.unwrap().contains(&id));

    assert!(
        approvals
            .list(&ListQuery::default())
            .await
            .unwrap()
            .is_empty(),
        "no request was opened for the answered calls"
    );
    // Another call id is another call: it asks anew.
    escalate(&host, &deploy("c3", "run-1", "prod")).await;
}

#[tokio::test]
async fn a_call_id_reused_for_a_different_call_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let host = host_in(dir.path()).await;
    escalate(&host, &deploy("c1", "run-1", "prod")).await;
    refused(
        &host.check(&deploy("c1", "run-1", "staging")).await,
        rules::CALL_ID_REUSED,
    );
    // The same id in another run is another call.
    escalate(&host, &deploy("c1", "run-2", "staging")).await;
}

#[tokio::test]
async fn a_ticket_for_a_call_that_no_longer_escalates_is_refused_and_deny_still_wins() {
    let dir = tempfile::tempdir().unwrap();
    let host = host_in(dir.path()).await;
    // (Staging: tool-policy holds any change to production by itself.)
    let call = deploy("c1", "run-1", "staging");
    let (id, ticket) = escalate(&host, &call).await;
    host.approvals()
        .unwrap()
        .approve(&id, "alice", None, Scope::Once)
        .await
        .unwrap();

    // The policy now denies deploys: a deny wins over the approval, and
    // the approval is not used up.
    let deny_deploys = policy_text(dir.path(), SQLITE, &["deploy*"], &[]);
    host.reload(write_policy(dir.path(), &deny_deploys))
        .await
        .unwrap();
    let v = host.check(&with_ticket(&call, &ticket)).await;
    assert_eq!(v.decision, Decision::Deny, "{v:?}");
    assert_eq!(v.rule.as_deref(), Some("policy.denied-tool"));

    // The policy now lets deploys through without asking: a ticket for a
    // call nothing escalates is meaningless, and refused.
    let allow_deploys = policy_text(dir.path(), SQLITE, &[], &[]);
    host.reload(write_policy(dir.path(), &allow_deploys))
        .await
        .unwrap();
    refused(
        &host.check(&with_ticket(&call, &ticket)).await,
        rules::NOT_ESCALATED,
    );
    assert_eq!(host.check(&call).await.decision, Decision::Allow);

    // Back to the original policy: the approval was never consumed.
    let original = policy_text(dir.path(), SQLITE, &[], &["deploy*", "run_tests"]);
    assert_eq!(
        host.reload(write_policy(dir.path(), &original))
            .await
            .unwrap(),
        4
    );
    assert_eq!(
        host.check(&with_ticket(&call, &ticket)).await.decision,
        Decision::Allow
    );
}

#[tokio::test]
async fn scope_run_allows_the_same_tool_and_arguments_for_the_rest_of_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let host = host_in(dir.path()).await;
    let approvals = host.approvals().unwrap();
    let (id, ticket) = escalate(&host, &deploy("c1", "run-1", "prod")).await;
    approvals
        .approve(&id, "alice", None, Scope::Run)
        .await
        .unwrap();
    let v = host
        .check(&with_ticket(&deploy("c1", "run-1", "prod"), &ticket))
        .await;
    assert_eq!(v.decision, Decision::Allow, "{v:?}");

    // Later calls of the same tool and arguments in the run: no asking.
    for id in ["c2", "c3"] {
        let v = host.check(&deploy(id, "run-1", "prod")).await;
        assert_eq!(v.decision, Decision::Allow, "{v:?}");
        assert_eq!(v.rule.as_deref(), Some(rules::RUN_SCOPE));
    }
    // Not other arguments, not another run.
    escalate(&host, &deploy("c4", "run-1", "staging")).await;
    escalate(&host, &deploy("c5", "run-2", "prod")).await;

    // Scope `run` needs a run id.
    let mut no_run = deploy("c6", "x", "dev");
    no_run.context.run_id = None;
    let (no_run_id, _) = escalate(&host, &no_run).await;
    let e = approvals
        .approve(&no_run_id, "alice", None, Scope::Run)
        .await
        .unwrap_err();
    assert!(matches!(e, ApprovalError::InvalidReview(_)), "{e}");
}

/// Sixteen threads resume with one approved ticket at the same moment,
/// through two hosts (as two processes) sharing the SQLite ledger, and
/// through the in-memory ledger: exactly one call is allowed.
#[test]
fn concurrent_resumes_with_one_ticket_allow_exactly_once() {
    for ledger in ["sqlite", "memory"] {
        let dir = tempfile::tempdir().unwrap();
        let approvals = if ledger == "sqlite" {
            SQLITE.to_string()
        } else {
            "[approvals]\nledger = \"memory\"\nkey_file = \"approvals.key\"".to_string()
        };
        let text = policy_text(dir.path(), &approvals, &[], &["deploy*"]);
        let load = || {
            toolvet::block_on({
                let policy = write_policy(dir.path(), &text);
                async move { Host::load(policy).await.unwrap() }
            })
        };
        let first = load();
        // The memory ledger lives in one host; SQLite is shared by two.
        let second = if ledger == "sqlite" {
            load()
        } else {
            first.clone()
        };
        let call = deploy("c1", "run-1", "prod");
        let v = first.check_blocking(&call);
        let approval = v.approval.unwrap();
        toolvet::block_on({
            let approvals = first.approvals().unwrap();
            let id = approval.id.clone();
            async move {
                approvals
                    .approve(&id, "alice", None, Scope::Once)
                    .await
                    .unwrap()
            }
        });
        let resumed = with_ticket(&call, &approval.ticket.unwrap());
        let barrier = Arc::new(std::sync::Barrier::new(16));
        let threads: Vec<_> = (0..16)
            .map(|i| {
                let host = if i % 2 == 0 {
                    first.clone()
                } else {
                    second.clone()
                };
                let (resumed, barrier) = (resumed.clone(), barrier.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    host.check_blocking(&resumed)
                })
            })
            .collect();
        let verdicts: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        let allowed = verdicts
            .iter()
            .filter(|v| v.decision == Decision::Allow)
            .count();
        assert_eq!(allowed, 1, "{ledger}: {verdicts:#?}");
        for v in verdicts.iter().filter(|v| v.decision != Decision::Allow) {
            assert_eq!(v.rule.as_deref(), Some(rules::REPLAYED), "{ledger}: {v:?}");
        }
    }
}

#[tokio::test]
async fn pending_requests_survive_a_restart_of_the_sqlite_ledger() {
    let dir = tempfile::tempdir().unwrap();
    let tickets: Vec<(String, String)> = {
        let host = host_in(dir.path()).await;
        let mut tickets = Vec::new();
        for (i, env) in ["prod", "staging", "dev"].iter().enumerate() {
            tickets.push(escalate(&host, &deploy(&format!("c{i}"), "run-1", env)).await);
        }
        tickets
    };
    // The host is gone; a tool opens the ledger from the policy alone.
    let policy = Policy::from_file(&dir.path().join("toolvet.toml")).unwrap();
    assert!(matches!(
        &policy.approvals().unwrap().ledger,
        LedgerLocation::Sqlite(p) if p.ends_with("approvals.db")
    ));
    let approvals = toolvet::approval::Approvals::open(&policy)
        .await
        .unwrap()
        .unwrap();
    let pending: Vec<ApprovalRequest> = approvals.list(&ListQuery::default()).await.unwrap();
    let ids: Vec<&str> = pending.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(
        ids,
        tickets
            .iter()
            .map(|(id, _)| id.as_str())
            .collect::<Vec<_>>()
    );
    assert_eq!(
        pending[1].arguments.get(),
        r#"{"env":"staging","version":"1.4.2"}"#
    );
    // Pages.
    let first = approvals
        .list(&ListQuery {
            limit: 2,
            ..ListQuery::default()
        })
        .await
        .unwrap();
    let rest = approvals
        .list(&ListQuery {
            limit: 2,
            after: Some(first[1].id.clone()),
            ..ListQuery::default()
        })
        .await
        .unwrap();
    assert_eq!(
        (first.len(), rest.len(), rest[0].id.as_str()),
        (2, 1, ids[2])
    );

    approvals
        .approve(ids[0], "alice", None, Scope::Once)
        .await
        .unwrap();
    drop(approvals);
    let host = host_in(dir.path()).await;
    let v = host
        .check(&with_ticket(&deploy("c0", "run-1", "prod"), &tickets[0].1))
        .await;
    assert_eq!(v.decision, Decision::Allow, "{v:?}");
}

/// A caller that knows an earlier call only as `escalated` (it asked, and
/// then a person decided elsewhere) gets the ledger's answer in the
/// history the checks see: sequence-guard's "release only after the tests
/// ran" holds only once the tests were approved and ran.
#[tokio::test]
async fn escalated_calls_in_the_history_take_the_ledgers_outcome() {
    let dir = tempfile::tempdir().unwrap();
    let host = host_in(dir.path()).await;
    let approvals = host.approvals().unwrap();
    let tests = |id: &str, run: &str| {
        let mut call = CallRequest::new("run_tests", &json!({"suite": "all"})).unwrap();
        call.call.id = id.into();
        call.context.run_id = Some(run.into());
        call
    };
    let release = |run: &str| {
        let mut call = CallRequest::new("release", &json!({"tag": "v1"})).unwrap();
        call.context.run_id = Some(run.into());
        // As the caller knows it: the tests were held for approval. Key
        // order differs from the ledger's copy; the canonical digest
        // matches them.
        call.context.history = vec![toolvet::call::PriorCall {
            name: "run_tests".into(),
            arguments: serde_json::value::RawValue::from_string(r#"{ "suite":"all" }"#.into())
                .unwrap(),
            outcome: toolvet::call::Outcome::Escalated,
        }];
        call
    };
    let (id, ticket) = escalate(&host, &tests("t1", "run-a")).await;
    // Pending: the tests did not run, release is denied.
    let v = host.check(&release("run-a")).await;
    assert_eq!(v.rule.as_deref(), Some("sequence.only-after"), "{v:?}");
    approvals
        .approve(&id, "alice", None, Scope::Once)
        .await
        .unwrap();
    // Approved but not run yet: still denied.
    assert_eq!(host.check(&release("run-a")).await.decision, Decision::Deny);
    let v = host
        .check(&with_ticket(&tests("t1", "run-a"), &ticket))
        .await;
    assert_eq!(v.decision, Decision::Allow, "{v:?}");
    // Approved and ran: the ledger says so, release is allowed.
    let v = host.check(&release("run-a")).await;
    assert_eq!(v.decision, Decision::Allow, "{v:?}");

    // Rejected tests did not run: release stays denied in that run.
    let (id, _) = escalate(&host, &tests("t2", "run-b")).await;
    approvals.reject(&id, "bob", None).await.unwrap();
    assert_eq!(host.check(&release("run-b")).await.decision, Decision::Deny);
    // And another run's approval does not count.
    assert_eq!(host.check(&release("run-c")).await.decision, Decision::Deny);
}

/// Review s11 K8: where the ledger's writer may be the agent (a same-user
/// front end), a row it set to `consumed` made a held `run_tests` read as
/// run in the history, so `release` (only after the tests) was allowed
/// with no person. Only a decision that counts changes the history.
#[tokio::test]
async fn a_ledger_row_set_by_hand_does_not_change_the_history_the_checks_read() {
    let dir = tempfile::tempdir().unwrap();
    let host = host_in(dir.path()).await;
    let approvals = host.approvals().unwrap();
    approvals.guard_same_user();
    let mut tests = CallRequest::new("run_tests", &json!({"suite": "all"})).unwrap();
    tests.call.id = "t1".into();
    tests.context.run_id = Some("run-k8".into());
    let mut release = CallRequest::new("release", &json!({"tag": "v1"})).unwrap();
    release.context.run_id = Some("run-k8".into());
    release.context.history = vec![toolvet::call::PriorCall {
        name: "run_tests".into(),
        arguments: serde_json::value::RawValue::from_string(r#"{"suite":"all"}"#.into()).unwrap(),
        outcome: toolvet::call::Outcome::Escalated,
    }];
    let (id, _) = escalate(&host, &tests).await;
    let v = host.check(&release).await;
    assert_eq!(v.rule.as_deref(), Some("sequence.only-after"), "{v:?}");
    let db = rusqlite::Connection::open(dir.path().join("approvals.db")).unwrap();
    db.execute(
        "UPDATE approval_requests SET status = 'consumed', decision = 'approve', scope = 'once', \
         reviewer = 'x', decided_at_ms = 1, consumed_at_ms = 2 WHERE id = ?1",
        [&id],
    )
    .unwrap();
    let v = host.check(&release).await;
    assert_eq!(v.rule.as_deref(), Some("sequence.only-after"), "{v:?}");
}

#[tokio::test]
async fn approval_events_are_hash_chained_in_the_decision_log() {
    let dir = tempfile::tempdir().unwrap();
    let host = host_in(dir.path()).await;
    let call = deploy("c1", "run-1", "prod");
    let (id, ticket) = escalate(&host, &call).await;
    host.approvals()
        .unwrap()
        .approve(&id, "alice", Some("ok"), Scope::Once)
        .await
        .unwrap();
    host.check(&with_ticket(&call, &ticket)).await;
    host.flush_decision_log(std::time::Duration::from_secs(10))
        .await
        .unwrap();
    let text = std::fs::read_to_string(dir.path().join("decisions.jsonl")).unwrap();
    assert_eq!(toolvet::audit::verify_chain(&text), Ok(5), "{text}");
    let events: Vec<String> = text
        .lines()
        .map(|l| {
            let record: serde_json::Value = serde_json::from_str(l).unwrap();
            record["event"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(
        events,
        [
            "approval.requested",
            "verdict",
            "approval.decided",
            "approval.consumed",
            "verdict"
        ]
    );
    assert!(text.contains(&id) && text.contains("\"reviewer\":\"alice\""));
    assert!(!text.contains(&ticket), "tickets are never logged");
    assert!(!text.contains("1.4.2"), "arguments are never logged");
    let key = std::fs::read_to_string(dir.path().join("approvals.key")).unwrap();
    assert!(!text.contains(key.trim()), "the key is never logged");
}

/// A ledger that fails every operation, for the fail-closed paths.
#[derive(Debug)]
struct Broken;

#[async_trait::async_trait]
impl toolvet::approval::Ledger for Broken {
    async fn open(
        &self,
        _: ApprovalRequest,
        _: toolvet::approval::UnixMillis,
        _: &toolvet::approval::PendingLimits,
    ) -> Result<toolvet::approval::Opened, toolvet::approval::LedgerError> {
        Err(toolvet::approval::LedgerError::Unavailable(
            "disk full".into(),
        ))
    }
    async fn get(
        &self,
        _: &str,
    ) -> Result<Option<ApprovalRequest>, toolvet::approval::LedgerError> {
        Err(toolvet::approval::LedgerError::Unavailable(
            "disk full".into(),
        ))
    }
    async fn decide(
        &self,
        _: &str,
        _: &toolvet::approval::Review,
        _: toolvet::approval::UnixMillis,
    ) -> Result<toolvet::approval::Decided, toolvet::approval::LedgerError> {
        Err(toolvet::approval::LedgerError::Unavailable(
            "disk full".into(),
        ))
    }
    async fn consume(
        &self,
        _: &str,
        _: toolvet::approval::UnixMillis,
    ) -> Result<bool, toolvet::approval::LedgerError> {
        Err(toolvet::approval::LedgerError::Unavailable(
            "disk full".into(),
        ))
    }
    async fn list(
        &self,
        _: &ListQuery,
        _: toolvet::approval::UnixMillis,
    ) -> Result<Vec<ApprovalRequest>, toolvet::approval::LedgerError> {
        Err(toolvet::approval::LedgerError::Unavailable(
            "disk full".into(),
        ))
    }
    async fn run_grant(
        &self,
        _: &str,
        _: Option<&str>,
        _: Option<&str>,
        _: &str,
        _: &str,
    ) -> Result<Option<ApprovalRequest>, toolvet::approval::LedgerError> {
        Err(toolvet::approval::LedgerError::Unavailable(
            "disk full".into(),
        ))
    }
    async fn latest(
        &self,
        _: &str,
        _: Option<&str>,
        _: Option<&str>,
        _: &str,
        _: &str,
    ) -> Result<Option<ApprovalRequest>, toolvet::approval::LedgerError> {
        Err(toolvet::approval::LedgerError::Unavailable(
            "disk full".into(),
        ))
    }
    async fn ping(&self) -> Result<(), toolvet::approval::LedgerError> {
        Err(toolvet::approval::LedgerError::Unavailable(
            "disk full".into(),
        ))
    }
    fn default_realm(&self) -> String {
        "broken".into()
    }
}

#[derive(Debug)]
struct BrokenProvider;

#[async_trait::async_trait]
impl toolvet::approval::LedgerProvider for BrokenProvider {
    async fn open(
        &self,
        _: &LedgerLocation,
    ) -> Result<Option<Arc<dyn toolvet::approval::Ledger>>, toolvet::approval::LedgerError> {
        Ok(Some(Arc::new(Broken)))
    }
}

#[tokio::test]
async fn a_failing_ledger_fails_closed() {
    let dir = tempfile::tempdir().unwrap();
    let policy = write_policy(
        dir.path(),
        &policy_text(dir.path(), SQLITE, &[], &["deploy*"]),
    );
    let host = Host::load_with(
        policy,
        toolvet::LoadOptions {
            ledger_provider: Some(Arc::new(BrokenProvider)),
            ..toolvet::LoadOptions::default()
        },
    )
    .await
    .unwrap();
    let call = deploy("c1", "run-1", "prod");
    refused(&host.check(&call).await, rules::LEDGER);
    // A call that needs no approval is unaffected.
    let mut other = CallRequest::new("read_file", &json!({"path": "README.md"})).unwrap();
    other.context.run_id = Some("run-1".into());
    assert_eq!(host.check(&other).await.decision, Decision::Allow);
    assert!(host.approvals().unwrap().ping().await.is_err());
}

#[tokio::test]
async fn a_corrupt_ledger_file_or_bad_key_is_a_load_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("approvals.db"),
        b"this is not an SQLite database, not at all",
    )
    .unwrap();
    let policy = write_policy(
        dir.path(),
        &policy_text(dir.path(), SQLITE, &[], &["deploy*"]),
    );
    let e = Host::load(policy).await.unwrap_err().to_string();
    assert!(
        e.contains("approvals.db") && e.contains("[approvals]"),
        "{e}"
    );

    let dir = tempfile::tempdir().unwrap();
    let missing = "[approvals]\nledger = \"memory\"\nkey_env = \"TOOLVET_TEST_UNSET_KEY\"";
    let policy = write_policy(
        dir.path(),
        &policy_text(dir.path(), missing, &[], &["deploy*"]),
    );
    let e = Host::load(policy).await.unwrap_err().to_string();
    assert!(e.contains("TOOLVET_TEST_UNSET_KEY"), "{e}");

    let dir = tempfile::tempdir().unwrap();
    let text = policy_text(
        dir.path(),
        "[approvals]\nledger = \"postgres://u:secret@db/x\"\nkey_file = \"k\"",
        &[],
        &[],
    );
    let e = Host::load(write_policy(dir.path(), &text))
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("toolvet serve") && !e.contains("secret"), "{e}");
}

#[tokio::test]
async fn a_call_without_call_id_resumes_with_the_approved_ticket_once() {
    let dir = tempfile::tempdir().unwrap();
    let host = host_in(dir.path()).await;
    // Front ends without call ids (MCP, hooks) vet with an empty id: the
    // run's live request for the same tool and arguments is the call's.
    let call = deploy("", "run-1", "prod");
    let v = host.check(&call).await;
    assert_eq!(v.decision, Decision::Escalate);
    assert_eq!(v.approved_ticket(), None, "pending: nothing to resume with");
    let id = v.approval.unwrap().id;
    let approvals = host.approvals().unwrap();
    approvals
        .approve(&id, "alice", None, Scope::Once)
        .await
        .unwrap();

    let v = host.check(&call).await;
    assert_eq!(v.approval.as_ref().unwrap().id, id);
    let ticket = v
        .approved_ticket()
        .expect("approved: a ticket to resume with");
    let resumed = host.check(&with_ticket(&call, ticket)).await;
    assert_eq!(resumed.decision, Decision::Allow, "{resumed:?}");
    assert_eq!(resumed.approved_ticket(), None);
    // Used: the same call asks anew.
    let v = host.check(&call).await;
    assert_eq!(v.decision, Decision::Escalate);
    assert_ne!(v.approval.unwrap().id, id);
}

#[tokio::test]
async fn preview_opens_no_request_ignores_tickets_and_logs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let host = Host::load(write_policy(
        dir.path(),
        &policy_text(dir.path(), SQLITE, &["drop_database"], &["deploy*"]),
    ))
    .await
    .unwrap();
    let call = deploy("c1", "run-1", "prod");
    let v = host.preview(&call).await;
    assert_eq!(v.decision, Decision::Escalate);
    assert!(v.approval.is_none(), "{v:?}");
    let v = host.preview(&with_ticket(&call, "tv1.forged.ticket")).await;
    assert_eq!(
        v.decision,
        Decision::Escalate,
        "the ticket is not looked at"
    );
    let drop = CallRequest::new("drop_database", &json!({})).unwrap();
    assert_eq!(host.preview(&drop).await.decision, Decision::Deny);
    // The sequence rule: release is denied until run_tests ran.
    let mut release = CallRequest::new("release", &json!({})).unwrap();
    assert_eq!(host.preview(&release).await.decision, Decision::Deny);
    release.context.history.push(toolvet::call::PriorCall {
        name: "run_tests".into(),
        arguments: serde_json::value::RawValue::from_string("{}".into()).unwrap(),
        outcome: toolvet::call::Outcome::Allowed,
    });
    assert_eq!(host.preview(&release).await.decision, Decision::Allow);

    let approvals = host.approvals().unwrap();
    let all = ListQuery {
        status: StatusFilter::All,
        ..ListQuery::default()
    };
    assert!(approvals.list(&all).await.unwrap().is_empty());
    host.flush_decision_log(std::time::Duration::from_secs(5))
        .await
        .unwrap();
    let log = std::fs::read_to_string(dir.path().join("decisions.jsonl")).unwrap_or_default();
    assert!(log.trim().is_empty(), "preview wrote records: {log}");
}

/// No change to a valid, approved ticket is accepted: any byte replaced,
/// inserted or removed, any claim edited and re-encoded. Each mutation is
/// resumed against the real host; the genuine ticket still works after all
/// of them (none consumed it).
#[test]
fn no_mutation_of_a_valid_ticket_is_accepted() {
    use base64::Engine as _;
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};
    let dir = tempfile::tempdir().unwrap();
    let host = toolvet::block_on({
        let policy = write_policy(
            dir.path(),
            &policy_text(dir.path(), SQLITE, &[], &["deploy*"]),
        );
        async move { Host::load(policy).await.unwrap() }
    });
    let call = deploy("c1", "run-1", "prod");
    let approval = host.check_blocking(&call).approval.unwrap();
    toolvet::block_on({
        let (approvals, id) = (host.approvals().unwrap(), approval.id.clone());
        async move {
            approvals
                .approve(&id, "alice", None, Scope::Once)
                .await
                .unwrap()
        }
    });
    let ticket = approval.ticket.unwrap();
    let refused_every_time = |mutated: String| -> Result<(), TestCaseError> {
        prop_assume!(mutated != ticket);
        let v = host.check_blocking(&with_ticket(&call, &mutated));
        prop_assert_eq!(
            v.decision,
            Decision::Deny,
            "{} was accepted: {:?}",
            mutated,
            v
        );
        prop_assert!(
            v.rule.as_deref().unwrap_or("").starts_with("approval."),
            "{:?}",
            v
        );
        Ok(())
    };
    let mut runner = TestRunner::new(Config {
        cases: 300,
        failure_persistence: None,
        ..Config::default()
    });
    let bytes = ticket.len();
    runner
        .run(&(0..bytes, any::<u8>(), 0..3u8), |(at, byte, how)| {
            let mut b = ticket.as_bytes().to_vec();
            match how {
                0 => b[at] = byte,
                1 => b.insert(at, byte),
                _ => {
                    b.remove(at);
                }
            }
            refused_every_time(String::from_utf8_lossy(&b).into_owned())
        })
        .unwrap();
    // Edited claims, correctly re-encoded, with the original signature.
    let (head, tag) = ticket.rsplit_once('.').unwrap();
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let claims: serde_json::Value =
        serde_json::from_slice(&b64.decode(head.strip_prefix("tv1.").unwrap()).unwrap()).unwrap();
    for (field, value) in [
        ("id", json!("apr_00000000000000000000000000000000")),
        ("tool", json!("deploy_all")),
        ("args", json!("0".repeat(64))),
        ("call", json!("c2")),
        ("run", json!("run-2")),
        ("run", json!(null)),
        ("exp", json!(u64::MAX)),
        ("kid", json!("0000000000000000")),
        ("realm", json!("elsewhere")),
        ("prn", json!("mallory")),
        ("agt", json!("other-agent")),
        ("v", json!(1)),
        ("v", json!(3)),
    ] {
        let mut edited = claims.clone();
        edited[field] = value;
        let forged = format!(
            "tv1.{}.{tag}",
            b64.encode(serde_json::to_vec(&edited).unwrap())
        );
        let v = host.check_blocking(&with_ticket(&call, &forged));
        assert_eq!(v.decision, Decision::Deny, "{field}: {v:?}");
    }
    assert_eq!(
        host.check_blocking(&with_ticket(&call, &ticket)).decision,
        Decision::Allow
    );
}

/// `deploy` as `principal` through `agent` (either may be absent).
fn deploy_as(
    call_id: &str,
    run: &str,
    principal: Option<&str>,
    agent: Option<&str>,
) -> CallRequest {
    let mut call = deploy(call_id, run, "prod");
    call.context.principal = principal.map(str::to_string);
    call.context.agent = agent.map(str::to_string);
    call
}

/// Another principal or agent re-asking the same run id, call id and
/// arguments gets a request of its own, cannot use the first asker's
/// ticket, and does not benefit from its run-scope grant; the first asker's
/// approval stays unspent. For the SQLite ledger and the in-memory one.
#[tokio::test]
async fn approvals_serve_only_the_principal_and_agent_that_asked() {
    for ledger in ["approvals.db", "memory"] {
        let dir = tempfile::tempdir().unwrap();
        let approvals_table =
            format!("[approvals]\nledger = \"{ledger}\"\nkey_file = \"approvals.key\"");
        let host = Host::load(write_policy(
            dir.path(),
            &policy_text(dir.path(), &approvals_table, &[], &["deploy*"]),
        ))
        .await
        .unwrap();
        let approvals = host.approvals().unwrap();
        let alice = deploy_as("c1", "run-1", Some("alice"), Some("coder"));
        let (id, ticket) = escalate(&host, &alice).await;
        approvals
            .approve(&id, "reviewer", None, Scope::Once)
            .await
            .unwrap();

        // Every other asker: its own pending request, never alice's ticket.
        let others = [
            deploy_as("c1", "run-1", Some("mallory"), Some("coder")),
            deploy_as("c1", "run-1", Some("alice"), Some("other-agent")),
            deploy_as("c1", "run-1", None, Some("coder")),
            deploy_as("c1", "run-1", Some("alice"), None),
            deploy_as("c1", "run-1", None, None),
        ];
        let mut seen = vec![id.clone()];
        for other in &others {
            let v = host.check(other).await;
            assert_eq!(v.decision, Decision::Escalate, "{ledger}: {v:?}");
            let own = v.approval.unwrap();
            assert_eq!(own.status, ApprovalStatus::Pending, "{ledger}");
            assert!(!seen.contains(&own.id), "{ledger}: request shared: {own:?}");
            assert_ne!(own.ticket.as_deref(), Some(ticket.as_str()));
            seen.push(own.id);
            // Alice's ticket, brought by another asker: refused, unspent.
            refused(
                &host.check(&with_ticket(other, &ticket)).await,
                rules::PRINCIPAL_MISMATCH,
            );
        }
        assert_eq!(
            approvals.get(&id).await.unwrap().status,
            ApprovalStatus::Approved,
            "{ledger}: another asker spent alice's approval"
        );
        // Alice resumes: allowed once.
        let v = host.check(&with_ticket(&alice, &ticket)).await;
        assert_eq!(v.decision, Decision::Allow, "{ledger}: {v:?}");
        assert_eq!(v.rule.as_deref(), Some(rules::APPROVED));

        // A run-scope grant helps only its own principal and agent.
        let first = deploy_as("c2", "run-2", Some("alice"), Some("coder"));
        let (grant, grant_ticket) = escalate(&host, &first).await;
        approvals
            .approve(&grant, "reviewer", None, Scope::Run)
            .await
            .unwrap();
        let v = host.check(&with_ticket(&first, &grant_ticket)).await;
        assert_eq!(v.decision, Decision::Allow, "{ledger}: {v:?}");
        let v = host
            .check(&deploy_as("c3", "run-2", Some("alice"), Some("coder")))
            .await;
        assert_eq!(v.rule.as_deref(), Some(rules::RUN_SCOPE), "{ledger}: {v:?}");
        for (principal, agent) in [
            (Some("mallory"), Some("coder")),
            (Some("alice"), Some("other-agent")),
            (None, None),
        ] {
            let v = host
                .check(&deploy_as("c4", "run-2", principal, agent))
                .await;
            assert_eq!(v.decision, Decision::Escalate, "{ledger}: {v:?}");
            assert_ne!(v.approval.unwrap().id, grant, "{ledger}");
        }
    }
}

/// The ticket's realm is a digest of the ledger's location, never its
/// path, and differs between ledgers.
#[tokio::test]
async fn tickets_name_no_ledger_path() {
    use base64::Engine as _;
    let dir = tempfile::tempdir().unwrap();
    let host = host_in(dir.path()).await;
    let (_, ticket) = escalate(&host, &deploy("c1", "run-1", "prod")).await;
    let claims = ticket.split('.').nth(1).unwrap();
    let claims: serde_json::Value = serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(claims)
            .unwrap(),
    )
    .unwrap();
    let realm = claims["realm"].as_str().unwrap();
    assert!(
        realm.starts_with("ledger:")
            && realm.len() == "ledger:".len() + 32
            && realm["ledger:".len()..]
                .bytes()
                .all(|b| b.is_ascii_hexdigit()),
        "{realm}"
    );
    assert_eq!(realm, host.approvals().unwrap().realm());
    let decoded = String::from_utf8_lossy(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(ticket.split('.').nth(1).unwrap())
            .unwrap(),
    )
    .into_owned();
    let path = dir.path().canonicalize().unwrap();
    assert!(
        !decoded.contains(path.to_str().unwrap()) && !decoded.contains("approvals.db"),
        "{decoded}"
    );
    let other = tempfile::tempdir().unwrap();
    let other_host = host_in(other.path()).await;
    assert_ne!(other_host.approvals().unwrap().realm(), realm);
}

/// An approval binds the exact numbers of its arguments: integers that
/// differ past 2^53 are other arguments, and integers past 64 bits or
/// duplicate keys never make a call at all.
#[tokio::test]
async fn a_ticket_binds_the_exact_numbers_and_keys_of_its_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let host = host_in(dir.path()).await;
    let call = |account: &str| {
        CallRequest::from_json(&format!(
            r#"{{"call":{{"id":"c1","name":"deploy","arguments":{{"account":{account}}}}},
                "context":{{"run_id":"run-1"}}}}"#
        ))
    };
    let approved = call("18446744073709551601").unwrap();
    let (id, ticket) = escalate(&host, &approved).await;
    host.approvals()
        .unwrap()
        .approve(&id, "alice", None, Scope::Once)
        .await
        .unwrap();
    // One apart in the last digit (both round to the same f64).
    let next = call("18446744073709551602").unwrap();
    assert_ne!(approved.arguments_sha256(), next.arguments_sha256());
    refused(
        &host.check(&with_ticket(&next, &ticket)).await,
        rules::ARGUMENTS_CHANGED,
    );
    // Past 64 bits: refused before any ledger or check sees it.
    for account in ["18446744073709551617", "100000000000000000000001"] {
        let e = call(account).unwrap_err().to_string();
        assert!(e.contains("`call.arguments.account`: the integer"), "{e}");
    }
    let e = CallRequest::from_json(
        r#"{"call":{"name":"deploy","arguments":{"account":1,"account":2}}}"#,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("`call.arguments` has the key `account` twice"),
        "{e}"
    );
    // The approved call itself still resumes.
    let v = host.check(&with_ticket(&approved, &ticket)).await;
    assert_eq!(v.decision, Decision::Allow, "{v:?}");
    // The reviewer's copy of the arguments is the text as sent.
    let request = host.approvals().unwrap().get(&id).await.unwrap();
    assert_eq!(
        request.arguments.get(),
        r#"{"account":18446744073709551601}"#
    );
}

/// Review s12 leftover: under a policy without reviewer keys, a front end
/// that trusts its ledger (`toolvet serve`, whose Postgres the agent may
/// reach with the application's role) counted any row that read as
/// approved. An approval counts only with the seal toolvet stores with
/// the ledger's own key when it records the decision.
#[tokio::test]
async fn an_approval_counts_only_with_the_seal_toolvet_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let host = host_in(dir.path()).await;
    let approvals = host.approvals().unwrap();
    let db = rusqlite::Connection::open(dir.path().join("approvals.db")).unwrap();
    let flip = |id: &str, scope: &str| {
        db.execute(
            "UPDATE approval_requests SET status = 'approved', decision = 'approve', \
             reviewer = 'mallory', scope = ?2, decided_at_ms = created_at_ms WHERE id = ?1",
            rusqlite::params![id, scope],
        )
        .unwrap()
    };
    // A row set to approved by SQL: no seal, no allow.
    let call = deploy("c1", "run-1", "prod");
    let (id, ticket) = escalate(&host, &call).await;
    assert_eq!(flip(&id, "once"), 1);
    let v = host.check(&with_ticket(&call, &ticket)).await;
    refused(&v, "approval.unsigned-decision");
    // Nor a seal copied from another request toolvet approved.
    let other = deploy("c2", "run-1", "staging");
    let (other_id, other_ticket) = escalate(&host, &other).await;
    approvals
        .approve(&other_id, "alice", None, Scope::Once)
        .await
        .unwrap();
    db.execute(
        "INSERT OR REPLACE INTO approval_signed_decisions (id, token) \
         SELECT ?1, token FROM approval_signed_decisions WHERE id = ?2",
        rusqlite::params![id, other_id],
    )
    .unwrap();
    let v = host.check(&with_ticket(&call, &ticket)).await;
    refused(&v, "approval.unsigned-decision");
    // A second decision on it is refused and leaves its seal in place.
    let again = approvals
        .approve(&other_id, "bob", None, Scope::Run)
        .await
        .unwrap_err();
    assert!(
        matches!(
            again,
            toolvet::approval::ApprovalError::AlreadyDecided { .. }
        ),
        "{again:?}"
    );
    // The approval toolvet recorded counts; widened to `run` by SQL, not.
    let v = host.check(&with_ticket(&other, &other_ticket)).await;
    assert_eq!(v.decision, Decision::Allow, "{v:?}");
    let third = deploy("c3", "run-1", "dev");
    let (third_id, third_ticket) = escalate(&host, &third).await;
    approvals
        .approve(&third_id, "alice", None, Scope::Once)
        .await
        .unwrap();
    assert_eq!(flip(&third_id, "run"), 1);
    let v = host.check(&with_ticket(&third, &third_ticket)).await;
    refused(&v, "approval.unsigned-decision");
    // A seal whose tag was edited does not hold.
    db.execute(
        "UPDATE approval_signed_decisions SET token = substr(token, 1, length(token) - 3) || \
         CASE substr(token, length(token) - 2, 1) WHEN 'A' THEN 'B' ELSE 'A' END || \
         substr(token, length(token) - 1) WHERE id = ?1",
        [&third_id],
    )
    .unwrap();
    assert_eq!(flip(&third_id, "once"), 1);
    let v = host.check(&with_ticket(&third, &third_ticket)).await;
    refused(&v, "approval.unsigned-decision");
}

/// Review s15 N3: the seal (and a reviewer's signature) did not cover the
/// principal and agent a request was asked for, so a ledger writer without
/// the key moved an approved row to another agent, whose identical call
/// then ran on that approval.
#[tokio::test]
async fn a_sealed_approval_serves_only_its_principal_and_agent() {
    let dir = tempfile::tempdir().unwrap();
    let host = host_in(dir.path()).await;
    let approvals = host.approvals().unwrap();
    let as_who = |principal: &str, agent: &str| {
        let mut call = deploy("c1", "run-1", "prod");
        call.context.principal = Some(principal.into());
        call.context.agent = Some(agent.into());
        call
    };
    let alice = as_who("alice@acme.com", "alice-bot");
    let (id, _) = escalate(&host, &alice).await;
    approvals
        .approve(&id, "bob", None, Scope::Once)
        .await
        .unwrap();
    let db = rusqlite::Connection::open(dir.path().join("approvals.db")).unwrap();
    let moved = db
        .execute(
            "UPDATE approval_requests SET agent = 'mallory-bot', principal = 'mallory@acme.com' \
             WHERE id = ?1",
            [&id],
        )
        .unwrap();
    assert_eq!(moved, 1);
    let mallory = as_who("mallory@acme.com", "mallory-bot");
    let v = host.check(&mallory).await;
    let ticket = v
        .approval
        .as_ref()
        .and_then(|a| a.ticket.clone())
        .expect("the moved request is handed to mallory");
    let v = host.check(&with_ticket(&mallory, &ticket)).await;
    refused(&v, "approval.unsigned-decision");
}
