//! What earlier calls of the run did that changes how a later call is
//! judged: symbolic links it made (a later write to `link/x` writes the
//! target; `rm -rf link/` deletes it) and directories it created (the run
//! may delete them again, even outside the workspace). Read from the shell
//! commands of the history calls that ran, with [`crate::words`].

use crate::words;

/// Facts from the run's history.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    /// `(link, target)`, both absolute: symbolic links the run made.
    pub symlinks: Vec<(String, String)>,
    /// Absolute directories the run created (`mkdir` without `-p`, `git
    /// clone` into a new directory): they did not exist before.
    pub created: Vec<String>,
    /// Local ports of servers the run started (`npm run dev`, `uvicorn
    /// --port 8000`, `python -m http.server`, `docker run -p 8080:80`): the
    /// agent may fetch them on loopback.
    pub listening: Vec<u16>,
}

/// Dev servers and the ports they listen on without a port option, from
/// their documentation: `(program, subcommand or "" for any, ports)`.
/// `npm run dev` and friends run a script this cannot see, so they get the
/// usual ports of JavaScript dev servers (Next.js and Express 3000, Vite
/// 5173, Vue CLI 8080, Astro 4321, Angular 4200).
const SERVERS: &[(&str, &str, &[u16])] = &[
    ("npm", "dev", &[3000, 5173, 8080, 4321, 4200]),
    ("npm", "start", &[3000, 5173, 8080, 4321, 4200]),
    ("npm", "serve", &[3000, 5173, 8080, 4321, 4200]),
    ("yarn", "dev", &[3000, 5173, 8080, 4321, 4200]),
    ("yarn", "start", &[3000, 5173, 8080, 4321, 4200]),
    ("pnpm", "dev", &[3000, 5173, 8080, 4321, 4200]),
    ("pnpm", "start", &[3000, 5173, 8080, 4321, 4200]),
    ("bun", "dev", &[3000, 5173, 8080, 4321, 4200]),
    ("vite", "", &[5173]),
    ("next", "dev", &[3000]),
    ("next", "start", &[3000]),
    ("astro", "dev", &[4321]),
    ("ng", "serve", &[4200]),
    ("http-server", "", &[8080]),
    ("serve", "", &[3000]),
    ("uvicorn", "", &[8000]),
    ("gunicorn", "", &[8000]),
    ("fastapi", "dev", &[8000]),
    ("flask", "run", &[5000]),
    ("manage.py", "runserver", &[8000]),
    ("rails", "server", &[3000]),
    ("rails", "s", &[3000]),
    ("hugo", "server", &[1313]),
    ("jekyll", "serve", &[4000]),
    ("mkdocs", "serve", &[8000]),
    ("mix", "phx.server", &[4000]),
    ("jupyter", "", &[8888]),
];

impl Facts {
    /// Facts from shell commands that ran earlier in the run (oldest
    /// first), resolved against the absolute directory `cwd`.
    pub fn from_commands<'a>(commands: impl IntoIterator<Item = &'a str>, cwd: &str) -> Facts {
        Facts::from_calls(commands.into_iter().map(|c| (c, true)), cwd)
    }

    /// [`Facts::from_commands`] for commands that may not be the ones
    /// that ran (`certain` false: a call whose command arguments differ,
    /// [`crate::roles`]): from those only the symbolic links are learnt,
    /// which make later calls stricter; a directory it claims to have
    /// created or a server it claims to have started, which let later
    /// calls do more, are not.
    pub fn from_calls<'a>(commands: impl IntoIterator<Item = (&'a str, bool)>, cwd: &str) -> Facts {
        let mut facts = Facts::default();
        if !cwd.starts_with('/') {
            return facts;
        }
        for (cmd, certain) in commands {
            for w in words::commands(cmd) {
                if certain {
                    facts.learn(&w, cwd);
                } else {
                    let mut links = Facts::default();
                    links.learn(&w, cwd);
                    facts.symlinks.extend(links.symlinks);
                }
            }
        }
        facts
    }

    fn learn(&mut self, w: &[String], cwd: &str) {
        let abs = |p: &str| resolve(cwd, p);
        let ops = words::operands(w);
        match words::base_name(&w[0]) {
            "ln" if w.iter().any(|a| {
                a.starts_with('-') && !a.starts_with("--") && a.contains('s') || a == "--symbolic"
            }) =>
            {
                let (target, link) = match ops.as_slice() {
                    [t, l] => (*t, abs(l)),
                    [t] => (*t, abs(t.rsplit('/').next().unwrap_or(t))),
                    _ => return,
                };
                let target = if target.starts_with('/') || target.starts_with('~') {
                    target.to_string()
                } else {
                    let dir = link
                        .rsplit_once('/')
                        .map_or("/", |(d, _)| if d.is_empty() { "/" } else { d });
                    resolve(dir, target)
                };
                self.symlinks.push((link, target));
            }
            "mkdir"
                if !w.iter().any(|a| {
                    a == "-p"
                        || a == "--parents"
                        || (a.starts_with('-') && !a.starts_with("--") && a.contains('p'))
                }) =>
            {
                self.created.extend(ops.iter().map(|d| abs(d)));
            }
            "python" | "python3"
                if w.get(1).is_some_and(|a| a == "-m")
                    && w.get(2).is_some_and(|m| m == "http.server") =>
            {
                let port = w.get(3).and_then(|p| p.parse().ok()).unwrap_or(8000);
                self.listening.push(port);
            }
            "docker" | "podman" if w.get(1).is_some_and(|s| s == "run") => {
                for (i, a) in w.iter().enumerate() {
                    let spec = match a.as_str() {
                        "-p" | "--publish" => w.get(i + 1).map(String::as_str),
                        _ => a
                            .strip_prefix("--publish=")
                            .or_else(|| a.strip_prefix("-p"))
                            .filter(|s| !s.is_empty()),
                    };
                    // `[ip:]host:container`
                    if let Some(host) = spec
                        .and_then(|s| s.rsplit(':').nth(1))
                        .and_then(|p| p.parse().ok())
                    {
                        self.listening.push(host);
                    }
                }
            }
            "git" if w.get(1).is_some_and(|s| s == "clone") => {
                let rest: Vec<&str> = ops.iter().skip(1).copied().collect();
                if let [_, dir] = rest.as_slice() {
                    self.created.push(abs(dir));
                }
            }
            _ => self.learn_server(w),
        }
    }

    /// A dev server's port: an explicit `--port N`, `-p N`, `PORT=N` or
    /// `host:N` option, or the server's default.
    fn learn_server(&mut self, w: &[String]) {
        let program = words::base_name(&w[0]);
        let (program, rest) = match program {
            "npx" | "bunx" | "pnpx" => match w.get(1) {
                Some(p) => (words::base_name(p), &w[2..]),
                None => return,
            },
            p if p.starts_with("python") && w.get(1).is_some_and(|a| a.ends_with("manage.py")) => {
                ("manage.py", &w[2..])
            }
            p => (p, &w[1..]),
        };
        let sub = rest
            .iter()
            .find(|a| !a.starts_with('-'))
            .map(String::as_str)
            .unwrap_or("");
        let sub = if matches!(program, "npm" | "yarn" | "pnpm" | "bun") && sub == "run" {
            rest.iter()
                .filter(|a| !a.starts_with('-'))
                .nth(1)
                .map(String::as_str)
                .unwrap_or("")
        } else {
            sub
        };
        let Some((_, _, defaults)) = SERVERS
            .iter()
            .find(|(p, s, _)| *p == program && (s.is_empty() || *s == sub))
        else {
            return;
        };
        let explicit = rest.iter().enumerate().find_map(|(i, a)| {
            let v = match a.as_str() {
                "--port" | "-p" | "-l" | "--listen" | "-b" | "--bind" => {
                    rest.get(i + 1).map(String::as_str)
                }
                _ => a
                    .strip_prefix("--port=")
                    .or_else(|| a.strip_prefix("--bind=")),
            }?;
            v.rsplit(':').next()?.parse::<u16>().ok()
        });
        match explicit {
            Some(p) => self.listening.push(p),
            None => self.listening.extend(defaults.iter()),
        }
    }

    /// `path` (absolute) with a leading symbolic link of the run replaced by
    /// its target; `~` targets use `home`.
    pub fn through_symlinks(&self, path: String, home: Option<&str>) -> String {
        for (link, target) in &self.symlinks {
            let rest = if path == *link {
                Some("")
            } else {
                path.strip_prefix(&format!("{link}/"))
            };
            if let Some(rest) = rest {
                let target = match (target.strip_prefix('~'), home) {
                    (Some(t), Some(h)) => format!("{h}{t}"),
                    (Some(_), None) => return path,
                    (None, _) => target.clone(),
                };
                return resolve("/", &format!("{target}/{rest}"));
            }
        }
        path
    }

    /// Whether the run created `path` or a directory above it.
    pub fn created_by_run(&self, path: &str) -> bool {
        self.created
            .iter()
            .any(|c| path == c || path.starts_with(&format!("{c}/")))
    }
}

/// `path` joined to the absolute `base` (unless absolute itself), with `.`,
/// `..` and repeated slashes folded lexically.
pub fn resolve(base: &str, path: &str) -> String {
    let joined = if path.starts_with('/') {
        path.to_string()
    } else {
        format!("{base}/{path}")
    };
    let mut parts: Vec<&str> = Vec::new();
    for comp in joined.split('/') {
        match comp {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    format!("/{}", parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_in_doubt_teach_only_links() {
        let f = Facts::from_calls(
            [
                ("mkdir /home/a/keep && ln -s /etc cfg", false),
                ("mkdir /home/a/scratch", true),
            ],
            "/w",
        );
        assert_eq!(f.created, ["/home/a/scratch"]);
        assert_eq!(f.symlinks, [("/w/cfg".to_string(), "/etc".to_string())]);
    }

    #[test]
    fn servers() {
        let f = Facts::from_commands(
            [
                "npm run dev",
                "uvicorn app.main:app --reload --port 8001",
                "python -m http.server 9000",
                "docker run -d -p 127.0.0.1:6380:6379 redis",
                "nohup flask run > /tmp/f.log 2>&1 &",
            ],
            "/w/p",
        );
        for p in [5173, 3000, 8001, 9000, 6380, 5000] {
            assert!(f.listening.contains(&p), "{p}");
        }
        assert!(!f.listening.contains(&6379));
        assert!(
            Facts::from_commands(["cargo build"], "/w")
                .listening
                .is_empty()
        );
    }

    #[test]
    fn links_and_created_directories() {
        let f = Facts::from_commands(
            [
                "ln -s /etc cfg",
                "ln -sfn ~ homelink",
                "mkdir scratch && mkdir -p maybe",
                "git clone https://x/y.git ../copy",
                "cd sub && ln -s ../a b",
            ],
            "/w/p",
        );
        assert_eq!(
            f.through_symlinks("/w/p/cfg/cron.d/x".into(), None),
            "/etc/cron.d/x"
        );
        assert_eq!(
            f.through_symlinks("/w/p/homelink".into(), Some("/home/a")),
            "/home/a"
        );
        assert_eq!(f.through_symlinks("/w/p/cfgx".into(), None), "/w/p/cfgx");
        assert!(f.created_by_run("/w/p/scratch/x"));
        assert!(!f.created_by_run("/w/p/maybe"));
        assert!(f.created_by_run("/w/copy"));
        assert_eq!(resolve("/w", "../x/./y"), "/x/y");
    }
}
