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
    # A framework's look before the tool runs adds nothing.
    assert gate.probe("pay_invoice", pay, call_id="p9", run_id="a").denied
    assert [e["outcome"] for e in gate.history("a") if e["name"] == "pay_invoice"] == ["allowed", "allowed", "denied"]
    # Another run starts from its own history.
    assert gate.check("pay_invoice", pay, call_id="p0", run_id="b").allowed
    assert gate.check("release", {}, call_id="r0", run_id="b").rule == "sequence.only-after"


def test_a_call_id_a_provider_reuses_for_other_calls_adds_each_call(tmp_path):
    """Review s14 N1: some providers number calls per turn (`call_0` every turn), so
    one run's call id recurs with other arguments. Each such call is recorded, so the
    run total holds; a held call whose id a later call reuses stays held."""
    host = make_host(tmp_path, extra=SEQUENCE)
    gate = Gate(host)
    decisions = [
        gate.check("pay_invoice", {"amount": 99, "currency": "USD", "invoice": f"INV-{i}"}, call_id="call_0", run_id="a").decision
        for i in range(3)
    ]
    assert decisions == ["allow", "allow", "deny"]
    assert [e["outcome"] for e in gate.history("a")] == ["allowed", "allowed", "denied"]
    held = gate.check(ESCALATED_TOOL, {"env": "prod"}, call_id="call_1", run_id="b")
    assert held.escalated
    assert gate.check("run_tests", {}, call_id="call_1", run_id="b").allowed
    assert [(e["name"], e["outcome"]) for e in gate.history("b")] == [(ESCALATED_TOOL, "escalated"), ("run_tests", "allowed")]


def test_an_identical_call_under_a_reused_call_id_counts_again(tmp_path):
    """Review s15 N2: a provider that numbers calls per turn sends `call_0` with the
    same arguments every turn. Each is a payment: the run limit holds, and a look
    before the tool runs (`probe`) adds nothing."""
    host = make_host(tmp_path, extra=SEQUENCE)
    gate = Gate(host)
    pay = {"amount": 99, "currency": "USD"}
    decisions = []
    for _ in range(40):
        assert gate.probe("pay_invoice", pay, call_id="call_0", run_id="a").decision in ("allow", "deny")
        decisions.append(gate.check("pay_invoice", pay, call_id="call_0", run_id="a").decision)
    assert decisions == ["allow", "allow"] + ["deny"] * 38
    assert [e["outcome"] for e in gate.history("a")] == ["allowed", "allowed"] + ["denied"] * 38
    # A held call asked about again while it waits is still one entry.
    for _ in range(3):
        assert gate.check(ESCALATED_TOOL, {"env": "prod"}, call_id="call_0", run_id="b").escalated
    assert [e["outcome"] for e in gate.history("b")] == ["escalated"]


def test_a_resume_of_a_call_toolvet_does_not_hold_counts_in_the_run(tmp_path):
    """Review s16 P11: the framework reports every later call of a tool approved
    (OpenAI's `always_approve`, a reused call id); the calls the policy plainly
    allows go through `resume` and each counts, so the run limit holds."""
    host = make_host(tmp_path, extra=SEQUENCE)
    gate = Gate(host)
    pay = {"amount": 99, "currency": "USD"}
    decisions = [
        gate.resume("pay_invoice", pay, approved=True, call_id="call_0", run_id="a", reviewer="sdk").decision
        for _ in range(5)
    ]
    assert decisions == ["allow", "allow", "deny", "deny", "deny"]
    assert [e["outcome"] for e in gate.history("a")] == ["allowed", "allowed", "denied", "denied", "denied"]


def test_a_probe_adds_only_a_held_call_which_its_resume_settles(tmp_path):
    host = make_host(tmp_path, extra=SEQUENCE)
    gate = Gate(host)
    assert gate.probe("run_tests", {}, call_id="t1", run_id="r").allowed
    assert gate.history("r") == []
    held = gate.probe(ESCALATED_TOOL, {"env": "prod"}, call_id="c1", run_id="r")
    assert held.escalated and held.ticket
    assert gate.check(ESCALATED_TOOL, {"env": "prod"}, call_id="c1", run_id="r").approval_id == held.approval_id
    assert [e["outcome"] for e in gate.history("r")] == ["escalated"]
    assert gate.resume(ESCALATED_TOOL, {"env": "prod"}, approved=True, call_id="c1", run_id="r", reviewer="alice").allowed
    assert [(e["name"], e["outcome"]) for e in gate.history("r")] == [(ESCALATED_TOOL, "approved")]


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


def test_a_full_gate_refuses_a_new_run_rather_than_forget_a_busy_one(tmp_path, monkeypatch):
    """Review s23 F8: a gate keeping `max_runs` runs forgot the least recently used
    one, busy or not, and its run totals restarted (3960 USD paid under a 2000 USD
    run limit). A run is forgotten only after `RUN_IDLE_SECONDS` unused; until then
    a new run's call is refused, as `toolvet serve` does."""
    from toolvet.integrations import _base

    host = make_host(tmp_path, extra=SEQUENCE)
    gate = Gate(host, max_runs=2)
    pay = {"amount": 99, "currency": "USD"}
    assert [gate.check("pay_invoice", pay, call_id=f"p{i}", run_id="a").decision for i in range(2)] == ["allow", "allow"]
    assert gate.check("run_tests", {}, call_id="t", run_id="b").allowed
    refused = gate.check("run_tests", {}, call_id="t", run_id="c")
    assert (refused.decision, refused.rule) == ("deny", "toolvet.too-many-runs")
    assert "max_runs" in refused.reason and gate.history("c") == []
    # Run "a" keeps its history: its limit still holds.
    assert gate.check("pay_invoice", pay, call_id="p2", run_id="a").decision == "deny"
    # Once a run has been idle long enough, a new run takes its place.
    now = _base.time.monotonic()
    monkeypatch.setattr(_base.time, "monotonic", lambda: now + _base.RUN_IDLE_SECONDS + 1)
    gate._used["a"] = now + _base.RUN_IDLE_SECONDS + 1  # "a" was just used; "b" is idle
    assert gate.check("run_tests", {}, call_id="t", run_id="c").allowed
    assert gate.history("b") == [] and len(gate.history("a")) == 3


# -- plain arguments: what is vetted is a plain copy, made once (review-s11 K2) --

import dataclasses  # noqa: E402
import enum  # noqa: E402

import pytest  # noqa: E402

from toolvet.integrations._base import MAX_ARGUMENT_DEPTH, plain_arguments, vet_call  # noqa: E402


class _Str(str):
    def __str__(self):
        return "rm -rf /"


class _Int(int):
    pass


class _Float(float):
    pass


class _List(list):
    pass


class _Tuple(tuple):
    pass


class _Dict(dict):
    pass


@pytest.mark.parametrize(
    ("value", "where", "cls", "base"),
    [
        (_Str("ls"), "`x`", "_Str", "str"),
        (_Int(3), "`x`", "_Int", "int"),
        (_Float(1.5), "`x`", "_Float", "float"),
        (_List(["ls"]), "`x`", "_List", "list"),
        (_Tuple(("ls",)), "`x`", "_Tuple", "tuple"),
        (_Dict(a=1), "`x`", "_Dict", "dict"),
        ({"a": [1, {"b": _Str("deep")}]}, '`x`["a"][1]["b"]', "_Str", "str"),
    ],
)
def test_a_subclass_of_a_json_type_is_refused_not_converted(shared_host, value, where, cls, base):
    with pytest.raises(toolvet.CallError) as e:
        plain_arguments({"x": value})
    assert f"invalid tool call: {where} is a {cls}, a subclass of {base}" in str(e.value)
    ruling = Gate(shared_host).check("get_weather", {"x": value})
    assert (ruling.decision, ruling.rule) == ("deny", "toolvet.invalid-call")
    # The arguments object itself, too (a dict subclass, or JSON text in a str subclass).
    for top in (_Dict(city="Paris"), _Str('{"city": "Paris"}')):
        ruling = Gate(shared_host).check("get_weather", top)
        assert (ruling.decision, ruling.rule) == ("deny", "toolvet.invalid-call"), top


class _Unit(str, enum.Enum):
    C = "celsius"


class _Level(enum.IntEnum):
    HIGH = 3


@dataclasses.dataclass
class _Where:
    city: str
    days: tuple


def test_plain_arguments_is_a_new_copy_of_exact_json_types():
    pydantic = pytest.importorskip("pydantic")

    class Model(pydantic.BaseModel):
        unit: _Unit
        n: int

    source = {"a": ["x", ("y", 1)], "b": {"c": None, "d": True, "e": 2.5}}
    copy = plain_arguments(source)
    assert copy == {"a": ["x", ["y", 1]], "b": {"c": None, "d": True, "e": 2.5}}
    source["a"].append("later")
    source["b"]["c"] = "later"
    assert copy == {"a": ["x", ["y", 1]], "b": {"c": None, "d": True, "e": 2.5}}  # not shared
    # Values frameworks validate from JSON keep working: enums, models, dataclasses.
    got = plain_arguments({"u": _Unit.C, "l": _Level.HIGH, "m": Model(unit="celsius", n=2), "w": _Where("Paris", (1, 2))})
    assert got == {"u": "celsius", "l": 3, "m": {"unit": "celsius", "n": 2}, "w": {"city": "Paris", "days": [1, 2]}}
    assert [type(v) for v in (got["u"], got["l"])] == [str, int]
    assert plain_arguments('{"a": [1]}') == {"a": [1]} and plain_arguments(None) == {}
    with pytest.raises(toolvet.CallError, match="a key of type int"):
        plain_arguments({"a": {1: "x"}})
    with pytest.raises(toolvet.CallError, match="is a set"):
        plain_arguments({"a": {1, 2}})
    with pytest.raises(toolvet.CallError, match="the arguments are not JSON: `a` is a bytes$"):
        plain_arguments({"a": b"x"})
    cycle: list = []
    cycle.append(cycle)
    with pytest.raises(toolvet.CallError, match=f"nests deeper than {MAX_ARGUMENT_DEPTH} levels"):
        plain_arguments({"a": cycle})


def test_the_gate_reads_a_callers_object_once():
    """A value read through a method (a model's model_dump) is read once per ruling:
    the fingerprint, the host's call and the run's history all see that one copy."""
    reads = []

    class Shifty:
        def model_dump(self, mode=None):
            reads.append(mode)
            return {"command": "ls" if len(reads) == 1 else "rm -rf /home/alice"}

    seen = []

    class Recorder:
        approvals = None

        def check(self, call, *args, **kwargs):
            seen.append(call.arguments)
            return _allow()

    gate = Gate(Recorder())
    ruling = gate.check("bash", {"spec": Shifty()}, call_id="c1", run_id="r1")
    assert ruling.allowed and reads == ["json"]
    assert seen == [{"spec": {"command": "ls"}}]
    assert [e["arguments"] for e in gate.history("r1")] == [{"spec": {"command": "ls"}}]


def _allow():
    class V:
        decision, reason, rule, approval = "allow", "", None, None

    return V()


def test_vet_call_hands_back_the_copy_it_vetted(shared_host):
    source = {"city": "Paris", "days": ("mon",)}
    ruling, plain = vet_call(Gate(shared_host), "get_weather", source, run_id="r")
    assert ruling.allowed and plain == {"city": "Paris", "days": ["mon"]} and plain is not source
    ruling, plain = vet_call(Gate(shared_host), "get_weather", {"city": _Str("Paris")})
    assert (ruling.decision, ruling.rule, plain) == ("deny", "toolvet.invalid-call", {})


def test_an_invalid_call_is_denied_and_not_recorded_so_the_run_goes_on(shared_host):
    # review s22 F3: one rule with the Node Gate: a call the host refuses as
    # invalid ran nothing and adds nothing to the run's history.
    gate = Gate(shared_host)
    folded = gate.check("read_file", {"path": "README.md", "PATH": "x"}, run_id="r-f3")
    assert (folded.decision, folded.rule) == ("deny", "toolvet.invalid-call")
    assert "`path` and `PATH`" in folded.reason
    nan = gate.check("pay", '{"amount": NaN}', run_id="r-f3")
    assert (nan.decision, nan.rule) == ("deny", "toolvet.invalid-call")
    assert gate.history("r-f3") == []
    later = gate.check("get_weather", {"city": "Paris"}, run_id="r-f3")
    assert later.allowed, later.reason
    assert [(e["name"], e["outcome"]) for e in gate.history("r-f3")] == [("get_weather", "allowed")]
    # check_held, resume and reject follow the same rule.
    for ruling in (
        gate.check_held("read_file", {"path": "a", "PATH": "b"}, run_id="r-f3"),
        gate.resume("read_file", {"path": "a", "PATH": "b"}, approved=True, run_id="r-f3"),
    ):
        assert (ruling.decision, ruling.rule) == ("deny", "toolvet.invalid-call")
    assert len(gate.history("r-f3")) == 1
    assert gate.check("get_weather", {"city": "Oslo"}, run_id="r-f3").allowed


def test_argument_text_with_a_key_twice_is_refused_in_either_order(shared_host):
    # review s22 F5: json.loads keeps the last copy; the hooks' strict reader
    # refuses the text, and so does the gate.
    gate = Gate(shared_host)
    for text in (
        '{"command": "rm -rf ~", "command": "ls"}',
        '{"command": "ls", "command": "rm -rf ~"}',
        '{"opts": {"a": 1, "a": 2}, "command": "ls"}',
    ):
        ruling = gate.check("bash", text, run_id="r-f5")
        assert (ruling.decision, ruling.rule) == ("deny", "toolvet.invalid-call"), text
        assert "twice in one object" in ruling.reason
    assert gate.history("r-f5") == []
    assert gate.check("bash", '{"command": "ls"}', run_id="r-f5").allowed
    with pytest.raises(toolvet.CallError, match='the key "command" twice'):
        plain_arguments('{"command": "ls", "command": "ls"}')
    assert plain_arguments('{"a": {"b": 1}, "b": {"a": 2}}') == {"a": {"b": 1}, "b": {"a": 2}}
