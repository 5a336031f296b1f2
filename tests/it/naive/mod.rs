//! Deliberately simple, independent solvers, written straight from
//! `docs/rules.md`: they exist only to cross-check the real engines, so they
//! favour obviously correct code over speed and share no code with `src/`.

pub mod engehe;
pub mod oware;
mod oware_selftest;
