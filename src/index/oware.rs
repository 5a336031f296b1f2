//! The published Awari index (docs/rules.md, "Published index").
//!
//! The `n`-seed positions with at least one empty opponent pit, in ascending
//! lexicographic order of `(p11, p10, …, p0)`. Ranking walks the pits from 11
//! down to 0 and adds, for each pit, the number of indexed positions that share
//! the pits above it and hold fewer seeds in it: all the fillings of the pits
//! from it down, less those that hold at least as many in it. Both counts
//! depend only on the seeds left below the pit, so a rank is one table lookup
//! a pit (the second count of a pit and the first of the next, folded), the
//! tables worked out at compile time.

use crate::games::oware::{self, Board, MAX_SEEDS, PITS, Packed, SIDE};

/// Binomial coefficients up to C(60, 12), exact in u64.
const fn binomial(n: usize, k: usize) -> u64 {
    if k > n {
        return 0;
    }
    let k = if k < n - k { k } else { n - k };
    let (mut acc, mut i) = (1u64, 0);
    while i < k {
        acc = acc * (n - i) as u64 / (i + 1) as u64;
        i += 1;
    }
    acc
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

const N: usize = MAX_SEEDS + 1;

/// Fillings of the `pit` pits below `pit` with at most `m` seeds,
/// `C(m + pit, pit)`; with `full`, only those whose opponent pits (pits
/// `SIDE..pit`) are all occupied.
const fn at_most(pit: usize, m: isize, full: bool) -> u64 {
    let occupied = if full {
        pit.saturating_sub(SIDE) as isize
    } else {
        0
    };
    if m < occupied {
        return 0;
    }
    binomial(m as usize - occupied as usize + pit, pit)
}

/// `TAIL[pit][zero][empty][rest]`: with `x` of the seeds for pits
/// `pit..=0` in `pit` and `rest` below it, the indexed fillings of those
/// pits that hold `x` or more in `pit` (all of them if `empty`: `x = 0`).
/// `zero`: a pit above is an empty opponent pit. Pit 0's entries are 0.
static TAIL: [[[[u64; N]; 2]; 2]; PITS] = {
    let mut table = [[[[0; N]; 2]; 2]; PITS];
    let mut pit = 1;
    while pit < PITS {
        let mut rest = 0;
        while rest < N {
            let m = rest as isize;
            // With an empty opponent pit above, any filling will do; else
            // one below must be empty, which pit `pit` itself is if `x = 0`
            // (an opponent pit), and which pits `pit − 1..=0` are if not all
            // opponent pits among them are occupied.
            table[pit][1][0][rest] = at_most(pit, m, false);
            table[pit][1][1][rest] = at_most(pit, m, false);
            if pit >= SIDE {
                table[pit][0][0][rest] = at_most(pit, m, false) - at_most(pit, m, true);
                table[pit][0][1][rest] = at_most(pit, m, false) - at_most(pit, m - 1, true);
            }
            rest += 1;
        }
        pit += 1;
    }
    table
};

/// Rows of [`STEP`]: a power of two above [`MAX_SEEDS`], so that a masked
/// index needs no bounds check.
const ROW: usize = 64;

/// `STEP[top - SIDE][pit][rest]` (`pit ≥ 1`): what pit `pit` adds to the
/// rank of a position whose highest empty opponent pit is `top`, `rest`
/// seeds left below `pit`: the fillings of pits `pit − 1..=0` (none for pit
/// 1, whose count ends the rank), less those of `pit..=0` holding at least
/// as many in `pit` ([`TAIL`]). The first count of the rank is the layer's
/// size, the fillings of all pits.
static STEP: [[[u64; ROW]; PITS]; PITS - SIDE] = {
    let mut table = [[[0; ROW]; PITS]; PITS - SIDE];
    let mut top = SIDE;
    while top < PITS {
        let mut pit = 1;
        while pit < PITS {
            // Above `top` no pit is empty; below it one above is.
            let (zero, empty) = (pit < top, pit == top);
            let below = (zero || empty) as usize;
            let mut rest = 0;
            while rest < N {
                let all_below = if pit > 1 {
                    TAIL[pit - 1][below][1][rest]
                } else {
                    0
                };
                table[top - SIDE][pit][rest] =
                    all_below.wrapping_sub(TAIL[pit][zero as usize][empty as usize][rest]);
                rest += 1;
            }
            pit += 1;
        }
        top += 1;
    }
    table
};

/// The highest empty opponent pit of an indexed position, from its pits
/// packed one a byte.
#[inline]
fn highest_empty(pits: u128) -> usize {
    SIDE + (63 - (empty_opponent_pits(pits) | 0x80).leading_zeros() as usize) / 8
}

/// The top bit of byte `p` set where opponent pit `SIDE + p` is empty (no
/// carry crosses a byte).
#[inline]
fn empty_opponent_pits(pits: u128) -> u64 {
    let opponent = (pits >> (8 * SIDE)) as u64;
    const LOW: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    !(((opponent & LOW) + LOW) | opponent | LOW) & 0x8080_8080_8080
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
    rank_packed(oware::packed(board), total)
}

/// [`rank_indexed`] of a [`Packed`] board.
#[inline]
pub fn rank_packed(pits: Packed, total: usize) -> u64 {
    debug_assert!(total <= MAX_SEEDS && is_indexed(&oware::unpacked(pits)));
    let steps = &STEP[highest_empty(pits) - SIDE];
    // Byte `p` of `up_to`: the seeds in pits `0..=p` (one multiplication
    // sums them all; no byte carries, a layer holds at most 48 seeds).
    let up_to = pits.wrapping_mul(u128::MAX / 0xff);
    // The counts of each pit telescope: partial sums may wrap, the rank
    // does not. Pit `p` counts by the seeds below it, byte `p − 1`.
    let mut rank = TAIL[PITS - 1][0][1][total];
    for (pit, step) in steps.iter().enumerate().skip(1) {
        let below = (up_to >> (8 * (pit - 1))) as usize % ROW;
        rank = rank.wrapping_add(step[below]);
    }
    rank
}

/// The position of rank `rank` in layer `n`. `rank` must be below
/// [`layer_size`]`(n)`.
pub fn unrank(n: usize, mut rank: u64) -> Board {
    debug_assert!(rank < layer_size(n));
    let mut board = [0u8; PITS];
    let mut r = n;
    let mut zero = 0;
    for pit in (SIDE..PITS).rev() {
        // The largest x with fewer positions before it than `rank + 1`.
        let all = TAIL[pit][zero][1][r];
        let mut x = 0;
        while x < r && all - TAIL[pit][zero][0][r - x - 1] <= rank {
            x += 1;
        }
        rank -= all - TAIL[pit][zero][usize::from(x == 0)][r - x];
        board[pit] = x as u8;
        if x == 0 {
            zero = 1;
        }
        r -= x;
    }
    // An indexed position has an empty opponent pit: any filling of the
    // mover's row will do.
    oware::unpacked(unrank_row(oware::packed(&board), SIDE - 1, r as u64, rank))
}

/// The fillings of pits `pit..=0` with exactly `seeds` seeds (or of pits
/// `pit − 1..=0` with at most that many), `pit ≥ 1`.
#[inline]
fn fillings(pit: usize, seeds: u64) -> u64 {
    TAIL[pit][1][0][seeds as usize]
}

/// `pits` with pits `top..=0` (of the mover's row) replaced by the filling
/// of `seeds` seeds that comes `offset` places after their first one in
/// rank order.
#[inline]
fn unrank_row(mut pits: Packed, top: usize, mut seeds: u64, mut offset: u64) -> Packed {
    debug_assert!((1..SIDE).contains(&top) && offset < fillings(top, seeds));
    pits &= !0u128 << (8 * (top + 1));
    for pit in (1..=top).rev() {
        // The fillings that hold fewer than x in `pit` come first: x is
        // the largest with `all − fillings(pit, seeds − x) ≤ offset`, found
        // by counting (no branch to mispredict; the counts rise with m).
        let all = fillings(pit, seeds);
        let later = (0..seeds)
            .filter(|&m| fillings(pit, m) < all - offset)
            .count() as u64;
        let x = seeds - later;
        offset -= all - fillings(pit, seeds - x);
        pits |= (x as u128) << (8 * pit);
        seeds -= x;
    }
    pits | seeds as u128
}

/// The position `ahead` ranks after `pits` in its layer, if it differs
/// from it only in the mover's row (pits `0..SIDE`); else `None`.
#[inline]
fn seek(pits: Packed, ahead: u64) -> Option<Packed> {
    // Within the pits above `top` unchanged, the fillings of pits
    // `top..=0` run in rank order: find the lowest `top` whose run holds the
    // target, and the offset of `pits` within that run.
    let mut seeds = pits as u64 & 0xff;
    let mut offset = 0;
    for top in 1..SIDE {
        let below = seeds;
        seeds += (pits >> (8 * top)) as u64 & 0xff;
        offset += fillings(top, seeds) - fillings(top, below);
        if offset + ahead < fillings(top, seeds) {
            return Some(unrank_row(pits, top, seeds, offset + ahead));
        }
    }
    None
}

/// Steps to the next indexed position of the same layer in rank order;
/// returns false after the last one.
#[inline]
pub fn next_indexed(board: &mut Board) -> bool {
    let mut pits = oware::packed(board);
    let more = next_packed(&mut pits);
    *board = oware::unpacked(pits);
    more
}

/// [`next_indexed`] of a [`Packed`] board.
#[inline]
pub fn next_packed(pits: &mut Packed) -> bool {
    // Pits hold at most 48 seeds: adding 0x7f to a pit's byte sets its top
    // bit exactly when the pit holds seeds, and never carries.
    const LOW: u128 = 0x7f7f_7f7f_7f7f_7f7f_7f7f_7f7f;
    loop {
        // The next composition in ascending lexicographic order of (p11, …,
        // p0): one seed of the lowest non-empty pit moves up a pit, the
        // rest of it gathers in pit 0.
        let occupied = (*pits + LOW) & LOW << 1 & !LOW;
        let low = occupied.trailing_zeros() as usize / 8;
        if low >= PITS - 1 {
            return false;
        }
        let seeds = *pits >> (8 * low) & 0xff;
        *pits = *pits - (seeds << (8 * low)) + (1 << (8 * (low + 1))) + (seeds - 1);
        if empty_opponent_pits(*pits) != 0 {
            return true;
        }
    }
}

/// Boards of a layer asked for in rising rank order (the propagation's
/// pending positions): sought from the previous one when only the mover's
/// row changes, unranked otherwise.
pub struct Cursor {
    seeds: usize,
    at: Option<(u64, Packed)>,
}

impl Cursor {
    /// A cursor over layer `seeds`.
    pub fn new(seeds: usize) -> Cursor {
        Cursor { seeds, at: None }
    }

    /// The board of the position of rank `rank` of the layer.
    #[inline]
    pub fn board(&mut self, rank: u64) -> Packed {
        let sought = match self.at {
            Some((at, board)) if at <= rank => seek(board, rank - at),
            _ => None,
        };
        let board = sought.unwrap_or_else(|| oware::packed(&unrank(self.seeds, rank)));
        self.at = Some((rank, board));
        board
    }
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
    fn the_next_indexed_position_of_a_large_layer_has_the_next_rank() {
        let mut state = 11;
        for n in [13, 24, 37, 48] {
            let size = layer_size(n);
            for _ in 0..2000 {
                let r = (lcg(&mut state) << 31 ^ lcg(&mut state)) % (size - 1);
                let mut board = unrank(n, r);
                assert!(next_indexed(&mut board));
                assert_eq!(rank(&board), Some(r + 1), "n={n} {board:?}");
            }
        }
    }

    #[test]
    fn a_cursor_finds_every_board_from_any_board_before_it() {
        for n in [0, 1, 5, 9] {
            let size = layer_size(n);
            for from in 0..size {
                for ahead in [0, 1, 2, 3, 7, 20, 33, 100, 1000] {
                    let to = from + ahead;
                    if to >= size {
                        break;
                    }
                    let mut cursor = Cursor::new(n);
                    assert_eq!(cursor.board(from), oware::packed(&unrank(n, from)));
                    assert_eq!(
                        cursor.board(to),
                        oware::packed(&unrank(n, to)),
                        "n={n} {from}+{ahead}"
                    );
                }
            }
        }
        // Seeking stays within the mover's row.
        let board = oware::packed(&[0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0]);
        assert_eq!(seek(board, 1), None);
        assert_eq!(seek(board, 0), Some(board));
    }

    #[test]
    fn positions_with_full_opponent_rows_are_not_indexed() {
        assert_eq!(rank(&[4; 12]), None);
        assert_eq!(rank(&[0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1]), None);
        // The first position of a layer puts every seed in pit 0.
        assert_eq!(rank(&[5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), Some(0));
    }
}
