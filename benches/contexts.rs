//! What richer contexts would save (an estimate for issue #10's size goal,
//! not a coding): the conditional entropy of a built layer's stored
//! symbols (values and the capture mark) under candidate contexts, both
//! for the ideal static model and learnt as it goes (Krichevsky–Trofimov,
//! what a coder that stores no model pays).
//!
//! Candidates: the values before in the lane of coding 3 (128 values),
//! "up" (the value of the position with one seed moved from the mover's
//! pit 2 to pit 1 or 0: `p0 + p1 + 1` ranks back, often in the lane), a
//! neighbour on the opponent's side, and board features the decoder would
//! compute per position (the best capture of the mover and of the
//! opponent, by the rules or by a cheap stand-in; seeds on the mover's
//! side). Awari layer 20 (README "Measured"): coding 3's context 0.3248
//! B/position, the best here (previous, up, both captures) 0.2692.
//!
//! `cargo bench --bench contexts -- DIR SEEDS` (awari tables under DIR).

mod common;
mod study;

use mancala_tb::games::oware::{self, Ruleset};
use mancala_tb::index::oware as index;
use mancala_tb::table::CAPTURE_DECIDES;

/// Values a lane of coding 3.
const LANE: usize = 128;

/// Counts per context, and the adaptive code length so far.
struct Model {
    name: &'static str,
    counts: std::collections::HashMap<u64, Vec<u64>>,
    adaptive: f64,
}

impl Model {
    fn new(name: &'static str) -> Self {
        Model {
            name,
            counts: Default::default(),
            adaptive: 0.0,
        }
    }

    /// Counts `symbol` in `context`, first paying for it what the counts so
    /// far say (Krichevsky–Trofimov: each count plus a half).
    fn add(&mut self, context: u64, symbol: usize, alphabet: usize) {
        let c = self
            .counts
            .entry(context)
            .or_insert_with(|| vec![0; alphabet]);
        let total: u64 = c.iter().sum();
        self.adaptive -= ((c[symbol] as f64 + 0.5) / (total as f64 + 0.5 * alphabet as f64)).log2();
        c[symbol] += 1;
    }
}

fn main() {
    let (dir, seeds) = study::dir_and_seeds(&common::args());
    let n = seeds as i32;
    let alphabet = 2 * seeds + 3;
    let none = 2 * seeds + 2;
    let mark = 2 * seeds + 1;
    let stored = study::stored_layer(&dir, seeds);
    let symbols: Vec<usize> = stored
        .iter()
        .map(|&s| {
            if s == CAPTURE_DECIDES {
                mark
            } else {
                (i32::from(s) + n) as usize
            }
        })
        .collect();
    let a = alphabet as u64;
    let mut models = vec![
        Model::new("order 0"),
        Model::new("prev"),
        Model::new("prev, before (coding 3)"),
        Model::new("prev, up 2->1 (lane)"),
        Model::new("prev, up 2->0 (lane)"),
        Model::new("prev, up 2->1, up 2->0 (lane)"),
        Model::new("prev, before, up 2->1 (lane)"),
        Model::new("prev, up 2->1 (anywhere)"),
        Model::new("prev, opp 7->6 (anywhere)"),
        Model::new("prev, best capture"),
        Model::new("prev, before, best capture"),
        Model::new("prev, up 2->1 (lane), best capture"),
        Model::new("prev, before, seeds on mover's side"),
        Model::new("prev, capture, opponent's capture"),
        Model::new("prev, up 2->1, capture, opponent's capture"),
        Model::new("prev, before, capture, opponent's capture"),
        Model::new("prev, quick capture"),
        Model::new("prev, up 2->1, quick capture, quick opp"),
    ];
    let neighbour = |board: &[u8; 12], from: usize, to: usize| -> Option<u64> {
        if board[from] == 0 {
            return None;
        }
        let mut b = *board;
        b[from] -= 1;
        b[to] += 1;
        index::rank(&b)
    };
    let (mut prev, mut before) = (none, none);
    for (rank, &s) in symbols.iter().enumerate() {
        if rank % LANE == 0 {
            (prev, before) = (none, none);
        }
        let lane_start = (rank / LANE * LANE) as u64;
        let board = index::unrank(seeds, rank as u64);
        let in_lane = |r: Option<u64>| match r {
            Some(r) if r >= lane_start && r < rank as u64 => symbols[r as usize],
            _ => none,
        };
        let anywhere = |r: Option<u64>| r.map_or(none, |r| symbols[r as usize]);
        let up21 = in_lane(neighbour(&board, 2, 1));
        let up20 = in_lane(neighbour(&board, 2, 0));
        let moves = oware::legal_moves(Ruleset::Awari, &board);
        let capture = moves.iter().map(|m| m.captured).max().unwrap_or(0).min(15) as u64
            + if moves.is_empty() { 16 } else { 0 };
        let mut turned = [0u8; 12];
        turned[..6].copy_from_slice(&board[6..]);
        turned[6..].copy_from_slice(&board[..6]);
        let opp_moves = oware::legal_moves(Ruleset::Awari, &turned);
        let opp = opp_moves
            .iter()
            .map(|m| m.captured)
            .max()
            .unwrap_or(0)
            .min(15) as u64
            + if opp_moves.is_empty() { 16 } else { 0 };
        let quick = quick_capture(&board).min(15);
        let quick_opp = quick_capture(&turned).min(15);
        let mover: u64 = board[..6].iter().map(|&x| x as u64).sum();
        let (p, b) = (prev as u64, before as u64);
        let contexts = [
            0,
            p,
            p * a + b,
            p * a + up21 as u64,
            p * a + up20 as u64,
            (p * a + up21 as u64) * a + up20 as u64,
            (p * a + b) * a + up21 as u64,
            p * a + anywhere(neighbour(&board, 2, 1)) as u64,
            p * a + anywhere(neighbour(&board, 7, 6)) as u64,
            p * 32 + capture,
            (p * a + b) * 32 + capture,
            (p * a + up21 as u64) * 32 + capture,
            (p * a + b) * 64 + mover,
            (p * 32 + capture) * 32 + opp,
            ((p * a + up21 as u64) * 32 + capture) * 32 + opp,
            ((p * a + b) * 32 + capture) * 32 + opp,
            p * 32 + quick,
            ((p * a + up21 as u64) * 32 + quick) * 32 + quick_opp,
        ];
        for (m, c) in models.iter_mut().zip(contexts) {
            m.add(c, s, alphabet);
        }
        (prev, before) = (s, prev);
    }
    let positions = symbols.len() as f64;
    println!("layer {seeds}: {} positions", symbols.len());
    for m in &models {
        println!(
            "{:45} {:.4} B/position, adaptive {:.4} ({} contexts)",
            m.name,
            study::entropy_bits(m.counts.values().map(Vec::as_slice)) / 8.0 / positions,
            m.adaptive / 8.0 / positions,
            m.counts.len()
        );
    }
}

/// The most a move captures, sown without laps, chains of 2s and 3s on the
/// opponent's side, no grand-slam rule: a cheap stand-in for the rules'.
fn quick_capture(board: &[u8; 12]) -> u64 {
    let mut best = 0;
    for pit in 0..6 {
        let k = board[pit] as usize;
        if k == 0 || k >= 12 {
            continue;
        }
        let last = pit + k;
        if !(6..=11).contains(&last) {
            continue;
        }
        let mut taken = 0;
        let mut at = last;
        while at >= 6 && at > pit {
            let c = board[at] + 1;
            if c != 2 && c != 3 {
                break;
            }
            taken += c as u64;
            at -= 1;
        }
        best = best.max(taken);
    }
    best
}
