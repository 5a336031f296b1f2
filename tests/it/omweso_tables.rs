//! Omweso tables against a naive solver over the same move generator
//! (sweeps to a fixpoint: level by level for win/draw/loss with distance,
//! threshold by threshold for points), consistency of every table with its
//! moves, and the command line.

use crate::common::cli;
use std::collections::HashMap;

use mancala_tb::games::omweso::{Dedup, Endless, MoveGen, Outcome, Position, Reverse, Rules};
use mancala_tb::tablebase::omweso::{
    self as tb, Config, MoveResult, Objective, OmwesoTablebase, Value, Wdl,
};
use mancala_tb::tablebase::{DistanceTables, Quiet};

/// Every position with `seeds` seeds on a 4 × `width` board.
fn all_positions(width: usize, seeds: u32) -> Vec<Position> {
    fn fill(p: &mut Vec<u32>, left: u32, n: usize, out: &mut Vec<Vec<u32>>) {
        if p.len() + 1 == n {
            p.push(left);
            out.push(p.clone());
            p.pop();
            return;
        }
        for k in 0..=left {
            p.push(k);
            fill(p, left - k, n, out);
            p.pop();
        }
    }
    let mut out = Vec::new();
    fill(&mut Vec::new(), seeds, 4 * width, &mut out);
    out.iter()
        .map(|p| Position::new(width, p).unwrap())
        .collect()
}

/// A move: an immediate win worth these points, a void game, or a child.
enum Succ {
    Win(i8),
    Void,
    Child(usize),
}

fn successors(positions: &[Position], rules: &Rules) -> Vec<Vec<Succ>> {
    let at: HashMap<Position, usize> = positions.iter().enumerate().map(|(i, p)| (*p, i)).collect();
    let mut moves = MoveGen::new();
    positions
        .iter()
        .map(|p| {
            moves.generate(p, rules, true, Dedup::StartChoice);
            moves
                .legal()
                .map(|m| match m.outcome {
                    Outcome::Ends { win: Some(k), .. } => Succ::Win(k.points() as i8),
                    Outcome::Ends { after, .. } => Succ::Child(at[&after.flipped()]),
                    Outcome::NeverEnds(_) => Succ::Void,
                })
                .collect()
        })
        .collect()
}

/// Win/draw/loss with distance, level by level: losses in 0 have no move;
/// wins in `d` have a win at once (`d = 1`) or a child lost in `d − 1`;
/// losses in `d` have only children won in at most `d − 1`.
fn naive_wdl(succ: &[Vec<Succ>]) -> Vec<Wdl> {
    let mut v: Vec<Option<Wdl>> = succ
        .iter()
        .map(|s| s.is_empty().then_some(Wdl::Loss(0)))
        .collect();
    for d in 1u16.. {
        let before = v.clone();
        for (i, moves) in succ.iter().enumerate() {
            if before[i].is_some() {
                continue;
            }
            let win = moves.iter().any(|m| match m {
                Succ::Win(_) => d == 1,
                Succ::Void => false,
                Succ::Child(c) => before[*c] == Some(Wdl::Loss(d - 1)),
            });
            let loss = moves.iter().all(|m| match m {
                Succ::Child(c) => matches!(before[*c], Some(Wdl::Win(e)) if e < d),
                _ => false,
            });
            if win {
                v[i] = Some(Wdl::Win(d));
            } else if loss {
                v[i] = Some(Wdl::Loss(d));
            }
        }
        if v == before {
            break;
        }
    }
    v.into_iter().map(|x| x.unwrap_or(Wdl::Draw)).collect()
}

/// Points by thresholds, each a fixpoint: won at `t` if a move is worth at
/// least `t` at once or leads to a child lost at `t`; lost at `−t` if every
/// move is a child won at `t` (a position without moves is lost at −1).
fn naive_points(succ: &[Vec<Succ>]) -> Vec<i8> {
    let n = succ.len();
    let mut value = vec![0i8; n];
    for t in (1..=12).rev() {
        let (mut win, mut lose) = (vec![false; n], vec![false; n]);
        loop {
            let mut changed = false;
            for (i, moves) in succ.iter().enumerate() {
                let w = moves.iter().any(|m| match m {
                    Succ::Win(p) => *p >= t,
                    Succ::Void => false,
                    Succ::Child(c) => lose[*c],
                });
                let l = if moves.is_empty() {
                    t == 1
                } else {
                    moves.iter().all(|m| match m {
                        Succ::Child(c) => win[*c],
                        _ => false,
                    })
                };
                changed |= (w && !win[i]) || (l && !lose[i]);
                win[i] |= w;
                lose[i] |= l;
            }
            if !changed {
                break;
            }
        }
        for i in 0..n {
            if value[i] == 0 && win[i] {
                value[i] = t;
            } else if value[i] == 0 && lose[i] {
                value[i] = -t;
            }
        }
    }
    value
}

/// Distances of a points table, level by level from its values to a
/// fixpoint: 0 for a draw or a position without moves; a position of value
/// `v > 0` is at level `k` when a move wins `v` at once (`k = 1`) or leads
/// to a child of value `−v` at level `k − 1`; one of value `v < 0` when its
/// moves to children of value `−v` all have levels, the deepest `k − 1`
/// (`k = 1` without such moves: it wins nothing at once, so it has some).
fn naive_points_distances(succ: &[Vec<Succ>], points: &[i8]) -> Vec<u16> {
    let mut d: Vec<Option<u16>> = (0..succ.len())
        .map(|i| (points[i] == 0 || succ[i].is_empty()).then_some(0))
        .collect();
    for level in 1u16.. {
        let before = d.clone();
        for (i, moves) in succ.iter().enumerate() {
            if before[i].is_some() {
                continue;
            }
            let v = points[i];
            let kept: Vec<Option<u16>> = moves
                .iter()
                .filter_map(|m| match m {
                    Succ::Win(p) if *p == v => Some(Some(0)),
                    Succ::Child(c) if -points[*c] == v => Some(before[*c]),
                    _ => None,
                })
                .collect();
            let resolved = if v > 0 {
                kept.contains(&Some(level - 1))
            } else {
                kept.iter().all(Option::is_some)
                    && kept.iter().flatten().max().copied().unwrap_or(0) + 1 == level
            };
            if resolved {
                d[i] = Some(level);
            }
        }
        if d == before {
            break;
        }
    }
    d.into_iter()
        .map(|x| x.expect("every position gets a distance"))
        .collect()
}

fn cross_check(width: usize, seeds: u32, rules: Rules) {
    let dir = tempfile::tempdir().unwrap();
    let positions = all_positions(width, seeds);
    let succ = successors(&positions, &rules);
    let wdl = naive_wdl(&succ);
    let points = naive_points(&succ);
    let distances = naive_points_distances(&succ, &points);
    for objective in [Objective::Wdl, Objective::Points] {
        let config = Config {
            width,
            seeds: seeds as usize,
            rules,
            objective,
        };
        let report = tb::build(dir.path(), config, DistanceTables::Build, &Quiet).unwrap();
        assert_eq!(report.layer.positions, positions.len() as u64);
        let tables = OmwesoTablebase::open(dir.path(), config).unwrap();
        for (i, p) in positions.iter().enumerate() {
            let (expected, distance) = match objective {
                Objective::Wdl => (
                    Value::Wdl(wdl[i]),
                    match wdl[i] {
                        Wdl::Win(d) | Wdl::Loss(d) => d,
                        Wdl::Draw => 0,
                    },
                ),
                Objective::Points => (Value::Points(points[i]), distances[i]),
            };
            assert_eq!(
                tables.value(p).unwrap(),
                expected,
                "{p} ({objective}, {rules})"
            );
            assert_eq!(
                tables.distance(p).unwrap(),
                Some(distance),
                "{p} ({objective}, {rules}): {expected}"
            );
        }
        let checked = tables.check_consistency().unwrap();
        match objective {
            Objective::Wdl => assert!(report.distances.is_none() && checked.distances.is_empty()),
            Objective::Points => {
                assert_eq!(checked.distances, vec![seeds as usize]);
                let longest = distances.iter().copied().max();
                assert_eq!(report.distances.map(|d| d.longest), longest);
                assert!(longest > Some(2), "{longest:?}");
            }
        }
        if objective == Objective::Wdl {
            let longest = wdl.iter().filter_map(|w| match w {
                Wdl::Win(d) => Some(*d),
                _ => None,
            });
            assert_eq!(report.longest_win, longest.max());
        }
    }
}

#[test]
fn default_rules_match_the_naive_solver() {
    cross_check(2, 8, Rules::default());
    cross_check(3, 6, Rules::default());
}

#[test]
fn rule_options_match_the_naive_solver() {
    let options = [
        Rules {
            endless: Endless::Illegal,
            ..Rules::default()
        },
        Rules {
            reverse: Reverse::StartOnly,
            ..Rules::default()
        },
        Rules {
            okutema: false,
            ..Rules::default()
        },
    ];
    for rules in options {
        cross_check(2, 7, rules);
    }
}

#[test]
fn the_tables_are_not_trivial() {
    // 4 × 2 with 8 seeds: wins, draws and losses all occur, wins take more
    // than one move, and every point value but ±12 is reached... checked
    // against counts computed by the naive solver.
    let positions = all_positions(2, 8);
    let succ = successors(&positions, &Rules::default());
    let wdl = naive_wdl(&succ);
    let count = |f: fn(&Wdl) -> bool| wdl.iter().filter(|w| f(w)).count();
    assert_eq!(positions.len(), 6435);
    assert!(count(|w| matches!(w, Wdl::Draw)) > 0);
    assert!(count(|w| matches!(w, Wdl::Win(d) if *d > 3)) > 0);
    assert!(count(|w| matches!(w, Wdl::Loss(d) if *d > 2)) > 0);
    let points = naive_points(&succ);
    for p in [-2, -1, 0, 1, 2] {
        assert!(points.contains(&p), "{p}");
    }
}

#[test]
fn hand_checked_positions() {
    let dir = tempfile::tempdir().unwrap();
    let config = |objective| Config {
        width: 2,
        seeds: 6,
        rules: Rules::default(),
        objective,
    };
    tb::build(
        dir.path(),
        config(Objective::Wdl),
        DistanceTables::Build,
        &Quiet,
    )
    .unwrap();
    tb::build(
        dir.path(),
        config(Objective::Points),
        DistanceTables::Build,
        &Quiet,
    )
    .unwrap();
    let wdl = OmwesoTablebase::open(dir.path(), config(Objective::Wdl)).unwrap();
    let points = OmwesoTablebase::open(dir.path(), config(Objective::Points)).unwrap();
    // Only singletons for the mover: no move, lost by bulijo.
    let stuck = Position::new(2, &[1, 1, 0, 0, 2, 2, 0, 0]).unwrap();
    assert_eq!(wdl.value(&stuck).unwrap(), Value::Wdl(Wdl::Loss(0)));
    assert_eq!(points.value(&stuck).unwrap(), Value::Points(-1));
    // 4 × 2, sowing order per side: outer 0 1, inner 2 3 (inner 2 is
    // column 1, inner 3 column 0). Mover 2 0 0 0: pit 0 sows into 1 and 2;
    // 2 was empty, the move ends; the opponent (2 2 0 0 seen by them) then
    // moves. With the opponent's inner row empty no capture is possible.
    let pos = Position::new(2, &[0, 0, 2, 0, 2, 2, 0, 0]).unwrap();
    let moves = wdl.move_values(&pos).unwrap();
    assert_eq!(moves.len(), 1);
    assert!(matches!(moves[0].result, MoveResult::Child(_)));
    assert_eq!(moves[0].value, wdl.value(&pos).unwrap());
    // A principal variation ends in the game's end for a decided position.
    let v = wdl.value(&pos).unwrap();
    let pv = wdl.principal_variation(&pos, 100).unwrap();
    if let Value::Wdl(Wdl::Win(d) | Wdl::Loss(d)) = v {
        assert_eq!(pv.len(), d as usize, "{v}");
    }
}

#[test]
fn command_line_builds_queries_and_reports_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let (ok, out, err) = cli(&[
        "build", "omweso", "--width", "2", "--seeds", "6", "--dir", d,
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("longest win"), "{out}");
    let (ok, out, err) = cli(&[
        "query", "omweso", "--width", "2", "--dir", d, "--json", "0", "0", "2", "0", "2", "2", "0",
        "0",
    ]);
    assert!(ok, "{err}");
    let json: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(json["moves"].as_array().unwrap().len(), 1);
    assert_eq!(json["moves"][0]["value"], json["value"]);
    assert!(json["pv"].is_array());
    let (ok, out, _) = cli(&[
        "stats", "omweso", "--width", "2", "--seeds", "6", "--dir", d,
    ]);
    assert!(
        ok && out.contains("1716 positions") && out.contains("longest win"),
        "{out}"
    );

    let (ok, _, err) = cli(&["query", "omweso", "--width", "2", "--dir", d, "1", "2"]);
    assert!(!ok && err.contains("8 pits"), "{err}");
    let (ok, _, err) = cli(&[
        "query",
        "omweso",
        "--width",
        "2",
        "--dir",
        d,
        "--objective",
        "points",
        "0",
        "0",
        "2",
        "0",
        "2",
        "2",
        "0",
        "0",
    ]);
    assert!(
        !ok && err.contains("missing") && err.contains("--objective points"),
        "{err}"
    );
    let (ok, _, err) = cli(&[
        "build", "omweso", "--width", "9", "--seeds", "2", "--dir", d,
    ]);
    assert!(!ok && err.contains("--width"), "{err}");
    let file = dir
        .path()
        .join("omweso-all-laps-void-okutema-on/w2-s6.wdl.mtb");
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&file, &bytes).unwrap();
    let (ok, _, err) = cli(&[
        "stats", "omweso", "--width", "2", "--seeds", "6", "--dir", d,
    ]);
    assert!(
        !ok && err.contains("w2-s6.wdl.mtb") && err.contains("damaged"),
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
        seeds: 6,
        rules: Rules::default(),
        objective: Objective::Points,
    };
    tb::build(dir.path(), config, DistanceTables::Skip, &Quiet).unwrap();
    let path = config.path(dir.path());
    let meta = Meta {
        game: "omweso",
        ruleset: Rules::default().to_string(),
        options: "objective=points".into(),
        seeds: 6,
        board_width: 2,
        wide: false,
    };
    OmwesoTablebase::open(dir.path(), config)
        .unwrap()
        .check_consistency()
        .unwrap();
    let mut stored: Vec<i8> = vec![0; 1716];
    {
        let t = store::open(&path, &meta, 1716).unwrap();
        for (r, v) in stored.iter_mut().enumerate() {
            *v = t.get(r as u64).unwrap() as i8;
        }
    }
    stored[100] = if stored[100] == 2 { 1 } else { 2 };
    store::write(&path, &meta, Values::I8(&stored)).unwrap();
    let tables = OmwesoTablebase::open(dir.path(), config).unwrap();
    let err = tables.check_consistency().unwrap_err().to_string();
    assert!(err.contains("w2-s6.points.mtb: rank 100"), "{err}");
}

/// The points the mover of `pos` scores along the principal variation: the
/// win that ends it (for whoever makes it), nothing after a void game or a
/// repeated position, and the bulijo loss of a mover without a move. `None`
/// if the line stops anywhere else (its limit).
fn line_points(tables: &OmwesoTablebase, pos: &Position) -> Option<i32> {
    let pv = tables.principal_variation(pos, 10_000).unwrap();
    if pv.is_empty() {
        return tables.move_values(pos).unwrap().is_empty().then_some(-1);
    }
    let mut seen = vec![*pos];
    let mut sign = 1;
    for m in &pv {
        match m.result {
            MoveResult::Wins(kind) => return Some(sign * kind.points() as i32),
            MoveResult::Void => return Some(0),
            MoveResult::Child(child) => {
                if seen.contains(&child) {
                    return Some(0);
                }
                seen.push(child);
                sign = -sign;
            }
        }
    }
    None
}

#[test]
fn principal_variations_score_exactly_the_points() {
    let options = [
        (2, 8, Rules::default()),
        (
            2,
            7,
            Rules {
                endless: Endless::Illegal,
                ..Rules::default()
            },
        ),
        (3, 5, Rules::default()),
        (2, 10, Rules::default()),
    ];
    let mut all_short_without = 0;
    for (width, seeds, rules) in options {
        let config = Config {
            width,
            seeds,
            rules,
            objective: Objective::Points,
        };
        let with = tempfile::tempdir().unwrap();
        tb::build(with.path(), config, DistanceTables::Build, &Quiet).unwrap();
        let without = tempfile::tempdir().unwrap();
        tb::build(without.path(), config, DistanceTables::Skip, &Quiet).unwrap();
        let with = OmwesoTablebase::open(with.path(), config).unwrap();
        let without = OmwesoTablebase::open(without.path(), config).unwrap();
        assert!(with.distances_missing().is_none());
        assert!(without.distances_missing().is_some());
        let mut short_without = 0;
        let positions = all_positions(width, seeds as u32);
        for p in &positions {
            let Value::Points(value) = with.value(p).unwrap() else {
                unreachable!()
            };
            assert_eq!(
                line_points(&with, p),
                Some(i32::from(value)),
                "4×{width} {p} ({rules})"
            );
            short_without += usize::from(line_points(&without, p) != Some(i32::from(value)));
        }
        eprintln!(
            "4×{width} with {seeds} seeds ({rules}): {} lines, {short_without} short without distances",
            positions.len()
        );
        all_short_without += short_without;
    }
    // Without the distance table some lines go round before they reach the
    // value (64 of 4 × 2 with 10 seeds): what the distance tables are for.
    assert!(all_short_without > 0);
}

#[test]
fn points_tables_get_their_distance_table_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let build = [
        "build",
        "omweso",
        "--width",
        "2",
        "--seeds",
        "6",
        "--objective",
        "points",
        "--dir",
        d,
    ];
    let mut without = build.to_vec();
    without.push("--no-distances");
    let (ok, out, err) = cli(&without);
    assert!(ok && !out.contains("distance tables"), "{out}{err}");
    let folder = dir.path().join("omweso-all-laps-void-okutema-on");
    assert!(!folder.join("w2-s6.distance.mtb").exists());
    let query = [
        "query",
        "omweso",
        "--width",
        "2",
        "--objective",
        "points",
        "--dir",
        d,
        "0",
        "0",
        "2",
        "0",
        "2",
        "2",
        "0",
        "0",
    ];
    let (ok, out, err) = cli(&query);
    assert!(ok, "{err}");
    assert!(
        err.contains("no distance table") && err.contains("--objective points"),
        "{err}"
    );
    assert!(!out.contains("the game ends in"), "{out}");
    let (ok, out, _) = cli(&[
        "verify",
        "omweso",
        "--width",
        "2",
        "--seeds",
        "6",
        "--objective",
        "points",
        "--dir",
        d,
    ]);
    assert!(ok && out.contains("no distance table"), "{out}");
    // A rerun adds it.
    let (ok, out, err) = cli(&build);
    assert!(ok && out.contains("distance tables"), "{out}{err}");
    assert!(folder.join("w2-s6.distance.mtb").exists());
    let (ok, out, err) = cli(&query);
    assert!(ok && err.is_empty(), "{err}");
    assert!(out.contains("the game ends in"), "{out}");
    let mut json = query.to_vec();
    json.insert(2, "--json");
    let (ok, out, _) = cli(&json);
    assert!(ok);
    let json: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let pv = json["pv"].as_array().unwrap();
    assert_eq!(json["distance"].as_u64(), Some(pv.len() as u64), "{json}");
    assert_eq!(pv[0]["distance"], json["distance"]);
    let (ok, out, _) = cli(&[
        "verify",
        "omweso",
        "--width",
        "2",
        "--seeds",
        "6",
        "--objective",
        "points",
        "--dir",
        d,
    ]);
    assert!(ok && out.contains("and its distance"), "{out}");
    assert!(!out.contains("no distance table"), "{out}");
    let (ok, out, _) = cli(&["info", "--dir", d]);
    assert!(
        ok && out.contains("distance") && out.contains("values-crc32="),
        "{out}"
    );
}
