//! The compact engine: two bits a position in memory, for layers the
//! out-of-core engine's five do not fit. A position's code holds only what
//! the propagation reads at random:
//! - `OPEN`: unresolved, its best exit worth more than `−t` (closing every
//!   move would not lose it at this threshold);
//! - `CLOSED`: unresolved, its best exit worth at most `−t`;
//! - `WON`, `LOST`: resolved, at this threshold or an earlier one.
//!
//! No counter of open moves is kept (Romein & Bal's 2002 trick): when a
//! child of a `CLOSED` position is won, the position generates its moves
//! forward and looks its children up; it is lost when every non-capturing
//! one is won. No pending bit either: a position resolved goes on its
//! worker's stack at once, the stack's overflow to the frontier (memory,
//! then a scratch file), and a record of it (rank and verdict) to the
//! threshold's runs, sorted buffers that become the file of positions
//! resolved at `t` (merged at the end of the threshold while there are more
//! than a few; the final pass reads the few).
//!
//! The exits and the final pass are the out-of-core engine's scratch files
//! ([`super::scratch`]): the set-up writes each best exit to the file of its
//! size, threshold `t` reads the file of `|exit| = t`, the final pass
//! rebuilds the values part by part. Checkpoints at threshold boundaries
//! save the codes.
//!
//! Its room, each part importing only those after it: the pass of a
//! threshold and the set-up ([`pass`]); the frontier of the positions
//! whose parents are still to be told ([`frontier`]) and the threshold's
//! sorted runs and their merge ([`runs`]); the buffers' sizes ([`limits`]);
//! the codes ([`codes`]).

use super::engine::Engine;
use super::lower::LowerLayers;
use super::scratch::solve_streamed;
use super::shared::{Config, EngineError, OutOfMemory};
use crate::games::oware::Ruleset;
use crate::index::oware as index;
use crate::solve::Progress;
use codes::Codes;
use limits::{Limits, codes_bytes, streams_bytes};
use pass::Compact;

mod codes;
mod frontier;
mod limits;
mod pass;
mod runs;

pub use limits::{LEAST_BUFFER_BYTES, buffer_bytes, fixed_bytes};

/// Solves layer `seeds` in two bits a position, resuming from the
/// checkpoint in `config.scratch` if there is one. Hands the values to
/// `emit` part by part in rank order, as [`super::out_of_core::solve_layer`]
/// does. Removes its scratch files when done.
pub fn solve_layer<L, E>(
    rules: Ruleset,
    seeds: usize,
    lower: &L,
    config: &Config,
    mark: i8,
    progress: Progress,
    emit: impl FnMut(&[i8], &[i8]) -> Result<(), E>,
) -> Result<(), EngineError<E>>
where
    L: LowerLayers<Error = E>,
    E: std::error::Error + 'static,
{
    // What the thresholds' buffers may take: the engine's memory less the
    // exit streams.
    let buffers = config.buffer_bytes.saturating_sub(streams_bytes(seeds));
    let threads = rayon::current_num_threads();
    let limits = Limits::within(buffers, threads, seeds, codes_bytes(seeds));
    solve_layer_with((rules, seeds, limits), lower, config, mark, progress, emit)
}

fn solve_layer_with<L, E>(
    (rules, seeds, limits): (Ruleset, usize, Limits),
    lower: &L,
    config: &Config,
    mark: i8,
    progress: Progress,
    emit: impl FnMut(&[i8], &[i8]) -> Result<(), E>,
) -> Result<(), EngineError<E>>
where
    L: LowerLayers<Error = E>,
    E: std::error::Error + 'static,
{
    let size = index::layer_size(seeds) as usize;
    let layer = Compact {
        rules,
        seeds,
        limits,
        codes: Codes::new(size).map_err(|source| OutOfMemory {
            seeds,
            bytes: (size as f64 * Engine::Compact.bytes_per_position()) as u64,
            source,
        })?,
    };
    solve_streamed(layer, rules, seeds, lower, config, mark, progress, emit)
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::path::Path;

    use super::*;
    use crate::solve::oware::{CHUNK, Lookup, solve_layer as solve_in_memory};
    use crate::table::CAPTURE_DECIDES;

    /// Lower layers whose values are all in memory; the odd ones read
    /// only in order if asked (their lookups deferred to buckets).
    struct Values(Vec<Vec<i8>>, bool);

    impl LowerLayers for Values {
        type Error = io::Error;
        fn resolve(&self, lookups: &mut [Lookup]) -> Result<(), io::Error> {
            for l in lookups {
                assert!(!self.in_order(l.seeds as usize));
                l.value = self.0[l.seeds as usize][l.rank as usize];
            }
            Ok(())
        }
        fn in_order(&self, seeds: usize) -> bool {
            self.1 && seeds % 2 == 1
        }
        fn read_in_order(&self, seeds: usize, first: u64, values: &mut [i8]) -> io::Result<()> {
            values.copy_from_slice(&self.0[seeds][first as usize..][..values.len()]);
            Ok(())
        }
    }

    /// Buffers of a few entries: every stack overflows, the frontier goes to
    /// its file, runs are merged in several generations.
    /// One worker for every thread, two merges at once.
    const TINY: Limits = Limits {
        workers: 1,
        stack: 4,
        spill: 8,
        frontier_chunks: 2,
        records: 64,
        seed_batch: 16,
        merge_ways: 3,
        merges: 2,
        kept_runs: 2,
    };

    /// The default sizes for this pool.
    fn roomy() -> Limits {
        Limits::within(u64::MAX, rayon::current_num_threads(), 12, 0)
    }

    fn config(dir: &Path, seeds: usize, checkpoint_every: Option<std::time::Duration>) -> Config {
        Config {
            part: CHUNK,
            // Set-ups that defer lookups sweep a layer in several rounds.
            sweep: 2 * CHUNK,
            scratch: dir.join(format!("scratch.{seeds}")),
            checkpoint_every,
            buffer_bytes: u64::MAX,
            distances: false,
            phases: Default::default(),
        }
    }

    /// The values and marked values of a layer by the compact engine.
    fn compact(
        rules: Ruleset,
        seeds: usize,
        limits: Limits,
        lower: &Values,
        config: &Config,
    ) -> (Vec<i8>, Vec<i8>) {
        let (mut values, mut marked) = (Vec::new(), Vec::new());
        solve_layer_with(
            (rules, seeds, limits),
            lower,
            config,
            CAPTURE_DECIDES,
            &|_| {},
            |v, m| {
                values.extend_from_slice(v);
                marked.extend_from_slice(m);
                Ok::<_, io::Error>(())
            },
        )
        .unwrap();
        (values, marked)
    }

    /// Every position of layers 0..=12, both rulesets, with the default
    /// buffers and with tiny ones (and lookups deferred): the values and
    /// the marks of the in-memory engine.
    #[test]
    fn compact_layers_equal_in_memory_layers() {
        let dir = tempfile::tempdir().unwrap();
        for rules in Ruleset::ALL {
            let mut lower = Values(Vec::new(), false);
            for seeds in 0..=12 {
                let config = config(dir.path(), seeds, None);
                let solved = solve_in_memory(rules, seeds, &lower, &config, &|_| {}).unwrap();
                let mut expected = vec![0; solved.values().len()];
                solved.mark(0..expected.len(), CAPTURE_DECIDES, &mut expected);
                // Tiny buffers with the odd layers read in order.
                for (limits, in_order) in [(roomy(), false), (TINY, true)] {
                    lower.1 = in_order;
                    let (values, marked) = compact(rules, seeds, limits, &lower, &config);
                    lower.1 = false;
                    assert!(
                        values == solved.values(),
                        "{rules} layer {seeds} {limits:?}"
                    );
                    assert!(marked == expected, "{rules} layer {seeds} marks {limits:?}");
                    assert!(!config.scratch.exists(), "scratch files left");
                }
                lower.0.push(solved.values().to_vec());
            }
        }
    }

    /// A layer stopped after its last checkpoint (here: its table could not
    /// be written) resumes from it with the same values.
    #[test]
    fn a_compact_layer_resumes_from_its_checkpoint() {
        let dir = tempfile::tempdir().unwrap();
        let rules = Ruleset::Awari;
        let mut lower = Values(Vec::new(), false);
        for seeds in 0..12 {
            let config = config(dir.path(), seeds, None);
            let solved = solve_in_memory(rules, seeds, &lower, &config, &|_| {}).unwrap();
            lower.0.push(solved.values().to_vec());
        }
        let seeds = 12;
        let config = config(dir.path(), seeds, Some(std::time::Duration::ZERO));
        let failed = solve_layer(
            rules,
            seeds,
            &lower,
            &config,
            CAPTURE_DECIDES,
            &|_| {},
            |_, _| Err(io::Error::other("disk full")),
        );
        assert!(matches!(failed, Err(EngineError::Lower(_))));
        let checkpoint = super::super::checkpoint_path(&config.scratch, Engine::Compact);
        assert!(checkpoint.exists());
        let (values, _) = compact(rules, seeds, roomy(), &lower, &config);
        let fresh = solve_in_memory(rules, seeds, &lower, &config, &|_| {}).unwrap();
        assert!(values == fresh.values());
    }
}
