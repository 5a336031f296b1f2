//! The in-memory engine: one value byte per position (the best exit while
//! unresolved, the result afterwards) and a 4-bit state, 1.5 bytes in all;
//! the fast path where the layer fits.
//!
//! Phases alternate so that no value byte is ever shared with a writer: the
//! threshold scan owns its chunk of values and states; the propagation only
//! reads values and changes states with atomic updates (a position resolved
//! there is marked `FRESH`, and the next scan writes its value).

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::checkpoint::{Checkpoint, RankCheckpoints};
use super::distance::Distances;
use super::distance::levels::{self, Levels};
use super::engine::Engine;
use super::lower::LowerLayers;
use super::set_up;
use super::shared::{CHUNK, Config, EngineError, OutOfMemory, prefetch};
use super::states::{
    COUNTER, Exits, FRESH, LOSS, LOW_BITS, NIBBLE, Outbox, PENDING, RESOLVED, STATES_PER_WORD,
    States, propagate_threshold,
};
use crate::distributed::{self, Alone, Transport};
use crate::games::oware::{self, Children, Ruleset};
use crate::index::oware as index;
use crate::solve::Progress;
use crate::solve::array::BigArray;
use crate::solve::phases::Phase;
use crate::solve::threshold::{self, Verdict};

/// After settling, the `LOSS` bit says instead whether the value is that of
/// the position's best exit.
const EXIT: u64 = LOSS;

/// Bytes of memory the in-memory engine takes besides its own to find the
/// distances of `positions` positions as it builds them
/// ([`Config::distances`]).
pub fn levels_bytes(positions: u64) -> u64 {
    (positions as f64 * levels::LEVELS_BYTES_PER_POSITION).ceil() as u64
}

/// Solves layer `seeds` in memory, resuming from its checkpoint in
/// `config.scratch` if there is one. Returns the value of every indexed
/// position in rank order. Runs on the current rayon pool.
pub fn solve_layer<L: LowerLayers>(
    rules: Ruleset,
    seeds: usize,
    lower: &L,
    config: &Config,
    progress: Progress,
) -> Result<SolvedLayer, EngineError<L::Error>>
where
    L::Error: std::error::Error + 'static,
{
    solve_share(rules, seeds, lower, config, progress, &Alone, 0, &|_| {})
}

/// [`solve_layer`] for this rank's share of the layer (see
/// [`distributed::share`]): every rank of `transport` calls it at once,
/// queuing up to `outbox_bytes` of notices for the others between
/// exchanges. Returns the values of the share (and its distances, if
/// `config.distances`). With several ranks, each saves and resumes its own
/// checkpoints, the ranks together ([`RankCheckpoints`]); `resumed` hears
/// of a resume.
#[allow(clippy::too_many_arguments)]
pub fn solve_share<L: LowerLayers, T: Transport>(
    rules: Ruleset,
    seeds: usize,
    lower: &L,
    config: &Config,
    progress: Progress,
    transport: &T,
    outbox_bytes: u64,
    resumed: &dyn Fn(i8),
) -> Result<SolvedLayer, EngineError<L::Error>>
where
    L::Error: std::error::Error + 'static,
{
    let size = index::layer_size(seeds) as usize;
    let bounds: Vec<usize> = (0..=transport.ranks())
        .map(|r| distributed::share(size, r, transport.ranks(), CHUNK).start)
        .collect();
    let share = distributed::share(size, transport.rank(), transport.ranks(), CHUNK);
    let levels = config.distances;
    let memory = |source| OutOfMemory {
        seeds,
        bytes: (share.len() as f64 * Engine::InMemory.bytes_per_position()) as u64
            + if levels {
                levels_bytes(share.len() as u64)
            } else {
                0
            },
        source,
    };
    let mut layer = Layer {
        values: BigArray::zeroed(share.len()).map_err(memory)?,
        states: States::new(rules, seeds, share.clone()).map_err(memory)?,
        levels: levels
            .then(|| Levels::new(share.len()))
            .transpose()
            .map_err(memory)?,
    };
    let mut checkpoint = Checkpoints::new(config, levels, rules, seeds, transport, share);
    config.phases.enter(Phase::Checkpoint);
    let first = match checkpoint.load(&mut layer.arrays_mut(), transport)? {
        Some(next) => {
            resumed(next);
            // Count the set-up and the positions resolved before the
            // checkpoint again, so the bar ends full.
            progress((layer.states.len + layer.states.resolved()) as u64);
            next
        }
        None => {
            config.phases.enter(Phase::SetUp);
            layer.set_up(lower, config, progress)?;
            seeds as i8
        }
    };
    let mut outbox = Outbox::new(bounds, outbox_bytes);
    for t in (1..=first).rev() {
        config.phases.enter(Phase::Scan);
        layer.scan_threshold(t);
        config.phases.enter(Phase::Propagation);
        let (states, values) = (&layer.states, &*layer.values);
        let walked = (layer.levels.as_mut())
            .is_some_and(|l| l.propagate(states, values, t, progress, &mut outbox, transport));
        if !walked {
            // Without levels, or with a line longer than a distance table
            // holds (on every rank at once): the layer goes on without
            // them (the distance pass then reports that line).
            layer.levels = None;
            propagate_threshold(states, values, t, progress, &mut outbox, transport);
        }
        if checkpoint.due(t - 1, transport) {
            let arrays = layer.arrays();
            config.phases.time(Phase::Checkpoint, || {
                checkpoint.save(&arrays, t - 1, transport)
            })?;
        }
    }
    config.phases.enter(Phase::Scan);
    Ok(layer.finish(progress))
}

/// The checkpoints of the in-memory engine: one file in one process, one
/// per rank in a distributed build.
enum Checkpoints {
    Alone(Checkpoint),
    Rank(RankCheckpoints),
}

impl Checkpoints {
    fn new<T: Transport>(
        config: &Config,
        levels: bool,
        rules: Ruleset,
        seeds: usize,
        transport: &T,
        share: std::ops::Range<usize>,
    ) -> Checkpoints {
        let (scratch, engine, every) = (&config.scratch, Engine::InMemory, config.checkpoint_every);
        match (transport.ranks(), every) {
            (1, _) | (_, None) => Checkpoints::Alone(Checkpoint::new(
                scratch, engine, levels, rules, seeds, every,
            )),
            (ranks, Some(every)) => Checkpoints::Rank(RankCheckpoints::new(
                scratch,
                engine,
                levels,
                rules,
                seeds,
                every,
                (transport.rank(), ranks),
                share,
            )),
        }
    }

    fn load<E: std::error::Error + 'static, T: Transport>(
        &mut self,
        arrays: &mut [&mut [u8]],
        transport: &T,
    ) -> Result<Option<i8>, EngineError<E>> {
        match self {
            Checkpoints::Alone(checkpoint) => checkpoint.load(arrays),
            Checkpoints::Rank(checkpoints) => checkpoints.load(arrays, transport),
        }
    }

    fn due<T: Transport>(&self, next: i8, transport: &T) -> bool {
        match self {
            Checkpoints::Alone(checkpoint) => checkpoint.due(next),
            Checkpoints::Rank(checkpoints) => checkpoints.due(next, transport),
        }
    }

    fn save<E: std::error::Error + 'static, T: Transport>(
        &mut self,
        arrays: &[&[u8]],
        next: i8,
        transport: &T,
    ) -> Result<(), EngineError<E>> {
        match self {
            Checkpoints::Alone(checkpoint) => checkpoint.save(arrays, next),
            Checkpoints::Rank(checkpoints) => checkpoints.save(arrays, next, transport),
        }
    }
}

struct Layer {
    /// Best exit while unresolved (`NO_EXIT` if none), then the value.
    values: BigArray<i8>,
    states: States,
    /// Where the distances are found as the layer is built.
    levels: Option<Levels>,
}

/// The propagation of the in-memory engine reads the best exit (or value)
/// byte itself.
impl Exits for [i8] {
    #[inline]
    fn lost_when_closed(&self, rank: usize, t: i8) -> bool {
        threshold::lost_when_closed(self[rank], t)
    }
    #[inline]
    fn prefetch(&self, rank: usize) {
        prefetch(&self[rank]);
    }
}

impl Layer {
    /// The arrays a checkpoint saves.
    fn arrays(&self) -> Vec<&[u8]> {
        let mut arrays = vec![self.values.as_bytes(), self.states.words.as_bytes()];
        arrays.extend(self.levels.as_ref().map(Levels::as_bytes));
        arrays
    }

    /// The arrays a checkpoint loads.
    fn arrays_mut(&mut self) -> Vec<&mut [u8]> {
        let mut arrays = vec![self.values.as_bytes_mut(), self.states.words.as_bytes_mut()];
        arrays.extend(self.levels.as_mut().map(Levels::as_bytes_mut));
        arrays
    }

    /// The layer cut into work units, each owning its values and state words.
    fn chunks_mut<'a>(
        values: &'a mut [i8],
        states: &'a mut [AtomicU64],
    ) -> impl IndexedParallelIterator<Item = (&'a mut [i8], &'a mut [AtomicU64])> {
        (values.par_chunks_mut(CHUNK)).zip(states.par_chunks_mut(CHUNK / STATES_PER_WORD))
    }

    /// Forward pass, `part` positions at a time: for every position, the
    /// best value its exits offer and the number of its non-capturing moves.
    fn set_up<L: LowerLayers>(
        &mut self,
        lower: &L,
        config: &Config,
        progress: Progress,
    ) -> Result<(), EngineError<L::Error>>
    where
        L::Error: std::error::Error + 'static,
    {
        let (rules, seeds, part) = (self.states.rules, self.states.seeds, config.part);
        let parts = self
            .values
            .chunks_mut(part)
            .zip(self.states.words.chunks_mut(part / STATES_PER_WORD));
        for (p, (values, states)) in parts.enumerate() {
            let start = self.states.first + p * part;
            let phases = &config.phases;
            set_up::set_up_part(rules, seeds, start, values, states, lower, None, phases)?;
            progress(values.len() as u64);
        }
        Ok(())
    }

    /// Settles the positions resolved at threshold `t + 1` (see [`settle`]),
    /// then resolves the positions that are won or lost at `t` by their own
    /// exits: a capture worth `t`, or nothing left but exits worth `−t`. (An
    /// unresolved position's best exit is at most `t`, and if it is at most
    /// `−t` with no move left, exactly `−t`.)
    /// With levels, the positions resolved by their exits are seeded at
    /// theirs.
    fn scan_threshold(&mut self, t: i8) {
        let (rules, seeds, first) = (self.states.rules, self.states.seeds, self.states.first);
        let levels = self.levels.as_ref();
        let chunks = Layer::chunks_mut(&mut self.values, &mut self.states.words);
        let cursor = || index::Cursor::new(seeds);
        chunks
            .enumerate()
            .for_each_init(cursor, |cursor, (c, (values, states))| {
                let groups = values.chunks_mut(STATES_PER_WORD).zip(states);
                for (g, (values, word)) in groups.enumerate() {
                    let word = word.get_mut();
                    // Only values ±t (exits to seed) and fresh positions
                    // matter here; most groups hold neither.
                    let candidates = candidates(values, t);
                    let fresh = *word & (*word >> 1) & (LOW_BITS << 2);
                    if candidates == 0 && fresh == 0 {
                        continue;
                    }
                    // Bit 2 of the state of each slot to look at: the others
                    // keep their state (resolved ones have nothing to settle).
                    let mut todo = fresh | nibbles(candidates) << 2;
                    while todo != 0 {
                        let shift = todo.trailing_zeros() as usize & !3;
                        todo &= todo - 1;
                        let value = &mut values[shift / 4];
                        let state = (*word >> shift) & NIBBLE;
                        let new = if state & RESOLVED != 0 {
                            match settle(state, value, t + 1) {
                                Some(new) => new,
                                None => continue,
                            }
                        } else {
                            let open = state & COUNTER != 0;
                            let Some(verdict) = threshold::seed(*value, open, t) else {
                                continue;
                            };
                            if let Some(levels) = levels {
                                let rank = c * CHUNK + g * STATES_PER_WORD + shift / 4;
                                let board = cursor.board((first + rank) as u64);
                                levels.seed(rank, !open && game_over(rules, board));
                            }
                            match verdict {
                                Verdict::Won => RESOLVED | FRESH | PENDING,
                                Verdict::Lost => RESOLVED | FRESH | PENDING | LOSS,
                            }
                        };
                        *word = (*word & !(NIBBLE << shift)) | (new << shift);
                    }
                }
            });
    }

    /// Settles the positions resolved at threshold 1; unresolved positions
    /// are draws (decided by their exits if their best exit is worth 0).
    fn finish(mut self, progress: Progress) -> SolvedLayer {
        let chunks = Layer::chunks_mut(&mut self.values, &mut self.states.words);
        chunks.for_each(|(values, states)| {
            let mut draws = 0;
            for (values, word) in values.chunks_mut(STATES_PER_WORD).zip(states) {
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
            states: self.states.words,
            distances: self.levels.map(Levels::into_distances),
        }
    }
}

/// Whether the game is over on `board` (the mover has no move).
fn game_over(rules: Ruleset, board: oware::Packed) -> bool {
    Children::of_packed(rules, board).is_empty()
}

/// Bit `i` set where `values[i]` (at most 16 of them) is ±t.
#[inline]
fn candidates(values: &[i8], t: i8) -> u16 {
    #[cfg(target_arch = "x86_64")]
    if let Ok(group) = <&[i8; STATES_PER_WORD]>::try_from(values) {
        // SAFETY: SSE2 is part of x86_64; the load reads the 16 bytes of `group`.
        return unsafe {
            use std::arch::x86_64::*;
            let v = _mm_loadu_si128(group.as_ptr().cast());
            let is = |x: i8| _mm_cmpeq_epi8(v, _mm_set1_epi8(x));
            _mm_movemask_epi8(_mm_or_si128(is(t), is(-t))) as u16
        };
    }
    let hit = |v: i8| v == t || v == -t;
    (values.iter().enumerate()).fold(0, |bits, (slot, &v)| bits | u16::from(hit(v)) << slot)
}

/// Bit `i` of `bits` moved to bit `4 i`, the low bit of state `i` of a word.
#[inline]
fn nibbles(bits: u16) -> u64 {
    let mut x = u64::from(bits);
    x = (x | x << 24) & 0x0000_00ff_0000_00ff;
    x = (x | x << 12) & 0x000f_000f_000f_000f;
    x = (x | x << 6) & 0x0303_0303_0303_0303;
    (x | x << 3) & LOW_BITS
}

/// A resolved position at the scan after its threshold `t`, its parents told:
/// a `FRESH` one (all are, resolved by the propagation or by their exits)
/// gets its value (±t) written and learns whether it is that of its best
/// exit (kept in `EXIT`). Returns the new state, or `None` if there is
/// nothing to do.
#[inline]
fn settle(state: u64, value: &mut i8, t: i8) -> Option<u64> {
    debug_assert!(state & RESOLVED != 0 && state & PENDING == 0);
    if state & FRESH != 0 {
        // The value byte still holds the best exit.
        let v = if state & LOSS != 0 { -t } else { t };
        let exit = *value == v;
        *value = v;
        Some(RESOLVED | if exit { EXIT } else { 0 })
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
    /// The distances, if the engine found them ([`Config::distances`]).
    distances: Option<Distances>,
}

impl SolvedLayer {
    /// The value of every position, in rank order.
    pub fn values(&self) -> &[i8] {
        &self.values
    }

    /// `marked[i]`: the value of position `range.start + i` of the share,
    /// or `mark` if it is that of the position's best exit.
    pub fn mark(&self, range: std::ops::Range<usize>, mark: i8, marked: &mut [i8]) {
        marked
            .par_chunks_mut(CHUNK)
            .zip(self.values[range.clone()].par_chunks(CHUNK))
            .enumerate()
            .for_each(|(c, (marked, values))| {
                let first = range.start + c * CHUNK;
                for (i, (m, &v)) in marked.iter_mut().zip(values).enumerate() {
                    let rank = first + i;
                    let state = self.states[rank / STATES_PER_WORD].load(Ordering::Relaxed)
                        >> (4 * (rank % STATES_PER_WORD));
                    *m = if state & EXIT != 0 { mark } else { v };
                }
            });
    }

    /// The distances the engine found, if it did; taken once.
    pub fn take_distances(&mut self) -> Option<Distances> {
        self.distances.take()
    }

    /// The values, the states dropped.
    pub fn into_values(self) -> BigArray<i8> {
        self.values
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_are_the_values_at_the_threshold() {
        // Every value, in groups of 16 and in a last short one.
        let values: Vec<i8> = (i8::MIN..=i8::MAX).chain([5, -5, 6]).collect();
        for t in [1, 5, 47] {
            for group in values.chunks(STATES_PER_WORD) {
                let expected = (group.iter().enumerate())
                    .filter(|&(_, &v)| [t, -t].contains(&v))
                    .fold(0u16, |bits, (slot, _)| bits | 1 << slot);
                assert_eq!(candidates(group, t), expected, "t {t}, group {group:?}");
            }
        }
    }
}
