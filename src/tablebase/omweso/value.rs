//! Omweso values: what a table maximises ([`Objective`]), a
//! win/draw/loss value with its distance ([`Wdl`]) or points ([`Value`]),
//! and how they are stored.

use std::fmt;

use super::OmwesoTbError;
use crate::games::omweso::WinKind;

/// What the tables maximise.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Objective {
    /// Win, draw or loss, with the distance to the end in moves
    #[default]
    Wdl,
    /// The points of the final result: −12, −2, −1, 0, 1, 2, 12
    Points,
}

impl Objective {
    /// Every objective, in the order the command line lists them.
    pub const ALL: [Objective; 2] = [Objective::Wdl, Objective::Points];

    /// The name used on the command line, in folder names and in table headers.
    pub fn name(self) -> &'static str {
        match self {
            Objective::Wdl => "wdl",
            Objective::Points => "points",
        }
    }
}

impl std::str::FromStr for Objective {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Objective::ALL
            .into_iter()
            .find(|o| o.name() == s)
            .ok_or_else(|| format!("unknown Omweso objective '{s}' (expected wdl or points)"))
    }
}

impl fmt::Display for Objective {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A win/draw/loss value with the distance to the end in moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Wdl {
    /// A win in this many moves.
    Win(u16),
    /// A draw: perpetual play or a void game.
    Draw,
    /// A loss in this many moves.
    Loss(u16),
}

impl Wdl {
    /// Stored as `d` for a win in `d ≥ 1`, 0 for a draw, `−d − 1` for a
    /// loss in `d ≥ 0`.
    fn encode(self) -> i16 {
        match self {
            Wdl::Win(d) => d as i16,
            Wdl::Draw => 0,
            Wdl::Loss(d) => -(d as i16) - 1,
        }
    }

    pub(super) fn decode(v: i16) -> Wdl {
        match v {
            0 => Wdl::Draw,
            v if v > 0 => Wdl::Win(v as u16),
            v => Wdl::Loss((-(v + 1)) as u16),
        }
    }

    /// The value of a move to a child of value `self`.
    pub(super) fn after(self) -> Wdl {
        match self {
            Wdl::Win(d) => Wdl::Loss(d + 1),
            Wdl::Draw => Wdl::Draw,
            Wdl::Loss(d) => Wdl::Win(d + 1),
        }
    }

    /// Preference order: short wins, long wins, draws, long losses, short
    /// losses.
    pub(super) fn rank(self) -> i32 {
        match self {
            Wdl::Win(d) => 100_000 - i32::from(d),
            Wdl::Draw => 0,
            Wdl::Loss(d) => -100_000 + i32::from(d),
        }
    }
}

/// A value under either objective.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// In a win/draw/loss table.
    Wdl(Wdl),
    /// In a points table: −12 … 12.
    Points(i8),
}

impl Value {
    /// Larger is better for the mover.
    pub(super) fn rank(self) -> i32 {
        match self {
            Value::Wdl(w) => w.rank(),
            Value::Points(p) => i32::from(p),
        }
    }

    pub(super) fn after(self) -> Value {
        match self {
            Value::Wdl(w) => Value::Wdl(w.after()),
            Value::Points(p) => Value::Points(-p),
        }
    }

    /// Whether the mover wins.
    pub fn is_win(self) -> bool {
        matches!(self, Value::Wdl(Wdl::Win(_))) || matches!(self, Value::Points(p) if p > 0)
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Wdl(Wdl::Win(d)) => write!(f, "win in {d}"),
            Value::Wdl(Wdl::Draw) => write!(f, "draw"),
            Value::Wdl(Wdl::Loss(d)) => write!(f, "loss in {d}"),
            Value::Points(p) => write!(f, "{p:+}"),
        }
    }
}

pub(super) fn win_value(objective: Objective, kind: WinKind) -> Value {
    match objective {
        Objective::Wdl => Value::Wdl(Wdl::Win(1)),
        Objective::Points => Value::Points(kind.points() as i8),
    }
}

pub(super) fn draw(objective: Objective) -> Value {
    match objective {
        Objective::Wdl => Value::Wdl(Wdl::Draw),
        Objective::Points => Value::Points(0),
    }
}

/// A mover without a legal move has lost by bulijo.
pub(super) fn no_move(objective: Objective) -> Value {
    match objective {
        Objective::Wdl => Value::Wdl(Wdl::Loss(0)),
        Objective::Points => Value::Points(-(WinKind::Bulijo.points() as i8)),
    }
}

/// A solved value and its distance as a wdl table stores them; a distance
/// past what two bytes hold is an error.
pub(super) fn encode_wdl(value: i8, depth: u16) -> Result<i16, OmwesoTbError> {
    if depth > i16::MAX as u16 - 1 {
        return Err(OmwesoTbError::TooDeep(depth));
    }
    Ok(match value.signum() {
        1 => Wdl::Win(depth),
        0 => Wdl::Draw,
        _ => Wdl::Loss(depth),
    }
    .encode())
}
