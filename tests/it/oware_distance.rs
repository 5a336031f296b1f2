//! The promise of the distance tables: from every position of layers
//! 0..=14, both rulesets, the line of best moves (`best_move`, as the
//! principal variation and `play` choose them), followed to the end of the
//! game or to a repetition, wins exactly the position's value.
//!
//! Lines are followed over decoded layers, each position's line once: a
//! line inside a layer is quiet moves, so it scores what ends it (a capture,
//! whose lower layer is checked first, the end of the game, or a repetition,
//! worth 0), with the sign of whoever moves there.

use mancala_tb::games::oware::{self, Ruleset};
use mancala_tb::index::oware as index;
use mancala_tb::table::Table;
use mancala_tb::tablebase::Quiet;
use mancala_tb::tablebase::oware::{self as tb, MoveValue, best_move, distance_path};

const MAX_SEEDS: usize = 14;

fn lines_reach_their_values(rules: Ruleset) {
    let dir = tempfile::tempdir().unwrap();
    tb::build(
        dir.path(),
        rules,
        &tb::BuildOptions::new(MAX_SEEDS, 4 << 30),
        &Quiet,
    )
    .unwrap();
    let mut values: Vec<Vec<i8>> = Vec::new();
    tb::decode_layers(dir.path(), rules, MAX_SEEDS, |_, layer| {
        values.push(layer.to_vec());
        Ok(())
    })
    .unwrap();
    let folder = tb::ruleset_dir(dir.path(), rules);
    let distances: Vec<Vec<i16>> = (0..=MAX_SEEDS)
        .map(|s| {
            Table::open(distance_path(&folder, s))
                .unwrap()
                .decode_all_wide()
                .unwrap()
        })
        .collect();
    for seeds in 0..=MAX_SEEDS {
        let size = index::layer_size(seeds) as usize;
        // What the line from each position wins for its mover, once known.
        let mut won: Vec<Option<i32>> = vec![None; size];
        for start in 0..size {
            let mut path = Vec::new();
            let mut rank = start;
            let end = loop {
                if let Some(w) = won[rank] {
                    // A child whose line is known: the opponent's gain.
                    break -w;
                }
                if path.contains(&rank) {
                    break 0;
                }
                path.push(rank);
                let board = index::unrank(seeds, rank as u64);
                let moves: Vec<MoveValue> = oware::legal_moves(rules, &board)
                    .iter()
                    .map(|mv| {
                        let rest = seeds - mv.captured as usize;
                        let child = index::rank_indexed(&mv.child, rest) as usize;
                        MoveValue {
                            pit: mv.pit,
                            captured: mv.captured,
                            child: mv.child,
                            value: mv.captured as i8 - values[rest][child],
                            distance: Some(match mv.captured {
                                0 => distances[rest][child] as u16 + 1,
                                _ => 1,
                            }),
                        }
                    })
                    .collect();
                let Some(best) = best_move(&moves) else {
                    break i32::from(oware::no_move_value(rules, &board));
                };
                // The best move keeps the position's distance: each quiet
                // step of a line brings its capture one move nearer.
                if values[seeds][rank] != 0 {
                    let distance = distances[seeds][rank] as u16;
                    assert_eq!(best.distance, Some(distance), "{rules}: {board:?}");
                }
                if best.captured > 0 {
                    // The lower layer's lines win their values (checked).
                    break i32::from(best.value);
                }
                rank = index::rank_indexed(&best.child, seeds) as usize;
            };
            // `end` is what the line from the last position of `path` wins
            // for its mover (0 from a repetition on); each earlier one is a
            // quiet move away.
            let mut w = end;
            for &rank in path.iter().rev() {
                won[rank].get_or_insert(w);
                w = -w;
            }
        }
        for (rank, w) in won.iter().enumerate() {
            assert_eq!(
                *w,
                Some(i32::from(values[seeds][rank])),
                "{rules}: the line from {:?} ({seeds} seeds) does not win its value",
                index::unrank(seeds, rank as u64)
            );
        }
    }
}

#[test]
fn awari_lines_reach_their_values_from_every_position_up_to_14_seeds() {
    lines_reach_their_values(Ruleset::Awari);
}

#[test]
fn abapa_lines_reach_their_values_from_every_position_up_to_14_seeds() {
    lines_reach_their_values(Ruleset::Abapa);
}

/// Rewrites layer `seeds`'s distance table with `options` and one distance
/// changed by `change` at rank `rank`.
fn rewrite_distances(
    dir: &std::path::Path,
    seeds: usize,
    options: Option<String>,
    rank: usize,
    change: i16,
) {
    let path = distance_path(&tb::ruleset_dir(dir, Ruleset::Awari), seeds);
    let table = Table::open(&path).unwrap();
    let mut meta = table.meta().clone();
    let mut distances = table.decode_all_wide().unwrap();
    drop(table);
    if let Some(options) = options {
        meta.options = options;
    }
    distances[rank] += change;
    mancala_tb::table::TableWriter::new(meta)
        .write_wide(&path, &distances)
        .unwrap();
}

#[test]
fn distance_tables_of_other_values_or_inconsistent_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    tb::build(
        dir.path(),
        Ruleset::Awari,
        &tb::BuildOptions::new(8, 1 << 30),
        &Quiet,
    )
    .unwrap();
    let folder = tb::ruleset_dir(dir.path(), Ruleset::Awari);
    let values_crc = Table::open(folder.join("scores.8.mtb"))
        .unwrap()
        .payload_crc();
    let board = [1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 0, 0];
    let tables = tb::OwareTablebase::open(dir.path(), Ruleset::Awari).unwrap();
    assert!(tables.distance(&board).unwrap().is_some());

    // Built from other values: refused on probing and by verify, naming both files.
    let other = mancala_tb::table::distance_options("", values_crc ^ 1);
    rewrite_distances(dir.path(), 8, Some(other), 0, 0);
    let tables = tb::OwareTablebase::open(dir.path(), Ruleset::Awari).unwrap();
    let error = tables.distance(&board).unwrap_err().to_string();
    assert!(
        error.contains("distance.8.mtb") && error.contains("scores.8.mtb"),
        "{error}"
    );
    let verified = tb::verify(
        dir.path(),
        Ruleset::Awari,
        &tb::VerifyOptions::new(8),
        &|_| {},
    );
    assert!(verified.unwrap_err().to_string().contains("other values"));

    // One distance off: verify names the table and the position.
    let right = mancala_tb::table::distance_options("", values_crc);
    let rank = (0..index::layer_size(8) as usize)
        .find(|&r| tables.value(&index::unrank(8, r as u64)).unwrap() > 0)
        .unwrap();
    rewrite_distances(dir.path(), 8, Some(right), rank, 1);
    let error = tb::verify(
        dir.path(),
        Ruleset::Awari,
        &tb::VerifyOptions::new(8),
        &|_| {},
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("distance.8.mtb") && error.contains(&format!("rank {rank}")),
        "{error}"
    );

    // A missing one: probes answer without distances, and a rerun adds it.
    std::fs::remove_file(distance_path(&folder, 8)).unwrap();
    let tables = tb::OwareTablebase::open(dir.path(), Ruleset::Awari).unwrap();
    assert_eq!(tables.distance(&board).unwrap(), None);
    assert_eq!(tables.layers_without_distances(), vec![8]);
    tb::build(
        dir.path(),
        Ruleset::Awari,
        &tb::BuildOptions::new(8, 1 << 30),
        &Quiet,
    )
    .unwrap();
    let tables = tb::OwareTablebase::open(dir.path(), Ruleset::Awari).unwrap();
    assert!(tables.layers_without_distances().is_empty());
    tb::verify(
        dir.path(),
        Ruleset::Awari,
        &tb::VerifyOptions::new(8),
        &|_| {},
    )
    .unwrap();
}

/// The distances the in-memory engine finds as it builds a layer are those
/// of the distance pass over the finished layer (a rerun adding them to
/// tables built without): the same tables, byte for byte, on every layer
/// 0..=14 of both rulesets.
#[test]
fn distances_found_while_building_are_those_of_the_distance_pass() {
    for rules in Ruleset::ALL {
        let (found, added) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let options = tb::BuildOptions::new(MAX_SEEDS, 4 << 30);
        tb::build(found.path(), rules, &options, &Quiet).unwrap();
        let without = tb::BuildOptions {
            distances: false,
            ..options.clone()
        };
        tb::build(added.path(), rules, &without, &Quiet).unwrap();
        let (found, added) = (
            tb::ruleset_dir(found.path(), rules),
            tb::ruleset_dir(added.path(), rules),
        );
        assert!(!distance_path(&added, MAX_SEEDS).exists());
        tb::build(added.parent().unwrap(), rules, &options, &Quiet).unwrap();
        for seeds in 0..=MAX_SEEDS {
            for path in [tb::table_path, distance_path] {
                let (a, b) = (path(&found, seeds), path(&added, seeds));
                assert!(
                    std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap(),
                    "{} differs from {}",
                    a.display(),
                    b.display()
                );
            }
        }
    }
}

/// The published files of layers 0..=14, imported into a new folder (from
/// the top down: the layers below need not be there), get from a build
/// the value and distance tables of a build from scratch, byte for byte.
/// A layer re-imported beside a distance table built from other values
/// (its value table's other bytes, and one distance off) has that table
/// refused, naming the build that finds it again, and the build does.
#[test]
fn imported_published_files_get_the_distance_tables_of_a_build_from_scratch() {
    let rules = Ruleset::Awari;
    let (built, published, imported) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let options = tb::BuildOptions::new(MAX_SEEDS, 4 << 30);
    tb::build(built.path(), rules, &options, &Quiet).unwrap();
    let file = |seeds: usize| published.path().join(format!("scores.{seeds}"));
    for seeds in (0..=MAX_SEEDS).rev() {
        tb::export(built.path(), rules, seeds, &file(seeds)).unwrap();
        tb::import(imported.path(), rules, seeds, &file(seeds)).unwrap();
    }
    let tables = tb::OwareTablebase::open(imported.path(), rules).unwrap();
    assert_eq!(
        tables.layers_without_distances(),
        (0..=MAX_SEEDS).collect::<Vec<_>>()
    );
    let (built, imported) = (
        tb::ruleset_dir(built.path(), rules),
        tb::ruleset_dir(imported.path(), rules),
    );
    let same_as_built = || {
        for seeds in 0..=MAX_SEEDS {
            for path in [tb::table_path, distance_path] {
                let (a, b) = (path(&built, seeds), path(&imported, seeds));
                assert!(
                    std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap(),
                    "{} differs from {}",
                    a.display(),
                    b.display()
                );
            }
        }
    };
    let dir = imported.parent().unwrap();
    tb::build(dir, rules, &options, &Quiet).unwrap();
    same_as_built();

    let crc = Table::open(tb::table_path(&imported, MAX_SEEDS))
        .unwrap()
        .payload_crc();
    let stale = mancala_tb::table::distance_options("", crc ^ 1);
    rewrite_distances(dir, MAX_SEEDS, Some(stale), 0, 1);
    std::fs::remove_file(tb::table_path(&imported, MAX_SEEDS)).unwrap();
    tb::import(dir, rules, MAX_SEEDS, &file(MAX_SEEDS)).unwrap();
    let board = index::unrank(MAX_SEEDS, 0);
    let tables = tb::OwareTablebase::open(dir, rules).unwrap();
    let error = tables.distance(&board).unwrap_err().to_string();
    let command = format!(
        "`mancala-tb build oware --rules awari --max-seeds {MAX_SEEDS} --dir {}`",
        dir.display()
    );
    assert!(
        error.contains("other values") && error.contains(&command),
        "{error}"
    );
    tb::build(dir, rules, &options, &Quiet).unwrap();
    same_as_built();
}
