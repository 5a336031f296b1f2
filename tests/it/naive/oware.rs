//! A deliberately simple, independent Oware solver, written straight from
//! `docs/rules.md` ("Common conventions" and "Oware / Awari"). It exists only to
//! cross-check the real retrograde engine in tests, so it favours obviously
//! correct code over speed and shares no code with `src/`.

use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NaiveRules {
    Awari,
    Abapa,
}

/// Pits 0..=5 belong to the mover, 6..=11 to the opponent.
pub type Board = [u8; 12];

pub fn mover_seeds(board: &Board) -> usize {
    board[..6].iter().map(|&s| s as usize).sum()
}

pub fn opponent_seeds(board: &Board) -> usize {
    board[6..].iter().map(|&s| s as usize).sum()
}

/// The same board seen from the other player: their pits become 0..=5.
pub fn rotate(board: &Board) -> Board {
    std::array::from_fn(|j| board[(j + 6) % 12])
}

/// Lifts all seeds of `pit` and sows them one by one counter-clockwise,
/// never dropping one into the origin pit. Returns the board and the pit
/// that received the last seed.
fn sow(board: &Board, pit: usize) -> (Board, usize) {
    let mut b = *board;
    let mut seeds = b[pit];
    b[pit] = 0;
    let mut pos = pit;
    while seeds > 0 {
        pos = (pos + 1) % 12;
        if pos == pit {
            continue; // the origin is skipped on every lap (only matters for >= 12 seeds)
        }
        b[pos] += 1;
        seeds -= 1;
    }
    (b, pos)
}

/// Captures 2s and 3s from the last pit backwards (clockwise) while they are
/// opponent pits. Returns the seeds captured and the board afterwards.
fn capture(board: &Board, last: usize) -> (u8, Board) {
    let mut b = *board;
    let mut pos = last;
    let mut captured = 0;
    while pos >= 6 && (b[pos] == 2 || b[pos] == 3) {
        captured += b[pos];
        b[pos] = 0;
        pos -= 1; // from pit 6 this reaches the mover's pit 5 and stops
    }
    (captured, b)
}

/// The legal moves: (pit, seeds captured, child seen from the new mover).
/// Empty exactly when the game is over (see `terminal_value`).
pub fn moves(rules: NaiveRules, board: &Board) -> Vec<(usize, u8, Board)> {
    let opponent_was_empty = opponent_seeds(board) == 0;
    // Every sowing move with its outcome, seen from the old mover.
    let mut all = Vec::new();
    for pit in 0..6 {
        if board[pit] == 0 {
            continue;
        }
        let (sown, last) = sow(board, pit);
        let (mut captured, mut after) = capture(&sown, last);
        if rules == NaiveRules::Abapa && captured > 0 && opponent_seeds(&after) == 0 {
            // Grand slam: the capture is cancelled, the move stays legal.
            captured = 0;
            after = sown;
        }
        all.push((pit, captured, after));
    }
    match rules {
        NaiveRules::Awari => {
            // A move leaving the opponent seedless is legal only if all moves do.
            if !all.iter().all(|m| opponent_seeds(&m.2) == 0) {
                all.retain(|m| opponent_seeds(&m.2) > 0);
            }
        }
        NaiveRules::Abapa => {
            // Feeding: an opponent without seeds must be given at least one.
            if opponent_was_empty {
                all.retain(|m| opponent_seeds(&m.2) > 0);
            }
        }
    }
    all.into_iter()
        .map(|(pit, captured, after)| (pit, captured, rotate(&after)))
        .collect()
}

/// The value of a position without legal moves.
pub fn terminal_value(rules: NaiveRules, board: &Board) -> i8 {
    let n = (mover_seeds(board) + opponent_seeds(board)) as i8;
    if mover_seeds(board) == 0 {
        -n // both rulesets: the opponent takes everything
    } else {
        // Only abapa can leave a mover with seeds stuck: nobody can feed.
        assert_eq!(
            rules,
            NaiveRules::Abapa,
            "awari mover with seeds must have a move"
        );
        n
    }
}

/// Every distribution of `n` seeds over the 12 pits.
pub fn all_boards(n: usize) -> Vec<Board> {
    fn fill(b: &mut Board, pit: usize, left: u8, out: &mut Vec<Board>) {
        if pit == 11 {
            b[11] = left;
            out.push(*b);
            return;
        }
        for k in 0..=left {
            b[pit] = k;
            fill(b, pit + 1, left - k, out);
        }
    }
    let mut out = Vec::new();
    fill(&mut [0; 12], 0, n as u8, &mut out);
    out
}

/// `layers[n]` maps every position with `n` seeds to its perfect-play value.
pub fn solve(rules: NaiveRules, max_seeds: usize) -> Vec<HashMap<Board, i8>> {
    let mut layers = Vec::new();
    for n in 0..=max_seeds {
        let layer = solve_layer(rules, n, &layers);
        layers.push(layer);
    }
    layers
}

/// Where a move leads: a capture leaves the layer with a known score for the
/// mover; a non-capturing move stays in the layer.
enum Succ {
    Exit(i8),
    Inner(usize),
}

fn solve_layer(rules: NaiveRules, n: usize, lower: &[HashMap<Board, i8>]) -> HashMap<Board, i8> {
    let positions = all_boards(n);
    let index: HashMap<Board, usize> = positions.iter().enumerate().map(|(i, b)| (*b, i)).collect();
    let mut terminal = vec![None; positions.len()];
    let mut succs = Vec::with_capacity(positions.len());
    for (i, b) in positions.iter().enumerate() {
        let ms = moves(rules, b);
        if ms.is_empty() {
            terminal[i] = Some(terminal_value(rules, b));
        }
        let list: Vec<Succ> = ms
            .into_iter()
            .map(|(_, cap, child)| match cap {
                0 => Succ::Inner(index[&child]),
                _ => Succ::Exit(cap as i8 - lower[n - cap as usize][&child]),
            })
            .collect();
        succs.push(list);
    }

    // For t = n..1: win = mover can force a result >= t in finitely many
    // moves, lose = the opponent can force the mover's result <= -t. Both are
    // least fixed points, reached by sweeping until nothing changes. Values
    // never in any set are 0 (perpetual play or an even split).
    let mut value = vec![0i8; positions.len()];
    for t in (1..=n as i8).rev() {
        let mut win = vec![false; positions.len()];
        let mut lose = vec![false; positions.len()];
        loop {
            let mut changed = false;
            for i in 0..positions.len() {
                let (w, l) = match terminal[i] {
                    Some(v) => (v >= t, v <= -t),
                    None => (
                        succs[i].iter().any(|s| match *s {
                            Succ::Exit(v) => v >= t,
                            Succ::Inner(c) => lose[c],
                        }),
                        succs[i].iter().all(|s| match *s {
                            Succ::Exit(v) => v <= -t,
                            Succ::Inner(c) => win[c],
                        }),
                    ),
                };
                if w && !win[i] {
                    win[i] = true;
                    changed = true;
                }
                if l && !lose[i] {
                    lose[i] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        for i in 0..positions.len() {
            assert!(!(win[i] && lose[i]));
            if value[i] == 0 && win[i] {
                value[i] = t; // the largest t with a forced win is the value
            }
            if value[i] == 0 && lose[i] {
                value[i] = -t;
            }
        }
    }
    positions.into_iter().zip(value).collect()
}

/// `distances[n]` maps every position with `n` seeds to the moves to the
/// capture (or the end of the game) that secures its value when both sides
/// keep it, the side ahead taking the fewest and the side behind the most:
/// 0 for a draw and a finished game, 1 for a value-keeping capture, one more
/// than the child's for a value-keeping non-capturing move. Found by
/// sweeping to a fixed point from "unknown" (the distances within 1, 2, …
/// moves are right after as many sweeps), from the values of `layers`.
pub fn distances(rules: NaiveRules, layers: &[HashMap<Board, i8>]) -> Vec<HashMap<Board, u16>> {
    const UNKNOWN: u16 = u16::MAX;
    let mut out = Vec::new();
    for (n, layer) in layers.iter().enumerate() {
        let positions = all_boards(n);
        let index: HashMap<Board, usize> =
            positions.iter().enumerate().map(|(i, b)| (*b, i)).collect();
        let values: Vec<i8> = positions.iter().map(|b| layer[b]).collect();
        // Each position's value-keeping moves: `None` a capture, else the child.
        let keeping: Vec<Vec<Option<usize>>> = positions
            .iter()
            .zip(&values)
            .map(|(b, &v)| {
                moves(rules, b)
                    .into_iter()
                    .filter(|&(_, cap, child)| match cap {
                        0 => -layer[&child] == v,
                        _ => cap as i8 - layers[n - cap as usize][&child] == v,
                    })
                    .map(|(_, cap, child)| (cap == 0).then(|| index[&child]))
                    .collect()
            })
            .collect();
        let mut d: Vec<u16> = positions
            .iter()
            .zip(&values)
            .map(|(b, &v)| {
                if v == 0 || moves(rules, b).is_empty() {
                    0
                } else {
                    UNKNOWN
                }
            })
            .collect();
        loop {
            let next: Vec<u16> = (0..positions.len())
                .map(|i| {
                    if d[i] == 0 {
                        return 0;
                    }
                    let via = |m: &Option<usize>| match *m {
                        None => 1,
                        Some(c) if d[c] == UNKNOWN => UNKNOWN,
                        Some(c) => d[c] + 1,
                    };
                    let found = keeping[i].iter().map(via);
                    let best = if values[i] > 0 {
                        found.min()
                    } else {
                        found.max()
                    };
                    best.unwrap_or(UNKNOWN)
                })
                .collect();
            if next == d {
                break;
            }
            d = next;
        }
        assert!(
            d.iter().all(|&x| x != UNKNOWN),
            "layer {n}: a value no line keeps"
        );
        out.push(positions.into_iter().zip(d).collect());
    }
    out
}
