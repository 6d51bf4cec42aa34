//! `xargs` and GNU `parallel`: the command they build from standard
//! input or `:::` words, and when what they run cannot be known.

use std::ops::ControlFlow;

use super::*;

/// How `xargs` splits its input, as findutils' xargs.c `read_line` does.
struct XargsSplit {
    /// `-0` / `-d DELIM`: the last of them (review s19 S19).
    delimiter: Option<char>,
    /// `-I R` / `-i`: each line is one item, blanks inside it kept.
    lines: bool,
    /// `-E EOF` / `-e EOF`: the item that ends the input.
    eof: Option<String>,
}

/// The items `xargs` reads from `text`. With a delimiter, the text
/// between delimiters, as is. Otherwise findutils' default reading:
/// blanks and newlines end an item (with `-I`, only newlines; leading
/// blanks are dropped), blank lines are skipped, `'…'` and `"…"` quote
/// (not across a newline), a backslash takes the next character as is,
/// and an item equal to the `-E` string ends the input.
///
/// # Errors
/// What xargs refuses or what the check cannot place: an unmatched
/// quote (xargs stops there, after running what it read), an empty
/// quoted item. The items read before it come with the error.
fn xargs_items(text: &str, how: &XargsSplit) -> Result<Vec<String>, (Vec<String>, String)> {
    if let Some(d) = how.delimiter {
        let mut items: Vec<String> = text.split(d).map(str::to_string).collect();
        // A last delimiter ends the last item; it does not start another.
        if items.last().is_some_and(String::is_empty) {
            items.pop();
        }
        return Ok(items);
    }
    let mut items = Vec::new();
    let mut item = String::new();
    let mut started = false;
    let mut quoted_empty = false;
    let mut chars = text.chars();
    let blank = |c: char| c == ' ' || c == '\t';
    let finish = |item: &mut String, started: &mut bool, items: &mut Vec<String>| -> bool {
        let done = std::mem::take(item);
        *started = false;
        if how.eof.as_deref() == Some(done.as_str()) {
            return true;
        }
        items.push(done);
        false
    };
    while let Some(c) = chars.next() {
        match c {
            '\n' => {
                if started && finish(&mut item, &mut started, &mut items) {
                    return Ok(items);
                }
            }
            c if blank(c) && !how.lines => {
                if started && finish(&mut item, &mut started, &mut items) {
                    return Ok(items);
                }
            }
            c if blank(c) && !started => {}
            '\\' => {
                match chars.next() {
                    Some(n) => item.push(n),
                    None => item.push('\\'),
                }
                started = true;
            }
            '\'' | '"' => {
                let mut closed = false;
                let before = item.len();
                for q in chars.by_ref() {
                    if q == c {
                        closed = true;
                        break;
                    }
                    if q == '\n' {
                        break;
                    }
                    item.push(q);
                }
                if !closed {
                    return Err((items, format!("an unmatched {c} quote")));
                }
                quoted_empty |= item.len() == before && !started;
                started = true;
            }
            c => {
                item.push(c);
                started = true;
            }
        }
    }
    if started && finish(&mut item, &mut started, &mut items) {
        return Ok(items);
    }
    if quoted_empty && items.iter().any(String::is_empty) {
        return Err((Vec::new(), "an empty quoted item".into()));
    }
    Ok(items)
}

/// Whether the command `xargs` runs takes its code from the input: a
/// shell or interpreter whose last word is its code option (`sh -c`,
/// `python3 -c`, `perl -e`), so the first item is the script.
fn xargs_code_from_input(cmd: &[Field]) -> bool {
    let texts: Vec<String> = cmd.iter().map(Field::text).collect();
    let Some(last) = texts.last() else {
        return false;
    };
    let code_flag = matches!(
        last.as_str(),
        "-c" | "-e" | "-E" | "-r" | "--eval" | "--command"
    ) || (last.starts_with('-') && !last.starts_with("--") && last.ends_with('c'));
    code_flag
        && texts[..texts.len() - 1].iter().any(|t| {
            let n = base_name(t);
            is_shell(&n) || is_interpreter(&n)
        })
}

/// The character `xargs -d DELIM` splits its input at: DELIM's first
/// character, or the escape it starts (`\n`, `\t`, `\0`, `\\`, `\xHH`,
/// `\NNN` octal), as findutils reads it.
fn xargs_delimiter(delim: &str) -> char {
    let Some(rest) = delim.strip_prefix('\\') else {
        return delim.chars().next().unwrap_or('\n');
    };
    match rest.chars().next() {
        Some('n') => '\n',
        Some('t') => '\t',
        Some('r') => '\r',
        Some('a') => '\x07',
        Some('b') => '\x08',
        Some('f') => '\x0c',
        Some('v') => '\x0b',
        Some('x') => u32::from_str_radix(&rest[1..], 16)
            .ok()
            .and_then(char::from_u32)
            .unwrap_or('\n'),
        Some(c) if c.is_digit(8) => u32::from_str_radix(rest, 8)
            .ok()
            .and_then(char::from_u32)
            .unwrap_or('\0'),
        Some(c) => c,
        None => '\\',
    }
}

/// What `parallel …` runs, as [`Analysis::parallel`] reads it.
pub(crate) enum Parallel {
    /// A command whose inputs the check cannot see (`cat list | parallel
    /// gzip`), or which reads the input itself (`--pipe`): judged as the
    /// command, as for `xargs`.
    FromInput(Vec<Field>),
    /// Every job was judged here.
    Done,
}

/// One input item of GNU parallel: a `:::` word, or a line of a file or
/// of standard input.
#[derive(Clone)]
enum ParallelItem {
    Word(Field),
    Line(String),
}

impl ParallelItem {
    /// Its text when known; `None` for a word only known at run time.
    fn known(&self) -> Option<String> {
        match self {
            ParallelItem::Word(f) => f.static_text(),
            ParallelItem::Line(l) => Some(l.clone()),
        }
    }

    /// What it puts in a job's line.
    fn value(&self) -> PValue {
        match self {
            ParallelItem::Word(f) if f.first_glob().is_some() => {
                f.static_text().map_or(PValue::Unknown, PValue::Glob)
            }
            _ => self.known().map_or(PValue::Unknown, PValue::Known),
        }
    }

    /// Whether it is an unquoted glob: the shell makes it one word per
    /// match before parallel sees it, so it stands for several items.
    fn is_glob(&self) -> bool {
        matches!(self, ParallelItem::Word(f) if f.first_glob().is_some())
    }
}

/// One input of a job, as [`parallel_replace`] fills it in.
#[derive(Clone, PartialEq, Eq)]
enum PValue {
    /// Known text.
    Known(String),
    /// An unquoted glob (`*.log`): every name it matches is an input, so
    /// the pattern itself is put in the line unquoted, for the line's
    /// analysis to read as a glob.
    Glob(String),
    /// Only known at run time.
    Unknown,
}

/// How [`parallel_replace`] writes one input into a command word.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fill {
    /// Shell-quoted, as parallel puts an input in a line.
    Quoted,
    /// As written (for `parallel {}`-style commands, judged both ways, and
    /// for `-q`, whose whole word is quoted after).
    Raw,
}

/// The replacement strings GNU parallel fills in `word` from one job
/// (parallel(1) "{}", "{.}", "{/}", "{//}", "{/.}", "{#}", and with
/// several input sources "{N}", "{N.}", "{N/}", "{N//}", "{N/.}"):
/// `values` has one input per source (`None`: only known at run time),
/// `seq` is the job's number. `{}` is every input, each filled, joined by
/// spaces; an unnumbered modifier (`{.}`) with several sources, a source
/// number past the last, `{%}` (the job slot, chosen at run time), `{= perl
/// =}` and any other `{…}` are `Err`. `Ok((text, whether a string was
/// filled))`.
fn parallel_replace(
    word: &str,
    values: &[PValue],
    seq: usize,
    fill: Fill,
) -> Result<(String, bool), String> {
    let put = |v: &PValue, modify: &dyn Fn(&str) -> String| match (v, fill) {
        (PValue::Known(v), Fill::Quoted) => crate::shell_quote(&modify(v)),
        (PValue::Known(v) | PValue::Glob(v), Fill::Raw) => modify(v),
        (PValue::Glob(v), Fill::Quoted) => modify(v),
        (PValue::Unknown, Fill::Quoted) => format!("\"${{{PARALLEL_UNSEEN}}}\""),
        (PValue::Unknown, Fill::Raw) => format!("${{{PARALLEL_UNSEEN}}}"),
    };
    let mut out = String::new();
    let mut rest = word;
    let mut replaced = false;
    while let Some(at) = rest.find('{') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let Some(end) = tail.find('}') else {
            out.push_str(tail);
            return Ok((out, replaced));
        };
        let name = &tail[..=end];
        let inner = &tail[1..end];
        if inner.is_empty() {
            let all: Vec<String> = values.iter().map(|v| put(v, &|s| s.to_string())).collect();
            out.push_str(&all.join(" "));
        } else if inner == "#" {
            out.push_str(&seq.to_string());
        } else {
            let digits = inner.len() - inner.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            let (number, modifier) = inner.split_at(digits);
            let source = match number.parse::<usize>() {
                Ok(n) if (1..=values.len()).contains(&n) => n - 1,
                Err(_) if values.len() == 1 => 0,
                _ => return Err(name.to_string()),
            };
            let no_ext = |s: &str| match s.rfind('.') {
                Some(k) if k > 0 && !s[k..].contains('/') => s[..k].to_string(),
                _ => s.to_string(),
            };
            let base = |s: &str| s.rsplit('/').next().unwrap_or(s).to_string();
            let value = &values[source];
            let text = match modifier {
                "" if !number.is_empty() => put(value, &|s| s.to_string()),
                "." => put(value, &no_ext),
                "/" => put(value, &base),
                "//" => put(value, &|s| match s.rfind('/') {
                    Some(k) => s[..k].to_string(),
                    None => ".".to_string(),
                }),
                "/." => put(value, &|s| no_ext(&base(s))),
                _ => return Err(name.to_string()),
            };
            out.push_str(&text);
        }
        replaced = true;
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    Ok((out, replaced))
}

/// Whether a parallel command (the words before the first `:::`) uses the
/// job number `{#}`.
fn cmd_has_seq(rest: &[Field]) -> bool {
    rest.iter()
        .take_while(|a| !a.text().starts_with(":::"))
        .any(|a| a.text().contains("{#}"))
}

/// The jobs GNU parallel makes of its input sources (parallel(1) "INPUT
/// SOURCE"): sources linked by `:::+`/`::::+` (or all, with `--link`)
/// pair their items in order, and the groups so formed combine as a
/// cross product, the last varying fastest. Linked sources of different
/// lengths (parallel wraps the shorter ones) are `Err`, and so is more
/// than `cap` jobs.
fn parallel_jobs(
    sources: &[(Vec<ParallelItem>, bool)],
    cap: usize,
) -> Result<Vec<Vec<ParallelItem>>, String> {
    // Each group: the indexes of its sources.
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, (_, linked)) in sources.iter().enumerate() {
        match groups.last_mut() {
            Some(g) if *linked => g.push(i),
            _ => groups.push(vec![i]),
        }
    }
    let mut jobs: Vec<Vec<ParallelItem>> = vec![Vec::new()];
    for g in &groups {
        let len = sources[g[0]].0.len();
        if g.iter().any(|&i| sources[i].0.len() != len) {
            return Err("linked input sources of different lengths".into());
        }
        if g.len() > 1
            && g.iter()
                .any(|&i| sources[i].0.iter().any(ParallelItem::is_glob))
        {
            return Err(
                "a glob in linked input sources, whose length is only known at run time".into(),
            );
        }
        if jobs.len().saturating_mul(len) > cap {
            return Err(format!("more than {cap} jobs, more than the check reads"));
        }
        let mut next = Vec::with_capacity(jobs.len() * len);
        for job in &jobs {
            for k in 0..len {
                let mut j = job.clone();
                j.extend(g.iter().map(|&i| sources[i].0[k].clone()));
                next.push(j);
            }
        }
        jobs = next;
    }
    Ok(jobs)
}

impl Analysis<'_> {
    /// The command `xargs OPTIONS CMD…` runs, given its input (standard
    /// input, or `-a FILE`: a file written in this command is known text):
    /// the items read as xargs reads them ([`xargs_items`]) are CMD's last
    /// operands, or with `-I R`/`-i` each replaces R in a command of its
    /// own; with `-n`/`-L`/`-s` each item is also judged alone (a batch
    /// may start with it). Held (review s19 S5): input too long to read
    /// whole, input xargs refuses, and input the check cannot see when CMD
    /// takes its code from it (`sh -c` last) or, from a file, when CMD is
    /// a shell, an interpreter or a signal sender.
    pub(super) fn xargs_command(
        &mut self,
        options: &getopt::Parsed,
        cmd: &[Field],
        env: &Env,
        depth: u32,
        stdin: &Output,
    ) -> Vec<Field> {
        let mut argv = cmd.to_vec();
        let file = options.values("arg-file").last().cloned();
        let input = match &file {
            None => stdin.clone(),
            Some(f) => match f.static_text() {
                Some(p) if p == "/dev/stdin" || p == "/proc/self/fd/0" => stdin.clone(),
                Some(p) => {
                    if env.claimed.contains(&env.file_key(&p)) {
                        self.hold_xargs(&format!("`-a {p}`, whose text the call does not show"));
                    }
                    env.written_text(&p)
                        .map_or(Output::Unknown, |t| Output::Static(t.to_string()))
                }
                None => Output::Unknown,
            },
        };
        let Output::Static(text) = input else {
            // A shell or interpreter runs code from the items unless its
            // code is given before them in a form read exactly: a script
            // operand right after it (`python3 fmt.py`, `sh x.sh`), or
            // Python's `-m MODULE` for a module that reads its operands as
            // files to check or format, [`XARGS_PYTHON_FILE_MODULES`] (not
            // `timeit`, `runpy`, `pdb`, `pytest`, which run them) (review
            // s21 W3); option words in between
            // may take the next word as their value, so they hold.
            let code_given = |k: usize| {
                let next = cmd.get(k + 1).and_then(Field::static_text);
                let python = base_name(&cmd[k].text()).starts_with("python");
                match next.as_deref() {
                    Some("-m") if python => cmd
                        .get(k + 2)
                        .and_then(Field::static_text)
                        .is_some_and(|m| XARGS_PYTHON_FILE_MODULES.contains(&m.as_str())),
                    Some(w) => !w.is_empty() && !w.starts_with('-'),
                    None => false,
                }
            };
            let runs_code = cmd.iter().enumerate().any(|(k, a)| {
                let n = base_name(&a.text());
                (is_shell(&n) || is_interpreter(&n)) && !code_given(k)
                    || matches!(n.as_str(), "kill" | "pkill" | "killall" | "skill" | "snice")
            });
            if xargs_code_from_input(cmd) {
                self.hold_xargs(
                    "input the check cannot see, whose first item is the script the command runs",
                );
            } else if let Some(f) = file.filter(|_| runs_code) {
                self.hold_xargs(&format!(
                    "`-a {}`, a file the check cannot read, into a shell, an interpreter or a signal sender",
                    f.text()
                ));
            }
            return argv;
        };
        if argv.is_empty() {
            // xargs runs `echo`.
            return argv;
        }
        let replace = runopts::xargs_replace(options).filter(|r| !r.is_empty());
        let how = XargsSplit {
            delimiter: options
                .found
                .iter()
                .rev()
                .find(|f| matches!(f.opt.name, "null" | "delimiter"))
                .map(|f| match &f.value {
                    Some(d) if f.opt.name == "delimiter" => xargs_delimiter(&d.text()),
                    _ => '\0',
                }),
            lines: options.has("replace") || options.has("I"),
            eof: options
                .found
                .iter()
                .rev()
                .find(|f| matches!(f.opt.name, "E" | "eof"))
                .and_then(|f| f.value.as_ref().map(Field::text))
                .filter(|e| !e.is_empty()),
        };
        let items = match xargs_items(&text, &how) {
            Ok(items) => items,
            Err((read, why)) => {
                self.hold_xargs(&format!(
                    "input xargs refuses or the check cannot place ({why})"
                ));
                read
            }
        };
        if items.len() > MAX_XARGS_ITEMS {
            self.hold_xargs(&format!(
                "more than {MAX_XARGS_ITEMS} input items, more than the check reads"
            ));
            return argv;
        }
        match replace {
            Some(r) => {
                let with = |item: &str| -> Vec<Field> {
                    argv.iter()
                        .map(|f| match f.static_text() {
                            Some(t) if t.contains(&r) => Field::lit(t.replace(&r, item)),
                            _ => f.clone(),
                        })
                        .collect()
                };
                for item in items.iter().skip(1) {
                    let mut e = env.clone();
                    self.exec(with(item), &mut e, depth + 1, &Output::Unknown, true);
                }
                if let Some(first) = items.first() {
                    argv = with(first);
                }
            }
            None => {
                let batches = ["max-args", "max-lines", "L", "max-chars"]
                    .iter()
                    .any(|o| options.has(o));
                if batches && items.len() > 1 {
                    for item in &items {
                        let mut one = argv.clone();
                        one.push(Field::lit(item.clone()));
                        let mut e = env.clone();
                        self.exec(one, &mut e, depth + 1, &Output::Unknown, true);
                    }
                }
                argv.extend(items.into_iter().map(Field::lit));
            }
        }
        argv
    }

    fn hold_xargs(&mut self, what: &str) {
        self.report(
            false,
            "shell.eval-dynamic",
            format!(
                "`xargs` is given {what}, so what it runs cannot be checked. Write the commands out; a person must \
                 approve it as it is."
            ),
        );
    }

    /// `… | xargs -I{} sh -c '{}'`, `xargs -I% %`: the input lines become
    /// the program or the script, which the analysis cannot see; judged as
    /// `eval` of an unknown script.
    pub(super) fn xargs_input_as_code(&mut self, options: &getopt::Parsed, cmd: &[Field]) {
        let Some(r) = runopts::xargs_replace(options).filter(|r| !r.is_empty()) else {
            return;
        };
        let cmd: Vec<String> = cmd.iter().map(Field::text).collect();
        let Some(first) = cmd.first() else { return };
        let program = base_name(first);
        let code_after = |flags: &[&str]| {
            cmd.iter()
                .skip_while(|t| !flags.contains(&t.as_str()))
                .skip(1)
                .any(|t| t.contains(&r))
        };
        let runs_input = first.contains(&r)
            || (is_shell(&program)
                && cmd
                    .iter()
                    .skip(1)
                    .any(|t| t.starts_with('-') && t.contains('c'))
                && code_after(&["-c", "-lc", "-ic", "-ec", "-xc"]))
            || (is_interpreter(&program) && code_after(&["-c", "-e", "-E", "-r", "--eval"]))
            || program == "eval";
        if runs_input {
            self.report(
                false,
                "shell.eval-dynamic",
                format!(
                    "`xargs` puts its input lines (`{r}`) into the program or script it runs, so what runs cannot be \
                     checked. Write the commands out; a person must approve it as it is."
                ),
            );
        }
    }

    /// `parallel [OPTIONS] [COMMAND] [::: ARGS | :::: FILES]…`.
    ///
    /// The property a call must prove to be judged (reviews s19 S16, s21
    /// U11, U5): **the reader builds every command line parallel will run,
    /// exactly**, and judges each. Options are read by one table
    /// ([`runopts::PARALLEL`]); an option it does not model, one that
    /// renames or adds replacement strings or puts several inputs in one
    /// line ([`runopts::PARALLEL_HOLD`]), or a long option not spelled out
    /// holds. The input sources are the `:::` words, the lines of a
    /// `::::`/`-a` file written in this command, or the lines of standard
    /// input when there is no other (`-0`/`-d` split); each job takes one
    /// item from each source (the cross product, or paired with `:::+` /
    /// `--link`). Its line is COMMAND's words joined by spaces (each
    /// quoted with `-q`), the inputs shell-quoted in place of `{}`, `{.}`,
    /// `{/}`, `{//}`, `{/.}`, `{#}`, `{N}`, `{N.}`, … or appended; with no
    /// COMMAND the inputs joined are the line. Held: input the check
    /// cannot see when there is no COMMAND, COMMAND takes its code from it
    /// (`sh -c`) or there are several sources; a replacement string it
    /// does not fill; more than [`MAX_XARGS_ITEMS`] jobs.
    pub(crate) fn parallel(
        &mut self,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
    ) -> Parallel {
        let Some(p) = self.parallel_options(args, env) else {
            return Parallel::Done;
        };
        let quote_words = p.has("quote");
        // `--shuf` runs the jobs in a random order, so the job number
        // `{#}` each gets is not known.
        if p.has("shuf") && cmd_has_seq(&args[p.end..]) {
            self.hold_parallel("`--shuf` with `{#}`, whose job numbers are only known at run time");
            return Parallel::Done;
        }
        let linked_all = p.has("link") || p.has("xapply");
        let mut delimiter = '\n';
        for f in &p.found {
            match f.opt.name {
                "delimiter" => {
                    delimiter = f
                        .value
                        .as_ref()
                        .map_or('\n', |d| xargs_delimiter(&d.text()))
                }
                "null" => delimiter = '\0',
                _ => {}
            }
        }
        let i = p.end;
        if p.has("pipe") || p.has("spreadstdin") || p.has("pipepart") {
            // The input is the command's standard input.
            return Parallel::FromInput(args[i..].to_vec());
        }
        let rest = &args[i..];
        let is_sep = |a: &Field| matches!(a.text().as_str(), ":::" | ":::+" | "::::" | "::::+");
        let k = rest.iter().position(is_sep).unwrap_or(rest.len());
        let cmd = &rest[..k];
        let file_text = |f: &Field, env: &Env| -> Output {
            match f.static_text() {
                Some(p) if p == "-" || p == "/dev/stdin" => stdin.clone(),
                Some(p) if !env.claimed.contains(&env.file_key(&p)) => env
                    .written_text(&p)
                    .map_or(Output::Unknown, |t| Output::Static(t.to_string())),
                _ => Output::Unknown,
            }
        };
        let lines = |out: Output| -> Option<Vec<ParallelItem>> {
            let Output::Static(t) = out else {
                return None;
            };
            let mut lines: Vec<&str> = t.split(delimiter).collect();
            if lines.last().is_some_and(|l| l.is_empty()) {
                lines.pop();
            }
            Some(
                lines
                    .into_iter()
                    .map(|l| ParallelItem::Line(l.to_string()))
                    .collect(),
            )
        };
        // The input sources in order, each with whether it is linked to
        // the one before; `unseen` names one the check cannot read.
        let mut sources: Vec<(Vec<ParallelItem>, bool)> = Vec::new();
        let mut unseen: Option<String> = None;
        let files: Vec<&Field> = p.values("arg-file").collect();
        for f in &files {
            match lines(file_text(f, env)) {
                Some(items) => sources.push((items, linked_all && !sources.is_empty())),
                None => unseen = Some(format!("`-a {}`", f.text())),
            }
        }
        let mut from_file = false;
        let mut words_after_file = 0;
        for a in &rest[k..] {
            let t = a.text();
            match t.as_str() {
                ":::" | ":::+" | "::::" | "::::+" => {
                    from_file = t.starts_with("::::");
                    words_after_file = 0;
                    let linked = (t.ends_with('+') || linked_all) && !sources.is_empty();
                    sources.push((Vec::new(), linked));
                }
                _ if from_file => {
                    // One file per `::::`: several are several sources,
                    // whose order the reader does not model.
                    words_after_file += 1;
                    if words_after_file > 1 {
                        unseen = Some(format!("several files after `::::` (`{t}`)"));
                        continue;
                    }
                    match lines(file_text(a, env)) {
                        Some(items) => {
                            if let Some(s) = sources.last_mut() {
                                s.0.extend(items);
                            }
                        }
                        None => unseen = Some(format!("`:::: {t}`")),
                    }
                }
                _ => {
                    if let Some(s) = sources.last_mut() {
                        s.0.push(ParallelItem::Word(a.clone()));
                    }
                }
            }
        }
        if !files.is_empty() && k < rest.len() {
            self.hold_parallel(
                "both `-a` files and `:::`/`::::` sources, whose order the check does not model",
            );
            return Parallel::Done;
        }
        if k == rest.len() && files.is_empty() {
            match lines(stdin.clone()) {
                Some(items) => sources.push((items, false)),
                None => unseen = Some("standard input".into()),
            }
        }
        if let Some(what) = unseen {
            return self.parallel_unseen(cmd, &what, sources.len(), quote_words, env, depth);
        }
        if sources.iter().any(|(items, _)| items.is_empty()) {
            self.hold_parallel("an empty input source");
            return Parallel::Done;
        }
        let jobs = match parallel_jobs(&sources, MAX_XARGS_ITEMS) {
            Ok(jobs) => jobs,
            Err(why) => {
                self.hold_parallel(&why);
                return Parallel::Done;
            }
        };
        self.parallel_run_jobs(cmd, &jobs, quote_words, env, depth)
    }

    /// parallel's options, read as it reads them, or `None` (held) for
    /// options from `$PARALLEL`, an abbreviation, an option the reader
    /// does not model or one that changes its replacement strings.
    fn parallel_options(&mut self, args: &[Field], env: &Env) -> Option<getopt::Parsed> {
        // parallel puts `$PARALLEL`'s words before its own options
        // (parallel(1) "ENVIRONMENT VARIABLES"), and reads
        // `~/.parallel/config` (denied as a home dotfile write when written).
        if env.vars.contains_key("PARALLEL") || self.command_vars.iter().any(|c| c == "PARALLEL") {
            self.hold_parallel("options in `$PARALLEL`, which it reads before its own");
            return None;
        }
        let p = getopt::parse(&runopts::PARALLEL, args);
        if !p.problems.is_empty() {
            self.hold_options("parallel", &p.problems.join("; "));
            return None;
        }
        for f in &p.found {
            let word = args[f.at].text();
            if let Some(long) = word.strip_prefix("--") {
                let spelled = long.split_once('=').map_or(long, |(n, _)| n);
                if spelled != f.opt.name {
                    self.hold_options("parallel", &format!("`{word}`, an abbreviation"));
                    return None;
                }
            }
            if runopts::PARALLEL_HOLD.contains(&f.opt.name) {
                self.hold_parallel(&format!(
                    "`{word}`, which renames its replacement strings or puts several inputs in one command line"
                ));
                return None;
            }
        }
        Some(p)
    }

    /// Run each job's command line (`cmd` with the job's inputs, or the
    /// inputs themselves when there is no `cmd`).
    fn parallel_run_jobs(
        &mut self,
        cmd: &[Field],
        jobs: &[Vec<ParallelItem>],
        quote_words: bool,
        env: &Env,
        depth: u32,
    ) -> Parallel {
        for (n, job) in jobs.iter().enumerate() {
            if self.done() {
                break;
            }
            let mut e = env.clone();
            e.vars.remove(PARALLEL_UNSEEN);
            if cmd.is_empty() {
                // The inputs are the command line.
                match job.as_slice() {
                    [ParallelItem::Word(f)] => {
                        self.run_script_field(f, &mut e, depth, &Output::Unknown, "parallel");
                    }
                    _ => match job
                        .iter()
                        .map(ParallelItem::known)
                        .collect::<Option<Vec<_>>>()
                    {
                        Some(parts) => {
                            self.script(&parts.join(" "), &mut e, depth + 1, &Output::Unknown);
                        }
                        None => {
                            self.hold_parallel(
                                "several inputs only known at run time as the command line",
                            );
                            return Parallel::Done;
                        }
                    },
                }
                continue;
            }
            let values: Vec<PValue> = job.iter().map(ParallelItem::value).collect();
            if let Some(PValue::Glob(g)) = values.iter().find(|v| {
                matches!(v, PValue::Glob(g) if !g.chars().all(|c| c.is_ascii_alphanumeric() || "_./*?[]~+,:@%=-".contains(c)))
            }) {
                self.hold_parallel(&format!("the glob `{g}`, which the check cannot place in a command line"));
                return Parallel::Done;
            }
            let Some(lines) = self.parallel_lines(cmd, &values, n + 1, quote_words) else {
                return Parallel::Done;
            };
            for line in lines {
                let mut e = env.clone();
                e.vars.remove(PARALLEL_UNSEEN);
                self.script(&line, &mut e, depth + 1, &Output::Unknown);
            }
        }
        Parallel::Done
    }

    /// The line parallel makes of `cmd` for one job (`values`, number
    /// `seq`), and when the command word itself holds a replacement string
    /// (`parallel {}`) also the line with the inputs as written; `None`
    /// (held) when a replacement string is one the reader does not fill,
    /// or `-q` quotes a word with an input only known at run time.
    fn parallel_lines(
        &mut self,
        cmd: &[Field],
        values: &[PValue],
        seq: usize,
        quote_words: bool,
    ) -> Option<Vec<String>> {
        let mut line: Vec<String> = Vec::new();
        let mut raw: Vec<String> = Vec::new();
        let mut placed = false;
        for a in cmd {
            let w = a.text();
            let quote_word = quote_words && a.static_text().is_some();
            let fill = if quote_word { Fill::Raw } else { Fill::Quoted };
            let (Ok((r, did)), Ok((plain, _))) = (
                parallel_replace(&w, values, seq, fill),
                parallel_replace(&w, values, seq, Fill::Raw),
            ) else {
                self.hold_parallel(&format!(
                    "a replacement string in `{w}` the check does not fill"
                ));
                return None;
            };
            if quote_word && did && values.contains(&PValue::Unknown) {
                self.hold_parallel("`-q` with an input only known at run time");
                return None;
            }
            placed |= did;
            line.push(if quote_word {
                crate::shell_quote(&r)
            } else {
                r
            });
            raw.push(plain);
        }
        if !placed {
            line.extend(values.iter().map(|v| match v {
                PValue::Known(v) => crate::shell_quote(v),
                PValue::Glob(v) => v.clone(),
                PValue::Unknown => format!("\"${{{PARALLEL_UNSEEN}}}\""),
            }));
        }
        let mut lines = vec![line.join(" ")];
        if cmd[0].text().contains('{') && raw != line {
            lines.push(raw.join(" "));
        }
        Some(lines)
    }

    /// `parallel` with an input source the check cannot read (`what`).
    /// A single source into a COMMAND of plain words with no replacement
    /// string is judged as the command with unknown inputs appended, as for
    /// `xargs`; a COMMAND with replacement strings or shell syntax in its
    /// words is judged as the line with an unknown value in each input's
    /// place. Held: no COMMAND, a COMMAND that takes its code from the
    /// input (`sh -c`), several sources, `-q`.
    fn parallel_unseen(
        &mut self,
        cmd: &[Field],
        what: &str,
        sources: usize,
        quote_words: bool,
        env: &Env,
        depth: u32,
    ) -> Parallel {
        if cmd.is_empty() || xargs_code_from_input(cmd) {
            self.hold_parallel(&format!(
                "input the check cannot see ({what}) that it runs as commands or scripts"
            ));
            return Parallel::Done;
        }
        if sources > 1 {
            self.hold_parallel(&format!(
                "several input sources, one of which the check cannot see ({what})"
            ));
            return Parallel::Done;
        }
        let plain = |f: &Field| {
            f.static_text().is_some_and(|t| {
                !t.is_empty()
                    && t.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+%@^".contains(c))
            })
        };
        if cmd.iter().all(plain) {
            return Parallel::FromInput(cmd.to_vec());
        }
        if quote_words {
            self.hold_parallel(&format!("`-q` with input the check cannot see ({what})"));
            return Parallel::Done;
        }
        let Some(lines) = self.parallel_lines(cmd, &[PValue::Unknown], 1, false) else {
            return Parallel::Done;
        };
        for line in lines {
            let mut e = env.clone();
            e.vars.remove(PARALLEL_UNSEEN);
            self.script(&line, &mut e, depth + 1, &Output::Unknown);
        }
        Parallel::Done
    }

    fn hold_parallel(&mut self, what: &str) {
        self.report(
            false,
            "shell.eval-dynamic",
            format!(
                "GNU `parallel` is given {what}, so what it runs cannot be checked. Write the commands out; a person \
                 must approve it as it is."
            ),
        );
    }

    /// `parallel` as a wrapper: the command it runs on its inputs, or
    /// `Break` when it was judged here. Its operands come from its inputs.
    pub(super) fn parallel_wrapper(
        &mut self,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
        reached: &mut Reached,
    ) -> ControlFlow<Output, Option<Vec<Field>>> {
        ControlFlow::Continue(match self.parallel(args, env, depth, stdin) {
            Parallel::FromInput(cmd) => {
                reached.via_xargs = true;
                // Inputs from files or `:::` words are not the
                // pipe's lookup (review s21 U9).
                if args.iter().any(|a| {
                    let t = a.text();
                    t.starts_with(":::")
                        || t.starts_with("-a")
                        || t.starts_with("--a")
                        || t.starts_with("-d")
                        || t.starts_with("--d")
                        || t.starts_with("--col")
                        || t.starts_with("-C")
                }) {
                    self.pid_in = None;
                }
                Some(cmd)
            }
            Parallel::Done => return ControlFlow::Break(Output::Unknown),
        })
    }

    /// `xargs` as a wrapper: the command it builds from standard input (or
    /// `-a FILE`), judged with its operands not all in the text.
    pub(super) fn xargs_wrapper(
        &mut self,
        args: &[Field],
        env: &mut Env,
        depth: u32,
        stdin: &Output,
        reached: &mut Reached,
    ) -> Vec<Field> {
        let allowed = reached.allowed;
        reached.via_xargs = true;
        let p = self.runner_options("xargs", &runopts::XARGS, args, allowed);
        // `xargs -a FILE` reads FILE, not the pipe's lookup
        // (review s21 U9).
        // A delimiter other than a newline cuts pids into
        // other numbers (`-d 2`: `1234` is `1` and `34`).
        if p.has("arg-file")
            || p.values("delimiter")
                .any(|d| !matches!(d.text().as_str(), "\\n" | "\n"))
        {
            self.pid_in = None;
        }
        self.xargs_input_as_code(&p, &args[p.end..]);
        // `xargs -a KEY CMD` reads KEY into CMD's arguments.
        self.reader("xargs", args, env);
        self.xargs_command(&p, &args[p.end..], env, depth, stdin)
    }
}
