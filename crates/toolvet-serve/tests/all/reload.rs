//! Hot reload: a changed policy file is swapped in; a broken one keeps
//! the old policy serving and shows in `/readyz` and the metrics.

use crate::harness::*;
use serde_json::json;
use std::time::Duration;

#[tokio::test]
async fn a_changed_policy_file_is_swapped_in_and_a_broken_one_is_refused() {
    let text = PolicyText {
        serve: "watch = true".into(),
        ..PolicyText::default()
    };
    let fixture = Fixture::with(text);
    let server = fixture.start().await;
    let backup = call("backup", json!({"db": "main"}), "c1", "r1");
    assert_eq!(server.check(&backup).await["decision"], "allow");

    // Now `backup` needs approval too.
    let changed = PolicyText {
        serve: "watch = true".into(),
        tools: r#"approve = ["deploy*", "backup"], deny = ["drop_database"]"#.into(),
        ..PolicyText::default()
    };
    std::fs::write(&fixture.policy, changed.render()).unwrap();
    assert!(
        eventually(Duration::from_secs(20), || async {
            server.get("/readyz", Some(METRICS)).await.1["policy"]["generation"] == 2
        })
        .await,
        "the file change was picked up"
    );
    assert_eq!(server.check(&backup).await["decision"], "escalate");

    // A policy that does not parse: the old one keeps serving.
    std::fs::write(&fixture.policy, "[[check]]\nname = \"x\"\nplugin = 7\n").unwrap();
    assert!(
        eventually(Duration::from_secs(20), || async {
            server.get("/readyz", Some(METRICS)).await.1["reload"]["failed"] == 1
        })
        .await,
        "the failed reload shows in /readyz"
    );
    let (status, ready) = server.get("/readyz", Some(METRICS)).await;
    assert_eq!(status, 200, "still ready: the old policy serves");
    assert_eq!(ready["policy"]["generation"], 2);
    let error = ready["reload"]["last_error"].as_str().unwrap();
    assert!(error.contains("toolvet.toml:3"), "{error}");
    assert_eq!(server.check(&backup).await["decision"], "escalate");
    let (_, metrics) = server.get_text("/metrics", Some(METRICS)).await;
    assert!(
        metrics.contains("toolvet_reloads_total{result=\"failure\"} 1"),
        "{metrics}"
    );
    assert!(
        metrics.contains("toolvet_reloads_total{result=\"success\"} 1"),
        "{metrics}"
    );

    // A policy whose plugin is missing fails to load: refused too.
    let missing = changed
        .render()
        .replace("tool_policy.wasm", "no_such_plugin.wasm");
    std::fs::write(&fixture.policy, missing).unwrap();
    let refused = server.handle.reload().await.unwrap_err().to_string();
    assert!(refused.contains("no_such_plugin.wasm"), "{refused}");
    assert_eq!(
        server.get("/readyz", Some(METRICS)).await.1["policy"]["generation"],
        2
    );

    // Fixed again: generation 3, reloaded on request (what SIGHUP does).
    std::fs::write(&fixture.policy, PolicyText::default().render()).unwrap();
    assert_eq!(server.handle.reload().await.unwrap(), 3);
    assert_eq!(server.check(&backup).await["decision"], "allow");
    let ready = server.get("/readyz", Some(METRICS)).await.1;
    assert!(ready["reload"]["last_error"].is_null(), "{ready}");
    server.stop().await;
}

#[tokio::test]
async fn tokens_reload_with_the_policy() {
    let fixture = Fixture::new();
    let server = fixture.start().await;
    let read = call("read_file", json!({"path": "a"}), "c1", "r1");
    assert_eq!(server.post("/v1/check", Some(AGENT), &read).await.0, 200);
    // Rotate the agent token: the old one stops working at the reload.
    let new_token = "rotated-agent-token-000000001";
    let digest = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(new_token));
    let text = PolicyText::default().render();
    let old_digest = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(AGENT));
    std::fs::write(&fixture.policy, text.replace(&old_digest, &digest)).unwrap();
    server.handle.reload().await.unwrap();
    assert_eq!(server.post("/v1/check", Some(AGENT), &read).await.0, 401);
    assert_eq!(
        server.post("/v1/check", Some(new_token), &read).await.0,
        200
    );
    server.stop().await;
}
