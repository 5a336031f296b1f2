//! Building the layers of a ruleset under a memory budget, resumable layer
//! by layer (and, within a layer, from checkpoints at threshold
//! boundaries).
//!
//! Each layer picks the fastest engine that fits the budget ([`budget`]): in
//! memory (1.5 bytes per position), out of core (0.625 bytes, the rest
//! streamed through scratch files) or compact (2 bits). The finished layers
//! below are kept where the budget allows ([`lower`]): in memory, in
//! raw copies read through the page cache or only in order, or in their
//! compressed tables. Before a layer starts, its disk is checked
//! ([`disk`]). The rooms below this file: [`lower`], then [`files`] (the
//! scratch folders and files) and `lock.rs`.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

mod files;
mod lock;
mod lower;

pub(super) use files::{create_dir, remove_dir};
pub(super) use lower::{lower_cache_dir, place_lower_layers};

use super::budget::{Budget, LayerPlan, disk, placement};

use super::distance::{self, DistanceReport, distance_path};
use super::layers::{Layer, Layers, allocate_resident};
use super::{TablebaseError, open_table, ruleset_dir, table_meta, table_path};
use crate::distributed::{Alone, Transport};
use rayon::prelude::*;

use crate::error::PathContext;
use crate::games::oware::{MAX_SEEDS, Ruleset};
use crate::index::oware as index;
use crate::solve::array::{self, BigArray};
use crate::solve::oware::distance::Distances;
use crate::solve::oware::{self as engine, Engine, OUTBOX_BYTES, Solved, SolvedLayer};
use crate::solve::phases::{Phase, PhaseTime, Phases};
use crate::table::raw::{self, RawLayer, RawWriter};
use crate::table::{CAPTURE_DECIDES, PendingTable, Table, ValueEncoding};
use crate::tablebase::FileError;
use crate::tablebase::{BuildObserver, LayerReport, Outcomes, Quiet, outcomes, writers};
pub(super) use lock::lock_folder;
use lower::{raw_copy, retain};

/// A layer that takes longer saves its state at the next threshold boundary.
pub const CHECKPOINT_EVERY: Duration = Duration::from_secs(600);

/// How to build.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// Layers `0..=max_seeds`.
    pub max_seeds: usize,
    /// Memory budget in bytes.
    pub memory: u64,
    /// Bytes of lower layers kept decoded in scratch files (raw `scores.N`)
    /// and read through the page cache, outside `memory`: a set-up reads
    /// them directly instead of decoding their tables once per part.
    pub lower_cache: u64,
    /// Also write each new layer in the published format (`scores.N`).
    pub keep_raw: bool,
    /// Out-of-core layers save their state this often (at the next
    /// threshold boundary).
    pub checkpoint_every: Duration,
    /// In a distributed build, the notices a rank queues for the others
    /// before an exchange; it receives at most as much.
    pub outbox_bytes: u64,
    /// In a distributed build, the most bytes one message carries (the
    /// transport's bound, [`distributed::MESSAGE_BYTES`] by default): a
    /// rank's budget holds one such piece beside its outbox and what it
    /// receives.
    ///
    /// [`distributed::MESSAGE_BYTES`]: crate::distributed::MESSAGE_BYTES
    pub message_bytes: u64,
    /// The engine of every layer built, if it fits the budget; `None`: the
    /// fastest that fits.
    pub engine: Option<Engine>,
    /// Also find the distance table of every layer built, and of every
    /// layer already there that lacks one or has one built from other
    /// values (where the budget allows); an imported layer gets its
    /// capture marks first.
    pub distances: bool,
    /// Sample the workers as each layer is built, so that its phases say
    /// how many threads were busy and its serial share is measured
    /// (recorded in `build-times.tsv`).
    pub sample_phases: bool,
}

impl BuildOptions {
    /// Layers `0..=max_seeds` within `memory` bytes, everything else as
    /// by default.
    pub fn new(max_seeds: usize, memory: u64) -> BuildOptions {
        BuildOptions {
            max_seeds,
            memory,
            lower_cache: 0,
            keep_raw: false,
            checkpoint_every: CHECKPOINT_EVERY,
            outbox_bytes: OUTBOX_BYTES,
            message_bytes: crate::distributed::MESSAGE_BYTES as u64,
            engine: None,
            distances: true,
            sample_phases: false,
        }
    }

    /// The budget of each of `ranks` processes building with these options.
    pub(super) fn budget(&self, ranks: usize) -> Budget {
        Budget {
            max_seeds: self.max_seeds,
            memory: self.memory,
            lower_cache: match ranks {
                1 => self.lower_cache,
                _ => 0,
            },
            ranks,
            outbox_bytes: self.outbox_bytes,
            message_bytes: self.message_bytes,
            engine: self.engine,
            distances: self.distances,
        }
    }
}

/// What an Oware build tells its caller besides a [`BuildObserver`]'s
/// progress: each layer's plan, its distance pass and, distributed, its
/// traffic.
pub trait OwareObserver: BuildObserver {
    /// A layer about to be built: its engine, and the memory planned for it
    /// (the engine plus the lower layers kept in memory).
    fn layer_planned(&self, _seeds: usize, _plan: &LayerPlan, _memory_bytes: u64) {}
    /// The distances of a layer are about to be found (its progress goes
    /// to [`advance`](BuildObserver::advance), two steps a position).
    fn distances_started(&self, _seeds: usize, _positions: u64) {}
    /// The distances of a layer are written.
    fn distances_finished(&self, _report: &DistanceReport) {}
    /// The distances of a layer were found by its engine as it built the
    /// layer, and are written (no [`distances_started`](Self::distances_started)
    /// before).
    fn distances_found(&self, _report: &DistanceReport) {}
    /// The distances of a layer are not found: the memory budget is smaller
    /// than the `needed` bytes, or (distributed, `needed` 0) a rank's budget
    /// cannot hold the levels that find them while the layer is built.
    fn distances_skipped(&self, _seeds: usize, _needed: u64) {}
    /// A layer of a distributed build, whose values are built, is built
    /// again to find its distances (missing, or of other values).
    fn layer_rebuilt_for_distances(&self, _seeds: usize) {}
    /// A layer of a distributed build is done: the bytes all ranks sent
    /// each other for it (notices and values).
    fn layer_sent(&self, _seeds: usize, _bytes: u64) {}
    /// Where the build of a layer in one process spent its time, phase by
    /// phase (before [`layer_finished`](BuildObserver::layer_finished)).
    fn layer_phases(&self, _seeds: usize, _phases: &[PhaseTime]) {}
}

impl OwareObserver for Quiet {}

/// Builds the layers `0..=options.max_seeds` of `rules` under `dir` (the
/// tablebase folder), skipping layers already complete. Refuses at once if
/// another build holds the folder. Uses the current rayon pool.
pub fn build(
    dir: &Path,
    rules: Ruleset,
    options: &BuildOptions,
    observer: &dyn OwareObserver,
) -> Result<Vec<LayerReport>, TablebaseError> {
    build_on(dir, rules, options, observer, &Alone)
}

/// [`build`] by every rank of `transport` at once, each holding its share
/// of each layer (`options.memory` is a rank's budget). `dir` is shared by
/// the ranks: they read the finished tables there, and rank 0 writes the
/// new ones (and holds the lock). Reports are rank 0's; its observer sees
/// its own share's progress.
pub fn build_on<T: Transport>(
    dir: &Path,
    rules: Ruleset,
    options: &BuildOptions,
    observer: &dyn OwareObserver,
    transport: &T,
) -> Result<Vec<LayerReport>, TablebaseError> {
    if options.max_seeds > MAX_SEEDS {
        return Err(TablebaseError::TooManySeeds(options.max_seeds));
    }
    if options.keep_raw && transport.ranks() > 1 {
        return Err(TablebaseError::PublishedInDistributed);
    }
    let folder = ruleset_dir(dir, rules);
    fs::create_dir_all(&folder)
        .map_err(FileError::CreateDir)
        .at(&folder)?;
    let _lock = match transport.rank() {
        0 => Some(lock_folder(&folder)?),
        _ => None,
    };
    let mut tables = (0..=options.max_seeds)
        .map(|seeds| open_table(&folder, rules, seeds))
        .collect::<Result<Vec<_>, _>>()?;
    if transport.ranks() > 1 {
        check_shared_folder(&folder, &tables, transport)?;
    }
    let mut run = Run {
        folder: &folder,
        rules,
        options,
        budget: options.budget(transport.ranks()),
        observer,
        sent: 0,
    };
    let plans = run.plan_layers(&mut tables, transport)?;
    // An engine that streams has a budget that counts memory freed as free,
    // from the build's first allocations on. (Not where every layer is
    // built in memory: parts' buffers taken afresh from the system cost
    // awari 0..=20 5%.)
    if plans.iter().flatten().any(|plan| plan.engine.streams()) {
        array::large_allocations_to_the_system();
    }
    // A cache left by a killed build is not trusted: it is made again from
    // the tables.
    let cache = lower_cache_dir(&folder);
    remove_dir(&cache)?;
    let mut lower = Layers::new(rules);
    let mut reports = Vec::new();
    for (seeds, (table, plan)) in tables.into_iter().zip(plans).enumerate() {
        let report = match table {
            Some(table) => run.stored(seeds, table, &mut lower, transport)?,
            None => {
                let plan = plan.expect("every layer to build is planned");
                run.layer(seeds, &plan, &mut lower, transport)?
            }
        };
        observer.layer_finished(&report);
        reports.push(report);
    }
    drop(lower);
    remove_dir(&cache)?;
    Ok(reports)
}

/// Fails on every rank unless each sees the folder rank 0 builds in, with
/// the same tables: rank 0 leaves a token there that the others read.
fn check_shared_folder<T: Transport>(
    folder: &Path,
    tables: &[Option<Table>],
    transport: &T,
) -> Result<(), TablebaseError> {
    let token = folder.join(".ranks");
    if transport.rank() == 0 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let written = fs::write(&token, format!("{nanos} {}\n", std::process::id()));
        written.map_err(FileError::Io).at(&token)?;
    }
    transport.sum(0);
    // What this rank sees: rank 0's token (0 if none), and the tables.
    let seen = fs::read(&token).ok();
    let mut tables_seen = crc32fast::Hasher::new();
    for (seeds, table) in tables.iter().enumerate() {
        let crc = table.as_ref().map_or(0, Table::payload_crc);
        let distances = distance_path(folder, seeds).is_file();
        tables_seen.update(&[crc.to_le_bytes(), u32::from(distances).to_le_bytes()].concat());
    }
    let token_seen = seen.map_or(0, |bytes| u64::from(crc32fast::hash(&bytes)) | 1 << 32);
    let tokens = transport.all_gather(token_seen);
    let seen = transport.all_gather(u64::from(tables_seen.finalize()));
    let differs = |all: &[u64]| all.iter().position(|&x| x != all[0]);
    let (rank, why) = match (differs(&tokens), differs(&seen)) {
        (Some(rank), _) => (rank, "it cannot read the file rank 0 wrote there"),
        (None, Some(rank)) => (rank, "it sees other tables there"),
        (None, None) => return Ok(()),
    };
    Err(TablebaseError::FolderNotShared {
        folder: folder.to_owned(),
        rank,
        why,
    })
}

/// A layer just built by one process.
struct BuiltLayer {
    outcomes: Outcomes,
    /// Its values, if they stay in memory.
    values: Option<BigArray<i8>>,
    /// Its distances' report, if the engine found them.
    distances: Option<DistanceReport>,
    /// Where its build spent its time (none if distributed).
    phases: Vec<PhaseTime>,
}

/// A build under way: what the build of each layer reads.
struct Run<'a> {
    folder: &'a Path,
    rules: Ruleset,
    options: &'a BuildOptions,
    budget: Budget,
    observer: &'a dyn OwareObserver,
    /// Bytes the ranks sent each other for the layers built so far.
    sent: u64,
}

impl Run<'_> {
    /// Plans every layer to build before any is built, the largest first:
    /// a budget too small fails at once, naming what the whole build needs.
    /// Distributed, a built layer without its distances (or with stale
    /// ones) is built again where its plan finds them, since ranks find
    /// distances only while they build a layer; its table is taken out of
    /// `tables`.
    fn plan_layers<T: Transport>(
        &self,
        tables: &mut [Option<Table>],
        transport: &T,
    ) -> Result<Vec<Option<LayerPlan>>, TablebaseError> {
        let mut plans = vec![None; tables.len()];
        for seeds in (0..tables.len()).rev() {
            let share = self.budget.share(seeds, transport.rank()).len() as u64;
            match &tables[seeds] {
                None => plans[seeds] = Some(self.budget.plan(seeds, share)?),
                Some(table)
                    if transport.ranks() > 1
                        && self.options.distances
                        && distance::wanted(self.folder, self.rules, seeds, table)? =>
                {
                    if let Ok(plan) = self.budget.plan(seeds, share)
                        && plan.levels
                    {
                        self.observer.layer_rebuilt_for_distances(seeds);
                        tables[seeds] = None;
                        plans[seeds] = Some(plan);
                    }
                }
                Some(_) => {}
            }
        }
        Ok(plans)
    }

    /// Adds layer `seeds`, already built as `table`, to `lower`, with the
    /// distances it lacks if this build can find them.
    fn stored<T: Transport>(
        &self,
        seeds: usize,
        table: Table,
        lower: &mut Layers,
        transport: &T,
    ) -> Result<LayerReport, TablebaseError> {
        let wanted =
            self.options.distances && distance::wanted(self.folder, self.rules, seeds, &table)?;
        lower.push(Layer::Stored(table));
        if wanted {
            self.distances(seeds, lower, transport)?;
        }
        Ok(LayerReport {
            seeds,
            positions: index::layer_size(seeds),
            outcomes: None,
            seconds: None,
            bytes: file_len(&table_path(self.folder, seeds)),
        })
    }

    /// Builds layer `seeds` as `plan` says, the layers below placed first,
    /// and adds it to them; records its build time (and, distributed, the
    /// bytes sent for it).
    fn layer<T: Transport>(
        &mut self,
        seeds: usize,
        plan: &LayerPlan,
        lower: &mut Layers,
        transport: &T,
    ) -> Result<LayerReport, TablebaseError> {
        let positions = index::layer_size(seeds);
        let places = placement(seeds, plan, &self.budget);
        let raw_copy = raw_copy(self.folder, seeds, &self.budget).is_some();
        let shared = transport.ranks() > 1;
        let sweep = disk::check(self.folder, seeds, plan, &places, lower, raw_copy, shared)?;
        let cache = lower_cache_dir(self.folder);
        place_lower_layers(self.folder, &cache, &places, plan.part, lower)?;
        let memory = plan.engine_bytes + lower.resident_bytes();
        self.observer.layer_planned(seeds, plan, memory);
        let start = Instant::now();
        let BuiltLayer {
            outcomes,
            values,
            distances,
            phases,
        } = match transport.ranks() {
            1 => {
                self.observer.layer_started(seeds, positions);
                self.build_layer(seeds, plan, sweep, lower)?
            }
            _ => {
                let (outcomes, distances) = self.build_share(seeds, plan, transport, lower)?;
                BuiltLayer {
                    outcomes,
                    values: None,
                    distances,
                    phases: Vec::new(),
                }
            }
        };
        lower.push(self.kept(seeds, values)?);
        let seconds = start.elapsed().as_secs_f64();
        match distances {
            Some(report) => self.observer.distances_found(&report),
            None => self.distances(seeds, lower, transport)?,
        }
        if !phases.is_empty() {
            self.observer.layer_phases(seeds, &phases);
        }
        if transport.rank() == 0 {
            let time = super::BuildTime {
                seeds,
                positions,
                seconds,
                threads: rayon::current_num_threads(),
                engine: plan.engine,
                ranks: transport.ranks(),
                serial_share: PhaseTime::total(&phases).and_then(|t| t.serial_share()),
            };
            super::record_build_time(self.folder, &time)?;
        }
        if transport.ranks() > 1 {
            let total = transport.sum(transport.bytes_sent());
            self.observer.layer_sent(seeds, total - self.sent);
            self.sent = total;
        }
        Ok(LayerReport {
            seeds,
            positions,
            outcomes: Some(outcomes),
            seconds: Some(seconds),
            bytes: file_len(&table_path(self.folder, seeds)),
        })
    }

    /// Finds and writes the distances of layer `seeds`, the last of `lower`,
    /// if asked and the budget allows (a distributed build finds them only
    /// while building, so here it can only say they are missing); an
    /// imported layer gets its capture marks first.
    fn distances<T: Transport>(
        &self,
        seeds: usize,
        lower: &mut Layers,
        transport: &T,
    ) -> Result<(), TablebaseError> {
        if !self.options.distances || transport.rank() != 0 {
            return Ok(());
        }
        if transport.ranks() > 1 {
            self.observer.distances_skipped(seeds, 0);
            return Ok(());
        }
        let direct = distance::read_directly(lower.layer(seeds));
        let needed = distance::pass_bytes(seeds, direct) + lower.resident_bytes();
        if needed > self.budget.memory {
            self.observer.distances_skipped(seeds, needed);
            return Ok(());
        }
        self.observer
            .distances_started(seeds, index::layer_size(seeds));
        if let Layer::Stored(table) = lower.layer(seeds)
            && table.meta().encoding != ValueEncoding::ScoreOrCapture
        {
            let scratch = scratch_dir(self.folder, seeds);
            let marked =
                distance::add_capture_marks(self.folder, self.rules, seeds, lower, &scratch)?;
            remove_dir(&scratch)?;
            lower.replace(seeds, Layer::Stored(marked));
        }
        let progress = |steps| self.observer.advance(steps);
        let report = distance::write_layer(self.folder, self.rules, seeds, lower, &progress)?;
        self.observer.distances_finished(&report);
        Ok(())
    }

    /// How layer `seeds`, just built, is read by the layers above: its
    /// `values` if they stay in memory, else its raw copy if it has one
    /// (cached if the cache holds it, else streamed), else its table. The
    /// next layer's placement decides again.
    fn kept(&self, seeds: usize, values: Option<BigArray<i8>>) -> Result<Layer, TablebaseError> {
        let positions = index::layer_size(seeds);
        Ok(match (values, raw_copy(self.folder, seeds, &self.budget)) {
            (Some(values), _) => Layer::Resident(values),
            (None, Some(path)) if positions <= self.budget.lower_cache => {
                Layer::Cached(RawLayer::open(&path, positions)?)
            }
            (None, Some(path)) => Layer::Streamed(RawLayer::open(&path, positions)?),
            (None, None) => Layer::Stored(Table::open(table_path(self.folder, seeds))?),
        })
    }

    /// Builds one layer, its set-up sweeping `sweep` positions before it
    /// answers its deferred lookups; writes its table (and raw file if
    /// asked), and its distance table if the engine found them.
    fn build_layer(
        &self,
        seeds: usize,
        plan: &LayerPlan,
        sweep: usize,
        lower: &Layers,
    ) -> Result<BuiltLayer, TablebaseError> {
        let &Run {
            rules,
            options,
            observer,
            ..
        } = self;
        let retain = retain(seeds, plan, &self.budget, lower);
        let progress = |steps| observer.advance(steps);
        let mut out = self.layer_output(seeds, retain)?;
        let phases = Phases::start(options.sample_phases);
        let config = self.config(seeds, plan, sweep, phases.clone());
        if engine::checkpoint_path(&config.scratch, plan.engine).exists() {
            observer.layer_resumed(seeds);
        }
        let mut kept = match retain && plan.engine.streams() {
            true => Some(allocate_resident(seeds)?),
            false => None,
        };
        let (mut at, mut counts) = (0, Outcomes::default());
        let emit = |values: &[i8], marked: &[i8]| {
            counts = counts + outcomes(values);
            if let Some(kept) = &mut kept {
                kept[at..at + values.len()].copy_from_slice(values);
                at += values.len();
            }
            out.push(values, marked)
        };
        let solved = (plan.engine)
            .solve_layer(
                rules,
                seeds,
                lower,
                &config,
                CAPTURE_DECIDES,
                &progress,
                emit,
            )
            .map_err(TablebaseError::from)?;
        let (outcomes, values, distances) = match solved {
            Solved::InMemory(mut solved) => {
                phases.enter(Phase::Table);
                let outcomes = outcomes(solved.values());
                out.finish_from(&solved)?;
                let distances = match solved.take_distances() {
                    Some(found) => {
                        phases.enter(Phase::Distances);
                        Some(self.write_distances(seeds, &found)?)
                    }
                    None => None,
                };
                (outcomes, retain.then(|| solved.into_values()), distances)
            }
            Solved::Streamed => {
                out.finish()?;
                (counts, kept, None)
            }
        };
        // The layer's checkpoint, or an interrupted build's scratch files.
        remove_dir(&config.scratch)?;
        Ok(BuiltLayer {
            outcomes,
            values,
            distances,
            phases: phases.finish(),
        })
    }

    /// Where layer `seeds` is written: its table, its published raw file if
    /// asked, and its raw copy for the layers above where they read one and
    /// it is not `retain`ed in memory.
    fn layer_output(&self, seeds: usize, retain: bool) -> Result<LayerOutput, TablebaseError> {
        let folder = self.folder;
        let cache = (!retain)
            .then(|| raw_copy(folder, seeds, &self.budget))
            .flatten();
        if cache.is_some() {
            create_dir(&lower_cache_dir(folder))?;
        }
        let published = self
            .options
            .keep_raw
            .then(|| raw::layer_path(folder, seeds));
        LayerOutput::create(
            folder,
            self.rules,
            seeds,
            published.into_iter().chain(cache),
        )
    }

    /// The engine's configuration for layer `seeds` as `plan` says, its
    /// set-up sweeping `sweep` positions before it answers its deferred
    /// lookups.
    fn config(
        &self,
        seeds: usize,
        plan: &LayerPlan,
        sweep: usize,
        phases: Phases,
    ) -> engine::Config {
        engine::Config {
            part: plan.part,
            sweep,
            scratch: scratch_dir(self.folder, seeds),
            checkpoint_every: Some(self.options.checkpoint_every),
            buffer_bytes: plan.buffer_bytes,
            distances: plan.levels,
            phases,
        }
    }

    /// Writes the distance table of layer `seeds`, whose value table is
    /// written, from the distances its engine `found` while building it.
    fn write_distances(
        &self,
        seeds: usize,
        found: &Distances,
    ) -> Result<DistanceReport, TablebaseError> {
        let start = Instant::now();
        let values = Table::open(table_path(self.folder, seeds))?;
        let report = distance::write_table(self.folder, self.rules, seeds, &values, found, start)?;
        Ok(DistanceReport {
            while_building: true,
            ..report
        })
    }

    /// Builds this rank's share of a layer with the others, and writes the
    /// share's blocks of the layer's table, and of its distance table if the
    /// engine found the distances ([`TableShare`]): no rank holds more of
    /// the layer than its share. Returns the layer's outcomes, on every rank.
    fn build_share<T: Transport>(
        &self,
        seeds: usize,
        plan: &LayerPlan,
        transport: &T,
        lower: &Layers,
    ) -> Result<(Outcomes, Option<DistanceReport>), TablebaseError> {
        let positions = index::layer_size(seeds);
        let share = self.budget.share(seeds, transport.rank());
        self.observer.layer_started(seeds, share.len() as u64);
        let progress = |steps| self.observer.advance(steps);
        let config = self.config(seeds, plan, usize::MAX, Phases::default());
        let resumed = |_| self.observer.layer_resumed(seeds);
        let mut solved = engine::solve_share(
            self.rules,
            seeds,
            lower,
            &config,
            &progress,
            transport,
            self.options.outbox_bytes,
            &resumed,
        )
        .map_err(TablebaseError::from)?;
        let start = Instant::now();
        let counts = outcomes(solved.values());
        let mut summed = [counts.wins, counts.draws, counts.losses];
        transport.sum_each(&mut summed);
        let [wins, draws, losses] = summed;
        let span = share.start as u64..share.end as u64;
        let mark = |first: usize, marked: &mut [i8]| {
            solved.mark(first..first + marked.len(), CAPTURE_DECIDES, marked);
        };
        let path = table_path(self.folder, seeds);
        let meta = table_meta(self.rules, seeds, ValueEncoding::ScoreOrCapture);
        (writers::oware_build(meta).share(&path, span.clone(), positions)?)
            .write(transport, mark)?;
        let distances = match solved.take_distances() {
            Some(found) => {
                let values = Table::open(&path)?;
                let longest = (0..found.len()).into_par_iter().map(|r| found.get(r)).max();
                let longest = transport.all_gather(u64::from(longest.unwrap_or(0)));
                let path = distance_path(self.folder, seeds);
                let fill = |first: usize, out: &mut [i16]| {
                    (out.iter_mut().enumerate())
                        .for_each(|(i, d)| *d = found.get(first + i) as i16);
                };
                (distance::writer(self.rules, seeds, &values).share(&path, span, positions)?)
                    .write(transport, fill)?;
                Some(DistanceReport {
                    seeds,
                    longest: longest.into_iter().max().unwrap_or(0) as u16,
                    bytes: file_len(&path),
                    seconds: start.elapsed().as_secs_f64(),
                    while_building: true,
                })
            }
            None => None,
        };
        remove_dir(&config.scratch)?;
        Ok((
            Outcomes {
                wins,
                draws,
                losses,
            },
            distances,
        ))
    }
}

/// The length of a file, 0 if it cannot be read.
fn file_len(path: &Path) -> u64 {
    fs::metadata(path).map_or(0, |m| m.len())
}

/// The scratch folder of a layer's out-of-core build.
pub fn scratch_dir(folder: &Path, seeds: usize) -> PathBuf {
    folder.join(format!("build.{seeds}"))
}

/// Where a new layer's values go, part by part: its table, and the
/// published format if asked.
struct LayerOutput {
    table: PendingTable,
    /// The published format, the lower-layer cache's copy, if asked.
    raw: Vec<RawWriter>,
}

impl LayerOutput {
    fn create(
        folder: &Path,
        rules: Ruleset,
        seeds: usize,
        raw_paths: impl IntoIterator<Item = PathBuf>,
    ) -> Result<LayerOutput, TablebaseError> {
        let table = writers::oware_build(table_meta(rules, seeds, ValueEncoding::ScoreOrCapture))
            .create(table_path(folder, seeds))?;
        let raw = raw_paths
            .into_iter()
            .map(RawWriter::create)
            .collect::<Result<_, _>>()?;
        Ok(LayerOutput { table, raw })
    }

    fn push(&mut self, values: &[i8], marked: &[i8]) -> Result<(), TablebaseError> {
        self.table.push(marked)?;
        for raw in &mut self.raw {
            raw.push(values)?;
        }
        Ok(())
    }

    fn finish(self) -> Result<(), TablebaseError> {
        for raw in self.raw {
            raw.finish()?;
        }
        self.table.finish()?;
        Ok(())
    }

    /// Writes a layer solved in memory, nothing pushed before: the table
    /// is coded from the solved values, not from a copy.
    fn finish_from(self, solved: &SolvedLayer) -> Result<(), TablebaseError> {
        for mut raw in self.raw {
            raw.push(solved.values())?;
            raw.finish()?;
        }
        let mark = |first: usize, marked: &mut [i8]| {
            solved.mark(first..first + marked.len(), CAPTURE_DECIDES, marked);
        };
        self.table.finish_from(solved.values().len(), mark)?;
        Ok(())
    }
}
