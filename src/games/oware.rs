//! Oware / Awari rules (docs/rules.md, "Oware / Awari"), both rulesets.
//!
//! A board is 12 pit counts seen from the side to move: pits `0..=5` are the
//! mover's, counter-clockwise from the mover's leftmost pit, and `6..=11` the
//! opponent's. After a move the child is seen from the new mover, i.e. the
//! board turned half a circle ([`flip`]).

use std::fmt;
use std::str::FromStr;

/// Number of pits on the board.
pub const PITS: usize = 12;
/// Pits per side.
pub const SIDE: usize = 6;
/// Seeds in the game (4 per pit at the start).
pub const MAX_SEEDS: usize = 48;

/// Pit counts, mover first.
pub type Board = [u8; PITS];

/// The rulesets of docs/rules.md.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Ruleset {
    /// Rules of the 2002 solution: a move that starves the opponent is legal only
    /// if every move does; a mover without seeds loses the rest.
    #[default]
    Awari,
    /// Tournament rules: grand slams capture nothing; the mover must feed an
    /// empty opponent, and takes the rest if no move can.
    Abapa,
}

impl Ruleset {
    /// Both rulesets, awari first.
    pub const ALL: [Ruleset; 2] = [Ruleset::Awari, Ruleset::Abapa];

    /// The name used on the command line, in folder names and in table headers.
    pub fn name(self) -> &'static str {
        match self {
            Ruleset::Awari => "awari",
            Ruleset::Abapa => "abapa",
        }
    }
}

impl fmt::Display for Ruleset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Ruleset {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ruleset::ALL
            .into_iter()
            .find(|r| r.name() == s)
            .ok_or_else(|| format!("unknown Oware ruleset '{s}' (expected awari or abapa)"))
    }
}

/// One legal move: the pit played (0..=5), the seeds it captures and the
/// resulting position seen from the new mover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    /// The pit sown from, `0..6` in the mover's row.
    pub pit: u8,
    /// Seeds captured.
    pub captured: u8,
    /// The position the opponent faces.
    pub child: Board,
}

/// The legal moves of a position, in pit order (at most six, no allocation).
#[derive(Clone, Copy, Debug)]
pub struct MoveList {
    moves: [Move; SIDE],
    len: usize,
}

impl MoveList {
    fn new() -> Self {
        let empty = Move {
            pit: 0,
            captured: 0,
            child: [0; PITS],
        };
        MoveList {
            moves: [empty; SIDE],
            len: 0,
        }
    }

    fn push(&mut self, mv: Move) {
        self.moves[self.len] = mv;
        self.len += 1;
    }

    /// The moves, in pit order.
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }

    /// Whether the mover has no legal move.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        self.as_slice()
    }
}

/// Seeds on the board.
pub fn seeds(board: &Board) -> usize {
    board.iter().map(|&s| s as usize).sum()
}

/// Seeds on the mover's side.
pub fn mover_seeds(board: &Board) -> usize {
    board[..SIDE].iter().map(|&s| s as usize).sum()
}

/// Seeds on the opponent's side.
pub fn opponent_seeds(board: &Board) -> usize {
    board[SIDE..].iter().map(|&s| s as usize).sum()
}

/// The board seen from the other side.
pub fn flip(board: &Board) -> Board {
    let mut out = [0; PITS];
    out[..SIDE].copy_from_slice(&board[SIDE..]);
    out[SIDE..].copy_from_slice(&board[..SIDE]);
    out
}

/// Sowing `s` seeds from one pit: what it changes in each pit (one byte per
/// pit of a `u128`, wrapping: the `s` seeds taken from the origin, one put
/// in each pit sown), the last pit sown, and the seeds that pit received
/// before the last one (one a lap: `(s − 1) / 11`).
#[derive(Clone, Copy)]
struct Sowing {
    moved: u128,
    last: u8,
    laps: u8,
}

/// Every sowing, by origin and seed count, worked out at compile time so that
/// a move is one addition on the board's bytes (no byte borrows or
/// overflows: the origin holds exactly `s`, and no pit can exceed the 48
/// seeds of the game), and taking it back one subtraction.
const SOWINGS: [[Sowing; MAX_SEEDS + 1]; SIDE] = {
    let empty = Sowing {
        moved: 0,
        last: 0,
        laps: 0,
    };
    let mut table = [[empty; MAX_SEEDS + 1]; SIDE];
    let mut origin = 0;
    while origin < SIDE {
        let (mut added, mut pit, mut s) = (0u128, origin, 1);
        while s <= MAX_SEEDS {
            pit = (pit + 1) % PITS;
            if pit == origin {
                // The origin is skipped on every lap.
                pit = (pit + 1) % PITS;
            }
            added += 1 << (8 * pit);
            table[origin][s] = Sowing {
                moved: added.wrapping_sub((s as u128) << (8 * origin)),
                last: pit as u8,
                laps: ((s - 1) / (PITS - 1)) as u8,
            };
            s += 1;
        }
        origin += 1;
    }
    table
};

/// A board as the low 12 bytes of a u128, pit `p` in byte `p`: the form of
/// the engines' inner loops, where a move is one addition on the bytes.
pub type Packed = u128;

/// The board packed ([`Packed`]).
#[inline]
pub fn packed(board: &Board) -> Packed {
    let mut bytes = [0u8; 16];
    bytes[..PITS].copy_from_slice(board);
    u128::from_le_bytes(bytes)
}

/// The board of a [`Packed`] one.
#[inline]
pub fn unpacked(bits: Packed) -> Board {
    let mut board = [0; PITS];
    board.copy_from_slice(&bits.to_le_bytes()[..PITS]);
    board
}

/// The seeds a capture ending in `last` would take: opponent pits holding 2 or
/// 3, from `last` backwards (clockwise) while the run lasts.
#[inline]
pub fn capture_run(board: &Board, last: usize) -> u8 {
    let mut taken = 0;
    let mut pit = last;
    while pit >= SIDE && (board[pit] == 2 || board[pit] == 3) {
        taken += board[pit];
        pit -= 1;
    }
    taken
}

/// The board flipped ([`flip`]), packed.
#[inline]
fn flipped(bits: u128) -> u128 {
    const HALF: u32 = 8 * SIDE as u32;
    (bits >> HALF) | (bits & ((1 << HALF) - 1)) << HALF
}

/// Whether the opponent's pits of a packed board are all empty.
#[inline]
fn opponent_empty(bits: u128) -> bool {
    bits >> (8 * SIDE) == 0
}

/// Plays `origin` (holding seeds) of the packed `board` without legality
/// checks: sowing, then the capture the ruleset allows. Returns the board
/// after the move (mover's view, packed) and the seeds captured.
#[inline]
fn play_unchecked(rules: Ruleset, board: u128, origin: usize) -> (u128, u8) {
    let pits = board.to_le_bytes();
    let s = pits[origin] as usize;
    debug_assert!(s > 0 && s <= MAX_SEEDS);
    let sowing = SOWINGS[origin][s];
    let after = board.wrapping_add(sowing.moved);
    // The last pit sown, before the capture run is walked: it got a seed a
    // lap and one more.
    let last = sowing.last as usize;
    if last < SIDE || !matches!(pits[last] + sowing.laps + 1, 2 | 3) {
        return (after, 0);
    }
    // The capture run: opponent pits holding 2 or 3, from the last one sown
    // backwards.
    let mut pits = after.to_le_bytes();
    let (mut taken, mut pit) = (0, last);
    while pit >= SIDE && matches!(pits[pit], 2 | 3) {
        taken += pits[pit];
        pits[pit] = 0;
        pit -= 1;
    }
    let captured = u128::from_le_bytes(pits);
    // abapa: a grand slam (taking every opponent seed) is cancelled.
    if rules == Ruleset::Abapa && opponent_empty(captured) {
        (after, 0)
    } else {
        (captured, taken)
    }
}

/// The legal moves of `board` under `rules`. When the list is empty the game
/// is over and [`no_move_value`] gives the position's value.
pub fn legal_moves(rules: Ruleset, board: &Board) -> MoveList {
    let children = Children::new(rules, board);
    let mut moves = MoveList::new();
    for pit in children.legal() {
        moves.push(Move {
            pit: pit as u8,
            captured: children.captured(pit),
            child: children.child(pit),
        });
    }
    moves
}

/// The legal moves of a position as the engines read them: which pits may
/// be played, and for each the seeds it captures and the board after it,
/// kept packed until a child is asked for. The one place that decides which
/// moves are legal ([`legal_moves`] lists them).
#[derive(Clone, Copy)]
pub struct Children {
    /// Bit `p` set: pit `p` may be played.
    legal: u8,
    /// Bit `p` set: playing pit `p` captures.
    capturing: u8,
    captured: [u8; SIDE],
    /// The board after each move (mover's view, packed).
    after: [u128; SIDE],
}

impl Children {
    /// Sows every pit of `board` that holds seeds and keeps the legal moves.
    #[inline]
    pub fn new(rules: Ruleset, board: &Board) -> Children {
        Children::of_packed(rules, packed(board))
    }

    /// [`Children::new`] of a [`Packed`] board.
    #[inline]
    pub fn of_packed(rules: Ruleset, bits: Packed) -> Children {
        let mut children = Children {
            legal: 0,
            capturing: 0,
            captured: [0; SIDE],
            after: [0; SIDE],
        };
        // Moves after which the opponent (the next mover) has no seeds.
        let mut starving = 0u8;
        for origin in sown(bits) {
            let (after, captured) = play_unchecked(rules, bits, origin);
            children.legal |= 1 << origin;
            children.capturing |= u8::from(captured != 0) << origin;
            children.captured[origin] = captured;
            children.after[origin] = after;
            starving |= u8::from(opponent_empty(after)) << origin;
        }
        // awari: a starving move is legal only if every move starves. abapa:
        // an empty opponent must be fed (otherwise no move starves, since grand
        // slams are cancelled).
        if starving != 0 && (rules == Ruleset::Abapa || starving != children.legal) {
            children.legal &= !starving;
        }
        children
    }

    /// Whether the mover has no legal move ([`no_move_value`] then).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.legal == 0
    }

    /// The pits of the legal moves, in order.
    #[inline]
    pub fn legal(&self) -> Pits {
        Pits(self.legal)
    }

    /// The pits of the legal non-capturing moves, in order.
    #[inline]
    pub fn quiet(&self) -> Pits {
        Pits(self.legal & !self.capturing)
    }

    /// The pits of the legal capturing moves, in order.
    #[inline]
    pub fn captures(&self) -> Pits {
        Pits(self.legal & self.capturing)
    }

    /// The seeds the move from `pit` captures.
    #[inline]
    pub fn captured(&self, pit: usize) -> u8 {
        self.captured[pit]
    }

    /// The position the opponent faces after the move from `pit`.
    #[inline]
    pub fn child(&self, pit: usize) -> Board {
        unpacked(self.packed_child(pit))
    }

    /// [`Children::child`], packed.
    #[inline]
    pub fn packed_child(&self, pit: usize) -> Packed {
        flipped(self.after[pit])
    }
}

/// The lowest pit of `pits` whose move captures nothing and leaves the
/// opponent seeds, with the child it leads to (packed): such a move is
/// legal whatever the others are, and non-capturing, so it is found
/// without sowing the rest as [`Children`] does. `None` if no pit of
/// `pits` holding seeds moves so (its other moves, if any, capture or
/// starve the opponent: [`Children`] decides them).
#[inline]
pub fn first_feeding_quiet(rules: Ruleset, bits: Packed, pits: Pits) -> Option<(usize, Packed)> {
    for origin in pits & sown(bits) {
        let (after, captured) = play_unchecked(rules, bits, origin);
        if captured == 0 && !opponent_empty(after) {
            return Some((origin, flipped(after)));
        }
    }
    None
}

/// Every pit of the mover's row.
pub const ALL_PITS: Pits = Pits((1 << SIDE) - 1);

/// The pits of the mover's row that hold seeds (of a packed board).
#[inline]
fn sown(bits: u128) -> Pits {
    const LOW: u64 = 0x7f7f_7f7f_7f7f;
    let row = bits as u64 & 0xffff_ffff_ffff;
    // The top bit of each byte set where the pit holds seeds (no carry
    // crosses a byte).
    let occupied = (((row & LOW) + LOW) | row) & 0x8080_8080_8080;
    // Gathers the top bit of byte `p` into bit `40 + p`: no two of the
    // partial products land on the same bit, so nothing carries.
    const GATHER: u64 = 1 << 40 | 1 << 33 | 1 << 26 | 1 << 19 | 1 << 12 | 1 << 5;
    Pits(((occupied >> 7).wrapping_mul(GATHER) >> 40) as u8 & 0x3f)
}

/// Pits of the mover's row, in order, from a set of them (bit `p`: pit `p`).
#[derive(Clone, Copy)]
pub struct Pits(u8);

impl Pits {
    /// The pits but `pit`.
    #[inline]
    pub fn except(self, pit: usize) -> Pits {
        Pits(self.0 & !(1 << pit))
    }

    /// Whether there are none.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl std::ops::BitAnd for Pits {
    type Output = Pits;

    #[inline]
    fn bitand(self, other: Pits) -> Pits {
        Pits(self.0 & other.0)
    }
}

impl Iterator for Pits {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let pit = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(pit)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = self.0.count_ones() as usize;
        (len, Some(len))
    }
}

impl ExactSizeIterator for Pits {}

/// The value of a position without legal moves.
pub fn no_move_value(rules: Ruleset, board: &Board) -> i8 {
    let n = seeds(board) as i8;
    match rules {
        // The mover cannot move; the opponent takes the rest.
        Ruleset::Awari => -n,
        // Either the mover has no seeds (the opponent takes them), or no move
        // can feed the empty opponent (the mover takes them).
        Ruleset::Abapa if mover_seeds(board) == 0 => -n,
        Ruleset::Abapa => n,
    }
}

/// Visits every position from which a legal, non-capturing move leads to
/// `child` (seen from its mover), with the pit played. These are the
/// same-layer edges of the retrograde pass, each visited exactly once.
/// Boards are packed: the engines rank the parents straight from that form.
///
/// Works backwards: the parent's origin pit is empty in the child; taking back
/// the last `s` seeds sown from it gives the candidate parent with `s` seeds in
/// the origin. The checks below mirror [`legal_moves`]; a test compares both.
#[inline]
pub fn for_each_unmove(rules: Ruleset, child: Packed, mut visit: impl FnMut(Packed, usize)) {
    // The board right after the parent's move, from the parent mover's view.
    let bits = flipped(child);
    let after = unpacked(bits);
    let opponent_total = opponent_seeds(&after);
    let starved = opponent_total == 0;
    if starved && rules == Ruleset::Abapa {
        // Every legal abapa move leaves the opponent with seeds.
        return;
    }
    // Empty opponent pits of the board after the move.
    let empty_after = after[SIDE..].iter().filter(|&&p| p == 0).count();
    for origin in 0..SIDE {
        if after[origin] != 0 {
            continue;
        }
        // The parent's empty opponent pits (it must have one to be indexed).
        let mut empty = empty_after;
        // `s` counts the seeds too: the iterator form compiles to more work.
        #[allow(clippy::needless_range_loop)]
        for s in 1..=MAX_SEEDS {
            let sowing = SOWINGS[origin][s];
            let pit = sowing.last as usize;
            // Taking this seed back needs one in `pit` besides those taken
            // back on earlier laps.
            if after[pit] <= sowing.laps {
                break;
            }
            if pit >= SIDE && after[pit] == sowing.laps + 1 {
                empty += 1;
            }
            // The move must not capture (a cancelled abapa grand slam counts as
            // not capturing).
            if pit >= SIDE && matches!(after[pit], 2 | 3) {
                let taken = capture_run(&after, pit) as usize;
                if !(rules == Ruleset::Abapa && taken == opponent_total) {
                    continue;
                }
            }
            // Positions whose opponent pits are all occupied are not indexed
            // (only the initial position is one of them).
            if empty == 0 {
                continue;
            }
            // The parent: the sowing taken back, its seeds in the origin.
            let candidate = bits.wrapping_sub(sowing.moved);
            if starved && !every_move_starves(candidate) {
                continue;
            }
            visit(candidate, origin);
        }
    }
}

/// Awari only: does every move of `board` leave the opponent without seeds?
fn every_move_starves(bits: Packed) -> bool {
    sown(bits).all(|origin| opponent_empty(play_unchecked(Ruleset::Awari, bits, origin).0))
}

/// Why pit counts are not an Oware position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    /// Not 12 pit counts.
    #[error(
        "an Oware position has {PITS} pits (6 for the mover, then 6 for the opponent), got {0}"
    )]
    PitCount(usize),
    /// More than [`MAX_SEEDS`] seeds.
    #[error("an Oware position holds at most {MAX_SEEDS} seeds, this one has {0}")]
    TooManySeeds(u64),
}

/// Parses twelve pit counts (mover's pits first) into a board, checking that
/// there are twelve and at most [`MAX_SEEDS`] seeds in all.
pub fn parse_board(pits: &[u32]) -> Result<Board, BoardError> {
    if pits.len() != PITS {
        return Err(BoardError::PitCount(pits.len()));
    }
    let total: u64 = pits.iter().map(|&p| u64::from(p)).sum();
    if total > MAX_SEEDS as u64 {
        return Err(BoardError::TooManySeeds(total));
    }
    let mut board = [0; PITS];
    for (slot, &p) in board.iter_mut().zip(pits) {
        *slot = p as u8;
    }
    Ok(board)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(rules: Ruleset, board: Board) -> Vec<(u8, u8, Board)> {
        legal_moves(rules, &board)
            .iter()
            .map(|m| (m.pit, m.captured, m.child))
            .collect()
    }

    #[test]
    fn sowing_goes_counter_clockwise_into_the_opponent() {
        // 4 seeds from pit 3 land in 4, 5, 6, 7; no capture (7 holds 1).
        let b = [0, 0, 0, 4, 0, 0, 1, 0, 0, 0, 0, 1];
        let m = moves(Ruleset::Awari, b);
        assert_eq!(m.len(), 1);
        let (pit, captured, child) = m[0];
        assert_eq!((pit, captured), (3, 0));
        // Child seen from the opponent: its pits first.
        assert_eq!(child, [2, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1]);
    }

    #[test]
    fn twelve_or_more_seeds_skip_the_origin() {
        // 12 seeds from pit 0: one in each of the 11 other pits, the 12th in
        // pit 1 (the origin is skipped), so pit 0 stays empty.
        let sown = |b: Board, origin| {
            let (after, captured) = play_unchecked(Ruleset::Awari, packed(&b), origin);
            assert_eq!(captured, 0);
            (unpacked(after), SOWINGS[origin][b[origin] as usize].last)
        };
        let b = [12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(sown(b, 0), ([0, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], 1));
        // 23 seeds: two full laps of the 11 other pits, plus one.
        let b = [23, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(sown(b, 0), ([0, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2], 1));
        // 22 seeds end exactly on the pit before the origin.
        let b = [0, 0, 22, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(sown(b, 2), ([2, 2, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2], 1));
    }

    #[test]
    fn captures_chain_backwards_over_twos_and_threes() {
        // Pit 5 (3 seeds) sows into 6, 7, 8; they become 2, 3, 2: all three
        // are captured (7 seeds). Pit 9 is untouched.
        let b = [1, 0, 0, 0, 0, 3, 1, 2, 1, 1, 0, 0];
        let m = moves(Ruleset::Awari, b);
        let play5 = m.iter().find(|m| m.0 == 5).unwrap();
        assert_eq!(play5.1, 7);
        assert_eq!(play5.2, [0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn capture_chain_stops_at_a_pit_that_is_not_two_or_three() {
        // Last seed in 8 (→2); 7 becomes 4 (not captured) so the chain stops,
        // and 6 (→2) is not taken.
        let b = [0, 0, 0, 0, 0, 3, 1, 3, 1, 0, 0, 0];
        let m = moves(Ruleset::Awari, b);
        assert_eq!(m[0].1, 2);
    }

    #[test]
    fn capture_chain_never_enters_the_movers_own_side() {
        // 7 seeds from pit 0 reach pit 7: the run 7, 6 is taken, pit 5 (own
        // side, now 2) is not. Pit 11 keeps the opponent supplied.
        let b = [7, 0, 0, 0, 0, 1, 1, 2, 0, 0, 0, 1];
        let m = moves(Ruleset::Awari, b);
        let play0 = m.iter().find(|m| m.0 == 0).unwrap();
        assert_eq!(play0.1, 5);
    }

    #[test]
    fn awari_starving_move_is_illegal_when_another_exists() {
        // Opponent has no seeds; pit 0 (1 seed) gives none, pit 5 (1 seed)
        // feeds pit 6. Only pit 5 is legal.
        let b = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0];
        let m = moves(Ruleset::Awari, b);
        assert_eq!(m.iter().map(|m| m.0).collect::<Vec<_>>(), vec![5]);
        // Capturing everything is also starving: pit 5 sows into 6 (→2) and
        // takes the opponent's only seeds; pit 0 keeps the opponent supplied.
        let b = [1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0];
        let m = moves(Ruleset::Awari, b);
        assert_eq!(m.iter().map(|m| m.0).collect::<Vec<_>>(), vec![0]);
    }

    #[test]
    fn awari_every_move_starving_then_all_are_legal_and_capture() {
        // Only pit 5 can move; it captures the opponent's last seeds (2):
        // legal because no move avoids starving.
        let b = [0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0];
        let m = moves(Ruleset::Awari, b);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].1, 2);
        // The opponent then cannot move.
        assert!(legal_moves(Ruleset::Awari, &m[0].2).is_empty());
        assert_eq!(no_move_value(Ruleset::Awari, &[0; 12]), 0);
        let stuck = [0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 1, 0];
        assert_eq!(no_move_value(Ruleset::Awari, &stuck), -4);
    }

    #[test]
    fn abapa_grand_slam_is_cancelled() {
        // Pit 5 would take the opponent's only seeds (pit 6 → 2): the move is
        // legal but captures nothing.
        let b = [1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0];
        let m = moves(Ruleset::Abapa, b);
        let play5 = m.iter().find(|m| m.0 == 5).unwrap();
        assert_eq!(play5.1, 0);
        assert_eq!(play5.2, [2, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0]);
        // Not a grand slam when the opponent keeps a seed elsewhere.
        let b = [0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1];
        let m = moves(Ruleset::Abapa, b);
        assert_eq!(m[0].1, 2);
    }

    #[test]
    fn abapa_must_feed_an_empty_opponent() {
        let b = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0];
        let m = moves(Ruleset::Abapa, b);
        assert_eq!(m.iter().map(|m| m.0).collect::<Vec<_>>(), vec![5]);
        // No move can feed: the game ends and the mover takes the rest.
        let b = [2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        assert!(legal_moves(Ruleset::Abapa, &b).is_empty());
        assert_eq!(no_move_value(Ruleset::Abapa, &b), 3);
        // A mover without seeds loses the rest.
        let b = [0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0];
        assert_eq!(no_move_value(Ruleset::Abapa, &b), -2);
    }

    /// The first feeding quiet move is the lowest quiet legal move that
    /// leaves the opponent seeds, whichever pit is left out; and where
    /// there is none, no quiet legal move feeds the opponent.
    #[test]
    fn first_feeding_quiet_move_agrees_with_children() {
        for rules in Ruleset::ALL {
            for n in 0..=7u8 {
                for b in all_boards(n) {
                    let children = Children::new(rules, &b);
                    for skip in [None, Some(0), Some(3), Some(5)] {
                        let pits = skip.map_or(ALL_PITS, |p| ALL_PITS.except(p));
                        let expected = children
                            .quiet()
                            .filter(|&p| Some(p) != skip)
                            .map(|p| (p, children.packed_child(p)))
                            .find(|&(_, child)| child & 0xffff_ffff_ffff != 0);
                        let found = first_feeding_quiet(rules, packed(&b), pits);
                        assert_eq!(found, expected, "{rules} {b:?} without {skip:?}");
                    }
                }
            }
        }
    }

    /// The unmove generator must produce exactly the non-capturing legal edges
    /// of the forward generator, for every indexed parent.
    #[test]
    fn unmoves_invert_non_capturing_moves() {
        use std::collections::HashSet;
        for rules in Ruleset::ALL {
            for n in 0..=7u8 {
                let boards = all_boards(n);
                let indexed = |b: &Board| b[SIDE..].contains(&0);
                let mut forward = HashSet::new();
                for b in boards.iter().filter(|b| indexed(b)) {
                    for m in legal_moves(rules, b).iter().filter(|m| m.captured == 0) {
                        forward.insert((*b, m.pit as usize, m.child));
                    }
                }
                let mut backward = HashSet::new();
                for c in &boards {
                    for_each_unmove(rules, packed(c), |p, pit| {
                        assert!(
                            backward.insert((unpacked(p), pit, *c)),
                            "edge visited twice"
                        );
                    });
                }
                assert_eq!(forward, backward, "{rules} with {n} seeds");
            }
        }
    }

    /// The same on sampled boards with enough seeds to sow more than one
    /// lap: every forward edge is found backwards, and every unmove is a
    /// forward edge.
    #[test]
    fn unmoves_invert_non_capturing_moves_of_many_laps() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut random = |below: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % below
        };
        let unmoves = |rules, child: &Board| {
            let mut found = Vec::new();
            for_each_unmove(rules, packed(child), |p, pit| {
                found.push((unpacked(p), pit))
            });
            found
        };
        let mut edges = 0;
        for rules in Ruleset::ALL {
            for n in [11, 12, 13, 16, 23, 30, 48] {
                for _ in 0..2000 {
                    // A board with `n` seeds, a few pits heavy, one
                    // opponent pit empty (indexed).
                    let mut b = [0u8; PITS];
                    for _ in 0..n {
                        let pit = if random(3) == 0 {
                            random(3) as usize
                        } else {
                            random(11) as usize
                        };
                        b[pit] += 1;
                    }
                    b.swap(SIDE + random(6) as usize, 11);
                    let (last, first) = (b[11], random(SIDE as u64) as usize);
                    b[11] = 0;
                    b[first] += last;
                    for m in legal_moves(rules, &b).iter().filter(|m| m.captured == 0) {
                        assert!(unmoves(rules, &m.child).contains(&(b, m.pit as usize)));
                        edges += 1;
                    }
                    for c in [b, flip(&b)] {
                        for (p, pit) in unmoves(rules, &c) {
                            assert!(p[SIDE..].contains(&0), "{p:?} is not indexed");
                            let forward = legal_moves(rules, &p);
                            let m = forward.iter().find(|m| m.pit as usize == pit);
                            assert!(
                                m.is_some_and(|m| m.captured == 0 && m.child == c),
                                "{rules}: {p:?} pit {pit} does not reach {c:?}"
                            );
                        }
                    }
                }
            }
        }
        assert!(edges > 50_000, "only {edges} edges checked");
    }

    fn all_boards(n: u8) -> Vec<Board> {
        let mut out = Vec::new();
        let mut b = [0u8; PITS];
        fn rec(b: &mut Board, pit: usize, left: u8, out: &mut Vec<Board>) {
            if pit == PITS - 1 {
                b[pit] = left;
                out.push(*b);
                return;
            }
            for s in 0..=left {
                b[pit] = s;
                rec(b, pit + 1, left - s, out);
            }
        }
        rec(&mut b, 0, n, &mut out);
        out
    }

    #[test]
    fn parse_board_rejects_bad_input() {
        assert!(
            parse_board(&[4; 11])
                .unwrap_err()
                .to_string()
                .contains("12 pits")
        );
        assert!(
            parse_board(&[5; 12])
                .unwrap_err()
                .to_string()
                .contains("at most 48")
        );
        assert_eq!(parse_board(&[4; 12]).unwrap(), [4; 12]);
    }
}
