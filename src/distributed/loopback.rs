//! Threads standing in for ranks: the same collectives as MPI, through
//! shared memory, so that the distributed engine is tested in every
//! `cargo test` without MPI installed. The splitting into bounded pieces is
//! the shared one (`rounds`); a tiny bound runs it in many rounds.

use std::cell::Cell;
use std::sync::{Arc, Condvar, Mutex};

use super::rounds::Primitives;
use super::{MAX_MESSAGE_BYTES, MESSAGE_BYTES, min_message_bytes};

/// One rank's end of an in-process group (see [`Loopback::group`]).
pub struct Loopback {
    rank: usize,
    message_bytes: usize,
    shared: Arc<Shared>,
    sent: Cell<u64>,
    /// The most bytes one primitive sent from or received into this rank:
    /// the tests hold it to the bound.
    largest: Cell<usize>,
    /// How many primitives this rank called.
    calls: Cell<u64>,
}

struct Shared {
    ranks: usize,
    barrier: Gate,
    /// `mail[from][to]`: a piece of an exchange.
    mail: Mutex<Vec<Vec<Vec<u64>>>>,
    /// Each rank's values of a sum or an all-gather.
    values: Mutex<Vec<Vec<u64>>>,
    /// Each rank's piece of a gather.
    bytes: Mutex<Vec<Vec<u8>>>,
}

impl Loopback {
    /// The ends of a group of `ranks`, one for each thread to run; messages
    /// of at most [`MESSAGE_BYTES`].
    pub fn group(ranks: usize) -> Vec<Loopback> {
        Loopback::group_with_message_bytes(ranks, MESSAGE_BYTES.max(min_message_bytes(ranks)))
    }

    /// [`Loopback::group`] with messages of at most `message_bytes`, from
    /// [`min_message_bytes`] to [`MAX_MESSAGE_BYTES`]: tests run the
    /// splitting with a tiny bound.
    pub fn group_with_message_bytes(ranks: usize, message_bytes: usize) -> Vec<Loopback> {
        assert!(ranks >= 1, "a group needs a rank");
        let min = min_message_bytes(ranks);
        assert!(
            (min..=MAX_MESSAGE_BYTES).contains(&message_bytes),
            "a bound of {message_bytes} bytes: {ranks} ranks need {min} to {MAX_MESSAGE_BYTES} \
             (an exchange's header carries two u64s to each rank in one message)"
        );
        let shared = Arc::new(Shared {
            ranks,
            barrier: Gate::new(ranks),
            mail: Mutex::new(vec![vec![Vec::new(); ranks]; ranks]),
            values: Mutex::new(vec![Vec::new(); ranks]),
            bytes: Mutex::new(vec![Vec::new(); ranks]),
        });
        (0..ranks)
            .map(|rank| Loopback {
                rank,
                message_bytes,
                shared: shared.clone(),
                sent: Cell::new(0),
                largest: Cell::new(0),
                calls: Cell::new(0),
            })
            .collect()
    }

    /// The most bytes one primitive call sent from or received into this
    /// rank so far.
    #[cfg(test)]
    pub(crate) fn largest_message(&self) -> usize {
        self.largest.get()
    }

    /// How many primitives this rank has called.
    #[cfg(test)]
    pub(crate) fn primitive_calls(&self) -> u64 {
        self.calls.get()
    }

    fn carried(&self, bytes: usize) {
        self.largest.set(self.largest.get().max(bytes));
        self.calls.set(self.calls.get() + 1);
    }

    /// Puts this rank's contribution, waits for all, reads, and waits again
    /// so that no rank overwrites a slot another is still reading.
    fn round<T>(&self, put: impl FnOnce(&Shared), read: impl FnOnce(&Shared) -> T) -> T {
        put(&self.shared);
        self.shared.barrier.wait();
        let out = read(&self.shared);
        self.shared.barrier.wait();
        out
    }
}

/// A rank that panics breaks the group: the others fail at their next
/// collective instead of waiting for it forever (a test hangs otherwise).
impl Drop for Loopback {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.shared.barrier.break_all();
        }
    }
}

/// A barrier that a panicking rank can break.
struct Gate {
    ranks: usize,
    /// Ranks arrived in this generation, the generation, and whether broken.
    state: Mutex<(usize, u64, bool)>,
    turned: Condvar,
}

impl Gate {
    fn new(ranks: usize) -> Gate {
        Gate {
            ranks,
            state: Mutex::new((0, 0, false)),
            turned: Condvar::new(),
        }
    }

    fn wait(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let generation = state.1;
        state.0 += 1;
        if state.0 == self.ranks {
            *state = (0, generation + 1, state.2);
            self.turned.notify_all();
        }
        while state.1 == generation && !state.2 {
            state = self.turned.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        assert!(!state.2, "another rank of the group panicked");
    }

    fn break_all(&self) {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).2 = true;
        self.turned.notify_all();
    }
}

impl Primitives for Loopback {
    fn rank(&self) -> usize {
        self.rank
    }
    fn ranks(&self) -> usize {
        self.shared.ranks
    }
    fn message_bytes(&self) -> usize {
        self.message_bytes
    }
    fn all_to_all_piece(&self, send: &[&[u64]], recv_counts: &[usize], recv: &mut [u64]) {
        let sent: usize = send.iter().map(|q| q.len()).sum();
        self.carried(sent.max(recv.len()) * size_of::<u64>());
        self.round(
            |s| {
                let mut mail = s.mail.lock().unwrap();
                for (to, piece) in send.iter().enumerate() {
                    mail[self.rank][to].clear();
                    mail[self.rank][to].extend_from_slice(piece);
                }
            },
            |s| {
                let mail = s.mail.lock().unwrap();
                let mut at = 0;
                for (from, &count) in recv_counts.iter().enumerate() {
                    let piece = &mail[from][self.rank];
                    assert_eq!(piece.len(), count, "rank {from} sent other than told");
                    recv[at..at + count].copy_from_slice(piece);
                    at += count;
                }
                assert_eq!(at, recv.len());
            },
        )
    }

    fn gather_piece(&self, mine: &[u8], counts: &[usize], recv: &mut [u8]) {
        self.carried(mine.len().max(recv.len()));
        self.round(
            |s| s.bytes.lock().unwrap()[self.rank] = mine.to_vec(),
            |s| {
                if self.rank != 0 {
                    return;
                }
                let bytes = s.bytes.lock().unwrap();
                let mut at = 0;
                for (piece, &count) in bytes.iter().zip(counts) {
                    assert_eq!(piece.len(), count, "a rank sent other than told");
                    recv[at..at + count].copy_from_slice(piece);
                    at += count;
                }
                assert_eq!(at, recv.len());
            },
        )
    }

    fn sum_piece(&self, values: &mut [u64]) {
        self.carried(size_of_val(values));
        let mine = values.to_vec();
        let sums: Vec<u64> = self.round(
            |s| s.values.lock().unwrap()[self.rank] = mine,
            |s| {
                let all = s.values.lock().unwrap();
                assert!(
                    all.iter().all(|v| v.len() == values.len()),
                    "pieces of different lengths"
                );
                (0..values.len())
                    .map(|i| all.iter().map(|v| v[i]).sum())
                    .collect()
            },
        );
        values.copy_from_slice(&sums);
    }

    fn all_gather_piece(&self, value: u64) -> Vec<u64> {
        self.carried(self.shared.ranks * size_of::<u64>());
        self.round(
            |s| s.values.lock().unwrap()[self.rank] = vec![value],
            |s| s.values.lock().unwrap().iter().map(|v| v[0]).collect(),
        )
    }

    fn sent(&self) -> &Cell<u64> {
        &self.sent
    }
}

#[cfg(test)]
mod tests {
    use std::thread;

    use super::{Loopback, MESSAGE_BYTES};
    use crate::distributed::Transport;

    const BOUNDS: [usize; 3] = [64, 4 << 10, MESSAGE_BYTES];

    /// Runs `f` on every rank of a group, each in its thread; returns what
    /// each gave, in rank order, after checking no primitive passed the
    /// bound.
    fn on_ranks<T: Send>(ranks: usize, bytes: usize, f: impl Fn(&Loopback) -> T + Sync) -> Vec<T> {
        thread::scope(|scope| {
            let f = &f;
            let runs: Vec<_> = Loopback::group_with_message_bytes(ranks, bytes)
                .into_iter()
                .map(|end| {
                    scope.spawn(move || {
                        let out = f(&end);
                        assert!(end.largest_message() <= bytes, "a message passed {bytes}");
                        out
                    })
                })
                .collect();
            runs.into_iter().map(|r| r.join().unwrap()).collect()
        })
    }

    /// Uneven queue lengths from `from` to `to` in exchange `turn`: some
    /// empty, some many bounds long (20_000 u64s are 39 of 4 KiB).
    fn queue_len(from: usize, to: usize, turn: usize) -> usize {
        if from == to {
            return 0;
        }
        [0, 1, 7, 300, 20_000, 0, 65][(from * 5 + to * 3 + turn) % 7]
    }

    fn notice(from: usize, to: usize, i: usize, turn: usize) -> u64 {
        ((turn as u64) << 56) | ((from as u64) << 48) | ((to as u64) << 40) | i as u64
    }

    #[test]
    fn exchanges_deliver_uneven_queues_exactly_in_rank_order() {
        for ranks in 1..=4 {
            for bytes in BOUNDS {
                let results = on_ranks(ranks, bytes, |t| {
                    let me = t.rank();
                    let mut payload = 0;
                    let got: Vec<Vec<u64>> = (0..3)
                        .map(|turn| {
                            let outgoing: Vec<Vec<u64>> = (0..ranks)
                                .map(|to| {
                                    (0..queue_len(me, to, turn))
                                        .map(|i| notice(me, to, i, turn))
                                        .collect()
                                })
                                .collect();
                            payload += outgoing.iter().map(Vec::len).sum::<usize>() * 8;
                            t.exchange(&outgoing)
                        })
                        .collect();
                    assert_eq!(t.bytes_sent(), payload as u64);
                    got
                });
                for (me, got) in results.iter().enumerate() {
                    for (turn, got) in got.iter().enumerate() {
                        let expected: Vec<u64> = (0..ranks)
                            .flat_map(|from| {
                                (0..queue_len(from, me, turn))
                                    .map(move |i| notice(from, me, i, turn))
                            })
                            .collect();
                        assert!(
                            *got == expected,
                            "{ranks} ranks, bound {bytes}, turn {turn}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn sums_and_all_gathers_are_exact() {
        for ranks in 1..=4 {
            for bytes in BOUNDS {
                let results = on_ranks(ranks, bytes, |t| {
                    let me = t.rank() as u64;
                    let mut values: Vec<u64> = (0..1000).map(|i| i * 1000 + me).collect();
                    t.sum_each(&mut values);
                    let mut empty = [];
                    t.sum_each(&mut empty);
                    (
                        values,
                        t.sum(me + 1),
                        t.all_gather(me * 7 + 1),
                        t.bytes_sent(),
                    )
                });
                let r = ranks as u64;
                let sums: Vec<u64> = (0..1000).map(|i| i * 1000 * r + r * (r - 1) / 2).collect();
                let gathered: Vec<u64> = (0..r).map(|m| m * 7 + 1).collect();
                for (values, sum, all, sent) in results {
                    assert_eq!(values, sums);
                    assert_eq!(sum, r * (r + 1) / 2);
                    assert_eq!(all, gathered);
                    assert_eq!(sent, 0);
                }
            }
        }
    }

    #[test]
    fn gathers_uneven_parts_on_rank_0_exactly() {
        for ranks in 1..=4 {
            for bytes in BOUNDS {
                let part = |r: usize| -> Vec<u8> {
                    let len = [5000, 0, 123, 70_001][r];
                    (0..len).map(|i| (i * 31 + r * 7) as u8).collect()
                };
                let results = on_ranks(ranks, bytes, |t| {
                    let mine = part(t.rank());
                    let first = t.gather(&mine);
                    let second = t.gather(&mine[..mine.len() / 2]);
                    (first, second, t.bytes_sent())
                });
                let all: Vec<u8> = (0..ranks).flat_map(part).collect();
                let halves: Vec<u8> = (0..ranks)
                    .flat_map(|r| {
                        let p = part(r);
                        p[..p.len() / 2].to_vec()
                    })
                    .collect();
                for (rank, (first, second, sent)) in results.into_iter().enumerate() {
                    if rank == 0 {
                        assert!(
                            first.as_deref() == Some(&all[..]),
                            "{ranks} ranks, bound {bytes}"
                        );
                        assert!(second.as_deref() == Some(&halves[..]));
                        assert_eq!(sent, 0);
                    } else {
                        assert!(first.is_none() && second.is_none());
                        let len = part(rank).len();
                        assert_eq!(sent, (len + len / 2) as u64);
                    }
                }
            }
        }
    }

    #[test]
    fn a_tiny_bound_takes_many_rounds_within_it() {
        // The splitting is exercised at all: 20_000 u64s to one rank of
        // two, 4 a round under a 64-byte bound, take a header and 5000
        // rounds, each a primitive on both ranks.
        let calls = on_ranks(2, 64, |t| {
            let outgoing: Vec<Vec<u64>> = (0..2)
                .map(|to| match to == t.rank() {
                    true => Vec::new(),
                    false => (0..20_000).collect(),
                })
                .collect();
            let got = t.exchange(&outgoing);
            assert_eq!(got, (0..20_000).collect::<Vec<u64>>());
            t.primitive_calls()
        });
        assert_eq!(calls, [5001, 5001]);
    }

    #[test]
    fn a_panicking_rank_fails_the_others_instead_of_hanging() {
        let ends = Loopback::group_with_message_bytes(3, 64);
        let runs: Vec<_> = ends
            .into_iter()
            .map(|end| {
                thread::spawn(move || {
                    assert!(end.rank() != 1, "rank 1 fails");
                    end.sum(1)
                })
            })
            .collect();
        assert!(runs.into_iter().all(|r| r.join().is_err()));
    }

    #[test]
    #[should_panic(expected = "need 64")]
    fn a_bound_under_the_minimum_is_refused() {
        Loopback::group_with_message_bytes(2, 32);
    }
}
