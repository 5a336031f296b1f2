//! The ranks of an `mpirun`: the collectives of [`Transport`] over MPI.
//!
//! Every collective is started non-blocking and waited for by testing it
//! with growing sleeps in between: MPI's blocking calls spin on a core
//! while they wait, which on a shared or oversubscribed machine takes the
//! core from the ranks still working.

use std::cell::Cell;
use std::time::Duration;

use mpi::Count;
use mpi::Threading;
use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::environment::Universe;
use mpi::request::{Request, Scope, scope};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use super::Transport;

/// This process's place in the world communicator. MPI ends when it drops.
pub struct Mpi {
    _universe: Universe,
    world: SimpleCommunicator,
    /// Bytes this rank has sent, for the build's report.
    sent: Cell<u64>,
}

impl Mpi {
    /// Starts MPI; `None` if it was started already. Only the thread that
    /// starts it may call MPI (the engine's worker threads never do).
    pub fn init() -> Option<Mpi> {
        let (universe, _) = mpi::initialize_with_threading(Threading::Funneled)?;
        let world = universe.world();
        Some(Mpi {
            _universe: universe,
            world,
            sent: Cell::new(0),
        })
    }

    /// Ends every rank of the job with `code` (after an error on this one,
    /// which the others would wait for in their next collective forever).
    pub fn abort(&self, code: i32) -> ! {
        self.world.abort(code)
    }

    fn count_sent(&self, bytes: usize) {
        self.sent.set(self.sent.get() + bytes as u64);
    }
}

/// Waits for a request, sleeping between tests: 10 µs at first, doubling up
/// to 1 ms (a round's collectives wait for the slowest rank's work).
fn idle_wait<'a, D: ?Sized, S: Scope<'a>>(mut request: Request<'a, D, S>) {
    let mut pause = Duration::from_micros(10);
    loop {
        match request.test() {
            Ok(_) => return,
            Err(pending) => request = pending,
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(1));
    }
}

/// Each count's offset in one buffer.
fn displacements(counts: &[Count]) -> Vec<Count> {
    counts
        .iter()
        .scan(0, |at, &c| {
            let here = *at;
            *at += c;
            Some(here)
        })
        .collect()
}

fn count(len: usize) -> Count {
    Count::try_from(len).expect("a message of more than 2^31 elements")
}

impl Transport for Mpi {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn ranks(&self) -> usize {
        self.world.size() as usize
    }

    fn exchange(&self, outgoing: &[Vec<u64>]) -> Vec<u64> {
        let send_counts: Vec<Count> = outgoing.iter().map(|q| count(q.len())).collect();
        let mut recv_counts = vec![0 as Count; outgoing.len()];
        scope(|s| {
            idle_wait(self.world.immediate_all_to_all_into(
                s,
                &send_counts[..],
                &mut recv_counts[..],
            ))
        });
        let send = outgoing.concat();
        self.count_sent(send.len() * size_of::<u64>());
        let mut received = vec![0u64; recv_counts.iter().map(|&c| c as usize).sum()];
        let send_displs = displacements(&send_counts);
        let recv_displs = displacements(&recv_counts);
        let send = Partition::new(&send[..], send_counts, send_displs);
        let mut recv = PartitionMut::new(&mut received[..], recv_counts, recv_displs);
        scope(|s| {
            idle_wait(
                self.world
                    .immediate_all_to_all_varcount_into(s, &send, &mut recv),
            )
        });
        received
    }

    fn sum(&self, value: u64) -> u64 {
        let mut total = 0u64;
        scope(|s| {
            idle_wait(self.world.immediate_all_reduce_into(
                s,
                &value,
                &mut total,
                SystemOperation::sum(),
            ))
        });
        total
    }

    fn gather(&self, mine: &[i8], to_all: bool) -> Option<Vec<i8>> {
        let ranks = self.ranks();
        let mut counts = vec![0 as Count; ranks];
        let len = count(mine.len());
        scope(|s| {
            idle_wait(
                self.world
                    .immediate_all_gather_into(s, &len, &mut counts[..]),
            )
        });
        let displs = displacements(&counts);
        let total = counts.iter().map(|&c| c as usize).sum();
        // Counted as the Loopback transport counts: what leaves this rank.
        let root = self.world.process_at_rank(0);
        if to_all || self.rank() == 0 {
            self.count_sent(if to_all { mine.len() * (ranks - 1) } else { 0 });
            let mut all = vec![0i8; total];
            let mut into = PartitionMut::new(&mut all[..], counts, displs);
            scope(|s| match to_all {
                true => idle_wait(
                    self.world
                        .immediate_all_gather_varcount_into(s, mine, &mut into),
                ),
                false => idle_wait(root.immediate_gather_varcount_into_root(s, mine, &mut into)),
            });
            Some(all)
        } else {
            self.count_sent(mine.len());
            scope(|s| idle_wait(root.immediate_gather_varcount_into(s, mine)));
            None
        }
    }

    fn bytes_sent(&self) -> u64 {
        self.sent.get()
    }
}
