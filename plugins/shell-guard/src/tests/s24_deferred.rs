//! Review s24 S1, S2, S3: code that runs later (traps, PS4, functions, command_not_found_handle).
