//! The records of a threshold of the compact engine (the positions it
//! resolved, each with its verdict): sorted (a radix sort) into runs of
//! one file, which becomes the file of the positions resolved at the
//! threshold, its runs merged first (tournaments of loser trees) while
//! there are more than the final pass reads.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use super::limits::Limits;
use crate::error::{PathContext, WithPath};
use crate::solve::oware::scratch::Scratch;
use crate::solve::oware::stream::{self, RankReader, RankWriter, ScratchResult};

/// The most bits a pass of the records' sort sorts by.
const RADIX_BITS: u32 = 11;

/// The records of one threshold: sorted runs appended to one file, in the
/// rank streams' coding, which becomes the threshold's file (its runs
/// merged down to a few first if there are more).
pub(super) struct Runs {
    path: PathBuf,
    merge_ways: usize,
    merges: usize,
    kept_runs: usize,
    /// The file and each run's offset and length in it.
    file: Mutex<(File, Vec<(u64, u64)>)>,
}

impl Runs {
    pub(super) fn create(path: PathBuf, limits: Limits) -> ScratchResult<Runs> {
        let file = File::create(&path).at(&path)?;
        Ok(Runs {
            path,
            merge_ways: limits.merge_ways,
            merges: limits.merges,
            kept_runs: limits.kept_runs,
            file: Mutex::new((file, Vec::new())),
        })
    }

    /// Sorts `records` (through `sorting`) into a run of the file; leaves
    /// `records` empty.
    pub(super) fn append(
        &self,
        records: &mut Vec<u64>,
        sorting: &mut Vec<u64>,
    ) -> ScratchResult<()> {
        if records.is_empty() {
            return Ok(());
        }
        sorting.resize(records.len(), 0);
        radix_sort(records, sorting);
        let mut bytes = Vec::with_capacity(2 * records.len());
        let mut previous = 0;
        for &code in records.iter() {
            stream::encode(&mut previous, code >> 1, code & 1 != 0, &mut bytes);
        }
        records.clear();
        let mut file = self.file.lock().unwrap();
        let (f, runs) = &mut *file;
        let offset = runs.last().map_or(0, |&(o, l)| o + l);
        f.write_all(&bytes).at(&self.path)?;
        runs.push((offset, bytes.len() as u64));
        Ok(())
    }

    /// Makes the runs the streams of the file of threshold `t`, merged (a
    /// limited number at a time, into the runs of a new file) while there
    /// are more than the final pass reads.
    pub(super) fn finish(self, scratch: &Scratch, t: i8) -> ScratchResult<()> {
        let (_, mut runs) = self.file.into_inner().unwrap();
        let mut path = self.path;
        let mut generation = 0;
        while runs.len() > self.kept_runs {
            // Groups no larger than leave the runs kept, if one merge can.
            let ways = runs.len().div_ceil(self.kept_runs).min(self.merge_ways);
            generation += 1;
            let next = path.with_extension(generation.to_string());
            let file = Arc::new(File::create(&next).at(&next)?);
            // The groups merge in parallel (at most `merges` at once), each
            // where its runs began in the file it reads: merged, no entry
            // is longer than it was (the gap to the rank before it can
            // only shrink), so a group fits in the bytes of its runs.
            let merge_group = |group: &[(u64, u64)]| {
                let (start, _) = group[0];
                let &(last, len) = group.last().unwrap();
                let mut writer = RankWriter::segment(next.clone(), file.clone(), start);
                merge(&path, group, &mut writer)?;
                let merged_len = writer.close()?;
                assert!(
                    merged_len <= last + len - start,
                    "a merged group outgrew its runs"
                );
                Ok((start, merged_len))
            };
            let groups: Vec<&[(u64, u64)]> = runs.chunks(ways).collect();
            let mut merged = Vec::with_capacity(groups.len());
            let at_once = match self.merges >= rayon::current_num_threads() {
                true => groups.len(),
                false => self.merges,
            };
            for wave in groups.chunks(at_once.max(1)) {
                let wave = wave
                    .par_iter()
                    .map(|group| merge_group(group))
                    .collect::<ScratchResult<Vec<_>>>()?;
                merged.extend(wave);
            }
            fs::remove_file(&path).at(&path)?;
            (path, runs) = (next, merged);
        }
        let out = scratch.resolved(t);
        fs::rename(&path, &out).at(&out)?;
        scratch.write_runs(t, &runs)
    }
}

/// Sorts `keys` by digits from the lowest (as many passes of up to
/// [`RADIX_BITS`] as the largest key needs), through `scratch` (as long).
fn radix_sort(keys: &mut [u64], scratch: &mut [u64]) {
    debug_assert_eq!(keys.len(), scratch.len());
    let bits = 64 - keys.iter().fold(0, |all, &key| all | key).leading_zeros();
    let passes = bits.div_ceil(RADIX_BITS).max(1) as usize;
    let width = bits.div_ceil(passes as u32);
    let digit =
        |key: u64, pass: usize| ((key >> (pass as u32 * width)) & ((1 << width) - 1)) as usize;
    // Where each digit's keys start, for every pass: counted in one sweep.
    let mut starts = vec![[0u32; 1 << RADIX_BITS]; passes];
    for &key in keys.iter() {
        for (pass, counts) in starts.iter_mut().enumerate() {
            counts[digit(key, pass)] += 1;
        }
    }
    for counts in &mut starts {
        let mut start = 0;
        for count in counts.iter_mut() {
            (*count, start) = (start, start + *count);
        }
    }
    let (mut from, mut to) = (keys, scratch);
    for (pass, starts) in starts.iter_mut().enumerate() {
        for &key in from.iter() {
            let start = &mut starts[digit(key, pass)];
            to[*start as usize] = key;
            *start += 1;
        }
        (from, to) = (to, from);
    }
    // After an odd number of passes the keys are in the scratch.
    if passes % 2 == 1 {
        to.copy_from_slice(from);
    }
}

/// Writes the entries of `runs` (segments of the file at `path`) to
/// `writer` in rank order.
fn merge(path: &Path, runs: &[(u64, u64)], writer: &mut RankWriter) -> ScratchResult<()> {
    let mut readers = RankReader::open_segments(path.to_path_buf(), runs)?;
    let next = |reader: &mut RankReader| {
        Ok::<_, WithPath<io::Error>>(match reader.next_below(u64::MAX)? {
            Some((rank, flag)) => rank << 1 | u64::from(flag),
            None => Tournament::DONE,
        })
    };
    let heads = readers.iter_mut().map(next).collect::<ScratchResult<_>>()?;
    let mut tournament = Tournament::new(heads);
    loop {
        let (i, code) = tournament.winner();
        if code == Tournament::DONE {
            return Ok(());
        }
        writer.push(code >> 1, code & 1 != 0)?;
        tournament.replace(next(&mut readers[i])?);
    }
}

/// The heads of sorted sources, with the smallest found in one match a
/// level of a binary tree (a loser tree): each node keeps the loser of the
/// match between the winners of its subtrees, so when the winner's source
/// moves on, only the matches on its path are played again.
struct Tournament {
    /// The head of each source (leaves padded to a power of two).
    heads: Vec<u64>,
    /// `losers[node]`: the source that lost there (nodes `1..`, the
    /// children of `n` at `2n` and `2n + 1`, the leaves after them).
    losers: Vec<usize>,
    winner: usize,
}

impl Tournament {
    /// The head of a source with nothing left, above every key.
    const DONE: u64 = u64::MAX;

    fn new(mut heads: Vec<u64>) -> Tournament {
        let leaves = heads.len().next_power_of_two();
        heads.resize(leaves, Self::DONE);
        let mut winners: Vec<usize> = (0..2 * leaves).map(|i| i.wrapping_sub(leaves)).collect();
        let mut losers = vec![0; leaves];
        for node in (1..leaves).rev() {
            let (a, b) = (winners[2 * node], winners[2 * node + 1]);
            (winners[node], losers[node]) = if heads[b] < heads[a] { (b, a) } else { (a, b) };
        }
        let winner = if leaves == 1 { 0 } else { winners[1] };
        Tournament {
            heads,
            losers,
            winner,
        }
    }

    /// The source with the smallest head, and its head.
    fn winner(&self) -> (usize, u64) {
        (self.winner, self.heads[self.winner])
    }

    /// Replaces the winner's head with `head` and plays its path again.
    fn replace(&mut self, head: u64) {
        let mut winner = self.winner;
        self.heads[winner] = head;
        let mut node = (winner + self.heads.len()) / 2;
        while node > 0 {
            let loser = self.losers[node];
            if self.heads[loser] < self.heads[winner] {
                self.losers[node] = winner;
                winner = loser;
            }
            node /= 2;
        }
        self.winner = winner;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pseudo-random keys below `2^bits`, their bits also set in runs.
    fn keys(seed: u64, len: usize, bits: u32) -> Vec<u64> {
        let mut x = seed | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let key = if x.is_multiple_of(5) { x | 0xff0 } else { x };
                key & (u64::MAX >> (64 - bits))
            })
            .collect()
    }

    #[test]
    fn radix_sort_sorts_as_the_standard_sort() {
        for bits in [1, 7, 11, 12, 22, 23, 33, 39, 40, 63, 64] {
            for len in [0, 1, 2, 100, 5000] {
                let mut sorted = keys(u64::from(bits) * 1000 + len as u64, len, bits);
                let mut expected = sorted.clone();
                expected.sort_unstable();
                let mut scratch = vec![0; len];
                radix_sort(&mut sorted, &mut scratch);
                assert!(sorted == expected, "{bits} bits, {len} keys");
            }
        }
        let mut same = vec![42; 100];
        radix_sort(&mut same, &mut [0; 100]);
        assert!(same == [42; 100]);
    }

    #[test]
    fn a_tournament_merges_sorted_sources_as_a_sort_of_all() {
        for sources in [1, 2, 3, 5, 64, 65] {
            // Sources of every length up to 40, some empty, with ties.
            let mut runs: Vec<Vec<u64>> = (0..sources)
                .map(|i| keys(i as u64 + 7, (i * 13) % 41, 10))
                .collect();
            runs.iter_mut().for_each(|run| run.sort_unstable());
            let mut expected: Vec<u64> = runs.concat();
            expected.sort_unstable();
            let mut next = vec![0; sources];
            let head = |run: &Vec<u64>, at: usize| run.get(at).copied().unwrap_or(Tournament::DONE);
            let mut tournament = Tournament::new(runs.iter().map(|run| head(run, 0)).collect());
            let mut merged = Vec::new();
            loop {
                let (i, key) = tournament.winner();
                if key == Tournament::DONE {
                    break;
                }
                merged.push(key);
                next[i] += 1;
                tournament.replace(head(&runs[i], next[i]));
            }
            assert!(merged == expected, "{sources} sources");
        }
    }
}
