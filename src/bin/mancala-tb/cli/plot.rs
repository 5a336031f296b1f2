//! `mancala-tb plot oware`: value and build-rate plots (`crate::plot`).

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::oware::OwareTables;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    /// Wins/draws/losses and the spread of the values, per layer
    Values,
    /// Positions solved per second, per layer built
    Rates,
}

#[derive(Debug, Args)]
pub struct PlotOware {
    #[command(flatten)]
    tables: OwareTables,
    /// The plot file: .svg or .png
    #[arg(long)]
    out: PathBuf,
    #[arg(long, value_enum, default_value_t = Kind::Values)]
    kind: Kind,
}

pub fn run(args: PlotOware) -> anyhow::Result<()> {
    let (dir, rules) = (&args.tables.dir, args.tables.rules);
    match args.kind {
        Kind::Values => crate::plot::plot_values(dir, rules, &args.out)?,
        Kind::Rates => crate::plot::plot_rates(dir, rules, &args.out)?,
    }
    eprintln!("wrote {}", args.out.display());
    Ok(())
}
