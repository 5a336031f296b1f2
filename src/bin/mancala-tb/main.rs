//! The `mancala-tb` binary: parse the command line, run it, map errors to an exit code.
//! What is for people belongs in this folder, over the library: the command line (`cli`), the
//! HTTP server (`server`, feature `server`), the JSON answers both give (`answer`),
//! batch probing from text (`probe_lines`), play and analysis (`play`), plots (`plot`).

mod answer;
mod cli;
mod play;
mod plot;
mod probe_lines;
#[cfg(feature = "server")]
mod server;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // Like other Unix tools, stop quietly when the reader of our output goes
    // away (`mancala-tb info | head`) instead of failing to print.
    #[cfg(unix)]
    // SAFETY: called before any other thread exists; SIG_DFL is a valid
    // disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        // Under `mpirun` every rank parses the same command line: let one
        // say what is wrong with it.
        Err(err) if std::env::var("OMPI_COMM_WORLD_RANK").is_ok_and(|r| r != "0") => {
            std::process::exit(err.exit_code())
        }
        Err(err) => err.exit(),
    };
    match cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            let (message, code) = cli::report(&err);
            eprintln!("error: {message}");
            ExitCode::from(code)
        }
    }
}
