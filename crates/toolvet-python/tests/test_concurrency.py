"""The GIL is released while checks run; threads and asyncio vet in parallel."""

from __future__ import annotations

import asyncio
import threading
import time

import toolvet
from policy import HOSTILE


def spinning_host(tmp_path, timeout_ms):
    text = f"""
[[check]]
name = "spins"
plugin = "{HOSTILE / 'hostile.wasm'}"
timeout_ms = {timeout_ms}
[check.settings]
behave = "loop"
"""
    return toolvet.Host.from_toml(text, base_dir=str(tmp_path))


def test_python_runs_while_a_check_runs(tmp_path):
    """A check that spins until its 400 ms deadline: if the GIL were held,
    this thread could not count while it runs."""
    host = spinning_host(tmp_path, 400)
    host.check({"name": "warm", "arguments": {}})
    result = {}
    worker = threading.Thread(target=lambda: result.setdefault("v", host.check({"name": "x", "arguments": {}})))
    counted = 0
    worker.start()
    time.sleep(0.05)
    deadline = time.monotonic() + 0.2
    while time.monotonic() < deadline and worker.is_alive():
        counted += 1
    assert worker.is_alive(), "the check ended early"
    worker.join()
    assert result["v"].decision == "deny" and result["v"].checks[0].error == "timeout"
    assert counted > 10_000, counted


def test_eight_threads_get_consistent_verdicts(shared_host):
    calls = [
        ({"name": "get_weather", "arguments": {"city": "Oslo"}}, "allow"),
        ({"name": "delete_repository", "arguments": {}}, "deny"),
        ({"name": "bash", "arguments": {"command": "rm -rf ~"}}, "deny"),
    ]
    context = {"attributes": {"cwd": "/home/alice/project"}}
    errors: list = []

    def work(n):
        try:
            for i in range(200):
                call, want = calls[(i + n) % len(calls)]
                got = shared_host.check(call, context=context).decision
                if got != want:
                    errors.append((call, got))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_checks_in_two_threads_overlap(tmp_path):
    """Two 300 ms checks in two threads take about 300 ms, not 600."""
    host = spinning_host(tmp_path, 300)
    host.check({"name": "warm", "arguments": {}})
    threads = [threading.Thread(target=host.check, args=({"name": "x", "arguments": {}},)) for _ in range(2)]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert time.monotonic() - start < 0.55


def test_acheck(shared_host):
    async def main():
        verdicts = await asyncio.gather(
            *(shared_host.acheck({"name": name, "arguments": {}}) for name in ["get_weather", "delete_repository"] * 10)
        )
        return [v.decision for v in verdicts]

    assert asyncio.run(main()) == ["allow", "deny"] * 10


def test_acheck_bad_input_raises_before_awaiting(shared_host):
    try:
        shared_host.acheck({"name": "", "arguments": {}})
    except toolvet.CallError as e:
        assert "must not be empty" in str(e)
    else:  # pragma: no cover
        raise AssertionError("no CallError")


def test_acheck_does_not_block_the_loop(tmp_path):
    host = spinning_host(tmp_path, 300)
    host.check({"name": "warm", "arguments": {}})

    async def main():
        ticks = 0

        async def ticker():
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        t = asyncio.ensure_future(ticker())
        v = await host.acheck({"name": "x", "arguments": {}})
        t.cancel()
        return v, ticks

    v, ticks = asyncio.run(main())
    assert v.decision == "deny" and ticks >= 10
