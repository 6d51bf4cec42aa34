"""What the Python binding adds to a check, and how checks scale over threads.

    target/py-frameworks/bin/python crates/toolvet-python/bench/bench_check.py [--policy examples/toolvet.toml]

1. The same call N times on one thread: the wall time of ``host.check`` as Python
   sees it, against the verdict's own ``duration_us`` (the host's time for the
   verdict, measured in Rust) of the same calls, in the same run. The difference
   is what the binding adds: building the call from Python objects, parsing it,
   releasing and re-taking the GIL, and making the Verdict object. The policy's
   decision log is off, as ``toolvet bench`` turns it off (``--keep-decision-log``
   keeps it: writing a record happens after ``duration_us`` is taken, so the
   difference then also holds the record's cost).
   The calls run in rounds; the figure is the median over rounds of each round's
   median, so one noisy round does not move it.
2. Throughput: 1, 2 and 8 threads calling ``check`` on one shared host for a
   fixed time each, and, right after each, ``toolvet bench --concurrency`` (the
   CLI's own callers in Rust) on the same policy and call for reference.
"""

from __future__ import annotations

import argparse
import re
import json
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import toolvet

ROOT = Path(__file__).resolve().parents[3]
CALL = {"id": "c1", "name": "bash", "arguments": {"command": "ls -la src && cargo test --workspace"}}
CONTEXT = {"run_id": "bench", "attributes": {"cwd": "/home/alice/project"}}


def rounds(host: toolvet.Host, n: int, k: int) -> dict:
    results = [overhead(host, n) for _ in range(k)]
    return {key: statistics.median(r[key] for r in results) for key in results[0]} | {"calls": n * k, "rounds": k}


def load(policy: str, keep_log: bool) -> toolvet.Host:
    path = Path(policy).resolve()
    text = path.read_text()
    if not keep_log:
        text = re.sub(r"(?m)^\s*decision_log\s*=.*$", "", text)
    return toolvet.Host.from_toml(text, base_dir=str(path.parent), source=str(path))


def cli_throughput(cli: Path, policy: str, concurrency: int, n: int, keep_log: bool) -> float:
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump({"call": CALL, "context": CONTEXT}, f)
        f.flush()
        out = subprocess.run(
            [str(cli), "bench", "--config", policy, "-n", str(n), "--concurrency", str(concurrency),
             *(["--keep-decision-log"] if keep_log else []), "--json", f.name],
            capture_output=True, text=True, check=True,
        )
    return json.loads(out.stdout.splitlines()[0])["verdicts_per_second"]


def overhead(host: toolvet.Host, n: int) -> dict:
    py_ns, rust_us = [], []
    clock = time.perf_counter_ns
    for _ in range(n):
        t0 = clock()
        v = host.check(CALL, context=CONTEXT)
        py_ns.append(clock() - t0)
        rust_us.append(v.duration_us)
    assert v.decision == "allow", v
    py_us = [x / 1000 for x in py_ns]
    added = [p - r for p, r in zip(py_us, rust_us)]
    return {
        "calls": n,
        "python_check_p50_us": statistics.median(py_us),
        "python_check_mean_us": statistics.fmean(py_us),
        "rust_verdict_p50_us": statistics.median(rust_us),
        "rust_verdict_mean_us": statistics.fmean(rust_us),
        "added_p50_us": statistics.median(added),
        "added_mean_us": statistics.fmean(added),
    }


def throughput(host: toolvet.Host, threads: int, seconds: float) -> float:
    counts = [0] * threads
    stop = threading.Event()
    start = threading.Barrier(threads + 1)

    def work(i: int) -> None:
        start.wait()
        n = 0
        while not stop.is_set():
            host.check(CALL, context=CONTEXT)
            n += 1
        counts[i] = n

    pool = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for t in pool:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    for t in pool:
        t.join()
    return sum(counts) / (time.perf_counter() - t0)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--policy", default=str(ROOT / "examples" / "toolvet.toml"))
    parser.add_argument("-n", type=int, default=2000, help="calls per round")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--cli", default=str(ROOT / "target" / "release" / "toolvet"))
    parser.add_argument("--keep-decision-log", action="store_true")
    args = parser.parse_args()
    host = load(args.policy, args.keep_decision_log)
    overhead(host, 2000)  # warm up: instances, caches
    report = {"policy": args.policy, "decision_log": args.keep_decision_log, "call": CALL}
    report["overhead"] = rounds(host, args.n, args.rounds)
    report["python_threads_per_s"], report["cli_concurrency_per_s"] = {}, {}
    for t in (1, 2, 8):
        report["python_threads_per_s"][t] = round(throughput(host, t, args.seconds))
        if Path(args.cli).exists():
            report["cli_concurrency_per_s"][t] = round(cli_throughput(Path(args.cli), args.policy, t, 20000, args.keep_decision_log))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
