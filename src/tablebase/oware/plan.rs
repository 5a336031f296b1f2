//! Projections of a build: per layer, the engine the memory budget allows,
//! the memory, the disk and the time it takes. Rates come from a short
//! calibration build on this machine, scaled by stated assumptions.

use std::time::Instant;

use super::build::{BuildOptions, Mode, plan_layer, plan_share};
use super::{TablebaseError, build, ruleset_dir, table_path};
use crate::error::PathContext;
use crate::games::oware::{MAX_SEEDS, Ruleset};
use crate::index::oware as index;
use crate::tablebase::FileError;
use crate::tablebase::Quiet;

/// Bytes of a finished table per position (awari layers ≤ 26, measured
/// 2026-11-30: 0.387 for ≤ 20, 0.395 for ≤ 26).
pub const TABLE_BYTES_PER_POSITION: f64 = 0.40;
/// Peak bytes of an out-of-core layer's scratch files per position (exits by
/// size and positions by threshold; measured 1.36 on awari layer 18).
pub const SCRATCH_BYTES_PER_POSITION: f64 = 1.4;
/// How the rate of the engines falls with the layer size `P`: as
/// `P^−RATE_EXPONENT`, fitted to the in-memory builds measured here (9.2 M
/// positions/s at layer 20, 5.5 at layer 26 on 2 cores): random accesses
/// miss the caches more as the layer grows.
pub const RATE_EXPONENT: f64 = 0.23;
/// Share of a node's rate kept when `K` nodes share a layer (messages,
/// waiting at the end of each round): an assumption until the MPI build
/// measures it.
pub const NODE_EFFICIENCY: f64 = 0.7;

/// The rates measured by [`calibrate`].
#[derive(Clone, Copy, Debug)]
pub struct Calibration {
    /// The layer built.
    pub seeds: usize,
    /// Worker threads of the calibration builds.
    pub threads: usize,
    /// Positions per second of that layer in memory.
    pub in_memory: f64,
    /// Positions per second of that layer out of core.
    pub bounded: f64,
}

/// Builds layers `0..=seeds` in a temporary folder, the last one twice (in
/// memory, then out of core with its lower layers read from their tables),
/// and measures both rates. Runs on the current rayon pool.
pub fn calibrate(rules: Ruleset, seeds: usize) -> Result<Calibration, TablebaseError> {
    let dir = std::env::temp_dir().join(format!("mancala-tb-calibrate-{}", std::process::id()));
    let result = (|| {
        let roomy = 16 << 30;
        build(&dir, rules, &BuildOptions::new(seeds - 1, roomy), &Quiet)?;
        let time = |memory| -> Result<f64, TablebaseError> {
            let start = Instant::now();
            build(&dir, rules, &BuildOptions::new(seeds, memory), &Quiet)?;
            let seconds = start.elapsed().as_secs_f64();
            let table = table_path(&ruleset_dir(&dir, rules), seeds);
            std::fs::remove_file(&table)
                .map_err(FileError::Io)
                .at(&table)?;
            Ok(index::layer_size(seeds) as f64 / seconds)
        };
        let in_memory = time(roomy)?;
        // The least budget of the bounded engine, with room for parts.
        let tight = bounded_budget(seeds);
        let bounded = time(tight)?;
        Ok(Calibration {
            seeds,
            threads: rayon::current_num_threads(),
            in_memory,
            bounded,
        })
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// A budget that builds layer `seeds` out of core in parts of a few
/// hundred thousand positions, with little room for lower layers.
fn bounded_budget(seeds: usize) -> u64 {
    let positions = index::layer_size(seeds);
    let mut budget = (positions as f64 * 0.7) as u64 + super::FIXED_BYTES + (8 << 20);
    while plan_layer(seeds, budget).is_err() {
        budget += 1 << 20;
    }
    budget
}

/// What the projection assumes.
#[derive(Clone, Copy, Debug)]
pub struct Assumptions {
    /// The rates measured here.
    pub calibration: Calibration,
    /// Threads per node of the projected build; rates scale linearly.
    pub threads: usize,
    /// Nodes sharing each layer.
    pub nodes: usize,
    /// Memory budget per node.
    pub memory: u64,
}

/// One layer of a projection.
#[derive(Clone, Copy, Debug)]
pub struct LayerProjection {
    /// The layer.
    pub seeds: usize,
    /// Its positions.
    pub positions: u64,
    /// The engine the memory budget allows.
    pub mode: Mode,
    /// Peak memory per node (the engine; lower layers are read from disk).
    pub memory_bytes: u64,
    /// Disk in use at the end of the layer's build, all nodes together:
    /// the tables so far plus the layer's scratch.
    pub disk_bytes: u64,
    /// Wall time of the layer's build.
    pub seconds: f64,
}

/// The projection of building layers `0..=max_seeds`, without layer 47 when
/// 48 is asked for: no position of the game has 47 seeds (a capture takes
/// at least 2 of the 48), and layer 48 reads only layers 46 and below. A
/// layer whose share does not fit a node's budget even out of core is an
/// error naming the minimum.
pub fn project(
    max_seeds: usize,
    assumptions: &Assumptions,
) -> Result<Vec<LayerProjection>, TablebaseError> {
    if max_seeds > MAX_SEEDS {
        return Err(TablebaseError::TooManySeeds(max_seeds));
    }
    let a = assumptions;
    let c = a.calibration;
    let reference = index::layer_size(c.seeds) as f64;
    let scale = a.threads as f64 / c.threads as f64
        * if a.nodes > 1 {
            a.nodes as f64 * NODE_EFFICIENCY
        } else {
            1.0
        };
    let mut tables = 0.0;
    (0..=max_seeds)
        .filter(|&seeds| !(max_seeds == MAX_SEEDS && seeds == MAX_SEEDS - 1))
        .map(|seeds| {
            let positions = index::layer_size(seeds);
            // Each node holds its share of the layer's states.
            let share = positions.div_ceil(a.nodes as u64);
            let plan = plan_share(seeds, share, a.memory)?;
            let base = match plan.mode {
                Mode::InMemory => c.in_memory,
                Mode::Bounded => c.bounded,
            };
            let slowdown = (positions.max(1) as f64 / reference)
                .max(1.0)
                .powf(-RATE_EXPONENT);
            let seconds = positions as f64 / (base * slowdown * scale);
            let scratch = match plan.mode {
                Mode::InMemory => 0.0,
                Mode::Bounded => positions as f64 * SCRATCH_BYTES_PER_POSITION,
            };
            tables += positions as f64 * TABLE_BYTES_PER_POSITION;
            Ok(LayerProjection {
                seeds,
                positions,
                mode: plan.mode,
                memory_bytes: plan.engine_bytes,
                disk_bytes: (tables + scratch) as u64,
                seconds,
            })
        })
        .collect()
}
