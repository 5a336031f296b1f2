//! Positions from Python: a 2-D integer numpy array (or anything
//! `numpy.asarray` makes one of), one position a row, read as bytes. A
//! C-contiguous `uint8` array is read in place; any other integer array is
//! converted once. Each game then checks its rows with its own parser.

use numpy::{PyArrayDescrMethods, PyReadonlyArray2, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyModule;

/// The rows of a batch as bytes, `pits` a row.
pub enum Rows<'py> {
    /// A C-contiguous `uint8` array: its own memory.
    InPlace(PyReadonlyArray2<'py, u8>),
    /// Any other integer array, converted.
    Converted(Vec<u8>),
}

impl Rows<'_> {
    /// Every row, one after the other.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Rows::InPlace(array) => array.as_slice().expect("checked C-contiguous when made"),
            Rows::Converted(bytes) => bytes,
        }
    }
}

/// The rows of `boards`, which must have shape `(N, pits)`.
pub fn rows<'py>(boards: &Bound<'py, PyAny>, pits: usize) -> PyResult<Rows<'py>> {
    let py = boards.py();
    let array = match boards.cast::<PyUntypedArray>() {
        Ok(array) => array.clone(),
        Err(_) => PyModule::import(py, "numpy")?
            .call_method1("asarray", (boards,))?
            .cast_into::<PyUntypedArray>()?,
    };
    if array.ndim() != 2 || array.shape()[1] != pits {
        // As Python writes a shape: (3, 11), (12,).
        let shape = match array.shape() {
            [n] => format!("({n},)"),
            dims => format!(
                "({})",
                dims.iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        return Err(PyValueError::new_err(format!(
            "boards must have shape (N, {pits}), one position a row; got {shape}"
        )));
    }
    if !matches!(array.dtype().kind(), b'i' | b'u') {
        return Err(PyTypeError::new_err(format!(
            "boards must be an integer array, got dtype {}",
            array.dtype()
        )));
    }
    if let Ok(bytes) = array.extract::<PyReadonlyArray2<u8>>()
        && bytes.is_c_contiguous()
    {
        return Ok(Rows::InPlace(bytes));
    }
    macro_rules! convert_from {
        ($($t:ty),*) => {$(
            if let Ok(values) = array.extract::<PyReadonlyArray2<$t>>() {
                return convert(values).map(Rows::Converted);
            }
        )*};
    }
    convert_from!(u8, i64, i32, i16, i8, u64, u32, u16);
    // Another byte order, or a platform type of its own: once more as int64.
    let values = array.call_method1("astype", ("int64",))?;
    convert(values.extract::<PyReadonlyArray2<i64>>()?).map(Rows::Converted)
}

/// The counts of `values`, row after row.
fn convert<T: numpy::Element + Copy + Into<i128>>(
    values: PyReadonlyArray2<'_, T>,
) -> PyResult<Vec<u8>> {
    let view = values.as_array();
    let pits = view.ncols();
    let mut bytes = Vec::with_capacity(view.len());
    // In logical (row-major) order whatever the layout.
    for (i, &count) in view.iter().enumerate() {
        match count_byte(count.into()) {
            Ok(byte) => bytes.push(byte),
            Err(message) => {
                let (row, pit) = (i / pits, i % pits);
                return Err(PyValueError::new_err(format!(
                    "row {row}: pit {pit} {message}"
                )));
            }
        }
    }
    Ok(bytes)
}

/// A pit count as a byte, or what is wrong with it.
fn count_byte(count: i128) -> Result<u8, String> {
    u8::try_from(count).map_err(|_| match count {
        ..0 => format!("holds {count} seeds: a count is never negative"),
        _ => format!("holds {count} seeds, more than any table holds"),
    })
}

/// The counts of one position (any sequence of integers).
pub fn one(pits: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
    let counts: Vec<i64> = pits.extract()?;
    (counts.iter().enumerate())
        .map(|(pit, &count)| {
            count_byte(count.into())
                .map(u32::from)
                .map_err(|message| PyValueError::new_err(format!("pit {pit} {message}")))
        })
        .collect()
}
