"""Microsoft Agent Framework, with a scripted chat client."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from policy import need

need("agent_framework")

from agent_framework import (
    Agent,
    BaseChatClient,
    ChatMiddlewareLayer,
    ChatResponse,
    Content,
    FunctionInvocationLayer,
    Message,
    tool,
)

from policy import BrokenHost
from toolvet.integrations._base import Gate
from toolvet.integrations.agent_framework import ToolCallCheckMiddleware, as_function_tool, reply

ran: Counter = Counter()


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    ran["get_weather"] += 1
    return f"sunny in {city}"


@tool
def delete_repository(repo: str) -> str:
    """Delete a repository."""
    ran["delete_repository"] += 1
    return "deleted"


@tool
def deploy(env: str) -> str:
    """Deploy to an environment."""
    ran["deploy"] += 1
    return f"deployed to {env}"


def call(name, args, call_id):
    return Content.from_function_call(call_id=call_id, name=name, arguments=args)


SIBLINGS = [
    call("delete_repository", {"repo": "acme/app"}, "c-deny"),
    call("get_weather", {"city": "Paris"}, "c-allow"),
    call("deploy", {"env": "prod"}, "c-esc"),
]


class ScriptedClient(FunctionInvocationLayer, ChatMiddlewareLayer, BaseChatClient):
    """Answers each model turn from a script and records the messages it was shown."""

    def __init__(self, script):
        super().__init__()
        self.script = list(script)
        self.seen: list = []

    async def _inner_get_response(self, *, messages, stream, options, **kwargs):
        self.seen.append(list(messages))
        contents = self.script.pop(0) if self.script else [Content.from_text("done")]
        return ChatResponse(messages=[Message(role="assistant", contents=contents)])

    def results(self):
        """The function results and texts the model was shown last, by call id ('text' for texts)."""
        out = {}
        for m in self.seen[-1]:
            for c in m.contents:
                if c.type == "function_result":
                    out[c.call_id] = str(c.result)
                elif c.type == "text" and m.role != "assistant":
                    out.setdefault("text", []).append(c.text)
        return out


@pytest.fixture(autouse=True)
def _reset():
    ran.clear()


async def first_run(gate, script=None):
    client = ScriptedClient(script or [SIBLINGS])
    agent = Agent(client=client, tools=[get_weather, delete_repository, deploy], middleware=[ToolCallCheckMiddleware(gate)])
    session = agent.create_session()
    response = await agent.run("go", session=session)
    return client, agent, session, response


def test_siblings_pause_then_approve_runs_once(host):
    async def main():
        gate = Gate(host)
        client, agent, session, response = await first_run(gate)
        [request] = response.user_input_requests
        assert request.function_call.name == "deploy"
        assert request.additional_properties["approval_id"].startswith("apr_")
        assert "deploy" in request.additional_properties["reason"]
        assert ran == Counter(get_weather=1)
        [pending] = host.approvals.pending()
        assert (pending.call_id, pending.run_id) == ("c-esc", session.session_id)

        await agent.run(reply(response.user_input_requests, gate, {"c-esc": True}, reviewer="alice", session=session), session=session)
        assert ran == Counter(get_weather=1, deploy=1)
        seen = client.results()
        assert seen["c-deny"].startswith("Blocked by policy: ") and "delete_repository" in seen["c-deny"]
        assert "sunny in Paris" in seen["c-allow"]
        assert "deployed to prod" in seen["c-esc"]
        assert host.approvals.get(pending.id).status == "consumed"
        assert host.approvals.get(pending.id).reviewer == "alice"

    asyncio.run(main())


def test_plain_framework_approval(host):
    async def main():
        gate = Gate(host)
        client, agent, session, response = await first_run(gate)
        [request] = response.user_input_requests
        await agent.run(Message(role="user", contents=[request.to_function_approval_response(True)]), session=session)
        assert ran["deploy"] == 1 and host.approvals.list("consumed")

    asyncio.run(main())


def test_reject_gives_the_model_the_reviewers_message(host):
    async def main():
        gate = Gate(host)
        client, agent, session, response = await first_run(gate)
        msg = reply(response.user_input_requests, gate, {"c-esc": "not on a Friday"}, reviewer="bob", session=session)
        await agent.run(msg, session=session)
        assert ran == Counter(get_weather=1)
        seen = client.results()
        assert "rejected" in seen["c-esc"]
        assert any("Blocked by policy: bob rejected this call: not on a Friday" in t for t in seen["text"])
        assert host.approvals.list("rejected")[0].reviewer == "bob"

    asyncio.run(main())


def test_a_rejection_in_the_ledger_beats_an_approval(host):
    async def main():
        gate = Gate(host)
        client, agent, session, response = await first_run(gate)
        host.approvals.reject(host.approvals.pending()[0].id, "carol", "use staging")
        [request] = response.user_input_requests
        await agent.run(Message(role="user", contents=[request.to_function_approval_response(True)]), session=session)
        assert ran["deploy"] == 0
        assert client.results()["c-esc"] == "Blocked by policy: carol rejected this call: use staging"

    asyncio.run(main())


def test_host_error_is_a_deny():
    async def main():
        client, agent, session, response = await first_run(Gate(BrokenHost()))
        assert response.user_input_requests == []
        assert sum(ran.values()) == 0
        results = {k: v for k, v in client.results().items() if k != "text"}
        assert results and all("could not vet this call" in r for r in results.values())

    asyncio.run(main())


def test_decision_tool(host):
    async def main():
        client = ScriptedClient([[call("toolvet_check", {"tool": "delete_repository", "arguments": {}}, "d1"), call("toolvet_check", {"tool": ""}, "d2")]])
        agent = Agent(client=client, tools=[as_function_tool(host)])
        await agent.run("may I?")
        seen = client.results()
        assert '"status": "deny"' in seen["d1"]
        assert "error" in seen["d2"].lower()

    asyncio.run(main())


@pytest.mark.parametrize("how", ["reply", "plain"])
def test_a_rejection_after_a_toolvet_approval_runs_nothing_and_spends_nothing(host, how):
    """Approved in toolvet, rejected in Agent Framework: the function runs only when both
    say yes. The approval stays unspent; the model reads the rejection, never "approved by"."""

    async def main():
        gate = Gate(host)
        client, agent, session, response = await first_run(gate)
        [pending] = host.approvals.pending()
        host.approvals.approve(pending.id, "carol")
        [request] = response.user_input_requests
        if how == "reply":
            msg = reply(response.user_input_requests, gate, {"c-esc": "not now"}, reviewer="bob", session=session)
        else:
            msg = Message(role="user", contents=[request.to_function_approval_response(False)])
        await agent.run(msg, session=session)
        assert ran == Counter(get_weather=1)
        seen = client.results()
        assert "approved by" not in str(seen)
        if how == "reply":
            assert seen["text"][-1] == "The call of `deploy` (c-esc) was not run. Blocked by policy: bob rejected this call: not now"
        request = host.approvals.get(pending.id)
        assert (request.status, request.reviewer) == ("approved", "carol")

    asyncio.run(main())


def test_an_approval_sent_twice_runs_the_call_once(host):
    async def main():
        gate = Gate(host)
        client, agent, session, response = await first_run(gate)
        [request] = response.user_input_requests
        answer = Message(role="user", contents=[request.to_function_approval_response(True)])
        await agent.run(answer, session=session)
        assert ran == Counter(get_weather=1, deploy=1)
        await agent.run(Message(role="user", contents=[request.to_function_approval_response(True)]), session=session)
        assert ran == Counter(get_weather=1, deploy=1)
        assert [r.status for r in host.approvals.list("all")] == ["consumed"]

    asyncio.run(main())
