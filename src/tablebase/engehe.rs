//! En Gehé score tables: one layer per number of counters on the board,
//! built by the explicit engine, for one board width and ruleset.
//!
//! A tablebase folder holds one sub-folder per width and ruleset
//! (`engehe-w6-void`), with one file per layer (`counters.N.mtb`). Positions are
//! numbered by stars-and-bars rank of the `2W` hole counts, mover's row first.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use super::check::first_inconsistent;
use super::relay::{LayerFile, StoredValues, walk_positions};
use super::store::{Meta, Stored};
use super::{BuildObserver, LayerReport, outcomes};
use crate::games::engehe::{self, MAX_COUNTERS, Outcome, Position, Rules};
use crate::index::stars_bars::{IndexError, StarsBars};
use crate::solve::explicit::{self, Layer, MoveLists};

pub use super::relay::RelayTbError as EngeheTbError;

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

    /// The table file of layer `counters`.
    fn layer(&self, dir: &Path, counters: usize) -> Result<LayerFile, IndexError> {
        Ok(LayerFile {
            path: self.folder(dir).join(format!("counters.{counters}.mtb")),
            meta: self.meta(counters),
            index: self.index(counters)?,
            name: format!(
                "layer {counters} of the En Gehé width-{} tables",
                self.width
            ),
            build_args: format!(
                "engehe --width {} --endless {} --max-seeds {counters} --dir {}",
                self.width,
                self.rules.endless,
                dir.display()
            ),
        })
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
    file: LayerFile,
    table: Stored,
}

impl Probe {
    fn value(&self, pos: &Position) -> Result<i8, EngeheTbError> {
        Ok(self.table.get(self.file.index.rank(pos.holes()))? as i8)
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
        return Err(too_many(max_counters));
    }
    let mut lower: Vec<Loaded> = Vec::new();
    let mut reports = Vec::new();
    for counters in 0..=max_counters {
        let file = config.layer(dir, counters)?;
        let (table, seconds) = file.build_if_missing(counters, observer, |progress| {
            let layer = EngeheLayer {
                config,
                index: file.index.clone(),
                lower: &lower,
            };
            Ok(StoredValues::I8(
                explicit::solve(&layer, false, progress)?.values,
            ))
        })?;
        let values = to_i8(table.load()?);
        let report = LayerReport {
            seeds: counters,
            positions: file.index.size(),
            outcomes: Some(outcomes(&values)),
            seconds,
            bytes: file.bytes()?,
        };
        observer.layer_finished(&report);
        reports.push(report);
        lower.push(Loaded {
            index: file.index,
            values,
        });
    }
    Ok(reports)
}

fn too_many(counters: usize) -> EngeheTbError {
    EngeheTbError::TooManySeeds {
        game: "En Gehé",
        seeds: counters,
        max: MAX_COUNTERS,
    }
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
        let n = self.index.seeds();
        walk_positions::<()>(&self.index, first..first + count as u64, |_, counts| {
            out.start();
            let pos = Position::from_counts(width, counts);
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
            ControlFlow::Continue(())
        });
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
            let Ok(file) = config.layer(dir, counters) else {
                layers.push(None);
                continue;
            };
            layers.push(file.open()?.map(|table| Probe { file, table }));
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
        match self
            .layers
            .get(counters)
            .ok_or_else(|| too_many(counters))?
        {
            Some(probe) => Ok(probe),
            // Not built: opening it again says what to build.
            None => Err(self
                .config
                .layer(&self.dir, counters)?
                .open_built()
                .err()
                .unwrap_or_else(|| too_many(counters))),
        }
    }

    /// The values of layer `counters` in rank order.
    pub fn layer_values(&self, counters: usize) -> Result<Vec<i8>, EngeheTbError> {
        Ok(to_i8(self.layer(counters)?.table.load()?))
    }

    fn check(&self, pos: &Position) -> Result<(), EngeheTbError> {
        if pos.width() != self.config.width {
            return Err(EngeheTbError::WrongWidth {
                width: pos.width(),
                table_width: self.config.width,
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
                index: layer.file.index.clone(),
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
        let (width, rules) = (self.config.width, self.config.rules);
        let layer = &loaded[counters];
        let bad = first_inconsistent::<_, EngeheTbError>(
            layer.index.size(),
            1 << 14,
            progress,
            |ranks| {
                Ok(walk_positions(&layer.index, ranks, |rank, counts| {
                    let pos = Position::from_counts(width, counts);
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
                        return ControlFlow::Break((rank, pos, stored, expected));
                    }
                    ControlFlow::Continue(())
                }))
            },
        )?;
        match bad {
            None => Ok(()),
            Some((rank, position, stored, expected)) => Err(EngeheTbError::Inconsistent {
                path: self.config.layer(&self.dir, counters)?.path,
                rank,
                position: position.to_string(),
                stored: stored.to_string(),
                expected: expected.to_string(),
            }),
        }
    }
}
