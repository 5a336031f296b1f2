//! Whole-layer work on built tables: decoding them, and checking every value
//! against its children (`verify`).

use std::convert::Infallible;
use std::ops::Range;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::budget::{FIXED_BYTES, MAX_PART, Place, place_within};
use super::builder::{BuildOptions, create_dir, lock_folder, place_lower_layers, remove_dir};
use super::distance;
use super::layers::{Layer, Layers};
use super::resolve::{LayerSource, Source};
use super::{TablebaseError, missing_layer, open_table, ruleset_dir, table_path};
use crate::error::{PathContext, WithPath};
use crate::games::oware::{self, Board, MAX_SEEDS, Ruleset};
use crate::index::oware as index;
use crate::memory::free_disk;
use crate::solve::oware::{self as engine, EngineError, LowerLayers, prefetch};
use crate::table::raw::{self, RawLayer};
use crate::tablebase::FileError;
use crate::tablebase::check::first_inconsistent;

/// Positions of a layer decoded at a time: blocks enough for every thread.
const DECODE_BATCH: usize = 1 << 22;
/// Positions of a layer checked at a time.
const CHECK_CHUNK: usize = 1 << 14;
/// Memory per position of a part of the layer checked while lower layers
/// are streamed: its best exits (1 byte), counters (half a byte) and
/// set-up (the lookups of its captures), as a streaming engine's.
const PART_BYTES_PER_POSITION: u64 = engine::PART_BYTES + 2;

/// Decodes layers `0..=max_seeds` into memory (each needs the ones below
/// it), calling `each(seeds, values)` as each is ready. Errors name a
/// missing layer.
pub fn decode_layers(
    dir: &Path,
    rules: Ruleset,
    max_seeds: usize,
    mut each: impl FnMut(usize, &[i8]) -> Result<(), TablebaseError>,
) -> Result<(), TablebaseError> {
    let folder = ruleset_dir(dir, rules);
    let mut layers = Layers::new(rules);
    for seeds in 0..=max_seeds {
        let table =
            open_table(&folder, rules, seeds)?.ok_or_else(|| missing_layer(dir, rules, seeds))?;
        layers.push(Layer::Stored(table));
        // No layer is streamed: the scratch folder is not used.
        layers.make_resident(seeds, DECODE_BATCH, &folder.join("decode"))?;
        each(seeds, direct(&layers, seeds)[seeds])?;
    }
    Ok(())
}

/// The values of layers `0..=seeds` read directly; empty for the others
/// (streamed or stored), which are not looked up directly.
fn direct(layers: &Layers, seeds: usize) -> Vec<&[i8]> {
    (0..=seeds)
        .map(|s| match layers.source(s) {
            Ok(Source::Direct(values)) => values,
            _ => &[],
        })
        .collect()
}

/// How to verify.
#[derive(Clone, Debug)]
pub struct VerifyOptions {
    /// Layers `0..=max_seeds`.
    pub max_seeds: usize,
    /// Memory budget in bytes.
    pub memory: u64,
    /// Bytes of lower layers kept decoded in scratch files and read
    /// through the page cache, outside `memory` (as a build's).
    pub lower_cache: u64,
    /// The folder the scratch folder (`verify-scratch`) goes in; `None`:
    /// the ruleset folder.
    pub scratch: Option<PathBuf>,
    /// A folder of published `scores.N` files that must hold the same
    /// values.
    pub against: Option<PathBuf>,
}

impl VerifyOptions {
    /// Layers `0..=max_seeds`, as much memory as they take.
    pub fn new(max_seeds: usize) -> VerifyOptions {
        VerifyOptions {
            max_seeds,
            memory: u64::MAX,
            lower_cache: 0,
            scratch: None,
            against: None,
        }
    }
}

/// A layer checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayerChecked {
    /// The layer.
    pub seeds: usize,
    /// Its positions.
    pub positions: u64,
    /// Lower layers the budget held neither in memory nor in the lower
    /// cache: streamed from raw copies, the captures into them deferred.
    pub streamed: usize,
    /// Whether the layer has a distance table (checked too).
    pub distances: bool,
}

/// Checks layers `0..=options.max_seeds` within `options.memory`: every
/// table's header and checksums, then every position's value against its
/// children (the best over its moves of captured − child value), and
/// against the published files of `options.against`; then the layer's
/// distance table, if it has one, against its values and moves. Each layer checked is
/// decoded into memory; the lower layers are placed as a build places them
/// (those read most in memory while the budget holds them, then in the
/// lower cache, the rest streamed). `progress` is called after each layer.
pub fn verify(
    dir: &Path,
    rules: Ruleset,
    options: &VerifyOptions,
    progress: &(dyn Fn(&LayerChecked) + Sync),
) -> Result<(), TablebaseError> {
    let max_seeds = options.max_seeds;
    if max_seeds > MAX_SEEDS {
        return Err(TablebaseError::TooManySeeds(max_seeds));
    }
    let folder = ruleset_dir(dir, rules);
    let tables = (0..=max_seeds)
        .map(|s| open_table(&folder, rules, s)?.ok_or_else(|| missing_layer(dir, rules, s)))
        .collect::<Result<Vec<_>, _>>()?;
    // Every layer is planned before any is checked, the largest first: a
    // budget too small fails at once, naming what the largest needs.
    let mut parts = vec![0; max_seeds + 1];
    for seeds in (0..=max_seeds).rev() {
        parts[seeds] = check_part(seeds, options.memory)?;
    }
    let budget = BuildOptions {
        lower_cache: options.lower_cache,
        ..BuildOptions::new(max_seeds, options.memory)
    }
    .budget(1);
    let places: Vec<Vec<Place>> = (0..=max_seeds)
        .map(|s| {
            let room = options.memory - check_bytes(s, parts[s]);
            place_within(s, room, &budget, Place::Streamed)
        })
        .collect();
    let on_disk = places
        .iter()
        .flatten()
        .any(|p| matches!(p, Place::Cached | Place::Streamed));
    let scratch = Scratch::path(options.scratch.as_deref().unwrap_or(&folder));
    // Taken only if a layer leaves memory: else nothing is written.
    let _held = on_disk.then(|| Scratch::take(&scratch)).transpose()?;
    let files = scratch.join("files");
    let mut layers = Layers::new(rules);
    for (seeds, table) in tables.into_iter().enumerate() {
        place_lower_layers(&folder, &files, &places[seeds], parts[seeds], &mut layers)?;
        layers.push(Layer::Stored(table));
        layers.make_resident(seeds, parts[seeds], &files.join("decode"))?;
        if let Some(table) = open_table(&folder, rules, seeds)? {
            // Decoding the layer checked every block's checksum.
            table.verify_layout()?;
        }
        let table = table_path(&folder, seeds);
        check_layer((rules, seeds), &layers, parts[seeds], &files, &table)?;
        if let Some(other_dir) = &options.against {
            compare_with_published(&folder, seeds, direct(&layers, seeds)[seeds], other_dir)?;
        }
        let values = direct(&layers, seeds)[seeds];
        let distances = distance::check_layer(&folder, rules, seeds, values)?;
        progress(&LayerChecked {
            seeds,
            positions: index::layer_size(seeds),
            streamed: (0..seeds).filter(|&s| layers.in_order(s)).count(),
            distances,
        });
    }
    Ok(())
}

/// Memory the check of layer `seeds` takes beside the lower layers it
/// keeps, in parts of `part` positions: the layer's values, a part, and
/// the builds' fixed reserve.
fn check_bytes(seeds: usize, part: usize) -> u64 {
    index::layer_size(seeds) + FIXED_BYTES + part as u64 * PART_BYTES_PER_POSITION
}

/// The positions of layer `seeds` checked (and decoded) at a time within
/// `memory`: as many as fit, up to a build's largest part; else the error
/// that names the least memory that would do.
fn check_part(seeds: usize, memory: u64) -> Result<usize, TablebaseError> {
    let chunk = engine::CHUNK as u64;
    let chunks = memory.saturating_sub(check_bytes(seeds, 0)) / (chunk * PART_BYTES_PER_POSITION);
    let layer = index::layer_size(seeds).div_ceil(chunk);
    match chunks.min(layer) as usize * engine::CHUNK {
        0 => Err(TablebaseError::TooLittleMemoryToCheck {
            seeds,
            budget: memory,
            minimum: check_bytes(seeds, engine::CHUNK),
        }),
        part => Ok(part.min(MAX_PART)),
    }
}

/// A verify's scratch folder: the raw copies of lower layers that leave
/// memory, and the deferred lookups, in its `files` folder. Held, it is
/// locked against a second verify; what a killed one left is removed first,
/// and the whole folder when it is let go.
struct Scratch {
    dir: PathBuf,
    _lock: std::fs::File,
}

impl Scratch {
    /// The scratch folder in `parent`.
    fn path(parent: &Path) -> PathBuf {
        parent.join("verify-scratch")
    }

    fn take(dir: &Path) -> Result<Scratch, TablebaseError> {
        create_dir(dir)?;
        let lock = lock_folder(dir)?;
        remove_dir(&dir.join("files"))?;
        Ok(Scratch {
            dir: dir.to_path_buf(),
            _lock: lock,
        })
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // What is left (a failed removal) the next verify removes.
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A position whose stored value is not the best over its moves.
struct Inconsistent {
    rank: u64,
    board: Board,
    stored: i8,
    expected: i8,
}

impl Inconsistent {
    /// The error, at the layer's table.
    fn at(self, table: &Path) -> TablebaseError {
        let error = FileError::Inconsistent {
            rank: self.rank,
            position: format!("{:?}", self.board),
            stored: self.stored.to_string(),
            expected: self.expected.to_string(),
        };
        WithPath::new(table, error).into()
    }
}

/// Checks layer `seeds` (resident in `layers`, its lower layers placed),
/// whose table is `table`: the first position in rank order whose value is
/// not the best over its moves is the error. With no lower layer streamed,
/// every move is looked up at once; else the exits (captures, the end of
/// the game) are set up as a streaming engine sets them up, `part`
/// positions at a time, the captures into streamed layers deferred to
/// buckets in `scratch`, and the quiet moves are looked up as the exits
/// come back in rank order.
fn check_layer(
    (rules, seeds): (Ruleset, usize),
    layers: &Layers,
    part: usize,
    scratch: &Path,
    table: &Path,
) -> Result<(), TablebaseError> {
    let direct = direct(layers, seeds);
    if !(0..seeds).any(|s| layers.in_order(s)) {
        let size = direct[seeds].len() as u64;
        return match first_bad(size, |ranks| {
            first_bad_in(rules, seeds, &direct, ranks, None)
        }) {
            Some(bad) => Err(bad.at(table)),
            None => Ok(()),
        };
    }
    let free = free_disk(scratch).map_err(FileError::Io).at(scratch)?;
    let config = engine::Config {
        part,
        // As many positions as the disk holds the deferred lookups of.
        sweep: (free as f64 / engine::DEFERRED_BYTES_PER_POSITION) as usize,
        scratch: scratch.to_path_buf(),
        checkpoint_every: None,
        // Only the set-up runs: no threshold's buffers.
        buffer_bytes: 0,
        distances: false,
        phases: Default::default(),
    };
    let out = |start: usize, exits: &[i8]| {
        let first = start as u64;
        let bad = first_bad(exits.len() as u64, |r| {
            let exits = &exits[r.start as usize..r.end as usize];
            first_bad_in(
                rules,
                seeds,
                &direct,
                first + r.start..first + r.end,
                Some(exits),
            )
        });
        match bad {
            Some(bad) => Err(EngineError::Lower(bad.at(table))),
            None => Ok(()),
        }
    };
    engine::set_up_layer((rules, seeds), &config, layers, None, &|_| {}, out)?;
    Ok(())
}

/// The first inconsistent position of ranks `0..size`, in rank order,
/// `check` looking at a range of them at a time (in parallel).
fn first_bad(
    size: u64,
    check: impl Fn(Range<u64>) -> Option<Inconsistent> + Sync,
) -> Option<Inconsistent> {
    match first_inconsistent::<_, Infallible>(size, CHECK_CHUNK as u64, &|_| {}, |r| Ok(check(r))) {
        Ok(bad) => bad,
        Err(never) => match never {},
    }
}

/// The first position of `ranks` of layer `seeds` whose value is not the
/// best over its moves. Quiet moves are looked up in `layers[seeds]`;
/// captures in the layers below or, if `exits` is given (the best exit of
/// each position of `ranks`: its captures, or the end of the game), there.
fn first_bad_in(
    rules: Ruleset,
    seeds: usize,
    layers: &[&[i8]],
    ranks: Range<u64>,
    exits: Option<&[i8]>,
) -> Option<Inconsistent> {
    let start = ranks.start;
    let chunk = &layers[seeds][ranks.start as usize..ranks.end as usize];
    let mut board = index::unrank(seeds, start);
    // Children of 16 positions are looked up together, so that the cache
    // misses overlap.
    let mut children = Vec::with_capacity(16 * oware::SIDE);
    for (group, stored) in chunk.chunks(16).enumerate() {
        let mut boards = [[0u8; oware::PITS]; 16];
        let mut best = [i8::MIN; 16];
        for (slot, b) in boards.iter_mut().take(stored.len()).enumerate() {
            *b = board;
            let moves = oware::legal_moves(rules, &board);
            match exits {
                Some(exits) => best[slot] = exits[group * 16 + slot],
                None if moves.is_empty() => best[slot] = oware::no_move_value(rules, &board),
                None => {}
            }
            for m in moves.iter() {
                if m.captured > 0 && exits.is_some() {
                    continue;
                }
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
            return Some(Inconsistent {
                rank: start + (group * 16 + slot) as u64,
                board: boards[slot],
                stored: stored[slot],
                expected: best[slot],
            });
        }
    }
    None
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The least budget holds the layer and one chunk; a byte less is
    /// refused, naming it; a large one gets a build's largest part, or the
    /// whole layer if smaller.
    #[test]
    fn a_check_takes_its_layer_and_a_part() {
        let least = check_bytes(14, engine::CHUNK);
        assert_eq!(least, index::layer_size(14) + FIXED_BYTES + (1 << 15) * 66);
        assert_eq!(check_part(14, least).unwrap(), engine::CHUNK);
        assert_eq!(check_part(14, least + (1 << 20)).unwrap(), engine::CHUNK);
        match check_part(14, least - 1) {
            Err(TablebaseError::TooLittleMemoryToCheck {
                seeds: 14,
                budget,
                minimum,
            }) => assert_eq!((budget, minimum), (least - 1, least)),
            other => panic!("{other:?}"),
        }
        assert_eq!(check_part(14, u64::MAX).unwrap(), MAX_PART);
        assert_eq!(check_part(5, u64::MAX).unwrap(), engine::CHUNK);
        let two_chunks = check_bytes(14, 2 * engine::CHUNK);
        assert_eq!(check_part(14, two_chunks).unwrap(), 2 * engine::CHUNK);
    }
}
