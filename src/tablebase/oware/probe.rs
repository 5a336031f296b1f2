//! Probing a tablebase folder: values, move values, principal variations.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

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
}

impl OwareTablebase {
    /// Opens the layers of `rules` under the tablebase folder `dir`, each
    /// when first probed.
    pub fn open(dir: &Path, rules: Ruleset) -> Result<OwareTablebase, TablebaseError> {
        Ok(OwareTablebase {
            dir: dir.to_path_buf(),
            rules,
            tables: (0..=MAX_SEEDS).map(|_| OnceLock::new()).collect(),
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
                Ok(MoveValue {
                    pit: mv.pit,
                    captured: mv.captured,
                    child: mv.child,
                    value: mv.captured as i8 - resolve_one(self, rest, rank, &mv.child)?,
                })
            })
            .collect()
    }

    /// The line of best play from `board`: at each step a best move (among
    /// equals the one capturing most, then the lowest pit), until the game
    /// ends, a position repeats or `limit` moves are made.
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
            let Some(best) = moves
                .iter()
                .max_by_key(|m| (m.value, m.captured, std::cmp::Reverse(m.pit)))
            else {
                return Ok((line, PvEnd::GameOver));
            };
            line.push(PvStep {
                pit: best.pit,
                captured: best.captured,
                value: best.value,
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
