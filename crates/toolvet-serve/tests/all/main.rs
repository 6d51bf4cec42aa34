//! The `toolvet serve` tests: real HTTP on loopback, a real Postgres, a
//! real browser. One binary, one module per topic.

mod api;
mod browser;
mod callers;
mod guards;
mod harness;
mod pg;
mod postgres;
mod principals;
mod reload;
mod results;
mod runs;
mod transport;
