//! Review s24 R1, R3, R6, R7, R8: the files git subcommands read and write.
