//! The sizes of the compact engine's buffers between memory and the
//! scratch files ([`Limits`]): with memory to spare, at the least, and
//! within what a build gives them; and the engine's memory beyond its codes
//! and parts ([`fixed_bytes`], [`buffer_bytes`]).

use super::codes::Resolved;
use crate::index::oware as index;
use crate::solve::oware::engine::Engine;
use crate::solve::oware::stream::STREAM_BYTES;

/// The sizes of the buffers between memory and the scratch files.
#[derive(Clone, Copy, Debug)]
pub(super) struct Limits {
    /// Workers, each with a stack, an overflow, records and a buffer to
    /// sort them through; the pool's threads share them if there are fewer.
    pub(super) workers: usize,
    /// Resolved positions a worker keeps on its stack, with their boards;
    /// more go to the frontier.
    pub(super) stack: usize,
    /// Positions of the frontier spilled (and handed out) at once.
    pub(super) spill: usize,
    /// Chunks of the frontier kept in memory before they go to its file.
    pub(super) frontier_chunks: usize,
    /// Records a worker sorts into one run.
    pub(super) records: usize,
    /// Exits of a threshold in memory at once, in chunks: those being
    /// seeded and those read ahead.
    pub(super) seed_batch: usize,
    /// Runs merged at once by a merge (a stream buffer each).
    pub(super) merge_ways: usize,
    /// Merges at once (each with its runs' streams and its output's).
    pub(super) merges: usize,
    /// Runs of a threshold left for the final pass to read (more are merged
    /// down to these).
    pub(super) kept_runs: usize,
}

/// The buffers' sizes with memory to spare, per worker and per merge (as
/// many of each as the pool has threads).
const LIMITS: Limits = Limits {
    workers: 1,
    stack: 1 << 14,
    spill: 1 << 14,
    frontier_chunks: 64,
    records: 1 << 18,
    seed_batch: 1 << 20,
    merge_ways: 64,
    merges: 1,
    kept_runs: 64,
};
/// The least sizes the buffers shrink to when memory is tight (before
/// there are fewer workers and merges than threads).
const LEAST: Limits = Limits {
    workers: 1,
    stack: 1 << 8,
    spill: 1 << 8,
    frontier_chunks: 4,
    records: 1 << 12,
    seed_batch: 2 * COMPACT_SEED_CHUNK,
    merge_ways: 8,
    merges: 1,
    kept_runs: 1,
};
/// The least memory of a threshold's buffers, whatever the threads: one
/// worker and one merge of the least sizes, with room to spare (a test
/// checks it; the threads share the workers).
pub const LEAST_BUFFER_BYTES: u64 = 1 << 20;
/// Exits a job of the seeding takes (the out-of-core engine's jobs take
/// `OUT_OF_CORE_SEED_CHUNK`).
pub(super) const COMPACT_SEED_CHUNK: usize = 1 << 12;

impl Limits {
    /// Peak bytes of a threshold's buffers: the workers' stacks, overflows,
    /// records, sorting buffers and encoded runs; the frontier's chunks in
    /// memory and those handed out; the exits in memory; the merges'
    /// streams.
    fn bytes(&self) -> u64 {
        let worker = self.stack * size_of::<Resolved>()
            + self.spill * size_of::<u64>()
            + self.records * (2 * size_of::<u64>() + 2);
        let frontier = (self.frontier_chunks + 2 * self.workers) * self.spill * size_of::<u64>();
        let merges = (self.merges * (self.merge_ways + 1)) as u64 * STREAM_BYTES;
        (self.workers * worker + frontier + self.seed_batch * size_of::<u64>()) as u64 + merges
    }

    /// The sizes for `threads` threads within `bytes`: [`LIMITS`] for
    /// each thread if they fit, else every size scaled down alike (no
    /// smaller than [`LEAST`]'s), then fewer merges at once, then fewer
    /// workers than threads. `kept_runs` as the final pass's streams fit
    /// in `bytes` and the `codes` bytes the thresholds leave free, for a
    /// layer of `seeds`.
    pub(super) fn within(bytes: u64, threads: usize, seeds: usize, codes: u64) -> Limits {
        let threads = threads.max(1);
        let scaled = |s: f64| {
            let size = |full: usize, least: usize| ((full as f64 * s) as usize).clamp(least, full);
            Limits {
                workers: threads,
                stack: size(LIMITS.stack, LEAST.stack),
                spill: size(LIMITS.spill, LEAST.spill),
                frontier_chunks: size(LIMITS.frontier_chunks, LEAST.frontier_chunks),
                records: size(LIMITS.records, LEAST.records),
                seed_batch: size(LIMITS.seed_batch, LEAST.seed_batch),
                merge_ways: size(LIMITS.merge_ways, LEAST.merge_ways),
                merges: threads,
                kept_runs: LIMITS.kept_runs,
            }
        };
        let mut limits = scaled(1.0);
        if limits.bytes() > bytes {
            // The largest scale that fits (the bytes grow with it); at 0
            // every size is its least.
            let (mut fits, mut over) = (0.0, 1.0);
            for _ in 0..32 {
                let s = (fits + over) / 2.0;
                match scaled(s).bytes() <= bytes {
                    true => fits = s,
                    false => over = s,
                }
            }
            limits = scaled(fits);
        }
        while limits.bytes() > bytes && limits.merges > 1 {
            limits.merges -= 1;
        }
        while limits.bytes() > bytes && limits.workers > 1 {
            limits.workers -= 1;
        }
        // The final pass: a stream more for each threshold's run kept.
        let per_run = (seeds.max(1) as u64) * STREAM_BYTES;
        let more = (codes.saturating_add(bytes) / per_run).min(LIMITS.kept_runs as u64 - 1);
        Limits {
            kept_runs: 1 + more as usize,
            ..limits
        }
    }
}

/// The codes' bytes of layer `seeds`.
pub(super) fn codes_bytes(seeds: usize) -> u64 {
    (index::layer_size(seeds) as f64 * Engine::Compact.bytes_per_position()) as u64
}

/// The exit streams: one stream of each exit size and of each threshold
/// (the set-up's files, or the final pass's with one run a threshold).
pub(super) fn streams_bytes(seeds: usize) -> u64 {
    2 * (seeds as u64 + 1) * STREAM_BYTES
}

/// The least memory besides the codes and the parts, whatever the threads:
/// the exit streams and the least buffers of a threshold
/// ([`LEAST_BUFFER_BYTES`]).
pub fn fixed_bytes(seeds: usize) -> u64 {
    streams_bytes(seeds) + LEAST_BUFFER_BYTES
}

/// Memory beyond [`fixed_bytes`] that the buffers take with memory to
/// spare, for `threads` workers: the larger of what the thresholds take
/// (each worker's stack, records and sorting buffer, a merge of up to 64
/// runs per thread, the frontier kept in memory and the exits read) and
/// what the final pass reads the kept runs through beyond the codes it
/// frees. Given less ([`Config::buffer_bytes`]: `fixed_bytes` and up to
/// this), they shrink.
///
/// [`Config::buffer_bytes`]: crate::solve::oware::Config::buffer_bytes
pub fn buffer_bytes(seeds: usize, threads: usize) -> u64 {
    let thresholds = Limits::within(u64::MAX, threads, seeds, 0).bytes();
    let runs = (seeds * (LIMITS.kept_runs - 1)) as u64 * STREAM_BYTES;
    thresholds
        .max(runs.saturating_sub(codes_bytes(seeds)))
        .saturating_sub(LEAST_BUFFER_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The buffers fit what they are given, down to the least, on any
    /// number of threads: the default sizes for each thread with memory to
    /// spare, then smaller, then fewer workers and merges than threads.
    #[test]
    fn the_buffers_fit_what_they_are_given_on_any_threads() {
        let codes = codes_bytes(26);
        for threads in [1, 2, 3, 4, 16, 64, 256] {
            let roomy = Limits::within(u64::MAX, threads, 26, codes);
            assert_eq!((roomy.workers, roomy.merges), (threads, threads));
            assert_eq!(
                (roomy.records, roomy.kept_runs),
                (LIMITS.records, LIMITS.kept_runs)
            );
            assert_eq!(
                buffer_bytes(26, threads) + LEAST_BUFFER_BYTES,
                roomy.bytes(),
                "{threads} threads"
            );
            for bytes in (0..=roomy.bytes() + 4096).step_by(1 << 16) {
                let bytes = bytes.max(LEAST_BUFFER_BYTES);
                let limits = Limits::within(bytes, threads, 26, codes);
                assert!(
                    limits.bytes() <= bytes,
                    "{threads} threads, {bytes}: {limits:?}"
                );
                assert!(limits.workers >= 1 && limits.merges >= 1 && limits.merge_ways >= 2);
                // While each thread has its worker and merge, they take
                // most of it.
                if limits.workers == threads && limits.merges == threads {
                    assert!(
                        limits.bytes() >= bytes / 10 * 9,
                        "{threads} threads, {bytes}"
                    );
                }
            }
        }
        // The least: a worker and a merge at least, every run kept but one
        // merged where the final pass has only the least buffers.
        let least = Limits::within(LEAST_BUFFER_BYTES, 1, 26, 0);
        assert_eq!((least.workers, least.merges, least.kept_runs), (1, 1, 1));
        assert!(LEAST.bytes() <= LEAST_BUFFER_BYTES);
        let many = Limits::within(LEAST_BUFFER_BYTES, 64, 26, 0);
        assert!(many.workers < 64 && many.merges == 1, "{many:?}");
    }
}
