//! The views and their parts.

pub mod calc;
pub mod chart;
#[cfg(feature = "full")]
pub mod device;
#[cfg(feature = "full")]
pub mod diagnose;
#[cfg(feature = "full")]
pub mod faq;
pub mod field;
#[cfg(feature = "full")]
pub mod fit;
pub mod gpus;
#[cfg(feature = "full")]
pub mod matrix;
#[cfg(feature = "full")]
pub mod mig;
#[cfg(feature = "full")]
pub mod prices;
pub mod shell;
#[cfg(feature = "full")]
pub mod spot;
