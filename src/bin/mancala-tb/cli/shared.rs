//! What the commands of every game share: the worker pool, the progress
//! bars and summary of a build, value histograms, pit-count parsing.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufReader};
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use super::exit::CliError;
use indicatif::{ProgressBar, ProgressState, ProgressStyle};

use crate::probe_lines::{BatchProber, ProbeOptions, probe_lines};
use mancala_tb::games::oware::Ruleset;
use mancala_tb::memory::human_bytes;
use mancala_tb::tablebase::oware::{
    self as oware, DistanceReport, LayerPlan, OwareObserver, PhaseTime,
};
use mancala_tb::tablebase::{BuildObserver, LayerReport};

/// The worker pool of a build: `threads` workers, or one per core.
pub fn thread_pool(threads: Option<usize>) -> anyhow::Result<rayon::ThreadPool> {
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(threads) = threads {
        if threads == 0 {
            return Err(CliError::BadInput("--threads must be at least 1".into()).into());
        }
        pool = pool.num_threads(threads);
    }
    pool.build().context("cannot start the worker threads")
}

/// One progress bar per layer being built.
#[derive(Default)]
pub struct Bars {
    bar: std::sync::Mutex<Option<ProgressBar>>,
    /// The engine and memory of each Oware layer built, for the summary.
    plans: std::sync::Mutex<Vec<(usize, LayerPlan, u64)>>,
    /// The bytes the ranks sent each other per layer (distributed builds).
    sent: std::sync::Mutex<Vec<(usize, u64)>>,
    /// The distance tables written.
    distances: std::sync::Mutex<Vec<DistanceReport>>,
    /// Where each layer built in one process spent its time.
    phases: std::sync::Mutex<Vec<(usize, Vec<PhaseTime>)>>,
    /// The tablebase folder and ruleset of an Oware build, which the
    /// commands it suggests name.
    oware: Option<(PathBuf, Ruleset)>,
}

impl BuildObserver for Bars {
    fn layer_resumed(&self, seeds: usize) {
        eprintln!("layer {seeds}: resuming from its checkpoint");
    }

    fn layer_started(&self, seeds: usize, positions: u64) {
        let plan = self.plans.lock().expect("plans lock").last().copied();
        let mode = match plan {
            Some((s, plan, memory)) if s == seeds => {
                format!("{} {}", plan.engine, human_bytes(memory))
            }
            _ => String::new(),
        };
        let style = ProgressStyle::with_template(&format!(
            "layer {{prefix:>2}} [{{bar:30}}] {{percent:>3}}% {{elapsed_precise}} eta {{eta:<4}} {{rate}} {mode}"
        ))
        .expect("valid template")
        .with_key(
            "rate",
            |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                // Two work steps per position.
                let rate = state.pos() as f64 / 2.0 / state.elapsed().as_secs_f64().max(1e-9);
                let _ = write!(w, "{:.2}M positions/s", rate / 1e6);
            },
        )
        .progress_chars("=> ");
        let bar = ProgressBar::new(2 * positions)
            .with_style(style)
            .with_prefix(seeds.to_string());
        *self.bar.lock().expect("bar lock") = Some(bar);
    }

    fn advance(&self, steps: u64) {
        if let Some(bar) = self.bar.lock().expect("bar lock").as_ref() {
            bar.inc(steps);
        }
    }

    fn layer_finished(&self, _report: &LayerReport) {
        if let Some(bar) = self.bar.lock().expect("bar lock").take() {
            bar.finish();
        }
    }
}

impl OwareObserver for Bars {
    fn layer_sent(&self, seeds: usize, bytes: u64) {
        self.sent.lock().expect("sent lock").push((seeds, bytes));
    }

    fn layer_planned(&self, seeds: usize, plan: &LayerPlan, memory_bytes: u64) {
        self.plans
            .lock()
            .expect("plans lock")
            .push((seeds, *plan, memory_bytes));
    }

    fn distances_started(&self, seeds: usize, positions: u64) {
        let style = ProgressStyle::with_template(
            "dist  {prefix:>2} [{bar:30}] {percent:>3}% {elapsed_precise} eta {eta:<4}",
        )
        .expect("valid template")
        .progress_chars("=> ");
        let bar = ProgressBar::new(2 * positions)
            .with_style(style)
            .with_prefix(seeds.to_string());
        *self.bar.lock().expect("bar lock") = Some(bar);
    }

    fn distances_finished(&self, report: &DistanceReport) {
        if let Some(bar) = self.bar.lock().expect("bar lock").take() {
            bar.finish_and_clear();
        }
        self.distances_found(report);
    }

    fn distances_found(&self, report: &DistanceReport) {
        self.distances.lock().expect("distances lock").push(*report);
    }

    fn layer_phases(&self, seeds: usize, phases: &[PhaseTime]) {
        let phases = phases.to_vec();
        self.phases
            .lock()
            .expect("phases lock")
            .push((seeds, phases));
    }

    fn layer_rebuilt_for_distances(&self, seeds: usize) {
        eprintln!(
            "layer {seeds}: its values are built but not its distances, which the ranks \
             find while building: building it again"
        );
    }

    fn distances_skipped(&self, seeds: usize, needed: u64) {
        let build_args = match &self.oware {
            Some((dir, rules)) => oware::build_args(dir, *rules, seeds),
            None => "oware".into(),
        };
        match needed {
            0 => eprintln!(
                "layer {seeds}: no distance table: a rank's --memory cannot hold the levels \
                 that find them while the layer is built (a larger --memory does, or \
                 `mancala-tb build {build_args}` in one process)"
            ),
            _ => eprintln!(
                "layer {seeds}: no distance table: finding it needs {} of memory, more than \
                 the budget (`mancala-tb build {build_args}` with a --memory of at least that \
                 adds it)",
                human_bytes(needed)
            ),
        }
    }
}

impl Bars {
    /// The bars of an Oware build of `rules` in the tablebase folder `dir`.
    pub fn oware(dir: PathBuf, rules: Ruleset) -> Bars {
        Bars {
            oware: Some((dir, rules)),
            ..Bars::default()
        }
    }

    /// Prints the summary table of a build: a line per layer, with the
    /// engine and memory of each Oware layer built, and the totals.
    pub fn print_summary(&self, reports: &[LayerReport]) {
        print_summary(reports, &self.plans.lock().expect("plans lock"));
        print_sent(reports, &self.sent.lock().expect("sent lock"));
        print_distances(reports, &self.distances.lock().expect("distances lock"));
    }

    /// Prints where each layer's build spent its time, phase by phase
    /// (`build oware --phases`).
    pub fn print_phases(&self) {
        print_phases(&self.phases.lock().expect("phases lock"));
    }
}

/// Per layer built, each phase's wall time, how much of it fewer than all
/// threads were busy or a worker waited on the disk, the threads busy on
/// average and the phase's serial share (Amdahl's law), then the layer's.
fn print_phases(layers: &[(usize, Vec<PhaseTime>)]) {
    let Some(threads) = layers.iter().flat_map(|l| &l.1).map(|p| p.threads).next() else {
        return;
    };
    println!(
        "phases ({threads} threads; short: fewer than all busy; disk: a worker waiting on the \
         disk; serial: the share of one thread's time more threads did not shorten)"
    );
    println!(
        "{:<12} {:>5} {:>9} {:>9} {:>9} {:>6} {:>7}",
        "phase", "layer", "seconds", "short", "disk", "busy", "serial"
    );
    let row = |name: &str, seeds: usize, p: &PhaseTime| {
        let share = p
            .serial_share()
            .map_or("-".into(), |s| format!("{:.1}%", 100.0 * s));
        println!(
            "{name:<12} {seeds:>5} {:>9.2} {:>9.2} {:>9.2} {:>6.2} {share:>7}",
            p.seconds,
            p.short_seconds,
            p.disk_seconds,
            p.busy_seconds / p.seconds.max(f64::MIN_POSITIVE),
        );
    };
    for (seeds, phases) in layers {
        for p in phases {
            row(p.phase.name(), *seeds, p);
        }
        if let Some(total) = PhaseTime::total(phases) {
            row("layer", *seeds, &total);
        }
    }
}

/// The distance tables written: a line per layer (how they were found,
/// the time, the table's size and its longest line to a capture, in moves),
/// then the totals.
fn print_distances(reports: &[LayerReport], written: &[DistanceReport]) {
    if written.is_empty() {
        return;
    }
    println!(
        "{:>5} {:>6} {:>9} {:>11} {:>8}",
        "dist", "found", "seconds", "bytes/pos", "longest"
    );
    for d in written {
        println!(
            "{:>5} {:>6} {:>9.2} {:>11.3} {:>8}",
            d.seeds,
            if d.while_building { "built" } else { "pass" },
            d.seconds,
            d.bytes as f64 / reports[d.seeds].positions.max(1) as f64,
            d.longest
        );
    }
    let positions: u64 = written.iter().map(|d| reports[d.seeds].positions).sum();
    let bytes: u64 = written.iter().map(|d| d.bytes).sum();
    let (built, passes): (Vec<&DistanceReport>, Vec<_>) =
        written.iter().partition(|d| d.while_building);
    let mut how = Vec::new();
    if !built.is_empty() {
        how.push(format!(
            "{} found as the layers were built (in their seconds)",
            built.len()
        ));
    }
    if !passes.is_empty() {
        let seconds: f64 = passes.iter().map(|d| d.seconds).sum();
        how.push(format!("{} by passes in {seconds:.2} s", passes.len()));
    }
    println!(
        "distances of {} layers: {bytes} bytes of tables ({:.3} bytes/position); {}",
        written.len(),
        bytes as f64 / positions.max(1) as f64,
        how.join("; ")
    );
}

fn print_summary(reports: &[LayerReport], plans: &[(usize, LayerPlan, u64)]) {
    println!(
        "{:>5} {:>13} {:>13} {:>13} {:>13} {:>9} {:>12} {:>11}  {:<11} {:>10}",
        "seeds",
        "positions",
        "wins",
        "draws",
        "losses",
        "seconds",
        "positions/s",
        "bytes/pos",
        "mode",
        "memory"
    );
    let count = |n: Option<u64>| n.map_or("-".to_string(), |n| n.to_string());
    let (mut built_positions, mut built_seconds) = (0, 0.0);
    for r in reports {
        let (secs, rate) = match r.seconds {
            Some(s) => {
                built_positions += r.positions;
                built_seconds += s;
                (format!("{s:.2}"), format!("{:.0}", r.positions as f64 / s))
            }
            None => ("built".into(), "-".into()),
        };
        let (mode, memory) = match plans.iter().find(|p| p.0 == r.seeds) {
            Some((_, plan, memory)) => (plan.engine.to_string(), human_bytes(*memory)),
            None => ("-".into(), "-".into()),
        };
        println!(
            "{:>5} {:>13} {:>13} {:>13} {:>13} {:>9} {:>12} {:>11.3}  {:<11} {:>10}",
            r.seeds,
            r.positions,
            count(r.outcomes.map(|o| o.wins)),
            count(r.outcomes.map(|o| o.draws)),
            count(r.outcomes.map(|o| o.losses)),
            secs,
            rate,
            r.bytes as f64 / r.positions as f64,
            mode,
            memory
        );
    }
    let total: u64 = reports.iter().map(|r| r.positions).sum();
    let bytes: u64 = reports.iter().map(|r| r.bytes).sum();
    println!(
        "total {total:>13} positions in {bytes} bytes of tables ({:.3} bytes/position)",
        bytes as f64 / total as f64
    );
    if built_seconds > 0.0 {
        println!(
            "built {built_positions} positions in {built_seconds:.1} s ({:.2}M positions/s)",
            built_positions as f64 / built_seconds / 1e6
        );
    } else {
        println!("every layer was already built");
    }
}

/// What the ranks of a distributed build sent each other, per position of
/// each layer built and in all.
fn print_sent(reports: &[LayerReport], sent: &[(usize, u64)]) {
    if sent.is_empty() {
        return;
    }
    let per_layer: Vec<String> = sent
        .iter()
        .map(|&(seeds, bytes)| {
            let positions = reports[seeds].positions.max(1);
            format!("{seeds}: {:.2}", bytes as f64 / positions as f64)
        })
        .collect();
    println!(
        "sent between ranks, bytes per position: {}",
        per_layer.join(", ")
    );
    let bytes: u64 = sent.iter().map(|s| s.1).sum();
    let positions: u64 = sent.iter().map(|&(s, _)| reports[s].positions).sum();
    println!(
        "sent between ranks: {} = {:.2} bytes per position built",
        human_bytes(bytes),
        bytes as f64 / positions.max(1) as f64
    );
}

/// The parser of an option whose values are `names` (a library type's
/// names, parsed by its `FromStr`): they are listed in `--help` and in
/// errors, as clap does for its own value enums.
pub fn named<T: std::str::FromStr + Clone + Send + Sync + 'static>(
    names: impl IntoIterator<Item = &'static str>,
) -> impl clap::builder::TypedValueParser<Value = T> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(names).map(|name| {
        name.parse::<T>()
            .unwrap_or_else(|_| unreachable!("{name} is one of the listed names"))
    })
}

/// A pit count: a whole number from 0 up.
pub fn parse_pit(s: &str) -> Result<u32, String> {
    s.parse::<u32>()
        .map_err(|_| format!("'{s}' is not a pit count (a whole number, 0 or more)"))
}

/// Prints the value histogram of a layer: as JSON
/// (`{"seeds": N, "positions": P, "histogram": {"-3": 12, ...}}`) or as a
/// table under `title`.
pub fn print_layer_histogram(title: &str, seeds: u32, values: &[i8], json: bool) {
    let mut histogram = BTreeMap::<i8, u64>::new();
    for &v in values {
        *histogram.entry(v).or_default() += 1;
    }
    if json {
        let hist: serde_json::Map<String, serde_json::Value> = histogram
            .iter()
            .map(|(v, n)| (v.to_string(), (*n).into()))
            .collect();
        let out = serde_json::json!({"seeds": seeds, "positions": values.len(), "histogram": hist});
        println!("{out}");
        return;
    }
    println!("{title} layer {seeds}: {} positions", values.len());
    println!("{:>6} {:>13} {:>8}", "value", "positions", "share");
    for (v, n) in &histogram {
        let share = 100.0 * *n as f64 / values.len() as f64;
        println!("{v:>6} {n:>13} {share:>7.3}%");
    }
}

/// Where the positions come from and how answers are written.
#[derive(Debug, Args)]
pub struct ProbeIo {
    /// One JSON object per line: {"pits": [...], "value": v, "moves": [...]},
    /// the moves as `query --json` gives them
    #[arg(long)]
    json: bool,
    /// Answer a bad line with an error line (with --json {"line": n, "error": "..."})
    /// and go on; the exit status still reports it
    #[arg(long)]
    keep_going: bool,
    /// File of positions, one per line (default: standard input)
    file: Option<PathBuf>,
}

/// Answers the lines of `io`'s file or standard input with `prober`.
pub fn probe_with(prober: &impl BatchProber, io: &ProbeIo) -> anyhow::Result<()> {
    let options = ProbeOptions {
        json: io.json,
        keep_going: io.keep_going,
    };
    let out = io::BufWriter::new(io::stdout().lock());
    match &io.file {
        Some(path) => {
            let file =
                File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
            probe_lines(prober, BufReader::new(file), out, options)?
        }
        None => probe_lines(prober, io::stdin().lock(), out, options)?,
    }
    Ok(())
}
