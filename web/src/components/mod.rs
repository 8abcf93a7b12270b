//! The views and their parts.

pub mod calc;
pub mod chart;
pub mod device;
pub mod diagnose;
pub mod faq;
pub mod field;
pub mod fit;
pub mod gpus;
pub mod matrix;
pub mod mig;
pub mod prices;
pub mod shell;
pub mod spot;
