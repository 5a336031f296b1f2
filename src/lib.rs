//! mancala-tb: perfect-play tablebases for mancala games, built by retrograde analysis.
//!
//! Layout: [`answer`] holds the JSON answers of `query` and the server, [`games`] holds the rules engines, [`index`] ranks positions into table
//! order, [`solve`] holds the retrograde engines, [`table`] the on-disk formats, [`tablebase`] building
//! and probing folders of tables, and [`cli`] the command-line front end used by the `mancala-tb` binary.

pub mod answer;
pub mod cli;
pub mod games;
pub mod index;
pub mod play;
pub mod plot;
#[cfg(feature = "server")]
pub mod server;
pub mod solve;
pub mod table;
pub mod tablebase;
