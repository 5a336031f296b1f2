//! A layer's engine state saved at a threshold boundary, so that a killed
//! build resumes there. Every engine uses it: the in-memory engine saves its
//! values and states, the out-of-core engine its states and bits, the
//! compact engine its codes (the scratch files of the last two by then are
//! complete).
//!
//! The file: a header naming the engine, the layer (and whether the
//! in-memory engine finds its distances) and the next threshold,
//! the arrays in this machine's byte order, and a CRC-32 of all before it.
//! It is written to a temporary name and renamed, so a file at its name is
//! complete.
//!
//! In a distributed build ([`RankCheckpoints`]) each rank saves its share's
//! state in a file of its own, named by its rank, the number of ranks and
//! the next threshold, and its header names the share too. The ranks save
//! together, and a rank removes its older file only once every rank has
//! saved the newer one, so that a build killed at any moment, on any rank,
//! leaves a threshold that every rank saved: the resume starts there.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::engine::Engine;
use super::shared::EngineError;
use crate::distributed::Transport;
use crate::error::{PathContext, WithPath};
use crate::games::oware::Ruleset;

const CHECKPOINT_MAGIC: &[u8; 8] = b"MTBCKPT1";

/// The checkpoint of `engine` in a layer's scratch folder
/// ([`Engine::checkpoint_file`]).
pub fn checkpoint_path(scratch: &Path, engine: Engine) -> PathBuf {
    scratch.join(engine.checkpoint_file())
}

/// What a checkpoint's header names: the engine's run of a layer.
fn run_name(engine: Engine, levels: bool, rules: Ruleset, seeds: usize) -> String {
    let levels = if levels { " with levels" } else { "" };
    let engine = engine.checkpoint_name();
    format!("oware {} layer {seeds} {engine}{levels}", rules.name())
}

/// The checkpoint file of one layer and engine, and when it is due.
pub struct Checkpoint {
    path: PathBuf,
    header: Vec<u8>,
    /// Save at the first threshold boundary this long after the last save
    /// (or the layer's start); `None`: never save, nor resume.
    every: Option<Duration>,
    last: Instant,
}

impl Checkpoint {
    pub fn new(
        scratch: &Path,
        engine: Engine,
        levels: bool,
        rules: Ruleset,
        seeds: usize,
        every: Option<Duration>,
    ) -> Checkpoint {
        let run = run_name(engine, levels, rules, seeds);
        Checkpoint::named(checkpoint_path(scratch, engine), &run, every)
    }

    /// The checkpoint at `path` of the run its header names `run`.
    fn named(path: PathBuf, run: &str, every: Option<Duration>) -> Checkpoint {
        let mut header = CHECKPOINT_MAGIC.to_vec();
        header.extend_from_slice(format!("{run}\n").as_bytes());
        Checkpoint {
            path,
            header,
            every,
            last: Instant::now(),
        }
    }

    /// Whether to save before threshold `next` (none before the last one:
    /// the layer is nearly done).
    pub fn due(&self, next: i8) -> bool {
        next >= 1 && self.every.is_some_and(|every| self.last.elapsed() >= every)
    }

    /// Saves `arrays`; the next threshold to run is `next`. Creates the
    /// scratch folder if needed.
    pub fn save<E: std::error::Error + 'static>(
        &mut self,
        arrays: &[&[u8]],
        next: i8,
    ) -> Result<(), EngineError<E>> {
        let mut tmp = self.path.clone().into_os_string();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        let write = || -> io::Result<()> {
            if let Some(dir) = self.path.parent() {
                fs::create_dir_all(dir)?;
            }
            let file = fs::File::create(&tmp)?;
            let mut out = io::BufWriter::with_capacity(1 << 20, file);
            let mut crc = crc32fast::Hasher::new();
            let mut put = |bytes: &[u8]| -> io::Result<()> {
                crc.update(bytes);
                out.write_all(bytes)
            };
            put(&self.header)?;
            put(&[next as u8])?;
            for bytes in arrays {
                put(bytes)?;
            }
            let sum = crc.finalize();
            out.write_all(&sum.to_le_bytes())?;
            let file = out.into_inner().map_err(|e| e.into_error())?;
            file.sync_all()?;
            fs::rename(&tmp, &self.path)?;
            if let Some(dir) = self.path.parent() {
                fs::File::open(dir)?.sync_all()?;
            }
            Ok(())
        };
        write()
            .inspect_err(|_| {
                let _ = fs::remove_file(&tmp);
            })
            .at(&self.path)?;
        self.last = Instant::now();
        Ok(())
    }

    /// Loads a saved checkpoint into `arrays`; returns the next threshold,
    /// or `None` if there is none (or checkpoints are off). A checkpoint of another layer or engine,
    /// or a damaged one, is an error (the scratch folder is this layer's
    /// own); so is one whose arrays are not the sizes of `arrays`.
    pub fn load<E: std::error::Error + 'static>(
        &self,
        arrays: &mut [&mut [u8]],
    ) -> Result<Option<i8>, EngineError<E>> {
        Ok(self.read(arrays).at(&self.path)?)
    }

    fn read(&self, arrays: &mut [&mut [u8]]) -> io::Result<Option<i8>> {
        let error = |why: &str| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{why}; delete the file to build the layer from its start"),
            )
        };
        if self.every.is_none() {
            return Ok(None);
        }
        let mut file = match fs::File::open(&self.path) {
            Ok(file) => io::BufReader::with_capacity(1 << 20, file),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let mut crc = crc32fast::Hasher::new();
        let mut header = vec![0u8; self.header.len() + 1];
        file.read_exact(&mut header)
            .map_err(|_| error("not a checkpoint of this layer"))?;
        if header[..self.header.len()] != self.header[..] {
            return Err(error(
                "not a checkpoint of this layer and engine (or saved with distances \
                 turned the other way)",
            ));
        }
        crc.update(&header);
        let next = header[self.header.len()] as i8;
        for bytes in arrays.iter_mut() {
            file.read_exact(bytes)
                .map_err(|_| error("truncated checkpoint"))?;
            crc.update(bytes);
        }
        let mut sum = [0u8; 4];
        file.read_exact(&mut sum)
            .map_err(|_| error("truncated checkpoint"))?;
        if u32::from_le_bytes(sum) != crc.finalize() || file.read(&mut [0u8])? != 0 {
            return Err(error("damaged checkpoint (checksum mismatch)"));
        }
        Ok(Some(next))
    }
}

/// The checkpoints of one rank of a distributed build (see the module
/// documentation). Every method is collective.
pub struct RankCheckpoints {
    checkpoint: Checkpoint,
    scratch: PathBuf,
    /// The file name of every checkpoint of this engine, before its rank.
    engine_file: &'static str,
    rank: usize,
    ranks: usize,
}

impl RankCheckpoints {
    /// The checkpoints of share `share` of rank `rank` of `ranks`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        scratch: &Path,
        engine: Engine,
        levels: bool,
        rules: Ruleset,
        seeds: usize,
        every: Duration,
        (rank, ranks): (usize, usize),
        share: std::ops::Range<usize>,
    ) -> RankCheckpoints {
        let run = format!(
            "{} rank {rank} of {ranks}, positions {}..{}",
            run_name(engine, levels, rules, seeds),
            share.start,
            share.end
        );
        let checkpoint = Checkpoint::named(checkpoint_path(scratch, engine), &run, Some(every));
        RankCheckpoints {
            checkpoint,
            scratch: scratch.to_owned(),
            engine_file: engine.checkpoint_file(),
            rank,
            ranks,
        }
    }

    fn path(&self, next: i8) -> PathBuf {
        let (file, rank, ranks) = (self.engine_file, self.rank, self.ranks);
        self.scratch
            .join(format!("{file}.rank{rank}-of-{ranks}.next{next}"))
    }

    /// Whether to save before threshold `next`: when it is due on any rank.
    pub fn due<T: Transport>(&self, next: i8, transport: &T) -> bool {
        transport.sum(u64::from(self.checkpoint.due(next))) > 0
    }

    /// Saves this rank's `arrays` with the others'; then removes its
    /// older checkpoints.
    pub fn save<E: std::error::Error + 'static, T: Transport>(
        &mut self,
        arrays: &[&[u8]],
        next: i8,
        transport: &T,
    ) -> Result<(), EngineError<E>> {
        self.checkpoint.path = self.path(next);
        let saved = self.checkpoint.save(arrays, next);
        self.agree(saved, transport)?;
        for older in self.saved()? {
            if older != next {
                let path = self.path(older);
                fs::remove_file(&path).at(&path)?;
            }
        }
        Ok(())
    }

    /// Loads the last checkpoint every rank saved into `arrays`; returns
    /// its next threshold, or `None` if no rank saved one (or only some
    /// saved the first). Checkpoints of another number of ranks, or a set
    /// with no threshold every rank saved beyond that, are an error on
    /// every rank.
    pub fn load<E: std::error::Error + 'static, T: Transport>(
        &mut self,
        arrays: &mut [&mut [u8]],
        transport: &T,
    ) -> Result<Option<i8>, EngineError<E>> {
        let found = self
            .saved()
            .map(|next| (next.iter()).fold(0u64, |mask, &next| mask | 1 << next));
        let others = self.other_ranks::<E>().unwrap_or(0);
        let masks = transport.all_gather(*found.as_ref().unwrap_or(&0));
        let others = transport.all_gather(others as u64);
        let found = self.agree(found, transport)?;
        let refuse = |why: String| -> EngineError<E> {
            let why = format!("{why}; delete the folder to build the layer from its start");
            WithPath::new(
                &self.scratch,
                io::Error::new(io::ErrorKind::InvalidData, why),
            )
            .into()
        };
        if let Some(&ranks) = others.iter().find(|&&r| r != 0) {
            return Err(refuse(format!(
                "its checkpoints were saved by a build of {ranks} ranks, this one has {}: \
                 resume with {ranks} ranks (mpirun -np {ranks})",
                self.ranks
            )));
        }
        let common = masks.iter().fold(u64::MAX, |all, &mask| all & mask);
        // No rank saved one, or the first save was cut short (a rank killed
        // while saving it): the layer starts again.
        let any = masks.iter().fold(0, |any, &mask| any | mask);
        if any.count_ones() <= 1 && common == 0 {
            return Ok(None);
        }
        if common == 0 {
            let saved: Vec<String> = (masks.iter().enumerate())
                .map(|(rank, &mask)| {
                    let next: Vec<String> = (0..64)
                        .filter(|next| mask & 1 << next != 0)
                        .map(|next: u32| format!("threshold {next}"))
                        .collect();
                    match next.is_empty() {
                        true => format!("rank {rank} none"),
                        false => format!("rank {rank} {}", next.join(", ")),
                    }
                })
                .collect();
            return Err(refuse(format!(
                "its checkpoints are incomplete: no threshold was saved by every rank ({})",
                saved.join("; ")
            )));
        }
        let next = common.trailing_zeros() as i8;
        debug_assert!(found & 1 << next != 0);
        self.checkpoint.path = self.path(next);
        let loaded = self.checkpoint.load(arrays);
        let loaded = self.agree(loaded, transport)?;
        Ok(loaded.map(|_| next))
    }

    /// The next thresholds of this rank's checkpoints.
    fn saved<E: std::error::Error + 'static>(&self) -> Result<Vec<i8>, EngineError<E>> {
        let prefix = format!(
            "{}.rank{}-of-{}.next",
            self.engine_file, self.rank, self.ranks
        );
        Ok(self
            .names()?
            .iter()
            .filter_map(|name| name.strip_prefix(&prefix)?.parse::<i8>().ok())
            .filter(|next| (0..64).contains(next))
            .collect())
    }

    /// The number of ranks of another build's checkpoints in the folder.
    fn other_ranks<E: std::error::Error + 'static>(&self) -> Result<usize, EngineError<E>> {
        let prefix = format!("{}.rank", self.engine_file);
        Ok(self
            .names()?
            .iter()
            .filter_map(|name| {
                let rest = name.strip_prefix(&prefix)?;
                let (_, rest) = rest.split_once("-of-")?;
                rest.split('.').next()?.parse::<usize>().ok()
            })
            .find(|&ranks| ranks != self.ranks)
            .unwrap_or(0))
    }

    /// The names of the files in the scratch folder (none if it is not
    /// there).
    fn names<E: std::error::Error + 'static>(&self) -> Result<Vec<String>, EngineError<E>> {
        let entries = match fs::read_dir(&self.scratch) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(WithPath::new(&self.scratch, e).into()),
        };
        Ok(entries
            .flatten()
            .filter_map(|entry| entry.file_name().into_string().ok())
            .collect())
    }

    /// A step's outcome on every rank: its own error, or that another
    /// rank failed.
    fn agree<E: std::error::Error + 'static, R, T: Transport>(
        &self,
        local: Result<R, impl Into<EngineError<E>>>,
        transport: &T,
    ) -> Result<R, EngineError<E>> {
        let failed = transport.all_gather(u64::from(local.is_err()));
        let local = local.map_err(Into::into)?;
        match failed.iter().position(|&f| f != 0) {
            Some(rank) => {
                let why = format!("rank {rank} failed to save or load its checkpoint");
                let e = io::Error::other(why);
                Err(WithPath::new(&self.scratch, e).into())
            }
            None => Ok(local),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::thread;

    use super::*;
    use crate::distributed::Loopback;

    type Error = EngineError<std::io::Error>;

    /// Each of `ranks` threads opens its checkpoints in `scratch` and runs
    /// `step` on them; the results in rank order.
    fn on_ranks<R: Send>(
        scratch: &Path,
        ranks: usize,
        step: impl Fn(&mut RankCheckpoints, &Loopback) -> R + Sync,
    ) -> Vec<R> {
        thread::scope(|scope| {
            let runs: Vec<_> = (Loopback::group(ranks).into_iter().enumerate())
                .map(|(rank, transport)| {
                    let step = &step;
                    scope.spawn(move || {
                        let every = Duration::ZERO;
                        let share = rank * 16..(rank + 1) * 16;
                        let (rules, place) = (Ruleset::Awari, (rank, ranks));
                        let engine = Engine::InMemory;
                        let mut checkpoints = RankCheckpoints::new(
                            scratch, engine, true, rules, 9, every, place, share,
                        );
                        step(&mut checkpoints, &transport)
                    })
                })
                .collect();
            runs.into_iter().map(|r| r.join().unwrap()).collect()
        })
    }

    fn save(scratch: &Path, ranks: usize, next: i8) {
        on_ranks(scratch, ranks, |checkpoints, transport| {
            let rank = transport.rank() as u8;
            checkpoints
                .save::<std::io::Error, _>(&[&[rank, next as u8]], next, transport)
                .unwrap();
        });
    }

    /// Each rank's loaded threshold and array, or its error.
    type Loaded = Result<Option<(i8, [u8; 2])>, String>;

    fn load(scratch: &Path, ranks: usize) -> Vec<Loaded> {
        on_ranks(scratch, ranks, |checkpoints, transport| {
            let mut array = [0u8; 2];
            let loaded: Result<_, Error> = checkpoints.load(&mut [&mut array[..]], transport);
            loaded
                .map(|next| next.map(|next| (next, array)))
                .map_err(|e| e.to_string())
        })
    }

    #[test]
    fn ranks_resume_from_the_last_threshold_all_saved() {
        let dir = tempfile::tempdir().unwrap();
        let scratch = dir.path().join("build.9");
        assert_eq!(load(&scratch, 3), vec![Ok(None), Ok(None), Ok(None)]);
        save(&scratch, 3, 7);
        save(&scratch, 3, 5);
        // Each rank keeps only its last.
        assert_eq!(fs::read_dir(&scratch).unwrap().count(), 3);
        let loaded = load(&scratch, 3);
        for (rank, loaded) in loaded.into_iter().enumerate() {
            assert_eq!(loaded, Ok(Some((5, [rank as u8, 5]))));
        }
        // Rank 2 killed while saving threshold 3: the others have 3 and
        // still 5 (removed only after every rank saved), rank 2 only 5.
        for rank in 0..2 {
            let file = format!("checkpoint.in-memory.rank{rank}-of-3.next");
            fs::copy(
                scratch.join(format!("{file}5")),
                scratch.join(format!("{file}3")),
            )
            .unwrap();
        }
        let loaded = load(&scratch, 3);
        assert!(
            loaded.iter().all(|l| matches!(l, Ok(Some((5, _))))),
            "{loaded:?}"
        );
    }

    #[test]
    fn an_incomplete_set_or_another_number_of_ranks_is_refused_on_every_rank() {
        let dir = tempfile::tempdir().unwrap();
        let scratch = dir.path().join("build.9");
        save(&scratch, 2, 4);
        for loaded in load(&scratch, 3) {
            let error = loaded.unwrap_err();
            assert!(
                error.contains("saved by a build of 2 ranks") && error.contains("-np 2"),
                "{error}"
            );
        }
        // The first save cut short on rank 1: the layer starts again.
        fs::remove_file(scratch.join("checkpoint.in-memory.rank1-of-2.next4")).unwrap();
        assert_eq!(load(&scratch, 2), vec![Ok(None), Ok(None)]);
        // Rank 1's only checkpoint lost: nothing every rank saved.
        let file = "checkpoint.in-memory.rank";
        fs::copy(
            scratch.join(format!("{file}0-of-2.next4")),
            scratch.join(format!("{file}0-of-2.next2")),
        )
        .unwrap();
        fs::rename(
            scratch.join(format!("{file}0-of-2.next4")),
            scratch.join(format!("{file}1-of-2.next4")),
        )
        .unwrap();
        for loaded in load(&scratch, 2) {
            let error = loaded.unwrap_err();
            assert!(
                error.contains("incomplete")
                    && error.contains("rank 0 threshold 2; rank 1 threshold 4"),
                "{error}"
            );
        }
    }
}
