//! The distributed engine against the single-process one: threads standing
//! in for ranks ([`Loopback`]) build the layers, each holding its share,
//! and the tables are identical byte for byte to a single process's. The
//! same build over MPI is tested by `scripts/test/test-mpi.sh`.

use std::path::Path;
use std::thread;

use mancala_tb::distributed::{Loopback, MESSAGE_BYTES};
use mancala_tb::games::oware::Ruleset;
use mancala_tb::tablebase::oware::{self as tb, BuildOptions};
use mancala_tb::tablebase::{Outcomes, Quiet};

const MAX_SEEDS: usize = 14;

fn file(dir: &Path, rules: Ruleset, name: &str) -> Vec<u8> {
    let path = tb::ruleset_dir(dir, rules).join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every value and distance table of `built` equals the same table of
/// `reference`, layers `0..=max_seeds`.
fn assert_same_tables(
    reference: &Path,
    built: &Path,
    rules: Ruleset,
    max_seeds: usize,
    what: &str,
) {
    for seeds in 0..=max_seeds {
        for name in [
            format!("scores.{seeds}.mtb"),
            format!("distance.{seeds}.mtb"),
        ] {
            assert!(
                file(reference, rules, &name) == file(built, rules, &name),
                "{rules} {name}, {what}"
            );
        }
    }
}

/// Builds with `ranks` threads as ranks, messages of at most
/// `message_bytes`; returns rank 0's outcomes per layer.
fn build_distributed(
    dir: &Path,
    rules: Ruleset,
    ranks: usize,
    message_bytes: usize,
    options: &BuildOptions,
) -> Vec<Option<Outcomes>> {
    let reports: Vec<_> = thread::scope(|scope| {
        let builds: Vec<_> = Loopback::group_with_message_bytes(ranks, message_bytes)
            .into_iter()
            .map(|transport| {
                scope.spawn(move || tb::build_on(dir, rules, options, &Quiet, &transport).unwrap())
            })
            .collect();
        builds.into_iter().map(|b| b.join().unwrap()).collect()
    });
    reports[0].iter().map(|r| r.outcomes).collect()
}

/// 1 to 4 ranks, both rulesets, half with the default message bound and
/// half with one of 4 KiB (`scripts/test/test-mpi.sh` runs the other halves over
/// MPI): the value and distance tables of every layer are those of one
/// process, byte for byte, and so are the outcomes.
#[test]
fn shared_builds_equal_the_single_process_build() {
    for rules in Ruleset::ALL {
        let single = tempfile::tempdir().unwrap();
        let options = BuildOptions::new(MAX_SEEDS, 1 << 30);
        let reports = tb::build(single.path(), rules, &options, &Quiet).unwrap();
        for (ranks, message_bytes) in [(1, MESSAGE_BYTES), (2, 4096), (3, MESSAGE_BYTES), (4, 4096)]
        {
            let shared = tempfile::tempdir().unwrap();
            let outcomes = build_distributed(shared.path(), rules, ranks, message_bytes, &options);
            let what = format!("{ranks} ranks, messages of {message_bytes} bytes");
            assert_same_tables(single.path(), shared.path(), rules, MAX_SEEDS, &what);
            for seeds in 0..=MAX_SEEDS {
                assert_eq!(
                    outcomes[seeds], reports[seeds].outcomes,
                    "{rules} layer {seeds}, {what}"
                );
            }
        }
    }
}

/// Outboxes of 64 notices per rank: ranks exchange before their propagation
/// ends (and within the levels that find the distances), in many rounds.
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
        ..BuildOptions::new(12, 1 << 30)
    };
    build_distributed(shared.path(), rules, 3, 256, &options);
    assert_same_tables(
        single.path(),
        shared.path(),
        rules,
        12,
        "outboxes of 64 notices",
    );
}

/// Ranks that see different folders (no shared file system) all fail,
/// naming the first rank that differs, and write no table.
#[test]
fn ranks_that_see_different_folders_are_refused() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let options = BuildOptions::new(4, 1 << 30);
    let errors: Vec<String> = thread::scope(|scope| {
        let builds: Vec<_> = (Loopback::group(2).into_iter().zip([a.path(), b.path()]))
            .map(|(transport, dir)| {
                let options = &options;
                scope.spawn(move || {
                    let result = tb::build_on(dir, Ruleset::Awari, options, &Quiet, &transport);
                    result.map(drop).expect_err("a refusal").to_string()
                })
            })
            .collect();
        builds.into_iter().map(|b| b.join().unwrap()).collect()
    });
    for error in errors {
        assert!(
            error.contains("rank 1 does not see the build folder") && error.contains("share"),
            "{error}"
        );
    }
    for dir in [a.path(), b.path()] {
        let folder = tb::ruleset_dir(dir, Ruleset::Awari);
        assert!(!folder.join("scores.0.mtb").exists());
    }
}

/// A rank that cannot write its part of a table (here a folder stands where
/// its part file goes; a full disk fails the same step): every rank fails,
/// rank 1 naming its file and the others rank 1, no table of the layer is
/// left, and the rerun keeps the layers below and gives the tables of one
/// process.
#[test]
fn a_rank_that_cannot_write_stops_every_rank_and_the_rerun_resumes() {
    let rules = Ruleset::Awari;
    let (single, shared) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let options = BuildOptions::new(8, 1 << 30);
    tb::build(single.path(), rules, &options, &Quiet).unwrap();
    let folder = tb::ruleset_dir(shared.path(), rules);
    std::fs::create_dir_all(&folder).unwrap();
    let blocked = folder.join("scores.6.mtb.tmp.rank1");
    std::fs::create_dir(&blocked).unwrap();
    let errors: Vec<String> = thread::scope(|scope| {
        let builds: Vec<_> = (Loopback::group(3).into_iter())
            .map(|transport| {
                let (dir, options) = (shared.path(), &options);
                scope.spawn(move || {
                    let result = tb::build_on(dir, rules, options, &Quiet, &transport);
                    result.map(drop).expect_err("a failure").to_string()
                })
            })
            .collect();
        builds.into_iter().map(|b| b.join().unwrap()).collect()
    });
    assert!(
        errors[1].contains(&blocked.display().to_string()),
        "{}",
        errors[1]
    );
    for error in [&errors[0], &errors[2]] {
        assert!(error.contains("rank 1 of the build failed"), "{error}");
    }
    let left: Vec<_> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.contains(".6.") && name != "scores.6.mtb.tmp.rank1")
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    let layer_5 = std::fs::metadata(folder.join("scores.5.mtb"))
        .unwrap()
        .modified()
        .unwrap();
    std::fs::remove_dir(&blocked).unwrap();
    build_distributed(shared.path(), rules, 3, MESSAGE_BYTES, &options);
    let kept = std::fs::metadata(folder.join("scores.5.mtb"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(kept, layer_5, "layer 5 was built again");
    assert_same_tables(
        single.path(),
        shared.path(),
        rules,
        8,
        "after a rank failed",
    );
}

/// Ranks find distances only while they build a layer: a distributed
/// build over layers whose values were built without distances builds them
/// again, and gives the tables of one process.
#[test]
fn a_distributed_build_finds_missing_distances_by_building_the_layer_again() {
    let rules = Ruleset::Abapa;
    let (single, shared) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let options = BuildOptions::new(8, 1 << 30);
    tb::build(single.path(), rules, &options, &Quiet).unwrap();
    let values_only = BuildOptions {
        distances: false,
        ..options.clone()
    };
    tb::build(shared.path(), rules, &values_only, &Quiet).unwrap();
    let folder = tb::ruleset_dir(shared.path(), rules);
    assert!(!folder.join("distance.8.mtb").exists());
    let outcomes = build_distributed(shared.path(), rules, 2, MESSAGE_BYTES, &options);
    assert!(
        outcomes.iter().all(Option::is_some),
        "a layer was not built again"
    );
    assert_same_tables(single.path(), shared.path(), rules, 8, "distances added");
}
