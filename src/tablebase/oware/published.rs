//! The published format of a layer, `scores.N` (one signed byte per
//! position in rank order, no header): exporting a layer to it and
//! importing one from it.
//!
//! An imported table holds the values as they are: the capture marks of a
//! built table follow from the lower layers, which need not be there yet.
//! `build oware` adds them before it finds the layer's distances, which
//! makes the table the one a build from scratch writes.

use std::path::{Path, PathBuf};

use super::verify::decode_layers;
use super::{TablebaseError, ruleset_dir, table_meta, table_path};
use crate::error::{PathContext, WithPath};
use crate::games::oware::Ruleset;
use crate::index::oware as index;
use crate::table::ValueEncoding;
use crate::table::raw::{self, RawLayer};
use crate::tablebase::FileError;
use crate::tablebase::writers;

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
