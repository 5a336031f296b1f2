//! The frontier of a threshold of the compact engine: the resolved
//! positions whose parents are still to be told beyond the workers'
//! stacks, in memory up to a number of chunks, then in a scratch file.

use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;
use std::sync::Mutex;

use super::limits::Limits;
use crate::error::PathContext;
use crate::solve::oware::stream::ScratchResult;

/// Resolved positions whose parents are still to be told, beyond the
/// workers' stacks: chunks in memory up to a number, then in a scratch file
/// used as a stack of chunks.
pub(super) struct Frontier {
    path: PathBuf,
    limits: Limits,
    memory: Mutex<Vec<Vec<u64>>>,
    /// The file (once needed) and the length of each chunk in it.
    file: Mutex<Option<(File, Vec<usize>)>>,
}

impl Frontier {
    pub(super) fn create(path: PathBuf, limits: Limits) -> ScratchResult<Frontier> {
        match fs::remove_file(&path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e).at(&path),
            _ => {}
        }
        Ok(Frontier {
            path,
            limits,
            memory: Mutex::new(Vec::new()),
            file: Mutex::new(None),
        })
    }

    pub(super) fn push(&self, chunk: Vec<u64>) -> ScratchResult<()> {
        {
            let mut memory = self.memory.lock().unwrap();
            if memory.len() < self.limits.frontier_chunks {
                memory.push(chunk);
                return Ok(());
            }
        }
        let mut file = self.file.lock().unwrap();
        if file.is_none() {
            let f = fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .open(&self.path)
                .at(&self.path)?;
            *file = Some((f, Vec::new()));
        }
        let (f, lens) = file.as_mut().unwrap();
        let bytes: Vec<u8> = chunk.iter().flat_map(|c| c.to_le_bytes()).collect();
        f.seek(SeekFrom::End(0)).at(&self.path)?;
        f.write_all(&bytes).at(&self.path)?;
        lens.push(chunk.len());
        Ok(())
    }

    /// Up to `max` chunks, the file's last ones first once memory is empty.
    pub(super) fn take(&self, max: usize) -> ScratchResult<Vec<Vec<u64>>> {
        let mut chunks: Vec<Vec<u64>> = {
            let mut memory = self.memory.lock().unwrap();
            let keep = memory.len().saturating_sub(max);
            memory.split_off(keep)
        };
        let mut file = self.file.lock().unwrap();
        if let Some((f, lens)) = file.as_mut() {
            while chunks.len() < max {
                let Some(len) = lens.pop() else { break };
                let end = f.seek(SeekFrom::End(0)).at(&self.path)?;
                let start = end - 8 * len as u64;
                let mut bytes = vec![0u8; 8 * len];
                f.seek(SeekFrom::Start(start)).at(&self.path)?;
                f.read_exact(&mut bytes).at(&self.path)?;
                f.set_len(start).at(&self.path)?;
                chunks.push(
                    bytes
                        .chunks_exact(8)
                        .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
                        .collect(),
                );
            }
        }
        Ok(chunks)
    }

    pub(super) fn remove(self) -> ScratchResult<()> {
        if self.file.into_inner().unwrap().is_some() {
            fs::remove_file(&self.path).at(&self.path)?;
        }
        Ok(())
    }
}
