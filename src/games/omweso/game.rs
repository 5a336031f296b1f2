//! One game of Omweso as played, with the match-start rules that need the
//! history (docs/rules.md rule 7): no capture on a player's first turn, okwesera
//! before the first capture of the game, and the optional akakyala win.
//!
//! Readings where docs/rules.md is silent: the first-turn and okwesera rules apply
//! per game (each game starts from a fresh set-up); okwesera sows
//! counter-clockwise; akakyala counts capturing *turns* ("two separate
//! captures"), so a second capturing move while the opponent has not captured
//! wins 2 points, ranked after okutema and before bulijo; a player whose
//! every move is never-ending under `endless = illegal` has no legal move
//! and loses as by bulijo. [`Match`] adds up games to 12 points.

use super::{Choice, Dedup, MoveGen, OmwesoError, Outcome, Position, Rules, WinKind, win_after};

/// A move as offered to a player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameMove {
    /// A sowing move: its representative path and its outcome.
    Sow {
        /// The lap choices.
        path: Vec<Choice>,
        /// How it turns out.
        outcome: Outcome,
    },
    /// Okwesera: the three seeds of `pit` go two into the next pit and one
    /// into the pit after it, and the turn ends. `after` is seen from the
    /// player who moved.
    Okwesera {
        /// The pit of three seeds.
        pit: usize,
        /// The board after it.
        after: Position,
    },
}

/// Where the game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// The game goes on.
    Playing,
    /// Player 0 or 1 won the game with `kind` (worth `kind.points()`).
    Won {
        /// The winner.
        player: usize,
        /// How.
        kind: WinKind,
    },
    /// A never-ending move was chosen: the game is void.
    Void,
}

/// What a game's rules need to know of the turns played so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct History {
    /// Turns taken by players 0 and 1.
    pub turns: [u32; 2],
    /// Turns of players 0 and 1 that captured.
    pub capturing_turns: [u32; 2],
}

/// One game. Players are 0 (moves first) and 1.
pub struct Game {
    rules: Rules,
    akakyala: bool,
    position: Position,
    to_move: usize,
    history: History,
    status: Status,
    movegen: MoveGen,
}

impl Game {
    /// A game from the set-up `start`, seen from player 0, who moves first.
    pub fn new(start: Position, rules: Rules, akakyala: bool) -> Game {
        Game::resume(start, 0, History::default(), rules, akakyala)
    }

    /// A game in progress: `position` seen from `to_move` (0 or 1), after
    /// the turns in `history`.
    pub fn resume(
        position: Position,
        to_move: usize,
        history: History,
        rules: Rules,
        akakyala: bool,
    ) -> Game {
        let mut game = Game {
            rules,
            akakyala,
            position,
            to_move: to_move.min(1),
            history,
            status: Status::Playing,
            movegen: MoveGen::new(),
        };
        if game.legal_moves().is_empty() {
            game.status = Status::Won {
                player: 1 - game.to_move,
                kind: WinKind::Bulijo,
            };
        }
        game
    }

    /// The board seen from the player to move.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The player to move: 0 moved first.
    pub fn to_move(&self) -> usize {
        self.to_move
    }

    /// Whether the game goes on, and how it ended.
    pub fn status(&self) -> Status {
        self.status
    }

    /// The legal moves of the player to move (none once the game is over).
    pub fn legal_moves(&mut self) -> Vec<GameMove> {
        if self.status != Status::Playing {
            return Vec::new();
        }
        let captures = self.history.turns[self.to_move] > 0;
        self.movegen
            .generate(&self.position, &self.rules, captures, Dedup::Position);
        let mut moves: Vec<GameMove> = self
            .movegen
            .legal()
            .map(|m| GameMove::Sow {
                path: self.movegen.path(m).to_vec(),
                outcome: m.outcome,
            })
            .collect();
        if self.history.capturing_turns == [0, 0] {
            moves.extend(okwesera_moves(&self.position));
        }
        moves
    }

    /// Plays a legal move and returns the new status.
    pub fn play(&mut self, mv: &GameMove) -> Result<Status, OmwesoError> {
        if self.status != Status::Playing {
            return Err(OmwesoError::GameOver);
        }
        if !self.legal_moves().contains(mv) {
            return Err(OmwesoError::IllegalMove);
        }
        let player = self.to_move;
        let (after, captured, win) = match *mv {
            GameMove::Sow {
                outcome: Outcome::NeverEnds(_),
                ..
            } => {
                self.status = Status::Void;
                return Ok(self.status);
            }
            GameMove::Sow {
                outcome:
                    Outcome::Ends {
                        after,
                        captured,
                        win,
                    },
                ..
            } => (after, captured, win),
            GameMove::Okwesera { after, .. } => (after, false, win_after(&after, 0, &self.rules)),
        };
        let history = &mut self.history;
        history.turns[player] += 1;
        if captured {
            history.capturing_turns[player] += 1;
        }
        let akakyala = self.akakyala
            && captured
            && history.capturing_turns[player] == 2
            && history.capturing_turns[1 - player] == 0;
        let win = match win {
            Some(WinKind::Akawumbi | WinKind::Okutema) => win,
            _ if akakyala => Some(WinKind::Akakyala),
            // Bulijo hangs on the opponent's first turn and okwesera: judged
            // below from its own legal moves.
            _ => None,
        };
        self.position = after.flipped();
        self.to_move = 1 - player;
        if let Some(kind) = win {
            self.status = Status::Won { player, kind };
        } else if self.legal_moves().is_empty() {
            self.status = Status::Won {
                player,
                kind: WinKind::Bulijo,
            };
        }
        Ok(self.status)
    }
}

/// Okwesera moves of `pos`: every mover pit holding exactly three seeds.
fn okwesera_moves(pos: &Position) -> impl Iterator<Item = GameMove> + '_ {
    let n = pos.mover().len();
    (0..n).filter(|&k| pos.mover()[k] == 3).map(move |pit| {
        let mut after = *pos;
        let pits = after.mover_mut();
        pits[pit] = 0;
        pits[(pit + 1) % n] += 2;
        pits[(pit + 2) % n] += 1;
        GameMove::Okwesera { pit, after }
    })
}

/// Points needed to win a match.
pub const MATCH_POINTS: u32 = 12;

/// A match: games are played until a player has [`MATCH_POINTS`] points.
/// A void game scores nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Match {
    /// Points of player 0 and player 1.
    pub points: [u32; 2],
}

impl Match {
    /// Adds a finished game; returns the match winner once there is one.
    pub fn record(&mut self, status: Status) -> Option<usize> {
        if let Status::Won { player, kind } = status {
            self.points[player] += kind.points();
        }
        self.winner()
    }

    /// The player who has reached [`MATCH_POINTS`], if any.
    pub fn winner(&self) -> Option<usize> {
        (0..2).find(|&p| self.points[p] >= MATCH_POINTS)
    }
}
