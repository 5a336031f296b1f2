//! En Gehé score tables: one layer per number of counters on the board,
//! built by the explicit engine, for one board width and ruleset.
//!
//! A tablebase folder holds one sub-folder per width and ruleset
//! (`engehe-w6-void`), with one file per layer (`counters.N.mtb`). Positions are
//! numbered by stars-and-bars rank of the `2W` hole counts, mover's row first.
//! A value is the counters the mover's team gets from here on less the
//! opponent's.

use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

use super::explicit::{ExplicitGame, ExplicitTablebase, LayerFile, Step, StoredValues};
use super::store::Meta;
use super::{BuildObserver, LayerReport};
use crate::games::engehe::{self, MAX_COUNTERS, Outcome, Position, Rules};
use crate::index::stars_bars::{IndexError, StarsBars};
use crate::solve::explicit::{self, Depths, Layer};

pub use super::explicit::ExplicitTbError as EngeheTbError;

/// The tables of one board width and ruleset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Holes per row.
    pub width: usize,
    /// What a never-ending move is.
    pub rules: Rules,
}

impl Config {
    /// The sub-folder of these tables inside a tablebase folder.
    pub fn folder(&self, dir: &Path) -> PathBuf {
        dir.join(format!("engehe-w{}-{}", self.width, self.rules.endless))
    }
}

impl ExplicitGame for Config {
    type Position = Position;
    type Value = i8;
    type MoveGen = ();

    const NAME: &'static str = "En Gehé";
    const MAX_SEEDS: usize = MAX_COUNTERS;

    fn layers(&self) -> RangeInclusive<usize> {
        0..=MAX_COUNTERS
    }

    fn check_width(&self) -> Result<(), EngeheTbError> {
        Ok(engehe::check_width(self.width)?)
    }

    fn file(&self, dir: &Path, counters: usize) -> Result<LayerFile, IndexError> {
        Ok(LayerFile {
            path: self.folder(dir).join(format!("counters.{counters}.mtb")),
            meta: Meta {
                game: "engehe",
                ruleset: self.rules.to_string(),
                options: String::new(),
                seeds: counters as u32,
                board_width: self.width as u32,
                wide: false,
            },
            index: StarsBars::new(2 * self.width, counters)?,
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

    fn fit(&self, pos: &Position) -> Result<(), EngeheTbError> {
        match pos.width() {
            width if width == self.width => Ok(()),
            width => Err(EngeheTbError::WrongWidth {
                width,
                table_width: self.width,
            }),
        }
    }

    fn position(&self, counts: &[u8]) -> Position {
        Position::from_counts(self.width, counts)
    }

    fn counts(pos: &Position) -> &[u8] {
        pos.holes()
    }

    fn steps(&self, pos: &Position, _: &mut (), mut each: impl FnMut(Step<Position, i8>)) {
        for m in engehe::legal_moves(pos, &self.rules) {
            each(match m.outcome {
                Outcome::Ends { child, .. } => Step::Child(child),
                // The game is void: an even split.
                Outcome::NeverEnds(_) => Step::Over(0),
            });
        }
    }

    /// The counters the move captures, less what the opponent makes of
    /// the rest.
    fn back(&self, pos: &Position, child: &Position, value: i8) -> i8 {
        (pos.counters() - child.counters()) as i8 - value
    }

    fn no_move(&self, pos: &Position) -> i8 {
        engehe::no_move_value(pos)
    }

    fn rank(value: i8) -> i32 {
        value.into()
    }

    fn engine_value(&self, value: i8) -> i8 {
        value
    }

    fn solve(
        &self,
        layer: &dyn Layer,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<StoredValues, EngeheTbError> {
        Ok(StoredValues::I8(
            explicit::solve(layer, Depths::Without, progress)?.values,
        ))
    }

    fn decode(&self, stored: i16) -> i8 {
        stored as i8
    }
}

/// Builds the layers `0..=max_counters` under `dir`, skipping layers already
/// complete. Uses the current rayon pool.
pub fn build(
    dir: &Path,
    config: Config,
    max_counters: usize,
    observer: &dyn BuildObserver,
) -> Result<Vec<LayerReport>, EngeheTbError> {
    super::explicit::build(dir, config, 0..=max_counters, observer)
}

/// One legal move and its perfect-play value for the mover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveValue {
    /// The hole sown from, `0..W` in the mover's row.
    pub hole: u8,
    /// Counters captured, `None` for a never-ending move (the game is void).
    pub captured: Option<u8>,
    /// The position the opponent faces, `None` for a never-ending move.
    pub child: Option<Position>,
    /// `captured − value(child)`, 0 for a never-ending move.
    pub value: i8,
}

/// A tablebase folder opened for probing one width and ruleset.
pub struct EngeheTablebase(ExplicitTablebase<Config>);

impl EngeheTablebase {
    /// Opens the layers found under the tablebase folder `dir`; probing a
    /// missing layer says how to build it.
    pub fn open(dir: &Path, config: Config) -> Result<EngeheTablebase, EngeheTbError> {
        ExplicitTablebase::open(dir, config).map(EngeheTablebase)
    }

    /// The width and ruleset the tables were opened for.
    pub fn config(&self) -> Config {
        self.0.game()
    }

    /// The values of layer `counters` in rank order.
    pub fn layer_values(&self, counters: usize) -> Result<Vec<i8>, EngeheTbError> {
        let (_, table) = self.0.layer(counters)?;
        Ok(table.load()?.into_iter().map(|v| v as i8).collect())
    }

    /// The perfect-play value of a position for the side to move.
    pub fn value(&self, pos: &Position) -> Result<i8, EngeheTbError> {
        self.0.value(pos)
    }

    /// Every legal move with its value, in hole order (empty when the game
    /// is over).
    pub fn move_values(&self, pos: &Position) -> Result<Vec<MoveValue>, EngeheTbError> {
        let config = self.config();
        config.fit(pos)?;
        engehe::legal_moves(pos, &config.rules)
            .iter()
            .map(|m| {
                Ok(match m.outcome {
                    Outcome::Ends { captured, child } => MoveValue {
                        hole: m.hole,
                        captured: Some(captured),
                        child: Some(child),
                        value: config.back(pos, &child, self.value(&child)?),
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
        self.0.check(0..=max, progress)
    }
}
