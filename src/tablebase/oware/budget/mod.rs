//! What a layer's build costs and what the budget allows: the engine and its
//! parts in memory (here), where the lower layers go ([`places`]) and the
//! disk it takes ([`disk`]). The build, `verify` and `plan` all decide with
//! these; none of them is needed here.

use std::ops::Range;

pub(crate) mod disk;
mod places;

use crate::distributed;
use crate::index::oware as index;
use crate::solve::oware::{self as engine, CHUNK, Engine};
use crate::tablebase::oware::TablebaseError;
pub(crate) use places::{Place, place_within, placement};

/// Largest part of a layer set up (or written) at once while the lower
/// layers it reads most fit in memory beside it; else parts grow up to a
/// 16th of the layer: each part's batch of lower lookups takes about 32
/// bytes a position, and reads every block of the stored lower layers it
/// touches, so a layer reading its tables wants few parts.
pub(in crate::tablebase::oware) const MAX_PART: usize = 1 << 22;
const MAX_PARTS: usize = 16;
/// Positions of stored lower layers the in-memory engine's parts may
/// decode per position of the layer before streaming is faster: a decoded
/// position costs about 4 ns, while streaming costs the out-of-core
/// engine's lower rate (15–25% of a large layer's few microseconds a
/// position) and its deferred lookups' I/O. `plan oware`'s model puts the
/// break-even near 300 (docs/scale.md).
const STREAMING_BREAK_EVEN: u64 = 300;
/// Chunks a thread a part gets before the buffers of an engine that
/// streams its exits grow beyond their least, where memory is tight: the
/// set-up works on a part's chunks in parallel.
const PARALLEL_CHUNKS: usize = 2;
/// Memory beside the engines' arrays and parts: thread stacks, the table
/// writer's batches, decoded blocks in flight, scratch buffers (the
/// set-up's buckets among them).
pub const FIXED_BYTES: u64 = 48 << 20;

/// The lower layers a set-up reads most: two and three seeds below (most
/// captures take 2 or 3).
fn hot_layers(seeds: usize) -> impl Iterator<Item = usize> {
    [2, 3].into_iter().filter_map(move |d| seeds.checked_sub(d))
}

/// The engine and memory chosen for a layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayerPlan {
    /// The engine.
    pub engine: Engine,
    /// Positions set up (and written) at once.
    pub part: usize,
    /// Memory of the engine's own buffers beyond its arrays and parts
    /// (the engine's `fixed_bytes` and as much of its `buffer_bytes` as
    /// the budget leaves; 0 in memory).
    pub buffer_bytes: u64,
    /// Peak memory of the engine, its parts and the fixed overhead (and
    /// its levels, if it finds the distances).
    pub engine_bytes: u64,
    /// The in-memory engine finds the layer's distances as it builds it
    /// ([`engine::levels_bytes`] more memory); without, a pass over the
    /// finished layer finds them where it fits.
    pub levels: bool,
}

/// The engine for layer `seeds` under `budget` bytes: the fastest that fits
/// (in memory, out of core, compact) with the largest parts that fit, else
/// the error that names the least budget that would do.
pub fn plan_layer(seeds: usize, budget: u64) -> Result<LayerPlan, TablebaseError> {
    plan_share(seeds, index::layer_size(seeds), budget)
}

/// [`plan_layer`] for a machine that holds `positions` of the layer (its
/// share in a distributed build).
pub fn plan_share(seeds: usize, positions: u64, budget: u64) -> Result<LayerPlan, TablebaseError> {
    let minimum = |e: &TablebaseError| match e {
        TablebaseError::TooLittleMemory { minimum, .. } => *minimum,
        _ => u64::MAX,
    };
    let mut least: Option<TablebaseError> = None;
    for engine in Engine::ALL {
        match plan_engine(engine, seeds, positions, budget) {
            Ok(plan) => return Ok(plan),
            // At small layers the compact engine's buffers outweigh the
            // bits it saves: the error names whichever needs least.
            Err(e) if least.as_ref().is_none_or(|l| minimum(&e) < minimum(l)) => least = Some(e),
            Err(_) => {}
        }
    }
    Err(least.expect("three engines were tried"))
}

/// What an engine needs for `positions` of layer `seeds`: its arrays, its
/// least memory besides, its parts' bytes a position, and what its
/// buffers take beyond the least with memory to spare on this pool's
/// threads.
struct Needs {
    arrays: u64,
    fixed: u64,
    part_bytes: u64,
    buffers: u64,
}

fn needs(engine: Engine, seeds: usize, positions: u64) -> Needs {
    Needs {
        arrays: (positions as f64 * engine.bytes_per_position()) as u64,
        fixed: engine.fixed_bytes(seeds),
        part_bytes: engine.part_bytes_per_position(),
        buffers: engine.buffer_bytes(seeds, rayon::current_num_threads()),
    }
}

/// The least budget of `engine` for `positions` of layer `seeds`, whatever
/// the threads: its arrays, its fixed memory, a part of one chunk and the
/// reserve ([`FIXED_BYTES`]).
pub fn least_bytes(engine: Engine, seeds: usize, positions: u64) -> u64 {
    let Needs {
        arrays,
        fixed,
        part_bytes,
        ..
    } = needs(engine, seeds, positions);
    arrays + fixed + FIXED_BYTES + CHUNK as u64 * part_bytes
}

/// `plan_share` with the engine given: its largest parts that fit, or
/// the error that names its least budget.
pub fn plan_engine(
    engine: Engine,
    seeds: usize,
    positions: u64,
    budget: u64,
) -> Result<LayerPlan, TablebaseError> {
    let rounded = (positions as usize).div_ceil(CHUNK) * CHUNK;
    // The layers a set-up reads most: kept in memory, they are looked up
    // directly, the fastest way; otherwise every part reads their tables.
    // Whole layers, a byte a position, even for a share: its captures
    // reach every position of them.
    let hot: u64 = hot_layers(seeds).map(index::layer_size).sum();
    // The largest part (a multiple of the engines' chunk) that `room` bytes
    // hold at `bytes` a position, if any: up to `MAX_PART` if the room left
    // holds the hot layers, else up to a 16th of the layer.
    let part = |room: u64, bytes: u64| {
        let chunks = room / (CHUNK as u64 * bytes);
        let leaves_hot = room >= MAX_PART as u64 * bytes + hot;
        let cap = match leaves_hot {
            true => MAX_PART,
            false => MAX_PART.max((rounded / MAX_PARTS).div_ceil(CHUNK) * CHUNK),
        };
        (chunks > 0).then(|| (chunks as usize * CHUNK).min(rounded.max(CHUNK)).min(cap))
    };
    // The engine's arrays and fixed memory, then a part of one chunk (the
    // least); then parts of up to `PARALLEL_CHUNKS` chunks a thread (a
    // part's chunks are set up in parallel); then the buffers what they
    // take with memory to spare, or what is left; the parts the rest.
    let Needs {
        arrays,
        fixed,
        part_bytes,
        buffers,
    } = needs(engine, seeds, positions);
    let base = arrays + fixed + FIXED_BYTES;
    let least_part = CHUNK as u64 * part_bytes;
    let parallel = (PARALLEL_CHUNKS * rayon::current_num_threads()).min(rounded / CHUNK) as u64;
    let plan = budget
        .checked_sub(base + least_part)
        .map(|spare| buffers.min(spare.saturating_sub(parallel.saturating_sub(1) * least_part)))
        .and_then(|more| Some((more, part(budget - base - more, part_bytes)?)));
    match plan {
        Some((more, part)) => Ok(LayerPlan {
            engine,
            part,
            buffer_bytes: fixed + more,
            engine_bytes: base + more + part as u64 * part_bytes,
            levels: false,
        }),
        None => Err(TablebaseError::TooLittleMemory {
            seeds,
            budget,
            minimum: base + least_part,
            engine,
        }),
    }
}

/// What each layer of a build gets, per process.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Budget {
    /// The layers built: `0..=max_seeds`.
    pub max_seeds: usize,
    /// Memory, bytes.
    pub memory: u64,
    /// Scratch for lower layers kept decoded (cached), bytes: none in a
    /// distributed build, whose ranks read their tables.
    pub lower_cache: u64,
    /// Processes sharing each layer.
    pub ranks: usize,
    /// The notices a rank of a distributed build queues before an
    /// exchange, bytes.
    pub outbox_bytes: u64,
    /// The most bytes one message of a distributed build carries.
    pub message_bytes: u64,
    /// The engine of every layer a single process builds, if it fits;
    /// `None`: the fastest that fits.
    pub engine: Option<Engine>,
    /// Whether the build finds the distances: a layer built in memory by
    /// one process finds them as it is built where its levels fit.
    pub distances: bool,
}

impl Budget {
    /// The positions of layer `seeds` that process `rank` holds.
    pub fn share(&self, seeds: usize, rank: usize) -> Range<usize> {
        distributed::share(index::layer_size(seeds) as usize, rank, self.ranks, CHUNK)
    }

    /// Memory a rank of a distributed build holds for its messages during
    /// an exchange: its outgoing queues (the outbox), what it receives (at
    /// most as much) and one message piece in flight; none in one process.
    pub fn message_buffer_bytes(&self) -> u64 {
        match self.ranks {
            1 => 0,
            _ => 2 * self.outbox_bytes + self.message_bytes,
        }
    }

    /// The fastest engine for all of layer `seeds` in one process: in
    /// memory if it fits, unless it would leave layers `n−2` or `n−3` in
    /// their tables and take so many parts that decoding them (each part
    /// decodes them whole: captures reach them all) costs more than
    /// streaming: an engine that streams its exits reads them once, in
    /// order.
    fn fastest(&self, seeds: usize, positions: u64) -> Result<LayerPlan, TablebaseError> {
        let plan = plan_share(seeds, positions, self.memory)?;
        let parts = positions.div_ceil(plan.part as u64);
        let places = placement(seeds, &plan, self);
        let hot_stored: u64 = hot_layers(seeds)
            .filter(|&s| places[s] == Place::Stored)
            .map(index::layer_size)
            .sum();
        if plan.engine != Engine::InMemory || parts * hot_stored <= STREAMING_BREAK_EVEN * positions
        {
            return Ok(plan);
        }
        [Engine::OutOfCore, Engine::Compact]
            .into_iter()
            .find_map(|engine| plan_engine(engine, seeds, positions, self.memory).ok())
            .map_or(Ok(plan), Ok)
    }

    /// The engine for a process's `positions` of layer `seeds` (all of it,
    /// or its share); shares are built in memory only, beside the message
    /// buffers ([`message_buffer_bytes`](Self::message_buffer_bytes)): a
    /// share that does not fit is [`TablebaseError::ShareTooLarge`].
    pub fn plan(&self, seeds: usize, positions: u64) -> Result<LayerPlan, TablebaseError> {
        if self.ranks == 1 {
            let plan = match self.engine {
                Some(engine) => plan_engine(engine, seeds, positions, self.memory),
                None => self.fastest(seeds, positions),
            }?;
            // In memory, the levels that find the distances come before
            // larger parts.
            let levels_bytes = engine::levels_bytes(positions);
            if self.distances
                && plan.engine == Engine::InMemory
                && let Some(room) = self.memory.checked_sub(levels_bytes)
                && let Ok(with) = plan_engine(Engine::InMemory, seeds, positions, room)
            {
                return Ok(LayerPlan {
                    levels: true,
                    engine_bytes: with.engine_bytes + levels_bytes,
                    ..with
                });
            }
            return Ok(plan);
        }
        let buffers = self.message_buffer_bytes();
        // Only the in-memory engine builds a share: any other shortfall,
        // however small the budget, is the share's.
        let room = self.memory.saturating_sub(buffers);
        let Ok(plan) = plan_engine(Engine::InMemory, seeds, positions, room) else {
            return Err(TablebaseError::ShareTooLarge {
                seeds,
                ranks: self.ranks,
                budget: self.memory,
                needed: least_bytes(Engine::InMemory, seeds, positions) + buffers,
            });
        };
        // The levels that find the distances, where they fit beside.
        let levels_bytes = engine::levels_bytes(positions);
        if self.distances
            && let Some(room) = self.memory.checked_sub(buffers + levels_bytes)
            && let Ok(with) = plan_engine(Engine::InMemory, seeds, positions, room)
        {
            return Ok(LayerPlan {
                levels: true,
                engine_bytes: with.engine_bytes + buffers + levels_bytes,
                ..with
            });
        }
        Ok(LayerPlan {
            engine_bytes: plan.engine_bytes + buffers,
            ..plan
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(max_seeds: usize, memory: u64) -> Budget {
        Budget {
            max_seeds,
            memory,
            lower_cache: 0,
            ranks: 1,
            outbox_bytes: crate::solve::oware::OUTBOX_BYTES,
            message_bytes: distributed::MESSAGE_BYTES as u64,
            engine: None,
            distances: false,
        }
    }

    /// An engine's least budget is its arrays and a constant, whatever the
    /// threads: at it the buffers are the least and the parts a chunk;
    /// with memory to spare they are what the threads take.
    #[test]
    fn the_least_budget_does_not_grow_with_the_threads() {
        let positions = index::layer_size(26);
        for engine in [Engine::InMemory, Engine::OutOfCore, Engine::Compact] {
            let least = least_bytes(engine, 26, positions);
            let mut roomy = Vec::new();
            for threads in [1, 2, 16, 64] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                pool.install(|| {
                    let Needs { fixed, buffers, .. } = needs(engine, 26, positions);
                    assert_eq!(least_bytes(engine, 26, positions), least);
                    let plan = plan_engine(engine, 26, positions, least).unwrap();
                    assert_eq!((plan.part, plan.buffer_bytes), (CHUNK, fixed));
                    assert_eq!(plan.engine_bytes, least);
                    match plan_engine(engine, 26, positions, least - 1) {
                        Err(TablebaseError::TooLittleMemory { minimum, .. }) => {
                            assert_eq!(minimum, least)
                        }
                        other => panic!("{other:?}"),
                    }
                    let plan = plan_engine(engine, 26, positions, least + (1 << 30)).unwrap();
                    assert_eq!(plan.buffer_bytes, fixed + buffers);
                    roomy.push(buffers);
                });
            }
            // More threads, more buffers, where memory allows.
            assert!(roomy.is_sorted(), "{engine}: {roomy:?}");
        }
    }

    #[test]
    fn a_layer_that_would_decode_its_lower_tables_per_part_streams_them() {
        // Layer 36 fits in memory in 20 GiB, but with room for parts of a
        // few million positions, each decoding layers 34 and 33 whole.
        let positions = index::layer_size(36);
        let in_memory = plan_share(36, positions, 20 << 30).unwrap();
        assert_eq!(in_memory.engine, Engine::InMemory);
        assert!(positions.div_ceil(in_memory.part as u64) > 1000);
        let plan = budget(36, 20 << 30).plan(36, positions).unwrap();
        assert_eq!(plan.engine, Engine::OutOfCore);
        let places = placement(36, &plan, &budget(36, 20 << 30));
        assert_eq!(places[34], Place::Streamed);
        // With the memory to keep them, it stays in memory.
        let plan = budget(36, 48 << 30).plan(36, positions).unwrap();
        assert_eq!(plan.engine, Engine::InMemory);
        // An engine asked for is the engine used.
        let forced = Budget {
            engine: Some(Engine::InMemory),
            ..budget(36, 20 << 30)
        };
        assert_eq!(forced.plan(36, positions).unwrap().engine, Engine::InMemory);
    }
}
