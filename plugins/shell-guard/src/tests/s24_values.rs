//! Review s24 S9, S4: values and directories the walk cannot follow.
