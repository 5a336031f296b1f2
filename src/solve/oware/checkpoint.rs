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

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::engine::Engine;
use super::shared::EngineError;
use crate::error::PathContext;
use crate::games::oware::Ruleset;

const MAGIC: &[u8; 8] = b"MTBCKPT1";

/// The checkpoint of `engine` in a layer's scratch folder
/// ([`Engine::checkpoint_file`]).
pub fn checkpoint_path(scratch: &Path, engine: Engine) -> PathBuf {
    scratch.join(engine.checkpoint_file())
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
        let mut header = MAGIC.to_vec();
        let levels = if levels { " with levels" } else { "" };
        header.extend_from_slice(
            format!(
                "oware {} layer {seeds} {}{levels}\n",
                rules.name(),
                engine.checkpoint_name()
            )
            .as_bytes(),
        );
        Checkpoint {
            path: checkpoint_path(scratch, engine),
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
        let tmp = self.path.with_extension("tmp");
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
