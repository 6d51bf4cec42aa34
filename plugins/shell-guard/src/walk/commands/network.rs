//! Network commands: downloaders (whose output and saved files are
//! downloaded data) and `ssh`'s remote command.

use super::*;

impl Analysis<'_> {
    /// Downloaders (`curl`, `wget`, …): their output and the files they save are downloaded data.
    pub(super) fn downloader(
        &mut self,
        n: &str,
        args: &[Field],
        env: &mut Env,
        stdin: &Output,
        own_rules: bool,
    ) -> Output {
        self.network_tool(n, args);
        if own_rules {
            self.network_upload(n, args, env, stdin);
        }
        for file in download_targets(n, args) {
            env.taint_file(&file, &Output::Downloaded);
        }
        Output::Downloaded
    }

    /// `ssh HOST CMD`: the remote command, judged with no workspace (absolute paths only).
    pub(super) fn ssh(&mut self, args: &[Field], depth: u32, stdin: &Output) -> Output {
        let i = skip_options(
            args,
            &[
                "-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o",
                "-p", "-Q", "-R", "-S", "-W", "-w", "-B",
            ],
        );
        let remote = args.get(i + 1..).unwrap_or(&[]);
        if !remote.is_empty() {
            let script = remote.iter().map(Field::text).collect::<Vec<_>>().join(" ");
            let mut fresh = Env::fresh(Cwd::None);
            // The remote side has no workspace: judge absolute paths only.
            let saved = std::mem::take(&mut self.workspace);
            self.script(&script, &mut fresh, depth + 1, stdin);
            self.workspace = saved;
        }
        Output::Unknown
    }
}
