//! The `mancala-tb` binary as a user meets it: building, querying, and clear
//! one-line errors (never a panic) for bad input.

use std::path::Path;
use std::process::Output;

use crate::common::run as mancala_tb;

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs a command that must fail and returns its error output.
fn fails(args: &[&str]) -> String {
    let out = mancala_tb(args);
    let err = stderr(&out);
    assert!(!out.status.success(), "{args:?} succeeded");
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    // Progress lines may come before it and a usage hint after it; the
    // error itself is one line.
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{args:?}: {err}");
    err
}

fn build(dir: &Path, rules: &str, max: u32) -> Output {
    let out = mancala_tb(&[
        "build",
        "oware",
        "--rules",
        rules,
        "--max-seeds",
        &max.to_string(),
        "--dir",
        dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    out
}

#[test]
fn build_prints_a_summary_and_resumes_without_rebuilding() {
    let dir = tempfile::tempdir().unwrap();
    let out = build(dir.path(), "awari", 6);
    let summary = stdout(&out);
    // Layer 3: 364 positions, 123 wins, 63 draws, 178 losses (the naive
    // solver agrees, see oware_cross_check).
    assert!(
        summary
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>()[..5]
                == ["3", "364", "123", "63", "178"]),
        "{summary}"
    );
    assert!(summary.contains("total"), "{summary}");
    for n in 0..=6 {
        assert!(
            dir.path()
                .join(format!("oware-awari/scores.{n}.mtb"))
                .exists()
        );
        // Raw scratch files are removed unless --keep-raw.
        assert!(!dir.path().join(format!("oware-awari/scores.{n}")).exists());
    }
    let again = stdout(&build(dir.path(), "awari", 6));
    assert!(again.contains("every layer was already built"), "{again}");
}

/// `--phases` prints each layer's phases, the in-memory engine's among
/// them, and `build-times.tsv` records a serial share (a number, or `-`
/// where the machine was too loaded to measure it) in its seventh column.
#[test]
fn build_phases_are_printed_and_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().to_str().unwrap();
    let args = ["build", "oware", "--max-seeds", "12", "--dir", folder];
    let out = mancala_tb(&[&args[..], &["--phases", "--no-distances"]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let summary = stdout(&out);
    let rows: Vec<Vec<&str>> = summary
        .lines()
        .skip_while(|l| !l.starts_with("phases ("))
        .map(|l| l.split_whitespace().collect())
        .collect();
    for phase in ["set-up", "scan", "propagation", "table", "layer"] {
        assert!(
            rows.iter()
                .any(|r| r.len() == 7 && r[0] == phase && r[1] == "12"),
            "{phase}: {summary}"
        );
    }
    let tsv = dir.path().join("oware-awari/build-times.tsv");
    let serial = |line: &str| line.split('\t').nth(6).unwrap().to_string();
    let times = std::fs::read_to_string(&tsv).unwrap();
    for line in times.lines() {
        let share = serial(line);
        assert!(
            share == "-" || (0.0..=1.0).contains(&share.parse::<f64>().unwrap()),
            "{line}"
        );
    }
    // Without --phases the workers are not sampled: no share is recorded.
    std::fs::remove_file(dir.path().join("oware-awari/scores.12.mtb")).unwrap();
    let out = mancala_tb(&[&args[..], &["--no-distances"]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let times = std::fs::read_to_string(&tsv).unwrap();
    assert_eq!(serial(times.lines().last().unwrap()), "-", "{times}");
}

#[test]
fn query_and_stats_answer_in_text_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    build(dir.path(), "awari", 4);
    // The mover's only seed in pit 5 goes to the opponent, who then keeps
    // it: one seed lost (value −1). Pits 0–4 keep the seed one more turn
    // and win it (+1).
    let out = mancala_tb(&[
        "query", "oware", "--dir", d, "--json", "0", "0", "0", "0", "0", "1", "0", "0", "0", "0",
        "0", "0",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["value"], -1);
    // Two moves to the end of the game: the opponent's seed stays home and
    // the mover, without seeds, cannot move.
    assert_eq!(json["distance"], 2);
    assert_eq!(
        json["moves"],
        serde_json::json!([{"pit": 5, "captured": 0, "child": [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], "distance": 2, "value": -1}])
    );
    assert_eq!(json["pv"][1]["distance"], 1);
    assert_eq!(
        json["pv"][1]["board"],
        serde_json::json!([0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0])
    );
    let out = mancala_tb(&[
        "query", "oware", "--dir", d, "1", "0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "0",
    ]);
    assert!(stdout(&out).starts_with("value +1"), "{}", stdout(&out));

    let out = mancala_tb(&["stats", "oware", "--dir", d, "--seeds", "2", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"seeds": 2, "positions": 78, "histogram": {"-2": 40, "0": 13, "2": 25}})
    );
}

#[test]
fn bad_positions_get_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    build(dir.path(), "awari", 2);
    let q = |pits: &[&str]| {
        let mut args = vec!["query", "oware", "--dir", d];
        args.extend_from_slice(pits);
        fails(&args)
    };
    assert!(q(&["1", "2", "3"]).contains("has 12 pits"));
    let twelve_with = |last: &'static str| {
        let mut p = vec!["0"; 11];
        p.push(last);
        p
    };
    assert!(q(&twelve_with("x")).contains("'x' is not a pit count"));
    assert!(q(&twelve_with("-1")).contains("'-1' is not a pit count"));
    assert!(q(&twelve_with("49")).contains("at most 48 seeds"));
    let missing = q(&twelve_with("3"));
    assert!(
        missing.contains("scores.3.mtb not found")
            && missing.contains("mancala-tb build oware --rules awari --max-seeds 3"),
        "{missing}"
    );
    let rules = fails(&["query", "oware", "--rules", "kalah", "--dir", d, "1"]);
    assert!(
        rules.contains("kalah") && rules.contains("awari, abapa"),
        "{rules}"
    );
    let too_many = fails(&["build", "oware", "--max-seeds", "49", "--dir", d]);
    assert!(too_many.contains("0..=48"), "{too_many}");
    let stats = fails(&["stats", "oware", "--dir", d, "--seeds", "7"]);
    assert!(stats.contains("scores.3.mtb not found"), "{stats}");
}

#[test]
fn unwritable_folders_and_damaged_layers_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    // A file where the tablebase folder should be.
    let blocker = dir.path().join("blocker");
    std::fs::write(&blocker, "not a folder").unwrap();
    let err = fails(&[
        "build",
        "oware",
        "--max-seeds",
        "2",
        "--dir",
        blocker.to_str().unwrap(),
    ]);
    assert!(err.contains("cannot create the tablebase folder"), "{err}");

    // A table cut short or altered (by hand: our own writes rename complete
    // files into place) is named, never silently rebuilt or read.
    build(dir.path(), "abapa", 3);
    let layer = dir.path().join("oware-abapa/scores.3.mtb");
    let bytes = std::fs::read(&layer).unwrap();
    std::fs::write(&layer, &bytes[..bytes.len() - 7]).unwrap();
    let d = dir.path().to_str().unwrap();
    let build_again = [
        "build",
        "oware",
        "--rules",
        "abapa",
        "--max-seeds",
        "3",
        "--dir",
        d,
    ];
    let err = fails(&build_again);
    assert!(
        err.contains("scores.3.mtb: truncated") && err.contains("rebuild"),
        "{err}"
    );
    let mut query = vec!["query", "oware", "--rules", "abapa", "--dir", d];
    query.extend(["1", "2", "0", "0", "0", "0", "0", "0", "0", "0", "0", "0"]);
    assert!(fails(&query).contains("scores.3.mtb: truncated"));
    let err = fails(&["info", "--dir", d]);
    assert!(err.contains("1 damaged table"), "{err}");
}

#[test]
fn a_leftover_temporary_file_is_replaced_by_a_complete_layer() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("oware-awari");
    std::fs::create_dir_all(&folder).unwrap();
    // What an interrupted build leaves: partial temporary files only.
    std::fs::write(folder.join("scores.2.tmp"), [1u8; 5]).unwrap();
    std::fs::write(folder.join("scores.2.mtb.tmp"), [1u8; 5]).unwrap();
    let d = dir.path().to_str().unwrap();
    let out = mancala_tb(&[
        "build",
        "oware",
        "--max-seeds",
        "2",
        "--keep-raw",
        "--dir",
        d,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::metadata(folder.join("scores.2")).unwrap().len(),
        78
    );
    assert!(folder.join("scores.2.mtb").exists());
    assert!(!folder.join("scores.2.tmp").exists());
    assert!(!folder.join("scores.2.mtb.tmp").exists());
}

/// `export` writes the published format byte for byte: what `--keep-raw`
/// leaves, and what `import` reads back into a table that `verify` accepts.
#[test]
fn export_import_and_verify_against_published_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let out = mancala_tb(&[
        "build",
        "oware",
        "--max-seeds",
        "5",
        "--keep-raw",
        "--dir",
        d,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let published = dir.path().join("oware-awari");
    let exported = dir.path().join("exported.5");
    let out = mancala_tb(&[
        "export",
        "oware",
        "--seeds",
        "5",
        "--out",
        exported.to_str().unwrap(),
        "--dir",
        d,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read(&exported).unwrap(),
        std::fs::read(published.join("scores.5")).unwrap()
    );

    let verify = |extra: &[&str]| {
        let mut args = vec!["verify", "oware", "--dir", d];
        args.extend_from_slice(extra);
        mancala_tb(&args)
    };
    let against = published.to_str().unwrap();
    let out = verify(&["--against", against]);
    assert!(
        stdout(&out).contains("layers 0..=5") && stdout(&out).contains("identical"),
        "{}",
        stderr(&out)
    );

    // A published file that differs is reported at its first difference.
    let mut bytes = std::fs::read(published.join("scores.4")).unwrap();
    bytes[100] = bytes[100].wrapping_add(2);
    std::fs::write(published.join("scores.4"), &bytes).unwrap();
    let err = fails(&["verify", "oware", "--dir", d, "--against", against]);
    assert!(
        err.contains("scores.4") && err.contains("first at rank 100"),
        "{err}"
    );

    // Import into a fresh folder: layer 5 alone, then the lower layers.
    let fresh = tempfile::tempdir().unwrap();
    let f = fresh.path().to_str().unwrap();
    for n in 0..=5 {
        let file = if n == 5 {
            exported.clone()
        } else {
            published.join(format!("scores.{n}"))
        };
        if n == 4 {
            std::fs::write(&file, &bytes).unwrap();
        }
        let out = mancala_tb(&[
            "import",
            "oware",
            "--seeds",
            &n.to_string(),
            "--dir",
            f,
            file.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    // The altered layer 4 is caught by the consistency check.
    let err = fails(&["verify", "oware", "--dir", f]);
    assert!(err.contains("scores.4.mtb: rank"), "{err}");
    // A file of the wrong size is refused.
    let err = fails(&[
        "import",
        "oware",
        "--seeds",
        "6",
        "--dir",
        f,
        exported.to_str().unwrap(),
    ]);
    assert!(err.contains("a complete layer has 12375"), "{err}");
}

/// The command a message names between backticks, run as it reads (its
/// arguments hold no spaces): its output.
fn run_named(message: &str) -> Output {
    let command = message.split('`').nth(1).expect("a command in backticks");
    let args: Vec<&str> = command.split_whitespace().collect();
    assert_eq!(args[0], "mancala-tb", "{message}");
    let out = mancala_tb(&args[1..]);
    assert!(out.status.success(), "{command}: {}", stderr(&out));
    out
}

/// Published files imported into a new folder have no distance tables:
/// `verify` and `query` say so, naming a build that adds them, which does
/// (the imported tables get their capture marks first); a distance table
/// gone later is named alone, with its own build.
#[test]
fn verify_names_the_layers_without_distances_and_the_build_that_adds_them() {
    let (dir, fresh) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (d, f) = (dir.path().to_str().unwrap(), fresh.path().to_str().unwrap());
    build(dir.path(), "awari", 6);
    for n in (0..=6).map(|n| n.to_string()) {
        let file = dir.path().join(format!("scores.{n}"));
        let file = file.to_str().unwrap();
        let export = ["export", "oware", "--seeds", &n, "--out", file, "--dir", d];
        assert!(mancala_tb(&export).status.success());
        let import = ["import", "oware", "--seeds", &n, "--dir", f, file];
        assert!(mancala_tb(&import).status.success());
    }
    let verify = |folder: &str| {
        let out = mancala_tb(&["verify", "oware", "--dir", folder]);
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    };
    let checked = verify(f);
    let command = format!("`mancala-tb build oware --rules awari --max-seeds 6 --dir {f}`");
    assert!(
        checked.contains(&format!(
            "no distance table for layers 0-6: {command} adds them"
        )) && !checked.contains("the distance tables of"),
        "{checked}"
    );
    let query = ["query", "oware", "--dir", f, "1", "0", "2", "0", "0", "0"];
    let out = mancala_tb(&[&query[..], &["0", "0", "1", "0", "0", "2"]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let note = stderr(&out);
    assert!(
        note.contains("7 of the built layers (0-6) have no distance tables")
            && note.contains(&command),
        "{note}"
    );
    let built = stdout(&run_named(&checked));
    assert!(built.contains("distances of 7 layers"), "{built}");
    for n in 0..=6 {
        let (a, b) = (
            format!("{d}/oware-awari/distance.{n}.mtb"),
            format!("{f}/oware-awari/distance.{n}.mtb"),
        );
        assert!(
            std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap(),
            "{b}"
        );
    }
    let checked = verify(f);
    assert!(
        checked.contains("the distance tables of 7 layers")
            && !checked.contains("no distance table"),
        "{checked}"
    );

    std::fs::remove_file(fresh.path().join("oware-awari/distance.3.mtb")).unwrap();
    let checked = verify(f);
    let command = format!("`mancala-tb build oware --rules awari --max-seeds 3 --dir {f}`");
    assert!(
        checked.contains("the distance tables of 6 layers")
            && checked.contains(&format!("no distance table for layer 3: {command} adds it")),
        "{checked}"
    );
    run_named(&checked);
    assert!(fresh.path().join("oware-awari/distance.3.mtb").exists());
}

/// A byte flipped inside a compressed block is caught by `verify` and by
/// probes: never a wrong value.
#[test]
fn a_flipped_byte_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    build(dir.path(), "awari", 6);
    let layer = dir.path().join("oware-awari/scores.6.mtb");
    let mut bytes = std::fs::read(&layer).unwrap();
    // The first block starts right after the header (its length is at 12).
    let header_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    bytes[header_len + 20] ^= 0x10;
    std::fs::write(&layer, &bytes).unwrap();
    let err = fails(&["verify", "oware", "--dir", d]);
    assert!(err.contains("scores.6.mtb"), "{err}");
    let mut query = vec!["query", "oware", "--dir", d];
    query.extend(["1", "2", "3", "0", "0", "0", "0", "0", "0", "0", "0", "0"]);
    assert!(fails(&query).contains("scores.6.mtb"));
}

#[cfg(not(feature = "mpi"))]
#[test]
fn distributed_builds_need_the_mpi_feature() {
    let out = mancala_tb(&["build", "oware", "--distributed", "--max-seeds", "2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("built without MPI") && stderr(&out).contains("--features mpi"),
        "{}",
        stderr(&out)
    );
}

/// `plan oware --disk` sweeps a layer in the rounds its disk allows, as the
/// build would, and refuses one whose files do not fit, naming the least.
#[test]
fn plan_sizes_sweeps_to_the_disk_and_refuses_too_little() {
    let plan = |disk: &str| {
        let mut args = vec!["plan", "oware", "--max-seeds", "20", "--memory", "150M"];
        args.extend(["--lower-cache", "0", "--calibrate-seeds", "10", "--json"]);
        args.extend(["--disk", disk]);
        args.iter().map(|a| a.to_string()).collect::<Vec<_>>()
    };
    let args = plan("100G");
    let out = mancala_tb(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let layer = &json["layers"][20];
    assert_eq!(layer["mode"], "out of core");
    assert_eq!(layer["sweeps"], 1);
    // Room for a tenth of layer 20's deferred lookups (6 bytes each).
    let deferred = 6 * 80_214_915u64;
    let disk = layer["disk_bytes"].as_u64().unwrap() - deferred + deferred / 10 + 1000;
    let args = plan(&disk.to_string());
    let out = mancala_tb(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["layers"][20]["sweeps"], 10);
    assert_eq!(json["assumptions"]["disk_limit_bytes"], disk);
    // The layer's files without its lookups.
    let args = plan(&(disk - deferred / 10 - 1000).to_string());
    let err = fails(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(err.contains("layer 20 needs at least"), "{err}");
    let out = mancala_tb(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(out.status.code(), Some(2));
}

/// `plan oware --nodes K` refuses a build whose share of a layer does not
/// fit a node (the shares are built in memory), with the build's reason,
/// rather than projecting it.
#[test]
fn plan_refuses_a_share_too_large_for_its_node() {
    let args = [
        "plan",
        "oware",
        "--max-seeds",
        "40",
        "--nodes",
        "2",
        "--memory",
        "1G",
        "--lower-cache",
        "0",
        "--calibrate-seeds",
        "10",
    ];
    let out = mancala_tb(&args);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stdout(&out).is_empty(), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains("layer 40 split over 2 ranks needs") && err.contains("the budget is 1.0 GiB"),
        "{err}"
    );
}
