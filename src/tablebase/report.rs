//! What a build tells its caller: progress while it runs ([`BuildObserver`])
//! and a [`LayerReport`] per layer, for every game.

use std::ops::Add;

use rayon::prelude::*;

/// Reports the progress of a build (the CLI draws bars; tests ignore it).
/// An Oware build tells more (`tablebase::oware::OwareObserver`).
pub trait BuildObserver: Sync {
    /// A layer resumes from its checkpoint.
    fn layer_resumed(&self, _seeds: usize) {}
    /// A layer is about to be solved.
    fn layer_started(&self, _seeds: usize, _positions: u64) {}
    /// Work steps done; a layer of `P` positions takes `2P`.
    fn advance(&self, _steps: u64) {}
    /// A layer is built (or was already).
    fn layer_finished(&self, _report: &LayerReport) {}
}

/// An observer that shows nothing.
pub struct Quiet;
impl BuildObserver for Quiet {}

/// What happened to one layer during a build.
#[derive(Clone, Debug)]
pub struct LayerReport {
    /// The layer.
    pub seeds: usize,
    /// Its positions.
    pub positions: u64,
    /// Wins, draws and losses; `None` for a layer already built and not
    /// needed by the build.
    pub outcomes: Option<Outcomes>,
    /// Wall time of the build, `None` if the layer was already built.
    pub seconds: Option<f64>,
    /// Bytes of the table file.
    pub bytes: u64,
}

/// Counts of a finished layer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcomes {
    /// Positions the mover wins.
    pub wins: u64,
    /// Positions drawn.
    pub draws: u64,
    /// Positions the mover loses.
    pub losses: u64,
}

impl Outcomes {
    /// Counts one value by its sign: positive wins, zero draws.
    pub fn count(&mut self, sign: i8) {
        match sign.signum() {
            1 => self.wins += 1,
            0 => self.draws += 1,
            _ => self.losses += 1,
        }
    }
}

impl Add for Outcomes {
    type Output = Outcomes;
    fn add(self, other: Outcomes) -> Outcomes {
        Outcomes {
            wins: self.wins + other.wins,
            draws: self.draws + other.draws,
            losses: self.losses + other.losses,
        }
    }
}

/// Counts wins, draws and losses of a layer of score values.
pub fn outcomes(values: &[i8]) -> Outcomes {
    outcomes_by(values, |v| v)
}

/// Counts wins, draws and losses of a layer of stored values, each counted
/// by the sign `sign` gives it.
pub(crate) fn outcomes_by<T: Copy + Sync>(values: &[T], sign: impl Fn(T) -> i8 + Sync) -> Outcomes {
    values
        .par_chunks(1 << 14)
        .map(|chunk| {
            // Counted without branches, which the compiler vectorises.
            let (mut wins, mut losses) = (0u32, 0u32);
            for &v in chunk {
                let sign = sign(v);
                wins += u32::from(sign > 0);
                losses += u32::from(sign < 0);
            }
            let (wins, losses) = (u64::from(wins), u64::from(losses));
            Outcomes {
                wins,
                draws: chunk.len() as u64 - wins - losses,
                losses,
            }
        })
        .reduce(Outcomes::default, Add::add)
}
