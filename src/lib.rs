//! mancala-tb: perfect-play tablebases for mancala games, built by retrograde analysis.
//!
//! Layout: [`games`] holds the rules engines, [`index`] ranks positions into table
//! order, [`solve`] holds the retrograde engines, [`table`] the on-disk formats and
//! [`tablebase`] building and probing folders of tables. For people: [`answer`] the
//! JSON answers of `query --json` and the server, [`server`] the HTTP server and
//! board page (feature `server`), [`play`] play and analysis against the tables,
//! [`plot`] plots. The command-line front end lives in the `mancala-tb` binary
//! (`src/cli/`), so the library needs none of its crates (clap, indicatif,
//! anyhow): `cargo doc --lib --no-default-features`.
//!
//! Where to start:
//! - probe: [`tablebase::oware::OwareTablebase::open`], then `value`,
//!   `move_values`, `principal_variation`, `probe_many`; the same for
//!   [`tablebase::engehe::EngeheTablebase`] and [`tablebase::omweso::OmwesoTablebase`];
//! - build: [`tablebase::oware::build`], [`tablebase::engehe::build`],
//!   [`tablebase::omweso::build`], each reporting to a [`tablebase::BuildObserver`]
//!   (or [`tablebase::Quiet`]);
//! - rules: [`games::oware::legal_moves`], [`games::omweso::MoveGen`],
//!   [`games::engehe::legal_moves`]; the rules themselves are in `docs/rules.md`;
//! - errors: every error type has `cause()` ([`error::Cause`]): bad input, a
//!   missing table (with the build command's arguments), a damaged table, or other.

pub mod answer;
pub mod distributed;
pub mod error;
pub mod games;
pub mod index;
pub mod play;
pub mod plot;
#[cfg(feature = "server")]
pub mod server;
pub mod solve;
pub mod table;
pub mod tablebase;
