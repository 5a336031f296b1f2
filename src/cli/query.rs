//! `mancala-tb query`: the perfect-play value of a position and of its moves.

use clap::{Args, Subcommand};

use super::common::{OwareTables, oware_board, parse_pit};
use crate::answer::OwareAnswer;
use crate::games::oware::Ruleset;
use crate::tablebase::oware::{OwareTablebase, PvEnd};

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
    /// Print JSON: {"value": v, "moves": [{"pit": 0, "captured": c,
    /// "child": [pits], "value": -1}, ...], "best": [pits],
    /// "pv": [{"pit": p, "captured": c, "board": [pits], "value": v}, ...]}
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
    let answer = OwareAnswer::probe(&tables, &board, args.pv_limit)?;
    if args.json {
        println!("{}", serde_json::to_string(&answer)?);
        return Ok(());
    }
    println!("value {:+} ({})", answer.value, describe(answer.value));
    if answer.moves.is_empty() {
        println!("no legal move: the game is over");
    }
    for m in &answer.moves {
        let mark = if m.value == answer.value {
            "  best"
        } else {
            ""
        };
        println!(
            "  pit {}: {:+} (captures {}){mark}",
            m.pit, m.value, m.captured
        );
    }
    print_pv(tables.rules(), &answer);
    Ok(())
}

/// The principal variation, one move per line with the position after it
/// (seen from the player to move next).
fn print_pv(rules: Ruleset, answer: &OwareAnswer) {
    if answer.pv.is_empty() {
        return;
    }
    println!("principal variation (position after each move, next mover's pits first):");
    for (i, step) in answer.pv.iter().enumerate() {
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
    let why = match answer.pv_end {
        PvEnd::GameOver => "the game ends (remaining seeds shared out by the rules)",
        PvEnd::Repetition => "the position repeats: best play goes on for ever",
        PvEnd::Limit => "length limit (--pv-limit)",
    };
    let score = answer.pv_score(rules);
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
