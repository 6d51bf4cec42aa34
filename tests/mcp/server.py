"""A real MCP server (the Python SDK's MCPServer, stdio or Streamable HTTP)
for the `toolvet mcp` tests: tools with annotations, a resource, a prompt,
progress, and a tool that kills the server mid-call."""

import os
import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ToolAnnotations

server = MCPServer("toolvet-test-server")
calls = []


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def echo(text: str) -> str:
    """Echo the text back."""
    calls.append("echo")
    return f"echo: {text}"


@server.tool(annotations=ToolAnnotations(destructiveHint=True))
def drop_database(name: str) -> str:
    """Drop a database."""
    return f"dropped {name}"


@server.tool()
def deploy(env: str) -> str:
    """Deploy to an environment."""
    return f"deployed to {env}"


@server.tool()
def run_tests() -> str:
    """Run the test suite."""
    return "all tests passed"


@server.tool()
def release(version: str) -> str:
    """Publish a release (only after the tests ran)."""
    return f"released {version}"


@server.tool()
async def slow_count(n: int, ctx: Context) -> str:
    """Count to n, reporting progress."""
    for i in range(n):
        await ctx.report_progress(i + 1, n)
    return f"counted to {n}"


@server.tool()
def crash() -> str:
    """Exit the server process in the middle of the call."""
    sys.stdout.flush()
    os._exit(3)


@server.resource("notes://today")
def notes() -> str:
    """Today's notes."""
    return "buy milk"


@server.prompt()
def greet(name: str) -> str:
    """A greeting prompt."""
    return f"Say hello to {name}"


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "http":
        server.settings.port = int(sys.argv[2])
        server.run(transport="streamable-http")
    else:
        server.run()
