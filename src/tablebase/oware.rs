//! Oware tablebases on disk: building a folder of layers and probing it.
//!
//! A tablebase folder holds one sub-folder per ruleset (`oware-awari`,
//! `oware-abapa`), each with one file per layer.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::games::oware::{self, Board, MAX_SEEDS, Ruleset};
use crate::index::oware as index;
use crate::solve::oware::{self as engine, LowerLayers, Outcomes};
use crate::table::raw::{self, RawError, RawLayer};

/// The folder of one ruleset's layers inside a tablebase folder.
pub fn ruleset_dir(dir: &Path, rules: Ruleset) -> PathBuf {
    dir.join(format!("oware-{}", rules.name()))
}

/// Errors of building and probing, with the file or command that helps.
#[derive(Debug, thiserror::Error)]
pub enum TablebaseError {
    #[error(
        "layer {seeds} of the {rules} tables is missing ({path} not found); build it with \
         `mancala-tb build oware --rules {rules} --max-seeds {seeds} --dir {dir}`"
    )]
    MissingLayer {
        rules: Ruleset,
        seeds: usize,
        path: PathBuf,
        dir: PathBuf,
    },
    #[error(transparent)]
    Layer(#[from] RawError),
    #[error("cannot create the tablebase folder {path}")]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: rank {rank} ({board:?}) holds {stored} but its moves give {expected}")]
    Inconsistent {
        path: PathBuf,
        rank: u64,
        board: Board,
        stored: i8,
        expected: i8,
    },
    #[error("cannot get {bytes} bytes of memory to build layer {seeds}")]
    Memory {
        seeds: usize,
        bytes: u64,
        source: std::io::Error,
    },
    #[error("Oware has {MAX_SEEDS} seeds; layers above that do not exist (asked for {0})")]
    TooManySeeds(usize),
}

/// Reports the progress of a build (the CLI draws bars; tests ignore it).
pub trait BuildObserver: Sync {
    fn layer_started(&self, _seeds: usize, _positions: u64) {}
    /// Work steps done; a layer of `P` positions takes `2P`.
    fn advance(&self, _steps: u64) {}
    fn layer_finished(&self, _report: &LayerReport) {}
}

/// An observer that shows nothing.
pub struct Quiet;
impl BuildObserver for Quiet {}

/// What happened to one layer during a build.
#[derive(Clone, Debug)]
pub struct LayerReport {
    pub seeds: usize,
    pub positions: u64,
    pub outcomes: Outcomes,
    /// Wall time of the build, `None` if the layer was already built.
    pub seconds: Option<f64>,
}

/// Builds the layers `0..=max_seeds` of `rules` under `dir` (the tablebase
/// folder), skipping layers already complete. Uses the current rayon pool.
pub fn build(
    dir: &Path,
    rules: Ruleset,
    max_seeds: usize,
    observer: &dyn BuildObserver,
) -> Result<Vec<LayerReport>, TablebaseError> {
    if max_seeds > MAX_SEEDS {
        return Err(TablebaseError::TooManySeeds(max_seeds));
    }
    let folder = ruleset_dir(dir, rules);
    std::fs::create_dir_all(&folder).map_err(|source| TablebaseError::CreateDir {
        path: folder.clone(),
        source,
    })?;
    let mut lower = Layers::default();
    let mut reports = Vec::new();
    for seeds in 0..=max_seeds {
        let positions = index::layer_size(seeds);
        let path = raw::layer_path(&folder, seeds);
        let existing = match RawLayer::open(&path, positions) {
            Ok(layer) => Some(layer),
            Err(RawError::Missing { .. }) => None,
            // A wrong size can only come from outside (we rename complete
            // files into place): say so rather than overwrite it.
            Err(e) => return Err(e.into()),
        };
        let (layer, seconds) = match existing {
            Some(layer) => (layer, None),
            None => {
                observer.layer_started(seeds, positions);
                let start = Instant::now();
                let values =
                    engine::solve_layer(rules, seeds, &lower, &|steps| observer.advance(steps))
                        .map_err(|source| TablebaseError::Memory {
                            seeds,
                            bytes: positions * 3 / 2,
                            source,
                        })?;
                raw::write_layer(&path, &values)?;
                let seconds = start.elapsed().as_secs_f64();
                (RawLayer::open(&path, positions)?, Some(seconds))
            }
        };
        let report = LayerReport {
            seeds,
            positions,
            outcomes: engine::outcomes(layer.values()),
            seconds,
        };
        observer.layer_finished(&report);
        reports.push(report);
        lower.0.push(layer);
    }
    Ok(reports)
}

/// Finished layers `0..len`, indexed by seeds.
#[derive(Default)]
struct Layers(Vec<RawLayer>);

impl LowerLayers for Layers {
    #[inline]
    fn value(&self, seeds: usize, rank: u64) -> i8 {
        self.0[seeds].get(rank)
    }

    #[inline]
    fn prefetch(&self, seeds: usize, rank: u64) {
        engine::prefetch(&self.0[seeds].values()[rank as usize]);
    }
}

/// One legal move and its perfect-play value for the mover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveValue {
    pub pit: u8,
    pub captured: u8,
    pub child: Board,
    /// `captured − value(child)`.
    pub value: i8,
}

/// One move of a principal variation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PvStep {
    pub pit: u8,
    pub captured: u8,
    /// The value of the move for the player making it (the value of the
    /// position it is played from).
    pub value: i8,
    /// The position after the move, seen from the new mover.
    pub board: Board,
}

/// Why a principal variation stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PvEnd {
    /// The last position has no legal move.
    GameOver,
    /// The last position occurred before: best play goes round for ever.
    Repetition,
    /// The length limit was reached.
    Limit,
}

/// A tablebase folder opened for probing one ruleset.
pub struct OwareTablebase {
    dir: PathBuf,
    rules: Ruleset,
    /// Layers by seeds; `None` where the file is missing.
    layers: Vec<Option<RawLayer>>,
}

impl OwareTablebase {
    /// Opens the layers of `rules` found under the tablebase folder `dir`.
    pub fn open(dir: &Path, rules: Ruleset) -> Result<OwareTablebase, TablebaseError> {
        let folder = ruleset_dir(dir, rules);
        let layers = (0..=MAX_SEEDS)
            .map(|seeds| {
                match RawLayer::open(&raw::layer_path(&folder, seeds), index::layer_size(seeds)) {
                    Ok(layer) => Ok(Some(layer)),
                    Err(RawError::Missing { .. }) => Ok(None),
                    Err(e) => Err(e),
                }
            })
            .collect::<Result<_, _>>()?;
        Ok(OwareTablebase {
            dir: dir.to_path_buf(),
            rules,
            layers,
        })
    }

    pub fn rules(&self) -> Ruleset {
        self.rules
    }

    /// The layer with `seeds` seeds, or an error naming the file and the
    /// command that builds it.
    pub fn layer(&self, seeds: usize) -> Result<&RawLayer, TablebaseError> {
        if seeds > MAX_SEEDS {
            return Err(TablebaseError::TooManySeeds(seeds));
        }
        self.layers[seeds]
            .as_ref()
            .ok_or_else(|| TablebaseError::MissingLayer {
                rules: self.rules,
                seeds,
                path: raw::layer_path(&ruleset_dir(&self.dir, self.rules), seeds),
                dir: self.dir.clone(),
            })
    }

    /// The perfect-play value of any position for the side to move.
    pub fn value(&self, board: &Board) -> Result<i8, TablebaseError> {
        let seeds = oware::seeds(board);
        match index::rank(board) {
            Some(rank) => Ok(self.layer(seeds)?.get(rank)),
            None => self.best_move_value(board),
        }
    }

    /// Every legal move with its value, in pit order (empty when the game is
    /// over).
    pub fn move_values(&self, board: &Board) -> Result<Vec<MoveValue>, TablebaseError> {
        let seeds = oware::seeds(board);
        oware::legal_moves(self.rules, board)
            .iter()
            .map(|mv| {
                let rest = seeds - mv.captured as usize;
                // Children are always indexed: the origin pit is empty.
                let rank = index::rank_indexed(&mv.child, rest);
                Ok(MoveValue {
                    pit: mv.pit,
                    captured: mv.captured,
                    child: mv.child,
                    value: mv.captured as i8 - self.layer(rest)?.get(rank),
                })
            })
            .collect()
    }

    /// The line of best play from `board`: at each step a best move (among
    /// equals the one capturing most, then the lowest pit), until the game
    /// ends, a position repeats or `limit` moves are made.
    pub fn principal_variation(
        &self,
        board: &Board,
        limit: usize,
    ) -> Result<(Vec<PvStep>, PvEnd), TablebaseError> {
        let mut line = Vec::new();
        let mut seen = std::collections::HashSet::from([*board]);
        let mut board = *board;
        while line.len() < limit {
            let moves = self.move_values(&board)?;
            let Some(best) = moves
                .iter()
                .max_by_key(|m| (m.value, m.captured, std::cmp::Reverse(m.pit)))
            else {
                return Ok((line, PvEnd::GameOver));
            };
            line.push(PvStep {
                pit: best.pit,
                captured: best.captured,
                value: best.value,
                board: best.child,
            });
            board = best.child;
            if !seen.insert(board) {
                return Ok((line, PvEnd::Repetition));
            }
        }
        Ok((line, PvEnd::Limit))
    }

    /// Checks every position of a layer against its children: its value must
    /// be the best over its legal moves of (captured − child value). Reports
    /// the first mismatch in rank order.
    pub fn check_layer(&self, seeds: usize) -> Result<(), TablebaseError> {
        use rayon::prelude::*;
        let values = self.layer(seeds)?.values();
        const CHUNK: usize = 1 << 14;
        let first_bad = values
            .par_chunks(CHUNK)
            .enumerate()
            .map(
                |(c, chunk)| -> Result<Option<(u64, Board, i8, i8)>, TablebaseError> {
                    let start = (c * CHUNK) as u64;
                    let mut board = index::unrank(seeds, start);
                    for (i, &stored) in chunk.iter().enumerate() {
                        let expected = self.best_move_value(&board)?;
                        if stored != expected {
                            return Ok(Some((start + i as u64, board, stored, expected)));
                        }
                        index::next_indexed(&mut board);
                    }
                    Ok(None)
                },
            )
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .flatten()
            .next();
        match first_bad {
            None => Ok(()),
            Some((rank, board, stored, expected)) => Err(TablebaseError::Inconsistent {
                path: raw::layer_path(&ruleset_dir(&self.dir, self.rules), seeds),
                rank,
                board,
                stored,
                expected,
            }),
        }
    }

    /// The value a position gets from its children (or the end of the game).
    fn best_move_value(&self, board: &Board) -> Result<i8, TablebaseError> {
        Ok(self
            .move_values(board)?
            .iter()
            .map(|m| m.value)
            .max()
            .unwrap_or_else(|| oware::no_move_value(self.rules, board)))
    }
}
