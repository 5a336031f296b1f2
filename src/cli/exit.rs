//! How a failed command ends: the message and the exit code by cause
//! (README, "Exit codes").

use crate::play::PlayError;
use crate::plot::PlotError;
use crate::probe_lines::ProbeError;
use mancala_tb::error::{Cause, WithPath};
use mancala_tb::games::engehe::EngeheError;
use mancala_tb::games::omweso::OmwesoError;
use mancala_tb::games::oware::BoardError;
use mancala_tb::index::stars_bars::IndexError;
use mancala_tb::table::TableError;
use mancala_tb::table::raw::RawError;
use mancala_tb::tablebase::ExplicitTbError;
use mancala_tb::tablebase::oware::TablebaseError;

/// Errors the CLI finds itself, by cause.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("{0}")]
    BadInput(String),
    #[error("{0}")]
    DamagedTable(String),
}

/// The error message and the exit code: 2 bad input, 3 missing table, 4
/// damaged table, 1 anything else.
pub fn report(err: &anyhow::Error) -> (String, u8) {
    match cause(err) {
        Cause::BadInput => (format!("{err:#}"), 2),
        Cause::MissingTable(_) => (format!("{err:#}"), 3),
        Cause::DamagedTable => (format!("{err:#}"), 4),
        Cause::Other => (format!("{err:#}"), 1),
    }
}

/// The cause told by the first error of the chain that knows it.
fn cause(err: &anyhow::Error) -> Cause<'_> {
    err.chain()
        .find_map(|e| {
            if let Some(e) = e.downcast_ref::<TablebaseError>() {
                Some(e.cause())
            } else if let Some(e) = e.downcast_ref::<PlotError>() {
                Some(e.cause())
            } else if let Some(e) = e.downcast_ref::<ExplicitTbError>() {
                Some(e.cause())
            } else if let Some(e) = e.downcast_ref::<WithPath<TableError>>() {
                Some(e.error.cause())
            } else if let Some(e) = e.downcast_ref::<WithPath<RawError>>() {
                Some(e.error.cause())
            } else if let Some(e) = e.downcast_ref::<ProbeError>() {
                Some(e.cause())
            } else if let Some(e) = e.downcast_ref::<PlayError>() {
                Some(e.cause())
            } else if let Some(e) = e.downcast_ref::<mancala_tb::error::MissingTable>() {
                Some(Cause::MissingTable(e))
            } else if let Some(e) = e.downcast_ref::<CliError>() {
                Some(match e {
                    CliError::BadInput(_) => Cause::BadInput,
                    CliError::DamagedTable(_) => Cause::DamagedTable,
                })
            } else if e.is::<BoardError>()
                || e.is::<OmwesoError>()
                || e.is::<EngeheError>()
                || e.is::<IndexError>()
            {
                Some(Cause::BadInput)
            } else {
                None
            }
        })
        .unwrap_or(Cause::Other)
}
