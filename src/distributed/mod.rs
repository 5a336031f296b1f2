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
//! - small collectives: sums, counts, and what rank 0 gathers to write.
//!
//! Lower layers are not exchanged: every rank reads the finished tables
//! from the shared build folder.
//!
//! No message passes a bound ([`Transport::message_bytes`]): a layer passes
//! 2^32 positions, MPI counts in 32-bit ints, and a rank's buffers must stay
//! small beside its share. The cutting into bounded pieces lives once, in
//! `rounds`, on a few primitives each transport gives.

mod loopback;
#[cfg(feature = "mpi")]
mod mpi;
mod rounds;

use std::ops::Range;

pub use loopback::Loopback;
#[cfg(feature = "mpi")]
pub use mpi::Mpi;

/// The default bound on one message: large enough that a round's fixed cost
/// is small beside its bytes, small enough that its buffers are small beside
/// a rank's memory and its counts far from MPI's 32-bit limit.
pub const MESSAGE_BYTES: usize = 256 << 20;

/// The largest bound: MPI counts the bytes of a gather's round, and their
/// displacements, in 32-bit ints.
pub const MAX_MESSAGE_BYTES: usize = 1 << 30;

/// The smallest bound for `ranks`: an exchange first tells every rank two
/// `u64`s in one message (and `all_gather` brings one from each), and a
/// round must carry at least one `u64` to each rank.
pub fn min_message_bytes(ranks: usize) -> usize {
    (2 * size_of::<u64>() * ranks).max(64)
}

/// `bytes` brought within [`min_message_bytes`] and [`MAX_MESSAGE_BYTES`].
pub fn clamp_message_bytes(bytes: usize, ranks: usize) -> usize {
    bytes.clamp(min_message_bytes(ranks), MAX_MESSAGE_BYTES)
}

/// How the ranks of a build talk. Every method is collective: all ranks
/// call it, in the same order, from one thread each. Each is cut into
/// messages of at most [`message_bytes`](Transport::message_bytes), so any
/// size works on any number of ranks.
pub trait Transport {
    /// This rank, `0..ranks()`.
    fn rank(&self) -> usize;
    /// How many ranks take part.
    fn ranks(&self) -> usize;
    /// The most bytes one message carries ([`MESSAGE_BYTES`] by default).
    fn message_bytes(&self) -> usize;
    /// Sends `outgoing[r]` to rank `r` (this rank's own entry is empty) and
    /// returns what the ranks sent to this one, in rank order. Any sizes:
    /// split into rounds so that no message passes `message_bytes`.
    fn exchange(&self, outgoing: &[Vec<u64>]) -> Vec<u64>;
    /// The sum of `value` over the ranks, on every rank.
    fn sum(&self, value: u64) -> u64;
    /// Element-wise sums over the ranks of `values` (the same length on
    /// every rank), in place on every rank; in bounded pieces.
    fn sum_each(&self, values: &mut [u64]);
    /// Every rank's `value`, in rank order, on every rank.
    fn all_gather(&self, value: u64) -> Vec<u64>;
    /// The concatenation of every rank's `mine` (any lengths), in rank
    /// order, on rank 0; `None` elsewhere. In bounded pieces.
    fn gather(&self, mine: &[u8]) -> Option<Vec<u8>>;
    /// Bytes this rank has sent to the others so far: the payload of
    /// exchanges and gathers (not the counts and sums that steer them),
    /// counted the same way by every transport.
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
    fn message_bytes(&self) -> usize {
        MESSAGE_BYTES
    }
    fn exchange(&self, outgoing: &[Vec<u64>]) -> Vec<u64> {
        debug_assert!(outgoing.iter().all(Vec::is_empty));
        Vec::new()
    }
    fn sum(&self, value: u64) -> u64 {
        value
    }
    fn sum_each(&self, _values: &mut [u64]) {}
    fn all_gather(&self, value: u64) -> Vec<u64> {
        vec![value]
    }
    fn gather(&self, mine: &[u8]) -> Option<Vec<u8>> {
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
