//! A throwaway Postgres for tests: `initdb` and `pg_ctl` in a temporary
//! directory, on a free loopback port, as the `postgres` user when the
//! tests run as root (Postgres refuses root). Shared by the serve tests
//! and the CLI's (`#[path]`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// A Postgres server of one test, stopped when dropped.
pub struct Postgres {
    dir: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
}

fn bindir() -> PathBuf {
    if let Ok(out) = Command::new("pg_config").arg("--bindir").output()
        && out.status.success()
    {
        let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if dir.join("initdb").exists() {
            return dir;
        }
    }
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.path().join("bin"))
                .collect()
        })
        .unwrap_or_default();
    versions.sort();
    versions
        .pop()
        .filter(|d| d.join("initdb").exists())
        .expect("Postgres is not installed (Debian: apt-get install postgresql)")
}

pub fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

impl Postgres {
    /// Initialise and start a server.
    pub fn start() -> Postgres {
        let dir = tempfile::tempdir().unwrap();
        let bin = bindir();
        if is_root() {
            // Postgres refuses to run as root.
            run(Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(dir.path()));
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let pg = Postgres { dir, bin, port };
        pg.as_owner(
            &pg.bin.join("initdb"),
            &[
                "-D",
                &pg.data().display().to_string(),
                "--auth=trust",
                "-U",
                "postgres",
                "--no-sync",
            ],
        );
        pg.start_server();
        pg
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// The URL replicas use.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    fn as_owner(&self, program: &Path, args: &[&str]) {
        let mut command = if is_root() {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(program);
            c
        } else {
            Command::new(program)
        };
        run(command.args(args).current_dir(self.dir.path()));
    }

    /// Start (again).
    pub fn start_server(&self) {
        let options = format!(
            "-p {} -h 127.0.0.1 -k {} -c fsync=off -c max_connections=100",
            self.port,
            self.dir.path().display()
        );
        self.as_owner(
            &self.bin.join("pg_ctl"),
            &[
                "-D",
                &self.data().display().to_string(),
                "-o",
                &options,
                "-l",
                &self.dir.path().join("log").display().to_string(),
                "-w",
                "start",
            ],
        );
    }

    /// Stop now (what a crash or a failover looks like to clients).
    pub fn stop_server(&self) {
        self.as_owner(
            &self.bin.join("pg_ctl"),
            &[
                "-D",
                &self.data().display().to_string(),
                "-m",
                "immediate",
                "-w",
                "stop",
            ],
        );
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let _ = Command::new(if is_root() { "runuser" } else { "true" })
            .args(if is_root() {
                vec!["-u", "postgres", "--"]
            } else {
                vec![]
            })
            .arg(self.bin.join("pg_ctl"))
            .args([
                "-D",
                &self.data().display().to_string(),
                "-m",
                "immediate",
                "stop",
            ])
            .output();
    }
}

fn run(command: &mut Command) {
    let out = command.output().expect("the command runs");
    assert!(
        out.status.success(),
        "{command:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
