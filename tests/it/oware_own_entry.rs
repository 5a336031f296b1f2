//! One probe path: every answer of an indexed position (`query`, `probe`,
//! `probe --json`, `analyse`, `play`, the server, batch probes) reads its
//! own entry for its value and distance, and its moves' values from its
//! children. Layer 12 is rewritten with one entry changed, checksums kept:
//! each answer gives the stored entry where the moves say otherwise. A
//! damaged block holding the position, none of its children, fails each
//! of them (exit 4; the server, an error response).

use std::path::Path;

use mancala_tb::games::oware::{Board, Ruleset};
use mancala_tb::index::oware as index;
use mancala_tb::table::{Table, TableWriter, distance_options};
use mancala_tb::tablebase::Quiet;
use mancala_tb::tablebase::oware::{self as tb, Detail, OwareTablebase, distance_path};

use crate::common::{run, run_with_input};

const SEEDS: usize = 12;
/// The position of the issue that found two probe paths.
const BOARD: Board = [0, 0, 7, 1, 0, 0, 1, 0, 2, 0, 0, 1];
/// Positions per block of the rewritten layer: few, so that the block of
/// the position holds none of its children.
const BLOCK: u32 = 1 << 10;

/// Rewrites layer 12's value table with the entry at `rank` set to
/// `value`, and its distance table (naming the new value table) with the
/// distance there set to `distance`.
fn rewrite_entry(folder: &Path, rank: usize, value: i8, distance: i16) {
    let path = tb::table_path(folder, SEEDS);
    let table = Table::open(&path).unwrap();
    let meta = table.meta().clone();
    let mut values = table.decode_all().unwrap();
    drop(table);
    values[rank] = value;
    TableWriter::new(meta)
        .block_size(BLOCK)
        .write(&path, &values)
        .unwrap();
    let crc = Table::open(&path).unwrap().payload_crc();
    let path = distance_path(folder, SEEDS);
    let table = Table::open(&path).unwrap();
    let mut meta = table.meta().clone();
    let mut distances = table.decode_all_wide().unwrap();
    drop(table);
    meta.options = distance_options("", crc);
    distances[rank] = distance;
    TableWriter::new(meta)
        .write_wide(&path, &distances)
        .unwrap();
}

/// Flips a byte in the middle of block `block`'s compressed bytes, as the
/// table's index places them (its offset is at bytes 24..32 of the file,
/// 16 bytes an entry: offset, length, checksum).
fn damage_block(path: &Path, block: u64) {
    let mut bytes = std::fs::read(path).unwrap();
    let index = u64::from_le_bytes(bytes[24..32].try_into().unwrap()) as usize;
    let entry = &bytes[index + 16 * block as usize..][..16];
    let offset = u64::from_le_bytes(entry[..8].try_into().unwrap()) as usize;
    let len = u32::from_le_bytes(entry[8..12].try_into().unwrap()) as usize;
    bytes[offset + len / 2] ^= 0x10;
    std::fs::write(path, &bytes).unwrap();
}

fn pits() -> Vec<String> {
    BOARD.iter().map(u8::to_string).collect()
}

/// Runs `args` (with the position's pits where `{pits}` stands): its exit
/// code, standard output and error.
fn mancala_tb(args: &[&str], input: &str) -> (i32, String, String) {
    let pits = pits();
    let args: Vec<&str> = (args.iter())
        .flat_map(|&a| match a {
            "{pits}" => pits.iter().map(String::as_str).collect(),
            a => vec![a],
        })
        .collect();
    let out = match input {
        "" => run(&args),
        input => run_with_input(&args, input),
    };
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    let code = out.status.code().expect("exited, not killed");
    (code, String::from_utf8_lossy(&out.stdout).into_owned(), err)
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn every_answer_reads_the_positions_own_entry() {
    let dir = tempfile::tempdir().unwrap();
    let options = tb::BuildOptions::new(SEEDS, 1 << 30);
    tb::build(dir.path(), Ruleset::Awari, &options, &Quiet).unwrap();
    let folder = tb::ruleset_dir(dir.path(), Ruleset::Awari);
    let d = dir.path().to_str().unwrap();
    let rank = index::rank(&BOARD).unwrap();
    let tables = OwareTablebase::open(dir.path(), Ruleset::Awari).unwrap();
    let value = tables.value(&BOARD).unwrap();
    let distance = tables.distance(&BOARD).unwrap().unwrap();
    let moves = tables.move_values(&BOARD).unwrap();
    drop(tables);
    assert_eq!(moves.iter().map(|m| m.value).max(), Some(value));
    // The block of the position holds none of its children: a probe that
    // reads only them cannot meet its damage.
    let block = rank / u64::from(BLOCK);
    for m in moves.iter().filter(|m| m.captured == 0) {
        assert_ne!(index::rank(&m.child).unwrap() / u64::from(BLOCK), block);
    }

    // The entry says 2 seeds more and a move farther than the moves do.
    let (stored, stored_distance) = (value + 2, distance + 1);
    rewrite_entry(&folder, rank as usize, stored, stored_distance as i16);
    let tables = OwareTablebase::open(dir.path(), Ruleset::Awari).unwrap();
    assert_eq!(tables.value(&BOARD).unwrap(), stored);
    assert_eq!(tables.distance(&BOARD).unwrap(), Some(stored_distance));
    assert_eq!(tables.move_values(&BOARD).unwrap(), moves);
    for detail in [Detail::Values, Detail::Moves, Detail::MovesAndDistances] {
        let probed = tables.probe_many(&[BOARD], detail).unwrap().remove(0);
        let probed = probed.unwrap();
        assert_eq!(probed.value, stored, "{detail:?}");
        let with_distances = detail == Detail::MovesAndDistances;
        assert_eq!(
            probed.distance,
            with_distances.then_some(stored_distance),
            "{detail:?}"
        );
    }
    let move_values: Vec<i8> = moves.iter().map(|m| m.value).collect();
    let answered = |json: &serde_json::Value| {
        let values = json["moves"].as_array().unwrap().iter();
        let values: Vec<i8> = values.map(|m| m["value"].as_i64().unwrap() as i8).collect();
        (json["value"].as_i64(), json["distance"].as_i64(), values)
    };
    let expected = (
        Some(i64::from(stored)),
        Some(i64::from(stored_distance)),
        move_values,
    );

    let query = ["query", "oware", "--json", "--dir", d, "{pits}"];
    let (code, out, err) = mancala_tb(&query, "");
    assert_eq!(code, 0, "{err}");
    assert_eq!(answered(&json(&out)), expected);
    let line = pits().join(" ") + "\n";
    let (code, out, err) = mancala_tb(&["probe", "oware", "--dir", d], &line);
    assert_eq!(
        (code, out.trim()),
        (0, stored.to_string().as_str()),
        "{err}"
    );
    let probe_json = ["probe", "oware", "--json", "--dir", d];
    let (code, out, err) = mancala_tb(&probe_json, &line);
    assert_eq!(code, 0, "{err}");
    assert_eq!(answered(&json(&out)), expected);
    let pit = moves[0].pit.to_string();
    let analyse = [
        "analyse", "oware", "--json", "--dir", d, "--start", "{pits}", &pit,
    ];
    let (code, out, err) = mancala_tb(&analyse, "");
    assert_eq!(code, 0, "{err}");
    let first = &json(&out)["moves"][0];
    assert_eq!(first["before"], i64::from(stored), "{out}");
    assert_eq!(first["after"], i64::from(moves[0].value), "{out}");
    let play = ["play", "oware", "--dir", d, "{pits}"];
    let (code, out, err) = mancala_tb(&play, "q\n");
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(&format!("value for you (to move): {stored:+}")),
        "{out}"
    );
    #[cfg(feature = "server")]
    {
        let server = crate::server::Server::start(dir.path());
        let (status, body) = server.get(&format!("/api/oware?pits={}", pits().join(",")));
        assert_eq!(status, 200, "{body}");
        assert_eq!(answered(&json(&body)), expected);
    }

    // The block holding the position damaged: every answer fails.
    damage_block(&tb::table_path(&folder, SEEDS), block);
    let tables = OwareTablebase::open(dir.path(), Ruleset::Awari).unwrap();
    let error = tables.value(&BOARD).unwrap_err();
    assert!(error.to_string().contains("scores.12.mtb"), "{error}");
    // The remedy names the command that rebuilds this very layer.
    let rebuild = format!("build oware --rules awari --max-seeds 12 --dir {d}`");
    assert!(error.to_string().contains(&rebuild), "{error}");
    assert_eq!(tables.move_values(&BOARD).unwrap(), moves);
    for detail in [Detail::Values, Detail::Moves, Detail::MovesAndDistances] {
        let error = tables.probe_many(&[BOARD], detail).unwrap_err();
        assert!(error.to_string().contains("scores.12.mtb"), "{error}");
    }
    let probe = ["probe", "oware", "--dir", d];
    for (args, input) in [
        (&query[..], ""),
        (&probe[..], line.as_str()),
        (&probe_json[..], line.as_str()),
        (&analyse[..], ""),
        (&play[..], "q\n"),
    ] {
        let (code, _, err) = mancala_tb(args, input);
        assert_eq!(code, 4, "{args:?}: {err}");
        assert!(err.contains("scores.12.mtb"), "{args:?}: {err}");
    }
    #[cfg(feature = "server")]
    {
        let server = crate::server::Server::start(dir.path());
        let (status, body) = server.get(&format!("/api/oware?pits={}", pits().join(",")));
        assert_eq!(status, 500, "{body}");
        let error = json(&body)["error"].as_str().unwrap().to_string();
        assert!(error.contains("scores.12.mtb"), "{body}");
    }
}
