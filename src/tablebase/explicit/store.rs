//! Storage of the explicit-engine tables (En Gehé, Omweso), one file per
//! layer, behind the pair [`write()`] / [`open`], in the compressed table
//! format of [`crate::table`]: one-byte values (En Gehé scores, Omweso
//! points) as scores, two-byte values (Omweso win/draw/loss with distances,
//! which pass 127) as [`ValueEncoding::WdlDistance`].
//!
//! A score table may have a distance table beside it
//! ([`ValueEncoding::Distance`], [`write_distances`] / [`open_distances`]),
//! whose options name the payload CRC of the values it was built from.
//!
//! An earlier uncompressed format for two-byte values (magic `MTBX`) is no
//! longer read: opening such a file says how to rebuild it.

use std::io;
use std::path::Path;

use super::ExplicitTbError;
use crate::error::WithPath;
use crate::table::{self, TableError, TableMeta, ValueEncoding};
use crate::tablebase::FileError;

/// First bytes of a file in the retired uncompressed two-byte format.
const RETIRED_MAGIC: &[u8; 4] = b"MTBX";

/// What a table holds: refused when opened for anything else.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Meta {
    /// `engehe` or `omweso`.
    pub game: &'static str,
    /// The rules options, as written by the game's `Display`.
    pub ruleset: String,
    /// Anything else the values depend on (the objective).
    pub options: String,
    /// The layer.
    pub seeds: u32,
    /// Pits per row.
    pub board_width: u32,
    /// Two bytes per value (win/draw/loss with distance) rather than one.
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
            encoding: if self.wide {
                ValueEncoding::WdlDistance
            } else {
                ValueEncoding::Score
            },
        }
    }

    /// What the distance table of a value table holding `self`, of payload
    /// CRC `values_crc`, holds.
    fn distance_meta(&self, values_crc: u32) -> TableMeta {
        TableMeta {
            options: table::distance_options(&self.options, values_crc),
            encoding: ValueEncoding::Distance,
            ..self.table_meta()
        }
    }
}

/// Values as they are written: one or two bytes each.
#[derive(Clone, Copy, Debug)]
pub enum Values<'a> {
    /// Scores or points.
    I8(&'a [i8]),
    /// Only for tables whose [`Meta::wide`] is set.
    I16(&'a [i16]),
}

/// Writes a complete table holding `meta`.
pub fn write(path: &Path, meta: &Meta, values: Values) -> Result<(), ExplicitTbError> {
    let writer = crate::tablebase::writers::explicit_build(meta.table_meta());
    match values {
        Values::I8(v) if !meta.wide => Ok(writer.write(path, v)?),
        Values::I16(v) if meta.wide => Ok(writer.write_wide(path, v)?),
        _ => {
            let error = TableError::InvalidInput {
                reason: "value width does not match the table kind".into(),
            };
            Err(WithPath::new(path, error).into())
        }
    }
}

/// A table opened for reading: values of either width, read as `i16`.
pub struct Stored(table::Table);

impl Stored {
    /// Positions in the table.
    pub fn len(&self) -> u64 {
        self.0.len()
    }

    /// Whether it holds no position.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value of rank `rank` (below [`Stored::len`]); a damaged block
    /// is an error.
    #[inline]
    pub fn get(&self, rank: u64) -> Result<i16, WithPath<TableError>> {
        self.0.get_wide(rank)
    }

    /// Every value, in rank order.
    pub fn load(&self) -> Result<Vec<i16>, WithPath<TableError>> {
        self.0.decode_all_wide()
    }

    /// The CRC-32 of the table's payload: what a distance table built from
    /// it records.
    pub fn payload_crc(&self) -> u32 {
        self.0.payload_crc()
    }

    /// Positions per block (the last may hold fewer).
    pub fn block_size(&self) -> u32 {
        self.0.block_size()
    }

    /// The file it was opened from.
    pub fn path(&self) -> &Path {
        self.0.path()
    }
}

/// Writes the distance table of the value table `values` (which holds
/// `meta`) at `path`: one `i16 ≥ 0` per position.
pub fn write_distances(
    path: &Path,
    meta: &Meta,
    values: &Stored,
    distances: &[i16],
) -> Result<(), ExplicitTbError> {
    let writer =
        crate::tablebase::writers::explicit_build(meta.distance_meta(values.payload_crc()));
    Ok(writer.write_wide(path, distances)?)
}

/// Opens the distance table at `path` of the value table `values`, which
/// holds `meta` for `positions` positions: `None` if there is none; an error
/// naming both files if it was built from other values.
pub fn open_distances(
    path: &Path,
    meta: &Meta,
    positions: u64,
    values: &Stored,
) -> Result<Option<Stored>, ExplicitTbError> {
    let t = match table::Table::open(path) {
        Ok(t) => t,
        Err(WithPath {
            error: TableError::NotFound,
            ..
        }) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    // Another game, ruleset, layer or kind of table first; then other values.
    let mut expected = meta.distance_meta(values.payload_crc());
    let source = table::distance_source(&t.meta().options);
    let stale =
        source.is_some_and(|(options, crc)| options == meta.options && crc != values.payload_crc());
    if stale {
        expected.options = t.meta().options.clone();
    }
    t.expect_meta(&expected)?;
    if stale {
        return Err(ExplicitTbError::StaleDistances {
            distances: path.to_path_buf(),
            values: values.path().to_path_buf(),
        });
    }
    t.expect_len(positions)?;
    Ok(Some(Stored(t)))
}

/// Opens a table, checking that it holds `meta` with `positions` values.
pub fn open(path: &Path, meta: &Meta, positions: u64) -> Result<Stored, ExplicitTbError> {
    let t = table::Table::open(path).map_err(|e| match e.error {
        TableError::NotATable if is_retired(path) => WithPath::new(path, FileError::Retired).into(),
        _ => ExplicitTbError::from(e),
    })?;
    t.expect_meta(&meta.table_meta())?;
    t.expect_len(positions)?;
    Ok(Stored(t))
}

/// Whether `path` starts like a table of the retired two-byte format.
fn is_retired(path: &Path) -> bool {
    let mut start = [0; 4];
    std::fs::File::open(path)
        .and_then(|mut f| io::Read::read_exact(&mut f, &mut start))
        .is_ok_and(|()| &start == RETIRED_MAGIC)
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
        let err = |r: Result<Stored, ExplicitTbError>| r.err().unwrap().to_string();
        let m = meta(true);
        assert!(err(open(&path, &m, 1)).ends_with("t.tb: no such table file"));
        write(&path, &m, Values::I16(&[1, -2, 3])).unwrap();
        let other = Meta {
            ruleset: "b".into(),
            ..m.clone()
        };
        assert!(err(open(&path, &other, 3)).contains("ruleset is a, expected b"));
        assert!(err(open(&path, &meta(false), 3)).contains("value encoding is wdl-distance"));
        assert!(err(open(&path, &m, 4)).contains("position count is 3, expected 4"));
        let mut bytes = std::fs::read(&path).unwrap();
        let data = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
        bytes[data + 5] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let t = open(&path, &m, 3).unwrap();
        assert!(t.load().unwrap_err().to_string().contains("t.tb: block 0"));
        // A file of the retired uncompressed format says how to rebuild it.
        std::fs::write(&path, b"MTBX\x01\0\0\0\x02\0\0\0").unwrap();
        let e = err(open(&path, &m, 3));
        assert!(
            e.contains("retired uncompressed format") && e.contains("rebuild"),
            "{e}"
        );
    }
}
