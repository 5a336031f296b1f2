//! The Omweso commands: the tables (`build`, `query`, `stats`, `verify` in
//! `tables`) and the rules engine (`moves`, `loops` in `moves`). This file
//! holds what both use: board, position and rules options, and their
//! JSON/text rendering.

mod moves;
mod tables;

pub use moves::{LoopsOmwesoArgs, MovesOmwesoArgs, loops, moves};
pub use tables::{
    BuildOmweso, ProbeOmweso, QueryOmweso, StatsOmweso, VerifyOmweso, build, probe, query, stats,
    verify,
};

use std::thread;
use std::time::{Duration, Instant};

use clap::Args;

use super::exit::CliError;
use indicatif::ProgressBar;
use serde_json::{Value, json};

use mancala_tb::games::omweso::{Endless, OmwesoError, OnOff, Position, Reverse, Rules};
use mancala_tb::games::relay::Choice;

/// Rules options of docs/rules.md, section Omweso.
#[derive(Debug, Args)]
pub struct RulesArgs {
    /// Reverse capture laps: all-laps or start-only
    #[arg(long, default_value = "all-laps")]
    pub reverse: Reverse,
    /// Never-ending moves: void (the game is void) or illegal
    #[arg(long, default_value = "void")]
    pub endless: Endless,
    /// Immediate okutema and akawumbi wins: on or off
    #[arg(long, default_value = "on")]
    pub okutema: OnOff,
}

impl RulesArgs {
    pub fn rules(&self) -> Rules {
        Rules {
            reverse: self.reverse,
            endless: self.endless,
            okutema: self.okutema.0,
        }
    }
}

/// Default for `--max-seeds` on a position: the standard seed total. The
/// Mayer test is exact, so its time grows with the longest relay cycle,
/// and those grow steeply with the seeds on the mover's side (periods of
/// millions of laps at 30 to 60 seeds); raising the cap is allowed up to
/// the engine's 255.
pub const DEFAULT_MAX_SEEDS: u32 = 64;

/// Builds the position from the command line, checking everything a user
/// can get wrong.
pub fn position(
    width: usize,
    pits: &[u32],
    seeds: Option<u32>,
    max_seeds: u32,
) -> anyhow::Result<Position> {
    let total: u64 = pits.iter().map(|&p| u64::from(p)).sum();
    if total > u64::from(max_seeds) {
        return Err(CliError::BadInput(format!(
            "the position holds {total} seeds, more than --max-seeds {max_seeds} allows"
        ))
        .into());
    }
    Ok(checked_position(width, pits, seeds)?)
}

fn checked_position(
    width: usize,
    pits: &[u32],
    seeds: Option<u32>,
) -> Result<Position, OmwesoError> {
    let pos = Position::new(width, pits)?;
    if let Some(expected) = seeds
        && pos.seeds() != expected
    {
        return Err(OmwesoError::SeedTotal {
            expected,
            got: pos.seeds(),
        });
    }
    if !pos.has_move() {
        return Err(OmwesoError::NoMove);
    }
    Ok(pos)
}

pub fn path_json(path: &[Choice]) -> Value {
    path.iter()
        .map(|c| json!({"lap": c.lap, "pit": c.pit, "direction": c.dir.name()}))
        .collect()
}

/// `1 lap`, `5 laps`.
pub fn laps_text(laps: u64) -> String {
    if laps == 1 {
        "1 lap".to_string()
    } else {
        format!("{laps} laps")
    }
}

/// `0 ccw` for a plain move, `1 cw, lap 3: 14 cw` with later choices.
pub fn path_text(path: &[Choice]) -> String {
    path.iter()
        .map(|c| {
            if c.lap == 0 {
                format!("{} {}", c.pit, c.dir.name())
            } else {
                format!("lap {}: {} {}", c.lap, c.pit, c.dir.name())
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Runs `work` on a helper thread and, if it takes more than a second, shows
/// a spinner: the Mayer test is exact, and a relay cycle of hundreds of
/// millions of laps takes seconds to close.
pub fn with_spinner<T: Send>(work: impl FnOnce() -> T + Send) -> anyhow::Result<T> {
    thread::scope(|scope| {
        let handle = scope.spawn(work);
        let started = Instant::now();
        let mut spinner: Option<ProgressBar> = None;
        while !handle.is_finished() {
            thread::sleep(Duration::from_millis(20));
            if spinner.is_none() && started.elapsed() > Duration::from_secs(1) {
                let bar = ProgressBar::new_spinner()
                    .with_message("following long relay cycles (exact Mayer test)");
                bar.enable_steady_tick(Duration::from_millis(120));
                spinner = Some(bar);
            }
        }
        if let Some(bar) = spinner {
            bar.finish_and_clear();
        }
        handle
            .join()
            .map_err(|_| anyhow::anyhow!("move generation failed"))
    })
}
