//! `toolvet test --watch`: the changes to checks' sources, as a stream of
//! "something changed" wake-ups.

use anyhow::Context as _;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;
use tokio::sync::mpsc;

/// Directories whose changes are the build's own output or tools' caches,
/// never a reason to rebuild.
const IGNORED: [&str; 4] = ["target", "node_modules", "__pycache__", ".git"];

/// How long to wait after a change for the rest of an editor's writes.
const SETTLE: Duration = Duration::from_millis(300);

/// Watches directories (recursively) for changes to their sources.
pub(crate) struct Changes {
    /// Kept alive: dropping it stops the watching.
    watcher: notify::RecommendedWatcher,
    dirs: Vec<PathBuf>,
    rx: mpsc::UnboundedReceiver<()>,
}

impl Changes {
    /// Watch `dirs`.
    ///
    /// # Errors
    /// The platform's file watcher cannot be started, or a directory
    /// cannot be watched.
    pub(crate) fn watch(dirs: &[PathBuf]) -> anyhow::Result<Changes> {
        let (tx, rx) = mpsc::unbounded_channel();
        let roots = dirs.to_vec();
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                let Ok(event) = event else { return };
                if matches!(event.kind, notify::EventKind::Access(_)) {
                    return;
                }
                if event.paths.iter().any(|p| is_source(&roots, p)) {
                    let _ = tx.send(());
                }
            })
            .context("cannot start watching files")?;
        for dir in dirs {
            notify::Watcher::watch(&mut watcher, dir, notify::RecursiveMode::Recursive)
                .with_context(|| format!("cannot watch {}", dir.display()))?;
            // The parent too, so that a check directory removed and made
            // again (a `git checkout`, a `git stash`) is seen.
            if let Some(parent) = dir.parent() {
                let _ = notify::Watcher::watch(
                    &mut watcher,
                    parent,
                    notify::RecursiveMode::NonRecursive,
                );
            }
        }
        Ok(Changes {
            watcher,
            dirs: dirs.to_vec(),
            rx,
        })
    }

    /// Wait for the next change, then for the writes after it to settle.
    pub(crate) async fn next(&mut self) {
        if self.rx.recv().await.is_none() {
            // The watcher is gone: nothing will ever change again.
            std::future::pending::<()>().await;
        }
        while let Ok(Some(())) = tokio::time::timeout(SETTLE, self.rx.recv()).await {}
        // A directory made again is a new directory: watch it afresh.
        for dir in &self.dirs {
            if dir.is_dir() {
                let _ = notify::Watcher::unwatch(&mut self.watcher, dir);
                if let Err(e) =
                    notify::Watcher::watch(&mut self.watcher, dir, notify::RecursiveMode::Recursive)
                {
                    eprintln!("toolvet test --watch: cannot watch {}: {e}", dir.display());
                }
            }
        }
    }
}

/// Whether `path` is a source of one of the checks in `roots`: inside one,
/// and not under a build output or cache directory.
fn is_source(roots: &[PathBuf], path: &Path) -> bool {
    roots.iter().any(|root| {
        path.strip_prefix(root).is_ok_and(|rest| {
            !rest
                .components()
                .any(|c| matches!(c, Component::Normal(name) if IGNORED.iter().any(|i| name == *i)))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_outputs_are_not_sources() {
        let roots = [PathBuf::from("/c/check")];
        assert!(is_source(&roots, Path::new("/c/check/src/lib.rs")));
        assert!(is_source(&roots, Path::new("/c/check/cases.yaml")));
        assert!(!is_source(&roots, Path::new("/c/check/target/x.wasm")));
        assert!(!is_source(
            &roots,
            Path::new("/c/check/node_modules/k/index.js")
        ));
        assert!(!is_source(&roots, Path::new("/c/check/__pycache__/x.pyc")));
        assert!(!is_source(&roots, Path::new("/c/other/src/lib.rs")));
    }
}
