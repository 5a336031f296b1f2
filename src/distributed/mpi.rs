//! The ranks of an `mpirun`: the collectives of [`Transport`] over MPI.
//!
//! A rank waiting in a collective yields its core to the ranks still
//! working (OpenMPI's `mpi_yield_when_idle`) instead of spinning on it: the
//! spinning took 22–34% of each rank's CPU on this 2-core machine. (Waiting
//! for non-blocking collectives with sleeps in between was tried: with 3
//! ranks, OpenMPI 4.1's `MPI_Iallreduce` never completed after some hundred
//! rounds.)

use std::cell::Cell;

use mpi::Count;
use mpi::Threading;
use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use super::clamp_message_bytes;
use super::rounds::{self, Primitives};

/// This process's place in the world communicator. MPI ends when it drops.
pub struct Mpi {
    _universe: Universe,
    world: SimpleCommunicator,
    message_bytes: usize,
    /// Bytes this rank has sent, for the build's report.
    sent: Cell<u64>,
}

impl Mpi {
    /// Starts MPI, its messages at most `message_bytes` (brought within
    /// [`min_message_bytes`](super::min_message_bytes) for the world's
    /// ranks and [`MAX_MESSAGE_BYTES`](super::MAX_MESSAGE_BYTES): the
    /// collectives cannot be cut finer or count more); `None` if it was
    /// started already. Only the thread that starts it may call MPI (the
    /// engine's worker threads never do).
    pub fn init(message_bytes: usize) -> Option<Mpi> {
        const YIELD: &str = "OMPI_MCA_mpi_yield_when_idle";
        if std::env::var_os(YIELD).is_none() {
            // SAFETY: called before MPI or any other thread starts (the
            // worker pool is built after), so nothing reads the
            // environment meanwhile.
            unsafe { std::env::set_var(YIELD, "1") };
        }
        let (universe, _) = mpi::initialize_with_threading(Threading::Funneled)?;
        let world = universe.world();
        let message_bytes = clamp_message_bytes(message_bytes, world.size() as usize);
        Some(Mpi {
            _universe: universe,
            world,
            message_bytes,
            sent: Cell::new(0),
        })
    }

    /// Ends every rank of the job with `code` (after an error on this one,
    /// which the others would wait for in their next collective forever).
    pub fn abort(&self, code: i32) -> ! {
        self.world.abort(code)
    }
}

/// A piece's counts and displacements as MPI's: the pieces keep them far
/// within, so a failure is a bug in the splitting.
fn counts(counts: &[usize]) -> (Vec<Count>, Vec<Count>) {
    rounds::partition(counts).expect("a piece past MPI's 32-bit counts")
}

impl Primitives for Mpi {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }
    fn ranks(&self) -> usize {
        self.world.size() as usize
    }
    fn message_bytes(&self) -> usize {
        self.message_bytes
    }
    fn all_to_all_piece(&self, send: &[&[u64]], recv_counts: &[usize], recv: &mut [u64]) {
        let send_lens: Vec<usize> = send.iter().map(|q| q.len()).collect();
        let (send_counts, send_displs) = counts(&send_lens);
        let (recv_counts, recv_displs) = counts(recv_counts);
        let send = send.concat();
        self.world.all_to_all_varcount_into(
            &Partition::new(&send[..], send_counts, send_displs),
            &mut PartitionMut::new(recv, recv_counts, recv_displs),
        );
    }

    fn gather_piece(&self, mine: &[u8], piece_counts: &[usize], recv: &mut [u8]) {
        // An empty byte slice points at address 1, which OpenMPI takes for
        // MPI_IN_PLACE (and refuses from a rank not the root): give MPI
        // one that points at a real byte.
        let byte = [0u8];
        let mine = if mine.is_empty() { &byte[..0] } else { mine };
        let root = self.world.process_at_rank(0);
        if self.world.rank() == 0 {
            let (recv_counts, recv_displs) = counts(piece_counts);
            root.gather_varcount_into_root(
                mine,
                &mut PartitionMut::new(recv, recv_counts, recv_displs),
            );
        } else {
            root.gather_varcount_into(mine);
        }
    }

    fn sum_piece(&self, values: &mut [u64]) {
        let mine = values.to_vec();
        self.world
            .all_reduce_into(&mine[..], values, SystemOperation::sum());
    }

    fn all_gather_piece(&self, value: u64) -> Vec<u64> {
        let mut all = vec![0u64; self.ranks()];
        self.world.all_gather_into(&value, &mut all[..]);
        all
    }

    fn sent(&self) -> &Cell<u64> {
        &self.sent
    }
}
