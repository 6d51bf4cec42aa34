//! Two replicas sharing a real Postgres: a throwaway server started with
//! `initdb` and `pg_ctl` in a temporary directory, on a loopback port (as
//! the `postgres` user when the tests run as root).

use crate::api::{next_event, sse_events};
use crate::harness::*;
use crate::pg::Postgres;
use serde_json::json;
use std::time::Duration;

/// Two replicas of one policy on one Postgres.
async fn replicas(pg: &Postgres) -> (Fixture, Running, Running) {
    let fixture = Fixture::with(PolicyText {
        ledger: pg.url(),
        ..PolicyText::default()
    });
    let a = fixture.start().await;
    let b = fixture.start().await;
    (fixture, a, b)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_share_one_postgres_ledger() {
    let pg = Postgres::start();
    let (_fixture, a, b) = replicas(&pg).await;

    // B's event stream sees what A does.
    let response = b
        .http
        .get(b.url("/v1/approvals/events"))
        .bearer_auth(REVIEWER)
        .send()
        .await
        .unwrap();
    let mut events = sse_events(response).await;
    assert_eq!(next_event(&mut events).await.0, "ready");

    // Escalate on A, approve on B, resume on A: allowed exactly once.
    let deploy = call("deploy", json!({"env": "prod"}), "c1", "r1");
    let held = a.check(&deploy).await;
    assert_eq!(held["decision"], "escalate", "{held}");
    let id = held["approval"]["id"].as_str().unwrap().to_string();
    let (name, data) = next_event(&mut events).await;
    assert_eq!(
        (name.as_str(), data["request"]["id"].as_str()),
        ("requested", Some(id.as_str()))
    );
    let (_, pending) = b.get("/v1/approvals?status=pending", Some(REVIEWER)).await;
    assert_eq!(pending["requests"][0]["id"], id.as_str());
    let (status, decided) = b.decide(&id, "approve", Some("ok")).await;
    assert_eq!(status, 200, "{decided}");
    assert_eq!(next_event(&mut events).await.0, "decided");
    let allowed = a.check(&resumed(&deploy, &held)).await;
    assert_eq!(allowed["decision"], "allow", "{allowed}");
    assert_eq!(allowed["reason"], "approved by alice: ok");
    for replica in [&a, &b] {
        let again = replica.check(&resumed(&deploy, &held)).await;
        assert_eq!(again["rule"], "approval.replayed", "{again}");
    }
    let (_, shown) = a.get(&format!("/v1/approvals/{id}"), Some(REVIEWER)).await;
    assert_eq!(shown["status"], "consumed");

    // The same call asked on both replicas at once is one request.
    let twice = call("deploy", json!({"env": "staging"}), "c2", "r1");
    let (x, y) = tokio::join!(a.check(&twice), b.check(&twice));
    assert_eq!(x["approval"]["id"], y["approval"]["id"]);

    // A decision on both at once: exactly one stands.
    let id = x["approval"]["id"].as_str().unwrap();
    let (p, q) = tokio::join!(a.decide(id, "approve", None), b.decide(id, "reject", None));
    let mut statuses = [p.0, q.0];
    statuses.sort();
    assert_eq!(statuses, [200, 409], "{p:?} {q:?}");
    a.stop().await;
    b.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_ticket_on_both_replicas_at_once_is_allowed_once() {
    let pg = Postgres::start();
    let (_fixture, a, b) = replicas(&pg).await;
    for i in 0..10 {
        let deploy = call("deploy", json!({"n": i}), &format!("c{i}"), "r1");
        let held = a.check(&deploy).await;
        let id = held["approval"]["id"].as_str().unwrap();
        assert_eq!(b.decide(id, "approve", None).await.0, 200);
        let ticket = resumed(&deploy, &held);
        let (x, y) = tokio::join!(a.check(&ticket), b.check(&ticket));
        let mut decisions = [
            x["decision"].as_str().unwrap(),
            y["decision"].as_str().unwrap(),
        ];
        decisions.sort();
        assert_eq!(decisions, ["allow", "deny"], "round {i}: {x} {y}");
        let denied = if x["decision"] == "deny" { &x } else { &y };
        assert_eq!(denied["rule"], "approval.replayed");
    }
    a.stop().await;
    b.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_down_fails_closed_and_recovers() {
    let pg = Postgres::start();
    let (_fixture, a, b) = replicas(&pg).await;
    let deploy = call("deploy", json!({"env": "prod"}), "c1", "r1");
    let held = a.check(&deploy).await;
    let id = held["approval"]["id"].as_str().unwrap().to_string();
    b.decide(&id, "approve", None).await;

    pg.stop_server();
    // Calls that need the ledger are denied with a clear reason.
    let down = a
        .check(&call("deploy", json!({"env": "dev"}), "c2", "r1"))
        .await;
    assert_eq!(down["decision"], "deny", "{down}");
    assert_eq!(down["rule"], "approval.ledger-unavailable");
    assert!(
        down["reason"]
            .as_str()
            .unwrap()
            .contains("cannot be reached")
    );
    let resume = b.check(&resumed(&deploy, &held)).await;
    assert_eq!(
        resume["decision"], "deny",
        "a resume cannot be settled: {resume}"
    );
    assert_eq!(resume["rule"], "approval.ledger-unavailable");
    // A call of a run needs the ledger too (the run's labels are there):
    // denied, and a result of a run is withheld.
    let read = call("read_file", json!({"path": "x"}), "c3", "r1");
    let denied = a.check(&read).await;
    assert_eq!(denied["rule"], "approval.ledger-unavailable", "{denied}");
    let mut result = read.clone();
    result["result"] = json!({"content": {"text": "fine"}});
    let (status, withheld) = b.post("/v1/check-result", Some(AGENT), &result).await;
    assert_eq!(status, 200, "{withheld}");
    assert_eq!(withheld["action"], "withhold", "{withheld}");
    assert_eq!(withheld["rule"], "approval.ledger-unavailable");
    // Calls that do not need it (no run, nothing to hold) still get their
    // verdict.
    let mut alone = read.clone();
    alone["context"].as_object_mut().unwrap().remove("run_id");
    assert_eq!(a.check(&alone).await["decision"], "allow");
    // The approvals API and /readyz say so.
    let (status, body) = b.get("/v1/approvals", Some(REVIEWER)).await;
    assert_eq!(
        (status, body["error"]["kind"].as_str()),
        (503, Some("ledger-unavailable"))
    );
    let (status, ready) = a.get("/readyz", Some(METRICS)).await;
    assert_eq!(status, 503, "{ready}");
    assert_eq!(ready["ledger"]["reachable"], false);

    pg.start_server();
    assert!(
        eventually(Duration::from_secs(20), || async {
            a.get("/readyz", Some(METRICS)).await.0 == 200
        })
        .await,
        "A is ready again"
    );
    // The approval made before the outage is still there and still works once.
    let allowed = b.check(&resumed(&deploy, &held)).await;
    assert_eq!(allowed["decision"], "allow", "{allowed}");
    let again = a
        .check(&call("deploy", json!({"env": "dev"}), "c2", "r1"))
        .await;
    assert_eq!(again["decision"], "escalate", "{again}");
    a.stop().await;
    b.stop().await;
}

/// A store made before requests were bound to their working directory
/// (schema version 1, no `cwd` column) is migrated when a replica starts:
/// it keeps its rows, gains the column, is marked version 3 (an older
/// toolvet then refuses it), and a ticket is bound to the directory it
/// was asked in (review s10 H16).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_1_store_is_migrated_and_tickets_bind_the_working_directory() {
    let pg = Postgres::start();
    {
        let (client, connection) = tokio_postgres::connect(&pg.url(), tokio_postgres::NoTls)
            .await
            .expect("connect to the test Postgres");
        tokio::spawn(connection);
        client
            .batch_execute(
                "CREATE TABLE toolvet_ledger_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                 INSERT INTO toolvet_ledger_meta VALUES ('schema_version', '1');
                 CREATE TABLE toolvet_approval_requests (seq BIGSERIAL UNIQUE, id TEXT PRIMARY \
                 KEY, status TEXT NOT NULL, tool TEXT NOT NULL, arguments_sha256 TEXT NOT NULL, \
                 arguments TEXT NOT NULL, call_id TEXT NOT NULL, run_id TEXT, agent TEXT, \
                 principal TEXT, escalations TEXT NOT NULL, created_at_ms BIGINT NOT NULL, \
                 expires_at_ms BIGINT NOT NULL, decision TEXT, reviewer TEXT, message TEXT, \
                 scope TEXT, decided_at_ms BIGINT, consumed_at_ms BIGINT);
                 INSERT INTO toolvet_approval_requests (id, status, tool, arguments_sha256, \
                 arguments, call_id, run_id, escalations, created_at_ms, expires_at_ms) VALUES \
                 ('apr_00112233445566778899aabbccddeeff', 'pending', 'deploy', 'ab', '{}', \
                 'old', 'r0', '[]', 1, 9999999999999);",
            )
            .await
            .expect("the version 1 store is made");
    }
    let (_fixture, a, b) = replicas(&pg).await;
    let (_, old) = b
        .get(
            "/v1/approvals/apr_00112233445566778899aabbccddeeff",
            Some(REVIEWER),
        )
        .await;
    assert_eq!(old["call"]["call_id"], "old", "{old}");
    assert!(old["call"].get("attributes").is_none(), "{old}");

    let mut deploy = call("deploy", json!({"env": "prod"}), "c1", "r1");
    deploy["context"]["attributes"] = json!({"cwd": "/srv/app"});
    let held = a.check(&deploy).await;
    assert_eq!(held["decision"], "escalate", "{held}");
    let id = held["approval"]["id"].as_str().unwrap().to_string();
    let (_, shown) = b.get(&format!("/v1/approvals/{id}"), Some(REVIEWER)).await;
    assert_eq!(shown["call"]["attributes"]["cwd"], "/srv/app", "{shown}");
    assert_eq!(shown["shown"]["attributes"]["cwd"], "/srv/app", "{shown}");
    let (status, decided) = b.decide(&id, "approve", None).await;
    assert_eq!(status, 200, "{decided}");
    let mut elsewhere = resumed(&deploy, &held);
    elsewhere["context"]["attributes"]["cwd"] = json!("/srv/other");
    let refused = a.check(&elsewhere).await;
    assert_eq!(refused["rule"], "approval.context-changed", "{refused}");
    let allowed = b.check(&resumed(&deploy, &held)).await;
    assert_eq!(allowed["decision"], "allow", "{allowed}");

    let (client, connection) = tokio_postgres::connect(&pg.url(), tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    let version: String = client
        .query_one(
            "SELECT value FROM toolvet_ledger_meta WHERE key = 'schema_version'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(version, "3");
    a.stop().await;
    b.stop().await;
}

/// Run labels on Postgres follow the core's rules (dedupe, order, runs
/// kept apart by principal and agent, time to live, the run over the
/// limit), and two replicas share each run's labels.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_share_run_labels_on_postgres() {
    let pg = Postgres::start();
    let ledger = toolvet_postgres::PostgresLedger::connect(&pg.url())
        .await
        .expect("the ledger connects");
    toolvet::approval::labels::assert_keeps_labels_by_the_rules(&ledger).await;
    drop(ledger);
    let fixture = crate::results::fixture_on(&pg.url());
    let a = fixture.start().await;
    let b = fixture.start().await;
    crate::results::replicas_share_the_runs_labels(&a, &b).await;
    a.stop().await;
    b.stop().await;
}
