//! Command-line front end: one module per subcommand, each with its clap arguments
//! and a `run` function. The binary only parses and reports errors.

use clap::{Parser, Subcommand};

/// Perfect-play tablebases for mancala games (Oware/Awari, Omweso, En Gehé).
#[derive(Debug, Parser)]
#[command(name = "mancala-tb", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {}

/// Runs one parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {}
}
