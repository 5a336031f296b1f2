//! A small cache of decompressed blocks, shared by all threads probing a table.
//!
//! Sharded by block number so concurrent probes of different blocks rarely
//! contend; each shard is a tiny most-recently-used-first list.

use std::sync::{Mutex, MutexGuard};

const MAX_SHARDS: usize = 64;

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

    /// `read` applied to the bytes of `block`, if the block is cached.
    pub fn read<T>(&self, block: u64, read: impl FnOnce(&[u8]) -> T) -> Option<T> {
        let mut shard = self.shard(block)?;
        let pos = shard.iter().position(|(b, _)| *b == block)?;
        let value = read(&shard[pos].1);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn block(tag: u8) -> Box<[u8]> {
        vec![tag; 4].into_boxed_slice()
    }

    impl BlockCache {
        fn get(&self, block: u64, at: usize) -> Option<u8> {
            self.read(block, |bytes| bytes.get(at).copied()).flatten()
        }
    }

    #[test]
    fn evicts_the_least_recently_used_block_of_a_shard() {
        let cache = BlockCache::new(2); // 2 shards of 1 way
        cache.insert(0, block(10));
        cache.insert(1, block(11));
        assert_eq!(cache.get(0, 3), Some(10));
        assert_eq!(cache.get(1, 0), Some(11));
        cache.insert(2, block(12)); // same shard as block 0
        assert_eq!(cache.get(0, 0), None);
        assert_eq!(cache.get(2, 0), Some(12));
        assert_eq!(cache.get(2, 4), None, "past the block's end");

        let cache = BlockCache::new(64 * 2); // 2 ways per shard
        for b in [0, 64, 0, 128] {
            cache.insert(b, block(b as u8));
            cache.get(0, 0);
        }
        assert_eq!(cache.get(0, 0), Some(0), "recently used, kept");
        assert_eq!(cache.get(64, 0), None, "least recently used, evicted");
        assert_eq!(cache.get(128, 0), Some(128));
    }

    #[test]
    fn zero_blocks_disables_caching() {
        let cache = BlockCache::new(0);
        cache.insert(3, block(1));
        assert_eq!(cache.get(3, 0), None);
    }
}
