//! Scratch files of the out-of-core engine: increasing ranks, each with a flag
//! bit, stored as LEB128 varints of `(rank − previous rank) << 1 | flag`.
//! Dense sets of ranks cost about a byte each; every file is written once
//! in rank order and read once (or once per threshold) in rank order.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Take, Write};
use std::path::PathBuf;

use crate::error::{PathContext, WithPath};

/// Buffer of each stream: the engine keeps up to one per layer value open.
const BUFFER: usize = 1 << 16;

/// Bytes of memory a stream takes while open.
pub const STREAM_BYTES: u64 = BUFFER as u64;

/// An I/O failure on a scratch file, with its path.
pub type ScratchResult<T> = Result<T, WithPath<io::Error>>;

pub struct RankWriter {
    path: PathBuf,
    out: BufWriter<File>,
    previous: u64,
    /// Bytes written so far.
    written: u64,
}

impl RankWriter {
    /// Creates (or empties) the file.
    pub fn create(path: PathBuf) -> ScratchResult<RankWriter> {
        let file = File::create(&path).at(&path)?;
        Ok(RankWriter {
            out: BufWriter::with_capacity(BUFFER, file),
            path,
            previous: 0,
            written: 0,
        })
    }

    /// Appends a rank, larger than the last one (or any, if first).
    #[inline]
    pub fn push(&mut self, rank: u64, flag: bool) -> ScratchResult<()> {
        let mut bytes = [0u8; 10];
        let len = encode(&mut self.previous, rank, flag, &mut bytes);
        self.written += len as u64;
        self.out.write_all(&bytes[..len]).at(&self.path)
    }

    /// Starts a new stream in the same file (its ranks from 0 again), to be
    /// read from the returned offset with [`RankReader::open_segment`].
    pub fn restart(&mut self) -> u64 {
        self.previous = 0;
        self.written
    }

    /// Bytes written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Flushes and syncs the file (a checkpoint may rely on it).
    pub fn finish(self) -> ScratchResult<()> {
        let file = self
            .out
            .into_inner()
            .map_err(|e| e.into_error())
            .at(&self.path)?;
        file.sync_all().at(&self.path)
    }
}

/// Writes the entry for `rank` after `previous` (and makes it the
/// previous) into `bytes`; returns its length.
#[inline]
pub fn encode(previous: &mut u64, rank: u64, flag: bool, bytes: &mut [u8; 10]) -> usize {
    debug_assert!(rank >= *previous);
    let mut x = ((rank - *previous) << 1) | u64::from(flag);
    *previous = rank;
    let mut len = 0;
    loop {
        let low = (x & 0x7f) as u8;
        x >>= 7;
        if x == 0 {
            bytes[len] = low;
            return len + 1;
        }
        bytes[len] = low | 0x80;
        len += 1;
    }
}

pub struct RankReader {
    path: PathBuf,
    input: BufReader<Take<File>>,
    previous: u64,
    /// The next entry, read ahead.
    next: Option<(u64, bool)>,
}

impl RankReader {
    pub fn open(path: PathBuf) -> ScratchResult<RankReader> {
        RankReader::open_segment(path, 0, u64::MAX)
    }

    /// The entries written in `len` bytes from `offset` of the file, as a
    /// file of their own.
    pub fn open_segment(path: PathBuf, offset: u64, len: u64) -> ScratchResult<RankReader> {
        let mut file = File::open(&path).at(&path)?;
        file.seek(SeekFrom::Start(offset)).at(&path)?;
        let mut reader = RankReader {
            input: BufReader::with_capacity(BUFFER, file.take(len)),
            path,
            previous: 0,
            next: None,
        };
        reader.next = reader.read()?;
        Ok(reader)
    }

    fn read(&mut self) -> ScratchResult<Option<(u64, bool)>> {
        let mut x = 0u64;
        let mut shift = 0;
        loop {
            let mut byte = [0u8];
            match self.input.read(&mut byte) {
                Ok(0) if shift == 0 => return Ok(None),
                Ok(0) => {
                    let e = io::Error::new(io::ErrorKind::UnexpectedEof, "truncated scratch file");
                    return Err(WithPath::new(&self.path, e));
                }
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(WithPath::new(&self.path, e)),
            }
            x |= u64::from(byte[0] & 0x7f) << shift;
            if byte[0] & 0x80 == 0 {
                break;
            }
            shift += 7;
        }
        self.previous += x >> 1;
        Ok(Some((self.previous, x & 1 != 0)))
    }

    /// The next entry if its rank is below `end`.
    #[inline]
    pub fn next_below(&mut self, end: u64) -> ScratchResult<Option<(u64, bool)>> {
        match self.next {
            Some((rank, flag)) if rank < end => {
                self.next = self.read()?;
                Ok(Some((rank, flag)))
            }
            _ => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_and_flags_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s");
        let entries = [
            (0, true),
            (1, false),
            (200, true),
            (1 << 40, false),
            ((1 << 40) + 3, true),
        ];
        let mut w = RankWriter::create(path.clone()).unwrap();
        for &(r, f) in &entries {
            w.push(r, f).unwrap();
        }
        w.finish().unwrap();
        let mut r = RankReader::open(path).unwrap();
        assert_eq!(r.next_below(1).unwrap(), Some((0, true)));
        assert_eq!(r.next_below(1).unwrap(), None);
        let mut rest = Vec::new();
        while let Some(e) = r.next_below(u64::MAX).unwrap() {
            rest.push(e);
        }
        assert_eq!(rest, entries[1..]);
    }
}
