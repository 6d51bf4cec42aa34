//! Containers onto the host's guard rails and toolvet's state (review
//! s25 R16): a bind mount is a read-write window onto its source unless
//! made read-only, so whatever runs in the container writes files of
//! unknown names there (`docker run -v POLICYDIR:/p …`, `-v HOOKBINDIR:/b`);
//! `docker|podman|kubectl cp SRC DEST` writes DEST on the host. Both are
//! judged as the host-side writes they are (see `Analysis::fills_dir`);
//! a mount of a directory holding one of toolvet's keys reads it.

use crate::syntax::Field;
use crate::walk::{Analysis, Env};

/// The host source of a `-v`/`--volume`/`--mount` value and whether it
/// is mounted read-only; `None` for a named volume (no path).
fn bind_source(spec: &str, long_form: bool) -> Option<(String, bool)> {
    let (source, read_only) = if long_form || spec.contains('=') {
        let mut source = None;
        let mut ro = false;
        for kv in spec.split(',') {
            let (k, v) = kv.split_once('=').unwrap_or((kv, "true"));
            match k {
                "source" | "src" => source = Some(v.to_string()),
                "readonly" | "ro" => ro = !matches!(v, "false" | "0"),
                _ => {}
            }
        }
        (source?, ro)
    } else {
        let mut parts = spec.split(':');
        let source = parts.next()?.to_string();
        let _dest = parts.next();
        let ro = parts
            .next()
            .is_some_and(|o| o.split(',').any(|x| x == "ro" || x == "readonly"));
        (source, ro)
    };
    // A named volume has no slash and no home or relative start.
    let path_like = source.starts_with(['/', '~', '.', '$']);
    path_like.then_some((source, read_only))
}

/// The container CLIs whose `cp` copies between a container (`ctr:/p`,
/// `ns/pod:/p`) and the host.
const COPIERS: &[&str] = &["docker", "podman", "nerdctl", "kubectl", "oc"];

/// Options of `kubectl cp` / `docker cp` that take a value.
const CP_VALUED: &[&str] = &[
    "-c",
    "--container",
    "-n",
    "--namespace",
    "--retries",
    "--context",
];

impl Analysis<'_> {
    /// `docker|podman|nerdctl run|create` bind mounts onto guard rails or
    /// toolvet's state: a write into the source unless read-only, and a
    /// read of any toolvet key it holds.
    pub(crate) fn container_state_mounts(&mut self, name: &str, texts: &[String], env: &mut Env) {
        for (i, t) in texts.iter().enumerate() {
            let (spec, long_form) = match t.as_str() {
                "-v" | "--volume" => (texts.get(i + 1).map(String::as_str), false),
                "--mount" => (texts.get(i + 1).map(String::as_str), true),
                _ => match t.strip_prefix("--volume=") {
                    Some(v) => (Some(v), false),
                    None => (t.strip_prefix("--mount="), true),
                },
            };
            let Some((source, read_only)) = spec.and_then(|s| bind_source(s, long_form)) else {
                continue;
            };
            let host = match (
                source
                    .strip_prefix('~')
                    .or_else(|| source.strip_prefix("${HOME}"))
                    .or_else(|| source.strip_prefix("$HOME")),
                self.home.clone(),
            ) {
                (Some(rest), Some(h)) if rest.is_empty() || rest.starts_with('/') => {
                    format!("{h}{rest}")
                }
                _ => source.clone(),
            };
            let field = Field::lit(&host);
            let Some(abs) = self.abs_path(&field, env) else {
                continue;
            };
            if let Some(key) = self.state.secret_within(&abs).map(str::to_string) {
                self.report(
                    true,
                    "shell.read-credentials",
                    format!(
                        "`{name} run` mounts `{source}`, which holds `{key}`, one of toolvet's keys (whoever reads \
                         it can forge approvals or history), into the container. Credentials must not be read or \
                         sent anywhere."
                    ),
                );
                return;
            }
            // Credentials and the home itself are judged by the rule for
            // containers given credentials (`container_mounts`).
            let sensitive = crate::effects::sinks::sensitive_files();
            let credentials = sensitive.matches(&abs).is_some()
                || sensitive
                    .matches_glob(&format!("{}/*", abs.trim_end_matches('/')))
                    .is_some();
            let home = crate::paths::is_home_dir(&abs, self.home.as_deref());
            if !read_only && !credentials && !home {
                self.fills_dir(&format!("{name} run -v"), &field, env, false);
                if self.done() {
                    return;
                }
            }
        }
    }

    /// `docker cp SRC DEST`, `kubectl cp SRC DEST`: a host-side DEST (no
    /// `CONTAINER:` part) is written with files of unknown names.
    pub(crate) fn container_copy(&mut self, name: &str, texts: &[String], env: &mut Env) {
        if !COPIERS.contains(&name) {
            return;
        }
        // `docker cp`, `docker container cp`, `kubectl [-n NS] cp`.
        let mut i = 0;
        let mut at = None;
        while let Some(t) = texts.get(i) {
            if CP_VALUED.contains(&t.as_str()) {
                i += 2;
                continue;
            }
            if t == "cp" {
                at = Some(i);
                break;
            }
            if !t.starts_with('-') && t != "container" {
                return;
            }
            i += 1;
        }
        let Some(k) = at else {
            return;
        };
        let mut operands = Vec::new();
        let mut j = k + 1;
        while let Some(t) = texts.get(j) {
            if CP_VALUED.contains(&t.as_str()) {
                j += 2;
                continue;
            }
            if !t.starts_with('-') || t == "-" {
                operands.push(t.clone());
            }
            j += 1;
        }
        let [.., source, dest] = operands.as_slice() else {
            return;
        };
        // The destination on the host: no `CONTAINER:` before a path.
        let container_side = |w: &str| {
            w.split_once(':').is_some_and(|(c, _)| {
                !c.is_empty() && !c.contains('/')
                    || c.contains('/') && !c.starts_with(['/', '.', '~'])
            })
        };
        if container_side(dest) || !container_side(source) {
            return;
        }
        let dest = match (dest.strip_prefix('~'), self.home.clone()) {
            (Some(rest), Some(h)) if rest.is_empty() || rest.starts_with('/') => {
                format!("{h}{rest}")
            }
            _ => dest.clone(),
        };
        self.fills_dir(&format!("{name} cp"), &Field::lit(dest), env, false);
    }
}
