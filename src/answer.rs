//! Answers to "what is this position worth, and each of its moves": one
//! probe per game that both `query --json` and the HTTP server serialise, so
//! the two never disagree. Fields are declared in alphabetical order, the
//! order `query --json` always printed them in.

use serde::Serialize;

use mancala_tb::games::engehe;
use mancala_tb::games::omweso;
use mancala_tb::games::oware::{self, Board};
use mancala_tb::games::relay::Choice;
use mancala_tb::tablebase::engehe::{EngeheTablebase, EngeheTbError, MoveValue as EngeheMoveValue};
use mancala_tb::tablebase::omweso::{
    MoveResult, MoveValue, OmwesoTablebase, OmwesoTbError, Value, Wdl,
};
use mancala_tb::tablebase::oware::{
    MoveValue as OwareMoveValue, OwareTablebase, PvEnd, TablebaseError,
};

/// An Oware position's value, its moves and a principal variation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OwareAnswer {
    /// The pits of the moves that keep the value.
    pub best: Vec<u8>,
    /// The moves to the capture that secures the value (the side ahead
    /// hurrying, the side behind delaying); 0 for a draw; null without a
    /// distance table.
    pub distance: Option<u16>,
    /// Every legal move in pit order (empty: the game is over).
    pub moves: Vec<OwareMove>,
    /// The principal variation: best moves from here, at most `pv_limit`.
    pub pv: Vec<OwarePvStep>,
    /// Why the principal variation stops.
    #[serde(skip)]
    pub pv_end: PvEnd,
    /// Seeds the mover wins over the opponent with perfect play.
    pub value: i8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
/// One legal Oware move and its value.
pub struct OwareMove {
    /// Seeds captured.
    pub captured: u8,
    /// The position after the move, seen from the next mover.
    pub child: Board,
    /// The moves to the capture that secures its value (1 for a capture);
    /// null without a distance table.
    pub distance: Option<u16>,
    /// The pit sown from, `0..6` in the mover's row.
    pub pit: u8,
    /// Its value for the mover: `captured − value(child)`.
    pub value: i8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
/// One move of an Oware principal variation.
pub struct OwarePvStep {
    /// The position after the move, seen from the next mover.
    pub board: Board,
    /// Seeds captured.
    pub captured: u8,
    /// The moves from the position it is played from to the capture that
    /// secures the value; null without a distance table.
    pub distance: Option<u16>,
    /// The pit sown from, `0..6` in the mover's row.
    pub pit: u8,
    /// The value of the move for the player making it.
    pub value: i8,
}

impl From<&OwareMoveValue> for OwareMove {
    fn from(m: &OwareMoveValue) -> OwareMove {
        OwareMove {
            captured: m.captured,
            child: m.child,
            distance: m.distance,
            pit: m.pit,
            value: m.value,
        }
    }
}

impl OwareAnswer {
    /// Probes `board`: its value, every move's, and a principal variation
    /// of at most `pv_limit` moves.
    pub fn probe(
        tables: &OwareTablebase,
        board: &Board,
        pv_limit: usize,
    ) -> Result<OwareAnswer, TablebaseError> {
        let value = tables.value(board)?;
        let distance = tables.distance(board)?;
        let moves: Vec<OwareMove> = tables
            .move_values(board)?
            .iter()
            .map(OwareMove::from)
            .collect();
        let best = moves
            .iter()
            .filter(|m| m.value == value)
            .map(|m| m.pit)
            .collect();
        let (pv, pv_end) = tables.principal_variation(board, pv_limit)?;
        let pv = pv
            .iter()
            .map(|s| OwarePvStep {
                board: s.board,
                captured: s.captured,
                distance: s.distance,
                pit: s.pit,
                value: s.value,
            })
            .collect();
        Ok(OwareAnswer {
            best,
            distance,
            moves,
            pv,
            pv_end,
            value,
        })
    }

    /// Seeds won along the principal variation by the mover and the
    /// opponent, counting the share-out when the line ends the game.
    pub fn pv_score(&self, rules: oware::Ruleset) -> [i32; 2] {
        let mut score = [0i32; 2];
        for (i, step) in self.pv.iter().enumerate() {
            score[i % 2] += i32::from(step.captured);
        }
        if let (PvEnd::GameOver, Some(last)) = (self.pv_end, self.pv.last()) {
            // The player to move at the end cannot: the rest is shared out.
            let stuck = self.pv.len() % 2;
            let rest = oware::no_move_value(rules, &last.board);
            score[if rest < 0 { 1 - stuck } else { stuck }] += i32::from(rest.abs());
        }
        score
    }
}

/// An En Gehé position's value, its moves and a principal variation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EngeheAnswer {
    /// Moves to the capture that secures the value with best play (0 for a
    /// draw or a finished game); null without a distance table.
    pub distance: Option<u16>,
    /// Every legal move in hole order (empty: the game is over).
    pub moves: Vec<EngeheMove>,
    /// The principal variation: best moves from here, at most `pv_limit`.
    pub pv: Vec<EngeheMove>,
    /// The counters the mover's team gets from here on less the opponent's.
    pub value: i8,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
/// One legal En Gehé move and its value.
pub struct EngeheMove {
    /// Counters captured; null for a never-ending move (the game is void).
    pub captured: Option<u8>,
    /// The holes after the move, seen from the next mover; null when the
    /// move never ends.
    pub child: Option<Vec<u8>>,
    /// Moves to the next capture (or the end) with best play after it, this
    /// move included; null for a move to a drawn position or without a
    /// distance table.
    pub distance: Option<u16>,
    /// The hole sown from, `0..W` in the mover's row.
    pub hole: u8,
    /// Its value for the mover (0 for a never-ending move).
    pub value: i8,
}

impl From<&EngeheMoveValue> for EngeheMove {
    fn from(m: &EngeheMoveValue) -> EngeheMove {
        EngeheMove {
            captured: m.captured,
            child: m.child.map(|c| c.holes().to_vec()),
            distance: m.distance,
            hole: m.hole,
            value: m.value,
        }
    }
}

impl EngeheAnswer {
    /// Probes `pos`: its value and distance, every move's, and a principal
    /// variation of at most `pv_limit` moves.
    pub fn probe(
        tables: &EngeheTablebase,
        pos: &engehe::Position,
        pv_limit: usize,
    ) -> Result<EngeheAnswer, EngeheTbError> {
        let moves = tables
            .move_values(pos)?
            .iter()
            .map(EngeheMove::from)
            .collect();
        let pv = (tables.principal_variation(pos, pv_limit)?.iter())
            .map(EngeheMove::from)
            .collect();
        Ok(EngeheAnswer {
            distance: tables.distance(pos)?,
            moves,
            pv,
            value: tables.value(pos)?,
        })
    }
}

/// An Omweso position's value, its moves and a principal variation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OmwesoAnswer {
    /// Moves to the end of the game with best play (0 for a draw); null for
    /// a points table without its distance table.
    pub distance: Option<u16>,
    /// Every legal move (one per distinct outcome of each start).
    pub moves: Vec<OmwesoMove>,
    /// The principal variation: best moves from here, at most `pv_limit`.
    pub pv: Vec<OmwesoMove>,
    /// The position's value for the mover.
    pub value: OmwesoValue,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
/// One legal Omweso move and its value.
pub struct OmwesoMove {
    /// Moves to the end of the game with best play after it, this move
    /// included; null for a move to a drawn position or without a distance
    /// table.
    pub distance: Option<u16>,
    /// The lap choices that make the move.
    pub path: Vec<PathStep>,
    /// Where it leads.
    pub result: OmwesoResult,
    /// Its value for the mover.
    pub value: OmwesoValue,
}

/// One lap choice of a move's path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PathStep {
    /// `ccw` or `cw`.
    pub direction: &'static str,
    /// The lap, counted from 0 at the move's start.
    pub lap: u64,
    /// The pit the lap starts from, in the mover's sowing order.
    pub pit: usize,
}

impl From<&Choice> for PathStep {
    fn from(c: &Choice) -> PathStep {
        PathStep {
            direction: c.dir.name(),
            lap: c.lap,
            pit: c.pit,
        }
    }
}

/// `{"result": "win", "moves": d}`, `{"result": "draw"}`, `{"result":
/// "loss", "moves": d}`, or the points as a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum OmwesoValue {
    /// A win/draw/loss table's value.
    Wdl {
        #[serde(skip_serializing_if = "Option::is_none")]
        /// Moves to the end; absent for a draw.
        moves: Option<u16>,
        /// `win`, `draw` or `loss`.
        result: &'static str,
    },
    /// A points table's value: −12 … 12.
    Points(i8),
}

impl From<Value> for OmwesoValue {
    fn from(v: Value) -> OmwesoValue {
        let wdl = |result, moves| OmwesoValue::Wdl { moves, result };
        match v {
            Value::Wdl(Wdl::Win(d)) => wdl("win", Some(d)),
            Value::Wdl(Wdl::Draw) => wdl("draw", None),
            Value::Wdl(Wdl::Loss(d)) => wdl("loss", Some(d)),
            Value::Points(p) => OmwesoValue::Points(p),
        }
    }
}

/// `{"wins": kind, "points": p}`, `"void"` or `{"child": pits}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
/// Where an Omweso move leads.
pub enum OmwesoResult {
    /// The move wins at once: the points and the kind of win.
    Wins {
        /// The points the win scores.
        points: u32,
        /// The kind of win (`okutema`, `bulijo`, …).
        wins: &'static str,
    },
    /// The move never ends, voiding the game: always `"void"`.
    Void(&'static str),
    /// The opponent moves next.
    Child {
        /// The `4W` pits, the opponent's side first.
        child: Vec<u8>,
    },
}

impl From<MoveResult> for OmwesoResult {
    fn from(r: MoveResult) -> OmwesoResult {
        match r {
            MoveResult::Wins(kind) => OmwesoResult::Wins {
                points: kind.points(),
                wins: kind.name(),
            },
            MoveResult::Void => OmwesoResult::Void("void"),
            MoveResult::Child(child) => OmwesoResult::Child {
                child: child.pits().to_vec(),
            },
        }
    }
}

impl From<&MoveValue> for OmwesoMove {
    fn from(m: &MoveValue) -> OmwesoMove {
        OmwesoMove {
            distance: m.distance,
            path: m.path.iter().map(PathStep::from).collect(),
            result: m.result.into(),
            value: m.value.into(),
        }
    }
}

impl OmwesoAnswer {
    /// Probes `pos`: its value, every move's, and a principal variation of
    /// at most `pv_limit` moves.
    pub fn probe(
        tables: &OmwesoTablebase,
        pos: &omweso::Position,
        pv_limit: usize,
    ) -> Result<OmwesoAnswer, OmwesoTbError> {
        Ok(OmwesoAnswer {
            distance: tables.distance(pos)?,
            moves: tables
                .move_values(pos)?
                .iter()
                .map(OmwesoMove::from)
                .collect(),
            pv: tables
                .principal_variation(pos, pv_limit)?
                .iter()
                .map(OmwesoMove::from)
                .collect(),
            value: tables.value(pos)?.into(),
        })
    }
}
