//! The finished layers as a build (and `verify`) holds them. Each is
//! resident (its values in memory, looked up directly), cached (its values
//! decoded into a scratch file, memory-mapped: looked up directly too, but
//! held by the page cache, outside the build's memory budget), streamed
//! (the same file, read only in order: lookups into it are deferred to
//! buckets) or stored (its compressed table, read through the
//! [resolver](super::resolve)).

use std::path::Path;

use rayon::prelude::*;

use super::TablebaseError;
use super::resolve::{self, LayerSource, Source};
use crate::games::oware::Ruleset;
use crate::index::oware as index;
use crate::solve::array::BigArray;
use crate::solve::oware::{Lookup, LowerLayers, OutOfMemory};
use crate::table::Table;
use crate::table::raw::RawLayer;

/// Bytes of a layer read in order that one thread copies at once.
const READ_PIECE: usize = 1 << 20;

/// One finished layer.
pub enum Layer {
    Resident(BigArray<i8>),
    Cached(RawLayer),
    Streamed(RawLayer),
    Stored(Table),
}

/// Finished layers `0..len`, indexed by seeds.
pub struct Layers {
    rules: Ruleset,
    layers: Vec<Layer>,
}

impl Layers {
    pub fn new(rules: Ruleset) -> Layers {
        Layers {
            rules,
            layers: Vec::new(),
        }
    }

    /// Adds the next layer.
    pub fn push(&mut self, layer: Layer) {
        self.layers.push(layer);
    }

    /// Bytes of memory the resident layers take.
    pub fn resident_bytes(&self) -> u64 {
        self.layers
            .iter()
            .map(|l| match l {
                Layer::Resident(values) => values.len() as u64,
                Layer::Cached(_) | Layer::Streamed(_) | Layer::Stored(_) => 0,
            })
            .sum()
    }

    /// Layer `seeds`.
    pub fn layer(&self, seeds: usize) -> &Layer {
        &self.layers[seeds]
    }

    /// Puts `layer` in the place of layer `seeds` (freeing what it was).
    pub fn replace(&mut self, seeds: usize, layer: Layer) {
        self.layers[seeds] = layer;
    }

    /// Makes stored layer `seeds` resident, decoding it `batch` positions
    /// at a time (with scratch files in `scratch` if layers below are
    /// streamed).
    pub fn make_resident(
        &mut self,
        seeds: usize,
        batch: usize,
        scratch: &Path,
    ) -> Result<(), TablebaseError> {
        let mut values = allocate_resident(seeds)?;
        let mut filled = 0;
        resolve::decode(self, seeds, batch, scratch, &mut |decoded| {
            values[filled..][..decoded.len()].copy_from_slice(decoded);
            filled += decoded.len();
            Ok(())
        })?;
        self.replace(seeds, Layer::Resident(values));
        Ok(())
    }
}

/// Memory for the values of layer `seeds`, kept for the layers above.
pub fn allocate_resident(seeds: usize) -> Result<BigArray<i8>, TablebaseError> {
    let bytes = index::layer_size(seeds);
    BigArray::zeroed(bytes as usize).map_err(|source| {
        OutOfMemory {
            seeds,
            bytes,
            source,
        }
        .into()
    })
}

impl LayerSource for Layers {
    fn rules(&self) -> Ruleset {
        self.rules
    }

    fn source(&self, seeds: usize) -> Result<Source<'_>, TablebaseError> {
        Ok(match &self.layers[seeds] {
            Layer::Resident(values) => Source::Direct(values),
            Layer::Cached(raw) => Source::Direct(raw.values()),
            Layer::Streamed(raw) => Source::InOrder(raw.values()),
            Layer::Stored(table) => Source::Stored(table),
        })
    }
}

impl LowerLayers for Layers {
    type Error = TablebaseError;

    fn resolve(&self, lookups: &mut [Lookup]) -> Result<(), TablebaseError> {
        resolve::resolve(self, lookups)
    }

    fn in_order(&self, seeds: usize) -> bool {
        matches!(self.layers[seeds], Layer::Streamed(_))
    }

    fn read_in_order(
        &self,
        seeds: usize,
        first: u64,
        values: &mut [i8],
    ) -> Result<(), TablebaseError> {
        let Layer::Streamed(raw) = &self.layers[seeds] else {
            panic!("layer {seeds} is not streamed")
        };
        // In parallel pieces: a layer larger than the page cache is read
        // from the disk as the pieces fault its pages in.
        let source = &raw.values()[first as usize..][..values.len()];
        values
            .par_chunks_mut(READ_PIECE)
            .zip(source.par_chunks(READ_PIECE))
            .for_each(|(to, from)| to.copy_from_slice(from));
        Ok(())
    }
}
