//! The scratch files of a layer built outside memory, shared by the
//! out-of-core and compact engines: each position's best exit in the file
//! of its size `|exit|` (written once by the set-up, in rank order), the
//! positions resolved at each threshold (one file a threshold), and the
//! final pass that rebuilds the values from them.

use std::fs;
use std::path::PathBuf;

use rayon::prelude::*;

use super::EngineError;
use super::rank_stream::{RankReader, RankWriter, ScratchResult};
use crate::error::PathContext;
use crate::solve::Progress;
use crate::solve::threshold::{self, NO_EXIT, Verdict};

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

    /// The positions resolved at threshold `t`, the flag set for the lost.
    pub fn resolved(&self, t: i8) -> PathBuf {
        self.dir.join(format!("resolved.{t}"))
    }
}

/// The exit files of a layer being set up, written part by part.
pub struct ExitFiles(Vec<RankWriter>);

impl ExitFiles {
    /// Creates (or empties) the files of every exit size of layer `seeds`.
    pub fn create(scratch: &Scratch, seeds: usize) -> ScratchResult<ExitFiles> {
        (0..=seeds)
            .map(|size| RankWriter::create(scratch.exits(size)))
            .collect::<ScratchResult<Vec<_>>>()
            .map(ExitFiles)
    }

    /// Appends the exits of the positions `start ..`; `no_exit` is told the
    /// rank of every position without one.
    pub fn push_part(
        &mut self,
        start: usize,
        exits: &[i8],
        mut no_exit: impl FnMut(usize),
    ) -> ScratchResult<()> {
        for (i, &exit) in exits.iter().enumerate() {
            let rank = start + i;
            if exit == NO_EXIT {
                no_exit(rank);
            } else {
                self.0[exit.unsigned_abs() as usize].push(rank as u64, exit < 0)?;
            }
        }
        Ok(())
    }

    pub fn finish(self) -> ScratchResult<()> {
        self.0.into_iter().try_for_each(RankWriter::finish)
    }
}

/// Rebuilds the values part by part from the files of resolved positions
/// (and the exits, for the marks) and hands them to `emit`.
pub fn final_pass<E: std::error::Error + 'static>(
    seeds: usize,
    size: usize,
    part: usize,
    scratch: &Scratch,
    mark: i8,
    progress: Progress,
    emit: &mut impl FnMut(&[i8], &[i8]) -> Result<(), E>,
) -> Result<(), EngineError<E>> {
    let open = |path| RankReader::open(path).map_err(EngineError::Scratch);
    let mut resolved = (1..=seeds)
        .map(|t| Ok((t as i8, open(scratch.resolved(t as i8))?)))
        .collect::<Result<Vec<_>, EngineError<E>>>()?;
    let mut exit_files = (0..=seeds)
        .map(|size| Ok((size as i8, open(scratch.exits(size))?)))
        .collect::<Result<Vec<_>, EngineError<E>>>()?;
    let mut values = vec![0i8; part.min(size)];
    let mut exits = vec![NO_EXIT; part.min(size)];
    let mut marked = vec![0i8; part.min(size)];
    for start in (0..size).step_by(part) {
        let len = part.min(size - start);
        let end = (start + len) as u64;
        let (values, exits, marked) = (&mut values[..len], &mut exits[..len], &mut marked[..len]);
        values.fill(0);
        exits.fill(NO_EXIT);
        for (t, file) in &mut resolved {
            while let Some((rank, lost)) = file.next_below(end)? {
                values[rank as usize - start] =
                    threshold::value(if lost { Verdict::Lost } else { Verdict::Won }, *t);
            }
        }
        for (size, file) in &mut exit_files {
            while let Some((rank, negative)) = file.next_below(end)? {
                exits[rank as usize - start] = if negative { -*size } else { *size };
            }
        }
        marked
            .par_iter_mut()
            .zip(values.par_iter().zip(exits.par_iter()))
            .for_each(|(m, (&v, &e))| *m = if v == e { mark } else { v });
        // Draws were never resolved: they are the last steps of the layer.
        progress(values.par_iter().filter(|&&v| v == 0).count() as u64);
        emit(values, marked).map_err(EngineError::Lower)?;
    }
    Ok(())
}
