//! mancala-tb: perfect-play tablebases for mancala games, built by retrograde analysis.
//!
//! Layout: [`games`] holds the rules engines, [`index`] ranks positions into table
//! order, [`solve`] holds the retrograde engines, [`table`] the on-disk formats and
//! [`tablebase`] building and probing folders of tables. For people: [`answer`] the
//! JSON answers of `query --json` and the server, [`server`] the HTTP server and
//! board page (feature `server`), [`play`] play and analysis against the tables,
//! [`plot`] plots. The command-line front end lives in the `mancala-tb` binary
//! (`src/cli/`), so the library needs none of its crates (clap, indicatif,
//! serde_json).

pub mod answer;
pub mod games;
pub mod index;
pub mod play;
pub mod plot;
#[cfg(feature = "server")]
pub mod server;
pub mod solve;
pub mod table;
pub mod tablebase;
