"""PydanticAI: deny, then DeferredToolRequests resumed with DeferredToolResults."""

import sys
import uuid

from pydantic_ai import Agent, DeferredToolRequests
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import FunctionModel
from pydantic_ai.toolsets import FunctionToolset

import toolvet
from toolvet.integrations import Gate
from toolvet.integrations.pydantic_ai import guard, results

gate = Gate(toolvet.Host.from_file(sys.argv[1] if len(sys.argv) > 1 else "toolvet.toml"))


def rotate_key(service: str) -> str:
    """Rotate a service's API key."""
    return f"rotated the key of {service}"


def delete_repository(repo: str) -> str:
    """Delete a repository."""
    return "deleted"


ids = [uuid.uuid4().hex for _ in range(2)]


def model(messages, info):  # stands in for your model
    if len(messages) == 1:
        return ModelResponse(parts=[ToolCallPart("delete_repository", {"repo": "acme/app"}, tool_call_id=ids[0]),
                                    ToolCallPart("rotate_key", {"service": "billing"}, tool_call_id=ids[1])])
    return ModelResponse(parts=[TextPart("done")])


agent = Agent(FunctionModel(model), output_type=[str, DeferredToolRequests],
              toolsets=[guard(FunctionToolset([rotate_key, delete_repository]), gate)])
run = agent.run_sync("ship it")
requests = run.output
print("paused:", [c.tool_name for c in requests.approvals], requests.metadata[ids[1]]["reason"])

run = agent.run_sync(message_history=run.all_messages(),
                     deferred_tool_results=results(requests, gate, {ids[1]: True}, reviewer="alice"))
returns = {p.tool_call_id: p.model_response_str() for m in run.all_messages() for p in m.parts
           if p.part_kind in ("tool-return", "retry-prompt")}
print("denied:", returns[ids[0]])
print("approved:", returns[ids[1]])
assert "Blocked by policy:" in returns[ids[0]] and returns[ids[1]] == "rotated the key of billing"
