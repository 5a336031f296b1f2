//! One layer's table file: where it is, what its header says, how its
//! positions are numbered, and what to tell a user who has not built it.

use super::store::{self, Meta, Stored, Values};
use crate::error::{MissingTable, PathContext, WithPath};
use crate::index::stars_bars::StarsBars;
use crate::table::TableError;
use crate::tablebase::FileError;
use std::path::PathBuf;

use super::ExplicitTbError;

/// One layer's table file.
pub struct LayerFile {
    pub path: PathBuf,
    pub meta: Meta,
    pub index: StarsBars,
    /// What it is, for messages (`layer 3 of the En Gehé width-2 tables`).
    pub name: String,
    /// The `mancala-tb build` arguments that make it.
    pub build_args: String,
    /// Where its distance table lies (score tables: the value table's name
    /// with `distance` for the part that names the values), `None` for
    /// tables whose values hold their distances (win/draw/loss).
    pub distance_path: Option<PathBuf>,
}

/// Solved values as they are stored: one byte each, or two for win/draw/loss
/// with distances.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoredValues {
    I8(Vec<i8>),
    I16(Vec<i16>),
}

impl StoredValues {
    /// The first rank whose value differs from `stored` (as a table reads
    /// back), if any.
    pub fn first_difference(&self, stored: &[i16]) -> Option<usize> {
        let len = match self {
            StoredValues::I8(v) => v.len(),
            StoredValues::I16(v) => v.len(),
        };
        if len != stored.len() {
            return Some(len.min(stored.len()));
        }
        match self {
            StoredValues::I8(v) => (v.iter().zip(stored)).position(|(&a, &b)| i16::from(a) != b),
            StoredValues::I16(v) => (v.iter().zip(stored)).position(|(a, b)| a != b),
        }
    }
}

/// A layer as the engine solved it: the values to store and, for score
/// tables when asked, the distances of its distance table.
pub struct SolvedLayer {
    pub values: StoredValues,
    pub distances: Option<Vec<i16>>,
}

impl LayerFile {
    /// The table, `None` if it is not built.
    pub fn open(&self) -> Result<Option<Stored>, ExplicitTbError> {
        match store::open(&self.path, &self.meta, self.index.size()) {
            Ok(table) => Ok(Some(table)),
            Err(ExplicitTbError::Table(WithPath {
                error: TableError::NotFound,
                ..
            })) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The table, or the error that says how to build it.
    pub fn open_built(&self) -> Result<Stored, ExplicitTbError> {
        self.open()?.ok_or_else(|| self.missing())
    }

    /// The error of this table not being built: what builds it.
    pub fn missing(&self) -> ExplicitTbError {
        ExplicitTbError::Missing(MissingTable {
            table: self.name.clone(),
            path: self.path.clone(),
            build_args: self.build_args.clone(),
        })
    }

    /// Writes the table, making its folder if need be.
    pub fn write(&self, values: &StoredValues) -> Result<(), ExplicitTbError> {
        if let Some(folder) = self.path.parent() {
            std::fs::create_dir_all(folder)
                .map_err(FileError::CreateDir)
                .at(folder)?;
        }
        let values = match values {
            StoredValues::I8(v) => Values::I8(v),
            StoredValues::I16(v) => Values::I16(v),
        };
        store::write(&self.path, &self.meta, values)
    }

    /// Bytes of the table file.
    pub fn bytes(&self) -> Result<u64, ExplicitTbError> {
        file_bytes(&self.path)
    }

    /// The distance table of the value table `values` (this file's), `None`
    /// if the game has none or it is not built; an error if it was built
    /// from other values.
    pub fn open_distances(&self, values: &Stored) -> Result<Option<Stored>, ExplicitTbError> {
        match &self.distance_path {
            Some(path) => store::open_distances(path, &self.meta, self.index.size(), values),
            None => Ok(None),
        }
    }

    /// Writes the distance table of the value table `values` (this file's).
    pub fn write_distances(
        &self,
        values: &Stored,
        distances: &[i16],
    ) -> Result<(), ExplicitTbError> {
        let path = (self.distance_path.as_ref()).expect("a distance table for this game");
        store::write_distances(path, &self.meta, values, distances)
    }
}

/// Bytes of a file.
pub fn file_bytes(path: &std::path::Path) -> Result<u64, ExplicitTbError> {
    Ok(std::fs::metadata(path)
        .map_err(FileError::Io)
        .at(path)?
        .len())
}
