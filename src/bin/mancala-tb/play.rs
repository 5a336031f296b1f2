//! Oware against perfect play: a game in the terminal ([`play_oware`]) and
//! the analysis of a game already played ([`analyse_oware`]). Values are
//! the tables' (seeds won over the opponent by the player to move); a
//! move's loss is the value of the position minus the value of the move.

use std::io::{BufRead, Write};

use serde::Serialize;

use mancala_tb::games::oware::{self, Board};
use mancala_tb::tablebase::oware::{MoveValue, OwareTablebase, TablebaseError, best_move};

/// Errors of playing and analysing.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    /// The tables failed.
    #[error(transparent)]
    Tables(#[from] TablebaseError),
    /// A move of the game that the rules do not allow.
    #[error("move {ply}: pit {pit} is not a legal move here (legal: {legal:?})")]
    Illegal {
        /// The move's number, 1 for the first.
        ply: usize,
        /// The pit played.
        pit: u8,
        /// The pits that were legal.
        legal: Vec<u8>,
    },
    /// A move after the game ended.
    #[error("move {ply}: the game is already over")]
    GameOver {
        /// The move's number, 1 for the first.
        ply: usize,
    },
    /// Reading the moves or writing the answers failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// One analysed move.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AnalysedMove {
    /// 1 for the first move of the game.
    pub ply: usize,
    /// "first" or "second": the player who made the move.
    pub player: &'static str,
    /// The pit played, `0..6` in the mover's row.
    pub pit: u8,
    /// Seeds it captured.
    pub captured: u8,
    /// The value of the position before the move, for its mover.
    pub before: i8,
    /// The value of the move played, for the same player.
    pub after: i8,
    /// `before − after`: seeds given away by the move.
    pub loss: i8,
    /// The moves that keep the value.
    pub best: Vec<u8>,
    /// Whether the move gave value away (`loss > 0`).
    pub mistake: bool,
}

/// The analysis of a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Analysis {
    /// The position the game started from, first player to move.
    pub start: Board,
    /// Every move, in order.
    pub moves: Vec<AnalysedMove>,
    /// The position after the last move, seen from the player to move.
    pub end: Board,
    /// Seeds lost to mistakes by the first and the second player.
    pub lost: [i32; 2],
}

/// The value of `board` and its moves.
fn probe(tables: &OwareTablebase, board: &Board) -> Result<(i8, Vec<MoveValue>), TablebaseError> {
    let moves = tables.move_values(board)?;
    let value = moves
        .iter()
        .map(|m| m.value)
        .max()
        .unwrap_or_else(|| oware::no_move_value(tables.rules(), board));
    Ok((value, moves))
}

fn player(ply: usize) -> &'static str {
    if ply % 2 == 1 { "first" } else { "second" }
}

/// Values each move of `pits` (pit numbers 0–5 of the side to move) played
/// from `start`.
pub fn analyse_oware(
    tables: &OwareTablebase,
    start: &Board,
    pits: &[u8],
) -> Result<Analysis, PlayError> {
    let mut board = *start;
    let mut moves = Vec::new();
    let mut lost = [0i32; 2];
    for (i, &pit) in pits.iter().enumerate() {
        let ply = i + 1;
        let (before, options) = probe(tables, &board)?;
        if options.is_empty() {
            return Err(PlayError::GameOver { ply });
        }
        let played = options
            .iter()
            .find(|m| m.pit == pit)
            .ok_or_else(|| PlayError::Illegal {
                ply,
                pit,
                legal: options.iter().map(|m| m.pit).collect(),
            })?;
        let loss = before - played.value;
        lost[i % 2] += i32::from(loss);
        moves.push(AnalysedMove {
            ply,
            player: player(ply),
            pit,
            captured: played.captured,
            before,
            after: played.value,
            loss,
            best: options
                .iter()
                .filter(|m| m.value == before)
                .map(|m| m.pit)
                .collect(),
            mistake: loss > 0,
        });
        board = played.child;
    }
    Ok(Analysis {
        start: *start,
        moves,
        end: board,
        lost,
    })
}

/// The board as the person sees it: the opponent's pits on top, right to
/// left, the person's below, with pit numbers.
pub fn board_text(board: &Board, person_to_move: bool) -> String {
    let (mine, theirs) = if person_to_move {
        (&board[..6], &board[6..])
    } else {
        (&board[6..], &board[..6])
    };
    let row = |pits: &mut dyn Iterator<Item = &u8>| {
        pits.map(|p| format!("{p:>3}")).collect::<Vec<_>>().join("")
    };
    format!(
        "  computer {}\n  you      {}\n  pit      {}\n",
        row(&mut theirs.iter().rev()),
        row(&mut mine.iter()),
        (0..6).map(|p| format!("{p:>3}")).collect::<String>()
    )
}

/// A game against perfect play: the person's moves are read from `input`
/// (one pit number 0–5 a line; `q` or the end of input stops), the
/// computer plays a best move (capturing most, then the lowest pit, among
/// equals). Each of the person's moves is told its value and its loss.
pub fn play_oware(
    tables: &OwareTablebase,
    start: &Board,
    person_first: bool,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<(), PlayError> {
    let mut board = *start;
    let mut person_to_move = person_first;
    let mut score = [0u32; 2]; // person, computer
    let mut lost = 0i32;
    let mut seen = std::collections::HashSet::new();
    loop {
        write!(out, "\n{}", board_text(&board, person_to_move))?;
        let (value, options) = probe(tables, &board)?;
        let whose = if person_to_move {
            "you"
        } else {
            "the computer"
        };
        writeln!(
            out,
            "captured: you {}, computer {}; value for {whose} (to move): {value:+}",
            score[0], score[1]
        )?;
        if options.is_empty() {
            let rest = oware::no_move_value(tables.rules(), &board);
            let side = usize::from(!person_to_move);
            // `rest` is the mover's share of the seeds left on the board.
            if rest >= 0 {
                score[side] += rest.unsigned_abs() as u32;
            } else {
                score[1 - side] += rest.unsigned_abs() as u32;
            }
            writeln!(
                out,
                "{whose} cannot move: game over. Final: you {}, computer {}. Seeds you lost to mistakes: {lost}",
                score[0], score[1]
            )?;
            return Ok(());
        }
        if !seen.insert((board, person_to_move)) {
            writeln!(
                out,
                "the position repeats: the game goes on for ever (value {value:+} with best play)"
            )?;
            return Ok(());
        }
        let chosen = if person_to_move {
            let legal: Vec<u8> = options.iter().map(|m| m.pit).collect();
            let Some(pit) = ask(input, out, &legal)? else {
                writeln!(out, "stopped. Seeds you lost to mistakes: {lost}")?;
                return Ok(());
            };
            let m = *options
                .iter()
                .find(|m| m.pit == pit)
                .expect("asked for a legal pit");
            let loss = value - m.value;
            lost += i32::from(loss);
            let verdict = if loss == 0 {
                "best".to_string()
            } else {
                format!("mistake: costs {loss} seeds")
            };
            writeln!(out, "you play pit {pit}: value {:+} ({verdict})", m.value)?;
            m
        } else {
            let m = *best_move(&options).expect("options are not empty");
            writeln!(out, "computer plays pit {}: value {:+}", m.pit, m.value)?;
            m
        };
        score[usize::from(!person_to_move)] += u32::from(chosen.captured);
        board = chosen.child;
        person_to_move = !person_to_move;
    }
}

/// Reads the person's move; `None` when the input ends or says `q`.
fn ask(
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    legal: &[u8],
) -> Result<Option<u8>, PlayError> {
    loop {
        write!(out, "your move {legal:?}: ")?;
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let line = line.trim();
        if line == "q" {
            return Ok(None);
        }
        match line.parse::<u8>() {
            Ok(pit) if legal.contains(&pit) => return Ok(Some(pit)),
            _ => writeln!(out, "'{line}' is not one of your legal pits {legal:?}")?,
        }
    }
}
