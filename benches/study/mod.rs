//! What the estimates of issue #10's size goal share (`contexts`,
//! `dont_care`): a built awari layer as stored, and the entropy of counts.

use std::path::{Path, PathBuf};

use mancala_tb::games::oware::Ruleset;
use mancala_tb::tablebase::oware as tb;

/// The tables' folder and the layer, from the arguments `DIR SEEDS`.
pub fn dir_and_seeds(args: &[String]) -> (PathBuf, usize) {
    let dir = PathBuf::from(&args[0]);
    (dir, args[1].parse().expect("SEEDS is a number"))
}

/// Awari layer `seeds` under `dir` as stored (capture-decided positions
/// marked).
pub fn stored_layer(dir: &Path, seeds: usize) -> Vec<i8> {
    let folder = tb::ruleset_dir(dir, Ruleset::Awari);
    mancala_tb::table::Table::open(tb::table_path(&folder, seeds))
        .expect("open the layer")
        .decode_all()
        .expect("decode the layer")
}

/// Bits of the symbols counted, each context under its own distribution
/// (the ideal static model): per context, how often each symbol came.
pub fn entropy_bits<'a>(contexts: impl Iterator<Item = &'a [u64]>) -> f64 {
    let mut bits = 0.0;
    for context in contexts {
        let total: u64 = context.iter().sum();
        for &n in context.iter().filter(|&&n| n > 0) {
            bits -= n as f64 * (n as f64 / total as f64).log2();
        }
    }
    bits
}
