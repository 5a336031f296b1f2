//! Checking explicit-engine tables: every position's stored value against the best
//! over its moves, and its stored distance (score tables with a distance
//! table) against its value-keeping moves, the layers decoded into memory once.

use std::ops::ControlFlow;

use super::{
    ExplicitGame, ExplicitTablebase, ExplicitTbError, Loaded, Step, seeds, walk_positions,
};
use crate::error::WithPath;
use crate::tablebase::FileError;
use crate::tablebase::check::first_inconsistent;

/// What a check covered beyond the values.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Checked {
    /// The layers whose distance tables were checked.
    pub distances: Vec<usize>,
    /// Score layers without a distance table.
    pub missing_distances: Vec<usize>,
}

/// The value `pos` should have: the best over its moves, their children's
/// values read from `loaded`.
fn best<G: ExplicitGame>(
    game: &G,
    loaded: &Loaded,
    pos: &G::Position,
    moves: &mut G::MoveGen,
) -> G::Value {
    let mut best: Option<G::Value> = None;
    game.steps(pos, moves, |step| {
        let value = match step {
            Step::Over(value) => value,
            Step::Child(child) => game.back(pos, &child, loaded.value(game, &child)),
        };
        if best.is_none_or(|b| G::rank(value) > G::rank(b)) {
            best = Some(value);
        }
    });
    best.unwrap_or_else(|| game.no_move(pos))
}

/// The distance `pos`, of value `value`, should have: 0 when even or
/// without moves; else 1 + the least (ahead) or greatest (behind) distance
/// after its value-keeping moves, an exit counting 0 after it and a child
/// in the layer its distance in `distances`.
fn distance<G: ExplicitGame>(
    game: &G,
    loaded: &Loaded,
    distances: &[i16],
    pos: &G::Position,
    value: G::Value,
    moves: &mut G::MoveGen,
) -> u16 {
    let sign = G::rank(value).signum();
    if sign == 0 {
        return 0;
    }
    let layer = seeds::<G>(pos);
    let mut best: Option<u16> = None;
    game.steps(pos, moves, |step| {
        let after = match step {
            Step::Over(v) if v == value => 0,
            Step::Over(_) => return,
            Step::Child(child) => {
                if game.back(pos, &child, loaded.value(game, &child)) != value {
                    return;
                }
                if seeds::<G>(&child) != layer {
                    0
                } else {
                    let (index, _) = loaded.layer(layer);
                    distances[index.rank(G::counts(&child)) as usize] as u16
                }
            }
        };
        best = Some(match best {
            None => after,
            Some(b) if sign > 0 => b.min(after),
            Some(b) => b.max(after),
        });
    });
    // No value-keeping move: only a position without moves (its value
    // checked before).
    best.map_or(0, |b| b.saturating_add(1))
}

impl<G: ExplicitGame> ExplicitTablebase<G> {
    /// Checks every position of `layers` (from the lowest a move can reach):
    /// its value must be the best over its legal moves, and its distance,
    /// where the layer has a distance table, 1 + the least (ahead) or
    /// greatest (behind) over its value-keeping moves. Reports the first
    /// mismatch; `progress` gets the positions checked (twice for layers
    /// with distances).
    pub fn check(
        &self,
        layers: std::ops::RangeInclusive<usize>,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Checked, ExplicitTbError> {
        let mut loaded = Loaded::default();
        let mut checked = Checked::default();
        for seeds in layers {
            let (file, table) = self.layer(seeds)?;
            loaded.push(seeds, file.index.clone(), table.load()?);
            let (index, values) = loaded.layer(seeds);
            let bad = first_inconsistent(index.size(), 1 << 12, progress, |ranks| {
                let mut moves = G::MoveGen::default();
                Ok::<_, ExplicitTbError>(walk_positions(index, ranks, |rank, counts| {
                    let pos = self.game.position(counts);
                    let stored = self.game.decode(values[rank as usize]);
                    let expected = best(&self.game, &loaded, &pos, &mut moves);
                    if stored == expected {
                        return ControlFlow::Continue(());
                    }
                    ControlFlow::Break(FileError::Inconsistent {
                        rank,
                        position: pos.to_string(),
                        stored: stored.to_string(),
                        expected: expected.to_string(),
                    })
                }))
            })?;
            if let Some(bad) = bad {
                return Err(WithPath::new(&file.path, bad).into());
            }
            match self.layer_distances(seeds)? {
                Some(table) => {
                    let distances = table.load()?;
                    let block = u64::from(table.block_size());
                    let bad = first_inconsistent(index.size(), 1 << 12, progress, |ranks| {
                        let mut moves = G::MoveGen::default();
                        Ok::<_, ExplicitTbError>(walk_positions(index, ranks, |rank, counts| {
                            let pos = self.game.position(counts);
                            let value = self.game.decode(values[rank as usize]);
                            let stored = distances[rank as usize];
                            let expected =
                                distance(&self.game, &loaded, &distances, &pos, value, &mut moves);
                            if i32::from(stored) == i32::from(expected) {
                                return ControlFlow::Continue(());
                            }
                            ControlFlow::Break(ExplicitTbError::WrongDistance {
                                path: table.path().to_path_buf(),
                                block: rank / block,
                                rank,
                                position: pos.to_string(),
                                stored,
                                expected,
                            })
                        }))
                    })?;
                    if let Some(bad) = bad {
                        return Err(bad);
                    }
                    checked.distances.push(seeds);
                }
                None if file.distance_path.is_some() => checked.missing_distances.push(seeds),
                None => {}
            }
        }
        Ok(checked)
    }
}
