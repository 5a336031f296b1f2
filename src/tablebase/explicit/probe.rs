//! Probing explicit-engine tables: the layers found in a tablebase folder, opened
//! once, each read a block at a time, with their distance tables where built.

use std::path::{Path, PathBuf};

use super::{ExplicitGame, ExplicitTbError, LayerFile, seeds, too_many};
use crate::tablebase::store::Stored;

/// One built layer: its file, its values and its distance table if any.
struct OpenLayer {
    file: LayerFile,
    values: Stored,
    distances: Option<Stored>,
}

/// The tables of one game configuration in a tablebase folder.
pub struct ExplicitTablebase<G> {
    dir: PathBuf,
    pub(super) game: G,
    /// Layers by seeds; `None` where the table is missing.
    layers: Vec<Option<OpenLayer>>,
}

impl<G: ExplicitGame> ExplicitTablebase<G> {
    /// Opens the tables of `game` found under the tablebase folder `dir`;
    /// probing a missing layer says how to build it. A distance table built
    /// from other values than its layer's is an error naming both files.
    pub fn open(dir: &Path, game: G) -> Result<ExplicitTablebase<G>, ExplicitTbError> {
        game.check_width()?;
        let mut layers: Vec<_> = (0..*game.layers().start()).map(|_| None).collect();
        for seeds in game.layers() {
            // Layers too large to number cannot have been built.
            let Ok(file) = game.file(dir, seeds) else {
                layers.push(None);
                continue;
            };
            let layer = match file.open()? {
                Some(values) => Some(OpenLayer {
                    distances: file.open_distances(&values)?,
                    file,
                    values,
                }),
                None => None,
            };
            layers.push(layer);
        }
        Ok(ExplicitTablebase {
            dir: dir.to_path_buf(),
            game,
            layers,
        })
    }

    /// The configuration the tables were opened for.
    pub fn game(&self) -> G {
        self.game
    }

    fn open_layer(&self, seeds: usize) -> Result<&OpenLayer, ExplicitTbError> {
        match self.layers.get(seeds).ok_or_else(|| too_many::<G>(seeds))? {
            Some(layer) => Ok(layer),
            None => Err(self.game.file(&self.dir, seeds)?.missing()),
        }
    }

    /// Layer `seeds`, or the error that says how to build it.
    pub fn layer(&self, seeds: usize) -> Result<(&LayerFile, &Stored), ExplicitTbError> {
        let layer = self.open_layer(seeds)?;
        Ok((&layer.file, &layer.values))
    }

    /// The distance table of layer `seeds`, `None` if it has none (a
    /// win/draw/loss table, or one built without); an error if the layer
    /// is missing.
    pub fn layer_distances(&self, seeds: usize) -> Result<Option<&Stored>, ExplicitTbError> {
        Ok(self.open_layer(seeds)?.distances.as_ref())
    }

    /// The perfect-play value of `pos` for the side to move.
    pub fn value(&self, pos: &G::Position) -> Result<G::Value, ExplicitTbError> {
        self.game.fit(pos)?;
        let (file, table) = self.layer(seeds::<G>(pos))?;
        Ok(self
            .game
            .decode(table.get(file.index.rank(G::counts(pos)))?))
    }

    /// The distance of `pos` to what secures its value (docs/explicit.md),
    /// `None` if its layer has no distance table.
    pub fn distance(&self, pos: &G::Position) -> Result<Option<u16>, ExplicitTbError> {
        self.game.fit(pos)?;
        let layer = self.open_layer(seeds::<G>(pos))?;
        let Some(table) = &layer.distances else {
            return Ok(None);
        };
        Ok(Some(
            table.get(layer.file.index.rank(G::counts(pos)))? as u16
        ))
    }

    /// The `mancala-tb build` arguments that add the missing distance table
    /// of layer `seeds`, if it is a score layer without one.
    pub fn distances_missing(&self, seeds: usize) -> Option<String> {
        let layer = self.layers.get(seeds)?.as_ref()?;
        (layer.file.distance_path.is_some() && layer.distances.is_none())
            .then(|| layer.file.build_args.clone())
    }
}

/// The move a line plays: among the moves that keep the value `sign`
/// (`> 0` ahead, `< 0` behind, 0 even), given as `(keeps, distance)` in the
/// game's move order, the side ahead takes the least distance and the side
/// behind the greatest; the first of them on a tie, and the first that keeps
/// the value when even. A move without a known distance counts as the
/// farthest for the side ahead and the nearest for the side behind. `None`
/// when no move keeps the value (or there is none).
pub fn best_move(sign: i32, moves: impl IntoIterator<Item = (bool, Option<u16>)>) -> Option<usize> {
    let mut best: Option<(usize, u16)> = None;
    for (i, (keeps, distance)) in moves.into_iter().enumerate() {
        if !keeps {
            continue;
        }
        let better = match (sign.signum(), best) {
            (_, None) => true,
            (0, Some(_)) => false,
            (1, Some((_, b))) => distance.unwrap_or(u16::MAX) < b,
            (_, Some((_, b))) => distance.unwrap_or(0) > b,
        };
        if better {
            let key = if sign > 0 {
                distance.unwrap_or(u16::MAX)
            } else {
                distance.unwrap_or(0)
            };
            best = Some((i, key));
        }
    }
    best.map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::best_move;

    #[test]
    fn the_side_ahead_hurries_and_the_side_behind_delays() {
        let moves = [
            (false, Some(1)),
            (true, Some(5)),
            (true, Some(3)),
            (true, Some(7)),
            (true, Some(3)),
        ];
        assert_eq!(best_move(4, moves), Some(2));
        assert_eq!(best_move(-4, moves), Some(3));
        assert_eq!(best_move(0, moves), Some(1));
        assert_eq!(best_move(1, [(false, Some(1))]), None);
        // Without distances: the first move that keeps the value.
        assert_eq!(
            best_move(2, [(false, None), (true, None), (true, None)]),
            Some(1)
        );
        assert_eq!(best_move(-2, [(true, None), (true, None)]), Some(0));
        // A capture (distance 1) beside children of unknown distance.
        assert_eq!(best_move(2, [(true, None), (true, Some(1))]), Some(1));
        assert_eq!(best_move(-2, [(true, None), (true, Some(1))]), Some(1));
    }
}
