//! The explicit-graph retrograde engine, for games whose moves cannot be
//! undone cheaply (relay sowing: Omweso, En Gehé) and as an independent check
//! of the Oware engine.
//!
//! A layer is any set of positions numbered `0..size` (the games number them
//! by stars-and-bars rank) whose moves either leave it with a known value
//! (*exits*: a capture into a finished layer, the end of the game, a voided
//! game) or lead to another position of the layer. The engine generates every
//! position's moves forward in parallel, stores the reversed same-layer edges
//! in compressed sparse row form, and runs the threshold propagation of
//! `threshold` frontier by frontier.
//!
//! Because the frontiers are processed in order, the round in which a
//! position resolves is its distance to the end: a position without moves is
//! 0 moves from the end, an exit that wins or loses is 1, a parent of a lost
//! child wins one move later than the child's shortest loss and a position
//! whose last open child is won loses one move after the longest of those
//! wins. With a single threshold (win/draw/loss games) this is the usual
//! distance to the end: wins as short, losses as long as possible.
//!
//! With several thresholds (score games) the round at threshold `t` is the
//! distance to what secures the value `±t`: the moves to the next exit (a
//! capture into a lower layer, the end of the game) when both sides play
//! only moves that keep the value, the side ahead the fewest and the side
//! behind the most. A position is resolved at the threshold of its own value
//! (a higher one would give it a higher value), so the child that resolves a
//! winner at `t` is lost at exactly `−t`, a value-keeping move, and the first
//! such child resolved is the nearest; a loser's moves to children won at a
//! higher threshold were closed before `t` began, so the last child that
//! closes it is its farthest value-keeping one. An exit worth the value
//! counts 1, a position without moves 0, a draw 0.
//!
//! Memory: per position 9 bytes while solving (a 4-byte state, the 1-byte
//! best exit, a 4-byte CSR offset), plus 4 bytes of in-degree counters and 4
//! bytes of forward-list ends during set-up, and up to 4 bytes per position
//! in the current frontier; per
//! same-layer edge 4 bytes (the parent's rank), plus 4 bytes of forward list
//! while the reversed lists are filled. The results take 1 byte per position
//! (+2 with distances).

use std::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;

use super::Progress;
use super::threshold::{self, NO_EXIT, Verdict};

/// Positions per parallel set-up unit.
const SET_UP_CHUNK: usize = 1 << 13;
/// Frontier entries per parallel propagation unit.
const FRONTIER_CHUNK: usize = 1 << 12;

/// State word of a position. Unresolved: `TERMINAL_BIT` (no moves at all) and
/// the count of children not yet known to be won. Resolved: `RESOLVED_BIT`,
/// `LOST_BIT`, the threshold in bits 16..24 and the distance in bits 0..16.
const RESOLVED_BIT: u32 = 1 << 31;
const LOST_BIT: u32 = 1 << 30;
const TERMINAL_BIT: u32 = 1 << 29;
const COUNT: u32 = TERMINAL_BIT - 1;
const T_SHIFT: u32 = 16;
/// Largest distance a state word holds.
pub const MAX_DEPTH: u32 = u16::MAX as u32;

/// Positions at most: ranks and edge targets are `u32`.
pub const MAX_POSITIONS: u64 = u32::MAX as u64;
/// Memory per position to expect: 17 bytes before edges at the peak of the
/// set-up, plus 8 per edge (measured peaks: 20 bytes per position on Omweso
/// 4 × 8 with 8 seeds, 29 on 4 × 4 with 12). A layer that cannot fit is
/// refused up front rather than killed by the system halfway.
const EXPECTED_BYTES_PER_POSITION: u64 = 32;

/// A layer as the engine sees it.
pub trait Layer: Sync {
    /// Positions in the layer, numbered `0..size`.
    fn size(&self) -> u64;
    /// Lists the moves of positions `first..first + count`, in order: one
    /// [`MoveLists::start`] per position, then its exits and children.
    fn moves(&self, first: u64, count: usize, out: &mut MoveLists);
}

/// The moves of consecutive positions, as a [`Layer`] lists them.
#[derive(Default)]
pub struct MoveLists {
    exits: Vec<i8>,
    terminal: Vec<bool>,
    /// End of each closed position's children in `children`.
    ends: Vec<u32>,
    children: Vec<u32>,
}

impl MoveLists {
    /// Begins the next position.
    pub fn start(&mut self) {
        self.close();
        self.exits.push(NO_EXIT);
        self.terminal.push(false);
    }

    /// A move whose value for the mover is known.
    pub fn exit(&mut self, value: i8) {
        debug_assert!(value != NO_EXIT, "exit values are above {NO_EXIT}");
        if let Some(best) = self.exits.last_mut() {
            *best = (*best).max(value);
        }
    }

    /// A move to position `rank` of the layer (worth minus its value).
    pub fn child(&mut self, rank: u64) {
        debug_assert!(rank <= MAX_POSITIONS);
        self.children.push(rank as u32);
    }

    /// The position has no move; the game is over and worth `value`.
    pub fn end(&mut self, value: i8) {
        self.exit(value);
        if let Some(t) = self.terminal.last_mut() {
            *t = true;
        }
    }

    /// Closes the current position: its children, each once.
    fn close(&mut self) {
        if self.ends.len() == self.exits.len() {
            return;
        }
        let from = self.ends.last().map_or(0, |&e| e as usize);
        self.children[from..].sort_unstable();
        let mut kept = from;
        for i in from..self.children.len() {
            if kept == from || self.children[kept - 1] != self.children[i] {
                self.children[kept] = self.children[i];
                kept += 1;
            }
        }
        self.children.truncate(kept);
        self.ends.push(kept as u32);
    }

    fn clear(&mut self) {
        self.exits.clear();
        self.terminal.clear();
        self.ends.clear();
        self.children.clear();
    }

    fn children_of(&self, i: usize) -> &[u32] {
        let from = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.children[from..self.ends[i] as usize]
    }
}

/// Errors of the explicit engine: layers it cannot hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExplicitError {
    /// More positions than a `u32` numbers.
    #[error(
        "a layer of {0} positions is too large for the explicit engine (at most {MAX_POSITIONS})"
    )]
    TooManyPositions(u64),
    /// More moves inside the layer than a `u32` numbers.
    #[error(
        "the layer has {0} moves between its positions; the explicit engine stores at most {MAX_POSITIONS}"
    )]
    TooManyEdges(u64),
    /// A position with more children than a counter holds.
    #[error("a position has {0} distinct children, more than the explicit engine counts")]
    TooManyChildren(usize),
    /// A distance past what the engine stores.
    #[error(
        "a position is more than {MAX_DEPTH} moves from the end; such distances are not stored"
    )]
    TooDeep,
    /// Less memory than the engine needs for the layer.
    #[error(
        "a layer of {positions} positions needs at least {needed} MB for the explicit engine; \
         {available} MB of memory are available"
    )]
    OutOfMemory {
        /// Positions in the layer.
        positions: u64,
        /// MiB the engine needs.
        needed: u64,
        /// MiB available.
        available: u64,
    },
}

/// A solved layer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Solved {
    /// The value of every position, in rank order.
    pub values: Vec<i8>,
    /// The distance of every position (0 for draws), if asked for: moves to
    /// the end of the game (win/draw/loss), or to the exit that secures the
    /// value (scores).
    pub depths: Option<Vec<u16>>,
}

/// Whether [`solve`] also returns every position's distance (to the end in
/// win/draw/loss layers, to the exit that secures the value in score layers:
/// see the module notes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Depths {
    /// The values only.
    Without,
    /// The values and the distances; a distance past [`MAX_DEPTH`] is an
    /// error.
    With,
}

/// Solves a layer on the current rayon pool.
pub fn solve(
    layer: &dyn Layer,
    depths: Depths,
    progress: Progress,
) -> Result<Solved, ExplicitError> {
    let size = layer.size();
    if size > MAX_POSITIONS {
        return Err(ExplicitError::TooManyPositions(size));
    }
    if let Some(available) = crate::memory::usable()
        && size * EXPECTED_BYTES_PER_POSITION > available
    {
        return Err(ExplicitError::OutOfMemory {
            positions: size,
            needed: (size * EXPECTED_BYTES_PER_POSITION) >> 20,
            available: available >> 20,
        });
    }
    let graph = Graph::build(layer, progress)?;
    let mut mask = graph.mask;
    // Win/draw/loss layers have the single threshold 1 even when only
    // draws and wins by exit exist.
    if depths == Depths::With {
        mask |= 1 << 1;
    }
    for t in threshold::thresholds(mask) {
        graph.run_threshold(t, depths, progress)?;
    }
    Ok(graph.finish(depths, progress))
}

struct Graph {
    exits: Vec<i8>,
    states: Vec<AtomicU32>,
    /// `parents[offsets[c]..offsets[c + 1]]`: the positions with a move to `c`.
    offsets: Vec<u32>,
    parents: Vec<AtomicU32>,
    /// Threshold mask of the exit values.
    mask: u128,
}

/// `len` atomic zeros, written in parallel.
fn atomic_zeros(len: usize) -> Vec<AtomicU32> {
    (0..len)
        .into_par_iter()
        .map(|_| AtomicU32::new(0))
        .collect()
}

/// Every position's moves, a chunk at a time: fills `exits` and `states`
/// (terminal flag and child count), counts each child's parents in
/// `indegree`, and returns each chunk's move lists with the threshold mask
/// of its exits.
fn forward_moves(
    layer: &dyn Layer,
    exits: &mut [i8],
    states: &mut [AtomicU32],
    indegree: &[AtomicU32],
    progress: Progress,
) -> Result<Vec<(MoveLists, u128)>, ExplicitError> {
    exits
        .par_chunks_mut(SET_UP_CHUNK)
        .zip(states.par_chunks_mut(SET_UP_CHUNK))
        .enumerate()
        .map(|(c, (exits, states))| {
            let mut lists = MoveLists::default();
            layer.moves((c * SET_UP_CHUNK) as u64, exits.len(), &mut lists);
            lists.close();
            assert_eq!(lists.exits.len(), exits.len(), "one start() per position");
            let mut mask = 0;
            for (i, (exit, state)) in exits.iter_mut().zip(states.iter_mut()).enumerate() {
                *exit = lists.exits[i];
                mask |= threshold::mask_bit(*exit);
                let children = lists.children_of(i);
                if children.len() > COUNT as usize {
                    return Err(ExplicitError::TooManyChildren(children.len()));
                }
                for &child in children {
                    indegree[child as usize].fetch_add(1, Ordering::Relaxed);
                }
                let terminal = if lists.terminal[i] { TERMINAL_BIT } else { 0 };
                *state.get_mut() = terminal | children.len() as u32;
            }
            progress(exits.len() as u64);
            lists.exits.clear();
            lists.terminal.clear();
            Ok((lists, mask))
        })
        .collect()
}

/// The same-layer edges reversed: each position's parents, at
/// `parents[offsets[c]..offsets[c + 1]]`, from the chunks' move lists and
/// the in-degrees (used up as fill cursors).
fn reverse_edges(
    indegree: &[AtomicU32],
    forward: Vec<(MoveLists, u128)>,
) -> Result<(Vec<u32>, Vec<AtomicU32>), ExplicitError> {
    // Offsets by an exclusive prefix sum; the in-degree counters become
    // the fill cursors.
    let mut offsets = Vec::with_capacity(indegree.len() + 1);
    let mut total = 0u64;
    for cursor in indegree {
        offsets.push(total as u32);
        total += u64::from(cursor.load(Ordering::Relaxed));
        if total > MAX_POSITIONS {
            return Err(ExplicitError::TooManyEdges(total));
        }
        cursor.store(
            total as u32 - cursor.load(Ordering::Relaxed),
            Ordering::Relaxed,
        );
    }
    offsets.push(total as u32);
    let parents = atomic_zeros(total as usize);
    forward
        .into_par_iter()
        .enumerate()
        .for_each(|(c, (mut lists, _))| {
            for i in 0..lists.ends.len() {
                let parent = (c * SET_UP_CHUNK + i) as u32;
                for &child in lists.children_of(i) {
                    let slot = indegree[child as usize].fetch_add(1, Ordering::Relaxed);
                    parents[slot as usize].store(parent, Ordering::Relaxed);
                }
            }
            lists.clear();
        });
    Ok((offsets, parents))
}

impl Graph {
    /// Generates every position's moves and reverses the same-layer edges.
    fn build(layer: &dyn Layer, progress: Progress) -> Result<Graph, ExplicitError> {
        let size = layer.size() as usize;
        let mut exits = vec![NO_EXIT; size];
        let mut states = atomic_zeros(size);
        let indegree = atomic_zeros(size);
        let forward = forward_moves(layer, &mut exits, &mut states, &indegree, progress)?;
        let mask = forward.iter().fold(0, |m, (_, chunk)| m | chunk);
        let (offsets, parents) = reverse_edges(&indegree, forward)?;
        Ok(Graph {
            exits,
            states,
            offsets,
            parents,
            mask,
        })
    }

    /// Resolves every position won or lost at threshold `t`.
    fn run_threshold(
        &self,
        t: i8,
        depths: Depths,
        progress: Progress,
    ) -> Result<(), ExplicitError> {
        // Positions resolved by their own exits: at distance 0 without
        // moves, 1 otherwise.
        let seeds: Vec<(Vec<u32>, Vec<u32>)> = self
            .states
            .par_chunks(SET_UP_CHUNK)
            .zip(self.exits.par_chunks(SET_UP_CHUNK))
            .enumerate()
            .map(|(c, (states, exits))| {
                let (mut at0, mut at1) = (Vec::new(), Vec::new());
                for (i, (state, &exit)) in states.iter().zip(exits).enumerate() {
                    let word = state.load(Ordering::Relaxed);
                    if word & RESOLVED_BIT != 0 {
                        continue;
                    }
                    let Some(verdict) = threshold::seed(exit, word & COUNT != 0, t) else {
                        continue;
                    };
                    let depth = u32::from(word & TERMINAL_BIT == 0);
                    state.store(resolved(verdict, t, depth), Ordering::Relaxed);
                    let rank = (c * SET_UP_CHUNK + i) as u32;
                    if depth == 0 {
                        at0.push(rank)
                    } else {
                        at1.push(rank)
                    }
                }
                (at0, at1)
            })
            .collect();
        let mut current: Vec<u32> = Vec::new();
        let mut next: Vec<u32> = Vec::new();
        for (at0, at1) in seeds {
            current.extend(at0);
            next.extend(at1);
        }
        let mut depth = 0u32;
        while !current.is_empty() || !next.is_empty() {
            // Parents resolve one move further from the end.
            let parent_depth = if depth < MAX_DEPTH {
                depth + 1
            } else if depths == Depths::With && !current.is_empty() {
                return Err(ExplicitError::TooDeep);
            } else {
                MAX_DEPTH
            };
            let found: Vec<Vec<u32>> = current
                .par_chunks(FRONTIER_CHUNK)
                .map(|chunk| {
                    let mut found = Vec::new();
                    for &rank in chunk {
                        self.tell_parents(rank, t, parent_depth, &mut found);
                    }
                    progress(chunk.len() as u64);
                    found
                })
                .collect();
            for f in found {
                next.extend(f);
            }
            current.clear();
            std::mem::swap(&mut current, &mut next);
            depth += 1;
        }
        Ok(())
    }

    /// Tells the parents of a resolved position; the ones it resolves go to
    /// `found`.
    fn tell_parents(&self, rank: u32, t: i8, depth: u32, found: &mut Vec<u32>) {
        let lost = self.states[rank as usize].load(Ordering::Acquire) & LOST_BIT != 0;
        let range = self.offsets[rank as usize] as usize..self.offsets[rank as usize + 1] as usize;
        for parent in &self.parents[range] {
            let parent = parent.load(Ordering::Relaxed);
            let exit = self.exits[parent as usize];
            let update = self.states[parent as usize].fetch_update(
                Ordering::AcqRel,
                Ordering::Acquire,
                |word| {
                    if word & RESOLVED_BIT != 0 {
                        None
                    } else if lost {
                        Some(resolved(Verdict::Won, t, depth))
                    } else {
                        let left = (word & COUNT) - 1;
                        if left == 0 && threshold::lost_when_closed(exit, t) {
                            Some(resolved(Verdict::Lost, t, depth))
                        } else {
                            Some((word & !COUNT) | left)
                        }
                    }
                },
            );
            if let Ok(before) = update
                && (lost || (before & COUNT == 1 && threshold::lost_when_closed(exit, t)))
            {
                found.push(parent);
            }
        }
    }

    /// The values (unresolved positions are draws) and, if asked, distances.
    fn finish(self, depths: Depths, progress: Progress) -> Solved {
        let values = self
            .states
            .par_chunks(SET_UP_CHUNK)
            .flat_map_iter(|chunk| {
                let draws = chunk
                    .iter()
                    .filter(|s| s.load(Ordering::Relaxed) & RESOLVED_BIT == 0)
                    .count();
                progress(draws as u64);
                chunk.iter().map(|s| value_of(s.load(Ordering::Relaxed)))
            })
            .collect();
        let depths = (depths == Depths::With).then(|| {
            self.states
                .par_iter()
                .map(|s| {
                    let word = s.load(Ordering::Relaxed);
                    if word & RESOLVED_BIT == 0 {
                        0
                    } else {
                        word as u16
                    }
                })
                .collect()
        });
        Solved { values, depths }
    }
}

fn resolved(verdict: Verdict, t: i8, depth: u32) -> u32 {
    let lost = if verdict == Verdict::Lost {
        LOST_BIT
    } else {
        0
    };
    RESOLVED_BIT | lost | (u32::from(t as u8) << T_SHIFT) | depth
}

fn value_of(word: u32) -> i8 {
    if word & RESOLVED_BIT == 0 {
        return 0;
    }
    let t = ((word >> T_SHIFT) & 0xff) as i8;
    let verdict = if word & LOST_BIT != 0 {
        Verdict::Lost
    } else {
        Verdict::Won
    };
    threshold::value(verdict, t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A layer given as explicit lists: `(exits, children)` per position,
    /// `None` exits meaning no move at all when there are no children.
    struct Lists(Vec<(Vec<i8>, Vec<u32>, Option<i8>)>);

    impl Layer for Lists {
        fn size(&self) -> u64 {
            self.0.len() as u64
        }
        fn moves(&self, first: u64, count: usize, out: &mut MoveLists) {
            for (exits, children, end) in &self.0[first as usize..first as usize + count] {
                out.start();
                if let Some(v) = end {
                    out.end(*v);
                }
                for &e in exits {
                    out.exit(e);
                }
                for &c in children {
                    out.child(u64::from(c));
                }
            }
        }
    }

    /// The definition, by sweeping to a fixpoint for each threshold.
    fn naive(layer: &Lists, max: i8) -> Vec<i8> {
        let n = layer.0.len();
        let mut value = vec![0i8; n];
        for t in (1..=max).rev() {
            let (mut win, mut lose) = (vec![false; n], vec![false; n]);
            loop {
                let mut changed = false;
                for (i, (exits, children, end)) in layer.0.iter().enumerate() {
                    let best = exits.iter().chain(end).copied().max();
                    let w =
                        best.is_some_and(|e| e >= t) || children.iter().any(|&c| lose[c as usize]);
                    let l =
                        best.is_none_or(|e| e <= -t) && children.iter().all(|&c| win[c as usize]);
                    changed |= (w && !win[i]) || (l && !lose[i]);
                    win[i] |= w;
                    lose[i] |= l;
                }
                if !changed {
                    break;
                }
            }
            for i in 0..n {
                if value[i] == 0 && win[i] {
                    value[i] = t;
                } else if value[i] == 0 && lose[i] {
                    value[i] = -t;
                }
            }
        }
        value
    }

    fn lcg(state: &mut u64) -> u64 {
        *state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *state >> 33
    }

    fn random_layer(seed: u64, n: usize, max: i8) -> Lists {
        let mut s = seed;
        let lists = (0..n)
            .map(|_| {
                let moves = lcg(&mut s) % 4;
                if moves == 0 {
                    return (
                        vec![],
                        vec![],
                        Some((lcg(&mut s) % (2 * max as u64 + 1)) as i8 - max),
                    );
                }
                let mut exits = vec![];
                let mut children = vec![];
                for _ in 0..moves {
                    if lcg(&mut s).is_multiple_of(4) {
                        exits.push((lcg(&mut s) % (2 * max as u64 + 1)) as i8 - max);
                    } else {
                        children.push((lcg(&mut s) % n as u64) as u32);
                    }
                }
                (exits, children, None)
            })
            .collect();
        Lists(lists)
    }

    #[test]
    fn values_match_the_definition_on_random_graphs() {
        for seed in 0..40 {
            let layer = random_layer(seed, 300 + seed as usize * 37, 5);
            let solved = solve(&layer, Depths::Without, &|_| {}).unwrap();
            assert_eq!(solved.values, naive(&layer, 5), "graph {seed}");
            assert_eq!(solved.depths, None);
        }
    }

    /// The distance of every position by its definition, level by level
    /// from the values: 0 for a draw or a position without moves; for the
    /// side ahead 1 + the least distance over its value-keeping moves (an
    /// exit counting 0 after the move), for the side behind 1 + the
    /// greatest, once every value-keeping child has one.
    fn naive_distances(layer: &Lists, value: &[i8]) -> Vec<u16> {
        let n = layer.0.len();
        let mut dist: Vec<Option<u16>> = (0..n)
            .map(|i| {
                let (exits, children, _) = &layer.0[i];
                (value[i] == 0 || (exits.is_empty() && children.is_empty())).then_some(0)
            })
            .collect();
        for level in 1u16.. {
            let before = dist.clone();
            for (i, (exits, children, _)) in layer.0.iter().enumerate() {
                if before[i].is_some() {
                    continue;
                }
                let v = value[i];
                let exit = exits.contains(&v).then_some(0);
                let kept = children.iter().filter(|&&c| -value[c as usize] == v);
                let mut ds = exit
                    .into_iter()
                    .map(Some)
                    .chain(kept.map(|&c| before[c as usize]));
                let resolved = if v > 0 {
                    ds.any(|d| d == Some(level - 1))
                } else {
                    let ds: Vec<_> = ds.collect();
                    ds.iter().all(Option::is_some)
                        && ds.iter().flatten().max() == Some(&(level - 1))
                };
                if resolved {
                    dist[i] = Some(level);
                }
            }
            if dist == before {
                break;
            }
        }
        dist.into_iter()
            .map(|d| d.expect("every decided position has a distance"))
            .collect()
    }

    #[test]
    fn score_distances_match_the_definition_on_random_graphs() {
        let mut longest = 0;
        for seed in 0..40 {
            let layer = random_layer(1000 + seed, 300 + seed as usize * 37, 5);
            let solved = solve(&layer, Depths::With, &|_| {}).unwrap();
            let values = naive(&layer, 5);
            assert_eq!(solved.values, values, "graph {seed}");
            let expected = naive_distances(&layer, &values);
            assert_eq!(solved.depths.unwrap(), expected, "graph {seed}");
            longest = longest.max(*expected.iter().max().unwrap());
        }
        assert!(longest > 3, "the graphs have lines of several moves");
    }

    #[test]
    fn values_match_across_chunks_and_threads() {
        let layer = random_layer(99, 3 * SET_UP_CHUNK + 17, 7);
        let steps = AtomicU32::new(0);
        let solved = solve(&layer, Depths::Without, &|s| {
            steps.fetch_add(s as u32, Ordering::Relaxed);
        })
        .unwrap();
        assert_eq!(solved.values, naive(&layer, 7));
        assert_eq!(steps.into_inner() as usize, 2 * layer.0.len());
    }

    #[test]
    fn distances_prefer_short_wins_and_long_losses() {
        // 0: no move (lost, 0). 1 → 0 (won, 1). 2 → {1, 3}; 3 → 0: both
        // children won in 1, so 2 is lost in 2. 4 → {2, 0}: won in 1 via 0.
        // 5 → 2: won in 3. 6 → {5, 1}: lost in 4 (the longer loss).
        // 7 has a winning exit (1) and a move to 2. 8: a void exit and a
        // move to 1: a draw. 9 ↔ 10: endless, draws.
        let layer = Lists(vec![
            (vec![], vec![], Some(-1)),
            (vec![], vec![0], None),
            (vec![], vec![1, 3], None),
            (vec![], vec![0], None),
            (vec![], vec![2, 0], None),
            (vec![], vec![2], None),
            (vec![], vec![5, 1], None),
            (vec![1], vec![2], None),
            (vec![0], vec![1], None),
            (vec![], vec![10], None),
            (vec![], vec![9], None),
        ]);
        let solved = solve(&layer, Depths::With, &|_| {}).unwrap();
        assert_eq!(solved.values, vec![-1, 1, -1, 1, 1, 1, -1, 1, 0, 0, 0]);
        assert_eq!(
            solved.depths.unwrap(),
            vec![0, 1, 2, 1, 1, 3, 4, 1, 0, 0, 0]
        );
    }

    #[test]
    fn move_lists_keep_each_child_once() {
        let mut lists = MoveLists::default();
        lists.start();
        lists.child(5);
        lists.child(2);
        lists.child(5);
        lists.exit(3);
        lists.exit(-1);
        lists.start();
        lists.end(-4);
        lists.close();
        assert_eq!(lists.children_of(0), &[2, 5]);
        assert_eq!(lists.children_of(1), &[] as &[u32]);
        assert_eq!(lists.exits, vec![3, -4]);
        assert_eq!(lists.terminal, vec![false, true]);
    }
}
