//! What the tables of the relay games (En Gehé, Omweso) share: one error
//! type, a layer file (path, header, numbering), building a layer unless it
//! is already on disk, and walking a layer's positions in rank order. The
//! games' modules (`engehe`, `omweso`) add their moves and values; both
//! store through [`super::store`] and check through
//! [`super::check::first_inconsistent`].

use std::ops::{ControlFlow, Range};
use std::path::PathBuf;
use std::time::Instant;

use super::BuildObserver;
use super::store::{self, Meta, StoreError, Stored, Values};
use crate::error::{Cause, MissingTable};
use crate::games::engehe::EngeheError;
use crate::games::omweso::OmwesoError;
use crate::index::stars_bars::{self, IndexError, StarsBars};
use crate::solve::explicit::ExplicitError;

/// Errors of building, probing and checking relay-game tables.
#[derive(Debug, thiserror::Error)]
pub enum RelayTbError {
    #[error(transparent)]
    Missing(#[from] MissingTable),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Engine(#[from] ExplicitError),
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error(transparent)]
    Engehe(#[from] EngeheError),
    #[error(transparent)]
    Omweso(#[from] OmwesoError),
    #[error("cannot create the tablebase folder {path}")]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{game} tables stop at {max} seeds (asked for {seeds})")]
    TooManySeeds {
        game: &'static str,
        seeds: usize,
        max: usize,
    },
    #[error("a position is {0} moves from the end; the wdl table stores at most 32766")]
    TooDeep(u16),
    #[error("the board has width {width}, the tables width {table_width}")]
    WrongWidth { width: usize, table_width: usize },
    #[error(
        "the position has width {width} and {seeds} seeds; the table is for width {table_width} and {table_seeds} seeds"
    )]
    WrongLayer {
        width: usize,
        seeds: usize,
        table_width: usize,
        table_seeds: usize,
    },
    #[error("{path}: rank {rank} ({position}) holds {stored} but its moves give {expected}")]
    Inconsistent {
        path: PathBuf,
        rank: u64,
        position: String,
        stored: String,
        expected: String,
    },
}

impl RelayTbError {
    /// Why it failed.
    pub fn cause(&self) -> Cause<'_> {
        match self {
            RelayTbError::Missing(missing) => Cause::MissingTable(missing),
            RelayTbError::Store(e) => e.cause(),
            RelayTbError::Index(_)
            | RelayTbError::Engehe(_)
            | RelayTbError::Omweso(_)
            | RelayTbError::TooManySeeds { .. }
            | RelayTbError::WrongWidth { .. }
            | RelayTbError::WrongLayer { .. } => Cause::BadInput,
            RelayTbError::Inconsistent { .. } => Cause::DamagedTable,
            RelayTbError::Engine(_) | RelayTbError::CreateDir { .. } | RelayTbError::TooDeep(_) => {
                Cause::Other
            }
        }
    }
}

/// One layer's table file: where it is, what its header says, how its
/// positions are numbered.
pub(crate) struct LayerFile {
    pub path: PathBuf,
    pub meta: Meta,
    pub index: StarsBars,
    /// What it is, for messages (`layer 3 of the En Gehé width-2 tables`).
    pub name: String,
    /// The `mancala-tb build` arguments that make it.
    pub build_args: String,
}

impl LayerFile {
    /// The table, `None` if it is not built.
    pub fn open(&self) -> Result<Option<Stored>, RelayTbError> {
        match store::open(&self.path, &self.meta, self.index.size()) {
            Ok(table) => Ok(Some(table)),
            Err(StoreError::Missing { .. }) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// The table, or the error that says how to build it.
    pub fn open_built(&self) -> Result<Stored, RelayTbError> {
        self.open()?.ok_or_else(|| {
            RelayTbError::Missing(MissingTable {
                table: self.name.clone(),
                path: self.path.clone(),
                build_args: self.build_args.clone(),
            })
        })
    }

    /// Builds the layer unless its table is already on disk: `solve` gets
    /// the progress callback and returns the values to store. Returns the
    /// table and the build's wall time (`None` if it was already built).
    pub fn build_if_missing(
        &self,
        seeds: usize,
        observer: &dyn BuildObserver,
        solve: impl FnOnce(&(dyn Fn(u64) + Sync)) -> Result<StoredValues, RelayTbError>,
    ) -> Result<(Stored, Option<f64>), RelayTbError> {
        if let Some(table) = self.open()? {
            return Ok((table, None));
        }
        if let Some(folder) = self.path.parent() {
            std::fs::create_dir_all(folder).map_err(|source| RelayTbError::CreateDir {
                path: folder.to_path_buf(),
                source,
            })?;
        }
        observer.layer_started(seeds, self.index.size());
        let start = Instant::now();
        let values = solve(&|steps| observer.advance(steps))?;
        let stored = match &values {
            StoredValues::I8(v) => Values::I8(v),
            StoredValues::I16(v) => Values::I16(v),
        };
        store::write(&self.path, &self.meta, stored)?;
        let seconds = start.elapsed().as_secs_f64();
        Ok((self.open_built()?, Some(seconds)))
    }

    /// Bytes of the table file.
    pub fn bytes(&self) -> Result<u64, RelayTbError> {
        Ok(store::file_bytes(&self.path)?)
    }
}

/// Values a build hands to [`LayerFile::build_if_missing`].
pub(crate) enum StoredValues {
    I8(Vec<i8>),
    I16(Vec<i16>),
}

/// Walks the positions of `ranks` in rank order, calling `each(rank,
/// counts)` with the pit counts of each, until `each` breaks.
pub(crate) fn walk_positions<B>(
    index: &StarsBars,
    ranks: Range<u64>,
    mut each: impl FnMut(u64, &[u8]) -> ControlFlow<B>,
) -> Option<B> {
    let mut counts = vec![0u8; index.pits()];
    index.unrank(ranks.start, &mut counts);
    for rank in ranks {
        if let ControlFlow::Break(b) = each(rank, &counts) {
            return Some(b);
        }
        stars_bars::next(&mut counts);
    }
    None
}
