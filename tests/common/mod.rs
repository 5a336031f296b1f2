//! Running the `mancala-tb` binary, for the integration tests that meet it
//! as a user does. Each test crate uses part of it.
#![allow(dead_code)]

use std::process::{Command, Output};

/// Runs the binary with `args`.
pub fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mancala-tb"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Runs the binary: (success, stdout, stderr).
pub fn cli(args: &[&str]) -> (bool, String, String) {
    let out = run(args);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
