//! What every library error can say about itself: its [`Cause`], which a
//! caller acts on (the CLI turns it into the exit code and, for a missing
//! table, into the command that builds it).

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

/// A table that is not built: where it belongs and what builds it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the table is missing ({} not found)", path.display())]
pub struct MissingTable {
    pub path: PathBuf,
    /// The arguments of `mancala-tb build` that build it, e.g. `oware
    /// --rules awari --max-seeds 3 --dir tablebases`.
    pub build_args: String,
}
