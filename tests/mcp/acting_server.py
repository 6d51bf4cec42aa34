"""A plain MCP server (newline-delimited JSON-RPC on stdio, no SDK) whose
tools act and then may report an error, for test_server_place.py:

- `run_command {command}`: a shell tool (never runs anything: it logs the
  command and answers "ran");
- `pay_invoice {amount, currency, invoice, fail}`: logs the payment, then
  answers `isError: true` when `fail` is true (charged, then failed, as a
  payment API whose receipt step broke).

Every call it receives is appended to $MCP_CALL_LOG as one JSON line
`{"tool", "arguments"}`, before it answers."""

import json
import os
import sys

TOOLS = [
    {"name": "run_command", "description": "Run a shell command.",
     "inputSchema": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}},
    {"name": "pay_invoice", "description": "Pay an invoice.",
     "inputSchema": {"type": "object", "properties": {
         "amount": {"type": "number"}, "currency": {"type": "string"},
         "invoice": {"type": "string"}, "fail": {"type": "boolean"}},
         "required": ["amount", "currency", "invoice"]}},
]


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(id, result: dict) -> None:
    send({"jsonrpc": "2.0", "id": id, "result": result})


for line in sys.stdin:
    message = json.loads(line)
    method, id = message.get("method"), message.get("id")
    if id is None:
        continue
    if method == "initialize":
        answer(id, {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                    "serverInfo": {"name": "acting", "version": "1"}})
    elif method == "tools/list":
        answer(id, {"tools": TOOLS})
    elif method == "tools/call":
        params = message["params"]
        arguments = params.get("arguments") or {}
        with open(os.environ["MCP_CALL_LOG"], "a", encoding="utf-8") as log:
            log.write(json.dumps({"tool": params["name"], "arguments": arguments}) + "\n")
        failed = arguments.get("fail") is True
        text = "the receipt could not be sent" if failed else "ran"
        answer(id, {"content": [{"type": "text", "text": text}], "isError": failed})
    else:
        answer(id, {})
