"""What `toolvet mcp` adds per tool call: the same MCP client makes N
`read_note` calls to the test server directly, then through the proxy
(allowed by the policy's two checks), and prints the median and p99 per
call of each, side by side in one run.

    target/py-mcp/bin/python tests/mcp/bench.py [-n 500]
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_proxy import CACHE, HERE, PLUGINS, POLICY, TOOLVET  # noqa: E402


async def timings(params: StdioServerParameters, n: int) -> list[float]:
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await session.list_tools()
            for _ in range(20):  # warm-up
                await session.call_tool("read_note", {"name": "todo"})
            out = []
            for _ in range(n):
                start = time.perf_counter()
                await session.call_tool("read_note", {"name": "todo"})
                out.append(time.perf_counter() - start)
            return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=500)
    n = parser.parse_args().n
    work = Path(tempfile.mkdtemp(prefix="toolvet-mcp-bench-"))
    policy = work / "toolvet.toml"
    # No loop detection here: the same call is repeated on purpose.
    text = POLICY.format(plugins=PLUGINS)
    off = "blind_overwrite = { enabled = false }"
    text = text.replace(off, off + ", loop_detection = { enabled = false }")
    policy.write_text(text)
    # The same without tool hiding: no previews after each call.
    unhidden = work / "unhidden.toml"
    unhidden.write_text(text.replace('hide_denied_tools = ["tools", "order"]', ""))
    env = {**os.environ, "MCP_CALL_LOG": os.devnull, "TOOLVET_CACHE_DIR": CACHE}
    server = [sys.executable, str(HERE / "server.py")]
    direct = StdioServerParameters(command=server[0], args=server[1:], env=env)
    proxied = StdioServerParameters(command=TOOLVET, args=["mcp", "--config", str(policy), "--", *server], env=env)
    plain = StdioServerParameters(command=TOOLVET, args=["mcp", "--config", str(unhidden), "--", *server], env=env)
    rows = []
    for name, params in [("direct", direct), ("toolvet mcp", proxied), ("no hiding", plain)]:
        t = sorted(anyio.run(timings, params, n))
        rows.append((name, statistics.median(t) * 1e6, t[int(len(t) * 0.99) - 1] * 1e6))
    print(f"{n} read_note calls, one client, one at a time")
    for name, p50, p99 in rows:
        print(f"  {name:12} p50 {p50:8.0f} µs   p99 {p99:8.0f} µs")
    for name, p50, _ in rows[1:]:
        print(f"  added by {name}: p50 {p50 - rows[0][1]:.0f} µs")


if __name__ == "__main__":
    main()
