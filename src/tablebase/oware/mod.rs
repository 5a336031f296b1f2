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
mod builder;
mod distance;
mod error;
mod layers;
pub mod plan;
mod probe;
mod published;
mod resolve;
mod verify;

use std::path::{Path, PathBuf};

pub use batch::{Detail, Probed};
pub use budget::{FIXED_BYTES, LayerPlan, least_bytes, plan_engine, plan_layer};
pub use builder::{BuildOptions, CHECKPOINT_EVERY, OwareObserver, build, build_on, scratch_dir};
pub use distance::{DistanceReport, distance_path};
pub use error::TablebaseError;
pub use probe::{MoveValue, OwareTablebase, PvEnd, PvStep, best_move, distance_by_moves};
pub use published::{export, import};
pub use verify::{LayerChecked, VerifyOptions, decode_layers, verify};

use super::FileError;
use crate::error::{MissingTable, WithPath};
use crate::games::oware::{self, Ruleset};
use crate::index::oware as index;
pub use crate::solve::oware::{Engine, OutOfMemory};
pub use crate::solve::phases::{Phase, PhaseTime};
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
