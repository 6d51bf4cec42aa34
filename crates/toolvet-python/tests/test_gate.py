"""The adapters' shared gate: fail closed, idempotent on replay, resume once."""

from __future__ import annotations

import toolvet
from policy import ESCALATED_TOOL, PLUGINS, BrokenHost, make_host
from toolvet.integrations import Gate


def test_a_replayed_check_gets_the_same_request_and_an_approval_runs_once(host):
    gate = Gate(host)
    first = gate.check(ESCALATED_TOOL, {"env": "prod"}, call_id="c1", run_id="r1")
    assert first.escalated and first.ticket
    again = gate.check(ESCALATED_TOOL, {"env": "prod"}, call_id="c1", run_id="r1")  # a replayed hook
    assert (again.decision, again.approval_id, again.ticket) == ("escalate", first.approval_id, first.ticket)
    final = gate.resume(ESCALATED_TOOL, {"env": "prod"}, approved=True, call_id="c1", run_id="r1", reviewer="alice")
    assert final.allowed and final.rule == "approval.approved"
    assert host.approvals.get(first.approval_id).status == "consumed"
    # The framework replays the hook, or resumes the same approval again: this
    # process answers as a fresh one does, from the ledger: refused.
    replay = gate.check(ESCALATED_TOOL, {"env": "prod"}, call_id="c1", run_id="r1")
    assert (replay.decision, replay.rule) == ("deny", "approval.replayed")
    second = gate.resume(ESCALATED_TOOL, {"env": "prod"}, approved=True, call_id="c1", run_id="r1", reviewer="alice")
    assert (second.decision, second.rule) == ("deny", "approval.replayed")
    assert "approved once" in second.reason
    fresh = Gate(host).resume(ESCALATED_TOOL, {"env": "prod"}, approved=True, call_id="c1", run_id="r1")
    assert (fresh.decision, fresh.rule) == ("deny", "approval.replayed")
    assert [r.status for r in host.approvals.list("all")] == ["consumed"]


def test_a_run_scope_allow_is_asked_of_the_ledger_each_time(host):
    gate = Gate(host)
    first = gate.check(ESCALATED_TOOL, {"env": "prod"}, call_id="c1", run_id="r1")
    host.approvals.approve(first.approval_id, "alice", scope="run")
    for call_id in ("c1", "c2"):
        ruling = gate.resume(ESCALATED_TOOL, {"env": "prod"}, approved=True, call_id=call_id, run_id="r1")
        assert (ruling.decision, ruling.rule) == ("allow", "approval.run-scope")
        later = gate.check(ESCALATED_TOOL, {"env": "prod"}, call_id=call_id, run_id="r1")
        assert (later.decision, later.rule) == ("allow", "approval.run-scope")
        assert gate._cache.get(("r1", call_id)) is None  # never answered from memory


def test_a_framework_rejection_after_a_toolvet_approval_runs_nothing_and_spends_nothing(host):
    gate = Gate(host)
    first = gate.check(ESCALATED_TOOL, {"env": "prod"}, call_id="c1", run_id="r1")
    host.approvals.approve(first.approval_id, "carol", "ship it")
    for ruling in (
        gate.resume(ESCALATED_TOOL, {"env": "prod"}, approved=False, call_id="c1", run_id="r1", reviewer="bob", message="not now"),
        gate.reject(ESCALATED_TOOL, {"env": "prod"}, call_id="c1", run_id="r1", reviewer="bob", message="not now"),
    ):
        assert (ruling.decision, ruling.rule, ruling.reason) == ("deny", "approval.rejected", "bob rejected this call: not now")
        assert ruling.message == "Blocked by policy: bob rejected this call: not now"
    request = host.approvals.get(first.approval_id)
    assert (request.status, request.reviewer) == ("approved", "carol")
    # A rejection while the request waits is recorded in the ledger.
    other = gate.check(ESCALATED_TOOL, {"env": "stage"}, call_id="c2", run_id="r1")
    assert gate.reject(ESCALATED_TOOL, {"env": "stage"}, call_id="c2", run_id="r1").reason == "reviewer rejected this call"
    request = host.approvals.get(other.approval_id)
    assert (request.status, request.reviewer) == ("rejected", "reviewer")


def test_a_reused_call_id_with_other_arguments_is_not_answered_from_memory(host):
    gate = Gate(host)
    assert gate.check(ESCALATED_TOOL, {"env": "prod"}, call_id="c1", run_id="r1").escalated
    other = gate.check(ESCALATED_TOOL, {"env": "staging"}, call_id="c1", run_id="r1")
    assert other.denied and other.rule == "approval.call-id-reused"


def test_failures_are_denies():
    gate = Gate(BrokenHost())
    ruling = gate.check("get_weather", {"city": "Paris"}, call_id="c1")
    assert ruling.denied and ruling.rule == "toolvet.host-error" and "the policy host is down" in ruling.reason
    assert gate.resume("deploy", {}, approved=True, call_id="c2").denied


def test_arguments_that_are_not_json_are_a_deny(host):
    gate = Gate(host)
    assert gate.check("get_weather", '{"city": ', call_id="c1").rule == "toolvet.invalid-call"
    assert gate.check("get_weather", ["not", "an", "object"]).rule == "toolvet.invalid-call"
    assert gate.check("get_weather", {"when": object()}).denied
    assert gate.check("get_weather", '{"city": "Paris"}').allowed  # JSON text is fine


def test_escalate_without_approvals_is_a_deny(tmp_path):
    from policy import PLUGINS

    host = toolvet.Host.from_toml(
        f'[[check]]\nname = "t"\nplugin = "{PLUGINS / "tool_policy.wasm"}"\n[check.settings]\napprove = ["deploy"]\n', base_dir=str(tmp_path)
    )
    ruling = Gate(host).check("deploy", {}, call_id="c1")
    assert ruling.denied and "no [approvals] table" in ruling.reason


def test_a_decision_in_the_ledger_stands_over_the_frameworks_answer(host):
    gate = Gate(host)
    first = gate.check(ESCALATED_TOOL, {}, call_id="c1", run_id="r")
    host.approvals.reject(first.approval_id, "carol", "no")
    final = gate.resume(ESCALATED_TOOL, {}, approved=True, call_id="c1", run_id="r")
    assert final.denied and final.reason == "carol rejected this call: no"


class PerAgentHost:
    """A host whose policy tells agents apart: `ops` may call anything, others nothing."""

    approvals = None

    def check(self, call, tool=None, context=None, *, ticket=None):
        from types import SimpleNamespace

        agent = (context or {}).get("agent")
        if agent == "ops":
            return SimpleNamespace(decision="allow", reason=None, rule=None, approval=None)
        return SimpleNamespace(decision="deny", reason=f"{agent} may not call {call.name}", rule="tools.agent", approval=None)


def test_a_remembered_ruling_is_given_only_to_the_agent_it_was_given_to():
    gate = Gate(PerAgentHost())
    assert gate.check("deploy", {}, call_id="c1", run_id="r1", agent="ops").allowed
    other = gate.check("deploy", {}, call_id="c1", run_id="r1", agent="intern")
    assert (other.decision, other.reason) == ("deny", "intern may not call deploy")
    assert gate.check("deploy", {}, call_id="c1", run_id="r1", agent="ops").allowed


def test_visible_writes_out_what_a_person_would_not_see():
    from toolvet.integrations import visible

    assert visible("plain text, é") == "plain text, é"
    assert visible("ok\nallow  bash\x1b]0;t\x07\x00\r\t") == "ok\\nallow  bash\\x1b]0;t\\x07\\x00\\r\\t"
    assert visible("a\u202eb\u2066c\u200bd\u2028e\ufeff\U000e0041\ufe0f\x7f\x9b") == (
        "a\\u{202e}b\\u{2066}c\\u{200b}d\\u{2028}e\\u{feff}\\u{e0041}\\u{fe0f}\\x7f\\x9b"
    )
    assert visible(None) == ""


def test_the_decision_tool_opens_no_approval_request_a_person_could_approve(host):
    from toolvet.integrations._base import PREVIEW_REVIEWER, decision_answer

    answer = decision_answer(Gate(host), ESCALATED_TOOL, {"env": "decision-tool-only"})
    assert answer["status"] == "escalate" and "opened no approval request" in answer["answer"]
    assert host.approvals.pending() == []
    # With a host that cannot preview, the request that ask opened was withdrawn
    # at once, in a run no real call has: no one can approve it into a real call.
    if not callable(getattr(host, "preview", None)):
        [withdrawn] = host.approvals.list(status="rejected")
        assert withdrawn.reviewer == PREVIEW_REVIEWER and withdrawn.run_id.startswith("toolvet-preview:")
    # The real call is held as a call of its own, in its own run.
    real = Gate(host).check(ESCALATED_TOOL, {"env": "decision-tool-only"}, run_id=None)
    assert real.escalated and [r.id for r in host.approvals.pending()] == [real.approval_id]
    assert decision_answer(Gate(host), "delete_repository", {})["status"] == "deny"
    assert decision_answer(Gate(host), "get_weather", {"city": "Paris"})["status"] == "allow"


SEQUENCE = f"""
[[check]]
name = "sequence"
isolation = "reuse"
plugin = "{PLUGINS / 'sequence_guard.wasm'}"
[check.settings]
max_calls = [{{ tools = "pay_invoice", max = 2 }}]
only_after = [{{ tool = "release", after = ["run_tests"] }}]
loop_detection = {{ enabled = false }}
"""


def test_the_gate_hands_each_run_its_history_so_run_rules_hold(tmp_path):
    host = make_host(tmp_path, extra=SEQUENCE)
    gate = Gate(host)
    pay = {"amount": 99, "currency": "USD"}
    assert gate.check("release", {}, call_id="r0", run_id="a").rule == "sequence.only-after"
    assert gate.check("run_tests", {}, call_id="t1", run_id="a").allowed
    assert gate.check("release", {}, call_id="r1", run_id="a").allowed  # run_tests ran in this run
    assert [gate.check("pay_invoice", pay, call_id=f"p{i}", run_id="a").decision for i in range(3)] == ["allow", "allow", "deny"]
    # A framework replaying its hook about the same call adds nothing.
    assert gate.check("pay_invoice", pay, call_id="p0", run_id="a").allowed
    assert [e["outcome"] for e in gate.history("a") if e["name"] == "pay_invoice"] == ["allowed", "allowed", "denied"]
    # Another run starts from its own history.
    assert gate.check("pay_invoice", pay, call_id="p0", run_id="b").allowed
    assert gate.check("release", {}, call_id="r0", run_id="b").rule == "sequence.only-after"


def test_a_held_call_approved_later_counts_once(tmp_path):
    host = make_host(tmp_path, extra=SEQUENCE)
    gate = Gate(host)
    held = gate.check(ESCALATED_TOOL, {"env": "prod"}, call_id="c1", run_id="r")
    assert held.escalated and gate.history("r")[-1]["outcome"] == "escalated"
    assert gate.resume(ESCALATED_TOOL, {"env": "prod"}, approved=True, call_id="c1", run_id="r", reviewer="alice").allowed
    assert [(e["name"], e["outcome"]) for e in gate.history("r")] == [(ESCALATED_TOOL, "approved")]
    gate.check(ESCALATED_TOOL, {"env": "stage"}, call_id="c2", run_id="r")
    gate.reject(ESCALATED_TOOL, {"env": "stage"}, call_id="c2", run_id="r", reviewer="bob")
    assert [e["outcome"] for e in gate.history("r")] == ["approved", "rejected"]


def test_a_full_history_refuses_the_call_and_large_arguments_are_elided(tmp_path):
    host = make_host(tmp_path, extra=SEQUENCE)
    gate = Gate(host, max_history=3)
    memo = "x" * 10_000
    for i in range(3):
        assert gate.check("write_note", {"path": f"n{i}", "memo": memo}, call_id=f"w{i}", run_id="r").allowed
    [first, *_] = gate.history("r")
    assert first["arguments"]["path"] == "n0" and first["arguments"]["memo"].startswith("toolvet.elided: 10002 bytes")
    assert first["arguments"]["toolvet.elided"]["bytes"] > 10_000
    full = gate.check("get_weather", {"city": "Paris"}, call_id="g", run_id="r")
    assert (full.decision, full.rule) == ("deny", "toolvet.history-overflow")
    assert len(gate.history("r")) == 3  # nothing dropped, nothing added
