//! The routes over real HTTP: verdicts, the approval round trip, roles,
//! bad input, pagination, events, probes.

use crate::harness::*;
use futures_util::StreamExt;
use serde_json::json;
use std::time::Duration;

#[tokio::test]
async fn verdicts_and_the_approval_round_trip() {
    let fixture = Fixture::new();
    let server = fixture.start().await;

    let allowed = server
        .check(&call("read_file", json!({"path": "README.md"}), "c0", "r1"))
        .await;
    assert_eq!(allowed["decision"], "allow", "{allowed}");
    assert_eq!(allowed["tool"], "read_file");
    assert_eq!(allowed["call_id"], "c0");

    let denied = server
        .check(&call("drop_database", json!({"name": "prod"}), "c1", "r1"))
        .await;
    assert_eq!(denied["decision"], "deny", "{denied}");
    assert_eq!(denied["rule"], "policy.denied-tool");
    assert!(denied["reason"].as_str().unwrap().contains("drop_database"));

    let deploy = call("deploy", json!({"env": "prod"}), "c2", "r1");
    let held = server.check(&deploy).await;
    assert_eq!(held["decision"], "escalate", "{held}");
    let id = held["approval"]["id"].as_str().unwrap().to_string();
    assert_eq!(held["approval"]["status"], "pending");
    assert!(
        held["approval"]["ticket"]
            .as_str()
            .unwrap()
            .starts_with("tv1.")
    );

    // Asking again gives the same request; resuming before a decision
    // still escalates.
    let again = server.check(&deploy).await;
    assert_eq!(again["approval"]["id"], id.as_str());
    let early = server.check(&resumed(&deploy, &held)).await;
    assert_eq!(early["decision"], "escalate", "{early}");

    // The agent reads its request's status; the reviewer approves.
    let (status, shown) = server
        .get(&format!("/v1/approvals/{id}"), Some(AGENT))
        .await;
    assert_eq!((status, shown["status"].as_str()), (200, Some("pending")));
    let (status, decided) = server.decide(&id, "approve", Some("ship it")).await;
    assert_eq!(status, 200, "{decided}");
    assert_eq!(decided["status"], "approved");

    let allowed = server.check(&resumed(&deploy, &held)).await;
    assert_eq!(allowed["decision"], "allow", "{allowed}");
    assert_eq!(allowed["rule"], "approval.approved");
    assert_eq!(allowed["reason"], "approved by alice: ship it");
    let replay = server.check(&resumed(&deploy, &held)).await;
    assert_eq!(replay["decision"], "deny");
    assert_eq!(replay["rule"], "approval.replayed");

    // A second decision is refused; the first stands.
    let (status, body) = server.decide(&id, "reject", None).await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"]["kind"], "already-decided");

    // A rejection reaches the model with the reviewer's message.
    let other = call("deploy", json!({"env": "staging"}), "c3", "r1");
    let held = server.check(&other).await;
    let id = held["approval"]["id"].as_str().unwrap();
    server.decide(id, "reject", Some("not on a Friday")).await;
    let refused = server.check(&resumed(&other, &held)).await;
    assert_eq!(refused["decision"], "deny");
    assert_eq!(
        refused["reason"],
        "alice rejected this call: not on a Friday"
    );
    server.stop().await;
}

#[tokio::test]
async fn roles_are_enforced_and_agents_never_decide() {
    let fixture = Fixture::new();
    let server = fixture.start().await;
    let deploy = call("deploy", json!({"env": "prod"}), "c1", "r1");

    // No token, a wrong token, a malformed header: 401, naming the role.
    for token in [None, Some("not-a-token-anyone-issued")] {
        let (status, body) = server.post("/v1/check", token, &deploy).await;
        assert_eq!(status, 401, "{body}");
        assert_eq!(body["required_role"], "agent");
        assert_eq!(body["error"]["kind"], "unauthenticated");
    }
    let r = server
        .http
        .post(server.url("/v1/check"))
        .header("authorization", format!("Basic {AGENT}"))
        .json(&deploy)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    assert_eq!(r.headers()["www-authenticate"], "Bearer realm=\"toolvet\"");

    // A reviewer token does not vet calls.
    let (status, body) = server.post("/v1/check", Some(REVIEWER), &deploy).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["required_role"], "agent");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("the token has the reviewer role")
    );

    let held = server.check(&deploy).await;
    let id = held["approval"]["id"].as_str().unwrap();

    // An agent token can neither list nor decide, nor follow events.
    let (status, body) = server.get("/v1/approvals", Some(AGENT)).await;
    assert_eq!(
        (status, body["required_role"].as_str()),
        (403, Some("reviewer"))
    );
    let (status, body) = server
        .post(
            &format!("/v1/approvals/{id}/decision"),
            Some(AGENT),
            &json!({"decision": "approve", "reviewer": "mallory"}),
        )
        .await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["required_role"], "reviewer");
    let (status, _) = server.get("/v1/approvals/events", Some(AGENT)).await;
    assert_eq!(status, 403);
    let (status, _) = server
        .post(
            &format!("/v1/approvals/{id}/decision"),
            None,
            &json!({"decision": "approve", "reviewer": "m"}),
        )
        .await;
    assert_eq!(status, 401);
    // Still pending, and the resumed call still escalates.
    let (_, shown) = server
        .get(&format!("/v1/approvals/{id}"), Some(REVIEWER))
        .await;
    assert_eq!(shown["status"], "pending");
    let still = server.check(&resumed(&deploy, &held)).await;
    assert_eq!(still["decision"], "escalate");
    server.stop().await;
}

#[tokio::test]
async fn malformed_decisions_are_never_approvals() {
    let fixture = Fixture::new();
    let server = fixture.start().await;
    let deploy = call("deploy", json!({"env": "prod"}), "c1", "r1");
    let held = server.check(&deploy).await;
    let id = held["approval"]["id"].as_str().unwrap();
    let path = format!("/v1/approvals/{id}/decision");
    for (body, needle) in [
        (json!({}), "`decision` is missing"),
        (
            json!({"decision": "yes", "reviewer": "a"}),
            "must be `approve` or `reject`",
        ),
        (
            json!({"decision": "Approve", "reviewer": "a"}),
            "must be `approve` or `reject`",
        ),
        (json!({"decision": "approve"}), "`reviewer` is missing"),
        (
            json!({"decision": "approve", "reviewer": "a", "approved": true}),
            "unknown field",
        ),
        (
            json!({"decision": "reject", "reviewer": "a", "scope": "run"}),
            "approvals only",
        ),
        (
            json!({"decision": "approve", "reviewer": "a", "scope": "forever"}),
            "`scope`",
        ),
        (json!(["approve"]), "invalid decision"),
    ] {
        let (status, answer) = server.post(&path, Some(REVIEWER), &body).await;
        assert_eq!(status, 400, "{body} -> {answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(needle), "{body} -> {message}");
    }
    let (status, _) = server
        .post_text(&path, Some(REVIEWER), "{\"decision\": \"approve\"")
        .await;
    assert_eq!(status, 400);
    let (_, shown) = server
        .get(&format!("/v1/approvals/{id}"), Some(REVIEWER))
        .await;
    assert_eq!(
        shown["status"], "pending",
        "no malformed decision became one"
    );
    let (status, body) = server
        .decide("apr_00000000000000000000000000000000", "approve", None)
        .await;
    assert_eq!(
        (status, body["error"]["kind"].as_str()),
        (404, Some("not-found"))
    );
    server.stop().await;
}

#[tokio::test]
async fn bad_calls_get_400_with_the_cli_message() {
    let fixture = Fixture::new();
    let server = fixture.start().await;
    let (status, body) = server
        .post_text("/v1/check", Some(AGENT), "{\"call\": ")
        .await;
    assert_eq!(status, 400);
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("malformed JSON: EOF while parsing"),
        "{message}"
    );
    for bad in [
        json!({"call": {"name": "", "arguments": {}}}),
        json!({"call": {"name": "bash", "arguments": []}}),
        json!({"call": {"name": "bash", "arguments": {}}, "extra": 1}),
        json!({"call": {"name": "bash"}}),
    ] {
        let (status, body) = server.post("/v1/check", Some(AGENT), &bad).await;
        assert_eq!(status, 400, "{bad}");
        let expected = toolvet::CallRequest::from_value(bad.clone())
            .unwrap_err()
            .to_string();
        assert_eq!(body["error"]["message"], expected.as_str(), "{bad}");
        assert_eq!(body["error"]["kind"], "invalid-call");
    }
    let (status, _) = server.get("/v1/nothing", Some(AGENT)).await;
    assert_eq!(status, 404);
    server.stop().await;
}

#[tokio::test]
async fn the_body_cap_answers_413() {
    let fixture = Fixture::with(PolicyText {
        serve: "watch = false\nmax_body_bytes = 2048".into(),
        ..PolicyText::default()
    });
    let server = fixture.start().await;
    let big = call("bash", json!({"command": "x".repeat(4096)}), "c1", "r1");
    let (status, body) = server.post("/v1/check", Some(AGENT), &big).await;
    assert_eq!(status, 413, "{body}");
    assert_eq!(body["error"]["kind"], "body-too-large");
    let small = call("bash", json!({"command": "ls"}), "c2", "r1");
    assert_eq!(server.check(&small).await["decision"], "allow");
    server.stop().await;
}

#[tokio::test]
async fn the_list_is_paginated() {
    let fixture = Fixture::new();
    let server = fixture.start().await;
    let mut ids = Vec::new();
    for i in 0..5 {
        let held = server
            .check(&call("deploy", json!({"n": i}), &format!("c{i}"), "r1"))
            .await;
        ids.push(held["approval"]["id"].as_str().unwrap().to_string());
    }
    let mut seen = Vec::new();
    let mut after: Option<String> = None;
    for _ in 0..5 {
        let path = match &after {
            Some(a) => format!("/v1/approvals?status=pending&limit=2&after={a}"),
            None => "/v1/approvals?status=pending&limit=2".to_string(),
        };
        let (status, page) = server.get(&path, Some(REVIEWER)).await;
        assert_eq!(status, 200, "{page}");
        for r in page["requests"].as_array().unwrap() {
            seen.push(r["id"].as_str().unwrap().to_string());
        }
        match page["next"].as_str() {
            Some(n) => after = Some(n.to_string()),
            None => break,
        }
    }
    assert_eq!(seen, ids, "every request once, oldest first");
    let (status, body) = server
        .get("/v1/approvals?status=bogus", Some(REVIEWER))
        .await;
    assert_eq!(
        (status, body["error"]["kind"].as_str()),
        (400, Some("invalid-query"))
    );
    let (status, _) = server.get("/v1/approvals?limit=0", Some(REVIEWER)).await;
    assert_eq!(status, 400);
    let (status, _) = server.get("/v1/approvals?limit=abc", Some(REVIEWER)).await;
    assert_eq!(status, 400);
    server.decide(&ids[0], "approve", None).await;
    let (_, approved) = server
        .get("/v1/approvals?status=approved", Some(REVIEWER))
        .await;
    assert_eq!(approved["requests"][0]["id"], ids[0].as_str());
    server.stop().await;
}

/// Read SSE events (name, data) from a streaming response.
pub async fn sse_events(
    response: reqwest::Response,
) -> tokio::sync::mpsc::UnboundedReceiver<(String, serde_json::Value)> {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut stream = response.bytes_stream();
        let mut buffer = String::new();
        while let Some(Ok(chunk)) = stream.next().await {
            buffer.push_str(&String::from_utf8_lossy(&chunk));
            while let Some(cut) = buffer.find("\n\n") {
                let block: String = buffer.drain(..cut + 2).collect();
                let mut name = String::new();
                let mut data = String::new();
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("event:") {
                        name = v.trim().to_string();
                    } else if let Some(v) = line.strip_prefix("data:") {
                        data.push_str(v.trim());
                    }
                }
                if !name.is_empty() {
                    let value = serde_json::from_str(&data).unwrap_or_default();
                    if tx.send((name, value)).is_err() {
                        return;
                    }
                }
            }
        }
    });
    rx
}

/// The next event other than keep-alives, within 10 s.
pub async fn next_event(
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<(String, serde_json::Value)>,
) -> (String, serde_json::Value) {
    tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("an event within 10 s")
        .expect("the stream is open")
}

#[tokio::test]
async fn events_stream_new_decided_and_consumed_requests() {
    let fixture = Fixture::new();
    let server = fixture.start().await;
    let response = server
        .http
        .get(server.url("/v1/approvals/events"))
        .bearer_auth(REVIEWER)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut events = sse_events(response).await;
    assert_eq!(next_event(&mut events).await.0, "ready");
    let deploy = call("deploy", json!({"env": "prod"}), "c1", "r1");
    let held = server.check(&deploy).await;
    let id = held["approval"]["id"].as_str().unwrap();
    let (name, data) = next_event(&mut events).await;
    assert_eq!(name, "requested");
    assert_eq!(data["request"]["id"], id);
    assert_eq!(data["request"]["arguments"], json!({"env": "prod"}));
    server.decide(id, "approve", None).await;
    let (name, data) = next_event(&mut events).await;
    assert_eq!(
        (name.as_str(), data["request"]["status"].as_str()),
        ("decided", Some("approved"))
    );
    server.check(&resumed(&deploy, &held)).await;
    let (name, data) = next_event(&mut events).await;
    assert_eq!(
        (name.as_str(), data["request"]["status"].as_str()),
        ("consumed", Some("consumed"))
    );
    // Shutdown ends the stream, so the drain does not wait for it.
    server.stop().await;
    assert!(
        tokio::time::timeout(Duration::from_secs(5), events.recv())
            .await
            .unwrap()
            .is_none(),
        "the stream ended"
    );
}

#[tokio::test]
async fn probes_report_policy_ledger_and_metrics() {
    let fixture = Fixture::new();
    let server = fixture.start().await;
    let (status, health) = server.get("/healthz", None).await;
    assert_eq!((status, health["status"].as_str()), (200, Some("ok")));
    let (status, ready) = server.get("/readyz", Some(METRICS)).await;
    assert_eq!(status, 200, "{ready}");
    assert_eq!(ready["ready"], true);
    assert_eq!(ready["policy"]["generation"], 1);
    let policy = toolvet::Policy::from_file(&fixture.policy).unwrap();
    assert_eq!(ready["policy"]["sha256"], policy.sha256().as_str());
    assert_eq!(ready["ledger"]["reachable"], true);
    // Not where the policy (and beside it the ledger and keys) lives.
    assert!(ready["policy"].get("source").is_none(), "{ready}");
    let dir = fixture.dir.path().to_str().unwrap();
    assert!(!ready.to_string().contains(dir), "{ready}");

    server
        .check(&call("read_file", json!({"path": "a"}), "c1", "r1"))
        .await;
    server.check(&call("deploy", json!({}), "c2", "r1")).await;
    let (status, text) = server.get_text("/metrics", Some(METRICS)).await;
    assert_eq!(status, 200);
    for needle in [
        "toolvet_verdicts_total{decision=\"allow\",tool=\"read_file\"} 1",
        "toolvet_verdicts_total{decision=\"escalate\",tool=\"deploy\"} 1",
        "toolvet_check_outcomes_total{check=\"tools\",decision=\"escalate\",error_kind=\"none\"} 1",
        "toolvet_check_duration_seconds_bucket{check=\"tools\"",
        "toolvet_verdict_duration_seconds_count{decision=\"allow\"} 1",
        "toolvet_approvals_pending 1",
        "toolvet_policy_generation 1",
        "toolvet_http_requests_total{route=\"/v1/check\",status=\"200\"} 2",
    ] {
        assert!(text.contains(needle), "missing {needle} in:\n{text}");
    }

    // By default /readyz and /metrics need a metrics or reviewer token: no
    // token is 401, an agent's is 403 (the agent must not read which
    // tools are called or what the policy is). /healthz says only "ok".
    for path in ["/readyz", "/metrics"] {
        let (status, body) = server.get(path, None).await;
        assert_eq!(status, 401, "{path}: {body}");
        assert_eq!(body["required_role"], "metrics or reviewer", "{path}");
        assert_eq!(server.get(path, Some(AGENT)).await.0, 403, "{path}");
        assert_eq!(server.get(path, Some(REVIEWER)).await.0, 200, "{path}");
        assert_eq!(server.get(path, Some(METRICS)).await.0, 200, "{path}");
    }
    assert_eq!(server.get("/healthz", Some(AGENT)).await.0, 200);
    // A metrics token reads nothing else.
    assert_eq!(server.get("/v1/approvals", Some(METRICS)).await.0, 403);
    let (status, _) = server
        .post(
            "/v1/check",
            Some(METRICS),
            &call("read_file", json!({}), "c3", "r1"),
        )
        .await;
    assert_eq!(status, 403);
    server.stop().await;

    // `probes_need_token = false` opens them, explicitly.
    let fixture = Fixture::with(PolicyText {
        serve: "watch = false\nprobes_need_token = false".into(),
        ..PolicyText::default()
    });
    let server = fixture.start().await;
    for path in ["/healthz", "/readyz", "/metrics"] {
        assert_eq!(server.get(path, None).await.0, 200, "{path}");
    }
    server.stop().await;
}
