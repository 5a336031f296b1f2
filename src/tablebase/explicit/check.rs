//! Checking explicit-engine tables: every position's stored value against the best
//! over its moves, the layers decoded into memory once.

use std::ops::ControlFlow;

use super::{ExplicitGame, ExplicitTablebase, ExplicitTbError, Loaded, Step, walk_positions};
use crate::error::WithPath;
use crate::tablebase::FileError;
use crate::tablebase::check::first_inconsistent;

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

impl<G: ExplicitGame> ExplicitTablebase<G> {
    /// Checks every position of `layers` (from the lowest a move can reach):
    /// its value must be the best over its legal moves. Reports the first
    /// mismatch; `progress` gets the positions checked.
    pub fn check(
        &self,
        layers: std::ops::RangeInclusive<usize>,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<(), ExplicitTbError> {
        let mut loaded = Loaded::default();
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
        }
        Ok(())
    }
}
