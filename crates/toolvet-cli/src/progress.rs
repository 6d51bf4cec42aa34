//! First-run progress: what the core reports while checks compile or
//! snapshots are taken ([`toolvet::progress::LoadEvent`]), shown on stderr, never on
//! stdout (verdicts, case results and reports go there for programs to
//! read). On a terminal, a progress bar; otherwise one plain line when
//! compiling starts and one when it is done. Nothing at all when every
//! component comes from the cache. `toolvet hook` shows none: an agent
//! reads its hook's output.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal as _;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use toolvet::display::visible;
use toolvet::{progress::LoadEvent, progress::LoadObserver};

/// The observer the CLI's commands load policies with: a bar when stderr
/// is a terminal, plain lines otherwise.
pub(crate) fn observer() -> Option<Arc<dyn LoadObserver>> {
    let on_terminal =
        std::io::stderr().is_terminal() && std::env::var_os("TERM").is_none_or(|t| t != "dumb");
    Some(Arc::new(Progress::new(on_terminal)))
}

/// The preset every front end loads with ([`toolvet_preset::options`]),
/// with [`observer`].
pub(crate) fn load_options() -> toolvet::LoadOptions {
    toolvet::LoadOptions {
        observer: observer(),
        ..toolvet_preset::options()
    }
}

/// [`load_options`] for calls made elsewhere (case files, benchmarks, a
/// replayed decision log): their paths are judged as written, never looked
/// up on this machine's file system, so a verdict does not depend on the
/// machine it is computed on; and case files and benchmarks stand for the
/// host, so the host's facts they state (`toolvet.real_paths`) are taken
/// ([`toolvet::LoadOptions::caller_is_host`]; replay turns it off again).
pub(crate) fn elsewhere_options() -> toolvet::LoadOptions {
    toolvet::LoadOptions {
        locator: None,
        caller_is_host: true,
        ..load_options()
    }
}

/// Snapshots of Rust checks take a fraction of a second, and `toolvet
/// test` takes one per settings variant: only a batch still running after
/// this long is announced (and its end reported).
const SNAPSHOT_QUIET: Duration = Duration::from_secs(1);

/// Renders load events on stderr.
struct Progress {
    on_terminal: bool,
    state: Arc<Mutex<State>>,
}

#[derive(Default)]
struct State {
    /// Checks in the current compile batch.
    compiling: usize,
    /// The bar of the current compile batch (terminal only).
    bar: Option<ProgressBar>,
    /// Snapshots being taken now, and taken since the first of them began.
    snapshots_active: usize,
    snapshots_done: usize,
    snapshots_since: Option<Instant>,
    /// Which batch of snapshots this is, and whether it was announced.
    snapshot_batch: u64,
    snapshots_announced: bool,
    /// The spinner while snapshots are taken (terminal only).
    spinner: Option<ProgressBar>,
}

fn checks(n: usize) -> String {
    if n == 1 {
        "1 check".to_string()
    } else {
        format!("{n} checks")
    }
}

fn seconds(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

impl Progress {
    fn new(on_terminal: bool) -> Self {
        Progress {
            on_terminal,
            state: Arc::new(Mutex::new(State::default())),
        }
    }

    fn bar(&self, len: u64, template: &str) -> ProgressBar {
        let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.enable_steady_tick(Duration::from_millis(120));
        bar
    }
}

impl LoadObserver for Progress {
    fn event(&self, event: &LoadEvent) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        match event {
            LoadEvent::CompileStarted { checks: names } => {
                state.compiling = names.len();
                let what = checks(names.len());
                if self.on_terminal {
                    let bar = self.bar(
                        names.len() as u64,
                        "{spinner} compiling {pos}/{len} checks, first run only… [{bar:24}] {elapsed} {msg}",
                    );
                    state.bar = Some(bar);
                } else {
                    let them = if names.len() == 1 { "it" } else { "them" };
                    eprintln!(
                        "toolvet: compiling {what}, first run only (later runs load {them} from the cache)…"
                    );
                }
            }
            LoadEvent::Compiling { check, .. } => {
                if let Some(bar) = &state.bar {
                    bar.set_message(visible(check).into_owned());
                }
            }
            LoadEvent::Compiled { .. } => {
                if let Some(bar) = &state.bar {
                    bar.inc(1);
                }
            }
            LoadEvent::CompileFinished { elapsed } => {
                if let Some(bar) = state.bar.take() {
                    bar.finish_and_clear();
                }
                eprintln!(
                    "toolvet: compiled {} in {}",
                    checks(state.compiling),
                    seconds(*elapsed)
                );
            }
            LoadEvent::SnapshotStarted { check } => {
                if state.snapshots_active == 0 {
                    state.snapshots_done = 0;
                    state.snapshots_since = Some(Instant::now());
                    state.snapshot_batch += 1;
                    state.snapshots_announced = false;
                    if self.on_terminal {
                        state.spinner = Some(self.bar(
                            0,
                            "{spinner} taking snapshots of configured checks, first run only… {pos}/{len} {elapsed} {msg}",
                        ));
                    }
                    // Announce the batch once it has run for a while.
                    let (shared, batch) = (self.state.clone(), state.snapshot_batch);
                    let announce = move || {
                        std::thread::sleep(SNAPSHOT_QUIET);
                        let mut state = shared.lock().unwrap_or_else(|e| e.into_inner());
                        if state.snapshot_batch == batch && state.snapshots_active > 0 {
                            state.snapshots_announced = true;
                            if state.spinner.is_none() {
                                eprintln!(
                                    "toolvet: taking snapshots of configured checks, first run only…"
                                );
                            }
                        }
                    };
                    let _ = std::thread::Builder::new()
                        .name("toolvet-progress".into())
                        .spawn(announce);
                }
                state.snapshots_active += 1;
                if let Some(spinner) = &state.spinner {
                    spinner.inc_length(1);
                    spinner.set_message(visible(check).into_owned());
                }
            }
            LoadEvent::SnapshotFinished { .. } => {
                state.snapshots_active = state.snapshots_active.saturating_sub(1);
                state.snapshots_done += 1;
                if let Some(spinner) = &state.spinner {
                    spinner.inc(1);
                }
                if state.snapshots_active == 0 {
                    if let Some(spinner) = state.spinner.take() {
                        spinner.finish_and_clear();
                    }
                    let elapsed = state
                        .snapshots_since
                        .map_or(Duration::ZERO, |t| t.elapsed());
                    if state.snapshots_announced {
                        eprintln!(
                            "toolvet: took snapshots of {} in {}",
                            checks(state.snapshots_done),
                            seconds(elapsed)
                        );
                    }
                }
            }
            // Events added later are not shown.
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_lines_count_checks() {
        assert_eq!(checks(1), "1 check");
        assert_eq!(checks(11), "11 checks");
        assert_eq!(seconds(Duration::from_millis(34_260)), "34.3 s");
    }
}
