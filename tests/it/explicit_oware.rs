//! The explicit-graph engine against the Oware engine: every distribution of
//! up to 12 seeds over the 12 pits, both rulesets, values and distances. The two engines share only
//! the threshold decision rules; the explicit one generates moves forward and
//! numbers positions by stars-and-bars rank, the Oware one walks unmoves over
//! the published index.

use mancala_tb::games::oware::{self, Board, Ruleset};
use mancala_tb::index::stars_bars::{self, StarsBars};
use mancala_tb::solve::explicit::{self, Depths, Layer, MoveLists};
use mancala_tb::tablebase::Quiet;
use mancala_tb::tablebase::oware::{self as tb, OwareTablebase};

const MAX_SEEDS: usize = 12;

/// One Oware layer for the explicit engine, over the finished lower layers.
struct OwareLayer<'a> {
    rules: Ruleset,
    index: StarsBars,
    lower: &'a [(StarsBars, Vec<i8>)],
}

impl Layer for OwareLayer<'_> {
    fn size(&self) -> u64 {
        self.index.size()
    }

    fn moves(&self, first: u64, count: usize, out: &mut MoveLists) {
        let mut board: Board = [0; 12];
        self.index.unrank(first, &mut board);
        for _ in 0..count {
            out.start();
            let moves = oware::legal_moves(self.rules, &board);
            if moves.is_empty() {
                out.end(oware::no_move_value(self.rules, &board));
            }
            for mv in moves.iter() {
                if mv.captured == 0 {
                    out.child(self.index.rank(&mv.child));
                } else {
                    let (index, values) = &self.lower[self.index.seeds() - mv.captured as usize];
                    out.exit(mv.captured as i8 - values[index.rank(&mv.child) as usize]);
                }
            }
            stars_bars::next(&mut board);
        }
    }
}

fn cross_check(rules: Ruleset) {
    let dir = tempfile::tempdir().unwrap();
    tb::build(
        dir.path(),
        rules,
        &tb::BuildOptions::new(MAX_SEEDS, 4 << 30),
        &Quiet,
    )
    .unwrap();
    let tables = OwareTablebase::open(dir.path(), rules).unwrap();
    let mut layers: Vec<(StarsBars, Vec<i8>)> = Vec::new();
    for seeds in 0..=MAX_SEEDS {
        let index = StarsBars::new(12, seeds).unwrap();
        let layer = OwareLayer {
            rules,
            index: index.clone(),
            lower: &layers,
        };
        let solved = explicit::solve(&layer, Depths::With, &|_| {}).unwrap();
        let depths = solved.depths.as_ref().unwrap();
        let mut board: Board = [0; 12];
        board[0] = seeds as u8;
        let mut nonzero = 0;
        for (rank, &value) in solved.values.iter().enumerate() {
            assert_eq!(index.rank(&board), rank as u64);
            assert_eq!(
                tables.value(&board).unwrap(),
                value,
                "{rules}: {board:?} ({seeds} seeds)"
            );
            // The distance to the capture that secures the value: the
            // explicit engine's resolving round against the Oware
            // engine's distance table.
            assert_eq!(
                tables.distance(&board).unwrap(),
                Some(depths[rank]),
                "{rules}: {board:?} ({seeds} seeds), value {value}"
            );
            nonzero += usize::from(value != 0);
            stars_bars::next(&mut board);
        }
        // The comparison is not vacuous: most positions are decided.
        if seeds >= 2 {
            assert!(nonzero * 2 > solved.values.len(), "layer {seeds}");
        }
        layers.push((index, solved.values));
    }
    assert_eq!(layers[MAX_SEEDS].1.len(), 1_352_078);
}

#[test]
fn awari_explicit_engine_matches_the_oware_engine_up_to_12_seeds() {
    cross_check(Ruleset::Awari);
}

#[test]
fn abapa_explicit_engine_matches_the_oware_engine_up_to_12_seeds() {
    cross_check(Ruleset::Abapa);
}
