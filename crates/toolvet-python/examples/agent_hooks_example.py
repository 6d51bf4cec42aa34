"""AGENT-HOOKS-0.1: toolvet as an interceptor of the SDK's own host (its InterceptionEmitter)."""

import asyncio
import sys
import uuid

from agent_hooks import AgentContextBuilder, InterceptionBlocked

import toolvet
from toolvet.integrations.agent_hooks import ToolvetInterceptor, guarded_emitter

interceptor = ToolvetInterceptor(toolvet.Host.from_file(sys.argv[1] if len(sys.argv) > 1 else "toolvet.toml"))


def ask(request, payload):  # stands in for your host's approval UI: a person answers
    print("a person is asked:", payload["reason"])
    return True


# sequential/first_deny with on_approval resume, toolvet last, its holds lifted only through its ledger;
# your own interceptors go in before=[...], a resolver for their holds in others=.
emitter = guarded_emitter(interceptor, ask=ask, reviewer="alice")
session = AgentContextBuilder(agent_id="ops-agent", framework="my-agent", session_id=str(uuid.uuid4()))


async def call(call_id, name, args):
    try:
        await emitter.emit(session.pre_tool_call(call_id=call_id, name=name, args=args))
        return "ran"
    except InterceptionBlocked as blocked:
        return blocked.result.verdict.reason


async def main():
    answers = [await call("c1", "bash", {"command": "ls"}), await call("c2", "bash", {"command": "rm -rf ~"}),
               await call("c3", "rotate_key", {"service": "billing"}),
               await call("c3", "rotate_key", {"service": "billing"})]
    for label, answer in zip(["allowed", "denied", "approved", "replayed"], answers):
        print(f"{label}:", answer)
    assert answers == ["ran", "shell.rm-home", "ran", "approval.replayed"]


asyncio.run(main())
