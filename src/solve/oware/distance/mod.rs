//! The distance pass over a solved layer: for every position, the moves to
//! the capture (or the end of the game) that secures its value, when both
//! sides keep the value, the side ahead taking the fewest moves and the side
//! behind the most (`docs/format.md`, "Distance tables").
//!
//! Level by level, as the threshold engines resolve a threshold: level 0 is
//! the finished games, level 1 the positions whose value a capture keeps
//! (the `exits` the value table marks). A position ahead is at level `k + 1`
//! when a value-keeping move leads to a child at level `k` and none to a
//! lower one: the first such child found, since levels are found in order.
//! A position behind counts its value-keeping non-capturing moves; it is at
//! level `k + 1` when the last of them is found at level `k` (a value-keeping
//! capture, worth 1, never outlasts a move found later). Every other position
//! is a draw, at 0. Values come from the layer, so only edges inside it are
//! walked: each backwards once, from the child, as the engines walk them.
//!
//! A level is the positions of the ranges marked for it whose distance is
//! that level, found four at a time (a word holds four distances); the next
//! level's ranges are marked as its positions are found, so the many sparse
//! levels at the end skip most of the layer. Memory: two bytes a
//! position besides the values and exits.
//!
//! Its room: the in-memory engine's propagation level by level
//! ([`levels`]), which finds the same distances as it builds the layer.

use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, Ordering};

use rayon::prelude::*;

use super::shared::{CHUNK, OutOfMemory, PREFETCH_BATCH, prefetch};
use crate::games::oware::{self, Children, Ruleset};
use crate::index::oware as index;
use crate::solve::Progress;
use crate::solve::array::BigArray;

pub(super) mod levels;

/// The largest distance a table holds.
pub const MAX_DISTANCE: u16 = i16::MAX as u16;
/// A distance not found yet; a position behind keeps the number of its
/// value-keeping non-capturing moves not found yet in the bits below.
const UNFOUND: u16 = 1 << 15;
/// Bytes of memory the pass takes per position, besides the layer's values
/// (one byte) and exits (one bit).
pub const PASS_BYTES_PER_POSITION: u64 = 2;
/// Distances a word holds, each in 16 bits.
const PER_WORD: usize = 4;
/// Bit 0 of each distance of a word.
const DISTANCE_LOW_BITS: u64 = 0x0001_0001_0001_0001;
/// Positions a mark of a level covers: a level scans only the ranges marked
/// for it, so the long tail of sparse levels skips most of the layer (a
/// multiple of 16: a state word holds 16).
const MARK: usize = 1 << 10;

/// Why a layer's distances cannot be found.
#[derive(Debug, thiserror::Error)]
pub enum DistanceError {
    /// The values are not those of a solved layer: no line keeps this
    /// position's value (a damaged table, or a bug).
    #[error(
        "position {rank} of layer {seeds} (value {value:+}) has no line that keeps its value: \
         the layer's values are not consistent"
    )]
    Inconsistent { seeds: usize, rank: u64, value: i8 },
    /// A line longer than a table holds.
    #[error("layer {seeds} has a line of more than {MAX_DISTANCE} moves to its next capture")]
    TooLong { seeds: usize },
    #[error(transparent)]
    Memory(#[from] OutOfMemory),
}

/// The distance of every position of layer `seeds`, in rank order, from
/// its `values` and `exit(rank)`: whether the position's value is that of
/// its best capture or of the end of the game. Runs on the current rayon
/// pool; `progress` gets a step per position set up and one per position
/// not a draw walked.
pub fn solve_layer(
    rules: Ruleset,
    seeds: usize,
    values: &[i8],
    exit: &(impl Fn(usize) -> bool + Sync),
    progress: Progress,
) -> Result<Distances, DistanceError> {
    let size = values.len();
    debug_assert_eq!(size as u64, index::layer_size(seeds));
    let distances = Distances::zeroed(size).map_err(|source| OutOfMemory {
        seeds,
        bytes: size as u64 * PASS_BYTES_PER_POSITION,
        source,
    })?;
    // The ranges holding positions of the level being walked, and of the next.
    let (mut level, mut next) = (marks(size), marks(size));
    let pass = Pass {
        rules,
        seeds,
        values,
        distances: &distances,
    };
    (0..size.div_ceil(CHUNK)).into_par_iter().for_each(|c| {
        pass.start_chunk(c, exit, &level, &next);
        progress(CHUNK.min(size - c * CHUNK) as u64);
    });
    let mut depth = 0u16;
    while level.iter().chain(&next).any(|m| m.load(Ordering::Relaxed)) {
        if depth == MAX_DISTANCE {
            return Err(DistanceError::TooLong { seeds });
        }
        (0..level.len())
            .into_par_iter()
            .filter(|&m| level[m].swap(false, Ordering::Relaxed))
            .for_each(|m| progress(pass.walk(m * MARK..((m + 1) * MARK).min(size), depth, &next)));
        std::mem::swap(&mut level, &mut next);
        depth += 1;
    }
    // Every position not at a level is a draw; one behind still counting, or
    // one ahead never reached, has no value-keeping line.
    let stuck = (distances.words.par_iter().enumerate())
        .find_first(|(_, w)| w.load(Ordering::Relaxed) & DISTANCE_LOW_BITS << 15 != 0)
        .map(|(i, _)| (i * PER_WORD..).find(|&rank| distances.get(rank) & UNFOUND != 0));
    match stuck {
        Some(Some(rank)) => Err(DistanceError::Inconsistent {
            seeds,
            rank: rank as u64,
            value: values[rank],
        }),
        _ => Ok(distances),
    }
}

/// No range of a layer of `size` positions marked.
fn marks(size: usize) -> Vec<AtomicBool> {
    (0..size.div_ceil(MARK))
        .map(|_| AtomicBool::new(false))
        .collect()
}

/// The distances of a layer, four to a word.
pub struct Distances {
    words: BigArray<AtomicU64>,
    len: usize,
}

impl Distances {
    /// Every distance 0.
    fn zeroed(len: usize) -> std::io::Result<Distances> {
        let words = BigArray::zeroed(len.div_ceil(PER_WORD))?;
        Ok(Distances { words, len })
    }

    /// The distances of a layer of `len` positions held one to an item of
    /// `lanes` (rounded up to a whole word).
    fn from_lanes(lanes: BigArray<AtomicU16>, len: usize) -> Distances {
        debug_assert_eq!(lanes.len(), len.next_multiple_of(PER_WORD));
        Distances {
            words: lanes.into_words(),
            len,
        }
    }

    /// Positions.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The distance of the position of rank `rank`.
    #[inline]
    pub fn get(&self, rank: usize) -> u16 {
        let word = self.words[rank / PER_WORD].load(Ordering::Relaxed);
        (word >> (16 * (rank % PER_WORD))) as u16
    }

    /// Sets the distance of a position no other thread changes meanwhile.
    #[inline]
    fn set(&self, rank: usize, distance: u16) {
        let shift = 16 * (rank % PER_WORD);
        let word = &self.words[rank / PER_WORD];
        word.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |w| {
            Some(w & !(0xffff << shift) | u64::from(distance) << shift)
        })
        .ok();
    }

    /// The distances of `ranks`, appended to `out`.
    pub fn extend_into(&self, ranks: std::ops::Range<usize>, out: &mut Vec<i16>) {
        out.extend(ranks.map(|rank| self.get(rank) as i16));
    }
}

/// What both steps of the pass read.
struct Pass<'a> {
    rules: Ruleset,
    seeds: usize,
    values: &'a [i8],
    distances: &'a Distances,
}

impl Pass<'_> {
    /// Sets the starting distances of chunk `c`: 0 for draws and finished
    /// games, 1 for positions whose value a capture keeps (unless behind with
    /// longer value-keeping moves), [`UNFOUND`] for the others, with the count
    /// of value-keeping moves for those behind. Marks the ranges holding
    /// finished games that are not draws in `ended` (level 0), and positions
    /// at 1 in `captures`.
    fn start_chunk(
        &self,
        c: usize,
        exit: &(impl Fn(usize) -> bool + Sync),
        ended: &[AtomicBool],
        captures: &[AtomicBool],
    ) {
        let first = c * CHUNK;
        let end = (first + CHUNK).min(self.values.len());
        let mut board = oware::packed(&index::unrank(self.seeds, first as u64));
        // Positions behind with their number of quiet children, and those
        // children's ranks, counted a batch at a time.
        let mut behind = Vec::with_capacity(PREFETCH_BATCH);
        let mut children = Vec::with_capacity(PREFETCH_BATCH * oware::SIDE);
        let set = |rank: usize, distance: u16| {
            self.distances.set(rank, distance);
            match distance {
                0 => ended[rank / MARK].store(true, Ordering::Relaxed),
                1 => captures[rank / MARK].store(true, Ordering::Relaxed),
                _ => {}
            }
        };
        for rank in first..end {
            let value = self.values[rank];
            match value {
                0 => {}
                // Only a finished game needs its moves: it is at 0.
                1.. if !exit(rank) => set(rank, UNFOUND),
                1.. if Children::of_packed(self.rules, board).is_empty() => set(rank, 0),
                1.. => set(rank, 1),
                _ => {
                    let moves = Children::of_packed(self.rules, board);
                    if moves.is_empty() {
                        set(rank, 0);
                    } else {
                        let before = children.len();
                        for pit in moves.quiet() {
                            let child = index::rank_packed(moves.packed_child(pit), self.seeds);
                            prefetch(&self.values[child as usize]);
                            children.push(child as usize);
                        }
                        behind.push((rank, value, children.len() - before));
                        if behind.len() == PREFETCH_BATCH {
                            self.count_keeping(&mut behind, &mut children, exit, &set);
                        }
                    }
                }
            }
            index::next_packed(&mut board);
        }
        self.count_keeping(&mut behind, &mut children, exit, &set);
    }

    /// Sets the starting distances of positions behind (rank, value, number
    /// of quiet children, whose ranks follow each other in `children`):
    /// their value-keeping non-capturing moves to find, or 1 if a capture
    /// keeps their value without them. Empties both lists.
    fn count_keeping(
        &self,
        behind: &mut Vec<(usize, i8, usize)>,
        children: &mut Vec<usize>,
        exit: &(impl Fn(usize) -> bool + Sync),
        set: &impl Fn(usize, u16),
    ) {
        let mut next = 0;
        for &(rank, value, quiet) in behind.iter() {
            let mine = &children[next..next + quiet];
            next += quiet;
            let keeping = mine.iter().filter(|&&c| self.values[c] == -value).count() as u16;
            match keeping {
                // Without one the value is that of a capture, or nothing
                // keeps it (found at the end).
                0 if exit(rank) => set(rank, 1),
                _ => set(rank, UNFOUND | keeping),
            }
        }
        behind.clear();
        children.clear();
    }

    /// Tells the parents of the positions of `ranks` (a marked range) at
    /// distance `depth` (not draws) that a value-keeping move of theirs is
    /// found: a parent ahead is at `depth + 1` unless found before, one
    /// behind when this was its last. Marks the ranges of the parents found
    /// in `next`. Returns the number of positions walked.
    fn walk(&self, ranks: std::ops::Range<usize>, depth: u16, next: &[AtomicBool]) -> u64 {
        let (first, end) = (ranks.start, ranks.end);
        let mut cursor = index::Cursor::new(self.seeds);
        let mut parents = Vec::with_capacity(PREFETCH_BATCH * 8);
        let mut at_depth = AtDepth {
            words: &self.distances.words[first / PER_WORD..end.div_ceil(PER_WORD)],
            first,
            end,
            word: 0,
            found: 0,
            repeated: u64::from(depth) * DISTANCE_LOW_BITS,
        }
        .filter(|&rank| depth > 0 || self.values[rank] != 0);
        let mut walked = 0;
        loop {
            // The parents of a batch of positions first, so that their
            // values and distances are fetched from memory in parallel.
            parents.clear();
            let mut batch = 0;
            for rank in at_depth.by_ref().take(PREFETCH_BATCH) {
                batch += 1;
                let keeps = -self.values[rank];
                let board = cursor.board(rank as u64);
                oware::for_each_unmove(self.rules, board, |parent, _pit| {
                    let parent = index::rank_packed(parent, self.seeds) as usize;
                    prefetch(&self.values[parent]);
                    prefetch(&self.distances.words[parent / PER_WORD]);
                    parents.push((parent, keeps));
                });
            }
            if batch == 0 {
                return walked;
            }
            walked += batch;
            for &(parent, keeps) in &parents {
                if self.values[parent] == keeps && self.found(parent, keeps > 0, depth + 1) {
                    next[parent / MARK].store(true, Ordering::Relaxed);
                }
            }
        }
    }

    /// One value-keeping move of `rank` is found, its child at `distance − 1`:
    /// returns whether that sets the position's distance.
    #[inline]
    fn found(&self, rank: usize, ahead: bool, distance: u16) -> bool {
        let shift = 16 * (rank % PER_WORD);
        let word = &self.distances.words[rank / PER_WORD];
        if ahead {
            word.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |w| {
                (w >> shift & 0xffff == u64::from(UNFOUND))
                    .then(|| w & !(0xffff << shift) | u64::from(distance) << shift)
            })
            .is_ok()
        } else {
            // The count is at least 1 here: the subtraction stays in its 16 bits.
            let before = word.fetch_sub(1 << shift, Ordering::Relaxed);
            let last = before >> shift & 0xffff == u64::from(UNFOUND | 1);
            if last {
                self.distances.set(rank, distance);
            }
            last
        }
    }
}

/// The ranks of a range of distance words whose distance is `repeated`'s.
struct AtDepth<'a> {
    words: &'a [AtomicU64],
    /// The rank of the first distance of the first word, and the end of
    /// the range.
    first: usize,
    end: usize,
    /// The next word to look at.
    word: usize,
    /// Bit 15 of each distance of the word before `word` still to return.
    found: u64,
    /// The distance sought, in every 16 bits.
    repeated: u64,
}

impl Iterator for AtDepth<'_> {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        while self.found == 0 {
            let word = self.words.get(self.word)?.load(Ordering::Relaxed);
            self.word += 1;
            // A lane is zero where the distance is the one sought; its top
            // bit (with that of a lane holding 0x8000 from the difference
            // only where a borrow crossed, checked below) marks it.
            let x = word ^ self.repeated;
            self.found = (x.wrapping_sub(DISTANCE_LOW_BITS) & !x) & (DISTANCE_LOW_BITS << 15);
        }
        let lane = self.found.trailing_zeros() as usize / 16;
        self.found &= self.found - 1;
        let rank = self.first + (self.word - 1) * PER_WORD + lane;
        let exact = (self.words[self.word - 1].load(Ordering::Relaxed) >> (16 * lane)) as u16
            == self.repeated as u16;
        if rank < self.end && exact {
            Some(rank)
        } else {
            self.next()
        }
    }
}
