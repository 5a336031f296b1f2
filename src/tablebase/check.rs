//! The one driver of the consistency checks of every game: each position's
//! stored value against the best over its moves.

use std::ops::Range;

use rayon::prelude::*;

/// Checks ranks `0..size` in chunks of `chunk`, in parallel, and returns the
/// first mismatch in rank order. `check` looks at one range of ranks and
/// returns its first mismatch; `progress` gets the positions of every chunk
/// found consistent.
pub(crate) fn first_inconsistent<T: Send, E: Send>(
    size: u64,
    chunk: u64,
    progress: &(dyn Fn(u64) + Sync),
    check: impl Fn(Range<u64>) -> Result<Option<T>, E> + Sync,
) -> Result<Option<T>, E> {
    (0..size.div_ceil(chunk))
        .into_par_iter()
        .map(|c| {
            let ranks = c * chunk..((c + 1) * chunk).min(size);
            let positions = ranks.end - ranks.start;
            let found = check(ranks);
            if matches!(found, Ok(None)) {
                progress(positions);
            }
            found
        })
        .find_map_first(Result::transpose)
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_mismatch_in_rank_order_and_counts_the_rest() {
        let bad = [5_000u64, 70_000, 123_456];
        let counted = std::sync::atomic::AtomicU64::new(0);
        let first = first_inconsistent::<u64, ()>(
            200_000,
            1000,
            &|n| {
                counted.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
            },
            |ranks| Ok(ranks.clone().find(|r| bad.contains(r))),
        );
        assert_eq!(first, Ok(Some(5_000)));
        let clean = first_inconsistent::<u64, ()>(2_500, 1000, &|_| {}, |_| Ok(None));
        assert_eq!(clean, Ok(None));
        let failed = first_inconsistent::<u64, &str>(2_500, 1000, &|_| {}, |r| {
            if r.start == 1000 {
                Err("unreadable")
            } else {
                Ok(None)
            }
        });
        assert_eq!(failed, Err("unreadable"));
        assert!(counted.into_inner() <= 200_000);
    }
}
