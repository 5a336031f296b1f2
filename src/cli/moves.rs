//! `mancala-tb moves <game>`: the legal moves of a position.

use clap::{Args, Subcommand};
use serde_json::json;

use super::omweso::{
    DEFAULT_MAX_SEEDS, RulesArgs, laps_text, path_json, path_text, position, with_spinner,
};
use crate::games::omweso::{Dedup, MoveGen, Outcome};

#[derive(Debug, Subcommand)]
pub enum MovesGame {
    /// Omweso: every legal move with its resulting position and any immediate win
    Omweso(MovesOmwesoArgs),
}

#[derive(Debug, Args)]
pub struct MovesOmwesoArgs {
    /// Board width W (columns), 2..=8
    #[arg(long, default_value_t = 8)]
    width: usize,
    /// Print JSON
    #[arg(long)]
    json: bool,
    /// Check that the position holds this many seeds
    #[arg(long)]
    seeds: Option<u32>,
    /// Most seeds accepted (never-ending moves take longer to decide with more seeds)
    #[arg(long, default_value_t = DEFAULT_MAX_SEEDS)]
    max_seeds: u32,
    /// The mover's first turn: no captures (landings relay instead)
    #[arg(long)]
    first_turn: bool,
    #[command(flatten)]
    rules: RulesArgs,
    /// The 4W pits: the mover's 2W then the opponent's 2W, each in sowing order
    pits: Vec<u32>,
}

pub fn run(game: MovesGame) -> anyhow::Result<()> {
    let MovesGame::Omweso(args) = game;
    let pos = position(args.width, &args.pits, args.seeds, args.max_seeds)?;
    let rules = args.rules.rules();
    let movegen = with_spinner(|| {
        let mut movegen = MoveGen::new();
        movegen.generate(&pos, &rules, !args.first_turn, Dedup::Position);
        movegen
    })?;
    let mut entries = Vec::new();
    for m in movegen.legal() {
        let path = movegen.path(m);
        let mut entry = json!({"path": path_json(path)});
        match m.outcome {
            Outcome::Ends {
                after,
                captured,
                win,
            } => {
                let win_json = win.map(|k| json!({"kind": k.name(), "points": k.points()}));
                entry["ends"] = json!(true);
                entry["laps"] = json!(m.laps);
                entry["sown"] = json!(m.sown);
                entry["captured"] = json!(captured);
                entry["position"] = json!(after.pits());
                entry["child"] = json!(after.flipped().pits());
                entry["win"] = json!(win_json);
                if !args.json {
                    let win_text = win.map_or(String::new(), |k| {
                        format!(", wins {} ({} points)", k.name(), k.points())
                    });
                    println!(
                        "{}: {}, {} sown{}{win_text}: {after}",
                        path_text(path),
                        laps_text(m.laps),
                        m.sown,
                        if captured { ", captures" } else { "" },
                    );
                }
            }
            Outcome::NeverEnds(cycle) => {
                entry["ends"] = json!(false);
                entry["void"] = json!(true);
                entry["cycle_start_lap"] = json!(cycle.start_lap);
                entry["period_laps"] = json!(cycle.period);
                if !args.json {
                    println!(
                        "{}: never ends (cycle from lap {}, period {}): voids the game",
                        path_text(path),
                        cycle.start_lap,
                        laps_text(cycle.period)
                    );
                }
            }
        }
        entries.push(entry);
    }
    if args.json {
        println!(
            "{}",
            json!({"width": args.width, "rules": rules.to_string(), "moves": entries})
        );
    }
    Ok(())
}
