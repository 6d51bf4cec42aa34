//! Approval tickets: `Signer::verify` on arbitrary text never panics and
//! accepts only the ticket the signer issued, and no one-byte change of a
//! valid ticket is accepted (`toolvet::fuzzing::ticket`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| toolvet::fuzzing::ticket(data));
