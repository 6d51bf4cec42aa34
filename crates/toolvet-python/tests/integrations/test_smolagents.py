"""smolagents, with a scripted Model driving ToolCallingAgent."""

from __future__ import annotations

from collections import Counter

import pytest

from policy import need

need("smolagents")

from smolagents import ToolCallingAgent, tool
from smolagents.models import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction, MessageRole, Model

from policy import BrokenHost
from toolvet.integrations import Gate
from toolvet.integrations.smolagents import as_smolagents_tool, guard

ran: Counter = Counter()


@tool
def get_weather(city: str) -> str:
    """The weather in a city.

    Args:
        city: The city.
    """
    ran["get_weather"] += 1
    return f"sunny in {city}"


@tool
def delete_repository(repo: str) -> str:
    """Delete a repository.

    Args:
        repo: The repository.
    """
    ran["delete_repository"] += 1
    return "deleted"


@tool
def deploy(env: str) -> str:
    """Deploy to an environment.

    Args:
        env: The environment.
    """
    ran["deploy"] += 1
    return f"deployed to {env}"


def calls(*specs):
    return [ChatMessageToolCall(id=i, type="function", function=ChatMessageToolCallFunction(name=n, arguments=a)) for n, a, i in specs]


FINAL = calls(("final_answer", {"answer": "done"}, "f"))


class ScriptedModel(Model):
    """Answers each step from a script and records the messages it was shown."""

    def __init__(self, script):
        super().__init__(model_id="scripted")
        self.script = list(script)
        self.seen: list = []

    def generate(self, messages, stop_sequences=None, response_format=None, tools_to_call_from=None, **kwargs):
        self.seen.append(" ".join(str(m.content if hasattr(m, "content") else m.get("content")) for m in messages))
        return ChatMessage(role=MessageRole.ASSISTANT, content="", tool_calls=self.script.pop(0) if self.script else FINAL)


@pytest.fixture(autouse=True)
def _reset():
    ran.clear()


def run(gate, script, tools=None):
    model = ScriptedModel(script)
    tools = tools if tools is not None else [guard(t, gate) for t in (get_weather, delete_repository, deploy)]
    agent = ToolCallingAgent(tools=tools, model=model, max_steps=4, verbosity_level=0)
    agent.run("go")
    return model


def test_deny_reason_reaches_the_model_and_siblings_run(host):
    model = run(Gate(host), [calls(("delete_repository", {"repo": "acme/app"}, "c1"), ("get_weather", {"city": "Paris"}, "c2")), FINAL])
    # The allowed sibling ran; smolagents reports the step's error (the deny) to the model.
    assert ran == Counter(get_weather=1)
    assert "Blocked by policy: " in model.seen[1] and "delete_repository" in model.seen[1]


def test_escalate_is_held_then_runs_once_when_approved(host):
    gate = Gate(host)
    model = run(gate, [calls(("deploy", {"env": "prod"}, "c1")), FINAL])
    assert ran["deploy"] == 0
    [pending] = host.approvals.pending()
    assert f"approval request {pending.id}" in model.seen[1]
    host.approvals.approve(pending.id, "alice")
    run(gate, [calls(("deploy", {"env": "prod"}, "c2")), calls(("deploy", {"env": "prod"}, "c3")), FINAL])
    assert ran["deploy"] == 1  # the approval lets it run once; the third call is held anew
    assert host.approvals.get(pending.id).status == "consumed"


def test_reject_gives_the_model_the_reviewers_message(host):
    gate = Gate(host)
    run(gate, [calls(("deploy", {"env": "prod"}, "c1")), FINAL])
    host.approvals.reject(host.approvals.pending()[0].id, "bob", "not on a Friday")
    model = run(gate, [calls(("deploy", {"env": "prod"}, "c2")), FINAL])
    assert ran["deploy"] == 0
    assert "Blocked by policy: bob rejected this call: not on a Friday" in model.seen[1]


def test_host_error_is_a_deny():
    model = run(Gate(BrokenHost()), [calls(("get_weather", {"city": "Paris"}, "c1")), FINAL])
    assert ran["get_weather"] == 0
    assert "could not vet this call" in model.seen[1]


def test_decision_tool(host):
    checker = as_smolagents_tool(host)
    assert checker.output_schema["required"] == ["status", "answer"]
    model = run(None, [calls(("toolvet_check", {"tool": "delete_repository", "arguments": {}}, "d1")), calls(("toolvet_check", {"tool": ""}, "d2")), FINAL], tools=[checker])
    assert "'status': 'deny'" in model.seen[1]
    assert "`tool` must be the name" in model.seen[2]
