//! Files the run's file tools wrote whole, for a later command that runs
//! one (`write_file {path: "r.sh", content: "rm -rf ~"}`, then `bash r.sh`,
//! `./r.sh`, `make -f r.mk`, `cat r.sh | sh`): the command is judged with
//! the text written, as a file written earlier in the same command is
//! (review-s9 G11, across calls).
//!
//! A claim, like every run fact: the history says the call was allowed,
//! not that the file still holds that text. So the text only adds what it
//! runs to the judgement (a file never seen stays as it was: not read),
//! and every whole text a path was given in the run is judged, joined in
//! order, so that a later harmless write cannot hide an earlier one.

use check_catalog::roles;
use serde_json::Value;
use toolvet_pdk::Context;

/// Argument names holding the path of a file a tool writes whole.
const PATH_ARGS: &[&str] = &[
    "path",
    "file_path",
    "filepath",
    "filename",
    "file",
    "target_file",
    "absolute_path",
];

/// Argument names holding the whole text it writes.
const CONTENT_ARGS: &[&str] = &["content", "contents", "file_text", "text"];

/// Argument names holding a patch (Codex's `apply_patch`).
const PATCH_ARGS: &[&str] = &["input", "patch"];

/// Argument names that make a call an edit of part of a file, not a
/// write of all of it.
const PART_ARGS: &[&str] = &[
    "old_string",
    "new_string",
    "old_str",
    "new_str",
    "insert_line",
    "edits",
    "append",
    "mode",
];

/// Most bytes of text kept for one path; past it, the path's text is
/// cut there (what a command then runs from it is judged up to the cut).
const MAX_TEXT: usize = 256 * 1024;

/// `(path as the tool named it, text)` for each file the history's calls
/// that ran wrote whole, oldest first, every text of one path joined by
/// newlines: a path and a text argument side by side (`Write {file_path,
/// content}`, `write_file {path, content}`, `create {path, file_text}`),
/// and the files a patch adds (`*** Add File: P`).
pub fn files_written(ctx: &Context) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = Vec::new();
    let mut add = |path: &str, text: &str| {
        if path.is_empty() {
            return;
        }
        match files.iter_mut().find(|(p, _)| p == path) {
            Some((_, t)) if t.len() < MAX_TEXT => {
                t.push('\n');
                t.push_str(text);
                t.truncate(floor_char_boundary(t, MAX_TEXT));
            }
            Some(_) => {}
            None => {
                let mut t = text.to_string();
                t.truncate(floor_char_boundary(&t, MAX_TEXT));
                files.push((path.to_string(), t));
            }
        }
    };
    for p in ctx.history.iter().filter(|p| p.outcome.ran()) {
        let Ok(args) = serde_json::from_str::<Value>(&p.arguments) else {
            continue;
        };
        let Some(obj) = args.as_object() else {
            continue;
        };
        let strings = |names: &[&str]| -> Vec<&str> {
            roles::values(&args, names)
                .into_iter()
                .filter_map(|(_, v)| v.as_str())
                .collect()
        };
        for patch in strings(PATCH_ARGS) {
            for f in crate::code::embedded::patch_files(patch, None) {
                if f.op == crate::code::embedded::PatchOp::Add {
                    add(&f.path, &f.added);
                }
            }
        }
        let partial = obj
            .keys()
            .any(|k| PART_ARGS.iter().any(|a| roles::same_key(k, a)));
        let (paths, texts) = (strings(PATH_ARGS), strings(CONTENT_ARGS));
        if !partial && let ([path], [text]) = (paths.as_slice(), texts.as_slice()) {
            add(path, text);
        }
    }
    files
}

/// The largest index at most `at` that is a character boundary of `s`.
fn floor_char_boundary(s: &str, at: usize) -> usize {
    let mut i = at.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}
