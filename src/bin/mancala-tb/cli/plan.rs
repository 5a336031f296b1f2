//! `mancala-tb plan oware`: the projection of a build
//! (`tablebase::oware::plan`) as a table, or as JSON, with what it assumes
//! in words.

use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use super::oware::{memory_and_lower_cache, parse_size, parse_size_or_zero};
use super::shared::{named, thread_pool};
use mancala_tb::games::oware::{MAX_SEEDS, Ruleset};
use mancala_tb::index::oware as index;
use mancala_tb::memory::human_bytes;
use mancala_tb::tablebase::oware::plan::{
    Assumptions, CALIBRATION_RUNS, Calibration, Figures, LayerProjection, Projection, RATE_SPREAD,
    RecordedRates, SerialShares, calibrate, project,
};
use mancala_tb::tablebase::oware::{self as tb, Engine};

#[derive(Debug, Args)]
pub struct PlanOware {
    /// Ruleset of the calibration build and of the recorded rates
    #[arg(long, value_parser = named::<Ruleset>(Ruleset::ALL.map(Ruleset::name)), default_value_t = Ruleset::Awari)]
    rules: Ruleset,
    /// Tablebase folder whose earlier builds' rates (DIR/oware-RULES/build-times.tsv)
    /// replace the calibration's for the layers they built in memory, and
    /// set how the rate falls beyond them
    #[arg(long, default_value = "tablebases")]
    dir: PathBuf,
    /// Project the layers 0..=N (48: the whole game, without layer 47)
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=MAX_SEEDS as i64))]
    max_seeds: u32,
    /// Memory budget per node (default: the memory available here, less 10%)
    #[arg(long, value_parser = parse_size)]
    memory: Option<u64>,
    /// Lower layers kept decoded in files per node, as `build oware
    /// --lower-cache` (default: as there, the memory available here less
    /// --memory and 10%)
    #[arg(long, value_parser = parse_size_or_zero)]
    lower_cache: Option<u64>,
    /// Disk per node for the tables and scratch files: a layer whose set-up
    /// defers lookups sweeps it in as many rounds as the disk leaves room
    /// for, and a layer whose files do not fit is refused (default: no
    /// limit, each layer swept at once). With --nodes above 1: the shared
    /// build folder's, which holds the tables, their part files and every
    /// rank's checkpoints
    #[arg(long, value_parser = parse_size)]
    disk: Option<u64>,
    /// Threads per node (default: the cores here); rates scale with them by
    /// Amdahl's law per engine, with the serial shares the largest layers
    /// built in DIR measured, else those fitted on 16 cores (the
    /// assumptions list them)
    #[arg(long)]
    threads: Option<usize>,
    /// Nodes sharing each layer (ranks of a `build oware --distributed`,
    /// one a node): each builds its share in memory beside its message
    /// buffers; a share that does not fit --memory is refused
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    nodes: u64,
    /// With --nodes above 1, the most bytes one message carries, as `build
    /// oware --distributed --message-size`: each node holds one beside
    /// twice its outbox of notices (64M)
    #[arg(long, value_parser = parse_size, default_value = "256M")]
    message_size: u64,
    /// The layer built to measure this machine's rates, three times with each engine (about a minute at 16 on 2 cores)
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(8..=22))]
    calibrate_seeds: u32,
    /// Print JSON: {"layers": [{"seeds", "positions", "share_positions" (the
    /// largest node's), "mode", "memory_bytes" (per node: the sum of
    /// "engine_bytes", "levels_bytes", "lower_resident_bytes" and
    /// "message_buffer_bytes"), "least_memory_bytes", "disk_bytes",
    /// "distance_seconds", "distances_while_building", "sweeps",
    /// "table_bytes_per_position", "network_bytes_per_position" (notices
    /// and tables), "seconds"}, ...], "positions", "peak_memory_bytes",
    /// "disk_bytes", "seconds", "seconds_spread" (with every rate 15%
    /// higher, lower), "assumptions": {..., "notice_bytes_per_position",
    /// "outbox_bytes", "message_bytes", "stated": [...]}}
    #[arg(long)]
    json: bool,
    /// Project a build without distance tables (`build oware
    /// --no-distances`); by default each layer gets one where the memory
    /// allows (column "distances": the time it adds, found as the layer is
    /// built in memory, or by a pass after it; in "time" too)
    #[arg(long)]
    no_distances: bool,
}

pub fn run(args: PlanOware) -> anyhow::Result<()> {
    let (memory, lower_cache) = memory_and_lower_cache(args.memory, args.lower_cache)?;
    // The projection runs on as many threads as it projects: the compact
    // engine's buffers are per worker.
    let projected = thread_pool(args.threads)?;
    let (calibration, recorded) = rates(&args)?;
    let assumptions = Assumptions {
        calibration,
        threads: projected.current_num_threads(),
        nodes: args.nodes as usize,
        memory,
        lower_cache,
        recorded,
        disk: args.disk,
        message_bytes: args.message_size,
        distances: !args.no_distances,
    };
    let plan = projected.install(|| project(args.max_seeds as usize, &assumptions))?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string(&plan_json(&assumptions, &plan))?
        );
        return Ok(());
    }
    match args.nodes {
        1 => print_one_node(&plan, args.no_distances),
        _ => print_nodes(&plan, args.no_distances),
    }
    println!(
        "total {} positions; peak memory {} per node; disk {}; time {} ({} to {})",
        plan.positions,
        human_bytes(plan.peak_memory_bytes),
        human_bytes(plan.disk_bytes),
        duration(plan.seconds),
        duration(plan.seconds_spread[0]),
        duration(plan.seconds_spread[1]),
    );
    println!("assumptions:");
    for line in &stated(&assumptions, &plan.figures) {
        println!("  - {line}");
    }
    Ok(())
}

/// The rates the projection starts from: this machine's, measured on all
/// its cores (the projection scales them to the threads it projects), and
/// those the builds in `--dir` recorded, whose serial shares the
/// calibration scales by.
fn rates(args: &PlanOware) -> anyhow::Result<(Calibration, Option<RecordedRates>)> {
    let pool = thread_pool(None)?;
    eprintln!(
        "Calibrating: building {} layers 0..={} with {} threads",
        args.rules,
        args.calibrate_seeds,
        pool.current_num_threads()
    );
    let times = tb::build_times(&args.dir, args.rules)?;
    let serial = SerialShares::recorded(&times);
    let calibration =
        pool.install(|| calibrate(args.rules, args.calibrate_seeds as usize, serial))?;
    Ok((calibration, RecordedRates::new(&times)))
}

/// The table of a build in one process: each layer's memory and what it is
/// made of, the least its engine takes, its disk and its time.
fn print_one_node(plan: &Projection, no_distances: bool) {
    println!(
        "{:>5} {:>15} {:<11} {:>12} {:>12} {:>12} {:>12} {:>12} {:>6} {:>18} {:>12}",
        "seeds",
        "positions",
        "mode",
        "memory",
        "engine",
        "lower kept",
        "least",
        "disk",
        "sweeps",
        "distances",
        "time"
    );
    for l in &plan.layers {
        println!(
            "{:>5} {:>15} {:<11} {:>12} {:>12} {:>12} {:>12} {:>12} {:>6} {:>18} {:>12}",
            l.seeds,
            l.positions,
            l.engine.to_string(),
            human_bytes(l.memory_bytes),
            human_bytes(l.engine_bytes + l.levels_bytes),
            human_bytes(l.lower_resident_bytes),
            human_bytes(l.least_memory_bytes),
            human_bytes(l.disk_bytes),
            l.sweeps,
            distances(l, no_distances),
            duration(l.seconds)
        );
    }
}

/// The table of a build over several nodes, per node: the largest share,
/// its memory and what it is made of; the network per position; the
/// shared folder's disk.
fn print_nodes(plan: &Projection, no_distances: bool) {
    println!(
        "per node: memory = engine (its share's state) + levels + lower layers kept + message buffers; \
         network bytes a position = notices + tables written to the shared folder; disk: the shared folder"
    );
    println!(
        "{:>5} {:>15} {:>14} {:>10} {:>10} {:>10} {:>10} {:>10} {:>13} {:>10} {:>18} {:>12}",
        "seeds",
        "positions",
        "share",
        "memory",
        "engine",
        "levels",
        "lower kept",
        "buffers",
        "net B/pos",
        "disk",
        "distances",
        "time"
    );
    let notices = plan.figures.notice_bytes_per_position;
    for l in &plan.layers {
        println!(
            "{:>5} {:>15} {:>14} {:>10} {:>10} {:>10} {:>10} {:>10} {:>13} {:>10} {:>18} {:>12}",
            l.seeds,
            l.positions,
            l.share_positions,
            human_bytes(l.memory_bytes),
            human_bytes(l.engine_bytes),
            human_bytes(l.levels_bytes),
            human_bytes(l.lower_resident_bytes),
            human_bytes(l.message_buffer_bytes),
            format!("{notices:.2}+{:.2}", l.table_bytes_per_position),
            human_bytes(l.disk_bytes),
            distances(l, no_distances),
            duration(l.seconds)
        );
    }
}

/// A layer's "distances" cell: the time they add and how they are found,
/// else why there are none.
fn distances(l: &LayerProjection, no_distances: bool) -> String {
    match l.distance_seconds {
        Some(seconds) => {
            let how = match l.distances_while_building {
                true => "built",
                false => "pass",
            };
            format!("{} ({how})", duration(seconds))
        }
        None if no_distances => "-".into(),
        None => "none (no room)".into(),
    }
}

/// `3 h 12 min`, `42 s`.
fn duration(seconds: f64) -> String {
    let s = seconds.round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        3600..86400 => format!("{} h {} min", s / 3600, s % 3600 / 60),
        _ => format!("{} d {} h", s / 86400, s % 86400 / 3600),
    }
}

/// `plan oware --json`: the projection. Fields here and in the layers are
/// in alphabetical order, the order it always printed them in.
#[derive(Debug, Serialize)]
struct PlanJson {
    assumptions: AssumptionsJson,
    disk_bytes: u64,
    layers: Vec<LayerJson>,
    peak_memory_bytes: u64,
    positions: u64,
    seconds: f64,
    seconds_spread: [f64; 2],
}

/// A layer of [`PlanJson`]: a [`LayerProjection`], its engine as `mode`.
#[derive(Debug, Serialize)]
struct LayerJson {
    disk_bytes: u64,
    distance_seconds: Option<f64>,
    distances_while_building: bool,
    engine_bytes: u64,
    least_memory_bytes: u64,
    levels_bytes: u64,
    lower_resident_bytes: u64,
    memory_bytes: u64,
    message_buffer_bytes: u64,
    mode: String,
    network_bytes_per_position: f64,
    positions: u64,
    seconds: f64,
    seeds: usize,
    share_positions: u64,
    sweeps: u64,
    table_bytes_per_position: f64,
}

/// What the projection assumes, in numbers (the calibration's rates first)
/// and in words (`stated`, as the table lists them).
#[derive(Debug, Serialize)]
struct AssumptionsJson {
    out_of_core_rate: f64,
    compact_rate: f64,
    calibration_seeds: usize,
    calibration_threads: usize,
    decode_seconds_per_position: f64,
    deferred_bytes_per_position: f64,
    disk_bytes_per_second: f64,
    disk_limit_bytes: Option<u64>,
    in_memory_rate: f64,
    lower_cache_bytes: u64,
    memory_bytes: u64,
    message_bytes: u64,
    network_bytes_per_second: f64,
    node_efficiency: f64,
    nodes: usize,
    notice_bytes_per_position: f64,
    outbox_bytes: u64,
    rate_exponent: f64,
    rate_fall_ends_seeds: usize,
    recorded_rate_exponent: Option<f64>,
    recorded_seeds: Vec<usize>,
    scratch_bytes_per_position: f64,
    serial_shares: SharesJson,
    stated: Vec<String>,
    table_bytes_per_position: f64,
    threads: usize,
}

/// [`SerialShares`] in [`AssumptionsJson`].
#[derive(Debug, Serialize)]
struct SharesJson {
    in_memory: f64,
    out_of_core: f64,
    compact: f64,
    measured_on: [Option<usize>; 3],
}

/// The JSON of `plan`, made with `a`.
fn plan_json(a: &Assumptions, plan: &Projection) -> PlanJson {
    let c = a.calibration;
    let f = &plan.figures;
    let SerialShares {
        in_memory,
        out_of_core,
        compact,
        measured_on,
    } = c.serial;
    PlanJson {
        assumptions: AssumptionsJson {
            out_of_core_rate: c.out_of_core,
            compact_rate: c.compact,
            calibration_seeds: c.seeds,
            calibration_threads: c.threads,
            decode_seconds_per_position: f.decode_seconds_per_position,
            deferred_bytes_per_position: f.deferred_bytes_per_position,
            disk_bytes_per_second: f.disk_bytes_per_second,
            disk_limit_bytes: a.disk,
            in_memory_rate: c.in_memory,
            lower_cache_bytes: a.lower_cache,
            memory_bytes: a.memory,
            message_bytes: f.message_bytes,
            network_bytes_per_second: f.network_bytes_per_second,
            node_efficiency: f.node_efficiency,
            nodes: a.nodes,
            notice_bytes_per_position: f.notice_bytes_per_position,
            outbox_bytes: f.outbox_bytes,
            rate_exponent: f.rate_exponent,
            rate_fall_ends_seeds: f.rate_fall_ends_seeds,
            recorded_rate_exponent: a.recorded.as_ref().map(|r| r.exponent),
            recorded_seeds: a.recorded.as_ref().map_or_else(Vec::new, |r| r.seeds()),
            scratch_bytes_per_position: Engine::OutOfCore.scratch_bytes_per_position(),
            serial_shares: SharesJson {
                in_memory,
                out_of_core,
                compact,
                measured_on,
            },
            stated: stated(a, f),
            table_bytes_per_position: f.table_bytes_per_position,
            threads: a.threads,
        },
        disk_bytes: plan.disk_bytes,
        layers: plan.layers.iter().map(layer_json).collect(),
        peak_memory_bytes: plan.peak_memory_bytes,
        positions: plan.positions,
        seconds: plan.seconds,
        seconds_spread: plan.seconds_spread,
    }
}

/// A layer's JSON: every field of the projection's (a new one must be
/// placed here).
fn layer_json(layer: &LayerProjection) -> LayerJson {
    let LayerProjection {
        disk_bytes,
        distance_seconds,
        distances_while_building,
        engine_bytes,
        least_memory_bytes,
        levels_bytes,
        lower_resident_bytes,
        memory_bytes,
        message_buffer_bytes,
        engine,
        network_bytes_per_position,
        positions,
        seconds,
        seeds,
        share_positions,
        sweeps,
        table_bytes_per_position,
    } = *layer;
    LayerJson {
        disk_bytes,
        distance_seconds,
        distances_while_building,
        engine_bytes,
        least_memory_bytes,
        levels_bytes,
        lower_resident_bytes,
        memory_bytes,
        message_buffer_bytes,
        mode: engine.to_string(),
        network_bytes_per_position,
        positions,
        seconds,
        seeds,
        share_positions,
        sweeps,
        table_bytes_per_position,
    }
}

/// What the projection with `a` assumes, in sentences: the rates, the
/// nodes, the network, the lower layers, the disk, the engines' least
/// memory and the distances (the recorded rates third, if any).
fn stated(a: &Assumptions, f: &Figures) -> Vec<String> {
    let mut stated = vec![calibration_stated(&a.calibration), scaling_stated(a, f)];
    stated.extend(a.recorded.as_ref().map(|r| recorded_stated(r, f)));
    stated.extend([
        nodes_stated(a, f),
        network_stated(a, f),
        lower_cache_stated(a, f),
        streamed_stated(f),
        disk_stated(a, f),
        least_stated(f),
        distances_stated(a, f),
    ]);
    stated
}

/// The rates measured here, and how they were measured: from CPU time, so
/// that other processes' load hardly counts.
fn calibration_stated(c: &Calibration) -> String {
    format!(
        "rates measured here on layer {} with {} threads, from CPU time (the median of {CALIBRATION_RUNS} builds each, taken for one thread's time and scaled by the speed-up below, so that other processes' load hardly counts): {:.2}M positions/s in memory, {:.2}M out of core, {:.2}M compact; `time` with every rate {:.0}% higher and lower in brackets",
        c.seeds,
        c.threads,
        c.in_memory / 1e6,
        c.out_of_core / 1e6,
        c.compact / 1e6,
        RATE_SPREAD * 100.0,
    )
}

/// How the rates scale to the threads projected and fall with the layer
/// size where no build recorded it.
fn scaling_stated(a: &Assumptions, f: &Figures) -> String {
    let serial = &a.calibration.serial;
    format!(
        "rates scale with threads ({} per node) by Amdahl's law with serial shares of {:.1}% in memory, {:.1}% out of core and {:.1}% compact, {} (16 threads {:.1}, {:.1} and {:.1} times as fast as one); where no build recorded a layer, they fall from the calibration's as (layer size)^-{} up to layer {}'s size ({:.2}G positions) and stay flat beyond",
        a.threads,
        serial.in_memory * 100.0,
        serial.out_of_core * 100.0,
        serial.compact * 100.0,
        shares_origin(serial),
        serial.speedup(Engine::InMemory, 16),
        serial.speedup(Engine::OutOfCore, 16),
        serial.speedup(Engine::Compact, 16),
        f.rate_exponent,
        f.rate_fall_ends_seeds,
        index::layer_size(f.rate_fall_ends_seeds) as f64 / 1e9,
    )
}

/// The rates earlier builds here recorded, which replace the calibration's
/// where they reach, and how they fall beyond the largest.
fn recorded_stated(r: &RecordedRates, f: &Figures) -> String {
    let seeds = r.seeds();
    let fall = match r.fitted {
        true => "fitted to the largest recorded layers of at least 100M positions",
        false => "too few large layers recorded to fit",
    };
    format!(
        "in memory, the rates of layers {} as recorded by earlier builds here (build-times.tsv; as quiet or loaded as they ran) replace the calibration's (taken to other thread counts by the same law); beyond layer {} they fall as (layer size)^-{:.2} ({fall}) up to layer {}'s size",
        seeds_list(&seeds),
        seeds.last().expect("a recorded layer"),
        r.exponent,
        f.rate_fall_ends_seeds,
    )
}

/// What a node's memory holds: with several nodes, a share of each layer
/// beside its message buffers.
fn nodes_stated(a: &Assumptions, f: &Figures) -> String {
    match a.nodes {
        1 => format!(
            "1 node with {} of memory; a layer's memory is its engine's (and its levels, where it finds the distances as it builds) plus the lower layers kept in memory",
            human_bytes(a.memory),
        ),
        k => format!(
            "{k} nodes (ranks), each with {} of memory, holding a share of each layer (whole chunks of {} positions, as even as they go; the largest is projected), built in memory only beside its message buffers: twice its outbox of notices ({}, as `build oware`) and one message of at most {} (--message-size); then the levels where they fit; then whole lower layers kept decoded in memory where the room left holds them (1 byte/position), the rest read from their tables in the shared folder; a share that does not fit is refused; several nodes keep {:.0}% of their rate",
            human_bytes(a.memory),
            f.chunk_positions,
            human_bytes(f.outbox_bytes),
            human_bytes(f.message_bytes),
            f.node_efficiency * 100.0
        ),
    }
}

/// What crosses the network between nodes, and how fast.
fn network_stated(a: &Assumptions, f: &Figures) -> String {
    match a.nodes {
        1 => "between nodes: nothing (one node)".to_string(),
        k => format!(
            "between nodes, per position of a layer: {:.2} bytes of notices (8 bytes, about 2.75 a position, {} x (K-1)/K with K = {k}), no values (no layer is gathered), and the tables each rank writes into the shared folder ({} bytes/position, {} more where distances are found; their part files' copy into place and check are not counted); over {:.0} Gbit/s per node, not overlapping computation",
            f.notice_bytes_per_position,
            f.remote_notice_bytes_per_position,
            f.table_bytes_per_position,
            f.distance_table_bytes_per_position,
            f.network_bytes_per_second * 8.0 / 1e9
        ),
    }
}

/// The lower layers kept decoded in scratch files, and what decoding the
/// others costs.
fn lower_cache_stated(a: &Assumptions, f: &Figures) -> String {
    format!(
        "lower layers the memory left beside the engine cannot keep are kept decoded in scratch files up to {} (read through the page cache); a part of a layer decodes all of layers n-2 and n-3 that neither keeps (captures reach them all), at {:.1} ns per position per thread",
        human_bytes(a.lower_cache),
        f.decode_seconds_per_position * 1e9
    )
}

/// The lower layers streamed, and the disk traffic of the set-up and of
/// the engines' own scratch files.
fn streamed_stated(f: &Figures) -> String {
    format!(
        "lower layers neither kept nor cached are streamed where the engine streams its exits: raw copies on disk (1 byte/position), each read once in order by a layer's set-up, which writes and reads {} bytes/position of deferred lookups; the engines' own scratch files take {} (out of core) and {} (compact) bytes/position of reads and writes; all of it on {:.1} GB/s of sequential disk, not overlapping computation",
        f.deferred_bytes_per_position,
        Engine::OutOfCore.io_bytes_per_position(),
        Engine::Compact.io_bytes_per_position(),
        f.disk_bytes_per_second / 1e9
    )
}

/// What the disk holds, as the build counts it against `--disk`: per node
/// in one process, the shared folder with several nodes.
fn disk_stated(a: &Assumptions, f: &Figures) -> String {
    match a.nodes {
        1 => format!(
            "disk, as the build counts it: {} bytes/position of tables, the raw copies of lower layers cached or streamed, a layer's own raw copy, scratch and checkpoint, and its deferred lookups, {}",
            f.table_bytes_per_position,
            match a.disk {
                Some(disk) => format!(
                    "swept in as many rounds as {} per node leaves room for (each round reads the streamed layers again)",
                    human_bytes(disk)
                ),
                None => "all of a layer's at once (no --disk given)".to_string(),
            }
        ),
        _ => format!(
            "disk, all of it on the shared build folder{}: the tables so far, and at a layer's peak either its ranks' checkpoints in its scratch folder, {} bytes/position with the levels ({} without: values and states), twice for a moment (a new one is written before the older is removed), or the last of them with the layer's tables and the part files its ranks code them into (the same bytes again), whichever is more",
            match a.disk {
                Some(disk) => format!(" ({}, --disk)", human_bytes(disk)),
                None => " (no --disk given)".to_string(),
            },
            f.checkpoint_bytes_per_position,
            f.checkpoint_bytes_per_position_without_levels,
        ),
    }
}

/// Where the distance tables are found, what memory they take and the time
/// they add, if the build finds them.
fn distances_stated(a: &Assumptions, f: &Figures) -> String {
    match a.distances {
        true if a.nodes > 1 => format!(
            "distance tables, with several nodes: found by the ranks as they build a layer where the levels fit beside each share ({} bytes/position more), adding {} of the layer's time, and written share by share; elsewhere none (no pass runs across nodes: a later build in one process adds them where it can); {} bytes/position of table",
            f.levels_bytes_per_position, f.levels_share, f.distance_table_bytes_per_position,
        ),
        true => format!(
            "distance tables, in a build in one process: found by the in-memory engine as it builds a layer where they fit beside it ({} bytes/position more), adding {} of the layer's time; else by a pass over the finished layer where it fits the memory ({} bytes/position, its values decoded), taking {} times the in-memory build's time of the layer; {} bytes/position of table",
            f.levels_bytes_per_position,
            f.levels_share,
            f.pass_bytes_per_position,
            f.distance_share,
            f.distance_table_bytes_per_position,
        ),
        false => "no distance tables (--no-distances)".into(),
    }
}

/// Where the shares come from, in words.
fn shares_origin(serial: &SerialShares) -> String {
    let names = ["in memory", "out of core", "compact"];
    let measured: Vec<String> = (names.iter().zip(serial.measured_on))
        .filter_map(|(name, on)| Some(format!("{name} on layer {}", on?)))
        .collect();
    match measured.len() {
        0 => {
            "the engines' own (fitted to layer times on 16 cores; no build here recorded its share)"
                .into()
        }
        3 => format!("as the builds here measured them ({})", measured.join(", ")),
        _ => format!(
            "as the builds here measured them ({}), the others the engines' own (fitted on 16 cores)",
            measured.join(", ")
        ),
    }
}

/// The least memory of each engine, in words: what its arrays need plus
/// a small constant, whatever the threads.
fn least_stated(f: &Figures) -> String {
    let chunk = f.chunk_positions;
    let part = |bytes: u64| human_bytes(chunk as u64 * bytes);
    format!(
        "an engine's least memory per node (`least`), whatever the threads: {} B/position in memory, {} out of core, {} compact, plus a part of {chunk} positions ({}, {}, {}), the {} reserve and, for the engines that stream their exits, their streams (2 x (n+1) x {} at layer n) and least buffers ({} out of core, {} compact); buffers that exist per thread take what the budget leaves beyond it (compact, with memory to spare: {} a thread) and below that shrink, or the threads share them",
        Engine::InMemory.bytes_per_position(),
        Engine::OutOfCore.bytes_per_position(),
        Engine::Compact.bytes_per_position(),
        part(Engine::InMemory.part_bytes_per_position()),
        part(Engine::OutOfCore.part_bytes_per_position()),
        part(Engine::Compact.part_bytes_per_position()),
        human_bytes(tb::FIXED_BYTES),
        human_bytes(f.stream_bytes),
        human_bytes(f.out_of_core_least_buffer_bytes),
        human_bytes(f.compact_least_buffer_bytes),
        human_bytes(f.compact_thread_bytes),
    )
}

/// `0..=20, 22, 24..=26`.
fn seeds_list(seeds: &[usize]) -> String {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &s in seeds {
        match runs.last_mut() {
            Some(run) if run.1 + 1 == s => run.1 = s,
            _ => runs.push((s, s)),
        }
    }
    let run = |&(a, b): &(usize, usize)| match a == b {
        true => a.to_string(),
        false => format!("{a}..={b}"),
    };
    runs.iter().map(run).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_tb::tablebase::oware::BuildTime;

    /// One node of 2 threads with `memory`, calibrated on layer 16 at 10,
    /// 5 and 2.5 M positions/s, nothing recorded, no disk limit.
    fn assumptions(memory: u64) -> Assumptions {
        Assumptions {
            calibration: Calibration {
                seeds: 16,
                threads: 2,
                in_memory: 10e6,
                out_of_core: 5e6,
                compact: 2.5e6,
                serial: SerialShares::fitted(),
            },
            threads: 2,
            nodes: 1,
            memory,
            lower_cache: 0,
            recorded: None,
            disk: None,
            message_bytes: mancala_tb::distributed::MESSAGE_BYTES as u64,
            distances: false,
        }
    }

    /// The projection of layers `0..=max_seeds` with `a`, its JSON text and
    /// that read back.
    fn projected(max_seeds: usize, a: &Assumptions) -> (Projection, String, serde_json::Value) {
        let plan = project(max_seeds, a).unwrap();
        let text = serde_json::to_string(&plan_json(a, &plan)).unwrap();
        let json = serde_json::from_str(&text).unwrap();
        (plan, text, json)
    }

    /// Whether `keys` appear in `text` in this order, each as a key.
    fn in_order(text: &str, keys: &[&str]) -> bool {
        let mut at = 0;
        keys.iter()
            .all(|key| match text[at..].find(&format!("\"{key}\":")) {
                Some(i) => {
                    at += i + 1;
                    true
                }
                None => false,
            })
    }

    /// `plan oware --json`: the fields in the order they always printed in,
    /// the engine as `mode`, the figures and the assumptions in words.
    #[test]
    fn a_projection_prints_as_the_json_of_plan_oware() {
        let (plan, text, json) = projected(12, &assumptions(1 << 30));
        let top = [
            "assumptions",
            "disk_bytes",
            "layers",
            "peak_memory_bytes",
            "positions",
            "seconds",
            "seconds_spread",
        ];
        assert!(in_order(&text, &top), "{text}");
        let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
        assert_eq!(keys, top);
        assert!(
            text.starts_with(r#"{"assumptions":{"out_of_core_rate":"#),
            "{text}"
        );
        let stated = ["recorded_seeds", "serial_shares", "stated", "threads"];
        assert!(in_order(&text, &stated), "{text}");
        let layer = [
            "disk_bytes",
            "distance_seconds",
            "distances_while_building",
            "engine_bytes",
            "least_memory_bytes",
            "levels_bytes",
            "lower_resident_bytes",
            "memory_bytes",
            "message_buffer_bytes",
            "mode",
            "network_bytes_per_position",
            "positions",
            "seconds",
            "seeds",
            "share_positions",
            "sweeps",
            "table_bytes_per_position",
        ];
        let first = text.find(r#""layers":["#).unwrap();
        assert!(in_order(&text[first..], &layer), "{text}");
        let positions: u64 = (0..=12).map(index::layer_size).sum();
        assert_eq!(json["positions"], positions);
        assert_eq!(json["layers"].as_array().unwrap().len(), 13);
        let layer = &json["layers"][12];
        assert_eq!(layer["seeds"], 12);
        assert_eq!(layer["positions"], index::layer_size(12));
        assert_eq!(layer["mode"], "in memory");
        assert_eq!(json["peak_memory_bytes"], layer["memory_bytes"]);
        assert_eq!(json["disk_bytes"], layer["disk_bytes"]);
        let least = tb::least_bytes(Engine::InMemory, 12, index::layer_size(12));
        assert_eq!(layer["least_memory_bytes"], least);
        assert_eq!(json["seconds_spread"][1], plan.seconds_spread[1]);
        let stated = &json["assumptions"];
        assert_eq!(stated["memory_bytes"], 1u64 << 30);
        assert_eq!(stated["calibration_seeds"], 16);
        assert_eq!(stated["in_memory_rate"], 10e6);
        assert_eq!(stated["notice_bytes_per_position"], 0.0);
        assert_eq!(stated["message_bytes"], 0);
        assert_eq!(
            stated["serial_shares"]["measured_on"],
            serde_json::json!([null, null, null])
        );
        assert_eq!(layer["network_bytes_per_position"], 0.0);
        assert_eq!(layer["message_buffer_bytes"], 0);
        assert_eq!(layer["share_positions"], index::layer_size(12));
        let kept: u64 = (0..=10).map(index::layer_size).sum();
        assert_eq!(layer["lower_resident_bytes"], kept);
        assert_eq!(
            layer["memory_bytes"],
            plan.layers[12].engine_bytes + plan.layers[12].levels_bytes + kept
        );
        assert_eq!(stated["stated"].as_array().unwrap().len(), 9);
    }

    /// `plan --nodes 16 --memory 64G --max-seeds 48` in JSON: layer 48 last
    /// (no layer 47), what a node holds for messages, and nothing sent but
    /// notices and tables.
    #[test]
    fn sixteen_nodes_print_what_each_node_holds_and_sends() {
        let sixteen = Assumptions {
            threads: 16,
            nodes: 16,
            distances: true,
            ..assumptions(64 << 30)
        };
        let (plan, _, json) = projected(MAX_SEEDS, &sixteen);
        let top = plan.layers.last().unwrap();
        let last = &json["layers"][47];
        assert_eq!(last["seeds"], 48);
        assert_eq!(last["share_positions"], top.share_positions);
        assert_eq!(last["message_buffer_bytes"], 384u64 << 20);
        assert_eq!(json["assumptions"]["message_bytes"], 256u64 << 20);
        assert_eq!(json["assumptions"]["outbox_bytes"], 64u64 << 20);
        assert!(json["assumptions"].get("sent_bytes_per_position").is_none());
    }

    /// Rates recorded here are listed, and stated third.
    #[test]
    fn recorded_rates_are_listed_and_stated() {
        let time = |seeds: usize| BuildTime {
            seeds,
            positions: index::layer_size(seeds),
            seconds: 1.0,
            threads: 2,
            engine: Engine::InMemory,
            ranks: 1,
            serial_share: None,
        };
        let times: Vec<BuildTime> = [10, 22, 23, 24, 25].map(time).into();
        let a = Assumptions {
            recorded: RecordedRates::new(&times),
            ..assumptions(1 << 40)
        };
        let (_, _, json) = projected(28, &a);
        let stated = &json["assumptions"];
        assert_eq!(
            stated["recorded_seeds"],
            serde_json::json!([10, 22, 23, 24, 25])
        );
        assert_eq!(stated["stated"].as_array().unwrap().len(), 10);
        let third = stated["stated"][2].as_str().unwrap();
        assert!(third.contains("layers 10, 22..=25"), "{third}");
        assert!(third.contains("beyond layer 25"), "{third}");
    }
}
