//! Probing a tablebase folder: values, move values, principal variations.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::distance::{self, distance_path};
use super::resolve::{LayerSource, Source, resolve_one};
use super::{TablebaseError, missing_layer, open_table, ruleset_dir, table_path};
use crate::games::oware::{self, Board, MAX_SEEDS, Ruleset};
use crate::index::oware as index;
use crate::table::Table;

/// One legal move and its perfect-play value for the mover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveValue {
    /// The pit sown from, `0..6` in the mover's row.
    pub pit: u8,
    /// Seeds captured.
    pub captured: u8,
    /// The position the opponent faces.
    pub child: Board,
    /// `captured − value(child)`.
    pub value: i8,
    /// The plies to the capture that secures `value` when both sides keep
    /// it from here: 1 for a capture, else one more than the child's
    /// distance ([`OwareTablebase::distance`]); `None` for a quiet move into
    /// a drawn position (nothing to secure, as in the other games) and where
    /// the child's layer has no distance table.
    pub distance: Option<u16>,
}

/// The move to play among `moves` (those of one position): one of the best
/// value; among those, ahead (value > 0) the one nearest its capture, behind
/// the one farthest (so that a line of such moves reaches the value), moves
/// of unknown distance last; then the one capturing most, then the lowest
/// pit. `None` when the game is over.
pub fn best_move(moves: &[MoveValue]) -> Option<&MoveValue> {
    let value = moves.iter().map(|m| m.value).max()?;
    let hurry = |m: &MoveValue| match (value.signum(), m.distance) {
        (0, _) => 0,
        (_, None) => i32::MIN,
        (1, Some(d)) => -i32::from(d),
        (_, Some(d)) => i32::from(d),
    };
    moves
        .iter()
        .filter(|m| m.value == value)
        .max_by_key(|m| (hurry(m), m.captured, std::cmp::Reverse(m.pit)))
}

/// The distance of a position from its moves: 0 when the game is over or
/// the value is 0; else that of its best move ([`best_move`]), `None` if
/// that is unknown.
pub fn distance_by_moves(moves: &[MoveValue]) -> Option<u16> {
    match best_move(moves) {
        None => Some(0),
        Some(m) if m.value == 0 => Some(0),
        Some(m) => m.distance,
    }
}

/// One move of a principal variation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PvStep {
    /// The pit sown from, `0..6` in the mover's row.
    pub pit: u8,
    /// Seeds captured.
    pub captured: u8,
    /// The value of the move for the player making it (the value of the
    /// position it is played from).
    pub value: i8,
    /// The distance of the move ([`MoveValue::distance`]): that of the
    /// position it is played from, where the line keeps the value.
    pub distance: Option<u16>,
    /// The position after the move, seen from the new mover.
    pub board: Board,
}

/// Why a principal variation stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PvEnd {
    /// The last position has no legal move.
    GameOver,
    /// The last position occurred before: best play goes round for ever.
    Repetition,
    /// The length limit was reached.
    Limit,
}

/// A tablebase folder opened for probing one ruleset. Safe to share between
/// threads; each layer's table is opened on first use, and keeps a small
/// cache of decoded blocks.
pub struct OwareTablebase {
    dir: PathBuf,
    rules: Ruleset,
    /// Layers by seeds, each once opened.
    tables: Vec<OnceLock<Table>>,
    /// Distance tables by seeds, each once looked for.
    distances: Vec<OnceLock<Option<Table>>>,
}

impl OwareTablebase {
    /// Opens the layers of `rules` under the tablebase folder `dir`, each
    /// when first probed.
    pub fn open(dir: &Path, rules: Ruleset) -> Result<OwareTablebase, TablebaseError> {
        Ok(OwareTablebase {
            dir: dir.to_path_buf(),
            rules,
            tables: (0..=MAX_SEEDS).map(|_| OnceLock::new()).collect(),
            distances: (0..=MAX_SEEDS).map(|_| OnceLock::new()).collect(),
        })
    }

    /// The ruleset the tables were opened for.
    pub fn rules(&self) -> Ruleset {
        self.rules
    }

    /// The seed counts whose layers are present.
    pub fn built_layers(&self) -> impl Iterator<Item = usize> + '_ {
        let folder = ruleset_dir(&self.dir, self.rules);
        (0..=MAX_SEEDS).filter(move |&s| table_path(&folder, s).is_file())
    }

    /// The table of the layer with `seeds` seeds, or an error naming the
    /// file and the command that builds it.
    pub fn layer(&self, seeds: usize) -> Result<&Table, TablebaseError> {
        let slot = self
            .tables
            .get(seeds)
            .ok_or(TablebaseError::TooManySeeds(seeds))?;
        if let Some(table) = slot.get() {
            return Ok(table);
        }
        let folder = ruleset_dir(&self.dir, self.rules);
        let table =
            open_table(&folder, self.rules, seeds)?.ok_or_else(|| self.missing_layer(seeds))?;
        // Another thread may have opened it meanwhile: either copy serves.
        Ok(slot.get_or_init(|| table))
    }

    /// The distance table of layer `seeds`, if it has one; an error if it
    /// was built from other values, or the layer is not built.
    pub fn distance_layer(&self, seeds: usize) -> Result<Option<&Table>, TablebaseError> {
        let slot = self
            .distances
            .get(seeds)
            .ok_or(TablebaseError::TooManySeeds(seeds))?;
        if let Some(table) = slot.get() {
            return Ok(table.as_ref());
        }
        let values = self.layer(seeds)?;
        let folder = ruleset_dir(&self.dir, self.rules);
        let table = distance::open(&folder, self.rules, seeds, values)?;
        Ok(slot.get_or_init(|| table).as_ref())
    }

    /// The built layers without a distance table: lines through them may
    /// go round before they reach their value.
    pub fn layers_without_distances(&self) -> Vec<usize> {
        let folder = ruleset_dir(&self.dir, self.rules);
        self.built_layers()
            .filter(|&s| !distance_path(&folder, s).is_file())
            .collect()
    }

    /// The moves to the capture (or the end of the game) that secures a
    /// position's value when both sides keep it, the side ahead hurrying
    /// and the side behind delaying (`docs/format.md`, "Distance tables");
    /// 0 for a draw and a finished game. `None` if its layer has no
    /// distance table.
    pub fn distance(&self, board: &Board) -> Result<Option<u16>, TablebaseError> {
        match index::rank(board) {
            Some(rank) => self.distance_at(oware::seeds(board), rank),
            None => Ok(distance_by_moves(&self.move_values(board)?)),
        }
    }

    /// The distance of the position of rank `rank` of layer `seeds`.
    pub(super) fn distance_at(
        &self,
        seeds: usize,
        rank: u64,
    ) -> Result<Option<u16>, TablebaseError> {
        match self.distance_layer(seeds)? {
            Some(table) => Ok(Some(table.get_wide(rank)? as u16)),
            None => Ok(None),
        }
    }

    /// The distance of a move capturing `captured` to the position of rank
    /// `rank` of layer `seeds`, worth `child_value` ([`MoveValue::distance`]).
    pub(super) fn move_distance(
        &self,
        captured: u8,
        child_value: i8,
        (seeds, rank): (usize, u64),
    ) -> Result<Option<u16>, TablebaseError> {
        match (captured, child_value) {
            (1.., _) => Ok(Some(1)),
            (0, 0) => Ok(None),
            (0, _) => Ok(self.distance_at(seeds, rank)?.map(|d| d + 1)),
        }
    }

    /// The error for a layer without its distance table: the table it needs
    /// and the command that adds it.
    pub fn missing_distances(&self, seeds: usize) -> TablebaseError {
        let rules = self.rules;
        TablebaseError::Missing(crate::error::MissingTable {
            table: format!("the distance table of layer {seeds} of the {rules} tables"),
            path: distance_path(&ruleset_dir(&self.dir, rules), seeds),
            build_args: super::build_args(&self.dir, rules, seeds),
        })
    }

    /// The error for layer `seeds` not built: the table it needs and the
    /// command that builds it.
    pub fn missing_layer(&self, seeds: usize) -> TablebaseError {
        missing_layer(&self.dir, self.rules, seeds)
    }

    /// The perfect-play value of any position for the side to move.
    pub fn value(&self, board: &Board) -> Result<i8, TablebaseError> {
        let seeds = oware::seeds(board);
        match index::rank(board) {
            Some(rank) => resolve_one(self, seeds, rank, board),
            None => self.best_move_value(board),
        }
    }

    /// Every legal move with its value, in pit order (empty when the game is
    /// over).
    pub fn move_values(&self, board: &Board) -> Result<Vec<MoveValue>, TablebaseError> {
        let seeds = oware::seeds(board);
        oware::legal_moves(self.rules, board)
            .iter()
            .map(|mv| {
                let rest = seeds - mv.captured as usize;
                // Children are always indexed: the origin pit is empty.
                let rank = index::rank_indexed(&mv.child, rest);
                let child_value = resolve_one(self, rest, rank, &mv.child)?;
                Ok(MoveValue {
                    pit: mv.pit,
                    captured: mv.captured,
                    child: mv.child,
                    value: mv.captured as i8 - child_value,
                    distance: self.move_distance(mv.captured, child_value, (rest, rank))?,
                })
            })
            .collect()
    }

    /// The line of best play from `board`: at each step the [`best_move`],
    /// until the game ends, a position repeats or `limit` moves are made.
    /// With distance tables the line reaches the value: it repeats only
    /// where the value is 0.
    pub fn principal_variation(
        &self,
        board: &Board,
        limit: usize,
    ) -> Result<(Vec<PvStep>, PvEnd), TablebaseError> {
        let mut line = Vec::new();
        let mut seen = std::collections::HashSet::from([*board]);
        let mut board = *board;
        while line.len() < limit {
            let moves = self.move_values(&board)?;
            let Some(best) = best_move(&moves) else {
                return Ok((line, PvEnd::GameOver));
            };
            line.push(PvStep {
                pit: best.pit,
                captured: best.captured,
                value: best.value,
                distance: best.distance,
                board: best.child,
            });
            board = best.child;
            if !seen.insert(board) {
                return Ok((line, PvEnd::Repetition));
            }
        }
        Ok((line, PvEnd::Limit))
    }

    /// The value a position gets from its children (or the end of the game).
    pub fn best_move_value(&self, board: &Board) -> Result<i8, TablebaseError> {
        Ok(self
            .move_values(board)?
            .iter()
            .map(|m| m.value)
            .max()
            .unwrap_or_else(|| oware::no_move_value(self.rules, board)))
    }
}

impl LayerSource for OwareTablebase {
    fn rules(&self) -> Ruleset {
        self.rules
    }

    fn source(&self, seeds: usize) -> Result<Source<'_>, TablebaseError> {
        self.layer(seeds).map(Source::Stored)
    }
}
