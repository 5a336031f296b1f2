//! The Oware commands: `build`, `query`, `stats`, `verify`, `export` and
//! `import` (the published Awari format, `scores.N`: one signed byte per
//! position in rank order, no header).

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use super::distances;
use super::shared::{
    Bars, ProbeIo, named, parse_pit, print_layer_histogram, probe_with, thread_pool,
};
use crate::answer::{OwareAnswer, OwareMove};
use crate::probe_lines::{Answer, BatchProber, numbers};
use mancala_tb::error::{LineError, MissingTable};
use mancala_tb::games::oware::{self, Board, MAX_SEEDS, Ruleset};
use mancala_tb::index::oware as index;
use mancala_tb::memory::{human_bytes, human_bytes_apart};
use mancala_tb::tablebase::oware::{self as tb, Engine, OwareTablebase, PvEnd};

/// Which Oware tables to use.
#[derive(Debug, Args)]
pub struct OwareTables {
    /// Ruleset: awari (rules of the 2002 solution) or abapa (tournament rules)
    #[arg(long, value_parser = named::<Ruleset>(Ruleset::ALL.map(Ruleset::name)), default_value_t = Ruleset::Awari)]
    pub rules: Ruleset,
    /// Tablebase folder (one sub-folder per game and ruleset)
    #[arg(long, default_value = "tablebases")]
    pub dir: PathBuf,
}

/// Twelve pit counts, mover's leftmost pit first, counter-clockwise.
pub fn oware_board(pits: &[u32]) -> anyhow::Result<Board> {
    Ok(oware::parse_board(pits)?)
}

#[derive(Debug, Args)]
pub struct BuildOware {
    /// Ruleset: awari (rules of the 2002 solution) or abapa (tournament rules)
    #[arg(long, value_parser = named::<Ruleset>(Ruleset::ALL.map(Ruleset::name)), default_value_t = Ruleset::Awari)]
    rules: Ruleset,
    /// Build every layer from 0 up to this many seeds (at most 48)
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(0..=MAX_SEEDS as i64))]
    max_seeds: u32,
    /// Tablebase folder; the layers go to DIR/oware-RULES/
    #[arg(long, default_value = "tablebases")]
    dir: PathBuf,
    /// Worker threads (default: one per core)
    #[arg(long)]
    threads: Option<usize>,
    /// Also write the raw layers (scores.N, the published format) beside
    /// the compressed tables. Not for --distributed builds (`export oware`
    /// writes them after)
    #[arg(long, conflicts_with = "distributed")]
    keep_raw: bool,
    /// Memory budget (e.g. 6G, 512M, 1.5G; binary units). Each layer is built
    /// in memory if it fits (1.5 bytes a position), else out of core (0.625:
    /// its states in memory, the rest in scratch files), else compact (0.25).
    /// Default: the memory available now, less 10%
    #[arg(long, value_parser = parse_size)]
    memory: Option<u64>,
    /// Build every layer with this engine (if it fits --memory) rather than
    /// the fastest that fits: in-memory, out-of-core or compact
    #[arg(long, value_parser = engine_name())]
    engine: Option<Engine>,
    /// Lower layers kept decoded in scratch files (DIR/oware-RULES/lower-cache/,
    /// 1 byte a position) and read through the page cache, outside --memory:
    /// an out-of-core layer then reads them directly instead of decoding their
    /// tables once per part. 0 turns it off. Default: the memory available
    /// now less --memory and 10% (so none with the default --memory). Not
    /// for --distributed builds
    #[arg(long, value_parser = parse_size_or_zero)]
    lower_cache: Option<u64>,
    /// A layer saves its engine's state at the first threshold boundary
    /// after this many seconds (and every as many after), and a rerun
    /// resumes from there (a --distributed build: every rank its share's,
    /// and the rerun needs as many ranks)
    #[arg(long, default_value_t = tb::CHECKPOINT_EVERY.as_secs())]
    checkpoint_every: u64,
    /// Build with the ranks of an `mpirun`, each holding its share of every
    /// layer (--memory and --threads are per rank; DIR must be a folder all
    /// ranks see). Needs a binary built with `--features mpi`
    #[arg(long)]
    distributed: bool,
    /// In a --distributed build, the most bytes one MPI message carries
    /// (exchanges larger than that go in rounds)
    #[arg(long, value_parser = parse_size, default_value = "256M", requires = "distributed")]
    message_size: u64,
    /// Do not find the distance tables (distance.N.mtb: the moves to the
    /// capture that secures each value, which lines and play follow). By
    /// default every layer built gets one, and a rerun adds those missing
    /// to layers already built, without building their values again
    #[arg(long)]
    no_distances: bool,
    /// Sample the worker threads as each layer is built, and after the
    /// summary say where its build spent its time: per phase (set-up,
    /// scans or seeding, propagation, recording, table...) its wall time,
    /// how much of it fewer than all threads were busy or a worker waited
    /// on the disk, and its serial share (build-times.tsv records each
    /// layer's, which `plan` takes)
    #[arg(long)]
    phases: bool,
}

/// An engine as `--engine` names it: its name with dashes for spaces.
fn engine_name() -> impl clap::builder::TypedValueParser<Value = Engine> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(["in-memory", "out-of-core", "compact"]).map(|name| {
        (name.replace('-', " ").parse()).unwrap_or_else(|_| unreachable!("{name} names an engine"))
    })
}

/// A size in bytes: a number with an optional unit K, M, G or T (powers of
/// 1024; a trailing B or iB is allowed).
pub(super) fn parse_size(s: &str) -> Result<u64, String> {
    let bad = || format!("'{s}' is not a size (e.g. 512M, 6G, 1.5G)");
    let upper = s.trim().to_ascii_uppercase();
    let body = upper.trim_end_matches("IB").trim_end_matches('B');
    let (number, unit) = match body.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&body[..i], c),
        _ => (body, ' '),
    };
    let shift = match unit {
        ' ' => 0,
        'K' => 10,
        'M' => 20,
        'G' => 30,
        'T' => 40,
        _ => return Err(bad()),
    };
    let value: f64 = number.trim().parse().map_err(|_| bad())?;
    let bytes = value * (1u64 << shift) as f64;
    if !bytes.is_finite() || bytes < 1.0 || bytes >= u64::MAX as f64 {
        return Err(bad());
    }
    Ok(bytes as u64)
}

/// [`parse_size`], or 0.
pub(super) fn parse_size_or_zero(s: &str) -> Result<u64, String> {
    match s.trim() {
        "0" => Ok(0),
        _ => parse_size(s),
    }
}

/// The budget and the lower cache a build uses: as given, or by default
/// what the job may use now (the memory available, capped by its memory
/// cgroup's limit) less 10% for the budget, and what that share leaves
/// beside the budget for the cache (none with the default budget). A
/// budget above the cgroup's limit is refused: the kernel would kill the
/// build when it got there.
pub(super) fn memory_and_lower_cache(
    memory: Option<u64>,
    lower_cache: Option<u64>,
) -> anyhow::Result<(u64, u64)> {
    let cgroup = mancala_tb::memory::cgroup_limit();
    if let (Some(asked), Some(limit)) = (memory.map(|m| m + lower_cache.unwrap_or(0)), &cgroup)
        && asked > limit.bytes
    {
        let [asked, allowed] = human_bytes_apart(asked, limit.bytes);
        return Err(super::exit::CliError::BadInput(format!(
            "--memory and --lower-cache ask for {asked} but this job's memory cgroup allows \
             {allowed} ({}); lower them",
            limit.file.display()
        ))
        .into());
    }
    let usable = mancala_tb::memory::usable()
        .context("cannot tell the memory available (no /proc/meminfo); pass --memory")?
        / 10
        * 9;
    let memory = memory.unwrap_or(usable);
    Ok((memory, lower_cache.unwrap_or(usable.saturating_sub(memory))))
}

pub fn build(args: BuildOware) -> anyhow::Result<()> {
    if args.distributed {
        return build_distributed(args);
    }
    let pool = thread_pool(args.threads)?;
    let (memory, lower_cache) = memory_and_lower_cache(args.memory, args.lower_cache)?;
    eprintln!(
        "Building {} layers 0..={} in {} with {} threads",
        args.rules,
        args.max_seeds,
        tb::ruleset_dir(&args.dir, args.rules).display(),
        pool.current_num_threads()
    );
    match lower_cache {
        0 => eprintln!("Memory budget {}; no lower cache", human_bytes(memory)),
        _ => eprintln!(
            "Memory budget {}; lower layers cached in files up to {}",
            human_bytes(memory),
            human_bytes(lower_cache)
        ),
    }
    let options = tb::BuildOptions {
        lower_cache,
        ..build_options(&args, memory)
    };
    let observer = Bars::oware(args.dir.clone(), args.rules);
    let reports = pool.install(|| tb::build(&args.dir, args.rules, &options, &observer))?;
    observer.print_summary(&reports);
    if args.phases {
        observer.print_phases();
    }
    Ok(())
}

fn build_options(args: &BuildOware, memory: u64) -> tb::BuildOptions {
    tb::BuildOptions {
        keep_raw: args.keep_raw,
        checkpoint_every: std::time::Duration::from_secs(args.checkpoint_every),
        engine: args.engine,
        distances: !args.no_distances,
        sample_phases: args.phases,
        message_bytes: args.message_size,
        ..tb::BuildOptions::new(args.max_seeds as usize, memory)
    }
}

#[cfg(not(feature = "mpi"))]
fn build_distributed(_args: BuildOware) -> anyhow::Result<()> {
    Err(super::exit::CliError::BadInput(
        "this mancala-tb was built without MPI: build it with `cargo build --release \
         --features mpi` and start it with mpirun (README, \"Distributed builds\")"
            .into(),
    )
    .into())
}

/// `build oware --distributed`: this process is one rank of an `mpirun`.
/// An error on any rank ends them all (the others would wait for it).
#[cfg(feature = "mpi")]
fn build_distributed(args: BuildOware) -> anyhow::Result<()> {
    use super::exit::CliError;
    use mancala_tb::distributed::{Mpi, Transport};
    use mancala_tb::tablebase::Quiet;
    use mancala_tb::tablebase::oware::OwareObserver;

    let message_bytes = usize::try_from(args.message_size).unwrap_or(usize::MAX);
    let mpi = Mpi::init(message_bytes).context("MPI was started twice")?;
    let (rank, ranks) = (mpi.rank(), mpi.ranks());
    // The same on every rank: an error here is said once, by rank 0.
    let setup = || -> anyhow::Result<u64> {
        if args.threads == Some(0) {
            return Err(CliError::BadInput("--threads must be at least 1".into()).into());
        }
        // MPI is called from this (the main) thread only; the engine's
        // workers are the global pool's.
        rayon::ThreadPoolBuilder::new()
            .num_threads(args.threads.unwrap_or(0))
            .build_global()
            .context("cannot start the worker threads")?;
        Ok(match args.memory {
            Some(memory) => memory,
            // The ranks on this machine share its memory.
            None => memory_and_lower_cache(None, Some(0))?.0 / local_ranks(),
        })
    };
    let memory = match setup() {
        Ok(memory) => memory,
        Err(err) if rank == 0 => return Err(err),
        Err(err) => {
            drop(mpi);
            std::process::exit(super::report(&err).1.into());
        }
    };
    let run = || -> anyhow::Result<()> {
        if rank == 0 {
            eprintln!(
                "Building {} layers 0..={} in {} with {ranks} ranks of {} threads",
                args.rules,
                args.max_seeds,
                tb::ruleset_dir(&args.dir, args.rules).display(),
                rayon::current_num_threads()
            );
            eprintln!("Memory budget {} per rank", human_bytes(memory));
        }
        // The bound MPI keeps (brought within its limits for the ranks):
        // each rank's budget holds a message piece of it.
        let options = tb::BuildOptions {
            message_bytes: mpi.message_bytes() as u64,
            ..build_options(&args, memory)
        };
        let bars = Bars::oware(args.dir.clone(), args.rules);
        let observer: &dyn OwareObserver = if rank == 0 { &bars } else { &Quiet };
        let reports = tb::build_on(&args.dir, args.rules, &options, observer, &mpi)?;
        if rank == 0 {
            bars.print_summary(&reports);
        }
        Ok(())
    };
    if let Err(err) = run() {
        let (message, code) = super::report(&err);
        eprintln!("error: rank {rank} of {ranks}: {message}");
        mpi.abort(i32::from(code));
    }
    Ok(())
}

/// How many ranks of the job run on this machine (OpenMPI tells; 1 if
/// unknown).
#[cfg(feature = "mpi")]
fn local_ranks() -> u64 {
    std::env::var("OMPI_COMM_WORLD_LOCAL_SIZE")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1)
        .max(1)
}

#[derive(Debug, Args)]
pub struct QueryOware {
    #[command(flatten)]
    tables: OwareTables,
    /// Print JSON: {"value": v, "distance": d, "moves": [{"pit": 0,
    /// "captured": c, "child": [pits], "distance": d, "value": -1}, ...],
    /// "best": [pits], "pv": [{"pit": p, "captured": c, "board": [pits],
    /// "distance": d, "value": v}, ...]}; a distance is null without
    /// distance tables
    #[arg(long)]
    json: bool,
    /// Longest principal variation shown, in moves
    #[arg(long, default_value_t = 100)]
    pv_limit: usize,
    /// Twelve pit counts, counter-clockwise from the mover's leftmost pit
    /// (mover's pits 0-5, then the opponent's 6-11)
    #[arg(required = true, num_args = 1.., value_parser = parse_pit, allow_negative_numbers = true)]
    pits: Vec<u32>,
}

pub fn query(args: QueryOware) -> anyhow::Result<()> {
    let board = oware_board(&args.pits)?;
    let tables = OwareTablebase::open(&args.tables.dir, args.tables.rules)?;
    let answer = OwareAnswer::probe(&tables, &board, args.pv_limit)?;
    if args.json {
        println!("{}", serde_json::to_string(&answer)?);
        return Ok(());
    }
    println!(
        "value {:+} ({}){}",
        answer.value,
        describe(answer.value),
        secured(answer.value, answer.distance)
    );
    if answer.moves.is_empty() {
        println!("no legal move: the game is over");
    }
    for m in &answer.moves {
        let mark = if m.value == answer.value {
            "  best"
        } else {
            ""
        };
        let distance = m
            .distance
            .map_or(String::new(), |d| format!(", distance {d}"));
        println!(
            "  pit {}: {:+} (captures {}{distance}){mark}",
            m.pit, m.value, m.captured
        );
    }
    print_pv(tables.rules(), &answer);
    warn_without_distances(&tables, &args.tables);
    Ok(())
}

/// How far the capture that secures a value is, for people.
fn secured(value: i8, distance: Option<u16>) -> String {
    match (value, distance) {
        (0, _) | (_, None) => String::new(),
        (_, Some(0)) => "; the game is over".into(),
        (_, Some(1)) => "; secured by this move's capture".into(),
        (v, Some(d)) if v > 0 => format!("; the mover secures it in {}", distances::plies(d)),
        (_, Some(d)) => format!(
            "; the opponent secures it in {}, the mover delaying",
            distances::plies(d)
        ),
    }
}

/// Says once that lines may go round when layers lack their distance
/// tables, and which command adds them.
pub fn warn_without_distances(tables: &OwareTablebase, args: &OwareTables) {
    let missing = tables.layers_without_distances();
    let Some(&top) = missing.last() else {
        return;
    };
    eprintln!(
        "note: {} of the built layers ({}) have no distance tables, so lines and play \
         through them may go round before they reach the value; `mancala-tb build {}` adds \
         them without building the values again",
        missing.len(),
        layer_list(&missing),
        tb::build_args(&args.dir, args.rules, top)
    );
}

/// Layers as ranges: `0-12, 14`.
fn layer_list(layers: &[usize]) -> String {
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    for &s in layers {
        match ranges.last_mut() {
            Some((_, end)) if *end + 1 == s => *end = s,
            _ => ranges.push((s, s)),
        }
    }
    let text: Vec<String> = ranges
        .iter()
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect();
    text.join(", ")
}

/// The principal variation, one move per line with the position after it
/// (seen from the player to move next).
fn print_pv(rules: Ruleset, answer: &OwareAnswer) {
    if answer.pv.is_empty() {
        return;
    }
    println!("principal variation (position after each move, next mover's pits first):");
    for (i, step) in answer.pv.iter().enumerate() {
        let pits: Vec<String> = step.board.iter().map(|p| p.to_string()).collect();
        let distance = step
            .distance
            .map_or(String::new(), |d| format!(", distance {d}"));
        println!(
            "  {:>3}. {} pit {} captures {:>2} (value {:+}{distance})  {}",
            i + 1,
            if i % 2 == 0 { "mover   " } else { "opponent" },
            step.pit,
            step.captured,
            step.value,
            pits.join(" ")
        );
    }
    let why = match answer.pv_end {
        PvEnd::GameOver => "the game ends (remaining seeds shared out by the rules)",
        PvEnd::Repetition => "the position repeats: best play goes on for ever",
        PvEnd::Limit => "length limit (--pv-limit)",
    };
    let score = answer.pv_score(rules);
    println!(
        "  seeds won along the line: mover {}, opponent {}; stops because {why}",
        score[0], score[1]
    );
}

fn describe(value: i8) -> String {
    match value {
        0 => "draw with perfect play".into(),
        v if v > 0 => format!("the mover wins {v} more seeds than the opponent"),
        v => format!("the opponent wins {} more seeds than the mover", -v),
    }
}

#[derive(Debug, Args)]
pub struct StatsOware {
    #[command(flatten)]
    tables: OwareTables,
    /// The layer: seeds on the board
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=MAX_SEEDS as i64))]
    seeds: u32,
    /// Print JSON: {"seeds": N, "positions": P, "histogram": {"-3": 12, ...}}
    #[arg(long)]
    json: bool,
}

pub fn stats(args: StatsOware) -> anyhow::Result<()> {
    let seeds = args.seeds as usize;
    let title = args.tables.rules.to_string();
    tb::decode_layers(&args.tables.dir, args.tables.rules, seeds, |s, values| {
        if s == seeds {
            print_layer_histogram(&title, args.seeds, values, args.json);
        }
        Ok(())
    })?;
    Ok(())
}

#[derive(Debug, Args)]
pub struct VerifyOware {
    #[command(flatten)]
    tables: OwareTables,
    /// Check layers 0..=N (default: up to the highest layer present)
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=MAX_SEEDS as i64))]
    max_seeds: Option<u32>,
    /// A folder of published scores.N files that must hold the same values
    #[arg(long)]
    against: Option<PathBuf>,
    /// Memory budget (e.g. 6G, 512M; binary units): the layer checked is
    /// decoded into memory (1 byte a position) beside a part of its
    /// positions, and the lower layers it reads most stay in memory while
    /// the budget holds them; the others are read from raw copies in
    /// scratch files (see --lower-cache), and those the cache does not hold
    /// only in order, their lookups deferred. Default: as `build oware`'s
    #[arg(long, value_parser = parse_size)]
    memory: Option<u64>,
    /// Lower layers kept decoded in scratch files and read through the page
    /// cache, outside --memory, as `build oware --lower-cache` (default: as
    /// there, the memory available now less --memory and 10%)
    #[arg(long, value_parser = parse_size_or_zero)]
    lower_cache: Option<u64>,
    /// Folder for the scratch files of lower layers that leave memory, in
    /// a verify-scratch folder removed at the end (default: DIR/oware-RULES;
    /// for tables on a read-only or small disk)
    #[arg(long)]
    scratch: Option<PathBuf>,
}

pub fn verify(args: VerifyOware) -> anyhow::Result<()> {
    let (dir, rules) = (&args.tables.dir, args.tables.rules);
    let max = match args.max_seeds {
        Some(max) => max as usize,
        None => {
            // Every layer up to the highest present: a gap is reported.
            let top = OwareTablebase::open(dir, rules)?.built_layers().last();
            top.ok_or_else(|| MissingTable {
                table: format!("every layer of the {rules} tables"),
                path: tb::ruleset_dir(dir, rules),
                build_args: format!("oware --rules {rules} --dir {}", dir.display()),
            })?
        }
    };
    let total: u64 = (0..=max).map(index::layer_size).sum();
    let bar = ProgressBar::new(total).with_style(
        ProgressStyle::with_template(
            "verify [{bar:30}] {percent:>3}% {elapsed_precise} eta {eta} {per_sec}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    let (memory, lower_cache) = memory_and_lower_cache(args.memory, args.lower_cache)?;
    let options = tb::VerifyOptions {
        max_seeds: max,
        memory,
        lower_cache,
        scratch: args.scratch,
        against: args.against,
    };
    let start = std::time::Instant::now();
    let streamed = std::sync::Mutex::new(Vec::new());
    let without_distances = std::sync::Mutex::new(Vec::new());
    tb::verify(dir, rules, &options, &|layer| {
        bar.inc(layer.positions);
        if layer.streamed > 0 {
            streamed.lock().unwrap().push(layer.seeds);
        }
        if !layer.distances {
            without_distances.lock().unwrap().push(layer.seeds);
        }
    })?;
    bar.finish_and_clear();
    let seconds = start.elapsed().as_secs_f64();
    let against = options
        .against
        .map(|a| format!(", identical to the files in {}", a.display()))
        .unwrap_or_default();
    let without_distances = without_distances.into_inner().unwrap();
    let distances = match max + 1 - without_distances.len() {
        0 => String::new(),
        n => format!("; the distance tables of {n} layers against their moves"),
    };
    println!(
        "{rules} layers 0..={max}: {total} positions verified in {seconds:.1} s ({:.2}M positions/s): headers, checksums and every value against its children{against}{distances}",
        total as f64 / seconds / 1e6
    );
    if let Some(&top) = without_distances.last() {
        let (layers, them) = match without_distances.len() {
            1 => ("layer", "it"),
            _ => ("layers", "them"),
        };
        println!(
            "no distance table for {layers} {}: `mancala-tb build {}` adds {them}",
            layer_list(&without_distances),
            tb::build_args(dir, rules, top),
        );
    }
    let streamed = streamed.into_inner().unwrap();
    if let Some(first) = streamed.iter().min() {
        println!(
            "{} layers (from layer {first}) streamed lower layers from scratch files: \
             --memory {} and the lower cache did not hold them",
            streamed.len(),
            human_bytes(memory)
        );
    }
    Ok(())
}

#[derive(Debug, Args)]
pub struct ExportOware {
    #[command(flatten)]
    tables: OwareTables,
    /// The layer: seeds on the board
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=MAX_SEEDS as i64))]
    seeds: u32,
    /// The file to write
    #[arg(long)]
    out: PathBuf,
}

#[derive(Debug, Args)]
pub struct ImportOware {
    #[command(flatten)]
    tables: OwareTables,
    /// The layer: seeds on the board
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=MAX_SEEDS as i64))]
    seeds: u32,
    /// The scores.N file
    file: PathBuf,
}

pub fn export(args: ExportOware) -> anyhow::Result<()> {
    tb::export(
        &args.tables.dir,
        args.tables.rules,
        args.seeds as usize,
        &args.out,
    )?;
    println!("wrote layer {} to {}", args.seeds, args.out.display());
    Ok(())
}

pub fn import(args: ImportOware) -> anyhow::Result<()> {
    let path = tb::import(
        &args.tables.dir,
        args.tables.rules,
        args.seeds as usize,
        &args.file,
    )?;
    println!("imported {} into {}", args.file.display(), path.display());
    Ok(())
}

#[derive(Debug, Args)]
pub struct ProbeOware {
    #[command(flatten)]
    tables: OwareTables,
    #[command(flatten)]
    io: ProbeIo,
}

pub fn probe(args: ProbeOware) -> anyhow::Result<()> {
    let tables = OwareTablebase::open(&args.tables.dir, args.tables.rules)?;
    probe_with(&OwareLines { tables }, &args.io)
}

/// `probe oware` lines: twelve pit counts in, the value (or a JSON object
/// with the moves) out; each batch looked up at once (`probe_many`).
struct OwareLines {
    tables: OwareTablebase,
}

impl BatchProber for OwareLines {
    type Position = Board;

    fn parse(&self, line: &str) -> Result<Board, String> {
        oware::parse_board(&numbers(line)?).map_err(|e| e.to_string())
    }

    fn answer(&self, boards: &[Board], json: bool) -> Result<Vec<Answer>, LineError> {
        let probed = self
            .tables
            .probe_many(
                boards,
                if json {
                    tb::Detail::MovesAndDistances
                } else {
                    tb::Detail::Values
                },
            )
            .map_err(|e| LineError::of(&e, e.cause()))?;
        Ok(boards
            .iter()
            .zip(probed)
            .map(|(board, probed)| {
                let p = probed.map_err(|e| LineError::of(&e, e.cause()))?;
                if !json {
                    return Ok(p.value.to_string());
                }
                let moves: Vec<_> = p.moves.iter().map(OwareMove::from).collect();
                let out = serde_json::json!({
                    "pits": board, "value": p.value, "distance": p.distance, "moves": moves
                });
                Ok(out.to_string())
            })
            .collect())
    }
}
