//! The disk a layer's build takes, as the build checks it before it starts
//! and as `plan` projects it: the files the layer adds whatever its set-up
//! does, and the set-up's deferred lookups, swept in as many rounds as the
//! disk left holds.

use std::path::Path;

use super::{Budget, LayerPlan, Place};
use crate::error::PathContext;
use crate::index::oware as index;
use crate::solve::oware::{DEFERRED_BYTES_PER_POSITION, Engine};
use crate::tablebase::FileError;
use crate::tablebase::oware::TablebaseError;
use crate::tablebase::oware::layers::{Layer, Layers};

/// Bytes of a finished table per position, for every layer: what the
/// largest layers, which make up most of a build's tables, reach near 48
/// seeds if the growth per layer of the built ones goes on. `mancala-tb
/// info DIR` prints each table's bytes per position.
pub(crate) const TABLE_BYTES_PER_POSITION: f64 = 0.40;

/// Bytes of a distance table per position: `bench-distances.sh`'s at layer
/// 26 (0.45 for 0..=20 as a whole).
pub(crate) const DISTANCE_TABLE_BYTES_PER_POSITION: f64 = 0.43;

/// Bytes per position of layer tables written: the values' table, and the
/// distance table's where the distances are found.
pub(crate) fn table_bytes_per_position(distances: bool) -> f64 {
    TABLE_BYTES_PER_POSITION + distances as u8 as f64 * DISTANCE_TABLE_BYTES_PER_POSITION
}

/// Bytes of one checkpoint of a distributed build per position of the
/// layer (all ranks' together): the in-memory engine's values and states,
/// and the levels' distances if it finds them.
pub(crate) fn share_checkpoint_bytes_per_position(levels: bool) -> f64 {
    Engine::InMemory.checkpoint_bytes_per_position()
        + levels as u8 as f64 * crate::solve::oware::distance::PASS_BYTES_PER_POSITION as f64
}

/// Bytes a distributed build of layer `seeds` adds to the shared folder at
/// its peak (the ranks together). While the shares are solved, the ranks'
/// checkpoints: a new one written before the older is removed, so two for
/// a moment. Then, the last checkpoint still there, the layer's tables
/// (the distances' where the engine finds them, with its `levels`) and as
/// much again in the ranks' part files, before they are copied into place.
/// The ranks keep no raw copies and stream nothing.
pub(crate) fn shared_layer_bytes(seeds: usize, levels: bool) -> u64 {
    let checkpoint = share_checkpoint_bytes_per_position(levels);
    let tables = table_bytes_per_position(levels);
    let per_position = (2.0 * checkpoint).max(checkpoint + 2.0 * tables);
    (index::layer_size(seeds) as f64 * per_position) as u64
}

/// Whether layer `seeds` gets a raw copy as it is built (if its values do
/// not stay in memory): when a layer above reads it and the build is not
/// distributed.
pub(crate) fn has_raw_copy(seeds: usize, budget: &Budget) -> bool {
    seeds + 2 <= budget.max_seeds && budget.ranks == 1
}

/// Bytes of disk that building layer `seeds` with `engine` adds besides its
/// deferred lookups: its table, its raw copy (if `raw_copy`), its engine's
/// scratch files and checkpoint.
pub(crate) fn layer_bytes(seeds: usize, engine: Engine, raw_copy: bool) -> u64 {
    let scratch = engine.scratch_bytes_per_position() + engine.checkpoint_bytes_per_position();
    let raw = if raw_copy { 1.0 } else { 0.0 };
    (index::layer_size(seeds) as f64 * (TABLE_BYTES_PER_POSITION + raw + scratch)) as u64
}

/// Bytes of deferred lookups of a sweep of `positions`.
pub(crate) fn deferred_bytes(positions: u64) -> u64 {
    (positions as f64 * DEFERRED_BYTES_PER_POSITION) as u64
}

/// The positions of layer `seeds` a set-up that defers lookups sweeps
/// before it answers them, with `room` bytes of disk for their files: as
/// many as fit, at most the layer; `None` if not even a part of `part`
/// positions fits.
pub(crate) fn sweep_within(room: u64, seeds: usize, part: usize) -> Option<u64> {
    let positions = index::layer_size(seeds);
    let fits = (room as f64 / DEFERRED_BYTES_PER_POSITION) as u64;
    (fits >= (part as u64).min(positions)).then(|| fits.min(positions))
}

/// Refuses layer `seeds` if its files would not fit the disk of `folder`:
/// the raw copies of lower layers that `places` moves into files, the
/// layer's own files ([`layer_bytes`]) and, if its set-up defers lookups,
/// their files for at least a part. Returns the positions the set-up may
/// sweep before it answers them: as many as the disk left holds.
pub(crate) fn check(
    folder: &Path,
    seeds: usize,
    plan: &LayerPlan,
    places: &[Place],
    lower: &Layers,
    raw_copy: bool,
    shared: bool,
) -> Result<usize, TablebaseError> {
    let copies: u64 = (0..seeds)
        .filter(|&s| {
            let has_file = matches!(lower.layer(s), Layer::Cached(_) | Layer::Streamed(_));
            matches!(places[s], Place::Cached | Place::Streamed) && !has_file
        })
        .map(index::layer_size)
        .sum();
    let fixed = copies
        + match shared {
            true => shared_layer_bytes(seeds, plan.levels),
            false => layer_bytes(seeds, plan.engine, raw_copy),
        };
    let free = crate::memory::free_disk(folder)
        .map_err(FileError::Io)
        .at(folder)?;
    let too_small = |needed| TablebaseError::DiskTooSmall {
        seeds,
        needed,
        free,
        folder: folder.to_path_buf(),
    };
    if !places.contains(&Place::Streamed) {
        return match fixed <= free {
            true => Ok(index::layer_size(seeds) as usize),
            false => Err(too_small(fixed)),
        };
    }
    let least = fixed + deferred_bytes((plan.part as u64).min(index::layer_size(seeds)));
    let room = free.checked_sub(fixed).ok_or_else(|| too_small(least))?;
    sweep_within(room, seeds, plan.part)
        .map(|sweep| sweep as usize)
        .ok_or_else(|| too_small(least))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sweep takes what the room holds, within a part and the layer.
    #[test]
    fn a_sweep_is_as_large_as_the_disk_left_allows() {
        let positions = index::layer_size(20);
        let room = |p: u64| (p as f64 * DEFERRED_BYTES_PER_POSITION) as u64;
        assert_eq!(
            sweep_within(room(positions / 3), 20, 1000),
            Some(positions / 3)
        );
        assert_eq!(sweep_within(room(positions * 2), 20, 1000), Some(positions));
        assert_eq!(sweep_within(room(999), 20, 1000), None);
        assert_eq!(sweep_within(room(1000), 20, 1000), Some(1000));
        // A part larger than the layer needs only the layer.
        assert_eq!(
            sweep_within(room(positions), 20, usize::MAX),
            Some(positions)
        );
        assert_eq!(
            layer_bytes(20, Engine::Compact, true),
            (positions as f64 * (TABLE_BYTES_PER_POSITION + 1.0 + 2.25)) as u64
        );
    }
}
