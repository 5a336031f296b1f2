//! `play oware` and `analyse oware`: scripted games on standard input and
//! their checked output. The position 1 1 0 0 2 0 | 0 1 1 0 0 1 (7 seeds)
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
            "seeds": 7, "covered": true,
            "before": 7, "after": 3, "loss": 4, "best": [2], "mistake": true})
    );
    assert_eq!(
        json["built_layers"],
        serde_json::json!([0, 1, 2, 3, 4, 5, 6, 7, 8])
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

    assert_eq!(out.status.code(), Some(2));

    // A start asked for beyond the built layers: the standard one needs
    // layer 48.
    let mut args = with_dir(&["play", "oware"], dir.path());
    args.extend(["--seeds-per-pit", "4"]);
    let out = run(&args, "0\n");
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with(
            "error: the start has 48 seeds; the awari tables hold layers 0..=8 (without a \
             start, play picks one they cover): layer 48 of the awari tables is missing"
        ),
        "{err}"
    );
    assert!(err.contains("build it with `mancala-tb build oware --rules awari --max-seeds 48"));
    assert_eq!(err.lines().count(), 1, "{err}");

    // No tables at all: nothing to start from, and the command that builds
    // the least a seeds-a-pit start needs.
    let empty = tempfile::tempdir().unwrap();
    let out = run(&with_dir(&["play", "oware"], empty.path()), "");
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with(
            "error: no start the awari tables cover (layers built: none): layer 12 of the \
             awari tables is missing"
        ),
        "{err}"
    );
    assert!(err.contains("`mancala-tb build oware --rules awari --max-seeds 12 --dir "));
}

/// The pit counts of the first board `play` prints, the person's first.
fn first_board(text: &str) -> Vec<u32> {
    let row = |name: &str| -> Vec<u32> {
        let line = text.lines().find(|l| l.starts_with(name)).unwrap();
        line[name.len()..]
            .split_whitespace()
            .map(|p| p.parse().unwrap())
            .collect()
    };
    let mut pits = row("  you ");
    pits.extend(row("  computer ").iter().rev());
    pits
}

#[test]
fn play_starts_from_a_position_the_built_tables_cover() {
    // Layers 0..=12: one seed in every pit, a draw with best play.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    assert!(
        run(&["build", "oware", "--max-seeds", "12", "--dir", d], "")
            .status
            .success()
    );
    let out = run(&with_dir(&["play", "oware"], dir.path()), "q\n");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with(
            "start: 1 seed in every pit (12 seeds), the largest such start the awari tables \
             hold (layers 0..=12); --seeds-per-pit K, --random or twelve pit counts start \
             another game\n\n  computer   1  1  1  1  1  1\n  you        1  1  1  1  1  1\n"
        ),
        "{text}"
    );
    assert!(text.contains("value for you (to move): +0\n"), "{text}");

    // --random: a position of the largest layer, with a legal move.
    let mut args = with_dir(&["play", "oware"], dir.path());
    args.push("--random");
    let out = run(&args, "q\n");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with(
            "start: a position drawn at random from layer 12, the largest the awari tables \
             hold with every layer below it (layers 0..=12); --random again, --seeds-per-pit \
             K or twelve pit counts start another game\n"
        ),
        "{text}"
    );
    assert_eq!(first_board(&text).iter().sum::<u32>(), 12, "{text}");
    assert!(text.contains("your move ["), "{text}");

    // A gap: layer 5 gone, so 0..=4 is what a game can use, whatever lies
    // above.
    std::fs::remove_file(dir.path().join("oware-awari/scores.5.mtb")).unwrap();
    let out = run(&with_dir(&["play", "oware"], dir.path()), "q\n");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with(
            "start: a position drawn at random from layer 4, the largest the awari tables \
             hold with every layer below it (layers 0..=4, 6..=12; one seed in every pit \
             needs layers 0..=12); --seeds-per-pit K, --random or twelve pit counts start \
             another game\n"
        ),
        "{text}"
    );
    assert_eq!(first_board(&text).iter().sum::<u32>(), 4, "{text}");

    // Tables below 12 seeds (README's smallest builds): a drawn position
    // of the top layer, played to a move of the computer's.
    let small = tables();
    let mut args = with_dir(&["play", "oware"], small.path());
    args.extend(["--side", "second"]);
    let out = run(&args, "q\n");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("start: a position drawn at random from layer 8, "),
        "{text}"
    );
    assert_eq!(first_board(&text).iter().sum::<u32>(), 8, "{text}");
    assert!(text.contains("computer plays pit "), "{text}");
}

#[test]
fn analyse_marks_the_moves_beyond_the_built_layers() {
    let dir = tables();
    // A real game from the standard start: every position has 48 seeds,
    // beyond layers 0..=8.
    let mut args = with_dir(&["analyse", "oware"], dir.path());
    args.extend(["5", "5", "4", "0", "2", "1", "3", "2"]);
    let out = run(&args, "");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows.len(), 11, "{text}");
    assert_eq!(
        rows[1],
        "  1 first     5        0      -     -    - beyond the built layers: 48 seeds"
    );
    assert_eq!(
        rows[8],
        "  8 second    2        0      -     -    - beyond the built layers: 48 seeds"
    );
    assert_eq!(
        rows[9],
        "8 of 8 moves not analysed: their positions are beyond the awari layers built (0..=8)"
    );
    args.push("--json");
    let out = run(&args, "");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        json["moves"][0],
        serde_json::json!({"ply": 1, "player": "first", "pit": 5, "captured": 0,
            "seeds": 48, "covered": false,
            "before": null, "after": null, "loss": null, "best": null, "mistake": null})
    );
    assert_eq!(
        json["end"],
        serde_json::json!([8, 7, 2, 1, 3, 4, 2, 1, 0, 9, 8, 3])
    );
    assert_eq!(json["lost"], serde_json::json!([0, 0]));

    // A game that captures its way into the tables: the first move (10
    // seeds) is beyond them, the rest are valued; -8 for the second player
    // is what `query` says of 0 1 1 0 0 0 2 2 2 0 0 0.
    let mut args = with_dir(&["analyse", "oware", "--start"], dir.path());
    args.extend(["2", "2", "2", "0", "0", "1", "1", "1", "1", "0", "0", "0"]);
    args.extend(["5", "1", "0", "2"]);
    let out = run(&args, "");
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "ply player  pit captures before after loss best\n\
         \x20 1 first     5        2      -     -    - beyond the built layers: 10 seeds\n\
         \x20 2 second    1        0     -8    -8    0 [1, 2]\n\
         \x20 3 first     0        0     +8    +8    0 [0, 1, 2]\n\
         \x20 4 second    2        0     -8    -8    0 [2]\n\
         1 of 4 moves not analysed: their positions are beyond the awari layers built (0..=8)\n\
         seeds lost to mistakes in the analysed moves: first player 0, second player 0\n"
    );
    let query = run(
        &with_dir(
            &[
                "query", "oware", "0", "1", "1", "0", "0", "0", "2", "2", "2", "0", "0", "0",
            ],
            dir.path(),
        ),
        "",
    );
    assert!(
        String::from_utf8(query.stdout)
            .unwrap()
            .starts_with("value -8 ")
    );

    // Moves beyond the tables are still checked against the rules.
    let mut args = with_dir(&["analyse", "oware"], dir.path());
    args.extend(["5", "5", "5"]);
    let out = run(&args, "");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "error: move 3: pit 5 is not a legal move here (legal: [0, 1, 2, 3, 4])\n"
    );
}
