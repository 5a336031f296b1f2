//! The set-up pass of both engines: for each position of a part of the
//! layer, the number of its non-capturing moves (its state's counter) and
//! the best value its exits offer (captures, or the end of the game). The
//! values of capture children are asked of the lower layers in one batch
//! per part, so that a lower layer kept compressed on disk is read in
//! order, one block decode per block touched, not one per lookup.

use std::sync::atomic::AtomicU64;

use rayon::prelude::*;

use super::CHUNK;
use super::states::PER_WORD;
use crate::games::oware::{self, Ruleset};
use crate::index::oware as index;
use crate::solve::threshold::NO_EXIT;

/// A position of a lower layer whose value is asked for.
#[derive(Clone, Copy, Debug, Default)]
pub struct Lookup {
    /// The rank of the position in its layer.
    pub rank: u64,
    /// The layer (seeds).
    pub seeds: u8,
    /// Filled in by [`LowerLayers::resolve`].
    pub value: i8,
    /// The asker's data: the seeds the capture took.
    pub captured: i8,
    /// The asker's data: where the answer goes.
    pub slot: u32,
}

/// Peak bytes per position of a part's set-up: its lookups (16 bytes, more
/// than one per position), the per-chunk lists they are gathered in, and
/// the nodes of lookups into stored layers with their expansions. Measured
/// at about 49 (awari layer 25 under `--memory 1G`, lower layers read from
/// their tables); 64 leaves a margin.
pub const PART_BYTES: u64 = 4 * size_of::<Lookup>() as u64;

/// The values of the finished lower layers, asked for in batches.
pub trait LowerLayers: Sync {
    type Error: Send;
    /// Fills in the `value` of every lookup (in any order; the slice keeps
    /// its order).
    fn resolve(&self, lookups: &mut [Lookup]) -> Result<(), Self::Error>;
}

/// Sets up the positions `start .. start + exits.len()` of layer `seeds`
/// (`start` a multiple of the engines' chunk): `exits[i]` gets the best exit
/// of position `start + i` ([`NO_EXIT`] if it has none), and its state the
/// number of its non-capturing moves. `states` are the words of those
/// positions.
pub fn set_up_part<L: LowerLayers>(
    rules: Ruleset,
    seeds: usize,
    start: usize,
    exits: &mut [i8],
    states: &mut [AtomicU64],
    lower: &L,
) -> Result<(), L::Error> {
    debug_assert!(start.is_multiple_of(CHUNK));
    let per_chunk: Vec<Vec<Lookup>> = exits
        .par_chunks_mut(CHUNK)
        .zip(states.par_chunks_mut(CHUNK / PER_WORD))
        .enumerate()
        .map(|(c, (exits, words))| {
            let mut lookups = Vec::with_capacity(exits.len());
            let first = start + c * CHUNK;
            let mut board = index::unrank(seeds, first as u64);
            for (w, (exits, word)) in exits.chunks_mut(PER_WORD).zip(words).enumerate() {
                let mut counters = 0u64;
                for (slot, exit) in exits.iter_mut().enumerate() {
                    let moves = oware::legal_moves(rules, &board);
                    *exit = if moves.is_empty() {
                        oware::no_move_value(rules, &board)
                    } else {
                        NO_EXIT
                    };
                    for mv in moves.iter() {
                        if mv.captured == 0 {
                            counters += 1 << (4 * slot);
                        } else {
                            let rest = seeds - mv.captured as usize;
                            lookups.push(Lookup {
                                rank: index::rank_indexed(&mv.child, rest),
                                seeds: rest as u8,
                                value: 0,
                                captured: mv.captured as i8,
                                slot: (w * PER_WORD + slot) as u32,
                            });
                        }
                    }
                    index::next_indexed(&mut board);
                }
                *word.get_mut() = counters;
            }
            lookups
        })
        .collect();
    let lens: Vec<usize> = per_chunk.iter().map(Vec::len).collect();
    let mut lookups = per_chunk.concat();
    lower.resolve(&mut lookups)?;
    // Lookups are in chunk order: fold each chunk's into its exits.
    let mut rest = lookups.as_slice();
    let mut batches = Vec::with_capacity(lens.len());
    for len in lens {
        let (batch, tail) = rest.split_at(len);
        batches.push(batch);
        rest = tail;
    }
    exits
        .par_chunks_mut(CHUNK)
        .zip(batches)
        .for_each(|(exits, lookups)| {
            for l in lookups {
                let exit = &mut exits[l.slot as usize];
                *exit = (*exit).max(l.captured - l.value);
            }
        });
    Ok(())
}
