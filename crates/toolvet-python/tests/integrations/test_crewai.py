"""CrewAI, with a scripted BaseLLM on the ReAct path (its own venv: crewai pins mcp<2)."""

from __future__ import annotations

import os
from collections import Counter

import pytest

from policy import need

need("crewai")
os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")

from crewai import Agent, Crew, Task
from crewai.llms.base_llm import BaseLLM
from crewai.tools import tool

from policy import BrokenHost
from toolvet.integrations import Gate
from toolvet.integrations.crewai import as_crewai_tool, install

ran: Counter = Counter()


@tool("get_weather")
def get_weather(city: str) -> str:
    """The weather in a city."""
    ran["get_weather"] += 1
    return f"sunny in {city}"


@tool("delete_repository")
def delete_repository(repo: str) -> str:
    """Delete a repository."""
    ran["delete_repository"] += 1
    return "deleted"


@tool("deploy")
def deploy(env: str) -> str:
    """Deploy to an environment."""
    ran["deploy"] += 1
    return f"deployed to {env}"


def action(name, args):
    import json

    return f"Thought: I will use a tool.\nAction: {name}\nAction Input: {json.dumps(args)}"


FINAL = "Thought: I now know the final answer\nFinal Answer: done"


class ScriptedLLM(BaseLLM):
    """Answers from a script on CrewAI's ReAct path and records the prompts it got."""

    script: list = []
    seen: list = []

    def call(self, messages, tools=None, callbacks=None, available_functions=None, from_task=None, from_agent=None, response_model=None):
        self.seen.append(messages if isinstance(messages, str) else "\n".join(str(m.get("content")) for m in messages))
        return self.script.pop(0) if self.script else FINAL

    def supports_function_calling(self) -> bool:
        return False

    def supports_stop_words(self) -> bool:
        return False

    def get_context_window_size(self) -> int:
        return 8192


@pytest.fixture(autouse=True)
def _reset():
    ran.clear()


crews: list = []  # the crews run_crew made, newest last


def run_crew(host, script, tools=(get_weather, delete_repository, deploy), approve=None, llm_class=None, crew=None):
    """Kick off a new crew (or ``crew`` again, with a new script); the LLM it used."""
    if crew is None:
        llm = (llm_class or ScriptedLLM)(model="scripted", script=list(script), seen=[])
        agent = Agent(role="ops", goal="operate", backstory="an operator", llm=llm, tools=list(tools), allow_delegation=False, verbose=False)
        task = Task(description="do the thing", expected_output="a word", agent=agent)
        crew = Crew(agents=[agent], tasks=[task], verbose=False)
        crews.append(crew)
    else:
        llm = crew.agents[0].llm
        llm.script, llm.seen = list(script), []
    uninstall = install(host, approve=approve) if host is not None else (lambda: None)
    try:
        crew.kickoff()
    finally:
        uninstall()
    return llm


def test_deny_reason_reaches_the_model(host):
    llm = run_crew(host, [action("delete_repository", {"repo": "acme/app"}), action("get_weather", {"city": "Paris"})])
    assert ran == Counter(get_weather=1)
    assert "Blocked by policy: " in llm.seen[1] and "delete_repository" in llm.seen[1]
    assert "Tool execution blocked by hook" not in llm.seen[1]
    assert "sunny in Paris" in llm.seen[2]


def test_escalate_asks_the_approver_then_runs_once(host):
    asked = []

    def approve(ruling, name, args):
        asked.append((name, args, ruling.approval_id))
        assert host.approvals.get(ruling.approval_id).status == "pending"  # the request waits in the ledger
        return {"approved": True, "reviewer": "alice"}

    run_crew(host, [action("deploy", {"env": "prod"})], approve=approve)
    assert [(n, a) for n, a, _ in asked] == [("deploy", {"env": "prod"})]
    assert ran == Counter(deploy=1)
    request = host.approvals.get(asked[0][2])
    assert (request.status, request.reviewer) == ("consumed", "alice")


def test_reject_gives_the_model_the_reviewers_message(host):
    llm = run_crew(host, [action("deploy", {"env": "prod"})], approve=lambda ruling, name, args: "not on a Friday")
    assert ran["deploy"] == 0
    assert "Blocked by policy: reviewer rejected this call: not on a Friday" in llm.seen[1]


def test_without_an_approver_escalate_blocks_until_approved_in_the_ledger(host):
    gate = Gate(host)  # one hook for the process, as an app installs it
    llm = run_crew(gate, [action("deploy", {"env": "prod"})])
    assert ran["deploy"] == 0
    [pending] = host.approvals.pending()
    assert f"approval request {pending.id}" in llm.seen[1]
    host.approvals.approve(pending.id, "alice")
    run_crew(gate, [action("deploy", {"env": "prod"})], crew=crews[-1])  # the same crew: its run
    assert ran["deploy"] == 1
    assert host.approvals.get(pending.id).status == "consumed"


def test_a_failing_approver_blocks(host):
    def approve(ruling, name, args):
        raise RuntimeError("the pager is down")

    llm = run_crew(host, [action("deploy", {"env": "prod"})], approve=approve)
    assert ran["deploy"] == 0
    assert "the pager is down" in llm.seen[1]


def test_host_error_is_a_deny_even_though_crewai_swallows_hook_errors():
    llm = run_crew(BrokenHost(), [action("get_weather", {"city": "Paris"})])
    assert ran["get_weather"] == 0
    assert "could not vet this call" in llm.seen[1]


def test_decision_tool(host):
    llm = run_crew(None, [action("toolvet_check", {"tool": "delete_repository", "arguments": {}})], tools=[as_crewai_tool(host)])
    assert "'status': 'deny'" in llm.seen[1] or '"status": "deny"' in llm.seen[1]


def test_without_an_approver_a_rejection_in_the_ledger_reaches_the_model(host):
    gate = Gate(host)
    run_crew(gate, [action("deploy", {"env": "prod"})])
    [pending] = host.approvals.pending()
    host.approvals.reject(pending.id, "bob", "not on a Friday")
    llm = run_crew(gate, [action("deploy", {"env": "prod"})], crew=crews[-1])
    assert ran["deploy"] == 0
    assert "Blocked by policy: bob rejected this call: not on a Friday" in llm.seen[1]


def test_a_rejection_after_a_toolvet_approval_blocks_and_spends_nothing(host):
    """Approved in toolvet while the approver was asked, rejected by the approver: the
    call runs only when both say yes, and the approval stays unspent."""

    def approve(ruling, name, args):
        host.approvals.approve(ruling.approval_id, "carol")
        return {"approved": False, "reviewer": "bob", "message": "not now"}

    llm = run_crew(host, [action("deploy", {"env": "prod"})], approve=approve)
    assert ran["deploy"] == 0
    assert "Blocked by policy: bob rejected this call: not now" in llm.seen[1]
    assert "approved by" not in llm.seen[1]
    [request] = host.approvals.list("all")
    assert (request.status, request.reviewer) == ("approved", "carol")


# CrewAI's native function-calling path: the LLM returns tool calls, the executor
# runs them (`_execute_single_native_tool_call`) through the same hooks.


def native_call(call_id, name, args):
    import json

    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


class NativeLLM(ScriptedLLM):
    """A scripted BaseLLM on CrewAI's native function-calling path."""

    def supports_function_calling(self) -> bool:
        return True

    def call(self, messages, tools=None, callbacks=None, available_functions=None, from_task=None, from_agent=None, response_model=None):
        assert tools, "the native path offers the tools to the LLM"
        self.seen.append(messages if isinstance(messages, str) else "\n".join(str(m.get("content")) for m in messages))
        return self.script.pop(0) if self.script else "done"


def test_native_path_deny_allow_and_the_reason_reaches_the_model(host):
    llm = run_crew(
        host,
        [[native_call("n1", "delete_repository", {"repo": "acme/app"}), native_call("n2", "get_weather", {"city": "Paris"})]],
        llm_class=NativeLLM,
    )
    assert ran == Counter(get_weather=1)
    assert "Blocked by policy: " in llm.seen[1] and "delete_repository" in llm.seen[1]
    assert "Tool execution blocked by hook" not in llm.seen[1]
    assert "sunny in Paris" in llm.seen[1]


def test_native_path_escalate_asks_the_approver_then_runs_once(host):
    asked = []

    def approve(ruling, name, args):
        asked.append((name, args, ruling.approval_id))
        return {"approved": True, "reviewer": "alice"}

    llm = run_crew(host, [[native_call("n1", "deploy", {"env": "prod"})]], approve=approve, llm_class=NativeLLM)
    assert [(n, a) for n, a, _ in asked] == [("deploy", {"env": "prod"})]
    assert ran == Counter(deploy=1)
    assert "deployed to prod" in llm.seen[1]
    request = host.approvals.get(asked[0][2])
    assert (request.status, request.reviewer) == ("consumed", "alice")


def test_native_path_without_an_approver_blocks_until_approved_then_runs_once(host):
    gate = Gate(host)
    llm = run_crew(gate, [[native_call("n1", "deploy", {"env": "prod"})]], llm_class=NativeLLM)
    assert ran["deploy"] == 0
    [pending] = host.approvals.pending()
    assert f"approval request {pending.id}" in llm.seen[1]
    host.approvals.approve(pending.id, "alice")
    crew = crews[-1]
    run_crew(gate, [[native_call("n2", "deploy", {"env": "prod"})]], crew=crew)
    assert ran["deploy"] == 1
    llm = run_crew(gate, [[native_call("n3", "deploy", {"env": "prod"})]], crew=crew)
    assert ran["deploy"] == 1  # the approval ran the call once; the next one asks anew
    assert host.approvals.get(pending.id).status == "consumed"
    assert "A person must approve this call first" in llm.seen[1]


def test_native_path_host_error_is_a_deny():
    llm = run_crew(BrokenHost(), [[native_call("n1", "get_weather", {"city": "Paris"})]], llm_class=NativeLLM)
    assert ran["get_weather"] == 0
    assert "could not vet this call" in llm.seen[1]


def test_an_approval_runs_only_the_crew_it_was_asked_for_and_each_crew_has_its_history(host):
    """Review s22 F1: one hook for the process; crews are runs of their own."""
    gate = Gate(host)
    run_crew(gate, [action("deploy", {"env": "prod"})])
    crew_a = crews[-1]
    [pending] = host.approvals.pending()
    assert pending.run_id == f"crewai-crew:{crew_a.id}"
    host.approvals.approve(pending.id, "alice")
    # Another crew's identical call: not the call the person approved.
    llm = run_crew(gate, [action("deploy", {"env": "prod"})])
    crew_b = crews[-1]
    assert ran["deploy"] == 0
    [other] = host.approvals.pending()
    assert other.id != pending.id and other.run_id == f"crewai-crew:{crew_b.id}"
    assert f"approval request {other.id}" in llm.seen[1]
    assert host.approvals.get(pending.id).status == "approved"
    # Crew A's call again: the approval runs it, once.
    run_crew(gate, [action("deploy", {"env": "prod"})], crew=crew_a)
    assert ran["deploy"] == 1
    assert host.approvals.get(pending.id).status == "consumed"
    assert [e["outcome"] for e in gate.history(f"crewai-crew:{crew_a.id}")] == ["approved"]
    assert [e["outcome"] for e in gate.history(f"crewai-crew:{crew_b.id}")] == ["escalated"]
    assert gate.history(None) == []


def test_a_hook_context_without_a_crew_or_agent_is_a_run_of_the_hooks_own(host):
    from crewai.hooks import ToolCallHookContext

    from toolvet.integrations.crewai import tool_call_hook

    first, second = tool_call_hook(host), tool_call_hook(host)
    assert first.own_run_id != second.own_run_id and first.own_run_id.startswith("crewai-hook:")
    ctx = ToolCallHookContext(tool_name="deploy", tool_input={"env": "prod"}, tool=None)
    assert first(ctx) is False and second(ctx) is False
    assert sorted(r.run_id for r in host.approvals.pending()) == sorted([first.own_run_id, second.own_run_id])
    named = tool_call_hook(host, run_id=lambda c: "conversation-7")
    assert named.run_of(ctx) == "conversation-7"
