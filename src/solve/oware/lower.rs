//! The seam between an engine and the finished lower layers: what a set-up
//! asks of them ([`LowerLayers`]), one [`Lookup`] per capture child, and the
//! memory those lookups take per position of a part. The set-up, the
//! buckets of lookups deferred into layers read in order, and the engines
//! all depend on it; it depends on none of them.

/// A position of a lower layer whose value is asked for.
#[derive(Clone, Copy, Debug, Default)]
pub struct Lookup {
    /// The rank of the position in its layer.
    pub rank: u64,
    /// The layer (seeds).
    pub seeds: u8,
    /// Filled in by [`LowerLayers::resolve`].
    pub value: i8,
    /// The asker's data: the seeds the capture took.
    pub captured: i8,
    /// The asker's data: where the answer goes.
    pub slot: u32,
}

/// Peak bytes per position of a part's set-up: its lookups (16 bytes, more
/// than one per position), the per-chunk lists they are gathered in, and
/// the nodes of lookups into stored layers with their expansions: about 49
/// at the peak of `scripts/derive/bench-oware.sh 25 awari 2 1G` (peak anonymous
/// memory, lower layers read from their tables, less the engine's
/// arrays, per position of a part); 64 leaves a margin.
pub const PART_BYTES: u64 = 4 * size_of::<Lookup>() as u64;

/// The values of the finished lower layers, asked for in batches.
pub trait LowerLayers: Sync {
    type Error: std::error::Error + Send + 'static;
    /// Fills in the `value` of every lookup (in any order; the slice keeps
    /// its order). Not asked of layers read in order.
    fn resolve(&self, lookups: &mut [Lookup]) -> Result<(), Self::Error>;
    /// Whether layer `seeds` is read only in order, a range at a time
    /// ([`read_in_order`](Self::read_in_order)): lookups into it are
    /// deferred to buckets.
    fn in_order(&self, seeds: usize) -> bool;
    /// The values of the positions `first .. first + values.len()` of a
    /// layer read in order.
    fn read_in_order(&self, seeds: usize, first: u64, values: &mut [i8])
    -> Result<(), Self::Error>;
}
