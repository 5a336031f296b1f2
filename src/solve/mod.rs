pub mod array;
pub mod explicit;
pub mod oware;
pub mod threshold;
