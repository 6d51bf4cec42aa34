"""The MCP server behind `toolvet mcp` in the tests: a real MCPServer
(the Python `mcp` package; stdio transport, or Streamable HTTP on
127.0.0.1:PORT/mcp with `server.py http PORT`) with notes, a file deleter, a
deploy tool, a tool that crashes the server mid-call, resources (one a
"secret" key file) and a prompt. Every tool call (and read of the file:// and https:// resources) that
reaches it is appended to the file named by MCP_CALL_LOG, so a test can
tell which calls ran."""

import json
import os
import sys

from mcp.server.mcpserver import MCPServer
from mcp.types import Completion, ToolAnnotations

server = MCPServer("notes")
notes: dict[str, str] = {"todo": "buy milk"}


def ran(tool: str, **arguments: object) -> None:
    with open(os.environ["MCP_CALL_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps({"tool": tool, "arguments": arguments}) + "\n")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def read_note(name: str) -> str:
    """Read a note."""
    ran("read_note", name=name)
    return notes.get(name, "")


@server.tool()
def write_note(name: str, text: str) -> str:
    """Write a note."""
    ran("write_note", name=name, text=text)
    notes[name] = text
    return f"wrote {name}"


@server.tool(annotations=ToolAnnotations(destructive_hint=True))
def delete_file(path: str) -> str:
    """Delete a file."""
    ran("delete_file", path=path)
    return f"deleted {path}"


@server.tool()
def deploy(env: str) -> str:
    """Deploy the service."""
    ran("deploy", env=env)
    return f"deployed to {env}"


@server.tool()
def crash() -> str:
    """Exit the server in the middle of the call."""
    ran("crash")
    sys.stdout.flush()
    os._exit(3)


@server.resource("note://{name}")
def note(name: str) -> str:
    """A note as a resource."""
    return notes.get(name, "")


@server.resource("file:///root/.ssh/id_rsa")
def key() -> str:
    """A secret a resource read must not reach (toolvet vets resources/read)."""
    ran("resources/read", uri="file:///root/.ssh/id_rsa")
    return "SECRET"


@server.resource("https://docs.acme.com/guide")
def guide() -> str:
    """An innocuous resource."""
    ran("resources/read", uri="https://docs.acme.com/guide")
    return "the guide"


@server.prompt()
def greet(who: str) -> str:
    """A greeting prompt."""
    return f"Say hello to {who}."


@server.completion()
async def complete(ref, argument, context):
    """Completes note names (toolvet vets completion/complete)."""
    ran("completion/complete", argument=argument.name, value=argument.value)
    return Completion(values=[n for n in notes if n.startswith(argument.value)])


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        import anyio

        anyio.run(lambda: server.run_streamable_http_async(host="127.0.0.1", port=int(sys.argv[2])))
    else:
        server.run("stdio")
