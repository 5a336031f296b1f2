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

use std::fmt;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::relay::{self, LayerFile, RelayGame, RelayTablebase, Step, StoredValues};
use super::store::Meta;
use super::{BuildObserver, LayerReport, Outcomes};
use crate::games::omweso::{self, Dedup, MoveGen, Outcome, Position, Rules, WinKind};
use crate::games::relay::Choice;
use crate::index::stars_bars::{IndexError, StarsBars};
use crate::solve::explicit::{self, Layer};

pub use super::relay::RelayTbError as OmwesoTbError;

/// What the tables maximise.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Objective {
    /// Win, draw or loss, with the distance to the end in moves
    #[default]
    Wdl,
    /// The points of the final result: −12, −2, −1, 0, 1, 2, 12
    Points,
}

impl Objective {
    /// Every objective, in the order the command line lists them.
    pub const ALL: [Objective; 2] = [Objective::Wdl, Objective::Points];

    /// The name used on the command line, in folder names and in table headers.
    pub fn name(self) -> &'static str {
        match self {
            Objective::Wdl => "wdl",
            Objective::Points => "points",
        }
    }
}

impl std::str::FromStr for Objective {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Objective::ALL
            .into_iter()
            .find(|o| o.name() == s)
            .ok_or_else(|| format!("unknown Omweso objective '{s}' (expected wdl or points)"))
    }
}

impl fmt::Display for Objective {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

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
        let mut folder = String::from("omweso");
        for (option, value) in self.rules.options() {
            // A bare `on` or `off` would not say which option it is.
            if matches!(value, "on" | "off") {
                folder += &format!("-{option}");
            }
            folder += &format!("-{value}");
        }
        let file = format!("w{}-s{}.{}.mtb", self.width, self.seeds, self.objective);
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

/// A win/draw/loss value with the distance to the end in moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Wdl {
    /// A win in this many moves.
    Win(u16),
    /// A draw: perpetual play or a void game.
    Draw,
    /// A loss in this many moves.
    Loss(u16),
}

impl Wdl {
    /// Stored as `d` for a win in `d ≥ 1`, 0 for a draw, `−d − 1` for a
    /// loss in `d ≥ 0`.
    fn encode(self) -> i16 {
        match self {
            Wdl::Win(d) => d as i16,
            Wdl::Draw => 0,
            Wdl::Loss(d) => -(d as i16) - 1,
        }
    }

    fn decode(v: i16) -> Wdl {
        match v {
            0 => Wdl::Draw,
            v if v > 0 => Wdl::Win(v as u16),
            v => Wdl::Loss((-(v + 1)) as u16),
        }
    }

    /// The value of a move to a child of value `self`.
    fn after(self) -> Wdl {
        match self {
            Wdl::Win(d) => Wdl::Loss(d + 1),
            Wdl::Draw => Wdl::Draw,
            Wdl::Loss(d) => Wdl::Win(d + 1),
        }
    }

    /// Preference order: short wins, long wins, draws, long losses, short
    /// losses.
    fn rank(self) -> i32 {
        match self {
            Wdl::Win(d) => 100_000 - i32::from(d),
            Wdl::Draw => 0,
            Wdl::Loss(d) => -100_000 + i32::from(d),
        }
    }
}

/// A value under either objective.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// In a win/draw/loss table.
    Wdl(Wdl),
    /// In a points table: −12 … 12.
    Points(i8),
}

impl Value {
    /// Larger is better for the mover.
    fn rank(self) -> i32 {
        match self {
            Value::Wdl(w) => w.rank(),
            Value::Points(p) => i32::from(p),
        }
    }

    fn after(self) -> Value {
        match self {
            Value::Wdl(w) => Value::Wdl(w.after()),
            Value::Points(p) => Value::Points(-p),
        }
    }

    /// Whether the mover wins.
    pub fn is_win(self) -> bool {
        matches!(self, Value::Wdl(Wdl::Win(_))) || matches!(self, Value::Points(p) if p > 0)
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Wdl(Wdl::Win(d)) => write!(f, "win in {d}"),
            Value::Wdl(Wdl::Draw) => write!(f, "draw"),
            Value::Wdl(Wdl::Loss(d)) => write!(f, "loss in {d}"),
            Value::Points(p) => write!(f, "{p:+}"),
        }
    }
}

fn win_value(objective: Objective, kind: WinKind) -> Value {
    match objective {
        Objective::Wdl => Value::Wdl(Wdl::Win(1)),
        Objective::Points => Value::Points(kind.points() as i8),
    }
}

fn draw(objective: Objective) -> Value {
    match objective {
        Objective::Wdl => Value::Wdl(Wdl::Draw),
        Objective::Points => Value::Points(0),
    }
}

/// A mover without a legal move has lost by bulijo.
fn no_move(objective: Objective) -> Value {
    match objective {
        Objective::Wdl => Value::Wdl(Wdl::Loss(0)),
        Objective::Points => Value::Points(-(WinKind::Bulijo.points() as i8)),
    }
}

impl RelayGame for Config {
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
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<StoredValues, OmwesoTbError> {
        let wdl = self.objective == Objective::Wdl;
        let solved = explicit::solve(layer, wdl, progress)?;
        Ok(match solved.depths {
            Some(depths) => StoredValues::I16(
                (solved.values.par_iter().zip(depths))
                    .map(|(&v, d)| encode_wdl(v, d))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            None => StoredValues::I8(solved.values),
        })
    }

    fn decode(&self, stored: i16) -> Value {
        match self.objective {
            Objective::Wdl => Value::Wdl(Wdl::decode(stored)),
            Objective::Points => Value::Points(stored as i8),
        }
    }
}

fn encode_wdl(value: i8, depth: u16) -> Result<i16, OmwesoTbError> {
    if depth > i16::MAX as u16 - 1 {
        return Err(OmwesoTbError::TooDeep(depth));
    }
    Ok(match value.signum() {
        1 => Wdl::Win(depth),
        0 => Wdl::Draw,
        _ => Wdl::Loss(depth),
    }
    .encode())
}

/// What a build did.
#[derive(Clone, Debug)]
pub struct Report {
    /// Positions, outcomes, time and bytes of the table.
    pub layer: LayerReport,
    /// The longest win (wdl tables): moves to the end.
    pub longest_win: Option<u16>,
}

/// Builds the table of `config` under `dir` unless it is already complete.
/// Uses the current rayon pool.
pub fn build(
    dir: &Path,
    config: Config,
    observer: &dyn BuildObserver,
) -> Result<Report, OmwesoTbError> {
    let reports = relay::build(dir, config, config.layers(), observer)?;
    let layer = reports.into_iter().next().expect("one layer");
    let longest_win = OmwesoTablebase::open(dir, config)?.stats()?.longest_win;
    Ok(Report { layer, longest_win })
}

/// Where a move leads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveResult {
    /// The move wins the game at once.
    Wins(WinKind),
    /// The move never ends: the game is void.
    Void,
    /// The opponent faces this position.
    Child(Position),
}

/// One legal move and its perfect-play value for the mover.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveValue {
    /// The choices that make the move: starting pit and direction, then
    /// any choice at a later lap start.
    pub path: Vec<Choice>,
    /// Where it leads.
    pub result: MoveResult,
    /// Its value for the mover.
    pub value: Value,
}

/// Counts of a table.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    /// Wins, draws and losses for the side to move.
    pub outcomes: Outcomes,
    /// The longest win in moves (wdl tables).
    pub longest_win: Option<u16>,
    /// The longest loss in moves (wdl tables).
    pub longest_loss: Option<u16>,
}

/// An Omweso table opened for probing.
pub struct OmwesoTablebase(RelayTablebase<Config>);

impl OmwesoTablebase {
    /// Opens the table of `config` under the tablebase folder `dir`; a
    /// missing table is an error that says how to build it.
    pub fn open(dir: &Path, config: Config) -> Result<OmwesoTablebase, OmwesoTbError> {
        let tables = RelayTablebase::open(dir, config)?;
        tables.layer(config.seeds)?;
        Ok(OmwesoTablebase(tables))
    }

    /// The table's width, seeds, rules and objective.
    pub fn config(&self) -> Config {
        self.0.game()
    }

    /// The perfect-play value of a position for the side to move.
    pub fn value(&self, pos: &Position) -> Result<Value, OmwesoTbError> {
        self.0.value(pos)
    }

    /// Every legal move (one per distinct outcome of each starting pit and
    /// direction) with its value.
    pub fn move_values(&self, pos: &Position) -> Result<Vec<MoveValue>, OmwesoTbError> {
        let config = self.config();
        config.fit(pos)?;
        let mut moves = MoveGen::new();
        moves.generate(pos, &config.rules, true, Dedup::StartChoice);
        moves
            .legal()
            .map(|m| {
                let (result, value) = match m.outcome {
                    Outcome::Ends {
                        win: Some(kind), ..
                    } => (MoveResult::Wins(kind), win_value(config.objective, kind)),
                    Outcome::Ends { after, .. } => {
                        let child = after.flipped();
                        (MoveResult::Child(child), self.value(&child)?.after())
                    }
                    Outcome::NeverEnds(_) => (MoveResult::Void, draw(config.objective)),
                };
                Ok(MoveValue {
                    path: moves.path(m).to_vec(),
                    result,
                    value,
                })
            })
            .collect()
    }

    /// A principal variation from `pos`: best moves until the game ends, a
    /// position repeats (a draw by perpetual play) or `max_moves` are shown.
    pub fn principal_variation(
        &self,
        pos: &Position,
        max_moves: usize,
    ) -> Result<Vec<MoveValue>, OmwesoTbError> {
        self.config().fit(pos)?;
        let mut line = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut pos = *pos;
        while line.len() < max_moves && seen.insert(pos) {
            let value = self.value(&pos)?;
            let Some(best) = self
                .move_values(&pos)?
                .into_iter()
                .find(|m| m.value == value)
            else {
                break;
            };
            let next = match best.result {
                MoveResult::Child(child) => Some(child),
                _ => None,
            };
            line.push(best);
            match next {
                Some(child) => pos = child,
                None => break,
            }
        }
        Ok(line)
    }

    /// Every stored value, in rank order.
    fn stored(&self) -> Result<Vec<i16>, OmwesoTbError> {
        Ok(self.0.layer(self.config().seeds)?.1.load()?)
    }

    /// Wins, draws, losses, and the longest win and loss (wdl).
    pub fn stats(&self) -> Result<Stats, OmwesoTbError> {
        Ok(self
            .stored()?
            .par_iter()
            .fold(Stats::default, |mut s, &v| {
                match self.decode(v) {
                    Value::Wdl(Wdl::Win(d)) => {
                        s.outcomes.wins += 1;
                        s.longest_win = s.longest_win.max(Some(d));
                    }
                    Value::Wdl(Wdl::Loss(d)) => {
                        s.outcomes.losses += 1;
                        s.longest_loss = s.longest_loss.max(Some(d));
                    }
                    Value::Wdl(Wdl::Draw) => s.outcomes.draws += 1,
                    Value::Points(p) => s.outcomes.count(p),
                }
                s
            })
            .reduce(Stats::default, |a, b| Stats {
                outcomes: a.outcomes + b.outcomes,
                longest_win: a.longest_win.max(b.longest_win),
                longest_loss: a.longest_loss.max(b.longest_loss),
            }))
    }

    /// How many positions hold each stored value (decode the keys with
    /// [`OmwesoTablebase::decode`]).
    pub fn histogram(&self) -> Result<std::collections::BTreeMap<i16, u64>, OmwesoTbError> {
        Ok(self
            .stored()?
            .par_iter()
            .fold(std::collections::BTreeMap::new, |mut h, &v| {
                *h.entry(v).or_insert(0u64) += 1;
                h
            })
            .reduce(std::collections::BTreeMap::new, |mut a, b| {
                for (k, n) in b {
                    *a.entry(k).or_insert(0) += n;
                }
                a
            }))
    }

    /// Decodes a stored value (a key of [`OmwesoTablebase::histogram`]).
    pub fn decode(&self, stored: i16) -> Value {
        self.config().decode(stored)
    }

    /// Checks every position against its moves: its value must be the best
    /// over its legal moves. Reports the first mismatch.
    pub fn check_consistency(&self) -> Result<(), OmwesoTbError> {
        self.0.check(self.config().layers(), &|_| {})
    }
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
