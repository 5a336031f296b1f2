//! What every Oware engine shares and none owns: how an engine runs
//! ([`Config`]), its errors ([`EngineError`], [`OutOfMemory`]), the positions of a work unit
//! ([`CHUNK`]) and the prefetch hint ([`prefetch`]). It imports nothing
//! from the engines, so every one of them may import it.

use std::io;
use std::path::PathBuf;
use std::time::Duration;

use crate::error::WithPath;
use crate::solve::phases::Phases;

/// Positions per parallel work unit (a multiple of 16: one state word holds 16).
pub const CHUNK: usize = 1 << 15;

/// The system refused the memory of a layer's engine or distance pass.
#[derive(Debug, thiserror::Error)]
#[error("cannot get {bytes} bytes of memory for layer {seeds}")]
pub struct OutOfMemory {
    /// The layer.
    pub seeds: usize,
    /// Bytes asked for.
    pub bytes: u64,
    /// The system's refusal.
    pub source: io::Error,
}

/// Errors of the engines.
#[derive(Debug, thiserror::Error)]
pub enum EngineError<E: std::error::Error + 'static> {
    #[error(transparent)]
    Memory(#[from] OutOfMemory),
    #[error(transparent)]
    Scratch(#[from] WithPath<io::Error>),
    #[error(transparent)]
    Lower(E),
}

/// How an engine runs.
#[derive(Clone, Debug)]
pub struct Config {
    /// Positions per part of the set-up (and of the out-of-core engine's final
    /// pass): a multiple of [`CHUNK`]; each part asks the lower layers one
    /// batch.
    pub part: usize,
    /// Folder of the layer's scratch files and checkpoint (created when
    /// needed).
    pub scratch: PathBuf,
    /// Positions the set-up of an engine that streams its exits sweeps
    /// before the lookups it deferred are answered, at most (in whole
    /// parts, but the layer's last): bounds the deferred lookups' files.
    pub sweep: usize,
    /// Save the engine's state at the first threshold boundary after this
    /// much time since the layer began or was last saved, and resume from a
    /// saved one; `None`: neither.
    pub checkpoint_every: Option<Duration>,
    /// Memory the buffers of an engine that streams its exits may take
    /// beyond its arrays and parts, whatever the threads (at least its
    /// least: [`compact::LEAST_BUFFER_BYTES`],
    /// [`out_of_core::LEAST_BUFFER_BYTES`]); the buffers that exist per
    /// thread shrink, or are shared, to fit. `u64::MAX`: as large as they
    /// are with memory to spare. The in-memory engine has none.
    ///
    /// [`compact::LEAST_BUFFER_BYTES`]: super::compact::LEAST_BUFFER_BYTES
    /// [`out_of_core::LEAST_BUFFER_BYTES`]: super::out_of_core::LEAST_BUFFER_BYTES
    pub buffer_bytes: u64,
    /// The in-memory engine in one process also finds the layer's distances
    /// as it resolves it ([`levels_bytes`] more); the others leave them to
    /// the distance pass.
    ///
    /// [`levels_bytes`]: super::levels_bytes
    pub distances: bool,
    /// Where the engine records the phases it enters.
    pub phases: Phases,
}

/// Positions handled together so that the memory they need is asked for
/// ([`prefetch`]) before any of it is read, and the loads overlap: their
/// parents' (or children's) states, codes, values or distances.
pub const PREFETCH_BATCH: usize = 16;

/// Asks the CPU to start loading the memory at `address`, which will be
/// used soon.
#[inline]
pub fn prefetch<T>(address: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint; any address is allowed.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(address.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}
