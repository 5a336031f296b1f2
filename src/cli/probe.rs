//! `mancala-tb probe`: values of many positions, one per line.

use std::fs::File;
use std::io::{self, BufReader};
use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand};

use super::common::OwareTables;
use crate::tablebase::oware::OwareTablebase;
use crate::tablebase::probe_lines::{BatchProber, ProbeOptions, probe_lines};

#[derive(Debug, Subcommand)]
pub enum ProbeGame {
    /// Probe Oware tables: each line holds twelve pit counts, as `query` takes them
    Oware(ProbeOware),
}

/// Where the positions come from and how answers are written.
#[derive(Debug, Args)]
pub struct ProbeIo {
    /// One JSON object per line: {"pits": [...], "value": v, "moves": [{"pit": p, "value": v}, ...]}
    #[arg(long)]
    json: bool,
    /// Answer a bad line with an error line (with --json {"line": n, "error": "..."})
    /// and go on; the exit status still reports it
    #[arg(long)]
    keep_going: bool,
    /// File of positions, one per line (default: standard input)
    file: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ProbeOware {
    #[command(flatten)]
    tables: OwareTables,
    #[command(flatten)]
    io: ProbeIo,
}

pub fn run(game: ProbeGame) -> anyhow::Result<()> {
    match game {
        ProbeGame::Oware(args) => {
            let tables = OwareTablebase::open(&args.tables.dir, args.tables.rules)?;
            probe(&tables, &args.io)
        }
    }
}

fn probe(prober: &impl BatchProber, io: &ProbeIo) -> anyhow::Result<()> {
    let options = ProbeOptions {
        json: io.json,
        keep_going: io.keep_going,
    };
    let out = io::BufWriter::new(io::stdout().lock());
    match &io.file {
        Some(path) => {
            let file =
                File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
            probe_lines(prober, BufReader::new(file), out, options)?
        }
        None => probe_lines(prober, io::stdin().lock(), out, options)?,
    }
    Ok(())
}
