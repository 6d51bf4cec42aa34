//! Review s24 F2: toolvet's own commands.
