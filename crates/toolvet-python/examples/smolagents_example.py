"""smolagents: guarded tools (callbacks run after steps) and the decision tool."""

import sys

from smolagents import ToolCallingAgent, tool
from smolagents.models import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction, MessageRole, Model

import toolvet
from toolvet.integrations.smolagents import as_smolagents_tool, guard

host = toolvet.Host.from_file(sys.argv[1] if len(sys.argv) > 1 else "toolvet.toml")


@tool
def delete_repository(repo: str) -> str:
    """Delete a repository.

    Args:
        repo: The repository.
    """
    return "deleted"


def call(name, args):
    return ChatMessageToolCall(id=name, type="function", function=ChatMessageToolCallFunction(name=name, arguments=args))


class Scripted(Model):  # stands in for your model
    script = [[call("toolvet_check", {"tool": "delete_repository", "arguments": {"repo": "acme/app"}})],
              [call("delete_repository", {"repo": "acme/app"})], [call("final_answer", {"answer": "done"})]]
    seen: list = []

    def generate(self, messages, **kwargs):
        self.seen.append(str(messages[-1].content if hasattr(messages[-1], "content") else messages[-1]))
        return ChatMessage(role=MessageRole.ASSISTANT, content="", tool_calls=self.script.pop(0))


model = Scripted(model_id="scripted")
ToolCallingAgent(tools=[guard(delete_repository, host), as_smolagents_tool(host)], model=model,
                 max_steps=4, verbosity_level=0).run("clean up")
print("asked:", model.seen[1][:120])
print("denied:", model.seen[2][:120])
assert "'status': 'deny'" in model.seen[1] and "Blocked by policy:" in model.seen[2]
