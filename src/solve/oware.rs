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
//!
//! Phases alternate so that no value byte is ever shared with a writer: the
//! threshold scan owns its chunk of values and states; the propagation only
//! reads values and changes states with atomic updates (a position resolved
//! there is marked `FRESH`, and the next scan writes its value).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use rayon::prelude::*;

use super::Progress;
use super::array::BigArray;
use crate::games::oware::{self, Board, Ruleset};
use crate::index::oware as index;
use crate::solve::threshold::{self, NO_EXIT, Verdict};

/// Positions per parallel work unit (a multiple of 16: one state word holds 16).
const CHUNK: usize = 1 << 15;
/// Resolved positions kept on a worker's stack before it leaves them to the
/// next scan of the pending bits.
const STACK_LIMIT: usize = 1 << 16;

/// 4-bit position states. Unresolved: bits 0..=2 count the non-capturing
/// children not yet known to be won. Resolved: `RESOLVED`, plus `PENDING`
/// until its parents have been told, `LOSS` for a lost position and `FRESH`
/// until its value byte is written. Once both are done the sign is in the
/// value byte, and the `LOSS` bit says instead whether the value is that of
/// the position's best exit (`EXIT`).
const RESOLVED: u64 = 0b1000;
const FRESH: u64 = 0b0100;
const LOSS: u64 = 0b0010;
const EXIT: u64 = 0b0010;
const PENDING: u64 = 0b0001;
const COUNTER: u64 = 0b0111;
const NIBBLE: u64 = 0b1111;
/// Bit 0 of each of the 16 states of a word.
const LOW_BITS: u64 = 0x1111_1111_1111_1111;
/// States per word.
const PER_WORD: usize = 16;

/// Reads the values of finished lower layers.
pub trait LowerLayers: Sync {
    /// The value of the position of rank `rank` in layer `seeds` (below the
    /// layer being built).
    fn value(&self, seeds: usize, rank: u64) -> i8;
    /// Hints that `value(seeds, rank)` will be asked for soon.
    fn prefetch(&self, _seeds: usize, _rank: u64) {}
}

/// Solves layer `seeds`; returns the value of every indexed position in rank
/// order, or the system's refusal of the memory. Runs on the current rayon
/// pool.
pub fn solve_layer(
    rules: Ruleset,
    seeds: usize,
    lower: &dyn LowerLayers,
    progress: Progress,
) -> std::io::Result<SolvedLayer> {
    let mut layer = Layer::new(rules, seeds)?;
    layer.set_up(lower, progress);
    for t in (1..=seeds as i8).rev() {
        layer.scan_threshold(t);
        while layer.propagate(t, progress) > 0 {}
    }
    Ok(layer.finish(progress))
}

struct Layer {
    rules: Ruleset,
    seeds: usize,
    /// Best capture value while unresolved (`NO_EXIT` if none), then the value.
    values: BigArray<i8>,
    /// 4-bit states, 16 per word.
    states: BigArray<AtomicU64>,
}

/// A parent to tell: its rank, its board, and whether the child is lost.
type Parent = (usize, Board, bool);

/// Pending positions whose parents are told together.
const BATCH: usize = 16;

/// The pending positions of a range of state words, in rank order.
struct PendingScan<'a> {
    states: &'a [AtomicU64],
    seeds: usize,
    word: usize,
    end: usize,
    /// Pending bits of the word before `word` not yet returned.
    pending: u64,
    /// The last position whose board was asked for.
    cursor: Option<(usize, Board)>,
}

/// Ranks a cursor steps forward rather than unranking.
const STEPS: usize = 8;

impl PendingScan<'_> {
    /// The board of a position returned by the scan: stepped to from the
    /// previous one when it is close, unranked otherwise.
    fn board(&mut self, rank: usize) -> Board {
        let board = match self.cursor {
            Some((at, mut board)) if at <= rank && rank - at <= STEPS => {
                for _ in at..rank {
                    index::next_indexed(&mut board);
                }
                board
            }
            _ => index::unrank(self.seeds, rank as u64),
        };
        self.cursor = Some((rank, board));
        board
    }
}

impl Iterator for PendingScan<'_> {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        while self.pending == 0 {
            if self.word == self.end {
                return None;
            }
            let word = self.states[self.word].load(Ordering::Relaxed);
            self.pending = word & (word >> 3) & LOW_BITS;
            self.word += 1;
        }
        let slot = self.pending.trailing_zeros() as usize / 4;
        self.pending &= self.pending - 1;
        Some((self.word - 1) * PER_WORD + slot)
    }
}

impl Layer {
    fn new(rules: Ruleset, seeds: usize) -> std::io::Result<Layer> {
        let size = index::layer_size(seeds) as usize;
        Ok(Layer {
            rules,
            seeds,
            values: BigArray::zeroed(size)?,
            states: BigArray::zeroed(size.div_ceil(PER_WORD))?,
        })
    }

    /// The layer cut into work units, each owning its values and state words.
    fn chunks_mut(
        &mut self,
    ) -> impl IndexedParallelIterator<Item = (usize, &mut [i8], &mut [AtomicU64])> {
        self.values
            .par_chunks_mut(CHUNK)
            .zip(self.states.par_chunks_mut(CHUNK / PER_WORD))
            .enumerate()
            .map(|(c, (values, states))| (c * CHUNK, values, states))
    }

    /// Forward pass: for every position, the best value its captures (or the
    /// end of the game) offer and the number of its non-capturing moves.
    fn set_up(&mut self, lower: &dyn LowerLayers, progress: Progress) {
        let (rules, seeds) = (self.rules, self.seeds);
        self.chunks_mut().for_each(|(start, values, states)| {
            let mut board = index::unrank(seeds, start as u64);
            // Captures of the current word: looked up after all their lower
            // layer entries have been asked for, so the misses overlap.
            let mut captures = Vec::with_capacity(PER_WORD * oware::SIDE);
            for (values, word) in values.chunks_mut(PER_WORD).zip(states) {
                let mut counters = 0u64;
                for (slot, value) in values.iter_mut().enumerate() {
                    let moves = oware::legal_moves(rules, &board);
                    *value = if moves.is_empty() {
                        oware::no_move_value(rules, &board)
                    } else {
                        NO_EXIT
                    };
                    for mv in moves.iter() {
                        if mv.captured == 0 {
                            counters += 1 << (4 * slot);
                        } else {
                            let rest = seeds - mv.captured as usize;
                            let rank = index::rank_indexed(&mv.child, rest);
                            lower.prefetch(rest, rank);
                            captures.push((slot, mv.captured as i8, rest, rank));
                        }
                    }
                    index::next_indexed(&mut board);
                }
                for (slot, captured, rest, rank) in captures.drain(..) {
                    values[slot] = values[slot].max(captured - lower.value(rest, rank));
                }
                *word.get_mut() = counters;
            }
            progress(values.len() as u64);
        });
    }

    /// Settles the positions resolved at threshold `t + 1` (see [`settle`]),
    /// then resolves the positions that are won or lost at `t` by their own
    /// exits: a capture worth `t`, or nothing left but exits worth `−t`. (An
    /// unresolved position's best exit is at most `t`, and if it is at most
    /// `−t` with no move left, exactly `−t`.)
    fn scan_threshold(&mut self, t: i8) {
        self.chunks_mut().for_each(|(_, values, states)| {
            for (values, word) in values.chunks_mut(PER_WORD).zip(states) {
                let word = word.get_mut();
                // Only values ±t (exits to seed) and ±(t+1) (resolved at
                // t + 1) matter here; most groups hold neither.
                let mut candidates = 0u16;
                for (slot, &v) in values.iter().enumerate() {
                    let hit = v == t || v == -t || v == t + 1 || v == -(t + 1);
                    candidates |= u16::from(hit) << slot;
                }
                let fresh = *word & (*word >> 1) & (LOW_BITS << 2);
                if candidates == 0 && fresh == 0 {
                    continue;
                }
                for (slot, value) in values.iter_mut().enumerate() {
                    let shift = 4 * slot;
                    let state = (*word >> shift) & NIBBLE;
                    let new = if state & RESOLVED != 0 {
                        match settle(state, value, t + 1) {
                            Some(new) => new,
                            None => continue,
                        }
                    } else if candidates & (1 << slot) == 0 {
                        continue;
                    } else {
                        match threshold::seed(*value, state & COUNTER != 0, t) {
                            Some(Verdict::Won) => RESOLVED | PENDING,
                            Some(Verdict::Lost) => RESOLVED | PENDING | LOSS,
                            None => continue,
                        }
                    };
                    *word = (*word & !(NIBBLE << shift)) | (new << shift);
                }
            }
        });
    }

    /// One scan over the pending positions, telling their parents. Resolved
    /// parents go on the worker's stack (or stay pending for the next scan).
    /// Returns the number of positions handled.
    fn propagate(&self, t: i8, progress: Progress) -> usize {
        let handled = AtomicUsize::new(0);
        let words = self.states.len();
        let per_chunk = CHUNK / PER_WORD;
        (0..words.div_ceil(per_chunk))
            .into_par_iter()
            .for_each_init(
                || (Vec::new(), Vec::new()),
                |(stack, parents), c| {
                    let mut scan = PendingScan {
                        states: &self.states,
                        seeds: self.seeds,
                        word: c * per_chunk,
                        end: ((c + 1) * per_chunk).min(words),
                        pending: 0,
                        cursor: None,
                    };
                    let mut count = 0;
                    loop {
                        // Gather the parents of a batch of positions first, so
                        // that their state words are fetched from memory in
                        // parallel, then tell them.
                        parents.clear();
                        let mut batch = 0;
                        while batch < BATCH {
                            let (rank, board) = match stack.pop() {
                                Some((rank, board)) => (rank, Some(board)),
                                None => match scan.next() {
                                    Some(rank) => (rank, None),
                                    None => break,
                                },
                            };
                            if let Some(lost) = self.take_pending(rank) {
                                let board = board.unwrap_or_else(|| scan.board(rank));
                                self.gather_parents(&board, lost, parents);
                                batch += 1;
                            }
                        }
                        if batch == 0 {
                            break;
                        }
                        count += batch;
                        for &(parent, parent_board, lost) in parents.iter() {
                            let resolved = if lost {
                                // A move to a lost child wins t for the parent.
                                self.resolve_parent_win(parent)
                            } else {
                                self.count_down(parent, t)
                            };
                            if resolved && stack.len() < STACK_LIMIT {
                                stack.push((parent, parent_board));
                            }
                        }
                    }
                    handled.fetch_add(count, Ordering::Relaxed);
                    progress(count as u64);
                },
            );
        handled.into_inner()
    }

    /// Appends the parents of a position (lost or won at the current
    /// threshold) and asks for their state words.
    fn gather_parents(&self, board: &Board, lost: bool, parents: &mut Vec<Parent>) {
        oware::for_each_unmove(self.rules, board, |parent, _pit| {
            let rank = index::rank_indexed(parent, self.seeds) as usize;
            prefetch(&self.states[rank / PER_WORD]);
            if !lost {
                // Counting down to zero reads the parent's best capture.
                prefetch(&self.values[rank]);
            }
            parents.push((rank, *parent, lost));
        });
    }

    /// Clears the pending bit of a resolved position; returns whether it was
    /// lost, or `None` if it was not pending (or another worker took it).
    fn take_pending(&self, rank: usize) -> Option<bool> {
        let shift = 4 * (rank % PER_WORD);
        let word = &self.states[rank / PER_WORD];
        let state = (word.load(Ordering::Acquire) >> shift) & NIBBLE;
        if state & (RESOLVED | PENDING) != RESOLVED | PENDING {
            return None;
        }
        // Resolved states never change back, so bit 0 is the pending bit here.
        let before = word.fetch_and(!(PENDING << shift), Ordering::AcqRel);
        ((before >> shift) & PENDING != 0).then_some(state & LOSS != 0)
    }

    /// Resolves an unresolved parent as won at the current threshold.
    fn resolve_parent_win(&self, rank: usize) -> bool {
        let shift = 4 * (rank % PER_WORD);
        let word = &self.states[rank / PER_WORD];
        word.fetch_update(Ordering::AcqRel, Ordering::Acquire, |w| {
            let state = (w >> shift) & NIBBLE;
            (state & RESOLVED == 0)
                .then(|| (w & !(NIBBLE << shift)) | ((RESOLVED | FRESH | PENDING) << shift))
        })
        .is_ok()
    }

    /// One more non-capturing child of this parent is won: count it down; with
    /// none left and no capture better than −t the parent is lost at −t.
    fn count_down(&self, rank: usize, t: i8) -> bool {
        let shift = 4 * (rank % PER_WORD);
        let word = &self.states[rank / PER_WORD];
        let mut lost = false;
        let updated = word.fetch_update(Ordering::AcqRel, Ordering::Acquire, |w| {
            let state = (w >> shift) & NIBBLE;
            if state & RESOLVED != 0 {
                return None;
            }
            debug_assert!(state & COUNTER > 0, "counter underflow at rank {rank}");
            let left = (state & COUNTER) - 1;
            lost = left == 0 && threshold::lost_when_closed(self.values[rank], t);
            let new = if lost {
                RESOLVED | FRESH | PENDING | LOSS
            } else {
                left
            };
            Some((w & !(NIBBLE << shift)) | (new << shift))
        });
        updated.is_ok() && lost
    }

    /// Settles the positions resolved at threshold 1; unresolved positions
    /// are draws (decided by their exits if their best exit is worth 0).
    fn finish(mut self, progress: Progress) -> SolvedLayer {
        self.chunks_mut().for_each(|(_, values, states)| {
            let mut draws = 0;
            for (values, word) in values.chunks_mut(PER_WORD).zip(states) {
                let word = word.get_mut();
                for (slot, value) in values.iter_mut().enumerate() {
                    let shift = 4 * slot;
                    let state = (*word >> shift) & NIBBLE;
                    let new = if state & RESOLVED != 0 {
                        settle(state, value, 1).unwrap_or(state)
                    } else {
                        draws += 1;
                        let exit = *value == 0;
                        *value = 0;
                        RESOLVED | if exit { EXIT } else { 0 }
                    };
                    *word = (*word & !(NIBBLE << shift)) | (new << shift);
                }
            }
            progress(draws);
        });
        SolvedLayer {
            values: self.values,
            states: self.states,
        }
    }
}

/// A resolved position at the scan after its threshold `t`, its parents told:
/// a `FRESH` one gets its value (±t) written, and either kind learns whether
/// its value is that of its best exit (kept in `EXIT`). Returns the new state,
/// or `None` if there is nothing to do.
#[inline]
fn settle(state: u64, value: &mut i8, t: i8) -> Option<u64> {
    debug_assert!(state & RESOLVED != 0 && state & PENDING == 0);
    if state & FRESH != 0 {
        // The value byte still holds the best exit.
        let v = if state & LOSS != 0 { -t } else { t };
        let exit = *value == v;
        *value = v;
        Some(RESOLVED | if exit { EXIT } else { 0 })
    } else if *value == t || *value == -t {
        // Resolved by its exits when this threshold was scanned (later
        // thresholds never meet this value again).
        Some(RESOLVED | EXIT)
    } else {
        None
    }
}

/// A solved layer: the values, and which positions are decided by their exits.
pub struct SolvedLayer {
    values: BigArray<i8>,
    /// Final states: `RESOLVED`, plus `EXIT` for a position whose value is
    /// that of its best exit.
    states: BigArray<AtomicU64>,
}

impl SolvedLayer {
    /// The value of every position, in rank order.
    pub fn values(&self) -> &[i8] {
        &self.values
    }

    /// Replaces the value of every position whose value is that of its best
    /// exit (capture, or end of the game) with `mark`, and returns the values.
    pub fn mark_exit_decided(mut self, mark: i8) -> BigArray<i8> {
        let states = &self.states;
        self.values
            .par_chunks_mut(CHUNK)
            .enumerate()
            .for_each(|(c, values)| {
                for (i, value) in values.iter_mut().enumerate() {
                    let rank = c * CHUNK + i;
                    let state =
                        states[rank / PER_WORD].load(Ordering::Relaxed) >> (4 * (rank % PER_WORD));
                    if state & EXIT != 0 {
                        *value = mark;
                    }
                }
            });
        self.values
    }
}

/// Asks the CPU to start loading the memory at `address`, which will be
/// used soon.
#[inline]
pub fn prefetch<T>(address: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint; any address is allowed.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(address.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}
