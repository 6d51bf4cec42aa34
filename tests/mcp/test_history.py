"""`toolvet mcp`'s session history end to end (fifth review F3): large
calls must not push earlier calls out of the history the checks see, or
every rule that counts or sums over the run (sequence-guard's `max_calls`
here, spend-guard's `run_hard` in the review) starts from zero."""

import json
import os
import sys
import tempfile
import unittest
from pathlib import Path

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
TOOLVET = os.environ.get("TOOLVET", str(ROOT / "target/release/toolvet"))
PLUGINS = Path(os.environ.get("TOOLVET_PLUGINS", ROOT / "target/plugins"))
CACHE = os.environ.get("TOOLVET_CACHE_DIR", str(ROOT / "target/toolvet-cache"))

# Half of max_call_bytes (100 kB) is what the history may take: five 40 kB
# calls are over it, as five 950 kB ones are under the default 8 MiB.
POLICY = """
[host]
max_call_bytes = 200000

[[check]]
name = "order"
plugin = "{plugins}/sequence_guard.wasm"
settings = {{ max_calls = [{{ tools = "write_note", max = 3 }}], loop_detection = {{ enabled = false }}, retry_after_refusal = {{ enabled = false }}, blind_overwrite = {{ enabled = false }} }}
"""


def text_of(result) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


class History(unittest.IsolatedAsyncioTestCase):
    def setUp(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="toolvet-mcp-history-"))
        self.policy = self.dir / "toolvet.toml"
        self.policy.write_text(POLICY.format(plugins=PLUGINS))
        self.calls = self.dir / "calls.jsonl"
        self.calls.touch()

    def ran(self) -> list[dict]:
        return [json.loads(line) for line in self.calls.read_text().splitlines()]

    async def test_large_calls_do_not_flush_what_the_run_counted(self):
        params = StdioServerParameters(
            command=TOOLVET,
            args=["mcp", "--config", str(self.policy), "--", sys.executable, str(HERE / "server.py")],
            env={**os.environ, "MCP_CALL_LOG": str(self.calls), "TOOLVET_CACHE_DIR": CACHE},
        )
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=120) as s:
                await s.initialize()
                for i in range(3):
                    result = await s.call_tool("write_note", {"name": f"n{i}", "text": "x"})
                    self.assertFalse(result.is_error, text_of(result))
                result = await s.call_tool("write_note", {"name": "n3", "text": "x"})
                self.assertIn("[sequence.max-calls]", text_of(result))
                # Five 40 kB calls that run: 200 kB of history.
                for i in range(5):
                    result = await s.call_tool("read_note", {"name": f"{i}" + "A" * 40_000})
                    self.assertFalse(result.is_error, text_of(result))
                result = await s.call_tool("write_note", {"name": "n4", "text": "x"})
                self.assertTrue(result.is_error, text_of(result))
                self.assertIn("[sequence.max-calls]", text_of(result))
        self.assertEqual([c["arguments"]["name"] for c in self.ran() if c["tool"] == "write_note"], ["n0", "n1", "n2"])


if __name__ == "__main__":
    unittest.main()
