"""The adapters' shared gate: fail closed, idempotent on replay, resume once."""

from __future__ import annotations

import toolvet
from policy import BrokenHost, ESCALATED_TOOL
from toolvet.integrations import Gate


def test_replayed_checks_get_the_same_ruling_and_resume_is_idempotent(host):
    gate = Gate(host)
    first = gate.check(ESCALATED_TOOL, {"env": "prod"}, call_id="c1", run_id="r1")
    assert first.escalated and first.ticket
    assert gate.check(ESCALATED_TOOL, {"env": "prod"}, call_id="c1", run_id="r1") is first  # a replayed hook
    final = gate.resume(ESCALATED_TOOL, {"env": "prod"}, approved=True, call_id="c1", run_id="r1", reviewer="alice")
    assert final.allowed and final.rule == "approval.approved"
    # The framework replays the hook again, or resumes twice: still allowed, the ticket used once.
    assert gate.check(ESCALATED_TOOL, {"env": "prod"}, call_id="c1", run_id="r1") is final
    assert gate.resume(ESCALATED_TOOL, {"env": "prod"}, approved=True, call_id="c1", run_id="r1") is final
    assert [r.status for r in host.approvals.list("all")] == ["consumed"]
    # Without the gate's memory the host refuses the used ticket.
    again = host.check({"id": "c1", "name": ESCALATED_TOOL, "arguments": {"env": "prod"}}, context={"run_id": "r1"}, ticket=first.ticket)
    assert again.rule == "approval.replayed"


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
