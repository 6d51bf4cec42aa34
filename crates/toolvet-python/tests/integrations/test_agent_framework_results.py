"""Microsoft Agent Framework: a function's result is vetted in the middleware after
``call_next()``, before the model reads it (contract-02: withhold, redact, and a label
that escalates the session's next call), with a scripted chat client."""

from __future__ import annotations

import asyncio
from collections import Counter

from policy import need

need("agent_framework")

from agent_framework import Agent, tool

from policy import INJECTION, MASKED_TEXT, SECRET_TEXT, make_results_host
from test_agent_framework import ScriptedClient, call
from toolvet.integrations._base import WITHHELD_PREFIX, Gate
from toolvet.integrations.agent_framework import ToolCallCheckMiddleware

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


def test_withheld_masked_and_a_label_escalates_the_next_call(tmp_path):
    ran.clear()
    host = make_results_host(tmp_path)

    async def main():
        client = ScriptedClient(
            [
                [call("fetch_page", {"url": "https://secret.test"}, "c-sec"), call("fetch_page", {"url": "https://evil.test"}, "c-inj")],
                [call("send_email", {"to": "boss@corp.test"}, "c-send")],
            ]
        )
        agent = Agent(client=client, tools=[fetch_page, send_email], middleware=[ToolCallCheckMiddleware(Gate(host))])
        session = agent.create_session()
        response = await agent.run("go", session=session)
        return client, session, response

    client, session, response = asyncio.run(main())
    assert ran == Counter(fetch_page=2)
    shown = {c.call_id: str(c.result) for m in client.seen[-1] for c in m.contents if c.type == "function_result"}
    assert shown["c-inj"] == WITHHELD_PREFIX + "the result holds instructions aimed at the model"
    assert shown["c-sec"] == MASKED_TEXT
    text = repr([[m.to_dict() for m in turn] for turn in client.seen])
    assert "IGNORE PREVIOUS" not in text and "SECRET-42" not in text
    [request] = response.user_input_requests
    assert request.function_call.name == "send_email"
    assert "untrusted content" in request.additional_properties["reason"]
    assert ran["send_email"] == 0
    [pending] = host.approvals.pending()
    assert pending.run_id == session.session_id
