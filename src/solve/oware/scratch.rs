//! The scratch files of a layer built outside memory, shared by the
//! out-of-core and compact engines: each position's best exit in the file
//! of its size `|exit|` (written once by the set-up, in rank order), the
//! positions resolved at each threshold (one file a threshold, of one or a
//! few streams in rank order), and the
//! final pass that rebuilds the values from them; and the steps both
//! engines take around their own ([`solve_streamed`]).

use std::fs::{self, File};
use std::ops::RangeInclusive;
use std::path::PathBuf;
use std::sync::atomic::{AtomicI8, AtomicU64, Ordering};

use rayon::prelude::*;

use super::checkpoint::Checkpoint;
use super::engine::Engine;
use super::lower::LowerLayers;
use super::set_up::set_up_layer;
use super::shared::{CHUNK, Config, EngineError};
use super::stream::{Encoded, RankReader, RankWriter, ScratchResult, overlapped};
use crate::error::PathContext;
use crate::games::oware::Ruleset;
use crate::index::oware as index;
use crate::solve::Progress;
use crate::solve::phases::{Phase, Phases};
use crate::solve::threshold::{self, NO_EXIT, Verdict};

/// An engine that keeps a few arrays in memory and the rest in scratch
/// files: what it does at each step of [`solve_streamed`].
pub trait ScratchEngine {
    /// Names its checkpoint.
    const ENGINE: Engine;
    /// The arrays a checkpoint saves.
    fn arrays(&self) -> Vec<&[u8]>;
    /// The same, to load a checkpoint into.
    fn arrays_mut(&mut self) -> Vec<&mut [u8]>;
    /// Positions resolved so far.
    fn resolved(&self) -> usize;
    /// The set-up: exits into their files, the arrays' first state.
    fn set_up<L: LowerLayers<Error = E>, E: std::error::Error + 'static>(
        &mut self,
        lower: &L,
        config: &Config,
        scratch: &Scratch,
        progress: Progress,
    ) -> Result<(), EngineError<E>>;
    /// Threshold `t`, to the file of the positions resolved at `t`; its
    /// steps entered in `phases`.
    fn threshold<E: std::error::Error + 'static>(
        &mut self,
        scratch: &Scratch,
        t: i8,
        phases: &Phases,
        progress: Progress,
    ) -> Result<(), EngineError<E>>;
}

/// Solves layer `seeds` with `engine`, resuming from its checkpoint in
/// `config.scratch` if there is one. Hands the values to `emit` part by part
/// in rank order: the values, and the same with every value that is that of
/// the position's best exit replaced by `mark`. Removes the scratch files
/// when done.
#[allow(clippy::too_many_arguments)]
pub fn solve_streamed<X: ScratchEngine, L, E>(
    mut engine: X,
    rules: Ruleset,
    seeds: usize,
    lower: &L,
    config: &Config,
    mark: i8,
    progress: Progress,
    mut emit: impl FnMut(&[i8], &[i8]) -> Result<(), E>,
) -> Result<(), EngineError<E>>
where
    L: LowerLayers<Error = E>,
    E: std::error::Error + 'static,
{
    assert!(config.part > 0 && config.part.is_multiple_of(CHUNK));
    let size = index::layer_size(seeds) as usize;
    let scratch = Scratch {
        dir: config.scratch.clone(),
    };
    scratch.create()?;
    let mut checkpoint = Checkpoint::new(
        &scratch.dir,
        X::ENGINE,
        false,
        rules,
        seeds,
        config.checkpoint_every,
    );
    config.phases.enter(Phase::Checkpoint);
    let first = match checkpoint.load(&mut engine.arrays_mut())? {
        Some(next) => {
            // The set-up and the positions resolved before the checkpoint
            // were counted then; count them again so the bar ends full.
            progress((size + engine.resolved()) as u64);
            next
        }
        None => {
            config.phases.enter(Phase::SetUp);
            engine.set_up(lower, config, &scratch, progress)?;
            seeds as i8
        }
    };
    // The highest threshold whose files are not yet synced.
    let mut unsynced = first;
    for t in (1..=first).rev() {
        engine.threshold(&scratch, t, &config.phases, progress)?;
        if checkpoint.due(t - 1) {
            let arrays = engine.arrays();
            config.phases.time(Phase::Checkpoint, || {
                scratch.sync_resolved(t..=unsynced)?;
                checkpoint.save(&arrays, t - 1)
            })?;
            unsynced = t - 1;
        }
    }
    drop(engine);
    config.phases.enter(Phase::Table);
    final_pass(
        seeds,
        size,
        config.part,
        &scratch,
        mark,
        progress,
        &mut emit,
    )?;
    scratch.remove()
}

/// The scratch folder of one layer.
pub struct Scratch {
    pub dir: PathBuf,
}

impl Scratch {
    pub fn create<E: std::error::Error + 'static>(&self) -> Result<(), EngineError<E>> {
        fs::create_dir_all(&self.dir)
            .at(&self.dir)
            .map_err(EngineError::Scratch)
    }

    pub fn remove<E: std::error::Error + 'static>(&self) -> Result<(), EngineError<E>> {
        fs::remove_dir_all(&self.dir)
            .at(&self.dir)
            .map_err(EngineError::Scratch)
    }

    /// The positions whose best exit is worth `±size`, the flag set for `−size`.
    pub fn exits(&self, size: usize) -> PathBuf {
        self.dir.join(format!("exits.{size}"))
    }

    /// The positions resolved at threshold `t`, the flag set for the lost:
    /// one or more streams ([`Scratch::write_runs`]).
    pub fn resolved(&self, t: i8) -> PathBuf {
        self.dir.join(format!("resolved.{t}"))
    }

    /// Where each stream of [`Scratch::resolved`]`(t)` lies: its offset
    /// and length, 8 bytes each.
    fn runs(&self, t: i8) -> PathBuf {
        self.dir.join(format!("resolved.{t}.runs"))
    }

    /// Records the streams of the file of threshold `t` (not synced:
    /// [`Scratch::sync_resolved`] does before a checkpoint relies on them).
    pub fn write_runs(&self, t: i8, runs: &[(u64, u64)]) -> ScratchResult<()> {
        let path = self.runs(t);
        let bytes: Vec<u8> = runs
            .iter()
            .flat_map(|&(offset, len)| [offset, len])
            .flat_map(u64::to_le_bytes)
            .collect();
        fs::write(&path, bytes).at(&path)
    }

    /// Syncs the files of thresholds `thresholds` and the folder: a
    /// checkpoint after them relies on them. (Only then: the kernel writes
    /// them back meanwhile, and a crash before the checkpoint redoes them.)
    pub fn sync_resolved(&self, thresholds: RangeInclusive<i8>) -> ScratchResult<()> {
        for t in thresholds {
            for path in [self.resolved(t), self.runs(t)] {
                File::open(&path).and_then(|f| f.sync_all()).at(&path)?;
            }
        }
        File::open(&self.dir)
            .and_then(|f| f.sync_all())
            .at(&self.dir)
    }

    /// A reader of each stream of the positions resolved at `t`.
    fn open_resolved(&self, t: i8) -> ScratchResult<Vec<RankReader>> {
        let path = self.runs(t);
        let bytes = match fs::read(&path) {
            Ok(bytes) => bytes,
            // A checkpoint of a build from before the files were listed:
            // each threshold's file is one stream.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let whole = self.resolved(t);
                let len = fs::metadata(&whole).at(&whole)?.len();
                [0, len].into_iter().flat_map(u64::to_le_bytes).collect()
            }
            Err(e) => return Err(e).at(&path),
        };
        let word = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap());
        let runs: Vec<(u64, u64)> = bytes
            .chunks_exact(16)
            .map(|run| (word(&run[..8]), word(&run[8..])))
            .collect();
        RankReader::open_segments(self.resolved(t), &runs)
    }
}

/// The set-up of an engine that streams its exits ([`set_up_layer`]): each
/// position's best exit to the file of its size; `no_exit` is told the
/// rank of every position without one; `states`, if given, get the
/// counters.
#[allow(clippy::too_many_arguments)]
pub fn set_up_exits<L, E>(
    layer: (Ruleset, usize),
    config: &Config,
    lower: &L,
    scratch: &Scratch,
    states: Option<&mut [AtomicU64]>,
    progress: Progress,
    no_exit: impl Fn(usize) + Sync,
) -> Result<(), EngineError<E>>
where
    L: LowerLayers<Error = E>,
    E: std::error::Error + 'static,
{
    let mut files = ExitFiles::create(scratch, layer.1)?;
    set_up_layer(layer, config, lower, states, progress, |start, exits| {
        Ok(files.push_part(start, exits, &no_exit)?)
    })?;
    Ok(files.finish()?)
}

/// The exit files of a layer being set up, written part by part.
struct ExitFiles(Vec<RankWriter>);

impl ExitFiles {
    /// Creates (or empties) the files of every exit size of layer `seeds`.
    pub fn create(scratch: &Scratch, seeds: usize) -> ScratchResult<ExitFiles> {
        (0..=seeds)
            .map(|size| RankWriter::create(scratch.exits(size)))
            .collect::<ScratchResult<Vec<_>>>()
            .map(ExitFiles)
    }

    /// Appends the exits of the positions `start ..`; `no_exit` is told the
    /// rank of every position without one. The part is encoded in
    /// parallel, a chunk at a time, and appended in order.
    pub fn push_part(
        &mut self,
        start: usize,
        exits: &[i8],
        no_exit: &(impl Fn(usize) + Sync),
    ) -> ScratchResult<()> {
        let sizes = self.0.len();
        let chunks: Vec<Vec<Encoded>> = exits
            .par_chunks(CHUNK)
            .enumerate()
            .map(|(c, exits)| {
                let mut by_size: Vec<Encoded> = (0..sizes).map(|_| Encoded::default()).collect();
                for (i, &exit) in exits.iter().enumerate() {
                    let rank = start + c * CHUNK + i;
                    if exit == NO_EXIT {
                        no_exit(rank);
                    } else {
                        by_size[exit.unsigned_abs() as usize].push(rank as u64, exit < 0);
                    }
                }
                by_size
            })
            .collect();
        for by_size in chunks {
            for (file, encoded) in self.0.iter_mut().zip(&by_size) {
                encoded.append_to(file)?;
            }
        }
        Ok(())
    }

    pub fn finish(self) -> ScratchResult<()> {
        self.0.into_iter().try_for_each(RankWriter::finish)
    }
}

/// Rebuilds the values part by part from the files of resolved positions
/// (and the exits, for the marks) and hands them to `emit`. The next part
/// is read while `emit` takes the last: reading waits on the disk and on
/// its longest streams, `emit` on the table writer.
fn final_pass<E: std::error::Error + 'static>(
    seeds: usize,
    size: usize,
    part: usize,
    scratch: &Scratch,
    mark: i8,
    progress: Progress,
    emit: &mut impl FnMut(&[i8], &[i8]) -> Result<(), E>,
) -> Result<(), EngineError<E>> {
    let mut streams = FinalStreams::open(scratch, seeds)?;
    let starts: Vec<usize> = (0..size).step_by(part).collect();
    let len = |i: usize| part.min(size - starts[i]);
    let buffers = [
        PartValues::new(part.min(size)),
        PartValues::new(part.min(size)),
    ];
    let read = |i, values: &mut PartValues| streams.read(starts[i], &mut values.part(len(i)));
    overlapped(starts.len(), buffers, read, |i, values| {
        let mut part = values.part(len(i));
        // Draws were never resolved: they are the last steps of the layer.
        progress(part.mark(mark));
        emit(part.values, part.marked).map_err(EngineError::Lower)
    })
}

/// The streams the final pass reads: each threshold's, and each exit
/// size's.
struct FinalStreams {
    /// The streams of every threshold, each with its threshold.
    resolved: Vec<(i8, RankReader)>,
    /// The file of each exit size, with its size.
    exits: Vec<(i8, RankReader)>,
}

impl FinalStreams {
    fn open(scratch: &Scratch, seeds: usize) -> ScratchResult<FinalStreams> {
        let mut resolved = Vec::new();
        for t in 1..=seeds as i8 {
            let streams = scratch.open_resolved(t)?;
            resolved.extend(streams.into_iter().map(|file| (t, file)));
        }
        let exits = (0..=seeds)
            .map(|size| Ok((size as i8, RankReader::open(scratch.exits(size))?)))
            .collect::<ScratchResult<_>>()?;
        Ok(FinalStreams { resolved, exits })
    }

    /// The values and best exits of the positions `start ..` of `part`,
    /// every stream in parallel (a rank is in one stream of each list).
    fn read(&mut self, start: usize, part: &mut Part) -> ScratchResult<()> {
        part.values.fill(0);
        part.exits.fill(NO_EXIT);
        let end = (start + part.values.len()) as u64;
        let (value_cells, exit_cells) = (cells(part.values), cells(part.exits));
        let (resolved, exits) = rayon::join(
            || {
                self.resolved.par_iter_mut().try_for_each(|(t, file)| {
                    while let Some((rank, lost)) = file.next_below(end)? {
                        let verdict = if lost { Verdict::Lost } else { Verdict::Won };
                        value_cells[rank as usize - start]
                            .store(threshold::value(verdict, *t), Ordering::Relaxed);
                    }
                    Ok(())
                })
            },
            || {
                self.exits.par_iter_mut().try_for_each(|(size, file)| {
                    while let Some((rank, negative)) = file.next_below(end)? {
                        let exit = if negative { -*size } else { *size };
                        exit_cells[rank as usize - start].store(exit, Ordering::Relaxed);
                    }
                    Ok(())
                })
            },
        );
        resolved.and(exits)
    }
}

/// The buffers of a part of the final pass.
struct PartValues {
    values: Vec<i8>,
    exits: Vec<i8>,
    marked: Vec<i8>,
}

/// The first `len` positions of [`PartValues`].
struct Part<'a> {
    values: &'a mut [i8],
    exits: &'a mut [i8],
    marked: &'a mut [i8],
}

impl PartValues {
    fn new(len: usize) -> PartValues {
        PartValues {
            values: vec![0; len],
            exits: vec![NO_EXIT; len],
            marked: vec![0; len],
        }
    }

    fn part(&mut self, len: usize) -> Part<'_> {
        Part {
            values: &mut self.values[..len],
            exits: &mut self.exits[..len],
            marked: &mut self.marked[..len],
        }
    }
}

impl Part<'_> {
    /// The values with every one that is that of the position's best exit
    /// replaced by `mark`; returns the number of draws.
    fn mark(&mut self, mark: i8) -> u64 {
        self.marked
            .par_iter_mut()
            .zip(self.values.par_iter().zip(self.exits.par_iter()))
            .map(|(m, (&v, &e))| {
                *m = if v == e { mark } else { v };
                u64::from(v == 0)
            })
            .sum()
    }
}

/// `bytes` as cells that threads may store to side by side (what the
/// unstable `AtomicI8::from_mut_slice` does).
fn cells(bytes: &mut [i8]) -> &[AtomicI8] {
    // SAFETY: `AtomicI8` has the size and alignment of `i8`, and the
    // exclusive borrow keeps every other access out while the cells live.
    unsafe { &*(bytes as *mut [i8] as *const [AtomicI8]) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A threshold's file with its list of streams reads stream by stream;
    /// one without a list (a checkpoint of a build from before the lists)
    /// reads as one stream.
    #[test]
    fn a_threshold_file_reads_by_its_list_or_whole() {
        let dir = tempfile::tempdir().unwrap();
        let scratch = Scratch {
            dir: dir.path().to_path_buf(),
        };
        let entries: Vec<(u64, bool)> = (0..5000u64).map(|r| (r * 3 + 1, r % 7 == 0)).collect();
        let mut out = RankWriter::create(scratch.resolved(4)).unwrap();
        for &(rank, lost) in &entries {
            out.push(rank, lost).unwrap();
        }
        out.finish().unwrap();
        let read_all = |readers: Vec<RankReader>| {
            let mut read = Vec::new();
            for mut reader in readers {
                while let Some(entry) = reader.next_below(u64::MAX).unwrap() {
                    read.push(entry);
                }
            }
            read
        };
        assert_eq!(read_all(scratch.open_resolved(4).unwrap()), entries);
        let len = fs::metadata(scratch.resolved(4)).unwrap().len();
        scratch.write_runs(4, &[(0, len)]).unwrap();
        assert_eq!(read_all(scratch.open_resolved(4).unwrap()), entries);
        // A list that names no stream reads nothing: the list, not the
        // file's length, decides.
        scratch.write_runs(4, &[]).unwrap();
        assert_eq!(read_all(scratch.open_resolved(4).unwrap()), []);
        assert!(scratch.open_resolved(5).is_err());
    }
}
