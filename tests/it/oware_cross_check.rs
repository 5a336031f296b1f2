//! The retrograde builder against the independent naive solver: every
//! position of layers 0..=10, both rulesets, including positions outside the
//! published index (valued from their children), values and distances.

use crate::naive::oware as naive_oware;

use mancala_tb::games::oware::{self, Board, Ruleset};
use mancala_tb::index::oware as index;
use mancala_tb::tablebase::Quiet;
use mancala_tb::tablebase::oware::{self as tb, OwareTablebase, PvEnd};
use naive_oware::NaiveRules;

const MAX_SEEDS: usize = 10;

fn cross_check(rules: Ruleset, naive_rules: NaiveRules) {
    let dir = tempfile::tempdir().unwrap();
    let reports = tb::build(
        dir.path(),
        rules,
        &tb::BuildOptions::new(MAX_SEEDS, 4 << 30),
        &Quiet,
    )
    .unwrap();
    assert_eq!(reports.len(), MAX_SEEDS + 1);
    let tables = OwareTablebase::open(dir.path(), rules).unwrap();
    let expected = naive_oware::solve(naive_rules, MAX_SEEDS);
    for (seeds, layer) in expected.iter().enumerate() {
        let mut indexed = 0;
        for (board, &value) in layer {
            assert_eq!(
                tables.value(board).unwrap(),
                value,
                "{rules}: {board:?} ({seeds} seeds)"
            );
            indexed += u64::from(index::rank(board).is_some());
        }
        assert_eq!(indexed, index::layer_size(seeds));
        assert_eq!(reports[seeds].positions, indexed);
    }
    // The distance tables against the naive fixed point, every board
    // (those outside the index from their moves).
    for (seeds, layer) in naive_oware::distances(naive_rules, &expected)
        .iter()
        .enumerate()
    {
        for (board, &distance) in layer {
            assert_eq!(
                tables.distance(board).unwrap(),
                Some(distance),
                "{rules}: {board:?} ({seeds} seeds)"
            );
        }
    }
    // Every built layer passes the checks of `verify`.
    tb::verify(
        dir.path(),
        rules,
        &tb::VerifyOptions::new(MAX_SEEDS),
        &|_| {},
    )
    .unwrap();
}

#[test]
fn awari_matches_the_naive_solver_on_every_position_up_to_10_seeds() {
    cross_check(Ruleset::Awari, NaiveRules::Awari);
}

#[test]
fn abapa_matches_the_naive_solver_on_every_position_up_to_10_seeds() {
    cross_check(Ruleset::Abapa, NaiveRules::Abapa);
}

/// The engines' move generator (`oware::Children`, which `legal_moves`
/// lists) against the naive one: every board of up to 10 seeds, indexed or
/// not, both rulesets (grand slams, starving and feeding moves included).
#[test]
fn children_are_the_naive_solvers_moves_on_every_board_up_to_10_seeds() {
    for (rules, naive_rules) in [
        (Ruleset::Awari, NaiveRules::Awari),
        (Ruleset::Abapa, NaiveRules::Abapa),
    ] {
        for seeds in 0..=MAX_SEEDS {
            for board in naive_oware::all_boards(seeds) {
                let expected = naive_oware::moves(naive_rules, &board);
                let children = oware::Children::new(rules, &board);
                let listed: Vec<(usize, u8, Board)> = children
                    .legal()
                    .map(|pit| (pit, children.captured(pit), children.child(pit)))
                    .collect();
                assert_eq!(listed, expected, "{rules}: {board:?}");
                let pits = |capturing: bool| -> Vec<usize> {
                    expected
                        .iter()
                        .filter(|m| (m.1 != 0) == capturing)
                        .map(|m| m.0)
                        .collect()
                };
                assert_eq!(children.quiet().collect::<Vec<_>>(), pits(false));
                assert_eq!(children.quiet().len(), pits(false).len());
                assert_eq!(children.captures().collect::<Vec<_>>(), pits(true));
                assert_eq!(children.is_empty(), expected.is_empty());
                let moves: Vec<(usize, u8, Board)> = oware::legal_moves(rules, &board)
                    .iter()
                    .map(|m| (m.pit as usize, m.captured, m.child))
                    .collect();
                assert_eq!(moves, expected, "{rules}: {board:?}");
            }
        }
    }
}

/// Along a principal variation every step keeps the value: the seeds won so
/// far plus the value of the position reached equal the starting value, and a
/// line that ends does so at a position without moves.
#[test]
fn principal_variations_keep_the_value() {
    let dir = tempfile::tempdir().unwrap();
    tb::build(
        dir.path(),
        Ruleset::Awari,
        &tb::BuildOptions::new(8, 4 << 30),
        &Quiet,
    )
    .unwrap();
    let tables = OwareTablebase::open(dir.path(), Ruleset::Awari).unwrap();
    for seeds in 1..=8 {
        let size = index::layer_size(seeds);
        for rank in (0..size).step_by(97) {
            let start = index::unrank(seeds, rank);
            let value = i32::from(tables.value(&start).unwrap());
            let (line, end) = tables.principal_variation(&start, 500).unwrap();
            // Seeds won by the first mover minus the opponent's, so far.
            let mut won = 0i32;
            for (i, step) in line.iter().enumerate() {
                let sign = if i % 2 == 0 { 1 } else { -1 };
                won += sign * i32::from(step.captured);
                let rest = i32::from(tables.value(&step.board).unwrap());
                // The position reached is seen from the next mover.
                assert_eq!(won - sign * rest, value, "{start:?} step {i}");
            }
            assert_ne!(end, PvEnd::Limit, "{start:?}");
            if end == PvEnd::GameOver {
                let last = line.last().map_or(start, |s| s.board);
                assert!(tables.move_values(&last).unwrap().is_empty());
            }
        }
    }
}

/// A build resumed from compressed tables alone (the raw scratch files of the
/// first run are gone) gives the same tables as one build from scratch.
#[test]
fn resumed_builds_equal_fresh_ones() {
    let resumed = tempfile::tempdir().unwrap();
    let first = tb::build(
        resumed.path(),
        Ruleset::Abapa,
        &tb::BuildOptions::new(6, 4 << 30),
        &Quiet,
    )
    .unwrap();
    assert!(first.iter().all(|r| r.seconds.is_some()));
    let second = tb::build(
        resumed.path(),
        Ruleset::Abapa,
        &tb::BuildOptions::new(9, 4 << 30),
        &Quiet,
    )
    .unwrap();
    assert!(second[..=6].iter().all(|r| r.seconds.is_none()));
    assert!(second[7..].iter().all(|r| r.seconds.is_some()));
    let fresh = tempfile::tempdir().unwrap();
    tb::build(
        fresh.path(),
        Ruleset::Abapa,
        &tb::BuildOptions::new(9, 4 << 30),
        &Quiet,
    )
    .unwrap();
    for seeds in 0..=9 {
        let name = format!("oware-abapa/scores.{seeds}.mtb");
        assert_eq!(
            std::fs::read(resumed.path().join(&name)).unwrap(),
            std::fs::read(fresh.path().join(&name)).unwrap(),
            "layer {seeds}"
        );
    }
    tb::verify(
        resumed.path(),
        Ruleset::Abapa,
        &tb::VerifyOptions::new(9),
        &|_| {},
    )
    .unwrap();
}
