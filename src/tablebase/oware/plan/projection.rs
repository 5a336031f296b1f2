//! The projection of a build from its rates: per layer, the engine the
//! memory budget allows, the memory, the disk and the time it takes, with
//! the numbers it rests on ([`Figures`]).

use std::ops::Range;

use super::rates::{Calibration, RATE_EXPONENT, RATE_FALL_ENDS, RecordedRates, fall};
use crate::games::oware::MAX_SEEDS;
use crate::index::oware as index;
use crate::solve::oware::{
    self as engine, CHUNK, DEFERRED_BYTES_PER_POSITION, Engine, compact, out_of_core,
};
use crate::tablebase::oware::budget::disk::{
    DISTANCE_TABLE_BYTES_PER_POSITION, TABLE_BYTES_PER_POSITION, deferred_bytes, has_raw_copy,
    layer_bytes, share_checkpoint_bytes_per_position, shared_layer_bytes, sweep_within,
    table_bytes_per_position,
};
use crate::tablebase::oware::budget::{Budget, LayerPlan, Place, least_bytes, placement};
use crate::tablebase::oware::{BuildOptions, TablebaseError, distance};

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
pub(super) const DECODE_SECONDS_PER_POSITION: f64 = 4e-9;
/// Sequential disk bandwidth per node assumed (a workstation's NVMe disk),
/// for the lower layers streamed and the set-up's deferred lookups.
pub(super) const DISK_BYTES_PER_SECOND: f64 = 1e9;
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

/// Bytes crossing the network per position of a layer whose tables take
/// `table_bytes` a position, on `nodes`: each node sends its share's
/// notices and writes its share of the tables into the shared folder.
fn network_bytes_per_position(nodes: usize, table_bytes: f64) -> f64 {
    match nodes {
        1 => 0.0,
        k => notice_bytes_per_position(k) + table_bytes,
    }
}

/// What the projection assumes.
#[derive(Clone, Debug)]
pub struct Assumptions {
    /// The rates measured here.
    pub calibration: Calibration,
    /// Threads per node of the projected build; rates scale by
    /// [`SerialShares::speedup`](super::SerialShares::speedup).
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

/// A projected build.
#[derive(Clone, Debug)]
pub struct Projection {
    /// The numbers it rests on besides its assumptions.
    pub figures: Figures,
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
#[derive(Clone, Copy, Debug)]
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
    pub engine: Engine,
    /// Bytes crossing the network per position of the layer (0 in one
    /// process): the notices ([`Figures::notice_bytes_per_position`]) and
    /// the tables written into the shared folder
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

/// The numbers a projection rests on besides its [`Assumptions`]: the
/// constants of this model and of the build, some as the assumptions make
/// them. `plan oware` states them.
#[derive(Clone, Debug, PartialEq)]
pub struct Figures {
    /// How the rate falls with the layer size `P` where no build recorded
    /// it: as `P^−rate_exponent` (`RATE_EXPONENT`).
    pub rate_exponent: f64,
    /// The layer beyond whose size the rate no longer falls
    /// (`RATE_FALL_ENDS`).
    pub rate_fall_ends_seeds: usize,
    /// Share of a node's rate kept when several nodes share a layer
    /// (`NODE_EFFICIENCY`).
    pub node_efficiency: f64,
    /// Bytes of notices a node sends per position of a layer with
    /// [`Assumptions::nodes`] (`22 × (K − 1) / K`; 0 in one process).
    pub notice_bytes_per_position: f64,
    /// The same if every notice went to another rank
    /// (`NOTICE_BYTES_PER_POSITION`).
    pub remote_notice_bytes_per_position: f64,
    /// Seconds per position to decode a stored table block, per thread
    /// (`DECODE_SECONDS_PER_POSITION`).
    pub decode_seconds_per_position: f64,
    /// Sequential disk bandwidth per node (`DISK_BYTES_PER_SECOND`).
    pub disk_bytes_per_second: f64,
    /// Network bandwidth per node (`NETWORK_BYTES_PER_SECOND`).
    pub network_bytes_per_second: f64,
    /// The time finding a layer's distances as it is built adds, as a share
    /// of its build (`LEVELS_SHARE`).
    pub levels_share: f64,
    /// The distance pass's time over the in-memory build's of the layer
    /// (`DISTANCE_SHARE`).
    pub distance_share: f64,
    /// Positions of the engines' chunks: a node's share is whole chunks.
    pub chunk_positions: usize,
    /// The notices a rank queues before an exchange (as `build oware`; 0
    /// in one process).
    pub outbox_bytes: u64,
    /// [`Assumptions::message_bytes`], as the transport keeps it (0 in one
    /// process).
    pub message_bytes: u64,
    /// The set-up's deferred lookups, bytes per position.
    pub deferred_bytes_per_position: f64,
    /// A layer's value table, bytes per position.
    pub table_bytes_per_position: f64,
    /// A layer's distance table, bytes per position.
    pub distance_table_bytes_per_position: f64,
    /// A rank's checkpoint of its share, bytes per position, with the
    /// levels.
    pub checkpoint_bytes_per_position: f64,
    /// The same without the levels (values and states).
    pub checkpoint_bytes_per_position_without_levels: f64,
    /// Memory of the levels that find the distances as a layer is built,
    /// per position.
    pub levels_bytes_per_position: f64,
    /// Memory of the distance pass per position, its values decoded.
    pub pass_bytes_per_position: f64,
    /// A stream's buffer, of the engines that stream their exits (two per
    /// exit size).
    pub stream_bytes: u64,
    /// The out-of-core engine's least buffers.
    pub out_of_core_least_buffer_bytes: u64,
    /// The compact engine's least buffers.
    pub compact_least_buffer_bytes: u64,
    /// The compact engine's buffers per thread, with memory to spare.
    pub compact_thread_bytes: u64,
}

impl From<&Assumptions> for Figures {
    fn from(a: &Assumptions) -> Figures {
        Figures {
            rate_exponent: RATE_EXPONENT,
            rate_fall_ends_seeds: RATE_FALL_ENDS,
            node_efficiency: NODE_EFFICIENCY,
            notice_bytes_per_position: notice_bytes_per_position(a.nodes),
            remote_notice_bytes_per_position: NOTICE_BYTES_PER_POSITION,
            decode_seconds_per_position: DECODE_SECONDS_PER_POSITION,
            disk_bytes_per_second: DISK_BYTES_PER_SECOND,
            network_bytes_per_second: NETWORK_BYTES_PER_SECOND,
            levels_share: LEVELS_SHARE,
            distance_share: DISTANCE_SHARE,
            chunk_positions: CHUNK,
            outbox_bytes: match a.nodes {
                1 => 0,
                _ => engine::OUTBOX_BYTES,
            },
            message_bytes: message_bytes(a),
            deferred_bytes_per_position: DEFERRED_BYTES_PER_POSITION,
            table_bytes_per_position: TABLE_BYTES_PER_POSITION,
            distance_table_bytes_per_position: DISTANCE_TABLE_BYTES_PER_POSITION,
            checkpoint_bytes_per_position: share_checkpoint_bytes_per_position(true),
            checkpoint_bytes_per_position_without_levels: share_checkpoint_bytes_per_position(
                false,
            ),
            levels_bytes_per_position: engine::levels_bytes(1 << 20) as f64 / (1 << 20) as f64,
            pass_bytes_per_position: distance::pass_bytes_per_position(false),
            stream_bytes: (compact::fixed_bytes(1) - compact::fixed_bytes(0)) / 2,
            out_of_core_least_buffer_bytes: out_of_core::LEAST_BUFFER_BYTES,
            compact_least_buffer_bytes: compact::LEAST_BUFFER_BYTES,
            compact_thread_bytes: compact::buffer_bytes(26, 2) - compact::buffer_bytes(26, 1),
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
        figures: assumptions.into(),
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
    a: &Assumptions,
    rates: f64,
) -> Result<Vec<LayerProjection>, TablebaseError> {
    let budget = node_budget(max_seeds, a);
    // The tables written so far, on the disk of each layer after them.
    let mut tables = 0u64;
    (0..=max_seeds)
        .filter(|&seeds| !(max_seeds == MAX_SEEDS && seeds == MAX_SEEDS - 1))
        .map(|seeds| {
            let layer = project_layer(seeds, a, &budget, tables, rates)?;
            tables += (layer.positions as f64 * layer.table_bytes_per_position) as u64;
            Ok(layer)
        })
        .collect()
}

/// Layer `seeds` of [`project`] with `tables` bytes of tables below it:
/// how the node with the largest share builds it under `budget`, the disk
/// it takes, and its time (every engine's rate multiplied by `rates`).
fn project_layer(
    seeds: usize,
    a: &Assumptions,
    budget: &Budget,
    tables: u64,
    rates: f64,
) -> Result<LayerProjection, TablebaseError> {
    let positions = index::layer_size(seeds);
    let (share, plan, places) = node_plan(seeds, budget)?;
    let in_memory = in_memory_rate(a, seeds, positions);
    let rate = layer_rate(a, plan.engine, in_memory) * rates;
    let disk = layer_disk(seeds, share, &plan, &places, budget, tables, a.disk)?;
    let lower = read_lower(seeds, share, &plan, &places, disk.sweeps, a.threads);
    // The calibration's scratch files stayed in the page cache.
    let scratch = share as f64 * plan.engine.io_bytes_per_position() / DISK_BYTES_PER_SECOND;
    let distance_seconds = distance_seconds(a, seeds, plan.levels, rate, in_memory);
    let table_bytes = table_bytes_per_position(distance_seconds.is_some());
    let network_bytes = network_bytes_per_position(a.nodes, table_bytes);
    let network = positions as f64 * network_bytes / a.nodes as f64 / NETWORK_BYTES_PER_SECOND;
    let seconds = positions as f64 / rate + lower + scratch + network;
    let seconds = seconds + distance_seconds.unwrap_or(0.0);
    // The node's memory, as the build plans it: the engine's plan (its
    // levels and message buffers in it) and the lower layers kept in
    // memory.
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
}

/// Positions per second of layer `seeds` (of `positions`) in memory with
/// the calibration's threads: as an earlier build here recorded it, else
/// the calibration's falling with the layer size.
fn in_memory_rate(a: &Assumptions, seeds: usize, positions: u64) -> f64 {
    let c = a.calibration;
    match a.recorded.as_ref().and_then(|r| r.rate(seeds)) {
        Some(one_thread) => one_thread * c.serial.speedup(Engine::InMemory, c.threads),
        None => c.in_memory * fall(index::layer_size(c.seeds), positions, RATE_EXPONENT),
    }
}

/// Positions per second at which all nodes together build a layer with
/// `engine`, from its `in_memory` rate: out of core and compact keep the
/// share of it the calibration measured; the threads projected scale it by
/// Amdahl's law, and several nodes keep [`NODE_EFFICIENCY`] of theirs.
fn layer_rate(a: &Assumptions, engine: Engine, in_memory: f64) -> f64 {
    let c = a.calibration;
    let nodes = if a.nodes > 1 {
        a.nodes as f64 * NODE_EFFICIENCY
    } else {
        1.0
    };
    let engine_rate = match engine {
        Engine::InMemory => in_memory,
        Engine::OutOfCore => in_memory * c.out_of_core / c.in_memory,
        Engine::Compact => in_memory * c.compact / c.in_memory,
    };
    engine_rate * c.serial.speedup(engine, a.threads) / c.serial.speedup(engine, c.threads) * nodes
}

/// The time finding the distances of layer `seeds` adds to its build at
/// `rate`, or `None` where the build finds none: with `levels`, the engine
/// finds them as it builds; else a pass over the finished layer, at its
/// `in_memory` rate with the threads projected, where it fits the memory.
/// Several nodes find them only as they build: no pass runs across them.
fn distance_seconds(
    a: &Assumptions,
    seeds: usize,
    levels: bool,
    rate: f64,
    in_memory: f64,
) -> Option<f64> {
    let c = a.calibration;
    let positions = index::layer_size(seeds) as f64;
    let pass_fits = distance::pass_bytes(seeds, false) <= a.memory;
    match (a.distances, levels) {
        (false, _) => None,
        (true, true) => Some(positions / rate * LEVELS_SHARE),
        (true, false) => (a.nodes == 1 && pass_fits).then(|| {
            positions * DISTANCE_SHARE / in_memory / c.serial.speedup(Engine::InMemory, a.threads)
                * c.serial.speedup(Engine::InMemory, c.threads)
        }),
    }
}

/// What each node of the build `a` projects gets for each layer of
/// `0..=max_seeds`: the budget of `build oware` asked for it.
pub(super) fn node_budget(max_seeds: usize, a: &Assumptions) -> Budget {
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
pub(super) fn node_plan(
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
pub(super) fn largest_share(seeds: usize, budget: &Budget) -> u64 {
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
pub(super) fn read_lower(
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
pub(super) fn bytes_at(places: &[Place], place: Place, layers: Range<usize>) -> u64 {
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
