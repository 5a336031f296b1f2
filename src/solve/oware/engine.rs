//! The engines that build an Oware layer, and each one's facts in one place:
//! what it keeps in memory per position of the layer and of a part, what it
//! writes to scratch files and reads back, how its checkpoint is named and
//! how its rate scales with threads. The budget, the placement of the lower
//! layers, the disk check, `plan` and the checkpoints read them here, so an
//! engine added is a variant here and its `solve_layer` (docs/scale.md says
//! why each figure is what it is). The engines' modules depend on this one,
//! not the other way: the one fact that needs their buffers,
//! `Engine::fixed_bytes`, is beside the dispatch to them (`mod.rs`).

use super::lower::PART_BYTES;

/// The engine that builds a layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The whole layer's values and states in memory (`solve_layer`).
    InMemory,
    /// States in memory, the rest streamed through scratch files
    /// (`out_of_core::solve_layer`).
    OutOfCore,
    /// Two bits a position in memory, the rest streamed
    /// (`compact::solve_layer`).
    Compact,
}

impl Engine {
    /// Every engine, fastest first: the order a budget tries them in.
    pub const ALL: [Engine; 3] = [Engine::InMemory, Engine::OutOfCore, Engine::Compact];

    /// Bytes of memory per position of the layer: in memory a value byte
    /// and a 4-bit state; out of core the state and one bit ("best exit at
    /// most −t"); compact a 2-bit code.
    pub fn bytes_per_position(self) -> f64 {
        match self {
            Engine::InMemory => 1.5,
            Engine::OutOfCore => 0.625,
            Engine::Compact => 0.25,
        }
    }

    /// Bytes of memory per position of a part of the set-up (and of the
    /// final pass of the engines that stream): the part's lookups into the
    /// lower layers; out of core also its exits, or in the final pass its
    /// values, exits and marked values; compact one byte more (its
    /// counters, computed by the shared set-up, not kept).
    pub fn part_bytes_per_position(self) -> u64 {
        match self {
            Engine::InMemory => PART_BYTES,
            Engine::OutOfCore => PART_BYTES + 2,
            Engine::Compact => PART_BYTES + 3,
        }
    }

    /// Whether the engine streams its exits and results through scratch
    /// files in rank order; such an engine also reads a lower layer that
    /// memory and the lower cache cannot keep by streaming its raw copy
    /// (the bucketed set-up), where the in-memory engine reads its table.
    pub fn streams(self) -> bool {
        !matches!(self, Engine::InMemory)
    }

    /// Peak bytes of disk per position of the layer that its scratch files
    /// take while it is built. Out of core: exits by size and positions by
    /// threshold; compact: those and a threshold's runs before they merge.
    /// `scripts/derive/engine-footprint.sh DIR N` measures them.
    pub fn scratch_bytes_per_position(self) -> f64 {
        match self {
            Engine::InMemory => 0.0,
            Engine::OutOfCore => 1.4,
            Engine::Compact => 2.0,
        }
    }

    /// Bytes of disk per position of its checkpoint: its arrays, as in
    /// memory.
    pub fn checkpoint_bytes_per_position(self) -> f64 {
        self.bytes_per_position()
    }

    /// Bytes the engine reads and writes in its scratch files per position
    /// of the layer (exits, positions by threshold, the compact engine's
    /// runs), sequentially: `plan` charges them at its disk's rate.
    /// `scripts/derive/engine-footprint.sh DIR 20` re-derives them (read plus
    /// written).
    pub fn io_bytes_per_position(self) -> f64 {
        match self {
            Engine::InMemory => 0.0,
            Engine::OutOfCore => 4.6,
            Engine::Compact => 6.9,
        }
    }

    /// Share of a layer's one-thread time that more threads do not shorten
    /// (Amdahl's law): the passes that stay serial, and for the compact
    /// engine the merges of its runs. `scripts/derive/thread-scaling.sh BIN 22
    /// "in-memory out-of-core compact" "1 2 4 8 16"` prints it per engine,
    /// fitted to the layer times; wanted on a machine with many cores.
    /// `plan` takes it where its calibration cannot measure the share
    /// (on one thread).
    pub fn serial_share(self) -> f64 {
        match self {
            Engine::InMemory => 0.033,
            Engine::OutOfCore => 0.13,
            Engine::Compact => 0.085,
        }
    }

    /// The file of the engine's checkpoint in a layer's scratch folder. The
    /// engines use separate files, so a build that changes engine (a new
    /// `--memory`) starts the layer afresh rather than misreading the
    /// other's state.
    pub fn checkpoint_file(self) -> &'static str {
        match self {
            Engine::InMemory => "checkpoint.in-memory",
            Engine::OutOfCore => "checkpoint",
            Engine::Compact => "checkpoint.compact",
        }
    }

    /// The name a checkpoint's header gives the engine (the out-of-core
    /// engine's is its name from before the engines were renamed, so that
    /// saved checkpoints still load).
    pub(super) fn checkpoint_name(self) -> &'static str {
        match self {
            Engine::InMemory => "InMemory",
            Engine::OutOfCore => "Bounded",
            Engine::Compact => "Compact",
        }
    }
}

impl std::str::FromStr for Engine {
    type Err = String;

    /// An engine as [`Display`](std::fmt::Display) writes it.
    fn from_str(text: &str) -> Result<Engine, String> {
        Engine::ALL
            .into_iter()
            .find(|e| e.to_string() == text)
            .ok_or_else(|| format!("unknown engine {text:?}"))
    }
}

impl std::fmt::Display for Engine {
    /// As users read it: the progress line, the summary, `build-times.tsv`.
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(match self {
            Engine::InMemory => "in memory",
            Engine::OutOfCore => "out of core",
            Engine::Compact => "compact",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_engine_reads_as_it_is_written() {
        for engine in Engine::ALL {
            assert_eq!(engine.to_string().parse::<Engine>(), Ok(engine));
        }
        assert!("bounded".parse::<Engine>().is_err());
    }

    #[test]
    fn the_engines_that_stream_take_less_memory() {
        let [in_memory, out_of_core, compact] = Engine::ALL.map(Engine::bytes_per_position);
        assert!(in_memory > out_of_core && out_of_core > compact);
        assert!(!Engine::InMemory.streams() && Engine::Compact.streams());
    }
}
