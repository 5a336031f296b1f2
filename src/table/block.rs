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

/// Decompresses a block that must hold exactly `len` values with checksum `crc`.
/// The error says why the block is unusable; `Err(None)` means a checksum mismatch.
pub fn decompress(frame: &[u8], len: usize, crc: u32) -> Result<Vec<u8>, Option<String>> {
    let mut out = Vec::with_capacity(len);
    DECOMPRESSOR.with(|cell| {
        let mut slot = cell.borrow_mut();
        let d = match &mut *slot {
            Some(d) => d,
            empty => empty.insert(Decompressor::new().map_err(|e| Some(e.to_string()))?),
        };
        d.decompress_to_buffer(frame, &mut out)
            .map_err(|e| Some(format!("zstd: {e}")))
    })?;
    if out.len() != len {
        return Err(Some(format!(
            "decodes to {} values, expected {len}",
            out.len()
        )));
    }
    if self::crc(&out) != crc {
        return Err(None);
    }
    Ok(out)
}
