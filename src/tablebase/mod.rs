pub mod engehe;
pub mod omweso;
pub mod oware;
pub mod probe_lines;
pub mod store;
