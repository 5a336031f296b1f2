//! Folders of tables: building them layer by layer, probing them and
//! checking them, one module per game over the shared pieces here.

pub mod engehe;
pub mod omweso;
pub mod oware;
pub mod probe_lines;
mod report;
pub mod store;
mod writers;

pub use report::{BuildObserver, LayerReport, Outcomes, Quiet, outcomes};
