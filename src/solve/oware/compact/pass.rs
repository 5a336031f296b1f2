//! The compact engine's steps in the loop of the engines that stream
//! ([`ScratchEngine`]): its set-up, and the pass of each threshold: the
//! exits worth `±t` seeded, then everything they resolve propagated by
//! workers (one per pool thread, each with its stack, its overflow to the
//! [`Frontier`] and its records for the [`Runs`]), a closed position
//! tested by generating its moves forward.

use std::io;
use std::sync::Mutex;

use rayon::prelude::*;

use super::codes::{CLOSED, Codes, LOST, OPEN, Resolved, WON};
use super::frontier::Frontier;
use super::limits::{COMPACT_SEED_CHUNK, Limits};
use super::runs::Runs;
use crate::error::WithPath;
use crate::games::oware::{self, Packed, Ruleset, SIDE};
use crate::index::oware as index;
use crate::solve::Progress;
use crate::solve::oware::engine::Engine;
use crate::solve::oware::lower::LowerLayers;
use crate::solve::oware::scratch::{Scratch, ScratchEngine, set_up_exits};
use crate::solve::oware::shared::{Config, EngineError, PREFETCH_BATCH};
use crate::solve::oware::stream::{RankReader, ScratchResult};
use crate::solve::phases::{Phase, Phases};

/// The layer the compact engine builds: its codes, and its buffers' sizes.
pub(super) struct Compact {
    pub(super) rules: Ruleset,
    pub(super) seeds: usize,
    pub(super) limits: Limits,
    pub(super) codes: Codes,
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
        exits.par_for_each(self.limits.seed_batch, COMPACT_SEED_CHUNK, |chunk| {
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
            if tests.len() >= PREFETCH_BATCH {
                self.run_tests(w, &mut tests)?;
            }
            if w.stack.len() >= PREFETCH_BATCH {
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
            for _ in 0..PREFETCH_BATCH {
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
