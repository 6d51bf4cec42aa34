"""A result check built with the Python kit, through the real host: the
fixture plugins/python/tests/results-check is built for contract 0.2
(`result-plugin`) and run by `toolvet check-result` and `toolvet check`
on the cases of plugins/kit-results-cases.json (shared with the
JavaScript kit's test). Runs when $TOOLVET names the CLI (`make kit-tests`
sets it); the build goes to target/kit-tests/python/."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent.parent
TOOLVET = os.environ.get("TOOLVET")


@unittest.skipUnless(TOOLVET, "set $TOOLVET to the toolvet CLI (make kit-tests does)")
class HostResultsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        out = REPO / "target" / "kit-tests" / "python"
        subprocess.run(
            [sys.executable, str(HERE.parent / "build.py"), "--out-dir", str(out), str(HERE / "results-check")],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        cls.tmp = tempfile.TemporaryDirectory()
        cls.policy = Path(cls.tmp.name) / "policy.toml"
        cls.policy.write_text(f'[[check]]\nname = "results"\nplugin = {json.dumps(str(out / "results_check.wasm"))}\n')

    @classmethod
    def tearDownClass(cls) -> None:
        cls.tmp.cleanup()

    def test_cases(self) -> None:
        cases = json.loads((REPO / "plugins" / "kit-results-cases.json").read_text())["cases"]
        verdicts: dict[str, dict] = {}
        for case in cases:
            with self.subTest(case["name"]):
                request = case["input"]
                if "labels_from" in case:
                    request["context"]["labels"] = verdicts[case["labels_from"]]["labels"]
                done = subprocess.run(
                    [TOOLVET, case["command"], "--config", str(self.policy)],
                    input=json.dumps(request),
                    capture_output=True,
                    text=True,
                )
                self.assertEqual(done.returncode, case["exit"], f"{done.stdout}\n{done.stderr}")
                verdict = json.loads(done.stdout)
                verdicts[case["name"]] = verdict
                for key, value in case["expect"].items():
                    self.assertEqual(verdict.get(key), value, key)


if __name__ == "__main__":
    unittest.main()
