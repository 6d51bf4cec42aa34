"""Approvals: escalate, a person decides, the call resumes with its ticket."""

from __future__ import annotations

import pytest

import toolvet
from policy import ESCALATED_TOOL, make_host

CALL = {"id": "call-1", "name": ESCALATED_TOOL, "arguments": {"env": "prod"}}
RUN = {"run_id": "run-1", "agent": "ops"}


def escalate(host):
    v = host.check(CALL, context=RUN)
    assert v.decision == "escalate" and v.rule == "policy.requires-approval"
    a = v.approval
    assert a.status == "pending" and a.id.startswith("apr_") and a.ticket.startswith("tv1.")
    assert a.escalations[0]["check"] == "tools"
    return v


def test_approve_then_resume_runs_once(host):
    v = escalate(host)
    # Asking again about the same call gives the same request and ticket.
    again = host.check(CALL, context=RUN)
    assert (again.approval.id, again.approval.ticket) == (v.approval.id, v.approval.ticket)

    pending = host.approvals.pending()
    assert [p.id for p in pending] == [v.approval.id]
    p = pending[0]
    assert (p.tool, p.call_id, p.run_id, p.agent, p.arguments) == (ESCALATED_TOOL, "call-1", "run-1", "ops", {"env": "prod"})
    assert p.reason and "deploy" in p.reason

    # Resuming before anyone decided still escalates.
    assert host.check(CALL, context=RUN, ticket=v.approval.ticket).decision == "escalate"

    decided = host.approvals.approve(v.approval.id, "alice", "ship it")
    assert (decided.status, decided.reviewer, decided.message) == ("approved", "alice", "ship it")
    assert host.approvals.pending() == []

    ok = host.check(CALL, context=RUN, ticket=v.approval.ticket)
    assert ok.decision == "allow" and ok.rule == "approval.approved"
    assert ok.reason == "approved by alice: ship it"
    assert ok.approval.status == "consumed" and ok.approval.ticket is None

    replay = host.check(CALL, context=RUN, ticket=v.approval.ticket)
    assert replay.decision == "deny" and replay.rule == "approval.replayed"
    assert host.approvals.get(v.approval.id).status == "consumed"
    assert [r.id for r in host.approvals.list("consumed")] == [v.approval.id]


def test_reject_gives_the_reviewers_message(host):
    v = escalate(host)
    host.approvals.reject(v.approval.id, "bob", "not on a Friday")
    r = host.check(CALL, context=RUN, ticket=v.approval.ticket)
    assert r.decision == "deny" and r.rule == "approval.rejected"
    assert r.reason == "bob rejected this call: not on a Friday"


def test_a_ticket_is_bound_to_its_call(host):
    v = escalate(host)
    host.approvals.approve(v.approval.id, "alice")
    other_args = dict(CALL, arguments={"env": "staging"})
    r = host.check(other_args, context=RUN, ticket=v.approval.ticket)
    assert r.decision == "deny" and r.rule == "approval.arguments-changed"
    r = host.check(CALL, context={"run_id": "run-2"}, ticket=v.approval.ticket)
    assert r.rule == "approval.run-mismatch"
    r = host.check(CALL, context=RUN, ticket=v.approval.ticket[:-4] + "AAAA")
    assert r.decision == "deny" and r.rule in ("approval.forged-ticket", "approval.malformed-ticket")
    assert host.check(CALL, context=RUN, ticket="garbage").rule == "approval.malformed-ticket"


def test_run_scope(host):
    v = escalate(host)
    host.approvals.approve(v.approval.id, "alice", scope="run")
    assert host.check(CALL, context=RUN, ticket=v.approval.ticket).decision == "allow"
    later = host.check(dict(CALL, id="call-2"), context=RUN)
    assert later.decision == "allow" and later.rule == "approval.run-scope"


def test_approval_errors(host):
    v = escalate(host)
    with pytest.raises(toolvet.ApprovalError) as e:
        host.approvals.approve("apr_" + "0" * 32, "alice")
    assert e.value.kind == "not-found" and "no approval request" in str(e.value)
    with pytest.raises(toolvet.ApprovalError) as e:
        host.approvals.approve(v.approval.id, "  ")
    assert e.value.kind == "invalid-review" and "`reviewer` is missing" in str(e.value)
    with pytest.raises(toolvet.ApprovalError) as e:
        host.approvals.approve(v.approval.id, "alice", scope="forever")
    assert e.value.kind == "invalid-review"
    host.approvals.reject(v.approval.id, "bob")
    with pytest.raises(toolvet.ApprovalError) as e:
        host.approvals.approve(v.approval.id, "alice")
    assert e.value.kind == "already-decided"
    assert str(e.value) == f"approval request `{v.approval.id}` was already rejected by bob; the first decision stands"
    with pytest.raises(toolvet.ApprovalError) as e:
        host.approvals.list("whatever")
    assert e.value.kind == "invalid-query"
    with pytest.raises(toolvet.ApprovalError):
        host.approvals.list(limit=0)


def test_sqlite_ledger_outlives_the_host(tmp_path):
    first = make_host(tmp_path, ledger="approvals.db")
    v = first.check(CALL, context=RUN)
    del first
    second = make_host(tmp_path, ledger="approvals.db")
    assert [p.id for p in second.approvals.pending()] == [v.approval.id]
    second.approvals.approve(v.approval.id, "alice")
    assert second.check(CALL, context=RUN, ticket=v.approval.ticket).decision == "allow"


def test_a_request_rewritten_after_it_was_shown_is_not_approved(tmp_path):
    """A review screen hands back the `review_sha256` it showed; a ledger row rewritten in between is not decided."""
    import sqlite3

    host = make_host(tmp_path, ledger="approvals.db")
    v = host.check(CALL, context=RUN)
    shown = host.approvals.get(v.approval.id)
    assert len(shown.review_sha256) == 64 and int(shown.review_sha256, 16) >= 0
    assert host.approvals.pending()[0].review_sha256 == shown.review_sha256
    with sqlite3.connect(tmp_path / "approvals.db") as db:
        db.execute("UPDATE approval_requests SET agent = 'someone-else' WHERE id = ?", (v.approval.id,))
    with pytest.raises(toolvet.ApprovalError) as e:
        host.approvals.approve(v.approval.id, "alice", shown=shown.review_sha256)
    assert e.value.kind == "changed"
    now = host.approvals.get(v.approval.id)
    assert (now.status, now.agent) == ("pending", "someone-else")
    assert now.review_sha256 != shown.review_sha256
    # What the person is shown now can be decided.
    assert host.approvals.approve(v.approval.id, "alice", shown=now.review_sha256).status == "approved"


def test_arguments_reach_the_ledger_exactly(host):
    """Strings are escaped exactly (quotes, backslashes, tab, newline and non-ASCII characters)."""
    args = {"note": 'a "quoted" \\ path\n\ttab \u2028 é 🚀', "n": [1, -2.5, 2**63 - 1, -(2**63), True, None], "empty": {}}
    v = host.check({"id": "esc-1", "name": ESCALATED_TOOL, "arguments": args}, context=RUN)
    assert v.decision == "escalate"
    assert host.approvals.get(v.approval.id).arguments == args
    # Other control characters are refused by the checks, before any request is opened.
    v = host.check({"id": "esc-2", "name": ESCALATED_TOOL, "arguments": {"note": "a\x01b"}}, context=RUN)
    assert (v.decision, v.rule) == ("deny", "input.control-character")
    assert [r.call_id for r in host.approvals.list("all")] == ["esc-1"]
