//! The published format of a layer, `scores.N` (one signed byte per
//! position in rank order, no header): exporting a layer to it and
//! importing one from it.
//!
//! An imported table holds the values as they are: the capture marks of a
//! built table ([`CAPTURE_DECIDES`]) follow from the lower layers, which
//! need not be there yet. The build adds them before it finds the layer's
//! distances ([`add_capture_marks`]), which makes the table the one a build
//! from scratch writes.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::build::{remove_dir, scratch_dir};
use super::layers::Layers;
use super::verify::decode_layers;
use super::{TablebaseError, ruleset_dir, table_meta, table_path};
use crate::error::{PathContext, WithPath};
use crate::games::oware::Ruleset;
use crate::index::oware as index;
use crate::solve::oware::{self as engine, EngineError};
use crate::table::raw::{self, RawLayer};
use crate::table::{CAPTURE_DECIDES, Table, ValueEncoding};
use crate::tablebase::FileError;
use crate::tablebase::writers;

/// Positions whose exits are set up at a time while marks are added: their
/// lookups take 32 MiB.
const MARK_PART: usize = 16 * engine::CHUNK;

/// Writes layer `seeds` in the published format (one signed byte per
/// position in rank order, no header) to `out`.
pub fn export(dir: &Path, rules: Ruleset, seeds: usize, out: &Path) -> Result<(), TablebaseError> {
    decode_layers(dir, rules, seeds, |s, values| match s == seeds {
        true => Ok(raw::write_layer(out, values)?),
        false => Ok(()),
    })
}

/// Reads a published `scores.N` file (checking its size) into a compressed
/// table of layer `seeds`; returns the table's path.
pub fn import(
    dir: &Path,
    rules: Ruleset,
    seeds: usize,
    file: &Path,
) -> Result<PathBuf, TablebaseError> {
    let layer = RawLayer::open(file, index::layer_size(seeds))?;
    let folder = ruleset_dir(dir, rules);
    std::fs::create_dir_all(&folder)
        .map_err(FileError::CreateDir)
        .at(&folder)?;
    let path = table_path(&folder, seeds);
    if path.exists() {
        return Err(WithPath::new(path, FileError::Exists).into());
    }
    writers::oware_import(table_meta(rules, seeds, ValueEncoding::Score))
        .write(&path, layer.values())?;
    Ok(path)
}

/// Rewrites the imported table of layer `seeds` in `folder` as a build
/// writes it: each position whose value is that of its best exit (its best
/// capture, or the end of the game) marked [`CAPTURE_DECIDES`]. The exits
/// are set up from `layers`, which hold the layers below, as an engine sets
/// them up. Returns the new table.
pub(super) fn add_capture_marks(
    folder: &Path,
    rules: Ruleset,
    seeds: usize,
    layers: &Layers,
) -> Result<Table, TablebaseError> {
    let path = table_path(folder, seeds);
    let imported = Table::open(&path)?;
    let meta = table_meta(rules, seeds, ValueEncoding::ScoreOrCapture);
    let mut out = writers::oware_build(meta).create(&path)?;
    let scratch = scratch_dir(folder, seeds);
    let config = engine::Config {
        part: MARK_PART,
        sweep: usize::MAX,
        scratch: scratch.clone(),
        checkpoint_every: None,
        buffer_bytes: 0,
        distances: false,
        phases: Default::default(),
    };
    // Values decoded and not yet written, from the first of the exits
    // handed over; and the next block to decode.
    let mut values = Vec::new();
    let mut next = 0;
    let block_size = u64::from(imported.block_size());
    let mut mark = |start: usize, exits: &[i8]| {
        let last = ((start + exits.len()) as u64).div_ceil(block_size);
        let blocks = (next..last)
            .into_par_iter()
            .map(|block| imported.decode_block(block))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| EngineError::Lower(e.into()))?;
        next = next.max(last);
        values.extend(blocks.into_iter().flatten());
        let marked: Vec<i8> = (values.drain(..exits.len()).zip(exits))
            .map(|(value, &exit)| {
                if value == exit {
                    CAPTURE_DECIDES
                } else {
                    value
                }
            })
            .collect();
        out.push(&marked).map_err(|e| EngineError::Lower(e.into()))
    };
    engine::set_up_layer((rules, seeds), &config, layers, None, &|_| {}, &mut mark)?;
    out.finish()?;
    remove_dir(&scratch)?;
    Ok(Table::open(&path)?)
}
