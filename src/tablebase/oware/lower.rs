//! The finished lower layers as a build reads them. Each is resident (its
//! values in memory, looked up directly), cached (its values decoded into a
//! scratch file, memory-mapped: looked up directly too, but held by the
//! page cache, outside the build's memory budget) or stored (its compressed
//! table). Lookups into stored layers go in sorted batches: each block a
//! batch touches is decoded once, and a position stored as "the best
//! capture decides" is expanded through its own captures into the layers
//! below, the whole batch one layer at a time from the top.

use rayon::prelude::*;

use super::TablebaseError;
use crate::error::WithPath;
use crate::games::oware::{self, Board, Ruleset};
use crate::index::oware as index;
use crate::solve::array::BigArray;
use crate::solve::oware::{Lookup, LowerLayers, prefetch};
use crate::solve::threshold::NO_EXIT;
use crate::table::raw::RawLayer;
use crate::table::{CAPTURE_DECIDES, Table};
use crate::tablebase::FileError;

/// One finished layer.
pub enum Lower {
    Resident(BigArray<i8>),
    Cached(RawLayer),
    Stored(Table),
}

/// Finished layers `0..len`, indexed by seeds.
pub struct LowerTables {
    rules: Ruleset,
    layers: Vec<Lower>,
}

/// Lookups a worker answers from resident or cached layers before looking at the
/// next: far enough ahead for their memory loads to overlap.
const AHEAD: usize = 16;

impl LowerTables {
    pub fn new(rules: Ruleset) -> LowerTables {
        LowerTables {
            rules,
            layers: Vec::new(),
        }
    }

    /// Adds the next layer.
    pub fn push(&mut self, layer: Lower) {
        self.layers.push(layer);
    }

    /// Bytes of memory the resident layers take.
    pub fn resident_bytes(&self) -> u64 {
        self.layers
            .iter()
            .map(|l| match l {
                Lower::Resident(values) => values.len() as u64,
                Lower::Cached(_) | Lower::Stored(_) => 0,
            })
            .sum()
    }

    /// Layer `seeds`.
    pub fn layer(&self, seeds: usize) -> &Lower {
        &self.layers[seeds]
    }

    /// Puts `layer` in the place of layer `seeds` (freeing what it was).
    pub fn replace(&mut self, seeds: usize, layer: Lower) {
        self.layers[seeds] = layer;
    }

    /// The values of layer `seeds` if they can be read directly (resident
    /// or cached).
    fn direct(&self, seeds: u8) -> Option<&[i8]> {
        match &self.layers[seeds as usize] {
            Lower::Resident(values) => Some(values),
            Lower::Cached(raw) => Some(raw.values()),
            Lower::Stored(_) => None,
        }
    }

    /// Hands every value of stored layer `seeds` to `out` in rank order,
    /// the positions stored as "the best capture decides" expanded. If the
    /// layers below are all read directly, block by block in rank order;
    /// else `batch` positions at a time, each batch one sorted pass over
    /// the table.
    pub fn decode(
        &self,
        seeds: usize,
        batch: usize,
        out: &mut impl FnMut(&[i8]) -> Result<(), TablebaseError>,
    ) -> Result<(), TablebaseError> {
        let Lower::Stored(table) = &self.layers[seeds] else {
            panic!("layer {seeds} is not stored")
        };
        if (0..seeds).all(|s| self.direct(s as u8).is_some()) {
            return self.decode_blocks(seeds, table, batch, out);
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
            self.resolve(&mut lookups)?;
            values.clear();
            values.extend(lookups.iter().map(|l| l.value));
            out(&values)?;
        }
        Ok(())
    }
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

impl LowerLayers for LowerTables {
    type Error = TablebaseError;

    fn resolve(&self, lookups: &mut [Lookup]) -> Result<(), TablebaseError> {
        lookups.par_chunks_mut(1 << 12).for_each(|chunk| {
            for i in 0..chunk.len() {
                if let Some(ahead) = chunk.get(i + AHEAD)
                    && let Some(values) = self.direct(ahead.seeds)
                {
                    prefetch(&values[ahead.rank as usize]);
                }
                let l = &mut chunk[i];
                if let Some(values) = self.direct(l.seeds) {
                    l.value = values[l.rank as usize];
                }
            }
        });
        let mut levels: Vec<Vec<Node>> = vec![Vec::new(); self.layers.len()];
        for (i, l) in lookups.iter().enumerate() {
            if self.direct(l.seeds).is_none() {
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
            let Lower::Stored(table) = &self.layers[seeds] else {
                unreachable!("only stored layers get nodes")
            };
            let nodes = &mut levels[seeds];
            nodes.par_sort_unstable_by_key(|n| n.rank);
            read_stored(table, nodes)?;
            let children = self.expand(seeds, nodes);
            for child in children {
                let layer = seeds - (child.0 as usize);
                levels[layer].push(child.1);
            }
        }
        // Up: every node's value is final once the layers below are done.
        for seeds in 0..levels.len() {
            let (below, above) = levels.split_at_mut(seeds + 1);
            for node in &below[seeds] {
                if node.value == NO_EXIT {
                    let Lower::Stored(table) = &self.layers[seeds] else {
                        unreachable!()
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
}

impl LowerTables {
    /// [`LowerTables::decode`] when the layers below are read directly:
    /// about `batch` positions of blocks at a time, decoded in parallel,
    /// the marked positions expanded as they come (walking the boards in
    /// rank order instead of unranking each).
    fn decode_blocks(
        &self,
        seeds: usize,
        table: &Table,
        batch: usize,
        out: &mut impl FnMut(&[i8]) -> Result<(), TablebaseError>,
    ) -> Result<(), TablebaseError> {
        let group = (batch as u64 / u64::from(table.block_size())).max(1);
        for first in (0..table.block_count()).step_by(group as usize) {
            let last = (first + group).min(table.block_count());
            let blocks = (first..last)
                .into_par_iter()
                .map(|block| {
                    let mut values = table.decode_block(block)?;
                    let ranks = table.block_range(block);
                    let mut board = index::unrank(seeds, ranks.start);
                    for (rank, value) in ranks.zip(&mut values) {
                        if *value == CAPTURE_DECIDES {
                            *value = self.best_exit(seeds, &board, |_, _| {
                                unreachable!("the layers below are read directly")
                            });
                            if *value == NO_EXIT {
                                let error = FileError::NoCapture { rank, board };
                                return Err(WithPath::new(table.path(), error).into());
                            }
                        }
                        index::next_indexed(&mut board);
                    }
                    Ok(values)
                })
                .collect::<Result<Vec<_>, TablebaseError>>()?;
            for values in blocks {
                out(&values)?;
            }
        }
        Ok(())
    }

    /// The best exit of `board` (of layer `seeds`): the end of the game, or
    /// its best capture into the layers read directly; each capture into a
    /// stored layer is handed to `stored` (the seeds it took, the child's
    /// layer and rank) and left out.
    fn best_exit(&self, seeds: usize, board: &Board, mut stored: impl FnMut(i8, u64)) -> i8 {
        let moves = oware::legal_moves(self.rules, board);
        let mut best = if moves.is_empty() {
            oware::no_move_value(self.rules, board)
        } else {
            NO_EXIT
        };
        for mv in moves.iter().filter(|m| m.captured > 0) {
            let rest = seeds - mv.captured as usize;
            let rank = index::rank_indexed(&mv.child, rest);
            let captured = mv.captured as i8;
            match self.direct(rest as u8) {
                Some(values) => best = best.max(captured - values[rank as usize]),
                None => stored(captured, rank),
            }
        }
        best
    }

    /// Values of marked nodes of layer `seeds` from their exits: the end of
    /// the game, captures into resident or cached layers at once; captures into
    /// stored layers become nodes, returned with the seeds they took.
    fn expand(&self, seeds: usize, nodes: &mut [Node]) -> Vec<(i8, Node)> {
        nodes
            .par_iter_mut()
            .enumerate()
            .filter(|(_, n)| n.value == CAPTURE_DECIDES)
            .flat_map_iter(|(i, node)| {
                let board = index::unrank(seeds, node.rank);
                let mut children = Vec::new();
                node.value = self.best_exit(seeds, &board, |captured, rank| {
                    children.push((
                        captured,
                        Node {
                            rank,
                            to_layer: seeds as u8,
                            to_index: i as u32,
                            captured,
                            value: 0,
                        },
                    ))
                });
                children
            })
            .collect()
    }
}

/// Fills in the stored values of `nodes` (sorted by rank), decoding each
/// block (or, context coded, each stream) they touch once. Marked values stay [`CAPTURE_DECIDES`] (no score
/// is that low, so an imported table without marks never has it).
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
        let at = |node: &Node| (node.rank % block_size) as usize;
        table.read_sorted(block, run, at, |node, value| node.value = value)?;
        Ok(())
    })
}
