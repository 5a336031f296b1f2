//! The published Awari index (docs/rules.md, "Published index").
//!
//! The `n`-seed positions with at least one empty opponent pit, in ascending
//! lexicographic order of `(p11, p10, …, p0)`. Ranking walks the pits from 11
//! down to 0 and adds, for each pit, the number of indexed positions that share
//! the pits above it and hold fewer seeds in it; those counts are precomputed.

use std::sync::OnceLock;

use crate::games::oware::{Board, MAX_SEEDS, PITS, SIDE};

/// Binomial coefficients up to C(60, 12), exact in u64.
fn binomial(n: usize, k: usize) -> u64 {
    if k > n {
        return 0;
    }
    let k = k.min(n - k);
    (0..k).fold(1u64, |acc, i| acc * (n - i) as u64 / (i + 1) as u64)
}

/// Number of positions in layer `n` of the index: C(n+11, 11) − C(n+5, 11).
pub fn layer_size(n: usize) -> u64 {
    binomial(n + 11, 11) - binomial(n + 5, 11)
}

/// Does the published index hold this position (some opponent pit empty)?
#[inline]
pub fn is_indexed(board: &Board) -> bool {
    board[SIDE..].contains(&0)
}

/// Ways to fill `k` pits (pits `k-1..=0`) with exactly `r` seeds so that the
/// whole position is indexed. `zero_above`: an opponent pit above them is
/// already empty, so any filling will do.
fn completions(k: usize, r: usize, zero_above: bool) -> u64 {
    let all = if k == 0 {
        u64::from(r == 0)
    } else {
        binomial(r + k - 1, k - 1)
    };
    if zero_above {
        return all;
    }
    // Subtract the fillings whose remaining opponent pits are all occupied.
    let opponent_pits = k.saturating_sub(SIDE);
    if opponent_pits == 0 || r < opponent_pits {
        return if opponent_pits == 0 { 0 } else { all };
    }
    all - binomial(r - opponent_pits + k - 1, k - 1)
}

const N: usize = MAX_SEEDS + 1;

/// `before[pit][zero_above][r][x]`: indexed positions that agree with the
/// pits above `pit`, have `r` seeds left for pits `pit..=0`, and hold fewer
/// than `x` seeds in `pit`.
struct RankTables {
    before: Vec<u64>,
}

impl RankTables {
    fn build() -> Self {
        let mut before = vec![0u64; PITS * 2 * N * (N + 1)];
        for pit in 0..PITS {
            for zero in [false, true] {
                for r in 0..N {
                    let mut acc = 0;
                    for x in 0..=r {
                        before[Self::at(pit, zero, r, x)] = acc;
                        let zero_below = zero || (pit >= SIDE && x == 0);
                        acc += completions(pit, r - x, zero_below);
                    }
                    before[Self::at(pit, zero, r, r + 1)] = acc;
                }
            }
        }
        RankTables { before }
    }

    #[inline]
    fn at(pit: usize, zero: bool, r: usize, x: usize) -> usize {
        ((pit * 2 + zero as usize) * N + r) * (N + 1) + x
    }

    #[inline]
    fn get(&self, pit: usize, zero: bool, r: usize, x: usize) -> u64 {
        self.before[Self::at(pit, zero, r, x)]
    }
}

fn tables() -> &'static RankTables {
    static TABLES: OnceLock<RankTables> = OnceLock::new();
    TABLES.get_or_init(RankTables::build)
}

/// The rank of an indexed position within its layer (`None` if the position is
/// not indexed or holds more than [`MAX_SEEDS`] seeds).
#[inline]
pub fn rank(board: &Board) -> Option<u64> {
    if !is_indexed(board) {
        return None;
    }
    let total: usize = board.iter().map(|&s| s as usize).sum();
    if total > MAX_SEEDS {
        return None;
    }
    Some(rank_indexed(board, total))
}

/// [`rank`] for a position known to be indexed with `total` seeds.
#[inline]
pub fn rank_indexed(board: &Board, total: usize) -> u64 {
    let t = tables();
    let mut r = total;
    let mut zero = false;
    let mut rank = 0;
    for pit in (1..PITS).rev() {
        let x = board[pit] as usize;
        rank += t.get(pit, zero, r, x);
        zero |= pit >= SIDE && x == 0;
        r -= x;
    }
    rank
}

/// The position of rank `rank` in layer `n`. `rank` must be below
/// [`layer_size`]`(n)`.
pub fn unrank(n: usize, mut rank: u64) -> Board {
    debug_assert!(rank < layer_size(n));
    let t = tables();
    let mut board = [0u8; PITS];
    let mut r = n;
    let mut zero = false;
    for pit in (1..PITS).rev() {
        // The largest x whose "before" count does not exceed the rank.
        let mut x = 0;
        while x < r && t.get(pit, zero, r, x + 1) <= rank {
            x += 1;
        }
        rank -= t.get(pit, zero, r, x);
        board[pit] = x as u8;
        zero |= pit >= SIDE && x == 0;
        r -= x;
    }
    board[0] = r as u8;
    board
}

/// Steps to the next indexed position of the same layer in rank order;
/// returns false after the last one.
#[inline]
pub fn next_indexed(board: &mut Board) -> bool {
    loop {
        if !next_composition(board) {
            return false;
        }
        if is_indexed(board) {
            return true;
        }
    }
}

/// Next composition in ascending lexicographic order of (p11, …, p0): move one
/// seed up from the lowest non-empty pit and gather the rest in pit 0.
#[inline]
fn next_composition(board: &mut Board) -> bool {
    let Some(low) = board.iter().position(|&s| s > 0) else {
        return false;
    };
    if low == PITS - 1 {
        return false;
    }
    let rest = board[low] - 1;
    board[low] = 0;
    board[low + 1] += 1;
    board[0] = rest;
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcg(state: &mut u64) -> u64 {
        *state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *state >> 33
    }

    #[test]
    fn layer_sizes_match_the_published_totals() {
        assert_eq!(layer_size(0), 1);
        assert_eq!(layer_size(1), 12);
        // The sizes of layers 0..=48 without 47 sum to 889,063,398,405.
        let total: u64 = (0..=48).filter(|&n| n != 47).map(layer_size).sum();
        assert_eq!(total, 889_063_398_405);
        let up_to_20: u64 = (0..=20).map(layer_size).sum();
        assert_eq!(up_to_20, 216_135_140);
    }

    #[test]
    fn ranks_walk_small_layers_in_lexicographic_order() {
        for n in 0..=9 {
            let mut board = [0u8; PITS];
            board[0] = n as u8;
            if !is_indexed(&board) {
                assert!(next_indexed(&mut board));
            }
            let mut expected = 0u64;
            let mut previous: Option<Board> = None;
            loop {
                assert_eq!(rank(&board), Some(expected), "n={n} {board:?}");
                assert_eq!(unrank(n, expected), board);
                if let Some(p) = previous {
                    let key = |b: &Board| b.iter().rev().copied().collect::<Vec<_>>();
                    assert!(key(&p) < key(&board));
                }
                previous = Some(board);
                expected += 1;
                if !next_indexed(&mut board) {
                    break;
                }
            }
            assert_eq!(expected, layer_size(n), "layer {n}");
        }
    }

    #[test]
    fn ranks_round_trip_on_random_positions_of_large_layers() {
        let mut state = 7;
        for n in [20, 33, 46, 47, 48] {
            let size = layer_size(n);
            for _ in 0..2000 {
                let r = (lcg(&mut state) << 31 ^ lcg(&mut state)) % size;
                let board = unrank(n, r);
                assert_eq!(board.iter().map(|&s| s as usize).sum::<usize>(), n);
                assert!(is_indexed(&board));
                assert_eq!(rank(&board), Some(r));
            }
            assert_eq!(rank(&unrank(n, size - 1)), Some(size - 1));
            assert_eq!(rank(&unrank(n, 0)), Some(0));
        }
    }

    #[test]
    fn positions_with_full_opponent_rows_are_not_indexed() {
        assert_eq!(rank(&[4; 12]), None);
        assert_eq!(rank(&[0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1]), None);
        // The first position of a layer puts every seed in pit 0.
        assert_eq!(rank(&[5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), Some(0));
    }
}
