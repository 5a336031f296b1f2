//! Writing a table: compress blocks in parallel, write to a temporary name,
//! fsync, re-open and verify, and only then rename to the final name.

use std::fs::{self, File};
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use zstd::bulk::Compressor;

use super::block::{self, TableValue};
use super::error::TableError;
use super::header::{self, Header, IndexEntry, MAX_BLOCK_SIZE, TableMeta};
use super::reader::Table;
use crate::error::{PathContext, WithPath};

/// Positions per block. Measured on Awari layers (`benches/table.rs`): 16 Ki
/// costs 2% more space than 64 Ki and decodes about 3 times as fast, so a
/// probe that misses the cache stays in the tens of microseconds; 4 Ki costs
/// 7% more space.
pub const DEFAULT_BLOCK_SIZE: u32 = 1 << 14;
/// zstd level. Tables are written once and read often: 19 is 0.5% smaller
/// than 15 at half the speed (a few MB/s per core), and 22 gains nothing on
/// blocks this small.
pub const DEFAULT_LEVEL: i32 = 19;
/// Blocks compressed in one parallel batch: enough to keep every core busy,
/// few enough that the values and frames held in memory stay small.
const BATCH_BLOCKS: usize = 256;

/// Writes `values` (in rank order) as a table at `path` with default settings.
pub fn write_table(
    path: impl AsRef<Path>,
    meta: &TableMeta,
    values: &[i8],
) -> Result<(), WithPath<TableError>> {
    TableWriter::new(meta.clone()).write(path, values)
}

/// Table writer settings: metadata, block size and compression level.
#[derive(Clone, Debug)]
pub struct TableWriter {
    meta: TableMeta,
    block_size: u32,
    level: i32,
}

impl TableWriter {
    /// A writer of tables holding `meta`, with the default block size and
    /// compression level.
    pub fn new(meta: TableMeta) -> Self {
        TableWriter {
            meta,
            block_size: DEFAULT_BLOCK_SIZE,
            level: DEFAULT_LEVEL,
        }
    }

    /// Positions per block, 1 ..= 16 Mi.
    pub fn block_size(mut self, block_size: u32) -> Self {
        self.block_size = block_size;
        self
    }

    /// zstd compression level.
    pub fn level(mut self, level: i32) -> Self {
        self.level = level;
        self
    }

    /// Writes the table. On success `path` holds a complete, verified table;
    /// on failure `path` is untouched and the temporary file is removed.
    pub fn write(&self, path: impl AsRef<Path>, values: &[i8]) -> Result<(), WithPath<TableError>> {
        self.write_values(path, values)
    }

    /// [`TableWriter::write`] for a two-byte encoding.
    pub fn write_wide(
        &self,
        path: impl AsRef<Path>,
        values: &[i16],
    ) -> Result<(), WithPath<TableError>> {
        self.write_values(path, values)
    }

    fn write_values<V: TableValue>(
        &self,
        path: impl AsRef<Path>,
        values: &[V],
    ) -> Result<(), WithPath<TableError>> {
        let mut table = self.create_for(path)?;
        table.push(values)?;
        table.finish()
    }

    /// Starts a table whose values are pushed in rank order, in pieces of any
    /// size: for layers that are produced, or imported, piece by piece.
    /// Nothing appears at `path` before [`PendingTable::finish`] succeeds.
    pub fn create(&self, path: impl AsRef<Path>) -> Result<PendingTable, WithPath<TableError>> {
        self.create_for(path)
    }

    /// [`TableWriter::create`] for values of type `V` (`i16` for a two-byte
    /// encoding).
    pub fn create_for<V: TableValue>(
        &self,
        path: impl AsRef<Path>,
    ) -> Result<PendingTable<V>, WithPath<TableError>> {
        let path = path.as_ref();
        self.check_settings::<V>().at(path)?;
        let tmp = super::temp_path(path);
        let file = File::create(&tmp).map_err(TableError::io).at(&tmp)?;
        let mut table = PendingTable {
            settings: self.clone(),
            path: path.to_owned(),
            out: BufWriter::with_capacity(1 << 20, file),
            tmp,
            header_len: header::header_len(&self.meta),
            pending: Vec::new(),
            positions: 0,
            index: Vec::new(),
            payload: crc32fast::Hasher::new(),
            state: State::Open,
        };
        // Room for the header, written last once the sizes are known.
        let zeros = vec![0; table.header_len as usize];
        table.io(|out| out.write_all(&zeros))?;
        Ok(table)
    }

    /// Fails unless the format can hold these settings with values `V`.
    fn check_settings<V: TableValue>(&self) -> Result<(), TableError> {
        header::check_meta(&self.meta)?;
        let width = self.meta.encoding.width();
        if width != V::WIDTH {
            return Err(TableError::InvalidInput {
                reason: format!(
                    "{}-byte values for the {}-byte encoding {}",
                    V::WIDTH,
                    width,
                    self.meta.encoding.name()
                ),
            });
        }
        if self.block_size == 0 || self.block_size > MAX_BLOCK_SIZE {
            return Err(TableError::InvalidInput {
                reason: format!("block size {} not in 1..={MAX_BLOCK_SIZE}", self.block_size),
            });
        }
        Ok(())
    }
}

/// A table being written: push values, then [`PendingTable::finish`].
/// Dropped unfinished (or after an error), it removes its temporary file.
pub struct PendingTable<V: TableValue = i8> {
    settings: TableWriter,
    path: PathBuf,
    tmp: PathBuf,
    out: BufWriter<File>,
    header_len: u64,
    /// Values of an incomplete batch, waiting for more.
    pending: Vec<V>,
    /// Values pushed so far, pending included.
    positions: u64,
    index: Vec<IndexEntry>,
    payload: crc32fast::Hasher,
    state: State,
}

#[derive(PartialEq)]
enum State {
    Open,
    /// A write failed: the file lacks data, so it must never be finished.
    Failed,
    Renamed,
}

impl<V: TableValue> PendingTable<V> {
    /// Appends values (the next ranks).
    pub fn push(&mut self, mut values: &[V]) -> Result<(), WithPath<TableError>> {
        self.check_open()?;
        self.positions += values.len() as u64;
        let batch = self.settings.block_size as usize * BATCH_BLOCKS;
        if !self.pending.is_empty() {
            let take = (batch - self.pending.len()).min(values.len());
            self.pending.extend_from_slice(&values[..take]);
            values = &values[take..];
            if self.pending.len() < batch {
                return Ok(());
            }
            let full = std::mem::take(&mut self.pending);
            self.write_batch(&full)?;
        }
        let whole = values.len() - values.len() % batch;
        for chunk in values[..whole].chunks(batch) {
            self.write_batch(chunk)?;
        }
        self.pending.extend_from_slice(&values[whole..]);
        Ok(())
    }

    /// Writes the index and header, syncs, re-opens and verifies the file,
    /// then renames it to its final name and syncs the directory.
    pub fn finish(mut self) -> Result<(), WithPath<TableError>> {
        self.check_open()?;
        let rest = std::mem::take(&mut self.pending);
        self.write_batch(&rest)?;

        let index_offset =
            self.header_len + self.index.iter().map(|e| u64::from(e.len)).sum::<u64>();
        let index: Vec<u8> = self.index.iter().flat_map(|e| e.encode()).collect();
        self.payload.update(&index);
        self.io(|out| out.write_all(&index))?;
        let header = Header {
            meta: self.settings.meta.clone(),
            positions: self.positions,
            block_size: self.settings.block_size,
            block_count: self.index.len() as u64,
            header_len: self.header_len,
            index_offset,
            file_len: index_offset + index.len() as u64,
            payload_crc: self.payload.clone().finalize(),
        };
        self.io(|out| {
            out.seek(SeekFrom::Start(0))?;
            out.write_all(&header.encode())?;
            out.flush()?;
            out.get_ref().sync_all()
        })?;

        // On an error below, dropping `self` removes the temporary file.
        Table::open_with_cache(&self.tmp, 0)?.verify()?;
        fs::rename(&self.tmp, &self.path)
            .map_err(TableError::io)
            .at(&self.path)?;
        self.state = State::Renamed;
        sync_dir(&self.path)
    }

    fn check_open(&self) -> Result<(), WithPath<TableError>> {
        match self.state {
            State::Open => Ok(()),
            _ => Err(WithPath::new(
                &self.path,
                TableError::InvalidInput {
                    reason: "an earlier write of this table failed".into(),
                },
            )),
        }
    }

    /// Runs a write on the temporary file, marking the table failed on error.
    fn io<T>(
        &mut self,
        f: impl FnOnce(&mut BufWriter<File>) -> io::Result<T>,
    ) -> Result<T, WithPath<TableError>> {
        f(&mut self.out).map_err(|e| self.fail(e))
    }

    fn fail(&mut self, e: io::Error) -> WithPath<TableError> {
        self.state = State::Failed;
        WithPath::new(&self.tmp, TableError::io(e))
    }

    /// Compresses whole blocks (the last may be partial only at the end of
    /// the table) in parallel and appends them in order.
    fn write_batch(&mut self, values: &[V]) -> Result<(), WithPath<TableError>> {
        let frames = compress_blocks(values, self.settings.block_size, self.settings.level)
            .map_err(|e| self.fail(e))?;
        let mut offset = self
            .index
            .last()
            .map_or(self.header_len, |e| e.offset + u64::from(e.len));
        for (frame, crc) in frames {
            self.payload.update(&frame);
            self.io(|out| out.write_all(&frame))?;
            let len = frame.len() as u32; // < zstd's bound for a MAX_BLOCK_SIZE block
            self.index.push(IndexEntry { offset, len, crc });
            offset += u64::from(len);
        }
        Ok(())
    }
}

/// Each block's zstd frame and the CRC-32 of its values, compressed in parallel.
fn compress_blocks<V: TableValue>(
    values: &[V],
    block_size: u32,
    level: i32,
) -> io::Result<Vec<(Vec<u8>, u32)>> {
    values
        .par_chunks(block_size as usize)
        .map_init(
            || Compressor::new(level),
            |compressor, block| {
                let compressor = compressor
                    .as_mut()
                    .map_err(|e| io::Error::new(e.kind(), e.to_string()))?;
                let bytes = V::to_bytes(block);
                Ok((block::compress(compressor, &bytes)?, block::crc(&bytes)))
            },
        )
        .collect()
}

impl<V: TableValue> Drop for PendingTable<V> {
    fn drop(&mut self) {
        if self.state != State::Renamed {
            // Best effort: without the rename the file was never a table.
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// Makes the rename durable: fsync the directory holding `path`.
fn sync_dir(path: &Path) -> Result<(), WithPath<TableError>> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(TableError::io)
        .at(dir)
}
