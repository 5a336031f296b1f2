//! Command-line front end: one module per subcommand, each with its clap
//! arguments and a `run` function. The binary only parses and reports errors.

use clap::{Parser, Subcommand};

mod build;
mod common;
mod engehe;
mod info;
mod loops;
mod moves;
mod omweso;
mod omweso_tables;
mod play;
mod plot;
mod published;
mod query;
#[cfg(feature = "server")]
mod serve;
mod stats;
mod verify;

/// Perfect-play tablebases for mancala games (Oware/Awari, Omweso, En Gehé).
///
/// Build tables layer by layer with `build`, then ask them for values with
/// `query` and `stats`.
#[derive(Debug, Parser)]
#[command(name = "mancala-tb", version, about, long_about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build tablebases by retrograde analysis
    Build {
        #[command(subcommand)]
        game: build::BuildGame,
    },
    /// Perfect-play value of a position and of each of its moves
    Query {
        #[command(subcommand)]
        game: query::QueryGame,
    },
    /// How many positions of a layer have each value
    Stats {
        #[command(subcommand)]
        game: stats::StatsGame,
    },
    /// Check tables: headers, checksums, every value against its children
    Verify {
        #[command(subcommand)]
        game: verify::VerifyGame,
    },
    /// One line per table file: game, rules, seeds, size, checksum status
    Info(info::InfoArgs),
    /// Write a layer in the published format (scores.N)
    Export {
        #[command(subcommand)]
        game: published::ExportGame,
    },
    /// Read a published scores.N file into a compressed table
    Import {
        #[command(subcommand)]
        game: published::ImportGame,
    },
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
    /// Play against perfect play in the terminal
    Play {
        #[command(subcommand)]
        game: play::PlayGame,
    },
    /// Value and loss of each move of a game
    Analyse {
        #[command(subcommand)]
        game: play::AnalyseGame,
    },
    /// Plots of the tables: values or build rates per layer
    Plot {
        #[command(subcommand)]
        game: plot::PlotGame,
    },
    /// HTTP server: the JSON API of `query --json` and a board page
    #[cfg(feature = "server")]
    Serve(serve::ServeArgs),
}

/// Runs one parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Build { game } => build::run(game),
        Command::Query { game } => query::run(game),
        Command::Stats { game } => stats::run(game),
        Command::Verify { game } => verify::run(game),
        Command::Info(args) => info::run(args),
        Command::Export { game } => published::export(game),
        Command::Import { game } => published::import(game),
        Command::Loops { game } => loops::run(game),
        Command::Moves { game } => moves::run(game),
        Command::Play { game } => play::play(game),
        Command::Analyse { game } => play::analyse(game),
        Command::Plot { game } => plot::run(game),
        #[cfg(feature = "server")]
        Command::Serve(args) => serve::run(args),
    }
}
