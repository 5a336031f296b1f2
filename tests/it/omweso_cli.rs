//! The `loops omweso` and `moves omweso` commands: output and bad input.

use serde_json::{Value, json};

use crate::common::run;

fn json_of(args: &[&str]) -> Value {
    let out = run(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

const EXAMPLE: &str = "3 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0";

#[test]
fn loops_reports_the_rules_example() {
    let mut args = vec!["loops", "omweso", "--json"];
    args.extend(EXAMPLE.split(' '));
    let out = json_of(&args);
    assert_eq!(
        out,
        json!({"moves": [{
            "pit": 0, "direction": "ccw", "ends": false,
            "cycle_start_lap": 0, "period_laps": 128,
            "path": [{"lap": 0, "pit": 0, "direction": "ccw"}],
        }]})
    );
    let mut args = vec!["loops", "omweso"];
    args.extend(EXAMPLE.split(' '));
    let text = String::from_utf8(run(&args).stdout).unwrap();
    assert_eq!(
        text,
        "0 ccw: never ends: cycle starts at lap 0, period 128 laps\n"
    );
}

#[test]
fn loops_reports_ending_moves_per_starting_choice() {
    // W = 4 (see tests/omweso_rules.rs, rule 4): pit 1 counter-clockwise
    // ends after one lap; clockwise captures 3 and ends after two laps.
    let args = "loops omweso --width 4 --json 0 2 0 0 0 0 0 1 2 0 0 2 1 2 0 0";
    let out = json_of(&args.split(' ').collect::<Vec<_>>());
    let moves = out["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 2);
    assert_eq!(moves[0]["direction"], "ccw");
    assert_eq!(
        (&moves[0]["laps"], &moves[0]["sown"]),
        (&json!(1), &json!(2))
    );
    assert_eq!(moves[1]["direction"], "cw");
    assert_eq!(moves[1]["ends"], true);
    assert_eq!(
        (&moves[1]["laps"], &moves[1]["sown"]),
        (&json!(2), &json!(5))
    );
    assert_eq!(
        moves[1]["position"],
        json!([1, 0, 1, 1, 1, 0, 0, 2, 2, 0, 0, 0, 0, 2, 0, 0])
    );
}

#[test]
fn moves_lists_children_and_wins() {
    // Akawumbi (tests/omweso_rules.rs, rule 6).
    let args = "moves omweso --width 4 --json 0 0 2 0 1 0 0 0 3 0 0 0 0 0 0 2";
    let out = json_of(&args.split(' ').collect::<Vec<_>>());
    let moves = out["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 1);
    assert_eq!(moves[0]["win"], json!({"kind": "akawumbi", "points": 12}));
    assert_eq!(moves[0]["captured"], true);
    assert_eq!(
        moves[0]["child"],
        json!([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 1, 1, 1])
    );
    assert_eq!(out["rules"], "reverse=all-laps,endless=void,okutema=on");
    // Under endless = illegal the example has no legal move left.
    let mut args = vec!["moves", "omweso", "--json", "--endless", "illegal"];
    args.extend(EXAMPLE.split(' '));
    assert_eq!(json_of(&args)["moves"], json!([]));
}

#[test]
fn census_json() {
    let out = json_of(&[
        "loops",
        "omweso",
        "--census",
        "--width",
        "4",
        "--max-seeds",
        "8",
        "--json",
    ]);
    assert_eq!(out["smallest"], 7);
    assert_eq!(
        out["rows"][7],
        json!({"seeds": 7, "configurations": 3432, "never_ending": 32})
    );
    assert_eq!(out["rows"][8]["never_ending"], 0);
}

#[test]
fn bad_input_is_refused_with_a_message() {
    let cases: &[(&str, &str)] = &[
        ("loops omweso --width 9 1 2", "width 9 is outside 2..=8"),
        (
            "loops omweso --width 2 1 2 3",
            "has 8 pits (4 × width), got 3",
        ),
        ("moves omweso --width 2 1 1 1 1 2 2 2 2", "no legal move"),
        (
            "moves omweso --width 2 70 0 0 0 0 0 0 0",
            "more than --max-seeds 64",
        ),
        (
            "loops omweso --width 2 --max-seeds 300 200 0 0 0 0 0 0 60",
            "at most 255",
        ),
        (
            "loops omweso --census --width 2 --max-seeds 256",
            "more than the 255",
        ),
        ("loops omweso --census --width 2", "needs --max-seeds"),
    ];
    for (args, message) in cases {
        let out = run(&args.split(' ').collect::<Vec<_>>());
        assert!(!out.status.success(), "{args}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(message), "{args}: {stderr}");
    }
}
