//! Where a package install takes its code from (#31): the packages of a
//! registry are at least published, named and scanned; an install from
//! anywhere else runs code nobody else has seen, on this machine, at once
//! (install scripts, `setup.py`, `postinstall`).
//!
//! - `shell.package-source` (escalate): an install from a foreign index or
//!   registry (`pip install -i URL`, `--extra-index-url`, `--find-links`,
//!   `npm install --registry URL`, `gem install --source URL`, `cargo
//!   install --index URL`) or from a URL or repository instead of a name
//!   (`pip install https://…/x.tar.gz`, `pip install git+https://…`, `npm
//!   install git+https://…`, `npm install owner/repo`, `cargo install --git
//!   URL`). A host in `trusted_package_hosts` (an in-house mirror) is not
//!   foreign.
//! - `shell.package-typo` (deny): a package name one edit (a letter added,
//!   dropped, changed or two swapped) from one of the most installed
//!   packages of its ecosystem, and not itself one of them (`reqeusts`,
//!   `numpi`, `react-domm`): the usual form of a typosquat. The reason
//!   names the package it is close to.
//!
//! Installs read: `pip`/`pip3`/`python -m pip install`, `uv pip install`,
//! `uv add`, `poetry add`, `pdm add`, `pipenv install`, `pipx install`,
//! `npm install|i|add`, `pnpm add|install|i`, `yarn add`, `bun add|install|i`,
//! `gem install`, `cargo install`. Requirement files (`-r FILE`) are not
//! read.

use crate::syntax::Field;
use crate::walk::Analysis;

/// A package ecosystem, for the registry and the names it is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ecosystem {
    Python,
    Node,
    Ruby,
    Rust,
}

/// Hosts of the default registries (and where they serve files from).
const REGISTRY_HOSTS: &[&str] = &[
    "pypi.org",
    "files.pythonhosted.org",
    "pypi.python.org",
    "registry.npmjs.org",
    "registry.yarnpkg.com",
    "rubygems.org",
    "index.crates.io",
    "crates.io",
    "static.crates.io",
];

/// Among the most installed Python packages (PyPI download statistics,
/// 2025–2026), names of five letters or more, normalised (lower case, `-`).
const POPULAR_PYTHON: &[&str] = &[
    "boto3",
    "botocore",
    "urllib3",
    "requests",
    "setuptools",
    "certifi",
    "charset-normalizer",
    "idna",
    "typing-extensions",
    "python-dateutil",
    "packaging",
    "s3transfer",
    "aiobotocore",
    "numpy",
    "pyyaml",
    "s3fs",
    "fsspec",
    "cryptography",
    "pydantic",
    "pydantic-core",
    "protobuf",
    "pandas",
    "attrs",
    "wheel",
    "pytz",
    "click",
    "jmespath",
    "markupsafe",
    "jinja2",
    "platformdirs",
    "pyasn1",
    "rsa",
    "cffi",
    "pycparser",
    "google-api-core",
    "filelock",
    "importlib-metadata",
    "zipp",
    "pluggy",
    "pytest",
    "tomli",
    "virtualenv",
    "wrapt",
    "aiohttp",
    "yarl",
    "multidict",
    "frozenlist",
    "aiosignal",
    "psutil",
    "pyjwt",
    "grpcio",
    "sqlalchemy",
    "greenlet",
    "pyarrow",
    "scipy",
    "scapy",
    "pillow",
    "requests-oauthlib",
    "oauthlib",
    "tqdm",
    "openpyxl",
    "isodate",
    "decorator",
    "docutils",
    "pygments",
    "rich",
    "httpx",
    "httpcore",
    "anyio",
    "sniffio",
    "h11",
    "starlette",
    "fastapi",
    "uvicorn",
    "flask",
    "werkzeug",
    "itsdangerous",
    "django",
    "gunicorn",
    "celery",
    "redis",
    "kombu",
    "pymysql",
    "psycopg2",
    "psycopg2-binary",
    "psycopg",
    "matplotlib",
    "seaborn",
    "scikit-learn",
    "joblib",
    "threadpoolctl",
    "torch",
    "torchvision",
    "tensorflow",
    "keras",
    "transformers",
    "tokenizers",
    "huggingface-hub",
    "safetensors",
    "datasets",
    "openai",
    "anthropic",
    "langchain",
    "langchain-core",
    "tiktoken",
    "regex",
    "lxml",
    "beautifulsoup4",
    "soupsieve",
    "selenium",
    "playwright",
    "black",
    "flake8",
    "pylint",
    "mypy",
    "isort",
    "coverage",
    "pytest-cov",
    "tox",
    "poetry",
    "twine",
    "build",
    "setuptools-scm",
    "python-dotenv",
    "colorama",
    "termcolor",
    "tabulate",
    "pyparsing",
    "sortedcontainers",
    "more-itertools",
    "cachetools",
    "google-auth",
    "googleapis-common-protos",
    "grpcio-status",
    "azure-core",
    "azure-storage-blob",
    "awscli",
    "paramiko",
    "bcrypt",
    "pynacl",
    "websockets",
    "websocket-client",
    "markdown",
    "mistune",
    "sphinx",
    "nltk",
    "spacy",
    "sympy",
    "networkx",
    "opencv-python",
    "imageio",
    "shapely",
    "xlrd",
    "xlsxwriter",
    "simplejson",
    "ujson",
    "orjson",
    "msgpack",
    "marshmallow",
    "jsonschema",
    "toolz",
    "dask",
    "numba",
    "llvmlite",
    "polars",
    "streamlit",
    "gradio",
    "plotly",
    "bokeh",
    "ipython",
    "jupyter",
    "notebook",
    "ipykernel",
];

/// Among the most installed npm packages (npm download statistics,
/// 2025–2026), names of five letters or more.
const POPULAR_NODE: &[&str] = &[
    "react",
    "preact",
    "react-dom",
    "react-router",
    "react-router-dom",
    "redux",
    "react-redux",
    "lodash",
    "lodash-es",
    "express",
    "axios",
    "chalk",
    "commander",
    "debug",
    "moment",
    "dayjs",
    "date-fns",
    "typescript",
    "webpack",
    "webpack-cli",
    "babel-loader",
    "eslint",
    "prettier",
    "jquery",
    "underscore",
    "async",
    "bluebird",
    "rxjs",
    "tslib",
    "classnames",
    "prop-types",
    "styled-components",
    "tailwindcss",
    "postcss",
    "autoprefixer",
    "sass",
    "less",
    "vite",
    "rollup",
    "esbuild",
    "parcel",
    "nodemon",
    "dotenv",
    "mongoose",
    "mongodb",
    "sequelize",
    "prisma",
    "typeorm",
    "knex",
    "mysql2",
    "redis",
    "ioredis",
    "socket.io",
    "socket.io-client",
    "graphql",
    "apollo-server",
    "next",
    "nuxt",
    "svelte",
    "angular",
    "zustand",
    "immer",
    "semver",
    "minimist",
    "yargs",
    "glob",
    "rimraf",
    "mkdirp",
    "fs-extra",
    "chokidar",
    "uuid",
    "nanoid",
    "cross-env",
    "concurrently",
    "jsonwebtoken",
    "bcrypt",
    "bcryptjs",
    "passport",
    "helmet",
    "morgan",
    "body-parser",
    "cookie-parser",
    "multer",
    "cors",
    "winston",
    "pino",
    "inquirer",
    "ora",
    "execa",
    "node-fetch",
    "cheerio",
    "puppeteer",
    "playwright",
    "vitest",
    "mocha",
    "chai",
    "sinon",
    "jest",
    "ts-node",
    "ts-jest",
    "nodemailer",
    "stripe",
    "openai",
    "@anthropic-ai/sdk",
    "zod",
    "ajv",
    "joi",
    "yup",
    "formik",
    "react-hook-form",
    "three",
    "d3",
    "chart.js",
    "echarts",
    "highlight.js",
    "marked",
    "markdown-it",
    "handlebars",
    "ejs",
    "pug",
    "colors",
    "kleur",
    "picocolors",
    "source-map",
    "core-js",
    "regenerator-runtime",
    "@babel/core",
    "@babel/preset-env",
    "@types/node",
    "@types/react",
    "vue-router",
    "pinia",
    "electron",
    "sharp",
    "jimp",
    "canvas",
    "aws-sdk",
    "firebase",
    "supabase",
    "tsx",
];

/// Among the most installed Ruby gems and Rust crates.
const POPULAR_RUBY: &[&str] = &[
    "rails",
    "rake",
    "bundler",
    "rspec",
    "nokogiri",
    "rack",
    "sinatra",
    "puma",
    "devise",
    "sidekiq",
    "rubocop",
    "faraday",
    "httparty",
    "activesupport",
    "activerecord",
    "json",
];
const POPULAR_RUST: &[&str] = &[
    "ripgrep",
    "cargo-edit",
    "cargo-watch",
    "cargo-nextest",
    "cargo-audit",
    "cargo-deny",
    "cargo-expand",
    "wasm-pack",
    "wasm-tools",
    "bat",
    "fd-find",
    "tokei",
    "hyperfine",
    "just",
    "sccache",
    "mdbook",
    "cross",
    "trunk",
    "sqlx-cli",
    "diesel_cli",
    "cargo-binstall",
];

impl Ecosystem {
    fn popular(self) -> &'static [&'static str] {
        match self {
            Ecosystem::Python => POPULAR_PYTHON,
            Ecosystem::Node => POPULAR_NODE,
            Ecosystem::Ruby => POPULAR_RUBY,
            Ecosystem::Rust => POPULAR_RUST,
        }
    }

    /// A name as the registry compares names: Python's normalised form
    /// (PEP 503), the others' lower case.
    fn normalise(self, name: &str) -> String {
        let lower = name.to_ascii_lowercase();
        match self {
            Ecosystem::Python => lower.replace(['_', '.'], "-"),
            _ => lower,
        }
    }
}

/// One install: the ecosystem, its operands and options after the install
/// word, and the options that name an index.
struct Install {
    ecosystem: Ecosystem,
    /// The words after the install subcommand.
    words: Vec<String>,
}

/// The install a command is, if it is one.
fn install(program: &str, words: &[String]) -> Option<Install> {
    // `cargo +nightly install …`: the toolchain first.
    let words = match words.first() {
        Some(w) if program == "cargo" && w.starts_with('+') => &words[1..],
        _ => words,
    };
    let first = words.first().map(String::as_str);
    let second = words.get(1).map(String::as_str);
    let (ecosystem, skip) = match program {
        p if p == "pip"
            || (p.starts_with("pip") && p[3..].chars().all(|c| c.is_ascii_digit() || c == '.')) =>
        {
            (Ecosystem::Python, (first == Some("install")).then_some(1)?)
        }
        "uv" => match (first, second) {
            (Some("pip"), Some("install")) => (Ecosystem::Python, 2),
            (Some("add"), _) => (Ecosystem::Python, 1),
            _ => return None,
        },
        "poetry" | "pdm" => (Ecosystem::Python, (first == Some("add")).then_some(1)?),
        "pipenv" | "pipx" => (Ecosystem::Python, (first == Some("install")).then_some(1)?),
        "npm" | "pnpm" | "bun" => (
            Ecosystem::Node,
            matches!(first, Some("install" | "i" | "add" | "in" | "isntall")).then_some(1)?,
        ),
        "yarn" => (Ecosystem::Node, (first == Some("add")).then_some(1)?),
        "gem" => (Ecosystem::Ruby, (first == Some("install")).then_some(1)?),
        "cargo" => (Ecosystem::Rust, (first == Some("install")).then_some(1)?),
        _ => return None,
    };
    Some(Install {
        ecosystem,
        words: words[skip..].to_vec(),
    })
}

/// Options whose value names where packages come from.
const SOURCE_OPTIONS: &[&str] = &[
    "-i",
    "--index-url",
    "--extra-index-url",
    "-f",
    "--find-links",
    "--registry",
    "--source",
    "--index",
    "--git",
    "--default-index",
];

/// Options that take a value that is not a package (skipped with it).
const VALUED_OPTIONS: &[&str] = &[
    "-r",
    "--requirement",
    "-c",
    "--constraint",
    "-t",
    "--target",
    "--prefix",
    "--root",
    "--python",
    "-p",
    "--group",
    "--cache-dir",
    "--tag",
    "--branch",
    "--rev",
    "--version",
    "--features",
    "--bin",
    "--path",
    "--filter",
    "--save-prefix",
];

/// The host of a URL (`scheme://[user@]host[:port]/…`), lower case.
fn host_of(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit('@').next()?;
    let host = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next()?,
        None => host.split(':').next()?,
    };
    (!host.is_empty()).then(|| host.trim_end_matches('.').to_ascii_lowercase())
}

/// Where an operand names a package by its location instead of its name.
#[derive(Debug, PartialEq, Eq)]
enum Location {
    /// A repository (`git+https://…`, `github:o/r`, npm's `owner/repo`):
    /// code at whatever commit it is now, whatever the host.
    Repository,
    /// A URL of a file (`https://host/x.tar.gz`), with its host.
    Url(String),
}

/// Where `operand` names a package by where it is, not by its name.
fn location(ecosystem: Ecosystem, operand: &str) -> Option<Location> {
    let lower = operand.to_ascii_lowercase();
    // `name @ https://…` (PEP 508) and `name@git+https://…` (npm).
    let spec = lower
        .split_once('@')
        .map_or(lower.as_str(), |(_, s)| s.trim());
    for s in [lower.as_str(), spec] {
        let repository = [
            "git+",
            "git://",
            "hg+",
            "svn+",
            "bzr+",
            "ssh://",
            "github:",
            "gitlab:",
            "bitbucket:",
            "gist:",
        ]
        .iter()
        .any(|p| s.starts_with(p));
        if repository {
            return Some(Location::Repository);
        }
        if s.starts_with("http://") || s.starts_with("https://") {
            return Some(Location::Url(host_of(s).unwrap_or_default()));
        }
    }
    // npm's `owner/repo[#ref]` is a GitHub repository (a scope starts
    // with `@`; a local path with `.`, `/` or `~`).
    let github = ecosystem == Ecosystem::Node
        && !lower.starts_with(['@', '.', '/', '~'])
        && lower.split('#').next().is_some_and(|s| {
            let mut parts = s.split('/');
            matches!(
                (parts.next(), parts.next(), parts.next()),
                (Some(a), Some(b), None) if !a.is_empty() && !b.is_empty() && !a.contains(':')
            )
        });
    github.then_some(Location::Repository)
}

/// The package name of a registry operand (`requests==2.1`,
/// `flask[async]>=2`, `lodash@4`, `@scope/name@1`), if it is one.
fn package_name(ecosystem: Ecosystem, operand: &str) -> Option<String> {
    let name = match ecosystem {
        Ecosystem::Node => match operand.strip_prefix('@') {
            Some(scoped) => format!("@{}", scoped.split('@').next()?),
            None => operand.split('@').next()?.to_string(),
        },
        _ => operand
            .split(['=', '<', '>', '!', '~', '[', ';', ' ', '@', ':'])
            .next()?
            .to_string(),
    };
    let valid = !name.is_empty()
        && !name.starts_with(['.', '/', '~', '-'])
        && !name.contains("://")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '@' | '/'));
    valid.then(|| ecosystem.normalise(&name))
}

/// Whether `a` and `b` are one edit apart (a character added, dropped or
/// changed, or two neighbours swapped).
fn one_edit(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a == b {
        return false;
    }
    let (short, long) = if a.len() <= b.len() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    match long.len() - short.len() {
        0 => {
            let diff: Vec<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
            diff.len() == 1
                || (diff.len() == 2
                    && diff[1] == diff[0] + 1
                    && a[diff[0]] == b[diff[1]]
                    && a[diff[1]] == b[diff[0]])
        }
        1 => {
            let at = (0..short.len())
                .find(|&i| short[i] != long[i])
                .unwrap_or(short.len());
            short[at..] == long[at + 1..]
        }
        _ => false,
    }
}

/// The popular package `name` is one edit from, when it is not one itself
/// and both have five characters or more.
fn near_miss(ecosystem: Ecosystem, name: &str) -> Option<&'static str> {
    let popular = ecosystem.popular();
    if name.chars().count() < 5 || popular.contains(&name) {
        return None;
    }
    popular
        .iter()
        .copied()
        .find(|p| p.chars().count() >= 5 && one_edit(name, p))
}

impl Analysis<'_> {
    /// Report an install from a foreign source or of a near-miss name.
    pub(crate) fn package_install(&mut self, name: &str, args: &[Field]) {
        let (program, rest) = match super::destroyers::unwrap_runner(name, args) {
            Some(p) => p,
            None => (name.to_string(), args.to_vec()),
        };
        let words: Vec<String> = rest.iter().map(Field::text).collect();
        let Some(install) = install(&program, &words) else {
            return;
        };
        let trusted = |host: &str| {
            REGISTRY_HOSTS.contains(&host)
                || self
                    .opts
                    .trusted_package_hosts
                    .iter()
                    .any(|t| host == t || host.ends_with(&format!(".{t}")))
        };
        let mut foreign: Vec<String> = Vec::new();
        let mut typos: Vec<(String, &'static str)> = Vec::new();
        let mut i = 0;
        while let Some(word) = install.words.get(i) {
            i += 1;
            let (option, inline) = match word.split_once('=') {
                Some((o, v)) if o.starts_with('-') => (o, Some(v.to_string())),
                _ => (word.as_str(), None),
            };
            if SOURCE_OPTIONS.contains(&option) {
                let value = inline.or_else(|| {
                    i += 1;
                    install.words.get(i - 1).cloned()
                });
                let Some(value) = value else { continue };
                // `--git URL` is a repository whatever its host; an index
                // or registry URL on a trusted host is the registry; a
                // value that is no URL names a local directory or a
                // registry configured on this machine (`cargo --registry
                // NAME`).
                let from_repository = option == "--git";
                if from_repository || host_of(&value).is_some_and(|h| !trusted(&h)) {
                    foreign.push(format!("{option} {value}"));
                }
                continue;
            }
            if VALUED_OPTIONS.contains(&option) {
                if inline.is_none() {
                    i += 1;
                }
                continue;
            }
            if word.starts_with('-') {
                continue;
            }
            match location(install.ecosystem, word) {
                Some(Location::Url(host)) if trusted(&host) => continue,
                Some(_) => {
                    foreign.push(word.clone());
                    continue;
                }
                None => {}
            }
            if let Some(name) = package_name(install.ecosystem, word)
                && let Some(close) = near_miss(install.ecosystem, &name)
                && !self
                    .opts
                    .trusted_packages
                    .iter()
                    .any(|t| install.ecosystem.normalise(t) == name)
            {
                typos.push((name, close));
            }
        }
        if let Some((name, close)) = typos.first() {
            self.report(
                true,
                "shell.package-typo",
                format!(
                    "`{program}` installs `{name}`, one letter from `{close}`, one of the most \
                     installed packages, and is not it; names like that are how typosquatted malware \
                     gets installed. Install `{close}` if that is what you meant; a name you are sure \
                     of can be added to shell-guard's `trusted_packages`."
                ),
            );
        }
        if !foreign.is_empty() {
            let shown: Vec<String> = foreign.iter().take(3).map(|f| format!("`{f}`")).collect();
            self.report(
                false,
                "shell.package-source",
                format!(
                    "`{program}` installs code from {}, not from the package registry: code nobody \
                     has reviewed runs here as it installs. A person must approve; install published \
                     packages by name where you can.",
                    shown.join(", ")
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_edit_apart() {
        assert!(one_edit("reqeusts", "requests"));
        assert!(one_edit("numpi", "numpy"));
        assert!(one_edit("react-domm", "react-dom"));
        assert!(one_edit("lodas", "lodash"));
        assert!(!one_edit("requests", "requests"));
        assert!(!one_edit("numba", "numpy"));
        assert!(!one_edit("flask", "flake8"));
    }

    #[test]
    fn near_misses_of_popular_names_only() {
        assert_eq!(near_miss(Ecosystem::Python, "reqeusts"), Some("requests"));
        assert_eq!(near_miss(Ecosystem::Python, "numpi"), Some("numpy"));
        assert_eq!(near_miss(Ecosystem::Node, "react-domm"), Some("react-dom"));
        // Popular names close to each other are both themselves.
        assert_eq!(near_miss(Ecosystem::Python, "scapy"), None);
        assert_eq!(near_miss(Ecosystem::Node, "preact"), None);
        // Short names are too close to everything to judge.
        assert_eq!(near_miss(Ecosystem::Python, "six"), None);
        assert_eq!(near_miss(Ecosystem::Python, "httpx"), None);
        // Each ecosystem's own names.
        assert_eq!(near_miss(Ecosystem::Node, "request"), None);
    }

    #[test]
    fn names_and_locations_of_operands() {
        assert_eq!(
            package_name(Ecosystem::Python, "Flask[async]>=2").as_deref(),
            Some("flask")
        );
        assert_eq!(
            package_name(Ecosystem::Python, "typing_extensions==4").as_deref(),
            Some("typing-extensions")
        );
        assert_eq!(
            package_name(Ecosystem::Node, "lodash@4.17.21").as_deref(),
            Some("lodash")
        );
        assert_eq!(
            package_name(Ecosystem::Node, "@types/node@20").as_deref(),
            Some("@types/node")
        );
        assert_eq!(package_name(Ecosystem::Python, "./dist/x.whl"), None);
        let repo = Some(Location::Repository);
        assert_eq!(
            location(Ecosystem::Node, "git+https://github.com/x/y.git"),
            repo
        );
        assert_eq!(location(Ecosystem::Node, "dev-helpers/left-pad#main"), repo);
        assert_eq!(
            location(Ecosystem::Python, "x@git+https://github.com/x/y"),
            repo
        );
        assert_eq!(
            location(Ecosystem::Python, "pkg @ https://Example.com/pkg.tar.gz"),
            Some(Location::Url("example.com".into()))
        );
        assert_eq!(location(Ecosystem::Node, "@types/node"), None);
        assert_eq!(location(Ecosystem::Python, "requests"), None);
        assert_eq!(location(Ecosystem::Python, "./dist/a-1.0.whl"), None);
        assert_eq!(
            host_of("https://user@Files.Example.com:8443/x").as_deref(),
            Some("files.example.com")
        );
    }
}
