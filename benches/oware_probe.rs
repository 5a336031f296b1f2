//! Probe speed of built Oware tables (a benchmark, not a test).
//!
//! `cargo bench --bench oware_probe -- DIR [SEEDS] [PROBES]` opens the awari
//! tables under DIR (default `tablebases`), then times `value()` on random
//! positions of layer SEEDS (default: the highest built), each probe alone:
//! - first pass: blocks not yet in the cache (the file in the page cache);
//! - second pass: the same positions again, blocks cached.
//!
//! Probes of positions marked "decided by its captures" also probe the lower
//! layers, as a user's query does.
//!
//! Then the same positions as one batch through `probe_many` (what
//! `mancala-tb probe oware` does), values only and with the move values:
//! time per position of the whole batch.

mod common;

use std::path::PathBuf;
use std::time::Instant;

use mancala_tb::games::oware::Ruleset;
use mancala_tb::index::oware as index;
use mancala_tb::tablebase::oware::OwareTablebase;

fn main() {
    let args = common::args();
    let dir = PathBuf::from(args.first().map_or("tablebases", String::as_str));
    let tables = OwareTablebase::open(&dir, Ruleset::Awari).expect("open the tables");
    let seeds = match args.get(1) {
        Some(s) => s.parse().expect("SEEDS is a number"),
        None => tables.built_layers().last().expect("some layer is built"),
    };
    let probes: usize = args
        .get(2)
        .map_or(100_000, |s| s.parse().expect("PROBES is a number"));
    let size = index::layer_size(seeds);
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let boards: Vec<_> = (0..probes)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            index::unrank(seeds, state % size)
        })
        .collect();
    for pass in [
        "first pass (uncached blocks)",
        "second pass (cached blocks)",
    ] {
        let mut times: Vec<f64> = boards
            .iter()
            .map(|b| {
                let start = Instant::now();
                std::hint::black_box(tables.value(b).expect("probe"));
                start.elapsed().as_secs_f64() * 1e6
            })
            .collect();
        times.sort_by(f64::total_cmp);
        let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
        println!(
            "layer {seeds}, {probes} probes, {pass}: median {:.2} µs, p90 {:.2} µs, p99 {:.2} µs",
            at(0.5),
            at(0.9),
            at(0.99)
        );
    }
    for with_moves in [false, true] {
        let start = Instant::now();
        let answers = tables.probe_many(&boards, with_moves).expect("batch probe");
        let seconds = start.elapsed().as_secs_f64();
        assert!(answers.iter().all(Result::is_ok), "every layer is built");
        let what = if with_moves {
            "values and move values"
        } else {
            "values"
        };
        println!(
            "layer {seeds}, {probes} positions as one batch ({what}): {:.2} µs per position",
            seconds * 1e6 / probes as f64
        );
    }
}
