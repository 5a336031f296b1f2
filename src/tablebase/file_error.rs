//! What can be wrong with one file or folder of a tablebase, for every game.
//! The path is not here: [`WithPath`](crate::error::WithPath) says it once,
//! in front.

use std::io;
use std::path::PathBuf;

use crate::error::Cause;
use crate::games::oware::Board;

/// What went wrong at one table, folder or scratch file.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The system refused to read or write it (a full disk, a permission):
    /// the file itself is not at fault.
    #[error(transparent)]
    Io(io::Error),
    /// The tablebase folder (or a game's folder in it) cannot be made.
    #[error("cannot create the tablebase folder")]
    CreateDir(#[source] io::Error),
    /// A table written in a format this build no longer reads.
    #[error(
        "a table in the retired uncompressed format; delete it and rebuild it with `mancala-tb build`"
    )]
    Retired,
    /// A table of another game, ruleset or layer where this one belongs.
    #[error("holds {found}, expected {expected}")]
    WrongTable {
        /// What the header says it holds.
        found: String,
        /// What the path should hold.
        expected: String,
    },
    /// A stored value that is not the best over the position's moves.
    #[error("rank {rank} ({position}) holds {stored} but its moves give {expected}")]
    Inconsistent {
        /// The position's rank in its layer.
        rank: u64,
        /// The position, as its game writes it.
        position: String,
        /// The value in the table.
        stored: String,
        /// The best value over its moves.
        expected: String,
    },
    /// An Oware position stored as "its best capture decides" that has no
    /// capture.
    #[error("rank {rank} {board:?} is marked as decided by its captures but has none")]
    NoCapture {
        /// The position's rank in its layer.
        rank: u64,
        /// The position.
        board: Board,
    },
    /// Two tables of the same Oware layer disagree (`import` and `verify`
    /// against published `scores.N` files).
    #[error("differs from {} first at rank {rank} {board:?}: {ours} here, {theirs} there", other.display())]
    Differs {
        /// The other file.
        other: PathBuf,
        /// The first rank where they differ.
        rank: u64,
        /// Its position.
        board: Board,
        /// The value in this file.
        ours: i8,
        /// The value in the other file.
        theirs: i8,
    },
    /// A file that an export or import would overwrite.
    #[error("already exists; delete it first to replace it")]
    Exists,
    /// A folder that another build (or verify) holds locked.
    #[error(
        "another build or verify is using this folder (it holds its .lock file); wait for it to finish or stop it"
    )]
    Locked,
}

impl FileError {
    /// Why it failed.
    pub fn cause(&self) -> Cause<'static> {
        match self {
            FileError::Io(_) | FileError::CreateDir(_) | FileError::Locked => Cause::Other,
            FileError::Exists => Cause::BadInput,
            FileError::Retired
            | FileError::WrongTable { .. }
            | FileError::Inconsistent { .. }
            | FileError::NoCapture { .. }
            | FileError::Differs { .. } => Cause::DamagedTable,
        }
    }
}
