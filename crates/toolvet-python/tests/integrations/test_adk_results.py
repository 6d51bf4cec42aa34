"""Google ADK: what tools return is vetted in ``after_tool_callback`` (and the
plugin's), before the model reads it (contract-02: withhold, redact, and a label that
escalates the session's next call)."""

from __future__ import annotations

import asyncio
import json
from collections import Counter

import pytest

from policy import need

need("google.adk")

from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

from policy import INJECTION, MASKED_TEXT, SECRET_TEXT, make_results_host
from test_adk import ScriptedLlm, call, confirmations
from toolvet.integrations._base import WITHHELD_PREFIX
from toolvet.integrations.adk import PolicyPlugin, result_callback, tool_call_callback

ran: Counter = Counter()


def fetch_page(url: str) -> str:
    """Fetch a web page."""
    ran["fetch_page"] += 1
    return INJECTION if "evil" in url else SECRET_TEXT if "secret" in url else "a quiet page"


def read_config(name: str) -> dict:
    """Read a configuration."""
    ran["read_config"] += 1
    return {"name": name, "token": "tok-SECRET"}


def send_email(to: str) -> str:
    """Send an email."""
    ran["send_email"] += 1
    return f"sent to {to}"


@pytest.fixture
def rhost(tmp_path):
    ran.clear()
    return make_results_host(tmp_path)


SCRIPT = [
    [
        call("fetch_page", {"url": "https://secret.test"}, "c-sec"),
        call("read_config", {"name": "prod"}, "c-json"),
        call("fetch_page", {"url": "https://evil.test"}, "c-inj"),
    ],
    [call("send_email", {"to": "boss@corp.test"}, "c-send")],
]


@pytest.mark.parametrize("plugin", [False, True], ids=["callback", "plugin"])
def test_withheld_masked_and_a_label_escalates_the_next_call(rhost, plugin):
    async def main():
        llm = ScriptedLlm(script=[list(turn) for turn in SCRIPT], seen=[])
        before = tool_call_callback(rhost)
        callbacks = {} if plugin else {"before_tool_callback": before, "after_tool_callback": result_callback(before.gate)}
        agent = LlmAgent(name="ops", model=llm, tools=[fetch_page, read_config, send_email], **callbacks)
        app = App(name="app", root_agent=agent, plugins=[PolicyPlugin(rhost)] if plugin else [])
        runner = Runner(app=app, session_service=InMemorySessionService())
        session = await runner.session_service.create_session(app_name="app", user_id="u")
        events = []
        async for ev in runner.run_async(user_id="u", session_id=session.id, new_message=types.Content(role="user", parts=[types.Part(text="go")])):
            events.append(ev)
        assert ran == Counter(fetch_page=2, read_config=1)
        seen = llm.responses()
        assert seen["c-inj"] == {"error": WITHHELD_PREFIX + "the result holds instructions aimed at the model"}
        assert seen["c-sec"] == {"result": MASKED_TEXT}
        assert seen["c-json"] == {"name": "prod", "token": "[redacted: token]"}
        text = json.dumps([c.model_dump(mode="json") for turn in llm.seen for c in turn])
        assert "IGNORE PREVIOUS" not in text and "SECRET-42" not in text and "tok-SECRET" not in text
        # The label holds the session's outbound call for a person.
        [request] = confirmations(events)
        assert request.args["originalFunctionCall"]["name"] == "send_email"
        assert "untrusted content" in request.args["toolConfirmation"]["hint"]
        assert ran["send_email"] == 0
        [pending] = rhost.approvals.pending()
        assert (pending.tool, pending.run_id) == ("send_email", session.id)

    asyncio.run(main())
