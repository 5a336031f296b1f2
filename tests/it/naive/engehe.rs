//! A deliberately simple, independent En Gehé solver written from docs/rules.md
//! (section En Gehé): counters sown one by one, never-ending relays found
//! with a set of visited lap starts, values by sweeping to a fixpoint. It
//! shares no code with `src/`.

use std::collections::{HashMap, HashSet};

/// Holes `0..w` are the mover's row, `w..2w` the opponent's.
pub type Board = Vec<u8>;

/// What a move does: captures (and the child seen by the new mover), or
/// never ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Play {
    Ends(u8, Board),
    NeverEnds,
}

pub fn play(board: &Board, hole: usize) -> Play {
    let n = board.len();
    let w = n / 2;
    let mut b = board.clone();
    let mut hand = b[hole];
    b[hole] = 0;
    let mut pos = hole;
    let mut seen = HashSet::new();
    loop {
        if !seen.insert((b.clone(), pos, hand)) {
            return Play::NeverEnds;
        }
        while hand > 0 {
            pos = (pos + 1) % n;
            b[pos] += 1;
            hand -= 1;
        }
        if b[pos] > 1 {
            hand = b[pos];
            b[pos] = 0;
            continue;
        }
        let opposite = n - 1 - pos;
        let mut captured = 0;
        if pos < w && b[opposite] > 0 {
            captured = b[opposite] + 1;
            b[opposite] = 0;
            b[pos] = 0;
        }
        let child = (0..n).map(|i| b[(i + w) % n]).collect();
        return Play::Ends(captured, child);
    }
}

pub fn all_boards(holes: usize, counters: usize) -> Vec<Board> {
    fn fill(b: &mut Board, i: usize, left: u8, out: &mut Vec<Board>) {
        if i + 1 == b.len() {
            b[i] = left;
            out.push(b.clone());
            return;
        }
        for k in 0..=left {
            b[i] = k;
            fill(b, i + 1, left - k, out);
        }
    }
    let mut out = Vec::new();
    fill(&mut vec![0; holes], 0, counters as u8, &mut out);
    out
}

/// `layers[n]`: every position with `n` counters and its value.
pub fn solve(width: usize, max: usize, endless_illegal: bool) -> Vec<HashMap<Board, i8>> {
    let mut layers: Vec<HashMap<Board, i8>> = Vec::new();
    for n in 0..=max {
        let positions = all_boards(2 * width, n);
        // Per position: known move values (exits) and same-layer children.
        let mut exits = Vec::new();
        let mut children = Vec::new();
        for b in &positions {
            let (mut e, mut c) = (Vec::new(), Vec::new());
            for hole in 0..width {
                if b[hole] == 0 {
                    continue;
                }
                match play(b, hole) {
                    Play::NeverEnds if endless_illegal => {}
                    Play::NeverEnds => e.push(0i8),
                    Play::Ends(0, child) => c.push(child),
                    Play::Ends(k, child) => e.push(k as i8 - layers[n - k as usize][&child]),
                }
            }
            if e.is_empty() && c.is_empty() {
                // The mover cannot move: the opponent takes the rest.
                e.push(-(n as i8));
            }
            exits.push(e);
            children.push(c);
        }
        let mut value: HashMap<Board, i8> = positions.iter().map(|b| (b.clone(), 0)).collect();
        for t in (1..=n as i8).rev() {
            let mut win: HashSet<Board> = HashSet::new();
            let mut lose: HashSet<Board> = HashSet::new();
            loop {
                let mut changed = false;
                for (i, b) in positions.iter().enumerate() {
                    let w = exits[i].iter().any(|&v| v >= t)
                        || children[i].iter().any(|c| lose.contains(c));
                    let l = exits[i].iter().all(|&v| v <= -t)
                        && children[i].iter().all(|c| win.contains(c));
                    if w && win.insert(b.clone()) {
                        changed = true;
                    }
                    if l && lose.insert(b.clone()) {
                        changed = true;
                    }
                }
                if !changed {
                    break;
                }
            }
            for b in &positions {
                let v = value.get_mut(b).unwrap();
                if *v == 0 && win.contains(b) {
                    *v = t;
                } else if *v == 0 && lose.contains(b) {
                    *v = -t;
                }
            }
        }
        layers.push(value);
    }
    layers
}

/// `distances[n]`: the distance of every position with `n` counters to what
/// secures its value (`values`, from [`solve`]), level by level to a
/// fixpoint: 0 for a draw or a position without moves; a position whose
/// value `v > 0` is at level `k` when a move worth `v` captures (or never
/// ends) and `k = 1`, or leads to a child of its layer at level `k − 1`;
/// one whose value is `v < 0` when all its moves worth `v` that stay in the
/// layer lead to children at known levels, the deepest `k − 1` (`k = 1`
/// when there are none).
pub fn distances(
    width: usize,
    values: &[HashMap<Board, i8>],
    endless_illegal: bool,
) -> Vec<HashMap<Board, u16>> {
    let mut out = Vec::new();
    for (n, layer) in values.iter().enumerate() {
        // Per position: whether a value-keeping move leaves the layer, and
        // its value-keeping children in it.
        let mut kept: HashMap<Board, (bool, Vec<Board>)> = HashMap::new();
        let mut dist: HashMap<Board, u16> = HashMap::new();
        for (b, &v) in layer {
            let mut any_move = false;
            let (mut exit, mut children) = (false, Vec::new());
            for hole in 0..width {
                if b[hole] == 0 {
                    continue;
                }
                match play(b, hole) {
                    Play::NeverEnds if endless_illegal => {}
                    Play::NeverEnds => {
                        any_move = true;
                        exit |= v == 0;
                    }
                    Play::Ends(0, child) => {
                        any_move = true;
                        if -layer[&child] == v {
                            children.push(child);
                        }
                    }
                    Play::Ends(k, child) => {
                        any_move = true;
                        exit |= k as i8 - values[n - k as usize][&child] == v;
                    }
                }
            }
            if v == 0 || !any_move {
                dist.insert(b.clone(), 0);
            } else {
                kept.insert(b.clone(), (exit, children));
            }
        }
        for level in 1u16.. {
            let before = dist.clone();
            for (b, (exit, children)) in &kept {
                if before.contains_key(b) {
                    continue;
                }
                let known: Vec<Option<u16>> =
                    children.iter().map(|c| before.get(c).copied()).collect();
                let resolved = if layer[b] > 0 {
                    (*exit && level == 1) || known.contains(&Some(level - 1))
                } else {
                    known.iter().all(Option::is_some)
                        && known.iter().flatten().max().copied().unwrap_or(0) + 1 == level
                };
                if resolved {
                    dist.insert(b.clone(), level);
                }
            }
            if dist.len() == before.len() {
                break;
            }
        }
        assert_eq!(dist.len(), layer.len(), "every position gets a distance");
        out.push(dist);
    }
    out
}
