//! Arguments shared by several subcommands.

use std::path::PathBuf;

use clap::Args;

use crate::games::oware::{self, Board, Ruleset};

/// Which Oware tables to use.
#[derive(Debug, Args)]
pub struct OwareTables {
    /// Ruleset: awari (rules of the 2002 solution) or abapa (tournament rules)
    #[arg(long, value_enum, default_value_t = Ruleset::Awari)]
    pub rules: Ruleset,
    /// Tablebase folder (one sub-folder per game and ruleset)
    #[arg(long, default_value = "tablebases")]
    pub dir: PathBuf,
}

/// A pit count: a whole number from 0 up.
pub fn parse_pit(s: &str) -> Result<u32, String> {
    s.parse::<u32>()
        .map_err(|_| format!("'{s}' is not a pit count (a whole number, 0 or more)"))
}

/// Twelve pit counts, mover's leftmost pit first, counter-clockwise.
pub fn oware_board(pits: &[u32]) -> anyhow::Result<Board> {
    oware::parse_board(pits).map_err(anyhow::Error::msg)
}
