//! Omweso tables: every position of a 4 × W board with S seeds (S never
//! changes in Omweso, so one layer), solved by the explicit engine under one
//! of two objectives:
//! - `wdl`: win, draw or loss with the distance to the end in moves (wins as
//!   short, losses as long as possible);
//! - `points`: the points of the final result (docs/rules.md, rule 6), maximised:
//!   −12, −2, −1, 0, 1, 2 or 12.
//!
//! Positions are numbered by stars-and-bars rank of the `4W` pit counts
//! (mover's pits, then the opponent's, each in sowing order). Never-ending
//! play, and a move that voids the game, are draws (0 points). A mover
//! without a legal move has lost by bulijo (1 point to the opponent).

mod probe;
mod value;

use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::explicit::{
    DistanceTables, ExplicitDistanceReport, ExplicitGame, LayerFile, SolvedLayer, Step,
    StoredValues, distance_values,
};
use super::store::Meta;
use super::{BuildObserver, LayerReport};
use crate::games::omweso::{self, Dedup, MoveGen, Outcome, Position, Rules};
use crate::index::stars_bars::{IndexError, StarsBars};
use crate::solve::explicit::{self, Depths, Layer};
use value::{draw, encode_wdl, no_move, win_value};

pub use super::explicit::ExplicitTbError as OmwesoTbError;
pub use probe::{MoveResult, MoveValue, OmwesoTablebase, Stats};
pub use value::{Objective, Value, Wdl};

/// One table: board width, seeds, rules and objective.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Columns of the 4 × `width` board.
    pub width: usize,
    /// Seeds on the board (they never change in Omweso).
    pub seeds: usize,
    /// The rules options.
    pub rules: Rules,
    /// What the table maximises.
    pub objective: Objective,
}

impl Config {
    /// The table file inside a tablebase folder: one folder per ruleset
    /// (`omweso-all-laps-void-okutema-on`), one file per width, seeds and
    /// objective (`w2-s6.wdl.mtb`).
    pub fn path(&self, dir: &Path) -> PathBuf {
        self.file_path(dir, self.objective.name())
    }

    /// The distance table of a points table, beside it with `distance` for
    /// the objective (`w2-s6.distance.mtb`); `None` for a win/draw/loss
    /// table, whose values hold their distances.
    pub fn distance_path(&self, dir: &Path) -> Option<PathBuf> {
        (self.objective == Objective::Points).then(|| self.file_path(dir, "distance"))
    }

    fn file_path(&self, dir: &Path, kind: &str) -> PathBuf {
        let mut folder = String::from("omweso");
        for (option, value) in self.rules.options() {
            // A bare `on` or `off` would not say which option it is.
            if matches!(value, "on" | "off") {
                folder += &format!("-{option}");
            }
            folder += &format!("-{value}");
        }
        let file = format!("w{}-s{}.{kind}.mtb", self.width, self.seeds);
        dir.join(folder).join(file)
    }

    /// The `mancala-tb build` arguments that build this table.
    fn build_args(&self, dir: &Path) -> String {
        let rules: String = (self.rules.options().iter())
            .map(|(option, value)| format!(" --{option} {value}"))
            .collect();
        format!(
            "omweso --width {} --seeds {} --objective {}{rules} --dir {}",
            self.width,
            self.seeds,
            self.objective,
            dir.display()
        )
    }
}

impl ExplicitGame for Config {
    type Position = Position;
    type Value = Value;
    type MoveGen = MoveGen;

    const NAME: &'static str = "Omweso";
    const MAX_SEEDS: usize = omweso::MAX_SEEDS as usize;

    fn layers(&self) -> RangeInclusive<usize> {
        self.seeds..=self.seeds
    }

    fn check_width(&self) -> Result<(), OmwesoTbError> {
        Ok(omweso::check_width(self.width)?)
    }

    fn file(&self, dir: &Path, seeds: usize) -> Result<LayerFile, IndexError> {
        let table = Config { seeds, ..*self };
        Ok(LayerFile {
            path: table.path(dir),
            distance_path: table.distance_path(dir),
            meta: Meta {
                game: "omweso",
                ruleset: self.rules.to_string(),
                options: format!("objective={}", self.objective),
                seeds: seeds as u32,
                board_width: self.width as u32,
                wide: self.objective == Objective::Wdl,
            },
            index: StarsBars::new(4 * self.width, seeds)?,
            name: "the Omweso table".into(),
            build_args: table.build_args(dir),
        })
    }

    fn fit(&self, pos: &Position) -> Result<(), OmwesoTbError> {
        let (width, seeds) = (pos.width(), pos.seeds() as usize);
        if width != self.width || seeds != self.seeds {
            return Err(OmwesoTbError::WrongLayer {
                width,
                seeds,
                table_width: self.width,
                table_seeds: self.seeds,
            });
        }
        Ok(())
    }

    fn position(&self, counts: &[u8]) -> Position {
        Position::from_counts(self.width, counts)
    }

    fn counts(pos: &Position) -> &[u8] {
        pos.pits()
    }

    fn steps(
        &self,
        pos: &Position,
        moves: &mut MoveGen,
        mut each: impl FnMut(Step<Position, Value>),
    ) {
        moves.generate(pos, &self.rules, true, Dedup::Position);
        for m in moves.legal() {
            each(match m.outcome {
                Outcome::Ends {
                    win: Some(kind), ..
                } => Step::Over(win_value(self.objective, kind)),
                Outcome::Ends { after, .. } => Step::Child(after.flipped()),
                Outcome::NeverEnds(_) => Step::Over(draw(self.objective)),
            });
        }
    }

    fn back(&self, _: &Position, _: &Position, value: Value) -> Value {
        value.after()
    }

    fn no_move(&self, _: &Position) -> Value {
        no_move(self.objective)
    }

    fn rank(value: Value) -> i32 {
        value.rank()
    }

    /// A win is worth its points (1 in wdl), a voided game 0, no move a
    /// loss.
    fn engine_value(&self, value: Value) -> i8 {
        match value {
            Value::Points(p) => p,
            Value::Wdl(w) => w.rank().signum() as i8,
        }
    }

    fn solve(
        &self,
        layer: &dyn Layer,
        distances: bool,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<SolvedLayer, OmwesoTbError> {
        let depths = match self.objective {
            Objective::Wdl => Depths::With,
            Objective::Points if distances => Depths::With,
            Objective::Points => Depths::Without,
        };
        let solved = explicit::solve(layer, depths, progress)?;
        Ok(match (self.objective, solved.depths) {
            (Objective::Wdl, Some(depths)) => SolvedLayer {
                values: StoredValues::I16(
                    (solved.values.par_iter().zip(depths))
                        .map(|(&v, d)| encode_wdl(v, d))
                        .collect::<Result<Vec<_>, _>>()?,
                ),
                distances: None,
            },
            (_, depths) => SolvedLayer {
                values: StoredValues::I8(solved.values),
                distances: depths.map(distance_values).transpose()?,
            },
        })
    }

    fn decode(&self, stored: i16) -> Value {
        match self.objective {
            Objective::Wdl => Value::Wdl(Wdl::decode(stored)),
            Objective::Points => Value::Points(stored as i8),
        }
    }
}

/// What a build did.
#[derive(Clone, Debug)]
pub struct Report {
    /// Positions, outcomes, time and bytes of the table.
    pub layer: LayerReport,
    /// The longest win (wdl tables): moves to the end.
    pub longest_win: Option<u16>,
    /// The distance table (points tables, unless built without).
    pub distances: Option<ExplicitDistanceReport>,
}

/// Builds the table of `config` under `dir` unless it is already complete,
/// with the distance table of a points table unless `distances` says to
/// skip it (and adds that table beside a points table built without).
/// Uses the current rayon pool.
pub fn build(
    dir: &Path,
    config: Config,
    distances: DistanceTables,
    observer: &dyn BuildObserver,
) -> Result<Report, OmwesoTbError> {
    let built = super::explicit::build(dir, config, config.layers(), distances, observer)?;
    let layer = built.layers.into_iter().next().expect("one layer");
    let longest_win = OmwesoTablebase::open(dir, config)?.stats()?.longest_win;
    Ok(Report {
        layer,
        longest_win,
        distances: built.distances.into_iter().next(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::omweso::{Endless, Reverse};

    #[test]
    fn every_ruleset_has_its_own_folder_and_build_command() {
        let dir = Path::new("tb");
        let mut folders = std::collections::HashSet::new();
        let mut commands = std::collections::HashSet::new();
        for reverse in [Reverse::AllLaps, Reverse::StartOnly] {
            for endless in [Endless::Void, Endless::Illegal] {
                for okutema in [true, false] {
                    let config = Config {
                        width: 2,
                        seeds: 6,
                        rules: Rules {
                            reverse,
                            endless,
                            okutema,
                        },
                        objective: Objective::Wdl,
                    };
                    folders.insert(config.path(dir).parent().unwrap().to_path_buf());
                    commands.insert(config.build_args(dir));
                }
            }
        }
        assert_eq!((folders.len(), commands.len()), (8, 8));
        let config = Config {
            width: 2,
            seeds: 6,
            rules: Rules::default(),
            objective: Objective::Points,
        };
        assert_eq!(
            config.path(dir),
            Path::new("tb/omweso-all-laps-void-okutema-on/w2-s6.points.mtb")
        );
        assert_eq!(
            config.build_args(dir),
            "omweso --width 2 --seeds 6 --objective points --reverse all-laps --endless void --okutema on --dir tb"
        );
        assert_eq!(
            config.rules.to_string(),
            "reverse=all-laps,endless=void,okutema=on"
        );
    }
}
