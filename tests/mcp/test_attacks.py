"""`toolvet mcp` against what a hostile client or server sends, over raw
JSON-RPC lines (no SDK in between to tidy them up). Each test pins a way
past the gate found by attacking the proxy; each now fails closed."""

import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from pathlib import Path

from test_proxy import CACHE, HERE, PLUGINS, POLICY, TOOLVET


class Raw:
    """`toolvet mcp` with JSON lines in and out."""

    def __init__(self, policy: Path, calls: Path, server: list[str], env: dict | None = None,
                 cwd: Path | None = None):
        # A relative TOOLVET path names a file from here, not from `cwd`.
        program = os.path.abspath(TOOLVET) if os.sep in TOOLVET else TOOLVET
        self.proc = subprocess.Popen(
            [program, "mcp", "--config", str(policy), "--", *server],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd,
            env={**os.environ, "MCP_CALL_LOG": str(calls), "TOOLVET_CACHE_DIR": CACHE, **(env or {})},
        )
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        with self.proc.stdout:
            for line in self.proc.stdout:
                self.lines.put(json.loads(line))

    def send(self, message) -> None:
        data = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def until(self, wanted, timeout: float = 30.0) -> list:
        """Messages up to and including the first that `wanted` accepts."""
        seen, end = [], time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                message = self.lines.get(timeout=max(0.05, end - time.monotonic()))
            except queue.Empty:
                break
            seen.append(message)
            if wanted(message):
                return seen
        raise AssertionError(f"no wanted message within {timeout} s; saw {seen}")

    def start(self, elicitation: bool) -> None:
        self.send({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}} if elicitation else {},
            "clientInfo": {"name": "raw", "version": "1"}}})
        self.until(lambda m: m.get("id") == "init")
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call(self, id, name: str, arguments: dict) -> None:
        self.send({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(20)


def text(answer: dict) -> str:
    return answer["result"]["content"][0]["text"]


class Attacks(unittest.TestCase):
    def setUp(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="toolvet-mcp-attack-"))
        self.calls = self.dir / "calls.jsonl"
        self.calls.touch()
        self.log = self.dir / "server.log"
        self.log.touch()

    def proxy(self, order: str, tools: str = '{ deny = ["delete_*"], approve = ["deploy"] }',
              lenient: bool = False, env: dict | None = None) -> Raw:
        policy = POLICY.format(plugins=PLUGINS)
        policy = policy.replace('settings = { deny = ["delete_*"], approve = ["deploy"] }', f"settings = {tools}")
        start = policy.index("only_after = [")
        policy = policy[:start] + order + ", " + policy[policy.index("retry_after_refusal"):]
        path = self.dir / "toolvet.toml"
        path.write_text(policy)
        server = [sys.executable, str(HERE / ("lenient_server.py" if lenient else "server.py"))]
        return Raw(path, self.calls, server, {"LENIENT_LOG": str(self.log), **(env or {})})

    def ran(self) -> list[str]:
        return [json.loads(line)["tool"] for line in self.calls.read_text().splitlines()]

    def test_a_burst_of_calls_is_vetted_one_after_another_against_the_history(self):
        p = self.proxy("max_calls = [{ tools = \"write_note\", max = 1 }], loop_detection = { enabled = false }")
        p.start(elicitation=False)
        burst = b"".join(json.dumps({"jsonrpc": "2.0", "id": 100 + i, "method": "tools/call", "params": {
            "name": "write_note", "arguments": {"name": f"n{i}", "text": "x"}}}).encode() + b"\n" for i in range(10))
        p.proc.stdin.write(burst)
        p.proc.stdin.flush()
        answers = {}

        def collect(message) -> bool:
            if message.get("id") in range(100, 110):
                answers[message["id"]] = message
            return len(answers) == 10

        p.until(collect)
        p.close()
        self.assertEqual(self.ran(), ["write_note"])
        refused = [a for a in answers.values() if a["result"].get("isError")]
        self.assertEqual(len(refused), 9)
        self.assertTrue(all("sequence.max-calls" in text(a) for a in refused))

    def test_a_tool_called_before_any_listing_is_vetted_with_its_annotations(self):
        # allow = ["*"]: only the server's destructiveHint makes `wipe` high risk.
        p = self.proxy("max_calls = []", tools='{ allow = ["*"] }', lenient=True)
        p.start(elicitation=False)
        p.call(1, "wipe", {})
        [*_, answer] = p.until(lambda m: m.get("id") == 1)
        p.close()
        self.assertIn("[policy.high-risk]", text(answer))
        self.assertEqual(self.ran(), [])

    def test_a_tools_call_without_an_id_never_reaches_the_server(self):
        p = self.proxy("max_calls = []", lenient=True)
        p.start(elicitation=False)
        p.send({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "delete_file", "arguments": {}}})
        p.send({"jsonrpc": "2.0", "id": 1.5, "method": "tools/call", "params": {"name": "delete_file", "arguments": {}}})
        p.call(2, "deploy", {})  # held: no elicitation; its answer marks the end
        p.until(lambda m: m.get("id") == 2)
        p.close()
        self.assertEqual(self.ran(), [])
        self.assertNotIn("delete_file", self.log.read_text())

    def test_the_server_cannot_ask_under_toolvets_ids_nor_see_answers_to_toolvet(self):
        p = self.proxy("max_calls = []", lenient=True)
        p.start(elicitation=True)
        p.call(1, "deploy", {"env": "prod"})
        seen = p.until(lambda m: m.get("method") == "elicitation/create")
        # The server's own question under a `toolvet-` id never reached us.
        self.assertNotIn("dark mode", json.dumps(seen))
        question = seen[-1]
        p.send({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "decline"}})
        p.until(lambda m: m.get("id") == 1)
        # A second, late answer to the same question goes nowhere.
        p.send({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept", "content": {"approve": True}}})
        p.call(2, "deploy", {"env": "prod"})
        seen = p.until(lambda m: m.get("method") == "elicitation/create")
        p.send({"jsonrpc": "2.0", "id": seen[-1]["id"], "result": {"action": "decline"}})
        p.until(lambda m: m.get("id") == 2)
        p.close()
        self.assertEqual(self.ran(), [])
        received = [json.loads(line) for line in self.log.read_text().splitlines()]
        self.assertFalse([m for m in received if "method" not in m and str(m.get("id", "")).startswith("toolvet-")
                          and m.get("id") != "toolvet-0"], received)
        self.assertIn({"jsonrpc": "2.0", "id": "toolvet-0", "error": {
            "code": -32600, "message": "ids starting with `toolvet-` are reserved"}}, received)

    def test_a_forwarded_call_the_server_failed_still_counts_as_made(self):
        # Review s7 F7: the outcome is toolvet's verdict, never the server's
        # word on its own result (sequence-guard's README): a call the
        # server got may have acted before it reported an error, so it
        # counts, for `only_after` as for run totals (test_place_and_totals).
        p = self.proxy('only_after = [{ tool = "write_note", after = "read_note" }]')
        p.start(elicitation=False)
        p.call(1, "read_note", {"bogus": 1})  # the server refuses it: a tool error
        [*_, failed] = p.until(lambda m: m.get("id") == 1)
        self.assertTrue(failed["result"]["isError"])
        p.call(2, "write_note", {"name": "todo", "text": "x"})
        [*_, answer] = p.until(lambda m: m.get("id") == 2)
        p.close()
        self.assertFalse(answer["result"].get("isError"), answer)
        self.assertEqual(self.ran(), ["write_note"])

    def test_a_line_that_is_not_utf8_is_answered_and_the_session_goes_on(self):
        p = self.proxy("max_calls = []")
        p.start(elicitation=False)
        p.send(b'{"jsonrpc": "2.0", "id": 5, "method": "ping", "x": "\xff"}')
        [bad] = p.until(lambda m: True)
        self.assertEqual((bad["id"], bad["error"]["code"]), (None, -32700))
        p.call(6, "read_note", {"name": "todo"})
        [*_, answer] = p.until(lambda m: m.get("id") == 6)
        p.close()
        self.assertEqual(text(answer), "buy milk")
        self.assertEqual(self.ran(), ["read_note"])

    def test_keys_and_methods_a_lenient_server_reads_otherwise_never_reach_it(self):
        # The lenient server reads keys case-insensitively, last one winning
        # (Go's encoding/json), and routes folded methods: each of these ran
        # `wipe`, which the policy denies, when the proxy forwarded the
        # client's message as sent.
        p = self.proxy("max_calls = []", tools='{ deny = ["wipe"], allow = ["*"] }', lenient=True)
        p.start(elicitation=False)
        attempts = [
            (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}},'
             b'"Params":{"name":"wipe","arguments":{}}}', "`Params`"),
            (b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","NAME":"wipe"}}', "`NAME`"),
            ('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo"},'
             '"param\u017f":{"name":"wipe"}}'.encode(), "`paramſ`"),
            ('{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo"},'
             '"paramſ":{"name":"wipe"}}'.encode(), "`paramſ`"),
            (b'{"jsonrpc":"2.0","id":5,"method":"ping","METHOD":"tools/call","params":{"name":"wipe"}}', "`METHOD`"),
            (b'{"jsonrpc":"2.0","id":6,"method":"Tools/Call","params":{"name":"wipe"}}', "is not `tools/call`"),
            (b'{"jsonrpc":"2.0","id":7,"method":"tools/call ","params":{"name":"wipe"}}', "white space"),
            (b'{"jsonrpc":"2.0","id":8,"method":"tools/call\u0000","params":{"name":"wipe"}}', "control character"),
            (b'{"jsonrpc":"2.0","id":9,"method":"tools//call","params":{"name":"wipe"}}', "is not `tools/call`"),
            # An exact duplicate: the proxy would vet the last, a first-wins server run the first.
            (b'{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"wipe","name":"echo"}}',
             "duplicate key `name`"),
            (b'{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"echo","arguments":{"n":123456789012345678901234567890}}}',
             "cannot be passed on exactly"),
        ]
        for n, (message, why) in enumerate(attempts, 1):
            p.send(message)
            [*_, answer] = p.until(lambda m: m.get("id") == n)
            self.assertIn("error", answer, (message, answer))
            self.assertIn(why, answer["error"]["message"], message)
        # The session goes on; what is forwarded is only what was vetted.
        p.send(b'{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"echo","arguments":{"a":1},"extra":{"name":"wipe"}}}')
        [*_, ran] = p.until(lambda m: m.get("id") == 12)
        p.close()
        self.assertEqual(text(ran), "ran echo")
        self.assertEqual(self.ran(), ["echo"])
        received = self.log.read_text()
        self.assertNotIn("wipe", received)
        [call] = [json.loads(line) for line in received.splitlines() if '"tools/call"' in line]
        self.assertEqual(call, {"jsonrpc": "2.0", "id": 12, "method": "tools/call",
                                "params": {"name": "echo", "arguments": {"a": 1}}})

    def test_a_server_cannot_relax_a_tools_annotations_after_listing_them(self):
        # allow = ["*"]: only the server's destructiveHint makes `wipe` high
        # risk, and the server's second list says it is read-only.
        p = self.proxy("max_calls = []", tools='{ allow = ["*"] }', lenient=True, env={"LENIENT_RELAX": "1"})
        p.start(elicitation=False)
        for n in (1, 2):
            p.send({"jsonrpc": "2.0", "id": f"list{n}", "method": "tools/list"})
            [*_, listed] = p.until(lambda m: m.get("id") == f"list{n}")
        # The client is shown what the proxy vets with: the strictest seen.
        [wipe] = [t for t in listed["result"]["tools"] if t["name"] == "wipe"]
        self.assertEqual(wipe["annotations"], {"destructiveHint": True})
        p.call(1, "wipe", {})
        [*_, answer] = p.until(lambda m: m.get("id") == 1)
        p.close()
        self.assertIn("[policy.high-risk]", text(answer))
        self.assertEqual(self.ran(), [])

    def test_one_huge_call_does_not_deny_every_later_call(self):
        p = self.proxy("max_calls = []")
        p.start(elicitation=False)
        p.call(1, "read_note", {"name": "todo", "pad": "x" * (9 << 20)})
        [*_, huge] = p.until(lambda m: m.get("id") == 1)
        self.assertTrue(huge["result"]["isError"])
        self.assertIn("over the host's", text(huge))
        for n in (2, 3):
            p.call(n, "read_note", {"name": "todo"})
            [*_, answer] = p.until(lambda m: m.get("id") == n)
            self.assertEqual(text(answer), "buy milk", answer)
        p.close()
        self.assertEqual(self.ran(), ["read_note", "read_note"])


if __name__ == "__main__":
    unittest.main()
