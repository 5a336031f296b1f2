//! The ranks of an `mpirun`: the collectives of [`Transport`] over MPI.

use std::cell::Cell;

use mpi::Count;
use mpi::Threading;
use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::environment::Universe;
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

/// Each count and its offset in one buffer.
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
        self.world
            .all_to_all_into(&send_counts[..], &mut recv_counts[..]);
        let send = outgoing.concat();
        self.count_sent(send.len() * size_of::<u64>());
        let mut received = vec![0u64; recv_counts.iter().map(|&c| c as usize).sum()];
        let send_displs = displacements(&send_counts);
        let recv_displs = displacements(&recv_counts);
        self.world.all_to_all_varcount_into(
            &Partition::new(&send[..], send_counts, send_displs),
            &mut PartitionMut::new(&mut received[..], recv_counts, recv_displs),
        );
        received
    }

    fn bytes_sent(&self) -> u64 {
        self.sent.get()
    }

    fn sum(&self, value: u64) -> u64 {
        let mut total = 0u64;
        self.world
            .all_reduce_into(&value, &mut total, SystemOperation::sum());
        total
    }

    fn gather(&self, mine: &[i8], to_all: bool) -> Option<Vec<i8>> {
        let ranks = self.ranks();
        let mut counts = vec![0 as Count; ranks];
        self.world
            .all_gather_into(&count(mine.len()), &mut counts[..]);
        let displs = displacements(&counts);
        let total = counts.iter().map(|&c| c as usize).sum();
        // As counted by the Loopback transport: what leaves this rank.
        if to_all {
            self.count_sent(mine.len() * (ranks - 1));
            let mut all = vec![0i8; total];
            self.world.all_gather_varcount_into(
                mine,
                &mut PartitionMut::new(&mut all[..], counts, displs),
            );
            return Some(all);
        }
        let root = self.world.process_at_rank(0);
        if self.rank() == 0 {
            let mut all = vec![0i8; total];
            root.gather_varcount_into_root(
                mine,
                &mut PartitionMut::new(&mut all[..], counts, displs),
            );
            Some(all)
        } else {
            self.count_sent(mine.len());
            root.gather_varcount_into(mine);
            None
        }
    }
}
