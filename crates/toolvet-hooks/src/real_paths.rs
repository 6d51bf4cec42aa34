//! Where a call's paths really are, found on the file system the tools run
//! on (review s22 R1).
//!
//! The checks run in a sandbox without a file system: they judge a path's
//! text, and know only the symbolic links they can read from the run's
//! history. A link made by code, by git, with a computed target, or in an
//! earlier session leads them astray (`h/pol/policy.toml` where `h` is a
//! link to the home). The hooks run beside the tools, so before the checks
//! run they resolve every string of the call's arguments that names an
//! existing place (values and object keys, relative ones against each
//! directory the call may work in) the way the kernel will: following
//! every symbolic link, the longest existing part resolved and the rest
//! taken as written. The property, proven for every path argument: *the
//! checks judge a path as written and at its real location, the strictest
//! decision winning; a file that is one of toolvet's state files by device
//! and inode (a hard link, whoever made it) is that state file; and a path
//! whose real location cannot be found (a directory that cannot be read, a
//! loop of links) is held.* The findings go to the checks in the attribute
//! [`check_catalog::pathnorm::REAL_PATHS_ATTRIBUTE`], keyed by the path as
//! path-guard spells it ([`check_catalog::pathnorm::normalize`], one
//! function for both).

use check_catalog::pathnorm::{self, Real, RealPaths};
use check_catalog::workdir::{self, Base};
use serde_json::{Map, Value};
use std::collections::VecDeque;
use std::io::ErrorKind;
use std::os::unix::fs::MetadataExt;

/// Most strings of one call looked up (the rest are judged as written).
const MAX_STRINGS: usize = 512;
/// Longest string taken for a path (`PATH_MAX`).
const MAX_LEN: usize = 4096;
/// Most symbolic links followed for one path (Linux's limit).
const MAX_HOPS: usize = 40;

/// toolvet's state and secret files by device and inode.
#[derive(Debug, Default)]
pub(crate) struct StateFiles(Vec<(u64, u64, String)>);

impl StateFiles {
    /// The state paths `paths` that exist, by device and inode.
    pub(crate) fn of<'a>(paths: impl IntoIterator<Item = &'a str>) -> StateFiles {
        StateFiles(
            paths
                .into_iter()
                .filter_map(|p| {
                    let m = std::fs::metadata(p).ok()?;
                    Some((m.dev(), m.ino(), p.to_string()))
                })
                .collect(),
        )
    }

    /// The state paths that are the file `(dev, ino)`.
    fn same_file(&self, dev: u64, ino: u64) -> impl Iterator<Item = &str> {
        self.0
            .iter()
            .filter(move |(d, i, _)| *d == dev && *i == ino)
            .map(|(_, _, p)| p.as_str())
    }
}

/// What the file system says of the paths in `arguments` (a call whose
/// working directory is `cwd`, the user's home `home`): every string (and
/// object key) whose real location differs from its text, or is a state
/// file by device and inode, or cannot be found; and the working directory
/// itself (the checks' root) when it is reached through a link.
pub(crate) fn of(
    arguments: &Map<String, Value>,
    cwd: Option<&str>,
    home: Option<&str>,
    state: &StateFiles,
) -> RealPaths {
    let mut out = RealPaths::default();
    let args = Value::Object(arguments.clone());
    let mut bases: Vec<Option<String>> = vec![cwd.map(str::to_string)];
    for base in workdir::bases(&args, &[] as &[&str], cwd, home) {
        if let Base::Dir(d) = base
            && !bases.contains(&Some(d.clone()))
        {
            bases.push(Some(d));
        }
    }
    let mut strings = Vec::new();
    collect(&args, &mut strings);
    strings.extend(cwd);
    for text in strings.into_iter().take(MAX_STRINGS) {
        if text.is_empty() || text.len() > MAX_LEN || text.contains('\n') {
            continue;
        }
        for base in &bases {
            let (Ok(key), Ok(kernel)) = (
                pathnorm::normalize(text, base.as_deref(), home),
                pathnorm::absolute(text, base.as_deref(), home),
            ) else {
                continue;
            };
            if out.get(&key).is_some() {
                continue;
            }
            match real_location(&kernel) {
                Ok(real) => {
                    let mut at = Vec::new();
                    if real != key {
                        at.push(real.clone());
                    }
                    if let Ok(m) = std::fs::metadata(&real) {
                        for p in state.same_file(m.dev(), m.ino()) {
                            if p != key && !at.iter().any(|a| a == p) {
                                at.push(p.to_string());
                            }
                        }
                    }
                    if !at.is_empty() {
                        out.insert(key, Real::At(at));
                    }
                }
                Err(why) => out.insert(key, Real::Unknown(why)),
            }
        }
    }
    out
}

/// Every string value and object key under `value`.
fn collect<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|i| collect(i, out)),
        Value::Object(map) => {
            for (k, v) in map {
                out.push(k);
                collect(v, out);
            }
        }
        _ => {}
    }
}

/// Where the kernel takes the absolute path `kernel` (its `..` applied
/// after the links before it, as the kernel does): every symbolic link
/// followed; from the first part that does not exist on, the rest as
/// written (a write creates it there). An error when a part cannot be
/// examined (a directory that cannot be read) or the links loop.
pub(crate) fn real_location(kernel: &str) -> Result<String, String> {
    let mut done: Vec<String> = Vec::new();
    let mut todo: VecDeque<String> = parts(kernel).collect();
    let mut missing = false;
    let mut hops = 0;
    while let Some(part) = todo.pop_front() {
        match part.as_str() {
            "." => continue,
            ".." => {
                done.pop();
                continue;
            }
            _ => {}
        }
        if missing {
            done.push(part);
            continue;
        }
        let here = format!(
            "/{}",
            done.iter()
                .chain([&part])
                .cloned()
                .collect::<Vec<_>>()
                .join("/")
        );
        match std::fs::symlink_metadata(&here) {
            Ok(m) if m.file_type().is_symlink() => {
                hops += 1;
                if hops > MAX_HOPS {
                    return Err(format!(
                        "more than {MAX_HOPS} symbolic links from `{kernel}`"
                    ));
                }
                let target = std::fs::read_link(&here)
                    .map_err(|e| format!("the link `{here}` cannot be read: {e}"))?;
                let target = target.to_str().ok_or_else(|| {
                    format!("the link `{here}` leads to a path that is not UTF-8")
                })?;
                if target.starts_with('/') {
                    done.clear();
                }
                for p in parts(target).collect::<Vec<_>>().into_iter().rev() {
                    todo.push_front(p);
                }
            }
            Ok(_) => done.push(part),
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
                missing = true;
                done.push(part);
            }
            Err(e) => return Err(format!("`{here}` cannot be examined: {e}")),
        }
    }
    Ok(format!("/{}", done.join("/")))
}

/// The non-empty parts of a path.
fn parts(path: &str) -> impl Iterator<Item = String> + '_ {
    path.split('/')
        .filter(|p| !p.is_empty())
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_followed_as_the_kernel_does() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let root = root.to_str().unwrap();
        std::fs::create_dir_all(format!("{root}/home/pol")).unwrap();
        std::fs::create_dir_all(format!("{root}/home/project")).unwrap();
        std::fs::write(format!("{root}/home/pol/policy.toml"), "x").unwrap();
        std::os::unix::fs::symlink("..", format!("{root}/home/project/up")).unwrap();
        std::os::unix::fs::symlink(format!("{root}/home"), format!("{root}/home/project/h"))
            .unwrap();
        std::os::unix::fs::symlink("nowhere/x", format!("{root}/home/project/dangling")).unwrap();
        std::os::unix::fs::symlink("loop", format!("{root}/home/project/loop")).unwrap();
        let real = |p: &str| real_location(&format!("{root}/home/project/{p}"));
        assert_eq!(
            real("up/pol/policy.toml").unwrap(),
            format!("{root}/home/pol/policy.toml")
        );
        assert_eq!(
            real("h/pol/new.toml").unwrap(),
            format!("{root}/home/pol/new.toml")
        );
        // `..` after a link applies to where the link leads.
        assert_eq!(
            real("h/project/../pol").unwrap(),
            format!("{root}/home/pol")
        );
        assert_eq!(real("up/..").unwrap(), root.to_string());
        assert_eq!(
            real("dangling").unwrap(),
            format!("{root}/home/project/nowhere/x")
        );
        assert_eq!(
            real("src/a.rs").unwrap(),
            format!("{root}/home/project/src/a.rs")
        );
        assert!(real("loop/x").is_err());
        // The hard link of a state file is that state file.
        std::fs::hard_link(
            format!("{root}/home/pol/policy.toml"),
            format!("{root}/home/project/p.toml"),
        )
        .unwrap();
        let state = StateFiles::of([format!("{root}/home/pol/policy.toml").as_str()]);
        let cwd = format!("{root}/home/project");
        let args = serde_json::json!({"file_path": "p.toml", "content": "hello world",
            "edits": {"h/pol/policy.toml": "x"}});
        let found = of(args.as_object().unwrap(), Some(&cwd), None, &state);
        assert_eq!(
            found.get(&format!("{cwd}/p.toml")),
            Some(&Real::At(vec![format!("{root}/home/pol/policy.toml")]))
        );
        assert_eq!(
            found.get(&format!("{cwd}/h/pol/policy.toml")),
            Some(&Real::At(vec![format!("{root}/home/pol/policy.toml")]))
        );
        assert_eq!(found.get(&format!("{cwd}/hello world")), None);
    }
}
