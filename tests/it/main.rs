//! The integration tests, in one binary (one link, not one per file): a
//! module per area, the independent naive solvers they check against in
//! [`naive`], and running the `mancala-tb` binary in [`common`].

mod common;
mod naive;

mod cli_oware;
mod context_coding;
mod damaged_tables;
mod engehe_tables;
mod exit_codes;
mod explicit_oware;
mod fuzz;
mod omweso_cli;
mod omweso_mayer;
mod omweso_rules;
mod omweso_tables;
mod oware_cross_check;
mod oware_distance;
mod oware_distributed;
mod oware_out_of_core;
mod oware_own_entry;
mod oware_verify;
mod play_oware;
mod plot_oware;
mod probe;
#[cfg(feature = "server")]
mod server;
mod table_format;
