//! One block: values in, a zstd frame out, and back with its checksum checked.

use std::cell::RefCell;
use std::io;

use zstd::bulk::{Compressor, Decompressor};

/// CRC-32 of a block's values, as stored in its index entry.
pub fn crc(values: &[u8]) -> u32 {
    crc32fast::hash(values)
}

/// The value bytes as written: the two's complement byte of each `i8`.
pub fn to_bytes(values: &[i8]) -> Vec<u8> {
    values.iter().map(|&v| v as u8).collect()
}

/// Compresses one block's value bytes into a standalone zstd frame.
pub fn compress(compressor: &mut Compressor, bytes: &[u8]) -> io::Result<Vec<u8>> {
    compressor.compress(bytes)
}

thread_local! {
    /// One decompression context per thread: creating one costs more than
    /// decompressing a small block.
    static DECOMPRESSOR: RefCell<Option<Decompressor<'static>>> = const { RefCell::new(None) };
}

/// Why a block cannot be used.
pub enum Fault {
    /// It decoded, but not to the values that were written.
    Checksum,
    /// It does not decode to a block of the right size.
    Damaged(String),
}

/// Decompresses a block that must hold exactly `len` values with checksum `crc`.
pub fn decompress(frame: &[u8], len: usize, crc: u32) -> Result<Vec<u8>, Fault> {
    let mut out = Vec::with_capacity(len);
    DECOMPRESSOR
        .with(|cell| {
            let mut slot = cell.borrow_mut();
            let d = match &mut *slot {
                Some(d) => d,
                empty => empty.insert(Decompressor::new()?),
            };
            d.decompress_to_buffer(frame, &mut out)
        })
        .map_err(|e| Fault::Damaged(format!("zstd: {e}")))?;
    if out.len() != len {
        let reason = format!("decodes to {} values, expected {len}", out.len());
        return Err(Fault::Damaged(reason));
    }
    if self::crc(&out) != crc {
        return Err(Fault::Checksum);
    }
    Ok(out)
}
