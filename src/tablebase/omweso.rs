//! Omweso tables: every position of a 4 × W board with S seeds (S never
//! changes in Omweso, so one layer), solved by the explicit engine under one
//! of two objectives:
//! - `wdl`: win, draw or loss with the distance to the end in moves (wins as
//!   short, losses as long as possible);
//! - `points`: the points of the final result (RULES.md, rule 6), maximised:
//!   −12, −2, −1, 0, 1, 2 or 12.
//!
//! Positions are numbered by stars-and-bars rank of the `4W` pit counts
//! (mover's pits, then the opponent's, each in sowing order). Never-ending
//! play, and a move that voids the game, are draws (0 points). A mover
//! without a legal move has lost by bulijo (1 point to the opponent).

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;

use super::store::{self, Meta, StoreError, Stored, Values};
use super::{BuildObserver, LayerReport, Outcomes};
use crate::games::omweso::{self, Dedup, MoveGen, OmwesoError, Outcome, Position, Rules, WinKind};
use crate::games::relay::Choice;
use crate::index::stars_bars::{self, IndexError, StarsBars};
use crate::solve::explicit::{self, ExplicitError, Layer, MoveLists};

/// What the tables maximise.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Objective {
    /// Win, draw or loss, with the distance to the end in moves
    #[default]
    Wdl,
    /// The points of the final result: −12, −2, −1, 0, 1, 2, 12
    Points,
}

impl Objective {
    pub const ALL: [Objective; 2] = [Objective::Wdl, Objective::Points];

    /// The name used on the command line, in folder names and in table headers.
    pub fn name(self) -> &'static str {
        match self {
            Objective::Wdl => "wdl",
            Objective::Points => "points",
        }
    }
}

impl std::str::FromStr for Objective {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Objective::ALL
            .into_iter()
            .find(|o| o.name() == s)
            .ok_or_else(|| format!("unknown Omweso objective '{s}' (expected wdl or points)"))
    }
}

impl fmt::Display for Objective {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One table: board width, seeds, rules and objective.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    pub width: usize,
    pub seeds: usize,
    pub rules: Rules,
    pub objective: Objective,
}

impl Config {
    /// The table file inside a tablebase folder.
    pub fn path(&self, dir: &Path) -> PathBuf {
        let r = &self.rules;
        dir.join(format!(
            "omweso-{}-{}-okutema-{}",
            r.reverse,
            r.endless,
            omweso::OnOff(r.okutema)
        ))
        .join(match self.objective {
            // Compressed table format (see `store`).
            Objective::Points => format!("w{}-s{}.points.mtb", self.width, self.seeds),
            Objective::Wdl => format!("w{}-s{}.wdl.mtb", self.width, self.seeds),
        })
    }

    fn meta(&self) -> Meta {
        Meta {
            game: "omweso",
            ruleset: self.rules.to_string(),
            options: format!("objective={}", self.objective),
            seeds: self.seeds as u32,
            board_width: self.width as u32,
            wide: self.objective == Objective::Wdl,
        }
    }

    fn index(&self) -> Result<StarsBars, IndexError> {
        StarsBars::new(4 * self.width, self.seeds)
    }

    /// The command that builds this table.
    fn command(&self, dir: &Path) -> String {
        let r = &self.rules;
        format!(
            "mancala-tb build omweso --width {} --seeds {} --objective {} --reverse {} --endless {} --okutema {} --dir {}",
            self.width,
            self.seeds,
            self.objective,
            r.reverse,
            r.endless,
            omweso::OnOff(r.okutema),
            dir.display()
        )
    }
}

/// A win/draw/loss value with the distance to the end in moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Wdl {
    Win(u16),
    Draw,
    Loss(u16),
}

impl Wdl {
    /// Stored as `d` for a win in `d ≥ 1`, 0 for a draw, `−d − 1` for a
    /// loss in `d ≥ 0`.
    fn encode(self) -> i16 {
        match self {
            Wdl::Win(d) => d as i16,
            Wdl::Draw => 0,
            Wdl::Loss(d) => -(d as i16) - 1,
        }
    }

    fn decode(v: i16) -> Wdl {
        match v {
            0 => Wdl::Draw,
            v if v > 0 => Wdl::Win(v as u16),
            v => Wdl::Loss((-(v + 1)) as u16),
        }
    }

    /// The value of a move to a child of value `self`.
    fn after(self) -> Wdl {
        match self {
            Wdl::Win(d) => Wdl::Loss(d + 1),
            Wdl::Draw => Wdl::Draw,
            Wdl::Loss(d) => Wdl::Win(d + 1),
        }
    }

    /// Preference order: short wins, long wins, draws, long losses, short
    /// losses.
    fn rank(self) -> i32 {
        match self {
            Wdl::Win(d) => 100_000 - i32::from(d),
            Wdl::Draw => 0,
            Wdl::Loss(d) => -100_000 + i32::from(d),
        }
    }
}

/// A value under either objective.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Wdl(Wdl),
    Points(i8),
}

impl Value {
    /// Larger is better for the mover.
    fn rank(self) -> i32 {
        match self {
            Value::Wdl(w) => w.rank(),
            Value::Points(p) => i32::from(p),
        }
    }

    fn after(self) -> Value {
        match self {
            Value::Wdl(w) => Value::Wdl(w.after()),
            Value::Points(p) => Value::Points(-p),
        }
    }

    pub fn is_win(self) -> bool {
        matches!(self, Value::Wdl(Wdl::Win(_))) || matches!(self, Value::Points(p) if p > 0)
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Wdl(Wdl::Win(d)) => write!(f, "win in {d}"),
            Value::Wdl(Wdl::Draw) => write!(f, "draw"),
            Value::Wdl(Wdl::Loss(d)) => write!(f, "loss in {d}"),
            Value::Points(p) => write!(f, "{p:+}"),
        }
    }
}

fn win_value(objective: Objective, kind: WinKind) -> Value {
    match objective {
        Objective::Wdl => Value::Wdl(Wdl::Win(1)),
        Objective::Points => Value::Points(kind.points() as i8),
    }
}

fn draw(objective: Objective) -> Value {
    match objective {
        Objective::Wdl => Value::Wdl(Wdl::Draw),
        Objective::Points => Value::Points(0),
    }
}

/// A mover without a legal move has lost by bulijo.
fn no_move(objective: Objective) -> Value {
    match objective {
        Objective::Wdl => Value::Wdl(Wdl::Loss(0)),
        Objective::Points => Value::Points(-(WinKind::Bulijo.points() as i8)),
    }
}

/// Errors of building and probing, with the file or command that helps.
#[derive(Debug, thiserror::Error)]
pub enum OmwesoTbError {
    #[error("the Omweso table {path} is missing; build it with `{command}`")]
    Missing { path: PathBuf, command: String },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Engine(#[from] ExplicitError),
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error(transparent)]
    Rules(#[from] OmwesoError),
    #[error("cannot create the tablebase folder {path}")]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{seeds} seeds do not fit the tables (at most {max})")]
    TooManySeeds { seeds: usize, max: u32 },
    #[error("a position is {0} moves from the end; the wdl table stores at most 32766")]
    TooDeep(u16),
    #[error(
        "the position has width {width} and {seeds} seeds; the table is for width {table_width} and {table_seeds} seeds"
    )]
    WrongLayer {
        width: usize,
        seeds: usize,
        table_width: usize,
        table_seeds: usize,
    },
    #[error("{path}: rank {rank} ({position}) holds {stored} but its moves give {expected}")]
    Inconsistent {
        path: PathBuf,
        rank: u64,
        position: Position,
        stored: Value,
        expected: Value,
    },
}

/// What a build did.
#[derive(Clone, Debug)]
pub struct Report {
    pub layer: LayerReport,
    /// The longest win (wdl tables): moves to the end.
    pub longest_win: Option<u16>,
}

/// Builds the table of `config` under `dir` unless it is already complete.
/// Uses the current rayon pool.
pub fn build(
    dir: &Path,
    config: Config,
    observer: &dyn BuildObserver,
) -> Result<Report, OmwesoTbError> {
    omweso::check_width(config.width)?;
    if config.seeds > omweso::MAX_SEEDS as usize {
        return Err(OmwesoTbError::TooManySeeds {
            seeds: config.seeds,
            max: omweso::MAX_SEEDS,
        });
    }
    let index = config.index()?;
    let positions = index.size();
    let path = config.path(dir);
    let seconds = match store::open(&path, &config.meta(), positions) {
        Ok(_) => None,
        Err(StoreError::Missing { .. }) => {
            if let Some(folder) = path.parent() {
                std::fs::create_dir_all(folder).map_err(|source| OmwesoTbError::CreateDir {
                    path: folder.to_path_buf(),
                    source,
                })?;
            }
            observer.layer_started(config.seeds, positions);
            let start = Instant::now();
            let layer = OmwesoLayer { config, index };
            let wdl = config.objective == Objective::Wdl;
            let solved = explicit::solve(&layer, wdl, &|s| observer.advance(s))?;
            match solved.depths {
                Some(depths) => {
                    let values = solved
                        .values
                        .par_iter()
                        .zip(depths)
                        .map(|(&v, d)| encode_wdl(v, d))
                        .collect::<Result<Vec<_>, _>>()?;
                    store::write(&path, &config.meta(), Values::I16(&values))?;
                }
                None => store::write(&path, &config.meta(), Values::I8(&solved.values))?,
            }
            Some(start.elapsed().as_secs_f64())
        }
        Err(e) => return Err(e.into()),
    };
    let tables = OmwesoTablebase::open(dir, config)?;
    let stats = tables.stats()?;
    let report = Report {
        layer: LayerReport {
            seeds: config.seeds,
            positions,
            outcomes: Some(stats.outcomes),
            seconds,
            bytes: store::file_bytes(&path)?,
        },
        longest_win: stats.longest_win,
    };
    observer.layer_finished(&report.layer);
    Ok(report)
}

fn encode_wdl(value: i8, depth: u16) -> Result<i16, OmwesoTbError> {
    if depth > i16::MAX as u16 - 1 {
        return Err(OmwesoTbError::TooDeep(depth));
    }
    Ok(match value.signum() {
        1 => Wdl::Win(depth),
        0 => Wdl::Draw,
        _ => Wdl::Loss(depth),
    }
    .encode())
}

/// The layer for the explicit engine.
struct OmwesoLayer {
    config: Config,
    index: StarsBars,
}

impl Layer for OmwesoLayer {
    fn size(&self) -> u64 {
        self.index.size()
    }

    fn moves(&self, first: u64, count: usize, out: &mut MoveLists) {
        let Config {
            width,
            rules,
            objective,
            ..
        } = self.config;
        let mut counts = vec![0u8; 4 * width];
        self.index.unrank(first, &mut counts);
        let mut pits = vec![0u32; 4 * width];
        let mut moves = MoveGen::new();
        // Exit values as the engine takes them: a win is worth its points
        // (1 in wdl), a voided game 0, no move a loss.
        let exit = |v: Value| match v {
            Value::Points(p) => p,
            Value::Wdl(w) => w.rank().signum() as i8,
        };
        for _ in 0..count {
            out.start();
            for (p, &c) in pits.iter_mut().zip(&counts) {
                *p = u32::from(c);
            }
            // The index only holds boards of a checked width and seed count.
            let pos = Position::new(width, &pits).expect("indexed positions are valid");
            moves.generate(&pos, &rules, true, Dedup::Position);
            let mut any = false;
            for m in moves.legal() {
                any = true;
                match m.outcome {
                    Outcome::Ends {
                        win: Some(kind), ..
                    } => out.exit(exit(win_value(objective, kind))),
                    Outcome::Ends { after, .. } => {
                        out.child(self.index.rank(after.flipped().pits()))
                    }
                    Outcome::NeverEnds(_) => out.exit(0),
                }
            }
            if !any {
                out.end(exit(no_move(objective)));
            }
            stars_bars::next(&mut counts);
        }
    }
}

/// Where a move leads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveResult {
    /// The move wins the game at once.
    Wins(WinKind),
    /// The move never ends: the game is void.
    Void,
    /// The opponent faces this position.
    Child(Position),
}

/// One legal move and its perfect-play value for the mover.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveValue {
    pub path: Vec<Choice>,
    pub result: MoveResult,
    pub value: Value,
}

/// Counts of a table.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    pub outcomes: Outcomes,
    pub longest_win: Option<u16>,
    pub longest_loss: Option<u16>,
}

/// An Omweso table opened for probing.
pub struct OmwesoTablebase {
    dir: PathBuf,
    config: Config,
    index: StarsBars,
    table: Stored,
}

impl OmwesoTablebase {
    pub fn open(dir: &Path, config: Config) -> Result<OmwesoTablebase, OmwesoTbError> {
        omweso::check_width(config.width)?;
        let index = config.index()?;
        let path = config.path(dir);
        let table = store::open(&path, &config.meta(), index.size()).map_err(|e| match e {
            StoreError::Missing { path } => OmwesoTbError::Missing {
                path,
                command: config.command(dir),
            },
            e => e.into(),
        })?;
        Ok(OmwesoTablebase {
            dir: dir.to_path_buf(),
            config,
            index,
            table,
        })
    }

    pub fn config(&self) -> Config {
        self.config
    }

    fn at(&self, rank: u64) -> Result<Value, OmwesoTbError> {
        Ok(self.decode(self.table.get(rank)?))
    }

    fn fit(&self, pos: &Position) -> Result<(), OmwesoTbError> {
        let (width, seeds) = (pos.width(), pos.seeds() as usize);
        if width != self.config.width || seeds != self.config.seeds {
            return Err(OmwesoTbError::WrongLayer {
                width,
                seeds,
                table_width: self.config.width,
                table_seeds: self.config.seeds,
            });
        }
        Ok(())
    }

    /// The perfect-play value of a position for the side to move.
    pub fn value(&self, pos: &Position) -> Result<Value, OmwesoTbError> {
        self.fit(pos)?;
        self.at(self.index.rank(pos.pits()))
    }

    /// Every legal move (one per distinct outcome of each starting pit and
    /// direction) with its value.
    pub fn move_values(&self, pos: &Position) -> Result<Vec<MoveValue>, OmwesoTbError> {
        self.fit(pos)?;
        self.moves_of(pos, Dedup::StartChoice, &|rank| self.table.get(rank))
    }

    /// The moves of `pos`, their children's stored values read by `stored`.
    fn moves_of(
        &self,
        pos: &Position,
        dedup: Dedup,
        stored: &dyn Fn(u64) -> Result<i16, StoreError>,
    ) -> Result<Vec<MoveValue>, OmwesoTbError> {
        let objective = self.config.objective;
        let mut moves = MoveGen::new();
        moves.generate(pos, &self.config.rules, true, dedup);
        moves
            .legal()
            .map(|m| {
                let (result, value) = match m.outcome {
                    Outcome::Ends {
                        win: Some(kind), ..
                    } => (MoveResult::Wins(kind), win_value(objective, kind)),
                    Outcome::Ends { after, .. } => {
                        let child = after.flipped();
                        let value = self.decode(stored(self.index.rank(child.pits()))?);
                        (MoveResult::Child(child), value.after())
                    }
                    Outcome::NeverEnds(_) => (MoveResult::Void, draw(objective)),
                };
                Ok(MoveValue {
                    path: moves.path(m).to_vec(),
                    result,
                    value,
                })
            })
            .collect()
    }

    /// The value a position gets from its moves.
    fn best_move_value(&self, pos: &Position, values: &[i16]) -> Result<Value, OmwesoTbError> {
        Ok(self
            .moves_of(pos, Dedup::Position, &|rank| Ok(values[rank as usize]))?
            .into_iter()
            .map(|m| m.value)
            .max_by_key(|v| v.rank())
            .unwrap_or_else(|| no_move(self.config.objective)))
    }

    /// A principal variation from `pos`: best moves until the game ends, a
    /// position repeats (a draw by perpetual play) or `max_moves` are shown.
    pub fn principal_variation(
        &self,
        pos: &Position,
        max_moves: usize,
    ) -> Result<Vec<MoveValue>, OmwesoTbError> {
        self.fit(pos)?;
        let mut line = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut pos = *pos;
        while line.len() < max_moves && seen.insert(pos) {
            let value = self.value(&pos)?;
            let Some(best) = self
                .move_values(&pos)?
                .into_iter()
                .find(|m| m.value == value)
            else {
                break;
            };
            let next = match best.result {
                MoveResult::Child(child) => Some(child),
                _ => None,
            };
            line.push(best);
            match next {
                Some(child) => pos = child,
                None => break,
            }
        }
        Ok(line)
    }

    /// Wins, draws, losses, and the longest win and loss (wdl).
    pub fn stats(&self) -> Result<Stats, OmwesoTbError> {
        let values = self.table.load()?;
        Ok(values
            .par_iter()
            .fold(Stats::default, |mut s, &v| {
                match self.decode(v) {
                    Value::Wdl(Wdl::Win(d)) => {
                        s.outcomes.wins += 1;
                        s.longest_win = s.longest_win.max(Some(d));
                    }
                    Value::Wdl(Wdl::Loss(d)) => {
                        s.outcomes.losses += 1;
                        s.longest_loss = s.longest_loss.max(Some(d));
                    }
                    Value::Wdl(Wdl::Draw) => s.outcomes.draws += 1,
                    Value::Points(p) => s.outcomes.count(p),
                }
                s
            })
            .reduce(Stats::default, |a, b| Stats {
                outcomes: a.outcomes + b.outcomes,
                longest_win: a.longest_win.max(b.longest_win),
                longest_loss: a.longest_loss.max(b.longest_loss),
            }))
    }

    /// How many positions hold each value.
    pub fn histogram(&self) -> Result<std::collections::BTreeMap<i16, u64>, OmwesoTbError> {
        let values = self.table.load()?;
        Ok(values
            .par_iter()
            .fold(std::collections::BTreeMap::new, |mut h, &v| {
                *h.entry(v).or_insert(0u64) += 1;
                h
            })
            .reduce(std::collections::BTreeMap::new, |mut a, b| {
                for (k, n) in b {
                    *a.entry(k).or_insert(0) += n;
                }
                a
            }))
    }

    /// Decodes a stored value (a key of [`OmwesoTablebase::histogram`]).
    pub fn decode(&self, stored: i16) -> Value {
        match self.config.objective {
            Objective::Wdl => Value::Wdl(Wdl::decode(stored)),
            Objective::Points => Value::Points(stored as i8),
        }
    }

    /// Checks every position against its moves: its value must be the best
    /// over its legal moves. Reports the first mismatch.
    pub fn check_consistency(&self) -> Result<(), OmwesoTbError> {
        const CHUNK: u64 = 1 << 12;
        let values = self.table.load()?;
        let size = self.table.len();
        let width = self.config.width;
        let bad = (0..size.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| -> Result<Option<_>, OmwesoTbError> {
                let mut counts = vec![0u8; 4 * width];
                self.index.unrank(c * CHUNK, &mut counts);
                for rank in c * CHUNK..((c + 1) * CHUNK).min(size) {
                    let pits: Vec<u32> = counts.iter().map(|&p| u32::from(p)).collect();
                    let pos = Position::new(width, &pits).expect("indexed positions are valid");
                    let stored = self.decode(values[rank as usize]);
                    let expected = self.best_move_value(&pos, &values)?;
                    if stored != expected {
                        return Ok(Some((rank, pos, stored, expected)));
                    }
                    stars_bars::next(&mut counts);
                }
                Ok(None)
            })
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .flatten()
            .next();
        match bad {
            None => Ok(()),
            Some((rank, position, stored, expected)) => Err(OmwesoTbError::Inconsistent {
                path: self.config.path(&self.dir),
                rank,
                position,
                stored,
                expected,
            }),
        }
    }
}
