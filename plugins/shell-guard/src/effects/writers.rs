//! Files programs write through their own options and operands, one
//! table per program (review s22 V5): `sort -o F`, `shuf -o F`, `wget -O
//! F`, `curl -o F`, `tar -cf F`, `zip F …`, `uniq IN OUT`, `xxd -r IN OUT`,
//! `yq -i … F`, `sponge F`, `openssl … -out F`, `gpg -o F`, `pandoc -o F`,
//! `zstd -o F`, `split IN PREFIX`, …
//!
//! The property a command must prove to pass: **every file it writes is
//! placed by its program's table, and each one passes the write rules a
//! redirection's target passes** ([`Analysis::check_write`]: guard rails,
//! toolvet's state, credentials, system files, home dotfiles). A program
//! that fills a directory with files of names it picks (`split`'s prefix,
//! `curl --output-dir`, `aria2c -d`) fills that directory
//! ([`Analysis::fills_dir`]). The tables are read as the programs' parsers
//! read them ([`getopt::parse`]: clusters `-sSo F`, attached values `-oF`,
//! long prefixes `--out=F`). A word a table cannot place (an option it
//! lacks, a missing value) means the files written are not known: then
//! any word naming a guarded file, or a directory just above one, holds
//! the command (a person approves), as for a program the check does not
//! know.

use crate::opts::getopt::{self, Spec, Takes, long, short};
use crate::syntax::{Field, Output};
use crate::walk::{Analysis, Env};
use check_catalog::guardrails::Kind as Rail;

const V: Takes = Takes::Value;
const N: Takes = Takes::No;
const O: Takes = Takes::Optional;

/// Which operands a program writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Operands {
    /// None: its operands are read.
    None,
    /// Every operand (`sponge F`, `yq -i EXPR F…` counts its expression:
    /// harmless, it names no guarded file).
    All,
    /// The first (`zip ARCHIVE FILE…`, `7z a ARCHIVE`).
    First,
    /// All but the first (`uniq IN OUT`, `xxd IN OUT`, `lz4 IN OUT`).
    AfterFirst,
    /// The last one is a prefix of the names written (`split IN PREFIX`):
    /// its directory is filled.
    Prefix,
}

/// One program's table.
struct Writer {
    /// The program's names.
    names: &'static [&'static str],
    /// Its options, as its parser reads them.
    spec: Spec,
    /// Options whose value is a file it writes.
    files: &'static [&'static str],
    /// Options whose value is a directory it fills (or a prefix of the
    /// names it writes, whose directory it fills).
    dirs: &'static [&'static str],
    /// The operands it writes.
    operands: Operands,
    /// Options any of which makes the operands written (`yq -i`); empty:
    /// always.
    operands_when: &'static [&'static str],
    /// Options any of which makes `files` read, not written (`tar -x -f`).
    files_read_when: &'static [&'static str],
    /// Options whose value is a file of more options, not read here
    /// (`curl -K F`, `wget --config=F`): what is written is not known.
    option_files: &'static [&'static str],
}

const fn gnu(opts: &'static [getopt::Opt]) -> Spec {
    Spec {
        opts,
        permute: true,
        long_only: false,
    }
}

const fn writer(names: &'static [&'static str], spec: Spec) -> Writer {
    Writer {
        names,
        spec,
        files: &[],
        dirs: &[],
        operands: Operands::None,
        operands_when: &[],
        files_read_when: &[],
        option_files: &[],
    }
}

const HELP: getopt::Opt = long("help", '\0', N);
const VERSION: getopt::Opt = long("version", '\0', N);

/// GNU coreutils `sort` (sort.c: `"-bcCdfghik:mMno:rRsS:t:T:uVy:z"`, its
/// long options). `--compress-program` runs a program: judged elsewhere.
const SORT: Writer = Writer {
    files: &["output"],
    ..writer(&["sort", "gsort"], crate::opts::progopts::SORT.spec)
};

/// GNU coreutils `shuf` (shuf.c: `"ei:n:o:rz"`).
const SHUF: Writer = Writer {
    files: &["output"],
    ..writer(
        &["shuf", "gshuf"],
        gnu(&[
            long("echo", 'e', N),
            long("input-range", 'i', V),
            long("head-count", 'n', V),
            long("output", 'o', V),
            long("random-source", '\0', V),
            long("repeat", 'r', N),
            long("zero-terminated", 'z', N),
            HELP,
            VERSION,
        ]),
    )
};

/// GNU coreutils `uniq` (uniq.c: `"-0123456789Dcdf:is:uw:z"`): `uniq
/// [INPUT [OUTPUT]]` writes OUTPUT.
const UNIQ: Writer = Writer {
    operands: Operands::AfterFirst,
    ..writer(
        &["uniq", "guniq"],
        gnu(&[
            short("0", N),
            short("1", N),
            short("2", N),
            short("3", N),
            short("4", N),
            short("5", N),
            short("6", N),
            short("7", N),
            short("8", N),
            short("9", N),
            long("all-repeated", 'D', O),
            long("group", '\0', O),
            long("count", 'c', N),
            long("repeated", 'd', N),
            long("skip-fields", 'f', V),
            long("ignore-case", 'i', N),
            long("skip-chars", 's', V),
            long("unique", 'u', N),
            long("check-chars", 'w', V),
            long("zero-terminated", 'z', N),
            HELP,
            VERSION,
        ]),
    )
};

/// vim's `xxd` (xxd.c: `xxd [options] [infile [outfile]]`; options stop
/// at the first operand; `-c/-g/-l/-s/-o/-n/-R` take a value). Every
/// operand after the first is taken as written.
const XXD: Writer = Writer {
    operands: Operands::AfterFirst,
    ..writer(
        &["xxd"],
        Spec {
            opts: &[
                short("a", N),
                short("b", N),
                short("C", N),
                short("c", V),
                short("d", N),
                short("E", N),
                short("e", N),
                short("g", V),
                short("h", N),
                short("i", N),
                short("l", V),
                short("n", V),
                short("o", V),
                short("p", N),
                short("R", V),
                short("r", N),
                short("s", V),
                short("u", N),
                short("v", N),
            ],
            permute: false,
            long_only: false,
        },
    )
};

/// moreutils `sponge [-a] FILE`: writes FILE.
const SPONGE: Writer = Writer {
    operands: Operands::All,
    ..writer(&["sponge"], gnu(&[short("a", N)]))
};

/// mikefarah `yq` (Go cobra flags): `-i/--inplace` writes its file
/// operands.
const YQ: Writer = Writer {
    operands: Operands::All,
    operands_when: &["inplace"],
    ..writer(
        &["yq"],
        gnu(&[
            long("inplace", 'i', N),
            long("null-input", 'n', N),
            long("exit-status", 'e', N),
            long("output-format", 'o', V),
            long("input-format", 'p', V),
            long("prettyPrint", 'P', N),
            long("indent", 'I', V),
            long("colors", 'C', N),
            long("no-colors", 'M', N),
            long("unwrapScalar", 'r', O),
            long("nul-output", '0', N),
            long("front-matter", 'f', V),
            long("expression", '\0', V),
            long("from-file", '\0', V),
            long("verbose", 'v', N),
            long("header-preprocess", '\0', O),
            long("split-exp", 's', V),
            long("no-doc", 'N', N),
            long("xml-attribute-prefix", '\0', V),
            long("tojson", 'j', N),
            HELP,
            long("version", 'V', N),
        ]),
    )
};

/// GNU wget (wget's `--help`): `-O/--output-document`, the log files
/// `-o/--output-file` and `-a/--append-output`, `--save-cookies`,
/// `--warc-file`, `--rejected-log` are written; `-P/--directory-prefix`
/// is filled. `-e/--execute` runs a `.wgetrc` command, which may name any
/// of these (`-e output_document=F`): read by [`wget_commands`].
const WGET: Writer = Writer {
    files: &[
        "output-document",
        "output-file",
        "append-output",
        "save-cookies",
        "save-headers-file",
        "warc-file",
        "rejected-log",
        "hsts-file",
    ],
    dirs: &["directory-prefix"],
    option_files: &["config"],
    ..writer(&["wget", "wget2"], crate::opts::progopts::WGET.spec)
};

/// curl (curl's `--help all`): `-o/--output`, `-D/--dump-header`,
/// `-c/--cookie-jar`, `--trace`, `--trace-ascii`, `--stderr`,
/// `--libcurl`, `--etag-save`, `--hsts`, `--alt-svc` are written;
/// `--output-dir` is filled (with `-O`'s names). Only the common options
/// are listed: a command using another one is held when a word names a
/// guarded file.
const CURL: Writer = Writer {
    files: &[
        "output",
        "dump-header",
        "cookie-jar",
        "trace",
        "trace-ascii",
        "stderr",
        "libcurl",
        "etag-save",
        "hsts",
        "alt-svc",
    ],
    dirs: &["output-dir"],
    option_files: &["config"],
    ..writer(
        &["curl"],
        gnu(&[
            long("config", 'K', V),
            long("output", 'o', V),
            long("dump-header", 'D', V),
            long("cookie-jar", 'c', V),
            long("trace", '\0', V),
            long("trace-ascii", '\0', V),
            long("stderr", '\0', V),
            long("libcurl", '\0', V),
            long("etag-save", '\0', V),
            long("etag-compare", '\0', V),
            long("hsts", '\0', V),
            long("alt-svc", '\0', V),
            long("output-dir", '\0', V),
            long("create-dirs", '\0', N),
            long("remote-name", 'O', N),
            long("remote-name-all", '\0', N),
            long("remote-header-name", 'J', N),
            long("silent", 's', N),
            long("show-error", 'S', N),
            long("location", 'L', N),
            long("fail", 'f', N),
            long("fail-with-body", '\0', N),
            long("insecure", 'k', N),
            long("verbose", 'v', N),
            long("include", 'i', N),
            long("head", 'I', N),
            long("get", 'G', N),
            long("globoff", 'g', N),
            long("ipv4", '4', N),
            long("ipv6", '6', N),
            long("compressed", '\0', N),
            long("netrc", 'n', N),
            long("no-progress-meter", '\0', N),
            long("progress-bar", '#', N),
            long("http1.1", '\0', N),
            long("http2", '\0', N),
            long("request", 'X', V),
            long("header", 'H', V),
            long("data", 'd', V),
            long("data-raw", '\0', V),
            long("data-binary", '\0', V),
            long("data-urlencode", '\0', V),
            long("json", '\0', V),
            long("form", 'F', V),
            long("user", 'u', V),
            long("user-agent", 'A', V),
            long("referer", 'e', V),
            long("cookie", 'b', V),
            long("max-time", 'm', V),
            long("connect-timeout", '\0', V),
            long("retry", '\0', V),
            long("write-out", 'w', V),
            long("range", 'r', V),
            long("upload-file", 'T', V),
            long("proxy", 'x', V),
            long("resolve", '\0', V),
            long("cacert", '\0', V),
            long("cert", 'E', V),
            long("key", '\0', V),
            long("url", '\0', V),
            long("oauth2-bearer", '\0', V),
            long("max-redirs", '\0', V),
            long("speed-limit", 'Y', V),
            long("speed-time", 'y', V),
            long("limit-rate", '\0', V),
            HELP,
            long("version", 'V', N),
        ]),
    )
};

/// GNU tar (tar's `--help`): `-f/--file ARCHIVE` is written unless the
/// command extracts, lists or compares (`-x`, `-t`, `-d`); `--index-file`
/// and `-g/--listed-incremental` are written; `-C DIR` is where files are
/// extracted (judged with the extraction rules). The old form (`tar cf
/// F …`, letters without a dash) is read by [`tar_words`]. Options that
/// run programs (`-I`, `-F`, `--to-command`, …) are judged elsewhere.
const TAR: Writer = Writer {
    files: &["file", "index-file", "listed-incremental"],
    files_read_when: &["extract", "get", "list", "diff", "compare"],
    ..writer(&["tar", "gtar", "bsdtar"], crate::opts::progopts::TAR.spec)
};

/// Info-ZIP `zip [-options] ZIPFILE FILE…` (zip's `-h2`): the first
/// operand is the archive written, and `-O/--output-file` another one.
/// `-x`/`-i` lists are written after the files (`-x@LIST` in one word).
const ZIP: Writer = Writer {
    files: &["output-file"],
    operands: Operands::First,
    ..writer(
        &["zip"],
        gnu(&[
            long("output-file", 'O', V),
            long("recurse-paths", 'r', N),
            long("quiet", 'q', N),
            long("verbose", 'v', N),
            long("junk-paths", 'j', N),
            long("update", 'u', N),
            long("freshen", 'f', N),
            long("move", 'm', N),
            long("delete", 'd', N),
            long("encrypt", 'e', N),
            long("symlinks", 'y', N),
            long("test", 'T', N),
            long("no-extra", 'X', N),
            long("grow", 'g', N),
            long("fix", 'F', N),
            short("0", N),
            short("1", N),
            short("2", N),
            short("3", N),
            short("4", N),
            short("5", N),
            short("6", N),
            short("7", N),
            short("8", N),
            short("9", N),
            long("temp-path", 'b', V),
            long("suffixes", 'n', V),
            long("password", 'P', V),
            HELP,
        ]),
    )
};

/// GNU gzip-style compressors that take `-o FILE` (zstd, lz4, brotli)
/// or `IN OUT` (lz4): zstd(1) `-o FILE`, `--output-dir-flat DIR`; lz4(1)
/// `lz4 [arg] [input] [output]`.
const ZSTD: Writer = Writer {
    files: &["o"],
    dirs: &["output-dir-flat", "output-dir-mirror"],
    ..writer(
        &["zstd", "zstdmt", "unzstd", "brotli"],
        gnu(&[
            short("o", V),
            long("output-dir-flat", '\0', V),
            long("output-dir-mirror", '\0', V),
            long("decompress", 'd', N),
            long("compress", 'z', N),
            long("force", 'f', N),
            long("stdout", 'c', N),
            long("keep", 'k', N),
            long("rm", '\0', N),
            long("quiet", 'q', N),
            long("verbose", 'v', N),
            long("test", 't', N),
            long("threads", 'T', O),
            long("long", '\0', O),
            short("1", N),
            short("3", N),
            short("9", N),
            long("ultra", '\0', N),
            long("fast", '\0', O),
            long("recursive", 'r', N),
            HELP,
            long("version", 'V', N),
        ]),
    )
};

/// lz4(1): `lz4 [arg] [input] [output]`.
const LZ4: Writer = Writer {
    operands: Operands::AfterFirst,
    ..writer(
        &["lz4", "unlz4"],
        gnu(&[
            short("d", N),
            short("z", N),
            short("f", N),
            short("c", N),
            short("k", N),
            short("q", N),
            short("v", N),
            short("m", N),
            short("r", N),
            short("t", N),
            short("1", N),
            short("9", N),
            long("rm", '\0', N),
            HELP,
        ]),
    )
};

/// GnuPG (gpg's `--help`): `-o/--output FILE` is written.
const GPG: Writer = Writer {
    files: &["output"],
    ..writer(
        &["gpg", "gpg2"],
        gnu(&[
            long("output", 'o', V),
            long("armor", 'a', N),
            long("decrypt", 'd', N),
            long("encrypt", 'e', N),
            long("sign", 's', N),
            long("symmetric", 'c', N),
            long("recipient", 'r', V),
            long("local-user", 'u', V),
            long("verify", '\0', N),
            long("batch", '\0', N),
            long("yes", '\0', N),
            long("quiet", 'q', N),
            long("verbose", 'v', N),
            long("detach-sign", 'b', N),
            long("clear-sign", '\0', N),
            long("clearsign", '\0', N),
            long("list-keys", 'k', N),
            long("export", '\0', N),
            long("import", '\0', N),
            long("homedir", '\0', V),
            long("keyring", '\0', V),
            long("passphrase", '\0', V),
            long("pinentry-mode", '\0', V),
            HELP,
            VERSION,
        ]),
    )
};

/// pandoc (`pandoc --help`): `-o/--output FILE`, `--extract-media DIR`.
const PANDOC: Writer = Writer {
    files: &["output"],
    dirs: &["extract-media"],
    ..writer(
        &["pandoc"],
        gnu(&[
            long("output", 'o', V),
            long("from", 'f', V),
            long("read", 'r', V),
            long("to", 't', V),
            long("write", 'w', V),
            long("standalone", 's', N),
            long("template", '\0', V),
            long("metadata", 'M', V),
            long("variable", 'V', V),
            long("toc", '\0', N),
            long("extract-media", '\0', V),
            long("resource-path", '\0', V),
            HELP,
            long("version", 'v', N),
        ]),
    )
};

/// BSD/macOS `base64 [-Dd] [-b N] [-i IN] [-o OUT]`.
const BASE64: Writer = Writer {
    files: &["output"],
    ..writer(
        &["base64", "base32", "basenc"],
        gnu(&[
            long("decode", 'd', N),
            short("D", N),
            long("ignore-garbage", 'i', N),
            long("wrap", 'w', V),
            short("b", V),
            long("input", '\0', V),
            long("output", 'o', V),
            long("base64", '\0', N),
            long("base64url", '\0', N),
            long("base32", '\0', N),
            long("base32hex", '\0', N),
            long("base16", '\0', N),
            HELP,
            VERSION,
        ]),
    )
};

/// GNU coreutils `split [OPTION]… [FILE [PREFIX]]` (split.c:
/// `"0123456789C:a:b:del:n:t:ux"`): files named PREFIX+suffix are written
/// in PREFIX's directory. `--filter` runs a command: judged elsewhere.
const SPLIT: Writer = Writer {
    operands: Operands::Prefix,
    ..writer(&["split", "gsplit"], crate::opts::progopts::SPLIT.spec)
};

/// GNU coreutils `csplit` (csplit.c: `"f:b:kn:sqz"`): `-f PREFIX` names
/// the files written (PREFIX's directory is filled).
const CSPLIT: Writer = Writer {
    dirs: &["prefix"],
    ..writer(
        &["csplit", "gcsplit"],
        gnu(&[
            long("prefix", 'f', V),
            long("suffix-format", 'b', V),
            long("keep-files", 'k', N),
            long("suppress-matched", '\0', N),
            long("digits", 'n', V),
            long("quiet", 'q', N),
            long("silent", 's', N),
            long("elide-empty-files", 'z', N),
            HELP,
            VERSION,
        ]),
    )
};

/// OpenSSH `ssh` (ssh.c getopt string): `-E LOG_FILE` is appended to.
/// Only what decides where ssh writes is read; other options are held
/// only when a word names a guarded file.
const SSH: Writer = Writer {
    files: &["E"],
    ..writer(&["ssh"], crate::opts::progopts::SSH.spec)
};

/// `docker save -o/--output FILE` and `podman save`: docker's
/// subcommand reads its options after `save`; [`docker_words`] gives them.
const DOCKER_SAVE: Writer = Writer {
    files: &["output"],
    ..writer(
        &["docker save", "podman save"],
        gnu(&[
            long("output", 'o', V),
            long("platform", '\0', V),
            long("format", '\0', V),
            long("quiet", 'q', N),
            HELP,
        ]),
    )
};

/// aria2c (aria2c(1)): `-d/--dir DIR` is filled, `-o/--out NAME` (a name
/// in DIR) written there, `-l/--log FILE` written.
const ARIA2C: Writer = Writer {
    files: &["out", "log", "save-session"],
    dirs: &["dir"],
    ..writer(
        &["aria2c"],
        gnu(&[
            long("dir", 'd', V),
            long("out", 'o', V),
            long("log", 'l', V),
            long("save-session", '\0', V),
            long("input-file", 'i', V),
            long("split", 's', V),
            long("max-connection-per-server", 'x', V),
            long("continue", 'c', O),
            long("quiet", 'q', O),
            HELP,
            long("version", 'v', N),
        ]),
    )
};

/// HTTPie and xh (`http --help`, `xh --help`): `-o/--output FILE` is
/// written (with `--download`, or the response body without).
const HTTPIE: Writer = Writer {
    files: &["output"],
    ..writer(
        &["http", "https", "httpie", "xh", "xhs"],
        gnu(&[
            long("output", 'o', V),
            long("download", 'd', N),
            long("continue", 'c', N),
            long("body", 'b', N),
            long("headers", 'h', N),
            long("verbose", 'v', N),
            long("quiet", 'q', N),
            long("print", 'p', V),
            long("auth", 'a', V),
            long("follow", 'F', N),
            long("form", 'f', N),
            long("json", 'j', N),
            long("ignore-stdin", 'I', N),
            long("check-status", '\0', N),
            long("timeout", '\0', V),
            long("session", '\0', V),
            long("offline", '\0', N),
            long("pretty", '\0', V),
            long("style", 's', V),
            HELP,
            VERSION,
        ]),
    )
};

/// The tracers and `time` (strace(1) `-o FILE`, ltrace(1) `-o FILE`,
/// GNU time(1) `-o FILE`/`--output=FILE`): their options are the
/// runners' tables ([`crate::opts::runopts`]), which stop at the command
/// (review s23 V7). strace's `-o |CMD` is a pipe, judged by
/// [`crate::opts::progopts`], not a file.
const STRACE: Writer = Writer {
    files: &["output"],
    ..writer(&["strace"], crate::opts::runopts::STRACE)
};
const LTRACE: Writer = Writer {
    files: &["output"],
    ..writer(&["ltrace"], crate::opts::runopts::LTRACE)
};
const TIME: Writer = Writer {
    files: &["output"],
    ..writer(&["time"], crate::opts::runopts::TIME)
};

/// Every table.
const WRITERS: &[&Writer] = &[
    &STRACE,
    &LTRACE,
    &TIME,
    &HTTPIE,
    &SORT,
    &SHUF,
    &UNIQ,
    &XXD,
    &SPONGE,
    &YQ,
    &WGET,
    &CURL,
    &TAR,
    &ZIP,
    &ZSTD,
    &LZ4,
    &GPG,
    &PANDOC,
    &BASE64,
    &SPLIT,
    &CSPLIT,
    &SSH,
    &DOCKER_SAVE,
    &ARIA2C,
];

/// What a command writes by its table.
#[derive(Debug, Default)]
pub(crate) struct Writes {
    /// Files written whole.
    pub files: Vec<Field>,
    /// Directories filled with files of names the program picks.
    pub dirs: Vec<Field>,
    /// Words the table could not place.
    pub problems: Vec<String>,
    /// Files of options the program reads (`curl -K F`): held.
    pub option_files: Vec<String>,
}

/// The directory a name prefix writes into (`out/part-` → `out`,
/// `part-` → `.`).
fn prefix_dir(prefix: &Field) -> Field {
    let t = prefix.text();
    match t.rfind('/') {
        Some(0) => Field::lit("/"),
        Some(i) => Field::lit(&t[..i]),
        None => Field::lit("."),
    }
}

/// `tar cfz F …` (letters without a dash, the first word): each letter
/// an option, each value-taking one taking the next word in turn, read
/// as `-c -f F -z …`.
fn tar_words(args: &[Field]) -> Vec<Field> {
    let Some(first) = args.first() else {
        return Vec::new();
    };
    let t = first.text();
    if t.starts_with('-') || t.is_empty() || !t.chars().all(|c| c.is_ascii_alphabetic()) {
        return args.to_vec();
    }
    let mut out = Vec::new();
    let mut rest = args[1..].iter();
    for c in t.chars() {
        out.push(Field::lit(format!("-{c}")));
        let takes = TAR
            .spec
            .opts
            .iter()
            .find(|o| o.short == c)
            .is_some_and(|o| o.takes == V);
        if takes && let Some(v) = rest.next() {
            out.push(v.clone());
        }
    }
    out.extend(rest.cloned());
    out
}

/// The `.wgetrc` commands of `wget -e CMD` that write a file or fill a
/// directory (wget's `init.c`: names compare without `_`/`-`, case
/// ignored), with the value; another command is a problem unless it is
/// one of the few known to write nothing.
fn wget_commands(value: &Field, w: &mut Writes) {
    const WRITES_FILE: &[&str] = &[
        "outputdocument",
        "logfile",
        "savecookies",
        "warcfile",
        "hstsfile",
        "rejectedlog",
    ];
    const FILLS_DIR: &[&str] = &["dirprefix"];
    const INERT: &[&str] = &[
        "robots",
        "checkcertificate",
        "tries",
        "timeout",
        "wait",
        "useragent",
        "verbose",
        "quiet",
        "retryconnrefused",
        "httpsonly",
        "contentdisposition",
    ];
    let t = value.text();
    let Some((k, v)) = t.split_once('=') else {
        w.problems.push(format!("wget -e `{t}`"));
        return;
    };
    let key: String = k
        .trim()
        .chars()
        .filter(|c| !matches!(c, '_' | '-'))
        .collect::<String>()
        .to_ascii_lowercase();
    let v = Field::lit(v.trim());
    if WRITES_FILE.contains(&key.as_str()) {
        w.files.push(v);
    } else if FILLS_DIR.contains(&key.as_str()) {
        w.dirs.push(v);
    } else if !INERT.contains(&key.as_str()) || value.is_dynamic() {
        w.problems.push(format!("wget -e `{t}`"));
    }
}

/// OpenSSL's options (`apps/lib/opt.c`: one or two dashes, a value after
/// `=` or as the next word): the files an `openssl` command writes are
/// the values of its options named `out`, `keyout`, `certout`, … (any
/// name ending in `out` that takes a file), `writerand`, and the
/// `-CAserial` file `-CAcreateserial` makes. Flags ending in `out`
/// (`-pubout`, `-noout`, `-text`) take no value.
fn openssl_writes(args: &[Field]) -> Writes {
    const FLAGS: &[&str] = &["noout", "pubout", "nocertout", "text_out", "nokeyout"];
    const WRITES: &[&str] = &["writerand", "CAserial", "sigout", "rev_out"];
    let mut w = Writes::default();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        let t = a.text();
        let Some(body) = t.strip_prefix("--").or_else(|| t.strip_prefix('-')) else {
            continue;
        };
        let (n, joined) = match body.split_once('=') {
            Some((n, v)) => (n, Some(Field::lit(v))),
            None => (body, None),
        };
        if FLAGS.contains(&n) || !(n.ends_with("out") || WRITES.contains(&n)) {
            continue;
        }
        let value = joined.or_else(|| {
            let v = args.get(i).cloned();
            i += 1;
            v
        });
        match value {
            Some(v) => w.files.push(v),
            None => w.problems.push(format!("openssl -{n} needs a value")),
        }
    }
    w
}

/// 7-Zip (`7z COMMAND [SWITCH…] ARCHIVE [FILE…]`; every switch is one
/// word, its value attached: `-p…`, `-o…`, `-mx=9`): `a`, `u`, `d`, `rn`
/// write the archive, the first operand after the command.
fn sevenzip_writes(args: &[Field]) -> Writes {
    let mut w = Writes::default();
    let mut operands = args
        .iter()
        .filter(|a| !a.text().starts_with('-') || a.text() == "-");
    let command = operands.next().map(|c| c.text().to_ascii_lowercase());
    if matches!(command.as_deref(), Some("a" | "u" | "d" | "rn"))
        && let Some(archive) = operands.next()
    {
        w.files.push(archive.clone());
    }
    w
}

/// rsync's own output files (rsync(1)): `--log-file=FILE`,
/// `--write-batch=FILE`, `--only-write-batch=FILE` write FILE;
/// `--backup-dir=DIR`, `--partial-dir=DIR`, `--temp-dir=DIR` (`-T`) fill
/// DIR (review s23 V7). The copy itself is judged as a copy.
fn rsync_writes(args: &[Field]) -> Writes {
    const FILES: &[&str] = &["--log-file", "--write-batch", "--only-write-batch"];
    const DIRS: &[&str] = &["--backup-dir", "--partial-dir", "--temp-dir", "-T"];
    let mut w = Writes::default();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let t = a.text();
        i += 1;
        let (n, v) = match t.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(Field::lit(v))),
            _ if FILES.contains(&t.as_str()) || DIRS.contains(&t.as_str()) => {
                let v = args.get(i).cloned();
                i += 1;
                (t.clone(), v)
            }
            _ => continue,
        };
        let Some(v) = v else { continue };
        if FILES.contains(&n.as_str()) {
            w.files.push(v);
        } else if DIRS.contains(&n.as_str()) {
            w.dirs.push(v);
        }
    }
    w
}

/// The files `name` writes by its table (`None`: no table).
pub(crate) fn writes(name: &str, args: &[Field]) -> Option<Writes> {
    if name == "rsync" {
        return Some(rsync_writes(args));
    }
    if name == "openssl" {
        return Some(openssl_writes(args));
    }
    if matches!(name, "7z" | "7za" | "7zz" | "7zr") {
        return Some(sevenzip_writes(args));
    }
    let (table, args): (&Writer, Vec<Field>) = match name {
        "docker" | "podman" if args.first().is_some_and(|a| a.text() == "save") => {
            (&DOCKER_SAVE, args[1..].to_vec())
        }
        "tar" | "gtar" | "bsdtar" => (&TAR, tar_words(args)),
        _ => (
            WRITERS.iter().find(|w| w.names.contains(&name))?,
            args.to_vec(),
        ),
    };
    let p = getopt::parse(&table.spec, &args);
    let mut w = Writes {
        problems: p.problems.clone(),
        ..Writes::default()
    };
    let files_read = table.files_read_when.iter().any(|o| p.has(o));
    for found in &p.found {
        let Some(v) = &found.value else { continue };
        if name == "strace" && v.text().starts_with(['|', '!']) {
            continue;
        }
        if table.files.contains(&found.opt.name) && !files_read {
            w.files.push(v.clone());
        } else if table.dirs.contains(&found.opt.name) {
            w.dirs.push(
                if table.operands == Operands::Prefix || table.names[0] == "csplit" {
                    prefix_dir(v)
                } else {
                    v.clone()
                },
            );
        } else if table.option_files.contains(&found.opt.name) {
            w.option_files.push(v.text());
        } else if (name == "wget" || name == "wget2") && found.opt.name == "execute" {
            wget_commands(v, &mut w);
        }
    }
    let operands: Vec<&Field> = p.operands.iter().filter_map(|&i| args.get(i)).collect();
    let when = table.operands_when.is_empty() || table.operands_when.iter().any(|o| p.has(o));
    if when {
        match table.operands {
            Operands::None => {}
            Operands::All => w.files.extend(operands.iter().map(|&f| f.clone())),
            Operands::First => w.files.extend(operands.first().map(|&f| f.clone())),
            Operands::AfterFirst => w.files.extend(operands.iter().skip(1).map(|&f| f.clone())),
            Operands::Prefix => {
                if operands.len() >= 2
                    && let Some(last) = operands.last()
                {
                    w.dirs.push(prefix_dir(last));
                }
            }
        }
    }
    // Names the data picks (review s25 R13): `curl -O`/`--remote-name-all`
    // /`-J` and `wget` without `-O` write a name from the URL, a redirect
    // or a header into the working directory (or `--output-dir`/`-P`,
    // already filled): files of unknown names there.
    let data_names = match name {
        "curl" => {
            (p.has("remote-name") || p.has("remote-name-all") || p.has("remote-header-name"))
                && !p.has("output-dir")
        }
        "wget" | "wget2" => {
            !p.has("output-document") && !p.has("directory-prefix") && !p.has("spider")
        }
        _ => false,
    };
    if data_names {
        w.dirs.push(Field::lit("."));
    }
    Some(w)
}

impl Analysis<'_> {
    /// Judge the files `name` writes by its table ([`writes`]) as writes
    /// onto them, and the directories it fills; a command whose words its
    /// table cannot place is held when any word names a guarded file
    /// ([`Self::unplaced_writer`]).
    pub(crate) fn table_writes(&mut self, name: &str, args: &[Field], env: &mut Env) {
        let Some(w) = writes(name, args) else {
            return;
        };
        let via = format!("`{name}`");
        for f in &w.files {
            if self.done() {
                return;
            }
            self.check_device_write(&f.text(), &via);
            self.check_write(f, env, &Output::Unknown, &via, true, 0);
        }
        for d in &w.dirs {
            if self.done() {
                return;
            }
            self.fills_dir(name, d, env, false);
        }
        if !w.problems.is_empty() && !self.done() {
            self.unplaced_writer(name, args, env, &w.problems);
        }
        if let Some(f) = w.option_files.first()
            && !self.done()
        {
            self.report(
                false,
                "shell.eval-dynamic",
                format!(
                    "`{name}` reads more options from `{f}`, which this check does not read: they may name any file \
                     to write. A person must approve; or give the options on the command line."
                ),
            );
        }
    }

    /// `uudecode` without `-o` writes the file its input's header names
    /// (`begin[-base64] MODE PATH`, sharutils uudecode(1); an absolute
    /// PATH is honoured): judged as a write onto PATH when the input is
    /// text the check knows, held when not (review s23 V25).
    pub(crate) fn uudecode_header(&mut self, args: &[Field], env: &mut Env, stdin: &Output) {
        if args.iter().any(|a| {
            let t = a.text();
            t.starts_with("-o") || t.starts_with("--output-file")
        }) {
            return;
        }
        let from_stdin = args.iter().all(|a| a.text().starts_with('-'));
        let text = match stdin {
            Output::Static(t) if from_stdin => t,
            _ => {
                self.report(
                    false,
                    "shell.eval-dynamic",
                    "`uudecode` writes the file its input's header names, and that input is not text the check \
                     knows: it may write any file. A person must approve; or give `-o FILE`.",
                );
                return;
            }
        };
        for line in text.lines() {
            let mut words = line.split_whitespace();
            if matches!(words.next(), Some("begin" | "begin-base64"))
                && let (Some(_mode), Some(path)) = (words.next(), words.next())
                && path != "/dev/stdout"
                && path != "-"
            {
                let f = match path.strip_prefix("~/") {
                    Some(rest) => match &self.home {
                        Some(h) => Field::lit(format!("{h}/{rest}")),
                        None => Field::lit(path),
                    },
                    None => Field::lit(path),
                };
                self.check_write(
                    &f,
                    env,
                    &Output::Unknown,
                    "`uudecode` (the path in its header)",
                    true,
                    0,
                );
            }
        }
    }

    /// A writer whose words its table cannot place (`problems`): any word
    /// (an operand, an option's joined value, the path in `-xPATH`) that
    /// names a guard rail, toolvet's state or a credential file, or a
    /// directory just above one, may be what it writes. Held.
    fn unplaced_writer(&mut self, name: &str, args: &[Field], env: &Env, problems: &[String]) {
        for a in args {
            let t = a.text();
            let mut candidates = vec![a.clone()];
            if t.starts_with('-') {
                if let Some((_, v)) = t.split_once('=') {
                    candidates.push(Field::lit(v));
                }
                for (i, c) in t.char_indices().skip(1) {
                    if c == '/' || c == '~' {
                        candidates.push(Field::lit(&t[i..]));
                    }
                }
            }
            for c in candidates {
                let c = match c.text().strip_prefix('~') {
                    Some(rest) if rest.is_empty() || rest.starts_with('/') => match &self.home {
                        Some(h) => Field::lit(format!("{h}{rest}")),
                        None => c,
                    },
                    _ => c,
                };
                let Some(abs) = self.abs_path(&c, env) else {
                    continue;
                };
                let guarded = if self.state.guard_rail(&abs).is_some()
                    || crate::effects::sinks::sensitive_files()
                        .matches(&abs)
                        .is_some()
                {
                    Some(abs.clone())
                } else {
                    self.rail_just_within(&abs)
                };
                let Some(g) = guarded else { continue };
                let rule = match self.state.guard_rail(&g).map(|r| r.kind) {
                    Some(Rail::ToolvetState) => "shell.toolvet-state",
                    _ => "shell.guardrail-write",
                };
                self.report(
                    false,
                    rule,
                    format!(
                        "`{name}` is given `{}`, a guarded file (or the directory holding `{g}`), with options the \
                         check cannot place ({}): it may write it. A person must approve.",
                        c.text(),
                        problems.join(", ")
                    ),
                );
                return;
            }
        }
    }
}

/// `git switch` (builtin/checkout.c's switch options).
const GIT_SWITCH: Spec = gnu(&[
    long("create", 'c', V),
    long("force-create", 'C', V),
    long("orphan", '\0', V),
    long("detach", 'd', N),
    long("discard-changes", '\0', N),
    long("force", 'f', N),
    long("merge", 'm', N),
    long("conflict", '\0', V),
    long("quiet", 'q', N),
    long("track", 't', O),
    long("no-track", '\0', N),
    long("guess", '\0', N),
    long("no-guess", '\0', N),
    long("progress", '\0', N),
    long("no-progress", '\0', N),
    long("recurse-submodules", '\0', O),
    long("ignore-other-worktrees", '\0', N),
]);

/// `git checkout` (builtin/checkout.c's checkout options).
const GIT_CHECKOUT: Spec = gnu(&[
    short("b", V),
    short("B", V),
    long("orphan", '\0', V),
    long("detach", '\0', N),
    long("force", 'f', N),
    long("merge", 'm', N),
    long("conflict", '\0', V),
    long("quiet", 'q', N),
    long("track", 't', O),
    long("no-track", '\0', N),
    short("l", N),
    long("ours", '2', N),
    long("theirs", '3', N),
    long("patch", 'p', N),
    long("overlay", '\0', N),
    long("no-overlay", '\0', N),
    long("pathspec-from-file", '\0', V),
    long("pathspec-file-nul", '\0', N),
    long("progress", '\0', N),
    long("no-progress", '\0', N),
    long("guess", '\0', N),
    long("no-guess", '\0', N),
    long("recurse-submodules", '\0', O),
    long("ignore-skip-worktree-bits", '\0', N),
    long("ignore-other-worktrees", '\0', N),
]);

/// `git restore` (builtin/checkout.c's restore options).
const GIT_RESTORE: Spec = gnu(&[
    long("source", 's', V),
    long("staged", 'S', N),
    long("worktree", 'W', N),
    long("ours", '2', N),
    long("theirs", '3', N),
    long("merge", 'm', N),
    long("conflict", '\0', V),
    long("quiet", 'q', N),
    long("patch", 'p', N),
    long("overlay", '\0', N),
    long("no-overlay", '\0', N),
    long("ignore-unmerged", '\0', N),
    long("ignore-skip-worktree-bits", '\0', N),
    long("pathspec-from-file", '\0', V),
    long("pathspec-file-nul", '\0', N),
    long("progress", '\0', N),
    long("no-progress", '\0', N),
    long("recurse-submodules", '\0', O),
]);

/// `git stash push` (builtin/stash.c).
const GIT_STASH_PUSH: Spec = gnu(&[
    long("include-untracked", 'u', N),
    long("all", 'a', N),
    long("keep-index", 'k', N),
    long("no-keep-index", '\0', N),
    long("staged", 'S', N),
    long("patch", 'p', N),
    long("quiet", 'q', N),
    long("message", 'm', V),
    long("pathspec-from-file", '\0', V),
    long("pathspec-file-nul", '\0', N),
]);

/// `git read-tree` (builtin/read-tree.c): `-u` writes the work tree.
const GIT_READ_TREE: Spec = gnu(&[
    short("u", N),
    short("m", N),
    short("i", N),
    short("n", N),
    short("v", N),
    long("reset", '\0', N),
    long("prefix", '\0', V),
    long("index-output", '\0', V),
    long("trivial", '\0', N),
    long("aggressive", '\0', N),
    long("exclude-per-directory", '\0', V),
    long("dry-run", '\0', N),
    long("empty", '\0', N),
    long("quiet", 'q', N),
    long("no-sparse-checkout", '\0', N),
    long("recurse-submodules", '\0', O),
]);

impl Analysis<'_> {
    /// Files `git SUB` writes by its options and operands: `archive
    /// -o F`, `bundle create F`, `format-patch -o DIR` (a directory
    /// filled).
    pub(crate) fn git_writes(&mut self, sub: &str, rest: &[Field], env: &mut Env) {
        let via = format!("`git {sub}`");
        let mut files: Vec<Field> = Vec::new();
        match sub {
            "archive" => {
                if let Some(t) = crate::opts::gitopts::command("archive") {
                    let r = crate::opts::gitopts::read(&t.spec, rest);
                    files.extend(r.parsed.values("o").cloned());
                }
            }
            "bundle" if rest.first().is_some_and(|a| a.text() == "create") => {
                files.extend(
                    rest[1..]
                        .iter()
                        .find(|a| !a.text().starts_with('-'))
                        .cloned(),
                );
            }
            "format-patch" => {
                let mut i = 0;
                while let Some(a) = rest.get(i) {
                    let t = a.text();
                    let dir = match t.as_str() {
                        "-o" | "--output-directory" => rest.get(i + 1).cloned(),
                        _ => t
                            .strip_prefix("--output-directory=")
                            .or_else(|| t.strip_prefix("-o").filter(|d| !d.is_empty()))
                            .map(Field::lit),
                    };
                    if let Some(d) = dir {
                        self.fills_dir("git format-patch", &d, env, false);
                    }
                    i += 1;
                }
            }
            _ => {}
        }
        for f in files {
            if self.done() {
                return;
            }
            self.check_write(&f, env, &Output::Unknown, &via, true, 0);
        }
    }

    /// git commands that rewrite the work tree as a whole (review s22
    /// F6). The property a git command must prove to pass: **it leaves
    /// every file of the work tree at the content of the commit the tree
    /// holds (HEAD, its index, or the agent's own edits)**: it neither
    /// moves the tree to another commit (`git switch BRANCH`, `git
    /// checkout BRANCH`, `git reset --keep|--merge REV`), nor restores the
    /// whole tree from another revision (`git restore --source=REV .`,
    /// `git checkout REV -- .`), nor removes untracked files (`git stash
    /// -u|-a` without paths), nor narrows what the tree holds (`git
    /// sparse-checkout set|add|reapply|init|disable`), nor writes a tree
    /// read into the index (`git read-tree -u`), nor brings other commits
    /// in (`git merge`, `git pull`, `git cherry-pick`, `git revert`, `git
    /// am`; `--abort`/`--quit` pass). A work tree may hold an
    /// agent's project hook configuration (`.github/hooks/*.json`,
    /// `.cursor/hooks.json`, `.claude/settings.json`), untracked or
    /// committed on this branch only: such a command may remove or replace
    /// it, so it is held like a write onto it. A word a table cannot place
    /// holds too. (`git reset --hard` and `git clean -f` have their own
    /// rules; `git switch -c NEW`, `git checkout -b NEW`, `git stash`,
    /// `git restore FILE`, `git checkout -- FILE` pass.)
    pub(crate) fn git_whole_tree(&mut self, sub: &str, rest: &[Field], env: &Env) {
        let whole = |a: &Analysis<'_>, f: &Field| -> bool {
            let t = f.text();
            if f.is_dynamic() || t.starts_with(':') {
                return true;
            }
            // A glob (git's `*` crosses `/`) reaches only below the
            // directory its literal part names (`src/*.rs`: `src`).
            let f = match t.find(['*', '?', '[']) {
                Some(g) => match t[..g].rfind('/') {
                    Some(d) if d > 0 => Field::lit(&t[..d]),
                    _ => return true,
                },
                None => f.clone(),
            };
            if a.rail_just_within(&a.abs_path(&f, env).unwrap_or_default())
                .is_some()
            {
                return true;
            }
            let Some(abs) = a.abs_path(&f, env) else {
                return true;
            };
            // The workspace, the directory the command runs in, or one
            // above either: every hook configuration of the tree is in it.
            let cwd = a.abs_path(&Field::lit("."), env);
            a.workspace
                .iter()
                .chain(cwd.iter())
                .any(|w| crate::paths::is_at_or_under(w, &abs))
        };
        // A path at or above the agent's project (a workspace root): the
        // tree there may hold the agent's hook settings (review s24 R1).
        // Elsewhere (`--work-tree=/tmp/build`) the tree is judged by
        // what it is known to hold (review s23 V17).
        let project = |a: &Analysis<'_>, f: &Field| -> bool {
            if f.is_dynamic() || f.text().starts_with(':') {
                return true;
            }
            match a.abs_path(f, env) {
                Some(abs) => {
                    a.rail_just_within(&abs).is_some()
                        || a.workspace
                            .iter()
                            .any(|w| crate::paths::is_at_or_under(w, &abs))
                }
                None => true,
            }
        };
        let held: Option<String> = match sub {
            "switch" => {
                let p = getopt::parse(&GIT_SWITCH, rest);
                let stays = (p.has("create") || p.has("force-create") || p.has("detach"))
                    && p.operands.is_empty();
                (!p.problems.is_empty() || !stays)
                    .then(|| "moves the work tree to another commit".to_string())
            }
            "checkout" => {
                let p = getopt::parse(&GIT_CHECKOUT, rest);
                let dashdash = rest.iter().position(|a| a.text() == "--");
                let (revs, paths): (Vec<&Field>, Vec<&Field>) = match dashdash {
                    Some(d) => (
                        p.operands
                            .iter()
                            .filter(|&&i| i < d)
                            .map(|&i| &rest[i])
                            .collect(),
                        p.operands
                            .iter()
                            .filter(|&&i| i > d)
                            .map(|&i| &rest[i])
                            .collect(),
                    ),
                    None => {
                        let all: Vec<&Field> = p.operands.iter().map(|&i| &rest[i]).collect();
                        match all.split_first() {
                            // One word that cannot name a revision (`.`,
                            // `./src`, `.claude`: a ref's parts never
                            // start with `.`) is a path.
                            Some((first, [])) if not_a_revision(first) => {
                                (Vec::new(), vec![*first])
                            }
                            Some((first, more)) => (vec![*first], more.to_vec()),
                            None => (Vec::new(), Vec::new()),
                        }
                    }
                };
                if !p.problems.is_empty() || p.has("orphan") {
                    Some("may move the work tree to another commit".into())
                } else if paths.is_empty() && p.has("pathspec-from-file") {
                    Some("restores paths the command line does not show".into())
                } else if paths.is_empty() && !revs.is_empty() {
                    Some(format!(
                        "moves the work tree to `{}` (write `git checkout -- FILE` or `git restore FILE` for a file)",
                        revs[0].text()
                    ))
                } else if !revs.is_empty() && paths.iter().any(|f| whole(self, f)) {
                    Some(format!("restores the whole tree from `{}`", revs[0].text()))
                } else if paths.iter().any(|f| project(self, f)) {
                    // `git checkout .`: every indexed file rewritten from
                    // the index, which `update-index --cacheinfo` fills
                    // with any content (review s24 R1).
                    Some("rewrites every file of the tree from the index".into())
                } else {
                    None
                }
            }
            "restore" => {
                let p = getopt::parse(&GIT_RESTORE, rest);
                let worktree = p.has("worktree") || !p.has("staged");
                let source = p.has("source");
                let paths: Vec<&Field> = p.operands.iter().map(|&i| &rest[i]).collect();
                if !p.problems.is_empty() {
                    Some("has options the check cannot place".into())
                } else if worktree
                    && source
                    && (paths.iter().any(|f| whole(self, f)) || p.has("pathspec-from-file"))
                {
                    Some("restores the whole tree from another revision".into())
                } else if worktree
                    && (paths.iter().any(|f| project(self, f)) || p.has("pathspec-from-file"))
                {
                    // `git restore .` (review s24 R1).
                    Some("rewrites every file of the tree from the index".into())
                } else {
                    None
                }
            }
            "stash" => {
                let first = rest.first().map(Field::text);
                let words = match first.as_deref() {
                    Some("push" | "save") => &rest[1..],
                    Some(t) if t.starts_with('-') => rest,
                    None => rest,
                    _ => &[][..],
                };
                let p = getopt::parse(&GIT_STASH_PUSH, words);
                let paths: Vec<&Field> = if first.as_deref() == Some("save") {
                    Vec::new()
                } else {
                    p.operands.iter().map(|&i| &words[i]).collect()
                };
                let untracked = p.has("include-untracked") || p.has("all");
                let push = matches!(first.as_deref(), None | Some("push" | "save"))
                    || first.as_deref().is_some_and(|t| t.starts_with('-'));
                if !p.problems.is_empty()
                    || (untracked && (paths.is_empty() || paths.iter().any(|f| whole(self, f))))
                {
                    Some("takes untracked files out of the work tree".to_string())
                } else if push
                    && ((paths.is_empty()
                        && (project(self, &Field::lit("."))
                            || self.abs_path(&Field::lit("."), env).is_some_and(|c| {
                                // Run in a directory of the project: the
                                // stash takes the whole repository's.
                                self.workspace
                                    .iter()
                                    .any(|w| crate::paths::is_at_or_under(&c, w))
                            })))
                        || paths.iter().any(|f| project(self, f)))
                    && !p.has("pathspec-from-file")
                {
                    // A plain `git stash` reverts every changed file,
                    // an uncommitted hook install among them (review s24
                    // R1, W2).
                    Some("reverts every changed file of the tree to HEAD".to_string())
                } else {
                    None
                }
            }
            "sparse-checkout" => {
                let verb = rest.iter().map(Field::text).find(|t| !t.starts_with('-'));
                (!matches!(verb.as_deref(), Some("list" | "check-rules")))
                    .then(|| "changes which files the work tree holds".to_string())
            }
            "read-tree" => {
                let p = getopt::parse(&GIT_READ_TREE, rest);
                (!p.problems.is_empty() || p.has("u"))
                    .then(|| "writes a tree into the work tree".to_string())
            }
            // Commits brought into the tree (another branch's, a
            // remote's, a picked one's) may delete or replace the hook
            // configuration; aborting or quitting goes back to HEAD.
            "merge" | "pull" | "cherry-pick" | "revert" | "am" => {
                let leaves = rest.iter().any(|a| {
                    matches!(
                        a.text().as_str(),
                        "--abort" | "--quit" | "--show-current-patch" | "--edit-todo"
                    )
                });
                (!leaves).then(|| "brings other commits into the work tree".to_string())
            }
            "reset" => {
                let p = crate::opts::gitopts::read(&crate::opts::gitopts::GIT_RESET, rest).parsed;
                (p.has("keep") || p.has("merge"))
                    .then(|| "moves the work tree to another commit".to_string())
            }
            _ => None,
        };
        if let Some(what) = held {
            self.report(
                false,
                "shell.guardrail-write",
                format!(
                    "`git {sub}` {what}: it may remove or replace the agent's hook configuration in the tree \
                     (`.github/hooks/*.json`, `.cursor/hooks.json`, `.claude/settings.json`), untracked or on this \
                     branch only. A person must approve."
                ),
            );
        }
    }
}

/// Whether a `git checkout` word cannot be a revision: a part of it
/// starts with `.` (git's check-ref-format refuses that, and `..` is a
/// range), and it has none of the revision syntax `~ ^ @{ :`.
fn not_a_revision(f: &Field) -> bool {
    f.static_text().is_some_and(|t| {
        !t.contains(['~', '^', ':'])
            && !t.contains("@{")
            && t.split('/').any(|c| c.starts_with('.'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(v: &[Field]) -> Vec<String> {
        v.iter().map(Field::text).collect()
    }

    fn w(name: &str, words: &[&str]) -> Writes {
        let args: Vec<Field> = words.iter().map(|w| Field::lit(*w)).collect();
        writes(name, &args).expect("a table")
    }

    #[test]
    fn tables_place_written_files() {
        assert_eq!(texts(&w("sort", &["-uoF", "x"]).files), ["F"]);
        assert_eq!(texts(&w("sort", &["--out=F", "x"]).files), ["F"]);
        assert_eq!(texts(&w("curl", &["-sSo", "F", "u"]).files), ["F"]);
        assert_eq!(texts(&w("wget", &["-qO", "F", "u"]).files), ["F"]);
        assert_eq!(
            texts(&w("wget", &["-e", "output_document=F", "u"]).files),
            ["F"]
        );
        assert_eq!(texts(&w("tar", &["cfz", "F", "."]).files), ["F"]);
        assert!(w("tar", &["-xf", "F"]).files.is_empty());
        assert_eq!(texts(&w("uniq", &["-c", "I", "O"]).files), ["O"]);
        assert_eq!(texts(&w("zip", &["-r", "A", "x"]).files), ["A"]);
        assert!(w("yq", &[".a", "F"]).files.is_empty());
        assert_eq!(texts(&w("yq", &["-i", ".a", "F"]).files), [".a", "F"]);
        assert_eq!(texts(&w("openssl", &["enc", "-out", "F"]).files), ["F"]);
        assert_eq!(
            texts(&w("openssl", &["x509", "-noout", "-text"]).files),
            [] as [&str; 0]
        );
        assert_eq!(texts(&w("split", &["x", "out/p-"]).dirs), ["out"]);
        assert!(!w("curl", &["--frobnicate", "u"]).problems.is_empty());
    }
}
