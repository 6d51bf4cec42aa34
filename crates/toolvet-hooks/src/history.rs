//! A session's history across one-shot hook processes: one JSON Lines file
//! per agent and session, each line an earlier call ([`PriorCall`]).
//!
//! The agent runs as the same user as its hooks, so it can reach these
//! files. What holds:
//! - The state directory and each agent's directory in it are real
//!   directories (never symbolic links), owned by the user, mode 0700:
//!   created so, refused otherwise. Files are opened relative to the
//!   verified directory (`openat`) with `O_NOFOLLOW`, and must be regular
//!   files of the user with mode 0600 and one link: a history replaced by a
//!   link to `~/.bash_profile` (symbolic or hard) is refused, and the
//!   target is never opened for writing.
//! - Every line carries an HMAC-SHA256, chained over the line before it
//!   and bound to the session's file, with a key kept in the state
//!   directory (`history.key`, 0600). A line added, edited, reordered or
//!   moved from another session's file fails its MAC, and the call is
//!   denied, naming the file.
//! - A seal beside the history (`<session>.seal`, also MACed) keeps the
//!   count of lines and the last MAC: a history deleted or cut short while
//!   its seal remains is refused, so loop and count limits are not reset by
//!   removing the file.
//! - What the agent can still do: read the key (it is a file of the same
//!   user) and forge lines with it, or delete the history together with its
//!   seal (or the whole state directory) to start the session afresh.
//!   These stop blind tampering, not a determined agent with the user's
//!   rights (docs/hooks.md).
//!
//! - The labels the session's results raised ([`RunLabel`], by the
//!   post-tool hook) are lines of the same chain (`{"toolvet.labels":
//!   [...]}`): a label line removed, edited or moved fails its MAC or the
//!   seal like any other line, so the labels every later call of the
//!   session is vetted with cannot be dropped blindly. Labels are never
//!   read from the agent's payload: only a result check raises them.
//!
//! Also:
//! - The file name is a digest of the session id, never the id itself, so
//!   a hostile id cannot reach outside the directory.
//! - The file is locked (an exclusive OS lock) from before it is read until
//!   the new call's line is written, so hooks that run at the same time
//!   take turns and see each other's calls.
//! - The file stays under [`MAX_FILE_BYTES`] without forgetting calls: once
//!   it is over half of that, it is rewritten (and MACed anew) with the
//!   core's rule ([`toolvet::history_fit`]): every entry keeps its name,
//!   outcome and small arguments, large arguments are elided oldest first
//!   (marked `toolvet.elided`), and a history that cannot fit even so
//!   refuses the call rather than dropping entries. A few large calls do
//!   not evict what run totals and session facts need.

use crate::HookError;
use hmac::{Hmac, Mac};
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use toolvet::run_history::MAX_RUN_LABELS;
use toolvet::tool_result::RunLabel;
use toolvet::{call::Outcome, call::PriorCall};

/// Largest history file kept, in bytes.
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// Largest arguments stored whole (longer ones are stored elided): a
/// quarter of [`MAX_FILE_BYTES`], so one append never takes a file that was
/// under half of it over it.
pub(crate) const MAX_RECORDED_BYTES: usize = (MAX_FILE_BYTES / 4) as usize;

/// What a compacted file's entries (names plus arguments text) fit into:
/// the file is then about this plus a line's MAC and framing per entry.
fn storage_budget() -> toolvet::history_fit::HistoryBudget {
    toolvet::history_fit::HistoryBudget {
        max_bytes: (MAX_FILE_BYTES / 4) as usize,
        max_entries: usize::MAX,
        keep_whole_bytes: toolvet::history_fit::KEEP_WHOLE_BYTES,
    }
}

/// The name of the history key in the state directory.
pub const KEY_FILE: &str = "history.key";

/// What every line's MAC covers first.
const DOMAIN: &[u8] = b"toolvet hook history v1\0";
/// The MAC before the first line.
const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

type HmacSha256 = Hmac<Sha256>;

/// One session's history file, locked while this value lives.
#[derive(Debug)]
pub struct SessionHistory {
    file: File,
    seal: File,
    path: PathBuf,
    name: String,
    key: [u8; 32],
    entries: Vec<PriorCall>,
    /// Per entry, the approval request that held it in the ledger (the
    /// call did not run), when it was so held.
    held: Vec<Option<String>>,
    /// The labels the session's results raised, oldest first, each once.
    labels: Vec<RunLabel>,
    /// The lines of the file (entries and label lines), as the seal
    /// counts them.
    lines: usize,
    last_mac: String,
}

/// The key of a label line: `{"toolvet.labels": [RunLabel, ...]}`.
const LABELS_KEY: &str = "toolvet.labels";

/// A label line's JSON.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct LabelsLine {
    #[serde(rename = "toolvet.labels")]
    labels: Vec<RunLabel>,
}

/// One line's JSON: a [`PriorCall`], and the approval request that held
/// it when it was held in the ledger (`toolvet.held`). Lines written
/// before that field existed read as not held.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    name: String,
    arguments: Box<RawValue>,
    outcome: Outcome,
    #[serde(
        rename = "toolvet.held",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    held: Option<String>,
}

/// The history file of `session` for `agent_name` under `dir`.
pub fn path_for(dir: &Path, agent_name: &str, session: &str) -> PathBuf {
    dir.join(agent_name).join(file_name(session))
}

fn file_name(session: &str) -> String {
    let digest = hex::encode(Sha256::digest(session.as_bytes()));
    format!("{}.jsonl", &digest[..32])
}

fn history_error(path: &Path, what: impl std::fmt::Display) -> HookError {
    HookError::History(format!("{}: {what}", path.display()))
}

impl SessionHistory {
    /// Open (creating it, its directories and the key as needed) and lock
    /// the history of `session` for `agent_name` under the state directory
    /// `dir`, and read and authenticate its entries.
    ///
    /// # Errors
    /// [`HookError::History`] naming the file or directory and what is
    /// wrong: not a private directory, a link, not a regular 0600 file of
    /// the user, a line that is not an entry or fails its MAC, a history
    /// shorter than its seal.
    pub fn open(dir: &Path, agent_name: &str, session: &str) -> Result<SessionHistory, HookError> {
        let name = file_name(session);
        let path = dir.join(agent_name).join(&name);
        let root = private_dir(dir, None)?;
        let key = history_key(&root, dir)?;
        let agent_dir = private_dir(&dir.join(agent_name), Some((&root, agent_name)))?;
        let mut file = private_file(&agent_dir, &path, &name)?;
        file.lock()
            .map_err(|e| history_error(&path, format_args!("cannot lock: {e}")))?;
        let seal_name = name.replace(".jsonl", ".seal");
        let seal_path = path.with_file_name(&seal_name);
        let seal = private_file(&agent_dir, &seal_path, &seal_name)?;
        let mut text = String::new();
        (&mut file)
            .take(MAX_FILE_BYTES + 1)
            .read_to_string(&mut text)
            .map_err(|e| {
                history_error(&path, format_args!("cannot read (not UTF-8 text?): {e}"))
            })?;
        let mut history = SessionHistory {
            file,
            seal,
            path,
            name,
            key,
            entries: Vec::new(),
            held: Vec::new(),
            labels: Vec::new(),
            lines: 0,
            last_mac: GENESIS.to_string(),
        };
        let mut macs = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let at =
                |what: &str| history_error(&history.path, format_args!("line {}: {what}", i + 1));
            let (mac, json) = line
                .split_once(' ')
                .ok_or_else(|| at("not a MACed history entry"))?;
            if !history
                .mac_line(&history.last_mac, json)
                .eq_ignore_ascii_case(mac)
            {
                return Err(at(
                    "fails its MAC: the history was edited outside toolvet, so it cannot vouch \
                     for this session's sequence rules; a person can remove the file (and its \
                     .seal) to start the session afresh",
                ));
            }
            history.last_mac = mac.to_ascii_lowercase();
            macs.push(history.last_mac.clone());
            history.lines += 1;
            if is_labels_line(json) {
                let line: LabelsLine = serde_json::from_str(json)
                    .map_err(|e| at(&format!("not a label line: {e}")))?;
                history.add_labels(&line.labels);
                continue;
            }
            let line: Line =
                serde_json::from_str(json).map_err(|e| at(&format!("not a history entry: {e}")))?;
            if !line.arguments.get().trim_start().starts_with('{') {
                return Err(at("`arguments` is not a JSON object"));
            }
            history.entries.push(PriorCall {
                name: line.name,
                arguments: line.arguments,
                outcome: line.outcome,
            });
            history.held.push(line.held);
        }
        history.check_seal(&macs)?;
        history.labels_fit()?;
        if text.len() as u64 > MAX_FILE_BYTES {
            history.compact()?;
        }
        Ok(history)
    }

    /// The entries, oldest first.
    pub fn entries(&self) -> &[PriorCall] {
        &self.entries
    }

    /// The labels the session's results raised, oldest first, each once
    /// (for `context.labels` of every later call and result).
    pub fn labels(&self) -> &[RunLabel] {
        &self.labels
    }

    /// Keep the labels a result of this session raised: those not yet
    /// kept are appended as one MACed line (and the seal moved past it).
    ///
    /// # Errors
    /// [`HookError::History`] when the line cannot be written, or when the
    /// session now holds more than [`MAX_RUN_LABELS`] labels: the session
    /// is over (as a run of `toolvet serve` is), and every later call of
    /// it is refused when the history is opened, never vetted with a label
    /// left out.
    pub fn record_labels(&mut self, labels: &[RunLabel]) -> Result<(), HookError> {
        let new: Vec<RunLabel> = labels
            .iter()
            .enumerate()
            .filter(|(i, l)| !self.labels.contains(l) && !labels[..*i].contains(l))
            .map(|(_, l)| l.clone())
            .collect();
        if new.is_empty() {
            return Ok(());
        }
        let json = encode_labels(&new)?;
        self.append_line(&json)?;
        self.add_labels(&new);
        self.labels_fit()
    }

    fn add_labels(&mut self, labels: &[RunLabel]) {
        for label in labels {
            if !self.labels.contains(label) {
                self.labels.push(label.clone());
            }
        }
    }

    /// The session is over once its results raised more than
    /// [`MAX_RUN_LABELS`] labels.
    fn labels_fit(&self) -> Result<(), HookError> {
        if self.labels.len() > MAX_RUN_LABELS {
            return Err(history_error(
                &self.path,
                format_args!(
                    "the session's results raised {} labels, over the {MAX_RUN_LABELS} a session \
                     keeps: the session is over, and its calls are denied (a person can remove \
                     the file and its .seal to start it afresh)",
                    self.labels.len()
                ),
            ));
        }
        Ok(())
    }

    /// Append the line `json`, MACed after the last one, and move the
    /// seal past it.
    fn append_line(&mut self, json: &str) -> Result<u64, HookError> {
        let mac = self.mac_line(&self.last_mac, json);
        let line = format!("{mac} {json}\n");
        let end = self
            .file
            .seek(SeekFrom::End(0))
            .and_then(|_| self.file.write_all(line.as_bytes()))
            .and_then(|()| self.file.sync_data())
            .and_then(|()| self.file.stream_position())
            .map_err(|e| history_error(&self.path, format_args!("cannot write: {e}")))?;
        self.last_mac = mac;
        self.lines += 1;
        self.write_seal()?;
        Ok(end)
    }

    /// The MAC of the line holding `json` after the line whose MAC is
    /// `previous`.
    fn mac_line(&self, previous: &str, json: &str) -> String {
        let mut mac = HmacSha256::new_from_slice(&self.key).expect("any key length");
        mac.update(DOMAIN);
        mac.update(self.name.as_bytes());
        mac.update(b"\0");
        mac.update(previous.as_bytes());
        mac.update(b"\0");
        mac.update(json.as_bytes());
        hex::encode(mac.finalize().into_bytes())
    }

    fn mac_seal(&self, count: usize, last: &str) -> String {
        let mut mac = HmacSha256::new_from_slice(&self.key).expect("any key length");
        mac.update(DOMAIN);
        mac.update(b"seal\0");
        mac.update(self.name.as_bytes());
        mac.update(format!("\0{count}\0{last}").as_bytes());
        hex::encode(mac.finalize().into_bytes())
    }

    /// The seal must name a prefix of the history read (`macs`, the MAC of
    /// each line): a history with fewer lines than its seal, or other ones,
    /// was deleted or cut. A history with lines and no seal lost its seal.
    fn check_seal(&mut self, macs: &[String]) -> Result<(), HookError> {
        let seal_path = self.path.with_extension("seal");
        let mut text = String::new();
        (&mut self.seal)
            .take(4096)
            .read_to_string(&mut text)
            .map_err(|e| history_error(&seal_path, format_args!("cannot read: {e}")))?;
        let fail = |what: &str| {
            Err(history_error(
                &self.path,
                format_args!(
                    "{what}; a history cannot vouch for this session's sequence rules, so the \
                     call is denied (a person can remove the file and its .seal to start the \
                     session afresh)"
                ),
            ))
        };
        if text.trim().is_empty() {
            if macs.is_empty() {
                return Ok(());
            }
            return fail("has entries but its seal is missing or empty");
        }
        let fields: Vec<&str> = text.split_whitespace().collect();
        let [version, count, last, mac] = fields[..] else {
            return fail("its seal is malformed");
        };
        let Ok(count) = count.parse::<usize>() else {
            return fail("its seal is malformed");
        };
        if version != "v1" || !self.mac_seal(count, last).eq_ignore_ascii_case(mac) {
            return fail("its seal fails its MAC");
        }
        let expected = if count == 0 {
            GENESIS
        } else {
            match macs.get(count - 1) {
                Some(m) => m.as_str(),
                None => {
                    return fail(&format!(
                        "holds {} entries where its seal counts {count}: it was deleted or cut \
                         short",
                        macs.len()
                    ));
                }
            }
        };
        if !expected.eq_ignore_ascii_case(last) {
            return fail("does not hold the entries its seal names: it was rewritten");
        }
        Ok(())
    }

    fn write_seal(&mut self) -> Result<(), HookError> {
        let count = self.lines;
        let text = format!(
            "v1 {count} {} {}\n",
            self.last_mac,
            self.mac_seal(count, &self.last_mac)
        );
        let seal_path = self.path.with_extension("seal");
        self.seal
            .set_len(0)
            .and_then(|()| self.seal.seek(SeekFrom::Start(0)).map(|_| ()))
            .and_then(|()| self.seal.write_all(text.as_bytes()))
            .and_then(|()| self.seal.sync_data())
            .map_err(|e| history_error(&seal_path, format_args!("cannot write: {e}")))
    }

    /// Append the call that was just vetted (then the lock is released
    /// when `self` drops); `held` names the approval request that holds it
    /// in the ledger, when it is so held (it did not run).
    ///
    /// # Errors
    /// [`HookError::History`] if the line cannot be written.
    pub fn append(
        &mut self,
        name: &str,
        arguments: &RawValue,
        outcome: Outcome,
        held: Option<&str>,
    ) -> Result<(), HookError> {
        let entry = PriorCall {
            name: name.to_string(),
            arguments: arguments.to_owned(),
            outcome,
        };
        let held = held.map(str::to_string);
        let json = encode(&entry, held.as_deref())?;
        self.entries.push(entry);
        self.held.push(held);
        let end = self.append_line(&json)?;
        if end > MAX_FILE_BYTES / 2 {
            self.compact()?;
        }
        Ok(())
    }

    /// Settle the newest entry still held by approval request `request`
    /// for the call `name` with `arguments` (recorded
    /// [`Outcome::Escalated`] with that request): it becomes
    /// `outcome` ([`Outcome::Approved`] when the approved call is resumed,
    /// [`Outcome::Rejected`] when a person rejected it). Returns whether
    /// such an entry was found; the file is rewritten (and MACed anew)
    /// when it was. The held call and its resume are one call, counted
    /// once (review s13 M3).
    ///
    /// # Errors
    /// [`HookError::History`] if the file cannot be rewritten.
    pub fn settle(
        &mut self,
        request: &str,
        name: &str,
        arguments: &RawValue,
        outcome: Outcome,
    ) -> Result<bool, HookError> {
        let Some(i) = self.newest_held(request, name, arguments) else {
            return Ok(false);
        };
        self.entries[i].outcome = outcome;
        self.rewrite()?;
        Ok(true)
    }

    /// The newest entry still held by approval request `request` that is
    /// the call `name` with `arguments` (as recorded): a ledger edited to
    /// name one request for another call settles nothing.
    pub fn newest_held(&self, request: &str, name: &str, arguments: &RawValue) -> Option<usize> {
        (0..self.entries.len()).rev().find(|&i| {
            let entry = &self.entries[i];
            entry.outcome == Outcome::Escalated
                && self.held[i].as_deref() == Some(request)
                && entry.name == name
                && entry.arguments.get() == arguments.get()
        })
    }

    /// The newest entry held in the ledger (recorded with its approval
    /// request, not an `ask`) and still held, of a call named one of
    /// `names` with `arguments` (as recorded): the call being vetted, if it
    /// is that held call coming again.
    pub fn newest_held_call(&self, names: &[&str], arguments: &RawValue) -> Option<usize> {
        (0..self.entries.len()).rev().find(|&i| {
            let entry = &self.entries[i];
            entry.outcome == Outcome::Escalated
                && self.held[i].is_some()
                && names.contains(&entry.name.as_str())
                && entry.arguments.get() == arguments.get()
        })
    }

    /// Rewrite the file with every entry, fitted by the core's rule
    /// ([`storage_budget`]): large arguments elided oldest first, none
    /// dropped.
    ///
    /// # Errors
    /// [`HookError::History`] when even so the entries do not fit (the
    /// call is refused: a history that forgets calls cannot vouch for run
    /// totals), or the file cannot be rewritten.
    fn compact(&mut self) -> Result<(), HookError> {
        storage_budget()
            .fit_mut(self.entries.iter_mut())
            .map_err(|overflow| {
                history_error(
                    &self.path,
                    format_args!(
                        "[{}] cannot be kept under {MAX_FILE_BYTES} bytes: {overflow}",
                        toolvet::history_fit::OVERFLOW_RULE
                    ),
                )
            })?;
        self.rewrite()
    }

    /// Rewrite the file with every entry as it is now, MACed anew, and its
    /// seal.
    fn rewrite(&mut self) -> Result<(), HookError> {
        let mut text = String::new();
        let mut last = GENESIS.to_string();
        let mut lines = Vec::with_capacity(self.entries.len() + 1);
        for (entry, held) in self.entries.iter().zip(&self.held) {
            lines.push(encode(entry, held.as_deref())?);
        }
        // The labels, kept whole (never elided), as one line.
        if !self.labels.is_empty() {
            lines.push(encode_labels(&self.labels)?);
        }
        for json in &lines {
            last = self.mac_line(&last, json);
            text.push_str(&format!("{last} {json}\n"));
        }
        self.last_mac = last;
        self.lines = lines.len();
        self.file
            .set_len(0)
            .and_then(|()| self.file.seek(SeekFrom::Start(0)).map(|_| ()))
            .and_then(|()| self.file.write_all(text.as_bytes()))
            .map_err(|e| history_error(&self.path, format_args!("cannot rewrite: {e}")))?;
        self.write_seal()
    }
}

/// Whether the line `json` is a label line (its one key is
/// [`LABELS_KEY`]); an entry's keys are `name`, `arguments`, `outcome`.
fn is_labels_line(json: &str) -> bool {
    serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(json)
        .is_ok_and(|m| m.contains_key(LABELS_KEY))
}

/// Labels as one line of JSON.
fn encode_labels(labels: &[RunLabel]) -> Result<String, HookError> {
    serde_json::to_string(&LabelsLine {
        labels: labels.to_vec(),
    })
    .map_err(|e| HookError::History(format!("cannot encode labels: {e}")))
}

/// An entry, held by approval request `held` or not, as one line of JSON.
fn encode(entry: &PriorCall, held: Option<&str>) -> Result<String, HookError> {
    let line = Line {
        name: entry.name.clone(),
        arguments: entry.arguments.clone(),
        outcome: entry.outcome,
        held: held.map(str::to_string),
    };
    let json = serde_json::to_string(&line)
        .map_err(|e| HookError::History(format!("cannot encode an entry: {e}")))?;
    if json.contains('\n') {
        // Raw arguments text with a line break: re-encode it compactly.
        let value: serde_json::Value = serde_json::from_str(&json)
            .map_err(|e| HookError::History(format!("cannot encode an entry: {e}")))?;
        return Ok(value.to_string());
    }
    Ok(json)
}

/// Open the directory `path` (creating it 0700 when missing) without
/// following a link in its last component, and check that it is a
/// directory of this user with no group or other access. With `parent`,
/// it is opened relative to that already verified directory.
#[cfg(unix)]
fn private_dir(path: &Path, parent: Option<(&File, &str)>) -> Result<File, HookError> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let fail = |what: String| history_error(path, what);
    let opened = match parent {
        Some((parent, name)) => {
            match rustix::fs::mkdirat(parent, name, Mode::from_raw_mode(0o700)) {
                Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                Err(e) => return Err(fail(format!("cannot create the directory: {e}"))),
            }
            rustix::fs::openat(parent, name, flags, Mode::empty())
        }
        None => {
            if std::fs::symlink_metadata(path).is_err() {
                let mut builder = std::fs::DirBuilder::new();
                builder.recursive(true);
                std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
                builder
                    .create(path)
                    .map_err(|e| fail(format!("cannot create the directory: {e}")))?;
            }
            rustix::fs::open(path, flags, Mode::empty())
        }
    };
    let dir = File::from(opened.map_err(|e| match e {
        rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR => fail(format!(
            "is not a directory (a symbolic link or a file?): the hook's state directory must \
             be a real directory ({e})"
        )),
        e => fail(format!("cannot open the directory: {e}")),
    })?);
    check_owned(&dir, path, true)?;
    Ok(dir)
}

/// Open (creating it 0600) the file `name` in the verified directory
/// `dir` without following a link, and check it: a regular file of this
/// user, mode 0600, one link.
#[cfg(unix)]
fn private_file(dir: &File, path: &Path, name: &str) -> Result<File, HookError> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::RDWR | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let file = rustix::fs::openat(dir, name, flags, Mode::from_raw_mode(0o600)).map_err(|e| {
        history_error(
            path,
            match e {
                rustix::io::Errno::LOOP => format!(
                    "is a symbolic link ({e}); the hook never follows one, so the call is denied"
                ),
                e => format!("cannot open: {e}"),
            },
        )
    })?;
    let file = File::from(file);
    check_owned(&file, path, false)?;
    Ok(file)
}

#[cfg(unix)]
fn check_owned(file: &File, path: &Path, directory: bool) -> Result<(), HookError> {
    use std::os::unix::fs::MetadataExt;
    let meta = file
        .metadata()
        .map_err(|e| history_error(path, format_args!("cannot stat: {e}")))?;
    let fail = |what: String| Err(history_error(path, what));
    let euid = rustix::process::geteuid().as_raw();
    if meta.uid() != euid {
        return fail(format!(
            "is owned by uid {}, not by this user (uid {euid}); the call is denied",
            meta.uid()
        ));
    }
    let mode = meta.mode() & 0o7777;
    if directory {
        if !meta.is_dir() {
            return fail("is not a directory".into());
        }
        if mode & 0o077 != 0 {
            return fail(format!(
                "has mode {mode:04o}; the hook's state directory must be private to its user \
                 (0700): `chmod 700 {}`",
                path.display()
            ));
        }
    } else {
        if !meta.is_file() {
            return fail("is not a regular file".into());
        }
        if mode != 0o600 {
            return fail(format!(
                "has mode {mode:04o}; the hook's state files must be 0600 (a file whose mode \
                 was changed was not made by toolvet)"
            ));
        }
        if meta.nlink() != 1 {
            return fail(format!(
                "has {} links; a hard link could make the hook write into another file, so the \
                 call is denied",
                meta.nlink()
            ));
        }
    }
    Ok(())
}

/// How many different byte values `bytes` holds.
fn distinct_bytes(bytes: &[u8]) -> usize {
    let mut seen = [false; 256];
    for &b in bytes {
        seen[usize::from(b)] = true;
    }
    seen.iter().filter(|&&s| s).count()
}

/// The history key in the state directory `root` (created, 32 random
/// bytes, mode 0600, when missing; under a lock on the directory so that
/// hooks running together agree on one key).
#[cfg(unix)]
fn history_key(root: &File, dir: &Path) -> Result<[u8; 32], HookError> {
    let path = dir.join(KEY_FILE);
    rustix::fs::flock(root, rustix::fs::FlockOperation::LockExclusive)
        .map_err(|e| history_error(dir, format_args!("cannot lock: {e}")))?;
    let result = (|| {
        let mut file = private_file(root, &path, KEY_FILE)?;
        let mut key = Vec::new();
        (&mut file)
            .take(65)
            .read_to_end(&mut key)
            .map_err(|e| history_error(&path, format_args!("cannot read: {e}")))?;
        match key.len() {
            0 => {
                let mut fresh = [0u8; 32];
                getrandom::fill(&mut fresh)
                    .map_err(|e| history_error(&path, format_args!("no randomness: {e}")))?;
                file.write_all(&fresh)
                    .and_then(|()| file.sync_all())
                    .map_err(|e| history_error(&path, format_args!("cannot write: {e}")))?;
                Ok(fresh)
            }
            // A file zeroed or filled in place (`fallocate -p`, `truncate`
            // then a fill) holds 32 bytes an agent knows: a random key has
            // about 30 distinct bytes, never under 8 in practice (review
            // s11 K10).
            32 if distinct_bytes(&key) < 8 => Err(history_error(
                &path,
                "holds 32 bytes that are not a random key (zeroed or filled); remove it to \
                 start new session histories",
            )),
            32 => Ok(key.try_into().expect("32 bytes")),
            n => Err(history_error(
                &path,
                format_args!("holds {n} bytes, not a 32-byte key"),
            )),
        }
    })();
    let _ = rustix::fs::flock(root, rustix::fs::FlockOperation::Unlock);
    result
}

#[cfg(not(unix))]
fn private_dir(path: &Path, _parent: Option<(&File, &str)>) -> Result<File, HookError> {
    Err(history_error(
        path,
        "session history needs a Unix system (O_NOFOLLOW, owner and mode checks)",
    ))
}

#[cfg(not(unix))]
fn private_file(_dir: &File, path: &Path, _name: &str) -> Result<File, HookError> {
    Err(history_error(path, "session history needs a Unix system"))
}

#[cfg(not(unix))]
fn history_key(_root: &File, dir: &Path) -> Result<[u8; 32], HookError> {
    Err(history_error(dir, "session history needs a Unix system"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.into()).unwrap()
    }

    fn state() -> (tempfile::TempDir, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("state");
        (tmp, dir)
    }

    fn one_entry(dir: &Path, session: &str) -> PathBuf {
        let mut h = SessionHistory::open(dir, "codex", session).unwrap();
        h.append("read_file", &raw(r#"{"path":"a"}"#), Outcome::Allowed, None)
            .unwrap();
        path_for(dir, "codex", session)
    }

    fn error(dir: &Path, session: &str) -> String {
        SessionHistory::open(dir, "codex", session)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn a_held_entry_settles_in_place_and_the_file_still_verifies() {
        let (_tmp, dir) = state();
        let pay = raw(r#"{"amount":500}"#);
        {
            let mut h = SessionHistory::open(&dir, "codex", "s").unwrap();
            h.append("pay", &pay, Outcome::Escalated, Some("apr_1"))
                .unwrap();
            h.append("ls", &raw("{}"), Outcome::Allowed, None).unwrap();
            // An ask of the same request is not held in the ledger.
            h.append("pay", &pay, Outcome::Escalated, None).unwrap();
            assert_eq!(h.newest_held("apr_1", "pay", &pay), Some(0));
            assert!(!h.settle("apr_2", "pay", &pay, Outcome::Approved).unwrap());
            // Another call under the same request settles nothing.
            let other = raw(r#"{"amount":1}"#);
            assert!(!h.settle("apr_1", "pay", &other, Outcome::Approved).unwrap());
        }
        let mut h = SessionHistory::open(&dir, "codex", "s").unwrap();
        assert!(h.settle("apr_1", "pay", &pay, Outcome::Approved).unwrap());
        // Settled: no longer held, so a second resume is a new call.
        assert_eq!(h.newest_held("apr_1", "pay", &pay), None);
        assert!(!h.settle("apr_1", "pay", &pay, Outcome::Approved).unwrap());
        h.append("ls", &raw("{}"), Outcome::Allowed, None).unwrap();
        drop(h);
        let h = SessionHistory::open(&dir, "codex", "s").unwrap();
        let outcomes: Vec<Outcome> = h.entries().iter().map(|e| e.outcome).collect();
        assert_eq!(
            outcomes,
            [
                Outcome::Approved,
                Outcome::Allowed,
                Outcome::Escalated,
                Outcome::Allowed
            ]
        );
    }

    fn label(name: &str) -> RunLabel {
        RunLabel {
            name: name.into(),
            values: vec!["https://evil.example".into()],
            check: "contract-02".into(),
            tool: "fetch".into(),
            call_id: String::new(),
        }
    }

    #[test]
    fn labels_are_kept_once_in_order_and_survive_settling_and_compaction() {
        let (_tmp, dir) = state();
        let pay = raw(r#"{"amount":500}"#);
        {
            let mut h = SessionHistory::open(&dir, "codex", "s").unwrap();
            h.append("pay", &pay, Outcome::Escalated, Some("apr_1"))
                .unwrap();
            h.record_labels(&[label("untrusted-content"), label("untrusted-content")])
                .unwrap();
            h.record_labels(&[label("secret-seen"), label("untrusted-content")])
                .unwrap();
            // Nothing new: no line.
            h.record_labels(&[label("secret-seen")]).unwrap();
            h.append("ls", &raw("{}"), Outcome::Allowed, None).unwrap();
        }
        let path = path_for(&dir, "codex", "s");
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 4, "{text}");
        let mut h = SessionHistory::open(&dir, "codex", "s").unwrap();
        let names = |h: &SessionHistory| -> Vec<String> {
            h.labels().iter().map(|l| l.name.clone()).collect()
        };
        assert_eq!(names(&h), ["untrusted-content", "secret-seen"]);
        assert_eq!(h.entries().len(), 2);
        // A rewrite (settling a held call) keeps them, MACed anew.
        assert!(h.settle("apr_1", "pay", &pay, Outcome::Approved).unwrap());
        drop(h);
        let h = SessionHistory::open(&dir, "codex", "s").unwrap();
        assert_eq!(names(&h), ["untrusted-content", "secret-seen"]);
        assert_eq!(h.entries()[0].outcome, Outcome::Approved);
    }

    #[test]
    fn a_removed_or_edited_label_line_is_refused() {
        let (_tmp, dir) = state();
        let path = one_entry(&dir, "s");
        {
            let mut h = SessionHistory::open(&dir, "codex", "s").unwrap();
            h.record_labels(&[label("untrusted-content")]).unwrap();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[1].contains("\"toolvet.labels\""), "{text}");
        // The last line removed: shorter than its seal.
        std::fs::write(&path, format!("{}\n", lines[0])).unwrap();
        assert!(error(&dir, "s").contains("deleted or cut short"));
        // Edited: fails its MAC.
        let edited = lines[1].replace("untrusted-content", "untrusted-contenx");
        std::fs::write(&path, format!("{}\n{edited}\n", lines[0])).unwrap();
        assert!(error(&dir, "s").contains("line 2: fails its MAC"));
        // Moved before the entry: both fail.
        std::fs::write(&path, format!("{}\n{}\n", lines[1], lines[0])).unwrap();
        assert!(error(&dir, "s").contains("line 1: fails its MAC"));
        std::fs::write(&path, text).unwrap();
        assert_eq!(
            SessionHistory::open(&dir, "codex", "s").unwrap().labels(),
            [label("untrusted-content")]
        );
    }

    #[test]
    fn a_session_with_too_many_labels_is_over() {
        let (_tmp, dir) = state();
        let many: Vec<RunLabel> = (0..=MAX_RUN_LABELS)
            .map(|i| label(&format!("l{i}")))
            .collect();
        let mut h = SessionHistory::open(&dir, "codex", "s").unwrap();
        let e = h.record_labels(&many).unwrap_err().to_string();
        assert!(e.contains("the session is over"), "{e}");
        drop(h);
        assert!(error(&dir, "s").contains("the session is over"));
    }

    #[test]
    fn entries_survive_reopening_and_session_ids_cannot_escape() {
        let (_tmp, dir) = state();
        let path = path_for(&dir, "codex", "../../etc/passwd");
        assert!(path.starts_with(dir.join("codex")), "{}", path.display());
        one_entry(&dir, "../../etc/passwd");
        let h = SessionHistory::open(&dir, "codex", "../../etc/passwd").unwrap();
        assert_eq!(h.entries().len(), 1);
        assert_eq!(h.entries()[0].name, "read_file");
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&dir.join("codex")), 0o700);
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&dir.join(KEY_FILE)), 0o600);
    }

    /// Review s11 K10: a key zeroed or filled in place is a key the agent
    /// knows; the hook refuses it rather than sign new histories with it.
    #[test]
    fn a_zeroed_or_filled_key_is_refused() {
        for fill in [[0u8; 32], [0x41u8; 32]] {
            let (_tmp, dir) = state();
            one_entry(&dir, "s");
            std::fs::write(dir.join(KEY_FILE), fill).unwrap();
            let e = error(&dir, "new-session");
            assert!(
                e.contains("not a random key") && e.contains(KEY_FILE),
                "{e}"
            );
        }
    }

    #[test]
    fn a_symlinked_history_is_refused_and_its_target_untouched() {
        let (tmp, dir) = state();
        let path = one_entry(&dir, "s");
        let target = tmp.path().join("bash_profile");
        std::fs::write(&target, "echo hi\n").unwrap();
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(&target, &path).unwrap();
        let e = error(&dir, "s");
        assert!(e.contains("symbolic link") && e.contains(".jsonl"), "{e}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "echo hi\n");
        // A hard link, even to a 0600 file of the user.
        std::fs::remove_file(&path).unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::hard_link(&target, &path).unwrap();
        assert!(error(&dir, "s").contains("links"));
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "echo hi\n");
    }

    #[test]
    fn directories_and_files_must_be_private() {
        let (tmp, dir) = state();
        let path = one_entry(&dir, "s");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(
            error(&dir, "s").contains("mode 0644"),
            "{}",
            error(&dir, "s")
        );
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = error(&dir, "s");
        assert!(e.contains("mode 0777") && e.contains("state"), "{e}");
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        // The state directory as a link to another directory.
        let elsewhere = tmp.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        std::fs::set_permissions(&elsewhere, std::fs::Permissions::from_mode(0o700)).unwrap();
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
        let e = SessionHistory::open(&link, "codex", "s")
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a directory"), "{e}");
        assert!(std::fs::read_dir(&elsewhere).unwrap().next().is_none());
    }

    #[test]
    fn forged_edited_and_moved_lines_fail_their_mac() {
        let (_tmp, dir) = state();
        let path = one_entry(&dir, "s");
        let good = std::fs::read_to_string(&path).unwrap();
        // An appended line with a made-up MAC.
        let forged = format!(
            "{good}{} {{\"name\":\"read_file\",\"arguments\":{{\"path\":\"b\"}},\"outcome\":\"allowed\"}}\n",
            "ab".repeat(32)
        );
        std::fs::write(&path, &forged).unwrap();
        let e = error(&dir, "s");
        assert!(e.contains("line 2") && e.contains("MAC"), "{e}");
        // The genuine line, edited.
        std::fs::write(&path, good.replace("\"a\"", "\"b\"")).unwrap();
        assert!(error(&dir, "s").contains("line 1"));
        // A plain (unMACed) line, as older versions wrote.
        std::fs::write(
            &path,
            "{\"name\":\"a\",\"arguments\":{},\"outcome\":\"allowed\"}\n",
        )
        .unwrap();
        assert!(error(&dir, "s").contains("line 1"));
        // Another session's genuine line.
        let other = one_entry(&dir, "t");
        std::fs::write(&path, std::fs::read_to_string(other).unwrap()).unwrap();
        assert!(error(&dir, "s").contains("MAC"));
    }

    #[test]
    fn a_deleted_or_cut_history_is_refused_while_its_seal_remains() {
        let (_tmp, dir) = state();
        let path = one_entry(&dir, "s");
        {
            let mut h = SessionHistory::open(&dir, "codex", "s").unwrap();
            h.append("bash", &raw(r#"{"command":"ls"}"#), Outcome::Denied, None)
                .unwrap();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let first = text.lines().next().unwrap();
        std::fs::write(&path, format!("{first}\n")).unwrap();
        let e = error(&dir, "s");
        assert!(e.contains("holds 1 entries where its seal counts 2"), "{e}");
        std::fs::remove_file(&path).unwrap();
        let e = error(&dir, "s");
        assert!(e.contains("deleted or cut short"), "{e}");
        // A history whose seal was removed.
        std::fs::write(&path, &text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(
            SessionHistory::open(&dir, "codex", "s")
                .unwrap()
                .entries()
                .len(),
            2
        );
        std::fs::remove_file(path.with_extension("seal")).unwrap();
        assert!(error(&dir, "s").contains("seal is missing"));
    }

    #[test]
    fn concurrent_appends_are_all_kept() {
        let (_tmp, dir) = state();
        let threads: Vec<_> = (0..8)
            .map(|i| {
                let dir = dir.clone();
                std::thread::spawn(move || {
                    for j in 0..20 {
                        let mut h = SessionHistory::open(&dir, "codex", "s").unwrap();
                        let before = h.entries().len();
                        h.append(&format!("t{i}-{j}"), &raw("{}"), Outcome::Allowed, None)
                            .unwrap();
                        assert_eq!(h.entries().len(), before + 1);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(
            SessionHistory::open(&dir, "codex", "s")
                .unwrap()
                .entries()
                .len(),
            160
        );
    }
}
