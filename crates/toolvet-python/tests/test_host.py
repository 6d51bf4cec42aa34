"""The package itself: verdicts, typed inputs, errors and their messages."""

from __future__ import annotations

import json
import math
import subprocess

import pytest

import toolvet
from policy import CLI, DENIED_TOOL, ESCALATED_TOOL, HOSTILE, PLUGINS, make_host, policy_text

CWD = {"attributes": {"cwd": "/home/alice/project"}}


def test_allow_verdict_has_every_check_outcome(shared_host):
    v = shared_host.check({"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}})
    assert v.decision == "allow" and v.allowed and not v.denied and not v.escalated
    assert (v.tool, v.call_id) == ("get_weather", "c1")
    assert v.approval is None
    names = [c.check for c in v.checks]
    # shell-guard reaches every tool (it routes by content) and has no
    # opinion on a call without a command.
    assert names == ["tools", "shell"]
    assert [c.decision for c in v.checks if c.check == "shell"] == ["abstain"]
    assert all(c.error is None for c in v.checks)
    assert "allow" in repr(v) and "get_weather" in repr(v)


def test_deny_by_tool_name_and_by_arguments(shared_host):
    v = shared_host.check({"name": DENIED_TOOL, "arguments": {"repo": "acme/app"}})
    assert v.decision == "deny"
    assert v.rule == "policy.denied-tool" and v.decided_by == "tools"
    assert v.reason and DENIED_TOOL in v.reason
    assert [c.decision for c in v.checks if c.check == "tools"] == ["deny"]

    v = shared_host.check({"name": "bash", "arguments": {"command": "rm -rf ~"}}, context=CWD)
    assert v.decision == "deny" and v.rule == "shell.rm-home" and v.decided_by == "shell"
    assert 'rule="shell.rm-home"' in repr(v)


def test_typed_objects_and_dicts_give_the_same_verdict(shared_host):
    typed = shared_host.check(
        toolvet.Call("bash", {"command": "rm -rf ~"}, id="c9"),
        toolvet.Tool(risk="high", tags=["shell"]),
        toolvet.Context(run_id="r1", agent="coder", attributes={"cwd": "/home/alice/project"}),
    )
    plain = shared_host.check(
        {"id": "c9", "name": "bash", "arguments": {"command": "rm -rf ~"}},
        {"risk": "high", "tags": ["shell"]},
        {"run_id": "r1", "agent": "coder", "attributes": {"cwd": "/home/alice/project"}},
    )
    assert (typed.decision, typed.rule, typed.reason) == (plain.decision, plain.rule, plain.reason)
    assert "Call(name=\"bash\"" in repr(toolvet.Call("bash", {"command": "ls"}))


def test_declared_requires_approval_escalates(host):
    v = host.check(toolvet.Call("get_weather", {}, id="c1"), toolvet.Tool(requires_approval=True))
    assert v.decision == "escalate" and v.rule == "policy.requires-approval"


def test_history_as_typed_prior_calls(shared_host):
    context = toolvet.Context(
        run_id="r2",
        history=[toolvet.PriorCall("read_file", {"path": "a.txt"}, "allowed"), {"name": "x", "arguments": {}, "outcome": "denied"}],
    )
    assert shared_host.check({"name": "get_weather", "arguments": {}}, context=context).decision == "allow"
    with pytest.raises(toolvet.CallError, match="unknown variant `maybe`"):
        shared_host.check({"name": "a", "arguments": {}}, context=toolvet.Context(history=[toolvet.PriorCall("b", {}, "maybe")]))


def test_verdict_json_is_what_the_cli_prints(shared_host, tmp_path):
    if not CLI.exists():
        pytest.skip("target/release/toolvet is not built")
    call = {"call": {"id": "c1", "name": "bash", "arguments": {"command": "rm -rf ~"}}, "context": CWD}
    policy = tmp_path / "cli.toml"
    policy.write_text(policy_text())
    out = subprocess.run([str(CLI), "check", "--config", str(policy)], input=json.dumps(call), capture_output=True, text=True)
    assert out.returncode == 3, out.stderr
    cli = json.loads(out.stdout)
    mine = make_host(tmp_path).check(call["call"], context=call["context"]).to_dict()
    for key in ("duration_us", "source"):
        cli.pop(key, None)
        mine.pop(key, None)
    for c in cli["checks"] + mine["checks"]:
        c.pop("duration_us")
    assert mine == cli


def test_verdict_has_no_truth_value(shared_host):
    v = shared_host.check({"name": "get_weather", "arguments": {}})
    with pytest.raises(TypeError, match="no truth value"):
        bool(v)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ({"name": "", "arguments": {}}, "`call.name` must not be empty"),
        ({"name": "bash", "arguments": "ls"}, "`call.arguments` must be a JSON object, got a string"),
        ({"name": "bash"}, "missing field `arguments`"),
        ({"name": "bash", "arguments": {}, "args": {}}, "unknown field `args`"),
        ({"name": "bash", "arguments": {"x": {1, 2}}}, "`call.arguments.x` is a set, which is not JSON"),
        ({"name": "bash", "arguments": {"x": b"raw"}}, "`call.arguments.x` is a bytes"),
        ({"name": "bash", "arguments": {"x": [1, math.nan]}}, "`call.arguments.x[1]` NaN is not a JSON number"),
        ({"name": "bash", "arguments": {1: "a"}}, "has a key of type int"),
        ({"name": "bash", "arguments": {"x": object()}}, "is a object, which is not JSON"),
    ],
)
def test_bad_calls_raise_call_error_with_the_cli_message(shared_host, call, message):
    with pytest.raises(toolvet.CallError) as e:
        shared_host.check(call)
    assert message in str(e.value)
    assert str(e.value).startswith("invalid tool call: ")
    assert isinstance(e.value, ValueError) and isinstance(e.value, toolvet.Error)


def test_hostile_inputs_do_not_crash_the_interpreter(shared_host):
    loop: list = []
    loop.append(loop)
    with pytest.raises(toolvet.CallError, match="nests lists/dicts over the limit"):
        shared_host.check({"name": "a", "arguments": {"x": loop}})
    deep: dict = {}
    cur = deep
    for _ in range(10_000):
        cur["x"] = {}
        cur = cur["x"]
    with pytest.raises(toolvet.CallError, match="limit"):
        shared_host.check({"name": "a", "arguments": deep})
    with pytest.raises(toolvet.CallError, match="must be a toolvet.Call or a dict"):
        shared_host.check(["bash", {}])
    with pytest.raises(toolvet.CallError, match="`context` must be"):
        shared_host.check({"name": "a", "arguments": {}}, context="run-1")
    with pytest.raises(TypeError):
        shared_host.check()
    # An integer past 64 bits is refused with its key path (readers would round it).
    with pytest.raises(toolvet.CallError, match=r"`call\.arguments\.n`: the integer 1208925819614629174706176 does not fit in 64 bits"):
        shared_host.check({"name": "get_weather", "arguments": {"n": 2**80}})
    # 64-bit integers and unicode pass through.
    v = shared_host.check({"name": "get_weather", "arguments": {"n": 2**63 - 1, "m": -(2**63), "city": "Zürich \u2028"}})
    assert v.decision == "allow"


def test_a_broken_check_is_a_deny_not_an_exception(tmp_path):
    text = f"""
[[check]]
name = "spins"
plugin = "{HOSTILE / 'hostile.wasm'}"
timeout_ms = 50
[check.settings]
behave = "loop"
"""
    host = toolvet.Host.from_toml(text, base_dir=str(tmp_path))
    v = host.check({"name": "anything", "arguments": {}})
    assert v.decision == "deny"
    assert v.checks[0].error == "timeout"


def test_policy_errors_carry_the_cli_messages(tmp_path):
    missing = tmp_path / "nope.toml"
    with pytest.raises(toolvet.PolicyError) as e:
        toolvet.Host.from_file(str(missing))
    assert e.value.kind == "config"
    assert str(missing) in str(e.value) and "cannot read" in str(e.value)
    if CLI.exists():
        out = subprocess.run([str(CLI), "check", "--config", str(missing)], input="{}", capture_output=True, text=True)
        assert out.returncode == 2
        assert out.stderr.strip() == f"toolvet: {e.value}"

    with pytest.raises(toolvet.PolicyError) as e:
        toolvet.Host.from_toml("[[check]]\nname = 1\n", base_dir=str(tmp_path), source="bad.toml")
    assert e.value.kind == "config" and str(e.value).startswith("bad.toml")

    bad_plugin = tmp_path / "bad.toml"
    bad_plugin.write_text(f'[[check]]\nname = "g"\nplugin = "{HOSTILE / "garbage.wasm"}"\n')
    with pytest.raises(toolvet.PolicyError) as e:
        toolvet.Host.from_file(str(bad_plugin))
    assert e.value.kind == "load" and "check `g`" in str(e.value)
    if CLI.exists():
        out = subprocess.run([str(CLI), "check", "--config", str(bad_plugin)], input="{}", capture_output=True, text=True)
        assert out.stderr.strip() == f"toolvet: {e.value}"


def test_host_introspection(shared_host):
    assert len(shared_host.policy_sha256) == 64
    assert shared_host.generation == 1
    assert [c["name"] for c in shared_host.checks()] == ["tools", "shell"]
    assert "toolvet.Host" in repr(shared_host) and "approvals=on" in repr(shared_host)
    shared_host.flush_decision_log()
    assert toolvet.__version__ and toolvet.CONTRACT_VERSION


TOKEN = "ghp_R4nd0mT0k3nV4lu3Xq9Lm2Np8Kd7Wz5Yb1Cc3E"


def test_the_policy_means_what_it_means_in_the_cli_decision_log_arguments(tmp_path):
    # The same file `toolvet check` accepts (issue #30): with
    # `decision_log_arguments` the log keeps the arguments, with the
    # credentials the secrets-guard detectors find redacted.
    log = tmp_path / "decisions.jsonl"
    host = toolvet.Host.from_toml(
        f'[host]\ndecision_log = "{log}"\ndecision_log_arguments = true\n'
        f'[[check]]\nname = "t"\nplugin = "{PLUGINS / "tool_policy.wasm"}"\n',
        base_dir=str(tmp_path),
    )
    v = host.check({"name": "read_file", "arguments": {"path": "notes.txt", "token": TOKEN}})
    assert v.decision == "allow"
    host.flush_decision_log()
    records = [json.loads(line) for line in log.read_text().splitlines()]
    kept = [r["arguments"] for r in records if "arguments" in r]
    assert kept and kept[-1]["path"] == "notes.txt", records
    assert kept[-1]["token"].startswith("[redacted: secrets."), kept
    assert "R4nd0mT0k3n" not in log.read_text()


def test_no_approvals_table(tmp_path):
    host = toolvet.Host.from_toml(f'[[check]]\nname = "t"\nplugin = "{PLUGINS / "tool_policy.wasm"}"\n[check.settings]\napprove = ["deploy"]\n', base_dir=str(tmp_path))
    assert host.approvals is None
    v = host.check({"name": ESCALATED_TOOL, "arguments": {}})
    assert v.decision == "escalate" and v.approval is None
    v = host.check({"name": ESCALATED_TOOL, "arguments": {}}, ticket="tv1.x.y")
    assert v.decision == "deny" and v.rule == "approval.disabled"
