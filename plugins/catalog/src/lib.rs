//! What the shipped toolvet checks know about the world, shared between
//! them so that each fact lives in one place:
//!
//! - [`code`]: tools that run the code they are given (a Python REPL,
//!   `execute_code`), the language and the code arguments;
//! - [`sensitive`]: credential and key files (path-guard for file tools,
//!   shell-guard for commands);
//! - [`args`]: what argument names say about a call (a recipient, a
//!   published text, the place it goes);
//! - [`effects`]: what a tool does (sends, pays, publishes, grants,
//!   deploys), guessed from its name when the host has no facts;
//! - [`encoded`]: base64 and hex blobs that decode to text;
//! - [`guardrails`]: the files that hold an agent's own guard rails
//!   (permission settings, MCP configs, hooks, shell start-up files), and
//!   what in their content loosens them;
//! - [`pathnorm`]: the lexical normalisation of a path a tool is given
//!   (path-guard judges it; the hooks key the paths they resolve on the
//!   real file system by it, so both spell a path alike);
//! - [`patch`]: patch texts read as the programs applying them read
//!   them (Codex's trimmed headers, git's C-quoted names), by shell-guard
//!   and the hooks;
//! - [`pattern`]: paths that are shell patterns (`*`, `?`, `[…]`,
//!   `{a,b}`), matched against the paths the checks guard;
//! - [`roles`]: every value of the arguments that fill one role (a
//!   command in `command` and in `cmd`): each is judged;
//! - [`run`]: facts from the run's earlier shell commands (symbolic links
//!   made, directories created);
//! - [`spawn`]: the shell commands code in another language runs (`system
//!   "cmd"`, `exec LIST`, `subprocess.run([…])`, `os.execvp`, a piped
//!   `open`, `shutil.rmtree`), read by shell-guard;
//! - [`words`]: a light word splitter for commands of *earlier* calls,
//!   read by history rules (the call under check is parsed properly by
//!   shell-guard);
//! - [`workdir`]: the arguments that set the directory a tool runs in
//!   (`cwd`, `workingDirectory`, `dir_path`, `options.cwd`, …), read by
//!   shell-guard, path-guard and the hooks.
//!
//! This is knowledge, not mechanism: the mechanism (settings, globs,
//! decisions) is the plugin kit's, `toolvet-pdk`.

pub mod args;
pub mod code;
pub mod effects;
pub mod encoded;
pub mod guardrails;
pub mod parse;
pub mod patch;
pub mod pathnorm;
pub mod pattern;
pub mod places;
pub mod roles;
pub mod run;
pub mod sensitive;
pub mod spawn;
pub mod words;
pub mod workdir;
