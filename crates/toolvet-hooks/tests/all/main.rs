//! The hooks' end-to-end tests in one test binary (each file was a binary
//! of its own, and each linked the whole host again).

mod autorun;
mod results;
mod shell_input;
mod support;
