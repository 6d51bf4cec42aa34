//! The webhook (against a receiver on loopback) and AuthZEN.

use crate::harness::*;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A receiver that answers 500 to the first `failures` deliveries, then
/// 204, and keeps every body.
async fn receiver(failures: usize) -> (String, Arc<Mutex<Vec<Value>>>) {
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let kept = bodies.clone();
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |body: axum::Json<Value>| {
            let kept = kept.clone();
            async move {
                let mut all = kept.lock().unwrap();
                all.push(body.0);
                if all.len() <= failures {
                    axum::http::StatusCode::INTERNAL_SERVER_ERROR
                } else {
                    axum::http::StatusCode::NO_CONTENT
                }
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, bodies)
}

#[tokio::test]
async fn new_requests_go_to_the_webhook_redacted_and_retried() {
    let (url, bodies) = receiver(2).await;
    let fixture = Fixture::with(PolicyText {
        serve: format!("watch = false\nwebhook_url = \"{url}\"\nwebhook_retries = 3"),
        ..PolicyText::default()
    });
    let server = fixture.start().await;
    let secret = "hunter2-the-database-password";
    let held = server
        .check(&call(
            "deploy",
            json!({"env": "prod", "password": secret, "n": 3}),
            "c1",
            "r1",
        ))
        .await;
    let id = held["approval"]["id"].as_str().unwrap().to_string();
    assert!(
        eventually(Duration::from_secs(15), || async {
            bodies.lock().unwrap().len() == 3
        })
        .await,
        "two failures, then a delivery: {:?}",
        bodies.lock().unwrap()
    );
    let delivered = bodies.lock().unwrap()[2].clone();
    assert_eq!(delivered["event"], "approval.requested");
    assert_eq!(delivered["id"], id.as_str());
    assert_eq!(delivered["tool"], "deploy");
    assert_eq!(delivered["agent"], "ci-bot");
    assert_eq!(
        delivered["escalations"][0]["rule"],
        "policy.requires-approval"
    );
    assert_eq!(
        delivered["arguments"],
        json!({"env": "[redacted]", "password": "[redacted]", "n": "[redacted]"})
    );
    assert!(!delivered.to_string().contains(secret));
    // Asking again about the same call is no new request: no new delivery.
    server
        .check(&call(
            "deploy",
            json!({"env": "prod", "password": secret, "n": 3}),
            "c1",
            "r1",
        ))
        .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(bodies.lock().unwrap().len(), 3);
    let (_, metrics) = server.get_text("/metrics", Some(METRICS)).await;
    assert!(
        metrics.contains("toolvet_webhook_deliveries_total{result=\"delivered\"} 1"),
        "{metrics}"
    );
    server.stop().await;
}

#[tokio::test]
async fn retries_are_bounded() {
    let (url, bodies) = receiver(usize::MAX).await;
    let fixture = Fixture::with(PolicyText {
        serve: format!("watch = false\nwebhook_url = \"{url}\"\nwebhook_retries = 1"),
        ..PolicyText::default()
    });
    let server = fixture.start().await;
    server.check(&call("deploy", json!({}), "c1", "r1")).await;
    assert!(
        eventually(Duration::from_secs(10), || async {
            server
                .get_text("/metrics", Some(METRICS))
                .await
                .1
                .contains("toolvet_webhook_deliveries_total{result=\"failed\"} 1")
        })
        .await
    );
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(bodies.lock().unwrap().len(), 2, "one attempt and one retry");
    server.stop().await;
}

fn evaluation(tool: &str, arguments: Value, ticket: Option<&str>) -> Value {
    let mut request = json!({
        "subject": {"type": "agent", "id": "ci-bot", "properties": {"run_id": "r1", "principal": "bob"}},
        "action": {"name": tool},
        "resource": {"type": "tool", "id": tool, "properties": {"arguments": arguments, "call_id": "c1"}},
        "context": {}
    });
    if let Some(t) = ticket {
        request["context"]["approval_ticket"] = json!(t);
    }
    request
}

#[tokio::test]
async fn authzen_evaluation_with_escalate_in_its_context() {
    let fixture = Fixture::new();
    let server = fixture.start().await;
    let path = "/access/v1/evaluation";
    let (status, allowed) = server
        .post(
            path,
            Some(AGENT),
            &evaluation("read_file", json!({"path": "a"}), None),
        )
        .await;
    assert_eq!(status, 200, "{allowed}");
    assert_eq!(allowed["decision"], true);
    assert_eq!(allowed["context"]["toolvet"]["decision"], "allow");

    let (_, denied) = server
        .post(
            path,
            Some(AGENT),
            &evaluation("drop_database", json!({}), None),
        )
        .await;
    assert_eq!(denied["decision"], false);
    assert_eq!(denied["context"]["toolvet"]["rule"], "policy.denied-tool");

    let deploy = evaluation("deploy", json!({"env": "prod"}), None);
    let (_, held) = server.post(path, Some(AGENT), &deploy).await;
    assert_eq!(held["decision"], false, "{held}");
    let toolvet = &held["context"]["toolvet"];
    assert_eq!(toolvet["decision"], "escalate");
    let id = toolvet["approval"]["id"].as_str().unwrap();
    let ticket = toolvet["approval"]["ticket"].as_str().unwrap();
    server.decide(id, "approve", None).await;
    let (_, resumed) = server
        .post(
            path,
            Some(AGENT),
            &evaluation("deploy", json!({"env": "prod"}), Some(ticket)),
        )
        .await;
    assert_eq!(resumed["decision"], true, "{resumed}");
    assert_eq!(resumed["context"]["toolvet"]["rule"], "approval.approved");

    let (status, bad) = server
        .post(
            path,
            Some(AGENT),
            &json!({"subject": {"id": "x"}, "action": {}}),
        )
        .await;
    assert_eq!(status, 400, "{bad}");
    assert!(
        bad["error"]["message"]
            .as_str()
            .unwrap()
            .contains("action.name")
    );
    let (status, _) = server.post(path, Some(REVIEWER), &deploy).await;
    assert_eq!(status, 403);
    server.stop().await;
}
