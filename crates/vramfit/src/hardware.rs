//! GPUs, MIG profiles, rental offers, and the planners that match an estimate to them.
//!
//! The cards themselves (the [`Gpu`] record, its [`Generation`], [`find_gpu`], [`match_gpus`],
//! [`lookup_gpu`], [`fit`]) are [`crate::gpu`]'s, below the estimator, and re-exported here.
//!
//! The catalog is data: one human-edited TOML file per record under `crates/vramfit/data/`,
//! each with its `source` and `date`, turned into the `&'static` tables of
//! `src/generated/*.rs` by the test `tests/sourcegen_hardware.rs` (which fails when a committed
//! table is stale). Everything else here is a pure function over those tables:
//!
//! - [`tiers`]: the guide's model-size tiers (§3.2) and their recommended cards;
//! - [`plan()`]: the cheapest way to run a per-GPU memory requirement on the offers (§3.1
//!   stage 3, §6 Q3), over single cards, tensor / pipeline parallel, ZeRO-3 and MIG slices,
//!   and for a vLLM or SGLang serving run data-parallel replicas and expert parallel
//!   ([`PlanOptions::for_run`]), one server or several; [`PlanOption::offer_price`] its price
//!   as the offer states it;
//! - [`mig`]: valid MIG layouts (NVIDIA's placement rules) and packing jobs onto them (§4.1,
//!   §5.2, §5.3);
//! - [`matrix`]: the platform decision matrix with user weights (§4.2);
//! - [`spot`]: spot against on-demand with interruptions (§6 Q2);
//! - [`fit`]: the largest batch or context that fits a card;
//! - [`layout_required_bytes`]: what one GPU needs when a run is spread over a layout, the
//!   per-layout function [`plan()`] takes;
//! - [`grid`]: which models fit a card, in which format, and the grid of presets × cards;
//! - [`job`]: what a whole job (tokens to generate, an epoch to train) costs on each option;
//! - [`import`]: offers a person brings (typed prices, catalogs read from JSON), validated.

mod catalog;
pub mod grid;
pub mod import;
pub mod job;
mod layout;
pub mod matrix;
pub mod mig;
mod offer_price;
mod plan;
#[cfg(test)]
mod plan_nodes_tests;
mod plan_serving;
#[cfg(test)]
mod plan_serving_tests;
pub mod spot;
pub mod tiers;

pub use crate::gpu::fit;
pub use crate::gpu::{
    Generation, Gpu, MemorySource, MigProfile, find_gpu, gpus, lookup_gpu, match_gpus,
};
pub use catalog::{
    Billing, Currency, ExchangeRate, Market, Offer, Platform, Slicing, exchange_rate, find_offer,
    offers, platforms,
};
pub use layout::{layout_input, layout_required_bytes};
pub use offer_price::OfferPrice;
pub use plan::{DEFAULT_MAX_NODES, Layout, ParallelKind, PlanOption, PlanOptions, plan};

// The generated tables (see the module documentation; the GPUs' is `crate::gpu`'s). The paths
// are relative to `src/`, the folder of this file.
#[rustfmt::skip]
#[path = "generated/offers.rs"]
mod generated_offers;
#[rustfmt::skip]
#[path = "generated/platforms.rs"]
mod generated_platforms;
