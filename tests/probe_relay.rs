//! `mancala-tb probe engehe|omweso` gives the values `query` gives, on every
//! position of small tables (Omweso: a sample), in input order.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn mancala_tb(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mancala-tb"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    out
}

fn ok(args: &[&str], input: &str) -> String {
    let out = mancala_tb(args, input);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Every way to put `seeds` into `pits` pits.
fn compositions(pits: usize, seeds: u32) -> Vec<Vec<u32>> {
    if pits == 1 {
        return vec![vec![seeds]];
    }
    (0..=seeds)
        .flat_map(|first| {
            compositions(pits - 1, seeds - first)
                .into_iter()
                .map(move |mut rest| {
                    rest.insert(0, first);
                    rest
                })
        })
        .collect()
}

/// Probes `positions` in one run and checks each answer against `query`.
fn agrees_with_query(game_args: &[&str], positions: &[Vec<u32>]) {
    let input: String = positions
        .iter()
        .map(|p| p.iter().map(u32::to_string).collect::<Vec<_>>().join(" ") + "\n")
        .collect();
    let mut probe = vec!["probe"];
    probe.extend(game_args);
    let plain = ok(&probe, &input);
    probe.push("--json");
    let json = ok(&probe, &input);
    assert_eq!(plain.lines().count(), positions.len());
    assert_eq!(json.lines().count(), positions.len());
    for (position, line) in positions.iter().zip(json.lines()) {
        let pits: Vec<String> = position.iter().map(u32::to_string).collect();
        let mut query = vec!["query"];
        query.extend(game_args);
        query.push("--json");
        query.extend(pits.iter().map(String::as_str));
        let queried: serde_json::Value = serde_json::from_str(&ok(&query, "")).unwrap();
        let probed: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(probed["value"], queried["value"], "{position:?}");
        assert_eq!(
            probed["moves"].as_array().unwrap().len(),
            queried["moves"].as_array().unwrap().len(),
            "{position:?}"
        );
    }
}

#[test]
fn engehe_probes_agree_with_query_on_every_position() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    ok(
        &[
            "build",
            "engehe",
            "--width",
            "2",
            "--max-seeds",
            "4",
            "--dir",
            d,
        ],
        "",
    );
    let positions: Vec<Vec<u32>> = (0..=4).flat_map(|n| compositions(4, n)).collect();
    agrees_with_query(&["engehe", "--width", "2", "--dir", d], &positions);

    // A layer that is not built is an error line naming the build command.
    let out = mancala_tb(
        &[
            "probe",
            "engehe",
            "--width",
            "2",
            "--dir",
            d,
            "--keep-going",
        ],
        "1 1 1 0\n3 3 0 0\n1 1\n",
    );
    assert!(!out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].parse::<i8>().is_ok(), "{text}");
    assert!(
        lines[1].contains("line 2") && lines[1].contains("build engehe"),
        "{text}"
    );
    assert!(lines[2].starts_with("error: line 3: "), "{text}");
}

#[test]
fn omweso_probes_agree_with_query_across_seed_counts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    for seeds in ["4", "5"] {
        ok(
            &[
                "build", "omweso", "--width", "2", "--seeds", seeds, "--dir", d,
            ],
            "",
        );
    }
    // Both seed counts, mixed in one input.
    let mut positions: Vec<Vec<u32>> = compositions(8, 4).into_iter().step_by(7).collect();
    positions.extend(compositions(8, 5).into_iter().step_by(23));
    positions.sort_by_key(|p| p.iter().rev().copied().collect::<Vec<_>>());
    agrees_with_query(&["omweso", "--width", "2", "--dir", d], &positions);

    let out = mancala_tb(
        &["probe", "omweso", "--width", "2", "--dir", d],
        "1 1 1 1 1 1 0 0\n",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("line 1") && err.contains("build omweso"),
        "{err}"
    );
}
