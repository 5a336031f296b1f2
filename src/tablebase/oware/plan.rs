//! Projections of a build: per layer, the engine the memory budget allows,
//! the memory, the disk and the time it takes. Rates come from a short
//! calibration build on this machine and from the layers earlier builds
//! recorded here, scaled by stated assumptions.

use std::ops::Range;

use serde::{Serialize, Serializer};

use super::budget::disk::{
    DISTANCE_TABLE_BYTES_PER_POSITION, TABLE_BYTES_PER_POSITION, deferred_bytes, has_raw_copy,
    layer_bytes, share_checkpoint_bytes_per_position, shared_layer_bytes, sweep_within,
    table_bytes_per_position,
};
use super::budget::{Budget, LayerPlan, Place, least_bytes, placement, plan_engine};
use super::builder::BuildOptions;
use super::{BuildTime, TablebaseError, build, distance, ruleset_dir, table_path};
use crate::error::PathContext;
use crate::games::oware::{MAX_SEEDS, Ruleset};
use crate::index::oware as index;
use crate::solve::oware::DEFERRED_BYTES_PER_POSITION;
use crate::solve::oware::{self as engine, Engine};
use crate::solve::phases;
use crate::tablebase::{FileError, Quiet};

/// How the rate of the engines falls with the layer size `P` where no
/// build recorded it: as `P^−RATE_EXPONENT`, up to [`RATE_FALL_ENDS`]:
/// random accesses miss the caches more as the layer grows. The slope
/// (log–log) of the layer rates `scripts/derive/bench-oware.sh 26` records in its
/// folder's `build-times.tsv`, from layer 20 on; `plan` fits the same to a
/// folder's own records ([`RecordedRates`]).
const RATE_EXPONENT: f64 = 0.23;
/// The layer beyond whose size the rate no longer falls: there every random
/// access of the propagation already misses the caches. The first layer of
/// the flat run of rates in the `build-times.tsv` of
/// `scripts/derive/bench-oware.sh 32` (in memory).
const RATE_FALL_ENDS: usize = 27;
/// How many of the largest recorded layers the fall beyond them is fitted
/// to: the fall steepens with the size, so the largest say most.
const FITTED_LAYERS: usize = 4;
/// Smallest layer whose recorded rate is fitted (smaller layers are
/// dominated by fixed costs).
const FIT_MIN_POSITIONS: u64 = 100_000_000;
/// Share of a node's rate kept when `K` nodes share a layer (waiting at the
/// end of each round, the table written by one rank): an assumption, near
/// the ratio `scripts/derive/bench-mpi.sh 20 2 1` prints for 2 ranks of 1 thread
/// against 1 process of 2 threads on one machine; many nodes on a real
/// network are not measured.
const NODE_EFFICIENCY: f64 = 0.7;
/// Bytes a distributed build sends per position when every parent update
/// goes to another rank: one 8-byte notice per non-capturing edge walked,
/// about 2.75 edges a position. R ranks send `22 × (R − 1) / R` (the
/// notices to a position's own rank stay there); no values cross (each
/// rank writes its share of the tables itself). `scripts/derive/bench-mpi.sh`
/// prints the bytes sent per position at 2 and 3 ranks.
const NOTICE_BYTES_PER_POSITION: f64 = 22.0;
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
/// median extra `scripts/derive/bench-distances.sh BIN 20` prints for 0..=20 (for
/// a layer alone, `LOWER=DIR scripts/derive/bench-distances.sh BIN 26`, DIR
/// holding 0..=25).
const LEVELS_SHARE: f64 = 0.3;
/// The distance pass's time over the in-memory value build's of the same
/// layer, threads alike, for the layers the engine cannot find them in:
/// the median ratio of the pass at layer 26 (0..=20 as a whole: 1.2).
const DISTANCE_SHARE: f64 = 1.6;

/// Bytes of notices the ranks of a build on `ranks` send each other per
/// position of a layer.
fn notice_bytes_per_position(ranks: usize) -> f64 {
    match ranks {
        0 | 1 => 0.0,
        r => NOTICE_BYTES_PER_POSITION * (r - 1) as f64 / r as f64,
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
    /// Disk for the tables and the scratch files: per node in one process;
    /// with several nodes, the shared build folder's (which holds all of
    /// it); `None`: as much as a layer needs, its deferred lookups swept at
    /// once.
    pub disk: Option<u64>,
    /// With several nodes, the most bytes one message carries (`build oware
    /// --message-size`; brought within the transport's limits as there).
    pub message_bytes: u64,
    /// Whether the build finds the distance tables (`build oware` without
    /// `--no-distances`): in one process, those of every layer whose levels
    /// or pass fit the memory; with several nodes, those whose levels fit
    /// beside each share.
    pub distances: bool,
}

/// A projected build, as `plan oware --json` prints it. Fields here and
/// below are in alphabetical order, the order it always printed them in.
#[derive(Clone, Debug, Serialize)]
pub struct Projection {
    /// What the projection assumes.
    pub assumptions: StatedAssumptions,
    /// Disk at the largest, all nodes together (with several nodes, on the
    /// shared build folder).
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

/// One layer of a projection. Memory is the node's with the largest share
/// of the layer: `memory_bytes` is the sum of `engine_bytes`,
/// `levels_bytes`, `lower_resident_bytes` and `message_buffer_bytes`, the
/// figure the build plans (and reports as it starts the layer).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct LayerProjection {
    /// Disk in use at the end of the layer's build, all nodes together:
    /// the tables so far plus the layer's scratch. With several nodes, on
    /// the shared folder: the tables so far, the layer's tables and its
    /// ranks' part files of them, and two checkpoints of every share.
    pub disk_bytes: u64,
    /// Wall time the layer's distances take (in `seconds` too): what the
    /// in-memory engine adds to find them as it builds the layer, or the
    /// pass over the finished layer (in one process only); `None` where
    /// the build finds no distance table (not asked, or neither fits the
    /// memory; with several nodes, the levels do not fit beside a share).
    pub distance_seconds: Option<f64>,
    /// Whether the in-memory engine finds the distances as it builds the
    /// layer (else a pass does, if any).
    pub distances_while_building: bool,
    /// The engine's state for the node's share (its arrays, parts, buffers
    /// and the fixed reserve), without levels or message buffers.
    pub engine_bytes: u64,
    /// The least memory per node its engine accepts, whatever the threads
    /// (its arrays, its fixed buffers, a part of one chunk and the
    /// reserve): the buffers that exist per thread shrink to fit it. With
    /// several nodes, its share's and the message buffers: below it the
    /// build refuses the share ([`TablebaseError::ShareTooLarge`]).
    pub least_memory_bytes: u64,
    /// The levels that find the distances as the share is built (0 if not).
    pub levels_bytes: u64,
    /// The lower layers kept decoded in memory, whole (1 byte a position);
    /// the others are cached, streamed or read from their tables.
    pub lower_resident_bytes: u64,
    /// Peak memory per node: the sum of the four parts.
    pub memory_bytes: u64,
    /// With several nodes, what a rank holds for an exchange: twice its
    /// outbox (the notices it queues, and as many received) and one
    /// message; 0 in one process.
    pub message_buffer_bytes: u64,
    /// The engine the memory budget allows (`in memory`, `out of core`).
    #[serde(rename = "mode", serialize_with = "as_text")]
    pub engine: Engine,
    /// Bytes crossing the network per position of the layer (0 in one
    /// process): the notices (`notice_bytes_per_position` of the
    /// assumptions) and the tables written into the shared folder
    /// (`table_bytes_per_position`).
    pub network_bytes_per_position: f64,
    /// Its positions.
    pub positions: u64,
    /// Wall time of the layer's build.
    pub seconds: f64,
    /// The layer.
    pub seeds: usize,
    /// Positions of the largest node's share (the layer in one process):
    /// whole chunks of the engine.
    pub share_positions: u64,
    /// Rounds in which its set-up sweeps the layer, deferring its lookups
    /// into the lower layers read in order (0 if none is).
    pub sweeps: u64,
    /// Bytes per position of the layer's tables written: its values', and
    /// its distances' where found.
    pub table_bytes_per_position: f64,
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
    /// [`Assumptions::message_bytes`], as the transport keeps it (0 in one
    /// process).
    pub message_bytes: u64,
    /// `NETWORK_BYTES_PER_SECOND`.
    pub network_bytes_per_second: f64,
    /// `NODE_EFFICIENCY`.
    pub node_efficiency: f64,
    /// [`Assumptions::nodes`].
    pub nodes: usize,
    /// Bytes of notices a node sends per position of a layer with
    /// [`Assumptions::nodes`] (`22 × (K − 1) / K`; 0 in one process).
    pub notice_bytes_per_position: f64,
    /// The notices a rank queues before an exchange (`OUTBOX_BYTES`, as
    /// `build oware`; 0 in one process).
    pub outbox_bytes: u64,
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
            match a.nodes {
                1 => format!(
                    "1 node with {} of memory; a layer's memory is its engine's (and its levels, where it finds the distances as it builds) plus the lower layers kept in memory",
                    crate::memory::human_bytes(a.memory),
                ),
                k => format!(
                    "{k} nodes (ranks), each with {} of memory, holding a share of each layer (whole chunks of {} positions, as even as they go; the largest is projected), built in memory only beside its message buffers: twice its outbox of notices ({}, as `build oware`) and one message of at most {} (--message-size); then the levels where they fit; then whole lower layers kept decoded in memory where the room left holds them (1 byte/position), the rest read from their tables in the shared folder; a share that does not fit is refused; several nodes keep {:.0}% of their rate",
                    crate::memory::human_bytes(a.memory),
                    engine::CHUNK,
                    crate::memory::human_bytes(engine::OUTBOX_BYTES),
                    crate::memory::human_bytes(message_bytes(a)),
                    NODE_EFFICIENCY * 100.0
                ),
            },
            match a.nodes {
                1 => "between nodes: nothing (one node)".to_string(),
                k => format!(
                    "between nodes, per position of a layer: {:.2} bytes of notices (8 bytes, about 2.75 a position, {NOTICE_BYTES_PER_POSITION} x (K-1)/K with K = {k}), no values (no layer is gathered), and the tables each rank writes into the shared folder ({TABLE_BYTES_PER_POSITION} bytes/position, {DISTANCE_TABLE_BYTES_PER_POSITION} more where distances are found; their part files' copy into place and check are not counted); over {:.0} Gbit/s per node, not overlapping computation",
                    notice_bytes_per_position(k),
                    NETWORK_BYTES_PER_SECOND * 8.0 / 1e9
                ),
            },
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
            match a.nodes {
                1 => format!(
                    "disk, as the build counts it: {TABLE_BYTES_PER_POSITION} bytes/position of tables, the raw copies of lower layers cached or streamed, a layer's own raw copy, scratch and checkpoint, and its deferred lookups, {}",
                    match a.disk {
                        Some(disk) => format!(
                            "swept in as many rounds as {} per node leaves room for (each round reads the streamed layers again)",
                            crate::memory::human_bytes(disk)
                        ),
                        None => "all of a layer's at once (no --disk given)".to_string(),
                    }
                ),
                _ => format!(
                    "disk, all of it on the shared build folder{}: the tables so far, and at a layer's peak either its ranks' checkpoints in its scratch folder, {} bytes/position with the levels ({} without: values and states), twice for a moment (a new one is written before the older is removed), or the last of them with the layer's tables and the part files its ranks code them into (the same bytes again), whichever is more",
                    match a.disk {
                        Some(disk) => format!(" ({}, --disk)", crate::memory::human_bytes(disk)),
                        None => " (no --disk given)".to_string(),
                    },
                    share_checkpoint_bytes_per_position(true),
                    share_checkpoint_bytes_per_position(false),
                ),
            },
        ];
        stated.push(least_stated());
        stated.push(match a.distances {
            true if a.nodes > 1 => format!(
                "distance tables, with several nodes: found by the ranks as they build a layer where the levels fit beside each share ({} bytes/position more), adding {LEVELS_SHARE} of the layer's time, and written share by share; elsewhere none (no pass runs across nodes: a later build in one process adds them where it can); {DISTANCE_TABLE_BYTES_PER_POSITION} bytes/position of table",
                engine::levels_bytes(1 << 20) as f64 / (1 << 20) as f64,
            ),
            true => format!(
                "distance tables, in a build in one process: found by the in-memory engine as it builds a layer where they fit beside it ({} bytes/position more), adding {LEVELS_SHARE} of the layer's time; else by a pass over the finished layer where it fits the memory ({} bytes/position, its values decoded), taking {DISTANCE_SHARE} times the in-memory build's time of the layer; {DISTANCE_TABLE_BYTES_PER_POSITION} bytes/position of table",
                engine::levels_bytes(1 << 20) as f64 / (1 << 20) as f64,
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
            message_bytes: message_bytes(a),
            network_bytes_per_second: NETWORK_BYTES_PER_SECOND,
            node_efficiency: NODE_EFFICIENCY,
            nodes: a.nodes,
            notice_bytes_per_position: notice_bytes_per_position(a.nodes),
            outbox_bytes: match a.nodes {
                1 => 0,
                _ => engine::OUTBOX_BYTES,
            },
            rate_exponent: RATE_EXPONENT,
            rate_fall_ends_seeds: RATE_FALL_ENDS,
            recorded_rate_exponent: a.recorded.as_ref().map(|r| r.exponent),
            recorded_seeds: a
                .recorded
                .as_ref()
                .map_or_else(Vec::new, RecordedRates::seeds),
            scratch_bytes_per_position: Engine::OutOfCore.scratch_bytes_per_position(),
            serial_shares: c.serial,
            stated,
            table_bytes_per_position: TABLE_BYTES_PER_POSITION,
            threads: a.threads,
        }
    }
}

/// The bound on one message of the build `a` projects, as its transport
/// keeps it (0 in one process).
fn message_bytes(a: &Assumptions) -> u64 {
    match a.nodes {
        1 => 0,
        k => {
            let asked = usize::try_from(a.message_bytes).unwrap_or(usize::MAX);
            crate::distributed::clamp_message_bytes(asked, k) as u64
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
    // As the build does, every layer is planned first, the largest first:
    // a budget too small (a share too large for its node) is refused,
    // naming what the whole build needs, before anything is projected.
    let budget = node_budget(max_seeds, assumptions);
    for seeds in (0..=max_seeds).rev() {
        budget.plan(seeds, largest_share(seeds, &budget))?;
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
            let disk = layer_disk(seeds, share, &plan, &places, &budget, tables, a.disk)?;
            let lower = read_lower(seeds, share, &plan, &places, disk.sweeps, a.threads);
            // The calibration's scratch files stayed in the page cache.
            let scratch =
                share as f64 * plan.engine.io_bytes_per_position() / DISK_BYTES_PER_SECOND;
            let pass_fits = distance::pass_bytes(seeds, false) <= a.memory;
            // Several nodes find the distances only as they build: no pass
            // runs across them.
            let distance_seconds = match (a.distances, plan.levels) {
                (false, _) => None,
                (true, true) => Some(positions as f64 / rate * LEVELS_SHARE),
                (true, false) => (a.nodes == 1 && pass_fits).then(|| {
                    positions as f64 * DISTANCE_SHARE
                        / in_memory
                        / c.serial.speedup(Engine::InMemory, a.threads)
                        * c.serial.speedup(Engine::InMemory, c.threads)
                }),
            };
            let table_bytes = table_bytes_per_position(distance_seconds.is_some());
            // Each node sends its share's notices and writes its share of
            // the tables into the shared folder.
            let network_bytes = match a.nodes {
                1 => 0.0,
                k => notice_bytes_per_position(k) + table_bytes,
            };
            let network =
                positions as f64 * network_bytes / a.nodes as f64 / NETWORK_BYTES_PER_SECOND;
            let seconds = positions as f64 / rate + lower + scratch + network;
            let seconds = seconds + distance_seconds.unwrap_or(0.0);
            tables += (positions as f64 * table_bytes) as u64;
            // The node's memory, as the build plans it: the engine's plan
            // (its levels and message buffers in it) and the lower layers
            // kept in memory.
            let levels_bytes = match plan.levels {
                true => engine::levels_bytes(share),
                false => 0,
            };
            let message_buffer_bytes = budget.message_buffer_bytes();
            let lower_resident_bytes = bytes_at(&places, Place::Resident, 0..seeds);
            Ok(LayerProjection {
                seeds,
                positions,
                share_positions: share,
                engine: plan.engine,
                least_memory_bytes: least_bytes(plan.engine, seeds, share) + message_buffer_bytes,
                engine_bytes: plan.engine_bytes - levels_bytes - message_buffer_bytes,
                levels_bytes,
                lower_resident_bytes,
                message_buffer_bytes,
                memory_bytes: plan.engine_bytes + lower_resident_bytes,
                disk_bytes: disk.bytes,
                distance_seconds,
                distances_while_building: distance_seconds.is_some() && plan.levels,
                network_bytes_per_position: network_bytes,
                table_bytes_per_position: table_bytes,
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
        message_bytes: message_bytes(a),
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
    let share = largest_share(seeds, budget);
    let plan = budget.plan(seeds, share)?;
    let places = placement(seeds, &plan, budget);
    Ok((share, plan, places))
}

/// Positions of the largest share of layer `seeds` under `budget` (the
/// layer, in one process).
fn largest_share(seeds: usize, budget: &Budget) -> u64 {
    (0..budget.ranks)
        .map(|rank| budget.share(seeds, rank).len())
        .max()
        .unwrap_or(0) as u64
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
/// many rounds as `disk` (if given) leaves room for. With several nodes,
/// all of it on the shared folder ([`shared_layer_bytes`]). A layer that
/// does not fit is an error naming the least it needs.
fn layer_disk(
    seeds: usize,
    share: u64,
    plan: &LayerPlan,
    places: &[Place],
    budget: &Budget,
    tables: u64,
    disk: Option<u64>,
) -> Result<LayerDisk, TablebaseError> {
    if budget.ranks > 1 {
        let bytes = tables + shared_layer_bytes(seeds, plan.levels);
        return match disk {
            Some(disk) if bytes > disk => Err(TablebaseError::PlanDiskTooSmall {
                seeds,
                needed: bytes,
                disk,
                shared: true,
            }),
            _ => Ok(LayerDisk { bytes, sweeps: 0 }),
        };
    }
    let copies =
        bytes_at(places, Place::Cached, 0..seeds) + bytes_at(places, Place::Streamed, 0..seeds);
    let fixed = tables + copies + layer_bytes(seeds, plan.engine, has_raw_copy(seeds, budget));
    let defers = places.contains(&Place::Streamed);
    let least = fixed + defers as u64 * deferred_bytes((plan.part as u64).min(share));
    let too_small = |disk| TablebaseError::PlanDiskTooSmall {
        seeds,
        needed: least,
        disk,
        shared: false,
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
            message_bytes: crate::distributed::MESSAGE_BYTES as u64,
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
        // Two nodes find them only as they build: where the levels fit
        // beside each share, never by a pass. With room for layer 20's
        // share but half its levels, the small layers are found, 20 not.
        let two = |memory| Assumptions {
            distances: true,
            nodes: 2,
            ..assumptions(memory)
        };
        let budget = node_budget(20, &two(1 << 30));
        let share = budget.share(20, 0).len() as u64;
        let tight = budget.message_buffer_bytes()
            + least_bytes(Engine::InMemory, 20, share)
            + engine::levels_bytes(share) / 2;
        let nodes = project(20, &two(tight)).unwrap();
        for l in &nodes.layers {
            assert_eq!(
                l.distance_seconds.is_some(),
                l.distances_while_building,
                "layer {}",
                l.seeds
            );
        }
        assert!(nodes.layers[16].distances_while_building);
        assert!(nodes.layers[20].distance_seconds.is_none());
        assert_eq!(nodes.layers[20].levels_bytes, 0);
        assert_eq!(
            nodes.layers[20].table_bytes_per_position,
            TABLE_BYTES_PER_POSITION
        );
        let roomy = project(20, &two(1 << 30)).unwrap();
        assert!(roomy.layers.iter().all(|l| l.distances_while_building));
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
        assert_eq!(stated["notice_bytes_per_position"], 0.0);
        assert_eq!(stated["message_bytes"], 0);
        assert_eq!(layer["network_bytes_per_position"], 0.0);
        assert_eq!(layer["message_buffer_bytes"], 0);
        assert_eq!(layer["share_positions"], index::layer_size(12));
        // One node keeps every lower layer that layer 12 reads in memory
        // (layer 11 is read by no layer above 12), and counts them.
        let kept: u64 = (0..=10).map(index::layer_size).sum();
        assert_eq!(layer["lower_resident_bytes"], kept);
        assert_eq!(
            layer["memory_bytes"],
            plan.layers[12].engine_bytes + plan.layers[12].levels_bytes + kept
        );
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
        use crate::tablebase::oware::builder::{OwareObserver, lower_cache_dir};

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
                message_bytes: options.message_bytes,
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

    /// `plan --nodes 16 --memory 64G --max-seeds 48`: each node's memory is
    /// the sum of its parts, as the build plans it, within the budget;
    /// layer 48's largest share is a 16th of it in whole chunks; the
    /// distances are found as the shares are built where the levels fit;
    /// the network carries the notices and the tables; the shared folder
    /// holds the tables, their part files and two checkpoints a rank.
    #[test]
    fn sixteen_nodes_project_what_each_node_holds_and_sends() {
        use crate::solve::oware::{CHUNK, OUTBOX_BYTES};
        let memory = 64 << 30;
        let sixteen = Assumptions {
            threads: 16,
            nodes: 16,
            distances: true,
            ..assumptions(memory)
        };
        let plan = project(MAX_SEEDS, &sixteen).unwrap();
        let buffers = 2 * OUTBOX_BYTES + crate::distributed::MESSAGE_BYTES as u64;
        assert_eq!(buffers, 384 << 20);
        let budget = node_budget(MAX_SEEDS, &sixteen);
        let notices = 22.0 * 15.0 / 16.0;
        assert_eq!(plan.assumptions.notice_bytes_per_position, notices);
        assert_eq!(plan.assumptions.outbox_bytes, OUTBOX_BYTES);
        let mut tables = 0u64;
        for l in &plan.layers {
            let what = format!("layer {}", l.seeds);
            assert!(l.memory_bytes <= memory, "{what}: {}", l.memory_bytes);
            assert_eq!(
                l.memory_bytes,
                l.engine_bytes + l.levels_bytes + l.lower_resident_bytes + l.message_buffer_bytes,
                "{what}"
            );
            assert_eq!(l.message_buffer_bytes, buffers, "{what}");
            let least = least_bytes(Engine::InMemory, l.seeds, l.share_positions);
            assert_eq!(l.least_memory_bytes, least + buffers, "{what}");
            assert_eq!(l.engine, Engine::InMemory, "{what}");
            // The engine holds at least 1.5 bytes a position of the share.
            assert!(l.engine_bytes >= l.share_positions * 3 / 2, "{what}");
            let largest = (0..16).map(|r| budget.share(l.seeds, r).len()).max();
            assert_eq!(Some(l.share_positions as usize), largest, "{what}");
            // Where the levels fit beside the share, the distances are found
            // as it is built; never by a pass.
            let least = least_bytes(Engine::InMemory, l.seeds, l.share_positions);
            let levels = engine::levels_bytes(l.share_positions);
            let fit = least + levels + buffers <= memory;
            assert_eq!(l.distances_while_building, fit, "{what}");
            assert_eq!(l.distance_seconds.is_some(), fit, "{what}");
            assert_eq!(l.levels_bytes, fit as u64 * levels, "{what}");
            let table = 0.40 + fit as u8 as f64 * 0.43;
            assert_eq!(l.table_bytes_per_position, table, "{what}");
            assert!(
                (l.network_bytes_per_position - (notices + table)).abs() < 1e-12,
                "{what}: {}",
                l.network_bytes_per_position
            );
            // The shared folder: the tables below, then two checkpoints of
            // 3.5 bytes a position (values, states, levels), or one and
            // this layer's tables and as much in part files.
            let checkpoint = if fit { 3.5 } else { 1.5 };
            let peak = f64::max(2.0 * checkpoint, checkpoint + 2.0 * table);
            let own = (l.positions as f64 * peak) as u64;
            assert_eq!(l.disk_bytes, tables + own, "{what}");
            assert_eq!(l.sweeps, 0, "{what}");
            tables += (l.positions as f64 * table) as u64;
        }
        // Layer 48: a 16th of its chunks, rounded up.
        let top = plan.layers.last().unwrap();
        assert_eq!(top.seeds, 48);
        let chunks = index::layer_size(48).div_ceil(CHUNK as u64);
        assert_eq!(top.share_positions, chunks.div_ceil(16) * CHUNK as u64);
        assert!(top.distances_while_building);
        // No layer is gathered: nothing near a whole layer per node.
        assert!(plan.peak_memory_bytes <= memory);
        // The same in the JSON.
        let json = serde_json::to_value(&plan).unwrap();
        let last = &json["layers"][47];
        assert_eq!(last["seeds"], 48);
        assert_eq!(last["share_positions"], top.share_positions);
        assert_eq!(last["message_buffer_bytes"], buffers);
        assert_eq!(json["assumptions"]["message_bytes"], 256u64 << 20);
        assert!(json["assumptions"].get("sent_bytes_per_position").is_none());
    }

    /// A share too large for its node is refused with the reason, not
    /// projected: as the build plans its layers, the largest first, so the
    /// error names what the whole build needs per node.
    #[test]
    fn a_share_too_large_for_its_node_is_refused() {
        let two = Assumptions {
            nodes: 2,
            distances: true,
            ..assumptions(8 << 30)
        };
        let err = project(40, &two).unwrap_err();
        let TablebaseError::ShareTooLarge {
            seeds,
            ranks,
            budget,
            needed,
        } = err
        else {
            panic!("{err}")
        };
        assert_eq!((seeds, ranks, budget), (40, 2, 8 << 30));
        let b = node_budget(40, &two);
        let share = b.share(40, 0).len() as u64;
        assert!(share >= index::layer_size(40) / 2);
        // Half of layer 40 at 1.5 bytes a position, the reserve and a
        // chunk's part, beside 2 x 64 MiB of outbox and a 256 MiB message.
        assert_eq!(
            needed,
            least_bytes(Engine::InMemory, 40, share) + (384 << 20)
        );
        assert!(needed > share * 3 / 2 + (384 << 20) + super::super::FIXED_BYTES);
        assert!(
            err.to_string().contains("layer 40 split over 2 ranks"),
            "{err}"
        );
        // Not projected at all, though the smaller layers fit: layer 35 is
        // the first whose share does not.
        let b = node_budget(34, &two);
        let room = (8 << 30) - b.message_buffer_bytes();
        let least = |s| least_bytes(Engine::InMemory, s, largest_share(s, &b));
        assert!(least(34) <= room && least(35) > room);
        assert!(project(34, &two).is_ok());
        let err = project(35, &two).unwrap_err();
        assert!(
            matches!(err, TablebaseError::ShareTooLarge { seeds: 35, .. }),
            "{err}"
        );
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
