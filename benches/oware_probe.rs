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
//! `mancala-tb probe oware` does), values only, with the move values and
//! with the distances too: time per position of the whole batch. Where the layer has its distance
//! table, `distance()` is timed the same two ways, and `distances_many`
//! (what Python's `distances` does) as one batch.

mod common;

use std::path::PathBuf;
use std::time::Instant;

use mancala_tb::games::oware::{Board, Ruleset};
use mancala_tb::index::oware as index;
use mancala_tb::tablebase::oware::{Detail, OwareTablebase};

/// A kind of single probe: its name and what it does to a board.
type Probe<'a> = (&'static str, &'a dyn Fn(&Board));

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
    let distances = tables.distance_layer(seeds).expect("open").is_some();
    let probes_of: &[Probe] = &[
        ("value", &|b| {
            std::hint::black_box(tables.value(b).expect("probe"));
        }),
        ("distance", &|b| {
            std::hint::black_box(tables.distance(b).expect("probe"));
        }),
    ];
    for &(what, probe) in &probes_of[..1 + usize::from(distances)] {
        for pass in [
            "first pass (uncached blocks)",
            "second pass (cached blocks)",
        ] {
            let mut times: Vec<f64> = boards
                .iter()
                .map(|b| {
                    let start = Instant::now();
                    probe(b);
                    start.elapsed().as_secs_f64() * 1e6
                })
                .collect();
            times.sort_by(f64::total_cmp);
            let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
            println!(
                "layer {seeds}, {probes} {what} probes, {pass}: median {:.2} µs, p90 {:.2} µs, p99 {:.2} µs",
                at(0.5),
                at(0.9),
                at(0.99)
            );
        }
    }
    if distances {
        let start = Instant::now();
        let answers = tables.distances_many(&boards).expect("batch probe");
        let seconds = start.elapsed().as_secs_f64();
        assert!(
            answers.iter().all(Result::is_ok),
            "every distance table is built"
        );
        println!(
            "layer {seeds}, {probes} positions as one batch (distances): {:.2} µs per position",
            seconds * 1e6 / probes as f64
        );
    }
    let details = [
        (Detail::Values, "values"),
        (Detail::Moves, "values and move values"),
        (
            Detail::MovesAndDistances,
            "values, move values and distances",
        ),
    ];
    for (detail, what) in &details[..2 + usize::from(distances)] {
        let start = Instant::now();
        let answers = tables.probe_many(&boards, *detail).expect("batch probe");
        let seconds = start.elapsed().as_secs_f64();
        assert!(answers.iter().all(Result::is_ok), "every layer is built");
        println!(
            "layer {seeds}, {probes} positions as one batch ({what}): {:.2} µs per position",
            seconds * 1e6 / probes as f64
        );
    }
}
