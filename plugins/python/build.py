#!/usr/bin/env python3
"""Build Python checks into toolvet components with componentize-py.

    python plugins/python/build.py plugins/python/spend-guard [more check dirs]

A check directory `<name>/` holds the app module `<name with - as _>.py`
(which ends with `Check = export(MyCheck)`) and any helper modules beside
it; the component is written to `<out-dir>/<name with - as _>.wasm`
(default `target/plugins/`). The kit (`plugins/python/toolvet_check`) and
the WIT contract (`wit/`) are found relative to this script.

A component is rebuilt unless the stamp beside it (`<name>.wasm.inputs`)
records the same inputs and the component itself is unchanged: the
sha256 of the check directory's path and of every input's path and bytes
(the check's `.py` files, the kit, the WIT files, this script and
requirements.txt, so a componentize-py upgrade rebuilds everything), and
the sha256 of the component. Contents, not file times: a checkout, a copy
or another check (of any language) writing the same output name all
rebuild. `--force` rebuilds regardless.

The contract: `toolvet:check@0.2.0` (`wit/check-0.2/check.wit`) unless
`--contract 0.1` (`wit/check.wit`, for a host older than 0.2). A 0.2 check
reads the run's labels and the host's tool facts; a check whose app module
binds `ResultCheck` (`Check = ResultCheck = export(MyCheck)`, for a check
with `check_result`) is built for the `result-plugin` world and vets tool
results, any other for `plugin`.

Runs componentize-py from the same environment as this interpreter
(`make python-plugins` uses the venv under target/).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
KIT = HERE / "toolvet_check"
WIT = REPO / "wit"
# The WIT directory of each contract the kit builds for.
CONTRACTS = {"0.1": WIT, "0.2": WIT / "check-0.2"}
DEFAULT_CONTRACT = "0.2"


def sources(check_dir: Path) -> list[Path]:
    """Every file whose change must rebuild the check's component."""
    files = [p for p in check_dir.rglob("*.py") if "__pycache__" not in p.parts]
    files += [p for p in KIT.rglob("*.py") if "__pycache__" not in p.parts]
    files += sorted(WIT.rglob("*.wit"))
    files += [Path(__file__).resolve(), HERE / "requirements.txt"]
    return files


def exports_results(app: Path) -> bool:
    """Whether the app module binds `ResultCheck` at its top level (the name
    componentize-py looks for the `result-check` export under)."""
    try:
        tree = ast.parse(app.read_bytes(), str(app))
    except SyntaxError as e:
        sys.exit(f"build.py: {app}:{e.lineno}: {e.msg}")
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
        if any(isinstance(t, ast.Name) and t.id == "ResultCheck" for t in targets):
            return True
        if isinstance(node, ast.ClassDef) and node.name == "ResultCheck":
            return True
    return False


def world(app: Path, contract: str) -> str:
    """The WIT world to build `app` for."""
    if not exports_results(app):
        return "plugin"
    if contract == "0.1":
        sys.exit(f"build.py: {app} binds ResultCheck, but result checks need contract 0.2 (not --contract 0.1)")
    return "result-plugin"


def inputs_digest(check_dir: Path, contract: str = DEFAULT_CONTRACT) -> str:
    """sha256 of the contract, the check directory's path and every input's
    path and bytes."""
    h = hashlib.sha256(b"toolvet build.py inputs v2\0")
    h.update(f"contract {contract}\0".encode())
    h.update(str(check_dir).encode() + b"\0")
    for path in sorted(set(sources(check_dir))):
        h.update(str(path).encode() + b"\0")
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def stamp_of(out: Path) -> Path:
    return out.with_name(out.name + ".inputs")


def up_to_date(out: Path, inputs: str) -> bool:
    """Whether `out` was built from `inputs` and is unchanged since."""
    stamp = stamp_of(out)
    if not (out.exists() and stamp.exists()):
        return False
    return stamp.read_text().split() == ["inputs", inputs, "output", file_digest(out)]


def componentize_py() -> str:
    """The componentize-py next to this interpreter, else the one on PATH."""
    local = Path(sys.executable).parent / "componentize-py"
    if local.exists():
        return str(local)
    found = shutil.which("componentize-py")
    if not found:
        sys.exit("build.py: componentize-py not found; run `make python-plugins` or "
                 "`pip install -r plugins/python/requirements.txt`")
    return found


def _shown(path: Path) -> str:
    """`path` relative to the current directory when it is inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def build(check_dir: Path, out_dir: Path, force: bool, contract: str = DEFAULT_CONTRACT) -> None:
    module = check_dir.name.replace("-", "_")
    app = check_dir / f"{module}.py"
    if not app.exists():
        sys.exit(f"build.py: {check_dir} has no app module {module}.py")
    out = out_dir / f"{module}.wasm"
    target = world(app, contract)
    inputs = inputs_digest(check_dir, contract)
    if not force and up_to_date(out, inputs):
        print(f"{_shown(out)}: up to date")
        return
    out_dir.mkdir(parents=True, exist_ok=True)
    print(f"{_shown(out)}: building for toolvet:check@{contract}.0, world {target}")
    # Write next to the output and rename, so an interrupted build never
    # leaves a truncated component that looks up to date.
    fd, tmp = tempfile.mkstemp(prefix=f".{module}.", suffix=".wasm", dir=out_dir)
    os.close(fd)
    cmd = [
        componentize_py(), "--quiet",
        "-d", str(CONTRACTS[contract]), "-w", target,
        # The check's directory first: its module wins over anything beside
        # the kit (build.py itself).
        "componentize", "-p", str(check_dir), "-p", str(HERE), module, "-o", tmp,
    ]
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    try:
        subprocess.run(cmd, check=True, env=env)
        os.chmod(tmp, 0o644)  # mkstemp creates 0600
        stamp_of(out).unlink(missing_ok=True)
        os.replace(tmp, out)
        stamp_of(out).write_text(f"inputs {inputs}\noutput {file_digest(out)}\n")
    except subprocess.CalledProcessError as e:
        sys.exit(f"build.py: componentize-py failed for {check_dir} (exit {e.returncode})")
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    print(f"{_shown(out)}: built ({out.stat().st_size / 1e6:.1f} MB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checks", nargs="+", type=Path, help="check directories")
    parser.add_argument("--out-dir", type=Path, default=REPO / "target" / "plugins")
    parser.add_argument("--force", action="store_true", help="rebuild even when up to date")
    parser.add_argument(
        "--contract",
        choices=sorted(CONTRACTS),
        default=DEFAULT_CONTRACT,
        help=f"the toolvet:check contract to build for (default {DEFAULT_CONTRACT}; 0.1 for a host older than 0.2)",
    )
    opts = parser.parse_args()
    for check_dir in opts.checks:
        build(check_dir.resolve(), opts.out_dir, opts.force, opts.contract)


if __name__ == "__main__":
    main()
