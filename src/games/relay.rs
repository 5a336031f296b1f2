//! Relay sowing shared by the relay games (Omweso, En Gehé) and the Mayer test.
//!
//! A relay move is a sequence of *laps*. The state at a lap start (board, start
//! pit, seeds in hand, plus whatever the rules carry) together with the
//! direction chosen for the lap determines the lap completely, so a move never
//! ends iff such an intra-move state repeats. [`Explorer`] walks every path of
//! a move: between choice points the laps are deterministic and a repeat is
//! found with Brent's cycle detection in constant memory; choice points are
//! kept in a visited set, which both closes cycles that pass through a choice
//! and reports each choice point's outcomes once. There is no lap cap.

use std::collections::HashMap;
use std::hash::Hash;

/// Sowing direction, seen from the player who sows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dir {
    /// Counter-clockwise: pit `k` to `k + 1`, the normal direction.
    Ccw,
    /// Clockwise: pit `k` to `k - 1`.
    Cw,
}

impl Dir {
    /// The name used in output: `ccw` or `cw`.
    pub fn name(self) -> &'static str {
        match self {
            Dir::Ccw => "ccw",
            Dir::Cw => "cw",
        }
    }
}

/// The directions open at a lap start: a set of [`Dir`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dirs(u8);

impl Dirs {
    pub const NONE: Dirs = Dirs(0);
    pub const CCW: Dirs = Dirs(1);
    pub const CW: Dirs = Dirs(2);
    pub const BOTH: Dirs = Dirs(3);

    pub fn contains(self, dir: Dir) -> bool {
        self.0 & Self::bit(dir) != 0
    }

    pub fn with(self, dir: Dir) -> Dirs {
        Dirs(self.0 | Self::bit(dir))
    }

    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The direction if exactly one is open.
    pub fn single(self) -> Option<Dir> {
        match self {
            Dirs::CCW => Some(Dir::Ccw),
            Dirs::CW => Some(Dir::Cw),
            _ => None,
        }
    }

    /// Removes and returns the first open direction (ccw before cw).
    fn pop_first(&mut self) -> Option<Dir> {
        let dir = if self.contains(Dir::Ccw) {
            Dir::Ccw
        } else if self.contains(Dir::Cw) {
            Dir::Cw
        } else {
            return None;
        };
        self.0 &= !Self::bit(dir);
        Some(dir)
    }

    fn bit(dir: Dir) -> u8 {
        match dir {
            Dir::Ccw => 1,
            Dir::Cw => 2,
        }
    }
}

/// Sows `hand` seeds one per pit around `ring`, starting with the pit after
/// `start` in direction `dir` (the start pit itself gets a seed on every full
/// circuit), and returns the pit of the last seed. Whole circuits are added in
/// one pass, so a lap costs O(ring length), not O(hand). `hand` must be at
/// least 1 and no pit may overflow.
pub fn sow(ring: &mut [u8], start: usize, hand: usize, dir: Dir) -> usize {
    let n = ring.len();
    let full = hand / n;
    if full > 0 {
        for pit in ring.iter_mut() {
            *pit += full as u8;
        }
    }
    let mut pit = start;
    for _ in 0..hand % n {
        pit = step(pit, n, dir);
        ring[pit] += 1;
    }
    last_pit(start, hand, n, dir)
}

/// The pit where the last of `hand` seeds sown from `start` lands, and how
/// many seeds of the lap land there (the last one included).
pub fn landing(start: usize, hand: usize, n: usize, dir: Dir) -> (usize, usize) {
    let dist = (hand - 1) % n + 1;
    (last_pit(start, hand, n, dir), (hand - dist) / n + 1)
}

fn last_pit(start: usize, hand: usize, n: usize, dir: Dir) -> usize {
    let dist = (hand - 1) % n + 1;
    match dir {
        Dir::Ccw => (start + dist) % n,
        Dir::Cw => (start + n - dist) % n,
    }
}

fn step(pit: usize, n: usize, dir: Dir) -> usize {
    match dir {
        Dir::Ccw => {
            if pit + 1 == n {
                0
            } else {
                pit + 1
            }
        }
        Dir::Cw => {
            if pit == 0 {
                n - 1
            } else {
                pit - 1
            }
        }
    }
}

/// The rules of one relay game, as far as the lap machinery needs them.
pub trait RelayRules {
    /// The intra-move state at a lap start: the board with the hand lifted,
    /// the lap's start pit, the seeds in hand and any per-move bookkeeping
    /// the outcome depends on. Two equal states continue identically.
    type State: Clone + Eq + Hash;

    /// Directions open at a lap start other than the first lap of the move.
    fn options(&self, state: &Self::State) -> Dirs;

    /// Sows the lap that starts at `state` in `dir`. If the move goes on,
    /// `state` becomes the next lap start; if it ends, `state` holds the
    /// final board.
    fn lap(&self, state: &mut Self::State, dir: Dir) -> Lap;

    /// The start pit of the lap (for the paths shown to people).
    fn pit(&self, state: &Self::State) -> usize;
}

/// What one lap did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lap {
    /// Seeds sown in the lap.
    pub sown: u32,
    /// The lap's last seed ended the move.
    pub ended: bool,
}

/// A never-ending move: the intra-move state of lap `start_lap` (laps
/// counted from 0 at the move start) recurs every `period` laps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cycle {
    pub start_lap: u64,
    pub period: u64,
}

/// One choice made on a path: at the start of lap `lap` (0 is the move
/// start), sow from `pit` in direction `dir`. Paths record the move start
/// and every lap start where more than one direction was open.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Choice {
    pub lap: u64,
    pub pit: usize,
    pub dir: Dir,
}

/// One outcome found by [`Explorer::explore`].
#[derive(Debug)]
pub enum Event<'a, S> {
    /// A path that ends after `laps` laps with `sown` seeds sown in all.
    Ends {
        path: &'a [Choice],
        laps: u64,
        sown: u64,
        end: &'a S,
    },
    /// A path that never ends; `path` leads into the cycle.
    NeverEnds { path: &'a [Choice], cycle: Cycle },
}

/// How a deterministic stretch of laps stopped.
#[derive(Debug)]
pub enum Stretch<S> {
    /// The move ended; `end` is the final state.
    Ended { end: S, laps: u64, sown: u64 },
    /// The laps cycle for ever.
    Cycle(Cycle),
    /// A lap start with several open directions.
    Choice {
        state: S,
        laps: u64,
        sown: u64,
        options: Dirs,
    },
}

/// Follows the laps from `start` (sown in `dir`, at lap `lap0` with `sown0`
/// seeds already sown) while they are forced, with Brent's cycle detection:
/// at most three states are held, whatever the length of the cycle.
pub fn follow<R: RelayRules>(
    rules: &R,
    start: &R::State,
    dir: Dir,
    lap0: u64,
    sown0: u64,
) -> Stretch<R::State> {
    let mut cur = start.clone();
    let mut cur_dir = dir;
    let (mut laps, mut sown) = (lap0, sown0);
    let mut saved = (start.clone(), dir);
    let (mut power, mut lam) = (1u64, 0u64);
    loop {
        let lap = rules.lap(&mut cur, cur_dir);
        laps += 1;
        sown += u64::from(lap.sown);
        if lap.ended {
            return Stretch::Ended {
                end: cur,
                laps,
                sown,
            };
        }
        let options = rules.options(&cur);
        cur_dir = match options.single() {
            Some(d) => d,
            None => {
                return Stretch::Choice {
                    state: cur,
                    laps,
                    sown,
                    options,
                };
            }
        };
        lam += 1;
        if cur_dir == saved.1 && cur == saved.0 {
            let mu = cycle_start(rules, start, dir, lam);
            return Stretch::Cycle(Cycle {
                start_lap: lap0 + mu,
                period: lam,
            });
        }
        if lam == power {
            saved = (cur.clone(), cur_dir);
            power *= 2;
            lam = 0;
        }
    }
}

/// Brent's second phase: the index of the first state of a cycle of length
/// `period` on the forced stretch from `start`.
fn cycle_start<R: RelayRules>(rules: &R, start: &R::State, dir: Dir, period: u64) -> u64 {
    let advance = |s: &mut R::State, d: &mut Dir| {
        rules.lap(s, *d);
        *d = rules.options(s).single().unwrap_or(Dir::Ccw);
    };
    let (mut hare, mut hare_dir) = (start.clone(), dir);
    for _ in 0..period {
        advance(&mut hare, &mut hare_dir);
    }
    let (mut tortoise, mut tortoise_dir) = (start.clone(), dir);
    let mut mu = 0;
    while tortoise_dir != hare_dir || tortoise != hare {
        advance(&mut tortoise, &mut tortoise_dir);
        advance(&mut hare, &mut hare_dir);
        mu += 1;
    }
    mu
}

#[derive(Clone, Copy, Debug)]
enum Visit {
    /// On the current path, first reached at this lap.
    OnPath(u64),
    /// Fully explored: its outcomes are already reported.
    Done,
}

struct Frame<S> {
    state: S,
    laps: u64,
    sown: u64,
    todo: Dirs,
}

/// Depth-first walker over the paths of a move. Reuse one explorer for many
/// moves: its buffers keep their capacity, so a move without choice points
/// allocates nothing.
pub struct Explorer<S> {
    visited: HashMap<S, Visit>,
    stack: Vec<Frame<S>>,
    path: Vec<Choice>,
}

impl<S> Default for Explorer<S> {
    fn default() -> Self {
        Explorer {
            visited: HashMap::new(),
            stack: Vec::new(),
            path: Vec::new(),
        }
    }
}

impl<S: Clone + Eq + Hash> Explorer<S> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Reports every outcome of the move whose first lap starts at `root`
    /// with the directions `root_options` open. Paths that reach a choice
    /// point already explored are not reported again (their outcomes are
    /// the same), so every ending state and every cycle is reported once
    /// per distinct continuation.
    pub fn explore<R, F>(&mut self, rules: &R, root: S, root_options: Dirs, mut report: F)
    where
        R: RelayRules<State = S>,
        F: FnMut(Event<'_, S>),
    {
        self.visited.clear();
        self.stack.clear();
        self.path.clear();
        if root_options.is_empty() {
            return;
        }
        // If the root recurs as a later choice point, the move cycles from lap 0.
        self.visited.insert(root.clone(), Visit::OnPath(0));
        self.stack.push(Frame {
            state: root,
            laps: 0,
            sown: 0,
            todo: root_options,
        });
        loop {
            let depth = self.stack.len();
            let Some(top) = self.stack.last_mut() else {
                break;
            };
            let Some(dir) = top.todo.pop_first() else {
                if let Some(frame) = self.stack.pop() {
                    self.visited.insert(frame.state, Visit::Done);
                }
                continue;
            };
            self.path.truncate(depth - 1);
            self.path.push(Choice {
                lap: top.laps,
                pit: rules.pit(&top.state),
                dir,
            });
            match follow(rules, &top.state, dir, top.laps, top.sown) {
                Stretch::Ended { end, laps, sown } => report(Event::Ends {
                    path: &self.path,
                    laps,
                    sown,
                    end: &end,
                }),
                Stretch::Cycle(cycle) => report(Event::NeverEnds {
                    path: &self.path,
                    cycle,
                }),
                Stretch::Choice {
                    state,
                    laps,
                    sown,
                    options,
                } => match self.visited.get(&state) {
                    Some(Visit::OnPath(first)) => report(Event::NeverEnds {
                        path: &self.path,
                        cycle: Cycle {
                            start_lap: *first,
                            period: laps - first,
                        },
                    }),
                    Some(Visit::Done) => {}
                    None => {
                        self.visited.insert(state.clone(), Visit::OnPath(laps));
                        self.stack.push(Frame {
                            state,
                            laps,
                            sown,
                            todo: options,
                        });
                    }
                },
            }
        }
    }
}
