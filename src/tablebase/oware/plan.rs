//! Projections of a build: per layer, the engine the memory budget allows,
//! the memory, the disk and the time it takes. Rates come from a short
//! calibration build on this machine and from the layers earlier builds
//! recorded here, scaled by stated assumptions.

use std::ops::Range;

use serde::{Serialize, Serializer};

use super::budget::disk::{
    TABLE_BYTES_PER_POSITION, deferred_bytes, has_raw_copy, layer_bytes, sweep_within,
};
use super::budget::{Budget, LayerPlan, Place, least_bytes, placement, plan_engine};
use super::build::BuildOptions;
use super::{BuildTime, TablebaseError, build, distance, ruleset_dir, table_path};
use crate::error::PathContext;
use crate::games::oware::{MAX_SEEDS, Ruleset};
use crate::index::oware as index;
use crate::solve::oware::DEFERRED_BYTES_PER_POSITION;
use crate::solve::oware::Engine;
use crate::solve::phases;
use crate::tablebase::{FileError, Quiet};

/// How the rate of the engines falls with the layer size `P` where no
/// build recorded it: as `P^−RATE_EXPONENT`, up to [`RATE_FALL_ENDS`]:
/// random accesses miss the caches more as the layer grows. The slope
/// (log–log) of the layer rates `scripts/bench-oware.sh 26` records in its
/// folder's `build-times.tsv`, from layer 20 on; `plan` fits the same to a
/// folder's own records ([`RecordedRates`]).
const RATE_EXPONENT: f64 = 0.23;
/// The layer beyond whose size the rate no longer falls: there every random
/// access of the propagation already misses the caches. The first layer of
/// the flat run of rates in the `build-times.tsv` of
/// `scripts/bench-oware.sh 32` (in memory).
const RATE_FALL_ENDS: usize = 27;
/// How many of the largest recorded layers the fall beyond them is fitted
/// to: the fall steepens with the size, so the largest say most.
const FITTED_LAYERS: usize = 4;
/// Smallest layer whose recorded rate is fitted (smaller layers are
/// dominated by fixed costs).
const FIT_MIN_POSITIONS: u64 = 100_000_000;
/// Share of a node's rate kept when `K` nodes share a layer (waiting at the
/// end of each round, the table written by one rank): an assumption, near
/// the ratio `scripts/bench-mpi.sh 20 2 1` prints for 2 ranks of 1 thread
/// against 1 process of 2 threads on one machine; many nodes on a real
/// network are not measured.
const NODE_EFFICIENCY: f64 = 0.7;
/// Bytes a distributed build sends per position when every parent update
/// goes to another rank: one 8-byte notice per non-capturing edge walked,
/// about 2.75 edges a position. With [`GATHER_BYTES_PER_POSITION`], R ranks
/// send `2 + 22 × (R − 1) / R`; `scripts/bench-mpi.sh` prints the bytes
/// sent per position at 2 and 3 ranks.
const NOTICE_BYTES_PER_POSITION: f64 = 22.0;
/// Bytes per position of the values gathered for the table (values and
/// marks).
const GATHER_BYTES_PER_POSITION: f64 = 2.0;
/// Seconds per position to decode a stored table block, per thread:
/// `CODINGS=0 cargo bench --bench coding -- DIR 22 26` prints the time to
/// decode every block of those layers (zstd; divide by their positions).
const DECODE_SECONDS_PER_POSITION: f64 = 4e-9;
/// Sequential disk bandwidth per node assumed (a workstation's NVMe disk),
/// for the lower layers streamed and the set-up's deferred lookups.
const DISK_BYTES_PER_SECOND: f64 = 1e9;
/// Network bandwidth per node assumed (10 Gbit/s Ethernet); messages are
/// assumed not to overlap computation.
const NETWORK_BYTES_PER_SECOND: f64 = 1.25e9;

/// The time the in-memory engine adds to find a layer's distances as it
/// builds it (and to write their table), over its build without: the
/// median extra `scripts/bench-distances.sh BIN 20` prints for 0..=20 (for
/// a layer alone, `LOWER=DIR scripts/bench-distances.sh BIN 26`, DIR
/// holding 0..=25).
const LEVELS_SHARE: f64 = 0.3;
/// The distance pass's time over the in-memory value build's of the same
/// layer, threads alike, for the layers the engine cannot find them in:
/// the median ratio of the pass at layer 26 (0..=20 as a whole: 1.2).
const DISTANCE_SHARE: f64 = 1.6;
/// Bytes of a distance table per position: `bench-distances.sh`'s at layer
/// 26 (0.45 for 0..=20 as a whole).
const DISTANCE_TABLE_BYTES_PER_POSITION: f64 = 0.43;

/// Bytes the ranks of a build on `ranks` send each other per position.
fn sent_bytes_per_position(ranks: usize) -> f64 {
    match ranks {
        0 | 1 => 0.0,
        r => GATHER_BYTES_PER_POSITION + NOTICE_BYTES_PER_POSITION * (r - 1) as f64 / r as f64,
    }
}

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
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
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
    /// recorded it (`times`: a folder's [`build_times`](super::build_times)),
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
    pub fn of(&self, engine: Engine) -> f64 {
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
    let mut budget = super::FIXED_BYTES + (8 << 20);
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
    fn rate(&self, seeds: usize) -> Option<f64> {
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
fn fall(from: u64, to: u64, exponent: f64) -> f64 {
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

/// Where the shares come from, in words.
fn shares_origin(serial: &SerialShares) -> String {
    let names = ["in memory", "out of core", "compact"];
    let measured: Vec<String> = (names.iter().zip(serial.measured_on))
        .filter_map(|(name, on)| Some(format!("{name} on layer {}", on?)))
        .collect();
    match measured.len() {
        0 => {
            "the engines' own (fitted to layer times on 16 cores; no build here recorded its share)"
                .into()
        }
        3 => format!("as the builds here measured them ({})", measured.join(", ")),
        _ => format!(
            "as the builds here measured them ({}), the others the engines' own (fitted on 16 cores)",
            measured.join(", ")
        ),
    }
}

/// What the projection assumes.
#[derive(Clone, Debug)]
pub struct Assumptions {
    /// The rates measured here.
    pub calibration: Calibration,
    /// Threads per node of the projected build; rates scale by [`Engine::speedup`].
    pub threads: usize,
    /// Nodes sharing each layer.
    pub nodes: usize,
    /// Memory budget per node.
    pub memory: u64,
    /// Lower layers kept decoded in scratch files per node, read through
    /// the page cache (the build's `lower_cache`).
    pub lower_cache: u64,
    /// In-memory rates recorded here, used over the calibration's where
    /// they reach.
    pub recorded: Option<RecordedRates>,
    /// Disk per node for the tables and the scratch files; `None`: as much
    /// as a layer needs, its deferred lookups swept at once.
    pub disk: Option<u64>,
    /// Whether the build finds the distance tables (`build oware` without
    /// `--no-distances`): those of every layer whose pass fits the memory,
    /// in a build in one process.
    pub distances: bool,
}

/// A projected build, as `plan oware --json` prints it. Fields here and
/// below are in alphabetical order, the order it always printed them in.
#[derive(Clone, Debug, Serialize)]
pub struct Projection {
    /// What the projection assumes.
    pub assumptions: StatedAssumptions,
    /// Disk at the largest, all nodes together.
    pub disk_bytes: u64,
    /// Each layer built, from 0.
    pub layers: Vec<LayerProjection>,
    /// Memory per node at the largest.
    pub peak_memory_bytes: u64,
    /// Positions of all layers.
    pub positions: u64,
    /// Wall time of the whole build.
    pub seconds: f64,
    /// The same with every engine's rate [`RATE_SPREAD`] higher and lower
    /// (the disk and the network as they are).
    pub seconds_spread: [f64; 2],
}

/// How much higher and lower than measured the rates are taken for a
/// projection's spread (`seconds_spread`): a calibration on a loaded
/// machine, or a machine unlike the one projected, is off by about this
/// much.
pub const RATE_SPREAD: f64 = 0.15;

/// One layer of a projection.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct LayerProjection {
    /// Disk in use at the end of the layer's build, all nodes together:
    /// the tables so far plus the layer's scratch.
    pub disk_bytes: u64,
    /// Wall time the layer's distances take (in `seconds` too): what the
    /// in-memory engine adds to find them as it builds the layer, or the
    /// pass over the finished layer; `None` where the build finds no
    /// distance table (not asked, neither fits the memory, or a
    /// distributed build).
    pub distance_seconds: Option<f64>,
    /// Whether the in-memory engine finds the distances as it builds the
    /// layer (else a pass does, if any).
    pub distances_while_building: bool,
    /// The least memory per node its engine accepts, whatever the threads
    /// (its arrays, its fixed buffers, a part of one chunk and the
    /// reserve): the buffers that exist per thread shrink to fit it.
    pub least_memory_bytes: u64,
    /// Peak memory per node (the engine; lower layers are read from disk).
    pub memory_bytes: u64,
    /// The engine the memory budget allows (`in memory`, `out of core`).
    #[serde(rename = "mode", serialize_with = "as_text")]
    pub engine: Engine,
    /// Its positions.
    pub positions: u64,
    /// Wall time of the layer's build.
    pub seconds: f64,
    /// The layer.
    pub seeds: usize,
    /// Rounds in which its set-up sweeps the layer, deferring its lookups
    /// into the lower layers read in order (0 if none is).
    pub sweeps: u64,
}

/// [`Assumptions`] with the constants of this module, and in words.
#[derive(Clone, Debug, Serialize)]
pub struct StatedAssumptions {
    /// [`Calibration::out_of_core`].
    pub out_of_core_rate: f64,
    /// [`Calibration::compact`].
    pub compact_rate: f64,
    /// [`Calibration::seeds`].
    pub calibration_seeds: usize,
    /// [`Calibration::threads`].
    pub calibration_threads: usize,
    /// `DECODE_SECONDS_PER_POSITION`.
    pub decode_seconds_per_position: f64,
    /// The set-up's deferred bytes per position (`DEFERRED_BYTES_PER_POSITION`).
    pub deferred_bytes_per_position: f64,
    /// `DISK_BYTES_PER_SECOND`.
    pub disk_bytes_per_second: f64,
    /// [`Assumptions::disk`].
    pub disk_limit_bytes: Option<u64>,
    /// [`Calibration::in_memory`].
    pub in_memory_rate: f64,
    /// [`Assumptions::lower_cache`].
    pub lower_cache_bytes: u64,
    /// [`Assumptions::memory`].
    pub memory_bytes: u64,
    /// `NETWORK_BYTES_PER_SECOND`.
    pub network_bytes_per_second: f64,
    /// `NODE_EFFICIENCY`.
    pub node_efficiency: f64,
    /// [`Assumptions::nodes`].
    pub nodes: usize,
    /// `RATE_EXPONENT`.
    pub rate_exponent: f64,
    /// `RATE_FALL_ENDS`.
    pub rate_fall_ends_seeds: usize,
    /// [`RecordedRates::exponent`], if rates were recorded.
    pub recorded_rate_exponent: Option<f64>,
    /// The layers whose in-memory rates were recorded here.
    pub recorded_seeds: Vec<usize>,
    /// [`Engine::scratch_bytes_per_position`] out of core.
    pub scratch_bytes_per_position: f64,
    /// `sent_bytes_per_position` of [`Assumptions::nodes`].
    pub sent_bytes_per_position: f64,
    /// [`Calibration::serial`].
    pub serial_shares: SerialShares,
    /// All of it in sentences, as `plan oware` lists it.
    pub stated: Vec<String>,
    /// `TABLE_BYTES_PER_POSITION`.
    pub table_bytes_per_position: f64,
    /// [`Assumptions::threads`].
    pub threads: usize,
}

impl From<&Assumptions> for StatedAssumptions {
    fn from(a: &Assumptions) -> StatedAssumptions {
        let c = a.calibration;
        let mut stated = vec![
            format!(
                "rates measured here on layer {} with {} threads, from CPU time (the median of {CALIBRATION_RUNS} builds each, taken for one thread's time and scaled by the speed-up below, so that other processes' load hardly counts): {:.2}M positions/s in memory, {:.2}M out of core, {:.2}M compact; `time` with every rate {:.0}% higher and lower in brackets",
                c.seeds,
                c.threads,
                c.in_memory / 1e6,
                c.out_of_core / 1e6,
                c.compact / 1e6,
                RATE_SPREAD * 100.0,
            ),
            format!(
                "rates scale with threads ({} per node) by Amdahl's law with serial shares of {:.1}% in memory, {:.1}% out of core and {:.1}% compact, {} (16 threads {:.1}, {:.1} and {:.1} times as fast as one); where no build recorded a layer, they fall from the calibration's as (layer size)^-{RATE_EXPONENT} up to layer {RATE_FALL_ENDS}'s size ({:.2}G positions) and stay flat beyond",
                a.threads,
                c.serial.in_memory * 100.0,
                c.serial.out_of_core * 100.0,
                c.serial.compact * 100.0,
                shares_origin(&c.serial),
                c.serial.speedup(Engine::InMemory, 16),
                c.serial.speedup(Engine::OutOfCore, 16),
                c.serial.speedup(Engine::Compact, 16),
                index::layer_size(RATE_FALL_ENDS) as f64 / 1e9,
            ),
            format!(
                "{} node(s), each with {} of memory, holding an equal share of each layer; several nodes keep {:.0}% of their rate",
                a.nodes,
                crate::memory::human_bytes(a.memory),
                NODE_EFFICIENCY * 100.0
            ),
            format!(
                "between nodes: {:.1} bytes sent per position (2 + 22 x (K-1)/K) over {:.0} Gbit/s per node, not overlapping computation",
                sent_bytes_per_position(a.nodes),
                NETWORK_BYTES_PER_SECOND * 8.0 / 1e9
            ),
            format!(
                "lower layers the memory left beside the engine cannot keep are kept decoded in scratch files up to {} (read through the page cache); a part of a layer decodes all of layers n-2 and n-3 that neither keeps (captures reach them all), at {:.1} ns per position per thread",
                crate::memory::human_bytes(a.lower_cache),
                DECODE_SECONDS_PER_POSITION * 1e9
            ),
            format!(
                "lower layers neither kept nor cached are streamed where the engine streams its exits: raw copies on disk (1 byte/position), each read once in order by a layer's set-up, which writes and reads {DEFERRED_BYTES_PER_POSITION} bytes/position of deferred lookups; the engines' own scratch files take {} (out of core) and {} (compact) bytes/position of reads and writes; all of it on {:.1} GB/s of sequential disk, not overlapping computation",
                Engine::OutOfCore.io_bytes_per_position(),
                Engine::Compact.io_bytes_per_position(),
                DISK_BYTES_PER_SECOND / 1e9
            ),
            format!(
                "disk, as the build counts it: {TABLE_BYTES_PER_POSITION} bytes/position of tables, the raw copies of lower layers cached or streamed, a layer's own raw copy, scratch and checkpoint, and its deferred lookups, {}",
                match a.disk {
                    Some(disk) => format!(
                        "swept in as many rounds as {} per node leaves room for (each round reads the streamed layers again)",
                        crate::memory::human_bytes(disk)
                    ),
                    None => "all of a layer's at once (no --disk given)".to_string(),
                }
            ),
        ];
        stated.push(least_stated());
        stated.push(match a.distances {
            true => format!(
                "distance tables, in a build in one process: found by the in-memory engine as it builds a layer where they fit beside it ({} bytes/position more), adding {LEVELS_SHARE} of the layer's time; else by a pass over the finished layer where it fits the memory ({} bytes/position, its values decoded), taking {DISTANCE_SHARE} times the in-memory build's time of the layer; {DISTANCE_TABLE_BYTES_PER_POSITION} bytes/position of table",
                crate::solve::oware::levels_bytes(1 << 20) as f64 / (1 << 20) as f64,
                distance::pass_bytes_per_position(false)
            ),
            false => "no distance tables (--no-distances)".into(),
        });
        if let Some(r) = &a.recorded {
            let seeds = r.seeds();
            let fall = match r.fitted {
                true => "fitted to the largest recorded layers of at least 100M positions",
                false => "too few large layers recorded to fit",
            };
            stated.insert(
                2,
                format!(
                    "in memory, the rates of layers {} as recorded by earlier builds here (build-times.tsv; as quiet or loaded as they ran) replace the calibration's (taken to other thread counts by the same law); beyond layer {} they fall as (layer size)^-{:.2} ({fall}) up to layer {RATE_FALL_ENDS}'s size",
                    seeds_list(&seeds),
                    seeds.last().expect("a recorded layer"),
                    r.exponent,
                ),
            );
        }
        StatedAssumptions {
            out_of_core_rate: c.out_of_core,
            compact_rate: c.compact,
            calibration_seeds: c.seeds,
            calibration_threads: c.threads,
            decode_seconds_per_position: DECODE_SECONDS_PER_POSITION,
            deferred_bytes_per_position: DEFERRED_BYTES_PER_POSITION,
            disk_bytes_per_second: DISK_BYTES_PER_SECOND,
            disk_limit_bytes: a.disk,
            in_memory_rate: c.in_memory,
            lower_cache_bytes: a.lower_cache,
            memory_bytes: a.memory,
            network_bytes_per_second: NETWORK_BYTES_PER_SECOND,
            node_efficiency: NODE_EFFICIENCY,
            nodes: a.nodes,
            rate_exponent: RATE_EXPONENT,
            rate_fall_ends_seeds: RATE_FALL_ENDS,
            recorded_rate_exponent: a.recorded.as_ref().map(|r| r.exponent),
            recorded_seeds: a
                .recorded
                .as_ref()
                .map_or_else(Vec::new, RecordedRates::seeds),
            scratch_bytes_per_position: Engine::OutOfCore.scratch_bytes_per_position(),
            sent_bytes_per_position: sent_bytes_per_position(a.nodes),
            serial_shares: c.serial,
            stated,
            table_bytes_per_position: TABLE_BYTES_PER_POSITION,
            threads: a.threads,
        }
    }
}

/// The least memory of each engine, in words: what its arrays need plus
/// a small constant, whatever the threads.
fn least_stated() -> String {
    use crate::memory::human_bytes;
    use crate::solve::oware::{CHUNK, compact, out_of_core};
    let part = |bytes: u64| human_bytes(CHUNK as u64 * bytes);
    // A stream's buffer: the exit streams take two per exit size.
    let stream = (compact::fixed_bytes(1) - compact::fixed_bytes(0)) / 2;
    let per_thread = compact::buffer_bytes(26, 2) - compact::buffer_bytes(26, 1);
    format!(
        "an engine's least memory per node (`least`), whatever the threads: {} B/position in memory, {} out of core, {} compact, plus a part of {CHUNK} positions ({}, {}, {}), the {} reserve and, for the engines that stream their exits, their streams (2 x (n+1) x {} at layer n) and least buffers ({} out of core, {} compact); buffers that exist per thread take what the budget leaves beyond it (compact, with memory to spare: {} a thread) and below that shrink, or the threads share them",
        Engine::InMemory.bytes_per_position(),
        Engine::OutOfCore.bytes_per_position(),
        Engine::Compact.bytes_per_position(),
        part(Engine::InMemory.part_bytes_per_position()),
        part(Engine::OutOfCore.part_bytes_per_position()),
        part(Engine::Compact.part_bytes_per_position()),
        human_bytes(super::FIXED_BYTES),
        human_bytes(stream),
        human_bytes(out_of_core::LEAST_BUFFER_BYTES),
        human_bytes(compact::LEAST_BUFFER_BYTES),
        human_bytes(per_thread),
    )
}

/// `0..=20, 22, 24..=26`.
fn seeds_list(seeds: &[usize]) -> String {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &s in seeds {
        match runs.last_mut() {
            Some(run) if run.1 + 1 == s => run.1 = s,
            _ => runs.push((s, s)),
        }
    }
    let run = |&(a, b): &(usize, usize)| match a == b {
        true => a.to_string(),
        false => format!("{a}..={b}"),
    };
    runs.iter().map(run).collect::<Vec<_>>().join(", ")
}

/// Writes a value by its `Display` text.
fn as_text<T: std::fmt::Display, S: Serializer>(value: &T, out: S) -> Result<S::Ok, S::Error> {
    out.collect_str(value)
}

/// The projection of building layers `0..=max_seeds`, without layer 47 when
/// 48 is asked for: no position of the game has 47 seeds (a capture takes
/// at least 2 of the 48), and layer 48 reads only layers 46 and below. A
/// layer whose share does not fit a node's budget even out of core is an
/// error naming the minimum.
pub fn project(max_seeds: usize, assumptions: &Assumptions) -> Result<Projection, TablebaseError> {
    if max_seeds > MAX_SEEDS {
        return Err(TablebaseError::TooManySeeds(max_seeds));
    }
    let layers = project_layers(max_seeds, assumptions, 1.0)?;
    let seconds = |rates: f64| -> Result<f64, TablebaseError> {
        let layers = project_layers(max_seeds, assumptions, rates)?;
        Ok(layers.iter().map(|l| l.seconds).sum())
    };
    Ok(Projection {
        assumptions: assumptions.into(),
        disk_bytes: layers.iter().map(|l| l.disk_bytes).max().unwrap_or(0),
        peak_memory_bytes: layers.iter().map(|l| l.memory_bytes).max().unwrap_or(0),
        positions: layers.iter().map(|l| l.positions).sum(),
        seconds: layers.iter().map(|l| l.seconds).sum(),
        seconds_spread: [seconds(1.0 + RATE_SPREAD)?, seconds(1.0 - RATE_SPREAD)?],
        layers,
    })
}

/// The layers of [`project`], every engine's rate multiplied by `rates`.
fn project_layers(
    max_seeds: usize,
    assumptions: &Assumptions,
    rates: f64,
) -> Result<Vec<LayerProjection>, TablebaseError> {
    let a = assumptions;
    let c = a.calibration;
    let reference = index::layer_size(c.seeds);
    let nodes = if a.nodes > 1 {
        a.nodes as f64 * NODE_EFFICIENCY
    } else {
        1.0
    };
    let mut tables = 0u64;
    let budget = node_budget(max_seeds, a);
    let layers = (0..=max_seeds)
        .filter(|&seeds| !(max_seeds == MAX_SEEDS && seeds == MAX_SEEDS - 1))
        .map(|seeds| {
            let positions = index::layer_size(seeds);
            let (share, plan, places) = node_plan(seeds, &budget)?;
            // The in-memory rate with the calibration's threads; out of
            // core keeps the share of it the calibration measured.
            let in_memory = match a.recorded.as_ref().and_then(|r| r.rate(seeds)) {
                Some(one_thread) => one_thread * c.serial.speedup(Engine::InMemory, c.threads),
                None => c.in_memory * fall(reference, positions, RATE_EXPONENT),
            };
            let rate = match plan.engine {
                Engine::InMemory => in_memory,
                Engine::OutOfCore => in_memory * c.out_of_core / c.in_memory,
                Engine::Compact => in_memory * c.compact / c.in_memory,
            } * c.serial.speedup(plan.engine, a.threads)
                / c.serial.speedup(plan.engine, c.threads)
                * nodes
                * rates;
            let network = positions as f64 * sent_bytes_per_position(a.nodes)
                / a.nodes as f64
                / NETWORK_BYTES_PER_SECOND;
            let disk = layer_disk(seeds, share, &plan, &places, &budget, tables, a.disk)?;
            let lower = read_lower(seeds, share, &plan, &places, disk.sweeps, a.threads);
            // The calibration's scratch files stayed in the page cache.
            let scratch =
                share as f64 * plan.engine.io_bytes_per_position() / DISK_BYTES_PER_SECOND;
            let pass_fits = distance::pass_bytes(seeds, false) <= a.memory;
            let distance_seconds = match (a.distances && a.nodes == 1, plan.levels) {
                (false, _) => None,
                (true, true) => Some(positions as f64 / rate * LEVELS_SHARE),
                (true, false) => pass_fits.then(|| {
                    positions as f64 * DISTANCE_SHARE
                        / in_memory
                        / c.serial.speedup(Engine::InMemory, a.threads)
                        * c.serial.speedup(Engine::InMemory, c.threads)
                }),
            };
            let seconds = positions as f64 / rate + lower + scratch + network;
            let seconds = seconds + distance_seconds.unwrap_or(0.0);
            tables += (positions as f64 * TABLE_BYTES_PER_POSITION) as u64;
            if distance_seconds.is_some() {
                tables += (positions as f64 * DISTANCE_TABLE_BYTES_PER_POSITION) as u64;
            }
            Ok(LayerProjection {
                seeds,
                positions,
                engine: plan.engine,
                least_memory_bytes: least_bytes(plan.engine, seeds, share),
                memory_bytes: plan.engine_bytes,
                disk_bytes: disk.bytes,
                distance_seconds,
                distances_while_building: distance_seconds.is_some() && plan.levels,
                sweeps: disk.sweeps,
                seconds,
            })
        })
        .collect::<Result<Vec<_>, TablebaseError>>()?;
    Ok(layers)
}

/// What each node of the build `a` projects gets for each layer of
/// `0..=max_seeds`: the budget of `build oware` asked for it.
fn node_budget(max_seeds: usize, a: &Assumptions) -> Budget {
    let options = BuildOptions {
        lower_cache: a.lower_cache,
        distances: a.distances,
        ..BuildOptions::new(max_seeds, a.memory)
    };
    options.budget(a.nodes)
}

/// How the node with the largest share of layer `seeds` builds it under
/// `budget`: its share, its engine, and where its lower layers are, all as
/// the build decides them.
fn node_plan(
    seeds: usize,
    budget: &Budget,
) -> Result<(u64, LayerPlan, Vec<Place>), TablebaseError> {
    let share = (0..budget.ranks)
        .map(|rank| budget.share(seeds, rank).len())
        .max()
        .unwrap_or(0) as u64;
    let plan = budget.plan(seeds, share)?;
    let places = placement(seeds, &plan, budget);
    Ok((share, plan, places))
}

/// The seconds a node with `threads` spends reading the lower layers for
/// layer `seeds` (its `share` of positions, built as `plan` says, the lower
/// layers at `places`): where stored, every part decodes the whole of layers `n−2`
/// and `n−3` (captures reach them all); where streamed, each of the
/// set-up's `sweeps` reads each once, and the set-up writes and reads its
/// deferred lookups, all in order. The calibration layer's own decoding is
/// small next to this at large layers.
fn read_lower(
    seeds: usize,
    share: u64,
    plan: &LayerPlan,
    places: &[Place],
    sweeps: u64,
    threads: usize,
) -> f64 {
    let stored = bytes_at(
        places,
        Place::Stored,
        seeds.saturating_sub(3)..seeds.saturating_sub(1),
    );
    let streamed = bytes_at(places, Place::Streamed, 0..seeds);
    let parts = share.div_ceil(plan.part as u64);
    let decoding = parts as f64 * stored as f64 * DECODE_SECONDS_PER_POSITION / threads as f64;
    let deferred = match streamed {
        0 => 0.0,
        _ => (sweeps * streamed) as f64 + 2.0 * share as f64 * DEFERRED_BYTES_PER_POSITION,
    };
    decoding + deferred / DISK_BYTES_PER_SECOND
}

/// Bytes (1 a position) of the lower layers of `layers` at `place`.
fn bytes_at(places: &[Place], place: Place, layers: Range<usize>) -> u64 {
    layers
        .filter(|&s| places[s] == place)
        .map(index::layer_size)
        .sum()
}

/// The disk a node takes while it builds layer `seeds`.
struct LayerDisk {
    /// Bytes at the layer's end, before its scratch is removed.
    bytes: u64,
    /// Rounds of its set-up's sweep (0 if nothing is deferred).
    sweeps: u64,
}

/// The disk of layer `seeds` built as `plan` says (the node's `share` of
/// it, its lower layers at `places`), with `tables` bytes of tables below
/// it, as the build checks it: the raw copies of the lower layers cached or
/// streamed, the layer's own files and its deferred lookups, swept in as
/// many rounds as `disk` (if given) leaves room for. A layer that does not
/// fit is an error naming the least it needs.
fn layer_disk(
    seeds: usize,
    share: u64,
    plan: &LayerPlan,
    places: &[Place],
    budget: &Budget,
    tables: u64,
    disk: Option<u64>,
) -> Result<LayerDisk, TablebaseError> {
    let copies =
        bytes_at(places, Place::Cached, 0..seeds) + bytes_at(places, Place::Streamed, 0..seeds);
    let fixed = tables + copies + layer_bytes(seeds, plan.engine, has_raw_copy(seeds, budget));
    let defers = places.contains(&Place::Streamed);
    let least = fixed + defers as u64 * deferred_bytes((plan.part as u64).min(share));
    let too_small = |disk| TablebaseError::PlanDiskTooSmall {
        seeds,
        needed: least,
        disk,
    };
    let sweep = match (defers, disk) {
        (false, Some(disk)) if fixed > disk => return Err(too_small(disk)),
        (false, _) => 0,
        (true, None) => share,
        (true, Some(disk)) => disk
            .checked_sub(fixed)
            .and_then(|room| sweep_within(room, seeds, plan.part))
            .ok_or_else(|| too_small(disk))?
            .min(share),
    };
    Ok(LayerDisk {
        bytes: fixed + deferred_bytes(sweep),
        sweeps: share.div_ceil(sweep.max(1)) * defers as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::oware as engine;
    use crate::tablebase::oware::{plan_engine, plan_layer};
    use std::sync::Mutex;

    /// One node of 2 threads with `memory`, calibrated on layer 16 at 10,
    /// 5 and 2.5 M positions/s, nothing recorded, no disk limit.
    fn assumptions(memory: u64) -> Assumptions {
        Assumptions {
            calibration: Calibration {
                seeds: 16,
                threads: 2,
                in_memory: 10e6,
                out_of_core: 5e6,
                compact: 2.5e6,
                serial: SerialShares::fitted(),
            },
            threads: 2,
            nodes: 1,
            memory,
            lower_cache: 0,
            recorded: None,
            disk: None,
            distances: false,
        }
    }

    /// The spread: every rate 15% higher and lower, the disk as it is.
    #[test]
    fn the_spread_brackets_the_time_by_the_rates() {
        let plan = project(20, &assumptions(1 << 30)).unwrap();
        let [fast, slow] = plan.seconds_spread;
        assert!(
            fast < plan.seconds && plan.seconds < slow,
            "{fast} {} {slow}",
            plan.seconds
        );
        // In memory with lower layers kept, nothing but the rates counts.
        assert!((plan.seconds / fast - 1.15).abs() < 1e-9);
        assert!((plan.seconds / slow - 0.85).abs() < 1e-9);
        let json = serde_json::to_value(&plan).unwrap();
        assert_eq!(json["seconds_spread"][1], slow);
    }

    #[test]
    fn distance_passes_are_counted_where_they_fit_the_memory() {
        let memory = 256 << 20;
        let with = project(
            24,
            &Assumptions {
                distances: true,
                ..assumptions(memory)
            },
        )
        .unwrap();
        let without = project(24, &assumptions(memory)).unwrap();
        let budget = node_budget(24, &assumptions(memory));
        for (l, w) in with.layers.iter().zip(&without.layers) {
            let pass_fits = distance::pass_bytes(l.seeds, false) <= memory;
            let levels_fit = budget.plan(l.seeds, l.positions).unwrap().engine == Engine::InMemory
                && (memory.checked_sub(engine::levels_bytes(l.positions))).is_some_and(|room| {
                    plan_engine(Engine::InMemory, l.seeds, l.positions, room).is_ok()
                });
            assert_eq!(
                l.distance_seconds.is_some(),
                levels_fit || pass_fits,
                "layer {}",
                l.seeds
            );
            assert_eq!(l.distances_while_building, levels_fit, "layer {}", l.seeds);
            if !levels_fit {
                let extra = l.distance_seconds.unwrap_or(0.0);
                assert!((l.seconds - w.seconds - extra).abs() < 1e-9 * l.seconds.max(1.0));
            }
        }
        // In 256 MiB, the engine finds the distances of the small layers as
        // it builds them, a pass those of layer 20 (80 M positions), and
        // layer 24 (383 M) has no room for either.
        assert!(with.layers[18].distances_while_building);
        assert!(!with.layers[20].distances_while_building);
        assert!(with.layers[20].distance_seconds.is_some());
        assert!(with.layers[24].distance_seconds.is_none());
        let nodes = project(
            20,
            &Assumptions {
                distances: true,
                nodes: 2,
                ..assumptions(memory)
            },
        )
        .unwrap();
        assert!(nodes.layers.iter().all(|l| l.distance_seconds.is_none()));
    }

    #[test]
    fn a_projection_prints_as_the_json_of_plan_oware() {
        let assumptions = assumptions(1 << 30);
        let plan = project(12, &assumptions).unwrap();
        // The lower layers of layer `seeds` built up to `seeds` as the node
        // with `a` reads them.
        let lower_reads = |seeds: usize, a: &Assumptions| {
            let (share, plan, places) = node_plan(seeds, &node_budget(seeds, a)).unwrap();
            read_lower(seeds, share, &plan, &places, 1, a.threads)
        };
        // With 1 GiB, layers 10 and 9 stay in memory: nothing to decode.
        assert_eq!(lower_reads(12, &assumptions), 0.0);
        let json = serde_json::to_value(&plan).unwrap();
        let positions: u64 = (0..=12).map(index::layer_size).sum();
        assert_eq!(json["positions"], positions);
        assert_eq!(json["layers"].as_array().unwrap().len(), 13);
        let layer = &json["layers"][12];
        assert_eq!(layer["seeds"], 12);
        assert_eq!(layer["positions"], index::layer_size(12));
        assert_eq!(layer["mode"], "in memory");
        assert_eq!(json["peak_memory_bytes"], layer["memory_bytes"]);
        assert_eq!(json["disk_bytes"], layer["disk_bytes"]);
        let least =
            crate::tablebase::oware::least_bytes(Engine::InMemory, 12, index::layer_size(12));
        assert_eq!(layer["least_memory_bytes"], least);
        let stated = &json["assumptions"];
        assert_eq!(stated["memory_bytes"], 1u64 << 30);
        assert_eq!(stated["calibration_seeds"], 16);
        assert_eq!(stated["sent_bytes_per_position"], 0.0);
        assert_eq!(stated["stated"].as_array().unwrap().len(), 9);
        let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
        // A layer 20 out of core in 150 MB streams the lower layers it
        // cannot keep: reads each once, and writes and reads its deferred
        // lookups.
        let tight = Assumptions {
            memory: 150 << 20,
            ..assumptions.clone()
        };
        let layer_plan = plan_layer(20, tight.memory).unwrap();
        assert_eq!(layer_plan.engine, Engine::OutOfCore);
        let (_, _, places) = node_plan(20, &node_budget(20, &tight)).unwrap();
        let streamed: u64 = (0..20)
            .filter(|&s| places[s] == Place::Streamed)
            .map(index::layer_size)
            .sum();
        assert!(streamed >= index::layer_size(18) + index::layer_size(17));
        let reads = lower_reads(20, &tight);
        let deferred = 2.0 * index::layer_size(20) as f64 * DEFERRED_BYTES_PER_POSITION;
        assert_eq!(reads, (streamed as f64 + deferred) / DISK_BYTES_PER_SECOND);
        // With a cache that holds them, they are read through the page
        // cache; the cache holds the lower layers it can, largest first.
        let cached = Assumptions {
            lower_cache: index::layer_size(18) + index::layer_size(17),
            ..tight.clone()
        };
        let (_, _, places) = node_plan(20, &node_budget(20, &cached)).unwrap();
        assert_eq!(places[18], Place::Cached);
        assert_eq!(places[17], Place::Cached);
        // An in-memory layer reads the tables of the layers it cannot
        // keep, once per part.
        let in_memory = Assumptions {
            memory: 190 << 20,
            ..assumptions.clone()
        };
        let layer_plan = plan_layer(20, in_memory.memory).unwrap();
        assert_eq!(layer_plan.engine, Engine::InMemory);
        let (_, _, places) = node_plan(20, &node_budget(20, &in_memory)).unwrap();
        assert_eq!(places[18], Place::Stored);
        let hot = [18, 17].map(|s| (places[s] == Place::Stored) as u64 * index::layer_size(s));
        let parts = index::layer_size(20).div_ceil(layer_plan.part as u64);
        let reads = lower_reads(20, &in_memory);
        assert_eq!(
            reads,
            (hot.iter().sum::<u64>() * parts) as f64 * DECODE_SECONDS_PER_POSITION / 2.0
        );
        // Layer 45 in 256 GiB cannot keep layers 43 and 42 beside it, so it
        // takes parts as large as the room allows (the arithmetic of the
        // hot layers passes 2^64).
        let layer_plan = plan_layer(45, 256 << 30).unwrap();
        assert_eq!(layer_plan.engine, Engine::InMemory);
        assert!(layer_plan.part > 1 << 30, "{}", layer_plan.part);
        // So does a 16th of layer 42 in 64 GiB: its rank keeps whole lower
        // layers, and 40 and 39 (67 G positions) do not fit. With 4 Mi
        // parts (as when the hot layers were counted as shares) each of
        // its ~875 parts would decode layer 39 whole.
        let sixteen = Assumptions {
            nodes: 16,
            memory: 64 << 30,
            ..assumptions.clone()
        };
        let (share, share_plan, _) = node_plan(42, &node_budget(42, &sixteen)).unwrap();
        assert!(share >= index::layer_size(42) / 16, "{share}");
        assert_eq!(share_plan.engine, Engine::InMemory);
        assert!(share_plan.part as u64 >= share / 16, "{}", share_plan.part);
        assert_eq!(
            keys,
            [
                "assumptions",
                "disk_bytes",
                "layers",
                "peak_memory_bytes",
                "positions",
                "seconds",
                "seconds_spread"
            ]
        );
    }

    /// Plan picks each layer's engine and places its lower layers as the
    /// build does: builds whose budgets keep lower layers resident, cached
    /// and stored record what they did, and plan's node does the same.
    #[test]
    fn plan_budgets_and_places_each_layer_as_the_build_does() {
        use crate::table::raw;
        use crate::tablebase::BuildObserver;
        use crate::tablebase::oware::build::{OwareObserver, lower_cache_dir};

        /// Per layer planned: its plan, the bytes of lower layers resident
        /// and those in the lower cache.
        struct Recorded {
            cache: std::path::PathBuf,
            layers: Mutex<Vec<(usize, LayerPlan, u64, u64)>>,
        }
        impl BuildObserver for Recorded {}
        impl OwareObserver for Recorded {
            fn layer_planned(&self, seeds: usize, plan: &LayerPlan, memory_bytes: u64) {
                let cached = (0..seeds)
                    .filter_map(|s| std::fs::metadata(raw::layer_path(&self.cache, s)).ok())
                    .map(|m| m.len())
                    .sum();
                let resident = memory_bytes - plan.engine_bytes;
                let layer = (seeds, *plan, resident, cached);
                self.layers.lock().unwrap().push(layer);
            }
        }
        const TOP: usize = 12;
        let size = index::layer_size;
        let whole = plan_layer(TOP, 1 << 40).unwrap().engine_bytes;
        // With half of that, parts of layer 12 smaller than the layer and
        // little room beside.
        let budgets = [
            (1 << 30, 0),
            (whole + size(10) + size(9) / 2, size(9) + size(11)),
            (whole / 2, size(10) + size(9)),
            (whole / 2, 0),
        ];
        let mut places = Vec::new();
        for (memory, lower_cache) in budgets {
            let dir = tempfile::tempdir().unwrap();
            let recorded = Recorded {
                cache: lower_cache_dir(&ruleset_dir(dir.path(), Ruleset::Awari)),
                layers: Mutex::new(Vec::new()),
            };
            let options = BuildOptions {
                lower_cache,
                ..BuildOptions::new(TOP, memory)
            };
            build(dir.path(), Ruleset::Awari, &options, &recorded).unwrap();
            let a = Assumptions {
                calibration: Calibration {
                    seeds: 10,
                    threads: 1,
                    in_memory: 1e6,
                    out_of_core: 1e6,
                    compact: 1e6,
                    serial: SerialShares::fitted(),
                },
                threads: 1,
                nodes: 1,
                distances: options.distances,
                memory,
                lower_cache,
                recorded: None,
                disk: None,
            };
            let budget = node_budget(TOP, &a);
            let layers = recorded.layers.into_inner().unwrap();
            assert_eq!(layers.len(), TOP + 1);
            for (seeds, plan, resident, cached) in layers {
                let (_, projected, at) = node_plan(seeds, &budget).unwrap();
                let bytes = |place| {
                    (0..seeds)
                        .filter(|&s| at[s] == place)
                        .map(size)
                        .sum::<u64>()
                };
                let what = format!("memory {memory}, cache {lower_cache}, layer {seeds}");
                assert_eq!(projected, plan, "{what}");
                assert_eq!(bytes(Place::Resident), resident, "{what}");
                // Cached and streamed layers both have raw copies.
                assert_eq!(
                    bytes(Place::Cached) + bytes(Place::Streamed),
                    cached,
                    "{what}"
                );
                places.extend(at);
            }
        }
        for place in [Place::Resident, Place::Cached, Place::Stored] {
            assert!(places.contains(&place), "{place:?}");
        }
    }

    /// Recorded layers are projected at their recorded rate, taken to the
    /// projection's threads by [`Engine::speedup`];
    /// beyond the largest, the rate falls as fitted to the largest; the
    /// calibration covers the rest.
    #[test]
    fn recorded_rates_replace_the_calibrations() {
        let time = |seeds: usize, rate: f64, threads: usize| BuildTime {
            seeds,
            positions: index::layer_size(seeds),
            seconds: index::layer_size(seeds) as f64 / rate,
            threads,
            engine: Engine::InMemory,
            ranks: 1,
            serial_share: None,
        };
        // On 2 threads, exactly P^−0.3 over layers 22..=25.
        let law = |seeds: usize| 2e6 * (index::layer_size(seeds) as f64 / 1e8).powf(-0.3);
        let mut times: Vec<BuildTime> = (22..=25).map(|s| time(s, law(s), 2)).collect();
        // Neither out of core nor distributed layers count.
        times.push(BuildTime {
            engine: Engine::OutOfCore,
            ..time(26, 1.0, 2)
        });
        times.push(BuildTime {
            ranks: 2,
            ..time(27, 1.0, 2)
        });
        times.push(time(10, 5e6, 1));
        let recorded = RecordedRates::new(&times).unwrap();
        assert_eq!(recorded.seeds(), [10, 22, 23, 24, 25]);
        assert!(recorded.fitted);
        assert!(
            (recorded.exponent - 0.3).abs() < 1e-9,
            "{}",
            recorded.exponent
        );
        let assumptions = Assumptions {
            threads: 4,
            recorded: Some(recorded),
            ..assumptions(1 << 40)
        };
        let plan = project(28, &assumptions).unwrap();
        let near = |seeds: usize, rate: f64| {
            let expected = index::layer_size(seeds) as f64 / rate;
            let seconds = plan.layers[seeds].seconds;
            assert!(
                (seconds / expected - 1.0).abs() < 1e-9,
                "layer {seeds}: {seconds} s, not {expected}"
            );
        };
        // Twice the threads of layers 22..=25, four times layer 10's.
        let fitted = SerialShares::fitted();
        let [one, two, four] = [1, 2, 4].map(|t| fitted.speedup(Engine::InMemory, t));
        let twice = four / two;
        assert!(1.8 < twice && twice < 2.0, "{twice}");
        near(10, 5e6 * four / one);
        near(24, twice * law(24));
        // Beyond the records, on the fitted fall, which ends at layer 27.
        near(26, twice * law(26));
        near(27, twice * law(27));
        near(28, twice * law(27));
        // Below them, unrecorded: the calibration's rate, as scaled.
        near(16, twice * 10e6);
        let json = serde_json::to_value(&plan).unwrap();
        let stated = &json["assumptions"];
        assert_eq!(
            stated["recorded_seeds"],
            serde_json::json!([10, 22, 23, 24, 25])
        );
        assert_eq!(stated["stated"].as_array().unwrap().len(), 10);
        assert!(
            stated["stated"][2]
                .as_str()
                .unwrap()
                .contains("layers 10, 22..=25")
        );
        // One large layer: nothing to fit.
        let one = RecordedRates::new(&times[3..4]).unwrap();
        assert_eq!((one.fitted, one.exponent), (false, RATE_EXPONENT));
        assert_eq!(RecordedRates::new(&times[4..6]), None);
    }

    /// Each engine's share is that of the largest layer it built here in
    /// one process with a share measured; an engine without is fitted.
    #[test]
    fn serial_shares_come_from_the_largest_layer_measured_here() {
        let time = |seeds, engine, ranks, serial_share| BuildTime {
            seeds,
            positions: index::layer_size(seeds),
            seconds: 1.0,
            threads: 2,
            engine,
            ranks,
            serial_share,
        };
        let times = [
            time(20, Engine::InMemory, 1, Some(0.05)),
            time(22, Engine::InMemory, 1, Some(0.04)),
            time(23, Engine::InMemory, 1, None),
            time(24, Engine::InMemory, 2, Some(0.5)),
            time(21, Engine::Compact, 1, Some(0.12)),
        ];
        let shares = SerialShares::recorded(&times);
        assert_eq!(shares.in_memory, 0.04);
        assert_eq!(shares.compact, 0.12);
        assert_eq!(shares.out_of_core, Engine::OutOfCore.serial_share());
        assert_eq!(shares.measured_on, [Some(22), None, Some(21)]);
        assert_eq!(SerialShares::fitted().measured_on, [None; 3]);
        let speedup = shares.speedup(Engine::InMemory, 16);
        assert!((speedup - 1.0 / (0.04 + 0.96 / 16.0)).abs() < 1e-9);
    }

    /// One thread is the unit; 16 threads run each engine as many times as
    /// fast as measured on 16 cores (benchsuite/runs/2026-12-04-xeon16),
    /// and twice 16 threads gain less than 16 did.
    #[test]
    fn threads_speed_engines_up_as_measured() {
        for (engine, measured) in [
            (Engine::InMemory, 9.7..11.2),
            (Engine::OutOfCore, 5.3..5.5),
            (Engine::Compact, 5.6..7.1),
        ] {
            let fitted = SerialShares::fitted();
            assert_eq!(fitted.speedup(engine, 1), 1.0);
            let sixteen = fitted.speedup(engine, 16);
            assert!(measured.contains(&sixteen), "{engine:?}: {sixteen}");
            assert!(
                fitted.speedup(engine, 32) / sixteen < 2.0 * 0.9,
                "{engine:?}"
            );
        }
    }

    /// Without records, the calibration's rate falls up to layer 27 and no
    /// further.
    #[test]
    fn the_rate_stops_falling_at_layer_27() {
        let assumptions = assumptions(1 << 40);
        let plan = project(29, &assumptions).unwrap();
        let rate = |seeds: usize| {
            let layer = &plan.layers[seeds];
            layer.positions as f64 / layer.seconds
        };
        let size = |seeds| index::layer_size(seeds) as f64;
        let fallen = 10e6 * (size(27) / size(16)).powf(-RATE_EXPONENT);
        for seeds in [27, 28, 29] {
            assert!((rate(seeds) / fallen - 1.0).abs() < 1e-9, "layer {seeds}");
        }
        let at_20 = 10e6 * (size(20) / size(16)).powf(-RATE_EXPONENT);
        assert!((rate(20) / at_20 - 1.0).abs() < 1e-9);
    }

    /// A layer whose deferred lookups do not fit the disk left beside its
    /// files is swept in rounds, each reading the streamed lower layers
    /// again; one whose files leave no room for a part's lookups is
    /// refused, naming the least it needs.
    #[test]
    fn a_disk_too_small_for_one_sweep_takes_several_or_is_refused() {
        let tight = |disk| Assumptions {
            disk,
            ..assumptions(150 << 20)
        };
        let unlimited = project(20, &tight(None)).unwrap();
        let layer = unlimited.layers[20];
        assert_eq!(layer.sweeps, 1);
        let deferred = deferred_bytes(layer.positions);
        // A third of the deferred lookups fit beside the rest.
        let disk = layer.disk_bytes - deferred + deferred / 3 + 64;
        let limited = project(20, &tight(Some(disk))).unwrap();
        let swept = limited.layers[20];
        assert_eq!(swept.sweeps, 3);
        assert!(swept.disk_bytes <= disk);
        let (_, _, places) = node_plan(20, &node_budget(20, &tight(None))).unwrap();
        let streamed = bytes_at(&places, Place::Streamed, 0..20);
        let extra = 2.0 * streamed as f64 / DISK_BYTES_PER_SECOND;
        assert!((swept.seconds - layer.seconds - extra).abs() < 1e-6);
        // One sweep: the engine's positions at the calibration's fallen
        // rate, the lower layers read once, its deferred lookups written
        // and read, its scratch files written and read.
        let (_, plan, _) = node_plan(20, &node_budget(20, &tight(None))).unwrap();
        assert_eq!(plan.engine, Engine::OutOfCore);
        let p = layer.positions as f64;
        let rate = 5e6 * fall(index::layer_size(16), layer.positions, RATE_EXPONENT);
        let io = streamed as f64
            + 2.0 * p * DEFERRED_BYTES_PER_POSITION
            + p * Engine::OutOfCore.io_bytes_per_position();
        let expected = p / rate + io / DISK_BYTES_PER_SECOND;
        assert!(
            (layer.seconds / expected - 1.0).abs() < 1e-9,
            "{}",
            layer.seconds
        );
        // Less than a part of lookups beside the rest.
        let refused = project(20, &tight(Some(layer.disk_bytes - deferred))).unwrap_err();
        let TablebaseError::PlanDiskTooSmall { seeds, needed, .. } = refused else {
            panic!("{refused}")
        };
        assert_eq!(seeds, 20);
        let part = plan_layer(20, 150 << 20).unwrap().part as u64;
        assert_eq!(needed, layer.disk_bytes - deferred + deferred_bytes(part));
    }
}
