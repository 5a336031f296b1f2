//! The finished lower layers while a layer is built, put where the budget
//! places them (`budget::places`): in memory (resident), decoded into
//! scratch files read through the page cache (cached) or only in order
//! (streamed), or read from their tables (stored).

use std::path::{Path, PathBuf};

use super::files::{create_dir, remove_file};
use crate::index::oware as index;
use crate::table::Table;
use crate::table::raw::{self, RawLayer, RawWriter};
use crate::tablebase::oware::budget::{Budget, FIXED_BYTES, LayerPlan, Place};
use crate::tablebase::oware::layers::{Layer, Layers, allocate_resident};
use crate::tablebase::oware::{TablebaseError, resolve, table_path};

/// Places the lower layers of the tables in `folder` at `places` (by
/// seeds, as `budget::placement` says), their raw copies in the folder `cache`.
/// A layer that becomes resident, cached or streamed is copied from where
/// it is read directly, or decoded from its table `batch` positions at a
/// time, from the lowest layer up (so a decode expands its positions
/// through the layers below it, read directly or in order): a resumed
/// build reads its lower layers as fast as one that built them. A layer
/// that leaves the cache loses its file.
pub(crate) fn place_lower_layers(
    folder: &Path,
    cache: &Path,
    places: &[Place],
    batch: usize,
    lower: &mut Layers,
) -> Result<(), TablebaseError> {
    let decode = cache.join("decode");
    for (s, &place) in places.iter().enumerate() {
        let path = raw::layer_path(cache, s);
        let positions = index::layer_size(s);
        let layer = match (lower.layer(s), place) {
            (Layer::Resident(_), Place::Resident)
            | (Layer::Cached(_), Place::Cached)
            | (Layer::Streamed(_), Place::Streamed)
            | (Layer::Stored(_), Place::Stored) => continue,
            (Layer::Cached(raw) | Layer::Streamed(raw), Place::Resident) => {
                let mut values = allocate_resident(s)?;
                values.copy_from_slice(raw.values());
                remove_file(&path)?;
                Layer::Resident(values)
            }
            (Layer::Stored(_), Place::Resident) => {
                lower.make_resident(s, batch, &decode)?;
                continue;
            }
            (_, Place::Stored) => {
                remove_file(&path)?;
                Layer::Stored(Table::open(table_path(folder, s))?)
            }
            (layer, Place::Cached | Place::Streamed) => {
                match layer {
                    Layer::Resident(values) => {
                        create_dir(cache)?;
                        raw::write_layer(&path, values)?;
                    }
                    Layer::Stored(_) => {
                        create_dir(cache)?;
                        let mut out = RawWriter::create(path.clone())?;
                        resolve::decode(lower, s, batch, &decode, &mut |values| {
                            Ok(out.push(values)?)
                        })?;
                        out.finish()?;
                    }
                    // The file is there: only the way it is read changes.
                    Layer::Cached(_) | Layer::Streamed(_) => {}
                }
                let raw = RawLayer::open(&path, positions)?;
                match place {
                    Place::Cached => Layer::Cached(raw),
                    _ => Layer::Streamed(raw),
                }
            }
        };
        lower.replace(s, layer);
    }
    Ok(())
}

/// The scratch folder of the cached and streamed lower layers (raw
/// `scores.N` files).
pub(crate) fn lower_cache_dir(folder: &Path) -> PathBuf {
    folder.join("lower-cache")
}

/// The raw copy a layer just built is written to if its values are not
/// kept in memory and a layer above reads it (cached or streamed): writing
/// it as the values come costs less than decoding the table later.
pub(super) fn raw_copy(folder: &Path, seeds: usize, budget: &Budget) -> Option<PathBuf> {
    crate::tablebase::oware::budget::disk::has_raw_copy(seeds, budget)
        .then(|| raw::layer_path(&lower_cache_dir(folder), seeds))
}

/// Whether the values of a layer just built stay in memory for the layers
/// above.
pub(super) fn retain(seeds: usize, plan: &LayerPlan, budget: &Budget, lower: &Layers) -> bool {
    let positions = index::layer_size(seeds);
    let during = match plan.engine.streams() {
        // The engine's states are freed before the final pass.
        true => positions + plan.part as u64 * 4 + FIXED_BYTES,
        // The values array is the engine's own.
        false => plan.engine_bytes,
    };
    lower.resident_bytes() + during.max(positions) <= budget.memory && seeds + 2 <= budget.max_seeds
}
