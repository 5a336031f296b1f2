//! The Omweso rules commands: `moves` (the legal moves of a position) and
//! `loops` (the Mayer test, move by move or as a census of pure relay).

use std::time::Instant;

use clap::Args;

use super::super::exit::CliError;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;

use super::{
    DEFAULT_MAX_SEEDS, RulesArgs, laps_text, path_json, path_text, position, with_spinner,
};
use mancala_tb::games::omweso::census::{Census, census, configurations};
use mancala_tb::games::omweso::{Dedup, MAX_SEEDS, MoveGen, Outcome, check_width};

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

pub fn moves(args: MovesOmwesoArgs) -> anyhow::Result<()> {
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

#[derive(Debug, Args)]
pub struct LoopsOmwesoArgs {
    /// Board width W (columns), 2..=8
    #[arg(long, default_value_t = 8)]
    width: usize,
    /// Print JSON
    #[arg(long)]
    json: bool,
    /// Count never-ending pure-relay moves over all seed configurations of one side
    #[arg(long)]
    census: bool,
    /// Census: largest seed total (required). Position: most seeds accepted [default: 64]
    #[arg(long)]
    max_seeds: Option<u32>,
    /// Check that the position holds this many seeds
    #[arg(long, conflicts_with = "census")]
    seeds: Option<u32>,
    #[command(flatten)]
    rules: RulesArgs,
    /// The 4W pits: the mover's 2W then the opponent's 2W, each in sowing order
    pits: Vec<u32>,
}

pub fn loops(args: LoopsOmwesoArgs) -> anyhow::Result<()> {
    if args.census {
        run_census(&args)
    } else {
        run_position(&args)
    }
}

fn run_position(args: &LoopsOmwesoArgs) -> anyhow::Result<()> {
    let max_seeds = args.max_seeds.unwrap_or(DEFAULT_MAX_SEEDS);
    let pos = position(args.width, &args.pits, args.seeds, max_seeds)?;
    let rules = args.rules.rules();
    let movegen = with_spinner(|| {
        let mut movegen = MoveGen::new();
        movegen.generate(&pos, &rules, true, Dedup::StartChoice);
        movegen
    })?;
    let mut entries = Vec::new();
    for m in movegen.moves() {
        let path = movegen.path(m);
        let Some(start) = path.first() else {
            continue;
        };
        let mut entry = json!({"pit": start.pit, "direction": start.dir.name()});
        match m.outcome {
            Outcome::Ends { after, .. } => {
                entry["ends"] = json!(true);
                entry["laps"] = json!(m.laps);
                entry["sown"] = json!(m.sown);
                entry["position"] = json!(after.pits());
                if !args.json {
                    println!(
                        "{}: ends after {}, {} seeds sown: {after}",
                        path_text(path),
                        laps_text(m.laps),
                        m.sown
                    );
                }
            }
            Outcome::NeverEnds(cycle) => {
                entry["ends"] = json!(false);
                entry["cycle_start_lap"] = json!(cycle.start_lap);
                entry["period_laps"] = json!(cycle.period);
                if !args.json {
                    println!(
                        "{}: never ends: cycle starts at lap {}, period {}",
                        path_text(path),
                        cycle.start_lap,
                        laps_text(cycle.period)
                    );
                }
            }
        }
        entry["path"] = path_json(path);
        entries.push(entry);
    }
    if args.json {
        println!("{}", json!({ "moves": entries }));
    }
    Ok(())
}

fn run_census(args: &LoopsOmwesoArgs) -> anyhow::Result<()> {
    let bad = |message: String| Err(CliError::BadInput(message).into());
    if !args.pits.is_empty() {
        return bad("--census takes no position".into());
    }
    let Some(max_seeds) = args.max_seeds else {
        return bad("--census needs --max-seeds".into());
    };
    check_width(args.width)?;
    if max_seeds > MAX_SEEDS {
        return bad(format!(
            "--max-seeds {max_seeds} is more than the {MAX_SEEDS} seeds the engine supports"
        ));
    }
    let total: u64 = (0..=max_seeds)
        .map(|s| configurations(s, 2 * args.width))
        .fold(0, u64::saturating_add);
    let bar = if total > 2_000_000 {
        let bar = ProgressBar::new(total);
        bar.set_style(ProgressStyle::with_template(
            "{bar:40} {percent}% {human_pos}/{human_len} configurations, eta {eta}",
        )?);
        bar
    } else {
        ProgressBar::hidden()
    };
    let started = Instant::now();
    let result = census(args.width, max_seeds, &|done| bar.inc(done))?;
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    if args.json {
        println!("{}", census_json(&result, max_seeds));
    } else {
        print_census(&result, seconds);
    }
    Ok(())
}

fn census_json(result: &Census, max_seeds: u32) -> serde_json::Value {
    let rows: Vec<_> = result
        .rows
        .iter()
        .map(|r| json!({"seeds": r.seeds, "configurations": r.configurations, "never_ending": r.never_ending}))
        .collect();
    json!({
        "width": result.width,
        "max_seeds": max_seeds,
        "rows": rows,
        "smallest": result.smallest(),
    })
}

fn print_census(result: &Census, seconds: f64) {
    println!(
        "pure relay on {} pits (width {}): configurations with a never-ending move",
        2 * result.width,
        result.width
    );
    println!(
        "{:>5} {:>15} {:>13}",
        "seeds", "configurations", "never-ending"
    );
    for r in &result.rows {
        println!(
            "{:>5} {:>15} {:>13}",
            r.seeds, r.configurations, r.never_ending
        );
    }
    match result.smallest() {
        Some(s) => println!("smallest total with a never-ending move: {s}"),
        None => println!("no never-ending move up to this total"),
    }
    println!("time: {seconds:.2} s");
}
