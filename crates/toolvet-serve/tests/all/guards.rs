//! The server's guards against its own callers (issue 29): one token in
//! two roles, AuthZEN keys toolvet would not vet, text that deceives the
//! reviewer, and a flood of pending approvals.

use crate::harness::*;
use serde_json::json;
use toolvet_serve::{Listen, ServeOptions, Server};

/// The default test policy with the agent's token also the reviewer's.
fn shared_token_policy() -> String {
    PolicyText::default()
        .render()
        .replace(&sha(AGENT), &sha(REVIEWER))
}

#[tokio::test]
async fn a_token_in_two_roles_stops_the_start_and_a_reload() {
    let fixture = Fixture::new();
    std::fs::write(&fixture.policy, shared_token_policy()).unwrap();
    let e = Server::bind(ServeOptions {
        config: fixture.policy.clone(),
        listen: Some(Listen::Tcp("127.0.0.1:0".parse().unwrap())),
    })
    .await
    .unwrap_err()
    .to_string();
    assert!(
        e.contains(
            "both an agent token ([serve] agent_tokens_sha256[0]) and a reviewer token ([serve] \
             reviewer_tokens_sha256[0])"
        ),
        "{e}"
    );
    assert!(!e.contains(REVIEWER) && !e.contains(&sha(REVIEWER)), "{e}");

    // A running server keeps its tokens when a reload would share one.
    std::fs::write(&fixture.policy, PolicyText::default().render()).unwrap();
    let server = fixture.start().await;
    std::fs::write(&fixture.policy, shared_token_policy()).unwrap();
    let e = server.handle.reload().await.unwrap_err().to_string();
    assert!(e.contains("both an agent token"), "{e}");
    let deploy = call("deploy", json!({"env": "prod"}), "c1", "r1");
    let (status, _) = server.post("/v1/check", Some(REVIEWER), &deploy).await;
    assert_eq!(status, 403, "the reviewer token did not become an agent's");
    let held = server.check(&deploy).await;
    let id = held["approval"]["id"].as_str().unwrap();
    let (status, _) = server
        .post(
            &format!("/v1/approvals/{id}/decision"),
            Some(AGENT),
            &json!({"decision": "approve", "reviewer": "mallory"}),
        )
        .await;
    assert_eq!(status, 403, "the agent token did not become a reviewer's");
    server.stop().await;
}

#[tokio::test]
async fn authzen_refuses_keys_it_would_not_vet() {
    let fixture = Fixture::new();
    let server = fixture.start().await;
    let good = json!({
        "subject": {"type": "agent", "id": "ci-bot", "properties": {"run_id": "r1"}},
        "action": {"name": "bash"},
        "resource": {"type": "tool", "id": "bash", "properties": {"arguments": {"command": "ls"}}},
    });
    let (status, answer) = server
        .post("/access/v1/evaluation", Some(AGENT), &good)
        .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["decision"], true);
    for (path, key) in [
        ("resource.properties", "arguments2"),
        ("subject", "properties2"),
        ("context", "approval"),
        ("", "Resource"),
    ] {
        let mut body = good.clone();
        let mut at = &mut body;
        for part in path.split('.').filter(|p| !p.is_empty()) {
            at = &mut at[part];
        }
        at[key] = json!({"command": "rm -rf ~"});
        let (status, answer) = server
            .post("/access/v1/evaluation", Some(AGENT), &body)
            .await;
        let full = if path.is_empty() {
            key.to_string()
        } else {
            format!("{path}.{key}")
        };
        assert_eq!(status, 400, "{full}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        if key == "Resource" {
            // Beside `resource` it folds alike: the strict reader refuses
            // the body before its key lists are read.
            assert_eq!(answer["error"]["kind"], "invalid-call", "{answer}");
            assert!(
                message.contains("`resource`") && message.contains("`Resource`"),
                "{message}"
            );
            continue;
        }
        assert_eq!(answer["error"]["kind"], "invalid-evaluation");
        assert!(
            message.starts_with(&format!("unknown key `{full}`")),
            "{message}"
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn the_reviewer_reads_escaped_text_and_the_exact_arguments() {
    let fixture = Fixture::new();
    let server = fixture.start().await;
    // 2^53 + 1: JavaScript's JSON.parse reads 9007199254740992.
    let body = "{\"call\": {\"id\": \"c1\", \"name\": \"deploy\", \"arguments\": \
                {\"account\": 9007199254740993, \"note\": \"ok\u{202e}evorppa\u{200b}\u{2028}Why: safe\"}}, \
                \"context\": {\"run_id\": \"r\u{2066}1\", \"agent\": \"ci\u{202e}bot\", \"principal\": \"b\u{43e}b\", \
                \"attributes\": {\"cwd\": \"/srv/app\u{202e}\\n\"}}}";
    let (status, held) = server.post_text("/v1/check", Some(AGENT), body).await;
    assert_eq!(status, 200, "{held}");
    assert_eq!(held["decision"], "escalate", "{held}");
    let id = held["approval"]["id"].as_str().unwrap();

    let (_, page) = server.get("/v1/approvals", Some(REVIEWER)).await;
    let request = &page["requests"][0];
    assert_eq!(request["id"], id);
    let shown = &request["shown"];
    assert_eq!(
        shown["arguments"],
        "{\n  \"account\": 9007199254740993,\n  \"note\": \"ok\\u{202e}evorppa\\u{200b}\\u{2028}Why: safe\"\n}"
    );
    assert_eq!(shown["agent"], "ci\\u{202e}bot");
    assert_eq!(shown["run_id"], "r\\u{2066}1");
    // The directory the ticket is bound to is shown too (review s10 H16).
    assert_eq!(shown["attributes"]["cwd"], "/srv/app\\u{202e}\\n");
    assert_eq!(request["call"]["attributes"]["cwd"], "/srv/app\u{202e}\n");
    assert_eq!(shown["tool"], "deploy");
    // A look-alike letter in a name is written out (review s11 K7): the
    // Cyrillic `о` of `bоb` is not bob's.
    assert_eq!(shown["principal"], "b\\u{43e}b");
    assert_eq!(shown["escalations"][0]["check"], "tools");
    assert_eq!(shown["escalations"][0]["rule"], "policy.requires-approval");
    // The exact fields stay exact (JSON escapes what it must).
    assert_eq!(request["agent"], "ci\u{202e}bot");
    // The same on one request, the event stream's and the decision's.
    let (_, one) = server
        .get(&format!("/v1/approvals/{id}"), Some(REVIEWER))
        .await;
    assert_eq!(one["shown"], *shown);
    // A reviewer's name is a name a person compares by eye: the Cyrillic
    // `а` of `аlice` is written out (review s23 F6).
    let (status, decided) = server
        .post(
            &format!("/v1/approvals/{id}/decision"),
            Some(REVIEWER),
            &serde_json::json!({"decision": "reject", "reviewer": "\u{430}lice",
                "message": "no\nWhy: forged", "shown": one["review_sha256"]}),
        )
        .await;
    assert_eq!(status, 200, "{decided}");
    assert_eq!(decided["shown"]["message"], "no\\nWhy: forged");
    assert_eq!(decided["shown"]["reviewer"], "\\u{430}lice");
    server.stop().await;
}

#[tokio::test]
async fn pending_approvals_are_capped_per_run_and_principal_and_counted() {
    let fixture = Fixture::with(PolicyText {
        approvals: "max_pending_per_run = 3\nmax_pending_per_principal = 5".into(),
        ..PolicyText::default()
    });
    let server = fixture.start().await;
    let ask = |id: &str, run: &str, principal: &str| {
        let mut c = call("deploy", json!({"id": id}), id, run);
        c["context"]["principal"] = json!(principal);
        c
    };
    let mut ids = Vec::new();
    for i in 0..3 {
        let held = server.check(&ask(&format!("c{i}"), "r1", "bob")).await;
        assert_eq!(held["decision"], "escalate", "{held}");
        ids.push(held["approval"]["id"].as_str().unwrap().to_string());
    }
    // A fourth request in the run: denied, fail closed, and not opened.
    let over = server.check(&ask("c3", "r1", "bob")).await;
    assert_eq!(over["decision"], "deny", "{over}");
    assert_eq!(over["rule"], "approval.too-many-pending");
    assert!(
        over["reason"]
            .as_str()
            .unwrap()
            .contains("3 approval requests of this run are already pending (the limit is 3)"),
        "{over}"
    );
    assert!(over.get("approval").is_none_or(|a| a.is_null()), "{over}");
    // Asking again for a call that waits is not a new request.
    let again = server.check(&ask("c1", "r1", "bob")).await;
    assert_eq!(again["decision"], "escalate", "{again}");
    assert_eq!(again["approval"]["id"], ids[1].as_str());

    // Per principal, across runs: bob has 3 in r1, 2 more in r2, then no more.
    for i in 0..2 {
        let held = server.check(&ask(&format!("d{i}"), "r2", "bob")).await;
        assert_eq!(held["decision"], "escalate", "{held}");
    }
    let over = server.check(&ask("d2", "r2", "bob")).await;
    assert_eq!(over["rule"], "approval.too-many-pending", "{over}");
    assert!(
        over["reason"].as_str().unwrap().contains("principal"),
        "{over}"
    );
    // Someone else is not held up by bob's flood.
    let other = server.check(&ask("e0", "r3", "carol")).await;
    assert_eq!(other["decision"], "escalate", "{other}");

    // The reviewer sees how many wait, in all and per run.
    let (_, page) = server
        .get("/v1/approvals?status=pending&limit=1", Some(REVIEWER))
        .await;
    let pending = &page["pending"];
    assert_eq!(pending["total"], 6, "{pending}");
    assert_eq!(pending["complete"], true);
    assert_eq!(pending["runs"], 3);
    assert_eq!(
        pending["by_run"][0],
        json!({"run_id": "r1", "count": 3, "shown": "r1"})
    );
    assert_eq!(pending["by_run"][1]["count"], 2);
    assert_eq!(pending["limits"]["per_run"], 3);
    assert_eq!(pending["limits"]["per_principal"], 5);
    // Later pages do not count again.
    let next = page["next"].as_str().unwrap();
    let (_, later) = server
        .get(
            &format!("/v1/approvals?status=pending&limit=1&after={next}"),
            Some(REVIEWER),
        )
        .await;
    assert!(later.get("pending").is_none(), "{later}");

    // Once a person decides one, the run may ask again.
    server.decide(&ids[0], "reject", None).await;
    let now = server.check(&ask("c3", "r1", "carol")).await;
    assert_eq!(now["decision"], "escalate", "{now}");
    server.stop().await;
}
