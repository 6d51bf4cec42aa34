//! `toolvet cache prune`: remove compiled artifacts and records that the
//! given policies do not use (or, without policies, that this build can
//! never load).

use anyhow::{Context as _, bail};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use toolvet::cache::{ArtifactCache, PruneReport, PruneScope};
use toolvet::{Host, Policy};

/// Arguments of `toolvet cache prune`.
#[derive(clap::Args)]
pub struct PruneArgs {
    /// Keep only what these policies use: each is loaded (compiling what
    /// is missing), and every artifact and record it did not use goes.
    /// Without a policy, only artifacts no host of this build can load
    /// (other toolvet or wasmtime versions) go.
    #[arg(long, short)]
    config: Vec<PathBuf>,
    /// The cache directory, when no policy names it (default
    /// `$TOOLVET_CACHE_DIR`, else `~/.cache/toolvet`).
    #[arg(long, conflicts_with = "config")]
    cache_dir: Option<PathBuf>,
    /// List what would be removed, and remove nothing.
    #[arg(long)]
    dry_run: bool,
}

/// Run `toolvet cache prune`. Returns the exit code: 0, or 2 when a file
/// could not be removed.
///
/// # Errors
/// A policy that does not load (nothing is removed then: its checks'
/// entries could not be told apart), policies that name different cache
/// directories, or a cache directory that cannot be read.
pub async fn run(args: &PruneArgs) -> anyhow::Result<u8> {
    let (cache, keep) = if args.config.is_empty() {
        let Some(dir) = args.cache_dir.clone().or_else(ArtifactCache::default_dir) else {
            bail!("no cache directory: set TOOLVET_CACHE_DIR or pass --cache-dir");
        };
        if !dir.is_dir() {
            println!("no cache at {}: nothing to prune", dir.display());
            return Ok(0);
        }
        let engine = toolvet::engine::shared_engine().map_err(anyhow::Error::msg)?;
        let cache = ArtifactCache::open(&dir, engine)
            .with_context(|| format!("cache directory {}", dir.display()))?;
        (cache, None)
    } else {
        let (cache, keep) = entries_used_by(&args.config).await?;
        (cache, Some(keep))
    };
    let scope = match &keep {
        Some(keep) => PruneScope::AllExcept(keep),
        None => PruneScope::Unloadable,
    };
    let report = cache
        .prune(scope, args.dry_run)
        .with_context(|| format!("cache directory {}", cache.dir().display()))?;
    print_report(cache.dir(), &report, args.dry_run);
    Ok(if report.failed.is_empty() {
        0
    } else {
        crate::EXIT_USAGE
    })
}

/// Load every policy and collect the cache entries their loads used. All
/// policies must use one cache directory.
async fn entries_used_by(configs: &[PathBuf]) -> anyhow::Result<(ArtifactCache, BTreeSet<String>)> {
    let mut cache: Option<(ArtifactCache, &Path)> = None;
    let mut keep = BTreeSet::new();
    for config in configs {
        let policy = Policy::from_file(config)?;
        let host = Host::load(policy)
            .await
            .with_context(|| format!("{}: nothing removed", config.display()))?;
        if let Some(broken) = host.checks().iter().find(|c| c.load_error.is_some()) {
            bail!(
                "{}: check `{}` failed to load, so the entries it needs cannot be \
                 told apart; nothing removed",
                config.display(),
                broken.name
            );
        }
        let Some(this) = host.artifact_cache() else {
            bail!(
                "{}: the compiled-artifact cache is unusable (see the warning above)",
                config.display()
            );
        };
        match &cache {
            Some((first, first_config)) if !same_dir(first.dir(), this.dir()) => bail!(
                "{} uses the cache {}, {} uses {}: prune one cache at a time",
                first_config.display(),
                first.dir().display(),
                config.display(),
                this.dir().display()
            ),
            Some(_) => {}
            None => cache = Some((this.clone(), config)),
        }
        keep.extend(this.entries_in_use());
    }
    let (cache, _) = cache.expect("at least one policy");
    Ok((cache, keep))
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

fn print_report(dir: &Path, report: &PruneReport, dry_run: bool) {
    let verb = if dry_run { "would remove" } else { "removed" };
    for (name, bytes) in &report.removed {
        println!("{verb} {name} ({})", size(*bytes));
    }
    for (name, error) in &report.failed {
        eprintln!(
            "toolvet: cannot remove {}: {error}",
            dir.join(name).display()
        );
    }
    let removed_bytes: u64 = report.removed.iter().map(|(_, b)| b).sum();
    println!(
        "{}: {verb} {} files ({}), kept {} ({})",
        dir.display(),
        report.removed.len(),
        size(removed_bytes),
        report.kept.0,
        size(report.kept.1)
    );
}

/// `bytes` for people: `512 B`, `4.2 KB`, `35.1 MB` (decimal units).
fn size(bytes: u64) -> String {
    match bytes {
        0..1_000 => format!("{bytes} B"),
        1_000..1_000_000 => format!("{:.1} KB", bytes as f64 / 1e3),
        _ => format!("{:.1} MB", bytes as f64 / 1e6),
    }
}
