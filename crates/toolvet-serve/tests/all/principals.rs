//! Who a caller may act for, and the ledger's atomic steps (issue 29):
//! agent tokens bound to principals, the pending limits under openings
//! racing on two replicas, and reviewers' signed decisions in a Postgres
//! ledger.

use crate::harness::*;
use crate::pg::Postgres;
use serde_json::{Value, json};

/// Bob's agent token, bound to bob.
const BOB: &str = "bob-agent-token-for-tests-0001";
/// Carol's agent token, bound to carol.
const CAROL: &str = "carol-agent-token-for-tests-0001";

/// The default policy with Bob's and Carol's bound tokens next to the
/// unbound `AGENT`.
fn bound_policy() -> PolicyText {
    PolicyText {
        serve: format!(
            "watch = false\nagent_tokens = [\n\
             {{ label = \"bob-laptop\", sha256 = \"{}\", principals = [\"bob@acme.com\"] }},\n\
             {{ label = \"carol-ci\", sha256 = \"{}\", principals = [\"carol@acme.com\"] }},\n]",
            sha(BOB),
            sha(CAROL)
        ),
        ..PolicyText::default()
    }
}

/// `call` on behalf of `principal` (`None`: the key left out).
fn as_principal(call: &Value, principal: Option<&str>) -> Value {
    let mut c = call.clone();
    match principal {
        Some(p) => c["context"]["principal"] = json!(p),
        None => {
            c["context"].as_object_mut().unwrap().remove("principal");
        }
    }
    c
}

/// A 403 naming the key and the token's label, never a token.
fn assert_forbidden(status: u16, body: &Value, key: &str, label: &str) {
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["error"]["kind"], "principal-forbidden", "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains(&format!("`{key}`")), "{message}");
    assert!(message.contains(label), "{message}");
    for token in [AGENT, BOB, CAROL, REVIEWER] {
        assert!(
            !message.contains(token) && !message.contains(&sha(token)),
            "{message}"
        );
    }
}

#[tokio::test]
async fn a_bound_agent_token_speaks_only_for_its_principals() {
    let fixture = Fixture::with(bound_policy());
    let server = fixture.start().await;
    let deploy = call("deploy", json!({"env": "prod"}), "c1", "r1");

    // Bob's token, naming no principal: vetted for bob.
    let (status, held) = server
        .post("/v1/check", Some(BOB), &as_principal(&deploy, None))
        .await;
    assert_eq!(status, 200, "{held}");
    assert_eq!(held["decision"], "escalate", "{held}");
    let id = held["approval"]["id"].as_str().unwrap().to_string();
    let (_, shown) = server
        .get(&format!("/v1/approvals/{id}"), Some(REVIEWER))
        .await;
    assert_eq!(shown["principal"], "bob@acme.com", "{shown}");
    // Naming bob is the same call: the same request.
    let (_, again) = server
        .post(
            "/v1/check",
            Some(BOB),
            &as_principal(&deploy, Some("bob@acme.com")),
        )
        .await;
    assert_eq!(again["approval"]["id"], id.as_str(), "{again}");
    // Bob's token naming carol: refused, nothing opened.
    let (status, body) = server
        .post(
            "/v1/check",
            Some(BOB),
            &as_principal(&deploy, Some("carol@acme.com")),
        )
        .await;
    assert_forbidden(status, &body, "context.principal", "\"bob-laptop\"");

    assert_eq!(server.decide(&id, "approve", None).await.0, 200);
    let ticket = resumed(&as_principal(&deploy, Some("bob@acme.com")), &held);
    // Carol's token cannot claim bob to spend bob's approval...
    let (status, body) = server.post("/v1/check", Some(CAROL), &ticket).await;
    assert_forbidden(status, &body, "context.principal", "\"carol-ci\"");
    // ...nor can the unbound token: bob is bound to bob's token.
    let (status, body) = server.post("/v1/check", Some(AGENT), &ticket).await;
    assert_forbidden(status, &body, "context.principal", "\"bob-laptop\"");
    // Carol as herself brings a ticket that is not hers.
    for principal in [None, Some("carol@acme.com")] {
        let (status, denied) = server
            .post("/v1/check", Some(CAROL), &as_principal(&ticket, principal))
            .await;
        assert_eq!(status, 200, "{denied}");
        assert_eq!(denied["rule"], "approval.principal-mismatch", "{denied}");
    }
    // Nor may she read bob's request; bob may.
    let path = format!("/v1/approvals/{id}");
    let (status, body) = server.get(&path, Some(CAROL)).await;
    assert_eq!(
        (status, body["error"]["kind"].as_str()),
        (403, Some("principal-forbidden"))
    );
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("\"carol-ci\""),
        "{body}"
    );
    assert_eq!(server.get(&path, Some(BOB)).await.0, 200);
    assert_eq!(server.get(&path, Some(AGENT)).await.0, 403, "bob is bound");

    // AuthZEN: the same rule, naming its own key.
    let evaluation = json!({
        "subject": {"type": "agent", "id": "ci-bot",
                    "properties": {"run_id": "r1", "principal": "bob@acme.com"}},
        "action": {"name": "deploy"},
        "resource": {"type": "tool", "properties": {"arguments": {"env": "prod"}, "call_id": "c1"}},
        "context": {"approval_ticket": held["approval"]["ticket"]},
    });
    let (status, body) = server
        .post("/access/v1/evaluation", Some(CAROL), &evaluation)
        .await;
    assert_forbidden(
        status,
        &body,
        "subject.properties.principal",
        "\"carol-ci\"",
    );

    // The approval is unspent: bob's resume runs it, once.
    let (_, allowed) = server
        .post("/v1/check", Some(BOB), &as_principal(&ticket, None))
        .await;
    assert_eq!(allowed["decision"], "allow", "{allowed}");
    let (_, replayed) = server.post("/v1/check", Some(BOB), &ticket).await;
    assert_eq!(replayed["rule"], "approval.replayed", "{replayed}");

    // The unbound token still speaks for principals nobody binds.
    let (status, other) = server
        .post(
            "/v1/check",
            Some(AGENT),
            &as_principal(&deploy, Some("dave@acme.com")),
        )
        .await;
    assert_eq!(
        (status, other["decision"].as_str()),
        (200, Some("escalate")),
        "{other}"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_token_bound_to_agents_speaks_only_as_them() {
    // `agents` binds the agent as `principals` binds the principal: the
    // agent decides the agent's policy rules and whose requests are whose.
    let fixture = Fixture::with(PolicyText {
        serve: format!(
            "watch = false\nagent_tokens = [\n\
             {{ label = \"deployer\", sha256 = \"{}\", principals = [\"bob@acme.com\"], agents = [\"deploy-bot\"] }},\n\
             {{ label = \"pair\", sha256 = \"{}\", principals = [\"carol@acme.com\"], agents = [\"a1\", \"a2\"] }},\n]",
            sha(BOB),
            sha(CAROL)
        ),
        ..PolicyText::default()
    });
    let server = fixture.start().await;
    let deploy = call("deploy", json!({"env": "prod"}), "c1", "r1");

    // Naming another agent: refused, nothing opened, no token shown.
    let (status, body) = server.post("/v1/check", Some(BOB), &deploy).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["error"]["kind"], "agent-forbidden", "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("`context.agent`")
            && message.contains("\"deployer\"")
            && message.contains("\"ci-bot\""),
        "{message}"
    );
    assert!(
        !message.contains(BOB) && !message.contains(&sha(BOB)),
        "{message}"
    );
    let (_, listed) = server.get("/v1/approvals", Some(REVIEWER)).await;
    assert_eq!(
        listed["requests"].as_array().map(Vec::len),
        Some(0),
        "{listed}"
    );

    // Naming none: vetted as its only agent, and the request says so.
    let mut unnamed = deploy.clone();
    unnamed["context"].as_object_mut().unwrap().remove("agent");
    let (status, held) = server.post("/v1/check", Some(BOB), &unnamed).await;
    assert_eq!(
        (status, held["decision"].as_str()),
        (200, Some("escalate")),
        "{held}"
    );
    let id = held["approval"]["id"].as_str().unwrap();
    let (_, shown) = server
        .get(&format!("/v1/approvals/{id}"), Some(REVIEWER))
        .await;
    assert_eq!(shown["agent"], "deploy-bot", "{shown}");

    // A token of two agents names one of them.
    let mut carol = unnamed.clone();
    carol["context"]["principal"] = json!("carol@acme.com");
    let (status, body) = server.post("/v1/check", Some(CAROL), &carol).await;
    assert_eq!(
        (status, body["error"]["kind"].as_str()),
        (400, Some("agent-required")),
        "{body}"
    );
    carol["context"]["agent"] = json!("a2");
    let (status, body) = server.post("/v1/check", Some(CAROL), &carol).await;
    assert_eq!(
        (status, body["decision"].as_str()),
        (200, Some("escalate")),
        "{body}"
    );

    // AuthZEN names the agent in `subject.id`.
    let evaluation = json!({
        "subject": {"type": "agent", "id": "ci-bot", "properties": {"run_id": "r1"}},
        "action": {"name": "deploy"},
        "resource": {"type": "tool", "properties": {"arguments": {"env": "prod"}, "call_id": "c9"}},
    });
    let (status, body) = server
        .post("/access/v1/evaluation", Some(BOB), &evaluation)
        .await;
    assert_eq!(
        (status, body["error"]["kind"].as_str()),
        (403, Some("agent-forbidden")),
        "{body}"
    );
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("`subject.id`"),
        "{body}"
    );
    // Tokens without `agents` still name any agent no entry binds.
    let (status, body) = server
        .post(
            "/v1/check",
            Some(AGENT),
            &as_principal(&deploy, Some("dave@acme.com")),
        )
        .await;
    assert_eq!(
        (status, body["decision"].as_str()),
        (200, Some("escalate")),
        "{body}"
    );
    // Review s5 L1: but not an agent an entry binds, as for principals
    // (the unbound token's call was vetted as deploy-bot).
    let mut as_bound = as_principal(&deploy, Some("dave@acme.com"));
    as_bound["context"]["agent"] = json!("deploy-bot");
    let (status, body) = server.post("/v1/check", Some(AGENT), &as_bound).await;
    assert_eq!(
        (status, body["error"]["kind"].as_str()),
        (403, Some("agent-forbidden")),
        "{body}"
    );
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("`context.agent`")
            && message.contains("\"deploy-bot\"")
            && message.contains("\"deployer\""),
        "{message}"
    );
    assert!(!message.contains(AGENT), "{message}");
    let evaluation = json!({
        "subject": {"type": "agent", "id": "a1", "properties": {"run_id": "r1", "principal": "dave@acme.com"}},
        "action": {"name": "deploy"},
        "resource": {"type": "tool", "properties": {"arguments": {"env": "prod"}, "call_id": "c8"}},
    });
    let (status, body) = server
        .post("/access/v1/evaluation", Some(AGENT), &evaluation)
        .await;
    assert_eq!(
        (status, body["error"]["kind"].as_str()),
        (403, Some("agent-forbidden")),
        "{body}"
    );
    let (_, listed) = server.get("/v1/approvals", Some(REVIEWER)).await;
    assert!(
        listed["requests"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["agent"] != "deploy-bot" || r["principal"] == "bob@acme.com"),
        "{listed}"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_token_of_several_principals_must_name_one() {
    let fixture = Fixture::with(PolicyText {
        serve: format!(
            "watch = false\nagent_tokens = [{{ label = \"team\", sha256 = \"{}\", \
             principals = [\"bob@acme.com\", \"carol@acme.com\"] }}]",
            sha(BOB)
        ),
        ..PolicyText::default()
    });
    let server = fixture.start().await;
    let deploy = call("deploy", json!({"env": "prod"}), "c1", "r1");
    let (status, body) = server
        .post("/v1/check", Some(BOB), &as_principal(&deploy, None))
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["kind"], "principal-required");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("\"team\""),
        "{body}"
    );
    for principal in ["bob@acme.com", "carol@acme.com"] {
        let (status, held) = server
            .post(
                "/v1/check",
                Some(BOB),
                &as_principal(&deploy, Some(principal)),
            )
            .await;
        assert_eq!(
            (status, held["decision"].as_str()),
            (200, Some("escalate")),
            "{held}"
        );
    }
    let (status, body) = server
        .post(
            "/v1/check",
            Some(BOB),
            &as_principal(&deploy, Some("dave@acme.com")),
        )
        .await;
    assert_forbidden(status, &body, "context.principal", "\"team\"");
    server.stop().await;
}

#[tokio::test]
async fn a_bound_token_given_twice_stops_the_start() {
    let mut text = bound_policy();
    // Bob's token also unbound, in the table.
    text.serve = text.serve.replace(
        "watch = false",
        &format!("watch = false\nagent_tokens_sha256 = [\"{}\"]", sha(BOB)),
    );
    let rendered = text
        .render()
        .replace(&format!("agent_tokens_sha256 = [\"{}\"]\n", sha(AGENT)), "");
    let fixture = Fixture::new();
    std::fs::write(&fixture.policy, rendered).unwrap();
    let e = toolvet_serve::Server::bind(toolvet_serve::ServeOptions {
        config: fixture.policy.clone(),
        listen: Some(toolvet_serve::Listen::Tcp("127.0.0.1:0".parse().unwrap())),
    })
    .await
    .unwrap_err()
    .to_string();
    assert!(e.contains("given twice"), "{e}");
    assert!(
        e.contains("\"bob-laptop\"") && e.contains("agent_tokens_sha256[0]"),
        "{e}"
    );
    assert!(!e.contains(BOB) && !e.contains(&sha(BOB)), "{e}");
}

/// `n` new calls at once, alternating between `a` and `b`; how many
/// opened a request, and how many were denied for a pending limit.
async fn race(a: &Running, b: &Running, n: usize, run: impl Fn(usize) -> String) -> (usize, usize) {
    let calls: Vec<Value> = (0..n)
        .map(|i| {
            call(
                "deploy",
                json!({"n": i}),
                &format!("{}-{i}", run(i)),
                &run(i),
            )
        })
        .collect();
    let answers = futures_util::future::join_all(
        calls
            .iter()
            .enumerate()
            .map(|(i, c)| if i % 2 == 0 { a.check(c) } else { b.check(c) }),
    )
    .await;
    let (mut opened, mut refused) = (0, 0);
    for answer in answers {
        match answer["decision"].as_str() {
            Some("escalate") => opened += 1,
            Some("deny") => {
                assert_eq!(answer["rule"], "approval.too-many-pending", "{answer}");
                refused += 1;
            }
            _ => panic!("{answer}"),
        }
    }
    (opened, refused)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn openings_racing_on_two_replicas_never_pass_the_pending_limits() {
    let pg = Postgres::start();
    let fixture = Fixture::with(PolicyText {
        ledger: pg.url(),
        approvals: "max_pending = 6\nmax_pending_per_run = 4".into(),
        ..PolicyText::default()
    });
    let (a, b) = (fixture.start().await, fixture.start().await);
    assert_eq!(race(&a, &b, 24, |_| "r1".into()).await, (4, 20));
    assert_eq!(race(&a, &b, 24, |i| format!("r-{i}")).await, (2, 22));
    let (_, page) = b.get("/v1/approvals?status=pending", Some(REVIEWER)).await;
    assert_eq!(page["pending"]["total"], 6, "{page}");
    assert_eq!(page["requests"].as_array().unwrap().len(), 6);
    a.stop().await;
    b.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_postgres_ledger_keeps_and_checks_signed_decisions() {
    let pg = Postgres::start();
    let signer = toolvet::approval::ReviewerSigner::create(b"a long reviewer passphrase").unwrap();
    let fixture = Fixture::with(PolicyText {
        ledger: pg.url(),
        approvals: format!("reviewer_keys = [\"{}\"]", signer.public().entry()),
        ..PolicyText::default()
    });
    let (a, b) = (fixture.start().await, fixture.start().await);
    let policy = toolvet::Policy::from_file(&fixture.policy).unwrap();
    let approvals = toolvet_preset::open_approvals(&policy)
        .await
        .unwrap()
        .unwrap();
    let (db, connection) = tokio_postgres::connect(&pg.url(), tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);

    // Signed on a replica's ledger, resumed on the other: allowed once.
    let deploy = call("deploy", json!({"env": "prod"}), "c1", "r1");
    let held = a.check(&deploy).await;
    let id = held["approval"]["id"].as_str().unwrap().to_string();
    let (status, body) = b.decide(&id, "approve", None).await;
    assert_eq!(status, 400, "an unsigned approval is refused: {body}");
    let review =
        toolvet::approval::Review::approve("alice", toolvet::approval::Scope::Once).unwrap();
    let shown = approvals.get(&id).await.unwrap().review_sha256();
    approvals
        .decide_signed(&id, review, &signer, &shown)
        .await
        .unwrap();
    let allowed = b.check(&resumed(&deploy, &held)).await;
    assert_eq!(allowed["decision"], "allow", "{allowed}");
    assert_eq!(
        a.check(&resumed(&deploy, &held)).await["rule"],
        "approval.replayed"
    );

    // A row flipped by SQL, without a signature: nothing.
    let flip = "UPDATE toolvet_approval_requests SET status = 'approved', decision = 'approve', \
                reviewer = 'mallory', scope = $2, decided_at_ms = 1 WHERE id = $1";
    let other = call("deploy", json!({"env": "staging"}), "c2", "r1");
    let held2 = a.check(&other).await;
    let id2 = held2["approval"]["id"].as_str().unwrap().to_string();
    assert_eq!(db.execute(flip, &[&id2, &"once"]).await.unwrap(), 1);
    let denied = b.check(&resumed(&other, &held2)).await;
    assert_eq!(denied["decision"], "deny", "{denied}");
    assert_eq!(denied["rule"], "approval.unsigned-decision", "{denied}");
    // Nor with another request's signature copied next to it.
    db.execute(
        "INSERT INTO toolvet_approval_signed_decisions (id, token) \
         SELECT $2, token FROM toolvet_approval_signed_decisions WHERE id = $1",
        &[&id, &id2],
    )
    .await
    .unwrap();
    let denied = a.check(&resumed(&other, &held2)).await;
    assert_eq!(denied["rule"], "approval.unsigned-decision", "{denied}");
    // A run grant flipped by SQL lets no repeat through.
    let repeat = call("deploy", json!({"env": "dev"}), "c3", "r1");
    let held3 = a.check(&repeat).await;
    let id3 = held3["approval"]["id"].as_str().unwrap().to_string();
    assert_eq!(db.execute(flip, &[&id3, &"run"]).await.unwrap(), 1);
    let again = call("deploy", json!({"env": "dev"}), "c4", "r1");
    let denied = b.check(&again).await;
    assert_eq!(denied["rule"], "approval.unsigned-decision", "{denied}");
    a.stop().await;
    b.stop().await;
}

/// Review s15 N8: without reviewer keys, an approval through the API names
/// the request as the reviewer read it (`shown`, its `review_sha256`). A
/// ledger writer who rewrites the row between the reading and the click
/// (here: another held call's tool and arguments copied over it) gets a
/// 409, and the rewritten call is neither approved nor sealed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approval_names_the_request_as_read_and_a_rewritten_row_is_not_approved() {
    let pg = Postgres::start();
    let fixture = Fixture::with(PolicyText {
        ledger: pg.url(),
        ..PolicyText::default()
    });
    let server = fixture.start().await;
    let (db, connection) = tokio_postgres::connect(&pg.url(), tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);

    let staging = call("deploy", json!({"env": "staging"}), "c1", "r1");
    let held = server.check(&staging).await;
    let id = held["approval"]["id"].as_str().unwrap().to_string();
    let (_, read) = server
        .get(&format!("/v1/approvals/{id}"), Some(REVIEWER))
        .await;
    let shown = read["review_sha256"].as_str().unwrap().to_string();
    assert_eq!(shown.len(), 64, "{read}");

    // An approval that names nothing as read is refused.
    let path = format!("/v1/approvals/{id}/decision");
    let (status, body) = server
        .post(
            &path,
            Some(REVIEWER),
            &json!({"decision": "approve", "reviewer": "alice"}),
        )
        .await;
    assert_eq!(
        (status, body["error"]["kind"].as_str()),
        (400, Some("invalid-decision")),
        "{body}"
    );

    // The row is rewritten to another held call after the reviewer read it.
    let prod = call("deploy", json!({"env": "prod"}), "c2", "r1");
    let other = server.check(&prod).await;
    let other_id = other["approval"]["id"].as_str().unwrap().to_string();
    let rewrite = "UPDATE toolvet_approval_requests AS r SET arguments = o.arguments, \
                   arguments_sha256 = o.arguments_sha256 FROM toolvet_approval_requests AS o \
                   WHERE r.id = $1 AND o.id = $2";
    assert_eq!(db.execute(rewrite, &[&id, &other_id]).await.unwrap(), 1);
    let (status, body) = server
        .post(
            &path,
            Some(REVIEWER),
            &json!({"decision": "approve", "reviewer": "alice", "shown": shown}),
        )
        .await;
    assert_eq!(
        (status, body["error"]["kind"].as_str()),
        (409, Some("request-changed")),
        "{body}"
    );
    let (_, now) = server
        .get(&format!("/v1/approvals/{id}"), Some(REVIEWER))
        .await;
    assert_eq!(now["status"], "pending", "{now}");
    assert_ne!(now["review_sha256"], read["review_sha256"]);
    let sealed: i64 = db
        .query_one(
            "SELECT count(*) FROM toolvet_approval_signed_decisions WHERE id = $1",
            &[&id],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(sealed, 0, "nothing was sealed");

    // Read again, the reviewer decides what the row says now; a rejection
    // needs no `shown` (it only ever denies).
    let (status, body) = server.decide(&id, "reject", Some("not this")).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = server
        .post(
            &format!("/v1/approvals/{other_id}/decision"),
            Some(REVIEWER),
            &json!({"decision": "reject", "reviewer": "alice"}),
        )
        .await;
    assert_eq!(
        (status, body["status"].as_str()),
        (200, Some("rejected")),
        "{body}"
    );
    server.stop().await;
}

/// Review s20 T2: the unbound token opened requests as `"bob@acme.com "`,
/// `" bob@acme.com"` and `"BOB@acme.com"` beside Bob's bound principal,
/// and the page showed them as Bob's. Names with white space are refused;
/// a name that folds to a bound one is bound.
#[tokio::test]
async fn a_look_alike_of_a_bound_principal_opens_nothing() {
    let fixture = Fixture::with(bound_policy());
    let server = fixture.start().await;
    let deploy = call("rotate_keys", json!({"service": "billing"}), "c-t2", "r-t2");
    for spaced in [
        "bob@acme.com ",
        " bob@acme.com",
        "bob @acme.com",
        "bob@acme.com\t",
    ] {
        let (status, body) = server
            .post(
                "/v1/check",
                Some(AGENT),
                &as_principal(&deploy, Some(spaced)),
            )
            .await;
        assert_eq!(status, 400, "{spaced:?}: {body}");
        assert_eq!(body["error"]["kind"], "name-not-canonical", "{body}");
    }
    for folded in ["BOB@acme.com", "Bob@ACME.com", "bob\u{200b}@acme.com"] {
        let (status, body) = server
            .post(
                "/v1/check",
                Some(AGENT),
                &as_principal(&deploy, Some(folded)),
            )
            .await;
        assert_forbidden(status, &body, "context.principal", "\"bob-laptop\"");
    }
    let mut spaced_agent = as_principal(&deploy, Some("dave@acme.com"));
    spaced_agent["context"]["agent"] = json!("ci-bot ");
    let (status, body) = server.post("/v1/check", Some(AGENT), &spaced_agent).await;
    assert_eq!(status, 400, "{body}");
    let (_, pending) = server
        .get("/v1/approvals?status=pending", Some(REVIEWER))
        .await;
    assert!(!pending.to_string().contains("rotate_keys"), "{pending}");
    server.stop().await;
}
