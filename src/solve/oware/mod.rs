//! The Oware retrograde engine: builds one layer (all indexed positions with
//! `n` seeds) from the finished lower layers, in parallel, without storing
//! edges.
//!
//! Values come from the threshold view of `docs/design.md`. For `t = n, n−1, …, 1`:
//! a position is won at `t` when a capture (or the end of the game) is worth
//! `t`, or a non-capturing move leads to a child lost at `t`; it is lost at
//! `−t` when every move is worth at most `−t`, i.e. its captures are worth at
//! most `−t` and all its non-capturing children are won at `t` or better.
//! Going down the thresholds the won/lost sets only grow, so one counter per
//! position ("non-capturing children not yet won") serves every threshold and
//! each edge is walked once backwards. Positions never resolved are draws
//! (perpetual play, or a best line worth exactly 0).
//!
//! Three engines ([`Engine`]) share the set-up pass ([`set_up`]):
//! - [`solve_layer`], in memory ([`in_memory`]): one value byte per
//!   position (the best exit while unresolved, the result afterwards) and a
//!   4-bit state, 1.5 bytes in all; the fast path where the layer fits.
//! - [`out_of_core::solve_layer`]: only the state and one bit per position in
//!   memory (0.625 bytes), exits and results streamed through scratch
//!   files in rank order; for layers larger than memory.
//! - [`compact::solve_layer`]: two bits a position in memory, the rest
//!   streamed like the out-of-core engine's; for layers larger still.
//!
//! The first two share the 4-bit states and their propagation ([`states`]);
//! the two that stream share the scratch files and the steps around their
//! own ([`scratch`]), on the streams of ranks of [`stream`].
//!
//! The rooms, each importing only those listed after it: the engines
//! ([`in_memory`], [`out_of_core`], [`compact`]); the streamed engines'
//! scratch files ([`scratch`]); the set-up ([`set_up`]); the streams and
//! the deferred lookups ([`stream`]); the distances ([`distance`]); the
//! states and their propagation ([`states`]); the checkpoints
//! ([`checkpoint`]); the engines' facts ([`engine`]); the seam to the lower
//! layers ([`lower`]); and what all share ([`shared`]). This file is only
//! their face: the paths the rest of the crate uses, and the one fact of
//! [`Engine`] that needs the engines' buffers.

mod checkpoint;
pub mod compact;
pub mod distance;
mod engine;
mod in_memory;
mod lower;
pub mod out_of_core;
mod scratch;
mod set_up;
mod shared;
mod states;
mod stream;

pub use checkpoint::checkpoint_path;
pub use engine::Engine;
pub use in_memory::{SolvedLayer, levels_bytes, solve_layer, solve_share};
pub use lower::{Lookup, LowerLayers, PART_BYTES};
pub use set_up::set_up_layer;
pub use shared::{CHUNK, Config, EngineError, OutOfMemory, prefetch};
pub use states::OUTBOX_BYTES;
pub use stream::{DEFERRED_BYTES_PER_POSITION, Deferred};

use crate::games::oware::Ruleset;
use crate::solve::Progress;

/// A layer as its engine hands it back.
pub enum Solved {
    /// Whole, in memory (the in-memory engine).
    InMemory(SolvedLayer),
    /// Already passed to the caller, chunk by chunk (the engines that
    /// stream).
    Streamed,
}

/// The dispatch to the engines, and the facts of an engine that need its
/// buffers' sizes (its other facts: `engine.rs`, which the engines import,
/// so these cannot live there without a circle).
impl Engine {
    /// Solves layer `seeds` with this engine. The engines that stream pass
    /// each chunk, in rank order, to `emit`: its values, and the same with
    /// `mark` where a capture decides the value. The in-memory engine hands
    /// the layer back whole and never calls `emit`.
    #[allow(clippy::too_many_arguments)]
    pub fn solve_layer<L, E>(
        self,
        rules: Ruleset,
        seeds: usize,
        lower: &L,
        config: &Config,
        mark: i8,
        progress: Progress,
        emit: impl FnMut(&[i8], &[i8]) -> Result<(), E>,
    ) -> Result<Solved, EngineError<E>>
    where
        L: LowerLayers<Error = E>,
        E: std::error::Error + 'static,
    {
        match self {
            Engine::InMemory => {
                solve_layer(rules, seeds, lower, config, progress).map(Solved::InMemory)
            }
            Engine::OutOfCore => {
                out_of_core::solve_layer(rules, seeds, lower, config, mark, progress, emit)
                    .map(|()| Solved::Streamed)
            }
            Engine::Compact => {
                compact::solve_layer(rules, seeds, lower, config, mark, progress, emit)
                    .map(|()| Solved::Streamed)
            }
        }
    }

    /// The least memory the engine takes for layer `seeds` beside its
    /// arrays and parts, whatever the threads: its stream buffers and the
    /// least of its other buffers.
    pub fn fixed_bytes(self, seeds: usize) -> u64 {
        match self {
            Engine::InMemory => 0,
            Engine::OutOfCore => out_of_core::fixed_bytes(seeds),
            Engine::Compact => compact::fixed_bytes(seeds),
        }
    }

    /// Memory beyond [`Engine::fixed_bytes`] that the engine's buffers take
    /// on `threads` workers with memory to spare (given less, they shrink).
    pub fn buffer_bytes(self, seeds: usize, threads: usize) -> u64 {
        match self {
            Engine::InMemory => 0,
            Engine::OutOfCore => out_of_core::buffer_bytes(seeds, threads),
            Engine::Compact => compact::buffer_bytes(seeds, threads),
        }
    }
}
