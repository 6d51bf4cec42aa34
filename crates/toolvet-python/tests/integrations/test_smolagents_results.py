"""smolagents: a guarded tool's output is vetted in its ``forward`` before the agent
reads it (contract-02: withhold, redact, and a label that holds the run's next call),
with a scripted Model driving ToolCallingAgent."""

from __future__ import annotations

from collections import Counter

from policy import need

need("smolagents")

from smolagents import ToolCallingAgent, tool

from policy import INJECTION, MASKED_TEXT, SECRET_TEXT, make_results_host
from test_smolagents import FINAL, ScriptedModel, calls
from toolvet.integrations import Gate
from toolvet.integrations._base import WITHHELD_PREFIX
from toolvet.integrations.smolagents import guard

ran: Counter = Counter()


@tool
def fetch_page(url: str) -> str:
    """Fetch a web page.

    Args:
        url: The page.
    """
    ran["fetch_page"] += 1
    return INJECTION if "evil" in url else SECRET_TEXT if "secret" in url else "a quiet page"


@tool
def send_email(to: str) -> str:
    """Send an email.

    Args:
        to: The address.
    """
    ran["send_email"] += 1
    return f"sent to {to}"


def test_withheld_masked_and_a_label_holds_the_next_call(tmp_path):
    ran.clear()
    host = make_results_host(tmp_path)
    model = ScriptedModel(
        [
            calls(("fetch_page", {"url": "https://secret.test"}, "c-sec")),
            calls(("fetch_page", {"url": "https://evil.test"}, "c-inj")),
            calls(("send_email", {"to": "boss@corp.test"}, "c-send")),
            FINAL,
        ]
    )
    agent = ToolCallingAgent(tools=guard([fetch_page, send_email], Gate(host), run_id="conv-1"), model=model, max_steps=5, verbosity_level=0)
    agent.run("go")
    assert ran == Counter(fetch_page=2)
    assert MASKED_TEXT in model.seen[1]
    assert WITHHELD_PREFIX + "the result holds instructions aimed at the model" in model.seen[2]
    assert not any("IGNORE PREVIOUS" in s or "SECRET-42" in s for s in model.seen)
    # smolagents cannot pause: the held call is denied naming its approval request.
    assert "untrusted content" in model.seen[3] and "approval request apr_" in model.seen[3]
    assert ran["send_email"] == 0
    [pending] = host.approvals.pending()
    assert (pending.tool, pending.run_id) == ("send_email", "conv-1")
