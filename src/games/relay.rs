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

/// What a never-ending move is, in every relay game (Omweso rule 5; En
/// Gehé reads it the same way). Its names (`void`, `illegal`) are parsed
/// and printed in `omweso`, with the other Omweso options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Endless {
    /// Choosing it voids the game.
    #[default]
    Void,
    /// It is not a legal move.
    Illegal,
}

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
    /// Only counter-clockwise.
    pub const CCW: Dirs = Dirs(1);
    /// Only clockwise.
    pub const CW: Dirs = Dirs(2);
    /// Either direction.
    pub const BOTH: Dirs = Dirs(3);

    /// Whether `dir` is open.
    pub fn contains(self, dir: Dir) -> bool {
        self.0 & Self::bit(dir) != 0
    }

    /// Whether no direction is open.
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
/// one pass, so a lap costs O(ring length), not O(hand). `start` must be a
/// pit of the ring, `hand` at least 1, and no pit may overflow. Rings of at
/// most 16 pits (Omweso's sides) use the faster [`sow_packed`].
pub fn sow(ring: &mut [u8], start: usize, hand: usize, dir: Dir) -> usize {
    let n = ring.len();
    // Most laps are shorter than the ring: no division on that path.
    let rem = if hand < n {
        hand
    } else {
        let full = (hand / n) as u8;
        for pit in ring.iter_mut() {
            *pit += full;
        }
        hand % n
    };
    if rem == 0 {
        return start;
    }
    // One seed into each of the `rem` pits after `start`, as at most two
    // runs of consecutive pits.
    let inc = |run: &mut [u8]| run.iter_mut().for_each(|p| *p += 1);
    match dir {
        Dir::Ccw => {
            let end = start + 1 + rem;
            if end <= n {
                inc(&mut ring[start + 1..end]);
                end - 1
            } else {
                inc(&mut ring[start + 1..]);
                inc(&mut ring[..end - n]);
                end - n - 1
            }
        }
        Dir::Cw => {
            if rem <= start {
                inc(&mut ring[start - rem..start]);
                start - rem
            } else {
                inc(&mut ring[..start]);
                inc(&mut ring[n + start - rem..]);
                n + start - rem
            }
        }
    }
}

/// Rings of at most this many pits can be packed into a `u128`, one byte
/// a pit, for [`sow_packed`].
pub const PACKED_PITS: usize = 16;

/// Byte `pit` of a packed ring.
pub fn packed_pit(ring: u128, pit: usize) -> u8 {
    (ring >> (8 * pit)) as u8
}

/// A packed ring with pit `pit` emptied.
pub fn packed_clear(ring: u128, pit: usize) -> u128 {
    ring & !(0xff << (8 * pit))
}

/// Packs up to [`PACKED_PITS`] pits (pit `k` in byte `k`).
pub fn pack(pits: &[u8]) -> u128 {
    pits.iter()
        .take(PACKED_PITS)
        .enumerate()
        .fold(0, |ring, (k, &p)| ring | u128::from(p) << (8 * k))
}

/// [`sow`] on a ring of `n ≤ 16` pits packed into a `u128`: a lap is a few
/// additions whatever its length. Returns the new ring and the last pit.
/// No pit may overflow (at most 255 seeds on the ring).
pub fn sow_packed(ring: u128, n: usize, start: usize, hand: usize, dir: Dir) -> (u128, usize) {
    let (full, rem) = if hand < n {
        (0, hand)
    } else {
        (hand / n, hand % n)
    };
    let ring = ring + full as u128 * ones(0, n);
    if rem == 0 {
        return (ring, start);
    }
    match dir {
        Dir::Ccw => {
            let end = start + 1 + rem;
            if end <= n {
                (ring + ones(start + 1, end), end - 1)
            } else {
                (ring + ones(start + 1, n) + ones(0, end - n), end - n - 1)
            }
        }
        Dir::Cw => {
            if rem <= start {
                (ring + ones(start - rem, start), start - rem)
            } else {
                let first = n + start - rem;
                (ring + ones(0, start) + ones(first, n), first)
            }
        }
    }
}

/// A one in each byte `a..b` (`a ≤ b ≤ 16`).
fn ones(a: usize, b: usize) -> u128 {
    let below = |k: usize| {
        if k >= PACKED_PITS {
            u128::MAX
        } else {
            (1u128 << (8 * k)) - 1
        }
    };
    (u128::MAX / 0xff) & below(b) & !below(a)
}

/// The pit where the last of `hand` seeds sown from `start` lands, and how
/// many seeds of the lap land there (the last one included).
pub fn landing(start: usize, hand: usize, n: usize, dir: Dir) -> (usize, usize) {
    if hand <= n {
        // The common short lap: no division.
        let last = match dir {
            Dir::Ccw if start + hand >= n => start + hand - n,
            Dir::Ccw => start + hand,
            Dir::Cw if hand > start => start + n - hand,
            Dir::Cw => start - hand,
        };
        return (last, 1);
    }
    let dist = (hand - 1) % n + 1;
    let last = match dir {
        Dir::Ccw => (start + dist) % n,
        Dir::Cw => (start + n - dist) % n,
    };
    (last, (hand - dist) / n + 1)
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
    /// The first lap of the cycle.
    pub start_lap: u64,
    /// Laps before the state recurs.
    pub period: u64,
}

/// One choice made on a path: at the start of lap `lap` (0 is the move
/// start), sow from `pit` in direction `dir`. Paths record the move start
/// and every lap start where more than one direction was open.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Choice {
    /// The lap, counted from 0 at the move start.
    pub lap: u64,
    /// The pit sown from.
    pub pit: usize,
    /// The direction chosen.
    pub dir: Dir,
}

/// One outcome found by [`Explorer::explore`].
#[derive(Debug)]
pub enum Event<'a, S> {
    /// A path that ends after `laps` laps with `sown` seeds sown in all.
    Ends {
        /// The choices made.
        path: &'a [Choice],
        /// Laps sown.
        laps: u64,
        /// Seeds sown in all.
        sown: u64,
        /// The final state.
        end: &'a S,
    },
    /// A path that never ends; `path` leads into the cycle.
    /// `path` leads into `cycle`.
    NeverEnds {
        /// The choices made before the cycle.
        path: &'a [Choice],
        /// The cycle.
        cycle: Cycle,
    },
}

/// How a deterministic stretch of laps stopped.
#[derive(Debug)]
pub enum Stretch<S> {
    /// The move ended; `end` is the final state.
    /// `laps` laps sowing `sown` seeds in all.
    Ended {
        /// The final state.
        end: S,
        /// Laps sown.
        laps: u64,
        /// Seeds sown in all.
        sown: u64,
    },
    /// The laps cycle for ever.
    Cycle(Cycle),
    /// A lap start with several open directions.
    Choice {
        /// The state at the lap start.
        state: S,
        /// Laps sown before it.
        laps: u64,
        /// Seeds sown before it.
        sown: u64,
        /// The open directions.
        options: Dirs,
    },
}

impl<S> Stretch<S> {
    /// The cycle, if the stretch never ends.
    pub fn cycle(&self) -> Option<Cycle> {
        match self {
            Stretch::Cycle(cycle) => Some(*cycle),
            _ => None,
        }
    }
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
        // A move often cycles back to its very first state (pure relay
        // always has so far): catch that after one period instead of the
        // two or three Brent needs.
        if cur_dir == dir && cur == *start {
            return Stretch::Cycle(Cycle {
                start_lap: lap0,
                period: laps - lap0,
            });
        }
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
    /// An explorer with nothing visited yet.
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
        // Clearing an empty map still sweeps its buckets: skip it, the
        // common move has no choice point.
        if !self.visited.is_empty() {
            self.visited.clear();
        }
        self.stack.clear();
        self.path.clear();
        if root_options.is_empty() {
            return;
        }
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
                if let Some(frame) = self.stack.pop()
                    && depth > 1
                {
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
                } => match self.visit_of(&state) {
                    Some(Visit::OnPath(first)) => report(Event::NeverEnds {
                        path: &self.path,
                        cycle: Cycle {
                            start_lap: first,
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

    /// The record of a choice point. The root is kept out of the map (it is
    /// the bottom of the stack for the whole walk), so a move without later
    /// choice points never touches the map.
    fn visit_of(&self, state: &S) -> Option<Visit> {
        match self.stack.first() {
            Some(root) if root.state == *state => Some(Visit::OnPath(0)),
            _ => self.visited.get(state).copied(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sow_passes_the_start_pit_on_full_circuits() {
        let mut ring = [0u8, 1, 0, 0];
        // 9 seeds from pit 1: two full circuits (2 each) and one more in pit 2.
        assert_eq!(sow(&mut ring, 1, 9, Dir::Ccw), 2);
        assert_eq!(ring, [2, 3, 3, 2]);
        let mut ring = [0u8; 4];
        // 3 seeds clockwise from pit 1: pits 0, 3, 2.
        assert_eq!(sow(&mut ring, 1, 3, Dir::Cw), 2);
        assert_eq!(ring, [1, 0, 1, 1]);
        // 4 seeds on 4 pits: the last lands in the start pit.
        assert_eq!(landing(1, 4, 4, Dir::Ccw), (1, 1));
        assert_eq!(landing(1, 9, 4, Dir::Ccw), (2, 3));
        assert_eq!(landing(1, 3, 4, Dir::Cw), (2, 1));
    }

    #[test]
    fn packed_sowing_matches_plain_sowing() {
        for n in [4usize, 7, 16] {
            for start in 0..n {
                for hand in 1..40 {
                    for dir in [Dir::Ccw, Dir::Cw] {
                        let mut ring: Vec<u8> = (0..n as u8).map(|k| k % 3).collect();
                        let packed = pack(&ring);
                        let last = sow(&mut ring, start, hand, dir);
                        assert_eq!(sow_packed(packed, n, start, hand, dir), (pack(&ring), last));
                        assert_eq!(landing(start, hand, n, dir).0, last);
                    }
                }
            }
        }
        assert_eq!(packed_pit(pack(&[1, 2, 3]), 2), 3);
        assert_eq!(packed_clear(pack(&[1, 2, 3]), 1), pack(&[1, 0, 3]));
    }

    /// A toy rule set: a counter-clockwise lap moves state `s` to
    /// `ccw[s]` (`None` ends the move); states listed in `cw` also offer a
    /// clockwise lap to the given state (or to the end). An ended move
    /// leaves `1000 + s`.
    struct Toy {
        ccw: Vec<Option<u32>>,
        cw: Vec<(u32, Option<u32>)>,
    }

    impl RelayRules for Toy {
        type State = u32;

        fn options(&self, s: &u32) -> Dirs {
            if self.cw.iter().any(|(from, _)| from == s) {
                Dirs::BOTH
            } else {
                Dirs::CCW
            }
        }

        fn lap(&self, s: &mut u32, dir: Dir) -> Lap {
            let next = match dir {
                Dir::Ccw => self.ccw[*s as usize],
                Dir::Cw => self.cw.iter().find(|(from, _)| from == s).and_then(|c| c.1),
            };
            *s = next.unwrap_or(*s + 1000);
            Lap {
                sown: 1,
                ended: next.is_none(),
            }
        }

        fn pit(&self, s: &u32) -> usize {
            *s as usize
        }
    }

    /// 0 → 1 → … → `len − 1` → `back`: a tail of `back` laps, then a cycle
    /// of period `len − back`; clockwise ends the move at `choices`.
    fn rho(len: u32, back: u32, choices: &[u32]) -> Toy {
        let ccw = (0..len)
            .map(|s| Some(if s + 1 == len { back } else { s + 1 }))
            .collect();
        let cw = choices.iter().map(|&c| (c, None)).collect();
        Toy { ccw, cw }
    }

    /// Every event as text: the path as `lap:pit:dir`, then the outcome.
    fn events(toy: &Toy, root: u32, options: Dirs) -> Vec<String> {
        let mut out = Vec::new();
        Explorer::new().explore(toy, root, options, |e| {
            let (path, what) = match e {
                Event::Ends {
                    path, laps, end, ..
                } => (path, format!("ends lap {laps} at {end}")),
                Event::NeverEnds { path, cycle } => (
                    path,
                    format!("cycle from {} period {}", cycle.start_lap, cycle.period),
                ),
            };
            let path: Vec<_> = path
                .iter()
                .map(|c| format!("{}:{}:{}", c.lap, c.pit, c.dir.name()))
                .collect();
            out.push(format!("{} {what}", path.join(" ")));
        });
        out
    }

    fn cycle(start_lap: u64, period: u64) -> Option<Cycle> {
        Some(Cycle { start_lap, period })
    }

    #[test]
    fn brent_finds_tail_and_period() {
        // Tail 0..=4 (5 laps), cycle 5..=10.
        let found = follow(&rho(11, 5, &[]), &0, Dir::Ccw, 0, 0);
        assert_eq!(found.cycle(), cycle(5, 6));
        // Back to the first state, which was reached at lap 3.
        let found = follow(&rho(7, 0, &[]), &0, Dir::Ccw, 3, 0);
        assert_eq!(found.cycle(), cycle(3, 7));
        // A self-loop after two laps.
        let found = follow(&rho(3, 2, &[]), &0, Dir::Ccw, 0, 0);
        assert_eq!(found.cycle(), cycle(2, 1));
    }

    #[test]
    fn brent_long_cycle() {
        let found = follow(&rho(200_000, 123_456, &[]), &0, Dir::Ccw, 0, 0);
        assert_eq!(found.cycle(), cycle(123_456, 76_544));
    }

    #[test]
    fn cycle_through_a_choice_point_uses_the_visited_set() {
        // 0 → 1 → 2 → 3 → 1, and state 2 offers a clockwise end.
        assert_eq!(
            events(&rho(4, 1, &[2]), 0, Dirs::CCW),
            vec![
                "0:0:ccw 2:2:ccw cycle from 2 period 3",
                "0:0:ccw 2:2:cw ends lap 3 at 1002",
            ]
        );
    }

    #[test]
    fn root_that_recurs_as_a_choice_point_cycles_from_lap_0() {
        assert_eq!(
            events(&rho(3, 0, &[0]), 0, Dirs::BOTH),
            vec!["0:0:ccw cycle from 0 period 3", "0:0:cw ends lap 1 at 1000",]
        );
    }

    #[test]
    fn choice_points_reached_twice_are_explored_once() {
        // 0 → 1 → 3 counter-clockwise, 0 → 2 → 3 clockwise; state 3 is a
        // choice point whose two laps both end. Its outcomes are reported
        // once, under the first path that reached it.
        let toy = Toy {
            ccw: vec![Some(1), Some(3), Some(3), None],
            cw: vec![(0, Some(2)), (3, None)],
        };
        assert_eq!(
            events(&toy, 0, Dirs::BOTH),
            vec![
                "0:0:ccw 2:3:ccw ends lap 3 at 1003",
                "0:0:ccw 2:3:cw ends lap 3 at 1003",
            ]
        );
    }
}
