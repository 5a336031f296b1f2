//! `mancala-tb query`: the perfect-play value of a position and of its moves.

use clap::{Args, Subcommand};

use super::common::{OwareTables, oware_board, parse_pit};
use crate::tablebase::oware::OwareTablebase;

#[derive(Debug, Subcommand)]
pub enum QueryGame {
    /// Query Oware tables
    Oware(QueryOware),
    /// Query En Gehé tables
    Engehe(super::engehe::QueryEngehe),
    /// Query an Omweso table
    Omweso(super::omweso_tables::QueryOmweso),
}

#[derive(Debug, Args)]
pub struct QueryOware {
    #[command(flatten)]
    tables: OwareTables,
    /// Print JSON: {"value": v, "moves": [{"pit": 0, "value": -1}, ...]}
    #[arg(long)]
    json: bool,
    /// Twelve pit counts, counter-clockwise from the mover's leftmost pit
    /// (mover's pits 0-5, then the opponent's 6-11)
    #[arg(required = true, num_args = 1.., value_parser = parse_pit, allow_negative_numbers = true)]
    pits: Vec<u32>,
}

pub fn run(game: QueryGame) -> anyhow::Result<()> {
    let args = match game {
        QueryGame::Oware(args) => args,
        QueryGame::Engehe(args) => return super::engehe::query(args),
        QueryGame::Omweso(args) => return super::omweso_tables::query(args),
    };
    let board = oware_board(&args.pits)?;
    let tables = OwareTablebase::open(&args.tables.dir, args.tables.rules)?;
    let value = tables.value(&board)?;
    let moves = tables.move_values(&board)?;
    if args.json {
        let moves: Vec<_> = moves
            .iter()
            .map(|m| serde_json::json!({"pit": m.pit, "value": m.value}))
            .collect();
        println!("{}", serde_json::json!({"value": value, "moves": moves}));
    } else {
        println!("value {value:+} ({})", describe(value));
        if moves.is_empty() {
            println!("no legal move: the game is over");
        }
        for m in &moves {
            let best = if m.value == value { "  best" } else { "" };
            println!(
                "  pit {}: {:+} (captures {}){best}",
                m.pit, m.value, m.captured
            );
        }
    }
    Ok(())
}

fn describe(value: i8) -> String {
    match value {
        0 => "draw with perfect play".into(),
        v if v > 0 => format!("the mover wins {v} more seeds than the opponent"),
        v => format!("the opponent wins {} more seeds than the mover", -v),
    }
}
