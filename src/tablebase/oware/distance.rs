//! Distance tables beside the value tables: `distance.N.mtb` holds, for
//! every position of layer `N`, the moves to the capture (or the end of the
//! game) that secures its value ([`crate::solve::oware::distance`]), so that
//! a line that follows them reaches the value instead of going round.
//!
//! A distance table records the payload CRC of the value table it was built
//! from (`docs/format.md`, "Distance tables"); one that does not match its
//! value table is refused, naming both files, and found again by the next
//! build. The pass reads the capture marks of a built table; a table
//! imported from the published format gets them first
//! ([`add_capture_marks`]).

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::layers::{Layer, Layers};
use super::resolve::{self, LayerSource, Source};
use super::{TablebaseError, build_args, table_meta, table_path, tablebase_dir};
use std::convert::Infallible;

use crate::error::WithPath;
use crate::games::oware::{self, Children, Ruleset};
use crate::index::oware as index;
use crate::solve::Progress;
use crate::solve::array::BigArray;
use crate::solve::oware::distance::{self, DistanceError, Distances};
use crate::solve::oware::{self as engine, EngineError, OutOfMemory};
use crate::table::{
    CAPTURE_DECIDES, Table, TableError, TableWriter, ValueEncoding, distance_options,
    distance_source,
};
use crate::tablebase::check::first_inconsistent;
use crate::tablebase::{FileError, writers};

/// Positions of a layer decoded from its value table, or written to its
/// distance table, at a time.
const IO_BATCH: usize = 1 << 20;
/// Positions whose exits are set up at a time as capture marks are added:
/// their lookups take 32 MiB.
const MARK_PART: usize = 16 * engine::CHUNK;

/// The distance table of a layer inside a ruleset folder.
pub fn distance_path(folder: &Path, seeds: usize) -> PathBuf {
    folder.join(format!("distance.{seeds}.mtb"))
}

/// Bytes of memory a position takes in the distance pass: its distance,
/// its exit bit and, unless its layer is read directly, its value.
pub fn pass_bytes_per_position(values_read_directly: bool) -> f64 {
    let values = if values_read_directly { 0.0 } else { 1.0 };
    distance::PASS_BYTES_PER_POSITION as f64 + 1.0 / 8.0 + values
}

/// Bytes of memory the distances of layer `seeds` take to find.
pub fn pass_bytes(seeds: usize, values_read_directly: bool) -> u64 {
    (index::layer_size(seeds) as f64 * pass_bytes_per_position(values_read_directly)).ceil() as u64
}

/// What the distance pass found for a layer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DistanceReport {
    /// The layer.
    pub seeds: usize,
    /// The longest distance of the layer, in moves.
    pub longest: u16,
    /// Bytes of the distance table.
    pub bytes: u64,
    /// Wall time of the pass and the table's writing; of the writing
    /// alone for distances found as the layer was built (the rest is in
    /// the layer's time).
    pub seconds: f64,
    /// Found by the in-memory engine as it built the layer, not by a pass.
    pub while_building: bool,
}

/// Finds and writes the distances of layer `seeds` of `layers` (which
/// holds it and every layer below), whose value table is written in
/// `folder`.
pub(super) fn write_layer(
    folder: &Path,
    rules: Ruleset,
    seeds: usize,
    layers: &Layers,
    progress: Progress,
) -> Result<DistanceReport, TablebaseError> {
    let start = std::time::Instant::now();
    let table = Table::open(table_path(folder, seeds))?;
    let exits = exits(&table, rules)?;
    let decoded;
    let values: &[i8] = match layers.source(seeds)? {
        Source::Direct(values) | Source::InOrder(values) => values,
        Source::Stored(_) => {
            let mut values =
                BigArray::<i8>::zeroed(table.len() as usize).map_err(|source| OutOfMemory {
                    seeds,
                    bytes: table.len(),
                    source,
                })?;
            let mut filled = 0;
            let scratch = folder.join(format!("distance.{seeds}.scratch"));
            resolve::decode(layers, seeds, IO_BATCH, &scratch, &mut |part| {
                values[filled..][..part.len()].copy_from_slice(part);
                filled += part.len();
                Ok(())
            })?;
            decoded = values;
            &decoded
        }
    };
    let exit = |rank: usize| exits[rank / 64] >> (rank % 64) & 1 != 0;
    let distances = distance::solve_layer(rules, seeds, values, &exit, progress)
        .map_err(|e| distance_error(folder, e))?;
    write_table(folder, rules, seeds, &table, &distances, start)
}

/// Rewrites the table of layer `seeds` in `folder`, imported from the
/// published format, as a build writes it: each position whose value is
/// that of its best exit (its best capture, or the end of the game) marked
/// [`CAPTURE_DECIDES`], which the pass reads. The exits are set up from
/// `layers`, which hold the layers below, as an engine sets them up (the
/// lookups it defers in the folder `scratch`). Returns the new table.
pub(super) fn add_capture_marks(
    folder: &Path,
    rules: Ruleset,
    seeds: usize,
    layers: &Layers,
    scratch: &Path,
) -> Result<Table, TablebaseError> {
    let path = table_path(folder, seeds);
    let imported = Table::open(&path)?;
    let meta = table_meta(rules, seeds, ValueEncoding::ScoreOrCapture);
    let mut out = writers::oware_build(meta).create(&path)?;
    let config = engine::Config {
        part: MARK_PART,
        sweep: usize::MAX,
        scratch: scratch.to_path_buf(),
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
    Ok(Table::open(&path)?)
}

/// Writes the distance table of layer `seeds` beside `values`, its value
/// table; the report's time counts from `start`.
pub(super) fn write_table(
    folder: &Path,
    rules: Ruleset,
    seeds: usize,
    values: &Table,
    distances: &Distances,
    start: std::time::Instant,
) -> Result<DistanceReport, TablebaseError> {
    let path = distance_path(folder, seeds);
    let mut out = writer(rules, seeds, values).create_for::<i16>(&path)?;
    let mut longest = 0;
    let mut piece = Vec::with_capacity(IO_BATCH);
    for start in (0..distances.len()).step_by(IO_BATCH) {
        piece.clear();
        distances.extend_into(start..(start + IO_BATCH).min(distances.len()), &mut piece);
        longest = longest.max(piece.par_iter().copied().max().unwrap_or(0) as u16);
        out.push(&piece)?;
    }
    out.finish()?;
    Ok(DistanceReport {
        seeds,
        longest,
        bytes: std::fs::metadata(&path).map_or(0, |m| m.len()),
        seconds: start.elapsed().as_secs_f64(),
        while_building: false,
    })
}

/// The writer of the distance table of layer `seeds`, whose value table
/// is `values`.
pub(super) fn writer(rules: Ruleset, seeds: usize, values: &Table) -> TableWriter {
    let mut meta = table_meta(rules, seeds, ValueEncoding::Distance);
    meta.options = distance_options(&meta.options, values.payload_crc());
    writers::oware_distance(meta)
}

/// Opens the distance table of layer `seeds` if there is one, and checks
/// that it was built from `values`, the layer's value table.
pub(super) fn open(
    folder: &Path,
    rules: Ruleset,
    seeds: usize,
    values: &Table,
) -> Result<Option<Table>, TablebaseError> {
    let path = distance_path(folder, seeds);
    let table = match Table::open(&path) {
        Ok(table) => table,
        Err(WithPath {
            error: TableError::NotFound,
            ..
        }) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let meta = table.meta();
    let expected = table_meta(rules, seeds, ValueEncoding::Distance);
    let source = distance_source(&meta.options);
    let same_layer = meta.game == expected.game
        && meta.ruleset == expected.ruleset
        && meta.seeds == expected.seeds
        && meta.encoding == expected.encoding
        && table.len() == values.len()
        && source.is_some_and(|(options, _)| options == expected.options);
    if !same_layer {
        let error = FileError::WrongTable {
            found: format!(
                "{} {} layer {} {} table ({} positions)",
                meta.game,
                meta.ruleset,
                meta.seeds,
                meta.encoding.name(),
                table.len()
            ),
            expected: format!(
                "the distances of oware {rules} layer {seeds} ({} positions)",
                values.len()
            ),
        };
        return Err(WithPath::new(path, error).into());
    }
    if source.map(|(_, crc)| crc) != Some(values.payload_crc()) {
        return Err(TablebaseError::DistancesOfOtherValues {
            distances: path,
            values: values.path().to_path_buf(),
            build_args: build_args(tablebase_dir(folder), rules, seeds),
        });
    }
    Ok(Some(table))
}

/// Whether the build finds the distances of layer `seeds`, whose value
/// table is `values`: it has no distance table, or one built from other
/// values, or its values have no capture marks (imported), which the pass
/// adds first.
pub(super) fn wanted(
    folder: &Path,
    rules: Ruleset,
    seeds: usize,
    values: &Table,
) -> Result<bool, TablebaseError> {
    if values.meta().encoding != ValueEncoding::ScoreOrCapture {
        return Ok(true);
    }
    match open(folder, rules, seeds, values) {
        Ok(distances) => Ok(distances.is_none()),
        Err(TablebaseError::DistancesOfOtherValues { .. }) => Ok(true),
        Err(e) => Err(e),
    }
}

/// Checks the distance table of layer `seeds`, if it has one, against
/// the layer's `values` and its moves: its checksums, the value table it
/// names, and each position's distance (ahead: 1 + the least distance of a
/// value-keeping move, a capture counting 0; behind: 1 + the greatest; a
/// draw and a finished game 0). The first position in rank order that
/// differs is the error, at the distance table. Returns whether the layer
/// has a distance table.
pub(super) fn check_layer(
    folder: &Path,
    rules: Ruleset,
    seeds: usize,
    values: &[i8],
) -> Result<bool, TablebaseError> {
    let table = Table::open(table_path(folder, seeds))?;
    let Some(distances) = open(folder, rules, seeds, &table)? else {
        return Ok(false);
    };
    distances.verify()?;
    let stored = distances.decode_all_wide()?;
    let exits = exits(&table, rules)?;
    let bad = first_inconsistent::<_, Infallible>(values.len() as u64, 1 << 14, &|_| {}, |ranks| {
        let mut board = oware::packed(&index::unrank(seeds, ranks.start));
        for rank in ranks.start as usize..ranks.end as usize {
            let value = values[rank];
            let children = Children::of_packed(rules, board);
            let expected = if value == 0 || children.is_empty() {
                0
            } else {
                let exit = exits[rank / 64] >> (rank % 64) & 1 != 0;
                let quiet = children.quiet().filter_map(|pit| {
                    let child = index::rank_packed(children.packed_child(pit), seeds) as usize;
                    (values[child] == -value).then(|| stored[child] as i32 + 1)
                });
                let keeping = quiet.chain(exit.then_some(1));
                let best = if value > 0 {
                    keeping.min()
                } else {
                    keeping.max()
                };
                best.unwrap_or(-1)
            };
            if i32::from(stored[rank]) != expected {
                return Ok(Some(FileError::Inconsistent {
                    rank: rank as u64,
                    position: format!("{:?}", oware::unpacked(board)),
                    stored: format!("distance {}", stored[rank]),
                    expected: match expected {
                        -1 => "no value-keeping move".into(),
                        d => format!("distance {d}"),
                    },
                }));
            }
            index::next_packed(&mut board);
        }
        Ok(None)
    });
    match bad {
        Ok(Some(error)) => Err(WithPath::new(distances.path(), error).into()),
        Ok(None) => Ok(true),
        Err(never) => match never {},
    }
}

/// One bit a position of a value table of `rules`: its value is that of
/// its best capture (or of the end of the game), as the table marks it.
fn exits(table: &Table, rules: Ruleset) -> Result<Vec<u64>, TablebaseError> {
    if table.meta().encoding != ValueEncoding::ScoreOrCapture {
        let folder = table.path().parent().unwrap_or(Path::new("."));
        return Err(TablebaseError::NoCaptureMarks {
            path: table.path().to_path_buf(),
            build_args: build_args(tablebase_dir(folder), rules, table.meta().seeds as usize),
        });
    }
    let block = table.block_size() as usize;
    debug_assert!(block.is_multiple_of(64));
    let mut bits = vec![0u64; (table.len() as usize).div_ceil(64)];
    bits.par_chunks_mut(block / 64)
        .enumerate()
        .try_for_each(|(b, words)| {
            let values = table.decode_block(b as u64)?;
            for (word, group) in words.iter_mut().zip(values.chunks(64)) {
                *word = (group.iter().enumerate())
                    .fold(0, |w, (i, &v)| w | u64::from(v == CAPTURE_DECIDES) << i);
            }
            Ok::<_, WithPath<TableError>>(())
        })?;
    Ok(bits)
}

/// The error of a distance pass, at the layer's value table.
fn distance_error(folder: &Path, error: DistanceError) -> TablebaseError {
    match error {
        DistanceError::Memory(e) => e.into(),
        DistanceError::Inconsistent { seeds, .. } | DistanceError::TooLong { seeds } => {
            TablebaseError::Distance {
                path: table_path(folder, seeds),
                error,
            }
        }
    }
}

/// Whether a layer kept this way has its values in memory or in a file
/// read directly.
pub(super) fn read_directly(layer: &Layer) -> bool {
    !matches!(layer, Layer::Stored(_))
}
