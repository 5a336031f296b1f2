//! Errors of the table format. Every variant names the file, so a message from a
//! build that probes dozens of lower layers says which one is at fault.

use std::io;

use crate::error::Cause;
use std::path::PathBuf;

/// What went wrong while writing, opening or reading a table file.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// No file at the path.
    #[error("{}: no such table file", path.display())]
    NotFound {
        /// The table file.
        path: PathBuf,
    },

    /// The system refused to read or write the file.
    #[error("{}", path.display())]
    Io {
        /// The table file.
        path: PathBuf,
        /// The system's reason.
        source: io::Error,
    },

    /// The file does not start with [`MAGIC`](super::MAGIC).
    #[error("{}: not a mancala-tb table (bad magic)", path.display())]
    NotATable {
        /// The file.
        path: PathBuf,
    },

    /// A format version this build does not read.
    #[error("{}: table format version {version} is not supported (this build reads {supported})", path.display())]
    UnsupportedVersion {
        /// The table file.
        path: PathBuf,
        /// The file's version.
        version: u32,
        /// The version this build reads.
        supported: u32,
    },

    /// The file is shorter than its header says.
    #[error("{}: truncated: {found} bytes, expected {expected}", path.display())]
    Truncated {
        /// The table file.
        path: PathBuf,
        /// Bytes the header promises.
        expected: u64,
        /// Bytes on disk.
        found: u64,
    },

    /// The header's checksum does not match it.
    #[error("{}: header checksum mismatch (damaged header)", path.display())]
    HeaderChecksum {
        /// The table file.
        path: PathBuf,
    },

    /// The header checksum matched but its fields are inconsistent or unknown:
    /// a file written by a buggy or newer writer, not random damage.
    #[error("{}: bad header: {reason}", path.display())]
    BadHeader {
        /// The table file.
        path: PathBuf,
        /// Which field is wrong, and how.
        reason: String,
    },

    /// A block's index entry points outside the data, or its data does not
    /// decompress to a block of the right size.
    #[error("{}: block {block} is damaged: {reason}", path.display())]
    BadBlock {
        /// The table file.
        path: PathBuf,
        /// The block's number.
        block: u64,
        /// What is wrong with it.
        reason: String,
    },

    /// A block's values do not match its checksum.
    #[error("{}: block {block} checksum mismatch (damaged data)", path.display())]
    BlockChecksum {
        /// The table file.
        path: PathBuf,
        /// The block's number.
        block: u64,
    },

    /// The data and index do not match the header's checksum
    /// ([`Table::verify`](super::Table::verify)).
    #[error("{}: payload checksum mismatch (damaged data or index)", path.display())]
    PayloadChecksum {
        /// The table file.
        path: PathBuf,
    },

    /// A sound table of another game, ruleset, layer or size than asked for.
    #[error("{}: {field} is {found}, expected {expected}", path.display())]
    MetaMismatch {
        /// The table file.
        path: PathBuf,
        /// The header field (`ruleset`, `position count`, …).
        field: &'static str,
        /// What the caller asked for.
        expected: String,
        /// What the header says.
        found: String,
    },

    /// A rank at or past the table's end.
    #[error("{}: rank {rank} is out of range (table holds {len} positions)", path.display())]
    OutOfRange {
        /// The table file.
        path: PathBuf,
        /// The rank asked for.
        rank: u64,
        /// Positions in the table.
        len: u64,
    },

    /// One-byte values read as two-byte ones, or the other way round.
    #[error("{}: holds {width}-byte values, read as {asked}-byte values", path.display())]
    ValueWidth {
        /// The table file.
        path: PathBuf,
        /// Bytes per value in the file.
        width: usize,
        /// Bytes per value asked for.
        asked: usize,
    },

    /// The writer was asked for something the format cannot hold.
    #[error("{}: cannot write table: {reason}", path.display())]
    InvalidInput {
        /// The table file.
        path: PathBuf,
        /// What cannot be written.
        reason: String,
    },
}

impl TableError {
    /// Why it failed: damage for anything wrong inside a file.
    pub fn cause(&self) -> Cause<'static> {
        match self {
            TableError::NotFound { .. }
            | TableError::Io { .. }
            | TableError::OutOfRange { .. }
            | TableError::InvalidInput { .. } => Cause::Other,
            _ => Cause::DamagedTable,
        }
    }

    /// An I/O error, with "file not found" given its own variant.
    pub(crate) fn io(path: impl Into<PathBuf>, source: io::Error) -> Self {
        let path = path.into();
        if source.kind() == io::ErrorKind::NotFound {
            TableError::NotFound { path }
        } else {
            TableError::Io { path, source }
        }
    }
}
