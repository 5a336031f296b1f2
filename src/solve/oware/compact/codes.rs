//! The compact engine's two-bit codes of a layer ([`Codes`]), all it keeps
//! in memory per position, and what a worker keeps of a position resolved
//! whose parents are still to be told ([`Resolved`]).

use std::io;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::games::oware::Packed;
use crate::solve::array::BigArray;
use crate::solve::oware::shared::prefetch;

pub(super) const OPEN: u64 = 0b00;
pub(super) const CLOSED: u64 = 0b01;
pub(super) const WON: u64 = 0b10;
pub(super) const LOST: u64 = 0b11;
const CODE: u64 = 0b11;
/// Codes per word.
const CODES_PER_WORD: usize = 32;

/// The two-bit codes of a layer.
pub(super) struct Codes {
    pub(super) words: BigArray<AtomicU64>,
}

// Every change and every read of a code during a threshold is sequentially
// consistent: a worker that wins a child and then reads its parent, and one
// that closes the parent (or wins another child) and then reads the
// children, cannot both miss the other's change (on x86 this costs nothing:
// the changes are locked instructions anyway).
impl Codes {
    pub(super) fn new(len: usize) -> io::Result<Codes> {
        Ok(Codes {
            words: BigArray::zeroed(len.div_ceil(CODES_PER_WORD))?,
        })
    }

    #[inline]
    pub(super) fn get(&self, rank: usize) -> u64 {
        (self.words[rank / CODES_PER_WORD].load(Ordering::SeqCst) >> (2 * (rank % CODES_PER_WORD)))
            & CODE
    }

    /// Changes the code of `rank` from one that `from` accepts to `to`;
    /// returns whether it did.
    #[inline]
    pub(super) fn change(&self, rank: usize, from: impl Fn(u64) -> bool, to: u64) -> bool {
        let shift = 2 * (rank % CODES_PER_WORD);
        self.words[rank / CODES_PER_WORD]
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |w| {
                from((w >> shift) & CODE).then(|| (w & !(CODE << shift)) | (to << shift))
            })
            .is_ok()
    }

    #[inline]
    pub(super) fn prefetch(&self, rank: usize) {
        prefetch(&self.words[rank / CODES_PER_WORD]);
    }

    /// How many positions are resolved.
    pub(super) fn resolved(&self) -> usize {
        // The high bit of a code is set for `WON` and `LOST`.
        const HIGH: u64 = 0xAAAA_AAAA_AAAA_AAAA;
        self.words
            .par_iter()
            .map(|w| (w.load(Ordering::Relaxed) & HIGH).count_ones() as usize)
            .sum()
    }
}

/// A position resolved whose parents are still to be told.
#[derive(Clone, Copy)]
pub(super) struct Resolved {
    pub(super) board: Packed,
    pub(super) lost: bool,
}
