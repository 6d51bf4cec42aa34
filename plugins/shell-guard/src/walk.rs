//! The analysis: walks a parsed script, expands words the way the shell
//! would (as far as they are known), tracks `cd` and variable assignments,
//! follows data from downloads and decoders through pipelines, and hands
//! every simple command to the rules in [`crate::commands`].

use std::collections::HashMap;

use brush_parser::ast;
use brush_parser::word::{Parameter, ParameterExpr, TildeExpr, WordPiece, WordPieceWithSource};

use crate::options::Options;
use crate::paths::{self, Place, Places};
use crate::syntax::{self, Field, FieldBuilder, Output, Seg, SyntaxError};

/// Most simple commands and words one call may expand before the analysis
/// gives up with `shell.too-deep`.
pub const MAX_STEPS: usize = 20_000;
/// Most compound commands and nested scripts open at once, over all nesting
/// levels: bounds the recursion of the analysis (and of the parser, whose
/// per-script bound shrinks as this budget is used).
pub const MAX_NEST: usize = 160;
/// Most values of a `for` loop followed one by one.
pub const MAX_LOOP_VALUES: usize = 8;
/// Default IFS.
pub const DEFAULT_IFS: &str = " \t\n";

/// A finding of one rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Deny (true) or escalate (false).
    pub deny: bool,
    /// Rule id.
    pub rule: String,
    /// Message for the model / approver.
    pub message: String,
}

/// The working directory as the analysis knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cwd {
    /// No working directory was given for the call.
    None,
    /// Known absolute, normalised directory.
    Known(String),
    /// Changed by `cd` to something only known at run time.
    Unknown,
}

/// Shell state that flows along a script.
#[derive(Debug, Clone, PartialEq)]
pub struct Env {
    /// Variables assigned in the script so far.
    pub vars: HashMap<String, Field>,
    /// Current directory.
    pub cwd: Cwd,
    /// Files written in this command from downloaded or decoded content
    /// (`curl -o x.sh`, `base64 -d > x`), by path, with their taint.
    pub tainted_files: HashMap<String, Output>,
    /// Command names rebound in this shell (`hash -p PATH NAME`,
    /// `BASH_CMDS[NAME]=PATH`, `alias NAME=VALUE`, `BASH_ALIASES[NAME]=…`):
    /// a later command word naming one runs what it is bound to.
    pub names: HashMap<String, Binding>,
    /// Loop variables over globs (`for f in *.txt`): the words the loop
    /// runs over. A target that is the variable alone (`mv "$f" …`) is
    /// placed as those words are where it is used (the names a relative
    /// glob gives are relative too: after `cd /` they are under `/`).
    pub loop_globs: HashMap<String, Vec<Field>>,
    /// Files this call wrote or made, by key ([`Env::file_key`]): what a
    /// later command running one runs (review-s9 G11, G2).
    pub written: HashMap<String, Written>,
    /// Keys of [`Env::written`] whose text the run's history claims
    /// ([`crate::written`]): enough to judge what runs them, never to
    /// loosen a judgement made without the text.
    pub claimed: std::collections::HashSet<String>,
    /// `shopt -s cdable_vars` is on: `cd NAME` may go to `$NAME`.
    pub cdable_vars: bool,
    /// Associative arrays declared in the command (`declare -A m`): their
    /// subscripts are keys, not arithmetic ([`crate::arith`]).
    pub assoc: std::collections::HashSet<String>,
    /// Variables declared `-i` in the command: every value given to one
    /// is evaluated as arithmetic ([`crate::arith`]).
    pub ints: std::collections::HashSet<String>,
}

/// What [`Analysis::run_written_file`] did with a command word.
pub(crate) enum WrittenRun {
    /// Not a file written in the call.
    No,
    /// A copy of a program: the command word now names it; judge again.
    Renamed,
    /// The file was judged as the script it holds; its output.
    Ran(Output),
}

/// What a file written or made earlier in the call holds, for a later
/// command that runs it (`bash FILE`, `source FILE`, `./FILE`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    /// This text, known exactly (`echo 'make test' > run.sh`).
    Text(String),
    /// Content the analysis does not know (`python gen.py > run.sh`).
    Unknown,
    /// A copy of, or link to, this program or file (`cp /bin/rm y`,
    /// `ln -s /bin/rm x`, `install /bin/rm z`): running it runs that.
    Copy(String),
}

/// What a simple command naming a rebound name runs instead.
enum Rebound {
    /// These fields in place of the first `usize` fields of its words.
    Words(Vec<Field>, usize),
    /// This shell text, with the aliases being expanded in it.
    Script(String, Vec<String>),
}

/// What a rebound command name runs (see [`Env::names`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Binding {
    /// `hash -p PATH NAME`, `BASH_CMDS[NAME]=PATH`: NAME runs the program PATH.
    Program(String),
    /// `alias NAME=VALUE`, `BASH_ALIASES[NAME]=VALUE`: NAME is replaced by
    /// VALUE's shell text (a value ending in a blank expands the next word too).
    Alias(String),
    /// Bound on one branch only, or differently on two: not known.
    Unknown,
}

impl Env {
    /// A state with no variables, the given directory and no tainted files.
    pub fn fresh(cwd: Cwd) -> Env {
        Env {
            vars: HashMap::new(),
            cwd,
            tainted_files: HashMap::new(),
            names: HashMap::new(),
            loop_globs: HashMap::new(),
            written: HashMap::new(),
            claimed: std::collections::HashSet::new(),
            cdable_vars: false,
            assoc: std::collections::HashSet::new(),
            ints: std::collections::HashSet::new(),
        }
    }

    /// Merge the state of another branch: what differs becomes unknown.
    pub fn merge(&mut self, other: &Env) {
        if self.cwd != other.cwd {
            self.cwd = Cwd::Unknown;
        }
        for (k, v) in &other.vars {
            match self.vars.get(k) {
                Some(mine) if mine == v => {}
                _ => {
                    self.vars.insert(k.clone(), dyn_field(&format!("${k}")));
                }
            }
        }
        let only_mine: Vec<String> = self
            .vars
            .keys()
            .filter(|k| !other.vars.contains_key(*k))
            .cloned()
            .collect();
        for k in only_mine {
            self.vars.insert(k.clone(), dyn_field(&format!("${k}")));
        }
        for (k, v) in &other.tainted_files {
            self.tainted_files
                .entry(k.clone())
                .or_insert_with(|| v.clone());
        }
        // A name bound on one branch only, or to two things: either may run.
        let mut names: Vec<&String> = self.names.keys().chain(other.names.keys()).collect();
        names.sort();
        names.dedup();
        let differ: Vec<String> = names
            .into_iter()
            .filter(|k| self.names.get(*k) != other.names.get(*k))
            .cloned()
            .collect();
        for k in differ {
            self.names.insert(k, Binding::Unknown);
        }
        self.loop_globs
            .retain(|k, v| other.loop_globs.get(k) == Some(v));
        // A file written differently on two branches: its content is not
        // known. Written on one branch only: the other runs a file this
        // call did not write (judged as any such file), so the known text
        // is kept.
        for (k, v) in &other.written {
            match self.written.get(k) {
                None => {
                    self.written.insert(k.clone(), v.clone());
                }
                Some(mine) if mine != v => {
                    self.written.insert(k.clone(), Written::Unknown);
                }
                Some(_) => {}
            }
        }
        self.cdable_vars |= other.cdable_vars;
        // An associative array on every branch only (`false && declare -A
        // a` leaves `a` indexed).
        self.assoc.retain(|k| other.assoc.contains(k));
        self.ints.extend(other.ints.iter().cloned());
    }

    /// The key of a file path in `tainted_files`: resolved against the
    /// working directory when it is known.
    pub fn file_key(&self, path: &str) -> String {
        match &self.cwd {
            Cwd::Known(c) => paths::resolve(c, path),
            _ if path.starts_with('/') => paths::normalize_abs(path),
            _ => paths::normalize_rel(path).unwrap_or_else(|| path.to_string()),
        }
    }

    /// Keep the tainted files written by a subshell (files outlive it).
    pub fn absorb_files(&mut self, sub: &Env) {
        for (k, v) in &sub.tainted_files {
            self.tainted_files
                .entry(k.clone())
                .or_insert_with(|| v.clone());
        }
        for (k, v) in &sub.written {
            if self.written.get(k) != Some(v) {
                self.written.insert(k.clone(), v.clone());
            }
        }
    }

    /// The text of a file written earlier in the call, when known.
    pub fn written_text(&self, path: &str) -> Option<&str> {
        let mut key = self.file_key(path);
        for _ in 0..8 {
            match self.written.get(&key)? {
                Written::Text(t) => return Some(t),
                Written::Copy(p) => key = self.file_key(p),
                Written::Unknown => return None,
            }
        }
        None
    }

    /// Remember that `path` was written with `out` (appended to when
    /// `append`): its text when known, else unknown content.
    pub fn note_written(&mut self, path: &str, out: &Output, append: bool) {
        if path.is_empty() || path == "-" || path.starts_with("/dev/") {
            return;
        }
        let key = self.file_key(path);
        let text = match out {
            Output::Static(t) if !append => Written::Text(t.clone()),
            Output::Static(t) => match self.written.get(&key) {
                Some(Written::Text(before)) => Written::Text(format!("{before}{t}")),
                _ => Written::Unknown,
            },
            _ => Written::Unknown,
        };
        self.written.insert(key, text);
    }

    /// Remember that `path` holds downloaded or decoded content.
    pub fn taint_file(&mut self, path: &str, out: &Output) {
        if out.is_tainted() && !path.is_empty() && path != "-" && !path.starts_with("/dev/") {
            let key = self.file_key(path);
            self.tainted_files.insert(key, out.clone());
        }
    }

    /// The taint of a file written earlier in the command, if any.
    pub fn file_taint(&self, path: &str) -> Option<&Output> {
        self.tainted_files.get(&self.file_key(path))
    }

    /// The IFS characters in force.
    pub fn ifs(&self) -> String {
        self.vars
            .get("IFS")
            .and_then(Field::static_text)
            .unwrap_or_else(|| DEFAULT_IFS.to_string())
    }
}

/// A field only known at run time.
pub fn dyn_field(raw: &str) -> Field {
    Field {
        segs: vec![Seg::Dyn {
            raw: raw.to_string(),
            out: Output::Unknown,
            quoted: false,
        }],
    }
}

/// What a deletion (or permission change) target resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A known place; `shown` is the absolute path for messages.
    Known(Place, String),
    /// Depends on run-time values.
    Dynamic,
    /// A directory outside the workspace that an earlier call of the run
    /// claims to have created (`mkdir DIR`, `git clone URL DIR`); `shown`
    /// is its absolute path. The claim is unverified (the history records
    /// that the call was allowed, not that it ran or succeeded), so each
    /// rule that would deny the place asks a person instead; never an
    /// allow, never "cannot judge, skip".
    Claimed(String),
}

/// The reason shown when a removal's target is a directory only the
/// run's own earlier call claims to have created (see [`Target::Claimed`]).
pub(crate) fn claimed_reason(how: &str, shown: &str) -> String {
    format!(
        "`{how}` on `{shown}` deletes outside the workspace. An earlier command of this run claims to have created \
         `{shown}`, but that claim is unverified (the command may have failed or not run, and the directory may hold \
         someone's data), so a person must approve. Delete paths inside the workspace instead."
    )
}

/// One analysis of one call.
#[derive(Debug)]
pub struct Analysis<'a> {
    pub(crate) opts: &'a Options,
    pub(crate) workspace: Vec<String>,
    pub(crate) home: Option<String>,
    pub(crate) best: Option<Finding>,
    steps: usize,
    nest: usize,
    /// Normalised simple commands seen, when tracing (tests, debugging).
    pub(crate) trace: Option<Vec<String>>,
    /// What earlier calls of the run did (symbolic links, directories).
    pub(crate) facts: check_catalog::run::Facts,
    /// toolvet's own state paths the host passed (guard rails).
    pub(crate) state: check_catalog::guardrails::StatePaths,
    /// Variables assigned in front of the command being run (`HOME=/tmp
    /// codex …`): its environment only, not the shell's.
    pub(crate) command_vars: Vec<String>,
    /// A command of this script looked up toolvet's process ids (`pgrep
    /// -f toolvet`, `ps aux | grep toolvet`): a kill of pids it cannot
    /// read may be of the hook (review s14 N6).
    pub(crate) toolvet_pids: bool,
    /// An earlier stage of the pipeline being walked lists processes
    /// (`ps`, `pgrep -a`, `/proc/*/cmdline`): a filter of its output
    /// (`grep`, `awk`, `sed`) picks processes (review s17 Q8).
    pub(crate) process_listing: bool,
    /// The process listing of the pipeline being walked has not been
    /// narrowed by a filter the check reads as selecting (a pgrep or grep
    /// pattern, an awk `/re/`, `sed -n …p`): pids read from it may be any
    /// process, toolvet's hooks among them (review s18 R4).
    pub(crate) unnarrowed_listing: bool,
    /// What the standard input of the simple command being run carries
    /// when it is the output of a process lookup (review s21 U9): the
    /// pipe's previous stage's [`Analysis::pid_out`]. Set only for a
    /// stage after a simple command; `None` otherwise.
    pub(crate) pid_in: Option<crate::selfstate::PidFlow>,
    /// What the simple command just run writes, when it is a process
    /// lookup's output (or a filter keeping its lines): set by
    /// [`Analysis::toolvet_signals`], reset before each command.
    pub(crate) pid_out: Option<crate::selfstate::PidFlow>,
    /// Command substitutions (by their source text) whose whole output is
    /// the pids a proven-narrow process lookup prints
    /// ([`crate::selfstate::PidFlow::proven`]): `$(pgrep -f uvicorn)`,
    /// `$(lsof -ti:8080)`. A signal may be sent to these.
    pub(crate) narrow_lookups: std::collections::HashSet<String>,
    /// The pipeline stage whose command [`Analysis::pid_out`] was
    /// recorded for, and the stage being run (numbers from `serial`).
    pub(crate) pid_out_stage: u64,
    pub(crate) stage: u64,
    serial: u64,
    /// What the last pipeline walked writes, as [`Analysis::pid_out`]
    /// of its last stage: read by a command substitution.
    pipeline_pids: Option<crate::selfstate::PidFlow>,
    /// The command set `IFS` (set by [`Analysis::toolvet_signals`]): a
    /// lookup's pids may be split into other numbers.
    pub(crate) ifs_set: bool,
    /// A command ran text only known at run time, or a file, in this
    /// shell (`eval "$X"`, `source F`): any variable may have any value
    /// after it, so no expansion is a proven pid (review s21 U15).
    pub(crate) vars_opaque: bool,
    /// Raw texts of expansions whose value is an integer (`$((…))`, the
    /// value arithmetic gives a variable): see [`crate::arith`].
    pub(crate) arith_integers: std::collections::HashSet<String>,
    /// A function was defined in the command: calling it may have made
    /// any variable an indexed array ([`crate::arith`]).
    pub(crate) functions_defined: bool,
    /// Text typed into, or run in, a pane whose working directory the
    /// check does not know (`tmux send-keys`, `screen -X stuff`, a
    /// respawned pane) is being judged: the first path a remover or
    /// writer names relative to that unknown directory is recorded here,
    /// and the text is held (review s21 U3).
    pub(crate) unplaced: std::cell::RefCell<Option<Option<String>>>,
    /// Depth of tmux command lists read inside a tmux command (hooks,
    /// key bindings, `if-shell`'s commands): a pane they start without
    /// `-c` starts in the session's directory, not the caller's.
    pub(crate) tmux_nested: u32,
}

/// How the pieces of a word are expanded ([`Analysis::expand_pieces_split`]).
#[derive(Debug, Clone, Copy)]
struct Splitting {
    /// Inside double quotes.
    quoted: bool,
    /// The word is not split into fields
    /// ([`Analysis::expand_word_unsplit`]: assignment values and the like).
    no_split: bool,
}

/// How a parameter expansion's value becomes fields
/// ([`Analysis::parameter`]).
#[derive(Debug, Clone, Copy)]
struct Fielding<'a> {
    /// Inside double quotes: the value stays one field.
    quoted: bool,
    /// The field separators in force (empty: no splitting).
    ifs: &'a str,
}

impl<'a> Analysis<'a> {
    /// A fresh analysis. `cwd` must be absolute to be used.
    pub fn new(opts: &'a Options, cwd: Option<&str>, home: Option<&str>) -> (Self, Env) {
        let cwd = cwd.filter(|c| c.starts_with('/')).map(paths::normalize_abs);
        let home = home
            .filter(|h| h.starts_with('/'))
            .map(paths::normalize_abs)
            .or_else(|| cwd.as_deref().and_then(paths::home_of));
        let workspace = workspace_of(opts, cwd.as_deref());
        let env = Env::fresh(cwd.map_or(Cwd::None, Cwd::Known));
        (
            Analysis {
                opts,
                workspace,
                home,
                best: None,
                steps: 0,
                nest: 0,
                trace: None,
                facts: check_catalog::run::Facts::default(),
                state: check_catalog::guardrails::StatePaths::default(),
                command_vars: Vec::new(),
                toolvet_pids: false,
                process_listing: false,
                unnarrowed_listing: false,
                pid_in: None,
                pid_out: None,
                narrow_lookups: std::collections::HashSet::new(),
                pid_out_stage: 0,
                stage: 0,
                serial: 0,
                pipeline_pids: None,
                ifs_set: false,
                vars_opaque: false,
                arith_integers: std::collections::HashSet::new(),
                functions_defined: false,
                unplaced: std::cell::RefCell::new(None),
                tmux_nested: 0,
            },
            env,
        )
    }

    /// The strongest finding so far.
    pub fn finding(self) -> Option<Finding> {
        self.best
    }

    /// Record a finding; the first deny wins, a deny beats any escalate.
    pub(crate) fn report(&mut self, deny: bool, rule: &str, message: impl Into<String>) {
        let replace = match &self.best {
            None => true,
            Some(b) => deny && !b.deny,
        };
        if replace {
            self.best = Some(Finding {
                deny,
                rule: rule.to_string(),
                message: message.into(),
            });
        }
    }

    /// A deny was found: nothing can change the outcome any more.
    pub(crate) fn done(&self) -> bool {
        self.best.as_ref().is_some_and(|b| b.deny)
    }

    fn step(&mut self) -> bool {
        self.steps += 1;
        if self.steps == MAX_STEPS {
            self.report(
                false,
                "shell.too-deep",
                format!(
                    "The command is too large to analyse (more than {MAX_STEPS} commands and words). \
                     A person must review it, or split it into smaller commands."
                ),
            );
        }
        self.steps < MAX_STEPS
    }

    pub(crate) fn places(&self) -> Places<'_> {
        Places {
            workspace: &self.workspace,
            scratch: &self.opts.scratch_roots,
            home: self.home.as_deref(),
        }
    }

    /// How the workspace is described in messages.
    pub(crate) fn workspace_hint(&self) -> String {
        match self.workspace.as_slice() {
            [] => {
                "no workspace is known (pass the `cwd` context attribute or set `workspace_roots`)"
                    .to_string()
            }
            [one] => format!("the workspace is `{one}`"),
            many => format!(
                "the workspaces are {}",
                many.iter()
                    .map(|w| format!("`{w}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    // ----------------------------------------------------------------
    // Scripts and the syntax tree
    // ----------------------------------------------------------------

    /// Analyse a script at nesting `depth` (0 for the call's command) and
    /// return what it writes to standard output.
    pub fn script(&mut self, text: &str, env: &mut Env, depth: u32, stdin: &Output) -> Output {
        if self.done() {
            return Output::Unknown;
        }
        if depth > self.opts.max_depth {
            self.report_too_deep_scripts();
            return Output::Unknown;
        }
        if !self.step() {
            return Output::Unknown;
        }
        if !self.enter() {
            return Output::Unknown;
        }
        let parsed = syntax::parse_script(text, MAX_NEST.saturating_sub(self.nest));
        let out = match parsed {
            Ok(program) => {
                let mut out = Output::Static(String::new());
                for cc in &program.complete_commands {
                    out = out.merge(self.list(cc, env, depth, stdin));
                    if self.done() {
                        break;
                    }
                }
                out
            }
            Err(SyntaxError::TooDeep(why)) => {
                self.report(
                    false,
                    "shell.too-deep",
                    format!(
                        "The command is nested too deeply to analyse ({why}). A person must review it."
                    ),
                );
                Output::Unknown
            }
            Err(SyntaxError::Unparseable(why)) => {
                self.report(
                    false,
                    "shell.unparseable",
                    format!(
                        "The command is not valid shell syntax ({why}), so it cannot be checked. \
                         Fix the quoting or syntax; a person must approve it as it is."
                    ),
                );
                Output::Unknown
            }
        };
        self.nest -= 1;
        out
    }

    fn report_too_deep_scripts(&mut self) {
        self.report(
            false,
            "shell.too-deep",
            format!(
                "The command nests scripts more than {} levels deep (`bash -c`, `eval`, `$(…)` inside each other), \
                 which is not analysed. A person must review it; a flatter command would be checked automatically.",
                self.opts.max_depth
            ),
        );
    }

    /// Enter one nesting level (a script or a compound command); false, with
    /// a finding, when the budget is spent. Pair with `self.nest -= 1`.
    fn enter(&mut self) -> bool {
        if self.nest >= MAX_NEST {
            self.report(
                false,
                "shell.too-deep",
                format!(
                    "The command nests groups, compound commands and substitutions more than {MAX_NEST} levels deep, \
                     which is not analysed. A person must review it."
                ),
            );
            return false;
        }
        self.nest += 1;
        true
    }

    fn list(
        &mut self,
        list: &ast::CompoundList,
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) -> Output {
        let mut out = Output::Static(String::new());
        for ast::CompoundListItem(aol, sep) in &list.0 {
            if self.done() {
                break;
            }
            let o = if matches!(sep, ast::SeparatorOperator::Async) {
                // Runs in the background, in a subshell.
                let mut sub = env.clone();
                let o = self.and_or(aol, &mut sub, depth, stdin);
                env.absorb_files(&sub);
                o
            } else {
                self.and_or(aol, env, depth, stdin)
            };
            out = out.merge(o);
        }
        out
    }

    fn and_or(
        &mut self,
        aol: &ast::AndOrList,
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) -> Output {
        let mut out = self.pipeline(&aol.first, env, depth, stdin);
        for next in &aol.additional {
            let p = match next {
                ast::AndOr::And(p) | ast::AndOr::Or(p) => p,
            };
            // A pipeline that may not run proves no array associative
            // (`false && declare -A a`, review s22 V1).
            let assoc = env.assoc.clone();
            out = out.merge(self.pipeline(p, env, depth, stdin));
            env.assoc.retain(|k| assoc.contains(k));
        }
        out
    }

    fn pipeline(&mut self, p: &ast::Pipeline, env: &mut Env, depth: u32, stdin: &Output) -> Output {
        // Only a simple command's output is read as a lookup's pids: a
        // compound one (`{ echo -1; pgrep x; }`) may print anything, and
        // a redirection other than of standard error to a file makes a
        // stage read or write something else than the pipe (`xargs kill
        // < pids.txt`, `pgrep x 2>&1`) (review s21 U9).
        let simple = |c: &ast::Command| {
            let ast::Command::Simple(sc) = c else {
                return false;
            };
            let items = sc
                .prefix
                .iter()
                .flat_map(|p| p.0.iter())
                .chain(sc.suffix.iter().flat_map(|s| s.0.iter()));
            items.into_iter().all(|item| match item {
                ast::CommandPrefixOrSuffixItem::IoRedirect(r) => matches!(
                    r,
                    ast::IoRedirect::File(
                        Some(2),
                        ast::IoFileRedirectKind::Write
                            | ast::IoFileRedirectKind::Append
                            | ast::IoFileRedirectKind::Clobber,
                        ast::IoFileRedirectTarget::Filename(_)
                    )
                ),
                _ => true,
            })
        };
        // Each stage gets its own number: a lookup's pids are the
        // stage's only when `toolvet_signals` recorded them for this
        // stage, not for one nested in it (`sh -c 'echo -1; pgrep x'`, a
        // function's body); a nested pipeline leaves the stage's input
        // as it found it.
        let saved_in = self.pid_in;
        let outer_stage = self.stage;
        let single = p.seq.len() == 1;
        // Every stage runs in its own subshell. A process listing in one
        // stage reaches the filters after it, not the next pipeline.
        let outer = (self.process_listing, self.unnarrowed_listing);
        let mut flow = stdin.clone();
        let mut pids = None;
        for cmd in &p.seq {
            self.serial += 1;
            let my = self.serial;
            self.stage = my;
            self.pid_in = pids.filter(|_| simple(cmd));
            self.pid_out = None;
            if single {
                flow = self.command(cmd, env, depth, stdin);
            } else {
                let mut sub = env.clone();
                flow = self.command(cmd, &mut sub, depth, &flow);
                env.absorb_files(&sub);
            }
            pids = self
                .pid_out
                .filter(|_| simple(cmd) && self.pid_out_stage == my);
            if self.done() {
                break;
            }
        }
        self.stage = outer_stage;
        self.pid_in = saved_in;
        self.pipeline_pids = pids;
        if single {
            return flow;
        }
        // A wide listing the pipeline left unnarrowed is what it outputs:
        // `kill $(pgrep -u alice | cat)` (review s19 S12); it stays
        // known for the rest of the script.
        let wide = self.unnarrowed_listing;
        (self.process_listing, self.unnarrowed_listing) = outer;
        self.unnarrowed_listing |= wide;
        flow
    }

    /// A `for` loop's body, once per value (or once with the variable's
    /// placeholder; `globs`: the words it stands for).
    fn loop_body(
        &mut self,
        f: &ast::ForClauseCommand,
        per_value: Vec<Field>,
        globs: Option<Vec<Field>>,
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) -> Output {
        let mut out = Output::Static(String::new());
        let before = env.clone();
        for value in per_value {
            let mut body = before.clone();
            body.vars.insert(f.variable_name.clone(), value);
            match &globs {
                Some(g) => body.loop_globs.insert(f.variable_name.clone(), g.clone()),
                None => body.loop_globs.remove(&f.variable_name),
            };
            out = out.merge(self.list(&f.body.list, &mut body, depth, stdin));
            env.merge(&body);
            if self.done() {
                break;
            }
        }
        out
    }

    fn command(&mut self, cmd: &ast::Command, env: &mut Env, depth: u32, stdin: &Output) -> Output {
        if self.done() || !self.step() {
            return Output::Unknown;
        }
        match cmd {
            ast::Command::Simple(sc) => self.simple(sc, env, depth, stdin),
            ast::Command::Compound(cc, redirects) => {
                let stdin = match redirects {
                    Some(r) => self.redirects(&r.0, env, depth, stdin, None),
                    None => stdin.clone(),
                };
                let out = self.compound(cc, env, depth, &stdin);
                // `{ echo …; } >> ~/.bashrc`, `for …; done > F` (review
                // s10 H22): the group's redirections write as a command's.
                if let Some(r) = redirects
                    && !self.done()
                {
                    self.redirect_writes(&r.0, env, depth, &out);
                    self.note_redirect_writes(&r.0, env, depth, &out);
                }
                out
            }
            ast::Command::Function(fd) => {
                self.function_definition(fd, env, depth);
                Output::Static(String::new())
            }
            ast::Command::ExtendedTest(et, redirects) => {
                if let Some(r) = redirects {
                    self.redirects(&r.0, env, depth, stdin, None);
                    self.redirect_writes(&r.0, env, depth, &Output::Static(String::new()));
                }
                self.extended_test(&et.expr, env, depth);
                Output::Static(String::new())
            }
        }
    }

    fn compound(
        &mut self,
        cc: &ast::CompoundCommand,
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) -> Output {
        if !self.enter() {
            return Output::Unknown;
        }
        let out = self.compound_inner(cc, env, depth, stdin);
        self.nest -= 1;
        out
    }

    fn compound_inner(
        &mut self,
        cc: &ast::CompoundCommand,
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) -> Output {
        use ast::CompoundCommand as C;
        match cc {
            C::BraceGroup(g) => self.list(&g.list, env, depth, stdin),
            C::Subshell(s) => {
                let mut sub = env.clone();
                let out = self.list(&s.list, &mut sub, depth, stdin);
                env.absorb_files(&sub);
                out
            }
            C::Arithmetic(a) => {
                self.arithmetic_text(&a.expr.value, env, depth, "`(( … ))`");
                self.arith_assign(&a.expr.value, env);
                Output::Static(String::new())
            }
            C::ArithmeticForClause(f) => {
                for e in [&f.initializer, &f.condition, &f.updater]
                    .into_iter()
                    .flatten()
                {
                    self.arithmetic_text(&e.value, env, depth, "`for (( … ))`");
                    self.arith_assign(&e.value, env);
                }
                let mut body = env.clone();
                let out = self.list(&f.body.list, &mut body, depth, stdin);
                env.merge(&body);
                out
            }
            C::ForClause(f) => {
                let values: Option<Vec<Field>> = f.values.as_ref().map(|ws| {
                    ws.iter()
                        .flat_map(|w| self.expand_word(&w.value, env, depth))
                        .collect()
                });
                let per_value = match &values {
                    Some(v)
                        if v.len() <= MAX_LOOP_VALUES
                            && v.iter().all(|f| f.first_glob().is_none()) =>
                    {
                        v.clone()
                    }
                    _ => vec![loop_placeholder(&f.variable_name)],
                };
                // Words known but for their globs: the variable is placed
                // as the words are (`for f in *.txt; do mv "$f" …`).
                let globs = values
                    .as_ref()
                    .filter(|v| {
                        per_value.len() == 1
                            && per_value[0] == loop_placeholder(&f.variable_name)
                            && !v.is_empty()
                            && v.len() <= 4 * MAX_LOOP_VALUES
                            && v.iter().all(|w| !w.is_dynamic())
                    })
                    .cloned();
                // A loop over process entries (`for p in /proc/[0-9]*`)
                // is a listing of every process no filter has narrowed
                // yet (review s19 S8).
                let outer = (self.process_listing, self.unnarrowed_listing);
                if values.as_ref().is_some_and(|v| {
                    v.iter()
                        .any(|w| w.text().starts_with("/proc") && w.first_glob().is_some())
                }) {
                    self.process_listing = true;
                    self.unnarrowed_listing = true;
                }
                // `declare -i x; for x in …`: each value is evaluated.
                if env.ints.contains(&f.variable_name) {
                    let e = env.clone();
                    let words = values.clone().unwrap_or_else(|| vec![dyn_field("\"$@\"")]);
                    for w in &words {
                        self.prove_arithmetic(
                            w,
                            &e,
                            &format!("the value given to `{}` (declared `-i`)", f.variable_name),
                        );
                    }
                }
                let out = self.loop_body(f, per_value, globs, env, depth, stdin);
                (self.process_listing, self.unnarrowed_listing) = outer;
                out
            }
            C::CaseClause(c) => {
                self.expand_word(&c.value.value, env, depth);
                let before = env.clone();
                let mut out = Output::Static(String::new());
                for item in &c.cases {
                    for p in &item.patterns {
                        self.expand_word(&p.value, env, depth);
                    }
                    if let Some(body) = &item.cmd {
                        let mut branch = before.clone();
                        out = out.merge(self.list(body, &mut branch, depth, stdin));
                        env.merge(&branch);
                    }
                }
                out
            }
            C::IfClause(i) => {
                let mut out = self.list(&i.condition, env, depth, stdin);
                let before = env.clone();
                let mut then = before.clone();
                out = out.merge(self.list(&i.then, &mut then, depth, stdin));
                env.merge(&then);
                for e in i.elses.iter().flatten() {
                    let mut branch = before.clone();
                    if let Some(c) = &e.condition {
                        out = out.merge(self.list(c, &mut branch, depth, stdin));
                    }
                    out = out.merge(self.list(&e.body, &mut branch, depth, stdin));
                    env.merge(&branch);
                }
                out
            }
            C::WhileClause(w) | C::UntilClause(w) => {
                let mut out = self.list(&w.0, env, depth, stdin);
                let mut body = env.clone();
                out = out.merge(self.list(&w.1.list, &mut body, depth, stdin));
                env.merge(&body);
                out
            }
            C::Coprocess(c) => {
                let mut sub = env.clone();
                self.command(&c.body, &mut sub, depth, stdin)
            }
        }
    }

    fn extended_test(&mut self, expr: &ast::ExtendedTestExpr, env: &mut Env, depth: u32) {
        use ast::ExtendedTestExpr as E;
        // Iterative: `[[ a && b && … ]]` chains can be long.
        let mut stack = vec![expr];
        while let Some(e) = stack.pop() {
            if self.done() {
                return;
            }
            match e {
                E::And(a, b) | E::Or(a, b) => {
                    stack.push(b);
                    stack.push(a);
                }
                E::Not(a) | E::Parenthesized(a) => stack.push(a),
                E::UnaryTest(op, w) => {
                    let fields = self.expand_word(&w.value, env, depth);
                    if matches!(
                        op,
                        ast::UnaryPredicate::ShellVariableIsSetAndAssigned
                            | ast::UnaryPredicate::ShellVariableIsSetAndNameRef
                    ) {
                        let e = env.clone();
                        self.prove_name(
                            &crate::commands::join_fields(&fields),
                            &e,
                            "the `[[ -v ]]` operand",
                        );
                    }
                }
                E::BinaryTest(op, a, b) => {
                    use ast::BinaryPredicate as B;
                    let arithmetic = matches!(
                        op,
                        B::ArithmeticEqualTo
                            | B::ArithmeticNotEqualTo
                            | B::ArithmeticLessThan
                            | B::ArithmeticLessThanOrEqualTo
                            | B::ArithmeticGreaterThan
                            | B::ArithmeticGreaterThanOrEqualTo
                    );
                    for w in [a, b] {
                        let fields = self.expand_word(&w.value, env, depth);
                        if arithmetic {
                            let e = env.clone();
                            self.prove_arithmetic(
                                &crate::commands::join_fields(&fields),
                                &e,
                                "the `[[ … -eq … ]]` operand",
                            );
                        }
                    }
                }
            }
        }
    }

    fn function_definition(&mut self, fd: &ast::FunctionDefinition, env: &mut Env, depth: u32) {
        self.functions_defined = true;
        let name = fd.fname.value.clone();
        let mut calls = SelfCalls::default();
        calls.compound(&fd.body.0, &name, false);
        if calls.risky > 0 {
            self.report(
                true,
                "shell.fork-bomb",
                format!(
                    "The function `{name}` starts copies of itself in the background or in a pipeline: \
                     a fork bomb that exhausts the machine's processes. Do not run it; write a bounded loop instead."
                ),
            );
            return;
        }
        // The body is analysed where it is defined, once, with the
        // redirections every call applies (`f() { cat; } < KEY`).
        let mut body = env.clone();
        let stdin = match &fd.body.1 {
            Some(r) => self.redirects(&r.0, &mut body, depth, &Output::Unknown, Some(&name)),
            None => Output::Unknown,
        };
        let out = self.compound(&fd.body.0, &mut body, depth, &stdin);
        // `f() { echo …; } > F`: every call writes F (review s10 H22).
        if let Some(r) = &fd.body.1
            && !self.done()
        {
            self.redirect_writes(&r.0, &mut body, depth, &out);
        }
        // A name the body rebinds (`f() { hash -p /bin/rm x; }; f; x …`)
        // is rebound in the caller's shell once it is called.
        for (k, b) in body.names {
            if env.names.get(&k) != Some(&b) {
                env.names.insert(k, b);
            }
        }
    }

    /// Handle redirections: check device and network targets, and return
    /// the command's standard input afterwards. `cmd_name` is the command's
    /// name for simple commands.
    pub(crate) fn redirects(
        &mut self,
        redirects: &[ast::IoRedirect],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
        cmd_name: Option<&str>,
    ) -> Output {
        use ast::{IoFileRedirectKind as K, IoFileRedirectTarget as T, IoRedirect as R};
        let mut input = stdin.clone();
        for r in redirects {
            if self.done() {
                break;
            }
            match r {
                R::File(fd, kind, target) => {
                    let writes = matches!(
                        kind,
                        K::Write | K::Append | K::Clobber | K::ReadAndWrite | K::DuplicateOutput
                    );
                    let reads = matches!(kind, K::Read | K::ReadAndWrite);
                    let reads_stdin = reads && fd.is_none_or(|f| f == 0);
                    match target {
                        T::Filename(w) | T::Duplicate(w) => {
                            let fields = self.expand_word(&w.value, env, depth);
                            for f in &fields {
                                let text = f.text();
                                // `< KEY`, `3< KEY`, `<> KEY`, `$(< KEY)`: the
                                // command (or the loop, or `exec`'s shell)
                                // reads the file, wherever the redirection is.
                                if reads
                                    && matches!(target, T::Filename(_))
                                    && let Some(label) = self.sensitive_label(f, env)
                                {
                                    self.report_redirected_read(cmd_name, &text, label);
                                    if reads_stdin {
                                        input = Output::Secret;
                                    }
                                    continue;
                                }
                                if writes {
                                    self.check_device_write(&text, "a redirection");
                                }
                                if is_network_device(&text) {
                                    self.network_redirect(cmd_name);
                                    if reads_stdin {
                                        input = Output::Downloaded;
                                    }
                                } else if reads_stdin {
                                    input = if text == "/dev/null" {
                                        Output::Static(String::new())
                                    } else if let Some(t) = env.written_text(&text) {
                                        // `bash < r.sh` after writing it (review-s9 G11).
                                        Output::Static(t.to_string())
                                    } else {
                                        Output::Unknown
                                    };
                                }
                            }
                        }
                        T::Fd(_) => {}
                        T::ProcessSubstitution(_, sub) => {
                            let mut e = env.clone();
                            let out = self.subshell_output(&sub.list, &mut e, depth + 1);
                            if reads_stdin {
                                input = out;
                            }
                        }
                    }
                }
                R::HereString(fd, w) => {
                    let fields = self.expand_word(&w.value, env, depth);
                    if fd.is_none_or(|f| f == 0) {
                        input = fields_output(&fields, true);
                    }
                }
                R::HereDocument(fd, doc) => {
                    let out = self.heredoc(doc, env, depth);
                    if fd.is_none_or(|f| f == 0) {
                        input = out;
                    }
                }
                R::OutputAndError(w, _) => {
                    let fields = self.expand_word(&w.value, env, depth);
                    for f in &fields {
                        let text = f.text();
                        self.check_device_write(&text, "a redirection");
                        if is_network_device(&text) {
                            self.network_redirect(cmd_name);
                        }
                    }
                }
            }
        }
        input
    }

    /// A credential file or toolvet secret opened for reading by an input
    /// redirection: a read of it by the command it is attached to.
    fn report_redirected_read(&mut self, cmd_name: Option<&str>, file: &str, label: &str) {
        let by = match cmd_name {
            Some(n) => format!("`{n}`"),
            None => "a command".to_string(),
        };
        self.report(
            true,
            "shell.read-credentials",
            format!(
                "An input redirection (`<`) gives {by} the contents of `{file}`, {label}. Credentials must not be \
                 read into the conversation, copied or sent anywhere; let the program that needs them use them in \
                 place (e.g. `ssh -i`, a credential helper), or ask the user for what you need."
            ),
        );
    }

    fn network_redirect(&mut self, cmd_name: Option<&str>) {
        if let Some(name) = cmd_name
            && (crate::commands::is_shell(name) || crate::commands::is_interpreter(name))
        {
            self.report(
                true,
                "shell.reverse-shell",
                format!(
                    "`{name}` is connected to a network socket through `/dev/tcp` or `/dev/udp`: \
                     this is a reverse shell that hands control of the machine to a remote host. Do not run it."
                ),
            );
        }
    }

    fn heredoc(&mut self, doc: &ast::IoHereDocument, env: &mut Env, depth: u32) -> Output {
        if !doc.requires_expansion {
            return Output::Static(doc.doc.value.clone());
        }
        // brush's heredoc word parser backtracks exponentially on bodies with
        // many unterminated `$(`; the body is rewritten as the equivalent
        // double-quoted word and validated by the (linear) tokenizer first.
        let word = syntax::heredoc_as_double_quoted(&doc.doc.value);
        let opts = syntax::parser_options();
        let tokens_ok = matches!(syntax::tokenize(&word), Ok(t) if t.len() == 1);
        if !tokens_ok {
            self.report(
                false,
                "shell.unparseable",
                "A here-document contains an unterminated `$(…)` or backquote, so the command cannot be checked. \
                 Fix the here-document, or quote its delimiter (`<<'EOF'`) if it should not be expanded.",
            );
            return Output::Unknown;
        }
        match brush_parser::word::parse(&word, &opts) {
            Ok(pieces) => {
                let mut b = FieldBuilder::default();
                self.expand_pieces(&pieces, &word, true, &mut b, env, depth);
                let fields = b.finish();
                let out = fields_output(&fields, false);
                match out {
                    Output::Unknown => {
                        Output::Static(fields.iter().map(Field::text).collect::<Vec<_>>().join(""))
                    }
                    o => o,
                }
            }
            Err(_) => Output::Static(doc.doc.value.clone()),
        }
    }

    /// Analyse a `( … )` list as a process or command substitution and
    /// return its output.
    pub(crate) fn subshell_output(
        &mut self,
        list: &ast::CompoundList,
        env: &mut Env,
        depth: u32,
    ) -> Output {
        if depth > self.opts.max_depth {
            self.report_too_deep_scripts();
            return Output::Unknown;
        }
        self.list(list, env, depth, &Output::Unknown)
    }

    fn simple(
        &mut self,
        sc: &ast::SimpleCommand,
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) -> Output {
        use ast::CommandPrefixOrSuffixItem as I;
        let mut assignments: Vec<(String, Field)> = Vec::new();
        let mut redirects: Vec<&ast::IoRedirect> = Vec::new();
        let mut argv: Vec<Field> = Vec::new();

        for item in sc.prefix.iter().flat_map(|p| p.0.iter()) {
            match item {
                I::AssignmentWord(a, _) => {
                    if let Some((name, value)) = self.assignment(a, env, depth) {
                        assignments.push((name, value));
                    }
                }
                I::IoRedirect(r) => redirects.push(r),
                I::Word(w) => argv.extend(self.expand_word(&w.value, env, depth)),
                I::ProcessSubstitution(kind, sub) => {
                    argv.push(self.process_substitution(kind, sub, env, depth))
                }
            }
        }
        if let Some(w) = &sc.word_or_name {
            argv.extend(self.expand_word(&w.value, env, depth));
        }
        // `declare -A m=([k]=v)`: m's subscripts are keys (review s22 V1).
        let declares = sc
            .word_or_name
            .as_ref()
            .is_some_and(|w| matches!(w.value.as_str(), "declare" | "typeset" | "local"));
        let mut assoc = false;
        for item in sc.suffix.iter().flat_map(|s| s.0.iter()) {
            match item {
                I::Word(w) if declares && w.value.starts_with('-') && w.value.contains('A') => {
                    assoc = true;
                    argv.extend(self.expand_word(&w.value, env, depth));
                }
                I::AssignmentWord(a, _) => {
                    if assoc {
                        let (ast::AssignmentName::VariableName(n)
                        | ast::AssignmentName::ArrayElementName(n, _)) = &a.name;
                        self.declare_assoc(n, env);
                    }
                    if let Some((name, value)) = self.assignment(a, env, depth) {
                        let mut f = Field::lit(format!("{name}="));
                        f.segs.extend(value.segs);
                        argv.push(f);
                    }
                }
                I::IoRedirect(r) => redirects.push(r),
                I::Word(w) => argv.extend(self.expand_word(&w.value, env, depth)),
                I::ProcessSubstitution(kind, sub) => {
                    argv.push(self.process_substitution(kind, sub, env, depth))
                }
            }
        }

        // A command word naming an alias or a hashed program runs what it
        // is bound to (review-s8 F2).
        let rebound = self.rebound(sc, env, depth);
        if let Some(Rebound::Words(words, n)) = rebound {
            argv.splice(0..n.min(argv.len()), words);
        } else if let Some(Rebound::Script(text, expanding)) = rebound {
            // bash does not expand an alias again inside its own value
            // (`alias ls='ls --color'`): out of the table while it runs.
            let held: Vec<(String, Binding)> = expanding
                .into_iter()
                .filter_map(|n| env.names.remove(&n).map(|b| (n, b)))
                .collect();
            let out = self.script(&text, env, depth + 1, stdin);
            for (n, b) in held {
                env.names.entry(n).or_insert(b);
            }
            return out;
        }
        let name = argv.first().map(|f| crate::commands::base_name(&f.text()));
        // `BASH_ENV=x bash -c …`, `PROMPT_COMMAND=…`, `GIT_CONFIG_KEY_0=…`:
        // variables whose value runs.
        let runs_shell = name.as_deref().is_some_and(crate::commands::is_shell);
        self.code_variables(&assignments, env, depth, runs_shell);
        let owned: Vec<ast::IoRedirect> = redirects.into_iter().cloned().collect();
        let stdin = self.redirects(&owned, env, depth, stdin, name.as_deref());

        if argv.is_empty() {
            // `> F`, `x= > F`: a redirection without a command still
            // creates or truncates its file (review s10 H9).
            let nothing = Output::Static(String::new());
            self.redirect_writes(&owned, env, depth, &nothing);
            self.note_redirect_writes(&owned, env, depth, &nothing);
            // `A=b` on its own sets shell variables.
            for (n, v) in assignments {
                env.vars.insert(n, v);
            }
            return nothing;
        }
        // `CDPATH=/home cd alice`: the search path holds for this command
        // (and the shells it starts) only (review-s9 G4).
        // `PATH=dir y`: the same for the program search path (review-s9 G2).
        let held: Vec<(String, Option<Field>)> = assignments
            .iter()
            // `RCLONE_CONFIG_X_TYPE=local rclone …`: remotes defined for
            // this command (review s16 P3).
            .filter(|(n, _)| command_scoped(n))
            .map(|(n, v)| (n.clone(), env.vars.insert(n.clone(), v.clone())))
            .collect();
        let names = assignments.into_iter().map(|(n, _)| n).collect();
        let outer = std::mem::replace(&mut self.command_vars, names);
        let out = self.exec(argv, env, depth, &stdin, false);
        self.command_vars = outer;
        for (n, before) in held.into_iter().rev() {
            match before {
                Some(v) => env.vars.insert(n, v),
                None => env.vars.remove(&n),
            };
        }
        if !self.done() {
            self.redirect_writes(&owned, env, depth, &out);
            self.note_redirect_writes(&owned, env, depth, &out);
        }
        if out.is_tainted() {
            // `curl … > x.sh`: remember the file for a later `bash x.sh`.
            for r in &owned {
                if let ast::IoRedirect::File(
                    fd,
                    ast::IoFileRedirectKind::Write
                    | ast::IoFileRedirectKind::Append
                    | ast::IoFileRedirectKind::Clobber,
                    ast::IoFileRedirectTarget::Filename(w),
                ) = r
                    && fd.is_none_or(|f| f == 1)
                    && !w.value.contains(['$', '`'])
                {
                    for f in self.expand_word(&w.value, env, depth) {
                        if let Some(t) = f.static_text() {
                            env.taint_file(&t, &out);
                        }
                    }
                }
            }
        }
        out
    }

    /// Judge the files a command's redirections write (guard rails,
    /// dotfiles, system files); `out` is what the command writes to its
    /// standard output.
    fn redirect_writes(
        &mut self,
        redirects: &[ast::IoRedirect],
        env: &mut Env,
        depth: u32,
        out: &Output,
    ) {
        use ast::{IoFileRedirectKind as K, IoFileRedirectTarget as T, IoRedirect as R};
        for r in redirects {
            let (fd, truncates, w) = match r {
                R::File(fd, kind @ (K::Write | K::Append | K::Clobber), T::Filename(w)) => {
                    (*fd, !matches!(kind, K::Append), w)
                }
                // `N<>F` opens F for writing too; what the command writes
                // there overwrites it in place (review s10 H21).
                R::File(fd, K::ReadAndWrite, T::Filename(w)) => (Some(fd.unwrap_or(0)), false, w),
                R::OutputAndError(w, append) => (Some(1), !append, w),
                // `>& WORD` / `N>& WORD`: bash duplicates a descriptor
                // when WORD expands to a number or `-` (`N-`), and
                // otherwise opens WORD as `&> WORD` does (review s22 V6).
                R::File(fd, K::DuplicateOutput, T::Duplicate(w)) => (*fd, true, w),
                _ => continue,
            };
            let content = if fd.is_none_or(|f| f == 1) {
                out.clone()
            } else {
                Output::Unknown
            };
            for f in self.expand_word(&w.value, env, depth) {
                if is_descriptor_word(&f) {
                    continue;
                }
                self.check_write(&f, env, &content, "a redirection", truncates, depth);
            }
        }
    }

    /// Remember the files a command's output redirections write (see
    /// [`Env::written`]): `out` for standard output, unknown content for
    /// another descriptor.
    fn note_redirect_writes(
        &mut self,
        redirects: &[ast::IoRedirect],
        env: &mut Env,
        depth: u32,
        out: &Output,
    ) {
        use ast::{IoFileRedirectKind as K, IoFileRedirectTarget as T, IoRedirect as R};
        for r in redirects {
            let (fd, append, w) = match r {
                R::File(
                    fd,
                    kind @ (K::Write | K::Append | K::Clobber | K::ReadAndWrite),
                    T::Filename(w),
                ) => (*fd, matches!(kind, K::Append | K::ReadAndWrite), w),
                R::OutputAndError(w, append) => (Some(1), *append, w),
                R::File(fd, K::DuplicateOutput, T::Duplicate(w)) => (*fd, false, w),
                _ => continue,
            };
            let content = if fd.is_none_or(|f| f == 1) {
                out.clone()
            } else {
                Output::Unknown
            };
            for f in self.expand_word(&w.value, env, depth) {
                if is_descriptor_word(&f) {
                    continue;
                }
                if let Some(t) = f.static_text() {
                    env.note_written(&t, &content, append);
                }
            }
        }
    }

    /// A command word that is a path to a file written or made earlier in
    /// the call (review-s9 G11, G2): `echo 'rm -rf ~' > r.sh; ./r.sh` runs
    /// the text written (a `#!` line naming another interpreter is read as
    /// that interpreter's code), `cp /bin/rm y; ./y -rf ~` runs what was
    /// copied, and a file whose content is not known escalates.
    pub(crate) fn run_written_file(
        &mut self,
        argv: &mut [Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) -> WrittenRun {
        let Some(path) = argv.first().and_then(Field::static_text) else {
            return WrittenRun::No;
        };
        let path = if path.contains('/') {
            path
        } else {
            // `PATH=/tmp/s9:$PATH; y -rf ~`: a directory the call put on
            // the search path, as far as it is written out.
            let dirs = env.vars.get("PATH").map(Field::text).unwrap_or_default();
            let found = dirs
                .split(':')
                .filter(|d| !d.is_empty() && !d.contains(['$', '`']))
                .map(|d| format!("{}/{path}", d.trim_end_matches('/')))
                .find(|p| env.written.contains_key(&env.file_key(p)));
            match found {
                Some(p) => p,
                None => return WrittenRun::No,
            }
        };
        match env.written.get(&env.file_key(&path)).cloned() {
            None => WrittenRun::No,
            Some(Written::Copy(program)) => {
                argv[0] = Field::lit(program);
                WrittenRun::Renamed
            }
            Some(Written::Text(text)) => {
                let interpreter = match text.strip_prefix("#!") {
                    Some(rest) => {
                        let line = rest.lines().next().unwrap_or("");
                        match self.shebang(line, argv, env, depth) {
                            Some(i) => Some(i),
                            None => return WrittenRun::Ran(Output::Unknown),
                        }
                    }
                    None => None,
                };
                match interpreter {
                    Some(i) if !i.is_empty() && !crate::commands::is_shell(&i) => {
                        self.embedded_commands(&i, &text, env, depth);
                        WrittenRun::Ran(Output::Unknown)
                    }
                    _ => {
                        let mut e = env.clone();
                        WrittenRun::Ran(self.script(&text, &mut e, depth + 1, stdin))
                    }
                }
            }
            Some(Written::Unknown) => {
                self.report_unknown_written(&path);
                WrittenRun::Ran(Output::Unknown)
            }
        }
    }

    /// The `#!` line `line` (after `#!`) of a file written in this call
    /// and run as `argv`, read as the kernel reads it (binfmt_script: the
    /// interpreter path, then the rest of the line, trimmed, as one
    /// argument): the command `INTERPRETER [ARG] FILE ARGS…` is judged
    /// through the ordinary dispatch, so `#!/usr/bin/env -S rm -rf ~` is
    /// `env -S 'rm -rf ~' FILE` (review s19 S15). Returns the program
    /// that reads the file's text (a shell, an interpreter: its body is
    /// judged as that program's code), or `None` when the call is held
    /// instead: an interpreter the check does not know, an `env` option
    /// it cannot place, a written file as the interpreter.
    fn shebang(&mut self, line: &str, argv: &[Field], env: &Env, depth: u32) -> Option<String> {
        let line = line.trim_matches([' ', '\t']);
        let (path, arg) = match line.find([' ', '\t']) {
            Some(k) => (&line[..k], line[k..].trim_matches([' ', '\t'])),
            None => (line, ""),
        };
        let hold = |this: &mut Self, why: &str| {
            this.report(
                false,
                "shell.eval-dynamic",
                format!(
                    "`{}` runs a file written earlier in the same command whose `#!{line}` line {why}. A person must \
                     approve it as it is.",
                    argv[0].text()
                ),
            );
            None
        };
        if depth > self.opts.max_depth || env.written.contains_key(&env.file_key(path)) {
            return hold(self, "names another written file as its interpreter");
        }
        let name = crate::commands::base_name(path);
        // The program that reads the file: `env`'s command, else the
        // interpreter itself.
        let program = if name == "env" {
            let words = if let Some(split) = arg
                .strip_prefix("-S")
                .or_else(|| arg.strip_prefix("--split-string="))
                .or_else(|| arg.strip_prefix("--split-string"))
            {
                match crate::runopts::env_split_string(split) {
                    Ok(w) => w,
                    Err(why) => return hold(self, &format!("gives `env -S` {why}")),
                }
            } else if arg.starts_with('-') {
                return hold(self, "gives `env` an option the check does not read");
            } else {
                vec![arg.to_string()]
            };
            words
                .into_iter()
                .find(|w| !w.contains('=') && !w.starts_with('-'))
                .map(|w| crate::commands::base_name(&w))
                .unwrap_or_default()
        } else {
            name.clone()
        };
        let known =
            crate::commands::is_shell(&program) || crate::commands::is_interpreter(&program);
        let mut words = vec![Field::lit(path)];
        if !arg.is_empty() {
            words.push(Field::lit(arg));
        }
        words.extend(argv.iter().cloned());
        let mut e = env.clone();
        self.exec(words, &mut e, depth + 1, &Output::Unknown, false);
        if !known {
            return hold(self, "names an interpreter the check does not know");
        }
        Some(program)
    }

    /// What a program lookup prints (`which NAME`, `command -v NAME`,
    /// `type -P NAME`): the path of each program named, taken as
    /// `/usr/bin/NAME` (review-s9 G2: `cp "$(which rm)" y; ./y -rf ~`,
    /// `$(command -v rm) -rf ~`). `None` for any other command.
    pub(crate) fn program_lookup(&self, argv: &[Field]) -> Option<Output> {
        let name = crate::commands::base_name(&argv.first()?.static_text()?);
        let args = &argv[1..];
        let opts: String = args
            .iter()
            .map(Field::text)
            .take_while(|a| a.starts_with('-') && a != "--")
            .collect();
        let applies = match name.as_str() {
            "which" => true,
            "command" => opts.contains(['v', 'V']),
            "type" => opts.contains(['p', 'P']),
            _ => false,
        };
        if !applies {
            return None;
        }
        let mut out = String::new();
        for a in args.iter().skip_while(|a| a.text().starts_with('-')) {
            let t = a.static_text()?;
            if t == "--" {
                continue;
            }
            if t.contains('/') {
                out.push_str(&t);
            } else {
                out.push_str("/usr/bin/");
                out.push_str(&t);
            }
            out.push('\n');
        }
        Some(Output::Static(out))
    }

    /// A shell or interpreter reading a program file (`bash FILE`, `sh
    /// FILE`, `source FILE`, `. FILE`, `bash --rcfile FILE`, `python3
    /// FILE`) written or made earlier in the call: its text is judged as
    /// the script, or as the interpreter's code (review-s9 G11); unknown
    /// content escalates. Returns whether the file was one.
    pub(crate) fn run_written_script(
        &mut self,
        name: &str,
        file: &Field,
        env: &Env,
        depth: u32,
    ) -> bool {
        let Some(path) = file.static_text() else {
            return false;
        };
        let mut key = env.file_key(&path);
        for _ in 0..8 {
            match env.written.get(&key).cloned() {
                None => return false,
                Some(Written::Copy(p)) => key = env.file_key(&p),
                Some(Written::Text(text)) => {
                    if crate::commands::is_shell(name) || matches!(name, "source" | ".") {
                        let mut e = env.clone();
                        self.script(&text, &mut e, depth + 1, &Output::Unknown);
                    } else {
                        self.embedded_commands(name, &text, env, depth);
                    }
                    return true;
                }
                Some(Written::Unknown) => {
                    self.report_unknown_written(&format!("{name} {path}"));
                    return true;
                }
            }
        }
        false
    }

    fn report_unknown_written(&mut self, what: &str) {
        self.report(
            false,
            "shell.eval-dynamic",
            format!(
                "`{what}` runs a file written earlier in the same command with content only known at run time, \
                 so what it runs cannot be checked. Run the commands directly; a person must approve it as it is."
            ),
        );
    }

    /// Files made from others (`cp SRC DST`, `install`, `ln [-s]`, `mv`)
    /// hold what their source held (review-s9 G2, G11): a source written
    /// earlier in the call passes its entry on; any other source is a
    /// program or file copied, run as itself by the new path. Also
    /// `shopt -s cdable_vars` (review-s9 G4).
    fn learn_made_files(&mut self, name: &str, args: &[Field], env: &mut Env) {
        if name == "shopt"
            && args.iter().any(|a| a.text() == "-s")
            && args
                .iter()
                .any(|a| a.text() == "cdable_vars" || a.is_dynamic())
        {
            env.cdable_vars = true;
            return;
        }
        if name == "dd" {
            // `dd if=/bin/rm of=y`: a copy, as `cp` makes.
            let value = |k: &str| {
                args.iter()
                    .rev()
                    .find_map(|a| a.static_text()?.strip_prefix(k).map(str::to_string))
            };
            if let Some(dest) = value("of=") {
                let what = match value("if=") {
                    Some(src) => match env.written.get(&env.file_key(&src)) {
                        Some(w) => w.clone(),
                        None => Written::Copy(env.file_key(&src)),
                    },
                    None => Written::Unknown,
                };
                if !dest.starts_with("/dev/") {
                    let key = env.file_key(&dest);
                    env.written.insert(key, what);
                }
            }
            return;
        }
        if !matches!(name, "cp" | "install" | "ln" | "mv") {
            return;
        }
        let Some(place) = crate::removers::placement(name, args) else {
            return;
        };
        let mut made = Vec::new();
        for source in &place.sources {
            let what = match source.static_text() {
                Some(t) => match env.written.get(&env.file_key(&t)) {
                    Some(w) => w.clone(),
                    None => match self.plain_abs(source, env) {
                        Some(abs) => Written::Copy(abs),
                        None if !t.contains('/') => Written::Copy(t.clone()),
                        None => Written::Unknown,
                    },
                },
                None => match self.plain_abs(source, env) {
                    Some(abs) => Written::Copy(abs),
                    None => Written::Unknown,
                },
            };
            if !place.named_dir {
                made.push((place.dest.clone(), what.clone()));
            }
            if let Some(inside) = crate::removers::inside(&place.dest, source) {
                made.push((inside, what));
            }
        }
        for (dest, what) in made {
            if let Some(t) = dest.static_text() {
                if t.is_empty() || t.starts_with("/dev/") {
                    continue;
                }
                let key = env.file_key(&t);
                env.written.insert(key, what);
            }
        }
    }

    /// `make` (or `make -f FILE`, `-C DIR`) reading a makefile written
    /// earlier in the call (review-s9 G11: `printf 'x:\n\trm -rf ~\n' >
    /// Makefile; make`) or from its standard input (`make -f - <<< …`,
    /// `-f /dev/stdin`, review s9 G3): each recipe line (tab-led) is judged
    /// as a shell command; a makefile whose content is not known escalates.
    pub(crate) fn run_written_makefile(
        &mut self,
        name: &str,
        args: &[Field],
        env: &Env,
        depth: u32,
        stdin: &Output,
    ) {
        let mut files: Vec<String> = Vec::new();
        let mut dir = String::new();
        let mut i = 0;
        while let Some(a) = args.get(i) {
            let t = a.text();
            let next = args.get(i + 1).map(Field::text);
            if let Some(v) = t.strip_prefix("--file=").or(t.strip_prefix("--makefile=")) {
                files.push(v.to_string());
            } else if let Some(v) = t.strip_prefix("--directory=") {
                dir = format!("{v}/");
            } else if matches!(t.as_str(), "-f" | "--file" | "--makefile") {
                files.extend(next);
                i += 1;
            } else if matches!(t.as_str(), "-C" | "--directory") {
                dir = next.map(|d| format!("{d}/")).unwrap_or_default();
                i += 1;
            } else if let Some(v) = t
                .strip_prefix("-f")
                .filter(|v| !v.is_empty() && !t.starts_with("--"))
            {
                files.push(v.to_string());
            } else if let Some(v) = t
                .strip_prefix("-C")
                .filter(|v| !v.is_empty() && !t.starts_with("--"))
            {
                dir = format!("{v}/");
            }
            i += 1;
        }
        if files.is_empty() {
            files = ["GNUmakefile", "makefile", "Makefile"]
                .iter()
                .map(|f| f.to_string())
                .collect();
        }
        for f in files {
            let from_stdin = matches!(
                f.as_str(),
                "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0"
            );
            let path = if f.starts_with('/') {
                f
            } else {
                format!("{dir}{f}")
            };
            let written = if from_stdin {
                match stdin {
                    Output::Static(text) => Some(Written::Text(text.clone())),
                    _ => Some(Written::Unknown),
                }
            } else {
                env.written.get(&env.file_key(&path)).cloned()
            };
            match written {
                Some(Written::Text(text)) => {
                    for line in text.lines().filter_map(|l| l.strip_prefix('\t')) {
                        let line = line.trim_start_matches(['@', '-', '+', ' ', '\t']);
                        let mut e = env.clone();
                        self.script(line, &mut e, depth + 1, &Output::Unknown);
                        if self.done() {
                            return;
                        }
                    }
                }
                Some(_) => self.report_unknown_written(&format!("{name} ({path})")),
                None => {}
            }
        }
    }

    /// Whether `cd TARGET` may search somewhere other than the working
    /// directory (review-s9 G4): `CDPATH` was set in the command (with a
    /// directory other than `.`), or `shopt -s cdable_vars` is on and the
    /// target is a variable's name. Targets starting with `/`, `./`, `../`
    /// are never searched. A `CDPATH` inherited from the environment is
    /// not seen here.
    pub(crate) fn cd_is_searched(&self, target: &str, env: &Env) -> bool {
        if target.starts_with('/')
            || target == "."
            || target == ".."
            || target.starts_with("./")
            || target.starts_with("../")
        {
            return false;
        }
        let first = target.split('/').next().unwrap_or("");
        if env.cdable_vars
            && !first.is_empty()
            && !first.starts_with(|c: char| c.is_ascii_digit())
            && first.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return true;
        }
        match env.vars.get("CDPATH") {
            None => false,
            Some(v) => match v.static_text() {
                Some(text) => {
                    let cwd = match &env.cwd {
                        Cwd::Known(c) => Some(c.as_str()),
                        _ => None,
                    };
                    text.split(':').any(|d| {
                        !(d.is_empty()
                            || d == "."
                            || d == "./"
                            || cwd.is_some_and(|c| paths::normalize_abs(d) == c))
                    })
                }
                None => true,
            },
        }
    }

    /// The shell text a simple command runs when its command word is a
    /// rebound name ([`Env::names`]): the alias's value, or the hashed
    /// program, in place of the word (the rest as written). `None` when
    /// it is not one; a name bound to an unknown value is reported.
    fn rebound(&mut self, sc: &ast::SimpleCommand, env: &mut Env, depth: u32) -> Option<Rebound> {
        use ast::CommandPrefixOrSuffixItem as I;
        if env.names.is_empty()
            || sc
                .prefix
                .iter()
                .flat_map(|p| p.0.iter())
                .any(|i| matches!(i, I::Word(_) | I::ProcessSubstitution(..)))
        {
            return None;
        }
        let word = sc.word_or_name.as_ref()?;
        let raw = word.value.as_str();
        // Quoting the word stops alias expansion, not the hash table.
        let plain = raw.replace(['\'', '"', '\\'], "");
        if plain.contains(['$', '`', '/']) {
            return None;
        }
        let unquoted = plain == raw;
        let mut head = match env.names.get(&plain) {
            Some(Binding::Alias(v)) if unquoted => v.clone(),
            Some(Binding::Program(path)) => {
                return Some(Rebound::Words(vec![Field::lit(path.clone())], 1));
            }
            Some(Binding::Unknown) => {
                self.report_unknown_binding(&plain);
                return None;
            }
            _ => return None,
        };
        let items: Vec<&I> = sc.suffix.iter().flat_map(|s| s.0.iter()).collect();
        let mut suffix: Vec<String> = items.iter().map(|i| i.to_string()).collect();
        // `alias s='sudo '`: the next word is expanded as an alias too.
        let mut seen = vec![plain.clone()];
        while head.ends_with([' ', '\t']) && !suffix.is_empty() && seen.len() < 16 {
            let next = suffix[0].clone();
            match env.names.get(&next) {
                Some(Binding::Alias(v)) if !seen.contains(&next) => {
                    head.push_str(v);
                    suffix.remove(0);
                    seen.push(next);
                }
                Some(Binding::Unknown) => {
                    self.report_unknown_binding(&next);
                    break;
                }
                _ => break,
            }
        }
        // Plain words (`rm -rf`, `sudo `, `ls -la ~`): they replace the
        // command word (and the words expanded with it) in place, each
        // expanded as written; the rest of the command stays as parsed
        // (here-documents, redirections).
        let consumed = seen.len() - 1;
        let plain = !head.contains([
            '\'', '"', '\\', ';', '&', '|', '<', '>', '(', ')', '`', '\n', '{', '}', '#',
        ]);
        let words_only = items[..consumed.min(items.len())]
            .iter()
            .all(|i| matches!(i, I::Word(_)));
        if plain && words_only {
            let words = head
                .split_whitespace()
                .flat_map(|w| self.expand_word(w, env, depth))
                .collect();
            return Some(Rebound::Words(words, 1 + consumed));
        }
        let mut text = String::new();
        if let Some(prefix) = &sc.prefix {
            text.push_str(&prefix.to_string());
            text.push(' ');
        }
        text.push_str(&head);
        for s in suffix {
            text.push(' ');
            text.push_str(&s);
        }
        seen.retain(|n| matches!(env.names.get(n), Some(Binding::Alias(_))));
        Some(Rebound::Script(text, seen))
    }

    /// A command word names a binding whose value is not known.
    fn report_unknown_binding(&mut self, name: &str) {
        self.report(
            false,
            "shell.eval-dynamic",
            format!(
                "`{name}` was rebound earlier in the command (`alias`, `hash -p`, `BASH_CMDS`, `BASH_ALIASES`) \
                 to something only known at run time, or only on some paths, so what it runs cannot be checked. \
                 Write the command out; a person must approve it as it is."
            ),
        );
    }

    /// Remember that `name` now runs `value` (`hash -p`, `BASH_CMDS[…]=`:
    /// a program; `alias`, `BASH_ALIASES[…]=`: shell text). A name or a
    /// value only known at run time is reported instead.
    pub(crate) fn bind_name(
        &mut self,
        env: &mut Env,
        name: &Field,
        value: &Field,
        alias: bool,
        how: &str,
    ) {
        let (Some(n), Some(v)) = (name.static_text(), value.static_text()) else {
            self.report(
                false,
                "shell.eval-dynamic",
                format!(
                    "`{how}` rebinds a command name to a value only known at run time (`{}` = `{}`), so what a \
                     later command runs cannot be checked. Write the command out; a person must approve it as it is.",
                    name.text(),
                    value.text()
                ),
            );
            return;
        };
        let n = n.trim_matches(['\'', '"']).to_string();
        if n.is_empty() {
            return;
        }
        let binding = if alias {
            Binding::Alias(v)
        } else {
            Binding::Program(v)
        };
        env.names.insert(n, binding);
    }

    fn assignment(
        &mut self,
        a: &ast::Assignment,
        env: &mut Env,
        depth: u32,
    ) -> Option<(String, Field)> {
        // `BASH_CMDS[x]=/bin/rm` is `hash -p /bin/rm x`; `BASH_ALIASES[x]=rm`
        // is `alias x=rm` (review-s8 F2).
        let table = match &a.name {
            ast::AssignmentName::VariableName(n) | ast::AssignmentName::ArrayElementName(n, _)
                if matches!(n.as_str(), "BASH_CMDS" | "BASH_ALIASES") =>
            {
                Some((n.as_str(), n == "BASH_ALIASES"))
            }
            _ => None,
        };
        let value = match &a.value {
            ast::AssignmentValue::Scalar(w) => {
                let value = self.expand_word_unsplit(&w.value, env, depth);
                if let ast::AssignmentName::VariableName(n) = &a.name
                    && env.ints.contains(n)
                {
                    let e = env.clone();
                    let what = format!("the value given to `{n}` (declared `-i`)");
                    self.prove_arithmetic(&value, &e, &what);
                    // `x+=V` evaluates `x + (V)`: x's value too.
                    if a.append {
                        self.prove_arithmetic(&Field::lit(n.as_str()), &e, &what);
                    }
                }
                if let (Some((table, alias)), ast::AssignmentName::ArrayElementName(_, idx)) =
                    (table, &a.name)
                {
                    let key = self.expand_word_unsplit(idx, env, depth);
                    let value = if a.append {
                        dyn_field(&w.value)
                    } else {
                        value.clone()
                    };
                    self.bind_name(env, &key, &value, alias, &format!("{table}[…]="));
                } else if let ast::AssignmentName::ArrayElementName(n, idx) = &a.name {
                    self.subscript(n, idx, env, depth);
                }
                value
            }
            ast::AssignmentValue::Array(items) => {
                for (k, v) in items {
                    if let (None, Some(k), ast::AssignmentName::VariableName(n)) =
                        (table, k, &a.name)
                        && !env.assoc.contains(n)
                    {
                        self.arithmetic_text(
                            &k.value,
                            env,
                            depth,
                            &format!("the subscript of `{n}=([…]=…)`"),
                        );
                    }
                    let key = k
                        .as_ref()
                        .map(|k| self.expand_word_unsplit(&k.value, env, depth));
                    let value = self.expand_word_unsplit(&v.value, env, depth);
                    if let (Some((table, alias)), Some(key)) = (table, key) {
                        self.bind_name(env, &key, &value, alias, &format!("{table}=(…)"));
                    }
                }
                // Not followed: `$x` and `${x[@]}` are unknown values
                // (a command word made of them is judged as unknown).
                match &a.name {
                    ast::AssignmentName::VariableName(n)
                    | ast::AssignmentName::ArrayElementName(n, _) => dyn_field(&format!("${n}")),
                }
            }
        };
        match &a.name {
            ast::AssignmentName::VariableName(n) if !a.append => Some((n.clone(), value)),
            ast::AssignmentName::VariableName(n) => Some((n.clone(), dyn_field(&format!("${n}")))),
            ast::AssignmentName::ArrayElementName(n, _) => {
                Some((n.clone(), dyn_field(&format!("${n}"))))
            }
        }
    }

    /// The subscript of an assignment word `NAME[SUB]=…`: a key of an
    /// associative array (expanded), else arithmetic (review s22 V1).
    fn subscript(&mut self, name: &str, idx: &str, env: &mut Env, depth: u32) {
        if env.assoc.contains(name) {
            self.scan_substitutions(idx, env, depth);
        } else {
            self.arithmetic_text(idx, env, depth, &format!("the subscript of `{name}[…]=`"));
        }
    }

    fn process_substitution(
        &mut self,
        kind: &ast::ProcessSubstitutionKind,
        sub: &ast::SubshellCommand,
        env: &mut Env,
        depth: u32,
    ) -> Field {
        let mut e = env.clone();
        let out = self.subshell_output(&sub.list, &mut e, depth + 1);
        let raw = match kind {
            ast::ProcessSubstitutionKind::Read => "<(…)",
            ast::ProcessSubstitutionKind::Write => ">(…)",
        };
        Field {
            segs: vec![Seg::Dyn {
                raw: raw.to_string(),
                out,
                quoted: false,
            }],
        }
    }

    /// Analyse the command substitutions in `text` (arithmetic, parameter
    /// defaults), ignoring its value.
    pub(crate) fn scan_substitutions(&mut self, text: &str, env: &mut Env, depth: u32) {
        if !(text.contains("$(") || text.contains('`') || text.contains("${")) {
            return;
        }
        let opts = syntax::parser_options();
        if let Ok(pieces) = brush_parser::word::parse(text, &opts) {
            let mut b = FieldBuilder::default();
            self.expand_pieces(&pieces, text, true, &mut b, env, depth);
        }
    }

    /// Shell arithmetic `expr` ran: the variables it assigns hold its
    /// result, an integer ([`arithmetic_assigns`]).
    pub(crate) fn arith_assign(&mut self, expr: &str, env: &mut Env) {
        arithmetic_assigns(expr, env);
        self.note_integer(&format!("$(({expr}))"));
    }

    /// Expand arithmetic text as one field, without splitting.
    pub(crate) fn expand_arith_word(&mut self, raw: &str, env: &mut Env, depth: u32) -> Field {
        self.expand_word_unsplit(raw, env, depth)
    }

    /// What bash evaluates while it expands `${…}` (review s22 V1): the
    /// subscript of an indexed array and a substring's offset and length
    /// (arithmetic), the value of `x` in `${!x}` (a variable name), the
    /// value `${x@P}` expands as a prompt.
    fn parameter_evaluations(&mut self, expr: &ParameterExpr, env: &mut Env, depth: u32) {
        use ParameterExpr as P;
        let (parameter, indirect) = match expr {
            P::Parameter {
                parameter,
                indirect,
            }
            | P::UseDefaultValues {
                parameter,
                indirect,
                ..
            }
            | P::AssignDefaultValues {
                parameter,
                indirect,
                ..
            }
            | P::IndicateErrorIfNullOrUnset {
                parameter,
                indirect,
                ..
            }
            | P::UseAlternativeValue {
                parameter,
                indirect,
                ..
            }
            | P::ParameterLength {
                parameter,
                indirect,
            }
            | P::RemoveSmallestSuffixPattern {
                parameter,
                indirect,
                ..
            }
            | P::RemoveLargestSuffixPattern {
                parameter,
                indirect,
                ..
            }
            | P::RemoveSmallestPrefixPattern {
                parameter,
                indirect,
                ..
            }
            | P::RemoveLargestPrefixPattern {
                parameter,
                indirect,
                ..
            }
            | P::Substring {
                parameter,
                indirect,
                ..
            }
            | P::Transform {
                parameter,
                indirect,
                ..
            }
            | P::UppercaseFirstChar {
                parameter,
                indirect,
                ..
            }
            | P::UppercasePattern {
                parameter,
                indirect,
                ..
            }
            | P::LowercaseFirstChar {
                parameter,
                indirect,
                ..
            }
            | P::LowercasePattern {
                parameter,
                indirect,
                ..
            }
            | P::ReplaceSubstring {
                parameter,
                indirect,
                ..
            } => (parameter, *indirect),
            P::VariableNames { .. } | P::MemberKeys { .. } => return,
        };
        if let Parameter::NamedWithIndex { name, index } = parameter {
            if env.assoc.contains(name) || matches!(name.as_str(), "BASH_CMDS" | "BASH_ALIASES") {
                self.scan_substitutions(index, env, depth);
            } else {
                self.arithmetic_text(index, env, depth, &format!("the subscript of `{name}[…]`"));
            }
        }
        if indirect {
            let value = match parameter {
                Parameter::Named(n) => env.vars.get(n).cloned(),
                _ => None,
            }
            .unwrap_or_else(|| dyn_field(&format!("{parameter}")));
            let e = env.clone();
            self.prove_name(&value, &e, "the variable `${!…}` names");
        }
        if let P::Substring { offset, length, .. } = expr {
            self.arithmetic_text(&offset.value, env, depth, "the offset of `${…:…}`");
            if let Some(l) = length {
                self.arithmetic_text(&l.value, env, depth, "the length of `${…:…}`");
            }
        }
        if let P::Transform {
            op: brush_parser::word::ParameterTransformOp::PromptExpand,
            ..
        } = expr
        {
            let plain = match parameter {
                Parameter::Named(n) => self
                    .known_value(n, env)
                    .is_some_and(|v| !v.contains(['$', '`', '\\'])),
                _ => false,
            };
            if !plain {
                self.report(
                    false,
                    "shell.eval-dynamic",
                    format!(
                        "`${{…@P}}` expands the value of `{parameter}` as a prompt string, which runs the command \
                         substitutions in it, and that value is not proven plain text. A person must approve it as it is."
                    ),
                );
            }
        }
    }

    // ----------------------------------------------------------------
    // Word expansion
    // ----------------------------------------------------------------

    /// Expand one word into the fields the command receives: brace
    /// expansion, quote removal, known variables, command substitutions
    /// (analysed), field splitting.
    pub fn expand_word(&mut self, raw: &str, env: &mut Env, depth: u32) -> Vec<Field> {
        if !self.step() {
            return vec![dyn_field(raw)];
        }
        let words = if raw.contains('{') {
            match self.brace_words(raw) {
                Some(w) => w,
                None => return vec![dyn_field(raw)],
            }
        } else {
            vec![raw.to_string()]
        };
        let mut out = Vec::new();
        for w in &words {
            out.extend(self.expand_one(w, env, depth, false));
        }
        out
    }

    /// Expand a word without field splitting (assignment values).
    fn expand_word_unsplit(&mut self, raw: &str, env: &mut Env, depth: u32) -> Field {
        let fields = self.expand_one(raw, env, depth, true);
        let mut f = Field::default();
        for (i, field) in fields.into_iter().enumerate() {
            if i > 0 {
                f.segs.push(Seg::Lit {
                    text: " ".into(),
                    quoted: true,
                });
            }
            f.segs.extend(field.segs);
        }
        f
    }

    fn brace_words(&mut self, raw: &str) -> Option<Vec<String>> {
        let unquoted = approx_unquoted_braces(raw);
        if unquoted == 0 {
            return Some(vec![raw.to_string()]);
        }
        if unquoted > syntax::MAX_BRACES
            || raw.matches('{').count() > 4 * syntax::MAX_BRACES
            || syntax::unmatched_open_braces(raw) > syntax::MAX_UNMATCHED_BRACES
        {
            self.report(
                false,
                "shell.too-deep",
                "A word has too many `{` braces to expand safely; a person must review the command.",
            );
            return None;
        }
        match syntax::expand_braces(raw) {
            Some(w) => Some(w),
            None => {
                self.report(
                    false,
                    "shell.too-deep",
                    format!(
                        "A brace expansion produces more than {} words; a person must review the command.",
                        syntax::MAX_BRACE_WORDS
                    ),
                );
                None
            }
        }
    }

    fn expand_one(&mut self, raw: &str, env: &mut Env, depth: u32, no_split: bool) -> Vec<Field> {
        if !raw.is_empty() && !raw.contains(['$', '`', '\'', '"', '\\', '~']) {
            // Plain text: nothing to expand (the common case).
            return vec![Field {
                segs: vec![Seg::Lit {
                    text: raw.to_string(),
                    quoted: false,
                }],
            }];
        }
        let opts = syntax::parser_options();
        match brush_parser::word::parse(raw, &opts) {
            Ok(pieces) => {
                let mut b = FieldBuilder::default();
                if no_split {
                    b.lit("", true);
                }
                self.expand_pieces_split(
                    &pieces,
                    raw,
                    &mut b,
                    env,
                    depth,
                    Splitting {
                        quoted: false,
                        no_split,
                    },
                );
                b.finish()
            }
            Err(_) => vec![dyn_field(raw)],
        }
    }

    pub(crate) fn expand_pieces(
        &mut self,
        pieces: &[WordPieceWithSource],
        src: &str,
        quoted: bool,
        b: &mut FieldBuilder,
        env: &mut Env,
        depth: u32,
    ) {
        self.expand_pieces_split(
            pieces,
            src,
            b,
            env,
            depth,
            Splitting {
                quoted,
                no_split: false,
            },
        );
    }

    fn expand_pieces_split(
        &mut self,
        pieces: &[WordPieceWithSource],
        src: &str,
        b: &mut FieldBuilder,
        env: &mut Env,
        depth: u32,
        splitting: Splitting,
    ) {
        let Splitting { quoted, no_split } = splitting;
        let ifs = if no_split { String::new() } else { env.ifs() };
        for p in pieces {
            if self.done() {
                return;
            }
            let raw = src.get(p.start_index..p.end_index).unwrap_or("$?");
            match &p.piece {
                WordPiece::Text(t) => b.lit(t, quoted),
                WordPiece::SingleQuotedText(t) => b.lit(t, true),
                WordPiece::AnsiCQuotedText(t) => b.lit(&syntax::decode_escapes(t, true).0, true),
                WordPiece::DoubleQuotedSequence(inner)
                | WordPiece::GettextDoubleQuotedSequence(inner) => {
                    b.lit("", true);
                    self.expand_pieces_split(
                        inner,
                        src,
                        b,
                        env,
                        depth,
                        Splitting {
                            quoted: true,
                            no_split,
                        },
                    );
                }
                WordPiece::EscapeSequence(s) => {
                    let c = s.strip_prefix('\\').unwrap_or(s);
                    if c != "\n" {
                        b.lit(c, true);
                    }
                }
                WordPiece::TildeExpansion(t) => match t {
                    TildeExpr::Home => match &self.home {
                        Some(h) => b.lit(&h.clone(), true),
                        None => b.seg(Seg::Home(None)),
                    },
                    TildeExpr::UserHome(u) => b.seg(Seg::Home(Some(u.clone()))),
                    TildeExpr::WorkingDir => match &env.cwd {
                        Cwd::Known(c) => b.lit(&c.clone(), true),
                        _ => b.seg(dyn_seg("~+", quoted)),
                    },
                    _ => b.seg(dyn_seg(raw, quoted)),
                },
                WordPiece::ParameterExpansion(expr) => {
                    self.parameter(expr, raw, b, env, depth, Fielding { quoted, ifs: &ifs });
                }
                WordPiece::CommandSubstitution(s) | WordPiece::BackquotedCommandSubstitution(s) => {
                    let mut sub = env.clone();
                    // `$(< FILE)`: bash expands it to FILE's contents, as
                    // `$(cat FILE)` (review s17 Q12).
                    let cat = bare_input_redirect(s).map(|f| format!("cat -- {f}"));
                    let s = cat.as_deref().unwrap_or(s);
                    let flows = (self.pid_in, self.pid_out, self.pid_out_stage);
                    self.pipeline_pids = None;
                    let out = self.script(s, &mut sub, depth + 1, &Output::Unknown);
                    // The whole output is a narrow lookup's pids only when
                    // the substitution is one pipeline (review s21 U9).
                    // The same text walked again (after `cd`) is judged
                    // again: the last walk counts.
                    if self.pipeline_pids.is_some_and(|f| f.proven())
                        && crate::syntax::one_pipeline(s)
                    {
                        self.narrow_lookups.insert(raw.to_string());
                    } else {
                        self.narrow_lookups.remove(raw);
                    }
                    (self.pid_in, self.pid_out, self.pid_out_stage) = flows;
                    match out {
                        Output::Static(text) => b.value(text.trim_end_matches('\n'), quoted, &ifs),
                        out => b.seg(Seg::Dyn {
                            raw: raw.to_string(),
                            out,
                            quoted,
                        }),
                    }
                }
                WordPiece::ArithmeticExpression(e) => {
                    self.arithmetic_text(&e.value, env, depth, "the arithmetic expansion");
                    self.arith_assign(&e.value, env);
                    self.note_integer(raw);
                    b.seg(dyn_seg(raw, quoted));
                }
            }
        }
    }

    fn parameter(
        &mut self,
        expr: &ParameterExpr,
        raw: &str,
        b: &mut FieldBuilder,
        env: &mut Env,
        depth: u32,
        fielding: Fielding<'_>,
    ) {
        let Fielding { quoted, ifs } = fielding;
        use ParameterExpr as P;
        self.parameter_evaluations(expr, env, depth);
        // toolvet's own tokens and keys, expanded anywhere (review s12
        // L2); a value the command set itself is not a read.
        if let Some(name) = expanded_name(raw)
            && crate::selfstate::is_toolvet_secret_variable(name)
            && !env.vars.contains_key(name)
        {
            self.toolvet_secret_read(&format!("`{raw}`"), name);
        }
        match expr {
            P::Parameter {
                parameter: Parameter::Named(n),
                indirect: false,
            } => self.variable(n, raw, quoted, b, env, ifs),
            P::Substring {
                parameter: Parameter::Named(n),
                indirect: false,
                offset,
                length,
            } => {
                let value = self.known_value(n, env);
                let off = offset.value.trim().parse::<i64>().ok();
                let len = match length {
                    Some(l) => l.value.trim().parse::<i64>().ok().map(Some),
                    None => Some(None),
                };
                match (value, off, len) {
                    (Some(v), Some(off), Some(len)) => {
                        let chars: Vec<char> = v.chars().collect();
                        let n = chars.len() as i64;
                        let start = if off < 0 {
                            (n + off).max(0)
                        } else {
                            off.min(n)
                        };
                        let end = match len {
                            Some(l) if l < 0 => (n + l).max(start),
                            Some(l) => (start + l).min(n),
                            None => n,
                        };
                        let s: String = chars[start as usize..end as usize].iter().collect();
                        b.value(&s, quoted, ifs);
                    }
                    _ => b.seg(dyn_seg(raw, quoted)),
                }
            }
            P::UseDefaultValues {
                parameter: Parameter::Named(n),
                indirect: false,
                default_value,
                ..
            } => {
                if let Some(d) = default_value {
                    self.scan_substitutions(d, env, depth);
                }
                match env
                    .vars
                    .get(n)
                    .and_then(Field::static_text)
                    .filter(|v| !v.is_empty())
                {
                    Some(v) => b.value(&v, quoted, ifs),
                    None => b.seg(dyn_seg(raw, quoted)),
                }
            }
            other => {
                for s in nested_strings(other) {
                    self.scan_substitutions(s, env, depth);
                }
                b.seg(dyn_seg(raw, quoted));
            }
        }
    }

    fn known_value(&self, name: &str, env: &Env) -> Option<String> {
        match env.vars.get(name) {
            Some(f) => f.static_text(),
            None => match name {
                "IFS" => Some(DEFAULT_IFS.to_string()),
                "HOME" => self.home.clone(),
                "PWD" => match &env.cwd {
                    Cwd::Known(c) => Some(c.clone()),
                    _ => None,
                },
                _ => None,
            },
        }
    }

    fn variable(
        &mut self,
        name: &str,
        raw: &str,
        quoted: bool,
        b: &mut FieldBuilder,
        env: &Env,
        ifs: &str,
    ) {
        if let Some(f) = env.vars.get(name) {
            for seg in f.segs.clone() {
                match seg {
                    Seg::Lit { text, .. } => b.value(&text, quoted, ifs),
                    // The value's unknown part is split here unless this
                    // expansion is quoted (review s21 U6).
                    Seg::Dyn { raw, out, .. } => b.seg(Seg::Dyn { raw, out, quoted }),
                    other => b.seg(other),
                }
            }
            return;
        }
        match name {
            "HOME" => match &self.home {
                Some(h) => b.lit(&h.clone(), true),
                None => b.seg(Seg::Home(None)),
            },
            _ => match self.known_value(name, env) {
                Some(v) => b.value(&v, quoted, ifs),
                None => b.seg(dyn_seg(raw, quoted)),
            },
        }
    }

    // ----------------------------------------------------------------
    // Targets of destructive commands
    // ----------------------------------------------------------------

    /// Record `path`, named relative to a pane's unknown directory, while
    /// such text is judged ([`Analysis::unplaced`]).
    pub(crate) fn note_unplaced(&self, path: &str) {
        if let Some(first) = self.unplaced.borrow_mut().as_mut()
            && first.is_none()
        {
            *first = Some(path.to_string());
        }
    }

    /// Resolve a path argument. `contents`: the command acts on what is
    /// inside the directory (as `find DIR -delete`).
    pub(crate) fn resolve_target(&self, field: &Field, env: &Env, contents: bool) -> Target {
        if let Some(words) = loop_words(field, env) {
            let targets: Vec<Target> = words
                .iter()
                .map(|w| self.resolve_target(w, env, contents))
                .collect();
            return worst_target(targets);
        }
        if field.is_dynamic() {
            return Target::Dynamic;
        }
        // `file:///p`: the path the URI names (review s15 N6).
        if let Some(p) = field.static_text().and_then(|t| paths::uri_path(&t)) {
            return self.resolve_target(&Field::lit(p), env, contents);
        }
        // A leading `~` / `$HOME` whose directory is not known.
        let mut text = String::new();
        let mut home_prefix: Option<Option<String>> = None;
        for (i, seg) in field.segs.iter().enumerate() {
            match seg {
                Seg::Lit { text: t, .. } => text.push_str(t),
                Seg::Home(u) if i == 0 => home_prefix = Some(u.clone()),
                Seg::Home(_) | Seg::Dyn { .. } => return Target::Dynamic,
            }
        }
        let glob = field.first_glob().map(|g| {
            // Offsets of `first_glob` count a leading `~user` too.
            let shift = match &home_prefix {
                Some(None) => 1,
                Some(Some(u)) => 1 + u.len(),
                None => 0,
            };
            g.saturating_sub(shift)
        });
        let (text, glob) = check_catalog::pattern::collapse_parents(&text, glob);
        let (path, contents, deep) = match glob {
            Some(g) => {
                let dir_end = text[..g].rfind('/').map_or(0, |i| i + 1);
                let deep = text[g..].trim_end_matches('/').contains('/');
                (text[..dir_end].to_string(), true, deep)
            }
            None => (text.clone(), contents, false),
        };
        let shown_and_abs = match home_prefix {
            Some(user) => {
                let base = match (&user, &self.home) {
                    (None, Some(h)) => Some(h.clone()),
                    (Some(u), _) => Some(match self.home.as_deref() {
                        Some(h) if h.starts_with("/Users/") => format!("/Users/{u}"),
                        _ if u == "root" => "/root".to_string(),
                        _ => format!("/home/{u}"),
                    }),
                    (None, None) => None,
                };
                match base {
                    Some(b) => paths::resolve(&b, path.trim_start_matches('/')),
                    None => {
                        // Home not known: only the home itself is placed.
                        let place = match paths::normalize_rel(&path) {
                            Some(r) if r.is_empty() => Place::Home,
                            _ => Place::Outside,
                        };
                        return Target::Known(place, field.text());
                    }
                }
            }
            None if path.starts_with('/') => paths::normalize_abs(&path),
            None => match &env.cwd {
                Cwd::Known(c) => paths::resolve(c, &path),
                Cwd::Unknown => {
                    self.note_unplaced(&field.text());
                    return Target::Dynamic;
                }
                Cwd::None => {
                    let place = match paths::normalize_rel(&path) {
                        Some(_) => Place::Inside,
                        None => Place::Outside,
                    };
                    return Target::Known(place, field.text());
                }
            },
        };
        let shown_and_abs = self.through_symlinks(shown_and_abs);
        let places = self.places();
        let place = if contents {
            places.classify_contents(&shown_and_abs, deep)
        } else {
            places.classify(&shown_and_abs)
        };
        // A directory an earlier call claims to have created (`mkdir DIR`,
        // `git clone URL DIR`) is only a claim: the history records that
        // the call was allowed, not that it ran or succeeded (`mkdir DIR
        // || true` on an existing directory, `false && mkdir DIR`). A claim
        // never loosens a decision to an allow (review-s7 F10): it may at
        // most soften the deny of a place outside the workspace to a
        // question: such a target is its own kind ([`Target::Claimed`]),
        // which each rule that would deny a place outside the workspace
        // turns into an escalation (`shell.rm-dynamic` for removals), never
        // into an allow. The root, a home or system directory keep their
        // own rules.
        if place == Place::Outside && self.facts.created_by_run(&shown_and_abs) {
            return Target::Claimed(shown_and_abs);
        }
        Target::Known(place, shown_and_abs)
    }

    /// `path` with the run's symbolic links followed (see
    /// [`check_catalog::run::Facts`]).
    pub(crate) fn through_symlinks(&self, path: String) -> String {
        self.facts.through_symlinks(path, self.home.as_deref())
    }

    /// A symbolic link the walk sees made (`ln -s`, `ln --sym`, `cp -s`,
    /// `cp -rs`) counts for the later commands of the same call, as the run
    /// facts' links count for later calls (review-s9 G5: `ln -s
    /// ~/.ssh/id_rsa k; cat k` and `ln -s ~/.config/toolvet k; echo > k/x`
    /// were allowed). It joins the same table ([`check_catalog::run::Facts`]'s
    /// `symlinks`), newest winning, with the candidates the run facts take
    /// (the link named, or made inside a directory of that name). A link is
    /// never learnt where it could loosen a decision: its path (through the
    /// links known so far) must be an ordinary place inside or outside the
    /// workspace that is not, and holds no, credential, toolvet secret or
    /// guard rail (`ln -sf /tmp/x ~/.ssh` then `cat ~/.ssh/id_rsa` still
    /// reads the key, however the link went). Links whose words cannot be
    /// read are not learnt (the command making them is judged as it was).
    pub(crate) fn learn_same_call_links(&mut self, name: &str, args: &[Field], env: &mut Env) {
        self.learn_made_files(name, args, env);
        if !matches!(name, "ln" | "cp") || !makes_symlinks(name, args) {
            return;
        }
        let Some(place) = crate::removers::placement(name, args) else {
            return;
        };
        let relative = name == "ln" && ln_relative(args);
        let children_only = name == "cp" && cp_recursive(args);
        for source in &place.sources {
            let mut links = Vec::new();
            if !place.named_dir {
                links.push(place.dest.clone());
            }
            links.extend(crate::removers::inside(&place.dest, source));
            for link in links {
                if self.done() {
                    return;
                }
                let Some(link_abs) = self.plain_abs(&link, env) else {
                    continue;
                };
                if !self.link_may_be_learnt(&link, env) {
                    continue;
                }
                // The link's directory as the links known so far place it.
                let (parent, last) = match link_abs.rsplit_once('/') {
                    Some((d, l)) => (if d.is_empty() { "/" } else { d }, l),
                    None => continue,
                };
                let parent = self.through_symlinks(parent.to_string());
                let link_at = paths::resolve(&parent, last);
                // The target: absolute or `~` as written; relative to the
                // link's directory (to the working directory for `ln -r`).
                let target = match source.static_text() {
                    Some(t) if !t.starts_with('/') && !relative && !source_is_home(source) => {
                        paths::resolve(&parent, &t)
                    }
                    _ => match self.abs_path(source, env) {
                        Some(t) => t,
                        None => continue,
                    },
                };
                let link_at = if children_only && link_at != "/" {
                    format!("{link_at}/")
                } else {
                    link_at
                };
                let links = &mut self.facts.symlinks;
                links.retain(|(l, t)| !(l == &link_at && t == &target));
                links.push((link_at, target));
            }
        }
    }

    /// Whether a link at `link` may be learnt without loosening what its
    /// path placed before (see [`Self::learn_same_call_links`]).
    fn link_may_be_learnt(&self, link: &Field, env: &Env) -> bool {
        let Some(abs) = self.abs_path(link, env) else {
            return false;
        };
        if !matches!(self.places().classify(&abs), Place::Inside | Place::Outside) {
            return false;
        }
        let sensitive = crate::sinks::sensitive_files();
        !(self.state.guard_rail(&abs).is_some()
            || self.state.rail_within(&abs).is_some()
            || self.state.is_secret(&abs)
            || crate::sinks::is_git_config_file(&abs)
            || sensitive.matches(&abs).is_some()
            || sensitive.matches_glob(&format!("{abs}/*")).is_some())
    }

    /// `f` made absolute against the working directory, `~` expanded, with
    /// no link followed; `None` when it cannot be read.
    fn plain_abs(&self, f: &Field, env: &Env) -> Option<String> {
        let mut text = String::new();
        for (i, seg) in f.segs.iter().enumerate() {
            match seg {
                Seg::Lit { text: t, .. } => text.push_str(t),
                Seg::Home(None) if i == 0 => text.push_str(self.home.as_deref()?),
                _ => return None,
            }
        }
        if text.is_empty() {
            return None;
        }
        Some(if text.starts_with('/') {
            paths::normalize_abs(&text)
        } else {
            match &env.cwd {
                Cwd::Known(c) => paths::resolve(c, &text),
                _ => return None,
            }
        })
    }

    /// Check a write target for raw devices.
    pub(crate) fn check_device_write(&mut self, target: &str, via: &str) {
        crate::selfstate::process_file_write(self, target, via);
        if is_raw_device(target) {
            self.report(
                true,
                "shell.write-device",
                format!(
                    "The command writes to the raw device `{target}` through {via}, which destroys the \
                     filesystem on it. Write to a regular file inside the workspace instead."
                ),
            );
        }
    }
}

/// The workspace deletes are judged against: the `workspace_roots`
/// setting, else the absolute directory `cwd` (cleaned) unless it is `/`
/// or a system directory, else none.
pub(crate) fn workspace_of(opts: &Options, cwd: Option<&str>) -> Vec<String> {
    if !opts.workspace_roots.is_empty() {
        return opts.workspace_roots.clone();
    }
    match cwd.filter(|c| c.starts_with('/')).map(paths::normalize_abs) {
        Some(c)
            if c != "/"
                && !paths::SYSTEM_DIRS.contains(&c.as_str())
                && !paths::SYSTEM_TREES.contains(&c.as_str()) =>
        {
            vec![c]
        }
        _ => Vec::new(),
    }
}

/// The value of a loop variable whose words are not taken one by one:
/// `${NAME}` (distinct from the `$NAME` of `read NAME` or a merge, so a
/// variable given another unknown value is not taken for the loop's).
fn loop_placeholder(name: &str) -> Field {
    dyn_field(&format!("${{{name}}}"))
}

/// The words of the loop whose variable `field` is, alone and still
/// holding the loop's value (see [`Env::loop_globs`]).
fn loop_words<'e>(field: &Field, env: &'e Env) -> Option<&'e Vec<Field>> {
    // Quoting leaves empty literal pieces around it (`"$f"`).
    let segs: Vec<&Seg> = field
        .segs
        .iter()
        .filter(|s| !matches!(s, Seg::Lit { text, .. } if text.is_empty()))
        .collect();
    let [Seg::Dyn { raw, .. }] = segs.as_slice() else {
        return None;
    };
    let name = raw.strip_prefix("${")?.strip_suffix('}')?;
    let entry = env.loop_globs.get(name)?;
    (env.vars.get(name) == Some(&loop_placeholder(name))).then_some(entry)
}

/// The strictest of several targets one word may be: a place denied
/// first (the root, system, a home, outside), then one only known at run
/// time, then a claimed directory, then the workspace root, then inside.
fn worst_target(targets: Vec<Target>) -> Target {
    let rank = |t: &Target| match t {
        Target::Known(Place::Root, _) => 0,
        Target::Known(Place::System, _) => 1,
        Target::Known(Place::Home, _) => 2,
        Target::Known(Place::Outside, _) => 3,
        Target::Dynamic => 4,
        Target::Claimed(_) => 5,
        Target::Known(Place::WorkspaceRoot, _) => 6,
        Target::Known(Place::Inside, _) => 7,
    };
    targets
        .into_iter()
        .min_by_key(rank)
        .unwrap_or(Target::Dynamic)
}

/// The variables shell arithmetic `expr` (`((x = -1))`, `let x=-1`,
/// `((x--))`) assigns: their value is the arithmetic's, only known at
/// run time, and reads as `$((expr))` (a pid from it is held: review s19
/// S20).
pub(crate) fn arithmetic_assigns(expr: &str, env: &mut Env) {
    let chars: Vec<char> = expr.chars().collect();
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut i = 0;
    while i < chars.len() {
        if !(chars[i].is_ascii_alphabetic() || chars[i] == '_') || (i > 0 && ident(chars[i - 1])) {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && ident(chars[i]) {
            i += 1;
        }
        let name: String = chars[start..i].iter().collect();
        let before: String = chars[..start].iter().collect();
        let mut j = i;
        while j < chars.len() && chars[j] == ' ' {
            j += 1;
        }
        let after: String = chars[j..].iter().take(4).collect();
        let assigned = before.trim_end().ends_with("++")
            || before.trim_end().ends_with("--")
            || after.starts_with("++")
            || after.starts_with("--")
            || (after.starts_with('=') && !after.starts_with("=="))
            || ["+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="]
                .iter()
                .any(|op| after.starts_with(op));
        if assigned {
            env.vars.insert(name, dyn_field(&format!("$(({expr}))")));
        }
    }
}

fn dyn_seg(raw: &str, quoted: bool) -> Seg {
    Seg::Dyn {
        raw: raw.to_string(),
        out: Output::Unknown,
        quoted,
    }
}

/// The combined output of fields used as text (here-strings, `echo`).
pub(crate) fn fields_output(fields: &[Field], newline: bool) -> Output {
    let mut text = String::new();
    let mut taint = Output::Static(String::new());
    let mut dynamic = false;
    for (i, f) in fields.iter().enumerate() {
        match f.static_text() {
            Some(t) => {
                if i > 0 {
                    text.push(' ');
                }
                text.push_str(&t);
            }
            None => {
                dynamic = true;
                taint = taint.strongest(f.output());
            }
        }
    }
    if taint.is_tainted() {
        return taint;
    }
    if dynamic {
        return Output::Unknown;
    }
    if newline {
        text.push('\n');
    }
    Output::Static(text)
}

fn nested_strings(e: &ParameterExpr) -> Vec<&str> {
    use ParameterExpr as P;
    let mut v: Vec<&str> = Vec::new();
    match e {
        P::UseDefaultValues {
            default_value: s, ..
        }
        | P::AssignDefaultValues {
            default_value: s, ..
        }
        | P::IndicateErrorIfNullOrUnset {
            error_message: s, ..
        }
        | P::UseAlternativeValue {
            alternative_value: s,
            ..
        }
        | P::RemoveSmallestSuffixPattern { pattern: s, .. }
        | P::RemoveLargestSuffixPattern { pattern: s, .. }
        | P::RemoveSmallestPrefixPattern { pattern: s, .. }
        | P::RemoveLargestPrefixPattern { pattern: s, .. }
        | P::UppercaseFirstChar { pattern: s, .. }
        | P::UppercasePattern { pattern: s, .. }
        | P::LowercaseFirstChar { pattern: s, .. }
        | P::LowercasePattern { pattern: s, .. } => v.extend(s.as_deref()),
        P::ReplaceSubstring {
            pattern,
            replacement,
            ..
        } => {
            v.push(pattern);
            v.extend(replacement.as_deref());
        }
        // A substring's offset and length: [`Analysis::parameter_evaluations`].
        _ => {}
    }
    v
}

/// Count `{` that may start a brace expansion: outside quotes, not escaped,
/// not `${`, not inside `$(…)` (an estimate: used only to decide whether
/// brace expansion is attempted).
fn approx_unquoted_braces(raw: &str) -> usize {
    let mut n = 0;
    let mut single = false;
    let mut double = false;
    let mut escaped = false;
    let mut subst = 0usize;
    let mut prev = '\0';
    for c in raw.chars() {
        if escaped {
            escaped = false;
            prev = '\0';
            continue;
        }
        match c {
            '\\' if !single => escaped = true,
            '\'' if !double && subst == 0 => single = !single,
            '"' if !single && subst == 0 => double = !double,
            '(' if !single && (prev == '$' || subst > 0) => subst += 1,
            ')' if !single && subst > 0 => subst -= 1,
            '{' if !single && !double && subst == 0 && prev != '$' => n += 1,
            _ => {}
        }
        prev = c;
    }
    n
}

/// `/dev/tcp/…` and `/dev/udp/…`: bash's network pseudo-devices.
pub fn is_network_device(path: &str) -> bool {
    path.starts_with("/dev/tcp/") || path.starts_with("/dev/udp/")
}

/// A raw disk or memory device under `/dev` (not `/dev/null`, ttys, fds,
/// shared memory or the network pseudo-devices).
pub fn is_raw_device(path: &str) -> bool {
    let Some(rest) = path.strip_prefix("/dev/") else {
        return false;
    };
    const HARMLESS: &[&str] = &[
        "null", "zero", "full", "random", "urandom", "stdin", "stdout", "stderr", "tty", "console",
        "ptmx",
    ];
    const HARMLESS_TREES: &[&str] = &["fd/", "shm/", "pts/", "tcp/", "udp/", "mqueue/"];
    !rest.is_empty()
        && !HARMLESS.contains(&rest)
        && !HARMLESS_TREES.iter().any(|t| rest.starts_with(t))
        && !rest.starts_with("tty")
}

/// Counts calls of a function from inside its own body.
#[derive(Default)]
struct SelfCalls {
    /// Self-calls in the background or in a multi-stage pipeline.
    risky: usize,
}

impl SelfCalls {
    fn compound(&mut self, cc: &ast::CompoundCommand, name: &str, risky: bool) {
        use ast::CompoundCommand as C;
        match cc {
            C::BraceGroup(g) => self.list(&g.list, name, risky),
            C::Subshell(s) => self.list(&s.list, name, risky),
            C::ForClause(f) => self.list(&f.body.list, name, risky),
            C::ArithmeticForClause(f) => self.list(&f.body.list, name, risky),
            C::WhileClause(w) | C::UntilClause(w) => {
                self.list(&w.0, name, risky);
                self.list(&w.1.list, name, risky);
            }
            C::IfClause(i) => {
                self.list(&i.condition, name, risky);
                self.list(&i.then, name, risky);
                for e in i.elses.iter().flatten() {
                    if let Some(c) = &e.condition {
                        self.list(c, name, risky);
                    }
                    self.list(&e.body, name, risky);
                }
            }
            C::CaseClause(c) => {
                for item in &c.cases {
                    if let Some(l) = &item.cmd {
                        self.list(l, name, risky);
                    }
                }
            }
            C::Coprocess(c) => self.command(&c.body, name, true),
            C::Arithmetic(_) => {}
        }
    }

    fn list(&mut self, list: &ast::CompoundList, name: &str, risky: bool) {
        for ast::CompoundListItem(aol, sep) in &list.0 {
            let bg = risky || matches!(sep, ast::SeparatorOperator::Async);
            for p in std::iter::once(&aol.first).chain(aol.additional.iter().map(|a| match a {
                ast::AndOr::And(p) | ast::AndOr::Or(p) => p,
            })) {
                let piped = bg || p.seq.len() > 1;
                for c in &p.seq {
                    self.command(c, name, piped);
                }
            }
        }
    }

    fn command(&mut self, c: &ast::Command, name: &str, risky: bool) {
        match c {
            ast::Command::Simple(sc) => {
                if risky && sc.word_or_name.as_ref().is_some_and(|w| w.value == name) {
                    self.risky += 1;
                }
            }
            ast::Command::Compound(cc, _) => self.compound(cc, name, risky),
            ast::Command::Function(_) | ast::Command::ExtendedTest(..) => {}
        }
    }
}

/// Whether `ln` or `cp` with the words `args` makes symbolic links: a
/// short-option cluster holding `s` before `--` (`-s`, `-sf`, `-fs`,
/// `-sr`; `-S`/`-t` take a value, so nothing after them in the cluster
/// counts), or `--symbolic` (`ln`) / `--symbolic-link` (`cp`) down to
/// `--sy`.
pub(crate) fn makes_symlinks(name: &str, args: &[Field]) -> bool {
    let full = if name == "ln" {
        "--symbolic"
    } else {
        "--symbolic-link"
    };
    for a in args {
        let a = a.text();
        if a == "--" {
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            let long = long.split('=').next().unwrap_or("");
            if long.len() >= 2 && full[2..].starts_with(long) {
                return true;
            }
        } else if let Some(cluster) = a.strip_prefix('-') {
            for c in cluster.chars() {
                if c == 's' {
                    return true;
                }
                if matches!(c, 'S' | 't') {
                    break;
                }
            }
        }
    }
    false
}

/// Whether `ln` is given `-r`/`--relative` (its target is then taken
/// relative to the working directory).
pub(crate) fn ln_relative(args: &[Field]) -> bool {
    args.iter()
        .map(Field::text)
        .take_while(|a| a != "--")
        .any(|a| {
            (a.starts_with("--") && a.len() > 4 && "--relative".starts_with(a.as_str()))
                || (a.starts_with('-')
                    && !a.starts_with("--")
                    && a[1..]
                        .chars()
                        .take_while(|c| !matches!(c, 'S' | 't'))
                        .any(|c| c == 'r'))
        })
}

/// Whether `cp` copies directories whole (`-r`, `-R`, `-a`, `--recursive`,
/// `--archive`): with `-s` it then fills the destination with links.
fn cp_recursive(args: &[Field]) -> bool {
    args.iter()
        .map(Field::text)
        .take_while(|a| a != "--")
        .any(|a| {
            matches!(a.as_str(), "--recursive" | "--archive")
                || (a.starts_with('-')
                    && !a.starts_with("--")
                    && a[1..]
                        .chars()
                        .take_while(|c| !matches!(c, 'S' | 't'))
                        .any(|c| matches!(c, 'r' | 'R' | 'a')))
        })
}

/// Whether a link's target word starts with `~` (placed from the home).
pub(crate) fn source_is_home(f: &Field) -> bool {
    matches!(f.segs.first(), Some(Seg::Home(_)))
}

/// The variable a parameter expansion names: `$NAME`, `${NAME}`,
/// `${NAME:-x}`, `${#NAME}`.
fn expanded_name(raw: &str) -> Option<&str> {
    let rest = raw.strip_prefix('$')?;
    let rest = rest.strip_prefix('{').unwrap_or(rest);
    let rest = rest.strip_prefix('#').unwrap_or(rest);
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

/// The file of a command substitution that is one input redirection and
/// nothing else (`$(< FILE)`, `$(0<FILE)`, `` `<FILE` ``): bash reads
/// FILE's contents without running a command, as `$(cat FILE)` (bash(1),
/// Command Substitution). `None` for anything else: a command with
/// words (`$(< F cmd)`), a here-document or another redirection.
fn bare_input_redirect(script: &str) -> Option<&str> {
    let t = script.trim();
    let t = t.strip_prefix('0').unwrap_or(t).strip_prefix('<')?;
    if t.starts_with(['<', '(', '&', '>']) {
        return None;
    }
    let word = t.trim_start();
    // One shell word: no unquoted blank or operator.
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in word.chars() {
        match (quote, c) {
            _ if escaped => escaped = false,
            (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (Some('\''), _) => {}
            (_, '\\') => escaped = true,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, c) if c.is_whitespace() || ";|&<>()`".contains(c) => return None,
            (None, _) => {}
        }
    }
    (!word.is_empty() && quote.is_none() && !escaped).then_some(word)
}

/// Variables an assignment before a command (`NAME=V cmd`, `env NAME=V
/// cmd`) sets for that command only, and the check reads: `CDPATH` and
/// `PATH` (review-s9 G4, G2), rclone's remotes `RCLONE_CONFIG_*` (review
/// s16 P3, s17 Q2).
pub(crate) fn command_scoped(name: &str) -> bool {
    matches!(name, "CDPATH" | "PATH") || name.starts_with("RCLONE_CONFIG_")
}

/// Whether a `>&` target is a descriptor as bash reads it (`2`, `-`,
/// `3-`): a literal number, optionally followed by `-`, or `-` alone.
/// Anything else, or a word only known when the command runs, is a file
/// (or may be one).
fn is_descriptor_word(f: &Field) -> bool {
    f.static_text().is_some_and(|t| {
        let n = t.strip_suffix('-').unwrap_or(&t);
        t == "-" || (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices() {
        assert!(is_raw_device("/dev/sda"));
        assert!(is_raw_device("/dev/nvme0n1p1"));
        assert!(is_raw_device("/dev/mapper/root"));
        assert!(is_raw_device("/dev/mem"));
        assert!(!is_raw_device("/dev/null"));
        assert!(!is_raw_device("/dev/stderr"));
        assert!(!is_raw_device("/dev/fd/3"));
        assert!(!is_raw_device("/dev/tty1"));
        assert!(!is_raw_device("./dev/sda"));
        assert!(is_network_device("/dev/tcp/10.0.0.1/4444"));
    }

    #[test]
    fn unquoted_brace_estimate() {
        assert_eq!(approx_unquoted_braces("{a,b}"), 1);
        assert_eq!(approx_unquoted_braces("'{a,b}'\"{\"\\{"), 0);
        assert_eq!(approx_unquoted_braces("${a}$( { x; } )"), 0);
        assert_eq!(approx_unquoted_braces("a{b,c}$(x)"), 1);
    }
}
