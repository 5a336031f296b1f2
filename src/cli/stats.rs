//! `mancala-tb stats`: the value histogram of one layer.

use std::collections::BTreeMap;

use clap::{Args, Subcommand};

use super::common::OwareTables;
use crate::games::oware::MAX_SEEDS;
use crate::tablebase::oware as tb;

#[derive(Debug, Subcommand)]
pub enum StatsGame {
    /// Value histogram of one Oware layer
    Oware(StatsOware),
    /// Value histogram of one En Gehé layer
    Engehe(super::engehe::StatsEngehe),
    /// Wins, draws, losses and value histogram of an Omweso table
    Omweso(super::omweso_tables::StatsOmweso),
}

#[derive(Debug, Args)]
pub struct StatsOware {
    #[command(flatten)]
    tables: OwareTables,
    /// The layer: seeds on the board
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=MAX_SEEDS as i64))]
    seeds: u32,
    /// Print JSON: {"seeds": N, "positions": P, "histogram": {"-3": 12, ...}}
    #[arg(long)]
    json: bool,
}

pub fn run(game: StatsGame) -> anyhow::Result<()> {
    let args = match game {
        StatsGame::Oware(args) => args,
        StatsGame::Engehe(args) => return super::engehe::stats(args),
        StatsGame::Omweso(args) => return super::omweso_tables::stats(args),
    };
    let seeds = args.seeds as usize;
    let layers = tb::decode_layers(&args.tables.dir, args.tables.rules, seeds, |_, _| Ok(()))?;
    let values = &layers.0[seeds];
    let mut histogram = BTreeMap::<i8, u64>::new();
    for &v in values.iter() {
        *histogram.entry(v).or_default() += 1;
    }
    if args.json {
        let hist: serde_json::Map<String, serde_json::Value> = histogram
            .iter()
            .map(|(v, n)| (v.to_string(), (*n).into()))
            .collect();
        let out = serde_json::json!({
            "seeds": args.seeds,
            "positions": values.len(),
            "histogram": hist,
        });
        println!("{out}");
    } else {
        println!(
            "{} layer {}: {} positions",
            args.tables.rules,
            args.seeds,
            values.len()
        );
        println!("{:>6} {:>13} {:>8}", "value", "positions", "share");
        for (v, n) in &histogram {
            let share = 100.0 * *n as f64 / values.len() as f64;
            println!("{v:>6} {n:>13} {share:>7.3}%");
        }
    }
    Ok(())
}
