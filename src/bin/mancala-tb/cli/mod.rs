//! Command-line front end, cut by game: `oware`, `engehe` and `omweso` hold
//! each game's arguments and `run` functions, `info` the game-independent
//! file listing, `shared` the progress bars, summaries and worker pool;
//! `play` (play and analyse), `plot` and `serve` are the commands for people,
//! over the binary's `play.rs`, `plot.rs` and `server/`; `plan` prints the
//! projection of an Oware build, in words and in JSON. This file holds the
//! verb enums, which only route to those modules.

use clap::{Parser, Subcommand};

pub use exit::report;

mod distances;
mod engehe;
mod exit;
mod info;
mod omweso;
mod oware;
mod plan;
mod play;
mod plot;
#[cfg(feature = "server")]
mod serve;
mod shared;

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
        game: BuildGame,
    },
    /// Perfect-play value of a position and of each of its moves
    Query {
        #[command(subcommand)]
        game: QueryGame,
    },
    /// Values of many positions, one per line of a file or standard input
    Probe {
        #[command(subcommand)]
        game: ProbeGame,
    },
    /// How many positions of a layer have each value
    Stats {
        #[command(subcommand)]
        game: StatsGame,
    },
    /// Check tables: headers, checksums, every value against its children
    Verify {
        #[command(subcommand)]
        game: VerifyGame,
    },
    /// One line per table file: game, rules, seeds, size, checksum status
    Info(info::InfoArgs),
    /// Write a layer in the published format (scores.N)
    Export {
        #[command(subcommand)]
        game: ExportGame,
    },
    /// Read a published scores.N file into a compressed table
    Import {
        #[command(subcommand)]
        game: ImportGame,
    },
    /// Never-ending move analysis (Mayer test)
    Loops {
        #[command(subcommand)]
        game: LoopsGame,
    },
    /// Legal moves of a position
    Moves {
        #[command(subcommand)]
        game: MovesGame,
    },
    /// Project a build: engine, memory, disk and time per layer
    Plan {
        #[command(subcommand)]
        game: PlanGame,
    },
    /// Play against perfect play in the terminal
    Play {
        #[command(subcommand)]
        game: PlayGame,
    },
    /// Value and loss of each move of a game
    Analyse {
        #[command(subcommand)]
        game: AnalyseGame,
    },
    /// Plots of the tables: values or build rates per layer
    Plot {
        #[command(subcommand)]
        game: PlotGame,
    },
    /// HTTP server: the JSON API of `query --json` and a board page
    #[cfg(feature = "server")]
    Serve(serve::ServeArgs),
}

#[derive(Debug, Subcommand)]
pub enum PlayGame {
    /// Play Oware against perfect play (your moves on standard input)
    Oware(play::PlayOware),
}

#[derive(Debug, Subcommand)]
pub enum AnalyseGame {
    /// Analyse an Oware game: each move's value and loss
    Oware(play::AnalyseOware),
}

#[derive(Debug, Subcommand)]
pub enum PlotGame {
    /// Plot Oware tables
    Oware(plot::PlotOware),
}

#[derive(Debug, Subcommand)]
pub enum BuildGame {
    /// Oware / Awari score tables, one layer per seed count
    Oware(oware::BuildOware),
    /// En Gehé score tables for a 2 × W board, one layer per counter count
    Engehe(engehe::BuildEngehe),
    /// Omweso tables for a 4 × W board with S seeds (one layer)
    Omweso(omweso::BuildOmweso),
}

#[derive(Debug, Subcommand)]
pub enum QueryGame {
    /// Query Oware tables
    Oware(oware::QueryOware),
    /// Query En Gehé tables
    Engehe(engehe::QueryEngehe),
    /// Query an Omweso table
    Omweso(omweso::QueryOmweso),
}

#[derive(Debug, Subcommand)]
pub enum ProbeGame {
    /// Probe Oware tables: each line holds twelve pit counts, as `query` takes them
    Oware(oware::ProbeOware),
    /// Probe En Gehé tables: each line holds the 2 × WIDTH hole counts, as `query` takes them
    Engehe(engehe::ProbeEngehe),
    /// Probe Omweso tables: each line holds the 4 × WIDTH pit counts, as
    /// `query` takes them (any seed count whose table is built)
    Omweso(omweso::ProbeOmweso),
}

#[derive(Debug, Subcommand)]
pub enum StatsGame {
    /// Value histogram of one Oware layer
    Oware(oware::StatsOware),
    /// Value histogram of one En Gehé layer
    Engehe(engehe::StatsEngehe),
    /// Wins, draws, losses and value histogram of an Omweso table
    Omweso(omweso::StatsOmweso),
}

#[derive(Debug, Subcommand)]
pub enum VerifyGame {
    /// Verify Oware tables
    Oware(oware::VerifyOware),
    /// Check En Gehé layers: every value against its children
    Engehe(engehe::VerifyEngehe),
    /// Check an Omweso table: every value against its moves
    Omweso(omweso::VerifyOmweso),
}

#[derive(Debug, Subcommand)]
pub enum ExportGame {
    /// Write one Oware layer as a published scores.N file
    Oware(oware::ExportOware),
}

#[derive(Debug, Subcommand)]
pub enum ImportGame {
    /// Read a published scores.N file into a compressed table
    Oware(oware::ImportOware),
}

#[derive(Debug, Subcommand)]
pub enum LoopsGame {
    /// Omweso: every starting choice, or a census of pure relay
    Omweso(omweso::LoopsOmwesoArgs),
}

#[derive(Debug, Subcommand)]
pub enum MovesGame {
    /// Omweso: every legal move with its resulting position and any immediate win
    Omweso(omweso::MovesOmwesoArgs),
}

#[derive(Debug, Subcommand)]
pub enum PlanGame {
    /// Oware: layers 0..=N under a memory budget, on one node or several
    Oware(plan::PlanOware),
}

/// Runs one parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Build { game } => match game {
            BuildGame::Oware(args) => oware::build(args),
            BuildGame::Engehe(args) => engehe::build(args),
            BuildGame::Omweso(args) => omweso::build(args),
        },
        Command::Query { game } => match game {
            QueryGame::Oware(args) => oware::query(args),
            QueryGame::Engehe(args) => engehe::query(args),
            QueryGame::Omweso(args) => omweso::query(args),
        },
        Command::Stats { game } => match game {
            StatsGame::Oware(args) => oware::stats(args),
            StatsGame::Engehe(args) => engehe::stats(args),
            StatsGame::Omweso(args) => omweso::stats(args),
        },
        Command::Probe { game } => match game {
            ProbeGame::Oware(args) => oware::probe(args),
            ProbeGame::Engehe(args) => engehe::probe(args),
            ProbeGame::Omweso(args) => omweso::probe(args),
        },
        Command::Verify { game } => match game {
            VerifyGame::Oware(args) => oware::verify(args),
            VerifyGame::Engehe(args) => engehe::verify(args),
            VerifyGame::Omweso(args) => omweso::verify(args),
        },
        Command::Info(args) => info::run(args),
        Command::Play {
            game: PlayGame::Oware(args),
        } => play::play(args),
        Command::Analyse {
            game: AnalyseGame::Oware(args),
        } => play::analyse(args),
        Command::Plot {
            game: PlotGame::Oware(args),
        } => plot::run(args),
        #[cfg(feature = "server")]
        Command::Serve(args) => serve::run(args),
        Command::Export {
            game: ExportGame::Oware(args),
        } => oware::export(args),
        Command::Import {
            game: ImportGame::Oware(args),
        } => oware::import(args),
        Command::Loops {
            game: LoopsGame::Omweso(args),
        } => omweso::loops(args),
        Command::Moves {
            game: MovesGame::Omweso(args),
        } => omweso::moves(args),
        Command::Plan {
            game: PlanGame::Oware(args),
        } => plan::run(args),
    }
}
