//! The streams of the engines that go outside memory: files of increasing
//! ranks written and read in rank order ([`rank_stream`]), read on a thread
//! of their own one item ahead of the work ([`read_ahead`]), and the
//! lookups a set-up defers into lower layers that are read only in order
//! ([`buckets`]). The set-up and the scratch files of the streamed engines
//! (`super::scratch`) stand on them; they stand only on the seam to the
//! lower layers and the shared module.

mod buckets;
mod rank_stream;
mod read_ahead;

pub use buckets::{DEFERRED_BYTES_PER_POSITION, Deferred};
pub(super) use rank_stream::{Encoded, RankReader, RankWriter, STREAM_BYTES, encode};
pub(super) use read_ahead::{ScratchResult, overlapped};
