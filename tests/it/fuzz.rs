//! Fuzz-style property tests: random and mutated inputs to the table reader
//! and the position parsers give an error or the right answer, never a
//! panic and never a wrong value.

use mancala_tb::games::{engehe, omweso, oware};
use mancala_tb::table::{Table, TableMeta, TableWriter, ValueEncoding};
use proptest::prelude::*;

fn meta() -> TableMeta {
    TableMeta {
        game: "oware".into(),
        ruleset: "awari".into(),
        options: "".into(),
        seeds: 5,
        board_width: 6,
        encoding: ValueEncoding::Score,
    }
}

/// One byte changed: its position (a fraction of the file) and new value.
#[derive(Clone, Debug)]
enum Mutation {
    Set(f64, u8),
    Truncate(f64),
    Append(Vec<u8>),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (0.0..1.0f64, any::<u8>()).prop_map(|(at, b)| Mutation::Set(at, b)),
        1 => (0.0..1.0f64).prop_map(Mutation::Truncate),
        1 => prop::collection::vec(any::<u8>(), 1..16).prop_map(Mutation::Append),
    ]
}

fn mutate(bytes: &mut Vec<u8>, m: &Mutation) {
    let at = |f: f64, len: usize| ((f * len as f64) as usize).min(len.saturating_sub(1));
    match m {
        // A file already cut to nothing has no byte to set.
        Mutation::Set(f, b) => {
            let i = at(*f, bytes.len());
            if let Some(byte) = bytes.get_mut(i) {
                *byte = *b;
            }
        }
        Mutation::Truncate(f) => bytes.truncate(at(*f, bytes.len())),
        Mutation::Append(extra) => bytes.extend_from_slice(extra),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// A table with bytes changed, cut short or lengthened reads as an
    /// error or as exactly the values written, by rank and as a whole.
    #[test]
    fn a_mutated_table_gives_errors_or_the_written_values(
        values in prop::collection::vec(-48i8..=48, 1..3000),
        block_size in 64u32..1024,
        mutations in prop::collection::vec(mutation(), 1..4),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.mtb");
        TableWriter::new(meta()).block_size(block_size).write(&path, &values).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        for m in &mutations {
            mutate(&mut bytes, m);
        }
        std::fs::write(&path, &bytes).unwrap();
        if let Ok(table) = Table::open(&path) {
            for (rank, &v) in values.iter().enumerate().step_by(7) {
                if let Ok(got) = table.get(rank as u64) {
                    prop_assert_eq!(got, v, "rank {}", rank);
                }
            }
            if let Ok(all) = table.decode_all() {
                prop_assert_eq!(all, values);
            }
        }
    }

    /// Random bytes are never a table.
    #[test]
    fn random_bytes_are_not_a_table(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.mtb");
        std::fs::write(&path, &bytes).unwrap();
        prop_assert!(Table::open(&path).is_err());
    }

    /// Oware pit counts: a board exactly when there are 12 holding at most
    /// 48 seeds, and then the same counts.
    #[test]
    fn oware_boards_parse_exactly_the_valid_counts(
        pits in prop_oneof![
            3 => prop::collection::vec(prop_oneof![6 => 0u32..5, 1 => any::<u32>()], 12),
            1 => prop::collection::vec(0u32..5, 0..16),
        ],
    ) {
        let total: u64 = pits.iter().map(|&p| u64::from(p)).sum();
        match oware::parse_board(&pits) {
            Ok(board) => {
                prop_assert!(pits.len() == oware::PITS && total <= oware::MAX_SEEDS as u64);
                prop_assert!(board.iter().zip(&pits).all(|(&b, &p)| u32::from(b) == p));
            }
            Err(_) => prop_assert!(pits.len() != oware::PITS || total > oware::MAX_SEEDS as u64),
        }
    }

    /// Omweso and En Gehé positions: any width and counts give an error or
    /// a position holding those counts.
    #[test]
    fn relay_positions_parse_exactly_the_valid_counts(
        (width, pits) in (0usize..12).prop_flat_map(|w| {
            // Mostly the lengths the games take (2W, 4W), sometimes any.
            let len = prop_oneof![Just(2 * w), Just(4 * w), 0..40usize];
            let pit = prop_oneof![4 => 0u32..4, 1 => any::<u32>()];
            (Just(w), len.prop_flat_map(move |n| prop::collection::vec(pit.clone(), n)))
        }),
    ) {
        let total: u64 = pits.iter().map(|&p| u64::from(p)).sum();
        if let Ok(pos) = omweso::Position::new(width, &pits) {
            prop_assert_eq!(pits.len(), 4 * width);
            prop_assert_eq!(u64::from(pos.seeds()), total);
            prop_assert!(pos.pits().iter().zip(&pits).all(|(&b, &p)| u32::from(b) == p));
        }
        if let Ok(pos) = engehe::Position::new(width, &pits) {
            prop_assert_eq!(pits.len(), 2 * width);
            prop_assert_eq!(pos.counters() as u64, total);
            prop_assert!(pos.holes().iter().zip(&pits).all(|(&b, &p)| u32::from(b) == p));
        }
    }
}
