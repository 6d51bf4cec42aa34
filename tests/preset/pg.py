"""A throwaway Postgres for the preset test: `initdb` and `pg_ctl` in a
temporary directory, on a free loopback port, trusting local connections.
Run as the `postgres` user when the test runs as root (Postgres refuses
root), as crates/toolvet-serve/tests/all/pg.rs does for the Rust tests.

The server's binaries: `$PG_BINDIR`, else `pg_config --bindir`, else the
newest `/usr/lib/postgresql/*/bin` (Debian's layout)."""

import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


def bindir() -> Path:
    """The directory holding `initdb` and `pg_ctl`."""
    if os.environ.get("PG_BINDIR"):
        return Path(os.environ["PG_BINDIR"])
    if shutil.which("pg_config"):
        out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True)
        if out.returncode == 0 and (Path(out.stdout.strip()) / "initdb").exists():
            return Path(out.stdout.strip())
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin"),
        key=lambda p: [int(x) if x.isdigit() else 0 for x in p.parent.name.split(".")],
    )
    versions = [v for v in versions if (v / "initdb").exists()]
    if not versions:
        raise RuntimeError("Postgres is not installed (Debian: apt-get install postgresql)")
    return versions[-1]


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Postgres:
    """One server, started by `start()` and stopped (immediately) by `stop()`."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="toolvet-preset-pg-"))
        self.bin = bindir()
        self.port = free_port()
        self.as_root = os.geteuid() == 0
        if self.as_root:
            shutil.chown(self.dir, "postgres", "postgres")

    @property
    def url(self) -> str:
        """The ledger URL: the `postgres` superuser over TCP on loopback."""
        return f"postgres://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.bin / program), *args]
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        out = subprocess.run(command, cwd=self.dir, capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError(f"{command} failed ({out.returncode}): {out.stdout}{out.stderr}")

    def start(self) -> "Postgres":
        """Initialise the cluster and start the server (waiting until it
        accepts connections); on failure nothing is left behind."""
        data = str(self.dir / "data")
        options = f"-p {self.port} -h 127.0.0.1 -k {self.dir} -c fsync=off"
        try:
            self._run("initdb", "-D", data, "--auth=trust", "-U", "postgres", "--no-sync")
            self._run("pg_ctl", "-D", data, "-o", options, "-l", str(self.dir / "log"), "-w", "start")
        except BaseException:
            shutil.rmtree(self.dir, ignore_errors=True)
            raise
        return self

    def stop(self) -> None:
        """Stop the server (immediately: nothing here needs to survive)
        and remove its directory."""
        try:
            self._run("pg_ctl", "-D", str(self.dir / "data"), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
