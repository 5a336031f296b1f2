//! Where each finished lower layer goes while a layer is built, as the
//! budget decides it: in memory (resident), decoded into scratch files read
//! through the page cache (cached) or only in order (streamed), or read from
//! its table (stored). Deciding only: `build/placement.rs` moves the layers.

use super::{Budget, LayerPlan};
use crate::index::oware as index;

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

/// Where a lower layer goes while a layer is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    Resident,
    Cached,
    Streamed,
    Stored,
}
