"""LlamaIndex: guarded tools (no pre-call hook exists) and the decision tool."""

import asyncio
import sys

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.tools import FunctionTool, ToolSelection

import toolvet
from toolvet.integrations.llamaindex import as_llamaindex_tool, guard

host = toolvet.Host.from_file(sys.argv[1] if len(sys.argv) > 1 else "toolvet.toml")


def delete_repository(repo: str) -> str:
    """Delete a repository."""
    return "deleted"


tools = [guard(FunctionTool.from_defaults(fn=delete_repository), host), as_llamaindex_tool(host)]
seen = {}


def model(messages, **kwargs):  # stands in for your LLM
    seen.update({m.additional_kwargs.get("tool_call_id"): str(m.content) for m in messages if m.role == "tool"})
    if seen:
        return ChatMessage(role="assistant", content="done")
    return ChatMessage(role="assistant", content="", additional_kwargs={"tool_calls": [
        ToolSelection(tool_id="c1", tool_name="toolvet_check",
                      tool_kwargs={"tool": "rotate_key", "arguments": {"service": "billing"}}),
        ToolSelection(tool_id="c2", tool_name="delete_repository", tool_kwargs={"repo": "acme/app"})]})


async def main():
    await FunctionAgent(tools=tools, llm=MockFunctionCallingLLM(response_generator=model)).run("ship it")


asyncio.run(main())
print("asked:", seen["c1"])
print("denied:", seen["c2"])
assert "'status': 'escalate'" in seen["c1"] and seen["c2"].startswith("Blocked by policy:")
