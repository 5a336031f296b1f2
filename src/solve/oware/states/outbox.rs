//! Notices for parents that other ranks own, queued by owner until the
//! round's exchange: the [`NoticeSink`] of a distributed propagation.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use super::NoticeSink;

/// Bytes of notices a rank queues for all others before an exchange, by
/// default; it receives at most as much. Large messages, few rounds:
/// Romein & Bal combined updates the same way.
pub const OUTBOX_BYTES: u64 = 64 << 20;

/// The notices queued for each rank.
pub struct Outbox {
    /// The first layer rank of each rank's share, then the layer's size.
    bounds: Vec<usize>,
    queues: Vec<Mutex<Vec<u64>>>,
    /// Notices per queue that make the outbox full.
    cap: usize,
    full: AtomicBool,
}

impl Outbox {
    /// An empty outbox of `bytes` for ranks whose shares start at `bounds`
    /// (the layer's size last).
    pub fn new(bounds: Vec<usize>, bytes: u64) -> Outbox {
        let ranks = bounds.len() - 1;
        Outbox {
            queues: (0..ranks).map(|_| Mutex::new(Vec::new())).collect(),
            cap: (bytes as usize / size_of::<u64>() / ranks).max(1),
            bounds,
            full: AtomicBool::new(false),
        }
    }

    /// The queues, emptied; and how many notices they held.
    pub fn take(&self) -> (Vec<Vec<u64>>, usize) {
        self.full.store(false, Ordering::Relaxed);
        let queues: Vec<Vec<u64>> = self
            .queues
            .iter()
            .map(|q| std::mem::take(&mut *q.lock().unwrap()))
            .collect();
        let count = queues.iter().map(Vec::len).sum();
        (queues, count)
    }

    fn owner(&self, rank: u64) -> usize {
        self.bounds.partition_point(|&b| b as u64 <= rank) - 1
    }
}

impl NoticeSink for Outbox {
    /// Whether a queue has reached its cap: time to exchange.
    #[inline]
    fn is_full(&self) -> bool {
        self.full.load(Ordering::Relaxed)
    }

    /// Queues a worker's notices by owner.
    fn post(&self, notices: &mut Vec<u64>) {
        if notices.is_empty() {
            return;
        }
        // Sorted, the notices of one owner are adjacent (shares are
        // contiguous), and the owner applies them in rank order.
        notices.sort_unstable();
        let mut rest = &notices[..];
        while let Some(&first) = rest.first() {
            let owner = self.owner(first >> 1);
            let end = self.bounds[owner + 1] as u64;
            let len = rest.partition_point(|&code| code >> 1 < end);
            let mut queue = self.queues[owner].lock().unwrap();
            queue.extend_from_slice(&rest[..len]);
            if queue.len() >= self.cap {
                self.full.store(true, Ordering::Relaxed);
            }
            rest = &rest[len..];
        }
        notices.clear();
    }
}
