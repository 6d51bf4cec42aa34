//! Review s24 S5, S7: code written or fetched in a command and loaded by name.
