//! `mancala-tb stats`: the value histogram of one layer.

use clap::{Args, Subcommand};

use super::common::{OwareTables, print_layer_histogram};
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
    let title = args.tables.rules.to_string();
    print_layer_histogram(&title, args.seeds, values, args.json);
    Ok(())
}
