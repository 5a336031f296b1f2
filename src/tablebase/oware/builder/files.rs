//! The build's scratch folders and files: made if missing, removed if there
//! (a killed build leaves them behind).

use std::fs;
use std::path::Path;

use crate::error::{PathContext, WithPath};
use crate::tablebase::FileError;
use crate::tablebase::oware::TablebaseError;

/// Creates a scratch folder (and those above it) if it is not there.
pub(in crate::tablebase::oware) fn create_dir(dir: &Path) -> Result<(), TablebaseError> {
    fs::create_dir_all(dir)
        .map_err(FileError::CreateDir)
        .at(dir)?;
    Ok(())
}

/// Removes a folder and what it holds, if it is there.
pub(in crate::tablebase::oware) fn remove_dir(path: &Path) -> Result<(), TablebaseError> {
    match fs::remove_dir_all(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(WithPath::new(path, FileError::Io(e)).into())
        }
        _ => Ok(()),
    }
}

/// Removes a file if it is there.
pub(super) fn remove_file(path: &Path) -> Result<(), TablebaseError> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(WithPath::new(path, FileError::Io(e)).into())
        }
        _ => Ok(()),
    }
}
