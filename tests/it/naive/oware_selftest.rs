//! Tests of the naive Oware solver itself, against values worked out by hand
//! from docs/rules.md. Boards are written from the mover's view: pits 0..=5 are
//! the mover's, 6..=11 the opponent's, and a child is seen from the new mover
//! (the board rotated by 6).

use super::oware::{NaiveRules, all_boards, moves, opponent_seeds, solve, terminal_value};
use std::collections::HashMap;
use std::sync::OnceLock;

use NaiveRules::{Abapa, Awari};

/// Whole layers checked by the layer-wide tests (kept small for a fast suite).
const N: usize = 8;

fn layers(rules: NaiveRules) -> &'static [HashMap<[u8; 12], i8>] {
    static AWARI: OnceLock<Vec<HashMap<[u8; 12], i8>>> = OnceLock::new();
    static ABAPA: OnceLock<Vec<HashMap<[u8; 12], i8>>> = OnceLock::new();
    let cell = if rules == Awari { &AWARI } else { &ABAPA };
    cell.get_or_init(|| solve(rules, N))
}

fn value(rules: NaiveRules, board: [u8; 12]) -> i8 {
    let n: usize = board.iter().map(|&s| s as usize).sum();
    layers(rules)[n][&board]
}

fn b(mover: [u8; 6], opponent: [u8; 6]) -> [u8; 12] {
    std::array::from_fn(|i| if i < 6 { mover[i] } else { opponent[i - 6] })
}

fn binomial(n: u64, k: u64) -> u64 {
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

#[test]
fn layer_sizes_are_binomial() {
    for rules in [Awari, Abapa] {
        for n in 0..=N {
            // Distributions of n identical seeds over 12 pits: C(n+11, 11).
            let expected = binomial(n as u64 + 11, 11) as usize;
            assert_eq!(layers(rules)[n].len(), expected, "{rules:?} n={n}");
            assert_eq!(all_boards(n).len(), expected);
        }
    }
    assert_eq!(binomial(21, 11), 352_716);
}

#[test]
fn empty_board_is_zero() {
    // Nobody has anything left to capture.
    for rules in [Awari, Abapa] {
        assert_eq!(value(rules, [0; 12]), 0);
        assert!(moves(rules, &[0; 12]).is_empty());
    }
}

#[test]
fn one_seed() {
    for rules in [Awari, Abapa] {
        for pit in 0..12 {
            let mut board = [0; 12];
            board[pit] = 1;
            let expected = match pit {
                // The seed is the opponent's: the mover has none, v = -1.
                6.. => -1,
                // Pit 5 sows into opponent pit 6 (1 seed, no capture). The
                // opponent now holds the only seed in its pit 0, and its one
                // move keeps it on its own side, so we are seedless: in awari
                // it is the only move so it is legal and we then lose the seed;
                // in abapa the opponent cannot feed us and takes the seed.
                // Either way the opponent scores +1, so v = -1.
                5 => -1,
                // Pits 0..=4 sow within the mover's side. Awari: the only move
                // leaves the opponent seedless, so it is legal, and the seedless
                // opponent then loses the seed: +1. Abapa: the opponent is
                // empty and cannot be fed, so the mover takes the seed: +1.
                _ => 1,
            };
            assert_eq!(value(rules, board), expected, "{rules:?} pit {pit}");
        }
    }
}

#[test]
fn mover_without_seeds_loses_everything() {
    // Both rulesets: a seedless mover cannot move; the opponent takes all, v = -n.
    for rules in [Awari, Abapa] {
        assert_eq!(value(rules, b([0; 6], [1, 2, 3, 0, 0, 0])), -6);
        for (n, layer) in layers(rules).iter().enumerate() {
            for (board, &v) in layer {
                if board[..6].iter().all(|&s| s == 0) {
                    assert_eq!(v, -(n as i8), "{rules:?} {board:?}");
                }
            }
        }
    }
}

#[test]
fn abapa_opponent_empty_and_no_move_feeds() {
    // Pit 0 (1 seed) reaches pit 1 and pit 1 (1 seed) reaches pit 2: neither
    // feeds the empty opponent, so the mover takes both seeds: +2.
    let board = b([1, 1, 0, 0, 0, 0], [0; 6]);
    assert!(moves(Abapa, &board).is_empty());
    assert_eq!(terminal_value(Abapa, &board), 2);
    assert_eq!(value(Abapa, board), 2);
    // Awari: every move leaves the opponent empty, so both are legal, and
    // then the seedless opponent loses both seeds: also +2.
    assert_eq!(moves(Awari, &board).len(), 2);
    assert_eq!(value(Awari, board), 2);
    // Layer-wide: an empty opponent and no pit i with i + seeds >= 6 means no
    // move can reach pit 6, so v = +n (the mover has seeds since n > 0).
    for (n, layer) in layers(Abapa).iter().enumerate().skip(1) {
        for (board, &v) in layer {
            let stuck = (0..6).all(|i| i + (board[i] as usize) < 6);
            if opponent_seeds(board) == 0 && stuck {
                assert_eq!(v, n as i8, "{board:?}");
            }
        }
    }
}

#[test]
fn grand_slam() {
    // Pit 5 sows its seed into pit 6, making 2: that takes every opponent seed.
    let board = b([0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0]);
    // Abapa: the grand slam is cancelled; the move captures nothing. The new
    // mover then holds 2 seeds in its pit 0 and must feed us, but sowing pit 0
    // reaches only its pits 1 and 2, so it takes both seeds: v = 0 - 2 = -2.
    assert_eq!(
        moves(Abapa, &board),
        vec![(5, 0, b([2, 0, 0, 0, 0, 0], [0; 6]))]
    );
    assert_eq!(value(Abapa, board), -2);
    // Awari: it is the only move, so leaving the opponent empty is legal and
    // the capture happens: 2 seeds, board empty, v = 2 - 0 = 2.
    assert_eq!(moves(Awari, &board), vec![(5, 2, [0; 12])]);
    assert_eq!(value(Awari, board), 2);
}

#[test]
fn awari_every_move_empties_opponent() {
    // Pit 4 (2 seeds) sows pits 5 and 6; pit 5 (1 seed) sows pit 6. Both make
    // pit 6 hold 2 and capture it, leaving the opponent empty. Since every
    // move does so, both are legal; each captures 2 and leaves the new mover
    // seedless with 2 seeds on our side (child value -2): v = 2 + 2 = 4.
    let board = b([0, 0, 0, 0, 2, 1], [1, 0, 0, 0, 0, 0]);
    let ms = moves(Awari, &board);
    assert_eq!(
        ms,
        vec![
            (4, 2, b([0; 6], [0, 0, 0, 0, 0, 2])),
            (5, 2, b([0; 6], [0, 0, 0, 0, 2, 0])),
        ]
    );
    assert_eq!(value(Awari, board), 4);
}

#[test]
fn awari_emptying_move_illegal_when_another_exists() {
    // Pit 5 would capture the opponent's only seeds; pit 3 leaves them alone,
    // so in awari only pit 3 is legal. In abapa the grand slam is cancelled
    // instead and both moves are legal, capturing nothing.
    let board = b([0, 0, 0, 1, 0, 1], [1, 0, 0, 0, 0, 0]);
    let awari: Vec<usize> = moves(Awari, &board).iter().map(|m| m.0).collect();
    assert_eq!(awari, vec![3]);
    let abapa: Vec<(usize, u8)> = moves(Abapa, &board).iter().map(|m| (m.0, m.1)).collect();
    assert_eq!(abapa, vec![(3, 0), (5, 0)]);
}

#[test]
fn chained_captures() {
    for rules in [Awari, Abapa] {
        // Pit 5 (3 seeds) makes pits 6, 7, 8 hold 2, 3, 2. The last seed is in
        // pit 8: capture 2, then pit 7 (3), then pit 6 (2), then pit 5 is ours:
        // stop. 7 captured; pit 11 keeps its seed (no grand slam, not empty).
        let board = b([0, 0, 0, 0, 0, 3], [1, 2, 1, 0, 0, 1]);
        let ms = moves(rules, &board);
        assert_eq!(ms, vec![(5, 7, b([0, 0, 0, 0, 0, 1], [0; 6]))]);
        // Child: 1 seed in the new mover's pit 5, worth -1 (see one_seed), so
        // v = 7 - (-1) = 8.
        assert_eq!(value(rules, board), 8);

        // Pit 5 (4 seeds) makes pits 6..=9 hold 2, 1, 2, 3. Capture pit 9 (3)
        // and pit 8 (2); pit 7 holds 1, so the chain stops and pit 6 keeps 2.
        let board = b([0, 0, 0, 0, 0, 4], [1, 0, 1, 2, 0, 0]);
        let ms = moves(rules, &board);
        assert_eq!(ms, vec![(5, 5, b([2, 1, 0, 0, 0, 0], [0; 6]))]);

        // Pit 4 (3 seeds) makes pit 5 hold 2 and pits 6, 7 hold 2 each. Capture
        // pits 7 and 6; pit 5 holds 2 but is ours, so the chain stops.
        let board = b([0, 0, 0, 0, 3, 1], [1, 1, 0, 0, 0, 1]);
        let ms: Vec<_> = moves(rules, &board)
            .into_iter()
            .filter(|m| m.0 == 4)
            .collect();
        assert_eq!(ms, vec![(4, 4, b([0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 2]))]);

        // No capture when the last pit ends with 4, or is one of ours.
        let board = b([0, 0, 0, 0, 0, 1], [3, 1, 0, 0, 0, 0]);
        assert_eq!(moves(rules, &board)[0].1, 0);
        let board = b([1, 1, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0]);
        assert_eq!(
            moves(rules, &board)[0],
            (0, 0, b([1, 0, 0, 0, 0, 0], [0, 2, 0, 0, 0, 0]))
        );

        // Capture then a lower-layer value: pit 5 makes pit 6 hold 2, capture
        // 2 (pit 11 keeps 1); the child has 1 seed in the new mover's pit 5,
        // worth -1, so v = 2 + 1 = 3 = n.
        assert_eq!(value(rules, b([0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 1])), 3);
    }
}

#[test]
fn sowing_twelve_or_more_skips_origin() {
    for rules in [Awari, Abapa] {
        // 12 seeds from pit 0: pits 1..=11 get one each, pit 0 is skipped, the
        // 12th goes to pit 1 (ours): no capture.
        let board = b([12, 0, 0, 0, 0, 0], [0; 6]);
        let child = b([1; 6], [0, 2, 1, 1, 1, 1]);
        assert_eq!(moves(rules, &board), vec![(0, 0, child)]);

        // 12 seeds from pit 5: pits 6..=11 and 0..=4 get one, pit 5 is skipped,
        // the 12th lands in pit 6, making 2: captured; pits 7..=11 keep 1.
        let board = b([0, 0, 0, 0, 0, 12], [0; 6]);
        let child = b([0, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 0]);
        assert_eq!(moves(rules, &board), vec![(5, 2, child)]);
    }
    // 17 seeds from pit 5: one lap of 11, then 6 more into pits 6..=11, which
    // all hold 2; the last is pit 11 and the chain takes all 12 opponent seeds.
    let board = b([0, 0, 0, 0, 0, 17], [0; 6]);
    // Awari: the only move, so legal; the new mover is seedless with 5 seeds
    // left, worth -5 to them: v = 12 + 5 = 17.
    let ms = moves(Awari, &board);
    assert_eq!(ms, vec![(5, 12, b([0; 6], [1, 1, 1, 1, 1, 0]))]);
    assert_eq!(12 - terminal_value(Awari, &ms[0].2), 17);
    // Abapa: a grand slam, cancelled.
    let ms = moves(Abapa, &board);
    assert_eq!(ms, vec![(5, 0, b([2; 6], [1, 1, 1, 1, 1, 0]))]);
}

#[test]
fn forced_lines_with_two_seeds() {
    for rules in [Awari, Abapa] {
        // Pit 5 (2 seeds) sows pits 6 and 7. The new mover has 1 + 1 seeds in
        // its pits 0 and 1, we have none; neither of its moves gives us one,
        // so (awari: all moves empty us, legal; abapa: it cannot feed) it takes
        // both: v = -2.
        assert_eq!(value(rules, b([0, 0, 0, 0, 0, 2], [0; 6])), -2);
        // [0,0,0,0,1,1 | 0..]: only pit 5 gives the empty opponent a seed, so
        // it is forced (in both rulesets), as is every move after it: B 0->1,
        // A 4->5, B 1->2, A 5->B's pit 0. Now B holds both seeds (pits 0 and
        // 2) and we hold none; B cannot give us one and takes both: v = -2.
        assert_eq!(value(rules, b([0, 0, 0, 0, 1, 1], [0; 6])), -2);
    }
}

#[test]
fn forced_cycle_is_perpetual_zero() {
    // One seed each, both in pit 0. Every move is forced: the seeds walk up to
    // pit 5, A sows into B's pit 0, then B (holding 2, A holding none) must
    // give A a seed, so B plays pit 5 (awari: pit 0 would leave A empty while
    // pit 5 does not; abapa: feeding) and the start recurs with no capture.
    // Any value satisfies v = -(-v) around a cycle; perpetual play scores 0.
    for rules in [Awari, Abapa] {
        let start = b([1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0]);
        let mut board = start;
        for step in 1..=20 {
            let ms = moves(rules, &board);
            assert_eq!(ms.len(), 1, "{rules:?} {board:?}");
            assert_eq!(ms[0].1, 0);
            assert_eq!(value(rules, board), 0);
            board = ms[0].2;
            if board == start {
                assert_eq!(step, 12); // 5 + 5 walking steps, then 2 crossings
                break;
            }
        }
        assert_eq!(board, start);
    }
}

#[test]
fn layers_satisfy_the_value_equation() {
    // Every value lies in [-n, n] and equals max over moves of
    // (captured - value(child)), or the terminal value when there is no move.
    for rules in [Awari, Abapa] {
        let layers = layers(rules);
        for (n, layer) in layers.iter().enumerate() {
            for (board, &v) in layer {
                assert!((-(n as i8)..=n as i8).contains(&v));
                let ms = moves(rules, board);
                let expected = if ms.is_empty() {
                    terminal_value(rules, board)
                } else {
                    let best = ms
                        .iter()
                        .map(|&(_, cap, child)| cap as i8 - layers[n - cap as usize][&child]);
                    best.max().unwrap()
                };
                assert_eq!(v, expected, "{rules:?} {board:?}");
            }
        }
    }
}

#[test]
fn small_layer_histograms() {
    // Layer 1 by hand (see one_seed): pits 0..=4 are +1, the other 7 are -1.
    for rules in [Awari, Abapa] {
        let mut hist = HashMap::new();
        for &v in layers(rules)[1].values() {
            *hist.entry(v).or_insert(0) += 1;
        }
        assert_eq!(hist, HashMap::from([(1, 5), (-1, 7)]));
    }
}
