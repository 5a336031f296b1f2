//! The decision rules of the threshold view (`docs/design.md`), shared by
//! the Oware engine and the explicit engine so that one place decides
//! values.
//!
//! For `t` going down over the positive values an exit can have: a position
//! is won at `t` when an exit is worth `t` or a move leads to a child lost at
//! `t`; it is lost at `−t` when its exits are worth at most `−t` and every
//! other move leads to a child won at `t` or better. A position never
//! resolved is worth 0 (perpetual play, or a best line worth exactly 0).

/// The best exit of a position without any move of known value.
pub const NO_EXIT: i8 = i8::MIN;

/// How a position resolves at a threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Won,
    Lost,
}

/// At the start of threshold `t`: does an unresolved position resolve by its
/// own exits? `open` says whether some move still leads to a child not known
/// to be won. (An unresolved position's best exit is at most `t`.)
#[inline]
pub fn seed(exit: i8, open: bool, t: i8) -> Option<Verdict> {
    if exit == t {
        Some(Verdict::Won)
    } else if !open && exit <= -t {
        Some(Verdict::Lost)
    } else {
        None
    }
}

/// A child won at `t` closes one of its parent's moves; with no move left
/// open the parent is lost at `−t` iff its best exit is no better.
#[inline]
pub fn lost_when_closed(exit: i8, t: i8) -> bool {
    exit <= -t
}

/// The value of a position resolved at threshold `t`.
#[inline]
pub fn value(verdict: Verdict, t: i8) -> i8 {
    match verdict {
        Verdict::Won => t,
        Verdict::Lost => -t,
    }
}

/// The thresholds to run, highest first, given the set of exit values
/// (`mask` bit `v` set when some exit is worth `±v`): every value a position
/// can take is an exit value negated along a line of play, or 0.
pub fn thresholds(mask: u128) -> impl Iterator<Item = i8> {
    (1..=127i8).rev().filter(move |&t| mask & (1 << t) != 0)
}

/// The bit of `exit` in a threshold mask.
#[inline]
pub fn mask_bit(exit: i8) -> u128 {
    if exit == NO_EXIT {
        0
    } else {
        1 << exit.unsigned_abs()
    }
}
