//! `mancala_tb.Oware`: the Oware tables of one ruleset.

use std::path::PathBuf;
use std::sync::OnceLock;

use mancala_tb::OwareTablebase;
use mancala_tb::games::oware::{self, Board, PITS, Ruleset, SIDE};
use mancala_tb::tablebase::oware::{Detail, Probed};
use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::Failure;
use crate::{Reduced, boards, opened};

/// What `move_values` gives a pit that cannot be played (the published
/// lookup tool's convention).
const NOT_LEGAL: i8 = 127;

/// The Oware tables of one ruleset in a tablebase folder.
///
/// Oware(dir, rules="awari"): `dir` is the folder `mancala-tb build oware
/// --dir DIR` wrote (its layers are in DIR/oware-RULES/); `rules` is
/// "awari" (the 2002 solution's) or "abapa" (tournament rules). Each
/// layer's table opens on the first probe that needs it (one built later
/// is seen then); a layer rebuilt after it opened is not: make a new
/// object. A position is twelve pit counts, the mover's six first,
/// counter-clockwise from the mover's leftmost pit. A value is what the
/// mover captures from here on minus what the opponent captures, under
/// perfect play. Safe to use from several threads (probes release the
/// GIL); pickles as its folder and rules, and reopens there.
#[pyclass(module = "mancala_tb", frozen)]
pub struct Oware {
    dir: PathBuf,
    rules: Ruleset,
    tables: OnceLock<OwareTablebase>,
}

impl Oware {
    /// The tables, opened on first use.
    fn tables(&self) -> Result<&OwareTablebase, Failure> {
        Ok(opened(&self.tables, || {
            OwareTablebase::open(&self.dir, self.rules)
        })?)
    }

    /// The probe of every board of `boards` (with `with_moves`, also their
    /// moves' values), the GIL released.
    fn probe<T: Send>(
        &self,
        py: Python<'_>,
        boards: &Bound<'_, PyAny>,
        with_moves: bool,
        answer: impl Fn(&Probed, &mut Vec<T>) + Send + Sync,
    ) -> PyResult<Vec<T>> {
        let rows = boards::rows(boards, PITS)?;
        let bytes = rows.bytes();
        py.detach(|| {
            let (boards, _) = bytes.as_chunks::<PITS>();
            for (row, board) in boards.iter().enumerate() {
                oware::parse_board(&board.map(u32::from))
                    .map_err(|e| Failure::bad_row(Some(row), e.to_string()))?;
            }
            let detail = if with_moves {
                Detail::Moves
            } else {
                Detail::Values
            };
            let probed = self.tables()?.probe_many(boards, detail)?;
            let mut out = Vec::with_capacity(boards.len() * if with_moves { SIDE } else { 1 });
            for (row, probed) in probed.iter().enumerate() {
                let probed = probed.as_ref().map_err(|e| Failure::at(Some(row), e))?;
                answer(probed, &mut out);
            }
            Ok(out)
        })
        .map_err(|f: Failure| f.into_py(py))
    }
}

#[pymethods]
impl Oware {
    #[new]
    #[pyo3(signature = (dir, rules = "awari"))]
    fn new(dir: PathBuf, rules: &str) -> PyResult<Oware> {
        Ok(Oware {
            dir,
            rules: rules.parse().map_err(PyValueError::new_err)?,
            tables: OnceLock::new(),
        })
    }

    /// The tablebase folder.
    #[getter]
    fn dir(&self) -> PathBuf {
        self.dir.clone()
    }

    /// The ruleset: "awari" or "abapa".
    #[getter]
    fn rules(&self) -> &'static str {
        self.rules.name()
    }

    /// values(boards) -> numpy.ndarray of int8, shape (N,)
    ///
    /// The value of each position: `boards` is an integer array of shape
    /// (N, 12) (read in place when it is C-contiguous uint8, else converted
    /// once), positions of any seed counts mixed.
    fn values<'py>(
        &self,
        py: Python<'py>,
        boards: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<i8>>> {
        let values = self.probe(py, boards, false, |p, out| out.push(p.value))?;
        Ok(PyArray1::from_vec(py, values))
    }

    /// move_values(boards) -> numpy.ndarray of int8, shape (N, 6)
    ///
    /// Each pit's move value for the mover (what it captures minus the
    /// value of the position it leaves, as `mancala-tb query oware`
    /// prints it), 127 where the pit cannot be played.
    fn move_values<'py>(
        &self,
        py: Python<'py>,
        boards: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray2<i8>>> {
        let values = self.probe(py, boards, true, |p, out| {
            let mut pits = [NOT_LEGAL; SIDE];
            for m in &p.moves {
                pits[m.pit as usize] = m.value;
            }
            out.extend(pits);
        })?;
        let rows = values.len() / SIDE;
        PyArray1::from_vec(py, values).reshape([rows, SIDE])
    }

    /// distances(boards) -> numpy.ndarray of int16, shape (N,)
    ///
    /// The moves from each position to the capture (or the end of the
    /// game) that secures its value when both sides keep it, the side ahead
    /// hurrying and the side behind delaying; 0 for a draw and a finished
    /// game. A layer without its distance table is a MissingTableError
    /// naming the command that adds it.
    fn distances<'py>(
        &self,
        py: Python<'py>,
        boards: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<i16>>> {
        let rows = boards::rows(boards, PITS)?;
        let bytes = rows.bytes();
        let distances = py
            .detach(|| {
                let (boards, _) = bytes.as_chunks::<PITS>();
                for (row, board) in boards.iter().enumerate() {
                    oware::parse_board(&board.map(u32::from))
                        .map_err(|e| Failure::bad_row(Some(row), e.to_string()))?;
                }
                let probed = self.tables()?.distances_many(boards)?;
                (probed.into_iter().enumerate())
                    .map(|(row, d)| d.map(|d| d as i16).map_err(|e| Failure::at(Some(row), &e)))
                    .collect::<Result<Vec<i16>, Failure>>()
            })
            .map_err(|f: Failure| f.into_py(py))?;
        Ok(PyArray1::from_vec(py, distances))
    }

    /// value(pits) -> int
    ///
    /// The value of one position: a sequence of twelve pit counts.
    fn value(&self, py: Python<'_>, pits: &Bound<'_, PyAny>) -> PyResult<i8> {
        let counts = boards::one(pits)?;
        py.detach(|| {
            let board: Board =
                oware::parse_board(&counts).map_err(|e| Failure::bad_row(None, e.to_string()))?;
            Ok(self.tables()?.value(&board)?)
        })
        .map_err(|f: Failure| f.into_py(py))
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Reduced<'py>> {
        let me = slf.get();
        let args = (me.dir.clone(), me.rules.name());
        Ok((slf.get_type(), args.into_pyobject(slf.py())?))
    }

    fn __repr__(&self) -> String {
        format!("Oware({:?}, rules={:?})", self.dir, self.rules.name())
    }
}
