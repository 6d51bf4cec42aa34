"""Every example of docs/python.md runs, against the repository's example policy,
and is in the docs exactly as it is here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from policy import ROOT, need

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
FRAMEWORKS = {
    "openai_agents": "agents",
    "langchain": "langchain",
    "pydantic_ai": "pydantic_ai",
    "crewai": "crewai",
    "adk": "google.adk",
    "agent_framework": "agent_framework",
    "llamaindex": "llama_index.core",
    "smolagents": "smolagents",
    "aisuite": "aisuite",
    "agent_hooks": "agent_hooks",
}


def test_every_framework_has_an_example():
    assert sorted(p.name for p in EXAMPLES.glob("*_example.py")) == sorted(f"{f}_example.py" for f in FRAMEWORKS)


@pytest.mark.parametrize("framework", sorted(FRAMEWORKS))
def test_example(framework):
    need(FRAMEWORKS[framework])
    example = EXAMPLES / f"{framework}_example.py"
    docs = (ROOT / "docs" / "python.md").read_text()
    assert example.read_text().strip() in docs, f"docs/python.md does not show {example.name} as it is"
    out = subprocess.run(
        [sys.executable, str(example), str(ROOT / "examples" / "toolvet.toml")],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-4000:]
    assert "denied:" in out.stdout
