//! Probing many positions at once. Every value a batch needs (each
//! position's own, and its children's for the move values) is looked up in
//! one sorted pass per layer by the [resolver](super::resolve), so each
//! block is decoded once however many positions of the batch fall in it.

use super::resolve::resolve;
use super::{MoveValue, OwareTablebase, TablebaseError};
use crate::games::oware::{self, Board, MAX_SEEDS};
use crate::index::oware as index;
use crate::solve::oware::Lookup;

/// The answer for one position of a batch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probed {
    /// The perfect-play value for the side to move: its stored entry, or,
    /// for a position the tables do not index (every opponent pit
    /// occupied), the best of its moves.
    pub value: i8,
    /// Every legal move with its value, in pit order (filled in only when
    /// the batch asks for moves; their distances only when it asks for
    /// them, `None` otherwise).
    pub moves: Vec<MoveValue>,
    /// The position's distance ([`OwareTablebase::distance`]), when the
    /// batch asks for distances and its layer has a distance table.
    pub distance: Option<u16>,
}

/// What a batch probe answers for each position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// Its value.
    Values,
    /// Its value and its moves' values.
    Moves,
    /// Its value and distance, and its moves' values and distances: each
    /// distance is a probe of its own (a block of its distance table).
    MovesAndDistances,
}

impl OwareTablebase {
    /// The values of `boards` (and as much more as `detail` asks), in their
    /// order: the same answers as [`OwareTablebase::value`] and
    /// [`OwareTablebase::move_values`], far faster for many positions.
    /// A position whose layers are not all built gets its own error; a
    /// damaged table fails the whole batch.
    pub fn probe_many(
        &self,
        boards: &[Board],
        detail: Detail,
    ) -> Result<Vec<Result<Probed, TablebaseError>>, TablebaseError> {
        let with_moves = detail != Detail::Values;
        let built = self.complete_layers()?;
        let mut lookups = Vec::new();
        // Per board: its first lookup (its own entry, if it is indexed,
        // then its children's if asked), or its error.
        let mut starts = Vec::with_capacity(boards.len());
        for board in boards {
            let seeds = oware::seeds(board);
            if seeds >= built {
                let missing = self.layer(seeds).err();
                starts.push(Err(missing.unwrap_or_else(|| self.missing_layer(built))));
                continue;
            }
            starts.push(Ok(lookups.len()));
            let own = index::rank(board);
            if let Some(rank) = own {
                lookups.push(lookup(seeds, rank));
            }
            if with_moves || own.is_none() {
                lookups.extend(oware::legal_moves(self.rules(), board).iter().map(|mv| {
                    let rest = seeds - mv.captured as usize;
                    lookup(rest, index::rank_indexed(&mv.child, rest))
                }));
            }
        }
        resolve(self, &mut lookups)?;
        Ok(boards
            .iter()
            .zip(starts)
            .map(|(board, start)| {
                let at = start?;
                let own = index::rank(board).map(|_| lookups[at]);
                let children = &lookups[at + usize::from(own.is_some())..];
                self.probed(board, own, children, detail)
            })
            .collect())
    }

    /// The answer of `board` from its resolved lookups: its `own` entry if
    /// it is indexed, and its moves' `children` where asked (or where it has
    /// no entry of its own).
    fn probed(
        &self,
        board: &Board,
        own: Option<Lookup>,
        children: &[Lookup],
        detail: Detail,
    ) -> Result<Probed, TablebaseError> {
        let with_moves = detail != Detail::Values;
        let with_distances = detail == Detail::MovesAndDistances;
        let moves = match with_moves || own.is_none() {
            true => (oware::legal_moves(self.rules(), board).iter())
                .zip(children)
                .map(|(mv, child)| {
                    Ok(MoveValue {
                        pit: mv.pit,
                        captured: mv.captured,
                        child: mv.child,
                        value: mv.captured as i8 - child.value,
                        distance: match with_distances {
                            true => self.move_distance(
                                mv.captured,
                                child.value,
                                (child.seeds as usize, child.rank),
                            )?,
                            false => None,
                        },
                    })
                })
                .collect::<Result<Vec<MoveValue>, TablebaseError>>()?,
            false => Vec::new(),
        };
        let value = match own {
            Some(own) => own.value,
            None => (moves.iter().map(|m| m.value).max())
                .unwrap_or_else(|| oware::no_move_value(self.rules(), board)),
        };
        let distance = match (with_distances, own) {
            (false, _) => None,
            (true, Some(own)) => self.distance_at(own.seeds as usize, own.rank)?,
            (true, None) => super::distance_by_moves(&moves),
        };
        Ok(Probed {
            value,
            // Of a position not indexed, asked for its value only, the
            // moves gave the value and are not answered.
            moves: if with_moves { moves } else { Vec::new() },
            distance,
        })
    }

    /// The distance of each of `boards` ([`OwareTablebase::distance`]), in
    /// their order, probed in parallel. A position whose layer has no
    /// distance table, or is not built, gets its own error; a damaged table
    /// fails the whole batch.
    pub fn distances_many(
        &self,
        boards: &[Board],
    ) -> Result<Vec<Result<u16, TablebaseError>>, TablebaseError> {
        use rayon::prelude::*;
        boards
            .par_iter()
            .map(|board| match self.distance(board) {
                Ok(Some(distance)) => Ok(Ok(distance)),
                Ok(None) => Ok(Err(self.missing_distances(oware::seeds(board)))),
                Err(e @ (TablebaseError::Missing(_) | TablebaseError::TooManySeeds(_))) => {
                    Ok(Err(e))
                }
                Err(e) => Err(e),
            })
            .collect()
    }

    /// The number of layers that open from 0 up without a gap: those a
    /// batch reads. A damaged table among them fails.
    fn complete_layers(&self) -> Result<usize, TablebaseError> {
        for seeds in 0..=MAX_SEEDS {
            match self.layer(seeds) {
                Ok(_) => {}
                Err(TablebaseError::Missing(_)) => return Ok(seeds),
                Err(e) => return Err(e),
            }
        }
        Ok(MAX_SEEDS + 1)
    }
}

fn lookup(seeds: usize, rank: u64) -> Lookup {
    Lookup {
        rank,
        seeds: seeds as u8,
        value: 0,
        captured: 0,
        slot: 0,
    }
}
