//! What every library error can say about itself: its [`Cause`], which a
//! caller acts on (the CLI turns it into the exit code).

use std::path::PathBuf;

/// Why an operation failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause<'a> {
    /// The caller asked for something impossible: a bad position, option or
    /// file to import.
    BadInput,
    /// A table that is not built yet.
    MissingTable(&'a MissingTable),
    /// A table file that is damaged, foreign or inconsistent.
    DamagedTable,
    /// Anything else: the system (I/O, memory) or the engines' limits.
    Other,
}

/// A table that is not built: which, where it belongs and what builds it.
/// Its message is the one phrasing of the "build it with" hint.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{table} is missing ({} not found); build it with `mancala-tb build {build_args}`",
    path.display()
)]
pub struct MissingTable {
    /// What is missing, e.g. `layer 3 of the awari tables`.
    pub table: String,
    pub path: PathBuf,
    /// The arguments of `mancala-tb build` that build it, e.g. `oware
    /// --rules awari --max-seeds 3 --dir tablebases`.
    pub build_args: String,
}
