//! Looking positions up in built Oware tables from Rust.
//!
//! `cargo run --release --example probe -- [DIR]` with tables built by
//! `mancala-tb build oware --max-seeds 12 --dir DIR` (DIR defaults to
//! `tablebases`).

use std::error::Error;
use std::path::PathBuf;

use mancala_tb::games::oware::{self, Ruleset};
use mancala_tb::tablebase::oware::{Detail, OwareTablebase};

fn main() -> Result<(), Box<dyn Error>> {
    let dir = PathBuf::from(std::env::args().nth(1).unwrap_or("tablebases".into()));
    let tables = OwareTablebase::open(&dir, Ruleset::Awari)?;

    // One position: twelve pit counts, the mover's six first.
    let board = oware::parse_board(&[3, 0, 1, 2, 0, 1, 0, 2, 1, 0, 1, 1])?;
    println!("value {} for the side to move", tables.value(&board)?);
    for m in tables.move_values(&board)? {
        println!("  pit {}: {} (captures {})", m.pit, m.value, m.captured);
    }

    // Many positions at once: each block of the tables is decoded once for
    // the whole batch, so this is far faster per position.
    let boards: Vec<oware::Board> = (0..6u8)
        .map(|i| {
            let mut b = board;
            b.rotate_left(usize::from(i));
            b
        })
        .collect();
    for (b, answer) in boards
        .iter()
        .zip(tables.probe_many(&boards, Detail::Values)?)
    {
        println!("{b:?}: {}", answer?.value);
    }
    Ok(())
}
