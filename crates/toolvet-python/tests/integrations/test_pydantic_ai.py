"""PydanticAI, with its own FunctionModel."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from policy import need

need("pydantic_ai")

from pydantic_ai import Agent, DeferredToolRequests
from pydantic_ai.messages import ModelRequest, ModelResponse, RetryPromptPart, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import FunctionModel
from pydantic_ai.toolsets import FunctionToolset

from policy import BrokenHost
from toolvet.integrations._base import Gate
from toolvet.integrations.pydantic_ai import as_toolset, guard, results

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


SIBLINGS = [
    ToolCallPart("delete_repository", {"repo": "acme/app"}, tool_call_id="c-deny"),
    ToolCallPart("get_weather", {"city": "Paris"}, tool_call_id="c-allow"),
    ToolCallPart("deploy", {"env": "prod"}, tool_call_id="c-esc"),
]


@pytest.fixture(autouse=True)
def _reset():
    ran.clear()


class Script:
    """A FunctionModel function: the sibling calls first, then "done"; records what it saw."""

    def __init__(self, first=SIBLINGS):
        self.first = first
        self.seen: list = []

    def __call__(self, messages, info):
        self.seen.append(messages)
        if len(self.seen) == 1:
            return ModelResponse(parts=list(self.first))
        return ModelResponse(parts=[TextPart("done")])

    def returns(self):
        """The tool results (and retry prompts) the model was shown, by call id."""
        out = {}
        for m in self.seen[-1]:
            if isinstance(m, ModelRequest):
                for p in m.parts:
                    if isinstance(p, (ToolReturnPart, RetryPromptPart)):
                        out[p.tool_call_id] = p.model_response_str() if hasattr(p, "model_response_str") else str(p.content)
        return out


def make_agent(gate, script):
    tools = FunctionToolset([get_weather, delete_repository, deploy])
    return Agent(FunctionModel(script), output_type=[str, DeferredToolRequests], toolsets=[guard(tools, gate)])


async def first_run(gate):
    script = Script()
    agent = make_agent(gate, script)
    result = await agent.run("go")
    return script, agent, result


def test_siblings_defer_then_approve_runs_once(host):
    async def main():
        gate = Gate(host)
        script, agent, result = await first_run(gate)
        requests = result.output
        assert isinstance(requests, DeferredToolRequests)
        assert [c.tool_name for c in requests.approvals] == ["deploy"]
        meta = requests.metadata["c-esc"]
        assert meta["approval_id"].startswith("apr_") and "deploy" in meta["reason"]
        assert ran == Counter(get_weather=1)

        result = await agent.run(
            message_history=result.all_messages(), deferred_tool_results=results(requests, gate, {"c-esc": True}, reviewer="alice")
        )
        assert result.output == "done"
        assert ran == Counter(get_weather=1, deploy=1)
        seen = script.returns()
        assert "Blocked by policy: " in seen["c-deny"] and "delete_repository" in seen["c-deny"]
        assert seen["c-esc"] == "deployed to prod"
        [consumed] = host.approvals.list("consumed")
        assert consumed.reviewer == "alice"

    asyncio.run(main())


def test_plain_build_results_approval(host):
    async def main():
        gate = Gate(host)
        script, agent, result = await first_run(gate)
        res = result.output.build_results(approvals={"c-esc": True})
        await agent.run(message_history=result.all_messages(), deferred_tool_results=res)
        assert ran["deploy"] == 1 and host.approvals.list("consumed")

    asyncio.run(main())


def test_reject_gives_the_model_the_reviewers_message(host):
    async def main():
        gate = Gate(host)
        script, agent, result = await first_run(gate)
        res = results(result.output, gate, {"c-esc": "not on a Friday"}, reviewer="bob")
        await agent.run(message_history=result.all_messages(), deferred_tool_results=res)
        assert ran == Counter(get_weather=1)
        assert "Blocked by policy: bob rejected this call: not on a Friday" in script.returns()["c-esc"]
        assert host.approvals.list("rejected")[0].reviewer == "bob"

    asyncio.run(main())


def test_a_rejection_in_the_ledger_beats_an_approval(host):
    async def main():
        gate = Gate(host)
        script, agent, result = await first_run(gate)
        host.approvals.reject(host.approvals.pending()[0].id, "carol", "use staging")
        res = results(result.output, gate, {"c-esc": True})
        await agent.run(message_history=result.all_messages(), deferred_tool_results=res)
        assert ran["deploy"] == 0
        assert "carol rejected this call: use staging" in script.returns()["c-esc"]

    asyncio.run(main())


def test_host_error_is_a_deny():
    async def main():
        script, agent, result = await first_run(Gate(BrokenHost()))
        assert result.output == "done"
        assert sum(ran.values()) == 0
        seen = script.returns()
        assert sorted(seen) == ["c-allow", "c-deny", "c-esc"]
        for text in seen.values():
            assert "could not vet this call" in text

    asyncio.run(main())


def test_decision_toolset(host):
    async def main():
        script = Script(
            [
                ToolCallPart("toolvet_check", {"tool": "delete_repository", "arguments": {}}, tool_call_id="d1"),
                ToolCallPart("toolvet_check", {"tool": "get_weather"}, tool_call_id="d2"),
            ]
        )
        agent = Agent(FunctionModel(script), toolsets=[as_toolset(host)])
        await agent.run("may I?")
        seen = script.returns()
        assert "'status': 'deny'" in seen["d1"] or '"status":"deny"' in seen["d1"]
        assert "arguments" in seen["d2"]  # a validation error goes back as a retry prompt

    asyncio.run(main())


def test_the_same_deferred_results_sent_twice_run_the_call_once(host):
    """One approval, two runs: the same DeferredToolResults sent twice in one process.
    The second run asks the ledger, which refuses the used approval."""

    async def main():
        gate = Gate(host)
        script, agent, result = await first_run(gate)
        history = result.all_messages()
        res = results(result.output, gate, {"c-esc": True}, reviewer="alice")
        await agent.run(message_history=history, deferred_tool_results=res)
        assert ran == Counter(get_weather=1, deploy=1)
        await agent.run(message_history=history, deferred_tool_results=res)
        assert ran == Counter(get_weather=1, deploy=1)
        assert "Blocked by policy: call `c-esc` was approved once" in script.returns()["c-esc"]
        [request] = host.approvals.list("all")
        assert (request.status, request.reviewer) == ("consumed", "alice")

    asyncio.run(main())


@pytest.mark.parametrize("how", ["results", "plain"])
def test_a_rejection_after_a_toolvet_approval_runs_nothing_and_spends_nothing(host, how):
    """Approved in toolvet, rejected through PydanticAI: the tool runs only when both say
    yes. The approval stays unspent; the model reads the rejection, never "approved by"."""

    async def main():
        gate = Gate(host)
        script, agent, result = await first_run(gate)
        [pending] = host.approvals.pending()
        host.approvals.approve(pending.id, "carol")
        if how == "results":
            res = results(result.output, gate, {"c-esc": "not now"}, reviewer="bob")
        else:
            res = result.output.build_results(approvals={"c-esc": False})
        await agent.run(message_history=result.all_messages(), deferred_tool_results=res)
        assert ran == Counter(get_weather=1)
        seen = script.returns()["c-esc"]
        assert "approved by" not in seen
        if how == "results":
            assert "Blocked by policy: bob rejected this call: not now" in seen
        request = host.approvals.get(pending.id)
        assert (request.status, request.reviewer) == ("approved", "carol")

    asyncio.run(main())
