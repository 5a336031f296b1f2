//! The Omweso table commands: `build omweso`, `query omweso`, `stats omweso`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::Args;
use serde_json::json;

use super::super::distances;
use super::super::shared::{Bars, ProbeIo, named, parse_pit, probe_with, thread_pool};
use super::{RulesArgs, path_text};
use crate::answer::{OmwesoAnswer, OmwesoMove, OmwesoValue};
use crate::probe_lines::{Answer, BatchProber, numbers};
use mancala_tb::error::LineError;
use mancala_tb::games::omweso::{MAX_SEEDS, MAX_WIDTH, MIN_WIDTH, Position};
use mancala_tb::tablebase::omweso::{
    self as tb, Config, MoveResult, MoveValue, Objective, OmwesoTablebase, Value,
};
use mancala_tb::tablebase::{DistanceTables, ExplicitTbError};

/// Which Omweso table to use (the seeds come from the command or the position).
#[derive(Debug, Args)]
pub struct OmwesoTable {
    /// Columns of the 4 × WIDTH board
    #[arg(long, value_parser = clap::value_parser!(u32).range(MIN_WIDTH as i64..=MAX_WIDTH as i64))]
    width: u32,
    /// wdl (win/draw/loss with distance) or points (−12 … 12)
    #[arg(long, value_parser = named::<Objective>(Objective::ALL.map(Objective::name)), default_value_t = Objective::Wdl)]
    objective: Objective,
    #[command(flatten)]
    rules: RulesArgs,
    /// Tablebase folder
    #[arg(long, default_value = "tablebases")]
    dir: PathBuf,
}

impl OmwesoTable {
    fn config(&self, seeds: u32) -> Config {
        Config {
            width: self.width as usize,
            seeds: seeds as usize,
            rules: self.rules.rules(),
            objective: self.objective,
        }
    }
}

#[derive(Debug, Args)]
pub struct BuildOmweso {
    #[command(flatten)]
    table: OmwesoTable,
    /// Seeds on the board (constant in Omweso: one layer)
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=MAX_SEEDS as i64))]
    seeds: u32,
    /// Worker threads (default: one per core)
    #[arg(long)]
    threads: Option<usize>,
    /// Points tables: write the values only, without the distance table
    /// (wW-sS.distance.mtb) that lets lines reach the value; a rerun without
    /// it adds it
    #[arg(long)]
    no_distances: bool,
}

pub fn build(args: BuildOmweso) -> anyhow::Result<()> {
    let pool = thread_pool(args.threads)?;
    let config = args.table.config(args.seeds);
    eprintln!(
        "Building Omweso 4×{} with {} seeds ({}, {}) in {} with {} threads",
        config.width,
        config.seeds,
        config.objective,
        config.rules,
        config.path(&args.table.dir).display(),
        pool.current_num_threads()
    );
    let observer = Bars::default();
    let distances = if args.no_distances {
        DistanceTables::Skip
    } else {
        DistanceTables::Build
    };
    let report = pool.install(|| tb::build(&args.table.dir, config, distances, &observer))?;
    observer.print_summary(std::slice::from_ref(&report.layer));
    if let Some(d) = report.longest_win {
        println!("longest win: {}", distances::plies(d));
    }
    distances::print_summary(report.distances.as_slice());
    Ok(())
}

#[derive(Debug, Args)]
pub struct QueryOmweso {
    #[command(flatten)]
    table: OmwesoTable,
    /// Print JSON: {"value": …, "distance": d, "moves": [{"path": …, "value":
    /// …, "distance": d}], "pv": […]}
    #[arg(long)]
    json: bool,
    /// Longest principal variation shown
    #[arg(long, default_value_t = 40)]
    pv_limit: usize,
    /// 4 × WIDTH pit counts: the mover's 2W pits in sowing order (outer row
    /// from the left, then the inner row), then the opponent's
    #[arg(required = true, num_args = 1.., value_parser = parse_pit, allow_negative_numbers = true)]
    pits: Vec<u32>,
}

pub fn query(args: QueryOmweso) -> anyhow::Result<()> {
    let pos = Position::new(args.table.width as usize, &args.pits)?;
    let tables = OmwesoTablebase::open(&args.table.dir, args.table.config(pos.seeds()))?;
    if let Some(build_args) = tables.distances_missing() {
        distances::note_missing(&build_args);
    }
    if args.json {
        let answer = OmwesoAnswer::probe(&tables, &pos, args.pv_limit)?;
        println!("{}", serde_json::to_string(&answer)?);
        return Ok(());
    }
    let value = tables.value(&pos)?;
    let moves = tables.move_values(&pos)?;
    let pv = tables.principal_variation(&pos, args.pv_limit)?;
    match (value, tables.distance(&pos)?) {
        (Value::Points(p), Some(d)) if p != 0 => {
            println!("{pos}: {value}, the game ends in {}", distances::plies(d))
        }
        _ => println!("{pos}: {value}"),
    }
    if moves.is_empty() {
        println!("no legal move: the mover has lost (bulijo)");
    }
    let best = tables.best(&pos, &moves)?.map(|m| (m.value, m.distance));
    for m in &moves {
        let best = if best == Some((m.value, m.distance)) {
            "  best"
        } else {
            ""
        };
        let distance = match (m.value, m.distance, m.result) {
            (Value::Points(_), Some(d), MoveResult::Child(_)) => format!(" in {d}"),
            _ => String::new(),
        };
        println!(
            "  {}: {}{distance}{} {best}",
            path_text(&m.path),
            m.value,
            result_text(m)
        );
    }
    if !pv.is_empty() {
        println!("principal variation:");
        for (ply, m) in pv.iter().enumerate() {
            println!("  {:>3}. {}{}", ply + 1, path_text(&m.path), result_text(m));
        }
    }
    Ok(())
}

fn result_text(m: &MoveValue) -> String {
    match m.result {
        MoveResult::Wins(kind) => format!(" (wins: {}, {} points)", kind.name(), kind.points()),
        MoveResult::Void => " (never ends: the game is void)".into(),
        MoveResult::Child(child) => format!(" → {child}"),
    }
}

#[derive(Debug, Args)]
pub struct StatsOmweso {
    #[command(flatten)]
    table: OmwesoTable,
    /// Seeds on the board
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=MAX_SEEDS as i64))]
    seeds: u32,
    /// Print JSON: {"positions": P, "wins": …, "longest_win": …, "histogram": {…}}
    #[arg(long)]
    json: bool,
}

pub fn stats(args: StatsOmweso) -> anyhow::Result<()> {
    let config = args.table.config(args.seeds);
    let tables = OmwesoTablebase::open(&args.table.dir, config)?;
    let stats = tables.stats()?;
    let histogram = tables.histogram()?;
    let positions: u64 = histogram.values().sum();
    if args.json {
        let hist: serde_json::Map<String, serde_json::Value> = histogram
            .iter()
            .map(|(&v, &n)| (tables.decode(v).to_string(), n.into()))
            .collect();
        let o = stats.outcomes;
        println!(
            "{}",
            json!({"positions": positions, "wins": o.wins, "draws": o.draws, "losses": o.losses,
                   "longest_win": stats.longest_win, "longest_loss": stats.longest_loss, "histogram": hist})
        );
        return Ok(());
    }
    println!(
        "Omweso 4×{} with {} seeds ({}, {}): {positions} positions",
        config.width, config.seeds, config.objective, config.rules
    );
    let share = |n: u64| 100.0 * n as f64 / positions.max(1) as f64;
    let o = stats.outcomes;
    println!("wins {:>12} ({:.3}%)", o.wins, share(o.wins));
    println!("draws {:>11} ({:.3}%)", o.draws, share(o.draws));
    println!("losses {:>10} ({:.3}%)", o.losses, share(o.losses));
    if let (Some(w), Some(l)) = (stats.longest_win, stats.longest_loss) {
        println!(
            "longest win {}, longest loss {}",
            distances::plies(w),
            distances::plies(l)
        );
    }
    if config.objective == Objective::Points {
        println!("{:>6} {:>13} {:>8}", "points", "positions", "share");
        for (&v, &n) in &histogram {
            println!("{v:>+6} {n:>13} {:>7.3}%", share(n));
        }
    }
    Ok(())
}

#[derive(Debug, Args)]
pub struct VerifyOmweso {
    #[command(flatten)]
    table: OmwesoTable,
    /// Seeds on the board
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=MAX_SEEDS as i64))]
    seeds: u32,
}

pub fn verify(args: VerifyOmweso) -> anyhow::Result<()> {
    let config = args.table.config(args.seeds);
    let tables = OmwesoTablebase::open(&args.table.dir, config)?;
    let start = std::time::Instant::now();
    let checked = tables.check_consistency()?;
    let what = if checked.distances.is_empty() {
        "every position"
    } else {
        "every position and its distance"
    };
    println!(
        "Omweso 4×{} with {} seeds ({}, {}): {what} checked against its moves in {:.1} s",
        config.width,
        config.seeds,
        config.objective,
        config.rules,
        start.elapsed().as_secs_f64()
    );
    if let Some(build_args) = tables.distances_missing() {
        println!("no distance table; `mancala-tb build {build_args}` adds it");
    }
    Ok(())
}

#[derive(Debug, Args)]
pub struct ProbeOmweso {
    #[command(flatten)]
    table: OmwesoTable,
    #[command(flatten)]
    io: ProbeIo,
}

pub fn probe(args: ProbeOmweso) -> anyhow::Result<()> {
    probe_with(&OmwesoLines { table: args.table }, &args.io)
}

/// The line error of a failure of the Omweso tables.
fn line_error(e: &ExplicitTbError) -> LineError {
    LineError::of(e, e.cause())
}

/// `probe omweso` lines: one table per seed count, opened as lines need it.
struct OmwesoLines {
    table: OmwesoTable,
}

impl BatchProber for OmwesoLines {
    type Position = Position;

    fn parse(&self, line: &str) -> Result<Position, String> {
        Position::new(self.table.width as usize, &numbers(line)?).map_err(|e| e.to_string())
    }

    fn answer(&self, positions: &[Position], json: bool) -> Result<Vec<Answer>, LineError> {
        let mut tables = BTreeMap::new();
        let answers = positions.iter().map(|pos| {
            let seeds = pos.seeds();
            let tables = tables
                .entry(seeds)
                .or_insert_with(|| OmwesoTablebase::open(&self.table.dir, self.table.config(seeds)))
                .as_ref()
                .map_err(line_error)?;
            let value = tables.value(pos).map_err(|e| line_error(&e))?;
            if !json {
                return Ok(value.to_string());
            }
            let moves = tables.move_values(pos).map_err(|e| line_error(&e))?;
            let moves: Vec<_> = moves.iter().map(OmwesoMove::from).collect();
            let value = OmwesoValue::from(value);
            let distance = tables.distance(pos).map_err(|e| line_error(&e))?;
            let out = serde_json::json!({"pits": pos.pits(), "value": value, "distance": distance, "moves": moves});
            Ok(out.to_string())
        });
        Ok(answers.collect())
    }
}
