"""`toolvet mcp` between a real MCP client and a real MCP server: the
Python `mcp` package's ClientSession over stdio talks to the proxy, which
runs server.py (an MCPServer). Needs the CLI and the Rust plugins
(`make mcp-tests` builds them): TOOLVET is the binary, TOOLVET_PLUGINS the
directory of tool_policy.wasm and sequence_guard.wasm."""

import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from mcp.types import ElicitResult, ResourceTemplateReference, ToolListChangedNotification

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
TOOLVET = os.environ.get("TOOLVET", str(ROOT / "target/release/toolvet"))
PLUGINS = Path(os.environ.get("TOOLVET_PLUGINS", ROOT / "target/plugins"))
CACHE = os.environ.get("TOOLVET_CACHE_DIR", str(ROOT / "target/toolvet-cache"))

POLICY = """
[approvals]
ledger = "approvals.db"
key_file = "approvals.key"

[mcp]
hide_denied_tools = ["tools", "order"]
approval_timeout_secs = 20

[[check]]
name = "tools"
plugin = "{plugins}/tool_policy.wasm"
settings = {{ deny = ["delete_*"], approve = ["deploy"] }}

[[check]]
name = "order"
plugin = "{plugins}/sequence_guard.wasm"
settings = {{ only_after = [{{ tool = "write_note", after = "read_note" }}], retry_after_refusal = {{ enabled = false }}, blind_overwrite = {{ enabled = false }} }}
"""


def text_of(result) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


class ProxyCase(unittest.IsolatedAsyncioTestCase):
    """A policy, a call log and the ledger CLI for one test (no tests)."""

    def setUp(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="toolvet-mcp-"))
        self.policy = self.dir / "toolvet.toml"
        self.policy.write_text(POLICY.format(plugins=PLUGINS))
        self.calls = self.dir / "calls.jsonl"
        self.calls.touch()

    def ran(self) -> list[dict]:
        """The calls that reached the server."""
        return [json.loads(line) for line in self.calls.read_text().splitlines()]

    def approvals(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [TOOLVET, "approvals", *args, "--config", str(self.policy)],
            capture_output=True, text=True, env={**os.environ, "TOOLVET_CACHE_DIR": CACHE},
        )

    def stdio_proxy(self, policy: Path | None = None) -> StdioServerParameters:
        """`toolvet mcp` over stdio in front of server.py."""
        return StdioServerParameters(
            command=TOOLVET,
            args=["mcp", "--config", str(policy or self.policy), "--", sys.executable, str(HERE / "server.py")],
            env={**os.environ, "MCP_CALL_LOG": str(self.calls), "TOOLVET_CACHE_DIR": CACHE},
        )

    @asynccontextmanager
    async def session(self, *, elicit=None, on_message=None, policy: Path | None = None):
        async with stdio_client(self.stdio_proxy(policy)) as (read, write):
            async with ClientSession(
                read, write, elicitation_callback=elicit, message_handler=on_message, read_timeout_seconds=60
            ) as session:
                await session.initialize()
                yield session


class Proxy(ProxyCase):
    async def test_allow_runs_the_call_and_its_result_comes_back(self):
        async with self.session() as s:
            result = await s.call_tool("read_note", {"name": "todo"})
        self.assertFalse(result.is_error)
        self.assertEqual(text_of(result), "buy milk")
        self.assertEqual(self.ran(), [{"tool": "read_note", "arguments": {"name": "todo"}}])

    async def test_deny_is_a_tool_error_the_model_reads_and_the_server_never_sees(self):
        async with self.session() as s:
            result = await s.call_tool("delete_file", {"path": "/etc/passwd"})
            self.assertTrue(result.is_error)
            self.assertIn("toolvet denied this call [policy.denied-tool]", text_of(result))
            # The session survives the deny.
            after = await s.call_tool("read_note", {"name": "todo"})
            self.assertEqual(text_of(after), "buy milk")
        self.assertEqual([c["tool"] for c in self.ran()], ["read_note"])

    async def test_tools_list_hides_denied_tools_until_a_sequence_unlocks_one(self):
        changed = anyio.Event()

        async def on_message(message) -> None:
            if isinstance(message, ToolListChangedNotification):
                changed.set()

        async with self.session(on_message=on_message) as s:
            names = {t.name for t in (await s.list_tools()).tools}
            self.assertEqual(names, {"read_note", "deploy", "crash"})
            # write_note is locked until read_note ran; a direct call is denied.
            early = await s.call_tool("write_note", {"name": "todo", "text": "x"})
            self.assertTrue(early.is_error)
            self.assertIn("sequence.only-after", text_of(early))
            self.assertFalse(changed.is_set())
            await s.call_tool("read_note", {"name": "todo"})
            with anyio.fail_after(10):
                await changed.wait()
            names = {t.name for t in (await s.list_tools()).tools}
            self.assertEqual(names, {"read_note", "write_note", "deploy", "crash"})
            wrote = await s.call_tool("write_note", {"name": "todo", "text": "eggs"})
            self.assertFalse(wrote.is_error, text_of(wrote))
        self.assertEqual([c["tool"] for c in self.ran()], ["read_note", "write_note"])

    async def test_escalate_asks_the_person_in_the_client_and_an_approval_runs_the_call_once(self):
        asked = []

        async def elicit(context, params):
            asked.append(params)
            return ElicitResult(action="accept", content={"approve": True, "message": "ship it"})

        async with self.session(elicit=elicit) as s:
            result = await s.call_tool("deploy", {"env": "prod"})
        self.assertFalse(result.is_error, text_of(result))
        self.assertEqual(text_of(result), "deployed to prod")
        self.assertEqual(len(asked), 1)
        self.assertIn("Tool: deploy", asked[0].message)
        self.assertIn('"env": "prod"', asked[0].message)
        self.assertEqual(self.ran(), [{"tool": "deploy", "arguments": {"env": "prod"}}])
        # The answer is in the ledger as that person's review, and used.
        listed = self.approvals("list", "--status", "all", "--format", "json")
        self.assertEqual(listed.returncode, 0, listed.stderr)
        [request] = [json.loads(line) for line in listed.stdout.splitlines() if line.strip()] or [None]
        self.assertEqual(request["status"], "consumed", request)
        self.assertTrue(request["review"]["reviewer"].startswith("mcp-client:"), request)
        self.assertEqual(request["review"]["message"], "ship it")

    async def test_a_rejection_in_the_client_refuses_the_call_with_the_message(self):
        async def elicit(context, params):
            return ElicitResult(action="accept", content={"approve": False, "message": "not today"})

        async with self.session(elicit=elicit) as s:
            result = await s.call_tool("deploy", {"env": "prod"})
        self.assertTrue(result.is_error)
        self.assertIn("rejected this call [policy.requires-approval]: not today", text_of(result))
        self.assertEqual(self.ran(), [])

    async def test_a_dismissed_question_leaves_the_request_open_for_a_reviewer(self):
        async def elicit(context, params):
            return ElicitResult(action="cancel")

        async with self.session(elicit=elicit) as s:
            result = await s.call_tool("deploy", {"env": "prod"})
        self.assertTrue(result.is_error)
        self.assertIn("The user dismissed the question", text_of(result))
        self.assertIn("approval request apr_", text_of(result))
        self.assertEqual(self.ran(), [])

    async def test_without_elicitation_the_deny_names_the_request_and_an_unsigned_cli_approval_does_not_count(self):
        async with self.session() as s:
            held = await s.call_tool("deploy", {"env": "staging"})
            self.assertTrue(held.is_error)
            text = text_of(held)
            self.assertIn("declared no elicitation", text)
            found = re.search(r"approval request (apr_[A-Za-z0-9_-]+)", text)
            self.assertIsNotNone(found, text)
            request_id = found.group(1)
            # The model is told a person must approve it, never how: no
            # command, no policy path it could run itself.
            self.assertIn("Only a person can approve it, outside this session", text)
            for handed in ("toolvet approvals", "approve " + request_id, "--config", "--reviewer",
                           str(self.policy), "toolvet.toml"):
                self.assertNotIn(handed, text)
            self.assertEqual(self.ran(), [])
            # The policy lists no reviewer keys: an approval in the ledger
            # may be the agent's own, so it does not count (a signed one
            # does: test_ledger.py).
            approved = self.approvals("approve", request_id, "--reviewer", "alice", "--seen")
            self.assertEqual(approved.returncode, 0, approved.stderr)
            again = await s.call_tool("deploy", {"env": "staging"})
            self.assertTrue(again.is_error)
            self.assertIn("toolvet denied this call [approval.unsigned-decision]", text_of(again))
        self.assertEqual(self.ran(), [])

    async def test_the_question_shows_every_key_or_is_not_asked(self):
        # Review s5 F9: the arguments were cut at 2048 bytes in the caller's
        # key order, so a padding key hid `env: prod` from the person.
        asked = []

        async def elicit(context, params):
            asked.append(params)
            return ElicitResult(action="cancel")

        pad = "Routine rotation of the STAGING keys; nothing in production is touched. " * 40
        async with self.session(elicit=elicit) as s:
            padded = await s.call_tool("deploy", {"summary": pad, "env": "prod", "revoke_all_sessions": True})
            self.assertTrue(padded.is_error)
            self.assertEqual(len(asked), 1)
            # Every value whole (review s11 K5: a cut hid the middle).
            for shown in ('"env": "prod"', '"revoke_all_sessions": true',
                          f'"summary": "{pad}"'):
                self.assertIn(shown, asked[0].message)
            # Arguments that cannot all be shown: the person is not asked in
            # the client; the request stays open for a reviewer.
            many = await s.call_tool("deploy", {f"k{i:03}": "v" for i in range(300)} | {"env": "prod"})
            self.assertTrue(many.is_error)
            self.assertEqual(len(asked), 1)
            self.assertIn("too long to show in full in the client's question", text_of(many))
            self.assertIn("approval request apr_", text_of(many))
        self.assertEqual(self.ran(), [])

    async def test_resources_and_prompts_pass_through(self):
        async with self.session() as s:
            resource = await s.read_resource("note://todo")
            self.assertEqual(resource.contents[0].text, "buy milk")
            prompt = await s.get_prompt("greet", {"who": "Ada"})
            self.assertIn("Say hello to Ada.", prompt.messages[0].content.text)
            templates = await s.list_resource_templates()
            self.assertEqual([t.uri_template for t in templates.resource_templates], ["note://{name}"])

    async def test_a_server_that_crashes_mid_call_gives_the_client_a_clear_error(self):
        async with self.session() as s:
            with self.assertRaises(MCPError) as caught:
                await s.call_tool("crash", {})
            self.assertIn("the MCP server exited", str(caught.exception))
            self.assertIn("before answering `tools/call`", str(caught.exception))
            with self.assertRaises(MCPError) as later:
                await s.call_tool("read_note", {"name": "todo"})
            self.assertIn("cannot be answered", str(later.exception))

    async def test_the_proxy_exits_when_the_client_closes_its_input(self):
        # Raw JSON-RPC lines: a client that closes stdin and then waits,
        # without killing the proxy. A forwarded request's 300 s timeout
        # timer must not keep it alive.
        lines = [
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
             "params": {"name": "read_note", "arguments": {"name": "todo"}}},
        ]
        proc = await anyio.open_process(
            [TOOLVET, "mcp", "--config", str(self.policy), "--", sys.executable, str(HERE / "server.py")],
            env={**os.environ, "MCP_CALL_LOG": str(self.calls), "TOOLVET_CACHE_DIR": CACHE},
        )
        async with proc:
            out = b""
            for line in lines:
                await proc.stdin.send((json.dumps(line) + "\n").encode())
            with anyio.fail_after(30):
                while out.count(b"\n") < 2:
                    out += await proc.stdout.receive()
            await proc.stdin.aclose()
            with anyio.fail_after(20):
                code = await proc.wait()
        self.assertEqual(code, 0)
        answers = [json.loads(line) for line in out.decode().splitlines()]
        self.assertEqual(answers[1]["id"], 2)
        self.assertEqual(answers[1]["result"]["content"][0]["text"], "buy milk")

    async def test_a_policy_that_does_not_load_never_starts_the_server(self):
        broken = self.dir / "broken.toml"
        broken.write_text(POLICY.format(plugins=PLUGINS) + "\n[mcp.extra]\n")
        proc = subprocess.run(
            [TOOLVET, "mcp", "--config", str(broken), "--", sys.executable, str(HERE / "server.py")],
            input="", capture_output=True, text=True,
            env={**os.environ, "MCP_CALL_LOG": str(self.calls), "TOOLVET_CACHE_DIR": CACHE},
        )
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("[mcp]", proc.stderr)
        self.assertEqual(proc.stdout, "")


def example_policy(directory: Path) -> str:
    """examples/toolvet.toml's tool-policy, paths and egress checks, with
    their settings, the plugins from PLUGINS and the ledger in
    `directory`."""
    text = (ROOT / "examples/toolvet.toml").read_text()
    checks = [c for c in text.split("[[check]]")[1:]
              if re.search(r'^name = "(tool-policy|paths|egress)"$', c, re.M)]
    assert len(checks) == 3, "the example policy's checks were renamed"
    body = "".join("[[check]]" + c for c in checks).replace("../target/plugins", str(PLUGINS))
    return f'''[approvals]
ledger = "{directory}/approvals.db"
key_file = "{directory}/approvals.key"

{body}'''


class ResourceReads(ProxyCase):
    """Review s5 F10: resources/read (which agents let the model use:
    Claude Code's ReadMcpResourceTool, Codex's read_mcp_resource) was
    forwarded unvetted."""

    async def test_a_resource_read_is_vetted_like_a_call(self):
        policy = self.dir / "example.toml"
        policy.write_text(example_policy(self.dir))
        async with stdio_client(self.stdio_proxy(policy)) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=60) as s:
                await s.initialize()
                with self.assertRaises(MCPError) as denied:
                    await s.read_resource("file:///root/.ssh/id_rsa")
                # path-guard reads a `file:` uri as the key's path (review
                # s10 H7), egress-guard refuses its scheme: either refusal.
                self.assertRegex(str(denied.exception), r"toolvet denied this call \[(path\.sensitive|egress\.)")
                self.assertIn("`file:` scheme", str(denied.exception))
                self.assertNotIn("SECRET", str(denied.exception))
                guide = await s.read_resource("https://docs.acme.com/guide")
                self.assertEqual(guide.contents[0].text, "the guide")
        self.assertEqual(self.ran(), [{"tool": "resources/read", "arguments": {"uri": "https://docs.acme.com/guide"}}])

    async def test_a_completion_is_vetted_like_a_call(self):
        """Review s7: completion/complete (the server runs its code on the
        model's text, or lists what lies at a path) was forwarded unvetted."""
        ref = ResourceTemplateReference(type="ref/resource", uri="note://{name}")
        argument = {"name": "name", "value": "to"}
        async with stdio_client(self.stdio_proxy()) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=60) as s:
                await s.initialize()
                done = await s.complete(ref, argument)
                self.assertEqual(done.completion.values, ["todo"])
        self.assertEqual(self.ran(), [{"tool": "completion/complete", "arguments": {"argument": "name", "value": "to"}}])
        denying = self.dir / "denying.toml"
        denying.write_text(self.policy.read_text().replace('deny = ["delete_*"]', 'deny = ["delete_*", "completion/*"]'))
        async with stdio_client(self.stdio_proxy(denying)) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=60) as s:
                await s.initialize()
                with self.assertRaises(MCPError) as denied:
                    await s.complete(ref, argument)
                self.assertIn("toolvet denied this", str(denied.exception))
        self.assertEqual(len(self.ran()), 1)


if __name__ == "__main__":
    unittest.main()
