//! Whole-layer work on built tables: decoding, checking every value against
//! its children, and the published `scores.N` format.

use std::convert::Infallible;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::layers::{Layer, Layers};
use super::resolve::{LayerSource, Source};
use super::{TablebaseError, missing_layer, open_table, ruleset_dir, table_meta, table_path};
use crate::error::{PathContext, WithPath};
use crate::games::oware::{self, Board, Ruleset};
use crate::index::oware as index;
use crate::solve::oware::prefetch;
use crate::table::ValueEncoding;
use crate::table::raw::{self, RawLayer};
use crate::tablebase::FileError;
use crate::tablebase::check::first_inconsistent;
use crate::tablebase::writers;

/// Positions of a layer decoded at a time: blocks enough for every thread.
const DECODE_BATCH: usize = 1 << 22;
/// Positions of a layer checked at a time.
const CHUNK: usize = 1 << 14;

/// Decodes layers `0..=max_seeds` into memory (each needs the ones below
/// it), calling `each(seeds, values)` as each is ready. Errors name a
/// missing layer.
pub fn decode_layers(
    dir: &Path,
    rules: Ruleset,
    max_seeds: usize,
    mut each: impl FnMut(usize, &[i8]) -> Result<(), TablebaseError>,
) -> Result<(), TablebaseError> {
    decode_resident(dir, rules, max_seeds, |seeds, layers| {
        each(seeds, resident(layers, seeds)[seeds])
    })
}

/// [`decode_layers`], handing over all the layers decoded so far, each
/// resident.
fn decode_resident(
    dir: &Path,
    rules: Ruleset,
    max_seeds: usize,
    mut each: impl FnMut(usize, &Layers) -> Result<(), TablebaseError>,
) -> Result<(), TablebaseError> {
    let folder = ruleset_dir(dir, rules);
    let mut layers = Layers::new(rules);
    for seeds in 0..=max_seeds {
        let table =
            open_table(&folder, rules, seeds)?.ok_or_else(|| missing_layer(dir, rules, seeds))?;
        layers.push(Layer::Stored(table));
        // No layer is streamed: the scratch folder is not used.
        layers.make_resident(seeds, DECODE_BATCH, &folder.join("decode"))?;
        each(seeds, &layers)?;
    }
    Ok(())
}

/// The values of layers `0..=seeds`, all resident.
fn resident(layers: &Layers, seeds: usize) -> Vec<&[i8]> {
    (0..=seeds)
        .map(|s| match layers.source(s) {
            Ok(Source::Direct(values)) => values,
            _ => unreachable!("decoded layers are resident"),
        })
        .collect()
}

/// Checks layers `0..=max_seeds`: every table's header and checksums, then
/// every position's value against its children (the best over its moves of
/// captured − child value). `against`: a folder of published `scores.N`
/// files that must hold the same values. `progress(seeds, positions)` is
/// called after each layer.
pub fn verify(
    dir: &Path,
    rules: Ruleset,
    max_seeds: usize,
    against: Option<&Path>,
    progress: &(dyn Fn(usize, u64) + Sync),
) -> Result<(), TablebaseError> {
    let folder = ruleset_dir(dir, rules);
    decode_resident(dir, rules, max_seeds, |seeds, layers| {
        let layers = resident(layers, seeds);
        if let Some(table) = open_table(&folder, rules, seeds)? {
            // Decoding the layer checked every block's checksum.
            table.verify_layout()?;
        }
        check_layer(rules, seeds, &layers).map_err(|(rank, board, stored, expected)| {
            let error = FileError::Inconsistent {
                rank,
                position: format!("{board:?}"),
                stored: stored.to_string(),
                expected: expected.to_string(),
            };
            WithPath::new(table_path(&folder, seeds), error)
        })?;
        if let Some(other_dir) = against {
            compare_with_published(&folder, seeds, layers[seeds], other_dir)?;
        }
        progress(seeds, index::layer_size(seeds));
        Ok(())
    })?;
    Ok(())
}

/// The first position (in rank order) of the top layer whose value is not the
/// best over its moves: (rank, board, stored, expected).
fn check_layer(rules: Ruleset, seeds: usize, layers: &[&[i8]]) -> Result<(), (u64, Board, i8, i8)> {
    let values = layers[seeds];
    let first_bad =
        first_inconsistent::<_, Infallible>(values.len() as u64, CHUNK as u64, &|_| {}, |ranks| {
            let start = ranks.start;
            let chunk = &values[ranks.start as usize..ranks.end as usize];
            let mut board = index::unrank(seeds, start);
            // Children of 16 positions are looked up together, so that the
            // cache misses overlap.
            let mut children = Vec::with_capacity(16 * oware::SIDE);
            for (group, stored) in chunk.chunks(16).enumerate() {
                let mut boards = [[0u8; oware::PITS]; 16];
                let mut best = [i8::MIN; 16];
                for (slot, b) in boards.iter_mut().take(stored.len()).enumerate() {
                    *b = board;
                    let moves = oware::legal_moves(rules, &board);
                    if moves.is_empty() {
                        best[slot] = oware::no_move_value(rules, &board);
                    }
                    for m in moves.iter() {
                        let rest = seeds - m.captured as usize;
                        let rank = index::rank_indexed(&m.child, rest);
                        prefetch(&layers[rest][rank as usize]);
                        children.push((slot, m.captured as i8, rest, rank));
                    }
                    index::next_indexed(&mut board);
                }
                for (slot, captured, rest, rank) in children.drain(..) {
                    best[slot] = best[slot].max(captured - layers[rest][rank as usize]);
                }
                if let Some(slot) = (0..stored.len()).find(|&s| stored[s] != best[s]) {
                    let rank = start + (group * 16 + slot) as u64;
                    return Ok(Some((rank, boards[slot], stored[slot], best[slot])));
                }
            }
            Ok(None)
        });
    match first_bad {
        Ok(None) => Ok(()),
        Ok(Some(bad)) => Err(bad),
        Err(never) => match never {},
    }
}

fn compare_with_published(
    folder: &Path,
    seeds: usize,
    ours: &[i8],
    other_dir: &Path,
) -> Result<(), TablebaseError> {
    let other = raw::layer_path(other_dir, seeds);
    let theirs = RawLayer::open(&other, ours.len() as u64)?;
    let first = ours
        .par_iter()
        .zip(theirs.values().par_iter())
        .position_first(|(a, b)| a != b);
    match first {
        None => Ok(()),
        Some(rank) => {
            let error = FileError::Differs {
                other,
                rank: rank as u64,
                board: index::unrank(seeds, rank as u64),
                ours: ours[rank],
                theirs: theirs.values()[rank],
            };
            Err(WithPath::new(table_path(folder, seeds), error).into())
        }
    }
}

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
    // Stored as they are: the capture marks would need the lower layers.
    writers::oware_import(table_meta(rules, seeds, ValueEncoding::Score))
        .write(&path, layer.values())?;
    Ok(path)
}
