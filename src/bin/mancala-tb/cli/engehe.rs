//! The En Gehé commands: `build engehe`, `query engehe`, `stats engehe`.

use std::path::PathBuf;

use clap::Args;

use super::distances;
use super::shared::{Bars, ProbeIo, parse_pit, print_layer_histogram, probe_with, thread_pool};
use crate::answer::EngeheAnswer;
use crate::probe_lines::{Answer, BatchProber, numbers};
use mancala_tb::error::LineError;
use mancala_tb::games::engehe::{self, MAX_COUNTERS, Position, Rules};
use mancala_tb::games::omweso::Endless;
use mancala_tb::tablebase::DistanceTables;
use mancala_tb::tablebase::engehe::{self as tb, Config, EngeheTablebase, EngeheTbError};

/// Which En Gehé tables to use.
#[derive(Debug, Args)]
pub struct EngeheTables {
    /// Holes per row (the board is 2 × WIDTH)
    #[arg(long, value_parser = clap::value_parser!(u32).range(engehe::MIN_WIDTH as i64..=engehe::MAX_WIDTH as i64))]
    width: u32,
    /// Never-ending moves: void (the game is void, worth 0) or illegal
    #[arg(long, default_value = "void")]
    endless: Endless,
    /// Tablebase folder; the layers go to DIR/engehe-wWIDTH-ENDLESS/
    #[arg(long, default_value = "tablebases")]
    dir: PathBuf,
}

impl EngeheTables {
    fn config(&self) -> Config {
        Config {
            width: self.width as usize,
            rules: Rules {
                endless: self.endless,
            },
        }
    }
}

#[derive(Debug, Args)]
pub struct BuildEngehe {
    #[command(flatten)]
    tables: EngeheTables,
    /// Build every layer from 0 up to this many counters on the board
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=MAX_COUNTERS as i64))]
    max_seeds: u32,
    /// Worker threads (default: one per core)
    #[arg(long)]
    threads: Option<usize>,
    /// Write the values only, without the distance tables (distance.N.mtb)
    /// that let lines reach the value; a rerun without it adds them
    #[arg(long)]
    no_distances: bool,
}

pub fn build(args: BuildEngehe) -> anyhow::Result<()> {
    let pool = thread_pool(args.threads)?;
    let config = args.tables.config();
    eprintln!(
        "Building En Gehé 2×{} ({}) layers 0..={} in {} with {} threads",
        config.width,
        config.rules,
        args.max_seeds,
        config.folder(&args.tables.dir).display(),
        pool.current_num_threads()
    );
    let observer = Bars::default();
    let distances = if args.no_distances {
        DistanceTables::Skip
    } else {
        DistanceTables::Build
    };
    let built = pool.install(|| {
        tb::build(
            &args.tables.dir,
            config,
            args.max_seeds as usize,
            distances,
            &observer,
        )
    })?;
    observer.print_summary(&built.layers);
    distances::print_summary(&built.distances);
    Ok(())
}

#[derive(Debug, Args)]
pub struct QueryEngehe {
    #[command(flatten)]
    tables: EngeheTables,
    /// Print JSON: {"value": v, "distance": d, "moves": [{"hole": 0,
    /// "captured": 1, "child": [holes], "value": -1, "distance": 1}, ...],
    /// "pv": [moves]}
    #[arg(long)]
    json: bool,
    /// Longest principal variation shown
    #[arg(long, default_value_t = 40)]
    pv_limit: usize,
    /// 2 × WIDTH hole counts, counter-clockwise from the mover's leftmost
    /// hole (the mover's row, then the opponent's)
    #[arg(required = true, num_args = 1.., value_parser = parse_pit, allow_negative_numbers = true)]
    holes: Vec<u32>,
}

pub fn query(args: QueryEngehe) -> anyhow::Result<()> {
    let config = args.tables.config();
    let pos = Position::new(config.width, &args.holes)?;
    let tables = EngeheTablebase::open(&args.tables.dir, config)?;
    let pv = tables.principal_variation(&pos, args.pv_limit)?;
    note_missing_distances(&tables, &pos, &pv);
    if args.json {
        let answer = EngeheAnswer::probe(&tables, &pos, args.pv_limit)?;
        println!("{}", serde_json::to_string(&answer)?);
        return Ok(());
    }
    let value = tables.value(&pos)?;
    let moves = tables.move_values(&pos)?;
    match tables.distance(&pos)? {
        Some(d) if value != 0 => println!(
            "{pos}: value {value:+}, next capture in {}",
            distances::plies(d)
        ),
        _ => println!("{pos}: value {value:+}"),
    }
    if moves.is_empty() {
        println!("no legal move: the game is over");
    }
    let best = tables.best(&pos, &moves)?.map(|m| (m.value, m.distance));
    for m in &moves {
        let best = if best == Some((m.value, m.distance)) {
            "  best"
        } else {
            ""
        };
        println!("  hole {}: {:+} ({}){best}", m.hole, m.value, move_text(m));
    }
    if !pv.is_empty() {
        println!("principal variation:");
        for (ply, m) in pv.iter().enumerate() {
            println!("  {:>3}. hole {}: {}", ply + 1, m.hole, move_text(m));
        }
    }
    Ok(())
}

/// What a move does: `captures 4, then …` (with the moves to the next
/// capture after a move that captures nothing), or `never ends`.
fn move_text(m: &tb::MoveValue) -> String {
    match (m.captured, m.child) {
        (Some(0), Some(child)) => match m.distance {
            Some(d) => format!("captures 0, then {child}; next capture in {d}"),
            None => format!("captures 0, then {child}"),
        },
        (Some(c), Some(child)) => format!("captures {c}, then {child}"),
        _ => "never ends: the game is void".into(),
    }
}

/// Says once if a layer the line from `pos` goes through has no distance
/// table, naming the command that adds them.
fn note_missing_distances(tables: &EngeheTablebase, pos: &Position, pv: &[tb::MoveValue]) {
    let layers = std::iter::once(pos.counters())
        .chain(pv.iter().filter_map(|m| m.child.map(|c| c.counters())));
    if let Some(args) = layers.filter_map(|l| tables.distances_missing(l)).next() {
        distances::note_missing(&args);
    }
}

#[derive(Debug, Args)]
pub struct StatsEngehe {
    #[command(flatten)]
    tables: EngeheTables,
    /// The layer: counters on the board
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=MAX_COUNTERS as i64))]
    seeds: u32,
    /// Print JSON: {"seeds": N, "positions": P, "histogram": {"-3": 12, ...}}
    #[arg(long)]
    json: bool,
}

pub fn stats(args: StatsEngehe) -> anyhow::Result<()> {
    let config = args.tables.config();
    let tables = EngeheTablebase::open(&args.tables.dir, config)?;
    let values = tables.layer_values(args.seeds as usize)?;
    let title = format!("En Gehé 2×{} ({})", config.width, config.rules);
    print_layer_histogram(&title, args.seeds, &values, args.json);
    Ok(())
}

#[derive(Debug, Args)]
pub struct VerifyEngehe {
    #[command(flatten)]
    tables: EngeheTables,
    /// Check layers 0..=N
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=MAX_COUNTERS as i64))]
    max_seeds: u32,
}

pub fn verify(args: VerifyEngehe) -> anyhow::Result<()> {
    let config = args.tables.config();
    let tables = EngeheTablebase::open(&args.tables.dir, config)?;
    let checked = std::sync::atomic::AtomicU64::new(0);
    let start = std::time::Instant::now();
    let report = tables.check_layers(args.max_seeds as usize, &|n| {
        checked.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    })?;
    let positions: u64 = (0..=args.max_seeds as usize)
        .map(|l| tables.layer_len(l))
        .collect::<Result<Vec<_>, _>>()?
        .iter()
        .sum();
    println!(
        "En Gehé 2×{} ({}) layers 0..={}: {positions} positions checked against their children, \
         the distances of {} layers too, in {:.1} s",
        config.width,
        config.rules,
        args.max_seeds,
        report.distances.len(),
        start.elapsed().as_secs_f64()
    );
    if let Some(&top) = report.missing_distances.last() {
        let layers: Vec<String> = (report.missing_distances.iter())
            .map(ToString::to_string)
            .collect();
        println!(
            "layers without a distance table: {}; `mancala-tb build {}` adds them",
            layers.join(", "),
            tables.distances_missing(top).unwrap_or_default()
        );
    }
    Ok(())
}

#[derive(Debug, Args)]
pub struct ProbeEngehe {
    #[command(flatten)]
    tables: EngeheTables,
    #[command(flatten)]
    io: ProbeIo,
}

pub fn probe(args: ProbeEngehe) -> anyhow::Result<()> {
    let tables = EngeheTablebase::open(&args.tables.dir, args.tables.config())?;
    probe_with(&EngeheLines { tables }, &args.io)
}

/// `probe engehe` lines: one position per line, answered one by one.
struct EngeheLines {
    tables: EngeheTablebase,
}

impl BatchProber for EngeheLines {
    type Position = engehe::Position;

    fn parse(&self, line: &str) -> Result<engehe::Position, String> {
        let width = self.tables.config().width;
        engehe::Position::new(width, &numbers(line)?).map_err(|e| e.to_string())
    }

    fn answer(&self, positions: &[engehe::Position], json: bool) -> Result<Vec<Answer>, LineError> {
        let answer = |pos: &engehe::Position| {
            let value = self.tables.value(pos)?;
            if !json {
                return Ok(value.to_string());
            }
            let moves: Vec<_> = self
                .tables
                .move_values(pos)?
                .iter()
                .map(|m| serde_json::json!({"hole": m.hole, "value": m.value, "distance": m.distance}))
                .collect();
            let distance = self.tables.distance(pos)?;
            let out = serde_json::json!({"holes": pos.holes(), "value": value, "distance": distance, "moves": moves});
            Ok(out.to_string())
        };
        Ok(positions
            .iter()
            .map(|pos| answer(pos).map_err(|e: EngeheTbError| LineError::of(&e, e.cause())))
            .collect())
    }
}
