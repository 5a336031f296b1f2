//! Probing an Omweso table: values, moves, principal variations, counts,
//! and the consistency check.

use std::path::Path;

use rayon::prelude::*;

use super::value::{draw, win_value};
use super::{Config, OmwesoTbError, Value, Wdl};
use crate::games::omweso::{Dedup, MoveGen, Outcome, Position, WinKind};
use crate::games::relay::Choice;
use crate::tablebase::Outcomes;
use crate::tablebase::explicit::{Checked, ExplicitGame, ExplicitTablebase, best_move};

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
    /// Moves to the end of the game when both sides then keep the value,
    /// this move included: 1 for a move that wins or voids the game, `1 +
    /// distance(child)` for a move to a decided child (a wdl table's
    /// distance, or a points table's distance table); `None` for a move to
    /// a drawn child, or to a child of a points table built without its
    /// distance table.
    pub distance: Option<u16>,
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
pub struct OmwesoTablebase(ExplicitTablebase<Config>);

impl OmwesoTablebase {
    /// Opens the table of `config` under the tablebase folder `dir`; a
    /// missing table is an error that says how to build it.
    pub fn open(dir: &Path, config: Config) -> Result<OmwesoTablebase, OmwesoTbError> {
        let tables = ExplicitTablebase::open(dir, config)?;
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

    /// The distance of a position to the end of the game when both sides
    /// keep its value, the side ahead hurrying and the side behind
    /// delaying; 0 for a draw or a finished game. A wdl table's values hold
    /// it; a points table has it in its distance table, `None` if built
    /// without (`--no-distances`, or before they existed).
    pub fn distance(&self, pos: &Position) -> Result<Option<u16>, OmwesoTbError> {
        match self.value(pos)? {
            Value::Wdl(Wdl::Win(d) | Wdl::Loss(d)) => Ok(Some(d)),
            Value::Wdl(Wdl::Draw) => Ok(Some(0)),
            Value::Points(_) => self.0.distance(pos),
        }
    }

    /// The `mancala-tb build` arguments that add the distance table of a
    /// points table built without one.
    pub fn distances_missing(&self) -> Option<String> {
        self.0.distances_missing(self.config().seeds)
    }

    /// Every legal move (one per distinct outcome of each starting pit and
    /// direction) with its value and distance.
    pub fn move_values(&self, pos: &Position) -> Result<Vec<MoveValue>, OmwesoTbError> {
        let config = self.config();
        config.fit(pos)?;
        let mut moves = MoveGen::new();
        moves.generate(pos, &config.rules, true, Dedup::StartChoice);
        moves
            .legal()
            .map(|m| {
                let (result, value, distance) = match m.outcome {
                    Outcome::Ends {
                        win: Some(kind), ..
                    } => (
                        MoveResult::Wins(kind),
                        win_value(config.objective, kind),
                        Some(1),
                    ),
                    Outcome::Ends { after, .. } => {
                        let child = after.flipped();
                        let value = self.value(&child)?;
                        let distance = match value {
                            Value::Wdl(Wdl::Draw) | Value::Points(0) => None,
                            _ => self.distance(&child)?.map(|d| d + 1),
                        };
                        (MoveResult::Child(child), value.after(), distance)
                    }
                    Outcome::NeverEnds(_) => (MoveResult::Void, draw(config.objective), Some(1)),
                };
                Ok(MoveValue {
                    path: moves.path(m).to_vec(),
                    result,
                    value,
                    distance,
                })
            })
            .collect()
    }

    /// The move perfect play makes from `pos` among `moves` (its
    /// [`OmwesoTablebase::move_values`]): one that keeps the value, the
    /// nearest end when ahead, the farthest when behind, the first in move
    /// order among equals. `None` when the mover has no move.
    pub fn best<'m>(
        &self,
        pos: &Position,
        moves: &'m [MoveValue],
    ) -> Result<Option<&'m MoveValue>, OmwesoTbError> {
        let value = self.value(pos)?;
        let i = best_move(
            value.rank(),
            moves.iter().map(|m| (m.value == value, m.distance)),
        );
        Ok(i.map(|i| &moves[i]))
    }

    /// A principal variation from `pos`: perfect-play moves
    /// ([`OmwesoTablebase::best`]) until the game ends, a position repeats
    /// (a draw by perpetual play) or `max_moves` are shown. For a points
    /// table with its distance table the line ends in the game's end with
    /// the position's points (or, from a draw, possibly in a repetition).
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
            let moves = self.move_values(&pos)?;
            let Some(best) = self.best(&pos, &moves)?.cloned() else {
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
    /// over its legal moves, and its distance (a points table's distance
    /// table) 1 + the least (ahead) or greatest (behind) distance after its
    /// value-keeping moves. Reports the first mismatch.
    pub fn check_consistency(&self) -> Result<Checked, OmwesoTbError> {
        self.0.check(self.config().layers(), &|_| {})
    }
}
