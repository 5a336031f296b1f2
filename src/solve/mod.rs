//! The retrograde engines: `oware` (the implicit unmove engine) and
//! `explicit` (the explicit graph engine), with the decision rules both use
//! (`threshold`), their large arrays (`array`) and the record of where a
//! layer's build spends its time (`phases`).

pub(crate) mod array;
pub mod explicit;
pub(crate) mod oware;
pub mod phases;
pub(crate) mod threshold;

/// Progress callback of the engines: called with a number of work steps
/// done; a layer of `P` positions takes `2P` steps (one pass to set up, one
/// to resolve).
pub type Progress<'a> = &'a (dyn Fn(u64) + Sync);
