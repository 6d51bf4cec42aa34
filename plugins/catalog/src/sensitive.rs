//! Sensitive files: secrets that no tool may read or write, wherever they
//! are, including inside the workspace (path-guard for file tools,
//! shell-guard for commands).
//!
//! Patterns are globs (the `globset` crate's syntax) matched against the
//! normalised absolute path, ASCII case-insensitively (macOS and Windows file
//! systems ignore case, so `~/.SSH/id_rsa` opens `~/.ssh/id_rsa` there). `*`
//! does not cross `/`; `**/` matches any number of leading directories, so
//! `**/.env` matches `/home/alice/project/.env`. Exceptions win over
//! patterns.

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

/// The default sensitive patterns, each with the label used in deny
/// messages. Sources: the usual locations of SSH, GnuPG, cloud, container
/// and package-registry credentials, the shadow password files of
/// shadow(5), sudoers(5), and the profile files where Chromium, Firefox and
/// Safari keep cookies and saved passwords.
pub const DEFAULT_SENSITIVE: &[(&str, &str)] = &[
    ("**/.ssh", "the SSH directory (keys, known hosts, config)"),
    (
        "**/.ssh/**",
        "the SSH directory (keys, known hosts, config)",
    ),
    ("**/id_rsa*", "an SSH key file"),
    ("**/id_dsa*", "an SSH key file"),
    ("**/id_ecdsa*", "an SSH key file"),
    ("**/id_ed25519*", "an SSH key file"),
    ("**/.aws/credentials", "AWS credentials"),
    ("**/.aws/config", "AWS configuration"),
    // Temporary AWS credentials the CLI caches on disk (review s9 G10):
    // IAM Identity Center sign-in tokens under `sso/cache`, the access
    // key, secret and session token of assumed roles under `cli/cache`.
    ("**/.aws/sso/cache", "cached AWS sign-in tokens"),
    ("**/.aws/sso/cache/**", "cached AWS sign-in tokens"),
    ("**/.aws/cli/cache", "cached AWS session credentials"),
    ("**/.aws/cli/cache/**", "cached AWS session credentials"),
    // A process's environment (proc(5)): the agent's own API keys and
    // tokens, for `self`, `thread-self`, any process number and its
    // threads (review s9 G10).
    (
        "/proc/*/environ",
        "a process's environment (API keys and tokens)",
    ),
    (
        "/proc/*/task/*/environ",
        "a process's environment (API keys and tokens)",
    ),
    ("**/.env", "an environment file (usually holds secrets)"),
    ("**/.env.*", "an environment file (usually holds secrets)"),
    ("/etc/shadow*", "the system password hashes"),
    ("/etc/gshadow*", "the system group password hashes"),
    ("/etc/sudoers*", "the sudo configuration"),
    ("/etc/sudoers.d/**", "the sudo configuration"),
    (
        "**/approvals.key",
        "toolvet's ticket-signing key (whoever reads it can forge approvals)",
    ),
    ("**/*.pem", "a PEM key or certificate file"),
    ("**/*.key", "a private key file"),
    ("**/*.p12", "a PKCS #12 key store"),
    ("**/*.pfx", "a PKCS #12 key store"),
    ("**/Library/Keychains/**", "a macOS keychain"),
    ("**/*.keychain*", "a macOS keychain"),
    ("**/.gnupg", "the GnuPG directory (private keys)"),
    ("**/.gnupg/**", "the GnuPG directory (private keys)"),
    ("**/.netrc", "login credentials (.netrc)"),
    ("**/_netrc", "login credentials (.netrc)"),
    ("**/.git-credentials", "stored git credentials"),
    ("**/.docker/config.json", "Docker registry credentials"),
    ("**/.kube/config", "Kubernetes credentials"),
    ("**/.pgpass", "PostgreSQL passwords"),
    ("**/.pypirc", "PyPI credentials"),
    ("**/.npmrc", "npm registry tokens"),
    ("**/.cargo/credentials", "crates.io tokens"),
    ("**/.cargo/credentials.toml", "crates.io tokens"),
    ("**/.gem/credentials", "RubyGems tokens"),
    (
        "**/.terraform.d/credentials.tfrc.json",
        "Terraform Cloud tokens",
    ),
    ("**/.vault-token", "a HashiCorp Vault token"),
    ("**/.boto", "Google Cloud Storage credentials"),
    ("**/.s3cfg", "S3 credentials"),
    ("**/.config/hub", "GitHub tokens (hub)"),
    ("**/.composer/auth.json", "Composer registry tokens"),
    (
        "**/.config/rclone/rclone.conf",
        "cloud storage credentials (rclone)",
    ),
    ("**/.config/gh/hosts.yml", "GitHub CLI tokens"),
    ("**/.config/gcloud/**", "Google Cloud credentials"),
    // The 1Password CLI's configuration: its accounts and the keys of
    // signed-in sessions (review s9 G10).
    ("**/.config/op", "1Password CLI's accounts and sessions"),
    ("**/.config/op/**", "1Password CLI's accounts and sessions"),
    ("**/.op/**", "1Password CLI's accounts and sessions"),
    ("**/.azure/**", "Azure credentials"),
    ("**/Cookies", "browser cookies"),
    ("**/Cookies-journal", "browser cookies"),
    ("**/*.binarycookies", "browser cookies"),
    ("**/cookies.sqlite*", "browser cookies"),
    ("**/Login Data", "saved browser passwords"),
    ("**/Login Data-journal", "saved browser passwords"),
    // Page storage of Chromium-based browsers (Chrome, Chromium, Edge,
    // Brave, Vivaldi, Opera) and Electron apps: `sessionStorage` is written
    // to `<profile>/Session Storage/` for session restore, `localStorage`
    // to `Local Storage/`, IndexedDB to `IndexedDB/*.indexeddb.leveldb`;
    // pages keep sign-in tokens there, toolvet serve's reviewer page its
    // reviewer token among them (review s12 L6).
    (
        "**/Session Storage",
        "browser page storage (sign-in tokens)",
    ),
    (
        "**/Session Storage/**",
        "browser page storage (sign-in tokens)",
    ),
    ("**/Local Storage", "browser page storage (sign-in tokens)"),
    (
        "**/Local Storage/**",
        "browser page storage (sign-in tokens)",
    ),
    (
        "**/IndexedDB/*.indexeddb.*",
        "browser page storage (sign-in tokens)",
    ),
    (
        "**/IndexedDB/*.indexeddb.*/**",
        "browser page storage (sign-in tokens)",
    ),
    // Chromium-family profile directories, whole (as Firefox's below):
    // cookies, saved passwords and page storage sit in them under several
    // names, and a recursive read of a profile (`grep -ra token
    // ~/.config/google-chrome/Default/`) reads them all.
    (
        "**/.config/google-chrome*/**",
        "a Chromium-based browser profile (cookies, page tokens)",
    ),
    (
        "**/.config/chromium/**",
        "a Chromium-based browser profile (cookies, page tokens)",
    ),
    (
        "**/snap/chromium/common/chromium/**",
        "a Chromium-based browser profile (cookies, page tokens)",
    ),
    (
        "**/.config/BraveSoftware/**",
        "a Chromium-based browser profile (cookies, page tokens)",
    ),
    (
        "**/.config/microsoft-edge*/**",
        "a Chromium-based browser profile (cookies, page tokens)",
    ),
    (
        "**/.config/vivaldi*/**",
        "a Chromium-based browser profile (cookies, page tokens)",
    ),
    (
        "**/Library/Application Support/Google/Chrome*/**",
        "a Chromium-based browser profile (cookies, page tokens)",
    ),
    (
        "**/Library/Application Support/Chromium/**",
        "a Chromium-based browser profile (cookies, page tokens)",
    ),
    (
        "**/Library/Application Support/BraveSoftware/**",
        "a Chromium-based browser profile (cookies, page tokens)",
    ),
    (
        "**/Library/Application Support/Microsoft Edge*/**",
        "a Chromium-based browser profile (cookies, page tokens)",
    ),
    (
        "**/AppData/Local/*/*/User Data/**",
        "a Chromium-based browser profile (cookies, page tokens)",
    ),
    // Firefox's page storage, also for profiles outside the directories
    // below (forks, a `--profile DIR`): the old `webappsstore.sqlite` and
    // the per-origin `storage/default/` of a profile (`*.default*`).
    (
        "**/webappsstore.sqlite*",
        "browser page storage (sign-in tokens)",
    ),
    (
        "**/*.default*/storage/default/**",
        "browser page storage (sign-in tokens)",
    ),
    // Safari's and WebKit's local storage.
    (
        "**/Library/Safari/LocalStorage/**",
        "browser page storage (sign-in tokens)",
    ),
    (
        "**/Library/WebKit/**/LocalStorage/**",
        "browser page storage (sign-in tokens)",
    ),
    ("**/key3.db", "a browser key store"),
    ("**/key4.db", "a browser key store"),
    // Thunderbird profiles keep saved passwords (logins.json, encrypted
    // with key4.db) as Firefox's do; Firefox's below cover snap and
    // Flatpak installs too (both keep a .mozilla/firefox directory).
    (
        "**/.thunderbird/**",
        "a Thunderbird profile (saved passwords)",
    ),
    (
        "**/Thunderbird/Profiles/**",
        "a Thunderbird profile (saved passwords)",
    ),
    // The coding agents' own sign-in tokens: Claude Code keeps its OAuth
    // credentials in ~/.claude/.credentials.json (Linux; the keychain on
    // macOS), Codex CLI its API key or ChatGPT tokens in ~/.codex/auth.json,
    // Gemini CLI its Google OAuth tokens in ~/.gemini/oauth_creds.json, and
    // GitHub Copilot (editor plugins, CLI) its tokens in
    // ~/.config/github-copilot/hosts.json and apps.json.
    (
        "**/.claude/.credentials.json",
        "Claude Code's sign-in tokens",
    ),
    ("**/.codex/auth.json", "Codex CLI's sign-in tokens"),
    ("**/.gemini/oauth_creds.json", "Gemini CLI's sign-in tokens"),
    (
        "**/.config/github-copilot/hosts.json",
        "GitHub Copilot's sign-in tokens",
    ),
    (
        "**/.config/github-copilot/apps.json",
        "GitHub Copilot's sign-in tokens",
    ),
    // The GNOME keyring's stores (every password secret-tool and
    // libsecret applications keep) and KDE Wallet's.
    (
        "**/.local/share/keyrings/**",
        "the GNOME keyring (stored passwords)",
    ),
    (
        "**/.local/share/kwalletd/**",
        "KDE Wallet (stored passwords)",
    ),
    (
        "**/.mozilla/firefox/**",
        "a Firefox profile (cookies, saved passwords)",
    ),
    (
        "**/Firefox/Profiles/**",
        "a Firefox profile (cookies, saved passwords)",
    ),
];

/// Look-alikes of sensitive files that are safe by convention: environment
/// file templates, committed without real values.
pub const DEFAULT_NOT_SENSITIVE: &[&str] = &[
    "**/.env.example",
    "**/.env.sample",
    "**/.env.template",
    "**/.env.dist",
    "**/.env.*.example",
    "**/.env.*.sample",
    "**/.env.*.template",
    "**/.env.*.dist",
];

/// Label used for patterns from the `sensitive` setting.
const CONFIGURED_LABEL: &str = "a file the policy marks as sensitive";

/// The compiled sensitive patterns and exceptions.
#[derive(Debug, Clone)]
pub struct Sensitive {
    patterns: GlobSet,
    labels: Vec<&'static str>,
    exceptions: GlobSet,
}

impl Sensitive {
    /// Compile the defaults plus `extra` patterns and `extra_exceptions`.
    ///
    /// # Errors
    /// A message naming the setting and index of a bad glob, e.g.
    /// `settings.sensitive[1]: invalid glob "a[": unclosed character class`.
    pub fn new(extra: &[String], extra_exceptions: &[String]) -> Result<Self, String> {
        let mut patterns = GlobSetBuilder::new();
        let mut labels = Vec::new();
        for (glob, label) in DEFAULT_SENSITIVE {
            patterns.add(glob_for(glob).map_err(|e| format!("built-in pattern {glob}: {e}"))?);
            labels.push(*label);
        }
        for (i, glob) in extra.iter().enumerate() {
            patterns.add(glob_for(glob).map_err(|e| format!("settings.sensitive[{i}]: {e}"))?);
            labels.push(CONFIGURED_LABEL);
        }
        let mut exceptions = GlobSetBuilder::new();
        for glob in DEFAULT_NOT_SENSITIVE {
            exceptions.add(glob_for(glob).map_err(|e| format!("built-in exception {glob}: {e}"))?);
        }
        for (i, glob) in extra_exceptions.iter().enumerate() {
            exceptions
                .add(glob_for(glob).map_err(|e| format!("settings.not_sensitive[{i}]: {e}"))?);
        }
        Ok(Self {
            patterns: patterns.build().map_err(|e| e.to_string())?,
            labels,
            exceptions: exceptions.build().map_err(|e| e.to_string())?,
        })
    }

    /// The label of the first pattern that `path` matches, unless an
    /// exception matches it too. `path` should be normalised (absolute, or
    /// lexically cleaned when it cannot be resolved).
    pub fn matches(&self, path: &str) -> Option<&'static str> {
        let hit = self.patterns.matches(path).into_iter().min()?;
        if self.exceptions.is_match(path) {
            return None;
        }
        Some(self.labels[hit])
    }

    /// Whether a path that holds glob characters (`~/.ssh/id_*`,
    /// `/home/*/.aws/cred*`, `./*.pem`) can name a sensitive file: its
    /// literal directory is sensitive, or one of the default patterns'
    /// sample files placed in that directory or above it matches the glob
    /// and is sensitive. Returns the label. A path without glob characters
    /// is matched as it is.
    pub fn matches_glob(&self, path: &str) -> Option<&'static str> {
        let Some(star) = path.find(['*', '?', '[']) else {
            return self.matches(path);
        };
        let dir = &path[..path[..star].rfind('/').map_or(0, |i| i + 1)];
        let dir = dir.trim_end_matches('/');
        if !dir.is_empty()
            && let Some(label) = self.matches(dir)
        {
            return Some(label);
        }
        // A last segment of only wildcards (`docs/*`) could name any file;
        // it counts when the directory is one that holds a sensitive file
        // (`~/.config/gh/*`), not for the bare key names that could be
        // anywhere.
        let last = path.trim_end_matches('/').rsplit('/').next().unwrap_or("");
        if last.chars().all(|c| matches!(c, '*' | '?')) {
            if let Some(label) = ABSOLUTE_SAMPLES
                .iter()
                .filter(|sample| {
                    sample
                        .rsplit_once('/')
                        .is_some_and(|(parent, _)| parent == dir)
                })
                .find_map(|sample| self.matches(sample))
            {
                return Some(label);
            }
            return samples().find_map(|sample| {
                let (parent, _) = sample.rsplit_once('/')?;
                if !dir.ends_with(&format!("/{parent}")) {
                    return None;
                }
                self.matches(&format!(
                    "{}/{sample}",
                    &dir[..dir.len() - parent.len() - 1]
                ))
            });
        }
        let glob = glob_for(path).ok()?.compile_matcher();
        if let Some(label) = ABSOLUTE_SAMPLES
            .iter()
            .filter(|sample| glob.is_match(sample))
            .find_map(|sample| self.matches(sample))
        {
            return Some(label);
        }
        let mut base = dir.to_string();
        loop {
            // The sample directly below, or one directory further down
            // (`/home/*/.aws/credentials`).
            for sample in samples() {
                for candidate in [format!("{base}/{sample}"), format!("{base}/user/{sample}")] {
                    if glob.is_match(&candidate)
                        && let Some(label) = self.matches(&candidate)
                    {
                        return Some(label);
                    }
                }
            }
            match base.rfind('/') {
                Some(i) => base.truncate(i),
                None => break,
            }
        }
        None
    }

    /// Whether a file-name pattern (as `find -name` takes: `*.env`,
    /// `id_rsa*`, `credentials`) matches the file name of a sensitive file.
    pub fn matches_name(&self, pattern: &str) -> Option<&'static str> {
        let glob = glob_for(pattern).ok()?.compile_matcher();
        samples().find_map(|sample| {
            let name = sample.rsplit('/').next().unwrap_or(sample);
            if glob.is_match(name) {
                self.matches(&format!("/home/user/{sample}"))
            } else {
                None
            }
        })
    }
}

/// A file name for each default pattern that the pattern matches, relative
/// to the directory its `**/` stands for (`.aws/credentials`, `id_rsa`,
/// `x.pem`).
fn samples() -> impl Iterator<Item = &'static str> {
    SAMPLES.iter().copied()
}

/// Sample relative paths of [`DEFAULT_SENSITIVE`], one or more per pattern.
const SAMPLES: &[&str] = &[
    ".ssh/id_rsa",
    ".ssh/id_ed25519",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    ".aws/credentials",
    ".aws/config",
    ".aws/sso/cache/x.json",
    ".aws/cli/cache/x.json",
    ".config/op/config",
    ".env",
    ".env.local",
    "x.pem",
    "x.key",
    "approvals.key",
    "x.p12",
    "x.pfx",
    ".gnupg/secring.gpg",
    ".netrc",
    ".git-credentials",
    ".docker/config.json",
    ".kube/config",
    ".pgpass",
    ".pypirc",
    ".npmrc",
    ".cargo/credentials.toml",
    ".vault-token",
    ".config/gh/hosts.yml",
    ".config/gcloud/credentials.db",
    ".azure/accessTokens.json",
    "Library/Keychains/login.keychain-db",
    ".thunderbird/x.default/logins.json",
    ".claude/.credentials.json",
    ".codex/auth.json",
    ".gemini/oauth_creds.json",
    ".config/github-copilot/hosts.json",
    ".local/share/keyrings/login.keyring",
    ".local/share/kwalletd/kdewallet.kwl",
];

/// Sample absolute paths of the patterns that name one place
/// ([`DEFAULT_SENSITIVE`]'s `/proc/*/environ`), for globs naming them
/// (`/proc/*/environ`, `/proc/self/env*`, `/proc/self/*`).
const ABSOLUTE_SAMPLES: &[&str] = &[
    "/proc/self/environ",
    "/proc/1/environ",
    "/proc/self/task/1/environ",
];

/// Compile one sensitive glob: case-insensitive, `*` not crossing `/`.
fn glob_for(pattern: &str) -> Result<Glob, String> {
    if pattern.is_empty() {
        return Err("empty glob".into());
    }
    GlobBuilder::new(pattern)
        .case_insensitive(true)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map_err(|e| format!("invalid glob {pattern:?}: {}", e.kind()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults() -> Sensitive {
        Sensitive::new(&[], &[]).unwrap()
    }

    #[test]
    fn secrets_match_anywhere() {
        let s = defaults();
        for p in [
            "/home/alice/.ssh",
            "/home/alice/.ssh/id_rsa",
            "/home/alice/.ssh/config",
            "/home/alice/project/.ssh/authorized_keys",
            "/home/alice/.aws/credentials",
            "/home/alice/project/.env",
            "/home/alice/project/.env.local",
            "/home/alice/project/.env.production",
            "/etc/shadow",
            "/etc/shadow-",
            "/etc/gshadow",
            "/etc/sudoers",
            "/etc/sudoers.d/90-cloud-init-users",
            "/home/alice/project/certs/server.pem",
            "/home/alice/keys/id_ed25519",
            "/home/alice/backup/id_rsa_work",
            "/Users/alice/Library/Keychains/login.keychain-db",
            "/home/alice/.gnupg/private-keys-v1.d/x.key",
            "/home/alice/.netrc",
            "/home/alice/.git-credentials",
            "/home/alice/.docker/config.json",
            "/home/alice/.kube/config",
            "/home/alice/.config/google-chrome/Default/Cookies",
            "/home/alice/.config/google-chrome/Default/Login Data",
            "/home/alice/.mozilla/firefox/abc.default/logins.json",
            "/home/alice/.thunderbird/abc.default/logins.json",
            "/home/alice/snap/firefox/common/.mozilla/firefox/x/key4.db",
            "/home/alice/.claude/.credentials.json",
            "/home/alice/.codex/auth.json",
            "/home/alice/.gemini/oauth_creds.json",
            "/home/alice/.config/gh/hosts.yml",
            "/home/alice/.config/github-copilot/hosts.json",
            "/home/alice/.config/github-copilot/apps.json",
            "/home/alice/.local/share/keyrings/login.keyring",
            "/home/alice/.local/share/keyrings/user.keystore",
            "/home/alice/.local/share/kwalletd/kdewallet.kwl",
            "~/.ssh/id_rsa",
            "../../.env",
        ] {
            assert!(s.matches(p).is_some(), "{p} should be sensitive");
        }
    }

    /// Review s12 L6: browser page storage holds page tokens (toolvet
    /// serve's reviewer page keeps its token in `sessionStorage`).
    #[test]
    fn browser_page_storage_is_sensitive() {
        let s = defaults();
        for p in [
            "/home/alice/.config/chromium/Default/Session Storage/000003.log",
            "/home/alice/.config/chromium/Default/Session Storage",
            "/home/alice/.config/google-chrome/Default/Session Storage/*.log",
            "/home/alice/.config/google-chrome/Profile 1/Local Storage/leveldb/000005.ldb",
            "/home/alice/.config/microsoft-edge/Default/Local Storage/leveldb",
            "/home/alice/.config/BraveSoftware/Brave-Browser/Default/Session Storage/MANIFEST-000001",
            "/Users/alice/Library/Application Support/Google/Chrome/Default/Local Storage/leveldb/x.ldb",
            "/home/alice/.config/google-chrome/Default/IndexedDB/https_app.example_0.indexeddb.leveldb/000003.log",
            "/home/alice/.config/google-chrome/Default/IndexedDB/https_app.example_0.indexeddb.leveldb",
            "/home/alice/.config/discord/Local Storage/leveldb/000005.ldb",
            "/home/alice/.mozilla/firefox/abc.default-release/webappsstore.sqlite",
            "/home/alice/.librewolf/abc.default-release/webappsstore.sqlite",
            "/home/alice/.librewolf/abc.default-release/storage/default/http+++127.0.0.1+8700/ls/data.sqlite",
            "/tmp/prof/webappsstore.sqlite-wal",
            "/Users/alice/Library/Safari/LocalStorage/https_app.example_0.localstorage",
            "/home/alice/.config/google-chrome/Default",
            "/home/alice/.config/google-chrome/Default/Preferences",
            "/home/alice/.config/google-chrome-beta/Default/Web Data",
            "/home/alice/.config/chromium/Default/Network/Cookies",
            "/home/alice/snap/chromium/common/chromium/Default/Session Storage",
            "/home/alice/.config/BraveSoftware/Brave-Browser/Default",
            "/home/alice/.config/microsoft-edge/Default",
            "/Users/alice/Library/Application Support/Google/Chrome/Default",
            "/Users/alice/Library/Application Support/Microsoft Edge/Default",
            "C:/Users/alice/AppData/Local/Google/Chrome/User Data/Default/Local Storage",
        ] {
            assert!(s.matches(p).is_some(), "{p} should be sensitive");
        }
        for p in [
            "/home/alice/project/src/storage/default/config.php",
            "/home/alice/project/src/IndexedDB/wrapper.ts",
            "/home/alice/project/docs/Local Storage.md",
            "/home/alice/project/src/sessionStorage.ts",
        ] {
            assert!(s.matches(p).is_none(), "{p} should not be sensitive");
        }
    }

    #[test]
    fn cached_cloud_tokens_process_environments_and_key_stores() {
        // Review s9 G10: credentials that were readable.
        let s = defaults();
        for p in [
            "/home/alice/.aws/sso/cache/0123abcd.json",
            "/home/alice/.aws/sso/cache",
            "/home/alice/.aws/cli/cache/role-session.json",
            "/home/alice/.aws/cli/cache",
            "/proc/self/environ",
            "/proc/thread-self/environ",
            "/proc/1/environ",
            "/proc/4242/environ",
            "/proc/self/task/4242/environ",
            "/home/alice/.gnupg/private-keys-v1.d/0123ABCD.key",
            "/home/alice/.gnupg/private-keys-v1.d",
            "/home/alice/.docker/config.json",
            "/home/alice/.config/op/config",
            "/home/alice/.config/op",
            "/home/alice/.op/config",
        ] {
            assert!(s.matches(p).is_some(), "{p} should be sensitive");
        }
        for p in [
            "/home/alice/.aws/sso/cache/*.json",
            "/home/alice/.aws/cli/cache/*",
            "/proc/*/environ",
            "/proc/self/env*",
            "/proc/self/*",
            "/proc/[0-9]*/environ",
            "/proc/self/task/*/environ",
            "/home/alice/.config/op/*",
        ] {
            assert!(s.matches_glob(p).is_some(), "{p} can name a sensitive file");
        }
        // Neighbours that are not secrets.
        for p in [
            "/proc/self/status",
            "/proc/cpuinfo",
            "/proc/self/cmdline",
            "/home/alice/project/proc/self/environ",
            "/home/alice/project/src/environ.rs",
            "/home/alice/.config/opencode/opencode.json",
            "/home/alice/project/.aws-sso-notes.md",
        ] {
            assert_eq!(s.matches(p), None, "{p} should not be sensitive");
        }
        for p in ["/proc/*/status", "/proc/self/cmd*", "/proc/*"] {
            assert_eq!(s.matches_glob(p), None, "{p}");
        }
    }

    #[test]
    fn matching_ignores_case() {
        let s = defaults();
        assert_eq!(
            s.matches("/Users/alice/.SSH/ID_RSA"),
            Some("the SSH directory (keys, known hosts, config)")
        );
        assert!(s.matches("/w/p/.ENV").is_some());
    }

    #[test]
    fn look_alikes_do_not_match() {
        let s = defaults();
        for p in [
            "/home/alice/project/.env.example",
            "/home/alice/project/.env.sample",
            "/home/alice/project/.env.local.example",
            "/home/alice/project/config/.env.template",
            "/home/alice/project/docs/ssh-setup.md",
            "/home/alice/project/src/environment.rs",
            "/home/alice/project/.envrc",
            "/home/alice/project/src/keys.rs",
            "/home/alice/project/README.md",
            "/home/alice/project/.sshd_config_notes",
            "/home/alice/project/src/cookies.rs",
            "/home/alice/.claude/settings.json",
            "/home/alice/.claude/CLAUDE.md",
            "/home/alice/.codex/config.toml",
            "/home/alice/.gemini/settings.json",
            "/home/alice/.local/share/applications/x.desktop",
            "/home/alice/project/test/fixtures/logins.json",
            "/etc/hosts",
            "/etc/passwd",
        ] {
            assert_eq!(s.matches(p), None, "{p} should not be sensitive");
        }
    }

    #[test]
    fn labels_come_from_the_first_matching_pattern() {
        let s = defaults();
        assert_eq!(
            s.matches("/home/a/.aws/credentials"),
            Some("AWS credentials")
        );
        assert_eq!(s.matches("/etc/shadow"), Some("the system password hashes"));
    }

    #[test]
    fn settings_extend_patterns_and_exceptions() {
        let s = Sensitive::new(&["**/secrets/**".into()], &["**/*.pub".into()]).unwrap();
        assert_eq!(s.matches("/w/p/secrets/db.txt"), Some(CONFIGURED_LABEL));
        assert_eq!(s.matches("/home/a/.ssh/id_rsa.pub"), None);
        assert!(s.matches("/home/a/.ssh/id_rsa").is_some());
        assert!(defaults().matches("/home/a/.ssh/id_rsa.pub").is_some());
    }

    #[test]
    fn globs_that_can_name_a_sensitive_file() {
        let s = defaults();
        for p in [
            "/home/alice/.ssh/id_*",
            "/home/alice/.ssh/*",
            "/home/alice/.aws/cred*",
            "/home/*/.aws/credentials",
            "/home/alice/project/*.pem",
            "/home/alice/project/.env*",
            "/home/alice/.config/gh/*",
            "/home/alice/.local/share/keyrings/*",
            "/home/alice/.codex/auth*",
            "/home/alice/.claude/.cred*",
        ] {
            assert!(s.matches_glob(p).is_some(), "{p} can name a sensitive file");
        }
        for p in [
            "/home/alice/project/src/*.rs",
            "/home/alice/project/docs/*",
            "/home/alice/project/.github/*",
            "/home/alice/project/README.md",
        ] {
            assert_eq!(s.matches_glob(p), None, "{p}");
        }
        assert!(s.matches_name("*.env").is_some());
        assert!(s.matches_name("id_rsa*").is_some());
        assert!(s.matches_name("credentials").is_some());
        assert_eq!(s.matches_name("*.rs"), None);
        assert_eq!(s.matches_name("README*"), None);
    }

    #[test]
    fn bad_globs_name_the_setting() {
        let e = Sensitive::new(&["ok/**".into(), "a[".into()], &[]).unwrap_err();
        assert!(
            e.starts_with("settings.sensitive[1]: invalid glob \"a[\""),
            "{e}"
        );
        let e = Sensitive::new(&[], &["".into()]).unwrap_err();
        assert_eq!(e, "settings.not_sensitive[0]: empty glob");
    }
}
