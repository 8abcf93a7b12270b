//! The views and their parts.

pub mod calc;
pub mod device;
pub mod diagnose;
pub mod faq;
pub mod fit;
pub mod mig;
pub mod shell;
