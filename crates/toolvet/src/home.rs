//! The user's home directory as the checks see it: the call-context
//! attribute [`HOME_ATTRIBUTE`] (what `~` and `$HOME` stand for in the
//! shell and path checks), and [`user_home`], the one rule by which a
//! front end that runs as the agent's user (the hooks, `toolvet mcp` over
//! stdio) finds it. A front end sets the attribute itself: nothing in a
//! call's arguments ever becomes it.

use std::ffi::OsString;
use std::path::PathBuf;

/// The call-context attribute naming the user's home directory (what `~`
/// stands for in the shell and path checks). Without it the checks infer
/// the home from the `cwd` attribute (`/home/<u>`, `/Users/<u>`, `/root`)
/// or treat it as unknown.
pub const HOME_ATTRIBUTE: &str = "home";

/// The call-context attribute naming the directory a call's relative
/// paths are resolved in (the agent's or the server's working directory).
pub const CWD_ATTRIBUTE: &str = "cwd";

/// The home directory of the user this process runs as: `$HOME` when it
/// is an absolute path; when `$HOME` is unset, empty or relative, the
/// user's `/etc/passwd` entry. `None` when that is missing or relative
/// too (the checks then infer the home from the cwd, or treat it as
/// unknown). A program this process starts with its environment expands
/// `~` the same way.
pub fn user_home() -> Option<String> {
    home_from(std::env::var_os("HOME"), || {
        let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
        passwd_home(&passwd, rustix::process::getuid().as_raw())
    })
}

/// The home directory of user `uid` in `passwd` (the text of
/// `/etc/passwd`: `name:password:uid:gid:gecos:home:shell` lines), if
/// listed. Users known only to other name services (LDAP) are not.
fn passwd_home(passwd: &str, uid: u32) -> Option<PathBuf> {
    passwd.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        match fields[..] {
            [_, _, id, _, _, home, _] if id.parse() == Ok(uid) => Some(PathBuf::from(home)),
            _ => None,
        }
    })
}

/// [`user_home`] with `$HOME` as `env` and the passwd lookup as `passwd`.
fn home_from(env: Option<OsString>, passwd: impl FnOnce() -> Option<PathBuf>) -> Option<String> {
    let absolute = |p: PathBuf| {
        let text = p.into_os_string().into_string().ok()?;
        text.starts_with('/').then_some(text)
    };
    match env {
        // A relative `$HOME` names no directory: the passwd entry does.
        Some(h) if !h.is_empty() => {
            absolute(PathBuf::from(h)).or_else(|| passwd().and_then(absolute))
        }
        _ => passwd().and_then(absolute),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_users_home_is_an_absolute_home_or_the_passwd_entry() {
        let passwd = || Some(PathBuf::from("/home/alice"));
        let env = |v: &str| Some(OsString::from(v));
        assert_eq!(home_from(env("/root"), passwd), Some("/root".into()));
        assert_eq!(home_from(None, passwd), Some("/home/alice".into()));
        assert_eq!(home_from(env(""), passwd), Some("/home/alice".into()));
        // A relative `$HOME` names no directory: the passwd entry stands.
        assert_eq!(home_from(env("alice"), passwd), Some("/home/alice".into()));
        assert_eq!(home_from(env("alice"), || None), None);
        let passwd = "root:x:0:0:root:/root:/bin/bash\n\
                      # a comment\n\
                      alice:x:1000:1000:Alice,,,:/home/alice:/bin/sh\n";
        assert_eq!(
            passwd_home(passwd, 1000),
            Some(PathBuf::from("/home/alice"))
        );
        assert_eq!(passwd_home(passwd, 0), Some(PathBuf::from("/root")));
        assert_eq!(passwd_home(passwd, 7), None);
        assert_eq!(home_from(None, || Some(PathBuf::from("x"))), None);
        assert_eq!(home_from(None, || None), None);
    }
}
