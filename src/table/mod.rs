//! Table files: one per game + ruleset + layer, holding one `i8` value per
//! position in rank order, compressed in independently decodable blocks and
//! read through a memory map so a probe touches one block.
//!
//! Write with [`write_table`] or [`TableWriter`]; read with [`Table::open`].
//!
//! # File layout (format version 1)
//!
//! All integers little-endian. CRC-32 is the IEEE polynomial (zlib's `crc32`).
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! | 0  | 8 | magic `89 4D 54 42 0D 0A 1A 0A` (`\x89MTB\r\n\x1a\n`) |
//! | 8  | 4 | format version `u32` = 1 |
//! | 12 | 4 | `header_len` `u32`: bytes of the header, a multiple of 8 |
//! | 16 | 8 | `file_len` `u64`: bytes of the whole file |
//! | 24 | 8 | `index_offset` `u64` = `file_len − 16·block_count` |
//! | 32 | 8 | `positions` `u64`: number of values |
//! | 40 | 8 | `block_count` `u64` = ⌈positions / block_size⌉ |
//! | 48 | 4 | `block_size` `u32`: positions per block (the last may hold fewer), 1 ..= 2²⁴ |
//! | 52 | 4 | `seeds` `u32`: the layer |
//! | 56 | 4 | `board_width` `u32`: pits per row |
//! | 60 | 4 | `payload_crc` `u32`: CRC-32 of bytes `header_len .. file_len` |
//! | 64 | 1 | value encoding: 1 = score (`i8`, the mover's result); 2 = score, with −128 standing for "the best capture decides" (recomputed by the reader from lower layers); 3 = win/draw/loss with distance (`i16`: `d ≥ 1` a win in `d` moves, 0 a draw, `−d − 1` a loss in `d`) |
//! | 65 | 1 | block coding: 0 = zstd (each block one zstd frame); 1 = score context coding (one-byte scores, rANS under an order-2 context model stored before the first block); 2 = as 1, each stream led by the CRC-32 of its bytes; 3 = as 2 with four lanes a stream, frequencies adding up to 2⁹, and each stream's CRC-32 covering its block and stream numbers; 4 = as 3, each lane's last values coded without renormalising (its tail) so that its encoder starts below 2¹⁶; other ids are refused |
//! | 66 | 2 | `g` `u16`: length of the game name |
//! | 68 | 2 | `r` `u16`: length of the ruleset name |
//! | 70 | 2 | `o` `u16`: length of the ruleset options |
//! | 72 | g+r+o | game, ruleset, options: UTF-8, no terminators |
//! | … | … | zero padding up to `header_len − 4` |
//! | `header_len − 4` | 4 | header CRC-32 of bytes `0 .. header_len − 4` |
//! | `header_len` | … | data: with block coding 1 or 2 first the model section, then the compressed blocks, in block order, back to back |
//! | `index_offset` | 16·`block_count` | block index, one entry per block |
//!
//! Index entry `i` (16 bytes): `offset` `u64` (absolute file offset of block
//! `i`), `len` `u32` (its compressed bytes), `crc` `u32` (CRC-32 of its decoded
//! values). Block `i` holds the values of ranks `i·block_size ..` as one zstd
//! frame; decoded, it is one byte per value (the `i8` as two's complement)
//! for encodings 1 and 2, and two bytes per value for encoding 3, as two planes:
//! the low bytes of the block's values, then their high bytes (an `i16` in two's
//! complement is `low + 256·high`). Planes compress far better than pairs: the
//! high bytes are nearly constant.
//!
//! With block coding 1 to 4 (chosen with [`TableWriter::coding`] for
//! tables of one-byte scores; Oware builds write 4), the data starts with
//! the model section: `u32` model length `m`, `u32` CRC-32 of the model,
//! then the model, in LEB128 varints: the stream length (512), the number of
//! distributions, each distribution (its symbol count − 1, then each
//! symbol, a byte, in increasing order, with its frequency; frequencies
//! add up to 2¹⁰, 2⁹ in codings 3 and 4), then for each context its
//! distribution. A distribution's slots go to its symbols in increasing
//! order, in coding 4 by decreasing frequency (ties in increasing
//! order). Symbols are
//! the values `−n ..= n` (`n` the seeds) as `v + n` and the capture mark as
//! `2n + 1`; the context of a value is `(2n + 2)·previous + the one
//! before`, the two symbols before it in its lane (a draw, `n`, before the
//! first). A block is cut into streams of 512 values (the last may be
//! shorter), each of `L` lanes (2; 4 in codings 3 and 4): consecutive runs of
//! `⌊len / L⌋` values, the last `len mod L` lanes one value longer. The
//! block holds the `u16` end offset of each stream but the last (counted
//! from the end of these offsets), then the streams. A stream is rANS with
//! `L` 32-bit states over one sequence of 16-bit words (ryg's
//! `rans_word.h`, renormalised below 2¹⁶): the `L` initial states (4 bytes
//! each, little-endian), then the words (little-endian), read as the
//! lanes' values are decoded, a value of each lane in turn (the value `i`
//! of every lane, then value `i + 1` of every lane, ...). A decoder must
//! end each stream with every word read and (codings 1 to 3) every state
//! back at 2¹⁶; a whole-block decode checks that and the block's CRC.
//! With coding 1 a probe decodes one stream whole and checks its end.
//! With codings 2 to 4 each stream is led by a `u32` CRC-32 (the offsets
//! count it as part of the stream): in coding 2 of the stream's bytes, in
//! codings 3 and 4 of the block number (`u64`), the stream's number in
//! its block (`u32`), then its bytes, so that a stream read from another
//! place (a damaged index entry or offset) fails it. A probe checks it,
//! then decodes the stream only as far as its value. In coding 4 the
//! stream's bytes start with a byte `t`, before the states: the last `t`
//! steps of a stream of `s` steps (`s` = its longest lane's values) are
//! its lanes' tails, in which the decoder reads no word (a step `i ≥ s −
//! t` of each lane that has it never renormalises).
//!
//! A reader checks the magic, the version, the header CRC and that the sizes
//! agree before trusting any offset, and each block's CRC when decoding it
//! (a probe of a context-coded table: its stream's end or CRC), so
//! damage gives an error rather than a wrong value (short of a CRC-32
//! collision). [`Table::verify`] also checks the payload CRC and that the
//! index entries tile the data exactly.
//!
//! # Completeness
//!
//! There is no "complete" flag: a writer builds `<name>.tmp` in the same
//! directory, syncs it, re-opens and verifies it, and only then renames it to
//! `<name>` and syncs the directory. A file at its final name is therefore
//! complete; a crash leaves at most a `.tmp` file (removed on the next error
//! or overwritten by the next write). Two processes must not write the same
//! table at once.

mod block;
mod cache;
mod error;
mod header;
mod rans;
pub mod raw;
mod reader;
mod score_coding;
mod writer;

pub use block::TableValue;
pub use error::TableError;
pub use header::{BlockCoding, CAPTURE_DECIDES, MAGIC, TableMeta, VERSION, ValueEncoding};
pub use reader::{DEFAULT_CACHE_BLOCKS, Table};
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
