//! The npm package (`crates/vramfit-wasm` → `pkg/`). Owned by the npm-package work; this is
//! its entry point.

/// `cargo xtask npm`: builds the npm package.
pub fn npm() -> crate::Result {
    Err("`cargo xtask npm` is not written yet: the npm package build lands with the npm-package work".into())
}
