//! systemd and the service bus: `systemd-run`/`run0` units,
//! `systemctl` units and their `Exec*` lines, bus calls, and power-off.

use super::*;

/// The `Exec…=` settings of unit file text (systemd.syntax(7)): lines
/// continued with a trailing backslash joined, comments skipped.
fn unit_exec_lines(text: &str) -> impl Iterator<Item = String> + '_ {
    let mut lines = Vec::new();
    let mut cur = String::new();
    for l in text.lines() {
        let l = l.trim();
        if cur.is_empty() && (l.starts_with('#') || l.starts_with(';')) {
            continue;
        }
        match l.strip_suffix('\\') {
            Some(part) => {
                cur.push_str(part);
                cur.push(' ');
            }
            None => {
                cur.push_str(l);
                lines.push(std::mem::take(&mut cur));
            }
        }
    }
    lines.push(cur);
    lines.into_iter().filter(|l| {
        l.split_once('=')
            .is_some_and(|(k, _)| k.trim().starts_with("Exec"))
    })
}

/// The command of an Exec line without its prefix (systemd.service(5),
/// "Command lines"): `-`, `:`, `+`, `!` and `!!` change how the command
/// runs, not what runs; with `@` the word after the executable is argv[0]
/// and the executable runs with the words after it (review s17 Q13:
/// `@/usr/bin/pkill q -STOP -f toolvet` runs pkill with `-STOP -f
/// toolvet`), so that word is dropped. `None` for a prefix this reading
/// does not model (another character, `@` without argv[0]).
fn exec_line_command(line: &str) -> Option<String> {
    let line = line.trim_start();
    let body = line.trim_start_matches(['-', '@', '+', '!', ':']);
    let prefix = &line[..line.len() - body.len()];
    if body.starts_with(|c: char| {
        !(c.is_alphanumeric() || matches!(c, '/' | '.' | '_' | '$' | '%' | '"' | '\''))
    }) {
        return None;
    }
    if !prefix.contains('@') {
        return Some(body.to_string());
    }
    let (exe, after) = shell_word_split(body)?;
    let (_argv0, args) = shell_word_split(after)?;
    Some(format!("{exe} {args}"))
}

/// The first word of `text` (quotes kept) and the text after it.
fn shell_word_split(text: &str) -> Option<(&str, &str)> {
    let text = text.trim_start();
    if text.is_empty() {
        return None;
    }
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (k, c) in text.char_indices() {
        match (quote, c) {
            _ if escaped => escaped = false,
            (Some('\''), '\'') => quote = None,
            (Some('\''), _) => {}
            (_, '\\') => escaped = true,
            (Some('"'), '"') => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, c) if c.is_whitespace() => return Some((&text[..k], &text[k..])),
            (None, _) => {}
        }
    }
    Some((text, ""))
}

/// An Exec*= line as systemd decodes it (systemd.syntax(7)): C escapes
/// (`\xNN`, `\NNN`, `\uNNNN`, `\UNNNNNNNN`, `\s`, `\n`, …) and `%%`;
/// whether it had escapes, and whether it has other `%` specifiers
/// (`%h`, `%t`: text the check does not know).
fn systemd_unescape(raw: &str) -> (String, bool, bool) {
    let chars: Vec<char> = raw.chars().collect();
    let mut out = String::new();
    let (mut escaped, mut specifier) = (false, false);
    let mut i = 0;
    let hex = |from: usize, n: usize| -> Option<char> {
        let digits: String = chars.get(from..from + n)?.iter().collect();
        u32::from_str_radix(&digits, 16)
            .ok()
            .and_then(char::from_u32)
    };
    while let Some(&c) = chars.get(i) {
        i += 1;
        if c == '%' {
            if chars.get(i) == Some(&'%') {
                i += 1;
            } else {
                specifier = true;
            }
            out.push('%');
            continue;
        }
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(&n) = chars.get(i) else {
            out.push(c);
            break;
        };
        i += 1;
        let decoded = match n {
            'x' => hex(i, 2).inspect(|_| i += 2),
            'u' => hex(i, 4).inspect(|_| i += 4),
            'U' => hex(i, 8).inspect(|_| i += 8),
            '0'..='7' => {
                let digits: String = chars[i - 1..(i + 2).min(chars.len())].iter().collect();
                u32::from_str_radix(&digits, 8)
                    .ok()
                    .and_then(char::from_u32)
                    .inspect(|_| i += 2)
            }
            's' => Some(' '),
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'f' => Some('\u{c}'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\u{b}'),
            _ => None,
        };
        match decoded {
            Some(d) => {
                escaped = true;
                out.push(d);
            }
            // `\\`, `\"`, `\'`, `\;`: read as the shell reads them.
            None => {
                out.push('\\');
                out.push(n);
            }
        }
    }
    (out, escaped, specifier)
}

impl Analysis<'_> {
    /// `systemd-run -p ExecStart=CMD …`, `--property=ExecStopPost=CMD`,
    /// `-qpExecStartPre=CMD`, `--prop=…`, `--socket-property=…`: a unit
    /// property that runs a command, judged as that command (review s15
    /// N1b, s17 Q4). The options are read by systemd-run's own table, so
    /// clusters and unique prefixes of `--property` are seen.
    pub(super) fn unit_commands(
        &mut self,
        spec: &getopt::Spec,
        args: &[Field],
        env: &Env,
        depth: u32,
    ) {
        let p = getopt::parse(spec, args);
        for f in &p.found {
            if runopts::SYSTEMD_RUN_PROPERTIES.contains(&f.opt.name)
                && let Some(v) = &f.value
            {
                self.unit_setting(&v.text(), env, depth, "systemd-run");
            }
        }
    }

    /// `systemd-run --uid=U`, `--gid`, `-p User=U` (`Group=`,
    /// `DynamicUser=`), `-M USER@`: the command runs as another user, a
    /// privilege switch (review s23 V11).
    pub(super) fn systemd_run_user(&mut self, args: &[Field]) {
        let p = getopt::parse(&runopts::SYSTEMD_RUN, args);
        let other = p.found.iter().any(|f| {
            let v = f.value.as_ref().map(Field::text).unwrap_or_default();
            matches!(f.opt.name, "uid" | "gid")
                || (f.opt.name == "machine" && v.contains('@'))
                || (f.opt.name == "property"
                    && ["User=", "Group=", "DynamicUser=", "SupplementaryGroups="]
                        .iter()
                        .any(|k| v.trim_start().starts_with(k)))
        });
        if other {
            self.privilege_switch("systemd-run", "runs as another user");
        }
    }

    /// Programs that run a command or a shell as another user:
    /// `machinectl shell|login` (any user, root by default), `setpriv
    /// --reuid/--regid/--groups/--init-groups`, `capsh --user`. A
    /// privilege switch (review s23 V11).
    pub(super) fn other_user(&mut self, name: &str, args: &[Field]) {
        let texts: Vec<String> = args.iter().map(Field::text).collect();
        let switches = match name {
            "machinectl" => texts
                .iter()
                .find(|t| !t.starts_with('-'))
                .is_some_and(|t| matches!(t.as_str(), "shell" | "login")),
            "setpriv" => texts.iter().any(|t| {
                [
                    "--reuid",
                    "--regid",
                    "--ruid",
                    "--rgid",
                    "--euid",
                    "--egid",
                    "--groups",
                    "--init-groups",
                ]
                .iter()
                .any(|o| t.starts_with(o))
            }),
            _ => texts.iter().any(|t| {
                t.starts_with("--user") || t.starts_with("--uid") || t.starts_with("--gid")
            }),
        };
        if switches {
            self.privilege_switch(name, "runs as another user or group");
        }
    }

    /// `systemctl link|enable FILE`, `systemctl edit --stdin UNIT`, or
    /// `systemctl start UNIT` after a unit file was written in the same
    /// command (review s17 Q9: `printf
    /// '[Service]\nExecStart=…' > /tmp/x.service && systemctl --user link
    /// /tmp/x.service && systemctl --user start x`): the Exec lines of each
    /// unit file written in the command, or by the run's file tools, are
    /// judged as the commands systemd runs. A unit file path given to a
    /// verb that adds it to the search path (`link`, `enable`, …) whose
    /// text is not known is held: what it runs cannot be read.
    pub(super) fn systemctl_units(
        &mut self,
        args: &[Field],
        env: &Env,
        depth: u32,
        stdin: &Output,
    ) {
        /// Verbs that take unit file paths and make systemd load them.
        const LINKS: &[&str] = &[
            "link",
            "enable",
            "reenable",
            "preset",
            "add-wants",
            "add-requires",
        ];
        /// Verbs after which systemd runs or loads units.
        const RUNS: &[&str] = &[
            "start",
            "restart",
            "try-restart",
            "reload-or-restart",
            "try-reload-or-restart",
            "reload",
            "daemon-reload",
            "daemon-reexec",
            "isolate",
        ];
        let texts: Vec<String> = args.iter().map(Field::text).collect();
        // `systemctl edit --stdin UNIT`: the unit text (or drop-in) is
        // standard input; without `--stdin` an editor writes it, which
        // `$SYSTEMD_EDITOR`/`$EDITOR` may make any command.
        if texts.iter().any(|t| t == "edit") {
            match stdin {
                Output::Static(text) if texts.iter().any(|t| t == "--stdin") => {
                    for line in unit_exec_lines(text) {
                        self.unit_setting(&line, env, depth, "systemctl edit");
                    }
                }
                _ => self.report(
                    false,
                    "shell.eval-dynamic",
                    "`systemctl edit` writes a unit file (or drop-in) from an editor or from input the check \
                     cannot read; the commands the unit runs cannot be checked. A person must approve it.",
                ),
            }
        }
        let links = texts.iter().any(|t| LINKS.contains(&t.as_str()));
        if !links && !texts.iter().any(|t| RUNS.contains(&t.as_str())) {
            return;
        }
        let units: Vec<String> = env
            .written
            .values()
            .filter_map(|w| match w {
                walk::Written::Text(t) if unit_exec_lines(t).next().is_some() => Some(t.clone()),
                _ => None,
            })
            .collect();
        for text in &units {
            for line in unit_exec_lines(text) {
                self.unit_setting(&line, env, depth, "systemctl");
            }
        }
        if !links {
            return;
        }
        for path in texts
            .iter()
            .filter(|t| !t.starts_with('-') && t.contains('/'))
        {
            let known = matches!(
                env.written.get(&env.file_key(path)),
                Some(walk::Written::Text(_))
            );
            if !known {
                self.report(
                    false,
                    "shell.eval-dynamic",
                    format!(
                        "`systemctl` links the unit file `{path}` into systemd's search path; the commands it runs \
                         (its `Exec…=` lines) are not known here, so they cannot be checked. A person must approve it."
                    ),
                );
            }
        }
    }

    /// A D-Bus call to systemd's manager that starts a transient unit or
    /// links unit files (`busctl call org.freedesktop.systemd1 …
    /// StartTransientUnit … ExecStart …`, `gdbus call … Manager.LinkUnitFiles`,
    /// `dbus-send --dest=org.freedesktop.systemd1 …`): the command the unit
    /// runs is given in D-Bus's typed argument syntax, which the check
    /// does not read, so the call is held (review s17 Q9).
    pub(super) fn systemd_bus_call(&mut self, name: &str, args: &[Field]) {
        const METHODS: &[&str] = &[
            "StartTransientUnit",
            "LinkUnitFiles",
            "EnableUnitFiles",
            "EnableUnitFilesWithFlags",
            "ReenableUnitFiles",
            "PresetUnitFiles",
            "PresetUnitFilesWithMode",
            "PresetAllUnitFiles",
            "AddDependencyUnitFiles",
            "SetUnitProperties",
            "Reload",
        ];
        let texts: Vec<String> = args.iter().map(Field::text).collect();
        let systemd = texts.iter().any(|t| t.contains("systemd1"));
        let method = texts.iter().find_map(|t| {
            let last = t.rsplit('.').next().unwrap_or(t);
            METHODS.iter().find(|m| **m == last)
        });
        if let (true, Some(m)) = (systemd, method) {
            self.report(
                false,
                "shell.eval-dynamic",
                format!(
                    "`{name}` calls systemd's `{m}` over D-Bus: it makes systemd run or load unit commands given in \
                     D-Bus argument syntax, which the check does not read. A person must approve it; use \
                     `systemd-run` with the command written out."
                ),
            );
        }
    }

    /// One unit setting `KEY=VALUE` (a `systemd-run` property, a line of a
    /// unit file): an `Exec…=` line is judged as the command systemd runs.
    pub(crate) fn unit_setting(&mut self, setting: &str, env: &Env, depth: u32, via: &str) {
        let Some((key, line)) = setting.split_once('=') else {
            return;
        };
        if !key.trim().starts_with("Exec") {
            return;
        }
        let Some(raw) = exec_line_command(line) else {
            self.report(
                false,
                "shell.eval-dynamic",
                format!(
                    "`{via}` runs `{}` with an Exec prefix the check does not model, so the command systemd runs \
                     cannot be read. A person must approve it as it is.",
                    line.trim()
                ),
            );
            return;
        };
        // systemd decodes C escapes (`\x6c`, `\154`, `\u006c`, `\s`) and
        // `%` specifiers in Exec lines (review s16 P5): judge the decoded
        // command, and hold any line that needs decoding, whose words the
        // shell reading cannot place.
        let (cmd, escaped, specifier) = systemd_unescape(&raw);
        let mut e = env.clone();
        self.script(&cmd, &mut e, depth + 1, &Output::Unknown);
        if escaped || specifier {
            self.report(
                false,
                "shell.eval-dynamic",
                format!(
                    "`{via}` runs `{raw}`, written with {}: systemd decodes them before it runs the \
                     command, so the check cannot read it word for word. A person must approve; write the \
                     command without escapes.",
                    if escaped { "backslash escapes" } else { "`%` specifiers" }
                ),
            );
        }
    }

    pub(super) fn shutdown(&mut self, what: &str) {
        self.report(
            true,
            "shell.shutdown",
            format!("`{what}` would shut down or restart the machine. Do not run it; ask a person if a restart is needed."),
        );
    }

    /// `init 0`, `telinit 6`: a halt or reboot.
    pub(super) fn init_runlevel(&mut self, name: &str, args: &[Field]) -> Output {
        if args.iter().any(|a| matches!(a.text().as_str(), "0" | "6")) {
            self.shutdown(name);
        }
        Output::Unknown
    }

    /// `systemctl poweroff`, `reboot`, `halt`, `kexec`, `soft-reboot`.
    pub(super) fn systemctl_power(&mut self, args: &[Field]) -> Output {
        if let Some(sub) = args.iter().map(Field::text).find(|t| !t.starts_with('-'))
            && matches!(
                sub.as_str(),
                "poweroff" | "reboot" | "halt" | "kexec" | "soft-reboot"
            )
        {
            self.shutdown(&format!("systemctl {sub}"));
        }
        Output::Unknown
    }
}
