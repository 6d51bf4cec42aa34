//! Where a path operand lands: resolving targets against the working
//! directory, symbolic links learnt in the call, and device files.

use super::*;

/// The strictest of several targets one word may be: a place denied
/// first (the root, system, a home, outside), then one only known at run
/// time, then a claimed directory, then the workspace root, then inside.
fn worst_target(targets: Vec<Target>) -> Target {
    let rank = |t: &Target| match t {
        Target::Known(Place::Root, _) => 0,
        Target::Known(Place::System, _) => 1,
        Target::Known(Place::Home, _) => 2,
        Target::Known(Place::Outside, _) => 3,
        Target::Dynamic => 4,
        Target::Claimed(_) => 5,
        Target::Known(Place::WorkspaceRoot, _) => 6,
        Target::Known(Place::Inside, _) => 7,
    };
    targets
        .into_iter()
        .min_by_key(rank)
        .unwrap_or(Target::Dynamic)
}

/// Whether `cp` copies directories whole (`-r`, `-R`, `-a`, `--recursive`,
/// `--archive`): with `-s` it then fills the destination with links.
fn cp_recursive(args: &[Field]) -> bool {
    args.iter()
        .map(Field::text)
        .take_while(|a| a != "--")
        .any(|a| {
            matches!(a.as_str(), "--recursive" | "--archive")
                || (a.starts_with('-')
                    && !a.starts_with("--")
                    && a[1..]
                        .chars()
                        .take_while(|c| !matches!(c, 'S' | 't'))
                        .any(|c| matches!(c, 'r' | 'R' | 'a')))
        })
}

impl Analysis<'_> {
    /// Whether `cd TARGET` may search somewhere other than the working
    /// directory (review-s9 G4): `CDPATH` was set in the command (with a
    /// directory other than `.`), or `shopt -s cdable_vars` is on and the
    /// target is a variable's name. Targets starting with `/`, `./`, `../`
    /// are never searched. A `CDPATH` inherited from the environment is
    /// not seen here.
    pub(crate) fn cd_is_searched(&self, target: &str, env: &Env) -> bool {
        if target.starts_with('/')
            || target == "."
            || target == ".."
            || target.starts_with("./")
            || target.starts_with("../")
        {
            return false;
        }
        let first = target.split('/').next().unwrap_or("");
        if env.cdable_vars
            && !first.is_empty()
            && !first.starts_with(|c: char| c.is_ascii_digit())
            && first.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return true;
        }
        match env.vars.get("CDPATH") {
            None => false,
            Some(v) => match v.static_text() {
                Some(text) => {
                    let cwd = match &env.cwd {
                        Cwd::Known(c) => Some(c.as_str()),
                        _ => None,
                    };
                    text.split(':').any(|d| {
                        !(d.is_empty()
                            || d == "."
                            || d == "./"
                            || cwd.is_some_and(|c| paths::normalize_abs(d) == c))
                    })
                }
                None => true,
            },
        }
    }

    /// Record `path`, named relative to a pane's unknown directory, while
    /// such text is judged ([`Analysis::unplaced`]).
    pub(crate) fn note_unplaced(&self, path: &str) {
        if let Some(first) = self.unplaced.borrow_mut().as_mut()
            && first.is_none()
        {
            *first = Some(path.to_string());
        }
    }

    /// Resolve a path argument. `contents`: the command acts on what is
    /// inside the directory (as `find DIR -delete`).
    pub(crate) fn resolve_target(&self, field: &Field, env: &Env, contents: bool) -> Target {
        if let Some(f) = own_pid_spelled(field) {
            return self.resolve_target(&f, env, contents);
        }
        if let Some(words) = env.loop_alternatives(field) {
            let targets: Vec<Target> = words
                .iter()
                .map(|w| self.resolve_target(w, env, contents))
                .collect();
            return worst_target(targets);
        }
        if field.is_dynamic() {
            return Target::Dynamic;
        }
        // `file:///p`: the path the URI names (review s15 N6).
        if let Some(p) = field.static_text().and_then(|t| paths::uri_path(&t)) {
            return self.resolve_target(&Field::lit(p), env, contents);
        }
        // A leading `~` / `$HOME` whose directory is not known.
        let mut text = String::new();
        let mut home_prefix: Option<Option<String>> = None;
        for (i, seg) in field.segs.iter().enumerate() {
            match seg {
                Seg::Lit { text: t, .. } => text.push_str(t),
                Seg::Home(u) if i == 0 => home_prefix = Some(u.clone()),
                Seg::Home(_) | Seg::Dyn { .. } => return Target::Dynamic,
            }
        }
        let glob = field.first_glob().map(|g| {
            // Offsets of `first_glob` count a leading `~user` too.
            let shift = match &home_prefix {
                Some(None) => 1,
                Some(Some(u)) => 1 + u.len(),
                None => 0,
            };
            g.saturating_sub(shift)
        });
        let (text, glob) = check_catalog::pattern::collapse_parents(&text, glob);
        let (path, contents, deep) = match glob {
            Some(g) => {
                let dir_end = text[..g].rfind('/').map_or(0, |i| i + 1);
                let deep = text[g..].trim_end_matches('/').contains('/');
                (text[..dir_end].to_string(), true, deep)
            }
            None => (text.clone(), contents, false),
        };
        let shown_and_abs = match home_prefix {
            Some(user) => {
                let base = match (&user, &self.home) {
                    (None, Some(h)) => Some(h.clone()),
                    (Some(u), _) => Some(match self.home.as_deref() {
                        Some(h) if h.starts_with("/Users/") => format!("/Users/{u}"),
                        _ if u == "root" => "/root".to_string(),
                        _ => format!("/home/{u}"),
                    }),
                    (None, None) => None,
                };
                match base {
                    Some(b) => self.kernel_resolve(Some(&b), path.trim_start_matches('/')),
                    None => {
                        // Home not known: only the home itself is placed.
                        let place = match paths::normalize_rel(&path) {
                            Some(r) if r.is_empty() => Place::Home,
                            _ => Place::Outside,
                        };
                        return Target::Known(place, field.text());
                    }
                }
            }
            None if path.starts_with('/') => self.kernel_resolve(None, &path),
            None => match &env.cwd {
                Cwd::Known(c) => self.kernel_resolve(Some(c), &path),
                Cwd::Unknown | Cwd::Either(_) => {
                    self.note_unplaced(&field.text());
                    return Target::Dynamic;
                }
                Cwd::None => {
                    let place = match paths::normalize_rel(&path) {
                        Some(_) => Place::Inside,
                        None => Place::Outside,
                    };
                    return Target::Known(place, field.text());
                }
            },
        };
        let shown_and_abs = self.through_symlinks(shown_and_abs);
        let places = self.places();
        let place = if contents {
            places.classify_contents(&shown_and_abs, deep)
        } else {
            places.classify(&shown_and_abs)
        };
        // A directory an earlier call claims to have created (`mkdir DIR`,
        // `git clone URL DIR`) is only a claim: the history records that
        // the call was allowed, not that it ran or succeeded (`mkdir DIR
        // || true` on an existing directory, `false && mkdir DIR`). A claim
        // never loosens a decision to an allow (review-s7 F10): it may at
        // most soften the deny of a place outside the workspace to a
        // question: such a target is its own kind ([`Target::Claimed`]),
        // which each rule that would deny a place outside the workspace
        // turns into an escalation (`shell.rm-dynamic` for removals), never
        // into an allow. The root, a home or system directory keep their
        // own rules.
        if place == Place::Outside && self.facts.created_by_run(&shown_and_abs) {
            return Target::Claimed(shown_and_abs);
        }
        Target::Known(place, shown_and_abs)
    }

    /// `path` (absolute, or relative to `base`) resolved as the kernel
    /// would, a `..` after a link the run knows climbing from the link's
    /// target (review s23 R1); see [`paths::resolve_with`].
    pub(crate) fn kernel_resolve(&self, base: Option<&str>, path: &str) -> String {
        let link = |p: &str| {
            let t = self.through_symlinks(p.to_string());
            (t != p).then_some(t)
        };
        paths::resolve_with(base, path, &link)
    }

    /// `path` with the run's symbolic links followed (see
    /// [`check_catalog::run::Facts`]).
    pub(crate) fn through_symlinks(&self, path: String) -> String {
        self.facts.through_symlinks(path, self.home.as_deref())
    }

    /// A symbolic link the walk sees made (`ln -s`, `ln --sym`, `cp -s`,
    /// `cp -rs`) counts for the later commands of the same call, as the run
    /// facts' links count for later calls (review-s9 G5: `ln -s
    /// ~/.ssh/id_rsa k; cat k` and `ln -s ~/.config/toolvet k; echo > k/x`
    /// were allowed). It joins the same table ([`check_catalog::run::Facts`]'s
    /// `symlinks`), newest winning, with the candidates the run facts take
    /// (the link named, or made inside a directory of that name). A link is
    /// never learnt where it could loosen a decision: its path (through the
    /// links known so far) must be an ordinary place inside or outside the
    /// workspace that is not, and holds no, credential, toolvet secret or
    /// guard rail (`ln -sf /tmp/x ~/.ssh` then `cat ~/.ssh/id_rsa` still
    /// reads the key, however the link went). Links whose words cannot be
    /// read are not learnt (the command making them is judged as it was).
    pub(crate) fn learn_same_call_links(
        &mut self,
        name: &str,
        args: &[Field],
        env: &mut Env,
        stdin: &Output,
    ) {
        self.learn_made_files(name, args, env, stdin);
        if !matches!(name, "ln" | "cp") || !makes_symlinks(name, args) {
            return;
        }
        let Some(place) = crate::effects::removers::placement(name, args) else {
            return;
        };
        let relative = name == "ln" && ln_relative(args);
        let children_only = name == "cp" && cp_recursive(args);
        for source in &place.sources {
            let mut links = Vec::new();
            if !place.named_dir {
                links.push(place.dest.clone());
            }
            links.extend(crate::effects::removers::inside(&place.dest, source));
            for link in links {
                if self.done() {
                    return;
                }
                let Some(link_abs) = self.plain_abs(&link, env) else {
                    continue;
                };
                if !self.link_may_be_learnt(&link, env) {
                    continue;
                }
                // The link's directory as the links known so far place it.
                let (parent, last) = match link_abs.rsplit_once('/') {
                    Some((d, l)) => (if d.is_empty() { "/" } else { d }, l),
                    None => continue,
                };
                let parent = self.through_symlinks(parent.to_string());
                let link_at = self.kernel_resolve(Some(&parent), last);
                // The target: absolute or `~` as written; relative to the
                // link's directory (to the working directory for `ln -r`).
                let target = match source.static_text() {
                    Some(t) if !t.starts_with('/') && !relative && !source_is_home(source) => {
                        self.kernel_resolve(Some(&parent), &t)
                    }
                    _ => match self.abs_path(source, env) {
                        Some(t) => t,
                        None => continue,
                    },
                };
                let link_at = if children_only && link_at != "/" {
                    format!("{link_at}/")
                } else {
                    link_at
                };
                let links = &mut self.facts.symlinks;
                links.retain(|(l, t)| !(l == &link_at && t == &target));
                links.push((link_at, target));
            }
        }
    }

    /// Whether a link at `link` may be learnt without loosening what its
    /// path placed before (see [`Self::learn_same_call_links`]).
    fn link_may_be_learnt(&self, link: &Field, env: &Env) -> bool {
        let Some(abs) = self.abs_path(link, env) else {
            return false;
        };
        if !matches!(self.places().classify(&abs), Place::Inside | Place::Outside) {
            return false;
        }
        let sensitive = crate::effects::sinks::sensitive_files();
        !(self.state.guard_rail(&abs).is_some()
            || self.state.rail_within(&abs).is_some()
            || self.state.is_secret(&abs)
            || crate::effects::sinks::is_git_config_file(&abs)
            || sensitive.matches(&abs).is_some()
            || sensitive.matches_glob(&format!("{abs}/*")).is_some())
    }

    /// `f` made absolute against the working directory, `~` expanded, with
    /// no link followed; `None` when it cannot be read.
    pub(super) fn plain_abs(&self, f: &Field, env: &Env) -> Option<String> {
        if let Some(f) = own_pid_spelled(f) {
            return self.plain_abs(&f, env);
        }
        let mut text = String::new();
        for (i, seg) in f.segs.iter().enumerate() {
            match seg {
                Seg::Lit { text: t, .. } => text.push_str(t),
                Seg::Home(None) if i == 0 => text.push_str(self.home.as_deref()?),
                _ => return None,
            }
        }
        if text.is_empty() {
            return None;
        }
        Some(if text.starts_with('/') {
            self.kernel_resolve(None, &text)
        } else {
            match &env.cwd {
                Cwd::Known(c) => self.kernel_resolve(Some(c), &text),
                _ => return None,
            }
        })
    }

    /// Check a write target for raw devices.
    pub(crate) fn check_device_write(&mut self, target: &str, via: &str) {
        crate::effects::selfstate::process_file_write(self, target, via);
        if is_raw_device(target) {
            self.report(
                true,
                "shell.write-device",
                format!(
                    "The command writes to the raw device `{target}` through {via}, which destroys the \
                     filesystem on it. Write to a regular file inside the workspace instead."
                ),
            );
        }
    }
}

/// `f` with the shell's own process id (`$$`, `${$}`, `$BASHPID`,
/// `${BASHPID}`) right after `/proc/` kept as that text, which
/// [`check_catalog::pathnorm::kernel_path`] reads as the command's own
/// process (review s23 V13: `/proc/$$/root/…`, `/proc/$$/cwd/..`); `None`
/// when `f` has no such part.
pub(crate) fn own_pid_spelled(f: &Field) -> Option<Field> {
    let mut changed = false;
    let mut before = String::new();
    let segs = f
        .segs
        .iter()
        .map(|seg| match seg {
            Seg::Dyn { raw, quoted, .. }
                if before.ends_with("/proc/")
                    && matches!(raw.as_str(), "$$" | "${$}" | "$BASHPID" | "${BASHPID}") =>
            {
                changed = true;
                before.push_str(raw);
                Seg::Lit {
                    text: raw.clone(),
                    quoted: *quoted,
                }
            }
            Seg::Lit { text, .. } => {
                before.push_str(text);
                seg.clone()
            }
            _ => {
                before.push('\u{0}');
                seg.clone()
            }
        })
        .collect();
    changed.then_some(Field { segs })
}
