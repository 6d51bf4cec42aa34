"""`toolvet mcp --upstream URL --listen ADDR`, the Streamable HTTP mode,
between a real MCP client and a real MCP server: the Python `mcp`
package's ClientSession over `streamable_http_client` talks to the proxy,
which gates server.py served over Streamable HTTP by the same package.
Every test of the stdio mode (test_proxy.Proxy) runs again this way; the
ones about processes and stdio are replaced by their HTTP counterparts."""

import os
import re
import socket
import subprocess
import sys
import time
import unittest
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import ElicitResult

from test_proxy import CACHE, HERE, POLICY, PLUGINS, TOOLVET, Proxy, text_of


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the MCP server exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port}")


class HttpProxy(Proxy):
    def start_server(self) -> str:
        port = free_port()
        server = subprocess.Popen(
            [sys.executable, str(HERE / "server.py"), "http", str(port)],
            env={**os.environ, "MCP_CALL_LOG": str(self.calls)},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        self.addCleanup(lambda: (server.kill(), server.wait()))
        wait_for_port(port, server)
        return f"http://127.0.0.1:{port}/mcp"

    def start_proxy(self, upstream: str, policy: Path | None = None) -> str:
        proxy = subprocess.Popen(
            [TOOLVET, "mcp", "--config", str(policy or self.policy), "--upstream", upstream,
             "--listen", "127.0.0.1:0"],
            env={**os.environ, "TOOLVET_CACHE_DIR": CACHE},
            stderr=subprocess.PIPE, text=True,
        )
        self.addCleanup(lambda: (proxy.kill(), proxy.wait(), proxy.stderr.close()))
        line = proxy.stderr.readline()
        found = re.search(r"at (http://127\.0\.0\.1:\d+/mcp)", line)
        self.assertIsNotNone(found, line)
        return found.group(1)

    @asynccontextmanager
    async def session(self, *, elicit=None, on_message=None, policy: Path | None = None):
        url = self.start_proxy(self.start_server(), policy)
        async with streamable_http_client(url) as (read, write):
            async with ClientSession(
                read, write, elicitation_callback=elicit, message_handler=on_message, read_timeout_seconds=60
            ) as session:
                await session.initialize()
                yield session

    async def test_escalate_asks_the_person_in_the_client_and_an_approval_runs_the_call_once(self):
        """Review s10 H23: over `--listen` any program on the machine (the
        agent's own code too) can open a session and answer toolvet's
        question itself, so the client is never asked: the call is held
        for a reviewer outside the session, whatever the client answers."""
        asked = []

        async def elicit(context, params):
            asked.append(params)
            return ElicitResult(action="accept", content={"approve": True, "message": "self-approved"})

        async with self.session(elicit=elicit) as s:
            result = await s.call_tool("deploy", {"env": "prod"})
            again = await s.call_tool("deploy", {"env": "prod"})
        for held in (result, again):
            self.assertTrue(held.is_error)
            self.assertIn("connected over HTTP", text_of(held))
            self.assertIn("approval request apr_", text_of(held))
            self.assertIn("Only a person can approve it, outside this session", text_of(held))
        self.assertEqual(asked, [])
        self.assertEqual(self.ran(), [])

    # The client is never asked over HTTP (above), so these stdio tests of
    # its answers are that one test here.
    test_a_rejection_in_the_client_refuses_the_call_with_the_message = (
        test_escalate_asks_the_person_in_the_client_and_an_approval_runs_the_call_once
    )
    test_a_dismissed_question_leaves_the_request_open_for_a_reviewer = (
        test_escalate_asks_the_person_in_the_client_and_an_approval_runs_the_call_once
    )
    test_the_question_shows_every_key_or_is_not_asked = (
        test_escalate_asks_the_person_in_the_client_and_an_approval_runs_the_call_once
    )

    async def test_a_server_that_crashes_mid_call_gives_the_client_a_clear_error(self):
        async with self.session() as s:
            with self.assertRaises(MCPError) as caught:
                await s.call_tool("crash", {})
            self.assertIn("the MCP server", str(caught.exception))
            with self.assertRaises(MCPError) as later:
                await s.call_tool("read_note", {"name": "todo"})
            self.assertIn("cannot be reached", str(later.exception))
        self.assertEqual([c["tool"] for c in self.ran()], ["crash"])

    async def test_the_proxy_exits_when_the_client_closes_its_input(self):
        self.skipTest("stdio only: an HTTP proxy serves until SIGTERM (test_sigterm_stops_the_proxy)")

    def test_sigterm_stops_the_proxy(self):
        proxy = subprocess.Popen(
            [TOOLVET, "mcp", "--config", str(self.policy), "--upstream", "http://127.0.0.1:9/mcp",
             "--listen", "127.0.0.1:0"],
            env={**os.environ, "TOOLVET_CACHE_DIR": CACHE}, stderr=subprocess.PIPE, text=True,
        )
        self.addCleanup(proxy.stderr.close)
        self.assertIn("gating", proxy.stderr.readline())
        proxy.terminate()
        self.assertEqual(proxy.wait(timeout=20), 0)

    async def test_a_policy_that_does_not_load_never_starts_the_server(self):
        broken = self.dir / "broken.toml"
        broken.write_text(POLICY.format(plugins=PLUGINS) + "\n[mcp.extra]\n")
        proc = subprocess.run(
            [TOOLVET, "mcp", "--config", str(broken), "--upstream", "http://127.0.0.1:9/mcp",
             "--listen", "127.0.0.1:0"],
            capture_output=True, text=True, env={**os.environ, "TOOLVET_CACHE_DIR": CACHE}, timeout=60,
        )
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("[mcp]", proc.stderr)
        self.assertNotIn("gating", proc.stderr)

    async def test_an_unreachable_server_fails_initialize_with_the_reason(self):
        url = self.start_proxy(f"http://127.0.0.1:{free_port()}/mcp")
        with self.assertRaises(Exception) as caught:
            async with streamable_http_client(url) as (read, write):
                async with ClientSession(read, write, read_timeout_seconds=30) as session:
                    await session.initialize()
        self.assertIn("cannot be reached", repr(caught.exception))

    async def test_requests_without_a_session_with_an_unknown_one_or_malformed_are_refused(self):
        url = self.start_proxy(self.start_server())
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "read_note", "arguments": {"name": "todo"}}}
        headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
        async with httpx2.AsyncClient() as http:
            missing = await http.post(url, json=call, headers=headers)
            self.assertEqual(missing.status_code, 400)
            self.assertIn("Mcp-Session-Id", missing.json()["error"]["message"])
            unknown = await http.post(url, json=call, headers={**headers, "mcp-session-id": "nope"})
            self.assertEqual(unknown.status_code, 404)
            garbage = await http.post(url, content=b"{not json", headers=headers)
            self.assertEqual(garbage.status_code, 400)
            self.assertEqual(garbage.json()["error"]["code"], -32700)
            batch = await http.post(url, json=[call], headers=headers)
            self.assertEqual(batch.status_code, 400)
            self.assertIn("batches", batch.json()["error"]["message"])
        self.assertEqual(self.ran(), [])

    async def test_a_web_page_cannot_use_the_endpoint_rebinding_other_origins_or_text_bodies(self):
        """Review s6 finding 2: a page (DNS rebinding) opened a session with its own Host and Origin
        and a text/plain body, called tools and answered its own elicitation."""
        url = self.start_proxy(self.start_server())
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "page", "version": "1"}}}
        accept = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
        async with httpx2.AsyncClient(timeout=30) as http:
            for headers, status, why in [
                ({"host": f"rebind.evil.example:{port}"}, 403, "Host"),
                ({"host": "rebind.evil.example"}, 403, "Host"),
                ({"host": f"127.0.0.1:{port + 1 if port < 65535 else 1}"}, 403, "Host"),
                ({"origin": f"http://rebind.evil.example:{port}"}, 403, "origin"),
                ({"origin": "http://evil.example"}, 403, "origin"),
                ({"origin": "null"}, 403, "origin"),
                ({"origin": f"https://127.0.0.1:{port}"}, 403, "origin"),
                # Review s7 L1: a page on another address with the endpoint's port is another origin.
                ({"origin": f"http://93.184.216.34:{port}"}, 403, "origin"),
                ({"origin": f"http://localhost:{port}"}, 403, "origin"),
                ({"content-type": "text/plain"}, 415, "application/json"),
                ({"content-type": "application/jsonx"}, 415, "application/json"),
            ]:
                refused = await http.post(url, json=init, headers={**accept, **headers})
                self.assertEqual(refused.status_code, status, headers)
                self.assertNotIn("mcp-session-id", refused.headers, headers)
                self.assertIn(why, refused.json()["error"]["message"], headers)
            for method in ("GET", "DELETE"):
                refused = await http.request(method, url, headers={"origin": "http://evil.example",
                                                                   "mcp-session-id": "x"})
                self.assertEqual(refused.status_code, 403, method)
            # The endpoint's own origin, `localhost`, and clients sending no Origin are served.
            for headers in [{}, {"origin": f"http://127.0.0.1:{port}"}, {"host": f"localhost:{port}"},
                            {"content-type": "application/json; charset=utf-8"}]:
                async with http.stream("POST", url, json=init, headers={**accept, **headers}) as opened:
                    self.assertEqual(opened.status_code, 200, headers)
                    self.assertIn("mcp-session-id", opened.headers, headers)
        self.assertEqual(self.ran(), [])

    async def test_keys_and_methods_a_lenient_server_reads_otherwise_are_refused(self):
        url = self.start_proxy(self.start_server())
        headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
        init = {"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}
        async with httpx2.AsyncClient(timeout=30) as http:
            async with http.stream("POST", url, json=init, headers=headers) as opened:
                self.assertEqual(opened.status_code, 200)
                session = {**headers, "mcp-session-id": opened.headers["mcp-session-id"]}
                async for line in opened.aiter_lines():
                    if line.startswith("data:"):
                        break
            done = await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                                   headers=session)
            self.assertEqual(done.status_code, 202)
            for n, (body, why) in enumerate([
                (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_note","arguments":{"name":"todo"}},'
                 b'"Params":{"name":"delete_file","arguments":{"path":"/x"}}}', "`Params`"),
                (b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_note","NAME":"delete_file"}}',
                 "`NAME`"),
                ('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_note"},'
                 '"paramſ":{"name":"delete_file"}}'.encode(), "`paramſ`"),
                (b'{"jsonrpc":"2.0","id":4,"method":"ping","METHOD":"tools/call","params":{"name":"delete_file"}}',
                 "`METHOD`"),
                (b'{"jsonrpc":"2.0","id":5,"method":"Tools/Call","params":{"name":"delete_file"}}', "is not `tools/call`"),
                (b'{"jsonrpc":"2.0","id":6,"method":"tools/call ","params":{"name":"delete_file"}}', "white space"),
                (b'{"jsonrpc":"2.0","id":7,"method":"tools/call\u0000","params":{"name":"delete_file"}}',
                 "control character"),
                (b'{"jsonrpc":"2.0","id":8,"method":"tools//call","params":{"name":"delete_file"}}', "is not `tools/call`"),
                (b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"delete_file","name":"read_note"}}',
                 "duplicate key `name`"),
            ], 1):
                refused = await http.post(url, content=body, headers=session)
                self.assertEqual(refused.status_code, 400, body)
                error = refused.json()
                self.assertEqual(error["id"], n, error)
                self.assertIn(why, error["error"]["message"], body)
        self.assertEqual(self.ran(), [])

# Run only this module's tests, not the imported stdio class's again.
del Proxy

if __name__ == "__main__":
    unittest.main()
