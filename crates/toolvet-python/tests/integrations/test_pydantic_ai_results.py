"""PydanticAI: what a guarded toolset's tools return is vetted before the model
reads it (contract-02: withhold, redact, and a label that escalates the run's next
call), with PydanticAI's own FunctionModel."""

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

from policy import INJECTION, MASKED_TEXT, SECRET_TEXT, make_results_host
from toolvet.integrations._base import WITHHELD_PREFIX, Gate
from toolvet.integrations.pydantic_ai import guard

ran: Counter = Counter()


def fetch_page(url: str) -> str:
    """Fetch a web page."""
    ran["fetch_page"] += 1
    return INJECTION if "evil" in url else SECRET_TEXT if "secret" in url else "a quiet page"


def send_email(to: str) -> str:
    """Send an email."""
    ran["send_email"] += 1
    return f"sent to {to}"


TURNS = [
    [
        ToolCallPart("fetch_page", {"url": "https://secret.test"}, tool_call_id="c-sec"),
        ToolCallPart("fetch_page", {"url": "https://evil.test"}, tool_call_id="c-inj"),
    ],
    [ToolCallPart("send_email", {"to": "boss@corp.test"}, tool_call_id="c-send")],
]


def test_withheld_masked_and_a_label_escalates_the_next_call(tmp_path):
    ran.clear()
    host = make_results_host(tmp_path)
    seen: list = []

    def script(messages, info):
        seen.append(list(messages))
        turn = len(seen) - 1
        return ModelResponse(parts=list(TURNS[turn]) if turn < len(TURNS) else [TextPart("done")])

    async def main():
        toolset = guard(FunctionToolset([fetch_page, send_email]), Gate(host), run_id=lambda ctx: "conv-1")
        agent = Agent(FunctionModel(script), output_type=[str, DeferredToolRequests], toolsets=[toolset])
        return await agent.run("go")

    result = asyncio.run(main())
    assert ran == Counter(fetch_page=2)
    shown = {}
    for m in seen[-1]:
        if isinstance(m, ModelRequest):
            for p in m.parts:
                if isinstance(p, (ToolReturnPart, RetryPromptPart)):
                    shown[p.tool_call_id] = p.model_response_str() if hasattr(p, "model_response_str") else str(p.content)
    assert WITHHELD_PREFIX + "the result holds instructions aimed at the model" in shown["c-inj"]
    assert shown["c-sec"] == MASKED_TEXT
    text = repr(seen)
    assert "IGNORE PREVIOUS" not in text and "SECRET-42" not in text
    # The label holds the run's outbound call for a person.
    assert isinstance(result.output, DeferredToolRequests)
    assert [c.tool_name for c in result.output.approvals] == ["send_email"]
    assert "untrusted content" in result.output.metadata["c-send"]["reason"]
    assert ran["send_email"] == 0
