//! What the explicit games' commands say about distance tables: the
//! summary of a build, and the note when a line has none to follow.

use mancala_tb::tablebase::ExplicitDistanceReport;

/// Prints a line per distance table of a build (none: nothing).
pub fn print_summary(reports: &[ExplicitDistanceReport]) {
    if reports.is_empty() {
        return;
    }
    println!("distance tables (moves to what secures the value, with best play):");
    println!(
        "{:>5} {:>13} {:>8} {:>12} {:>11} {:>9}",
        "seeds", "positions", "longest", "bytes", "bytes/pos", "seconds"
    );
    for r in reports {
        println!(
            "{:>5} {:>13} {:>8} {:>12} {:>11.3} {:>9}",
            r.seeds,
            r.positions,
            r.longest,
            r.bytes,
            r.bytes as f64 / r.positions.max(1) as f64,
            r.seconds.map_or("built".into(), |s| format!("{s:.2}")),
        );
    }
}

/// The note, on standard error, that a line is followed without distance
/// tables: it may go round before it reaches the value.
pub fn note_missing(build_args: &str) {
    eprintln!(
        "note: these tables have no distance table, so the principal variation picks \
         among equally valued moves without knowing which makes progress and may repeat \
         before the value is reached; `mancala-tb build {build_args}` adds them"
    );
}

/// A distance in plies (one side's move each): `1 ply`, `5 plies`.
pub fn plies(n: u16) -> String {
    if n == 1 {
        "1 ply".into()
    } else {
        format!("{n} plies")
    }
}
