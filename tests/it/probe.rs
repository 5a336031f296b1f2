//! Batch probing: `probe_many` and `mancala-tb probe oware|engehe|omweso`
//! give the same values as single probes (`value`, `move_values`, `query`),
//! in input order, on every position of small tables (Omweso: a sample).

use std::path::Path;
use std::process::Output;

use mancala_tb::games::oware::{Board, Ruleset};
use mancala_tb::index::oware as index;
use mancala_tb::tablebase::oware::{Detail, MoveValue, OwareTablebase};

use crate::common;

const MAX: usize = 8;

fn mancala_tb(args: &[&str], input: &str) -> Output {
    common::run_with_input(args, input)
}

fn ok(args: &[&str], input: &str) -> String {
    let out = mancala_tb(args, input);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {err}");
    String::from_utf8(out.stdout).unwrap()
}

fn build(dir: &Path, rules: Ruleset) {
    let d = dir.to_str().unwrap();
    let max = MAX.to_string();
    let out = mancala_tb(
        &[
            "build",
            "oware",
            "--rules",
            rules.name(),
            "--max-seeds",
            &max,
            "--dir",
            d,
        ],
        "",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every indexed position of layers 0..=MAX, and each mirrored so that the
/// mover's side is empty (positions the tables do not index).
fn all_boards() -> Vec<Board> {
    let mut boards = Vec::new();
    for seeds in 0..=MAX {
        for rank in 0..index::layer_size(seeds) {
            let board = index::unrank(seeds, rank);
            boards.push(board);
            if board[..6].iter().all(|&s| s > 0) {
                let mut swapped = [0; 12];
                swapped[6..].copy_from_slice(&board[..6]);
                boards.push(swapped);
            }
        }
    }
    boards
}

fn line(board: &Board) -> String {
    board.map(|s| s.to_string()).join(" ")
}

#[test]
fn batches_agree_with_single_probes_on_every_position_of_small_layers() {
    let boards = all_boards();
    assert!(boards.iter().any(|b| index::rank(b).is_none()));
    for rules in Ruleset::ALL {
        let dir = tempfile::tempdir().unwrap();
        build(dir.path(), rules);
        let tables = OwareTablebase::open(dir.path(), rules).unwrap();
        let values = tables.probe_many(&boards, Detail::Values).unwrap();
        let with_moves = tables.probe_many(&boards, Detail::Moves).unwrap();
        let with_distances = tables
            .probe_many(&boards, Detail::MovesAndDistances)
            .unwrap();
        let batches = values.into_iter().zip(with_moves).zip(with_distances);
        for (board, ((v, m), d)) in boards.iter().zip(batches) {
            let expected = tables.value(board).unwrap();
            assert_eq!(v.unwrap().value, expected, "{rules} {board:?}");
            let (m, d) = (m.unwrap(), d.unwrap());
            assert_eq!(
                (m.value, d.value),
                (expected, expected),
                "{rules} {board:?}"
            );
            let moves = tables.move_values(board).unwrap();
            assert_eq!(d.moves, moves, "{rules} {board:?}");
            assert_eq!(
                d.distance,
                tables.distance(board).unwrap(),
                "{rules} {board:?}"
            );
            let without_distances: Vec<_> = moves
                .into_iter()
                .map(|mv| MoveValue {
                    distance: None,
                    ..mv
                })
                .collect();
            assert_eq!(m.moves, without_distances, "{rules} {board:?}");
            assert_eq!(m.distance, None, "{rules} {board:?}");
        }

        // The command line gives the same values, in order.
        let sample: Vec<&Board> = boards.iter().step_by(97).collect();
        let input: String = sample.iter().map(|b| line(b) + "\n").collect();
        let d = dir.path().to_str().unwrap();
        let out = mancala_tb(
            &["probe", "oware", "--rules", rules.name(), "--dir", d],
            &input,
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        let got: Vec<i8> = text.lines().map(|l| l.parse().unwrap()).collect();
        let want: Vec<i8> = sample.iter().map(|b| tables.value(b).unwrap()).collect();
        assert_eq!(got, want);
    }
}

/// Each layer's table opens when first probed: a tablebase opened before
/// its layers were built names the missing one with its build command, and
/// probes them once they are built.
#[test]
fn layers_open_when_first_probed() {
    let dir = tempfile::tempdir().unwrap();
    let tables = OwareTablebase::open(dir.path(), Ruleset::Awari).unwrap();
    assert_eq!(tables.built_layers().count(), 0);
    let board: Board = [2, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0];
    let missing = tables.value(&board).unwrap_err().to_string();
    assert!(
        missing.contains("scores.3.mtb") && missing.contains("--max-seeds 3"),
        "{missing}"
    );
    build(dir.path(), Ruleset::Awari);
    assert_eq!(
        tables.built_layers().collect::<Vec<_>>(),
        (0..=MAX).collect::<Vec<_>>()
    );
    let fresh = OwareTablebase::open(dir.path(), Ruleset::Awari).unwrap();
    assert_eq!(tables.value(&board).unwrap(), fresh.value(&board).unwrap());
    assert_eq!(
        tables.move_values(&board).unwrap(),
        fresh.move_values(&board).unwrap()
    );
}

#[test]
fn json_lines_hold_the_position_value_and_moves_as_query_does() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), Ruleset::Awari);
    let d = dir.path().to_str().unwrap();
    let positions = [
        "1 0 2 0 0 1 0 1 0 2 1 0",
        "0 0 0 0 0 0 1 1 0 0 0 0",
        "3,1,0,0,0,0,0,0,2,0,0,1",
    ];
    let input = positions.join("\n") + "\n";
    let out = mancala_tb(&["probe", "oware", "--json", "--dir", d], &input);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), positions.len());
    for (position, probed) in positions.iter().zip(text.lines()) {
        let pits: Vec<&str> = position.split([' ', ',']).collect();
        let mut args = vec!["query", "oware", "--json", "--dir", d];
        args.extend(&pits);
        let query = mancala_tb(&args, "");
        assert!(query.status.success());
        let query: serde_json::Value = serde_json::from_slice(&query.stdout).unwrap();
        let probed: serde_json::Value = serde_json::from_str(probed).unwrap();
        let pits: Vec<u64> = pits.iter().map(|p| p.parse().unwrap()).collect();
        assert_eq!(probed["pits"], serde_json::json!(pits));
        assert_eq!(probed["value"], query["value"], "{position}");
        assert_eq!(probed["moves"], query["moves"], "{position}");
    }
}

#[test]
fn bad_lines_are_named_by_number_or_answered_with_an_error_line() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), Ruleset::Awari);
    let d = dir.path().to_str().unwrap();
    // Line 2 is short, line 3 is not numbers, line 4 needs layer 12 (not
    // built), line 5 is blank.
    let input = "1 0 0 0 0 0 0 0 0 0 0 1\n1 2 3\n1 x 0 0 0 0 0 0 0 0 0 0\n1 1 1 1 1 1 1 1 1 1 1 1\n\n0 0 0 0 0 1 0 0 0 0 0 0\n";

    let out = mancala_tb(&["probe", "oware", "--dir", d], input);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: line 2: an Oware position has 12 pits"),
        "{err}"
    );
    assert!(!err.contains("panicked"));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).lines().count(),
        1,
        "line 1 answered"
    );

    let out = mancala_tb(
        &["probe", "oware", "--keep-going", "--json", "--dir", d],
        input,
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("4 of 6 lines could not be answered"), "{err}");
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 6);
    assert!(lines[0]["value"].is_i64());
    assert_eq!(lines[1]["line"], 2);
    assert!(
        lines[2]["error"]
            .as_str()
            .unwrap()
            .contains("'x' is not a count")
    );
    let missing = lines[3]["error"].as_str().unwrap();
    assert!(
        missing.contains("layer 12 of the awari tables is missing"),
        "{missing}"
    );
    assert_eq!(lines[4]["line"], 5);
    assert!(lines[5]["value"].is_i64());

    let out = mancala_tb(&["probe", "oware", "--keep-going", "--dir", d], input);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.lines().nth(1).unwrap().starts_with("error: line 2: "),
        "{text}"
    );

    let out = mancala_tb(&["probe", "oware", "--dir", d, "/no/such/file"], "");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("cannot open /no/such/file"),
        "{err}"
    );
}

/// Every way to put `seeds` into `pits` pits.
fn compositions(pits: usize, seeds: u32) -> Vec<Vec<u32>> {
    if pits == 1 {
        return vec![vec![seeds]];
    }
    (0..=seeds)
        .flat_map(|first| {
            compositions(pits - 1, seeds - first)
                .into_iter()
                .map(move |mut rest| {
                    rest.insert(0, first);
                    rest
                })
        })
        .collect()
}

/// Probes `positions` in one run and checks each answer against `query`.
fn agrees_with_query(game_args: &[&str], positions: &[Vec<u32>]) {
    let input: String = positions
        .iter()
        .map(|p| p.iter().map(u32::to_string).collect::<Vec<_>>().join(" ") + "\n")
        .collect();
    let mut probe = vec!["probe"];
    probe.extend(game_args);
    let plain = ok(&probe, &input);
    probe.push("--json");
    let json = ok(&probe, &input);
    assert_eq!(plain.lines().count(), positions.len());
    assert_eq!(json.lines().count(), positions.len());
    for (position, line) in positions.iter().zip(json.lines()) {
        let pits: Vec<String> = position.iter().map(u32::to_string).collect();
        let mut query = vec!["query"];
        query.extend(game_args);
        query.push("--json");
        query.extend(pits.iter().map(String::as_str));
        let queried: serde_json::Value = serde_json::from_str(&ok(&query, "")).unwrap();
        let probed: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(probed["value"], queried["value"], "{position:?}");
        assert_eq!(
            probed["moves"].as_array().unwrap().len(),
            queried["moves"].as_array().unwrap().len(),
            "{position:?}"
        );
    }
}

#[test]
fn engehe_probes_agree_with_query_on_every_position() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    ok(
        &[
            "build",
            "engehe",
            "--width",
            "2",
            "--max-seeds",
            "4",
            "--dir",
            d,
        ],
        "",
    );
    let positions: Vec<Vec<u32>> = (0..=4).flat_map(|n| compositions(4, n)).collect();
    agrees_with_query(&["engehe", "--width", "2", "--dir", d], &positions);

    // A layer that is not built is an error line naming the build command.
    let out = mancala_tb(
        &[
            "probe",
            "engehe",
            "--width",
            "2",
            "--dir",
            d,
            "--keep-going",
        ],
        "1 1 1 0\n3 3 0 0\n1 1\n",
    );
    assert!(!out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].parse::<i8>().is_ok(), "{text}");
    assert!(
        lines[1].contains("line 2") && lines[1].contains("build engehe"),
        "{text}"
    );
    assert!(lines[2].starts_with("error: line 3: "), "{text}");
}

#[test]
fn omweso_probes_agree_with_query_across_seed_counts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    for seeds in ["4", "5"] {
        ok(
            &[
                "build", "omweso", "--width", "2", "--seeds", seeds, "--dir", d,
            ],
            "",
        );
    }
    // Both seed counts, mixed in one input.
    let mut positions: Vec<Vec<u32>> = compositions(8, 4).into_iter().step_by(7).collect();
    positions.extend(compositions(8, 5).into_iter().step_by(23));
    positions.sort_by_key(|p| p.iter().rev().copied().collect::<Vec<_>>());
    agrees_with_query(&["omweso", "--width", "2", "--dir", d], &positions);

    let out = mancala_tb(
        &["probe", "omweso", "--width", "2", "--dir", d],
        "1 1 1 1 1 1 0 0\n",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("line 1") && err.contains("build omweso"),
        "{err}"
    );
}
