//! Builds spread over several processes (ranks): what the ranks exchange and
//! how a layer is shared out. One engine, several transports: [`Alone`] (a
//! single process), [`Loopback`] (threads standing in for ranks, for tests)
//! and, with the `mpi` feature, `Mpi` (processes started by `mpirun`).
//!
//! Each rank owns a contiguous range of every layer's ranks (its share) and
//! holds only that share's engine state. What crosses between ranks:
//! - during the propagation, notices ("a non-capturing child of the position
//!   of rank r resolved, lost or won"), one `u64` each (see
//!   `Notice` in `solve::oware`), sent to the parent's owner in one
//!   exchange per round;
//! - after the layer, its values, gathered on rank 0, which writes the table
//!   (and on every rank if they keep the layer in memory for the layers
//!   above).
//!
//! Lower layers are not exchanged: every rank reads the finished tables
//! from the shared build folder.

mod loopback;
#[cfg(feature = "mpi")]
mod mpi;

use std::ops::Range;

pub use loopback::Loopback;
#[cfg(feature = "mpi")]
pub use mpi::Mpi;

/// How the ranks of a build talk. Every method is collective: all ranks
/// call it, in the same order, from one thread each.
pub trait Transport {
    /// This rank, `0..ranks()`.
    fn rank(&self) -> usize;
    /// How many ranks take part.
    fn ranks(&self) -> usize;
    /// Sends `outgoing[r]` to rank `r` (this rank's own entry is empty) and
    /// returns what the ranks sent to this one, in rank order.
    fn exchange(&self, outgoing: &[Vec<u64>]) -> Vec<u64>;
    /// The sum of `value` over the ranks, on every rank.
    fn sum(&self, value: u64) -> u64;
    /// The concatenation of every rank's `mine`, in rank order: on rank 0,
    /// and on every rank if `to_all`; `None` elsewhere.
    fn gather(&self, mine: &[i8], to_all: bool) -> Option<Vec<i8>>;
    /// Bytes this rank has sent to the others so far.
    fn bytes_sent(&self) -> u64;
}

/// The share of `rank` among `ranks` of a layer of `positions`: contiguous
/// whole `unit`s, as even as they go.
pub fn share(positions: usize, rank: usize, ranks: usize, unit: usize) -> Range<usize> {
    let units = positions.div_ceil(unit);
    let bound = |r: usize| (units * r / ranks * unit).min(positions);
    bound(rank)..bound(rank + 1)
}

/// A build in a single process: nothing to exchange.
pub struct Alone;

impl Transport for Alone {
    fn rank(&self) -> usize {
        0
    }
    fn ranks(&self) -> usize {
        1
    }
    fn exchange(&self, outgoing: &[Vec<u64>]) -> Vec<u64> {
        debug_assert!(outgoing.iter().all(Vec::is_empty));
        Vec::new()
    }
    fn sum(&self, value: u64) -> u64 {
        value
    }
    fn gather(&self, mine: &[i8], _to_all: bool) -> Option<Vec<i8>> {
        Some(mine.to_vec())
    }
    fn bytes_sent(&self) -> u64 {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_cover_the_layer_in_whole_units() {
        for (positions, ranks) in [(0, 3), (5, 1), (100, 3), (1 << 20, 7), (96, 4)] {
            let mut next = 0;
            for rank in 0..ranks {
                let s = share(positions, rank, ranks, 16);
                assert_eq!(s.start, next);
                assert!(s.start.is_multiple_of(16));
                next = s.end;
            }
            assert_eq!(next, positions);
        }
        assert_eq!(share(96, 1, 4, 16), 16..48);
    }
}
