//! Arguments shared by several subcommands.

use std::path::PathBuf;

use clap::Args;

use crate::games::oware::{self, Board, Ruleset};

/// Which Oware tables to use.
#[derive(Debug, Args)]
pub struct OwareTables {
    /// Ruleset: awari (rules of the 2002 solution) or abapa (tournament rules)
    #[arg(long, value_enum, default_value_t = Ruleset::Awari)]
    pub rules: Ruleset,
    /// Tablebase folder (one sub-folder per game and ruleset)
    #[arg(long, default_value = "tablebases")]
    pub dir: PathBuf,
}

/// A pit count: a whole number from 0 up.
pub fn parse_pit(s: &str) -> Result<u32, String> {
    s.parse::<u32>()
        .map_err(|_| format!("'{s}' is not a pit count (a whole number, 0 or more)"))
}

/// Twelve pit counts, mover's leftmost pit first, counter-clockwise.
pub fn oware_board(pits: &[u32]) -> anyhow::Result<Board> {
    oware::parse_board(pits).map_err(anyhow::Error::msg)
}

/// Prints the value histogram of a layer: as JSON
/// (`{"seeds": N, "positions": P, "histogram": {"-3": 12, ...}}`) or as a
/// table under `title`.
pub fn print_layer_histogram(title: &str, seeds: u32, values: &[i8], json: bool) {
    let mut histogram = std::collections::BTreeMap::<i8, u64>::new();
    for &v in values {
        *histogram.entry(v).or_default() += 1;
    }
    if json {
        let hist: serde_json::Map<String, serde_json::Value> = histogram
            .iter()
            .map(|(v, n)| (v.to_string(), (*n).into()))
            .collect();
        let out = serde_json::json!({"seeds": seeds, "positions": values.len(), "histogram": hist});
        println!("{out}");
        return;
    }
    println!("{title} layer {seeds}: {} positions", values.len());
    println!("{:>6} {:>13} {:>8}", "value", "positions", "share");
    for (v, n) in &histogram {
        let share = 100.0 * *n as f64 / values.len() as f64;
        println!("{v:>6} {n:>13} {share:>7.3}%");
    }
}
