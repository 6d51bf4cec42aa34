"""LlamaIndex FunctionAgent, with its own MockFunctionCallingLLM driven by a script."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from policy import need

need("llama_index.core")

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.tools import FunctionTool, ToolSelection

from policy import PLUGINS, BrokenHost, make_host
from toolvet.integrations import Gate
from toolvet.integrations.llamaindex import as_llamaindex_tool, guard

ran: Counter = Counter()


def get_weather(city: str) -> str:
    """The weather in a city."""
    ran["get_weather"] += 1
    return f"sunny in {city}"


def delete_repository(repo: str) -> str:
    """Delete a repository."""
    ran["delete_repository"] += 1
    return "deleted"


def deploy(env: str) -> str:
    """Deploy to an environment."""
    ran["deploy"] += 1
    return f"deployed to {env}"


TOOLS = [FunctionTool.from_defaults(fn=f) for f in (get_weather, delete_repository, deploy)]


def calls(*specs):
    return [ToolSelection(tool_id=i, tool_name=n, tool_kwargs=a) for n, a, i in specs]


class Script:
    """A response generator: tool calls from the script, then "done"; records tool results."""

    def __init__(self, steps):
        self.steps = list(steps)
        self.seen: list = []

    def __call__(self, messages, **kwargs):
        self.seen.append({m.additional_kwargs.get("tool_call_id"): str(m.content) for m in messages if m.role == MessageRole.TOOL})
        if self.steps:
            return ChatMessage(role="assistant", content="", additional_kwargs={"tool_calls": self.steps.pop(0)})
        return ChatMessage(role="assistant", content="done")


def run(tools, steps):
    script = Script(steps)
    agent = FunctionAgent(tools=tools, llm=MockFunctionCallingLLM(response_generator=script), system_prompt="ops")

    async def main():
        return await agent.run("go")

    asyncio.run(main())
    return script


@pytest.fixture(autouse=True)
def _reset():
    ran.clear()


def guarded(gate, run_id=None):
    return guard(TOOLS, gate, run_id=run_id)


def test_deny_reason_reaches_the_model_and_siblings_run(host):
    script = run(guarded(Gate(host)), [calls(("delete_repository", {"repo": "acme/app"}, "c1"), ("get_weather", {"city": "Paris"}, "c2"))])
    assert ran == Counter(get_weather=1)
    seen = script.seen[-1]
    assert "Blocked by policy: " in seen["c1"] and "delete_repository" in seen["c1"]
    assert seen["c2"] == "sunny in Paris"


def test_escalate_is_held_then_runs_once_when_approved(host):
    gate = Gate(host)
    # Two agent runs of one conversation: the caller names it (the approval is bound to it).
    script = run(guarded(gate, "conv-1"), [calls(("deploy", {"env": "prod"}, "c1"))])
    assert ran["deploy"] == 0
    [pending] = host.approvals.pending()
    assert pending.run_id == "conv-1"
    assert f"approval request {pending.id}" in script.seen[-1]["c1"]
    host.approvals.approve(pending.id, "alice")
    script = run(guarded(gate, lambda: "conv-1"), [calls(("deploy", {"env": "prod"}, "c2"))])
    assert ran["deploy"] == 1 and script.seen[-1]["c2"] == "deployed to prod"
    assert host.approvals.get(pending.id).status == "consumed"


def test_reject_gives_the_model_the_reviewers_message(host):
    gate = Gate(host)
    run(guarded(gate, "conv-2"), [calls(("deploy", {"env": "prod"}, "c1"))])
    host.approvals.reject(host.approvals.pending()[0].id, "bob", "not on a Friday")
    script = run(guarded(gate, "conv-2"), [calls(("deploy", {"env": "prod"}, "c2"))])
    assert ran["deploy"] == 0
    assert "Blocked by policy: bob rejected this call: not on a Friday" in script.seen[-1]["c2"]


def test_host_error_is_a_deny():
    script = run(guarded(Gate(BrokenHost())), [calls(("get_weather", {"city": "Paris"}, "c1"))])
    assert ran["get_weather"] == 0
    assert "could not vet this call" in script.seen[-1]["c1"]


def test_decision_tool_typed_result(host):
    checker = as_llamaindex_tool(host)
    out = checker.call(tool="delete_repository", arguments={})
    assert out.raw_output["status"] == "deny" and "delete_repository" in out.raw_output["answer"]
    script = run([checker], [calls(("toolvet_check", {"tool": "get_weather", "arguments": {"city": "Rome"}}, "d1"), ("toolvet_check", {"tool": ""}, "d2"))])
    assert "'status': 'allow'" in script.seen[-1]["d1"]
    assert "`tool` must be the name" in script.seen[-1]["d2"]


def test_guard_runs_the_tool_with_the_plain_copy_it_vetted(host):
    """Code the model wrote (CodeActAgent) calls the guarded tool with its own
    objects: a list subclass that reads differently the second time is refused,
    and an ordinary call runs with a plain copy (review-s11 K2)."""
    from toolvet.integrations.llamaindex import PolicyDenied

    got = []

    def run_command(command: list) -> str:
        """Run a program with its arguments."""
        got.append((type(command), list(command)))
        return "ran"

    class L(list):
        reads = 0

        def __iter__(self):
            L.reads += 1
            return iter(["ls", "-la"] if L.reads == 1 else ["rm", "-rf", "/home/alice"])

    guarded = guard(FunctionTool.from_defaults(fn=run_command), Gate(host), run_id="k2")
    with pytest.raises(PolicyDenied, match="`command` is a L, a subclass of list"):
        asyncio.run(guarded.acall(command=L(["ls", "-la"])))
    assert got == []
    argv = ["ls", "-la"]
    assert asyncio.run(guarded.acall(command=argv)).raw_output == "ran"
    assert got == [(list, ["ls", "-la"])]


def test_by_default_each_agent_run_is_a_run_and_an_approval_stays_in_it(host):
    """Review s22 F1: tools guarded once and shared by every agent run of the
    process: each workflow run is its own run, never one process-wide run."""
    gate = Gate(host)
    tools = guarded(gate)
    run(tools, [calls(("deploy", {"env": "prod"}, "c1"))])
    [first] = host.approvals.pending()
    assert first.run_id.startswith("llamaindex-run:")
    host.approvals.approve(first.id, "alice")
    script = run(tools, [calls(("deploy", {"env": "prod"}, "c2"))])  # another agent run
    assert ran["deploy"] == 0
    [second] = host.approvals.pending()
    assert second.run_id.startswith("llamaindex-run:") and second.run_id != first.run_id
    assert f"approval request {second.id}" in script.seen[-1]["c2"]
    assert host.approvals.get(first.id).status == "approved"  # unspent
    assert [e["outcome"] for e in gate.history(first.run_id)] == ["escalated"]
    assert gate.history(None) == []


def test_outside_a_workflow_each_guard_has_a_run_of_its_own(host):
    gate = Gate(host)
    deploy_tool = TOOLS[2]
    one, two = guard(deploy_tool, gate), guard(deploy_tool, gate)
    for tool in (one, two, one):
        with pytest.raises(Exception, match="A person must approve this call first"):
            asyncio.run(tool.acall(env="prod"))
    runs = [r.run_id for r in host.approvals.pending()]
    assert len(runs) == 2 and runs[0] != runs[1] and all(r.startswith("llamaindex-guard:") for r in runs)


# review s23 F3: a run id belongs to the agent run, never to a tool. Outside a
# workflow, the tools one ``guard`` call wraps share its run, so a rule relating
# two tools' calls (``sequence.retry-after-refusal``) sees both.
SEQUENCE = f"""
[[check]]
name = "sequence"
isolation = "reuse"
plugin = "{PLUGINS / 'sequence_guard.wasm'}"
"""


def bash(command: str) -> str:
    """Run a shell command."""
    ran["bash"] += 1
    return "ran"


def github_push(repo: str, branch: str, force: bool) -> str:
    """Push a branch through the GitHub API."""
    ran["github_push"] += 1
    return "pushed"


def test_outside_a_workflow_the_tools_of_one_guard_call_share_a_run(tmp_path):
    host = make_host(tmp_path, extra=SEQUENCE)
    shell, push = guard([FunctionTool.from_defaults(fn=bash), FunctionTool.from_defaults(fn=github_push)], host)
    with pytest.raises(Exception, match="force-pushes the protected branch"):
        asyncio.run(shell.acall(command="git push --force origin main"))
    with pytest.raises(Exception, match="the same effect tried another way"):
        asyncio.run(push.acall(repo="acme/app", branch="main", force=True))
    assert ran["bash"] == ran["github_push"] == 0
    runs = {r.run_id for r in host.approvals.pending()}
    assert len(runs) == 1 and next(iter(runs)).startswith("llamaindex-guard:")
    # In an agent run (a workflow), the run is the agent run's, for every tool.
    ran.clear()
    script = run(
        guard([FunctionTool.from_defaults(fn=bash), FunctionTool.from_defaults(fn=github_push)], host),
        [calls(("bash", {"command": "git push --force origin main"}, "c1")), calls(("github_push", {"repo": "acme/app", "branch": "main", "force": True}, "c2"))],
    )
    assert ran["github_push"] == 0 and "the same effect tried another way" in script.seen[-1]["c2"]
