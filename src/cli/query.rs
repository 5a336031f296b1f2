//! `mancala-tb query`: the perfect-play value of a position and of its moves.

use clap::{Args, Subcommand};

use super::common::{OwareTables, oware_board, parse_pit};
use crate::games::oware::{self, Ruleset};
use crate::tablebase::oware::{OwareTablebase, PvEnd, PvStep};

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
    /// Print JSON: {"value": v, "moves": [{"pit": 0, "value": -1}, ...],
    /// "best": [pits], "pv": [{"pit": p, "captured": c, "value": v}, ...]}
    #[arg(long)]
    json: bool,
    /// Longest principal variation shown, in moves
    #[arg(long, default_value_t = 100)]
    pv_limit: usize,
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
    let best: Vec<u8> = moves
        .iter()
        .filter(|m| m.value == value)
        .map(|m| m.pit)
        .collect();
    let (pv, end) = tables.principal_variation(&board, args.pv_limit)?;
    if args.json {
        let moves: Vec<_> = moves
            .iter()
            .map(|m| serde_json::json!({"pit": m.pit, "value": m.value}))
            .collect();
        let pv: Vec<_> = pv
            .iter()
            .map(|s| serde_json::json!({"pit": s.pit, "captured": s.captured, "value": s.value}))
            .collect();
        println!(
            "{}",
            serde_json::json!({"value": value, "moves": moves, "best": best, "pv": pv})
        );
    } else {
        println!("value {value:+} ({})", describe(value));
        if moves.is_empty() {
            println!("no legal move: the game is over");
        }
        for m in &moves {
            let mark = if m.value == value { "  best" } else { "" };
            println!(
                "  pit {}: {:+} (captures {}){mark}",
                m.pit, m.value, m.captured
            );
        }
        print_pv(tables.rules(), &pv, end);
    }
    Ok(())
}

/// The principal variation, one move per line with the position after it
/// (seen from the player to move next).
fn print_pv(rules: Ruleset, pv: &[PvStep], end: PvEnd) {
    let Some(last) = pv.last() else {
        return;
    };
    println!("principal variation (position after each move, next mover's pits first):");
    let mut score = [0i32; 2];
    for (i, step) in pv.iter().enumerate() {
        score[i % 2] += i32::from(step.captured);
        let pits: Vec<String> = step.board.iter().map(|p| p.to_string()).collect();
        println!(
            "  {:>3}. {} pit {} captures {:>2} (value {:+})  {}",
            i + 1,
            if i % 2 == 0 { "mover   " } else { "opponent" },
            step.pit,
            step.captured,
            step.value,
            pits.join(" ")
        );
    }
    if end == PvEnd::GameOver {
        // The player to move at the end cannot: the rest is shared out.
        let stuck = pv.len() % 2;
        let rest = oware::no_move_value(rules, &last.board);
        score[if rest < 0 { 1 - stuck } else { stuck }] += i32::from(rest.abs());
    }
    let why = match end {
        PvEnd::GameOver => "the game ends (remaining seeds shared out by the rules)",
        PvEnd::Repetition => "the position repeats: best play goes on for ever",
        PvEnd::Limit => "length limit (--pv-limit)",
    };
    println!(
        "  seeds won along the line: mover {}, opponent {}; stops because {why}",
        score[0], score[1]
    );
}

fn describe(value: i8) -> String {
    match value {
        0 => "draw with perfect play".into(),
        v if v > 0 => format!("the mover wins {v} more seeds than the opponent"),
        v => format!("the opponent wins {} more seeds than the mover", -v),
    }
}
