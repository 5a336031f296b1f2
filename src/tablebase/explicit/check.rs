//! Checking explicit-engine tables: every position's stored value against the best
//! over its moves, and its stored distance (score tables with a distance
//! table) against its value-keeping moves, the layers decoded into memory once.

use std::ops::ControlFlow;
use std::sync::Mutex;

use super::{
    ExplicitGame, ExplicitTablebase, ExplicitTbError, Loaded, Step, seeds, walk_positions,
};
use crate::error::WithPath;
use crate::index::stars_bars::StarsBars;
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

/// One move of a position as a check sees it: its value, and the rank of
/// its child when that is in the position's layer (`None`: the move leaves
/// the layer, by a capture or the end of the game).
type CheckedMove<V> = (V, Option<u64>);

/// Every move of `pos` (layer `layer`, positions numbered by `index`), its
/// children's values read from `loaded`.
fn moves_of<G: ExplicitGame>(
    game: &G,
    loaded: &Loaded,
    layer: (usize, &StarsBars),
    pos: &G::Position,
    moves: &mut G::MoveGen,
    out: &mut Vec<CheckedMove<G::Value>>,
) {
    out.clear();
    game.steps(pos, moves, |step| {
        out.push(match step {
            Step::Over(value) => (value, None),
            Step::Child(child) => {
                let value = game.back(pos, &child, loaded.value(game, &child));
                let same = seeds::<G>(&child) == layer.0;
                (value, same.then(|| layer.1.rank(G::counts(&child))))
            }
        })
    });
}

/// The value a position with these moves should have: the best over them
/// (`no_move` without moves).
fn best<G: ExplicitGame>(moves: &[CheckedMove<G::Value>], no_move: G::Value) -> G::Value {
    let best = moves
        .iter()
        .map(|m| m.0)
        .reduce(|a, b| if G::rank(b) > G::rank(a) { b } else { a });
    best.unwrap_or(no_move)
}

/// The distance a position of value `value` with these moves should have:
/// 0 when even or without moves; else 1 + the least (ahead) or greatest
/// (behind) distance after its value-keeping moves, a move leaving the
/// layer counting 0 after it and a child in the layer its distance in
/// `distances`.
fn distance<G: ExplicitGame>(
    moves: &[CheckedMove<G::Value>],
    value: G::Value,
    distances: &[i16],
) -> u16 {
    let sign = G::rank(value).signum();
    if sign == 0 {
        return 0;
    }
    let after = (moves.iter().filter(|m| m.0 == value))
        .map(|m| m.1.map_or(0, |child| distances[child as usize] as u16));
    let best = if sign > 0 { after.min() } else { after.max() };
    // No value-keeping move: a position without moves (its value checked).
    best.map_or(0, |b| b.saturating_add(1))
}

impl<G: ExplicitGame> ExplicitTablebase<G> {
    /// Checks every position of `layers` (from the lowest a move can reach):
    /// its value must be the best over its legal moves, and its distance,
    /// where the layer has a distance table, 1 + the least (ahead) or
    /// greatest (behind) over its value-keeping moves. Reports the first
    /// mismatch (a wrong value before any wrong distance); `progress` gets
    /// the positions checked.
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
            let distance_table = self.layer_distances(seeds)?;
            let distances = distance_table.map(|t| t.load()).transpose()?;
            // The first wrong distance, reported only if every value is right
            // (a wrong value can make its parents' distances look wrong).
            let wrong_distance = Mutex::new(None::<(u64, u16)>);
            let bad = first_inconsistent(index.size(), 1 << 12, progress, |ranks| {
                let mut moves = G::MoveGen::default();
                let mut list = Vec::new();
                Ok::<_, ExplicitTbError>(walk_positions(index, ranks, |rank, counts| {
                    let pos = self.game.position(counts);
                    moves_of(
                        &self.game,
                        &loaded,
                        (seeds, index),
                        &pos,
                        &mut moves,
                        &mut list,
                    );
                    let stored = self.game.decode(values[rank as usize]);
                    let expected = best::<G>(&list, self.game.no_move(&pos));
                    if stored != expected {
                        return ControlFlow::Break(FileError::Inconsistent {
                            rank,
                            position: pos.to_string(),
                            stored: stored.to_string(),
                            expected: expected.to_string(),
                        });
                    }
                    if let Some(distances) = &distances {
                        let expected = distance::<G>(&list, stored, distances);
                        if i32::from(distances[rank as usize]) != i32::from(expected) {
                            let mut wrong = wrong_distance.lock().expect("wrong distance lock");
                            if wrong.is_none_or(|(r, _)| rank < r) {
                                *wrong = Some((rank, expected));
                            }
                        }
                    }
                    ControlFlow::Continue(())
                }))
            })?;
            if let Some(bad) = bad {
                return Err(WithPath::new(&file.path, bad).into());
            }
            match (distance_table, distances) {
                (Some(table), Some(distances)) => {
                    if let Some((rank, expected)) = wrong_distance.into_inner().expect("lock") {
                        let mut counts = vec![0; index.pits()];
                        index.unrank(rank, &mut counts);
                        return Err(ExplicitTbError::WrongDistance {
                            path: table.path().to_path_buf(),
                            block: rank / u64::from(table.block_size()),
                            rank,
                            position: self.game.position(&counts).to_string(),
                            stored: distances[rank as usize],
                            expected,
                        });
                    }
                    checked.distances.push(seeds);
                }
                _ if file.distance_path.is_some() => checked.missing_distances.push(seeds),
                _ => {}
            }
        }
        Ok(checked)
    }
}
