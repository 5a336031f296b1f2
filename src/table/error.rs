//! Errors of the table format. The kind of error holds no path: every
//! function of this module returns it in a [`WithPath`](crate::error::WithPath),
//! so a message from a build that probes dozens of lower layers names the file
//! at fault once, in front.

use std::io;

use crate::error::Cause;

/// What went wrong while writing, opening or reading a table file.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// No file at the path.
    #[error("no such table file")]
    NotFound,

    /// The system refused to read or write the file.
    #[error(transparent)]
    Io(io::Error),

    /// The file does not start with the magic of a table (`docs/format.md`).
    #[error("not a mancala-tb table (bad magic)")]
    NotATable,

    /// A format version this build does not read.
    #[error("table format version {version} is not supported (this build reads {supported})")]
    UnsupportedVersion {
        /// The file's version.
        version: u32,
        /// The version this build reads.
        supported: u32,
    },

    /// A value encoding or block coding this build does not know, in an
    /// intact header: a newer build wrote the file.
    #[error(
        "{what} {id} is unknown to this build (the header is intact: a newer mancala-tb wrote it); update mancala-tb or rebuild the table with this one"
    )]
    UnknownCoding {
        /// "value encoding" or "block coding".
        what: &'static str,
        /// The file's id for it.
        id: u8,
    },

    /// The file is shorter than its header says.
    #[error("truncated: {found} bytes, expected {expected}")]
    Truncated {
        /// Bytes the header promises.
        expected: u64,
        /// Bytes on disk.
        found: u64,
    },

    /// The header's checksum does not match it.
    #[error("header checksum mismatch (damaged header)")]
    HeaderChecksum,

    /// The header checksum matched but its fields are inconsistent or unknown:
    /// a file written by a buggy or newer writer, not random damage.
    #[error("bad header: {reason}")]
    BadHeader {
        /// Which field is wrong, and how.
        reason: String,
    },

    /// A block's index entry points outside the data, or its data does not
    /// decompress to a block of the right size.
    #[error("block {block} is damaged: {reason}")]
    BadBlock {
        /// The block's number.
        block: u64,
        /// What is wrong with it.
        reason: String,
    },

    /// A block's values do not match its checksum.
    #[error("block {block} checksum mismatch (damaged data)")]
    BlockChecksum {
        /// The block's number.
        block: u64,
    },

    /// The data and index do not match the header's checksum
    /// ([`Table::verify`](super::Table::verify)).
    #[error("payload checksum mismatch (damaged data or index)")]
    PayloadChecksum,

    /// A sound table of another game, ruleset, layer or size than asked for.
    #[error("{field} is {found}, expected {expected}")]
    MetaMismatch {
        /// The header field (`ruleset`, `position count`, …).
        field: &'static str,
        /// What the caller asked for.
        expected: String,
        /// What the header says.
        found: String,
    },

    /// A rank at or past the table's end.
    #[error("rank {rank} is out of range (table holds {len} positions)")]
    OutOfRange {
        /// The rank asked for.
        rank: u64,
        /// Positions in the table.
        len: u64,
    },

    /// One-byte values read as two-byte ones, or the other way round.
    #[error("holds {width}-byte values, read as {asked}-byte values")]
    ValueWidth {
        /// Bytes per value in the file.
        width: usize,
        /// Bytes per value asked for.
        asked: usize,
    },

    /// Another process writing the table with this one failed (its own
    /// error says why); the table is not written.
    #[error("rank {rank} of the build failed while writing this table (its own error says why)")]
    OtherRank {
        /// The first rank that failed.
        rank: usize,
    },

    /// The writer was asked for something the format cannot hold.
    #[error("cannot write table: {reason}")]
    InvalidInput {
        /// What cannot be written.
        reason: String,
    },
}

impl TableError {
    /// Why it failed: damage for anything wrong inside a file.
    pub fn cause(&self) -> Cause<'static> {
        match self {
            TableError::NotFound
            | TableError::Io(_)
            | TableError::OutOfRange { .. }
            | TableError::OtherRank { .. }
            | TableError::InvalidInput { .. } => Cause::Other,
            _ => Cause::DamagedTable,
        }
    }

    /// An I/O error, with "file not found" given its own variant.
    pub(crate) fn io(source: io::Error) -> Self {
        if source.kind() == io::ErrorKind::NotFound {
            TableError::NotFound
        } else {
            TableError::Io(source)
        }
    }
}
