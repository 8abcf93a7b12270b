//! The site's module: mounts the app on `#app` when it starts. The library exports [`stop`]
//! for `www/boot.js`, which hands the page over from the calculator-only build to the full one.
//!
//! [`stop`]: vramfit_web::stop

/// Talc instead of the standard library's dlmalloc, in the site's modules and the npm package's:
/// smaller and faster (its authors' WebAssembly benchmarks). Measured 2026-12-01 on the English
/// calculator build: 139.1 → 137.4 KB gzip. `disable-realloc-in-place` would save 0.1 KB more and
/// copy on every growth of a `Vec` or `String`; it is not used.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

fn main() {
    #[cfg(target_arch = "wasm32")]
    vramfit_web::start();
}
