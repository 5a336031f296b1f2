//! Storage of the explicit-engine tables (En Gehé, Omweso): one file per
//! layer with a small header, until the compressed table format replaces it.
//! Everything goes through [`write`] and [`open`], so that switch is local.
//!
//! Layout, little-endian: magic `MTBX`, format version (u32), bytes per
//! value (u8: 1 or 2), three zero bytes, descriptor length (u32), the
//! descriptor (UTF-8: game, rules, layer, value encoding), position count
//! (u64), CRC-32 of the descriptor and the payload (u32), then the values
//! in rank order.
//! Files are written to a temporary name and renamed when complete.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use crate::table::raw::{self, RawError};

const MAGIC: &[u8; 4] = b"MTBX";
const VERSION: u32 = 1;

/// Errors of table files; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{path}: not found")]
    Missing { path: PathBuf },
    #[error("{path}: damaged table file ({why})")]
    Damaged { path: PathBuf, why: String },
    #[error("{path}: holds the table `{found}`, expected `{expected}`")]
    Foreign {
        path: PathBuf,
        found: String,
        expected: String,
    },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

/// Values as they are written: one or two bytes each.
#[derive(Clone, Copy, Debug)]
pub enum Values<'a> {
    I8(&'a [i8]),
    I16(&'a [i16]),
}

impl Values<'_> {
    fn width(&self) -> u8 {
        match self {
            Values::I8(_) => 1,
            Values::I16(_) => 2,
        }
    }

    fn len(&self) -> usize {
        match self {
            Values::I8(v) => v.len(),
            Values::I16(v) => v.len(),
        }
    }

    fn bytes(&self) -> Vec<u8> {
        match self {
            Values::I8(v) => v.iter().map(|&x| x as u8).collect(),
            Values::I16(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        }
    }
}

/// Writes a complete table: `descriptor` names what it holds.
pub fn write(path: &Path, descriptor: &str, values: Values) -> Result<(), StoreError> {
    let payload = values.bytes();
    let mut header = Vec::with_capacity(32 + descriptor.len());
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&VERSION.to_le_bytes());
    header.extend_from_slice(&[values.width(), 0, 0, 0]);
    header.extend_from_slice(&(descriptor.len() as u32).to_le_bytes());
    header.extend_from_slice(descriptor.as_bytes());
    header.extend_from_slice(&(values.len() as u64).to_le_bytes());
    header.extend_from_slice(&checksum(descriptor.as_bytes(), &payload).to_le_bytes());
    let tmp = path.with_extension("tmp");
    raw::write_atomically(path, &tmp, |file| {
        file.write_all(&header)?;
        file.write_all(&payload)
    })
    .map_err(|e| match e {
        RawError::Io { path, source } => StoreError::Io { path, source },
        other => StoreError::Io {
            path: path.to_path_buf(),
            source: io::Error::other(other.to_string()),
        },
    })
}

/// A table opened for reading: memory-mapped, header and checksum checked.
pub struct Table {
    map: Mmap,
    start: usize,
    len: u64,
    width: u8,
}

impl Table {
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The value of rank `rank` (below [`Table::len`]).
    #[inline]
    pub fn get(&self, rank: u64) -> i16 {
        let at = self.start + rank as usize * usize::from(self.width);
        if self.width == 1 {
            i16::from(self.map[at] as i8)
        } else {
            i16::from_le_bytes([self.map[at], self.map[at + 1]])
        }
    }
}

/// Opens a table, checking that it holds `descriptor` with `positions`
/// values and that its payload is intact.
pub fn open(path: &Path, descriptor: &str, positions: u64) -> Result<Table, StoreError> {
    let file = File::open(path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => StoreError::Missing {
            path: path.to_path_buf(),
        },
        _ => StoreError::Io {
            path: path.to_path_buf(),
            source: e,
        },
    })?;
    let io_error = |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    };
    if file.metadata().map_err(io_error)?.len() < 8 {
        return Err(StoreError::Damaged {
            path: path.to_path_buf(),
            why: "too short for a table header".into(),
        });
    }
    // SAFETY: table files are written once (temporary file + rename) and
    // never modified in place.
    let map = unsafe { Mmap::map(&file) }.map_err(io_error)?;
    let damaged = |why: &str| StoreError::Damaged {
        path: path.to_path_buf(),
        why: why.to_string(),
    };
    let mut reader = Reader { bytes: &map, at: 0 };
    if reader.take(4) != Some(MAGIC.as_slice()) {
        return Err(damaged("not a mancala-tb table: bad magic"));
    }
    let version = reader.u32().ok_or_else(|| damaged("truncated header"))?;
    if version != VERSION {
        return Err(damaged(&format!(
            "format version {version}, this program reads {VERSION}"
        )));
    }
    let width = reader.take(4).ok_or_else(|| damaged("truncated header"))?[0];
    if width != 1 && width != 2 {
        return Err(damaged(&format!("{width} bytes per value")));
    }
    let found = reader
        .u32()
        .and_then(|n| reader.take(n as usize))
        .ok_or_else(|| damaged("truncated header"))?;
    let len = reader.u64().ok_or_else(|| damaged("truncated header"))?;
    let crc = reader.u32().ok_or_else(|| damaged("truncated header"))?;
    let start = reader.at;
    let expected_bytes = len.checked_mul(u64::from(width));
    if expected_bytes != Some((map.len() - start) as u64) {
        return Err(damaged(&format!(
            "{} payload bytes for {len} values of {width} bytes",
            map.len() - start
        )));
    }
    if checksum(found, &map[start..]) != crc {
        return Err(damaged("checksum mismatch"));
    }
    let found = String::from_utf8_lossy(found).into_owned();
    if found != descriptor {
        return Err(StoreError::Foreign {
            path: path.to_path_buf(),
            found,
            expected: descriptor.to_string(),
        });
    }
    if len != positions {
        return Err(damaged(&format!(
            "{len} positions, the layer has {positions}"
        )));
    }
    Ok(Table {
        map,
        start,
        len,
        width,
    })
}

/// CRC-32 of the descriptor and the payload: a damaged header reads as
/// damaged, not as a table of other rules.
fn checksum(descriptor: &[u8], payload: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(descriptor);
    hasher.update(payload);
    hasher.finalize()
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let out = self.bytes.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(out)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.tb");
        write(&path, "test a", Values::I8(&[1, -2, 3])).unwrap();
        let t = open(&path, "test a", 3).unwrap();
        assert_eq!((t.len(), t.get(0), t.get(1), t.get(2)), (3, 1, -2, 3));
        write(&path, "test b", Values::I16(&[-300, 7])).unwrap();
        let t = open(&path, "test b", 2).unwrap();
        assert_eq!((t.get(0), t.get(1)), (-300, 7));
        assert!(!dir.path().join("t.tmp").exists());
    }

    #[test]
    fn bad_files_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.tb");
        let err = |r: Result<Table, StoreError>| r.err().unwrap().to_string();
        assert!(err(open(&path, "x", 1)).ends_with("t.tb: not found"));
        write(&path, "test a", Values::I8(&[1, -2, 3])).unwrap();
        assert!(err(open(&path, "test b", 3)).contains("holds the table `test a`"));
        assert!(err(open(&path, "test a", 4)).contains("3 positions, the layer has 4"));
        let mut bytes = std::fs::read(&path).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert!(err(open(&path, "test a", 3)).contains("checksum mismatch"));
        bytes.truncate(bytes.len() - 1);
        std::fs::write(&path, &bytes).unwrap();
        assert!(err(open(&path, "test a", 3)).contains("payload bytes"));
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.push(0);
        bytes[17] ^= 2; // inside the descriptor
        std::fs::write(&path, &bytes).unwrap();
        assert!(err(open(&path, "test a", 3)).contains("checksum mismatch"));
        std::fs::write(&path, b"MTBY0000").unwrap();
        assert!(err(open(&path, "test a", 3)).contains("bad magic"));
        std::fs::write(&path, b"").unwrap();
        assert!(err(open(&path, "test a", 3)).contains("damaged"));
    }
}
