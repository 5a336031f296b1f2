//! A small cache of decompressed blocks, shared by all threads probing a table.
//!
//! Sharded by block number so concurrent probes of different blocks rarely
//! contend; each shard is a tiny most-recently-used-first list.

use std::sync::{Mutex, MutexGuard};

const MAX_SHARDS: usize = 16;

type Shard = Vec<(u64, Box<[u8]>)>;

pub struct BlockCache {
    shards: Box<[Mutex<Shard>]>,
    ways: usize,
}

impl BlockCache {
    /// A cache of about `blocks` blocks (rounded up to fill the shards); 0 disables it.
    pub fn new(blocks: usize) -> Self {
        let shard_count = blocks.min(MAX_SHARDS);
        let ways = if shard_count == 0 {
            0
        } else {
            blocks.div_ceil(shard_count)
        };
        BlockCache {
            shards: (0..shard_count)
                .map(|_| Mutex::new(Vec::with_capacity(ways)))
                .collect(),
            ways,
        }
    }

    fn shard(&self, block: u64) -> Option<MutexGuard<'_, Shard>> {
        let n = self.shards.len() as u64;
        let shard = self.shards.get(block.checked_rem(n)? as usize)?;
        // A panic elsewhere while holding the lock cannot leave a half-made
        // entry (entries are inserted whole), so a poisoned lock is still usable.
        Some(shard.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Byte `at` of `block`, if the block is cached.
    pub fn get(&self, block: u64, at: usize) -> Option<u8> {
        let mut shard = self.shard(block)?;
        let pos = shard.iter().position(|(b, _)| *b == block)?;
        let value = *shard[pos].1.get(at)?;
        if pos != 0 {
            shard[..=pos].rotate_right(1);
        }
        Some(value)
    }

    /// Caches a decoded block, evicting the shard's least recently used one.
    pub fn insert(&self, block: u64, bytes: Box<[u8]>) {
        let Some(mut shard) = self.shard(block) else {
            return;
        };
        if shard.iter().any(|(b, _)| *b == block) {
            return; // another thread decoded it meanwhile
        }
        if shard.len() == self.ways {
            shard.pop();
        }
        shard.insert(0, (block, bytes));
    }
}
