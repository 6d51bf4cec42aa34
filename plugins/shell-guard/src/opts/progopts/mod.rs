//! One option table per known program that is not a command runner
//! (review s22 V3, V4, W1): which of its option values are shell text or
//! a program it runs, code in another language, a configuration file it
//! reads, or plain data; and which environment variables it reads as
//! options, code, programs or configuration ([`PROGRAM_VARIABLES`]).
//!
//! The property a call of a program with a table must prove to pass:
//! every word is placed by the program's own table, read as its parser
//! reads it ([`crate::opts::getopt`]: clusters, attached values, long-option
//! prefixes); every value the table marks as shell text or a program is
//! judged as that command (a script written earlier in the call is read);
//! code in another language (`make --eval`, `gawk -l`, `python3 -m
//! timeit`) is held; a configuration file written in the same call is
//! held. An option the table does not place holds the call: it may be one
//! that runs a program; so does a word only known at run time where the
//! program reads options (a variable set by an earlier call may hold
//! `--to-command=…`). Tables are read from each program's `--help`
//! (GNU tar 1.34, GNU Wget 1.21, GNU Make 4.3, coreutils 9.1 `split` and
//! `sort`) or manual (ssh(1), scp(1) getopt strings of OpenSSH 9.x; gawk
//! manual "Options"; dc manual), as the comment of each says.
//!
//! Option writes (`sort -o`, `tar -f`, `wget -O`) are judged by the write
//! rules, not here: this module places those options as data.

use crate::opts::getopt::{self, Opt, Spec, Takes, long, short};
use crate::syntax::{Field, Output, Seg};
use crate::walk::{Analysis, Env};

mod apply;

const V: Takes = Takes::Value;
const N: Takes = Takes::No;
const O: Takes = Takes::Optional;

/// An OpenSSH getopt string as a table: the letters taking a value, then
/// the flags.
macro_rules! ssh_opts {
    [$($v:literal),* ; $($n:literal),*] => { [$(short($v, V)),* , $(short($n, N)),*] };
}

/// What an option's value is to the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// Shell text the program runs (`split --filter=CMD`).
    Shell,
    /// A program (path or name) the program runs (`sort
    /// --compress-program=PROG`): judged as `PROG` run here.
    Program,
    /// Code in a language the check does not read (`make --eval`), or a
    /// shared object loaded: held.
    Hold,
    /// A file of options or code the program reads: held when written in
    /// the same call or only known at run time.
    Config,
    /// `ssh -o KEY=VALUE` / `-o 'KEY VALUE'` ([`ssh_option`]).
    SshOption,
    /// strace's `-o`: `|CMD` or `!CMD` pipes the trace into CMD.
    PipeOrFile,
    /// A wgetrc command (`wget -e KEY=VALUE`, [`wgetrc_command`]).
    Wgetrc,
    /// awk program text (`gawk --source=TEXT`).
    Awk,
    /// dc program text (`dc -e TEXT`): `!` runs the rest of the line.
    Dc,
}

/// How a program's operands are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Operands {
    /// Files and other data.
    Data,
    /// make: `NAME=VALUE` operands are makefile assignments, expanded by
    /// make (`$(shell …)`): judged by [`Analysis::make_variable`].
    MakeAssignments,
    /// dc: files of dc program text the check cannot read: held.
    DcFiles,
}

/// A program's table.
pub(crate) struct Table {
    /// The names it runs under.
    names: &'static [&'static str],
    /// Its options.
    pub(crate) spec: Spec,
    /// The options (by [`Opt::name`]) whose value is not plain data.
    roles: &'static [(&'static str, Role)],
    /// Its operands.
    operands: Operands,
}

const fn table(
    names: &'static [&'static str],
    opts: &'static [Opt],
    permute: bool,
    roles: &'static [(&'static str, Role)],
    operands: Operands,
) -> Table {
    Table {
        names,
        spec: Spec {
            opts,
            permute,
            long_only: false,
        },
        roles,
        operands,
    }
}

/// GNU `split` (coreutils 9.1 `split --help`): `--filter=COMMAND` "write
/// to shell COMMAND; file name is $FILE".
pub(crate) const SPLIT: Table = table(
    &["split", "gsplit"],
    &[
        long("suffix-length", 'a', V),
        long("additional-suffix", '\0', V),
        long("bytes", 'b', V),
        long("line-bytes", 'C', V),
        short("d", N),
        long("numeric-suffixes", '\0', O),
        short("x", N),
        long("hex-suffixes", '\0', O),
        long("elide-empty-files", 'e', N),
        long("filter", '\0', V),
        long("lines", 'l', V),
        long("number", 'n', V),
        long("separator", 't', V),
        long("unbuffered", 'u', N),
        long("verbose", '\0', N),
        long("help", '\0', N),
        long("version", '\0', N),
    ],
    true,
    &[("filter", Role::Shell)],
    Operands::Data,
);

/// GNU `sort` (coreutils 9.1 `sort --help`): `--compress-program=PROG`
/// runs PROG to compress temporary files (`PROG -d` to read them back).
pub(crate) const SORT: Table = table(
    &["sort", "gsort"],
    &[
        long("ignore-leading-blanks", 'b', N),
        long("dictionary-order", 'd', N),
        long("ignore-case", 'f', N),
        long("general-numeric-sort", 'g', N),
        long("ignore-nonprinting", 'i', N),
        long("month-sort", 'M', N),
        long("human-numeric-sort", 'h', N),
        long("numeric-sort", 'n', N),
        long("random-sort", 'R', N),
        long("random-source", '\0', V),
        long("reverse", 'r', N),
        long("sort", '\0', V),
        long("version-sort", 'V', N),
        long("batch-size", '\0', V),
        long("check", 'c', O),
        short("C", N),
        long("compress-program", '\0', V),
        long("debug", '\0', N),
        long("files0-from", '\0', V),
        long("key", 'k', V),
        long("merge", 'm', N),
        long("output", 'o', V),
        long("stable", 's', N),
        long("buffer-size", 'S', V),
        long("field-separator", 't', V),
        long("temporary-directory", 'T', V),
        long("parallel", '\0', V),
        long("unique", 'u', N),
        long("zero-terminated", 'z', N),
        long("help", '\0', N),
        long("version", '\0', N),
    ],
    true,
    &[
        ("compress-program", Role::Program),
        ("files0-from", Role::Config),
    ],
    Operands::Data,
);

/// GNU Make 4.3 (`make --help`): `-E STRING, --eval=STRING` "Evaluate
/// STRING as a makefile statement" (make's `$(shell …)` runs commands);
/// `-f FILE` a makefile (one written in the call is read by
/// [`Analysis::run_code_files`]; one only known at run time, `-f
/// <(…)`, is held); `-I DIR` where `include` looks. `NAME=VALUE`
/// operands are assignments make expands.
const MAKE: Table = table(
    &["make", "gmake"],
    &[
        short("b", N),
        short("m", N),
        long("always-make", 'B', N),
        long("directory", 'C', V),
        short("d", N),
        long("debug", '\0', O),
        long("environment-overrides", 'e', N),
        long("eval", 'E', V),
        long("file", 'f', V),
        long("makefile", '\0', V),
        long("help", 'h', N),
        long("ignore-errors", 'i', N),
        long("include-dir", 'I', V),
        long("jobs", 'j', O),
        long("keep-going", 'k', N),
        long("load-average", 'l', O),
        long("max-load", '\0', O),
        long("check-symlink-times", 'L', N),
        long("just-print", 'n', N),
        long("dry-run", '\0', N),
        long("recon", '\0', N),
        long("old-file", 'o', V),
        long("assume-old", '\0', V),
        long("output-sync", 'O', O),
        long("print-data-base", 'p', N),
        long("question", 'q', N),
        long("no-builtin-rules", 'r', N),
        long("no-builtin-variables", 'R', N),
        long("silent", 's', N),
        long("quiet", '\0', N),
        long("no-silent", '\0', N),
        long("no-keep-going", 'S', N),
        long("stop", '\0', N),
        long("touch", 't', N),
        long("trace", '\0', N),
        long("version", 'v', N),
        long("print-directory", 'w', N),
        long("no-print-directory", '\0', N),
        long("what-if", 'W', V),
        long("new-file", '\0', V),
        long("assume-new", '\0', V),
        long("warn-undefined-variables", '\0', N),
    ],
    true,
    &[
        ("eval", Role::Hold),
        ("file", Role::Config),
        ("makefile", Role::Config),
        ("include-dir", Role::Config),
    ],
    Operands::MakeAssignments,
);

/// GNU tar 1.34 (`tar --help`): `-F, --info-script=NAME,
/// --new-volume-script=NAME` "run script at end of each tape",
/// `--to-command=COMMAND`, `-I, --use-compress-program=PROG`,
/// `--rsh-command=COMMAND`, `--rmt-command=COMMAND`,
/// `--checkpoint-action=exec=CMD` (read by [`Role::Shell`] after
/// `exec=`; other actions are data). The traditional first word without
/// a dash (`tar czf out.tgz src`) is read as its letters
/// ([`tar_old_style`]).
pub(crate) const TAR: Table = table(
    &["tar", "gtar"],
    &[
        long("catenate", 'A', N),
        long("concatenate", '\0', N),
        long("create", 'c', N),
        long("delete", '\0', N),
        long("diff", 'd', N),
        long("compare", '\0', N),
        long("append", 'r', N),
        long("test-label", '\0', N),
        long("list", 't', N),
        long("update", 'u', N),
        long("extract", 'x', N),
        long("get", '\0', N),
        long("check-device", '\0', N),
        long("listed-incremental", 'g', V),
        long("incremental", 'G', N),
        long("hole-detection", '\0', V),
        long("ignore-failed-read", '\0', N),
        long("level", '\0', V),
        long("no-check-device", '\0', N),
        long("no-seek", '\0', N),
        long("seek", 'n', N),
        long("occurrence", '\0', O),
        long("sparse-version", '\0', V),
        long("sparse", 'S', N),
        long("add-file", '\0', V),
        long("directory", 'C', V),
        long("exclude", '\0', V),
        long("exclude-backups", '\0', N),
        long("exclude-caches", '\0', N),
        long("exclude-caches-all", '\0', N),
        long("exclude-caches-under", '\0', N),
        long("exclude-ignore", '\0', V),
        long("exclude-ignore-recursive", '\0', V),
        long("exclude-tag", '\0', V),
        long("exclude-tag-all", '\0', V),
        long("exclude-tag-under", '\0', V),
        long("exclude-vcs", '\0', N),
        long("exclude-vcs-ignores", '\0', N),
        long("no-null", '\0', N),
        long("no-recursion", '\0', N),
        long("no-unquote", '\0', N),
        long("no-verbatim-files-from", '\0', N),
        long("null", '\0', N),
        long("recursion", '\0', N),
        long("files-from", 'T', V),
        long("unquote", '\0', N),
        long("verbatim-files-from", '\0', N),
        long("exclude-from", 'X', V),
        long("anchored", '\0', N),
        long("ignore-case", '\0', N),
        long("no-anchored", '\0', N),
        long("no-ignore-case", '\0', N),
        long("no-wildcards", '\0', N),
        long("no-wildcards-match-slash", '\0', N),
        long("wildcards", '\0', N),
        long("wildcards-match-slash", '\0', N),
        long("keep-directory-symlink", '\0', N),
        long("keep-newer-files", '\0', N),
        long("keep-old-files", 'k', N),
        long("no-overwrite-dir", '\0', N),
        long("one-top-level", '\0', O),
        long("overwrite", '\0', N),
        long("overwrite-dir", '\0', N),
        long("recursive-unlink", '\0', N),
        long("remove-files", '\0', N),
        long("skip-old-files", '\0', N),
        long("unlink-first", 'U', N),
        long("verify", 'W', N),
        long("ignore-command-error", '\0', N),
        long("no-ignore-command-error", '\0', N),
        long("to-stdout", 'O', N),
        long("to-command", '\0', V),
        long("atime-preserve", '\0', O),
        long("clamp-mtime", '\0', N),
        long("delay-directory-restore", '\0', N),
        long("group", '\0', V),
        long("group-map", '\0', V),
        long("mode", '\0', V),
        long("mtime", '\0', V),
        long("touch", 'm', N),
        long("no-delay-directory-restore", '\0', N),
        long("no-same-owner", '\0', N),
        long("no-same-permissions", '\0', N),
        long("numeric-owner", '\0', N),
        long("owner", '\0', V),
        long("owner-map", '\0', V),
        long("preserve-permissions", 'p', N),
        long("same-permissions", '\0', N),
        long("same-owner", '\0', N),
        long("sort", '\0', V),
        long("preserve-order", 's', N),
        long("same-order", '\0', N),
        long("acls", '\0', N),
        long("no-acls", '\0', N),
        long("no-selinux", '\0', N),
        long("no-xattrs", '\0', N),
        long("selinux", '\0', N),
        long("xattrs", '\0', N),
        long("xattrs-exclude", '\0', V),
        long("xattrs-include", '\0', V),
        long("force-local", '\0', N),
        long("file", 'f', V),
        long("info-script", 'F', V),
        long("new-volume-script", '\0', V),
        long("tape-length", 'L', V),
        long("multi-volume", 'M', N),
        long("rmt-command", '\0', V),
        long("rsh-command", '\0', V),
        long("volno-file", '\0', V),
        long("blocking-factor", 'b', V),
        long("read-full-records", 'B', N),
        long("ignore-zeros", 'i', N),
        long("record-size", '\0', V),
        long("format", 'H', V),
        long("old-archive", '\0', N),
        long("portability", '\0', N),
        long("pax-option", '\0', V),
        long("posix", '\0', N),
        long("label", 'V', V),
        long("auto-compress", 'a', N),
        long("use-compress-program", 'I', V),
        long("bzip2", 'j', N),
        long("xz", 'J', N),
        long("lzip", '\0', N),
        long("lzma", '\0', N),
        long("lzop", '\0', N),
        long("no-auto-compress", '\0', N),
        long("zstd", '\0', N),
        long("gzip", 'z', N),
        long("gunzip", '\0', N),
        long("ungzip", '\0', N),
        long("compress", 'Z', N),
        long("uncompress", '\0', N),
        long("backup", '\0', O),
        long("hard-dereference", '\0', N),
        long("dereference", 'h', N),
        long("starting-file", 'K', V),
        long("newer-mtime", '\0', V),
        long("newer", 'N', V),
        long("after-date", '\0', V),
        long("one-file-system", '\0', N),
        long("absolute-names", 'P', N),
        long("suffix", '\0', V),
        long("strip-components", '\0', V),
        long("transform", '\0', V),
        long("xform", '\0', V),
        long("checkpoint", '\0', O),
        long("checkpoint-action", '\0', V),
        long("full-time", '\0', N),
        long("index-file", '\0', V),
        long("check-links", 'l', N),
        long("no-quote-chars", '\0', V),
        long("quote-chars", '\0', V),
        long("quoting-style", '\0', V),
        long("block-number", 'R', N),
        long("show-defaults", '\0', N),
        long("show-omitted-dirs", '\0', N),
        long("show-snapshot-field-ranges", '\0', N),
        long("show-transformed-names", '\0', N),
        long("show-stored-names", '\0', N),
        long("totals", '\0', O),
        long("utc", '\0', N),
        long("verbose", 'v', N),
        long("warning", '\0', V),
        long("interactive", 'w', N),
        long("confirmation", '\0', N),
        short("o", N),
        long("help", '?', N),
        long("restrict", '\0', N),
        long("usage", '\0', N),
        long("version", '\0', N),
    ],
    true,
    &[
        ("info-script", Role::Shell),
        ("new-volume-script", Role::Shell),
        ("to-command", Role::Shell),
        ("use-compress-program", Role::Shell),
        ("rsh-command", Role::Shell),
        ("rmt-command", Role::Program),
        ("checkpoint-action", Role::Shell),
        ("files-from", Role::Config),
        ("exclude-from", Role::Config),
    ],
    Operands::Data,
);

/// GNU Wget 1.21 (`wget --help`): `-e, --execute=COMMAND` "execute a
/// `.wgetrc'-style command" ([`wgetrc_command`]), `--config=FILE`,
/// `--use-askpass=COMMAND`. `-nv`, `-nc`, `-nd`, `-nH`, `-np` are `-n`
/// with a letter, as wget's getopt reads them.
pub(crate) const WGET: Table = table(
    &["wget"],
    &[
        long("version", 'V', N),
        long("help", 'h', N),
        long("background", 'b', N),
        long("execute", 'e', V),
        long("output-file", 'o', V),
        long("append-output", 'a', V),
        long("debug", 'd', N),
        long("quiet", 'q', N),
        long("verbose", 'v', N),
        long("no-verbose", '\0', N),
        long("report-speed", '\0', V),
        long("input-file", 'i', V),
        long("force-html", 'F', N),
        long("base", 'B', V),
        long("config", '\0', V),
        long("no-config", '\0', N),
        long("rejected-log", '\0', V),
        long("tries", 't', V),
        long("retry-connrefused", '\0', N),
        long("retry-on-http-error", '\0', V),
        long("output-document", 'O', V),
        long("no-clobber", '\0', N),
        long("no-netrc", '\0', N),
        long("continue", 'c', N),
        long("start-pos", '\0', V),
        long("progress", '\0', V),
        long("show-progress", '\0', N),
        long("timestamping", 'N', N),
        long("no-if-modified-since", '\0', N),
        long("no-use-server-timestamps", '\0', N),
        long("server-response", 'S', N),
        long("spider", '\0', N),
        long("timeout", 'T', V),
        long("dns-timeout", '\0', V),
        long("connect-timeout", '\0', V),
        long("read-timeout", '\0', V),
        long("wait", 'w', V),
        long("waitretry", '\0', V),
        long("random-wait", '\0', N),
        long("no-proxy", '\0', N),
        long("quota", 'Q', V),
        long("bind-address", '\0', V),
        long("limit-rate", '\0', V),
        long("no-dns-cache", '\0', N),
        long("restrict-file-names", '\0', V),
        long("ignore-case", '\0', N),
        long("inet4-only", '4', N),
        long("inet6-only", '6', N),
        long("prefer-family", '\0', V),
        long("user", '\0', V),
        long("password", '\0', V),
        long("ask-password", '\0', N),
        long("use-askpass", '\0', V),
        long("no-iri", '\0', N),
        long("local-encoding", '\0', V),
        long("remote-encoding", '\0', V),
        long("unlink", '\0', N),
        long("xattr", '\0', N),
        long("no-directories", '\0', N),
        long("force-directories", 'x', N),
        long("no-host-directories", '\0', N),
        long("protocol-directories", '\0', N),
        long("directory-prefix", 'P', V),
        long("cut-dirs", '\0', V),
        long("http-user", '\0', V),
        long("http-password", '\0', V),
        long("no-cache", '\0', N),
        long("default-page", '\0', V),
        long("adjust-extension", 'E', N),
        long("ignore-length", '\0', N),
        long("header", '\0', V),
        long("compression", '\0', V),
        long("max-redirect", '\0', N),
        long("proxy-user", '\0', V),
        long("proxy-password", '\0', V),
        long("referer", '\0', V),
        long("save-headers", '\0', N),
        long("user-agent", 'U', V),
        long("no-http-keep-alive", '\0', N),
        long("no-cookies", '\0', N),
        long("load-cookies", '\0', V),
        long("save-cookies", '\0', V),
        long("keep-session-cookies", '\0', N),
        long("post-data", '\0', V),
        long("post-file", '\0', V),
        long("method", '\0', V),
        long("body-data", '\0', V),
        long("body-file", '\0', V),
        long("content-disposition", '\0', N),
        long("content-on-error", '\0', N),
        long("auth-no-challenge", '\0', N),
        long("secure-protocol", '\0', V),
        long("https-only", '\0', N),
        long("no-check-certificate", '\0', N),
        long("certificate", '\0', V),
        long("certificate-type", '\0', V),
        long("private-key", '\0', V),
        long("private-key-type", '\0', V),
        long("ca-certificate", '\0', V),
        long("ca-directory", '\0', V),
        long("crl-file", '\0', V),
        long("pinnedpubkey", '\0', V),
        long("ciphers", '\0', V),
        long("no-hsts", '\0', N),
        long("hsts-file", '\0', N),
        long("ftp-user", '\0', V),
        long("ftp-password", '\0', V),
        long("no-remove-listing", '\0', N),
        long("no-glob", '\0', N),
        long("no-passive-ftp", '\0', N),
        long("preserve-permissions", '\0', N),
        long("retr-symlinks", '\0', N),
        long("ftps-implicit", '\0', N),
        long("ftps-resume-ssl", '\0', N),
        long("ftps-clear-data-connection", '\0', N),
        long("ftps-fallback-to-ftp", '\0', N),
        long("warc-file", '\0', V),
        long("warc-header", '\0', V),
        long("warc-max-size", '\0', V),
        long("warc-cdx", '\0', N),
        long("warc-dedup", '\0', V),
        long("no-warc-compression", '\0', N),
        long("no-warc-digests", '\0', N),
        long("no-warc-keep-log", '\0', N),
        long("warc-tempdir", '\0', V),
        long("recursive", 'r', N),
        long("level", 'l', V),
        long("delete-after", '\0', N),
        long("convert-links", 'k', N),
        long("convert-file-only", '\0', N),
        long("backups", '\0', V),
        long("backup-converted", 'K', N),
        long("mirror", 'm', N),
        long("page-requisites", 'p', N),
        long("strict-comments", '\0', N),
        long("accept", 'A', V),
        long("reject", 'R', V),
        long("accept-regex", '\0', V),
        long("reject-regex", '\0', V),
        long("regex-type", '\0', V),
        long("domains", 'D', V),
        long("exclude-domains", '\0', V),
        long("follow-ftp", '\0', N),
        long("follow-tags", '\0', V),
        long("ignore-tags", '\0', V),
        long("span-hosts", 'H', N),
        long("relative", 'L', N),
        long("include-directories", 'I', V),
        long("trust-server-names", '\0', N),
        long("exclude-directories", 'X', V),
        long("no-parent", '\0', N),
        short("n", V),
    ],
    true,
    &[
        ("execute", Role::Wgetrc),
        ("config", Role::Config),
        ("use-askpass", Role::Program),
    ],
    Operands::Data,
);

/// OpenSSH 9.x `ssh` (ssh.c getopt string
/// `"1246ab:c:e:fgi:kl:m:no:p:qstvx:AB:CD:E:F:GI:J:KL:MNO:P:Q:R:S:TVw:W:XYy"`).
/// ssh reads options after the destination too, up to the remote command
/// ([`Analysis::program_table`]). `-o` is an ssh_config line
/// ([`ssh_option`]); `-F` a configuration file.
pub(crate) const SSH: Table = table(
    &["ssh"],
    &ssh_opts!["b", "c", "e", "i", "l", "m", "o", "p", "B", "D", "E", "F", "I", "J", "L", "O", "P", "Q", "R", "S", "w", "W"; "1", "2", "4", "6", "a", "f", "g", "k", "n", "q", "s", "t", "v", "x", "A", "C", "G", "K", "M", "N", "T", "V", "X", "Y", "y"],
    false,
    &[
        ("o", Role::SshOption),
        ("F", Role::Config),
        ("I", Role::Hold),
    ],
    Operands::Data,
);

/// OpenSSH 9.x `scp` (scp.c getopt string
/// `"12346ABCTdfOpqRrstvD:F:J:M:P:S:X:c:i:l:o:"`): `-S PROGRAM` "Name of
/// program to use for the encrypted connection", `-D SFTP_SERVER_PATH`
/// an sftp server run directly instead of ssh: both programs run here;
/// `-o` as ssh.
const SCP: Table = table(
    &["scp"],
    &ssh_opts!["D", "F", "J", "M", "P", "S", "X", "c", "i", "l", "o"; "1", "2", "3", "4", "6", "A", "B", "C", "T", "d", "f", "O", "p", "q", "R", "r", "s", "t", "v"],
    true,
    &[
        ("o", Role::SshOption),
        ("F", Role::Config),
        ("S", Role::Program),
        ("D", Role::Program),
    ],
    Operands::Data,
);

/// OpenSSH 9.x `sftp` (sftp.c getopt string
/// `"1246AafhNpqrvCc:D:i:l:o:s:S:b:B:F:J:P:R:X:"`): `-S PROGRAM` runs
/// instead of ssh, `-D SFTP_SERVER_PATH` an sftp server run directly;
/// `-b BATCHFILE` is sftp commands (`!CMD` runs a local shell command): a
/// batch file written in the call is held; `-o` as ssh.
const SFTP: Table = table(
    &["sftp"],
    &ssh_opts!["c", "D", "i", "l", "o", "s", "S", "b", "B", "F", "J", "P", "R", "X"; "1", "2", "4", "6", "A", "a", "f", "h", "N", "p", "q", "r", "v", "C"],
    true,
    &[
        ("o", Role::SshOption),
        ("F", Role::Config),
        ("S", Role::Program),
        ("D", Role::Program),
        ("b", Role::Config),
    ],
    Operands::Data,
);

/// gawk 5 (The GNU Awk User's Guide, "Command-Line Options"; getopt
/// `"F:f:v:W;bcCd::D::e:E:ghi:l:L::nNo::Op::MPrsStVYZ:"`, stops at the
/// program text): `-e, --source=TEXT` is program text; `-l, --load=LIB`
/// loads a shared library; `-i, --include=FILE` and `-f, --file=FILE`
/// are source files; `-W NAME` is any long option.
const GAWK: Table = table(
    &["gawk"],
    &[
        long("field-separator", 'F', V),
        long("file", 'f', V),
        long("assign", 'v', V),
        short("W", V),
        long("characters-as-bytes", 'b', N),
        long("traditional", 'c', N),
        long("copyright", 'C', N),
        long("dump-variables", 'd', O),
        long("debug", 'D', O),
        long("source", 'e', V),
        long("exec", 'E', V),
        long("gen-pot", 'g', N),
        long("help", 'h', N),
        long("include", 'i', V),
        long("load", 'l', V),
        long("lint", 'L', O),
        long("non-decimal-data", 'n', N),
        long("use-lc-numeric", 'N', N),
        long("pretty-print", 'o', O),
        long("optimize", 'O', N),
        long("profile", 'p', O),
        long("bignum", 'M', N),
        long("posix", 'P', N),
        long("re-interval", 'r', N),
        long("no-optimize", 's', N),
        long("sandbox", 'S', N),
        long("lint-old", 't', N),
        long("version", 'V', N),
        long("csv", 'k', N),
        long("trace", 'I', N),
    ],
    false,
    &[
        ("source", Role::Awk),
        ("load", Role::Hold),
        ("W", Role::Hold),
        ("include", Role::Config),
        ("file", Role::Config),
        ("exec", Role::Config),
    ],
    Operands::Data,
);

/// GNU dc (dc manual, "Invocation"): `-e, --expression=SCRIPT`, `-f,
/// --file=FILE`, file operands; in dc text `!` runs the rest of the line
/// as a shell command ("Miscellaneous").
const DC: Table = table(
    &["dc"],
    &[
        long("expression", 'e', V),
        long("file", 'f', V),
        long("help", 'h', N),
        long("version", 'V', N),
    ],
    true,
    &[("expression", Role::Dc), ("file", Role::Hold)],
    Operands::DcFiles,
);

/// strace's `-o` (strace(1): "If the argument begins with '|' or '!', the
/// rest of the argument is treated as a command"); its table is the
/// runner's, [`crate::opts::runopts::STRACE`].
const STRACE: Table = Table {
    names: &["strace"],
    spec: crate::opts::runopts::STRACE,
    roles: &[("output", Role::PipeOrFile)],
    operands: Operands::Data,
};

/// Every table, looked up by program name.
const TABLES: &[&Table] = &[
    &SPLIT, &SORT, &MAKE, &TAR, &WGET, &SSH, &SCP, &SFTP, &GAWK, &DC, &STRACE,
];

/// The table of program `name`.
pub(crate) fn table_of(name: &str) -> Option<&'static Table> {
    TABLES.iter().copied().find(|t| t.names.contains(&name))
}

/// What `ssh -o TEXT` is: an ssh_config line, `KEY=VALUE` or `KEY VALUE`
/// (ssh_config(5): "options may be separated by whitespace or optional
/// whitespace and exactly one '='"; keywords are case-insensitive).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum SshOption {
    /// A command ssh runs (`ProxyCommand`, `LocalCommand`,
    /// `KnownHostsCommand`, any key ending in `Command`).
    Shell(String),
    /// A library loaded (`PKCS11Provider`, `SecurityKeyProvider`, any key
    /// ending in `Provider`), another configuration read (`Include`), or
    /// a conditional block (`Match exec`): held.
    Hold,
    /// Anything else: data.
    Data,
}

/// Read `ssh -o TEXT` ([`SshOption`]).
pub(crate) fn ssh_option(text: &str) -> SshOption {
    let t = text.trim_start();
    let end = t
        .find(|c: char| c == '=' || c.is_whitespace())
        .unwrap_or(t.len());
    let key = t[..end].to_ascii_lowercase();
    let rest = t[end..].trim_start();
    let value = rest.strip_prefix('=').unwrap_or(rest).trim_start();
    if key.ends_with("command") && key != "permitlocalcommand" {
        SshOption::Shell(value.to_string())
    } else if key.ends_with("provider") || matches!(key.as_str(), "include" | "match" | "host") {
        SshOption::Hold
    } else {
        SshOption::Data
    }
}

/// wgetrc commands (wget manual, "Wgetrc Commands"; the name is read
/// without case, `_` and `-`) that only tune the transfer. Any other
/// (`output_document`, `use_askpass`, `post_file`, `header`, …) is held:
/// it writes, runs or sends something the command line does not show.
const WGETRC_INERT: &[&str] = &[
    "robots",
    "tries",
    "timeout",
    "dnstimeout",
    "connecttimeout",
    "readtimeout",
    "wait",
    "waitretry",
    "randomwait",
    "quiet",
    "verbose",
    "progress",
    "showprogress",
    "retryconnrefused",
    "limitrate",
    "inet4only",
    "inet6only",
    "httpsonly",
    "checkcertificate",
    "useragent",
];

/// Whether `wget -e TEXT` is a wgetrc command in [`WGETRC_INERT`].
pub(crate) fn wgetrc_command(text: &str) -> bool {
    let key: String = text
        .split('=')
        .next()
        .unwrap_or("")
        .trim()
        .chars()
        .filter(|c| *c != '_' && *c != '-')
        .collect::<String>()
        .to_ascii_lowercase();
    text.contains('=') && WGETRC_INERT.contains(&key.as_str())
}

/// tar's traditional first word (`tar czf out.tgz src`): letters without
/// a dash, whose value-taking letters take the next words in order (GNU
/// tar manual, "Old Option Style"). Rewritten as separate `-L` words.
fn tar_old_style(spec: &Spec, args: &[Field]) -> Vec<Field> {
    let Some(first) = args.first().and_then(Field::static_text) else {
        return args.to_vec();
    };
    if first.is_empty() || first.starts_with('-') {
        return args.to_vec();
    }
    let mut rest = args[1..].iter();
    let mut out = Vec::new();
    for c in first.chars() {
        out.push(Field::lit(format!("-{c}")));
        let takes = spec
            .opts
            .iter()
            .find(|o| o.short == c && c != '\0')
            .map(|o| o.takes);
        if takes == Some(Takes::Value)
            && let Some(v) = rest.next()
        {
            out.push(v.clone());
        }
    }
    out.extend(rest.cloned());
    out
}

/// How a program reads an environment variable (see [`PROGRAM_VARIABLES`]).
#[derive(Clone, Copy)]
pub(crate) enum VarRole {
    /// Words the program puts before its own command line, read by its
    /// table: inert only when every word is placed and plain data.
    Options(&'static Table),
    /// Option letters only: inert when every word is `-` and letters of
    /// this set (`GZIP=-9`, `LESS=-FRX`).
    Flags(&'static str),
    /// An interpreter's options, of which these load code
    /// (`NODE_OPTIONS=--require /tmp/x.js`, `PERL5OPT=-Mx`): held when
    /// one is given (or, but for `NODE_OPTIONS`, the value is only known
    /// at run time).
    LoadOptions(&'static [&'static str]),
    /// Shell text a program runs (`PROMPT_COMMAND` at every prompt,
    /// `GIT_SSH_COMMAND` on a fetch, `EDITOR`/`PAGER` when a program opens
    /// them, `LESSOPEN='|cmd %s'`): judged as running it.
    Shell,
    /// A program the program runs: judged as running it.
    Program,
    /// A file of code run on start (`BASH_ENV`, `LD_PRELOAD`): read when
    /// written in the call, otherwise held
    /// ([`Analysis::code_file_variable`]).
    StartupFile,
    /// Code or options the check does not read: held when set.
    Hold,
    /// A file or directory (a `:` list for `*PATH`) of configuration or
    /// code the program reads: held when written in the call or only
    /// known at run time.
    Config,
    /// Compiler or linker flags (`CFLAGS`, `LDFLAGS`, `RUSTFLAGS`): inert
    /// only when given literally, every word a plain flag
    /// ([`plain_flags`]) and none naming a program, plugin or file of
    /// more flags (`-C linker=P`, `-fplugin=`, `-B DIR`, `@FILE`, `-Z`).
    CompilerFlags,
    /// A file the program writes (`GIT_TRACE=/path`, `SSLKEYLOGFILE`):
    /// an absolute path is judged as a write onto it, a number or
    /// boolean (a file descriptor, on/off) is inert, anything else held.
    OutputFile,
}

/// Words of compiler/linker flags that name a program, a plugin, a
/// directory of programs or a file of more flags (gcc(1) `-B`,
/// `-fplugin`, `-wrapper`, `-specs`, `@file`; rustc `-C linker=`, `-C
/// link-arg(s)=`, `-Z` unstable options; `--plugin`).
const FLAG_LOADERS: &[&str] = &[
    "linker",
    "link-arg",
    "plugin",
    "wrapper",
    "specs",
    "-B",
    "-Z",
    "@",
    "load",
    "-fuse-ld=/",
];

/// Whether `text` is plain compiler flags: words of letters, digits and
/// `-_=.,+:/` only (no shell text, quotes or `$`), none a loader
/// ([`FLAG_LOADERS`]). `-O2 -g -Wall -I/usr/include`, `-C
/// opt-level=3`, `-D warnings` pass.
pub(crate) fn plain_flags(text: &str) -> bool {
    text.split_whitespace().all(|w| {
        w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_=.,+:/".contains(c))
            && !FLAG_LOADERS.iter().any(|l| {
                if l.starts_with(['-', '@']) {
                    w.starts_with(l)
                } else {
                    w.contains(l)
                }
            })
    })
}

/// Whether make's value `text` is a plain word: nothing make expands
/// (`$`), no shell text, quotes or blanks. GNU make imports every
/// environment variable as a make variable ("Variables from the
/// Environment") and any variable may be used in a recipe: a value set
/// for make that is not a plain word (nor placed by
/// [`PROGRAM_VARIABLES`]) is held.
pub(crate) fn plain_word(text: &str) -> bool {
    text.chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_=.,+:/@%".contains(c))
}

/// Environment variables that change what a program runs or reads, one
/// table (`NAME=V cmd`, `export NAME=V`, `env NAME=V cmd`), with each
/// program's manual as the source; git's `GIT_CONFIG_*` configuration and
/// the prompts `PS0`-`PS4` are read by [`crate::code::programs`] as git
/// configuration and prompt text.
pub(crate) const PROGRAM_VARIABLES: &[(&str, VarRole)] = &[
    // bash(1) PROMPT_COMMAND, FCEDIT; git(1) GIT_SSH_COMMAND, GIT_SSH,
    // GIT_EDITOR, GIT_SEQUENCE_EDITOR, GIT_PAGER, GIT_EXTERNAL_DIFF,
    // GIT_ASKPASS, GIT_PROXY_COMMAND; ssh(1) SSH_ASKPASS; sudo(8)
    // SUDO_ASKPASS; environ(7) EDITOR, VISUAL, PAGER, BROWSER; man(1)
    // MANPAGER; systemctl(1) SYSTEMD_PAGER; less(1) LESSOPEN, LESSCLOSE;
    // rsync(1) RSYNC_RSH; cvs(1) CVS_RSH.
    ("PROMPT_COMMAND", VarRole::Shell),
    ("GIT_SSH_COMMAND", VarRole::Shell),
    ("GIT_SSH", VarRole::Shell),
    ("GIT_EDITOR", VarRole::Shell),
    ("GIT_SEQUENCE_EDITOR", VarRole::Shell),
    ("GIT_PAGER", VarRole::Shell),
    ("GIT_EXTERNAL_DIFF", VarRole::Shell),
    ("GIT_ASKPASS", VarRole::Shell),
    ("GIT_PROXY_COMMAND", VarRole::Shell),
    ("SSH_ASKPASS", VarRole::Shell),
    ("SUDO_ASKPASS", VarRole::Shell),
    ("EDITOR", VarRole::Shell),
    ("VISUAL", VarRole::Shell),
    ("FCEDIT", VarRole::Shell),
    ("PAGER", VarRole::Shell),
    ("MANPAGER", VarRole::Shell),
    ("SYSTEMD_PAGER", VarRole::Shell),
    ("BROWSER", VarRole::Shell),
    ("LESSOPEN", VarRole::Shell),
    ("LESSCLOSE", VarRole::Shell),
    ("RSYNC_RSH", VarRole::Shell),
    ("CVS_RSH", VarRole::Shell),
    // sudo(8): sudoedit's editor is SUDO_EDITOR, then VISUAL, EDITOR.
    ("SUDO_EDITOR", VarRole::Shell),
    ("SYSTEMD_EDITOR", VarRole::Shell),
    ("GIT_SEQUENCE_EDITOR", VarRole::Shell),
    // environ(7) SHELL: the shell `script`, `flock -c`, `tmux`, `screen`,
    // `less !`, vim `:sh`, fzf, parallel and make's recipes (when given
    // to make) run.
    ("SHELL", VarRole::Program),
    // GNU Make manual, "Variables Used by Implicit Rules": the programs of
    // the implicit recipes, run as shell text (`CC='ccache gcc'`); read
    // the same by autoconf, cmake, the `cc` crate of cargo build scripts.
    ("CC", VarRole::Shell),
    ("CXX", VarRole::Shell),
    ("CPP", VarRole::Shell),
    ("LD", VarRole::Shell),
    ("AR", VarRole::Shell),
    ("AS", VarRole::Shell),
    ("FC", VarRole::Shell),
    ("PC", VarRole::Shell),
    ("NM", VarRole::Shell),
    ("RANLIB", VarRole::Shell),
    ("STRIP", VarRole::Shell),
    ("OBJCOPY", VarRole::Shell),
    ("LEX", VarRole::Shell),
    ("YACC", VarRole::Shell),
    ("RM", VarRole::Shell),
    ("MAKE", VarRole::Shell),
    ("MAKESHELL", VarRole::Program),
    ("HOSTCC", VarRole::Shell),
    ("CC_FOR_BUILD", VarRole::Shell),
    // ... and their flags, and rustc's (Cargo reference, "Environment
    // Variables": RUSTFLAGS, CARGO_ENCODED_RUSTFLAGS (0x1f-separated),
    // RUSTDOCFLAGS).
    ("CFLAGS", VarRole::CompilerFlags),
    ("CXXFLAGS", VarRole::CompilerFlags),
    ("CPPFLAGS", VarRole::CompilerFlags),
    ("LDFLAGS", VarRole::CompilerFlags),
    ("LDLIBS", VarRole::CompilerFlags),
    ("FFLAGS", VarRole::CompilerFlags),
    ("ASFLAGS", VarRole::CompilerFlags),
    ("ARFLAGS", VarRole::CompilerFlags),
    ("RUSTFLAGS", VarRole::CompilerFlags),
    ("RUSTDOCFLAGS", VarRole::CompilerFlags),
    ("CARGO_ENCODED_RUSTFLAGS", VarRole::Hold),
    ("CARGO_ENCODED_RUSTDOCFLAGS", VarRole::Hold),
    // GNU Make: `.SHELLFLAGS` are the options recipes' shell gets.
    (".SHELLFLAGS", VarRole::Flags("ceuxvo")),
    // bash(1) BASH_ENV, sh(1) ENV (only given a file or to a shell),
    // zsh(1) ZDOTDIR, python(1) PYTHONSTARTUP, ld.so(8) LD_PRELOAD and
    // LD_AUDIT, git(1) GIT_EXEC_PATH, GIT_TEMPLATE_DIR, GIT_CONFIG*.
    ("BASH_ENV", VarRole::StartupFile),
    ("ENV", VarRole::StartupFile),
    ("ZDOTDIR", VarRole::StartupFile),
    ("PYTHONSTARTUP", VarRole::StartupFile),
    ("LD_PRELOAD", VarRole::StartupFile),
    ("LD_AUDIT", VarRole::StartupFile),
    // ld.so(8) LD_LIBRARY_PATH (shared objects found first), iconv(3)
    // GCONV_PATH (gconv modules loaded), config(5ssl) OPENSSL_CONF (its
    // `engines`/`providers` load libraries), OPENSSL_ENGINES,
    // OPENSSL_MODULES: code loaded, as LD_PRELOAD.
    ("LD_LIBRARY_PATH", VarRole::StartupFile),
    ("GCONV_PATH", VarRole::StartupFile),
    ("OPENSSL_CONF", VarRole::StartupFile),
    ("OPENSSL_ENGINES", VarRole::StartupFile),
    ("OPENSSL_MODULES", VarRole::StartupFile),
    ("GIT_EXEC_PATH", VarRole::StartupFile),
    ("GIT_TEMPLATE_DIR", VarRole::StartupFile),
    ("GIT_CONFIG", VarRole::StartupFile),
    ("GIT_CONFIG_GLOBAL", VarRole::StartupFile),
    ("GIT_CONFIG_SYSTEM", VarRole::StartupFile),
    // node(1) NODE_OPTIONS, perlrun(1) PERL5OPT, ruby(1) RUBYOPT: the
    // options that load code.
    (
        "NODE_OPTIONS",
        VarRole::LoadOptions(&[
            "--require",
            "-r",
            "--import",
            "--loader",
            "--experimental-loader",
        ]),
    ),
    ("PERL5OPT", VarRole::LoadOptions(&["-M", "-m", "-d"])),
    ("RUBYOPT", VarRole::LoadOptions(&["-r"])),
    // GNU tar manual, "Using tar Options": TAR_OPTIONS is prepended.
    ("TAR_OPTIONS", VarRole::Options(&TAR)),
    // GNU Make manual, "Communicating Options to a Sub-make": MAKEFLAGS,
    // GNUMAKEFLAGS and MFLAGS are read as options; MAKEFILES names
    // makefiles read first ("The Variable MAKEFILES").
    ("MAKEFLAGS", VarRole::Options(&MAKE)),
    ("GNUMAKEFLAGS", VarRole::Options(&MAKE)),
    ("MFLAGS", VarRole::Options(&MAKE)),
    ("MAKEFILES", VarRole::Hold),
    // git(1) GIT_WORK_TREE: where a checkout writes (review s23 V17;
    // `--work-tree` and `-c core.worktree` are placed by the git reader).
    ("GIT_WORK_TREE", VarRole::Hold),
    // zip(1)/unzip(1) ENVIRONMENT: ZIPOPT, ZIP, UNZIP, UNZIPOPT, ZIPINFO
    // are options (`-TT cmd` runs a command).
    ("ZIPOPT", VarRole::Hold),
    ("ZIP", VarRole::Hold),
    ("UNZIP", VarRole::Hold),
    ("UNZIPOPT", VarRole::Hold),
    ("ZIPINFO", VarRole::Hold),
    // gzip(1) GZIP, bzip2(1) BZIP2/BZIP, xz(1) XZ_OPT/XZ_DEFAULTS,
    // zstd(1) ZSTD_CLEVEL: options; levels and quiet/verbose are inert.
    ("GZIP", VarRole::Flags("0123456789nNqv")),
    ("BZIP2", VarRole::Flags("0123456789qvs")),
    ("BZIP", VarRole::Flags("0123456789qvs")),
    ("XZ_OPT", VarRole::Flags("0123456789eqvT")),
    ("XZ_DEFAULTS", VarRole::Flags("0123456789eqvT")),
    // less(1) ENVIRONMENT: LESS is options (`+!cmd` runs a command, `-o`
    // writes a log, `-k` reads a key file); LESSKEY*, LESSEDIT, LESS_IS_MORE.
    (
        "LESS",
        VarRole::Flags("aABcCdeEfFgGiIJKLmMnNqQrRsSSuUVwWXbhxyz0123456789~"),
    ),
    ("MORE", VarRole::Flags("cdflpsu0123456789")),
    ("LESSKEY", VarRole::Config),
    ("LESSKEYIN", VarRole::Config),
    ("LESSKEY_SYSTEM", VarRole::Config),
    ("LESSKEYIN_SYSTEM", VarRole::Config),
    ("LESSEDIT", VarRole::Hold),
    // perldebug(1): PERL5DB is the code that starts the debugger,
    // PERLDB_OPTS its options (`pager=|cmd`); perlrun(1) PERL5LIB/PERLLIB.
    ("PERL5DB", VarRole::Hold),
    ("PERLDB_OPTS", VarRole::Hold),
    ("PERL5LIB", VarRole::Config),
    ("PERLLIB", VarRole::Config),
    // python(1): PYTHONPATH directories come before the standard library;
    // ruby(1) RUBYLIB; node(1) NODE_PATH.
    ("PYTHONPATH", VarRole::Config),
    ("PYTHONHOME", VarRole::Config),
    ("PYTHONUSERBASE", VarRole::Config),
    // Cargo: CARGO_HOME holds `config.toml` (runners, wrappers) and
    // installed binaries.
    ("CARGO_HOME", VarRole::Config),
    // git(1) GIT_TRACE*, GIT_TRACE2* (read by pattern in
    // [`variable_role`]); curl/OpenSSL/NSS SSLKEYLOGFILE: files written.
    ("SSLKEYLOGFILE", VarRole::OutputFile),
    ("RUBYLIB", VarRole::Config),
    ("NODE_PATH", VarRole::Config),
    // wget(1) FILES: WGETRC names the start-up file; curl(1) `-K`: the
    // default .curlrc is in CURL_HOME, XDG_CONFIG_HOME or HOME.
    ("WGETRC", VarRole::Config),
    ("CURL_HOME", VarRole::Config),
    ("XDG_CONFIG_HOME", VarRole::Config),
    ("HOME", VarRole::Config),
    // rsync(1) ENVIRONMENT: RSYNC_CONNECT_PROG "run this command via the
    // shell" for rsync:// daemons.
    ("RSYNC_CONNECT_PROG", VarRole::Shell),
    // fzf(1): FZF_DEFAULT_COMMAND is run by the shell; FZF_DEFAULT_OPTS
    // (and `_FILE`) are options (`--bind …:execute(…)`).
    ("FZF_DEFAULT_COMMAND", VarRole::Shell),
    ("FZF_DEFAULT_OPTS", VarRole::Hold),
    ("FZF_DEFAULT_OPTS_FILE", VarRole::Config),
    // GNU parallel(1): PARALLEL is options (and may hold the command).
    ("PARALLEL", VarRole::Hold),
    // Cargo reference, "Environment Variables" / "Configuration": the
    // compiler, its wrappers and runners are programs cargo runs;
    // CARGO_TARGET_<triple>_RUNNER / _LINKER too (read by pattern).
    ("RUSTC", VarRole::Program),
    ("RUSTDOC", VarRole::Program),
    ("RUSTC_WRAPPER", VarRole::Program),
    ("RUSTC_WORKSPACE_WRAPPER", VarRole::Program),
    ("CARGO_BUILD_RUSTC", VarRole::Program),
    ("CARGO_BUILD_RUSTDOC", VarRole::Program),
    ("CARGO_BUILD_RUSTC_WRAPPER", VarRole::Program),
    ("CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER", VarRole::Program),
    // npm-config(7): every `npm_config_KEY` (any case) is `--KEY`;
    // `script-shell`, `shell`, `editor`, `browser`, `git` are programs.
    ("npm_config_script_shell", VarRole::Program),
    ("npm_config_shell", VarRole::Program),
    ("npm_config_editor", VarRole::Program),
    ("npm_config_browser", VarRole::Program),
    ("npm_config_git", VarRole::Program),
    ("npm_config_userconfig", VarRole::Config),
    ("npm_config_globalconfig", VarRole::Config),
    ("npm_config_node_options", VarRole::Hold),
];

/// How `name` is read ([`PROGRAM_VARIABLES`]; npm's variables in any
/// case, `CARGO_TARGET_*_RUNNER` and `_LINKER` and git's `GIT_TRACE*`
/// by pattern).
pub(crate) fn variable_role(name: &str) -> Option<VarRole> {
    if let Some((_, r)) = PROGRAM_VARIABLES
        .iter()
        .find(|(n, _)| *n == name || (n.starts_with("npm_config_") && n.eq_ignore_ascii_case(name)))
    {
        return Some(*r);
    }
    if name.starts_with("GIT_TRACE") {
        return Some(VarRole::OutputFile);
    }
    (name.starts_with("CARGO_TARGET_") && (name.ends_with("_RUNNER") || name.ends_with("_LINKER")))
        .then_some(VarRole::Program)
}

/// Whether `word` may expand to an option: it starts with a variable whose
/// value is not known, or holds one unquoted (split into words, any of
/// which may start with `-`). Command output (`$(nproc)`) is the
/// analysis' own reading and is not counted.
fn may_be_option(word: &Field) -> bool {
    let mut leading = true;
    word.segs.iter().any(|s| {
        let hit = matches!(s, Seg::Dyn { raw, out: Output::Unknown, quoted }
            if raw.starts_with('$') && !raw.starts_with("$(") && (leading || !quoted));
        leading &= matches!(s, Seg::Lit { text, .. } if text.is_empty());
        hit
    })
}

/// Shell-quote `t` as one word.
fn quoted(t: &str) -> String {
    format!("'{}'", t.replace('\'', "'\\''"))
}

/// Whether a file at `path` or under it was written earlier in the call.
fn written_under(env: &Env, path: &str) -> bool {
    let key = env.file_key(path);
    let dir = format!("{}/", key.trim_end_matches('/'));
    env.written.keys().any(|k| *k == key || k.starts_with(&dir))
}
