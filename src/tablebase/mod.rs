pub mod engehe;
pub mod omweso;
pub mod oware;
pub mod store;
