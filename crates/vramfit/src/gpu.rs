//! GPUs: the catalog's cards, their generations, and the lookups by id or name.
//!
//! This module sits below the estimator: [`crate::estimate`] reads a card from here (its
//! memory, its generation's cuBLAS workspace, its speed figures), and [`crate::hardware`]'s
//! planners, above both, re-export it (`vramfit::hardware::find_gpu`, `Gpu`, …).
//!
//! The table is data: one human-edited TOML file per card under `crates/vramfit/data/gpus/`,
//! turned into `src/generated/gpus.rs` by the test `tests/sourcegen_hardware.rs`, which parses
//! each card's `architecture` into its [`Generation`] and fails on one the enum does not know.

mod catalog;
pub mod fit;
mod generation;

pub use catalog::{Gpu, MemorySource, MigProfile, find_gpu, gpus, lookup_gpu, match_gpus};
/// The SMs counted for vLLM's Triton top-k/top-p buffer on a card whose record gives none, read
/// from `data/engine-defaults.toml` with its reason and source.
pub use generated_gpus::UNKNOWN_SMS;
pub use generation::Generation;

pub(crate) use catalog::GpuDetail;

// The generated table (see the module documentation). The path is relative to `src/`, the
// folder of this file.
#[rustfmt::skip]
#[path = "generated/gpus.rs"]
mod generated_gpus;
