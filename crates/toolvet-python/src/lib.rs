//! Python bindings of toolvet (`toolvet._native`, wrapped by the `toolvet`
//! package in `python/toolvet`): load a policy, vet tool calls in-process
//! with the GIL released, and decide approval requests. The framework
//! adapters (`toolvet.integrations.*`) are Python, on top of this.
//!
//! Built with maturin as an abi3 wheel (CPython 3.10+):
//! `maturin build --release -m crates/toolvet-python/Cargo.toml`.

mod approvals;
mod convert;
mod errors;
mod host;
mod request;
mod verdict;

use pyo3::prelude::*;

/// The native half of the `toolvet` package.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<host::Host>()?;
    m.add_class::<host::PendingCheck>()?;
    m.add_class::<verdict::Verdict>()?;
    m.add_class::<verdict::Approval>()?;
    m.add_class::<verdict::CheckOutcome>()?;
    m.add_class::<approvals::Approvals>()?;
    m.add_class::<approvals::ApprovalRequest>()?;
    m.add_class::<request::Call>()?;
    m.add_class::<request::Tool>()?;
    m.add_class::<request::Context>()?;
    m.add_class::<request::PriorCall>()?;
    m.add("CONTRACT_VERSION", toolvet::CONTRACT_VERSION)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
