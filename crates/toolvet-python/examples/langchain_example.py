"""LangChain v1: deny, then pause for a person and resume through LangGraph."""

import sys
import uuid

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

import toolvet
from toolvet.integrations.langchain import ToolCallCheckMiddleware

host = toolvet.Host.from_file(sys.argv[1] if len(sys.argv) > 1 else "toolvet.toml")


@tool
def rotate_key(service: str) -> str:
    """Rotate a service's API key."""
    return f"rotated the key of {service}"


@tool
def delete_repository(repo: str) -> str:
    """Delete a repository."""
    return "deleted"


class Model(GenericFakeChatModel):  # stands in for your chat model
    def bind_tools(self, tools, **kwargs):
        return self


model = Model(messages=iter([
    AIMessage("", tool_calls=[{"name": "delete_repository", "args": {"repo": "acme/app"}, "id": "c1"},
                              {"name": "rotate_key", "args": {"service": "billing"}, "id": "c2"}]),
    AIMessage("done"),
]))
agent = create_agent(model, [rotate_key, delete_repository],
                     middleware=[ToolCallCheckMiddleware(host)], checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": str(uuid.uuid4())}}

out = agent.invoke({"messages": [{"role": "user", "content": "ship it"}]}, config, version="v2")
request = out.interrupts[0].value["action_requests"][0]
print("paused:", request["name"], request["args"])          # HumanInTheLoopMiddleware's request shape

out = agent.invoke(Command(resume={"decisions": [{"type": "approve", "reviewer": "alice"}]}), config, version="v2")
results = {m.tool_call_id: m.content for m in out.value["messages"] if m.type == "tool"}
print("denied:", results["c1"])
print("approved:", results["c2"])
assert results["c1"].startswith("Blocked by policy:") and results["c2"] == "rotated the key of billing"
