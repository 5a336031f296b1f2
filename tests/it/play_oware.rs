//! `play oware` and `analyse oware`: scripted games on standard input and
//! their checked output. The position 1 1 0 0 2 0 | 0 1 1 0 0 1 (8 seeds)
//! is lost by 7 for the first player; its values were read from the tables
//! and agree with `query oware`.

use std::path::Path;
use std::process::Output;

use crate::common;

const START: [&str; 12] = ["1", "1", "0", "0", "2", "0", "0", "1", "1", "0", "0", "1"];

fn run(args: &[&str], input: &str) -> Output {
    common::run_with_input(args, input)
}

fn tables() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let out = run(&["build", "oware", "--max-seeds", "8", "--dir", d], "");
    assert!(out.status.success());
    dir
}

/// `args` with `--dir DIR` after the subcommand (before a trailing
/// `--start`'s pits).
fn with_dir<'a>(args: &[&'a str], dir: &'a Path) -> Vec<&'a str> {
    let mut all = args[..2].to_vec();
    all.extend_from_slice(&["--dir", dir.to_str().unwrap()]);
    all.extend_from_slice(&args[2..]);
    all
}

#[test]
fn play_shows_the_board_values_and_the_cost_of_each_move() {
    let dir = tables();
    let mut args = with_dir(&["play", "oware"], dir.path());
    args.extend(START);
    // 9 is refused, 0 keeps the value (0, 1 and 4 all do), the computer
    // answers, then the input ends.
    let out = run(&args, "9\n0\n");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success());
    let expected_start = "\n  computer   1  0  0  1  1  0\n  you        1  1  0  0  2  0\n  pit        0  1  2  3  4  5\n\
                          captured: you 0, computer 0; value for you (to move): -7\n";
    assert!(text.starts_with(expected_start), "{text}");
    assert!(text.contains("your move [0, 1, 4]: '9' is not one of your legal pits [0, 1, 4]\n"));
    assert!(text.contains("you play pit 0: value -7 (best)\n"), "{text}");
    assert!(text.contains("computer plays pit 2: value +7\n"), "{text}");
    assert!(
        text.ends_with("stopped. Seeds you lost to mistakes: 0\n"),
        "{text}"
    );
}

#[test]
fn play_counts_the_seeds_a_mistake_costs_and_ends_the_game() {
    let dir = tables();
    // Second player: the computer opens with pit 0 (value -7, among
    // equals the lowest pit); from 0 2 0 0 2 0 | 0 0 1 0 0 1 as seen by the
    // second player the best move is 2 and pit 1 loses 4 seeds.
    let mut args = with_dir(&["play", "oware", "--side", "second"], dir.path());
    args.extend(START);
    let out = run(&args, "1\n");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("computer plays pit 0: value -7\n"), "{text}");
    assert!(
        text.contains("you play pit 1: value +3 (mistake: costs 4 seeds)\n"),
        "{text}"
    );
    assert!(
        text.ends_with("stopped. Seeds you lost to mistakes: 4\n"),
        "{text}"
    );

    // A game to its end: the one seed goes to the computer, which keeps
    // it, and the person cannot move (awari: the rest goes to the mover's
    // opponent).
    let mut args = with_dir(&["play", "oware"], dir.path());
    args.extend(["0", "0", "0", "0", "0", "1", "0", "0", "0", "0", "0", "0"]);
    let out = run(&args, "5\n");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("you play pit 5: value -1 (best)\n"), "{text}");
    assert!(text.contains("computer plays pit 0: value +1\n"), "{text}");
    assert!(
        text.ends_with(
            "you cannot move: game over. Final: you 0, computer 1. Seeds you lost to mistakes: 0\n"
        ),
        "{text}"
    );
}

#[test]
fn analyse_marks_mistakes_with_their_loss() {
    let dir = tables();
    let mut args = with_dir(&["analyse", "oware", "--start"], dir.path());
    args.extend(START);
    args.extend(["0", "1", "4"]);
    let out = run(&args, "");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text,
        "ply player  pit captures before after loss best\n\
         \x20 1 first     0        0     -7    -7    0 [0, 1, 4]\n\
         \x20 2 second    1        0     +7    +3    4 [2]  MISTAKE\n\
         \x20 3 first     4        0     -3    -7    4 [1]  MISTAKE\n\
         seeds lost to mistakes: first player 4, second player 4\n"
    );

    args.push("--json");
    let out = run(&args, "");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["lost"], serde_json::json!([4, 4]));
    assert_eq!(
        json["moves"][1],
        serde_json::json!({"ply": 2, "player": "second", "pit": 1, "captured": 0,
            "before": 7, "after": 3, "loss": 4, "best": [2], "mistake": true})
    );

    // The moves from a file give the same analysis.
    let file = dir.path().join("game.txt");
    std::fs::write(&file, "0, 1\n4\n").unwrap();
    let mut from_file = with_dir(&["analyse", "oware", "--file"], dir.path());
    from_file.extend([file.to_str().unwrap(), "--start"]);
    from_file.extend(START);
    let out = run(&from_file, "");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), text);
}

#[test]
fn illegal_moves_and_missing_layers_are_clear_errors() {
    let dir = tables();
    let mut args = with_dir(&["analyse", "oware", "--start"], dir.path());
    args.extend(START);
    args.push("3");
    let out = run(&args, "");
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        err,
        "error: move 1: pit 3 is not a legal move here (legal: [0, 1, 4])\n"
    );

    // The standard start needs layer 48.
    let out = run(&with_dir(&["play", "oware"], dir.path()), "0\n");
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("error: layer 48 of the awari tables is missing"),
        "{err}"
    );
    assert!(err.contains("build it with `mancala-tb build oware --rules awari --max-seeds 48"));
}
