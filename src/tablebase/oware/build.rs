//! Building the layers of a ruleset, resumable layer by layer.

use std::path::Path;
use std::time::Instant;

use super::{
    LayerValues, Layers, TablebaseError, open_table, restore_capture_decided, ruleset_dir,
    table_meta, table_path,
};
use crate::games::oware::{MAX_SEEDS, Ruleset};
use crate::index::oware as index;
use crate::solve::oware::{self as engine, Outcomes};
use crate::table::raw::{self, RawError, RawLayer};
use crate::table::{CAPTURE_DECIDES, TableWriter, ValueEncoding};

/// zstd level of built tables: on layer 18, level 6 makes files 0.5% larger
/// than level 9 and 3% smaller than level 3, in a fraction of the time of
/// the highest levels.
const LEVEL: i32 = 6;
/// Positions per block: a probe decodes one block (4 Ki: about 12 µs for a
/// random probe of layer 18, against 31 µs with 16 Ki blocks, for 4% more
/// bytes).
const BLOCK_SIZE: u32 = 4096;

/// Reports the progress of a build (the CLI draws bars; tests ignore it).
pub trait BuildObserver: Sync {
    fn layer_started(&self, _seeds: usize, _positions: u64) {}
    /// Work steps done; a layer of `P` positions takes `2P`.
    fn advance(&self, _steps: u64) {}
    fn layer_finished(&self, _report: &LayerReport) {}
}

/// An observer that shows nothing.
pub struct Quiet;
impl BuildObserver for Quiet {}

/// What happened to one layer during a build.
#[derive(Clone, Debug)]
pub struct LayerReport {
    pub seeds: usize,
    pub positions: u64,
    /// Wins, draws and losses; `None` for a layer already built and not
    /// needed by the build.
    pub outcomes: Option<Outcomes>,
    /// Wall time of the build, `None` if the layer was already built.
    pub seconds: Option<f64>,
    /// Bytes of the compressed table.
    pub bytes: u64,
}

/// Builds the layers `0..=max_seeds` of `rules` under `dir` (the tablebase
/// folder), skipping layers already complete. Each new layer is solved into
/// a raw scratch file (`scores.N`, the published format, read by the layers
/// above it), then compressed into `scores.N.mtb`. Raw files are removed at
/// the end unless `keep_raw`. Uses the current rayon pool.
pub fn build(
    dir: &Path,
    rules: Ruleset,
    max_seeds: usize,
    keep_raw: bool,
    observer: &dyn BuildObserver,
) -> Result<Vec<LayerReport>, TablebaseError> {
    if max_seeds > MAX_SEEDS {
        return Err(TablebaseError::TooManySeeds(max_seeds));
    }
    let folder = ruleset_dir(dir, rules);
    std::fs::create_dir_all(&folder).map_err(|source| TablebaseError::CreateDir {
        path: folder.clone(),
        source,
    })?;
    let mut tables = Vec::new();
    for seeds in 0..=max_seeds {
        tables.push(open_table(&folder, rules, seeds)?);
    }
    // Lower layers are read only below the first layer still to build.
    let first_missing = tables.iter().position(Option::is_none);
    let mut lower = Layers::default();
    let mut reports = Vec::new();
    for (seeds, table) in tables.into_iter().enumerate() {
        let positions = index::layer_size(seeds);
        let raw_path = raw::layer_path(&folder, seeds);
        let needed = first_missing.is_some_and(|m| seeds < m) || table.is_none();
        let report = match table {
            Some(table) => {
                let mut report = LayerReport {
                    seeds,
                    positions,
                    outcomes: None,
                    seconds: None,
                    bytes: table.file_len(),
                };
                if needed && first_missing.is_some() {
                    let values = existing_values(&raw_path, &table, rules, seeds, &lower)?;
                    report.outcomes = Some(engine::outcomes(&values));
                    lower.0.push(values);
                }
                report
            }
            None => {
                observer.layer_started(seeds, positions);
                let start = Instant::now();
                let solved =
                    engine::solve_layer(rules, seeds, &lower, &|steps| observer.advance(steps))
                        .map_err(|source| TablebaseError::Memory {
                            seeds,
                            bytes: positions * 3 / 2,
                            source,
                        })?;
                let outcomes = engine::outcomes(solved.values());
                raw::write_layer(&raw_path, solved.values())?;
                let values = solved.mark_exit_decided(CAPTURE_DECIDES);
                let path = table_path(&folder, seeds);
                TableWriter::new(table_meta(rules, seeds, ValueEncoding::ScoreOrCapture))
                    .level(LEVEL)
                    .block_size(BLOCK_SIZE)
                    .write(&path, &values)?;
                drop(values);
                lower
                    .0
                    .push(LayerValues::Mapped(RawLayer::open(&raw_path, positions)?));
                let seconds = start.elapsed().as_secs_f64();
                super::record_build_time(&folder, seeds, positions, seconds)?;
                LayerReport {
                    seeds,
                    positions,
                    outcomes: Some(outcomes),
                    seconds: Some(seconds),
                    bytes: std::fs::metadata(&path).map_or(0, |m| m.len()),
                }
            }
        };
        observer.layer_finished(&report);
        reports.push(report);
    }
    drop(lower);
    if !keep_raw {
        for seeds in 0..=max_seeds {
            match std::fs::remove_file(raw::layer_path(&folder, seeds)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(RawError::Io {
                        path: raw::layer_path(&folder, seeds),
                        source: e,
                    }
                    .into());
                }
                _ => {}
            }
        }
    }
    Ok(reports)
}

/// The values of a layer already built: its raw scratch file if a previous
/// build kept it, else its table decoded.
fn existing_values(
    raw_path: &Path,
    table: &crate::table::Table,
    rules: Ruleset,
    seeds: usize,
    lower: &Layers,
) -> Result<LayerValues, TablebaseError> {
    match RawLayer::open(raw_path, table.len()) {
        Ok(layer) => Ok(LayerValues::Mapped(layer)),
        Err(RawError::Missing { .. }) => {
            let mut values = table.decode_all()?;
            if table.meta().encoding == ValueEncoding::ScoreOrCapture {
                restore_capture_decided(rules, seeds, &mut values, lower);
            }
            Ok(LayerValues::Owned(values))
        }
        Err(e) => Err(e.into()),
    }
}
