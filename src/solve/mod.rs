pub mod oware;
