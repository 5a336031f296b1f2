//! Stars-and-bars ranking: the distributions of `n` seeds over `k` pits, in
//! ascending lexicographic order of `(p[k−1], …, p[0])` (the order of the
//! published Awari index, without its filter). Used by the explicit engine for
//! every game it solves.
//!
//! The distributions with `p[i] ≥ x` given the pits above `i` number
//! `C(r − x + i, i)`, `r` being the seeds left for pits `i..=0`, so the rank is
//! a sum of differences of two binomials per pit.

/// Errors of building an index.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IndexError {
    /// Zero pits.
    #[error("an index needs at least one pit")]
    NoPits,
    /// More positions than a `u64` numbers.
    #[error("{seeds} seeds over {pits} pits give more positions than an index can number")]
    TooLarge {
        /// Pits asked for.
        pits: usize,
        /// Seeds asked for.
        seeds: usize,
    },
}

/// The index of one layer: `seeds` seeds over `pits` pits.
#[derive(Clone, Debug)]
pub struct StarsBars {
    pits: usize,
    seeds: usize,
    /// `binom[a * pits + b] = C(a, b)` for `a ≤ seeds + pits − 1`, `b < pits`.
    binom: Vec<u64>,
}

impl StarsBars {
    /// The index of `seeds` seeds over `pits` pits.
    pub fn new(pits: usize, seeds: usize) -> Result<StarsBars, IndexError> {
        if pits == 0 {
            return Err(IndexError::NoPits);
        }
        let rows = seeds + pits;
        let mut binom = vec![0u64; rows * pits];
        for a in 0..rows {
            binom[a * pits] = 1;
            for b in 1..pits.min(a + 1) {
                let sum = binom[(a - 1) * pits + b - 1].checked_add(binom[(a - 1) * pits + b]);
                // Binomials beyond the layer size are never looked up, but
                // one that overflows below it means the layer is too large.
                binom[a * pits + b] = sum.unwrap_or(u64::MAX);
            }
        }
        let index = StarsBars { pits, seeds, binom };
        if index.size() == u64::MAX {
            return Err(IndexError::TooLarge { pits, seeds });
        }
        Ok(index)
    }

    /// Pits of every position.
    pub fn pits(&self) -> usize {
        self.pits
    }

    /// Seeds of every position.
    pub fn seeds(&self) -> usize {
        self.seeds
    }

    #[inline]
    fn c(&self, a: usize, b: usize) -> u64 {
        self.binom[a * self.pits + b]
    }

    /// Number of distributions: `C(seeds + pits − 1, pits − 1)`.
    pub fn size(&self) -> u64 {
        self.c(self.seeds + self.pits - 1, self.pits - 1)
    }

    /// The rank of `counts` (`pits` entries summing to `seeds`).
    #[inline]
    pub fn rank(&self, counts: &[u8]) -> u64 {
        debug_assert_eq!(counts.len(), self.pits);
        debug_assert_eq!(
            counts.iter().map(|&c| usize::from(c)).sum::<usize>(),
            self.seeds
        );
        let mut r = self.seeds;
        let mut rank = 0;
        for i in (1..self.pits).rev() {
            let x = usize::from(counts[i]);
            rank += self.c(r + i, i) - self.c(r - x + i, i);
            r -= x;
        }
        rank
    }

    /// Fills `counts` (`pits` entries) with the distribution of rank `rank`
    /// (below [`StarsBars::size`]).
    pub fn unrank(&self, mut rank: u64, counts: &mut [u8]) {
        debug_assert!(rank < self.size());
        let mut r = self.seeds;
        for i in (1..self.pits).rev() {
            // The largest x with fewer than `rank + 1` distributions before it.
            let all = self.c(r + i, i);
            let mut x = 0;
            while x < r && all - self.c(r - x - 1 + i, i) <= rank {
                x += 1;
            }
            rank -= all - self.c(r - x + i, i);
            counts[i] = x as u8;
            r -= x;
        }
        counts[0] = r as u8;
    }
}

/// Steps `counts` to the next distribution in rank order; returns false
/// after the last one (all seeds in the top pit).
#[inline]
pub fn next(counts: &mut [u8]) -> bool {
    let Some(low) = counts.iter().position(|&s| s > 0) else {
        return false;
    };
    if low + 1 == counts.len() {
        return false;
    }
    let rest = counts[low] - 1;
    counts[low] = 0;
    counts[low + 1] += 1;
    counts[0] = rest;
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_binomials() {
        assert_eq!(StarsBars::new(16, 12).unwrap().size(), 17_383_860);
        assert_eq!(StarsBars::new(32, 8).unwrap().size(), 61_523_748);
        assert_eq!(StarsBars::new(12, 0).unwrap().size(), 1);
        assert_eq!(StarsBars::new(1, 5).unwrap().size(), 1);
        assert_eq!(StarsBars::new(12, 48).unwrap().size(), 279_871_768_995);
        assert_eq!(StarsBars::new(0, 3).err(), Some(IndexError::NoPits));
        assert!(StarsBars::new(64, 255).is_err());
    }

    #[test]
    fn ranks_follow_the_walk_order_and_round_trip() {
        for (pits, seeds) in [(1, 3), (2, 4), (4, 5), (6, 6), (12, 4)] {
            let index = StarsBars::new(pits, seeds).unwrap();
            let mut counts = vec![0u8; pits];
            counts[0] = seeds as u8;
            let mut expected = 0;
            let mut back = vec![0u8; pits];
            loop {
                assert_eq!(index.rank(&counts), expected, "{counts:?}");
                index.unrank(expected, &mut back);
                assert_eq!(back, counts);
                expected += 1;
                if !next(&mut counts) {
                    break;
                }
            }
            assert_eq!(expected, index.size());
        }
    }

    #[test]
    fn large_layers_round_trip() {
        let index = StarsBars::new(32, 8).unwrap();
        let mut counts = [0u8; 32];
        for rank in [0, 1, 12_345_678, 61_523_747] {
            index.unrank(rank, &mut counts);
            assert_eq!(counts.iter().map(|&c| c as usize).sum::<usize>(), 8);
            assert_eq!(index.rank(&counts), rank);
        }
    }
}
