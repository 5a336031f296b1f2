//! Running the `mancala-tb` binary, for the tests that meet it as a user
//! does.

use std::io::Write;
use std::process::{Command, Output, Stdio};

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

/// Runs the binary with `args`, `input` on its standard input; checks that
/// it did not panic.
pub fn run_with_input(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mancala-tb"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().expect("piped");
    // A binary that fails before reading (a missing layer) may be gone
    // already: the pipe is then broken, and its output says why.
    if let Err(e) = stdin.write_all(input.as_bytes()) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    drop(stdin);
    let out = child.wait_with_output().expect("the binary ends");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    out
}
