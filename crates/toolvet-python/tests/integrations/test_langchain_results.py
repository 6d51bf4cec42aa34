"""LangChain v1: what tools return is vetted after the handler, before the model
reads it (contract-02: withhold, redact, and a label that escalates later calls)."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from policy import need

need("langchain")

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from policy import INJECTION, MASKED_TEXT, SECRET_TEXT, make_results_host
from test_langchain import calls, scripted
from toolvet.integrations._base import WITHHELD_PREFIX
from toolvet.integrations.langchain import ToolCallCheckMiddleware

ran: Counter = Counter()


@tool
def fetch_page(url: str) -> str:
    """Fetch a web page."""
    ran["fetch_page"] += 1
    return INJECTION if "evil" in url else SECRET_TEXT if "secret" in url else "a quiet page"


@tool
def send_email(to: str) -> str:
    """Send an email."""
    ran["send_email"] += 1
    return f"sent to {to}"


@pytest.fixture
def rhost(tmp_path):
    ran.clear()
    return make_results_host(tmp_path)


def run(host, thread, *turns, use_async=False):
    model = scripted(*turns, AIMessage(content="done"))
    agent = create_agent(model, [fetch_page, send_email], middleware=[ToolCallCheckMiddleware(host)], checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": thread}}
    message = {"messages": [{"role": "user", "content": "go"}]}
    if use_async:
        out = asyncio.run(agent.ainvoke(message, cfg, version="v2"))
    else:
        out = agent.invoke(message, cfg, version="v2")
    return model, out


def shown(model):
    """Every tool message the model was shown, by call id, and all the text it read."""
    messages = [m for turn in model.seen for m in turn]
    tools = {m.tool_call_id: m for m in messages if isinstance(m, ToolMessage)}
    return tools, "\n".join(str(m.content) for m in messages)


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
def test_withheld_masked_and_a_label_escalates_the_next_call(rhost, use_async):
    model, out = run(
        rhost,
        "t-results",
        calls(("fetch_page", {"url": "https://secret.test"}, "c-sec"), ("fetch_page", {"url": "https://evil.test"}, "c-inj")),
        calls(("send_email", {"to": "boss@corp.test"}, "c-send")),
        use_async=use_async,
    )
    assert ran == Counter(fetch_page=2)
    tools, text = shown(model)
    # Withheld: the model read toolvet's message, never the result.
    assert tools["c-inj"].status == "error"
    assert tools["c-inj"].content == WITHHELD_PREFIX + "the result holds instructions aimed at the model"
    assert "IGNORE PREVIOUS" not in text
    # Redacted: the model read the masked text.
    assert tools["c-sec"].content == MASKED_TEXT
    assert "SECRET-42" not in text
    # The label the withheld result raised holds the thread's next call for a person.
    [interrupt] = out.interrupts
    assert interrupt.value["action_requests"][0]["name"] == "send_email"
    assert "the run read untrusted content (from fetch_page" in interrupt.value["action_requests"][0]["description"]
    assert ran["send_email"] == 0
    [pending] = rhost.approvals.pending()
    assert (pending.tool, pending.run_id) == ("send_email", "t-results")
    assert sorted(label.name for label in rhost.run_labels("t-results")) == ["secret-seen", "untrusted-content"]


def test_a_clean_thread_is_not_escalated(rhost):
    run(rhost, "t-dirty", calls(("fetch_page", {"url": "https://evil.test"}, "c1")))
    model, out = run(rhost, "t-clean", calls(("fetch_page", {"url": "https://ok.test"}, "c1")), calls(("send_email", {"to": "a@b.test"}, "c2")))
    assert out.interrupts == ()
    tools, _ = shown(model)
    assert tools["c1"].content == "a quiet page" and tools["c2"].content == "sent to a@b.test"
