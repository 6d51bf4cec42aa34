"""Microsoft Agent Framework: deny, then a function-approval request answered with reply()."""

import asyncio
import sys

from agent_framework import (Agent, BaseChatClient, ChatMiddlewareLayer, ChatResponse, Content,
                             FunctionInvocationLayer, Message, tool)

import toolvet
from toolvet.integrations import Gate
from toolvet.integrations.agent_framework import ToolCallCheckMiddleware, reply

gate = Gate(toolvet.Host.from_file(sys.argv[1] if len(sys.argv) > 1 else "toolvet.toml"))


@tool
def rotate_key(service: str) -> str:
    """Rotate a service's API key."""
    return f"rotated the key of {service}"


@tool
def delete_repository(repo: str) -> str:
    """Delete a repository."""
    return "deleted"


class Client(FunctionInvocationLayer, ChatMiddlewareLayer, BaseChatClient):  # stands in for your chat client
    turns = 0
    seen: list = []

    async def _inner_get_response(self, *, messages, stream, options, **kwargs):
        self.turns += 1
        self.seen = list(messages)
        contents = ([Content.from_function_call(call_id="c1", name="delete_repository", arguments={"repo": "acme/app"}),
                     Content.from_function_call(call_id="c2", name="rotate_key", arguments={"service": "billing"})]
                    if self.turns == 1 else [Content.from_text("done")])
        return ChatResponse(messages=[Message(role="assistant", contents=contents)])


async def main():
    client = Client()
    agent = Agent(client=client, tools=[rotate_key, delete_repository], middleware=[ToolCallCheckMiddleware(gate)])
    session = agent.create_session()
    response = await agent.run("ship it", session=session)
    print("paused:", [r.function_call.name for r in response.user_input_requests])

    await agent.run(reply(response.user_input_requests, gate, {"c2": True}, reviewer="alice", session=session),
                    session=session)
    results = {c.call_id: str(c.result) for m in client.seen for c in m.contents if c.type == "function_result"}
    print("denied:", results["c1"])
    print("approved:", results["c2"])
    assert results["c1"].startswith("Blocked by policy:") and "rotated the key of billing" in results["c2"]


asyncio.run(main())
