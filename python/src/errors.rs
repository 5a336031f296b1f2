//! Library errors as Python exceptions, chosen by their cause: bad input is
//! a `ValueError`, a table not built a `MissingTableError`, a damaged one a
//! `DamagedTableError`, anything else (the system) an `OSError`.

use mancala_tb::Cause;
use mancala_tb::error::{LineError, LineErrorKind};
use mancala_tb::tablebase::ExplicitTbError;
use mancala_tb::tablebase::oware::TablebaseError;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyOSError, PyValueError};
use pyo3::prelude::*;

create_exception!(
    mancala_tb,
    TableError,
    PyException,
    "A table cannot answer: it is not built (MissingTableError) or damaged (DamagedTableError)."
);
create_exception!(
    mancala_tb,
    MissingTableError,
    TableError,
    "A table that is not built yet. The message ends with the `mancala-tb build` command that \
     builds it; the attributes `build_command` and `path` (the file it would be) say the same."
);
create_exception!(
    mancala_tb,
    DamagedTableError,
    TableError,
    "A damaged, truncated, foreign or inconsistent table file: delete it and build it again."
);

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("TableError", py.get_type::<TableError>())?;
    m.add("MissingTableError", py.get_type::<MissingTableError>())?;
    m.add("DamagedTableError", py.get_type::<DamagedTableError>())
}

/// A library error that says its cause: every probe's error type.
pub trait Caused: std::fmt::Display {
    fn cause(&self) -> Cause<'_>;
}

impl Caused for TablebaseError {
    fn cause(&self) -> Cause<'_> {
        TablebaseError::cause(self)
    }
}

impl Caused for ExplicitTbError {
    fn cause(&self) -> Cause<'_> {
        ExplicitTbError::cause(self)
    }
}

/// What keeps a probe from its answers: why, and the row of the batch it
/// is about (none for a single position, or a table failing the batch).
pub struct Failure {
    row: Option<usize>,
    error: LineError,
}

impl<E: Caused> From<E> for Failure {
    fn from(error: E) -> Failure {
        Failure::at(None, &error)
    }
}

impl Failure {
    /// The failure of row `row` (or of the call) through `error`.
    pub fn at(row: Option<usize>, error: &impl Caused) -> Failure {
        Failure {
            row,
            error: LineError::of(error, error.cause()),
        }
    }

    /// The same failure, of row `row`.
    pub fn in_row(self, row: usize) -> Failure {
        Failure {
            row: Some(row),
            ..self
        }
    }

    /// A malformed row: `message` says why.
    pub fn bad_row(row: Option<usize>, message: impl Into<String>) -> Failure {
        Failure {
            row,
            error: LineError::bad_input(message),
        }
    }

    /// The exception to raise.
    pub fn into_py(self, py: Python<'_>) -> PyErr {
        let message = match self.row {
            Some(row) => format!("row {row}: {}", self.error.message),
            None => self.error.message,
        };
        match self.error.kind {
            LineErrorKind::BadInput => PyValueError::new_err(message),
            LineErrorKind::MissingTable(missing) => {
                let error = MissingTableError::new_err(message);
                let value = error.value(py);
                let command = format!("mancala-tb build {}", missing.build_args);
                // Setting attributes on a fresh exception cannot fail.
                let _ = value.setattr("build_command", command);
                let _ = value.setattr("path", missing.path);
                error
            }
            LineErrorKind::DamagedTable => DamagedTableError::new_err(message),
            LineErrorKind::Other => PyOSError::new_err(message),
        }
    }
}
