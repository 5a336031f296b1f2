//! `mancala-tb verify`: checks tables (headers, checksums, every value
//! against its children), optionally against published `scores.N` files.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};

use super::common::OwareTables;
use crate::games::oware::MAX_SEEDS;
use crate::index::oware as index;
use crate::tablebase::oware::{self as tb, OwareTablebase};

#[derive(Debug, Subcommand)]
pub enum VerifyGame {
    /// Verify Oware tables
    Oware(VerifyOware),
    /// Check En Gehé layers: every value against its children
    Engehe(super::engehe::VerifyEngehe),
    /// Check an Omweso table: every value against its moves
    Omweso(super::omweso_tables::VerifyOmweso),
}

#[derive(Debug, Args)]
pub struct VerifyOware {
    #[command(flatten)]
    tables: OwareTables,
    /// Check layers 0..=N (default: up to the highest layer present)
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=MAX_SEEDS as i64))]
    max_seeds: Option<u32>,
    /// A folder of published scores.N files that must hold the same values
    #[arg(long)]
    against: Option<PathBuf>,
}

pub fn run(game: VerifyGame) -> anyhow::Result<()> {
    let args = match game {
        VerifyGame::Oware(args) => args,
        VerifyGame::Engehe(args) => return super::engehe::verify(args),
        VerifyGame::Omweso(args) => return super::omweso_tables::verify(args),
    };
    let (dir, rules) = (&args.tables.dir, args.tables.rules);
    let max = match args.max_seeds {
        Some(max) => max as usize,
        None => {
            // Every layer up to the highest present: a gap is reported.
            let top = OwareTablebase::open(dir, rules)?.built_layers().last();
            top.ok_or_else(|| {
                anyhow::anyhow!(
                    "no {rules} tables in {}; build them with `mancala-tb build oware --rules {rules} --dir {}`",
                    tb::ruleset_dir(dir, rules).display(),
                    dir.display()
                )
            })?
        }
    };
    let total: u64 = (0..=max).map(index::layer_size).sum();
    let bar = ProgressBar::new(total).with_style(
        ProgressStyle::with_template(
            "verify [{bar:30}] {percent:>3}% {elapsed_precise} eta {eta} {per_sec}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    let start = std::time::Instant::now();
    tb::verify(dir, rules, max, args.against.as_deref(), &|_, positions| {
        bar.inc(positions)
    })?;
    bar.finish_and_clear();
    let seconds = start.elapsed().as_secs_f64();
    let against = args
        .against
        .map(|a| format!(", identical to the files in {}", a.display()))
        .unwrap_or_default();
    println!(
        "{rules} layers 0..={max}: {total} positions verified in {seconds:.1} s ({:.2}M positions/s): headers, checksums and every value against its children{against}",
        total as f64 / seconds / 1e6
    );
    Ok(())
}
