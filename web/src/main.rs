//! The site's module: mounts the app on `#app` when it starts. The library exports [`stop`]
//! for `www/boot.js`, which hands the page over from the calculator-only build to the full one.
//!
//! [`stop`]: vramfit_web::stop

/// Talc instead of the standard library's dlmalloc, in the site's modules and the npm package's:
/// smaller and faster (its authors' WebAssembly benchmarks; the book's performance chapter has
/// the size).
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

fn main() {
    #[cfg(target_arch = "wasm32")]
    vramfit_web::start();
}
