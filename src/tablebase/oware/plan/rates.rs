//! The rates a projection starts from: measured by a short calibration
//! build on this machine ([`calibrate`]), or recorded by earlier builds in
//! the tablebase folder ([`RecordedRates`]), and how they scale with
//! threads ([`SerialShares`]) and fall with the layer size.

use crate::error::PathContext;
use crate::games::oware::Ruleset;
use crate::index::oware as index;
use crate::solve::oware::Engine;
use crate::solve::phases;
use crate::tablebase::oware::budget::plan_engine;
use crate::tablebase::oware::{
    BuildOptions, BuildTime, FIXED_BYTES, TablebaseError, build, ruleset_dir, table_path,
};
use crate::tablebase::{FileError, Quiet};

/// How the rate of the engines falls with the layer size `P` where no
/// build recorded it: as `P^−RATE_EXPONENT`, up to [`RATE_FALL_ENDS`]:
/// random accesses miss the caches more as the layer grows. The slope
/// (log–log) of the layer rates `scripts/derive/bench-oware.sh 26` records in its
/// folder's `build-times.tsv`, from layer 20 on; `plan` fits the same to a
/// folder's own records ([`RecordedRates`]).
pub(super) const RATE_EXPONENT: f64 = 0.23;
/// The layer beyond whose size the rate no longer falls: there every random
/// access of the propagation already misses the caches. The first layer of
/// the flat run of rates in the `build-times.tsv` of
/// `scripts/derive/bench-oware.sh 32` (in memory).
pub(super) const RATE_FALL_ENDS: usize = 27;
/// How many of the largest recorded layers the fall beyond them is fitted
/// to: the fall steepens with the size, so the largest say most.
const FITTED_LAYERS: usize = 4;
/// Smallest layer whose recorded rate is fitted (smaller layers are
/// dominated by fixed costs).
const FIT_MIN_POSITIONS: u64 = 100_000_000;

/// The rates measured by [`calibrate`]: positions per second of its
/// layer with its threads on a machine of their own (from CPU time).
#[derive(Clone, Copy, Debug)]
pub struct Calibration {
    /// The layer built.
    pub seeds: usize,
    /// Worker threads of the calibration builds.
    pub threads: usize,
    /// Positions per second of that layer in memory.
    pub in_memory: f64,
    /// Positions per second of that layer out of core.
    pub out_of_core: f64,
    /// Positions per second of that layer in the compact engine.
    pub compact: f64,
    /// Each engine's serial share, by which its rate scales with threads
    /// (here and in the projection).
    pub serial: SerialShares,
}

/// Each engine's share of a layer's one-thread time that more threads do
/// not shorten (Amdahl's law).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SerialShares {
    /// The in-memory engine's.
    pub in_memory: f64,
    /// The out-of-core engine's.
    pub out_of_core: f64,
    /// The compact engine's.
    pub compact: f64,
    /// The layer whose build in this folder measured each share (in
    /// memory, out of core, compact; [`BuildTime::serial_share`]); `None`:
    /// the engine's own ([`Engine::serial_share`], fitted to layer times
    /// on 16 cores).
    pub measured_on: [Option<usize>; 3],
}

impl SerialShares {
    /// The engines' own ([`Engine::serial_share`]).
    pub fn fitted() -> SerialShares {
        SerialShares::recorded(&[])
    }

    /// Each engine's share as the largest layer it built in one process
    /// recorded it (`times`: a folder's
    /// [`build_times`](crate::tablebase::oware::build_times)),
    /// else the engine's own. Shares of larger layers say more: a small
    /// layer's fixed costs (files opened and synced per threshold) weigh
    /// more in it.
    pub fn recorded(times: &[BuildTime]) -> SerialShares {
        let share = |engine: Engine| {
            let largest = (times.iter())
                .filter(|t| t.engine == engine && t.ranks == 1)
                .filter_map(|t| Some((t.seeds, t.serial_share?)))
                .max_by_key(|&(seeds, _)| seeds);
            (
                largest.map_or(engine.serial_share(), |l| l.1),
                largest.map(|l| l.0),
            )
        };
        let [(in_memory, a), (out_of_core, b), (compact, c)] = Engine::ALL.map(share);
        SerialShares {
            in_memory,
            out_of_core,
            compact,
            measured_on: [a, b, c],
        }
    }

    /// The share of `engine`.
    fn of(&self, engine: Engine) -> f64 {
        match engine {
            Engine::InMemory => self.in_memory,
            Engine::OutOfCore => self.out_of_core,
            Engine::Compact => self.compact,
        }
    }

    /// How many times as fast as one thread `threads` threads run `engine`.
    pub fn speedup(&self, engine: Engine, threads: usize) -> f64 {
        phases::speedup(self.of(engine), threads)
    }
}

/// Builds layers `0..=seeds` in a temporary folder, the last one
/// [`CALIBRATION_RUNS`] times with each engine (in memory, then out of
/// core and compact with its lower layers read from their tables), and
/// measures the rates: the median run's CPU time is one thread's time,
/// which the engine's speed-up by `serial` takes to the pool's threads, so
/// that other processes' load changes little (their wall times would vary
/// with it). Runs on the current rayon pool.
pub fn calibrate(
    rules: Ruleset,
    seeds: usize,
    serial: SerialShares,
) -> Result<Calibration, TablebaseError> {
    let dir = std::env::temp_dir().join(format!("mancala-tb-calibrate-{}", std::process::id()));
    // Values only: the rates are the value engines'; the distance passes
    // are projected from them (`DISTANCE_SHARE`).
    let values_only = |max_seeds, memory| BuildOptions {
        distances: false,
        ..BuildOptions::new(max_seeds, memory)
    };
    let result = (|| {
        let roomy = 16 << 30;
        build(&dir, rules, &values_only(seeds - 1, roomy), &Quiet)?;
        // The rate with the pool's threads on a machine of its own: the
        // median CPU time of the runs taken for one thread's time, scaled
        // by the engine's speed-up.
        let threads = rayon::current_num_threads();
        let time = |options: BuildOptions| -> Result<f64, TablebaseError> {
            let engine = options.engine.unwrap_or(Engine::InMemory);
            let mut runs = Vec::new();
            for _ in 0..CALIBRATION_RUNS {
                let start = phases::cpu_seconds();
                build(&dir, rules, &options, &Quiet)?;
                runs.push(phases::cpu_seconds() - start);
                let table = table_path(&ruleset_dir(&dir, rules), seeds);
                std::fs::remove_file(&table)
                    .map_err(FileError::Io)
                    .at(&table)?;
            }
            runs.sort_by(f64::total_cmp);
            let one_thread = index::layer_size(seeds) as f64 / runs[runs.len() / 2];
            Ok(one_thread * serial.speedup(engine, threads))
        };
        let in_memory = time(BuildOptions {
            engine: Some(Engine::InMemory),
            ..values_only(seeds, roomy)
        })?;
        // The least budget of the out-of-core engine, with room for parts.
        let tight = |engine| BuildOptions {
            engine: Some(engine),
            ..values_only(seeds, tight_budget(engine, seeds))
        };
        let out_of_core = time(tight(Engine::OutOfCore))?;
        let compact = time(tight(Engine::Compact))?;
        Ok(Calibration {
            seeds,
            threads,
            in_memory,
            out_of_core,
            compact,
            serial,
        })
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// Timed builds of each engine in a calibration: the median is taken.
pub const CALIBRATION_RUNS: usize = 3;

/// A budget that builds layer `seeds` with `engine` in parts of a few
/// hundred thousand positions, with little room for lower layers.
fn tight_budget(engine: Engine, seeds: usize) -> u64 {
    let positions = index::layer_size(seeds);
    let mut budget = FIXED_BYTES + (8 << 20);
    while let Err(TablebaseError::TooLittleMemory { minimum, .. }) =
        plan_engine(engine, seeds, positions, budget)
    {
        budget = minimum + (8 << 20);
    }
    budget
}

/// In-memory rates that earlier builds on one node recorded
/// (`build-times.tsv`), and how they fall beyond the largest.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedRates {
    /// Per recorded layer: its positions and its positions per second per
    /// thread, by seeds.
    layers: Vec<(usize, u64, f64)>,
    /// `b` of the fall `P^−b` beyond the largest recorded layer: the
    /// least-squares slope (log–log) of the `FITTED_LAYERS` largest
    /// layers of at least 100 M positions, `RATE_EXPONENT` if fewer than
    /// two; at least 0.
    pub exponent: f64,
    /// Whether `exponent` was fitted.
    pub fitted: bool,
}

impl RecordedRates {
    /// The rates of the layers `times` built in memory on one node, or
    /// `None` if there are none.
    pub fn new(times: &[BuildTime]) -> Option<RecordedRates> {
        let mut layers: Vec<(usize, u64, f64)> = times
            .iter()
            .filter(|t| t.engine == Engine::InMemory && t.ranks == 1 && t.seconds > 0.0)
            .map(|t| {
                let serial = t.serial_share.unwrap_or(Engine::InMemory.serial_share());
                let rate = t.positions as f64 / t.seconds / phases::speedup(serial, t.threads);
                (t.seeds, t.positions, rate)
            })
            .collect();
        layers.sort_by_key(|l| l.0);
        let fit: Vec<(f64, f64)> = (layers.iter().rev())
            .filter(|l| l.1 >= FIT_MIN_POSITIONS)
            .take(FITTED_LAYERS)
            .map(|&(_, p, rate)| ((p as f64).ln(), rate.ln()))
            .collect();
        let fitted = fit.len() >= 2;
        let exponent = match fitted {
            true => (-slope(&fit)).max(0.0),
            false => RATE_EXPONENT,
        };
        (!layers.is_empty()).then_some(RecordedRates {
            layers,
            exponent,
            fitted,
        })
    }

    /// The recorded layers, by seeds.
    pub fn seeds(&self) -> Vec<usize> {
        self.layers.iter().map(|l| l.0).collect()
    }

    /// Positions per second of layer `seeds` in memory on one thread (the
    /// recorded rate over its threads' speed-up, by the serial share the
    /// build measured, else the engine's own): as
    /// recorded, or beyond the largest recorded layer its rate falling as
    /// `P^−exponent`; `None` below it where nothing was recorded.
    pub(super) fn rate(&self, seeds: usize) -> Option<f64> {
        if let Some(&(_, _, rate)) = self.layers.iter().find(|l| l.0 == seeds) {
            return Some(rate);
        }
        let &(top, positions, rate) = self.layers.last()?;
        (seeds > top).then(|| rate * fall(positions, index::layer_size(seeds), self.exponent))
    }
}

/// The share of the rate measured on a layer of `from` positions that a
/// larger layer of `to` keeps: `(to / from)^−exponent`, the sizes taken at
/// most [`RATE_FALL_ENDS`]'s.
pub(super) fn fall(from: u64, to: u64, exponent: f64) -> f64 {
    let end = index::layer_size(RATE_FALL_ENDS);
    let (from, to) = (from.clamp(1, end), to.clamp(1, end));
    (to.max(from) as f64 / from as f64).powf(-exponent)
}

/// The least-squares slope of `y` on `x` (at least two distinct `x`).
fn slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    let (mx, my) = points
        .iter()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + x / n, b + y / n));
    let (sxy, sxx) = points.iter().fold((0.0, 0.0), |(a, b), (x, y)| {
        (a + (x - mx) * (y - my), b + (x - mx) * (x - mx))
    });
    sxy / sxx
}
