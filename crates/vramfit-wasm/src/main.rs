//! The npm module, built as a binary: see `cargo xtask npm`.
use vramfit_wasm as _;

/// Talc, not the standard library's dlmalloc: see the site's `web/src/main.rs`.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

fn main() {}
