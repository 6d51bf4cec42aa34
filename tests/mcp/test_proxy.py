"""`toolvet mcp` between a real MCP client (the Python SDK's ClientSession)
and a real MCP server (tests/mcp/server.py, the SDK's MCPServer), on stdio.

Run: python -m unittest tests/mcp/test_proxy.py (TOOLVET = the binary)."""

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

ROOT = Path(__file__).resolve().parents[2]
TOOLVET = os.environ.get("TOOLVET", str(ROOT / "target/release/toolvet"))
SERVER = str(Path(__file__).with_name("server.py"))


def write_policy(directory: Path) -> Path:
    text = Path(__file__).with_name("policy.toml.in").read_text()
    text = text.replace("@CACHE@", str(ROOT / "target/tmp/cache"))
    text = text.replace("@PLUGINS@", str(ROOT / "target/plugins"))
    path = directory / "toolvet.toml"
    path.write_text(text)
    return path


def text_of(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


class Answers:
    """An elicitation callback that answers from a queue and records the questions."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.questions = []

    async def __call__(self, context, params):
        self.questions.append(params.message)
        action, approve = self.answers.pop(0)
        content = None if action != "accept" else {"approve": approve}
        return types.ElicitResult(action=action, content=content)


class ProxyTest(unittest.IsolatedAsyncioTestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp(prefix="toolvet-mcp-"))
        self.policy = write_policy(self.dir)
        self.changed = 0

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    async def on_message(self, message):
        if isinstance(message, types.ServerNotification) and isinstance(
            message, types.ToolListChangedNotification
        ) or getattr(message, "method", None) == "notifications/tools/list_changed":
            self.changed += 1

    def params(self):
        return StdioServerParameters(
            command=TOOLVET,
            args=["mcp", "--config", str(self.policy), "--", sys.executable, SERVER],
            cwd=str(self.dir),
        )

    async def session(self, stack, elicitation=None):
        read, write = await stack.enter_async_context(stdio_client(self.params()))
        kwargs = {"message_handler": self.on_message}
        if elicitation is not None:
            kwargs["elicitation_callback"] = elicitation
        session = await stack.enter_async_context(ClientSession(read, write, **kwargs))
        await session.initialize()
        return session

    async def test_allow_deny_and_pass_through(self):
        from contextlib import AsyncExitStack

        async with AsyncExitStack() as stack:
            s = await self.session(stack)
            allowed = await s.call_tool("echo", {"text": "hi"})
            self.assertFalse(allowed.is_error)
            self.assertEqual(text_of(allowed), "echo: hi")

            denied = await s.call_tool("drop_database", {"name": "prod"})
            self.assertTrue(denied.is_error, "a deny is a tool result with isError")
            self.assertIn("toolvet denied this call [policy.", text_of(denied))
            self.assertEqual(denied.meta["toolvet/verdict"]["decision"], "deny")

            # Not found stays the server's own answer, not toolvet's deny.
            try:
                missing = await s.call_tool("no_such_tool", {})
                self.assertNotIn("toolvet", text_of(missing))
            except Exception as e:  # a JSON-RPC error from the server
                self.assertNotIn("toolvet denied", str(e))

            # Resources, prompts and progress pass through unchanged.
            notes = await s.read_resource("notes://today")
            self.assertEqual(notes.contents[0].text, "buy milk")
            prompt = await s.get_prompt("greet", {"name": "Ada"})
            self.assertIn("Ada", prompt.messages[0].content.text)
            seen = []

            async def progress(p, total, message):
                seen.append(p)

            counted = await s.call_tool("slow_count", {"n": 3}, progress_callback=progress)
            self.assertEqual(text_of(counted), "counted to 3")
            self.assertEqual(seen, [1, 2, 3])

    async def test_hidden_tools_and_list_changed(self):
        from contextlib import AsyncExitStack

        async with AsyncExitStack() as stack:
            s = await self.session(stack)
            names = {t.name for t in (await s.list_tools()).tools}
            self.assertIn("echo", names)
            self.assertNotIn("drop_database", names, "never allowed: hidden")
            self.assertNotIn("release", names, "locked until run_tests ran")
            tool = next(t for t in (await s.list_tools()).tools if t.name == "deploy")
            self.assertIsNotNone(tool)
            await s.call_tool("run_tests", {})
            for _ in range(50):
                if self.changed:
                    break
                await asyncio.sleep(0.05)
            self.assertGreaterEqual(self.changed, 1, "notifications/tools/list_changed")
            names = {t.name for t in (await s.list_tools()).tools}
            self.assertIn("release", names)
            released = await s.call_tool("release", {"version": "1.0"})
            self.assertEqual(text_of(released), "released 1.0")

    async def test_escalate_with_elicitation_approve_then_reject(self):
        from contextlib import AsyncExitStack

        answers = Answers(("accept", True), ("decline", None), ("accept", False))
        async with AsyncExitStack() as stack:
            s = await self.session(stack, elicitation=answers)
            approved = await s.call_tool("deploy", {"env": "prod"})
            self.assertFalse(approved.is_error, text_of(approved))
            self.assertEqual(text_of(approved), "deployed to prod")
            self.assertIn("deploy", answers.questions[0])
            rejected = await s.call_tool("deploy", {"env": "staging"})
            self.assertTrue(rejected.is_error)
            self.assertIn("rejected this call", text_of(rejected))
            unticked = await s.call_tool("deploy", {"env": "dev"})
            self.assertTrue(unticked.is_error, "accept without approve: true is no approval")
        out = subprocess.run(
            [TOOLVET, "approvals", "list", "--status", "all", "--format", "json", "--config", str(self.policy)],
            capture_output=True, text=True, check=True,
        ).stdout
        statuses = sorted(json.loads(line)["status"] for line in out.splitlines())
        self.assertEqual(statuses, ["consumed", "rejected", "rejected"])

    async def test_escalate_without_elicitation_names_the_request_and_resumes_once_approved(self):
        from contextlib import AsyncExitStack

        async with AsyncExitStack() as stack:
            s = await self.session(stack)
            held = await s.call_tool("deploy", {"env": "prod"})
            self.assertTrue(held.is_error)
            request = held.meta["toolvet/verdict"]["approval"]
            self.assertIn(request, text_of(held))
            subprocess.run(
                [TOOLVET, "approvals", "approve", request, "--reviewer", "alice", "--config", str(self.policy)],
                check=True, capture_output=True,
            )
            ran = await s.call_tool("deploy", {"env": "prod"})
            self.assertEqual(text_of(ran), "deployed to prod")
            again = await s.call_tool("deploy", {"env": "prod"})
            self.assertTrue(again.is_error, "an approval runs the call once")

    async def test_upstream_crash_mid_call_is_a_clear_error(self):
        from contextlib import AsyncExitStack

        async with AsyncExitStack() as stack:
            s = await self.session(stack)
            self.assertEqual(text_of(await s.call_tool("echo", {"text": "a"})), "echo: a")
            with self.assertRaises(Exception) as caught:
                await s.call_tool("crash", {})
            self.assertIn("closed the connection", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
