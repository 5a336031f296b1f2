//! A table written by several processes at once: the ranks of a distributed
//! build, each holding a share of the layer in memory and no one the whole.
//!
//! Each rank codes its share's blocks into a part file of its own (shares
//! are whole blocks, so a block never straddles two ranks); for the context
//! coding, the model comes first from every share's counts, summed. The
//! ranks then learn the parts' sizes, so each knows where its blocks go,
//! and copy them into place in the table's temporary file; rank 0 writes
//! the index and header; each rank checks its own blocks, and rank 0
//! renames the file. What crosses between the ranks: the counts (a few
//! kilobytes), one number per rank per step, and the index entries (8
//! bytes a block). The file is byte for byte the one [`PendingTable`]
//! writes in one process, with the same guarantee: nothing is at the
//! table's name before every block is checked.
//!
//! A step that fails on one rank fails on all (each learns which rank
//! failed), so no rank waits for the others forever and the temporary file
//! is removed.
//!
//! [`PendingTable`]: super::PendingTable

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::block::{self, TableValue};
use super::error::TableError;
use super::header::{self, BlockCoding, IndexEntry};
use super::reader::Table;
use super::score_coding::{ScoreCoding, ScoreModel};
use super::writer::{
    BATCH_BLOCKS, Filled, TableWriter, compress_blocks, model_section, seal, sync_dir,
};
use crate::error::{PathContext, WithPath};

/// What the processes writing a table together need of each other. Every
/// method is collective: all call it, in the same order.
pub trait Collective {
    /// This process, `0..ranks()`.
    fn rank(&self) -> usize;
    /// How many processes write the table.
    fn ranks(&self) -> usize;
    /// Element-wise sums over the processes of `values`, on every one.
    fn sum_each(&self, values: &mut [u64]);
    /// Every process's `value`, in rank order, on every one.
    fn all_gather(&self, value: u64) -> Vec<u64>;
    /// Every process's `mine`, concatenated in rank order, on rank 0.
    fn gather(&self, mine: &[u8]) -> Option<Vec<u8>>;
}

/// One process's share of a table that several write together
/// ([`TableWriter::share`]).
pub struct TableShare<V: TableValue = i8> {
    settings: TableWriter,
    path: PathBuf,
    /// The share: whole blocks of the table's values (the last may end at
    /// the table's end).
    share: Range<u64>,
    /// Positions of the whole table.
    positions: u64,
    _values: std::marker::PhantomData<V>,
}

/// A share's coded blocks in its part file.
struct Part {
    path: PathBuf,
    /// Bytes of the blocks, and their CRC-32.
    bytes: u64,
    crc: u32,
    /// Each block's length and CRC-32 (of its values), in order.
    blocks: Vec<(u32, u32)>,
}

impl TableWriter {
    /// This process's share, the values `share`, of the table of
    /// `positions` values at `path` that the processes of a
    /// [`Collective`] write together. The share starts on a block boundary
    /// and ends on one or at the table's end.
    pub fn share<V: TableValue>(
        &self,
        path: impl AsRef<Path>,
        share: Range<u64>,
        positions: u64,
    ) -> Result<TableShare<V>, WithPath<TableError>> {
        let path = path.as_ref();
        self.check_settings::<V>().at(path)?;
        let mut settings = self.clone();
        if V::WIDTH != 1 {
            settings.coding = BlockCoding::Zstd;
        }
        let block = u64::from(settings.resolved_block_size());
        let whole = |at: u64| at.is_multiple_of(block) || at == positions;
        if !(whole(share.start) && whole(share.end) && share.end <= positions) {
            let reason = format!(
                "a share {share:?} of {positions} positions that is not whole blocks of {block}"
            );
            return Err(WithPath::new(path, TableError::InvalidInput { reason }));
        }
        Ok(TableShare {
            settings,
            path: path.to_owned(),
            share,
            positions,
            _values: std::marker::PhantomData,
        })
    }
}

impl<V: TableValue> TableShare<V> {
    /// Writes the share's values, `fill(first, out)` producing those of
    /// share ranks `first..first + out.len()` (any range, more than once),
    /// with the other processes of `collective`, which call it at once. On
    /// success the table is complete at its name on every process.
    pub fn write<C: Collective + ?Sized>(
        mut self,
        collective: &C,
        fill: impl Fn(usize, &mut [V]) + Sync,
    ) -> Result<(), WithPath<TableError>> {
        let rank = collective.rank();
        let tmp = super::temp_path(&self.path);
        let header_len = header::header_len(&self.settings.meta);
        let model = self.model(collective, &fill);
        if model.is_none() {
            self.settings.coding = BlockCoding::Zstd;
        }
        let section = model.as_ref().map(model_section).unwrap_or_default();
        let blocks_start = header_len + section.len() as u64;
        // Rank 0 makes the file, the header's room and the model first.
        let mut made = Made { tmp: &tmp, rank };
        let created = match rank {
            0 => create(&tmp, header_len, &section),
            _ => Ok(()),
        };
        agree(collective, created, &tmp)?;
        let part = self.code(collective, model.as_ref(), &fill, &tmp);
        let part = agree(collective, part, &tmp)?;
        let sizes = collective.all_gather(part.bytes);
        let offset = blocks_start + sizes[..rank].iter().sum::<u64>();
        agree(collective, place(&part, &tmp, offset), &tmp)?;
        // Rank 0 writes the index of every share's blocks and the header.
        let entries: Vec<u8> = (part.blocks.iter())
            .flat_map(|&(len, crc)| [len.to_le_bytes(), crc.to_le_bytes()].concat())
            .collect();
        let entries = collective.gather(&entries);
        let crcs = collective.all_gather(u64::from(part.crc));
        let sealed = match entries {
            Some(entries) => self.seal(&tmp, header_len, &section, &entries, &sizes, &crcs),
            None => Ok(()),
        };
        agree(collective, sealed, &tmp)?;
        // Each rank checks its own blocks; rank 0 also the payload's checksum.
        let block = u64::from(self.settings.resolved_block_size());
        let blocks = self.share.start / block..self.share.end.div_ceil(block);
        let checked = Table::open_with_cache(&tmp, 0).and_then(|table| {
            if rank == 0 {
                table.verify_layout()?;
            }
            table.verify_blocks(blocks)
        });
        agree(collective, checked, &tmp)?;
        let renamed = match rank {
            0 => fs::rename(&tmp, &self.path)
                .map_err(TableError::io)
                .at(&self.path)
                .and_then(|()| sync_dir(&self.path)),
            _ => Ok(()),
        };
        if renamed.is_ok() {
            made.rank = usize::MAX;
        }
        agree(collective, renamed, &self.path)
    }

    /// The context model of the whole table from every share's counts, or
    /// `None` for zstd blocks (values the coding cannot hold, anywhere).
    fn model<C: Collective + ?Sized>(
        &self,
        collective: &C,
        fill: &(impl Fn(usize, &mut [V]) + Sync),
    ) -> Option<ScoreModel> {
        let streams = self.settings.coding.streams()?;
        let coding = ScoreCoding::new(self.settings.meta.seeds)?;
        let block = self.settings.resolved_block_size() as usize;
        let values = Filled {
            len: (self.share.end - self.share.start) as usize,
            fill: |first: usize, out: &mut [i8]| {
                let mut wide = vec![V::default(); out.len()];
                fill(first, &mut wide);
                let bytes = V::to_bytes(&wide);
                out.iter_mut().zip(bytes).for_each(|(o, b)| *o = b as i8);
            },
        };
        let counts = coding.count(&values, block, streams.lanes);
        // One more slot: the shares that could not be counted.
        let mut summed = counts.clone().unwrap_or_default();
        summed.resize(coding.counts_len(), 0);
        summed.push(u64::from(counts.is_none()));
        collective.sum_each(&mut summed);
        let uncounted = summed.pop().expect("the slot pushed");
        (uncounted == 0)
            .then(|| ScoreModel::from_counts(coding, &summed, streams))
            .flatten()
    }

    /// Codes the share's blocks into its part file beside the table.
    fn code<C: Collective + ?Sized>(
        &self,
        collective: &C,
        model: Option<&ScoreModel>,
        fill: &(impl Fn(usize, &mut [V]) + Sync),
        tmp: &Path,
    ) -> Result<Part, WithPath<TableError>> {
        let mut name = tmp.as_os_str().to_owned();
        name.push(format!(".rank{}", collective.rank()));
        let path = PathBuf::from(name);
        let file = File::create(&path).map_err(TableError::io).at(&path)?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        let mut part = Part {
            path,
            bytes: 0,
            crc: 0,
            blocks: Vec::new(),
        };
        let mut crc = crc32fast::Hasher::new();
        let block = self.settings.resolved_block_size() as usize;
        let first_block = self.share.start as usize / block;
        let len = (self.share.end - self.share.start) as usize;
        for first in (0..len).step_by(block * BATCH_BLOCKS) {
            let batch = first..len.min(first + block * BATCH_BLOCKS);
            let frames = match model {
                Some(model) => (batch.clone().step_by(block))
                    .collect::<Vec<_>>()
                    .into_par_iter()
                    .map(|start| {
                        let mut values = vec![V::default(); block.min(len - start)];
                        fill(start, &mut values);
                        let bytes = V::to_bytes(&values);
                        let b = (first_block + start / block) as u64;
                        (model.encode(&bytes, b), block::crc(&bytes))
                    })
                    .collect(),
                None => {
                    let mut values = vec![V::default(); batch.len()];
                    fill(batch.start, &mut values);
                    compress_blocks(&values, block as u32, self.settings.level)
                        .map_err(TableError::io)
                        .at(&part.path)?
                }
            };
            for (frame, block_crc) in frames {
                crc.update(&frame);
                out.write_all(&frame)
                    .map_err(TableError::io)
                    .at(&part.path)?;
                // Within zstd's bound for a block of at most 16 Mi values.
                part.blocks.push((frame.len() as u32, block_crc));
                part.bytes += frame.len() as u64;
            }
        }
        out.flush().map_err(TableError::io).at(&part.path)?;
        part.crc = crc.finalize();
        Ok(part)
    }

    /// Writes the index of every share's blocks (`entries`: each block's
    /// length and CRC, in rank order) and the header, and syncs the file.
    fn seal(
        &self,
        tmp: &Path,
        header_len: u64,
        section: &[u8],
        entries: &[u8],
        sizes: &[u64],
        crcs: &[u64],
    ) -> Result<(), WithPath<TableError>> {
        let mut offset = header_len + section.len() as u64;
        let index: Vec<IndexEntry> = entries
            .chunks_exact(8)
            .map(|e| {
                let len = u32::from_le_bytes(e[..4].try_into().expect("4 bytes"));
                let entry = IndexEntry {
                    offset,
                    len,
                    crc: u32::from_le_bytes(e[4..].try_into().expect("4 bytes")),
                };
                offset += u64::from(len);
                entry
            })
            .collect();
        // The payload's CRC from the model's and each part's.
        let mut payload = crc32fast::Hasher::new();
        payload.update(section);
        for (&bytes, &crc) in sizes.iter().zip(crcs) {
            payload.combine(&crc32fast::Hasher::new_with_initial_len(crc as u32, bytes));
        }
        let header =
            (self.settings).header(self.positions, header_len, offset, &index, &mut payload);
        let file = OpenOptions::new()
            .write(true)
            .open(tmp)
            .map_err(TableError::io)
            .at(tmp)?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        (out.seek(SeekFrom::Start(offset)).map(drop))
            .and_then(|()| seal(&mut out, &index, &header))
            .map_err(TableError::io)
            .at(tmp)
    }
}

/// The table's temporary file, with room for the header and the model's
/// section after it.
fn create(tmp: &Path, header_len: u64, section: &[u8]) -> Result<(), WithPath<TableError>> {
    let write = || -> io::Result<()> {
        let mut out = File::create(tmp)?;
        out.write_all(&vec![0; header_len as usize])?;
        out.write_all(section)
    };
    write().map_err(TableError::io).at(tmp)
}

/// Copies a part into the table's temporary file at `offset`, syncs it and
/// removes the part.
fn place(part: &Part, tmp: &Path, offset: u64) -> Result<(), WithPath<TableError>> {
    let mut from = File::open(&part.path)
        .map_err(TableError::io)
        .at(&part.path)?;
    let mut copy = || -> io::Result<()> {
        let mut to = OpenOptions::new().write(true).open(tmp)?;
        to.seek(SeekFrom::Start(offset))?;
        io::copy(&mut from, &mut to)?;
        to.sync_all()
    };
    copy().map_err(TableError::io).at(tmp)?;
    fs::remove_file(&part.path)
        .map_err(TableError::io)
        .at(&part.path)
}

/// A step's outcome on every process: its own error, or that of the first
/// other rank that failed.
fn agree<C: Collective + ?Sized, T>(
    collective: &C,
    local: Result<T, WithPath<TableError>>,
    path: &Path,
) -> Result<T, WithPath<TableError>> {
    let failed = collective.all_gather(u64::from(local.is_err()));
    match local {
        Ok(_) if failed.iter().any(|&f| f != 0) => {
            let rank = failed.iter().position(|&f| f != 0).expect("a rank failed");
            Err(WithPath::new(path, TableError::OtherRank { rank }))
        }
        local => local,
    }
}

/// Rank 0's temporary file, removed unless renamed; a part file left by a
/// failed step, removed too.
struct Made<'a> {
    tmp: &'a Path,
    /// `usize::MAX` once the table is renamed.
    rank: usize,
}

impl Drop for Made<'_> {
    fn drop(&mut self) {
        if self.rank != usize::MAX {
            let mut part = self.tmp.as_os_str().to_owned();
            part.push(format!(".rank{}", self.rank));
            let _ = fs::remove_file(PathBuf::from(part));
        }
        if self.rank == 0 {
            let _ = fs::remove_file(self.tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distributed::share;
    use crate::table::{TableMeta, ValueEncoding};

    fn meta() -> TableMeta {
        TableMeta {
            game: "oware".into(),
            ruleset: "awari".into(),
            options: String::new(),
            seeds: 30,
            board_width: 6,
            encoding: ValueEncoding::ScoreOrCapture,
        }
    }

    /// Shares of layers past 2^31 and 2^32 positions, whole chunks of 32 Ki
    /// positions, are whole blocks of a value table (32 Ki) and of a
    /// distance table (2 Ki); the first block of each follows the last of
    /// the share before, counted in 64 bits; a share off a block boundary
    /// is refused.
    #[test]
    fn shares_past_2_to_the_32_are_whole_blocks() {
        let values = TableWriter::new(meta()).context_coded().block_size(1 << 15);
        let distances = TableWriter::new(meta()).block_size(1 << 11);
        for (positions, ranks) in [
            (2_740_000_000u64, 6),
            (9_000_000_000, 2),
            (5_000_000_123, 3),
        ] {
            let mut next_block = [0u64; 2];
            for rank in 0..ranks {
                let s = share(positions as usize, rank, ranks, 1 << 15);
                let span = s.start as u64..s.end as u64;
                for (i, (writer, block)) in [(&values, 1u64 << 15), (&distances, 1 << 11)]
                    .into_iter()
                    .enumerate()
                {
                    let part = writer
                        .share::<i8>("t.mtb", span.clone(), positions)
                        .unwrap();
                    assert_eq!(
                        part.share.start / block,
                        next_block[i],
                        "{positions} {rank}"
                    );
                    next_block[i] = part.share.end.div_ceil(block);
                }
            }
            assert_eq!(next_block[0], positions.div_ceil(1 << 15));
            assert_eq!(next_block[1], positions.div_ceil(1 << 11));
            // The last share starts past 2^31 positions.
            assert!(share(positions as usize, ranks - 1, ranks, 1 << 15).start > 1 << 31);
        }
        let off = (1u64 << 32) + 1024..(1 << 33);
        let error = values.share::<i8>("t.mtb", off, 1 << 34).err().unwrap();
        assert!(error.to_string().contains("not whole blocks"), "{error}");
    }
}
