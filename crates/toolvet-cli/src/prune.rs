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
pub(crate) struct PruneArgs {
    /// Keep only what these policies use: each is loaded (compiling what
    /// is missing, even in a dry run), and every artifact and record its
    /// load did not use goes. Without a policy, only artifacts this build
    /// cannot load go, including those of newer toolvet or wasmtime
    /// versions sharing the cache.
    #[arg(long, short)]
    config: Vec<PathBuf>,
    /// The cache directory, when no policy names it (default
    /// `$TOOLVET_CACHE_DIR`, else `~/.cache/toolvet`). It must hold a
    /// toolvet cache (a `key` file); nothing is created.
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
/// A policy that does not parse, has no checks or does not load (nothing
/// is removed then), policies that name different cache directories, and a
/// cache directory that is not a directory, cannot be read or holds no
/// toolvet cache.
pub(crate) async fn run(args: &PruneArgs) -> anyhow::Result<u8> {
    let policies = args
        .config
        .iter()
        .map(|path| Ok((path.as_path(), toolvet_preset::policy_from_file(path)?)))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let dir = cache_dir(args.cache_dir.as_deref(), &policies)?;
    match std::fs::metadata(&dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            println!("no cache at {}: nothing to prune", dir.display());
            return Ok(0);
        }
        Err(e) => bail!("cache directory {}: {e}", dir.display()),
        Ok(meta) if !meta.is_dir() => {
            bail!("cache directory {}: not a directory", dir.display())
        }
        Ok(_) => {}
    }
    let dir = dir.canonicalize().unwrap_or(dir);
    let cache = ArtifactCache::open_existing(&dir)?;
    let keep = if policies.is_empty() {
        None
    } else {
        Some(entries_used_by(policies, &dir).await?)
    };
    let scope = match &keep {
        Some(keep) => PruneScope::AllExcept(keep),
        None => PruneScope::Unloadable,
    };
    let report = cache
        .prune(scope, args.dry_run)
        .with_context(|| format!("cache directory {}", dir.display()))?;
    print_report(&dir, &report, args.dry_run);
    Ok(if report.failed.is_empty() {
        0
    } else {
        crate::EXIT_USAGE
    })
}

/// The one cache directory of `policies`, or `flag` (else the default)
/// without policies.
fn cache_dir(flag: Option<&Path>, policies: &[(&Path, Policy)]) -> anyhow::Result<PathBuf> {
    let named = |dir: Option<PathBuf>| {
        dir.filter(|dir| !dir.as_os_str().is_empty())
            .ok_or_else(|| anyhow::anyhow!("no cache directory: set TOOLVET_CACHE_DIR or HOME"))
    };
    let Some(((first_path, first), rest)) = policies.split_first() else {
        return named(
            flag.map(Path::to_path_buf)
                .or_else(ArtifactCache::default_dir),
        );
    };
    let dir = named(ArtifactCache::dir_for(first.host()))?;
    for (path, policy) in rest {
        let other = named(ArtifactCache::dir_for(policy.host()))?;
        if !same_dir(&dir, &other) {
            bail!(
                "{} uses the cache {}, {} uses {}: prune one cache at a time",
                first_path.display(),
                dir.display(),
                path.display(),
                other.display()
            );
        }
    }
    Ok(dir)
}

/// Load every policy against the cache in `dir` and collect the entries
/// their loads used.
async fn entries_used_by(
    policies: Vec<(&Path, Policy)>,
    dir: &Path,
) -> anyhow::Result<BTreeSet<String>> {
    let mut keep = BTreeSet::new();
    for (path, policy) in policies {
        if policy.checks().is_empty() {
            bail!(
                "{} has no checks, so it would keep nothing and the whole cache would \
                 go; nothing removed",
                path.display()
            );
        }
        // Loading only to see what it uses: no decision log is opened.
        let policy = policy.edit(|host, _, _| {
            host.decision_log = None;
            host.cache_dir = Some(dir.to_path_buf());
        })?;
        let host = Host::load_with(policy, crate::progress::load_options())
            .await
            .with_context(|| format!("{}: nothing removed", path.display()))?;
        if let Some(broken) = host.checks().iter().find(|c| c.load_error.is_some()) {
            bail!(
                "{}: check `{}` failed to load, so the entries it needs cannot be \
                 told apart; nothing removed",
                path.display(),
                broken.name
            );
        }
        let Some(cache) = host.artifact_cache() else {
            bail!(
                "{}: the host could not use the cache {} (TOOLVET_LOG=warn says why); \
                 nothing removed",
                path.display(),
                dir.display()
            );
        };
        keep.extend(cache.entries_in_use());
    }
    Ok(keep)
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
    let failed = match report.failed.len() {
        0 => String::new(),
        n => format!(", could not remove {n}"),
    };
    println!(
        "{}: {verb} {} files ({}){failed}, kept {} ({})",
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
