//! Projections of a build: per layer, the engine the memory budget allows,
//! the memory, the disk and the time it takes. Rates come from a short
//! calibration build on this machine and from the layers earlier builds
//! recorded here (`rates.rs`), scaled by stated assumptions
//! (`projection.rs`, which imports the rates). What `plan oware` prints of
//! it, in words and in JSON, is the binary's.

mod projection;
mod rates;
#[cfg(test)]
mod tests;

pub use projection::{Assumptions, Figures, LayerProjection, Projection, RATE_SPREAD, project};
pub use rates::{CALIBRATION_RUNS, Calibration, RecordedRates, SerialShares, calibrate};
