//! Lookups into lower layers that are read only in order. A sweep of a
//! layer defers each capture into such a layer to a bucket of its layer and
//! rank range, and keeps the values it could compute without them (best
//! exits so far) in a file ([`Deferred`]); each bucket is then answered by
//! one read of its range; a second sweep reads the kept values back with
//! the answers folded in, in rank order ([`Answers`]). So a lower layer
//! larger than memory is read once per sweep, sequentially, instead of at
//! random.
//!
//! On disk, in the sweep's scratch folder: the kept values and the number
//! of each position's deferred lookups (1 byte a position each); per
//! bucket its lookups (the child's offset in the bucket, 4 bytes) and then
//! their answers (1 byte), in the askers' order; and per lookup, in the
//! askers' order, its bucket (1 byte: there are at most 256). The counts
//! let a part's answers be folded in by chunks in parallel: each chunk
//! knows its lookups.

use std::fs::{self, File};
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::read_ahead::{ReadAhead, ScratchResult};
use crate::error::{PathContext, WithPath};
use crate::index::oware as index;
use crate::solve::array;
use crate::solve::oware::lower::{Lookup, LowerLayers};
use crate::solve::oware::shared::{CHUNK, EngineError};

/// Most buckets of one sweep: each is an open file while the sweep writes
/// its lookups and while the answers are read back.
/// (The streams' buffers, 2 MiB at most, come out of the builds' fixed
/// reserve.)
const MAX_BUCKETS: u64 = 256;
/// Buffer of each bucket's stream.
const BUCKET_BUFFER: usize = 1 << 13;
/// Peak bytes of a sweep's files per position swept: the kept value and
/// the count of lookups (1 each), and per lookup (fewer than one a
/// position) its offset in the bucket (4) and the bucket (1).
/// `scripts/derive/engine-footprint.sh DIR 20` measures it (its compact run
/// streams the lower layers it cannot keep).
pub const DEFERRED_BYTES_PER_POSITION: f64 = 6.0;
/// Lookups of a bucket answered at once (and as many read ahead).
const ANSWER_BATCH: usize = 1 << 19;

/// The deferred lookups of a chunk of a part, encoded: per bucket their
/// offsets, their buckets, and per asker (from the chunk's first) how
/// many.
struct DeferredChunk {
    offsets: Vec<Vec<u8>>,
    ids: Vec<u8>,
    counts: Vec<u8>,
}

/// One bucket: ranks `first .. first + len` of lower layer `seeds`.
#[derive(Clone, Copy, Debug)]
struct Bucket {
    seeds: usize,
    first: u64,
    len: u64,
}

/// A sweep's lookups into the layers read in order, written to their
/// buckets as they come.
pub struct Deferred<'a, L> {
    lower: &'a L,
    /// The layer swept, from rank `first`.
    seeds: usize,
    first: u64,
    dir: PathBuf,
    kept: BufWriter<File>,
    /// Positions kept so far.
    kept_len: u64,
    /// The lookups of the positions from `first + kept_len` on, not yet
    /// kept.
    pending: Vec<u8>,
    counts: BufWriter<File>,
    buckets: Vec<Bucket>,
    /// Per lower layer (by seeds) the id of its first bucket; `None` if it
    /// is not read in order.
    first_bucket: Vec<Option<u16>>,
    positions: u64,
    lookups: Vec<BufWriter<File>>,
    ids: BufWriter<File>,
}

impl<'a, L: LowerLayers> Deferred<'a, L> {
    /// Buckets in `dir` for the lookups of a layer of `seeds`, swept from
    /// rank `first`, into the layers of `lower` read in order, of at most
    /// `positions` a bucket (or more, if that would take more than the most
    /// buckets allowed); `None` if no layer below `seeds` is read in order.
    pub fn create(
        dir: &Path,
        seeds: usize,
        first: u64,
        lower: &'a L,
        positions: u64,
    ) -> ScratchResult<Option<Deferred<'a, L>>> {
        let in_order: Vec<usize> = (0..seeds).filter(|&s| lower.in_order(s)).collect();
        if in_order.is_empty() {
            return Ok(None);
        }
        let total: u64 = in_order.iter().map(|&s| index::layer_size(s)).sum();
        // Every layer can add one bucket by rounding up.
        let room = MAX_BUCKETS - in_order.len() as u64;
        let positions = positions.max(total.div_ceil(room)).max(1);
        let mut buckets = Vec::new();
        let mut first_bucket = vec![None; seeds];
        for &s in &in_order {
            first_bucket[s] = Some(buckets.len() as u16);
            let size = index::layer_size(s);
            buckets.extend((0..size).step_by(positions as usize).map(|first| Bucket {
                seeds: s,
                first,
                len: positions.min(size - first),
            }));
        }
        // A lookup names its bucket in one byte.
        assert!(buckets.len() <= MAX_BUCKETS as usize, "too many buckets");
        fs::create_dir_all(dir).at(dir)?;
        let lookups = (0..buckets.len())
            .map(|b| create(&lookups_path(dir, b)))
            .collect::<ScratchResult<_>>()?;
        Ok(Some(Deferred {
            lower,
            seeds,
            first,
            kept: create(&dir.join("kept"))?,
            kept_len: 0,
            pending: Vec::new(),
            counts: create(&dir.join("counts"))?,
            ids: create(&dir.join("buckets"))?,
            dir: dir.to_path_buf(),
            buckets,
            first_bucket,
            positions,
            lookups,
        }))
    }

    /// Whether lookups into layer `seeds` are deferred.
    #[inline]
    pub fn defers(&self, seeds: usize) -> bool {
        self.first_bucket[seeds].is_some()
    }

    /// Defers the lookup of rank `rank` of layer `seeds` (one that
    /// [`defers`](Self::defers)) for the position `asker` of the sweep's
    /// layer, not yet kept; askers come in increasing order.
    #[inline]
    pub fn push(&mut self, asker: u64, seeds: usize, rank: u64) -> ScratchResult<()> {
        let (id, offset) = self.place(seeds, rank).expect("a layer read in order");
        let dir = &self.dir;
        self.lookups[id]
            .write_all(&offset.to_le_bytes())
            .map_err(|e| WithPath::new(lookups_path(dir, id), e))?;
        self.ids
            .write_all(&[id as u8])
            .map_err(|e| WithPath::new(dir.join("buckets"), e))?;
        self.count(asker, &[1]);
        Ok(())
    }

    /// Adds `counts` to the lookups of the positions from `asker` on.
    fn count(&mut self, asker: u64, counts: &[u8]) {
        let at = (asker - self.first - self.kept_len) as usize;
        if self.pending.len() < at + counts.len() {
            self.pending.resize(at + counts.len(), 0);
        }
        for (pending, count) in self.pending[at..].iter_mut().zip(counts) {
            *pending += count;
        }
    }

    /// The bucket of rank `rank` of layer `seeds` and the offset in it, if
    /// lookups into that layer are deferred.
    #[inline]
    fn place(&self, seeds: usize, rank: u64) -> Option<(usize, u32)> {
        let first = self.first_bucket[seeds]?;
        let id = first as usize + (rank / self.positions) as usize;
        Some((id, (rank % self.positions) as u32))
    }

    /// Defers the lookups of a part into the layers read in order, and
    /// leaves the others in `per_chunk`: its lookups by chunk of `chunk`
    /// positions from `start`, each chunk's in its askers' order (a
    /// lookup's `slot` its asker's offset in the chunk). Parts come in rank
    /// order. The chunks are encoded in parallel and written in order.
    pub fn defer_part(
        &mut self,
        start: u64,
        chunk_len: u64,
        per_chunk: &mut [Vec<Lookup>],
    ) -> ScratchResult<()> {
        let this = &*self;
        let encoded: Vec<DeferredChunk> = per_chunk
            .par_iter_mut()
            .map(|lookups| {
                let mut out = DeferredChunk {
                    offsets: vec![Vec::new(); this.buckets.len()],
                    ids: Vec::new(),
                    counts: Vec::new(),
                };
                for l in lookups.iter() {
                    let Some((id, offset)) = this.place(l.seeds as usize, l.rank) else {
                        continue;
                    };
                    out.offsets[id].extend_from_slice(&offset.to_le_bytes());
                    out.ids.push(id as u8);
                    let slot = l.slot as usize;
                    if out.counts.len() <= slot {
                        out.counts.resize(slot + 1, 0);
                    }
                    out.counts[slot] += 1;
                }
                lookups.retain(|l| !this.defers(l.seeds as usize));
                out
            })
            .collect();
        // The buckets' files are written in parallel, each its chunks in order.
        let dir = &self.dir;
        self.lookups
            .par_iter_mut()
            .enumerate()
            .try_for_each(|(id, file)| {
                encoded.iter().try_for_each(|chunk| {
                    file.write_all(&chunk.offsets[id])
                        .map_err(|e| WithPath::new(lookups_path(dir, id), e))
                })
            })?;
        for (c, chunk) in encoded.into_iter().enumerate() {
            self.ids
                .write_all(&chunk.ids)
                .map_err(|e| WithPath::new(self.dir.join("buckets"), e))?;
            self.count(start + c as u64 * chunk_len, &chunk.counts);
        }
        Ok(())
    }

    /// Keeps the values of the next positions of the sweep, in rank order,
    /// with the counts of their lookups.
    pub fn keep(&mut self, values: &[i8]) -> ScratchResult<()> {
        let len = values.len();
        self.pending.resize(self.pending.len().max(len), 0);
        let path = self.dir.join("kept");
        self.kept
            .write_all(bytemuck::cast_slice(values))
            .at(&path)?;
        let path = self.dir.join("counts");
        self.counts.write_all(&self.pending[..len]).at(&path)?;
        self.pending.drain(..len);
        self.kept_len += len as u64;
        Ok(())
    }

    /// Answers every bucket, one read of its range each; the answers are
    /// then folded into the kept values `part` positions at a time.
    pub fn answer(self, part: usize) -> Result<Answers, EngineError<L::Error>> {
        let Deferred {
            lower,
            seeds,
            dir,
            kept,
            counts,
            buckets,
            lookups,
            ids,
            pending,
            kept_len,
            ..
        } = self;
        debug_assert!(
            pending.iter().all(|&c| c == 0),
            "lookups of positions not kept"
        );
        finish(kept, &dir.join("kept"))?;
        finish(counts, &dir.join("counts"))?;
        finish(ids, &dir.join("buckets"))?;
        for (b, out) in lookups.into_iter().enumerate() {
            finish(out, &lookups_path(&dir, b))?;
        }
        answer_buckets(lower, &dir, &buckets)?;
        let open = |path: PathBuf| ScratchResult::Ok((File::open(&path).at(&path)?, path));
        let parts = ReadAhead::spawn(
            PartReader {
                part,
                left: kept_len,
                kept: open(dir.join("kept"))?,
                counts: open(dir.join("counts"))?,
                ids: open(dir.join("buckets"))?,
                answers: (0..buckets.len())
                    .map(|b| open(answers_path(&dir, b)))
                    .collect::<ScratchResult<_>>()?,
            },
            0,
        );
        Ok(Answers {
            seeds,
            layer_of: buckets.iter().map(|b| b.seeds).collect(),
            parts,
            dir,
        })
    }
}

/// Answers each bucket's lookups from one read of its range, into the
/// bucket's answers file; its lookups file is removed.
fn answer_buckets<L: LowerLayers>(
    lower: &L,
    dir: &Path,
    buckets: &[Bucket],
) -> Result<(), EngineError<L::Error>> {
    // A bucket's values reuse the memory of the sweep's parts, freed.
    array::release_freed_heap();
    let largest = buckets.iter().map(|b| b.len).max().unwrap_or(0);
    let mut values = vec![0i8; largest as usize];
    let mut answers = vec![0u8; ANSWER_BATCH];
    // The lookups are read a batch ahead, on a thread of their own.
    let mut batches = ReadAhead::spawn(
        LookupBatches {
            paths: (0..buckets.len()).map(|b| lookups_path(dir, b)).collect(),
            bucket: 0,
            file: None,
        },
        0,
    );
    for (b, bucket) in buckets.iter().enumerate() {
        let values = &mut values[..bucket.len as usize];
        lower
            .read_in_order(bucket.seeds, bucket.first, values)
            .map_err(EngineError::Lower)?;
        let to = answers_path(dir, b);
        let mut out = create(&to)?;
        loop {
            let offsets = batches
                .next()
                .expect("a bucket's lookups end in an empty batch")?;
            if offsets.is_empty() {
                break;
            }
            let answers = &mut answers[..offsets.len() / 4];
            answers
                .par_chunks_mut(1 << 12)
                .zip(offsets.par_chunks(4 << 12))
                .for_each(|(answers, offsets)| {
                    for (a, o) in answers.iter_mut().zip(offsets.chunks_exact(4)) {
                        let offset = u32::from_le_bytes(o.try_into().unwrap());
                        *a = values[offset as usize] as u8;
                    }
                });
            out.write_all(answers).at(&to)?;
        }
        finish(out, &to)?;
        let from = lookups_path(dir, b);
        fs::remove_file(&from).at(&from)?;
    }
    Ok(())
}

/// The lookups of every bucket in turn, a batch at a time, each bucket's
/// followed by an empty batch.
struct LookupBatches {
    paths: Vec<PathBuf>,
    bucket: usize,
    file: Option<File>,
}

impl Iterator for LookupBatches {
    type Item = ScratchResult<Vec<u8>>;

    fn next(&mut self) -> Option<Self::Item> {
        let path = self.paths.get(self.bucket)?;
        let file = match &mut self.file {
            Some(file) => file,
            None => match File::open(path) {
                Ok(file) => self.file.insert(file),
                Err(e) => return Some(Err(WithPath::new(path.clone(), e))),
            },
        };
        let mut offsets = vec![0u8; 4 * ANSWER_BATCH];
        Some(match read_full(file, &mut offsets) {
            Ok(read) => {
                if read == 0 {
                    (self.file, self.bucket) = (None, self.bucket + 1);
                }
                offsets.truncate(read);
                Ok(offsets)
            }
            Err(e) => Err(WithPath::new(path.clone(), e)),
        })
    }
}

/// The kept values of a sweep with the answers of its deferred lookups.
pub struct Answers {
    seeds: usize,
    dir: PathBuf,
    /// The lower layer of each bucket.
    layer_of: Vec<usize>,
    /// The parts, read ahead.
    parts: ReadAhead<AnsweredPart>,
}

/// A part as the sweep's files hold it: its kept values, per position how
/// many deferred lookups, their buckets, and each bucket's answers to them.
struct AnsweredPart {
    kept: Vec<u8>,
    counts: Vec<u8>,
    ids: Vec<u8>,
    answers: Vec<Vec<u8>>,
}

/// The parts of a sweep's files in turn, `part` positions each but the
/// last.
struct PartReader {
    part: usize,
    /// Positions not yet read.
    left: u64,
    kept: (File, PathBuf),
    counts: (File, PathBuf),
    ids: (File, PathBuf),
    answers: Vec<(File, PathBuf)>,
}

impl PartReader {
    fn read_part(&mut self) -> ScratchResult<AnsweredPart> {
        let read = |(file, path): &mut (File, PathBuf), len: usize| {
            let mut bytes = vec![0u8; len];
            file.read_exact(&mut bytes).at(&*path)?;
            ScratchResult::Ok(bytes)
        };
        let len = self.left.min(self.part as u64) as usize;
        self.left -= len as u64;
        let kept = read(&mut self.kept, len)?;
        let counts = read(&mut self.counts, len)?;
        let lookups = counts.iter().map(|&c| c as usize).sum();
        let ids = read(&mut self.ids, lookups)?;
        let mut per_bucket = vec![0; self.answers.len()];
        for &id in &ids {
            per_bucket[id as usize] += 1;
        }
        // One bucket after another: a reader's pool has one thread (see
        // `ReadAhead`).
        let answers = self
            .answers
            .iter_mut()
            .zip(per_bucket)
            .map(|(file, len)| read(file, len))
            .collect::<ScratchResult<_>>()?;
        Ok(AnsweredPart {
            kept,
            counts,
            ids,
            answers,
        })
    }
}

impl Iterator for PartReader {
    type Item = ScratchResult<AnsweredPart>;

    fn next(&mut self) -> Option<Self::Item> {
        (self.left > 0).then(|| self.read_part())
    }
}

impl Answers {
    /// The next part's kept values (of the length [`Deferred::answer`] was
    /// given, or what is left), each the best of itself and `captured −
    /// answer` over the deferred captures of its position. The chunks of
    /// the part fold theirs in parallel.
    pub fn next_part(&mut self, values: &mut [i8]) -> ScratchResult<()> {
        let part = self.parts.next().expect("a part as the sweep's")?;
        assert_eq!(values.len(), part.kept.len(), "parts as the sweep's");
        values.copy_from_slice(bytemuck::cast_slice(&part.kept));
        // Where each chunk's lookups begin (and, last, their number).
        let per_chunk: Vec<usize> = part
            .counts
            .par_chunks(CHUNK)
            .map(|counts| counts.iter().map(|&c| c as usize).sum())
            .collect();
        let mut bounds = vec![0];
        for n in per_chunk {
            bounds.push(bounds.last().unwrap() + n);
        }
        // Each chunk's lookups per bucket, then where its answers begin in
        // each bucket's.
        let buckets = self.layer_of.len();
        let chunks = bounds.len() - 1;
        let mut next = vec![0u32; chunks * buckets];
        let ids = &part.ids;
        next.par_chunks_mut(buckets)
            .enumerate()
            .for_each(|(c, answered)| {
                for &id in &ids[bounds[c]..bounds[c + 1]] {
                    answered[id as usize] += 1;
                }
            });
        for b in 0..buckets {
            let mut total = 0;
            for first in next[b..].iter_mut().step_by(buckets) {
                (*first, total) = (total, total + *first);
            }
        }
        let (seeds, layer_of, answers) = (self.seeds, &self.layer_of, &part.answers);
        values
            .par_chunks_mut(CHUNK)
            .zip(part.counts.par_chunks(CHUNK))
            .zip(next.par_chunks_mut(buckets))
            .enumerate()
            .for_each(|(c, ((values, counts), next))| {
                let mut ids = ids[bounds[c]..bounds[c + 1]].iter();
                for (value, &count) in values.iter_mut().zip(counts) {
                    for &id in ids.by_ref().take(count as usize) {
                        let b = id as usize;
                        let answer = answers[b][next[b] as usize] as i8;
                        next[b] += 1;
                        let captured = (seeds - layer_of[b]) as i8;
                        *value = (*value).max(captured - answer);
                    }
                }
            });
        Ok(())
    }

    /// Removes the sweep's files.
    pub fn remove(mut self) -> ScratchResult<()> {
        assert!(self.parts.next().is_none(), "parts not folded");
        fs::remove_dir_all(&self.dir).at(&self.dir)
    }
}

fn lookups_path(dir: &Path, bucket: usize) -> PathBuf {
    dir.join(format!("lookups.{bucket}"))
}

fn answers_path(dir: &Path, bucket: usize) -> PathBuf {
    dir.join(format!("answers.{bucket}"))
}

fn create(path: &Path) -> ScratchResult<BufWriter<File>> {
    Ok(BufWriter::with_capacity(
        BUCKET_BUFFER,
        File::create(path).at(path)?,
    ))
}

fn finish(out: BufWriter<File>, path: &Path) -> ScratchResult<()> {
    out.into_inner().map_err(|e| e.into_error()).at(path)?;
    Ok(())
}

/// Reads until `buf` is full or the file ends; returns the bytes read.
fn read_full(input: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::oware::Lookup;

    /// Layers 0..8 of made-up values, all read in order.
    struct Made(Vec<Vec<i8>>);

    impl LowerLayers for Made {
        type Error = std::io::Error;
        fn resolve(&self, _: &mut [Lookup]) -> std::io::Result<()> {
            unreachable!("every layer is read in order")
        }
        fn in_order(&self, _: usize) -> bool {
            true
        }
        fn read_in_order(
            &self,
            seeds: usize,
            first: u64,
            values: &mut [i8],
        ) -> std::io::Result<()> {
            values.copy_from_slice(&self.0[seeds][first as usize..][..values.len()]);
            Ok(())
        }
    }

    /// Lookups spread over buckets of 1,000 positions (several a layer),
    /// several per asker, some askers with none: each kept value comes back
    /// the best of itself and `captured − value` over its lookups.
    #[test]
    fn answers_fold_into_the_kept_values_of_their_askers() {
        let seeds = 10;
        let made = Made(
            (0..seeds)
                .map(|s| {
                    (0..index::layer_size(s))
                        .map(|r| (r * 7 + s as u64) as i8 % 20)
                        .collect()
                })
                .collect(),
        );
        let dir = tempfile::tempdir().unwrap();
        let (first, askers) = (500u64, 3 * CHUNK as u64 + 3000);
        let mut deferred = Deferred::create(dir.path(), seeds, first, &made, 1000)
            .unwrap()
            .unwrap();
        let kept: Vec<i8> = (0..askers).map(|a| (a % 5) as i8 - 2).collect();
        let mut expected = kept.clone();
        let mut x = 12345u64;
        for asker in (first..first + askers).filter(|a| a % 3 != 0) {
            for _ in 0..(asker % 4) {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let child = 2 + (x >> 33) as usize % (seeds - 2);
                let rank = (x >> 7) % index::layer_size(child);
                let slot = (asker - first) as u32;
                let lookup = Lookup {
                    rank,
                    seeds: child as u8,
                    value: 0,
                    captured: 0,
                    slot,
                };
                // Every other lookup one at a time, the rest as a part's.
                if x.is_multiple_of(2) {
                    deferred.push(asker, child, rank).unwrap();
                } else {
                    let mut part = vec![vec![lookup]];
                    deferred.defer_part(first, askers, &mut part).unwrap();
                    assert!(part[0].is_empty(), "a deferred lookup is not left");
                }
                let value = made.0[child][rank as usize];
                let e = &mut expected[(asker - first) as usize];
                *e = (*e).max((seeds - child) as i8 - value);
            }
        }
        // The lookups of a position come before it is kept: here all of
        // them, before the positions are kept in two pieces.
        deferred.keep(&kept[..700]).unwrap();
        deferred.keep(&kept[700..]).unwrap();
        // Parts of several chunks, and a last one shorter.
        let part = 2 * CHUNK + 99;
        let mut answers = deferred.answer(part).unwrap();
        let mut values = vec![0i8; askers as usize];
        for part in values.chunks_mut(part) {
            answers.next_part(part).unwrap();
        }
        assert_eq!(values, expected);
        answers.remove().unwrap();
        assert!(!dir.path().exists());
    }
}
