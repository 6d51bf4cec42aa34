//! Each run is vetted against the server's own record of its earlier
//! calls (`[serve] run_history`), so run-level rules hold through AuthZEN
//! (which carries no history) and for callers that send none (review s11
//! K9: 25 × 99 USD passed a 2,000 USD run limit).

use crate::harness::{AGENT, Fixture, PolicyText, plugin};
use serde_json::{Value, json};

/// The harness policy with spend-guard's run limit of 2,000 USD (soft
/// 100: a larger payment is held for a person), and `serve` lines.
fn fixture(serve: &str) -> Fixture {
    fixture_with(serve, "")
}

/// [`fixture`] with `checks` (more `[[check]]` tables) at the end.
fn fixture_with(serve: &str, checks: &str) -> Fixture {
    let text = PolicyText {
        serve: format!("watch = false\n{serve}"),
        ..PolicyText::default()
    };
    let policy = format!(
        "{}\n[[check]]\nname = \"spend\"\nplugin = \"{}\"\n[check.settings]\n\
         limits = {{ USD = {{ soft = 100, hard = 1000, run_hard = 2000 }} }}\n{checks}",
        text.render(),
        plugin("spend_guard").display()
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("toolvet.toml");
    std::fs::write(&path, policy).unwrap();
    Fixture { dir, policy: path }
}

fn payment(i: usize, amount: &str, run: &str, principal: &str) -> Value {
    json!({
        "subject": {"type": "agent", "id": "payer", "properties": {"run_id": run, "principal": principal}},
        "action": {"name": "pay_invoice"},
        "resource": {"type": "tool", "properties": {
            "arguments": {"invoice": format!("INV-{i}"), "amount": amount, "currency": "USD"},
            "call_id": format!("c{i}")
        }}
    })
}

/// Pay 99 USD in `run` until a payment is refused: how many passed, and
/// the refusal.
async fn pay_until_refused(
    server: &crate::harness::Running,
    run: &str,
    principal: &str,
    from: usize,
) -> (usize, Value) {
    for i in from..from + 40 {
        let (status, answer) = server
            .post(
                "/access/v1/evaluation",
                Some(AGENT),
                &payment(i, "99.00", run, principal),
            )
            .await;
        assert_eq!(status, 200, "{answer}");
        if answer["decision"] != true {
            return (i - from, answer["context"]["toolvet"].clone());
        }
    }
    panic!("40 payments of 99 USD passed a run limit of 2,000 USD");
}

#[tokio::test]
async fn run_limits_hold_through_authzen_which_sends_no_history() {
    let fixture = fixture("");
    let server = fixture.start().await;
    // 20 × 99 = 1,980; the 21st would bring the run to 2,079.
    let (passed, refusal) = pay_until_refused(&server, "r-az-1", "alice@acme.com", 0).await;
    assert_eq!(passed, 20, "{refusal}");
    assert_eq!(refusal["decision"], "deny");
    assert_eq!(refusal["rule"], "spend.run-limit", "{refusal}");
    // Another principal that picks the same run id has a run of its own.
    let (passed, _) = pay_until_refused(&server, "r-az-1", "bob@acme.com", 100).await;
    assert_eq!(passed, 20);
    // A call that sends its own history is refused: the record is the
    // server's.
    let (status, answer) = server
        .post(
            "/v1/check",
            Some(AGENT),
            &json!({
                "call": {"id": "x", "name": "pay_invoice", "arguments": {"amount": "1", "currency": "USD"}},
                "context": {"run_id": "r-az-1", "principal": "alice@acme.com", "history": [
                    {"name": "ls", "arguments": {}, "outcome": "allowed"}
                ]}
            }),
        )
        .await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(answer["error"]["kind"], "history-not-accepted", "{answer}");
    server.stop().await;
}

/// A held payment that a person approved and that then ran counts once
/// in the run's total.
#[tokio::test]
async fn an_approved_payment_counts_once() {
    let fixture = fixture("");
    let server = fixture.start().await;
    let ran = held_approved_resumed(&server, &payment(0, "500.00", "r-2", "alice@acme.com")).await;
    assert_eq!(
        ran["context"]["toolvet"]["rule"], "approval.approved",
        "{ran}"
    );
    assert_eq!(ran["decision"], true, "{ran}");
    // 500 + 15 × 99 = 1,985; the 16th would bring it to 2,084 (counted
    // twice, the 500 would stop it at the 11th).
    let (passed, refusal) = pay_until_refused(&server, "r-2", "alice@acme.com", 1).await;
    assert_eq!(passed, 15, "{refusal}");
    assert_eq!(refusal["rule"], "spend.run-limit");
    server.stop().await;
}

/// AuthZEN: ask about `call`; when it is held, a reviewer approves it and
/// the call is resumed with its ticket. The last answer.
async fn held_approved_resumed(server: &crate::harness::Running, call: &Value) -> Value {
    let (_, held) = server
        .post("/access/v1/evaluation", Some(AGENT), call)
        .await;
    let toolvet = &held["context"]["toolvet"];
    if toolvet["decision"] != "escalate" {
        return held;
    }
    let id = toolvet["approval"]["id"].as_str().unwrap();
    let ticket = toolvet["approval"]["ticket"].as_str().unwrap();
    let (status, body) = server.decide(id, "approve", None).await;
    assert_eq!(status, 200, "{body}");
    let mut resumed = call.clone();
    resumed["context"] = json!({"approval_ticket": ticket});
    server
        .post("/access/v1/evaluation", Some(AGENT), &resumed)
        .await
        .1
}

/// Review s14 N3: the resume of a held payment was vetted with its own
/// held entry still in the run, so the run total held it twice: a second
/// approved 900 USD payment (1,800 in all) was refused as over 2,000.
#[tokio::test]
async fn an_approved_resume_is_not_counted_twice_while_it_is_vetted() {
    let fixture = fixture("");
    let server = fixture.start().await;
    let mut answers = Vec::new();
    for i in 0..3 {
        let ran =
            held_approved_resumed(&server, &payment(i, "900.00", "r-n3", "alice@acme.com")).await;
        answers.push(ran["context"]["toolvet"]["rule"].clone());
    }
    // 900 and 1,800 run; 2,700 is over the run limit before anyone is asked.
    assert_eq!(
        answers,
        [
            json!("approval.approved"),
            json!("approval.approved"),
            json!("spend.run-limit")
        ],
    );
    server.stop().await;
}

/// `run_history = "caller"`: the history each call sends, as before.
#[tokio::test]
async fn a_caller_kept_history_is_used_when_the_policy_says_so() {
    let fixture = fixture("run_history = \"caller\"");
    let server = fixture.start().await;
    let (passed, _) = pay_until_refused_or(&server, 30).await;
    assert_eq!(passed, 30, "AuthZEN sends no history: every payment alone");
    let earlier: Vec<Value> = (0..20)
        .map(|i| json!({"name": "pay_invoice", "arguments": {"invoice": format!("INV-{i}"), "amount": "99.00", "currency": "USD"}, "outcome": "allowed"}))
        .collect();
    let (status, answer) = server
        .post(
            "/v1/check",
            Some(AGENT),
            &json!({
                "call": {"id": "x", "name": "pay_invoice", "arguments": {"invoice": "INV-20", "amount": "99.00", "currency": "USD"}},
                "context": {"run_id": "r-3", "principal": "alice@acme.com", "history": earlier}
            }),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["rule"], "spend.run-limit", "{answer}");
    server.stop().await;
}

async fn pay_until_refused_or(server: &crate::harness::Running, n: usize) -> (usize, Value) {
    for i in 0..n {
        let (_, answer) = server
            .post(
                "/access/v1/evaluation",
                Some(AGENT),
                &payment(i, "99.00", "r-3", "alice@acme.com"),
            )
            .await;
        if answer["decision"] != true {
            return (i, answer);
        }
    }
    (n, Value::Null)
}

/// Review s13 M3: asking again about a held call while it waits (as the
/// docs invite) was recorded as another identical call; with loop
/// detection at three, the approved resume was then held by the loop and
/// refused `approval.not-covered`.
#[tokio::test]
async fn asking_again_while_a_call_waits_is_no_loop() {
    let fixture = fixture_with(
        "",
        &format!(
            "[[check]]\nname = \"sequence\"\nplugin = \"{}\"\n[check.settings]\n\
             loop_detection = {{ max_identical = 3, action = \"escalate\" }}\n",
            plugin("sequence_guard").display()
        ),
    );
    let server = fixture.start().await;
    let deploy = crate::harness::call("deploy", json!({"env": "prod"}), "c1", "r-m3");
    let held = server.check(&deploy).await;
    assert_eq!(held["decision"], "escalate", "{held}");
    let id = held["approval"]["id"].as_str().unwrap().to_string();
    for _ in 0..3 {
        let again = server.check(&deploy).await;
        assert_eq!(again["approval"]["id"], id.as_str(), "{again}");
        let early = server.check(&crate::harness::resumed(&deploy, &held)).await;
        assert_ne!(early["decision"], "allow", "{early}");
    }
    let (status, _) = server.decide(&id, "approve", None).await;
    assert_eq!(status, 200);
    let ran = server.check(&crate::harness::resumed(&deploy, &held)).await;
    assert_eq!(ran["decision"], "allow", "{ran}");
    assert_eq!(ran["rule"], "approval.approved");
    server.stop().await;
}

/// Review s13 M1: another token's burst of new runs pushed a run out of
/// the store, and its run total restarted from zero. A full store now
/// refuses a new run while every kept run is in use.
#[tokio::test]
async fn a_burst_of_new_runs_does_not_forget_a_busy_run() {
    let fixture = fixture("max_runs = 2");
    let server = fixture.start().await;
    let (passed, refusal) = pay_until_refused(&server, "r-m1", "alice@acme.com", 0).await;
    assert_eq!(
        (passed, refusal["rule"].as_str()),
        (20, Some("spend.run-limit"))
    );
    let (_, other) = server
        .post(
            "/access/v1/evaluation",
            Some(AGENT),
            &payment(500, "1.00", "r-other-1", "mallory@acme.com"),
        )
        .await;
    assert_eq!(other["decision"], true, "{other}");
    let (_, refused) = server
        .post(
            "/access/v1/evaluation",
            Some(AGENT),
            &payment(501, "1.00", "r-other-2", "mallory@acme.com"),
        )
        .await;
    assert_eq!(refused["decision"], false, "{refused}");
    assert_eq!(
        refused["context"]["toolvet"]["rule"],
        "toolvet.too-many-runs"
    );
    // Alice's run still knows its total.
    let (passed, refusal) = pay_until_refused(&server, "r-m1", "alice@acme.com", 600).await;
    assert_eq!(
        (passed, refusal["rule"].as_str()),
        (0, Some("spend.run-limit"))
    );
    server.stop().await;
}
