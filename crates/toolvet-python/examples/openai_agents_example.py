"""OpenAI Agents SDK: deny, then an approval interruption resumed from RunState."""

import asyncio
import sys
import uuid

from agents import Agent, Runner, function_tool, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message, function_call

import toolvet
from toolvet.integrations import Gate
from toolvet.integrations.openai_agents import approve, guard, run_config

set_tracing_disabled(True)
gate = Gate(toolvet.Host.from_file(sys.argv[1] if len(sys.argv) > 1 else "toolvet.toml"))


@function_tool
def rotate_key(service: str) -> str:
    """Rotate a service's API key."""
    return f"rotated the key of {service}"


@function_tool
def delete_repository(repo: str) -> str:
    """Delete a repository."""
    return "deleted"


async def main():
    ids = [f"call-{uuid.uuid4().hex[:8]}" for _ in range(2)]
    model = ScriptedModel([  # stands in for your model
        [function_call("delete_repository", {"repo": "acme/app"}, call_id=ids[0]),
         function_call("rotate_key", {"service": "billing"}, call_id=ids[1])],
        [assistant_message("done")],
    ])
    agent = Agent(name="ops", model=model, tools=[guard(t, gate) for t in (rotate_key, delete_repository)])
    result = await Runner.run(agent, "ship it", run_config=run_config())
    print("paused:", [item.name for item in result.interruptions])

    state = result.to_state()
    approve(state, state.get_interruptions()[0], gate, reviewer="alice")   # recorded in toolvet's ledger
    result = await Runner.run(agent, state, run_config=run_config())
    outputs = {i["call_id"]: i["output"] for i in model.last_call.input
               if isinstance(i, dict) and i.get("type") == "function_call_output"}
    print("denied:", outputs[ids[0]])
    print("approved:", outputs[ids[1]])
    assert outputs[ids[0]].startswith("Blocked by policy:") and outputs[ids[1]] == "rotated the key of billing"


asyncio.run(main())
