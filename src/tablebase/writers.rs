//! The table writer of each kind of table, with the measured reason for its
//! settings (the format's own defaults, 16 Ki blocks at zstd level 19, suit
//! a table written once and probed for ever; builds write many layers).

use crate::table::{TableMeta, TableWriter};

/// zstd level of built tables: on Oware layer 18, level 6 makes files 0.5%
/// larger than level 9 and 3% smaller than level 3, in a fraction of the
/// time of the highest levels.
const BUILD_LEVEL: i32 = 6;
/// Positions per block of built Oware tables: the largest the context
/// coding allows. A probe decodes one stream of its block whatever the
/// block's size, and larger blocks need fewer index entries (16 bytes each).
const OWARE_BLOCK_SIZE: u32 = 1 << 15;

/// Built Oware layers: probed at random by `query` and by the layers above,
/// so context coded (smaller than zstd too), with stream CRCs: a probe
/// decodes one stream of 512 values only up to its value. Values it
/// cannot code would fall back to zstd at the build level.
pub(crate) fn oware_build(meta: TableMeta) -> TableWriter {
    TableWriter::new(meta)
        .context_coded()
        .block_size(OWARE_BLOCK_SIZE)
        .level(BUILD_LEVEL)
}

/// Positions per block of Oware distance tables: a probe decodes its whole
/// zstd block, so small blocks keep a distance probe within a few times a
/// value probe; on layer 18, 2 Ki blocks are 3% larger than 16 Ki ones and
/// probe 5x faster (`benches/oware_probe.rs`).
const OWARE_DISTANCE_BLOCK_SIZE: u32 = 1 << 11;
/// zstd level of Oware distance tables: written as the layer is built, so
/// their time counts in the build's; on layer 20, level 3 writes in 0.57 of
/// level 6's time, files 2% larger (0.457 against 0.447 bytes a position).
const OWARE_DISTANCE_LEVEL: i32 = 3;

/// Distance tables of Oware layers: two bytes a position in zstd blocks
/// (the context coding takes one-byte scores), probed one position at a
/// time like the value tables.
pub(crate) fn oware_distance(meta: TableMeta) -> TableWriter {
    TableWriter::new(meta)
        .level(OWARE_DISTANCE_LEVEL)
        .block_size(OWARE_DISTANCE_BLOCK_SIZE)
}

/// Oware layers imported from published `scores.N` files: written once, so
/// the format defaults (smallest files).
pub(crate) fn oware_import(meta: TableMeta) -> TableWriter {
    TableWriter::new(meta)
}

/// Explicit-engine tables (En Gehé, Omweso): read whole by the layers above and
/// by checks far more than probed, so the format's blocks at the build
/// level.
pub(crate) fn explicit_build(meta: TableMeta) -> TableWriter {
    TableWriter::new(meta).level(BUILD_LEVEL)
}
