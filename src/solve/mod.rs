pub mod array;
pub mod oware;
