//! vramfit: how much GPU memory a deep-learning training or inference run needs, byte by byte.
//!
//! The crate is `#![no_std]` with `alloc`, does no I/O, and cannot fail once its input is
//! validated: every public entry point takes plain data, checks it once (returning an
//! [`InputError`] that names the field and the accepted range), and then computes with
//! saturating integer arithmetic on [`Bytes`].
//!
//! It implements the three stages of the GPU-memory selection guide that the product is built
//! on (quantify the demand, adjust for the peak, match a platform), a detailed estimate that is
//! right where the guide simplifies, the hardware catalog and planners, and OOM diagnosis.
#![no_std]
#![deny(missing_docs)]
#![forbid(unsafe_code)]
// A panic in WebAssembly kills the page: library code handles every `None` and `Err`.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

#[macro_use]
pub mod error;
pub mod catalog;
pub mod config;
pub mod diagnose;
#[cfg(feature = "zh")]
mod error_zh;
pub mod estimate;
pub mod faq;
pub mod gpu;
pub mod hardware;
pub mod headers;
pub mod host;
#[cfg(feature = "hub")]
pub mod hub;
#[cfg(feature = "launch")]
pub mod launch;
pub mod model;
pub mod precision;
pub mod presets;
#[cfg(feature = "stack-config")]
pub mod stack_config;
pub mod throughput;
pub mod units;
mod words;

pub use error::{ErrorKind, InputError, Result};
pub use units::Bytes;

/// The crate's version, as published.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
