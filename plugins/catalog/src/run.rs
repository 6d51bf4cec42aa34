//! What earlier calls of the run did that changes how a later call is
//! judged: symbolic links it made (a later write to `link/x` writes the
//! target; `rm -rf link/` deletes it), directories it created and servers
//! it started. Read from the shell commands of the history calls that ran,
//! with the shell parse shell-guard judges commands with
//! ([`crate::parse::commands`]: redirections, comments and compound
//! commands read as the shell reads them).
//!
//! Everything here is a claim: the history records that a call was
//! allowed, not that it ran or succeeded. So a fact may only make a later
//! decision stricter, or soften a deny to a question, never make it an
//! allow: links are judged together with the plain paths ([`readings`],
//! strictest wins), a directory the run claims to have created is asked
//! about before it is removed outside the workspace, a server's port is
//! asked about before it is fetched. A command that cannot be parsed is
//! read in doubt ([`Facts::doubts`]): its links word by word, leniently,
//! and nothing that would loosen. A variable it assigns (or one assigned
//! by a command that may not run: after `&&`, in an `if` body) holds its
//! value only maybe: a word holding it teaches links, never a directory or
//! a server, and a link is also learnt with the variable's sure value
//! ([`Facts::sure_links`], a reading of its own), so that a value in doubt
//! neither loosens a later decision nor hides what the sure one tightens.

use crate::parse::{self, Simple};
use crate::words;

/// Facts from the run's history.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    /// `(link, target)`, both absolute: symbolic links the run made.
    pub symlinks: Vec<(String, String)>,
    /// Absolute directories the run claims to have created (`mkdir`
    /// without `-p`, `git clone` into a new directory), from commands that
    /// surely ran ([`parse::Simple::certain`]). A claim only: the history
    /// says the call was allowed, not that it succeeded (`mkdir DIR ||
    /// true` on an existing directory), so shell-guard asks before such a
    /// directory outside the workspace is removed, never allows it.
    pub created: Vec<String>,
    /// Local ports of servers the run claims to have started (`npm run
    /// dev`, `uvicorn --port 8000`, `python -m http.server`, `docker run -p
    /// 8080:80`), from commands that surely ran: a claim (the server may
    /// have exited at once, `vite --port P --version`), so egress-guard
    /// asks about a loopback fetch to one rather than allowing it.
    pub listening: Vec<u16>,
    /// Why the run's commands were not read in full: a command that could
    /// not be parsed (its links were then read word by word, leniently,
    /// and nothing else), or a simple command still holding shell syntax
    /// among its words. Empty when every command was read.
    pub doubts: Vec<String>,
    /// `(link, target)` as a command made them with the sure values of its
    /// variables alone, where a value assigned only maybe (in doubt, after
    /// `&&`, in an `if` body) made the link in [`Facts::symlinks`] point
    /// elsewhere: `X=~/.claude`, then `X=/tmp; echo '…` (which bash may
    /// have refused whole), then `ln -s $X k`. [`readings`] judges a
    /// reading where these win, so that neither value hides the other.
    pub sure_links: Vec<(String, String)>,
}

/// Most reasons [`Facts::doubts`] keeps.
const MAX_DOUBTS: usize = 4;

/// One history call's command text parsed once (for every reading of
/// [`readings`]): its simple commands, whether the call is the one that
/// ran, and why it was read in doubt.
struct Parsed {
    /// Its simple commands ([`parse::commands`]), or, when it could not be
    /// parsed, the lenient word-by-word reading of
    /// [`words::lenient_commands`]: every command of it doubtful and
    /// uncertain, so only links are learnt from it (a link wrongly believed
    /// makes later calls stricter, never looser).
    simples: Vec<Simple>,
    /// Whether the call's command is the one that ran.
    certain: bool,
    /// Why the text could not be parsed, if it could not.
    doubt: Option<String>,
}

impl Parsed {
    fn new(cmd: &str, certain: bool) -> Parsed {
        if !may_teach(cmd) {
            return Parsed {
                simples: Vec::new(),
                certain,
                doubt: None,
            };
        }
        match parse::commands(cmd) {
            Ok(simples) => Parsed {
                simples,
                certain,
                doubt: None,
            },
            Err(e) => {
                let why = match e {
                    parse::SyntaxError::TooDeep(w) | parse::SyntaxError::Unparseable(w) => w,
                };
                Parsed {
                    simples: words::lenient_commands(cmd)
                        .into_iter()
                        .map(|words| Simple {
                            words,
                            certain: false,
                            doubtful: true,
                        })
                        .collect(),
                    certain: false,
                    doubt: Some(format!(
                        "a command could not be parsed ({why}); its links were read word by word"
                    )),
                }
            }
        }
    }
}

/// Command names [`Facts::read_parsed`] learns from, besides the dev
/// servers of [`SERVERS`] and `python…`: moving the shell (`cd`), setting
/// variables, nested scripts, links, created directories (`git clone`
/// counts by its `clone`) and servers.
const TEACHING_NAMES: &[&str] = &[
    "cd",
    "pushd",
    "popd",
    "export",
    "declare",
    "typeset",
    "local",
    "readonly",
    "bash",
    "sh",
    "zsh",
    "dash",
    "ksh",
    "ash",
    "eval",
    "ln",
    "mv",
    "cp",
    "mkdir",
    "docker",
    "podman",
    "clone",
    "npx",
    "bunx",
    "pnpx",
    "manage.py",
];

/// Whether the command text `cmd` may teach a fact at all, decided without
/// parsing it (parsing every earlier command on every call is the cost of
/// reading the history, issue 33): a text with `$`, `=` or a backquote
/// (a variable may name the program, or be set for later calls) may; else
/// only one holding a name of [`TEACHING_NAMES`] or [`SERVERS`] (or one
/// starting `python`) as a word. Words are taken after removing every
/// quote and backslash and splitting at anything but letters, digits and
/// `._+-`, so a name in quotes (`'l'n`), behind a path (`/bin/ln`) or a
/// keyword (`then ln`) still counts: this over-approximates what
/// [`parse::commands`] could give.
fn may_teach(cmd: &str) -> bool {
    if cmd.contains(['$', '=', '`']) {
        return true;
    }
    let plain: String = cmd
        .chars()
        .filter(|c| !matches!(c, '\'' | '"' | '\\'))
        .collect();
    plain
        .split(|c: char| !(c.is_alphanumeric() || matches!(c, '.' | '_' | '+' | '-')))
        .any(|w| {
            TEACHING_NAMES.contains(&w)
                || w.starts_with("python")
                || SERVERS.iter().any(|(p, _, _)| *p == w)
        })
}

/// The ports of [`Facts::listening`] alone, for a check that needs
/// nothing else (egress-guard, on every call): only the commands that name
/// a server program are parsed. A server hidden behind a variable
/// (`S=vite; $S`) is missed, which is safe: a remembered port only softens
/// a deny of a loopback fetch to a question.
pub fn listening_ports<'a>(commands: impl IntoIterator<Item = &'a str>, cwd: &str) -> Vec<u16> {
    let servers = commands.into_iter().filter(|cmd| {
        cmd.split(|c: char| !(c.is_alphanumeric() || matches!(c, '.' | '_' | '+' | '-')))
            .any(|w| {
                w.starts_with("python")
                    || matches!(
                        w,
                        "docker" | "podman" | "npx" | "bunx" | "pnpx" | "manage.py"
                    )
                    || SERVERS.iter().any(|(p, _, _)| *p == w)
            })
    });
    Facts::from_commands(servers, cwd).listening
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

/// How many working directories a run's commands are followed into before
/// further ones are dropped (oldest kept: the cwd the front end names).
const MAX_DIRS: usize = 16;

/// How deep `bash -c '…'` and `eval` texts are read into.
const MAX_NESTED: u32 = 3;

/// How many directories above the call's cwd [`readings`] learns the
/// run's links in.
const MAX_BASES: usize = 8;

/// How many links in a row [`Facts::through_symlinks`] follows.
const MAX_HOPS: usize = 8;

/// What [`Facts::from_calls`] keeps while it reads the run's commands in
/// order: where the commands may have run, and the variables they set.
struct Shell {
    /// The directory the current call's commands run in, when known
    /// (starts as the cwd the front end names; `cd` moves it).
    here: Option<String>,
    /// Whether a `cd` of the current call moved `here` (a relative
    /// directory it creates is then not certain to be where it is taken).
    moved: bool,
    /// Every directory a command of the run may have run in: the cwd and
    /// each directory a `cd` of any earlier command went to (an agent's
    /// shell may keep its working directory from call to call). Links are
    /// learnt in each of them.
    dirs: Vec<String>,
    /// Variables assigned by earlier commands (`X=/root/.ssh/id_rsa`),
    /// newest last.
    vars: Vec<Var>,
    /// The targets of `cd`s that could not be placed (`~`, `-`, `$X`,
    /// none; a `popd` is `-`), at most [`MAX_DIRS`].
    unplaced: Vec<String>,
}

/// A variable an earlier command assigned.
struct Var {
    name: String,
    value: String,
    /// Whether the assignment surely ran: a certain command
    /// ([`parse::Simple::certain`]) of a call that is the one that ran,
    /// read without doubt, from values that are sure themselves. A value
    /// assigned only maybe (`false && X=…`, an `if` body, a command that
    /// could not be parsed, which bash may have refused whole) may be what
    /// the variable holds, or not: it teaches links (stricter) and never a
    /// directory or a server (which loosen), and it never hides the sure
    /// value before it from the links.
    sure: bool,
}

impl Shell {
    fn visit(&mut self, dir: String) {
        if !self.dirs.contains(&dir) && self.dirs.len() < MAX_DIRS {
            self.dirs.push(dir);
        }
    }

    /// The directories a relative path of the current command may be
    /// relative to: `here` when known, else every directory of the run.
    fn places(&self) -> Vec<&str> {
        match &self.here {
            Some(h) => vec![h.as_str()],
            None => self.dirs.iter().map(String::as_str).collect(),
        }
    }

    /// `word` with `$NAME` and `${NAME}` of known variables replaced by
    /// their newest value, and whether a value put in was assigned only
    /// maybe ([`Var::sure`]); with `sure_only`, by their newest sure value,
    /// and whether a variable assigned only maybe was left as written.
    fn expand(&self, word: &str, sure_only: bool) -> (String, bool) {
        if !word.contains('$') {
            return (word.to_string(), false);
        }
        let mut out = String::new();
        let mut maybe = false;
        let mut rest = word;
        while let Some(i) = rest.find('$') {
            out.push_str(&rest[..i]);
            let after = &rest[i + 1..];
            let (name, len) = match after.strip_prefix('{') {
                Some(inner) => match inner.find('}') {
                    Some(end) => (&inner[..end], end + 2),
                    None => ("", 0),
                },
                None => {
                    let end = after
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(after.len());
                    (&after[..end], end)
                }
            };
            let var = self
                .vars
                .iter()
                .rev()
                .find(|v| v.name == name && (v.sure || !sure_only));
            match var {
                Some(v) if !name.is_empty() => {
                    out.push_str(&v.value);
                    maybe |= !v.sure;
                }
                _ => {
                    // Sure values only: a variable assigned only maybe
                    // is left as written, and said.
                    maybe |= sure_only && self.vars.iter().any(|v| v.name == name);
                    out.push_str(&rest[i..i + 1 + len]);
                }
            }
            rest = &after[len..];
        }
        out.push_str(rest);
        (out, maybe)
    }

    /// Record `NAME=value` words as variables, surely assigned or only
    /// maybe (`sure`); whether every word was one.
    fn assign<'w>(&mut self, words: impl IntoIterator<Item = &'w String>, sure: bool) -> bool {
        let mut all = true;
        for w in words {
            match w.split_once('=') {
                Some((name, value)) if words::is_name(name) => {
                    self.vars.push(Var {
                        name: name.to_string(),
                        value: value.to_string(),
                        sure,
                    });
                }
                _ => all = false,
            }
        }
        all
    }
}

/// `sudo`'s options that take a value (also what is left in front of a
/// command when [`words::commands`] removed a `sudo`).
const SUDO_OPTIONS: &[&str] = &[
    "-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U", "--user", "--group",
];

/// Programs that run the rest of their words as a command, with their
/// options that take a value and how many operands come before the
/// command (`timeout 5 CMD`): what a link is made through (`busybox ln`).
const RUNNERS: &[(&str, &[&str], usize)] = &[
    ("busybox", &[], 0),
    ("toybox", &[], 0),
    (
        "env",
        &["-u", "--unset", "-C", "--chdir", "-S", "--split-string"],
        0,
    ),
    ("sudo", SUDO_OPTIONS, 0),
    ("doas", &["-u", "-C"], 0),
    ("nice", &["-n", "--adjustment"], 0),
    ("ionice", &["-c", "-n", "-t", "--class", "--classdata"], 0),
    ("timeout", &["-s", "-k", "--signal", "--kill-after"], 1),
    ("stdbuf", &["-i", "-o", "-e"], 0),
    ("setsid", &[], 0),
    ("nohup", &[], 0),
    ("time", &["-f", "-o", "--format", "--output"], 0),
    ("command", &[], 0),
    ("builtin", &[], 0),
    ("exec", &["-a"], 0),
    ("unbuffer", &[], 0),
    ("chronic", &[], 0),
    (
        "flock",
        &["-w", "-E", "--timeout", "--conflict-exit-code"],
        1,
    ),
];

/// `w` without the runners in front of the command ([`RUNNERS`]), and
/// without option words a wrapper [`words::commands`] removed left behind
/// (`sudo -u root ln …` reaches here as `-u root ln …`).
fn strip_runners(mut w: &[String]) -> &[String] {
    for _ in 0..8 {
        let Some(first) = w.first() else {
            return w;
        };
        let (skip_name, with_value, operands) = match RUNNERS
            .iter()
            .find(|(n, _, _)| *n == words::base_name(first))
        {
            Some((_, v, o)) => (1, *v, *o),
            None if first.starts_with('-') => (0, SUDO_OPTIONS, 0),
            None => return w,
        };
        let mut i = skip_name;
        while let Some(a) = w.get(i) {
            if a == "--" {
                i += 1;
                break;
            }
            if words::is_assignment(a) {
                i += 1;
                continue;
            }
            if !a.starts_with('-') || a == "-" {
                break;
            }
            i += if with_value.contains(&a.as_str()) {
                2
            } else {
                1
            };
        }
        i += operands;
        if i == 0 || i >= w.len() {
            return if i == 0 { w } else { &[] };
        }
        w = &w[i..];
    }
    w
}

/// The operands of `w` (a command's words, its name first) and the value of
/// its target-directory option (`-t DIR`, `--target-directory=DIR`), with
/// the values of `with_value` options left out.
fn operands_and_target_dir<'w>(
    w: &'w [String],
    with_value: &[&str],
) -> (Vec<&'w str>, Option<&'w str>) {
    let mut ops = Vec::new();
    let mut dir = None;
    let mut ended = false;
    let mut i = 1;
    while let Some(a) = w.get(i) {
        i += 1;
        if ended || !a.starts_with('-') || a == "-" {
            ops.push(a.as_str());
        } else if a == "--" {
            ended = true;
        } else if a == "-t" || a == "--target-directory" {
            dir = w.get(i).map(String::as_str);
            i += 1;
        } else if let Some(d) = a.strip_prefix("--target-directory=") {
            dir = Some(d);
        } else if !a.starts_with("--") && a.len() > 2 && a.ends_with('t') {
            // A cluster ending in `-t` (`-sft DIR`).
            dir = w.get(i).map(String::as_str);
            i += 1;
        } else if with_value.contains(&a.as_str()) {
            i += 1;
        }
    }
    (ops, dir)
}

/// The last segment of `path` (`a/b/` → `b`).
fn last_segment(path: &str) -> &str {
    path.trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(path)
}

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
    ///
    /// Each call's commands start in `cwd`; a `cd` moves the commands after
    /// it, and a link is learnt in every directory a command of the run
    /// may have run in (the agent's shell may keep a `cd` of an earlier
    /// call). Links are seen through runners (`busybox ln`, `env ln`,
    /// `timeout 5 ln`, `bash -c '…'`, `eval`), with the values of variables
    /// earlier commands assigned (`X=/root/.ssh/id_rsa; ln -s $X k`), and
    /// follow the link when `mv` (or a `cp` that copies links as links)
    /// moves it or a directory holding it.
    pub fn from_calls<'a>(commands: impl IntoIterator<Item = (&'a str, bool)>, cwd: &str) -> Facts {
        let parsed: Vec<Parsed> = commands
            .into_iter()
            .map(|(c, certain)| Parsed::new(c, certain))
            .collect();
        Facts::from_parsed(&parsed, cwd)
    }

    /// [`Facts::from_calls`] from calls parsed already (once for every
    /// reading of [`readings`]).
    fn from_parsed(calls: &[Parsed], cwd: &str) -> Facts {
        Facts::with_shell(calls, cwd).0
    }

    /// [`Facts::from_parsed`], and the shell the calls leave (`None` for a
    /// relative `cwd`).
    fn with_shell(calls: &[Parsed], cwd: &str) -> (Facts, Option<Shell>) {
        let mut facts = Facts::default();
        if !cwd.starts_with('/') {
            return (facts, None);
        }
        let cwd = resolve("/", cwd);
        let mut shell = Shell {
            here: Some(cwd.clone()),
            moved: false,
            dirs: vec![cwd.clone()],
            vars: Vec::new(),
            unplaced: Vec::new(),
        };
        for call in calls {
            shell.here = Some(cwd.clone());
            shell.moved = false;
            facts.read_parsed(call, &mut shell, 0);
        }
        (facts, Some(shell))
    }

    /// Learn from one command text (a `bash -c` text or an `eval` at
    /// nesting `depth`).
    fn read(&mut self, cmd: &str, certain: bool, shell: &mut Shell, depth: u32) {
        self.read_parsed(&Parsed::new(cmd, certain), shell, depth);
    }

    /// Learn from one parsed command text. A command that runs only
    /// maybe ([`parse::Simple::certain`] false: an `if` body, after `&&`
    /// or `||`) or that was read in doubt still teaches its links (a link
    /// only makes later calls stricter, and [`readings`] also judges
    /// without links) but no directory or server.
    fn read_parsed(&mut self, call: &Parsed, shell: &mut Shell, depth: u32) {
        if let Some(why) = &call.doubt {
            self.note_doubt(why.clone());
        }
        for simple in &call.simples {
            if simple.doubtful {
                self.note_doubt(format!(
                    "`{}` was misread (a keyword or a redirection left among its words)",
                    simple.words.join(" ")
                ));
            }
            let certain =
                call.certain && simple.certain && !simple.doubtful && call.doubt.is_none();
            let (expanded, maybe): (Vec<String>, Vec<bool>) =
                simple.words.iter().map(|w| shell.expand(w, false)).unzip();
            let maybe = maybe.contains(&true);
            if shell.assign(expanded.iter(), certain && !maybe) {
                continue;
            }
            // A word holding a value assigned only maybe: the command is
            // read with it (what it teaches is in doubt: links only), and
            // with the sure values alone (links only), so that a maybe
            // value neither loosens nor hides what the sure one teaches.
            let moves = simple.certain && !maybe;
            self.read_words(&expanded, certain && !maybe, moves, true, shell, depth);
            if maybe {
                let (sure, unset): (Vec<String>, Vec<bool>) =
                    simple.words.iter().map(|w| shell.expand(w, true)).unzip();
                if sure != expanded && !unset.contains(&true) {
                    // Its links go to `sure_links`: a reading of their own
                    // ([`readings`]), where they win over the maybe ones.
                    let kept = self.symlinks.clone();
                    self.read_words(&sure, false, false, false, shell, depth);
                    let made = std::mem::replace(&mut self.symlinks, kept);
                    for link in made {
                        if !self.symlinks.contains(&link) && !self.sure_links.contains(&link) {
                            self.sure_links.push(link);
                        }
                    }
                }
            }
        }
    }

    /// Learn from one simple command's words `expanded` (variables put in):
    /// links always, directories and servers when `certain`; a `cd` moves
    /// the shell only when `moves`; assignments by `export` and friends are
    /// kept only when `assigns` (as sure when `certain`).
    fn read_words(
        &mut self,
        expanded: &[String],
        certain: bool,
        moves: bool,
        assigns: bool,
        shell: &mut Shell,
        depth: u32,
    ) {
        let w = strip_runners(expanded);
        let Some(first) = w.first() else {
            return;
        };
        match words::base_name(first) {
            "cd" | "pushd" => {
                let target = w[1..]
                    .iter()
                    .find(|a| !matches!(a.as_str(), "-L" | "-P" | "-e" | "-@" | "--"));
                shell.moved = true;
                let new = match target.map(String::as_str) {
                    Some(t) if t.starts_with('/') => vec![resolve("/", t)],
                    Some(t) if !t.starts_with('~') && t != "-" && !t.contains('$') => {
                        shell.places().iter().map(|d| resolve(d, t)).collect()
                    }
                    _ => Vec::new(),
                };
                if new.is_empty() && shell.unplaced.len() < MAX_DIRS {
                    shell.unplaced.push(target.cloned().unwrap_or_default());
                }
                // A `cd` that may not run (in an `if`, after `&&`) or to a
                // place in doubt leaves the directory unknown.
                shell.here = match new.as_slice() {
                    [one] if shell.here.is_some() && moves => Some(one.clone()),
                    _ => None,
                };
                for d in new {
                    shell.visit(d);
                }
            }
            "popd" => {
                shell.here = None;
                if shell.unplaced.len() < MAX_DIRS {
                    shell.unplaced.push("-".into());
                }
            }
            "export" | "declare" | "typeset" | "local" | "readonly" => {
                if assigns {
                    shell.assign(w[1..].iter().filter(|a| !a.starts_with('-')), certain);
                }
            }
            "bash" | "sh" | "zsh" | "dash" | "ksh" | "ash" if depth < MAX_NESTED => {
                let script = w[1..]
                    .iter()
                    .position(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('c'))
                    .and_then(|i| w.get(i + 2));
                if let Some(script) = script {
                    let (here, moved) = (shell.here.clone(), shell.moved);
                    self.read(script, certain, shell, depth + 1);
                    (shell.here, shell.moved) = (here, moved);
                }
            }
            "eval" if depth < MAX_NESTED => {
                let text = w[1..].join(" ");
                self.read(&text, certain, shell, depth + 1);
            }
            _ => {
                self.learn_links(w, shell);
                if certain {
                    self.learn(w, shell);
                }
            }
        }
    }

    /// Record why the run's commands were not read in full (at most
    /// [`MAX_DOUBTS`] reasons are kept; the first is enough to know).
    fn note_doubt(&mut self, why: String) {
        if self.doubts.len() < MAX_DOUBTS {
            self.doubts.push(why);
        }
    }

    /// Links made (`ln -s`) or moved (`mv`, `cp -a`) by the simple command
    /// `w`, in every directory it may have run in.
    fn learn_links(&mut self, w: &[String], shell: &Shell) {
        let name = words::base_name(&w[0]);
        let dirs: Vec<&str> = match &shell.here {
            // Where the command runs is known; the run's other
            // directories too, when an earlier call's `cd` may have
            // left the agent's shell there.
            Some(h) => std::iter::once(h.as_str())
                .chain(shell.dirs.iter().map(String::as_str))
                .collect(),
            None => shell.dirs.iter().map(String::as_str).collect(),
        };
        match name {
            "ln" | "cp" if makes_symlinks(name, w) => {
                // `cp -rs SRC DEST`: DEST is a directory of links to every
                // file below SRC, not a link itself (review s8 F5).
                let children_only = name == "cp" && copies_recursively(w);
                let (ops, target_dir) = operands_and_target_dir(w, &["-S", "--suffix"]);
                // `(target, link)`: the link's path as written; a link
                // named like an existing directory is made inside it.
                let mut made: Vec<(&str, String)> = Vec::new();
                match (ops.as_slice(), target_dir) {
                    (targets, Some(d)) => {
                        made.extend(
                            targets
                                .iter()
                                .map(|t| (*t, format!("{d}/{}", last_segment(t)))),
                        );
                    }
                    ([t], None) => made.push((t, last_segment(t).to_string())),
                    ([t, l], None) => {
                        made.push((t, (*l).to_string()));
                        made.push((t, format!("{l}/{}", last_segment(t))));
                    }
                    ([targets @ .., d], None) => {
                        made.extend(
                            targets
                                .iter()
                                .map(|t| (*t, format!("{d}/{}", last_segment(t)))),
                        );
                    }
                    ([], None) => {}
                }
                // No link is named `..` (`ln -s .. up` makes `up`; `up/..`
                // is the directory holding `up`, no link): that reading
                // would map the working directory onto its parent (review
                // s22 R7). (`cp -rs DIR/. -t cc` fills `cc/.`, `cc` itself.)
                made.retain(|(_, link)| last_segment(link) != "..");
                for dir in &dirs {
                    for (target, link) in &made {
                        let link = resolve(dir, link);
                        let target = if target.starts_with('/') || target.starts_with('~') {
                            (*target).to_string()
                        } else {
                            let parent = link
                                .rsplit_once('/')
                                .map_or("/", |(d, _)| if d.is_empty() { "/" } else { d });
                            resolve(parent, target)
                        };
                        let link = if children_only && link != "/" {
                            format!("{link}/")
                        } else {
                            link
                        };
                        self.add_link(link, target);
                    }
                }
            }
            "mv" | "cp" => {
                if name == "cp" && !copies_links(w) {
                    return;
                }
                let (ops, target_dir) = operands_and_target_dir(w, &["-S", "--suffix"]);
                let moves: Vec<(&str, Vec<String>)> = match (ops.as_slice(), target_dir) {
                    (sources, Some(d)) => sources
                        .iter()
                        .map(|s| (*s, vec![format!("{d}/{}", last_segment(s))]))
                        .collect(),
                    ([s, d], None) => vec![(
                        *s,
                        vec![(*d).to_string(), format!("{d}/{}", last_segment(s))],
                    )],
                    ([sources @ .., d], None) => sources
                        .iter()
                        .map(|s| (*s, vec![format!("{d}/{}", last_segment(s))]))
                        .collect(),
                    ([], None) => Vec::new(),
                };
                for dir in &dirs {
                    for (source, dests) in &moves {
                        let from = resolve(dir, source);
                        let known: Vec<(String, String)> = self
                            .symlinks
                            .iter()
                            .filter_map(|(l, t)| {
                                let rest = if *l == from {
                                    ""
                                } else {
                                    l.strip_prefix(&format!("{from}/"))?
                                };
                                Some((rest.to_string(), t.clone()))
                            })
                            .collect();
                        for (rest, target) in known {
                            for dest in dests {
                                let to = resolve(dir, &format!("{dest}/{rest}"));
                                self.add_link(to, target.clone());
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// Record a link (the newest fact about a path comes last).
    fn add_link(&mut self, link: String, target: String) {
        self.symlinks.retain(|(l, t)| !(l == &link && t == &target));
        self.symlinks.push((link, target));
    }

    /// Directories and servers the certain command `w` made or started.
    fn learn(&mut self, w: &[String], shell: &Shell) {
        // A relative directory is placed only when the command runs where
        // the call started: after a `cd` it may lie elsewhere.
        let abs = |p: &str| -> Option<String> {
            if p.starts_with('/') {
                Some(resolve("/", p))
            } else if shell.moved {
                None
            } else {
                shell.here.as_deref().map(|h| resolve(h, p))
            }
        };
        let ops = words::operands(w);
        match words::base_name(&w[0]) {
            "ln" | "mv" | "cp" => {}
            "mkdir"
                if !w.iter().any(|a| {
                    a == "-p"
                        || a == "--parents"
                        || (a.starts_with('-') && !a.starts_with("--") && a.contains('p'))
                }) =>
            {
                self.created.extend(ops.iter().filter_map(|d| abs(d)));
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
                if let [_, dir] = rest.as_slice()
                    && let Some(dir) = abs(dir)
                {
                    self.created.push(dir);
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
    /// its target, again while the result starts at a link (up to
    /// `MAX_HOPS` (8) links: a link to a link); the newest fact about a link
    /// wins (`ln -sfn` made it again). `~` targets use `home`.
    pub fn through_symlinks(&self, path: String, home: Option<&str>) -> String {
        let mut path = path;
        for _ in 0..MAX_HOPS {
            match self.one_link(&path, home) {
                Some(next) if next != path => path = next,
                _ => break,
            }
        }
        path
    }

    /// `path` through the newest link at or above it, if any. A link
    /// written with a trailing `/` (a directory `cp -rs` filled with links)
    /// stands for the paths below it, not for itself.
    fn one_link(&self, path: &str, home: Option<&str>) -> Option<String> {
        for (link, target) in self.symlinks.iter().rev() {
            let rest = if let Some(dir) = link.strip_suffix('/') {
                match path
                    .strip_prefix(dir)
                    .and_then(|r| r.strip_prefix('/'))
                    .filter(|r| !r.is_empty())
                {
                    Some(r) => r,
                    None => continue,
                }
            } else if path == link {
                ""
            } else if let Some(r) = path
                .strip_prefix(link.as_str())
                .and_then(|r| r.strip_prefix('/'))
            {
                r
            } else {
                continue;
            };
            let target = match target.strip_prefix('~') {
                Some(t) => {
                    let (user, after) = t.split_at(t.find('/').unwrap_or(t.len()));
                    format!("{}{after}", user_home(user, home)?)
                }
                None => target.clone(),
            };
            return Some(resolve("/", &format!("{target}/{rest}")));
        }
        None
    }

    /// Whether the run created `path` or a directory above it.
    pub fn created_by_run(&self, path: &str) -> bool {
        self.created
            .iter()
            .any(|c| path == c || path.starts_with(&format!("{c}/")))
    }
}

/// The directory `~user` names (`user` empty: `~`, the home `home`):
/// `/root` for root, else a sibling of `home` (`/home/alice` → `/home/bob`,
/// `/Users/alice` → `/Users/bob`), or `/home/user` when the home is not
/// known — never the home with the name appended (review-s7 L4: `~alice`
/// was read as `/home/alicealice`). `None` for `~` when the home is not
/// known, and for `~+`/`~-` (the shell's current and previous directories).
fn user_home(user: &str, home: Option<&str>) -> Option<String> {
    match user {
        "" => home.map(str::to_string),
        "+" | "-" => None,
        "root" => Some("/root".to_string()),
        u => Some(
            match home.and_then(|h| h.trim_end_matches('/').rsplit_once('/')) {
                Some((parent, _)) if !parent.is_empty() => format!("{parent}/{u}"),
                _ => format!("/home/{u}"),
            },
        ),
    }
}

/// Whether the long option `arg` (`--sym`, `--symbolic=x`) is `full` or
/// an abbreviation of it at least as long as `shortest`, as GNU
/// `getopt_long` accepts any unambiguous one.
fn long_option(arg: &str, full: &str, shortest: &str) -> bool {
    let name = arg.split('=').next().unwrap_or(arg);
    name.len() >= shortest.len() && full.starts_with(name)
}

/// The short options of `w` (clusters split, up to `--`), and its long
/// options: the clusters' letters after a value-taking letter are its
/// value (`-S.bak`, `-tDIR`), not options.
fn short_and_long<'w>(w: &'w [String], with_value: &[char]) -> (Vec<char>, Vec<&'w str>) {
    let (mut short, mut long) = (Vec::new(), Vec::new());
    for a in &w[1..] {
        if a == "--" {
            break;
        }
        if a.starts_with("--") {
            long.push(a.as_str());
        } else if let Some(cluster) = a.strip_prefix('-') {
            for c in cluster.chars() {
                short.push(c);
                if with_value.contains(&c) {
                    break;
                }
            }
        }
    }
    (short, long)
}

/// Whether `ln` or `cp` with the words `w` makes symbolic links: `ln -s`,
/// `--symbolic` and its abbreviations down to `--sy` (`--s` could be
/// `--suffix`); `cp -s`, `--symbolic-link` and its abbreviations down to
/// `--sy` (review s8 F5: `ln --sym` and `cp -s`/`cp -rs` were not learnt).
fn makes_symlinks(name: &str, w: &[String]) -> bool {
    let (short, long) = short_and_long(w, &['S', 't']);
    let full = if name == "ln" {
        "--symbolic"
    } else {
        "--symbolic-link"
    };
    short.contains(&'s') || long.iter().any(|a| long_option(a, full, "--sy"))
}

/// Whether `cp` with the words `w` copies directories whole (`-r`, `-R`,
/// `-a`, `--recursive`, `--archive` and their abbreviations).
fn copies_recursively(w: &[String]) -> bool {
    let (short, long) = short_and_long(w, &['S', 't']);
    short.iter().any(|c| matches!(c, 'r' | 'R' | 'a'))
        || long
            .iter()
            .any(|a| long_option(a, "--recursive", "--rec") || long_option(a, "--archive", "--ar"))
}

/// Whether `cp` with the words `w` copies a symbolic link as a link
/// (`-a`, `-d`, `-P`, `-R`/`-r`, `--archive`, `--no-dereference`,
/// `--recursive`) rather than the file it points to (`-L`).
fn copies_links(w: &[String]) -> bool {
    let mut copies = false;
    for a in &w[1..] {
        if a == "--" {
            break;
        }
        match a.as_str() {
            "--archive" | "--no-dereference" | "--recursive" => copies = true,
            "--dereference" => return false,
            s if s.starts_with('-') && !s.starts_with("--") => {
                if s.contains('L') {
                    return false;
                }
                copies |= s.contains(['a', 'd', 'P', 'R', 'r']);
            }
            _ => {}
        }
    }
    copies
}

/// The readings of the run's facts a call at `cwd` is judged under, the
/// strictest decision winning. The history does not say where an earlier
/// call ran, and a front end may run this call in a directory below the
/// agent's (a `directory` argument, Cursor's shell cwd): a relative link
/// made earlier (`ln -s ~ h`) may lie in `cwd` or in any directory above
/// it, so that `cwd` itself (`…/h`) is the link. A link is only what a
/// command claims to have done (it may have failed, or the name was a
/// directory already), so the places are also judged as written, without
/// links, and a claimed link never makes a call pass that the plain path
/// would not.
///
/// Returns, in order: [`Facts::from_calls`] at `cwd`; the links learnt as
/// if the run had started in the directories above `cwd` (up to
/// `MAX_BASES`, together, the nearest winning where two meet), with the
/// directories and servers of the first; the first with its
/// [`Facts::sure_links`] winning, when a value assigned only maybe made a
/// link point elsewhere than the sure value would; and, when any link is
/// known, the first without links. Without links there is one reading;
/// never more than four.
pub fn readings(calls: &[(&str, bool)], cwd: &str) -> Vec<Facts> {
    let parsed: Vec<Parsed> = calls
        .iter()
        .map(|(c, certain)| Parsed::new(c, *certain))
        .collect();
    let full = Facts::from_parsed(&parsed, cwd);
    if !cwd.starts_with('/') {
        return vec![full];
    }
    let mut bases = Vec::new();
    let mut base = resolve("/", cwd);
    while base != "/" && bases.len() < MAX_BASES {
        base = match base.rsplit_once('/') {
            Some(("", _)) | None => "/".to_string(),
            Some((up, _)) => up.to_string(),
        };
        bases.push(base.clone());
    }
    // The farthest first, so that the nearest directory's link is the
    // newest where two would meet.
    let mut above = Facts {
        symlinks: Vec::new(),
        created: full.created.clone(),
        listening: full.listening.clone(),
        doubts: full.doubts.clone(),
        sure_links: Vec::new(),
    };
    for base in bases.iter().rev() {
        for (link, target) in Facts::from_parsed(&parsed, base).symlinks {
            above.add_link(link, target);
        }
    }
    let any_links = !full.symlinks.is_empty() || !above.symlinks.is_empty();
    let mut out = vec![full.clone()];
    if !above.symlinks.is_empty() && above.symlinks != full.symlinks {
        out.push(above);
    }
    if !full.sure_links.is_empty() {
        let mut sure = full.clone();
        for (link, target) in std::mem::take(&mut sure.sure_links) {
            sure.add_link(link, target);
        }
        out.push(sure);
    }
    if any_links {
        out.push(Facts {
            symlinks: Vec::new(),
            sure_links: Vec::new(),
            ..full
        });
    }
    out
}

/// Where the run's earlier calls may have left the agent's shell: a shell
/// tool may keep its working directory from call to call (Claude Code's
/// `Bash`, a Copilot CLI `bash` session, a terminal), so a later call's
/// relative paths may be relative to a directory an earlier `cd` went to,
/// not to the `cwd` its front end names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShellPlaces {
    /// Absolute directories an earlier call's `cd` (or `pushd`) went to,
    /// other than `cwd`, oldest first (at most 16).
    pub dirs: Vec<String>,
    /// An earlier `cd` whose target cannot be placed (`cd -`, `cd $DIR`,
    /// `popd`; `~` and a bare `cd` when no home is known): the shell's
    /// directory may be anywhere, so relative paths are unknown.
    pub unplaced: Option<String>,
}

/// [`ShellPlaces`] of the earlier calls `calls` (their command texts,
/// oldest first, each marked as the one that ran or not, as for
/// [`readings`]), each starting in the absolute `cwd`; `~` is `home`.
/// A relative `cwd` places nothing.
pub fn shell_places(calls: &[(&str, bool)], cwd: &str, home: Option<&str>) -> ShellPlaces {
    let parsed: Vec<Parsed> = calls
        .iter()
        .map(|(c, certain)| Parsed::new(c, *certain))
        .collect();
    let Some(shell) = Facts::with_shell(&parsed, cwd).1 else {
        return ShellPlaces::default();
    };
    let cwd = resolve("/", cwd);
    let mut places = ShellPlaces {
        dirs: shell.dirs.into_iter().filter(|d| *d != cwd).collect(),
        unplaced: None,
    };
    for target in shell.unplaced {
        let home_relative = match target.as_str() {
            "" | "~" => Some(""),
            t => t.strip_prefix("~/"),
        };
        match (home_relative, home.filter(|h| h.starts_with('/'))) {
            (Some(rest), Some(h)) if !rest.contains('$') => {
                let dir = resolve(h, rest);
                if dir != cwd && !places.dirs.contains(&dir) {
                    places.dirs.push(dir);
                }
            }
            _ => {
                places.unplaced.get_or_insert_with(|| {
                    if target.is_empty() {
                        "`cd` to the home".into()
                    } else {
                        format!("`cd {target}`")
                    }
                });
            }
        }
    }
    places
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

    /// Review s11 K6: `cd /home/alice` in one call of a shell that keeps
    /// its directory, `rm -rf ./*` in the next.
    #[test]
    fn where_earlier_calls_may_have_left_the_shell() {
        let w = "/home/alice/project";
        let home = Some("/home/alice");
        let places = |calls: &[(&str, bool)]| shell_places(calls, w, home);
        assert_eq!(
            places(&[("ls && git status", true)]),
            ShellPlaces::default()
        );
        let p = places(&[("cd /home/alice", true), ("cd sub && make", false)]);
        // (Each call's relative `cd` is placed from the cwd.)
        assert_eq!(p.dirs, ["/home/alice", "/home/alice/project/sub"]);
        assert_eq!(p.unplaced, None);
        // `~` and a bare `cd` are the home; `~/x` under it.
        for cd in ["cd", "cd ~", "pushd ~/"] {
            assert_eq!(places(&[(cd, true)]).dirs, ["/home/alice"], "{cd}");
        }
        assert_eq!(places(&[("cd ~/x", true)]).dirs, ["/home/alice/x"]);
        // What cannot be placed says so.
        for cd in [
            "cd -",
            "cd \"$DIR\"",
            "popd",
            "cd $(git rev-parse --show-toplevel)",
        ] {
            let p = places(&[(cd, true)]);
            assert!(p.unplaced.is_some(), "{cd}: {p:?}");
        }
        assert!(shell_places(&[("cd ~", true)], w, None).unplaced.is_some());
        // Back where it started: nothing beside the cwd.
        assert_eq!(
            places(&[("cd /home/alice/project/", true)]),
            ShellPlaces::default()
        );
    }

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
        // The link, and the link inside `cfg` had it been a directory.
        assert_eq!(
            f.symlinks,
            [
                ("/w/cfg".to_string(), "/etc".to_string()),
                ("/w/cfg/etc".to_string(), "/etc".to_string())
            ]
        );
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

    /// Review s8 F5: `ln --sym` (an abbreviation of `--symbolic`), `cp -s`
    /// and `cp -rs` make symbolic links too.
    #[test]
    fn abbreviated_ln_and_cp_symbolic_links() {
        let home = Some("/home/alice");
        for cmd in [
            "ln --sym /home/alice h",
            "ln --symb /home/alice h",
            "ln --symbolic /home/alice h",
            "ln --sy -f /home/alice h",
            "ln -fs /home/alice h",
            "cp -s /home/alice h",
            "cp --symbolic-link /home/alice h",
            "cp --sym /home/alice h",
            "/bin/cp -fs /home/alice h",
        ] {
            let f = Facts::from_commands([cmd], "/w/p");
            assert_eq!(
                f.through_symlinks("/w/p/h/.bashrc".into(), home),
                "/home/alice/.bashrc",
                "{cmd}"
            );
            assert_eq!(
                f.through_symlinks("/w/p/h".into(), home),
                "/home/alice",
                "{cmd}"
            );
        }
        // `cp -s FILE NAME`: NAME is a link to the file.
        let f = Facts::from_commands(["cp -s ~/.claude/settings.json s.json"], "/w/p");
        assert_eq!(
            f.through_symlinks("/w/p/s.json".into(), home),
            "/home/alice/.claude/settings.json"
        );
        // `cp -rs DIR NAME`: NAME is a directory of links to every file
        // below DIR; NAME itself is not a link.
        for cmd in [
            "cp -rs /home/alice/.claude/. cc",
            "cp -r -s /home/alice/.claude/. cc",
            "cp -as /home/alice/.claude/. cc",
            "cp --recursive --symbolic-link /home/alice/.claude/. cc",
            "cp --rec --sym /home/alice/.claude/. cc",
            "cp -Rs -t cc /home/alice/.claude/.",
        ] {
            let f = Facts::from_commands([cmd], "/w/p");
            assert_eq!(
                f.through_symlinks("/w/p/cc/settings.json".into(), home),
                "/home/alice/.claude/settings.json",
                "{cmd}"
            );
            assert_eq!(
                f.through_symlinks("/w/p/cc".into(), home),
                "/w/p/cc",
                "{cmd}"
            );
        }
        // Not links: a plain copy, a suffix option, other long options.
        for cmd in [
            "cp -r /home/alice/.claude/. cc",
            "cp -S.s /home/alice/x h",
            "cp --sparse=always /home/alice h",
            "ln --suffix=.s /home/alice h",
            "ln /home/alice/x h",
        ] {
            let f = Facts::from_commands([cmd], "/w/p");
            assert!(f.symlinks.is_empty(), "{cmd}: {:?}", f.symlinks);
        }
    }

    /// The fifth review's links that were missed (`cd` before `ln`,
    /// `busybox ln`, a target from a variable, a moved link): each is
    /// followed to the key now.
    #[test]
    fn links_through_cd_runners_variables_and_moves() {
        let key = "/root/.ssh/id_rsa";
        let f = Facts::from_commands(
            [
                "mkdir -p l && cd l && ln -s /root/.ssh/id_rsa k5.txt",
                "busybox ln -s /root/.ssh/id_rsa k7.txt",
                "X=/root/.ssh/id_rsa; ln -s $X k10.txt",
                "ln -s /root/.ssh/id_rsa k11.txt && mv k11.txt k12.txt",
                "sudo -u root env FOO=1 timeout 5 ln -sf /root/.ssh/id_rsa k13.txt",
                "bash -c 'cd sub && ln -s \"${X}\" k14.txt'",
                "ln -s /root/.ssh k15 && cp -a k15 moved/ && mv moved ../gone",
                "ln -st links /root/.ssh/id_rsa",
            ],
            "/w/p",
        );
        for path in [
            "/w/p/l/k5.txt",
            "/w/p/k7.txt",
            "/w/p/k10.txt",
            "/w/p/k12.txt",
            "/w/p/k13.txt",
            "/w/p/sub/k14.txt",
            "/w/p/links/id_rsa",
        ] {
            assert_eq!(f.through_symlinks(path.into(), None), key, "{path}");
        }
        assert_eq!(
            f.through_symlinks("/w/gone/k15/id_rsa".into(), None),
            key,
            "a link copied into a directory that was then moved"
        );
        // The newest fact about a link wins, and a link to a link is
        // followed to its end.
        let f = Facts::from_commands(
            ["ln -s /tmp/ok k && ln -sfn /root/.ssh s && ln -sfn s/id_rsa k"],
            "/w",
        );
        assert_eq!(f.through_symlinks("/w/k".into(), None), key);
        // A `cd` leaves a relative directory made after it unplaced (it
        // was made elsewhere than the call's cwd), not placed wrongly.
        let f = Facts::from_commands(["cd /etc; mkdir cron.d", "mkdir /w/x && cd y"], "/w");
        assert_eq!(f.created, ["/w/x"]);
    }

    /// F7: a link made in the agent's directory is the cwd of a later call
    /// that a front end runs in that link (`directory: "h"`); one of the
    /// readings knows it, and one judges the paths as written.
    #[test]
    fn readings_learn_links_above_the_cwd_and_judge_without_links() {
        let calls = [("ln -s /home/alice h", true), ("mkdir out", true)];
        let r = readings(&calls, "/home/alice/project/h");
        assert_eq!(r.len(), 3, "{r:?}");
        // At the cwd: `h` would be `…/h/h`.
        assert_eq!(
            r[0].through_symlinks("/home/alice/project/h".into(), None),
            "/home/alice/project/h"
        );
        // Made one directory up: the cwd is the link.
        assert_eq!(
            r[1].through_symlinks("/home/alice/project/h/x".into(), None),
            "/home/alice/x"
        );
        assert_eq!(r[1].created, ["/home/alice/project/h/out"]);
        // And without links.
        assert!(r[2].symlinks.is_empty());
        assert_eq!(r[2].created, r[0].created);
        // No links: one reading.
        assert_eq!(readings(&[("mkdir out", true)], "/w/p").len(), 1);
    }

    /// review-s7 F1: a link made with a redirection, a comment, inside a
    /// compound command or with `!` is learnt (it was taken as a link named
    /// `2>/dev/null`, or as a command `then`, and forgotten).
    #[test]
    fn links_through_redirections_comments_and_compound_commands() {
        let key = "/root/.ssh/id_rsa";
        for cmd in [
            "ln -s /root/.ssh/id_rsa k 2>/dev/null",
            "ln -s /root/.ssh/id_rsa k >/dev/null",
            "ln -s /root/.ssh/id_rsa k 2>&1",
            "ln -s /root/.ssh/id_rsa k </dev/null",
            "ln -s /root/.ssh/id_rsa k 2>/tmp/e",
            "ln 2>/dev/null -s /root/.ssh/id_rsa k",
            "ln -s /root/.ssh/id_rsa k # make link",
            "if true; then ln -s /root/.ssh/id_rsa k; fi",
            "if [ ! -e k ]; then ln -s /root/.ssh/id_rsa k; fi",
            "for x in 1; do ln -s /root/.ssh/id_rsa k; done",
            "{ ln -s /root/.ssh/id_rsa k; }",
            "! ln -s /root/.ssh/id_rsa k",
            "while true; do ln -s /root/.ssh/id_rsa k; break; done",
            "case x in *) ln -s /root/.ssh/id_rsa k;; esac",
            "echo $(ln -s /root/.ssh/id_rsa k)",
        ] {
            let f = Facts::from_commands([cmd], "/home/alice/project");
            assert_eq!(
                f.through_symlinks("/home/alice/project/k".into(), None),
                key,
                "{cmd}: {f:?}"
            );
            assert!(f.doubts.is_empty(), "{cmd}: {:?}", f.doubts);
        }
    }

    /// review-s7 F1: a command the parser refuses is read in doubt: its
    /// links are still learnt word by word (redirections, comments and
    /// keywords dropped), and nothing that loosens (a directory, a server)
    /// is.
    #[test]
    fn unparseable_commands_are_read_in_doubt() {
        for cmd in [
            "ln -s ~ h 2>/dev/null; echo 'unclosed",
            "then ln -s ~ h # (",
            "mkdir /home/alice/other; ln -s ~ h >/dev/null; echo \"",
        ] {
            let f = Facts::from_commands([cmd], "/home/alice/project");
            assert!(!f.doubts.is_empty(), "{cmd}");
            assert_eq!(
                f.through_symlinks("/home/alice/project/h/x".into(), Some("/home/alice")),
                "/home/alice/x",
                "{cmd}: {f:?}"
            );
            assert!(f.created.is_empty(), "{cmd}: {:?}", f.created);
        }
        // Readings share the parse and the doubt.
        let r = readings(&[("ln -s ~ h; echo '", true)], "/home/alice/project/h");
        assert!(r.iter().all(|f| !f.doubts.is_empty()));
        assert!(r.iter().any(|f| {
            f.through_symlinks("/home/alice/project/h".into(), Some("/home/alice")) == "/home/alice"
        }));
    }

    /// review-s7 F10 and F9: a directory or a server is learnt only from a
    /// command that runs whenever its call ran, not from one that may
    /// not run (`false && mkdir`, an `if` body, after `||`).
    #[test]
    fn directories_and_servers_only_from_commands_that_surely_run() {
        let f = Facts::from_commands(
            [
                "false && mkdir /home/alice/Documents",
                "if false; then mkdir /home/alice/Pictures; fi",
                "true || git clone https://github.com/x/y /home/alice/backup",
                "false && vite --port 9200",
                "test -e x || npm run dev",
            ],
            "/home/alice/project",
        );
        assert!(f.created.is_empty(), "{:?}", f.created);
        assert!(f.listening.is_empty(), "{:?}", f.listening);
        // The first command of a call runs; whether it succeeded is for
        // the checks to doubt (shell-guard asks, egress-guard asks).
        let f = Facts::from_commands(
            [
                "mkdir /home/alice/Documents || true",
                "vite --port 9200 --version",
            ],
            "/home/alice/project",
        );
        assert_eq!(f.created, ["/home/alice/Documents"]);
        assert_eq!(f.listening, [9200]);
        // A `cd` that may not run leaves the directory unknown.
        let f = Facts::from_commands(["test -d sub && cd sub; mkdir out"], "/w");
        assert!(f.created.is_empty(), "{:?}", f.created);
    }

    /// review-s7 L4: `~user` in a link target is that user's home, not the
    /// run's home with the name appended.
    #[test]
    fn tilde_user_targets() {
        let f = Facts::from_commands(
            [
                "ln -s ~alice a",
                "ln -s ~root/.ssh r",
                "ln -s ~bob/x b",
                "ln -s ~+ p",
            ],
            "/w",
        );
        let home = Some("/home/alice");
        assert_eq!(f.through_symlinks("/w/a".into(), home), "/home/alice");
        assert_eq!(
            f.through_symlinks("/w/r/id_rsa".into(), home),
            "/root/.ssh/id_rsa"
        );
        assert_eq!(f.through_symlinks("/w/b".into(), home), "/home/bob/x");
        assert_eq!(
            f.through_symlinks("/w/b".into(), Some("/Users/alice")),
            "/Users/bob/x"
        );
        assert_eq!(f.through_symlinks("/w/b".into(), None), "/home/bob/x");
        assert_eq!(f.through_symlinks("/w/p".into(), home), "/w/p");
    }

    /// The cheap filter in front of the parse never drops a command that
    /// teaches a fact (issue 33: the whole history is read on every call).
    #[test]
    fn commands_skipped_unparsed_teach_nothing() {
        for cmd in [
            "'l'n -s /root/.ssh/id_rsa k",
            "l\\n -s /root/.ssh/id_rsa k",
            "/bin/ln -s /root/.ssh/id_rsa k",
            "then ln -s /root/.ssh/id_rsa k; fi",
            "L=ln; $L -s /root/.ssh/id_rsa k",
            "cd sub",
            "mkdir /home/a/x",
            "python3.12 -m http.server",
            "npx vite",
            "uvicorn app:app",
        ] {
            assert!(may_teach(cmd), "{cmd}");
        }
        assert!(may_teach("git clone https://x/y z"));
        for cmd in [
            "git status",
            "cargo test -q",
            "ls -la src",
            "cat README.md | head -50",
        ] {
            assert!(!may_teach(cmd), "{cmd}");
        }
        let f = Facts::from_commands(["'l'n -s /root/.ssh/id_rsa k"], "/w");
        assert_eq!(f.through_symlinks("/w/k".into(), None), "/root/.ssh/id_rsa");
    }

    #[test]
    fn listening_ports_alone() {
        let cmds = [
            "git status",
            "npm run dev > /tmp/dev.log 2>&1 &",
            "false && vite --port 9200",
            "'uvicorn' app:app --port 8001",
        ];
        assert_eq!(
            listening_ports(cmds, "/w"),
            Facts::from_commands(cmds, "/w").listening
        );
        assert!(listening_ports(cmds, "/w").contains(&8001));
        assert!(!listening_ports(cmds, "/w").contains(&9200));
    }

    /// Issue 29: a value assigned by a command read in doubt (one bash may
    /// have refused whole) or that may not run (`false && X=…`) is a
    /// maybe-value: it teaches links, never a directory or a server, and
    /// it does not hide the sure value before it from the links.
    #[test]
    fn values_assigned_in_doubt_never_loosen() {
        for assign in [
            "D=/home/alice/Documents; echo 'unclosed",
            "false && D=/home/alice/Documents",
            "if false; then D=/home/alice/Documents; fi",
            "then export D=/home/alice/Documents",
        ] {
            let f = Facts::from_commands(
                [assign, "mkdir $D", "P=9200; echo \"", "vite --port $P"],
                "/home/alice/project",
            );
            assert!(f.created.is_empty(), "{assign}: {:?}", f.created);
            assert!(f.listening.is_empty(), "{assign}: {:?}", f.listening);
        }
        // Surely assigned: learnt as before.
        let f = Facts::from_commands(
            [
                "D=/home/alice/Documents",
                "mkdir $D",
                "export P=9200",
                "vite --port $P",
            ],
            "/home/alice/project",
        );
        assert_eq!(f.created, ["/home/alice/Documents"]);
        assert_eq!(f.listening, [9200]);
        // A maybe-value over a sure one, either way round: one reading
        // follows the link to each.
        for (sure, maybe) in [
            (
                "X=/home/alice/.claude",
                "X=/home/alice/project/tmp; echo 'unclosed",
            ),
            (
                "X=/home/alice/project/tmp",
                "test -e f && X=/home/alice/.claude",
            ),
        ] {
            let calls = [(sure, true), (maybe, true), ("ln -s $X k", true)];
            let targets: Vec<String> = readings(&calls, "/home/alice/project")
                .iter()
                .map(|r| r.through_symlinks("/home/alice/project/k".into(), None))
                .collect();
            for want in ["/home/alice/.claude", "/home/alice/project/tmp"] {
                assert!(targets.iter().any(|t| t == want), "{maybe}: {targets:?}");
            }
        }
        // A link made in doubt from a value in doubt is still learnt.
        let f = Facts::from_commands(["X=/root/.ssh; ln -s $X k; echo '"], "/w");
        assert_eq!(
            f.through_symlinks("/w/k/id_rsa".into(), None),
            "/root/.ssh/id_rsa"
        );
        // A `cd` to a maybe place leaves the directory unknown.
        let f = Facts::from_commands(
            ["false && D=/etc", "cd $D && mkdir cron.d"],
            "/home/alice/project",
        );
        assert!(f.created.is_empty(), "{:?}", f.created);
    }
}
