//! Code a command runs besides its own words: programs run through
//! options, runners, interpreters' modules, shell text embedded in other
//! languages, debugger commands, arithmetic, and sqlite's input.

pub mod arith;
pub mod debugger;
pub mod embedded;
pub mod modules;
pub mod programs;
pub mod reach;
pub mod runners;
pub mod sqlite;
