//! En Gehé tables against the independent naive solver, consistency of every
//! layer with its children, and the command line on good and bad input.

use crate::naive::engehe as naive_engehe;

use crate::common::cli;
use mancala_tb::games::engehe::{Position, Rules};
use mancala_tb::games::omweso::Endless;
use mancala_tb::tablebase::Quiet;
use mancala_tb::tablebase::engehe::{self as tb, Config, EngeheTablebase};

fn cross_check(width: usize, max: usize, endless: Endless) {
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        width,
        rules: Rules { endless },
    };
    let reports = tb::build(dir.path(), config, max, &Quiet).unwrap();
    let tables = EngeheTablebase::open(dir.path(), config).unwrap();
    tables.check_layers(max, &|_| {}).unwrap();
    let expected = naive_engehe::solve(width, max, endless == Endless::Illegal);
    for (n, layer) in expected.iter().enumerate() {
        assert_eq!(reports[n].positions, layer.len() as u64);
        let mut decided = 0;
        for (board, &value) in layer {
            let holes: Vec<u32> = board.iter().map(|&h| u32::from(h)).collect();
            let pos = Position::new(width, &holes).unwrap();
            assert_eq!(
                tables.value(&pos).unwrap(),
                value,
                "2×{width} {pos} ({endless})"
            );
            decided += usize::from(value != 0);
        }
        assert_eq!(
            reports[n].outcomes.unwrap().wins + reports[n].outcomes.unwrap().losses,
            decided as u64
        );
    }
}

#[test]
fn width_2_matches_the_naive_solver_up_to_12_counters() {
    cross_check(2, 12, Endless::Void);
    cross_check(2, 12, Endless::Illegal);
}

#[test]
fn width_3_matches_the_naive_solver_up_to_9_counters() {
    cross_check(3, 9, Endless::Void);
    cross_check(3, 9, Endless::Illegal);
}

#[test]
fn hand_checked_values() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        width: 2,
        rules: Rules::default(),
    };
    tb::build(dir.path(), config, 4, &Quiet).unwrap();
    let tables = EngeheTablebase::open(dir.path(), config).unwrap();
    let value = |h: &[u32]| tables.value(&Position::new(2, h).unwrap()).unwrap();
    // No counter in the mover's row: the opponent takes all.
    assert_eq!(value(&[0, 0, 1, 2]), -3);
    // 1 0 | 3 0: hole 0 lands in the empty hole 1, captures 3 + 1.
    assert_eq!(value(&[1, 0, 3, 0]), 4);
    // 0 1 | 0 0: the counter crosses to the opponent (1 0 | 0 0 for
    // them), who moves it to their hole 1; the mover then has an empty row.
    assert_eq!(value(&[0, 1, 0, 0]), -1);
}

#[test]
fn command_line_builds_queries_and_reports_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let (ok, out, err) = cli(&[
        "build",
        "engehe",
        "--width",
        "3",
        "--max-seeds",
        "6",
        "--dir",
        d,
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("total"), "{out}");
    let (ok, out, _) = cli(&[
        "query", "engehe", "--width", "3", "--dir", d, "--json", "1", "0", "0", "0", "3", "0",
    ]);
    assert!(ok);
    let json: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    // Hole 0 lands in the empty hole 1, facing hole 4: captures 3 + 1,
    // which empties the board.
    assert_eq!(json["moves"][0]["captured"], 4);
    assert_eq!(json["value"], 4);
    let (ok, out, _) = cli(&[
        "stats", "engehe", "--width", "3", "--dir", d, "--seeds", "6",
    ]);
    assert!(ok && out.contains("462 positions"), "{out}");

    // Wrong hole count, missing layer, damaged file: one-line errors.
    let (ok, _, err) = cli(&["query", "engehe", "--width", "3", "--dir", d, "1", "2"]);
    assert!(!ok && err.contains("has 6 holes"), "{err}");
    let (ok, _, err) = cli(&[
        "query", "engehe", "--width", "3", "--dir", d, "4", "4", "0", "0", "0", "0",
    ]);
    assert!(
        !ok && err.contains("missing") && err.contains("build engehe --width 3"),
        "{err}"
    );
    let (ok, _, err) = cli(&[
        "build",
        "engehe",
        "--width",
        "13",
        "--max-seeds",
        "2",
        "--dir",
        d,
    ]);
    assert!(!ok && err.contains("--width"), "{err}");
    let layer = dir.path().join("engehe-w3-void/counters.6.mtb");
    let mut bytes = std::fs::read(&layer).unwrap();
    // A byte past the header, in the compressed blocks.
    bytes[140] ^= 0x55;
    std::fs::write(&layer, &bytes).unwrap();
    let (ok, _, err) = cli(&[
        "stats", "engehe", "--width", "3", "--dir", d, "--seeds", "6",
    ]);
    assert!(
        !ok && err.contains("counters.6") && err.contains("damaged"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn the_consistency_check_finds_a_wrong_value() {
    use mancala_tb::tablebase::store::{self, Meta, Values};
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        width: 2,
        rules: Rules::default(),
    };
    tb::build(dir.path(), config, 5, &Quiet).unwrap();
    let tables = EngeheTablebase::open(dir.path(), config).unwrap();
    let mut values = tables.layer_values(5).unwrap();
    values[17] = values[17].wrapping_add(1);
    let meta = Meta {
        game: "engehe",
        ruleset: "endless=void".into(),
        options: String::new(),
        seeds: 5,
        board_width: 2,
        wide: false,
    };
    let path = config.folder(dir.path()).join("counters.5.mtb");
    store::write(&path, &meta, Values::I8(&values)).unwrap();
    let tables = EngeheTablebase::open(dir.path(), config).unwrap();
    tables.check_layers(4, &|_| {}).unwrap();
    let err = tables.check_layers(5, &|_| {}).unwrap_err().to_string();
    assert!(err.contains("counters.5.mtb: rank 17"), "{err}");
}
