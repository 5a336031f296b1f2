//! `verify oware` within a memory budget: under one so tight that the top
//! layers read their lower layers only in order (the captures into them
//! deferred to buckets), good tables pass and a corrupted value is reported
//! at the position the check in memory reports; a budget below what a
//! layer needs is refused, naming the least; the scratch folder goes where
//! it is asked, is removed at the end, and what a killed verify left there
//! does not get in the way.
use std::path::Path;
use std::sync::Mutex;

use mancala_tb::games::oware::Ruleset;
use mancala_tb::index::oware as index;
use mancala_tb::tablebase::Quiet;
use mancala_tb::tablebase::oware::{self as tb, LayerChecked, TablebaseError, VerifyOptions};

use crate::common;

const MAX_SEEDS: usize = 14;

fn build(dir: &Path, rules: Ruleset, max_seeds: usize) {
    let options = tb::BuildOptions::new(max_seeds, 1 << 30);
    tb::build(dir, rules, &options, &Quiet).unwrap();
}

/// The layers checked, or the error's message.
fn verify(
    dir: &Path,
    rules: Ruleset,
    options: &VerifyOptions,
) -> Result<Vec<LayerChecked>, String> {
    let checked = Mutex::new(Vec::new());
    tb::verify(dir, rules, options, &|layer| {
        checked.lock().unwrap().push(*layer)
    })
    .map_err(|e| e.to_string())?;
    Ok(checked.into_inner().unwrap())
}

/// A budget `extra` bytes above the least that checking layers
/// `0..=max_seeds` takes (as the error of a smaller one names it), with no
/// lower cache: layer `max_seeds` keeps `extra` bytes of its lower layers
/// in memory, and streams the others.
fn tight(dir: &Path, rules: Ruleset, max_seeds: usize, extra: u64) -> VerifyOptions {
    let small = VerifyOptions {
        memory: 1 << 20,
        ..VerifyOptions::new(max_seeds)
    };
    let least = match tb::verify(dir, rules, &small, &|_| {}) {
        Err(TablebaseError::TooLittleMemoryToCheck { seeds, minimum, .. }) => {
            assert_eq!(seeds, max_seeds);
            minimum
        }
        other => panic!("{other:?}"),
    };
    VerifyOptions {
        memory: least + extra,
        lower_cache: 0,
        ..VerifyOptions::new(max_seeds)
    }
}

#[test]
fn a_budget_that_streams_lower_layers_finds_what_memory_finds() {
    for rules in Ruleset::ALL {
        let dir = tempfile::tempdir().unwrap();
        build(dir.path(), rules, MAX_SEEDS);
        let in_memory = VerifyOptions::new(MAX_SEEDS);
        let checked = verify(dir.path(), rules, &in_memory).unwrap();
        assert!(checked.iter().all(|l| l.streamed == 0), "{checked:?}");
        // Every lower layer that layer 14 reads (0..=12) streamed; layers
        // 12 and 13 keep some in memory.
        let tight = tight(dir.path(), rules, MAX_SEEDS, 0);
        let checked = verify(dir.path(), rules, &tight).unwrap();
        let seeds: Vec<usize> = checked.iter().map(|l| l.seeds).collect();
        assert_eq!(seeds, (0..=MAX_SEEDS).collect::<Vec<_>>());
        assert_eq!(
            checked[MAX_SEEDS].streamed,
            MAX_SEEDS - 1,
            "{rules}: {checked:?}"
        );
        assert!((1..MAX_SEEDS - 2).contains(&checked[MAX_SEEDS - 1].streamed));
        let folder = tb::ruleset_dir(dir.path(), rules);
        assert!(!folder.join("verify-scratch").exists());

        // Layer 14 with one value changed, far into the layer (in one of
        // its last parts), the layers below as built.
        let corrupt = tempfile::tempdir().unwrap();
        let copy = tb::ruleset_dir(corrupt.path(), rules);
        std::fs::create_dir_all(&copy).unwrap();
        for seeds in 0..MAX_SEEDS {
            let name = format!("scores.{seeds}.mtb");
            std::fs::copy(folder.join(&name), copy.join(&name)).unwrap();
        }
        let raw = corrupt.path().join("scores.14");
        tb::export(dir.path(), rules, MAX_SEEDS, &raw).unwrap();
        let mut values = std::fs::read(&raw).unwrap();
        let rank = index::layer_size(MAX_SEEDS) as usize * 9 / 10;
        values[rank] = (values[rank] as i8 + 2) as u8;
        std::fs::write(&raw, &values).unwrap();
        tb::import(corrupt.path(), rules, MAX_SEEDS, &raw).unwrap();

        let expected = verify(corrupt.path(), rules, &in_memory).unwrap_err();
        assert!(expected.contains("scores.14.mtb: rank"), "{expected}");
        assert_eq!(verify(corrupt.path(), rules, &tight).unwrap_err(), expected);
        assert!(!copy.join("verify-scratch").exists());
    }
}

/// The command line: a budget too small is bad input, not a panic; a tight
/// one says that it streamed; `--scratch` keeps the tables folder
/// untouched; a killed verify's leftovers are removed, and a verify that
/// holds the scratch folder keeps a second one out of it (but not one that
/// needs no scratch).
#[test]
fn verify_memory_and_scratch_on_the_command_line() {
    let max_seeds = 10;
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), Ruleset::Abapa, max_seeds);
    let d = dir.path().to_str().unwrap();
    let folder = tb::ruleset_dir(dir.path(), Ruleset::Abapa);
    let verify = |extra: &[&str]| {
        let mut args = vec!["verify", "oware", "--rules", "abapa", "--dir", d];
        args.extend_from_slice(extra);
        common::run(&args)
    };

    let out = verify(&["--memory", "1M"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("checking layer 10 needs at least") && err.contains("raise --memory"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");

    let memory = tight(dir.path(), Ruleset::Abapa, max_seeds, 0)
        .memory
        .to_string();
    let tight = ["--memory", &memory, "--lower-cache", "0"];
    let scratch = tempfile::tempdir().unwrap();
    let s = scratch.path().to_str().unwrap();
    let out = verify(&[&tight[..], &["--scratch", s]].concat());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("streamed lower layers"), "{stdout}");
    assert!(!folder.join("verify-scratch").exists());
    assert_eq!(std::fs::read_dir(scratch.path()).unwrap().count(), 0);

    // What a killed verify left: a raw copy cut short, deferred lookups.
    let left = folder.join("verify-scratch/files");
    std::fs::create_dir_all(left.join("deferred")).unwrap();
    std::fs::write(left.join("scores.8"), [1, 2, 3]).unwrap();
    std::fs::write(left.join("deferred/kept"), [4]).unwrap();
    let out = verify(&tight);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!folder.join("verify-scratch").exists());

    let held = folder.join("verify-scratch");
    std::fs::create_dir_all(&held).unwrap();
    let lock = std::fs::File::create(held.join(".lock")).unwrap();
    lock.lock().unwrap();
    let out = verify(&tight);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("another build or verify is using this folder"),
        "{err}"
    );
    let out = verify(&[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
