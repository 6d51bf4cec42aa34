//! The option tables of the command runners read in
//! [`crate::walk::commands`] (`env`, `nice`, `timeout`, `systemd-run`, …) and
//! of `at`, one [`Spec`] per program, as its own parser reads its options
//! (review s17 Q14, Q4). Each runner stops at its first operand (`+` in its
//! getopt string), so [`crate::opts::getopt::Parsed::end`] is where its command
//! (or its first non-option operand) starts. A word the table cannot place
//! (an option it lacks, an ambiguous prefix) is a problem: where the
//! command is would depend on it, so the call is held
//! ([`Analysis::runner_options`]). The tables of runners that also act on
//! a running process (`strace -p`, `ltrace -p`, `prlimit --pid`,
//! `cpulimit --pid`, `ionice -p`, `chrt -p`, `taskset -p`) are read by
//! [`crate::effects::selfstate`] too, for the pids they reach: one table per
//! program.

use crate::opts::getopt::{self, Parsed, Spec, Takes, long, short};
use crate::syntax::Field;
use crate::walk::Analysis;

const V: Takes = Takes::Value;
const N: Takes = Takes::No;
const O: Takes = Takes::Optional;

/// A runner's table: options stop at the first operand.
const fn runner(opts: &'static [getopt::Opt]) -> Spec {
    Spec {
        opts,
        permute: false,
        long_only: false,
    }
}

/// GNU coreutils `env` (9.5+, env.c: `"+a:C:iS:u:v0"`, with
/// `--block-signal[=SIG]`, `--default-signal[=SIG]`, `--ignore-signal[=SIG]`,
/// `--list-signal-handling`). `-a NAME` is the command's argv[0]; `-S TEXT`
/// is split into words that replace it on the command line.
pub(crate) const ENV: Spec = runner(&[
    long("argv0", 'a', V),
    long("chdir", 'C', V),
    long("ignore-environment", 'i', N),
    long("null", '0', N),
    long("unset", 'u', V),
    long("split-string", 'S', V),
    long("debug", 'v', N),
    long("block-signal", '\0', O),
    long("default-signal", '\0', O),
    long("ignore-signal", '\0', O),
    long("list-signal-handling", '\0', N),
    long("help", '\0', N),
    long("version", '\0', N),
]);

/// GNU coreutils `nice` (nice.c: `"+n:"`, `--adjustment`); the obsolete
/// `-NUM`/`--NUM` form is read by [`nice_words`].
pub(crate) const NICE: Spec = runner(&[
    long("adjustment", 'n', V),
    long("help", '\0', N),
    long("version", '\0', N),
]);

/// GNU coreutils `timeout` (timeout.c: `"+k:s:v"`): `timeout [OPTION]
/// DURATION COMMAND…`.
pub(crate) const TIMEOUT: Spec = runner(&[
    long("kill-after", 'k', V),
    long("signal", 's', V),
    long("foreground", '\0', N),
    long("preserve-status", '\0', N),
    long("verbose", 'v', N),
    long("help", '\0', N),
    long("version", '\0', N),
]);

/// util-linux `ionice` (ionice.c: `"+n:c:p:P:u:tVh"`). With `-p`, `-P` or
/// `-u` its operands are more ids, not a command.
pub(crate) const IONICE: Spec = runner(&[
    long("classdata", 'n', V),
    long("class", 'c', V),
    long("pid", 'p', V),
    long("pgid", 'P', V),
    long("uid", 'u', V),
    long("ignore", 't', N),
    long("help", 'h', N),
    long("version", 'V', N),
]);

/// util-linux `setsid` (setsid.c: `"+Vhcfw"`).
pub(crate) const SETSID: Spec = runner(&[
    long("ctty", 'c', N),
    long("fork", 'f', N),
    long("wait", 'w', N),
    long("help", 'h', N),
    long("version", 'V', N),
]);

/// GNU coreutils `stdbuf` (stdbuf.c: `"+i:o:e:"`).
pub(crate) const STDBUF: Spec = runner(&[
    long("input", 'i', V),
    long("output", 'o', V),
    long("error", 'e', V),
    long("help", '\0', N),
    long("version", '\0', N),
]);

/// `strace` (strace(1), strace.c: `"+a:Ab:cCdDe:E:fFhiI:kno:O:p:P:qrs:S:tTu:U:vVwxX:yYzZ"`
/// and its long options). `-p PID` attaches to a running process. The
/// short `-k`, `-q`, `-r`, `-t`, `-T`, `-y`, `-Y` are flags; their long
/// forms take an optional value.
pub(crate) const STRACE: Spec = runner(&[
    long("columns", 'a', V),
    long("output-append-mode", 'A', N),
    long("detach-on", 'b', V),
    long("summary-only", 'c', N),
    long("summary", 'C', N),
    long("debug", 'd', N),
    short("D", N),
    long("daemonize", '\0', O),
    short("e", V),
    long("env", 'E', V),
    long("follow-forks", 'f', N),
    long("output-separately", 'F', N),
    long("help", 'h', N),
    long("instruction-pointer", 'i', N),
    long("interruptible", 'I', V),
    long("stack-trace", '\0', O),
    short("k", N),
    long("stack-traces", '\0', O),
    long("syscall-number", 'n', N),
    long("output", 'o', V),
    long("summary-syscall-overhead", 'O', V),
    long("attach", 'p', V),
    long("trace-path", 'P', V),
    long("quiet", '\0', O),
    short("q", N),
    long("silent", '\0', O),
    long("silence", '\0', O),
    long("relative-timestamps", '\0', O),
    short("r", N),
    long("string-limit", 's', V),
    long("summary-sort-by", 'S', V),
    long("absolute-timestamps", '\0', O),
    short("t", N),
    long("timestamps", '\0', O),
    long("syscall-times", '\0', O),
    short("T", N),
    long("user", 'u', V),
    long("summary-columns", 'U', V),
    long("no-abbrev", 'v', N),
    long("version", 'V', N),
    long("summary-wall-clock", 'w', N),
    short("x", N),
    long("const-print-style", 'X', V),
    long("decode-fds", '\0', O),
    short("y", N),
    long("decode-pids", '\0', O),
    short("Y", N),
    long("successful-only", 'z', N),
    long("failed-only", 'Z', N),
    long("seccomp-bpf", '\0', N),
    long("kill-on-exit", '\0', N),
    long("argv0", '\0', V),
    long("trace", '\0', V),
    long("trace-fds", '\0', V),
    long("abbrev", '\0', V),
    long("verbose", '\0', V),
    long("raw", '\0', V),
    long("signal", '\0', V),
    long("signals", '\0', V),
    long("status", '\0', V),
    long("read", '\0', V),
    long("write", '\0', V),
    long("fault", '\0', V),
    long("inject", '\0', V),
    long("secontext", '\0', O),
    long("tips", '\0', O),
    long("daemonise", '\0', O),
    long("strings-in-hex", '\0', O),
    long("kvm", '\0', V),
    long("pidns-translation", '\0', N),
    long("namespace", '\0', O),
]);

/// `ltrace` (ltrace(1): `-a -A -b -c -C -D -e -f -F -h -i -l -L -n -o -p
/// -r -s -S -t -T -u -V -w -x`).
pub(crate) const LTRACE: Spec = runner(&[
    long("align", 'a', V),
    short("A", V),
    long("no-signals", 'b', N),
    short("c", N),
    long("demangle", 'C', N),
    long("debug", 'D', V),
    short("e", V),
    short("f", N),
    long("config", 'F', V),
    long("help", 'h', N),
    short("i", N),
    long("library", 'l', V),
    short("L", N),
    long("indent", 'n', V),
    long("output", 'o', V),
    short("p", V),
    short("r", N),
    short("s", V),
    short("S", N),
    short("t", N),
    short("T", N),
    short("u", V),
    long("version", 'V', N),
    long("where", 'w', V),
    short("x", V),
    short("v", N),
]);

/// `systemd-run` (systemd-run(1), run.c: getopt_long `"+hrC:H:M:E:p:tPqGdSu:v"`).
/// `-p`/`--property`, and the `--timer-property`, `--path-property` and
/// `--socket-property` of the units it adds, set unit properties: an
/// `Exec…=` property is a command systemd runs.
pub(crate) const SYSTEMD_RUN: Spec = runner(&[
    long("help", 'h', N),
    long("version", '\0', N),
    long("user", '\0', N),
    long("system", '\0', N),
    long("capsule", 'C', V),
    long("scope", '\0', N),
    long("unit", 'u', V),
    long("description", '\0', V),
    long("slice", '\0', V),
    long("slice-inherit", '\0', N),
    long("remain-after-exit", 'r', N),
    long("send-sighup", '\0', N),
    long("host", 'H', V),
    long("machine", 'M', V),
    long("service-type", '\0', V),
    long("wait", '\0', N),
    long("uid", '\0', V),
    long("gid", '\0', V),
    long("nice", '\0', V),
    long("working-directory", '\0', V),
    long("same-dir", 'd', N),
    long("setenv", 'E', V),
    long("property", 'p', V),
    long("tty", 't', N),
    long("pty", '\0', N),
    long("pty-late", '\0', N),
    long("pipe", 'P', N),
    long("quiet", 'q', N),
    long("verbose", 'v', N),
    long("on-active", '\0', V),
    long("on-boot", '\0', V),
    long("on-startup", '\0', V),
    long("on-unit-active", '\0', V),
    long("on-unit-inactive", '\0', V),
    long("on-calendar", '\0', V),
    long("on-timezone-change", '\0', N),
    long("on-clock-change", '\0', N),
    long("timer-property", '\0', V),
    long("path-property", '\0', V),
    long("socket-property", '\0', V),
    long("no-block", '\0', N),
    long("no-ask-password", '\0', N),
    long("collect", 'G', N),
    long("shell", 'S', N),
    long("job-mode", '\0', V),
    long("ignore-failure", '\0', N),
    long("background", '\0', V),
    long("json", '\0', V),
    long("expand-environment", '\0', V),
]);

/// The options of [`SYSTEMD_RUN`] whose values are unit properties.
pub(crate) const SYSTEMD_RUN_PROPERTIES: &[&str] = &[
    "property",
    "timer-property",
    "path-property",
    "socket-property",
];

/// util-linux `chrt` (chrt.c: `"+abdD:efiphmoP:T:rRvV"`): `chrt [OPTION]
/// PRIORITY COMMAND…`; with `-p` the operands are a process, with `-m`
/// nothing runs.
pub(crate) const CHRT: Spec = runner(&[
    long("all-tasks", 'a', N),
    long("batch", 'b', N),
    long("deadline", 'd', N),
    long("ext", 'e', N),
    long("fifo", 'f', N),
    long("idle", 'i', N),
    long("pid", 'p', N),
    long("help", 'h', N),
    long("max", 'm', N),
    long("other", 'o', N),
    long("rr", 'r', N),
    long("reset-on-fork", 'R', N),
    long("sched-runtime", 'T', V),
    long("sched-period", 'P', V),
    long("sched-deadline", 'D', V),
    long("verbose", 'v', N),
    long("version", 'V', N),
]);

/// util-linux `taskset` (taskset.c: `"+apchV"`): `taskset [OPTION] MASK
/// COMMAND…`; with `-p` the operands are a process.
pub(crate) const TASKSET: Spec = runner(&[
    long("all-tasks", 'a', N),
    long("pid", 'p', N),
    long("cpu-list", 'c', N),
    long("help", 'h', N),
    long("version", 'V', N),
]);

/// procps `watch` (watch.c: `"+bcCd::eghq:n:prs:tvwx"`). Without `-x` the
/// command's words are joined and run by `sh -c`.
pub(crate) const WATCH: Spec = runner(&[
    long("beep", 'b', N),
    long("color", 'c', N),
    long("no-color", 'C', N),
    long("differences", 'd', O),
    long("errexit", 'e', N),
    long("chgexit", 'g', N),
    long("equexit", 'q', V),
    long("help", 'h', N),
    long("interval", 'n', V),
    long("precise", 'p', N),
    long("no-rerun", 'r', N),
    long("shotsdir", 's', V),
    long("no-title", 't', N),
    long("version", 'v', N),
    long("no-wrap", 'w', N),
    long("exec", 'x', N),
]);

/// util-linux `flock` (flock.c: `"+sexnoFuw:E:hV?"`): `flock [OPTION]
/// FILE COMMAND…` or `flock [OPTION] FILE -c TEXT`.
pub(crate) const FLOCK: Spec = runner(&[
    long("shared", 's', N),
    long("exclusive", 'x', N),
    long("unlock", 'u', N),
    long("nonblocking", 'n', N),
    long("nb", '\0', N),
    long("timeout", 'w', V),
    long("wait", '\0', V),
    long("conflict-exit-code", 'E', V),
    long("close", 'o', N),
    long("no-fork", 'F', N),
    long("verbose", '\0', N),
    long("help", 'h', N),
    long("version", 'V', N),
]);

/// GNU `time` (time.c: `"+agqvVf:o:p"`).
pub(crate) const TIME: Spec = runner(&[
    long("append", 'a', N),
    long("format", 'f', V),
    long("output", 'o', V),
    long("portability", 'p', N),
    long("quiet", 'q', N),
    long("verbose", 'v', N),
    long("version", 'V', N),
    long("help", '\0', N),
]);

/// bash's `exec [-cl] [-a NAME] [COMMAND]` (builtins/exec.def: `"cla:"`).
pub(crate) const EXEC: Spec = runner(&[short("c", N), short("l", N), short("a", V)]);

/// GNU `parallel`: the options its reader models (parallel(1); the
/// program reads them with Perl's Getopt::Long configured `bundling` and
/// `require_order`: short options cluster and take the rest of the word
/// as a value, `-I%`, `-j2`; long options need `--`, take `=V` or the next
/// word; options end at the first operand, `:::` included). Any other
/// option is a problem and holds the call (`--ssh`, `-S`, `--workdir`,
/// `--colsep`, `--header`, `--arg-sep`, `-E`, …), and so does a long
/// option not spelled out in full (Getopt::Long takes any unique prefix
/// of *its* table, which this one does not copy). Aliases are separate
/// entries; [`PARALLEL_HOLD`] names the options that are read only to be
/// held.
pub(crate) const PARALLEL: Spec = runner(&[
    // Input.
    long("arg-file", 'a', V),
    long("null", '0', N),
    long("delimiter", 'd', V),
    long("link", '\0', N),
    long("xapply", '\0', N),
    long("pipe", '\0', N),
    long("spreadstdin", '\0', N),
    long("pipepart", '\0', N),
    long("block", '\0', V),
    long("block-size", '\0', V),
    // Scheduling and output: they do not change the command lines.
    long("jobs", 'j', V),
    long("max-procs", 'P', V),
    long("keep-order", 'k', N),
    long("group", '\0', N),
    long("ungroup", 'u', N),
    long("line-buffer", '\0', N),
    long("lb", '\0', N),
    long("verbose", 'v', N),
    short("t", N),
    long("no-run-if-empty", 'r', N),
    long("dry-run", '\0', N),
    long("progress", '\0', N),
    long("eta", '\0', N),
    long("bar", '\0', N),
    long("tag", '\0', N),
    long("will-cite", '\0', N),
    long("no-notice", '\0', N),
    long("halt", '\0', V),
    long("halt-on-error", '\0', V),
    long("delay", '\0', V),
    long("timeout", '\0', V),
    long("retries", '\0', V),
    long("memfree", '\0', V),
    long("load", '\0', V),
    long("nice", '\0', V),
    long("joblog", '\0', V),
    long("results", '\0', V),
    long("tmpdir", '\0', V),
    long("shuf", '\0', N),
    // How each line is made.
    long("quote", 'q', N),
    // Read only to be held (PARALLEL_HOLD).
    short("I", V),
    long("replace", 'i', O),
    long("extensionreplace", '\0', V),
    long("er", '\0', V),
    long("basenamereplace", '\0', V),
    long("bnr", '\0', V),
    long("dirnamereplace", '\0', V),
    long("dnr", '\0', V),
    long("basenameextensionreplace", '\0', V),
    long("bner", '\0', V),
    long("seqreplace", '\0', V),
    long("slotreplace", '\0', V),
    long("rpl", '\0', V),
    long("plus", '\0', N),
    long("max-args", 'n', V),
    long("max-replace-args", 'N', V),
    long("max-lines", 'L', V),
    short("l", O),
    short("m", N),
    short("X", N),
    long("xargs", '\0', N),
    long("max-chars", 's', V),
]);

/// The [`PARALLEL`] options that rename or add replacement strings
/// (`-I R`, `-i`/`--replace[=R]`, `--er`, `--bnr`, `--dnr`, `--bner`,
/// `--seqreplace`, `--slotreplace`, `--rpl`, `--plus`) or put several
/// inputs in one command line (`-n`, `-N`, `-L`, `-l`, `-m`, `-X`,
/// `--xargs`, `-s`): the reader does not build those lines, so they hold.
pub(crate) const PARALLEL_HOLD: &[&str] = &[
    "I",
    "replace",
    "extensionreplace",
    "er",
    "basenamereplace",
    "bnr",
    "dirnamereplace",
    "dnr",
    "basenameextensionreplace",
    "bner",
    "seqreplace",
    "slotreplace",
    "rpl",
    "plus",
    "max-args",
    "max-replace-args",
    "max-lines",
    "l",
    "m",
    "X",
    "xargs",
    "max-chars",
];

/// GNU findutils `xargs` (xargs.c: `"+0a:E:e::i::I:l::L:n:prs:txP:d:"`).
/// `-I R` and `-i[R]`/`--replace[=R]` (`{}` when not given) put each input
/// line in place of R; `-a FILE`, `-0`, `-d` read the input otherwise.
pub(crate) const XARGS: Spec = runner(&[
    long("null", '0', N),
    long("arg-file", 'a', V),
    long("delimiter", 'd', V),
    short("E", V),
    long("eof", 'e', O),
    long("replace", 'i', O),
    short("I", V),
    long("max-lines", 'l', O),
    short("L", V),
    long("max-args", 'n', V),
    long("open-tty", 'o', N),
    long("interactive", 'p', N),
    long("no-run-if-empty", 'r', N),
    long("max-chars", 's', V),
    long("verbose", 't', N),
    long("exit", 'x', N),
    long("max-procs", 'P', V),
    long("process-slot-var", '\0', V),
    long("show-limits", '\0', N),
    long("help", '\0', N),
    long("version", '\0', N),
]);

/// The replace string of an `xargs` call read by [`XARGS`]: the last of
/// `-I R`, `-iR`, `--replace=R`, and `{}` for `-i`/`--replace` alone.
pub(crate) fn xargs_replace(p: &Parsed) -> Option<String> {
    p.found.iter().rev().find_map(|f| match f.opt.name {
        "replace" => Some(f.value.as_ref().map_or("{}".to_string(), Field::text)),
        "I" => f.value.as_ref().map(Field::text),
        _ => None,
    })
}

/// util-linux `unshare` (unshare.c: `"+fhVmuinpCTUrR:w:S:G:cl:"`). The
/// namespace options take an optional value only in their long form
/// (`--mount=FILE`); `-m` and the others are flags.
pub(crate) const UNSHARE: Spec = runner(&[
    long("help", 'h', N),
    long("version", 'V', N),
    short("m", N),
    long("mount", '\0', O),
    short("u", N),
    long("uts", '\0', O),
    short("i", N),
    long("ipc", '\0', O),
    short("n", N),
    long("net", '\0', O),
    short("p", N),
    long("pid", '\0', O),
    short("U", N),
    long("user", '\0', O),
    short("C", N),
    long("cgroup", '\0', O),
    short("T", N),
    long("time", '\0', O),
    long("fork", 'f', N),
    long("kill-child", '\0', O),
    long("mount-proc", '\0', O),
    long("mount-binfmt", '\0', O),
    long("map-user", '\0', V),
    long("map-users", '\0', V),
    long("map-group", '\0', V),
    long("map-groups", '\0', V),
    long("map-root-user", 'r', N),
    long("map-current-user", 'c', N),
    long("map-auto", '\0', N),
    long("propagation", '\0', V),
    long("setgroups", '\0', V),
    long("keep-caps", '\0', N),
    long("setuid", 'S', V),
    long("setgid", 'G', V),
    long("root", 'R', V),
    long("wd", 'w', V),
    long("monotonic", '\0', V),
    long("boottime", '\0', V),
    long("load-interp", 'l', V),
]);

/// `cpulimit` (cpulimit.c: `"+p:e:P:l:c:s:vzikrhbqmf"` with the
/// limitcpu additions). With `-p`/`-e`/`-P` it limits a running process
/// and runs nothing.
pub(crate) const CPULIMIT: Spec = runner(&[
    long("pid", 'p', V),
    long("exe", 'e', V),
    long("path", 'P', V),
    long("limit", 'l', V),
    long("cpu", 'c', V),
    long("signal", 's', V),
    long("verbose", 'v', N),
    long("lazy", 'z', N),
    long("include-children", 'i', N),
    long("kill", 'k', N),
    long("restore", 'r', N),
    long("help", 'h', N),
    long("background", 'b', N),
    long("quiet", 'q', N),
    long("monitor-forks", 'm', N),
    long("foreground", 'f', N),
]);

/// util-linux `runuser` (su-common.c: `"c:fg:G:lmpPs:u:hVw:"`, permuting
/// as su does: `runuser alice -c TEXT`): `-c TEXT` runs TEXT with a shell;
/// otherwise its operands are the command, after the user when `-u` is
/// not given.
pub(crate) const RUNUSER: Spec = Spec {
    permute: true,
    ..runner(&[
        long("command", 'c', V),
        long("session-command", '\0', V),
        long("fast", 'f', N),
        long("group", 'g', V),
        long("supp-group", 'G', V),
        long("login", 'l', N),
        long("preserve-environment", 'm', N),
        short("p", N),
        long("pty", 'P', N),
        long("shell", 's', V),
        long("user", 'u', V),
        long("whitelist-environment", 'w', V),
        long("help", 'h', N),
        long("version", 'V', N),
    ])
};

/// `sudo` (parse_args.c: `"+Aa:BbC:c:D:Eeg:Hh::iKklNnp:PR:r:ST:t:U:u:Vv"`
/// and its long options). `-s`/`--shell` and `-i`/`--login` run the
/// command through a shell; `-E`/`--preserve-env[=LIST]` keep the agent's
/// environment; `-h` alone is help, `-hHOST` a host.
pub(crate) const SUDO: Spec = runner(&[
    long("askpass", 'A', N),
    long("auth-type", 'a', V),
    long("background", 'b', N),
    long("bell", 'B', N),
    long("close-from", 'C', V),
    long("login-class", 'c', V),
    long("chdir", 'D', V),
    short("E", N),
    long("preserve-env", '\0', O),
    long("edit", 'e', N),
    long("group", 'g', V),
    long("set-home", 'H', N),
    short("h", O),
    long("help", '\0', N),
    long("host", '\0', V),
    long("login", 'i', N),
    long("remove-timestamp", 'K', N),
    long("reset-timestamp", 'k', N),
    long("list", 'l', N),
    long("no-update", 'N', N),
    long("non-interactive", 'n', N),
    long("prompt", 'p', V),
    long("preserve-groups", 'P', N),
    long("chroot", 'R', V),
    long("role", 'r', V),
    long("stdin", 'S', N),
    long("shell", 's', N),
    long("command-timeout", 'T', V),
    long("type", 't', V),
    long("other-user", 'U', V),
    long("user", 'u', V),
    long("version", 'V', N),
    long("validate", 'v', N),
]);

/// OpenBSD `doas` (doas.c: `"+C:Lnsu:"`); `-s` runs a shell.
pub(crate) const DOAS: Spec = runner(&[
    short("C", V),
    short("L", N),
    short("n", N),
    short("s", N),
    short("u", V),
]);

/// systemd's `run0` (run0(1), run.c `parse_argv_sudo_mode`:
/// `"+hVu:g:D:a:i"`). `--property=` sets a property of the service it
/// starts: an `Exec…=` property is a command systemd runs as well.
pub(crate) const RUN0: Spec = runner(&[
    long("help", 'h', N),
    long("version", 'V', N),
    long("no-ask-password", '\0', N),
    long("machine", '\0', V),
    long("unit", '\0', V),
    long("property", '\0', V),
    long("description", '\0', V),
    long("slice", '\0', V),
    long("slice-inherit", '\0', N),
    long("user", 'u', V),
    long("group", 'g', V),
    long("nice", '\0', V),
    long("chdir", 'D', V),
    long("setenv", '\0', V),
    long("background", '\0', V),
    long("shell-prompt-prefix", '\0', V),
    long("lightweight", '\0', V),
    long("area", 'a', V),
    long("via-shell", 'i', N),
    long("empower", '\0', N),
    long("pty", '\0', N),
    long("pipe", '\0', N),
]);

/// `xvfb-run` (its `getopt --options +ae:f:hn:lp:s:w: --long …`).
pub(crate) const XVFB_RUN: Spec = runner(&[
    long("auto-servernum", 'a', N),
    long("auto-display", 'd', N),
    long("error-file", 'e', V),
    long("auth-file", 'f', V),
    long("help", 'h', N),
    long("server-num", 'n', V),
    long("listen-tcp", 'l', N),
    long("xauth-protocol", 'p', V),
    long("server-args", 's', V),
    long("wait", 'w', V),
]);

/// OpenSSH `ssh-agent` (ssh-agent.c: `"cDdksE:a:O:P:t:"`, stopping at the
/// command): `ssh-agent [OPTIONS] CMD…`.
pub(crate) const SSH_AGENT: Spec = runner(&[
    short("c", N),
    short("D", N),
    short("d", N),
    short("k", N),
    short("s", N),
    short("E", V),
    short("a", V),
    short("O", V),
    short("P", V),
    short("t", V),
]);

/// `systemd-inhibit` (inhibit.c: `"+h"` and its long options).
pub(crate) const SYSTEMD_INHIBIT: Spec = runner(&[
    long("help", 'h', N),
    long("version", '\0', N),
    long("what", '\0', V),
    long("who", '\0', V),
    long("why", '\0', V),
    long("mode", '\0', V),
    long("list", '\0', N),
    long("no-pager", '\0', N),
    long("no-legend", '\0', N),
    long("no-ask-password", '\0', N),
]);

/// libcgroup `cgexec` (cgexec.c: `"+g:sbhr:"`, `--sticky`).
pub(crate) const CGEXEC: Spec = runner(&[
    short("g", V),
    long("sticky", '\0', N),
    short("b", N),
    short("r", V),
    short("h", N),
    long("help", '\0', N),
]);

/// util-linux `nsenter` (nsenter.c: `"+ahVt:m::u::i::n::p::C::U::T::S:G:r::w::W:eFZcN"`).
pub(crate) const NSENTER: Spec = runner(&[
    long("all", 'a', N),
    long("help", 'h', N),
    long("version", 'V', N),
    long("target", 't', V),
    long("mount", 'm', O),
    long("uts", 'u', O),
    long("ipc", 'i', O),
    long("net", 'n', O),
    long("pid", 'p', O),
    long("cgroup", 'C', O),
    long("user", 'U', O),
    long("time", 'T', O),
    long("setuid", 'S', V),
    long("setgid", 'G', V),
    long("preserve-credentials", '\0', N),
    long("keep-caps", '\0', N),
    long("root", 'r', O),
    long("wd", 'w', O),
    long("wdns", 'W', V),
    long("env", 'e', N),
    long("no-fork", 'F', N),
    long("follow-context", 'Z', N),
    long("join-cgroup", 'c', N),
    long("user-parent", 'N', N),
]);

/// `daemonize` (daemonize.c: `"ac:e:E:l:o:p:u:v"`, stopping at the command).
pub(crate) const DAEMONIZE: Spec = runner(&[
    short("a", N),
    short("c", V),
    short("e", V),
    short("E", V),
    short("l", V),
    short("o", V),
    short("p", V),
    short("u", V),
    short("v", N),
]);

/// util-linux `setpriv` (setpriv.c: `"+dhV"` and its long options).
pub(crate) const SETPRIV: Spec = runner(&[
    long("dump", 'd', N),
    long("help", 'h', N),
    long("version", 'V', N),
    long("nnp", '\0', N),
    long("no-new-privs", '\0', N),
    long("ambient-caps", '\0', V),
    long("inh-caps", '\0', V),
    long("bounding-set", '\0', V),
    long("ruid", '\0', V),
    long("euid", '\0', V),
    long("rgid", '\0', V),
    long("egid", '\0', V),
    long("reuid", '\0', V),
    long("regid", '\0', V),
    long("clear-groups", '\0', N),
    long("keep-groups", '\0', N),
    long("init-groups", '\0', N),
    long("groups", '\0', V),
    long("securebits", '\0', V),
    long("pdeathsig", '\0', V),
    long("selinux-label", '\0', V),
    long("apparmor-profile", '\0', V),
    long("landlock-access", '\0', V),
    long("landlock-rule", '\0', V),
    long("seccomp-filter", '\0', V),
    long("reset-env", '\0', N),
    long("ptracer", '\0', V),
]);

/// util-linux `prlimit` (prlimit.c: `"+hp:o:vVc::d::e::f::i::l::m::n::q::r::s::t::u::x::y::"`).
pub(crate) const PRLIMIT: Spec = runner(&[
    long("help", 'h', N),
    long("pid", 'p', V),
    long("output", 'o', V),
    long("noheadings", '\0', N),
    long("raw", '\0', N),
    long("verbose", '\0', N),
    long("version", 'V', N),
    long("as", 'v', O),
    long("core", 'c', O),
    long("data", 'd', O),
    long("nice", 'e', O),
    long("fsize", 'f', O),
    long("sigpending", 'i', O),
    long("memlock", 'l', O),
    long("rss", 'm', O),
    long("nofile", 'n', O),
    long("msgqueue", 'q', O),
    long("rtprio", 'r', O),
    long("stack", 's', O),
    long("cpu", 't', O),
    long("nproc", 'u', O),
    long("locks", 'x', O),
    long("rttime", 'y', O),
]);

/// `tmux` (tmux.c: `"2c:CDdf:hL:lNS:T:uUVv"`). `-c TEXT` runs TEXT with
/// the default shell, as `sh -c` (tmux(1)).
pub(crate) const TMUX: Spec = runner(&[
    short("2", N),
    short("c", V),
    short("C", N),
    short("D", N),
    short("d", N),
    short("f", V),
    short("h", N),
    short("L", V),
    short("l", N),
    short("N", N),
    short("S", V),
    short("T", V),
    short("u", N),
    short("U", N),
    short("V", N),
    short("v", N),
]);

/// GNU screen's options (screen.c `main`, screen(1)): letters bundle;
/// `-c FILE`, `-e XY`, `-h LINES`, `-p WINDOW`, `-S NAME`, `-s SHELL`,
/// `-t TITLE`, `-T TERM` take the rest of the word or the next word; `-X`
/// sends the words after the options to a running session as a command.
/// `-d`/`-r`/`-x` take a session name only as the last word (no command
/// then). The whole-word options are [`SCREEN_WORDS`].
pub(crate) const SCREEN: Spec = runner(&[
    short("a", N),
    short("A", N),
    short("c", V),
    short("d", N),
    short("D", N),
    short("e", V),
    short("f", N),
    short("h", V),
    short("i", N),
    short("l", N),
    short("L", N),
    short("m", N),
    short("O", N),
    short("p", V),
    short("q", N),
    short("Q", N),
    short("r", N),
    short("R", N),
    short("s", V),
    short("S", V),
    short("t", V),
    short("T", V),
    short("U", N),
    short("v", N),
    short("x", N),
    short("X", N),
]);

/// screen's options that are whole words, not letters (screen(1)).
pub(crate) const SCREEN_WORDS: &[(&str, Takes)] = &[
    ("-ls", N),
    ("-list", N),
    ("-wipe", N),
    ("-ln", N),
    ("-fn", N),
    ("-fa", N),
    ("-Logfile", V),
];

/// dtach's options after `-A|-c|-n|-N SOCKET` (dtach(1), main.c): `-e
/// CHAR`, `-r METHOD`, `-E`, `-z`, `-q`; then the command.
pub(crate) const DTACH: Spec = runner(&[
    short("e", V),
    short("r", V),
    short("E", N),
    short("z", N),
    short("q", N),
]);

/// abduco's options (abduco.c: getopt `"aAclne:fpqrv"`): `-c`/`-n`/`-A`
/// create a session NAME running the command after it; `-a` attaches.
pub(crate) const ABDUCO: Spec = runner(&[
    short("a", N),
    short("A", N),
    short("c", N),
    short("l", N),
    short("n", N),
    short("e", V),
    short("f", N),
    short("p", N),
    short("q", N),
    short("r", N),
    short("v", N),
]);

/// `zellij run`'s options before `--` (zellij `run --help`, clap): the
/// pane's placement and name.
pub(crate) const ZELLIJ_RUN: Spec = runner(&[
    long("close-on-exit", 'c', N),
    long("direction", 'd', V),
    long("floating", 'f', N),
    long("in-place", 'i', N),
    long("name", 'n', V),
    long("start-suspended", 's', N),
    long("cwd", '\0', V),
    long("width", '\0', V),
    long("height", '\0', V),
    long("x", 'x', V),
    long("y", 'y', V),
]);

/// rlwrap's options (rlwrap(1), main.c getopt_long `"+:a::Ab:cC:d::D:e:f:g:hH:iIl:nNM:m::oO:p::P:q:rRs:S:t:Uvw:Wz:"`):
/// then the command. `-z FILTER` runs a filter program, `-P TEXT` types
/// input.
pub(crate) const RLWRAP: Spec = runner(&[
    long("always-readline", 'a', O),
    long("ansi-colour-aware", 'A', N),
    long("break-chars", 'b', V),
    long("complete-filenames", 'c', N),
    long("command-name", 'C', V),
    long("debug", 'd', O),
    long("history-no-dupes", 'D', V),
    long("extra-char-after-completion", 'e', V),
    long("file", 'f', V),
    long("forget-matching", 'g', V),
    long("help", 'h', N),
    long("history-filename", 'H', V),
    long("case-insensitive", 'i', N),
    long("pass-sigint-as-sigterm", 'I', N),
    long("logfile", 'l', V),
    long("no-children", 'n', N),
    long("no-warnings", 'N', N),
    long("multi-line-ext", 'M', V),
    long("multi-line", 'm', O),
    long("one-shot", 'o', N),
    long("only-cook", 'O', V),
    long("prompt-colour", 'p', O),
    long("pre-given", 'P', V),
    long("quote-characters", 'q', V),
    long("remember", 'r', N),
    long("renice", 'R', N),
    long("histsize", 's', V),
    long("substitute-prompt", 'S', V),
    long("set-term-name", 't', V),
    long("mirror-arguments", 'U', N),
    long("version", 'v', N),
    long("wait-before-prompt", 'w', V),
    long("polling", 'W', N),
    long("filter", 'z', V),
]);

/// util-linux `script` (script.c getopt_long `"aB:c:eE:fI:O:o:qm:T:t::Vh"`,
/// script(1)): options anywhere (GNU getopt); the operand is the
/// typescript FILE it writes (`typescript` by default); `-I`/`-O`/`-B`
/// (`--log-in`/`--log-out`/`--log-io`) and `-T`/`-t FILE` (timing) write
/// logs too; `-c CMD` runs CMD with the shell (review s21 U10).
pub(crate) const SCRIPT: Spec = Spec {
    opts: &[
        long("append", 'a', N),
        long("log-io", 'B', V),
        long("command", 'c', V),
        long("return", 'e', N),
        long("echo", 'E', V),
        long("flush", 'f', N),
        long("force", '\0', N),
        long("log-in", 'I', V),
        long("log-out", 'O', V),
        long("output-limit", 'o', V),
        long("quiet", 'q', N),
        long("logging-format", 'm', V),
        long("log-timing", 'T', V),
        long("timing", 't', O),
        long("version", 'V', N),
        long("help", 'h', N),
    ],
    permute: true,
    long_only: false,
};

/// A long option before the first operand written as an abbreviation of
/// one of `values` (`--jo` for `--jobs`): Perl's Getopt::Long (GNU
/// `parallel`, `sem`) takes any unique prefix, so its value is the next
/// word, and a reader of exact spellings would take that value for the
/// command.
pub(crate) fn abbreviated_value_option(args: &[Field], values: &[&str]) -> Option<String> {
    for a in args {
        let t = a.text();
        if t == "--" || !t.starts_with('-') {
            return None;
        }
        if let Some(key) = t
            .strip_prefix("--")
            .filter(|k| !k.is_empty() && !k.contains('='))
            && !values.contains(&t.as_str())
            && values
                .iter()
                .any(|v| v.strip_prefix("--").is_some_and(|v| v.starts_with(key)))
        {
            return Some(t);
        }
    }
    None
}

/// `at`/`batch` (at(1), at.c: `"q:f:t:MmbvlrdhVco:"`, permuting: `at now
/// -f FILE`). `-f FILE` is the job, run by `/bin/sh`.
pub(crate) const AT: Spec = Spec {
    opts: &[
        short("q", V),
        short("f", V),
        short("t", V),
        short("o", V),
        short("M", N),
        short("m", N),
        short("b", N),
        short("v", N),
        short("l", N),
        short("r", N),
        short("d", N),
        short("h", N),
        short("V", N),
        short("c", N),
    ],
    permute: true,
    long_only: false,
};

/// `nice`'s arguments with its obsolete adjustment words (`-5`, `--10`,
/// `-+3`, read before getopt by nice.c) as `--adjustment=N`, where an
/// option may stand (not as the value of `-n`).
pub(crate) fn nice_words(args: &[Field]) -> Vec<Field> {
    let mut out = Vec::with_capacity(args.len());
    let mut value_next = false;
    for a in args {
        let t = a.text();
        let is_value = value_next;
        let legacy = t.strip_prefix('-').filter(|s| {
            let s = s.strip_prefix(['-', '+']).unwrap_or(s);
            s.starts_with(|c: char| c.is_ascii_digit())
        });
        match legacy {
            Some(n) if !is_value => out.push(Field::lit(format!("--adjustment={n}"))),
            _ => out.push(a.clone()),
        }
        value_next = !is_value
            && (t == "-n"
                || t.strip_prefix("--").is_some_and(|l| {
                    !l.is_empty() && !l.contains('=') && "adjustment".starts_with(l)
                }));
        // The command (or `--`) ends the options: the rest as written.
        if !is_value && (t == "--" || !t.starts_with('-') || t == "-") {
            out.extend(args[out.len()..].iter().cloned());
            break;
        }
    }
    out
}

impl Analysis<'_> {
    /// Read runner `name`'s options by `spec`. A word the table cannot
    /// place makes the command it runs unknown: held (escalated), unless
    /// the user's `allow_commands` allows the call, or no word is left
    /// after the options (`env -u`: the program refuses, nothing runs).
    pub(crate) fn runner_options(
        &mut self,
        name: &str,
        spec: &Spec,
        args: &[Field],
        allowed: bool,
    ) -> Parsed {
        let p = getopt::parse(spec, args);
        if !p.problems.is_empty() && !allowed && (p.end < args.len() || spec.permute) {
            self.hold_options(name, &p.problems.join("; "));
        }
        // An option word, or the first operand (the command, or the
        // runner's own operand: `timeout DURATION`, `flock FILE`), only
        // known at run time may expand to nothing, and every word after
        // it then moves up one place: `timeout $NOPE 5 pkill …` runs
        // `pkill` (review s18 R7).
        let reach = (p.end + 1).min(args.len());
        if !allowed && let Some(word) = args[..reach].iter().find(|a| may_vanish(a)) {
            self.report(
                false,
                "shell.eval-dynamic",
                format!(
                    "`{name}` is given `{}`, only known at run time, which may expand to nothing, so which of its \
                     words is the command cannot be placed. A person must approve; give the value itself.",
                    word.text()
                ),
            );
        }
        p
    }

    /// Hold `name`'s call when one of `words[..reach]` (its options and
    /// the operands that place its command) is only known at run time and
    /// may expand to nothing ([`may_vanish`]) with a word after it: every
    /// later word would move up one place (review s19 S6; the tmux, screen,
    /// sg and session runners' reading of [`Analysis::runner_options`]'s
    /// rule). Whether it held.
    pub(crate) fn hold_vanishing(&mut self, name: &str, words: &[Field], reach: usize) -> bool {
        let before_last = words.len().saturating_sub(1);
        let Some(word) = words[..reach.min(before_last)]
            .iter()
            .find(|a| may_vanish(a))
        else {
            return false;
        };
        self.report(
            false,
            "shell.eval-dynamic",
            format!(
                "`{name}` is given `{}`, only known at run time, which may expand to nothing, so which of its \
                 words is the command cannot be placed. A person must approve; give the value itself.",
                word.text()
            ),
        );
        true
    }

    /// Hold a call whose command cannot be placed because of option
    /// `what` given to runner `name`.
    pub(crate) fn hold_options(&mut self, name: &str, what: &str) {
        self.report(
            false,
            "shell.eval-dynamic",
            format!(
                "`{name}` is given an option the check does not know ({what}), so which command it runs cannot be \
                 placed. A person must approve it as it is; write the options as `{name}` documents them."
            ),
        );
    }
}

/// The arguments `env -S TEXT` makes of TEXT, by env's own syntax
/// (coreutils env.c, "-S/--split-string usage" in env's manual): blanks
/// separate arguments outside quotes, as `\_` does (inside double quotes
/// it is a space); `\c` ends the text; `\t`, `\n`, `\r`, `\f`, `\v`,
/// `\#`, `\$`, `\\`, `\"`, `\'` stand for their characters; single
/// quotes keep everything but `\\` and `\'`; `#` at the start of a word
/// starts a comment.
///
/// # Errors
/// `${VAR}` (a value the check does not know), and what env refuses (an
/// unknown escape, an unterminated quote, `\c` inside quotes, a `$` not
/// followed by `{`): a description.
pub(crate) fn env_split_string(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut started = false;
    let mut quote: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (None, c) if c.is_whitespace() => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            (None, '#') if !started => break,
            (None, '\'') | (None, '"') => {
                quote = Some(c);
                started = true;
            }
            (Some(q), c) if c == q => quote = None,
            (Some('\''), '\\') => match chars.peek() {
                Some('\\') | Some('\'') => word.push(chars.next().unwrap_or('\\')),
                _ => word.push('\\'),
            },
            (Some('\''), c) => word.push(c),
            (_, '$') => {
                return Err(match chars.peek() {
                    Some('{') => "a `${VAR}` value the check does not know".into(),
                    _ => "a `$` env refuses".into(),
                });
            }
            (_, '\\') => {
                let Some(e) = chars.next() else {
                    return Err("a backslash at the end".into());
                };
                match e {
                    '_' if quote.is_none() => {
                        if started {
                            words.push(std::mem::take(&mut word));
                            started = false;
                        }
                    }
                    '_' => word.push(' '),
                    'c' if quote.is_none() => {
                        if started {
                            words.push(std::mem::take(&mut word));
                        }
                        return Ok(words);
                    }
                    't' => word.push('\t'),
                    'n' => word.push('\n'),
                    'r' => word.push('\r'),
                    'f' => word.push('\x0c'),
                    'v' => word.push('\x0b'),
                    '#' | '$' | '\\' | '"' | '\'' => word.push(e),
                    other => return Err(format!("the escape `\\{other}`")),
                }
                started |= e != '_' || quote.is_some();
            }
            (_, c) => {
                word.push(c);
                started = true;
            }
        }
    }
    if quote.is_some() {
        return Err("an unterminated quote".into());
    }
    if started {
        words.push(word);
    }
    Ok(words)
}

/// Whether `word` may expand to no word at all, or to several, so that
/// every word after it moves (review s18 R7, s19 S6, s21 U6). A word
/// counts as exactly one word only when each part is known text or an
/// expansion inside double quotes that is not a list. So it may change
/// the word count when
/// - any part of it is an unquoted expansion only known at run time
///   (`$X`, `5$X`, `-n1$X`, `A=$X`, `/tmp/s$X`, `$*`, `$(cmd)`,
///   `` `cmd` ``, `$((…))`): bash splits the result of every unquoted
///   expansion at IFS wherever it is in the word, and a word made only of
///   one may be empty (bash(1), "Word Splitting"). The field builder
///   records whether each such part was quoted ([`Seg::Dyn`]'s `quoted`;
///   a known value is already split by the walker, IFS and all);
/// - a part is a list expansion, quoted or not (`"$@"`, `"${@:2}"`,
///   `"${a[@]}"`, `"${!prefix@}"`, `"${!a[@]}"`): one word per element,
///   none when the list is empty (bash(1), "Special Parameters", "Arrays");
/// - it is an unquoted glob (`*`, `?`, `[`): one word per match, none
///   under `shopt -s nullglob` when nothing matches (bash(1), "Pathname
///   Expansion").
///
/// [`Seg::Dyn`]: crate::syntax::Seg::Dyn
pub(crate) fn may_vanish(word: &Field) -> bool {
    use crate::syntax::Seg;
    word.segs
        .iter()
        .any(|s| matches!(s, Seg::Dyn { raw, quoted, .. } if !quoted || is_list_expansion(raw)))
        || word.first_glob().is_some()
}

/// Whether expansion `raw` (its source: `$@`, `${a[@]}`) is a list:
/// `$@`, `${@…}`, `${NAME[@]…}`, `${!NAME@}`, `${!NAME*}` (the names
/// with a prefix), `${!NAME[@]}`/`${!NAME[*]}` (an array's keys).
fn is_list_expansion(raw: &str) -> bool {
    if raw == "$@" {
        return true;
    }
    let Some(inner) = raw.strip_prefix("${") else {
        return false;
    };
    let inner = inner.strip_suffix('}').unwrap_or(inner);
    // `${#a[@]}`, `${#@}`: a count, one word.
    if inner.starts_with('#') {
        return false;
    }
    if inner.starts_with('@') || inner.contains("[@]") {
        return true;
    }
    inner.strip_prefix('!').is_some_and(|n| {
        let name_end = n
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(n.len());
        matches!(&n[name_end..], "@" | "*") || n[name_end..].starts_with("[*]")
    })
}

/// Whether the value of the option that ends `word` is the next word: a
/// long option without `=`, or a short cluster whose first value-taking
/// letter is its last (`-S`, `-iS`), as getopt reads `word` by `spec`.
pub(crate) fn value_is_next(spec: &Spec, word: &Field) -> bool {
    let t = word.text();
    if let Some(l) = t.strip_prefix("--") {
        return !l.contains('=');
    }
    let cluster = t.strip_prefix('-').unwrap_or("");
    for (k, c) in cluster.char_indices() {
        let takes = spec.opts.iter().find(|o| o.short == c && c != '\0');
        if takes.is_some_and(|o| o.takes != Takes::No) {
            return k + c.len_utf8() == cluster.len();
        }
    }
    false
}
