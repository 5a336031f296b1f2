//! The out-of-core engine: only what the propagation reaches at random
//! stays in memory, the 4-bit state and one bit per position ("its best exit
//! is worth at most −t", the test of a position whose last open move
//! closes), 0.625 bytes per position. Everything else is streamed through
//! scratch files in rank order:
//! - the set-up writes each position's best exit to the file of its size
//!   `|exit|` (one byte or so per position with an exit);
//! - threshold `t` reads only the file of `|exit| = t`: exits worth `t` win,
//!   exits worth `−t` set the bit (and lose at once if no move is open);
//! - after the propagation of threshold `t`, one scan of the states writes
//!   the positions resolved at `t` (won or lost) to a file of their own;
//! - the final pass rebuilds the values part by part from those files:
//!   `±t` where resolved at `t`, 0 (a draw) elsewhere.
//!
//! At threshold boundaries the states can be saved to a checkpoint, from
//! which a killed build resumes.

use std::io;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::engine::Engine;
use super::lower::LowerLayers;
use super::scratch::{Scratch, ScratchEngine, set_up_exits, solve_streamed};
use super::shared::{Config, EngineError, OutOfMemory, prefetch};
use super::states::{
    COUNTER, Exits, FRESH, LOSS, LOW_BITS, NIBBLE, Outbox, PENDING, RESOLVED, STATES_PER_WORD,
    States, propagate_threshold,
};
use super::stream::{Encoded, RankReader, RankWriter, STREAM_BYTES};
use crate::distributed::Alone;
use crate::error::WithPath;
use crate::games::oware::Ruleset;
use crate::index::oware as index;
use crate::solve::Progress;
use crate::solve::array::BigArray;
use crate::solve::phases::{Phase, Phases};
use crate::solve::threshold::{self, Verdict};

/// Exits of a threshold in memory at once, in chunks: those being seeded
/// and those read ahead.
const SEED_BATCH: usize = 1 << 16;
/// Exits a job of the seeding takes (the compact engine's jobs take
/// `COMPACT_SEED_CHUNK`).
const OUT_OF_CORE_SEED_CHUNK: usize = 1 << 11;
/// Words of the states a job of the recording scans, and the parts a
/// thread has in a window of the scan.
const RECORD_WORDS: usize = 1 << 10;
const RECORD_WINDOW: usize = 2;
/// The most bytes a part's positions take encoded: their gaps are shorter
/// than the part, 2^14 ranks, so each entry takes at most 3 bytes.
const RECORD_PART_BYTES: usize = RECORD_WORDS * STATES_PER_WORD * 3;

/// The least memory of a threshold's buffers, whatever the threads: the
/// exits in memory, or a window of recorded parts (as many parts as fit,
/// up to [`RECORD_WINDOW`] a thread).
pub const LEAST_BUFFER_BYTES: u64 = (SEED_BATCH * size_of::<u64>()) as u64;

/// The parts a window of the recording scans in parallel, for `threads`
/// threads within `bytes` of buffers: [`RECORD_WINDOW`] a thread, or as
/// many as fit (at least one).
fn record_parts(bytes: u64, threads: usize) -> usize {
    let fit = (bytes / RECORD_PART_BYTES as u64).max(1);
    fit.min((RECORD_WINDOW * threads.max(1)) as u64) as usize
}

/// The least memory besides the states and the parts, whatever the
/// threads: the larger of the open scratch streams of the set-up and
/// the final pass (one per exit size and one per threshold read) and what
/// a threshold takes (its two streams and its least buffers,
/// [`LEAST_BUFFER_BYTES`]).
pub fn fixed_bytes(seeds: usize) -> u64 {
    let streams = 2 * (seeds as u64 + 1) * STREAM_BYTES;
    streams.max(2 * STREAM_BYTES + LEAST_BUFFER_BYTES)
}

/// Memory beyond [`fixed_bytes`] that a threshold's buffers take with
/// memory to spare, for `threads` threads: a window of
/// [`RECORD_WINDOW`] recorded parts a thread where it outgrows the exits
/// in memory and the streams' room. Given less ([`Config::buffer_bytes`]:
/// `fixed_bytes` and up to this), the window shrinks.
pub fn buffer_bytes(seeds: usize, threads: usize) -> u64 {
    let window = (RECORD_WINDOW * threads.max(1) * RECORD_PART_BYTES) as u64;
    let thresholds = 2 * STREAM_BYTES + LEAST_BUFFER_BYTES.max(window);
    thresholds.saturating_sub(fixed_bytes(seeds))
}

/// Solves layer `seeds` out of core, resuming from the checkpoint in
/// `config.scratch` if there is one; see [`solve_streamed`].
pub fn solve_layer<L, E>(
    rules: Ruleset,
    seeds: usize,
    lower: &L,
    config: &Config,
    mark: i8,
    progress: Progress,
    emit: impl FnMut(&[i8], &[i8]) -> Result<(), E>,
) -> Result<(), EngineError<E>>
where
    L: LowerLayers<Error = E>,
    E: std::error::Error + 'static,
{
    let size = index::layer_size(seeds) as usize;
    let memory = |source| OutOfMemory {
        seeds,
        bytes: (size as f64 * Engine::OutOfCore.bytes_per_position()) as u64,
        source,
    };
    let layer = OutOfCore {
        states: States::new(rules, seeds, 0..size).map_err(memory)?,
        closed_lose: BigArray::zeroed(size.div_ceil(64)).map_err(memory)?,
        buffer_bytes: config.buffer_bytes,
    };
    solve_streamed(layer, rules, seeds, lower, config, mark, progress, emit)
}

struct OutOfCore {
    states: States,
    /// Bit `rank`: the position's best exit is worth at most `−t` (at the
    /// current threshold `t`; bits only turn on as `t` falls).
    closed_lose: BigArray<AtomicU64>,
    /// Memory besides the arrays and parts ([`Config::buffer_bytes`]).
    buffer_bytes: u64,
}

impl ScratchEngine for OutOfCore {
    const ENGINE: Engine = Engine::OutOfCore;

    fn arrays(&self) -> Vec<&[u8]> {
        vec![self.states.words.as_bytes(), self.closed_lose.as_bytes()]
    }

    fn arrays_mut(&mut self) -> Vec<&mut [u8]> {
        vec![
            self.states.words.as_bytes_mut(),
            self.closed_lose.as_bytes_mut(),
        ]
    }

    fn resolved(&self) -> usize {
        self.states.resolved()
    }

    /// Counters into the states; exits into the files by size; the bit set
    /// for positions without exits (closing their last move loses).
    fn set_up<L: LowerLayers<Error = E>, E: std::error::Error + 'static>(
        &mut self,
        lower: &L,
        config: &Config,
        scratch: &Scratch,
        progress: Progress,
    ) -> Result<(), EngineError<E>> {
        let layer = (self.states.rules, self.states.seeds);
        let OutOfCore {
            states,
            closed_lose,
            ..
        } = self;
        let words = Some(&mut *states.words);
        set_up_exits(layer, config, lower, scratch, words, progress, |rank| {
            mark_closed_lose(closed_lose, rank)
        })
    }

    fn threshold<E: std::error::Error + 'static>(
        &mut self,
        scratch: &Scratch,
        t: i8,
        phases: &Phases,
        progress: Progress,
    ) -> Result<(), EngineError<E>> {
        phases.enter(Phase::Seeding);
        self.seed(scratch, t)?;
        phases.enter(Phase::Propagation);
        let mut outbox = Outbox::new(vec![0, self.states.len], 0);
        propagate_threshold(&self.states, &*self, t, progress, &mut outbox, &Alone);
        phases.enter(Phase::Recording);
        self.record(scratch, t)
    }
}

impl Exits for OutOfCore {
    #[inline]
    fn lost_when_closed(&self, rank: usize, _t: i8) -> bool {
        self.closed_lose[rank / 64].load(Ordering::Relaxed) & (1 << (rank % 64)) != 0
    }
    #[inline]
    fn prefetch(&self, rank: usize) {
        prefetch(&self.closed_lose[rank / 64]);
    }
}

impl OutOfCore {
    /// Threshold `t` begins: the positions whose exits are worth `±t`
    /// (each rank at most once, so the chunks may go in any order).
    fn seed<E: std::error::Error + 'static>(
        &self,
        scratch: &Scratch,
        t: i8,
    ) -> Result<(), EngineError<E>> {
        let file = RankReader::open(scratch.exits(t as usize))?;
        file.par_for_each(SEED_BATCH, OUT_OF_CORE_SEED_CHUNK, |chunk| {
            for &entry in chunk {
                let rank = (entry >> 1) as usize;
                let exit = if entry & 1 != 0 { -t } else { t };
                if threshold::lost_when_closed(exit, t) {
                    mark_closed_lose(&self.closed_lose, rank);
                }
                let state = self.states.get(rank);
                if state & RESOLVED != 0 {
                    continue;
                }
                let new = match threshold::seed(exit, state & COUNTER != 0, t) {
                    Some(Verdict::Won) => RESOLVED | FRESH | PENDING,
                    Some(Verdict::Lost) => RESOLVED | FRESH | PENDING | LOSS,
                    None => continue,
                };
                self.states.set(rank, new);
            }
            Ok::<_, WithPath<io::Error>>(())
        })?;
        Ok(())
    }

    /// Threshold `t` ends: writes the positions resolved at `t` to their
    /// file and settles them (`RESOLVED` alone). The words are scanned in
    /// parallel, a window of parts at a time, each part encoded apart and
    /// appended in order: the file is the one a single scan writes.
    fn record<E: std::error::Error + 'static>(
        &mut self,
        scratch: &Scratch,
        t: i8,
    ) -> Result<(), EngineError<E>> {
        let mut file = RankWriter::create(scratch.resolved(t))?;
        // What the threshold's buffers may take: the engine's memory less
        // the threshold's two streams.
        let buffers = self.buffer_bytes.saturating_sub(2 * STREAM_BYTES);
        let window = record_parts(buffers, rayon::current_num_threads()) * RECORD_WORDS;
        for (w, words) in self.states.words.chunks_mut(window).enumerate() {
            let parts: Vec<Encoded> = words
                .par_chunks_mut(RECORD_WORDS)
                .enumerate()
                .map(|(p, words)| record_fresh(words, w * window + p * RECORD_WORDS))
                .collect();
            for part in parts {
                part.append_to(&mut file)?;
            }
        }
        let len = file.close()?;
        Ok(scratch.write_runs(t, &[(0, len)])?)
    }
}

/// Records the positions of `words` (word `first_word` on) resolved at the
/// threshold (`FRESH`), marks them `RESOLVED`, and returns them.
fn record_fresh(words: &mut [AtomicU64], first_word: usize) -> Encoded {
    let mut part = Encoded::default();
    for (w, word) in words.iter_mut().enumerate() {
        let word = word.get_mut();
        let mut fresh = (*word >> 3) & (*word >> 2) & LOW_BITS;
        while fresh != 0 {
            let shift = fresh.trailing_zeros();
            fresh &= fresh - 1;
            let state = (*word >> shift) & NIBBLE;
            debug_assert_eq!(state & PENDING, 0);
            let rank = ((first_word + w) * STATES_PER_WORD) as u64 + u64::from(shift / 4);
            part.push(rank, state & LOSS != 0);
            *word = (*word & !(NIBBLE << shift)) | (RESOLVED << shift);
        }
    }
    part
}

fn mark_closed_lose(bits: &[AtomicU64], rank: usize) {
    bits[rank / 64].fetch_or(1 << (rank % 64), Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The recording's window fits the buffers given, on any number of
    /// threads: [`RECORD_WINDOW`] parts a thread with memory to spare, at
    /// least one part.
    #[test]
    fn the_recording_window_fits_what_it_is_given_on_any_threads() {
        for threads in [1, 2, 4, 16, 64, 256] {
            let roomy = fixed_bytes(26) + buffer_bytes(26, threads) - 2 * STREAM_BYTES;
            assert_eq!(record_parts(roomy, threads), RECORD_WINDOW * threads);
            let least = record_parts(LEAST_BUFFER_BYTES, threads);
            assert!(least >= 1);
            assert!((least * RECORD_PART_BYTES) as u64 <= LEAST_BUFFER_BYTES);
        }
        assert_eq!(record_parts(0, 4), 1);
    }
}
