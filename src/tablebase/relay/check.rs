//! Checking relay tables: every position's stored value against the best
//! over its moves, the layers decoded into memory once.

use std::ops::ControlFlow;

use super::{RelayGame, RelayTablebase, RelayTbError, Step, seeds, walk_positions};
use crate::error::WithPath;
use crate::index::stars_bars::StarsBars;
use crate::tablebase::FileError;
use crate::tablebase::check::first_inconsistent;

/// Finished layers decoded into memory, by seeds.
#[derive(Default)]
pub(super) struct Loaded(Vec<Option<(StarsBars, Vec<i16>)>>);

impl Loaded {
    /// Adds layer `seeds`, its stored values in rank order.
    pub fn push(&mut self, seeds: usize, index: StarsBars, values: Vec<i16>) {
        if self.0.len() <= seeds {
            self.0.resize_with(seeds + 1, || None);
        }
        self.0[seeds] = Some((index, values));
    }

    /// The value of `pos`, whose layer is loaded.
    pub fn value<G: RelayGame>(&self, game: &G, pos: &G::Position) -> G::Value {
        let (index, values) = self.0[seeds::<G>(pos)]
            .as_ref()
            .expect("a move leads to a loaded layer");
        game.decode(values[index.rank(G::counts(pos)) as usize])
    }

    /// The value `pos` should have: the best over its moves.
    fn best<G: RelayGame>(&self, game: &G, pos: &G::Position, moves: &mut G::MoveGen) -> G::Value {
        let mut best: Option<G::Value> = None;
        game.steps(pos, moves, |step| {
            let value = match step {
                Step::Over(value) => value,
                Step::Child(child) => game.back(pos, &child, self.value(game, &child)),
            };
            if best.is_none_or(|b| G::rank(value) > G::rank(b)) {
                best = Some(value);
            }
        });
        best.unwrap_or_else(|| game.no_move(pos))
    }
}

impl<G: RelayGame> RelayTablebase<G> {
    /// Checks every position of `layers` (from the lowest a move can reach):
    /// its value must be the best over its legal moves. Reports the first
    /// mismatch; `progress` gets the positions checked.
    pub fn check(
        &self,
        layers: std::ops::RangeInclusive<usize>,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<(), RelayTbError> {
        let mut loaded = Loaded::default();
        for seeds in layers {
            let (file, table) = self.layer(seeds)?;
            loaded.push(seeds, file.index.clone(), table.load()?);
            let (index, values) = loaded.0[seeds].as_ref().expect("just loaded");
            let bad = first_inconsistent(index.size(), 1 << 12, progress, |ranks| {
                let mut moves = G::MoveGen::default();
                Ok::<_, RelayTbError>(walk_positions(index, ranks, |rank, counts| {
                    let pos = self.game.position(counts);
                    let stored = self.game.decode(values[rank as usize]);
                    let expected = loaded.best(&self.game, &pos, &mut moves);
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
