//! Scratch files of the out-of-core engine: increasing ranks, each with a flag
//! bit, stored as LEB128 varints of `(rank − previous rank) << 1 | flag`.
//! Dense sets of ranks cost about a byte each; every file is written once
//! in rank order and read once (or once per threshold) in rank order.
//!
//! Most entries are a byte; one of 2 to 8 bytes is decoded a word at a
//! time (its length from the first stop bit, its 7-bit groups gathered by
//! three shifts and masks), so the bytes of a sparse stretch cost no
//! branch each.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver};

use rayon::prelude::*;

use super::read_ahead::{ReadAhead, ScratchResult};
use crate::error::{PathContext, WithPath};

/// Bytes of memory a stream takes while open: its buffer (the engine keeps
/// up to one stream per layer value open).
pub const STREAM_BYTES: u64 = 1 << 16;
/// [`STREAM_BYTES`] as a length.
const STREAM_BUFFER: usize = STREAM_BYTES as usize;

/// The longest entry: a 64-bit value in 7-bit groups.
const MAX_ENTRY: usize = 10;

/// The top bit of every byte: set in every byte of an entry but its last.
const MORE: u64 = 0x8080_8080_8080_8080;

pub struct RankWriter {
    path: PathBuf,
    /// The file, which writers of other segments of it may share.
    file: Arc<File>,
    /// Where in the file the writer's bytes begin.
    start: u64,
    /// Entries not yet written to the file.
    buffer: Vec<u8>,
    /// Bytes written to the file.
    flushed: u64,
    previous: u64,
}

impl RankWriter {
    /// Creates (or empties) the file.
    pub fn create(path: PathBuf) -> ScratchResult<RankWriter> {
        let file = Arc::new(File::create(&path).at(&path)?);
        Ok(RankWriter::segment(path, file, 0))
    }

    /// A writer of the file `file` (at `path`) from byte `start` on, beside
    /// the writers of its other segments; [`RankWriter::close`] it.
    pub fn segment(path: PathBuf, file: Arc<File>, start: u64) -> RankWriter {
        RankWriter {
            path,
            file,
            start,
            buffer: Vec::with_capacity(STREAM_BUFFER),
            flushed: 0,
            previous: 0,
        }
    }

    /// Appends a rank, larger than the last one (or any, if first).
    #[inline]
    pub fn push(&mut self, rank: u64, flag: bool) -> ScratchResult<()> {
        encode(&mut self.previous, rank, flag, &mut self.buffer);
        if self.buffer.len() > STREAM_BUFFER - MAX_ENTRY {
            self.flush()?;
        }
        Ok(())
    }

    /// Appends entries encoded elsewhere: the rank `first` (larger than the
    /// last one) with its flag, then `rest`, encoded from `first` on and
    /// ending with the rank `last`.
    pub fn append(
        &mut self,
        (first, flag): (u64, bool),
        rest: &[u8],
        last: u64,
    ) -> ScratchResult<()> {
        self.push(first, flag)?;
        // As in `push`, the buffer keeps room for an entry.
        let room = STREAM_BUFFER - MAX_ENTRY;
        if self.buffer.len() + rest.len() > room {
            self.flush()?;
        }
        if rest.len() > room {
            (self.file)
                .write_all_at(rest, self.start + self.flushed)
                .at(&self.path)?;
            self.flushed += rest.len() as u64;
        } else {
            self.buffer.extend_from_slice(rest);
        }
        self.previous = last;
        Ok(())
    }

    #[cold]
    fn flush(&mut self) -> ScratchResult<()> {
        (self.file)
            .write_all_at(&self.buffer, self.start + self.flushed)
            .at(&self.path)?;
        self.flushed += self.buffer.len() as u64;
        self.buffer.clear();
        Ok(())
    }

    /// Flushes and syncs the file (a checkpoint may rely on it).
    pub fn finish(self) -> ScratchResult<()> {
        let (file, path) = (self.file.clone(), self.path.clone());
        self.close()?;
        file.sync_all().at(&path)
    }

    /// Flushes the segment, without syncing the file; the bytes written.
    pub fn close(mut self) -> ScratchResult<u64> {
        self.flush()?;
        Ok(self.flushed)
    }
}

/// Entries of a stream encoded apart (by a thread of their own), to be
/// appended to its [`RankWriter`] in order: the first entry, the rest
/// encoded from it on, the last rank.
#[derive(Default)]
pub struct Encoded {
    first: Option<(u64, bool)>,
    rest: Vec<u8>,
    last: u64,
}

impl Encoded {
    /// Adds an entry (ranks increasing).
    #[inline]
    pub fn push(&mut self, rank: u64, flag: bool) {
        match self.first {
            None => (self.first, self.last) = (Some((rank, flag)), rank),
            Some(_) => encode(&mut self.last, rank, flag, &mut self.rest),
        }
    }

    /// Appends the entries to `writer`, after those it holds.
    pub fn append_to(&self, writer: &mut RankWriter) -> ScratchResult<()> {
        match self.first {
            Some(first) => writer.append(first, &self.rest, self.last),
            None => Ok(()),
        }
    }
}

/// Appends the entry for `rank` after `previous` (and makes it the
/// previous) to `out`.
#[inline]
pub fn encode(previous: &mut u64, rank: u64, flag: bool, out: &mut Vec<u8>) {
    debug_assert!(rank >= *previous);
    let mut x = ((rank - *previous) << 1) | u64::from(flag);
    *previous = rank;
    while x >= 0x80 {
        out.push(x as u8 | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

/// The value of the entry at the start of `bytes` and its length, or
/// `None` if they do not start with a whole one.
#[inline]
pub fn decode(bytes: &[u8]) -> Option<(u64, usize)> {
    if let Some(chunk) = bytes.first_chunk::<8>() {
        let w = u64::from_le_bytes(*chunk);
        if w & 0x80 == 0 {
            return Some((w & 0x7f, 1));
        }
        let stops = !w & MORE;
        if stops != 0 {
            // The bits up to the first stop bit, less the stop bits; their
            // 7-bit groups gathered: bytes to 14-bit quarters, 28-bit
            // halves, the value.
            let bits = stops.trailing_zeros() + 1;
            let w = w & (u64::MAX >> (64 - bits)) & !MORE;
            let w = (w & 0x007f_007f_007f_007f) | ((w & 0x7f00_7f00_7f00_7f00) >> 1);
            let w = (w & 0x0000_3fff_0000_3fff) | ((w & 0x3fff_0000_3fff_0000) >> 2);
            let w = (w & 0x0fff_ffff) | ((w & 0x0fff_ffff_0000_0000) >> 4);
            return Some((w, bits as usize / 8));
        }
    }
    let mut x = 0u64;
    for (i, &byte) in bytes.iter().take(MAX_ENTRY).enumerate() {
        x |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((x, i + 1));
        }
    }
    None
}

pub struct RankReader {
    path: PathBuf,
    /// The file, shared by the readers of its streams.
    file: Arc<File>,
    /// Where the bytes not yet read start in the file, and how many of the
    /// stream's are left.
    offset: u64,
    unread: u64,
    buffer: Box<[u8]>,
    /// The bytes of `buffer` read and not yet decoded.
    start: usize,
    end: usize,
    previous: u64,
}

impl RankReader {
    pub fn open(path: PathBuf) -> ScratchResult<RankReader> {
        let mut readers = RankReader::open_segments(path, &[(0, u64::MAX)])?;
        Ok(readers.pop().unwrap())
    }

    /// A reader of each stream of the file written in `(offset, len)` of
    /// it, as a file of its own.
    pub fn open_segments(path: PathBuf, segments: &[(u64, u64)]) -> ScratchResult<Vec<RankReader>> {
        let file = Arc::new(File::open(&path).at(&path)?);
        Ok(segments
            .iter()
            .map(|&(offset, len)| RankReader {
                path: path.clone(),
                file: file.clone(),
                offset,
                unread: len,
                buffer: vec![0; STREAM_BUFFER].into_boxed_slice(),
                start: 0,
                end: 0,
                previous: 0,
            })
            .collect())
    }

    /// The next entry if its rank is below `end`. (Inlined: most entries
    /// are a byte, and a call would cost more than decoding it.)
    #[inline(always)]
    pub fn next_below(&mut self, end: u64) -> ScratchResult<Option<(u64, bool)>> {
        let (x, len) = match decode(&self.buffer[self.start..self.end]) {
            Some(entry) => entry,
            None => match self.refill()? {
                Some(entry) => entry,
                None => return Ok(None),
            },
        };
        let rank = self.previous + (x >> 1);
        if rank >= end {
            return Ok(None);
        }
        self.start += len;
        self.previous = rank;
        Ok(Some((rank, x & 1 != 0)))
    }

    /// Reads the rest of the stream and hands it to `each` in parallel, in
    /// chunks of `chunk` consecutive entries, each entry `rank << 1 | flag`.
    /// `entries` of them (two chunks at least) are in memory at once: the
    /// chunks go round between a thread that reads them ahead
    /// ([`ReadAhead`]) and the pool, whose threads take the next one as
    /// they finish the last (no thread waits for the others between
    /// batches).
    pub fn par_for_each<E: From<WithPath<io::Error>> + Send>(
        self,
        entries: usize,
        chunk: usize,
        each: impl Fn(&[u64]) -> Result<(), E> + Sync,
    ) -> Result<(), E> {
        let buffers = (entries / chunk).max(2);
        let (done, free) = mpsc::channel();
        for _ in 0..buffers {
            done.send(Vec::with_capacity(chunk))
                .expect("the receiver is here");
        }
        let chunks = ReadAhead::spawn(
            Chunks {
                reader: self,
                chunk,
                free,
            },
            buffers,
        );
        chunks.par_bridge().try_for_each(|entries| {
            let entries = entries?;
            let done_with = each(&entries);
            // Given back even after a failure: a thread of the pool may be
            // waiting for the reader to fill it. (The reader is gone once
            // the stream has ended.)
            let _ = done.send(entries);
            done_with
        })
    }

    /// Moves the bytes not yet decoded to the front of the buffer, fills the
    /// rest from the file as far as the stream goes, and decodes the first
    /// entry (`None` at the end of the stream).
    #[cold]
    #[inline(never)]
    fn refill(&mut self) -> ScratchResult<Option<(u64, usize)>> {
        self.buffer.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
        while self.end < STREAM_BUFFER && self.unread > 0 {
            let room = (STREAM_BUFFER - self.end).min(self.unread.try_into().unwrap_or(usize::MAX));
            match self
                .file
                .read_at(&mut self.buffer[self.end..][..room], self.offset)
            {
                Ok(0) => self.unread = 0,
                Ok(n) => {
                    self.end += n;
                    self.offset += n as u64;
                    self.unread -= n as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(WithPath::new(&self.path, e)),
            }
        }
        match decode(&self.buffer[..self.end]) {
            None if self.end > 0 => {
                let e = io::Error::new(io::ErrorKind::UnexpectedEof, "truncated scratch file");
                Err(WithPath::new(&self.path, e))
            }
            entry => Ok(entry),
        }
    }
}

/// A stream's entries, `chunk` at a time, each read into a buffer the
/// pool is done with.
struct Chunks {
    reader: RankReader,
    chunk: usize,
    free: Receiver<Vec<u64>>,
}

impl Iterator for Chunks {
    type Item = ScratchResult<Vec<u64>>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut entries = self.free.recv().ok()?;
        entries.clear();
        while entries.len() < self.chunk {
            match self.reader.next_below(u64::MAX) {
                Ok(Some((rank, flag))) => entries.push(rank << 1 | u64::from(flag)),
                Ok(None) => break,
                Err(e) => return Some(Err(e)),
            }
        }
        (!entries.is_empty()).then_some(Ok(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// LEB128, a byte at a time.
    fn leb128(mut x: u64) -> Vec<u8> {
        let mut bytes = Vec::new();
        loop {
            let low = (x & 0x7f) as u8;
            x >>= 7;
            if x == 0 {
                bytes.push(low);
                return bytes;
            }
            bytes.push(low | 0x80);
        }
    }

    /// Values of every length, at and around each length's bounds, and
    /// pseudo-random ones.
    fn values() -> Vec<u64> {
        let mut values = vec![0, 1, u64::MAX, u64::MAX - 1];
        for bits in 1..64 {
            let bound = 1u64 << bits;
            values.extend([bound - 1, bound, bound + 1, bound | (bound >> 1) | 0x55]);
        }
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            values.push(x >> (x % 64));
        }
        values
    }

    #[test]
    fn entries_are_leb128_and_decode_to_their_values() {
        for x in values() {
            // The entry of x: its rank difference and flag.
            let (difference, flag) = (x >> 1, x & 1 != 0);
            let mut previous = 5;
            let mut bytes = vec![0xff];
            encode(&mut previous, 5 + difference, flag, &mut bytes);
            assert_eq!(previous, 5 + difference);
            assert_eq!(bytes[1..], leb128(x), "{x:#x}");
            // Alone, and followed by other bytes.
            assert_eq!(decode(&bytes[1..]), Some((x, bytes.len() - 1)), "{x:#x}");
            bytes.extend([0x81; 12]);
            assert_eq!(decode(&bytes[1..]), Some((x, leb128(x).len())), "{x:#x}");
            // Cut short: not a whole entry.
            let len = leb128(x).len();
            assert_eq!(decode(&bytes[1..len]), None, "{x:#x}");
        }
        assert_eq!(decode(&[]), None);
        assert_eq!(decode(&[0x80; 16]), None);
    }

    /// `len` entries of random flags, each rank a random gap below `spread`
    /// after the last (drawn from the generator state `x`).
    fn random_entries(x: &mut u64, len: usize, spread: u64) -> Vec<(u64, bool)> {
        let mut rank = 0;
        (0..len)
            .map(|_| {
                *x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                rank += (*x >> 20) % spread;
                (rank, *x >> 63 != 0)
            })
            .collect()
    }

    /// Streams much longer than the buffer, with entries across its
    /// refills, read back whole and as segments of one file.
    #[test]
    fn long_streams_and_segments_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s");
        let mut x = 1u64;
        let streams: Vec<Vec<(u64, bool)>> = [3, 1 << 20, 1 << 50]
            .into_iter()
            .map(|spread| random_entries(&mut x, 100_000, spread))
            .collect();
        // Each stream a segment of one file, a gap of unwritten bytes
        // before each.
        let file = Arc::new(File::create(&path).unwrap());
        let mut segments: Vec<(u64, u64)> = Vec::new();
        for entries in &streams {
            let start = segments.last().map_or(0, |&(o, l)| o + l) + 7;
            let mut w = RankWriter::segment(path.clone(), file.clone(), start);
            for &(r, f) in entries {
                w.push(r, f).unwrap();
            }
            let mut bytes = Vec::new();
            let mut previous = 0;
            for &(r, f) in entries {
                encode(&mut previous, r, f, &mut bytes);
            }
            let len = w.close().unwrap();
            assert_eq!(len, bytes.len() as u64);
            segments.push((start, len));
        }
        let &(last, len) = segments.last().unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), last + len);
        let readers = RankReader::open_segments(path.clone(), &segments).unwrap();
        for (entries, mut r) in streams.iter().zip(readers) {
            let mut read = Vec::new();
            while let Some(e) = r.next_below(u64::MAX).unwrap() {
                read.push(e);
            }
            assert!(read == *entries);
        }
        // A segment cut inside an entry.
        let (offset, len) = segments[2];
        let mut r = RankReader::open_segments(path, &[(offset, len - 1)])
            .unwrap()
            .remove(0);
        let error = loop {
            match r.next_below(u64::MAX) {
                Ok(Some(_)) => {}
                Ok(None) => panic!("a cut entry was read"),
                Err(e) => break e,
            }
        };
        assert!(error.to_string().contains("truncated"), "{error}");
    }

    /// Parts encoded apart and appended (some longer than the buffer, some
    /// a single entry) make the file that pushing every entry makes, and
    /// its batches handed out in parallel hold every entry once.
    #[test]
    fn appended_parts_equal_pushed_entries_and_batches_hold_each_once() {
        let dir = tempfile::tempdir().unwrap();
        let entries = random_entries(&mut 7, 300_000, 300);
        let pushed = dir.path().join("pushed");
        let mut w = RankWriter::create(pushed.clone()).unwrap();
        for &(r, f) in &entries {
            w.push(r, f).unwrap();
        }
        w.finish().unwrap();
        let appended = dir.path().join("appended");
        let mut w = RankWriter::create(appended.clone()).unwrap();
        let mut rest = entries.as_slice();
        for len in [1, 1, 150_000, 3, 1, 2_000].into_iter().cycle() {
            let (part, after) = rest.split_at(len.min(rest.len()));
            let mut bytes = Vec::new();
            let mut last = part[0].0;
            for &(r, f) in &part[1..] {
                encode(&mut last, r, f, &mut bytes);
            }
            w.append(part[0], &bytes, last).unwrap();
            rest = after;
            if rest.is_empty() {
                break;
            }
        }
        w.finish().unwrap();
        assert!(std::fs::read(&pushed).unwrap() == std::fs::read(&appended).unwrap());

        let seen = Mutex::new(Vec::new());
        let r = RankReader::open(appended).unwrap();
        r.par_for_each(10_000, 999, |chunk| {
            seen.lock().unwrap().extend_from_slice(chunk);
            Ok::<_, WithPath<io::Error>>(())
        })
        .unwrap();
        let mut seen = seen.into_inner().unwrap();
        seen.sort_unstable();
        // Sorted too: a rank may repeat, with either flag first.
        let mut expected: Vec<u64> = entries
            .iter()
            .map(|&(r, f)| r << 1 | u64::from(f))
            .collect();
        expected.sort_unstable();
        assert!(seen == expected);
    }

    /// Every chunk failing on many threads with two buffers: the failure
    /// comes back (a thread that waits for the next chunk is not left
    /// waiting for a buffer the failed ones kept).
    #[test]
    fn a_failure_of_every_chunk_ends_the_reading() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s");
        let mut w = RankWriter::create(path.clone()).unwrap();
        for r in 0..100_000 {
            w.push(r, false).unwrap();
        }
        w.finish().unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(8)
            .build()
            .unwrap();
        for _ in 0..20 {
            let r = RankReader::open(path.clone()).unwrap();
            let failed = pool.install(|| {
                r.par_for_each(2, 1, |_| {
                    Err(WithPath::new(&path, io::Error::other("full disk")))
                })
            });
            assert!(failed.is_err());
        }
    }

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
