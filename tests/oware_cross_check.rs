//! The retrograde builder against the independent naive solver: every
//! position of layers 0..=10, both rulesets, including positions outside the
//! published index (valued from their children).

#[path = "naive/oware.rs"]
mod naive_oware;

use mancala_tb::games::oware::Ruleset;
use mancala_tb::index::oware as index;
use mancala_tb::tablebase::oware::{self as tb, OwareTablebase, Quiet};
use naive_oware::NaiveRules;

const MAX_SEEDS: usize = 10;

fn cross_check(rules: Ruleset, naive_rules: NaiveRules) {
    let dir = tempfile::tempdir().unwrap();
    let reports = tb::build(dir.path(), rules, MAX_SEEDS, &Quiet).unwrap();
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
        // Every built layer is consistent with its children.
        tables.check_layer(seeds).unwrap();
    }
}

#[test]
fn awari_matches_the_naive_solver_on_every_position_up_to_10_seeds() {
    cross_check(Ruleset::Awari, NaiveRules::Awari);
}

#[test]
fn abapa_matches_the_naive_solver_on_every_position_up_to_10_seeds() {
    cross_check(Ruleset::Abapa, NaiveRules::Abapa);
}
