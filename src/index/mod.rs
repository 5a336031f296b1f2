pub mod oware;
pub mod stars_bars;
