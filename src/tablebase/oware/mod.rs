//! Oware tablebases on disk: building a folder of layers, probing it,
//! checking it, and the published `scores.N` format.
//!
//! A tablebase folder holds one sub-folder per ruleset (`oware-awari`,
//! `oware-abapa`) with one compressed table per layer, `scores.N.mtb`. A
//! position whose value is that of its best capture (or of the end of the
//! game) is stored as [`CAPTURE_DECIDES`](crate::table::CAPTURE_DECIDES) and
//! recomputed from the lower layers when read: about a third of all positions, and long runs of one symbol
//! compress far better than their values.

mod batch;
mod budget;
mod build;
mod distance;
mod layers;
pub mod plan;
mod probe;
mod published;
mod resolve;
mod verify;

use std::path::{Path, PathBuf};

pub use batch::{Detail, Probed};
pub use budget::{FIXED_BYTES, LayerPlan, least_bytes, plan_engine, plan_layer};
pub use build::{BuildOptions, CHECKPOINT_EVERY, OwareObserver, build, build_on, scratch_dir};
pub use distance::{DistanceReport, distance_path};
pub use probe::{MoveValue, OwareTablebase, PvEnd, PvStep, best_move, distance_by_moves};
pub use published::{export, import};
pub use verify::{LayerChecked, VerifyOptions, decode_layers, verify};

use super::FileError;
use crate::error::{Cause, MissingTable, WithPath};
use crate::games::oware::{self, MAX_SEEDS, Ruleset};
use crate::index::oware as index;
use crate::memory::human_bytes;
pub use crate::solve::oware::Engine;
use crate::solve::oware::EngineError;
pub use crate::solve::phases::{Phase, PhaseTime};
use crate::table::raw::RawError;
use crate::table::{TableError, TableMeta, ValueEncoding};

/// The folder of one ruleset's layers inside a tablebase folder.
pub fn ruleset_dir(dir: &Path, rules: Ruleset) -> PathBuf {
    dir.join(format!("oware-{}", rules.name()))
}

/// The compressed table of a layer inside a ruleset folder.
pub fn table_path(folder: &Path, seeds: usize) -> PathBuf {
    folder.join(format!("scores.{seeds}.mtb"))
}

/// The build times of a ruleset folder: one line per layer built,
/// `seeds positions seconds threads engine ranks serial`, tab-separated, the
/// latest last (`engine` as the progress line prints it: `in memory`, `out
/// of core`; `serial` the build's serial share, `-` if not measured).
pub fn build_times_path(dir: &Path, rules: Ruleset) -> PathBuf {
    ruleset_dir(dir, rules).join("build-times.tsv")
}

/// How long a layer took to build.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BuildTime {
    /// The layer.
    pub seeds: usize,
    /// Its positions.
    pub positions: u64,
    /// Wall time of its build.
    pub seconds: f64,
    /// Worker threads the build used (per rank).
    pub threads: usize,
    /// The engine. Lines written before the engine was recorded (four
    /// fields) read as the default build's: in memory, one rank.
    pub engine: Engine,
    /// Ranks of a distributed build sharing the layer; 1 otherwise.
    pub ranks: usize,
    /// The share of its one-thread time that its threads did not shorten,
    /// as its phases measured it ([`crate::solve::phases::PhaseTime::serial_share`]); `None` on
    /// one thread, distributed, or in lines written before it was
    /// recorded.
    pub serial_share: Option<f64>,
}

fn record_build_time(folder: &Path, time: &BuildTime) -> Result<(), TablebaseError> {
    use std::io::Write;
    let path = folder.join("build-times.tsv");
    let BuildTime {
        seeds,
        positions,
        seconds,
        threads,
        engine,
        ranks,
        serial_share,
    } = time;
    let serial = serial_share.map_or("-".into(), |s| format!("{s:.4}"));
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| {
            writeln!(
                f,
                "{seeds}\t{positions}\t{seconds:.6}\t{threads}\t{engine}\t{ranks}\t{serial}"
            )
        })
        .map_err(|e| WithPath::new(path, FileError::Io(e)).into())
}

/// The latest build time of each layer, by seeds (empty if none were
/// recorded; unreadable lines are skipped).
pub fn build_times(dir: &Path, rules: Ruleset) -> Result<Vec<BuildTime>, TablebaseError> {
    let path = build_times_path(dir, rules);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(WithPath::new(path, FileError::Io(e)).into()),
    };
    let mut latest = std::collections::BTreeMap::new();
    for time in text.lines().filter_map(parse_build_time) {
        latest.insert(time.seeds, time);
    }
    Ok(latest.into_values().collect())
}

/// A line of `build-times.tsv`, if it reads as one.
fn parse_build_time(line: &str) -> Option<BuildTime> {
    let fields: Vec<&str> = line.split('\t').collect();
    let (engine, ranks, serial_share) = match fields[..] {
        [_, _, _, _] => (Engine::InMemory, 1, None),
        [_, _, _, _, engine, ranks] => (engine.parse().ok()?, ranks.parse().ok()?, None),
        [_, _, _, _, engine, ranks, serial] => (
            engine.parse().ok()?,
            ranks.parse().ok()?,
            match serial {
                "-" => None,
                share => Some(share.parse().ok()?),
            },
        ),
        _ => return None,
    };
    Some(BuildTime {
        seeds: fields[0].parse().ok()?,
        positions: fields[1].parse().ok()?,
        seconds: fields[2].parse().ok()?,
        threads: fields[3].parse().ok()?,
        engine,
        ranks,
        serial_share,
    })
}

/// The header fields of a layer's table.
fn table_meta(rules: Ruleset, seeds: usize, encoding: ValueEncoding) -> TableMeta {
    TableMeta {
        game: "oware".into(),
        ruleset: rules.name().into(),
        options: String::new(),
        seeds: seeds as u32,
        board_width: oware::SIDE as u32,
        encoding,
    }
}

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
    #[error("{0} (delete the file and rebuild the layer with `mancala-tb build oware`)")]
    Table(WithPath<TableError>),
    /// A table that could not be read or written for a reason outside the
    /// file (a full disk, a permission, another rank of the build that
    /// failed): no remedy is offered, and the reason is the error's source.
    #[error(transparent)]
    TableIo(WithPath<TableError>),
    /// Something wrong at one table, folder or scratch file.
    #[error(transparent)]
    File(#[from] WithPath<FileError>),
    #[error("cannot get {bytes} bytes of memory for layer {seeds}")]
    /// The system refused the memory of a layer's engine.
    Memory {
        /// The layer.
        seeds: usize,
        /// Bytes asked for.
        bytes: u64,
        /// The system's refusal.
        source: std::io::Error,
    },
    #[error(
        "layer {seeds} needs at least {} of memory ({engine}); the budget is {} \
         (raise --memory)",
        human_bytes(*minimum),
        human_bytes(*budget)
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
        human_bytes(*minimum),
        human_bytes(*budget)
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
        human_bytes(*needed),
        folder.display(),
        human_bytes(*free)
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
        human_bytes(*needed),
        match shared {
            false => "the tables below it, raw copies of the lower layers read from files, its own \
                      table, raw copy, scratch and checkpoint, and a part's deferred lookups",
            true => "on the shared folder: the tables below it, and its ranks' checkpoints twice \
                     or its tables, their part files and a checkpoint",
        },
        human_bytes(*disk),
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
        human_bytes(*needed),
        human_bytes(*budget)
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
            TablebaseError::Memory { .. } | TablebaseError::DiskTooSmall { .. } => Cause::Other,
        }
    }
}

/// The error of a layer that is not built.
fn missing_layer(dir: &Path, rules: Ruleset, seeds: usize) -> TablebaseError {
    TablebaseError::Missing(MissingTable {
        table: format!("layer {seeds} of the {rules} tables"),
        path: table_path(&ruleset_dir(dir, rules), seeds),
        build_args: build_args(dir, rules, seeds),
    })
}

/// The arguments of `mancala-tb build` that build layers `0..=seeds` of
/// `rules` in the tablebase folder `dir`, and add what they lack (their
/// distance tables, the capture marks of imported layers).
pub fn build_args(dir: &Path, rules: Ruleset, seeds: usize) -> String {
    format!(
        "oware --rules {rules} --max-seeds {seeds} --dir {}",
        dir.display()
    )
}

/// The tablebase folder that holds the ruleset folder `folder`.
fn tablebase_dir(folder: &Path) -> &Path {
    folder.parent().unwrap_or(Path::new("."))
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
            EngineError::Memory {
                seeds,
                bytes,
                source,
            } => TablebaseError::Memory {
                seeds,
                bytes,
                source,
            },
            EngineError::Scratch(e) => e.into(),
            EngineError::Lower(e) => e,
        }
    }
}

/// Opens a layer's table and checks that it is the one asked for.
fn open_table(
    folder: &Path,
    rules: Ruleset,
    seeds: usize,
) -> Result<Option<crate::table::Table>, TablebaseError> {
    let path = table_path(folder, seeds);
    let table = match crate::table::Table::open(&path) {
        Ok(table) => table,
        Err(WithPath {
            error: TableError::NotFound,
            ..
        }) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let meta = table.meta();
    let expected = table_meta(rules, seeds, meta.encoding);
    if *meta != expected || table.len() != index::layer_size(seeds) {
        let error = FileError::WrongTable {
            found: format!(
                "{} {} layer {} ({} positions)",
                meta.game,
                meta.ruleset,
                meta.seeds,
                table.len()
            ),
            expected: format!(
                "oware {rules} layer {seeds} ({} positions)",
                index::layer_size(seeds)
            ),
        };
        return Err(WithPath::new(path, error).into());
    }
    Ok(Some(table))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::convert::Infallible;

    use crate::solve::oware as engine;
    use crate::table::CAPTURE_DECIDES;

    /// Lines of every version of `build-times.tsv` read back; others are
    /// skipped.
    #[test]
    fn build_time_lines_of_old_and_new_builds_read_back() {
        let old = parse_build_time("20\t80214915\t19.859189\t2").unwrap();
        assert_eq!((old.seeds, old.positions, old.threads), (20, 80214915, 2));
        assert_eq!((old.engine, old.ranks), (Engine::InMemory, 1));
        let time = BuildTime {
            seeds: 18,
            positions: 33245212,
            seconds: 8.5,
            threads: 4,
            engine: Engine::OutOfCore,
            ranks: 3,
            serial_share: None,
        };
        let measured = BuildTime {
            engine: Engine::Compact,
            ranks: 1,
            serial_share: Some(0.0625),
            ..time
        };
        let six = parse_build_time("18\t33245212\t8.500000\t4\tout of core\t3").unwrap();
        assert_eq!(six, time);
        let folder = tempfile::tempdir().unwrap();
        record_build_time(folder.path(), &time).unwrap();
        record_build_time(folder.path(), &measured).unwrap();
        let text = std::fs::read_to_string(folder.path().join("build-times.tsv")).unwrap();
        assert_eq!(
            text,
            "18\t33245212\t8.500000\t4\tout of core\t3\t-\n\
             18\t33245212\t8.500000\t4\tcompact\t1\t0.0625\n"
        );
        let lines: Vec<_> = text.lines().map(parse_build_time).collect();
        assert_eq!(lines, [Some(time), Some(measured)]);
        for bad in [
            "",
            "20\t1\t2",
            "20\t1\t2\t3\tsideways\t1",
            "x\t1\t2\t3",
            "20\t1\t2\t3\tcompact\t1\tmuch",
        ] {
            assert_eq!(parse_build_time(bad), None, "{bad:?}");
        }
    }

    /// The builder marks exactly the positions whose value is that of their
    /// best exit, as the resolver recomputes it from the lower layers.
    #[test]
    fn built_tables_mark_exactly_the_positions_decided_by_their_exits() {
        // With the distances (found level by level) and without.
        for (rules, distances) in Ruleset::ALL
            .into_iter()
            .flat_map(|r| [(r, false), (r, true)])
        {
            let mut tables = layers::Layers::new(rules);
            for seeds in 0..=9 {
                let config = engine::Config {
                    part: engine::CHUNK,
                    sweep: usize::MAX,
                    scratch: std::env::temp_dir(),
                    checkpoint_every: None,
                    buffer_bytes: 0,
                    distances,
                    phases: Default::default(),
                };
                let solved = engine::solve_layer(rules, seeds, &tables, &config, &|_| {}).unwrap();
                let mut marked = vec![0; solved.values().len()];
                solved.mark(0..marked.len(), CAPTURE_DECIDES, &mut marked);
                let mut board = index::unrank(seeds, 0);
                for (rank, (&value, &stored)) in solved.values().iter().zip(&marked).enumerate() {
                    let Ok(exit) =
                        resolve::best_exit::<Infallible>(&tables, seeds, &board, |_, _, _| {
                            unreachable!("the lower layers are resident")
                        });
                    assert_eq!(
                        stored == CAPTURE_DECIDES,
                        exit == value,
                        "{rules} {seeds} rank {rank} {board:?} distances {distances}"
                    );
                    index::next_indexed(&mut board);
                }
                tables.push(layers::Layer::Resident(solved.into_values()));
            }
        }
    }
}
