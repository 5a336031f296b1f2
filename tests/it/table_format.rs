//! The table file format: round trips, damaged and foreign files, concurrency
//! and the write-to-temporary-then-rename guarantee.

use std::fs;
use std::path::{Path, PathBuf};

use mancala_tb::table::{Table, TableError, TableMeta, TableWriter, ValueEncoding, write_table};

const BS: u32 = 1000;

fn meta() -> TableMeta {
    TableMeta {
        game: "oware".into(),
        ruleset: "awari".into(),
        options: "".into(),
        seeds: 12,
        board_width: 6,
        encoding: ValueEncoding::Score,
    }
}

/// Deterministic pseudo-random values, mostly small like real layers.
fn random_values(n: usize, seed: u64) -> Vec<i8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match x % 16 {
                0..=6 => 0,
                r @ 7..=14 => (r as i8 - 6) * if x & 1 << 20 == 0 { 1 } else { -1 },
                _ => (x >> 32) as i8,
            }
        })
        .collect()
}

/// Long runs with a trend: what real layers look like locally.
fn structured_values(n: usize) -> Vec<i8> {
    (0..n).map(|i| ((i / 37) % 9) as i8 - 4).collect()
}

fn write_small(path: &Path, values: &[i8]) {
    TableWriter::new(meta())
        .block_size(BS)
        .write(path, values)
        .unwrap();
}

fn check_round_trip(values: &[i8], block_size: u32) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.mtb");
    TableWriter::new(meta())
        .block_size(block_size)
        .write(&path, values)
        .unwrap();
    let t = Table::open(&path).unwrap();
    assert_eq!(t.meta(), &meta());
    assert_eq!(t.len(), values.len() as u64);
    assert_eq!(
        t.block_count(),
        (values.len() as u64).div_ceil(u64::from(block_size))
    );
    t.verify().unwrap();
    assert_eq!(t.decode_all().unwrap(), values);
    for (rank, &v) in values.iter().enumerate() {
        assert_eq!(t.get(rank as u64).unwrap(), v, "rank {rank}");
    }
    assert!(matches!(
        t.get(values.len() as u64).map_err(|e| e.error),
        Err(TableError::OutOfRange { .. })
    ));
    let names: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["t.mtb"], "no temporary file left behind");
}

#[test]
fn round_trips_at_block_boundaries() {
    let n = BS as usize;
    for len in [0, 1, n - 1, n, n + 1, 2 * n, 3 * n + 5] {
        check_round_trip(&random_values(len, len as u64), BS);
        check_round_trip(&structured_values(len), BS);
    }
}

#[test]
fn round_trips_with_default_block_size() {
    let values = random_values(200_000, 7);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.mtb");
    write_table(&path, &meta(), &values).unwrap();
    let t = Table::open(&path).unwrap();
    assert_eq!(t.block_size(), mancala_tb::table::DEFAULT_BLOCK_SIZE);
    assert_eq!(t.decode_all().unwrap(), values);
}

#[test]
fn round_trips_extreme_values_and_long_strings() {
    let values: Vec<i8> = (0..=255u8).map(|b| b as i8).cycle().take(5000).collect();
    let m = TableMeta {
        game: "omweso".into(),
        ruleset: "standard".into(),
        options: "reverse=all-laps,endless=void,okutema=on".into(),
        seeds: 64,
        board_width: 8,
        encoding: ValueEncoding::Score,
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.mtb");
    TableWriter::new(m.clone())
        .block_size(333)
        .write(&path, &values)
        .unwrap();
    let t = Table::open(&path).unwrap();
    assert_eq!(t.meta(), &m);
    assert_eq!(t.decode_all().unwrap(), values);
}

/// A table of several blocks, its bytes, and its header length.
fn sample(dir: &Path) -> (PathBuf, Vec<i8>, Vec<u8>) {
    let values = random_values(4 * BS as usize + 123, 3);
    let path = dir.join("t.mtb");
    write_small(&path, &values);
    let bytes = fs::read(&path).unwrap();
    (path, values, bytes)
}

fn header_len(bytes: &[u8]) -> usize {
    u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize
}

fn index_offset(bytes: &[u8]) -> usize {
    u64::from_le_bytes(bytes[24..32].try_into().unwrap()) as usize
}

/// Every probe of a damaged table gives the right value or an error.
fn never_wrong(path: &Path, values: &[i8]) -> usize {
    let t = Table::open(path).unwrap();
    let mut errors = 0;
    for (rank, &v) in values.iter().enumerate() {
        match t.get(rank as u64) {
            Ok(got) => assert_eq!(got, v, "wrong value at rank {rank}"),
            Err(e) => {
                assert!(e.to_string().contains(&path.display().to_string()));
                errors += 1;
            }
        }
    }
    errors
}

#[test]
fn damaged_header_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _, bytes) = sample(dir.path());
    for i in 0..header_len(&bytes) {
        for bit in [0x01, 0x80] {
            let mut damaged = bytes.clone();
            damaged[i] ^= bit;
            fs::write(&path, &damaged).unwrap();
            let err = Table::open(&path)
                .err()
                .unwrap_or_else(|| panic!("byte {i} accepted"));
            assert!(
                err.to_string().contains(&path.display().to_string()),
                "{err}"
            );
        }
    }
}

#[test]
fn damaged_block_gives_errors_not_wrong_values() {
    let dir = tempfile::tempdir().unwrap();
    let (path, values, bytes) = sample(dir.path());
    let (start, end) = (header_len(&bytes), index_offset(&bytes));
    let step = (end - start) / 40;
    for i in (start..end).step_by(step).chain([start, end - 1]) {
        let mut damaged = bytes.clone();
        damaged[i] ^= 0x10;
        fs::write(&path, &damaged).unwrap();
        assert!(never_wrong(&path, &values) > 0, "damage at {i} unnoticed");
        let t = Table::open(&path).unwrap();
        assert!(matches!(
            t.verify().map_err(|e| e.error),
            Err(TableError::PayloadChecksum)
        ));
    }
}

#[test]
fn damaged_block_with_fixed_payload_checksum_fails_block_checksum() {
    // Damage that also fixes up the payload checksum still cannot pass as data.
    let dir = tempfile::tempdir().unwrap();
    let (path, values, bytes) = sample(dir.path());
    let (start, end) = (header_len(&bytes), index_offset(&bytes));
    let mut damaged = bytes.clone();
    damaged[(start + end) / 2] ^= 0x04;
    let payload_crc = crc32fast::hash(&damaged[start..]);
    damaged[60..64].copy_from_slice(&payload_crc.to_le_bytes());
    let h = header_len(&damaged);
    let header_crc = crc32fast::hash(&damaged[..h - 4]);
    damaged[h - 4..h].copy_from_slice(&header_crc.to_le_bytes());
    fs::write(&path, &damaged).unwrap();
    assert!(never_wrong(&path, &values) > 0);
    let err = Table::open(&path).unwrap().verify().unwrap_err();
    assert!(
        matches!(
            err.error,
            TableError::BlockChecksum { .. } | TableError::BadBlock { .. }
        ),
        "{err}"
    );
}

#[test]
fn damaged_index_gives_errors_not_wrong_values() {
    let dir = tempfile::tempdir().unwrap();
    let (path, values, bytes) = sample(dir.path());
    for i in index_offset(&bytes)..bytes.len() {
        let mut damaged = bytes.clone();
        damaged[i] ^= 0x41;
        fs::write(&path, &damaged).unwrap();
        never_wrong(&path, &values);
        assert!(Table::open(&path).unwrap().verify().is_err(), "byte {i}");
    }
}

#[test]
fn truncated_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _, bytes) = sample(dir.path());
    let h = header_len(&bytes);
    for len in [0, 5, 8, 12, 20, h - 1, h, h + 10, bytes.len() - 1] {
        fs::write(&path, &bytes[..len]).unwrap();
        let err = Table::open(&path)
            .err()
            .unwrap_or_else(|| panic!("length {len} accepted"));
        assert!(
            matches!(err.error, TableError::Truncated { .. }),
            "length {len}: {err}"
        );
    }
    // Bytes appended after the index are refused too.
    let mut longer = bytes.clone();
    longer.push(0);
    fs::write(&path, &longer).unwrap();
    assert!(matches!(
        Table::open(&path).map_err(|e| e.error),
        Err(TableError::BadHeader { .. })
    ));
}

#[test]
fn foreign_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scores.12");
    for content in [
        b"hello, world\n".to_vec(),
        random_values(10_000, 5).iter().map(|&v| v as u8).collect(),
        vec![0; 100],
    ] {
        fs::write(&path, content).unwrap();
        let err = Table::open(&path).err().unwrap();
        assert!(matches!(err.error, TableError::NotATable), "{err}");
        assert!(err.to_string().contains("scores.12"), "{err}");
    }
    let missing = dir.path().join("missing");
    assert!(matches!(
        Table::open(&missing).map_err(|e| e.error),
        Err(TableError::NotFound)
    ));
}

#[test]
fn other_version_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _, mut bytes) = sample(dir.path());
    bytes[8..12].copy_from_slice(&2u32.to_le_bytes());
    fs::write(&path, &bytes).unwrap();
    assert!(matches!(
        Table::open(&path).map_err(|e| e.error),
        Err(TableError::UnsupportedVersion { version: 2, .. })
    ));
}

/// A coding id no build knows, in a header whose checksum holds: the error
/// says a newer build wrote it, not that the file is damaged.
#[test]
fn unknown_codings_are_refused_as_newer() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _, bytes) = sample(dir.path());
    for (what, at) in [("value encoding", 64), ("block coding", 65)] {
        fs::write(&path, forge_header(&bytes, |b| b[at] = 200)).unwrap();
        let err = Table::open(&path).unwrap_err();
        assert!(
            matches!(err.error, TableError::UnknownCoding { what: w, id: 200 } if w == what),
            "{err}"
        );
        assert!(err.to_string().contains("newer mancala-tb"), "{err}");
    }
}

#[test]
fn expected_meta_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let (path, values, _) = sample(dir.path());
    let t = Table::open(&path).unwrap();
    t.expect_meta(&meta()).unwrap();
    t.expect_len(values.len() as u64).unwrap();
    let other = TableMeta {
        ruleset: "abapa".into(),
        ..meta()
    };
    match t.expect_meta(&other).map_err(|e| e.error) {
        Err(TableError::MetaMismatch {
            field,
            expected,
            found,
        }) => {
            assert_eq!((field, &*expected, &*found), ("ruleset", "abapa", "awari"));
        }
        other => panic!("{other:?}"),
    }
    let err = t.expect_len(7).unwrap_err();
    assert!(matches!(
        err.error,
        TableError::MetaMismatch {
            field: "position count",
            ..
        }
    ));
}

#[test]
fn concurrent_probes_agree() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Table>();

    let values = random_values(20 * BS as usize + 7, 11);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.mtb");
    write_small(&path, &values);
    // A cache smaller than the table, so threads race on misses and evictions.
    let t = Table::open_with_cache(&path, 6).unwrap();
    std::thread::scope(|s| {
        for thread in 0..8u64 {
            let (t, values) = (&t, &values);
            s.spawn(move || {
                let mut x = thread * 7919 + 1;
                for _ in 0..20_000 {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let rank = (x >> 33) % values.len() as u64;
                    assert_eq!(t.get(rank).unwrap(), values[rank as usize]);
                }
            });
        }
    });
}

#[test]
fn failed_write_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    // The final name is taken by a non-empty directory: the rename fails
    // after the temporary file was written and verified.
    let path = dir.path().join("t.mtb");
    fs::create_dir(&path).unwrap();
    fs::write(path.join("keep"), b"x").unwrap();
    let err = TableWriter::new(meta())
        .block_size(BS)
        .write(&path, &random_values(5000, 1))
        .unwrap_err();
    assert!(err.to_string().contains("t.mtb"), "{err}");
    assert!(path.join("keep").exists());
    let names: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["t.mtb"], "temporary file removed");

    // A missing directory fails before anything is written.
    let nowhere = dir.path().join("no/such/dir/t.mtb");
    assert!(write_table(&nowhere, &meta(), &[1, 2, 3]).is_err());
    assert!(!nowhere.exists());
}

#[test]
fn failed_rewrite_keeps_the_old_table() {
    let dir = tempfile::tempdir().unwrap();
    let (path, values, _) = sample(dir.path());
    let bad = TableWriter::new(meta())
        .block_size(0)
        .write(&path, &[1, 2, 3]);
    assert!(matches!(
        bad.map_err(|e| e.error),
        Err(TableError::InvalidInput { .. })
    ));
    assert_eq!(Table::open(&path).unwrap().decode_all().unwrap(), values);
}

#[test]
fn rewrite_replaces_an_open_table() {
    let dir = tempfile::tempdir().unwrap();
    let (path, values, _) = sample(dir.path());
    let old = Table::open(&path).unwrap();
    let new_values = structured_values(2500);
    write_small(&path, &new_values);
    // The old map still reads the old (renamed-over) file.
    assert_eq!(old.decode_all().unwrap(), values);
    assert_eq!(
        Table::open(&path).unwrap().decode_all().unwrap(),
        new_values
    );
}

#[test]
fn pushing_in_pieces_writes_the_same_file() {
    let values = random_values(BS as usize * 700 + 17, 9); // several batches
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole.mtb");
    let pieces = dir.path().join("pieces.mtb");
    let writer = TableWriter::new(meta()).block_size(BS).level(3);
    writer.write(&whole, &values).unwrap();
    let mut table = writer.create(&pieces).unwrap();
    let mut rest = &values[..];
    for size in [0, 1, 999, 1001, 300_000, 5].into_iter().cycle() {
        if rest.is_empty() {
            break;
        }
        let (piece, tail) = rest.split_at(size.min(rest.len()));
        table.push(piece).unwrap();
        rest = tail;
    }
    assert!(!pieces.exists(), "nothing at the final name before finish");
    table.finish().unwrap();
    assert_eq!(fs::read(&whole).unwrap(), fs::read(&pieces).unwrap());
}

#[test]
fn values_filled_on_demand_write_the_same_file_as_pushed_ones() {
    // Scores of 12 seeds, and one value the context model cannot code (its
    // table falls back to zstd), each in both codings.
    let scores: Vec<i8> = random_values(BS as usize * 300 + 17, 4)
        .iter()
        .map(|v| v % 13)
        .collect();
    let mut uncodable: Vec<i8> = scores.clone();
    uncodable[5] = 100;
    let dir = tempfile::tempdir().unwrap();
    for (k, values) in [scores, uncodable].iter().enumerate() {
        for writer in [
            TableWriter::new(meta()),
            TableWriter::new(meta()).context_coded(),
        ] {
            let writer = writer.block_size(BS).level(3);
            let (pushed, filled) = (dir.path().join("pushed.mtb"), dir.path().join("filled.mtb"));
            writer.write(&pushed, values).unwrap();
            let fill = |first: usize, out: &mut [i8]| {
                out.copy_from_slice(&values[first..first + out.len()]);
            };
            let table = writer.create(&filled).unwrap();
            table.finish_from(values.len(), fill).unwrap();
            assert_eq!(
                fs::read(&pushed).unwrap(),
                fs::read(&filled).unwrap(),
                "values {k}"
            );
            // Pushed in pieces across the writer's batches (256 blocks),
            // whose context model is counted as they come.
            let pieces = dir.path().join("pieces.mtb");
            let mut table = writer.create(&pieces).unwrap();
            let mut rest = &values[..];
            for len in [1, 7, BS as usize * 255, BS as usize * 2 + 5, 3] {
                table.push(&rest[..len]).unwrap();
                rest = &rest[len..];
            }
            table.push(rest).unwrap();
            table.finish().unwrap();
            assert_eq!(
                fs::read(&pushed).unwrap(),
                fs::read(&pieces).unwrap(),
                "values {k} in pieces"
            );
        }
    }
}

#[test]
fn unfinished_table_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.mtb");
    let mut table = TableWriter::new(meta()).create(&path).unwrap();
    table.push(&random_values(100_000, 2)).unwrap();
    drop(table);
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// Rewrites header bytes and fixes the header checksum, as a buggy writer would.
fn forge_header(bytes: &[u8], patch: impl FnOnce(&mut [u8])) -> Vec<u8> {
    let mut forged = bytes.to_vec();
    patch(&mut forged);
    let h = header_len(&forged);
    let crc = crc32fast::hash(&forged[..h - 4]);
    forged[h - 4..h].copy_from_slice(&crc.to_le_bytes());
    forged
}

#[test]
fn inconsistent_header_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _, bytes) = sample(dir.path());
    let patches: [(&str, usize, Vec<u8>); 8] = [
        ("file length", 16, 1u64.to_le_bytes().into()),
        ("index offset", 24, 100u64.to_le_bytes().into()),
        ("positions", 32, u64::MAX.to_le_bytes().into()),
        ("block count", 40, 6u64.to_le_bytes().into()),
        ("block size 0", 48, 0u32.to_le_bytes().into()),
        ("block size huge", 48, u32::MAX.to_le_bytes().into()),
        ("string length", 66, 1000u16.to_le_bytes().into()),
        ("game not UTF-8", 72, vec![0xff]),
    ];
    for (what, at, patch) in patches {
        let forged = forge_header(&bytes, |b| b[at..at + patch.len()].copy_from_slice(&patch));
        fs::write(&path, forged).unwrap();
        let err = Table::open(&path)
            .err()
            .unwrap_or_else(|| panic!("{what} accepted"));
        assert!(
            matches!(
                err.error,
                TableError::BadHeader { .. } | TableError::Truncated { .. }
            ),
            "{what}: {err}"
        );
    }
}

#[test]
fn forged_index_entry_gives_an_error() {
    // An index entry pointing outside the data, with both checksums fixed up.
    let dir = tempfile::tempdir().unwrap();
    let (path, values, bytes) = sample(dir.path());
    let at = index_offset(&bytes) + 16; // block 1
    for offset in [0u64, u64::MAX - 3, bytes.len() as u64] {
        let mut forged = bytes.clone();
        forged[at..at + 8].copy_from_slice(&offset.to_le_bytes());
        let payload_crc = crc32fast::hash(&forged[header_len(&forged)..]);
        let forged = forge_header(&forged, |b| {
            b[60..64].copy_from_slice(&payload_crc.to_le_bytes())
        });
        fs::write(&path, forged).unwrap();
        let t = Table::open(&path).unwrap();
        assert!(matches!(
            t.get(BS.into()).map_err(|e| e.error),
            Err(TableError::BadBlock { block: 1, .. })
        ));
        assert!(t.verify().is_err());
        assert_eq!(t.get(0).unwrap(), values[0]);
    }
}

#[test]
fn directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let err = Table::open(dir.path()).err().unwrap();
    assert!(
        err.to_string().contains(&dir.path().display().to_string()),
        "{err}"
    );
}

/// A reader written from the layout table in the `table` module docs alone.
#[test]
fn documented_layout_is_readable_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let (_, values, f) = sample(dir.path());
    let u16_at = |at: usize| u16::from_le_bytes(f[at..at + 2].try_into().unwrap()) as usize;
    let u32_at = |at: usize| u32::from_le_bytes(f[at..at + 4].try_into().unwrap());
    let u64_at = |at: usize| u64::from_le_bytes(f[at..at + 8].try_into().unwrap());

    assert_eq!(&f[0..8], b"\x89MTB\r\n\x1a\n");
    assert_eq!(u32_at(8), 1);
    let header_len = u32_at(12) as usize;
    assert_eq!(header_len % 8, 0);
    assert_eq!(
        u32_at(header_len - 4),
        crc32fast::hash(&f[..header_len - 4])
    );
    assert_eq!(u64_at(16), f.len() as u64);
    let (index_offset, positions) = (u64_at(24) as usize, u64_at(32) as usize);
    let (block_count, block_size) = (u64_at(40) as usize, u32_at(48) as usize);
    assert_eq!(
        (positions, block_count),
        (values.len(), positions.div_ceil(block_size))
    );
    assert_eq!(index_offset, f.len() - 16 * block_count);
    assert_eq!((u32_at(52), u32_at(56)), (12, 6));
    assert_eq!(u32_at(60), crc32fast::hash(&f[header_len..]));
    assert_eq!((f[64], f[65]), (1, 0));
    let (g, r, o) = (u16_at(66), u16_at(68), u16_at(70));
    assert_eq!(&f[72..72 + g], b"oware");
    assert_eq!(&f[72 + g..72 + g + r], b"awari");
    assert_eq!(o, 0);

    let mut next = header_len;
    for (i, expected) in values.chunks(block_size).enumerate() {
        let entry = index_offset + 16 * i;
        let (offset, len, crc) = (
            u64_at(entry) as usize,
            u32_at(entry + 8) as usize,
            u32_at(entry + 12),
        );
        assert_eq!(offset, next);
        let decoded = zstd::bulk::decompress(&f[offset..offset + len], block_size).unwrap();
        assert_eq!(crc32fast::hash(&decoded), crc);
        assert_eq!(
            decoded,
            expected.iter().map(|&v| v as u8).collect::<Vec<u8>>()
        );
        next += len;
    }
    assert_eq!(next, index_offset);
}

#[test]
fn two_byte_values_round_trip_and_are_read_only_as_such() {
    let wide = TableMeta {
        encoding: ValueEncoding::WdlDistance,
        ..meta()
    };
    let values: Vec<i16> = random_values(3 * BS as usize + 7, 5)
        .iter()
        .enumerate()
        .map(|(i, &v)| i16::from(v) * 3 + if i % 5 == 0 { 400 } else { -300 })
        .chain([i16::MIN, i16::MAX, -1, 0, 256, -256])
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.mtb");
    let writer = TableWriter::new(wide.clone()).block_size(BS);
    writer.write_wide(&path, &values).unwrap();
    let t = Table::open(&path).unwrap();
    assert_eq!(t.meta(), &wide);
    t.verify().unwrap();
    assert_eq!(t.decode_all_wide().unwrap(), values);
    for (rank, &v) in values.iter().enumerate() {
        assert_eq!(t.get_wide(rank as u64).unwrap(), v, "rank {rank}");
    }
    let err = t.get(0).unwrap_err().to_string();
    assert!(err.contains("holds 2-byte values"), "{err}");
    assert!(t.decode_all().is_err());

    // One-byte tables read widened; values of the wrong width are refused.
    let narrow = random_values(2500, 9);
    write_small(&path, &narrow);
    let t = Table::open(&path).unwrap();
    let widened: Vec<i16> = narrow.iter().map(|&v| i16::from(v)).collect();
    assert_eq!(t.decode_all_wide().unwrap(), widened);
    assert_eq!(t.get_wide(17).unwrap(), i16::from(narrow[17]));
    let err = writer.write(&path, &narrow).unwrap_err().to_string();
    assert!(
        err.contains("1-byte values for the 2-byte encoding"),
        "{err}"
    );

    // A flipped byte in the two-byte data is caught.
    writer.write_wide(&path, &values).unwrap();
    let mut bytes = fs::read(&path).unwrap();
    let at = header_len(&bytes) + 40;
    bytes[at] ^= 0x10;
    fs::write(&path, &bytes).unwrap();
    assert!(Table::open(&path).unwrap().verify().is_err());
}
