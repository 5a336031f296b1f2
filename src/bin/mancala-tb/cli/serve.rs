//! `mancala-tb serve`: the tablebase server (`crate::server`).

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Tablebase folder
    #[arg(long, default_value = "tablebases")]
    dir: PathBuf,
    /// Address to listen on
    #[arg(long, default_value = "127.0.0.1:8080")]
    bind: SocketAddr,
}

pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(crate::server::serve(args.dir, args.bind))
}
