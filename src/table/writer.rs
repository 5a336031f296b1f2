//! Writing a table: compress blocks in parallel, write to a temporary name,
//! fsync, re-open and verify, and only then rename to the final name.

use std::ffi::OsString;
use std::fs::{self, File};
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use zstd::bulk::Compressor;

use super::block;
use super::error::TableError;
use super::header::{self, Header, IndexEntry, MAX_BLOCK_SIZE, TableMeta};
use super::reader::Table;

/// Positions per block. Measured on Awari layers (`benches/table.rs`): 16 Ki
/// costs 2% more space than 64 Ki and decodes about 3 times as fast, so a
/// probe that misses the cache stays in the tens of microseconds; 4 Ki costs
/// 7% more space.
pub const DEFAULT_BLOCK_SIZE: u32 = 1 << 14;
/// zstd level. Tables are written once and read often: 19 is 0.5% smaller
/// than 15 at half the speed (a few MB/s per core), and 22 gains nothing on
/// blocks this small.
pub const DEFAULT_LEVEL: i32 = 19;
/// Blocks compressed in one parallel batch: bounds the memory held for
/// compressed output, which is written in order between batches.
const BATCH_BLOCKS: usize = 512;

/// Writes `values` (in rank order) as a table at `path` with default settings.
pub fn write_table(
    path: impl AsRef<Path>,
    meta: &TableMeta,
    values: &[i8],
) -> Result<(), TableError> {
    TableWriter::new(meta.clone()).write(path, values)
}

/// Table writer with adjustable block size and compression level.
#[derive(Clone, Debug)]
pub struct TableWriter {
    meta: TableMeta,
    block_size: u32,
    level: i32,
}

impl TableWriter {
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
    pub fn write(&self, path: impl AsRef<Path>, values: &[i8]) -> Result<(), TableError> {
        let path = path.as_ref();
        header::check_meta(&self.meta, path)?;
        if self.block_size == 0 || self.block_size > MAX_BLOCK_SIZE {
            return Err(TableError::InvalidInput {
                path: path.to_owned(),
                reason: format!("block size {} not in 1..={MAX_BLOCK_SIZE}", self.block_size),
            });
        }
        let tmp = temp_path(path);
        let result = self
            .write_file(&tmp, values)
            .and_then(|()| Table::open_with_cache(&tmp, 0)?.verify())
            .and_then(|()| fs::rename(&tmp, path).map_err(|e| TableError::io(path, e)))
            .and_then(|()| sync_dir(path));
        if result.is_err() {
            // Best effort: the file is invalid anyway (no rename happened).
            let _ = fs::remove_file(&tmp);
        }
        result
    }

    /// Writes the whole file at `tmp` and syncs it to disk.
    fn write_file(&self, tmp: &Path, values: &[i8]) -> Result<(), TableError> {
        let io = |e| TableError::io(tmp, e);
        let file = File::create(tmp).map_err(io)?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        let header_len = header::header_len(&self.meta);
        out.write_all(&vec![0; header_len as usize]).map_err(io)?;

        let mut payload = crc32fast::Hasher::new();
        let mut index = Vec::new();
        let mut offset = header_len;
        let blocks: Vec<&[i8]> = values.chunks(self.block_size as usize).collect();
        for batch in blocks.chunks(BATCH_BLOCKS) {
            let frames = self.compress(batch).map_err(io)?;
            for (frame, crc) in frames {
                out.write_all(&frame).map_err(io)?;
                payload.update(&frame);
                let len = frame.len() as u32; // < zstd bound of a MAX_BLOCK_SIZE block
                index.push(IndexEntry { offset, len, crc });
                offset += u64::from(len);
            }
        }
        let index_offset = offset;
        for entry in &index {
            let bytes = entry.encode();
            out.write_all(&bytes).map_err(io)?;
            payload.update(&bytes);
        }

        let header = Header {
            meta: self.meta.clone(),
            positions: values.len() as u64,
            block_size: self.block_size,
            block_count: index.len() as u64,
            header_len,
            index_offset,
            file_len: index_offset + header::INDEX_ENTRY_LEN * index.len() as u64,
            payload_crc: payload.finalize(),
        };
        out.seek(SeekFrom::Start(0)).map_err(io)?;
        out.write_all(&header.encode()).map_err(io)?;
        let file = out.into_inner().map_err(|e| io(e.into_error()))?;
        file.sync_all().map_err(io)
    }

    /// Compresses a batch of blocks in parallel: (frame, CRC of the values).
    fn compress(&self, batch: &[&[i8]]) -> std::io::Result<Vec<(Vec<u8>, u32)>> {
        batch
            .par_iter()
            .map_init(
                || Compressor::new(self.level),
                |compressor, values| {
                    let compressor = compressor
                        .as_mut()
                        .map_err(|e| std::io::Error::new(e.kind(), e.to_string()))?;
                    let bytes = block::to_bytes(values);
                    Ok((block::compress(compressor, &bytes)?, block::crc(&bytes)))
                },
            )
            .collect()
    }
}

/// `dir/name` → `dir/name.tmp`: same directory, so the rename is atomic.
fn temp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().map(OsString::from).unwrap_or_default();
    name.push(".tmp");
    path.with_file_name(name)
}

/// Makes the rename durable: fsync the directory holding `path`.
fn sync_dir(path: &Path) -> Result<(), TableError> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| TableError::io(dir, e))
}
