//! The codings a writer writes (0: zstd; 4: the context coding, as builds
//! write it) against the source table (however it was built, older codings
//! too) on built Awari layers, side by side in one run (so machine load
//! affects all alike).
//!
//! `cargo bench --bench coding -- DIR SEEDS...` reads the tables
//! `DIR/oware-awari/scores.SEEDS.mtb`, writes each layer's values with
//! each coding of `CODINGS` (default `4`) to a temporary folder
//! (`TMPDIR`), and prints per coding and block size (`BLOCKS`): bytes per
//! position, the time to write (0 for the source table, measured as it
//! is), the time to decode every block, and the median time of one value
//! read at random ranks (what a probe that misses the cache pays).

mod common;

use std::path::PathBuf;
use std::time::Instant;

use mancala_tb::table::{BlockCoding, Table, TableWriter};

/// A written coding by its id (0 or 4).
fn coding(id: &str) -> BlockCoding {
    match id {
        "0" => BlockCoding::Zstd,
        "4" => BlockCoding::ScoreContextTails,
        _ => panic!("coding {id}: 0 or 4 (codings 1 to 3 are read only)"),
    }
}

/// The writer of `coding` (one of [`coding`]'s).
fn writer(source: &Table, coding: BlockCoding) -> TableWriter {
    let writer = TableWriter::new(source.meta().clone());
    match coding {
        BlockCoding::Zstd => writer,
        _ => writer.context_coded(),
    }
}

/// The codings and block sizes measured: the source table as it is, then
/// each other of `CODINGS` (comma-separated ids, default `4`) at each of
/// `BLOCKS` (comma-separated block sizes, default 32768, the size builds
/// write).
fn codings(source: &Table) -> Vec<(BlockCoding, u32)> {
    let ids = std::env::var("CODINGS").unwrap_or_else(|_| "4".into());
    let sizes = std::env::var("BLOCKS").unwrap_or_else(|_| "32768".into());
    let context = ids
        .split(',')
        .flat_map(|id| (sizes.split(',')).map(move |s| (coding(id), s.parse().expect("BLOCKS"))));
    let own = (source.coding(), source.block_size());
    std::iter::once(own)
        .chain(context.filter(|&c| c != own))
        .collect()
}

fn main() {
    let args = common::args();
    let dir = PathBuf::from(&args[0]);
    let tmp = tempfile::tempdir().expect("temporary folder");
    // RECODE=DIR: only write the layers context coded (coding 4) into a
    // tablebase folder DIR, e.g. to time probes of it with
    // `benches/oware_probe.rs`.
    if let Some(out) = std::env::var_os("RECODE") {
        let folder = PathBuf::from(out).join("oware-awari");
        std::fs::create_dir_all(&folder).expect("create RECODE folder");
        for seeds in &args[1..] {
            let source =
                Table::open(dir.join(format!("oware-awari/scores.{seeds}.mtb"))).expect("open");
            writer(&source, BlockCoding::ScoreContextTails)
                .write(
                    folder.join(format!("scores.{seeds}.mtb")),
                    &source.decode_all().expect("decode"),
                )
                .expect("write");
        }
        return;
    }
    for seeds in &args[1..] {
        let source =
            Table::open(dir.join(format!("oware-awari/scores.{seeds}.mtb"))).expect("open");
        let values = source.decode_all().expect("decode");
        let n = values.len() as f64;
        println!("== layer {seeds}: {} positions", values.len());
        for (coding, block_size) in codings(&source) {
            // The source table is measured as it is (as built: zstd level
            // 6, or however it was written).
            let reuse = coding == source.coding() && block_size == source.block_size();
            let path = if reuse {
                source.path().to_path_buf()
            } else {
                tmp.path().join("t.mtb")
            };
            let start = Instant::now();
            if !reuse {
                writer(&source, coding)
                    .block_size(block_size)
                    .write(&path, &values)
                    .expect("write");
            }
            let write = start.elapsed().as_secs_f64();
            let table = Table::open_with_cache(&path, 0).expect("open");
            let start = Instant::now();
            assert_eq!(table.decode_all().expect("decode"), values);
            let all = start.elapsed().as_secs_f64();
            let mut state = 0x9e37_79b9_7f4a_7c15_u64;
            let mut times: Vec<f64> = (0..2000)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    let start = Instant::now();
                    std::hint::black_box(table.get(state % values.len() as u64).expect("get"));
                    start.elapsed().as_secs_f64() * 1e6
                })
                .collect();
            times.sort_by(f64::total_cmp);
            println!(
                "{:14} {:6} per block: {:.4} B/pos, write {:.2} s, decode all {:.2} s ({:.1} ns/pos), one value {:.2} µs median",
                format!("{coding:?}"),
                block_size,
                table.file_len() as f64 / n,
                write,
                all,
                all * 1e9 / n,
                times[times.len() / 2],
            );
        }
    }
}
