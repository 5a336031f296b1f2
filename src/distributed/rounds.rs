//! The one place where the collectives of [`Transport`] are cut into
//! bounded pieces: each transport gives a few primitives ([`Primitives`]),
//! each carrying at most `message_bytes` from a rank and into a rank, and
//! these functions make the whole collectives of them. Loopback with a tiny
//! bound thus runs the very splitting MPI runs with its large one.
//!
//! Every rank calls the same primitives in the same order: the number of
//! rounds is computed from values every rank holds (the lengths it was
//! told, or the maximum over the ranks).
//!
//! Lengths and offsets here are `usize` (64 bits; a layer passes 2^32
//! positions); a transport converts a piece's counts to its own (MPI's
//! 32-bit ints) with [`partition`], which is checked.

use std::cell::Cell;
use std::ops::Range;

use super::Transport;

/// One bounded collective each: what a transport provides. The functions
/// of this module keep every call within [`Transport::message_bytes`] sent
/// from and received into each rank, and make of them the transport's
/// [`Transport`].
pub(crate) trait Primitives {
    /// See [`Transport::rank`].
    fn rank(&self) -> usize;
    /// See [`Transport::ranks`].
    fn ranks(&self) -> usize;
    /// See [`Transport::message_bytes`].
    fn message_bytes(&self) -> usize;
    /// Sends `send[r]` to rank `r`; writes what comes from each rank into
    /// `recv`, in rank order, `recv_counts[r]` from rank `r` (told by the
    /// caller: MPI needs them before it receives).
    fn all_to_all_piece(&self, send: &[&[u64]], recv_counts: &[usize], recv: &mut [u64]);
    /// Every rank's `mine` into `recv` on rank 0, in rank order, `counts[r]`
    /// from rank `r`; `recv` is empty elsewhere.
    fn gather_piece(&self, mine: &[u8], counts: &[usize], recv: &mut [u8]);
    /// Element-wise sums over the ranks, in place.
    fn sum_piece(&self, values: &mut [u64]);
    /// Every rank's value, in rank order.
    fn all_gather_piece(&self, value: u64) -> Vec<u64>;
    /// The payload bytes sent to other ranks so far (see [`Transport::bytes_sent`]).
    fn sent(&self) -> &Cell<u64>;
}

impl<P: Primitives> Transport for P {
    fn rank(&self) -> usize {
        Primitives::rank(self)
    }
    fn ranks(&self) -> usize {
        Primitives::ranks(self)
    }
    fn message_bytes(&self) -> usize {
        Primitives::message_bytes(self)
    }
    fn exchange(&self, outgoing: &[Vec<u64>]) -> Vec<u64> {
        exchange(self, outgoing)
    }
    fn sum(&self, value: u64) -> u64 {
        sum(self, value)
    }
    fn sum_each(&self, values: &mut [u64]) {
        sum_each(self, values)
    }
    fn all_gather(&self, value: u64) -> Vec<u64> {
        all_gather(self, value)
    }
    fn gather(&self, mine: &[u8]) -> Option<Vec<u8>> {
        gather(self, mine)
    }
    fn bytes_sent(&self) -> u64 {
        self.sent().get()
    }
}

/// Elements `round * per..(round + 1) * per` of `len`, clipped: the
/// `round`th piece of a sequence cut into pieces of `per`.
pub(crate) fn piece(len: usize, per: usize, round: usize) -> Range<usize> {
    let start = round.saturating_mul(per).min(len);
    start..start.saturating_add(per).min(len)
}

/// The pieces of `len` elements, `per` at most each, in order.
pub(crate) fn pieces(len: usize, per: usize) -> impl Iterator<Item = Range<usize>> {
    (0..len.div_ceil(per)).map(move |round| piece(len, per, round))
}

/// What `a` and `b` share (empty, at `a`'s clipped start, if nothing).
fn overlap(a: &Range<usize>, b: &Range<usize>) -> Range<usize> {
    let start = a.start.max(b.start).min(a.end);
    start..a.end.min(b.end).max(start)
}

/// The `u64`s one rank may send to each rank in one round of an exchange:
/// a round then carries at most the bound from every rank and into every
/// rank.
pub(crate) fn pair_quota(message_bytes: usize, ranks: usize) -> usize {
    (message_bytes / size_of::<u64>() / ranks).max(1)
}

/// How a gather splits: the concatenation of the ranks' parts cut into
/// windows of the bound, one per round. Rank 0 receives a window at its
/// place in the result, each rank sending the piece of its part inside it.
pub(crate) struct Windows {
    /// Where each rank's part starts in the concatenation; then its length.
    starts: Vec<usize>,
    bytes: usize,
}

impl Windows {
    pub(crate) fn new(lens: impl IntoIterator<Item = usize>, bytes: usize) -> Windows {
        let mut starts = vec![0];
        for len in lens {
            starts.push(starts.last().unwrap() + len);
        }
        Windows { starts, bytes }
    }

    pub(crate) fn total(&self) -> usize {
        *self.starts.last().unwrap()
    }

    pub(crate) fn rounds(&self) -> usize {
        self.total().div_ceil(self.bytes)
    }

    /// The bytes of the result that `round` fills.
    pub(crate) fn window(&self, round: usize) -> Range<usize> {
        piece(self.total(), self.bytes, round)
    }

    /// The piece of `rank`'s part that it sends in `round`, within its part.
    pub(crate) fn part(&self, rank: usize, round: usize) -> Range<usize> {
        let own = self.starts[rank]..self.starts[rank + 1];
        let sent = overlap(&own, &self.window(round));
        sent.start - own.start..sent.end - own.start
    }

    /// How many bytes each rank sends in `round`.
    pub(crate) fn counts(&self, round: usize) -> Vec<usize> {
        (0..self.starts.len() - 1)
            .map(|rank| self.part(rank, round).len())
            .collect()
    }
}

/// Counts and their displacements in one buffer, converted to a
/// transport's count type (MPI's `i32`); `None` if one does not fit. The
/// sums are taken in `usize`, so nothing wraps on the way.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))] // MPI's, and tested without it
pub(crate) fn partition<C: TryFrom<usize>>(counts: &[usize]) -> Option<(Vec<C>, Vec<C>)> {
    let mut at = 0usize;
    let mut displs = Vec::with_capacity(counts.len());
    let mut converted = Vec::with_capacity(counts.len());
    for &count in counts {
        displs.push(C::try_from(at).ok()?);
        converted.push(C::try_from(count).ok()?);
        at = at.checked_add(count)?;
    }
    // The end must fit too: the last displacement plus its count.
    C::try_from(at).ok()?;
    Some((converted, displs))
}

/// [`Transport::exchange`]: a header round (to each rank the length of its
/// queue and this rank's longest queue), then as many rounds as the
/// longest queue of all needs at [`pair_quota`] per round.
pub(crate) fn exchange<P: Primitives>(p: &P, outgoing: &[Vec<u64>]) -> Vec<u64> {
    let ranks = p.ranks();
    assert_eq!(outgoing.len(), ranks, "one queue per rank");
    let longest = outgoing.iter().map(Vec::len).max().unwrap_or(0) as u64;
    let header: Vec<[u64; 2]> = outgoing.iter().map(|q| [q.len() as u64, longest]).collect();
    let header: Vec<&[u64]> = header.iter().map(|h| &h[..]).collect();
    let mut told = vec![0u64; 2 * ranks];
    p.all_to_all_piece(&header, &vec![2; ranks], &mut told);
    let incoming: Vec<usize> = told.chunks(2).map(|h| h[0] as usize).collect();
    let longest = told.chunks(2).map(|h| h[1] as usize).max().unwrap_or(0);

    let quota = pair_quota(p.message_bytes(), ranks);
    let starts: Vec<usize> = incoming
        .iter()
        .scan(0, |at, &n| {
            let here = *at;
            *at += n;
            Some(here)
        })
        .collect();
    let mut received = vec![0u64; incoming.iter().sum()];
    let mut buffer = Vec::new();
    for round in 0..longest.div_ceil(quota) {
        let send: Vec<&[u64]> = outgoing
            .iter()
            .map(|q| &q[piece(q.len(), quota, round)])
            .collect();
        let counts: Vec<usize> = incoming
            .iter()
            .map(|&n| piece(n, quota, round).len())
            .collect();
        buffer.resize(counts.iter().sum(), 0);
        p.all_to_all_piece(&send, &counts, &mut buffer);
        let mut at = 0;
        for (from, &count) in counts.iter().enumerate() {
            let to = starts[from] + piece(incoming[from], quota, round).start;
            received[to..to + count].copy_from_slice(&buffer[at..at + count]);
            at += count;
        }
    }
    let sent: usize = (outgoing.iter().enumerate())
        .filter(|&(to, _)| to != p.rank())
        .map(|(_, q)| q.len())
        .sum();
    count_sent(p, sent * size_of::<u64>());
    received
}

/// [`Transport::sum`]: one `u64`, within any bound.
pub(crate) fn sum<P: Primitives>(p: &P, value: u64) -> u64 {
    let mut values = [value];
    p.sum_piece(&mut values);
    values[0]
}

/// [`Transport::sum_each`]: the ranks first check that their lengths agree
/// (else they would call different numbers of pieces and hang).
pub(crate) fn sum_each<P: Primitives>(p: &P, values: &mut [u64]) {
    let lens = all_gather(p, values.len() as u64);
    assert!(
        lens.iter().all(|&len| len == lens[0]),
        "sum_each of different lengths on the ranks: {lens:?}"
    );
    for piece in pieces(values.len(), p.message_bytes() / size_of::<u64>()) {
        p.sum_piece(&mut values[piece]);
    }
}

/// [`Transport::all_gather`]: one `u64` from each rank, within the bound
/// by its minimum.
pub(crate) fn all_gather<P: Primitives>(p: &P, value: u64) -> Vec<u64> {
    p.all_gather_piece(value)
}

/// [`Transport::gather`]: the lengths, then the [`Windows`].
pub(crate) fn gather<P: Primitives>(p: &P, mine: &[u8]) -> Option<Vec<u8>> {
    let lens = all_gather(p, mine.len() as u64);
    let windows = Windows::new(lens.iter().map(|&len| len as usize), p.message_bytes());
    let root = p.rank() == 0;
    let mut all = vec![0u8; if root { windows.total() } else { 0 }];
    for round in 0..windows.rounds() {
        let out = match root {
            true => &mut all[windows.window(round)],
            false => &mut [][..],
        };
        let part = windows.part(p.rank(), round);
        p.gather_piece(&mine[part], &windows.counts(round), out);
    }
    if !root {
        count_sent(p, mine.len());
    }
    root.then_some(all)
}

fn count_sent<P: Primitives>(p: &P, bytes: usize) {
    p.sent().set(p.sent().get() + bytes as u64);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distributed::{MESSAGE_BYTES, share};
    use crate::solve::oware::CHUNK;

    const BIG: usize = 5_000_000_000;

    /// A piece's counts are valid MPI counts and within the bound.
    fn fits(counts: &[usize], bytes_each: usize, bound: usize) {
        let total: usize = counts.iter().sum();
        assert!(total * bytes_each <= bound, "{counts:?} past {bound}");
        let (c, d) = partition::<i32>(counts).expect("counts within i32");
        assert_eq!(c.len(), d.len());
    }

    #[test]
    fn pieces_of_more_than_2_to_the_32_elements_cover_in_order() {
        const { assert!(BIG > 1 << 32) };
        for bound in [MESSAGE_BYTES, 4 << 10] {
            let per = bound / size_of::<u64>();
            let mut next = 0;
            for p in pieces(BIG, per) {
                assert_eq!(p.start, next);
                assert!(!p.is_empty() && p.len() <= per);
                assert!(i32::try_from(p.len() * size_of::<u64>()).is_ok());
                next = p.end;
            }
            assert_eq!(next, BIG);
        }
    }

    #[test]
    fn exchange_rounds_of_queues_past_2_to_the_32_stay_within_the_bound() {
        for (bound, ranks) in [(MESSAGE_BYTES, 3), (4 << 10, 2), (64 << 10, 5)] {
            let quota = pair_quota(bound, ranks);
            // One queue of BIG, one past 2^31, the rest short or empty.
            let lens: Vec<usize> = (0..ranks)
                .map(|r| [BIG, (1 << 31) + 5, 0, 17, 1][r])
                .collect();
            let rounds = BIG.div_ceil(quota);
            let mut next = vec![0; ranks];
            for round in 0..rounds {
                let mut sent = 0;
                for (r, &n) in lens.iter().enumerate() {
                    let p = piece(n, quota, round);
                    assert!(p.start == next[r] && p.len() <= quota);
                    next[r] = p.end;
                    sent += p.len();
                }
                assert!(sent * size_of::<u64>() <= bound);
                if round % 4096 == 0 || round + 1 == rounds {
                    let counts: Vec<usize> =
                        lens.iter().map(|&n| piece(n, quota, round).len()).collect();
                    fits(&counts, size_of::<u64>(), bound);
                }
            }
            assert_eq!(next, lens);
            // One round fewer would not do.
            assert!((BIG.div_ceil(quota) - 1) * quota < BIG);
        }
    }

    #[test]
    fn gather_windows_of_layers_past_2_to_the_31_and_2_to_the_32() {
        for (positions, ranks) in [(2_740_000_000usize, 6), (9_000_000_000, 2)] {
            let shares: Vec<_> = (0..ranks)
                .map(|r| share(positions, r, ranks, CHUNK))
                .collect();
            let far = if ranks == 6 { 1 << 31 } else { 1 << 32 };
            assert!(shares.last().unwrap().start > far);
            for bound in [MESSAGE_BYTES, 4 << 10] {
                let windows = Windows::new(shares.iter().map(|s| s.len()), bound);
                assert_eq!(windows.total(), positions);
                let mut next = vec![0; ranks];
                let mut filled = 0;
                for round in 0..windows.rounds() {
                    let window = windows.window(round);
                    assert_eq!(window.start, filled);
                    filled = window.end;
                    let counts = windows.counts(round);
                    assert_eq!(counts.iter().sum::<usize>(), window.len());
                    fits(&counts, 1, bound);
                    // The pieces follow each other in the window in rank
                    // order, at their place in the layer.
                    let mut at = window.start;
                    for (r, s) in shares.iter().enumerate() {
                        let part = windows.part(r, round);
                        assert_eq!(part.start, next[r]);
                        if !part.is_empty() {
                            assert_eq!(s.start + part.start, at);
                        }
                        at += part.len();
                        next[r] = part.end;
                    }
                }
                assert_eq!(filled, positions);
                let lens: Vec<usize> = shares.iter().map(|s| s.len()).collect();
                assert_eq!(next, lens);
            }
        }
    }

    #[test]
    fn partition_refuses_what_does_not_fit_i32() {
        assert_eq!(
            partition::<i32>(&[3, 0, 5]),
            Some((vec![3, 0, 5], vec![0, 3, 3]))
        );
        assert_eq!(partition::<i32>(&[1 << 31]), None);
        // Each count fits, their sum does not: the displacement would wrap.
        assert_eq!(partition::<i32>(&[1 << 30, 1 << 30, 1]), None);
        assert!(partition::<i32>(&[(1 << 30) - 1, 1 << 30]).is_some());
    }

    #[test]
    fn pieces_and_overlaps_at_the_edges() {
        assert_eq!(pieces(0, 4).count(), 0);
        assert_eq!(pieces(9, 4).collect::<Vec<_>>(), [0..4, 4..8, 8..9]);
        assert_eq!(piece(9, 4, 7), 9..9);
        assert_eq!(overlap(&(5..10), &(0..3)), 5..5);
        assert_eq!(overlap(&(5..10), &(12..20)), 10..10);
        assert_eq!(overlap(&(5..10), &(7..20)), 7..10);
        let w = Windows::new([3, 0, 5], 4);
        assert_eq!(w.rounds(), 2);
        assert_eq!(w.counts(0), [3, 0, 1]);
        assert_eq!(w.counts(1), [0, 0, 4]);
        assert_eq!(w.part(2, 1), 1..5);
    }
}
