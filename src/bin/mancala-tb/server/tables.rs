//! The opened tablebases, shared by all requests, and how their errors
//! become HTTP answers.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use axum::http::StatusCode;
use serde::Serialize;

use super::ApiError;
use mancala_tb::error::Cause;
use mancala_tb::games::oware::Ruleset;
use mancala_tb::table::Table;
use mancala_tb::tablebase::engehe::{self, EngeheTablebase, EngeheTbError};
use mancala_tb::tablebase::omweso::{self, OmwesoTablebase, OmwesoTbError};
use mancala_tb::tablebase::oware::{OwareTablebase, TablebaseError};

/// Tablebases opened on first use and kept (their tables are memory-mapped
/// with small block caches). An Oware layer built while the server runs is
/// seen by the first request that needs it (Oware opens each layer's table
/// on first use); the other games' tables once the server restarts.
pub struct Tables {
    dir: PathBuf,
    oware: Mutex<HashMap<Ruleset, Arc<OwareTablebase>>>,
    omweso: Mutex<HashMap<OmwesoKey, Arc<OmwesoTablebase>>>,
    engehe: Mutex<HashMap<EngeheKey, Arc<EngeheTablebase>>>,
}

/// `Config` as a map key: (width, seeds, rules, objective).
type OmwesoKey = (
    usize,
    usize,
    mancala_tb::games::omweso::Rules,
    omweso::Objective,
);
type EngeheKey = (usize, mancala_tb::games::omweso::Endless);

impl Tables {
    pub fn new(dir: PathBuf) -> Tables {
        Tables {
            dir,
            oware: Mutex::default(),
            omweso: Mutex::default(),
            engehe: Mutex::default(),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn oware(&self, rules: Ruleset) -> Result<Arc<OwareTablebase>, ApiError> {
        cached(&self.oware, rules, || {
            OwareTablebase::open(&self.dir, rules).map_err(oware_error)
        })
    }

    pub fn omweso(&self, config: omweso::Config) -> Result<Arc<OmwesoTablebase>, ApiError> {
        let key = (config.width, config.seeds, config.rules, config.objective);
        cached(&self.omweso, key, || {
            OmwesoTablebase::open(&self.dir, config).map_err(omweso_error)
        })
    }

    pub fn engehe(&self, config: engehe::Config) -> Result<Arc<EngeheTablebase>, ApiError> {
        let key = (config.width, config.rules.endless);
        cached(&self.engehe, key, || {
            EngeheTablebase::open(&self.dir, config).map_err(engehe_error)
        })
    }
}

/// The entry of `key`, opened by `open` the first time. Opening maps files
/// and reads headers only, so it is done under the lock.
fn cached<K: std::hash::Hash + Eq, T>(
    map: &Mutex<HashMap<K, Arc<T>>>,
    key: K,
    open: impl FnOnce() -> Result<T, ApiError>,
) -> Result<Arc<T>, ApiError> {
    let mut map = map.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(found) = map.get(&key) {
        return Ok(Arc::clone(found));
    }
    let opened = Arc::new(open()?);
    map.insert(key, Arc::clone(&opened));
    Ok(opened)
}

fn status(status: StatusCode, e: impl std::fmt::Display) -> ApiError {
    ApiError {
        status,
        message: e.to_string(),
    }
}

/// A table not built is 404 (the message names the build command), a
/// position or option the tables cannot take 400, anything else (a damaged
/// table, the system) 500.
fn by_cause(cause: Cause, e: &impl std::fmt::Display) -> ApiError {
    let code = match cause {
        Cause::MissingTable(_) => StatusCode::NOT_FOUND,
        Cause::BadInput => StatusCode::BAD_REQUEST,
        Cause::DamagedTable | Cause::Other => StatusCode::INTERNAL_SERVER_ERROR,
    };
    status(code, e)
}

pub fn oware_error(e: TablebaseError) -> ApiError {
    by_cause(e.cause(), &e)
}

pub fn omweso_error(e: OmwesoTbError) -> ApiError {
    by_cause(e.cause(), &e)
}

pub fn engehe_error(e: EngeheTbError) -> ApiError {
    by_cause(e.cause(), &e)
}

/// One table file of the folder, as `GET /api/tables` lists it.
#[derive(Debug, Serialize)]
pub struct TableEntry {
    /// Bytes on disk.
    pub bytes: u64,
    /// The sub-folder and file, e.g. `oware-awari/scores.10.mtb`.
    pub file: String,
    pub game: String,
    pub options: String,
    pub positions: u64,
    pub ruleset: String,
    pub seeds: u32,
}

/// The compressed tables (`*.mtb`) of the folder, as `info` lists them
/// (without the checksum pass, which reads every byte).
pub fn catalog(dir: &Path) -> Result<Vec<TableEntry>, ApiError> {
    let files = mancala_tb::table::table_files(dir).map_err(|e| {
        status(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("cannot read the tablebase folder {}: {e}", dir.display()),
        )
    })?;
    files
        .iter()
        .map(|path| {
            let table =
                Table::open(path).map_err(|e| status(StatusCode::INTERNAL_SERVER_ERROR, e))?;
            let meta = table.meta();
            Ok(TableEntry {
                bytes: table.file_len(),
                file: path.strip_prefix(dir).unwrap_or(path).display().to_string(),
                game: meta.game.clone(),
                options: meta.options.clone(),
                positions: table.len(),
                ruleset: meta.ruleset.clone(),
                seeds: meta.seeds,
            })
        })
        .collect()
}
