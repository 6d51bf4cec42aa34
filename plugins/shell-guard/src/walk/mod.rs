//! The analysis: walks a parsed script, expands words the way the shell
//! would (as far as they are known), tracks `cd` and variable assignments,
//! follows data from downloads and decoders through pipelines, and hands
//! every simple command to the rules in [`commands`].

use std::collections::HashMap;

use brush_parser::ast;
use brush_parser::word::{Parameter, ParameterExpr, TildeExpr, WordPiece, WordPieceWithSource};

use crate::options::Options;
use crate::paths::{self, Place, Places};
use crate::syntax::{self, Field, FieldBuilder, Output, Seg, SyntaxError};

mod bindings;
pub mod commands;
mod expand;
mod functions;
mod redirects;
pub(crate) mod targets;
mod written_runs;

pub(crate) use functions::{apply_unknown, function_effects};

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
    /// One of these known directories (sorted, at least two, at most
    /// [`MAX_CWD_PLACES`]): after a `cd` that may fail and `;` or `||`,
    /// after `if` branches that leave different places, after a `cd` that
    /// `CDPATH` or `cdable_vars` may send elsewhere (review s25 S22).
    /// Every later command is judged in each of them, strictest wins
    /// ([`Analysis::pipeline`]).
    Either(Vec<String>),
}

/// Most places [`Cwd::Either`] follows; more make the cwd unknown.
pub const MAX_CWD_PLACES: usize = 4;

impl Cwd {
    /// The cwd is one of `self` or `other`: the same, [`Cwd::Either`] of
    /// their known places, or unknown.
    pub fn or(&self, other: &Cwd) -> Cwd {
        if self == other {
            return self.clone();
        }
        let places = |c: &Cwd| match c {
            Cwd::Known(p) => Some(vec![p.clone()]),
            Cwd::Either(ps) => Some(ps.clone()),
            _ => None,
        };
        match (places(self), places(other)) {
            (Some(mut a), Some(b)) => {
                a.extend(b);
                Cwd::from_places(a)
            }
            _ => Cwd::Unknown,
        }
    }

    /// The cwd is one of `places`.
    pub fn from_places(mut places: Vec<String>) -> Cwd {
        places.sort();
        places.dedup();
        match places.len() {
            0 => Cwd::Unknown,
            1 => Cwd::Known(places.remove(0)),
            n if n <= MAX_CWD_PLACES => Cwd::Either(places),
            _ => Cwd::Unknown,
        }
    }

    /// The walk cannot name one directory (unknown, or one of several).
    pub fn is_unplaced(&self) -> bool {
        matches!(self, Cwd::Unknown | Cwd::Either(_))
    }
}

/// Shell state that flows along a script.
#[derive(Debug, Clone, PartialEq)]
pub struct Env {
    /// Variables assigned in the script so far. The property (review s23
    /// V4, V5): a value here is what bash holds only when every way the
    /// script may have assigned the variable since is one the walk models
    /// exactly ([`Env::assign`]); any other assignment makes it unknown
    /// ([`Env::forget`]), or every variable when the name is not known
    /// ([`Env::forget_vars`]).
    pub vars: HashMap<String, Field>,
    /// Current directory: known only after `cd` to one operand the walk
    /// places (`CDPATH` unset or empty, `cd -` to a known `OLDPWD`); every
    /// other directory change makes it [`Cwd::Unknown`] (review s23 R11).
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
    /// ([`crate::effects::written`]): enough to judge what runs them, never to
    /// loosen a judgement made without the text.
    pub claimed: std::collections::HashSet<String>,
    /// `shopt -s cdable_vars` is on: `cd NAME` may go to `$NAME`.
    pub cdable_vars: bool,
    /// Shell options the command may have turned on (`shopt -s NAME`,
    /// `set -o NAME`, `set -k` as `keyword`; `*` for a name only known at
    /// run time): those that change how later commands run (review s25
    /// S6 `keyword`, S8 `xpg_echo`, S20 `lastpipe`), see [`Env::may_set`].
    pub options_on: std::collections::BTreeSet<String>,
    /// Associative arrays declared in the command (`declare -A m`): their
    /// subscripts are keys, not arithmetic ([`crate::code::arith`]).
    pub assoc: std::collections::HashSet<String>,
    /// Variables declared `-i` in the command: every value given to one
    /// is evaluated as arithmetic ([`crate::code::arith`]).
    pub ints: std::collections::HashSet<String>,
    /// Variables declared `-l`, `-u` or `-c` in the command: bash changes
    /// the case of every value given to one, so the walk holds them as
    /// unknown (review s25 S18).
    pub cased: std::collections::HashSet<String>,
    /// Functions defined in the command, by name: the shell state a call
    /// changes in the caller's shell ([`FunctionEffects`]).
    pub functions: HashMap<String, FunctionEffects>,
    /// Names declared `-n` (namerefs): an assignment to one assigns the
    /// variable it names, so it makes every variable unknown.
    pub namerefs: std::collections::HashSet<String>,
    /// How many times every variable was made unknown ([`Env::forget_vars`]).
    pub forgotten: u32,
    /// Trap handlers set in the command (`trap 'y=rm' DEBUG`): they may run
    /// before any later command, so their effects apply, as unknowns,
    /// before each one.
    pub traps: Vec<FunctionEffects>,
    /// Code the shell may run later, at any later command boundary or at
    /// the end (review s24 S1): trap handlers for any signal or
    /// pseudo-signal (`EXIT`, `ERR`, `DEBUG`, `RETURN`) and prompt strings
    /// (`PS4` under `set -x`). Each is judged again, in the state of the
    /// moment, before and after every later simple command.
    pub deferred: Vec<Deferred>,
    /// Descriptors above 2 `exec` opened for the rest of the script
    /// (`exec 3<<< TEXT`), as [`Analysis::fds`] holds them.
    pub fds: HashMap<i32, Option<Output>>,
    /// Those of [`Env::fds`] reading an unproven pipe, as
    /// [`Analysis::piped_fds`].
    pub piped_fds: std::collections::HashSet<i32>,
}

/// What calling a function defined in the command does to the caller's
/// shell (review s23 V5): a function body runs in the caller's shell, so
/// every variable it may assign, and its directory changes, hold after
/// the call.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FunctionEffects {
    /// Variables the body may assign: unknown after a call.
    pub vars: Vec<String>,
    /// The body may assign variables whose names are not known: every
    /// variable is unknown after a call.
    pub all_vars: bool,
    /// The body may change the directory: the cwd is unknown after a call.
    pub cwd: bool,
    /// The body's text: walked again at each call, in the caller's state,
    /// for the values it leaves.
    pub body: String,
    /// The body declares variables (`local`, `declare`, `typeset`): they
    /// may be the function's own, restored on return, so its values are
    /// not taken; the variables it may assign are unknown after a call.
    pub scoped: bool,
}

/// Code registered in the command that the shell runs later ([`Env::deferred`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Deferred {
    /// Shell text run as a script (a trap handler).
    Script(String),
    /// A prompt string, expanded like double-quoted text (`PS4`): its
    /// command substitutions run.
    Prompt(String),
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

/// Whether a redirection gives a command's standard input something
/// other than what the command was given (`< F`, `<<<`, `<<`, `<&N`).
fn reads_stdin(r: &ast::IoRedirect) -> bool {
    use ast::{IoFileRedirectKind as K, IoRedirect as R};
    match r {
        R::File(fd, K::Read | K::ReadAndWrite | K::DuplicateInput, _) => fd.is_none_or(|f| f == 0),
        R::HereString(fd, _) | R::HereDocument(fd, _) => fd.is_none_or(|f| f == 0),
        _ => false,
    }
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
            options_on: std::collections::BTreeSet::new(),
            assoc: std::collections::HashSet::new(),
            ints: std::collections::HashSet::new(),
            cased: std::collections::HashSet::new(),
            functions: HashMap::new(),
            namerefs: std::collections::HashSet::new(),
            forgotten: 0,
            traps: Vec::new(),
            deferred: Vec::new(),
            fds: HashMap::new(),
            piped_fds: std::collections::HashSet::new(),
        }
    }

    /// Every variable is unknown from here on (review s23 V4/V5): text
    /// the walk does not model ran in this shell (`eval` or `source` of
    /// unknown text, an assignment to a name only known at run time). The
    /// variables the walk otherwise reads from the call (`HOME`, `PWD`,
    /// `OLDPWD`, `CDPATH`) become unknown too. Counted in
    /// [`Env::forgotten`], so a function body that does it is known to.
    pub fn forget_vars(&mut self) {
        let names: Vec<String> = self
            .vars
            .keys()
            .cloned()
            .chain(["HOME", "PWD", "OLDPWD", "CDPATH"].map(String::from))
            .collect();
        for n in names {
            self.forget(&n);
        }
        self.loop_globs.clear();
        self.forgotten += 1;
    }

    /// Whether the shell option `name` may be on (see [`Env::options_on`]).
    pub fn may_set(&self, name: &str) -> bool {
        self.options_on.contains(name) || self.options_on.contains("*")
    }

    /// `name` holds a value only known at run time from here on.
    pub fn forget(&mut self, name: &str) {
        self.vars
            .insert(name.to_string(), dyn_field(&format!("${name}")));
        self.loop_globs.remove(name);
    }

    /// The one way a walk gives a shell variable a value it modelled
    /// exactly: an assignment to a nameref (`declare -n`) assigns another
    /// variable, so every variable becomes unknown instead.
    pub fn assign(&mut self, name: String, value: Field) {
        if self.namerefs.contains(&name) {
            self.forget_vars();
        }
        if self.cased.contains(&name) {
            self.forget(&name);
            return;
        }
        self.vars.insert(name, value);
    }

    /// The source of the first part of `target` that is a value this
    /// command itself made unknown (review s24 S9): a variable the walk
    /// holds as unknown because the command assigned it in a way the walk
    /// does not follow (`x=(…)`, a value set on a branch, `read`,
    /// `mapfile`, `getopts`, `set --`), or an expansion of such a variable
    /// or of a known one the walk does not compute (`${t/…/…}` with a
    /// glob); the directory stack (`~1`, `~-1`, `${DIRSTACK[1]}`),
    /// `$0` after `BASH_ARGV0=`, `"$@"` after `set --` (review s25 S9, S16,
    /// S24, S13). Any part counts, a directory as well as the last name
    /// (review s25 S29: `"$d/settings.json"`), except in a path rooted at
    /// a value from outside the command (`"$TMPDIR/${x[0]}/out.log"`),
    /// where only its last component does. A `for` loop's variable over a
    /// glob is not one (its words are judged in its place, see
    /// [`Env::loop_alternatives`]), nor is a value from the environment or
    /// a program's output (`$TMPDIR`, `$(mktemp)`), unless that output is
    /// decoded or downloaded text (`$(… | base64 -d)`).
    pub fn made_unknown(&self, target: &Field) -> Option<String> {
        let first = target
            .segs
            .iter()
            .find(|s| !matches!(s, Seg::Lit { text, .. } if text.is_empty()));
        let rooted_outside =
            matches!(first, Some(s @ Seg::Dyn { .. }) if self.made_unknown_seg(s).is_none());
        let start = if rooted_outside {
            target
                .segs
                .iter()
                .rposition(|s| matches!(s, Seg::Lit { text, .. } if text.contains('/')))
                .unwrap_or(0)
        } else {
            0
        };
        target.segs[start..]
            .iter()
            .find_map(|s| self.made_unknown_seg(s))
    }

    /// [`Env::made_unknown`] of one part.
    fn made_unknown_seg(&self, s: &Seg) -> Option<String> {
        match s {
            // Decoded or downloaded text (`$(… | base64 -d)`): obfuscated.
            Seg::Dyn {
                raw,
                out: Output::Decoded | Output::Downloaded,
                ..
            } => Some(raw.clone()),
            Seg::Dyn { raw, .. } => {
                // The directory stack: `~N`, `~+N`, `~-N` (review s25 S9).
                if let Some(n) = raw.strip_prefix('~') {
                    let n = n.strip_prefix(['+', '-']).unwrap_or(n);
                    if !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) {
                        return Some(raw.clone());
                    }
                }
                // `"$@"`, `"$*"` after `set --` (review s25 S1, S13).
                if matches!(raw.as_str(), "$@" | "${@}" | "$*" | "${*}")
                    && self.vars.contains_key("1")
                {
                    return Some(raw.clone());
                }
                let name = expand::expanded_name(raw)?;
                let made = match name {
                    // Bash's own: the directory stack (review s25 S9).
                    "DIRSTACK" => true,
                    "0" => self.vars.contains_key("BASH_ARGV0"),
                    _ => self.vars.contains_key(name) && !self.loop_globs.contains_key(name),
                };
                made.then(|| raw.clone())
            }
            _ => None,
        }
    }

    /// The fields `target` may be when a part of it is a `for` loop's
    /// variable over words the walk holds but does not take one by one
    /// (a glob, review s25 S1): that part replaced by each word
    /// (`"$d/settings.json"` for `for d in ~/.claud[e]`). `None` when no
    /// part is one.
    pub fn loop_alternatives(&self, target: &Field) -> Option<Vec<Field>> {
        let (i, words) = target.segs.iter().enumerate().find_map(|(i, s)| {
            let Seg::Dyn { raw, .. } = s else {
                return None;
            };
            let name = raw.strip_prefix("${")?.strip_suffix('}')?;
            let words = self.loop_globs.get(name)?;
            (self.vars.get(name) == Some(&loop_placeholder(name))).then_some((i, words))
        })?;
        Some(
            words
                .iter()
                .map(|w| {
                    let mut segs = target.segs[..i].to_vec();
                    segs.extend(w.segs.iter().cloned());
                    segs.extend(target.segs[i + 1..].iter().cloned());
                    Field { segs }
                })
                .collect(),
        )
    }

    /// Merge the state of another branch: what differs becomes unknown.
    pub fn merge(&mut self, other: &Env) {
        self.cwd = self.cwd.or(&other.cwd);
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
        self.options_on.extend(other.options_on.iter().cloned());
        // An associative array on every branch only (`false && declare -A
        // a` leaves `a` indexed).
        self.assoc.retain(|k| other.assoc.contains(k));
        self.ints.extend(other.ints.iter().cloned());
        self.cased.extend(other.cased.iter().cloned());
        self.namerefs.extend(other.namerefs.iter().cloned());
        self.forgotten = self.forgotten.max(other.forgotten);
        // A function defined differently on two branches: either may run.
        for (k, v) in &other.functions {
            let mine = self.functions.entry(k.clone()).or_default();
            if mine != v {
                // Either body may be the one a call runs: each is judged
                // from the caller's state (review s24 S2); what either
                // may assign is unknown.
                if mine.body.trim().is_empty() {
                    mine.body = v.body.clone();
                } else if mine.body != v.body && !v.body.trim().is_empty() {
                    mine.body = format!("( {} )\n( {} )", mine.body, v.body);
                }
                mine.vars.extend(v.vars.iter().cloned());
                mine.all_vars |= v.all_vars;
                mine.cwd |= v.cwd;
                mine.scoped = true;
            }
        }
        let only_mine: Vec<String> = self
            .functions
            .keys()
            .filter(|k| !other.functions.contains_key(*k))
            .cloned()
            .collect();
        for k in only_mine {
            if let Some(f) = self.functions.get_mut(&k) {
                f.scoped = true;
            }
        }
        for t in &other.traps {
            if !self.traps.contains(t) {
                self.traps.push(t.clone());
            }
        }
        for d in &other.deferred {
            if !self.deferred.contains(d) {
                self.deferred.push(d.clone());
            }
        }
        // A descriptor opened differently on two branches holds either.
        self.fds.retain(|k, v| other.fds.get(k) == Some(v));
        self.piped_fds.extend(other.piped_fds.iter().copied());
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

    /// Whether `path` is a file text can be written to and run from: not a
    /// device or stream ([`check_catalog::pathnorm::is_not_a_file`];
    /// `/dev/shm/x` is a file, review s23 V12).
    pub fn is_a_file(&self, path: &str) -> bool {
        !check_catalog::pathnorm::is_not_a_file(&self.file_key(path))
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
        if path.is_empty() || path == "-" || !self.is_a_file(path) {
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
        if out.is_tainted() && !path.is_empty() && path != "-" && self.is_a_file(path) {
            let key = self.file_key(path);
            self.tainted_files.insert(key, out.clone());
        }
    }

    /// Remember that the directory `dir` was filled from downloaded or
    /// decoded content (`tar -xf r.tar` of a download, review s23 V6):
    /// every file under it is that content. Kept in
    /// [`Env::tainted_files`] under the directory's key with a trailing `/`.
    pub fn taint_dir(&mut self, dir: &str, out: &Output) {
        if out.is_tainted() && !dir.is_empty() && !dir.starts_with("/dev/") {
            let key = self.file_key(dir);
            let key = format!("{}/", key.trim_end_matches('/'));
            self.tainted_files.insert(key, out.clone());
        }
    }

    /// The taint of a file written earlier in the command, if any: the
    /// file itself, or a directory above it filled from a download
    /// ([`Env::taint_dir`]).
    pub fn file_taint(&self, path: &str) -> Option<&Output> {
        let key = self.file_key(path);
        if let Some(out) = self.tainted_files.get(&key) {
            return Some(out);
        }
        let mut at = key.as_str();
        while let Some(k) = at.rfind('/') {
            at = &at[..k];
            if let Some(out) = self.tainted_files.get(&format!("{at}/")) {
                return Some(out);
            }
        }
        None
    }

    /// The IFS characters in force.
    pub fn ifs(&self) -> String {
        self.vars
            .get("IFS")
            .and_then(Field::static_text)
            .unwrap_or_else(|| DEFAULT_IFS.to_string())
    }
}

/// POSIX special builtins: in POSIX mode an assignment in front of one
/// persists in the shell.
const SPECIAL_BUILTINS: &[&str] = &[
    ":", ".", "source", "break", "continue", "eval", "exec", "exit", "export", "readonly",
    "return", "set", "shift", "times", "trap", "unset",
];

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
    pub(crate) pid_in: Option<crate::effects::selfstate::PidFlow>,
    /// What the descriptors above 2 of the simple command being judged
    /// hold after its redirections (set by [`Analysis::redirects`]):
    /// `Some(text)` for one opened for reading (a here-string, a
    /// here-document, a file, a process substitution), `None` for one
    /// opened for writing. A descriptor not in the map was not opened in
    /// the call: what it holds is not known (review s23 V16).
    pub(crate) fds: HashMap<i32, Option<Output>>,
    /// The standard input of the command being judged is a pipe from a
    /// producer whose output is not proven ([`Output::Static`]): a shell
    /// or interpreter reading its program from it is held (review s23 V23).
    pub(crate) unproven_pipe: bool,
    /// The pipeline being judged ran a `cd` or `pushd` to a directory not
    /// proven to exist, which may fail and leave bash where it was
    /// (review s24 S4); read by [`Analysis::and_or`].
    pub(crate) cd_may_fail: bool,
    /// The descriptors (0 included) of the simple command being judged
    /// that read a pipe from an unproven producer (`3< <(python3 …)`),
    /// set by [`Analysis::redirects`] with [`Analysis::fds`].
    pub(crate) piped_fds: std::collections::HashSet<i32>,
    /// What the simple command just run writes, when it is a process
    /// lookup's output (or a filter keeping its lines): set by
    /// [`Analysis::toolvet_signals`], reset before each command.
    pub(crate) pid_out: Option<crate::effects::selfstate::PidFlow>,
    /// Command substitutions (by their source text) whose whole output is
    /// the pids a proven-narrow process lookup prints
    /// ([`crate::effects::selfstate::PidFlow::proven`]): `$(pgrep -f uvicorn)`,
    /// `$(lsof -ti:8080)`. A signal may be sent to these.
    pub(crate) narrow_lookups: std::collections::HashSet<String>,
    /// The pipeline stage whose command [`Analysis::pid_out`] was
    /// recorded for, and the stage being run (numbers from `serial`).
    pub(crate) pid_out_stage: u64,
    pub(crate) stage: u64,
    serial: u64,
    /// What the last pipeline walked writes, as [`Analysis::pid_out`]
    /// of its last stage: read by a command substitution.
    pipeline_pids: Option<crate::effects::selfstate::PidFlow>,
    /// The command set `IFS` (set by [`Analysis::toolvet_signals`]): a
    /// lookup's pids may be split into other numbers.
    pub(crate) ifs_set: bool,
    /// A command ran text only known at run time, or a file, in this
    /// shell (`eval "$X"`, `source F`): any variable may have any value
    /// after it, so no expansion is a proven pid (review s21 U15).
    pub(crate) vars_opaque: bool,
    /// Raw texts of expansions whose value is an integer (`$((…))`, the
    /// value arithmetic gives a variable): see [`crate::code::arith`].
    pub(crate) arith_integers: std::collections::HashSet<String>,
    /// A function was defined in the command: calling it may have made
    /// any variable an indexed array ([`crate::code::arith`]).
    pub(crate) functions_defined: bool,
    /// Code run later is being judged ([`Analysis::judge_deferred`]): not
    /// judged again inside itself.
    pub(crate) in_deferred: bool,
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
                fds: HashMap::new(),
                unproven_pipe: false,
                cd_may_fail: false,
                piped_fds: std::collections::HashSet::new(),
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
                in_deferred: false,
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
        // A `cd` that may fail (review s24 S4): bash stays where it was.
        // Only what runs after `&&` may count on the new directory; the
        // side of an `||` runs in the old one, and after the list the
        // cwd is either (unknown unless both are the same place).
        let outer_cd = std::mem::replace(&mut self.cd_may_fail, false);
        let mut before = env.cwd.clone();
        let mut out = self.pipeline(&aol.first, env, depth, stdin);
        let mut failed: Vec<Cwd> = Vec::new();
        let mut last_failed = None;
        if std::mem::replace(&mut self.cd_may_fail, false) && env.cwd != before {
            failed.push(before.clone());
            last_failed = Some(before);
        }
        for next in &aol.additional {
            let p = match next {
                ast::AndOr::And(p) | ast::AndOr::Or(p) => p,
            };
            // `cd d || …`: the right side runs where the `cd` failed;
            // afterwards the cwd is either.
            let success = match (next, last_failed.take()) {
                (ast::AndOr::Or(_), Some(old)) => Some(std::mem::replace(&mut env.cwd, old)),
                _ => None,
            };
            before = env.cwd.clone();
            // A pipeline that may not run proves no array associative
            // (`false && declare -A a`, review s22 V1).
            let assoc = env.assoc.clone();
            out = out.merge(self.pipeline(p, env, depth, stdin));
            env.assoc.retain(|k| assoc.contains(k));
            // `cd d || exit 1`: the shell ends where the `cd` failed, so
            // what follows runs in `d` only.
            let exits = matches!(p.seq.as_slice(), [ast::Command::Simple(sc)]
                if sc.prefix.is_none()
                    && sc.word_or_name.as_ref().is_some_and(|w| w.value == "exit"));
            match success {
                Some(success) if exits => {
                    failed.pop();
                    env.cwd = success;
                }
                Some(success) => env.cwd = success.or(&env.cwd),
                _ => {}
            }
            if std::mem::replace(&mut self.cd_may_fail, false) && env.cwd != before {
                failed.push(before.clone());
                last_failed = Some(before);
            }
        }
        // Either where a `cd` failed or where the list ended (review s25
        // S22: not unknown, every later command is judged in each).
        for c in &failed {
            env.cwd = env.cwd.or(c);
        }
        self.cd_may_fail = outer_cd;
        out
    }

    /// A pipeline, judged in every place the cwd may be (review s25 S22):
    /// each walk's findings count, and the state after it is what the
    /// walks leave, merged as branches. Its own frame, so the common
    /// path ([`Analysis::pipeline`]) keeps a small one for deep nesting.
    #[inline(never)]
    fn pipeline_in_each_place(
        &mut self,
        p: &ast::Pipeline,
        env: &mut Env,
        depth: u32,
        stdin: &Output,
        places: Vec<String>,
    ) -> Output {
        let outer_cd = self.cd_may_fail;
        let mut any_cd = outer_cd;
        let mut merged: Option<Env> = None;
        let mut out: Option<Output> = None;
        for place in places {
            let mut e = env.clone();
            e.cwd = Cwd::Known(place);
            self.cd_may_fail = outer_cd;
            let o = self.pipeline(p, &mut e, depth, stdin);
            any_cd |= self.cd_may_fail;
            out = Some(match out {
                Some(prev) => prev.merge(o),
                None => o,
            });
            match &mut merged {
                Some(m) => m.merge(&e),
                None => merged = Some(e),
            }
            if self.done() {
                break;
            }
        }
        self.cd_may_fail = any_cd;
        if let Some(m) = merged {
            *env = m;
        }
        out.unwrap_or(Output::Unknown)
    }

    fn pipeline(&mut self, p: &ast::Pipeline, env: &mut Env, depth: u32, stdin: &Output) -> Output {
        if let Cwd::Either(places) = &env.cwd {
            let places = places.clone();
            return self.pipeline_in_each_place(p, env, depth, stdin, places);
        }
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
        let outer_pipe = self.unproven_pipe;
        let outer_stage = self.stage;
        let single = p.seq.len() == 1;
        let lastpipe = env.may_set("lastpipe");
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
            // The first stage reads what the pipeline reads; a later one
            // reads the previous stage's output (review s23 V23).
            if !std::ptr::eq(cmd, &p.seq[0]) {
                self.unproven_pipe = !matches!(flow, Output::Static(_));
            }
            if single {
                flow = self.command(cmd, env, depth, stdin);
            } else if lastpipe && std::ptr::eq(cmd, &p.seq[p.seq.len() - 1]) {
                // `shopt -s lastpipe`: the last stage runs in this shell,
                // its assignments hold after (review s25 S20).
                let input = flow.clone();
                flow = self.command(cmd, env, depth, &input);
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
        self.unproven_pipe = outer_pipe;
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
            // A coprocess reads what later commands write to
            // `${COPROC[1]}`: a pipe the walk does not connect (review
            // s25 S3), held when a shell or interpreter runs it.
            C::Coprocess(c) => {
                let mut sub = env.clone();
                let outer = std::mem::replace(&mut self.unproven_pipe, true);
                let out = self.command(&c.body, &mut sub, depth, &Output::Unknown);
                self.unproven_pipe = outer;
                out
            }
        }
    }

    fn extended_test(&mut self, expr: &ast::ExtendedTestExpr, env: &mut Env, depth: u32) {
        use ast::ExtendedTestExpr as E;
        // `[[ s =~ re ]]` sets BASH_REMATCH.
        env.forget("BASH_REMATCH");
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
                            &crate::walk::commands::join_fields(&fields),
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
                                &crate::walk::commands::join_fields(&fields),
                                &e,
                                "the `[[ … -eq … ]]` operand",
                            );
                        }
                    }
                }
            }
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

    /// A simple command, with the code registered to run later judged
    /// in the state before it and the state after it (review s24 S1, S3):
    /// `DEBUG` traps run before each command, `ERR`/`RETURN` traps and
    /// `PS4` trace lines after or around it, `EXIT` handlers in the state
    /// after the last one, `command_not_found_handle` in place of any
    /// command.
    fn simple(
        &mut self,
        sc: &ast::SimpleCommand,
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) -> Output {
        self.judge_deferred(env, depth);
        let out = self.simple_command(sc, env, depth, stdin);
        self.judge_deferred(env, depth);
        out
    }

    /// Judges every piece of code the shell may run later, in `env`
    /// (review s24 S1, S3): each trap handler and prompt string
    /// registered so far, and a `command_not_found_handle` function bash
    /// calls for any command it does not find.
    pub(crate) fn judge_deferred(&mut self, env: &Env, depth: u32) {
        if self.in_deferred || self.done() {
            return;
        }
        let mut items = env.deferred.clone();
        if let Some(f) = env.functions.get("command_not_found_handle") {
            items.push(Deferred::Script(f.body.clone()));
        }
        if items.is_empty() {
            return;
        }
        self.in_deferred = true;
        for d in items {
            if self.done() {
                break;
            }
            let mut e = env.clone();
            match d {
                Deferred::Script(text) => {
                    self.script(&text, &mut e, depth + 1, &Output::Unknown);
                }
                Deferred::Prompt(text) => self.scan_substitutions(&text, &mut e, depth + 1),
            }
        }
        self.in_deferred = false;
    }

    fn simple_command(
        &mut self,
        sc: &ast::SimpleCommand,
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) -> Output {
        use ast::CommandPrefixOrSuffixItem as I;
        // A trap handler (`DEBUG` runs before each command) may have run.
        for t in env.traps.clone() {
            apply_unknown(&t, env);
        }
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
                    if let Some((name, mut value)) = self.assignment(a, env, depth) {
                        // `local t+=x` starts a new, empty variable in a
                        // function: the joined value is only exact for a
                        // plain assignment, so an argument's stays unknown.
                        if a.append {
                            value = dyn_field(&format!("${name}"));
                        }
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
        // `set -k`: every `NAME=VALUE` word is an assignment for the
        // command's environment (review s25 S6).
        if env.may_set("keyword") && argv.len() > 1 {
            let mut i = 1;
            while i < argv.len() {
                let name = argv[i].static_text().and_then(|t| {
                    let (n, _) = t.split_once('=')?;
                    (!n.is_empty()
                        && !n.starts_with(|c: char| c.is_ascii_digit())
                        && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
                    .then(|| n.to_string())
                });
                match name {
                    Some(n) => {
                        let word = argv.remove(i);
                        let value = crate::effects::sinks::after_equals(&word);
                        assignments.push((n, value));
                    }
                    None => i += 1,
                }
            }
        }
        let name = argv
            .first()
            .map(|f| crate::walk::commands::base_name(&f.text()));
        // `BASH_ENV=x bash -c …`, `PROMPT_COMMAND=…`, `GIT_CONFIG_KEY_0=…`:
        // variables whose value runs.
        self.code_variables(&assignments, env, depth, name.as_deref());
        let owned: Vec<ast::IoRedirect> = redirects.into_iter().cloned().collect();
        let stdin = self.redirects(&owned, env, depth, stdin, name.as_deref());
        let fds = std::mem::take(&mut self.fds);
        let piped = std::mem::take(&mut self.piped_fds);
        if argv.len() == 1 && name.as_deref() == Some("exec") {
            // `exec 3<<< TEXT`: the descriptors stay open for the rest
            // of the script (review s23 V16).
            env.fds = fds.clone();
            env.piped_fds = piped.iter().copied().filter(|n| *n > 2).collect();
            // `exec <<< TEXT`: every later command reading standard input
            // (a shell among them) reads it; the walk does not carry it
            // to them, so known text is judged as the script it may be,
            // anything else held.
            if owned.iter().any(reads_stdin) {
                match &stdin {
                    Output::Static(text) => {
                        let mut e = env.clone();
                        self.script(text, &mut e, depth + 1, &Output::Unknown);
                    }
                    other => {
                        self.report_taint(
                            other,
                            "given to the script as its standard input by `exec`",
                        );
                        self.report(
                            false,
                            "shell.eval-dynamic",
                            "`exec` gives the rest of the script a standard input whose content is not known \
                             here; a shell reading it would run it unchecked. A person must approve it as it is.",
                        );
                    }
                }
            }
        }
        let (argv, stdin, moved_piped) = self.fd_operands(argv, stdin, &fds, &piped);
        // A command redirecting its own standard input reads that, not
        // the pipe: an unproven pipe only if it is one (`< <(python3 …)`),
        // as is a descriptor named as a file (review s23 V23).
        let outer_pipe = self.unproven_pipe;
        if owned.iter().any(reads_stdin) {
            self.unproven_pipe = piped.contains(&0);
        }
        self.unproven_pipe |= moved_piped;

        if argv.is_empty() {
            // `> F`, `x= > F`: a redirection without a command still
            // creates or truncates its file (review s10 H9).
            let nothing = Output::Static(String::new());
            self.redirect_writes(&owned, env, depth, &nothing);
            self.note_redirect_writes(&owned, env, depth, &nothing);
            // `A=b` on its own sets shell variables.
            for (n, v) in assignments {
                env.assign(n, v);
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
        let prefix = assignments.clone();
        let names = assignments.into_iter().map(|(n, _)| n).collect();
        let outer = std::mem::replace(&mut self.command_vars, names);
        // `$_` is the command's last word from here on (review s25 S16).
        let last = argv.last().cloned();
        let out = self.exec(argv, env, depth, &stdin, false);
        self.command_vars = outer;
        self.unproven_pipe = outer_pipe;
        for (n, before) in held.into_iter().rev() {
            match before {
                Some(v) => env.vars.insert(n, v),
                None => env.vars.remove(&n),
            };
        }
        self.after_command(name.as_deref(), prefix, env, depth, &stdin);
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
        if let Some(last) = last {
            env.vars.insert("_".to_string(), last);
        }
        out
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
        Some(c) if check_catalog::places::makes_workspace(&c) => vec![c],
        _ => Vec::new(),
    }
}

/// The value of a loop variable whose words are not taken one by one:
/// `${NAME}` (distinct from the `$NAME` of `read NAME` or a merge, so a
/// variable given another unknown value is not taken for the loop's).
fn loop_placeholder(name: &str) -> Field {
    dyn_field(&format!("${{{name}}}"))
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

/// Whether a link's target word starts with `~` (placed from the home).
pub(crate) fn source_is_home(f: &Field) -> bool {
    matches!(f.segs.first(), Some(Seg::Home(_)))
}

/// Variables an assignment before a command (`NAME=V cmd`, `env NAME=V
/// cmd`) sets for that command only, and the check reads: `CDPATH` and
/// `PATH` (review-s9 G4, G2), rclone's remotes `RCLONE_CONFIG_*` (review
/// s16 P3, s17 Q2), the backup suffix `SIMPLE_BACKUP_SUFFIX` (review s25
/// R12), where installers put programs and take packages from
/// (`effects::installers`, `effects::packages`).
pub(crate) fn command_scoped(name: &str) -> bool {
    matches!(name, "CDPATH" | "PATH" | "SIMPLE_BACKUP_SUFFIX")
        || name.starts_with("RCLONE_CONFIG_")
        || crate::effects::installers::INSTALL_VARIABLES.contains(&name)
        || crate::effects::packages::SOURCE_VARIABLES.contains(&name)
        || crate::effects::packages::FETCH_VARIABLES.contains(&name)
        || HOOK_SKIP_VARIABLES.contains(&name)
}

/// The hook managers' switches that skip a repository's git hooks: husky
/// (`HUSKY=0`, v4's `HUSKY_SKIP_HOOKS`), lefthook (`LEFTHOOK=0`),
/// pre-commit (`SKIP=ids`); read by `git_skipped_hooks`.
pub(crate) const HOOK_SKIP_VARIABLES: &[&str] = &["HUSKY", "HUSKY_SKIP_HOOKS", "LEFTHOOK", "SKIP"];

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
