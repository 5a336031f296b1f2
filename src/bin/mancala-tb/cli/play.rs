//! `mancala-tb play oware` and `mancala-tb analyse oware` (`crate::play`).

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::oware::{OwareTables, oware_board};
use super::shared::parse_pit;
use crate::play::{analyse_oware, play_oware};
use mancala_tb::games::oware::Board;
use mancala_tb::tablebase::oware::OwareTablebase;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Side {
    First,
    Second,
}

#[derive(Debug, Args)]
pub struct PlayOware {
    #[command(flatten)]
    tables: OwareTables,
    /// Start with this many seeds in every pit
    #[arg(long, default_value_t = 4, conflicts_with = "pits")]
    seeds_per_pit: u32,
    /// Whether you move first or second
    #[arg(long, value_enum, default_value_t = Side::First)]
    side: Side,
    /// Start position instead: twelve pit counts, the first mover's pits first
    #[arg(num_args = 12, value_parser = parse_pit)]
    pits: Vec<u32>,
}

fn start_board(pits: &[u32], seeds_per_pit: u32) -> anyhow::Result<Board> {
    if pits.is_empty() {
        oware_board(&[seeds_per_pit; 12])
    } else {
        oware_board(pits)
    }
}

pub fn play(args: PlayOware) -> anyhow::Result<()> {
    let start = start_board(&args.pits, args.seeds_per_pit)?;
    let tables = OwareTablebase::open(&args.tables.dir, args.tables.rules)?;
    // Fail before the first move, not in the middle of the game.
    tables.value(&start)?;
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    play_oware(
        &tables,
        &start,
        args.side == Side::First,
        &mut stdin.lock(),
        &mut out,
    )?;
    Ok(())
}

#[derive(Debug, Args)]
pub struct AnalyseOware {
    #[command(flatten)]
    tables: OwareTables,
    /// Start position: twelve pit counts, the first mover's pits first
    /// (default: 4 in every pit)
    #[arg(long, num_args = 12, value_parser = parse_pit)]
    start: Vec<u32>,
    /// Read the moves from this file (pit numbers separated by spaces,
    /// commas or new lines)
    #[arg(long, conflicts_with = "moves")]
    file: Option<PathBuf>,
    /// Print JSON: {"start": [...], "moves": [{"ply", "player", "pit",
    /// "captured", "before", "after", "loss", "best", "mistake"}], "end": [...], "lost": [a, b]}
    #[arg(long)]
    json: bool,
    /// The moves: pit numbers 0-5 of the side to move
    #[arg(value_parser = clap::value_parser!(u8).range(0..=5))]
    moves: Vec<u8>,
}

fn read_moves(path: &PathBuf) -> anyhow::Result<Vec<u8>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    text.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|s| !s.is_empty())
        .map(|s| match s.parse::<u8>() {
            Ok(p) if p < 6 => Ok(p),
            _ => anyhow::bail!("{}: '{s}' is not a pit number 0-5", path.display()),
        })
        .collect()
}

pub fn analyse(args: AnalyseOware) -> anyhow::Result<()> {
    let start = start_board(&args.start, 4)?;
    let moves = match &args.file {
        Some(path) => read_moves(path)?,
        None => args.moves.clone(),
    };
    let tables = OwareTablebase::open(&args.tables.dir, args.tables.rules)?;
    let analysis = analyse_oware(&tables, &start, &moves)?;
    if args.json {
        println!("{}", serde_json::to_string(&analysis)?);
        return Ok(());
    }
    println!("ply player  pit captures before after loss best");
    for m in &analysis.moves {
        println!(
            "{:>3} {:<7} {:>3} {:>8} {:>+6} {:>+5} {:>4} {:?}{}",
            m.ply,
            m.player,
            m.pit,
            m.captured,
            m.before,
            m.after,
            m.loss,
            m.best,
            if m.mistake { "  MISTAKE" } else { "" }
        );
    }
    println!(
        "seeds lost to mistakes: first player {}, second player {}",
        analysis.lost[0], analysis.lost[1]
    );
    Ok(())
}
