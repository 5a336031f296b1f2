//! `mancala-tb export` / `import`: the published Awari format, `scores.N`
//! (one signed byte per position in rank order, no header).

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::common::OwareTables;
use crate::games::oware::MAX_SEEDS;
use crate::tablebase::oware as tb;

#[derive(Debug, Subcommand)]
pub enum ExportGame {
    /// Write one Oware layer as a published scores.N file
    Oware(ExportOware),
}

#[derive(Debug, Args)]
pub struct ExportOware {
    #[command(flatten)]
    tables: OwareTables,
    /// The layer: seeds on the board
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=MAX_SEEDS as i64))]
    seeds: u32,
    /// The file to write
    #[arg(long)]
    out: PathBuf,
}

#[derive(Debug, Subcommand)]
pub enum ImportGame {
    /// Read a published scores.N file into a compressed table
    Oware(ImportOware),
}

#[derive(Debug, Args)]
pub struct ImportOware {
    #[command(flatten)]
    tables: OwareTables,
    /// The layer: seeds on the board
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=MAX_SEEDS as i64))]
    seeds: u32,
    /// The scores.N file
    file: PathBuf,
}

pub fn export(game: ExportGame) -> anyhow::Result<()> {
    let ExportGame::Oware(args) = game;
    tb::export(
        &args.tables.dir,
        args.tables.rules,
        args.seeds as usize,
        &args.out,
    )?;
    println!("wrote layer {} to {}", args.seeds, args.out.display());
    Ok(())
}

pub fn import(game: ImportGame) -> anyhow::Result<()> {
    let ImportGame::Oware(args) = game;
    let path = tb::import(
        &args.tables.dir,
        args.tables.rules,
        args.seeds as usize,
        &args.file,
    )?;
    println!("imported {} into {}", args.file.display(), path.display());
    Ok(())
}
