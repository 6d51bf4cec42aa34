"""One policy, one behaviour in every front end (issue #30).

One policy file, with a Postgres ledger (`[approvals] ledger =
"postgres://…"`) and the call's arguments in the decision log (`[host]
decision_log_arguments = true`, so the secrets redactor is required), is
used by every front end against one real Postgres (pg.py):

- the CLI, `toolvet check`;
- `toolvet serve`, over HTTP with an agent and a reviewer token;
- a coding-agent hook, `toolvet hook claude-code`;
- the Python package (`toolvet.Host`, in this process);
- the Node package (`@toolvet/node`'s `Host`, node_front.mjs).

Each vets the same three calls, each carrying a real-shaped GitHub token:
one allowed, one denied, one held for a person. Asserted: every front end
gives each call the same decision and rule; each front end's decision
record holds the arguments with the token replaced by the redactor's
marker, and the token appears nowhere in the log, whose chain (written by
five processes) verifies; the requests every front end opened are in the
one ledger, seen from the others; an escalation raised in Python is
approved through serve's approvals API (a reviewer token; an agent token
is refused; serve signs the approval with its own reviewer key, `[serve]
reviewer_passphrase_file`, listed in `[approvals] reviewer_keys`), and
its ticket resumes the call once across the front ends, in serve or in
Node.

Run by `make preset-tests` with the interpreter the wheel is installed
in. Paths come from the environment, with this checkout's defaults:
TOOLVET (the CLI), TOOLVET_PLUGINS (tool_policy, shell_guard and
secrets_guard .wasm), TOOLVET_NODE_PKG (the built crates/toolvet-node),
NODE (the node binary), TOOLVET_CACHE_DIR (the artifact cache), PG_BINDIR
(Postgres's binaries; see pg.py)."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import toolvet  # noqa: E402  (the installed wheel)
from pg import Postgres, free_port  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
TOOLVET = os.environ.get("TOOLVET", str(ROOT / "target/release/toolvet"))
PLUGINS = Path(os.environ.get("TOOLVET_PLUGINS", ROOT / "target/plugins"))
NODE_PKG = os.environ.get("TOOLVET_NODE_PKG", str(ROOT / "crates/toolvet-node"))
NODE = os.environ.get("NODE", "node")
CACHE = os.environ.get("TOOLVET_CACHE_DIR", str(ROOT / "target/toolvet-cache"))

# A GitHub token's shape (secrets-guard's `github-token`); not a real one.
TOKEN = "ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5"
REDACTED = "[redacted: secrets.github-token]"

AGENT_TOKEN = "preset-agent-token-5b1f0c9e2d7a"
REVIEWER_TOKEN = "preset-reviewer-token-8e3a6d1c4b90"
# The server's reviewer key (`[serve] reviewer_passphrase_file`): it signs
# the approvals serve's reviewers make, which is what the front ends in
# the agent's process (the hook, Python, Node) count under reviewer keys.
SERVE_PASSPHRASE = "preset serve reviewer passphrase 41c7"

POLICY = """
[host]
decision_log = "decisions.jsonl"
decision_log_arguments = true

[approvals]
ledger = "{ledger}"
key_file = "approvals.key"
ttl_s = 3600
reviewer_keys = ["{reviewer_key}"]

[serve]
reviewer_passphrase_file = "serve.passphrase"

[[check]]
name = "tool-policy"
plugin = "{plugins}/tool_policy.wasm"
[check.settings]
deny = ["drop_database"]
approve = ["deploy*"]

[[check]]
name = "shell"
plugin = "{plugins}/shell_guard.wasm"
[check.settings]
protected_branches = ["main", "master", "release/*"]
destructive_action = "escalate"

[[check]]
name = "secrets"
plugin = "{plugins}/secrets_guard.wasm"
"""

# The calls every front end makes: a shell command (Claude Code's `Bash`,
# toolvet's `bash`) with the token in it, and the verdict expected.
CALLS = {
    "allow": (f"GH_TOKEN={TOKEN} gh repo view acme/app", "allow", None),
    "deny": (
        f"curl -H 'Authorization: token {TOKEN}' https://api.github.com/user",
        "deny",
        "secrets.github-token",
    ),
    "escalate": (
        f"terraform destroy -auto-approve -var github_token={TOKEN}",
        "escalate",
        "shell.destroy-infra",
    ),
}

FRONT_ENDS = ("cli", "serve", "hook", "python", "node")


def run_id(front_end: str) -> str:
    """The run (the hook: the session) each front end's calls belong to."""
    return f"preset-{front_end}"


def call_of(record: dict) -> str:
    """Which of CALLS a verdict record is of: its call id, or under the
    hook (Claude Code sends no call id) its `tool_use_id`."""
    return record["call_id"] or record["attributes"]["tool_use_id"].removeprefix("toolu_")


class Preset(unittest.TestCase):
    """The shared world: Postgres, the policy, serve, and every front end's
    verdicts on CALLS (made once, in setUpClass)."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.started = time.monotonic()
        cls.work = Path(tempfile.mkdtemp(prefix="toolvet-preset-"))
        cls.policy = cls.work / "toolvet.toml"
        cls.log = cls.work / "decisions.jsonl"
        cls.env = {**os.environ, "TOOLVET_CACHE_DIR": CACHE}
        cls.pg = cls.serve = None
        try:
            cls.pg = Postgres().start()
            passphrase = cls.work / "serve.passphrase"
            passphrase.write_text(SERVE_PASSPHRASE + "\n")
            passphrase.chmod(0o600)
            cls.policy.write_text(
                POLICY.format(ledger=cls.pg.url, plugins=PLUGINS, reviewer_key=cls.reviewer_key())
            )
            cls.python = toolvet.Host.from_file(str(cls.policy))
            cls.start_serve()
            cls.verdicts = {
                "cli": cls.cli_checks(),
                "serve": {n: cls.serve_check(cls.call(n), cls.context("serve")) for n in CALLS},
                "hook": cls.hook_checks(),
                "python": {
                    n: cls.python.check(cls.call(n), context=cls.context("python")).to_dict()
                    for n in CALLS
                },
                "node": dict(
                    zip(
                        CALLS,
                        cls.node([{"op": "check", "call": cls.call(n), "context": cls.node_context("node")} for n in CALLS]),
                    )
                ),
            }
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls) -> None:
        if cls.serve is not None:
            cls.serve.terminate()
            cls.serve.wait(timeout=30)
            cls.serve = None
        if cls.pg is not None:
            cls.pg.stop()
            cls.pg = None
        shutil.rmtree(cls.work, ignore_errors=True)
        print(f"\npreset: {time.monotonic() - cls.started:.1f} s", file=sys.stderr)

    @classmethod
    def reviewer_key(cls) -> str:
        """`toolvet approvals reviewer-key init` on SERVE_PASSPHRASE (read
        from a file descriptor): the `reviewer_keys` entry it prints."""
        read, write = os.pipe()
        os.write(write, (SERVE_PASSPHRASE + "\n").encode())
        os.close(write)
        try:
            out = subprocess.run(
                [TOOLVET, "approvals", "reviewer-key", "init", "--passphrase-fd", str(read)],
                capture_output=True, text=True, pass_fds=(read,), timeout=120,
            )
        finally:
            os.close(read)
        assert out.returncode == 0, (out.returncode, out.stderr)
        return out.stdout.strip()

    # The calls and contexts, in each front end's shape.

    @staticmethod
    def call(name: str, call_id: str | None = None) -> dict:
        return {"id": call_id or name, "name": "bash", "arguments": {"command": CALLS[name][0]}}

    @classmethod
    def context(cls, front_end: str) -> dict:
        return {
            "run_id": run_id(front_end),
            "agent": "preset-agent",
            "principal": "alice@acme.com",
            "attributes": {"cwd": str(cls.work)},
        }

    @classmethod
    def node_context(cls, front_end: str) -> dict:
        c = cls.context(front_end)
        return {"runId": c["run_id"], "agent": c["agent"], "principal": c["principal"], "attributes": c["attributes"]}

    # The front ends.

    @classmethod
    def cli_checks(cls) -> dict:
        """`toolvet check` on one file per call; one verdict line each."""
        files = []
        for name in CALLS:
            path = cls.work / f"{name}.json"
            path.write_text(json.dumps({"call": cls.call(name), "context": cls.context("cli")}))
            files.append(str(path))
        out = subprocess.run(
            [TOOLVET, "check", "--config", str(cls.policy), "--format", "json", *files],
            capture_output=True, text=True, env=cls.env, timeout=120,
        )
        verdicts = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
        assert len(verdicts) == len(CALLS), (out.returncode, out.stdout, out.stderr)
        return dict(zip(CALLS, verdicts))

    @classmethod
    def start_serve(cls) -> None:
        port = free_port()
        cls.base = f"http://127.0.0.1:{port}"
        env = {**cls.env, "TOOLVET_AGENT_TOKEN": AGENT_TOKEN, "TOOLVET_REVIEWER_TOKEN": REVIEWER_TOKEN}
        with open(cls.work / "serve.log", "w") as log:
            cls.serve = subprocess.Popen(
                [TOOLVET, "serve", "--config", str(cls.policy), "--listen", f"127.0.0.1:{port}"],
                stdout=subprocess.DEVNULL, stderr=log, env=env,
            )
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(cls.base + "/healthz", timeout=5):
                    return
            except OSError:
                if cls.serve.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"toolvet serve did not start: {(cls.work / 'serve.log').read_text()}")
                time.sleep(0.1)

    @classmethod
    def http(cls, method: str, path: str, token: str, body: dict | None = None) -> tuple[int, dict]:
        request = urllib.request.Request(
            cls.base + path,
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    @classmethod
    def serve_check(cls, call: dict, context: dict, ticket: str | None = None) -> dict:
        body = {"call": call, "context": context}
        if ticket is not None:
            body["approval"] = {"ticket": ticket}
        status, verdict = cls.http("POST", "/v1/check", AGENT_TOKEN, body)
        assert status == 200, (status, verdict)
        return verdict

    @classmethod
    def hook_checks(cls) -> dict:
        """`toolvet hook claude-code` on Claude Code's payload for a `Bash`
        tool use, in the `default` permission mode at the terminal (so a
        held call is asked, not denied); its answer, as the agent reads it."""
        home = cls.work / "hook-home"
        home.mkdir()
        env = {**cls.env, "HOME": str(home), "XDG_STATE_HOME": str(home / "state"), "CLAUDE_CODE_ENTRYPOINT": "cli"}
        answers = {}
        for name in CALLS:
            payload = {
                "session_id": run_id("hook"),
                "cwd": str(cls.work),
                "permission_mode": "default",
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": CALLS[name][0]},
                "tool_use_id": f"toolu_{name}",
            }
            out = subprocess.run(
                [TOOLVET, "hook", "claude-code", "--config", str(cls.policy)],
                input=json.dumps(payload), capture_output=True, text=True, env=env, timeout=120,
            )
            assert out.returncode == 0, (out.returncode, out.stdout, out.stderr)
            answers[name] = json.loads(out.stdout) if out.stdout.strip() else None
        return answers

    @classmethod
    def node(cls, steps: list) -> list:
        """node_front.mjs on `steps`: the Node package's answers."""
        out = subprocess.run(
            [NODE, str(HERE / "node_front.mjs"), str(cls.policy)],
            input=json.dumps(steps), capture_output=True, text=True, timeout=120,
            env={**cls.env, "TOOLVET_NODE_PKG": NODE_PKG},
        )
        assert out.returncode == 0, (out.returncode, out.stdout, out.stderr)
        return json.loads(out.stdout)

    # The decision log and the ledger, as the tests read them.

    def records(self, wanted, at_least: int = 1, timeout_s: float = 15.0) -> list:
        """The decision records `wanted` picks, once at least `at_least` are
        written (front ends write off the verdict's path)."""
        deadline = time.monotonic() + timeout_s
        while True:
            lines = self.log.read_text().splitlines() if self.log.exists() else []
            found = [r for r in map(json.loads, lines) if wanted(r)]
            if len(found) >= at_least or time.monotonic() > deadline:
                return found
            time.sleep(0.1)

    def verdict_records(self, front_end: str) -> list:
        return self.records(
            lambda r: r["event"] == "verdict" and r.get("run_id") == run_id(front_end), at_least=len(CALLS)
        )

    def approvals_list(self, status: str = "all") -> list:
        out = subprocess.run(
            [TOOLVET, "approvals", "list", "--config", str(self.policy), "--status", status, "--format", "json"],
            capture_output=True, text=True, env=self.env, timeout=60,
        )
        self.assertEqual(out.returncode, 0, out.stderr)
        return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]

    def held_in_python(self, call_id: str) -> dict:
        """The escalate call vetted by the Python package as a new call of
        the run `preset-approval`: its verdict (the request, the ticket)."""
        verdict = self.python.check(self.call("escalate", call_id), context=self.context("approval")).to_dict()
        self.assertEqual(verdict["decision"], "escalate", verdict)
        self.assertTrue(verdict["approval"]["opened"])
        return verdict

    def approve_through_serve(self, approval_id: str) -> dict:
        """Approve as a reviewer through serve's API: the agent token is
        refused (403), the reviewer approves what they read (`shown`)."""
        status, body = self.http("GET", f"/v1/approvals/{approval_id}", REVIEWER_TOKEN)
        self.assertEqual(status, 200, body)
        self.assertEqual(body["status"], "pending")
        decision = {"decision": "approve", "reviewer": "bob", "message": "ship it", "shown": body["review_sha256"]}
        status, refused = self.http("POST", f"/v1/approvals/{approval_id}/decision", AGENT_TOKEN, decision)
        self.assertEqual(status, 403, refused)
        self.assertEqual(refused["required_role"], "reviewer")
        status, decided = self.http("POST", f"/v1/approvals/{approval_id}/decision", REVIEWER_TOKEN, decision)
        self.assertEqual(status, 200, decided)
        self.assertEqual((decided["status"], decided["review"]["reviewer"]), ("approved", "bob"), decided)
        return decided

    # The tests.

    def test_every_front_end_gives_each_call_the_same_verdict(self) -> None:
        for name, (_, decision, rule) in CALLS.items():
            for front_end in ("cli", "serve", "python", "node"):
                verdict = self.verdicts[front_end][name]
                with self.subTest(front_end=front_end, call=name):
                    self.assertEqual((verdict["decision"], verdict.get("rule")), (decision, rule), verdict)
            for front_end in FRONT_ENDS:
                with self.subTest(front_end=front_end, call=name, record="decision log"):
                    [record] = [r for r in self.verdict_records(front_end) if call_of(r) == name]
                    self.assertEqual(
                        (record["verdict"]["decision"], record["verdict"].get("rule")), (decision, rule), record
                    )
        # The hook's answers, in Claude Code's terms: allow is no output,
        # deny a deny with the rule, escalate an `ask` (the person decides).
        hook = self.verdicts["hook"]
        self.assertIsNone(hook["allow"])
        self.assertEqual(hook["deny"]["hookSpecificOutput"]["permissionDecision"], "deny")
        self.assertIn("[secrets.github-token]", hook["deny"]["hookSpecificOutput"]["permissionDecisionReason"])
        self.assertEqual(hook["escalate"]["hookSpecificOutput"]["permissionDecision"], "ask")

    def test_each_front_ends_decision_record_has_the_arguments_redacted(self) -> None:
        for front_end in FRONT_ENDS:
            with self.subTest(front_end=front_end):
                records = self.verdict_records(front_end)
                self.assertEqual(len(records), len(CALLS), records)
                for record in records:
                    self.assertEqual(record["arguments"], {"command": REDACTED}, record)
                    self.assertEqual(record["attributes"]["cwd"], str(self.work))
        text = self.log.read_text()
        self.assertNotIn(TOKEN, text)
        self.assertNotIn(TOKEN[4:], text)

    def test_the_log_five_processes_wrote_verifies(self) -> None:
        for front_end in FRONT_ENDS:
            self.verdict_records(front_end)
        self.python.flush_decision_log()
        out = subprocess.run(
            [TOOLVET, "log", "verify", str(self.log)], capture_output=True, text=True, env=self.env, timeout=60
        )
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)

    def test_every_front_ends_request_is_in_the_one_ledger(self) -> None:
        held = {
            run_id(fe): (self.verdicts[fe]["escalate"]["approval"]["id"] if fe != "hook" else None)
            for fe in FRONT_ENDS
        }
        # The CLI lists every front end's request (the hook's too).
        listed = {r["call"]["run_id"]: r for r in self.approvals_list() if r["call"]["run_id"] in held}
        self.assertEqual(set(listed), set(held))
        for run, approval_id in held.items():
            if approval_id is not None:
                self.assertEqual(listed[run]["id"], approval_id)
        hook_request = listed[run_id("hook")]["id"]
        python_request = held[run_id("python")]
        node_request = held[run_id("node")]
        # Python reads Node's and the hook's, Node reads Python's and the
        # hook's, serve's reviewer API reads them all.
        for approval_id in (node_request, hook_request, held[run_id("serve")], held[run_id("cli")]):
            self.assertEqual(self.python.approvals.get(approval_id).id, approval_id)
        seen = self.node([{"op": "approval", "id": i} for i in (python_request, hook_request)])
        self.assertEqual([r.get("id") for r in seen], [python_request, hook_request], seen)
        for approval_id in listed.values():
            status, body = self.http("GET", f"/v1/approvals/{approval_id['id']}", REVIEWER_TOKEN)
            self.assertEqual(status, 200, body)
        self.assertEqual(self.python.approvals.get(hook_request).attributes["agent_tool"], "Bash")

    def test_python_escalation_approved_through_serve_is_used_once(self) -> None:
        verdict = self.held_in_python("deploy-once")
        approval = verdict["approval"]
        # Every front end sees the one request.
        self.assertIn(approval["id"], [r["id"] for r in self.approvals_list("pending")])
        [seen] = self.node([{"op": "approval", "id": approval["id"]}])
        self.assertEqual(seen["status"], "pending", seen)
        self.approve_through_serve(approval["id"])
        # Python and the CLI read the decision serve recorded.
        request = self.python.approvals.get(approval["id"])
        self.assertEqual((request.status, request.reviewer, request.message), ("approved", "bob", "ship it"))
        self.assertIn(approval["id"], [r["id"] for r in self.approvals_list("approved")])
        # The call resumes once with the ticket (through serve, which
        # trusts the decisions its reviewers record); after that, the
        # ticket is spent for every front end.
        call, context = self.call("escalate", "deploy-once"), self.context("approval")
        resumed = self.serve_check(call, context, approval["ticket"])
        self.assertEqual((resumed["decision"], resumed["rule"]), ("allow", "approval.approved"), resumed)
        self.assertIn("bob", resumed["reason"])
        again = self.serve_check(call, context, approval["ticket"])
        self.assertEqual((again["decision"], again["rule"]), ("deny", "approval.replayed"), again)
        # The packages refuse it too: spent.
        [node] = self.node(
            [{"op": "resume", "ticket": approval["ticket"], "call": call, "context": self.node_context("approval")}]
        )
        self.assertEqual((node["decision"], node["rule"]), ("deny", "approval.replayed"), node)
        python = self.python.check(call, context=context, ticket=approval["ticket"])
        self.assertEqual((python.decision, python.rule), ("deny", "approval.replayed"), python.to_dict())
        self.assertIn(approval["id"], [r["id"] for r in self.approvals_list("consumed")])
        # The log holds the decision (serve's) and the use.
        events = {
            r["event"]
            for r in self.records(lambda r: r.get("approval_id") == approval["id"], at_least=3)
        }
        self.assertTrue({"approval.requested", "approval.decided", "approval.consumed"} <= events, events)

    def test_node_resumes_a_python_escalation_approved_through_serve(self) -> None:
        """Issue #30: an escalation raised in Python is approved through
        serve, and the ticket resumes in Node, once. Node (in the agent's
        process) counts the approval because serve signed it with its
        reviewer key (`[serve] reviewer_passphrase_file`)."""
        verdict = self.held_in_python("deploy-node")
        approval = verdict["approval"]
        self.approve_through_serve(approval["id"])
        call, context = self.call("escalate", "deploy-node"), self.node_context("approval")
        step = {"op": "resume", "ticket": approval["ticket"], "call": call, "context": context}
        first, second = self.node([step, step])
        self.assertEqual((first["decision"], first["rule"]), ("allow", "approval.approved"), first)
        self.assertEqual((second["decision"], second["rule"]), ("deny", "approval.replayed"), second)


if __name__ == "__main__":
    unittest.main(verbosity=2)

    def test_front_ends_beside_the_tools_follow_links(self) -> None:
        """A link made earlier, out of the checks' sight, leads a write onto
        the policy file: the front ends beside the tools (the CLI, Python,
        Node; the hooks in their own tests) look the call's paths up before
        the checks run (`toolvet_preset::RealPathsLocator`) and deny it;
        serve, whose file system is not the agent's, judges the path as
        written."""
        link = self.work / "lnk"
        link.symlink_to(self.work, target_is_directory=True)
        call = {"id": "link", "name": "bash", "arguments": {"command": "echo '[host]' > lnk/toolvet.toml"}}
        context = {**self.context("links"), "run_id": "preset-links"}
        path = self.work / "link.json"
        path.write_text(json.dumps({"call": call, "context": context}))
        out = subprocess.run(
            [TOOLVET, "check", "--config", str(self.policy), "--format", "json", str(path)],
            capture_output=True, text=True, env=self.env, timeout=120,
        )
        node_context = {"runId": "preset-links", "agent": context["agent"], "principal": context["principal"],
                        "attributes": context["attributes"]}
        verdicts = {
            "cli": json.loads(out.stdout),
            "python": self.python.check(call, context=context).to_dict(),
            "node": self.node([{"op": "check", "call": call, "context": node_context}])[0],
        }
        for front_end, verdict in verdicts.items():
            with self.subTest(front_end=front_end):
                self.assertEqual((verdict["decision"], verdict.get("rule")), ("deny", "shell.toolvet-state"), verdict)
                self.assertIn("toolvet.toml", verdict["reason"])
        served = self.serve_check(call, context)
        self.assertEqual(served["decision"], "allow", served)
