//! Where the finished lower layers are kept while a layer is built: in
//! memory (resident), decoded into scratch files (cached), or read from
//! their tables (stored).

use std::fs;
use std::path::{Path, PathBuf};

use super::budget::{Budget, FIXED_BYTES, LayerPlan};
use super::remove_file;
use crate::error::PathContext;
use crate::index::oware as index;
use crate::solve::oware::Engine;
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
/// them, then cached while the budget's scratch holds them, else stored
/// (read from their tables).
pub(crate) fn placement(seeds: usize, plan: &LayerPlan, budget: &Budget) -> Vec<Place> {
    let room = budget.memory.saturating_sub(plan.engine_bytes);
    let (mut resident, mut cached) = (0, 0);
    let mut places = vec![Place::Stored; seeds];
    for s in residence_order(seeds) {
        let bytes = index::layer_size(s);
        // Captures take two seeds or more: layer `s` is read by layers
        // `s + 2` and up.
        if s + 2 > budget.max_seeds {
            continue;
        }
        if resident + bytes <= room {
            resident += bytes;
            places[s] = Place::Resident;
        } else if cached + bytes <= budget.lower_cache {
            cached += bytes;
            places[s] = Place::Cached;
        }
    }
    places
}

/// Places the lower layers for layer `seeds` as [`placement`] says. A
/// layer that becomes resident or cached is copied from where it is read
/// directly, or decoded from its table a part at a time, from the lowest
/// layer up (so a decode expands its positions through the layers below it
/// read directly): a resumed build reads its lower layers as fast as one
/// that built them. A layer that leaves the cache loses its file.
pub(super) fn place_lower_layers(
    folder: &Path,
    seeds: usize,
    plan: &LayerPlan,
    budget: &Budget,
    lower: &mut Layers,
) -> Result<(), TablebaseError> {
    for (s, place) in placement(seeds, plan, budget).into_iter().enumerate() {
        let path = raw::layer_path(&lower_cache_dir(folder), s);
        let positions = index::layer_size(s);
        match (lower.layer(s), place) {
            (Layer::Resident(_), Place::Resident)
            | (Layer::Cached(_), Place::Cached)
            | (Layer::Stored(_), Place::Stored) => continue,
            (Layer::Resident(values), Place::Cached) => {
                create_lower_cache(folder)?;
                raw::write_layer(&path, values)?;
            }
            (Layer::Stored(_), Place::Cached) => {
                create_lower_cache(folder)?;
                let mut out = RawWriter::create(path.clone())?;
                resolve::decode(lower, s, plan.part, &mut |values| Ok(out.push(values)?))?;
                out.finish()?;
            }
            (Layer::Cached(raw), Place::Resident) => {
                let mut values = allocate_resident(s)?;
                values.copy_from_slice(raw.values());
                lower.replace(s, Layer::Resident(values));
                remove_file(&path)?;
                continue;
            }
            (Layer::Stored(_), Place::Resident) => {
                lower.make_resident(s, plan.part)?;
                continue;
            }
            (_, Place::Stored) => {
                lower.replace(s, Layer::Stored(Table::open(table_path(folder, s))?));
                remove_file(&path)?;
                continue;
            }
        }
        lower.replace(s, Layer::Cached(RawLayer::open(&path, positions)?));
    }
    Ok(())
}

/// Where a lower layer goes while a layer is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    Resident,
    Cached,
    Stored,
}

/// The scratch folder of the cached lower layers (raw `scores.N` files).
pub(crate) fn lower_cache_dir(folder: &Path) -> PathBuf {
    folder.join("lower-cache")
}

/// The cache file a layer just built is written to if its values are not
/// kept in memory: if the cache could hold it for the layers above.
pub(super) fn cached(folder: &Path, seeds: usize, budget: &Budget) -> Option<PathBuf> {
    (index::layer_size(seeds) <= budget.lower_cache && seeds + 2 <= budget.max_seeds)
        .then(|| raw::layer_path(&lower_cache_dir(folder), seeds))
}

pub(super) fn create_lower_cache(folder: &Path) -> Result<(), TablebaseError> {
    let dir = lower_cache_dir(folder);
    fs::create_dir_all(&dir)
        .map_err(FileError::CreateDir)
        .at(&dir)?;
    Ok(())
}

/// Whether the values of a layer just built stay in memory for the layers
/// above.
pub(super) fn retain(seeds: usize, plan: &LayerPlan, budget: &Budget, lower: &Layers) -> bool {
    let positions = index::layer_size(seeds);
    let during = match plan.engine {
        // The values array is the engine's own.
        Engine::InMemory => plan.engine_bytes,
        // The engine's states are freed before the final pass.
        Engine::OutOfCore | Engine::Compact => positions + plan.part as u64 * 4 + FIXED_BYTES,
    };
    lower.resident_bytes() + during.max(positions) <= budget.memory && seeds + 2 <= budget.max_seeds
}
