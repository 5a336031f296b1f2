//! The compact engine: two bits a position in memory, for layers the
//! out-of-core engine's five do not fit. A position's code holds only what
//! the propagation reads at random:
//! - `OPEN`: unresolved, its best exit worth more than `−t` (closing every
//!   move would not lose it at this threshold);
//! - `CLOSED`: unresolved, its best exit worth at most `−t`;
//! - `WON`, `LOST`: resolved, at this threshold or an earlier one.
//!
//! No counter of open moves is kept (Romein & Bal's 2002 trick): when a
//! child of a `CLOSED` position is won, the position generates its moves
//! forward and looks its children up; it is lost when every non-capturing
//! one is won. No pending bit either: a position resolved goes on its
//! worker's stack at once, the stack's overflow to the frontier (memory,
//! then a scratch file), and a record of it (rank and verdict) to the
//! threshold's runs, sorted buffers that become the file of positions
//! resolved at `t` (merged at the end of the threshold while there are more
//! than a few; the final pass reads the few).
//!
//! The exits and the final pass are the out-of-core engine's scratch files
//! ([`super::scratch`]): the set-up writes each best exit to the file of its
//! size, threshold `t` reads the file of `|exit| = t`, the final pass
//! rebuilds the values part by part. Checkpoints at threshold boundaries
//! save the codes.

use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use super::lower::LowerLayers;
use super::rank_stream::{self, RankReader, RankWriter, STREAM_BYTES, ScratchResult};
use super::scratch::{Scratch, ScratchEngine, set_up_exits, solve_streamed};
use super::{Config, Engine, EngineError, prefetch};
use crate::error::{PathContext, WithPath};
use crate::games::oware::{self, Packed, Ruleset, SIDE};
use crate::index::oware as index;
use crate::solve::Progress;
use crate::solve::array::BigArray;
use crate::solve::phases::{Phase, Phases};

const OPEN: u64 = 0b00;
const CLOSED: u64 = 0b01;
const WON: u64 = 0b10;
const LOST: u64 = 0b11;
const CODE: u64 = 0b11;
/// Codes per word.
const CODES_PER_WORD: usize = 32;

/// The sizes of the buffers between memory and the scratch files.
#[derive(Clone, Copy, Debug)]
struct Limits {
    /// Workers, each with a stack, an overflow, records and a buffer to
    /// sort them through; the pool's threads share them if there are fewer.
    workers: usize,
    /// Resolved positions a worker keeps on its stack, with their boards;
    /// more go to the frontier.
    stack: usize,
    /// Positions of the frontier spilled (and handed out) at once.
    spill: usize,
    /// Chunks of the frontier kept in memory before they go to its file.
    frontier_chunks: usize,
    /// Records a worker sorts into one run.
    records: usize,
    /// Exits of a threshold in memory at once, in chunks: those being
    /// seeded and those read ahead.
    seed_batch: usize,
    /// Runs merged at once by a merge (a stream buffer each).
    merge_ways: usize,
    /// Merges at once (each with its runs' streams and its output's).
    merges: usize,
    /// Runs of a threshold left for the final pass to read (more are merged
    /// down to these).
    kept_runs: usize,
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
    seed_batch: 2 * SEED_CHUNK,
    merge_ways: 8,
    merges: 1,
    kept_runs: 1,
};
/// The least memory of a threshold's buffers, whatever the threads: one
/// worker and one merge of the least sizes, with room to spare (a test
/// checks it; the threads share the workers).
pub const LEAST_BUFFER_BYTES: u64 = 1 << 20;
/// Exits a job of the seeding takes.
const SEED_CHUNK: usize = 1 << 12;
/// Resolved positions whose parents are gathered together, so that their
/// codes are fetched from memory in parallel.
const PARENT_BATCH: usize = 16;
/// The most bits a pass of the records' sort sorts by.
const RADIX_BITS: u32 = 11;

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
    fn within(bytes: u64, threads: usize, seeds: usize, codes: u64) -> Limits {
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
fn codes_bytes(seeds: usize) -> u64 {
    (index::layer_size(seeds) as f64 * Engine::Compact.bytes_per_position()) as u64
}

/// The exit streams: one stream of each exit size and of each threshold
/// (the set-up's files, or the final pass's with one run a threshold).
fn streams_bytes(seeds: usize) -> u64 {
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
pub fn buffer_bytes(seeds: usize, threads: usize) -> u64 {
    let thresholds = Limits::within(u64::MAX, threads, seeds, 0).bytes();
    let runs = (seeds * (LIMITS.kept_runs - 1)) as u64 * STREAM_BYTES;
    thresholds
        .max(runs.saturating_sub(codes_bytes(seeds)))
        .saturating_sub(LEAST_BUFFER_BYTES)
}

/// Solves layer `seeds` in two bits a position, resuming from the
/// checkpoint in `config.scratch` if there is one. Hands the values to
/// `emit` part by part in rank order, as [`super::out_of_core::solve_layer`]
/// does. Removes its scratch files when done.
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
    // What the thresholds' buffers may take: the engine's memory less the
    // exit streams.
    let buffers = config.buffer_bytes.saturating_sub(streams_bytes(seeds));
    let threads = rayon::current_num_threads();
    let limits = Limits::within(buffers, threads, seeds, codes_bytes(seeds));
    solve_layer_with((rules, seeds, limits), lower, config, mark, progress, emit)
}

fn solve_layer_with<L, E>(
    (rules, seeds, limits): (Ruleset, usize, Limits),
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
    let layer = Compact {
        rules,
        seeds,
        limits,
        codes: Codes::new(size).map_err(|source| EngineError::Memory {
            seeds,
            bytes: (size as f64 * Engine::Compact.bytes_per_position()) as u64,
            source,
        })?,
    };
    solve_streamed(layer, rules, seeds, lower, config, mark, progress, emit)
}

/// The two-bit codes of a layer.
struct Codes {
    words: BigArray<AtomicU64>,
}

// Every change and every read of a code during a threshold is sequentially
// consistent: a worker that wins a child and then reads its parent, and one
// that closes the parent (or wins another child) and then reads the
// children, cannot both miss the other's change (on x86 this costs nothing:
// the changes are locked instructions anyway).
impl Codes {
    fn new(len: usize) -> io::Result<Codes> {
        Ok(Codes {
            words: BigArray::zeroed(len.div_ceil(CODES_PER_WORD))?,
        })
    }

    #[inline]
    fn get(&self, rank: usize) -> u64 {
        (self.words[rank / CODES_PER_WORD].load(Ordering::SeqCst) >> (2 * (rank % CODES_PER_WORD)))
            & CODE
    }

    /// Changes the code of `rank` from one that `from` accepts to `to`;
    /// returns whether it did.
    #[inline]
    fn change(&self, rank: usize, from: impl Fn(u64) -> bool, to: u64) -> bool {
        let shift = 2 * (rank % CODES_PER_WORD);
        self.words[rank / CODES_PER_WORD]
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |w| {
                from((w >> shift) & CODE).then(|| (w & !(CODE << shift)) | (to << shift))
            })
            .is_ok()
    }

    #[inline]
    fn prefetch(&self, rank: usize) {
        prefetch(&self.words[rank / CODES_PER_WORD]);
    }

    /// How many positions are resolved.
    fn resolved(&self) -> usize {
        // The high bit of a code is set for `WON` and `LOST`.
        const HIGH: u64 = 0xAAAA_AAAA_AAAA_AAAA;
        self.words
            .par_iter()
            .map(|w| (w.load(Ordering::Relaxed) & HIGH).count_ones() as usize)
            .sum()
    }
}

struct Compact {
    rules: Ruleset,
    seeds: usize,
    limits: Limits,
    codes: Codes,
}

/// A position resolved whose parents are still to be told.
#[derive(Clone, Copy)]
struct Resolved {
    board: Packed,
    lost: bool,
}

impl ScratchEngine for Compact {
    const ENGINE: Engine = Engine::Compact;

    fn arrays(&self) -> Vec<&[u8]> {
        vec![self.codes.words.as_bytes()]
    }

    fn arrays_mut(&mut self) -> Vec<&mut [u8]> {
        vec![self.codes.words.as_bytes_mut()]
    }

    fn resolved(&self) -> usize {
        self.codes.resolved()
    }

    /// Exits into the files by size; positions without an exit are closed
    /// from the start (closing their last move loses at any threshold).
    fn set_up<L: LowerLayers<Error = E>, E: std::error::Error + 'static>(
        &mut self,
        lower: &L,
        config: &Config,
        scratch: &Scratch,
        progress: Progress,
    ) -> Result<(), EngineError<E>> {
        let layer = (self.rules, self.seeds);
        set_up_exits(layer, config, lower, scratch, None, progress, |rank| {
            self.codes.change(rank, |_| true, CLOSED);
        })
    }

    /// Threshold `t`: the positions whose exits are worth `±t` are won or
    /// closed, then everything they resolve in turn; the positions resolved
    /// go to their file.
    fn threshold<E: std::error::Error + 'static>(
        &mut self,
        scratch: &Scratch,
        t: i8,
        phases: &Phases,
        progress: Progress,
    ) -> Result<(), EngineError<E>> {
        phases.enter(Phase::Seeding);
        let pass = Pass {
            layer: self,
            frontier: Frontier::create(scratch.dir.join("frontier"), self.limits)?,
            runs: Runs::create(scratch.dir.join("runs"), self.limits)?,
            workers: (0..self.limits.workers)
                .map(|_| Mutex::new(Worker::default()))
                .collect(),
            progress,
        };
        let exits = RankReader::open(scratch.exits(t as usize))?;
        exits.par_for_each(self.limits.seed_batch, SEED_CHUNK, |chunk| {
            pass.with_worker(|w| pass.seed(w, chunk))
        })?;
        phases.enter(Phase::Propagation);
        loop {
            let chunks = pass.frontier.take(2 * pass.workers.len())?;
            if chunks.is_empty() {
                break;
            }
            chunks
                .par_iter()
                .try_for_each(|chunk| pass.with_worker(|w| pass.tell_parents_of(w, chunk)))?;
        }
        phases.enter(Phase::Recording);
        pass.workers.par_iter().try_for_each(|worker| {
            let mut worker = worker.lock().unwrap();
            let Worker {
                records, sorting, ..
            } = &mut *worker;
            pass.runs.append(records, sorting)?;
            progress(std::mem::take(&mut worker.count));
            Ok::<_, WithPath<io::Error>>(())
        })?;
        pass.runs.finish(scratch, t)?;
        pass.frontier.remove()?;
        Ok(())
    }
}

impl Compact {
    /// The test of a closed position (whose child by the move from `won`
    /// was just won): its (other) non-capturing children, the first one's
    /// code asked for. Most tests end at it (it is not won), so the first
    /// is a move found without generating the others if there is one (a
    /// quiet move that feeds the opponent), and the others are generated
    /// and ranked only if it is won.
    #[inline]
    fn test_of(&self, rank: usize, board: Packed, won: Option<usize>) -> Test {
        let pits = won.map_or(oware::ALL_PITS, |p| oware::ALL_PITS.except(p));
        let (first, others) = match oware::first_feeding_quiet(self.rules, board, pits) {
            Some((pit, child)) => (Some(child), pits.except(pit)),
            None => {
                let children = oware::Children::of_packed(self.rules, board);
                let mut quiet = children.quiet() & pits;
                let first = quiet.next();
                (first.map(|p| children.packed_child(p)), quiet)
            }
        };
        let first = first.map(|child| {
            let child = index::rank_packed(child, self.seeds) as usize;
            self.codes.prefetch(child);
            child
        });
        Test {
            rank,
            board,
            first,
            others,
        }
    }

    /// The rest of a test whose first child is won: its other children,
    /// their codes asked for.
    #[inline]
    fn rest_of(&self, test: &Test) -> RestTest {
        let mut rest = RestTest {
            rank: test.rank,
            board: test.board,
            children: [0; SIDE],
            len: 0,
        };
        let children = oware::Children::of_packed(self.rules, test.board);
        for p in children.quiet() & test.others {
            let child = index::rank_packed(children.packed_child(p), self.seeds) as usize;
            self.codes.prefetch(child);
            rest.children[rest.len] = child;
            rest.len += 1;
        }
        rest
    }
}

/// One threshold's propagation: the workers (one per pool thread) and where
/// their overflow and records go.
struct Pass<'a> {
    layer: &'a Compact,
    frontier: Frontier,
    runs: Runs,
    workers: Vec<Mutex<Worker>>,
    progress: Progress<'a>,
}

/// A worker's buffers, kept from one job to the next.
#[derive(Default)]
struct Worker {
    stack: Vec<Resolved>,
    /// Resolved positions beyond the stack (`rank << 1 | lost`).
    overflow: Vec<u64>,
    /// Positions resolved (`rank << 1 | lost`), not yet in a run.
    records: Vec<u64>,
    /// The records being sorted into a run pass through it.
    sorting: Vec<u64>,
    /// Parents gathered for a batch: rank, board, the pit of the move to
    /// the child, whether the child is lost.
    parents: Vec<(usize, Packed, usize, bool)>,
    /// Closed parents of a batch to test.
    tests: Vec<Test>,
    /// The tests of a batch whose first child was won.
    rest_tests: Vec<RestTest>,
    /// Positions resolved not yet counted in the progress.
    count: u64,
}

/// A closed position that may have lost its last open move: it is lost if
/// every child its quiet moves lead to (but the one just won) is won.
struct Test {
    rank: usize,
    board: Packed,
    /// The rank of the first child to look at (`None`: no other).
    first: Option<usize>,
    /// The pits of the others, where their moves are quiet.
    others: oware::Pits,
}

/// A test past its first child: it is lost if every child listed is won.
struct RestTest {
    rank: usize,
    board: Packed,
    children: [usize; SIDE],
    len: usize,
}

impl Pass<'_> {
    /// Runs `job` with the current thread's worker, then hands the worker's
    /// overflow to the frontier. (A job never waits on another, so the lock
    /// is contended only where the threads share fewer workers.)
    fn with_worker(&self, job: impl FnOnce(&mut Worker) -> ScratchResult<()>) -> ScratchResult<()> {
        let index = rayon::current_thread_index().unwrap_or(0) % self.workers.len();
        let mut worker = self.workers[index].lock().unwrap();
        job(&mut worker)?;
        if !worker.overflow.is_empty() {
            self.frontier.push(std::mem::take(&mut worker.overflow))?;
        }
        (self.progress)(std::mem::take(&mut worker.count));
        Ok(())
    }

    /// The exits of a threshold worth `+t` (won) or `−t` (closed, and lost
    /// if no move is left open), in rank order, each with what it resolves.
    /// The closed ones are tested, and the won ones' parents told, in
    /// batches, so that the codes they read are fetched from memory
    /// together.
    fn seed(&self, w: &mut Worker, chunk: &[u64]) -> ScratchResult<()> {
        let layer = self.layer;
        let mut cursor = index::Cursor::new(layer.seeds);
        let mut tests = std::mem::take(&mut w.tests);
        for &code in chunk {
            let (rank, negative) = (code >> 1, code & 1 != 0);
            let (rank, board) = (rank as usize, cursor.board(rank));
            if negative {
                layer.codes.change(rank, |c| c == OPEN, CLOSED);
                if layer.codes.get(rank) == CLOSED {
                    tests.push(layer.test_of(rank, board, None));
                }
            } else if layer.codes.change(rank, |c| c == OPEN || c == CLOSED, WON) {
                self.resolved(w, rank, board, false)?;
            }
            if tests.len() >= PARENT_BATCH {
                self.run_tests(w, &mut tests)?;
            }
            if w.stack.len() >= PARENT_BATCH {
                self.propagate(w)?;
            }
        }
        self.run_tests(w, &mut tests)?;
        w.tests = tests;
        self.propagate(w)
    }

    /// Closed positions lose when every child their tests list is won: the
    /// first children first, then the others of the tests they leave.
    fn run_tests(&self, w: &mut Worker, tests: &mut Vec<Test>) -> ScratchResult<()> {
        let layer = self.layer;
        let mut rest_tests = std::mem::take(&mut w.rest_tests);
        for test in tests.drain(..) {
            match test.first {
                Some(child) if layer.codes.get(child) != WON => {}
                Some(_) if !test.others.is_empty() => rest_tests.push(layer.rest_of(&test)),
                _ => self.lose_if_closed(w, test.rank, test.board)?,
            }
        }
        for test in rest_tests.drain(..) {
            let children = &test.children[..test.len];
            if children.iter().all(|&child| layer.codes.get(child) == WON) {
                self.lose_if_closed(w, test.rank, test.board)?;
            }
        }
        w.rest_tests = rest_tests;
        Ok(())
    }

    /// A closed position all of whose open moves are won is lost.
    #[inline]
    fn lose_if_closed(&self, w: &mut Worker, rank: usize, board: Packed) -> ScratchResult<()> {
        if self.layer.codes.change(rank, |c| c == CLOSED, LOST) {
            self.resolved(w, rank, board, true)?;
        }
        Ok(())
    }

    /// Tells the parents of positions of the frontier.
    fn tell_parents_of(&self, w: &mut Worker, chunk: &[u64]) -> ScratchResult<()> {
        for &code in chunk {
            let rank = code >> 1;
            w.stack.push(Resolved {
                board: oware::packed(&index::unrank(self.layer.seeds, rank)),
                lost: code & 1 != 0,
            });
            self.propagate(w)?;
        }
        Ok(())
    }

    /// Tells the parents of the positions on the stack, and those of every
    /// position that resolves, until the stack is empty.
    fn propagate(&self, w: &mut Worker) -> ScratchResult<()> {
        let layer = self.layer;
        while !w.stack.is_empty() {
            w.parents.clear();
            for _ in 0..PARENT_BATCH {
                let Some(child) = w.stack.pop() else { break };
                oware::for_each_unmove(layer.rules, child.board, |parent, pit| {
                    let rank = index::rank_packed(parent, layer.seeds) as usize;
                    layer.codes.prefetch(rank);
                    w.parents.push((rank, parent, pit, child.lost));
                });
            }
            // A won parent resolves at once; a closed one is tested once the
            // children of all the batch's are asked for from memory.
            let mut tests = std::mem::take(&mut w.tests);
            for i in 0..w.parents.len() {
                let (rank, board, pit, child_lost) = w.parents[i];
                if child_lost {
                    if layer.codes.change(rank, |c| c == OPEN || c == CLOSED, WON) {
                        self.resolved(w, rank, board, false)?;
                    }
                } else if layer.codes.get(rank) == CLOSED {
                    tests.push(layer.test_of(rank, board, Some(pit)));
                }
            }
            self.run_tests(w, &mut tests)?;
            w.tests = tests;
        }
        Ok(())
    }

    /// A position resolved: its record, and its parents to tell.
    fn resolved(
        &self,
        w: &mut Worker,
        rank: usize,
        board: Packed,
        lost: bool,
    ) -> ScratchResult<()> {
        let code = (rank as u64) << 1 | u64::from(lost);
        w.count += 1;
        w.records.push(code);
        let limits = self.layer.limits;
        if w.records.len() >= limits.records {
            self.runs.append(&mut w.records, &mut w.sorting)?;
        }
        if w.stack.len() < limits.stack {
            w.stack.push(Resolved { board, lost });
        } else {
            w.overflow.push(code);
            if w.overflow.len() >= limits.spill {
                self.frontier.push(std::mem::take(&mut w.overflow))?;
            }
        }
        Ok(())
    }
}

/// Resolved positions whose parents are still to be told, beyond the
/// workers' stacks: chunks in memory up to a number, then in a scratch file
/// used as a stack of chunks.
struct Frontier {
    path: PathBuf,
    limits: Limits,
    memory: Mutex<Vec<Vec<u64>>>,
    /// The file (once needed) and the length of each chunk in it.
    file: Mutex<Option<(File, Vec<usize>)>>,
}

impl Frontier {
    fn create(path: PathBuf, limits: Limits) -> ScratchResult<Frontier> {
        match fs::remove_file(&path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e).at(&path),
            _ => {}
        }
        Ok(Frontier {
            path,
            limits,
            memory: Mutex::new(Vec::new()),
            file: Mutex::new(None),
        })
    }

    fn push(&self, chunk: Vec<u64>) -> ScratchResult<()> {
        {
            let mut memory = self.memory.lock().unwrap();
            if memory.len() < self.limits.frontier_chunks {
                memory.push(chunk);
                return Ok(());
            }
        }
        let mut file = self.file.lock().unwrap();
        if file.is_none() {
            let f = fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .open(&self.path)
                .at(&self.path)?;
            *file = Some((f, Vec::new()));
        }
        let (f, lens) = file.as_mut().unwrap();
        let bytes: Vec<u8> = chunk.iter().flat_map(|c| c.to_le_bytes()).collect();
        f.seek(SeekFrom::End(0)).at(&self.path)?;
        f.write_all(&bytes).at(&self.path)?;
        lens.push(chunk.len());
        Ok(())
    }

    /// Up to `max` chunks, the file's last ones first once memory is empty.
    fn take(&self, max: usize) -> ScratchResult<Vec<Vec<u64>>> {
        let mut chunks: Vec<Vec<u64>> = {
            let mut memory = self.memory.lock().unwrap();
            let keep = memory.len().saturating_sub(max);
            memory.split_off(keep)
        };
        let mut file = self.file.lock().unwrap();
        if let Some((f, lens)) = file.as_mut() {
            while chunks.len() < max {
                let Some(len) = lens.pop() else { break };
                let end = f.seek(SeekFrom::End(0)).at(&self.path)?;
                let start = end - 8 * len as u64;
                let mut bytes = vec![0u8; 8 * len];
                f.seek(SeekFrom::Start(start)).at(&self.path)?;
                f.read_exact(&mut bytes).at(&self.path)?;
                f.set_len(start).at(&self.path)?;
                chunks.push(
                    bytes
                        .chunks_exact(8)
                        .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
                        .collect(),
                );
            }
        }
        Ok(chunks)
    }

    fn remove(self) -> ScratchResult<()> {
        if self.file.into_inner().unwrap().is_some() {
            fs::remove_file(&self.path).at(&self.path)?;
        }
        Ok(())
    }
}

/// The records of one threshold: sorted runs appended to one file, in the
/// rank streams' coding, which becomes the threshold's file (its runs
/// merged down to a few first if there are more).
struct Runs {
    path: PathBuf,
    merge_ways: usize,
    merges: usize,
    kept_runs: usize,
    /// The file and each run's offset and length in it.
    file: Mutex<(File, Vec<(u64, u64)>)>,
}

impl Runs {
    fn create(path: PathBuf, limits: Limits) -> ScratchResult<Runs> {
        let file = File::create(&path).at(&path)?;
        Ok(Runs {
            path,
            merge_ways: limits.merge_ways,
            merges: limits.merges,
            kept_runs: limits.kept_runs,
            file: Mutex::new((file, Vec::new())),
        })
    }

    /// Sorts `records` (through `sorting`) into a run of the file; leaves
    /// `records` empty.
    fn append(&self, records: &mut Vec<u64>, sorting: &mut Vec<u64>) -> ScratchResult<()> {
        if records.is_empty() {
            return Ok(());
        }
        sorting.resize(records.len(), 0);
        radix_sort(records, sorting);
        let mut bytes = Vec::with_capacity(2 * records.len());
        let mut previous = 0;
        for &code in records.iter() {
            rank_stream::encode(&mut previous, code >> 1, code & 1 != 0, &mut bytes);
        }
        records.clear();
        let mut file = self.file.lock().unwrap();
        let (f, runs) = &mut *file;
        let offset = runs.last().map_or(0, |&(o, l)| o + l);
        f.write_all(&bytes).at(&self.path)?;
        runs.push((offset, bytes.len() as u64));
        Ok(())
    }

    /// Makes the runs the streams of the file of threshold `t`, merged (a
    /// limited number at a time, into the runs of a new file) while there
    /// are more than the final pass reads.
    fn finish(self, scratch: &Scratch, t: i8) -> ScratchResult<()> {
        let (_, mut runs) = self.file.into_inner().unwrap();
        let mut path = self.path;
        let mut generation = 0;
        while runs.len() > self.kept_runs {
            // Groups no larger than leave the runs kept, if one merge can.
            let ways = runs.len().div_ceil(self.kept_runs).min(self.merge_ways);
            generation += 1;
            let next = path.with_extension(generation.to_string());
            let file = Arc::new(File::create(&next).at(&next)?);
            // The groups merge in parallel (at most `merges` at once), each
            // where its runs began in the file it reads: merged, no entry
            // is longer than it was (the gap to the rank before it can
            // only shrink), so a group fits in the bytes of its runs.
            let merge_group = |group: &[(u64, u64)]| {
                let (start, _) = group[0];
                let &(last, len) = group.last().unwrap();
                let mut writer = RankWriter::segment(next.clone(), file.clone(), start);
                merge(&path, group, &mut writer)?;
                let merged_len = writer.close()?;
                assert!(
                    merged_len <= last + len - start,
                    "a merged group outgrew its runs"
                );
                Ok((start, merged_len))
            };
            let groups: Vec<&[(u64, u64)]> = runs.chunks(ways).collect();
            let mut merged = Vec::with_capacity(groups.len());
            let at_once = match self.merges >= rayon::current_num_threads() {
                true => groups.len(),
                false => self.merges,
            };
            for wave in groups.chunks(at_once.max(1)) {
                let wave = wave
                    .par_iter()
                    .map(|group| merge_group(group))
                    .collect::<ScratchResult<Vec<_>>>()?;
                merged.extend(wave);
            }
            fs::remove_file(&path).at(&path)?;
            (path, runs) = (next, merged);
        }
        let out = scratch.resolved(t);
        fs::rename(&path, &out).at(&out)?;
        scratch.write_runs(t, &runs)
    }
}

/// Sorts `keys` by digits from the lowest (as many passes of up to
/// [`RADIX_BITS`] as the largest key needs), through `scratch` (as long).
fn radix_sort(keys: &mut [u64], scratch: &mut [u64]) {
    debug_assert_eq!(keys.len(), scratch.len());
    let bits = 64 - keys.iter().fold(0, |all, &key| all | key).leading_zeros();
    let passes = bits.div_ceil(RADIX_BITS).max(1) as usize;
    let width = bits.div_ceil(passes as u32);
    let digit =
        |key: u64, pass: usize| ((key >> (pass as u32 * width)) & ((1 << width) - 1)) as usize;
    // Where each digit's keys start, for every pass: counted in one sweep.
    let mut starts = vec![[0u32; 1 << RADIX_BITS]; passes];
    for &key in keys.iter() {
        for (pass, counts) in starts.iter_mut().enumerate() {
            counts[digit(key, pass)] += 1;
        }
    }
    for counts in &mut starts {
        let mut start = 0;
        for count in counts.iter_mut() {
            (*count, start) = (start, start + *count);
        }
    }
    let (mut from, mut to) = (keys, scratch);
    for (pass, starts) in starts.iter_mut().enumerate() {
        for &key in from.iter() {
            let start = &mut starts[digit(key, pass)];
            to[*start as usize] = key;
            *start += 1;
        }
        (from, to) = (to, from);
    }
    // After an odd number of passes the keys are in the scratch.
    if passes % 2 == 1 {
        to.copy_from_slice(from);
    }
}

/// Writes the entries of `runs` (segments of the file at `path`) to
/// `writer` in rank order.
fn merge(path: &Path, runs: &[(u64, u64)], writer: &mut RankWriter) -> ScratchResult<()> {
    let mut readers = RankReader::open_segments(path.to_path_buf(), runs)?;
    let next = |reader: &mut RankReader| {
        Ok::<_, WithPath<io::Error>>(match reader.next_below(u64::MAX)? {
            Some((rank, flag)) => rank << 1 | u64::from(flag),
            None => Tournament::DONE,
        })
    };
    let heads = readers.iter_mut().map(next).collect::<ScratchResult<_>>()?;
    let mut tournament = Tournament::new(heads);
    loop {
        let (i, code) = tournament.winner();
        if code == Tournament::DONE {
            return Ok(());
        }
        writer.push(code >> 1, code & 1 != 0)?;
        tournament.replace(next(&mut readers[i])?);
    }
}

/// The heads of sorted sources, with the smallest found in one match a
/// level of a binary tree (a loser tree): each node keeps the loser of the
/// match between the winners of its subtrees, so when the winner's source
/// moves on, only the matches on its path are played again.
struct Tournament {
    /// The head of each source (leaves padded to a power of two).
    heads: Vec<u64>,
    /// `losers[node]`: the source that lost there (nodes `1..`, the
    /// children of `n` at `2n` and `2n + 1`, the leaves after them).
    losers: Vec<usize>,
    winner: usize,
}

impl Tournament {
    /// The head of a source with nothing left, above every key.
    const DONE: u64 = u64::MAX;

    fn new(mut heads: Vec<u64>) -> Tournament {
        let leaves = heads.len().next_power_of_two();
        heads.resize(leaves, Self::DONE);
        let mut winners: Vec<usize> = (0..2 * leaves).map(|i| i.wrapping_sub(leaves)).collect();
        let mut losers = vec![0; leaves];
        for node in (1..leaves).rev() {
            let (a, b) = (winners[2 * node], winners[2 * node + 1]);
            (winners[node], losers[node]) = if heads[b] < heads[a] { (b, a) } else { (a, b) };
        }
        let winner = if leaves == 1 { 0 } else { winners[1] };
        Tournament {
            heads,
            losers,
            winner,
        }
    }

    /// The source with the smallest head, and its head.
    fn winner(&self) -> (usize, u64) {
        (self.winner, self.heads[self.winner])
    }

    /// Replaces the winner's head with `head` and plays its path again.
    fn replace(&mut self, head: u64) {
        let mut winner = self.winner;
        self.heads[winner] = head;
        let mut node = (winner + self.heads.len()) / 2;
        while node > 0 {
            let loser = self.losers[node];
            if self.heads[loser] < self.heads[winner] {
                self.losers[node] = winner;
                winner = loser;
            }
            node /= 2;
        }
        self.winner = winner;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::oware::{CHUNK, Lookup, solve_layer as solve_in_memory};
    use crate::table::CAPTURE_DECIDES;

    /// Lower layers whose values are all in memory; the odd ones read
    /// only in order if asked (their lookups deferred to buckets).
    struct Values(Vec<Vec<i8>>, bool);

    impl LowerLayers for Values {
        type Error = io::Error;
        fn resolve(&self, lookups: &mut [Lookup]) -> Result<(), io::Error> {
            for l in lookups {
                assert!(!self.in_order(l.seeds as usize));
                l.value = self.0[l.seeds as usize][l.rank as usize];
            }
            Ok(())
        }
        fn in_order(&self, seeds: usize) -> bool {
            self.1 && seeds % 2 == 1
        }
        fn read_in_order(&self, seeds: usize, first: u64, values: &mut [i8]) -> io::Result<()> {
            values.copy_from_slice(&self.0[seeds][first as usize..][..values.len()]);
            Ok(())
        }
    }

    /// Pseudo-random keys below `2^bits`, their bits also set in runs.
    fn keys(seed: u64, len: usize, bits: u32) -> Vec<u64> {
        let mut x = seed | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let key = if x.is_multiple_of(5) { x | 0xff0 } else { x };
                key & (u64::MAX >> (64 - bits))
            })
            .collect()
    }

    #[test]
    fn radix_sort_sorts_as_the_standard_sort() {
        for bits in [1, 7, 11, 12, 22, 23, 33, 39, 40, 63, 64] {
            for len in [0, 1, 2, 100, 5000] {
                let mut sorted = keys(u64::from(bits) * 1000 + len as u64, len, bits);
                let mut expected = sorted.clone();
                expected.sort_unstable();
                let mut scratch = vec![0; len];
                radix_sort(&mut sorted, &mut scratch);
                assert!(sorted == expected, "{bits} bits, {len} keys");
            }
        }
        let mut same = vec![42; 100];
        radix_sort(&mut same, &mut [0; 100]);
        assert!(same == [42; 100]);
    }

    #[test]
    fn a_tournament_merges_sorted_sources_as_a_sort_of_all() {
        for sources in [1, 2, 3, 5, 64, 65] {
            // Sources of every length up to 40, some empty, with ties.
            let mut runs: Vec<Vec<u64>> = (0..sources)
                .map(|i| keys(i as u64 + 7, (i * 13) % 41, 10))
                .collect();
            runs.iter_mut().for_each(|run| run.sort_unstable());
            let mut expected: Vec<u64> = runs.concat();
            expected.sort_unstable();
            let mut next = vec![0; sources];
            let head = |run: &Vec<u64>, at: usize| run.get(at).copied().unwrap_or(Tournament::DONE);
            let mut tournament = Tournament::new(runs.iter().map(|run| head(run, 0)).collect());
            let mut merged = Vec::new();
            loop {
                let (i, key) = tournament.winner();
                if key == Tournament::DONE {
                    break;
                }
                merged.push(key);
                next[i] += 1;
                tournament.replace(head(&runs[i], next[i]));
            }
            assert!(merged == expected, "{sources} sources");
        }
    }

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

    /// Buffers of a few entries: every stack overflows, the frontier goes to
    /// its file, runs are merged in several generations.
    /// One worker for every thread, two merges at once.
    const TINY: Limits = Limits {
        workers: 1,
        stack: 4,
        spill: 8,
        frontier_chunks: 2,
        records: 64,
        seed_batch: 16,
        merge_ways: 3,
        merges: 2,
        kept_runs: 2,
    };

    /// The default sizes for this pool.
    fn roomy() -> Limits {
        Limits::within(u64::MAX, rayon::current_num_threads(), 12, 0)
    }

    fn config(dir: &Path, seeds: usize, checkpoint_every: Option<std::time::Duration>) -> Config {
        Config {
            part: CHUNK,
            // Set-ups that defer lookups sweep a layer in several rounds.
            sweep: 2 * CHUNK,
            scratch: dir.join(format!("scratch.{seeds}")),
            checkpoint_every,
            buffer_bytes: u64::MAX,
            distances: false,
            phases: Default::default(),
        }
    }

    /// The values and marked values of a layer by the compact engine.
    fn compact(
        rules: Ruleset,
        seeds: usize,
        limits: Limits,
        lower: &Values,
        config: &Config,
    ) -> (Vec<i8>, Vec<i8>) {
        let (mut values, mut marked) = (Vec::new(), Vec::new());
        solve_layer_with(
            (rules, seeds, limits),
            lower,
            config,
            CAPTURE_DECIDES,
            &|_| {},
            |v, m| {
                values.extend_from_slice(v);
                marked.extend_from_slice(m);
                Ok::<_, io::Error>(())
            },
        )
        .unwrap();
        (values, marked)
    }

    /// Every position of layers 0..=12, both rulesets, with the default
    /// buffers and with tiny ones (and lookups deferred): the values and
    /// the marks of the in-memory engine.
    #[test]
    fn compact_layers_equal_in_memory_layers() {
        let dir = tempfile::tempdir().unwrap();
        for rules in Ruleset::ALL {
            let mut lower = Values(Vec::new(), false);
            for seeds in 0..=12 {
                let config = config(dir.path(), seeds, None);
                let solved = solve_in_memory(rules, seeds, &lower, &config, &|_| {}).unwrap();
                let mut expected = vec![0; solved.values().len()];
                solved.mark(0..expected.len(), CAPTURE_DECIDES, &mut expected);
                // Tiny buffers with the odd layers read in order.
                for (limits, in_order) in [(roomy(), false), (TINY, true)] {
                    lower.1 = in_order;
                    let (values, marked) = compact(rules, seeds, limits, &lower, &config);
                    lower.1 = false;
                    assert!(
                        values == solved.values(),
                        "{rules} layer {seeds} {limits:?}"
                    );
                    assert!(marked == expected, "{rules} layer {seeds} marks {limits:?}");
                    assert!(!config.scratch.exists(), "scratch files left");
                }
                lower.0.push(solved.values().to_vec());
            }
        }
    }

    /// A layer stopped after its last checkpoint (here: its table could not
    /// be written) resumes from it with the same values.
    #[test]
    fn a_compact_layer_resumes_from_its_checkpoint() {
        let dir = tempfile::tempdir().unwrap();
        let rules = Ruleset::Awari;
        let mut lower = Values(Vec::new(), false);
        for seeds in 0..12 {
            let config = config(dir.path(), seeds, None);
            let solved = solve_in_memory(rules, seeds, &lower, &config, &|_| {}).unwrap();
            lower.0.push(solved.values().to_vec());
        }
        let seeds = 12;
        let config = config(dir.path(), seeds, Some(std::time::Duration::ZERO));
        let failed = solve_layer(
            rules,
            seeds,
            &lower,
            &config,
            CAPTURE_DECIDES,
            &|_| {},
            |_, _| Err(io::Error::other("disk full")),
        );
        assert!(matches!(failed, Err(EngineError::Lower(_))));
        let checkpoint = super::super::checkpoint_path(&config.scratch, Engine::Compact);
        assert!(checkpoint.exists());
        let (values, _) = compact(rules, seeds, roomy(), &lower, &config);
        let fresh = solve_in_memory(rules, seeds, &lower, &config, &|_| {}).unwrap();
        assert!(values == fresh.values());
    }
}
