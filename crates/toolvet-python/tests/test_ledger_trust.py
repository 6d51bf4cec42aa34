"""Review s6 finding 4: the agent runs as the user, so a ledger row it flips
to ``approved`` must not resume a held call under a policy without reviewer
keys; only a decision recorded through this process (the adapter recording
the person's answer) counts. One rule with the hooks and ``toolvet mcp``
(``toolvet::approval::Approvals::guard_same_user`` in the core)."""

from __future__ import annotations

import sqlite3

from policy import ESCALATED_TOOL, make_host

CALL = {"id": "call-flip", "name": ESCALATED_TOOL, "arguments": {"env": "stage"}}


def flip(ledger, request_id):
    """What the agent's own code can do: SQL on the ledger file."""
    with sqlite3.connect(ledger) as db:
        changed = db.execute(
            "UPDATE approval_requests SET status = 'approved', decision = 'approve', reviewer = 'alice', "
            "scope = 'once', decided_at_ms = created_at_ms, consumed_at_ms = NULL WHERE id = ?",
            (request_id,),
        ).rowcount
    assert changed == 1


def test_a_row_flipped_to_approved_does_not_resume_the_call(tmp_path):
    ledger = str(tmp_path / "approvals.db")
    host = make_host(tmp_path, ledger=ledger)
    run = {"run_id": "run-flip"}
    held = host.check(CALL, context=run)
    assert held.decision == "escalate", held
    flip(ledger, held.approval.id)
    assert host.approvals.get(held.approval.id).status == "approved"
    resumed = host.check(CALL, context=run, ticket=held.approval.ticket)
    assert (resumed.decision, resumed.rule) == ("deny", "approval.unsigned-decision"), resumed
    assert "not recorded through this program" in resumed.reason


def test_an_answer_recorded_through_the_package_resumes_once_even_if_set_back(tmp_path):
    ledger = str(tmp_path / "approvals.db")
    host = make_host(tmp_path, ledger=ledger)
    run = {"run_id": "run-own"}
    held = host.check(CALL, context=run)
    host.approvals.approve(held.approval.id, "carol")
    ran = host.check(CALL, context=run, ticket=held.approval.ticket)
    assert (ran.decision, ran.rule) == ("allow", "approval.approved"), ran
    # Setting the consumed row back gains no second run (finding 9).
    flip(ledger, held.approval.id)
    again = host.check(CALL, context=run, ticket=held.approval.ticket)
    assert (again.decision, again.rule) == ("deny", "approval.replayed"), again


REVIEWER_KEY = "ed25519:rBMUVLEAJId_QysF-rKv52MVrJnKdyUmUbIUpqCuhKk:s8GQueKx1pa2T7outKYtIg"


def test_a_framework_approval_under_reviewer_keys_names_no_way_to_approve(tmp_path):
    """Review s12 L3: the core's refusal, written for the person ("approve with
    `toolvet approvals approve`, which asks for the reviewer's passphrase"),
    reached the model as the deny's message, under a ledger-outage rule."""
    import toolvet
    from policy import policy_text
    from toolvet.integrations._base import Gate

    text = policy_text().replace(
        'key_file = "approvals.key"\n', f'key_file = "approvals.key"\nreviewer_keys = ["{REVIEWER_KEY}"]\n', 1
    )
    assert "reviewer_keys" in text
    host = toolvet.Host.from_toml(text, base_dir=str(tmp_path), source=str(tmp_path / "toolvet.toml"))
    gate = Gate(host)
    held = gate.check(ESCALATED_TOOL, {"env": "prod"}, call_id="c1", run_id="r1")
    assert held.escalated, held
    ruling = gate.resume(ESCALATED_TOOL, {"env": "prod"}, approved=True, call_id="c1", run_id="r1", reviewer="bob")
    assert (ruling.allowed, ruling.rule) == (False, "approval.unsigned-decision"), ruling
    for named in ("toolvet approvals", "passphrase", "reviewer_keys", "--reviewer", "toolvet.toml"):
        assert named not in ruling.message, ruling.message
