//! `mancala-tb play oware` and `mancala-tb analyse oware` (`crate::play`).

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::oware::{OwareTables, oware_board};
use super::shared::parse_pit;
use crate::play::{analyse_oware, layers_text, play_oware, start_position};
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
    /// Start with this many seeds in every pit (default: the largest such
    /// start the built tables hold, 1 seed a pit with layers 0..=20)
    #[arg(long, conflicts_with = "pits")]
    seeds_per_pit: Option<u32>,
    /// Start from a position drawn at random from the largest layer built
    /// (with every layer below it)
    #[arg(long, conflicts_with_all = ["pits", "seeds_per_pit"])]
    random: bool,
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
    let tables = OwareTablebase::open(&args.tables.dir, args.tables.rules)?;
    let mut out = std::io::stdout();
    let start = if args.pits.is_empty() && args.seeds_per_pit.is_none() {
        let start = start_position(&tables, args.random).map_err(|e| {
            anyhow::Error::new(e).context(format!(
                "no start the {} tables cover (layers built: {})",
                args.tables.rules,
                layers_text(&tables.built_layers().collect::<Vec<_>>())
            ))
        })?;
        let others = if args.random {
            "--random again, --seeds-per-pit K or twelve pit counts"
        } else {
            "--seeds-per-pit K, --random or twelve pit counts"
        };
        writeln!(
            out,
            "start: {}; {others} start another game",
            start.description
        )?;
        start.pits
    } else {
        let start = start_board(&args.pits, args.seeds_per_pit.unwrap_or(4))?;
        // Fail before the first move, not in the middle of the game.
        if let Err(e) = tables.value(&start) {
            let seeds = mancala_tb::games::oware::seeds(&start);
            let built: Vec<usize> = tables.built_layers().collect();
            return Err(anyhow::Error::new(e).context(format!(
                "the start has {seeds} seeds; the {} tables hold layers {} \
                 (without a start, play picks one they cover)",
                args.tables.rules,
                layers_text(&built)
            )));
        }
        start
    };
    let stdin = std::io::stdin();
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
    /// "captured", "seeds", "covered", "before", "after", "loss", "best",
    /// "mistake"}], "end": [...], "lost": [a, b], "built_layers": [...]};
    /// a move beyond the built layers has "covered": false and null values
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
        let head = format!(
            "{:>3} {:<7} {:>3} {:>8}",
            m.ply, m.player, m.pit, m.captured
        );
        match (m.before, m.after, m.loss, &m.best) {
            (Some(before), Some(after), Some(loss), Some(best)) => println!(
                "{head} {before:>+6} {after:>+5} {loss:>4} {best:?}{}",
                if loss > 0 { "  MISTAKE" } else { "" }
            ),
            _ => println!(
                "{head} {:>6} {:>5} {:>4} beyond the built layers: {} seeds",
                "-", "-", "-", m.seeds
            ),
        }
    }
    let beyond = analysis.moves.iter().filter(|m| !m.covered).count();
    if beyond > 0 {
        println!(
            "{beyond} of {} moves not analysed: their positions are beyond the {} layers built \
             ({})",
            analysis.moves.len(),
            args.tables.rules,
            layers_text(&analysis.built_layers)
        );
    }
    println!(
        "seeds lost to mistakes{}: first player {}, second player {}",
        if beyond > 0 {
            " in the analysed moves"
        } else {
            ""
        },
        analysis.lost[0],
        analysis.lost[1]
    );
    Ok(())
}
