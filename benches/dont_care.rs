//! What storing capture-decided positions as "don't care" would save (an
//! estimate for issue #10's size goal, not a coding).
//!
//! Built layers store a position whose best capture (or the end of the
//! game) gives its value as a mark, which the probe resolves from the
//! lower layers. Syzygy's trick instead stores any value `s ≤ v` there,
//! the one its context makes likeliest, and has every probe of a position
//! with a capture take the best of `s` and its captures. This measures, on
//! one built layer, the order-2 conditional entropy (the two values before
//! in the lane of coding 3, 128 values a lane) of the values as stored and
//! with the marks chosen greedily, and how many positions have a capture
//! (what the probe would then resolve, against the marked ones now).
//!
//! `cargo bench --bench dont_care -- DIR SEEDS` (awari tables under DIR).

mod common;
mod study;

use mancala_tb::games::oware::{self, Ruleset};
use mancala_tb::index::oware as index;
use mancala_tb::table::CAPTURE_DECIDES;
use mancala_tb::tablebase::oware as tb;

/// Values a lane of coding 3 (its context starts afresh at each).
const LANE: usize = 128;

/// Bits of the sequence under its own order-2 statistics (the ideal
/// static model over contexts of the two symbols before in the lane).
fn entropy_bits(symbols: &[usize], alphabet: usize) -> f64 {
    let mut counts = vec![0u64; alphabet * alphabet * alphabet];
    for_each_context(symbols, alphabet, |context, s| {
        counts[context * alphabet + s] += 1
    });
    study::entropy_bits(counts.chunks(alphabet))
}

/// Calls `f(context, symbol)` for each symbol, its context being the two
/// before it in its lane (a draw, `alphabet / 2 - 1`, before the first).
fn for_each_context(symbols: &[usize], alphabet: usize, mut f: impl FnMut(usize, usize)) {
    let draw = alphabet / 2 - 1;
    for lane in symbols.chunks(LANE) {
        let (mut previous, mut before) = (draw, draw);
        for &s in lane {
            f(previous * alphabet + before, s);
            (previous, before) = (s, previous);
        }
    }
}

fn main() {
    let (dir, seeds) = study::dir_and_seeds(&common::args());
    let n = seeds as i32;
    // Symbols: values −n..=n as v + n, the mark as 2n + 1.
    let alphabet = 2 * seeds + 2;
    let symbol = |v: i8| (i32::from(v) + n) as usize;
    let mark = 2 * seeds + 1;
    let stored = study::stored_layer(&dir, seeds);
    tb::decode_layers(&dir, Ruleset::Awari, seeds, |layer, values| {
        if layer < seeds {
            return Ok(());
        }
        let (mut marked, mut with_capture) = (0u64, 0u64);
        // Per position: its stored symbol, and the largest symbol it may
        // hold as "don't care" (None: only its value).
        let mut now = Vec::with_capacity(values.len());
        let mut free = Vec::with_capacity(values.len());
        for (rank, (&s, &v)) in stored.iter().zip(values).enumerate() {
            let board = index::unrank(seeds, rank as u64);
            let moves = oware::legal_moves(Ruleset::Awari, &board);
            with_capture += u64::from(moves.is_empty() || moves.iter().any(|m| m.captured > 0));
            if s == CAPTURE_DECIDES {
                marked += 1;
                now.push(mark);
                free.push(Some(symbol(v)));
            } else {
                now.push(symbol(s));
                free.push(None);
            }
        }
        // Marks first stand for their value; then each takes, in lane
        // order, the likeliest symbol ≤ its value under the counts of the
        // pass before; twice.
        let mut chosen: Vec<usize> = (now.iter().zip(&free))
            .map(|(&s, f)| f.unwrap_or(s))
            .collect();
        for _ in 0..2 {
            let mut counts = vec![0u64; alphabet * alphabet * alphabet];
            for_each_context(&chosen, alphabet, |c, s| counts[c * alphabet + s] += 1);
            let draw = alphabet / 2 - 1;
            for (lane, free) in chosen.chunks_mut(LANE).zip(free.chunks(LANE)) {
                let (mut previous, mut before) = (draw, draw);
                for (s, f) in lane.iter_mut().zip(free) {
                    if let Some(largest) = *f {
                        let context = &counts[(previous * alphabet + before) * alphabet..];
                        *s = (0..=largest).max_by_key(|&c| context[c]).expect("a symbol");
                    }
                    (previous, before) = (*s, previous);
                }
            }
        }
        let (bits_now, bits_free) = (
            entropy_bits(&now, alphabet),
            entropy_bits(&chosen, alphabet),
        );
        let positions = values.len() as f64;
        println!(
            "layer {seeds}: {} positions, {:.1}% marked, {:.1}% with a capture or no move",
            values.len(),
            100.0 * marked as f64 / positions,
            100.0 * with_capture as f64 / positions
        );
        println!(
            "order-2 entropy: as stored {:.4} B/position; marks as don't care {:.4} ({:+.1}%)",
            bits_now / 8.0 / positions,
            bits_free / 8.0 / positions,
            100.0 * (bits_free / bits_now - 1.0)
        );
        Ok(())
    })
    .expect("decode the layers");
}
