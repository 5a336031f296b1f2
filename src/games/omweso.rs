//! Omweso (docs/rules.md, section Omweso): positions, rules options, move
//! generation through the relay-lap tree, and the points of a finished game.
//!
//! A [`Position`] is seen from the mover: the mover's `2W` pits, then the
//! opponent's `2W` pits, each side in its owner's sowing order (`k < W` outer
//! row from the owner's left, `k ≥ W` inner row, column `2W − 1 − k`).
//! [`MoveGen`] lists the legal moves of a position; the relay and the Mayer
//! test are in [`super::relay`]. Match-start rules live in [`game`].
//!
//! For a table builder: keep one [`MoveGen`] per thread and call
//! `generate(&pos, &rules, true, Dedup::Position)`; each of
//! [`MoveGen::legal`] is either [`Outcome::Ends`] (its [`Move::child`] is
//! the opponent's position, `win` the immediate points) or
//! [`Outcome::NeverEnds`] (a path that voids the game: value 0). After
//! warm-up a position without lap choices costs no allocation.
//!
//! Readings where docs/rules.md leaves room (tests in `tests/it/omweso_rules.rs`):
//! - A lap's last seed lands in an *occupied* pit if the pit held seeds when
//!   it arrived, including seeds dropped by the same lap on an earlier
//!   circuit. A lap of `2W` seeds or more passes its own start pit (no
//!   skipping, unlike Oware).
//! - Every lap is counter-clockwise unless the player picks clockwise at a
//!   lap start in one of the four leftmost pits, which is allowed only if
//!   that very lap captures. So a clockwise lap always captures and a relay
//!   never follows one; the lap that re-sows captured seeds gets the same
//!   choice afresh at its start pit.
//! - A move is a path of choices. A path that returns to an intra-move
//!   state it has already been in can repeat that loop for ever: it is
//!   reported once, as never-ending, with the loop-free part of its path;
//!   paths that go round a loop and then leave it are the same move as the
//!   one that leaves at once.
//! - Moves with the same board, capture flag and immediate win are the same
//!   child ([`Dedup::Position`]); never-ending moves are kept per starting
//!   choice so each can be shown with its cycle.
//! - Bulijo: the opponent, to move, has no legal move. That is no pit with
//!   two seeds or more, or under `endless = illegal` also pits whose every
//!   move never ends; [`win_after`] labels both (captures allowed: the
//!   [`game`] judges first turns and okwesera from the opponent's own moves).
//! - Pits and hands are bytes: a board holds at most [`MAX_SEEDS`] seeds.

pub mod census;
pub mod game;

use std::fmt;
use std::str::FromStr;

pub use super::relay::Endless;
use super::relay::{
    Choice, Cycle, Dir, Dirs, Event, Explorer, Lap, RelayRules, landing, pack, packed_clear,
    packed_pit, sow_packed,
};

/// The narrowest board: 4 × 2 pits.
pub const MIN_WIDTH: usize = 2;
/// The widest board: 4 × 8 pits, the usual one.
pub const MAX_WIDTH: usize = 8;
/// Pits on the largest board (4 rows of 8).
pub const MAX_PITS: usize = 4 * MAX_WIDTH;
/// Seeds on the board at most: a pit, and a hand, is one byte.
pub const MAX_SEEDS: u32 = 255;

/// Errors of the Omweso engine: all bad input is reported, never a panic.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OmwesoError {
    #[error("board width {0} is outside {MIN_WIDTH}..={MAX_WIDTH}")]
    /// A board width outside `MIN_WIDTH..=MAX_WIDTH`.
    Width(usize),
    #[error("a board of width {width} has {expected} pits (4 × width), got {got}")]
    /// Not `4W` pit counts.
    PitCount {
        /// The board width.
        width: usize,
        /// Pits on that board.
        expected: usize,
        /// Counts given.
        got: usize,
    },
    #[error("the position holds {0} seeds; at most {MAX_SEEDS} are supported")]
    /// More than [`MAX_SEEDS`] seeds.
    TooManySeeds(u64),
    #[error("the position holds {got} seeds, but {expected} were asked for")]
    /// A set-up with another seed total than asked for.
    SeedTotal {
        /// Seeds asked for.
        expected: u32,
        /// Seeds on the board.
        got: u32,
    },
    #[error("the mover has no legal move: every pit holds 0 or 1 seed")]
    /// A position whose mover cannot move.
    NoMove,
    #[error("unknown value `{value}` for {option} (expected one of: {expected})")]
    /// A rules option value that does not exist.
    Option {
        /// The option (`reverse`, `endless`, `okutema`).
        option: &'static str,
        /// The value given.
        value: String,
        /// The values it takes.
        expected: &'static str,
    },
    #[error("that move is not legal here")]
    /// A move the rules do not allow here.
    IllegalMove,
    #[error("the game is over")]
    /// A move asked for after the game ended.
    GameOver,
}

/// A board of width `W` seen from the mover. Pits beyond `4W` stay zero, so
/// equal positions are equal bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Position {
    width: u8,
    pits: [u8; MAX_PITS],
}

impl Position {
    /// Builds a position from `4W` pit counts (mover's `2W`, then opponent's).
    pub fn new(width: usize, pits: &[u32]) -> Result<Position, OmwesoError> {
        check_width(width)?;
        if pits.len() != 4 * width {
            return Err(OmwesoError::PitCount {
                width,
                expected: 4 * width,
                got: pits.len(),
            });
        }
        let total: u64 = pits.iter().map(|&p| u64::from(p)).sum();
        if total > u64::from(MAX_SEEDS) {
            return Err(OmwesoError::TooManySeeds(total));
        }
        let mut board = [0u8; MAX_PITS];
        for (b, &p) in board.iter_mut().zip(pits) {
            *b = p as u8;
        }
        Ok(Position {
            width: width as u8,
            pits: board,
        })
    }

    /// A position from `4W` counts already checked by the caller (table
    /// code walking an index of width `width` and at most [`MAX_SEEDS`]
    /// seeds).
    pub fn from_counts(width: usize, counts: &[u8]) -> Position {
        debug_assert!(check_width(width).is_ok() && counts.len() == 4 * width);
        let mut pits = [0u8; MAX_PITS];
        pits[..4 * width].copy_from_slice(counts);
        Position {
            width: width as u8,
            pits,
        }
    }

    /// The usual set-up: `seeds` in each outer pit of both players.
    pub fn setup(width: usize, seeds: u32) -> Result<Position, OmwesoError> {
        check_width(width)?;
        let side: Vec<u32> = (0..2 * width)
            .map(|k| if k < width { seeds } else { 0 })
            .collect();
        Position::new(width, &[side.clone(), side].concat())
    }

    /// Columns of the 4 × W board.
    pub fn width(&self) -> usize {
        usize::from(self.width)
    }

    /// All `4W` pits: the mover's, then the opponent's.
    pub fn pits(&self) -> &[u8] {
        &self.pits[..4 * self.width()]
    }

    /// The mover's `2W` pits in sowing order.
    pub fn mover(&self) -> &[u8] {
        &self.pits[..2 * self.width()]
    }

    /// The opponent's `2W` pits in its own sowing order.
    pub fn opponent(&self) -> &[u8] {
        &self.pits[2 * self.width()..4 * self.width()]
    }

    /// Seeds on the board.
    pub fn seeds(&self) -> u32 {
        self.pits.iter().map(|&p| u32::from(p)).sum()
    }

    /// The same board seen from the opponent (the next mover).
    pub fn flipped(&self) -> Position {
        let half = 2 * self.width();
        let mut pits = [0u8; MAX_PITS];
        pits[..half].copy_from_slice(&self.pits[half..2 * half]);
        pits[half..2 * half].copy_from_slice(&self.pits[..half]);
        Position {
            width: self.width,
            pits,
        }
    }

    /// Whether the mover has a pit with at least two seeds (rule 1).
    pub fn has_move(&self) -> bool {
        self.mover().iter().any(|&p| p >= 2)
    }

    fn mover_mut(&mut self) -> &mut [u8] {
        let half = 2 * self.width();
        &mut self.pits[..half]
    }

    /// The position of a finished move's state.
    fn from_lap_state(width: u8, s: &LapState) -> Position {
        let half = 2 * usize::from(width);
        let mut pits = [0u8; MAX_PITS];
        pits[..16].copy_from_slice(&s.mover.to_le_bytes());
        pits[half..half + 16].copy_from_slice(&s.opponent);
        Position { width, pits }
    }
}

impl fmt::Display for Position {
    /// `mover pits | opponent pits`, each in sowing order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let join = |s: &[u8]| {
            s.iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        write!(f, "{} | {}", join(self.mover()), join(self.opponent()))
    }
}

/// Refuses a board width outside `MIN_WIDTH..=MAX_WIDTH`.
pub fn check_width(width: usize) -> Result<(), OmwesoError> {
    if (MIN_WIDTH..=MAX_WIDTH).contains(&width) {
        Ok(())
    } else {
        Err(OmwesoError::Width(width))
    }
}

/// Where reverse (clockwise) capture laps are allowed (rule 4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Reverse {
    /// At the move start and at every later lap start.
    #[default]
    AllLaps,
    /// Only at the move start.
    StartOnly,
}

/// A ruleset: the options of docs/rules.md, section Omweso.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    /// Where clockwise capture laps are allowed.
    pub reverse: Reverse,
    /// Whether a never-ending move voids the game or is illegal.
    pub endless: Endless,
    /// The immediate okutema and akawumbi wins (rule 6).
    pub okutema: bool,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            reverse: Reverse::AllLaps,
            endless: Endless::Void,
            okutema: true,
        }
    }
}

impl Rules {
    /// Every option as `(name, value)`, named as on the command line. The
    /// one list that the ruleset name in table headers, the table folder and
    /// the build command are made from, so no option can be left out of one.
    pub fn options(&self) -> [(&'static str, &'static str); 3] {
        let Rules {
            reverse,
            endless,
            okutema,
        } = *self;
        [
            ("reverse", option_name(REVERSE_NAMES, &reverse)),
            ("endless", option_name(ENDLESS_NAMES, &endless)),
            ("okutema", option_name(ON_OFF_NAMES, &OnOff(okutema))),
        ]
    }
}

impl fmt::Display for Rules {
    /// The ruleset name written into table headers:
    /// `reverse=all-laps,endless=void,okutema=on`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let options = self
            .options()
            .map(|(name, value)| format!("{name}={value}"));
        f.write_str(&options.join(","))
    }
}

/// `on`/`off` for boolean options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OnOff(pub bool);

const REVERSE_NAMES: &[(&str, Reverse)] = &[
    ("all-laps", Reverse::AllLaps),
    ("start-only", Reverse::StartOnly),
];
const ENDLESS_NAMES: &[(&str, Endless)] = &[("void", Endless::Void), ("illegal", Endless::Illegal)];
const ON_OFF_NAMES: &[(&str, OnOff)] = &[("on", OnOff(true)), ("off", OnOff(false))];

fn option_name<T: PartialEq>(names: &[(&'static str, T)], value: &T) -> &'static str {
    names
        .iter()
        .find(|(_, v)| v == value)
        .map_or("?", |(n, _)| n)
}

fn parse_option<T: Copy>(
    option: &'static str,
    expected: &'static str,
    names: &[(&str, T)],
    value: &str,
) -> Result<T, OmwesoError> {
    names
        .iter()
        .find(|(n, _)| *n == value)
        .map(|(_, v)| *v)
        .ok_or_else(|| OmwesoError::Option {
            option,
            value: value.to_string(),
            expected,
        })
}

impl fmt::Display for Reverse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(option_name(REVERSE_NAMES, self))
    }
}

impl FromStr for Reverse {
    type Err = OmwesoError;
    fn from_str(s: &str) -> Result<Self, OmwesoError> {
        parse_option("reverse", "all-laps, start-only", REVERSE_NAMES, s)
    }
}

impl fmt::Display for Endless {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(option_name(ENDLESS_NAMES, self))
    }
}

impl FromStr for Endless {
    type Err = OmwesoError;
    fn from_str(s: &str) -> Result<Self, OmwesoError> {
        parse_option("endless", "void, illegal", ENDLESS_NAMES, s)
    }
}

impl fmt::Display for OnOff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(option_name(ON_OFF_NAMES, self))
    }
}

impl FromStr for OnOff {
    type Err = OmwesoError;
    fn from_str(s: &str) -> Result<Self, OmwesoError> {
        parse_option("okutema", "on, off", ON_OFF_NAMES, s)
    }
}

/// Bits of [`LapState::flags`]: what the move has captured so far.
pub mod flags {
    /// The move has captured.
    pub const CAPTURED: u8 = 1;
    /// Captured with the last seed in inner pit `W` (the column holding the
    /// opponent's corner pits outer 0 and inner `2W − 1`).
    pub const CORNERS_A: u8 = 2;
    /// Captured with the last seed in inner pit `2W − 1` (the opponent's
    /// corner pits outer `W − 1` and inner `W`).
    pub const CORNERS_B: u8 = 4;
    /// The latest capture was from an end column.
    pub const LAST_FROM_END: u8 = 8;
}

/// The intra-move state at a lap start: the board with the hand lifted, the
/// lap's start pit, the seeds in hand and the capture [`flags`]. The
/// mover's side is packed (pit `k` in byte `k`, see
/// [`super::relay::sow_packed`]) so that a lap is a few word operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LapState {
    /// The mover's pits, packed a byte each.
    pub mover: u128,
    /// The opponent's pits in the opponent's numbering (bytes `2W..` zero).
    pub opponent: [u8; 16],
    /// The pit the lap starts from.
    pub pit: u8,
    /// Seeds in hand.
    pub hand: u8,
    /// What the move has captured so far ([`flags`]).
    pub flags: u8,
}

/// The lap rules of one move: board width, whether captures are allowed (not
/// on a player's first turn) and whether reverse laps are open after lap 0.
#[derive(Clone, Copy, Debug)]
pub struct Laps {
    width: usize,
    captures: bool,
    reverse_later: bool,
}

impl Laps {
    /// The lap rules of a move on a board of `width` columns; `captures` is
    /// false on a player's first turn.
    pub fn new(width: usize, rules: &Rules, captures: bool) -> Laps {
        Laps {
            width,
            captures,
            reverse_later: rules.reverse == Reverse::AllLaps,
        }
    }

    /// Columns of the board.
    pub fn width(&self) -> usize {
        self.width
    }

    /// The state after lifting mover pit `pit`, if it may start a move.
    pub fn start(&self, pos: &Position, pit: usize) -> Option<LapState> {
        let hand = *pos.mover().get(pit)?;
        if hand < 2 {
            return None;
        }
        let mut opponent = [0u8; 16];
        opponent[..pos.opponent().len()].copy_from_slice(pos.opponent());
        Some(LapState {
            mover: packed_clear(pack(pos.mover()), pit),
            opponent,
            pit: pit as u8,
            hand,
            flags: 0,
        })
    }

    /// Directions open at the first lap of a move, or any lap start when
    /// reverse laps are allowed there: counter-clockwise always; clockwise
    /// from the four leftmost pits iff that lap captures directly.
    #[inline]
    pub fn start_options(&self, s: &LapState) -> Dirs {
        let n = 2 * self.width;
        let pit = usize::from(s.pit);
        let leftmost = pit < 2 || pit >= n - 2;
        if !self.captures || !leftmost {
            return Dirs::CCW;
        }
        let (last, arriving) = landing(pit, usize::from(s.hand), n, Dir::Cw);
        let occupied = usize::from(packed_pit(s.mover, last)) + arriving >= 2;
        if occupied && self.facing(s, last).is_some() {
            Dirs::BOTH
        } else {
            Dirs::CCW
        }
    }

    /// The opponent's two pits facing mover pit `last` (opponent
    /// numbering), if `last` is in the inner row and both hold seeds
    /// (rule 3).
    fn facing(&self, s: &LapState, last: usize) -> Option<(usize, usize)> {
        let w = self.width;
        if last < w {
            return None;
        }
        let inner = 3 * w - 1 - last;
        let outer = last - w;
        (s.opponent[inner] > 0 && s.opponent[outer] > 0).then_some((inner, outer))
    }
}

impl RelayRules for Laps {
    type State = LapState;

    fn options(&self, s: &LapState) -> Dirs {
        if self.reverse_later {
            self.start_options(s)
        } else {
            Dirs::CCW
        }
    }

    fn lap(&self, s: &mut LapState, dir: Dir) -> Lap {
        let w = self.width;
        let sown = u32::from(s.hand);
        let (mover, last) = sow_packed(s.mover, 2 * w, s.pit.into(), s.hand.into(), dir);
        s.mover = mover;
        let landed = packed_pit(mover, last);
        if landed == 1 {
            return Lap { sown, ended: true };
        }
        if self.captures
            && let Some((inner, outer)) = self.facing(s, last)
        {
            // Capture: the landing pit stays; the captured seeds are sown
            // from the start pit of this lap.
            s.hand = s.opponent[inner] + s.opponent[outer];
            s.opponent[inner] = 0;
            s.opponent[outer] = 0;
            s.flags &= !flags::LAST_FROM_END;
            s.flags |= flags::CAPTURED;
            if last == w {
                s.flags |= flags::CORNERS_A | flags::LAST_FROM_END;
            } else if last == 2 * w - 1 {
                s.flags |= flags::CORNERS_B | flags::LAST_FROM_END;
            }
            return Lap { sown, ended: false };
        }
        s.hand = landed;
        s.mover = packed_clear(mover, last);
        s.pit = last as u8;
        Lap { sown, ended: false }
    }

    fn pit(&self, s: &LapState) -> usize {
        usize::from(s.pit)
    }
}

/// An immediate win (rule 6, and akakyala of rule 7 in [`game`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WinKind {
    /// The opponent's pits emptied, the last capture from an end column
    /// (12 points, and the match).
    Akawumbi,
    /// A capture that empties the opponent's inner row, or a move that
    /// captured from all four of its corner pits (2 points).
    Okutema,
    /// Two separate captures before the opponent's first (2 points).
    Akakyala,
    /// The opponent, to move, has no legal move (1 point).
    Bulijo,
}

impl WinKind {
    /// The points the win scores.
    pub fn points(self) -> u32 {
        match self {
            WinKind::Akawumbi => 12,
            WinKind::Okutema | WinKind::Akakyala => 2,
            WinKind::Bulijo => 1,
        }
    }

    /// The name used in output: `akawumbi`, `okutema`, `akakyala`, `bulijo`.
    pub fn name(self) -> &'static str {
        match self {
            WinKind::Akawumbi => "akawumbi",
            WinKind::Okutema => "okutema",
            WinKind::Akakyala => "akakyala",
            WinKind::Bulijo => "bulijo",
        }
    }
}

/// The immediate win of a finished move (rule 6, in its order): `after` is
/// the board seen from the player who moved, `move_flags` the move's
/// capture [`flags`].
pub fn win_after(after: &Position, move_flags: u8, rules: &Rules) -> Option<WinKind> {
    let w = after.width();
    let opponent = after.opponent();
    let captured = move_flags & flags::CAPTURED != 0;
    if rules.okutema {
        if move_flags & flags::LAST_FROM_END != 0 && opponent.iter().all(|&p| p == 0) {
            return Some(WinKind::Akawumbi);
        }
        // A capture takes from a non-empty inner pit, so the inner row was
        // not empty before this move: the "already empty" case cannot arise.
        let corners = flags::CORNERS_A | flags::CORNERS_B;
        let inner_empty = opponent[w..].iter().all(|&p| p == 0);
        if captured && (inner_empty || move_flags & corners == corners) {
            return Some(WinKind::Okutema);
        }
    }
    if opponent.iter().all(|&p| p < 2)
        || (rules.endless == Endless::Illegal && !has_ending_move(&after.flipped(), rules))
    {
        return Some(WinKind::Bulijo);
    }
    None
}

/// Whether the mover of `pos` (captures allowed) has a move that ends: under
/// `endless = illegal` its only legal moves, so without one it has lost by
/// bulijo although some pit may hold two seeds or more.
fn has_ending_move(pos: &Position, rules: &Rules) -> bool {
    let laps = Laps::new(pos.width(), rules, true);
    let roots = || (0..2 * pos.width()).filter_map(|pit| laps.start(pos, pit));
    // Nearly always some first lap ends at once: no search needed.
    let ends_at_once = roots().any(|mut state| laps.lap(&mut state, Dir::Ccw).ended);
    if ends_at_once {
        return true;
    }
    let mut explorer = Explorer::new();
    roots().any(|root| {
        let mut ends = false;
        explorer.explore(&laps, root, laps.start_options(&root), |event| {
            ends |= matches!(event, Event::Ends { .. });
        });
        ends
    })
}

/// How a move turns out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The move ends: `after` is the board seen from the player who moved.
    Ends {
        /// The board after the move, seen from the player who moved.
        after: Position,
        /// Whether the move captured.
        captured: bool,
        /// The immediate win it scores, if any.
        win: Option<WinKind>,
    },
    /// The move never ends (it voids the game, or is illegal).
    NeverEnds(Cycle),
}

/// One move (a complete path through the lap choices) and its outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    /// How it turns out.
    pub outcome: Outcome,
    /// Laps sown until the move ended (0 for a never-ending move).
    pub laps: u64,
    /// Seeds sown until the move ended (0 for a never-ending move).
    pub sown: u64,
    path: (u32, u32),
}

impl Move {
    /// Whether the move ends (it is not never-ending).
    pub fn ends(&self) -> bool {
        matches!(self.outcome, Outcome::Ends { .. })
    }

    /// The position the opponent faces after the move, if it ends.
    pub fn child(&self) -> Option<Position> {
        match self.outcome {
            Outcome::Ends { after, .. } => Some(after.flipped()),
            Outcome::NeverEnds(_) => None,
        }
    }
}

/// Which moves count as the same when listing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dedup {
    /// One move per distinct outcome of the position (children once).
    Position,
    /// One move per distinct outcome of each starting choice (pit, direction).
    StartChoice,
}

/// Move generator. Keep one per thread and reuse it: after warm-up it does
/// not allocate for moves without lap choices.
#[derive(Default)]
pub struct MoveGen {
    explorer: Explorer<LapState>,
    moves: Vec<Move>,
    paths: Vec<Choice>,
    endless: Endless,
}

impl MoveGen {
    /// A generator with empty buffers.
    pub fn new() -> MoveGen {
        MoveGen::default()
    }

    /// Lists the moves of `pos` under `rules`; `captures` is false on a
    /// player's first turn. Never-ending paths are listed (use
    /// [`MoveGen::legal`] for the legal moves); children reached by several
    /// paths are listed once, with the first path found.
    pub fn generate(&mut self, pos: &Position, rules: &Rules, captures: bool, dedup: Dedup) {
        self.moves.clear();
        self.paths.clear();
        self.endless = rules.endless;
        let laps = Laps::new(pos.width(), rules, captures);
        for pit in 0..2 * pos.width() {
            let Some(root) = laps.start(pos, pit) else {
                continue;
            };
            let options = laps.start_options(&root);
            // Per starting choice, each direction gets a walk of its own, so
            // outcomes shared with the other direction are listed for both.
            let walks: &[Dirs] = match dedup {
                Dedup::StartChoice if options == Dirs::BOTH => &[Dirs::CCW, Dirs::CW],
                _ => &[options],
            };
            for &options in walks {
                self.walk(pos, rules, &laps, root, options, dedup);
            }
        }
    }

    fn walk(
        &mut self,
        pos: &Position,
        rules: &Rules,
        laps: &Laps,
        root: LapState,
        options: Dirs,
        dedup: Dedup,
    ) {
        let (moves, paths) = (&mut self.moves, &mut self.paths);
        self.explorer.explore(laps, root, options, |event| {
            let (outcome, laps, sown, path) = match event {
                Event::Ends {
                    path,
                    laps,
                    sown,
                    end,
                } => {
                    let after = Position::from_lap_state(pos.width, end);
                    let outcome = Outcome::Ends {
                        after,
                        captured: end.flags & flags::CAPTURED != 0,
                        win: win_after(&after, end.flags, rules),
                    };
                    (outcome, laps, sown, path)
                }
                Event::NeverEnds { path, cycle } => (Outcome::NeverEnds(cycle), 0, 0, path),
            };
            // Never-ending moves stay apart per starting choice: they are
            // all "void", but each is shown with its own cycle.
            let per_start = dedup == Dedup::StartChoice || !matches!(outcome, Outcome::Ends { .. });
            let Some(&start) = path.first() else {
                return;
            };
            let duplicate = moves.iter().any(|m| {
                m.outcome == outcome
                    && (!per_start
                        || paths
                            .get(m.path.0 as usize)
                            .is_some_and(|first| same_start(first, &start)))
            });
            if !duplicate {
                let from = paths.len() as u32;
                paths.extend_from_slice(path);
                moves.push(Move {
                    outcome,
                    laps,
                    sown,
                    path: (from, paths.len() as u32),
                });
            }
        });
    }

    /// Every move found by the last [`MoveGen::generate`], legal or not.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The legal moves: never-ending ones only under `endless = void`.
    pub fn legal(&self) -> impl Iterator<Item = &Move> {
        let void = self.endless == Endless::Void;
        self.moves.iter().filter(move |m| void || m.ends())
    }

    /// The choices of a move's representative path.
    pub fn path(&self, m: &Move) -> &[Choice] {
        // A move from an earlier generation has no path here.
        self.paths
            .get(m.path.0 as usize..m.path.1 as usize)
            .unwrap_or(&[])
    }
}

fn same_start(a: &Choice, b: &Choice) -> bool {
    a.pit == b.pit && a.dir == b.dir
}
