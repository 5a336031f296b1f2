//! Threads standing in for ranks: the same collectives as MPI, through
//! shared memory, so that the distributed engine is tested in every
//! `cargo test` without MPI installed.

use std::cell::Cell;
use std::sync::{Arc, Barrier, Mutex};

use super::Transport;

/// One rank's end of an in-process group (see [`Loopback::group`]).
pub struct Loopback {
    rank: usize,
    shared: Arc<Shared>,
    sent: Cell<u64>,
}

struct Shared {
    ranks: usize,
    barrier: Barrier,
    /// `mail[from][to]`: the notices of an exchange.
    mail: Mutex<Vec<Vec<Vec<u64>>>>,
    sums: Mutex<Vec<u64>>,
    pieces: Mutex<Vec<Vec<i8>>>,
}

impl Loopback {
    /// The ends of a group of `ranks`, one for each thread to run.
    pub fn group(ranks: usize) -> Vec<Loopback> {
        let shared = Arc::new(Shared {
            ranks,
            barrier: Barrier::new(ranks),
            mail: Mutex::new(vec![vec![Vec::new(); ranks]; ranks]),
            sums: Mutex::new(vec![0; ranks]),
            pieces: Mutex::new(vec![Vec::new(); ranks]),
        });
        (0..ranks)
            .map(|rank| Loopback {
                rank,
                shared: shared.clone(),
                sent: Cell::new(0),
            })
            .collect()
    }

    fn count_sent(&self, bytes: usize) {
        self.sent.set(self.sent.get() + bytes as u64);
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

impl Transport for Loopback {
    fn rank(&self) -> usize {
        self.rank
    }

    fn ranks(&self) -> usize {
        self.shared.ranks
    }

    fn exchange(&self, outgoing: &[Vec<u64>]) -> Vec<u64> {
        let notices: usize = outgoing.iter().map(Vec::len).sum();
        self.count_sent(notices * size_of::<u64>());
        self.round(
            |s| s.mail.lock().unwrap()[self.rank].clone_from_slice(outgoing),
            |s| {
                let mail = s.mail.lock().unwrap();
                mail.iter()
                    .flat_map(|from| &from[self.rank])
                    .copied()
                    .collect()
            },
        )
    }

    fn sum(&self, value: u64) -> u64 {
        self.round(
            |s| s.sums.lock().unwrap()[self.rank] = value,
            |s| s.sums.lock().unwrap().iter().sum(),
        )
    }

    fn gather(&self, mine: &[i8], to_all: bool) -> Option<Vec<i8>> {
        let ranks = self.shared.ranks;
        self.count_sent(match (to_all, self.rank) {
            (true, _) => mine.len() * (ranks - 1),
            (false, 0) => 0,
            (false, _) => mine.len(),
        });
        self.round(
            |s| s.pieces.lock().unwrap()[self.rank] = mine.to_vec(),
            |s| (to_all || self.rank == 0).then(|| s.pieces.lock().unwrap().concat()),
        )
    }

    fn bytes_sent(&self) -> u64 {
        self.sent.get()
    }
}
