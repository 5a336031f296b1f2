//! Building explicit-engine tables: each missing layer from the bottom up, solved by
//! the explicit engine over the finished layers below it.

use std::ops::{ControlFlow, RangeInclusive};
use std::path::Path;
use std::time::Instant;

use super::{ExplicitGame, ExplicitTbError, Loaded, Step, seeds, too_many, walk_positions};
use crate::index::stars_bars::StarsBars;
use crate::solve::explicit::{Layer, MoveLists};
use crate::tablebase::report::outcomes_by;
use crate::tablebase::{BuildObserver, LayerReport};

/// Builds the layers `layers` of `game` under `dir`, skipping layers already
/// built. A move that leaves its layer must land in one of `layers` below
/// it. Uses the current rayon pool.
pub fn build<G: ExplicitGame>(
    dir: &Path,
    game: G,
    layers: RangeInclusive<usize>,
    observer: &dyn BuildObserver,
) -> Result<Vec<LayerReport>, ExplicitTbError> {
    game.check_width()?;
    if *layers.end() > G::MAX_SEEDS {
        return Err(too_many::<G>(*layers.end()));
    }
    let mut lower = Loaded::default();
    let mut reports = Vec::new();
    for seeds in layers {
        let file = game.file(dir, seeds)?;
        let seconds = match file.open()? {
            Some(_) => None,
            None => {
                observer.layer_started(seeds, file.index.size());
                let start = Instant::now();
                let layer = EngineLayer {
                    game,
                    seeds,
                    index: file.index.clone(),
                    lower: &lower,
                };
                file.write(&game.solve(&layer, &|steps| observer.advance(steps))?)?;
                Some(start.elapsed().as_secs_f64())
            }
        };
        let values = file.open_built()?.load()?;
        let report = LayerReport {
            seeds,
            positions: file.index.size(),
            outcomes: Some(outcomes_by(&values, |v| {
                G::rank(game.decode(v)).signum() as i8
            })),
            seconds,
            bytes: file.bytes()?,
        };
        observer.layer_finished(&report);
        reports.push(report);
        lower.push(seeds, file.index, values);
    }
    Ok(reports)
}

/// One layer as the explicit engine sees it: positions by rank, each with
/// its exits (moves whose value is known) and its children in the layer.
struct EngineLayer<'a, G> {
    game: G,
    seeds: usize,
    index: StarsBars,
    /// The finished layers below.
    lower: &'a Loaded,
}

impl<G: ExplicitGame> Layer for EngineLayer<'_, G> {
    fn size(&self) -> u64 {
        self.index.size()
    }

    fn moves(&self, first: u64, count: usize, out: &mut MoveLists) {
        let game = &self.game;
        let mut moves = G::MoveGen::default();
        walk_positions::<()>(&self.index, first..first + count as u64, |_, counts| {
            out.start();
            let pos = game.position(counts);
            let mut any = false;
            game.steps(&pos, &mut moves, |step| {
                any = true;
                match step {
                    Step::Over(value) => out.exit(game.engine_value(value)),
                    Step::Child(child) if seeds::<G>(&child) == self.seeds => {
                        out.child(self.index.rank(G::counts(&child)))
                    }
                    Step::Child(child) => {
                        let value = game.back(&pos, &child, self.lower.value(game, &child));
                        out.exit(game.engine_value(value))
                    }
                }
            });
            if !any {
                out.end(game.engine_value(game.no_move(&pos)));
            }
            ControlFlow::Continue(())
        });
    }
}
