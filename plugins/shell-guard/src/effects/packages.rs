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
//!   URL`, Go's `go install MODULE@VERSION` of a module not known, below).
//!   A host in `trusted_package_hosts` (an in-house mirror) is not foreign.
//! - `shell.package-typo` (deny): a package name one edit (a letter added,
//!   dropped, changed or two swapped) from one of the most installed
//!   packages of its ecosystem, and not itself one of them (`reqeusts`,
//!   `numpi`, `react-domm`): the usual form of a typosquat. The reason
//!   names the package it is close to.
//!
//! Installs read: `pip`/`pip3`/`python -m pip install`, `uv pip install`,
//! `uv add`, `poetry add`, `pdm add`, `pipenv install`, `pipx install`,
//! `npm install|i|add`, `pnpm add|install|i`, `yarn add`, `bun add|install|i`,
//! `gem install`, `cargo install|add`, `go install|run MODULE@VERSION`, and
//! an editor's `code|codium|cursor|windsurf --install-extension ID` (an
//! extension runs with the user's rights, and marketplaces have served
//! publisher look-alikes). Requirement files (`-r FILE`) are not read.
//!
//! Go has no registry: a module path names a repository, and
//! `go install`/`go run` of `PATH@VERSION` builds that repository's program
//! to run here. Such an install is from a repository, and so held, unless
//! the module is among the most installed Go programs ([`POPULAR_GO`]), in
//! `trusted_packages`, or on a `trusted_package_hosts` host. A path
//! without a version is the project's own (unless `-mod=mod`, in the
//! command or `GOFLAGS`, lets Go fetch it). `go get` is not read: it adds
//! a dependency, as `npm install NAME` does, and Go has no install scripts
//! that would run it then.
//!
//! A package manager's install given as structured arguments (Replit's
//! `packager_tool`) is read as the command line it stands for
//! ([`structured_install`]).

use check_catalog::roles;
use serde_json::Value;

use crate::syntax::Field;
use crate::walk::Analysis;

/// A package ecosystem, for the registry and the names it is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ecosystem {
    Python,
    Node,
    Ruby,
    Rust,
    Go,
    /// Editor extensions of the VS Code marketplace and Open VSX
    /// (`code --install-extension PUBLISHER.NAME`).
    Editor,
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
    "download.pytorch.org",
];

/// Hosts of Go's default module proxy: the only registry hosts for Go (the
/// proxy serves any public module's zip, so it is no registry for the
/// others).
const GO_REGISTRY_HOSTS: &[&str] = &["proxy.golang.org"];

/// Go modules among the most installed programs (`go install M@V` in the Go
/// team's tool documentation and in the tools' own install instructions):
/// a module path here covers the paths below it.
const POPULAR_GO: &[&str] = &[
    "golang.org/x",
    "google.golang.org/protobuf",
    "google.golang.org/grpc",
    "honnef.co/go/tools",
    "mvdan.cc/gofumpt",
    "mvdan.cc/sh",
    "gotest.tools/gotestsum",
    "go.uber.org/mock",
    "entgo.io/ent",
    "sigs.k8s.io/kind",
    "sigs.k8s.io/controller-tools",
    "sigs.k8s.io/kustomize",
    "github.com/golangci/golangci-lint",
    "github.com/go-delve/delve",
    "github.com/air-verse/air",
    "github.com/cosmtrek/air",
    "github.com/swaggo/swag",
    "github.com/sqlc-dev/sqlc",
    "github.com/golang-migrate/migrate",
    "github.com/pressly/goose",
    "github.com/spf13/cobra-cli",
    "github.com/goreleaser/goreleaser",
    "github.com/bufbuild/buf",
    "github.com/grpc-ecosystem/grpc-gateway",
    "github.com/securego/gosec",
    "github.com/mgechev/revive",
    "github.com/a-h/templ",
    "github.com/google/wire",
    "github.com/google/ko",
    "github.com/vektra/mockery",
    "github.com/golang/mock",
    "github.com/golang/protobuf",
    "github.com/fatih/gomodifytags",
    "github.com/josharian/impl",
    "github.com/cweill/gotests",
    "github.com/go-task/task",
    "github.com/magefile/mage",
    "github.com/segmentio/golines",
    "github.com/daixiang0/gci",
    "github.com/kisielk/errcheck",
    "github.com/99designs/gqlgen",
    "github.com/oapi-codegen/oapi-codegen",
    "github.com/deepmap/oapi-codegen",
    "github.com/go-critic/go-critic",
    "github.com/bazelbuild/bazelisk",
    "github.com/bazelbuild/buildtools",
    "github.com/onsi/ginkgo",
    "sigs.k8s.io/controller-runtime/tools/setup-envtest",
    "github.com/mikefarah/yq",
    "github.com/fullstorydev/grpcurl",
    "github.com/jstemmer/go-junit-report",
    "connectrpc.com/connect",
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
    // Packages one edit from a name above that are themselves widely used.
    "scrapy",
    "pyaml",
    "pymssql",
    "simpy",
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
    "create-react-app",
    "create-next-app",
    "create-vite",
    "mysql",
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
/// Among the most installed VS Code extensions (marketplace install
/// counts, 2025–2026), as `publisher.name` ids.
const POPULAR_EDITOR: &[&str] = &[
    "ms-python.python",
    "ms-python.vscode-pylance",
    "ms-python.debugpy",
    "ms-python.black-formatter",
    "ms-python.isort",
    "ms-python.pylint",
    "ms-python.flake8",
    "ms-toolsai.jupyter",
    "ms-vscode.cpptools",
    "ms-vscode.cmake-tools",
    "ms-vscode.makefile-tools",
    "ms-vscode.powershell",
    "ms-vscode-remote.remote-ssh",
    "ms-vscode-remote.remote-containers",
    "ms-vscode-remote.remote-wsl",
    "ms-azuretools.vscode-docker",
    "ms-kubernetes-tools.vscode-kubernetes-tools",
    "ms-dotnettools.csharp",
    "ms-dotnettools.csdevkit",
    "ms-vsliveshare.vsliveshare",
    "ms-playwright.playwright",
    "ms-mssql.mssql",
    "esbenp.prettier-vscode",
    "dbaeumer.vscode-eslint",
    "github.copilot",
    "github.copilot-chat",
    "github.vscode-pull-request-github",
    "github.vscode-github-actions",
    "eamodio.gitlens",
    "mhutchie.git-graph",
    "donjayamanne.githistory",
    "redhat.java",
    "redhat.vscode-yaml",
    "redhat.vscode-xml",
    "vscjava.vscode-java-pack",
    "golang.go",
    "rust-lang.rust-analyzer",
    "hashicorp.terraform",
    "bradlc.vscode-tailwindcss",
    "ritwickdey.liveserver",
    "formulahendry.code-runner",
    "pkief.material-icon-theme",
    "streetsidesoftware.code-spell-checker",
    "christian-kohler.path-intellisense",
    "visualstudioexptteam.vscodeintellicode",
    "vscodevim.vim",
    "vue.volar",
    "svelte.svelte-vscode",
    "prisma.prisma",
    "denoland.vscode-deno",
    "charliermarsh.ruff",
    "tamasfe.even-better-toml",
    "usernamehw.errorlens",
    "editorconfig.editorconfig",
    "gruntfuggly.todo-tree",
    "yzhang.markdown-all-in-one",
    "davidanson.vscode-markdownlint",
    "llvm-vs-code-extensions.vscode-clangd",
    "xdebug.php-debug",
    "bmewburn.vscode-intelephense-client",
    "humao.rest-client",
    "rangav.vscode-thunder-client",
    "mtxr.sqltools",
    "mongodb.mongodb-vscode",
    "gitlab.gitlab-workflow",
    "continue.continue",
    "saoudrizwan.claude-dev",
    "anthropic.claude-code",
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
            // Module paths, compared by prefix (`remote_go_module`), never
            // for a near miss.
            Ecosystem::Go => &[],
            Ecosystem::Editor => POPULAR_EDITOR,
        }
    }

    /// A name as the registry compares names: Python's normalised form
    /// (PEP 503), the others' lower case.
    fn normalise(self, name: &str) -> String {
        let lower = name.to_ascii_lowercase();
        match self {
            Ecosystem::Python => lower.replace(['_', '.'], "-"),
            // crates.io takes `-` and `_` for the same name.
            Ecosystem::Rust => lower.replace('_', "-"),
            _ => lower,
        }
    }
}

/// One install: the ecosystem, the words to read (every option, the
/// subcommand left out), and whether it runs a package rather than
/// installing packages (`npx NAME`, `uvx NAME`: only the first operand is
/// a package, the rest are its arguments).
struct Install {
    ecosystem: Ecosystem,
    words: Vec<String>,
    runs: bool,
}

/// Options that take a value, per ecosystem, read before and after the
/// subcommand; an option not listed is read as a flag, so its next word is
/// read as a package (a miss of the value is a name checked, never a name
/// skipped).
fn valued(ecosystem: Ecosystem) -> &'static [&'static str] {
    match ecosystem {
        Ecosystem::Python => &[
            "-r",
            "--requirement",
            "-c",
            "--constraint",
            "-t",
            "--target",
            "--prefix",
            "--root",
            "--python",
            "--group",
            "--cache-dir",
            "--src",
            "--upgrade-strategy",
            "--platform",
            "--python-version",
            "--implementation",
            "--abi",
            "--report",
            "--log",
            "--proxy",
            "--retries",
            "--timeout",
            "--exists-action",
            "--trusted-host",
            "--cert",
            "--client-cert",
            "--directory",
            "--project",
            "--config-file",
            "-X",
            "-W",
        ],
        Ecosystem::Node => &[
            "--save-prefix",
            "--filter",
            "--workspace",
            "--prefix",
            "--cache",
            "--userconfig",
            "--cwd",
            "--tag",
            "--omit",
            "--include",
        ],
        Ecosystem::Ruby => &["-v", "--version", "-i", "--install-dir", "-n", "--bindir"],
        Ecosystem::Rust => &[
            "--version",
            "--branch",
            "--tag",
            "--rev",
            "--features",
            "--bin",
            "--example",
            "--path",
            "--root",
            "--registry",
            "--target",
            "--target-dir",
            "-j",
            "--jobs",
            "--profile",
            "--config",
            "-Z",
            "-C",
            "--color",
        ],
        Ecosystem::Editor => &[],
        Ecosystem::Go => &[
            "-o",
            "-p",
            "-C",
            "-tags",
            "-ldflags",
            "-gcflags",
            "-asmflags",
            "-gccgoflags",
            "-mod",
            "-modfile",
            "-pkgdir",
            "-toolexec",
            "-overlay",
            "-pgo",
            "-exec",
            "-buildmode",
            "-compiler",
            "-installsuffix",
            "-coverpkg",
            "-covermode",
            "-debug-actiongraph",
            "-debug-deprecated-flags",
            "-debug-runtime-trace",
            "-debug-trace",
        ],
    }
}

/// The index of the first word that is not an option nor an option's
/// value.
fn first_operand(ecosystem: Ecosystem, words: &[String]) -> Option<usize> {
    let mut i = 0;
    while let Some(w) = words.get(i) {
        if !w.starts_with('-') || w == "-" {
            return Some(i);
        }
        let option = w.split_once('=').map_or(w.as_str(), |(o, _)| o);
        let takes =
            valued(ecosystem).contains(&option) || source_option(ecosystem, option).is_some();
        i += if takes && !w.contains('=') { 2 } else { 1 };
    }
    None
}

/// The install or package run `program words` is, if it is one.
fn install(program: &str, words: &[String]) -> Option<Install> {
    let ecosystem = match program {
        p if p == "pip"
            || (p.starts_with("pip") && p[3..].chars().all(|c| c.is_ascii_digit() || c == '.')) =>
        {
            Ecosystem::Python
        }
        "uv" | "uvx" | "poetry" | "pdm" | "pipenv" | "pipx" => Ecosystem::Python,
        "npm" | "pnpm" | "pnpx" | "yarn" | "bun" | "bunx" | "npx" => Ecosystem::Node,
        "gem" => Ecosystem::Ruby,
        "cargo" => Ecosystem::Rust,
        "go" => Ecosystem::Go,
        "code" | "code-insiders" | "codium" | "vscodium" | "cursor" | "windsurf" => {
            Ecosystem::Editor
        }
        _ => return None,
    };
    // An editor's `--install-extension ID` (repeatable; `=ID` too): the
    // ids are the packages.
    if ecosystem == Ecosystem::Editor {
        let ids: Vec<String> = words
            .iter()
            .enumerate()
            .filter_map(|(i, w)| match w.strip_prefix("--install-extension")? {
                "" => words.get(i + 1).cloned(),
                value => value.strip_prefix('=').map(str::to_string),
            })
            .collect();
        return (!ids.is_empty()).then_some(Install {
            ecosystem,
            words: ids,
            runs: false,
        });
    }
    // Go reads `--flag` as `-flag` (`go run --tags x M@V`).
    let go_words: Vec<String>;
    let words = if ecosystem == Ecosystem::Go {
        go_words = words
            .iter()
            .map(|w| match w.strip_prefix("--") {
                Some(rest) if !rest.is_empty() => format!("-{rest}"),
                _ => w.clone(),
            })
            .collect();
        &go_words[..]
    } else {
        words
    };
    // `cargo +nightly install …`: the toolchain first.
    let words = match words.first() {
        Some(w) if program == "cargo" && w.starts_with('+') => &words[1..],
        _ => words,
    };
    let runner = |words: &[String]| {
        Some(Install {
            ecosystem,
            words: words.to_vec(),
            runs: true,
        })
    };
    if matches!(program, "npx" | "pnpx" | "bunx" | "uvx") {
        return runner(words);
    }
    let at = first_operand(ecosystem, words)?;
    let sub = words[at].as_str();
    let next = words.get(at + 1).map(String::as_str);
    let without = |skip: usize| {
        let mut rest = words[..at].to_vec();
        rest.extend_from_slice(&words[at + skip..]);
        rest
    };
    let installs = |skip: usize| {
        Some(Install {
            ecosystem,
            words: without(skip),
            runs: false,
        })
    };
    match (program, sub, next) {
        ("uv", "pip", Some("install")) | ("uv", "tool", Some("install")) => installs(2),
        ("uv", "tool", Some("run")) | ("pipx", "run", _) => {
            runner(&without(if sub == "tool" { 2 } else { 1 }))
        }
        ("uv" | "poetry" | "pdm", "add", _) => installs(1),
        ("pipenv" | "pipx" | "gem" | "cargo" | "go", "install", _)
        | ("pipx", "inject", _)
        | ("cargo", "add", _) => installs(1),
        ("go", "run", _) => runner(&without(1)),
        ("yarn", "global", Some("add")) => installs(2),
        ("yarn" | "pnpm", "dlx", _) | ("bun", "x", _) | ("npm", "exec", _) => runner(&without(1)),
        ("yarn", "add", _) => installs(1),
        (
            "npm" | "pnpm" | "bun",
            "install" | "i" | "add" | "in" | "ins" | "inst" | "insta" | "instal" | "isnt" | "isnta"
            | "isntal" | "isntall" | "it" | "install-test" | "install-ci-test",
            _,
        ) => installs(1),
        _ if program.starts_with("pip") && sub == "install" => installs(1),
        _ => None,
    }
}

/// Options whose value names where packages come from, per ecosystem,
/// with the abbreviations the tools accept (`--extra-index`, `--reg`).
fn source_option(ecosystem: Ecosystem, option: &str) -> Option<&'static str> {
    let names: &[&str] = match ecosystem {
        Ecosystem::Python => &[
            "-i",
            "--index-url",
            "--extra-index-url",
            "-f",
            "--find-links",
            "--index",
            "--default-index",
        ],
        Ecosystem::Node => &["--registry"],
        Ecosystem::Ruby => &["--source", "-s"],
        Ecosystem::Rust => &["--git", "--index"],
        Ecosystem::Go | Ecosystem::Editor => &[],
    };
    names.iter().copied().find(|n| {
        *n == option || (option.starts_with("--") && option.len() >= 5 && n.starts_with(option))
    })
}

/// Variables that name where an installer takes packages from, when set in
/// the command itself (`PIP_INDEX_URL=… pip install x`).
pub(crate) const SOURCE_VARIABLES: &[&str] = &[
    "PIP_INDEX_URL",
    "PIP_EXTRA_INDEX_URL",
    "PIP_FIND_LINKS",
    "UV_INDEX_URL",
    "UV_EXTRA_INDEX_URL",
    "UV_DEFAULT_INDEX",
    "UV_INDEX",
    "UV_FIND_LINKS",
    "npm_config_registry",
    "NPM_CONFIG_REGISTRY",
    "YARN_REGISTRY",
    "YARN_NPM_REGISTRY_SERVER",
    "BUN_CONFIG_REGISTRY",
    "PNPM_CONFIG_REGISTRY",
    "GOPROXY",
];

/// Variables that change how an installer fetches, when set in the command
/// itself (`GOFLAGS=-mod=mod go run PATH`).
pub(crate) const FETCH_VARIABLES: &[&str] = &["GOFLAGS"];

/// The host of a URL (`scheme://[user@]host[:port]/…`), lower case.
fn host_of(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    // A URL parser ends the authority at `\` too (WHATWG, for http(s)):
    // `https://evil.example\@pypi.org/` goes to evil.example.
    let authority = rest.split(['/', '\\', '?', '#']).next()?;
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
    // `git@host:owner/repo.git` (scp-like), anything ending `.git`.
    // (npm's alias `name@npm:pkg` names no host.)
    let scp = lower.split_once(':').is_some_and(|(user_host, _)| {
        user_host
            .split_once('@')
            .is_some_and(|(_, host)| host.contains('.') && !host.contains('/'))
    });
    if (scp && !lower.contains("://"))
        || lower.split('#').next().is_some_and(|s| s.ends_with(".git"))
    {
        return Some(Location::Repository);
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

/// The module path of a Go operand fetched from the network: `PATH@VERSION`
/// whose first element is a host name (`github.com/o/r/cmd/x@latest`), not
/// a local directory (`./cmd`) or the standard library (`cmd/go`); with
/// `fetches` (`-mod=mod`), such a path without a version too. Lower case.
fn remote_go_module(operand: &str, fetches: bool) -> Option<String> {
    let path = match operand.split_once('@') {
        Some((path, _version)) => path,
        None if fetches => operand,
        None => return None,
    };
    let host = path.split('/').next()?;
    (host.contains('.') && !path.starts_with('.')).then(|| path.to_ascii_lowercase())
}

/// Whether the Go module path `path` is `prefix` or below it.
fn go_module_under(path: &str, prefix: &str) -> bool {
    let prefix = prefix.trim_end_matches('/').to_ascii_lowercase();
    path == prefix
        || path
            .strip_prefix(&prefix)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// The package name of a registry operand (`requests==2.1`,
/// `flask[async]>=2`, `lodash@4`, `@scope/name@1`), if it is one.
fn package_name(ecosystem: Ecosystem, operand: &str) -> Option<String> {
    let name = match ecosystem {
        // Module paths are repositories (`remote_go_module`).
        Ecosystem::Go => return None,
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
        // A letter added or dropped inside the name, or the last one
        // doubled: not a prefix or suffix added or dropped, which is how
        // related packages are named (`cattrs`, `markdown2`, `torchx`).
        1 => {
            let at = (0..short.len())
                .find(|&i| short[i] != long[i])
                .unwrap_or(short.len());
            let inside = at > 0 && at < short.len();
            let doubled = at == short.len() && long[at] == long[at - 1];
            (inside || doubled) && short[at..] == long[at + 1..]
        }
        _ => false,
    }
}

/// The popular package `name` is one edit from, when it is not one itself
/// and both have five characters or more.
fn near_miss(ecosystem: Ecosystem, name: &str) -> Option<&'static str> {
    let popular = ecosystem.popular();
    if name.chars().count() < 5 || popular.iter().any(|p| ecosystem.normalise(p) == name) {
        return None;
    }
    popular
        .iter()
        .copied()
        .find(|p| p.chars().count() >= 5 && one_edit(name, &ecosystem.normalise(p)))
}

/// `python [options] -m pip ARGS` (`-mpip`, `-X utf8 -m pip`) as `pip
/// ARGS`.
fn python_module(name: &str, args: &[Field]) -> Option<(String, Vec<Field>)> {
    if !name.starts_with("python") {
        return None;
    }
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let text = a.text();
        let module = match text.as_str() {
            "-m" => args.get(i + 1).map(Field::text).map(|m| (m, i + 2)),
            t if t.starts_with("-m") => Some((t[2..].to_string(), i + 1)),
            "-X" | "-W" => {
                i += 2;
                continue;
            }
            t if t.starts_with('-') && t != "-c" => {
                i += 1;
                continue;
            }
            _ => return None,
        };
        return module.map(|(m, at)| (m, args[at.min(args.len())..].to_vec()));
    }
    None
}

/// Keys naming the package manager or language of a structured install.
const ECOSYSTEM_ARGS: &[&str] = &[
    "language_or_system",
    "languageOrSystem",
    "ecosystem",
    "package_manager",
    "packageManager",
    "manager",
    "language",
    "runtime",
];

/// Keys naming what a structured package tool does.
const INSTALL_VERB_ARGS: &[&str] = &[
    "install_or_uninstall",
    "installOrUninstall",
    "action",
    "operation",
    "op",
    "mode",
];

/// Keys holding the packages of a structured install.
const PACKAGE_LIST_ARGS: &[&str] = &[
    "dependency_list",
    "dependencyList",
    "dependencies",
    "packages",
    "package_list",
    "packageList",
    "package_names",
    "packageNames",
    "package",
    "package_name",
    "packageName",
];

/// Keys holding the extensions of a structured editor-extension install.
const EXTENSION_ARGS: &[&str] = &[
    "id",
    "ids",
    "extension_id",
    "extensionId",
    "extension_ids",
    "extensionIds",
    "extension",
    "extensions",
];

/// The installing command line of the ecosystem a word names (`python`,
/// `pypi`, `nodejs`, `yarn`, `gem`, `cargo`), if it names one.
fn installer_of(word: &str) -> Option<&'static str> {
    // A version beside the name (`Python 3.11`, `python3.12`, `node 20`).
    let lower = word.trim().to_ascii_lowercase();
    lower
        .split(|c: char| c.is_whitespace() || c == '@' || c == '/')
        .filter(|w| !w.is_empty())
        .find_map(|w| {
            let bare = w.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '-');
            installer_named(w).or_else(|| installer_named(bare))
        })
}

/// The installing command line of the ecosystem one word names exactly.
fn installer_named(word: &str) -> Option<&'static str> {
    match word {
        "python" | "python3" | "py" | "pip" | "pip3" | "pypi" | "uv" | "poetry" | "pdm"
        | "pipenv" => Some("pip install"),
        "node" | "nodejs" | "node.js" | "javascript" | "typescript" | "js" | "ts" | "npm"
        | "yarn" | "pnpm" | "bun" => Some("npm install"),
        "ruby" | "gem" | "rubygems" | "bundler" => Some("gem install"),
        "rust" | "cargo" | "crates" | "crates.io" => Some("cargo add"),
        _ => None,
    }
}

/// A package install given as structured arguments, as the command line it
/// stands for, so the install rules read it as they read a typed one:
/// Replit's `packager_tool` with `{"install_or_uninstall": "install",
/// "language_or_system": "python", "dependency_list": ["reqeusts"]}` is
/// `pip install reqeusts`.
///
/// The packages are the strings under a [`PACKAGE_LIST_ARGS`] key (a list,
/// or one string of names split at white space and commas). Each ecosystem
/// named by an [`ECOSYSTEM_ARGS`] value or by a word of the tool's name
/// (`pip_install`, `npmAdd`) gives one command line: a name that is only
/// close to a popular package of one of them is still judged there. It
/// installs when the tool's name has the word `install` or `add`, or an
/// [`INSTALL_VERB_ARGS`] value says `install` or `add` (a key the tool may
/// ignore cannot turn a name's install off). Empty when nothing installs,
/// no packages or no ecosystem are named (an uninstall, a search, a Go
/// module list: those are dependencies, not programs installed). A tool
/// whose name says it installs an extension installs the ids under
/// [`EXTENSION_ARGS`] with `code --install-extension`.
pub(crate) fn structured_install(tool: &str, args: &Value) -> Vec<String> {
    let words = check_catalog::code::name_words(tool);
    let says_install =
        |w: &str| matches!(w.trim().to_ascii_lowercase().as_str(), "install" | "add");
    let installs = words.iter().any(|w| says_install(w))
        || roles::values(args, INSTALL_VERB_ARGS)
            .iter()
            .any(|(_, v)| v.as_str().is_some_and(says_install));
    if !installs {
        return Vec::new();
    }
    // An editor's extension install (`install_extension {"id": …}`).
    if words.iter().any(|w| w == "extension" || w == "extensions") {
        let ids = strings(args, EXTENSION_ARGS);
        if ids.is_empty() {
            return Vec::new();
        }
        let each: Vec<String> = ids
            .iter()
            .map(|id| format!("--install-extension {id}"))
            .collect();
        return vec![format!("code {}", each.join(" "))];
    }
    let packages = strings(args, PACKAGE_LIST_ARGS);
    if packages.is_empty() {
        return Vec::new();
    }
    let mut installers: Vec<&'static str> = Vec::new();
    let named = roles::values(args, ECOSYSTEM_ARGS)
        .into_iter()
        .filter_map(|(_, v)| v.as_str().and_then(installer_of))
        .chain(words.iter().filter_map(|w| installer_of(w)));
    for installer in named {
        if !installers.contains(&installer) {
            installers.push(installer);
        }
    }
    installers
        .into_iter()
        .map(|installer| format!("{installer} {}", packages.join(" ")))
        .collect()
}

/// The names under `keys` (a list of strings, or one string of names split
/// at white space and commas), each quoted for a command line.
fn strings(args: &Value, keys: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (_, value) in roles::values(args, keys) {
        let mut add = |text: &str| {
            names.extend(
                text.split(|c: char| c.is_whitespace() || c == ',')
                    .filter(|p| !p.is_empty())
                    .map(crate::shell_quote),
            )
        };
        match value {
            Value::String(text) => add(text),
            Value::Array(items) => items.iter().filter_map(Value::as_str).for_each(add),
            _ => {}
        }
    }
    names
}

impl Analysis<'_> {
    /// Report an install from a foreign source or of a near-miss name.
    pub(crate) fn package_install(&mut self, name: &str, args: &[Field], env: &crate::walk::Env) {
        // The package managers themselves first (`npx NAME`, `pnpm dlx
        // NAME` run NAME, which is the package here); then `python -m pip`,
        // and runners of other programs (`poetry run pip install …`).
        let direct: Vec<String> = args.iter().map(Field::text).collect();
        let (program, install) = match install(name, &direct) {
            Some(found) => (name.to_string(), found),
            None => {
                let Some((program, rest)) = python_module(name, args)
                    .or_else(|| super::destroyers::unwrap_runner(name, args))
                else {
                    return;
                };
                let words: Vec<String> = rest.iter().map(Field::text).collect();
                let Some(found) = install(&program, &words) else {
                    return;
                };
                (program, found)
            }
        };
        let eco = install.ecosystem;
        let registry = if eco == Ecosystem::Go {
            GO_REGISTRY_HOSTS
        } else {
            REGISTRY_HOSTS
        };
        let trusted = |host: &str| {
            registry.contains(&host)
                || self
                    .opts
                    .trusted_package_hosts
                    .iter()
                    .any(|t| host == t || host.ends_with(&format!(".{t}")))
        };
        let mut foreign: Vec<String> = Vec::new();
        // An index named by a variable set in the command: its URL, or a
        // value the walk cannot know.
        for var in SOURCE_VARIABLES {
            if let Some(value) = env.vars.get(*var) {
                // (`GOPROXY=https://proxy.golang.org,direct` is a list.)
                match value.static_text() {
                    Some(urls)
                        if urls
                            .split([',', '|'])
                            .all(|url| host_of(url).is_none_or(|h| trusted(&h))) => {}
                    Some(urls) => foreign.push(format!("{var}={urls}")),
                    None => foreign.push(format!("{var}=(a value not known before it runs)")),
                }
            }
        }
        // `-mod=mod` (in the command or `GOFLAGS`) lets Go fetch a module a
        // path without a version names.
        let go_fetches = eco == Ecosystem::Go
            && (install
                .words
                .windows(2)
                .any(|w| w[0] == "-mod" && w[1] == "mod")
                || install.words.iter().any(|w| w == "-mod=mod")
                || env
                    .vars
                    .get("GOFLAGS")
                    .is_some_and(|v| v.static_text().is_none_or(|t| t.contains("-mod=mod"))));
        let mut typos: Vec<(String, &'static str)> = Vec::new();
        let mut operands = 0usize;
        let mut i = 0;
        while let Some(word) = install.words.get(i) {
            i += 1;
            let (option, inline) = match word.split_once('=') {
                Some((o, v)) if o.starts_with('-') => (o, Some(v.to_string())),
                _ => (word.as_str(), None),
            };
            // A short option with its value attached: `-iURL`, `-rURL`.
            let (option, inline) = match (option.get(..2), inline) {
                (Some(short), None)
                    if option.len() > 2
                        && !option.starts_with("--")
                        && !valued(eco).contains(&option)
                        && (source_option(eco, short).is_some()
                            || (eco == Ecosystem::Python
                                && matches!(short, "-r" | "-c" | "-e"))) =>
                {
                    (short, Some(option[2..].to_string()))
                }
                (_, inline) => (option, inline),
            };
            let value = |i: &mut usize| {
                inline.clone().or_else(|| {
                    *i += 1;
                    install.words.get(*i - 1).cloned()
                })
            };
            if let Some(source) = source_option(eco, option) {
                let Some(value) = value(&mut i) else { continue };
                // `--git URL` is a repository whatever its host; an index
                // or registry URL on a trusted host is the registry; a
                // value that is no URL names a local directory or a
                // registry configured on this machine (`cargo --registry
                // NAME`).
                if source == "--git" || host_of(&value).is_some_and(|h| !trusted(&h)) {
                    foreign.push(format!("{option} {value}"));
                }
                continue;
            }
            // Requirement and constraint files fetched from a URL.
            if matches!(option, "-r" | "--requirement" | "-c" | "--constraint")
                && eco == Ecosystem::Python
            {
                if let Some(value) = value(&mut i)
                    && host_of(&value).is_some_and(|h| !trusted(&h))
                {
                    foreign.push(format!("{option} {value}"));
                }
                continue;
            }
            // An editable install's value, and uv's `--from`/`--with`, are
            // packages or their locations.
            let operand = if matches!(option, "-e" | "--editable" | "--from" | "--with")
                && eco == Ecosystem::Python
            {
                match value(&mut i) {
                    Some(v) => v,
                    None => continue,
                }
            } else if valued(eco).contains(&option) {
                if inline.is_none() {
                    i += 1;
                }
                continue;
            } else if word.starts_with('-') {
                continue;
            } else {
                word.clone()
            };
            // A package runner's first operand is the package; the rest
            // are its arguments.
            operands += 1;
            // (Go's program arguments are read too: one that names a
            // remote module is held, whichever operand `go run` takes.)
            if install.runs && operands > 1 && eco != Ecosystem::Go {
                continue;
            }
            if eco == Ecosystem::Go {
                let Some(module) = remote_go_module(&operand, go_fetches) else {
                    continue;
                };
                let known = POPULAR_GO
                    .iter()
                    .copied()
                    .chain(self.opts.trusted_packages.iter().map(String::as_str))
                    .any(|p| go_module_under(&module, p));
                if !(known || module.split('/').next().is_some_and(trusted)) {
                    foreign.push(operand);
                }
                continue;
            }
            match location(eco, &operand) {
                Some(Location::Url(host)) if trusted(&host) => continue,
                Some(_) => {
                    foreign.push(operand);
                    continue;
                }
                None => {}
            }
            if let Some(name) = package_name(eco, &operand)
                && let Some(close) = near_miss(eco, &name)
                && !self
                    .opts
                    .trusted_packages
                    .iter()
                    .any(|t| eco.normalise(t) == name)
            {
                typos.push((name, close));
            }
        }
        let verb = if install.runs { "runs" } else { "installs" };
        if let Some((name, close)) = typos.first() {
            self.report(
                true,
                "shell.package-typo",
                format!(
                    "`{program}` {verb} `{name}`, one letter from `{close}`, one of the most \
                     installed packages, and is not it; names like that are how typosquatted malware \
                     gets installed. Use `{close}` if that is what you meant; a name you are sure \
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
                    "`{program}` {verb} code from {}, not from the package registry: code nobody \
                     has reviewed comes to run on this machine. A person must approve; install \
                     published packages by name where you can.",
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
        assert!(one_edit("reqests", "requests"));
        assert!(one_edit("requestss", "requests"));
        // A prefix or suffix added or dropped names related packages.
        assert!(!one_edit("lodas", "lodash"));
        assert!(!one_edit("cattrs", "attrs"));
        assert!(!one_edit("markdown2", "markdown"));
        assert!(!one_edit("polar", "polars"));
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
