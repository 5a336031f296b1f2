//! `mancala-tb info`: one line per table file of a tablebase folder.

use std::path::PathBuf;

use clap::Args;

use super::exit::CliError;

use mancala_tb::table::{Table, TableError};

#[derive(Debug, Args)]
pub struct InfoArgs {
    /// Tablebase folder
    #[arg(long, default_value = "tablebases")]
    dir: PathBuf,
}

pub fn run(args: InfoArgs) -> anyhow::Result<()> {
    let files = mancala_tb::table::table_files(&args.dir).map_err(|e| {
        anyhow::anyhow!(
            "cannot read the tablebase folder {}: {e}",
            args.dir.display()
        )
    })?;
    if files.is_empty() {
        anyhow::bail!("no tables (*.mtb) in {}", args.dir.display());
    }
    println!(
        "{:<6} {:<62} {:>5} {:>13} {:>12} {:>9} {:<16} {:<9} checksums",
        "game", "rules", "seeds", "positions", "bytes", "bits/pos", "encoding", "coding"
    );
    let mut damaged = 0;
    for path in &files {
        match Table::open(path) {
            Ok(table) => {
                let m = table.meta();
                let status = match table.verify() {
                    Ok(()) => "ok".to_string(),
                    Err(e) => {
                        damaged += 1;
                        format!("DAMAGED: {e}")
                    }
                };
                println!(
                    "{:<6} {:<62} {:>5} {:>13} {:>12} {:>9.3} {:<16} {:<9} {status}",
                    m.game,
                    if m.options.is_empty() {
                        m.ruleset.clone()
                    } else {
                        format!("{} ({})", m.ruleset, m.options)
                    },
                    m.seeds,
                    table.len(),
                    table.file_len(),
                    8.0 * table.file_len() as f64 / table.len().max(1) as f64,
                    m.encoding.name(),
                    table.coding().name(),
                );
            }
            Err(e) => {
                damaged += 1;
                // A table from a newer build is unreadable here, not damaged.
                let label = match e.error {
                    TableError::UnsupportedVersion { .. } | TableError::UnknownCoding { .. } => {
                        "UNREADABLE"
                    }
                    _ => "DAMAGED",
                };
                println!("{}: {label}: {e}", path.display());
            }
        }
    }
    if damaged > 0 {
        return Err(CliError::DamagedTable(format!(
            "{damaged} damaged table(s); delete them and rebuild"
        ))
        .into());
    }
    Ok(())
}
