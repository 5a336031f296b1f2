//! The extension module `mancala_tb._native`: the tables of each game
//! ([`oware::Oware`], [`relay::Omweso`], [`relay::EnGehe`]) probed for numpy
//! arrays of positions through the library's public API, with the GIL
//! released while probing. The Python package `mancala_tb` re-exports it.

mod boards;
mod errors;
mod oware;
mod relay;

use std::sync::OnceLock;

use pyo3::prelude::*;
use pyo3::types::{PyTuple, PyType};

/// What `__reduce__` gives pickle: the class, and the arguments that make
/// the object again (it reopens its tables from its folder).
type Reduced<'py> = (Bound<'py, PyType>, Bound<'py, PyTuple>);

/// The tables in `cell`, opened by `open` on first use. A failure is not
/// kept: the next probe tries again.
fn opened<T, E>(cell: &OnceLock<T>, open: impl FnOnce() -> Result<T, E>) -> Result<&T, E> {
    if let Some(tables) = cell.get() {
        return Ok(tables);
    }
    let tables = open()?;
    // Another thread may have opened them meanwhile: either serves.
    Ok(cell.get_or_init(|| tables))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<oware::Oware>()?;
    m.add_class::<relay::Omweso>()?;
    m.add_class::<relay::EnGehe>()?;
    errors::register(m)
}
