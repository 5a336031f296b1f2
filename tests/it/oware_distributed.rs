//! The distributed engine against the single-process one: threads standing
//! in for ranks ([`Loopback`]) build the layers, each holding its share,
//! and the tables are identical byte for byte to a single process's. The
//! same build over MPI is tested by `scripts/test-mpi.sh`.

use std::path::Path;
use std::thread;

use mancala_tb::distributed::Loopback;
use mancala_tb::games::oware::Ruleset;
use mancala_tb::tablebase::oware::{self as tb, BuildOptions};
use mancala_tb::tablebase::{Outcomes, Quiet};

const MAX_SEEDS: usize = 14;

fn table(dir: &Path, rules: Ruleset, seeds: usize) -> Vec<u8> {
    let path = tb::ruleset_dir(dir, rules).join(format!("scores.{seeds}.mtb"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Builds with `ranks` threads as ranks; returns rank 0's outcomes per layer.
fn build_distributed(
    dir: &Path,
    rules: Ruleset,
    ranks: usize,
    options: &BuildOptions,
) -> Vec<Option<Outcomes>> {
    let reports: Vec<_> = thread::scope(|scope| {
        let builds: Vec<_> = Loopback::group(ranks)
            .into_iter()
            .map(|transport| {
                scope.spawn(move || tb::build_on(dir, rules, options, &Quiet, &transport).unwrap())
            })
            .collect();
        builds.into_iter().map(|b| b.join().unwrap()).collect()
    });
    reports[0].iter().map(|r| r.outcomes).collect()
}

#[test]
fn shared_builds_equal_the_single_process_build() {
    for rules in Ruleset::ALL {
        let single = tempfile::tempdir().unwrap();
        let reports = tb::build(
            single.path(),
            rules,
            &BuildOptions::new(MAX_SEEDS, 1 << 30),
            &Quiet,
        )
        .unwrap();
        for ranks in [2, 3] {
            let shared = tempfile::tempdir().unwrap();
            let outcomes = build_distributed(
                shared.path(),
                rules,
                ranks,
                &BuildOptions::new(MAX_SEEDS, 1 << 30),
            );
            for seeds in 0..=MAX_SEEDS {
                assert!(
                    table(single.path(), rules, seeds) == table(shared.path(), rules, seeds),
                    "{rules} layer {seeds}, {ranks} ranks"
                );
                assert_eq!(
                    outcomes[seeds], reports[seeds].outcomes,
                    "{rules} layer {seeds}"
                );
            }
        }
    }
}

/// Outboxes of 64 notices per rank: ranks exchange before their propagation
/// ends, in many rounds.
#[test]
fn tiny_outboxes_give_the_same_tables() {
    let rules = Ruleset::Awari;
    let single = tempfile::tempdir().unwrap();
    tb::build(
        single.path(),
        rules,
        &BuildOptions::new(12, 1 << 30),
        &Quiet,
    )
    .unwrap();
    let shared = tempfile::tempdir().unwrap();
    let options = BuildOptions {
        outbox_bytes: 3 * 8 * 64,
        ..BuildOptions::new(12, tb::FIXED_BYTES + (4 << 20))
    };
    build_distributed(shared.path(), rules, 3, &options);
    for seeds in 0..=12 {
        assert!(
            table(single.path(), rules, seeds) == table(shared.path(), rules, seeds),
            "layer {seeds}"
        );
    }
}
