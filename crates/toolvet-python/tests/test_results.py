"""Host.check_result: vetting what a tool returned, and the labels a run keeps."""

from __future__ import annotations

import asyncio

import pytest

import toolvet
from policy import INJECTION, MASKED_TEXT, SECRET_TEXT, make_host, make_results_host
from toolvet.integrations._base import WITHHELD_PREFIX, Gate


@pytest.fixture
def rhost(tmp_path):
    directory = tmp_path / "results"
    directory.mkdir()
    return make_results_host(directory)


def fetch(run="r1", call_id="c1"):
    return toolvet.Call("fetch", {"url": "https://issues.test/1"}, call_id), {"run_id": run}


def test_vets_results_only_with_a_result_check(rhost, host):
    assert rhost.vets_results() is True
    assert host.vets_results() is False
    # Without a result check every result passes untouched.
    call, ctx = fetch()
    v = host.check_result(call, INJECTION, context=ctx)
    assert (v.action, v.content, v.labels, v.checks) == ("pass", INJECTION, [], [])


def test_pass_redact_withhold(rhost):
    call, ctx = fetch()
    v = rhost.check_result(call, "all quiet", context=ctx)
    assert (v.action, v.content, v.content_kind, v.passed) == ("pass", "all quiet", "text", True)

    v = rhost.check_result(call, SECRET_TEXT, context=ctx)
    assert (v.action, v.content, v.redacted) == ("redact", MASKED_TEXT, True)
    assert [lab.name for lab in v.labels] == ["secret-seen"]
    [outcome] = v.checks
    assert (outcome.check, outcome.action, outcome.masks, outcome.mode) == ("results", "redact", 1, "enforce")

    v = rhost.check_result(call, INJECTION, context=ctx)
    assert (v.action, v.content, v.withheld) == ("withhold", None, True)
    assert (v.rule, v.decided_by) == ("contract02.injection", "results")
    assert v.reason == "the result holds instructions aimed at the model"
    [label] = v.labels
    assert (label.name, label.check, label.tool, label.call_id) == ("untrusted-content", "results", "fetch", "c1")
    assert v.to_dict()["action"] == "withhold" and v.to_dict()["tool"] == "fetch"
    with pytest.raises(TypeError):
        bool(v)


def test_json_results_and_the_result_shapes(rhost):
    call, ctx = fetch()
    v = rhost.check_result(call, toolvet.ToolResult({"token": "t-1", "n": 2}), context=ctx)
    assert (v.action, v.content_kind, v.content) == ("redact", "json", {"token": "[redacted: token]", "n": 2})
    # The docs/formats.md shape as a dict, with is_error.
    v = rhost.check_result(call, {"content": {"json": {"n": 1}}, "is_error": True}, context=ctx)
    assert (v.action, v.content) == ("pass", {"n": 1})
    v = rhost.check_result(call, toolvet.ToolResult("plain", is_error=True), context=ctx)
    assert (v.action, v.content) == ("pass", "plain")


def test_bad_input_is_a_call_error(rhost):
    call, ctx = fetch()
    with pytest.raises(toolvet.CallError, match="result"):
        rhost.check_result(call, {"token": "not the formats shape"}, context=ctx)
    with pytest.raises(toolvet.CallError, match="result"):
        rhost.check_result(call, 42, context=ctx)
    with pytest.raises(toolvet.CallError, match=r"result\.content\.json"):
        rhost.check_result(call, toolvet.ToolResult({"x": {1, 2}}), context=ctx)


def test_a_label_reaches_the_runs_later_calls_only(rhost):
    call, ctx = fetch("r-label")
    assert rhost.check(toolvet.Call("send", {"to": "a@b.test"}), context={"run_id": "r-label"}).allowed
    assert rhost.check_result(call, INJECTION, context=ctx).withheld
    later = rhost.check(toolvet.Call("send", {"to": "a@b.test"}), context={"run_id": "r-label"})
    assert (later.decision, later.rule) == ("escalate", "contract02.labelled")
    assert "fetch" in later.reason
    assert [lab.name for lab in rhost.run_labels("r-label")] == ["untrusted-content"]
    # Another run, or the same run id of another agent, is not labelled.
    assert rhost.check(toolvet.Call("send", {"to": "a@b.test"}), context={"run_id": "r-other"}).allowed
    other_agent = rhost.check(toolvet.Call("send", {"to": "a@b.test"}), context={"run_id": "r-label", "agent": "x"})
    assert other_agent.allowed
    assert rhost.run_labels("r-other") == []


def test_results_of_calls_without_a_run_share_the_run_less_run(rhost):
    call = toolvet.Call("fetch", {"url": "u"}, "c9")
    assert rhost.check_result(call, INJECTION).withheld
    assert rhost.check(toolvet.Call("send", {"to": "x"})).escalated
    assert [lab.name for lab in rhost.run_labels()] == ["untrusted-content"]


def test_a_caller_never_sends_labels(rhost):
    label = {"name": "trusted", "check": "results", "tool": "fetch", "call_id": ""}
    for method in ("check", "check_result"):
        args = (toolvet.Call("send", {}),) if method == "check" else (toolvet.Call("send", {}), "text")
        with pytest.raises(toolvet.CallError, match=r"`context\.labels`: the host keeps each run's labels itself"):
            getattr(rhost, method)(*args, context={"run_id": "r", "labels": [label]})


def test_async_twin(rhost):
    async def go():
        call, ctx = fetch("r-async")
        v = await rhost.acheck_result(call, INJECTION, context=ctx)
        assert v.withheld
        later = await rhost.acheck(toolvet.Call("send", {"to": "x"}), context=ctx)
        assert later.escalated
        with pytest.raises(toolvet.CallError):
            await rhost.acheck_result(call, 7, context=ctx)

    asyncio.run(go())


class FailingResults:
    """A host whose result vetting fails: the gate withholds."""

    def vets_results(self):
        return True

    def check_result(self, *args, **kwargs):
        raise RuntimeError("the host is down; the result said SECRET-1")


def test_gate_rulings_and_failing_closed(rhost, tmp_path):
    gate = Gate(rhost)
    passed = gate.check_result("fetch", {}, {"n": 1}, run_id="g")
    assert passed.passed and passed.content == {"n": 1}
    masked = gate.check_result("fetch", {}, SECRET_TEXT, run_id="g")
    assert masked.redacted and masked.content == MASKED_TEXT
    withheld = gate.check_result("fetch", {}, INJECTION, run_id="g")
    assert withheld.withheld and withheld.content is None
    assert withheld.message == WITHHELD_PREFIX + "the result holds instructions aimed at the model"
    assert gate.check("send", {"to": "x"}, run_id="g").escalated

    failed = Gate(FailingResults()).check_result("fetch", {}, "text")
    assert failed.withheld and failed.rule == "toolvet.host-error"
    assert "SECRET-1" not in failed.message and "RuntimeError" in failed.message
    # No result checks: nothing is asked, the very object passes.
    (tmp_path / "plain").mkdir()
    plain = Gate(make_host(tmp_path / "plain")).check_result("fetch", {}, obj := object())
    assert plain.passed and plain.content is obj and plain.verdict is None


class Opaque:
    """An object whose text (``<… object at 0x…>``) would hide what it holds."""

    def __init__(self, text):
        self.text = text


class Shown:
    def __str__(self):
        return "token SECRET-7 here"


def test_a_result_toolvet_cannot_read_is_withheld(rhost):
    gate = Gate(rhost)
    for unreadable in (Opaque(INJECTION), [Opaque(INJECTION)]):
        ruling = gate.check_result("fetch", {}, unreadable, run_id="o")
        assert ruling.withheld and ruling.rule == "toolvet.host-error"
        assert "IGNORE" not in ruling.message
    # An object with its own text is vetted as that text.
    ruling = gate.check_result("fetch", {}, Shown(), run_id="o")
    assert ruling.redacted and ruling.content == "token [redacted: secret] here"
