//! En Gehé score tables: one layer per number of counters on the board,
//! built by the explicit engine, for one board width and ruleset.
//!
//! A tablebase folder holds one sub-folder per width and ruleset
//! (`engehe-w6-void`), with one file per layer (`counters.N.mtb`). Positions are
//! numbered by stars-and-bars rank of the `2W` hole counts, mover's row first.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;

use super::store::{self, Meta, StoreError, Stored, Values};
use super::{BuildObserver, LayerReport, outcomes};
use crate::games::engehe::{self, EngeheError, MAX_COUNTERS, Outcome, Position, Rules};
use crate::index::stars_bars::{self, IndexError, StarsBars};
use crate::solve::explicit::{self, ExplicitError, Layer, MoveLists};

/// The tables of one board width and ruleset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    pub width: usize,
    pub rules: Rules,
}

impl Config {
    /// The sub-folder of these tables inside a tablebase folder.
    pub fn folder(&self, dir: &Path) -> PathBuf {
        dir.join(format!("engehe-w{}-{}", self.width, self.rules.endless))
    }

    fn layer_path(&self, dir: &Path, counters: usize) -> PathBuf {
        self.folder(dir).join(format!("counters.{counters}.mtb"))
    }

    fn meta(&self, counters: usize) -> Meta {
        Meta {
            game: "engehe",
            ruleset: self.rules.to_string(),
            options: String::new(),
            seeds: counters as u32,
            board_width: self.width as u32,
            wide: false,
        }
    }

    fn index(&self, counters: usize) -> Result<StarsBars, IndexError> {
        StarsBars::new(2 * self.width, counters)
    }
}

/// Errors of building and probing, with the file or command that helps.
#[derive(Debug, thiserror::Error)]
pub enum EngeheTbError {
    #[error(
        "layer {counters} of the En Gehé width-{width} tables is missing ({path} not found); \
         build it with `mancala-tb build engehe --width {width} --endless {endless} --max-seeds {counters} --dir {dir}`",
        endless = rules.endless
    )]
    MissingLayer {
        width: usize,
        rules: Rules,
        counters: usize,
        path: PathBuf,
        dir: PathBuf,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Engine(#[from] ExplicitError),
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error(transparent)]
    Rules(#[from] EngeheError),
    #[error("cannot create the tablebase folder {path}")]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: rank {rank} ({position}) holds {stored} but its moves give {expected}")]
    Inconsistent {
        path: PathBuf,
        rank: u64,
        position: Position,
        stored: i8,
        expected: i8,
    },
    #[error("En Gehé tables stop at {MAX_COUNTERS} counters (asked for {0})")]
    TooManyCounters(usize),
    #[error("the board has width {got}, the tables width {expected}")]
    WrongWidth { got: usize, expected: usize },
}

/// A finished layer in memory, for building the layers above it.
struct Loaded {
    index: StarsBars,
    values: Vec<i8>,
}

impl Loaded {
    fn value(&self, pos: &Position) -> i8 {
        self.values[self.index.rank(pos.holes()) as usize]
    }
}

/// A finished layer on disk, for probing.
struct Probe {
    index: StarsBars,
    table: Stored,
}

impl Probe {
    fn value(&self, pos: &Position) -> Result<i8, EngeheTbError> {
        Ok(self.table.get(self.index.rank(pos.holes()))? as i8)
    }
}

fn to_i8(values: Vec<i16>) -> Vec<i8> {
    values.into_iter().map(|v| v as i8).collect()
}

/// Builds the layers `0..=max_counters` under `dir`, skipping layers already
/// complete. Uses the current rayon pool.
pub fn build(
    dir: &Path,
    config: Config,
    max_counters: usize,
    observer: &dyn BuildObserver,
) -> Result<Vec<LayerReport>, EngeheTbError> {
    engehe::check_width(config.width)?;
    if max_counters > MAX_COUNTERS {
        return Err(EngeheTbError::TooManyCounters(max_counters));
    }
    let folder = config.folder(dir);
    std::fs::create_dir_all(&folder).map_err(|source| EngeheTbError::CreateDir {
        path: folder.clone(),
        source,
    })?;
    let mut lower: Vec<Loaded> = Vec::new();
    let mut reports = Vec::new();
    for counters in 0..=max_counters {
        let index = config.index(counters)?;
        let positions = index.size();
        let path = config.layer_path(dir, counters);
        let meta = config.meta(counters);
        let (values, seconds) = match store::open(&path, &meta, positions) {
            Ok(table) => (to_i8(table.load()?), None),
            Err(StoreError::Missing { .. }) => {
                observer.layer_started(counters, positions);
                let start = Instant::now();
                let layer = EngeheLayer {
                    config,
                    index: index.clone(),
                    lower: &lower,
                };
                let solved = explicit::solve(&layer, false, &|s| observer.advance(s))?;
                store::write(&path, &meta, Values::I8(&solved.values))?;
                let seconds = start.elapsed().as_secs_f64();
                (solved.values, Some(seconds))
            }
            Err(e) => return Err(e.into()),
        };
        let report = LayerReport {
            seeds: counters,
            positions,
            outcomes: Some(outcomes(&values)),
            seconds,
            bytes: store::file_bytes(&path)?,
        };
        observer.layer_finished(&report);
        reports.push(report);
        lower.push(Loaded { index, values });
    }
    Ok(reports)
}

/// One layer for the explicit engine, over the finished lower layers.
struct EngeheLayer<'a> {
    config: Config,
    index: StarsBars,
    lower: &'a [Loaded],
}

impl Layer for EngeheLayer<'_> {
    fn size(&self) -> u64 {
        self.index.size()
    }

    fn moves(&self, first: u64, count: usize, out: &mut MoveLists) {
        let width = self.config.width;
        let mut counts = vec![0u8; 2 * width];
        self.index.unrank(first, &mut counts);
        let n = self.index.seeds();
        for _ in 0..count {
            out.start();
            let pos = Position::from_counts(width, &counts);
            let moves = engehe::legal_moves(&pos, &self.config.rules);
            if moves.is_empty() {
                out.end(engehe::no_move_value(&pos));
            }
            for m in &moves {
                match m.outcome {
                    Outcome::Ends { captured: 0, child } => {
                        out.child(self.index.rank(child.holes()))
                    }
                    Outcome::Ends { captured, child } => {
                        let below = &self.lower[n - usize::from(captured)];
                        out.exit(captured as i8 - below.value(&child));
                    }
                    // The game is void: an even split.
                    Outcome::NeverEnds(_) => out.exit(0),
                }
            }
            stars_bars::next(&mut counts);
        }
    }
}

/// One legal move and its perfect-play value for the mover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveValue {
    pub hole: u8,
    /// Counters captured, `None` for a never-ending move (the game is void).
    pub captured: Option<u8>,
    pub child: Option<Position>,
    /// `captured − value(child)`, 0 for a never-ending move.
    pub value: i8,
}

/// A tablebase folder opened for probing one width and ruleset.
pub struct EngeheTablebase {
    dir: PathBuf,
    config: Config,
    /// Layers by counters; `None` where the file is missing.
    layers: Vec<Option<Probe>>,
}

impl EngeheTablebase {
    /// Opens the layers found under the tablebase folder `dir`.
    pub fn open(dir: &Path, config: Config) -> Result<EngeheTablebase, EngeheTbError> {
        engehe::check_width(config.width)?;
        let mut layers = Vec::new();
        for counters in 0..=MAX_COUNTERS {
            // Layers too large to number cannot have been built.
            let Ok(index) = config.index(counters) else {
                layers.push(None);
                continue;
            };
            let path = config.layer_path(dir, counters);
            match store::open(&path, &config.meta(counters), index.size()) {
                Ok(table) => layers.push(Some(Probe { index, table })),
                Err(StoreError::Missing { .. }) => layers.push(None),
                Err(e) => return Err(e.into()),
            }
        }
        Ok(EngeheTablebase {
            dir: dir.to_path_buf(),
            config,
            layers,
        })
    }

    pub fn config(&self) -> Config {
        self.config
    }

    fn layer(&self, counters: usize) -> Result<&Probe, EngeheTbError> {
        self.layers
            .get(counters)
            .ok_or(EngeheTbError::TooManyCounters(counters))?
            .as_ref()
            .ok_or_else(|| EngeheTbError::MissingLayer {
                width: self.config.width,
                rules: self.config.rules,
                counters,
                path: self.config.layer_path(&self.dir, counters),
                dir: self.dir.clone(),
            })
    }

    /// The values of layer `counters` in rank order.
    pub fn layer_values(&self, counters: usize) -> Result<Vec<i8>, EngeheTbError> {
        Ok(to_i8(self.layer(counters)?.table.load()?))
    }

    fn check(&self, pos: &Position) -> Result<(), EngeheTbError> {
        if pos.width() != self.config.width {
            return Err(EngeheTbError::WrongWidth {
                got: pos.width(),
                expected: self.config.width,
            });
        }
        Ok(())
    }

    /// The perfect-play value of a position for the side to move.
    pub fn value(&self, pos: &Position) -> Result<i8, EngeheTbError> {
        self.check(pos)?;
        self.layer(pos.counters())?.value(pos)
    }

    /// Every legal move with its value, in hole order (empty when the game
    /// is over).
    pub fn move_values(&self, pos: &Position) -> Result<Vec<MoveValue>, EngeheTbError> {
        self.check(pos)?;
        engehe::legal_moves(pos, &self.config.rules)
            .iter()
            .map(|m| {
                Ok(match m.outcome {
                    Outcome::Ends { captured, child } => MoveValue {
                        hole: m.hole,
                        captured: Some(captured),
                        child: Some(child),
                        value: captured as i8 - self.layer(child.counters())?.value(&child)?,
                    },
                    Outcome::NeverEnds(_) => MoveValue {
                        hole: m.hole,
                        captured: None,
                        child: None,
                        value: 0,
                    },
                })
            })
            .collect()
    }

    /// Checks every position of layers `0..=max` against its children: its
    /// value must be the best over its legal moves. The layers are decoded
    /// once into memory. Reports the first mismatch; `progress` gets the
    /// positions checked.
    pub fn check_layers(
        &self,
        max: usize,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<(), EngeheTbError> {
        let mut loaded = Vec::new();
        for counters in 0..=max {
            let layer = self.layer(counters)?;
            loaded.push(Loaded {
                index: layer.index.clone(),
                values: to_i8(layer.table.load()?),
            });
            self.check_loaded(counters, &loaded, progress)?;
        }
        Ok(())
    }

    fn check_loaded(
        &self,
        counters: usize,
        loaded: &[Loaded],
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<(), EngeheTbError> {
        const CHUNK: u64 = 1 << 14;
        let (width, rules) = (self.config.width, self.config.rules);
        let layer = &loaded[counters];
        let size = layer.index.size();
        let bad = (0..size.div_ceil(CHUNK))
            .into_par_iter()
            .filter_map(|c| {
                let mut counts = vec![0u8; 2 * width];
                layer.index.unrank(c * CHUNK, &mut counts);
                let end = ((c + 1) * CHUNK).min(size);
                for rank in c * CHUNK..end {
                    let pos = Position::from_counts(width, &counts);
                    let expected = engehe::legal_moves(&pos, &rules)
                        .iter()
                        .map(|m| match m.outcome {
                            Outcome::Ends { captured, child } => {
                                captured as i8 - loaded[child.counters()].value(&child)
                            }
                            Outcome::NeverEnds(_) => 0,
                        })
                        .max()
                        .unwrap_or_else(|| engehe::no_move_value(&pos));
                    let stored = layer.values[rank as usize];
                    if stored != expected {
                        return Some((rank, pos, stored, expected));
                    }
                    stars_bars::next(&mut counts);
                }
                progress(end - c * CHUNK);
                None
            })
            .min_by_key(|bad| bad.0);
        match bad {
            None => Ok(()),
            Some((rank, position, stored, expected)) => Err(EngeheTbError::Inconsistent {
                path: self.config.layer_path(&self.dir, counters),
                rank,
                position,
                stored,
                expected,
            }),
        }
    }
}
