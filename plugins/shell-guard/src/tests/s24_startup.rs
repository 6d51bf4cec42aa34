//! Review s24 R2, S6, S8: start-up files of shells and programs.
