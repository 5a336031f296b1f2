//! The context codings of scores (block codings 1 to 4; builds write 4):
//! real Oware layers decode to exactly the solver's values, one value, a
//! sorted batch or a whole layer alike, and damage never gives a wrong value.

use std::path::Path;

use mancala_tb::games::oware::Ruleset;
use mancala_tb::index::oware as index;
use mancala_tb::table::{
    BlockCoding, CAPTURE_DECIDES, Table, TableMeta, TableWriter, ValueEncoding,
};
use mancala_tb::tablebase::Quiet;
use mancala_tb::tablebase::oware as tb;

const MAX_SEEDS: usize = 11;
/// Codings 1 to 3 (tables built before coding 4 must still read) and 4.
const CODINGS: [BlockCoding; 4] = [
    BlockCoding::ScoreContext,
    BlockCoding::ScoreContextCrc,
    BlockCoding::ScoreContextCrc4,
    BlockCoding::ScoreContextTails,
];

fn meta(seeds: usize, encoding: ValueEncoding) -> TableMeta {
    TableMeta {
        game: "oware".into(),
        ruleset: "awari".into(),
        options: String::new(),
        seeds: seeds as u32,
        board_width: 6,
        encoding,
    }
}

/// A built folder (context coded, the default) with the solver's values
/// beside it in the published format.
fn built() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let options = tb::BuildOptions {
        keep_raw: true,
        ..tb::BuildOptions::new(MAX_SEEDS, 4 << 30)
    };
    tb::build(dir.path(), Ruleset::Awari, &options, &Quiet).unwrap();
    dir
}

fn raw(dir: &Path, seeds: usize) -> Vec<i8> {
    let path = tb::ruleset_dir(dir, Ruleset::Awari).join(format!("scores.{seeds}"));
    std::fs::read(path)
        .unwrap()
        .into_iter()
        .map(|b| b as i8)
        .collect()
}

#[test]
fn built_layers_decode_to_the_solvers_values_and_beat_zstd() {
    let dir = built();
    let folder = tb::ruleset_dir(dir.path(), Ruleset::Awari);
    for seeds in 0..=MAX_SEEDS {
        let table = Table::open(tb::table_path(&folder, seeds)).unwrap();
        assert_eq!(
            table.coding(),
            BlockCoding::ScoreContextTails,
            "layer {seeds}"
        );
        table.verify().unwrap();
    }
    // Marks restored from the lower layers: the solver's values.
    tb::decode_layers(dir.path(), Ruleset::Awari, MAX_SEEDS, |seeds, values| {
        assert_eq!(values, &raw(dir.path(), seeds)[..], "layer {seeds}");
        Ok(())
    })
    .unwrap();
    let tables = tb::OwareTablebase::open(dir.path(), Ruleset::Awari).unwrap();
    let values = raw(dir.path(), MAX_SEEDS);
    let ranks: Vec<usize> = (0..values.len()).step_by(997).collect();
    let boards: Vec<_> = (ranks.iter())
        .map(|&rank| index::unrank(MAX_SEEDS, rank as u64))
        .collect();
    let batch = tables.probe_many(&boards, false).unwrap();
    for ((board, rank), probed) in boards.iter().zip(&ranks).zip(batch) {
        assert_eq!(tables.value(board).unwrap(), values[*rank], "rank {rank}");
        assert_eq!(probed.unwrap().value, values[*rank], "batch, rank {rank}");
    }
    // Smaller than zstd as builds wrote it before (level 6, 4 Ki blocks) on
    // the largest layer, which pays relatively more for its model than
    // large layers do: coding 3 here is 97% of zstd (95% on layer 20),
    // coding 2 93%; coding 3's two more lanes cost 8 bytes a stream.
    let path = tb::table_path(&folder, MAX_SEEDS);
    let table = Table::open(&path).unwrap();
    let zstd = dir.path().join("zstd.mtb");
    TableWriter::new(table.meta().clone())
        .level(6)
        .block_size(4096)
        .write(&zstd, &table.decode_all().unwrap())
        .unwrap();
    let size = |path: &Path| std::fs::metadata(path).unwrap().len();
    assert!(
        size(&path) * 100 < size(&zstd) * 98,
        "{} vs {}",
        size(&path),
        size(&zstd)
    );
}

#[test]
fn sorted_reads_decode_each_stream_once_and_agree_with_get() {
    let dir = built();
    let folder = tb::ruleset_dir(dir.path(), Ruleset::Awari);
    let table = Table::open(tb::table_path(&folder, MAX_SEEDS)).unwrap();
    let values = table.decode_all().unwrap();
    let block_size = u64::from(table.block_size());
    for block in [0, table.block_count() - 1] {
        let range = table.block_range(block);
        let mut ranks: Vec<(u64, i8)> = range.clone().step_by(37).map(|r| (r, 0)).collect();
        ranks.push((range.end - 1, 0));
        let at = |r: &(u64, i8)| (r.0 % block_size) as usize;
        table
            .read_sorted(block, &mut ranks, at, |r, v| r.1 = v)
            .unwrap();
        for (rank, value) in ranks {
            assert_eq!(value, values[rank as usize], "rank {rank}");
            assert_eq!(table.get(rank).unwrap(), value, "rank {rank}");
        }
    }
}

#[test]
fn every_position_round_trips_with_marks_and_odd_block_sizes() {
    let dir = built();
    for seeds in [0, 1, 7, MAX_SEEDS] {
        let mut values = raw(dir.path(), seeds);
        for v in values.iter_mut().step_by(3) {
            *v = CAPTURE_DECIDES;
        }
        for (coding, block_size) in CODINGS
            .iter()
            .flat_map(|&c| [1, 777, 4096, 1 << 15].map(|size| (c, size)))
        {
            let path = dir.path().join(format!("t{seeds}.{block_size}.mtb"));
            TableWriter::new(meta(seeds, ValueEncoding::ScoreOrCapture))
                .coding(coding)
                .block_size(block_size)
                .write(&path, &values)
                .unwrap();
            let table = Table::open(&path).unwrap();
            assert_eq!(table.coding(), coding);
            assert_eq!(
                table.decode_all().unwrap(),
                values,
                "{seeds} seeds, {coding:?}, {block_size}"
            );
            for rank in (0..values.len()).step_by(values.len() / 50 + 1) {
                assert_eq!(table.get(rank as u64).unwrap(), values[rank]);
            }
        }
    }
}

#[test]
fn values_the_model_cannot_code_fall_back_to_zstd() {
    let dir = tempfile::tempdir().unwrap();
    let seeds = 4;
    let size = index::layer_size(seeds) as usize;
    let mut values = vec![1i8; size];
    values[size / 2] = 100; // not a score of 4 seeds
    let path = dir.path().join("t.mtb");
    let writer =
        TableWriter::new(meta(seeds, ValueEncoding::Score)).coding(BlockCoding::ScoreContext);
    writer.write(&path, &values).unwrap();
    let table = Table::open(&path).unwrap();
    assert_eq!(table.coding(), BlockCoding::Zstd);
    assert_eq!(table.decode_all().unwrap(), values);
    // Not a whole layer: zstd too.
    writer.write(&path, &values[1..]).unwrap();
    assert_eq!(Table::open(&path).unwrap().coding(), BlockCoding::Zstd);
}

/// Values with structure and marks, like a real layer's.
fn structured(seeds: usize) -> Vec<i8> {
    (0..index::layer_size(seeds) as usize)
        .map(|i| match i % 7 {
            0 => CAPTURE_DECIDES,
            r => ((i / 100 + r) % 9) as i8 - 4,
        })
        .collect()
}

#[test]
fn a_flipped_byte_anywhere_is_caught_and_never_gives_a_wrong_value() {
    let dir = tempfile::tempdir().unwrap();
    let seeds = 8;
    let values = structured(seeds);
    for coding in CODINGS {
        let path = dir.path().join("t.mtb");
        TableWriter::new(meta(seeds, ValueEncoding::ScoreOrCapture))
            .coding(coding)
            .block_size(512)
            .write(&path, &values)
            .unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(Table::open(&path).unwrap().coding(), coding);
        let damaged = dir.path().join("d.mtb");
        for at in (0..bytes.len()).step_by(bytes.len() / 300 + 1) {
            let mut copy = bytes.clone();
            copy[at] ^= 0x04;
            std::fs::write(&damaged, &copy).unwrap();
            let Ok(table) = Table::open(&damaged) else {
                continue;
            };
            assert!(table.verify().is_err(), "{coding:?}: byte {at} not caught");
            for rank in (0..values.len()).step_by(97) {
                if let Ok(v) = table.get(rank as u64) {
                    assert_eq!(v, values[rank], "{coding:?}: byte {at} changed rank {rank}");
                }
            }
        }
    }
}

/// The stream CRCs of codings 3 and 4 cover the stream's place: a block index entry
/// that points at another block's stream (of the same length, so that
/// nothing else looks amiss) fails every probe of either block. Coding 2
/// reads the other block's values there.
#[test]
fn a_stream_read_from_another_block_fails_its_crc() {
    let dir = tempfile::tempdir().unwrap();
    let seeds = 8;
    let values = structured(seeds);
    let path = dir.path().join("t.mtb");
    // Blocks of one stream each.
    for coding in [
        BlockCoding::ScoreContextCrc,
        BlockCoding::ScoreContextCrc4,
        BlockCoding::ScoreContextTails,
    ] {
        TableWriter::new(meta(seeds, ValueEncoding::ScoreOrCapture))
            .coding(coding)
            .block_size(512)
            .write(&path, &values)
            .unwrap();
        let blocks = Table::open(&path).unwrap().block_count() as usize;
        let mut bytes = std::fs::read(&path).unwrap();
        let index = bytes.len() - 16 * blocks;
        let entry = |bytes: &[u8], b: usize| bytes[index + 16 * b..][..12].to_vec();
        let len = |entry: &[u8]| u32::from_le_bytes(entry[8..12].try_into().unwrap());
        // Two blocks of different values whose streams are as long.
        let (a, b) = (0..blocks)
            .flat_map(|a| (a + 1..blocks).map(move |b| (a, b)))
            .find(|&(a, b)| {
                len(&entry(&bytes, a)) == len(&entry(&bytes, b))
                    && values[a * 512..][..512] != values[b * 512..][..512]
            })
            .expect("two streams of one length");
        let (entry_a, entry_b) = (entry(&bytes, a), entry(&bytes, b));
        bytes[index + 16 * a..][..12].copy_from_slice(&entry_b);
        bytes[index + 16 * b..][..12].copy_from_slice(&entry_a);
        let swapped = dir.path().join("swapped.mtb");
        std::fs::write(&swapped, &bytes).unwrap();
        let table = Table::open(&swapped).unwrap();
        let read: Vec<_> = (a * 512..(a + 1) * 512)
            .map(|rank| table.get(rank as u64).ok())
            .collect();
        if coding != BlockCoding::ScoreContextCrc {
            assert!(read.iter().all(Option::is_none), "blocks {a} and {b}");
        } else {
            // The control: the swap does make coding 2 read wrong values.
            let theirs: Vec<_> = values[b * 512..][..512].iter().map(|&v| Some(v)).collect();
            assert_eq!(read, theirs, "coding 2 reads block {b}'s values");
        }
        assert!(table.verify().is_err());
    }
}

/// A probe of codings 2 to 4 decodes its stream only up to its value: a
/// changed byte anywhere in the stream must still fail it, never give a
/// value.
#[test]
fn a_flipped_byte_of_a_stream_fails_every_probe_of_it() {
    for coding in [
        BlockCoding::ScoreContextCrc,
        BlockCoding::ScoreContextCrc4,
        BlockCoding::ScoreContextTails,
    ] {
        a_flipped_byte_of_a_stream_fails_every_probe(coding);
    }
}

fn a_flipped_byte_of_a_stream_fails_every_probe(coding: BlockCoding) {
    let dir = tempfile::tempdir().unwrap();
    let seeds = 8;
    let path = dir.path().join("t.mtb");
    // Blocks of one stream each: a block's bytes are its stream's.
    TableWriter::new(meta(seeds, ValueEncoding::ScoreOrCapture))
        .coding(coding)
        .block_size(512)
        .write(&path, &structured(seeds))
        .unwrap();
    let blocks = Table::open(&path).unwrap().block_count();
    let bytes = std::fs::read(&path).unwrap();
    // The block index ends the file: per block its offset (u64) and length (u32).
    let index = bytes.len() - 16 * blocks as usize;
    let damaged = dir.path().join("d.mtb");
    for block in [0, blocks / 2, blocks - 1] {
        let entry = &bytes[index + 16 * block as usize..];
        let offset = u64::from_le_bytes(entry[..8].try_into().unwrap()) as usize;
        let len = u32::from_le_bytes(entry[8..12].try_into().unwrap()) as usize;
        for at in offset..offset + len {
            let mut copy = bytes.clone();
            copy[at] ^= 0x10;
            std::fs::write(&damaged, &copy).unwrap();
            let table = Table::open(&damaged).unwrap();
            for rank in table.block_range(block) {
                assert!(
                    table.get(rank).is_err(),
                    "{coding:?}: byte {at}, rank {rank}"
                );
            }
        }
    }
}
