//! Commands whose standard output the analysis follows: `cat`, `tee`,
//! and the decoders and encoders (`base64`, `xxd`, `openssl enc`).

use super::*;

/// `openssl`: `s_client` reads the network, `enc -d -base64` decodes.
pub(super) fn openssl_output(args: &[Field], stdin: &Output) -> Output {
    let texts: Vec<String> = args.iter().map(Field::text).collect();
    if texts.first().is_some_and(|s| s == "s_client") {
        Output::Downloaded
    } else if texts.iter().any(|t| t == "-d")
        && texts
            .iter()
            .any(|t| matches!(t.as_str(), "base64" | "enc" | "-a" | "-base64"))
    {
        decoded(stdin)
    } else {
        Output::Unknown
    }
}

/// `base64`, `base32`, `basenc`, `b64decode`: decoded or encoded standard input.
pub(super) fn base_coding(name: &str, args: &[Field], stdin: &Output) -> Output {
    let f = flags(args);
    if f.short.contains('d')
        || f.short.contains('D')
        || f.long.iter().any(|l| l == "decode")
        || name == "b64decode"
    {
        decoded(stdin)
    } else {
        encoded(stdin)
    }
}

/// `xxd`, `od`, `hexdump`: `xxd -r` decodes, the rest encode.
pub(super) fn hex_dump(name: &str, args: &[Field], stdin: &Output) -> Output {
    if name == "xxd" && flags(args).short.contains('r') {
        decoded(stdin)
    } else {
        encoded(stdin)
    }
}

impl Analysis<'_> {
    /// `cat`: its output, from standard input, files written earlier in the call, or the network.
    pub(super) fn cat(&mut self, args: &[Field], env: &mut Env, stdin: &Output) -> Output {
        let files = flags_positional(args);
        if files.is_empty() {
            return stdin.clone();
        }
        let mut out = Output::Static(String::new());
        for f in files {
            let t = f.text();
            out = out.merge(if t == "-" || t == "/dev/stdin" {
                stdin.clone()
            } else if let Some(text) = env.written_text(&t) {
                // Written earlier in the call (review-s9 G11).
                Output::Static(text.to_string())
            } else if walk::is_network_device(&t) {
                Output::Downloaded
            } else if f.is_dynamic() {
                f.output()
            } else {
                Output::Unknown
            });
        }
        out
    }

    /// `tee`: the files it writes, and its standard input passed on.
    pub(super) fn tee(
        &mut self,
        args: &[Field],
        env: &mut Env,
        stdin: &Output,
        depth: u32,
        own_rules: bool,
    ) -> Output {
        let appends = args
            .iter()
            .any(|a| matches!(a.text().as_str(), "-a" | "--append"));
        for f in flags_positional(args) {
            if own_rules {
                self.check_device_write(&f.text(), "`tee`");
                self.check_write(f, env, stdin, "`tee`", !appends, depth);
            }
            env.taint_file(&f.text(), stdin);
            env.note_written(&f.text(), stdin, appends);
        }
        stdin.clone()
    }
}
