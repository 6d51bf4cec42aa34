"""OpenAI Agents SDK: a guarded tool's output is vetted before the model reads it
(contract-02: withhold, redact, and a label that escalates the run's next call)."""

from __future__ import annotations

import asyncio
import json
from collections import Counter

import pytest

from policy import need

need("agents")

from agents import Agent, Runner, function_tool, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message, function_call

from policy import INJECTION, MASKED_TEXT, SECRET_TEXT, make_results_host
from toolvet.integrations._base import WITHHELD_PREFIX, Gate
from toolvet.integrations.openai_agents import guard, run_config

set_tracing_disabled(True)

ran: Counter = Counter()


@function_tool
def fetch_page(url: str) -> str:
    """Fetch a web page."""
    ran["fetch_page"] += 1
    return INJECTION if "evil" in url else SECRET_TEXT if "secret" in url else "a quiet page"


@function_tool
def send_email(to: str) -> str:
    """Send an email."""
    ran["send_email"] += 1
    return f"sent to {to}"


@pytest.fixture
def rhost(tmp_path):
    ran.clear()
    return make_results_host(tmp_path)


def outputs(model):
    """Every tool output the model was shown, by call id, and all the text it read."""
    found, text = {}, []
    for call in model.calls:
        text.append(json.dumps(call.input, default=str))
        for item in call.input if isinstance(call.input, list) else []:
            if isinstance(item, dict) and item.get("type") == "function_call_output":
                found[item["call_id"]] = item["output"]
    return found, "\n".join(text)


def test_withheld_masked_and_a_label_escalates_the_next_call(rhost):
    async def main():
        gate = Gate(rhost)
        model = ScriptedModel(
            [
                [
                    function_call("fetch_page", {"url": "https://secret.test"}, call_id="c-sec"),
                    function_call("fetch_page", {"url": "https://evil.test"}, call_id="c-inj"),
                ],
                [function_call("send_email", {"to": "boss@corp.test"}, call_id="c-send")],
                [assistant_message("done")],
            ]
        )
        agent = Agent(name="ops", model=model, tools=[guard(t, gate, run_id=lambda ctx: "conv-1") for t in (fetch_page, send_email)])
        result = await Runner.run(agent, "go", run_config=run_config())
        assert ran == Counter(fetch_page=2)
        seen, text = outputs(model)
        assert seen["c-inj"] == WITHHELD_PREFIX + "the result holds instructions aimed at the model"
        assert "IGNORE PREVIOUS" not in text
        assert seen["c-sec"] == MASKED_TEXT
        assert "SECRET-42" not in text
        # The label holds the run's outbound call for a person.
        assert [i.name for i in result.interruptions] == ["send_email"]
        assert ran["send_email"] == 0
        [pending] = rhost.approvals.pending()
        assert (pending.tool, pending.run_id) == ("send_email", "conv-1")
        assert "untrusted content" in (pending.reason or "")

    asyncio.run(main())


def test_no_result_checks_no_vetting(host):
    async def main():
        ran.clear()
        model = ScriptedModel([[function_call("fetch_page", {"url": "https://evil.test"}, call_id="c1")], [assistant_message("done")]])
        agent = Agent(name="ops", model=model, tools=[guard(fetch_page, host)])
        await Runner.run(agent, "go", run_config=run_config())
        assert outputs(model)[0]["c1"] == INJECTION

    asyncio.run(main())
