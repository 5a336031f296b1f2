//! Tables solved by the explicit engine, those of the relay games (En Gehé,
//! Omweso): one table file per layer (the seeds on the board), positions
//! numbered by stars-and-bars rank of the pit counts. A move either ends the
//! game, stays in its layer, or (an En Gehé capture) drops to a lower one,
//! so layers are built from the bottom up. Omweso is the one-layer case: its
//! seeds never change.
//!
//! A game plugs in through [`ExplicitGame`], implemented by its `Config`; the
//! modules `build`, `probe` and `check` do the rest, the same for both games.

mod build;
mod check;
mod error;
mod layer_file;
mod probe;
pub mod store;

use std::fmt;
use std::ops::{ControlFlow, Range, RangeInclusive};
use std::path::Path;

pub use build::{Built, DistanceTables, ExplicitDistanceReport, build};
pub use check::Checked;
pub use error::ExplicitTbError;
pub use layer_file::{LayerFile, SolvedLayer, StoredValues};
pub use probe::{ExplicitTablebase, best_move};

use crate::index::stars_bars::{self, IndexError, StarsBars};
use crate::solve::explicit::Layer;

/// What the explicit-engine tables need of one game: implemented by the game's
/// `Config` (board width, ruleset, and for Omweso its seeds and objective).
pub trait ExplicitGame: Copy + Send + Sync {
    /// A position, seen from the side to move.
    type Position: Copy + fmt::Display + Send + Sync;
    /// A perfect-play value for the side to move.
    type Value: Copy + PartialEq + fmt::Display + Send + Sync;
    /// What the move generator keeps from one position to the next.
    type MoveGen: Default;

    /// The game's name in messages.
    const NAME: &'static str;
    /// The most seeds a layer can hold.
    const MAX_SEEDS: usize;

    /// The layers these tables can hold: every seed count for En Gehé, the
    /// one of the configuration for Omweso.
    fn layers(&self) -> RangeInclusive<usize>;
    /// Refuses a board width the game does not have.
    fn check_width(&self) -> Result<(), ExplicitTbError>;
    /// The table file of layer `seeds` under the tablebase folder `dir`.
    fn file(&self, dir: &Path, seeds: usize) -> Result<LayerFile, IndexError>;
    /// Refuses a position these tables do not hold (another width, or for
    /// Omweso other seeds).
    fn fit(&self, pos: &Self::Position) -> Result<(), ExplicitTbError>;
    /// The position with these pit counts (index order, from a layer's
    /// index, so already valid).
    fn position(&self, counts: &[u8]) -> Self::Position;
    /// The pit counts of `pos` in index order.
    fn counts(pos: &Self::Position) -> &[u8];
    /// Calls `each` with where every distinct move of `pos` leads; never,
    /// if the mover has no move.
    fn steps(
        &self,
        pos: &Self::Position,
        moves: &mut Self::MoveGen,
        each: impl FnMut(Step<Self::Position, Self::Value>),
    );
    /// The value of the move from `pos` to `child`, whose value for the
    /// opponent (now to move) is `value`.
    fn back(&self, pos: &Self::Position, child: &Self::Position, value: Self::Value)
    -> Self::Value;
    /// The value of `pos` when the mover has no legal move.
    fn no_move(&self, pos: &Self::Position) -> Self::Value;
    /// Orders values: larger is better for the mover.
    fn rank(value: Self::Value) -> i32;
    /// The value as the explicit engine takes an exit: a score, or only
    /// the sign for win/draw/loss tables (the engine counts the distances).
    fn engine_value(&self, value: Self::Value) -> i8;
    /// Solves `layer` with the explicit engine and says what to store: the
    /// values and, if `distances` and the table is a score table, the
    /// distances of its distance table.
    fn solve(
        &self,
        layer: &dyn Layer,
        distances: bool,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<SolvedLayer, ExplicitTbError>;
    /// A stored value, decoded.
    fn decode(&self, stored: i16) -> Self::Value;
}

/// The distances of a score layer as its distance table stores them.
pub(crate) fn distance_values(depths: Vec<u16>) -> Result<Vec<i16>, ExplicitTbError> {
    use rayon::prelude::*;
    match depths.par_iter().copied().max() {
        Some(d) if d > i16::MAX as u16 => Err(ExplicitTbError::TooFar(d)),
        // Collected in place: no second vector.
        _ => Ok(depths.into_iter().map(|d| d as i16).collect()),
    }
}

/// Where one move leads.
pub enum Step<P, V> {
    /// The game ends (a win, a void game) with this value for the mover.
    Over(V),
    /// The opponent moves next in this position.
    Child(P),
}

/// Finished layers decoded into memory, by seeds: the lower layers of a
/// build, the layers of a check.
#[derive(Default)]
struct Loaded(Vec<Option<(StarsBars, Vec<i16>)>>);

impl Loaded {
    /// Adds layer `seeds`, its stored values in rank order.
    fn push(&mut self, seeds: usize, index: StarsBars, values: Vec<i16>) {
        if self.0.len() <= seeds {
            self.0.resize_with(seeds + 1, || None);
        }
        self.0[seeds] = Some((index, values));
    }

    /// Layer `seeds`, which is loaded: its index and stored values.
    fn layer(&self, seeds: usize) -> (&StarsBars, &[i16]) {
        let (index, values) = self.0[seeds]
            .as_ref()
            .expect("a move leads to a loaded layer");
        (index, values)
    }

    /// The value of `pos`, whose layer is loaded.
    fn value<G: ExplicitGame>(&self, game: &G, pos: &G::Position) -> G::Value {
        let (index, values) = self.layer(seeds::<G>(pos));
        game.decode(values[index.rank(G::counts(pos)) as usize])
    }
}

/// Walks the positions of `ranks` in rank order, calling `each(rank,
/// counts)` with the pit counts of each, until `each` breaks.
fn walk_positions<B>(
    index: &StarsBars,
    ranks: Range<u64>,
    mut each: impl FnMut(u64, &[u8]) -> ControlFlow<B>,
) -> Option<B> {
    let mut counts = vec![0u8; index.pits()];
    index.unrank(ranks.start, &mut counts);
    for rank in ranks {
        if let ControlFlow::Break(b) = each(rank, &counts) {
            return Some(b);
        }
        stars_bars::next(&mut counts);
    }
    None
}

/// The layer of `pos`: the seeds on its board.
fn seeds<G: ExplicitGame>(pos: &G::Position) -> usize {
    G::counts(pos).iter().map(|&c| usize::from(c)).sum()
}

/// The error of a layer above the game's largest.
fn too_many<G: ExplicitGame>(seeds: usize) -> ExplicitTbError {
    ExplicitTbError::TooManySeeds {
        game: G::NAME,
        seeds,
        max: G::MAX_SEEDS,
    }
}
