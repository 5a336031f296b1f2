//! Size and speed of the table format.
//!
//! `cargo bench --bench table [-- FILE...]`: each FILE is a raw layer (one `i8`
//! per position, e.g. the published `scores.N`). Without files it measures
//! approximate Awari values of layer `AWARI_SEEDS` (default 12): see
//! [`awari_layers`]. Prints the value histogram, compressed size per block
//! size and zstd level, and probe latencies of a table written with defaults
//! (or with block size `BLOCK_SIZE`; `SIZES=0` skips the size table).
//! With `EXPERIMENTS=1` it also prints conditional entropies (a bound for
//! context-modelling coders) and the size after candidate value transforms
//! and with a trained zstd dictionary: none of them paid for itself, which is
//! why the format has none.

use std::hint::black_box;
use std::time::{Duration, Instant};

use mancala_tb::WithPath;
use mancala_tb::table::{Table, TableError, TableMeta, TableWriter, ValueEncoding};
use zstd::bulk::{Compressor, Decompressor};

fn main() {
    let files: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let layers: Vec<(String, Vec<i8>)> = if files.is_empty() {
        let n = std::env::var("AWARI_SEEDS").map_or(12, |s| s.parse().expect("AWARI_SEEDS"));
        let values = awari_layers(n).pop().expect("layer");
        vec![(format!("approximate awari layer {n}"), values)]
    } else {
        files
            .iter()
            .map(|f| {
                (
                    f.clone(),
                    std::fs::read(f)
                        .expect(f)
                        .into_iter()
                        .map(|b| b as i8)
                        .collect(),
                )
            })
            .collect()
    };
    for (name, values) in &layers {
        println!("== {name}: {} positions", values.len());
        histogram(values);
        if std::env::var_os("EXPERIMENTS").is_some() {
            experiments(values);
        }
        if std::env::var("SIZES").as_deref() != Ok("0") {
            sizes(values);
        }
        probes(values);
    }
}

fn histogram(values: &[i8]) {
    let mut counts = [0u64; 256];
    for &v in values {
        counts[v as u8 as usize] += 1;
    }
    let n = values.len() as f64;
    let entropy: f64 = counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| -(c as f64 / n) * (c as f64 / n).log2())
        .sum();
    let mut shown: Vec<(i8, u64)> = (0..=255u8)
        .map(|b| (b as i8, counts[b as usize]))
        .filter(|&(_, c)| c > 0)
        .collect();
    shown.sort();
    let pct: Vec<String> = shown
        .iter()
        .filter(|&&(_, c)| c as f64 / n >= 0.005)
        .map(|&(v, c)| format!("{v}:{:.1}%", 100.0 * c as f64 / n))
        .collect();
    println!(
        "values {}; order-0 entropy {entropy:.3} bits = {:.4} B/pos",
        pct.join(" "),
        entropy / 8.0
    );
}

fn cond_entropy(values: &[i8], order: usize) -> f64 {
    use std::collections::HashMap;
    let mut joint: HashMap<Vec<i8>, u64> = HashMap::new();
    let mut ctx: HashMap<Vec<i8>, u64> = HashMap::new();
    for w in values.windows(order + 1) {
        *joint.entry(w.to_vec()).or_default() += 1;
        *ctx.entry(w[..order].to_vec()).or_default() += 1;
    }
    let n = (values.len() - order) as f64;
    joint
        .iter()
        .map(|(k, &c)| -(c as f64 / n) * (c as f64 / ctx[&k[..order]] as f64).log2())
        .sum()
}

/// Order-1 rank transform: given the previous value, replace a value by its
/// rank among values sorted by frequency after that previous value.
fn rank_transform(values: &[i8]) -> Vec<u8> {
    let mut counts = vec![[0u64; 256]; 256];
    let mut prev = 0u8;
    for &v in values {
        counts[prev as usize][v as u8 as usize] += 1;
        prev = v as u8;
    }
    let mut rank = vec![[0u8; 256]; 256];
    for p in 0..256 {
        let mut order: Vec<usize> = (0..256).collect();
        order.sort_by_key(|&v| std::cmp::Reverse(counts[p][v]));
        for (r, &v) in order.iter().enumerate() {
            rank[p][v] = r as u8;
        }
    }
    let mut prev = 0u8;
    values
        .iter()
        .map(|&v| {
            let r = rank[prev as usize][v as u8 as usize];
            prev = v as u8;
            r
        })
        .collect()
}

fn experiments(values: &[i8]) {
    for order in 1..=3 {
        let h = cond_entropy(values, order);
        println!(
            "order-{order} conditional entropy {h:.3} bits = {:.4} B/pos",
            h / 8.0
        );
    }
    let ranked = rank_transform(values);
    let raw: Vec<u8> = values.iter().map(|&v| v as u8).collect();
    let delta: Vec<u8> = std::iter::once(0u8)
        .chain(raw.windows(2).map(|w| w[1].wrapping_sub(w[0])))
        .collect();
    for (name, data) in [("raw", &raw), ("rank1", &ranked), ("delta", &delta)] {
        for bs in [1usize << 12, 1 << 14, 1 << 16] {
            let mut c = Compressor::new(19).unwrap();
            let total: usize = data
                .chunks(bs)
                .map(|b| c.compress(b).unwrap().len() + 16)
                .sum();
            let samples: Vec<&[u8]> = data
                .chunks(bs)
                .step_by((data.len() / bs / 200).max(1))
                .collect();
            let dict = zstd::dict::from_samples(&samples, 32 << 10).unwrap();
            let mut c = Compressor::with_dictionary(19, &dict).unwrap();
            let with_dict: usize = dict.len()
                + data
                    .chunks(bs)
                    .map(|b| c.compress(b).unwrap().len() + 16)
                    .sum::<usize>();
            let n = values.len() as f64;
            println!(
                "{name:>6} bs {bs:>6}: {:.4} B/pos, with {} B dictionary {:.4}",
                total as f64 / n,
                dict.len(),
                with_dict as f64 / n
            );
        }
    }
}

/// Bytes per position (frames + 16-byte index entries) by block size and level.
fn sizes(values: &[i8]) {
    let bytes: Vec<u8> = values.iter().map(|&v| v as u8).collect();
    println!("block size  level  B/pos   compress MB/s  decompress us/block");
    for bs in [1usize << 12, 1 << 13, 1 << 14, 1 << 15, 1 << 16] {
        for level in [3, 15, 19] {
            if level != 19 && bs != 1 << 14 {
                continue;
            }
            let mut c = Compressor::new(level).unwrap();
            let start = Instant::now();
            let frames: Vec<Vec<u8>> = bytes.chunks(bs).map(|b| c.compress(b).unwrap()).collect();
            let secs = start.elapsed().as_secs_f64();
            let total: usize = frames.iter().map(|f| f.len() + 16).sum();
            let mut d = Decompressor::new().unwrap();
            let per_block = median((0..5).map(|_| {
                let start = Instant::now();
                for f in &frames {
                    black_box(d.decompress(f, bs).unwrap());
                }
                start.elapsed() / frames.len() as u32
            }))
            .as_secs_f64();
            println!(
                "{:>10}  {level:>5}  {:.4}  {:>13.1}  {:>19.1}",
                bs,
                total as f64 / values.len() as f64,
                values.len() as f64 / secs / 1e6,
                per_block * 1e6
            );
        }
    }
}

/// Probe latencies of a table written with the default settings (block size
/// `BLOCK_SIZE` if set).
fn probes(values: &[i8]) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.mtb");
    let meta = TableMeta {
        game: "oware".into(),
        ruleset: "awari".into(),
        options: String::new(),
        seeds: 0,
        board_width: 6,
        encoding: ValueEncoding::Score,
    };
    let start = Instant::now();
    let mut writer = TableWriter::new(meta);
    if let Ok(size) = std::env::var("BLOCK_SIZE") {
        writer = writer.block_size(size.parse().expect("BLOCK_SIZE"));
    }
    writer.write(&path, values).unwrap();
    let write = start.elapsed();
    let file_len = std::fs::metadata(&path).unwrap().len();
    println!(
        "table: {file_len} bytes = {:.4} B/pos, written (compress + verify) in {write:.2?}",
        file_len as f64 / values.len() as f64
    );
    let n = values.len() as u64;
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let mut random_rank = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % n
    };

    let table = Table::open(&path).unwrap();
    let block = u64::from(table.block_size()).min(n);
    table.get(0).unwrap();
    let hit = median((0..100_000).map(|i| time(|| table.get(i % block))));
    println!("probe, block cached:            median {hit:?}");

    let cold = Table::open_with_cache(&path, 0).unwrap();
    let miss = median((0..2000).map(|_| time(|| cold.get(random_rank()))));
    println!("probe, block not cached:        median {miss:?}");

    println!(
        "({} blocks of {} positions)",
        table.block_count(),
        table.block_size()
    );
}

fn time(f: impl FnOnce() -> Result<i8, WithPath<TableError>>) -> Duration {
    let start = Instant::now();
    black_box(f().unwrap());
    start.elapsed()
}

fn median(samples: impl Iterator<Item = Duration>) -> Duration {
    let mut v: Vec<Duration> = samples.collect();
    v.sort();
    v[v.len() / 2]
}

/// Approximate Awari values (ruleset `awari`) of layers `0..=n`, each in the
/// published rank order (ascending `(p11, …, p0)`, positions with at least one
/// empty opponent pit). Within a layer the values are found by iterating
/// `v(p) = max(captured − v(child))` from 0 until nothing changes (under 100
/// rounds up to 14 seeds), not by retrograde analysis: a fixed point of the
/// recurrence, not proven to be the perpetual-play-is-0 one, but with the real
/// local structure, which is what compression sees.
fn awari_layers(n: usize) -> Vec<Vec<i8>> {
    let mut full: Vec<Vec<i8>> = Vec::new(); // every composition, for child lookups
    let mut published = Vec::new();
    for seeds in 0..=n {
        let ranker = Ranker::new(seeds);
        let boards: Vec<[u8; 12]> = ranker.all();
        // Per position: its moves as (captured, child rank in its layer).
        let children: Vec<Vec<(u8, usize)>> = boards.iter().map(awari_moves).collect();
        let lower = |cap: u8, child: usize| -> i8 { full[seeds - cap as usize][child] };
        let mut v = vec![0i8; boards.len()];
        for _round in 0..1000 {
            let mut changed = false;
            for (i, ms) in children.iter().enumerate() {
                let best = if ms.is_empty() {
                    -(seeds as i8)
                } else {
                    ms.iter()
                        .map(|&(cap, c)| cap as i8 - if cap == 0 { v[c] } else { lower(cap, c) })
                        .max()
                        .unwrap()
                };
                changed |= best != v[i];
                v[i] = best;
            }
            if !changed {
                break;
            }
        }
        published.push(
            boards
                .iter()
                .zip(&v)
                .filter(|(b, _)| b[6..].contains(&0))
                .map(|(_, &x)| x)
                .collect(),
        );
        full.push(v);
    }
    published
}

/// Legal Awari moves of `board` (mover's pits 0..6): (captured, rank of the
/// child, seen from the new mover, among all compositions of its seeds).
fn awari_moves(board: &[u8; 12]) -> Vec<(u8, usize)> {
    let mut moves = Vec::new();
    let mut starving = Vec::new();
    for i in 0..6 {
        let s = board[i];
        if s == 0 {
            continue;
        }
        let mut b = *board;
        b[i] = 0;
        let mut pos = i;
        for _ in 0..s {
            pos = (pos + 1) % 12;
            if pos == i {
                pos = (pos + 1) % 12;
            }
            b[pos] += 1;
        }
        let mut cap = 0;
        while pos >= 6 && (b[pos] == 2 || b[pos] == 3) {
            cap += b[pos];
            b[pos] = 0;
            pos -= 1;
        }
        let mut child = [0; 12];
        child[..6].copy_from_slice(&b[6..]);
        child[6..].copy_from_slice(&b[..6]);
        let seeds = child.iter().map(|&x| x as usize).sum();
        let m = (cap, Ranker::new(seeds).rank(&child));
        if b[6..].iter().all(|&x| x == 0) {
            starving.push(m);
        } else {
            moves.push(m);
        }
    }
    if moves.is_empty() { starving } else { moves }
}

/// Lexicographic rank of compositions of `seeds` into 12 pits, ordered by
/// `(p11, …, p0)`.
struct Ranker {
    seeds: usize,
}

impl Ranker {
    fn new(seeds: usize) -> Self {
        Ranker { seeds }
    }

    /// Ways to put `s` seeds into `k` pits.
    fn ways(s: usize, k: usize) -> usize {
        if k == 0 {
            return usize::from(s == 0);
        }
        binomial(s + k - 1, k - 1)
    }

    fn rank(&self, b: &[u8; 12]) -> usize {
        let mut rem = self.seeds;
        let mut r = 0;
        for pit in (1..12).rev() {
            for u in 0..b[pit] as usize {
                r += Self::ways(rem - u, pit);
            }
            rem -= b[pit] as usize;
        }
        r
    }

    fn all(&self) -> Vec<[u8; 12]> {
        let mut out = Vec::new();
        let mut b = [0u8; 12];
        fn rec(pit: usize, rem: usize, b: &mut [u8; 12], out: &mut Vec<[u8; 12]>) {
            if pit == 0 {
                b[0] = rem as u8;
                out.push(*b);
                return;
            }
            for u in 0..=rem {
                b[pit] = u as u8;
                rec(pit - 1, rem - u, b, out);
            }
        }
        rec(11, self.seeds, &mut b, &mut out);
        out
    }
}

fn binomial(n: usize, k: usize) -> usize {
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}
