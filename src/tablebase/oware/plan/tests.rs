//! The projection against the build it projects, and its rates.

use std::sync::Mutex;

use super::projection::{
    DECODE_SECONDS_PER_POSITION, DISK_BYTES_PER_SECOND, bytes_at, largest_share, node_budget,
    node_plan, read_lower,
};
use super::rates::{RATE_EXPONENT, fall};
use super::*;
use crate::games::oware::{MAX_SEEDS, Ruleset};
use crate::index::oware as index;
use crate::solve::oware::{self as engine, DEFERRED_BYTES_PER_POSITION, Engine};
use crate::tablebase::oware::budget::disk::{TABLE_BYTES_PER_POSITION, deferred_bytes};
use crate::tablebase::oware::budget::{LayerPlan, Place};
use crate::tablebase::oware::{
    BuildOptions, BuildTime, FIXED_BYTES, TablebaseError, build, distance, least_bytes,
    plan_engine, plan_layer, ruleset_dir,
};

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
        message_bytes: crate::distributed::MESSAGE_BYTES as u64,
        distances: false,
    }
}

/// The spread: every rate 15% higher and lower, the disk as it is.
#[test]
fn the_spread_brackets_the_time_by_the_rates() {
    let plan = project(20, &assumptions(1 << 30)).unwrap();
    let [fast, slow] = plan.seconds_spread;
    assert!(
        fast < plan.seconds && plan.seconds < slow,
        "{fast} {} {slow}",
        plan.seconds
    );
    // In memory with lower layers kept, nothing but the rates counts.
    assert!((plan.seconds / fast - 1.15).abs() < 1e-9);
    assert!((plan.seconds / slow - 0.85).abs() < 1e-9);
}

#[test]
fn distance_passes_are_counted_where_they_fit_the_memory() {
    let memory = 256 << 20;
    let with = project(
        24,
        &Assumptions {
            distances: true,
            ..assumptions(memory)
        },
    )
    .unwrap();
    let without = project(24, &assumptions(memory)).unwrap();
    let budget = node_budget(24, &assumptions(memory));
    for (l, w) in with.layers.iter().zip(&without.layers) {
        let pass_fits = distance::pass_bytes(l.seeds, false) <= memory;
        let levels_fit = budget.plan(l.seeds, l.positions).unwrap().engine == Engine::InMemory
            && (memory.checked_sub(engine::levels_bytes(l.positions))).is_some_and(|room| {
                plan_engine(Engine::InMemory, l.seeds, l.positions, room).is_ok()
            });
        assert_eq!(
            l.distance_seconds.is_some(),
            levels_fit || pass_fits,
            "layer {}",
            l.seeds
        );
        assert_eq!(l.distances_while_building, levels_fit, "layer {}", l.seeds);
        if !levels_fit {
            let extra = l.distance_seconds.unwrap_or(0.0);
            assert!((l.seconds - w.seconds - extra).abs() < 1e-9 * l.seconds.max(1.0));
        }
    }
    // In 256 MiB, the engine finds the distances of the small layers as
    // it builds them, a pass those of layer 20 (80 M positions), and
    // layer 24 (383 M) has no room for either.
    assert!(with.layers[18].distances_while_building);
    assert!(!with.layers[20].distances_while_building);
    assert!(with.layers[20].distance_seconds.is_some());
    assert!(with.layers[24].distance_seconds.is_none());
    // Two nodes find them only as they build: where the levels fit
    // beside each share, never by a pass. With room for layer 20's
    // share but half its levels, the small layers are found, 20 not.
    let two = |memory| Assumptions {
        distances: true,
        nodes: 2,
        ..assumptions(memory)
    };
    let budget = node_budget(20, &two(1 << 30));
    let share = budget.share(20, 0).len() as u64;
    let tight = budget.message_buffer_bytes()
        + least_bytes(Engine::InMemory, 20, share)
        + engine::levels_bytes(share) / 2;
    let nodes = project(20, &two(tight)).unwrap();
    for l in &nodes.layers {
        assert_eq!(
            l.distance_seconds.is_some(),
            l.distances_while_building,
            "layer {}",
            l.seeds
        );
    }
    assert!(nodes.layers[16].distances_while_building);
    assert!(nodes.layers[20].distance_seconds.is_none());
    assert_eq!(nodes.layers[20].levels_bytes, 0);
    assert_eq!(
        nodes.layers[20].table_bytes_per_position,
        TABLE_BYTES_PER_POSITION
    );
    let roomy = project(20, &two(1 << 30)).unwrap();
    assert!(roomy.layers.iter().all(|l| l.distances_while_building));
}

/// A projection's totals are its layers', each layer's memory the sum of
/// its parts; one node sends nothing; the lower layers are read as placed.
#[test]
fn a_projection_sums_its_layers_and_reads_lower_layers_as_placed() {
    let assumptions = assumptions(1 << 30);
    let plan = project(12, &assumptions).unwrap();
    // The lower layers of layer `seeds` built up to `seeds` as the node
    // with `a` reads them.
    let lower_reads = |seeds: usize, a: &Assumptions| {
        let (share, plan, places) = node_plan(seeds, &node_budget(seeds, a)).unwrap();
        read_lower(seeds, share, &plan, &places, 1, a.threads)
    };
    // With 1 GiB, layers 10 and 9 stay in memory: nothing to decode.
    assert_eq!(lower_reads(12, &assumptions), 0.0);
    let positions: u64 = (0..=12).map(index::layer_size).sum();
    assert_eq!(plan.positions, positions);
    assert_eq!(plan.layers.len(), 13);
    let layer = &plan.layers[12];
    assert_eq!(layer.seeds, 12);
    assert_eq!(layer.positions, index::layer_size(12));
    assert_eq!(layer.engine, Engine::InMemory);
    assert_eq!(plan.peak_memory_bytes, layer.memory_bytes);
    assert_eq!(plan.disk_bytes, layer.disk_bytes);
    let least = least_bytes(Engine::InMemory, 12, index::layer_size(12));
    assert_eq!(layer.least_memory_bytes, least);
    assert_eq!(plan.figures.notice_bytes_per_position, 0.0);
    assert_eq!(plan.figures.message_bytes, 0);
    assert_eq!(layer.network_bytes_per_position, 0.0);
    assert_eq!(layer.message_buffer_bytes, 0);
    assert_eq!(layer.share_positions, index::layer_size(12));
    // One node keeps every lower layer that layer 12 reads in memory
    // (layer 11 is read by no layer above 12), and counts them.
    let kept: u64 = (0..=10).map(index::layer_size).sum();
    assert_eq!(layer.lower_resident_bytes, kept);
    assert_eq!(
        layer.memory_bytes,
        layer.engine_bytes + layer.levels_bytes + kept
    );
    // A layer 20 out of core in 150 MB streams the lower layers it
    // cannot keep: reads each once, and writes and reads its deferred
    // lookups.
    let tight = Assumptions {
        memory: 150 << 20,
        ..assumptions.clone()
    };
    let layer_plan = plan_layer(20, tight.memory).unwrap();
    assert_eq!(layer_plan.engine, Engine::OutOfCore);
    let (_, _, places) = node_plan(20, &node_budget(20, &tight)).unwrap();
    let streamed: u64 = (0..20)
        .filter(|&s| places[s] == Place::Streamed)
        .map(index::layer_size)
        .sum();
    assert!(streamed >= index::layer_size(18) + index::layer_size(17));
    let reads = lower_reads(20, &tight);
    let deferred = 2.0 * index::layer_size(20) as f64 * DEFERRED_BYTES_PER_POSITION;
    assert_eq!(reads, (streamed as f64 + deferred) / DISK_BYTES_PER_SECOND);
    // With a cache that holds them, they are read through the page
    // cache; the cache holds the lower layers it can, largest first.
    let cached = Assumptions {
        lower_cache: index::layer_size(18) + index::layer_size(17),
        ..tight.clone()
    };
    let (_, _, places) = node_plan(20, &node_budget(20, &cached)).unwrap();
    assert_eq!(places[18], Place::Cached);
    assert_eq!(places[17], Place::Cached);
    // An in-memory layer reads the tables of the layers it cannot
    // keep, once per part.
    let in_memory = Assumptions {
        memory: 190 << 20,
        ..assumptions.clone()
    };
    let layer_plan = plan_layer(20, in_memory.memory).unwrap();
    assert_eq!(layer_plan.engine, Engine::InMemory);
    let (_, _, places) = node_plan(20, &node_budget(20, &in_memory)).unwrap();
    assert_eq!(places[18], Place::Stored);
    let hot = [18, 17].map(|s| (places[s] == Place::Stored) as u64 * index::layer_size(s));
    let parts = index::layer_size(20).div_ceil(layer_plan.part as u64);
    let reads = lower_reads(20, &in_memory);
    assert_eq!(
        reads,
        (hot.iter().sum::<u64>() * parts) as f64 * DECODE_SECONDS_PER_POSITION / 2.0
    );
    // Layer 45 in 256 GiB cannot keep layers 43 and 42 beside it, so it
    // takes parts as large as the room allows (the arithmetic of the
    // hot layers passes 2^64).
    let layer_plan = plan_layer(45, 256 << 30).unwrap();
    assert_eq!(layer_plan.engine, Engine::InMemory);
    assert!(layer_plan.part > 1 << 30, "{}", layer_plan.part);
    // So does a 16th of layer 42 in 64 GiB: its rank keeps whole lower
    // layers, and 40 and 39 (67 G positions) do not fit. With 4 Mi
    // parts (as when the hot layers were counted as shares) each of
    // its ~875 parts would decode layer 39 whole.
    let sixteen = Assumptions {
        nodes: 16,
        memory: 64 << 30,
        ..assumptions.clone()
    };
    let (share, share_plan, _) = node_plan(42, &node_budget(42, &sixteen)).unwrap();
    assert!(share >= index::layer_size(42) / 16, "{share}");
    assert_eq!(share_plan.engine, Engine::InMemory);
    assert!(share_plan.part as u64 >= share / 16, "{}", share_plan.part);
}

/// Plan picks each layer's engine and places its lower layers as the
/// build does: builds whose budgets keep lower layers resident, cached
/// and stored record what they did, and plan's node does the same.
#[test]
fn plan_budgets_and_places_each_layer_as_the_build_does() {
    use crate::table::raw;
    use crate::tablebase::BuildObserver;
    use crate::tablebase::oware::builder::{OwareObserver, lower_cache_dir};

    /// Per layer planned: its plan, the bytes of lower layers resident
    /// and those in the lower cache.
    struct Recorded {
        cache: std::path::PathBuf,
        layers: Mutex<Vec<(usize, LayerPlan, u64, u64)>>,
    }
    impl BuildObserver for Recorded {}
    impl OwareObserver for Recorded {
        fn layer_planned(&self, seeds: usize, plan: &LayerPlan, memory_bytes: u64) {
            let cached = (0..seeds)
                .filter_map(|s| std::fs::metadata(raw::layer_path(&self.cache, s)).ok())
                .map(|m| m.len())
                .sum();
            let resident = memory_bytes - plan.engine_bytes;
            let layer = (seeds, *plan, resident, cached);
            self.layers.lock().unwrap().push(layer);
        }
    }
    const TOP: usize = 12;
    let size = index::layer_size;
    let whole = plan_layer(TOP, 1 << 40).unwrap().engine_bytes;
    // With half of that, parts of layer 12 smaller than the layer and
    // little room beside.
    let budgets = [
        (1 << 30, 0),
        (whole + size(10) + size(9) / 2, size(9) + size(11)),
        (whole / 2, size(10) + size(9)),
        (whole / 2, 0),
    ];
    let mut places = Vec::new();
    for (memory, lower_cache) in budgets {
        let dir = tempfile::tempdir().unwrap();
        let recorded = Recorded {
            cache: lower_cache_dir(&ruleset_dir(dir.path(), Ruleset::Awari)),
            layers: Mutex::new(Vec::new()),
        };
        let options = BuildOptions {
            lower_cache,
            ..BuildOptions::new(TOP, memory)
        };
        build(dir.path(), Ruleset::Awari, &options, &recorded).unwrap();
        let a = Assumptions {
            calibration: Calibration {
                seeds: 10,
                threads: 1,
                in_memory: 1e6,
                out_of_core: 1e6,
                compact: 1e6,
                serial: SerialShares::fitted(),
            },
            threads: 1,
            nodes: 1,
            distances: options.distances,
            memory,
            lower_cache,
            recorded: None,
            disk: None,
            message_bytes: options.message_bytes,
        };
        let budget = node_budget(TOP, &a);
        let layers = recorded.layers.into_inner().unwrap();
        assert_eq!(layers.len(), TOP + 1);
        for (seeds, plan, resident, cached) in layers {
            let (_, projected, at) = node_plan(seeds, &budget).unwrap();
            let bytes = |place| {
                (0..seeds)
                    .filter(|&s| at[s] == place)
                    .map(size)
                    .sum::<u64>()
            };
            let what = format!("memory {memory}, cache {lower_cache}, layer {seeds}");
            assert_eq!(projected, plan, "{what}");
            assert_eq!(bytes(Place::Resident), resident, "{what}");
            // Cached and streamed layers both have raw copies.
            assert_eq!(
                bytes(Place::Cached) + bytes(Place::Streamed),
                cached,
                "{what}"
            );
            places.extend(at);
        }
    }
    for place in [Place::Resident, Place::Cached, Place::Stored] {
        assert!(places.contains(&place), "{place:?}");
    }
}

/// `plan --nodes 16 --memory 64G --max-seeds 48`: each node's memory is
/// the sum of its parts, as the build plans it, within the budget;
/// layer 48's largest share is a 16th of it in whole chunks; the
/// distances are found as the shares are built where the levels fit;
/// the network carries the notices and the tables; the shared folder
/// holds the tables, their part files and two checkpoints a rank.
#[test]
fn sixteen_nodes_project_what_each_node_holds_and_sends() {
    use crate::solve::oware::{CHUNK, OUTBOX_BYTES};
    let memory = 64 << 30;
    let sixteen = Assumptions {
        threads: 16,
        nodes: 16,
        distances: true,
        ..assumptions(memory)
    };
    let plan = project(MAX_SEEDS, &sixteen).unwrap();
    let buffers = 2 * OUTBOX_BYTES + crate::distributed::MESSAGE_BYTES as u64;
    assert_eq!(buffers, 384 << 20);
    let budget = node_budget(MAX_SEEDS, &sixteen);
    let notices = 22.0 * 15.0 / 16.0;
    assert_eq!(plan.figures.notice_bytes_per_position, notices);
    assert_eq!(plan.figures.outbox_bytes, OUTBOX_BYTES);
    let mut tables = 0u64;
    for l in &plan.layers {
        let what = format!("layer {}", l.seeds);
        assert!(l.memory_bytes <= memory, "{what}: {}", l.memory_bytes);
        assert_eq!(
            l.memory_bytes,
            l.engine_bytes + l.levels_bytes + l.lower_resident_bytes + l.message_buffer_bytes,
            "{what}"
        );
        assert_eq!(l.message_buffer_bytes, buffers, "{what}");
        let least = least_bytes(Engine::InMemory, l.seeds, l.share_positions);
        assert_eq!(l.least_memory_bytes, least + buffers, "{what}");
        assert_eq!(l.engine, Engine::InMemory, "{what}");
        // The engine holds at least 1.5 bytes a position of the share.
        assert!(l.engine_bytes >= l.share_positions * 3 / 2, "{what}");
        let largest = (0..16).map(|r| budget.share(l.seeds, r).len()).max();
        assert_eq!(Some(l.share_positions as usize), largest, "{what}");
        // Where the levels fit beside the share, the distances are found
        // as it is built; never by a pass.
        let least = least_bytes(Engine::InMemory, l.seeds, l.share_positions);
        let levels = engine::levels_bytes(l.share_positions);
        let fit = least + levels + buffers <= memory;
        assert_eq!(l.distances_while_building, fit, "{what}");
        assert_eq!(l.distance_seconds.is_some(), fit, "{what}");
        assert_eq!(l.levels_bytes, fit as u64 * levels, "{what}");
        let table = 0.40 + fit as u8 as f64 * 0.43;
        assert_eq!(l.table_bytes_per_position, table, "{what}");
        assert!(
            (l.network_bytes_per_position - (notices + table)).abs() < 1e-12,
            "{what}: {}",
            l.network_bytes_per_position
        );
        // The shared folder: the tables below, then two checkpoints of
        // 3.5 bytes a position (values, states, levels), or one and
        // this layer's tables and as much in part files.
        let checkpoint = if fit { 3.5 } else { 1.5 };
        let peak = f64::max(2.0 * checkpoint, checkpoint + 2.0 * table);
        let own = (l.positions as f64 * peak) as u64;
        assert_eq!(l.disk_bytes, tables + own, "{what}");
        assert_eq!(l.sweeps, 0, "{what}");
        tables += (l.positions as f64 * table) as u64;
    }
    // Layer 48: a 16th of its chunks, rounded up.
    let top = plan.layers.last().unwrap();
    assert_eq!(top.seeds, 48);
    let chunks = index::layer_size(48).div_ceil(CHUNK as u64);
    assert_eq!(top.share_positions, chunks.div_ceil(16) * CHUNK as u64);
    assert!(top.distances_while_building);
    // No layer is gathered: nothing near a whole layer per node.
    assert!(plan.peak_memory_bytes <= memory);
    // Messages of the 256 MiB asked for (`plan oware`'s default).
    assert_eq!(plan.figures.message_bytes, 256 << 20);
}

/// A share too large for its node is refused with the reason, not
/// projected: as the build plans its layers, the largest first, so the
/// error names what the whole build needs per node.
#[test]
fn a_share_too_large_for_its_node_is_refused() {
    let two = Assumptions {
        nodes: 2,
        distances: true,
        ..assumptions(8 << 30)
    };
    let err = project(40, &two).unwrap_err();
    let TablebaseError::ShareTooLarge {
        seeds,
        ranks,
        budget,
        needed,
    } = err
    else {
        panic!("{err}")
    };
    assert_eq!((seeds, ranks, budget), (40, 2, 8 << 30));
    let b = node_budget(40, &two);
    let share = b.share(40, 0).len() as u64;
    assert!(share >= index::layer_size(40) / 2);
    // Half of layer 40 at 1.5 bytes a position, the reserve and a
    // chunk's part, beside 2 x 64 MiB of outbox and a 256 MiB message.
    assert_eq!(
        needed,
        least_bytes(Engine::InMemory, 40, share) + (384 << 20)
    );
    assert!(needed > share * 3 / 2 + (384 << 20) + FIXED_BYTES);
    assert!(
        err.to_string().contains("layer 40 split over 2 ranks"),
        "{err}"
    );
    // Not projected at all, though the smaller layers fit: layer 35 is
    // the first whose share does not.
    let b = node_budget(34, &two);
    let room = (8 << 30) - b.message_buffer_bytes();
    let least = |s| least_bytes(Engine::InMemory, s, largest_share(s, &b));
    assert!(least(34) <= room && least(35) > room);
    assert!(project(34, &two).is_ok());
    let err = project(35, &two).unwrap_err();
    assert!(
        matches!(err, TablebaseError::ShareTooLarge { seeds: 35, .. }),
        "{err}"
    );
}

/// Recorded layers are projected at their recorded rate, taken to the
/// projection's threads by [`Engine::speedup`];
/// beyond the largest, the rate falls as fitted to the largest; the
/// calibration covers the rest.
#[test]
fn recorded_rates_replace_the_calibrations() {
    let time = |seeds: usize, rate: f64, threads: usize| BuildTime {
        seeds,
        positions: index::layer_size(seeds),
        seconds: index::layer_size(seeds) as f64 / rate,
        threads,
        engine: Engine::InMemory,
        ranks: 1,
        serial_share: None,
    };
    // On 2 threads, exactly P^−0.3 over layers 22..=25.
    let law = |seeds: usize| 2e6 * (index::layer_size(seeds) as f64 / 1e8).powf(-0.3);
    let mut times: Vec<BuildTime> = (22..=25).map(|s| time(s, law(s), 2)).collect();
    // Neither out of core nor distributed layers count.
    times.push(BuildTime {
        engine: Engine::OutOfCore,
        ..time(26, 1.0, 2)
    });
    times.push(BuildTime {
        ranks: 2,
        ..time(27, 1.0, 2)
    });
    times.push(time(10, 5e6, 1));
    let recorded = RecordedRates::new(&times).unwrap();
    assert_eq!(recorded.seeds(), [10, 22, 23, 24, 25]);
    assert!(recorded.fitted);
    assert!(
        (recorded.exponent - 0.3).abs() < 1e-9,
        "{}",
        recorded.exponent
    );
    let assumptions = Assumptions {
        threads: 4,
        recorded: Some(recorded),
        ..assumptions(1 << 40)
    };
    let plan = project(28, &assumptions).unwrap();
    let near = |seeds: usize, rate: f64| {
        let expected = index::layer_size(seeds) as f64 / rate;
        let seconds = plan.layers[seeds].seconds;
        assert!(
            (seconds / expected - 1.0).abs() < 1e-9,
            "layer {seeds}: {seconds} s, not {expected}"
        );
    };
    // Twice the threads of layers 22..=25, four times layer 10's.
    let fitted = SerialShares::fitted();
    let [one, two, four] = [1, 2, 4].map(|t| fitted.speedup(Engine::InMemory, t));
    let twice = four / two;
    assert!(1.8 < twice && twice < 2.0, "{twice}");
    near(10, 5e6 * four / one);
    near(24, twice * law(24));
    // Beyond the records, on the fitted fall, which ends at layer 27.
    near(26, twice * law(26));
    near(27, twice * law(27));
    near(28, twice * law(27));
    // Below them, unrecorded: the calibration's rate, as scaled.
    near(16, twice * 10e6);
    // One large layer: nothing to fit.
    let one = RecordedRates::new(&times[3..4]).unwrap();
    assert_eq!((one.fitted, one.exponent), (false, RATE_EXPONENT));
    assert_eq!(RecordedRates::new(&times[4..6]), None);
}

/// Each engine's share is that of the largest layer it built here in
/// one process with a share measured; an engine without is fitted.
#[test]
fn serial_shares_come_from_the_largest_layer_measured_here() {
    let time = |seeds, engine, ranks, serial_share| BuildTime {
        seeds,
        positions: index::layer_size(seeds),
        seconds: 1.0,
        threads: 2,
        engine,
        ranks,
        serial_share,
    };
    let times = [
        time(20, Engine::InMemory, 1, Some(0.05)),
        time(22, Engine::InMemory, 1, Some(0.04)),
        time(23, Engine::InMemory, 1, None),
        time(24, Engine::InMemory, 2, Some(0.5)),
        time(21, Engine::Compact, 1, Some(0.12)),
    ];
    let shares = SerialShares::recorded(&times);
    assert_eq!(shares.in_memory, 0.04);
    assert_eq!(shares.compact, 0.12);
    assert_eq!(shares.out_of_core, Engine::OutOfCore.serial_share());
    assert_eq!(shares.measured_on, [Some(22), None, Some(21)]);
    assert_eq!(SerialShares::fitted().measured_on, [None; 3]);
    let speedup = shares.speedup(Engine::InMemory, 16);
    assert!((speedup - 1.0 / (0.04 + 0.96 / 16.0)).abs() < 1e-9);
}

/// One thread is the unit; 16 threads run each engine as many times as
/// fast as measured on 16 cores (benchsuite/runs/2026-12-04-xeon16),
/// and twice 16 threads gain less than 16 did.
#[test]
fn threads_speed_engines_up_as_measured() {
    for (engine, measured) in [
        (Engine::InMemory, 9.7..11.2),
        (Engine::OutOfCore, 5.3..5.5),
        (Engine::Compact, 5.6..7.1),
    ] {
        let fitted = SerialShares::fitted();
        assert_eq!(fitted.speedup(engine, 1), 1.0);
        let sixteen = fitted.speedup(engine, 16);
        assert!(measured.contains(&sixteen), "{engine:?}: {sixteen}");
        assert!(
            fitted.speedup(engine, 32) / sixteen < 2.0 * 0.9,
            "{engine:?}"
        );
    }
}

/// Without records, the calibration's rate falls up to layer 27 and no
/// further.
#[test]
fn the_rate_stops_falling_at_layer_27() {
    let assumptions = assumptions(1 << 40);
    let plan = project(29, &assumptions).unwrap();
    let rate = |seeds: usize| {
        let layer = &plan.layers[seeds];
        layer.positions as f64 / layer.seconds
    };
    let size = |seeds| index::layer_size(seeds) as f64;
    let fallen = 10e6 * (size(27) / size(16)).powf(-RATE_EXPONENT);
    for seeds in [27, 28, 29] {
        assert!((rate(seeds) / fallen - 1.0).abs() < 1e-9, "layer {seeds}");
    }
    let at_20 = 10e6 * (size(20) / size(16)).powf(-RATE_EXPONENT);
    assert!((rate(20) / at_20 - 1.0).abs() < 1e-9);
}

/// A layer whose deferred lookups do not fit the disk left beside its
/// files is swept in rounds, each reading the streamed lower layers
/// again; one whose files leave no room for a part's lookups is
/// refused, naming the least it needs.
#[test]
fn a_disk_too_small_for_one_sweep_takes_several_or_is_refused() {
    let tight = |disk| Assumptions {
        disk,
        ..assumptions(150 << 20)
    };
    let unlimited = project(20, &tight(None)).unwrap();
    let layer = unlimited.layers[20];
    assert_eq!(layer.sweeps, 1);
    let deferred = deferred_bytes(layer.positions);
    // A third of the deferred lookups fit beside the rest.
    let disk = layer.disk_bytes - deferred + deferred / 3 + 64;
    let limited = project(20, &tight(Some(disk))).unwrap();
    let swept = limited.layers[20];
    assert_eq!(swept.sweeps, 3);
    assert!(swept.disk_bytes <= disk);
    let (_, _, places) = node_plan(20, &node_budget(20, &tight(None))).unwrap();
    let streamed = bytes_at(&places, Place::Streamed, 0..20);
    let extra = 2.0 * streamed as f64 / DISK_BYTES_PER_SECOND;
    assert!((swept.seconds - layer.seconds - extra).abs() < 1e-6);
    // One sweep: the engine's positions at the calibration's fallen
    // rate, the lower layers read once, its deferred lookups written
    // and read, its scratch files written and read.
    let (_, plan, _) = node_plan(20, &node_budget(20, &tight(None))).unwrap();
    assert_eq!(plan.engine, Engine::OutOfCore);
    let p = layer.positions as f64;
    let rate = 5e6 * fall(index::layer_size(16), layer.positions, RATE_EXPONENT);
    let io = streamed as f64
        + 2.0 * p * DEFERRED_BYTES_PER_POSITION
        + p * Engine::OutOfCore.io_bytes_per_position();
    let expected = p / rate + io / DISK_BYTES_PER_SECOND;
    assert!(
        (layer.seconds / expected - 1.0).abs() < 1e-9,
        "{}",
        layer.seconds
    );
    // Less than a part of lookups beside the rest.
    let refused = project(20, &tight(Some(layer.disk_bytes - deferred))).unwrap_err();
    let TablebaseError::PlanDiskTooSmall { seeds, needed, .. } = refused else {
        panic!("{refused}")
    };
    assert_eq!(seeds, 20);
    let part = plan_layer(20, 150 << 20).unwrap().part as u64;
    assert_eq!(needed, layer.disk_bytes - deferred + deferred_bytes(part));
}
