//! How each program reads its own options: a getopt-style reader and the
//! option tables of the runners, the other known programs, git and tmux.

pub mod getopt;
pub mod gitopts;
pub mod progopts;
pub mod runopts;
pub mod tmuxopts;
