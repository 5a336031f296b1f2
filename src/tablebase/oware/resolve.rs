//! The one reader of stored values. A position stored as
//! [`CAPTURE_DECIDES`] has the value of its best exit: the end of the game,
//! or its best capture into the layers below, whose values may be marked in
//! turn. Probes of one position or many, `verify` and `export` decoding
//! whole layers, and a build reading its lower layers all resolve here.
//!
//! Lookups go in batches ([`resolve`]). Those into layers read directly (in
//! memory, or decoded into a memory-mapped file) are answered at once;
//! those into stored layers are sorted, so that each block a batch touches
//! is decoded once, and a marked value is expanded through its captures
//! into the layers below, the whole batch one layer at a time from the top.
//! A single probe goes depth first ([`resolve_one`]) through the same exits.

use std::convert::Infallible;
use std::path::Path;

use rayon::prelude::*;

use super::TablebaseError;
use crate::error::WithPath;
use crate::games::oware::{self, Board, MAX_SEEDS, Ruleset};
use crate::index::oware as index;
use crate::solve::oware::{Deferred, Lookup, LowerLayers, PART_BYTES, prefetch};
use crate::solve::threshold::NO_EXIT;
use crate::table::{CAPTURE_DECIDES, Table};
use crate::tablebase::FileError;

/// Where the values of a finished layer are read.
pub enum Source<'a> {
    /// Directly: in memory, or decoded into a memory-mapped file.
    Direct(&'a [i8]),
    /// Decoded into a memory-mapped file too large for the page cache:
    /// read in order where the reader can defer its lookups, directly
    /// where it cannot.
    InOrder(&'a [i8]),
    /// From its compressed table.
    Stored(&'a Table),
}

/// Finished layers by seeds, as the resolver reads them.
pub trait LayerSource: Sync {
    /// The rules the layers were built for.
    fn rules(&self) -> Ruleset;
    /// Where layer `seeds` is read, or why it cannot be (its table missing
    /// or damaged).
    fn source(&self, seeds: usize) -> Result<Source<'_>, TablebaseError>;
}

/// Lookups a worker answers from direct layers before looking at the next:
/// far enough ahead for their memory loads to overlap.
const AHEAD: usize = 16;

/// Fills in the value of every lookup (the slice keeps its order).
pub fn resolve(layers: &impl LayerSource, lookups: &mut [Lookup]) -> Result<(), TablebaseError> {
    let direct = resolve_direct(layers, lookups);
    let direct = |seeds: u8| direct[seeds as usize];
    // The rest become nodes of their layers; a layer that cannot be read
    // says why when its nodes are read.
    let mut levels: Vec<Vec<Node>> = vec![Vec::new(); MAX_SEEDS + 1];
    for (i, l) in lookups.iter().enumerate() {
        if direct(l.seeds).is_none() {
            levels[l.seeds as usize].push(Node {
                rank: l.rank,
                to_layer: OUTER,
                to_index: i as u32,
                captured: 0,
                value: 0,
            });
        }
    }
    // Down: read each layer's nodes; expand the marked ones into the
    // layers below.
    for seeds in (0..levels.len()).rev() {
        if levels[seeds].is_empty() {
            continue;
        }
        let Source::Stored(table) = layers.source(seeds)? else {
            unreachable!("only layers not read directly get nodes")
        };
        let nodes = &mut levels[seeds];
        nodes.par_sort_unstable_by_key(|n| n.rank);
        read_stored(table, nodes)?;
        for (captured, child) in expand(layers, seeds, nodes) {
            levels[seeds - captured as usize].push(child);
        }
    }
    // Up: every node's value is final once the layers below are done.
    for seeds in 0..levels.len() {
        let (below, above) = levels.split_at_mut(seeds + 1);
        for node in &below[seeds] {
            if node.value == NO_EXIT {
                let Source::Stored(table) = layers.source(seeds)? else {
                    unreachable!("a layer with nodes was read from its table")
                };
                let error = FileError::NoCapture {
                    rank: node.rank,
                    board: index::unrank(seeds, node.rank),
                };
                return Err(WithPath::new(table.path(), error).into());
            }
            if node.to_layer == OUTER {
                lookups[node.to_index as usize].value = node.value;
            } else {
                let to = &mut above[node.to_layer as usize - seeds - 1][node.to_index as usize];
                to.value = to.value.max(node.captured - node.value);
            }
        }
    }
    Ok(())
}

/// Fills in the lookups of the layers read directly (their values in
/// memory), and returns those layers' values by seeds. Each layer's source
/// is asked once, not per lookup, and only of the layers looked up (a
/// tablebase opens its tables on first use).
fn resolve_direct<'a>(
    layers: &'a impl LayerSource,
    lookups: &mut [Lookup],
) -> [Option<&'a [i8]>; MAX_SEEDS + 1] {
    let asked = lookups
        .par_iter()
        .fold(|| 0u64, |asked, l| asked | 1 << l.seeds)
        .reduce(|| 0, |a, b| a | b);
    let direct: [Option<&[i8]>; MAX_SEEDS + 1] = std::array::from_fn(|seeds| {
        match (asked >> seeds & 1 != 0).then(|| layers.source(seeds)) {
            Some(Ok(Source::Direct(values) | Source::InOrder(values))) => Some(values),
            _ => None,
        }
    });
    lookups.par_chunks_mut(1 << 12).for_each(|chunk| {
        for i in 0..chunk.len() {
            if let Some(ahead) = chunk.get(i + AHEAD)
                && let Some(values) = direct[ahead.seeds as usize]
            {
                prefetch(&values[ahead.rank as usize]);
            }
            let l = &mut chunk[i];
            if let Some(values) = direct[l.seeds as usize] {
                l.value = values[l.rank as usize];
            }
        }
    });
    direct
}

/// The value of the position `board` of rank `rank` in layer `seeds`:
/// [`resolve`] of one lookup, depth first: no batch is gathered, and each
/// child's board is handed down instead of unranked, which makes a single
/// probe faster than a batch of one.
pub fn resolve_one(
    layers: &impl LayerSource,
    seeds: usize,
    rank: u64,
    board: &Board,
) -> Result<i8, TablebaseError> {
    let table = match layers.source(seeds)? {
        Source::Direct(values) | Source::InOrder(values) => return Ok(values[rank as usize]),
        Source::Stored(table) => table,
    };
    let stored = table.get(rank)?;
    if stored != CAPTURE_DECIDES {
        return Ok(stored);
    }
    let exit = best_exit(layers, seeds, board, |captured, rank, child| {
        resolve_one(layers, seeds - captured as usize, rank, child).map(Some)
    })?;
    if exit == NO_EXIT {
        let error = FileError::NoCapture {
            rank,
            board: *board,
        };
        return Err(WithPath::new(table.path(), error).into());
    }
    Ok(exit)
}

/// Hands every value of stored layer `seeds` to `out` in rank order, the
/// marked ones resolved. If the layers its captures reach (all below but
/// the next: a capture takes two seeds or more) are read directly, block
/// by block in rank order; if some are read in order (none stored), the
/// same with their lookups deferred to buckets in `scratch` and folded in
/// by a second sweep; else `batch` positions at a time, each batch one
/// sorted pass over the table.
pub fn decode<L: LayerSource + LowerLayers<Error = TablebaseError>>(
    layers: &L,
    seeds: usize,
    batch: usize,
    scratch: &Path,
    out: &mut impl FnMut(&[i8]) -> Result<(), TablebaseError>,
) -> Result<(), TablebaseError> {
    let Source::Stored(table) = layers.source(seeds)? else {
        panic!("layer {seeds} is not stored")
    };
    let below = (0..seeds.saturating_sub(1))
        .map(|s| layers.source(s))
        .collect::<Result<Vec<_>, _>>()?;
    if below.iter().all(|s| matches!(s, Source::Direct(_))) {
        return decode_blocks(layers, seeds, table, batch, false, &mut |values, _| {
            out(values)
        });
    }
    if below.iter().all(|s| !matches!(s, Source::Stored(_))) {
        let bucket = (batch as u64 * PART_BYTES).max(1);
        let mut deferred = Deferred::create(scratch, seeds, 0, layers, bucket)?
            .expect("a layer below is read in order");
        decode_blocks(layers, seeds, table, batch, true, &mut |values, asked| {
            for (asker, seeds, rank) in asked {
                deferred.push(asker, seeds, rank)?;
            }
            Ok(deferred.keep(values)?)
        })?;
        return unfold(table, seeds, batch, deferred, out);
    }
    let size = index::layer_size(seeds);
    let mut values = Vec::with_capacity(batch);
    for start in (0..size).step_by(batch) {
        let end = (start + batch as u64).min(size);
        let mut lookups: Vec<Lookup> = (start..end)
            .map(|rank| Lookup {
                rank,
                seeds: seeds as u8,
                ..Lookup::default()
            })
            .collect();
        resolve(layers, &mut lookups)?;
        values.clear();
        values.extend(lookups.iter().map(|l| l.value));
        out(&values)?;
    }
    Ok(())
}

/// Captures of a block's marked positions into layers read in order:
/// (rank of the position, layer and rank of the child).
type Asked = Vec<(u64, usize, u64)>;

/// [`decode`] when the layers below are read directly, or, `deferring`,
/// some in order: about `batch` positions of blocks at a time, decoded in
/// parallel, the marked positions resolved as they come (walking the
/// boards in rank order instead of unranking each), and handed to `out`
/// with their captures into layers read in order. Those are left out of
/// the values: a marked value is the best of its other exits, and may be
/// [`NO_EXIT`].
fn decode_blocks(
    layers: &impl LayerSource,
    seeds: usize,
    table: &Table,
    batch: usize,
    deferring: bool,
    out: &mut impl FnMut(&[i8], Asked) -> Result<(), TablebaseError>,
) -> Result<(), TablebaseError> {
    let group = (batch as u64 / u64::from(table.block_size())).max(1);
    for first in (0..table.block_count()).step_by(group as usize) {
        let last = (first + group).min(table.block_count());
        let blocks = (first..last)
            .into_par_iter()
            .map(|block| {
                let mut values = table.decode_block(block)?;
                let mut asked = Vec::new();
                let ranks = table.block_range(block);
                let mut board = index::unrank(seeds, ranks.start);
                for (rank, value) in ranks.zip(&mut values) {
                    if *value == CAPTURE_DECIDES {
                        let Ok(exit) =
                            best_exit::<Infallible>(layers, seeds, &board, |c, child, _| {
                                assert!(deferring, "the layers below are read directly");
                                asked.push((rank, seeds - c as usize, child));
                                Ok(None)
                            });
                        *value = exit;
                        if *value == NO_EXIT && !deferring {
                            let error = FileError::NoCapture { rank, board };
                            return Err(WithPath::new(table.path(), error).into());
                        }
                    }
                    index::next_indexed(&mut board);
                }
                Ok((values, asked))
            })
            .collect::<Result<Vec<_>, TablebaseError>>()?;
        for (values, asked) in blocks {
            out(&values, asked)?;
        }
    }
    Ok(())
}

/// The second sweep of a [`decode`] that deferred lookups: the values kept
/// by the first, `batch` at a time, the answers folded in.
fn unfold<L: LowerLayers<Error = TablebaseError>>(
    table: &Table,
    seeds: usize,
    batch: usize,
    deferred: Deferred<L>,
    out: &mut impl FnMut(&[i8]) -> Result<(), TablebaseError>,
) -> Result<(), TablebaseError> {
    let mut answers = deferred.answer(batch)?;
    let size = index::layer_size(seeds);
    let mut values = vec![0i8; batch.min(size as usize)];
    for start in (0..size).step_by(batch) {
        let values = &mut values[..batch.min((size - start) as usize)];
        answers.next_part(values)?;
        if let Some(i) = values.iter().position(|&v| v == NO_EXIT) {
            let rank = start + i as u64;
            let board = index::unrank(seeds, rank);
            let error = FileError::NoCapture { rank, board };
            return Err(WithPath::new(table.path(), error).into());
        }
        out(values)?;
    }
    answers.remove()?;
    Ok(())
}

/// A lookup into a stored layer while a batch is expanded.
#[derive(Clone, Copy)]
struct Node {
    rank: u64,
    /// Where the value goes: a node of a higher layer (its layer, index),
    /// or with layer `OUTER` the asker's lookup of that index.
    to_layer: u8,
    to_index: u32,
    /// The seeds the capture into this node took (nodes of markers only).
    captured: i8,
    value: i8,
}

const OUTER: u8 = u8::MAX;

/// The best exit of `board` (of layer `seeds`): the end of the game, or its
/// best capture ([`NO_EXIT`] if none). A capture into a layer read directly
/// is looked up at once; any other (stored, or read in order) is handed to
/// `stored` (the seeds it took, the child's rank and board), which gives
/// its value now, or `None` to leave it out.
pub(super) fn best_exit<E>(
    layers: &impl LayerSource,
    seeds: usize,
    board: &Board,
    mut stored: impl FnMut(i8, u64, &Board) -> Result<Option<i8>, E>,
) -> Result<i8, E> {
    let moves = oware::legal_moves(layers.rules(), board);
    let mut best = if moves.is_empty() {
        oware::no_move_value(layers.rules(), board)
    } else {
        NO_EXIT
    };
    for mv in moves.iter().filter(|m| m.captured > 0) {
        let rest = seeds - mv.captured as usize;
        let rank = index::rank_indexed(&mv.child, rest);
        let captured = mv.captured as i8;
        let child = match layers.source(rest) {
            Ok(Source::Direct(values)) => Some(values[rank as usize]),
            _ => stored(captured, rank, &mv.child)?,
        };
        if let Some(child) = child {
            best = best.max(captured - child);
        }
    }
    Ok(best)
}

/// Values of marked nodes of layer `seeds` from their exits: the end of
/// the game, captures into layers read directly at once; the other
/// captures become nodes, returned with the seeds they took.
fn expand(layers: &impl LayerSource, seeds: usize, nodes: &mut [Node]) -> Vec<(i8, Node)> {
    nodes
        .par_iter_mut()
        .enumerate()
        .filter(|(_, n)| n.value == CAPTURE_DECIDES)
        .flat_map_iter(|(i, node)| {
            let board = index::unrank(seeds, node.rank);
            let mut children = Vec::new();
            let Ok(exit) = best_exit::<Infallible>(layers, seeds, &board, |captured, rank, _| {
                if let Ok(Source::InOrder(values)) = layers.source(seeds - captured as usize) {
                    return Ok(Some(values[rank as usize]));
                }
                children.push((
                    captured,
                    Node {
                        rank,
                        to_layer: seeds as u8,
                        to_index: i as u32,
                        captured,
                        value: 0,
                    },
                ));
                Ok(None)
            });
            node.value = exit;
            children
        })
        .collect()
}

/// Fills in the stored values of `nodes` (sorted by rank), decoding each
/// block (or, context coded, each stream) they touch once. Marked values
/// stay [`CAPTURE_DECIDES`] (no score is that low, so a table without marks
/// never has it).
fn read_stored(table: &Table, nodes: &mut [Node]) -> Result<(), TablebaseError> {
    let block_size = u64::from(table.block_size());
    // Split the sorted nodes into runs of one block each.
    let mut runs = Vec::new();
    let mut rest = nodes;
    while let Some(first) = rest.first() {
        let block = first.rank / block_size;
        let len = rest.partition_point(|n| n.rank / block_size == block);
        let (run, tail) = rest.split_at_mut(len);
        runs.push((block, run));
        rest = tail;
    }
    runs.into_par_iter().try_for_each(|(block, run)| {
        match run {
            // Through the table's cache of decoded blocks, which repeated
            // probes of one position hit.
            [node] => node.value = table.get(node.rank)?,
            _ => {
                let at = |node: &Node| (node.rank % block_size) as usize;
                table.read_sorted(block, run, at, |node, value| node.value = value)?;
            }
        }
        Ok(())
    })
}
