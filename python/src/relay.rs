//! `mancala_tb.Omweso` and `mancala_tb.EnGehe`: the relay games' tables.
//! Their library probes answer one position at a time, so a batch is
//! probed in parallel on rayon's pool.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use mancala_tb::games::engehe;
use mancala_tb::games::omweso::{self, Endless, Reverse};
use mancala_tb::tablebase::engehe::Config as EngeheConfig;
use mancala_tb::tablebase::omweso::{Config as OmwesoConfig, Objective, Value, Wdl};
use mancala_tb::{EngeheTablebase, OmwesoTablebase};
use numpy::{IntoPyArray, PyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::errors::Failure;
use crate::{Reduced, boards, opened};

/// Each row of `boards` (`pits` counts) made a position by `parse`.
fn positions<P: Send>(
    py: Python<'_>,
    boards: &Bound<'_, PyAny>,
    pits: usize,
    parse: impl Fn(&[u32]) -> Result<P, String> + Send + Sync,
) -> PyResult<Vec<P>> {
    let rows = boards::rows(boards, pits)?;
    let bytes = rows.bytes();
    py.detach(|| {
        let mut counts = vec![0; pits];
        (bytes.chunks_exact(pits).enumerate())
            .map(|(row, pits)| {
                counts
                    .iter_mut()
                    .zip(pits)
                    .for_each(|(c, &p)| *c = p.into());
                parse(&counts).map_err(|e| Failure::bad_row(Some(row), e))
            })
            .collect::<Result<_, _>>()
    })
    .map_err(|f: Failure| f.into_py(py))
}

/// `value` of every position, in parallel with the GIL released; the first
/// row that fails fails the call.
fn probe_all<P: Sync, V: Send>(
    py: Python<'_>,
    positions: &[P],
    value: impl Fn(&P) -> Result<V, Failure> + Send + Sync,
) -> PyResult<Vec<V>> {
    py.detach(|| {
        let values: Vec<_> = positions.par_iter().map(value).collect();
        (values.into_iter().enumerate())
            .map(|(row, v)| v.map_err(|f| f.in_row(row)))
            .collect::<Result<_, _>>()
    })
    .map_err(|f: Failure| f.into_py(py))
}

/// One position's counts (a sequence of integers) made a position by
/// `parse`.
fn position<P>(
    pits: &Bound<'_, PyAny>,
    parse: impl Fn(&[u32]) -> Result<P, String>,
) -> PyResult<P> {
    parse(&boards::one(pits)?).map_err(PyValueError::new_err)
}

/// An Omweso table's value as a number: the points (−12 … 12) of a points
/// table; in a win/draw/loss table a win in `d` moves is `d`, a draw 0 and
/// a loss in `d` moves `−d − 1` (−1: the mover has no move, the game is
/// lost).
fn number(value: Value) -> i16 {
    match value {
        Value::Points(points) => points.into(),
        Value::Wdl(Wdl::Win(d)) => d as i16,
        Value::Wdl(Wdl::Draw) => 0,
        Value::Wdl(Wdl::Loss(d)) => -(d as i16) - 1,
    }
}

/// The Omweso tables of one board width, objective and ruleset.
///
/// Omweso(dir, width, objective="wdl", reverse="all-laps", endless="void",
/// okutema=True): the tables `mancala-tb build omweso` wrote under `dir`,
/// one per seed count, each opened when a position with that many seeds is
/// first probed. A position is 4 × width pit counts: the mover's 2 × width
/// pits, then the opponent's, each side in its owner's sowing order (outer
/// row from the owner's left, then the inner row back). Safe to use from
/// several threads (probes release the GIL); pickles as its arguments.
#[pyclass(module = "mancala_tb", frozen)]
pub struct Omweso {
    dir: PathBuf,
    width: usize,
    objective: Objective,
    rules: omweso::Rules,
    /// The tables opened so far, by seeds.
    tables: Mutex<HashMap<usize, Arc<OmwesoTablebase>>>,
}

impl Omweso {
    /// The table of positions with `seeds` seeds, opened on first use.
    fn table(&self, seeds: usize) -> Result<Arc<OmwesoTablebase>, Failure> {
        let mut tables = self.tables.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(table) = tables.get(&seeds) {
            return Ok(table.clone());
        }
        let config = OmwesoConfig {
            width: self.width,
            seeds,
            rules: self.rules,
            objective: self.objective,
        };
        let table = Arc::new(OmwesoTablebase::open(&self.dir, config)?);
        tables.insert(seeds, table.clone());
        Ok(table)
    }

    fn parse(&self, counts: &[u32]) -> Result<omweso::Position, String> {
        omweso::Position::new(self.width, counts).map_err(|e| e.to_string())
    }
}

#[pymethods]
impl Omweso {
    #[new]
    #[pyo3(signature = (dir, width, objective = "wdl", reverse = "all-laps", endless = "void", okutema = true))]
    fn new(
        dir: PathBuf,
        width: usize,
        objective: &str,
        reverse: &str,
        endless: &str,
        okutema: bool,
    ) -> PyResult<Omweso> {
        let bad = |e: &dyn std::fmt::Display| PyValueError::new_err(e.to_string());
        omweso::check_width(width).map_err(|e| bad(&e))?;
        Ok(Omweso {
            dir,
            width,
            objective: objective.parse().map_err(|e| bad(&e))?,
            rules: omweso::Rules {
                reverse: reverse.parse::<Reverse>().map_err(|e| bad(&e))?,
                endless: endless.parse::<Endless>().map_err(|e| bad(&e))?,
                okutema,
            },
            tables: Mutex::new(HashMap::new()),
        })
    }

    /// values(boards) -> numpy.ndarray of shape (N,)
    ///
    /// The value of each position of `boards`, an integer array of shape
    /// (N, 4 × width), seed counts mixed. Points tables give int8 points
    /// (−12 … 12); win/draw/loss tables give int16: a win in d moves is d,
    /// a draw 0, a loss in d moves −d − 1.
    fn values<'py>(
        &self,
        py: Python<'py>,
        boards: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let positions = positions(py, boards, 4 * self.width, |c| self.parse(c))?;
        let mut tables = HashMap::new();
        for (row, pos) in positions.iter().enumerate() {
            let seeds = pos.seeds() as usize;
            if let Entry::Vacant(slot) = tables.entry(seeds) {
                slot.insert(self.table(seeds).map_err(|f| f.in_row(row).into_py(py))?);
            }
        }
        let values = probe_all(py, &positions, |pos| {
            Ok(number(tables[&(pos.seeds() as usize)].value(pos)?))
        })?;
        Ok(match self.objective {
            Objective::Points => values
                .iter()
                .map(|&v| v as i8)
                .collect::<Vec<_>>()
                .into_pyarray(py)
                .into_any(),
            Objective::Wdl => PyArray1::from_vec(py, values).into_any(),
        })
    }

    /// value(pits) -> int
    ///
    /// The value of one position (a sequence of 4 × width pit counts), the
    /// number `values` gives it.
    fn value(&self, py: Python<'_>, pits: &Bound<'_, PyAny>) -> PyResult<i16> {
        let pos = position(pits, |c| self.parse(c))?;
        py.detach(|| Ok(number(self.table(pos.seeds() as usize)?.value(&pos)?)))
            .map_err(|f: Failure| f.into_py(py))
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Reduced<'py>> {
        let me = slf.get();
        let args = (
            me.dir.clone(),
            me.width,
            me.objective.name(),
            me.rules.reverse.to_string(),
            me.rules.endless.to_string(),
            me.rules.okutema,
        );
        Ok((slf.get_type(), args.into_pyobject(slf.py())?))
    }

    fn __repr__(&self) -> String {
        let [(_, reverse), (_, endless), _] = self.rules.options();
        format!(
            "Omweso({:?}, {}, objective={:?}, reverse={reverse:?}, endless={endless:?}, okutema={})",
            self.dir,
            self.width,
            self.objective.name(),
            if self.rules.okutema { "True" } else { "False" },
        )
    }
}

/// The En Gehé tables of one board width and ruleset.
///
/// EnGehe(dir, width, endless="void"): the layers `mancala-tb build engehe`
/// wrote under `dir` (opened on the first probe). A position is 2 × width
/// hole counts, the mover's row first, counter-clockwise from the mover's
/// leftmost hole. A value is the counters the mover captures from here on
/// minus the opponent's. Safe to use from several threads (probes release
/// the GIL); pickles as its arguments.
#[pyclass(module = "mancala_tb", frozen)]
pub struct EnGehe {
    dir: PathBuf,
    config: EngeheConfig,
    tables: OnceLock<EngeheTablebase>,
}

impl EnGehe {
    /// The tables, opened on first use.
    fn tables(&self) -> Result<&EngeheTablebase, Failure> {
        Ok(opened(&self.tables, || {
            EngeheTablebase::open(&self.dir, self.config)
        })?)
    }

    fn parse(&self, counts: &[u32]) -> Result<engehe::Position, String> {
        engehe::Position::new(self.config.width, counts).map_err(|e| e.to_string())
    }
}

#[pymethods]
impl EnGehe {
    #[new]
    #[pyo3(signature = (dir, width, endless = "void"))]
    fn new(dir: PathBuf, width: usize, endless: &str) -> PyResult<EnGehe> {
        let bad = |e: &dyn std::fmt::Display| PyValueError::new_err(e.to_string());
        engehe::check_width(width).map_err(|e| bad(&e))?;
        let endless = endless.parse::<Endless>().map_err(|e| bad(&e))?;
        Ok(EnGehe {
            dir,
            config: EngeheConfig {
                width,
                rules: engehe::Rules { endless },
            },
            tables: OnceLock::new(),
        })
    }

    /// values(boards) -> numpy.ndarray of int8, shape (N,)
    ///
    /// The value of each position of `boards`, an integer array of shape
    /// (N, 2 × width), counter counts mixed.
    fn values<'py>(
        &self,
        py: Python<'py>,
        boards: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<i8>>> {
        let positions = positions(py, boards, 2 * self.config.width, |c| self.parse(c))?;
        let tables = py.detach(|| self.tables()).map_err(|f| f.into_py(py))?;
        let values = probe_all(py, &positions, |pos| Ok(tables.value(pos)?))?;
        Ok(PyArray1::from_vec(py, values))
    }

    /// value(holes) -> int
    ///
    /// The value of one position: a sequence of 2 × width hole counts.
    fn value(&self, py: Python<'_>, holes: &Bound<'_, PyAny>) -> PyResult<i8> {
        let pos = position(holes, |c| self.parse(c))?;
        py.detach(|| Ok(self.tables()?.value(&pos)?))
            .map_err(|f: Failure| f.into_py(py))
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Reduced<'py>> {
        let me = slf.get();
        let args = (
            me.dir.clone(),
            me.config.width,
            me.config.rules.endless.to_string(),
        );
        Ok((slf.get_type(), args.into_pyobject(slf.py())?))
    }

    fn __repr__(&self) -> String {
        format!(
            "EnGehe({:?}, {}, endless={:?})",
            self.dir,
            self.config.width,
            self.config.rules.endless.to_string()
        )
    }
}
