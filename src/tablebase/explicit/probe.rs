//! Probing explicit-engine tables: the layers found in a tablebase folder, opened
//! once, each read a block at a time.

use std::path::{Path, PathBuf};

use super::store::Stored;
use super::{ExplicitGame, ExplicitTbError, LayerFile, seeds, too_many};

/// The tables of one game configuration in a tablebase folder.
pub struct ExplicitTablebase<G> {
    dir: PathBuf,
    pub(super) game: G,
    /// Layers by seeds; `None` where the table is missing.
    layers: Vec<Option<(LayerFile, Stored)>>,
}

impl<G: ExplicitGame> ExplicitTablebase<G> {
    /// Opens the tables of `game` found under the tablebase folder `dir`;
    /// probing a missing layer says how to build it.
    pub fn open(dir: &Path, game: G) -> Result<ExplicitTablebase<G>, ExplicitTbError> {
        game.check_width()?;
        let mut layers: Vec<_> = (0..*game.layers().start()).map(|_| None).collect();
        for seeds in game.layers() {
            // Layers too large to number cannot have been built.
            let Ok(file) = game.file(dir, seeds) else {
                layers.push(None);
                continue;
            };
            layers.push(file.open()?.map(|table| (file, table)));
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

    /// Layer `seeds`, or the error that says how to build it.
    pub fn layer(&self, seeds: usize) -> Result<(&LayerFile, &Stored), ExplicitTbError> {
        match self.layers.get(seeds).ok_or_else(|| too_many::<G>(seeds))? {
            Some((file, table)) => Ok((file, table)),
            None => Err(self.game.file(&self.dir, seeds)?.missing()),
        }
    }

    /// The perfect-play value of `pos` for the side to move.
    pub fn value(&self, pos: &G::Position) -> Result<G::Value, ExplicitTbError> {
        self.game.fit(pos)?;
        let (file, table) = self.layer(seeds::<G>(pos))?;
        Ok(self
            .game
            .decode(table.get(file.index.rank(G::counts(pos)))?))
    }
}
