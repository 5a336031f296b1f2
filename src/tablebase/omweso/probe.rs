//! Probing an Omweso table: values, moves, principal variations, counts,
//! and the consistency check.

use std::path::Path;

use rayon::prelude::*;

use super::value::{draw, win_value};
use super::{Config, OmwesoTbError, Value, Wdl};
use crate::games::omweso::{Dedup, MoveGen, Outcome, Position, WinKind};
use crate::games::relay::Choice;
use crate::tablebase::Outcomes;
use crate::tablebase::explicit::{ExplicitGame, ExplicitTablebase};

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
