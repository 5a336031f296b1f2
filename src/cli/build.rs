//! `mancala-tb build`: builds tables layer by layer, with a progress bar per
//! layer and a summary table.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressState, ProgressStyle};

use crate::games::oware::{MAX_SEEDS, Ruleset};
use crate::tablebase::oware::{self as tb, BuildObserver, LayerPlan, LayerReport};

#[derive(Debug, Subcommand)]
pub enum BuildGame {
    /// Oware / Awari score tables, one layer per seed count
    Oware(BuildOware),
    /// En Gehé score tables for a 2 × W board, one layer per counter count
    Engehe(super::engehe::BuildEngehe),
    /// Omweso tables for a 4 × W board with S seeds (one layer)
    Omweso(super::omweso_tables::BuildOmweso),
}

#[derive(Debug, Args)]
pub struct BuildOware {
    /// Ruleset: awari (rules of the 2002 solution) or abapa (tournament rules)
    #[arg(long, value_enum, default_value_t = Ruleset::Awari)]
    rules: Ruleset,
    /// Build every layer from 0 up to this many seeds (at most 48)
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(0..=MAX_SEEDS as i64))]
    max_seeds: u32,
    /// Tablebase folder; the layers go to DIR/oware-RULES/
    #[arg(long, default_value = "tablebases")]
    dir: PathBuf,
    /// Worker threads (default: one per core)
    #[arg(long)]
    threads: Option<usize>,
    /// Also write the raw layers (scores.N, the published format) beside
    /// the compressed tables
    #[arg(long)]
    keep_raw: bool,
    /// Memory budget (e.g. 6G, 512M, 1.5G; binary units). Each layer is built
    /// in memory if it fits, else out of core with its states only in
    /// memory. Default: the memory available now, less 10%
    #[arg(long, value_parser = parse_size)]
    memory: Option<u64>,
    /// An out-of-core layer saves its state at the first threshold boundary
    /// after this many seconds, and a rerun resumes from there
    #[arg(long, default_value_t = tb::CHECKPOINT_EVERY.as_secs())]
    checkpoint_every: u64,
}

/// A size in bytes: a number with an optional unit K, M, G or T (powers of
/// 1024; a trailing B or iB is allowed).
pub(super) fn parse_size(s: &str) -> Result<u64, String> {
    let bad = || format!("'{s}' is not a size (e.g. 512M, 6G, 1.5G)");
    let upper = s.trim().to_ascii_uppercase();
    let body = upper.trim_end_matches("IB").trim_end_matches('B');
    let (number, unit) = match body.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&body[..i], c),
        _ => (body, ' '),
    };
    let shift = match unit {
        ' ' => 0,
        'K' => 10,
        'M' => 20,
        'G' => 30,
        'T' => 40,
        _ => return Err(bad()),
    };
    let value: f64 = number.trim().parse().map_err(|_| bad())?;
    if !value.is_finite() || value <= 0.0 || value * (1u64 << shift) as f64 >= u64::MAX as f64 {
        return Err(bad());
    }
    Ok((value * (1u64 << shift) as f64) as u64)
}

/// The memory available now (`MemAvailable`), less 10%.
fn default_memory() -> anyhow::Result<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo")
        .context("cannot read /proc/meminfo for the memory available; pass --memory")?;
    let kib: u64 = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .context("no MemAvailable in /proc/meminfo; pass --memory")?;
    Ok(kib * 1024 / 10 * 9)
}

pub fn run(game: BuildGame) -> anyhow::Result<()> {
    match game {
        BuildGame::Oware(args) => build_oware(args),
        BuildGame::Engehe(args) => super::engehe::build(args),
        BuildGame::Omweso(args) => super::omweso_tables::build(args),
    }
}

/// The worker pool of a build: `threads` workers, or one per core.
pub(super) fn thread_pool(threads: Option<usize>) -> anyhow::Result<rayon::ThreadPool> {
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(threads) = threads {
        anyhow::ensure!(threads > 0, "--threads must be at least 1");
        pool = pool.num_threads(threads);
    }
    pool.build().context("cannot start the worker threads")
}

fn build_oware(args: BuildOware) -> anyhow::Result<()> {
    let pool = thread_pool(args.threads)?;
    eprintln!(
        "Building {} layers 0..={} in {} with {} threads",
        args.rules,
        args.max_seeds,
        tb::ruleset_dir(&args.dir, args.rules).display(),
        pool.current_num_threads()
    );
    let memory = match args.memory {
        Some(memory) => memory,
        None => default_memory()?,
    };
    eprintln!("Memory budget {}", tb::human_bytes(memory));
    let options = tb::BuildOptions {
        keep_raw: args.keep_raw,
        checkpoint_every: std::time::Duration::from_secs(args.checkpoint_every),
        ..tb::BuildOptions::new(args.max_seeds as usize, memory)
    };
    let observer = Bars::default();
    let reports = pool.install(|| tb::build(&args.dir, args.rules, &options, &observer))?;
    print_summary(&reports, &observer.plans.lock().expect("plans lock"));
    Ok(())
}

/// One progress bar per layer being built.
#[derive(Default)]
pub(super) struct Bars {
    bar: std::sync::Mutex<Option<ProgressBar>>,
    /// The engine and memory of each Oware layer built, for the summary.
    plans: std::sync::Mutex<Vec<(usize, LayerPlan, u64)>>,
}

impl BuildObserver for Bars {
    fn layer_planned(&self, seeds: usize, plan: &LayerPlan, memory_bytes: u64) {
        self.plans
            .lock()
            .expect("plans lock")
            .push((seeds, *plan, memory_bytes));
    }

    fn layer_resumed(&self, seeds: usize) {
        eprintln!("layer {seeds}: resuming from its checkpoint");
    }

    fn layer_started(&self, seeds: usize, positions: u64) {
        let plan = self.plans.lock().expect("plans lock").last().copied();
        let mode = match plan {
            Some((s, plan, memory)) if s == seeds => {
                format!("{} {}", plan.mode, tb::human_bytes(memory))
            }
            _ => String::new(),
        };
        let style = ProgressStyle::with_template(&format!(
            "layer {{prefix:>2}} [{{bar:30}}] {{percent:>3}}% {{elapsed_precise}} eta {{eta:<4}} {{rate}} {mode}"
        ))
        .expect("valid template")
        .with_key(
            "rate",
            |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                // Two work steps per position.
                let rate = state.pos() as f64 / 2.0 / state.elapsed().as_secs_f64().max(1e-9);
                let _ = write!(w, "{:.2}M positions/s", rate / 1e6);
            },
        )
        .progress_chars("=> ");
        let bar = ProgressBar::new(2 * positions)
            .with_style(style)
            .with_prefix(seeds.to_string());
        *self.bar.lock().expect("bar lock") = Some(bar);
    }

    fn advance(&self, steps: u64) {
        if let Some(bar) = self.bar.lock().expect("bar lock").as_ref() {
            bar.inc(steps);
        }
    }

    fn layer_finished(&self, _report: &LayerReport) {
        if let Some(bar) = self.bar.lock().expect("bar lock").take() {
            bar.finish();
        }
    }
}

/// The summary table of a build; `plans` gives the engine and memory of
/// the Oware layers built (last two columns).
pub(super) fn print_summary(reports: &[LayerReport], plans: &[(usize, LayerPlan, u64)]) {
    println!(
        "{:>5} {:>13} {:>13} {:>13} {:>13} {:>9} {:>12} {:>11}  {:<11} {:>10}",
        "seeds",
        "positions",
        "wins",
        "draws",
        "losses",
        "seconds",
        "positions/s",
        "bytes/pos",
        "mode",
        "memory"
    );
    let count = |n: Option<u64>| n.map_or("-".to_string(), |n| n.to_string());
    let (mut built_positions, mut built_seconds) = (0, 0.0);
    for r in reports {
        let (secs, rate) = match r.seconds {
            Some(s) => {
                built_positions += r.positions;
                built_seconds += s;
                (format!("{s:.2}"), format!("{:.0}", r.positions as f64 / s))
            }
            None => ("built".into(), "-".into()),
        };
        let (mode, memory) = match plans.iter().find(|p| p.0 == r.seeds) {
            Some((_, plan, memory)) => (plan.mode.to_string(), tb::human_bytes(*memory)),
            None => ("-".into(), "-".into()),
        };
        println!(
            "{:>5} {:>13} {:>13} {:>13} {:>13} {:>9} {:>12} {:>11.3}  {:<11} {:>10}",
            r.seeds,
            r.positions,
            count(r.outcomes.map(|o| o.wins)),
            count(r.outcomes.map(|o| o.draws)),
            count(r.outcomes.map(|o| o.losses)),
            secs,
            rate,
            r.bytes as f64 / r.positions as f64,
            mode,
            memory
        );
    }
    let total: u64 = reports.iter().map(|r| r.positions).sum();
    let bytes: u64 = reports.iter().map(|r| r.bytes).sum();
    println!(
        "total {total:>13} positions in {bytes} bytes of tables ({:.3} bytes/position)",
        bytes as f64 / total as f64
    );
    if built_seconds > 0.0 {
        println!(
            "built {built_positions} positions in {built_seconds:.1} s ({:.2}M positions/s)",
            built_positions as f64 / built_seconds / 1e6
        );
    } else {
        println!("every layer was already built");
    }
}
