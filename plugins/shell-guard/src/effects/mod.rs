//! What a command does to files and state: what it writes, removes or
//! destroys, where data goes, which commands only look, files the run's
//! tools wrote, and toolvet's own state.

pub mod configs;
pub mod containers;
pub mod destroyers;
pub mod exposure;
pub mod forge;
pub mod installers;
pub mod packages;
pub mod patches;
pub mod readonly;
pub mod removers;
pub mod selfstate;
pub mod sinks;
pub mod trust_gates;
pub mod writers;
pub mod written;
