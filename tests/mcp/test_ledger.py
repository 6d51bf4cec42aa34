"""`toolvet mcp` runs as the agent's user, so the approvals ledger is a file
the agent can write. A row it flips to `approved` with SQL (or a run-scope
grant it writes) must not resume a held call: without `[approvals]
reviewer_keys` the proxy counts only the answer it got from the person in
the client, and with them only an approval a reviewer signed (the rule the
hooks follow, `toolvet::approval::ApprovalTrust`). Raw JSON lines, as in
test_attacks.py, with the client declaring no elicitation, as an agent's
MCP client may."""

import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from test_attacks import Raw, text
from test_proxy import CACHE, HERE, PLUGINS, POLICY, TOOLVET

PASSPHRASE = "correct horse battery staple, for tests only"


def cli(*args: str, passphrase: bool = False) -> subprocess.CompletedProcess:
    """`toolvet …`, with the test passphrase on a descriptor when asked."""
    extra, fds = [], ()
    if passphrase:
        read, write = os.pipe()
        os.write(write, (PASSPHRASE + "\n").encode())
        os.close(write)
        extra, fds = ["--passphrase-fd", str(read)], (read,)
    try:
        return subprocess.run([TOOLVET, *args, *extra], capture_output=True, text=True, pass_fds=fds,
                              env={**os.environ, "TOOLVET_CACHE_DIR": CACHE})
    finally:
        for fd in fds:
            os.close(fd)


class LedgerRows(unittest.TestCase):
    def setUp(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="toolvet-mcp-ledger-"))
        self.calls = self.dir / "calls.jsonl"
        self.calls.touch()
        self.policy = self.dir / "toolvet.toml"

    def write_policy(self, reviewer_key: str | None = None) -> None:
        policy = POLICY.format(plugins=PLUGINS)
        if reviewer_key is not None:
            policy = policy.replace('key_file = "approvals.key"\n',
                                    f'key_file = "approvals.key"\nreviewer_keys = ["{reviewer_key}"]\n', 1)
            self.assertIn("reviewer_keys", policy)
        self.policy.write_text(policy)

    def proxy(self) -> Raw:
        p = Raw(self.policy, self.calls, [sys.executable, str(HERE / "server.py")])
        self.addCleanup(lambda: p.proc.poll() is None and p.proc.kill())
        return p

    def ran(self) -> list[dict]:
        return [json.loads(line) for line in self.calls.read_text().splitlines()]

    def held(self, p: Raw, id, arguments: dict) -> str:
        """Call deploy, which the policy holds; the request id."""
        p.call(id, "deploy", arguments)
        [*seen, answer] = p.until(lambda m: m.get("id") == id)
        self.assertFalse([m for m in seen if m.get("method") == "elicitation/create"], seen)
        self.assertTrue(answer["result"]["isError"], answer)
        self.assertIn("toolvet holds this call for a person's approval [policy.requires-approval]", text(answer))
        found = re.search(r"approval request (apr_[A-Za-z0-9_-]+)", text(answer))
        self.assertIsNotNone(found, answer)
        return found.group(1)

    def flip(self, request: str, scope: str) -> None:
        """What the agent can do as the same user: approve the row by SQL."""
        with sqlite3.connect(self.dir / "approvals.db") as db:
            changed = db.execute(
                "UPDATE approval_requests SET status = 'approved', decision = 'approve', reviewer = 'mallory', "
                "scope = ?, decided_at_ms = created_at_ms WHERE id = ?", (scope, request)).rowcount
        self.assertEqual(changed, 1)

    def again(self, p: Raw, id, arguments: dict) -> str:
        p.call(id, "deploy", arguments)
        [*_, answer] = p.until(lambda m: m.get("id") == id)
        self.assertTrue(answer["result"].get("isError"), answer)
        return text(answer)

    def assert_names_no_way_to_approve(self, said: str) -> None:
        for named in ("toolvet approvals", "--config", "--reviewer", str(self.policy), "toolvet.toml", "sqlite"):
            self.assertNotIn(named, said)

    def test_without_reviewer_keys_a_row_flipped_by_sql_runs_nothing(self):
        self.write_policy()
        p = self.proxy()
        p.start(elicitation=False)
        for scope, arguments in (("once", {"env": "prod"}), ("run", {"env": "staging"})):
            request = self.held(p, f"{scope}-held", arguments)
            self.flip(request, scope)
            for attempt in range(2):
                said = self.again(p, f"{scope}-{attempt}", arguments)
                self.assertIn("toolvet denied this call [approval.unsigned-decision]", said)
                self.assertIn("no reviewer keys", said)
                self.assert_names_no_way_to_approve(said)
        p.close()
        self.assertEqual(self.ran(), [])

    def test_a_held_calls_row_set_to_consumed_does_not_satisfy_only_after(self):
        """Twelfth review L7: the row made the session's history say the
        held `read_note` ran, so `write_note` (only after it) was forwarded."""
        self.policy.write_text(POLICY.format(plugins=PLUGINS).replace(
            'approve = ["deploy"]', 'approve = ["deploy", "read_note"]', 1))
        p = self.proxy()
        p.start(elicitation=False)
        p.call("r1", "read_note", {"name": "todo"})
        [*_, held] = p.until(lambda m: m.get("id") == "r1")
        self.assertIn("[policy.requires-approval]", text(held))
        request = re.search(r"approval request (apr_[A-Za-z0-9_-]+)", text(held)).group(1)
        for attempt, flip in enumerate((False, True)):
            if flip:
                with sqlite3.connect(self.dir / "approvals.db") as db:
                    changed = db.execute(
                        "UPDATE approval_requests SET status = 'consumed', decision = 'approve', scope = 'once', "
                        "reviewer = 'x', decided_at_ms = created_at_ms, consumed_at_ms = created_at_ms "
                        "WHERE id = ?", (request,)).rowcount
                self.assertEqual(changed, 1)
            p.call(f"w{attempt}", "write_note", {"name": "todo", "text": "x"})
            [*_, answer] = p.until(lambda m, i=f"w{attempt}": m.get("id") == i)
            self.assertTrue(answer["result"].get("isError"), answer)
            self.assertIn("[sequence.only-after]", text(answer))
        p.close()
        self.assertEqual(self.ran(), [])

    def test_under_reviewer_keys_only_a_signed_approval_resumes_the_call(self):
        made = cli("approvals", "reviewer-key", "init", passphrase=True)
        self.assertEqual(made.returncode, 0, made.stderr)
        entry = made.stdout.strip()
        self.assertTrue(entry.startswith("ed25519:"), made.stdout)
        self.write_policy(entry)
        p = self.proxy()
        # The client could ask, but its answer would be no signature: the
        # proxy does not ask.
        p.start(elicitation=True)
        forged = self.held(p, 1, {"env": "prod"})
        self.flip(forged, "once")
        said = self.again(p, 2, {"env": "prod"})
        self.assertIn("[approval.unsigned-decision]", said)
        self.assert_names_no_way_to_approve(said)
        # A reviewer's signed approval of another held call runs it, once.
        signed = self.held(p, 3, {"env": "staging"})
        approved = cli("approvals", "approve", signed, "--reviewer", "alice", "--config", str(self.policy),
                       passphrase=True)
        self.assertEqual(approved.returncode, 0, approved.stderr)
        p.call(4, "deploy", {"env": "staging"})
        [*_, ran] = p.until(lambda m: m.get("id") == 4)
        self.assertFalse(ran["result"].get("isError"), ran)
        self.assertEqual(text(ran), "deployed to staging")
        self.again(p, 5, {"env": "staging"})  # used up
        p.close()
        self.assertEqual(self.ran(), [{"tool": "deploy", "arguments": {"env": "staging"}}])


if __name__ == "__main__":
    unittest.main()
