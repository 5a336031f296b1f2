//! Storage of the explicit-engine tables (En Gehé, Omweso), one file per
//! layer, behind the pair [`write`] / [`open`]:
//! - one-byte values (En Gehé scores, Omweso points) go to the compressed
//!   table format of [`crate::table`];
//! - two-byte values (Omweso win/draw/loss with distances, which pass 127)
//!   go to a simple uncompressed *wide* format until the compressed format
//!   has a two-byte encoding.
//!
//! Wide layout, little-endian: magic `MTBX`, format version (u32), bytes per
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
use crate::table::{self, TableError, TableMeta, ValueEncoding};

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
    #[error("{path}")]
    Io { path: PathBuf, source: io::Error },
    #[error(transparent)]
    Table(TableError),
}

impl From<TableError> for StoreError {
    fn from(e: TableError) -> Self {
        match e {
            TableError::NotFound { path } => StoreError::Missing { path },
            e => StoreError::Table(e),
        }
    }
}

/// What a table holds: refused when opened for anything else.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Meta {
    pub game: &'static str,
    /// The rules options, as written by the game's `Display`.
    pub ruleset: String,
    /// Anything else the values depend on (the objective).
    pub options: String,
    pub seeds: u32,
    pub board_width: u32,
    /// Two bytes per value (the wide format) rather than one.
    pub wide: bool,
}

impl Meta {
    fn table_meta(&self) -> TableMeta {
        TableMeta {
            game: self.game.into(),
            ruleset: self.ruleset.clone(),
            options: self.options.clone(),
            seeds: self.seeds,
            board_width: self.board_width,
            encoding: ValueEncoding::Score,
        }
    }

    /// The descriptor string of the wide format.
    fn descriptor(&self) -> String {
        format!(
            "{} width={} seeds={} {} {}",
            self.game, self.board_width, self.seeds, self.ruleset, self.options
        )
    }
}

/// Values as they are written: one or two bytes each.
#[derive(Clone, Copy, Debug)]
pub enum Values<'a> {
    I8(&'a [i8]),
    /// Only for tables whose [`Meta::wide`] is set.
    I16(&'a [i16]),
}

/// Writes a complete table holding `meta`.
pub fn write(path: &Path, meta: &Meta, values: Values) -> Result<(), StoreError> {
    match values {
        Values::I8(v) if !meta.wide => {
            Ok(super::writers::relay_build(meta.table_meta()).write(path, v)?)
        }
        Values::I16(v) if meta.wide => write_wide(path, &meta.descriptor(), v),
        _ => Err(StoreError::Io {
            path: path.to_path_buf(),
            source: io::Error::other("value width does not match the table kind"),
        }),
    }
}

fn write_wide(path: &Path, descriptor: &str, values: &[i16]) -> Result<(), StoreError> {
    let payload: Vec<u8> = values.iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut header = Vec::with_capacity(32 + descriptor.len());
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&VERSION.to_le_bytes());
    header.extend_from_slice(&[2, 0, 0, 0]);
    header.extend_from_slice(&(descriptor.len() as u32).to_le_bytes());
    header.extend_from_slice(descriptor.as_bytes());
    header.extend_from_slice(&(values.len() as u64).to_le_bytes());
    header.extend_from_slice(&checksum(descriptor.as_bytes(), &payload).to_le_bytes());
    let tmp = table::temp_path(path);
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

/// Bytes of a table file on disk.
pub fn file_bytes(path: &Path) -> Result<u64, StoreError> {
    std::fs::metadata(path)
        .map(|m| m.len())
        .map_err(|source| StoreError::Io {
            path: path.to_path_buf(),
            source,
        })
}

/// A table opened for reading.
pub enum Stored {
    Compressed(table::Table),
    Wide(Wide),
}

impl Stored {
    pub fn len(&self) -> u64 {
        match self {
            Stored::Compressed(t) => t.len(),
            Stored::Wide(t) => t.len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value of rank `rank` (below [`Stored::len`]); a damaged block
    /// of a compressed table is an error.
    #[inline]
    pub fn get(&self, rank: u64) -> Result<i16, StoreError> {
        match self {
            Stored::Compressed(t) => Ok(i16::from(t.get(rank)?)),
            Stored::Wide(t) => Ok(t.get(rank)),
        }
    }

    /// Every value, in rank order.
    pub fn load(&self) -> Result<Vec<i16>, StoreError> {
        match self {
            Stored::Compressed(t) => Ok(t.decode_all()?.into_iter().map(i16::from).collect()),
            Stored::Wide(t) => Ok((0..t.len).map(|r| t.get(r)).collect()),
        }
    }
}

/// Opens a table, checking that it holds `meta` with `positions` values.
pub fn open(path: &Path, meta: &Meta, positions: u64) -> Result<Stored, StoreError> {
    if !meta.wide {
        let t = table::Table::open(path)?;
        t.expect_meta(&meta.table_meta())?;
        t.expect_len(positions)?;
        Ok(Stored::Compressed(t))
    } else {
        Ok(Stored::Wide(open_wide(
            path,
            &meta.descriptor(),
            positions,
        )?))
    }
}

/// A wide table: memory-mapped, header and checksum checked.
pub struct Wide {
    map: Mmap,
    start: usize,
    len: u64,
}

impl Wide {
    #[inline]
    fn get(&self, rank: u64) -> i16 {
        let at = self.start + 2 * rank as usize;
        i16::from_le_bytes([self.map[at], self.map[at + 1]])
    }
}

fn open_wide(path: &Path, descriptor: &str, positions: u64) -> Result<Wide, StoreError> {
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
    if width != 2 {
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
    Ok(Wide { map, start, len })
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

    fn meta(wide: bool) -> Meta {
        Meta {
            game: "test",
            ruleset: "a".into(),
            options: String::new(),
            seeds: 3,
            board_width: 2,
            wide,
        }
    }

    #[test]
    fn tables_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.tb");
        write(&path, &meta(false), Values::I8(&[1, -2, 3])).unwrap();
        let t = open(&path, &meta(false), 3).unwrap();
        assert_eq!((t.len(), t.get(1).unwrap()), (3, -2));
        assert_eq!(t.load().unwrap(), vec![1, -2, 3]);
        write(&path, &meta(true), Values::I16(&[-300, 7])).unwrap();
        let t = open(&path, &meta(true), 2).unwrap();
        assert_eq!((t.get(0).unwrap(), t.get(1).unwrap()), (-300, 7));
        assert!(!dir.path().join("t.tb.tmp").exists());
        assert!(write(&path, &meta(true), Values::I8(&[1])).is_err());
    }

    #[test]
    fn bad_files_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.tb");
        let err = |r: Result<Stored, StoreError>| r.err().unwrap().to_string();
        let m = meta(true);
        assert!(err(open(&path, &m, 1)).ends_with("t.tb: not found"));
        assert!(err(open(&path, &meta(false), 1)).ends_with("t.tb: not found"));
        write(&path, &m, Values::I16(&[1, -2, 3])).unwrap();
        let other = Meta {
            ruleset: "b".into(),
            ..m.clone()
        };
        assert!(err(open(&path, &other, 3)).contains("holds the table `test width=2 seeds=3 a `"));
        assert!(err(open(&path, &m, 4)).contains("3 positions, the layer has 4"));
        let mut bytes = std::fs::read(&path).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert!(err(open(&path, &m, 3)).contains("checksum mismatch"));
        bytes.truncate(bytes.len() - 1);
        std::fs::write(&path, &bytes).unwrap();
        assert!(err(open(&path, &m, 3)).contains("payload bytes"));
        bytes.push(0);
        bytes[17] ^= 2; // inside the descriptor
        std::fs::write(&path, &bytes).unwrap();
        assert!(err(open(&path, &m, 3)).contains("checksum mismatch"));
        std::fs::write(&path, b"MTBY0000").unwrap();
        assert!(err(open(&path, &m, 3)).contains("bad magic"));
        std::fs::write(&path, b"").unwrap();
        assert!(err(open(&path, &m, 3)).contains("damaged"));
        // The compressed format reports its own damage.
        write(&path, &meta(false), Values::I8(&[1, -2, 3])).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[20] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert!(err(open(&path, &meta(false), 3)).contains("t.tb"));
    }
}
