//! Errors of the table format. Every variant names the file, so a message from a
//! build that probes dozens of lower layers says which one is at fault.

use std::io;
use std::path::PathBuf;

/// What went wrong while writing, opening or reading a table file.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    #[error("{}: no such table file", path.display())]
    NotFound { path: PathBuf },

    #[error("{}", path.display())]
    Io { path: PathBuf, source: io::Error },

    #[error("{}: not a mancala-tb table (bad magic)", path.display())]
    NotATable { path: PathBuf },

    #[error("{}: table format version {version} is not supported (this build reads {supported})", path.display())]
    UnsupportedVersion {
        path: PathBuf,
        version: u32,
        supported: u32,
    },

    #[error("{}: truncated: {found} bytes, expected {expected}", path.display())]
    Truncated {
        path: PathBuf,
        expected: u64,
        found: u64,
    },

    #[error("{}: header checksum mismatch (damaged header)", path.display())]
    HeaderChecksum { path: PathBuf },

    /// The header checksum matched but its fields are inconsistent or unknown:
    /// a file written by a buggy or newer writer, not random damage.
    #[error("{}: bad header: {reason}", path.display())]
    BadHeader { path: PathBuf, reason: String },

    /// A block's index entry points outside the data, or its data does not
    /// decompress to a block of the right size.
    #[error("{}: block {block} is damaged: {reason}", path.display())]
    BadBlock {
        path: PathBuf,
        block: u64,
        reason: String,
    },

    #[error("{}: block {block} checksum mismatch (damaged data)", path.display())]
    BlockChecksum { path: PathBuf, block: u64 },

    #[error("{}: payload checksum mismatch (damaged data or index)", path.display())]
    PayloadChecksum { path: PathBuf },

    #[error("{}: {field} is {found}, expected {expected}", path.display())]
    MetaMismatch {
        path: PathBuf,
        field: &'static str,
        expected: String,
        found: String,
    },

    #[error("{}: rank {rank} is out of range (table holds {len} positions)", path.display())]
    OutOfRange { path: PathBuf, rank: u64, len: u64 },

    #[error("{}: holds {width}-byte values, read as {asked}-byte values", path.display())]
    ValueWidth {
        path: PathBuf,
        width: usize,
        asked: usize,
    },

    /// The writer was asked for something the format cannot hold.
    #[error("{}: cannot write table: {reason}", path.display())]
    InvalidInput { path: PathBuf, reason: String },
}

impl TableError {
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
