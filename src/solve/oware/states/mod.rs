//! The per-position states of a layer being built, shared by both Oware
//! engines, and the propagation that walks the layer's non-capturing edges
//! backwards.
//!
//! A 4-bit state per position, 16 to a word. Unresolved: bits 0..=2 count
//! the non-capturing children not yet known to be won. Resolved: `RESOLVED`,
//! plus `PENDING` until its parents have been told, `LOSS` for a lost
//! position and `FRESH` until the engine has recorded its value. What a
//! settled state means beyond `RESOLVED` is up to each engine.
//!
//! The unit of exchange is a [`Notice`]: "a non-capturing child of the
//! position of rank `parent` resolved at the current threshold, lost or
//! won". A rank applies the notices for its own share at once and hands the
//! others to a [`NoticeSink`] (the exchange's outbox) for the parent's owner.
//!
//! Its room: the propagation of a threshold across ranks ([`propagate`])
//! and the outbox of notices for other ranks ([`outbox`]), both below the
//! states.

use std::io;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use rayon::prelude::*;

use super::shared::{CHUNK, PREFETCH_BATCH, prefetch};
use crate::games::oware::{self, Packed, Ruleset};
use crate::index::oware as index;
use crate::solve::Progress;
use crate::solve::array::BigArray;

mod outbox;
mod propagate;

pub use outbox::OUTBOX_BYTES;
pub(super) use outbox::Outbox;
pub(super) use propagate::propagate_threshold;

pub const RESOLVED: u64 = 0b1000;
pub const FRESH: u64 = 0b0100;
pub const LOSS: u64 = 0b0010;
pub const PENDING: u64 = 0b0001;
pub const COUNTER: u64 = 0b0111;
pub const NIBBLE: u64 = 0b1111;
/// Bit 0 of each of the 16 states of a word.
pub const LOW_BITS: u64 = 0x1111_1111_1111_1111;
/// States per word.
pub const STATES_PER_WORD: usize = 16;

/// What the propagation needs of a position's exits.
pub trait Exits: Sync {
    /// With every non-capturing move closed at threshold `t`, is the
    /// position of rank `rank` lost at `−t` (its best exit worth at most
    /// `−t`)?
    fn lost_when_closed(&self, rank: usize, t: i8) -> bool;
    /// Hints that [`Exits::lost_when_closed`] will be asked for `rank`.
    fn prefetch(&self, rank: usize);
}

/// Where a scan sends the notices for parents that other ranks own: all
/// propagation needs of the exchange between ranks.
pub trait NoticeSink: Sync {
    /// Whether it holds all it takes before an exchange: scans stop early.
    fn is_full(&self) -> bool;
    /// Takes a worker's notices (wire form, [`Notice::wire`]); leaves
    /// `notices` empty.
    fn post(&self, notices: &mut Vec<u64>);
}

/// A parent to tell that one of its non-capturing children resolved at the
/// current threshold (see the module documentation). Between ranks it
/// travels as one `u64` ([`Notice::wire`]).
#[derive(Clone, Copy)]
pub struct Notice {
    /// The parent's board, so that a parent resolved in turn needs no
    /// unranking.
    pub board: Packed,
    /// The parent's rank within the share and whether the child is lost,
    /// in wire form (16 bytes less than apart).
    code: u64,
}

impl Notice {
    /// The parent's rank within the share.
    #[inline]
    pub fn parent(&self) -> usize {
        Notice::from_wire(self.code).0
    }

    /// The child is lost: the parent wins. Otherwise the child is won: one
    /// move fewer of the parent is open.
    #[inline]
    pub fn child_lost(&self) -> bool {
        Notice::from_wire(self.code).1
    }

    /// The notice for the parent of layer rank `parent` as sent to its owner.
    #[inline]
    pub fn wire(parent: usize, child_lost: bool) -> u64 {
        (parent as u64) << 1 | u64::from(child_lost)
    }

    /// The layer rank and `child_lost` of a notice received.
    #[inline]
    pub fn from_wire(code: u64) -> (usize, bool) {
        ((code >> 1) as usize, code & 1 != 0)
    }
}

/// The states of one share of a layer (the whole layer in one process).
pub struct States {
    pub rules: Ruleset,
    pub seeds: usize,
    /// The layer rank of the share's first position.
    pub first: usize,
    /// Positions in the share.
    pub len: usize,
    pub words: BigArray<AtomicU64>,
    /// Per chunk of [`CHUNK`] positions: it may hold pending positions. A
    /// scan skips the others, so the many short rounds at the end of a
    /// threshold (and of a distributed one's exchanges) cost little.
    dirty: Vec<AtomicBool>,
}

/// Resolved positions kept on a worker's stack before it leaves them to the
/// next scan of the pending bits.
const STACK_LIMIT: usize = 1 << 16;
/// Notices for other ranks a worker keeps before posting them.
const REMOTE_STATE_NOTICES: usize = 1 << 14;

impl States {
    /// All-zero states for the positions `share` of layer `seeds`.
    pub fn new(rules: Ruleset, seeds: usize, share: Range<usize>) -> io::Result<States> {
        Ok(States {
            rules,
            seeds,
            first: share.start,
            len: share.len(),
            words: BigArray::zeroed(share.len().div_ceil(STATES_PER_WORD))?,
            dirty: (0..share.len().div_ceil(CHUNK))
                .map(|_| AtomicBool::new(false))
                .collect(),
        })
    }

    /// How many positions are resolved.
    pub fn resolved(&self) -> usize {
        self.words
            .par_iter()
            .map(|w| (w.load(Ordering::Relaxed) >> 3 & LOW_BITS).count_ones() as usize)
            .sum()
    }

    /// Every chunk may hold pending positions (a threshold begins).
    pub fn mark_all_dirty(&self) {
        for d in &self.dirty {
            d.store(true, Ordering::Relaxed);
        }
    }

    /// The state of the position of rank `rank`.
    #[inline]
    pub fn get(&self, rank: usize) -> u64 {
        (self.words[rank / STATES_PER_WORD].load(Ordering::Relaxed)
            >> (4 * (rank % STATES_PER_WORD)))
            & NIBBLE
    }

    /// Sets the state of an unresolved position to `new` (no other thread
    /// may change its word meanwhile, or it uses atomics on the word).
    #[inline]
    pub fn set(&self, rank: usize, new: u64) {
        let shift = 4 * (rank % STATES_PER_WORD);
        let word = &self.words[rank / STATES_PER_WORD];
        word.fetch_update(Ordering::AcqRel, Ordering::Acquire, |w| {
            Some((w & !(NIBBLE << shift)) | (new << shift))
        })
        .ok();
    }

    /// One scan over the pending positions, telling their parents: those of
    /// the share at once, the others through `outbox`. Resolved parents go
    /// on the worker's stack (or stay pending for the next scan). Stops
    /// early, leaving positions pending, once the outbox is full. Returns
    /// the number of positions handled.
    pub fn propagate<X: Exits + ?Sized, S: NoticeSink>(
        &self,
        exits: &X,
        t: i8,
        progress: Progress,
        outbox: &S,
    ) -> usize {
        let handled = AtomicUsize::new(0);
        (0..self.len.div_ceil(CHUNK))
            .into_par_iter()
            .filter(|&c| self.dirty[c].swap(false, Ordering::Relaxed))
            .for_each_init(
                || (Vec::new(), Vec::new(), Vec::new()),
                |(stack, notices, remote), c| {
                    let mut scan = self.pending_scan(c * CHUNK..((c + 1) * CHUNK).min(self.len));
                    let mut count = 0;
                    while !outbox.is_full() {
                        // Gather the parents of a batch of positions first, so
                        // that their state words are fetched from memory in
                        // parallel, then tell them.
                        notices.clear();
                        let mut batch = 0;
                        while batch < PREFETCH_BATCH {
                            let (rank, board) = match stack.pop() {
                                Some((rank, board)) => (rank, Some(board)),
                                None => match scan.next() {
                                    Some(rank) => (rank, None),
                                    None => break,
                                },
                            };
                            if let Some(lost) = self.take_pending(rank) {
                                let board = board.unwrap_or_else(|| scan.board(rank));
                                self.gather_notices(exits, board, lost, notices, remote);
                                batch += 1;
                            }
                        }
                        if batch == 0 {
                            break;
                        }
                        count += batch;
                        for notice in notices.iter() {
                            if self.apply(exits, notice.parent(), notice.child_lost(), t, true)
                                && stack.len() < STACK_LIMIT
                            {
                                stack.push((notice.parent(), notice.board));
                            }
                        }
                        if remote.len() >= REMOTE_STATE_NOTICES {
                            outbox.post(remote);
                        }
                    }
                    outbox.post(remote);
                    if outbox.is_full() {
                        // The scan may have stopped short of the chunk's end.
                        self.dirty[c].store(true, Ordering::Relaxed);
                    }
                    handled.fetch_add(count, Ordering::Relaxed);
                    progress(count as u64);
                },
            );
        handled.into_inner()
    }

    /// The pending positions of share ranks `ranks` (which start at a
    /// state word), in rank order.
    pub(super) fn pending_scan(&self, ranks: Range<usize>) -> PendingScan<'_> {
        PendingScan {
            states: &self.words,
            first: self.first,
            word: ranks.start / STATES_PER_WORD,
            end: ranks.end.div_ceil(STATES_PER_WORD),
            pending: 0,
            cursor: index::Cursor::new(self.seeds),
        }
    }

    /// Appends the notices for the parents of a position resolved at the
    /// current threshold (those another rank owns to `remote`, in wire
    /// form), and asks for the state words of the share's own.
    pub(super) fn gather_notices<X: Exits + ?Sized>(
        &self,
        exits: &X,
        board: Packed,
        lost: bool,
        notices: &mut Vec<Notice>,
        remote: &mut Vec<u64>,
    ) {
        oware::for_each_unmove(self.rules, board, |parent, _pit| {
            let layer_rank = index::rank_packed(parent, self.seeds) as usize;
            let rank = layer_rank.wrapping_sub(self.first);
            if rank >= self.len {
                remote.push(Notice::wire(layer_rank, lost));
                return;
            }
            prefetch(&self.words[rank / STATES_PER_WORD]);
            if !lost {
                // Counting down to zero asks about the parent's exits.
                exits.prefetch(rank);
            }
            notices.push(Notice {
                board: parent,
                code: Notice::wire(rank, lost),
            });
        });
    }

    /// Applies a notice to the parent of share rank `parent`; returns
    /// whether it resolved the parent. A parent resolved is left pending if
    /// `pending` (else its resolver walks it at once).
    #[inline]
    pub(super) fn apply<X: Exits + ?Sized>(
        &self,
        exits: &X,
        parent: usize,
        child_lost: bool,
        t: i8,
        pending: bool,
    ) -> bool {
        let pending = if pending { PENDING } else { 0 };
        let resolved = if child_lost {
            // A move to a lost child wins t for the parent.
            self.resolve_win(parent, pending)
        } else {
            self.count_down(exits, parent, t, pending)
        };
        let dirty = &self.dirty[parent / CHUNK];
        // Read first: most are set already, and a store would take the
        // cache line from the other workers.
        if resolved && !dirty.load(Ordering::Relaxed) {
            dirty.store(true, Ordering::Relaxed);
        }
        resolved
    }

    /// Applies the notices other ranks sent (wire form, parents in this
    /// share). Parents they resolve stay pending for the next scan.
    pub fn receive<X: Exits + ?Sized>(&self, exits: &X, notices: &[u64], t: i8) {
        notices.par_chunks(CHUNK).for_each(|notices| {
            for group in notices.chunks(PREFETCH_BATCH) {
                for &code in group {
                    let rank = Notice::from_wire(code).0 - self.first;
                    prefetch(&self.words[rank / STATES_PER_WORD]);
                    exits.prefetch(rank);
                }
                for &code in group {
                    let (rank, child_lost) = Notice::from_wire(code);
                    self.apply(exits, rank - self.first, child_lost, t, true);
                }
            }
        });
    }

    /// Clears the pending bit of a resolved position; returns whether it was
    /// lost, or `None` if it was not pending (or another worker took it).
    pub(super) fn take_pending(&self, rank: usize) -> Option<bool> {
        let shift = 4 * (rank % STATES_PER_WORD);
        let word = &self.words[rank / STATES_PER_WORD];
        let state = (word.load(Ordering::Acquire) >> shift) & NIBBLE;
        if state & (RESOLVED | PENDING) != RESOLVED | PENDING {
            return None;
        }
        // Resolved states never change back, so bit 0 is the pending bit here.
        let before = word.fetch_and(!(PENDING << shift), Ordering::AcqRel);
        ((before >> shift) & PENDING != 0).then_some(state & LOSS != 0)
    }

    /// Resolves an unresolved position as won at the current threshold.
    fn resolve_win(&self, rank: usize, pending: u64) -> bool {
        let shift = 4 * (rank % STATES_PER_WORD);
        let word = &self.words[rank / STATES_PER_WORD];
        word.fetch_update(Ordering::AcqRel, Ordering::Acquire, |w| {
            let state = (w >> shift) & NIBBLE;
            (state & RESOLVED == 0)
                .then(|| (w & !(NIBBLE << shift)) | ((RESOLVED | FRESH | pending) << shift))
        })
        .is_ok()
    }

    /// One more non-capturing child of this position is won: count it down;
    /// with none left and no exit better than −t the position is lost at −t.
    fn count_down<X: Exits + ?Sized>(&self, exits: &X, rank: usize, t: i8, pending: u64) -> bool {
        let shift = 4 * (rank % STATES_PER_WORD);
        let word = &self.words[rank / STATES_PER_WORD];
        let mut lost = false;
        let updated = word.fetch_update(Ordering::AcqRel, Ordering::Acquire, |w| {
            let state = (w >> shift) & NIBBLE;
            if state & RESOLVED != 0 {
                return None;
            }
            debug_assert!(state & COUNTER > 0, "counter underflow at rank {rank}");
            let left = (state & COUNTER) - 1;
            lost = left == 0 && exits.lost_when_closed(rank, t);
            let new = if lost {
                RESOLVED | FRESH | pending | LOSS
            } else {
                left
            };
            Some((w & !(NIBBLE << shift)) | (new << shift))
        });
        updated.is_ok() && lost
    }
}

/// The pending positions of a range of state words, in rank order.
pub(super) struct PendingScan<'a> {
    states: &'a [AtomicU64],
    /// The layer rank of state 0.
    first: usize,
    word: usize,
    end: usize,
    /// Pending bits of the word before `word` not yet returned.
    pending: u64,
    /// Where the boards of the positions returned come from.
    cursor: index::Cursor,
}

impl PendingScan<'_> {
    /// The board of a position returned by the scan.
    pub(super) fn board(&mut self, rank: usize) -> Packed {
        self.cursor.board((self.first + rank) as u64)
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
        Some((self.word - 1) * STATES_PER_WORD + slot)
    }
}
