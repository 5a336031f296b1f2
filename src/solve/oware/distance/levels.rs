//! The in-memory engine's propagation level by level, which finds each
//! position's distance (that of the pass, [`super`]) as it resolves the
//! position, instead of a pass of its own over the finished layer.
//!
//! At threshold `t` the engine resolves the positions of value `±t`; the
//! value-keeping moves of such a position lead to positions of value `∓t`,
//! resolved at the same threshold (a move to a position resolved at a higher
//! one does not keep the value, and was counted down before). So when the
//! positions a threshold resolves are walked a level at a time (level 0 the
//! finished games, level 1 those its exits resolve: a capture worth `t`, or
//! nothing left but exits worth `−t`), a position ahead is resolved at one
//! level more than its first value-keeping child, and one behind at one
//! more than its last (its counter reaches zero there): its distance. The
//! same edges are walked as by the worker's stack of [`States::propagate`],
//! in another order.
//!
//! The positions of the next level are listed with their boards, as the
//! stack keeps them, up to one position in [`LIST_SHARE`] of the layer; the
//! others (and the levels 0 and 1 the scan of a threshold seeds) stay
//! pending in their states, the ranges holding them marked, and are found
//! by their stored level. A level is stored plus one while the layer is
//! built (0: not resolved at a level), so that a position resolved but not
//! yet given its level is never taken for one of level 0.
//!
//! In a distributed build each rank walks its share's levels, and the
//! notices for parents of other shares go through the outbox: a level ends
//! when no rank has a position of it left and no notice is on its way,
//! since a parent that a notice resolves is at the next level wherever its
//! child was. Such parents stay pending in their ranges (a rank lists
//! nothing), so a walk can stop when the outbox is full and go on after
//! the exchange.

use std::io;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicUsize, Ordering};

use rayon::prelude::*;

use super::{self as distance, Distances, MARK, MAX_DISTANCE};
use crate::distributed::Transport;
use crate::games::oware::{self, Packed};
use crate::solve::Progress;
use crate::solve::array::BigArray;
use crate::solve::oware::shared::{PREFETCH_BATCH, prefetch};
use crate::solve::oware::states::{Exits, Notice, NoticeSink, Outbox, States};

/// A level lists at most one position in this many of the layer.
const LIST_SHARE: usize = 128;
/// Room for listed positions a worker takes at a time.
const ROOM_TAKEN: usize = 256;
/// Listed positions handed to the next level together: its units of work.
const PIECE: usize = 4096;
/// Marks of ranges a worker takes at a time.
const RANGES_TAKEN: usize = 64;
/// Notices for other ranks a worker keeps before posting them.
const REMOTE_LEVEL_NOTICES: usize = 1 << 12;
/// Bytes of memory the levels take per position: the stored level, and the
/// lists of two levels (allowing for their vectors' slack).
pub const LEVELS_BYTES_PER_POSITION: f64 =
    distance::PASS_BYTES_PER_POSITION as f64 + 4.0 * size_of::<Listed>() as f64 / LIST_SHARE as f64;

/// The levels of a layer being built, and the ranges holding the positions
/// pending at the level being walked and at the next.
pub struct Levels {
    /// Each position's level plus one, in an item of its own: a level is
    /// stored without waiting for its cache line.
    stored: BigArray<AtomicU16>,
    len: usize,
    level: Vec<AtomicBool>,
    next: Vec<AtomicBool>,
}

/// A position of the next level, with its board.
#[derive(Clone, Copy)]
struct Listed {
    board: Packed,
    /// Its rank, and whether it is lost in bit 0.
    code: u64,
}

/// What the workers of a level share.
struct Walk<'a, X: ?Sized> {
    stored: &'a [AtomicU16],
    next: &'a [AtomicBool],
    states: &'a States,
    exits: &'a X,
    t: i8,
    /// The stored level of the positions walked.
    level: u16,
    /// Positions the next level may still list.
    room: AtomicUsize,
    /// The next level's lists, in pieces.
    listed: Mutex<Vec<Vec<Listed>>>,
    /// Where the notices for other ranks' parents go.
    outbox: &'a Outbox,
    progress: Progress<'a>,
}

/// A worker's buffers, and what it hands over when done (dropped): the
/// positions it lists for the next level and those it walked.
struct Worker<'a> {
    taken: Vec<usize>,
    notices: Vec<Notice>,
    remote: Vec<u64>,
    listed: Vec<Listed>,
    room: usize,
    walked: u64,
    lists: &'a Mutex<Vec<Vec<Listed>>>,
    outbox: &'a Outbox,
    progress: Progress<'a>,
}

impl<'a> Worker<'a> {
    fn new<X: ?Sized>(walk: &'a Walk<'a, X>) -> Worker<'a> {
        Worker {
            taken: Vec::with_capacity(PREFETCH_BATCH),
            notices: Vec::with_capacity(PREFETCH_BATCH * 2 * oware::SIDE),
            remote: Vec::new(),
            listed: Vec::new(),
            room: 0,
            walked: 0,
            lists: &walk.listed,
            outbox: walk.outbox,
            progress: walk.progress,
        }
    }

    /// Lists a position of the next level.
    fn list(&mut self, listed: Listed) {
        if self.listed.capacity() == 0 {
            self.listed.reserve_exact(PIECE);
        }
        self.listed.push(listed);
        if self.listed.len() == PIECE {
            self.hand_over();
        }
    }

    /// Hands the positions listed to the next level.
    fn hand_over(&mut self) {
        if !self.listed.is_empty() {
            let mut piece = std::mem::take(&mut self.listed);
            // A worker's last piece is partly filled; many would hold far
            // more memory than their positions.
            piece.shrink_to_fit();
            // A worker that panicked has no piece to hand over.
            if let Ok(mut lists) = self.lists.lock() {
                lists.push(piece);
            }
        }
    }
}

impl Drop for Worker<'_> {
    fn drop(&mut self) {
        (self.progress)(self.walked);
        self.hand_over();
        self.outbox.post(&mut self.remote);
    }
}

impl Levels {
    /// No position of a layer of `len` positions at a level yet.
    pub fn new(len: usize) -> io::Result<Levels> {
        Ok(Levels {
            // Whole words of distances (`into_distances`).
            stored: BigArray::zeroed(len.next_multiple_of(4))?,
            len,
            level: distance::marks(len),
            next: distance::marks(len),
        })
    }

    /// A position its exits resolve at the scan of a threshold: at level 0
    /// if the game is over, else at 1.
    #[inline]
    pub fn seed(&self, rank: usize, over: bool) {
        let (stored, marks) = match over {
            true => (1, &self.level),
            false => (2, &self.next),
        };
        self.stored[rank].store(stored, Ordering::Relaxed);
        marks[rank / MARK].store(true, Ordering::Relaxed);
    }

    /// Propagates threshold `t` a level at a time from the positions seeded,
    /// with the other ranks of `transport`. Returns `false`, the threshold
    /// not finished, at a level past the largest distance a table holds.
    pub fn propagate<X: Exits + ?Sized, T: Transport>(
        &mut self,
        states: &States,
        exits: &X,
        t: i8,
        progress: Progress,
        outbox: &mut Outbox,
        transport: &T,
    ) -> bool {
        let alone = transport.ranks() == 1;
        let mut listed: Vec<Vec<Listed>> = Vec::new();
        let mut level = 1u16;
        loop {
            let more = !listed.is_empty() || self.level.iter().chain(&self.next).any(is_set);
            // Every rank goes on to the same level.
            let more = match alone {
                true => more,
                false => transport.sum(u64::from(more)) > 0,
            };
            if !more {
                return true;
            }
            if level - 1 > MAX_DISTANCE {
                return false;
            }
            let walk = Walk {
                stored: &self.stored,
                next: &self.next,
                states,
                exits,
                t,
                level,
                room: AtomicUsize::new(if alone { self.len / LIST_SHARE } else { 0 }),
                listed: Mutex::default(),
                outbox,
                progress,
            };
            loop {
                walk.ranges(&self.level);
                listed.par_iter().for_each_init(
                    || Worker::new(&walk),
                    |worker, piece| {
                        for batch in piece.chunks(PREFETCH_BATCH) {
                            walk.batch(batch, worker);
                        }
                    },
                );
                listed.clear();
                if alone {
                    break;
                }
                // Nobody sent: nobody has a position of the level left (a
                // rank that stopped its walk has a full outbox).
                let (outgoing, count) = outbox.take();
                if transport.sum(count as u64) == 0 {
                    break;
                }
                walk.receive(&transport.exchange(&outgoing));
            }
            listed = walk.listed.into_inner().expect("no worker panicked");
            // The listed positions' levels are stored apart: a store that
            // misses the cache would hold up the next locked update of a
            // state (which waits for the stores before it).
            listed.par_iter().flatten().for_each(|listed| {
                let rank = (listed.code >> 1) as usize;
                self.stored[rank].store(level + 1, Ordering::Relaxed);
            });
            std::mem::swap(&mut self.level, &mut self.next);
            level += 1;
        }
    }

    /// The distances of the finished layer: each level, and 0 for the
    /// positions never resolved (draws).
    pub fn into_distances(mut self) -> Distances {
        self.stored.par_iter_mut().for_each(|stored| {
            let stored = stored.get_mut();
            *stored = stored.saturating_sub(1);
        });
        Distances::from_lanes(self.stored, self.len)
    }

    /// The levels, as a checkpoint saves them.
    pub fn as_bytes(&self) -> &[u8] {
        self.stored.as_bytes()
    }

    /// The levels, as a checkpoint loads them.
    pub fn as_bytes_mut(&mut self) -> &mut [u8] {
        self.stored.as_bytes_mut()
    }
}

fn is_set(mark: &AtomicBool) -> bool {
    mark.load(Ordering::Relaxed)
}

impl<X: Exits + ?Sized> Walk<'_, X> {
    /// Walks the positions of this level pending in the ranges `marked`,
    /// taking none once the outbox is full (their marks stay set).
    fn ranges(&self, marked: &[AtomicBool]) {
        (marked.par_chunks(RANGES_TAKEN).enumerate()).for_each_init(
            || Worker::new(self),
            |worker, (block, marks)| {
                for (i, mark) in marks.iter().enumerate() {
                    // Read first: most are clear, and a swap takes the line.
                    if is_set(mark) && !self.outbox.is_full() && mark.swap(false, Ordering::Relaxed)
                    {
                        self.range(block * RANGES_TAKEN + i, worker);
                    }
                }
            },
        );
    }

    /// Applies the notices other ranks sent: the parents they resolve are
    /// at the next level, pending in their ranges.
    fn receive(&self, notices: &[u64]) {
        let first = self.states.first;
        notices.par_chunks(MARK).for_each(|notices| {
            for &code in notices {
                let (rank, child_lost) = Notice::from_wire(code);
                let parent = rank - first;
                if (self.states).apply(self.exits, parent, child_lost, self.t, true) {
                    self.stored[parent].store(self.level + 1, Ordering::Relaxed);
                    self.next[parent / MARK].store(true, Ordering::Relaxed);
                }
            }
        });
    }

    /// Walks the positions of this level pending in range `m`.
    fn range(&self, m: usize, worker: &mut Worker) {
        let ranks = m * MARK..((m + 1) * MARK).min(self.states.len);
        let mut scan = self.states.pending_scan(ranks);
        loop {
            worker.taken.clear();
            worker.taken.extend(scan.by_ref().take(PREFETCH_BATCH));
            if worker.taken.is_empty() {
                break;
            }
            for &rank in &worker.taken {
                prefetch(&self.stored[rank]);
            }
            worker.notices.clear();
            for &rank in &worker.taken {
                if self.stored[rank].load(Ordering::Relaxed) != self.level {
                    continue;
                }
                if let Some(lost) = self.states.take_pending(rank) {
                    let board = scan.board(rank);
                    let (notices, remote) = (&mut worker.notices, &mut worker.remote);
                    (self.states).gather_notices(self.exits, board, lost, notices, remote);
                    worker.walked += 1;
                }
            }
            self.tell_parents(worker);
        }
    }

    /// Walks a batch of the positions listed for this level.
    fn batch(&self, batch: &[Listed], worker: &mut Worker) {
        worker.notices.clear();
        for listed in batch {
            let (notices, remote) = (&mut worker.notices, &mut worker.remote);
            let lost = listed.code & 1 != 0;
            (self.states).gather_notices(self.exits, listed.board, lost, notices, remote);
        }
        worker.walked += batch.len() as u64;
        self.tell_parents(worker);
    }

    /// Applies the worker's notices; a parent they resolve is at the next
    /// level: listed while there is room, else left pending and its range
    /// marked.
    fn tell_parents(&self, worker: &mut Worker) {
        if worker.remote.len() >= REMOTE_LEVEL_NOTICES {
            self.outbox.post(&mut worker.remote);
        }
        let notices = std::mem::take(&mut worker.notices);
        for notice in &notices {
            let parent = notice.parent();
            if worker.room == 0 {
                worker.room = self.take_room();
            }
            let listed = worker.room > 0;
            let child_lost = notice.child_lost();
            if !(self.states).apply(self.exits, parent, child_lost, self.t, !listed) {
                continue;
            }
            if listed {
                worker.room -= 1;
                // A lost child makes the parent won; the last won one, lost.
                let lost = !child_lost;
                worker.list(Listed {
                    board: notice.board,
                    code: (parent as u64) << 1 | u64::from(lost),
                });
            } else {
                self.stored[parent].store(self.level + 1, Ordering::Relaxed);
                self.next[parent / MARK].store(true, Ordering::Relaxed);
            }
        }
        worker.notices = notices;
    }

    /// Room for up to [`ROOM_TAKEN`] more listed positions.
    fn take_room(&self) -> usize {
        // Read first: once it is spent, every worker asks for each notice.
        if self.room.load(Ordering::Relaxed) == 0 {
            return 0;
        }
        let before = self
            .room
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |room| {
                Some(room.saturating_sub(ROOM_TAKEN))
            });
        before.unwrap_or(0).min(ROOM_TAKEN)
    }
}
