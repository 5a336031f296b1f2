pub mod engehe;
pub mod oware;
pub mod store;
