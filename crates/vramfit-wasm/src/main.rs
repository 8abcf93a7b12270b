//! The npm module, built as a binary: see `cargo xtask npm`.
use vramfit_wasm as _;

fn main() {}
