//! The one error type of building, probing and checking explicit-engine tables.

use std::path::PathBuf;

use crate::error::{Cause, MissingTable, WithPath};
use crate::games::engehe::EngeheError;
use crate::games::omweso::OmwesoError;
use crate::index::stars_bars::IndexError;
use crate::solve::explicit::ExplicitError;
use crate::table::TableError;
use crate::tablebase::FileError;

/// Errors of building, probing and checking En Gehé and Omweso tables.
#[derive(Debug, thiserror::Error)]
pub enum ExplicitTbError {
    /// A layer that is not built yet.
    #[error(transparent)]
    Missing(#[from] MissingTable),
    /// A table file that cannot be read or written.
    #[error(transparent)]
    Table(#[from] WithPath<TableError>),
    /// Something wrong at one file or folder.
    #[error(transparent)]
    File(#[from] WithPath<FileError>),
    /// A layer the explicit engine cannot solve.
    #[error(transparent)]
    Engine(#[from] ExplicitError),
    /// A layer too large to number.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// A bad En Gehé board or width.
    #[error(transparent)]
    Engehe(#[from] EngeheError),
    /// A bad Omweso board or width.
    #[error(transparent)]
    Omweso(#[from] OmwesoError),
    /// More seeds than the game's tables hold.
    #[error("{game} tables stop at {max} seeds (asked for {seeds})")]
    TooManySeeds {
        /// The game's name.
        game: &'static str,
        /// The seeds asked for.
        seeds: usize,
        /// The most seeds the tables hold.
        max: usize,
    },
    /// A distance table built from other values than its value table's.
    #[error(
        "{} was built from other values than {} (the checksum of the values it names differs); delete it and rerun the build to make it again",
        distances.display(), values.display()
    )]
    StaleDistances {
        /// The distance table.
        distances: PathBuf,
        /// The value table beside it.
        values: PathBuf,
    },
    /// A stored distance that its moves do not give.
    #[error(
        "{}: block {block}, rank {rank} ({position}) holds distance {stored} but its moves give {expected}",
        path.display()
    )]
    WrongDistance {
        /// The distance table.
        path: PathBuf,
        /// The block holding the position.
        block: u64,
        /// The position's rank in its layer.
        rank: u64,
        /// The position, as its game writes it.
        position: String,
        /// The distance in the table.
        stored: i16,
        /// The distance its moves give.
        expected: u16,
    },
    /// Stored values that the engine, solving the layer again to add its
    /// distance table, does not find.
    #[error(
        "{}: rank {rank} holds {stored}, but solving the layer again gives {expected}: the table is damaged or from another version; delete it and rebuild",
        path.display()
    )]
    ValuesDiffer {
        /// The value table.
        path: PathBuf,
        /// The first rank that differs.
        rank: u64,
        /// Its stored value.
        stored: String,
        /// The value the engine finds.
        expected: String,
    },
    /// A distance past what a distance table stores.
    #[error(
        "a position is {0} plies from what secures its value; a distance table stores at most 32767"
    )]
    TooFar(u16),
    /// A distance too long for a win/draw/loss table.
    #[error("a position is {0} plies from the end; the wdl table stores at most 32766")]
    TooDeep(u16),
    /// An En Gehé board of another width than the tables.
    #[error("the board has width {width}, the tables width {table_width}")]
    WrongWidth {
        /// The board's width.
        width: usize,
        /// The tables' width.
        table_width: usize,
    },
    /// An Omweso board of another width or seed count than the table.
    #[error(
        "the position has width {width} and {seeds} seeds; the table is for width {table_width} and {table_seeds} seeds"
    )]
    WrongLayer {
        /// The board's width.
        width: usize,
        /// The board's seeds.
        seeds: usize,
        /// The table's width.
        table_width: usize,
        /// The table's seeds.
        table_seeds: usize,
    },
}

impl ExplicitTbError {
    /// Why it failed.
    pub fn cause(&self) -> Cause<'_> {
        match self {
            ExplicitTbError::Missing(missing) => Cause::MissingTable(missing),
            ExplicitTbError::Table(e) => e.error.cause(),
            ExplicitTbError::File(e) => e.error.cause(),
            ExplicitTbError::Index(_)
            | ExplicitTbError::Engehe(_)
            | ExplicitTbError::Omweso(_)
            | ExplicitTbError::TooManySeeds { .. }
            | ExplicitTbError::WrongWidth { .. }
            | ExplicitTbError::WrongLayer { .. } => Cause::BadInput,
            ExplicitTbError::StaleDistances { .. }
            | ExplicitTbError::WrongDistance { .. }
            | ExplicitTbError::ValuesDiffer { .. } => Cause::DamagedTable,
            ExplicitTbError::Engine(_)
            | ExplicitTbError::TooDeep(_)
            | ExplicitTbError::TooFar(_) => Cause::Other,
        }
    }
}
