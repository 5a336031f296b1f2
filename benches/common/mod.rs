//! What the benchmarks share.

/// The command line's arguments, less the program and the `--bench` that
/// `cargo bench` adds.
pub fn args() -> Vec<String> {
    std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect()
}
