"""Google ADK: deny, then request_confirmation, answered with adk_request_confirmation."""

import asyncio
import sys
import uuid

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

import toolvet
from toolvet.integrations.adk import tool_call_callback

host = toolvet.Host.from_file(sys.argv[1] if len(sys.argv) > 1 else "toolvet.toml")


def rotate_key(service: str) -> str:
    """Rotate a service's API key."""
    return f"rotated the key of {service}"


def delete_repository(repo: str) -> str:
    """Delete a repository."""
    return "deleted"


class Model(BaseLlm):  # stands in for your model
    model: str = "scripted"
    turns: int = 0

    async def generate_content_async(self, llm_request, stream=False):
        self.turns += 1
        call = lambda name, args, id: types.Part(function_call=types.FunctionCall(name=name, args=args, id=id))
        parts = ([call("delete_repository", {"repo": "acme/app"}, "c1"), call("rotate_key", {"service": "billing"}, "c2")]
                 if self.turns == 1 else [types.Part(text="done")])
        yield LlmResponse(content=types.Content(role="model", parts=parts))


async def main():
    agent = LlmAgent(name="ops", model=Model(), tools=[rotate_key, delete_repository],
                     before_tool_callback=tool_call_callback(host))
    runner = Runner(agent=agent, app_name="ops", session_service=InMemorySessionService())
    session = await runner.session_service.create_session(app_name="ops", user_id="u", session_id=str(uuid.uuid4()))

    async def send(*parts):
        events = []
        async for event in runner.run_async(user_id="u", session_id=session.id,
                                            new_message=types.Content(role="user", parts=list(parts))):
            events.append(event)
        return [p for e in events if e.content for p in e.content.parts or []]

    parts = await send(types.Part(text="ship it"))
    denied = next(p.function_response.response for p in parts if p.function_response and p.function_response.id == "c1")
    confirm = next(p.function_call for p in parts if p.function_call and p.function_call.name == "adk_request_confirmation")
    print("denied:", denied["error"])
    print("paused:", confirm.args["toolConfirmation"]["hint"])

    parts = await send(types.Part(function_response=types.FunctionResponse(
        name="adk_request_confirmation", id=confirm.id, response={"confirmed": True, "payload": {"reviewer": "alice"}})))
    result = next(p.function_response.response for p in parts if p.function_response and p.function_response.id == "c2")
    print("approved:", result)
    assert denied["error"].startswith("Blocked by policy:") and result == {"result": "rotated the key of billing"}


asyncio.run(main())
