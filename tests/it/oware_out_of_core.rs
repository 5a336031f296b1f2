//! The out-of-core and compact engines against the in-memory one: tables
//! built under budgets so small that layers are set up in many parts, lower
//! layers are streamed (their lookups deferred to buckets, tables found when
//! a build starts decoded with their marks' lookups deferred too) or read
//! from cache files or their compressed tables, and states are checkpointed
//! at every threshold, are identical byte for byte to tables built with
//! memory to spare; a build killed in the middle of a layer, in any engine,
//! resumes from its checkpoint to the same tables.
use std::path::Path;
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

use mancala_tb::games::oware::Ruleset;
use mancala_tb::index::oware as index;
use mancala_tb::tablebase::oware::{self as tb, Engine, LayerPlan, OwareObserver};
use mancala_tb::tablebase::{BuildObserver, Quiet};

use crate::common;

const MAX_SEEDS: usize = 16;
/// Builds layers 15 and 16 out of core in parts of 32 Ki positions, the
/// layers below in memory in parts as small, with most lower layers read
/// from their tables.
const TINY: u64 = tb::FIXED_BYTES + (12 << 20);

fn table(dir: &Path, rules: Ruleset, seeds: usize) -> Vec<u8> {
    let path = tb::ruleset_dir(dir, rules).join(format!("scores.{seeds}.mtb"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_tiny_budget_forces_every_out_of_core_path() {
    let plan = |seeds| tb::plan_layer(seeds, TINY).unwrap();
    assert_eq!(plan(14).engine, Engine::InMemory);
    for seeds in [15, 16] {
        let LayerPlan { engine, part, .. } = plan(seeds);
        assert_eq!(engine, Engine::OutOfCore);
        assert!(part <= 1 << 17, "layer {seeds}: parts of {part}");
    }
    // Below the out-of-core minimum the compact engine takes over; below
    // its own, the error names it.
    let out_of_core = minimum(Engine::OutOfCore, 26);
    assert_eq!(plan_engine_of(26, out_of_core - 1), Engine::Compact);
    assert_eq!(plan_engine_of(26, out_of_core), Engine::OutOfCore);
    let err = tb::plan_layer(30, TINY).unwrap_err().to_string();
    let compact = minimum(Engine::Compact, 30);
    assert!(compact < (1 << 30), "{compact}");
    assert!(
        err.contains(&format!(
            "layer 30 needs at least {}",
            mancala_tb::memory::human_bytes(compact)
        )),
        "{err}"
    );
}

fn plan_engine_of(seeds: usize, budget: u64) -> Engine {
    tb::plan_layer(seeds, budget).unwrap().engine
}

/// The least budget of `engine` for layer `seeds`.
fn minimum(engine: Engine, seeds: usize) -> u64 {
    match tb::plan_engine(engine, seeds, index::layer_size(seeds), 0) {
        Err(tb::TablebaseError::TooLittleMemory { minimum, .. }) => minimum,
        other => panic!("{other:?}"),
    }
}

/// Tables of the compact engine, set up in parts of 32 Ki positions with
/// every lower layer it does not keep streamed and checkpointed at every
/// threshold, are those of the in-memory engine; built in two runs, so that
/// the second decodes the first's tables into raw copies, marks' lookups
/// deferred.
#[test]
fn compact_tables_equal_in_memory_tables() {
    let tight = (0..=MAX_SEEDS)
        .map(|seeds| minimum(Engine::Compact, seeds))
        .max()
        .unwrap();
    for rules in Ruleset::ALL {
        let roomy = tempfile::tempdir().unwrap();
        tb::build(
            roomy.path(),
            rules,
            &tb::BuildOptions::new(MAX_SEEDS, 4 << 30),
            &Quiet,
        )
        .unwrap();
        let compact = tempfile::tempdir().unwrap();
        let options = tb::BuildOptions {
            checkpoint_every: Duration::ZERO,
            engine: Some(Engine::Compact),
            ..tb::BuildOptions::new(MAX_SEEDS, tight)
        };
        let first = tb::BuildOptions {
            max_seeds: MAX_SEEDS - 2,
            ..options.clone()
        };
        tb::build(compact.path(), rules, &first, &Quiet).unwrap();
        let reports = tb::build(compact.path(), rules, &options, &Quiet).unwrap();
        assert_eq!(reports.len(), MAX_SEEDS + 1);
        let folder = tb::ruleset_dir(compact.path(), rules);
        for seeds in 0..=MAX_SEEDS {
            assert!(
                table(roomy.path(), rules, seeds) == table(compact.path(), rules, seeds),
                "{rules} layer {seeds} differs"
            );
            assert!(!tb::scratch_dir(&folder, seeds).exists());
        }
        tb::verify(
            compact.path(),
            rules,
            &tb::VerifyOptions::new(MAX_SEEDS),
            &|_| {},
        )
        .unwrap();
    }
}

#[test]
fn out_of_core_tables_equal_in_memory_tables() {
    for rules in Ruleset::ALL {
        let roomy = tempfile::tempdir().unwrap();
        tb::build(
            roomy.path(),
            rules,
            &tb::BuildOptions::new(MAX_SEEDS, 4 << 30),
            &Quiet,
        )
        .unwrap();
        // No cache: every lower layer not in memory is streamed (read from
        // its table where a layer is built in memory). A cache that holds
        // two layers: the others move between memory, cache files (written
        // from memory or decoded from their tables), raw copies streamed
        // and tables as the build goes up.
        let two = index::layer_size(MAX_SEEDS - 2) + index::layer_size(MAX_SEEDS - 3);
        for lower_cache in [0, two] {
            let tiny = tempfile::tempdir().unwrap();
            let options = tb::BuildOptions {
                checkpoint_every: Duration::ZERO,
                lower_cache,
                ..tb::BuildOptions::new(MAX_SEEDS, TINY)
            };
            tb::build(tiny.path(), rules, &options, &Quiet).unwrap();
            let folder = tb::ruleset_dir(tiny.path(), rules);
            for seeds in 0..=MAX_SEEDS {
                assert!(
                    table(roomy.path(), rules, seeds) == table(tiny.path(), rules, seeds),
                    "{rules} layer {seeds} differs (cache {lower_cache})"
                );
                assert!(!tb::scratch_dir(&folder, seeds).exists());
            }
            assert!(!folder.join("lower-cache").exists());
            tb::verify(
                tiny.path(),
                rules,
                &tb::VerifyOptions::new(MAX_SEEDS),
                &|_| {},
            )
            .unwrap();
        }
    }
}

/// A build that goes on from tables built before decodes them into its
/// cache (every layer below read directly, or some still from their tables
/// when the cache is small) and ends with the same tables.
#[test]
fn a_build_on_finished_tables_decodes_them_into_its_cache() {
    let rules = Ruleset::Awari;
    let roomy = tempfile::tempdir().unwrap();
    tb::build(
        roomy.path(),
        rules,
        &tb::BuildOptions::new(MAX_SEEDS, 4 << 30),
        &Quiet,
    )
    .unwrap();
    let small = index::layer_size(MAX_SEEDS - 2);
    for lower_cache in [small, 1 << 30] {
        let dir = tempfile::tempdir().unwrap();
        tb::build(
            dir.path(),
            rules,
            &tb::BuildOptions::new(13, 4 << 30),
            &Quiet,
        )
        .unwrap();
        let options = tb::BuildOptions {
            lower_cache,
            ..tb::BuildOptions::new(MAX_SEEDS, TINY)
        };
        tb::build(dir.path(), rules, &options, &Quiet).unwrap();
        for seeds in 14..=MAX_SEEDS {
            assert!(
                table(roomy.path(), rules, seeds) == table(dir.path(), rules, seeds),
                "layer {seeds} differs (cache {lower_cache})"
            );
        }
    }
}

/// Layer 16 built at exactly the least budget its engine accepts (what
/// `plan oware` prints as `least`, and what a smaller budget's error
/// names), by the out-of-core and the compact engines on a pool of 8
/// threads: the buffers that exist per thread shrink to fit (the compact
/// engine's 8 threads share fewer workers, merging one group of runs at a
/// time), and the tables are those of the in-memory build.
#[test]
fn a_layer_builds_at_its_least_budget_on_eight_threads() {
    let rules = Ruleset::Awari;
    let seeds = MAX_SEEDS;
    let roomy = tempfile::tempdir().unwrap();
    tb::build(
        roomy.path(),
        rules,
        &tb::BuildOptions::new(seeds, 4 << 30),
        &Quiet,
    )
    .unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(8)
        .build()
        .unwrap();
    for engine in [Engine::OutOfCore, Engine::Compact] {
        let least = tb::least_bytes(engine, seeds, index::layer_size(seeds));
        let dir = tempfile::tempdir().unwrap();
        let folder = tb::ruleset_dir(dir.path(), rules);
        std::fs::create_dir_all(&folder).unwrap();
        for lower in 0..seeds {
            let name = format!("scores.{lower}.mtb");
            std::fs::copy(
                tb::ruleset_dir(roomy.path(), rules).join(&name),
                folder.join(&name),
            )
            .unwrap();
        }
        let options = |memory| tb::BuildOptions {
            engine: Some(engine),
            ..tb::BuildOptions::new(seeds, memory)
        };
        pool.install(|| {
            assert_eq!(minimum(engine, seeds), least, "{engine}");
            let err = tb::build(dir.path(), rules, &options(least - 1), &Quiet).unwrap_err();
            assert!(
                matches!(err, tb::TablebaseError::TooLittleMemory { minimum, .. } if minimum == least),
                "{err}"
            );
            let plan = tb::plan_engine(engine, seeds, index::layer_size(seeds), least).unwrap();
            assert_eq!((plan.engine_bytes, plan.part), (least, 1 << 15));
            tb::build(dir.path(), rules, &options(least), &Quiet).unwrap();
        });
        assert!(
            table(roomy.path(), rules, seeds) == table(dir.path(), rules, seeds),
            "{engine}: layer {seeds} differs"
        );
        assert!(!tb::scratch_dir(&folder, seeds).exists());
    }
}

/// A build on finished tables with memory to spare decodes them into memory
/// (the memory planned for each layer counts every layer below that a
/// layer of the build reads), as a build that made them keeps them, and
/// ends with the same tables.
#[test]
fn a_build_on_finished_tables_decodes_them_into_memory() {
    struct Planned(Mutex<Vec<(usize, u64, u64)>>);
    impl BuildObserver for Planned {}
    impl OwareObserver for Planned {
        fn layer_planned(&self, seeds: usize, plan: &LayerPlan, memory_bytes: u64) {
            let planned = (seeds, plan.engine_bytes, memory_bytes);
            self.0.lock().unwrap().push(planned);
        }
    }
    let rules = Ruleset::Abapa;
    let roomy = tempfile::tempdir().unwrap();
    let options = |seeds| tb::BuildOptions {
        lower_cache: 0,
        ..tb::BuildOptions::new(seeds, 4 << 30)
    };
    tb::build(roomy.path(), rules, &options(MAX_SEEDS), &Quiet).unwrap();
    let dir = tempfile::tempdir().unwrap();
    tb::build(dir.path(), rules, &options(12), &Quiet).unwrap();
    let planned = Planned(Mutex::new(Vec::new()));
    tb::build(dir.path(), rules, &options(MAX_SEEDS), &planned).unwrap();
    let planned = planned.0.into_inner().unwrap();
    assert_eq!(planned.len(), MAX_SEEDS - 12);
    for (seeds, engine_bytes, memory_bytes) in planned {
        // Layer 15 is read by no layer of the build (captures take two).
        let below: u64 = (0..seeds.min(MAX_SEEDS - 1)).map(index::layer_size).sum();
        assert_eq!(memory_bytes, engine_bytes + below, "layer {seeds}");
    }
    for seeds in 13..=MAX_SEEDS {
        assert!(
            table(roomy.path(), rules, seeds) == table(dir.path(), rules, seeds),
            "layer {seeds} differs"
        );
    }
}

/// Kills a build as soon as the layer being built out of core has saved a
/// checkpoint, then reruns it: it resumes there and ends with the tables of
/// an uninterrupted build.
#[test]
fn a_build_killed_mid_layer_resumes_from_its_checkpoint() {
    killed_mid_layer_resumes(TINY, None, "checkpoint");
}

/// The same for a layer built by the compact engine (its codes saved).
#[test]
fn a_compact_build_killed_mid_layer_resumes_from_its_checkpoint() {
    killed_mid_layer_resumes(4 << 30, Some("compact"), "checkpoint.compact");
}

/// The same for a layer built in memory (its values and states saved).
#[test]
fn an_in_memory_build_killed_mid_layer_resumes_from_its_checkpoint() {
    killed_mid_layer_resumes(4 << 30, None, "checkpoint.in-memory");
}

/// Builds abapa to 15 seeds under `memory` (with `engine`, if given), kills
/// the build once layer 15 has saved the checkpoint file `name`, reruns it,
/// and compares the tables with a fresh build.
fn killed_mid_layer_resumes(memory: u64, engine: Option<&str>, name: &str) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let memory = memory.to_string();
    let mut args = vec![
        "build",
        "oware",
        "--rules",
        "abapa",
        "--max-seeds",
        "15",
        "--dir",
        d,
        "--memory",
        &memory,
        "--checkpoint-every",
        "0",
    ];
    args.extend(engine.iter().flat_map(|e| ["--engine", e]));
    let exe = env!("CARGO_BIN_EXE_mancala-tb");
    let mut child = Command::new(exe).args(&args).spawn().unwrap();
    let folder = tb::ruleset_dir(dir.path(), Ruleset::Abapa);
    let checkpoint = tb::scratch_dir(&folder, 15).join(name);
    while !checkpoint.exists() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the build ended before its checkpoint"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!folder.join("scores.15.mtb").exists());

    let out = Command::new(exe).args(&args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("layer 15: resuming from its checkpoint"),
        "{stderr}"
    );
    assert!(!tb::scratch_dir(&folder, 15).exists());

    let fresh = tempfile::tempdir().unwrap();
    tb::build(
        fresh.path(),
        Ruleset::Abapa,
        &tb::BuildOptions::new(15, 4 << 30),
        &Quiet,
    )
    .unwrap();
    for seeds in 0..=15 {
        assert!(
            table(dir.path(), Ruleset::Abapa, seeds) == table(fresh.path(), Ruleset::Abapa, seeds),
            "layer {seeds} differs"
        );
    }
}

/// Runs the binary, expecting it to fail: its standard error.
fn fails(args: &[&str]) -> String {
    let (ok, stdout, stderr) = common::cli(args);
    assert!(!ok, "succeeded: {stdout}");
    stderr
}

#[test]
fn bad_budgets_get_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    for size in ["12Q", "-1G", "0", "G", "1e30T"] {
        let memory = format!("--memory={size}");
        let err = fails(&["build", "oware", "--dir", d, &memory]);
        assert!(err.contains(&format!("'{size}' is not a size")), "{err}");
    }
    for size in ["12Q", "-1G", "1e30T"] {
        let cache = format!("--lower-cache={size}");
        let err = fails(&["build", "oware", "--dir", d, &cache]);
        assert!(err.contains(&format!("'{size}' is not a size")), "{err}");
    }
    let err = fails(&[
        "build",
        "oware",
        "--dir",
        d,
        "--max-seeds",
        "20",
        "--memory",
        "60M",
    ]);
    assert!(
        err.contains("layer 20 needs at least") && err.contains("raise --memory"),
        "{err}"
    );
    // Refused before anything was built.
    assert!(
        !tb::ruleset_dir(dir.path(), Ruleset::Awari)
            .join("scores.0.mtb")
            .exists()
    );
}

#[test]
fn a_second_build_on_one_folder_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let folder = tb::ruleset_dir(dir.path(), Ruleset::Awari);
    std::fs::create_dir_all(&folder).unwrap();
    let lock = std::fs::File::create(folder.join(".lock")).unwrap();
    lock.lock().unwrap();
    let d = dir.path().to_str().unwrap();
    let args = ["build", "oware", "--dir", d, "--max-seeds", "4"];
    let err = fails(&args);
    assert!(
        err.contains("another build or verify is using this folder"),
        "{err}"
    );
    drop(lock);
    let (ok, _, stderr) = common::cli(&args);
    assert!(ok, "{stderr}");
}

#[test]
fn a_foreign_or_damaged_checkpoint_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let memory = TINY.to_string();
    let args = [
        "build",
        "oware",
        "--dir",
        d,
        "--max-seeds",
        "15",
        "--memory",
        &memory,
    ];
    let scratch = tb::scratch_dir(&tb::ruleset_dir(dir.path(), Ruleset::Awari), 15);
    std::fs::create_dir_all(&scratch).unwrap();
    std::fs::write(
        scratch.join("checkpoint"),
        b"MTBCKPT1oware abapa layer 15 of 7558200\n",
    )
    .unwrap();
    let err = fails(&args);
    assert!(
        err.contains("build.15/checkpoint") && err.contains("not a checkpoint of this layer"),
        "{err}"
    );
    std::fs::remove_file(scratch.join("checkpoint")).unwrap();
    let (ok, _, stderr) = common::cli(&args);
    assert!(ok, "{stderr}");
}
