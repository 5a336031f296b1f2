//! Writing a table: compress blocks in parallel, write to a temporary name,
//! fsync, re-open and verify, and only then rename to the final name.

use std::fs::{self, File};
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use zstd::bulk::Compressor;

use memmap2::Mmap;

use super::block::{self, TableValue};
use super::error::TableError;
use super::header::{self, BlockCoding, Header, IndexEntry, MAX_BLOCK_SIZE, TableMeta};
use super::reader::Table;
use super::score_coding::{self, ScoreCoding, ScoreModel, Values};
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
pub(super) const BATCH_BLOCKS: usize = 256;

/// Writes `values` (in rank order) as a table at `path` with default settings.
pub fn write_table(
    path: impl AsRef<Path>,
    meta: &TableMeta,
    values: &[i8],
) -> Result<(), WithPath<TableError>> {
    TableWriter::new(meta.clone()).write(path, values)
}

/// Positions per block of the context coding: a probe decodes one stream
/// of [`score_coding::STREAM_LEN`] values whatever the block size, so
/// blocks need only be large enough for their index entries (16 bytes) to
/// stay small beside them.
pub const CONTEXT_BLOCK_SIZE: u32 = 1 << 12;

/// Table writer settings: metadata, block coding, block size and
/// compression level.
#[derive(Clone, Debug)]
pub struct TableWriter {
    pub(super) meta: TableMeta,
    pub(super) coding: BlockCoding,
    /// `None`: the coding's default.
    block_size: Option<u32>,
    pub(super) level: i32,
}

impl TableWriter {
    /// Default settings: zstd blocks of [`DEFAULT_BLOCK_SIZE`] at
    /// [`DEFAULT_LEVEL`].
    pub fn new(meta: TableMeta) -> Self {
        TableWriter {
            meta,
            coding: BlockCoding::Zstd,
            block_size: None,
            level: DEFAULT_LEVEL,
        }
    }

    /// Blocks context coded (coding 4) instead of zstd. The context coding
    /// needs one-byte scores of at most `seeds` (or the capture mark), in
    /// blocks of at most 32 Ki positions; other values are written with
    /// zstd.
    pub fn context_coded(mut self) -> Self {
        self.coding = BlockCoding::ScoreContextTails;
        self
    }

    /// Blocks in any coding, the read-only codings 1 to 3 too: for the
    /// tests that show tables of those codings still read.
    #[cfg(test)]
    pub(super) fn coding(mut self, coding: BlockCoding) -> Self {
        self.coding = coding;
        self
    }

    /// Positions per block, 1 ..= 16 Mi (default: [`DEFAULT_BLOCK_SIZE`] for
    /// zstd, `CONTEXT_BLOCK_SIZE` for the context coding).
    pub fn block_size(mut self, block_size: u32) -> Self {
        self.block_size = Some(block_size);
        self
    }

    pub(super) fn resolved_block_size(&self) -> u32 {
        self.block_size.unwrap_or(match self.coding.streams() {
            None => DEFAULT_BLOCK_SIZE,
            Some(_) => CONTEXT_BLOCK_SIZE,
        })
    }

    /// The header of a table of `positions` values whose index, of
    /// `index`, starts at `index_offset`; `payload` has hashed everything
    /// before the index, and hashes the index.
    pub(super) fn header(
        &self,
        positions: u64,
        header_len: u64,
        index_offset: u64,
        index: &[IndexEntry],
        payload: &mut crc32fast::Hasher,
    ) -> Header {
        for entry in index {
            payload.update(&entry.encode());
        }
        Header {
            meta: self.meta.clone(),
            coding: self.coding,
            positions,
            block_size: self.resolved_block_size(),
            block_count: index.len() as u64,
            header_len,
            index_offset,
            file_len: index_offset + index.len() as u64 * header::INDEX_ENTRY_LEN,
            payload_crc: payload.clone().finalize(),
        }
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
        let mut settings = self.clone();
        if V::WIDTH != 1 {
            settings.coding = BlockCoding::Zstd;
        }
        let spill = match settings.coding.streams() {
            None => None,
            Some(_) => {
                let mut name = tmp.clone().into_os_string();
                name.push(".values");
                let path = PathBuf::from(name);
                // Readable too: it is mapped to be coded.
                let file = fs::OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create(true)
                    .truncate(true)
                    .open(&path)
                    .map_err(TableError::io)
                    .at(&path)?;
                Some(Spill {
                    out: BufWriter::with_capacity(1 << 20, file),
                    path,
                    counts: ScoreCoding::new(self.meta.seeds).map(|coding| (coding, Vec::new())),
                    uncounted: Vec::new(),
                })
            }
        };
        let header_len = header::header_len(&self.meta);
        let mut table = PendingTable {
            settings,
            path: path.to_owned(),
            out: BufWriter::with_capacity(1 << 20, file),
            tmp,
            spill,
            header_len,
            blocks_start: header_len,
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
    pub(super) fn check_settings<V: TableValue>(&self) -> Result<(), TableError> {
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
        let block_size = self.resolved_block_size();
        let max = match self.coding.streams() {
            None => MAX_BLOCK_SIZE,
            Some(_) => score_coding::MAX_CONTEXT_BLOCK_SIZE,
        };
        if block_size == 0 || block_size > max {
            return Err(TableError::InvalidInput {
                reason: format!("block size {block_size} not in 1..={max}"),
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
    /// The values so far, for a coding that models the whole layer before
    /// coding a block.
    spill: Option<Spill>,
    header_len: u64,
    blocks_start: u64,
    /// Values of an incomplete batch, waiting for more.
    pending: Vec<V>,
    /// Values pushed so far, pending included.
    positions: u64,
    index: Vec<IndexEntry>,
    payload: crc32fast::Hasher,
    state: State,
}

/// A file of raw values beside the temporary table, and the context
/// model's counts of them, taken as they come so that the file is read
/// once, to code it.
struct Spill {
    path: PathBuf,
    out: BufWriter<File>,
    /// The coding and its counts of the values counted so far; `None` if
    /// they cannot be context coded (no coding for the table's seeds, or a
    /// value that is not a score).
    counts: Option<(ScoreCoding, Vec<u64>)>,
    /// Values spilled but not yet counted: less than a batch of blocks.
    uncounted: Vec<u8>,
}

impl Spill {
    /// Counts `values` (the next ones spilled) in whole batches of blocks
    /// of `block_size`, keeping the rest for later, or all if `last`.
    fn count(&mut self, values: &[u8], block_size: usize, lanes: usize, last: bool) {
        let Some((coding, counts)) = &mut self.counts else {
            return;
        };
        self.uncounted.extend_from_slice(values);
        let batch = block_size * BATCH_BLOCKS;
        let whole = match last {
            true => self.uncounted.len(),
            false => self.uncounted.len() - self.uncounted.len() % batch,
        };
        if whole == 0 && !last {
            return;
        }
        match coding.count(&self.uncounted[..whole], block_size, lanes) {
            Some(more) if counts.is_empty() => *counts = more,
            Some(more) => counts.iter_mut().zip(more).for_each(|(c, m)| *c += m),
            None => self.counts = None,
        }
        self.uncounted.drain(..whole);
    }
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
        if let Some(spill) = &mut self.spill {
            let bytes = V::to_bytes(values);
            let written = spill.out.write_all(&bytes);
            let path = spill.path.clone();
            let block_size = self.settings.resolved_block_size() as usize;
            let lanes = self
                .settings
                .coding
                .streams()
                .expect("a context coding")
                .lanes;
            spill.count(&bytes, block_size, lanes, false);
            return written.map_err(|e| {
                self.state = State::Failed;
                WithPath::new(&path, TableError::io(e))
            });
        }
        let batch = self.settings.resolved_block_size() as usize * BATCH_BLOCKS;
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
        if self.spill.is_some() {
            self.write_spilled()?;
        }
        let rest = std::mem::take(&mut self.pending);
        self.write_batch(&rest)?;

        let index_offset =
            self.blocks_start + self.index.iter().map(|e| u64::from(e.len)).sum::<u64>();
        let mut payload = self.payload.clone();
        let header = self.settings.header(
            self.positions,
            self.header_len,
            index_offset,
            &self.index,
            &mut payload,
        );
        let index = std::mem::take(&mut self.index);
        self.io(|out| seal(out, &index, &header))?;

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
        let frames = compress_blocks(
            values,
            self.settings.resolved_block_size(),
            self.settings.level,
        )
        .map_err(|e| self.fail(e))?;
        self.append_blocks(frames)
    }

    /// Appends coded blocks and their index entries.
    fn append_blocks(&mut self, frames: Vec<(Vec<u8>, u32)>) -> Result<(), WithPath<TableError>> {
        let mut offset = self
            .index
            .last()
            .map_or(self.blocks_start, |e| e.offset + u64::from(e.len));
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

impl PendingTable<i8> {
    /// Writes the table's `len` values as `fill(first, out)` produces them
    /// (the values of ranks `first ..`: any range, in any order, more than
    /// once), instead of their being pushed, and finishes it: a layer held
    /// in memory is coded without a copy of its values.
    pub fn finish_from(
        mut self,
        len: usize,
        fill: impl Fn(usize, &mut [i8]) + Sync,
    ) -> Result<(), WithPath<TableError>> {
        assert_eq!(self.positions, 0, "values were pushed");
        let Some(Spill { path, out, .. }) = self.spill.take() else {
            // zstd: blocks are coded as they come.
            let batch = self.settings.resolved_block_size() as usize * BATCH_BLOCKS;
            let mut values = vec![0; batch.min(len)];
            for first in (0..len).step_by(batch) {
                let values = &mut values[..batch.min(len - first)];
                fill(first, values);
                self.push(values)?;
            }
            return self.finish();
        };
        drop(out);
        let _ = fs::remove_file(&path);
        self.positions = len as u64;
        let values = Filled { len, fill };
        let block_size = self.settings.resolved_block_size() as usize;
        let lanes = self
            .settings
            .coding
            .streams()
            .expect("a context coding")
            .lanes;
        let counts = ScoreCoding::new(self.settings.meta.seeds)
            .and_then(|coding| Some((coding, coding.count(&values, block_size, lanes)?)));
        self.write_context_coded(&values, counts)?;
        self.finish()
    }
}

/// Values produced on demand ([`PendingTable::finish_from`]).
pub(super) struct Filled<F> {
    pub(super) len: usize,
    pub(super) fill: F,
}

impl<F: Fn(usize, &mut [i8]) + Sync> Values for Filled<F> {
    fn len(&self) -> usize {
        self.len
    }
    fn read<'a>(&'a self, range: Range<usize>, buffer: &'a mut Vec<u8>) -> &'a [u8] {
        buffer.resize(range.len(), 0);
        let values = bytemuck::cast_slice_mut(buffer.as_mut_slice());
        (self.fill)(range.start, values);
        buffer
    }
}

impl<V: TableValue> PendingTable<V> {
    /// Codes the spilled values ([`Self::write_context_coded`]).
    fn write_spilled(&mut self) -> Result<(), WithPath<TableError>> {
        let mut spill = self.spill.take().expect("a spill");
        let block_size = self.settings.resolved_block_size() as usize;
        let lanes = self
            .settings
            .coding
            .streams()
            .expect("a context coding")
            .lanes;
        spill.count(&[], block_size, lanes, true);
        let Spill {
            path,
            mut out,
            counts,
            ..
        } = spill;
        let spill_err = |e| WithPath::new(&path, TableError::io(e));
        out.flush().map_err(spill_err)?;
        let file = out.into_inner().map_err(|e| spill_err(e.into_error()))?;
        // SAFETY: the spill file is private to this writer and not changed
        // while mapped.
        let map = unsafe { Mmap::map(&file) }.map_err(spill_err)?;
        let result = self.write_context_coded(&map[..], counts);
        drop(map);
        let _ = fs::remove_file(&path);
        result
    }

    /// Codes the table's values by the model of their `counts` (over the
    /// whole layer): writes it, then the blocks. Values the model cannot
    /// code (`counts` is `None`: not scores of the table's seeds) are
    /// written with zstd instead.
    fn write_context_coded(
        &mut self,
        values: &(impl Values + ?Sized),
        counts: Option<(ScoreCoding, Vec<u64>)>,
    ) -> Result<(), WithPath<TableError>> {
        let block_size = self.settings.resolved_block_size() as usize;
        let streams = self.settings.coding.streams().expect("a context coding");
        let model =
            counts.and_then(|(coding, counts)| ScoreModel::from_counts(coding, &counts, streams));
        match model {
            Some(model) => self.write_coded(&model, values),
            None => {
                self.settings.coding = BlockCoding::Zstd;
                let batch = block_size * BATCH_BLOCKS;
                let mut buffer = Vec::new();
                (0..values.len()).step_by(batch).try_for_each(|first| {
                    let range = first..values.len().min(first + batch);
                    let bytes = values.read(range, &mut buffer).to_vec();
                    self.write_batch(&V::from_block(bytes))
                })
            }
        }
    }

    fn write_coded(
        &mut self,
        model: &ScoreModel,
        values: &(impl Values + ?Sized),
    ) -> Result<(), WithPath<TableError>> {
        let section = model_section(model);
        self.payload.update(&section);
        self.io(|out| out.write_all(&section))?;
        self.blocks_start = self.header_len + section.len() as u64;
        let block_size = self.settings.resolved_block_size() as usize;
        let blocks = values.len().div_ceil(block_size);
        for first in (0..blocks).step_by(BATCH_BLOCKS) {
            let frames = (first..blocks.min(first + BATCH_BLOCKS))
                .into_par_iter()
                .map_init(Vec::new, |buffer, b| {
                    let range = b * block_size..values.len().min((b + 1) * block_size);
                    let block = values.read(range, buffer);
                    (model.encode(block, b as u64), block::crc(block))
                })
                .collect();
            self.append_blocks(frames)?;
        }
        Ok(())
    }
}

/// The model's section of a context-coded table: its length, its CRC-32
/// and the model, before the blocks.
pub(super) fn model_section(model: &ScoreModel) -> Vec<u8> {
    let bytes = model.to_bytes();
    let mut section = Vec::with_capacity(8 + bytes.len());
    section.extend((bytes.len() as u32).to_le_bytes());
    section.extend(crc32fast::hash(&bytes).to_le_bytes());
    section.extend(&bytes);
    section
}

/// Each block's zstd frame and the CRC-32 of its values, compressed in parallel.
pub(super) fn compress_blocks<V: TableValue>(
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
        if let Some(spill) = &self.spill {
            let _ = fs::remove_file(&spill.path);
        }
    }
}

/// Appends the index (at the writer's position, the end of the blocks) and
/// writes the header at the start, then syncs the file.
pub(super) fn seal(
    out: &mut BufWriter<File>,
    index: &[IndexEntry],
    header: &Header,
) -> io::Result<()> {
    let index: Vec<u8> = index.iter().flat_map(|e| e.encode()).collect();
    out.write_all(&index)?;
    out.seek(SeekFrom::Start(0))?;
    out.write_all(&header.encode())?;
    out.flush()?;
    out.get_ref().sync_all()
}

/// Makes the rename durable: fsync the directory holding `path`.
pub(super) fn sync_dir(path: &Path) -> Result<(), WithPath<TableError>> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(TableError::io)
        .at(dir)
}
