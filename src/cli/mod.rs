//! Command-line front end: one module per subcommand, each with its clap arguments
//! and a `run` function. The binary only parses and reports errors.

use clap::{Parser, Subcommand};

pub mod loops;
pub mod moves;
mod omweso;

/// Perfect-play tablebases for mancala games (Oware/Awari, Omweso, En Gehé).
#[derive(Debug, Parser)]
#[command(name = "mancala-tb", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Never-ending move analysis (Mayer test)
    Loops {
        #[command(subcommand)]
        game: loops::LoopsGame,
    },
    /// Legal moves of a position
    Moves {
        #[command(subcommand)]
        game: moves::MovesGame,
    },
}

/// Runs one parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Loops { game } => loops::run(game),
        Command::Moves { game } => moves::run(game),
    }
}
