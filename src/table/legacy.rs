//! Block codings 1 to 3, which builds wrote before coding 4: read only.
//! This module tests that tables of those codings still open and probe as
//! they did, through the
//! same decoder as coding 4 with their own stream layouts
//! ([`BlockCoding::streams`](super::BlockCoding::streams)); nothing
//! writes them ([`TableWriter`](super::TableWriter) writes zstd or coding
//! 4). The layouts, byte by byte: `docs/format.md`.
//!
//! Why they differ from coding 4: coding 1 checks a stream by its end, so a
//! probe decodes it whole; coding 2 leads each stream with a CRC-32 of its
//! bytes, but two lanes at a scale of 2¹⁰ (larger slot tables, twice the
//! steps to a value); coding 3 has coding 4's four lanes, scale and placed
//! CRCs, without the tails that save 6 bytes a stream.

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::{
        BlockCoding, CAPTURE_DECIDES, Table, TableMeta, TableWriter, ValueEncoding,
    };
    use crate::games::oware::Ruleset;
    use crate::index::oware as index;
    use crate::tablebase::Quiet;
    use crate::tablebase::oware as tb;

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

    /// The solver's values of the awari layers up to `MAX_SEEDS`, built in `dir`.
    fn built_layers(dir: &Path) -> Vec<Vec<i8>> {
        tb::build(
            dir,
            Ruleset::Awari,
            &tb::BuildOptions::new(MAX_SEEDS, 4 << 30),
            &Quiet,
        )
        .unwrap();
        let mut layers = Vec::new();
        tb::decode_layers(dir, Ruleset::Awari, MAX_SEEDS, |_, values| {
            layers.push(values.to_vec());
            Ok(())
        })
        .unwrap();
        layers
    }

    #[test]
    fn every_position_round_trips_with_marks_and_odd_block_sizes() {
        let dir = tempfile::tempdir().unwrap();
        let layers = built_layers(dir.path());
        for seeds in [0, 1, 7, MAX_SEEDS] {
            let mut values = layers[seeds].clone();
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
}
