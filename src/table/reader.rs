//! Reading a table through a memory map: a probe touches one block.

use std::fs::File;
use std::ops::Range;
use std::path::{Path, PathBuf};

use memmap2::Mmap;
use rayon::prelude::*;

use super::block::{self, Fault, TableValue};
use super::cache::BlockCache;
use super::error::TableError;
use super::header::{BlockCoding, Header, INDEX_ENTRY_LEN, IndexEntry, TableMeta};
use super::score_coding::{STREAM_LEN, ScoreCoding, ScoreModel, StreamCheck};
use crate::error::{PathContext, WithPath};

/// Decoded blocks cached per table by [`Table::open`]: with the default
/// 16 Ki-position blocks, 4 MiB, so a solver can keep every lower layer open.
pub const DEFAULT_CACHE_BLOCKS: usize = 256;

/// An open table file. `Send + Sync`: probe it from many threads at once.
pub struct Table {
    path: PathBuf,
    map: Mmap,
    header: Header,
    /// The context model of a table coded with it (boxed: a `Table` is
    /// held by value in enums of layers).
    model: Option<Box<ScoreModel>>,
    /// Where the first block starts: after the header, and the model if any.
    blocks_start: u64,
    cache: BlockCache,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("path", &self.path)
            .field("meta", self.meta())
            .field("positions", &self.len())
            .field("block_size", &self.block_size())
            .finish_non_exhaustive()
    }
}

impl Table {
    /// Opens and validates a table (header and layout; block contents are
    /// checked as they are decoded, or all at once by [`Table::verify`]).
    pub fn open(path: impl AsRef<Path>) -> Result<Table, WithPath<TableError>> {
        Self::open_with_cache(path, DEFAULT_CACHE_BLOCKS)
    }

    /// Like [`Table::open`], caching up to about `cache_blocks` decoded blocks (0: none).
    pub fn open_with_cache(
        path: impl AsRef<Path>,
        cache_blocks: usize,
    ) -> Result<Table, WithPath<TableError>> {
        let path = path.as_ref();
        let file = File::open(path).map_err(TableError::io).at(path)?;
        // SAFETY: the map is read-only and table files are never modified in
        // place (writers create a new file and rename it over the old one).
        // A file truncated by someone else under us could still fault: that is
        // the documented limit of reading through mmap.
        let map = unsafe { Mmap::map(&file) }
            .map_err(TableError::io)
            .at(path)?;
        let header = Header::decode(&map).at(path)?;
        let (model, blocks_start) = match header.coding.streams() {
            None => (None, header.header_len),
            Some(_) => {
                let (model, end) = read_model(&map, &header).at(path)?;
                (Some(Box::new(model)), end)
            }
        };
        // Tables of coding 1 cache streams: as many bytes as 4 Ki blocks
        // would take. A probe of codings 2 and 3 decodes a stream only up
        // to its value, which leaves nothing whole to cache.
        let cache = BlockCache::new(match header.coding.streams() {
            None => cache_blocks,
            Some(streams) if streams.check == StreamCheck::End => {
                cache_blocks * (4096 / STREAM_LEN)
            }
            Some(_) => 0,
        });
        Ok(Table {
            path: path.to_owned(),
            map,
            header,
            model,
            blocks_start,
            cache,
        })
    }

    /// The file it was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What the header says it holds.
    pub fn meta(&self) -> &TableMeta {
        &self.header.meta
    }

    /// Number of positions (values) in the table.
    pub fn len(&self) -> u64 {
        self.header.positions
    }

    /// Whether the table holds no position.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of the file.
    pub fn file_len(&self) -> u64 {
        self.map.len() as u64
    }

    /// The CRC-32 of everything after the header (`docs/format.md`): what a
    /// distance table built from this one records.
    pub fn payload_crc(&self) -> u32 {
        self.header.payload_crc
    }

    /// How the blocks are coded.
    pub fn coding(&self) -> BlockCoding {
        self.header.coding
    }

    /// Positions per block (the last block may hold fewer).
    pub fn block_size(&self) -> u32 {
        self.header.block_size
    }

    /// Blocks in the file.
    pub fn block_count(&self) -> u64 {
        self.header.block_count
    }

    /// Ranks held by `block`; empty past the last block.
    pub fn block_range(&self, block: u64) -> Range<u64> {
        let size = u64::from(self.header.block_size);
        let start = block.saturating_mul(size).min(self.len());
        start..start.saturating_add(size).min(self.len())
    }

    /// The value at `rank` of a table of one-byte values.
    pub fn get(&self, rank: u64) -> Result<i8, WithPath<TableError>> {
        self.check_width::<i8>()
            .and_then(|()| self.value(rank))
            .at(&self.path)
    }

    /// The value at `rank` of a table of any width, widened to `i16`.
    pub fn get_wide(&self, rank: u64) -> Result<i16, WithPath<TableError>> {
        match self.meta().encoding.width() {
            1 => self.value::<i8>(rank).map(i16::from),
            _ => self.value::<i16>(rank),
        }
        .at(&self.path)
    }

    /// The values of one block of a one-byte table, checksum checked,
    /// bypassing the cache.
    pub fn decode_block(&self, block: u64) -> Result<Vec<i8>, WithPath<TableError>> {
        self.check_width::<i8>()
            .and_then(|()| self.decode_bytes(block))
            .map(i8::from_block)
            .at(&self.path)
    }

    /// All values of a one-byte table, decoded in parallel.
    pub fn decode_all(&self) -> Result<Vec<i8>, WithPath<TableError>> {
        self.check_width::<i8>()
            .and_then(|()| self.decode_all_as())
            .at(&self.path)
    }

    /// All values of a table of any width, widened to `i16`.
    pub fn decode_all_wide(&self) -> Result<Vec<i16>, WithPath<TableError>> {
        match self.meta().encoding.width() {
            1 => self
                .decode_all_as::<i8>()
                .map(|values| values.into_iter().map(i16::from).collect()),
            _ => self.decode_all_as(),
        }
        .at(&self.path)
    }

    fn value<V: TableValue>(&self, rank: u64) -> Result<V, TableError> {
        if rank >= self.len() {
            return Err(TableError::OutOfRange {
                rank,
                len: self.len(),
            });
        }
        let size = u64::from(self.header.block_size);
        let (block, at) = (rank / size, (rank % size) as usize);
        if let Some(model) = &self.model {
            // One stream of the block, not the block, is decoded: whole and
            // cached, or with stream CRCs only up to the value.
            let whole = self
                .header
                .coding
                .streams()
                .is_some_and(|s| s.check == StreamCheck::End);
            let streams = size.div_ceil(STREAM_LEN as u64);
            let key = block * streams + (at / STREAM_LEN) as u64;
            let offset = at % STREAM_LEN;
            if whole && let Some(value) = self.cache.read(key, |b| V::from_bytes(b, offset)) {
                return Ok(value);
            }
            let (frame, len, _) = self.frame(block)?;
            let mut values = [0; STREAM_LEN];
            let part = model
                .decode_part(frame, len, block, [at], &mut values)
                .map_err(|reason| TableError::BadBlock { block, reason })?;
            let value = V::from_bytes(&values, offset);
            if whole {
                self.cache.insert(key, values[..part.len()].into());
            }
            return Ok(value);
        }
        if let Some(value) = self.cache.read(block, |bytes| V::from_bytes(bytes, at)) {
            return Ok(value);
        }
        let bytes = self.decode_bytes(block)?;
        let value = V::from_bytes(&bytes, at);
        self.cache.insert(block, bytes.into_boxed_slice());
        Ok(value)
    }

    fn decode_all_as<V: TableValue>(&self) -> Result<Vec<V>, TableError> {
        let mut values = vec![V::default(); self.len() as usize];
        values
            .par_chunks_mut(self.header.block_size as usize)
            .enumerate()
            .try_for_each(|(block, out)| {
                out.copy_from_slice(&V::from_block(self.decode_bytes(block as u64)?));
                Ok(())
            })?;
        Ok(values)
    }

    /// Fails unless the table's values are `V`s.
    fn check_width<V: TableValue>(&self) -> Result<(), TableError> {
        let width = self.meta().encoding.width();
        if width == V::WIDTH {
            return Ok(());
        }
        Err(TableError::ValueWidth {
            width,
            asked: V::WIDTH,
        })
    }

    /// Checks the whole file: the payload checksum, that the index tiles the
    /// data exactly, and every block's checksum (blocks in parallel).
    pub fn verify(&self) -> Result<(), WithPath<TableError>> {
        self.verify_layout()?;
        self.verify_blocks(0..self.header.block_count)
    }

    /// Checks the blocks `blocks` (in parallel): each decodes, and to its
    /// checksum. For writers that share a table, each its own blocks.
    pub fn verify_blocks(&self, blocks: Range<u64>) -> Result<(), WithPath<TableError>> {
        blocks
            .into_par_iter()
            .try_for_each(|b| self.decode_bytes(b).map(drop))
            .at(&self.path)
    }

    /// [`Table::verify`] without decoding the blocks: for a caller that
    /// decodes them anyway (each decoded block's checksum is checked).
    pub fn verify_layout(&self) -> Result<(), WithPath<TableError>> {
        self.layout().at(&self.path)
    }

    fn layout(&self) -> Result<(), TableError> {
        let h = &self.header;
        let payload = &self.map[h.header_len as usize..];
        if crc32fast::hash(payload) != h.payload_crc {
            return Err(TableError::PayloadChecksum);
        }
        let mut next = self.blocks_start;
        for b in 0..h.block_count {
            let entry = self.entry(b);
            if entry.offset != next {
                return Err(TableError::BadBlock {
                    block: b,
                    reason: format!("starts at {}, expected {next}", entry.offset),
                });
            }
            next += u64::from(entry.len);
        }
        if next != h.index_offset {
            return Err(TableError::BadHeader {
                reason: format!("data ends at {next}, index starts at {}", h.index_offset),
            });
        }
        Ok(())
    }

    /// Fails unless the table was built for `expected`.
    pub fn expect_meta(&self, expected: &TableMeta) -> Result<(), WithPath<TableError>> {
        let found = self.meta();
        let fields: [(&'static str, String, String); 6] = [
            ("game", expected.game.clone(), found.game.clone()),
            ("ruleset", expected.ruleset.clone(), found.ruleset.clone()),
            ("options", expected.options.clone(), found.options.clone()),
            ("seeds", expected.seeds.to_string(), found.seeds.to_string()),
            (
                "board width",
                expected.board_width.to_string(),
                found.board_width.to_string(),
            ),
            (
                "value encoding",
                expected.encoding.name().into(),
                found.encoding.name().into(),
            ),
        ];
        for (field, expected, found) in fields {
            if expected != found {
                return Err(WithPath::new(
                    &self.path,
                    TableError::MetaMismatch {
                        field,
                        expected,
                        found,
                    },
                ));
            }
        }
        Ok(())
    }

    /// Fails unless the table holds exactly `positions` values.
    pub fn expect_len(&self, positions: u64) -> Result<(), WithPath<TableError>> {
        if self.len() == positions {
            return Ok(());
        }
        let error = TableError::MetaMismatch {
            field: "position count",
            expected: positions.to_string(),
            found: self.len().to_string(),
        };
        Err(WithPath::new(&self.path, error))
    }

    /// The index entry of `block` (< block_count, so within the map).
    fn entry(&self, block: u64) -> IndexEntry {
        let at = (self.header.index_offset + block * INDEX_ENTRY_LEN) as usize;
        let bytes = self.map[at..at + INDEX_ENTRY_LEN as usize]
            .try_into()
            .expect("index lies within the validated file");
        IndexEntry::decode(bytes)
    }

    /// The values at offsets of `block` of a one-byte table, decoding
    /// what they need once: `items` sorted by `offset`, each `set` to its
    /// value. A context-coded block decodes only the streams they fall in
    /// (with stream CRCs, only as far as they need).
    pub fn read_sorted<T>(
        &self,
        block: u64,
        items: &mut [T],
        offset: impl Fn(&T) -> usize,
        set: impl FnMut(&mut T, i8),
    ) -> Result<(), WithPath<TableError>> {
        self.read_sorted_values(block, items, offset, set)
            .at(&self.path)
    }

    fn read_sorted_values<T>(
        &self,
        block: u64,
        items: &mut [T],
        offset: impl Fn(&T) -> usize,
        mut set: impl FnMut(&mut T, i8),
    ) -> Result<(), TableError> {
        self.check_width::<i8>()?;
        let Some(model) = &self.model else {
            let values = self.decode_bytes(block)?;
            for item in items {
                let value = *values
                    .get(offset(item))
                    .ok_or_else(|| self.past_end(block))?;
                set(item, value as i8);
            }
            return Ok(());
        };
        let (frame, len, _) = self.frame(block)?;
        let mut values = [0; STREAM_LEN];
        let mut rest = items;
        // Each run of items in one stream decodes it once.
        while let Some(first) = rest.first() {
            let at = offset(first);
            if at >= len {
                return Err(self.past_end(block));
            }
            let start = at - at % STREAM_LEN;
            let stream = start..len.min(start + STREAM_LEN);
            let n = rest
                .iter()
                .take_while(|&item| stream.contains(&offset(item)))
                .count();
            let (run, tail) = rest.split_at_mut(n);
            model
                .decode_part(frame, len, block, run.iter().map(&offset), &mut values)
                .map_err(|reason| TableError::BadBlock { block, reason })?;
            for item in run {
                let value = values[offset(item) - start];
                set(item, value as i8);
            }
            rest = tail;
        }
        Ok(())
    }

    fn past_end(&self, block: u64) -> TableError {
        TableError::OutOfRange {
            rank: self.block_range(block).end,
            len: self.len(),
        }
    }

    /// Decodes `block`, checking its index entry's bounds and its checksum.
    fn decode_bytes(&self, block: u64) -> Result<Vec<u8>, TableError> {
        let (frame, len, crc) = self.frame(block)?;
        let decoded = match &self.model {
            None => block::decompress(frame, len, crc),
            Some(model) => model
                .decode(frame, len, block)
                .map_err(Fault::Damaged)
                .and_then(|bytes| block::checked(bytes, crc)),
        };
        decoded.map_err(|fault| match fault {
            Fault::Damaged(reason) => TableError::BadBlock { block, reason },
            Fault::Checksum => TableError::BlockChecksum { block },
        })
    }

    /// The coded bytes of `block`, its decoded length in bytes and their
    /// checksum, with the index entry's bounds checked.
    fn frame(&self, block: u64) -> Result<(&[u8], usize, u32), TableError> {
        let range = self.block_range(block);
        if range.is_empty() {
            return Err(TableError::OutOfRange {
                rank: range.start,
                len: self.len(),
            });
        }
        let entry = self.entry(block);
        let data = self.blocks_start..self.header.index_offset;
        let end = entry.offset.checked_add(u64::from(entry.len));
        if entry.offset < data.start || end.is_none_or(|end| end > data.end) {
            return Err(TableError::BadBlock {
                block,
                reason: "index entry points outside the data".into(),
            });
        }
        let frame = &self.map[entry.offset as usize..][..entry.len as usize];
        let len = (range.end - range.start) as usize * self.meta().encoding.width();
        Ok((frame, len, entry.crc))
    }
}

/// The model section of a context-coded table, at the start of the data:
/// `u32` length, `u32` CRC-32 of the model, the model. Returns the model and
/// where the first block starts.
fn read_model(map: &[u8], header: &Header) -> Result<(ScoreModel, u64), TableError> {
    let bad = |reason: String| TableError::BadHeader { reason };
    let start = header.header_len as usize;
    let data = &map[start..header.index_offset as usize];
    let word = |at: usize| {
        data.get(at..at + 4)
            .map(|w| u32::from_le_bytes(w.try_into().expect("4")))
    };
    let (Some(len), Some(crc)) = (word(0), word(4)) else {
        return Err(bad("no room for the model".into()));
    };
    let bytes = data
        .get(8..8 + len as usize)
        .ok_or_else(|| bad(format!("model of {len} bytes overruns the data")))?;
    if crc32fast::hash(bytes) != crc {
        return Err(TableError::PayloadChecksum);
    }
    let meta = &header.meta;
    let coding = ScoreCoding::new(meta.seeds)
        .filter(|_| meta.encoding.width() == 1)
        .ok_or_else(|| bad(format!("no context model for {} seeds", meta.seeds)))?;
    let streams = header.coding.streams().expect("a context coding");
    let model = ScoreModel::parse(coding, bytes, streams)
        .map_err(|reason| bad(format!("model: {reason}")))?;
    Ok((model, (start + 8 + bytes.len()) as u64))
}
