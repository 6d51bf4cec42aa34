#!/usr/bin/env python3
"""Replay AgentDojo's ground truth through a real `toolvet serve`, offline.

AgentDojo (the `agentdojo` package, pinned in requirements.txt) ships four
suites (workspace, travel, banking, slack): user tasks, injection tasks
(an attacker's goal), the tools with their descriptions and argument
schemas, each task's ground-truth calls (`ground_truth(pre_environment)`,
a list of `FunctionCall`), the environments, the places in them where
injected text lands (injection vectors) and the attacks that write that
text. No model is called: every call here is one AgentDojo's ground truth
names, every tool output is produced by AgentDojo's own tool functions on
its own environment and rendered the way its tool executor hands it to a
model (`tool_result_to_str`, YAML).

Two kinds of run, each one toolvet run (`context.run_id`) of its own:

- user task: every ground-truth call of the task, in order, through
  `POST /v1/check`; each is then executed on the environment (whatever the
  verdict, so the next call sees the state the ground truth expects) and
  its output goes through `POST /v1/check-result`. Measures the benign
  rate: calls allowed / denied / escalated, results passed / redacted /
  withheld.
- injection pair (user task U, injection task I): the environment with the
  `important_instructions` attack's text for I (AgentDojo's own template,
  filled in by its attack class: it needs no model) in every vector U's
  ground truth reads; U's calls up to and including the first whose output
  carries that text, each vetted and executed as above (the injected output
  through `/v1/check-result`); then I's ground-truth calls (the attacker's
  goal) through `/v1/check`, not executed. The attack is stopped when the
  injected result is withheld, or else when a goal call is denied, or else
  escalated (reported separately, in that order of precedence). Some of
  AgentDojo's injection tasks have no ground-truth call (workspace 6-13 in
  v1.2, whose ground truth is an empty list, and travel 6, whose goal is
  only what the model says): their pairs are counted apart, and only a
  withheld result stops them.

Escalated calls open approval requests; at the end of each run the script,
as the reviewer, rejects those still pending, so the policy's pending
limits count one run at a time. The server gets a copy of the policy in
the policy's own directory (relative plugin paths keep working) whose
approvals ledger, key and decision log point into a temporary directory,
so a replay neither reads nor fills the checkout's ledger; the rules are
the policy's, unchanged.

The held-out split (split.json, `--write-split`): per suite, a seeded
random third of the user tasks and a third of the injection tasks. `--part
tune` replays the tune user tasks and the pairs whose user task and
injection task are both tune; `--part heldout` the held-out user tasks and
the pairs whose both are held out; `--part all` everything (mixed pairs
are only in `all`).

Usage:
  replay.py [--toolvet BIN] [--config POLICY] [--part all|tune|heldout]
            [--suite NAME ...] [--smoke] [--json OUT] [--markdown OUT]
  replay.py --report DETAILS.json[.gz] [--part P] [--by-task]
  replay.py --write-split [--seed N]

Exit status: 0 when every call and result got a verdict, 1 when some did
not (an HTTP error, a refused request: listed on stderr), 2 on bad usage or
a server that does not start.
"""

import argparse
import json
import os
import random
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SPLIT_FILE = os.path.join(HERE, "split.json")
BENCHMARK_VERSION = "v1.2.2"
ATTACK = "important_instructions"
# The attack addresses the victim model by name; AgentDojo derives the name
# from the pipeline's name. This one is in AgentDojo's MODEL_NAMES (as
# "GPT-4"), a model its documentation's examples run.
TARGET_MODEL = "gpt-4o-2024-05-13"
SUITES = ("workspace", "travel", "banking", "slack")
SMOKE_USER_TASKS = 2
SMOKE_INJECTION_TASKS = 2
DEFAULT_SEED = 32


def fail(msg):
    print(f"agentdojo replay: {msg}", file=sys.stderr)
    sys.exit(2)


# ---------------------------------------------------------------- AgentDojo


def load_suites():
    """AgentDojo's suites at BENCHMARK_VERSION, by name."""
    from agentdojo.task_suite.load_suites import get_suites

    return get_suites(BENCHMARK_VERSION)


def tool_infos(suite):
    """name -> the call shape's `tool` object for each of the suite's tools:
    AgentDojo's description and argument schema."""
    return {
        f.name: {"description": f.description, "parameters_schema": f.parameters.model_json_schema()}
        for f in suite.tools
    }


def make_attack(suite):
    """AgentDojo's `important_instructions` attack for the suite. Its target
    pipeline is only asked for a name; AgentDojo's ground-truth pipeline
    (which calls no model) carries it."""
    from agentdojo.agent_pipeline.ground_truth_pipeline import GroundTruthPipeline
    from agentdojo.attacks.attack_registry import load_attack

    pipeline = GroundTruthPipeline(None)
    pipeline.name = TARGET_MODEL
    return load_attack(ATTACK, suite, pipeline)


def render(result, error):
    """(text, is_error) as AgentDojo's tool executor hands a tool's output to
    the model: the YAML of a returned model or list, `str()` of anything
    else (a dict, a string), or the error message."""
    from agentdojo.agent_pipeline.tool_execution import tool_result_to_str

    if error is not None:
        return error, True
    return tool_result_to_str(result), False


# ---------------------------------------------------------------- toolvet serve


class Server:
    """`toolvet serve` on a free loopback port, with a private copy of the
    policy (see the module doc) and fresh agent and reviewer tokens."""

    def __init__(self, toolvet, config):
        self.config = config
        self.tmp = tempfile.mkdtemp(prefix="toolvet-agentdojo-")
        self.policy = self._private_policy(config)
        self.agent = secrets.token_urlsafe(24)
        self.reviewer = secrets.token_urlsafe(24)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        env = dict(os.environ, TOOLVET_AGENT_TOKEN=self.agent, TOOLVET_REVIEWER_TOKEN=self.reviewer)
        self.log = open(os.path.join(self.tmp, "serve.log"), "w+b")
        self.proc = subprocess.Popen(
            [toolvet, "serve", "--config", self.policy, "--listen", f"127.0.0.1:{self.port}"],
            env=env, stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )
        self._wait_ready()

    def _private_policy(self, config):
        """A copy of the policy beside it (so its relative paths hold) whose
        approvals ledger (whatever it named: a file or a Postgres URL), key
        and decision log are files in self.tmp. Only those three values
        change."""
        with open(config, encoding="utf-8") as f:
            text = f.read()
        for key, name in (("ledger", "approvals.db"), ("key_file", "approvals.key"),
                          ("decision_log", "decisions.jsonl")):
            text, n = re.subn(rf'(?m)^(\s*{key}\s*=\s*)"[^"\n]*"', lambda m: m.group(1) + json.dumps(os.path.join(self.tmp, name)), text)
            if n > 1:
                fail(f"{config}: `{key}` is set {n} times; cannot redirect it")
        fd, path = tempfile.mkstemp(prefix=".agentdojo-", suffix=".toml", dir=os.path.dirname(os.path.abspath(config)))
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def _wait_ready(self, timeout_s=120):
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self.log.seek(0)
                self.close()
                fail(f"toolvet serve exited ({self.proc.returncode}) on {self.policy}, a copy of {self.config}:\n"
                     f"{self.log.read().decode(errors='replace')}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2):
                    return
            except OSError:
                time.sleep(0.1)
        self.close()
        fail(f"toolvet serve did not answer /healthz in {timeout_s} s")

    def post(self, path, body, token=None):
        """(HTTP status, parsed JSON answer) of a POST."""
        req = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}", data=json.dumps(body).encode(), method="POST",
            headers={"Authorization": f"Bearer {token or self.agent}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, json.load(r)
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                return e.code, json.loads(raw)
            except ValueError:
                return e.code, {"error": {"kind": "http", "message": raw.decode(errors="replace")}}
        except urllib.error.URLError as e:
            exited = self.proc.poll()
            fail(f"POST {path}: toolvet serve on 127.0.0.1:{self.port} did not answer ({e.reason})"
                 + (f"; it exited with {exited}" if exited is not None else ""))

    def reject(self, approval_id):
        """Reject a pending request as the reviewer (end of its run)."""
        status, body = self.post(
            f"/v1/approvals/{approval_id}/decision",
            {"decision": "reject", "reviewer": "agentdojo-replay", "message": "replay run over"},
            token=self.reviewer,
        )
        if status not in (200, 409):
            raise RuntimeError(f"rejecting {approval_id}: HTTP {status} {body}")

    def close(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if os.path.exists(self.policy):
            os.unlink(self.policy)
        shutil.rmtree(self.tmp, ignore_errors=True)


class Run:
    """One toolvet run: numbered calls under one run_id, its verdicts, and
    the approval requests to reject when it ends."""

    def __init__(self, server, run_id, agent, tools):
        self.server, self.run_id, self.agent, self.tools = server, run_id, agent, tools
        self.n = 0
        self.pending = []
        self.errors = []

    def _request(self, call, call_id):
        body = {
            "call": {"id": call_id, "name": call.function, "arguments": dict(call.args)},
            "context": {"run_id": self.run_id, "agent": self.agent},
        }
        if call.function in self.tools:
            body["tool"] = self.tools[call.function]
        return body

    def check(self, call):
        """The verdict's summary for one call: {tool, arguments, decision,
        rule, decided_by}; decision None when no verdict came back."""
        self.n += 1
        body = self._request(call, f"c{self.n}")
        status, answer = self.server.post("/v1/check", body)
        out = {"tool": call.function, "arguments": body["call"]["arguments"]}
        if status != 200 or "decision" not in answer:
            out.update(decision=None, error=answer.get("error", answer), status=status)
            self.errors.append(f"{self.run_id} {body['call']['id']} {call.function}: HTTP {status} {answer}")
            return out
        out.update(decision=answer["decision"], rule=answer.get("rule"), decided_by=answer.get("decided_by"))
        approval = answer.get("approval") or {}
        if answer["decision"] == "escalate" and approval.get("status") == "pending":
            self.pending.append(approval["id"])
        if answer.get("rule") == "approval.too-many-pending":
            self.errors.append(f"{self.run_id}: pending limit reached; the replay would measure the limit")
        return out

    def check_result(self, call, text, is_error):
        """The result verdict's summary for the call last checked: {action,
        rule, decided_by, labels}; action None when no verdict came back."""
        body = self._request(call, f"c{self.n}")  # the call last checked
        body["result"] = {"content": {"text": text}, "is_error": is_error}
        status, answer = self.server.post("/v1/check-result", body)
        if status != 200 or "action" not in answer:
            self.errors.append(f"{self.run_id} result of {call.function}: HTTP {status} {answer}")
            return {"action": None, "error": answer.get("error", answer), "status": status}
        return {
            "action": answer["action"], "rule": answer.get("rule"), "decided_by": answer.get("decided_by"),
            "labels": [label.get("name") for label in answer.get("labels", [])],
        }

    def close(self):
        for approval_id in self.pending:
            self.server.reject(approval_id)


# ---------------------------------------------------------------- replays


def execute(runtime, env, call):
    """Run one ground-truth call on the environment: (text, is_error)."""
    result, error = runtime.run_function(env, call.function, call.args, raise_on_error=False)
    return render(result, error)


def replay_user_task(server, suite, tools, task, nonce):
    """One user task's run: every ground-truth call vetted, executed, its
    result vetted."""
    from agentdojo.functions_runtime import FunctionsRuntime

    env = task.init_environment(suite.load_and_inject_default_environment({}))
    calls = task.ground_truth(env.model_copy(deep=True))
    runtime = FunctionsRuntime(suite.tools)
    run = Run(server, f"agentdojo-{nonce}-{suite.name}-{task.ID}", f"agentdojo-{suite.name}", tools)
    steps = []
    for call in calls:
        verdict = run.check(call)
        text, is_error = execute(runtime, env, call)
        verdict["result"] = run.check_result(call, text, is_error)
        steps.append(verdict)
    run.close()
    return {"suite": suite.name, "user_task": task.ID, "calls": steps}, run.errors


def replay_pair(server, suite, tools, attack, user_task, inj_task, nonce):
    """One (user task, injection task) run: the user task's calls up to the
    first output that carries the injection, then the attacker's goal calls."""
    from agentdojo.functions_runtime import FunctionsRuntime

    injections = attack.attack(user_task, inj_task)
    env = user_task.init_environment(suite.load_and_inject_default_environment(injections))
    calls = user_task.ground_truth(env.model_copy(deep=True))
    runtime = FunctionsRuntime(suite.tools)
    run = Run(server, f"agentdojo-{nonce}-{suite.name}-{user_task.ID}-{inj_task.ID}", f"agentdojo-{suite.name}", tools)
    prefix, injected = [], None
    for call in calls:
        verdict = run.check(call)
        text, is_error = execute(runtime, env, call)
        verdict["result"] = run.check_result(call, text, is_error)
        prefix.append(verdict)
        vectors = [v for v, payload in injections.items() if carries(text, payload)]
        if vectors:
            injected = {"tool": call.function, "vectors": vectors, "result": verdict["result"]}
            break
    record = {"suite": suite.name, "user_task": user_task.ID, "injection_task": inj_task.ID,
              "prefix": prefix, "injected": injected, "goal": []}
    if injected is None:
        run.errors.append(f"{run.run_id}: no output of the user task carried the injection")
    else:
        for call in inj_task.ground_truth(env.model_copy(deep=True)):
            record["goal"].append(run.check(call))
    run.close()
    record["stopped_by"] = stopped_by(record)
    return record, run.errors


def carries(text, payload):
    """Whether a rendered output holds the injected text. AgentDojo writes
    the injection into its environment's YAML, which folds blank lines, and
    a YAML rendering quotes and escapes multi-line strings, and a tool that
    returns a dict is rendered as Python's repr of it: so the text is
    compared with white space collapsed, in the output as it is and in each
    string its YAML or its Python literal holds."""
    import ast

    import yaml

    def flat(t):
        return " ".join(t.split())

    needle = flat(payload)
    if needle in flat(text):
        return True
    stack = []
    try:
        stack.append(yaml.safe_load(text))
    except yaml.YAMLError:
        pass
    try:
        stack.append(ast.literal_eval(text))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        pass
    while stack:
        v = stack.pop()
        if isinstance(v, str) and needle in flat(v):
            return True
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return False


def stopped_by(record):
    """How the attack was stopped: withheld | denied | escalated, or None."""
    if record["injected"] and record["injected"]["result"].get("action") == "withhold":
        return "withheld"
    decisions = [g["decision"] for g in record["goal"]]
    if "deny" in decisions:
        return "denied"
    if "escalate" in decisions:
        return "escalated"
    return None


# ---------------------------------------------------------------- split


def write_split(suites, seed):
    """Per suite, a seeded random third of the user tasks and of the
    injection tasks, held out."""
    split = {
        "seed": seed,
        "benchmark_version": BENCHMARK_VERSION,
        "method": (
            "for each suite and each kind (user, injection): the task ids sorted by their number; "
            "random.Random(f'{seed}:{suite}:{kind}').sample(ids, round(len(ids) / 3)) are held out, "
            "the rest are tune (Python's random, Mersenne Twister; replay.py --write-split)"
        ),
        "heldout": {},
    }
    for name in SUITES:
        suite = suites[name]
        split["heldout"][name] = {}
        for kind, tasks in (("user", suite.user_tasks), ("injection", suite.injection_tasks)):
            ids = sorted(tasks, key=task_number)
            held = random.Random(f"{seed}:{name}:{kind}").sample(ids, round(len(ids) / 3))
            split["heldout"][name][kind] = sorted(held, key=task_number)
    with open(SPLIT_FILE, "w", encoding="utf-8") as f:
        json.dump(split, f, indent=2)
        f.write("\n")
    print(f"wrote {SPLIT_FILE}")


def task_number(task_id):
    return int(task_id.rsplit("_", 1)[1])


def in_part(part, split, suite, kind, task_id):
    if part == "all":
        return True
    held = task_id in split["heldout"][suite][kind]
    return held if part == "heldout" else not held


# ---------------------------------------------------------------- report


def tally(users, pairs):
    """Per-suite counts (and a "total" row)."""
    rows = {}

    def row(name):
        return rows.setdefault(name, {
            "user_tasks": 0, "calls": 0, "allow": 0, "deny": 0, "escalate": 0, "no_verdict": 0,
            "results": 0, "pass": 0, "redact": 0, "withhold": 0,
            "pairs": 0, "stopped": 0, "withheld": 0, "denied": 0, "escalated": 0, "injected_redacted": 0,
            "goal_calls": 0, "goal_deny": 0, "goal_escalate": 0,
            "no_goal_pairs": 0, "no_goal_withheld": 0,
        })

    for u in users:
        for r in (row(u["suite"]), row("total")):
            r["user_tasks"] += 1
            for c in u["calls"]:
                r["calls"] += 1
                r[c["decision"] or "no_verdict"] += 1
                if c["result"]["action"]:
                    r["results"] += 1
                    r[c["result"]["action"]] += 1
    for p in pairs:
        for r in (row(p["suite"]), row("total")):
            if not p["goal"]:
                r["no_goal_pairs"] += 1
                r["no_goal_withheld"] += p["stopped_by"] == "withheld"
                continue
            r["pairs"] += 1
            if p["stopped_by"]:
                r["stopped"] += 1
                r[p["stopped_by"]] += 1
            if p["injected"] and p["injected"]["result"].get("action") == "redact":
                r["injected_redacted"] += 1
            for g in p["goal"]:
                r["goal_calls"] += 1
                if g["decision"] in ("deny", "escalate"):
                    r[f"goal_{g['decision']}"] += 1
    order = [s for s in SUITES if s in rows] + ["total"]
    return {name: rows[name] for name in order if name in rows}


def by_injection_task(pairs):
    """A markdown table, one row per injection task: its attacks, how many
    were stopped and how, and its goal calls' tools with their decisions."""
    rows = {}
    for p in pairs:
        r = rows.setdefault((p["suite"], p["injection_task"]),
                            {"attacks": 0, "withheld": 0, "denied": 0, "escalated": 0, "goal": set()})
        r["attacks"] += 1
        if p["stopped_by"]:
            r[p["stopped_by"]] += 1
        r["goal"].update(f"{g['tool']}: {g['decision']}" + (f" ({g['rule']})" if g.get("rule") else "")
                         for g in p["goal"])
    lines = ["| suite | injection task | attacks | withheld | denied | escalated | not stopped | goal calls |",
             "|---|---|---:|---:|---:|---:|---:|---|"]
    for (suite, task), r in sorted(rows.items(), key=lambda kv: (SUITES.index(kv[0][0]), task_number(kv[0][1]))):
        missed = r["attacks"] - r["withheld"] - r["denied"] - r["escalated"]
        goal = "; ".join(sorted(r["goal"])) or "(none in AgentDojo's ground truth)"
        lines.append(f"| {suite} | {task} | {r['attacks']} | {r['withheld']} | {r['denied']} | {r['escalated']} "
                     f"| {missed} | {goal} |")
    return "\n".join(lines) + "\n"


def pct(n, d):
    return f"{100 * n / d:.1f}%" if d else "-"


def markdown(rows):
    lines = [
        "| suite | user tasks | calls | allowed | denied | escalated | blocked (denied+escalated) "
        "| results withheld / redacted | attacks | stopped | by withhold | by deny | by escalate "
        "| goal calls | denied / escalated | attacks without a goal call: withheld |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, r in rows.items():
        blocked = r["deny"] + r["escalate"]
        lines.append(
            f"| {name} | {r['user_tasks']} | {r['calls']} | {r['allow']} | {r['deny']} | {r['escalate']} "
            f"| {blocked} ({pct(blocked, r['calls'])}) | {r['withhold']} / {r['redact']} | {r['pairs']} "
            f"| {r['stopped']} ({pct(r['stopped'], r['pairs'])}) | {r['withheld']} | {r['denied']} | {r['escalated']} "
            f"| {r['goal_calls']} | {r['goal_deny']} / {r['goal_escalate']} "
            f"| {r['no_goal_withheld']} / {r['no_goal_pairs']} |"
        )
    return "\n".join(lines) + "\n"


def report(path, part, split, by_task=False):
    """Print the table of an earlier run's details (JSON, or gzipped JSON
    when the name ends in .gz), restricted to a part."""
    import gzip

    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        run = json.load(f)
    users = [u for u in run["user_tasks"] if in_part(part, split, u["suite"], "user", u["user_task"])]
    pairs = [p for p in run["pairs"]
             if in_part(part, split, p["suite"], "user", p["user_task"])
             and in_part(part, split, p["suite"], "injection", p["injection_task"])]
    print(f"AgentDojo {run['benchmark_version']}, attack {run['attack']}, part {part} of {path} "
          f"(part {run['part']}{', smoke' if run['smoke'] else ''}), policy {run['policy']}\n")
    print(markdown(tally(users, pairs)), end="")
    if by_task:
        print()
        print(by_injection_task(pairs), end="")
    return 0


# ---------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--toolvet", default=os.path.join(ROOT, "target/release/toolvet"))
    ap.add_argument("--config", default=os.path.join(ROOT, "examples/toolvet.toml"))
    ap.add_argument("--part", choices=("all", "tune", "heldout"), default="all")
    ap.add_argument("--suite", action="append", choices=SUITES, help="only this suite (repeatable)")
    ap.add_argument("--smoke", action="store_true",
                    help=f"the first {SMOKE_USER_TASKS} user tasks and {SMOKE_INJECTION_TASKS} injection tasks of each suite (of --part)")
    ap.add_argument("--json", help="write every run's details here")
    ap.add_argument("--markdown", help="write the table here too")
    ap.add_argument("--report", metavar="JSON",
                    help="replay nothing: print the table of an earlier run's --json details (of --part; .gz read as gzip)")
    ap.add_argument("--by-task", action="store_true",
                    help="with --report: also a row per injection task (how its attacks were stopped)")
    ap.add_argument("--write-split", action="store_true", help=f"write {os.path.relpath(SPLIT_FILE, ROOT)} and exit")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    args = ap.parse_args()

    suites = load_suites()
    if args.write_split:
        write_split(suites, args.seed)
        return 0
    with open(SPLIT_FILE, encoding="utf-8") as f:
        split = json.load(f)
    if split.get("benchmark_version") != BENCHMARK_VERSION:
        fail(f"{SPLIT_FILE} is for AgentDojo {split.get('benchmark_version')}, not {BENCHMARK_VERSION}")
    if args.report:
        return report(args.report, args.part, split, args.by_task)
    if not os.access(args.toolvet, os.X_OK):
        fail(f"{args.toolvet}: no toolvet binary there (make cli, or --toolvet PATH)")
    if not os.path.isfile(args.config):
        fail(f"{args.config}: no policy file there")

    nonce = secrets.token_hex(4)
    started = time.monotonic()
    server = Server(args.toolvet, args.config)
    users, pairs, errors, failed_runs = [], [], [], 0
    try:
        for name in args.suite or SUITES:
            suite = suites[name]
            tools = tool_infos(suite)
            attack = make_attack(suite)
            user_ids = sorted(suite.user_tasks, key=task_number)
            inj_ids = sorted(suite.injection_tasks, key=task_number)
            user_ids = [t for t in user_ids if in_part(args.part, split, name, "user", t)]
            inj_ids = [t for t in inj_ids if in_part(args.part, split, name, "injection", t)]
            if args.smoke:
                user_ids, inj_ids = user_ids[:SMOKE_USER_TASKS], inj_ids[:SMOKE_INJECTION_TASKS]
            for uid in user_ids:
                record, errs = replay_user_task(server, suite, tools, suite.user_tasks[uid], nonce)
                users.append(record)
                errors += errs
                failed_runs += bool(errs)
            for uid in user_ids:
                for iid in inj_ids:
                    record, errs = replay_pair(server, suite, tools, attack, suite.user_tasks[uid],
                                               suite.injection_tasks[iid], nonce)
                    pairs.append(record)
                    errors += errs
                    failed_runs += bool(errs)
    finally:
        server.close()

    rows = tally(users, pairs)
    table = markdown(rows)
    print(f"AgentDojo {BENCHMARK_VERSION}, attack {ATTACK}, part {args.part}{' (smoke)' if args.smoke else ''}, "
          f"policy {os.path.relpath(args.config, ROOT)}, {time.monotonic() - started:.1f} s\n")
    print(table)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(table)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"benchmark_version": BENCHMARK_VERSION, "attack": ATTACK, "part": args.part,
                       "smoke": args.smoke, "policy": os.path.relpath(args.config, ROOT),
                       "summary": rows, "user_tasks": users, "pairs": pairs, "errors": errors}, f, indent=1)
    for e in errors:
        print(f"no verdict: {e}", file=sys.stderr)
    if not users or not pairs:
        print("nothing was replayed", file=sys.stderr)
        return 1
    # A run passes when every call and result in it got a verdict.
    runs = len(users) + len(pairs)
    print(f"runs: {runs - failed_runs} passed, {failed_runs} failed")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
