//! What every library error can say about itself: its [`Cause`], which a
//! caller acts on (the CLI turns it into the exit code).

use std::fmt;
use std::path::{Path, PathBuf};

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
    /// The table file that would hold it.
    pub path: PathBuf,
    /// The arguments of `mancala-tb build` that build it, e.g. `oware
    /// --rules awari --max-seeds 3 --dir tablebases`.
    pub build_args: String,
}

/// An error reduced to its message and its cause, owned: what a batch
/// probe answers for a line (the binary's `probe`) or a row (the Python
/// package) it cannot answer, or for a batch a damaged table fails.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineError {
    /// What is wrong, as the error line says it.
    pub message: String,
    /// What kind of failure it is (the exit code of a run it ends).
    pub kind: LineErrorKind,
}

/// What kind of failure keeps a line from its answer: [`Cause`], owned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineErrorKind {
    /// Not a position of the tables (or of the game).
    BadInput,
    /// A table it needs is not built.
    MissingTable(MissingTable),
    /// A table it needs is damaged.
    DamagedTable,
    /// Anything else.
    Other,
}

impl LineError {
    /// A line that is not a position: `message` says why.
    pub fn bad_input(message: impl Into<String>) -> LineError {
        LineError {
            message: message.into(),
            kind: LineErrorKind::BadInput,
        }
    }

    /// The line error of `error`, whose cause is `cause`.
    pub fn of(error: &impl fmt::Display, cause: Cause<'_>) -> LineError {
        let kind = match cause {
            Cause::BadInput => LineErrorKind::BadInput,
            Cause::MissingTable(missing) => LineErrorKind::MissingTable(missing.clone()),
            Cause::DamagedTable => LineErrorKind::DamagedTable,
            Cause::Other => LineErrorKind::Other,
        };
        LineError {
            message: error.to_string(),
            kind,
        }
    }

    /// Why the line failed, as errors say it.
    pub fn cause(&self) -> Cause<'_> {
        match &self.kind {
            LineErrorKind::BadInput => Cause::BadInput,
            LineErrorKind::MissingTable(missing) => Cause::MissingTable(missing),
            LineErrorKind::DamagedTable => Cause::DamagedTable,
            LineErrorKind::Other => Cause::Other,
        }
    }
}

/// An error at one file or folder: the path, said once in front of what
/// went wrong there (`tablebases/engehe-w2-void/counters.5.mtb: rank 17 …`).
/// The variants inside need not repeat it.
#[derive(Debug)]
pub struct WithPath<E> {
    /// The file or folder at fault.
    pub path: PathBuf,
    /// What went wrong there.
    pub error: E,
}

impl<E> WithPath<E> {
    /// `error`, which happened at `path`.
    pub fn new(path: impl Into<PathBuf>, error: E) -> WithPath<E> {
        WithPath {
            path: path.into(),
            error,
        }
    }
}

impl<E: fmt::Display> fmt::Display for WithPath<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.error)
    }
}

impl<E: std::error::Error> std::error::Error for WithPath<E> {
    /// The cause of `error`: its own message is already in this one's.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.error.source()
    }
}

/// Adds the path to a result's error: `fs::read(&path).at(&path)?`.
pub trait PathContext<T, E> {
    /// The error, if any, wrapped in [`WithPath`].
    fn at(self, path: &Path) -> Result<T, WithPath<E>>;
}

impl<T, E> PathContext<T, E> for Result<T, E> {
    fn at(self, path: &Path) -> Result<T, WithPath<E>> {
        self.map_err(|error| WithPath::new(path, error))
    }
}
