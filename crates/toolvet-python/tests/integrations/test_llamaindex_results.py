"""LlamaIndex: a guarded tool's ``raw_output`` is vetted before the agent reads it
(contract-02: withhold, redact, and a label that holds the run's next call), with
LlamaIndex's own MockFunctionCallingLLM."""

from __future__ import annotations

from collections import Counter

from policy import need

need("llama_index.core")

from llama_index.core.tools import FunctionTool

from policy import INJECTION, MASKED_TEXT, SECRET_TEXT, make_results_host
from test_llamaindex import Script, calls, run
from toolvet.integrations import Gate
from toolvet.integrations._base import WITHHELD_PREFIX
from toolvet.integrations.llamaindex import guard

ran: Counter = Counter()


def fetch_page(url: str) -> str:
    """Fetch a web page."""
    ran["fetch_page"] += 1
    return INJECTION if "evil" in url else SECRET_TEXT if "secret" in url else "a quiet page"


def send_email(to: str) -> str:
    """Send an email."""
    ran["send_email"] += 1
    return f"sent to {to}"


def test_withheld_masked_and_a_label_holds_the_next_call(tmp_path):
    ran.clear()
    host = make_results_host(tmp_path)
    tools = guard([FunctionTool.from_defaults(fn=f) for f in (fetch_page, send_email)], Gate(host), run_id="conv-1")
    script: Script = run(
        tools,
        [
            calls(("fetch_page", {"url": "https://secret.test"}, "c-sec"), ("fetch_page", {"url": "https://evil.test"}, "c-inj")),
            calls(("send_email", {"to": "boss@corp.test"}, "c-send")),
        ],
    )
    assert ran == Counter(fetch_page=2)
    first, last = script.seen[1], script.seen[-1]
    assert WITHHELD_PREFIX + "the result holds instructions aimed at the model" in first["c-inj"]
    assert first["c-sec"] == MASKED_TEXT
    assert "IGNORE PREVIOUS" not in repr(script.seen) and "SECRET-42" not in repr(script.seen)
    # LlamaIndex cannot pause: the held call is denied naming its approval request.
    assert "untrusted content" in last["c-send"] and "approval request apr_" in last["c-send"]
    assert ran["send_email"] == 0
    [pending] = host.approvals.pending()
    assert (pending.tool, pending.run_id) == ("send_email", "conv-1")
