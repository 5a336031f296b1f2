//! Oware against perfect play: a game in the terminal ([`play_oware`]) and
//! the analysis of a game already played ([`analyse_oware`]). Values are
//! the tables' (seeds won over the opponent by the player to move); a
//! move's loss is the value of the position minus the value of the move.
//! Both work with the layers a folder holds: a game starts where the tables
//! cover it ([`start_position`]), and an analysis values the moves whose
//! positions they cover and marks the others.

use std::io::{BufRead, Write};

use serde::Serialize;

use mancala_tb::error::Cause;
use mancala_tb::games::oware::{self, Board, PITS};
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

impl PlayError {
    /// Why it failed: a move the rules refuse is bad input; the tables'
    /// errors keep their cause (a missing layer, a damaged table).
    pub fn cause(&self) -> Cause<'_> {
        match self {
            PlayError::Tables(e) => e.cause(),
            PlayError::Illegal { .. } | PlayError::GameOver { .. } => Cause::BadInput,
            PlayError::Io(_) => Cause::Other,
        }
    }
}

/// One analysed move. Its values are `None` (null in JSON) when the
/// position it was played from is beyond the built layers (`covered`
/// false): more seeds than the tables hold.
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
    /// Seeds on the board before the move: the layer of its position.
    pub seeds: usize,
    /// Whether the built tables cover the position before the move (its
    /// layer and those its captures lead to), so that the move is valued.
    pub covered: bool,
    /// The value of the position before the move, for its mover.
    pub before: Option<i8>,
    /// The value of the move played, for the same player.
    pub after: Option<i8>,
    /// `before − after`: seeds given away by the move.
    pub loss: Option<i8>,
    /// The moves that keep the value.
    pub best: Option<Vec<u8>>,
    /// Whether the move gave value away (`loss > 0`).
    pub mistake: Option<bool>,
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
    /// Seeds lost to mistakes by the first and the second player, in the
    /// moves the tables cover.
    pub lost: [i32; 2],
    /// The layers (seed counts) whose tables the folder holds.
    pub built_layers: Vec<usize>,
}

/// The value of `board` (its own entry, as `query` reads it) and its moves.
fn probe(tables: &OwareTablebase, board: &Board) -> Result<(i8, Vec<MoveValue>), TablebaseError> {
    Ok((tables.value(board)?, tables.move_values(board)?))
}

fn player(ply: usize) -> &'static str {
    if ply % 2 == 1 { "first" } else { "second" }
}

/// Values each move of `pits` (pit numbers 0–5 of the side to move) played
/// from `start`. A move whose position the tables do not cover (a layer
/// not built) is checked against the rules and marked, not valued.
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
        let legal = oware::legal_moves(tables.rules(), &board);
        if legal.is_empty() {
            return Err(PlayError::GameOver { ply });
        }
        let played = *legal
            .iter()
            .find(|m| m.pit == pit)
            .ok_or_else(|| PlayError::Illegal {
                ply,
                pit,
                legal: legal.iter().map(|m| m.pit).collect(),
            })?;
        let mut analysed = AnalysedMove {
            ply,
            player: player(ply),
            pit,
            captured: played.captured,
            seeds: oware::seeds(&board),
            covered: false,
            before: None,
            after: None,
            loss: None,
            best: None,
            mistake: None,
        };
        match probe(tables, &board) {
            Ok((before, options)) => {
                let after = options
                    .iter()
                    .find(|m| m.pit == pit)
                    .expect("the tables value every legal move")
                    .value;
                let loss = before - after;
                lost[i % 2] += i32::from(loss);
                analysed.covered = true;
                analysed.before = Some(before);
                analysed.after = Some(after);
                analysed.loss = Some(loss);
                analysed.best = Some(
                    options
                        .iter()
                        .filter(|m| m.value == before)
                        .map(|m| m.pit)
                        .collect(),
                );
                analysed.mistake = Some(loss > 0);
            }
            Err(e) if matches!(e.cause(), Cause::MissingTable(_)) => {}
            Err(e) => return Err(e.into()),
        }
        moves.push(analysed);
        board = played.child;
    }
    Ok(Analysis {
        start: *start,
        moves,
        end: board,
        lost,
        built_layers: tables.built_layers().collect(),
    })
}

/// `0..=20`, `0..=12, 14..=20`, or `none`: seed counts as ranges.
pub fn layers_text(layers: &[usize]) -> String {
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    for &s in layers {
        match ranges.last_mut() {
            Some((_, hi)) if *hi + 1 == s => *hi = s,
            _ => ranges.push((s, s)),
        }
    }
    if ranges.is_empty() {
        return "none".to_string();
    }
    ranges
        .iter()
        .map(|&(lo, hi)| {
            if lo == hi {
                lo.to_string()
            } else {
                format!("{lo}..={hi}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A start position the built tables cover, and how it was chosen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Start {
    /// What the start is and why, e.g. "1 seed in every pit (12 seeds), the
    /// largest such start the awari tables hold (layers 0..=20)".
    pub description: String,
    /// The layers (seed counts) whose tables the folder holds.
    pub built_layers: Vec<usize>,
    /// The position, the first mover's pits first.
    pub pits: Board,
}

/// The start of a game when none is given: the largest "same number of
/// seeds in every pit" start whose layers (it and all below, where its
/// captures lead) are built, or, with `random` or when not even one seed a
/// pit is covered, a position drawn at random from the largest layer built
/// with all the layers below it. Fails, naming the build command, when no
/// layer with seeds is covered.
pub fn start_position(tables: &OwareTablebase, random: bool) -> Result<Start, TablebaseError> {
    let built: Vec<usize> = tables.built_layers().collect();
    let rules = tables.rules();
    let listed = layers_text(&built);
    // The largest layer built with every layer below it.
    let covered = built
        .iter()
        .enumerate()
        .take_while(|&(i, &s)| i == s)
        .last()
        .map(|(_, &s)| s);
    let per_pit = covered.unwrap_or(0) / PITS;
    if per_pit >= 1 && !random {
        let seeds = if per_pit == 1 { "seed" } else { "seeds" };
        return Ok(Start {
            description: format!(
                "{per_pit} {seeds} in every pit ({} seeds), the largest such start the {rules} \
                 tables hold (layers {listed})",
                per_pit * PITS
            ),
            built_layers: built,
            pits: [per_pit as u8; PITS],
        });
    }
    let Some(layer) = covered.filter(|&s| s > 0) else {
        return Err(tables.missing_layer(PITS));
    };
    let Some(pits) = draw_position(rules, layer) else {
        return Err(tables.missing_layer(PITS));
    };
    let why = if random {
        String::new()
    } else {
        format!("; one seed in every pit needs layers 0..={PITS}")
    };
    Ok(Start {
        description: format!(
            "a position drawn at random from layer {layer}, the largest the {rules} tables \
             hold with every layer below it (layers {listed}{why})"
        ),
        built_layers: built,
        pits,
    })
}

/// A position of `seeds` seeds drawn uniformly among those where the mover
/// has a legal move (`None` if none has).
fn draw_position(rules: oware::Ruleset, seeds: usize) -> Option<Board> {
    let mut rng = SplitMix(std::hash::BuildHasher::hash_one(
        &std::collections::hash_map::RandomState::new(),
        std::time::SystemTime::now(),
    ));
    // Stars and bars: the 11 bars' places among seeds + 11 slots, drawn
    // without replacement, make every position equally likely.
    for _ in 0..10_000 {
        let slots = seeds + PITS - 1;
        let mut places: Vec<usize> = (0..slots).collect();
        for i in 0..PITS - 1 {
            let j = i + (rng.next() % (slots - i) as u64) as usize;
            places.swap(i, j);
        }
        let mut bars = places[..PITS - 1].to_vec();
        bars.sort_unstable();
        let mut board = [0u8; PITS];
        let mut prev = 0;
        for (pit, &bar) in bars.iter().chain(std::iter::once(&slots)).enumerate() {
            board[pit] = (bar - prev) as u8;
            prev = bar + 1;
        }
        if !oware::legal_moves(rules, &board).is_empty() {
            return Some(board);
        }
    }
    None
}

/// A small pseudo-random generator (splitmix64), seeded from the system's.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
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
/// computer plays a best move ([`best_move`]: the best value, then ahead
/// the least distance and behind the greatest, so it converts its wins).
/// Each of the person's moves is told its value and its loss.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layers_text_writes_runs_as_ranges() {
        assert_eq!(layers_text(&[]), "none");
        assert_eq!(layers_text(&[0]), "0");
        assert_eq!(layers_text(&(0..=20).collect::<Vec<_>>()), "0..=20");
        assert_eq!(layers_text(&[0, 1, 2, 3, 4, 6, 7, 9]), "0..=4, 6..=7, 9");
    }

    #[test]
    fn drawn_positions_hold_the_layer_and_a_legal_move() {
        for rules in oware::Ruleset::ALL {
            for seeds in [1, 2, 8, 20, 48] {
                for _ in 0..50 {
                    let board = draw_position(rules, seeds).expect("a position with a move");
                    assert_eq!(oware::seeds(&board), seeds);
                    assert!(!oware::legal_moves(rules, &board).is_empty(), "{board:?}");
                }
            }
        }
        // Layer 1: the seed in the mover's row (every pit of it has a move)
        // is drawn, in the opponent's (no move: the game is over) never.
        let mut pits = std::collections::HashSet::new();
        for _ in 0..500 {
            let board = draw_position(oware::Ruleset::Awari, 1).unwrap();
            pits.insert(board.iter().position(|&p| p == 1).unwrap());
        }
        assert_eq!(pits, (0..6).collect(), "{pits:?}");
    }
}
