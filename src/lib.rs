#![warn(missing_docs)]
//! mancala-tb: perfect-play tablebases for mancala games, built by retrograde analysis.
//!
//! Layout: [`games`] holds the rules engines, [`index`] ranks positions into table
//! order, `solve` holds the retrograde engines, [`table`] the on-disk formats and
//! [`tablebase`] building and probing folders of tables. What is for people
//! belongs to the `mancala-tb` binary, in its own folder `src/bin/mancala-tb/`:
//! the command line (`cli/`), the HTTP server and board page (`server/`), and
//! what both show (`answer.rs`, `play.rs`, `plot.rs`, `probe_lines.rs`); so
//! the library needs none of their crates (clap, plotters, serde, axum):
//! `cargo doc --lib --no-default-features`.
//!
//! Where to start (the most used items are also at the crate root):
//! - probe: [`OwareTablebase::open`], then `value`, `move_values`,
//!   `principal_variation`, `probe_many`; the same for [`EngeheTablebase`]
//!   and [`OmwesoTablebase`];
//! - build: [`tablebase::oware::build`], [`tablebase::engehe::build`],
//!   [`tablebase::omweso::build`], each reporting its progress to a
//!   [`BuildObserver`] (an Oware build to a `tablebase::oware::OwareObserver`)
//!   or [`Quiet`], and returning a [`LayerReport`] per layer;
//! - rules: [`games::oware::legal_moves`], [`games::omweso::MoveGen`],
//!   [`games::engehe::legal_moves`]; the rules themselves are in `docs/rules.md`;
//! - errors: every error type has `cause()` ([`Cause`]): bad input, a
//!   missing table ([`MissingTable`], with the build command's arguments), a
//!   damaged table, or other; an error at a file says its path once
//!   ([`WithPath`]).

pub mod distributed;
pub mod error;
pub mod games;
pub mod index;
pub mod table;
pub mod tablebase;

// Not the API: the binary's sizes and free memory (`memory`), and the
// engines under the tablebases (`solve`), which the tests drive directly.
#[doc(hidden)]
pub mod memory;
#[doc(hidden)]
pub mod solve;

pub use error::{Cause, MissingTable, WithPath};
pub use tablebase::engehe::EngeheTablebase;
pub use tablebase::omweso::OmwesoTablebase;
pub use tablebase::oware::OwareTablebase;
pub use tablebase::{BuildObserver, LayerReport, Quiet};

/// The README's code, compiled with the doc tests: its Rust example must
/// build against this API (its shell and Python blocks are not Rust).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
