//! Folders of tables: building them layer by layer, probing them and
//! checking them, one module per game over the shared pieces here.

mod check;
pub mod engehe;
mod explicit;
mod file_error;
pub mod omweso;
pub mod oware;
mod report;
mod writers;

pub use explicit::{Built, Checked, DistanceTables, ExplicitDistanceReport, ExplicitTbError};
// The explicit engine's layer files, which the tests write directly.
#[doc(hidden)]
pub use explicit::store;
pub use file_error::FileError;
pub use report::{BuildObserver, LayerReport, Outcomes, Quiet, outcomes};
