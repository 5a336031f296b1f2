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

use super::BuildObserver;
use super::explicit::Checked;
use super::explicit::{
    Built, DistanceTables, ExplicitGame, ExplicitTablebase, LayerFile, SolvedLayer, Step,
    StoredValues, best_move, distance_values,
};
use super::store::Meta;
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
            distance_path: Some(self.folder(dir).join(format!("distance.{counters}.mtb"))),
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
        distances: bool,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<SolvedLayer, EngeheTbError> {
        let depths = if distances {
            Depths::With
        } else {
            Depths::Without
        };
        let solved = explicit::solve(layer, depths, progress)?;
        Ok(SolvedLayer {
            values: StoredValues::I8(solved.values),
            distances: solved.depths.map(distance_values).transpose()?,
        })
    }

    fn decode(&self, stored: i16) -> i8 {
        stored as i8
    }
}

/// Builds the layers `0..=max_counters` under `dir`, skipping layers already
/// complete, each with its distance table unless `distances` says to skip
/// them (then added beside layers built without). Uses the current rayon
/// pool.
pub fn build(
    dir: &Path,
    config: Config,
    max_counters: usize,
    distances: DistanceTables,
    observer: &dyn BuildObserver,
) -> Result<Built, EngeheTbError> {
    super::explicit::build(dir, config, 0..=max_counters, distances, observer)
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
    /// Moves to the next capture (or the end of the game) when both sides
    /// then keep the value, this move included: 1 for a capture or a
    /// never-ending move, `1 + distance(child)` for a move to a decided
    /// child; `None` for a move to a drawn child or one whose layer has no
    /// distance table.
    pub distance: Option<u16>,
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

    /// The positions of layer `counters` (an error if it is not built).
    pub fn layer_len(&self, counters: usize) -> Result<u64, EngeheTbError> {
        Ok(self.0.layer(counters)?.1.len())
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

    /// The distance of a position to what secures its value: the moves to
    /// the next capture (or the end of the game) when both sides keep the
    /// value, the side ahead hurrying and the side behind delaying; 0 for a
    /// draw or a finished game. `None` if its layer has no distance table
    /// (built with `--no-distances`, or before they existed).
    pub fn distance(&self, pos: &Position) -> Result<Option<u16>, EngeheTbError> {
        self.0.distance(pos)
    }

    /// The `mancala-tb build` arguments that add the distance table of layer
    /// `counters`, if it is built without one.
    pub fn distances_missing(&self, counters: usize) -> Option<String> {
        self.0.distances_missing(counters)
    }

    /// Every legal move with its value and distance, in hole order (empty
    /// when the game is over).
    pub fn move_values(&self, pos: &Position) -> Result<Vec<MoveValue>, EngeheTbError> {
        let config = self.config();
        config.fit(pos)?;
        engehe::legal_moves(pos, &config.rules)
            .iter()
            .map(|m| {
                Ok(match m.outcome {
                    Outcome::Ends { captured, child } => {
                        let child_value = self.value(&child)?;
                        let distance = if captured > 0 {
                            Some(1)
                        } else if child_value == 0 {
                            None
                        } else {
                            self.distance(&child)?.map(|d| d + 1)
                        };
                        MoveValue {
                            hole: m.hole,
                            captured: Some(captured),
                            child: Some(child),
                            value: config.back(pos, &child, child_value),
                            distance,
                        }
                    }
                    Outcome::NeverEnds(_) => MoveValue {
                        hole: m.hole,
                        captured: None,
                        child: None,
                        value: 0,
                        distance: Some(1),
                    },
                })
            })
            .collect()
    }

    /// The move perfect play makes from `pos` among `moves` (its
    /// [`EngeheTablebase::move_values`]): one that keeps the value, the
    /// nearest capture when ahead, the farthest when behind, the lowest
    /// hole among equals. `None` when the game is over.
    pub fn best<'m>(
        &self,
        pos: &Position,
        moves: &'m [MoveValue],
    ) -> Result<Option<&'m MoveValue>, EngeheTbError> {
        let value = self.value(pos)?;
        let i = best_move(
            value.into(),
            moves.iter().map(|m| (m.value == value, m.distance)),
        );
        Ok(i.map(|i| &moves[i]))
    }

    /// A principal variation from `pos`: perfect-play moves
    /// ([`EngeheTablebase::best`]) until the game ends (no move, or a
    /// never-ending move), a position repeats (perpetual play) or
    /// `max_moves` are shown. With distance tables its captures add up to
    /// the value (a repetition scoring 0 from there).
    pub fn principal_variation(
        &self,
        pos: &Position,
        max_moves: usize,
    ) -> Result<Vec<MoveValue>, EngeheTbError> {
        self.config().fit(pos)?;
        let mut line = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut pos = *pos;
        while line.len() < max_moves && seen.insert(pos) {
            let moves = self.move_values(&pos)?;
            let Some(&best) = self.best(&pos, &moves)? else {
                break;
            };
            line.push(best);
            match best.child {
                Some(child) => pos = child,
                None => break,
            }
        }
        Ok(line)
    }

    /// Checks every position of layers `0..=max` against its children: its
    /// value must be the best over its legal moves, and its distance (where
    /// the layer has a distance table) 1 + the least (ahead) or greatest
    /// (behind) distance after its value-keeping moves. The layers are decoded
    /// once into memory. Reports the first mismatch; `progress` gets the
    /// positions checked.
    pub fn check_layers(
        &self,
        max: usize,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Checked, EngeheTbError> {
        self.0.check(0..=max, progress)
    }
}
