//! Speed of the move primitives both Oware engines are built on (a
//! benchmark, not a test).
//!
//! `cargo bench --bench primitives -- [SEEDS] [ROUNDS]` takes every 7th
//! position of awari layer SEEDS (default 20), stepped to in rank order,
//! and times, ROUNDS times (default 3), each pass over them: the moves
//! (`Children::of_packed`, the set-up's and the forward tests' sowing), the
//! unmoves (`for_each_unmove`, the propagation's), the ranks of the
//! parents found, and the boards of the positions found again from their
//! ranks: sought from the one before (`Cursor`, as the propagation's scans
//! do) and unranked. Prints nanoseconds a position, per round; compare two
//! commits by running each.

mod common;

use std::hint::black_box;
use std::time::Instant;

use mancala_tb::games::oware::{self, Packed, Ruleset};
use mancala_tb::index::oware as index;

fn main() {
    let args = common::args();
    let seeds: usize = args
        .first()
        .map_or(20, |s| s.parse().expect("SEEDS is a number of seeds"));
    let rounds: usize = args
        .get(1)
        .map_or(3, |s| s.parse().expect("ROUNDS is a number"));
    let mut board = oware::packed(&index::unrank(seeds, 0));
    let mut boards: Vec<Packed> = Vec::new();
    for rank in 0..index::layer_size(seeds) {
        if rank % 7 == 0 {
            boards.push(board);
        }
        index::next_packed(&mut board);
    }
    println!("awari layer {seeds}: {} positions", boards.len());
    let time = |name: &str, pass: &dyn Fn() -> u64| {
        let start = Instant::now();
        let count = pass();
        let ns = start.elapsed().as_nanos() as f64 / boards.len() as f64;
        println!("  {name}: {ns:.1} ns a position ({count} in all)");
    };
    for round in 1..=rounds {
        println!("round {round}");
        time("moves", &|| {
            let moves = boards.iter().map(|&b| {
                let children = oware::Children::of_packed(Ruleset::Awari, black_box(b));
                children.legal().len() as u64
            });
            moves.sum()
        });
        time("unmoves", &|| {
            let mut unmoves = 0u64;
            for &b in &boards {
                oware::for_each_unmove(Ruleset::Awari, black_box(b), |parent, _| {
                    unmoves += 1;
                    black_box(parent);
                });
            }
            unmoves
        });
        time("unmoves ranked", &|| {
            let mut ranked = 0u64;
            for &b in &boards {
                oware::for_each_unmove(Ruleset::Awari, black_box(b), |parent, _| {
                    black_box(index::rank_packed(parent, seeds));
                    ranked += 1;
                });
            }
            ranked
        });
        time("boards sought", &|| {
            let mut cursor = index::Cursor::new(seeds);
            let ranks = (0..boards.len() as u64).map(|i| 7 * i);
            ranks
                .map(|rank| cursor.board(black_box(rank)) as u64 & 0xff)
                .sum()
        });
        time("boards unranked", &|| {
            let ranks = (0..boards.len() as u64).map(|i| 7 * i);
            let boards = ranks.map(|rank| index::unrank(seeds, black_box(rank)));
            boards.map(|board| u64::from(board[0])).sum()
        });
    }
}
