//! The set-up pass of the three engines: for each position of a part of the
//! layer, the number of its non-capturing moves (its state's counter) and
//! the best value its exits offer (captures, or the end of the game). The
//! values of capture children are asked of the lower layers in one batch
//! per part, so that a lower layer kept compressed on disk is read in
//! order, one block decode per block touched, not one per lookup.

use std::sync::atomic::AtomicU64;

use rayon::prelude::*;

use super::lower::{Lookup, LowerLayers, PART_BYTES};
use super::shared::{CHUNK, Config, EngineError};
use super::states::STATES_PER_WORD;
use super::stream::{Deferred, overlapped};
use crate::games::oware::{self, Ruleset};
use crate::index::oware as index;
use crate::solve::Progress;
use crate::solve::phases::{Phase, Phases};
use crate::solve::threshold::NO_EXIT;

/// Sets up the positions `start .. start + exits.len()` of layer `seeds`
/// (`start` a multiple of the engines' chunk): `exits[i]` gets the best exit
/// of position `start + i` ([`NO_EXIT`] if it has none), and its state the
/// number of its non-capturing moves. `states` are the words of those
/// positions. Lookups into layers that `deferred` defers go there instead:
/// those exits are the best of the others until the answers are folded in.
/// The lookups into the lower layers are timed as [`Phase::Lookups`].
#[allow(clippy::too_many_arguments)]
pub fn set_up_part<L: LowerLayers>(
    rules: Ruleset,
    seeds: usize,
    start: usize,
    exits: &mut [i8],
    states: &mut [AtomicU64],
    lower: &L,
    deferred: Option<&mut Deferred<L>>,
    phases: &Phases,
) -> Result<(), EngineError<L::Error>> {
    debug_assert!(start.is_multiple_of(CHUNK));
    let per_chunk: Vec<Vec<Lookup>> = exits
        .par_chunks_mut(CHUNK)
        .zip(states.par_chunks_mut(CHUNK / STATES_PER_WORD))
        .enumerate()
        .map(|(c, (exits, words))| {
            let mut lookups = Vec::with_capacity(exits.len());
            let first = start + c * CHUNK;
            let mut board = oware::packed(&index::unrank(seeds, first as u64));
            for (w, (exits, word)) in exits.chunks_mut(STATES_PER_WORD).zip(words).enumerate() {
                let mut counters = 0u64;
                for (slot, exit) in exits.iter_mut().enumerate() {
                    let children = oware::Children::of_packed(rules, board);
                    *exit = if children.is_empty() {
                        oware::no_move_value(rules, &oware::unpacked(board))
                    } else {
                        NO_EXIT
                    };
                    counters += (children.quiet().len() as u64) << (4 * slot);
                    for pit in children.captures() {
                        let captured = children.captured(pit);
                        let rest = seeds - captured as usize;
                        lookups.push(Lookup {
                            rank: index::rank_packed(children.packed_child(pit), rest),
                            seeds: rest as u8,
                            value: 0,
                            captured: captured as i8,
                            slot: (w * STATES_PER_WORD + slot) as u32,
                        });
                    }
                    index::next_packed(&mut board);
                }
                *word.get_mut() = counters;
            }
            lookups
        })
        .collect();
    let mut per_chunk = per_chunk;
    if let Some(deferred) = deferred {
        deferred.defer_part(start as u64, CHUNK as u64, &mut per_chunk)?;
    }
    let lens: Vec<usize> = per_chunk.iter().map(Vec::len).collect();
    let mut lookups = concat(&per_chunk);
    phases
        .time(Phase::Lookups, || lower.resolve(&mut lookups))
        .map_err(EngineError::Lower)?;
    // Lookups are in chunk order: fold each chunk's into its exits.
    let mut rest = lookups.as_slice();
    let mut batches = Vec::with_capacity(lens.len());
    for len in lens {
        let (batch, tail) = rest.split_at(len);
        batches.push(batch);
        rest = tail;
    }
    exits
        .par_chunks_mut(CHUNK)
        .zip(batches)
        .for_each(|(exits, lookups)| {
            for l in lookups {
                let exit = &mut exits[l.slot as usize];
                *exit = (*exit).max(l.captured - l.value);
            }
        });
    Ok(())
}

/// The lists one after the other, copied in parallel (a part's lookups are
/// tens of megabytes: one core copying them would keep the others waiting).
fn concat<T: Copy + Send + Sync>(lists: &[Vec<T>]) -> Vec<T> {
    let len = lists.iter().map(Vec::len).sum();
    let mut all = Vec::with_capacity(len);
    let mut rest = &mut all.spare_capacity_mut()[..len];
    let mut places = Vec::with_capacity(lists.len());
    for list in lists {
        let (place, tail) = rest.split_at_mut(list.len());
        places.push(place);
        rest = tail;
    }
    places.into_par_iter().zip(lists).for_each(|(place, list)| {
        for (slot, &item) in place.iter_mut().zip(list) {
            slot.write(item);
        }
    });
    // SAFETY: the places cover the first `len` slots, and each got its list's items.
    unsafe { all.set_len(len) };
    all
}

/// Parts the second sweep of a set-up folds at once. A part's lookups take
/// [`PART_BYTES`] (64) a position of memory in the first sweep; folded,
/// its kept exits, counts, buckets and answers take about 3 (two parts at
/// once, one read ahead) and the exits 1: four parts at once take less,
/// with room for parts that defer more lookups than most, and they ask
/// each bucket's file for their answers a quarter as often.
const FOLD_PARTS: usize = 4;

/// The set-up of a whole layer for an engine that streams its exits:
/// `exits(start, exits)` is handed the best exits of the positions `start
/// ..`, a part at a time in rank order; `states`, if given, are the
/// layer's state words, which get the counters. Lookups into lower layers
/// read in order are deferred to buckets in `dir` (of as many positions as
/// a part's lookups take bytes of memory) and folded in by a second sweep
/// of the exits, kept meanwhile in a file there; `config.sweep` positions
/// at a time, which bounds those files.
pub fn set_up_layer<L, E>(
    (rules, seeds): (Ruleset, usize),
    config: &Config,
    lower: &L,
    mut states: Option<&mut [AtomicU64]>,
    progress: Progress,
    mut out: impl FnMut(usize, &[i8]) -> Result<(), EngineError<E>>,
) -> Result<(), EngineError<E>>
where
    L: LowerLayers<Error = E>,
    E: std::error::Error + 'static,
{
    let size = index::layer_size(seeds) as usize;
    let part = config.part;
    let sweep = sweep_positions(size, part, config.sweep);
    let mut exits = vec![0i8; part.min(size)];
    // Counters of an engine that does not keep them.
    let mut counters: Vec<AtomicU64> = match states {
        Some(_) => Vec::new(),
        None => (0..exits.len().div_ceil(STATES_PER_WORD))
            .map(|_| AtomicU64::new(0))
            .collect(),
    };
    let bucket = part as u64 * PART_BYTES;
    let dir = config.scratch.join("deferred");
    for first in (0..size).step_by(sweep) {
        let parts = (first..size.min(first + sweep)).step_by(part);
        let mut deferred = Deferred::create(&dir, seeds, first as u64, lower, bucket)?;
        for start in parts {
            let exits = &mut exits[..part.min(size - start)];
            let words = match &mut states {
                Some(states) => {
                    &mut states
                        [start / STATES_PER_WORD..(start + exits.len()).div_ceil(STATES_PER_WORD)]
                }
                None => &mut counters[..exits.len().div_ceil(STATES_PER_WORD)],
            };
            let phases = &config.phases;
            set_up_part(
                rules,
                seeds,
                start,
                exits,
                words,
                lower,
                deferred.as_mut(),
                phases,
            )?;
            match &mut deferred {
                Some(deferred) => {
                    deferred.keep(exits)?;
                    progress(exits.len() as u64 / 2);
                }
                None => {
                    out(start, exits)?;
                    progress(exits.len() as u64);
                }
            }
        }
        if let Some(deferred) = deferred {
            let end = size.min(first + sweep);
            let fold = (FOLD_PARTS * part).min(end - first);
            config.phases.enter(Phase::Deferred);
            fold_deferred(deferred, first..end, fold, &mut out, progress)?;
            config.phases.enter(Phase::SetUp);
        }
    }
    Ok(())
}

/// The second sweep over positions `sweep`: their kept exits with the
/// deferred lookups' answers folded in, `fold` positions at a time, handed
/// to `out`; the next part's answers are folded in while one goes out.
fn fold_deferred<L, E>(
    deferred: Deferred<L>,
    sweep: std::ops::Range<usize>,
    fold: usize,
    out: &mut impl FnMut(usize, &[i8]) -> Result<(), EngineError<E>>,
    progress: Progress,
) -> Result<(), EngineError<E>>
where
    L: LowerLayers<Error = E>,
    E: std::error::Error + 'static,
{
    let mut answers = deferred.answer(fold)?;
    let starts: Vec<usize> = sweep.clone().step_by(fold).collect();
    let len = |i: usize| fold.min(sweep.end - starts[i]);
    let fold_in = |i, folded: &mut Vec<i8>| answers.next_part(&mut folded[..len(i)]);
    overlapped(
        starts.len(),
        [vec![0; fold], vec![0; fold]],
        fold_in,
        |i, folded| {
            let exits = &folded[..len(i)];
            out(starts[i], exits)?;
            progress((exits.len() - exits.len() / 2) as u64);
            Ok::<_, EngineError<E>>(())
        },
    )?;
    answers.remove()?;
    Ok(())
}

/// The positions of each sweep of a layer of `size` in parts of `part`,
/// at most `most` (and at least a part): whole parts, in as few sweeps as
/// that allows, as even as whole parts make them. Each sweep reads every
/// streamed layer once, so a layer of `most` positions is one sweep, not
/// one and a sliver of its last part.
fn sweep_positions(size: usize, part: usize, most: usize) -> usize {
    let (parts, most) = (size.div_ceil(part), most.max(part));
    let positions = |sweeps: usize| parts.div_ceil(sweeps) * part;
    (size.div_ceil(most).max(1)..=parts.max(1))
        .map(positions)
        .find(|&p| p.min(size) <= most)
        .unwrap_or(part)
}

#[cfg(test)]
mod tests {
    use super::{concat, sweep_positions};

    #[test]
    fn sweeps_are_whole_parts_as_few_and_even_as_the_most_allows() {
        // The whole layer, though its last part is short: one sweep.
        assert_eq!(sweep_positions(1050, 100, 1050), 1100);
        assert_eq!(sweep_positions(1050, 100, usize::MAX), 1100);
        // 11 parts, at most 5 a sweep: three sweeps of 4, 4 and 3 parts
        // (not 5, 5 and a sliver of 50 positions).
        assert_eq!(sweep_positions(1050, 100, 500), 400);
        assert_eq!(sweep_positions(1050, 100, 599), 400);
        // At least a part, whatever the most.
        assert_eq!(sweep_positions(1050, 100, 10), 100);
        assert_eq!(sweep_positions(50, 100, 10), 100);
        for (size, part, most) in [
            (1050, 100, 320),
            (1050, 100, 199),
            (7, 3, 5),
            (12345, 64, 1000),
        ] {
            let sweep = sweep_positions(size, part, most);
            assert!(sweep.is_multiple_of(part) && sweep <= most);
            // As few as sweeps of whole parts allow.
            let fewest = size.div_ceil(part).div_ceil(most / part);
            assert_eq!(size.div_ceil(sweep), fewest, "{size} {part} {most}");
        }
    }

    #[test]
    fn concat_keeps_the_lists_in_order() {
        let lists: Vec<Vec<u32>> = vec![vec![1, 2], vec![], vec![3], (4..1000).collect(), vec![]];
        assert_eq!(concat(&lists), (1..1000).collect::<Vec<u32>>());
        assert!(concat::<u32>(&[]).is_empty());
    }
}
