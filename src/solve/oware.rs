//! The Oware retrograde engine: builds one layer (all indexed positions with
//! `n` seeds) from the finished lower layers, in parallel, without storing
//! edges.
//!
//! Values come from the threshold view of DESIGN.md. For `t = n, n−1, …, 1`:
//! a position is won at `t` when a capture (or the end of the game) is worth
//! `t`, or a non-capturing move leads to a child lost at `t`; it is lost at
//! `−t` when every move is worth at most `−t`, i.e. its captures are worth at
//! most `−t` and all its non-capturing children are won at `t` or better.
//! Going down the thresholds the won/lost sets only grow, so one counter per
//! position ("non-capturing children not yet won") serves every threshold and
//! each edge is walked once backwards. Positions never resolved are draws
//! (perpetual play, or a best line worth exactly 0).
//!
//! Memory per position: one value byte (the best capture value while
//! unresolved, the result afterwards) and a 4-bit state, 1.5 bytes in all.

use std::sync::atomic::{AtomicI8, AtomicU64, AtomicUsize, Ordering};

use rayon::prelude::*;

use crate::games::oware::{self, Board, Ruleset};
use crate::index::oware as index;

/// Positions per parallel work unit (a multiple of 16: one state word holds 16).
const CHUNK: usize = 1 << 15;
/// Resolved positions kept on a worker's stack before it leaves them to the
/// next scan of the pending bits.
const STACK_LIMIT: usize = 1 << 16;

/// `values` entry of an unresolved position without any capturing move.
const NO_EXIT: i8 = i8::MIN;

/// 4-bit position states. Unresolved: bits 0..=2 count the non-capturing
/// children not yet known to be won. Resolved: `RESOLVED`, plus `PENDING`
/// until its parents have been told, plus `LOSS` for a lost position.
const RESOLVED: u64 = 0b1000;
const PENDING: u64 = 0b0001;
const LOSS: u64 = 0b0010;
const COUNTER: u64 = 0b0111;
const NIBBLE: u64 = 0b1111;
/// The pending-and-resolved test for all 16 states of a word at once.
const LOW_BITS: u64 = 0x1111_1111_1111_1111;

/// Reads the values of finished lower layers.
pub trait LowerLayers: Sync {
    /// The value of an indexed position with `seeds` seeds (`seeds` below the
    /// layer being built).
    fn value(&self, seeds: usize, board: &Board) -> i8;
}

/// Counts of a finished layer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcomes {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

/// Progress callback: called with a number of work steps done; a layer of `P`
/// positions takes `2P` steps (one pass to set up, one to resolve).
pub type Progress<'a> = &'a (dyn Fn(u64) + Sync);

/// Solves layer `seeds`; returns the value of every indexed position in rank
/// order. Runs on the current rayon pool.
pub fn solve_layer(
    rules: Ruleset,
    seeds: usize,
    lower: &dyn LowerLayers,
    progress: Progress,
) -> Vec<i8> {
    let layer = Layer::new(rules, seeds);
    layer.set_up(lower, progress);
    for t in (1..=seeds as i8).rev() {
        layer.seed_threshold(t);
        while layer.propagate(t, progress) > 0 {}
    }
    layer.finish(progress)
}

/// Counts wins, draws and losses of a layer.
pub fn outcomes(values: &[i8]) -> Outcomes {
    values
        .par_chunks(CHUNK)
        .map(|chunk| {
            let mut o = Outcomes::default();
            for &v in chunk {
                match v.signum() {
                    1 => o.wins += 1,
                    0 => o.draws += 1,
                    _ => o.losses += 1,
                }
            }
            o
        })
        .reduce(Outcomes::default, |a, b| Outcomes {
            wins: a.wins + b.wins,
            draws: a.draws + b.draws,
            losses: a.losses + b.losses,
        })
}

struct Layer {
    rules: Ruleset,
    seeds: usize,
    size: usize,
    /// Best capture value while unresolved (`NO_EXIT` if none), then the value.
    values: Vec<AtomicI8>,
    /// 4-bit states, 16 per word.
    states: Vec<AtomicU64>,
}

impl Layer {
    fn new(rules: Ruleset, seeds: usize) -> Layer {
        let size = index::layer_size(seeds) as usize;
        Layer {
            rules,
            seeds,
            size,
            values: (0..size).map(|_| AtomicI8::new(0)).collect(),
            states: (0..size.div_ceil(16)).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    fn chunks(&self) -> impl ParallelIterator<Item = std::ops::Range<usize>> + use<> {
        let size = self.size;
        (0..size.div_ceil(CHUNK))
            .into_par_iter()
            .map(move |c| c * CHUNK..((c + 1) * CHUNK).min(size))
    }

    /// Forward pass: for every position, the best value its captures (or the
    /// end of the game) offer and the number of its non-capturing moves.
    fn set_up(&self, lower: &dyn LowerLayers, progress: Progress) {
        self.chunks().for_each(|range| {
            let mut board = index::unrank(self.seeds, range.start as u64);
            let mut word = 0u64;
            for rank in range.clone() {
                let moves = oware::legal_moves(self.rules, &board);
                let mut best = NO_EXIT;
                let mut same_layer = 0u64;
                if moves.is_empty() {
                    best = oware::no_move_value(self.rules, &board);
                }
                for mv in moves.iter() {
                    if mv.captured == 0 {
                        same_layer += 1;
                    } else {
                        let rest = self.seeds - mv.captured as usize;
                        let value = mv.captured as i8 - lower.value(rest, &mv.child);
                        best = best.max(value);
                    }
                }
                self.values[rank].store(best, Ordering::Relaxed);
                word |= same_layer << (4 * (rank % 16));
                if rank % 16 == 15 || rank + 1 == range.end {
                    self.states[rank / 16].store(word, Ordering::Relaxed);
                    word = 0;
                }
                index::next_indexed(&mut board);
            }
            progress(range.len() as u64);
        });
    }

    /// Resolves the positions that are won or lost at threshold `t` by their
    /// own exits: a capture worth `t`, or nothing left but exits worth ≤ −t.
    fn seed_threshold(&self, t: i8) {
        self.chunks().for_each(|range| {
            for w in range.start / 16..range.end.div_ceil(16) {
                let mut word = self.states[w].load(Ordering::Relaxed);
                let mut changed = false;
                for slot in 0..16 {
                    let rank = w * 16 + slot;
                    let state = (word >> (4 * slot)) & NIBBLE;
                    if rank >= self.size || state & RESOLVED != 0 {
                        continue;
                    }
                    let best = self.values[rank].load(Ordering::Relaxed);
                    let new = if best >= t {
                        self.values[rank].store(t, Ordering::Relaxed);
                        RESOLVED | PENDING
                    } else if state & COUNTER == 0 && best <= -t {
                        self.values[rank].store(-t, Ordering::Relaxed);
                        RESOLVED | PENDING | LOSS
                    } else {
                        continue;
                    };
                    word = (word & !(NIBBLE << (4 * slot))) | (new << (4 * slot));
                    changed = true;
                }
                if changed {
                    self.states[w].store(word, Ordering::Relaxed);
                }
            }
        });
    }

    /// One scan over the pending positions, telling their parents. Resolved
    /// parents go on the worker's stack (or stay pending for the next scan).
    /// Returns the number of positions handled.
    fn propagate(&self, t: i8, progress: Progress) -> usize {
        let handled = AtomicUsize::new(0);
        self.chunks().for_each_init(Vec::new, |stack, range| {
            let mut count = 0;
            for w in range.start / 16..range.end.div_ceil(16) {
                let word = self.states[w].load(Ordering::Relaxed);
                let mut pending = word & (word >> 3) & LOW_BITS;
                while pending != 0 {
                    let slot = pending.trailing_zeros() as usize / 4;
                    pending &= pending - 1;
                    self.handle(w * 16 + slot, t, stack, &mut count);
                    while let Some(rank) = stack.pop() {
                        self.handle(rank, t, stack, &mut count);
                    }
                }
            }
            handled.fetch_add(count, Ordering::Relaxed);
            progress(count as u64);
        });
        handled.into_inner()
    }

    /// Tells the parents of a pending position about it, if no other worker
    /// has done so.
    fn handle(&self, rank: usize, t: i8, stack: &mut Vec<usize>, count: &mut usize) {
        let Some(lost) = self.take_pending(rank) else {
            return;
        };
        *count += 1;
        let board = index::unrank(self.seeds, rank as u64);
        oware::for_each_unmove(self.rules, &board, |parent, _pit| {
            let parent = index::rank_indexed(parent, self.seeds) as usize;
            let resolved = if lost {
                // A move to a lost child wins t for the parent.
                self.resolve_parent_win(parent, t)
            } else {
                self.count_down(parent, t)
            };
            if resolved && stack.len() < STACK_LIMIT {
                stack.push(parent);
            }
        });
    }

    /// Clears the pending bit of a resolved position; returns whether it was
    /// lost, or `None` if it was not pending (or another worker took it).
    fn take_pending(&self, rank: usize) -> Option<bool> {
        let shift = 4 * (rank % 16);
        let word = &self.states[rank / 16];
        let state = (word.load(Ordering::Acquire) >> shift) & NIBBLE;
        if state & (RESOLVED | PENDING) != RESOLVED | PENDING {
            return None;
        }
        // Resolved states never change back, so bit 0 is the pending bit here.
        let before = word.fetch_and(!(PENDING << shift), Ordering::AcqRel);
        ((before >> shift) & PENDING != 0).then_some(state & LOSS != 0)
    }

    /// Resolves an unresolved parent as won at `t`.
    fn resolve_parent_win(&self, rank: usize, t: i8) -> bool {
        let shift = 4 * (rank % 16);
        let word = &self.states[rank / 16];
        let updated = word.fetch_update(Ordering::AcqRel, Ordering::Acquire, |w| {
            let state = (w >> shift) & NIBBLE;
            (state & RESOLVED == 0)
                .then(|| (w & !(NIBBLE << shift)) | ((RESOLVED | PENDING) << shift))
        });
        if updated.is_ok() {
            self.values[rank].store(t, Ordering::Relaxed);
        }
        updated.is_ok()
    }

    /// One more non-capturing child of this parent is won: count it down; with
    /// none left and no capture better than −t the parent is lost at −t.
    fn count_down(&self, rank: usize, t: i8) -> bool {
        let shift = 4 * (rank % 16);
        let word = &self.states[rank / 16];
        let mut lost = false;
        let updated = word.fetch_update(Ordering::AcqRel, Ordering::Acquire, |w| {
            let state = (w >> shift) & NIBBLE;
            if state & RESOLVED != 0 {
                return None;
            }
            debug_assert!(state & COUNTER > 0, "counter underflow at rank {rank}");
            let left = (state & COUNTER) - 1;
            // The best capture never changes while unresolved, so reading it
            // inside the update is safe.
            lost = left == 0 && self.values[rank].load(Ordering::Relaxed) <= -t;
            let new = if lost {
                RESOLVED | PENDING | LOSS
            } else {
                left
            };
            Some((w & !(NIBBLE << shift)) | (new << shift))
        });
        if updated.is_ok() && lost {
            self.values[rank].store(-t, Ordering::Relaxed);
        }
        updated.is_ok() && lost
    }

    /// Unresolved positions are draws; returns the finished values.
    fn finish(self, progress: Progress) -> Vec<i8> {
        self.chunks().for_each(|range| {
            let mut draws = 0;
            for rank in range {
                let state =
                    (self.states[rank / 16].load(Ordering::Relaxed) >> (4 * (rank % 16))) & NIBBLE;
                if state & RESOLVED == 0 {
                    self.values[rank].store(0, Ordering::Relaxed);
                    draws += 1;
                }
            }
            progress(draws);
        });
        drop(self.states);
        self.values.into_iter().map(AtomicI8::into_inner).collect()
    }
}
