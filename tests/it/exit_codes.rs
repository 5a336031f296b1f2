//! The exit code says why a command failed (README, "Exit codes"): 2 bad
//! input, 3 missing table, 4 damaged table, 1 anything else.

use crate::common::{run, run_with_input};

/// Runs a command that must fail; returns its exit code and error output.
fn failure(args: &[&str]) -> (i32, String) {
    let out = run(args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    (out.status.code().expect("exited, not killed"), err)
}

const START: [&str; 12] = ["4"; 12];

fn query_oware(dir: &str, pits: &[&str]) -> Vec<String> {
    let mut args = vec!["query", "oware", "--dir", dir];
    args.extend(pits);
    args.into_iter().map(String::from).collect()
}

fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

#[test]
fn bad_input_exits_with_2() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    // Eleven pits, a position with too many seeds, an unknown option value.
    let (code, err) = failure(&strs(&query_oware(d, &START[..11])));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("12 pits"), "{err}");
    let (code, err) = failure(&strs(&query_oware(d, &["9"; 12])));
    assert_eq!(code, 2, "{err}");
    let (code, err) = failure(&["query", "oware", "--rules", "nope", "1"]);
    assert_eq!(code, 2, "{err}");
    let (code, err) = failure(&["loops", "omweso", "--census", "--width", "2"]);
    assert_eq!(code, 2, "{err}");
    let (code, err) = failure(&[
        "build",
        "oware",
        "--threads",
        "0",
        "--max-seeds",
        "1",
        "--dir",
        d,
    ]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn a_missing_table_exits_with_3_and_says_how_to_build_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let (code, err) = failure(&strs(&query_oware(d, &START)));
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("scores.48.mtb not found")
            && err.contains("build it with `mancala-tb build oware --rules awari --max-seeds 48"),
        "{err}"
    );
    let (code, err) = failure(&["verify", "oware", "--dir", d]);
    assert_eq!(code, 3, "{err}");
    let (code, err) = failure(&[
        "stats", "engehe", "--width", "2", "--seeds", "1", "--dir", d,
    ]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("mancala-tb build engehe --width 2"), "{err}");
}

#[test]
fn a_damaged_table_exits_with_4() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let built = run(&["build", "oware", "--max-seeds", "2", "--dir", d]);
    assert!(built.status.success());
    let layer = dir.path().join("oware-awari/scores.2.mtb");
    let bytes = std::fs::read(&layer).unwrap();
    std::fs::write(&layer, &bytes[..bytes.len() - 7]).unwrap();
    let two_seeds = ["1", "1", "0", "0", "0", "0", "0", "0", "0", "0", "0", "0"];
    let (code, err) = failure(&strs(&query_oware(d, &two_seeds)));
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("scores.2.mtb: truncated"), "{err}");
    let (code, err) = failure(&["info", "--dir", d]);
    assert_eq!(code, 4, "{err}");
}

#[test]
fn anything_else_exits_with_1() {
    let dir = tempfile::tempdir().unwrap();
    // The tablebase folder cannot be made: a file is in the way.
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, b"").unwrap();
    let (code, err) = failure(&[
        "build",
        "oware",
        "--max-seeds",
        "1",
        "--dir",
        blocker.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("cannot create the tablebase folder"), "{err}");
}

/// `probe` ends with the code of what kept a line from its answer (with
/// `--keep-going`, the first such line's), or of a damaged table.
#[test]
fn a_probe_exits_with_its_lines_cause() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    assert!(
        run(&["build", "oware", "--max-seeds", "2", "--dir", d])
            .status
            .success()
    );
    let probe = |input: &str, keep_going: bool| {
        let mut args = vec!["probe", "oware", "--dir", d];
        if keep_going {
            args.push("--keep-going");
        }
        let out = run_with_input(&args, input);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(!err.contains("panicked"), "{input:?}: {err}");
        (out.status.code().expect("exited, not killed"), err)
    };
    let (two, three, four) = (
        "1 1 0 0 0 0 0 0 0 0 0 0\n",
        "1 2 3\n",
        "4 4 4 4 4 4 4 4 4 4 4 0\n",
    );
    assert_eq!(probe(two, false).0, 0);
    assert_eq!(probe(three, false).0, 2, "a line of three pits");
    let (code, err) = probe(four, false);
    assert_eq!(code, 3, "layer 44 is not built: {err}");
    assert!(err.contains("line 1: layer 44"), "{err}");
    assert_eq!(probe(&format!("{two}{three}{four}"), true).0, 2);
    assert_eq!(probe(&format!("{two}{four}{three}"), true).0, 3);
    let layer = dir.path().join("oware-awari/scores.2.mtb");
    let bytes = std::fs::read(&layer).unwrap();
    std::fs::write(&layer, &bytes[..bytes.len() - 7]).unwrap();
    let (code, err) = probe(two, true);
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("scores.2.mtb: truncated"), "{err}");
}
