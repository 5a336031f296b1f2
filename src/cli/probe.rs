//! `mancala-tb probe`: values of many positions, one per line.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufReader};
use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand};

use super::common::OwareTables;
use super::engehe::EngeheTables;
use super::omweso_tables::{OmwesoTable, move_json, value_json};
use crate::games::{engehe, omweso};
use crate::tablebase::engehe::EngeheTablebase;
use crate::tablebase::omweso::OmwesoTablebase;
use crate::tablebase::oware::OwareTablebase;
use crate::tablebase::probe_lines::{
    Answer, BatchProber, BoxError, ProbeOptions, numbers, probe_lines,
};

#[derive(Debug, Subcommand)]
pub enum ProbeGame {
    /// Probe Oware tables: each line holds twelve pit counts, as `query` takes them
    Oware(ProbeOware),
    /// Probe En Gehé tables: each line holds the 2 × WIDTH hole counts, as `query` takes them
    Engehe(ProbeEngehe),
    /// Probe Omweso tables: each line holds the 4 × WIDTH pit counts, as
    /// `query` takes them (any seed count whose table is built)
    Omweso(ProbeOmweso),
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

#[derive(Debug, Args)]
pub struct ProbeEngehe {
    #[command(flatten)]
    tables: EngeheTables,
    #[command(flatten)]
    io: ProbeIo,
}

#[derive(Debug, Args)]
pub struct ProbeOmweso {
    #[command(flatten)]
    table: OmwesoTable,
    #[command(flatten)]
    io: ProbeIo,
}

pub fn run(game: ProbeGame) -> anyhow::Result<()> {
    match game {
        ProbeGame::Oware(args) => {
            let tables = OwareTablebase::open(&args.tables.dir, args.tables.rules)?;
            probe(&tables, &args.io)
        }
        ProbeGame::Engehe(args) => {
            let config = args.tables.config();
            let tables = EngeheTablebase::open(&args.tables.dir, config)?;
            probe(&EngeheLines { tables }, &args.io)
        }
        ProbeGame::Omweso(args) => probe(&OmwesoLines { table: args.table }, &args.io),
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

/// `probe engehe` lines: one position per line, answered one by one.
struct EngeheLines {
    tables: EngeheTablebase,
}

impl BatchProber for EngeheLines {
    type Position = engehe::Position;

    fn parse(&self, line: &str) -> Result<engehe::Position, String> {
        let width = self.tables.config().width;
        engehe::Position::new(width, &numbers(line)?).map_err(|e| e.to_string())
    }

    fn answer(&self, positions: &[engehe::Position], json: bool) -> Result<Vec<Answer>, BoxError> {
        let answer = |pos: &engehe::Position| {
            let value = self.tables.value(pos)?;
            if !json {
                return Ok(value.to_string());
            }
            let moves: Vec<_> = self
                .tables
                .move_values(pos)?
                .iter()
                .map(|m| serde_json::json!({"hole": m.hole, "value": m.value}))
                .collect();
            let out = serde_json::json!({"holes": pos.holes(), "value": value, "moves": moves});
            Ok(out.to_string())
        };
        Ok(positions
            .iter()
            .map(|pos| {
                answer(pos).map_err(|e: crate::tablebase::engehe::EngeheTbError| e.to_string())
            })
            .collect())
    }
}

/// `probe omweso` lines: one table per seed count, opened as lines need it.
struct OmwesoLines {
    table: OmwesoTable,
}

impl BatchProber for OmwesoLines {
    type Position = omweso::Position;

    fn parse(&self, line: &str) -> Result<omweso::Position, String> {
        omweso::Position::new(self.table.width as usize, &numbers(line)?).map_err(|e| e.to_string())
    }

    fn answer(&self, positions: &[omweso::Position], json: bool) -> Result<Vec<Answer>, BoxError> {
        let mut tables = BTreeMap::new();
        let answers = positions.iter().map(|pos| {
            let seeds = pos.seeds();
            let tables = tables
                .entry(seeds)
                .or_insert_with(|| OmwesoTablebase::open(&self.table.dir, self.table.config(seeds)))
                .as_ref()
                .map_err(|e| e.to_string())?;
            let value = tables.value(pos).map_err(|e| e.to_string())?;
            if !json {
                return Ok(value.to_string());
            }
            let moves = tables.move_values(pos).map_err(|e| e.to_string())?;
            let moves: Vec<_> = moves.iter().map(move_json).collect();
            let out =
                serde_json::json!({"pits": pos.pits(), "value": value_json(value), "moves": moves});
            Ok(out.to_string())
        });
        Ok(answers.collect())
    }
}
