//! Census of never-ending moves in pure relay: one player's `2W` pits, no
//! captures possible (for instance, the opponent's board is empty). For each
//! seed total, how many seed configurations have at least one starting pit
//! whose relay never ends. This is the Mayer test at scale: every move of
//! every configuration is decided exactly.

use rayon::prelude::*;

use super::super::relay::{
    Cycle, Dir, Dirs, Lap, RelayRules, follow, pack, packed_clear, packed_pit, sow_packed,
};
use super::{MAX_SEEDS, MAX_WIDTH, OmwesoError, check_width};

/// A lap start in pure relay on a ring of up to `2 × MAX_WIDTH` pits,
/// packed one byte a pit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RingState {
    pits: u128,
    pit: u8,
    hand: u8,
}

/// Counter-clockwise relay on a ring of `n` pits, without captures.
struct PureRelay {
    n: usize,
}

impl RelayRules for PureRelay {
    type State = RingState;

    fn options(&self, _: &RingState) -> Dirs {
        Dirs::CCW
    }

    fn lap(&self, s: &mut RingState, dir: Dir) -> Lap {
        let sown = u32::from(s.hand);
        let (pits, last) = sow_packed(s.pits, self.n, s.pit.into(), s.hand.into(), dir);
        let landed = packed_pit(pits, last);
        if landed == 1 {
            s.pits = pits;
            return Lap { sown, ended: true };
        }
        s.hand = landed;
        s.pits = packed_clear(pits, last);
        s.pit = last as u8;
        Lap { sown, ended: false }
    }

    fn pit(&self, s: &RingState) -> usize {
        usize::from(s.pit)
    }
}

/// The cycle of the pure-relay move from `pit` of `side` (a player's `2W`
/// pits in sowing order, at most 16 pits, at most 255 seeds), or `None` if
/// the move ends or cannot be played.
pub fn pure_relay_cycle(side: &[u8], pit: usize) -> Option<Cycle> {
    if side.len() > 2 * MAX_WIDTH || side.get(pit).is_none_or(|&h| h < 2) {
        return None;
    }
    let mut pits = [0u8; 2 * MAX_WIDTH];
    pits[..side.len()].copy_from_slice(side);
    relay_cycle(&PureRelay { n: side.len() }, &pits, pit)
}

fn relay_cycle(rules: &PureRelay, pits: &[u8; 2 * MAX_WIDTH], pit: usize) -> Option<Cycle> {
    let start = RingState {
        pits: packed_clear(pack(pits), pit),
        pit: pit as u8,
        hand: pits[pit],
    };
    follow(rules, &start, Dir::Ccw, 0, 0).cycle()
}

/// The census of one seed total.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CensusRow {
    /// The seed total.
    pub seeds: u32,
    /// Seed configurations of this total on the `2W` pits.
    pub configurations: u64,
    /// Configurations with at least one never-ending move.
    pub never_ending: u64,
}

/// Census results for totals `0..=max_seeds`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Census {
    /// Columns of the board.
    pub width: usize,
    /// One row per seed total, from 0.
    pub rows: Vec<CensusRow>,
}

impl Census {
    /// The smallest total with a never-ending move, if any was found.
    pub fn smallest(&self) -> Option<u32> {
        self.rows
            .iter()
            .find(|r| r.never_ending > 0)
            .map(|r| r.seeds)
    }
}

/// Number of configurations of `seeds` seeds on `pits` pits,
/// C(seeds + pits − 1, pits − 1), saturating at `u64::MAX`.
pub fn configurations(seeds: u32, pits: usize) -> u64 {
    let (n, k) = (u128::from(seeds) + pits as u128 - 1, pits as u128 - 1);
    let exact = (0..k).fold(1u128, |acc, i| acc * (n - i) / (i + 1));
    u64::try_from(exact).unwrap_or(u64::MAX)
}

/// Runs the census for board width `width` and totals up to `max_seeds`, in
/// parallel. `progress` is called with the number of configurations done
/// since its last call.
pub fn census(
    width: usize,
    max_seeds: u32,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Census, OmwesoError> {
    check_width(width)?;
    if max_seeds > MAX_SEEDS {
        return Err(OmwesoError::TooManySeeds(u64::from(max_seeds)));
    }
    let n = 2 * width;
    let rules = PureRelay { n };
    let rows = (0..=max_seeds)
        .map(|seeds| {
            // Work items: every way to fill the first `prefix` pits; each
            // item walks the configurations of the remaining pits in place.
            let prefix = (n - 1).min(3);
            let items = prefixes(prefix, seeds);
            let never_ending = items
                .par_iter()
                .map(|head| {
                    let (count, done) = count_suffixes(&rules, head, prefix, seeds);
                    progress(done);
                    count
                })
                .sum();
            CensusRow {
                seeds,
                configurations: configurations(seeds, n),
                never_ending,
            }
        })
        .collect();
    Ok(Census { width, rows })
}

/// All fillings of `len` pits with at most `seeds` seeds in all.
fn prefixes(len: usize, seeds: u32) -> Vec<[u8; 2 * MAX_WIDTH]> {
    let mut out = vec![[0u8; 2 * MAX_WIDTH]];
    for i in 0..len {
        out = out
            .into_iter()
            .flat_map(|head| {
                let used: u32 = head.iter().map(|&p| u32::from(p)).sum();
                (0..=seeds - used).map(move |v| {
                    let mut next = head;
                    next[i] = v as u8;
                    next
                })
            })
            .collect();
    }
    out
}

/// Walks every configuration that starts with `head` (its first `prefix`
/// pits) and holds `seeds` seeds; returns how many have a never-ending move
/// and how many were walked.
fn count_suffixes(
    rules: &PureRelay,
    head: &[u8; 2 * MAX_WIDTH],
    prefix: usize,
    seeds: u32,
) -> (u64, u64) {
    let n = rules.n;
    let used: u32 = head.iter().map(|&p| u32::from(p)).sum();
    let mut pits = *head;
    // Compositions of the rest over pits prefix..n, starting with all in
    // the first of them: take the last pit's seeds, move one seed from the
    // rightmost other non-empty pit one step right, together with them.
    pits[prefix] = (seeds - used) as u8;
    let (mut found, mut walked) = (0, 0);
    loop {
        walked += 1;
        // Pure relay looks the same from every pit of the ring: only the
        // smallest rotation of each configuration is sown, for all of them.
        if let Some(orbit) = rotations_if_smallest(&pits, n)
            && (0..n).any(|k| pits[k] >= 2 && relay_cycle(rules, &pits, k).is_some())
        {
            found += orbit;
        }
        let tail = pits[n - 1];
        pits[n - 1] = 0;
        let Some(j) = (prefix..n - 1).rev().find(|&j| pits[j] > 0) else {
            break;
        };
        pits[j] -= 1;
        pits[j + 1] = tail + 1;
    }
    (found, walked)
}

/// If `pits` (a ring of `n` pits) is the smallest of its rotations, read as
/// a little-endian number, the number of distinct rotations it has.
fn rotations_if_smallest(pits: &[u8; 2 * MAX_WIDTH], n: usize) -> Option<u64> {
    let x = u128::from_le_bytes(*pits);
    let bits = 8 * n as u32;
    let mask = if bits == 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    };
    for r in 1..n as u32 {
        let y = ((x << (8 * r)) | (x >> (bits - 8 * r))) & mask;
        if y < x {
            return None;
        }
        if y == x {
            return Some(u64::from(r));
        }
    }
    Some(n as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ring(pits: &[u8]) -> [u8; 2 * MAX_WIDTH] {
        let mut out = [0u8; 2 * MAX_WIDTH];
        out[..pits.len()].copy_from_slice(pits);
        out
    }

    #[test]
    fn rotation_classes() {
        // Little-endian: the first pit is the lowest byte, so 5 0 0 0 is
        // the smallest of its 4 rotations and 0 0 0 5 is not.
        assert_eq!(rotations_if_smallest(&ring(&[5, 0, 0, 0]), 4), Some(4));
        assert_eq!(rotations_if_smallest(&ring(&[0, 0, 0, 5]), 4), None);
        // 2 1 2 1 has two distinct rotations; 3 3 … 3 one.
        assert_eq!(rotations_if_smallest(&ring(&[2, 1, 2, 1]), 4), Some(2));
        assert_eq!(rotations_if_smallest(&ring(&[1, 2, 1, 2]), 4), None);
        assert_eq!(rotations_if_smallest(&ring(&[3; 16]), 16), Some(1));
        // Summed over a whole class, every member is counted once.
        let total: u64 = [[0, 1, 2], [1, 2, 0], [2, 0, 1]]
            .iter()
            .filter_map(|c| rotations_if_smallest(&ring(c), 3))
            .sum();
        assert_eq!(total, 3);
    }

    #[test]
    fn configurations_count() {
        assert_eq!(configurations(7, 8), 3432);
        assert_eq!(configurations(0, 16), 1);
        assert_eq!(configurations(255, 16), u64::MAX);
    }
}
