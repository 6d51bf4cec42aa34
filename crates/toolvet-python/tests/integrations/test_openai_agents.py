"""OpenAI Agents SDK, with the SDK's own ScriptedModel."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from types import SimpleNamespace

import pytest

from policy import need

need("agents")

from agents import Agent, Runner, RunState, function_tool, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message, function_call

from policy import BrokenHost
from toolvet.integrations._base import Gate
from toolvet.integrations.openai_agents import approve, as_function_tool, guard, reject, run_config

set_tracing_disabled(True)  # no trace export: the tests use no network

ran: Counter = Counter()


@function_tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    ran["get_weather"] += 1
    return f"sunny in {city}"


@function_tool
def delete_repository(repo: str) -> str:
    """Delete a repository."""
    ran["delete_repository"] += 1
    return "deleted"


@function_tool
def deploy(env: str) -> str:
    """Deploy to an environment."""
    ran["deploy"] += 1
    return f"deployed to {env}"


SIBLINGS = [
    function_call("delete_repository", {"repo": "acme/app"}, call_id="c-deny"),
    function_call("get_weather", {"city": "Paris"}, call_id="c-allow"),
    function_call("deploy", {"env": "prod"}, call_id="c-esc"),
]


@pytest.fixture(autouse=True)
def _reset():
    ran.clear()


def make_agent(gate, model):
    return Agent(name="ops", model=model, tools=[guard(t, gate) for t in (get_weather, delete_repository, deploy)])


def outputs(model):
    """The tool outputs the model was shown on its last call, by call id."""
    return {
        item["call_id"]: item["output"]
        for item in model.last_call.input
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    }


async def first_run(gate):
    model = ScriptedModel([SIBLINGS, [assistant_message("done")]])
    agent = make_agent(gate, model)
    result = await Runner.run(agent, "go", run_config=run_config())
    return model, agent, result


def test_siblings_pause_then_approve_runs_once(host):
    async def main():
        gate = Gate(host)
        model, agent, result = await first_run(gate)
        assert [i.name for i in result.interruptions] == ["deploy"]
        assert ran == Counter(get_weather=1)
        [pending] = host.approvals.pending()
        assert pending.call_id == "c-esc"
        # Durable pause: the state goes through its string form.
        state = await RunState.from_string(agent, result.to_state().to_string())
        [item] = state.get_interruptions()
        ruling = approve(state, item, gate, reviewer="alice")
        # Recorded, not used: the approval is spent when the tool runs.
        assert ruling.escalated and ruling.approval_id == pending.id
        assert host.approvals.get(pending.id).status == "approved"
        assert ran == Counter(get_weather=1)
        result = await Runner.run(agent, state, run_config=run_config())
        assert result.final_output == "done"
        assert ran == Counter(get_weather=1, deploy=1)
        seen = outputs(model)
        assert seen["c-deny"].startswith("Blocked by policy: ") and "delete_repository" in seen["c-deny"]
        assert seen["c-allow"] == "sunny in Paris"
        assert seen["c-esc"] == "deployed to prod"
        assert host.approvals.get(pending.id).status == "consumed"

    asyncio.run(main())


def test_plain_sdk_approval_is_recorded_and_runs_once(host):
    async def main():
        gate = Gate(host)
        model, agent, result = await first_run(gate)
        state = result.to_state()
        state.approve(state.get_interruptions()[0])
        await Runner.run(agent, state, run_config=run_config())
        assert ran["deploy"] == 1
        [consumed] = host.approvals.list("consumed")
        assert consumed.reviewer == "reviewer"

    asyncio.run(main())


def test_reject_gives_the_model_the_reviewers_message(host):
    async def main():
        gate = Gate(host)
        model, agent, result = await first_run(gate)
        state = result.to_state()
        ruling = reject(state, state.get_interruptions()[0], gate, reviewer="bob", message="not on a Friday")
        assert ruling.denied
        await Runner.run(agent, state, run_config=run_config())
        assert ran == Counter(get_weather=1)
        assert outputs(model)["c-esc"] == "Blocked by policy: bob rejected this call: not on a Friday"
        assert host.approvals.list("rejected")[0].reviewer == "bob"

    asyncio.run(main())


def test_a_rejection_in_the_ledger_beats_an_sdk_approval(host):
    async def main():
        gate = Gate(host)
        model, agent, result = await first_run(gate)
        host.approvals.reject(host.approvals.pending()[0].id, "carol", "use staging")
        state = result.to_state()
        state.approve(state.get_interruptions()[0])
        await Runner.run(agent, state, run_config=run_config())
        assert ran["deploy"] == 0
        assert outputs(model)["c-esc"] == "Blocked by policy: carol rejected this call: use staging"

    asyncio.run(main())


def test_host_error_is_a_deny_not_an_approval_prompt():
    async def main():
        model, agent, result = await first_run(Gate(BrokenHost()))
        assert result.interruptions == []
        assert sum(ran.values()) == 0
        seen = outputs(model)
        assert sorted(seen) == ["c-allow", "c-deny", "c-esc"]
        for out in seen.values():
            assert out.startswith("Blocked by policy: ") and "could not vet this call" in out

    asyncio.run(main())


def test_decision_tool(host):
    async def main():
        model = ScriptedModel(
            [
                [
                    function_call("toolvet_check", {"tool": "deploy", "arguments": {"env": "prod"}}, call_id="d1"),
                    function_call("toolvet_check", {"tool": 3}, call_id="d2"),
                ],
                [assistant_message("ok")],
            ]
        )
        agent = Agent(name="asker", model=model, tools=[as_function_tool(host)])
        await Runner.run(agent, "may I deploy?")
        seen = outputs(model)
        answer = json.loads(seen["d1"])
        assert answer["status"] == "escalate" and "opened no approval request" in answer["answer"]
        assert "error" in json.loads(seen["d2"])
        assert host.approvals.pending() == []  # asking is not a call: nothing for a person to approve

    asyncio.run(main())


REPLAYED = "Blocked by policy: call `c-esc` was approved once"


def test_a_run_state_resumed_twice_runs_the_approved_call_once(host):
    """One approval, two runs: the same approved RunState resumed twice in one
    process. The second resume asks the ledger, which refuses the used approval."""

    async def main():
        gate = Gate(host)
        model, agent, result = await first_run(gate)
        state = result.to_state()
        approve(state, state.get_interruptions()[0], gate, reviewer="alice")
        saved = state.to_string()
        for _ in range(2):
            model.enqueue([assistant_message("done")])
            await Runner.run(agent, await RunState.from_string(agent, saved), run_config=run_config())
        assert ran == Counter(get_weather=1, deploy=1)
        assert outputs(model)["c-esc"].startswith(REPLAYED)
        [request] = host.approvals.list("all")
        assert (request.status, request.reviewer) == ("consumed", "alice")

    asyncio.run(main())


def test_the_same_state_object_resumed_twice_runs_once(host):
    async def main():
        gate = Gate(host)
        model, agent, result = await first_run(gate)
        state = result.to_state()
        state.approve(state.get_interruptions()[0])
        copy = await RunState.from_string(agent, state.to_string())
        await Runner.run(agent, state, run_config=run_config())
        model.enqueue([assistant_message("done")])
        await Runner.run(agent, copy, run_config=run_config())
        assert ran["deploy"] == 1
        assert outputs(model)["c-esc"].startswith(REPLAYED)

    asyncio.run(main())


@pytest.mark.parametrize("how", ["helper", "plain"])
def test_an_sdk_rejection_after_a_toolvet_approval_runs_nothing_and_spends_nothing(host, how):
    """Approved in toolvet (a reviewer page), rejected in the SDK: the call runs only
    when both say yes, so it does not run; the approval stays unspent and the model
    reads the rejection, never "approved by"."""

    async def main():
        gate = Gate(host)
        model, agent, result = await first_run(gate)
        [pending] = host.approvals.pending()
        host.approvals.approve(pending.id, "carol")
        state = result.to_state()
        item = state.get_interruptions()[0]
        if how == "helper":
            ruling = reject(state, item, gate, reviewer="bob", message="not now")
            assert (ruling.decision, ruling.rule) == ("deny", "approval.rejected")
        else:
            state.reject(item)
        await Runner.run(agent, state, run_config=run_config())
        assert ran == Counter(get_weather=1)
        out = outputs(model)["c-esc"]
        assert "approved by" not in out
        if how == "helper":
            assert out == "Blocked by policy: bob rejected this call: not now"
        else:
            assert out == "Tool execution was not approved."  # the SDK's own rejection text
        request = host.approvals.get(pending.id)
        assert (request.status, request.reviewer) == ("approved", "carol")

    asyncio.run(main())


def test_a_streamed_run_pauses_and_resumes_once(host):
    async def main():
        gate = Gate(host)
        model = ScriptedModel([SIBLINGS, [assistant_message("done")]])
        agent = make_agent(gate, model)
        streamed = Runner.run_streamed(agent, "go", run_config=run_config())
        kinds = [event.type async for event in streamed.stream_events()]
        assert "run_item_stream_event" in kinds
        assert [i.name for i in streamed.interruptions] == ["deploy"]
        assert ran == Counter(get_weather=1)
        state = streamed.to_state()
        approve(state, state.get_interruptions()[0], gate, reviewer="alice")
        saved = state.to_string()
        resumed = Runner.run_streamed(agent, state, run_config=run_config())
        [_ async for _ in resumed.stream_events()]
        assert resumed.final_output == "done"
        assert ran == Counter(get_weather=1, deploy=1)
        seen = outputs(model)
        assert seen["c-esc"] == "deployed to prod"
        assert seen["c-deny"].startswith("Blocked by policy: ") and "delete_repository" in seen["c-deny"]
        # The same approved state streamed again: refused by the ledger.
        model.enqueue([assistant_message("done")])
        again = Runner.run_streamed(agent, await RunState.from_string(agent, saved), run_config=run_config())
        [_ async for _ in again.stream_events()]
        assert ran["deploy"] == 1
        assert outputs(model)["c-esc"].startswith(REPLAYED)

    asyncio.run(main())


class HeldOnSecondAsk:
    """The real host, except that its first answer about `deploy` is a run-scope allow
    (a grant that lapses before the guardrail asks again)."""

    def __init__(self, host):
        self.host = host
        self.approvals = host.approvals
        self.first = True

    def check(self, call, tool=None, context=None, *, ticket=None):
        if self.first and call.name == "deploy":
            self.first = False
            grant = SimpleNamespace(status="approved", ticket=None, opened=False)
            return SimpleNamespace(decision="allow", reason="approved for this run", rule="approval.run-scope", approval=grant)
        return self.host.check(call, tool, context, ticket=ticket)


def test_a_held_call_the_sdk_did_not_pause_is_denied_not_run(host):
    async def main():
        model, agent, result = await first_run(Gate(HeldOnSecondAsk(host)))
        assert result.interruptions == []
        assert ran == Counter(get_weather=1)
        out = outputs(model)["c-esc"]
        assert out.startswith("Blocked by policy: ") and "the run did not pause for one" in out
        [pending] = host.approvals.pending()
        assert f"approval request {pending.id}" in out

    asyncio.run(main())


def test_unvetted_lists_what_no_guard_sees_and_require_vetted_refuses_it(host):
    """Review s22 F7: a guard is per function tool; the rest of what an agent
    can run is named at setup."""
    from agents import LocalShellTool, WebSearchTool, handoff
    from agents.mcp import MCPServerStdio

    from toolvet.integrations.openai_agents import require_vetted, unvetted

    gate = Gate(host)
    guarded = [guard(t, gate) for t in (get_weather, deploy)]
    clean = Agent(name="ops", tools=guarded)
    assert unvetted(clean) == [] and require_vetted(clean) is clean
    helper = Agent(name="helper", tools=[delete_repository])
    other = Agent(name="other")
    agent = Agent(
        name="ops",
        tools=[*guarded, get_weather, WebSearchTool(), LocalShellTool(executor=lambda request: "never")],
        mcp_servers=[MCPServerStdio(params={"command": "true"}, name="files")],
        handoffs=[helper, handoff(other)],
    )
    assert unvetted(agent) == [
        "ops: MCP server 'files' in mcp_servers (its tools are listed at run time and pass no guard)",
        "ops: function tool 'get_weather' is not guarded",
        "ops: WebSearchTool 'web_search' (run by the SDK or the provider, not through a guarded function tool)",
        "ops: LocalShellTool 'local_shell' (run by the SDK or the provider, not through a guarded function tool)",
        "ops -> helper: function tool 'delete_repository' is not guarded",
        "ops: handoff 'transfer_to_other' (a Handoff object: toolvet cannot see its agent's tools)",
    ]
    with pytest.raises(TypeError, match="can run tools toolvet does not vet"):
        require_vetted(agent)


@function_tool
def bash(command: str) -> str:
    """Run a shell command."""
    ran["bash"] += 1
    return "ran"


def test_unvetted_walks_into_agents_run_as_tools(host):
    """Review s23 F4: vetting is checked recursively through every agent an agent
    can reach, agents run as tools (``as_tool``) included: a guard around
    ``inner.as_tool()`` vets only the text handed to the sub-agent, never the
    tools the sub-agent then calls."""
    from toolvet.integrations.openai_agents import require_vetted, unvetted

    gate = Gate(host)
    inner = Agent(name="worker", tools=[bash])
    for outer_tool in (guard(inner.as_tool(tool_name="worker", tool_description="do work"), gate), inner.as_tool(tool_name="worker", tool_description="do work")):
        lead = Agent(name="lead", tools=[outer_tool])
        found = unvetted(lead)
        assert "lead -> worker (agent 'worker' as a tool): function tool 'bash' is not guarded" in found, found
        with pytest.raises(TypeError, match="can run tools toolvet does not vet"):
            require_vetted(lead)
    # The sub-agent's tools guarded too: vetted, and its shell call is judged.
    inner_model = ScriptedModel([[function_call("bash", {"command": "rm -rf ~"}, call_id="i1")], [assistant_message("done")]])
    vetted_inner = Agent(name="worker", model=inner_model, tools=[guard(bash, gate)])
    outer_model = ScriptedModel([[function_call("worker", {"input": "rm -rf ~"}, call_id="o1")], [assistant_message("done")]])
    lead = Agent(name="lead", model=outer_model, tools=[guard(vetted_inner.as_tool(tool_name="worker", tool_description="do work"), gate)])
    assert unvetted(lead) == [] and require_vetted(lead) is lead
    asyncio.run(Runner.run(lead, "go", run_config=run_config()))
    assert ran["bash"] == 0
    assert "rm" in outputs(inner_model)["i1"] and "home" in outputs(inner_model)["i1"]  # the guard's deny
