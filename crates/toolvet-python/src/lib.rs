//! Python bindings of toolvet (`toolvet._native`, wrapped by the `toolvet`
//! package in `python/toolvet`): load a policy, vet tool calls in-process
//! with the GIL released, vet what tools returned (keeping each run's
//! labels), and decide approval requests. The framework
//! adapters (`toolvet.integrations.*`) are Python, on top of this.
//!
//! Built with maturin as an abi3 wheel (CPython 3.10+):
//! `maturin build --release -m crates/toolvet-python/Cargo.toml`.

mod approvals;
mod convert;
mod errors;
mod host;
mod request;
mod result_verdict;
mod verdict;

use pyo3::prelude::*;

/// The home directory of the user this process runs as (`$HOME` when it is
/// an absolute path, else the user's `/etc/passwd` entry), or `None`: the
/// core's one rule ([`toolvet::home::user_home`]), the one the hooks and
/// `toolvet mcp` use for the `home` attribute. The framework gate puts it
/// into every call's context, so the shell and path checks know what `~`
/// and `$HOME` stand for.
#[pyfunction]
fn user_home() -> Option<String> {
    toolvet::home::user_home()
}

/// The native half of the `toolvet` package.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<host::Host>()?;
    m.add_class::<host::PendingCheck>()?;
    m.add_class::<host::PendingResult>()?;
    m.add_class::<result_verdict::ResultVerdict>()?;
    m.add_class::<result_verdict::ResultCheckOutcome>()?;
    m.add_class::<result_verdict::RunLabel>()?;
    m.add_class::<request::ToolResult>()?;
    m.add_class::<verdict::Verdict>()?;
    m.add_class::<verdict::Approval>()?;
    m.add_class::<verdict::CheckOutcome>()?;
    m.add_class::<approvals::Approvals>()?;
    m.add_class::<approvals::ApprovalRequest>()?;
    m.add_class::<request::Call>()?;
    m.add_class::<request::Tool>()?;
    m.add_class::<request::Context>()?;
    m.add_class::<request::PriorCall>()?;
    m.add_function(wrap_pyfunction!(user_home, m)?)?;
    m.add("HOME_ATTRIBUTE", toolvet::home::HOME_ATTRIBUTE)?;
    m.add("CONTRACT_VERSION", toolvet::CONTRACT_VERSION)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
