//! En Gehé (docs/rules.md, section En Gehé): two rows of `W` holes, relay sowing
//! around the whole board, capture of the opposite hole plus the landing
//! counter.
//!
//! A [`Position`] is seen from the mover: holes `0..W` are the mover's row
//! from the mover's left, `W..2W` the opponent's row, counter-clockwise. The
//! relay and the exact detection of never-ending moves (Mayer test) are those
//! of [`super::relay`], as in Omweso.

use std::fmt;

use super::relay::{Cycle, Dir, Dirs, Endless, Lap, RelayRules, Stretch, follow, sow};

/// The narrowest board: 2 × 1 holes.
pub const MIN_WIDTH: usize = 1;
/// Tables are for small boards; the rules engine stops at 2 × 12 holes.
pub const MAX_WIDTH: usize = 12;
const MAX_HOLES: usize = 2 * MAX_WIDTH;
/// Counters on the board at most: values are signed bytes.
pub const MAX_COUNTERS: usize = 127;

/// Errors of the En Gehé engine: all bad input is reported, never a panic.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngeheError {
    #[error("board width {0} is outside {MIN_WIDTH}..={MAX_WIDTH}")]
    /// A board width outside `MIN_WIDTH..=MAX_WIDTH`.
    Width(usize),
    #[error("a board of width {width} has {expected} holes (2 × width), got {got}")]
    /// Not `2W` hole counts.
    HoleCount {
        /// The board width.
        width: usize,
        /// Holes on that board.
        expected: usize,
        /// Counts given.
        got: usize,
    },
    #[error("the position holds {0} counters; at most {MAX_COUNTERS} are supported")]
    /// More than [`MAX_COUNTERS`] counters.
    TooManyCounters(u64),
}

/// The ruleset: what a never-ending move is (rule 5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Rules {
    /// Whether a never-ending move voids the game or is illegal.
    pub endless: Endless,
}

impl fmt::Display for Rules {
    /// The ruleset name written into table headers.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "endless={}", self.endless)
    }
}

/// Refuses a board width outside `MIN_WIDTH..=MAX_WIDTH`.
pub fn check_width(width: usize) -> Result<(), EngeheError> {
    if (MIN_WIDTH..=MAX_WIDTH).contains(&width) {
        Ok(())
    } else {
        Err(EngeheError::Width(width))
    }
}

/// A board of width `W` seen from the mover. Holes beyond `2W` stay zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    width: u8,
    holes: [u8; MAX_HOLES],
}

impl Position {
    /// Builds a position from `2W` hole counts (mover's row, then the
    /// opponent's).
    pub fn new(width: usize, holes: &[u32]) -> Result<Position, EngeheError> {
        check_width(width)?;
        if holes.len() != 2 * width {
            return Err(EngeheError::HoleCount {
                width,
                expected: 2 * width,
                got: holes.len(),
            });
        }
        let total: u64 = holes.iter().map(|&h| u64::from(h)).sum();
        if total > MAX_COUNTERS as u64 {
            return Err(EngeheError::TooManyCounters(total));
        }
        let mut board = [0u8; MAX_HOLES];
        for (b, &h) in board.iter_mut().zip(holes) {
            *b = h as u8;
        }
        Ok(Position {
            width: width as u8,
            holes: board,
        })
    }

    /// A position from `2W` counts already checked by the caller (table
    /// code walking an index of width `width` and at most 127 counters).
    pub fn from_counts(width: usize, counts: &[u8]) -> Position {
        debug_assert!(check_width(width).is_ok() && counts.len() == 2 * width);
        let mut holes = [0u8; MAX_HOLES];
        holes[..2 * width].copy_from_slice(counts);
        Position {
            width: width as u8,
            holes,
        }
    }

    /// Holes per row.
    pub fn width(&self) -> usize {
        usize::from(self.width)
    }

    /// All `2W` holes, mover's row first.
    pub fn holes(&self) -> &[u8] {
        &self.holes[..2 * self.width()]
    }

    /// Counters on the board.
    pub fn counters(&self) -> usize {
        self.holes().iter().map(|&h| usize::from(h)).sum()
    }

    /// The same board seen from the opponent (the next mover).
    pub fn flipped(&self) -> Position {
        let w = self.width();
        let mut holes = [0u8; MAX_HOLES];
        holes[..w].copy_from_slice(&self.holes[w..2 * w]);
        holes[w..2 * w].copy_from_slice(&self.holes[..w]);
        Position {
            width: self.width,
            holes,
        }
    }
}

impl fmt::Display for Position {
    /// `mover's row | opponent's row`, counter-clockwise.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let join = |s: &[u8]| {
            s.iter()
                .map(|h| h.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let w = self.width();
        write!(
            f,
            "{} | {}",
            join(&self.holes[..w]),
            join(&self.holes[w..2 * w])
        )
    }
}

/// A lap start: the board with the hand lifted, the lap's start hole and the
/// counters in hand. When the move has ended, `hole` is the landing hole.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LapState {
    holes: [u8; MAX_HOLES],
    hole: u8,
    hand: u8,
}

/// Relay laps around the `2W` holes; every lap is forced.
struct Laps {
    holes: usize,
}

impl RelayRules for Laps {
    type State = LapState;

    fn options(&self, _: &LapState) -> Dirs {
        Dirs::CCW
    }

    fn lap(&self, s: &mut LapState, dir: Dir) -> Lap {
        let sown = u32::from(s.hand);
        let last = sow(
            &mut s.holes[..self.holes],
            usize::from(s.hole),
            usize::from(s.hand),
            dir,
        );
        s.hole = last as u8;
        if s.holes[last] == 1 {
            return Lap { sown, ended: true };
        }
        s.hand = s.holes[last];
        s.holes[last] = 0;
        Lap { sown, ended: false }
    }

    fn pit(&self, s: &LapState) -> usize {
        usize::from(s.hole)
    }
}

/// How a move turns out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The move ends: `captured` counters leave the board (the opposite hole
    /// and the landing counter) and `child` is the position the opponent faces.
    Ends {
        /// Counters captured.
        captured: u8,
        /// The position the opponent faces.
        child: Position,
    },
    /// The relay never ends (the game is void, or the move is illegal).
    NeverEnds(Cycle),
}

/// One move: the hole played (0..W) and its outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    /// The hole played, `0..W` in the mover's row.
    pub hole: u8,
    /// How it turns out.
    pub outcome: Outcome,
}

/// Plays the move from the mover's hole `hole`, or `None` if it is empty or
/// not in the mover's row.
pub fn play(pos: &Position, hole: usize) -> Option<Move> {
    let w = pos.width();
    if hole >= w || pos.holes[hole] == 0 {
        return None;
    }
    let mut start = LapState {
        holes: pos.holes,
        hole: hole as u8,
        hand: pos.holes[hole],
    };
    start.holes[hole] = 0;
    let laps = Laps { holes: 2 * w };
    let outcome = match follow(&laps, &start, Dir::Ccw, 0, 0) {
        Stretch::Ended { mut end, .. } => {
            let last = usize::from(end.hole);
            let opposite = 2 * w - 1 - last;
            let mut captured = 0;
            if last < w && end.holes[opposite] > 0 {
                captured = end.holes[opposite] + 1;
                end.holes[opposite] = 0;
                end.holes[last] = 0;
            }
            let after = Position {
                width: pos.width,
                holes: end.holes,
            };
            Outcome::Ends {
                captured,
                child: after.flipped(),
            }
        }
        Stretch::Cycle(cycle) => Outcome::NeverEnds(cycle),
        // Every lap is forced.
        Stretch::Choice { .. } => unreachable!("En Gehé laps have no choices"),
    };
    Some(Move {
        hole: hole as u8,
        outcome,
    })
}

/// The legal moves of `pos` in hole order: every non-empty hole of the
/// mover's row, never-ending ones only under `endless = void`. When the list
/// is empty the game is over ([`no_move_value`]).
pub fn legal_moves(pos: &Position, rules: &Rules) -> Vec<Move> {
    (0..pos.width())
        .filter_map(|hole| play(pos, hole))
        .filter(|m| rules.endless == Endless::Void || matches!(m.outcome, Outcome::Ends { .. }))
        .collect()
}

/// The value of a position without legal moves: the counters left belong to
/// the team that made the last move (rule 4).
pub fn no_move_value(pos: &Position) -> i8 {
    -(pos.counters() as i8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(width: usize, holes: &[u32]) -> Position {
        Position::new(width, holes).unwrap()
    }

    fn ends(m: Option<Move>) -> (u8, Vec<u8>) {
        match m.unwrap().outcome {
            Outcome::Ends { captured, child } => (captured, child.holes().to_vec()),
            Outcome::NeverEnds(c) => panic!("never ends: {c:?}"),
        }
    }

    #[test]
    fn a_sowing_that_ends_in_an_empty_opponent_hole_captures_nothing() {
        // 2 × 3: hole 1 (2 counters) sows into 2 and 3; 3 was empty.
        let (captured, child) = ends(play(&pos(3, &[0, 2, 0, 0, 1, 1]), 1));
        assert_eq!(captured, 0);
        // After: 0 0 1 | 1 1 1, seen from the opponent.
        assert_eq!(child, vec![1, 1, 1, 0, 0, 1]);
    }

    #[test]
    fn relay_then_capture_of_the_opposite_hole_and_the_landing_counter() {
        // 2 × 3, holes 0..3 mover, 3..6 opponent; opposite of k is 5 − k.
        // Hole 0 (1 counter) lands in hole 1 (occupied: 2 now), relays 2
        // counters into 2 and 3; 3 was empty: no capture, ends.
        let (captured, child) = ends(play(&pos(3, &[1, 1, 0, 0, 4, 2]), 0));
        assert_eq!(captured, 0);
        assert_eq!(child, vec![1, 4, 2, 0, 0, 1]);
        // Hole 2 (3 counters) sows 3, 4, 5 → lands in 5 (occupied, now 3),
        // relays 3: 0, 1, 2 → lands in 2 (emptied, now 1): own row, the
        // opposite hole 3 holds 1: captures 1 + 1.
        let (captured, child) = ends(play(&pos(3, &[0, 0, 3, 0, 1, 2]), 2));
        assert_eq!(captured, 2);
        // After: 1 1 0 | 0 2 0, seen from the opponent: 0 2 0 | 1 1 0.
        assert_eq!(child, vec![0, 2, 0, 1, 1, 0]);
    }

    #[test]
    fn the_origin_is_not_skipped_and_single_counters_move() {
        // 2 × 1, 3 | 0: the 3 counters go to holes 1, 0, 1; hole 1 was
        // occupied by the first of them, so its 2 counters relay into 0 and
        // 1; hole 1 was just emptied: the move ends there, in the opponent's
        // row, without capture.
        let (captured, child) = ends(play(&pos(1, &[3, 0]), 0));
        assert_eq!(captured, 0);
        assert_eq!(child, vec![1, 2]);
        // 2 × 2, 0 1 | 0 1: the single counter of hole 1 lands in the empty
        // hole 2 (opponent's row): no capture.
        assert!(play(&pos(2, &[0, 1, 0, 1]), 0).is_none());
        let (captured, child) = ends(play(&pos(2, &[0, 1, 0, 1]), 1));
        assert_eq!((captured, child), (0, vec![1, 1, 0, 0]));
        // 2 × 2, 1 0 | 3 0: hole 0's counter lands in the empty hole 1 of
        // the mover's row; the opposite hole 2 holds 3: 3 + 1 captured.
        let (captured, child) = ends(play(&pos(2, &[1, 0, 3, 0]), 0));
        assert_eq!((captured, child), (4, vec![0, 0, 0, 0]));
    }

    #[test]
    fn never_ending_relays_are_found_and_can_be_illegal() {
        // The first never-ending relay of a 2 × 2 board with up to 5
        // counters per hole.
        let mut found = None;
        'search: for a in 0..6u32 {
            for b in 0..6u32 {
                for c in 0..6u32 {
                    for d in 0..6u32 {
                        let p = pos(2, &[a, b, c, d]);
                        for m in (0..2).filter_map(|h| play(&p, h)) {
                            if let Outcome::NeverEnds(cycle) = m.outcome {
                                found = Some((p, m.hole, cycle));
                                break 'search;
                            }
                        }
                    }
                }
            }
        }
        let (p, hole, cycle) = found.expect("a never-ending relay on 2 × 2");
        assert!(cycle.period > 0);
        let void = legal_moves(&p, &Rules::default());
        let illegal = legal_moves(
            &p,
            &Rules {
                endless: Endless::Illegal,
            },
        );
        assert!(void.iter().any(|m| m.hole == hole));
        assert!(!illegal.iter().any(|m| m.hole == hole));
    }

    #[test]
    fn bad_boards_are_errors() {
        assert_eq!(Position::new(0, &[]), Err(EngeheError::Width(0)));
        assert_eq!(
            Position::new(2, &[1, 2, 3]),
            Err(EngeheError::HoleCount {
                width: 2,
                expected: 4,
                got: 3
            })
        );
        assert_eq!(
            Position::new(1, &[100, 100]),
            Err(EngeheError::TooManyCounters(200))
        );
        assert_eq!(no_move_value(&pos(2, &[0, 0, 3, 4])), -7);
    }
}
