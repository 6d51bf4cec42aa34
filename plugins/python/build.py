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

Runs componentize-py from the same environment as this interpreter
(`make python-plugins` uses the venv under target/).
"""

from __future__ import annotations

import argparse
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
WORLD = "plugin"


def sources(check_dir: Path) -> list[Path]:
    """Every file whose change must rebuild the check's component."""
    files = [p for p in check_dir.rglob("*.py") if "__pycache__" not in p.parts]
    files += [p for p in KIT.rglob("*.py") if "__pycache__" not in p.parts]
    files += sorted(WIT.rglob("*.wit"))
    files += [Path(__file__).resolve(), HERE / "requirements.txt"]
    return files


def inputs_digest(check_dir: Path) -> str:
    """sha256 of the check directory's path and of every input's path and bytes."""
    h = hashlib.sha256(b"toolvet build.py inputs v1\0")
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


def build(check_dir: Path, out_dir: Path, force: bool) -> None:
    module = check_dir.name.replace("-", "_")
    app = check_dir / f"{module}.py"
    if not app.exists():
        sys.exit(f"build.py: {check_dir} has no app module {module}.py")
    out = out_dir / f"{module}.wasm"
    inputs = inputs_digest(check_dir)
    if not force and up_to_date(out, inputs):
        print(f"{_shown(out)}: up to date")
        return
    out_dir.mkdir(parents=True, exist_ok=True)
    # Write next to the output and rename, so an interrupted build never
    # leaves a truncated component that looks up to date.
    fd, tmp = tempfile.mkstemp(prefix=f".{module}.", suffix=".wasm", dir=out_dir)
    os.close(fd)
    cmd = [
        componentize_py(), "--quiet",
        "-d", str(WIT), "-w", WORLD,
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
    opts = parser.parse_args()
    for check_dir in opts.checks:
        build(check_dir.resolve(), opts.out_dir, opts.force)


if __name__ == "__main__":
    main()
