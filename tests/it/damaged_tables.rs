//! Every game's tables share one format: `info` lists and checks them all,
//! and a flipped byte anywhere in any table's data is caught by `info` and
//! by the game's `verify`.

use std::path::{Path, PathBuf};

use crate::common::run as mancala_tb;

fn ok(args: &[&str]) -> String {
    let out = mancala_tb(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn tables(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for sub in std::fs::read_dir(dir).unwrap() {
        for file in std::fs::read_dir(sub.unwrap().path()).unwrap() {
            let path = file.unwrap().path();
            if path.extension().is_some_and(|e| e == "mtb") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn a_flipped_byte_in_any_table_of_any_game_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    ok(&["build", "oware", "--max-seeds", "5", "--dir", d]);
    let engehe = ["--width", "2", "--max-seeds", "5", "--dir", d];
    ok(&[&["build", "engehe"][..], &engehe].concat());
    let omweso = |objective| {
        [
            "--width",
            "2",
            "--seeds",
            "5",
            "--objective",
            objective,
            "--dir",
            d,
        ]
    };
    for objective in ["wdl", "points"] {
        ok(&[&["build", "omweso"][..], &omweso(objective)].concat());
    }
    let info = ok(&["info", "--dir", d]);
    for encoding in ["score-or-capture", "score", "wdl-distance", " distance "] {
        assert!(info.contains(encoding), "{info}");
    }
    // Built Oware layers are context coded (coding 4), the others
    // (distance tables among them) zstd.
    for line in info.lines().skip(1) {
        let coding = if line.starts_with("oware") && !line.contains(" distance ") {
            "context-4"
        } else {
            "zstd"
        };
        assert!(line.contains(&format!(" {coding} ")), "{line}");
    }
    let files = tables(dir.path());
    // Oware layers and their distance tables; En Gehé layers and theirs;
    // the Omweso wdl table, points table and its distance table.
    assert_eq!(files.len(), 2 * 6 + 2 * 6 + 3, "{files:?}");
    assert_eq!(info.lines().count(), files.len() + 1, "{info}");

    for file in &files {
        let name = file.file_name().unwrap().to_str().unwrap();
        let game = file
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_str()
            .unwrap();
        let verify: Vec<&str> = match game.split('-').next().unwrap() {
            "oware" => vec!["verify", "oware", "--dir", d],
            "engehe" => [&["verify", "engehe"][..], &engehe].concat(),
            _ => {
                let objective = if name.contains("wdl") {
                    "wdl"
                } else {
                    "points"
                };
                [&["verify", "omweso"][..], &omweso(objective)].concat()
            }
        };
        let good = std::fs::read(file).unwrap();
        let header_len = u32::from_le_bytes(good[12..16].try_into().unwrap()) as usize;
        let index_offset = u64::from_le_bytes(good[24..32].try_into().unwrap()) as usize;
        for at in [
            header_len,
            (header_len + index_offset) / 2,
            index_offset - 1,
        ] {
            let mut bad = good.clone();
            bad[at] ^= 0x04;
            std::fs::write(file, &bad).unwrap();
            for args in [&["info", "--dir", d][..], &verify] {
                let out = mancala_tb(args);
                let err = String::from_utf8_lossy(&out.stderr);
                let text = String::from_utf8_lossy(&out.stdout) + err.clone();
                assert!(!out.status.success(), "{args:?} missed byte {at} of {name}");
                assert!(!err.contains("panicked"), "{err}");
                assert!(text.contains(name), "{args:?}, byte {at} of {name}: {text}");
            }
        }
        std::fs::write(file, &good).unwrap();
    }
    ok(&["info", "--dir", d]);
}
