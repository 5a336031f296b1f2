//! Numbering positions into table order: [`oware`] the published order of
//! the Oware layers, [`stars_bars`] every way to put `n` seeds in `p` pits
//! (En Gehé, Omweso).

pub mod oware;
pub mod stars_bars;
