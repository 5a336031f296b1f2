//! The error of building, probing and checking Oware tables.

use std::path::{Path, PathBuf};

use crate::error::{Cause, MissingTable, WithPath};
use crate::games::oware::{MAX_SEEDS, Ruleset};
use crate::memory::human_bytes_apart;
use crate::solve::oware::{Engine, EngineError, OutOfMemory};
use crate::table::TableError;
use crate::table::raw::RawError;
use crate::tablebase::FileError;

/// Errors of building, probing and checking, with the file or command that
/// helps.
#[derive(Debug, thiserror::Error)]
pub enum TablebaseError {
    #[error(transparent)]
    /// A layer that is not built yet.
    Missing(#[from] MissingTable),
    #[error(transparent)]
    /// A published `scores.N` file that cannot be read.
    Raw(#[from] WithPath<RawError>),
    /// A damaged or foreign table file.
    // Not a `source`: the message already says it, with the remedy.
    #[error(
        "{} (delete the file and rebuild the layer with `mancala-tb build {}`)",
        .0,
        rebuild_args(&.0.path)
    )]
    Table(WithPath<TableError>),
    /// A table that could not be read or written for a reason outside the
    /// file (a full disk, a permission, another rank of the build that
    /// failed): no remedy is offered, and the reason is the error's source.
    #[error(transparent)]
    TableIo(WithPath<TableError>),
    /// Something wrong at one table, folder or scratch file.
    #[error(transparent)]
    File(#[from] WithPath<FileError>),
    #[error(transparent)]
    /// The system refused the memory of a layer.
    Memory(#[from] OutOfMemory),
    #[error(
        "layer {seeds} needs at least {} of memory ({engine}); the budget is {} \
         (raise --memory)",
        human_bytes_apart(*minimum, *budget)[0],
        human_bytes_apart(*minimum, *budget)[1]
    )]
    /// A memory budget below what a layer needs in the engine that needs
    /// least (or in the engine asked for).
    TooLittleMemory {
        /// The layer.
        seeds: usize,
        /// The budget in bytes.
        budget: u64,
        /// The least it needs, in bytes.
        minimum: u64,
        /// The engine that would need that much.
        engine: Engine,
    },
    #[error(
        "checking layer {seeds} needs at least {} of memory (its values, a byte a position, \
         and a part of its positions); the budget is {} (raise --memory)",
        human_bytes_apart(*minimum, *budget)[0],
        human_bytes_apart(*minimum, *budget)[1]
    )]
    /// A memory budget below what checking a layer needs.
    TooLittleMemoryToCheck {
        /// The layer.
        seeds: usize,
        /// The budget in bytes.
        budget: u64,
        /// The least it needs, in bytes.
        minimum: u64,
    },
    /// A layer whose table, scratch files and checkpoint would not fit the
    /// free disk space.
    #[error(
        "layer {seeds} needs {} of disk in {} (its table, its raw copy, scratch files and checkpoint); {} \
         are free (free some space or build in another --dir)",
        human_bytes_apart(*needed, *free)[0],
        folder.display(),
        human_bytes_apart(*needed, *free)[1]
    )]
    DiskTooSmall {
        /// The layer.
        seeds: usize,
        /// Bytes it needs.
        needed: u64,
        /// Bytes free.
        free: u64,
        /// The ruleset folder.
        folder: PathBuf,
    },
    /// A projected layer whose files would not fit the disk `plan` was
    /// given.
    #[error(
        "layer {seeds} needs at least {} of disk ({}); --disk is {} ({})",
        human_bytes_apart(*needed, *disk)[0],
        match shared {
            false => "the tables below it, raw copies of the lower layers read from files, its own \
                      table, raw copy, scratch and checkpoint, and a part's deferred lookups",
            true => "on the shared folder: the tables below it, and its ranks' checkpoints twice \
                     or its tables, their part files and a checkpoint",
        },
        human_bytes_apart(*needed, *disk)[1],
        match shared {
            false => "raise --disk, or --memory so that fewer lower layers live in files",
            true => "raise --disk: the shared folder holds all of it",
        }
    )]
    PlanDiskTooSmall {
        /// The layer.
        seeds: usize,
        /// Bytes it needs.
        needed: u64,
        /// The disk given.
        disk: u64,
        /// Whether on the shared folder of a build on several nodes.
        shared: bool,
    },
    /// A distributed build whose share of a layer does not fit a rank's
    /// memory budget.
    #[error(
        "layer {seeds} split over {ranks} ranks needs {} of memory per rank; the budget is {} \
         (raise --memory or run more ranks: the shares of a distributed build are built in memory)",
        human_bytes_apart(*needed, *budget)[0],
        human_bytes_apart(*needed, *budget)[1]
    )]
    ShareTooLarge {
        /// The layer.
        seeds: usize,
        /// Processes sharing it.
        ranks: usize,
        /// The budget per rank in bytes.
        budget: u64,
        /// Bytes a rank's share needs.
        needed: u64,
    },
    /// A rank of a distributed build sees another build folder than rank 0
    /// (not the same shared folder, or other files in it).
    #[error(
        "rank {rank} does not see the build folder {} as rank 0 does ({why}): DIR must be one \
         folder that every rank sees, on a file system they share",
        folder.display()
    )]
    FolderNotShared {
        /// The ruleset folder.
        folder: PathBuf,
        /// The first rank that sees it otherwise.
        rank: usize,
        /// What differs.
        why: &'static str,
    },
    /// The published format asked of a distributed build, whose ranks
    /// never hold a whole layer.
    #[error(
        "a distributed build writes no published `scores.N` files (no rank holds a whole \
         layer); write them after the build with `mancala-tb export oware`"
    )]
    PublishedInDistributed,
    #[error("Oware has {MAX_SEEDS} seeds; layers above that do not exist (asked for {0})")]
    /// A layer above 48 seeds.
    TooManySeeds(usize),
    /// A distance table built from other values than its layer's value
    /// table.
    #[error(
        "{} was built from other values than {} (`mancala-tb build {build_args}` finds the \
         distances again)",
        distances.display(),
        values.display()
    )]
    DistancesOfOtherValues {
        /// The distance table.
        distances: PathBuf,
        /// The value table of its layer.
        values: PathBuf,
        /// The arguments of `mancala-tb build` that rebuild it.
        build_args: String,
    },
    /// A value table without the capture marks that distances are checked
    /// with (one imported from the published format) beside a distance
    /// table.
    #[error(
        "{}: an imported table has no capture marks, which checking its distances needs \
         (`mancala-tb build {build_args}` adds them)",
        path.display()
    )]
    NoCaptureMarks {
        /// The value table.
        path: PathBuf,
        /// The arguments of `mancala-tb build` that add them.
        build_args: String,
    },
    /// The distance pass found the values of a layer inconsistent, or a
    /// line too long to store.
    #[error("{}: {error}", path.display())]
    Distance {
        /// The layer's value table.
        path: PathBuf,
        /// What the pass found.
        error: crate::solve::oware::distance::DistanceError,
    },
}

impl TablebaseError {
    /// Why it failed.
    pub fn cause(&self) -> Cause<'_> {
        match self {
            TablebaseError::Missing(missing) => Cause::MissingTable(missing),
            TablebaseError::Raw(e) => e.error.cause(),
            TablebaseError::Table(e) | TablebaseError::TableIo(e) => e.error.cause(),
            TablebaseError::File(e) => e.error.cause(),
            TablebaseError::TooManySeeds(_)
            | TablebaseError::TooLittleMemory { .. }
            | TablebaseError::TooLittleMemoryToCheck { .. }
            | TablebaseError::ShareTooLarge { .. }
            | TablebaseError::PublishedInDistributed
            | TablebaseError::FolderNotShared { .. }
            | TablebaseError::PlanDiskTooSmall { .. }
            | TablebaseError::NoCaptureMarks { .. } => Cause::BadInput,
            TablebaseError::DistancesOfOtherValues { .. } | TablebaseError::Distance { .. } => {
                Cause::DamagedTable
            }
            TablebaseError::Memory(_) | TablebaseError::DiskTooSmall { .. } => Cause::Other,
        }
    }
}

impl From<WithPath<TableError>> for TablebaseError {
    fn from(e: WithPath<TableError>) -> Self {
        match e.error.cause() {
            Cause::DamagedTable => TablebaseError::Table(e),
            _ => TablebaseError::TableIo(e),
        }
    }
}

/// A scratch file that failed (the engines' and the deferred lookups').
impl From<WithPath<std::io::Error>> for TablebaseError {
    fn from(e: WithPath<std::io::Error>) -> Self {
        WithPath::new(e.path, FileError::Io(e.error)).into()
    }
}

impl From<EngineError<TablebaseError>> for TablebaseError {
    fn from(e: EngineError<TablebaseError>) -> Self {
        match e {
            EngineError::Memory(e) => e.into(),
            EngineError::Scratch(e) => e.into(),
            EngineError::Lower(e) => e,
        }
    }
}

/// The `mancala-tb build` arguments that rebuild the layer of the table at
/// `path` (`DIR/oware-RULES/scores.N.mtb` or `distance.N.mtb`), or `oware`
/// alone for a file elsewhere.
fn rebuild_args(path: &Path) -> String {
    let layer = || {
        let name = path.file_name()?.to_str()?;
        let seeds = name.split('.').nth(1)?.parse::<usize>().ok()?;
        let folder = path.parent()?;
        let rules = folder.file_name()?.to_str()?.strip_prefix("oware-")?;
        let rules: Ruleset = rules.parse().ok()?;
        Some(super::build_args(folder.parent()?, rules, seeds))
    };
    layer().unwrap_or_else(|| "oware".into())
}
