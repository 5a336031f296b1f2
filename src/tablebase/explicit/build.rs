//! Building explicit-engine tables: each missing layer from the bottom up, solved by
//! the explicit engine over the finished layers below it, with its distance
//! table (score tables) unless asked not to. A layer whose values are built
//! but whose distance table is missing is solved again for its distances: the
//! values found must be the stored ones, which are not rewritten.

use std::ops::{ControlFlow, RangeInclusive};
use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;

use super::layer_file::{LayerFile, file_bytes};
use super::{ExplicitGame, ExplicitTbError, Loaded, Step, seeds, too_many, walk_positions};
use crate::error::WithPath;
use crate::index::stars_bars::StarsBars;
use crate::solve::explicit::{Layer, MoveLists};
use crate::tablebase::FileError;
use crate::tablebase::report::outcomes_by;
use crate::tablebase::store::Stored;
use crate::tablebase::{BuildObserver, LayerReport};

/// Whether a build writes the distance tables of score layers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DistanceTables {
    /// Writes them beside the values, and adds those missing beside layers
    /// already built (the default).
    #[default]
    Build,
    /// Writes the values only; existing distance tables are left as they are.
    Skip,
}

/// What a build did.
#[derive(Clone, Debug, Default)]
pub struct Built {
    /// Every layer of the build, in order.
    pub layers: Vec<LayerReport>,
    /// Every layer of the build that has a distance table, in order.
    pub distances: Vec<ExplicitDistanceReport>,
}

/// One layer's distance table after a build.
#[derive(Clone, Debug)]
pub struct ExplicitDistanceReport {
    /// The layer.
    pub seeds: usize,
    /// Its positions.
    pub positions: u64,
    /// The largest distance of the layer, in moves.
    pub longest: u16,
    /// Bytes of the distance table file.
    pub bytes: u64,
    /// Seconds this build spent on it: writing it (built with the values,
    /// which give the distances at no cost) or solving the layer again
    /// (added beside values built before); `None` if it was already there.
    pub seconds: Option<f64>,
}

/// Builds the layers `layers` of `game` under `dir`, skipping layers already
/// built. A move that leaves its layer must land in one of `layers` below
/// it. Uses the current rayon pool.
pub fn build<G: ExplicitGame>(
    dir: &Path,
    game: G,
    layers: RangeInclusive<usize>,
    distances: DistanceTables,
    observer: &dyn BuildObserver,
) -> Result<Built, ExplicitTbError> {
    game.check_width()?;
    if *layers.end() > G::MAX_SEEDS {
        return Err(too_many::<G>(*layers.end()));
    }
    let mut lower = Loaded::default();
    let mut built = Built::default();
    for seeds in layers {
        let file = game.file(dir, seeds)?;
        let want_distances = distances == DistanceTables::Build && file.distance_path.is_some();
        let layer = build_layer(game, seeds, &file, &lower, want_distances, observer)?;
        let (longest, distance_seconds) = (layer.longest, layer.distance_seconds);
        if let Some(report) =
            distance_report(&file, &layer.table, seeds, longest, distance_seconds)?
        {
            built.distances.push(report);
        }
        let report = LayerReport {
            seeds,
            positions: file.index.size(),
            outcomes: Some(outcomes_by(&layer.values, |v| {
                G::rank(game.decode(v)).signum() as i8
            })),
            seconds: layer.seconds,
            bytes: file.bytes()?,
        };
        observer.layer_finished(&report);
        built.layers.push(report);
        lower.push(seeds, file.index, layer.values);
    }
    Ok(built)
}

/// One layer's tables, as [`build_layer`] leaves them.
struct LayerTables {
    table: Stored,
    values: Vec<i16>,
    /// Seconds its values took; `None` if they were built before.
    seconds: Option<f64>,
    /// The greatest distance and the seconds writing the distances took,
    /// where they were found.
    longest: Option<i16>,
    distance_seconds: Option<f64>,
}

/// Builds what layer `seeds` misses over the `lower` layers: its values
/// (with their distances if `want_distances`), or the distances beside
/// values built before, which must be the values solved again.
fn build_layer<G: ExplicitGame>(
    game: G,
    seeds: usize,
    file: &LayerFile,
    lower: &Loaded,
    want_distances: bool,
    observer: &dyn BuildObserver,
) -> Result<LayerTables, ExplicitTbError> {
    let solve = |distances: bool| {
        observer.layer_started(seeds, file.index.size());
        let layer = EngineLayer {
            game,
            seeds,
            index: file.index.clone(),
            lower,
        };
        game.solve(&layer, distances, &|steps| observer.advance(steps))
    };
    let mut distance_seconds = None;
    let mut longest = None;
    let (table, values, seconds) = match file.open()? {
        None => {
            // A distance table left from values no longer there.
            if let Some(path) = &file.distance_path {
                remove_stale(path)?;
            }
            let start = Instant::now();
            let solved = solve(want_distances)?;
            file.write(&solved.values)?;
            let seconds = start.elapsed().as_secs_f64();
            let table = file.open_built()?;
            if let Some(distances) = &solved.distances {
                let start = Instant::now();
                file.write_distances(&table, distances)?;
                distance_seconds = Some(start.elapsed().as_secs_f64());
                longest = distances.par_iter().copied().max();
            }
            let values = table.load()?;
            (table, values, Some(seconds))
        }
        Some(table) => {
            let values = table.load()?;
            if want_distances && file.open_distances(&table)?.is_none() {
                let start = Instant::now();
                let solved = solve(true)?;
                if let Some(rank) = solved.values.first_difference(&values) {
                    return Err(values_differ(&game, &file.path, &solved, &values, rank));
                }
                let distances = solved.distances.expect("asked for distances");
                file.write_distances(&table, &distances)?;
                distance_seconds = Some(start.elapsed().as_secs_f64());
                longest = distances.par_iter().copied().max();
            }
            (table, values, None)
        }
    };
    Ok(LayerTables {
        table,
        values,
        seconds,
        longest,
        distance_seconds,
    })
}

/// Removes the file at `path` if there is one.
fn remove_stale(path: &Path) -> Result<(), ExplicitTbError> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(WithPath::new(path, FileError::Io(e)).into())
        }
        _ => Ok(()),
    }
}

/// The report of the layer's distance table, if it has one; its longest
/// distance read from it unless `longest` is known.
fn distance_report(
    file: &super::LayerFile,
    values: &Stored,
    seeds: usize,
    longest: Option<i16>,
    seconds: Option<f64>,
) -> Result<Option<ExplicitDistanceReport>, ExplicitTbError> {
    let Some(table) = file.open_distances(values)? else {
        return Ok(None);
    };
    let longest = match longest {
        Some(d) => d,
        None => table.load()?.par_iter().copied().max().unwrap_or(0),
    };
    Ok(Some(ExplicitDistanceReport {
        seeds,
        positions: table.len(),
        longest: longest.max(0) as u16,
        bytes: file_bytes(table.path())?,
        seconds,
    }))
}

/// The error of stored values that solving the layer again does not give.
fn values_differ<G: ExplicitGame>(
    game: &G,
    path: &Path,
    solved: &super::SolvedLayer,
    stored: &[i16],
    rank: usize,
) -> ExplicitTbError {
    let found = match &solved.values {
        super::StoredValues::I8(v) => v.get(rank).map(|&x| i16::from(x)),
        super::StoredValues::I16(v) => v.get(rank).copied(),
    };
    let show = |v: Option<i16>| v.map_or("nothing".into(), |v| game.decode(v).to_string());
    ExplicitTbError::ValuesDiffer {
        path: path.to_path_buf(),
        rank: rank as u64,
        stored: show(stored.get(rank).copied()),
        expected: show(found),
    }
}

/// One layer as the explicit engine sees it: positions by rank, each with
/// its exits (moves whose value is known) and its children in the layer.
struct EngineLayer<'a, G> {
    game: G,
    seeds: usize,
    index: StarsBars,
    /// The finished layers below.
    lower: &'a Loaded,
}

impl<G: ExplicitGame> Layer for EngineLayer<'_, G> {
    fn size(&self) -> u64 {
        self.index.size()
    }

    fn moves(&self, first: u64, count: usize, out: &mut MoveLists) {
        let game = &self.game;
        let mut moves = G::MoveGen::default();
        walk_positions::<()>(&self.index, first..first + count as u64, |_, counts| {
            out.start();
            let pos = game.position(counts);
            let mut any = false;
            game.steps(&pos, &mut moves, |step| {
                any = true;
                match step {
                    Step::Over(value) => out.exit(game.engine_value(value)),
                    Step::Child(child) if seeds::<G>(&child) == self.seeds => {
                        out.child(self.index.rank(G::counts(&child)))
                    }
                    Step::Child(child) => {
                        let value = game.back(&pos, &child, self.lower.value(game, &child));
                        out.exit(game.engine_value(value))
                    }
                }
            });
            if !any {
                out.end(game.engine_value(game.no_move(&pos)));
            }
            ControlFlow::Continue(())
        });
    }
}
