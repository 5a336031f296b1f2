//! Raw layer files: the published `scores.N` format, one signed byte per
//! position in rank order, no header. The builder's scratch and the
//! compatibility format.

use crate::error::{Cause, PathContext, WithPath};
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use memmap2::Mmap;

/// Errors of raw layer files. The functions here return them in a
/// [`WithPath`], which names the file.
#[derive(Debug, thiserror::Error)]
pub enum RawError {
    /// No file at the path.
    #[error("not found")]
    Missing,
    /// A file cut short, or of another layer.
    #[error("has {actual} bytes, a complete layer has {expected}")]
    WrongSize {
        /// Its bytes.
        actual: u64,
        /// Bytes of the layer: one per position.
        expected: u64,
    },
    /// The system refused to read or write the file.
    #[error(transparent)]
    Io(io::Error),
}

impl RawError {
    /// Why it failed: raw layers are mostly published files a user names.
    pub fn cause(&self) -> Cause<'static> {
        match self {
            RawError::Missing | RawError::WrongSize { .. } => Cause::BadInput,
            RawError::Io(_) => Cause::Other,
        }
    }
}

/// `dir/scores.N`.
pub fn layer_path(dir: &Path, seeds: usize) -> PathBuf {
    dir.join(format!("scores.{seeds}"))
}

/// A memory-mapped raw layer.
pub struct RawLayer {
    map: Option<Mmap>,
}

impl RawLayer {
    /// Opens a layer file and checks that it holds `expected` positions.
    pub fn open(path: &Path, expected: u64) -> Result<RawLayer, WithPath<RawError>> {
        let file = File::open(path)
            .map_err(|e| match e.kind() {
                io::ErrorKind::NotFound => RawError::Missing,
                _ => RawError::Io(e),
            })
            .at(path)?;
        let actual = file.metadata().map_err(RawError::Io).at(path)?.len();
        if actual != expected {
            return Err(WithPath::new(
                path,
                RawError::WrongSize { actual, expected },
            ));
        }
        // mmap of an empty file fails on some systems; layer 0 has one byte,
        // but keep empty tables representable.
        let map = if actual == 0 {
            None
        } else {
            // SAFETY: layer files are written once (temp file + rename) and
            // never modified in place afterwards.
            Some(unsafe { Mmap::map(&file) }.map_err(RawError::Io).at(path)?)
        };
        Ok(RawLayer { map })
    }

    /// Every value, in rank order.
    pub fn values(&self) -> &[i8] {
        match &self.map {
            Some(map) => bytemuck::cast_slice(map),
            None => &[],
        }
    }

    /// The value of rank `rank`.
    #[inline]
    pub fn get(&self, rank: u64) -> i8 {
        self.values()[rank as usize]
    }
}

/// Writes a complete layer: to `scores.N.tmp` first, synced, then renamed, so
/// an interrupted write never leaves a file under the final name.
pub fn write_layer(path: &Path, values: &[i8]) -> Result<(), WithPath<RawError>> {
    let tmp = super::temp_path(path);
    write_atomically(path, &tmp, |file| {
        file.write_all(bytemuck::cast_slice(values))
    })
}

/// A raw layer written in order, part by part, to a temporary name and
/// renamed when finished (dropped unfinished, the temporary file goes).
pub struct RawWriter {
    path: PathBuf,
    tmp: PathBuf,
    out: Option<io::BufWriter<File>>,
}

impl RawWriter {
    /// Starts writing the layer that will be `path`.
    pub fn create(path: PathBuf) -> Result<RawWriter, WithPath<RawError>> {
        let tmp = super::temp_path(&path);
        let file = File::create(&tmp).map_err(RawError::Io).at(&tmp)?;
        Ok(RawWriter {
            path,
            out: Some(io::BufWriter::with_capacity(1 << 20, file)),
            tmp,
        })
    }

    /// Appends the next values in rank order.
    pub fn push(&mut self, values: &[i8]) -> Result<(), WithPath<RawError>> {
        let out = self.out.as_mut().expect("pushed after finish");
        out.write_all(bytemuck::cast_slice(values))
            .map_err(RawError::Io)
            .at(&self.tmp)
    }

    /// Syncs the file, renames it to its name and syncs the folder.
    pub fn finish(mut self) -> Result<(), WithPath<RawError>> {
        let out = self.out.take().expect("finished twice");
        let result = (|| {
            let file = out.into_inner().map_err(|e| e.into_error())?;
            file.sync_all()?;
            fs::rename(&self.tmp, &self.path)?;
            if let Some(dir) = self.path.parent() {
                File::open(dir)?.sync_all()?;
            }
            Ok(())
        })();
        result.map_err(RawError::Io).at(&self.path)
    }
}

impl Drop for RawWriter {
    fn drop(&mut self) {
        if self.out.is_some() {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// Writes `tmp` with `fill`, syncs it, renames it to `path` and syncs the
/// folder. On any error the temporary file is removed.
pub fn write_atomically(
    path: &Path,
    tmp: &Path,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> Result<(), WithPath<RawError>> {
    let result = (|| {
        let mut file = File::create(tmp)?;
        fill(&mut file)?;
        file.sync_all()?;
        drop(file);
        fs::rename(tmp, path)?;
        if let Some(dir) = path.parent() {
            File::open(dir)?.sync_all()?;
        }
        Ok(())
    })();
    result
        .map_err(|source| {
            let _ = fs::remove_file(tmp);
            RawError::Io(source)
        })
        .at(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layers_round_trip_and_sizes_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let path = layer_path(dir.path(), 3);
        write_layer(&path, &[1, -2, 3]).unwrap();
        assert!(!dir.path().join("scores.3.tmp").exists());
        let layer = RawLayer::open(&path, 3).unwrap();
        assert_eq!(layer.values(), &[1, -2, 3]);
        assert_eq!(layer.get(1), -2);
        let err = RawLayer::open(&path, 4).err().unwrap().to_string();
        assert!(
            err.contains("scores.3") && err.contains("has 3 bytes"),
            "{err}"
        );
        let err = RawLayer::open(&layer_path(dir.path(), 9), 1).err().unwrap();
        assert!(matches!(err.error, RawError::Missing), "{err}");
    }
}
