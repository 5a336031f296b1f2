//! The lock that keeps a second build out of a ruleset folder (and a second
//! verify out of its scratch folder).

use std::fs;
use std::path::Path;

use crate::error::WithPath;
use crate::tablebase::FileError;
use crate::tablebase::oware::TablebaseError;

/// Takes the lock of a folder, or says that another process holds it.
pub(in crate::tablebase::oware) fn lock_folder(folder: &Path) -> Result<fs::File, TablebaseError> {
    let path = folder.join(".lock");
    let io = |e| TablebaseError::from(WithPath::new(&path, FileError::Io(e)));
    let file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(io)?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(fs::TryLockError::WouldBlock) => Err(WithPath::new(folder, FileError::Locked).into()),
        Err(fs::TryLockError::Error(source)) => Err(io(source)),
    }
}
