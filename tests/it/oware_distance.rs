//! The promise of the distance tables: from every position of layers
//! 0..=14, both rulesets, the line of best moves (`best_move`, as the
//! principal variation and `play` choose them), followed to the end of the
//! game or to a repetition, wins exactly the position's value.
//!
//! Lines are followed over decoded layers, each position's line once: a
//! line inside a layer is quiet moves, so it scores what ends it (a capture,
//! whose lower layer is checked first, the end of the game, or a repetition,
//! worth 0), with the sign of whoever moves there.

use mancala_tb::games::oware::{self, Ruleset};
use mancala_tb::index::oware as index;
use mancala_tb::table::Table;
use mancala_tb::tablebase::Quiet;
use mancala_tb::tablebase::oware::{self as tb, MoveValue, best_move, distance_path};

const MAX_SEEDS: usize = 14;

fn lines_reach_their_values(rules: Ruleset) {
    let dir = tempfile::tempdir().unwrap();
    tb::build(
        dir.path(),
        rules,
        &tb::BuildOptions::new(MAX_SEEDS, 4 << 30),
        &Quiet,
    )
    .unwrap();
    let mut values: Vec<Vec<i8>> = Vec::new();
    tb::decode_layers(dir.path(), rules, MAX_SEEDS, |_, layer| {
        values.push(layer.to_vec());
        Ok(())
    })
    .unwrap();
    let folder = tb::ruleset_dir(dir.path(), rules);
    let distances: Vec<Vec<i16>> = (0..=MAX_SEEDS)
        .map(|s| {
            Table::open(distance_path(&folder, s))
                .unwrap()
                .decode_all_wide()
                .unwrap()
        })
        .collect();
    for seeds in 0..=MAX_SEEDS {
        let size = index::layer_size(seeds) as usize;
        // What the line from each position wins for its mover, once known.
        let mut won: Vec<Option<i32>> = vec![None; size];
        for start in 0..size {
            let mut path = Vec::new();
            let mut rank = start;
            let end = loop {
                if let Some(w) = won[rank] {
                    // A child whose line is known: the opponent's gain.
                    break -w;
                }
                if path.contains(&rank) {
                    break 0;
                }
                path.push(rank);
                let board = index::unrank(seeds, rank as u64);
                let moves: Vec<MoveValue> = oware::legal_moves(rules, &board)
                    .iter()
                    .map(|mv| {
                        let rest = seeds - mv.captured as usize;
                        let child = index::rank_indexed(&mv.child, rest) as usize;
                        MoveValue {
                            pit: mv.pit,
                            captured: mv.captured,
                            child: mv.child,
                            value: mv.captured as i8 - values[rest][child],
                            distance: Some(match mv.captured {
                                0 => distances[rest][child] as u16 + 1,
                                _ => 1,
                            }),
                        }
                    })
                    .collect();
                let Some(best) = best_move(&moves) else {
                    break i32::from(oware::no_move_value(rules, &board));
                };
                // The best move keeps the position's distance: each quiet
                // step of a line brings its capture one move nearer.
                if values[seeds][rank] != 0 {
                    let distance = distances[seeds][rank] as u16;
                    assert_eq!(best.distance, Some(distance), "{rules}: {board:?}");
                }
                if best.captured > 0 {
                    // The lower layer's lines win their values (checked).
                    break i32::from(best.value);
                }
                rank = index::rank_indexed(&best.child, seeds) as usize;
            };
            // `end` is what the line from the last position of `path` wins
            // for its mover (0 from a repetition on); each earlier one is a
            // quiet move away.
            let mut w = end;
            for &rank in path.iter().rev() {
                won[rank].get_or_insert(w);
                w = -w;
            }
        }
        for (rank, w) in won.iter().enumerate() {
            assert_eq!(
                *w,
                Some(i32::from(values[seeds][rank])),
                "{rules}: the line from {:?} ({seeds} seeds) does not win its value",
                index::unrank(seeds, rank as u64)
            );
        }
    }
}

#[test]
fn awari_lines_reach_their_values_from_every_position_up_to_14_seeds() {
    lines_reach_their_values(Ruleset::Awari);
}

#[test]
fn abapa_lines_reach_their_values_from_every_position_up_to_14_seeds() {
    lines_reach_their_values(Ruleset::Abapa);
}
