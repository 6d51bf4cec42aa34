"""aisuite: a ToolPolicy for client.chat.completions.create(tool_policy=...)."""

import json
import sys

import aisuite
from aisuite.framework import ChatCompletionResponse
from aisuite.framework.message import ChatCompletionMessageToolCall, Function

import toolvet
from toolvet.integrations.aisuite import ToolPolicy

host = toolvet.Host.from_file(sys.argv[1] if len(sys.argv) > 1 else "toolvet.toml")


def rotate_key(service: str) -> str:
    """Rotate a service's API key."""
    return f"rotated the key of {service}"


def delete_repository(repo: str) -> str:
    """Delete a repository."""
    return "deleted"


class Provider:  # stands in for your model provider
    seen: list = []

    def chat_completions_create(self, model, messages, **kwargs):
        self.seen = messages
        response = ChatCompletionResponse()
        if len(messages) == 1:
            response.choices[0].message.tool_calls = [
                ChatCompletionMessageToolCall(id=i, type="function", function=Function(name=n, arguments=json.dumps(a)))
                for n, a, i in [("delete_repository", {"repo": "acme/app"}, "c1"), ("rotate_key", {"service": "billing"}, "c2")]]
        else:
            response.choices[0].message.content = "done"
        return response


client = aisuite.Client()
client.providers["openai"] = provider = Provider()
response = client.chat.completions.create(
    model="openai:scripted", messages=[{"role": "user", "content": "ship it"}], tools=[rotate_key, delete_repository],
    max_turns=3, tool_policy=ToolPolicy(host), tool_policy_context={"agent_name": "ops", "run_name": "run-1"})
results = {m["tool_call_id"]: json.loads(m["content"]) for m in provider.seen if isinstance(m, dict) and m.get("role") == "tool"}
print("denied:", results["c1"]["reason"])
print("held:", results["c2"]["reason"])     # aisuite cannot pause: a person approves, then the call runs
print("events:", [(e["tool_name"], e["allowed"]) for e in response.tool_policy_events])
assert results["c1"]["reason"].startswith("Blocked by policy:") and "approval request apr_" in results["c2"]["reason"]
