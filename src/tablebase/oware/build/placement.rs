//! Where the finished lower layers are kept while a layer is built: in
//! memory (resident), decoded into scratch files read through the page
//! cache (cached) or only in order (streamed), or read from their tables
//! (stored).

use std::fs;
use std::path::{Path, PathBuf};

use super::budget::{Budget, FIXED_BYTES, LayerPlan};
use super::remove_file;
use crate::error::PathContext;
use crate::index::oware as index;
use crate::table::Table;
use crate::table::raw::{self, RawLayer, RawWriter};
use crate::tablebase::FileError;
use crate::tablebase::oware::layers::{Layer, Layers, allocate_resident};
use crate::tablebase::oware::{TablebaseError, resolve, table_path};

/// The lower layers layer `seeds` reads most, first: two and three seeds
/// below (most captures take 2 or 3), then the next layer's, then lower.
fn residence_order(seeds: usize) -> impl Iterator<Item = usize> {
    [2, 3, 1]
        .into_iter()
        .filter_map(move |d| seeds.checked_sub(d))
        .chain((0..seeds.saturating_sub(3)).rev())
}

/// Where each lower layer of layer `seeds` goes (by seeds, `0..seeds`)
/// when the layer is built as `plan` says: those it reads most first (in
/// [`residence_order`]), resident while the memory the engine leaves holds
/// them, then cached while the budget's scratch holds them; the rest
/// streamed if the engine streams its exits (its set-up defers lookups),
/// else stored (read from their tables).
pub(crate) fn placement(seeds: usize, plan: &LayerPlan, budget: &Budget) -> Vec<Place> {
    let rest = match plan.engine.streams() {
        true => Place::Streamed,
        false => Place::Stored,
    };
    place_within(
        seeds,
        budget.memory.saturating_sub(plan.engine_bytes),
        budget,
        rest,
    )
}

/// [`placement`] with `room` bytes of memory for the resident layers, the
/// layers neither memory nor the cache holds `rest`.
pub(crate) fn place_within(seeds: usize, room: u64, budget: &Budget, rest: Place) -> Vec<Place> {
    let (mut resident, mut cached) = (0, 0);
    let mut places = vec![Place::Stored; seeds];
    for s in residence_order(seeds) {
        let bytes = index::layer_size(s);
        // Captures take two seeds or more: layer `s` is read by layers
        // `s + 2` and up.
        if s + 2 > budget.max_seeds {
            continue;
        }
        places[s] = if resident + bytes <= room {
            resident += bytes;
            Place::Resident
        } else if cached + bytes <= budget.lower_cache {
            cached += bytes;
            Place::Cached
        } else {
            rest
        };
    }
    places
}

/// Places the lower layers of the tables in `folder` at `places` (by
/// seeds, as [`placement`] says), their raw copies in the folder `cache`.
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

/// Where a lower layer goes while a layer is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    Resident,
    Cached,
    Streamed,
    Stored,
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
    super::disk::has_raw_copy(seeds, budget)
        .then(|| raw::layer_path(&lower_cache_dir(folder), seeds))
}

/// Creates a scratch folder (and those above it) if it is not there.
pub(crate) fn create_dir(dir: &Path) -> Result<(), TablebaseError> {
    fs::create_dir_all(dir)
        .map_err(FileError::CreateDir)
        .at(dir)?;
    Ok(())
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
