//! The rules engines: positions, legal moves and the value of a finished
//! game, for each game (the rules themselves are in `docs/rules.md`), and
//! the relay sowing that En Gehé and Omweso share.

pub mod engehe;
pub mod omweso;
pub mod oware;
pub mod relay;
