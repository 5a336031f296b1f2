//! One hand-checked position per rule clause of docs/rules.md, section Omweso.
//!
//! Numbering reminder for W = 4: mover pits 0..=3 are the outer row (columns
//! 0..=3), 4..=7 the inner row (pit 4 is column 3, pit 7 column 0). The
//! mover's inner pit p faces the opponent's inner pit 11 − p and outer pit
//! p − 4 (opponent numbering; board index 8 + j). Leftmost pits: 0, 1, 6, 7.

use mancala_tb::games::omweso::game::{Game, GameMove, History, Match, Status};
use mancala_tb::games::omweso::{
    Dedup, Endless, MoveGen, OmwesoError, Outcome, Position, Reverse, Rules, WinKind,
};
use mancala_tb::games::relay::{Choice, Dir};

fn pos(width: usize, mover: &[u32], opponent: &[u32]) -> Position {
    Position::new(width, &[mover, opponent].concat()).unwrap()
}

/// (path, after, captured, win, laps, sown) of every legal move.
type Listed = (Vec<Choice>, Vec<u8>, bool, Option<WinKind>, u64, u64);

fn moves(p: &Position, rules: &Rules, captures: bool) -> Vec<Listed> {
    let mut movegen = MoveGen::new();
    movegen.generate(p, rules, captures, Dedup::Position);
    movegen
        .legal()
        .map(|m| match m.outcome {
            Outcome::Ends {
                after,
                captured,
                win,
            } => (
                movegen.path(m).to_vec(),
                after.pits().to_vec(),
                captured,
                win,
                m.laps,
                m.sown,
            ),
            Outcome::NeverEnds(c) => panic!("unexpected never-ending move {c:?}"),
        })
        .collect()
}

fn start(pit: usize, dir: Dir) -> Choice {
    Choice { lap: 0, pit, dir }
}

fn board(mover: &[u8], opponent: &[u8]) -> Vec<u8> {
    [mover, opponent].concat()
}

#[test]
fn rule1_singletons_cannot_be_played() {
    // Only pit 2 holds two seeds: it sows into 3 and 4; 4 was empty.
    let p = pos(4, &[1, 1, 2, 0, 0, 0, 0, 0], &[0, 0, 0, 0, 0, 0, 0, 0]);
    let listed = moves(&p, &Rules::default(), true);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].0, vec![start(2, Dir::Ccw)]);
    assert_eq!(listed[0].1, board(&[1, 1, 0, 1, 1, 0, 0, 0], &[0; 8]));
    // Singletons only: no move at all.
    let stuck = pos(4, &[1, 1, 1, 0, 0, 0, 0, 1], &[3, 0, 0, 0, 0, 0, 0, 0]);
    assert!(!stuck.has_move());
    assert!(moves(&stuck, &Rules::default(), true).is_empty());
}

#[test]
fn rule1_sowing_stays_on_own_side_and_passes_the_start_pit() {
    // W = 2, 4 pits a side. Pit 3 has 5 seeds: 0, 1, 2, 3, 0. Pit 0 then
    // holds 2 (occupied: relay, outer row), sows 1 and 2; pit 2 (inner) is
    // occupied but the opponent is empty: relay 2 seeds into 3 and 0; pit 0
    // is empty again, so the move ends. The opponent's pits are untouched.
    let p = pos(2, &[0, 0, 0, 5], &[0, 0, 0, 0]);
    let listed = moves(&p, &Rules::default(), true);
    assert_eq!(listed.len(), 1);
    let (_, after, captured, _, laps, sown) = &listed[0];
    assert_eq!(after, &board(&[1, 2, 0, 2], &[0, 0, 0, 0]));
    assert!(!captured);
    assert_eq!((*laps, *sown), (3, 9));
}

#[test]
fn rule2_relay_from_the_standard_setup() {
    // W = 8, 4 seeds in each outer pit. Pit 0 sows 1..=4; pit 4 had seeds
    // (outer row: relay) and its 5 seeds go to 5, 6, 7, 8, 9; pit 9 was
    // empty. Two laps, nine seeds.
    let p = Position::setup(8, 4).unwrap();
    let listed = moves(&p, &Rules::default(), true);
    let from0 = listed
        .iter()
        .find(|m| m.0 == vec![start(0, Dir::Ccw)])
        .unwrap();
    let mut mover = [0u8; 16];
    mover[..8].copy_from_slice(&[0, 5, 5, 5, 0, 5, 5, 5]);
    mover[8] = 1;
    mover[9] = 1;
    assert_eq!(
        from0.1,
        board(&mover, &[4, 4, 4, 4, 4, 4, 4, 4, 0, 0, 0, 0, 0, 0, 0, 0])
    );
    assert_eq!((from0.4, from0.5), (2, 9));
    // Every outer pit can start; 4..=7 sow one lap into the empty inner row.
    assert_eq!(listed.len(), 8);
}

#[test]
fn rule3_capture_is_resown_from_the_lap_start() {
    // Pit 2 sows 3 and 4; pit 4 (inner, column 3) had a seed and faces the
    // opponent's inner 7 (2 seeds) and outer 0 (3 seeds): 5 captured. They
    // are sown from pit 2 again: 3, 4, 5, 6, 7; pit 7 was empty.
    let p = pos(4, &[0, 0, 2, 0, 1, 0, 0, 0], &[3, 0, 2, 0, 0, 1, 1, 2]);
    let listed = moves(&p, &Rules::default(), true);
    assert_eq!(listed.len(), 1);
    let (_, after, captured, win, laps, sown) = &listed[0];
    assert_eq!(
        after,
        &board(&[0, 0, 0, 2, 3, 1, 1, 1], &[0, 0, 2, 0, 0, 1, 1, 0])
    );
    assert!(captured);
    // Opponent keeps an inner seed and a pit of 2: no win.
    assert_eq!(*win, None);
    assert_eq!((*laps, *sown), (2, 7));
}

#[test]
fn rule3_needs_both_facing_pits() {
    // As above but the opponent's outer 0 is empty: no capture, pit 4 relays
    // its 2 seeds into 5 and 6, and 6 was empty.
    let p = pos(4, &[0, 0, 2, 0, 1, 0, 0, 0], &[0, 0, 2, 0, 0, 1, 1, 2]);
    let listed = moves(&p, &Rules::default(), true);
    assert_eq!(listed.len(), 1);
    assert_eq!(
        listed[0].1,
        board(&[0, 0, 0, 1, 0, 1, 1, 0], &[0, 0, 2, 0, 0, 1, 1, 2])
    );
    assert!(!listed[0].2);
}

#[test]
fn rule3_resown_lap_captures_again_then_relays() {
    // Pit 2 → 3, 4: capture at 4 (opponent inner 7 = 2, outer 0 = 3): 5
    // seeds from pit 2 → 3..=7; pit 7 had a seed and faces the opponent's
    // inner 4 and outer 3: 2 more captured, sown from pit 2 → 3, 4. Pit 4
    // (now 4 seeds) faces emptied pits: relay 4 → 5, 6, 7, 0; pit 0 empty.
    // Both end columns were captured: okutema by the four corners.
    let p = pos(4, &[0, 0, 2, 0, 1, 0, 0, 1], &[3, 0, 0, 1, 1, 1, 0, 2]);
    let listed = moves(&p, &Rules::default(), true);
    assert_eq!(listed.len(), 1);
    let (_, after, captured, win, laps, sown) = &listed[0];
    assert_eq!(
        after,
        &board(&[1, 0, 0, 3, 0, 2, 2, 3], &[0, 0, 0, 0, 0, 1, 0, 0])
    );
    assert!(captured);
    assert_eq!(*win, Some(WinKind::Okutema));
    assert_eq!((*laps, *sown), (4, 13));
}

#[test]
fn rule4_reverse_lap_only_when_it_captures_directly() {
    // Pit 1 (leftmost) with 2 seeds. Counter-clockwise: 2, 3, ends.
    // Clockwise: 0, 7; pit 7 had a seed and faces the opponent's inner 4
    // (1) and outer 3 (2): 3 captured, re-sown from pit 1. Clockwise again
    // would end in empty pit 6, so that lap goes 2, 3, 4 and ends.
    let p = pos(4, &[0, 2, 0, 0, 0, 0, 0, 1], &[2, 0, 0, 2, 1, 2, 0, 0]);
    let listed = moves(&p, &Rules::default(), true);
    assert_eq!(listed.len(), 2);
    let ccw = listed.iter().find(|m| m.0[0].dir == Dir::Ccw).unwrap();
    assert_eq!(
        ccw.1,
        board(&[0, 0, 1, 1, 0, 0, 0, 1], &[2, 0, 0, 2, 1, 2, 0, 0])
    );
    let cw = listed.iter().find(|m| m.0[0].dir == Dir::Cw).unwrap();
    assert_eq!(cw.0, vec![start(1, Dir::Cw)]);
    assert_eq!(
        cw.1,
        board(&[1, 0, 1, 1, 1, 0, 0, 2], &[2, 0, 0, 0, 0, 2, 0, 0])
    );
    assert_eq!((cw.2, cw.3, cw.4, cw.5), (true, None, 2, 5));

    // Without the opponent's outer 3 the clockwise lap would only relay.
    let p = pos(4, &[0, 2, 0, 0, 0, 0, 0, 1], &[2, 0, 0, 0, 1, 2, 0, 0]);
    let listed = moves(&p, &Rules::default(), true);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].0, vec![start(1, Dir::Ccw)]);
}

#[test]
fn rule4_reverse_only_from_the_four_leftmost_pits() {
    // Pit 2 is not leftmost: clockwise it would reach 1, 0, 7 and capture
    // (7 occupied, opponent inner 4 and outer 3 full), but it is not offered.
    let p = pos(4, &[0, 0, 3, 0, 0, 0, 0, 1], &[0, 0, 0, 2, 1, 2, 0, 0]);
    let listed = moves(&p, &Rules::default(), true);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].0, vec![start(2, Dir::Ccw)]);
}

#[test]
fn rule4_reverse_at_later_laps_unless_start_only() {
    // Pit 5 → 6, 7; pit 7 had 2 (inner, but the opponent's inner 4 is
    // empty): relay 3 seeds from pit 7, a leftmost pit. Counter-clockwise
    // they go to 0, 1, 2 and the move ends. Clockwise they go to 6, 5, 4;
    // pit 4 had a seed and faces the opponent's inner 7 (2) and outer 0 (2):
    // 4 captured, re-sown from pit 7 counter-clockwise (clockwise would end
    // in empty pit 3) into 0..=3. The opponent's inner row is then empty:
    // okutema.
    let p = pos(4, &[0, 0, 0, 0, 1, 2, 0, 2], &[2, 0, 0, 1, 0, 0, 0, 2]);
    let all = moves(&p, &Rules::default(), true);
    let from5: Vec<_> = all.iter().filter(|m| m.0[0].pit == 5).collect();
    assert_eq!(from5.len(), 2);
    let plain = from5.iter().find(|m| m.0[1].dir == Dir::Ccw).unwrap();
    assert_eq!(
        plain.1,
        board(&[1, 1, 1, 0, 1, 0, 1, 0], &[2, 0, 0, 1, 0, 0, 0, 2])
    );
    assert_eq!((plain.4, plain.5), (2, 5));
    let reverse = from5.iter().find(|m| m.0[1].dir == Dir::Cw).unwrap();
    assert_eq!(
        reverse.0,
        vec![
            start(5, Dir::Ccw),
            Choice {
                lap: 1,
                pit: 7,
                dir: Dir::Cw
            }
        ]
    );
    assert_eq!(
        reverse.1,
        board(&[1, 1, 1, 1, 2, 1, 2, 0], &[0, 0, 0, 1, 0, 0, 0, 0])
    );
    assert_eq!((reverse.2, reverse.3), (true, Some(WinKind::Okutema)));
    assert_eq!((reverse.4, reverse.5), (3, 9));

    let start_only = Rules {
        reverse: Reverse::StartOnly,
        ..Rules::default()
    };
    let listed = moves(&p, &start_only, true);
    let from5: Vec<_> = listed.iter().filter(|m| m.0[0].pit == 5).collect();
    assert_eq!(from5.len(), 1);
    assert_eq!(from5[0].1, plain.1);
    // Pit 7 itself: clockwise would land in pit 5 whose facing pits are
    // empty, so both rulesets offer only counter-clockwise from 7.
    assert_eq!(all.len(), 3);
    assert_eq!(listed.len(), 2);
}

#[test]
fn rule6_akawumbi_from_an_end_column() {
    // The capture of rule3 with nothing else on the opponent's side: the
    // capture at pit 4 (column 3 = W − 1) empties it.
    let p = pos(4, &[0, 0, 2, 0, 1, 0, 0, 0], &[3, 0, 0, 0, 0, 0, 0, 2]);
    let listed = moves(&p, &Rules::default(), true);
    assert_eq!(listed[0].3, Some(WinKind::Akawumbi));
    assert_eq!(WinKind::Akawumbi.points(), 12);
}

#[test]
fn rule6_empty_side_from_a_middle_column_is_okutema() {
    // Pit 3 → 4, 5; pit 5 (column 2) had a seed and faces the opponent's
    // inner 6 (3) and outer 1 (2): 5 captured, re-sown from 3 → 4..=7, 0.
    // The opponent is empty but the capture was not from an end column.
    let p = pos(4, &[0, 0, 0, 2, 0, 1, 0, 0], &[0, 2, 0, 0, 0, 0, 3, 0]);
    let listed = moves(&p, &Rules::default(), true);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].1, board(&[1, 0, 0, 0, 2, 3, 1, 1], &[0; 8]));
    assert_eq!(listed[0].3, Some(WinKind::Okutema));
    // okutema = off: only "the opponent cannot move" remains.
    let off = Rules {
        okutema: false,
        ..Rules::default()
    };
    assert_eq!(moves(&p, &off, true)[0].3, Some(WinKind::Bulijo));
}

#[test]
fn rule6_okutema_by_emptying_the_inner_row() {
    // The capture of rule3 when the opponent's only inner seeds were in the
    // captured column; the opponent keeps 2 seeds in outer pit 1.
    let p = pos(4, &[0, 0, 2, 0, 1, 0, 0, 0], &[3, 2, 0, 0, 0, 0, 0, 2]);
    let listed = moves(&p, &Rules::default(), true);
    assert_eq!(
        listed[0].1,
        board(&[0, 0, 0, 2, 3, 1, 1, 1], &[0, 2, 0, 0, 0, 0, 0, 0])
    );
    assert_eq!(listed[0].3, Some(WinKind::Okutema));
}

#[test]
fn rule6_empty_inner_row_without_capture_is_no_okutema() {
    // The opponent's inner row is empty already; a move without capture
    // does not win okutema (otherwise every opening move would).
    let p = Position::setup(4, 4).unwrap();
    let listed = moves(&p, &Rules::default(), true);
    assert!(listed.iter().all(|m| m.3.is_none()));
}

#[test]
fn rule6_bulijo_when_the_opponent_has_only_singletons() {
    // Pit 0 → 1, 2 (2 was empty). The opponent holds singletons only.
    let p = pos(4, &[2, 0, 0, 0, 0, 0, 0, 0], &[1, 0, 1, 0, 1, 0, 0, 0]);
    let listed = moves(&p, &Rules::default(), true);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].3, Some(WinKind::Bulijo));
    assert_eq!(WinKind::Bulijo.points(), 1);
}

#[test]
fn rule6_bulijo_when_the_opponents_only_moves_never_end() {
    // W = 2, mover 0 0 0 2, opponent 0 1 3 1: the only move, pit 3
    // counter-clockwise (0, 1), ends 1 1 0 0 | 0 1 3 1. The opponent's pit
    // 2 (3 seeds) relays for ever and its singletons cannot move.
    let p = pos(2, &[0, 0, 0, 2], &[0, 1, 3, 1]);
    let illegal = Rules {
        endless: Endless::Illegal,
        ..Rules::default()
    };
    let listed = moves(&p, &illegal, true);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].1, board(&[1, 1, 0, 0], &[0, 1, 3, 1]));
    assert_eq!(listed[0].3, Some(WinKind::Bulijo));
    // Under endless = void the never-ending relay is the opponent's move.
    let listed = moves(&p, &Rules::default(), true);
    assert_eq!(listed[0].3, None);
}

#[test]
fn children_reached_by_several_paths_are_listed_once() {
    // W = 2: every pit is leftmost; inner pit 2 faces the opponent's inner
    // 3 and outer 0, inner pit 3 faces inner 2 and outer 1.
    // Pit 1 (3 seeds) clockwise: 0, 3, 2; pit 2 had a seed, the opponent's
    // inner 3 (2) and outer 0 (1) are full: 3 captured. After more relays
    // it ends with 4 1 2 1 | 0 0 1 0.
    // Pit 1 counter-clockwise: 2, 3, 0; relay 2 from pit 0, where the
    // player may go clockwise: 3, 2 captures the same 3 seeds, and the lap
    // that re-sows them from pit 0 (1, 2, 3) reaches the very state the
    // clockwise start reached: the same child by two paths.
    // Going on counter-clockwise from pit 0 instead ends 1 3 0 4 | 0 0 1 0.
    let p = pos(2, &[1, 3, 1, 0], &[1, 0, 1, 2]);
    let listed = moves(&p, &Rules::default(), true);
    assert_eq!(listed.len(), 2);
    let shared = board(&[4, 1, 2, 1], &[0, 0, 1, 0]);
    let other = board(&[1, 3, 0, 4], &[0, 0, 1, 0]);
    let afters: Vec<_> = listed.iter().map(|m| m.1.clone()).collect();
    assert_eq!(afters, vec![other, shared]);
    // One representative path: the first found (counter-clockwise first).
    assert_eq!(
        listed[1].0,
        vec![
            start(1, Dir::Ccw),
            Choice {
                lap: 1,
                pit: 0,
                dir: Dir::Cw
            }
        ]
    );
    // Both leave the opponent singletons only.
    assert!(listed.iter().all(|m| m.3 == Some(WinKind::Bulijo)));
    // Listed per starting choice, the clockwise start keeps its own entry.
    let mut movegen = MoveGen::new();
    movegen.generate(&p, &Rules::default(), true, Dedup::StartChoice);
    assert_eq!(movegen.moves().len(), 3);
}

#[test]
fn first_turn_captures_relay_instead() {
    // The rule3 position on a first turn: pit 4 relays its 2 seeds into 5
    // and 6 instead of capturing.
    let p = pos(4, &[0, 0, 2, 0, 1, 0, 0, 0], &[3, 0, 2, 0, 0, 1, 1, 2]);
    let listed = moves(&p, &Rules::default(), false);
    assert_eq!(listed.len(), 1);
    assert_eq!(
        listed[0].1,
        board(&[0, 0, 0, 1, 0, 1, 1, 0], &[3, 0, 2, 0, 0, 1, 1, 2])
    );
    assert!(!listed[0].2);
    // The game applies it on each player's first turn only.
    let mut game = Game::new(p, Rules::default(), false);
    let first = game.legal_moves();
    assert_eq!(first.len(), 1);
    let GameMove::Sow {
        outcome: Outcome::Ends {
            after, captured, ..
        },
        ..
    } = &first[0]
    else {
        panic!("expected an ending sowing move: {first:?}")
    };
    assert_eq!(after.pits(), &listed[0].1[..]);
    assert!(!captured);
    let later = History {
        turns: [1, 1],
        capturing_turns: [0, 0],
    };
    let mut game = Game::resume(p, 0, later, Rules::default(), false);
    assert!(matches!(
        game.legal_moves()[0],
        GameMove::Sow {
            outcome: Outcome::Ends { captured: true, .. },
            ..
        }
    ));
}

#[test]
fn okwesera_only_before_the_first_capture() {
    // Pit 2 holds three seeds; once anyone has captured, okwesera is gone.
    let p = pos(4, &[0, 0, 3, 0, 0, 0, 0, 0], &[2, 0, 0, 0, 0, 0, 0, 0]);
    let count = |capturing_turns| {
        let history = History {
            turns: [2, 2],
            capturing_turns,
        };
        Game::resume(p, 0, history, Rules::default(), false)
            .legal_moves()
            .iter()
            .filter(|m| matches!(m, GameMove::Okwesera { .. }))
            .count()
    };
    assert_eq!(count([0, 0]), 1);
    assert_eq!(count([0, 1]), 0);
}

#[test]
fn match_to_twelve_points() {
    let mut score = Match::default();
    let okutema = Status::Won {
        player: 1,
        kind: WinKind::Okutema,
    };
    for _ in 0..5 {
        assert_eq!(score.record(okutema), None);
    }
    assert_eq!(score.record(Status::Void), None);
    assert_eq!(score.points, [0, 10]);
    assert_eq!(score.record(okutema), Some(1));
    let mut score = Match::default();
    let akawumbi = Status::Won {
        player: 0,
        kind: WinKind::Akawumbi,
    };
    assert_eq!(score.record(akawumbi), Some(0));
}

#[test]
fn game_first_turn_and_okwesera() {
    // Player 0's first turn, no capture yet: pit 2 (3 seeds) may be sown
    // (3, 4, 5; the last seed lands in empty pit 5) or played as okwesera:
    // 2 seeds into pit 3 and 1 into pit 4, ending the turn.
    let start = pos(4, &[0, 0, 3, 0, 1, 0, 0, 0], &[3, 3, 2, 0, 0, 1, 1, 2]);
    let mut game = Game::new(start, Rules::default(), true);
    let legal = game.legal_moves();
    assert_eq!(legal.len(), 2);
    let okwesera = legal
        .iter()
        .find(|m| matches!(m, GameMove::Okwesera { pit: 2, .. }))
        .unwrap()
        .clone();
    let GameMove::Okwesera { after, .. } = &okwesera else {
        unreachable!()
    };
    assert_eq!(after.mover(), &[0, 0, 0, 2, 2, 0, 0, 0]);
    assert_eq!(game.play(&okwesera).unwrap(), Status::Playing);
    assert_eq!(game.to_move(), 1);
    assert_eq!(game.position().mover(), &[3, 3, 2, 0, 0, 1, 1, 2]);
    // Player 1 has no pit 2 with three seeds: the same move is refused.
    assert_eq!(game.play(&okwesera), Err(OmwesoError::IllegalMove));
}

/// The rule3 capture (no immediate win) played by player 0 after `history`.
fn capture_turn(history: History, akakyala: bool) -> (Status, usize) {
    let p = pos(4, &[0, 0, 2, 0, 1, 0, 0, 0], &[3, 0, 2, 0, 0, 1, 1, 2]);
    let mut game = Game::resume(p, 0, history, Rules::default(), akakyala);
    let legal = game.legal_moves();
    let capture = legal
        .iter()
        .find(|m| {
            matches!(
                m,
                GameMove::Sow {
                    outcome: Outcome::Ends { captured: true, .. },
                    ..
                }
            )
        })
        .unwrap()
        .clone();
    let status = game.play(&capture).unwrap();
    (status, legal.len())
}

#[test]
fn game_akakyala_two_capturing_turns_first() {
    // Player 0 captured once already, player 1 never: a second capturing
    // turn wins akakyala (2 points) when the option is on.
    let once = History {
        turns: [3, 3],
        capturing_turns: [1, 0],
    };
    let won = Status::Won {
        player: 0,
        kind: WinKind::Akakyala,
    };
    assert_eq!(capture_turn(once, true), (won, 1));
    assert_eq!(WinKind::Akakyala.points(), 2);
    // Option off, or the opponent has captured: the game goes on.
    assert_eq!(capture_turn(once, false).0, Status::Playing);
    let both = History {
        turns: [3, 3],
        capturing_turns: [1, 1],
    };
    assert_eq!(capture_turn(both, true).0, Status::Playing);
    // The first capturing turn is not enough.
    let none = History {
        turns: [3, 3],
        capturing_turns: [0, 0],
    };
    assert_eq!(capture_turn(none, true).0, Status::Playing);
}

#[test]
fn game_void_on_never_ending_move() {
    let mut pits = vec![3, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1];
    pits.extend([0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0]);
    let p = Position::new(8, &pits).unwrap();
    // Pit 0 loops for ever; the opponent's pit 8 (inner, column 7) faces
    // mover pit 15 only together with outer pit 7, which is empty.
    let mut game = Game::new(p, Rules::default(), false);
    // First turn: captures are off anyway. Okwesera from pit 0 (3 seeds)
    // and the never-ending sowing are the legal moves.
    let legal = game.legal_moves();
    assert_eq!(legal.len(), 2);
    let endless = legal
        .iter()
        .find(|m| {
            matches!(
                m,
                GameMove::Sow {
                    outcome: Outcome::NeverEnds(_),
                    ..
                }
            )
        })
        .unwrap()
        .clone();
    assert_eq!(game.play(&endless).unwrap(), Status::Void);
    assert_eq!(game.play(&endless), Err(OmwesoError::GameOver));

    let illegal = Rules {
        endless: Endless::Illegal,
        ..Rules::default()
    };
    let mut game = Game::new(p, illegal, false);
    assert_eq!(game.legal_moves().len(), 1);
}

#[test]
fn bad_positions_are_refused() {
    assert_eq!(Position::new(9, &[0; 36]), Err(OmwesoError::Width(9)));
    assert_eq!(Position::new(1, &[0; 4]), Err(OmwesoError::Width(1)));
    assert_eq!(
        Position::new(4, &[0; 15]),
        Err(OmwesoError::PitCount {
            width: 4,
            expected: 16,
            got: 15
        })
    );
    assert_eq!(
        Position::new(2, &[200, 0, 0, 0, 56, 0, 0, 0]),
        Err(OmwesoError::TooManySeeds(256))
    );
    assert!(Position::new(2, &[200, 0, 0, 0, 55, 0, 0, 0]).is_ok());
}
