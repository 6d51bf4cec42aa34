"""`toolvet mcp` for MCP 2026-07-28 ("modern") clients, which send no
`initialize` and carry `_meta` on every request: the Python `mcp`
package's `Client` pinned to that revision, over stdio, in front of
server.py. An escalate asks the person through the revision's multi
round-trip requests: an `input_required` result with an elicitation, then
the same call again with the answer and toolvet's `requestState`."""

import json
import unittest

from mcp import Client
from mcp.types import ElicitResult, InputRequiredResult

from test_proxy import ProxyCase, text_of

MODERN = "2026-07-28"
KEY = "toolvet_approval"


class ModernProxy(ProxyCase):
    def client(self, *, elicit=None) -> Client:
        return Client(self.stdio_proxy(), mode=MODERN, elicitation_callback=elicit, read_timeout_seconds=60)

    def reviews(self) -> list[dict]:
        listed = self.approvals("list", "--status", "all", "--format", "json")
        self.assertEqual(listed.returncode, 0, listed.stderr)
        return [json.loads(line) for line in listed.stdout.splitlines() if line.strip()]

    async def test_calls_are_vetted_without_initialize(self):
        async with self.client() as c:
            read = await c.call_tool("read_note", {"name": "todo"})
            self.assertFalse(read.is_error, text_of(read))
            self.assertEqual(text_of(read), "buy milk")
            denied = await c.call_tool("delete_file", {"path": "/etc/passwd"})
            self.assertTrue(denied.is_error)
            self.assertIn("toolvet denied this call [policy.denied-tool]", text_of(denied))
        self.assertEqual(self.ran(), [{"tool": "read_note", "arguments": {"name": "todo"}}])

    async def test_an_approval_through_input_required_runs_the_call_once(self):
        asked = []

        async def elicit(context, params):
            asked.append(params)
            return ElicitResult(action="accept", content={"approve": True, "message": "ship it"})

        async with self.client(elicit=elicit) as c:
            result = await c.call_tool("deploy", {"env": "prod"})
        self.assertFalse(result.is_error, text_of(result))
        self.assertEqual(text_of(result), "deployed to prod")
        self.assertEqual(len(asked), 1)
        self.assertIn("Tool: deploy", asked[0].message)
        self.assertEqual(self.ran(), [{"tool": "deploy", "arguments": {"env": "prod"}}])
        [request] = self.reviews()
        self.assertEqual(request["status"], "consumed", request)
        self.assertTrue(request["review"]["reviewer"].startswith("mcp-client:"), request)
        self.assertEqual(request["review"]["message"], "ship it")

    async def test_arguments_that_cannot_all_be_shown_are_not_asked_about(self):
        # Review s5 F9, the input_required form: every key is in the
        # question, or there is no question.
        asked = []

        async def elicit(context, params):
            asked.append(params)
            return ElicitResult(action="cancel")

        async with self.client(elicit=elicit) as c:
            padded = await c.call_tool("deploy", {"a_summary": "staging only. " * 200, "env": "prod"})
            self.assertTrue(padded.is_error)
            self.assertEqual(len(asked), 1)
            self.assertIn('"env": "prod"', asked[0].message)
            many = await c.session.call_tool("deploy", {f"k{i:03}": "v" for i in range(300)},
                                             allow_input_required=True)
            self.assertNotIsInstance(many, InputRequiredResult)
            self.assertTrue(many.is_error)
            self.assertIn("too long to show in full", text_of(many))
        self.assertEqual(len(asked), 1)
        self.assertEqual(self.ran(), [])

    async def test_a_rejection_refuses_the_call_with_the_message(self):
        async def elicit(context, params):
            return ElicitResult(action="accept", content={"approve": False, "message": "not today"})

        async with self.client(elicit=elicit) as c:
            result = await c.call_tool("deploy", {"env": "prod"})
        self.assertTrue(result.is_error)
        self.assertIn("rejected this call [policy.requires-approval]: not today", text_of(result))
        self.assertEqual(self.ran(), [])
        [request] = self.reviews()
        self.assertEqual(request["status"], "rejected", request)

    async def test_a_request_state_that_is_not_this_calls_is_never_an_approval(self):
        approve = {KEY: ElicitResult(action="accept", content={"approve": True})}

        async def elicit(context, params):  # declares the capability; this test answers itself
            raise AssertionError("the client's own loop is not used here")

        async with self.client(elicit=elicit) as c:
            asked = await c.session.call_tool("deploy", {"env": "prod"}, allow_input_required=True)
            self.assertIsInstance(asked, InputRequiredResult)
            self.assertEqual(list(asked.input_requests), [KEY])
            state = asked.request_state
            self.assertTrue(state.startswith("toolvet:"), state)
            # Another call's state, a forged one, and this call's state
            # without an answer: each is refused, and nothing runs.
            for arguments, request_state, responses in [
                ({"env": "staging"}, state, approve),
                ({"env": "prod"}, "toolvet:tv1.forged", approve),
                ({"env": "prod"}, state, None),
            ]:
                refused = await c.session.call_tool(
                    "deploy", arguments, input_responses=responses, request_state=request_state,
                    allow_input_required=True,
                )
                if isinstance(refused, InputRequiredResult):
                    # staging is a call of its own: it is asked about anew.
                    self.assertEqual(arguments, {"env": "staging"})
                    self.assertNotEqual(refused.request_state, state)
                    continue
                self.assertTrue(refused.is_error, (arguments, request_state, text_of(refused)))
                self.assertIn("toolvet holds this call", text_of(refused))
            self.assertEqual(self.ran(), [])
            # The request is still pending: the right state with an answer runs it once.
            ran = await c.session.call_tool(
                "deploy", {"env": "prod"}, input_responses=approve, request_state=state,
                allow_input_required=True,
            )
            self.assertFalse(ran.is_error, text_of(ran))
            self.assertEqual(text_of(ran), "deployed to prod")
        self.assertEqual(self.ran(), [{"tool": "deploy", "arguments": {"env": "prod"}}])


if __name__ == "__main__":
    unittest.main()
