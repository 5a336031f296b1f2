//! Where a layer's build spends its time: the wall time of each phase, and
//! how many of the pool's threads were busy during it. A sampler thread
//! looks at the pool's workers every [`SAMPLE_PERIOD`] through their
//! scheduler state (`/proc/self/task/ID/stat`): a worker running or ready
//! to run is busy; one asleep (idle in rayon, or waiting on a lock) is not,
//! nor one waiting on the disk, which is also counted apart. A worker that
//! another process keeps off its core is still ready to run, so a loaded
//! machine does not make parallel work look serial (where CPU time would).
//!
//! From the busy threads comes each phase's serial share by Amdahl's law:
//! its one-thread time is the thread-seconds busy, and the share is what
//! of it more threads did not shorten ([`PhaseTime::serial_share`]). Only
//! what is serial on this pool shows: a phase with `k`-way parallelism
//! looks parallel to a pool of at most `k` threads.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often the sampler looks at the workers. (Each look wakes a thread
/// that takes a core from a worker for a moment: awari 0..=20 built 1–4%
/// slower on 2 cores with a sampler at 5 or 20 ms, so builds sample only
/// when asked.)
pub const SAMPLE_PERIOD: Duration = Duration::from_millis(20);
/// The least share of the time its threads were ready to run that the
/// process must have run for a serial share to be measured. Below it the
/// machine is loaded: rayon's idle workers then yield their cores to the
/// other processes for whole time slices, ready to run all along, and
/// look busy, so serial work would read as parallel.
pub const QUIET_MACHINE: f64 = 0.8;

/// A phase of a layer's build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Every position's counter and best exit, but for the two below.
    SetUp,
    /// The set-up's lookups into the lower layers (in memory, cached, or
    /// decoded from their tables).
    Lookups,
    /// The set-up's lookups deferred into the lower layers read in order:
    /// answered a bucket at a time, then folded into the exits kept.
    Deferred,
    /// In memory: a threshold's scan (settling, and seeding by exits).
    Scan,
    /// Engines that stream: a threshold's exits read and seeded (the
    /// compact engine tells the parents of what they resolve as it seeds,
    /// so its propagation is mostly here).
    Seeding,
    /// The positions resolved told to their parents.
    Propagation,
    /// Engines that stream: a threshold's resolved positions written (the
    /// compact engine's runs sorted and merged).
    Recording,
    /// A checkpoint saved.
    Checkpoint,
    /// Engines that stream: the values rebuilt from their files and coded
    /// into the table; in memory, the values coded into the table.
    Table,
    /// The distance table, found while building, coded.
    Distances,
}

impl Phase {
    /// Every phase, in the order a build meets them.
    pub const ALL: [Phase; 10] = [
        Phase::SetUp,
        Phase::Lookups,
        Phase::Deferred,
        Phase::Scan,
        Phase::Seeding,
        Phase::Propagation,
        Phase::Recording,
        Phase::Checkpoint,
        Phase::Table,
        Phase::Distances,
    ];

    /// As the build summary and `build-times.tsv` name it.
    pub fn name(self) -> &'static str {
        match self {
            Phase::SetUp => "set-up",
            Phase::Lookups => "lookups",
            Phase::Deferred => "deferred",
            Phase::Scan => "scan",
            Phase::Seeding => "seeding",
            Phase::Propagation => "propagation",
            Phase::Recording => "recording",
            Phase::Checkpoint => "checkpoint",
            Phase::Table => "table",
            Phase::Distances => "distances",
        }
    }

    fn index(self) -> usize {
        Phase::ALL.iter().position(|&p| p == self).unwrap()
    }
}

/// One phase of a layer's build, all its stretches together.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhaseTime {
    /// The phase.
    pub phase: Phase,
    /// Wall time.
    pub seconds: f64,
    /// Wall time during which fewer than all the pool's threads were busy.
    pub short_seconds: f64,
    /// Wall time during which a worker waited on the disk.
    pub disk_seconds: f64,
    /// Thread-seconds busy: the phase's time on one thread, as Amdahl
    /// takes it (0 where the workers were not sampled).
    pub busy_seconds: f64,
    /// CPU seconds of the whole process.
    pub cpu_seconds: f64,
    /// The pool's threads.
    pub threads: usize,
}

impl PhaseTime {
    /// The share of the one-thread time that the pool's threads did not
    /// shorten, by Amdahl's law (`wall = busy × (s + (1 − s) / threads)`);
    /// `None` on one thread, without samples, or on a loaded machine
    /// (the process ran less than [`QUIET_MACHINE`] of its busy time).
    pub fn serial_share(&self) -> Option<f64> {
        self.quiet()
            .then(|| serial_share(self.seconds, self.busy_seconds, self.threads))
            .flatten()
    }

    /// Whether the process ran at least [`QUIET_MACHINE`] of the time its
    /// threads were ready to run.
    pub fn quiet(&self) -> bool {
        self.cpu_seconds >= QUIET_MACHINE * self.busy_seconds
    }

    /// The phases of a layer as one.
    pub fn total(phases: &[PhaseTime]) -> Option<PhaseTime> {
        let first = *phases.first()?;
        Some(phases[1..].iter().fold(first, |a, b| PhaseTime {
            seconds: a.seconds + b.seconds,
            short_seconds: a.short_seconds + b.short_seconds,
            disk_seconds: a.disk_seconds + b.disk_seconds,
            busy_seconds: a.busy_seconds + b.busy_seconds,
            cpu_seconds: a.cpu_seconds + b.cpu_seconds,
            ..a
        }))
    }
}

/// Amdahl's serial share of a stretch of `wall` seconds, `busy`
/// thread-seconds busy, on `threads` threads.
pub fn serial_share(wall: f64, busy: f64, threads: usize) -> Option<f64> {
    if threads < 2 || busy <= 0.0 {
        return None;
    }
    let p = threads as f64;
    Some(((wall / busy - 1.0 / p) / (1.0 - 1.0 / p)).clamp(0.0, 1.0))
}

/// How many times as fast as one thread `threads` threads run work whose
/// serial share is `serial` (Amdahl's law).
pub fn speedup(serial: f64, threads: usize) -> f64 {
    1.0 / (serial + (1.0 - serial) / threads.max(1) as f64)
}

/// The phases of a layer's build, as the engines enter them. Cloned, it is
/// the same record; the default one records nothing (tests, `verify`).
#[derive(Clone, Debug, Default)]
pub struct Phases(Option<Arc<Record>>);

#[derive(Debug)]
struct Record {
    threads: usize,
    /// The phase now, by index; `NONE` between phases.
    current: AtomicUsize,
    /// When the current phase began, and the process's CPU seconds then.
    since: Mutex<(Instant, f64)>,
    tallies: Mutex<[Tally; Phase::ALL.len()]>,
    stop: AtomicBool,
    sampler: Mutex<Option<JoinHandle<()>>>,
}

const NONE: usize = usize::MAX;

#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    seconds: f64,
    cpu_seconds: f64,
    samples: u64,
    short: u64,
    disk: u64,
    busy: u64,
}

impl Phases {
    /// Records the phases of a build on the current rayon pool, and if
    /// `sample`, how many of its workers are busy, until
    /// [`finish`](Self::finish). Without samples (not asked, or not Linux)
    /// the phases get their wall and CPU times only.
    pub fn start(sample: bool) -> Phases {
        let threads = rayon::current_num_threads();
        let record = Arc::new(Record {
            threads,
            current: AtomicUsize::new(NONE),
            since: Mutex::new((Instant::now(), cpu_seconds())),
            tallies: Mutex::new([Tally::default(); Phase::ALL.len()]),
            stop: AtomicBool::new(false),
            sampler: Mutex::new(None),
        });
        if let Some(workers) = sample.then(Workers::of_pool).flatten() {
            // The sampler ends when told, or when the record is dropped
            // (a build that failed before `finish`).
            let sampled = Arc::downgrade(&record);
            let handle = std::thread::Builder::new()
                .name("phases".into())
                .spawn(move || Record::sample(&sampled, workers))
                .ok();
            *record.sampler.lock().unwrap() = handle;
        }
        Phases(Some(record))
    }

    /// The build enters `phase` (the one before ends).
    pub fn enter(&self, phase: Phase) {
        if let Some(record) = &self.0 {
            record.switch(phase.index());
        }
    }

    /// Runs `job` as `phase`, then returns to the phase it interrupted.
    pub fn time<R>(&self, phase: Phase, job: impl FnOnce() -> R) -> R {
        let Some(record) = &self.0 else {
            return job();
        };
        let before = record.switch(phase.index());
        let result = job();
        record.switch(before);
        result
    }

    /// Stops the sampler; the phases entered, in [`Phase::ALL`]'s order.
    pub fn finish(&self) -> Vec<PhaseTime> {
        let Some(record) = &self.0 else {
            return Vec::new();
        };
        record.switch(NONE);
        record.stop.store(true, Ordering::Relaxed);
        let sampled = match record.sampler.lock().unwrap().take() {
            Some(sampler) => {
                sampler.thread().unpark();
                let _ = sampler.join();
                true
            }
            None => false,
        };
        let tallies = *record.tallies.lock().unwrap();
        let period = SAMPLE_PERIOD.as_secs_f64();
        Phase::ALL
            .into_iter()
            .zip(tallies)
            .filter(|(_, t)| t.seconds > 0.0)
            .map(|(phase, t)| {
                // Each sample stands for its share of the phase's wall time.
                let each = match t.samples {
                    0 => 0.0,
                    n => t.seconds / n as f64,
                };
                PhaseTime {
                    phase,
                    seconds: t.seconds,
                    short_seconds: t.short as f64 * each,
                    disk_seconds: t.disk as f64 * each,
                    busy_seconds: match t.samples {
                        // Not sampled: none known (no serial share).
                        _ if !sampled => 0.0,
                        // Too short to be sampled: busy as if parallel.
                        0 if t.seconds < period => t.seconds * record.threads as f64,
                        _ => t.busy as f64 * each,
                    },
                    cpu_seconds: t.cpu_seconds,
                    threads: record.threads,
                }
            })
            .collect()
    }
}

impl Record {
    /// Ends the current phase and begins phase `next` (by index, or
    /// `NONE`); returns the one that ended.
    fn switch(&self, next: usize) -> usize {
        let mut since = self.since.lock().unwrap();
        let now = (Instant::now(), cpu_seconds());
        let before = self.current.swap(next, Ordering::Relaxed);
        if before != NONE {
            let tally = &mut self.tallies.lock().unwrap()[before];
            tally.seconds += (now.0 - since.0).as_secs_f64();
            tally.cpu_seconds += now.1 - since.1;
        }
        *since = now;
        before
    }

    fn sample(record: &Weak<Record>, mut workers: Workers) {
        loop {
            std::thread::park_timeout(SAMPLE_PERIOD);
            let Some(record) = record.upgrade() else {
                return;
            };
            if record.stop.load(Ordering::Relaxed) {
                return;
            }
            let phase = record.current.load(Ordering::Relaxed);
            if phase == NONE {
                continue;
            }
            let (running, on_disk) = workers.states();
            let mut tallies = record.tallies.lock().unwrap();
            let tally = &mut tallies[phase];
            tally.samples += 1;
            tally.busy += running as u64;
            tally.short += u64::from(running < record.threads);
            tally.disk += u64::from(on_disk > 0);
        }
    }
}

/// The stat files of the pool's worker threads.
struct Workers {
    stats: Vec<File>,
    line: Vec<u8>,
}

impl Workers {
    /// The current pool's workers, if their states can be read.
    fn of_pool() -> Option<Workers> {
        let ids = rayon::broadcast(|_| thread_id());
        let stats = ids
            .into_iter()
            .map(|id| File::open(format!("/proc/self/task/{}/stat", id?)).ok())
            .collect::<Option<Vec<File>>>()?;
        Some(Workers {
            stats,
            line: vec![0; 1024],
        })
    }

    /// How many workers are running (or ready to), and how many wait on
    /// the disk.
    fn states(&mut self) -> (usize, usize) {
        let (mut running, mut on_disk) = (0, 0);
        for stat in &self.stats {
            let Ok(len) = stat.read_at(&mut self.line, 0) else {
                continue;
            };
            // "id (name) S ...": the state follows the name's last ')'.
            let line = &self.line[..len];
            let state = line
                .iter()
                .rposition(|&b| b == b')')
                .and_then(|close| line.get(close + 2));
            match state {
                Some(b'R') => running += 1,
                Some(b'D') => on_disk += 1,
                _ => {}
            }
        }
        (running, on_disk)
    }
}

/// CPU seconds this process has used (user and system, every thread).
pub fn cpu_seconds() -> f64 {
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `getrusage` fills the struct it is given.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return 0.0;
    }
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// The kernel's id of the calling thread.
#[cfg(target_os = "linux")]
fn thread_id() -> Option<i64> {
    // SAFETY: `gettid` takes no arguments and cannot fail.
    Some(unsafe { libc::syscall(libc::SYS_gettid) })
}

#[cfg(not(target_os = "linux"))]
fn thread_id() -> Option<i64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amdahl_share_of_a_parallel_and_a_serial_stretch() {
        // Fully parallel: 4 s busy in 1 s on 4 threads.
        assert_eq!(serial_share(1.0, 4.0, 4), Some(0.0));
        // Fully serial: 1 s busy in 1 s.
        assert_eq!(serial_share(1.0, 1.0, 4), Some(1.0));
        // Half serial: 1 s of one thread, then 1 s's work on 4 threads.
        let s = serial_share(1.25, 2.0, 4).unwrap();
        assert!((s - 0.5).abs() < 1e-12, "{s}");
        assert_eq!(serial_share(1.0, 1.0, 1), None);
        // The share and the speed-up are inverses.
        assert!((speedup(0.5, 4) - 2.0 / 1.25).abs() < 1e-12);
        assert_eq!(speedup(0.3, 1), 1.0);
    }

    /// A phase where one thread works and the others sleep is short all
    /// along and serial; one where every thread spins is neither. (Other
    /// tests running beside it may load the machine: then no share is
    /// measured, and only the wall times are checked.)
    #[test]
    fn a_serial_phase_is_short_and_a_parallel_one_is_not() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let phases = pool.install(|| {
            let phases = Phases::start(true);
            let spin = |ms| {
                let end = Instant::now() + Duration::from_millis(ms);
                while Instant::now() < end {
                    std::hint::spin_loop();
                }
            };
            phases.enter(Phase::SetUp);
            spin(600);
            phases.enter(Phase::Scan);
            rayon::broadcast(|_| spin(600));
            phases.finish()
        });
        let [serial, parallel] = phases[..] else {
            panic!("{phases:?}");
        };
        assert_eq!((serial.phase, parallel.phase), (Phase::SetUp, Phase::Scan));
        assert!(serial.seconds >= 0.6 && parallel.seconds >= 0.6);
        // Thirty samples a phase: the bounds leave room for their jitter.
        if serial.quiet() && parallel.quiet() {
            assert!(serial.serial_share().unwrap() > 0.6, "{serial:?}");
            assert!(serial.short_seconds > 0.6 * serial.seconds, "{serial:?}");
            assert!(parallel.serial_share().unwrap() < 0.4, "{parallel:?}");
            let short = parallel.short_seconds;
            assert!(short < 0.4 * parallel.seconds, "{parallel:?}");
        }
    }
}
