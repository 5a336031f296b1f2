//! En Gehé tables against the independent naive solver, consistency of every
//! layer with its children, and the command line on good and bad input.

use crate::naive::engehe as naive_engehe;

use crate::common::cli;
use mancala_tb::games::engehe::{Position, Rules};
use mancala_tb::games::omweso::Endless;
use mancala_tb::tablebase::engehe::{self as tb, Config, EngeheTablebase};
use mancala_tb::tablebase::{DistanceTables, Quiet};

fn cross_check(width: usize, max: usize, endless: Endless) {
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        width,
        rules: Rules { endless },
    };
    let built = tb::build(dir.path(), config, max, DistanceTables::Build, &Quiet).unwrap();
    let tables = EngeheTablebase::open(dir.path(), config).unwrap();
    let checked = tables.check_layers(max, &|_| {}).unwrap();
    assert_eq!(checked.distances, (0..=max).collect::<Vec<_>>());
    assert!(checked.missing_distances.is_empty());
    let illegal = endless == Endless::Illegal;
    let expected = naive_engehe::solve(width, max, illegal);
    let distances = naive_engehe::distances(width, &expected, illegal);
    let mut longest = 0;
    for (n, layer) in expected.iter().enumerate() {
        assert_eq!(built.layers[n].positions, layer.len() as u64);
        let mut decided = 0;
        for (board, &value) in layer {
            let holes: Vec<u32> = board.iter().map(|&h| u32::from(h)).collect();
            let pos = Position::new(width, &holes).unwrap();
            assert_eq!(
                tables.value(&pos).unwrap(),
                value,
                "2×{width} {pos} ({endless})"
            );
            let distance = distances[n][board];
            assert_eq!(
                tables.distance(&pos).unwrap(),
                Some(distance),
                "2×{width} {pos} ({endless}): value {value}"
            );
            decided += usize::from(value != 0);
        }
        assert_eq!(
            built.layers[n].outcomes.unwrap().wins + built.layers[n].outcomes.unwrap().losses,
            decided as u64
        );
        let layer_longest = distances[n].values().copied().max().unwrap();
        assert_eq!(built.distances[n].seeds, n);
        assert_eq!(built.distances[n].longest, layer_longest);
        longest = longest.max(layer_longest);
    }
    assert!(longest >= 5, "lines of several moves: {longest}");
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
    tb::build(dir.path(), config, 4, DistanceTables::Build, &Quiet).unwrap();
    let tables = EngeheTablebase::open(dir.path(), config).unwrap();
    let value = |h: &[u32]| tables.value(&Position::new(2, h).unwrap()).unwrap();
    // No counter in the mover's row: the opponent takes all.
    assert_eq!(value(&[0, 0, 1, 2]), -3);
    // 1 0 | 3 0: hole 0 lands in the empty hole 1, captures 3 + 1.
    assert_eq!(value(&[1, 0, 3, 0]), 4);
    // 0 1 | 0 0: the counter crosses to the opponent (1 0 | 0 0 for
    // them), who moves it to their hole 1; the mover then has an empty row.
    assert_eq!(value(&[0, 1, 0, 0]), -1);
    // Distances: the game is over (0), a capture at once (1), and the line
    // above: two moves, then the mover cannot move.
    let distance = |h: &[u32]| tables.distance(&Position::new(2, h).unwrap()).unwrap();
    assert_eq!(distance(&[0, 0, 1, 2]), Some(0));
    assert_eq!(distance(&[1, 0, 3, 0]), Some(1));
    assert_eq!(distance(&[0, 1, 0, 0]), Some(2));
    assert_eq!(distance(&[1, 0, 0, 0]), Some(1));
    let moves = tables
        .move_values(&Position::new(2, &[0, 1, 0, 0]).unwrap())
        .unwrap();
    assert_eq!(
        (moves.len(), moves[0].value, moves[0].distance),
        (1, -1, Some(2))
    );
}

/// The seeds the mover of `pos` wins along its principal variation: the
/// captures, with alternating signs, then the counters left on the board
/// when the line ends with a player who cannot move; nothing more after a
/// never-ending move or a repeated position. `None` if the line stops
/// anywhere else (its limit).
fn line_score(tables: &EngeheTablebase, pos: &Position) -> Option<i32> {
    let pv = tables.principal_variation(pos, 10_000).unwrap();
    let mut seen = vec![*pos];
    let (mut total, mut sign) = (0i32, 1i32);
    for m in &pv {
        match (m.captured, m.child) {
            (Some(c), Some(child)) => {
                total += sign * i32::from(c);
                sign = -sign;
                if seen.contains(&child) {
                    return Some(total);
                }
                seen.push(child);
            }
            // Never ends: the game is void, nothing more.
            _ => return Some(total),
        }
    }
    let last = seen.last().unwrap();
    tables
        .move_values(last)
        .unwrap()
        .is_empty()
        .then(|| total - sign * last.counters() as i32)
}

#[test]
fn principal_variations_win_exactly_the_value() {
    let mut all_short_without = 0;
    for (width, max, endless) in [
        (2, 10, Endless::Void),
        (2, 10, Endless::Illegal),
        (3, 9, Endless::Void),
        (4, 8, Endless::Void),
    ] {
        let config = Config {
            width,
            rules: Rules { endless },
        };
        let with = tempfile::tempdir().unwrap();
        tb::build(with.path(), config, max, DistanceTables::Build, &Quiet).unwrap();
        let without = tempfile::tempdir().unwrap();
        tb::build(without.path(), config, max, DistanceTables::Skip, &Quiet).unwrap();
        let with = EngeheTablebase::open(with.path(), config).unwrap();
        let without = EngeheTablebase::open(without.path(), config).unwrap();
        let (mut positions, mut short_without) = (0, 0usize);
        for n in 0..=max {
            for board in naive_engehe::all_boards(2 * width, n) {
                let holes: Vec<u32> = board.iter().map(|&h| u32::from(h)).collect();
                let pos = Position::new(width, &holes).unwrap();
                let value = i32::from(with.value(&pos).unwrap());
                assert_eq!(
                    line_score(&with, &pos),
                    Some(value),
                    "2×{width} {pos} ({endless})"
                );
                positions += 1;
                short_without += usize::from(line_score(&without, &pos) != Some(value));
            }
        }
        assert!(positions > 1000, "{positions}");
        all_short_without += short_without;
        eprintln!(
            "2×{width} ({endless}) 0..={max}: {positions} lines, {short_without} short without distances"
        );
    }
    // On these boards the lines without distances (the lowest hole among
    // the moves that keep the value) happen to reach the value too, as they
    // did on every position up to 2 × 3 with 12, 2 × 4 with 10 and 2 × 5
    // with 8 counters (void) and 2 × 6 with 7 (illegal) when tried.
    assert_eq!(all_short_without, 0);
}

#[test]
fn distance_tables_are_added_to_a_build_without_them_and_refused_when_stale() {
    use mancala_tb::tablebase::store::{self, Meta, Values};
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        width: 2,
        rules: Rules::default(),
    };
    let folder = config.folder(dir.path());
    let built = tb::build(dir.path(), config, 6, DistanceTables::Skip, &Quiet).unwrap();
    assert!(built.distances.is_empty());
    assert!(!folder.join("distance.6.mtb").exists());
    let tables = EngeheTablebase::open(dir.path(), config).unwrap();
    let pos = Position::new(2, &[2, 1, 0, 3]).unwrap();
    assert_eq!(tables.distance(&pos).unwrap(), None);
    assert!(
        tables
            .distances_missing(6)
            .unwrap()
            .contains("engehe --width 2")
    );
    let checked = tables.check_layers(6, &|_| {}).unwrap();
    assert_eq!(checked.missing_distances, (0..=6).collect::<Vec<_>>());
    // A rerun adds them without rewriting the values.
    let values_before = std::fs::read(folder.join("counters.6.mtb")).unwrap();
    let modified = std::fs::metadata(folder.join("counters.6.mtb"))
        .unwrap()
        .modified()
        .unwrap();
    let again = tb::build(dir.path(), config, 6, DistanceTables::Build, &Quiet).unwrap();
    assert!(again.layers.iter().all(|l| l.seconds.is_none()));
    assert_eq!(again.distances.len(), 7);
    assert!(again.distances.iter().all(|d| d.seconds.is_some()));
    assert_eq!(
        std::fs::read(folder.join("counters.6.mtb")).unwrap(),
        values_before
    );
    assert_eq!(
        std::fs::metadata(folder.join("counters.6.mtb"))
            .unwrap()
            .modified()
            .unwrap(),
        modified
    );
    let tables = EngeheTablebase::open(dir.path(), config).unwrap();
    assert!(tables.distance(&pos).unwrap().is_some());
    assert_eq!(tables.check_layers(6, &|_| {}).unwrap().distances.len(), 7);
    // Nothing half-written is left behind.
    let names: Vec<_> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert!(names.iter().all(|n| n.ends_with(".mtb")), "{names:?}");

    // Other values under the same name: the distance table is refused, with
    // both files named, by the library, the command line and a rebuild.
    let mut values = tables.layer_values(6).unwrap();
    drop(tables);
    values[3] = values[3].wrapping_add(1);
    let meta = Meta {
        game: "engehe",
        ruleset: "endless=void".into(),
        options: String::new(),
        seeds: 6,
        board_width: 2,
        wide: false,
    };
    store::write(&folder.join("counters.6.mtb"), &meta, Values::I8(&values)).unwrap();
    let err = EngeheTablebase::open(dir.path(), config)
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("distance.6.mtb")
            && err.contains("counters.6.mtb")
            && err.contains("other values"),
        "{err}"
    );
    let d = dir.path().to_str().unwrap();
    let out = crate::common::run(&[
        "query", "engehe", "--width", "2", "--dir", d, "2", "1", "0", "3",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(
        stderr.starts_with("error: ")
            && stderr.contains("distance.6.mtb")
            && stderr.contains("counters.6.mtb"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let err = tb::build(dir.path(), config, 6, DistanceTables::Build, &Quiet)
        .unwrap_err()
        .to_string();
    assert!(err.contains("distance.6.mtb"), "{err}");
    // A value table that the engine does not find again is not given
    // distances: deleting the distance table and rerunning says so.
    let stale = std::fs::read(folder.join("distance.6.mtb")).unwrap();
    std::fs::remove_file(folder.join("distance.6.mtb")).unwrap();
    let err = tb::build(dir.path(), config, 6, DistanceTables::Build, &Quiet)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("counters.6.mtb: rank 3") && err.contains("solving the layer again"),
        "{err}"
    );
    assert!(!folder.join("distance.6.mtb").exists());
    // Values built again (even without distances) take the stale distance
    // table away.
    std::fs::write(folder.join("distance.6.mtb"), &stale).unwrap();
    std::fs::remove_file(folder.join("counters.6.mtb")).unwrap();
    let built = tb::build(dir.path(), config, 6, DistanceTables::Skip, &Quiet).unwrap();
    assert!(!folder.join("distance.6.mtb").exists());
    assert_eq!(built.distances.len(), 6);
    assert_eq!(
        std::fs::read(folder.join("counters.6.mtb")).unwrap(),
        values_before
    );
}

#[test]
fn the_distance_check_finds_a_wrong_distance_and_a_damaged_block() {
    use mancala_tb::tablebase::store::{self, Meta};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let config = Config {
        width: 3,
        rules: Rules::default(),
    };
    tb::build(dir.path(), config, 6, DistanceTables::Build, &Quiet).unwrap();
    let folder = config.folder(dir.path());
    let path = folder.join("distance.6.mtb");
    let pristine = std::fs::read(&path).unwrap();
    let meta = Meta {
        game: "engehe",
        ruleset: "endless=void".into(),
        options: String::new(),
        seeds: 6,
        board_width: 3,
        wide: false,
    };
    let values = store::open(&folder.join("counters.6.mtb"), &meta, 462).unwrap();
    let mut distances = store::open_distances(&path, &meta, 462, &values)
        .unwrap()
        .unwrap()
        .load()
        .unwrap();
    // A decided position one move further than its moves say.
    let rank = (0..distances.len()).find(|&r| distances[r] > 1).unwrap();
    distances[rank] += 1;
    store::write_distances(&path, &meta, &values, &distances).unwrap();
    drop(values);
    let verify = [
        "verify",
        "engehe",
        "--width",
        "3",
        "--max-seeds",
        "6",
        "--dir",
        d,
    ];
    let out = crate::common::run(&verify);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(
        stderr.contains(&format!("distance.6.mtb: block 0, rank {rank} ("))
            && stderr.contains(&format!("holds distance {}", distances[rank])),
        "{stderr}"
    );
    // A damaged block of the distance table: named with its file.
    let mut bytes = pristine;
    let last = bytes.len() - 3;
    bytes[last] ^= 0x55;
    std::fs::write(&path, &bytes).unwrap();
    let out = crate::common::run(&verify);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(
        stderr.contains("distance.6.mtb") && stderr.contains("block 0"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn query_shows_distances_and_a_line_that_reaches_the_value() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let build = |extra: &[&str]| {
        let mut args = vec![
            "build",
            "engehe",
            "--width",
            "3",
            "--max-seeds",
            "6",
            "--dir",
            d,
        ];
        args.extend(extra);
        let (ok, out, err) = cli(&args);
        assert!(ok, "{err}");
        out
    };
    let out = build(&["--no-distances"]);
    assert!(!out.contains("distance tables"), "{out}");
    let query = [
        "query", "engehe", "--width", "3", "--dir", d, "2", "2", "0", "0", "0", "2",
    ];
    let (ok, out, err) = cli(&query);
    assert!(ok, "{err}");
    assert!(
        err.contains("no distance table")
            && err.contains("may repeat")
            && err.contains("mancala-tb build engehe --width 3 --endless void --max-seeds 6"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(out.contains("principal variation:"), "{out}");
    let out = build(&[]);
    assert!(out.contains("distance tables"), "{out}");
    let (ok, out, err) = cli(&query);
    assert!(ok && err.is_empty(), "{err}");
    assert!(out.contains("next capture in"), "{out}");
    let mut json_query = query.to_vec();
    json_query.insert(2, "--json");
    let (ok, out, err) = cli(&json_query);
    assert!(ok, "{err}");
    let json: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let tables = EngeheTablebase::open(
        dir.path(),
        Config {
            width: 3,
            rules: Rules::default(),
        },
    )
    .unwrap();
    let pos = Position::new(3, &[2, 2, 0, 0, 0, 2]).unwrap();
    assert_eq!(json["value"], tables.value(&pos).unwrap());
    assert_eq!(json["distance"], tables.distance(&pos).unwrap().unwrap());
    let pv = json["pv"].as_array().unwrap();
    assert_eq!(
        pv.len(),
        tables.principal_variation(&pos, 40).unwrap().len()
    );
    // The first move of the line is the best move, and keeps the distance.
    assert_eq!(pv[0]["value"], json["value"]);
    assert_eq!(pv[0]["distance"], json["distance"]);
    assert_eq!(
        line_score(&tables, &pos),
        Some(i32::from(tables.value(&pos).unwrap()))
    );
    let (ok, out, err) = cli(&[
        "verify",
        "engehe",
        "--width",
        "3",
        "--max-seeds",
        "6",
        "--dir",
        d,
    ]);
    assert!(
        ok && out.contains("the distances of 7 layers too"),
        "{out}{err}"
    );
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
    tb::build(dir.path(), config, 5, DistanceTables::Skip, &Quiet).unwrap();
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
