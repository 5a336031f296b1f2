//! One block: values in, a zstd frame out, and back with its checksum checked.

use std::cell::RefCell;
use std::io;

use zstd::bulk::{Compressor, Decompressor};

/// A value type a table holds: one byte (`i8`) or two (`i16`), as its
/// [`ValueEncoding`](super::ValueEncoding) says.
pub trait TableValue: Copy + Default + Send + Sync + 'static {
    /// Bytes per value.
    const WIDTH: usize;
    /// A block's values as the bytes that are compressed and checksummed.
    fn to_bytes(values: &[Self]) -> Vec<u8>;
    /// Value `i` of a block decoded to `bytes`.
    fn from_bytes(bytes: &[u8], i: usize) -> Self;
    /// Every value of a block decoded to `bytes`.
    fn from_block(bytes: Vec<u8>) -> Vec<Self>;
}

impl TableValue for i8 {
    const WIDTH: usize = 1;
    fn to_bytes(values: &[i8]) -> Vec<u8> {
        values.iter().map(|&v| v as u8).collect()
    }
    #[inline]
    fn from_bytes(bytes: &[u8], i: usize) -> i8 {
        bytes[i] as i8
    }
    fn from_block(bytes: Vec<u8>) -> Vec<i8> {
        // Reuses the allocation: a cast per byte, no copy.
        bytes.into_iter().map(|b| b as i8).collect()
    }
}

/// Two-byte values are stored as two planes, every low byte then every high
/// byte: the high bytes are nearly constant, which zstd finds far more easily
/// than in interleaved pairs.
impl TableValue for i16 {
    const WIDTH: usize = 2;
    fn to_bytes(values: &[i16]) -> Vec<u8> {
        let low = values.iter().map(|&v| v as u8);
        let high = values.iter().map(|&v| (v >> 8) as u8);
        low.chain(high).collect()
    }
    #[inline]
    fn from_bytes(bytes: &[u8], i: usize) -> i16 {
        let half = bytes.len() / 2;
        i16::from_le_bytes([bytes[i], bytes[half + i]])
    }
    fn from_block(bytes: Vec<u8>) -> Vec<i16> {
        let (low, high) = bytes.split_at(bytes.len() / 2);
        low.iter()
            .zip(high)
            .map(|(&l, &h)| i16::from_le_bytes([l, h]))
            .collect()
    }
}

/// CRC-32 of a block's value bytes, as stored in its index entry.
pub fn crc(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
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

/// Decompresses a block that must hold exactly `len` bytes with checksum `crc`.
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
        let reason = format!("decodes to {} bytes, expected {len}", out.len());
        return Err(Fault::Damaged(reason));
    }
    checked(out, crc)
}

/// A decoded block's bytes, if they have checksum `crc`.
pub fn checked(bytes: Vec<u8>, crc: u32) -> Result<Vec<u8>, Fault> {
    if self::crc(&bytes) != crc {
        return Err(Fault::Checksum);
    }
    Ok(bytes)
}
