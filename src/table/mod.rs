//! Table files: one per game + ruleset + layer, holding one `i8` value per
//! position in rank order, compressed in independently decodable blocks and
//! read through a memory map so a probe touches one block.
//!
//! Write with [`write_table`] or [`TableWriter`]; read with [`Table::open`].
//!
//! The byte-level layout, every field and coding: `docs/format.md`. Writers
//! write zstd blocks or, for one-byte scores, the context coding of
//! `score_coding.rs` (coding 4); tables of the older codings 1 to 3 read
//! through the same decoder with their own stream layouts
//! ([`BlockCoding::streams`]), and `legacy.rs` tests that they still do.
//!
//! A reader checks the magic, the version, the header CRC and that the sizes
//! agree before trusting any offset, and each block's CRC when decoding it
//! (a probe of a context-coded table: its stream's end or CRC), so
//! damage gives an error rather than a wrong value (short of a CRC-32
//! collision). [`Table::verify`] also checks the payload CRC and that the
//! index entries tile the data exactly.
//!
//! A file at its final name is complete: a writer builds `<name>.tmp`
//! beside it, syncs, re-opens and verifies it, and only then renames it
//! (`docs/format.md`, "Completeness").

mod block;
mod cache;
mod error;
mod header;
#[cfg(test)]
mod legacy;
mod rans;
pub mod raw;
mod reader;
mod score_coding;
mod share;
mod writer;

pub use block::TableValue;
pub use error::TableError;
pub use header::{
    BlockCoding, CAPTURE_DECIDES, TableMeta, VERSION, ValueEncoding, distance_options,
    distance_source,
};
pub use reader::{DEFAULT_CACHE_BLOCKS, Table};
pub use share::{Collective, TableShare};
pub use writer::{DEFAULT_BLOCK_SIZE, DEFAULT_LEVEL, PendingTable, TableWriter, write_table};

/// The table files (`*.mtb`) one folder down in a tablebase folder, by
/// sub-folder and then by seed count.
pub fn table_files(dir: &std::path::Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    let mut files = Vec::new();
    for sub in std::fs::read_dir(dir)?.flatten() {
        if let Ok(inner) = std::fs::read_dir(sub.path()) {
            files.extend(
                inner
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "mtb")),
            );
        }
    }
    files.sort_by_key(|p| {
        let seeds = p
            .file_stem()
            .and_then(|s| s.to_str())
            .and_then(|s| s.rsplit('.').next())
            .and_then(|s| s.parse::<u32>().ok());
        (p.parent().map(std::path::PathBuf::from), seeds)
    });
    Ok(files)
}

/// The one temporary name of every table file while it is written:
/// `dir/name` → `dir/name.tmp`, in the same folder so that the final rename
/// is atomic.
pub(crate) fn temp_path(path: &std::path::Path) -> std::path::PathBuf {
    let mut name = path
        .file_name()
        .map(std::ffi::OsString::from)
        .unwrap_or_default();
    name.push(".tmp");
    path.with_file_name(name)
}
